/*
** fusion_grad.c — the gradient accumulation a stack runs after every micro-batch's backward
** (DLB_FUSE_GRAD_ACCUM; graphs/step/fusion.c's dlb_fuse_step runs it after the others).
**
** Megatron-LM's local DDP (NVIDIA/Megatron-LM megatron/model/distributed.py, 2021-23,
** DistributedDataParallel with use_contiguous_buffers, the default: --no-contiguous-buffers-
** in-local-ddp is the opt-out) registers a hook on every parameter's AccumulateGrad node:
**     param_hook: if param.grad is not None:
**                     param.main_grad.add_(param.grad.data); param.grad = None
** so after every micro-batch's backward each parameter's gradient is added into the
** contiguous buffer (zeroed once a step, zero_grad_buffer). Gradient accumulation fusion
** (the weight-gradient GEMM accumulating into main_grad, fused_weight_gradient_mlp_cuda)
** removes the add for the linear layers' weights, but megatron/arguments.py (commit
** 00129014, 2022) turns it off unless --accumulate-allreduce-grads-in-fp32, which is off for
** fp16 runs (forced on for bf16); before 2022 it did not exist. The buffer's dtype is the
** parameters' for fp16 (_get_buffer_type: fp32 only under that flag).
**
** Per gradient element: the gradient read, main_grad read and written, each at the
** gradient's element size (the fp16 buffer): 3 x the gradient's bytes. Host: the hook's
** add_ is one op launching one kernel per parameter tensor (param.grad = None launches
** nothing); a parameter the QKV pass fuses (Q, K and V as one query_key_value weight and
** bias) has one add_ for the three. Both are counted on the op that produces the gradient the update reads (the
** weight-gradient GEMM, the bias reduction, the norm's backward, or the sum of a shared
** weight's contributions), so the planner charges them in that layer's backward, once per
** micro-batch. Linear in the tensor sizes, as the compiled sweep needs. Under fp32
** accumulation (bf16) the buffer is 4 B and the weights' adds are fused away: not this pass.
*/
#include "graph_impl.h"

enum { GRAD_ACCUM_PASSES = 3 };   /* grad read, main_grad read, main_grad written */

void dlb_fuse_grad_accum(const dlb_graph *s, const int32_t *into, double *bytes,
                         const double *size0, double *more) {
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    if (p->type != OP_UPDATE || p->nin < 2) continue;
    int g = op_in(s, p)[1];
    int pr = g >= 0 ? s->t[g].producer : -1;
    if (pr < 0) continue;   /* a gradient no op produces: nothing runs per micro-batch */
    /* a producer an earlier pass absorbed into another op's kernel (the QKV pass's one dW
    ** GEMM and one bias reduction take K's and V's) makes part of one fused parameter
    ** (Megatron's query_key_value weight and bias): its elements are added by that
    ** parameter's one add_, counted on the op that absorbed it, with no host op of its own */
    int absorbed = 0;
    for (int hops = 0; into && into[pr] >= 0 && hops < 8; hops++) pr = into[pr], absorbed = 1;
    bytes[pr] += GRAD_ACCUM_PASSES * size0[g];
    if (more && !absorbed) {
      more[2 * (size_t)pr] += 1;
      more[2 * (size_t)pr + 1] += 1;
    }
  }
}
