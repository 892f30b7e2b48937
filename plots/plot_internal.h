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
int dlbp_panel_has_kind(const dlb_figure *f, int pi, int kind);

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
double dlbp_cmap_t(double v, double vmin, double vmax, double center);

/* render.c */
void dlbp_render_figure(dlb_figure *f, cairo_t *cr);

/* series_xy.c, series_cat.c, series_roof.c: extents in data units and drawing. */
typedef struct { double lo[2], hi[2]; int sticky_lo[2], sticky_hi[2]; int any[2]; } extent;
void dlbp_series_extent(const dlb_figure *f, series *s, extent *e);
void dlbp_series_draw(dlb_figure *f, cairo_t *cr, series *s);
/* Points (in figure points) a series occupies, for the legend's "best" place. */
int dlbp_series_covers(const dlb_figure *f, series *s, rect r);
int dlbp_series_legend(dlb_figure *f, series *s, legend_entry *out, int cap);
int dlbp_cover_seg(rect r, double x0, double y0, double x1, double y1);
int dlbp_cover_rect(rect r, rect o);
void dlbp_draw_marker(cairo_t *cr, const char *shape, double x, double y, double size);
/* The marker names, space-separated (series_xy.c): what `marker=` and a roofline point's
** marker accept. */
extern const char dlbp_markers[];
/* 1 for the open (stroked, not filled) markers: cross and plus. */
int dlbp_marker_open(const char *shape);
void dlbp_set_dash(cairo_t *cr, const char *style, double lw);
void dlbp_series_colour(const series *s, double rgb[3]);
void dlbp_extent_add(extent *e, int ax, double v, const axis *a);

void dlbp_roof_extent(const dlb_figure *f, series *s, extent *e);
void dlbp_roof_draw(dlb_figure *f, cairo_t *cr, series *s);
int dlbp_roof_covers(const dlb_figure *f, series *s, rect r);
/* The same for the ceilings alone (not the points). */
int dlbp_roof_covers_lines(const dlb_figure *f, series *s, rect r);
int dlbp_roof_legend(series *s, legend_entry *out, int cap);
/* Box of point i's label (figure points), 0 when it has none; left of the point when it
** would leave the axes on the right. */
int dlbp_roof_label_box(const dlb_figure *f, cairo_t *cr, series *s, size_t i, rect *r, int *left);
/* Finite points of a series outside its panel's limits (not drawn). */
size_t dlbp_series_outside(const dlb_figure *f, series *s);
void dlbp_cat_extent(const dlb_figure *f, series *s, extent *e);
void dlbp_cat_draw(dlb_figure *f, cairo_t *cr, series *s);
int dlbp_cat_covers(const dlb_figure *f, series *s, rect r);
int dlbp_cat_rects(const dlb_figure *f, series *s, rect *out, int cap);
void dlbp_box_median_rgb(const double rgb[3], double out[3]);
/* layout.c: a legend's column width and row height (columns when it sits above the axes) */
void dlbp_legend_grid(cairo_t *cr, const dlb_figure *f, const legend_entry *e, int n, double *colw,
                 double *rowh);
int dlbp_cat_legend(series *s, legend_entry *out, int cap);
int dlbp_box_stats(const double *v, size_t n, const double pct[4], int tukey, double out[5]);

#endif
