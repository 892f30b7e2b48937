/*
** sweep_impl.h — the compiled program's layout, shared by sweep_compile.c (which builds it)
** and sweep_eval.c (which runs it). Not part of the public interface.
*/
#ifndef SWEEP_IMPL_H
#define SWEEP_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "dlb_roofline.h"
#include "dlb_sweep.h"
#include "poly_impl.h"

enum { SW_MAXG = 3 };

/* A term list (canonical once normalised), owned. */
typedef struct swpoly { pterm *t; size_t n; } swpoly;

/* An op class: ops with the same FLOPs, bytes and matmul shape (polynomial ids; g[0] < 0
** when not a matmul) and kernel class, counted by mult (a polynomial id). */
typedef struct swclass {
  int32_t f, b, g[4], mult;
  int attn;   /* DLB_KERNEL_*: 1 a fused attention kernel, 2 a GEMM of the output layer */
  int32_t xops, xkern;   /* further host ops and kernels (dlb_fuse_step's more, dlb_step_ops) */
  /* an op of the optimizer step's update phase (DLB_UPD_*, graphs/hw/roofline_impl.h, as
  ** dlb_opcosts_from_analysis marks it): DLB_UPD_LAUNCH in a layer that updates Adam / AdamW
  ** tensors, DLB_UPD_OPS another; 0 any other op */
  int up;
} swclass;

/* One added graph while the program is built: its classes with their counts, its totals. */
typedef struct swgraph {
  swclass *c;
  char **cname;                /* per class the name of its first op (the errors name it) */
  double *count;
  size_t nc, cap;
  int32_t tot[DLB_SWT_COUNT];
  double layers;
  int32_t *seq;                /* the step's ops in analysis order, as indices into c */
  uint8_t *mk;                 /* per op of seq: where the step's scopes begin (dlb_step_marks) */
  size_t nseq;
  swpoly *lt, *la;             /* per op of seq (nlive): live bytes in construction order,
                               ** with its outputs allocated: in all, activations + workspace */
  size_t nlive;
  int32_t *tn;                 /* the Adam / AdamW tensors it updates: distinct element counts */
  double *tcount;              /* (pool ids), how many tensors of each */
  size_t ntn, captn;
} swgraph;

struct dlb_sweep_prog {
  int nv;                      /* symbols, "layers" last when layered */
  char *vars[DLB_POLY_MAXVARS];
  int layered, finished, ng;
  swgraph g[SW_MAXG];
  /* the polynomial pool (deduplicated) */
  swpoly *poly;
  size_t npoly, cappoly;
  int32_t *slot;               /* hash slots over poly ids, -1 empty */
  size_t nslot;
  /* the evaluation layout (after finish) */
  size_t nmono;
  uint64_t *mono;              /* monomial keys over the symbols */
  int32_t *poff, *tm;          /* poly i: terms poff[i] .. poff[i + 1] */
  double *tc;
  swclass *cls;
  char *attn;                  /* cls[i].attn (DLB_KERNEL_*), for dlb_step_time */
  double *xops, *xkern;        /* cls[i].xops, xkern for dlb_step_time (NULL: all 0) */
  size_t ncls;
  /* the optimizer step's launch model (dlb_sweep_prog_optim; kind DLB_OPTIM_NONE: none): its
  ** kind, a loop's kernels and host ops per tensor and sync; upd: cls[i].up (NULL when no
  ** class is of the update phase), and the op order without those classes (ordu,
  ** segment k's ops at ordu + sego[k], segnu[k] of them) for dlb_step_time's timeline */
  int okind, osync;
  double okernels, oops;
  char *upd;
  int32_t *ordu, *segnu;
  uint8_t *ordmku;             /* the marks of ordu's positions (those of ord, update ops left out) */
  int psync;                   /* the profile's phase syncs (dlb_sweep_prog_phase_sync) */
  /* the step's Adam / AdamW tensors: ntun distinct element counts (pool ids tun), tmult[j]
  ** tensors of count tun[j] (pool ids, affine in layers): the launch model's tensors and
  ** chunks per configuration */
  int32_t *tun, *tmult;
  size_t ntun;
  int32_t tot[DLB_SWT_COUNT];
  /* the step's op order, for the host-side timeline (dlb_timeline, graphs/hw/roofline_impl.h):
  ** the ops of the build with the fewest layers (ordL of them) as indices into cls, cut into
  ** segments (offset sego, length segn); a repeated segment (segr != 0) is one layer's ops
  ** of one pass and runs layers - ordL + 1 times, a fixed one once. order_ok = 0 when the
  ** builds at three layer counts are not of that form (order_msg says why): such a program
  ** times no device with host_op > 0. */
  int32_t *ord, *sego, *segn;
  uint8_t *ordmk;              /* the marks of ord's positions (dlb_step_marks: the base build's) */
  uint8_t *segmk;              /* per segment its positions' marks or'ed (an update op has none:
                               ** the same for ordu's segments) */
  uint8_t *segr;
  size_t nord, nseg;
  double ordL;
  int order_ok;
  char order_msg[200];
  /* the construction order's live bytes (dlb_sweep_peak): per position j of ord, with the op's
  ** outputs allocated, pool ids pk[8 j + 4 w + (0 .. 3)] = {P, Q, E0, E1}: at repetition r
  ** of R = layers - ordL + 1 (a fixed segment: r = 0, R = 1) the bytes are
  ** P + r Q + [r = 0] E0 + [r = R - 1] E1 (P over the symbols with layers); w = 0 in all,
  ** w = 1 activations + workspace; pk[8 j] = -1: a position that is never the first maximum
  ** (another holds at least as much everywhere and runs first, or holds more). peak_ok = 0 (peak_msg says why) where the three builds'
  ** live bytes are not of that form. */
  int32_t *pk;
  int32_t *pkpos, *pkoff;      /* the kept positions in order; segment k's: pkoff[k] .. pkoff[k + 1] */
  uint8_t *pkw;                /* per position what it can be: 1 the first maximum of all bytes,
                                  2 the maximum of activations + workspace (issue [18] item 5:
                                  the framework schedule's activations, dlb_analysis_act_peak) */
  int peak_ok;
  char peak_msg[200];
  /* references beside the owner's: a reducer whose kept rows decode through this program
  ** holds one (dlb_sweep_prog_hold); dlb_sweep_prog_free drops one, the last frees */
  int refs;
};

/* One more reference to p (released by dlb_sweep_prog_free). */
void dlb_sweep_prog_hold(const dlb_sweep_prog *p);

/* The point at grid position x of dlb_sweep_eval's grid (nv symbols, nval[v] values of symbol
** v at values[voff[v]...], the last fastest; the devices slowest): the symbols' values in
** vals, the device's index returned. The one decoding of a position, for the evaluator and
** the kept rows (which store no coordinates). */
static inline size_t dlb_sweep_point(size_t nv, const size_t *nval, const size_t *voff,
                                     const double *values, size_t x, double *vals) {
  size_t grid = 1;
  for (size_t v = 0; v < nv; v++) grid *= nval[v];
  size_t ri = x / grid, rest = x % grid;
  for (size_t v = nv; v-- > 0;) {
    vals[v] = values[voff[v] + rest % nval[v]];
    rest /= nval[v];
  }
  return ri;
}

/* Values a kept row stores (docs/sweep.md "Kept rows"): the step model's time, FLOPs, bytes
** and memory-bound time; every other column follows from them, the position and the program
** (dlb_sweep_rates, dlb_sweep_memcols). */
enum { DLB_SWK_TIME = 0, DLB_SWK_FLOPS = 1, DLB_SWK_BYTES = 2, DLB_SWK_MBT = 3, DLB_SWK_COUNT = 4 };

/* The row's columns that follow from the stored values s[DLB_SWK_*] (TIME, FLOPS, BYTES,
** MEMORY_BOUND_TIME copied; UTIL = flops / (time x peak); THROUGHPUT = the product of the
** symbols whose bit is set in per, over the time) into o[DLB_SWC_*]. */
void dlb_sweep_rates(const dlb_sweep_prog *p, const double *vals, int per, double peak,
                     const double *s, double *o);
/* The row's columns that follow from the program's polynomials at the point (pv) and the
** device's memory rule mm[4] and bytes_scale: PARAMS, FLOPS_FWD, FLOPS_BWD, PEAK, ACTIVATIONS,
** MEMORY, MEMORY_BOUND, FITS, into o[DLB_SWC_*]. DLB_OK or dlb_step_memory's failure. It
** reads only the polynomials dlb_sweep_memcol_polys lists (kept rows evaluate just those). */
int dlb_sweep_memcols(const dlb_sweep_prog *p, const double *vals, const double *pv,
                      double bytes_scale, const double *mm, double *o);

/* The values of every pooled polynomial at one point (pv: p->npoly entries, mv: p->nmono
** scratch). */
void dlb_sweep_values(const dlb_sweep_prog *p, const double *vals, double *mv, double *pv);
/* Only the polynomials ids[0..n) of pv (the same evaluation, so the same bits). */
void dlb_sweep_values_of(const dlb_sweep_prog *p, const double *vals, double *mv, double *pv,
                         const int32_t *ids, size_t n);
/* The pool ids dlb_sweep_memcols reads (the totals it uses, the kept peak positions' terms)
** into ids (NULL: only count them); their number. */
size_t dlb_sweep_memcol_polys(const dlb_sweep_prog *p, int32_t *ids);

/* The construction order's peak at one point (pv: its polynomial values): *total the peak
** live bytes (the first maximum over op positions, as graphs/step/footprint.c's simulate),
** *act the activations + workspace there, *amax (may be NULL) the largest activations +
** workspace of the step (dlb_analysis_act_peak's); NaN all when !p->peak_ok. */
void dlb_sweep_peak(const dlb_sweep_prog *p, const double *vals, const double *pv,
                    double *total, double *act, double *amax);

/* The op classes' costs at one point (pv: its polynomial values): FLOPs f, bytes b, the
** matmul shape g (4 a class; g[0] = 0: timed without a shape, as dlb.roofline.time times a
** matmul with an empty side) and the multiplicities m, n = p->ncls each. */
void dlb_sweep_class_costs(const dlb_sweep_prog *p, const double *pv, double *f, double *b,
                           double *g, double *m);
/* Doubles of scratch dlb_sweep_roof needs (per thread), zeroed before its first call: its
** tail keeps the last point's optimizer launch counts (SWEEP_MEMO_* in sweep_eval.c). */
size_t dlb_sweep_scratch(const dlb_sweep_prog *p);
/* The per-op roofline of one point vals (pv: its polynomial values; scratch:
** dlb_sweep_scratch(p) doubles, zeroed before the first call, kept between the calls of one
** thread) on device d (checked, and by dlb_sweep_check_roof): one call
** of the one step model (dlb_step_time) with the classes' costs, multiplicities and the op
** order; out receives the step time (step_overhead included), FLOPs, bytes (scaled),
** memory-bound time, host idle. DLB_OK or a failure with a message. */
int dlb_sweep_roof(const dlb_sweep_prog *p, const double *vals, const double *pv,
                   const dlb_roof *d, double *scratch, dlb_roof_result *out);
/* Whether the program can time device d at layer counts Ls[0..nL) (NULL: any): refuses
** cache_aware devices, and host_op > 0 where the op order is unknown (order_ok = 0) or a
** layer count is below ordL - 1. DLB_OK or a failure with a message naming device `which`. */
int dlb_sweep_check_roof(const dlb_sweep_prog *p, const dlb_roof *d, size_t which,
                         const double *Ls, size_t nL);



/* A reducer set with the same reductions as r and no rows (for one thread), keeping rows
** only when keep != 0 and r keeps; NULL on OOM. */
dlb_reduce *dlb_reduce_like(const dlb_reduce *r, int keep);
/* When r keeps rows: room for the n rows of one dlb_sweep_eval call (the grid as there, the
** rows' indices first .. first + n - 1), stored compactly: *st receives n x DLB_SWK_COUNT
** doubles (row x at st + DLB_SWK_COUNT x) for the evaluator's threads to fill; the block
** holds p (a reference), copies of the value lists, tags, the devices' peaks, bytes_scale
** and memory rules, and decodes every other column on read (dlb_reduce_column). *st = NULL
** when r does not keep. Fails past the cap, or when r keeps rows pushed by
** dlb_reduce_push. */
int dlb_reduce_keep_block(dlb_reduce *r, const dlb_sweep_prog *p, const size_t *nval,
                          const size_t *voff, const double *values, size_t nroofs,
                          const dlb_roof *roofs, const double *mem, size_t ntags,
                          const double *tags, int per, double first, size_t n, double **st);
/* The numbers of hex text (dlb_reduce_keep_text's form) into out[0 .. n). */
int dlb_sweep_unhex(const char *text, size_t n, double *out);
/* Drop the block dlb_reduce_keep_block added last (an evaluation that failed). */
void dlb_reduce_drop_block(dlb_reduce *r);
/* Merge src's rows into dst (same reductions); src is left as it was. */
int dlb_reduce_merge(dlb_reduce *dst, const dlb_reduce *src);
/* Cut the op order of a finished program's builds into fixed and per-layer segments
** (sweep_order.c); gmap[k][i] is build k's class i's index in the program. Sets p->order_ok
** (0 with p->order_msg when the builds are not fixed ops around repeated layers); an error
** only when out of memory. */
int dlb_sweep_build_order(dlb_sweep_prog *p, int32_t *const *gmap);
/* The construction order's exact memory peak of a finished program's builds (sweep_peak.c):
** p's peak positions, or none (a NaN peak per configuration) where a position's bytes do not
** fit the layer count and repetition; an error only when out of memory. */
int dlb_sweep_build_peak(dlb_sweep_prog *p);

/* Term lists (sweep_compile.c), shared with sweep_peak.c: a += c * b (normalised; 0 on
** OOM); the pool id of a (canonical; a is emptied; -1 on OOM); the order of two monomial
** keys (qsort); a at the point x (one value per symbol); whether x and y agree within 1e-9
** of the larger coefficient, term by term. */
int dlb_swpoly_add(swpoly *a, const swpoly *b, double c);
int32_t dlb_swpoly_intern(dlb_sweep_prog *p, swpoly *a);
/* the pool id of the constant c (-1: out of memory) */
int32_t dlb_swpoly_const(dlb_sweep_prog *p, double c);
/* free a graph state's per-position live bytes */
void dlb_sweep_free_live(swgraph *G);
int dlb_swkey_cmp(const void *a, const void *b);
double dlb_swpoly_at(const swpoly *a, const double *x);
int dlb_swpoly_close(const swpoly *x, const swpoly *y);

#endif
