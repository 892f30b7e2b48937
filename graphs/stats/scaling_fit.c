/*
** scaling_fit.c — learning-curve fits of Hestness, Ardalani, Diamos (PPoPP'19) §3:
** the power law eps(m) = alpha*m^beta (eq. 1; also p(m) = sigma*m^beta_p, eq. 2) by
** weighted least squares in log space, and the forms with offsets (an irreducible error
** gamma; the three-region curve of Fig. 6) by Levenberg–Marquardt (lm.c); evaluation,
** inversion (data needed for a target) and bootstrap uncertainties.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_scaling.h"
#include "dlb_runtime.h"

static const char *form_name(int form) {
  switch (form) {
  case DLB_FORM_POWER: return "power";
  case DLB_FORM_POWER_CONST: return "power+const";
  case DLB_FORM_THREE_REGION: return "three-region";
  default: return "?";
  }
}

/* Number of parameters of a form; see dlb_scaling.h. */
int dlb_scaling_form_params(int form) {
  switch (form) {
  case DLB_FORM_POWER: return 2;
  case DLB_FORM_POWER_CONST: return 3;
  case DLB_FORM_THREE_REGION: return 4;
  default:
    return dlb_fail(DLB_EINVAL, "scaling: unknown form %d (0 power, 1 power+const, "
                    "2 three-region)", form);
  }
}

/* y and, when d is not NULL, dy/dparams at x. */
static double model(int form, const double *q, double x, double *d) {
  double lx = log(x), A = q[0] * exp(q[1] * lx);
  switch (form) {
  case DLB_FORM_POWER:
    if (d) { d[0] = A / q[0]; d[1] = A * lx; }
    return A;
  case DLB_FORM_POWER_CONST:
    if (d) { d[0] = exp(q[1] * lx); d[1] = A * lx; d[2] = 1; }
    return A + q[2];
  default: { /* three-region: gamma + P A / (P + A), P = plateau - gamma */
    double P = q[3] - q[2], s = P + A;
    double dA = P * P / (s * s), dP = A * A / (s * s);
    if (d) {
      d[0] = dA * exp(q[1] * lx);
      d[1] = dA * A * lx;
      d[2] = 1 - dP;
      d[3] = dP;
    }
    return q[2] + P * A / s;
  }
  }
}

/* Evaluate a form; see dlb_scaling.h. */
int dlb_scaling_eval(int form, const double *params, double x, double *y) {
  int np = dlb_scaling_form_params(form);
  if (np < 0) return np;
  if (!params || !y) return dlb_fail(DLB_EINVAL, "scaling eval: missing params or output");
  if (!(x > 0) || !isfinite(x))
    return dlb_fail(DLB_EINVAL, "scaling eval: x = %g (need a finite value > 0)", x);
  *y = model(form, params, x, NULL);
  return DLB_OK;
}

/* x at which the curve reaches y; see dlb_scaling.h. */
int dlb_scaling_invert(int form, const double *q, double y, double *x) {
  int np = dlb_scaling_form_params(form);
  if (np < 0) return np;
  if (!q || !x) return dlb_fail(DLB_EINVAL, "scaling invert: missing params or output");
  if (!isfinite(y)) return dlb_fail(DLB_EINVAL, "scaling invert: the target %g is not finite", y);
  if (q[1] == 0 || !isfinite(q[1]))
    return dlb_fail(DLB_EINVAL, "scaling invert: beta = %g: the curve is flat", q[1]);
  double A; /* the power-law part alpha*x^beta the target needs */
  if (form == DLB_FORM_POWER) {
    A = y;
  } else if (form == DLB_FORM_POWER_CONST) {
    if (q[0] > 0 && y <= q[2])
      return dlb_fail(DLB_EINVAL, "scaling invert: the target %g is at or below the "
                      "irreducible error gamma = %g: no amount of data reaches it", y, q[2]);
    A = y - q[2];
  } else {
    double P = q[3] - q[2], e = y - q[2];
    if (e <= 0)
      return dlb_fail(DLB_EINVAL, "scaling invert: the target %g is at or below the "
                      "irreducible error gamma = %g: no amount of data reaches it", y, q[2]);
    if (e >= P)
      return dlb_fail(DLB_EINVAL, "scaling invert: the target %g is at or above the "
                      "small-data plateau %g", y, q[3]);
    A = P * e / (P - e);
  }
  if (!(A / q[0] > 0))
    return dlb_fail(DLB_EINVAL, "scaling invert: the target %g needs alpha*x^beta = %g, "
                    "of the opposite sign to alpha = %g", y, A, q[0]);
  double v = exp(log(A / q[0]) / q[1]);
  if (!isfinite(v) || v == 0)
    return dlb_fail(DLB_EINVAL, "scaling invert: the target %g needs x = %g, out of range",
                    y, v);
  *x = v;
  return DLB_OK;
}

/* Check the points of a fit. */
static int check_points(int form, int n, const double *x, const double *y, const double *w,
                        int np, int *used) {
  if (n < 0 || (n > 0 && (!x || !y)))
    return dlb_fail(DLB_EINVAL, "scaling fit: missing x or y");
  int u = 0;
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1;
    if (!isfinite(wi) || wi < 0)
      return dlb_fail(DLB_EINVAL, "scaling fit: weight of point %d is %g (need finite, >= 0)",
                      i + 1, wi);
    if (isnan(x[i]) || isnan(y[i]))
      return dlb_fail(DLB_EINVAL, "scaling fit: point %d is NaN (x = %g, y = %g)",
                      i + 1, x[i], y[i]);
    if (!isfinite(x[i]) || !isfinite(y[i]))
      return dlb_fail(DLB_EINVAL, "scaling fit: point %d is infinite (x = %g, y = %g)",
                      i + 1, x[i], y[i]);
    if (!(x[i] > 0))
      return dlb_fail(DLB_EINVAL, "scaling fit: x of point %d is %g: a %s law needs x > 0 "
                      "(it takes log x)", i + 1, x[i], form_name(form));
    if (form == DLB_FORM_POWER && !(y[i] > 0))
      return dlb_fail(DLB_EINVAL, "scaling fit: y of point %d is %g: the power law is fitted "
                      "in log space and needs y > 0", i + 1, y[i]);
    if (wi > 0) u++;
  }
  if (u < np)
    return dlb_fail(DLB_EINVAL, "scaling fit: %d points (with weight > 0) for the %d "
                    "parameters of the %s form", u, np, form_name(form));
  *used = u;
  return DLB_OK;
}

/* Weighted log-space fit of log y = log alpha + beta log x (y - shift > 0 at every
** weighted point). Returns -1 when degenerate (one distinct x). */
static int loglin(int n, const double *x, const double *y, const double *w, double shift,
                  double *la, double *b, double *se_la, double *se_b, double *rss, double *r2) {
  double sw = 0, sx = 0, sy = 0;
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1;
    if (wi == 0) continue;
    double ly = log(y[i] - shift), lx = log(x[i]);
    sw += wi; sx += wi * lx; sy += wi * ly;
  }
  if (!(sw > 0)) return -1;
  double mx = sx / sw, my = sy / sw, sxx = 0, sxy = 0, syy = 0;
  int used = 0;
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1;
    if (wi == 0) continue;
    double dx = log(x[i]) - mx, dy = log(y[i] - shift) - my;
    sxx += wi * dx * dx; sxy += wi * dx * dy; syy += wi * dy * dy;
    used++;
  }
  if (!(sxx > 1e-300 * (sw > 1 ? sw : 1))) return -1;
  *b = sxy / sxx;
  *la = my - *b * mx;
  double res = syy - *b * sxy;
  if (res < 0) res = 0;
  if (rss) *rss = res;
  if (r2) *r2 = syy > 0 ? 1 - res / syy : 1;
  if (se_la && se_b) {
    if (used > 2) {
      double s2 = res / (used - 2);
      *se_b = sqrt(s2 / sxx);
      *se_la = sqrt(s2 * (1 / sw + mx * mx / sxx));
    } else {
      *se_b = *se_la = NAN;
    }
  }
  return 0;
}

typedef struct fitdata {
  int form, n;
  const double *x, *y, *w;
} fitdata;

/* Residuals sqrt(w)(f - y) and their Jacobian for the LM solver. */
static int residuals(void *ud, const double *q, double *r, double *jac) {
  const fitdata *fd = ud;
  int np = fd->form == DLB_FORM_POWER_CONST ? 3 : 4;
  double d[4];
  for (int i = 0; i < fd->n; i++) {
    double sw = fd->w ? sqrt(fd->w[i]) : 1;
    double f = model(fd->form, q, fd->x[i], jac ? d : NULL);
    r[i] = sw * (f - fd->y[i]);
    if (jac) for (int j = 0; j < np; j++) jac[i * np + j] = sw * d[j];
  }
  return 0;
}

static double cost_of(const fitdata *fd, const double *q) {
  double c = 0;
  for (int i = 0; i < fd->n; i++) {
    double wi = fd->w ? fd->w[i] : 1;
    double e = model(fd->form, q, fd->x[i], NULL) - fd->y[i];
    c += wi * e * e;
  }
  return isfinite(c) ? c : INFINITY;
}

/* Starting points for power+const: log-space fits of y - g0 for g0 below min y. */
static int start_power_const(const fitdata *in, double *best) {
  fitdata pc = *in;
  const fitdata *fd = &pc;
  pc.form = DLB_FORM_POWER_CONST;
  double ymin = INFINITY, ymax = -INFINITY;
  for (int i = 0; i < fd->n; i++) {
    if (fd->w && fd->w[i] == 0) continue;
    if (fd->y[i] < ymin) ymin = fd->y[i];
    if (fd->y[i] > ymax) ymax = fd->y[i];
  }
  static const double frac[] = { 0.0, 0.5, 0.8, 0.9, 0.95, 0.99 };
  double span = ymax - ymin, bestc = INFINITY;
  int found = 0;
  for (size_t k = 0; k < sizeof frac / sizeof frac[0]; k++) {
    /* gamma0 from ymin - span (well below) up to just under ymin */
    double g0 = ymin > 0 ? ymin * frac[k] : ymin - span * (1 - frac[k]) - 1e-12;
    if (k == 0 && ymin > 0) g0 = 0;
    double la, b, q[3];
    if (loglin(fd->n, fd->x, fd->y, fd->w, g0 - 1e-12 * (fabs(ymin) + span), &la, &b,
               NULL, NULL, NULL, NULL))
      continue;
    q[0] = exp(la); q[1] = b; q[2] = g0;
    double c = cost_of(fd, q);
    if (c < bestc) { bestc = c; memcpy(best, q, sizeof q); found = 1; }
  }
  return found ? 0 : -1;
}

/* LM from a start; returns status, fills q, cov, info. */
static int lmfit(fitdata *fd, int np, double *q, double *cov, dlb_lm_info *info) {
  dlb_lm_options opt = { 0 };
  opt.max_iter = 400;
  int st = dlb_lm_solve(residuals, fd, fd->n, np, q, &opt, info, cov);
  return st;
}

/* Fit one form to points; see dlb_scaling.h. */
int dlb_scaling_fit_curve(int form, int n, const double *x, const double *y,
                          const double *w, dlb_scaling_fit *out) {
  int np = dlb_scaling_form_params(form);
  if (np < 0) return np;
  if (!out) return dlb_fail(DLB_EINVAL, "scaling fit: no output");
  int used = 0, st;
  if ((st = check_points(form, n, x, y, w, np, &used))) return st;
  memset(out, 0, sizeof *out);
  out->form = form;
  out->np = np;
  out->n = used;
  for (int j = 0; j < 5; j++) out->params[j] = out->se[j] = NAN;
  if (form == DLB_FORM_POWER) {
    double la, b, sla, sb, rss, r2;
    if (loglin(n, x, y, w, 0, &la, &b, &sla, &sb, &rss, &r2))
      return dlb_fail(DLB_EINVAL, "scaling fit: all %d weighted points have the same x: "
                      "the exponent is undetermined", used);
    out->params[0] = exp(la);
    out->params[1] = b;
    out->se[0] = out->params[0] * sla;
    out->se[1] = sb;
    out->rss = rss;
    out->r2 = r2;
    return DLB_OK;
  }
  /* distinct x values: at least 2 for any curve */
  int distinct = 0;
  for (int i = 0; i < n && distinct < 2; i++)
    if ((!w || w[i] > 0) && x[i] != x[0]) distinct = 2;
  if (!distinct)
    return dlb_fail(DLB_EINVAL, "scaling fit: all weighted points have the same x: "
                    "the exponent is undetermined");
  fitdata fd = { form, n, x, y, w };
  double q3[3] = { 0 }, best[4] = { 0 }, cov[16] = { 0 }, bestcov[16] = { 0 };
  double bestcost = INFINITY;
  dlb_lm_info info = { 0 }, bestinfo = { 0 };
  if (start_power_const(&fd, q3))
    return dlb_fail(DLB_ENUMERIC, "scaling fit: no starting point for the %s form",
                    form_name(form));
  fitdata fd3 = { DLB_FORM_POWER_CONST, n, x, y, w };
  int have3 = lmfit(&fd3, 3, q3, cov, &info) == DLB_OK;
  int lastst = dlb_last_status();
  if (form == DLB_FORM_POWER_CONST) {
    if (!have3) {
      /* retry from the log-space start itself with a fresh start point */
      if (start_power_const(&fd, q3) || lmfit(&fd3, 3, q3, cov, &info) != DLB_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", dlb_last_error());
        return dlb_fail(lastst ? lastst : DLB_ENUMERIC, "scaling fit (power+const): %s; "
                        "do the points follow a monotone power law plus a constant?", why);
      }
    }
    memcpy(best, q3, sizeof q3);
    memcpy(bestcov, cov, sizeof(double) * 9);
    bestinfo = info;
    bestcost = info.cost;
  } else {
    double ymax = -INFINITY;
    for (int i = 0; i < n; i++)
      if ((!w || w[i] > 0) && y[i] > ymax) ymax = y[i];
    if (!have3) start_power_const(&fd, q3);
    static const double pl[] = { 1.05, 1.5, 3.0 };
    int unbounded = 0;
    char why[512] = "";
    for (size_t k = 0; k < sizeof pl / sizeof pl[0]; k++) {
      double q[4] = { q3[0], q3[1], q3[2], q3[2] + (ymax - q3[2]) * pl[k] };
      if (!(q[3] > q[2])) q[3] = q[2] + fabs(ymax) * pl[k] + 1e-12;
      if (lmfit(&fd, 4, q, cov, &info) != DLB_OK) {
        snprintf(why, sizeof why, "%s", dlb_last_error());
        /* the plateau running away: the data show no small-data region */
        if (!(q[3] - q[2] < 1e3 * (fabs(ymax - q[2]) + 1e-300))) unbounded = 1;
        continue;
      }
      if (info.cost < bestcost) {
        bestcost = info.cost;
        memcpy(best, q, sizeof q);
        memcpy(bestcov, cov, sizeof(double) * 16);
        bestinfo = info;
      }
    }
    if (!isfinite(bestcost) && unbounded)
      return dlb_fail(DLB_ENUMERIC, "scaling fit (three-region): the data show no small-data "
                      "plateau (the fitted plateau grows without bound); fit the form "
                      "'power+const' instead");
    if (!isfinite(bestcost))
      return dlb_fail(DLB_ENUMERIC, "scaling fit (three-region): no start converged (%s)", why);
  }
  double sw = 0, swy = 0, tss = 0;
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1;
    sw += wi; swy += wi * y[i];
  }
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : 1, e = y[i] - swy / sw;
    tss += wi * e * e;
  }
  for (int j = 0; j < np; j++) {
    out->params[j] = best[j];
    double v = bestcov[j * np + j];
    out->se[j] = v >= 0 ? sqrt(v) : NAN;
  }
  out->iterations = bestinfo.iterations;
  out->rss = bestcost;
  out->r2 = tss > 0 ? 1 - bestcost / tss : 1;
  return DLB_OK;
}

/* xorshift64* — a small deterministic generator for the bootstrap. */
static unsigned long long next(unsigned long long *s) {
  *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Linear-interpolated percentile of sorted v[m], pct in [0, 100]. */
static double pctl(const double *v, int m, double pct) {
  double pos = pct / 100 * (m - 1);
  int i = (int)floor(pos);
  if (i >= m - 1) return v[m - 1];
  return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

/* The resampled fits' parameters; see dlb_scaling.h. */
int dlb_scaling_bootstrap_samples(int form, int n, const double *x, const double *y,
                                  const double *w, int reps, double seed, double *samples,
                                  int *used) {
  int np = dlb_scaling_form_params(form);
  if (np < 0) return np;
  if (reps < 2 || reps > 1000000)
    return dlb_fail(DLB_EINVAL, "scaling bootstrap: %d resamples (2 to 1000000)", reps);
  if (!samples) return dlb_fail(DLB_EINVAL, "scaling bootstrap: missing outputs");
  /* an integer, as the message says: 1.5 was cast to 1 (seed 1's samples, recorded as 1.5) */
  if (!(seed >= 0 && seed < 9007199254740992.0) || seed != floor(seed))
    return dlb_fail(DLB_EINVAL, "scaling bootstrap: seed %g (need an integer in [0, 2^53))",
                    seed);
  dlb_scaling_fit base;
  int st = dlb_scaling_fit_curve(form, n, x, y, w, &base);
  if (st) return st;
  size_t nn = (size_t)n;
  double *buf = dlb_malloc(sizeof(double) * 3 * nn);
  if (!buf) return dlb_fail(DLB_ENOMEM, "scaling bootstrap: out of memory");
  double *bx = buf, *by = bx + nn, *bw = by + nn;
  unsigned long long s = (unsigned long long)seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
  if (s == 0) s = 1;
  int ok = 0;
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n; i++) {
      int k = (int)(next(&s) % nn);
      bx[i] = x[k]; by[i] = y[k]; bw[i] = w ? w[k] : 1;
    }
    dlb_scaling_fit f;
    if (dlb_scaling_fit_curve(form, n, bx, by, bw, &f) != DLB_OK) continue;
    for (int j = 0; j < np; j++) samples[(size_t)ok * (size_t)np + (size_t)j] = f.params[j];
    ok++;
  }
  dlb_free(buf);
  if (ok * 2 < reps)
    return dlb_fail(DLB_ENUMERIC, "scaling bootstrap: only %d of %d resampled fits "
                    "succeeded (too few distinct points?)", ok, reps);
  if (used) *used = ok;
  return DLB_OK;
}

/* Standard deviation and 2.5/97.5 percentiles of bootstrap samples; see dlb_scaling.h. */
int dlb_scaling_bootstrap_stats(int np, int used, const double *samples, double *se,
                                double *lo, double *hi) {
  if (np < 1 || np > 5 || used < 2 || !samples || !se || !lo || !hi)
    return dlb_fail(DLB_EINVAL, "scaling bootstrap: %d samples of %d parameters", used, np);
  double *v = dlb_malloc(sizeof(double) * (size_t)used);
  if (!v) return dlb_fail(DLB_ENOMEM, "scaling bootstrap: out of memory");
  for (int j = 0; j < np; j++) {
    double m = 0, ss = 0;
    for (int r = 0; r < used; r++) v[r] = samples[(size_t)r * (size_t)np + (size_t)j];
    for (int r = 0; r < used; r++) m += v[r];
    m /= used;
    for (int r = 0; r < used; r++) ss += (v[r] - m) * (v[r] - m);
    se[j] = sqrt(ss / (used - 1));
    qsort(v, (size_t)used, sizeof(double), cmp);
    lo[j] = pctl(v, used, 2.5);
    hi[j] = pctl(v, used, 97.5);
  }
  dlb_free(v);
  return DLB_OK;
}

/* Bootstrap standard errors and percentile intervals; see dlb_scaling.h. */
int dlb_scaling_bootstrap(int form, int n, const double *x, const double *y,
                          const double *w, int reps, double seed,
                          double *se, double *lo, double *hi, int *used) {
  int np = dlb_scaling_form_params(form);
  if (np < 0) return np;
  if (reps < 2 || reps > 1000000)
    return dlb_fail(DLB_EINVAL, "scaling bootstrap: %d resamples (2 to 1000000)", reps);
  if (!se || !lo || !hi) return dlb_fail(DLB_EINVAL, "scaling bootstrap: missing outputs");
  double *par = dlb_malloc(sizeof(double) * (size_t)reps * (size_t)np);
  if (!par) return dlb_fail(DLB_ENOMEM, "scaling bootstrap: out of memory");
  int ok = 0;
  int st = dlb_scaling_bootstrap_samples(form, n, x, y, w, reps, seed, par, &ok);
  if (!st) st = dlb_scaling_bootstrap_stats(np, ok, par, se, lo, hi);
  dlb_free(par);
  if (!st && used) *used = ok;
  return st;
}
