/*
** sweep_point.c — a finished compiled program (sweep_compile.c) at one point of its swept
** dims: the monomials and every pooled polynomial's value (each evaluated once), the
** polynomials a kept row's memory columns read, the step's totals and its time on one
** device through the one step model (dlb_sweep_roof, sweep_eval.c).
*/
#include <math.h>
#include <stdlib.h>

#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "sweep_impl.h"

/* The monomials at a point; pooled polynomial i from them (the one evaluation of each). */
static void monos_at(const dlb_sweep_prog *p, const double *vals, double *mv) {
  for (size_t m = 0; m < p->nmono; m++) {
    uint64_t k = p->mono[m];
    double x = 1;
    for (int v = 0; k; v++, k >>= 4)
      for (int e = (int)(k & 15); e > 0; e--) x *= vals[v];
    mv[m] = x;
  }
}
static inline double poly_at(const dlb_sweep_prog *p, const double *mv, size_t i) {
  double s = 0;
  for (int32_t j = p->poff[i]; j < p->poff[i + 1]; j++) s += p->tc[j] * mv[p->tm[j]];
  return s;
}

void dlb_sweep_values(const dlb_sweep_prog *p, const double *vals, double *mv, double *pv) {
  monos_at(p, vals, mv);
  for (size_t i = 0; i < p->npoly; i++) pv[i] = poly_at(p, mv, i);
}

void dlb_sweep_values_of(const dlb_sweep_prog *p, const double *vals, double *mv, double *pv,
                         const int32_t *ids, size_t n) {
  monos_at(p, vals, mv);
  for (size_t i = 0; i < n; i++) pv[ids[i]] = poly_at(p, mv, (size_t)ids[i]);
}

size_t dlb_sweep_memcol_polys(const dlb_sweep_prog *p, int32_t *ids) {
  static const int tots[] = {DLB_SWT_PARAMS, DLB_SWT_TRAINABLE, DLB_SWT_FLOPS_FWD,
                             DLB_SWT_FLOPS_BWD, DLB_SWT_WEIGHTS, DLB_SWT_OPTIMIZER,
                             DLB_SWT_STASH, DLB_SWT_ACT_ALL, DLB_SWT_OPT_STATES,
                             DLB_SWT_LOGITS};
  size_t n = 0;
  for (size_t i = 0; i < sizeof tots / sizeof *tots; i++) {
    if (ids) ids[n] = p->tot[tots[i]];
    n++;
  }
  if (p->peak_ok)
    for (int32_t q = 0; q < p->pkoff[p->nseg]; q++)
      for (int w = 0; w < 8; w++) {
        int32_t id = p->pk[8 * (size_t)p->pkpos[q] + (size_t)w];
        if (id < 0) continue;
        if (ids) ids[n] = id;
        n++;
      }
  return n;
}

/* Check a point: finished program, finite positive values. */
static int check_point(const dlb_sweep_prog *p, const double *vals) {
  if (!p || !p->finished) return dlb_fail(DLB_EINVAL, "compiled sweep: the program is not finished");
  if (!vals) return dlb_fail(DLB_EINVAL, "compiled sweep: values are NULL");
  for (int v = 0; v < p->nv; v++)
    if (!(isfinite(vals[v]) && vals[v] >= 1 && vals[v] == floor(vals[v])))
      return dlb_fail(DLB_EINVAL, "compiled sweep: %s = %.17g must be a positive integer (it is "
                      "a dim)", p->vars[v], vals[v]);
  return DLB_OK;
}

int dlb_sweep_prog_totals(const dlb_sweep_prog *p, const double *vals, double *out) {
  int st = check_point(p, vals);
  if (st) return st;
  if (!out) return dlb_fail(DLB_EINVAL, "compiled sweep: out is NULL");
  double *mv = dlb_malloc((p->nmono + 1) * sizeof *mv), *pv = dlb_malloc((p->npoly + 1) * sizeof *pv);
  if (!mv || !pv) { dlb_free(mv); dlb_free(pv); return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"); }
  dlb_sweep_values(p, vals, mv, pv);
  for (int k = 0; k < DLB_SWT_COUNT; k++) out[k] = pv[p->tot[k]];
  double at_peak;
  dlb_sweep_peak(p, vals, pv, &out[DLB_SWT_PEAK], &at_peak, &out[DLB_SWT_PEAK_ACT]);
  dlb_free(mv); dlb_free(pv);
  return DLB_OK;
}

int dlb_sweep_prog_time(const dlb_sweep_prog *p, const double *vals, const dlb_roof *d,
                        double *time, double *flops, double *bytes, double *mbtime) {
  int st = check_point(p, vals);
  if (st) return st;
  if (!time || !flops || !bytes || !mbtime) return dlb_fail(DLB_EINVAL, "compiled sweep: an out pointer is NULL");
  if ((st = dlb_roof_check(d))) return st;
  if ((st = dlb_sweep_check_roof(p, d, 0, p->layered ? &vals[p->nv - 1] : NULL, 1))) return st;
  double *mv = dlb_malloc((p->nmono + 1) * sizeof *mv), *pv = dlb_malloc((p->npoly + 1) * sizeof *pv);
  double *ct = dlb_calloc(dlb_sweep_scratch(p), sizeof *ct);
  if (!mv || !pv || !ct) {
    dlb_free(mv); dlb_free(pv); dlb_free(ct);
    return dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
  }
  dlb_sweep_values(p, vals, mv, pv);
  dlb_roof_result r;
  st = dlb_sweep_roof(p, vals, pv, d, ct, &r);
  dlb_free(mv); dlb_free(pv); dlb_free(ct);
  if (st) return dlb_fail(st, "compiled sweep: %s", dlb_last_error());
  *time = r.time, *flops = r.flops, *bytes = r.bytes, *mbtime = r.memory_bound_time;
  return DLB_OK;
}
