/*
** dlbplot.h — the figure model and its Cairo renderer (PNG, PDF, SVG).
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
**
** A figure is a grid of panels (0-based, row-major); each panel holds series. A series is
** built in steps: dlb_series_new, then its data arrays, string lists and options by name,
** then dlb_series_commit, which validates it (mismatched lengths, empty data, values a log
** axis cannot show) and drops it on failure. Data arrays are copied. Sizes are in points
** (1/72 in) except the figure's width and height (inches). Nothing here prints: warnings
** (non-finite values skipped) are read with dlb_figure_warning.
*/
#ifndef DLBPLOT_H
#define DLBPLOT_H

#include <stddef.h>

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
typedef struct dlb_figure dlb_figure;

/* Series kinds. */
enum {
  DLB_SERIES_LINE = 0,     /* data x y; line with optional markers */
  DLB_SERIES_SCATTER = 1,  /* data x y [c] [s] [group]; markers coloured by value or group */
  DLB_SERIES_BAR = 2,      /* data values (stacks x n, stack-major); strs labels, stacks */
  DLB_SERIES_HEATMAP = 3,  /* data z (ny x nx, row-major) [mask]; strs xlabels ylabels */
  DLB_SERIES_BOX = 4,      /* data values (groups concatenated) sizes; strs labels */
  DLB_SERIES_ROOFLINE = 5, /* data peak bw [flops_eff bw_eff] [px py pgroup]; strs names */
  DLB_SERIES_BAND = 6,     /* data x lo hi; a shaded region */
  DLB_SERIES_HLINE = 7,    /* num value; horizontal reference line */
  DLB_SERIES_VLINE = 8,    /* num value; vertical reference line */
  DLB_SERIES_DIAG = 9,     /* y = x reference line */
  DLB_SERIES_TEXT = 10,    /* num x y; str text: an annotation in data coordinates */
  DLB_SERIES_SPAN = 11,    /* num lo hi; a shaded x range over the full height (regions) */
  DLB_SERIES_NKINDS = 12
};

/* Colour maps (dlb_cmap_*). */
enum {
  DLB_CMAP_VIRIDIS = 0, DLB_CMAP_MAGMA = 1, DLB_CMAP_CIVIDIS = 2, DLB_CMAP_DIVERGING = 3,
  DLB_CMAP_GREY = 4, DLB_CMAP_COUNT = 5
};

/* Axis scales (panel option "xscale"/"yscale" takes their names "linear", "log"). */
enum { DLB_SCALE_LINEAR = 0, DLB_SCALE_LOG = 1 };

/* A new figure of width x height inches with rows x cols panels; NULL on bad sizes. */
DLB_API dlb_figure *dlb_figure_new(double width_in, double height_in, int rows, int cols);
/* Free a figure and everything it holds; NULL is a no-op. */
DLB_API void dlb_figure_free(dlb_figure *f);
/* Figure options by name: numbers "font" (base size, pt), "sharex", "sharey" (0/1),
** "dpi" (default PNG resolution); strings "title". */
DLB_API int dlb_figure_num(dlb_figure *f, const char *key, double value);
DLB_API int dlb_figure_str(dlb_figure *f, const char *key, const char *value);
/* Number of panels (rows * cols). */
DLB_API int dlb_figure_npanels(const dlb_figure *f);

/* Panel options by name. Strings: "title", "xlabel", "ylabel", "xscale", "yscale"
** ("linear"|"log"), "legend" ("best", "upper left", "upper right", "lower left",
** "lower right", "outside" (right of the axes), "none"), "xtickformat", "ytickformat"
** ("auto", "si", "pow", "plain").
** Numbers: "xmin", "xmax", "ymin", "ymax" (NaN = automatic), "grid" (0/1). */
DLB_API int dlb_panel_str(dlb_figure *f, int panel, const char *key, const char *value);
DLB_API int dlb_panel_num(dlb_figure *f, int panel, const char *key, double value);

/* Ticks chosen by the caller for axis 0 (x) or 1 (y): positions v[n] (n = 0 goes back to
** automatic ticks, at most 64), then optionally a label for tick i (default: formatted). */
DLB_API int dlb_panel_ticks(dlb_figure *f, int panel, int axis, const double *v, size_t n);
DLB_API int dlb_panel_ticklabel(dlb_figure *f, int panel, int axis, size_t i, const char *label);

/* Start a series of `kind` in `panel`; its id goes to *id. */
DLB_API int dlb_series_new(dlb_figure *f, int panel, int kind, int *id);
/* Give a series a named data array (copied); see the kinds above for the names. */
DLB_API int dlb_series_data(dlb_figure *f, int id, const char *name, const double *v, size_t n);
/* Append one string to a named string list of a series (labels, names, ...). */
DLB_API int dlb_series_addstr(dlb_figure *f, int id, const char *name, const char *s);
/* Series options by name (see docs/plot.md for each kind's list). */
DLB_API int dlb_series_str(dlb_figure *f, int id, const char *key, const char *value);
DLB_API int dlb_series_num(dlb_figure *f, int id, const char *key, double value);
/* Validate a series; on failure it is dropped and the status says why. */
DLB_API int dlb_series_commit(dlb_figure *f, int id);
/* Drop a series (a half-built one after a failed step). */
DLB_API int dlb_series_drop(dlb_figure *f, int id);
/* The warnings of the last commit ("" if none); borrowed until the next commit. */
DLB_API const char *dlb_figure_warning(const dlb_figure *f);
/* The valid option names of a series kind (space-separated), which = 0 data arrays,
** 1 string lists, 2 string options, 3 number options; -1 gives the kind's name ("line").
** Static; NULL for an unknown kind. */
DLB_API const char *dlb_series_options(int kind, int which);

/* Compute the layout (done by save too). */
DLB_API int dlb_figure_layout(dlb_figure *f);
/* After layout: how many pairs of text boxes overlap (or leave the figure). */
DLB_API int dlb_figure_overlaps(dlb_figure *f, size_t *count);
/* After layout: a warning naming the series with points outside user-set limits (not
** drawn), "" when none; borrowed until the next layout. */
DLB_API const char *dlb_figure_layout_warning(const dlb_figure *f);
/* A description of overlap i (0-based) into buf. */
DLB_API int dlb_figure_overlap_text(dlb_figure *f, size_t i, char *buf, size_t size);
/* After layout: where data point (x, y) of a panel lands, in points from the top left. */
DLB_API int dlb_panel_to_point(dlb_figure *f, int panel, double x, double y, double *px, double *py);

/* After layout: the labelled ticks of axis 0 (x), 1 (y) or 2 (the colour bar): *count, and
** tick i's value and label. */
DLB_API int dlb_panel_tick_count(dlb_figure *f, int panel, int axis, int *count);
DLB_API int dlb_panel_tick(dlb_figure *f, int panel, int axis, int i, double *value, char *buf,
                   size_t size);

/* Write the figure to path; the format follows the extension (.png, .pdf, .svg). dpi
** applies to PNG (<= 0: the figure's default). Written whole or not at all: DLB_EIO when
** the file cannot be written, DLB_EINVAL for an unknown extension. */
DLB_API int dlb_figure_save(dlb_figure *f, const char *path, double dpi);

/* Colour map by name ("viridis", "magma", "cividis", "diverging", "grey"); *cmap. */
DLB_API int dlb_cmap_lookup(const char *name, int *cmap);
/* Colour of a map at t in [0, 1] (clamped; NaN gives the NaN colour, white). rgb[3]. */
DLB_API int dlb_cmap_eval(int cmap, double t, double *rgb);
/* Colour i of the categorical palette (cycles). rgb[3]. */
DLB_API void dlb_palette(int i, double *rgb);

/* Read back a PNG (for tests): its size, and the colour of one pixel as rgba[4] in 0..1. */
DLB_API int dlb_png_size(const char *path, int *width, int *height);
DLB_API int dlb_png_pixel(const char *path, int x, int y, double *rgba);

/* Tick helpers (exposed for tests and for users who format their own tables):
** nice ticks for [lo, hi] aiming at about `target` ticks (1/2/5 x 10^n steps) into
** out[cap]; *n ticks written. */
DLB_API int dlb_ticks_linear(double lo, double hi, int target, double *out, size_t cap, size_t *n);
/* Format a tick value: style "si" (1k, 10M), "pow" (10^3), "plain"; step is the tick
** spacing (for the decimals of "plain"; 0 if unknown). */
DLB_API int dlb_tick_format(double v, double step, const char *style, char *buf, size_t size);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
