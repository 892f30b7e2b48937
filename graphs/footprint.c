/*
** footprint.c — the minimal memory footprint of a step: peak bytes of live tensors over
** an op order, minimised over the orders we try.
**
** Liveness: a tensor's storage (a reshape shares its input's) lives from its producer
** until its last consumer; sources (inputs, labels, the loss seed) from the start;
** weights and optimizer state throughout. While an op runs its outputs are allocated
** before its inputs are released (peak = live + outputs).
**
** Orders: (1) construction order; (2) a memory-aware list scheduler: among the ready ops
** pick the one that frees the most bytes net of what it allocates (ties: construction
** order). Scores change only when a storage's remaining uses drop to 1 or 2, so ready
** consumers are re-scored lazily through a binary heap: O((ops + uses) log ops).
** (3) fp_exact: dynamic programming over subsets of executed ops, exact for <= 20 ops:
** O(2^n * (n + tensors)); the tests use it to check the heuristic.
*/
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_internal.h"
#include "graph_impl.h"

enum { CAT_WEIGHTS, CAT_GRADIENTS, CAT_OPTIMIZER, CAT_ACTIVATIONS, CAT_WORKSPACE };

int tensor_category(const dlb_graph *g, int t) {
  const tensor *x = &g->t[t];
  switch (x->role) {
  case DLB_ROLE_WEIGHT: return CAT_WEIGHTS;
  case DLB_ROLE_OPTSTATE: return CAT_OPTIMIZER;
  case DLB_ROLE_WORKSPACE: return CAT_WORKSPACE;
  case DLB_ROLE_GRADIENT:
    return x->grad_of >= 0 && g->t[x->grad_of].role == DLB_ROLE_WEIGHT ? CAT_GRADIENTS
                                                                       : CAT_ACTIVATIONS;
  default: return CAT_ACTIVATIONS;
  }
}

static int persistent(const dlb_graph *g, int t) {
  int r = g->t[t].role;
  return r == DLB_ROLE_WEIGHT || r == DLB_ROLE_OPTSTATE;
}

/* Uses of each storage (base) by op inputs. */
static int32_t *count_uses(const dlb_graph *g) {
  int32_t *uses = calloc(g->nt ? g->nt : 1, sizeof *uses);
  if (!uses) return NULL;
  for (size_t i = 0; i < g->no; i++)
    for (int j = 0; j < g->o[i].nin; j++) uses[g->t[op_in(g, &g->o[i])[j]].base]++;
  return uses;
}

/* Is storage t allocated at the start (a used source or persistent)? */
static int at_start(const dlb_graph *g, int t, const int32_t *uses) {
  if (g->t[t].base != t) return 0;
  if (persistent(g, t)) return 1;
  return g->t[t].producer == -1 && uses[t] > 0;
}

/* Flat per-tensor facts shared by the simulation and the scheduler. */
typedef struct fpctx {
  const dlb_graph *g;
  const double *size;
  int32_t *base, *uses;
  uint8_t *cat;          /* category, | 8 when persistent, | 16 when it owns storage */
  double start, startcat[5];
} fpctx;

enum { PERSIST = 8, OWNER = 16 };

static int prepare(fpctx *c, const dlb_graph *g, const double *size) {
  size_t nt = g->nt ? g->nt : 1;
  memset(c, 0, sizeof *c);
  c->g = g;
  c->size = size;
  c->base = malloc(nt * sizeof *c->base);
  c->cat = malloc(nt);
  c->uses = count_uses(g);
  if (!c->base || !c->cat || !c->uses) return DLB_ENOMEM;
  for (size_t t = 0; t < g->nt; t++) {
    c->base[t] = g->t[t].base;
    c->cat[t] = (uint8_t)(tensor_category(g, (int)t) | (persistent(g, (int)t) ? PERSIST : 0) |
                          (g->t[t].base == (int32_t)t ? OWNER : 0));
    if (at_start(g, (int)t, c->uses)) {
      c->start += size[t];
      c->startcat[c->cat[t] & 7] += size[t];
    }
  }
  return DLB_OK;
}

static void release(fpctx *c) {
  free(c->base); free(c->cat); free(c->uses);
}

static int simulate(const fpctx *c, const int *order, fpresult *r) {
  const dlb_graph *g = c->g;
  const double *size = c->size;
  int32_t *rem = malloc((g->nt ? g->nt : 1) * sizeof *rem);
  if (!rem) return DLB_ENOMEM;
  memcpy(rem, c->uses, g->nt * sizeof *rem);
  double live = c->start, cat[5];
  memcpy(cat, c->startcat, sizeof cat);
  r->peak = live;
  memcpy(r->cat, cat, sizeof cat);
  const int32_t *args = g->args;
  for (size_t k = 0; k < g->no; k++) {
    const op *p = &g->o[order[k]];
    const int32_t *in = args + p->in, *out = args + p->out;
    for (int j = 0; j < p->nout; j++) {
      int t = out[j];
      if (c->cat[t] & OWNER) live += size[t], cat[c->cat[t] & 7] += size[t];
    }
    if (live > r->peak) {
      r->peak = live;
      memcpy(r->cat, cat, sizeof cat);
    }
    for (int j = 0; j < p->nin; j++) {
      int b = c->base[in[j]];
      if (--rem[b] == 0 && !(c->cat[b] & PERSIST)) live -= size[b], cat[c->cat[b] & 7] -= size[b];
    }
    for (int j = 0; j < p->nout; j++) {
      int t = out[j];
      if ((c->cat[t] & (OWNER | PERSIST)) == OWNER && rem[t] == 0)
        live -= size[t], cat[c->cat[t] & 7] -= size[t];
    }
  }
  free(rem);
  return DLB_OK;
}

/* -- the list scheduler -- */

typedef struct hent { double score; int32_t op, stamp; } hent;

typedef struct heap { hent *a; size_t n, cap; } heap;

static int better(const hent *x, const hent *y) {
  return x->score > y->score || (x->score == y->score && x->op < y->op);
}

static int hpush(heap *h, hent e) {
  if (h->n == h->cap) {
    size_t c = h->cap ? 2 * h->cap : 256;
    hent *a = realloc(h->a, c * sizeof *a);
    if (!a) return 0;
    h->a = a, h->cap = c;
  }
  size_t i = h->n++;
  while (i > 0 && better(&e, &h->a[(i - 1) / 2])) h->a[i] = h->a[(i - 1) / 2], i = (i - 1) / 2;
  h->a[i] = e;
  return 1;
}

static hent hpop(heap *h) {
  hent top = h->a[0], e = h->a[--h->n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && better(&h->a[c + 1], &h->a[c])) c++;
    if (!better(&h->a[c], &e)) break;
    h->a[i] = h->a[c], i = c;
  }
  if (h->n) h->a[i] = e;
  return top;
}

typedef struct sched {
  const fpctx *c;
  int32_t *rem, *deps, *stamp;
  int32_t *coff, *cons;  /* CSR: consumer ops per storage (base) */
  int32_t *toff, *tcons; /* CSR: consumer ops per tensor (readiness) */
  uint8_t *done;
  heap h;
} sched;

/* Bytes op o frees minus the bytes it allocates and keeps, if it ran now. */
static double score(const sched *s, int o) {
  const fpctx *c = s->c;
  const dlb_graph *g = c->g;
  const op *p = &g->o[o];
  const int32_t *in = g->args + p->in, *out = g->args + p->out;
  double sc = 0;
  for (int j = 0; j < p->nout; j++) {
    int t = out[j];
    if ((c->cat[t] & OWNER) && s->rem[t] > 0) sc -= c->size[t];
  }
  for (int j = 0; j < p->nin; j++) {
    int b = c->base[in[j]], dup = 0, uses = 0;
    if (c->cat[b] & PERSIST) continue;
    for (int k = 0; k < j && !dup; k++) dup = c->base[in[k]] == b;
    if (dup) continue;
    for (int k = j; k < p->nin; k++) uses += c->base[in[k]] == b;
    if (s->rem[b] == uses) sc += c->size[b];
  }
  return sc;
}

static int push(sched *s, int o) {
  hent e = {score(s, o), o, ++s->stamp[o]};
  return hpush(&s->h, e);
}

static int schedule(const fpctx *c, int *order) {
  const dlb_graph *g = c->g;
  sched s = {c, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {NULL, 0, 0}};
  size_t nt = g->nt ? g->nt : 1, no = g->no ? g->no : 1;
  s.rem = malloc(nt * sizeof *s.rem);
  s.deps = calloc(no, sizeof *s.deps);
  s.stamp = calloc(no, sizeof *s.stamp);
  s.coff = calloc(nt + 1, sizeof *s.coff);
  s.toff = calloc(nt + 1, sizeof *s.toff);
  s.done = calloc(no, 1);
  int rc = DLB_OK;
  int32_t *fill = NULL, *fill2 = NULL;
  if (!s.rem || !s.deps || !s.stamp || !s.coff || !s.toff || !s.done) { rc = DLB_ENOMEM; goto out; }
  memcpy(s.rem, c->uses, g->nt * sizeof *s.rem);
  size_t nuse = 0;
  for (size_t i = 0; i < g->no; i++) {
    const op *p = &g->o[i];
    for (int j = 0; j < p->nin; j++) {
      int t = g->args[p->in + j];
      s.coff[c->base[t] + 1]++;
      s.toff[t + 1]++;
      nuse++;
      if (g->t[t].producer >= 0) s.deps[i]++;
    }
  }
  for (size_t t = 0; t < g->nt; t++) s.coff[t + 1] += s.coff[t], s.toff[t + 1] += s.toff[t];
  s.cons = malloc((nuse ? nuse : 1) * sizeof *s.cons);
  s.tcons = malloc((nuse ? nuse : 1) * sizeof *s.tcons);
  fill = calloc(nt, sizeof *fill);
  fill2 = calloc(nt, sizeof *fill2);
  if (!s.cons || !s.tcons || !fill || !fill2) { rc = DLB_ENOMEM; goto out; }
  for (size_t i = 0; i < g->no; i++) {
    const op *p = &g->o[i];
    for (int j = 0; j < p->nin; j++) {
      int t = g->args[p->in + j], b = c->base[t];
      s.cons[s.coff[b] + fill[b]++] = (int32_t)i;
      s.tcons[s.toff[t] + fill2[t]++] = (int32_t)i;
    }
  }
  for (size_t i = 0; i < g->no; i++)
    if (s.deps[i] == 0 && !push(&s, (int)i)) { rc = DLB_ENOMEM; goto out; }
  size_t k = 0;
  while (s.h.n) {
    hent e = hpop(&s.h);
    if (s.done[e.op] || e.stamp != s.stamp[e.op]) continue;
    int o = e.op;
    s.done[o] = 1;
    order[k++] = o;
    const op *p = &g->o[o];
    for (int j = 0; j < p->nin; j++) {
      int b = c->base[g->args[p->in + j]];
      if (--s.rem[b] <= 2 && s.rem[b] > 0 && !(c->cat[b] & PERSIST))
        for (int q = s.coff[b]; q < s.coff[b + 1]; q++) {
          int r = s.cons[q];
          if (!s.done[r] && s.deps[r] == 0 && !push(&s, r)) { rc = DLB_ENOMEM; goto out; }
        }
    }
    for (int j = 0; j < p->nout; j++) {
      int t = g->args[p->out + j];
      for (int q = s.toff[t]; q < s.toff[t + 1]; q++) {
        int r = s.tcons[q];
        if (--s.deps[r] == 0 && !push(&s, r)) { rc = DLB_ENOMEM; goto out; }
      }
    }
  }
  if (k != g->no) rc = dlb_fail(DLB_EINVAL, "footprint: the graph has a cycle or a dangling input");
out:
  if (rc == DLB_ENOMEM) rc = dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  free(s.rem); free(s.deps); free(s.stamp); free(s.coff); free(s.toff); free(s.cons);
  free(s.tcons); free(s.done); free(s.h.a); free(fill); free(fill2);
  return rc;
}

int fp_analyse(const dlb_graph *g, const double *size, int *order, fpresult *r1, fpresult *r2) {
  fpctx c;
  int rc = prepare(&c, g, size);
  int *o2 = malloc((g->no + 1) * sizeof *o2);
  if (rc || !o2) {
    release(&c);
    free(o2);
    return dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  }
  for (size_t i = 0; i < g->no; i++) order[i] = (int)i;
  rc = simulate(&c, order, r1);
  if (!rc) rc = schedule(&c, o2);
  if (!rc) rc = simulate(&c, o2, r2);
  if (!rc && r2->peak < r1->peak) memcpy(order, o2, g->no * sizeof *o2);
  release(&c);
  free(o2);
  if (rc == DLB_ENOMEM) return dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  return rc;
}

/* -- exact search -- */

int fp_exact(const dlb_graph *g, const double *size, double *out) {
  int n = (int)g->no;
  if (n > 20) return dlb_fail(DLB_EINVAL, "footprint: exhaustive search is limited to 20 ops, "
                              "this step has %d", n);
  int32_t *uses = count_uses(g);
  size_t ns = (size_t)1 << n;
  double *best = malloc(ns * sizeof *best), *mem = malloc(ns * sizeof *mem);
  uint32_t *cmask = calloc(g->nt ? g->nt : 1, sizeof *cmask), *deps = calloc((size_t)n + 1, sizeof *deps);
  double *alloc = calloc((size_t)n + 1, sizeof *alloc);
  if (!uses || !best || !mem || !cmask || !deps || !alloc) {
    free(uses); free(best); free(mem); free(cmask); free(deps); free(alloc);
    return dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  }
  double start = 0;
  for (int i = 0; i < n; i++) {
    const op *p = &g->o[i];
    for (int j = 0; j < p->nin; j++) {
      int t = op_in(g, p)[j];
      cmask[g->t[t].base] |= 1u << i;
      if (g->t[t].producer >= 0) deps[i] |= 1u << g->t[t].producer;
    }
    for (int j = 0; j < p->nout; j++) {
      int t = op_out(g, p)[j];
      if (g->t[t].base == t) alloc[i] += size[t];
    }
  }
  for (size_t t = 0; t < g->nt; t++)
    if (at_start(g, (int)t, uses)) start += size[t];
  /* mem[S]: live bytes after the ops in S ran (independent of their order) */
  for (size_t S = 0; S < ns; S++) {
    double m = start;
    for (int i = 0; i < n; i++) if (S >> i & 1) m += alloc[i];
    for (size_t t = 0; t < g->nt; t++) {
      if (g->t[t].base != (int)t || persistent(g, (int)t)) continue;
      int pr = g->t[t].producer;
      int made = pr == -1 ? uses[t] > 0 : pr >= 0 && (S >> pr & 1);
      if (made && (cmask[t] & S) == cmask[t]) m -= size[t];
    }
    mem[S] = m;
    best[S] = 1e300;
  }
  best[0] = start;
  for (size_t S = 0; S < ns; S++) {
    if (best[S] >= 1e300) continue;
    for (int i = 0; i < n; i++) {
      if ((S >> i & 1) || (deps[i] & S) != deps[i]) continue;
      size_t T = S | ((size_t)1 << i);
      double pk = mem[S] + alloc[i];
      if (pk < best[S]) pk = best[S];
      if (pk < best[T]) best[T] = pk;
    }
  }
  *out = best[ns - 1];
  free(uses); free(best); free(mem); free(cmask); free(deps); free(alloc);
  return DLB_OK;
}
