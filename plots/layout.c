/*
** layout.c — where everything goes, in points: axis limits from the data, ticks, the
** margins each panel needs for its labels (aligned across the grid), legend placement
** (the candidate covering the least data), colour bars. What the finished layout is
** checked for (overlapping text, legends over data, points outside limits) is
** layout_check.c.
*/
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

static int legend_size(cairo_t *cr, dlb_figure *f, int pi, double *w, double *h);

/* Far outside any figure but still fine for Cairo's fixed-point coordinates. */
static double clampc(double v) { return v < -1e5 ? -1e5 : v > 1e5 ? 1e5 : v; }

/* Data x of a panel -> points (NaN stays NaN; far-off values are clamped). */
double dlbp_panel_px(const panel *p, double x) {
  const axis *a = &p->ax[0];
  double l = dlbp_axis_fwd(a, a->lo), h = dlbp_axis_fwd(a, a->hi);
  return clampc(p->box.x + (dlbp_axis_fwd(a, x) - l) / (h - l) * p->box.w);
}

/* Data y of a panel -> points (y grows downwards on the page). */
double dlbp_panel_py(const panel *p, double y) {
  const axis *a = &p->ax[1];
  double l = dlbp_axis_fwd(a, a->lo), h = dlbp_axis_fwd(a, a->hi);
  return clampc(p->box.y + p->box.h - (dlbp_axis_fwd(a, y) - l) / (h - l) * p->box.h);
}

/* Record a text box for the overlap check (boxes beyond MAXBOXES are ignored). */
void dlbp_layout_add_box(dlb_figure *f, rect r, int panel, const char *what) {
  if (f->nboxes >= MAXBOXES || r.w <= 0 || r.h <= 0) return;
  if (!f->boxes && !(f->boxes = dlb_malloc(MAXBOXES * sizeof *f->boxes))) return;
  tbox *b = &f->boxes[f->nboxes++];
  b->r = r;
  b->panel = panel;
  snprintf(b->what, sizeof b->what, "%s", what);
}

/* The series whose colour map a panel's colour bar shows, or -1. */
int dlbp_cbar_series_of(const dlb_figure *f, int p) {
  for (int i = 0; i < f->nseries; i++) {
    const series *s = &f->series[i];
    if (s->dead || !s->committed || s->panel != p) continue;
    /* kinds without a colour bar have no "colorbar" option: their default 0 holds */
    if (dlbp_series_num(s, "colorbar", s->methods->colorbar) != 0) return i;
  }
  return -1;
}

/* The first categorical labels of a panel's series on axis axn, or NULL. */
static slist *cats_of(dlb_figure *f, int p, int axn) {
  for (int i = 0; i < f->nseries; i++) {
    series *s = &f->series[i];
    if (s->dead || !s->committed || s->panel != p) continue;
    slist *l = s->methods->cats ? s->methods->cats(s, axn) : NULL;
    if (l) return l;
  }
  return NULL;
}

/* The union of a panel's series extents. */
static void panel_extent(dlb_figure *f, int p, extent *e) {
  for (int i = 0; i < f->nseries; i++) {
    series *s = &f->series[i];
    if (!s->dead && s->committed && s->panel == p && s->methods->extent)
      s->methods->extent(f, s, e);
  }
}

/* Limits of one axis from an extent: user limits win; otherwise pad 5% (in log space on a
** log axis) except at sticky edges (bar baselines, heat map cells). */
static void limits(axis *a, const extent *e, int axn) {
  double lo, hi;
  if (a->ncats) { lo = 0.5; hi = (double)a->ncats + 0.5; }
  else if (!e->any[axn]) { lo = a->scale == DLB_SCALE_LOG ? 1 : 0; hi = a->scale ? 10 : 1; }
  else {
    lo = dlbp_axis_fwd(a, e->lo[axn]);
    hi = dlbp_axis_fwd(a, e->hi[axn]);
    if (hi - lo < 1e-12 * fmax(1, fabs(lo))) { lo -= a->scale ? 0.5 : fmax(1, fabs(lo) * 0.1);
                                              hi += a->scale ? 0.5 : fmax(1, fabs(hi) * 0.1); }
    else {
      double pad = 0.05 * (hi - lo);
      if (!e->sticky_lo[axn]) lo -= pad;
      if (!e->sticky_hi[axn]) hi += pad;
    }
    if (a->scale == DLB_SCALE_LOG) { lo = pow(10, lo); hi = pow(10, hi); }
  }
  if (!isnan(a->umin) && !(a->scale == DLB_SCALE_LOG && a->umin <= 0)) lo = a->umin;
  if (!isnan(a->umax) && !(a->scale == DLB_SCALE_LOG && a->umax <= 0)) hi = a->umax;
  if (!(hi > lo)) hi = a->scale == DLB_SCALE_LOG ? lo * 10 : lo + fmax(1, fabs(lo) * 0.1);
  if (!isfinite(lo) || !isfinite(hi) || !isfinite(hi - lo) || !(hi > lo) ||
      (a->scale == DLB_SCALE_LOG && !(lo > 0))) { /* beyond doubles: a plain unit range */
    lo = a->scale == DLB_SCALE_LOG ? 1 : 0;
    hi = a->scale == DLB_SCALE_LOG ? 10 : 1;
  }
  a->lo = lo;
  a->hi = hi;
}

/* Height of an axis label line at the base font size. */
double dlbp_label_h(cairo_t *cr, dlb_figure *f) {
  double w, h;
  dlbp_text_extent(cr, "0", f->font, 0, &w, &h);
  return h;
}

/* Widest and tallest tick label of an axis. */
void dlbp_tick_sizes(cairo_t *cr, dlb_figure *f, const axis *a, double *mw, double *mh) {
  *mw = *mh = 0;
  for (int i = 0; i < a->nticks; i++) {
    double w, h;
    dlbp_text_extent(cr, a->tlabels[i], f->font * 0.875, 0, &w, &h);
    if (w > *mw) *mw = w;
    if (h > *mh) *mh = h;
  }
}

/* Ticks of a panel's colour bar over its map's value range. */
static void cbar_ticks(cairo_t *cr, dlb_figure *f, panel *p) {
  if (p->cbar_series < 0) return;
  double vmin, vmax, center;
  dlbp_cmap_norm(&f->series[p->cbar_series], &vmin, &vmax, &center);
  axis *a = &p->cbar_axis;
  memset(a, 0, sizeof *a);
  snprintf(a->fmt, sizeof a->fmt, "auto");
  a->lo = vmin;
  a->hi = vmax;
  p->cbar_lo = vmin;
  p->cbar_hi = vmax;
  double len = p->box.h > 20 ? p->box.h : 20;
  if (vmax - vmin <= 1e-6 * fmax(fabs(vmin), fabs(vmax))) { /* a constant map: one tick */
    a->nticks = 1;
    a->ticks[0] = vmin;
    dlbp_format_tick(vmin, 0, "auto", a->tlabels[0], sizeof a->tlabels[0]);
    return;
  }
  if (dlbp_cmap_log(&f->series[p->cbar_series])) {
    /* ratios around the centre: x2 steps (x10 when the range spans over 2^6 either way),
    ** labelled with the values, not their logs */
    double step = (vmax - center) > 6 * log(2) ? log(10) : log(2);
    int k0 = (int)ceil((vmin - center) / step - 1e-9), k1 = (int)floor((vmax - center) / step + 1e-9);
    a->nticks = 0;
    for (int k = k0; k <= k1 && a->nticks < MAXTICKS; k++) {
      double t = center + k * step;
      dlbp_format_tick(exp(t), 0, "auto", a->tlabels[a->nticks], sizeof a->tlabels[0]);
      a->ticks[a->nticks++] = t;
    }
    return;
  }
  dlbp_axis_ticks(cr, f, a, len, 0);
  if (!isnan(center) && center > vmin && center < vmax) {
    /* a two-slope map: each half of the bar gets its own nice ticks, the centre one */
    double lo[MAXTICKS], hi[MAXTICKS];
    int nl = dlbp_nice_ticks(vmin, center, (int)fmax(1, len / 2 / 20), lo, MAXTICKS);
    int nh = dlbp_nice_ticks(center, vmax, (int)fmax(1, len / 2 / 20), hi, MAXTICKS);
    double sl = nl > 1 ? lo[1] - lo[0] : 0, sh = nh > 1 ? hi[1] - hi[0] : 0;
    a->nticks = 0;
    for (int i = 0; i < nl && a->nticks < MAXTICKS; i++)
      if (lo[i] < center - 1e-9 * (vmax - vmin)) {
        dlbp_format_tick(lo[i], sl, "plain", a->tlabels[a->nticks], sizeof a->tlabels[0]);
        a->ticks[a->nticks++] = lo[i];
      }
    if (a->nticks < MAXTICKS) {
      dlbp_format_tick(center, sh > 0 ? sh : sl, "plain", a->tlabels[a->nticks], sizeof a->tlabels[0]);
      a->ticks[a->nticks++] = center;
    }
    for (int i = 0; i < nh && a->nticks < MAXTICKS; i++)
      if (hi[i] > center + 1e-9 * (vmax - vmin)) {
        dlbp_format_tick(hi[i], sh, "plain", a->tlabels[a->nticks], sizeof a->tlabels[0]);
        a->ticks[a->nticks++] = hi[i];
      }
  }
}

/* Does a panel hold a committed series that fills its axes (a heat map)? */
static int fills_axes(const dlb_figure *f, int pi) {
  for (int i = 0; i < f->nseries; i++) {
    const series *s = &f->series[i];
    if (!s->dead && s->committed && s->panel == pi && s->methods->fills_axes) return 1;
  }
  return 0;
}

/* The margins (left bottom right top) a panel needs around its axes box. */
static void margins(cairo_t *cr, dlb_figure *f, int pi, double m[4]) {
  panel *p = &f->panels[pi];
  double lh = dlbp_label_h(cr, f), w, h;
  dlbp_tick_sizes(cr, f, &p->ax[1], &w, &h);
  m[0] = PAD + TICK + PAD;
  if (p->ax[1].show_labels) m[0] += w + (p->ax[1].label[0] ? lh + PAD : 0);
  dlbp_tick_sizes(cr, f, &p->ax[0], &w, &h);
  m[1] = PAD + TICK + PAD;
  if (p->ax[0].show_labels)
    m[1] += (p->ax[0].rotate ? w : h) + (p->ax[0].label[0] ? lh + PAD : 0);
  double th = 0, lw, lh2;
  if (p->title[0]) dlbp_text_extent(cr, p->title, f->font, 1, &w, &th);
  m[3] = p->title[0] ? th + 2 * PAD : fmax(PAD * 2, h / 2 + PAD);
  p->above = 0;
  if ((fills_axes(f, pi) || p->legend_above) &&
      legend_size(cr, f, pi, &lw, &lh2) > 0) {
    p->above = lh2 + 2;
    m[3] += p->above;
  }
  m[2] = PAD * 2;
  if (p->ax[0].nticks && !p->ax[0].rotate && p->ax[0].show_labels && p->box.w > 0) {
    /* so may the first one, on the left */
    dlbp_text_extent(cr, p->ax[0].tlabels[0], f->font * 0.875, 0, &w, &h);
    double over = p->box.x - (dlbp_panel_px(p, p->ax[0].ticks[0]) - w / 2);
    if (over + PAD > m[0]) m[0] = over + PAD;
  }
  if (p->ax[0].nticks && !p->ax[0].rotate) { /* the last x label may stick out */
    dlbp_text_extent(cr, p->ax[0].tlabels[p->ax[0].nticks - 1], f->font * 0.875, 0, &w, &h);
    double over = dlbp_panel_px(p, p->ax[0].ticks[p->ax[0].nticks - 1]) + w / 2
                  - (p->box.x + p->box.w);
    if (p->box.w > 0 && over + PAD > m[2]) m[2] = over + PAD;
  }
  if (p->cbar_series >= 0) {
    dlbp_tick_sizes(cr, f, &p->cbar_axis, &w, &h);
    const char *cl = dlbp_series_str(&f->series[p->cbar_series], "colorbar_label", "");
    m[2] = CBAR_GAP + CBAR_W + TICK + PAD + w + (cl[0] ? PAD + lh : 0) + PAD;
  }
  if ((strcmp(p->legend, "outside") == 0 || p->legend_out) && p->above == 0 &&
      legend_size(cr, f, pi, &lw, &lh2))
    m[2] += lw + PAD; /* beyond any colour bar */
}

/* Ticks of every axis and colour bar for the current axes boxes. */
static void all_ticks(cairo_t *cr, dlb_figure *f) {
  for (int i = 0; i < f->rows * f->cols; i++) {
    panel *p = &f->panels[i];
    dlbp_axis_ticks(cr, f, &p->ax[0], p->box.w, 1);
    dlbp_axis_ticks(cr, f, &p->ax[1], p->box.h, 0);
    cbar_ticks(cr, f, p);
  }
}

/* Axes boxes from the margins, aligned: a column shares its left/right margins, a row
** its top/bottom ones. */
static void place(cairo_t *cr, dlb_figure *f, double top) {
  int n = f->rows * f->cols;
  if (n < 1 || n > 256) return; /* 1..16 x 1..16, checked by dlb_figure_new */
  double cw = f->width / f->cols, ch = (f->height - top) / f->rows;
  double (*m)[4] = dlb_calloc((size_t)n, sizeof *m);
  if (!m) return;
  for (int i = 0; i < n; i++) margins(cr, f, i, m[i]);
  for (int i = 0; i < n; i++) { /* a row's titles sit at one height, above any legend */
    double a = 0;
    for (int j = 0; j < n; j++) if (j / f->cols == i / f->cols) a = fmax(a, f->panels[j].above);
    f->panels[i].title_above = a;
  }
  for (int i = 0; i < n; i++) {
    panel *p = &f->panels[i];
    int r = i / f->cols, c = i % f->cols;
    double mm[4] = {0, 0, 0, 0};
    for (int j = 0; j < n; j++) {
      if (j % f->cols == c) { mm[0] = fmax(mm[0], m[j][0]); mm[2] = fmax(mm[2], m[j][2]); }
      if (j / f->cols == r) { mm[1] = fmax(mm[1], m[j][1]); mm[3] = fmax(mm[3], m[j][3]); }
    }
    p->cell = (rect){c * cw, top + r * ch, cw, ch};
    p->box = (rect){p->cell.x + mm[0], p->cell.y + mm[3], cw - mm[0] - mm[2],
                    ch - mm[1] - mm[3]};
    if (p->box.w < 10) p->box.w = 10;
    if (p->box.h < 10) p->box.h = 10;
    memcpy(p->margin, mm, sizeof mm);
    if (p->cbar_series >= 0)
      p->cbar = (rect){p->box.x + p->box.w + CBAR_GAP, p->box.y, CBAR_W, p->box.h};
  }
  dlb_free(m);
}

/* The legend entries of a panel, in series order; returns how many (at most cap). */
int dlbp_legend_entries(dlb_figure *f, int pi, legend_entry *out, int cap) {
  int n = 0;
  if (strcmp(f->panels[pi].legend, "none") == 0) return 0;
  for (int i = 0; i < f->nseries && n < cap; i++) {
    series *s = &f->series[i];
    if (!s->dead && s->committed && s->panel == pi && s->methods->legend)
      n += s->methods->legend(f, s, out + n, cap - n);
  }
  return n;
}

/* Legend entries and the box they need. */
static int legend_size(cairo_t *cr, dlb_figure *f, int pi, double *w, double *h) {
  legend_entry e[32];
  int n = dlbp_legend_entries(f, pi, e, 32), cols = f->panels[pi].legend_cols;
  double colw, rowh;
  dlbp_legend_grid(cr, f, e, n, &colw, &rowh);
  if (cols < 1) cols = 1;
  if (cols > n) cols = n;
  *w = *h = 0;
  if (n == 0) return 0;
  int rows = (n + cols - 1) / cols;
  *w = cols * colw + (cols - 1) * PAD + 2 * PAD;
  *h = rows * rowh + 2 * PAD;
  return n;
}

/* The width of a legend column (swatch, gap, the longest label) and the height of a row. */
void dlbp_legend_grid(cairo_t *cr, const dlb_figure *f, const legend_entry *e, int n, double *colw,
                 double *rowh) {
  *colw = *rowh = 0;
  for (int i = 0; i < n; i++) {
    double tw, th;
    dlbp_text_extent(cr, e[i].label, f->font * 0.875, 0, &tw, &th);
    *colw = fmax(*colw, 14 + PAD + tw);
    *rowh = fmax(*rowh, th);
  }
}

/* Put a panel's legend: above a heat map, outside, at a named corner, or at the
** candidate covering the least data ("best"). */
static void place_legend(cairo_t *cr, dlb_figure *f, int pi) {
  panel *p = &f->panels[pi];
  double w, h;
  p->has_legend = 0;
  if (strcmp(p->legend, "none") == 0 || legend_size(cr, f, pi, &w, &h) == 0) return;
  const rect b = p->box;
  const double in = 4;
  static const char *const names[] = {"upper right", "upper left", "lower left", "lower right",
                                      "center right", "upper center", "lower center",
                                      "center left"};
  rect cand[8] = {
    {b.x + b.w - w - in, b.y + in, w, h}, {b.x + in, b.y + in, w, h},
    {b.x + in, b.y + b.h - h - in, w, h}, {b.x + b.w - w - in, b.y + b.h - h - in, w, h},
    {b.x + b.w - w - in, b.y + (b.h - h) / 2, w, h}, {b.x + (b.w - w) / 2, b.y + in, w, h},
    {b.x + (b.w - w) / 2, b.y + b.h - h - in, w, h}, {b.x + in, b.y + (b.h - h) / 2, w, h}};
  int best = 0;
  if (p->above > 0) { /* a heat map fills its axes: the legend goes above them */
    p->legend_box = (rect){fmax(p->cell.x + PAD, b.x + b.w - w), b.y - h - 2, w, h};
    p->has_legend = 1;
    return;
  }
  if (strcmp(p->legend, "outside") == 0 || p->legend_out) { /* right of the axes (and bar) */
    double x = p->box.x + p->box.w + PAD;
    if (p->cbar_series >= 0) x = p->cell.x + p->cell.w - w - PAD;
    p->legend_box = (rect){x, b.y, w, h};
    p->has_legend = 1;
    return;
  }
  if (strcmp(p->legend, "best") == 0) {
    /* what the series draw, on a grid (occupancy.c): the eight named places first, in
    ** order; when none is free, every position of the axes on the grid, the least covered
    ** (ties: nearest a corner), so free space anywhere is found */
    occupancy o;
    if (dlbp_occupancy_build(f, pi, 0, &o) != DLB_OK) { p->legend_box = cand[0]; p->has_legend = 1; return; }
    double bestc = -1;
    for (int k = 0; k < 8; k++) {
      double c = dlbp_occupancy_area(&o, cand[k]);
      if (bestc < 0 || c < bestc) { bestc = c; best = k; }
    }
    rect pick = cand[best];
    if (bestc > 0) {
      int scanned = 0;
      double bestd = 0;
      for (double y = b.y + in; y + h <= b.y + b.h - in + 1e-9; y += o.cell)
        for (double x = b.x + in; x + w <= b.x + b.w - in + 1e-9; x += o.cell) {
          rect r = {x, y, w, h};
          double c = dlbp_occupancy_area(&o, r);
          double d = fmin(fmin(x - b.x, b.x + b.w - x - w), fmin(y - b.y, b.y + b.h - y - h));
          if (c < bestc || (scanned && c == bestc && d < bestd)) {
            bestc = c; pick = r; bestd = d; scanned = 1;
          }
        }
    }
    dlbp_occupancy_free(&o);
    p->legend_cover = bestc;
    p->legend_box = pick;
    p->has_legend = 1;
    return;
  }
  for (int k = 0; k < 4; k++) if (strcmp(p->legend, names[k]) == 0) best = k;
  p->legend_box = cand[best];
  p->has_legend = 1;
}

/* Shared axes share their scale: a panel that did not choose one takes its row's or
** column's; two panels that chose different ones are an error. */
static int share_scales(dlb_figure *f) {
  int n = f->rows * f->cols;
  for (int k = 0; k < 2; k++) {
    if (!(k == 0 ? f->sharex : f->sharey)) continue;
    int groups = k == 0 ? f->cols : f->rows;
    for (int g = 0; g < groups; g++) {
      int chosen = -1, first = -1;
      for (int i = 0; i < n; i++) {
        if ((k == 0 ? i % f->cols : i / f->cols) != g) continue;
        const axis *a = &f->panels[i].ax[k];
        if (!a->scale_set) continue;
        if (chosen < 0) { chosen = a->scale; first = i; }
        else if (a->scale != chosen)
          return dlb_fail(DLB_EINVAL, "share%c: panel %d has a %s %c axis but panel %d a %s "
                          "one; panels sharing an axis need the same %cscale", k ? 'y' : 'x',
                          first + 1, chosen ? "log" : "linear", k ? 'y' : 'x', i + 1,
                          a->scale ? "log" : "linear", k ? 'y' : 'x');
      }
      for (int i = 0; i < n; i++) {
        if ((k == 0 ? i % f->cols : i / f->cols) != g) continue;
        axis *a = &f->panels[i].ax[k];
        if (!a->scale_set) a->scale = chosen < 0 ? DLB_SCALE_LINEAR : chosen;
      }
    }
  }
  return DLB_OK;
}

/* Titles and axis labels fitted to the room they have (shrunk to 80%, then cut with an
** ellipsis) and centred as near their axes as the figure allows. */
static void fit_texts(cairo_t *cr, dlb_figure *f) {
  double w, h;
  if (f->title[0]) {
    dlbp_text_fit(cr, f->title, f->font * 1.1, f->font * 0.9, 1, f->width - 2 * PAD, f->title_fit,
             sizeof f->title_fit, &f->title_size);
    f->title_x = f->width / 2;
  }
  for (int pi = 0; pi < f->rows * f->cols; pi++) {
    panel *p = &f->panels[pi];
    const rect c = p->cell, b = p->box;
    if (p->title[0]) { /* over the axes, within the cell */
      dlbp_text_fit(cr, p->title, f->font, f->font * 0.8, 1, c.w - 2 * PAD, p->title_fit,
               sizeof p->title_fit, &p->title_size);
      dlbp_text_extent(cr, p->title_fit, p->title_size, 1, &w, &h);
      p->title_x = fmin(fmax(b.x + b.w / 2, c.x + PAD + w / 2), c.x + c.w - PAD - w / 2);
    }
    axis *x = &p->ax[0], *y = &p->ax[1];
    if (x->label[0]) {
      dlbp_text_fit(cr, x->label, f->font, f->font * 0.8, 0, c.w - 2 * PAD, x->label_fit,
               sizeof x->label_fit, &x->label_size);
      dlbp_text_extent(cr, x->label_fit, x->label_size, 0, &w, &h);
      x->label_pos = fmin(fmax(b.x + b.w / 2, c.x + PAD + w / 2), c.x + c.w - PAD - w / 2);
    }
    if (y->label[0]) { /* along the axes, down to the bottom of the cell */
      double lo = b.y, hi = c.y + c.h - PAD;
      dlbp_text_fit(cr, y->label, f->font, f->font * 0.8, 0, hi - lo, y->label_fit,
               sizeof y->label_fit, &y->label_size);
      dlbp_text_extent(cr, y->label_fit, y->label_size, 0, &w, &h);
      y->label_pos = fmin(fmax(b.y + b.h / 2, lo + w / 2), hi - w / 2);
    }
  }
}

/* Lay the figure out against cr (used only to measure text). */
int dlbp_layout_run(dlb_figure *f, cairo_t *cr) {
  int n = f->rows * f->cols;
  int st0 = share_scales(f);
  if (st0 != DLB_OK) return st0;
  dlbp_cmap_share(f);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++) {
      const axis *a = &f->panels[i].ax[k];
      if (!isnan(a->umin) && !isnan(a->umax) && !(a->umin < a->umax))
        return dlb_fail(DLB_EINVAL, "panel %d: %clim {%g, %g}: the lower limit must be below "
                        "the upper one", i + 1, k ? 'y' : 'x', a->umin, a->umax);
    }
  for (int i = 0; i < f->nseries; i++) {
    if (f->series[i].dead || !f->series[i].committed) continue;
    int st = dlbp_series_logcheck(f, i);
    if (st != DLB_OK) return st;
  }
  extent *e = dlb_calloc((size_t)n, sizeof *e);
  if (!e) return dlb_fail(DLB_ENOMEM, "layout: out of memory");
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 2; k++) { e[i].lo[k] = INFINITY; e[i].hi[k] = -INFINITY; }
    panel_extent(f, i, &e[i]);
  }
  for (int i = 0; i < n; i++) {
    panel *p = &f->panels[i];
    int r = i / f->cols, c = i % f->cols;
    for (int k = 0; k < 2; k++) {
      slist *cl = cats_of(f, i, k);
      p->ax[k].cats = cl ? cl->s : NULL;
      p->ax[k].ncats = cl ? cl->n : 0;
      extent u = e[i];
      int share = k == 0 ? f->sharex : f->sharey;
      if (share) /* a shared x spans the column, a shared y the row */
        for (int j = 0; j < n; j++) {
          if (k == 0 ? j % f->cols != c : j / f->cols != r) continue;
          if (!e[j].any[k]) continue;
          u.lo[k] = fmin(u.lo[k], e[j].lo[k]);
          u.hi[k] = fmax(u.hi[k], e[j].hi[k]);
          u.sticky_lo[k] |= e[j].sticky_lo[k];
          u.sticky_hi[k] |= e[j].sticky_hi[k];
          u.any[k] = 1;
        }
      limits(&p->ax[k], &u, k);
    }
    p->ax[0].show_labels = !(f->sharex && r < f->rows - 1);
    p->ax[1].show_labels = !(f->sharey && c > 0);
    p->cbar_series = dlbp_cbar_series_of(f, i);
  }
  dlb_free(e);
  double top = 0;
  if (f->title[0]) {
    double w, h;
    dlbp_text_extent(cr, f->title, f->font * 1.1, 1, &w, &h);
    top = h + PAD;
  }
  for (int i = 0; i < n; i++) /* a first guess, then two rounds of ticks and margins */
    f->panels[i].box = (rect){0, 0, f->width / f->cols * 0.7, (f->height - top) / f->rows * 0.7};
  for (int i = 0; i < n; i++) {
    f->panels[i].legend_out = f->panels[i].legend_above = 0;
    f->panels[i].legend_cols = 1;
  }
  for (int pass = 0; pass < 2; pass++) {
    for (int round = 0; round < 3; round++) {
      all_ticks(cr, f);
      place(cr, f, top);
    }
    all_ticks(cr, f);
    f->nboxes = 0;
    fit_texts(cr, f);
    dlbp_layout_boxes(cr, f);
    int moved = 0;
    for (int i = 0; i < n; i++) {
      panel *p = &f->panels[i];
      place_legend(cr, f, i);
      /* "best" found no corner free enough (over 8% of the legend on data): outside,
      ** and lay out again with the room it needs */
      if (pass == 0 && p->has_legend && strcmp(p->legend, "best") == 0 && p->above == 0 &&
          p->legend_cover > 0.08 * p->legend_box.w * p->legend_box.h) {
        /* outside (right) when the axes keep 80% of their width; else above them, in as
        ** many columns as the cell's width holds, when that takes at most 30% of the
        ** cell's height; else it stays on the least covered place (clipped text would be
        ** worse) */
        const rect lb = p->legend_box;
        legend_entry e[32];
        int ne = dlbp_legend_entries(f, i, e, 32);
        double colw, rowh;
        dlbp_legend_grid(cr, f, e, ne, &colw, &rowh);
        int cols = (int)floor((p->cell.w - 2 * PAD) / (colw + PAD));
        if (cols < 1) cols = 1;
        if (cols > ne) cols = ne;
        int rows = ne > 0 ? (ne + cols - 1) / cols : 0;
        if (p->box.w - lb.w - PAD >= 0.8 * p->box.w) p->legend_out = 1;
        else if (rows * rowh + 2 * PAD <= 0.3 * p->cell.h) { p->legend_above = 1; p->legend_cols = cols; }
        else continue;
        moved = 1;
      }
    }
    if (!moved) break;
  }
  for (int i = 0; i < n; i++)
    if (f->panels[i].has_legend) dlbp_layout_add_box(f, f->panels[i].legend_box, i, "legend");
  dlbp_layout_check(f);
  f->laid_out = 1;
  return DLB_OK;
}

/* A Cairo context on a recording surface, for measuring text; NULL on failure. */
static cairo_t *measuring_context(cairo_surface_t **sf) {
  *sf = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
  if (cairo_surface_status(*sf) != CAIRO_STATUS_SUCCESS) return NULL;
  cairo_t *cr = cairo_create(*sf);
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) { cairo_destroy(cr); return NULL; }
  dlbp_text_setup(cr);
  return cr;
}

/* Lay the figure out (limits, ticks, margins, legends, overlap check). */
int dlb_figure_layout(dlb_figure *f) {
  if (!f) return dlb_fail(DLB_EINVAL, "layout: no figure");
  cairo_surface_t *sf;
  cairo_t *cr = measuring_context(&sf);
  if (!cr) {
    cairo_surface_destroy(sf);
    return dlb_fail(DLB_ENOMEM, "layout: cannot create a Cairo context");
  }
  int st = dlbp_layout_run(f, cr);
  cairo_destroy(cr);
  cairo_surface_destroy(sf);
  return st;
}

/* Where data (x, y) of a panel lands, in points from the top left. */
int dlb_panel_to_point(dlb_figure *f, int pi, double x, double y, double *px, double *py) {
  if (!f || !px || !py) return dlb_fail(DLB_EINVAL, "to_point: no figure");
  if (pi < 0 || pi >= f->rows * f->cols)
    return dlb_fail(DLB_EINVAL, "to_point: no panel %d", pi + 1);
  if (!f->laid_out) {
    int st = dlb_figure_layout(f);
    if (st) return st;
  }
  *px = dlbp_panel_px(&f->panels[pi], x);
  *py = dlbp_panel_py(&f->panels[pi], y);
  return DLB_OK;
}

/* Axis ax (0 x, 1 y, 2 colour bar) of panel pi after layout, or NULL. */
static axis *tick_axis(dlb_figure *f, int pi, int ax) {
  if (!f || pi < 0 || pi >= f->rows * f->cols || ax < 0 || ax > 2) {
    dlb_fail(DLB_EINVAL, "ticks: no panel %d or axis %d", pi + 1, ax);
    return NULL;
  }
  if (!f->laid_out && dlb_figure_layout(f) != DLB_OK) return NULL;
  panel *p = &f->panels[pi];
  return ax == 2 ? &p->cbar_axis : &p->ax[ax];
}

/* How many labelled ticks an axis has after layout. */
int dlb_panel_tick_count(dlb_figure *f, int pi, int ax, int *count) {
  axis *a = tick_axis(f, pi, ax);
  if (!a || !count) return dlb_last_status() ? dlb_last_status() : DLB_EINVAL;
  *count = ax == 2 && f->panels[pi].cbar_series < 0 ? 0 : a->nticks;
  return DLB_OK;
}

/* Tick i of an axis: its value and label. */
int dlb_panel_tick(dlb_figure *f, int pi, int ax, int i, double *value, char *buf, size_t size) {
  axis *a = tick_axis(f, pi, ax);
  if (!a || !value || !buf || !size) return dlb_last_status() ? dlb_last_status() : DLB_EINVAL;
  if (i < 0 || i >= a->nticks) return dlb_fail(DLB_EINVAL, "ticks: no tick %d", i + 1);
  *value = a->ticks[i];
  snprintf(buf, size, "%s", a->tlabels[i]);
  return DLB_OK;
}
