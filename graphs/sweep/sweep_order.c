/*
** sweep_order.c — the op order of a compiled program (the host-side timeline runs a step's
** ops in order, graphs/hw/roofline_impl.h): the ops of the build with the fewest layers as
** class indices, cut into fixed segments and segments of one layer's ops of one pass, which
** run once per layer, with the marks of where the step's passes and layers' forwards begin
** (dlb_step_marks); found by matching that build against one with more layers, and checked
** to give all three builds' orders back (dlb_sweep_build_order, called by
** dlb_sweep_prog_finish in sweep_compile.c).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "sweep_impl.h"

enum { SW_MAXINS = 256 };   /* insertion points (layers of one pass) matched at most */

/* Finding where the build with more layers repeats ops: a = the ops of the build with the
** fewest layers, b = a build with delta more. b is a with, at each of some points i_m, the
** block R_m^delta inserted, R_m = a[i_m - len_m .. i_m) (one layer's ops of one pass, ending
** where the inserted copies begin; blocks do not overlap: i_m - len_m >= i_{m-1}). Matched
** greedily (an insertion is found where a and b first differ, which places it as late as it
** can go: any rotation of a layer's ops is as good); the block's length is searched from 1
** up, with backtracking, within a budget of comparisons. */
typedef struct dctx {
  const int32_t *a, *b;
  size_t na, nb, delta, nins;
  size_t ipos[SW_MAXINS], ilen[SW_MAXINS];
  double budget;
} dctx;

static int decompose(dctx *c, size_t i, size_t j, size_t iprev) {
  size_t i0 = i;
  while (i < c->na && j < c->nb && c->a[i] == c->b[j]) i++, j++;
  c->budget -= (double)(i - i0) + 1;
  if (i == c->na && j == c->nb) return 1;
  if (j == c->nb || c->nins == SW_MAXINS || c->budget < 0) return 0;
  for (size_t len = 1; len <= i - iprev; len++) {
    size_t w = c->delta * len, t = 0;
    if (j + w > c->nb) break;
    while (t < w && c->b[j + t] == c->a[i - len + t % len]) t++;
    c->budget -= (double)t + 1;
    if (c->budget < 0) return 0;
    if (t < w) continue;
    c->ipos[c->nins] = i, c->ilen[c->nins] = len, c->nins++;
    if (decompose(c, i, j + w, i)) return 1;
    c->nins--;
  }
  return 0;
}

/* While the order is built, a position holds its class and its marks (dlb_step_marks: where
** the step's passes and layers' forwards begin) as one key, so that the segments repeat the
** marks with the ops; split into ord and ordmk once found. */
static inline int32_t okey(int32_t cls, uint8_t mk) { return cls * 4 + (mk & 3); }

/* Whether the segments give the ops seq[0..n) (marks mk) at layers L. */
static int order_gives(const dlb_sweep_prog *p, const int32_t *map, const int32_t *seq,
                       const uint8_t *mk, size_t n, double L) {
  size_t j = 0;
  for (size_t k = 0; k < p->nseg; k++) {
    double reps = p->segr[k] ? L - p->ordL + 1 : 1;
    for (double r = 0; r < reps; r++)
      for (int32_t i = 0; i < p->segn[k]; i++, j++)
        if (j >= n || okey(map[seq[j]], mk[j]) != p->ord[p->sego[k] + i]) return 0;
  }
  return j == n;
}

/* Add a segment [off, off + n) of ord (skipped when empty); 0 on OOM. */
static int add_seg(dlb_sweep_prog *p, size_t off, size_t n, int repeated, size_t *cap) {
  if (n == 0) return 1;
  if (p->nseg == *cap) {
    size_t nc = *cap ? 2 * *cap : 16;
    int32_t *o = dlb_realloc(p->sego, nc * sizeof *o);
    if (!o) return 0;
    p->sego = o;
    int32_t *l = dlb_realloc(p->segn, nc * sizeof *l);
    if (!l) return 0;
    p->segn = l;
    uint8_t *r = dlb_realloc(p->segr, nc);
    if (!r) return 0;
    p->segr = r;
    *cap = nc;
  }
  p->sego[p->nseg] = (int32_t)off, p->segn[p->nseg] = (int32_t)n, p->segr[p->nseg] = (uint8_t)repeated;
  p->nseg++;
  return 1;
}

/* Cut graph `base`'s order (already in p->ord) into segments against graph `next` (more
** layers); 1 when found, 0 when not, -1 on OOM. */
static int cut_order(dlb_sweep_prog *p, int32_t *const *gmap, int base, int next) {
  const swgraph *B = &p->g[next];
  int32_t *b = dlb_malloc((B->nseq + 1) * sizeof *b);
  dctx *c = dlb_calloc(1, sizeof *c);
  if (!b || !c) { dlb_free(b); dlb_free(c); return -1; }
  for (size_t i = 0; i < B->nseq; i++) b[i] = okey(gmap[next][B->seq[i]], B->mk[i]);
  c->a = p->ord, c->na = p->nord, c->b = b, c->nb = B->nseq;
  c->delta = (size_t)(B->layers - p->g[base].layers);
  c->budget = 64.0 * (double)(c->na + c->nb) + 1e6;
  int ok = decompose(c, 0, 0, 0), mem = 1;
  dlb_free(b);
  size_t cap = 0, prev = 0;
  p->nseg = 0;
  for (size_t m = 0; ok && mem && m < c->nins; m++) {
    size_t start = c->ipos[m] - c->ilen[m];
    mem = add_seg(p, prev, start - prev, 0, &cap) && add_seg(p, start, c->ilen[m], 1, &cap);
    prev = c->ipos[m];
  }
  if (ok && mem) mem = add_seg(p, prev, p->nord - prev, 0, &cap);
  dlb_free(c);
  return mem ? ok : -1;
}

/* The program's op order from the graphs' (gmap: their classes' indices in cls). An
** unlayered program keeps its one graph's order as one fixed segment. A layered one cuts
** the build with the fewest layers into fixed and repeated segments against the middle
** build (decompose, above), or, where a layer's ops first occur in the middle build (a
** ParaDnn FC net of L layers has L - 1 hidden-to-hidden ones), the middle build against the
** one with the most; the segments must give all three builds. Where they do not,
** order_ok = 0 and order_msg says why (the class sums stay; only host_op > 0 is refused). */
int dlb_sweep_build_order(dlb_sweep_prog *p, int32_t *const *gmap) {
  int o[SW_MAXG] = {0, 1, 2};
  if (p->layered)
    for (int x = 0; x < SW_MAXG; x++)
      for (int y = x + 1; y < SW_MAXG; y++)
        if (p->g[o[y]].layers < p->g[o[x]].layers) { int t = o[x]; o[x] = o[y]; o[y] = t; }
  p->order_ok = 0;
  p->order_msg[0] = 0;
  for (int base = 0; base < (p->layered ? 2 : 1) && !p->order_ok; base++) {
    const swgraph *A = &p->g[o[base]];
    dlb_free(p->ord);
    p->ord = dlb_malloc((A->nseq + 1) * sizeof *p->ord);
    if (!p->ord) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    for (size_t i = 0; i < A->nseq; i++) p->ord[i] = okey(gmap[o[base]][A->seq[i]], A->mk[i]);
    p->nord = A->nseq;
    p->ordL = p->layered ? A->layers : 1;
    if (!p->layered) {
      size_t cap = 0;
      p->nseg = 0;
      if (!add_seg(p, 0, p->nord, 0, &cap)) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
      p->order_ok = 1;
      break;
    }
    int ok = cut_order(p, gmap, o[base], o[base + 1]);
    if (ok < 0) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    for (int k = 0; ok && k < SW_MAXG; k++)
      ok = order_gives(p, gmap[k], p->g[k].seq, p->g[k].mk, p->g[k].nseq, p->g[k].layers);
    p->order_ok = ok;
  }
  /* the keys back to classes and marks */
  dlb_free(p->ordmk);
  p->ordmk = dlb_malloc(p->nord + 1);
  if (!p->ordmk) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (size_t i = 0; i < p->nord; i++) p->ordmk[i] = (uint8_t)(p->ord[i] & 3), p->ord[i] >>= 2;
  dlb_free(p->segmk);
  p->segmk = dlb_calloc(p->nseg + 1, 1);
  if (!p->segmk) return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  for (size_t k = 0; k < p->nseg; k++)
    for (int32_t i = 0; i < p->segn[k]; i++) p->segmk[k] |= p->ordmk[p->sego[k] + i];
  if (!p->order_ok) {
    p->nseg = 0;
    snprintf(p->order_msg, sizeof p->order_msg, "the step's op order at layers = %g, %g, %g is "
             "not fixed ops around one layer's ops repeated per pass", p->g[0].layers,
             p->g[1].layers, p->g[2].layers);
  }
  return DLB_OK;
}
