/*
** dlb_scaling.h — scaling laws: learning-curve and model-size power laws, their fits
** (log-space least squares, Levenberg–Marquardt), projections, the joint loss law
** L(N, D) of Hoffmann et al. 2022, and a general small nonlinear least-squares solver.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
**
** Sources: Hestness, Ardalani, Diamos, "Beyond Human-Level Accuracy" (PPoPP'19) §3 eq. 1-2
** (learning curve eps(m) = alpha*m^beta_g, model size p(m) = sigma*m^beta_p), §3.2 Fig. 6
** (small-data, power-law and irreducible regions), §4 (c_t = gamma*p, a_t = lambda*p +
** mu*b*sqrt(p), f_t = delta*p); Hoffmann et al. 2022 eq. 2, 4, 10 (L = E + A/N^alpha +
** B/D^beta and its compute-optimal frontier).
*/
#ifndef DLB_SCALING_H
#define DLB_SCALING_H

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* Learning-curve forms; params[] order per form:
**   DLB_FORM_POWER        y = alpha * x^beta                          {alpha, beta}
**   DLB_FORM_POWER_CONST  y = alpha * x^beta + gamma                  {alpha, beta, gamma}
**   DLB_FORM_THREE_REGION y = gamma + P*A/(P + A), A = alpha*x^beta,
**                         P = plateau - gamma (small-data plateau, power law, irreducible
**                         error: a smooth version of Hestness et al. Fig. 6)
**                                                                     {alpha, beta, gamma, plateau} */
enum {
  DLB_FORM_POWER = 0,
  DLB_FORM_POWER_CONST = 1,
  DLB_FORM_THREE_REGION = 2,
  DLB_SCALING_MAX_PARAMS = 5
};

/* The result of a learning-curve fit. se[] are standard errors from the Jacobian at the
** solution: cov = s^2 (J'WJ)^-1 with s^2 = rss/(n - np) (as scipy's curve_fit with
** absolute_sigma=False); NaN when n == np or J'WJ is singular. For DLB_FORM_POWER the fit
** is weighted linear least squares of log y on log x: rss and r2 are in log space, and
** se[0] (alpha) is alpha * se(log alpha). For the other forms rss and r2 are in y space. */
typedef struct dlb_scaling_fit {
  int form;
  int np;           /* number of parameters of the form */
  int n;            /* points used (weight > 0) */
  int iterations;   /* Levenberg-Marquardt iterations (0 for the log-space fit) */
  double params[5];
  double se[5];
  double rss;       /* weighted residual sum of squares */
  double r2;        /* weighted coefficient of determination */
} dlb_scaling_fit;

/* Number of parameters of a form, or a negative status for an unknown form. */
DLB_API int dlb_scaling_form_params(int form);

/* Fit `form` to n points (x[i], y[i]) with weights w[i] >= 0 (w may be NULL: all 1; a
** weight multiplies the squared residual). x must be > 0; for DLB_FORM_POWER y must be
** > 0. Errors (DLB_EINVAL) name the offending point (1-based); DLB_ENUMERIC when the
** solver does not converge. */
DLB_API int dlb_scaling_fit_curve(int form, int n, const double *x, const double *y,
                          const double *w, dlb_scaling_fit *out);

/* y = f(x) for a form and its params. */
DLB_API int dlb_scaling_eval(int form, const double *params, double x, double *y);

/* The x at which the curve reaches y (the data needed for a target error). DLB_EINVAL when
** the target is unreachable: at or below the irreducible error gamma, at or above the
** small-data plateau, or of the wrong sign for the power law. */
DLB_API int dlb_scaling_invert(int form, const double *params, double y, double *x);

/* Bootstrap (resample points with replacement `reps` times, refit): per-parameter
** standard deviation se[np] and 2.5/97.5 percentiles lo[np], hi[np]. Deterministic for a
** seed. Resamples whose fit fails are skipped; *used receives how many succeeded (an error
** if fewer than half). */
DLB_API int dlb_scaling_bootstrap(int form, int n, const double *x, const double *y,
                          const double *w, int reps, double seed,
                          double *se, double *lo, double *hi, int *used);
/* The same resampled fits, kept: samples[r*np + j] is parameter j of the r-th successful
** resample (room for reps*np); *used receives how many (an error if fewer than half).
** Same seed, same samples as dlb_scaling_bootstrap. */
DLB_API int dlb_scaling_bootstrap_samples(int form, int n, const double *x, const double *y,
                                  const double *w, int reps, double seed, double *samples,
                                  int *used);
/* se, lo (2.5th percentile), hi (97.5th) of np parameters from `used` samples laid out as
** dlb_scaling_bootstrap_samples writes them. */
DLB_API int dlb_scaling_bootstrap_stats(int np, int used, const double *samples, double *se,
                                double *lo, double *hi);

/* Weighted linear least squares: minimise sum_i w[i] (y[i] - sum_j X[i*k+j] coef[j])^2
** (w may be NULL). se[k] as above (may be NULL); *r2 (may be NULL) is the weighted R^2
** about the weighted mean when the design has an intercept-like column, else about 0. */
DLB_API int dlb_scaling_linfit(int n, int k, const double *X, const double *y, const double *w,
                       double *coef, double *se, double *r2);

/* Asymptotic per-parameter costs of Hestness et al. §4 / Table 2 fitted from measured
** training steps (p params, b subbatch, flops, bytes and footprint per step) by
** relative-error least squares (weights 1/value^2, as the values span decades):
**   flops = gamma_c * b * p,  bytes = lambda * p + mu * b * sqrt(p),  footprint = delta * p.
** Any of flops/bytes/footprint may be NULL (its coefficients are then NaN). */
typedef struct dlb_cost_fit {
  double gamma_c, gamma_se, gamma_r2;       /* FLOPs per parameter per sample */
  double lambda, lambda_se, mu, mu_se, bytes_r2;
  double delta, delta_se, footprint_r2;     /* footprint bytes per parameter */
} dlb_cost_fit;
DLB_API int dlb_scaling_fit_costs(int n, const double *p, const double *b, const double *flops,
                          const double *bytes, const double *footprint, dlb_cost_fit *out);

/* The joint loss law L(N, D) = E + A/N^alpha + B/D^beta (Hoffmann et al. 2022, eq. 2),
** fitted like the paper in log space: residual log L_pred - log L_obs with the
** parameterisation E = e^e, A = e^a, B = e^b, from a grid of starting points; with
** huber_delta > 0 the loss is the Huber loss of those residuals (iteratively reweighted
** Levenberg-Marquardt), with huber_delta <= 0 plain least squares. se[] order: E, A, B,
** alpha, beta (delta method for E, A, B). */
typedef struct dlb_joint_fit {
  double E, A, B, alpha, beta;
  double se[5];
  double rss;       /* sum of squared log residuals */
  double r2;        /* R^2 of log L */
  int n;
  int iterations;
} dlb_joint_fit;
DLB_API int dlb_scaling_fit_joint(int n, const double *N, const double *D, const double *L,
                          double huber_delta, dlb_joint_fit *out);

/* Compute-optimal allocation for a budget of C FLOPs with C = k*N*D (k = 6 in Hoffmann et
** al.): N_opt = G (C/k)^a, D_opt = (C/k)^b / G, G = (alpha A / (beta B))^(1/(alpha+beta)),
** a = beta/(alpha+beta), b = alpha/(alpha+beta) (Hoffmann et al. 2022, eq. 4); *loss is
** L(N_opt, D_opt). Any output pointer may be NULL. */
DLB_API int dlb_scaling_compute_optimal(double E, double A, double B, double alpha, double beta,
                                double C, double k, double *N, double *D, double *loss,
                                double *a, double *b);
/* DLB_FFI_END */

/* -- C only (callbacks; not in the FFI region) --------------------------------------
** Levenberg-Marquardt for small nonlinear least-squares problems: minimise sum_i r_i(p)^2
** over np <= DLB_LM_MAX_PARAMS parameters. fn fills r[n] and, when jac is not NULL,
** jac[i*np + j] = d r_i / d p_j; it returns 0, or nonzero to stop the solver (its message,
** if it recorded one with the library's error model, is kept). With opt->numeric_jac the
** Jacobian comes from forward differences and fn is only asked for residuals. */
enum { DLB_LM_MAX_PARAMS = 16 };

typedef int (*dlb_lm_fn)(void *ud, const double *p, double *r, double *jac);

typedef struct dlb_lm_options {
  int max_iter;       /* 0: 200 */
  double ftol;        /* stop when the relative decrease of the cost is <= ftol (0: 1e-12) */
  double xtol;        /* ... or the relative step is <= xtol (0: 1e-12) */
  double gtol;        /* ... or max |J'r| <= gtol (0: 1e-14 * (1 + cost)) */
  int numeric_jac;    /* nonzero: forward-difference Jacobian */
} dlb_lm_options;

typedef struct dlb_lm_info {
  int iterations;     /* accepted steps */
  int evaluations;    /* calls of fn */
  double cost;        /* final sum of squares */
  int reason;         /* 1 ftol, 2 xtol, 3 gtol, 4 no further decrease possible */
} dlb_lm_info;

/* Solve in place from the starting point p[np]. opt and info may be NULL. cov (np*np,
** may be NULL) receives cost/(n-np) * (J'J)^-1 at the solution (NaN when n == np or J'J
** is singular). Returns DLB_OK, DLB_EINVAL (bad sizes, non-finite start), DLB_ENUMERIC
** (non-finite residuals at the start, no convergence in max_iter) or fn's status. */
int dlb_lm_solve(dlb_lm_fn fn, void *ud, int n, int np, double *p,
                 const dlb_lm_options *opt, dlb_lm_info *info, double *cov);

#ifdef __cplusplus
}
#endif

#endif
