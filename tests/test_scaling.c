/*
** test_scaling.c — Levenberg–Marquardt, learning-curve fits, projections, cost fits and
** the joint loss law (graphs/stats/lm.c, graphs/scaling_*.c). Golden numbers carry their source.
*/
#include <math.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_runtime.h"
#include "check.h"

/* A deterministic noise source: uniform in [-1, 1) (Numerical Recipes' LCG constants). */
static unsigned int lcg = 12345u;
static double noise(void) {
  lcg = lcg * 1664525u + 1013904223u;
  return (double)(lcg >> 8) / (double)(1u << 24) * 2 - 1;
}

/* |a/b - 1| <= tol: a relative check that stays strict for small goldens. */
#define CHECK_REL(a, b, tol) CHECK(fabs((double)(a) / (double)(b) - 1) <= (tol))

static int has(const char *fragment) {
  return strstr(dlb_last_error(), fragment) != NULL;
}

/* Hand case 1: Rosenbrock as least squares, r = (10 (p1 - p0^2), 1 - p0): the minimum is
** (1, 1) with cost 0 (Moré, Garbow, Hillstrom 1981, problem 1; start (-1.2, 1)). */
static int rosen(void *ud, const double *p, double *r, double *jac) {
  (void)ud;
  r[0] = 10 * (p[1] - p[0] * p[0]);
  r[1] = 1 - p[0];
  if (jac) {
    jac[0] = -20 * p[0]; jac[1] = 10;
    jac[2] = -1; jac[3] = 0;
  }
  return 0;
}

static void test_lm_rosenbrock(void) {
  double p[2] = { -1.2, 1 };
  dlb_lm_info info;
  CHECK(dlb_lm_solve(rosen, NULL, 2, 2, p, NULL, &info, NULL) == DLB_OK);
  CHECK_NEAR(p[0], 1, 1e-9);
  CHECK_NEAR(p[1], 1, 1e-9);
  CHECK(info.cost < 1e-20);
  /* the same with a forward-difference Jacobian */
  double q[2] = { -1.2, 1 };
  dlb_lm_options opt = { 0 };
  opt.numeric_jac = 1;
  CHECK(dlb_lm_solve(rosen, NULL, 2, 2, q, &opt, &info, NULL) == DLB_OK);
  CHECK_NEAR(q[0], 1, 1e-6);
  CHECK_NEAR(q[1], 1, 1e-6);
}

/* Hand case 2: a straight line through (0,1), (1,3), (2,4): least squares by hand,
** slope = Sxy/Sxx = 3/2, intercept = ybar - slope*xbar = 8/3 - 3/2 = 7/6, rss = 1/6,
** s^2 = rss/(3-2) = 1/6, var(slope) = s^2/Sxx = 1/12. */
static const double lx[] = { 0, 1, 2 }, ly[] = { 1, 3, 4 };
static int line(void *ud, const double *p, double *r, double *jac) {
  (void)ud;
  for (int i = 0; i < 3; i++) {
    r[i] = p[0] + p[1] * lx[i] - ly[i];
    if (jac) { jac[2 * i] = 1; jac[2 * i + 1] = lx[i]; }
  }
  return 0;
}

static void test_lm_line(void) {
  double p[2] = { 0, 0 }, cov[4];
  dlb_lm_info info;
  CHECK(dlb_lm_solve(line, NULL, 3, 2, p, NULL, &info, cov) == DLB_OK);
  CHECK_NEAR(p[0], 7.0 / 6, 1e-10);
  CHECK_NEAR(p[1], 1.5, 1e-10);
  CHECK_NEAR(info.cost, 1.0 / 6, 1e-10);
  CHECK_NEAR(cov[3], 1.0 / 12, 1e-9);
  /* bad sizes */
  CHECK(dlb_lm_solve(line, NULL, 1, 2, p, NULL, NULL, NULL) == DLB_EINVAL);
  CHECK(has("1 residuals for 2 parameters"));
  CHECK(dlb_lm_solve(line, NULL, 3, 0, p, NULL, NULL, NULL) == DLB_EINVAL);
  double bad[2] = { NAN, 0 };
  CHECK(dlb_lm_solve(line, NULL, 3, 2, bad, NULL, NULL, NULL) == DLB_EINVAL);
}

static void test_linfit(void) {
  /* the same line by dlb_scaling_linfit: X = [1 x] */
  double X[6] = { 1, 0, 1, 1, 1, 2 }, c[2], se[2], r2;
  CHECK(dlb_scaling_linfit(3, 2, X, ly, NULL, c, se, &r2) == DLB_OK);
  CHECK_NEAR(c[0], 7.0 / 6, 1e-12);
  CHECK_NEAR(c[1], 1.5, 1e-12);
  CHECK_NEAR(se[1], sqrt(1.0 / 12), 1e-12);
  /* R^2 = 1 - rss/tss, tss = sum (y - 8/3)^2 = 14/3: 1 - (1/6)/(14/3) = 27/28 */
  CHECK_NEAR(r2, 27.0 / 28, 1e-12);
  double dep[6] = { 1, 2, 1, 2, 1, 2 };
  CHECK(dlb_scaling_linfit(3, 2, dep, ly, NULL, c, se, &r2) == DLB_ENUMERIC);
}

/* Exact power law y = 3 x^-0.2: the log-space fit returns it with R^2 = 1. */
static void test_power_exact(void) {
  double x[6], y[6];
  for (int i = 0; i < 6; i++) { x[i] = pow(10, i + 3); y[i] = 3 * pow(x[i], -0.2); }
  dlb_scaling_fit f;
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER, 6, x, y, NULL, &f) == DLB_OK);
  CHECK_NEAR(f.params[0], 3, 1e-10);
  CHECK_NEAR(f.params[1], -0.2, 1e-12);
  CHECK_NEAR(f.r2, 1, 1e-12);
  CHECK(f.np == 2 && f.n == 6);
  double xi;
  CHECK(dlb_scaling_invert(DLB_FORM_POWER, f.params, 3 * pow(1e7, -0.2), &xi) == DLB_OK);
  CHECK_NEAR(xi, 1e7, 1e-9);
}

/* Word LM of Hestness et al. Table 1: alpha = 13.0, beta_g = -0.066; the data for the
** desired 2.48 nat/word is (2.48/13)^(1/-0.066) = 7.97e10 words (hand: ln(13/2.48) =
** 1.65676, / 0.066 = 25.1024, e^25.1024 = 7.969e10), Table 3 prints 77B. */
static void test_invert_word_lm(void) {
  double q[2] = { 13.0, -0.066 }, m;
  CHECK(dlb_scaling_invert(DLB_FORM_POWER, q, 2.48, &m) == DLB_OK);
  CHECK_NEAR(m, exp(log(13.0 / 2.48) / 0.066), 1e-12);
  CHECK_NEAR(m, 7.969e10, 1e-3);
  CHECK(fabs(m / 77e9 - 1) < 0.05);
}

/* power+const recovers exact parameters; and the irreducible-error check. */
static void test_power_const(void) {
  double x[12], y[12];
  for (int i = 0; i < 12; i++) {
    x[i] = 1e3 * pow(2, i);
    y[i] = 4.0 * pow(x[i], -0.35) + 0.05;
  }
  dlb_scaling_fit f;
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 12, x, y, NULL, &f) == DLB_OK);
  CHECK_NEAR(f.params[0], 4.0, 1e-6);
  CHECK_NEAR(f.params[1], -0.35, 1e-7);
  CHECK_NEAR(f.params[2], 0.05, 1e-7);
  CHECK(f.r2 > 1 - 1e-12);
  double m;
  CHECK(dlb_scaling_invert(DLB_FORM_POWER_CONST, f.params, 0.04, &m) == DLB_EINVAL);
  CHECK(has("irreducible error"));
  double exact[3] = { 4.0, -0.35, 0.05 };
  CHECK(dlb_scaling_invert(DLB_FORM_POWER_CONST, exact, 0.05, &m) == DLB_EINVAL);
  CHECK(dlb_scaling_invert(DLB_FORM_POWER_CONST, f.params, y[5], &m) == DLB_OK);
  CHECK_NEAR(m, x[5], 1e-6);
}

/* Golden numbers from scipy 1.10.1 (Debian 12 python3-scipy), curve_fit on the same data:
**   /usr/bin/python3 - <<'PY'
**   import numpy as np; from scipy.optimize import curve_fit
**   s = 12345
**   def noise():
**       global s; s = (s * 1664525 + 1013904223) % 2**32
**       return (s >> 8) / float(1 << 24) * 2 - 1
**   x = np.array([1e3 * 2.0**i for i in range(12)])
**   y = np.array([(4 * xi**-0.35 + 0.05) * (1 + 0.02 * noise()) for xi in x])
**   p, c = curve_fit(lambda x, a, b, g: a * x**b + g, x, y, p0=(1, -0.3, 0.01), maxfev=20000)
**   print(list(y), list(p), list(np.sqrt(np.diag(c))))
**   PY
** popt = [3.541133854134352, -0.33421448382783936, 0.046446696369777045]
** perr = [0.14202701993652483, 0.006254790057939565, 0.002405953848348593] */
static const double golden_y[12] = {
  0.3987021154673568, 0.323328670181787, 0.26991685874597726, 0.22337724193345168,
  0.18812404882515388, 0.1535701392226479, 0.13313475856936038, 0.11546626288379627,
  0.1015778949234087, 0.09118427426894957, 0.0800102112072691, 0.07545131933747806
};

static void test_power_const_scipy(void) {
  double x[12];
  for (int i = 0; i < 12; i++) x[i] = 1e3 * pow(2, i);
  dlb_scaling_fit f;
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 12, x, golden_y, NULL, &f) == DLB_OK);
  /* scipy: popt and sqrt(diag(pcov)) */
  CHECK_REL(f.params[0], 3.541133854134352, 1e-6);
  CHECK_REL(f.params[1], -0.33421448382783936, 1e-6);
  CHECK_REL(f.params[2], 0.046446696369777045, 1e-6);
  CHECK_REL(f.se[0], 0.14202701993652483, 1e-4);
  CHECK_REL(f.se[1], 0.006254790057939565, 1e-4);
  CHECK_REL(f.se[2], 0.002405953848348593, 1e-4);
}

/* Weights: scipy's curve_fit(..., sigma=0.02*y) on the same data (the command above with
** `sigma = 0.02 * y` added) gives popt = [3.701684090502413, -0.3407388889865614,
** 0.048349738428074156], perr = [0.19554628852878828, 0.007176946960605405,
** 0.0018954783669150148]; our weight is 1/sigma^2. */
static void test_power_const_scipy_weighted(void) {
  double x[12], w[12];
  for (int i = 0; i < 12; i++) {
    x[i] = 1e3 * pow(2, i);
    w[i] = 1 / (0.02 * golden_y[i] * 0.02 * golden_y[i]);
  }
  dlb_scaling_fit f;
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 12, x, golden_y, w, &f) == DLB_OK);
  CHECK_REL(f.params[0], 3.701684090502413, 1e-6);
  CHECK_REL(f.params[1], -0.3407388889865614, 1e-6);
  CHECK_REL(f.params[2], 0.048349738428074156, 1e-6);
  CHECK_REL(f.se[0], 0.19554628852878828, 1e-4);
  CHECK_REL(f.se[1], 0.007176946960605405, 1e-4);
  CHECK_REL(f.se[2], 0.0018954783669150148, 1e-4);
}

/* The three-region curve (Hestness et al. Fig. 6) recovers its exact parameters. */
static void test_three_region(void) {
  double q[4] = { 30.0, -0.5, 0.02, 0.9 }, x[25], y[25];
  for (int i = 0; i < 25; i++) {
    x[i] = pow(10, 1 + i * 0.3);
    CHECK(dlb_scaling_eval(DLB_FORM_THREE_REGION, q, x[i], &y[i]) == DLB_OK);
  }
  /* small data: near the plateau; large data: near gamma */
  CHECK(y[0] > 0.8 && y[24] < 0.03);
  dlb_scaling_fit f;
  CHECK(dlb_scaling_fit_curve(DLB_FORM_THREE_REGION, 25, x, y, NULL, &f) == DLB_OK);
  for (int j = 0; j < 4; j++) CHECK_NEAR(f.params[j], q[j], 1e-5);
  double m;
  CHECK(dlb_scaling_invert(DLB_FORM_THREE_REGION, q, y[10], &m) == DLB_OK);
  CHECK_NEAR(m, x[10], 1e-8);
  CHECK(dlb_scaling_invert(DLB_FORM_THREE_REGION, q, 0.95, &m) == DLB_EINVAL);
  CHECK(has("plateau"));
  CHECK(dlb_scaling_invert(DLB_FORM_THREE_REGION, q, 0.01, &m) == DLB_EINVAL);
  CHECK(has("irreducible"));
  /* power+const data without a small-data region: no plateau to fit, a clear error */
  double x2[12], y2[12];
  for (int i = 0; i < 12; i++) { x2[i] = 1e3 * pow(2, i + 1); y2[i] = 4 * pow(x2[i], -0.3) + 0.02; }
  CHECK(dlb_scaling_fit_curve(DLB_FORM_THREE_REGION, 12, x2, y2, NULL, &f) == DLB_ENUMERIC);
  CHECK(has("no small-data plateau"));
  /* a non-monotone triple cannot be fitted by power+const: an error, not a wrong number */
  double x3[3] = { 1e3, 1e4, 1e5 }, y3[3] = { 0.5, 0.3, 0.31 };
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 3, x3, y3, NULL, &f) == DLB_ENUMERIC);
  CHECK(has("monotone"));
}

static void test_bad_data(void) {
  double x[3] = { 1, 2, 3 }, y[3] = { 1, 0.5, 0.3 }, w[3] = { 1, 1, 1 };
  dlb_scaling_fit f;
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 2, x, y, NULL, &f) == DLB_EINVAL);
  CHECK(has("2 points") && has("3 parameters"));
  double xb[3] = { 1, -2, 3 };
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER, 3, xb, y, NULL, &f) == DLB_EINVAL);
  CHECK(has("x of point 2 is -2"));
  double yb[3] = { 1, 0, 0.3 };
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER, 3, x, yb, NULL, &f) == DLB_EINVAL);
  CHECK(has("y of point 2 is 0"));
  double yn[3] = { 1, 0.5, NAN };
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 3, x, yn, NULL, &f) == DLB_EINVAL);
  CHECK(has("point 3 is NaN"));
  double xs[3] = { 2, 2, 2 };
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER, 3, xs, y, NULL, &f) == DLB_EINVAL);
  CHECK(has("same x"));
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 3, xs, y, NULL, &f) == DLB_EINVAL);
  w[1] = -1;
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER, 3, x, y, w, &f) == DLB_EINVAL);
  CHECK(has("weight of point 2"));
  w[1] = 0; /* a zero weight leaves 2 points: enough for the power law, not for +const */
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER, 3, x, y, w, &f) == DLB_OK);
  CHECK(f.n == 2 && isnan(f.se[1]));
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 3, x, y, w, &f) == DLB_EINVAL);
  CHECK(dlb_scaling_fit_curve(7, 3, x, y, NULL, &f) == DLB_EINVAL);
  CHECK(has("unknown form 7"));
  double q[2] = { 1, 0 }, m;
  CHECK(dlb_scaling_invert(DLB_FORM_POWER, q, 0.5, &m) == DLB_EINVAL);
  CHECK(has("flat"));
  double q2[2] = { 1, -0.5 };
  CHECK(dlb_scaling_invert(DLB_FORM_POWER, q2, -0.5, &m) == DLB_EINVAL);
}

/* A quick randomized check: random finite/non-finite/non-positive inputs never crash and
** either succeed with finite parameters or fail with a message. */
static void test_fuzz(void) {
  static const double specials[] = { 0, -1, NAN, INFINITY, -INFINITY, 1e-300, 1e300 };
  for (int t = 0; t < 400; t++) {
    int n = 1 + (int)((noise() + 1) * 6);
    double x[16], y[16];
    for (int i = 0; i < n; i++) {
      x[i] = pow(10, 3 * (noise() + 1));
      y[i] = (noise() + 1.2);
      if (noise() > 0.8) x[i] = specials[(int)((noise() + 1) * 3.49)];
      if (noise() > 0.8) y[i] = specials[(int)((noise() + 1) * 3.49)];
    }
    for (int form = 0; form < 3; form++) {
      dlb_scaling_fit f;
      int st = dlb_scaling_fit_curve(form, n, x, y, NULL, &f);
      if (st == DLB_OK) {
        for (int j = 0; j < f.np; j++) CHECK(isfinite(f.params[j]));
      } else {
        CHECK(strlen(dlb_last_error()) > 10);
      }
    }
  }
}

static void test_bootstrap(void) {
  double x[12], se[3], lo[3], hi[3], se2[3], lo2[3], hi2[3];
  for (int i = 0; i < 12; i++) x[i] = 1e3 * pow(2, i);
  int used;
  CHECK(dlb_scaling_bootstrap(DLB_FORM_POWER_CONST, 12, x, golden_y, NULL, 200, 7,
                              se, lo, hi, &used) == DLB_OK);
  CHECK(used >= 100);
  dlb_scaling_fit f;
  CHECK(dlb_scaling_fit_curve(DLB_FORM_POWER_CONST, 12, x, golden_y, NULL, &f) == DLB_OK);
  for (int j = 0; j < 3; j++) {
    CHECK(se[j] > 0 && lo[j] < f.params[j] && f.params[j] < hi[j]);
    /* the bootstrap and Jacobian errors agree within a factor of 3 on well-behaved data */
    CHECK(se[j] < 3 * f.se[j] && f.se[j] < 3 * se[j]);
  }
  CHECK(dlb_scaling_bootstrap(DLB_FORM_POWER_CONST, 12, x, golden_y, NULL, 200, 7,
                              se2, lo2, hi2, &used) == DLB_OK);
  CHECK(se2[0] == se[0] && lo2[1] == lo[1] && hi2[2] == hi[2]); /* deterministic per seed */
  CHECK(dlb_scaling_bootstrap(DLB_FORM_POWER, 12, x, golden_y, NULL, 1, 7,
                              se, lo, hi, &used) == DLB_EINVAL);
  CHECK(dlb_scaling_bootstrap(DLB_FORM_POWER, 12, x, golden_y, NULL, 10, -1,
                              se, lo, hi, &used) == DLB_EINVAL);
  CHECK(has("seed -1"));
  /* an integer seed, as the message says (before review7: 1.5 ran as seed 1) */
  CHECK(dlb_scaling_bootstrap(DLB_FORM_POWER, 12, x, golden_y, NULL, 10, 1.5,
                              se, lo, hi, &used) == DLB_EINVAL);
  CHECK(has("seed 1.5 (need an integer"));
}

/* Synthetic steps from Hestness et al. Table 2, word LM: 481 b FLOPs/param,
** 1755 + 30784 b/sqrt(p) bytes/param, 11.94 bytes/param footprint. */
static void test_fit_costs(void) {
  double p[8], b[8], fl[8], by[8], fo[8];
  for (int i = 0; i < 8; i++) {
    p[i] = 1e7 * pow(3, i);
    b[i] = i % 2 ? 64 : 128;
    fl[i] = 481 * b[i] * p[i];
    by[i] = 1755 * p[i] + 30784 * b[i] * sqrt(p[i]);
    fo[i] = 11.94 * p[i];
  }
  dlb_cost_fit c;
  CHECK(dlb_scaling_fit_costs(8, p, b, fl, by, fo, &c) == DLB_OK);
  CHECK_NEAR(c.gamma_c, 481, 1e-10);
  CHECK_NEAR(c.lambda, 1755, 1e-9);
  CHECK_NEAR(c.mu, 30784, 1e-9);
  CHECK_NEAR(c.delta, 11.94, 1e-10);
  CHECK_NEAR(c.bytes_r2, 1, 1e-12);
  CHECK(dlb_scaling_fit_costs(8, p, b, fl, NULL, NULL, &c) == DLB_OK);
  CHECK(isnan(c.lambda) && isnan(c.delta));
  fl[3] = 0;
  CHECK(dlb_scaling_fit_costs(8, p, b, fl, by, fo, &c) == DLB_EINVAL);
  CHECK(has("flops of row 4"));
}

/* Hoffmann et al. 2022, eq. 10: E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28.
** Synthetic runs on a grid of N and D (exact, then with 1% multiplicative noise). */
static void test_joint(void) {
  double N[48], D[48], L[48];
  int n = 0;
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 6; j++) {
      N[n] = 1e7 * pow(3, i);
      D[n] = 1e9 * pow(4, j);
      L[n] = 1.69 + 406.4 / pow(N[n], 0.34) + 410.7 / pow(D[n], 0.28);
      n++;
    }
  dlb_joint_fit f;
  CHECK(dlb_scaling_fit_joint(n, N, D, L, 0, &f) == DLB_OK);
  CHECK_NEAR(f.E, 1.69, 1e-5);
  CHECK_NEAR(f.A, 406.4, 1e-4);
  CHECK_NEAR(f.B, 410.7, 1e-4);
  CHECK_NEAR(f.alpha, 0.34, 1e-6);
  CHECK_NEAR(f.beta, 0.28, 1e-6);
  CHECK(dlb_scaling_fit_joint(n, N, D, L, 1e-3, &f) == DLB_OK); /* Huber, as the paper */
  CHECK_NEAR(f.alpha, 0.34, 1e-5);
  CHECK_NEAR(f.beta, 0.28, 1e-5);
  for (int i = 0; i < n; i++) L[i] *= 1 + 0.01 * noise();
  CHECK(dlb_scaling_fit_joint(n, N, D, L, 1e-3, &f) == DLB_OK);
  CHECK(fabs(f.alpha - 0.34) < 0.05 && fabs(f.beta - 0.28) < 0.05);
  CHECK(fabs(f.E - 1.69) < 0.1);
  L[5] = -1;
  CHECK(dlb_scaling_fit_joint(n, N, D, L, 0, &f) == DLB_EINVAL);
  CHECK(has("L (loss) of run 6"));
  CHECK(dlb_scaling_fit_joint(4, N, D, L, 0, &f) == DLB_EINVAL);
}

/* Compute-optimal allocation with Hoffmann et al.'s eq. 10 fit: a = beta/(alpha+beta) =
** 0.28/0.62 = 0.45161, b = 0.34/0.62 = 0.54839; and N*D = C/k, and N_opt minimises L along
** the budget (checked by nudging N both ways). */
static void test_compute_optimal(void) {
  double N, D, loss, a, b, C = 5.76e23; /* Chinchilla's (Gopher's) budget, Hoffmann §3 */
  CHECK(dlb_scaling_compute_optimal(1.69, 406.4, 410.7, 0.34, 0.28, C, 6, &N, &D, &loss,
                                    &a, &b) == DLB_OK);
  CHECK_NEAR(a, 0.28 / 0.62, 1e-12);
  CHECK_NEAR(b, 0.34 / 0.62, 1e-12);
  CHECK_NEAR(N * D * 6, C, 1e-12);
  for (int s = -1; s <= 1; s += 2) {
    double N2 = N * (1 + 0.05 * s), D2 = C / (6 * N2);
    double l2 = 1.69 + 406.4 / pow(N2, 0.34) + 410.7 / pow(D2, 0.28);
    CHECK(l2 > loss);
  }
  /* doubling C multiplies N by 2^a */
  double N2;
  CHECK(dlb_scaling_compute_optimal(1.69, 406.4, 410.7, 0.34, 0.28, 2 * C, 6, &N2, NULL,
                                    NULL, NULL, NULL) == DLB_OK);
  CHECK_NEAR(N2 / N, pow(2, a), 1e-12);
  CHECK(dlb_scaling_compute_optimal(1.69, 406.4, 410.7, 0.34, 0.28, -1, 6, &N, &D, NULL,
                                    NULL, NULL) == DLB_EINVAL);
  CHECK(has("C = -1"));
}

int main(void) {
  RUN(test_lm_rosenbrock);
  RUN(test_lm_line);
  RUN(test_linfit);
  RUN(test_power_exact);
  RUN(test_invert_word_lm);
  RUN(test_power_const);
  RUN(test_power_const_scipy);
  RUN(test_power_const_scipy_weighted);
  RUN(test_three_region);
  RUN(test_bad_data);
  RUN(test_fuzz);
  RUN(test_bootstrap);
  RUN(test_fit_costs);
  RUN(test_joint);
  RUN(test_compute_optimal);
  return check_done();
}
