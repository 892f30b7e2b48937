/*
** series_roof.c — the roofline (Williams, Waterman, Patterson, CACM 2009; ParaDnn Fig. 6):
** per device the ceiling min(peak, I * mem_bw) over operational intensity I (FLOP/byte),
** optionally the achievable ceiling min(peak * flops_eff, I * mem_bw * bw_eff) dashed, the
** ridge point I = peak / mem_bw marked, and measured points coloured (and shaped) by group.
** The roofline's methods together (checks, extent, legend, label boxes, what it covers,
** drawing) and its method table (plot_internal.h).
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

/* Checks of a roofline: positive peaks and bandwidths, efficiencies in (0, 1], names per
** device, points with intensity and rate, group numbers and markers per point. */
static int roof_validate(series *s, size_t *skipped, size_t *total) {
  (void)total; /* its roofs are drawn whatever its points */
  darray *pk = NULL, *bw = NULL, *d;
  slist *l;
  int st;
  if ((st = dlbp_series_need(s, "peak", &pk)) || (st = dlbp_series_need(s, "bw", &bw))) return st;
  if (pk->n != bw->n)
    return dlb_fail(DLB_EINVAL, "roofline: %zu peaks but %zu bandwidths", pk->n, bw->n);
  for (size_t i = 0; i < pk->n; i++)
    if (!(pk->v[i] > 0 && isfinite(pk->v[i]) && bw->v[i] > 0 && isfinite(bw->v[i])))
      return dlb_fail(DLB_EINVAL, "roofline: device %zu needs a positive peak and mem_bw "
                      "(got %g FLOP/s, %g B/s)", i + 1, pk->v[i], bw->v[i]);
  static const char *const effs[] = {"flops_eff", "bw_eff"};
  for (int k = 0; k < 2; k++) if ((d = dlbp_series_data(s, effs[k]))) {
    if (d->n != pk->n)
      return dlb_fail(DLB_EINVAL, "roofline: %zu %s values for %zu devices", d->n, effs[k],
                      pk->n);
    for (size_t i = 0; i < d->n; i++)
      if (!(d->v[i] > 0 && d->v[i] <= 1))
        return dlb_fail(DLB_EINVAL, "roofline: device %zu: %s %g is not in (0, 1]", i + 1,
                        effs[k], d->v[i]);
  }
  if ((l = dlbp_series_strs(s, "names")) && l->n != pk->n)
    return dlb_fail(DLB_EINVAL, "roofline: %zu names for %zu devices", l->n, pk->n);
  darray *px = dlbp_series_data(s, "px"), *py = dlbp_series_data(s, "py");
  if ((px ? px->n : 0) != (py ? py->n : 0))
    return dlb_fail(DLB_EINVAL, "roofline: %zu intensities but %zu FLOP rates",
                    px ? px->n : 0, py ? py->n : 0);
  if (px && (st = dlbp_series_samelen(s, px, "pgroup"))) return st;
  if ((d = dlbp_series_data(s, "pgroup")))
    for (size_t i = 0; i < d->n; i++)
      if (isfinite(d->v[i]) && (d->v[i] < 1 || d->v[i] > 1e6 || d->v[i] != floor(d->v[i])))
        return dlb_fail(DLB_EINVAL, "roofline: pgroup[%zu] = %g is not a group number",
                        i + 1, d->v[i]);
  /* a point's own marker ("" keeps its group's shape) */
  if ((l = dlbp_series_strs(s, "pmarkers"))) {
    if (l->n != (px ? px->n : 0))
      return dlb_fail(DLB_EINVAL, "roofline: %zu point markers for %zu points", l->n,
                      px ? px->n : 0);
    for (size_t i = 0; i < l->n; i++)
      if (l->s[i][0] && !dlbp_inlist(dlbp_markers, l->s[i]))
        return dlb_fail(DLB_EINVAL, "roofline: points[%zu].marker '%s' is not a marker "
                        "(valid: %s)", i + 1, l->s[i], dlbp_markers);
  }
  if (px) for (size_t i = 0; i < px->n; i++)
    *skipped += !isfinite(px->v[i]) || !isfinite(py->v[i]);
  return DLB_OK;
}

/* Intensities around the ridge points and points; FLOP/s up to twice the peak. */
static void roof_extent(const dlb_figure *f, series *s, extent *e) {
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

/* Box of point i's label: right of the point, or left of it when the right side would
** leave the axes; 0 when the point has no label or is not drawn. */
static int label_box(const dlb_figure *f, cairo_t *cr, series *s, size_t i, rect *r, int *left) {
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

/* Ceilings, achievable ceilings, ridge points, then the measured points. */
static void roof_draw(dlb_figure *f, cairo_t *cr, series *s) {
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
      if (!label_box(f, cr, s, i, &r, &left)) continue;
      dlbp_text_draw(cr, pl->s[i], f->font * 0.75, 0, r.x, r.y + r.h / 2, 0, 0.5, 0, NULL);
    }
  }
}

/* The point labels' boxes, for the overlap check. */
static void roof_boxes(cairo_t *cr, dlb_figure *f, series *s) {
  slist *pl = dlbp_series_strs(s, "plabels");
  char what[48];
  for (size_t k = 0; pl && k < pl->n; k++) {
    rect r;
    int left;
    if (!label_box(f, cr, s, k, &r, &left)) continue;
    snprintf(what, sizeof what, "point label '%.30s'", pl->s[k]);
    dlbp_layout_add_box(f, r, s->panel, what);
  }
}

/* How many 3 pt samples along a segment (points) fall inside r. */
static int cover_seg(rect r, double x0, double y0, double x1, double y1) {
  double len = hypot(x1 - x0, y1 - y0);
  int n = (int)(len / 3) + 1, c = 0;
  if (n > 2000) n = 2000;
  for (int i = 0; i <= n; i++) {
    double t = (double)i / n, x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
    c += x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h;
  }
  return c;
}

/* How much of r the ceilings cover (a few segments per device). */
static int covers_lines(const dlb_figure *f, series *s, rect r) {
  const panel *p = &f->panels[s->panel];
  darray *pk = dlbp_series_data(s, "peak"), *bw = dlbp_series_data(s, "bw");
  int c = 0;
  for (size_t i = 0; i < pk->n; i++) {
    double x0 = p->ax[0].lo, x1 = p->ax[0].hi, rd = pk->v[i] / bw->v[i];
    double a = dlbp_panel_px(p, x0), b = dlbp_panel_py(p, fmin(pk->v[i], x0 * bw->v[i]));
    double xr = fmin(fmax(rd, x0), x1); /* the ridge, or the axis end nearest it */
    double cx = dlbp_panel_px(p, xr), cy = dlbp_panel_py(p, fmin(pk->v[i], xr * bw->v[i]));
    c += cover_seg(r, a, b, cx, cy);
    c += cover_seg(r, cx, cy, dlbp_panel_px(p, x1), dlbp_panel_py(p, fmin(pk->v[i], x1 * bw->v[i])));
    if (achievable(s)) { /* the dotted ceiling counts as data too */
      double pe = pk->v[i] * eff(s, "flops_eff", i), be = bw->v[i] * eff(s, "bw_eff", i);
      double re = fmin(fmax(pe / be, x0), x1);
      double ex = dlbp_panel_px(p, re), ey = dlbp_panel_py(p, fmin(pe, re * be));
      c += cover_seg(r, a, dlbp_panel_py(p, fmin(pe, x0 * be)), ex, ey);
      c += cover_seg(r, ex, ey, dlbp_panel_px(p, x1), dlbp_panel_py(p, fmin(pe, x1 * be)));
    }
  }
  return c;
}

/* The ceilings (asked per cell: few segments) and each point's cell. */
static void roof_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  const panel *p = &f->panels[s->panel];
  const occupancy *o = gr->o;
  for (int j = 0; j < o->ny; j++)
    for (int i = 0; i < o->nx; i++) {
      rect c = {o->x0 + i * o->cell, o->y0 + j * o->cell, o->cell, o->cell};
      if (covers_lines(f, s, c) > 0) dlbp_occ_cell(gr, i, j, 1);
    }
  darray *rx = dlbp_series_data(s, "px"), *ry = dlbp_series_data(s, "py");
  if (rx) for (size_t i = 0; i < rx->n; i++)
    if (rx->v[i] > 0 && ry->v[i] > 0)
      dlbp_occ_point(gr, dlbp_panel_px(p, rx->v[i]), dlbp_panel_py(p, ry->v[i]), 1);
}

/* Legend entries: devices, "achievable", point groups. */
static int roof_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  (void)f;
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

/* Measured points outside user-set limits. */
static size_t roof_outside(const dlb_figure *f, series *s) {
  return dlbp_points_outside(f, s, dlbp_series_data(s, "px"), dlbp_series_data(s, "py"));
}

/* A point on a log axis (a roofline's axes are log): named as the user wrote it,
** points[i].intensity or points[i].flops, not by the arrays it travels in. */
static int roof_logcheck(const series *s, int axn) {
  darray *d = dlbp_series_data((series *)s, axn ? "py" : "px"); /* a lookup: s is not changed */
  if (d)
    for (size_t i = 0; i < d->n; i++)
      if (isfinite(d->v[i]) && d->v[i] <= 0)
        return dlb_fail(DLB_EINVAL, "panel %d, roofline: points[%zu].%s = %g <= 0 on a log %c "
                        "axis", s->panel + 1, i + 1, axn ? "flops" : "intensity", d->v[i],
                        axn ? 'y' : 'x');
  return DLB_OK;
}

const series_methods dlbp_roofline_methods = {
  .name = "roofline",
  .names = {"peak bw flops_eff bw_eff px py pgroup", "names groups plabels pmarkers", "",
            "achievable ridge"},
  .layer = LAYER_MARK,
  .validate = roof_validate, .logcheck = roof_logcheck, .extent = roof_extent, .legend = roof_legend,
  .boxes = roof_boxes, .occupy = roof_occupy, .outside = roof_outside, .draw = roof_draw,
};
