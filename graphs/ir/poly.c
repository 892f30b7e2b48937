/*
** poly.c — polynomials over named hyperparameters: canonical term arrays, algebra,
** evaluation and printing (the parser is in poly_parse.c).
*/
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_poly.h"
#include "dlb_runtime.h"
#include "poly_impl.h"

int dlb_pkey_degree(uint64_t key) {
  int d = 0;
  while (key) {
    d += (int)(key & 15u);
    key >>= 4;
  }
  return d;
}

/* qsort order of terms: by key. */
static int cmpterm(const void *a, const void *b) {
  uint64_t x = ((const pterm *)a)->key, y = ((const pterm *)b)->key;
  return x < y ? -1 : x > y;
}

/* Sort, merge and drop zeros in place; returns the count. */
size_t dlb_pterms_normalize(pterm *t, size_t n) {
  if (n > 1) {
    int sorted = 1;
    for (size_t i = 1; i < n && sorted; i++) sorted = t[i - 1].key < t[i].key;
    if (!sorted) qsort(t, n, sizeof *t, cmpterm);
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m > 0 && t[m - 1].key == t[i].key) {
      t[m - 1].c += t[i].c;
    } else {
      if (m > 0 && t[m - 1].c == 0) m--;
      t[m++] = t[i];
    }
  }
  if (m > 0 && t[m - 1].c == 0) m--;
  return m;
}

/* Merge two canonical arrays into out (room for nx + ny): sums equal keys, drops zeros. */
static size_t pterms_merge(const pterm *x, size_t nx, const pterm *y, size_t ny, pterm *out) {
  size_t i = 0, j = 0, n = 0;
  while (i < nx || j < ny) {
    if (j >= ny || (i < nx && x[i].key < y[j].key)) out[n++] = x[i++];
    else if (i >= nx || y[j].key < x[i].key) out[n++] = y[j++];
    else {
      out[n] = x[i++];
      out[n].c += y[j++].c;
      if (out[n].c != 0) n++;
    }
  }
  return n;
}

/* -- the bounds (dlb_poly_set_limits): process-wide, like the interruption flag -- */

/* The most terms a result may hold and the most term products one multiplication may form
** (a time bound: DLB_POLY_MAXPRODUCTS take ~0.2 s in a release build, seconds under the
** sanitizers). Relaxed atomics: a setter in one thread races no reader. */
static atomic_long limit_terms = DLB_POLY_MAXTERMS;
static atomic_long limit_products = DLB_POLY_MAXPRODUCTS;

int dlb_poly_set_limits(long maxterms, long maxproducts) {
  if (maxterms < 0 || maxterms > DLB_POLY_MAXTERMS || maxproducts < 0 ||
      maxproducts > DLB_POLY_MAXPRODUCTS)
    return dlb_fail(DLB_EINVAL, "poly: limits %ld terms, %ld term products outside 1..%d and "
                    "1..%d (0: the default)", maxterms, maxproducts, DLB_POLY_MAXTERMS,
                    DLB_POLY_MAXPRODUCTS);
  atomic_store_explicit(&limit_terms, maxterms ? maxterms : DLB_POLY_MAXTERMS, memory_order_relaxed);
  atomic_store_explicit(&limit_products, maxproducts ? maxproducts : DLB_POLY_MAXPRODUCTS,
                        memory_order_relaxed);
  return DLB_OK;
}

void dlb_poly_limits(long *maxterms, long *maxproducts) {
  if (maxterms) *maxterms = atomic_load_explicit(&limit_terms, memory_order_relaxed);
  if (maxproducts) *maxproducts = atomic_load_explicit(&limit_products, memory_order_relaxed);
}

size_t dlb_pterms_maxterms(void) {
  return (size_t)atomic_load_explicit(&limit_terms, memory_order_relaxed);
}

int dlb_pterms_mulcheck(size_t na, size_t nb, const char *what) {
  long max = atomic_load_explicit(&limit_products, memory_order_relaxed);
  if ((double)na * (double)nb > (double)max)
    return dlb_fail(DLB_EINVAL, "%s: a product of %zu x %zu terms (more than %ld term products; "
                    "expand less: a product of long sums grows combinatorially)", what, na, nb, max);
  return DLB_OK;
}

int dlb_pterms_sizecheck(size_t n, const char *what, const char *result) {
  size_t max = dlb_pterms_maxterms();
  if (n > max)
    return dlb_fail(DLB_EINVAL, "%s: the %s has more than %zu terms (expand less: a power of "
                    "a long sum grows combinatorially)", what, result, max);
  return DLB_OK;
}

/* Products per chunk of the multiplication below (1 MiB of terms), at least. */
#define MULCHUNK 65536

/* a * b (canonical inputs) into a new canonical array (*n terms; caller frees), built
** chunk by chunk so memory stays near the result's size. NULL with a message when the
** product or its result passes a bound (dlb_pterms_mulcheck, dlb_pterms_sizecheck), an
** exponent exceeds DLB_POLY_MAXEXP, memory runs out, or dlb_interrupt asked to stop. */
static pterm *mul_terms(const pterm *a, size_t na, const pterm *b, size_t nb, size_t *n) {
  *n = 0;
  if (dlb_pterms_mulcheck(na, nb, "poly") != DLB_OK) return NULL;
  pterm *acc = dlb_malloc(sizeof *acc), *part = NULL, *tmp = NULL;
  size_t nacc = 0, rows;
  if (!acc) return dlb_fail_null(DLB_ENOMEM, "poly: out of memory");
  /* each chunk forms at least as many products as the result holds, so the merges cost
  ** O(products) in all, not O(products x result / chunk) */
  for (size_t j0 = 0; j0 < nb; j0 += rows) {
    size_t want = nacc > MULCHUNK ? nacc : MULCHUNK;
    rows = na > 0 ? want / na : nb;
    if (rows < 1) rows = 1;
    if (dlb_interrupted()) {
      dlb_free(acc);
      return dlb_fail_null(DLB_EINVAL, "poly: interrupted! (while multiplying)");
    }
    size_t j1 = j0 + rows < nb ? j0 + rows : nb, np = 0;
    part = dlb_malloc(((j1 - j0) * na + 1) * sizeof *part);
    if (!part) { dlb_free(acc); return dlb_fail_null(DLB_ENOMEM, "poly: out of memory"); }
    for (size_t j = j0; j < j1; j++)
      for (size_t i = 0; i < na; i++) {
        if (!pkey_mul(a[i].key, b[j].key, &part[np].key)) {
          dlb_free(part); dlb_free(acc);
          return dlb_fail_null(DLB_EINVAL, "poly: an exponent exceeds %d", DLB_POLY_MAXEXP);
        }
        part[np++].c = a[i].c * b[j].c;
      }
    np = dlb_pterms_normalize(part, np);
    tmp = dlb_malloc((nacc + np + 1) * sizeof *tmp);
    if (!tmp) { dlb_free(part); dlb_free(acc); return dlb_fail_null(DLB_ENOMEM, "poly: out of memory"); }
    nacc = pterms_merge(acc, nacc, part, np, tmp);
    dlb_free(part); dlb_free(acc);
    acc = tmp;
    if (dlb_pterms_sizecheck(nacc, "poly", "product") != DLB_OK) {
      dlb_free(acc);
      return NULL;
    }
  }
  *n = nacc;
  return acc;
}

/* NULL with a message unless every coefficient of t is finite (a product or sum of
** finite numbers can overflow: 2*1e308). */
static int all_finite(const pterm *t, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(t[i].c))
      return dlb_fail(DLB_EINVAL, "poly: a coefficient overflows to %g (numbers must stay "
                      "within +-1.8e308)", t[i].c);
  return DLB_OK;
}

long dlb_pterms_mul(const pterm *a, size_t na, const pterm *b, size_t nb, pterm *r,
                    const char *what) {
  if (dlb_pterms_mulcheck(na, nb, what) != DLB_OK) return -1;
  size_t n = 0;
  for (size_t i = 0; i < na; i++)
    for (size_t j = 0; j < nb; j++) {
      if (!pkey_mul(a[i].key, b[j].key, &r[n].key))
        return dlb_fail(DLB_EINVAL, "%s: an exponent exceeds %d", what, DLB_POLY_MAXEXP), -1;
      r[n++].c = a[i].c * b[j].c;
    }
  n = dlb_pterms_normalize(r, n);
  return dlb_pterms_sizecheck(n, what, "product") == DLB_OK ? (long)n : -1;
}

double dlb_pterms_eval(const pterm *t, size_t n, const double *vals) {
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double m = t[i].c;
    uint64_t k = t[i].key;
    for (int v = 0; k; v++, k >>= 4)
      for (int e = (int)(k & 15u); e > 0; e--) m *= vals[v];
    s += m;
  }
  return s;
}

uint64_t dlb_pkey_remap(uint64_t key, int nvars, const int *map) {
  uint64_t r = 0;
  for (int i = 0; i < nvars; i++) r |= (uint64_t)pkey_exp(key, i) << (4 * map[i]);
  return r;
}

/* -- printing -- */

typedef struct {
  const pterm *t;
  const int *rank; /* rank[i]: alphabetical position of variable i */
  int nvars;
} printctx;

static _Thread_local const printctx *pctx; /* set during one qsort in dlb_pterms_print */

/* Exponents of key in alphabetical order of the names. */
static void alphaexps(uint64_t key, const printctx *c, int *e) {
  for (int i = 0; i < c->nvars; i++) e[c->rank[i]] = pkey_exp(key, i);
}

/* qsort order for printing: falling degree, then larger exponents of earlier names. */
static int cmpprint(const void *pa, const void *pb) {
  uint64_t a = pctx->t[*(const int *)pa].key, b = pctx->t[*(const int *)pb].key;
  int da = dlb_pkey_degree(a), db = dlb_pkey_degree(b);
  if (da != db) return db - da;
  int ea[DLB_POLY_MAXVARS], eb[DLB_POLY_MAXVARS];
  alphaexps(a, pctx, ea);
  alphaexps(b, pctx, eb);
  for (int i = 0; i < pctx->nvars; i++)
    if (ea[i] != eb[i]) return eb[i] - ea[i];
  return 0;
}

typedef struct {
  char *buf;
  size_t size, len;
} sbuf;

/* Append text to s, truncating at its size but counting the full length. */
static void put(sbuf *s, const char *text) {
  size_t n = strlen(text);
  if (s->len < s->size) {
    size_t room = s->size - s->len - 1;
    memcpy(s->buf + s->len, text, n < room ? n : room);
    s->buf[s->len + (n < room ? n : room)] = '\0';
  }
  s->len += n;
}

/* Shortest text that reads back as c (integers without a decimal point). */
static void fmtnum(double c, char *out, size_t size) {
  if (c == floor(c) && fabs(c) < 1e15) {
    /* an integer: its decimal digits, the text "%.0f" gives ("-0" included), without
       printf's floating-point path (a graph's dims are printed for every tensor) */
    char rev[20];
    int n = 0;
    unsigned long long v = (unsigned long long)fabs(c);
    do { rev[n++] = (char)('0' + (int)(v % 10)); v /= 10; } while (v);
    size_t k = 0;
    if (signbit(c) && k + 1 < size) out[k++] = '-';
    while (n > 0 && k + 1 < size) out[k++] = rev[--n];
    if (size) out[k] = '\0';
    return;
  }
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(out, size, "%.*g", prec, c);
    if (strtod(out, NULL) == c) return;
  }
}

size_t dlb_pterms_print(const pterm *t, size_t n, const char *const *names, int nvars,
                    char *buf, size_t size) {
  sbuf s = {buf, size, 0};
  if (size > 0) buf[0] = '\0';
  if (n == 0) {
    put(&s, "0");
    return s.len;
  }
  int rank[DLB_POLY_MAXVARS], order[DLB_POLY_MAXVARS];
  for (int i = 0; i < nvars; i++) order[i] = i;
  for (int i = 1; i < nvars; i++) /* insertion sort of variables by name */
    for (int j = i; j > 0 && strcmp(names[order[j - 1]], names[order[j]]) > 0; j--) {
      int x = order[j]; order[j] = order[j - 1]; order[j - 1] = x;
    }
  for (int i = 0; i < nvars; i++) rank[order[i]] = i;
  int small[64], *idx = n <= 64 ? small : dlb_malloc(n * sizeof *idx);
  if (!idx) {
    put(&s, "?");
    return s.len;
  }
  for (size_t i = 0; i < n; i++) idx[i] = (int)i;
  printctx c = {t, rank, nvars};
  pctx = &c;
  qsort(idx, n, sizeof *idx, cmpprint);
  pctx = NULL;
  for (size_t i = 0; i < n; i++) {
    const pterm *p = &t[idx[i]];
    double coef = p->c;
    if (i == 0) {
      if (coef < 0) put(&s, "-");
    } else {
      put(&s, coef < 0 ? " - " : " + ");
    }
    coef = fabs(coef);
    char num[40];
    int first = 1;
    if (coef != 1 || p->key == 0) {
      fmtnum(coef, num, sizeof num);
      put(&s, num);
      first = 0;
    }
    for (int a = 0; a < nvars; a++) {
      int v = order[a], e = pkey_exp(p->key, v);
      if (!e) continue;
      if (!first) put(&s, "*");
      first = 0;
      put(&s, names[v]);
      if (e > 1) {
        snprintf(num, sizeof num, "^%d", e);
        put(&s, num);
      }
    }
  }
  if (idx != small) dlb_free(idx);
  return s.len;
}

/* -- dlb_poly objects -- */

static dlb_poly *palloc(int nvars, size_t nterms) {
  dlb_poly *p = dlb_calloc(1, sizeof *p);
  if (!p) return dlb_fail_null(DLB_ENOMEM, "poly: out of memory");
  p->nvars = nvars;
  p->t = dlb_malloc((nterms ? nterms : 1) * sizeof *p->t);
  if (!p->t) {
    dlb_free(p);
    return dlb_fail_null(DLB_ENOMEM, "poly: out of memory");
  }
  return p;
}

void dlb_poly_free(dlb_poly *p) {
  if (!p) return;
  for (int i = 0; i < p->nvars; i++) dlb_free(p->names[i]);
  dlb_free(p->t);
  dlb_free(p);
}

dlb_poly *dlb_poly_build(const char *const *names, int nvars, const pterm *t, size_t n) {
  if (nvars > DLB_POLY_MAXVARS)
    return dlb_fail_null(DLB_EINVAL, "poly: more than %d variables", DLB_POLY_MAXVARS);
  int order[DLB_POLY_MAXVARS], map[DLB_POLY_MAXVARS];
  for (int i = 0; i < nvars; i++) order[i] = i;
  for (int i = 1; i < nvars; i++)
    for (int j = i; j > 0 && strcmp(names[order[j - 1]], names[order[j]]) > 0; j--) {
      int x = order[j]; order[j] = order[j - 1]; order[j - 1] = x;
    }
  /* drop variables that appear in no term */
  uint64_t used = 0;
  for (size_t i = 0; i < n; i++) used |= t[i].key;
  int nv = 0;
  for (int a = 0; a < nvars; a++) {
    int v = order[a];
    map[v] = ((used >> (4 * v)) & 15u) ? nv++ : 0;
  }
  dlb_poly *p = palloc(nv, n);
  if (!p) return NULL;
  nv = 0;
  for (int a = 0; a < nvars; a++) {
    int v = order[a];
    if (!((used >> (4 * v)) & 15u)) continue;
    p->names[nv] = dlb_strdup(names[v]);
    if (!p->names[nv]) {
      p->nvars = nv;
      dlb_poly_free(p);
      return dlb_fail_null(DLB_ENOMEM, "poly: out of memory");
    }
    nv++;
  }
  for (size_t i = 0; i < n; i++) {
    p->t[i].key = dlb_pkey_remap(t[i].key, nvars, map);
    p->t[i].c = t[i].c;
  }
  p->nterms = (int)dlb_pterms_normalize(p->t, n);
  return p;
}

dlb_poly *dlb_poly_number(double c) {
  if (!isfinite(c)) return dlb_fail_null(DLB_EINVAL, "poly: %g is not a finite number", c);
  pterm t = {0, c};
  return dlb_poly_build(NULL, 0, &t, 1);
}

dlb_poly *dlb_poly_copy(const dlb_poly *p) {
  return dlb_poly_build((const char *const *)p->names, p->nvars, p->t, (size_t)p->nterms);
}

/* The union of a's and b's variables into names; ma/mb map each one's variables. */
static int unionvars(const dlb_poly *a, const dlb_poly *b, const char **names, int *ma,
                     int *mb) {
  int n = 0, i = 0, j = 0;
  while (i < a->nvars || j < b->nvars) {
    int c = i >= a->nvars ? 1 : j >= b->nvars ? -1 : strcmp(a->names[i], b->names[j]);
    if (n == DLB_POLY_MAXVARS)
      return dlb_fail(DLB_EINVAL, "poly: more than %d variables", DLB_POLY_MAXVARS);
    if (c <= 0) ma[i] = n, names[n] = a->names[i], i++;
    if (c >= 0) mb[j] = n, names[n] = b->names[j], j++;
    n++;
  }
  return n;
}

/* a + sb*b (op '+') or a*b (op '*') over the union of their variables; a new poly. */
static dlb_poly *combine(const dlb_poly *a, const dlb_poly *b, int op, double sb) {
  const char *names[DLB_POLY_MAXVARS];
  int ma[DLB_POLY_MAXVARS], mb[DLB_POLY_MAXVARS];
  int nv = unionvars(a, b, names, ma, mb);
  if (nv < 0) return NULL;
  size_t na = (size_t)a->nterms, nb = (size_t)b->nterms;
  size_t cap = op == '*' ? 0 : na + nb;
  pterm small[128], *ta = small, *tb, *r;
  if (2 * (na + nb) + cap > 128) {
    ta = dlb_malloc((2 * (na + nb) + cap + 1) * sizeof *ta);
    if (!ta) return dlb_fail_null(DLB_ENOMEM, "poly: out of memory");
  }
  tb = ta + na;
  r = tb + nb;
  for (size_t i = 0; i < na; i++) ta[i].key = dlb_pkey_remap(a->t[i].key, a->nvars, ma), ta[i].c = a->t[i].c;
  for (size_t i = 0; i < nb; i++) tb[i].key = dlb_pkey_remap(b->t[i].key, b->nvars, mb), tb[i].c = sb * b->t[i].c;
  na = dlb_pterms_normalize(ta, na);
  nb = dlb_pterms_normalize(tb, nb);
  size_t n;
  pterm *prod = NULL;
  if (op == '*') {
    r = prod = mul_terms(ta, na, tb, nb, &n);
    if (!prod) {
      if (ta != small) dlb_free(ta);
      return NULL;
    }
  } else {
    n = pterms_merge(ta, na, tb, nb, r);
    if (dlb_pterms_sizecheck(n, "poly", "sum") != DLB_OK) {
      if (ta != small) dlb_free(ta);
      return NULL;
    }
  }
  dlb_poly *p = all_finite(r, n) == DLB_OK ? dlb_poly_build(names, nv, r, n) : NULL;
  dlb_free(prod);
  if (ta != small) dlb_free(ta);
  return p;
}

dlb_poly *dlb_poly_sum(dlb_poly *const *ps, size_t n) {
  const char *names[DLB_POLY_MAXVARS];
  int nv = 0;
  size_t total = 0;
  for (size_t k = 0; k < n; k++) {
    total += (size_t)ps[k]->nterms;
    for (int i = 0; i < ps[k]->nvars; i++) {
      int j = 0;
      while (j < nv && strcmp(names[j], ps[k]->names[i]) != 0) j++;
      if (j < nv) continue;
      if (nv == DLB_POLY_MAXVARS)
        return dlb_fail_null(DLB_EINVAL, "poly: more than %d variables", DLB_POLY_MAXVARS);
      names[nv++] = ps[k]->names[i];
    }
  }
  /* terms are folded (sorted and merged) whenever the buffer passes twice the limit */
  size_t max = dlb_pterms_maxterms();
  size_t cap = total < 2 * max ? total : 2 * max;
  pterm *t = dlb_malloc((cap + 1) * sizeof *t);
  if (!t) return dlb_fail_null(DLB_ENOMEM, "poly: out of memory");
  size_t m = 0;
  for (size_t k = 0; k < n; k++) {
    const dlb_poly *p = ps[k];
    int map[DLB_POLY_MAXVARS];
    for (int i = 0; i < p->nvars; i++)
      for (int j = 0; j < nv; j++)
        if (strcmp(names[j], p->names[i]) == 0) { map[i] = j; break; }
    for (int i = 0; i < p->nterms; i++) {
      if (m == cap) {
        m = dlb_pterms_normalize(t, m);
        if (m > max) break;
      }
      t[m].key = dlb_pkey_remap(p->t[i].key, p->nvars, map);
      t[m++].c = p->t[i].c;
    }
    if (m > max && m != cap) break;
  }
  m = dlb_pterms_normalize(t, m);
  dlb_poly *r = NULL;
  if (dlb_pterms_sizecheck(m, "poly", "sum") == DLB_OK && all_finite(t, m) == DLB_OK)
    r = dlb_poly_build(names, nv, t, m);
  dlb_free(t);
  return r;
}

dlb_poly *dlb_poly_add(const dlb_poly *a, const dlb_poly *b) { return combine(a, b, '+', 1); }
dlb_poly *dlb_poly_sub(const dlb_poly *a, const dlb_poly *b) { return combine(a, b, '+', -1); }
dlb_poly *dlb_poly_mul(const dlb_poly *a, const dlb_poly *b) { return combine(a, b, '*', 1); }

dlb_poly *dlb_poly_scale(const dlb_poly *a, double c) {
  dlb_poly *p = dlb_poly_copy(a);
  if (!p) return NULL;
  for (int i = 0; i < p->nterms; i++) p->t[i].c *= c;
  p->nterms = (int)dlb_pterms_normalize(p->t, (size_t)p->nterms);
  if (all_finite(p->t, (size_t)p->nterms) != DLB_OK) {
    dlb_poly_free(p);
    return NULL;
  }
  return p;
}

dlb_poly *dlb_poly_pow(const dlb_poly *a, int n) {
  if (n < 0 || n > DLB_POLY_MAXEXP)
    return dlb_fail_null(DLB_EINVAL, "poly: power %d outside 0..%d", n, DLB_POLY_MAXEXP);
  dlb_poly *r = dlb_poly_number(1);
  for (int i = 0; r && i < n; i++) {
    dlb_poly *x = dlb_poly_mul(r, a);
    dlb_poly_free(r);
    r = x;
  }
  return r;
}

/* For each of p's variables the index of its value in names, or -1. */
static void lookup(const dlb_poly *p, size_t n, const char *const *names, int *at) {
  for (int i = 0; i < p->nvars; i++) {
    at[i] = -1;
    for (size_t j = 0; j < n; j++)
      if (names[j] && strcmp(names[j], p->names[i]) == 0) {
        at[i] = (int)j;
        break;
      }
  }
}

dlb_poly *dlb_poly_bind(const dlb_poly *p, size_t n, const char *const *names,
                        const double *values) {
  int at[DLB_POLY_MAXVARS];
  lookup(p, n, names, at);
  dlb_poly *r = dlb_poly_copy(p);
  if (!r) return NULL;
  for (int i = 0; i < r->nterms; i++) {
    uint64_t k = r->t[i].key;
    for (int v = 0; v < r->nvars; v++) {
      if (at[v] < 0) continue;
      for (int e = pkey_exp(k, v); e > 0; e--) r->t[i].c *= values[at[v]];
      k &= ~((uint64_t)15u << (4 * v));
    }
    r->t[i].key = k;
  }
  r->nterms = (int)dlb_pterms_normalize(r->t, (size_t)r->nterms);
  dlb_poly *q = dlb_poly_copy(r); /* drops the bound variables */
  dlb_poly_free(r);
  return q;
}

int dlb_poly_eval(const dlb_poly *p, size_t n, const char *const *names,
                  const double *values, double *out) {
  int at[DLB_POLY_MAXVARS];
  double vals[DLB_POLY_MAXVARS];
  lookup(p, n, names, at);
  char missing[256] = "";
  size_t len = 0;
  for (int i = 0; i < p->nvars; i++) {
    if (at[i] >= 0) {
      vals[i] = values[at[i]];
      continue;
    }
    len += (size_t)snprintf(missing + (len < sizeof missing ? len : sizeof missing - 1),
                            len < sizeof missing ? sizeof missing - len : 1, "%s%s",
                            len ? ", " : "", p->names[i]);
  }
  if (len)
    return dlb_fail(DLB_EUNBOUND, "poly: no value for %s", missing);
  *out = dlb_pterms_eval(p->t, (size_t)p->nterms, vals);
  return DLB_OK;
}

double dlb_poly_evalv(const dlb_poly *p, const double *values) {
  return dlb_pterms_eval(p->t, (size_t)p->nterms, values);
}

size_t dlb_poly_nvars(const dlb_poly *p) { return (size_t)p->nvars; }

const char *dlb_poly_varname(const dlb_poly *p, size_t i) {
  return i < (size_t)p->nvars ? p->names[i] : NULL;
}

size_t dlb_poly_nterms(const dlb_poly *p) { return (size_t)p->nterms; }

int dlb_poly_term(const dlb_poly *p, size_t i, double *coef, int *exps) {
  if (i >= (size_t)p->nterms)
    return dlb_fail(DLB_EINVAL, "poly: term %zu out of range (%d terms)", i, p->nterms);
  *coef = p->t[i].c;
  for (int v = 0; v < p->nvars; v++) exps[v] = pkey_exp(p->t[i].key, v);
  return DLB_OK;
}

int dlb_poly_is_number(const dlb_poly *p, double *value) {
  if (p->nvars) return 0;
  *value = p->nterms ? p->t[0].c : 0;
  return 1;
}

int dlb_poly_equal(const dlb_poly *a, const dlb_poly *b) {
  if (a->nvars != b->nvars || a->nterms != b->nterms) return 0;
  for (int i = 0; i < a->nvars; i++)
    if (strcmp(a->names[i], b->names[i])) return 0;
  for (int i = 0; i < a->nterms; i++)
    if (a->t[i].key != b->t[i].key || a->t[i].c != b->t[i].c) return 0;
  return 1;
}

int dlb_poly_degree(const dlb_poly *p) {
  int d = 0;
  for (int i = 0; i < p->nterms; i++) {
    int x = dlb_pkey_degree(p->t[i].key);
    if (x > d) d = x;
  }
  return d;
}

size_t dlb_poly_tostring(const dlb_poly *p, char *buf, size_t size) {
  return dlb_pterms_print(p->t, (size_t)p->nterms, (const char *const *)p->names, p->nvars,
                      buf, size);
}
