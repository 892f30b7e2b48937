/*
** sweep_finish.c — a compiled sweep program finished (split out of sweep_compile.c, which
** compiles each structure's step): a layered program's counts and totals made affine in
** "layers" from its three builds (fit_line, checked exact), the classes and tensors pooled
** across structures, the update phase's op order, the optimizer's launch model attached
** (dlb_sweep_prog_optim), dlb_sweep_prog_finish.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "graph_impl.h"
#include "sweep_impl.h"

/* The pooled poly a + L * b over the layers symbol (index lv) as a new pool id. */
static int32_t affine(dlb_sweep_prog *p, const swpoly *a, const swpoly *b) {
  swpoly r = {NULL, 0};
  uint64_t lk = (uint64_t)1 << (4 * (p->nv - 1));
  if (!dlb_swpoly_add(&r, a, 1)) return -1;
  swpoly bl = {dlb_malloc((b->n + 1) * sizeof(pterm)), b->n};
  if (!bl.t) { dlb_free(r.t); return -1; }
  for (size_t i = 0; i < b->n; i++) bl.t[i].key = b->t[i].key + lk, bl.t[i].c = b->t[i].c;
  int ok = dlb_swpoly_add(&r, &bl, 1);
  dlb_free(bl.t);
  if (!ok) { dlb_free(r.t); return -1; }
  return dlb_swpoly_intern(p, &r);
}

/* Whether x and y agree within 1e-9 of the larger coefficient, term by term. */
int dlb_swpoly_close(const swpoly *x, const swpoly *y) {
  swpoly d = {NULL, 0};
  double big = 0;
  for (size_t i = 0; i < x->n; i++) big = fmax(big, fabs(x->t[i].c));
  for (size_t i = 0; i < y->n; i++) big = fmax(big, fabs(y->t[i].c));
  if (!dlb_swpoly_add(&d, x, 1) || !dlb_swpoly_add(&d, y, -1)) { dlb_free(d.t); return 0; }
  int ok = 1;
  for (size_t i = 0; i < d.n; i++) if (fabs(d.t[i].c) > 1e-9 * big) ok = 0;
  dlb_free(d.t);
  return ok;
}

/* Fit a + L * b through graphs 0 and 1 (ids x0, x1), check graph 2 (x2); -1 on OOM, -2 off the line. */
static int32_t fit_line(dlb_sweep_prog *p, int32_t x0, int32_t x1, int32_t x2) {
  double L0 = p->g[0].layers, L1 = p->g[1].layers, L2 = p->g[2].layers;
  swpoly b = {NULL, 0}, a = {NULL, 0}, pred = {NULL, 0};
  const swpoly *P0 = x0 >= 0 ? &p->poly[x0] : NULL, *P1 = x1 >= 0 ? &p->poly[x1] : NULL;
  const swpoly zero = {NULL, 0};
  if (!P0) P0 = &zero;
  if (!P1) P1 = &zero;
  int ok = dlb_swpoly_add(&b, P1, 1 / (L1 - L0)) && dlb_swpoly_add(&b, P0, -1 / (L1 - L0)) && dlb_swpoly_add(&a, P0, 1) &&
           dlb_swpoly_add(&a, &b, -L0) && dlb_swpoly_add(&pred, &a, 1) && dlb_swpoly_add(&pred, &b, L2);
  int32_t r = -1;
  if (ok) {
    const swpoly *P2 = x2 >= 0 ? &p->poly[x2] : &zero;
    if (!dlb_swpoly_close(&pred, P2)) r = -2;
    else r = affine(p, &a, &b);
  }
  dlb_free(a.t); dlb_free(b.t); dlb_free(pred.t);
  return r;
}

/* A count m[g] per build g (a class's multiplicity, a size's tensors) as a pool id: the
** constant of an unlayered program, else the line through the three builds (fit_line).
** -1: out of memory; -2: not affine in layers. */
static int32_t layer_count(dlb_sweep_prog *p, const double *m) {
  if (!p->layered) return dlb_swpoly_const(p, m[0]);
  int32_t i0 = dlb_swpoly_const(p, m[0]), i1 = dlb_swpoly_const(p, m[1]), i2 = dlb_swpoly_const(p, m[2]);
  return (i0 < 0 || i1 < 0 || i2 < 0) ? -1 : fit_line(p, i0, i1, i2);
}

/* -- the op order: sweep_order.c -- */

/* The error for a class (its first op named `name`) whose counts m over the builds are not
** affine in layers. An op of the largest build whose costs no op of the middle one has is a
** kernel whose FLOPs or bytes change with the layer count: named, with why (issue [18] item
** 5: the zoo's encoder-decoder under the elementwise pass, whose encoder output's gradient
** sums one cross-attention K and V gradient per decoder layer in its last norm backward's
** fused kernel: one op whose cost grows by a constant per layer, while a program's op
** classes have costs fixed across layer counts; its totals are affine, its classes not). */
static int not_affine(const dlb_sweep_prog *p, const double *m, const char *name) {
  const swgraph *G = &p->g[p->ng - 1], *H = &p->g[p->ng - 2];
  const char *grow = NULL;
  for (size_t i = 0; i < G->nc && !grow; i++) {
    size_t j;
    for (j = 0; j < H->nc && memcmp(&H->c[j], &G->c[i], sizeof G->c[i]); j++) {}
    if (j == H->nc && G->cname) grow = G->cname[i];
  }
  if (grow)
    return dlb_fail(DLB_EINVAL, "compiled sweep: an op class (op '%s') occurs %g, %g and %g "
                    "times at layers = %g, %g, %g: not affine in layers: op '%s' at layers = %g "
                    "costs what no op at layers = %g does, its FLOPs or bytes change with the "
                    "layer count (a fused kernel that takes in one op per layer, as the "
                    "elementwise pass summing the gradient of a tensor every layer reads: an "
                    "encoder-decoder's encoder output, read by each decoder layer's "
                    "cross-attention), and a compiled program's op classes have costs fixed "
                    "across layer counts; sweep layers as a structure dim (dlb.sweep.model's "
                    "layers = false: one build per value) or time the configurations with "
                    "dlb.roofline.time", name, m[0], m[1], m[2], p->g[0].layers,
                    p->g[1].layers, p->g[2].layers, grow, G->layers, H->layers);
  return dlb_fail(DLB_EINVAL, "compiled sweep: an op class (op '%s') occurs %g, %g and %g times "
                  "at layers = %g, %g, %g: not affine in layers (layers that differ by position, "
                  "or recompute segments that do, as recompute = \"sqrt\"; sweep layers as a "
                  "structure dim: dlb.sweep.model's layers = false)", name, m[0], m[1], m[2],
                  p->g[0].layers, p->g[1].layers, p->g[2].layers);
}

/* The classes of the program: the union over the graphs (by FLOPs, bytes, shape and kernel),
** multiplicities affine in layers; gmap[k][i] receives graph k's class i's index in cls. */
static int finish_classes(dlb_sweep_prog *p, int32_t **gmap) {
  p->ncls = 0;
  for (int k = 0; k < p->ng; k++)
    for (size_t i = 0; i < p->g[k].nc; i++) {
      swclass c = p->g[k].c[i];
      size_t j;
      for (j = 0; j < p->ncls; j++) {
        swclass d = p->cls[j];
        d.mult = -1;
        if (!memcmp(&d, &c, sizeof c)) break;
      }
      gmap[k][i] = (int32_t)j;
      if (j < p->ncls) continue;
      double m[SW_MAXG] = {0, 0, 0};
      for (int q = 0; q < p->ng; q++)
        for (size_t r = 0; r < p->g[q].nc; r++)
          if (!memcmp(&p->g[q].c[r], &c, sizeof c)) m[q] = p->g[q].count[r];
      int32_t id = layer_count(p, m);
      if (id == -2) return not_affine(p, m, p->g[k].cname ? p->g[k].cname[i] : "?");
      if (id < 0) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
      c.mult = id;
      p->cls[p->ncls++] = c;
    }
  return DLB_OK;
}

/* The step's Adam / AdamW tensors (p->tun, p->tmult): the union of the graphs' element
** counts, each count's tensors affine in layers (fit_line, as a class's multiplicity). */
static int finish_tensors(dlb_sweep_prog *p) {
  size_t cap = 0;
  for (int k = 0; k < p->ng; k++) cap += p->g[k].ntn;
  if (cap == 0) return DLB_OK;
  p->tun = dlb_malloc(cap * sizeof *p->tun);
  p->tmult = dlb_malloc(cap * sizeof *p->tmult);
  if (!p->tun || !p->tmult) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  p->ntun = 0;
  for (int k = 0; k < p->ng; k++)
    for (size_t i = 0; i < p->g[k].ntn; i++) {
      int32_t id = p->g[k].tn[i];
      size_t j;
      for (j = 0; j < p->ntun && p->tun[j] != id; j++) {}
      if (j < p->ntun) continue;
      double m[SW_MAXG] = {0, 0, 0};
      for (int q = 0; q < p->ng; q++)
        for (size_t r = 0; r < p->g[q].ntn; r++)
          if (p->g[q].tn[r] == id) m[q] = p->g[q].tcount[r];
      int32_t mid = layer_count(p, m);
      if (mid == -2)
        return dlb_fail(DLB_EINVAL, "compiled sweep: the optimizer step updates %g, %g and %g "
                        "tensors of one size at layers = %g, %g, %g: not affine in layers (sweep "
                        "layers as a structure dim: dlb.sweep.model's layers = false)", m[0],
                        m[1], m[2], p->g[0].layers, p->g[1].layers, p->g[2].layers);
      if (mid < 0) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
      p->tun[p->ntun] = id;
      p->tmult[p->ntun++] = mid;
    }
  return DLB_OK;
}

/* The update phase's flags (p->upd) and the op order without its classes (p->ordu, p->segnu;
** the segments' offsets stay p->sego, each segment shrunk in place), when a class is of that
** phase. */
static int update_order(dlb_sweep_prog *p) {
  size_t nu = 0;
  for (size_t i = 0; i < p->ncls; i++) nu += p->cls[i].up != 0;
  if (nu == 0) return DLB_OK;
  p->upd = dlb_malloc(p->ncls + 1);
  p->ordu = dlb_malloc((p->nord + 1) * sizeof *p->ordu);
  p->segnu = dlb_malloc((p->nseg + 1) * sizeof *p->segnu);
  p->ordmku = dlb_malloc(p->nord + 1);
  if (!p->upd || !p->ordu || !p->segnu || !p->ordmku)
    return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (size_t i = 0; i < p->ncls; i++) p->upd[i] = (char)p->cls[i].up;
  for (size_t k = 0; k < p->nseg; k++) {
    int32_t n = 0;
    for (int32_t j = 0; j < p->segn[k]; j++) {
      int32_t c = p->ord[p->sego[k] + j];
      if (!p->upd[c]) {
        p->ordmku[p->sego[k] + n] = p->ordmk[p->sego[k] + j];
        p->ordu[p->sego[k] + n++] = c;
      }
    }
    p->segnu[k] = n;
  }
  return DLB_OK;
}

int dlb_sweep_prog_optim(dlb_sweep_prog *p, int kind, double kernels, double host_ops, int sync) {
  if (!p) return dlb_fail(DLB_EINVAL, "compiled sweep: program is NULL");
  dlb_optim_count oc;   /* the rule's own checks, once (as dlb_opcosts_set_optim) */
  int st = dlb_optim_launches(kind, kernels, host_ops, sync, 1, 1, &oc);
  if (st != DLB_OK) return dlb_fail(st, "compiled sweep: %s", dlb_last_error());
  p->okind = kind, p->okernels = kernels, p->oops = host_ops, p->osync = sync != 0;
  return DLB_OK;
}

int dlb_sweep_prog_phase_sync(dlb_sweep_prog *p, int on) {
  if (!p) return dlb_fail(DLB_EINVAL, "compiled sweep: program is NULL");
  p->psync = on != 0;
  return DLB_OK;
}

int dlb_sweep_prog_finish(dlb_sweep_prog *p) {
  if (!p) return dlb_fail(DLB_EINVAL, "compiled sweep: program is NULL");
  if (p->finished) return DLB_OK;
  int need = p->layered ? SW_MAXG : 1;
  if (p->ng != need)
    return dlb_fail(DLB_EINVAL, "compiled sweep: %d graph%s added, the program needs %d",
                    p->ng, p->ng == 1 ? "" : "s", need);
  /* classes: the union over the graphs, multiplicities affine in layers */
  size_t cap = 0;
  for (int k = 0; k < p->ng; k++) cap += p->g[k].nc;
  p->cls = dlb_calloc(cap + 1, sizeof *p->cls);
  if (!p->cls) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  int32_t *gmap[SW_MAXG] = {NULL, NULL, NULL};   /* graph k's class i -> its index in cls */
  for (int k = 0; k < p->ng; k++) {
    gmap[k] = dlb_malloc((p->g[k].nc + 1) * sizeof *gmap[k]);
    if (!gmap[k]) {
      for (int q = 0; q < k; q++) dlb_free(gmap[q]);
      return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    }
  }
  int st = finish_classes(p, gmap);
  if (st == DLB_OK && (p->attn = dlb_malloc(p->ncls + 1)) == NULL)
    st = dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (size_t i = 0; st == DLB_OK && i < p->ncls; i++) p->attn[i] = (char)p->cls[i].attn;
  /* the classes' further host ops and kernels (dlb_step_ops.xops, xkern), when any has some */
  int more = 0;
  for (size_t i = 0; st == DLB_OK && i < p->ncls; i++) more |= p->cls[i].xops || p->cls[i].xkern;
  if (st == DLB_OK && more) {
    p->xops = dlb_malloc((p->ncls + 1) * sizeof *p->xops);
    p->xkern = dlb_malloc((p->ncls + 1) * sizeof *p->xkern);
    if (!p->xops || !p->xkern) st = dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    for (size_t i = 0; st == DLB_OK && i < p->ncls; i++)
      p->xops[i] = p->cls[i].xops, p->xkern[i] = p->cls[i].xkern;
  }
  if (st == DLB_OK) st = dlb_sweep_build_order(p, gmap);
  if (st == DLB_OK) st = update_order(p);
  if (st == DLB_OK) st = finish_tensors(p);
  for (int k = 0; k < p->ng; k++) dlb_free(gmap[k]);
  if (st == DLB_OK) st = dlb_sweep_build_peak(p);
  for (int k = 0; k < p->ng; k++) dlb_sweep_free_live(&p->g[k]);
  if (st != DLB_OK) return st;
  static const char *const totname[DLB_SWT_COUNT] = {"params", "trainable", "flops_fwd",
    "flops_bwd", "flops_update", "flops_recompute", "flops", "bytes", "io", "weights",
    "optimizer", "stash", "nops", "all activations", "peak", "peak activations",
    "optimizer states", "logits"};
  for (int k = 0; k < DLB_SWT_COUNT; k++) {
    if (!p->layered) { p->tot[k] = p->g[0].tot[k]; continue; }
    int32_t id = fit_line(p, p->g[0].tot[k], p->g[1].tot[k], p->g[2].tot[k]);
    if (id == -2)
      return dlb_fail(DLB_EINVAL, "compiled sweep: the step's %s is not affine in layers "
                      "(layers = %g, %g, %g)", totname[k], p->g[0].layers, p->g[1].layers,
                      p->g[2].layers);
    if (id < 0) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    p->tot[k] = id;
  }
  /* the layout: monomials, then every pooled poly over them */
  size_t nt = 0;
  for (size_t i = 0; i < p->npoly; i++) nt += p->poly[i].n;
  uint64_t *keys = dlb_malloc((nt + 1) * sizeof *keys);
  p->poff = dlb_malloc((p->npoly + 1) * sizeof *p->poff);
  p->tm = dlb_malloc((nt + 1) * sizeof *p->tm);
  p->tc = dlb_malloc((nt + 1) * sizeof *p->tc);
  if (!keys || !p->poff || !p->tm || !p->tc) {
    dlb_free(keys);
    return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < p->npoly; i++)
    for (size_t j = 0; j < p->poly[i].n; j++) keys[n++] = p->poly[i].t[j].key;
  qsort(keys, n, sizeof *keys, dlb_swkey_cmp);
  size_t u = 0;
  for (size_t i = 0; i < n; i++) if (u == 0 || keys[i] != keys[u - 1]) keys[u++] = keys[i];
  p->mono = keys, p->nmono = u;
  n = 0;
  for (size_t i = 0; i < p->npoly; i++) {
    p->poff[i] = (int32_t)n;
    for (size_t j = 0; j < p->poly[i].n; j++) {
      uint64_t k = p->poly[i].t[j].key;
      size_t lo = 0, hi = u;
      while (lo < hi) { size_t m = (lo + hi) / 2; if (keys[m] < k) lo = m + 1; else hi = m; }
      p->tm[n] = (int32_t)lo;
      p->tc[n++] = p->poly[i].t[j].c;
    }
  }
  p->poff[p->npoly] = (int32_t)n;
  p->finished = 1;
  return DLB_OK;
}
