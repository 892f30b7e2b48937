/*
** series_xy.c — series in data coordinates: line, scatter, band, reference lines (hline,
** vline, y = x) and text annotations; the dispatch of extent/draw/legend/cover to the
** categorical (series_cat.c) and roofline (series_roof.c) kinds; markers and dashes.
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

/* How many 3 pt samples along a segment (points) fall inside r. */
int dlbp_cover_seg(rect r, double x0, double y0, double x1, double y1) {
  double len = hypot(x1 - x0, y1 - y0);
  int n = (int)(len / 3) + 1, c = 0;
  if (n > 2000) n = 2000;
  for (int i = 0; i <= n; i++) {
    double t = (double)i / n, x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
    c += x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h;
  }
  return c;
}

/* The overlap of two rectangles in 3 x 3 pt samples. */
int dlbp_cover_rect(rect r, rect o) {
  double ix = fmin(r.x + r.w, o.x + o.w) - fmax(r.x, o.x);
  double iy = fmin(r.y + r.h, o.y + o.h) - fmax(r.y, o.y);
  return ix > 0 && iy > 0 ? (int)(ix * iy / 9) + 1 : 0;
}

/* Can (x, y) be drawn on these axes? */
static int finite2(const axis *ax, const axis *ay, double x, double y) {
  return isfinite(x) && isfinite(y) && !(ax->scale == DLB_SCALE_LOG && x <= 0) &&
         !(ay->scale == DLB_SCALE_LOG && y <= 0);
}

/* Data extent of a series (what automatic limits must show). */
void dlbp_series_extent(const dlb_figure *f, series *s, extent *e) {
  const panel *p = &f->panels[s->panel];
  const axis *ax = &p->ax[0], *ay = &p->ax[1];
  darray *x = dlbp_series_data(s, "x"), *y = dlbp_series_data(s, "y");
  switch (s->kind) {
  case DLB_SERIES_LINE: case DLB_SERIES_SCATTER:
    for (size_t i = 0; i < x->n; i++)
      if (finite2(ax, ay, x->v[i], y->v[i])) {
        dlbp_extent_add(e, 0, x->v[i], ax);
        dlbp_extent_add(e, 1, y->v[i], ay);
      }
    break;
  case DLB_SERIES_BAND: {
    darray *lo = dlbp_series_data(s, "lo"), *hi = dlbp_series_data(s, "hi");
    for (size_t i = 0; i < x->n; i++) {
      if (!isfinite(lo->v[i]) || !isfinite(hi->v[i])) continue;
      dlbp_extent_add(e, 0, x->v[i], ax);
      dlbp_extent_add(e, 1, lo->v[i], ay);
      dlbp_extent_add(e, 1, hi->v[i], ay);
    }
    break;
  }
  case DLB_SERIES_HLINE: dlbp_extent_add(e, 1, dlbp_series_num(s, "value", 0), ay); break;
  case DLB_SERIES_VLINE: dlbp_extent_add(e, 0, dlbp_series_num(s, "value", 0), ax); break;
  case DLB_SERIES_SPAN:
    dlbp_extent_add(e, 0, dlbp_series_num(s, "lo", 0), ax);
    dlbp_extent_add(e, 0, dlbp_series_num(s, "hi", 0), ax);
    break;
  case DLB_SERIES_TEXT:
    dlbp_extent_add(e, 0, dlbp_series_num(s, "x", 0), ax);
    dlbp_extent_add(e, 1, dlbp_series_num(s, "y", 0), ay);
    break;
  case DLB_SERIES_ROOFLINE: dlbp_roof_extent(f, s, e); break;
  case DLB_SERIES_BAR: case DLB_SERIES_HEATMAP: case DLB_SERIES_BOX: dlbp_cat_extent(f, s, e); break;
  default: break;
  }
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

/* Reference lines across the axes: horizontal, vertical, or y = x. */
static void draw_ref(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  double rgb[3] = {0.3, 0.3, 0.3}, lw = dlbp_series_num(s, "width", 0.8);
  const char *c = dlbp_series_str(s, "color", NULL);
  if (c) dlbp_colour_parse(c, rgb);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width(cr, lw);
  dlbp_set_dash(cr, dlbp_series_str(s, "style", "dashed"), lw);
  const rect b = p->box;
  if (s->kind == DLB_SERIES_HLINE) {
    double y = dlbp_panel_py(p, dlbp_series_num(s, "value", 0));
    cairo_move_to(cr, b.x, y); cairo_line_to(cr, b.x + b.w, y);
  } else if (s->kind == DLB_SERIES_VLINE) {
    double x = dlbp_panel_px(p, dlbp_series_num(s, "value", 0));
    cairo_move_to(cr, x, b.y); cairo_line_to(cr, x, b.y + b.h);
  } else { /* y = x, sampled so mixed linear/log axes bend correctly */
    const axis *ax = &p->ax[0], *ay = &p->ax[1];
    double lo = fmax(ax->lo, ay->lo), hi = fmin(ax->hi, ay->hi);
    if (hi > lo) for (int i = 0; i <= 64; i++) {
      double v = ax->scale == DLB_SCALE_LOG && ay->scale == DLB_SCALE_LOG
                 ? lo * pow(hi / lo, i / 64.0) : lo + (hi - lo) * i / 64.0;
      if (!(v > 0) && (ax->scale == DLB_SCALE_LOG || ay->scale == DLB_SCALE_LOG)) continue;
      cairo_line_to(cr, dlbp_panel_px(p, v), dlbp_panel_py(p, v));
    }
  }
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
}

/* A shaded x range over the full height, with an optional caption at its top. */
static void draw_span(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  double rgb[3], x0 = dlbp_panel_px(p, dlbp_series_num(s, "lo", 0)), x1 = dlbp_panel_px(p, dlbp_series_num(s, "hi", 0));
  dlbp_series_colour(s, rgb);
  cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], dlbp_series_num(s, "alpha", 0.15));
  cairo_rectangle(cr, x0, p->box.y, x1 - x0, p->box.h);
  cairo_fill(cr);
  const char *t = dlbp_series_str(s, "text", "");
  if (t[0]) {
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    dlbp_text_draw(cr, t, f->font * 0.75, 0, (fmax(x0, p->box.x) + fmin(x1, p->box.x + p->box.w)) / 2,
              p->box.y + 2, 0.5, 0, 0, NULL);
  }
}

/* A text annotation in data coordinates. */
static void draw_text(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  double rgb[3] = {0, 0, 0};
  const char *c = dlbp_series_str(s, "color", NULL), *an = dlbp_series_str(s, "anchor", "left");
  if (c) dlbp_colour_parse(c, rgb);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  double ax = strcmp(an, "center") == 0 ? 0.5 : strcmp(an, "right") == 0 ? 1 : 0;
  dlbp_text_draw(cr, dlbp_series_str(s, "text", ""), dlbp_series_num(s, "size", f->font * 0.875), 0,
            dlbp_panel_px(p, dlbp_series_num(s, "x", 0)), dlbp_panel_py(p, dlbp_series_num(s, "y", 0)), ax, 0.5, 0,
            NULL);
}

/* Draw one series (state saved and restored around it). */
void dlbp_series_draw(dlb_figure *f, cairo_t *cr, series *s) {
  cairo_save(cr);
  cairo_new_path(cr); /* the path and current point are not part of save/restore */
  switch (s->kind) {
  case DLB_SERIES_LINE: draw_line(f, cr, s); break;
  case DLB_SERIES_SCATTER: draw_scatter(f, cr, s); break;
  case DLB_SERIES_BAND: draw_band(f, cr, s); break;
  case DLB_SERIES_HLINE: case DLB_SERIES_VLINE: case DLB_SERIES_DIAG: draw_ref(f, cr, s); break;
  case DLB_SERIES_TEXT: draw_text(f, cr, s); break;
  case DLB_SERIES_SPAN: draw_span(f, cr, s); break;
  case DLB_SERIES_ROOFLINE: dlbp_roof_draw(f, cr, s); break;
  default: dlbp_cat_draw(f, cr, s); break;
  }
  cairo_restore(cr);
}

/* How much of rectangle r (points) a series covers, for the legend's "best" place. */
int dlbp_series_covers(const dlb_figure *f, series *s, rect r) {
  const panel *p = &f->panels[s->panel];
  darray *x = dlbp_series_data(s, "x"), *y = dlbp_series_data(s, "y");
  int c = 0;
  switch (s->kind) {
  case DLB_SERIES_LINE: case DLB_SERIES_SCATTER: {
    int line = s->kind == DLB_SERIES_LINE && strcmp(dlbp_series_str(s, "style", "solid"), "none");
    double px0 = NAN, py0 = NAN;
    for (size_t i = 0; i < x->n; i++) {
      if (!finite2(&p->ax[0], &p->ax[1], x->v[i], y->v[i])) { px0 = NAN; continue; }
      double px = dlbp_panel_px(p, x->v[i]), py = dlbp_panel_py(p, y->v[i]);
      if (line && !isnan(px0)) c += dlbp_cover_seg(r, px0, py0, px, py);
      else c += 3 * (px >= r.x && px <= r.x + r.w && py >= r.y && py <= r.y + r.h);
      px0 = px; py0 = py;
    }
    return c;
  }
  case DLB_SERIES_BAND: {
    darray *lo = dlbp_series_data(s, "lo"), *hi = dlbp_series_data(s, "hi");
    for (size_t i = 0; i + 1 < x->n; i++) {
      if (!finite2(&p->ax[0], &p->ax[1], x->v[i], lo->v[i]) ||
          !finite2(&p->ax[0], &p->ax[1], x->v[i + 1], hi->v[i + 1])) continue;
      double x0 = dlbp_panel_px(p, x->v[i]), x1 = dlbp_panel_px(p, x->v[i + 1]);
      double y0 = dlbp_panel_py(p, hi->v[i]), y1 = dlbp_panel_py(p, lo->v[i]);
      c += dlbp_cover_rect(r, (rect){fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0)});
    }
    return c / 4; /* a translucent band may sit under a legend more easily than lines */
  }
  case DLB_SERIES_HLINE: {
    double py = dlbp_panel_py(p, dlbp_series_num(s, "value", 0));
    return dlbp_cover_seg(r, p->box.x, py, p->box.x + p->box.w, py);
  }
  case DLB_SERIES_VLINE: {
    double px = dlbp_panel_px(p, dlbp_series_num(s, "value", 0));
    return dlbp_cover_seg(r, px, p->box.y, px, p->box.y + p->box.h);
  }
  case DLB_SERIES_SPAN: {
    double x0 = dlbp_panel_px(p, dlbp_series_num(s, "lo", 0)), x1 = dlbp_panel_px(p, dlbp_series_num(s, "hi", 0));
    return dlbp_cover_rect(r, (rect){x0, p->box.y, x1 - x0, p->box.h}) / 4;
  }
  case DLB_SERIES_ROOFLINE: return dlbp_roof_covers(f, s, r);
  case DLB_SERIES_BAR: case DLB_SERIES_HEATMAP: case DLB_SERIES_BOX: return dlbp_cat_covers(f, s, r);
  default: return 0;
  }
}

/* The legend entries of a series (labelled ones only); returns how many. */
int dlbp_series_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  (void)f;
  if (cap <= 0) return 0;
  if (s->kind == DLB_SERIES_ROOFLINE) return dlbp_roof_legend(s, out, cap);
  if (s->kind == DLB_SERIES_BAR || s->kind == DLB_SERIES_HEATMAP || s->kind == DLB_SERIES_BOX)
    return dlbp_cat_legend(s, out, cap);
  slist *groups = dlbp_series_strs(s, "groups");
  if (s->kind == DLB_SERIES_SCATTER && groups) {
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
  const char *label = dlbp_series_str(s, "label", "");
  if (!label[0] || s->kind == DLB_SERIES_TEXT) return 0;
  memset(out, 0, sizeof *out);
  dlbp_text_copy(out->label, sizeof out->label, label);
  out->sid = (int)(s - f->series);
  dlbp_series_colour(s, out->rgb);
  switch (s->kind) {
  case DLB_SERIES_LINE:
    out->kind = strcmp(dlbp_series_str(s, "style", "solid"), "none") ? LEG_LINE : LEG_MARKER;
    snprintf(out->marker, sizeof out->marker, "%s", dlbp_series_str(s, "marker", "none"));
    snprintf(out->style, sizeof out->style, "%s", dlbp_series_str(s, "style", "solid"));
    break;
  case DLB_SERIES_SCATTER:
    out->kind = LEG_MARKER;
    snprintf(out->marker, sizeof out->marker, "%s", dlbp_series_str(s, "marker", "circle"));
    break;
  case DLB_SERIES_BAND: case DLB_SERIES_SPAN: out->kind = LEG_BAND; break;
  default: /* reference lines */
    out->kind = LEG_LINE;
    out->rgb[0] = out->rgb[1] = out->rgb[2] = 0.3;
    if (dlbp_series_str(s, "color", NULL)) dlbp_colour_parse(dlbp_series_str(s, "color", NULL), out->rgb);
    snprintf(out->style, sizeof out->style, "%s", dlbp_series_str(s, "style", "dashed"));
    snprintf(out->marker, sizeof out->marker, "none");
    break;
  }
  return 1;
}
