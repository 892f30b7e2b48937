/*
** lm.c — Levenberg–Marquardt for small nonlinear least-squares problems (np <= 16).
**
** Marquardt's method with the scale-invariant damping of MINPACK's lmder: each step solves
** (J'J + lambda * D) dp = -J'r by Cholesky, with D the running maximum of diag(J'J), and
** lambda shrinks after an accepted step and grows after a rejected one (Nocedal & Wright,
** Numerical Optimization, 2nd ed., §10.3). The covariance at the solution is
** s^2 (J'J)^-1 with s^2 = cost/(n - np), what scipy.optimize.curve_fit reports with
** absolute_sigma=False.
*/
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_scaling.h"
#include "dlb_runtime.h"

/* Cholesky factorisation in place of the np x np SPD matrix a (lower triangle used);
** returns 0, or -1 when a is not positive definite. */
static int cholesky(double *a, int np) {
  for (int j = 0; j < np; j++) {
    double d = a[j * np + j];
    for (int k = 0; k < j; k++) d -= a[j * np + k] * a[j * np + k];
    if (!(d > 0) || !isfinite(d)) return -1;
    d = sqrt(d);
    a[j * np + j] = d;
    for (int i = j + 1; i < np; i++) {
      double s = a[i * np + j];
      for (int k = 0; k < j; k++) s -= a[i * np + k] * a[j * np + k];
      a[i * np + j] = s / d;
    }
  }
  return 0;
}

/* Solve L L' x = b with the factor from cholesky(); x may alias b. */
static void cholsolve(const double *l, int np, const double *b, double *x) {
  double y[DLB_LM_MAX_PARAMS];
  for (int i = 0; i < np; i++) {
    double s = b[i];
    for (int k = 0; k < i; k++) s -= l[i * np + k] * y[k];
    y[i] = s / l[i * np + i];
  }
  for (int i = np - 1; i >= 0; i--) {
    double s = y[i];
    for (int k = i + 1; k < np; k++) s -= l[k * np + i] * x[k];
    x[i] = s / l[i * np + i];
  }
}

static double sumsq(const double *r, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += r[i] * r[i];
  return s;
}

/* Forward-difference Jacobian of fn at p (r holds the residuals at p). */
static int numjac(dlb_lm_fn fn, void *ud, int n, int np, double *p, const double *r,
                  double *jac, double *rtmp, int *evals) {
  for (int j = 0; j < np; j++) {
    double keep = p[j];
    double h = sqrt(DBL_EPSILON) * (fabs(keep) > 1e-8 ? fabs(keep) : 1e-8);
    p[j] = keep + h;
    h = p[j] - keep; /* the step actually taken */
    int st = fn(ud, p, rtmp, NULL);
    (*evals)++;
    p[j] = keep;
    if (st) return st;
    for (int i = 0; i < n; i++) jac[i * np + j] = (rtmp[i] - r[i]) / h;
  }
  return 0;
}

/* J'J (np x np) and J'r. */
static void normal(const double *jac, const double *r, int n, int np, double *a, double *g) {
  memset(a, 0, sizeof(double) * (size_t)(np * np));
  memset(g, 0, sizeof(double) * (size_t)np);
  for (int i = 0; i < n; i++) {
    const double *row = jac + (size_t)i * (size_t)np;
    for (int j = 0; j < np; j++) {
      g[j] += row[j] * r[i];
      for (int k = 0; k <= j; k++) a[j * np + k] += row[j] * row[k];
    }
  }
  for (int j = 0; j < np; j++)
    for (int k = j + 1; k < np; k++) a[j * np + k] = a[k * np + j];
}

static int allfinite(const double *v, int n) {
  for (int i = 0; i < n; i++) if (!isfinite(v[i])) return 0;
  return 1;
}

/* The covariance cost/(n-np) * (J'J)^-1 into cov (NaN when not available). */
static void covariance(const double *a, int n, int np, double cost, double *cov) {
  double l[DLB_LM_MAX_PARAMS * DLB_LM_MAX_PARAMS];
  memcpy(l, a, sizeof(double) * (size_t)(np * np));
  if (n <= np || cholesky(l, np) != 0) {
    for (int i = 0; i < np * np; i++) cov[i] = NAN;
    return;
  }
  double s2 = cost / (double)(n - np);
  for (int j = 0; j < np; j++) {
    double e[DLB_LM_MAX_PARAMS] = { 0 }, col[DLB_LM_MAX_PARAMS];
    e[j] = 1;
    cholsolve(l, np, e, col);
    for (int i = 0; i < np; i++) cov[i * np + j] = s2 * col[i];
  }
}

/* Minimise sum r_i(p)^2 from p (updated in place); see dlb_scaling.h. */
int dlb_lm_solve(dlb_lm_fn fn, void *ud, int n, int np, double *p,
                 const dlb_lm_options *opt, dlb_lm_info *info, double *cov) {
  if (!fn) return dlb_fail(DLB_EINVAL, "lm: no residual function");
  if (np < 1 || np > DLB_LM_MAX_PARAMS)
    return dlb_fail(DLB_EINVAL, "lm: %d parameters (1 to %d supported)", np, DLB_LM_MAX_PARAMS);
  if (n < np)
    return dlb_fail(DLB_EINVAL, "lm: %d residuals for %d parameters (need at least as many)",
                    n, np);
  if (!allfinite(p, np)) return dlb_fail(DLB_EINVAL, "lm: the starting point is not finite");
  int max_iter = opt && opt->max_iter > 0 ? opt->max_iter : 200;
  double ftol = opt && opt->ftol > 0 ? opt->ftol : 1e-12;
  double xtol = opt && opt->xtol > 0 ? opt->xtol : 1e-12;
  double gtol = opt && opt->gtol > 0 ? opt->gtol : -1;
  int numeric = opt && opt->numeric_jac;

  size_t nn = (size_t)n;
  double *buf = dlb_malloc(sizeof(double) * (nn * (size_t)np + 3 * nn));
  if (!buf) return dlb_fail(DLB_ENOMEM, "lm: out of memory for %d residuals", n);
  double *jac = buf, *r = jac + nn * (size_t)np, *rnew = r + nn, *rtmp = rnew + nn;
  double a[DLB_LM_MAX_PARAMS * DLB_LM_MAX_PARAMS], l[DLB_LM_MAX_PARAMS * DLB_LM_MAX_PARAMS];
  double g[DLB_LM_MAX_PARAMS], dscale[DLB_LM_MAX_PARAMS] = { 0 };
  double dp[DLB_LM_MAX_PARAMS], pnew[DLB_LM_MAX_PARAMS];
  int evals = 0, iter = 0, reason = 0, st;

  st = fn(ud, p, r, numeric ? NULL : jac);
  evals++;
  if (st) goto done;
  if (numeric && (st = numjac(fn, ud, n, np, p, r, jac, rtmp, &evals))) goto done;
  if (!allfinite(r, n) || !allfinite(jac, n * np)) {
    st = dlb_fail(DLB_ENUMERIC, "lm: residuals or Jacobian not finite at the starting point");
    goto done;
  }
  double cost = sumsq(r, n), lambda = 1e-3;
  normal(jac, r, n, np, a, g);
  for (;;) {
    double gmax = 0, dmax = 0;
    for (int j = 0; j < np; j++) {
      if (fabs(g[j]) > gmax) gmax = fabs(g[j]);
      if (a[j * np + j] > dscale[j]) dscale[j] = a[j * np + j];
      if (dscale[j] > dmax) dmax = dscale[j];
    }
    double gt = gtol > 0 ? gtol : 1e-14 * (1 + cost) * (dmax > 0 ? sqrt(dmax) : 1);
    if (gmax <= gt || cost == 0) { reason = 3; break; }
    if (iter >= max_iter) {
      st = dlb_fail(DLB_ENUMERIC, "lm: no convergence after %d iterations (cost %g)",
                    max_iter, cost);
      goto done;
    }
    int accepted = 0;
    while (!accepted) {
      memcpy(l, a, sizeof l);
      for (int j = 0; j < np; j++) {
        double d = dscale[j] > 0 ? dscale[j] : (dmax > 0 ? dmax * 1e-12 : 1);
        l[j * np + j] += lambda * d;
      }
      if (cholesky(l, np) != 0) {
        lambda *= 10;
        if (lambda > 1e30) { reason = 4; break; }
        continue;
      }
      double mg[DLB_LM_MAX_PARAMS];
      for (int j = 0; j < np; j++) mg[j] = -g[j];
      cholsolve(l, np, mg, dp);
      double pnorm = 0, dnorm = 0;
      for (int j = 0; j < np; j++) {
        pnew[j] = p[j] + dp[j];
        pnorm += p[j] * p[j];
        dnorm += dp[j] * dp[j];
      }
      st = fn(ud, pnew, rnew, NULL);
      evals++;
      if (st) goto done;
      double cnew = allfinite(rnew, n) && allfinite(pnew, np) ? sumsq(rnew, n) : INFINITY;
      if (cnew < cost) {
        double decrease = cost - cnew;
        memcpy(p, pnew, sizeof(double) * (size_t)np);
        memcpy(r, rnew, sizeof(double) * nn);
        cost = cnew;
        lambda = lambda / 10 > 1e-15 ? lambda / 10 : 1e-15;
        accepted = 1;
        iter++;
        if (decrease <= ftol * cost) reason = 1;
        else if (sqrt(dnorm) <= xtol * (sqrt(pnorm) + xtol)) reason = 2;
      } else {
        if (sqrt(dnorm) <= xtol * (sqrt(pnorm) + xtol)) { reason = 2; break; }
        lambda *= 10;
        if (lambda > 1e30) { reason = 4; break; }
      }
    }
    if (accepted) {
      st = fn(ud, p, r, numeric ? NULL : jac);
      evals++;
      if (st) goto done;
      if (numeric && (st = numjac(fn, ud, n, np, p, r, jac, rtmp, &evals))) goto done;
      if (!allfinite(jac, n * np)) {
        st = dlb_fail(DLB_ENUMERIC, "lm: Jacobian not finite after %d iterations", iter);
        goto done;
      }
      normal(jac, r, n, np, a, g);
    }
    if (reason) break;
  }
  if (cov) covariance(a, n, np, cost, cov);
  if (info) {
    info->iterations = iter;
    info->evaluations = evals;
    info->cost = cost;
    info->reason = reason;
  }
done:
  dlb_free(buf);
  return st;
}
