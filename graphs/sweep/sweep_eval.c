/*
** sweep_eval.c — a compiled program run over a grid of configurations: each configuration's
** polynomials evaluated once, each op class timed through the one per-op rule
** (dlb_op_time_raw, graphs/hw/roofline.c) and counted by its multiplicity, or, with the
** device's host_op > 0, the step's ops run in order through the host-side timeline
** (dlb_timeline_op, graphs/hw/roofline_impl.h), the step's memory
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
#include "roofline_impl.h"
#include "sweep_impl.h"

/* -- the host-side timeline over the op order (d->host_op > 0) -- */

/* One repetition of the ops seq[0..n) (their device and host seconds in ct[c], ct[ncls + c])
** through the timeline from lag s = host - dev, in a frame where the device is free at 0
** (the timeline depends only on the lag: every rule in it is a max or a sum of clocks). */
static void rep_from(const int32_t *seq, size_t n, const double *ct, size_t ncls, double s,
                     dlb_timeline *r) {
  r->host = s, r->dev = 0, r->idle = 0, r->busy = 0;
  for (size_t i = 0; i < n; i++) dlb_timeline_op(r, ct[seq[i]], ct[ncls + seq[i]]);
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
static double idle_free(const int32_t *seq, size_t n, const double *ct, size_t ncls, double s0,
                        double a, double rem) {
  dlb_timeline r;
  double lo = 0, hi = rem, j = 0, step = 1;  /* all j < lo idle-free; the first with idle <= hi */
  for (;;) {
    if (j >= rem) { hi = rem; break; }
    rep_from(seq, n, ct, ncls, s0 + j * a, &r);
    if (r.idle > 0) { hi = j; break; }
    lo = j + 1;
    j += step;
    step *= 2;
  }
  while (lo < hi) {
    double m = floor((lo + hi) / 2);
    rep_from(seq, n, ct, ncls, s0 + m * a, &r);
    if (r.idle > 0) hi = m; else lo = m + 1;
  }
  return lo;
}

/* A repeated segment run `count` times through the timeline G, with an exact early exit.
** Per op the lag s = host - dev moves as s' = min(s + h, 0) - t, so a repetition maps the lag
** by s' = min(s + A, B) (A: its host minus device seconds; B: a constant): after a
** repetition that left the lag where it found it (a fixed point), or left the device no
** idle second while the lag did not rise (every later repetition starts lower, so idles no
** more: none), every further repetition moves every clock as this one did, so they are
** multiplied; while the lag rises without idle, the repetitions before the first that idles
** are counted (idle_free) and multiplied. A repetition that idles ends at B, so at most a
** few run op by op. Fixed points are compared within 1e-13 of the repetition's span (the
** rounding of clocks that are sums of many ops). */
static void run_reps(dlb_timeline *G, const int32_t *seq, size_t n, const double *ct,
                     size_t ncls, double count) {
  double rem = count;
  while (rem > 0) {
    double s = G->host - G->dev;
    dlb_timeline r;
    rep_from(seq, n, ct, ncls, s, &r);
    add_reps(G, &r, s, 1);
    if (--rem <= 0) break;
    double so = r.host - r.dev, tol = 1e-13 * (r.dev + fabs(s) + fabs(r.host));
    if (fabs(so - s) <= tol || (r.idle == 0 && so <= s)) {
      add_reps(G, &r, s, rem);
      break;
    }
    if (r.idle == 0) {
      double k = idle_free(seq, n, ct, ncls, so, so - s, rem);
      add_reps(G, &r, s, k);
      rem -= k;
    }
  }
}

/* The end of the step's timeline: the segments in order, a repeated one layers - ordL + 1
** times (as roofline_ops in roofline.c runs the analysis's ops, dlb_opcosts_from_analysis
** order: the step's ops as dlb_graph_step orders them, which the program's order keeps). */
static double timeline_end(const dlb_sweep_prog *p, const double *ct, double layers) {
  dlb_timeline G = {0, 0, 0, 0};
  for (size_t k = 0; k < p->nseg; k++) {
    const int32_t *seq = p->ord + p->sego[k];
    size_t n = (size_t)p->segn[k];
    if (p->segr[k]) run_reps(&G, seq, n, ct, p->ncls, layers - p->ordL + 1);
    else
      for (size_t i = 0; i < n; i++) dlb_timeline_op(&G, ct[seq[i]], ct[p->ncls + seq[i]]);
  }
  return dlb_timeline_end(&G);
}

/* The per-op roofline of one point; see sweep_impl.h. As dlb.roofline.time over the op-cost
** set of an analysis (roofline_ops in roofline.c, dlb_opcosts_from_analysis): bytes scaled
** by d->bytes_scale, empty matmuls timed without a shape, an op that does no work costs
** the host nothing, d->step_overhead added once. */
void dlb_sweep_roof(const dlb_sweep_prog *p, const double *vals, const double *pv,
                    const dlb_roof *d, double *ct, double *time, double *flops, double *bytes,
                    double *mbtime) {
  const double scale = d->bytes_scale > 0 ? d->bytes_scale : 1;
  const int host = d->host_op > 0;
  double tt = 0, tf = 0, tb = 0, tm = 0;
  for (size_t i = 0; i < p->ncls; i++) {
    const swclass *c = &p->cls[i];
    double m = pv[c->mult], f = pv[c->f], b = pv[c->b] * scale;
    ct[i] = ct[p->ncls + i] = 0;
    if ((m == 0 && !host) || (f <= 0 && b <= 0)) continue;
    double g[4];
    const double *gp = NULL;
    if (c->g[0] >= 0) {
      g[0] = pv[c->g[0]], g[1] = pv[c->g[1]], g[2] = pv[c->g[2]], g[3] = pv[c->g[3]];
      if (g[0] > 0 && g[1] > 0 && g[2] > 0 && g[3] > 0) gp = g;
    }
    int mb;
    double t = dlb_op_time_raw(d, f, b, gp, c->attn, &mb);
    ct[i] = t, ct[p->ncls + i] = d->host_op;
    tt += m * t, tf += m * f, tb += m * b;
    if (mb) tm += m * t;
  }
  if (host) tt = timeline_end(p, ct, p->layered ? vals[p->nv - 1] : 1);
  if (d->step_overhead > 0) tt += d->step_overhead;
  *time = tt, *flops = tf, *bytes = tb, *mbtime = tm;
}

int dlb_sweep_check_roof(const dlb_sweep_prog *p, const dlb_roof *d, size_t which,
                         const double *Ls, size_t nL) {
  char dev[48] = "";
  if (which > 0) snprintf(dev, sizeof dev, "device %zu: ", which);
  if (d->cache_aware)
    return dlb_fail(DLB_EINVAL, "compiled sweep: %scache_aware devices are not compiled (time "
                    "them with dlb.roofline.time)", dev);
  if (!(d->host_op > 0)) return DLB_OK;
  if (!p->order_ok)
    return dlb_fail(DLB_EINVAL, "compiled sweep: %shost_op = %g s per op needs the step's op "
                    "order, and %s (time it with dlb.roofline.time, or sweep layers as a "
                    "structure dim: dlb.sweep.model's layers = false)", dev, d->host_op,
                    p->order_msg);
  for (size_t i = 0; p->layered && Ls && i < nL; i++)
    if (Ls[i] < p->ordL - 1)
      return dlb_fail(DLB_EINVAL, "compiled sweep: %shost_op > 0 times the step's ops in order, "
                      "which the program knows from layers = %g up; layers = %g is below",
                      dev, p->ordL - 1, Ls[i]);
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
  pthread_mutex_t *lock;
  int status;
  char msg[512];
} job;

enum { BATCH = 512 };

/* One thread's share of the grid. Its scratch and its reductions are allocated in the
** thread (the C library's allocator: the allocator and the live count of alloc.c are per
** thread) and freed there; only the merge into the caller's reductions, under the lock,
** grows blocks the caller owns (their growth is counted in this thread, not the caller's). */
static void *work(void *arg) {
  job *J = arg;
  const dlb_sweep_prog *p = J->p;
  size_t nv = J->nv, ncol = J->ntags + nv + 1 + DLB_SWC_COUNT;
  double *mv = dlb_malloc((p->nmono + 1) * sizeof *mv), *pv = dlb_malloc((p->npoly + 1) * sizeof *pv);
  double *rows = dlb_malloc(BATCH * ncol * sizeof *rows);
  double *ct = dlb_malloc((2 * p->ncls + 1) * sizeof *ct);
  dlb_reduce *local = J->sink ? dlb_reduce_like(J->sink) : NULL;
  if (!mv || !pv || !rows || !ct || (J->sink && !local)) {
    J->status = DLB_ENOMEM;
    snprintf(J->msg, sizeof J->msg, "compiled sweep: out of memory");
    goto done;
  }
  double vals[DLB_POLY_MAXVARS];
  size_t grid = 1;
  for (size_t v = 0; v < nv; v++) grid *= J->nvalues[v];
  size_t nb = 0;
  double bstart = J->lo;
  for (double x = J->lo; x < J->hi; x += 1) {
    size_t idx = (size_t)x, ri = idx / grid, rest = idx % grid;
    for (size_t v = nv; v-- > 0;) {
      vals[v] = J->values[J->voff[v] + rest % J->nvalues[v]];
      rest /= J->nvalues[v];
    }
    const dlb_roof *d = &J->roofs[ri];
    const double *mm = J->mem + 4 * ri;
    dlb_sweep_values(p, vals, mv, pv);
    double *r = rows + nb * ncol;
    for (size_t k = 0; k < J->ntags; k++) r[k] = J->tags[k];
    for (size_t v = 0; v < nv; v++) r[J->ntags + v] = vals[v];
    r[J->ntags + nv] = (double)ri;
    double *o = r + J->ntags + nv + 1;
    double t, f, b, mbt;
    dlb_sweep_roof(p, vals, pv, d, ct, &t, &f, &b, &mbt);
    double scale = d->bytes_scale > 0 ? d->bytes_scale : 1;
    double W = pv[p->tot[DLB_SWT_WEIGHTS]] * scale, O = pv[p->tot[DLB_SWT_OPTIMIZER]] * scale;
    double A = pv[p->tot[DLB_SWT_STASH]] * scale, G = pv[p->tot[DLB_SWT_TRAINABLE]] * mm[2] * scale;
    double need = 0;
    if (dlb_step_memory((int)mm[0], W, G, O, A, mm[1], &need) != DLB_OK || !isfinite(t)) {
      J->status = DLB_ENUMERIC;
      snprintf(J->msg, sizeof J->msg, "compiled sweep: configuration %.0f: %s", J->first + x,
               isfinite(t) ? dlb_last_error() : "the step's time overflows");
      goto done;
    }
    o[DLB_SWC_TIME] = t;
    o[DLB_SWC_FLOPS] = f;
    o[DLB_SWC_BYTES] = b;
    o[DLB_SWC_PARAMS] = pv[p->tot[DLB_SWT_PARAMS]];
    o[DLB_SWC_MEMORY] = need;
    o[DLB_SWC_FITS] = need <= mm[3] ? 1 : 0;
    o[DLB_SWC_UTIL] = t > 0 ? f / (t * d->peak) : 0;
    o[DLB_SWC_MEMORY_BOUND_TIME] = mbt;
    o[DLB_SWC_FLOPS_FWD] = pv[p->tot[DLB_SWT_FLOPS_FWD]];
    o[DLB_SWC_FLOPS_BWD] = pv[p->tot[DLB_SWT_FLOPS_BWD]];
    o[DLB_SWC_ACTIVATIONS] = A;
    double bound = 0;
    dlb_step_memory((int)mm[0], W, G, O, pv[p->tot[DLB_SWT_ACT_ALL]] * scale, mm[1], &bound);
    o[DLB_SWC_MEMORY_BOUND] = bound;
    double units = 1;
    for (size_t v = 0; v < nv; v++) if (J->per >> v & 1) units *= vals[v];
    o[DLB_SWC_THROUGHPUT] = t > 0 ? units / t : 0;
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
  if (local) {
    pthread_mutex_lock(J->lock);
    if (dlb_reduce_merge(J->sink, local) != DLB_OK) {
      J->status = dlb_last_status();
      snprintf(J->msg, sizeof J->msg, "%s", dlb_last_error());
    }
    pthread_mutex_unlock(J->lock);
  }
done:
  dlb_reduce_free(local);
  dlb_free(mv); dlb_free(pv); dlb_free(rows); dlb_free(ct);
  return NULL;
}

int dlb_sweep_eval(const dlb_sweep_prog *p, size_t nvalues_n, const double *nvalues,
                   size_t nvals, const double *values, size_t nroofs, const dlb_roof *roofs,
                   const double *mem, size_t ntags, const double *tags, int per_mask,
                   double first_index, dlb_reduce *sink, int threads, double *count) {
  if (count) *count = 0;
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
  size_t voff[DLB_POLY_MAXVARS + 1], nval[DLB_POLY_MAXVARS + 1], total = 0;
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
    const double *m = mem + 4 * r;
    if (!(m[0] == DLB_MEM_FRAMEWORK || m[0] == DLB_MEM_MINIMAL) || !(m[1] >= 0) ||
        !(m[2] >= 0) || !(m[3] >= 0))
      return dlb_fail(DLB_EINVAL, "compiled sweep: device %zu: memory rule {schedule, slack, "
                      "gradient bytes, capacity} = {%g, %g, %g, %g} is invalid", r + 1, m[0],
                      m[1], m[2], m[3]);
  }
  double n = grid * (double)nroofs;
  if (n > 1e12) return dlb_fail(DLB_EINVAL, "compiled sweep: %.3g configurations in one call", n);
  int nt = threads > 0 ? threads : dlb_sys_cores();
  if (nt < 1) nt = 1;
  if (nt > 64) nt = 64;
  if ((double)nt > n) nt = (int)n;
  job J[64];
  pthread_t th[64];
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  for (int k = 0; k < nt; k++) {
    J[k] = (job){p, (size_t)p->nv, ntags, nroofs, nval, voff, values, tags, mem, roofs,
                 per_mask, first_index, floor(n * k / nt), floor(n * (k + 1) / nt), sink, &lock, DLB_OK, ""};
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
    if (J[k].status != DLB_OK) return dlb_fail(J[k].status, "%s", J[k].msg);
  if (count) *count = n;
  return DLB_OK;
}
