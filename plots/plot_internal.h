/*
** plot_internal.h — the figure model shared by the files of plots/: figure, panels,
** series, axes and the layout's boxes. Not part of the public interface; it includes
** cairo.h, so only files in plots/ include it.
*/
#ifndef PLOT_INTERNAL_H
#define PLOT_INTERNAL_H

#include <cairo.h>
#include <stddef.h>

#include "dlb_runtime.h"

enum { MAXFIELDS = 12, MAXTICKS = 64, MAXBOXES = 4096 };

typedef struct { const char *name; double *v; size_t n; } darray;
typedef struct { const char *name; char **s; size_t n; } slist;
typedef struct { const char *name; char *s; } sopt;
typedef struct { const char *name; double v; } nopt;

typedef struct series {
  int kind, panel, committed, dead;
  const struct series_methods *methods;   /* the kind's behaviour (dlbp_methods(kind)) */
  darray data[MAXFIELDS]; int ndata;
  slist strs[MAXFIELDS]; int nstrs;
  sopt str[MAXFIELDS]; int nstr;
  nopt num[MAXFIELDS]; int nnum;
  int colour_index;              /* position in the categorical palette */
  int shared;                    /* layout: the colour range below is shared with other panels */
  double share_lo, share_hi;     /* (in the norm's space: log values for "logsym") */
} series;

/* One axis of a panel: scale, limits, ticks with their labels. */
typedef struct {
  int scale;                     /* DLB_SCALE_* */
  double umin, umax;             /* user limits (NaN: automatic) */
  double lo, hi;                 /* the limits in use */
  char label[256];
  char fmt[16];                  /* tick format: auto si pow plain */
  char **cats; size_t ncats;     /* categorical axis: positions 1..ncats (borrowed) */
  double ticks[MAXTICKS]; char tlabels[MAXTICKS][64]; int nticks;
  double minor[MAXTICKS * 2]; int nminor;
  int rotate;                    /* tick labels turned 90 degrees */
  double uticks[MAXTICKS]; int nuticks;          /* ticks the user chose */
  char ulabels[MAXTICKS][64]; char has_ulabel[MAXTICKS];
  int show_labels;               /* 0 on shared inner axes */
  int scale_set;                 /* the user chose the scale (shared axes adopt it) */
  char label_fit[256];           /* the label as drawn: shortened to fit (layout) */
  double label_size, label_pos;  /* its size (pt) and centre along the axis (points) */
} axis;

typedef struct { double x, y, w, h; } rect;

typedef struct {
  axis ax[2];                    /* 0 = x, 1 = y */
  char title[256];
  char legend[16];
  int grid;
  rect cell;                     /* grid cell in figure points */
  rect box;                      /* the axes rectangle */
  rect legend_box; int has_legend;
  int legend_out;                /* "best" found no free corner: the legend went outside */
  double legend_cover;           /* data area (pt^2) under the legend placed "best" */
  int cbar_series;               /* series id whose map gets a colour bar, -1 none */
  rect cbar;                     /* colour bar rectangle */
  double cbar_lo, cbar_hi; axis cbar_axis;
  double margin[4];              /* left bottom right top, points */
  double above;                  /* legend height above the axes (heat maps), points */
  int legend_above;              /* "best" found no room: the legend sits above the axes */
  int legend_cols;               /* legend entries per row (above the axes: several) */
  double title_above;            /* the row's largest `above`: titles of a row align */
  char title_fit[256]; double title_size, title_x;   /* the title as drawn (layout) */
} panel;

enum { LEG_LINE, LEG_PATCH, LEG_MARKER, LEG_HATCH, LEG_BAND, LEG_WHITE };
typedef struct { char label[64]; int kind, sid; double rgb[3]; char marker[12];
                 char style[12]; } legend_entry;

/* A text box of the layout, for the overlap check. */
typedef struct { rect r; int panel; char what[48]; } tbox;

struct dlb_figure {
  double width, height;          /* points */
  int rows, cols, sharex, sharey;
  double font, dpi;
  char title[256];
  panel *panels;
  series *series; int nseries, capseries;
  char warning[512];
  char layout_warning[512];      /* points outside user limits, found by the layout */
  char title_fit[256]; double title_size, title_x;   /* the figure title as drawn */
  int laid_out;
  tbox *boxes; size_t nboxes;
  size_t *pairs; size_t npairs;  /* overlapping box pairs (2 per pair) */
};

/* occupancy.c: what a panel's series draw, on a grid of small cells, for placing the
** legend where it covers the least (score_legend) and for f:layout_check. */
typedef struct {
  double x0, y0, cell;   /* top-left of the grid (the axes box) and the cell size, points */
  int nx, ny;
  double *sat;           /* summed-area table, (nx + 1) x (ny + 1) */
  int solid;             /* translucent fills left out */
} occupancy;
/* The grid being marked while an occupancy is built: each kind's `occupy` method marks
** what it draws, in figure points, with a weight (1 for data; OCC_TRANSLUCENT for bands
** and spans, which a legend may cover before lines, markers or bars). */
typedef struct { const occupancy *o; float *g; } occgrid;
#define OCC_TRANSLUCENT 0.02f
void dlbp_occ_cell(occgrid *g, int i, int j, float w);        /* cell (i, j) of the grid */
void dlbp_occ_point(occgrid *g, double x, double y, float w);
void dlbp_occ_rect(occgrid *g, rect r, float w);              /* the cells r overlaps */
void dlbp_occ_seg(occgrid *g, double x0, double y0, double x1, double y1, float w);
/* solid = 1 leaves out translucent fills (bands, spans): what the layout check calls data */
int dlbp_occupancy_build(const dlb_figure *f, int pi, int solid, occupancy *o);
void dlbp_occupancy_free(occupancy *o);
/* Covered area (pt^2, weighted: translucent fills count 2%, text boxes 1000x)
** under rectangle r. */
double dlbp_occupancy_area(const occupancy *o, rect r);

/* cmap.c: the log-symmetric norm (norm = "logsym") */
int dlbp_cmap_log(const series *s);
void dlbp_cmap_share(dlb_figure *f);
double dlbp_cmap_value(const series *s, double v);

/* stamp.c: markers as glyphs of a user font (drawn once per size, stamped per point). */
int dlbp_stamp_begin(cairo_t *cr, const char *shape, double size);
void dlbp_stamp_at(cairo_t *cr, int g, double x, double y);

/* series.c */
darray *dlbp_series_data(series *s, const char *name);
slist *dlbp_series_strs(series *s, const char *name);
const char *dlbp_series_str(const series *s, const char *name, const char *dflt);
double dlbp_series_num(const series *s, const char *name, double dflt);
const char *dlbp_kind_name(int kind);
void dlbp_series_clear(series *s);
int dlbp_series_logcheck(dlb_figure *f, int id);
int dlbp_plot_safe_fmt(const char *fmt);
int dlbp_legend_entries(dlb_figure *f, int pi, legend_entry *out, int cap);

/* cmap.c */
int dlbp_cmap_from_name(const char *name);
void dlbp_cmap_rgb(int cmap, double t, double rgb[3]);
int dlbp_colour_parse(const char *text, double rgb[3]);

/* axis.c */
double dlbp_axis_fwd(const axis *a, double v);            /* to linear space (log10 on log) */
void dlbp_axis_ticks(cairo_t *cr, dlb_figure *f, axis *a, double length, int horizontal);
int dlbp_nice_ticks(double lo, double hi, int target, double *out, int cap);
void dlbp_format_tick(double v, double step, const char *style, char *buf, size_t size);

/* text.c: a little markup, "^{...}" superscript and "_{...}" subscript. */
void dlbp_text_font(cairo_t *cr, double size, int bold);
void dlbp_text_setup(cairo_t *cr);
int dlbp_text_valid_utf8(const char *s);
void dlbp_text_copy(char *dst, size_t size, const char *src);
void dlbp_text_extent(cairo_t *cr, const char *s, double size, int bold, double *w, double *h);
/* Draw s with its anchor (ax, ay in 0..1 of its box) at (x, y), rotated by `angle`
** (radians, counter-clockwise). Returns the axis-aligned box in *out if not NULL. */
void dlbp_text_draw(cairo_t *cr, const char *s, double size, int bold, double x, double y,
               double ax, double ay, double angle, rect *out);
rect dlbp_text_box(cairo_t *cr, const char *s, double size, int bold, double x, double y,
              double ax, double ay, int rotated);
/* src fitted into maxw points: the size shrunk down to min_size, then the text cut with an
** ellipsis; the result into dst, its size into *out_size. */
void dlbp_text_fit(cairo_t *cr, const char *src, double size, double min_size, int bold,
              double maxw, char *dst, size_t dsize, double *out_size);

/* The layout's spacing in points (layout.c, layout_check.c, render.c): tick length, the gap
** around texts and legends, a colour bar's width and its gap to the axes. */
enum { TICK = 3, PAD = 3, CBAR_W = 8, CBAR_GAP = 6 };

/* layout.c */
int dlbp_layout_run(dlb_figure *f, cairo_t *cr);
double dlbp_label_h(cairo_t *cr, dlb_figure *f);        /* an axis label line's height */
/* The widest and tallest tick label of an axis. */
void dlbp_tick_sizes(cairo_t *cr, dlb_figure *f, const axis *a, double *mw, double *mh);
/* layout_check.c: the text boxes of the layout (f->boxes), then the checks of the finished
** layout (overlapping pairs, legends over data, unlabelled colour bars, points outside). */
void dlbp_layout_boxes(cairo_t *cr, dlb_figure *f);
void dlbp_layout_check(dlb_figure *f);
double dlbp_panel_px(const panel *p, double x);          /* data x -> points */
double dlbp_panel_py(const panel *p, double y);
void dlbp_layout_add_box(dlb_figure *f, rect r, int panel, const char *what);
int dlbp_cbar_series_of(const dlb_figure *f, int p);
void dlbp_cmap_norm(series *s, double *vmin, double *vmax, double *center);
int dlbp_cmap_check(const series *s);
double dlbp_cmap_t(double v, double vmin, double vmax, double center);

/* render.c */
void dlbp_render_figure(dlb_figure *f, cairo_t *cr);

/* Extents in data units: what automatic limits must show (sticky edges get no padding). */
typedef struct { double lo[2], hi[2]; int sticky_lo[2], sticky_hi[2]; int any[2]; } extent;
void dlbp_extent_add(extent *e, int ax, double v, const axis *a);

/* Drawing order of a kind inside its panel: areas under everything, then lines and marks
** (both clipped to the axes), then text annotations over the axes' edges. */
enum { LAYER_AREA, LAYER_MARK, LAYER_TEXT };

/* A series kind's behaviour, one table per kind (in the manner of SQLite's
** sqlite3_io_methods): its names, and what commit, the layout, the layout check and the
** renderer ask of it. The tables live with their kinds — series_xy.c (line, scatter,
** band), series_ref.c (hline, vline, diag, text, span), series_cat.c (bar, heatmap, box),
** series_roof.c (roofline) — and dlbp_methods(kind) finds them (series.c). A NULL method
** does nothing: no checks, no extent, no legend entry, no boxes, nothing drawn. */
typedef struct series_methods {
  const char *name;               /* "line", ... (dlb_series_options(kind, -1)) */
  const char *names[4];           /* valid data arrays, string lists, string and number options */
  const char *unranged;           /* number options exempt from the shared ranges, or NULL */
  int layer;                      /* LAYER_*: when render.c draws it */
  int colorbar;                   /* the "colorbar" option's default (1: a heat map's bar) */
  const char *cvalues;            /* the data array its colour map shows ("z", "c"), or NULL */
  int fills_axes;                 /* covers its whole axes: its legend goes above them */
  /* commit: kind-specific checks; *skipped counts the non-finite values left out of the
  ** *total points (values, cells: `items`) the kind draws one by one, or stays 0 with
  ** *total for a kind drawn without them (text, span, a roofline's roofs). A series whose
  ** every one is skipped is refused by dlb_series_commit (the one rule: docs/plot.md) */
  int (*validate)(series *s, size_t *skipped, size_t *total);
  const char *items;              /* what *total counts: "points", "values", "cells" */
  /* commit and layout: what this kind cannot show on a log axis axn (0 x, 1 y) beyond the
  ** data arrays series.c checks */
  int (*logcheck)(const series *s, int axn);
  /* commit: default category labels (series id of f) */
  int (*defaults)(dlb_figure *f, int id);
  /* commit: 1 when the series takes the next colour of its panel's palette */
  int (*palette)(series *s);
  /* layout: the categories the series puts on axis axn, or NULL (borrowed) */
  slist *(*cats)(series *s, int axn);
  /* layout: grow e by what the series must show */
  void (*extent)(const dlb_figure *f, series *s, extent *e);
  /* layout and render: legend entries into out[cap] (cap > 0); returns how many */
  int (*legend)(dlb_figure *f, series *s, legend_entry *out, int cap);
  /* layout check: the series' text boxes (dlbp_layout_add_box) */
  void (*boxes)(cairo_t *cr, dlb_figure *f, series *s);
  /* legend placement and the layout check: mark what the series draws */
  void (*occupy)(const dlb_figure *f, series *s, occgrid *g);
  /* layout check: finite points outside the panel's limits (not drawn) */
  size_t (*outside)(const dlb_figure *f, series *s);
  /* render: draw the series (the caller saves and restores cr around it) */
  void (*draw)(dlb_figure *f, cairo_t *cr, series *s);
} series_methods;

/* The table of a kind, or NULL for an unknown kind (series.c). */
const series_methods *dlbp_methods(int kind);
extern const series_methods dlbp_line_methods, dlbp_scatter_methods, dlbp_band_methods;
extern const series_methods dlbp_hline_methods, dlbp_vline_methods, dlbp_diag_methods,
                            dlbp_text_methods, dlbp_span_methods;
extern const series_methods dlbp_bar_methods, dlbp_heatmap_methods, dlbp_box_methods;
extern const series_methods dlbp_roofline_methods;

/* series.c: helpers of the kinds' checks. */
const char *dlbp_inlist(const char *list, const char *name);  /* name's copy in list, or NULL */
int dlbp_series_need(series *s, const char *name, darray **out); /* present and not empty */
int dlbp_series_samelen(series *s, const darray *a, const char *bname);
size_t dlbp_nonfinite(const darray *d);

/* series_xy.c: helpers the kinds share. */
void dlbp_series_colour(const series *s, double rgb[3]);
void dlbp_set_dash(cairo_t *cr, const char *style, double lw);
void dlbp_draw_marker(cairo_t *cr, const char *shape, double x, double y, double size);
/* The marker names, space-separated: what `marker=` and a roofline point's marker accept. */
extern const char dlbp_markers[];
/* 1 for the open (stroked, not filled) markers: cross and plus. */
int dlbp_marker_open(const char *shape);
/* Can (x, y) be drawn on the panel's axes (finite, positive on a log axis)? */
int dlbp_drawable(const panel *p, double x, double y);
/* The one legend entry of a labelled series (label, id, colour; kind left 0), 0 without
** a label. */
int dlbp_legend_label(const dlb_figure *f, series *s, legend_entry *out);
/* Finite points (x[i], y[i]) outside the panel's limits. */
size_t dlbp_points_outside(const dlb_figure *f, const series *s, const darray *x, const darray *y);

/* series_cat.c */
int dlbp_box_stats(const double *v, size_t n, const double pct[4], int tukey, double out[5]);
void dlbp_box_median_rgb(const double rgb[3], double out[3]);

/* layout.c: a legend's column width and row height (columns when it sits above the axes) */
void dlbp_legend_grid(cairo_t *cr, const dlb_figure *f, const legend_entry *e, int n, double *colw,
                 double *rowh);

#endif
