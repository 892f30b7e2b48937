/*
** planner_impl.h — internal to libdlbench: what planner.c (one layout's evaluation) and
** planner_check.c (the inputs' checks) give planner_search.c (the search over layouts), and
** what planner.c shares with planner_dp.c (the data-parallel collectives) and planner_moe.c
** (a MoE layer's costs) and planner_tp.c (a layer's tensor-parallel collectives). Not part of
** the public interface.
*/
#ifndef DLB_PLANNER_IMPL_H
#define DLB_PLANNER_IMPL_H

#include "dlb_parallel.h"
#include "planner_ops.h"
#include "dlb_roofline.h"
#include "roofline_impl.h"

/* x a whole number in [1, 1e12). */
int dlb_par_whole(double x);
/* The arguments every evaluation and search needs (a message when one is missing). */
int dlb_par_check_inputs(const dlb_par_layer *L, int n, const dlb_roof *dev,
                         const dlb_par_cluster *cl, const dlb_par_opts *o);
/* The first layer tp does not split evenly (tp_div not a multiple of tp), or -1. */
int dlb_par_tp_misfit(const dlb_par_layer *L, int n, double tp);
/* One layout cfg of layers L[0..n) with their layer times LT on device dev and cluster cl:
** the row (*out) and each stage's bytes (stage_mem, may be NULL). `checked`: the search
** already validated the inputs and enumerates only possible layouts (whole micro-batches,
** tp dividing tp_div, within the cluster), so those checks are skipped. */
int dlb_par_layout_eval(const dlb_par_layer *L, int n, dlb_layer_times *LT, const dlb_roof *dev,
                        const dlb_par_cluster *cl, const dlb_par_opts *o,
                        const dlb_par_row *cfg, dlb_par_row *out, double *stage_mem,
                        int checked);

/* Per-device accumulation of one layout (planner.c, and planner_moe.c's MoE layer costs). */
typedef struct dlb_par_stage {
  double f, b;          /* compute s per micro-batch, forward and backward */
  double upd;           /* s of the optimizer update of its layers outside the launch model */
  double uf, ub;        /* FLOPs and bytes of that update (its share after ZeRO) and */
  double ut, uc;        /* its tensors and chunks (opts.optim_impl: dlb_optim_launches) */
  double rcf;           /* recomputed forward FLOPs per sample (for HFU) */
  double tpf, tpb;      /* tensor-parallel allreduce s per micro-batch */
  double params;        /* parameters held (after the tensor split) */
  double trainable;     /* of which train (gradients, optimizer state, allreduce) */
  double wbytes;        /* bytes of the weights held, before ZeRO-3 */
  double kept;          /* activation bytes kept per sample */
  double full;          /* largest rebuilt layer's full activation bytes per sample (recompute) */
  double tail;          /* kept bytes per sample of the layers after its last rebuilt one, whose
                           backward frees them before a block is rebuilt (recompute) */
  double core;          /* largest layer's attention-core bytes per sample (selective) */
  double sacx;          /* largest block's bytes per sample rebuilt by per-op selective AC */
  double rcmx;          /* largest layer's bytes per sample rebuilt by recompute_modules */
  double xfer;          /* bytes per sample crossing out of its chunks */
  double shard;         /* shardable parameters held before spreading */
  double shard_t, shard_w; /* of which trainable, and their weight bytes */
  double nl;            /* layers held */
  double etrain, ewb;   /* expert parameters that train, and their weight bytes (after ep) */
  double epf, epb;      /* MoE all-to-all s per micro-batch, forward and backward */
  double ovl;           /* MoE all-to-all s per micro-batch the combined 1F1B schedule hides
                           when a forward and a backward run together (opts.moe_a2a_overlap:
                           dlb_par_combined_1f1b over the stage's MoE layers) */
  double cpf, cpb;      /* exposed context-parallel s per micro-batch */
  double cpws;          /* context-parallel workspace bytes (K/V buffers of one layer) */
  double mem;
  double hf, hb, hu;    /* host seconds per micro-batch, forward and backward, and of the
                           update (the host-side model: dlb_layer_host) */
  /* The host-side model (a device with host_op or host_layer > 0): a micro-batch's forward
  ** through the timeline (dlb_timeline, graphs/hw/roofline_impl.h) from a synchronisation
  ** point, layer after layer as planner.c accumulates them: each layer's ops (its class's
  ** cached segment, dlb_layer_cost.sf) and then, as one op, the rest of what the layer added
  ** to the phase's device seconds (f + tpf + epf + cpf) and host seconds (hf) (its
  ** collectives, its experts' load, the further per-expert launches); fin, fhin: the device
  ** and host seconds tlf holds. syncf, syncb: the layer being accumulated ends at a
  ** synchronisation point of the forward, of the backward (a dropless MoE layer under
  ** DLB_MOE_MCORE: the host waits for the token counts, planner_moe.c) */
  dlb_timeline tlf;
  double fin, fhin;
  int syncf, syncb;
} dlb_par_stage;

/* A layer's trainable parameters and the bytes of its weights (wb per parameter unless the
** layer says): planner.c's stages and planner_dp.c's per-unit collectives. */
static inline double dlb_par_layer_trainable(const dlb_par_layer *l) {
  double t = l->params - l->frozen;
  return t > 0 ? t : 0;
}
static inline double dlb_par_layer_wbytes(const dlb_par_layer *l, double wb) {
  return l->weight_bytes > 0 ? l->weight_bytes : l->params * wb;
}

/* What planner_dp.c needs of a layout besides its stages: the degrees, the replicas of the
** weights (dp x cp), the HSDP shard group (0: none), the experts' replicas (ze = tp dp cp /
** (etp ep)), the micro-batches, the ZeRO stage, the stages and chunks with each chunk's first
** layer (chunk c: layers first[c] .. first[c + 1] - 1, on stage c mod p), and the bytes per
** parameter of the weights and gradients. */
typedef struct dlb_par_dp_layout {
  double tp, pp, ep, etp, dpc, hs, ze, m;
  int zero, p, K;
  const int *first;
  double wb, gb;
} dlb_par_dp_layout;

/* planner_dp.c: what a collective of `comm` seconds costs the step when it runs beside
** `window` seconds of compute that can hide it, the compute slowed by the fraction f of its
** rate the collective's kernels take (opts.contention): max(comm - window, f comm). The part
** the window cannot hold stays exposed; the hidden part takes f of its own length from the
** compute (the window stretched to window / (1 - f) while the collective runs). f = 0:
** max(0, comm - window); window 0: comm. Source of f: lua/dlbench/contention.lua. */
double dlb_par_hidden(double comm, double window, double f);

/* planner_dp.c: the seconds of one layout's data-parallel collectives after the pipeline
** flush that its backward and forward do not hide (*dpt): the gradient reduction over the
** replicas (the experts' over theirs), ZeRO-3 / FSDP's gathers and reduce-scatters per
** micro-batch, HSDP's cross-group allreduce, list-form gathers; L the layers, S[0..p) the
** stages planner.c accumulated, bw the stage that sets the pipeline's pace. 0 without
** replicas (dp x cp = 1). DLB_OK or a collective's failure. */
int dlb_par_dp_comm(const dlb_par_layer *L, const dlb_par_stage *S, const dlb_par_stage *bw,
                    const dlb_roof *dev, const dlb_par_cluster *cl, const dlb_par_opts *o,
                    const dlb_par_dp_layout *y, double *dpt);

/* The link a group of `span` consecutive ranks crosses (the intra-node link while it fits on
** a node, else the inter-node one). */
const dlb_par_link *dlb_par_group_link(const dlb_par_cluster *cl, double span);

/* planner_moe.c: one MoE layer's token dispatch and combine through DeepEP's normal kernels
** or Hybrid-EP's (backend: DLB_DISPATCHER_DEEPEP or _HYBRIDEP; seconds, dispatch + combine;
** copies: the rank's tokens' top-k copies in bytes, E experts, top-k k, n expert slots of rep consecutive ranks), and Megatron-Core's MoE layer beyond the
** graph's ops (moe_impl "mcore": the second permutation, the router's aux loss, the token
** counts, the dropless host sync) added to stage s for one micro-batch of mbc samples at
** load `load` on tl tensor ranks, ep x et expert ranks, tp x cp attention ranks; lrc: the
** layer recomputed in full, side: a recompute module reruns its MoE side. */
double dlb_par_ep_dispatch_time(int backend, double copies, double E, double k, double n,
                                double rep, const dlb_par_cluster *cl);

/* planner_moe.c: seconds of one MoE layer's forward (of one micro-batch) and backward (of
** another) run together by Megatron-Core's combined 1F1B schedule
** (TransformerLayerSchedulePlan.run): the computation stream runs the forward's attention
** side af, the backward's experts' side mb, the forward's experts' side mf, the backward's
** attention side pb; the communication stream the backward's combine, the forward's dispatch,
** the backward's dispatch, the forward's combine (af2 each forward all-to-all, ab2 each
** backward one); each starts when its stream is free and its input is ready, the
** computation at 1 - f of its rate while an all-to-all runs beside it (f in [0, 1):
** dlb_par_a2a_contention). */
double dlb_par_combined_1f1b(double af, double mf, double mb, double pb, double af2, double ab2,
                             double f);
/* planner_moe.c: the fraction of the computation's rate the all-to-all kernels of dispatcher
** (DLB_DISPATCHER_*) take on dev: their SMs (NCCL's p2p channels, DeepEP's and Hybrid-EP's
** defaults) over dev->sm_count; 0 without an SM count. */
double dlb_par_a2a_contention(int dispatcher, const dlb_roof *dev);
int dlb_par_mcore_layer(const dlb_par_layer *l, const dlb_roof *dev, const dlb_par_cluster *cl,
                        const dlb_par_opts *o, double ep, double et, double tp, double cp,
                        double mbc, double load, double tl, int lrc, int side, dlb_par_stage *s);

/* planner_tp.c: one layer's tensor-parallel collective pairs per micro-batch of mbc samples
** (ncol of them, l->tp_bytes each; under sp a reduce-scatter and an all-gather, else an
** all-reduce; memo: the last bytes timed and the pair's and its all-gather's seconds, reused
** while the bytes repeat): *fwd the forward's seconds, *bwd the backward's (rtc: the
** fraction of the pair a recompute runs again, exposed; opts.tp_async: each column-parallel
** linear's dX collective beside its dW GEMM and, under sp, its input's all-gather again
** beside its dX GEMM, dlb_layer_tp_exposed). DLB_OK or a collective's failure. */
int dlb_par_tp_layer(const dlb_par_layer *l, const dlb_layer_cost *lc, const dlb_par_cluster *cl,
                     const dlb_par_opts *o, double tp, int sp, double mbc, double ncol,
                     double rtc, double memo[3], double *fwd, double *bwd);
/* planner_tp.c: how many of a layer's ncol pairs all-gather a column-parallel linear's input
** again in the backward (Megatron's sequence parallelism with opts.tp_async; 0 otherwise and
** in a layer reading no activation, act_in 0). */
double dlb_par_tp_regathers(const dlb_par_layer *l, const dlb_par_opts *o, int sp, double ncol);

#endif
