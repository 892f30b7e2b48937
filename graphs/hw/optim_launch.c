/*
** optim_launch.c — the optimizer step's kernel launches and host dispatches per
** implementation (issues [18]/[19]: "per-op host dispatch cost", "the per-parameter optimizer
** loop's launches"), and the time of an update phase made of them.
**
** Sources (each count below names its own):
** - pytorch/pytorch aten/src/ATen/native/cuda/MultiTensorApply.cuh @ 4b6fea91c74c: kChunkSize
**   65536, depth_to_max_tensors {110, 64, 48, 36, 30}, depth_to_max_blocks 320 each,
**   depth_to_max_tensors_scalarlist {96, 64, 48, 36, 30}; multi_tensor_apply launches a
**   kernel when the tensor slots are full (after a tensor's last chunk), when the block
**   slots are full, or at the last chunk; a tensor cut by a full launch carries over into
**   slot 0 of the next. The PyTorch 2.x copy (with multi_tensor_apply_for_fused_optimizer)
**   keeps the tables and the loop (it skips empty tensors and launches the rest at the end).
** - NVIDIA/apex csrc/multi_tensor_apply.cuh @ 87c4debde800: the same tables (a sixth depth,
**   24) and loop; apex.multi_tensor_apply.multi_tensor_applier = MultiTensorApply(2048 * 32),
**   the same 65536-element chunk (DeepSpeed's FusedAdam copies both).
** - pytorch/pytorch torch/optim/adamw.py @ c15fcf4eb79d: _multi_tensor_adamw, _fused_adamw,
**   _single_tensor_adamw (counted at DLB_OPTIM_FOREACH and DLB_OPTIM_TORCH_FUSED below).
*/
#include <math.h>
#include <stddef.h>

#include "dlb_roofline.h"
#include "dlb_runtime.h"
#include "roofline_impl.h"

/* MultiTensorApply.cuh (both copies): elements per chunk (one thread block each), the tensor
** slots of a launch by depth (tensor lists), the block slots, and the tensor slots of the
** scalar-list variant (a per-tensor scalar takes room in the 4 KB kernel argument). */
enum { MTA_CHUNK = 65536, MTA_BLOCKS = 320 };
static const int MTA_TENSORS[5] = { 110, 64, 48, 36, 30 };
static const int MTA_TENSORS_SCALARLIST[5] = { 96, 64, 48, 36, 30 };

double dlb_optim_chunk(void) { return MTA_CHUNK; }

/* Kernels one multi_tensor_apply call launches over `tensors` tensors of `chunks` chunks in
** all (each tensor at least one), at `depth` lists. The source's loop, folded: a launch ends
** when its tensor slots are full or its 320 block slots are; the closed form is the larger
** of the two bounds, ceil(tensors / slots) and ceil(chunks / 320), which the loop meets
** exactly when the tensors are all one chunk or all fill whole launches, and exceeds by the
** launches a full tensor-slot launch leaves part-empty otherwise (tests/lua/
** test_optim_launch.lua runs the loop as the source writes it against this form). */
static double mta(double tensors, double chunks, int depth, int scalarlist) {
  if (tensors <= 0) return 0;
  if (chunks < tensors) chunks = tensors;
  double slots = scalarlist ? MTA_TENSORS_SCALARLIST[depth - 1] : MTA_TENSORS[depth - 1];
  double a = ceil(tensors / slots), b = ceil(chunks / MTA_BLOCKS);
  return a > b ? a : b;
}

double dlb_optim_mta_launches(double tensors, double chunks, int depth, int scalarlist) {
  if (!(depth >= 1 && depth <= 5) || !(tensors >= 0) || !(chunks >= 0) || !isfinite(tensors) ||
      !isfinite(chunks))
    return -1;
  return mta(tensors, chunks, depth, scalarlist);
}

/* PyTorch 2.x _multi_tensor_adamw (torch/optim/adamw.py @ c15fcf4eb79d; capturable False,
** weight_decay != 0, amsgrad False, maximize False), one device / dtype group: the foreach ops
** with their tensor lists (an in-place op reads and writes its first list; an out-of-place one
** adds its output list) and whether a per-tensor scalar list goes with them. The step
** counters are CPU tensors (capturable False): torch._foreach_add_(device_state_steps, ...)
** runs on the CPU (one dispatch, no kernel). */
static const struct { int depth, scalarlist; } FOREACH_ADAMW[] = {
  { 1, 0 },   /* torch._foreach_mul_(device_params, 1 - lr * weight_decay) */
  { 2, 0 },   /* torch._foreach_lerp_(device_exp_avgs, device_grads, 1 - beta1) */
  { 1, 0 },   /* torch._foreach_mul_(device_exp_avg_sqs, beta2) */
  { 3, 0 },   /* torch._foreach_addcmul_(device_exp_avg_sqs, grads, grads, 1 - beta2) */
  { 2, 0 },   /* exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs): out of place */
  { 1, 1 },   /* torch._foreach_div_(exp_avg_sq_sqrt, bias_correction2_sqrt): a scalar list */
  { 1, 0 },   /* torch._foreach_add_(exp_avg_sq_sqrt, eps) */
  { 3, 1 },   /* torch._foreach_addcdiv_(params, exp_avgs, exp_avg_sq_sqrt, step_size) */
};

static int count(int kind, double per_tensor_kernels, double per_tensor_ops, int sync,
                 double tensors, double chunks, dlb_optim_count *out) {
  out->launches = out->dispatches = out->syncs = 0;
  if (!(tensors >= 0) || !isfinite(tensors) || tensors != floor(tensors))
    return dlb_fail(DLB_EINVAL, "optimizer launches: tensors must be a whole number >= 0, got %g",
                    tensors);
  if (!(chunks >= 0) || !isfinite(chunks) || chunks != floor(chunks) || (tensors > 0 && chunks < tensors))
    return dlb_fail(DLB_EINVAL, "optimizer launches: chunks must be a whole number >= tensors "
                    "(every tensor is at least one chunk), got %g for %g tensors", chunks, tensors);
  if (tensors == 0 && kind != DLB_OPTIM_NONE) return DLB_OK;
  switch (kind) {
  case DLB_OPTIM_NONE:
    return DLB_OK;
  case DLB_OPTIM_LOOP:
    if (!(per_tensor_kernels >= 1) || !isfinite(per_tensor_kernels) ||
        !(per_tensor_ops >= per_tensor_kernels) || !isfinite(per_tensor_ops))
      return dlb_fail(DLB_EINVAL, "optimizer launches: a per-parameter loop needs kernels per "
                      "tensor >= 1 and host ops per tensor >= kernels (got %g and %g)",
                      per_tensor_kernels, per_tensor_ops);
    /* every kernel is a Python-level op; with sync, one host sync per tensor (.item() of a
    ** device tensor) */
    out->launches = tensors * per_tensor_kernels;
    out->dispatches = tensors * per_tensor_ops;
    out->syncs = sync ? tensors : 0;
    return DLB_OK;
  case DLB_OPTIM_FOREACH: {
    double l = 0;
    for (size_t i = 0; i < sizeof FOREACH_ADAMW / sizeof FOREACH_ADAMW[0]; i++)
      l += mta(tensors, chunks, FOREACH_ADAMW[i].depth, FOREACH_ADAMW[i].scalarlist);
    out->launches = l;
    /* the eight foreach ops and the CPU step increment */
    out->dispatches = 1 + (double)(sizeof FOREACH_ADAMW / sizeof FOREACH_ADAMW[0]);
    return DLB_OK;
  }
  case DLB_OPTIM_TORCH_FUSED:
    /* _fused_adamw: torch._foreach_add_(device_state_steps, 1) on device steps (fused keeps
    ** them on the device: one chunk each, depth 1), then torch._fused_adamw_:
    ** FusedAdamWKernel.cu's multi_tensor_apply_for_fused_optimizer<4>(params, grads,
    ** exp_avgs, exp_avg_sqs) */
    out->launches = mta(tensors, tensors, 1, 0) + mta(tensors, chunks, 4, 0);
    out->dispatches = 2;
    return DLB_OK;
  case DLB_OPTIM_APEX:
    /* apex / Transformer Engine / DeepSpeed FusedAdam.step: multi_tensor_applier(
    ** multi_tensor_adam, noop, [g, p, m, v], ...): one call at depth 4 per dtype group */
    out->launches = mta(tensors, chunks, 4, 0);
    out->dispatches = 1;
    return DLB_OK;
  case DLB_OPTIM_FLAT:
    /* DeepSpeed's FusedAdam over the flat fp32 partition (ZeRO-1/2's
    ** single_partition_of_fp32_groups, ZeRO-3's fp32_partitioned_groups_flat): the apex call
    ** on one tensor of all the chunks */
    out->launches = mta(1, chunks, 4, 0);
    out->dispatches = 1;
    return DLB_OK;
  case DLB_OPTIM_PER_TENSOR:
    /* one fused kernel per tensor, each its own op (TensorFlow 1.x ResourceApplyAdam) */
    out->launches = out->dispatches = tensors;
    return DLB_OK;
  default:
    return dlb_fail(DLB_EINVAL, "optimizer launches: unknown implementation %d (DLB_OPTIM_*: 0 "
                    "none, 1 loop, 2 foreach, 3 torch fused, 4 apex, 5 flat, 6 per tensor)", kind);
  }
}

int dlb_optim_launches(int kind, double per_tensor_kernels, double per_tensor_ops, int sync,
                       double tensors, double chunks, dlb_optim_count *out) {
  if (out == NULL) return dlb_fail(DLB_EINVAL, "optimizer launches: out is NULL");
  int st = count(kind, per_tensor_kernels, per_tensor_ops, sync, tensors, chunks, out);
  if (st) return st;
  /* finite inputs whose products are not (a loop's tensors x kernels per tensor): refused,
  ** not an infinite count (dlb_optim_time would make it a NaN phase) */
  if (!isfinite(out->launches) || !isfinite(out->dispatches) || !isfinite(out->syncs)) {
    double bad[3] = { out->launches, out->dispatches, out->syncs };
    out->launches = out->dispatches = out->syncs = 0;
    return dlb_fail(DLB_EINVAL, "optimizer launches: the counts overflow (%g launches, %g "
                    "dispatches, %g syncs from %g tensors, %g kernels and %g host ops per "
                    "tensor)", bad[0], bad[1], bad[2], tensors, per_tensor_kernels,
                    per_tensor_ops);
  }
  return DLB_OK;
}

/* The update phase of c's launches, moving `bytes` and doing `flops` in all; see
** roofline_impl.h. */
double dlb_optim_time(const dlb_roof *d, const dlb_optim_count *c, double flops, double bytes,
                      double *dev_s, double *host_s, int *mem_bound) {
  double L = c->launches, P = c->dispatches;
  *dev_s = *host_s = 0;
  if (mem_bound) *mem_bound = 0;
  if (!(L > 0)) return 0;
  int mb;
  /* each launch the per-op rule on its share of the work: L x raw(f / L, b / L) (the rule of
  ** an op launched several times, dlb_launch_time; planner_ops.c per_expert) */
  double t1 = dlb_op_time_raw(d, flops / L, bytes / L, NULL, 0, &mb);
  if (mem_bound) *mem_bound = mb;
  *dev_s = L * t1;
  /* the host: a framework dispatch per Python-level op, a kernel launch (the device's
  ** kernel_overhead) per further launch from C++ (multi_tensor_apply's loop); nothing
  ** without a host model (dlb_launch_host) */
  *host_s = dlb_launch_host(d, P, L);
  if (c->syncs >= 1) {
    /* a host sync per tensor (.item()): the launches in `syncs` equal segments, each from a
    ** synchronisation point through the timeline (dlb_timeline): with n launches of t1 on the
    ** device and h on the host each, h + t1 + (n - 1) max(h, t1) */
    double k = c->syncs, n = L / k, h = *host_s / L;
    return k * (h + t1 + (n - 1) * (h > t1 ? h : t1));
  }
  return dlb_stream_time(*dev_s, *host_s);
}
