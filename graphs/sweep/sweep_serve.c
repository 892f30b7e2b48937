/*
** sweep_serve.c — serving's step model over a compiled program (dlb_sweep_prog_serve): a
** serving step graph (lua/dlbench/serve_graph.lua: prefill or decode, its kernels' costs
** polynomials in the batch b, the context p and the experts a step touches u) compiled as
** the training sweeps compile a step (sweep_compile.c), then timed per configuration as
** serve_graph.lua's time_list times a step's entries: the attention kernels on their own
** device, the rest on the compute dtype's, each kernel at least the launch interval when
** launches overlap. The collectives (zero-work classes here) and the step overhead are the
** caller's (docs/serve.md "The compiled sweep").
*/
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "dlb_roofline.h"
#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "roofline_impl.h"
#include "sweep_impl.h"

/* Why a device cannot be compiled; see dlb_sweep.h. The host model (host_op, host_layer)
** needs the step's ops in issue order and its layers' marks, which the compiled classes do
** not keep. */
const char *dlb_sweep_serve_refusal(const dlb_roof *d) {
  if (!d) return NULL;
  if (d->cache_aware) return "cache_aware";
  if (d->host_op > 0) return "host_op > 0";
  if (d->host_layer > 0) return "host_layer > 0";
  return NULL;
}

/* Serving's step model at one point; see dlb_sweep.h. */
int dlb_sweep_prog_serve(const dlb_sweep_prog *p, const double *vals, const dlb_roof *op,
                         const dlb_roof *attn, double min_time, double *out) {
  if (!p || !p->finished) return dlb_fail(DLB_EINVAL, "compiled serving step: the program is not finished");
  if (!vals || !op || !attn || !out)
    return dlb_fail(DLB_EINVAL, "compiled serving step: values, devices and out are required");
  if (p->layered)
    return dlb_fail(DLB_EINVAL, "compiled serving step: the program is layered (a serving step "
                    "graph holds its layers; compile it unlayered)");
  for (int v = 0; v < p->nv; v++)
    if (!(isfinite(vals[v]) && vals[v] >= 0))
      return dlb_fail(DLB_EINVAL, "compiled serving step: %s = %.17g must be finite and >= 0",
                      p->vars[v], vals[v]);
  if (!(isfinite(min_time) && min_time >= 0))
    return dlb_fail(DLB_EINVAL, "compiled serving step: min_time = %g must be finite and >= 0",
                    min_time);
  const dlb_roof *dv[2] = { op, attn };
  static const char *const which[2] = { "op", "attn" };
  for (int k = 0; k < 2; k++) {
    int st = dlb_roof_check(dv[k]);
    if (st) return dlb_fail(st, "compiled serving step: device %s: %s", which[k], dlb_last_error());
    const char *why = dlb_sweep_serve_refusal(dv[k]);
    if (why)
      return dlb_fail(DLB_EINVAL, "compiled serving step: device %s: %s is not compiled (time "
                      "the step with dlb.serve.time)", which[k], why);
  }
  size_t n = p->ncls;
  double *mv = dlb_malloc((p->nmono + p->npoly + 10 * n + 2) * sizeof *mv);
  if (!mv) return dlb_fail(DLB_ENOMEM, "compiled serving step: out of memory");
  double *pv = mv + p->nmono, *f = pv + p->npoly, *b = f + n, *g = b + n, *m = g + 4 * n,
         *mm = m + n, *work = mm + n;
  dlb_sweep_values(p, vals, mv, pv);
  dlb_sweep_class_costs(p, pv, f, b, g, m);
  memset(out, 0, DLB_SVT_COUNT * sizeof *out);
  out[DLB_SVT_ATTN_FLOPS] = out[DLB_SVT_ATTN_BYTES] = NAN;
  int st = DLB_OK;
  /* side 0: the other kernels on op; side 1: the attention kernels on attn; each class's
  ** device seconds from the one step model (work[i]), then the launch floor per op */
  for (int side = 0; side < 2 && st == DLB_OK; side++) {
    for (size_t i = 0; i < n; i++) mm[i] = ((p->attn[i] == DLB_KERNEL_ATTENTION) == side) ? m[i] : 0;
    dlb_step_ops s = { .n = n, .flops = f, .bytes = b, .gemm = g, .attn = p->attn,
                       .xops = p->xops, .xkern = p->xkern, .mult = mm,
                       .step = 0 };
    dlb_roof_result r;
    st = dlb_step_time(dv[side], &s, work, NULL, NULL, &r);
    if (st) break;
    for (size_t i = 0; i < n; i++) {
      if (mm[i] == 0) continue;
      double t = work[i];
      int does = f[i] > 0 || b[i] > 0;
      if (does) {
        if (t < min_time) t = min_time;
        out[DLB_SVT_KERNELS] += mm[i];
      }
      out[DLB_SVT_TIME] += mm[i] * t;
      out[DLB_SVT_FLOPS] += mm[i] * f[i];
      out[DLB_SVT_BYTES] += mm[i] * b[i];
      if (side == 1) {
        out[DLB_SVT_ATTN_TIME] += mm[i] * t;
        out[DLB_SVT_ATTN_CLASSES] += 1;
        out[DLB_SVT_ATTN_FLOPS] = f[i], out[DLB_SVT_ATTN_BYTES] = b[i];
        out[DLB_SVT_ATTN_OPS] += mm[i];
      }
    }
  }
  dlb_free(mv);
  if (st) return dlb_fail(st, "compiled serving step: %s", dlb_last_error());
  if (!isfinite(out[DLB_SVT_TIME]))
    return dlb_fail(DLB_ENUMERIC, "compiled serving step: the step's time overflows");
  return DLB_OK;
}
