/*
** scaling_linfit.c — weighted linear least squares (small k) and the asymptotic cost fits
** of Hestness et al. (PPoPP'19) §4 / Table 2: c_t = gamma*p (per sample, so per step
** gamma*b*p), a_t = lambda*p + mu*b*sqrt(p), f_t = delta*p.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_scaling.h"
#include "dlb_stats.h"
#include "dlb_runtime.h"

enum { KMAX = 8 };

/* Weighted linear least squares; see dlb_scaling.h. Solved by the library's one
** least-squares routine, dlb_lstsq (Householder QR, graphs/stats/regress.c), on the rows scaled
** by sqrt(w): never the normal equations. */
int dlb_scaling_linfit(int n, int k, const double *X, const double *y, const double *w,
                       double *coef, double *se, double *r2) {
  if (k < 1 || k > KMAX) return dlb_fail(DLB_EINVAL, "linfit: %d columns (1 to %d)", k, KMAX);
  if (!X || !y || !coef) return dlb_fail(DLB_EINVAL, "linfit: missing X, y or coef");
  int used = 0;
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1;
    if (!isfinite(y[i])) return dlb_fail(DLB_EINVAL, "linfit: y of point %d is not finite", i + 1);
    if (!isfinite(wi) || wi < 0)
      return dlb_fail(DLB_EINVAL, "linfit: weight of point %d is %g (need finite, >= 0)",
                      i + 1, wi);
    for (int j = 0; j < k; j++)
      if (!isfinite(X[(size_t)i * k + j]))
        return dlb_fail(DLB_EINVAL, "linfit: column %d of point %d is not finite", j + 1, i + 1);
    if (wi > 0) used++;
  }
  if (used < k)
    return dlb_fail(DLB_EINVAL, "linfit: %d points with positive weight for %d coefficients",
                    used, k);
  double *a = dlb_malloc(sizeof(double) * (size_t)used * (size_t)k);
  double *b = dlb_malloc(sizeof(double) * (size_t)used);
  if (!a || !b) {
    dlb_free(a);
    dlb_free(b);
    return dlb_fail(DLB_ENOMEM, "linfit: out of memory (%d points)", used);
  }
  int r = 0;
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1;
    if (!(wi > 0)) continue;
    double sw = sqrt(wi);
    for (int j = 0; j < k; j++) a[(size_t)r * k + j] = sw * X[(size_t)i * k + j];
    b[r++] = sw * y[i];
  }
  double rss = 0;
  int st = dlb_lstsq((size_t)used, (size_t)k, a, b, NULL, coef, used > k ? se : NULL, &rss);
  dlb_free(a);
  dlb_free(b);
  if (st != DLB_OK) {
    if (st == DLB_ENUMERIC)
      return dlb_fail(DLB_ENUMERIC, "linfit: the columns are linearly dependent (%s)",
                      dlb_last_error());
    return st;
  }
  if (se && used <= k)
    for (int j = 0; j < k; j++) se[j] = NAN;
  /* R^2 about the weighted mean if a column is constant (an intercept), else about 0. */
  int intercept = 0;
  for (int j = 0; j < k && !intercept; j++) {
    int constant = 1;
    for (int i = 1; i < n && constant; i++)
      if (X[(size_t)i * k + j] != X[j]) constant = 0;
    intercept = constant;
  }
  double sw = 0, swy = 0, tss = 0;
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1;
    sw += wi;
    swy += wi * y[i];
  }
  double mean = intercept && sw > 0 ? swy / sw : 0;
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1;
    tss += wi * (y[i] - mean) * (y[i] - mean);
  }
  if (r2) *r2 = tss > 0 ? 1 - rss / tss : (rss == 0 ? 1 : 0);
  return DLB_OK;
}

/* Check a cost-fit input column: finite and > 0 everywhere. */
static int positive(const char *what, int n, const double *v) {
  for (int i = 0; i < n; i++)
    if (!(v[i] > 0) || !isfinite(v[i]))
      return dlb_fail(DLB_EINVAL, "fit_costs: %s of row %d is %g (need a finite value > 0)",
                      what, i + 1, v[i]);
  return DLB_OK;
}

/* Relative-error fit of y = sum_j c_j X_j: weights 1/y^2. */
static int relfit(int n, int k, const double *X, const double *y, double *c, double *se,
                  double *r2) {
  double *w = dlb_malloc(sizeof(double) * (size_t)n);
  if (!w) return dlb_fail(DLB_ENOMEM, "fit_costs: out of memory");
  for (int i = 0; i < n; i++) w[i] = 1 / (y[i] * y[i]);
  int st = dlb_scaling_linfit(n, k, X, y, w, c, se, r2);
  dlb_free(w);
  return st;
}

/* Fit the Table 2 cost models to measured steps; see dlb_scaling.h. */
int dlb_scaling_fit_costs(int n, const double *p, const double *b, const double *flops,
                          const double *bytes, const double *footprint, dlb_cost_fit *out) {
  if (!out || !p || !b) return dlb_fail(DLB_EINVAL, "fit_costs: missing params or batch");
  if (n < 2) return dlb_fail(DLB_EINVAL, "fit_costs: %d rows (need at least 2)", n);
  int st;
  if ((st = positive("params", n, p)) || (st = positive("batch", n, b))) return st;
  if (flops && (st = positive("flops", n, flops))) return st;
  if (bytes && (st = positive("bytes", n, bytes))) return st;
  if (footprint && (st = positive("footprint", n, footprint))) return st;
  out->gamma_c = out->gamma_se = out->gamma_r2 = NAN;
  out->lambda = out->lambda_se = out->mu = out->mu_se = out->bytes_r2 = NAN;
  out->delta = out->delta_se = out->footprint_r2 = NAN;
  double *X = dlb_malloc(sizeof(double) * (size_t)n * 2);
  if (!X) return dlb_fail(DLB_ENOMEM, "fit_costs: out of memory");
  double c[2], se[2], r2;
  if (flops) {
    for (int i = 0; i < n; i++) X[i] = b[i] * p[i];
    if ((st = relfit(n, 1, X, flops, c, se, &r2))) goto done;
    out->gamma_c = c[0]; out->gamma_se = se[0]; out->gamma_r2 = r2;
  }
  if (bytes) {
    for (int i = 0; i < n; i++) {
      X[2 * i] = p[i];
      X[2 * i + 1] = b[i] * sqrt(p[i]);
    }
    if ((st = relfit(n, 2, X, bytes, c, se, &r2))) goto done;
    out->lambda = c[0]; out->lambda_se = se[0];
    out->mu = c[1]; out->mu_se = se[1]; out->bytes_r2 = r2;
  }
  if (footprint) {
    for (int i = 0; i < n; i++) X[i] = p[i];
    if ((st = relfit(n, 1, X, footprint, c, se, &r2))) goto done;
    out->delta = c[0]; out->delta_se = se[0]; out->footprint_r2 = r2;
  }
  st = DLB_OK;
done:
  dlb_free(X);
  return st;
}
