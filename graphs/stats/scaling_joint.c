/*
** scaling_joint.c — the joint loss law of Hoffmann et al. 2022 ("Chinchilla"), eq. 2:
** L(N, D) = E + A/N^alpha + B/D^beta, fitted as in their Appendix D.2: residuals
** log L_pred - log L_obs with E = e^e, A = e^a, B = e^b, so that
** log L_pred = LSE(e, a - alpha log N, b - beta log D), from a grid of starting points.
** Hoffmann et al. minimise the Huber loss (delta = 1e-3) with L-BFGS; here the Huber loss is
** minimised by iteratively reweighted Levenberg–Marquardt (weights min(1, delta/|r|)), and
** huber_delta <= 0 gives plain least squares in log space. The compute-optimal frontier
** for C = k N D is their eq. 4.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_scaling.h"
#include "dlb_runtime.h"

typedef struct joint {
  int n;
  const double *lN, *lD, *lL; /* logs of the data */
  const double *w;            /* IRLS weights (may be NULL) */
} joint;

/* log L_pred and, when d is not NULL, its gradient in (e, a, b, alpha, beta). */
static double logpred(const double *q, double lN, double lD, double *d) {
  double t0 = q[0], t1 = q[1] - q[3] * lN, t2 = q[2] - q[4] * lD;
  double m = t0 > t1 ? t0 : t1;
  if (t2 > m) m = t2;
  double e0 = exp(t0 - m), e1 = exp(t1 - m), e2 = exp(t2 - m), s = e0 + e1 + e2;
  if (d) {
    d[0] = e0 / s;
    d[1] = e1 / s;
    d[2] = e2 / s;
    d[3] = -d[1] * lN;
    d[4] = -d[2] * lD;
  }
  return m + log(s);
}

static int residuals(void *ud, const double *q, double *r, double *jac) {
  const joint *J = ud;
  double d[5];
  for (int i = 0; i < J->n; i++) {
    double sw = J->w ? sqrt(J->w[i]) : 1;
    r[i] = sw * (logpred(q, J->lN[i], J->lD[i], jac ? d : NULL) - J->lL[i]);
    if (jac) for (int j = 0; j < 5; j++) jac[i * 5 + j] = sw * d[j];
  }
  return 0;
}

static double cost(const joint *J, const double *q) {
  double c = 0;
  for (int i = 0; i < J->n; i++) {
    double e = logpred(q, J->lN[i], J->lD[i], NULL) - J->lL[i];
    c += (J->w ? J->w[i] : 1) * e * e;
  }
  return isfinite(c) ? c : INFINITY;
}

enum { KEEP = 6 };

/* Fit the joint law; see dlb_scaling.h. */
int dlb_scaling_fit_joint(int n, const double *N, const double *D, const double *L,
                          double huber_delta, dlb_joint_fit *out) {
  if (!out) return dlb_fail(DLB_EINVAL, "fit_joint: no output");
  if (n < 5)
    return dlb_fail(DLB_EINVAL, "fit_joint: %d runs for the 5 parameters E, A, B, alpha, "
                    "beta (need at least 5)", n);
  if (!N || !D || !L) return dlb_fail(DLB_EINVAL, "fit_joint: missing N, D or L");
  if (isnan(huber_delta)) return dlb_fail(DLB_EINVAL, "fit_joint: huber delta is NaN");
  double *buf = dlb_malloc(sizeof(double) * (size_t)n * 4);
  if (!buf) return dlb_fail(DLB_ENOMEM, "fit_joint: out of memory");
  double *lN = buf, *lD = lN + n, *lL = lD + n, *w = lL + n;
  double lmin = INFINITY, mean = 0;
  for (int i = 0; i < n; i++) {
    const char *bad = !(N[i] > 0) || !isfinite(N[i]) ? "N (parameters)"
                    : !(D[i] > 0) || !isfinite(D[i]) ? "D (tokens)"
                    : !(L[i] > 0) || !isfinite(L[i]) ? "L (loss)" : NULL;
    if (bad) {
      double v = bad[0] == 'N' ? N[i] : bad[0] == 'D' ? D[i] : L[i];
      dlb_free(buf);
      return dlb_fail(DLB_EINVAL, "fit_joint: %s of run %d is %g (need a finite value > 0)",
                      bad, i + 1, v);
    }
    lN[i] = log(N[i]); lD[i] = log(D[i]); lL[i] = log(L[i]);
    w[i] = 1;
    if (L[i] < lmin) lmin = L[i];
    mean += lL[i];
  }
  mean /= n;
  joint J = { n, lN, lD, lL, NULL };
  /* A grid of starts (a coarser version of Hoffmann et al.'s); keep the best few. */
  static const double ab[] = { 0.15, 0.3, 0.5, 0.8 };
  static const double ef[] = { 0.3, 0.7, 0.95 };
  static const double la[] = { 0, 4, 8, 12 };
  double starts[KEEP][5], scost[KEEP];
  int ns = 0;
  for (size_t i1 = 0; i1 < 4; i1++) for (size_t i2 = 0; i2 < 4; i2++)
  for (size_t i3 = 0; i3 < 3; i3++) for (size_t i4 = 0; i4 < 4; i4++)
  for (size_t i5 = 0; i5 < 4; i5++) {
    double q[5] = { log(lmin * ef[i3]), la[i4], la[i5], ab[i1], ab[i2] };
    double c = cost(&J, q);
    if (!isfinite(c)) continue;
    int pos;
    if (ns < KEEP) pos = ns++;
    else if (c < scost[KEEP - 1]) pos = KEEP - 1;
    else continue;
    while (pos > 0 && scost[pos - 1] > c) {
      memcpy(starts[pos], starts[pos - 1], sizeof starts[0]);
      scost[pos] = scost[pos - 1];
      pos--;
    }
    memcpy(starts[pos], q, sizeof q);
    scost[pos] = c;
  }
  double best[5] = { 0 }, bestcov[25] = { 0 }, bestc = INFINITY;
  int iters = 0, st = DLB_OK;
  dlb_lm_options opt = { 0 };
  opt.max_iter = 500;
  for (int s = 0; s < ns; s++) {
    double q[5], cov[25];
    memcpy(q, starts[s], sizeof q);
    dlb_lm_info info;
    for (int i = 0; i < n; i++) w[i] = 1;
    J.w = NULL;
    if (dlb_lm_solve(residuals, &J, n, 5, q, &opt, &info, cov) != DLB_OK) continue;
    int it = info.iterations, ok = 1;
    if (huber_delta > 0) {
      /* IRLS for the Huber loss: reweight, refit, until the weights settle */
      J.w = w;
      for (int round = 0; round < 100; round++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
          double r = fabs(logpred(q, lN[i], lD[i], NULL) - lL[i]);
          double nw = r <= huber_delta ? 1 : huber_delta / r;
          if (fabs(nw - w[i]) > 1e-9 * (nw > w[i] ? nw : w[i])) changed = 1;
          w[i] = nw;
        }
        if (!changed && round > 0) break;
        if (dlb_lm_solve(residuals, &J, n, 5, q, &opt, &info, cov) != DLB_OK) { ok = 0; break; }
        it += info.iterations;
      }
    }
    if (!ok) continue;
    double c;
    if (huber_delta > 0) { /* compare starts by the Huber loss itself */
      c = 0;
      for (int i = 0; i < n; i++) {
        double r = fabs(logpred(q, lN[i], lD[i], NULL) - lL[i]);
        c += r <= huber_delta ? 0.5 * r * r : huber_delta * (r - 0.5 * huber_delta);
      }
    } else {
      c = info.cost;
    }
    if (c < bestc) {
      bestc = c;
      memcpy(best, q, sizeof q);
      memcpy(bestcov, cov, sizeof cov);
      iters = it;
    }
  }
  if (!isfinite(bestc)) {
    char why[512];
    snprintf(why, sizeof why, "%s", dlb_last_error());
    st = dlb_fail(DLB_ENUMERIC, "fit_joint: no starting point converged (%s)", why);
    goto done;
  }
  double rss = 0, tss = 0;
  for (int i = 0; i < n; i++) {
    double e = logpred(best, lN[i], lD[i], NULL) - lL[i];
    rss += e * e;
    tss += (lL[i] - mean) * (lL[i] - mean);
  }
  out->E = exp(best[0]);
  out->A = exp(best[1]);
  out->B = exp(best[2]);
  out->alpha = best[3];
  out->beta = best[4];
  double val[5] = { out->E, out->A, out->B, 1, 1 };
  for (int j = 0; j < 5; j++) {
    double v = bestcov[j * 5 + j];
    out->se[j] = v >= 0 ? val[j] * sqrt(v) : NAN;
  }
  out->rss = rss;
  out->r2 = tss > 0 ? 1 - rss / tss : 1;
  out->n = n;
  out->iterations = iters;
done:
  dlb_free(buf);
  return st;
}

/* The compute-optimal N and D for C = k N D; see dlb_scaling.h. */
int dlb_scaling_compute_optimal(double E, double A, double B, double alpha, double beta,
                                double C, double k, double *N, double *D, double *loss,
                                double *a, double *b) {
  const char *names[] = { "A", "B", "alpha", "beta", "C", "k" };
  double v[] = { A, B, alpha, beta, C, k };
  for (int i = 0; i < 6; i++)
    if (!(v[i] > 0) || !isfinite(v[i]))
      return dlb_fail(DLB_EINVAL, "compute_optimal: %s = %g (need a finite value > 0)",
                      names[i], v[i]);
  if (!isfinite(E)) return dlb_fail(DLB_EINVAL, "compute_optimal: E = %g is not finite", E);
  double s = alpha + beta, ea = beta / s, eb = alpha / s;
  double G = pow(alpha * A / (beta * B), 1 / s);
  double Nopt = G * pow(C / k, ea), Dopt = pow(C / k, eb) / G;
  if (!isfinite(Nopt) || !isfinite(Dopt) || Nopt <= 0 || Dopt <= 0)
    return dlb_fail(DLB_EINVAL, "compute_optimal: N = %g, D = %g out of range for C = %g",
                    Nopt, Dopt, C);
  if (N) *N = Nopt;
  if (D) *D = Dopt;
  if (loss) *loss = E + A / pow(Nopt, alpha) + B / pow(Dopt, beta);
  if (a) *a = ea;
  if (b) *b = eb;
  return DLB_OK;
}
