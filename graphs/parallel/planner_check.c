/*
** planner_check.c — what a plan's inputs must be before any layout is evaluated: the
** options (whole batch, fractions in [0, 1], switches 0 or 1, the recompute and MoE
** policies), each layer's costs (non-negative and finite, frozen and expert parameters
** within the layer's), and the first layer a tensor degree does not split. Used by
** planner.c (one layout) and planner_search.c (the search).
*/
#include <math.h>

#include "dlb_parallel.h"
#include "dlb_roofline.h"
#include "collective_impl.h"
#include "planner_impl.h"
#include "dlb_runtime.h"

int dlb_par_whole(double x) {
  return x >= 1 && x == floor(x) && x < 1e12;
}

int dlb_par_check_inputs(const dlb_par_layer *L, int n, const dlb_roof *dev,
                         const dlb_par_cluster *cl, const dlb_par_opts *o) {
  if (!L || !dev || !cl || !o) return dlb_fail(DLB_EINVAL, "plan: missing argument");
  if (n < 1) return dlb_fail(DLB_EINVAL, "plan: the model has no layers");
  if (dlb_roof_check(dev)) return dlb_fail(DLB_EINVAL, "plan: %s", dlb_last_error());
  int st = dlb_par_cluster_check("plan", cl, 0);
  if (st) return st;
  if (o->batch >= 1e12 && isfinite(o->batch))   /* said apart: ">= 1, got 1e+300" misled */
    return dlb_fail(DLB_EINVAL, "plan: batch must be below 1e12 samples, got %g", o->batch);
  if (!dlb_par_whole(o->batch))
    return dlb_fail(DLB_EINVAL, "plan: batch must be a whole number of samples >= 1, got %g",
                    o->batch);
  if (!(o->overlap >= 0 && o->overlap <= 1))
    return dlb_fail(DLB_EINVAL, "plan: overlap must be in [0, 1], got %g", o->overlap);
  if (!(o->w_bytes >= 0 && o->g_bytes >= 0 && o->o_bytes >= 0))
    return dlb_fail(DLB_EINVAL, "plan: bytes per parameter must be >= 0");
  if (!(o->mem_schedule == DLB_MEM_FRAMEWORK || o->mem_schedule == DLB_MEM_MINIMAL))
    return dlb_fail(DLB_EINVAL, "plan: mem_schedule must be 0 (framework) or 1 (minimal), got %g",
                    o->mem_schedule);
  if (!(o->slack >= 0) || !isfinite(o->slack))
    return dlb_fail(DLB_EINVAL, "plan: slack must be a fraction >= 0, got %g", o->slack);
  if (!(o->fsdp_overlap >= 0 && o->fsdp_overlap <= 1))
    return dlb_fail(DLB_EINVAL, "plan: fsdp_overlap must be in [0, 1], got %g", o->fsdp_overlap);
  if (!(o->contention >= 0 && o->contention < 1))
    return dlb_fail(DLB_EINVAL, "plan: contention must be in [0, 1) (the fraction of the "
                    "compute's rate a collective beside it takes), got %g", o->contention);
  if (!(o->pp_scatter == 0 || o->pp_scatter == 1))
    return dlb_fail(DLB_EINVAL, "plan: pp_scatter must be 0 or 1 (pipeline sends scattered "
                    "over the tensor ranks and all-gathered), got %g", o->pp_scatter);
  if (!(o->tp_async == 0 || o->tp_async == 1))
    return dlb_fail(DLB_EINVAL, "plan: tp_async must be 0 or 1 (the backward's column-parallel "
                    "input-gradient collective beside its weight-gradient GEMM), got %g",
                    o->tp_async);
  if (!(o->nccl == 0 || o->nccl == 1))
    return dlb_fail(DLB_EINVAL, "plan: nccl must be 0 (alpha-beta collectives) or 1 (as NCCL "
                    "runs them), got %g", o->nccl);
  if (!(o->reduce_bytes >= 0) || !isfinite(o->reduce_bytes))
    return dlb_fail(DLB_EINVAL, "plan: reduce_bytes must be >= 0 (bytes per gradient element "
                    "reduced; 0: g_bytes), got %g", o->reduce_bytes);
  if (!(o->gather_tensors >= 0) || !isfinite(o->gather_tensors))
    return dlb_fail(DLB_EINVAL, "plan: gather_tensors must be >= 0, got %g", o->gather_tensors);
  if (!(o->capacity >= 0) || !isfinite(o->capacity))
    return dlb_fail(DLB_EINVAL, "plan: capacity (factor) must be >= 0 (0: dropless), got %g",
                    o->capacity);
  if (!(o->phase_sync == 0 || o->phase_sync == 1))
    return dlb_fail(DLB_EINVAL, "plan: phase_sync must be 0 (the host enters a phase ahead) or 1 "
                    "(host and device synchronised at every micro-batch phase: Megatron-LM's "
                    "timers), got %g", o->phase_sync);
  if (!(o->recompute_every >= 0 && o->recompute_every <= 1e6)
      || o->recompute_every != floor(o->recompute_every))
    return dlb_fail(DLB_EINVAL, "plan: recompute_every must be a whole number >= 0 (full "
                    "recompute checkpoints every k-th block; 0 or 1: every block), got %g",
                    o->recompute_every);
  if (!(o->balance == DLB_BALANCE_TIME || o->balance == DLB_BALANCE_MEMORY
        || o->balance == DLB_BALANCE_LAYERS))
    return dlb_fail(DLB_EINVAL, "plan: balance must be 0 (the layers' FLOPs), 1 (their memory) "
                    "or 2 (their count: Megatron-Core's split, the embedding and the loss one "
                    "layer each), got %g", o->balance);
  if (!(o->moe_impl == DLB_MOE_GRAPH || o->moe_impl == DLB_MOE_MCORE))
    return dlb_fail(DLB_EINVAL, "plan: moe_impl must be 0 (the graph's ops) or 1 (Megatron-Core's "
                    "dispatcher and grouped GEMM), got %g", o->moe_impl);
  if (!(o->moe_dispatcher == DLB_DISPATCHER_ALLTOALL || o->moe_dispatcher == DLB_DISPATCHER_DEEPEP
        || o->moe_dispatcher == DLB_DISPATCHER_HYBRIDEP))
    return dlb_fail(DLB_EINVAL, "plan: moe_dispatcher must be 0 (all-to-all of every token's "
                    "top-k copies), 1 (DeepEP) or 2 (Hybrid-EP), got %g", o->moe_dispatcher);
  if (!(o->moe_a2a_overlap == 0 || o->moe_a2a_overlap == 1))
    return dlb_fail(DLB_EINVAL, "plan: moe_a2a_overlap must be 0 (the MoE all-to-alls on the "
                    "compute stream) or 1 (Megatron-Core's combined 1F1B), got %g",
                    o->moe_a2a_overlap);
  if (!(o->imbalance == 0 || (o->imbalance >= 1 && isfinite(o->imbalance))))
    return dlb_fail(DLB_EINVAL, "plan: imbalance must be >= 1 (the busiest expert's tokens over "
                    "the mean; 0 = 1), got %g", o->imbalance);
  if (!(o->optim_impl >= DLB_OPTIM_NONE && o->optim_impl <= DLB_OPTIM_PER_TENSOR) ||
      o->optim_impl != floor(o->optim_impl))
    return dlb_fail(DLB_EINVAL, "plan: optim_impl must be 0 (none), 1 (loop), 2 (foreach), 3 "
                    "(torch fused), 4 (apex), 5 (flat) or 6 (per tensor), got %g", o->optim_impl);
  if (!(o->optim_sync == 0 || o->optim_sync == 1))
    return dlb_fail(DLB_EINVAL, "plan: optim_sync must be 0 or 1, got %g", o->optim_sync);
  if (!(o->optim_views == 0 || o->optim_views == 1))
    return dlb_fail(DLB_EINVAL, "plan: optim_views must be 0 or 1, got %g", o->optim_views);
  if (o->optim_impl == DLB_OPTIM_LOOP) {   /* the rule's own check, once */
    dlb_optim_count c;
    int st = dlb_optim_launches(DLB_OPTIM_LOOP, o->optim_kernels, o->optim_ops, 0, 1, 1, &c);
    if (st) return dlb_fail(st, "plan: optim_impl 1 (loop): optim_kernels %g, optim_ops %g: %s",
                            o->optim_kernels, o->optim_ops, dlb_last_error());
  }
  for (int i = 0; i < n; i++) {
    const dlb_par_layer *l = &L[i];
    if (!(l->upd_tensors >= 0) || !isfinite(l->upd_tensors) ||
        l->upd_tensors != floor(l->upd_tensors) || !(l->upd_chunks >= l->upd_tensors) ||
        !isfinite(l->upd_chunks) || l->upd_chunks != floor(l->upd_chunks))
      return dlb_fail(DLB_EINVAL, "plan: layer %d has upd_tensors %g and upd_chunks %g (whole "
                      "numbers, chunks >= tensors: every tensor is a chunk at least)", i + 1,
                      l->upd_tensors, l->upd_chunks);
    if (!(l->rerun == -1 || l->rerun == 0 || l->rerun == 1))
      return dlb_fail(DLB_EINVAL, "plan: layer %d has rerun %g (1: full recompute runs its "
                      "forward again, -1: once, 0: by its place)", i + 1, l->rerun);
    const double v[] = { l->flops_fwd, l->flops_bwd, l->bytes_sample, l->bytes_fixed,
                         l->params, l->act_out, l->act_kept, l->act_rep, l->act_in,
                         l->tp_bytes, l->tp_colls, l->shardable, l->tp_div, l->frozen,
                         l->weight_bytes, l->experts, l->expert_params, l->expert_frac,
                         l->moe_bytes, l->kv_bytes, l->qo_bytes, l->top_k };
    for (size_t j = 0; j < sizeof v / sizeof v[0]; j++)
      if (!(v[j] >= 0) || !isfinite(v[j]))
        return dlb_fail(DLB_EINVAL, "plan: layer %d has a negative or non-finite cost", i + 1);
    if (l->frozen > l->params)
      return dlb_fail(DLB_EINVAL, "plan: layer %d has %g frozen of %g parameters", i + 1,
                      l->frozen, l->params);
    if (l->expert_params > l->params || l->expert_frac > 1 || l->experts != floor(l->experts))
      return dlb_fail(DLB_EINVAL, "plan: layer %d has %g expert of %g parameters, expert_frac "
                      "%g (at most 1) and %g experts (a whole number)", i + 1, l->expert_params,
                      l->params, l->expert_frac, l->experts);
    if (l->top_k != floor(l->top_k) || (l->experts > 0 && l->top_k > l->experts))
      return dlb_fail(DLB_EINVAL, "plan: layer %d top_k must be a whole number of at most its %g "
                      "experts, got %g", i + 1, l->experts, l->top_k);
    if (o->moe_dispatcher != DLB_DISPATCHER_ALLTOALL && l->experts > 0 && l->moe_bytes > 0
        && !(l->top_k >= 1))
      return dlb_fail(DLB_EINVAL, "plan: the %s dispatcher needs layer %d's top_k (the "
                      "experts each token goes to: it sends a token once per destination "
                      "rank or node), got %g",
                      o->moe_dispatcher == DLB_DISPATCHER_DEEPEP ? "DeepEP" : "Hybrid-EP", i + 1,
                      l->top_k);
    if (l->tp_div != floor(l->tp_div))
      return dlb_fail(DLB_EINVAL, "plan: layer %d tp_div must be a whole number, got %g", i + 1,
                      l->tp_div);
  }
  return DLB_OK;
}

/* The first layer tp does not split evenly (tp_div not a multiple of tp), or -1. */
int dlb_par_tp_misfit(const dlb_par_layer *L, int n, double tp) {
  if (tp == 1) return -1;
  double ok = -1;   /* the last tp_div found divisible (layers mostly share one): no fmod */
  for (int i = 0; i < n; i++) {
    double d = L[i].tp_div;
    if (L[i].tp_bytes > 0 && d > 0 && d != ok) {
      if (fmod(d, tp) != 0) return i;
      ok = d;
    }
  }
  return -1;
}
