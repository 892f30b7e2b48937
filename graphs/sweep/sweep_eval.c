/*
** sweep_eval.c — a compiled program run over a grid of configurations: each configuration's
** polynomials evaluated once, its op classes (counted by their multiplicities) and op order
** timed through the one step model (dlb_step_time, graphs/hw/step_time.c: the per-op rule, the
** host-side timeline over the op order, the step-level terms), the step's memory
** through dlb_step_memory; rows fed to the reductions of one thread each (pthreads), merged
** at the end.
*/
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_roofline.h"
#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "dlb_sys.h"
#include "graph_impl.h"
#include "roofline_impl.h"
#include "sweep_impl.h"

/* The scratch's tail after the classes' arrays and the repetitions, memos of the optimizer
** step's launch counts (the points of one thread's run share their parameter tensors' sizes;
** only the tensor counts move with the layers, the fastest dim): first 1 when set and the
** Adam / AdamW tensors' element counts it is for (ntun), then each count's chunks
** (ceil(elements / 65536), ntun); then SWEEP_SLOTS slots of (tensors, chunks) -> launches,
** dispatches, syncs (a slot's tensors 0: empty), one per layer count in a sweep of few. */
enum { SWEEP_SLOTS = 64, SWEEP_SLOT = 5 };   /* (h >> 58 indexes the 64 slots) */

size_t dlb_sweep_scratch(const dlb_sweep_prog *p) {
  return 9 * p->ncls + p->nseg + 1 + 2 * p->ntun + SWEEP_SLOTS * SWEEP_SLOT + 1;
}

/* The update phase's launch counts at a point (tensors *ut; 0: none), from the memos in
** `memo` (the scratch's tail, above): the same counts dlb_optim_launches gives for the
** tensors and chunks summed over the point's tensor sizes. */
static int launch_counts(const dlb_sweep_prog *p, const double *pv, double *memo, double *ut,
                         dlb_optim_count *oc) {
  double *ne = memo + 1, *ch = ne + p->ntun, *slots = ch + p->ntun;
  int hit = memo[0] == 1;
  for (size_t j = 0; hit && j < p->ntun; j++) hit = ne[j] == pv[p->tun[j]];
  if (!hit) {
    /* each tensor's chunks by dlb_analysis_update_tensors' rule (update_chunks, graph_impl.h) */
    double chunk = dlb_optim_chunk();
    for (size_t j = 0; j < p->ntun; j++) {
      ne[j] = pv[p->tun[j]];
      ch[j] = update_chunks(ne[j], chunk);
    }
    for (size_t k = 0; k < SWEEP_SLOTS * SWEEP_SLOT; k++) slots[k] = 0;
    memo[0] = 1;
  }
  double t = 0, uc = 0;
  for (size_t j = 0; j < p->ntun; j++) {
    double k = pv[p->tmult[j]];
    t += k;
    uc += k * ch[j];
  }
  t = floor(t + 0.5), uc = floor(uc + 0.5);   /* sums of whole counts */
  *ut = t;
  if (!(t > 0)) return DLB_OK;
  /* (the slot: the counts' bits mixed, Fibonacci hashing; the layer counts of a sweep are
  ** often multiples of 4, so the low bits of the counts alone would share a slot) */
  double key = t + 7 * uc;
  uint64_t h = key < 1e15 ? (uint64_t)key * 0x9E3779B97F4A7C15ULL : 0;
  double *sl = slots + SWEEP_SLOT * (size_t)(h >> 58);
  if (sl[0] == t && sl[1] == uc) {
    oc->launches = sl[2], oc->dispatches = sl[3], oc->syncs = sl[4];
    return DLB_OK;
  }
  int st = dlb_optim_launches(p->okind, p->okernels, p->oops, p->osync, t, uc, oc);
  if (st != DLB_OK) return st;
  sl[0] = t, sl[1] = uc, sl[2] = oc->launches, sl[3] = oc->dispatches, sl[4] = oc->syncs;
  return DLB_OK;
}

/* The per-op roofline of one point; see sweep_impl.h. The classes' costs at the point, their
** multiplicities and the op order's repetitions (a repeated segment layers - ordL + 1 times,
** a fixed one once) go to the one step model (dlb_step_time, graphs/hw/step_time.c), as
** dlb.roofline.time gives an analysis's ops to it (roofline_ops in roofline.c,
** dlb_opcosts_from_analysis: a matmul with an empty side is timed without its shape). */
void dlb_sweep_class_costs(const dlb_sweep_prog *p, const double *pv, double *f, double *b,
                           double *g, double *m) {
  for (size_t i = 0; i < p->ncls; i++) {
    const swclass *c = &p->cls[i];
    f[i] = pv[c->f], b[i] = pv[c->b], m[i] = pv[c->mult];
    double *gi = g + 4 * i;
    gi[0] = 0;
    if (c->g[0] >= 0) {
      gi[0] = pv[c->g[0]], gi[1] = pv[c->g[1]], gi[2] = pv[c->g[2]], gi[3] = pv[c->g[3]];
      if (!(gi[0] > 0 && gi[1] > 0 && gi[2] > 0 && gi[3] > 0)) gi[0] = 0;
    }
  }
}

int dlb_sweep_roof(const dlb_sweep_prog *p, const double *vals, const double *pv,
                   const dlb_roof *d, double *scratch, dlb_roof_result *out) {
  size_t n = p->ncls;
  double *f = scratch, *b = f + n, *g = b + n, *m = g + 4 * n, *work = m + n,
         *rep = work + 2 * n;
  dlb_sweep_class_costs(p, pv, f, b, g, m);
  const double layers = p->layered ? vals[p->nv - 1] : 1;
  for (size_t k = 0; k < p->nseg; k++) rep[k] = p->segr[k] ? layers - p->ordL + 1 : 1;
  dlb_step_ops s = { .n = n, .flops = f, .bytes = b, .gemm = g, .attn = p->attn,
                     .xops = p->xops, .xkern = p->xkern, .mult = m,
                     .nseg = p->nseg, .ord = p->ord, .sego = p->sego, .segn = p->segn,
                     .rep = rep, .step = 1, .mark = p->ordmk, .phase_sync = p->psync,
                     .segmk = p->segmk };
  /* the update phase's ops out of the timeline's order (dlb_step_time runs them after it),
  ** and the optimizer step's launch model (dlb_sweep_prog_optim): the Adam / AdamW tensors at
  ** the point and their chunks, as dlb_opcosts_from_analysis counts them, through the one rule */
  dlb_optim_count oc;
  if (p->upd != NULL) s.upd = p->upd, s.ord = p->ordu, s.segn = p->segnu, s.mark = p->ordmku;
  if (p->okind != DLB_OPTIM_NONE && p->upd != NULL) {
    double ut;
    int st = launch_counts(p, pv, rep + p->nseg, &ut, &oc);
    if (st != DLB_OK) return st;
    if (ut > 0) s.optim = &oc;
  }
  return dlb_step_time(d, &s, work, NULL, NULL, out);
}

/* Bytes w (0 in all, 1 activations + workspace) at position j, repetition r of R. */
static inline double pk_at(const dlb_sweep_prog *p, const double *pv, size_t j, int w, double r,
                           double R) {
  const int32_t *id = &p->pk[8 * j + 4 * w];
  return pv[id[0]] + r * pv[id[1]] + (r == 0 ? pv[id[2]] : 0) + (r == R - 1 ? pv[id[3]] : 0);
}

/* The construction order's peak at one point; see sweep_impl.h. Over a repeated segment's R
** repetitions a position's bytes are linear in r but at the first and the last, so its first
** maximum over r is at r = 0, 1, R - 2 or R - 1 (in the interior: at 1 when the slope is
** <= 0, at R - 2 when it is > 0). So the step's first maximum (footprint.c's simulate keeps
** the first, with its breakdown) is the first maximum over those repetitions of each
** position, taken in execution order: a fixed segment's positions in order, a repeated
** segment's candidate repetitions ascending, each over its positions in order. Only the
** positions the compile kept (pkpos: those that can be the first maximum) are visited. */
void dlb_sweep_peak(const dlb_sweep_prog *p, const double *vals, const double *pv,
                    double *total, double *act, double *amax) {
  if (!p->peak_ok) {
    *total = *act = NAN;
    if (amax) *amax = NAN;
    return;
  }
  const double R = p->layered ? vals[p->nv - 1] - p->ordL + 1 : 1;
  double best = -INFINITY, ba = 0, am = 0;
  for (size_t k = 0; k < p->nseg; k++) {
    const int32_t *pos = p->pkpos + p->pkoff[k], *end = p->pkpos + p->pkoff[k + 1];
    double cand[4] = {0, 1, R - 2, R - 1};
    int nc = 1;
    if (p->segr[k]) {
      if (R < 1) continue;
      nc = 0;
      for (int c = 0; c < 4; c++) /* ascending, distinct, within [0, R) */
        if (cand[c] >= 0 && cand[c] < R && (nc == 0 || cand[c] > cand[nc - 1])) cand[nc++] = cand[c];
    }
    const double RR = p->segr[k] ? R : 1;
    for (int c = 0; c < nc; c++)
      for (const int32_t *j = pos; j < end; j++) {
        uint8_t w = p->pkw[*j];
        if (w & 1) {
          double t = pk_at(p, pv, (size_t)*j, 0, cand[c], RR);
          if (t > best) best = t, ba = pk_at(p, pv, (size_t)*j, 1, cand[c], RR);
        }
        if (w & 2) {   /* the activations' maximum (linear in r between the ends, as above) */
          double a = pk_at(p, pv, (size_t)*j, 1, cand[c], RR);
          if (a > am) am = a;
        }
      }
  }
  *total = best, *act = ba;
  if (amax) *amax = am > ba ? am : ba;
}

int dlb_sweep_check_roof(const dlb_sweep_prog *p, const dlb_roof *d, size_t which,
                         const double *Ls, size_t nL) {
  char dev[48] = "";
  if (which > 0) snprintf(dev, sizeof dev, "device %zu: ", which);
  if (d->cache_aware)
    return dlb_fail(DLB_EINVAL, "compiled sweep: %scache_aware devices are not compiled (time "
                    "them with dlb.roofline.time)", dev);
  if (!(d->host_op > 0 || d->host_layer > 0)) return DLB_OK;
  const char *what = d->host_op > 0 ? "host_op" : "host_layer";
  double hv = d->host_op > 0 ? d->host_op : d->host_layer;
  if (!p->order_ok)
    return dlb_fail(DLB_EINVAL, "compiled sweep: %s%s = %g s needs the step's op "
                    "order, and %s (time it with dlb.roofline.time, or sweep layers as a "
                    "structure dim: dlb.sweep.model's layers = false)", dev, what, hv,
                    p->order_msg);
  for (size_t i = 0; p->layered && Ls && i < nL; i++)
    if (Ls[i] < p->ordL - 1)
      return dlb_fail(DLB_EINVAL, "compiled sweep: %s%s > 0 times the step's ops in order, "
                      "which the program knows from layers = %g up; layers = %g is below",
                      dev, what, p->ordL - 1, Ls[i]);
  return DLB_OK;
}

void dlb_sweep_rates(const dlb_sweep_prog *p, const double *vals, int per, double peak,
                     const double *s, double *o) {
  double t = s[DLB_SWK_TIME], f = s[DLB_SWK_FLOPS];
  o[DLB_SWC_TIME] = t;
  o[DLB_SWC_FLOPS] = f;
  o[DLB_SWC_BYTES] = s[DLB_SWK_BYTES];
  o[DLB_SWC_MEMORY_BOUND_TIME] = s[DLB_SWK_MBT];
  o[DLB_SWC_UTIL] = t > 0 ? f / (t * peak) : 0;
  double units = 1;
  for (int v = 0; v < p->nv; v++) if (per >> v & 1) units *= vals[v];
  o[DLB_SWC_THROUGHPUT] = t > 0 ? units / t : 0;
}

/* The activations + workspace a step needs with its training stack's terms (mm's DLB_SWM_*
** from a framework profile's memory table, lua/dlbench/framework_memory.lua), composed as
** g:stats composes them for one device: `act` (the graph's activations + workspace at the
** peak) plus the loss's bytes per logit element times the logits, plus the optimizer step's
** temporaries (per optimizer-state byte and per trainable parameter) beyond those live bytes
** (dlb_step_temporaries, the one rule), plus the per-device bytes. Unscaled bytes in *out. */
static int stack_act(const dlb_sweep_prog *p, const double *pv, double act, const double *mm,
                     double *out) {
  double live = act + mm[DLB_SWM_LOSS] * pv[p->tot[DLB_SWT_LOGITS]];
  double temps = mm[DLB_SWM_TEMP_STATES] * pv[p->tot[DLB_SWT_OPT_STATES]] +
                 mm[DLB_SWM_TEMP_TRAINABLE] * pv[p->tot[DLB_SWT_TRAINABLE]], extra = 0;
  int st = dlb_step_temporaries(temps, live, &extra);
  *out = live + extra + mm[DLB_SWM_FIXED];
  return st;
}

int dlb_sweep_memcols(const dlb_sweep_prog *p, const double *vals, const double *pv,
                      double bytes_scale, const double *mm, double *o) {
  double scale = bytes_scale > 0 ? bytes_scale : 1;
  double W = pv[p->tot[DLB_SWT_WEIGHTS]] * scale, O = pv[p->tot[DLB_SWT_OPTIMIZER]] * scale;
  double pk, pa, G = pv[p->tot[DLB_SWT_TRAINABLE]] * mm[DLB_SWM_GRAD] * scale;
  double am = 0;
  dlb_sweep_peak(p, vals, pv, &pk, &pa, &am);
  double A = 0, bound = 0, need = 0;
  /* the framework schedule's activations: the step's largest (g:stats under a profile reads
  ** them so, dlb_analysis_act_peak), not those at the peak of all bytes (issue [18] item 5) */
  int st = stack_act(p, pv, p->peak_ok ? am : pv[p->tot[DLB_SWT_STASH]], mm, &A);
  if (st == DLB_OK) st = dlb_step_memory((int)mm[DLB_SWM_SCHEDULE], W, G, O, A * scale,
                                         mm[DLB_SWM_SLACK], &need);
  if (st != DLB_OK) return st;
  A *= scale;
  o[DLB_SWC_PARAMS] = pv[p->tot[DLB_SWT_PARAMS]];
  o[DLB_SWC_MEMORY] = need;
  o[DLB_SWC_FITS] = need <= mm[DLB_SWM_CAPACITY] ? 1 : 0;
  o[DLB_SWC_FLOPS_FWD] = pv[p->tot[DLB_SWT_FLOPS_FWD]];
  o[DLB_SWC_FLOPS_BWD] = pv[p->tot[DLB_SWT_FLOPS_BWD]];
  o[DLB_SWC_ACTIVATIONS] = A;
  double ub = 0;
  if (stack_act(p, pv, pv[p->tot[DLB_SWT_ACT_ALL]], mm, &ub) == DLB_OK)
    dlb_step_memory((int)mm[DLB_SWM_SCHEDULE], W, G, O, ub * scale, mm[DLB_SWM_SLACK], &bound);
  o[DLB_SWC_MEMORY_BOUND] = bound;
  o[DLB_SWC_PEAK] = pk * scale;
  return DLB_OK;
}

typedef struct job {
  const dlb_sweep_prog *p;
  size_t nv, ntags, nroofs;
  const size_t *nvalues, *voff;   /* counts as size_t */
  const double *values, *tags, *mem;
  const dlb_roof *roofs;
  int per;                       /* symbols of the throughput's numerator (bits) */
  double first, lo, hi;          /* grid positions [lo, hi) */
  dlb_reduce *sink;
  double *kept;                  /* the sink's kept rows of this call (DLB_SWK_COUNT a row), or NULL */
  pthread_mutex_t *lock;
  pthread_cond_t *cond;          /* signalled when *turn moves on */
  int k, *turn;                  /* this share's place in the merge order; the share merging now */
  int status;
  char msg[512];
} job;

enum { BATCH = 512 };

/* One thread's share of the grid. Its scratch and its reductions are allocated in the
** thread (the C library's allocator: the allocator and the live count of alloc.c are per
** thread) and freed there; only the merge into the caller's reductions, under the lock,
** grows blocks the caller owns (their growth is counted in this thread, not the caller's).
** Kept rows go straight to the caller's block (each thread its own positions). */
static void *work(void *arg) {
  job *J = arg;
  const dlb_sweep_prog *p = J->p;
  size_t nv = J->nv, ncol = J->ntags + nv + 1 + DLB_SWC_COUNT;
  double *mv = dlb_malloc((p->nmono + 1) * sizeof *mv), *pv = dlb_malloc((p->npoly + 1) * sizeof *pv);
  double *rows = dlb_malloc(BATCH * ncol * sizeof *rows);
  double *ct = dlb_calloc(dlb_sweep_scratch(p), sizeof *ct);   /* (zeroed: its memo) */
  dlb_reduce *local = J->sink ? dlb_reduce_like(J->sink, 0) : NULL;
  if (!mv || !pv || !rows || !ct || (J->sink && !local)) {
    J->status = DLB_ENOMEM;
    snprintf(J->msg, sizeof J->msg, "compiled sweep: out of memory");
    goto done;
  }
  double vals[DLB_POLY_MAXVARS];
  size_t nb = 0;
  double bstart = J->lo;
  for (double x = J->lo; x < J->hi; x += 1) {
    size_t ri = dlb_sweep_point(nv, J->nvalues, J->voff, J->values, (size_t)x, vals);
    const dlb_roof *d = &J->roofs[ri];
    const double *mm = J->mem + DLB_SWM_COUNT * ri;
    dlb_sweep_values(p, vals, mv, pv);
    double *r = rows + nb * ncol;
    for (size_t k = 0; k < J->ntags; k++) r[k] = J->tags[k];
    for (size_t v = 0; v < nv; v++) r[J->ntags + v] = vals[v];
    r[J->ntags + nv] = (double)ri;
    double *o = r + J->ntags + nv + 1;
    dlb_roof_result rr = {0};
    int st = dlb_sweep_roof(p, vals, pv, d, ct, &rr);
    double s[DLB_SWK_COUNT] = {rr.time, rr.flops, rr.bytes, rr.memory_bound_time};
    if (st == DLB_OK) st = dlb_sweep_memcols(p, vals, pv, d->bytes_scale, mm, o);
    if (st != DLB_OK) {
      J->status = st;
      snprintf(J->msg, sizeof J->msg, "compiled sweep: configuration %.0f: %s", J->first + x,
               dlb_last_error());
      goto done;
    }
    dlb_sweep_rates(p, vals, J->per, d->peak, s, o);
    if (J->kept) memcpy(J->kept + DLB_SWK_COUNT * (size_t)x, s, sizeof s);
    if (++nb == BATCH || x + 1 >= J->hi) {
      if (local && dlb_reduce_push(local, nb, rows, J->first + bstart) != DLB_OK) {
        J->status = dlb_last_status();
        snprintf(J->msg, sizeof J->msg, "%s", dlb_last_error());
        goto done;
      }
      nb = 0;
      bstart = x + 1;
    }
  }
done:
  /* the shares merge in their order, whatever order the threads finish in: a bin's or a
  ** group's sum adds the same numbers in the same order on every run with this many threads
  ** (a checkpointed sweep's resumed result is the uninterrupted one, bit for bit) */
  pthread_mutex_lock(J->lock);
  while (*J->turn != J->k) pthread_cond_wait(J->cond, J->lock);
  if (J->status == DLB_OK && local && dlb_reduce_merge(J->sink, local) != DLB_OK) {
    J->status = dlb_last_status();
    snprintf(J->msg, sizeof J->msg, "%s", dlb_last_error());
  }
  (*J->turn)++;
  pthread_cond_broadcast(J->cond);
  pthread_mutex_unlock(J->lock);
  dlb_reduce_free(local);
  dlb_free(mv); dlb_free(pv); dlb_free(rows); dlb_free(ct);
  return NULL;
}

/* The checks of a grid's arguments (dlb_sweep_eval's and dlb_sweep_keep's): the value lists
** as size_t counts and offsets in nval, voff, the configurations in *n. */
static int check_grid(const dlb_sweep_prog *p, size_t nvalues_n, const double *nvalues,
                      size_t nvals, const double *values, size_t nroofs, const dlb_roof *roofs,
                      const double *mem, size_t ntags, const double *tags, int per_mask,
                      const dlb_reduce *sink, size_t *nval, size_t *voff, double *n) {
  if (!p || !p->finished) return dlb_fail(DLB_EINVAL, "compiled sweep: the program is not finished");
  if (!nvalues || (nvals > 0 && !values) || (ntags > 0 && !tags))
    return dlb_fail(DLB_EINVAL, "compiled sweep: value counts, values or tags are NULL");
  if (nvalues_n != (size_t)p->nv)
    return dlb_fail(DLB_EINVAL, "compiled sweep: %zu value lists for %d symbols", nvalues_n, p->nv);
  if (nroofs == 0 || !roofs || !mem) return dlb_fail(DLB_EINVAL, "compiled sweep: no devices");
  if (!sink) return dlb_fail(DLB_EINVAL, "compiled sweep: the reductions are required");
  if (per_mask < 0 || per_mask >= (1 << p->nv))
    return dlb_fail(DLB_EINVAL, "compiled sweep: per_mask %d names symbols beyond the %d", per_mask, p->nv);
  size_t ncol = ntags + (size_t)p->nv + 1 + DLB_SWC_COUNT;
  if (sink && dlb_reduce_ncols(sink) != ncol)
    return dlb_fail(DLB_EINVAL, "compiled sweep: the reductions take rows of %zu columns, the "
                    "sweep writes %zu", dlb_reduce_ncols(sink), ncol);
  size_t total = 0;
  double grid = 1;
  for (int v = 0; v < p->nv; v++) {
    if (!(nvalues[v] >= 1 && nvalues[v] <= 1e9 && nvalues[v] == floor(nvalues[v])))
      return dlb_fail(DLB_EINVAL, "compiled sweep: %g values for %s (need 1 or more)", nvalues[v],
                      p->vars[v]);
    nval[v] = (size_t)nvalues[v];
    voff[v] = total;
    total += nval[v];
    grid *= nvalues[v];
  }
  if (total != nvals)
    return dlb_fail(DLB_EINVAL, "compiled sweep: the value lists hold %zu values, the counts say %zu",
                    nvals, total);
  for (int v = 0; v < p->nv; v++)
    for (size_t i = 0; i < nval[v]; i++) {
      double x = values[voff[v] + i];
      if (!(isfinite(x) && x >= 1 && x == floor(x)))
        return dlb_fail(DLB_EINVAL, "compiled sweep: %s = %.17g must be a positive integer (it "
                        "is a dim)", p->vars[v], x);
    }
  for (size_t r = 0; r < nroofs; r++) {
    int st = dlb_roof_check(&roofs[r]);
    if (st) return dlb_fail(st, "compiled sweep: device %zu: %s", r + 1, dlb_last_error());
    if (p->layered) st = dlb_sweep_check_roof(p, &roofs[r], r + 1, values + voff[p->nv - 1],
                                              nval[p->nv - 1]);
    else st = dlb_sweep_check_roof(p, &roofs[r], r + 1, NULL, 0);
    if (st) return st;
    const double *m = mem + DLB_SWM_COUNT * r;
    if (!(m[0] == DLB_MEM_FRAMEWORK || m[0] == DLB_MEM_MINIMAL) || !(m[1] >= 0) ||
        !(m[2] >= 0) || !(m[3] >= 0))
      return dlb_fail(DLB_EINVAL, "compiled sweep: device %zu: memory rule {schedule, slack, "
                      "gradient bytes, capacity} = {%g, %g, %g, %g} is invalid", r + 1, m[0],
                      m[1], m[2], m[3]);
    for (int k = DLB_SWM_LOSS; k < DLB_SWM_COUNT; k++)
      if (!(m[k] >= 0 && isfinite(m[k])))
        return dlb_fail(DLB_EINVAL, "compiled sweep: device %zu: the stack's memory terms {loss "
                        "per logit, temporaries per state byte, per trainable parameter, fixed "
                        "bytes} = {%g, %g, %g, %g} must be >= 0 and finite", r + 1, m[4], m[5],
                        m[6], m[7]);
  }
  *n = grid * (double)nroofs;
  if (*n > 1e12) return dlb_fail(DLB_EINVAL, "compiled sweep: %.3g configurations in one call", *n);
  return DLB_OK;
}

/* See dlb_sweep.h: a kept block from stored values, as dlb_sweep_eval keeps one. */
int dlb_sweep_keep(const dlb_sweep_prog *p, size_t nvalues_n, const double *nvalues,
                   size_t nvals, const double *values, size_t nroofs, const dlb_roof *roofs,
                   const double *mem, size_t ntags, const double *tags, int per_mask,
                   double first_index, dlb_reduce *sink, size_t len, const char *text) {
  size_t voff[DLB_POLY_MAXVARS + 1], nval[DLB_POLY_MAXVARS + 1];
  double n = 0;
  int s = check_grid(p, nvalues_n, nvalues, nvals, values, nroofs, roofs, mem, ntags, tags,
                     per_mask, sink, nval, voff, &n);
  if (s) return s;
  if ((double)len != n * 16 * DLB_SWK_COUNT || (len > 0 && !text))
    return dlb_fail(DLB_EINVAL, "compiled sweep: %zu characters of stored values for %.0f "
                    "configurations (%d each)", len, n, 16 * DLB_SWK_COUNT);
  double *kept = NULL;
  if ((s = dlb_reduce_keep_block(sink, p, nval, voff, values, nroofs, roofs, mem, ntags, tags,
                                 per_mask, first_index, (size_t)n, &kept)))
    return s;
  if (!kept) return dlb_fail(DLB_EINVAL, "compiled sweep: the reductions keep no rows");
  if ((s = dlb_sweep_unhex(text, (size_t)n * DLB_SWK_COUNT, kept))) {
    dlb_reduce_drop_block(sink);
    return s;
  }
  return DLB_OK;
}

int dlb_sweep_eval(const dlb_sweep_prog *p, size_t nvalues_n, const double *nvalues,
                   size_t nvals, const double *values, size_t nroofs, const dlb_roof *roofs,
                   const double *mem, size_t ntags, const double *tags, int per_mask,
                   double first_index, dlb_reduce *sink, int threads, double *count) {
  if (count) *count = 0;
  size_t voff[DLB_POLY_MAXVARS + 1], nval[DLB_POLY_MAXVARS + 1];
  double n = 0;
  int st = check_grid(p, nvalues_n, nvalues, nvals, values, nroofs, roofs, mem, ntags, tags,
                      per_mask, sink, nval, voff, &n);
  if (st) return st;
  int nt = threads > 0 ? threads : dlb_sys_cores();
  if (nt < 1) nt = 1;
  if (nt > 64) nt = 64;
  if ((double)nt > n) nt = (int)n;
  /* kept rows: one compact block for the whole call, filled by the threads in place */
  double *kept = NULL;
  st = dlb_reduce_keep_block(sink, p, nval, voff, values, nroofs, roofs, mem, ntags, tags,
                             per_mask, first_index, (size_t)n, &kept);
  if (st) return st;
  job J[64];
  pthread_t th[64];
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  int turn = 0;
  for (int k = 0; k < nt; k++) {
    J[k] = (job){p, (size_t)p->nv, ntags, nroofs, nval, voff, values, tags, mem, roofs,
                 per_mask, first_index, floor(n * k / nt), floor(n * (k + 1) / nt), sink, kept,
                 &lock, &cond, k, &turn, DLB_OK, ""};
  }
  int started = 0;
  for (int k = 1; k < nt; k++) {
    if (pthread_create(&th[k], NULL, work, &J[k]) != 0) break;
    started = k;
  }
  /* threads that did not start run here, after the first share */
  work(&J[0]);
  for (int k = started + 1; k < nt; k++) work(&J[k]);
  for (int k = 1; k <= started; k++) pthread_join(th[k], NULL);
  for (int k = 0; k < nt; k++)
    if (J[k].status != DLB_OK) {
      if (kept) dlb_reduce_drop_block(sink);
      return dlb_fail(J[k].status, "%s", J[k].msg);
    }
  if (count) *count = n;
  return DLB_OK;
}
