/*
** series_xy.c — series in data coordinates: line, scatter and band, each kind's methods
** together (checks, extent, legend, what it covers, drawing) and its method table; the
** helpers every kind uses: the series colour, dashes, markers, extents.
** Reference lines and annotations are series_ref.c; bars, heat maps and boxes
** series_cat.c; the roofline series_roof.c.
*/
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* Colour of a series: its "color" option, else its place in the palette. */
void dlbp_series_colour(const series *s, double rgb[3]) {
  const char *c = dlbp_series_str(s, "color", NULL);
  if (!c || !dlbp_colour_parse(c, rgb)) dlb_palette(s->colour_index, rgb);
}

/* Line dashes by name: solid dashed dotted dashdot. */
void dlbp_set_dash(cairo_t *cr, const char *style, double lw) {
  double d[4];
  if (strcmp(style, "dashed") == 0) { d[0] = 4 * lw + 1; d[1] = 2 * lw + 1;
                                      cairo_set_dash(cr, d, 2, 0); }
  else if (strcmp(style, "dotted") == 0) { d[0] = 0.01; d[1] = 2 * lw + 0.8;
                                           cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
                                           cairo_set_dash(cr, d, 2, 0); }
  else if (strcmp(style, "dashdot") == 0) { d[0] = 4 * lw + 1; d[1] = 1.5 * lw + 1;
                                            d[2] = lw; d[3] = 1.5 * lw + 1;
                                            cairo_set_dash(cr, d, 4, 0); }
  else cairo_set_dash(cr, NULL, 0, 0);
}

const char dlbp_markers[] = "none circle square triangle diamond cross plus star";

/* Add a marker's path (circle square triangle diamond cross plus star) of diameter size. */
void dlbp_draw_marker(cairo_t *cr, const char *shape, double x, double y, double size) {
  double r = size / 2;
  cairo_new_sub_path(cr);
  if (strcmp(shape, "square") == 0) cairo_rectangle(cr, x - r * 0.9, y - r * 0.9, 1.8 * r,
                                                     1.8 * r);
  else if (strcmp(shape, "triangle") == 0) {
    cairo_move_to(cr, x, y - r * 1.1);
    cairo_line_to(cr, x + r, y + r * 0.75);
    cairo_line_to(cr, x - r, y + r * 0.75);
    cairo_close_path(cr);
  } else if (strcmp(shape, "diamond") == 0) {
    cairo_move_to(cr, x, y - r * 1.15); cairo_line_to(cr, x + r * 0.85, y);
    cairo_line_to(cr, x, y + r * 1.15); cairo_line_to(cr, x - r * 0.85, y);
    cairo_close_path(cr);
  } else if (strcmp(shape, "cross") == 0) {
    cairo_move_to(cr, x - r, y - r); cairo_line_to(cr, x + r, y + r);
    cairo_move_to(cr, x - r, y + r); cairo_line_to(cr, x + r, y - r);
  } else if (strcmp(shape, "plus") == 0) {
    cairo_move_to(cr, x - r, y); cairo_line_to(cr, x + r, y);
    cairo_move_to(cr, x, y - r); cairo_line_to(cr, x, y + r);
  } else if (strcmp(shape, "star") == 0) { /* five points, inner radius 0.45 of the outer */
    for (int k = 0; k < 10; k++) {
      double a = -M_PI / 2 + k * M_PI / 5, rr = (k % 2 ? 0.45 : 1.15) * r;
      if (k == 0) cairo_move_to(cr, x + rr * cos(a), y + rr * sin(a));
      else cairo_line_to(cr, x + rr * cos(a), y + rr * sin(a));
    }
    cairo_close_path(cr);
  } else {
    cairo_arc(cr, x, y, r, 0, 2 * M_PI);
  }
}

int dlbp_marker_open(const char *m) { return !strcmp(m, "cross") || !strcmp(m, "plus"); }

static const char *const cycle_markers[] = {"circle", "square", "triangle", "diamond"};

/* Grow an extent by v on axis ax; values a log axis cannot show are left out. */
void dlbp_extent_add(extent *e, int ax, double v, const axis *a) {
  if (!isfinite(v) || fabs(v) > 1e200 || (a->scale == DLB_SCALE_LOG && v <= 0)) return;
  if (v < e->lo[ax]) e->lo[ax] = v;
  if (v > e->hi[ax]) e->hi[ax] = v;
  e->any[ax] = 1;
}

/* Can (x, y) be drawn on these axes? */
static int finite2(const axis *ax, const axis *ay, double x, double y) {
  return isfinite(x) && isfinite(y) && !(ax->scale == DLB_SCALE_LOG && x <= 0) &&
         !(ay->scale == DLB_SCALE_LOG && y <= 0);
}

/* Can (x, y) be drawn on a panel's axes? */
int dlbp_drawable(const panel *p, double x, double y) {
  return finite2(&p->ax[0], &p->ax[1], x, y);
}

/* Finite points of a series outside its panel's limits: not drawn, so counted in a warning
** (automatic limits include every point; user limits may not). */
size_t dlbp_points_outside(const dlb_figure *f, const series *s, const darray *x, const darray *y) {
  const panel *p = &f->panels[s->panel];
  if (!x || !y) return 0;
  const axis *ax = &p->ax[0], *ay = &p->ax[1];
  double tx = 1e-9 * (ax->hi - ax->lo), ty = 1e-9 * (ay->hi - ay->lo);
  size_t c = 0;
  for (size_t i = 0; i < x->n && i < y->n; i++) {
    double u = x->v[i], v = y->v[i];
    if (!isfinite(u) || !isfinite(v)) continue;
    c += u < ax->lo - tx || u > ax->hi + tx || v < ay->lo - ty || v > ay->hi + ty;
  }
  return c;
}

/* The legend entry of a labelled series: label, series id and colour (the caller sets the
** swatch); 0 when the series has no label. */
int dlbp_legend_label(const dlb_figure *f, series *s, legend_entry *out) {
  const char *label = dlbp_series_str(s, "label", "");
  if (!label[0]) return 0;
  memset(out, 0, sizeof *out);
  dlbp_text_copy(out->label, sizeof out->label, label);
  out->sid = (int)(s - f->series);
  dlbp_series_colour(s, out->rgb);
  return 1;
}

/* ---- line and scatter: points x, y ---- */

/* Checks of a line or scatter: x and y of one length (and c, s, group with them), group
** numbers within the groups, not every point skipped, a colour bar only with values. */
static int xy_validate(series *s, size_t *skipped, size_t *total) {
  darray *x = NULL, *y = NULL, *d = NULL;
  int st;
  slist *l;
  if ((st = dlbp_series_need(s, "x", &x)) || (st = dlbp_series_need(s, "y", &y))) return st;
  if (x->n != y->n)
    return dlb_fail(DLB_EINVAL, "%s: x has %zu values but y has %zu", dlbp_kind_name(s->kind),
                    x->n, y->n);
  if ((st = dlbp_series_samelen(s, x, "c")) || (st = dlbp_series_samelen(s, x, "s")) ||
      (st = dlbp_series_samelen(s, x, "group")))
    return st;
  for (size_t i = 0; i < x->n; i++) {
    darray *c = dlbp_series_data(s, "c");
    *skipped += !isfinite(x->v[i]) || !isfinite(y->v[i]) || (c && !isfinite(c->v[i]));
  }
  if ((d = dlbp_series_data(s, "group"))) {
    l = dlbp_series_strs(s, "groups");
    double ng = l ? (double)l->n : 1e6;
    for (size_t i = 0; i < d->n; i++)
      if (isfinite(d->v[i]) && (d->v[i] < 1 || d->v[i] > ng || d->v[i] != floor(d->v[i])))
        return dlb_fail(DLB_EINVAL, "scatter: group[%zu] = %g is not a group number 1..%.0f",
                        i + 1, d->v[i], ng);
  }
  *total = x->n;
  /* (a line has no "colorbar" option: the default 0 holds) */
  if (dlbp_series_num(s, "colorbar", 0) != 0 && !dlbp_series_data(s, "c"))
    return dlb_fail(DLB_EINVAL, "scatter: a colorbar needs values c= to colour by");
  return DLB_OK;
}

/* The drawable points of a line or scatter. */
static void xy_extent(const dlb_figure *f, series *s, extent *e) {
  const panel *p = &f->panels[s->panel];
  const axis *ax = &p->ax[0], *ay = &p->ax[1];
  darray *x = dlbp_series_data(s, "x"), *y = dlbp_series_data(s, "y");
  for (size_t i = 0; i < x->n; i++)
    if (finite2(ax, ay, x->v[i], y->v[i])) {
      dlbp_extent_add(e, 0, x->v[i], ax);
      dlbp_extent_add(e, 1, y->v[i], ay);
    }
}

/* Mark a line or scatter as drawn: markers as squares (or single cells); a line as
** draw_line draws it, thinned per column (M4): the points of one grid column mark the
** column from their lowest to their highest, consecutive points in different columns are
** joined by a segment. line: the series draws a line; r: its marker radius (0 none). */
static void xy_occupy(const dlb_figure *f, series *s, occgrid *gr, int line, double r,
                      const darray *sz) {
  const panel *p = &f->panels[s->panel];
  darray *x = dlbp_series_data(s, "x"), *y = dlbp_series_data(s, "y");
  const occupancy *o = gr->o;
  double px0 = NAN, py0 = NAN, lo = 0, hi = 0;
  long col = LONG_MIN;
  for (size_t i = 0; i <= x->n; i++) {
    int ok = i < x->n && dlbp_drawable(p, x->v[i], y->v[i]);
    double px = ok ? dlbp_panel_px(p, x->v[i]) : 0, py = ok ? dlbp_panel_py(p, y->v[i]) : 0;
    long c = ok ? (long)floor((px - o->x0) / o->cell) : LONG_MIN;
    if (line && col != LONG_MIN && c != col) { /* flush the column */
      dlbp_occ_rect(gr, (rect){o->x0 + col * o->cell + o->cell / 2, lo, 0, hi - lo}, 1);
      col = LONG_MIN;
    }
    if (!ok) { px0 = NAN; continue; }
    if (line) {
      if (col == LONG_MIN) {
        if (!isnan(px0)) dlbp_occ_seg(gr, px0, py0, px, py, 1);
        col = c; lo = hi = py;
      }
      if (py < lo) lo = py;
      if (py > hi) hi = py;
    }
    if (r > 0 || !line) {
      double rr = sz && isfinite(sz->v[i]) && sz->v[i] > 0 ? fmin(sz->v[i], 200) / 2 : r;
      if (rr < 1) rr = 1;
      if (rr <= gr->o->cell / 2) dlbp_occ_point(gr, px, py, 1);
      else dlbp_occ_rect(gr, (rect){px - rr, py - rr, 2 * rr, 2 * rr}, 1);
    }
    px0 = px; py0 = py;
  }
}

/* A line covers its segments (unless style = "none") and its markers. */
static void line_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  const char *m = dlbp_series_str(s, "marker", "none");
  xy_occupy(f, s, gr, strcmp(dlbp_series_str(s, "style", "solid"), "none") != 0,
            strcmp(m, "none") ? dlbp_series_num(s, "size", 4) / 2 : 0, NULL);
}

/* A scatter covers its markers (each its own size s when given). */
static void scatter_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  const char *m = dlbp_series_str(s, "marker", "circle");
  xy_occupy(f, s, gr, 0, strcmp(m, "none") ? dlbp_series_num(s, "size", 4) / 2 : 0,
            dlbp_series_data(s, "s"));
}

/* A line's legend entry: its stroke (or its marker alone with style = "none"). */
static int line_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  (void)cap;
  if (!dlbp_legend_label(f, s, out)) return 0;
  out->kind = strcmp(dlbp_series_str(s, "style", "solid"), "none") ? LEG_LINE : LEG_MARKER;
  snprintf(out->marker, sizeof out->marker, "%s", dlbp_series_str(s, "marker", "none"));
  snprintf(out->style, sizeof out->style, "%s", dlbp_series_str(s, "style", "solid"));
  return 1;
}

/* A scatter's legend: one entry per group (palette colour, the group's shape), else its
** label with its marker. */
static int scatter_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  slist *groups = dlbp_series_strs(s, "groups");
  if (groups) {
    int n = 0;
    for (size_t i = 0; i < groups->n && n < cap; i++, n++) {
      memset(&out[n], 0, sizeof out[n]);
      dlbp_text_copy(out[n].label, sizeof out[n].label, groups->s[i]);
      out[n].kind = LEG_MARKER;
      out[n].sid = -1;
      dlb_palette((int)i, out[n].rgb);
      snprintf(out[n].marker, sizeof out[n].marker, "%s",
               dlbp_series_str(s, "marker", cycle_markers[i % 4]));
    }
    return n;
  }
  if (!dlbp_legend_label(f, s, out)) return 0;
  out->kind = LEG_MARKER;
  snprintf(out->marker, sizeof out->marker, "%s", dlbp_series_str(s, "marker", "circle"));
  return 1;
}

/* A line or band takes the next palette colour. */
static int takes_palette(series *s) { (void)s; return 1; }

/* A scatter takes one unless it is coloured by value or by group. */
static int scatter_palette(series *s) {
  return !dlbp_series_data(s, "c") && !dlbp_series_data(s, "group");
}

/* Scatter points outside user-set limits. */
static size_t scatter_outside(const dlb_figure *f, series *s) {
  return dlbp_points_outside(f, s, dlbp_series_data(s, "x"), dlbp_series_data(s, "y"));
}

/* Marker colours of a scatter: by value through its map, by group, or the series colour. */
static void point_colour(series *s, size_t i, double vmin, double vmax, double center,
                         double rgb[3]) {
  darray *c = dlbp_series_data(s, "c"), *g = dlbp_series_data(s, "group");
  if (c) dlbp_cmap_rgb(dlbp_cmap_from_name(dlbp_series_str(s, "cmap", "viridis")),
                  dlbp_cmap_t(dlbp_cmap_value(s, c->v[i]), vmin, vmax, center), rgb);
  else if (g && isfinite(g->v[i])) dlb_palette((int)g->v[i] - 1, rgb);
  else dlbp_series_colour(s, rgb);
}

/* A line, broken at points it cannot draw, then its markers. */
static void draw_line(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  darray *x = dlbp_series_data(s, "x"), *y = dlbp_series_data(s, "y");
  double rgb[3], lw = dlbp_series_num(s, "width", 1.2);
  dlbp_series_colour(s, rgb);
  const char *style = dlbp_series_str(s, "style", "solid");
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width(cr, lw);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  if (strcmp(style, "none") != 0) {
    dlbp_set_dash(cr, style, lw);
    /* Long lines are thinned per quarter-point column to their first, lowest, highest and
    ** last points (the M4 reduction: the drawing does not change, the stroker's work
    ** does — 10^5 zig-zag points otherwise take seconds to rasterize). */
    int pen = 0, thin = x->n > 4 * (size_t)(p->box.w * 4) && strcmp(style, "solid") == 0;
    long col = LONG_MIN;
    double first[2] = {0, 0}, lo[2] = {0, 0}, hi[2] = {0, 0}, last[2] = {0, 0};
    size_t ilo = 0, ihi = 0;
    for (size_t i = 0; i <= x->n; i++) {
      int ok = i < x->n && finite2(&p->ax[0], &p->ax[1], x->v[i], y->v[i]);
      double px = ok ? dlbp_panel_px(p, x->v[i]) : 0, py = ok ? dlbp_panel_py(p, y->v[i]) : 0;
      long c = ok ? (long)floor(px * 4) : LONG_MIN;
      if (thin && col != LONG_MIN && (!ok || c != col)) { /* flush the column, in order */
        cairo_line_to(cr, first[0], first[1]);
        if (ilo < ihi) { cairo_line_to(cr, lo[0], lo[1]); cairo_line_to(cr, hi[0], hi[1]); }
        else { cairo_line_to(cr, hi[0], hi[1]); cairo_line_to(cr, lo[0], lo[1]); }
        cairo_line_to(cr, last[0], last[1]);
        col = LONG_MIN;
      }
      if (!ok) { pen = 0; if (i < x->n) cairo_new_sub_path(cr); continue; }
      if (!thin) {
        if (pen) cairo_line_to(cr, px, py); else cairo_move_to(cr, px, py);
        pen = 1;
        continue;
      }
      if (!pen) { cairo_move_to(cr, px, py); pen = 1; }
      if (col == LONG_MIN) {
        col = c;
        first[0] = lo[0] = hi[0] = px; first[1] = lo[1] = hi[1] = py;
        ilo = ihi = i;
      }
      if (py > lo[1]) { lo[0] = px; lo[1] = py; ilo = i; } /* page y grows downwards */
      if (py < hi[1]) { hi[0] = px; hi[1] = py; ihi = i; }
      last[0] = px; last[1] = py;
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
  }
  const char *m = dlbp_series_str(s, "marker", "none");
  if (strcmp(m, "none") == 0) return;
  double size = dlbp_series_num(s, "size", 4);
  int g = dlbp_stamp_begin(cr, m, size); /* the marker once, stamped at every point */
  for (size_t i = 0; i < x->n; i++)
    if (finite2(&p->ax[0], &p->ax[1], x->v[i], y->v[i])) {
      if (g >= 0) dlbp_stamp_at(cr, g, dlbp_panel_px(p, x->v[i]), dlbp_panel_py(p, y->v[i]));
      else dlbp_draw_marker(cr, m, dlbp_panel_px(p, x->v[i]), dlbp_panel_py(p, y->v[i]), size);
    }
  if (g < 0) { if (dlbp_marker_open(m)) cairo_stroke(cr); else cairo_fill(cr); }
}

/* Markers coloured by value, group or series; shapes by group. */
static void draw_scatter(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  darray *x = dlbp_series_data(s, "x"), *y = dlbp_series_data(s, "y"), *sz = dlbp_series_data(s, "s");
  darray *g = dlbp_series_data(s, "group");
  double vmin, vmax, center, size = dlbp_series_num(s, "size", 4), alpha = dlbp_series_num(s, "alpha", 0.85);
  dlbp_cmap_norm(s, &vmin, &vmax, &center);
  const char *m = dlbp_series_str(s, "marker", "circle");
  cairo_set_line_width(cr, 0.8);
  darray *c = dlbp_series_data(s, "c");
  /* one size and shape for every point: stamp the marker (stamp.c) */
  int glyph = !sz && !(g && !dlbp_series_str(s, "marker", NULL)) ? dlbp_stamp_begin(cr, m, size) : -1;
  for (size_t i = 0; i < x->n; i++) {
    if (!finite2(&p->ax[0], &p->ax[1], x->v[i], y->v[i]) || (c && !isfinite(c->v[i]))) continue;
    double rgb[3], d = sz && isfinite(sz->v[i]) && sz->v[i] > 0 ? fmin(sz->v[i], 200) : size;
    point_colour(s, i, vmin, vmax, center, rgb);
    const char *mk = m;
    if (g && isfinite(g->v[i]) && !dlbp_series_str(s, "marker", NULL))
      mk = cycle_markers[((int)g->v[i] - 1) % 4]; /* shapes tell groups apart in grey too */
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], alpha);
    if (glyph >= 0) { dlbp_stamp_at(cr, glyph, dlbp_panel_px(p, x->v[i]), dlbp_panel_py(p, y->v[i])); continue; }
    dlbp_draw_marker(cr, mk, dlbp_panel_px(p, x->v[i]), dlbp_panel_py(p, y->v[i]), d);
    if (dlbp_marker_open(mk)) cairo_stroke(cr); else cairo_fill(cr);
  }
}

/* A filled band between lo and hi, one polygon per drawable run. */
static void draw_band(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  darray *x = dlbp_series_data(s, "x"), *lo = dlbp_series_data(s, "lo"), *hi = dlbp_series_data(s, "hi");
  double rgb[3];
  dlbp_series_colour(s, rgb);
  cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], dlbp_series_num(s, "alpha", 0.25));
  size_t i = 0;
  while (i < x->n) { /* one polygon per run of drawable points */
    while (i < x->n && !(finite2(&p->ax[0], &p->ax[1], x->v[i], lo->v[i]) &&
                         finite2(&p->ax[0], &p->ax[1], x->v[i], hi->v[i]))) i++;
    size_t j = i;
    while (j < x->n && finite2(&p->ax[0], &p->ax[1], x->v[j], lo->v[j]) &&
           finite2(&p->ax[0], &p->ax[1], x->v[j], hi->v[j])) j++;
    if (j > i + 1) {
      cairo_new_sub_path(cr);
      for (size_t k = i; k < j; k++) cairo_line_to(cr, dlbp_panel_px(p, x->v[k]), dlbp_panel_py(p, lo->v[k]));
      for (size_t k = j; k-- > i;) cairo_line_to(cr, dlbp_panel_px(p, x->v[k]), dlbp_panel_py(p, hi->v[k]));
      cairo_close_path(cr);
      cairo_fill(cr);
    }
    i = j;
  }
}

/* ---- band: x, lo, hi ---- */

/* Checks of a band: x, lo and hi of one length, lo <= hi. */
static int band_validate(series *s, size_t *skipped, size_t *total) {
  darray *x = NULL, *y = NULL, *d = NULL;
  int st;
  if ((st = dlbp_series_need(s, "x", &x)) || (st = dlbp_series_need(s, "lo", &y)) ||
      (st = dlbp_series_need(s, "hi", &d)))
    return st;
  if (x->n != y->n || x->n != d->n)
    return dlb_fail(DLB_EINVAL, "band: x, lo and hi have %zu, %zu and %zu values", x->n,
                    y->n, d->n);
  for (size_t i = 0; i < x->n; i++)
    *skipped += !isfinite(x->v[i]) || !isfinite(y->v[i]) || !isfinite(d->v[i]);
  /* lo above hi is an error (it drew a band as if swapped): review 12. NaN compares false. */
  const char *label = dlbp_series_str(s, "label", NULL);
  for (size_t i = 0; i < x->n; i++)
    if (y->v[i] > d->v[i])
      return dlb_fail(DLB_EINVAL, "band%s%s%s: lo[%zu] = %g is above hi[%zu] = %g",
                      label ? " '" : "", label ? label : "", label ? "'" : "", i + 1, y->v[i],
                      i + 1, d->v[i]);
  *total = x->n;
  return DLB_OK;
}

/* A band's x and both edges where lo and hi are finite. */
static void band_extent(const dlb_figure *f, series *s, extent *e) {
  const panel *p = &f->panels[s->panel];
  const axis *ax = &p->ax[0], *ay = &p->ax[1];
  darray *x = dlbp_series_data(s, "x");
  darray *lo = dlbp_series_data(s, "lo"), *hi = dlbp_series_data(s, "hi");
  for (size_t i = 0; i < x->n; i++) {
    if (!isfinite(lo->v[i]) || !isfinite(hi->v[i])) continue;
    dlbp_extent_add(e, 0, x->v[i], ax);
    dlbp_extent_add(e, 1, lo->v[i], ay);
    dlbp_extent_add(e, 1, hi->v[i], ay);
  }
}

/* A band covers its quads, translucent. */
static void band_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  const panel *p = &f->panels[s->panel];
  darray *x = dlbp_series_data(s, "x");
  darray *lo = dlbp_series_data(s, "lo"), *hi = dlbp_series_data(s, "hi");
  for (size_t i = 0; i + 1 < x->n; i++) {
    if (!dlbp_drawable(p, x->v[i], lo->v[i]) || !dlbp_drawable(p, x->v[i + 1], hi->v[i + 1]))
      continue;
    double x0 = dlbp_panel_px(p, x->v[i]), x1 = dlbp_panel_px(p, x->v[i + 1]);
    double y0 = dlbp_panel_py(p, hi->v[i]), y1 = dlbp_panel_py(p, lo->v[i]);
    dlbp_occ_rect(gr, (rect){fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0)},
                  OCC_TRANSLUCENT);
  }
}

/* The legend entry of a band (and a span, series_ref.c): a translucent patch. */
static int band_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  (void)cap;
  if (!dlbp_legend_label(f, s, out)) return 0;
  out->kind = LEG_BAND;
  return 1;
}

const series_methods dlbp_line_methods = {
  .name = "line", .names = {"x y", "", "label color style marker", "width size"},
  .layer = LAYER_MARK,
  .validate = xy_validate, .items = "points", .palette = takes_palette, .extent = xy_extent,
  .legend = line_legend, .occupy = line_occupy, .draw = draw_line,
};

const series_methods dlbp_scatter_methods = {
  .name = "scatter",
  .names = {"x y c s group", "groups", "label color marker cmap colorbar_label norm",
            "size vmin vmax center alpha colorbar share_colors"},
  .layer = LAYER_MARK, .cvalues = "c",
  .validate = xy_validate, .items = "points", .palette = scatter_palette, .extent = xy_extent,
  .legend = scatter_legend, .occupy = scatter_occupy, .outside = scatter_outside,
  .draw = draw_scatter,
};

const series_methods dlbp_band_methods = {
  .name = "band", .names = {"x lo hi", "", "label color", "alpha"},
  .layer = LAYER_AREA,
  .validate = band_validate, .items = "points", .palette = takes_palette, .extent = band_extent,
  .legend = band_legend, .occupy = band_occupy, .draw = draw_band,
};
