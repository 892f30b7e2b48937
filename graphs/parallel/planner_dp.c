/*
** planner_dp.c — the data-parallel collectives of one layout after the pipeline flush: the
** gradient reduction over the replicas (data x context ranks; the experts' over their own),
** ZeRO-3 / FSDP's all-gathers and reduce-scatters per micro-batch (one per FSDP unit, or the
** stage's bytes at once), HSDP's cross-group allreduce and the list-form gathers of
** DeepSpeed's 2021 ZeRO-3, each with what the backward and forward hide. Split from
** planner.c (one layout's evaluation), which calls dlb_par_dp_comm once per layout.
**
** Sources: ZeRO stages 1-3 and the 1.5x communication of stage 3 (Rajbhandari et al. 2020,
** sec. 5 and 7); PyTorch FSDP's units, HYBRID_SHARD and reduce dtype (Zhao et al. 2023 sec.
** 3.2-3.3; torch/distributed/fsdp); the collectives' rule is collective_impl.h's.
*/
#include <math.h>

#include "dlb_parallel.h"
#include "collective_impl.h"
#include "planner_impl.h"
#include "dlb_runtime.h"

/* ZeRO's partitioning of the model states (dlb_parallel.h): the one rule the planner's
** memory and dlb.parallel.zero_memory use. */
int dlb_par_zero_split(int zero, double n, double *w, double *g, double *o) {
  if (zero < 0 || zero > 3)
    return dlb_fail(DLB_EINVAL, "ZeRO stage must be 0..3, got %d", zero);
  if (!(n >= 1) || !isfinite(n))
    return dlb_fail(DLB_EINVAL, "ZeRO: the replicas must be a number >= 1, got %g", n);
  if (w) *w = zero >= 3 ? n : 1;
  if (g) *g = zero >= 2 ? n : 1;
  if (o) *o = zero >= 1 ? n : 1;
  return DLB_OK;
}

/* A collective beside compute (planner_impl.h): NCCL's kernel holds one CTA per channel,
** so the compute beside it runs on the other SMs, at 1 - f of its rate (f = CTAs / SMs,
** opts.contention). Over the collective's C seconds the compute does (1 - f) C of its work:
** if C <= window / (1 - f) the step lengthens by C - (1 - f) C = f C; else the compute ends
** first and the step lengthens by C - window. Both are max(C - window, f C) (they meet at
** C = window / (1 - f)). The collective is not slowed. */
double dlb_par_hidden(double comm, double window, double f) {
  return fmax(comm - window, f * comm);
}

/* A data-parallel-type allreduce under the plan's collectives (opts.nccl): the one rule
** of collective_impl.h, which dlb_par_data shares. */
static int dp_allreduce(const dlb_par_opts *o, const dlb_par_cluster *cl, double bytes,
                        double ranks, double per_node, int algo, const dlb_par_cluster *sub,
                        double *time) {
  dlb_par_coll c;
  int st = dlb_par_dp_allreduce(o->nccl != 0, cl, bytes, ranks, per_node, algo, sub, &c);
  *time = c.time;
  return st;
}

/* The seconds of a layout's data-parallel collectives not hidden (*dpt, planner_impl.h):
** the stages S[0..p) of layers L as planner.c accumulated them, bw the stage that sets the
** pipeline's pace (its backward and forward hide what overlap and fsdp_overlap say). */
int dlb_par_dp_comm(const dlb_par_layer *L, const dlb_par_stage *S, const dlb_par_stage *bw,
                    const dlb_roof *dev, const dlb_par_cluster *cl, const dlb_par_opts *o,
                    const dlb_par_dp_layout *y, double *dpt_out) {
  double tp = y->tp, pp = y->pp, ep = y->ep, etp = y->etp, dpc = y->dpc, hs = y->hs;
  double ze = y->ze, m = y->m, wb = y->wb, gb = y->gb;
  int zero = y->zero, p = y->p, K = y->K;
  const int *first = y->first;
  int st = DLB_OK;
  /* the fraction of the compute's rate a collective beside it takes (dlb_par_hidden) */
  double f = o->contention;
  /* Gradient allreduce across the replicas (data x context ranks), after the pipeline
  ** flush; groups of tp x pp devices are packed into nodes, so a node holds per_node/(tp pp)
  ** replicas. The experts' gradients are reduced over their own dp x cp / ep replicas. */
  double dpt = 0;
  if (dpc > 1) {
    /* the gradients of the trainable parameters are reduced; ZeRO-3 also gathers the
    ** weights (their own bytes) */
    double maxp = 0, maxw = 0, maxpe = 0, maxwe = 0;
    for (int d = 0; d < p; d++) {
      if (S[d].trainable > maxp) maxp = S[d].trainable;
      if (S[d].wbytes > maxw) maxw = S[d].wbytes;
      if (S[d].etrain > maxpe) maxpe = S[d].etrain;
      if (S[d].ewb > maxwe) maxwe = S[d].ewb;
    }
    dlb_par_cluster sub = *cl;
    sub.per_node = cl->per_node > 0 ? floor(cl->per_node / (tp * pp)) : 0;
    sub.nodes = 0;  /* replicas per node is a packing estimate: the layout was sized above */
    if (cl->per_node > 0 && sub.per_node < 1) sub.per_node = 1;
    if (cl->per_node > 0 && sub.per_node == 1 && cl->inter.bw > 0) sub.intra.bw = 0;
    int algo = (int)o->dp_algo;
    if (o->dp_algo != algo || algo < 0 || algo >= DLB_ALGO_NALGOS) algo = DLB_ALGO_RING;
    /* the shard group of ZeRO-3's gathers: all replicas, or the HSDP group within a node */
    double zn = hs > 0 ? hs : dpc;
    dlb_par_cluster zsub = sub;
    double zpn = dlb_par_group_per_node(cl->per_node, tp * pp, zn);   /* its ranks per node (NCCL) */
    if (hs > 0 && (cl->per_node <= 0 || hs <= sub.per_node)) {
      zsub.per_node = 0;   /* one node: its intra links */
      zsub.inter.bw = 0;
      zpn = zn;
      if (!(zsub.intra.bw > 0)) zsub = sub;
    }
    /* the reduction moves the gradients at the stack's reduce dtype (PyTorch FSDP
    ** MixedPrecision.reduce_dtype: torch/distributed/fsdp/api.py; Composer's
    ** mixed_precision DEFAULT reduces in fp32, composer/distributed/mosaic_fsdp_utils.py
    ** get_mixed_precision; torchtitan's training.mixed_precision_reduce = "float32"), which
    ** may be wider than the gradients held (g_bytes) */
    double rb = o->reduce_bytes > 0 ? o->reduce_bytes : gb;
    dlb_par_coll c, ce = { 0 };
    st = dp_allreduce(o, cl, maxp * rb, zn, zpn, algo, &zsub, &c.time);
    if (st) return st;
    dlb_par_cluster esub = sub;
    double epn = dlb_par_group_per_node(cl->per_node, etp * pp * ep, ze);   /* ranks per node (NCCL) */
    if (ep > 1 && ze > 1 && maxpe > 0) {
      esub.per_node = cl->per_node > 0 ? fmax(1, floor(cl->per_node / (etp * pp * ep))) : 0;
      if (cl->per_node > 0 && esub.per_node == 1 && cl->inter.bw > 0) esub.intra.bw = 0;
      st = dp_allreduce(o, cl, maxpe * rb, ze, epn, algo, &esub, &ce.time);
      if (st) return st;
    }
    if (zero >= 3) {
      /* ZeRO-3 / FSDP gathers a layer's parameters for every micro-batch's forward and
      ** backward and reduce-scatters its gradients after every micro-batch's backward
      ** (Rajbhandari et al. 2020 sec. 5.3 and 7: 1.5x the allreduce volume, per
      ** micro-batch under gradient accumulation): m x 1.5 allreduce volumes. The
      ** backward's all-gather and reduce-scatter (one allreduce volume) hide under
      ** `overlap` of each backward, the forward all-gather (half) under fsdp_overlap of
      ** each forward. */
      /* an allreduce volume is a reduce-scatter of the gradients plus an all-gather of the
      ** weights; with frozen or quantised weights the two differ */
      dlb_par_coll cw, cwe = { 0 };
      st = dp_allreduce(o, cl, maxw, zn, zpn, algo, &zsub, &cw.time);
      if (!st && ep > 1 && ze > 1 && maxwe > 0)
        st = dp_allreduce(o, cl, maxwe, ze, epn, algo, &esub, &cwe.time);
      if (st) return st;
      double gather = 0.5 * (cw.time + cwe.time), rs = 0.5 * (c.time + ce.time);
      if (o->gather_tensors == 0) {
        /* FSDP issues one all-gather and one reduce-scatter per FSDP unit, one FlatParameter
        ** per wrapped block (Zhao et al. 2023 sec. 3.2-3.3; torch/distributed/fsdp/
        ** _runtime_utils.py: _unshard and _reduce_grad run one collective per handle), so
        ** each pays its own latency and is timed at its own size (NCCL picks the algorithm
        ** and protocol by size: nccl.c). The dense part is the sum over the stage's layers,
        ** one unit each, not one collective of the stage's bytes; the busiest stage sets it.
        ** The experts' (cwe, ce) stay one collective per stage. */
        double gmax = 0, rmax = 0;
        for (int d = 0; d < p && !st; d++) {
          double gs = 0, rsum = 0, lw = -1, lwt = 0, lr = -1, lrt = 0;
          for (int ch = d; ch < K && !st; ch += p) {
            for (int i = first[ch]; i < first[ch + 1] && !st; i++) {
              const dlb_par_layer *l = &L[i];
              if (l->shardable > 0 && o->shard) continue;   /* not in the stage's wbytes */
              double tl = l->tp_bytes > 0 ? tp : 1;
              double ef = l->params > 0 && l->expert_params > 0 ? l->expert_params / l->params : 0;
              double wl = dlb_par_layer_wbytes(l, wb) * (1 - ef) / tl;
              double tr = dlb_par_layer_trainable(l) * (1 - ef) / tl * rb;
              /* consecutive blocks have the same bytes: reuse the last time */
              if (wl > 0 && wl != lw) { st = dp_allreduce(o, cl, wl, zn, zpn, algo, &zsub, &lwt); lw = wl; }
              if (!st && tr > 0 && tr != lr) { st = dp_allreduce(o, cl, tr, zn, zpn, algo, &zsub, &lrt); lr = tr; }
              gs += wl > 0 ? lwt : 0;
              rsum += tr > 0 ? lrt : 0;
            }
          }
          if (gs > gmax) gmax = gs;
          if (rsum > rmax) rmax = rsum;
        }
        if (st) return st;
        gather = 0.5 * (gmax + cwe.time);
        rs = 0.5 * (rmax + ce.time);
      }
      dpt = m * (dlb_par_hidden(gather + rs, o->overlap * bw->b, f)
                 + dlb_par_hidden(gather, o->fsdp_overlap * bw->f, f));
      if (hs > 0) {
        /* HSDP (PyTorch FSDP HYBRID_SHARD; Zhao et al. 2023 sec. 3.2.2): the gradient shard
        ** (1/hs) is all-reduced across the dp x cp / hs groups once per step, after the
        ** last backward, under `overlap` of it */
        dlb_par_cluster rsub = sub;
        rsub.per_node = 1;
        if (cl->inter.bw > 0) rsub.intra.bw = 0;
        dlb_par_coll cr;
        st = dp_allreduce(o, cl, maxp * rb / hs, dpc / hs, 1, algo, &rsub, &cr.time);
        if (st) return st;
        dpt += dlb_par_hidden(cr.time, o->overlap * bw->b, f);
      }
      /* All-gathers issued in the list form (torch.distributed.all_gather with one output
      ** tensor per rank, as DeepSpeed's 2021 ZeRO-3 did for every parameter tensor,
      ** partition_parameters.py _allgather_param) copy each rank's part out of the flat
      ** NCCL buffer: one kernel per rank per gather. Two gathers (forward, backward) per
      ** tensor per micro-batch, not hidden; their bytes are already in c.time. */
      if (o->gather_tensors > 0) {
        /* each such gather is a collective of its own and pays its latency (half an
        ** allreduce's: one pass around the ring instead of two) */
        dlb_par_coll c0;
        st = dp_allreduce(o, cl, 0, zn, zpn, algo, &zsub, &c0.time);
        if (st) return st;
        dpt += m * 2 * o->gather_tensors * bw->nl * (zn * dev->kernel_overhead + 0.5 * c0.time);
      }
    } else {
      /* the gradient allreduce after the flush hides under `overlap` of the last backward */
      dpt = dlb_par_hidden(c.time + ce.time, o->overlap * bw->b, f);
    }
  }
  *dpt_out = dpt;
  return DLB_OK;
}
