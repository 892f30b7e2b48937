/*
** stats.c — percentiles (numpy's default linear interpolation), means and box statistics
** (ParaDnn's box plots: 2/9/50/91/98 percentiles, seeds/004 §6).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_stats.h"
#include "dlb_runtime.h"

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A sorted copy of x (caller frees), or NULL with a message naming a NaN element. */
static double *sorted(const double *x, size_t n, const char *who) {
  if (x == NULL || n == 0) return dlb_fail_null(DLB_EINVAL, "%s: empty list", who);
  for (size_t i = 0; i < n; i++) {
    if (isnan(x[i])) return dlb_fail_null(DLB_EINVAL, "%s: element %zu is NaN", who, i + 1);
  }
  double *s = dlb_malloc(sizeof(double) * n);
  if (!s) return dlb_fail_null(DLB_ENOMEM, "%s: out of memory (%zu values)", who, n);
  memcpy(s, x, sizeof(double) * n);
  qsort(s, n, sizeof(double), cmp);
  return s;
}

/* numpy.percentile(..., method="linear"): rank h = (n-1) p/100, interpolate s[floor h]
** and s[floor h + 1]. */
static double interp(const double *s, size_t n, double p) {
  double h = (double)(n - 1) * p / 100.0;
  size_t lo = (size_t)floor(h);
  if (lo >= n - 1) return s[n - 1];
  double f = h - (double)lo;
  if (f == 0) return s[lo];
  return s[lo] + f * (s[lo + 1] - s[lo]);
}

static int checkp(double p) {
  if (!(p >= 0 && p <= 100)) return dlb_fail(DLB_EINVAL, "percentile: p must be in [0, 100], got %g", p);
  return DLB_OK;
}

/* Several percentiles of x with one sort; see dlb_stats.h. */
int dlb_percentiles(const double *x, size_t n, const double *p, size_t np, double *out) {
  if (p == NULL || out == NULL) return dlb_fail(DLB_EINVAL, "percentile: NULL argument");
  for (size_t i = 0; i < np; i++) {
    int st = checkp(p[i]);
    if (st) return st;
  }
  double *s = sorted(x, n, "percentile");
  if (!s) return dlb_last_status();
  for (size_t i = 0; i < np; i++) out[i] = interp(s, n, p[i]);
  dlb_free(s);
  return DLB_OK;
}

/* The p-th percentile of x. */
int dlb_percentile(const double *x, size_t n, double p, double *out) {
  return dlb_percentiles(x, n, &p, 1, out);
}

/* Arithmetic, geometric or harmonic mean. */
int dlb_mean(const double *x, size_t n, int kind, double *out) {
  static const char *const names[] = { "mean", "geometric mean", "harmonic mean" };
  if (kind < 0 || kind > 2) return dlb_fail(DLB_EINVAL, "mean: unknown kind %d", kind);
  if (x == NULL || n == 0 || out == NULL) return dlb_fail(DLB_EINVAL, "%s: empty list", names[kind]);
  double acc = 0;
  for (size_t i = 0; i < n; i++) {
    double v = x[i];
    if (isnan(v)) return dlb_fail(DLB_EINVAL, "%s: element %zu is NaN", names[kind], i + 1);
    if (kind != DLB_MEAN_ARITHMETIC && !(v > 0)) {
      return dlb_fail(DLB_EINVAL, "%s: element %zu is %g (needs > 0)", names[kind], i + 1, v);
    }
    if (kind == DLB_MEAN_ARITHMETIC) acc += v;
    else if (kind == DLB_MEAN_GEOMETRIC) acc += log(v);
    else acc += 1 / v;
  }
  if (kind == DLB_MEAN_ARITHMETIC) *out = acc / (double)n;
  else if (kind == DLB_MEAN_GEOMETRIC) *out = exp(acc / (double)n);
  else *out = (double)n / acc;
  return DLB_OK;
}

/* Box statistics; see dlb_stats.h. */
int dlb_box_stats(const double *x, size_t n, double lo_w, double lo_q, double hi_q,
                  double hi_w, int tukey, dlb_box *out) {
  if (out == NULL) return dlb_fail(DLB_EINVAL, "box: NULL argument");
  if (!tukey) {
    double ps[4] = { lo_w, lo_q, hi_q, hi_w };
    for (int i = 0; i < 4; i++) if (checkp(ps[i])) return dlb_last_status();
    if (!(lo_w <= lo_q && lo_q <= 50 && 50 <= hi_q && hi_q <= hi_w)) {
      return dlb_fail(DLB_EINVAL, "box: percentiles must be ordered whisker <= box <= 50 <= "
                      "box <= whisker, got %g %g %g %g", lo_w, lo_q, hi_q, hi_w);
    }
  }
  double *s = sorted(x, n, "box");
  if (!s) return dlb_last_status();
  dlb_box b;
  double sum = 0;
  for (size_t i = 0; i < n; i++) sum += s[i];
  b.mean = sum / (double)n;
  b.min = s[0];
  b.max = s[n - 1];
  b.n = (double)n;
  b.median = interp(s, n, 50);
  if (tukey) {
    b.q_lo = interp(s, n, 25);
    b.q_hi = interp(s, n, 75);
    double iqr = b.q_hi - b.q_lo, lo = b.q_lo - 1.5 * iqr, hi = b.q_hi + 1.5 * iqr;
    b.whisker_lo = b.q_lo;
    b.whisker_hi = b.q_hi;
    for (size_t i = 0; i < n; i++) if (s[i] >= lo) { b.whisker_lo = s[i]; break; }
    for (size_t i = n; i-- > 0;) if (s[i] <= hi) { b.whisker_hi = s[i]; break; }
  } else {
    b.whisker_lo = interp(s, n, lo_w);
    b.q_lo = interp(s, n, lo_q);
    b.q_hi = interp(s, n, hi_q);
    b.whisker_hi = interp(s, n, hi_w);
  }
  size_t outl = 0;
  for (size_t i = 0; i < n; i++) if (s[i] < b.whisker_lo || s[i] > b.whisker_hi) outl++;
  b.outliers = (double)outl;
  dlb_free(s);
  *out = b;
  return DLB_OK;
}
