/*
** roofline_graph.c — op-cost sets from a graph analysis (graphs/ir/dlb_graph.h): each op's
** FLOPs and bytes, the matmul shape of matmul-like ops for the cache-aware model, and
** which ops are fused attention kernels (timed at the device's attn_eff) and GEMMs of the
** output layer (at its head_peak when set).
*/
#include "dlb_graph.h"
#include "dlb_roofline.h"
#include "dlb_runtime.h"
#include "roofline_impl.h"

/* A new op-cost set holding the ops of an analysed step; NULL with a message on failure. */
dlb_opcosts *dlb_opcosts_from_analysis(const dlb_analysis *a) {
  if (a == NULL) return dlb_fail_null(DLB_EINVAL, "op costs: analysis is NULL");
  size_t n = dlb_analysis_nops(a);
  dlb_opcosts *c = dlb_opcosts_new(n, dlb_analysis_op_flops(a), dlb_analysis_op_bytes(a));
  if (c == NULL) return NULL;
  dlb_opcosts_mark_step(c);   /* a step's ops: the step-level terms join its time */
  const int *kernel = dlb_analysis_op_kernel(a);
  const double *more = dlb_analysis_op_more(a);   /* 2 per op */
  for (size_t i = 0; i < n; i++) {
    double g[4];
    if ((kernel[i] == DLB_KERNEL_ATTENTION || kernel[i] == DLB_KERNEL_HEAD) &&
        dlb_opcosts_mark_kind(c, i, kernel[i]) != DLB_OK) {
      dlb_opcosts_free(c);
      return NULL;
    }
    if ((more[2 * i] > 0 || more[2 * i + 1] > 0) &&
        dlb_opcosts_set_more(c, i, more[2 * i], more[2 * i + 1]) != DLB_OK) {
      dlb_opcosts_free(c);
      return NULL;
    }
    int st = dlb_analysis_op_gemm(a, i, g);
    if (st == DLB_ENOTFOUND) continue;
    if (st == DLB_OK) {
      if (g[0] <= 0 || g[1] <= 0 || g[2] <= 0 || g[3] <= 0) continue; /* an empty matmul */
      st = dlb_opcosts_set_gemm(c, i, g[0], g[1], g[2], g[3]);
    }
    if (st != DLB_OK) {
      dlb_opcosts_free(c);
      return dlb_fail_null(st, "op costs: op %zu of the analysis: %s", i + 1, dlb_last_error());
    }
  }
  /* the optimizer step: the update phase's ops of every layer that updates Adam / AdamW
  ** tensors (the ops the planner's launch model times: dlb_layer_update over the layers with
  ** upd_tensors, graphs/parallel/planner.c), and those tensors with their chunks */
  /* the groups of dlb_analysis_update_tensors: the layers, or in a graph without layer scopes
  ** the whole step (group 0: the framework launches over every trainable tensor) */
  size_t nl = dlb_analysis_nlayers(a), ng = nl ? nl : 1;
  const int *phase = dlb_analysis_op_phase(a), *layer = dlb_analysis_op_layer(a);
  double ut = 0, uc = 0;
  char *has = dlb_calloc(ng + 1, 1);
  if (has == NULL) {
    dlb_opcosts_free(c);
    return dlb_fail_null(DLB_ENOMEM, "op costs: out of memory");
  }
  for (size_t l = 0; l < ng; l++) {
    double u[2];
    int st = dlb_analysis_update_tensors(a, l, dlb_optim_chunk(), u);
    if (st != DLB_OK) {
      dlb_free(has);
      dlb_opcosts_free(c);
      return dlb_fail_null(st, "op costs: layer %zu of the analysis: %s", l + 1, dlb_last_error());
    }
    has[l] = u[0] > 0;
    ut += u[0], uc += u[1];
  }
  /* every update op is of the phase (dlb_step_time runs it after the backward): a launch
  ** model's op (DLB_UPD_LAUNCH) in a layer with such tensors, else one of its own */
  for (size_t i = 0; i < n; i++) {
    if (phase[i] != DLB_PHASE_UPDATE) continue;
    int gi = nl ? layer[i] : 0;
    int kind = ut > 0 && gi >= 0 && (size_t)gi < ng && has[gi] ? DLB_UPD_LAUNCH : DLB_UPD_OPS;
    if (dlb_opcosts_mark_update(c, i, kind) != DLB_OK) {
      dlb_free(has);
      dlb_opcosts_free(c);
      return NULL;
    }
  }
  dlb_free(has);
  dlb_opcosts_set_update_tensors(c, ut, uc);
  /* where the step's passes and its layers' forwards begin (dlb_step_marks): the host model's
  ** phase syncs and per-layer host seconds */
  const double *fl = dlb_analysis_op_flops(a), *by = dlb_analysis_op_bytes(a);
  char *costed = dlb_malloc(n + 1);
  unsigned char *mk = dlb_malloc(n + 1), *scr = dlb_malloc(2 * nl + 1);
  int ok = costed != NULL && mk != NULL && scr != NULL;
  if (ok) {
    for (size_t i = 0; i < n; i++) costed[i] = fl[i] > 0 || by[i] > 0;
    dlb_step_marks(n, phase, layer, costed, nl, scr, mk);
    ok = dlb_opcosts_set_marks(c, mk) == DLB_OK;
  } else {
    dlb_fail(DLB_ENOMEM, "op costs: out of memory");
  }
  dlb_free(costed); dlb_free(mk); dlb_free(scr);
  if (!ok) {
    dlb_opcosts_free(c);
    return NULL;
  }
  return c;
}
