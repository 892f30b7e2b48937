/*
** regress.c — least squares by Householder QR and ParaDnn's sensitivity regression
** (seeds/004 §2.3 "Quantification with Linear Regression", §4.1: the weights of a linear
** model over normalised hyperparameters measure sensitivity and keep their signs).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_stats.h"
#include "dlb_runtime.h"

/* A column is collinear when Householder leaves less than this fraction of its norm. */
static const double collinear_tol = 1e-9;

static const char *colname(const char *const *names, size_t j, char *buf, size_t size) {
  if (names && names[j]) return names[j];
  snprintf(buf, size, "column %zu", j + 1);
  return buf;
}

/* Solve min ||A x - b|| by Householder QR; see dlb_stats.h. */
int dlb_lstsq(size_t n, size_t p, const double *a, const double *b,
              const char *const *names, double *x, double *se, double *rss) {
  if (a == NULL || b == NULL || x == NULL) return dlb_fail(DLB_EINVAL, "lstsq: NULL argument");
  if (p == 0) return dlb_fail(DLB_EINVAL, "lstsq: no columns");
  if (n < p) {
    return dlb_fail(DLB_EINVAL, "lstsq: %zu rows cannot determine %zu coefficients", n, p);
  }
  if (se && n == p) {
    return dlb_fail(DLB_EINVAL, "lstsq: standard errors need more rows (%zu) than "
                    "coefficients (%zu)", n, p);
  }
  for (size_t i = 0; i < n * p; i++) {
    if (!isfinite(a[i])) {
      char buf[32];
      return dlb_fail(DLB_EINVAL, "lstsq: %s, row %zu is not finite (%g)",
                      colname(names, i % p, buf, sizeof buf), i / p + 1, a[i]);
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(b[i])) return dlb_fail(DLB_EINVAL, "lstsq: y, row %zu is not finite (%g)", i + 1, b[i]);
  }
  /* q: column-major working copy (n x p), then R in its upper triangle. */
  double *q = dlb_malloc(sizeof(double) * n * p);
  double *c = dlb_malloc(sizeof(double) * n);
  double *rdiag = dlb_malloc(sizeof(double) * p);
  if (!q || !c || !rdiag) {
    dlb_free(q); dlb_free(c); dlb_free(rdiag);
    return dlb_fail(DLB_ENOMEM, "lstsq: out of memory (%zu x %zu)", n, p);
  }
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < p; j++) q[j * n + i] = a[i * p + j];
    c[i] = b[i];
  }
  int status = DLB_OK;
  for (size_t k = 0; k < p && status == DLB_OK; k++) {
    double *v = q + k * n;
    double full = 0, part = 0;
    for (size_t i = 0; i < n; i++) full += v[i] * v[i]; /* the column before projection */
    for (size_t i = k; i < n; i++) part += v[i] * v[i];
    full = sqrt(full);  /* upper rows already hold R entries: full >= original norm part */
    double norm = sqrt(part);
    if (norm == 0 || norm <= collinear_tol * full) {
      char buf[32];
      const char *nm = colname(names, k, buf, sizeof buf);
      if (full == 0) status = dlb_fail(DLB_ENUMERIC, "lstsq: %s is all zero", nm);
      else status = dlb_fail(DLB_ENUMERIC, "lstsq: %s is collinear with the columns before it "
                             "(a linear combination of them)", nm);
      break;
    }
    double alpha = v[k] > 0 ? -norm : norm;
    v[k] -= alpha;                       /* v = x - alpha e1 */
    double vtv = 0;
    for (size_t i = k; i < n; i++) vtv += v[i] * v[i];
    for (size_t j = k + 1; j < p; j++) { /* apply H = I - 2 v v^T / v^T v */
      double *w = q + j * n, d = 0;
      for (size_t i = k; i < n; i++) d += v[i] * w[i];
      d = 2 * d / vtv;
      for (size_t i = k; i < n; i++) w[i] -= d * v[i];
    }
    double d = 0;
    for (size_t i = k; i < n; i++) d += v[i] * c[i];
    d = 2 * d / vtv;
    for (size_t i = k; i < n; i++) c[i] -= d * v[i];
    rdiag[k] = alpha;
  }
  if (status == DLB_OK) {
    /* R x = c[0..p-1]: R[k][j] = q[j*n + k] for j > k, R[k][k] = rdiag[k]. */
    for (size_t kk = p; kk-- > 0;) {
      double s = c[kk];
      for (size_t j = kk + 1; j < p; j++) s -= q[j * n + kk] * x[j];
      x[kk] = s / rdiag[kk];
    }
    double r = 0;
    for (size_t i = p; i < n; i++) r += c[i] * c[i];
    if (rss) *rss = r;
    if (se) {
      /* diag((R^T R)^-1) = row sums of squares of R^-1 (upper triangular). */
      double s2 = r / (double)(n - p);
      double *ri = dlb_calloc(p * p, sizeof(double));
      if (!ri) {
        status = dlb_fail(DLB_ENOMEM, "lstsq: out of memory");
      } else {
        for (size_t j = 0; j < p; j++) { /* column j of R^-1: solve R y = e_j */
          for (size_t kk = j + 1; kk-- > 0;) {
            double s = kk == j ? 1.0 : 0.0;
            for (size_t m = kk + 1; m <= j; m++) s -= q[m * n + kk] * ri[m * p + j];
            ri[kk * p + j] = s / rdiag[kk];
          }
        }
        for (size_t kk = 0; kk < p; kk++) {
          double s = 0;
          for (size_t j = kk; j < p; j++) s += ri[kk * p + j] * ri[kk * p + j];
          se[kk] = sqrt(s2 * s);
        }
        dlb_free(ri);
      }
    }
  }
  dlb_free(q); dlb_free(c); dlb_free(rdiag);
  return status;
}

struct dlb_regression {
  size_t n, k;
  char **names;       /* k term names */
  double *w, *se, *t; /* k each */
  double *shift, *scale;
  dlb_regress_fit fit;
};

/* Free a regression; NULL is a no-op. */
void dlb_regression_free(dlb_regression *r) {
  if (r == NULL) return;
  if (r->names) for (size_t i = 0; i < r->k; i++) dlb_free(r->names[i]);
  dlb_free(r->names); dlb_free(r->w); dlb_free(r->se); dlb_free(r->t); dlb_free(r->shift); dlb_free(r->scale);
  dlb_free(r);
}

static char *dupstr(const char *s) {
  size_t len = strlen(s) + 1;
  char *d = dlb_malloc(len);
  if (d) memcpy(d, s, len);
  return d;
}

/* Normalise z[0..n-1] in place (z-score or min-max), recording shift and scale; fails
** naming the term when it is constant. */
static int normalise(double *z, size_t n, int options, const char *name, double *shift,
                     double *scale) {
  double lo = z[0], hi = z[0], mean = 0, ss = 0;
  for (size_t i = 0; i < n; i++) {
    mean += z[i];
    if (z[i] < lo) lo = z[i];
    if (z[i] > hi) hi = z[i];
  }
  mean /= (double)n;
  for (size_t i = 0; i < n; i++) ss += (z[i] - mean) * (z[i] - mean);
  if (hi - lo <= 1e-12 * fmax(fabs(hi), fabs(lo))) { /* constant, up to rounding */
    return dlb_fail(DLB_ENUMERIC, "regress: '%s' is constant (every row is %.17g); "
                    "drop it from the inputs", name, lo);
  }
  double sh = 0, sc = 1;
  if (options & DLB_REGRESS_RAW) {
    sh = 0; sc = 1;
  } else if (options & DLB_REGRESS_MINMAX) {
    sh = lo; sc = hi - lo;
  } else {
    sh = mean; sc = sqrt(ss / (double)(n - 1));
    if (!(sc > 0)) return dlb_fail(DLB_ENUMERIC, "regress: '%s' is constant", name);
  }
  for (size_t i = 0; i < n; i++) z[i] = (z[i] - sh) / sc;
  *shift = sh;
  *scale = sc;
  return DLB_OK;
}

/* Sensitivity regression; see dlb_stats.h. Caller frees the result. */
dlb_regression *dlb_regress(size_t n, size_t p, const double *x, const double *y,
                            const char *const *names, const int *flags, int options) {
  if (x == NULL || y == NULL || names == NULL) return dlb_fail_null(DLB_EINVAL, "regress: NULL argument");
  if (p == 0) return dlb_fail_null(DLB_EINVAL, "regress: no inputs");
  for (size_t j = 0; j < p; j++) {
    if (names[j] == NULL) return dlb_fail_null(DLB_EINVAL, "regress: input %zu has no name", j + 1);
  }
  int inter = (options & DLB_REGRESS_INTERACTIONS) != 0;
  size_t k = p + (inter ? p * (p - 1) / 2 : 0);
  if (n < k + 2) {
    return dlb_fail_null(DLB_EINVAL, "regress: %zu rows are too few for %zu terms and an "
                         "intercept (need at least %zu)", n, k, k + 2);
  }
  dlb_regression *r = dlb_calloc(1, sizeof *r);
  double *z = dlb_malloc(sizeof(double) * n * k);      /* column-major terms */
  double *a = dlb_malloc(sizeof(double) * n * (k + 1)); /* row-major design with intercept */
  double *yy = dlb_malloc(sizeof(double) * n);
  double *coef = dlb_malloc(sizeof(double) * (k + 1)), *se = dlb_malloc(sizeof(double) * (k + 1));
  const char **dnames = dlb_calloc(k + 1, sizeof(char *));
  if (r) {
    r->n = n; r->k = k;
    r->names = dlb_calloc(k, sizeof(char *));
    r->w = dlb_calloc(k, sizeof(double)); r->se = dlb_calloc(k, sizeof(double));
    r->t = dlb_calloc(k, sizeof(double)); r->shift = dlb_calloc(k, sizeof(double));
    r->scale = dlb_calloc(k, sizeof(double));
  }
  int status = DLB_OK;
  if (!r || !z || !a || !yy || !coef || !se || !dnames || !r->names || !r->w || !r->se ||
      !r->t || !r->shift || !r->scale) {
    status = dlb_fail(DLB_ENOMEM, "regress: out of memory (%zu rows, %zu terms)", n, k);
    goto done;
  }
  /* y, possibly logged */
  for (size_t i = 0; i < n && status == DLB_OK; i++) {
    double v = y[i];
    if (!isfinite(v)) status = dlb_fail(DLB_EINVAL, "regress: y, row %zu is not finite (%g)", i + 1, v);
    else if (options & DLB_REGRESS_LOG_Y) {
      if (v <= 0) status = dlb_fail(DLB_EINVAL, "regress: log of y: row %zu is %.17g (needs > 0)", i + 1, v);
      else v = log(v);
    }
    yy[i] = v;
  }
  /* main terms */
  for (size_t j = 0; j < p && status == DLB_OK; j++) {
    int lg = flags && (flags[j] & DLB_REGRESS_LOG);
    double *col = z + j * n;
    for (size_t i = 0; i < n && status == DLB_OK; i++) {
      double v = x[j * n + i];
      if (!isfinite(v)) {
        status = dlb_fail(DLB_EINVAL, "regress: '%s', row %zu is not finite (%g)", names[j], i + 1, v);
      } else if (lg) {
        if (v <= 0) status = dlb_fail(DLB_EINVAL, "regress: log of '%s': row %zu is %.17g "
                                      "(needs > 0)", names[j], i + 1, v);
        else v = log(v);
      }
      col[i] = v;
    }
    if (status == DLB_OK) {
      r->names[j] = dupstr(names[j]);
      if (!r->names[j]) status = dlb_fail(DLB_ENOMEM, "regress: out of memory");
    }
    if (status == DLB_OK) status = normalise(col, n, options, names[j], &r->shift[j], &r->scale[j]);
  }
  /* interactions: products of the normalised main terms, normalised again */
  size_t t = p;
  for (size_t i = 0; inter && i < p && status == DLB_OK; i++) {
    for (size_t j = i + 1; j < p && status == DLB_OK; j++, t++) {
      size_t len = strlen(names[i]) + strlen(names[j]) + 2;
      r->names[t] = dlb_malloc(len);
      if (!r->names[t]) { status = dlb_fail(DLB_ENOMEM, "regress: out of memory"); break; }
      snprintf(r->names[t], len, "%s*%s", names[i], names[j]);
      for (size_t m = 0; m < n; m++) z[t * n + m] = z[i * n + m] * z[j * n + m];
      status = normalise(z + t * n, n, options, r->names[t], &r->shift[t], &r->scale[t]);
    }
  }
  if (status != DLB_OK) goto done;
  dnames[0] = "intercept";
  for (size_t j = 0; j < k; j++) dnames[j + 1] = r->names[j];
  for (size_t i = 0; i < n; i++) {
    a[i * (k + 1)] = 1;
    for (size_t j = 0; j < k; j++) a[i * (k + 1) + j + 1] = z[j * n + i];
  }
  double rss;
  status = dlb_lstsq(n, k + 1, a, yy, dnames, coef, se, &rss);
  if (status != DLB_OK) {
    /* re-word the core's message for this caller */
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", dlb_last_error());
    const char *m = strncmp(msg, "lstsq: ", 7) == 0 ? msg + 7 : msg;
    status = dlb_fail(status, "regress: %s", m);
    goto done;
  }
  double ybar = 0, tss = 0;
  for (size_t i = 0; i < n; i++) ybar += yy[i];
  ybar /= (double)n;
  for (size_t i = 0; i < n; i++) tss += (yy[i] - ybar) * (yy[i] - ybar);
  double ylo = yy[0], yhi = yy[0];
  for (size_t i = 0; i < n; i++) { ylo = fmin(ylo, yy[i]); yhi = fmax(yhi, yy[i]); }
  if (!(tss > 0) || yhi - ylo <= 1e-12 * fmax(fabs(yhi), fabs(ylo))) { /* up to rounding */
    status = dlb_fail(DLB_ENUMERIC, "regress: y is constant (every row is %.17g); nothing to explain", yy[0]);
    goto done;
  }
  for (size_t j = 0; j < k; j++) {
    r->w[j] = coef[j + 1];
    r->se[j] = se[j + 1];
    r->t[j] = se[j + 1] > 0 ? coef[j + 1] / se[j + 1] : (coef[j + 1] == 0 ? 0 : INFINITY * coef[j + 1]);
  }
  r->fit.intercept = coef[0];
  r->fit.intercept_se = se[0];
  r->fit.intercept_t = se[0] > 0 ? coef[0] / se[0] : INFINITY;
  r->fit.rss = rss;
  r->fit.r2 = 1 - rss / tss;
  r->fit.adj_r2 = 1 - (1 - r->fit.r2) * (double)(n - 1) / (double)(n - k - 1);
  r->fit.sigma = sqrt(rss / (double)(n - k - 1));
  r->fit.n = (double)n;
  r->fit.k = (double)k;
done:
  dlb_free(z); dlb_free(a); dlb_free(yy); dlb_free(coef); dlb_free(se); dlb_free(dnames);
  if (status != DLB_OK) {
    dlb_regression_free(r);
    return NULL;
  }
  return r;
}

/* Number of terms without the intercept. */
size_t dlb_regression_terms(const dlb_regression *r) {
  return r ? r->k : 0;
}

/* Term i: name (borrowed), weight, standard error, t-value. */
int dlb_regression_term(const dlb_regression *r, size_t i, const char **name,
                        double *weight, double *se, double *t) {
  if (r == NULL || i >= r->k) {
    return dlb_fail(DLB_EINVAL, "regression term %zu out of range (%zu terms)", i + 1, r ? r->k : 0);
  }
  if (name) *name = r->names[i];
  if (weight) *weight = r->w[i];
  if (se) *se = r->se[i];
  if (t) *t = r->t[i];
  return DLB_OK;
}

/* Intercept, goodness of fit and sizes. */
void dlb_regression_fit(const dlb_regression *r, dlb_regress_fit *out) {
  if (r && out) *out = r->fit;
}

/* Normalisation of term i. */
int dlb_regression_scaling(const dlb_regression *r, size_t i, double *shift, double *scale) {
  if (r == NULL || i >= r->k) {
    return dlb_fail(DLB_EINVAL, "regression term %zu out of range (%zu terms)", i + 1, r ? r->k : 0);
  }
  if (shift) *shift = r->shift[i];
  if (scale) *scale = r->scale[i];
  return DLB_OK;
}
