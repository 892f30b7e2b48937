/*
** cmap.c — colour maps as control points (linear interpolation, clamping, a NaN guard),
** the categorical palette, and colour names.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* 17 control points per map at t = k/16, sampled from matplotlib 3.6's viridis, magma,
** cividis and RdBu_r (the diverging map: blue below the centre, white at it, red above).
** Interpolating these stays within ~1/255 of matplotlib's 256-entry tables. */
static const double maps[DLB_CMAP_COUNT][17][3] = {
  {{0.2670, 0.0049, 0.3294}, {0.2823, 0.0950, 0.4173}, {0.2788, 0.1755, 0.4834},
   {0.2590, 0.2515, 0.5247}, {0.2297, 0.3224, 0.5457}, {0.1994, 0.3876, 0.5546},
   {0.1727, 0.4488, 0.5579}, {0.1490, 0.5081, 0.5573}, {0.1276, 0.5669, 0.5506},
   {0.1206, 0.6258, 0.5335}, {0.1579, 0.6838, 0.5017}, {0.2461, 0.7389, 0.4520},
   {0.3692, 0.7889, 0.3829}, {0.5160, 0.8312, 0.2943}, {0.6785, 0.8637, 0.1895},
   {0.8456, 0.8873, 0.0997}, {0.9932, 0.9062, 0.1439}},
  {{0.0015, 0.0005, 0.0139}, {0.0396, 0.0311, 0.1335}, {0.1131, 0.0655, 0.2768},
   {0.2117, 0.0620, 0.4186}, {0.3167, 0.0717, 0.4854}, {0.4147, 0.1104, 0.5047},
   {0.5128, 0.1482, 0.5076}, {0.6136, 0.1818, 0.4985}, {0.7164, 0.2150, 0.4753},
   {0.8169, 0.2559, 0.4365}, {0.9043, 0.3196, 0.3881}, {0.9609, 0.4183, 0.3596},
   {0.9867, 0.5356, 0.3822}, {0.9961, 0.6537, 0.4462}, {0.9969, 0.7696, 0.5349},
   {0.9924, 0.8843, 0.6401}, {0.9871, 0.9914, 0.7495}},
  {{0.0000, 0.1351, 0.3048}, {0.0000, 0.1788, 0.4148}, {0.1034, 0.2204, 0.4358},
   {0.1951, 0.2644, 0.4259}, {0.2637, 0.3078, 0.4228}, {0.3242, 0.3513, 0.4263},
   {0.3808, 0.3952, 0.4357}, {0.4352, 0.4398, 0.4511}, {0.4887, 0.4853, 0.4710},
   {0.5478, 0.5319, 0.4717}, {0.6091, 0.5798, 0.4636}, {0.6720, 0.6293, 0.4480},
   {0.7365, 0.6806, 0.4240}, {0.8027, 0.7340, 0.3902}, {0.8707, 0.7896, 0.3433},
   {0.9411, 0.8475, 0.2758}, {0.9957, 0.9093, 0.2178}},
  {{0.0196, 0.1882, 0.3804}, {0.0885, 0.3211, 0.5649}, {0.1634, 0.4450, 0.6975},
   {0.2471, 0.5557, 0.7541}, {0.4207, 0.6764, 0.8187}, {0.6065, 0.7898, 0.8803},
   {0.7615, 0.8685, 0.9246}, {0.8780, 0.9257, 0.9519}, {0.9691, 0.9665, 0.9649},
   {0.9839, 0.8976, 0.8468}, {0.9825, 0.8007, 0.7061}, {0.9603, 0.6678, 0.5363},
   {0.8946, 0.5038, 0.3998}, {0.8171, 0.3322, 0.2810}, {0.7285, 0.1550, 0.1974},
   {0.5769, 0.0554, 0.1493}, {0.4039, 0.0000, 0.1216}},
  {{0}}, /* grey: computed, black to white */
};

static const char *const names[DLB_CMAP_COUNT] = {"viridis", "magma", "cividis", "diverging",
                                                  "grey"};

/* The map index of a name ("gray" too), or -1. */
int dlbp_cmap_from_name(const char *name) {
  if (!name) return -1;
  if (strcmp(name, "gray") == 0) return DLB_CMAP_GREY;
  for (int i = 0; i < DLB_CMAP_COUNT; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

/* Colour of map `cmap` at t: clamped to [0, 1]; NaN gives white (the masked colour). */
void dlbp_cmap_rgb(int cmap, double t, double rgb[3]) {
  if (isnan(t) || cmap < 0 || cmap >= DLB_CMAP_COUNT) {
    rgb[0] = rgb[1] = rgb[2] = 1;
    return;
  }
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  if (cmap == DLB_CMAP_GREY) {
    rgb[0] = rgb[1] = rgb[2] = 0.08 + 0.84 * t; /* not quite black or white: cells stay
                                                    visible against the page and the text */
    return;
  }
  double u = t * 16;
  int k = (int)floor(u);
  if (k >= 16) k = 15;
  double w = u - k;
  for (int c = 0; c < 3; c++)
    rgb[c] = maps[cmap][k][c] * (1 - w) + maps[cmap][k + 1][c] * w;
}

/* The map of a name into *cmap; DLB_EINVAL listing the names otherwise. */
int dlb_cmap_lookup(const char *name, int *cmap) {
  int c = dlbp_cmap_from_name(name);
  if (c < 0 || !cmap)
    return dlb_fail(DLB_EINVAL, "unknown colour map '%s' (valid: viridis magma cividis "
                    "diverging grey)", name ? name : "(null)");
  *cmap = c;
  return DLB_OK;
}

/* Colour of map cmap at t (clamped; NaN gives white) into rgb[3]. */
int dlb_cmap_eval(int cmap, double t, double *rgb) {
  if (cmap < 0 || cmap >= DLB_CMAP_COUNT || !rgb)
    return dlb_fail(DLB_EINVAL, "cmap_eval: unknown colour map %d", cmap);
  dlbp_cmap_rgb(cmap, t, rgb);
  return DLB_OK;
}

/* The categorical palette: Paul Tol's medium/high-contrast colours, ordered so that
** neighbours differ in lightness and the series stay apart when printed in grey
** (relative luminance of the first four: 0.06, 0.44, 0.18, 0.30). */
static const unsigned palette[8] = {0x004488, 0xDDAA33, 0xBB5566, 0x6699CC,
                                    0x997700, 0xEE99AA, 0x994455, 0x555555};

/* Colour i of the categorical palette (cycling) into rgb[3]. */
void dlb_palette(int i, double *rgb) {
  if (!rgb) return;
  /* |i| in unsigned arithmetic: -INT_MIN overflows an int */
  unsigned u = i < 0 ? 0u - (unsigned)i : (unsigned)i;
  unsigned c = palette[u % 8];
  rgb[0] = ((c >> 16) & 255) / 255.0;
  rgb[1] = ((c >> 8) & 255) / 255.0;
  rgb[2] = (c & 255) / 255.0;
}

static const struct { const char *name; unsigned rgb; } named[] = {
  {"black", 0x000000}, {"white", 0xffffff}, {"grey", 0x808080}, {"gray", 0x808080},
  {"lightgrey", 0xd0d0d0}, {"darkgrey", 0x404040}, {"red", 0xcc3311}, {"blue", 0x0077bb},
  {"green", 0x228833}, {"orange", 0xee7733}, {"purple", 0xaa3377}, {NULL, 0}
};

/* Parse "#rrggbb", "#rgb", a colour name or "C1".."C8" (the palette); 1 on success. */
int dlbp_colour_parse(const char *text, double rgb[3]) {
  unsigned v;
  int n = 0;
  if (!text) return 0;
  if (text[0] == '#' && strlen(text) == 7 && sscanf(text + 1, "%6x%n", &v, &n) == 1 && n == 6) {
    rgb[0] = ((v >> 16) & 255) / 255.0; rgb[1] = ((v >> 8) & 255) / 255.0;
    rgb[2] = (v & 255) / 255.0;
    return 1;
  }
  if (text[0] == '#' && strlen(text) == 4 && sscanf(text + 1, "%3x%n", &v, &n) == 1 && n == 3) {
    rgb[0] = ((v >> 8) & 15) / 15.0; rgb[1] = ((v >> 4) & 15) / 15.0; rgb[2] = (v & 15) / 15.0;
    return 1;
  }
  if ((text[0] == 'C' || text[0] == 'c') && text[1] >= '1' && text[1] <= '8' && !text[2]) {
    dlb_palette(text[1] - '1', rgb);
    return 1;
  }
  for (int i = 0; named[i].name; i++)
    if (strcmp(text, named[i].name) == 0) {
      v = named[i].rgb;
      rgb[0] = ((v >> 16) & 255) / 255.0; rgb[1] = ((v >> 8) & 255) / 255.0;
      rgb[2] = (v & 255) / 255.0;
      return 1;
    }
  return 0;
}

/* A series' value range for its colour map: vmin/vmax options or the finite data range
** of z (heatmap) or c (scatter); center (NaN if none) makes a two-slope map. */
/* Check a colour-mapped series' vmin/vmax as given (commit): vmin below vmax, both > 0 on
** the log-symmetric norm. dlbp_cmap_norm would otherwise turn vmin >= vmax into a
** one-colour map, and ignore a limit <= 0 under logsym: silently wrong colours. */
int dlbp_cmap_check(const series *s) {
  double vl = dlbp_series_num(s, "vmin", NAN), vh = dlbp_series_num(s, "vmax", NAN);
  const char *k = dlbp_kind_name(s->kind);
  if (!isnan(vl) && !isnan(vh) && !(vl < vh))
    return dlb_fail(DLB_EINVAL, "%s: vmin = %g is not below vmax = %g", k, vl, vh);
  if (dlbp_cmap_log(s)) {
    if (!isnan(vl) && !(vl > 0))
      return dlb_fail(DLB_EINVAL, "%s: vmin = %g on norm = \"logsym\" (a log scale): it "
                      "must be > 0", k, vl);
    if (!isnan(vh) && !(vh > 0))
      return dlb_fail(DLB_EINVAL, "%s: vmax = %g on norm = \"logsym\" (a log scale): it "
                      "must be > 0", k, vh);
  }
  return DLB_OK;
}

void dlbp_cmap_norm(series *s, double *vmin, double *vmax, double *center) {
  const char *cv = s->methods->cvalues;
  const darray *d = cv ? dlbp_series_data(s, cv) : NULL;
  const darray *m = dlbp_series_data(s, "mask");
  int lg = dlbp_cmap_log(s);
  double lo = INFINITY, hi = -INFINITY;
  if (d) for (size_t i = 0; i < d->n; i++) {
    double v = lg ? dlbp_cmap_value(s, d->v[i]) : d->v[i];
    if (!isfinite(v) || (m && m->v[i] != 0)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo > hi) { lo = 0; hi = 1; }
  if (s->shared) { lo = s->share_lo; hi = s->share_hi; } /* one scale across the panels */
  if (lg) { /* log-symmetric around the centre (default 1): equal ratios, equal colours */
    double c = dlbp_series_num(s, "center", 1);
    c = c > 0 ? log(c) : 0;
    double vl = dlbp_series_num(s, "vmin", NAN), vh = dlbp_series_num(s, "vmax", NAN);
    if (vl > 0) lo = log(vl);
    if (vh > 0) hi = log(vh);
    double r = fmax(fmax(hi - c, c - lo), 1e-12);
    *vmin = c - r; *vmax = c + r; *center = c;
    return;
  }
  *vmin = dlbp_series_num(s, "vmin", lo);
  *vmax = dlbp_series_num(s, "vmax", hi);
  *center = dlbp_series_num(s, "center", NAN);
  if (*vmax <= *vmin) *vmax = *vmin + (*vmin == 0 ? 1 : fabs(*vmin) * 1e-9 + 1e-300);
}

/* Comparison panels share one colour scale: heat maps and coloured scatters in different
** panels whose colour bars carry the same label (the same quantity), the same map and
** norm, without vmin/vmax of their own, get the union of their ranges — unless one says
** share_colors = 0. */
void dlbp_cmap_share(dlb_figure *f) {
  for (int i = 0; i < f->nseries; i++) f->series[i].shared = 0;
  for (int i = 0; i < f->nseries; i++) {
    series *a = &f->series[i];
    if (a->dead || !a->committed || a->shared || !a->methods->cvalues ||
        !dlbp_series_data(a, a->methods->cvalues))
      continue; /* coloured through a map: heat maps, scatters with values c */
    const char *lab = dlbp_series_str(a, "colorbar_label", "");
    if (!lab[0] || dlbp_series_num(a, "share_colors", 1) == 0 || !isnan(dlbp_series_num(a, "vmin", NAN)) ||
        !isnan(dlbp_series_num(a, "vmax", NAN))) continue;
    int members[256], n = 0, panels = 0;
    for (int j = i; j < f->nseries && n < 256; j++) {
      series *b = &f->series[j];
      if (b->dead || !b->committed || b->kind != a->kind) continue;
      if (strcmp(dlbp_series_str(b, "colorbar_label", ""), lab) ||
          strcmp(dlbp_series_str(b, "cmap", "viridis"), dlbp_series_str(a, "cmap", "viridis")) ||
          dlbp_cmap_log(b) != dlbp_cmap_log(a) || dlbp_series_num(b, "share_colors", 1) == 0 ||
          !isnan(dlbp_series_num(b, "vmin", NAN)) || !isnan(dlbp_series_num(b, "vmax", NAN))) continue;
      if (b->panel != a->panel) panels = 1;
      members[n++] = j;
    }
    if (n < 2 || !panels) continue;
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++) {
      series *b = &f->series[members[k]];
      const darray *d = dlbp_series_data(b, b->methods->cvalues);
      const darray *m = dlbp_series_data(b, "mask");
      if (d) for (size_t q = 0; q < d->n; q++) {
        double v = dlbp_cmap_value(b, d->v[q]);
        if (!isfinite(v) || (m && m->v[q] != 0)) continue;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
    if (!(lo <= hi)) continue;
    for (int k = 0; k < n; k++) {
      series *b = &f->series[members[k]];
      b->shared = 1; b->share_lo = lo; b->share_hi = hi;
    }
  }
}

/* 1 when the series maps colours on the log-symmetric norm (norm = "logsym"). */
int dlbp_cmap_log(const series *s) {
  return strcmp(dlbp_series_str(s, "norm", "linear"), "logsym") == 0;
}

/* The value dlbp_cmap_t takes for data value v: v, or log(v) on the log-symmetric norm (NaN
** for v <= 0, drawn as missing). */
double dlbp_cmap_value(const series *s, double v) {
  if (!dlbp_cmap_log(s)) return v;
  return v > 0 ? log(v) : NAN;
}

/* Position of v in [vmin, vmax] as t in [0, 1] (unclamped); with a centre, each side maps
** onto its half so the centre lands at 0.5 (a diverging map's white). */
double dlbp_cmap_t(double v, double vmin, double vmax, double center) {
  if (!isfinite(v)) return NAN;
  if (isnan(center) || center <= vmin || center >= vmax) return (v - vmin) / (vmax - vmin);
  if (v < center) return 0.5 * (v - vmin) / (center - vmin);
  return 0.5 + 0.5 * (v - center) / (vmax - center);
}
