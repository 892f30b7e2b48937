/*
** step_time.c — the one step model (roofline_impl.h, dlb_step_time): a step's ops, each
** through the per-op rule (dlb_op_time_raw), issued in order through the host-side timeline
** (dlb_timeline), and the step-level terms (the device's step_overhead) at the end. The
** per-configuration path (dlb.roofline.time: roofline_ops over an op-cost set) and the
** compiled sweep (graphs/sweep/sweep_eval.c, one call per configuration) both call it, so a
** mechanism added here is written once.
*/
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "dlb_graph.h"
#include "dlb_roofline.h"
#include "dlb_runtime.h"
#include "roofline_impl.h"

/* The result of a sum over ops; see roofline_impl.h. */
int dlb_sum_result(const dlb_roof *d, double tf, double tb, double tt, double tmem,
                   double nmem, const char *what, dlb_roof_result *out) {
  out->flops = tf;
  out->bytes = tb;
  out->compute_time = tf / (d->peak * d->flops_eff);
  out->memory_time = tb / (d->bw * d->bw_eff);
  if (!isfinite(tt) || !isfinite(out->compute_time) || !isfinite(out->memory_time))
    return dlb_fail(DLB_ENUMERIC, "%s overflows", what);
  out->time = tt;
  out->util = tt > 0 ? tf / (tt * d->peak) : 0;
  out->bound = out->memory_time > out->compute_time ? DLB_BOUND_MEMORY : DLB_BOUND_COMPUTE;
  out->memory_bound_time = tmem;
  out->n_memory_bound = nmem;
  out->host_idle = out->host_time = out->update_time = 0;
  return DLB_OK;
}

/* One op (or op class) i of s through the per-op rule: its bytes scaled by d->bytes_scale
** (and, on a cache_aware device, raised to its matmul's tiled traffic), its device seconds
** in *t, its host seconds in *h (d->host_op, nothing for an op that does no work). *f, *b:
** the FLOPs and (scaled) bytes it counts. */
static inline int op_work(const dlb_roof *d, const dlb_step_ops *s, size_t i, const char *unit,
                          double *f, double *b) {
  const double scale = d->bytes_scale > 0 ? d->bytes_scale : 1;
  double fl = s->flops[i], by = s->bytes[i];
  if (dlb_bad_cost(fl))
    return dlb_fail(DLB_EINVAL, "roofline: %s %zu has flops %g (need >= 0, finite)", unit, i + 1, fl);
  if (dlb_bad_cost(by))
    return dlb_fail(DLB_EINVAL, "roofline: %s %zu has bytes %g (need >= 0, finite)", unit, i + 1, by);
  double xo = s->xops != NULL ? s->xops[i] : 0, xk = s->xkern != NULL ? s->xkern[i] : 0;
  if (dlb_bad_more(xo) || dlb_bad_more(xk))
    return dlb_fail(DLB_EINVAL, "roofline: %s %zu has %g further host ops and %g further "
                    "kernels (need whole numbers, 0 to %d)", unit, i + 1, xo, xk, DLB_MORE_MAX);
  by *= scale;
  const double *g = s->gemm != NULL ? s->gemm + 4 * i : NULL;
  if (d->cache_aware && g != NULL && g[0] > 0) {
    double tr;
    int st = dlb_gemm_traffic_tiled(g[0], g[1], g[2], g[3], d->elem, d->cache, d->tile_m,
                                    d->tile_n, &tr);
    if (st != DLB_OK) return dlb_fail(st, "roofline: %s %zu: %s", unit, i + 1, dlb_last_error());
    if (tr > by) by = tr;
  }
  *f = fl, *b = by;
  return DLB_OK;
}

static inline int op_cost(const dlb_roof *d, const dlb_step_ops *s, size_t i, const char *unit,
                   double *f, double *b, double *t, double *h, int *mb) {
  int st = op_work(d, s, i, unit, f, b);
  if (st != DLB_OK) return st;
  const double *g = s->gemm != NULL ? s->gemm + 4 * i : NULL;
  /* its kernels (one, or a pass's eager ones around it) on the device and the host */
  double xo = s->xops != NULL ? s->xops[i] : 0, k = 1 + (s->xkern != NULL ? s->xkern[i] : 0);
  *t = dlb_launch_time(d, *f, *b, g, s->attn != NULL ? s->attn[i] : DLB_KERNEL_PLAIN, k,
                       mb);
  if (!isfinite(*t))
    return dlb_fail(DLB_ENUMERIC, "roofline: %s %zu's time overflows (%g FLOPs, %g bytes)",
                    unit, i + 1, *f, *b);
  *h = (*f > 0 || *b > 0) ? dlb_launch_host(d, 1 + xo, k) : 0;
  return DLB_OK;
}

/* The marks before an op (dlb_step_ops.mark): the phase's synchronisation point when the
** profile synchronises every phase, then the layer's Python (host_layer seconds, no device
** time), as the planner's layer segments and phases run (graphs/parallel/planner.c).
** *wait (may be NULL) gains the host's seconds waiting at the synchronisation point (its clock
** then runs ahead of what it issued: host_time is what it issued). */
static inline void step_mark(dlb_timeline *t, unsigned m, int phase_sync, double host_layer,
                             double *wait) {
  if ((m & DLB_MARK_PHASE) && phase_sync) {
    if (wait != NULL && t->dev > t->host) *wait += t->dev - t->host;
    dlb_timeline_sync(t);
  }
  if ((m & DLB_MARK_LAYER) && host_layer > 0) dlb_timeline_op(t, 0, host_layer);
}

/* Where a step's scopes begin; see roofline_impl.h. Passes: 0 forward, 1 backward and
** recomputation; an update op is of the pass it sits in (the analysis puts each weight's
** update after its gradient, inside the backward). */
void dlb_step_marks(size_t n, const int *phase, const int *layer, const char *costed, size_t nl,
                    unsigned char *scratch, unsigned char *mark) {
  unsigned char *has = scratch, *seen = scratch + nl;   /* bit 0 forward, bit 1 recompute */
  for (size_t l = 0; l < 2 * nl; l++) scratch[l] = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned b = phase[i] == DLB_PHASE_FWD ? 1 : phase[i] == DLB_PHASE_RECOMPUTE ? 2 : 0;
    if (b && costed[i] && layer[i] >= 0 && (size_t)layer[i] < nl) has[layer[i]] |= b;
  }
  int pass = -1;
  for (size_t i = 0; i < n; i++) {
    int ps = phase[i] == DLB_PHASE_FWD ? 0 : phase[i] == DLB_PHASE_UPDATE ? pass : 1;
    unsigned b = phase[i] == DLB_PHASE_FWD ? 1 : phase[i] == DLB_PHASE_RECOMPUTE ? 2 : 0;
    mark[i] = pass >= 0 && ps != pass ? DLB_MARK_PHASE : 0;
    pass = ps;
    if (b && layer[i] >= 0 && (size_t)layer[i] < nl && (has[layer[i]] & b) &&
        !(seen[layer[i]] & b)) {
      seen[layer[i]] |= b;
      mark[i] |= DLB_MARK_LAYER;
    }
  }
}

/* -- a repeated run of ops through the timeline (s->mult set, a host model) -- */

/* The classes' seconds and the step's marks for a run of ops: ct[c], ht[c] class c's device
** and host seconds; mk the marks of the run's positions (NULL: none). */
typedef struct tlrun {
  const double *ct, *ht;
  const double *xk;   /* class c's further kernels (NULL: none): issued kernel by kernel */
  const unsigned char *mk;
  int phase_sync;
  double host_layer;
} tlrun;

/* The ops seq[0..n) (marks mk[0..n)) through timeline t; *wait: see step_mark. */
static inline void run_ops(dlb_timeline *t, const tlrun *c, const int32_t *seq,
                           const unsigned char *mk, size_t n, double *wait) {
  for (size_t i = 0; i < n; i++) {
    if (mk != NULL && mk[i]) step_mark(t, mk[i], c->phase_sync, c->host_layer, wait);
    int32_t q = seq[i];
    if (c->xk != NULL && c->xk[q] > 0) dlb_timeline_kernels(t, c->ct[q], c->ht[q], 1 + c->xk[q]);
    else dlb_timeline_op(t, c->ct[q], c->ht[q]);
  }
}

/* One repetition of the ops seq[0..n) through the timeline from lag s = host - dev, in a
** frame where the device is free at 0 (the timeline depends only on the lag: every rule in
** it, a synchronisation point's too, is a max or a sum of clocks). */
static void rep_from(const tlrun *c, const int32_t *seq, const unsigned char *mk, size_t n,
                     double s, dlb_timeline *r, double *wait) {
  r->host = s, r->dev = 0, r->idle = 0, r->busy = 0;
  if (wait) *wait = 0;
  run_ops(r, c, seq, mk, n, wait);
}

/* k repetitions that each move the timeline as r did from lag s. */
static void add_reps(dlb_timeline *G, const dlb_timeline *r, double s, double k) {
  G->host += k * (r->host - s);
  G->dev += k * r->dev;
  G->idle += k * r->idle;
  G->busy += k * r->busy;
}

/* How many repetitions, of at most rem, from lags s0, s0 + a, s0 + 2a, ... leave the device
** no idle second (a > 0: the host falls behind by a each; the idle seconds of a repetition
** never fall as its starting lag rises, so these are the first ones): probed by
** repetitions of the rule, doubling then bisecting. */
static double idle_free(const tlrun *c, const int32_t *seq, const unsigned char *mk, size_t n,
                        double s0, double a, double rem) {
  dlb_timeline r;
  double lo = 0, hi = rem, j = 0, step = 1;  /* all j < lo idle-free; the first with idle <= hi */
  for (;;) {
    if (j >= rem) { hi = rem; break; }
    rep_from(c, seq, mk, n, s0 + j * a, &r, NULL);
    if (r.idle > 0) { hi = j; break; }
    lo = j + 1;
    j += step;
    step *= 2;
  }
  while (lo < hi) {
    double m = floor((lo + hi) / 2);
    rep_from(c, seq, mk, n, s0 + m * a, &r, NULL);
    if (r.idle > 0) hi = m; else lo = m + 1;
  }
  return lo;
}

/* A segment run `count` times in a row through the timeline G, with an exact early exit.
** Per op the lag s = host - dev moves as s' = min(s + h, 0) - t, so a repetition maps the lag
** by s' = min(s + A, B) (A: its host minus device seconds; B: a constant): after a
** repetition that left the lag where it found it (a fixed point), or left the device no
** idle second while the lag did not rise (every later repetition starts lower, so idles no
** more: none), every further repetition moves every clock as this one did, so they are
** multiplied; while the lag rises without idle, the repetitions before the first that idles
** are counted (idle_free) and multiplied. A repetition that idles ends at B, so at most a
** few run op by op. Fixed points are compared within 1e-13 of the repetition's span (the
** rounding of clocks that are sums of many ops). */
static void run_reps(dlb_timeline *G, const tlrun *c, const int32_t *seq,
                     const unsigned char *mk, size_t n, double count, double *wait) {
  if (count == 1) { /* once: op by op, as a fixed segment */
    run_ops(G, c, seq, mk, n, wait);
    return;
  }
  double rem = count;
  while (rem > 0) {
    double s = G->host - G->dev;
    dlb_timeline r;
    double w = 0;
    rep_from(c, seq, mk, n, s, &r, &w);
    add_reps(G, &r, s, 1);
    *wait += w;
    if (--rem <= 0) break;
    double so = r.host - r.dev, tol = 1e-13 * (r.dev + fabs(s) + fabs(r.host));
    if (fabs(so - s) <= tol || (r.idle == 0 && so <= s)) {
      add_reps(G, &r, s, rem);
      *wait += rem * w;
      break;
    }
    if (r.idle == 0) {
      double k = idle_free(c, seq, mk, n, so, so - s, rem);
      add_reps(G, &r, s, k);
      *wait += k * w;
      rem -= k;
    }
  }
}

/* The one step model; see roofline_impl.h. */
int dlb_step_time(const dlb_roof *d, const dlb_step_ops *s, double *work, double *op_time,
                  int *op_bound, dlb_roof_result *out) {
  if (s->n > 0 && (s->flops == NULL || s->bytes == NULL))
    return dlb_fail(DLB_EINVAL, "roofline: flops and bytes arrays are required");
  double tf = 0, tb = 0, tmem = 0, nmem = 0;
  dlb_timeline tl = { 0, 0, 0, 0 };   /* the host-side model: one stream, issued in order */
  /* the host model (host_op, host_layer) and the step's marks it reads (none when no mark
  ** can act: no phase syncs and no host_layer) */
  const int host = d->host_op > 0 || d->host_layer > 0;
  /* the update phase (s->upd, roofline_impl.h): an op under the launch model (s->optim) gives
  ** its FLOPs and scaled bytes (their time is the phase's, below: uf, ub, un); another one,
  ** with a host model, its own device and host seconds after the timeline (pdev, phost, pn:
  ** one kernel each, the planner's stream of a layer's update ops); without one it stays in
  ** place (the sum is the same) */
  const char *upd = s->upd;
  double uf = 0, ub = 0, un = 0, pdev = 0, phost = 0, pn = 0;
#define UPD_LAUNCHED(i) (upd != NULL && upd[i] == DLB_UPD_LAUNCH && s->optim != NULL)
#define UPD_AFTER(i) (upd != NULL && upd[i] != 0 && host && !UPD_LAUNCHED(i))
  const unsigned char *mk = host && (s->phase_sync || d->host_layer > 0) ? s->mark : NULL;
  double hwait = 0;   /* the host's seconds waiting at synchronisation points (step_mark) */
  int st;
  if (s->mult == NULL) {
    /* each op once, in order: the timeline runs as the ops are timed */
    for (size_t i = 0; i < s->n; i++) {
      double f = 0, b = 0, t = 0, h = 0;
      int mb = 0;
      if (UPD_LAUNCHED(i)) {   /* the launch model's update phase: after the timeline */
        if ((st = op_work(d, s, i, "op", &f, &b)) != DLB_OK) return st;
        tf += f, tb += b, uf += f, ub += b, un += 1;
        continue;
      }
      const int after = UPD_AFTER(i);
      if (!after && mk != NULL && mk[i]) step_mark(&tl, mk[i], s->phase_sync, d->host_layer, &hwait);
      if ((st = op_cost(d, s, i, "op", &f, &b, &t, &h, &mb)) != DLB_OK) return st;
      if (op_bound) op_bound[i] = mb ? DLB_BOUND_MEMORY : DLB_BOUND_COMPUTE;
      tf += f; tb += b;
      if (mb) { tmem += t; nmem += 1; }
      if (op_time) op_time[i] = t;
      if (after) pdev += t, phost += h, pn += 1;   /* its own kernels after the timeline */
      else dlb_timeline_kernels(&tl, t, h, 1 + (s->xkern != NULL ? s->xkern[i] : 0));
    }
  } else {
    /* op classes counted by their multiplicity; with a host model the ops in s->ord's order
    ** (s->mark per position) */
    double *ct = work, *ht = work + s->n, tt = 0;
    for (size_t i = 0; i < s->n; i++) {
      double m = s->mult[i], f = 0, b = 0, t = 0, h = 0;
      int mb = 0;
      ct[i] = ht[i] = 0;
      if (m == 0 && !host) continue;
      if (UPD_LAUNCHED(i)) {   /* the launch model's update phase (left out of s->ord) */
        if ((st = op_work(d, s, i, "op class", &f, &b)) != DLB_OK) return st;
        tf += m * f, tb += m * b, uf += m * f, ub += m * b, un += m;
        continue;
      }
      if ((st = op_cost(d, s, i, "op class", &f, &b, &t, &h, &mb)) != DLB_OK) return st;
      tf += m * f, tb += m * b;
      if (mb) { tmem += m * t; nmem += m; }
      if (UPD_AFTER(i)) {   /* its own kernels after the timeline (left out of s->ord) */
        pdev += m * t, phost += m * h, pn += m;
        continue;
      }
      ct[i] = t, ht[i] = h;
      tt += m * t;
    }
    if (host) {
      tlrun c = { ct, ht, s->xkern, mk, s->phase_sync, d->host_layer };
      /* the marks that act (a segment with none of them runs unmarked) */
      const unsigned act = (s->phase_sync ? DLB_MARK_PHASE : 0) |
                           (d->host_layer > 0 ? DLB_MARK_LAYER : 0);
      for (size_t k = 0; k < s->nseg; k++) {
        const unsigned char *m = mk != NULL && (s->segmk == NULL || (s->segmk[k] & act))
                               ? mk + s->sego[k] : NULL;
        run_reps(&tl, &c, s->ord + s->sego[k], m, (size_t)s->segn[k], s->rep[k], &hwait);
      }
    }
    else
      tl.dev = tl.busy = tt;   /* no host: the device runs op after op, never idle */
  }
  /* the step-level terms: the end of both timelines, the update phase from the
  ** synchronisation point there (the planner's update phase, graphs/parallel/planner.c), then
  ** the step's own overhead */
  double tt = dlb_timeline_end(&tl), ut = 0, udev = 0, uhost = 0;
  if (upd != NULL && s->optim != NULL) {
    /* the phase is memory-bound time when its launches are (each the per-op rule on an even
    ** share, as dlb_optim_time times them) */
    int mb = 0;
    ut = dlb_optim_time(d, s->optim, uf, ub, &udev, &uhost, &mb);
    if (!isfinite(ut))
      return dlb_fail(DLB_ENUMERIC, "roofline: the optimizer step's time overflows (%g FLOPs, "
                      "%g bytes, %g launches)", uf, ub, s->optim->launches);
    tt += ut;
    if (mb) { tmem += ut; nmem += un; }
    if (s->mult == NULL && (op_time != NULL || op_bound != NULL))
      for (size_t i = 0; i < s->n; i++) {   /* each update op: its bytes' share of the phase */
        if (!UPD_LAUNCHED(i)) continue;
        double f = 0, b = 0;
        (void)op_work(d, s, i, "op", &f, &b);   /* checked above */
        if (op_time) op_time[i] = ub > 0 ? ut * b / ub : ut / un;
        if (op_bound) op_bound[i] = mb ? DLB_BOUND_MEMORY : DLB_BOUND_COMPUTE;
      }
  }
  /* the other update ops from there: one kernel each, the device's and the host's seconds
  ** two streams (the planner's dlb_stream_time of a stage's update ops) */
  double pt = pn > 0 ? dlb_stream_time(pdev, phost) : 0;
  tt += pt;
  if (s->step && d->step_overhead > 0) tt += d->step_overhead;
  st = dlb_sum_result(d, tf, tb, tt, tmem, nmem, "roofline: the step's time", out);
  if (st != DLB_OK) return st;
  out->host_idle = tl.idle + (ut > udev ? ut - udev : 0) + (pt > pdev ? pt - pdev : 0);
  out->host_time = tl.host - hwait + uhost + phost;
  out->update_time = ut;   /* the launch model's phase (docs/frameworks.md) */
  return DLB_OK;
}
#undef UPD_LAUNCHED
#undef UPD_AFTER
