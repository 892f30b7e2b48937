/*
** planner_moe.c — one MoE layer's costs beyond the graph's ops, as the stacks run them: the
** token dispatch and combine through DeepEP's normal kernels (moe_dispatcher "deepep"),
** Megatron-Core's MoE layer (moe_impl "mcore": the second permutation, the router's aux loss,
** the token counts and their exchanges, the dropless host sync), and Megatron-Core's combined
** 1F1B schedule of a layer's forward and another micro-batch's backward (moe_a2a_overlap).
** planner.c's layout evaluation calls them for each MoE layer (split from planner.c).
*/
#include <math.h>

#include "dlb_parallel.h"
#include "dlb_roofline.h"
#include "collective_impl.h"
#include "planner_impl.h"
#include "roofline_impl.h"
#include "dlb_runtime.h"

/* DeepEP's normal (training / prefill) kernels as measured by their authors: deepseek-ai/
** DeepEP README, "Performance", "Normal kernels with NVLink and RDMA forwarding" (the V1
** README, kept as docs/legacy.md at commit 0297fc801788b14b338a46554faca28d419e518a): H800
** ("~160 GB/s NVLink maximum bandwidth"), one CX7 InfiniBand 400 Gb/s NIC per GPU ("~50 GB/s
** maximum bandwidth"), 4096 tokens per batch, hidden 7168, top-8 experts, FP8 dispatch, BF16
** combine; bottleneck bandwidth counted as the DeepEP tests count it (tests/test_intranode.py,
** tests/test_internode.py): within a node the bytes a rank receives over NVLink, each token
** once per destination rank (its own included); across nodes the bytes a rank sends over
** RDMA, each token once per destination node (its own node included: "logical" bandwidth).
**   intranode EP 8:            dispatch 153 GB/s, combine 158 GB/s (NVLink)
**   internode EP 16 / 32 / 64: dispatch 43 / 58 / 51 GB/s, combine 43 / 57 / 50 GB/s (RDMA)
** Carried to another device as the achieved fraction of its link (an ASSUMPTION: the kernels
** are bandwidth-bound and reach the same share of a faster link; DeepEP V2's SM100 figure,
** 726 GB/s dispatch on B200's 900 GB/s NVLink each way, is 0.81 of it, near the H800's
** 0.77): the H800's NVLink is 400 GB/s bidirectional (H800 SXM5 datasheet), 200e9 each way,
** so 0.765 and 0.79 of the device's intra link; the RDMA figures over the NIC's 50e9 (above 1
** where the own node's tokens count). Internode figures by the nodes the expert group spans:
** 2, 4, 8 (8 ranks a node); more nodes take the 8-node figure, a group within one node the
** intranode figure (also below 8 ranks). */
static const double DEEPEP_INTRA[2] = { 153.0 / 200, 158.0 / 200 };   /* dispatch, combine */
static const double DEEPEP_INTER[3][2] = { { 43.0 / 50, 43.0 / 50 },   /* 2 nodes (EP 16) */
                                           { 58.0 / 50, 57.0 / 50 },   /* 4 nodes (EP 32) */
                                           { 51.0 / 50, 50.0 / 50 } }; /* 8 nodes (EP 64) */

/* NVIDIA's Hybrid-EP kernels (DeepEP's hybrid_ep; Megatron-Core's flex dispatcher with the
** hybridep backend) as measured by their authors: deepseek-ai/DeepEP docs/README_Hybrid-EP.md
** (commit 41cad94449628adfb1cd1cadd82aeda83d4fbf0f), "Performance Results", 4096 tokens per
** rank, hidden 7168, top-8, 8 local experts, random uniform routing, "Torch API" columns, BF16
** dispatch and combine at 16 SMs (the most SMs the tables give):
**   H100, internode ("IB Bandwidth"), 16 / 32 / 64 ranks: dispatch 54.47 / 47.36 / 41.24 GB/s,
**     combine 53.35 / 52.53 / 46.57 GB/s;
**   B200, intranode (8 ranks, NVLink): dispatch 535.94 GB/s, combine 530.86 GB/s.
** Counted as DeepEP counts (tests/test_hybrid_ep.py: the NVLink bytes a rank receives, each
** token once per destination rank; the RDMA bytes each token once per destination node, "To
** align with the implementation in the DeepEP, we do not set the local node map to zeros"),
** so dlb_par_ep_dispatch_time's byte counts serve both. Carried to another device as DEEPEP_*
** are (an ASSUMPTION): the intranode figure over B200's NVLink (900 GB/s each way, NVIDIA DGX
** B200 datasheet), the RDMA figures over one 400 Gb/s NIC per GPU (50 GB/s; the README does
** not name its H100 cluster's NIC: DGX H100's ConnectX-7, one per GPU, assumed). */
static const double HYBRIDEP_INTRA[2] = { 535.94 / 900, 530.86 / 900 };
static const double HYBRIDEP_INTER[3][2] = { { 54.47 / 50, 53.35 / 50 },   /* 2 nodes (16 ranks) */
                                             { 47.36 / 50, 52.53 / 50 },   /* 4 nodes (32) */
                                             { 41.24 / 50, 46.57 / 50 } }; /* 8 nodes (64) */

/* Expected destinations a token reaches when its k experts are drawn uniformly without
** replacement from E experts held evenly by D destinations (ranks or nodes): D (1 - C(E -
** E/D, k) / C(E, k)) (balanced routing; 1 when D = 1). */
static double deepep_dests(double E, double k, double D) {
  if (D <= 1) return 1;
  double miss = 1, rest = E - E / D;
  for (int i = 0; i < (int)k; i++) miss *= rest - i > 0 ? (rest - i) / (E - i) : 0;
  return D * (1 - miss);
}

/* Seconds of one MoE layer's dispatch plus combine through DeepEP's normal kernels
** (DLB_DISPATCHER_DEEPEP) or Hybrid-EP's (DLB_DISPATCHER_HYBRIDEP: the same counts at
** HYBRIDEP_*'s rates) for a rank holding `copies` bytes of its tokens' top-k copies (moe_bytes' convention), over the
** flex dispatcher's group (Megatron-Core token_dispatcher.py, MoEFlexTokenDispatcher: the
** tp_ep group, etp x ep consecutive ranks): n expert slots of `rep` consecutive ranks each
** (rep = etp: _initialize_metadata expands the routing map over the expert-tensor ranks,
** "each TP ranks in a TP group should receive the same tokens", so a token chosen for an
** expert goes to all rep ranks holding its shards). The bytes are deduplicated by
** destination: copies / k x the expected destination ranks (rep x the slots reached, within
** a node) or nodes (across); each kernel pays the tier's latency once. The permutation is
** DeepEP's layout and the flex dispatcher's fused permute, which the graph's gather ops
** stand for (no separate all-to-all permutation). The links' eff (a collectives
** calibration) is not applied: the figures are achieved bandwidths. */
double dlb_par_ep_dispatch_time(int backend, double copies, double E, double k, double n,
                                double rep, const dlb_par_cluster *cl) {
  int hy = backend == DLB_DISPATCHER_HYBRIDEP;
  const double *fi = hy ? HYBRIDEP_INTRA : DEEPEP_INTRA;
  double ranks = n * rep;
  double g = ranks;   /* ranks of the group on one node */
  if (cl->per_node > 0) g = fmin(ranks, fmax(1, cl->per_node));
  double nodes = ceil(ranks / g);
  const dlb_par_link *li = cl->intra.bw > 0 ? &cl->intra : &cl->inter;
  if (nodes <= 1 || !(cl->inter.bw > 0)) {
    double b = copies / k * rep * deepep_dests(E, k, n);
    return 2 * li->latency + b / (fi[0] * li->bw) + b / (fi[1] * li->bw);
  }
  /* one NIC's share per device (cl->nics adapters for per_node devices) */
  double bw = cl->inter.bw;
  if (cl->nics > 0 && cl->per_node > 0 && cl->nics < cl->per_node)
    bw *= cl->nics / cl->per_node;
  int row = nodes <= 2 ? 0 : nodes <= 4 ? 1 : 2;
  const double *f = hy ? HYBRIDEP_INTER[row] : DEEPEP_INTER[row];
  double b = copies / k * deepep_dests(E, k, nodes);
  return 2 * cl->inter.latency + b / (f[0] * bw) + b / (f[1] * bw);
}

/* Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm; megatron/core/models/
** common/model_chunk_schedule_plan.py, TransformerLayerSchedulePlan.run, Megatron-LM main at
** d428de40): a MoE layer is five nodes, attention, post_attn (pre-MLP norm, router, dispatch
** preprocess), moe_dispatch, mlp (the experts), moe_combine; the forward layer of one
** micro-batch and the backward layer of another are issued in the order
**   comm_stream: combine_bwd            | dispatch_fwd->dispatch_bwd  | combine_fwd
**   comp_stream: attn_fwd->post_attn_fwd| mlp_bwd->mlp_bwd_dw->mlp_fwd| post_attn_bwd->attn_bwd
** ("overlapping the communications (dispatch or combine) of one with the computations (att or
** mlp) of the other"), each node waiting for its input: mlp_bwd for combine_bwd,
** dispatch_fwd for post_attn_fwd, dispatch_bwd for mlp_bwd, mlp_fwd for dispatch_fwd,
** combine_fwd for mlp_fwd, post_attn_bwd for dispatch_bwd (megatron/core/pipeline_parallel/
** utils.py, ScheduleNode: each node waits on its chunk's one event and records it, so a
** micro-batch's nodes run in issue order, the forward's and the backward's independently).
** Without --delay-wgrad-compute mlp_bwd_dw is empty (the weight gradients are in mlp_bwd).
** List scheduling of the eight nodes on the two streams, the computation running at 1 - f of
** its rate while an all-to-all runs beside it (f: the SMs the all-to-all's kernel holds,
** dlb_par_a2a_contention; planner_dp.c's rule, dlb_par_hidden: an all-to-all of C s beside
** more compute costs f C, beside less C - window); the all-to-all is not slowed. f = 0 is
** plain list scheduling. */
double dlb_par_combined_1f1b(double af, double mf, double mb, double pb, double af2, double ab2,
                             double f) {
  /* the nodes in issue order per stream, and the node each waits for (-1: none) */
  enum { A, MB, MF, PB, CB, DF, DB, CF, N };
  const double len[N] = { af, mb, mf, pb, ab2, af2, ab2, af2 };
  const int dep[N] = { -1, CB, DF, DB, -1, A, MB, MF };
  const int comp[4] = { A, MB, MF, PB }, comm[4] = { CB, DF, DB, CF };
  double left[N], end[N];
  int done[N] = { 0 };
  for (int i = 0; i < N; i++) left[i] = len[i], end[i] = 0;
  int ip = 0, ic = 0;   /* the next node of each stream */
  double t = 0;
  if (!(f >= 0 && f < 1)) f = 0;
  while (ip < 4 || ic < 4) {
    /* the node each stream runs now (-1: idle or waiting for its input) */
    int p = ip < 4 && (dep[comp[ip]] < 0 || done[dep[comp[ip]]]) ? comp[ip] : -1;
    int c = ic < 4 && (dep[comm[ic]] < 0 || done[dep[comm[ic]]]) ? comm[ic] : -1;
    double rate = c >= 0 ? 1 - f : 1;   /* the computation's rate beside an all-to-all */
    double tp = p >= 0 ? left[p] / rate : INFINITY, tc = c >= 0 ? left[c] : INFINITY;
    double dt = fmin(tp, tc);
    if (!(dt < INFINITY)) break;   /* (cannot happen: the dependencies are acyclic) */
    t += dt;
    /* whichever ends first ends at t (both when they tie); the other runs on */
    if (p >= 0) {
      if (tp <= dt) left[p] = 0, done[p] = 1, end[p] = t, ip++;
      else left[p] -= dt * rate;
    }
    if (c >= 0) {
      if (tc <= dt) left[c] = 0, done[c] = 1, end[c] = t, ic++;
      else left[c] -= dt;
    }
  }
  return fmax(end[PB], end[CF]);
}

/* The fraction of the computation's rate an all-to-all of the dispatcher takes (the SMs its
** kernel holds over the device's, dev->sm_count; 0 without an SM count, as
** lua/dlbench/contention.lua leaves a device without its counts uncontended):
**   DLB_DISPATCHER_DEEPEP    20 SMs: Megatron-Core TransformerConfig.moe_deepep_num_sms
**                            default 20 (megatron/core/transformer/transformer_config.py),
**                            DeepEP's Buffer.num_sms default 20 (deep_ep/buffer.py);
**   DLB_DISPATCHER_HYBRIDEP  16 SMs: TransformerConfig.moe_hybridep_num_sms default 16 (the
**                            versions read differ: 16, 24, None; 16 is also the SM count of
**                            the README figures HYBRIDEP_* take);
**   DLB_DISPATCHER_ALLTOALL  NCCL's all-to-all (torch.distributed.all_to_all_single: one
**                            grouped send/recv per peer) runs one CTA per p2p channel, and
**                            spreads the peers over all p2pnChannels of them: NCCL
**                            src/graph/paths.cc ncclTopoComputeP2pChannels, p2pnChannels =
**                            pow2Up(min(nChannels, NCCL_MAX_P2P_NCHANNELS = MAXCHANNELS)),
**                            nChannels the communicator's collective channels: 24 on every
**                            NVSwitch node whose NCCL logs the catalogue has
**                            (lua/dlbench/contention.lua: A100, H100, H200), so 32 CTAs. An
**                            ASSUMPTION for other devices (their logs are not read): the same
**                            32. */
double dlb_par_a2a_contention(int dispatcher, const dlb_roof *dev) {
  double ctas = dispatcher == DLB_DISPATCHER_DEEPEP ? 20
              : dispatcher == DLB_DISPATCHER_HYBRIDEP ? 16 : 32;
  if (!(dev->sm_count > ctas)) return 0;
  return ctas / dev->sm_count;
}

/* Megatron-Core's router and token dispatcher beyond the graph's gating matmul, softmax
** (standing for the fused top-k) and gather (the fused permute), as DLB_MOE_MCORE counts
** them (Megatron-Core 0.14-0.15 with moe_router_fusion, the aux-loss load balancing and the
** alltoall dispatcher, dropless; router.py TopKRouter.routing, _apply_aux_loss,
** attach_and_log_load_balancing_loss; moe_utils.py MoEAuxLossAutoScaler,
** save_to_aux_losses_tracker; token_dispatcher.py MoEAlltoAllTokenDispatcher.preprocess,
** _maybe_dtoh_and_synchronize, token_dispatch):
**   MCORE_AUX_FWD   the aux loss forward: the fused scores-for-aux-loss kernel, the
**                   tokens-per-expert sum, the fused aux-loss kernel, and the tracker's
**                   division and in-place add (per layer, not reduced until logging);
**   MCORE_AUX_BWD   its backward: MoEAuxLossAutoScaler's ones_like and scale, the fused
**                   aux-loss and scores backward kernels, and the add of the two gradients
**                   reaching the logits;
**   MCORE_PREP_WIDE the preprocess with ep or the experts' tensor degree > 1: the routing
**                   map's column sum and its cast to long, the input splits' sum, the
**                   gathered counts' slice (contiguous), the per-rank sum, the tensor-rank sum
**                   and the per-local-expert sum;
**   MCORE_PREP_LOCAL without either: the column sum and the cast;
**   MCORE_DTOH_*    the counts copied to the host on the dispatcher's side stream
**                   (tokens_per_expert, input_splits, output_splits, output_splits_tp; or
**                   tokens_per_expert alone): host ops, no time on the compute stream.
** The aux loss runs only with gradients on: under full recompute not in the first forward
** (torch.no_grad) but in the recomputed one. */
enum { MCORE_AUX_FWD = 5, MCORE_AUX_BWD = 5, MCORE_PREP_WIDE = 7, MCORE_PREP_LOCAL = 2,
       MCORE_DTOH_WIDE = 4, MCORE_DTOH_LOCAL = 1 };

int dlb_par_mcore_layer(const dlb_par_layer *l, const dlb_roof *dev, const dlb_par_cluster *cl,
                        const dlb_par_opts *o, double ep, double et, double tp, double cp,
                        double mbc, double load, double tl, int lrc, int side, dlb_par_stage *s) {
  int st = DLB_OK;
  /* Megatron-Core's alltoall dispatcher (token_dispatcher.py): with more than one
  ** local expert, "Permutation 2" sorts the received tokens by local expert after the
  ** dispatch and unsorts them before the combine (sort_chunks_by_idxs, or the
  ** drop-and-pad transpose): a memory-bound pass over the rank's received copies each
  ** (read and write), forward and their gradients backward, each an op the host issues */
  int deepep = o->moe_dispatcher == DLB_DISPATCHER_DEEPEP
    || o->moe_dispatcher == DLB_DISPATCHER_HYBRIDEP;
  /* the flex dispatcher (DeepEP, Hybrid-EP) has no second permutation: its one fused permute by
  ** expert is the graph's gather */
  if (l->experts / ep > 1 && !deepep) {
    int mbd;
    /* after the expert-tensor all-gather (et > 1, planner.c's ep block) the rank sorts
    ** et x the copies it received */
    double pb = (dev->bytes_scale > 0 ? dev->bytes_scale : 1) * 2 * l->moe_bytes * mbc
      * load / tl * (ep > 1 ? et : 1);
    double p2 = 2 * dlb_op_time_raw(dev, 0, pb, NULL, 0, &mbd);
    s->f += p2;
    s->b += p2 * ((lrc || side) ? 2 : 1);
    s->hf += 2 * dev->host_op;
    s->hb += 2 * dev->host_op * ((lrc || side) ? 2 : 1);
  }
  /* the router's aux loss and the dispatcher's token counts (MCORE_* above): small
  ** kernels over the counts (experts x 8 bytes; the tokens x experts maps they read, a
  ** few MB, are not counted: the launch floor dominates) through the per-op rule,
  ** each an op the host issues; with ep or etp > 1 the counts are all-gathered over the
  ** expert group (gather_from_sequence_parallel_region over tp_ep_group) and the
  ** routing probabilities travel by their own all-to-all each way (token_dispatch's
  ** second all_to_all; its bytes, tokens x top_k x 4, are not counted: latency) */
  {
    int wide = ep > 1 || et > 1;
    double kp = wide ? MCORE_PREP_WIDE : MCORE_PREP_LOCAL;
    double nd = wide ? MCORE_DTOH_WIDE : MCORE_DTOH_LOCAL;
    int mbd;
    double kt = dlb_op_time_raw(dev, 0, (dev->bytes_scale > 0 ? dev->bytes_scale : 1)
                                * l->experts * 8 * (wide ? ep * et : 1), NULL, 0, &mbd);
    s->f += (kp + (lrc ? 0 : MCORE_AUX_FWD)) * kt;
    s->b += (MCORE_AUX_BWD + (lrc ? kp + MCORE_AUX_FWD : 0)) * kt;
    s->hf += (kp + nd + (lrc ? 0 : MCORE_AUX_FWD)) * dev->host_op;
    s->hb += (MCORE_AUX_BWD + (lrc ? kp + nd + MCORE_AUX_FWD : 0)) * dev->host_op;
    /* the aux loss's token counts all-reduced over the attention's tensor x context
    ** ranks when there are several (moe_utils.py switch_load_balancing_loss_func:
    ** all_reduce(tokens_per_expert, group=sequence_partition_group), the router's
    ** tp_cp group; experts x 8 bytes, tp x cp consecutive ranks): with the aux loss,
    ** once per forward with gradients (issue 27, branch tp-ep) */
    if (tp * cp > 1) {
      double ab = l->experts * 8, art = 0;
      if (o->nccl) {
        st = dlb_par_nccl_allreduce(cl, ab, tp * cp,
                                    dlb_par_group_per_node(cl->per_node, 1, tp * cp), &art);
      } else {
        dlb_par_coll c1;
        st = dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, ab, tp * cp, 0,
                                dlb_par_group_link(cl, tp * cp), &c1);
        art = c1.time;
      }
      if (st) return st;
      s->epf += lrc ? 0 : art;
      s->epb += lrc ? art : 0;
      s->hf += lrc ? 0 : dev->host_op;
      s->hb += lrc ? dev->host_op : 0;
    }
    /* DeepEP's (and Hybrid-EP's) dispatch carries the top-k indices and weights with the tokens and
    ** returns the received counts itself: no counts' all-gather, no probabilities'
    ** all-to-all */
    if (wide && !deepep) {
      double ng = ep * et, cb = ng * l->experts * 8, ag = 0;
      dlb_par_coll c1, pa;
      if (o->nccl) {
        st = dlb_par_nccl_group(cl, DLB_COLL_ALLGATHER, cb, ng,
                                dlb_par_group_per_node(cl->per_node, 1, ng), &ag);
      } else {
        st = dlb_par_collective(DLB_COLL_ALLGATHER, DLB_ALGO_RING, cb, ng, 0,
                                dlb_par_group_link(cl, ng), &c1);
        ag = c1.time;
      }
      if (!st) st = dlb_par_alltoall_cluster(0, ep, et, cl, &pa);
      if (st) return st;
      s->epf += ag + pa.time;
      s->epb += pa.time + (lrc ? ag + pa.time : 0);
      s->hf += 2 * dev->host_op;
      s->hb += dev->host_op * (lrc ? 3 : 1);
    }
  }
  /* dropless (no capacity padding), the dispatcher's cuda_sync_point: the host waits
  ** for tokens_per_expert ("before_ep_alltoall", or "before_finish" with one local
  ** expert and no ep) once per MoE layer forward, and in its recomputed forward; the
  ** model meets the host and device at the layer's end */
  if (o->capacity == 0) {
    s->syncf = 1;                 /* (planner.c closes the layer's timeline with dlb_timeline_sync) */
    if (lrc || side) s->syncb = 1;
  }

  return DLB_OK;
}
