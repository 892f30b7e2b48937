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
** (3) dlb_fp_exact: dynamic programming over subsets of executed ops, exact for <= 20 ops:
** O(2^n * (n + tensors)); the tests use it to check the heuristic, and the analysis runs it
** on steps of at most 16 ops (where it takes well under a millisecond).
*/
#include <stdlib.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

enum { CAT_WEIGHTS, CAT_GRADIENTS, CAT_OPTIMIZER, CAT_ACTIVATIONS, CAT_WORKSPACE };

int dlb_tensor_category(const dlb_graph *g, int t) {
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

/* Weights and optimizer state live throughout the step. */
static int persistent(const dlb_graph *g, int t) {
  int r = g->t[t].role;
  return r == DLB_ROLE_WEIGHT || r == DLB_ROLE_OPTSTATE;
}

/* Uses of each storage (base) by op inputs. */
static int32_t *count_uses(const dlb_graph *g) {
  int32_t *uses = dlb_calloc(g->nt ? g->nt : 1, sizeof *uses);
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
  int32_t *ndeps;        /* per op: inputs produced by ops */
  int32_t *coff, *cons;  /* CSR: consumer ops per storage (base) */
  int32_t *toff, *tcons; /* CSR: consumer ops per tensor (readiness) */
  uint8_t *cat;          /* category, | 8 when persistent, | 16 when it owns storage */
  double start, startcat[5];
} fpctx;

enum { PERSIST = 8, OWNER = 16, PRODUCED = 32, GREEDY_MAX = 20000 };

/* Flat per-tensor facts and the consumer lists (CSR) of every storage and tensor, in few
** streaming passes (random accesses go to the small flat arrays, not the structs). */
static int prepare(fpctx *c, const dlb_graph *g, const double *size) {
  size_t nt = g->nt ? g->nt : 1, no = g->no ? g->no : 1;
  memset(c, 0, sizeof *c);
  c->g = g;
  c->size = size;
  c->base = dlb_malloc(nt * sizeof *c->base);
  c->cat = dlb_malloc(nt);
  c->uses = dlb_malloc(nt * sizeof *c->uses);
  c->ndeps = dlb_calloc(no, sizeof *c->ndeps);
  c->coff = dlb_calloc(nt + 1, sizeof *c->coff);
  c->toff = dlb_calloc(nt + 1, sizeof *c->toff);
  if (!c->base || !c->cat || !c->uses || !c->ndeps || !c->coff || !c->toff) return DLB_ENOMEM;
  static const uint8_t rolecat[8] = { /* by role; gradients decided below */
    [DLB_ROLE_INPUT] = CAT_ACTIVATIONS, [DLB_ROLE_LABEL] = CAT_ACTIVATIONS,
    [DLB_ROLE_WEIGHT] = CAT_WEIGHTS | PERSIST, [DLB_ROLE_ACTIVATION] = CAT_ACTIVATIONS,
    [DLB_ROLE_GRADIENT] = CAT_ACTIVATIONS, [DLB_ROLE_OPTSTATE] = CAT_OPTIMIZER | PERSIST,
    [DLB_ROLE_WORKSPACE] = CAT_WORKSPACE, [7] = CAT_ACTIVATIONS};
  const tensor *tt = g->t;
  for (size_t t = 0; t < g->nt; t++) { /* as dlb_tensor_category and persistent, inlined */
    const tensor *x = &tt[t];
    uint8_t k = rolecat[x->role & 7];
    if (x->role == DLB_ROLE_GRADIENT && x->grad_of >= 0 && tt[x->grad_of].role == DLB_ROLE_WEIGHT)
      k = CAT_GRADIENTS;
    c->base[t] = x->base;
    c->cat[t] = (uint8_t)(k | (x->base == (int32_t)t ? OWNER : 0) | (x->producer >= 0 ? PRODUCED : 0));
  }
  size_t nuse = 0;
  const int32_t *args = g->args;
  for (size_t i = 0; i < g->no; i++) {
    const op *p = &g->o[i];
    const int32_t *in = args + p->in;
    int deps = 0;
    for (int j = 0; j < p->nin; j++) {
      int t = in[j];
      c->coff[c->base[t] + 1]++;
      c->toff[t + 1]++;
      deps += (c->cat[t] & PRODUCED) != 0;
    }
    c->ndeps[i] = deps;
    nuse += p->nin;
  }
  for (size_t t = 0; t < g->nt; t++) {
    c->uses[t] = c->coff[t + 1];
    int source = !(c->cat[t] & PRODUCED); /* producer -1 (no second pass over the tensors) */
    if ((c->cat[t] & OWNER) && ((c->cat[t] & PERSIST) || (source && c->uses[t] > 0))) {
      c->start += size[t];
      c->startcat[c->cat[t] & 7] += size[t];
    }
  }
  for (size_t t = 0; t < g->nt; t++) c->coff[t + 1] += c->coff[t], c->toff[t + 1] += c->toff[t];
  c->cons = dlb_malloc((nuse ? nuse : 1) * sizeof *c->cons);
  c->tcons = dlb_malloc((nuse ? nuse : 1) * sizeof *c->tcons);
  if (!c->cons || !c->tcons) return DLB_ENOMEM;
  /* fill with coff[t] / toff[t] as cursors (each ends at the next list's start), then
  ** shift the offsets back by one list */
  for (size_t i = 0; i < g->no; i++) {
    const op *p = &g->o[i];
    const int32_t *in = args + p->in;
    for (int j = 0; j < p->nin; j++) {
      int t = in[j];
      c->cons[c->coff[c->base[t]]++] = (int32_t)i;
      c->tcons[c->toff[t]++] = (int32_t)i;
    }
  }
  for (size_t t = g->nt; t > 0; t--) c->coff[t] = c->coff[t - 1], c->toff[t] = c->toff[t - 1];
  c->coff[0] = c->toff[0] = 0;
  return DLB_OK;
}

/* Free what prepare allocated. */
static void release(fpctx *c) {
  dlb_free(c->base); dlb_free(c->cat); dlb_free(c->uses); dlb_free(c->ndeps);
  dlb_free(c->coff); dlb_free(c->toff); dlb_free(c->cons); dlb_free(c->tcons);
}

/* Live bytes, in all and by category, while an op order runs; the peak goes to an fpresult. */
typedef struct livemem { double live, cat[5]; } livemem;

/* Start from what lives before the first op (weights, inputs, optimizer state). */
static void live_start(const fpctx *c, livemem *m, fpresult *r) {
  m->live = c->start;
  memcpy(m->cat, c->startcat, sizeof m->cat);
  r->peak = m->live;
  memcpy(r->cat, m->cat, sizeof m->cat);
  r->op = -1;
}

static inline void live_free(const fpctx *c, livemem *m, int t) {
  m->live -= c->size[t];
  m->cat[c->cat[t] & 7] -= c->size[t];
}

/* Op p allocates the outputs it owns; the peak is taken with them live. */
static inline void live_outputs(const fpctx *c, livemem *m, const op *p, const int32_t *out,
                                fpresult *r) {
  for (int j = 0; j < p->nout; j++) {
    int t = out[j];
    if (c->cat[t] & OWNER) m->live += c->size[t], m->cat[c->cat[t] & 7] += c->size[t];
  }
  if (m->live > r->peak) {
    r->peak = m->live;
    memcpy(r->cat, m->cat, sizeof m->cat);
    r->op = (int)(p - c->g->o);
  }
}

/* Peak live bytes (and the breakdown at the peak) of one op order; where mark is not NULL,
** at[i] also gets the live bytes and breakdown while the op order[k] = i with mark[i] set
** runs (its outputs allocated, its inputs not yet freed). */
static int simulate_at(const fpctx *c, const int *order, fpresult *r, const uint8_t *mark,
                       fpresult *at) {
  const dlb_graph *g = c->g;
  int32_t *rem = dlb_malloc((g->nt ? g->nt : 1) * sizeof *rem);
  if (!rem) return DLB_ENOMEM;
  memcpy(rem, c->uses, g->nt * sizeof *rem);
  livemem m;
  live_start(c, &m, r);
  const int32_t *args = g->args;
  for (size_t k = 0; k < g->no; k++) {
    const op *p = &g->o[order[k]];
    const int32_t *in = args + p->in, *out = args + p->out;
    live_outputs(c, &m, p, out, r);
    if (mark && mark[order[k]]) {
      at[order[k]].peak = m.live;
      memcpy(at[order[k]].cat, m.cat, sizeof m.cat);
    }
    for (int j = 0; j < p->nin; j++) {
      int b = c->base[in[j]];
      if (--rem[b] == 0 && !(c->cat[b] & PERSIST)) live_free(c, &m, b);
    }
    for (int j = 0; j < p->nout; j++) {
      int t = out[j];
      if ((c->cat[t] & (OWNER | PERSIST)) == OWNER && rem[t] == 0) live_free(c, &m, t);
    }
  }
  dlb_free(rem);
  return DLB_OK;
}

static int simulate(const fpctx *c, const int *order, fpresult *r) {
  return simulate_at(c, order, r, NULL, NULL);
}

/* -- the list scheduler -- */

/* An indexed binary max-heap of ready ops keyed by score (ties: lower op index first);
** pos[op] is the op's slot or -1, so a re-scored op moves instead of being duplicated. */
typedef struct hent { double score; int32_t op; } hent;

typedef struct heap { hent *a; int32_t *pos; size_t n; } heap;

/* Heap order: higher score first, then lower op index. */
static int better(const hent *x, const hent *y) {
  return x->score > y->score || (x->score == y->score && x->op < y->op);
}

/* Place entry e at slot i and remember the slot. */
static void hset(heap *h, size_t i, hent e) {
  h->a[i] = e;
  h->pos[e.op] = (int32_t)i;
}

/* Move e up from slot i to its place. */
static void siftup(heap *h, size_t i, hent e) {
  while (i > 0 && better(&e, &h->a[(i - 1) / 2])) hset(h, i, h->a[(i - 1) / 2]), i = (i - 1) / 2;
  hset(h, i, e);
}

/* Move e down from slot i to its place. */
static void siftdown(heap *h, size_t i, hent e) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && better(&h->a[c + 1], &h->a[c])) c++;
    if (!better(&h->a[c], &e)) break;
    hset(h, i, h->a[c]), i = c;
  }
  hset(h, i, e);
}

/* Insert op with score, or move it if it is already in the heap. */
static void hput(heap *h, int32_t op, double score) {
  hent e = {score, op};
  int32_t p = h->pos[op];
  if (p < 0) {
    siftup(h, h->n++, e);
  } else if (h->a[p].score == score) {
    return; /* re-scored to the same key: already in place */
  } else if (better(&e, &h->a[p])) {
    siftup(h, (size_t)p, e);
  } else {
    siftdown(h, (size_t)p, e);
  }
}

/* Remove and return the best op. */
static int32_t hpop(heap *h) {
  int32_t top = h->a[0].op;
  h->pos[top] = -1;
  hent e = h->a[--h->n];
  if (h->n) siftdown(h, 0, e);
  return top;
}

typedef struct sched {
  const fpctx *c;
  int32_t *rem, *deps;
  int32_t *cnt;     /* per storage, 0 between calls of score: uses by one op's inputs */
  uint8_t *done;
  int hybrid;
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
  if (p->nin == 1) { /* most ops: no storage read twice */
    int b = c->base[in[0]];
    if (!(c->cat[b] & PERSIST) && s->rem[b] == 1) sc += c->size[b];
    return sc;
  }
  if (p->nin > 8) { /* many inputs (a sum of gradients): count the uses per storage in one
                    ** pass, add each storage at its first input as the loop below does */
    for (int j = 0; j < p->nin; j++) {
      int b = c->base[in[j]];
      if (!(c->cat[b] & PERSIST)) s->cnt[b]++;
    }
    for (int j = 0; j < p->nin; j++) {
      int b = c->base[in[j]], uses = s->cnt[b];
      if (uses == 0) continue;
      if (s->rem[b] == uses) sc += c->size[b];
      s->cnt[b] = 0;
    }
    return sc;
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

/* Pure greedy: the most bytes freed net of bytes allocated. Hybrid: ops that free memory
** go first, the most freeing first; otherwise (every ready op grows the live set) follow
** construction order, which keeps a backward pass from deferring ops (such as weight
** gradients) whose inputs then stay alive. */
static void push(sched *s, int o) {
  double sc = score(s, o);
  hput(&s->h, o, s->hybrid && sc < 0 ? 0 : sc);
}

/* One list schedule into order (hybrid or pure greedy, see push), measuring its peak and
** breakdown into r on the way (as simulate does); O((ops + uses) log ready). */
static int schedule(const fpctx *c, int *order, int hybrid, fpresult *r) {
  const dlb_graph *g = c->g;
  sched s = {c, NULL, NULL, NULL, NULL, hybrid, {NULL, NULL, 0}};
  size_t nt = g->nt ? g->nt : 1, no = g->no ? g->no : 1;
  s.rem = dlb_malloc(nt * sizeof *s.rem);
  s.cnt = dlb_calloc(nt, sizeof *s.cnt);
  s.deps = dlb_malloc(no * sizeof *s.deps);
  s.h.a = dlb_malloc(no * sizeof *s.h.a);
  s.h.pos = dlb_malloc(no * sizeof *s.h.pos);
  s.done = dlb_calloc(no, 1);
  int rc = DLB_OK;
  if (!s.rem || !s.cnt || !s.deps || !s.h.a || !s.h.pos || !s.done) { rc = DLB_ENOMEM; goto out; }
  memcpy(s.rem, c->uses, g->nt * sizeof *s.rem);
  memcpy(s.deps, c->ndeps, g->no * sizeof *s.deps);
  for (size_t i = 0; i < g->no; i++) s.h.pos[i] = -1;
  for (size_t i = 0; i < g->no; i++)
    if (s.deps[i] == 0) push(&s, (int)i);
  size_t k = 0;
  livemem m;
  live_start(c, &m, r);
  while (s.h.n) {
    int o = hpop(&s.h);
    s.done[o] = 1;
    order[k++] = o;
    const op *p = &g->o[o];
    const int32_t *in = g->args + p->in, *out = g->args + p->out;
    live_outputs(c, &m, p, out, r);
    for (int j = 0; j < p->nin; j++) {
      int b = c->base[in[j]];
      --s.rem[b];
      if (c->cat[b] & PERSIST) continue;
      if (s.rem[b] == 0) live_free(c, &m, b);
      else if (s.rem[b] <= 2)
        for (int q = c->coff[b]; q < c->coff[b + 1]; q++) {
          int rr = c->cons[q];
          if (!s.done[rr] && s.deps[rr] == 0) push(&s, rr);
        }
    }
    for (int j = 0; j < p->nout; j++) {
      int t = out[j];
      if ((c->cat[t] & (OWNER | PERSIST)) == OWNER && s.rem[t] == 0) live_free(c, &m, t);
      for (int q = c->toff[t]; q < c->toff[t + 1]; q++) {
        int rr = c->tcons[q];
        if (--s.deps[rr] == 0) push(&s, rr);
      }
    }
  }
  if (k != g->no) rc = dlb_fail(DLB_EINVAL, "footprint: the graph has a cycle or a dangling input");
out:
  if (rc == DLB_ENOMEM) rc = dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  dlb_free(s.rem); dlb_free(s.cnt); dlb_free(s.deps); dlb_free(s.done); dlb_free(s.h.a); dlb_free(s.h.pos);
  return rc;
}

int dlb_fp_measure(const dlb_graph *g, const double *size, const int *order, fpresult *r) {
  fpctx c;
  int rc = prepare(&c, g, size);
  if (!rc) rc = simulate(&c, order, r);
  release(&c);
  if (rc == DLB_ENOMEM) return dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  return rc;
}

int dlb_fp_measure_at(const dlb_graph *g, const double *size, const int *order,
                      const uint8_t *mark, fpresult *r, fpresult *at) {
  fpctx c;
  int rc = prepare(&c, g, size);
  if (!rc) rc = simulate_at(&c, order, r, mark, at);
  release(&c);
  if (rc == DLB_ENOMEM) return dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  return rc;
}

int dlb_fp_analyse(const dlb_graph *g, const double *size, int *order, fpresult *r1, fpresult *r2) {
  fpctx c;
  int rc = prepare(&c, g, size);
  int *o2 = dlb_malloc((g->no + 1) * sizeof *o2);
  if (rc || !o2) {
    release(&c);
    dlb_free(o2);
    return dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  }
  fpresult r3;
  for (size_t i = 0; i < g->no; i++) order[i] = (int)i;
  rc = simulate(&c, order, r1);
  /* the hybrid schedule, then (up to GREEDY_MAX ops) the pure greedy one; r2 is the
  ** better of the two. On large training steps the greedy one defers weight-gradient ops
  ** (a heap of one per layer) and is never the better one, so it is skipped there. */
  if (!rc) rc = schedule(&c, o2, 1, r2);
  if (!rc && r2->peak < r1->peak) memcpy(order, o2, g->no * sizeof *o2);
  if (!rc && g->no <= GREEDY_MAX) {
    rc = schedule(&c, o2, 0, &r3);
    if (!rc && r3.peak < r2->peak) {
      *r2 = r3;
      if (r3.peak < r1->peak) memcpy(order, o2, g->no * sizeof *o2);
    }
  }
  release(&c);
  dlb_free(o2);
  if (rc == DLB_ENOMEM) return dlb_fail(DLB_ENOMEM, "footprint: out of memory");
  return rc;
}

/* -- exact search -- */

int dlb_fp_exact(const dlb_graph *g, const double *size, double *out, int *order) {
  int n = (int)g->no;
  if (n > 20) return dlb_fail(DLB_EINVAL, "footprint: exhaustive search is limited to 20 ops, "
                              "this step has %d", n);
  int32_t *uses = count_uses(g);
  size_t ns = (size_t)1 << n;
  double *best = dlb_malloc(ns * sizeof *best), *mem = dlb_malloc(ns * sizeof *mem);
  uint32_t *cmask = dlb_calloc(g->nt ? g->nt : 1, sizeof *cmask), *deps = dlb_calloc((size_t)n + 1, sizeof *deps);
  double *alloc = dlb_calloc((size_t)n + 1, sizeof *alloc);
  uint8_t *last = order ? dlb_malloc(ns) : NULL; /* the op run last to reach each set */
  if (!uses || !best || !mem || !cmask || !deps || !alloc || (order && !last)) {
    dlb_free(uses); dlb_free(best); dlb_free(mem); dlb_free(cmask); dlb_free(deps); dlb_free(alloc); dlb_free(last);
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
      if (pk < best[T]) {
        best[T] = pk;
        if (last) last[T] = (uint8_t)i;
      }
    }
  }
  *out = best[ns - 1];
  if (order) { /* walk back from the full set */
    size_t S = ns - 1;
    for (int k = n; k-- > 0;) {
      order[k] = last[S];
      S &= ~((size_t)1 << last[S]);
    }
  }
  dlb_free(uses); dlb_free(best); dlb_free(mem); dlb_free(cmask); dlb_free(deps); dlb_free(alloc); dlb_free(last);
  return DLB_OK;
}
