/*
** test_stats.c — least squares (Householder QR), the sensitivity regression, percentiles,
** means and box statistics, against hand derivations and numpy goldens.
** The numpy goldens come from tests/golden/stats_golden.py, run once with
**   /usr/bin/python3 tests/golden/stats_golden.py      (numpy 1.24.2, Debian 12)
** and pasted here; the C tests rebuild the same inputs from the same formulas.
*/
#include <math.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"

/* Hand derivation: x = {0,1,2}, y = {0,1,1}. xbar = 1, ybar = 2/3, Sxx = 2, Sxy = 1 ->
** slope 1/2, intercept 1/6; residuals -1/6, 1/3, -1/6 -> RSS = 1/6; s^2 = RSS/(n-2) = 1/6;
** se(slope) = sqrt(s^2/Sxx) = sqrt(1/12); TSS = 2/3 -> r2 = 1 - (1/6)/(2/3) = 3/4. */
static void test_lstsq_hand(void) {
  double a[] = { 1, 0,  1, 1,  1, 2 }, b[] = { 0, 1, 1 }, x[2], se[2], rss;
  CHECK(dlb_lstsq(3, 2, a, b, NULL, x, se, &rss) == DLB_OK);
  CHECK_NEAR(x[0], 1.0 / 6, 1e-14);
  CHECK_NEAR(x[1], 0.5, 1e-14);
  CHECK_NEAR(rss, 1.0 / 6, 1e-14);
  CHECK_NEAR(se[1], sqrt(1.0 / 12), 1e-14);
  /* se(intercept) = sqrt(s^2 (1/n + xbar^2/Sxx)) = sqrt(1/6 * (1/3 + 1/2)) */
  CHECK_NEAR(se[0], sqrt(1.0 / 6 * (1.0 / 3 + 0.5)), 1e-14);
}

/* Exact fit: y = 1 + 2x. */
static void test_lstsq_exact(void) {
  double a[] = { 1, 0, 1, 1, 1, 2, 1, 3 }, b[] = { 1, 3, 5, 7 }, x[2], rss;
  CHECK(dlb_lstsq(4, 2, a, b, NULL, x, NULL, &rss) == DLB_OK);
  CHECK_NEAR(x[0], 1, 1e-14);
  CHECK_NEAR(x[1], 2, 1e-14);
  CHECK(rss < 1e-25);
}

/* numpy.linalg.lstsq golden (tests/golden/stats_golden.py, part 1). */
static void test_lstsq_numpy(void) {
  enum { n = 30, p = 4 };
  double a[n * p], b[n], x[p], se[p], rss;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < p; j++) a[i * p + j] = sin(0.7 * i * (j + 1) + j) + (j == 0 ? 1.0 : 0.0);
    b[i] = 1.5 * a[i * p] - 2.0 * a[i * p + 1] + 0.25 * a[i * p + 2] + 3 * a[i * p + 3] + 0.1 * cos(1.3 * i);
  }
  static const double gx[] = { 1.5013178520613351, -1.9569571327379609, 0.24741458372717096,
                               3.0041148993240103 };
  static const double gse[] = { 0.010053517102608042, 0.017999050790420509,
                                0.018014317634560597, 0.018553964978881291 };
  CHECK(dlb_lstsq(n, p, a, b, NULL, x, se, &rss) == DLB_OK);
  for (int j = 0; j < p; j++) {
    CHECK_NEAR(x[j], gx[j], 1e-12);
    CHECK_NEAR(se[j], gse[j], 1e-10);
  }
  CHECK_NEAR(rss, 0.12679873092557215, 1e-10);
}

static void test_lstsq_errors(void) {
  double x[3];
  const char *names[] = { "one", "nodes", "twice_nodes" };
  double a[] = { 1, 1, 2,  1, 2, 4,  1, 3, 6,  1, 5, 10 }, b[] = { 1, 2, 3, 4 };
  CHECK(dlb_lstsq(4, 3, a, b, names, x, NULL, NULL) == DLB_ENUMERIC);
  CHECK(strstr(dlb_last_error(), "twice_nodes") && strstr(dlb_last_error(), "collinear"));
  double z[] = { 1, 0, 1, 0, 1, 0 };
  CHECK(dlb_lstsq(3, 2, z, b, NULL, x, NULL, NULL) == DLB_ENUMERIC);
  CHECK(strstr(dlb_last_error(), "column 2 is all zero") != NULL);
  CHECK(dlb_lstsq(1, 2, a, b, NULL, x, NULL, NULL) == DLB_EINVAL);
  double nan_a[] = { 1, NAN, 1, 1, 1, 2 };
  CHECK(dlb_lstsq(3, 2, nan_a, b, names, x, NULL, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "nodes, row 1") != NULL);
}

/* The regression over normalised inputs, hand example: z = (x - 1) / 1 (sample sd of
** {0,1,2} is 1), so the weight is the raw slope 1/2 and the intercept is ybar = 2/3. */
static void test_regress_hand(void) {
  double x[] = { 0, 1, 2 }, y[] = { 0, 1, 1 };
  const char *names[] = { "x" };
  dlb_regression *r = dlb_regress(3, 1, x, y, names, NULL, 0);
  CHECK(r != NULL);
  if (!r) return;
  const char *nm; double w, se, t;
  CHECK(dlb_regression_terms(r) == 1);
  CHECK(dlb_regression_term(r, 0, &nm, &w, &se, &t) == DLB_OK);
  CHECK(strcmp(nm, "x") == 0);
  CHECK_NEAR(w, 0.5, 1e-14);
  CHECK_NEAR(se, sqrt(1.0 / 12), 1e-14);
  CHECK_NEAR(t, 0.5 / sqrt(1.0 / 12), 1e-13);
  dlb_regress_fit f;
  dlb_regression_fit(r, &f);
  CHECK_NEAR(f.intercept, 2.0 / 3, 1e-14);
  CHECK_NEAR(f.r2, 0.75, 1e-14);
  CHECK_NEAR(f.adj_r2, 1 - 0.25 * 2 / 1, 1e-14); /* 1 - (1-r2)(n-1)/(n-k-1) = 0.5 */
  CHECK(dlb_regression_term(r, 1, &nm, &w, &se, &t) == DLB_EINVAL);
  dlb_regression_free(r);
  /* raw: weights in raw units, intercept of the raw fit (1/6) */
  r = dlb_regress(3, 1, x, y, names, NULL, DLB_REGRESS_RAW);
  CHECK(r != NULL);
  dlb_regression_term(r, 0, NULL, &w, NULL, NULL);
  dlb_regression_fit(r, &f);
  CHECK_NEAR(w, 0.5, 1e-14);
  CHECK_NEAR(f.intercept, 1.0 / 6, 1e-14);
  dlb_regression_free(r);
  /* min-max: z = x/2 so the weight is 1 */
  r = dlb_regress(3, 1, x, y, names, NULL, DLB_REGRESS_MINMAX);
  dlb_regression_term(r, 0, NULL, &w, NULL, NULL);
  CHECK_NEAR(w, 1.0, 1e-14);
  dlb_regression_free(r);
}

/* numpy golden (tests/golden/stats_golden.py, part 2): log on nodes and batch, z-scores
** with ddof=1, pairwise interactions z_a*z_b z-scored again, intercept, lstsq. */
static void test_regress_numpy(void) {
  static const double Ls[] = { 4, 8, 16, 32 }, Ns[] = { 32, 64, 128, 256, 512 },
                      Bs[] = { 64, 256, 1024 };
  enum { n = 60 };
  double x[3 * n], y[n];
  int i = 0;
  for (int a = 0; a < 4; a++) for (int b = 0; b < 5; b++) for (int c = 0; c < 3; c++, i++) {
    double L = Ls[a], N = Ns[b], B = Bs[c];
    x[i] = L; x[n + i] = N; x[2 * n + i] = B;
    y[i] = 0.3 + 0.05 * log(N) + 0.08 * log(B) - 0.002 * L + 0.01 * log(N) * log(B) / 10 +
           0.02 * sin(L * N * B);
  }
  const char *names[] = { "layers", "nodes", "batch" };
  int flags[] = { 0, DLB_REGRESS_LOG, DLB_REGRESS_LOG };
  dlb_regression *r = dlb_regress(n, 3, x, y, names, flags, DLB_REGRESS_INTERACTIONS);
  CHECK(r != NULL);
  if (!r) return;
  static const double gw[] = { 0.98609405036139597, -0.019960830409917488, 0.056742440391992582,
    0.099436428574247615, -0.0006490124225582844, 9.119346314525982e-05, 0.0030576210297501801 };
  static const double gse[] = { 0.0015988129740929825, 0.001612305305905879,
    0.0016123053059058801, 0.0016123053059058801, 0.0016123053059058795,
    0.0016123053059058795, 0.0016123053059058797 };
  static const char *const gnames[] = { "layers", "nodes", "batch", "layers*nodes",
                                        "layers*batch", "nodes*batch" };
  CHECK(dlb_regression_terms(r) == 6);
  dlb_regress_fit f;
  dlb_regression_fit(r, &f);
  CHECK_NEAR(f.intercept, gw[0], 1e-12);
  CHECK_NEAR(f.intercept_se, gse[0], 1e-9);
  CHECK_NEAR(f.r2, 0.98990902979732132, 1e-12);
  CHECK_NEAR(f.adj_r2, 0.98876665581211243, 1e-12);
  for (size_t j = 0; j < 6; j++) {
    const char *nm; double w, se, t;
    dlb_regression_term(r, j, &nm, &w, &se, &t);
    CHECK(strcmp(nm, gnames[j]) == 0);
    CHECK_NEAR(w, gw[j + 1], 1e-10);
    CHECK_NEAR(se, gse[j + 1], 1e-9);
    CHECK_NEAR(t, w / se, 1e-12);
  }
  dlb_regression_free(r);
}

static void test_regress_errors(void) {
  const char *names[] = { "layers", "nodes" };
  double x[] = { 1, 2, 3, 4,  5, 5, 5, 5 }, y[] = { 1, 2, 4, 3 };
  CHECK(dlb_regress(4, 2, x, y, names, NULL, 0) == NULL);
  CHECK(strstr(dlb_last_error(), "'nodes' is constant") != NULL);
  double xc[] = { 1, 2, 3, 4, 5,  2, 4, 6, 8, 10 }, yc[] = { 1, 2, 4, 3, 5 };
  CHECK(dlb_regress(5, 2, xc, yc, names, NULL, 0) == NULL);
  CHECK(strstr(dlb_last_error(), "nodes") && strstr(dlb_last_error(), "collinear"));
  int flags[] = { DLB_REGRESS_LOG, 0 };
  double xl[] = { 1, 0, 3, 4, 5,  1, 4, 6, 8, 11 };
  CHECK(dlb_regress(5, 2, xl, yc, names, flags, 0) == NULL);
  CHECK(strstr(dlb_last_error(), "log of 'layers': row 2") != NULL);
  double yk[] = { 2, 2, 2, 2, 2 }, xo[] = { 1, 2, 3, 4, 5,  1, 4, 6, 8, 11 };
  CHECK(dlb_regress(5, 2, xo, yk, names, NULL, 0) == NULL);
  CHECK(strstr(dlb_last_error(), "y is constant") != NULL);
  CHECK(dlb_regress(3, 2, xo, yk, names, NULL, 0) == NULL);
  CHECK(strstr(dlb_last_error(), "too few") != NULL);
}

/* numpy.percentile golden (tests/golden/stats_golden.py, part 3) and a hand case:
** {1,2,3,4}: rank (n-1)p/100 = 3*0.9 = 2.7 -> 3 + 0.7*(4-3) = 3.7. */
static void test_percentile(void) {
  double d[] = { 3.5, -1, 7, 2, 2, 10, 0.25, 4, 8, 6.5, 1 };
  double ps[] = { 0, 2, 9, 25, 50, 75, 91, 98, 100, 33.3 }, out[10];
  static const double g[] = { -1, -0.75, 0.12499999999999989, 1.5, 3.5, 6.75,
                              8.1999999999999993, 9.6000000000000014, 10, 2 };
  CHECK(dlb_percentiles(d, 11, ps, 10, out) == DLB_OK);
  for (int i = 0; i < 10; i++) CHECK_NEAR(out[i], g[i], 1e-14);
  double h[] = { 4, 1, 3, 2 }, v;
  CHECK(dlb_percentile(h, 4, 90, &v) == DLB_OK);
  CHECK_NEAR(v, 3.7, 1e-14);
  CHECK(dlb_percentile(h, 1, 50, &v) == DLB_OK && v == 4);
  CHECK(dlb_percentile(h, 4, 100.5, &v) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "[0, 100]") != NULL);
  CHECK(dlb_percentile(h, 4, NAN, &v) == DLB_EINVAL);
  CHECK(dlb_percentile(h, 0, 50, &v) == DLB_EINVAL);
  double hn[] = { 1, NAN };
  CHECK(dlb_percentile(hn, 2, 50, &v) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "element 2 is NaN") != NULL);
}

/* Means by hand: {1, 2, 4}: arithmetic 7/3, geometric (8)^(1/3) = 2, harmonic
** 3 / (1 + 1/2 + 1/4) = 12/7. */
static void test_means(void) {
  double d[] = { 1, 2, 4 }, v;
  CHECK(dlb_mean(d, 3, DLB_MEAN_ARITHMETIC, &v) == DLB_OK); CHECK_NEAR(v, 7.0 / 3, 1e-15);
  CHECK(dlb_mean(d, 3, DLB_MEAN_GEOMETRIC, &v) == DLB_OK); CHECK_NEAR(v, 2, 1e-15);
  CHECK(dlb_mean(d, 3, DLB_MEAN_HARMONIC, &v) == DLB_OK); CHECK_NEAR(v, 12.0 / 7, 1e-15);
  double z[] = { 1, 0 };
  CHECK(dlb_mean(z, 2, DLB_MEAN_GEOMETRIC, &v) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "element 2 is 0") != NULL);
  CHECK(dlb_mean(z, 0, DLB_MEAN_ARITHMETIC, &v) == DLB_EINVAL);
}

/* Box statistics: 0..100 has percentile p equal to p, so ParaDnn's box is 2/9/50/91/98
** exactly and nothing lies between the whiskers and the ends but 0, 1, 99, 100. Tukey on
** {1..9, 100}: q1 = 3.25, q3 = 7.75, IQR 4.5, fences -3.5 and 14.5 -> whiskers 1 and 9,
** one outlier. */
static void test_box(void) {
  double d[101];
  for (int i = 0; i <= 100; i++) d[i] = 100 - i;
  dlb_box b;
  CHECK(dlb_box_stats(d, 101, 2, 9, 91, 98, 0, &b) == DLB_OK);
  CHECK_NEAR(b.whisker_lo, 2, 1e-14); CHECK_NEAR(b.q_lo, 9, 1e-14);
  CHECK_NEAR(b.median, 50, 1e-14); CHECK_NEAR(b.q_hi, 91, 1e-14);
  CHECK_NEAR(b.whisker_hi, 98, 1e-14);
  CHECK(b.outliers == 4 && b.n == 101 && b.min == 0 && b.max == 100);
  double t[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 };
  CHECK(dlb_box_stats(t, 10, 0, 0, 0, 0, 1, &b) == DLB_OK);
  CHECK_NEAR(b.q_lo, 3.25, 1e-14); CHECK_NEAR(b.q_hi, 7.75, 1e-14);
  CHECK(b.whisker_lo == 1 && b.whisker_hi == 9 && b.outliers == 1);
  CHECK(dlb_box_stats(t, 10, 9, 2, 91, 98, 0, &b) == DLB_EINVAL);
}

int main(void) {
  RUN(test_lstsq_hand);
  RUN(test_lstsq_exact);
  RUN(test_lstsq_numpy);
  RUN(test_lstsq_errors);
  RUN(test_regress_hand);
  RUN(test_regress_numpy);
  RUN(test_regress_errors);
  RUN(test_percentile);
  RUN(test_means);
  RUN(test_box);
  return check_done();
}
