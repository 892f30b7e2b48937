/*
** analysis_sym.c — polynomial totals of a training step with dims (partly) unbound:
** params, FLOPs by phase, bytes, IO. Each op's cost is a sum of products of dims; the
** bound variables are substituted into every interned dim once, tensors' element counts
** are memoised, and the terms are summed in a hash map keyed by monomial.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

dlb_graph *dlb_graph_step(dlb_graph *g, const dlb_train_opts *o);
int dlb_bind_vars(const dlb_graph *s, size_t nb, const char *const *names, const double *values,
              double *vals, int *bound, const char *what);
double dlb_tensor_esize(const dlb_graph *s, int t, int precision);
int dlb_check_bindings(const dlb_graph *g, size_t nb, const char *const *names, const double *values);
int dlb_check_dimvals(const dlb_graph *s, double *dimval, const uint8_t *known);

/* A growable pool of term arrays. */
typedef struct tpool { pterm *t; size_t n, cap; } tpool;

/* Room for add more terms in the pool; 0 on OOM. */
static int tp_reserve(tpool *p, size_t add) {
  if (p->n + add <= p->cap) return 1;
  size_t c = p->cap ? p->cap : 1024;
  while (c < p->n + add) c *= 2;
  pterm *t = dlb_realloc(p->t, c * sizeof *t);
  if (!t) return 0;
  p->t = t, p->cap = c;
  return 1;
}

/* Accumulator: monomial key -> coefficient. */
typedef struct acc { uint64_t *key; double *c; uint8_t *used; size_t n, cap; } acc;

/* acc[key] += c (growing the table); 0 on OOM. */
static int acc_add(acc *a, uint64_t key, double c) {
  if (2 * (a->n + 1) > a->cap) {
    size_t nc = a->cap ? 2 * a->cap : 64;
    acc b = {dlb_calloc(nc, sizeof *b.key), dlb_calloc(nc, sizeof *b.c), dlb_calloc(nc, 1), 0, nc};
    if (!b.key || !b.c || !b.used) { dlb_free(b.key); dlb_free(b.c); dlb_free(b.used); return 0; }
    for (size_t i = 0; i < a->cap; i++)
      if (a->used[i]) acc_add(&b, a->key[i], a->c[i]);
    dlb_free(a->key); dlb_free(a->c); dlb_free(a->used);
    *a = b;
  }
  size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & (a->cap - 1);
  while (a->used[h] && a->key[h] != key) h = (h + 1) & (a->cap - 1);
  if (!a->used[h]) a->used[h] = 1, a->key[h] = key, a->c[h] = 0, a->n++;
  a->c[h] += c;
  return 1;
}

/* The accumulated terms as a poly over the graph's variables. */
static dlb_poly *acc_poly(const dlb_graph *g, const acc *a) {
  pterm *t = dlb_malloc((a->n + 1) * sizeof *t);
  if (!t) return dlb_fail_null(DLB_ENOMEM, "graph: out of memory");
  size_t n = 0;
  for (size_t i = 0; i < a->cap; i++)
    if (a->used[i]) t[n].key = a->key[i], t[n].c = a->c[i], n++;
  /* round coefficients that are integers up to floating noise */
  for (size_t i = 0; i < n; i++) {
    double r = nearbyint(t[i].c);
    if (fabs(t[i].c - r) <= 1e-9 * fabs(r)) t[i].c = r;
  }
  dlb_poly *p = dlb_poly_build((const char *const *)g->vars, g->nvars, t, dlb_pterms_normalize(t, n));
  dlb_free(t);
  return p;
}

typedef struct sym {
  const dlb_graph *s;
  tpool pool;
  int32_t *doff, *dlen;  /* bound dims in pool */
  int32_t *noff, *nlen;  /* tensor element counts in pool, -1 not yet */
  pterm *a, *b;          /* scratch products */
  size_t cap;
  int precision;
} sym;

/* Room for n terms in both scratch buffers; 0 with a message on OOM. */
static int scratch(sym *y, size_t n) {
  if (n <= y->cap) return 1;
  size_t c = y->cap ? y->cap : 256;
  while (c < n) c *= 2;
  pterm *a = dlb_realloc(y->a, c * sizeof *a);
  if (!a) return dlb_fail(DLB_ENOMEM, "graph: out of memory"), 0;
  y->a = a;
  pterm *b = dlb_realloc(y->b, c * sizeof *b);
  if (!b) return dlb_fail(DLB_ENOMEM, "graph: out of memory"), 0;
  y->b = b;
  y->cap = c;
  return 1;
}

/* y->a[0..*n) *= terms (t, m); 0 with a message on failure (the polynomial bounds:
** dlb_pterms_mulcheck before the scratch grows, then dlb_pterms_mul). */
static int mulin(sym *y, size_t *n, const pterm *t, size_t m) {
  if (dlb_pterms_mulcheck(*n, m, "symbolic cost") != DLB_OK || !scratch(y, *n * m + 1)) return 0;
  long r = dlb_pterms_mul(y->a, *n, t, m, y->b, "symbolic cost");
  if (r < 0) return 0;
  pterm *x = y->a; y->a = y->b; y->b = x;
  *n = (size_t)r;
  return 1;
}

/* Element count of tensor t as pool terms; 0 with a message naming the tensor. */
static int numel(sym *y, int t) {
  if (y->noff[t] >= 0) return 1;
  const tensor *x = &y->s->t[t];
  size_t n = 1;
  if (!scratch(y, 1)) return 0;
  y->a[0].key = 0, y->a[0].c = 1;
  for (int i = 0; i < x->ndims; i++) {
    int d = x->dims[i];
    if (!mulin(y, &n, y->pool.t + y->doff[d], (size_t)y->dlen[d])) {
      char b[512];
      return dlb_fail_context("the element count of tensor '%s' (dim %d): ",
                              dlb_tname(y->s, t, b, sizeof b), i + 1), 0;
    }
  }
  if (!tp_reserve(&y->pool, n)) return dlb_fail(DLB_ENOMEM, "graph: out of memory"), 0;
  memcpy(y->pool.t + y->pool.n, y->a, n * sizeof *y->a);
  y->noff[t] = (int32_t)y->pool.n;
  y->nlen[t] = (int32_t)n;
  y->pool.n += n;
  return 1;
}

/* acc += c * product of the factors of a cost term. */
static int addterm(sym *y, acc *dst, acc *dst2, const cterm *ct, double scale) {
  size_t n = 1;
  for (int j = 0; j < ct->nf; j++) {
    int32_t f = ct->f[j];
    if (f < 0 && !numel(y, -f - 1)) return 0;
  }
  if (!scratch(y, 1)) return 0;
  y->a[0].key = 0, y->a[0].c = ct->c * scale;
  for (int j = 0; j < ct->nf; j++) {
    int32_t f = ct->f[j];
    size_t off = f >= 0 ? (size_t)y->doff[f] : (size_t)y->noff[-f - 1];
    size_t len = f >= 0 ? (size_t)y->dlen[f] : (size_t)y->nlen[-f - 1];
    if (!mulin(y, &n, y->pool.t + off, len)) return 0;
  }
  for (size_t i = 0; i < n; i++) {
    if (!acc_add(dst, y->a[i].key, y->a[i].c)) return 0;
    if (dst2 && !acc_add(dst2, y->a[i].key, y->a[i].c)) return 0;
  }
  return 1;
}

typedef struct bsym { sym *y; acc *a; int ok; } bsym;

/* dlb_op_bytes callback: add mult * element size * numel(t) to the bytes poly. */
static void addbytes(void *c, int t, double mult) {
  bsym *b = c;
  if (!b->ok) return;
  cterm ct = {mult * dlb_tensor_esize(b->y->s, t, b->y->precision), 1, {-t - 1}};
  b->ok = addterm(b->y, b->a, NULL, &ct, 1);
}

static int sym_init(sym *y, const dlb_graph *s, size_t nb, const char *const *names,
                    const double *values, int precision) {
  double vals[DLB_POLY_MAXVARS];
  int bound[DLB_POLY_MAXVARS];
  memset(y, 0, sizeof *y);
  y->s = s;
  y->precision = precision;
  int rc = dlb_check_bindings(s, nb, names, values);
  if (rc) return rc;
  dlb_bind_vars(s, nb, names, values, vals, bound, NULL);
  /* dims the bindings make constant must be positive integers (dlb_check_dimvals) */
  double *cval = dlb_malloc((s->dims.n + 1) * sizeof *cval);
  uint8_t *known = dlb_calloc(s->dims.n + 1, 1);
  if (!cval || !known) {
    dlb_free(cval); dlb_free(known);
    return dlb_fail(DLB_ENOMEM, "graph: out of memory");
  }
  y->doff = dlb_malloc((s->dims.n + 1) * sizeof *y->doff);
  y->dlen = dlb_malloc((s->dims.n + 1) * sizeof *y->dlen);
  y->noff = dlb_malloc((s->nt + 1) * sizeof *y->noff);
  y->nlen = dlb_malloc((s->nt + 1) * sizeof *y->nlen);
  if (!y->doff || !y->dlen || !y->noff || !y->nlen || !tp_reserve(&y->pool, s->dims.nterms + 1)) {
    dlb_free(cval); dlb_free(known);
    return dlb_fail(DLB_ENOMEM, "graph: out of memory");
  }
  for (size_t t = 0; t < s->nt; t++) y->noff[t] = -1;
  for (size_t d = 0; d < s->dims.n; d++) {
    const pterm *src = s->dims.terms + s->dims.off[d];
    size_t n = (size_t)s->dims.len[d];
    pterm *dst = y->pool.t + y->pool.n;
    for (size_t i = 0; i < n; i++) {
      uint64_t k = src[i].key;
      double c = src[i].c;
      for (int v = 0; v < s->nvars; v++) {
        if (!bound[v]) continue;
        for (int e = pkey_exp(k, v); e > 0; e--) c *= vals[v];
        k &= ~((uint64_t)15u << (4 * v));
      }
      dst[i].key = k, dst[i].c = c;
    }
    n = dlb_pterms_normalize(dst, n);
    if (n == 0 || (n == 1 && dst[0].key == 0)) known[d] = 1, cval[d] = n ? dst[0].c : 0;
    y->doff[d] = (int32_t)y->pool.n;
    y->dlen[d] = (int32_t)n;
    y->pool.n += n;
  }
  rc = dlb_check_dimvals(s, cval, known);
  dlb_free(cval); dlb_free(known);
  return rc;
}

/* Free the scratch state of a symbolic analysis. */
static void sym_free(sym *y) {
  dlb_free(y->pool.t); dlb_free(y->doff); dlb_free(y->dlen); dlb_free(y->noff); dlb_free(y->nlen);
  dlb_free(y->a); dlb_free(y->b);
}

int dlb_graph_step_nops(dlb_graph *g, const dlb_train_opts *o, size_t *out) {
  *out = 0;
  dlb_graph *s = dlb_graph_step(g, o);
  if (!s) return dlb_last_status();
  *out = s->no;
  dlb_graph_release(s);
  return DLB_OK;
}

int dlb_graph_symbolic(dlb_graph *g, const dlb_train_opts *o, size_t nb,
                       const char *const *names, const double *values, dlb_poly **out) {
  for (int i = 0; i < DLB_SYM_COUNT; i++) out[i] = NULL;
  dlb_graph *s = dlb_graph_step(g, o);
  if (!s) return dlb_last_status();
  sym y;
  acc a[DLB_SYM_COUNT];
  memset(a, 0, sizeof a);
  int rc = sym_init(&y, s, nb, names, values, o->precision), ok = rc == DLB_OK;
  cexpr e;
  uint8_t *read = ok ? dlb_calloc(s->nt + 1, 1) : NULL;
  if (ok && !read) ok = 0, rc = dlb_fail(DLB_ENOMEM, "graph: out of memory");
  for (size_t i = 0; ok && i < s->no; i++) {
    const op *p = &s->o[i];
    dlb_op_flops(s, (int)i, &e);
    int slot = p->phase == DLB_PHASE_FWD ? DLB_SYM_FLOPS_FWD : p->phase == DLB_PHASE_BWD ?
               DLB_SYM_FLOPS_BWD : p->phase == DLB_PHASE_UPDATE ? DLB_SYM_FLOPS_UPDATE :
               DLB_SYM_FLOPS_RECOMPUTE;
    for (int k = 0; ok && k < e.n; k++) ok = addterm(&y, &a[slot], &a[DLB_SYM_FLOPS], &e.t[k], 1);
    bsym b = {&y, &a[DLB_SYM_BYTES], ok};
    cexpr given;
    if (dlb_op_bytes_given(s, (int)i, &given))
      for (int k = 0; b.ok && k < given.n; k++) b.ok = addterm(&y, b.a, NULL, &given.t[k], 1);
    else dlb_op_bytes(s, (int)i, addbytes, &b);
    ok = b.ok;
    if (!ok) {
      char on[512];
      rc = dlb_fail_context("graph '%s': %s '%s': ", s->str + s->name, dlb_op_type_name(p->type),
                            dlb_oname(s, (int)i, on, sizeof on));
    }
    if ((int)i < s->nfwd)
      for (int j = 0; j < p->nin; j++) read[op_in(s, p)[j]] = 1;
  }
  for (size_t t = 0; ok && t < s->nt; t++) {
    int role = s->t[t].role;
    cterm ct = {1, 1, {-(int)t - 1}};
    if (role == DLB_ROLE_WEIGHT && (int)t < (int)g->nt) ok = addterm(&y, &a[DLB_SYM_PARAMS], NULL, &ct, 1);
    if (ok && read[t] && (role == DLB_ROLE_INPUT || role == DLB_ROLE_LABEL))
      ok = addterm(&y, &a[DLB_SYM_IO], NULL, &ct, dlb_tensor_esize(s, (int)t, o->precision));
    if (!ok) rc = dlb_fail_context("graph '%s': ", s->str + s->name);
  }
  if (!ok && rc == DLB_OK) rc = dlb_last_status() ? dlb_last_status() : DLB_ENOMEM;
  for (int i = 0; ok && i < DLB_SYM_COUNT; i++) {
    out[i] = acc_poly(s, &a[i]);
    if (!out[i]) ok = 0, rc = DLB_ENOMEM;
  }
  if (!ok) for (int i = 0; i < DLB_SYM_COUNT; i++) dlb_poly_free(out[i]), out[i] = NULL;
  for (int i = 0; i < DLB_SYM_COUNT; i++) { dlb_free(a[i].key); dlb_free(a[i].c); dlb_free(a[i].used); }
  dlb_free(read);
  sym_free(&y);
  dlb_graph_release(s);
  return rc;
}

dlb_poly *dlb_graph_symbolic_type(dlb_graph *g, const char *type, size_t nb,
                                  const char *const *names, const double *values) {
  int ty = dlb_graph_op_type(type);
  if (ty < 0) return NULL;
  sym y;
  acc a;
  memset(&a, 0, sizeof a);
  int ok = sym_init(&y, g, nb, names, values, DLB_POLICY_FP32) == DLB_OK;
  cexpr e;
  for (size_t i = 0; ok && i < g->no; i++) {
    if (g->o[i].type != ty) continue;
    dlb_op_flops(g, (int)i, &e);
    for (int k = 0; ok && k < e.n; k++) ok = addterm(&y, &a, NULL, &e.t[k], 1);
    if (!ok) {
      char on[512];
      dlb_fail_context("graph '%s': %s '%s': ", g->str + g->name, dlb_op_type_name(ty),
                       dlb_oname(g, (int)i, on, sizeof on));
    }
  }
  dlb_poly *p = ok ? acc_poly(g, &a) : NULL;
  dlb_free(a.key); dlb_free(a.c); dlb_free(a.used);
  sym_free(&y);
  return p;
}

int dlb_graph_attention_count(dlb_graph *g, size_t *n, size_t *ncausal) {
  return dlb_attention_find(g, NULL, 0, n, ncausal);
}

dlb_poly *dlb_graph_symbolic_attention(dlb_graph *g, int which, size_t nb,
                                       const char *const *names, const double *values) {
  if (which < -1 || which > 1)
    return dlb_fail_null(DLB_EINVAL, "graph '%s': attention FLOPs of which patterns: -1 (all), "
                         "0 (not causal) or 1 (causal), got %d", g->str + g->name, which);
  size_t n = 0, nc = 0;
  if (dlb_attention_find(g, NULL, 0, &n, &nc)) return NULL;
  int32_t *mm = dlb_malloc((3 * n + 1) * sizeof *mm);
  if (!mm) return dlb_fail_null(DLB_ENOMEM, "attention: out of memory");
  if (dlb_attention_find(g, mm, n, &n, &nc)) { dlb_free(mm); return NULL; }
  sym y;
  acc a;
  memset(&a, 0, sizeof a);
  int ok = sym_init(&y, g, nb, names, values, DLB_POLICY_FP32) == DLB_OK;
  cexpr e;
  for (size_t i = 0; ok && i < n; i++) {
    if (which >= 0 && mm[3 * i + 2] != which) continue;
    for (int k = 0; ok && k < 2; k++) {
      int o = mm[3 * i + k];
      dlb_op_flops(g, o, &e);
      for (int j = 0; ok && j < e.n; j++) ok = addterm(&y, &a, NULL, &e.t[j], 1);
      if (!ok) {
        char on[512];
        dlb_fail_context("graph '%s': matmul '%s': ", g->str + g->name, dlb_oname(g, o, on, sizeof on));
      }
    }
  }
  dlb_poly *p = ok ? acc_poly(g, &a) : NULL;
  dlb_free(a.key); dlb_free(a.c); dlb_free(a.used);
  sym_free(&y);
  dlb_free(mm);
  return p;
}
