/*
** series_roof.c — the roofline (Williams, Waterman, Patterson, CACM 2009; ParaDnn Fig. 6):
** per device the ceiling min(peak, I * mem_bw) over operational intensity I (FLOP/byte),
** optionally the achievable ceiling min(peak * flops_eff, I * mem_bw * bw_eff) dashed, the
** ridge point I = peak / mem_bw marked, and measured points coloured (and shaped) by group.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

static const char *const shapes[] = {"circle", "square", "triangle", "diamond"};
static const char *const dashes[] = {"solid", "dashdot", "dashed", "dotted"};

/* The marker of point i in group g (0-based): its own (pmarkers, checked by series.c) or
** the group's shape. */
static const char *point_marker(slist *pm, size_t i, int g) {
  return pm && i < pm->n && pm->s[i][0] ? pm->s[i] : shapes[g % 4];
}

/* Efficiency i of a device (1 when not given). */
static double eff(series *s, const char *name, size_t i) {
  darray *d = dlbp_series_data(s, name);
  return d ? d->v[i] : 1;
}

/* Draw achievable ceilings? (default: when efficiencies are given). */
static int achievable(series *s) {
  int has = dlbp_series_data(s, "flops_eff") || dlbp_series_data(s, "bw_eff");
  return dlbp_series_num(s, "achievable", has) != 0;
}

/* Intensities around the ridge points and points; FLOP/s up to twice the peak. */
void dlbp_roof_extent(const dlb_figure *f, series *s, extent *e) {
  const panel *p = &f->panels[s->panel];
  darray *pk = dlbp_series_data(s, "peak"), *bw = dlbp_series_data(s, "bw");
  darray *px = dlbp_series_data(s, "px"), *py = dlbp_series_data(s, "py");
  double imin = INFINITY, imax = 0;
  for (size_t i = 0; i < pk->n; i++) {
    double ridge = pk->v[i] / bw->v[i];
    imin = fmin(imin, ridge / 30);
    imax = fmax(imax, ridge * 30);
    dlbp_extent_add(e, 1, pk->v[i] * 2, &p->ax[1]);
  }
  if (px) for (size_t i = 0; i < px->n; i++) {
    if (!isfinite(px->v[i]) || !isfinite(py->v[i]) || px->v[i] <= 0 || py->v[i] <= 0) continue;
    imin = fmin(imin, px->v[i] / 2);
    imax = fmax(imax, px->v[i] * 2);
    dlbp_extent_add(e, 1, py->v[i] / 2, &p->ax[1]); /* every point inside, with room around it */
    dlbp_extent_add(e, 1, py->v[i] * 2, &p->ax[1]);
  }
  dlbp_extent_add(e, 0, imin, &p->ax[0]);
  dlbp_extent_add(e, 0, imax, &p->ax[0]);
  double low = INFINITY; /* show the slope where it starts */
  for (size_t i = 0; i < pk->n; i++) low = fmin(low, imin * bw->v[i] * eff(s, "bw_eff", i));
  dlbp_extent_add(e, 1, low, &p->ax[1]);
  e->sticky_lo[0] = e->sticky_hi[0] = e->sticky_lo[1] = e->sticky_hi[1] = 1;
}

/* Path of min(peak, I * bw) across the x axis (straight in log-log and linear). */
static void ceiling(cairo_t *cr, const panel *p, double peak, double bw) {
  double x0 = p->ax[0].lo, x1 = p->ax[0].hi, ridge = peak / bw;
  cairo_move_to(cr, dlbp_panel_px(p, x0), dlbp_panel_py(p, fmin(peak, x0 * bw)));
  if (ridge > x0 && ridge < x1) cairo_line_to(cr, dlbp_panel_px(p, ridge), dlbp_panel_py(p, peak));
  cairo_line_to(cr, dlbp_panel_px(p, x1), dlbp_panel_py(p, fmin(peak, x1 * bw)));
}

/* Greys for device ceilings, so points keep the palette. */
static void device_colour(size_t i, double rgb[3]) {
  static const double g[] = {0.0, 0.45, 0.25, 0.6};
  rgb[0] = rgb[1] = rgb[2] = g[i % 4];
}

/* Ceilings, achievable ceilings, ridge points, then the measured points. */
void dlbp_roof_draw(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  darray *pk = dlbp_series_data(s, "peak"), *bw = dlbp_series_data(s, "bw");
  int ach = achievable(s), ridge = dlbp_series_num(s, "ridge", 1) != 0;
  for (size_t i = 0; i < pk->n; i++) {
    double rgb[3];
    device_colour(i, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, 1.3);
    dlbp_set_dash(cr, dashes[i % 4], 1.3);
    ceiling(cr, p, pk->v[i], bw->v[i]);
    cairo_stroke(cr);
    if (ach) {
      cairo_set_line_width(cr, 0.7);
      dlbp_set_dash(cr, "dotted", 0.9);
      ceiling(cr, p, pk->v[i] * eff(s, "flops_eff", i), bw->v[i] * eff(s, "bw_eff", i));
      cairo_stroke(cr);
      cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    if (ridge) { /* ridge point: an open circle where the slope meets the peak */
      double rx = dlbp_panel_px(p, pk->v[i] / bw->v[i]), ry = dlbp_panel_py(p, pk->v[i]);
      cairo_new_sub_path(cr);
      cairo_arc(cr, rx, ry, 2.2, 0, 2 * M_PI);
      cairo_set_source_rgb(cr, 1, 1, 1);
      cairo_fill_preserve(cr);
      cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
      cairo_set_line_width(cr, 0.8);
      cairo_stroke(cr);
    }
  }
  darray *px = dlbp_series_data(s, "px"), *py = dlbp_series_data(s, "py"), *pg = dlbp_series_data(s, "pgroup");
  slist *pm = dlbp_series_strs(s, "pmarkers");
  if (!px) return;
  for (size_t i = 0; i < px->n; i++) {
    if (!isfinite(px->v[i]) || !isfinite(py->v[i]) || px->v[i] <= 0 || py->v[i] <= 0) continue;
    int g = pg && isfinite(pg->v[i]) && pg->v[i] >= 1 ? (int)pg->v[i] - 1 : 0;
    double rgb[3];
    dlb_palette(g, rgb);
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], 0.9);
    const char *m = point_marker(pm, i, g);
    if (!strcmp(m, "none")) continue;
    dlbp_draw_marker(cr, m, dlbp_panel_px(p, px->v[i]), dlbp_panel_py(p, py->v[i]), 4);
    if (dlbp_marker_open(m)) { cairo_set_line_width(cr, 0.8); cairo_stroke(cr); }
    else cairo_fill(cr);
  }
  slist *pl = dlbp_series_strs(s, "plabels");
  if (pl) {
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (size_t i = 0; i < pl->n && i < px->n; i++) {
      rect r;
      int left;
      if (!dlbp_roof_label_box(f, cr, s, i, &r, &left)) continue;
      dlbp_text_draw(cr, pl->s[i], f->font * 0.75, 0, r.x, r.y + r.h / 2, 0, 0.5, 0, NULL);
    }
  }
}

/* Box of point i's label: right of the point, or left of it when the right side would
** leave the axes; 0 when the point has no label or is not drawn. */
int dlbp_roof_label_box(const dlb_figure *f, cairo_t *cr, series *s, size_t i, rect *r, int *left) {
  const panel *p = &f->panels[s->panel];
  darray *px = dlbp_series_data(s, "px"), *py = dlbp_series_data(s, "py");
  slist *pl = dlbp_series_strs(s, "plabels");
  if (!px || !py || !pl || i >= pl->n || i >= px->n || !pl->s[i][0]) return 0;
  double x = px->v[i], y = py->v[i];
  if (!(isfinite(x) && isfinite(y) && x > 0 && y > 0)) return 0;
  const axis *ax = &p->ax[0], *ay = &p->ax[1];
  if (x < ax->lo || x > ax->hi || y < ay->lo || y > ay->hi) return 0; /* not drawn */
  double cx = dlbp_panel_px(p, x), cy = dlbp_panel_py(p, y);
  *r = dlbp_text_box(cr, pl->s[i], f->font * 0.75, 0, cx + 3.5, cy, 0, 0.5, 0);
  *left = r->x + r->w > p->box.x + p->box.w && cx - 3.5 - r->w >= p->box.x;
  if (*left) r->x = cx - 3.5 - r->w;
  return 1;
}

/* How much of r the ceilings cover (a few segments per device): dlbp_roof_covers without
** the points. */
int dlbp_roof_covers_lines(const dlb_figure *f, series *s, rect r) {
  const panel *p = &f->panels[s->panel];
  darray *pk = dlbp_series_data(s, "peak"), *bw = dlbp_series_data(s, "bw");
  int c = 0;
  for (size_t i = 0; i < pk->n; i++) {
    double x0 = p->ax[0].lo, x1 = p->ax[0].hi, rd = pk->v[i] / bw->v[i];
    double a = dlbp_panel_px(p, x0), b = dlbp_panel_py(p, fmin(pk->v[i], x0 * bw->v[i]));
    double xr = fmin(fmax(rd, x0), x1); /* the ridge, or the axis end nearest it */
    double cx = dlbp_panel_px(p, xr), cy = dlbp_panel_py(p, fmin(pk->v[i], xr * bw->v[i]));
    c += dlbp_cover_seg(r, a, b, cx, cy);
    c += dlbp_cover_seg(r, cx, cy, dlbp_panel_px(p, x1), dlbp_panel_py(p, fmin(pk->v[i], x1 * bw->v[i])));
    if (achievable(s)) { /* the dotted ceiling counts as data too */
      double pe = pk->v[i] * eff(s, "flops_eff", i), be = bw->v[i] * eff(s, "bw_eff", i);
      double re = fmin(fmax(pe / be, x0), x1);
      double ex = dlbp_panel_px(p, re), ey = dlbp_panel_py(p, fmin(pe, re * be));
      c += dlbp_cover_seg(r, a, dlbp_panel_py(p, fmin(pe, x0 * be)), ex, ey);
      c += dlbp_cover_seg(r, ex, ey, dlbp_panel_px(p, x1), dlbp_panel_py(p, fmin(pe, x1 * be)));
    }
  }
  return c;
}

/* How much of r the ceilings and points cover. */
int dlbp_roof_covers(const dlb_figure *f, series *s, rect r) {
  const panel *p = &f->panels[s->panel];
  darray *px = dlbp_series_data(s, "px"), *py = dlbp_series_data(s, "py");
  int c = dlbp_roof_covers_lines(f, s, r);
  if (px) for (size_t i = 0; i < px->n; i++) {
    if (!(px->v[i] > 0 && py->v[i] > 0)) continue;
    double x = dlbp_panel_px(p, px->v[i]), y = dlbp_panel_py(p, py->v[i]);
    c += 3 * (x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h);
  }
  return c;
}

/* Legend entries: devices, "achievable", point groups. */
int dlbp_roof_legend(series *s, legend_entry *out, int cap) {
  slist *names = dlbp_series_strs(s, "names"), *groups = dlbp_series_strs(s, "groups");
  int n = 0;
  if (names) for (size_t i = 0; i < names->n && n < cap; i++, n++) {
    memset(&out[n], 0, sizeof out[n]);
    dlbp_text_copy(out[n].label, sizeof out[n].label, names->s[i]);
    out[n].kind = LEG_LINE;
    out[n].sid = -1;
    device_colour(i, out[n].rgb);
    snprintf(out[n].style, sizeof out[n].style, "%s", dashes[i % 4]);
    snprintf(out[n].marker, sizeof out[n].marker, "none");
  }
  if (names && achievable(s) && n < cap) {
    memset(&out[n], 0, sizeof out[n]);
    snprintf(out[n].label, sizeof out[n].label, "achievable");
    out[n].kind = LEG_LINE;
    out[n].sid = -1;
    out[n].rgb[0] = out[n].rgb[1] = out[n].rgb[2] = 0.3;
    snprintf(out[n].style, sizeof out[n].style, "dotted");
    snprintf(out[n].marker, sizeof out[n].marker, "none");
    n++;
  }
  if (groups) for (size_t i = 0; i < groups->n && n < cap; i++, n++) {
    memset(&out[n], 0, sizeof out[n]);
    /* points without a group among grouped ones: "other" */
    dlbp_text_copy(out[n].label, sizeof out[n].label, groups->s[i][0] ? groups->s[i] : "other");
    out[n].kind = LEG_MARKER;
    out[n].sid = -1;
    dlb_palette((int)i, out[n].rgb);
    /* the group's shape, or the marker its points share when they all name the same one */
    const char *m = shapes[i % 4], *own = NULL;
    int same = 1;
    darray *pg = dlbp_series_data(s, "pgroup");
    slist *pm = dlbp_series_strs(s, "pmarkers");
    for (size_t k = 0; pg && pm && k < pg->n && k < pm->n; k++) {
      if (!(isfinite(pg->v[k]) && (size_t)pg->v[k] == i + 1)) continue;
      if (own == NULL) own = pm->s[k];
      else if (strcmp(own, pm->s[k])) same = 0;
    }
    if (own && own[0] && same) m = own;
    snprintf(out[n].marker, sizeof out[n].marker, "%s", m);
  }
  return n;
}

/* Finite points of a scatter or roofline outside its panel's limits: not drawn, so counted
** in a warning (automatic limits include every point; user limits may not). */
size_t dlbp_series_outside(const dlb_figure *f, series *s) {
  const panel *p = &f->panels[s->panel];
  darray *x = NULL, *y = NULL;
  if (s->kind == DLB_SERIES_SCATTER) { x = dlbp_series_data(s, "x"); y = dlbp_series_data(s, "y"); }
  else if (s->kind == DLB_SERIES_ROOFLINE) { x = dlbp_series_data(s, "px"); y = dlbp_series_data(s, "py"); }
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
