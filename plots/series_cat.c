/*
** series_cat.c — series over a categorical x axis (positions 1..n): bars (stacked or
** grouped, negative values hang below zero), heat maps (cells coloured through a map,
** masked cells white or hatched, optional cell labels) and box plots (percentile boxes
** and whiskers, ParaDnn's 2/9/50/91/98 by default, or Tukey's 1.5 IQR; outliers as dots).
** Each kind's methods together (checks, default labels, categories, extent, legend, what
** it covers, drawing) and its method table (plot_internal.h).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* qsort order of doubles. */
static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Percentile p of sorted v[n] by linear interpolation between closest ranks (rank
** p/100 * (n-1), as numpy's default and dlb.stats.percentile). */
static double pct(const double *v, size_t n, double p) {
  double r = p / 100 * (double)(n - 1);
  size_t k = (size_t)floor(r);
  if (k + 1 >= n) return v[n - 1];
  return v[k] + (r - (double)k) * (v[k + 1] - v[k]);
}

/* Box statistics of sorted finite v[n]: out = whisker low, box low, median, box high,
** whisker high. pct = {lo, box_lo, box_hi, hi}; tukey: box at the quartiles, whiskers at
** the furthest values within 1.5 IQR of them (Tukey 1977). Returns 0 when n == 0. */
int dlbp_box_stats(const double *v, size_t n, const double q[4], int tukey, double out[5]) {
  if (n == 0) return 0;
  out[2] = pct(v, n, 50);
  if (tukey) {
    out[1] = pct(v, n, 25);
    out[3] = pct(v, n, 75);
    double iqr = out[3] - out[1];
    size_t a = 0, b = n - 1;
    while (a < n && v[a] < out[1] - 1.5 * iqr) a++;
    while (b > 0 && v[b] > out[3] + 1.5 * iqr) b--;
    out[0] = v[a];
    out[4] = v[b];
  } else {
    out[0] = pct(v, n, q[0]);
    out[1] = pct(v, n, q[1]);
    out[3] = pct(v, n, q[2]);
    out[4] = pct(v, n, q[3]);
  }
  return 1;
}

/* Sorted finite values of box group g; *n values, *start its first index. Caller frees. */
static double *group_sorted(series *s, size_t g, size_t *n) {
  darray *d = dlbp_series_data(s, "values"), *sz = dlbp_series_data(s, "sizes");
  size_t start = 0, len = d->n;
  if (sz) {
    for (size_t i = 0; i < g; i++) start += (size_t)sz->v[i];
    len = (size_t)sz->v[g];
  }
  double *v = dlb_malloc((len ? len : 1) * sizeof *v);
  *n = 0;
  if (!v) return NULL;
  for (size_t i = 0; i < len; i++)
    if (isfinite(d->v[start + i])) v[(*n)++] = d->v[start + i];
  qsort(v, *n, sizeof *v, cmpd);
  return v;
}

/* Number of box groups. */
static size_t ngroups(series *s) {
  darray *sz = dlbp_series_data(s, "sizes");
  return sz ? sz->n : 1;
}

/* The box plot percentiles: whisker low, box low, box high, whisker high. */
static void box_q(const series *s, double q[4]) {
  q[0] = dlbp_series_num(s, "lo", 2); q[1] = dlbp_series_num(s, "box_lo", 9);
  q[2] = dlbp_series_num(s, "box_hi", 91); q[3] = dlbp_series_num(s, "hi", 98);
}

/* Bar geometry: number of labels n and stacks k. */
static void bar_shape(series *s, size_t *n, size_t *k) {
  darray *d = dlbp_series_data(s, "values");
  slist *l = dlbp_series_strs(s, "labels");
  *n = l ? l->n : d->n;
  *k = d->n / *n;
}

static int grouped(series *s) { return strcmp(dlbp_series_str(s, "mode", "stacked"), "grouped") == 0; }

/* A heat map's limits come from its categories: every edge sticky. */
static void heatmap_extent(const dlb_figure *f, series *s, extent *e) {
  (void)f; (void)s;
  e->sticky_lo[0] = e->sticky_hi[0] = e->sticky_lo[1] = e->sticky_hi[1] = 1;
}

/* Bars: the stacked sums (or grouped extremes) each way, 0 sticky on a linear axis. */
static void bar_extent(const dlb_figure *f, series *s, extent *e) {
  const axis *ay = &f->panels[s->panel].ax[1];
  darray *d = dlbp_series_data(s, "values");
  size_t n, k;
  bar_shape(s, &n, &k);
  for (size_t i = 0; i < n; i++) {
    double pos = 0, neg = 0;
    for (size_t j = 0; j < k; j++) {
      double v = d->v[j * n + i];
      if (!isfinite(v)) continue;
      if (grouped(s)) { pos = fmax(pos, v); neg = fmin(neg, v); }
      else if (v >= 0) pos += v; else neg += v;
    }
    dlbp_extent_add(e, 1, pos, ay);
    dlbp_extent_add(e, 1, neg, ay);
  }
  if (ay->scale != DLB_SCALE_LOG) {
    if (e->lo[1] >= 0) e->sticky_lo[1] = 1;
    if (e->hi[1] <= 0) e->sticky_hi[1] = 1;
  }
}

/* Boxes: the whiskers, or the outliers when they are drawn. */
static void box_extent(const dlb_figure *f, series *s, extent *e) {
  const axis *ay = &f->panels[s->panel].ax[1];
  int outliers = dlbp_series_num(s, "outliers", 1) != 0, tukey = dlbp_series_num(s, "tukey", 0) != 0;
  double q[4];
  box_q(s, q);
  for (size_t g = 0; g < ngroups(s); g++) {
    size_t n;
    double st[5], *v = group_sorted(s, g, &n);
    if (v && dlbp_box_stats(v, n, q, tukey, st)) {
      dlbp_extent_add(e, 1, outliers ? v[0] : st[0], ay);
      dlbp_extent_add(e, 1, outliers ? v[n - 1] : st[4], ay);
    }
    dlb_free(v);
  }
}

/* Bars: stacked (positive up, negative down) or grouped, with a zero line. */
static void draw_bar(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  darray *d = dlbp_series_data(s, "values");
  size_t n, k;
  bar_shape(s, &n, &k);
  double width = dlbp_series_num(s, "width", 0.8), base = p->ax[1].scale == DLB_SCALE_LOG
                                                     ? p->ax[1].lo : 0;
  int grp = grouped(s);
  for (size_t i = 0; i < n; i++) {
    double pos = base, neg = base;
    for (size_t j = 0; j < k; j++) {
      double v = d->v[j * n + i], rgb[3];
      if (!isfinite(v)) continue;
      if (k == 1) dlbp_series_colour(s, rgb); else dlb_palette((int)j, rgb);
      double x0 = (double)(i + 1) - width / 2, x1 = x0 + width, y0, y1;
      if (grp) { x0 += width * (double)j / k; x1 = x0 + width / k; y0 = base; y1 = v; }
      else if (v >= 0) { y0 = pos; y1 = pos + v; pos = y1; }
      else { y0 = neg; y1 = neg + v; neg = y1; }
      double px0 = dlbp_panel_px(p, x0), px1 = dlbp_panel_px(p, x1);
      double py0 = dlbp_panel_py(p, y0), py1 = dlbp_panel_py(p, y1);
      cairo_rectangle(cr, px0, fmin(py0, py1), px1 - px0, fabs(py1 - py0));
      cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
      cairo_fill_preserve(cr);
      cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
      cairo_set_line_width(cr, 0.4);
      cairo_stroke(cr);
    }
  }
  if (p->ax[1].lo < 0 && p->ax[1].hi > 0) { /* the zero line for signed bars */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.6);
    cairo_move_to(cr, p->box.x, dlbp_panel_py(p, 0));
    cairo_line_to(cr, p->box.x + p->box.w, dlbp_panel_py(p, 0));
    cairo_stroke(cr);
  }
}

/* A white cell with diagonal grey hatching (masked cells). */
static void hatch(cairo_t *cr, rect r) {
  cairo_save(cr);
  cairo_rectangle(cr, r.x, r.y, r.w, r.h);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_fill_preserve(cr);
  cairo_clip(cr);
  cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
  cairo_set_line_width(cr, 0.5);
  /* lines x + y = c on a page-wide 3 pt grid, so neighbouring cells continue each other */
  for (double c = floor((r.x + r.y) / 3) * 3; c <= r.x + r.w + r.y + r.h + 3; c += 3) {
    cairo_move_to(cr, c - (r.y + r.h), r.y + r.h);
    cairo_line_to(cr, c - r.y + 0.0, r.y);
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

/* Is fmt a safe printf format for one double: one %[flags][width][.prec](e|f|g)? */
static int safe_fmt(const char *fmt) {
  int conv = 0;
  for (const char *p = fmt; *p; p++) {
    if (*p != '%') continue;
    if (p[1] == '%') { p++; continue; }
    p++;
    while (*p && strchr("-+ #0", *p)) p++;
    while (*p >= '0' && *p <= '9') p++;
    if (*p == '.') { p++; while (*p >= '0' && *p <= '9') p++; }
    if (!*p || !strchr("efgEG", *p)) return 0;
    conv++;
  }
  return conv == 1;
}

int dlbp_plot_safe_fmt(const char *fmt) { return safe_fmt(fmt); }

/* A cell label without a format: two significant digits for small values (0.47, 2.3,
** 12), SI style from 1000 on (1234, 12.35k), exponents below 0.01. */
static void cell_text(double v, char *buf, size_t size) {
  char two[32]; /* round to two significant digits first: 0.0999 is 0.10, 9.99 is 10 */
  snprintf(two, sizeof two, "%.2g", v);
  v = strtod(two, NULL);
  double a = fabs(v);
  if (a == 0) snprintf(buf, size, "0");
  else if (a >= 1000) dlbp_format_tick(v, 0, "auto", buf, size);
  else if (a < 0.01) snprintf(buf, size, "%.1e", v);
  else {
    int d = 1 - (int)floor(log10(a));
    snprintf(buf, size, "%.*f", d < 0 ? 0 : d > 3 ? 3 : d, v);
  }
  size_t n = strlen(buf);
  if (buf[0] == '-' && n + 3 <= size) { /* a real minus sign, as on the axes */
    memmove(buf + 3, buf + 1, n);
    memcpy(buf, "\xe2\x88\x92", 3);
  }
}

/* Heat-map cells through the colour map, masked cells white or hatched, labels
** in black or white by the cell's lightness. */
static void draw_heatmap(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  darray *z = dlbp_series_data(s, "z"), *m = dlbp_series_data(s, "mask");
  size_t nx = p->ax[0].ncats, ny = p->ax[1].ncats;
  if (nx * ny != z->n) return; /* another series owns the categories */
  int cmap = dlbp_cmap_from_name(dlbp_series_str(s, "cmap", "viridis"));
  int hatched = strcmp(dlbp_series_str(s, "mask_style", "white"), "hatch") == 0;
  double vmin, vmax, center;
  dlbp_cmap_norm(s, &vmin, &vmax, &center);
  int labels = dlbp_series_num(s, "cell_labels", 0) != 0;
  const char *fmt = dlbp_series_str(s, "fmt", NULL);
  double lsize = dlbp_series_num(s, "label_size", f->font * 0.75);
  for (size_t j = 0; j < ny; j++)
    for (size_t i = 0; i < nx; i++) {
      double v = z->v[j * nx + i], rgb[3];
      int masked = (m && m->v[j * nx + i] != 0) || !isfinite(v);
      double x0 = dlbp_panel_px(p, (double)i + 0.5), x1 = dlbp_panel_px(p, (double)i + 1.5);
      double y0 = dlbp_panel_py(p, (double)j + 1.5), y1 = dlbp_panel_py(p, (double)j + 0.5);
      rect r = {x0, y0, x1 - x0, y1 - y0};
      if (masked && hatched) { hatch(cr, r); continue; }
      dlbp_cmap_rgb(cmap, masked ? NAN : dlbp_cmap_t(dlbp_cmap_value(s, v), vmin, vmax, center), rgb);
      cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
      /* reaching into the next column and the row above (drawn later, over it), so
      ** antialiased edges leave no light seams between cells */
      cairo_rectangle(cr, r.x, r.y - 0.6, r.w + 0.6, r.h + 0.6);
      cairo_fill(cr);
      if (!labels || masked) continue;
      char buf[64];
      if (fmt) snprintf(buf, sizeof buf, fmt, v);
      else cell_text(v, buf, sizeof buf);
      double lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2], w, h, sz = lsize;
      for (dlbp_text_extent(cr, buf, sz, 0, &w, &h); sz > 4 && (w > r.w - 2 || h > r.h);
           dlbp_text_extent(cr, buf, sz, 0, &w, &h)) sz *= 0.9;
      if (w > r.w - 1 || h > r.h + 1) continue; /* no room: leave the colour to speak */
      double g = lum > 0.45 ? 0 : 1;
      cairo_set_source_rgb(cr, g, g, g);
      dlbp_text_draw(cr, buf, sz, 0, r.x + r.w / 2, r.y + r.h / 2, 0.5, 0.5, 0, NULL);
    }
}

/* The colour of a box's median line on fill rgb: black, or white on dark fills. */
void dlbp_box_median_rgb(const double rgb[3], double out[3]) {
  double l = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
  double c = l > 0.45 ? 0 : 1;
  out[0] = out[1] = out[2] = c;
}

/* Box plots: box, median, whiskers with caps, outliers as dots. */
static void draw_box(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  double q[4], width = dlbp_series_num(s, "width", 0.6);
  box_q(s, q);
  int tukey = dlbp_series_num(s, "tukey", 0) != 0, outliers = dlbp_series_num(s, "outliers", 1) != 0;
  for (size_t g = 0; g < ngroups(s); g++) {
    size_t n;
    double st[5], rgb[3], *v = group_sorted(s, g, &n);
    if (!v || !dlbp_box_stats(v, n, q, tukey, st)) { dlb_free(v); continue; }
    const char *c = dlbp_series_str(s, "color", NULL);
    if (!c || !dlbp_colour_parse(c, rgb)) dlb_palette((int)g, rgb);
    double cx = dlbp_panel_px(p, (double)g + 1), hw = (dlbp_panel_px(p, 1 + width / 2) - dlbp_panel_px(p, 1));
    double y[5];
    for (int i = 0; i < 5; i++) y[i] = dlbp_panel_py(p, st[i]);
    cairo_set_line_width(cr, 0.7);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_move_to(cr, cx, y[0]); cairo_line_to(cr, cx, y[1]);    /* whiskers */
    cairo_move_to(cr, cx, y[3]); cairo_line_to(cr, cx, y[4]);
    cairo_move_to(cr, cx - hw / 2, y[0]); cairo_line_to(cr, cx + hw / 2, y[0]);
    cairo_move_to(cr, cx - hw / 2, y[4]); cairo_line_to(cr, cx + hw / 2, y[4]);
    cairo_stroke(cr);
    cairo_rectangle(cr, cx - hw, y[3], 2 * hw, y[1] - y[3]);
    cairo_set_source_rgb(cr, 0.35 + 0.65 * rgb[0], 0.35 + 0.65 * rgb[1], 0.35 + 0.65 * rgb[2]);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_stroke(cr);
    /* the median in the colour that contrasts with this fill: black on light fills,
    ** white on dark ones (relative luminance, ITU-R BT.709 weights, threshold 0.45) */
    double med[3];
    dlbp_box_median_rgb(rgb, med);
    cairo_set_line_width(cr, 1.5);
    cairo_move_to(cr, cx - hw, y[2]); cairo_line_to(cr, cx + hw, y[2]);
    cairo_set_source_rgb(cr, med[0], med[1], med[2]);
    cairo_stroke(cr);
    if (outliers) {
      cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
      for (size_t i = 0; i < n; i++) {
        if (v[i] >= st[0] && v[i] <= st[4]) continue;
        cairo_new_sub_path(cr);
        cairo_arc(cr, cx, dlbp_panel_py(p, v[i]), 0.9, 0, 2 * M_PI);
      }
      cairo_fill(cr);
    }
    dlb_free(v);
  }
}

/* ---- what the kinds cover, for the legend's place ---- */

/* The column a bar or box draws over category g (0-based): *lo..*hi in data units; 0 past
** the series' last category. */
typedef int (*column_fn)(const panel *p, series *s, size_t g, double *lo, double *hi);

/* Bars: the stacked sums each way (from the axis bottom on a log axis). */
static int bar_column(const panel *p, series *s, size_t g, double *lo, double *hi) {
  darray *d = dlbp_series_data(s, "values");
  size_t n, k;
  bar_shape(s, &n, &k);
  if (g >= n) return 0;
  for (size_t j = 0; j < k; j++) {
    double v = d->v[j * n + g];
    if (isfinite(v)) { if (v > 0) *hi += v; else *lo += v; }
  }
  if (p->ax[1].scale == DLB_SCALE_LOG) *lo = p->ax[1].lo;
  return 1;
}

/* Boxes: the group's smallest to largest value. */
static int box_column(const panel *p, series *s, size_t g, double *lo, double *hi) {
  (void)p;
  size_t n;
  double st[5], q[4], *v;
  if (g >= ngroups(s)) return 0;
  box_q(s, q);
  v = group_sorted(s, g, &n);
  if (v && dlbp_box_stats(v, n, q, 0, st)) { *lo = v[0]; *hi = v[n - 1]; }
  dlb_free(v);
  return 1;
}

/* Mark each category's column over its data range (at most 256 columns). */
static void occupy_columns(const dlb_figure *f, series *s, occgrid *gr, column_fn column) {
  const panel *p = &f->panels[s->panel];
  for (size_t g = 0; g < p->ax[0].ncats && g < 256; g++) {
    double x0 = dlbp_panel_px(p, (double)g + 0.6), x1 = dlbp_panel_px(p, (double)g + 1.4);
    double lo = 0, hi = 0;
    if (!column(p, s, g, &lo, &hi)) break;
    double y0 = dlbp_panel_py(p, hi), y1 = dlbp_panel_py(p, lo);
    dlbp_occ_rect(gr, (rect){fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0)}, 1);
  }
}

/* Bars cover their columns. */
static void bar_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  occupy_columns(f, s, gr, bar_column);
}

/* Boxes cover their columns. */
static void box_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  occupy_columns(f, s, gr, box_column);
}

/* A heat map covers its whole axes. */
static void heatmap_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  dlbp_occ_rect(gr, f->panels[s->panel].box, 1);
}

/* ---- legends ---- */

/* The one entry of a labelled bar or box series: a patch in the series colour. */
static int patch_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  (void)f; (void)cap;
  const char *label = dlbp_series_str(s, "label", "");
  if (!label[0]) return 0;
  memset(out, 0, sizeof *out);
  dlbp_text_copy(out->label, sizeof out->label, label);
  out->kind = LEG_PATCH;
  dlbp_series_colour(s, out->rgb);
  return 1;
}

/* Bars: one patch per named stack, else the label's. */
static int bar_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  slist *st = dlbp_series_strs(s, "stacks");
  int n = 0;
  if (!st) return patch_legend(f, s, out, cap);
  for (size_t j = 0; j < st->n && n < cap; j++, n++) {
    memset(&out[n], 0, sizeof out[n]);
    dlbp_text_copy(out[n].label, sizeof out[n].label, st->s[j]);
    out[n].kind = LEG_PATCH;
    dlb_palette((int)j, out[n].rgb);
  }
  return n;
}

/* A heat map: the masked cells' entry (white or hatched) when any cell is masked. */
static int heatmap_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  (void)f; (void)cap;
  darray *m = dlbp_series_data(s, "mask");
  const char *ml = dlbp_series_str(s, "mask_label", "");
  int any = 0;
  if (m) for (size_t i = 0; i < m->n; i++) any |= m->v[i] != 0;
  if (!ml[0] || !any) return 0;
  memset(out, 0, sizeof *out);
  dlbp_text_copy(out->label, sizeof out->label, ml);
  out->kind = strcmp(dlbp_series_str(s, "mask_style", "white"), "hatch") ? LEG_WHITE : LEG_HATCH;
  return 1;
}

/* ---- checks at commit, categories ---- */

/* Bars: the values fill the labels (one per label, or one per label and stack). */
static int bar_validate(series *s, size_t *skipped, size_t *total) {
  darray *d = NULL;
  int st;
  if ((st = dlbp_series_need(s, "values", &d))) return st;
  slist *l = dlbp_series_strs(s, "labels");
  size_t n = l ? l->n : d->n;
  if (n == 0 || d->n % n)
    return dlb_fail(DLB_EINVAL, "bar: %zu values do not fill %zu labels (one value per "
                    "label, or one per label and stack)", d->n, n);
  slist *k = dlbp_series_strs(s, "stacks");
  if (k && k->n != d->n / n)
    return dlb_fail(DLB_EINVAL, "bar: %zu stack names but %zu stacks of values", k->n,
                    d->n / n);
  *skipped = dlbp_nonfinite(d);
  *total = d->n;
  return DLB_OK;
}

/* A heat map: z fills nx x ny cells, the labels and mask match them. */
static int heatmap_validate(series *s, size_t *skipped, size_t *total) {
  darray *d = NULL;
  int st;
  if ((st = dlbp_series_need(s, "z", &d))) return st;
  slist *xl = dlbp_series_strs(s, "xlabels"), *yl = dlbp_series_strs(s, "ylabels");
  darray *xv = dlbp_series_data(s, "x"), *yv = dlbp_series_data(s, "y");
  double nx = dlbp_series_num(s, "nx", xl ? (double)xl->n : xv ? (double)xv->n : 0);
  double ny = dlbp_series_num(s, "ny", yl ? (double)yl->n : yv ? (double)yv->n : 0);
  if (nx < 1 || ny < 1 || nx * ny != (double)d->n)
    return dlb_fail(DLB_EINVAL, "heatmap: z has %zu values but the axes have %g x %g cells",
                    d->n, nx, ny);
  if ((xl && xl->n != nx) || (xv && xv->n != nx) || (yl && yl->n != ny) ||
      (yv && yv->n != ny))
    return dlb_fail(DLB_EINVAL, "heatmap: the x/y labels do not match %g x %g cells", nx, ny);
  darray *m = dlbp_series_data(s, "mask");
  if (m && m->n != d->n)
    return dlb_fail(DLB_EINVAL, "heatmap: mask has %zu values but z has %zu", m->n, d->n);
  for (size_t i = 0; i < d->n; i++)
    *skipped += !isfinite(d->v[i]) && !(m && m->v[i] != 0); /* a masked cell is drawn */
  *total = d->n;
  return DLB_OK;
}

/* Boxes: whole non-empty groups adding up to the values, a label per group, ordered
** percentiles. */
static int box_validate(series *s, size_t *skipped, size_t *total) {
  darray *d = NULL;
  int st;
  if ((st = dlbp_series_need(s, "values", &d))) return st;
  darray *sz = dlbp_series_data(s, "sizes");
  double tot = 0;
  if (sz) for (size_t i = 0; i < sz->n; i++) {
    if (!(sz->v[i] >= 1) || sz->v[i] != floor(sz->v[i]))
      return dlb_fail(DLB_EINVAL, "box: group %zu is empty", i + 1);
    tot += sz->v[i];
  }
  if (sz && tot != (double)d->n)
    return dlb_fail(DLB_EINVAL, "box: group sizes add to %g but there are %zu values", tot,
                    d->n);
  slist *l = dlbp_series_strs(s, "labels");
  size_t ng = sz ? sz->n : 1;
  if (l && l->n != ng)
    return dlb_fail(DLB_EINVAL, "box: %zu labels for %zu groups", l->n, ng);
  double q[4] = {dlbp_series_num(s, "lo", 2), dlbp_series_num(s, "box_lo", 9),
                 dlbp_series_num(s, "box_hi", 91), dlbp_series_num(s, "hi", 98)};
  if (!(0 <= q[0] && q[0] <= q[1] && q[1] <= 50 && 50 <= q[2] && q[2] <= q[3] && q[3] <= 100))
    return dlb_fail(DLB_EINVAL, "box: percentiles must satisfy 0 <= lo <= box_lo <= 50 <= "
                    "box_hi <= hi <= 100 (got %g %g %g %g)", q[0], q[1], q[2], q[3]);
  *skipped = dlbp_nonfinite(d);
  *total = d->n;
  return DLB_OK;
}

/* Bars and boxes put categories on x, which cannot be log. */
static int cat_logcheck(const series *s, int axn) {
  if (axn == 0)
    return dlb_fail(DLB_EINVAL, "panel %d: a %s has a categorical x axis, which cannot be "
                    "log", s->panel + 1, dlbp_kind_name(s->kind));
  return DLB_OK;
}

/* A heat map's both axes are categorical. */
static int heatmap_logcheck(const series *s, int axn) {
  if (axn == 1)
    return dlb_fail(DLB_EINVAL, "panel %d: a heatmap's y axis is categorical, not log",
                    s->panel + 1);
  return cat_logcheck(s, axn);
}

/* Labels 1..n for the n categories of an unlabelled bar or box series. */
static int number_labels(dlb_figure *f, int id, size_t n) {
  char buf[32];
  int st = DLB_OK;
  for (size_t i = 0; st == DLB_OK && i < n; i++) {
    snprintf(buf, sizeof buf, "%zu", i + 1);
    st = dlb_series_addstr(f, id, "labels", buf);
  }
  return st;
}

/* Unlabelled bars get 1..n, one per value. */
static int bar_defaults(dlb_figure *f, int id) {
  series *s = &f->series[id];
  if (dlbp_series_strs(s, "labels")) return DLB_OK;
  return number_labels(f, id, dlbp_series_data(s, "values")->n);
}

/* Unlabelled boxes get 1..n, one per group. */
static int box_defaults(dlb_figure *f, int id) {
  series *s = &f->series[id];
  if (dlbp_series_strs(s, "labels")) return DLB_OK;
  return number_labels(f, id, ngroups(s));
}

/* A heat map's numeric axes get their values as labels (SI style), else 1..n. */
static int heatmap_defaults(dlb_figure *f, int id) {
  series *s = &f->series[id];
  char buf[32];
  int st = DLB_OK;
  static const char *const ax[2][2] = {{"x", "xlabels"}, {"y", "ylabels"}};
  for (int k = 0; k < 2; k++) {
    if (dlbp_series_strs(s, ax[k][1])) continue;
    darray *d = dlbp_series_data(s, ax[k][0]);
    double n = d ? (double)d->n : dlbp_series_num(s, k ? "ny" : "nx", 0);
    for (size_t i = 0; st == DLB_OK && i < (size_t)n; i++) {
      if (d) dlbp_format_tick(d->v[i], 0, "auto", buf, sizeof buf);
      else snprintf(buf, sizeof buf, "%zu", i + 1);
      st = dlb_series_addstr(f, id, ax[k][1], buf);
    }
  }
  return st;
}

/* Bars and boxes: their labels on x (always there after commit). */
static slist *cat_cats(series *s, int axn) {
  return axn == 0 ? dlbp_series_strs(s, "labels") : NULL;
}

/* A heat map: its labels on both axes. */
static slist *heatmap_cats(series *s, int axn) {
  return dlbp_series_strs(s, axn ? "ylabels" : "xlabels");
}

/* Bars of one stack take the next palette colour (stacks take the palette's first ones). */
static int bar_palette(series *s) { return !dlbp_series_strs(s, "stacks"); }

const series_methods dlbp_bar_methods = {
  .name = "bar", .names = {"values", "labels stacks", "label color mode", "width"},
  .layer = LAYER_MARK,
  .validate = bar_validate, .items = "values", .logcheck = cat_logcheck, .defaults = bar_defaults,
  .palette = bar_palette, .cats = cat_cats, .extent = bar_extent, .legend = bar_legend,
  .occupy = bar_occupy, .draw = draw_bar,
};

const series_methods dlbp_heatmap_methods = {
  .name = "heatmap", .names = {"z mask x y", "xlabels ylabels",
                               "cmap fmt mask_style mask_label colorbar_label norm",
                               "nx ny vmin vmax center cell_labels colorbar label_size "
                               "share_colors"},
  .layer = LAYER_AREA, .colorbar = 1, .cvalues = "z", .fills_axes = 1,
  .validate = heatmap_validate, .items = "cells", .logcheck = heatmap_logcheck, .defaults = heatmap_defaults,
  .cats = heatmap_cats, .extent = heatmap_extent, .legend = heatmap_legend,
  .occupy = heatmap_occupy, .draw = draw_heatmap,
};

const series_methods dlbp_box_methods = {
  .name = "box", .names = {"values sizes", "labels", "color",
                           "lo hi box_lo box_hi tukey width outliers"},
  .layer = LAYER_MARK,
  .validate = box_validate, .items = "values", .logcheck = cat_logcheck, .defaults = box_defaults,
  .cats = cat_cats, .extent = box_extent, .legend = patch_legend, .occupy = box_occupy,
  .draw = draw_box,
};
