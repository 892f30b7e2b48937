/*
** planner_ops.h — internal to libdlbench: the planner's layer times from the per-op rule
** (dlb_op_time_raw), cached per layer shape. Not part of the public interface.
*/
#ifndef DLB_PLANNER_OPS_H
#define DLB_PLANNER_OPS_H

#include "dlb_parallel.h"
#include "roofline_impl.h"

/* The layers' ops grouped by layer, layers of identical ops sharing one class, and a cache
** of (class, micro-batch, tensor degree) -> forward, backward and update seconds. */
typedef struct dlb_layer_times dlb_layer_times;

/* Group nops ops (may be 0 / NULL) over n layers; NULL with a message on bad input. */
dlb_layer_times *dlb_layer_times_new(const dlb_par_layer *L, int n, const dlb_par_op *ops,
                                     int nops);
void dlb_layer_times_free(dlb_layer_times *T);
/* Forget the cached times (they belong to one device): a prepared model (dlb_par_model)
** keeps its grouping across calls and empties the cache before each. */
void dlb_layer_times_reset(dlb_layer_times *T);
/* The samples of a fused softmax's attention batches (Megatron's kernel rule: micro-batch x
** heads / tp, planner_ops.c softmax_kernels) per sample of the micro-batch the costs are
** asked at: the context degree under ring or all-gather context parallelism (the costs are
** asked at micro-batch / cp; each rank's attention still batches the whole micro-batch x its
** heads), 1 otherwise (all-to-all: the heads split over tp x cp). Empties the cache when it
** changes. */
void dlb_layer_times_cp(dlb_layer_times *T, double smb);

/* Seconds of layer li's forward (*tf), backward (*tb) and optimizer update (*tu) at mb
** samples on tensor degree tl (1 when the layer runs replicated) and expert-parallel degree
** ep (its expert ops, attention 2: experts/ep of them on ep x the rows) on device d (checked),
** with sequence parallelism when sp (its ops marked replicated split over tl too, else whole). A
** layer without ops is one op of its flops and bytes, its time split between forward and
** backward by their FLOPs. *af and *ab (may be NULL) receive the seconds of its fused
** attention kernels forward and backward (0 for a layer without ops); *cf (may be NULL) the
** seconds of its attention core's forward (ops marked attention 1 or 3; a layer without ops:
** its forward's flops_core share), what selective recompute runs again. moe (DLB_MOE_*):
** under DLB_MOE_MCORE an expert matmul runs as one GEMM per local expert, TE_GEMM_STREAMS at
** a time (planner_ops.c). */
int dlb_layer_times_get(dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                        double ep, int sp, int moe, double *tf, double *tb, double *tu,
                        double *af, double *ab, double *cf);

/* All of a layer's costs at one (mb, tl, ep, sp, moe), cached per layer class: the times of
** dlb_layer_times_get (tf, tb, tu, af, ab, cf), the host seconds of dlb_layer_host at ep and
** moe (hf, hb, hu, hc) and the update work of dlb_layer_update at tl (uf, ub) and at tensor
** degree 1 (wf, wb). The planner reads them once per layer and layout; the values are those
** functions' own (a class's layers have the same ops). */
typedef struct dlb_layer_cost {
  double tf, tb, tu, af, ab, cf;
  double mf, mb;   /* of tf and tb, the experts' side (Megatron-Core's "mlp" node of a MoE
                      layer: the experts' ops, marked attention 2 or 4, and forward their
                      activation, module DLB_OPM_MOE_ACT; a layer without ops: expert_frac of
                      its times), which the combined 1F1B schedule runs apart from the rest */
  double hf, hb, hu, hc;
  double uf, ub, wf, wb;
  /* with a host model (d->host_op or host_layer > 0; else zeros): the layer's forward (host_layer,
  ** then its ops) and backward ops, each op at its time above and host_op when it has a cost,
  ** through the host-side timeline from a synchronisation point (dlb_timeline_op), what the
  ** planner composes per stage (dlb_timeline_seg) */
  dlb_timeline sf, sb;
  /* the seconds of the weight-gradient GEMMs of its column-parallel linears (opts.tp_async),
  ** in forward order: each forward matmul of a column-parallel shape (split 2, the output
  ** features; neither replicated, an expert's, an attention kernel's nor the output layer's)
  ** at its own time, which is its dW GEMM's: Y = X W^T and dW = dY^T X have the same FLOPs
  ** and the same three matrices (X, W or dW, Y or dY; Megatron-LM layers.py: grad_weight =
  ** grad_output.t().matmul(input)). ncw of them; a fourth and later add into cw[3] */
  double cw[4];
  int ncw;
} dlb_layer_cost;

/* The seconds ncol backward tensor-parallel collectives of t s each add to a layer's
** backward when each runs beside a column-parallel linear's dW GEMM (opts.tp_async): the
** k-th beside the k-th of c->cw, the last beside the rest, each max(t - w, f t)
** (dlb_par_hidden, f = opts.contention); a collective without a GEMM costs t. */
double dlb_layer_tp_exposed(const dlb_layer_cost *c, double ncol, double t, double f);
int dlb_layer_times_cost(dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                         double ep, int sp, int moe, dlb_layer_cost *out);

/* Host seconds of layer li's forward (*hf), backward (*hb) and update (*hu) on device d
** (the host-side model, issue [19]): host_op per op of the phase (a layer without ops: one
** op per pass) and per further host op a pass counted on one (more_ops), kernel_overhead per
** further kernel beyond those (more_kernels; dlb_launch_host), plus host_layer per forward; *hc those of its attention core's forward ops
** (marked attention 1 or 3; 0 for a layer without ops), issued again under selective
** recompute. 0 when d has no host model. Under moe DLB_MOE_MCORE with expert degree ep, each
** further per-expert GEMM launch of a grouped GEMM costs the host d->kernel_overhead, as does
** each further launch of an op marked attention 4 (once per local expert). At micro-batch mb
** and tensor degree tl, a fused softmax that runs eagerly there (dlb_par_op.softmax) costs
** host_op for each of its further kernels. */
void dlb_layer_host(const dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                    double ep, int moe,
                    double *hf, double *hb, double *hu, double *hc);

/* Torchtitan's per-op selective AC (DLB_PAR_RECOMPUTE_OP) on layer li at mb samples, tensor
** degree tl, expert degree ep, sequence parallelism sp, moe (as dlb_layer_times_get): *rt the
** seconds of the forward ops it runs again in the backward (every forward op but the fused
** attention kernels and the odd-numbered weight matmuls, planner_ops.c sac_saved), *rf their
** FLOPs per sample, *rh the host seconds of issuing them (host_op each), *kept the bytes per
** sample of the saved outputs (an estimate, out_bytes), split by tl. DLB_EINVAL for a layer
** without ops. Uncached: the planner calls it only under that policy. */
int dlb_layer_sac(const dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                  double ep, int sp, int moe, double *rt, double *rf, double *rh, double *kept);

/* What Megatron-Core's recompute_modules (DLB_RCM_*, the attention core excepted: the selective
** policy's own cf / act_core) rerun on layer li (planner_ops.c rcm_runs): time, the seconds of
** its forward ops run again in the backward (an expert op at the busiest expert's load); flops,
** their FLOPs per sample; host, host_op each; share, the fraction of the layer's kept
** activations the normally checkpointed modules (mlp, moe) no longer keep; out, the bytes per
** sample on a rank of the discarded outputs (layernorm: the block's hidden state; moe_act
** without moe: linear_fc2's input); side, 1 when the block's MLP side reruns (its
** collectives again); hit, the DLB_RCM_* flags that selected an op. */
typedef struct dlb_par_rcm { double time, flops, host, share, out; int side, hit; } dlb_par_rcm;
int dlb_layer_rcm(dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                  double ep, int sp, int moe, double mods, double load, dlb_par_rcm *r);

/* Whether recompute_modules `mods` (DLB_RCM_* flags) is a valid sum of flags of which every
** one reruns something in the model (an op it selects; the attention core: a core op or a
** layer's flops_core); DLB_EINVAL naming the first module that reruns nothing. */
int dlb_layer_rcm_check(const dlb_layer_times *T, double mods);

/* The FLOPs and bytes of layer li's update ops (phase 2) on tensor degree tl, with sequence
** parallelism when sp: what its update time (tu of dlb_layer_times_get) times op by op, for
** the optimizer's launch model (dlb_optim_time). 0 for a layer without ops. */
void dlb_layer_update(const dlb_layer_times *T, const dlb_roof *d, int li, double tl, int sp,
                      double *f, double *b);

#endif
