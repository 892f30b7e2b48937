/*
** axis.c — scales and ticks: nice linear ticks on 1/2/5 x 10^n, log axes by decades with
** minor ticks, categorical axes, and tick labels in SI style (1k, 10M), powers of ten or
** plain decimals, thinned until neighbouring labels no longer touch.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* A value in the axis' linear space: log10 on a log axis. */
double dlbp_axis_fwd(const axis *a, double v) {
  return a->scale == DLB_SCALE_LOG ? log10(v) : v;
}

/* The 1/2/5 x 10^n step closest above (hi - lo) / target. */
static double nice_step(double lo, double hi, int target) {
  double raw = (hi - lo) / (target > 0 ? target : 1);
  double mag = pow(10, floor(log10(raw)));
  static const double m[] = {1, 2, 5, 10}; /* 1/2/5 x 10^n, as docs/plot.md says */
  for (int i = 0; i < 4; i++) {
    if (m[i] * mag >= raw * 0.75) return m[i] * mag; /* up to a third more ticks than asked */
  }
  return 10 * mag;
}

/* Ticks k * step inside [lo, hi] for the nice step aiming at `target`; returns the count. */
int dlbp_nice_ticks(double lo, double hi, int target, double *out, int cap) {
  if (!(hi > lo) || !isfinite(lo) || !isfinite(hi)) return 0;
  double step = nice_step(lo, hi, target);
  double k0 = ceil(lo / step - 1e-9), k1 = floor(hi / step + 1e-9);
  int n = 0;
  for (double k = k0; k <= k1 && n < cap; k++) {
    double v = k * step;
    if (fabs(v) < step * 1e-9) v = 0; /* no -0 or 1e-17 */
    out[n++] = v;
  }
  return n;
}

/* Nice ticks for [lo, hi] into out[cap] (the public form of dlbp_nice_ticks). */
int dlb_ticks_linear(double lo, double hi, int target, double *out, size_t cap, size_t *n) {
  if (!out || !n) return dlb_fail(DLB_EINVAL, "ticks_linear: no output");
  if (!(hi > lo) || !isfinite(lo) || !isfinite(hi))
    return dlb_fail(DLB_EINVAL, "ticks_linear: need finite lo < hi (got %g, %g)", lo, hi);
  if (target < 1) return dlb_fail(DLB_EINVAL, "ticks_linear: target %d < 1", target);
  *n = (size_t)dlbp_nice_ticks(lo, hi, target, out, (int)(cap > 10000 ? 10000 : cap));
  return DLB_OK;
}

/* Fewest decimals (0..9) that show v exactly and resolve the step (a step of 5e-7 needs
** 7 decimals even where v is 0). */
static int decimals(double v, double step) {
  for (int d = 0; d < 9; d++) {
    double p = pow(10, d);
    double a = v * p, b = step * p;
    if (fabs(a - round(a)) < 1e-9 * fmax(1, fabs(a)) &&
        (step <= 0 || (b > 0.999 && fabs(b - round(b)) < 1e-6 * fmax(1, fabs(b))))) return d;
  }
  return 9;
}

/* v with as many decimals as v and the step need; never "-0". */
static void plain(double v, double step, char *buf, size_t size) {
  int d = decimals(v, step);
  snprintf(buf, size, "%.*f", d, v);
  if (strspn(buf, "-0.") == strlen(buf) && buf[0] == '-') memmove(buf, buf + 1, strlen(buf));
}

/* v as a power of ten in markup: 10^{3}, 2x10^{-5}. */
static void power(double v, char *buf, size_t size) {
  if (v == 0) { snprintf(buf, size, "0"); return; }
  double e = floor(log10(fabs(v)) + 1e-9);
  double m = v / pow(10, e);
  char ex[16]; /* the exponent, with a real minus sign */
  snprintf(ex, sizeof ex, "%s%.0f", e < 0 ? "\xe2\x88\x92" : "", fabs(e));
  if (fabs(fabs(m) - 1) < 1e-9)
    snprintf(buf, size, "%s10^{%s}", m < 0 ? "-" : "", ex);
  else {
    char mb[32];
    plain(m, 0, mb, sizeof mb);
    if (strlen(mb) > 5) snprintf(mb, sizeof mb, "%.3g", m);
    snprintf(buf, size, "%s\xc3\x97" "10^{%s}", mb, ex); /* U+00D7 multiplication sign */
  }
}

/* Format a tick value in a style: "si" (1k, 2.5M; plain below 1000), "pow" (10^{3}),
** "plain", "auto" (si, or pow for magnitudes below 0.001). */
static void format_ascii(double v, double step, const char *style, char *buf, size_t size);

/* Format a tick value (see format_ascii) with a typographic minus sign (U+2212). */
void dlbp_format_tick(double v, double step, const char *style, char *buf, size_t size) {
  format_ascii(v, step, style, buf, size);
  size_t n = strlen(buf);
  if (buf[0] == '-' && n + 3 <= size) {
    memmove(buf + 3, buf + 1, n); /* with the terminator */
    memcpy(buf, "\xe2\x88\x92", 3);
  }
}

/* dlbp_format_tick before the minus sign is made typographic. */
static void format_ascii(double v, double step, const char *style, char *buf, size_t size) {
  if (!isfinite(v)) { snprintf(buf, size, "%g", v); return; }
  if (strcmp(style, "pow") == 0) { power(v, buf, size); return; }
  if (strcmp(style, "plain") == 0) { plain(v, step, buf, size); return; }
  double a = fabs(v);
  if (strcmp(style, "time") == 0) { /* seconds with a unit: 5 µs, 20 ms, 1.5 s */
    static const struct { double s; const char *u; } units[] = {
      {1e-9, "ns"}, {1e-6, "\xc2\xb5s"}, {1e-3, "ms"}, {1, "s"}};
    double ref = fmax(a, step > 0 ? step : 0); /* the value's own unit (0: the step's) */
    int k = 3;
    while (k > 0 && ref < units[k].s * 0.999) k--;
    char mb[32];
    plain(v / units[k].s, step > 0 ? step / units[k].s : 0, mb, sizeof mb);
    if (v == 0) snprintf(mb, sizeof mb, "0");
    snprintf(buf, size, "%s %s", mb, units[k].u);
    return;
  }
  if (strcmp(style, "count") == 0) { /* counts of things (tokens, parameters): 1.5B, 300M */
    static const char *const cp[] = {"", "k", "M", "B", "T"};
    int e = a >= 1000 ? (int)floor(log10(a) / 3 + 1e-12) : 0;
    if (e > 4) { power(v, buf, size); return; }
    double sc = pow(1000, e);
    char mb[32];
    plain(v / sc, step > 0 && e > 0 ? step / sc : step, mb, sizeof mb);
    if (e > 0 && strlen(mb) > 6) snprintf(mb, sizeof mb, "%.4g", v / sc);
    snprintf(buf, size, "%s%s", mb, cp[e]);
    return;
  }
  if (strcmp(style, "auto") == 0 && a != 0 && a < 1e-3) { power(v, buf, size); return; }
  static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
  int e = a >= 1000 ? (int)floor(log10(a) / 3 + 1e-12) : 0;
  if (e > 6) { power(v, buf, size); return; }
  double scale = pow(1000, e);
  char mb[32];
  plain(v / scale, step > 0 && e > 0 ? step / scale : step, mb, sizeof mb);
  if (e > 0 && strcmp(style, "auto") == 0 && strlen(mb) > 4 && a < 1e5 && v == floor(v)) {
    plain(v, 0, buf, size); /* 1024, 8192: clearer than 1.024k */
    return;
  }
  if (e > 0 && strlen(mb) > 6) snprintf(mb, sizeof mb, "%.4g", v / scale);
  snprintf(buf, size, "%s%s", mb, prefix[e]);
}

/* Format one tick value into buf (see dlbp_format_tick); checks the style name. */
int dlb_tick_format(double v, double step, const char *style, char *buf, size_t size) {
  if (!buf || size == 0) return dlb_fail(DLB_EINVAL, "tick_format: no buffer");
  if (!style || (strcmp(style, "si") && strcmp(style, "pow") && strcmp(style, "plain") &&
                 strcmp(style, "auto") && strcmp(style, "count") && strcmp(style, "time")))
    return dlb_fail(DLB_EINVAL, "tick_format: unknown style '%s' (valid: auto si pow plain count time)",
                    style ? style : "(null)");
  dlbp_format_tick(v, step, style, buf, size);
  return DLB_OK;
}

/* Do the labels fit along an axis of `length` points? Adjacent labels need a 3 pt gap. */
static int fits(cairo_t *cr, dlb_figure *f, const axis *a, double length, int horizontal) {
  double size = f->font * 0.875, span = dlbp_axis_fwd(a, a->hi) - dlbp_axis_fwd(a, a->lo);
  double prev = -INFINITY;
  for (int i = 0; i < a->nticks; i++) {
    if (!a->tlabels[i][0]) continue;
    double w, h;
    dlbp_text_extent(cr, a->tlabels[i], size, 0, &w, &h);
    double ext = (horizontal && !a->rotate) ? w : h;
    double c = (dlbp_axis_fwd(a, a->ticks[i]) - dlbp_axis_fwd(a, a->lo)) / span * length;
    if (c - ext / 2 < prev + 3) return 0;
    prev = c + ext / 2;
  }
  return 1;
}

/* Label every tick of an axis in its format ("auto": plain below 10^4 on linear axes). */
static void label_all(axis *a, double step) {
  char style[16];
  snprintf(style, sizeof style, "%s", a->fmt[0] ? a->fmt : "auto");
  if (strcmp(style, "auto") == 0) {
    double big = 0, small = INFINITY;
    for (int i = 0; i < a->nticks; i++) {
      big = fmax(big, fabs(a->ticks[i]));
      if (a->ticks[i] != 0) small = fmin(small, fabs(a->ticks[i]));
    }
    if (a->scale == DLB_SCALE_LINEAR && big < 1e4) snprintf(style, sizeof style, "plain");
    if (a->scale == DLB_SCALE_LINEAR && big < 1e-2 && big > 0) snprintf(style, sizeof style, "pow");
    /* a log axis reaching below 0.001 or past 10^18: powers of ten for all its labels */
    if (a->scale == DLB_SCALE_LOG && (small < 1e-3 || big >= 1e21))
      snprintf(style, sizeof style, "pow");
  }
  for (int i = 0; i < a->nticks; i++)
    dlbp_format_tick(a->ticks[i], step, style, a->tlabels[i], sizeof a->tlabels[i]);
  if (strcmp(style, "si") == 0 || strcmp(style, "auto") == 0) {
    /* SI labels: the ticks sharing a prefix share their decimals, as few as they need
    ** (0, 200k, ..., 1M; 1.0M, 1.5M, 2.0M) */
    for (int e = 1; e <= 6; e++) {
      double scale = pow(1000, e);
      int dmax = -1;
      for (int i = 0; i < a->nticks; i++) {
        double v = fabs(a->ticks[i]);
        if (v >= scale && v < scale * 1000 && strpbrk(a->tlabels[i], "kMGTPE"))
          dmax = fmax(dmax, decimals(a->ticks[i] / scale, 0));
      }
      if (dmax < 0) continue;
      for (int i = 0; i < a->nticks; i++) {
        double v = fabs(a->ticks[i]);
        if (v >= scale && v < scale * 1000 && strpbrk(a->tlabels[i], "kMGTPE"))
          dlbp_format_tick(a->ticks[i], pow(10, -dmax) * scale, style, a->tlabels[i],
                      sizeof a->tlabels[i]);
      }
    }
  }
  for (int i = 1; i < a->nticks; i++) /* labels too coarse to tell ticks apart: digits */
    if (strcmp(a->tlabels[i], a->tlabels[i - 1]) == 0) {
      for (int k = 0; k < a->nticks; k++)
        dlbp_format_tick(a->ticks[k], step, "plain", a->tlabels[k], sizeof a->tlabels[k]);
      break;
    }
}

/* Linear ticks: as many 1/2/2.5/5 x 10^n ticks as fit the length, labels apart. */
static void linear_ticks(cairo_t *cr, dlb_figure *f, axis *a, double length, int horizontal) {
  int target = (int)(length / (horizontal ? 48 : 24));
  if (target < 2) target = 2;
  if (target > 10) target = 10;
  for (; target >= 1; target--) {
    a->nticks = dlbp_nice_ticks(a->lo, a->hi, target, a->ticks, MAXTICKS);
    double step = a->nticks > 1 ? a->ticks[1] - a->ticks[0] : 0;
    label_all(a, step);
    if (fits(cr, f, a, length, horizontal)) return;
  }
  if (a->nticks > 2) { /* long labels: the first and last tick only */
    a->ticks[1] = a->ticks[a->nticks - 1];
    snprintf(a->tlabels[1], sizeof a->tlabels[1], "%s", a->tlabels[a->nticks - 1]);
    a->nticks = 2;
  }
}

/* Log ticks: decades (every k-th when crowded, the rest minor), 2..9 minors; under
** two decades 1/2/5 ticks or linear ones. */
static void log_ticks(cairo_t *cr, dlb_figure *f, axis *a, double length, int horizontal) {
  double l0 = log10(a->lo), l1 = log10(a->hi);
  int d0 = (int)ceil(l0 - 1e-9), d1 = (int)floor(l1 + 1e-9);
  a->nminor = 0;
  if (d1 - d0 + 1 < 2 || l1 - l0 < 2) { /* under two decades: 1/2/5 ticks, else linear */
    a->nticks = 0;
    for (int d = (int)floor(l0); d <= (int)ceil(l1) && a->nticks < MAXTICKS; d++)
      for (int m = 1; m <= 5; m += (m == 1 ? 1 : 3)) {
        double v = m * pow(10, d);
        if (v >= a->lo * (1 - 1e-9) && v <= a->hi * (1 + 1e-9) && a->nticks < MAXTICKS)
          a->ticks[a->nticks++] = v;
      }
    if (a->nticks >= 2) {
      label_all(a, 0);
      if (fits(cr, f, a, length, horizontal)) goto minors;
    }
    if (d1 - d0 + 1 < 2) {
      linear_ticks(cr, f, a, length, horizontal);
      goto minors;
    } /* two decade ticks (1 and 10): they will do */
  }
  for (int k = 1; k <= 12; k++) { /* label every k-th decade */
    a->nticks = 0;
    for (int d = d0; d <= d1 && a->nticks < MAXTICKS; d++)
      if (((d % k) + k) % k == 0) a->ticks[a->nticks++] = pow(10, d);
    if (a->nticks < 2 && k > 1) break;
    label_all(a, 0);
    if (fits(cr, f, a, length, horizontal)) {
      if (k > 1) { /* the skipped decades become minor ticks */
        for (int d = d0; d <= d1 && a->nminor < 2 * MAXTICKS; d++)
          if (((d % k) + k) % k) a->minor[a->nminor++] = pow(10, d);
        return;
      }
      break;
    }
  }
minors:
  if (l1 - l0 > 12) return;
  for (int d = (int)floor(l0); d <= (int)ceil(l1); d++)
    for (int m = 2; m <= 9; m++) {
      double v = m * pow(10, d);
      int major = 0;
      for (int i = 0; i < a->nticks; i++) major |= fabs(a->ticks[i] - v) < v * 1e-9;
      if (!major && v >= a->lo && v <= a->hi && a->nminor < 2 * MAXTICKS)
        a->minor[a->nminor++] = v;
    }
}

/* Break each tick label with a space into two lines at the space nearest its middle (for
** categorical names that do not fit side by side). Returns 1 when any label changed. */
static int wrap_labels(axis *a) {
  int changed = 0;
  for (int i = 0; i < a->nticks; i++) {
    char *t = a->tlabels[i];
    size_t n = strlen(t), best = 0;
    double bestd = 1e9;
    if (strchr(t, '\n')) continue;
    for (size_t j = 1; j + 1 < n; j++)
      if (t[j] == ' ' && fabs((double)j - n / 2.0) < bestd) { bestd = fabs((double)j - n / 2.0); best = j; }
    if (best > 0) { t[best] = '\n'; changed = 1; }
  }
  return changed;
}

/* Ticks and their labels for an axis whose limits are set, along `length` points. */
void dlbp_axis_ticks(cairo_t *cr, dlb_figure *f, axis *a, double length, int horizontal) {
  a->nticks = a->nminor = 0;
  a->rotate = 0;
  if (a->ncats) {
    /* numbers (1..n, batch sizes) are thinned to every 2nd, 5th, 10th ... label; names
    ** are turned upright first, then thinned */
    int numeric = 1;
    for (size_t i = 0; i < a->ncats; i++)
      numeric &= a->cats[i][0] &&
                 strspn(a->cats[i], "0123456789.-+kMGTPE\xe2\x88\x92") == strlen(a->cats[i]);
    /* index labels 1..n show the multiples of k (5, 10, 15); other numbers start at the
    ** first (64, 512, 4096 for every third of 64, 128, ...) */
    int index = numeric;
    for (size_t i = 0; i < a->ncats && index; i++) {
      char want[24];
      snprintf(want, sizeof want, "%zu", i + 1);
      index = strcmp(a->cats[i], want) == 0;
    }
    static const int steps[] = {1, 2, 3, 4, 5, 10, 20, 50, 100, 1000};
    int si = 0, k = 1;
    if (numeric) a->rotate = 0;
    for (;; k++) {
      if (numeric) k = steps[si < 9 ? si++ : 9];
      a->nticks = 0;
      for (size_t i = 0; i < a->ncats && a->nticks < MAXTICKS; i++) {
        if (k > 1 && (index ? (i + 1) % (size_t)k : i % (size_t)k)) continue;
        a->ticks[a->nticks] = (double)(i + 1);
        dlbp_text_copy(a->tlabels[a->nticks], sizeof a->tlabels[0], a->cats[i]);
        a->nticks++;
      }
      if (fits(cr, f, a, length, horizontal) || a->nticks <= 1 || (numeric && si > 9)) break;
      if (horizontal && !a->rotate && !numeric) {
        /* names on two lines (broken at the space nearest their middle) before turning
        ** them upright: "16/8/32 m96" over "z2 1f1b" */
        if (k == 1 && wrap_labels(a) && fits(cr, f, a, length, horizontal)) break;
        a->rotate = 1; k--; continue;
      }
    }
    if (a->rotate || !horizontal) {
      /* long names across the axis: up to 45% of the cell (the names that tell bars apart
      ** are often long: "16/8/32 m96 z2 1f1b"), cut with an ellipsis only beyond that */
      double room = 0.45 * (horizontal ? f->height / f->rows : f->width / f->cols), sz;
      for (int i = 0; i < a->nticks; i++) {
        char buf[64];
        dlbp_text_fit(cr, a->tlabels[i], f->font * 0.875, f->font * 0.875, 0, room, buf, sizeof buf,
                 &sz);
        dlbp_text_copy(a->tlabels[i], sizeof a->tlabels[i], buf);
      }
    }
    return;
  }
  if (a->scale == DLB_SCALE_LOG) log_ticks(cr, f, a, length, horizontal);
  else linear_ticks(cr, f, a, length, horizontal);
  if (a->nuticks > 0) { /* the user's ticks replace the automatic ones */
    double step = 0;
    for (int i = 1; i < a->nuticks; i++) {
      double d = fabs(a->uticks[i] - a->uticks[i - 1]);
      if (d > 0 && (step == 0 || d < step)) step = d;
    }
    a->nticks = 0;
    for (int i = 0; i < a->nuticks; i++) {
      double v = a->uticks[i], lo = fmin(a->lo, a->hi), hi = fmax(a->lo, a->hi);
      if (!(v >= lo - 1e-9 * (hi - lo) && v <= hi + 1e-9 * (hi - lo))) continue;
      if (a->scale == DLB_SCALE_LOG && v <= 0) continue;
      a->ticks[a->nticks] = v;
      if (a->has_ulabel[i]) dlbp_text_copy(a->tlabels[a->nticks], sizeof a->tlabels[0], a->ulabels[i]);
      else dlbp_format_tick(v, a->scale == DLB_SCALE_LOG ? 0 : step, a->fmt, a->tlabels[a->nticks],
                       sizeof a->tlabels[0]);
      a->nticks++;
    }
    a->nminor = 0; /* decade minors between 8, 16, 32 ... would only confuse */
  }
}
