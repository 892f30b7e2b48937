/*
** sweep_eval.c — a compiled program run over a grid of configurations: each configuration's
** polynomials evaluated once, each op class timed through the one per-op rule
** (dlb_op_time_raw, graphs/hw/roofline.c) and counted by its multiplicity, the step's memory
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

/* The per-op roofline of one point; see sweep_impl.h. As dlb.roofline.time over the op-cost
** set of an analysis (roofline_ops in roofline.c, dlb_opcosts_from_analysis): bytes scaled
** by d->bytes_scale, empty matmuls timed without a shape, d->step_overhead added once. */
void dlb_sweep_roof(const dlb_sweep_prog *p, const double *pv, const dlb_roof *d, double *time,
                    double *flops, double *bytes, double *mbtime) {
  const double scale = d->bytes_scale > 0 ? d->bytes_scale : 1;
  double tt = 0, tf = 0, tb = 0, tm = 0;
  for (size_t i = 0; i < p->ncls; i++) {
    const swclass *c = &p->cls[i];
    double m = pv[c->mult], f = pv[c->f], b = pv[c->b] * scale;
    if (m == 0 || (f <= 0 && b <= 0)) continue;
    double g[4];
    const double *gp = NULL;
    if (c->g[0] >= 0) {
      g[0] = pv[c->g[0]], g[1] = pv[c->g[1]], g[2] = pv[c->g[2]], g[3] = pv[c->g[3]];
      if (g[0] > 0 && g[1] > 0 && g[2] > 0 && g[3] > 0) gp = g;
    }
    int mb;
    double t = dlb_op_time_raw(d, f, b, gp, c->attn, &mb);
    tt += m * t, tf += m * f, tb += m * b;
    if (mb) tm += m * t;
  }
  if (d->step_overhead > 0) tt += d->step_overhead;
  *time = tt, *flops = tf, *bytes = tb, *mbtime = tm;
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
  dlb_reduce *local = J->sink ? dlb_reduce_like(J->sink) : NULL;
  if (!mv || !pv || !rows || (J->sink && !local)) {
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
    dlb_sweep_roof(p, pv, d, &t, &f, &b, &mbt);
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
  dlb_free(mv); dlb_free(pv); dlb_free(rows);
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
    if (roofs[r].cache_aware)
      return dlb_fail(DLB_EINVAL, "compiled sweep: device %zu is cache_aware; the compiled "
                      "path does not model it (use dlb.roofline.time)", r + 1);
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
