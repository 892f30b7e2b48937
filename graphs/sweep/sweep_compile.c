/*
** sweep_compile.c — a model family's training step compiled into polynomials over the swept
** dims: each op's FLOPs, bytes and matmul shape from the op's own cost rules (dlb_op_flops,
** dlb_op_bytes, dlb_op_gemm, graphs/ir/op_cost.c) with the dims left symbolic; the fusion
** passes (dlb_fuse_step, graphs/step/fusion.c) applied monomial by monomial, which is exact
** because every pass moves costs linearly (sums, and a clamp at 0 that a consistent step
** never reaches: tests/lua/test_sweep_model.lua compares with the numeric analysis);
** identical ops merged into classes counted by multiplicity. A layered program takes the
** step at three layer counts and makes every count and total affine in "layers". Beside the
** classes the program keeps the step's op order (the host-side timeline runs ops in order):
** the ops of one build as class indices, cut into fixed segments and segments of one layer's
** ops of one pass, which run once per layer (dlb_sweep_build_order, sweep_order.c).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "graph_impl.h"
#include "roofline_impl.h"
#include "sweep_impl.h"

dlb_graph *dlb_graph_step(dlb_graph *g, const dlb_train_opts *o);
double dlb_tensor_esize(const dlb_graph *s, int t, int precision);

/* -- term lists -- */

/* dst = a * b (new terms); 0 with a message on failure. */
static int tmul(const swpoly *a, const swpoly *b, swpoly *dst) {
  dst->t = NULL, dst->n = 0;
  if (a->n == 0 || b->n == 0) return 1;
  if (dlb_pterms_mulcheck(a->n, b->n, "compiled sweep") != DLB_OK) return 0;
  pterm *r = dlb_malloc((a->n * b->n + 1) * sizeof *r);
  if (!r) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"), 0;
  long n = dlb_pterms_mul(a->t, a->n, b->t, b->n, r, "compiled sweep");
  if (n < 0) { dlb_free(r); return 0; }
  dst->t = r, dst->n = (size_t)n;
  return 1;
}

/* a += c * b (normalised); 0 on OOM. */
int dlb_swpoly_add(swpoly *a, const swpoly *b, double c) {
  if (b->n == 0 || c == 0) return 1;
  pterm *t = dlb_realloc(a->t, (a->n + b->n + 1) * sizeof *t);
  if (!t) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"), 0;
  for (size_t i = 0; i < b->n; i++) t[a->n + i].key = b->t[i].key, t[a->n + i].c = c * b->t[i].c;
  a->t = t;
  a->n = dlb_pterms_normalize(t, a->n + b->n);
  return 1;
}

/* -- the pool: deduplicated polynomials -- */

static uint64_t thash(const swpoly *a) {
  uint64_t h = 1469598103934665603ULL ^ a->n;
  for (size_t i = 0; i < a->n; i++) {
    uint64_t c;
    double d = a->t[i].c + 0.0; /* -0 and 0 hash alike */
    memcpy(&c, &d, sizeof c);
    h = (h ^ a->t[i].key) * 1099511628211ULL;
    h = (h ^ c) * 1099511628211ULL;
  }
  return h;
}

static int teq(const swpoly *a, const swpoly *b) {
  if (a->n != b->n) return 0;
  for (size_t i = 0; i < a->n; i++)
    if (a->t[i].key != b->t[i].key || a->t[i].c != b->t[i].c) return 0;
  return 1;
}

/* The pool id of terms a (canonical; taken over: a is emptied), or -1 on OOM. */
int32_t dlb_swpoly_intern(dlb_sweep_prog *p, swpoly *a) {
  if (2 * (p->npoly + 1) > p->nslot) {
    size_t ns = p->nslot ? 2 * p->nslot : 256;
    int32_t *s = dlb_malloc(ns * sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < ns; i++) s[i] = -1;
    for (size_t i = 0; i < p->npoly; i++) {
      size_t h = (size_t)thash(&p->poly[i]) & (ns - 1);
      while (s[h] >= 0) h = (h + 1) & (ns - 1);
      s[h] = (int32_t)i;
    }
    dlb_free(p->slot);
    p->slot = s, p->nslot = ns;
  }
  size_t h = (size_t)thash(a) & (p->nslot - 1);
  while (p->slot[h] >= 0) {
    if (teq(&p->poly[p->slot[h]], a)) {
      dlb_free(a->t);
      a->t = NULL, a->n = 0;
      return p->slot[h];
    }
    h = (h + 1) & (p->nslot - 1);
  }
  if (p->npoly == p->cappoly) {
    size_t nc = p->cappoly ? 2 * p->cappoly : 256;
    swpoly *q = dlb_realloc(p->poly, nc * sizeof *q);
    if (!q) return -1;
    p->poly = q, p->cappoly = nc;
  }
  p->poly[p->npoly] = *a;
  a->t = NULL, a->n = 0;
  p->slot[h] = (int32_t)p->npoly;
  return (int32_t)p->npoly++;
}

/* The id of the constant c. */
int32_t dlb_swpoly_const(dlb_sweep_prog *p, double c) {
  swpoly a = {NULL, 0};
  if (c != 0) {
    a.t = dlb_malloc(sizeof *a.t);
    if (!a.t) return -1;
    a.t[0].key = 0, a.t[0].c = c, a.n = 1;
  }
  return dlb_swpoly_intern(p, &a);
}

/* Free graph state G's class names. */
static void free_cnames(swgraph *G) {
  for (size_t i = 0; G->cname && i < G->nc; i++) dlb_free(G->cname[i]);
  dlb_free(G->cname);
  G->cname = NULL;
}

/* -- the program -- */


dlb_sweep_prog *dlb_sweep_prog_new(size_t nvars, const char *const *vars, int layered) {
  size_t nv = nvars + (layered ? 1 : 0);
  if (nv > DLB_POLY_MAXVARS)
    return dlb_fail_null(DLB_EINVAL, "compiled sweep: %zu symbols (at most %d, layers included)",
                         nv, DLB_POLY_MAXVARS);
  if (nvars > 0 && vars == NULL) return dlb_fail_null(DLB_EINVAL, "compiled sweep: vars is NULL");
  for (size_t i = 0; i < nvars; i++) {
    if (vars[i] == NULL || !vars[i][0])
      return dlb_fail_null(DLB_EINVAL, "compiled sweep: symbol %zu has no name", i + 1);
    for (size_t j = 0; j < i; j++)
      if (strcmp(vars[i], vars[j]) == 0)
        return dlb_fail_null(DLB_EINVAL, "compiled sweep: symbol '%s' given twice", vars[i]);
    if (layered && strcmp(vars[i], "layers") == 0)
      return dlb_fail_null(DLB_EINVAL, "compiled sweep: 'layers' is the layered program's own "
                           "symbol; do not list it");
  }
  dlb_sweep_prog *p = dlb_calloc(1, sizeof *p);
  if (!p) return dlb_fail_null(DLB_ENOMEM, "compiled sweep: out of memory");
  p->nv = (int)nv;
  p->layered = !!layered;
  for (size_t i = 0; i < nv; i++) {
    p->vars[i] = dlb_strdup(i < nvars ? vars[i] : "layers");
    if (!p->vars[i]) { dlb_sweep_prog_free(p); return dlb_fail_null(DLB_ENOMEM, "compiled sweep: out of memory"); }
  }
  return p;
}

void dlb_sweep_prog_hold(const dlb_sweep_prog *p) {
  __atomic_add_fetch(&((dlb_sweep_prog *)p)->refs, 1, __ATOMIC_RELAXED);
}

void dlb_sweep_prog_free(dlb_sweep_prog *p) {
  if (!p) return;
  /* a reducer's kept rows may still decode through it (dlb_sweep_prog_hold) */
  if (__atomic_fetch_sub(&p->refs, 1, __ATOMIC_ACQ_REL) > 0) return;
  for (int i = 0; i < p->nv; i++) dlb_free(p->vars[i]);
  for (int k = 0; k < SW_MAXG; k++) {
    dlb_sweep_free_live(&p->g[k]);
    free_cnames(&p->g[k]);
    dlb_free(p->g[k].c); dlb_free(p->g[k].count); dlb_free(p->g[k].seq); dlb_free(p->g[k].mk);
    dlb_free(p->g[k].tn); dlb_free(p->g[k].tcount);
  }
  for (size_t i = 0; i < p->npoly; i++) dlb_free(p->poly[i].t);
  dlb_free(p->poly); dlb_free(p->slot);
  dlb_free(p->mono); dlb_free(p->poff); dlb_free(p->tm); dlb_free(p->tc); dlb_free(p->cls); dlb_free(p->attn);
  dlb_free(p->xops); dlb_free(p->xkern);
  dlb_free(p->upd); dlb_free(p->ordu); dlb_free(p->segnu); dlb_free(p->tun); dlb_free(p->tmult);
  dlb_free(p->ordmku); dlb_free(p->ordmk); dlb_free(p->segmk);
  dlb_free(p->ord); dlb_free(p->sego); dlb_free(p->segn); dlb_free(p->segr);
  dlb_free(p->pk); dlb_free(p->pkpos); dlb_free(p->pkoff); dlb_free(p->pkw);
  dlb_free(p);
}

size_t dlb_sweep_prog_nvars(const dlb_sweep_prog *p) { return p ? (size_t)p->nv : 0; }
size_t dlb_sweep_prog_nclasses(const dlb_sweep_prog *p) { return p ? p->ncls : 0; }

/* Count one op (named name) of class c in graph state G, appending the class's index to
** G->seq. */
static int addclass(swgraph *G, const swclass *c, const char *name) {
  for (size_t i = 0; i < G->nc; i++)
    if (!memcmp(&G->c[i], c, sizeof *c)) {
      G->count[i] += 1;
      G->seq[G->nseq++] = (int32_t)i;
      return 1;
    }
  if (G->nc == G->cap) {
    size_t n = G->cap ? 2 * G->cap : 64;
    swclass *a = dlb_realloc(G->c, n * sizeof *a);
    if (!a) return 0;
    G->c = a;
    double *b = dlb_realloc(G->count, n * sizeof *b);
    if (!b) return 0;
    G->count = b;
    char **nm = dlb_realloc(G->cname, n * sizeof *nm);
    if (!nm) return 0;
    G->cname = nm, G->cap = n;
  }
  G->cname[G->nc] = dlb_strdup(name);
  if (!G->cname[G->nc]) return 0;
  G->c[G->nc] = *c;
  G->seq[G->nseq++] = (int32_t)G->nc;
  G->count[G->nc++] = 1;
  return 1;
}

/* What compiling one step needs. */
typedef struct cc {
  dlb_sweep_prog *p;
  const dlb_graph *s;
  int map[DLB_POLY_MAXVARS];  /* graph variable -> program symbol, -1 none */
  swpoly *dim, *numel;        /* per interned dim; per tensor (n = SIZE_MAX: not yet) */
  uint8_t *have;
} cc;

/* Dim d of the step over the program's symbols; 0 naming the variable that is no symbol. */
static int dimpoly(cc *c, int32_t d, swpoly *out) {
  const dlb_graph *s = c->s;
  const pterm *src = s->dims.terms + s->dims.off[d];
  size_t n = (size_t)s->dims.len[d];
  pterm *t = dlb_malloc((n + 1) * sizeof *t);
  if (!t) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"), 0;
  for (size_t i = 0; i < n; i++) {
    for (int v = 0; v < s->nvars; v++)
      if (pkey_exp(src[i].key, v) && c->map[v] < 0) {
        dlb_free(t);
        return dlb_fail(DLB_EUNBOUND, "compiled sweep: graph '%s' uses the dim '%s', which is "
                        "not one of the sweep's symbols (bind it to a number in the builder, or "
                        "sweep it)", s->str + s->name, s->vars[v]), 0;
      }
    uint64_t k = 0;
    for (int v = 0; v < s->nvars; v++)
      if (pkey_exp(src[i].key, v)) k |= (uint64_t)pkey_exp(src[i].key, v) << (4 * c->map[v]);
    t[i].key = k;
    t[i].c = src[i].c;
  }
  out->t = t;
  out->n = dlb_pterms_normalize(t, n);
  return 1;
}

/* Element count of tensor t (cached). */
static const swpoly *numel(cc *c, int t) {
  if (c->have[t]) return &c->numel[t];
  const tensor *x = &c->s->t[t];
  swpoly acc = {dlb_malloc(sizeof(pterm)), 1};
  if (!acc.t) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"), NULL;
  acc.t[0].key = 0, acc.t[0].c = 1;
  for (int i = 0; i < x->ndims; i++) {
    swpoly r;
    if (!tmul(&acc, &c->dim[x->dims[i]], &r)) { dlb_free(acc.t); return NULL; }
    dlb_free(acc.t);
    acc = r;
  }
  c->numel[t] = acc;
  c->have[t] = 1;
  return &c->numel[t];
}

/* The polynomial of a cost expression. */
static int cexpr_poly(cc *c, const cexpr *e, swpoly *out) {
  out->t = NULL, out->n = 0;
  for (int k = 0; k < e->n; k++) {
    const cterm *ct = &e->t[k];
    swpoly acc = {dlb_malloc(sizeof(pterm)), 1};
    if (!acc.t) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"), 0;
    acc.t[0].key = 0, acc.t[0].c = ct->c;
    for (int j = 0; j < ct->nf; j++) {
      int32_t f = ct->f[j];
      const swpoly *fp = f >= 0 ? &c->dim[f] : numel(c, -f - 1);
      swpoly r;
      if (!fp || !tmul(&acc, fp, &r)) { dlb_free(acc.t); dlb_free(out->t); return 0; }
      dlb_free(acc.t);
      acc = r;
    }
    int ok = dlb_swpoly_add(out, &acc, 1);
    dlb_free(acc.t);
    if (!ok) { dlb_free(out->t); return 0; }
  }
  return 1;
}

typedef struct bsum { const swpoly *S; swpoly *acc; int ok; } bsum;

/* dlb_op_bytes callback: acc += mult * S[t] (the tensor's bytes, as the numeric analysis
** counts them). */
static void bytes_cb(void *ctx, int t, double mult) {
  bsum *b = ctx;
  if (b->ok) b->ok = dlb_swpoly_add(b->acc, &b->S[t], mult);
}

/* Coefficient of key in canonical terms (binary search). */
static double coef(const swpoly *a, uint64_t key) {
  size_t lo = 0, hi = a->n;
  while (lo < hi) {
    size_t m = (lo + hi) / 2;
    if (a->t[m].key < key) lo = m + 1; else hi = m;
  }
  return lo < a->n && a->t[lo].key == key ? a->t[lo].c : 0;
}

int dlb_swkey_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Term list a at the point x (one value per program symbol). */
double dlb_swpoly_at(const swpoly *a, const double *x) {
  double s = 0;
  for (size_t i = 0; i < a->n; i++) {
    double m = a->t[i].c;
    uint64_t k = a->t[i].key;
    for (int v = 0; k; v++, k >>= 4)
      for (int e = (int)(k & 15); e > 0; e--) m *= x[v];
    s += m;
  }
  return s;
}

/* The numbers the fusion passes make at a reference point (symbol v = 2 + v): FLOPs, bytes,
** sizes (fl, by: no each; sz: nt), from the unfused term lists; 0 on OOM. The monomial-wise
** result must agree there, or a pass was not linear for this step (a clamp reached by a
** polynomial with negative coefficients). */
static int fuse_ref(const dlb_graph *s, int flags, int precision, const swpoly *F,
                    const swpoly *B, const swpoly *S, double *fl, double *by, double *sz,
                    double *more, int *gw) {
  double x[DLB_POLY_MAXVARS];
  for (int v = 0; v < DLB_POLY_MAXVARS; v++) x[v] = 2 + v;
  for (size_t i = 0; i < s->no; i++) fl[i] = dlb_swpoly_at(&F[i], x), by[i] = dlb_swpoly_at(&B[i], x);
  for (size_t t = 0; t < s->nt; t++) sz[t] = dlb_swpoly_at(&S[t], x);
  int *k = dlb_calloc(s->no + 1, sizeof *k);
  double rc;
  int ok = k && dlb_fuse_step(s, flags, precision, fl, by, sz, k, more, gw, &rc) == DLB_OK;
  dlb_free(k);
  return ok;
}

/* Whether term lists F, B (after the passes) give fl, by at the reference point. */
static int fuse_agrees(const dlb_graph *s, const swpoly *F, const swpoly *B, const double *fl,
                       const double *by) {
  double x[DLB_POLY_MAXVARS];
  for (int v = 0; v < DLB_POLY_MAXVARS; v++) x[v] = 2 + v;
  for (size_t i = 0; i < s->no; i++) {
    double a = dlb_swpoly_at(&F[i], x), b = dlb_swpoly_at(&B[i], x);
    if (fabs(a - fl[i]) > 1e-9 * fmax(fabs(a), fabs(fl[i])) ||
        fabs(b - by[i]) > 1e-9 * fmax(fabs(b), fabs(by[i])))
      return 0;
  }
  return 1;
}

/* Apply the fusion passes to per-op FLOPs F, bytes B and tensor sizes S (term lists,
** replaced) monomial by monomial; kernel receives the kernel classes, *rc the recompute
** FLOPs the fused kernels add; gw (3 per op) the fused GEMMs' shapes and more (2 per op,
** zeroed) the ops' further host ops and kernels (dlb_fuse_step's gemm_with and more:
** structural, the same for every monomial). */
static int fuse_poly(const dlb_graph *s, int flags, int precision, swpoly *F, swpoly *B,
                     swpoly *S, int *kernel, double *more, int *gw, swpoly *rc) {
  size_t no = s->no, nt = s->nt, nk = 0, cap = 64;
  double *rf = dlb_malloc((no + 1) * sizeof *rf), *rb = dlb_malloc((no + 1) * sizeof *rb);
  double *rz = dlb_malloc((nt + 1) * sizeof *rz);
  if (!rf || !rb || !rz || !fuse_ref(s, flags, precision, F, B, S, rf, rb, rz, more, gw)) {
    dlb_free(rf); dlb_free(rb); dlb_free(rz);
    return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"), 0;
  }
  uint64_t *keys = dlb_malloc(cap * sizeof *keys);
  if (!keys) {
    dlb_free(rf); dlb_free(rb); dlb_free(rz);
    return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"), 0;
  }
  const swpoly *lists[3] = {F, B, S};
  size_t lens[3] = {no, no, nt};
  for (int l = 0; l < 3; l++)
    for (size_t i = 0; i < lens[l]; i++)
      for (size_t j = 0; j < lists[l][i].n; j++) {
        if (nk == cap) {
          uint64_t *k = dlb_realloc(keys, 2 * cap * sizeof *k);
          if (!k) { dlb_free(keys); return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"), 0; }
          keys = k, cap *= 2;
        }
        keys[nk++] = lists[l][i].t[j].key;
      }
  qsort(keys, nk, sizeof *keys, dlb_swkey_cmp);
  size_t u = 0;
  for (size_t i = 0; i < nk; i++) if (u == 0 || keys[i] != keys[u - 1]) keys[u++] = keys[i];
  nk = u;
  /* outputs: dense [key][op or tensor] */
  double *f = dlb_malloc((no + 1) * sizeof *f), *b = dlb_malloc((no + 1) * sizeof *b);
  double *z = dlb_malloc((nt + 1) * sizeof *z);
  double *of = dlb_calloc(nk * no + 1, sizeof *of), *ob = dlb_calloc(nk * no + 1, sizeof *ob);
  double *oz = dlb_calloc(nk * nt + 1, sizeof *oz), *orc = dlb_calloc(nk + 1, sizeof *orc);
  int ok = f && b && z && of && ob && oz && orc;
  if (!ok) dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (size_t k = 0; ok && k < nk; k++) {
    for (size_t i = 0; i < no; i++) f[i] = coef(&F[i], keys[k]), b[i] = coef(&B[i], keys[k]);
    for (size_t t = 0; t < nt; t++) z[t] = coef(&S[t], keys[k]);
    memset(kernel, 0, no * sizeof *kernel);
    ok = dlb_fuse_step(s, flags, precision, f, b, z, kernel, NULL, NULL, &orc[k]) == DLB_OK;
    memcpy(of + k * no, f, no * sizeof *f);
    memcpy(ob + k * no, b, no * sizeof *b);
    memcpy(oz + k * nt, z, nt * sizeof *z);
  }
  /* back to term lists */
  for (int l = 0; ok && l < 4; l++) {
    size_t n = l == 3 ? 1 : lens[l];
    const double *src = l == 0 ? of : l == 1 ? ob : l == 2 ? oz : orc;
    swpoly *dst = l == 0 ? F : l == 1 ? B : l == 2 ? S : rc;
    for (size_t i = 0; ok && i < n; i++) {
      size_t m = 0;
      for (size_t k = 0; k < nk; k++) if (src[k * n + i] != 0) m++;
      pterm *t = dlb_malloc((m + 1) * sizeof *t);
      if (!t) { ok = 0; dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"); break; }
      m = 0;
      for (size_t k = 0; k < nk; k++)
        if (src[k * n + i] != 0) t[m].key = keys[k], t[m].c = src[k * n + i], m++;
      dlb_free(dst[i].t);
      dst[i].t = t, dst[i].n = m;
    }
  }
  dlb_free(keys); dlb_free(f); dlb_free(b); dlb_free(z);
  dlb_free(of); dlb_free(ob); dlb_free(oz); dlb_free(orc);
  if (ok && !fuse_agrees(s, F, B, rf, rb))
    ok = 0, dlb_fail(DLB_EINVAL, "compiled sweep: graph '%s': the fusion passes are not linear "
                     "in its dims (a dim with a negative coefficient?): compile it without "
                     "fusion (stats = {framework = \"none\"}) or time it with g:stats",
                     s->str + s->name);
  dlb_free(rf); dlb_free(rb); dlb_free(rz);
  return ok;
}

/* Free graph state G's per-position live bytes. */
void dlb_sweep_free_live(swgraph *G) {
  for (size_t i = 0; G->lt && i < G->nlive; i++) dlb_free(G->lt[i].t);
  for (size_t i = 0; G->la && i < G->nlive; i++) dlb_free(G->la[i].t);
  dlb_free(G->lt); dlb_free(G->la);
  G->lt = G->la = NULL;
  G->nlive = 0;
}

/* The live bytes of step s's construction order as polynomials, as graphs/step/footprint.c's
** simulate counts them over the sizes S (after fusion): storages (a view shares its base's)
** live from their producer (sources with a use, weights and optimizer state: from the start;
** weights and optimizer state throughout) until their last use; an op's owned outputs are
** allocated before its inputs are released, and an output nobody reads is released after
** it. G->lt[i] receives the live bytes while op i runs, G->la[i] the activations + workspace
** among them (dlb_tensor_category 3 and 4). 0 with a message on failure. */
static int live_polys(const dlb_graph *s, const swpoly *S, swgraph *G) {
  size_t no = s->no, nt = s->nt;
  int32_t *rem = dlb_calloc(nt + 1, sizeof *rem);
  uint8_t *cat = dlb_malloc(nt + 1);
  G->lt = dlb_calloc(no + 1, sizeof *G->lt);
  G->la = dlb_calloc(no + 1, sizeof *G->la);
  swpoly T = {NULL, 0}, A = {NULL, 0};
  int ok = rem && cat && G->lt && G->la;
  if (!ok) dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  if (ok) G->nlive = no;
  for (size_t i = 0; ok && i < no; i++)
    for (int j = 0; j < s->o[i].nin; j++) rem[s->t[op_in(s, &s->o[i])[j]].base]++;
  for (size_t t = 0; ok && t < nt; t++) { /* 0-4 category, | 8 persistent */
    int r = s->t[t].role;
    cat[t] = (uint8_t)(dlb_tensor_category(s, (int)t) |
                       (r == DLB_ROLE_WEIGHT || r == DLB_ROLE_OPTSTATE ? 8 : 0));
  }
  /* live before the first op: owned storages that persist, or sources with a use */
  for (size_t t = 0; ok && t < nt; t++) {
    const tensor *x = &s->t[t];
    if (x->base != (int32_t)t || !((cat[t] & 8) || (x->producer == -1 && rem[t] > 0))) continue;
    ok = dlb_swpoly_add(&T, &S[t], 1) && ((cat[t] & 7) < 3 || dlb_swpoly_add(&A, &S[t], 1));
  }
  for (size_t i = 0; ok && i < no; i++) {
    const op *q = &s->o[i];
    const int32_t *in = op_in(s, q), *out = op_out(s, q);
    for (int j = 0; ok && j < q->nout; j++) {
      int t = out[j];
      if (s->t[t].base == t) ok = dlb_swpoly_add(&T, &S[t], 1) && ((cat[t] & 7) < 3 || dlb_swpoly_add(&A, &S[t], 1));
    }
    ok = ok && dlb_swpoly_add(&G->lt[i], &T, 1) && dlb_swpoly_add(&G->la[i], &A, 1);
    for (int j = 0; ok && j < q->nin; j++) {
      int b = s->t[in[j]].base;
      if (--rem[b] == 0 && !(cat[b] & 8))
        ok = dlb_swpoly_add(&T, &S[b], -1) && ((cat[b] & 7) < 3 || dlb_swpoly_add(&A, &S[b], -1));
    }
    for (int j = 0; ok && j < q->nout; j++) {
      int t = out[j];
      if (s->t[t].base == t && !(cat[t] & 8) && rem[t] == 0)
        ok = dlb_swpoly_add(&T, &S[t], -1) && ((cat[t] & 7) < 3 || dlb_swpoly_add(&A, &S[t], -1));
    }
  }
  dlb_free(rem); dlb_free(cat); dlb_free(T.t); dlb_free(A.t);
  return ok;
}

/* Count one Adam / AdamW tensor of element count `id` (a pool id) in graph state G; 0 on OOM. */
static int addtensor(swgraph *G, int32_t id) {
  for (size_t i = 0; i < G->ntn; i++)
    if (G->tn[i] == id) { G->tcount[i] += 1; return 1; }
  if (G->ntn == G->captn) {
    size_t n = G->captn ? 2 * G->captn : 16;
    int32_t *a = dlb_realloc(G->tn, n * sizeof *a);
    if (!a) return 0;
    G->tn = a;
    double *b = dlb_realloc(G->tcount, n * sizeof *b);
    if (!b) return 0;
    G->tcount = b, G->captn = n;
  }
  G->tn[G->ntn] = id;
  G->tcount[G->ntn++] = 1;
  return 1;
}

/* The launch group of op q when it updates an Adam / AdamW tensor, else -1
** (dlb_analysis_update_tensors' ops and groups, by the same rules: op_adam_update,
** op_update_group in graph_impl.h). */
static int adam_update(const dlb_graph *s, const op *q) {
  if (!op_adam_update(q)) return -1;
  int g = op_update_group(s, q);
  return g >= 0 && (size_t)g < (s->nlayers ? s->nlayers : 1) ? g : -1;
}

/* Compile the step s of one graph into graph state G. */
static int compile_step(dlb_sweep_prog *p, swgraph *G, const dlb_graph *s, const dlb_train_opts *o) {
  cc c;
  memset(&c, 0, sizeof c);
  c.p = p, c.s = s;
  for (int v = 0; v < s->nvars; v++) {
    c.map[v] = -1;
    for (int j = 0; j < p->nv - p->layered; j++)
      if (strcmp(s->vars[v], p->vars[j]) == 0) c.map[v] = j;
  }
  size_t no = s->no, nt = s->nt;
  c.dim = dlb_calloc(s->dims.n + 1, sizeof *c.dim);
  c.numel = dlb_calloc(nt + 1, sizeof *c.numel);
  c.have = dlb_calloc(nt + 1, 1);
  swpoly *F = dlb_calloc(no + 1, sizeof *F), *B = dlb_calloc(no + 1, sizeof *B);
  swpoly *S = dlb_calloc(nt + 1, sizeof *S), *GM = dlb_calloc(4 * no + 1, sizeof *GM);
  uint8_t *isg = dlb_calloc(no + 1, 1);
  int *kernel = dlb_calloc(no + 1, sizeof *kernel);
  double *more = dlb_calloc(2 * no + 1, sizeof *more);   /* further host ops, kernels */
  swpoly tot[DLB_SWT_COUNT], rc = {NULL, 0};
  memset(tot, 0, sizeof tot);
  int ok = c.dim && c.numel && c.have && F && B && S && GM && isg && kernel && more;
  if (!ok) dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (size_t d = 0; ok && d < s->dims.n; d++) ok = dimpoly(&c, (int32_t)d, &c.dim[d]);
  /* tensor sizes: element size x element count */
  for (size_t t = 0; ok && t < nt; t++) {
    const swpoly *n = numel(&c, (int)t);
    ok = n && dlb_swpoly_add(&S[t], n, dlb_tensor_esize(s, (int)t, o->precision));
  }
  cexpr e, gm[4];
  for (size_t i = 0; ok && i < no; i++) {
    dlb_op_flops(s, (int)i, &e);
    ok = cexpr_poly(&c, &e, &F[i]);
    if (ok && dlb_op_gemm(s, (int)i, gm)) {
      isg[i] = 1;
      for (int k = 0; ok && k < 4; k++) {
        if (gm[k].n) ok = cexpr_poly(&c, &gm[k], &GM[4 * i + k]);
        else {
          GM[4 * i + k].t = dlb_malloc(sizeof(pterm));
          ok = GM[4 * i + k].t != NULL;
          if (ok) GM[4 * i + k].t[0].key = 0, GM[4 * i + k].t[0].c = 1, GM[4 * i + k].n = 1;
        }
      }
    }
  }
  if (!ok && dlb_last_status() == DLB_OK) dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  /* bytes (a second pass: dlb_op_bytes reports tensors, whose sizes are S) */
  for (size_t i = 0; ok && i < no; i++) {
    bsum bs = {S, &B[i], 1};
    cexpr given;
    if (dlb_op_bytes_given(s, (int)i, &given)) bs.ok = cexpr_poly(&c, &given, &B[i]);
    else dlb_op_bytes(s, (int)i, bytes_cb, &bs);
    ok = bs.ok;
  }
  /* phase totals before fusion, by phase */
  for (size_t i = 0; ok && i < no; i++) {
    int ph = s->o[i].phase;
    int slot = ph == DLB_PHASE_FWD ? DLB_SWT_FLOPS_FWD : ph == DLB_PHASE_BWD ? DLB_SWT_FLOPS_BWD
             : ph == DLB_PHASE_UPDATE ? DLB_SWT_FLOPS_UPDATE : DLB_SWT_FLOPS_RECOMPUTE;
    ok = dlb_swpoly_add(&tot[slot], &F[i], 1);
  }
  if (ok && o->fuse && !o->inference) {
    int *gw = dlb_malloc((3 * no + 1) * sizeof *gw);
    if (!gw) ok = 0, dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    if (ok) ok = fuse_poly(s, o->fuse, o->precision, F, B, S, kernel, more, gw, &rc);
    if (ok) ok = dlb_swpoly_add(&tot[DLB_SWT_FLOPS_RECOMPUTE], &rc, 1);
    /* a GEMM fused with two others (QKV as one h -> 3h): one dim the sum of the three's, as
    ** the analysis reports it (analysis.c op_gemm) */
    for (size_t i = 0; ok && i < no; i++) {
      const int *w = gw + 3 * i;
      if (w[0] < 0 || !isg[i] || !isg[w[0]] || !isg[w[1]]) continue;
      ok = dlb_swpoly_add(&GM[4 * i + w[2]], &GM[4 * (size_t)w[0] + w[2]], 1) &&
           dlb_swpoly_add(&GM[4 * i + w[2]], &GM[4 * (size_t)w[1] + w[2]], 1);
    }
    dlb_free(gw);
  }
  /* the output layer's GEMMs, as the analysis marks them (output_layer.c) */
  if (ok) ok = dlb_mark_output_layer(s, kernel) == DLB_OK;
  for (int k = DLB_SWT_FLOPS_FWD; ok && k <= DLB_SWT_FLOPS_RECOMPUTE; k++)
    ok = dlb_swpoly_add(&tot[DLB_SWT_FLOPS], &tot[k], 1);
  for (size_t i = 0; ok && i < no; i++) ok = dlb_swpoly_add(&tot[DLB_SWT_BYTES], &B[i], 1);
  /* tensors: parameters, io, weights and optimizer state, the forward pass's stash */
  uint8_t *read = ok ? dlb_calloc(nt + 1, 1) : NULL, *later = ok ? dlb_calloc(nt + 1, 1) : NULL;
  if (ok && (!read || !later)) ok = 0, dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (size_t i = 0; ok && i < no; i++)
    for (int j = 0; j < s->o[i].nin; j++) {
      int t = op_in(s, &s->o[i])[j];
      if ((int)i < s->nfwd) read[t] = 1;
      else later[s->t[t].base] = 1;
    }
  for (size_t t = 0; ok && t < nt; t++) {
    const tensor *x = &s->t[t];
    const swpoly *n = numel(&c, (int)t);
    ok = n != NULL;
    if (ok && x->role == DLB_ROLE_WEIGHT) {
      ok = dlb_swpoly_add(&tot[DLB_SWT_PARAMS], n, 1);
      if (ok && !(x->flags & TF_FROZEN)) ok = dlb_swpoly_add(&tot[DLB_SWT_TRAINABLE], n, 1);
    } else if (ok && x->role == DLB_ROLE_OPTSTATE && !(x->flags & TF_MASTER)) {
      ok = dlb_swpoly_add(&tot[DLB_SWT_OPT_STATES], &S[t], 1); /* as dlb_totals.opt_states */
    } else if (ok && read[t] && (x->role == DLB_ROLE_INPUT || x->role == DLB_ROLE_LABEL)) {
      ok = dlb_swpoly_add(&tot[DLB_SWT_IO], n, dlb_tensor_esize(s, (int)t, o->precision));
    }
    if (!ok || x->base != (int32_t)t) continue;
    if (x->role == DLB_ROLE_WEIGHT) ok = dlb_swpoly_add(&tot[DLB_SWT_WEIGHTS], &S[t], 1);
    else if (x->role == DLB_ROLE_OPTSTATE) ok = dlb_swpoly_add(&tot[DLB_SWT_OPTIMIZER], &S[t], 1);
    else {
      int cat = dlb_tensor_category(s, (int)t);
      if (cat == 3 || cat == 4) ok = dlb_swpoly_add(&tot[DLB_SWT_ACT_ALL], &S[t], 1);
      if (ok && cat == 3 && x->producer >= 0 && x->producer < s->nfwd && later[t])
        ok = dlb_swpoly_add(&tot[DLB_SWT_STASH], &S[t], 1);
    }
  }
  dlb_free(read); dlb_free(later);
  /* the construction order's live bytes, per op */
  if (ok) ok = live_polys(s, S, G);
  /* the layers whose optimizer step updates Adam / AdamW tensors (dlb_analysis_update_tensors:
  ** the launch model's tensors; their update phase is timed as one, dlb_step_time) */
  uint8_t *hasl = ok ? dlb_calloc(s->nlayers + 1, 1) : NULL;
  if (ok && !hasl) ok = 0, dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (size_t i = 0; ok && i < no; i++) {
    int g = adam_update(s, &s->o[i]);
    if (g >= 0) hasl[g] = 1;
  }
  /* where the step's passes and its layers' forwards begin (dlb_step_marks, as
  ** dlb_opcosts_from_analysis marks an analysis's ops): an op does work when its FLOPs or
  ** bytes are not the zero polynomial (before the classes take the polynomials) */
  if (ok) {
    int *ph = dlb_malloc((no + 1) * sizeof *ph), *ly = dlb_malloc((no + 1) * sizeof *ly);
    char *costed = dlb_malloc(no + 1);
    unsigned char *scr = dlb_malloc(2 * s->nlayers + 1);
    G->mk = dlb_malloc(no + 1);
    ok = ph && ly && costed && scr && G->mk;
    if (ok) {
      for (size_t i = 0; i < no; i++) {
        ph[i] = s->o[i].phase, ly[i] = s->o[i].layer;
        costed[i] = F[i].n > 0 || B[i].n > 0;
      }
      dlb_step_marks(no, ph, ly, costed, s->nlayers, scr, G->mk);
    } else {
      dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    }
    dlb_free(ph); dlb_free(ly); dlb_free(costed); dlb_free(scr);
  }
  /* classes, and the op order as class indices */
  if (ok) {
    G->seq = dlb_malloc((no + 1) * sizeof *G->seq);
    G->nseq = 0;
    if (!G->seq) ok = 0, dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  }
  for (size_t i = 0; ok && i < no; i++) {
    swclass k;
    memset(&k, 0, sizeof k);
    k.f = dlb_swpoly_intern(p, &F[i]);
    k.b = dlb_swpoly_intern(p, &B[i]);
    k.attn = (kernel[i] == DLB_KERNEL_ATTENTION || (s->o[i].type == OP_KERNEL && s->o[i].attr[0]))
             ? DLB_KERNEL_ATTENTION : kernel[i] == DLB_KERNEL_HEAD ? DLB_KERNEL_HEAD : 0;
    k.xops = (int32_t)more[2 * i], k.xkern = (int32_t)more[2 * i + 1];
    for (int j = 0; j < 4; j++) k.g[j] = isg[i] ? dlb_swpoly_intern(p, &GM[4 * i + j]) : -1;
    k.mult = -1;
    ok = k.f >= 0 && k.b >= 0 && (!isg[i] || (k.g[0] >= 0 && k.g[1] >= 0 && k.g[2] >= 0 && k.g[3] >= 0));
    const op *q = &s->o[i];
    if (ok && adam_update(s, q) >= 0) {
      swpoly t = {NULL, 0};
      const swpoly *ne = numel(&c, op_in(s, q)[0]);
      ok = ne != NULL && dlb_swpoly_add(&t, ne, 1);
      int32_t id = ok ? dlb_swpoly_intern(p, &t) : -1;
      dlb_free(t.t);
      ok = id >= 0 && addtensor(G, id);
    }
    /* the update phase's (DLB_UPD_*, as dlb_opcosts_from_analysis marks an analysis's ops):
    ** a launch model's op in a layer with Adam / AdamW tensors, else one after the backward */
    int ug = q->phase == DLB_PHASE_UPDATE ? op_update_group(s, q) : -1;
    k.up = q->phase != DLB_PHASE_UPDATE ? 0
         : ug >= 0 && (size_t)ug < (s->nlayers ? s->nlayers : 1) && hasl[ug] ? DLB_UPD_LAUNCH
         : DLB_UPD_OPS;
    char on[256];
    if (ok) ok = addclass(G, &k, dlb_oname(s, (int)i, on, sizeof on));
    if (!ok) dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  }
  if (ok) {
    G->tot[DLB_SWT_NOPS] = dlb_swpoly_const(p, (double)no);
    for (int k = 0; ok && k < DLB_SWT_COUNT; k++) {
      if (k == DLB_SWT_NOPS) continue;
      G->tot[k] = dlb_swpoly_intern(p, &tot[k]);
      ok = G->tot[k] >= 0;
    }
    if (!ok) dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  }
  for (int k = 0; k < DLB_SWT_COUNT; k++) dlb_free(tot[k].t);
  dlb_free(rc.t);
  for (size_t d = 0; c.dim && d < s->dims.n; d++) dlb_free(c.dim[d].t);
  for (size_t t = 0; c.numel && t < nt; t++) dlb_free(c.numel[t].t);
  for (size_t i = 0; F && i < no; i++) dlb_free(F[i].t);
  for (size_t i = 0; B && i < no; i++) dlb_free(B[i].t);
  for (size_t t = 0; S && t < nt; t++) dlb_free(S[t].t);
  for (size_t i = 0; GM && i < 4 * no; i++) dlb_free(GM[i].t);
  dlb_free(c.dim); dlb_free(c.numel); dlb_free(c.have); dlb_free(hasl);
  dlb_free(F); dlb_free(B); dlb_free(S); dlb_free(GM); dlb_free(isg); dlb_free(kernel); dlb_free(more);
  return ok ? DLB_OK : (dlb_last_status() ? dlb_last_status() : DLB_ENOMEM);
}

int dlb_sweep_prog_add(dlb_sweep_prog *p, dlb_graph *g, const dlb_train_opts *o, double layers) {
  if (!p || !g || !o) return dlb_fail(DLB_EINVAL, "compiled sweep: program, graph and options are required");
  if (p->finished) return dlb_fail(DLB_EINVAL, "compiled sweep: the program is finished");
  int need = p->layered ? SW_MAXG : 1;
  if (p->ng >= need)
    return dlb_fail(DLB_EINVAL, "compiled sweep: a%s program takes %d graph%s", p->layered ?
                    " layered" : "n unlayered", need, need > 1 ? "s" : "");
  if (p->layered) {
    if (!(isfinite(layers) && layers >= 1 && layers == floor(layers)))
      return dlb_fail(DLB_EINVAL, "compiled sweep: layers must be a positive integer, got %g", layers);
    for (int k = 0; k < p->ng; k++)
      if (p->g[k].layers == layers)
        return dlb_fail(DLB_EINVAL, "compiled sweep: layers = %g given twice", layers);
  }
  dlb_graph *s = dlb_graph_step(g, o);
  if (!s) return dlb_last_status();
  swgraph *G = &p->g[p->ng];
  memset(G, 0, sizeof *G);
  G->layers = layers;
  int rc = compile_step(p, G, s, o);
  dlb_graph_release(s);
  if (rc != DLB_OK) {
    dlb_sweep_free_live(G);
    free_cnames(G);
    dlb_free(G->c); dlb_free(G->count); dlb_free(G->seq); dlb_free(G->mk);
    dlb_free(G->tn); dlb_free(G->tcount);
    memset(G, 0, sizeof *G);
    return dlb_fail_context("graph '%s': ", dlb_graph_name(g));
  }
  p->ng++;
  return DLB_OK;
}

int dlb_sweep_prog_logits(dlb_sweep_prog *p, const dlb_poly *n) {
  if (!p || !n) return dlb_fail(DLB_EINVAL, "compiled sweep: program and logits are required");
  if (p->finished) return dlb_fail(DLB_EINVAL, "compiled sweep: the program is finished");
  if (p->ng == 0) return dlb_fail(DLB_EINVAL, "compiled sweep: logits before any graph was added");
  int map[DLB_POLY_MAXVARS];
  for (int v = 0; v < n->nvars; v++) {
    map[v] = -1;
    for (int j = 0; j < p->nv - p->layered; j++)
      if (strcmp(n->names[v], p->vars[j]) == 0) map[v] = j;
    if (map[v] < 0)
      return dlb_fail(DLB_EUNBOUND, "compiled sweep: the logits use '%s', which is not one of "
                      "the sweep's symbols", n->names[v]);
  }
  swpoly a = {dlb_malloc(((size_t)n->nterms + 1) * sizeof(pterm)), (size_t)n->nterms};
  if (!a.t) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (int i = 0; i < n->nterms; i++)
    a.t[i].key = dlb_pkey_remap(n->t[i].key, n->nvars, map), a.t[i].c = n->t[i].c;
  a.n = dlb_pterms_normalize(a.t, a.n);
  int32_t id = dlb_swpoly_intern(p, &a);
  dlb_free(a.t);
  if (id < 0) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  p->g[p->ng - 1].tot[DLB_SWT_LOGITS] = id;
  return DLB_OK;
}
