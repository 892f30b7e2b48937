/*
** planner_tp.c — one layer's tensor-parallel collectives per micro-batch (Megatron's g / g-bar
** operator pairs, Shoeybi et al. 2019 sec. 3; under sequence parallelism each all-reduce a
** reduce-scatter and an all-gather, Korthikanti et al. 2022 sec. 4.2.2: the same bytes on a
** ring, two collectives' latencies; NCCL picks each one's algorithm): their seconds forward and
** backward, for planner.c's stages.
*/
#include "dlb_parallel.h"
#include "collective_impl.h"
#include "planner_ops.h"
#include "planner_impl.h"
#include "dlb_runtime.h"

double dlb_par_tp_regathers(const dlb_par_layer *l, const dlb_par_opts *o, int sp,
                            double ncol) {
  /* Megatron's column-parallel linear under sequence parallelism saves its input's local
  ** shard and all-gathers it again in the backward for its dW GEMM (megatron/mpu/layers.py
  ** LinearWithGradAccumulationAndAsyncCommunication.backward, 2022: _all_gather_base(...,
  ** async_op=True), "Delay the start of intput gradient computation", grad_input =
  ** grad_output.matmul(weight), handle.wait(); Megatron-Core tensor_parallel/layers.py the
  ** same; Transformer Engine's Linear / LayerNormLinear: backward_input_needs_gather =
  ** weight.requires_grad and parallel_mode == "column" and sequence_parallel, gathered
  ** async_op=True, "Tensor-parallel communication is overlapped with dgrad GEMM"). The same
  ** linear function as tp_async's, so with tp_async 0 (a linear that keeps the gathered
  ** input, as a DTensor matmul does) none. One per collective pair of a layer that reads an
  ** activation (QKV, FC1, the output layer); none in a layer reading none (act_in 0: the
  ** embedding, whose pair is a row-parallel reduction). */
  if (!sp || o->tp_async == 0 || !(l->act_in > 0)) return 0;
  return ncol;
}

int dlb_par_tp_layer(const dlb_par_layer *l, const dlb_layer_cost *lc, const dlb_par_cluster *cl,
                     const dlb_par_opts *o, double tp, int sp, double mbc, double ncol,
                     double rtc, double memo[3], double *fwd, double *bwd) {
  dlb_par_coll c1, c2 = { 0 };
  double tpb = l->tp_bytes * mbc;
  int st = DLB_OK;
  if (tpb == memo[0]) {   /* the last layer's bytes again (the blocks): its time */
    c1.time = memo[1]; c2.time = memo[2];
  } else if (o->nccl) {   /* consecutive ranks: a node's worth per node */
    double tpn = dlb_par_group_per_node(cl->per_node, 1, tp);
    if (sp) {
      st = dlb_par_nccl_group(cl, DLB_COLL_REDUCE_SCATTER, tpb, tp, tpn, &c1.time);
      if (!st) st = dlb_par_nccl_group(cl, DLB_COLL_ALLGATHER, tpb, tp, tpn, &c2.time);
    } else {
      st = dlb_par_nccl_allreduce(cl, tpb, tp, tpn, &c1.time);
    }
  } else {
    const dlb_par_link *tplink = dlb_par_group_link(cl, tp);
    if (sp) {
      st = dlb_par_collective(DLB_COLL_REDUCE_SCATTER, DLB_ALGO_RING, tpb, tp, 0, tplink, &c1);
      if (!st) st = dlb_par_collective(DLB_COLL_ALLGATHER, DLB_ALGO_RING, tpb, tp, 0, tplink,
                                       &c2);
    } else {
      st = dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, tpb, tp, 0, tplink, &c1);
    }
  }
  if (st) return st;
  if (tpb != memo[0]) {
    c1.time += c2.time;   /* c2: sequence parallelism's all-gather, else 0 */
    memo[0] = tpb; memo[1] = c1.time; memo[2] = c2.time;
  }
  *fwd = ncol * c1.time;
  /* opts.tp_async: the backward's all-reduce (reduce-scatter) of a column-parallel linear's
  ** dX beside its dW GEMM (dlb_layer_tp_exposed); a recompute's stay exposed. With it under
  ** sequence parallelism the linear's input all-gathered again beside its dX GEMM
  ** (dlb_par_tp_regathers): the same rule, the same windows (dX = dY W has the FLOPs and
  ** the three matrices of the forward GEMM, as dW = dY^T X does), the two in turn (the
  ** all-gather waited for before the reduce-scatter starts) */
  double u = c1.time - c2.time;   /* the all-reduce, or the reduce-scatter */
  *bwd = o->tp_async == 0 ? ncol * c1.time * (1 + rtc) : ncol * c1.time * rtc
         + ncol * c2.time + dlb_layer_tp_exposed(lc, ncol, u, o->contention);
  double ng = dlb_par_tp_regathers(l, o, sp, ncol);
  if (ng > 0) *bwd += dlb_layer_tp_exposed(lc, ng, c2.time, o->contention);
  return DLB_OK;
}
