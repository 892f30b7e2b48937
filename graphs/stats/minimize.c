/*
** minimize.c — Nelder-Mead in reverse communication (dlb_minimize.h): the standard
** reflection (1), expansion (2), contraction (1/2) and shrink (1/2) coefficients (Nelder &
** Mead 1965; Lagarias et al. 1998), with every point clamped into the box. The caller
** loops: while ask(m, x) do tell(m, f(x)) end.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_minimize.h"
#include "dlb_runtime.h"

enum { S_ORDER, S_INIT, S_REFLECT, S_EXPAND, S_CONTRACT_OUT, S_CONTRACT_IN, S_SHRINK, S_DONE };
enum { MAXN = 64 };

struct dlb_minimizer {
  size_t n;
  int state, idx, evals, max_evals, asked;
  double tol;
  double *v;        /* (n+1) vertices of n values */
  double *f;        /* their values */
  double *lo, *hi;
  double *c, *xr, *pt;
  double fr;
};

#define V(m, i) ((m)->v + (size_t)(i) * (m)->n)

static void clamp(const dlb_minimizer *m, double *x) {
  for (size_t j = 0; j < m->n; j++) {
    if (x[j] < m->lo[j]) x[j] = m->lo[j];
    if (x[j] > m->hi[j]) x[j] = m->hi[j];
  }
}

dlb_minimizer *dlb_minimizer_new(size_t n, const double *x0, const double *step, const double *lo,
                                 const double *hi, double tol, int max_evals) {
  if (n < 1 || n > MAXN) return dlb_fail_null(DLB_EINVAL, "minimize: 1..%d variables, got %zu", MAXN, n);
  if (!x0 || !step || !lo || !hi) return dlb_fail_null(DLB_EINVAL, "minimize: NULL argument");
  if (!(tol >= 0) || max_evals < 1) return dlb_fail_null(DLB_EINVAL, "minimize: tol >= 0 and max_evals >= 1 needed");
  for (size_t j = 0; j < n; j++) {
    if (!isfinite(lo[j]) || !isfinite(hi[j]) || !(lo[j] < hi[j]))
      return dlb_fail_null(DLB_EINVAL, "minimize: variable %zu: bounds must be finite with lo < hi", j + 1);
    if (!(x0[j] >= lo[j] && x0[j] <= hi[j]))
      return dlb_fail_null(DLB_EINVAL, "minimize: variable %zu: start %g outside [%g, %g]", j + 1, x0[j], lo[j], hi[j]);
    if (!isfinite(step[j]) || step[j] == 0)
      return dlb_fail_null(DLB_EINVAL, "minimize: variable %zu: step must be finite and non-zero", j + 1);
  }
  dlb_minimizer *m = dlb_calloc(1, sizeof *m);
  if (!m) return dlb_fail_null(DLB_ENOMEM, "minimize: out of memory");
  m->n = n;
  m->v = dlb_calloc((n + 1) * n, sizeof *m->v);
  m->f = dlb_calloc(n + 1, sizeof *m->f);
  m->lo = dlb_calloc(n, sizeof(double)); m->hi = dlb_calloc(n, sizeof(double));
  m->c = dlb_calloc(n, sizeof(double)); m->xr = dlb_calloc(n, sizeof(double)); m->pt = dlb_calloc(n, sizeof(double));
  if (!m->v || !m->f || !m->lo || !m->hi || !m->c || !m->xr || !m->pt) {
    dlb_minimizer_free(m);
    return dlb_fail_null(DLB_ENOMEM, "minimize: out of memory");
  }
  memcpy(m->lo, lo, n * sizeof(double));
  memcpy(m->hi, hi, n * sizeof(double));
  for (size_t i = 0; i <= n; i++) {
    memcpy(V(m, i), x0, n * sizeof(double));
    if (i > 0) {
      double *x = V(m, i);
      x[i - 1] += step[i - 1];
      if (x[i - 1] > hi[i - 1] || x[i - 1] < lo[i - 1]) x[i - 1] = x0[i - 1] - step[i - 1]; /* step inward */
      clamp(m, x);
    }
  }
  m->tol = tol;
  m->max_evals = max_evals;
  m->state = S_INIT;
  m->idx = 0;
  return m;
}

void dlb_minimizer_free(dlb_minimizer *m) {
  if (!m) return;
  dlb_free(m->v); dlb_free(m->f); dlb_free(m->lo); dlb_free(m->hi); dlb_free(m->c); dlb_free(m->xr); dlb_free(m->pt);
  dlb_free(m);
}

/* Sort the vertices by value (insertion sort: n is small). */
static void order(dlb_minimizer *m) {
  size_t n = m->n;
  double tmp[MAXN];
  for (size_t i = 1; i <= n; i++) {
    double fi = m->f[i];
    memcpy(tmp, V(m, i), n * sizeof(double));
    size_t j = i;
    while (j > 0 && m->f[j - 1] > fi) {
      m->f[j] = m->f[j - 1];
      memcpy(V(m, j), V(m, j - 1), n * sizeof(double));
      j--;
    }
    m->f[j] = fi;
    memcpy(V(m, j), tmp, n * sizeof(double));
  }
}

/* pt = c + a (x - c), clamped. */
static void along(dlb_minimizer *m, const double *x, double a, double *out) {
  for (size_t j = 0; j < m->n; j++) out[j] = m->c[j] + a * (x[j] - m->c[j]);
  clamp(m, out);
}

/* Replace the worst vertex with x (value f). */
static void replace_worst(dlb_minimizer *m, const double *x, double f) {
  memcpy(V(m, m->n), x, m->n * sizeof(double));
  m->f[m->n] = f;
  m->state = S_ORDER;
}

/* Start the shrink toward the best vertex: vertices 1..n move halfway, then are evaluated. */
static void shrink(dlb_minimizer *m) {
  for (size_t i = 1; i <= m->n; i++)
    for (size_t j = 0; j < m->n; j++) V(m, i)[j] = V(m, 0)[j] + 0.5 * (V(m, i)[j] - V(m, 0)[j]);
  m->state = S_SHRINK;
  m->idx = 1;
}

/* From S_ORDER: sort, test for the end, and set up the reflection. */
static void step_order(dlb_minimizer *m) {
  size_t n = m->n;
  order(m);
  /* the end: out of evaluations, or values within tol on a simplex of (near) zero size --
  ** both, so that a flat stretch of the function (least absolute errors have them) does not
  ** stop the search where it started */
  double size = 0;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 0; j < n; j++) {
      double d = fabs(V(m, i)[j] - V(m, 0)[j]);
      if (d > size) size = d;
    }
  if (m->evals >= m->max_evals || (fabs(m->f[n] - m->f[0]) <= m->tol && size <= 1e-7)) {
    m->state = S_DONE;
    return;
  }
  for (size_t j = 0; j < n; j++) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += V(m, i)[j];
    m->c[j] = s / (double)n;
  }
  along(m, V(m, n), -1.0, m->xr);
  memcpy(m->pt, m->xr, n * sizeof(double));
  m->state = S_REFLECT;
}

int dlb_minimizer_ask(dlb_minimizer *m, double *x) {
  if (!m || !x) return 0;
  if (m->state == S_ORDER) step_order(m);
  if (m->state == S_DONE) { m->asked = 0; return 0; }
  if (m->state == S_INIT || m->state == S_SHRINK) memcpy(m->pt, V(m, m->idx), m->n * sizeof(double));
  memcpy(x, m->pt, m->n * sizeof(double));
  m->asked = 1;
  return 1;
}

int dlb_minimizer_tell(dlb_minimizer *m, double f) {
  if (!m) return dlb_fail(DLB_EINVAL, "minimize: NULL minimizer");
  if (!m->asked) return dlb_fail(DLB_EINVAL, "minimize: tell without a pending ask");
  m->asked = 0;
  if (f != f) f = INFINITY;
  m->evals++;
  size_t n = m->n;
  switch (m->state) {
  case S_INIT:
  case S_SHRINK:
    m->f[m->idx] = f;
    if (++m->idx > (int)n) m->state = S_ORDER;
    break;
  case S_REFLECT:
    m->fr = f;
    if (f >= m->f[0] && f < m->f[n - 1]) replace_worst(m, m->xr, f);
    else if (f < m->f[0]) { along(m, m->xr, 2.0, m->pt); m->state = S_EXPAND; }
    else if (f < m->f[n]) { along(m, m->xr, 0.5, m->pt); m->state = S_CONTRACT_OUT; }
    else { along(m, V(m, n), 0.5, m->pt); m->state = S_CONTRACT_IN; }
    break;
  case S_EXPAND:
    if (f < m->fr) replace_worst(m, m->pt, f); else replace_worst(m, m->xr, m->fr);
    break;
  case S_CONTRACT_OUT:
    if (f <= m->fr) replace_worst(m, m->pt, f); else shrink(m);
    break;
  case S_CONTRACT_IN:
    if (f < m->f[n]) replace_worst(m, m->pt, f); else shrink(m);
    break;
  default:
    return dlb_fail(DLB_EINVAL, "minimize: the search has finished");
  }
  return DLB_OK;
}

int dlb_minimizer_best(const dlb_minimizer *m, double *x, double *f, int *evals) {
  if (!m || !x || !f || !evals) return dlb_fail(DLB_EINVAL, "minimize: NULL argument");
  size_t best = 0;
  int known = m->state != S_INIT || m->idx > 0;
  size_t lim = m->state == S_INIT ? (size_t)m->idx : m->n + 1;
  for (size_t i = 1; i < lim; i++) if (m->f[i] < m->f[best]) best = i;
  memcpy(x, V(m, best), m->n * sizeof(double));
  *f = known ? m->f[best] : INFINITY;
  *evals = m->evals;
  return DLB_OK;
}
