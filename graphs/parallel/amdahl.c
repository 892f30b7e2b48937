/*
** amdahl.c — Amdahl's law and the least-squares fit of a serial (non-parallel) fraction
** from measured speedups, as ParaDnn sec. 4.3 does from 1-core vs 8-core utilisation.
*/
#include <math.h>

#include "dlb_parallel.h"
#include "dlb_runtime.h"

/* Amdahl 1967: speedup(n) = 1 / (f + (1 - f) / n). NaN for bad input. */
double dlb_par_amdahl(double f, double n) {
  if (!(f >= 0 && f <= 1) || !(n > 0)) return NAN;
  return 1.0 / (f + (1 - f) / n);
}

/* 1/s - 1/n = f (1 - 1/n) is linear in f through the origin: with x = 1 - 1/n and
** y = 1/s - 1/n, least squares gives f = sum(xy) / sum(x^2); clamped to [0, 1]. */
int dlb_par_amdahl_fit(const double *n, const double *s, int count, double *f, double *r2) {
  if (!n || !s || !f) return dlb_fail(DLB_EINVAL, "amdahl fit: missing data");
  if (count < 1) return dlb_fail(DLB_EINVAL, "amdahl fit: needs at least one measurement");
  double sxy = 0, sxx = 0, my = 0;
  for (int i = 0; i < count; i++) {
    if (!(n[i] >= 1) || !isfinite(n[i]))
      return dlb_fail(DLB_EINVAL, "amdahl fit: workers[%d] must be >= 1, got %g", i + 1, n[i]);
    if (!(s[i] > 0) || !isfinite(s[i]))
      return dlb_fail(DLB_EINVAL, "amdahl fit: speedup[%d] must be > 0, got %g", i + 1, s[i]);
    double x = 1 - 1 / n[i], y = 1 / s[i] - 1 / n[i];
    sxy += x * y;
    sxx += x * x;
    my += 1 / s[i];
  }
  if (sxx == 0)
    return dlb_fail(DLB_EINVAL, "amdahl fit: every measurement is on 1 worker; need n > 1");
  double ff = sxy / sxx;
  if (ff < 0) ff = 0;
  if (ff > 1) ff = 1;
  *f = ff;
  if (r2) {
    my /= count;
    double ssr = 0, sst = 0;
    for (int i = 0; i < count; i++) {
      double yi = 1 / s[i], pi = ff + (1 - ff) / n[i];
      ssr += (yi - pi) * (yi - pi);
      sst += (yi - my) * (yi - my);
    }
    *r2 = sst > 0 ? 1 - ssr / sst : (ssr == 0 ? 1 : 0);
  }
  return DLB_OK;
}
