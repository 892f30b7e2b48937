/*
** planner.c — 3-D parallel training plans: evaluate one (data x tensor x pipeline) layout
** with micro-batches, schedule, activation recompute and ZeRO stage on a per-layer cost
** array (the search over all layouts of a cluster is planner_search.c; the data-parallel
** collectives after the pipeline flush, gradient reduction and ZeRO-3 / FSDP / HSDP, are
** planner_dp.c's; the entry points, dlb_par_evaluate* and the prepared model, are
** planner_model.c's).
**
** Sources: Megatron-LM tensor parallelism, two allreduces per transformer layer forward and
** two backward (Shoeybi et al. 2019); pipeline schedules and the (p-1)/v bubble (Narayanan et
** al. 2021); sequence parallelism and activation memory (Korthikanti et al. 2022); ZeRO
** stages 1-3 and the 1.5x communication of stage 3 (Rajbhandari et al. 2020, sec. 5 and 7).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_parallel.h"
#include "dlb_roofline.h"
#include "collective_impl.h"
#include "planner_ops.h"
#include "planner_impl.h"
#include "roofline_impl.h"
#include "dlb_runtime.h"

/* Bytes per parameter of weights, gradients, optimizer state: mixed-precision Adam by
** default (2 + 2 + 12, Rajbhandari et al. 2020 sec. 3.1). */
static void param_bytes(const dlb_par_opts *o, double *wb, double *gb, double *ob) {
  int any = o->w_bytes > 0 || o->g_bytes > 0 || o->o_bytes > 0;
  *wb = any ? o->w_bytes : 2;
  *gb = any ? o->g_bytes : 2;
  *ob = any ? o->o_bytes : 12;
}

/* The link a group of `span` consecutive devices communicates on. */
const dlb_par_link *dlb_par_group_link(const dlb_par_cluster *cl, double span) {
  if (cl->intra.bw > 0 && (cl->per_node <= 0 || span <= cl->per_node || !(cl->inter.bw > 0)))
    return &cl->intra;
  return cl->inter.bw > 0 ? &cl->inter : &cl->intra;
}

/* Whether full recompute runs a layer's forward again: as its rerun says (a graph's layers:
** the graph path's rule, dlb_layer_reruns in graphs/step/train.c: a layer that reads the hidden
** state and holds no loss; BERT's embedding LayerNorm and pooler, T5's decoder embedding run
** once, issue [18] item 5), else every layer but the model's input layer (act_in 0: nothing
** before it, the embedding) and its loss layer (act_out 0: the head and the cross-entropy).
** The stacks checkpoint the blocks between them: llm-foundry /
** Composer's activation_checkpointing_fn selects MPTBlock modules (llmfoundry/models/mpt/
** modeling_mpt.py), torchtitan's apply_ac wraps each TransformerBlock of model.layers,
** Megatron-LM's _checkpointed_forward loops over the transformer layers only (the embedding
** and the output layer run outside ParallelTransformer), Hugging Face's
** gradient_checkpointing_enable checkpoints each decoder layer; PyTorch's
** checkpoint_sequential runs its last segment without a checkpoint. The memory rule (issue
** [18] item 5): a layer that runs once keeps what it saves, a rebuilt block its input, and
** the working set is the largest rebuilt block's beyond the layers after the last one (their
** backward runs first): max(the loss's moment, a block's rebuild), the graph path's peak. */
static int recompute_layer(const dlb_par_layer *l) {
  if (l->rerun != 0) return l->rerun > 0;
  return l->act_in > 0 && l->act_out > 0;
}

/* one device's accumulation of a layout (planner_impl.h) */
typedef dlb_par_stage stage;
/* A layer's backward through the host-side timeline from a synchronisation point, and
** whether it ends at one (the host model's pieces, dlb_par_layout_eval) */
typedef struct bpiece { dlb_timeline t; double k; int sync; } bpiece;

/* A run of consecutive layers of one chunk that add the same to the timeline (a model's
** blocks): their class's cached segments (sf, sb), what each adds beyond them forward (rdf,
** rhf) and backward (rdb, rhb, with lrc: its forward recomputed), and the layers (k); fp, the
** forward of one of them (its segment, then its rest), applied k times (dlb_timeline_seg)
** when the run ends; its backward piece is bp[i] of its first layer i, with bp[i].k = k. A
** layer that ends at a synchronisation point runs alone (sync). */
typedef struct hrun {
  dlb_timeline sf, sb, fp;
  double rdf, rhf, rdb, rhb, k;
  int lrc, syncf, syncb, i;
} hrun;

/* Whether the layer with segments sf, sb (lrc: its forward recomputed), rests rd[4] (rdf, rhf,
** rdb, rhb) and no synchronisation point adds what run `a` adds: the same segments exactly,
** the same rests within tol (the rests are differences of running totals, so equal layers
** differ by their rounding), the run not at a synchronisation point. */
static int same_run(const hrun *a, const dlb_timeline *sf, const dlb_timeline *sb, int lrc,
                    const double *rd, double tol) {
  return a->k > 0 && !a->syncf && !a->syncb && a->lrc == lrc &&
         a->sf.host == sf->host && a->sf.dev == sf->dev && a->sf.idle == sf->idle &&
         a->sf.busy == sf->busy && a->sb.host == sb->host && a->sb.dev == sb->dev &&
         a->sb.idle == sb->idle && a->sb.busy == sb->busy &&
         fabs(a->rdf - rd[0]) <= tol && fabs(a->rhf - rd[1]) <= tol &&
         fabs(a->rdb - rd[2]) <= tol && fabs(a->rhb - rd[3]) <= tol;
}

/* End run r of stage s's forward: its layers' forward through the stage's timeline. */
static void end_run(dlb_par_stage *s, hrun *r) {
  if (!(r->k > 0)) return;
  dlb_timeline_seg(&s->tlf, &r->fp, r->k);
  if (r->syncf) dlb_timeline_sync(&s->tlf);
  r->k = 0;
}

/* What a layer adds to a phase beyond its ops' segment (rd device seconds, rh host seconds:
** its collectives, its experts' extra load, recompute's reruns, the further per-expert
** launches) through timeline t as the ops the host issues for it: rh / host_op of them (at
** least one), sharing rd evenly (dlb_timeline_seg: one op, k times). */
static void layer_rest(dlb_timeline *t, double rd, double rh, double host_op) {
  double k = rh >= 1.5 * host_op && host_op > 0 ? floor(rh / host_op + 0.5) : 1;
  if (!(k > 1)) {
    dlb_timeline_op(t, rd, rh);
    return;
  }
  dlb_timeline one = { 0, 0, 0, 0 };
  dlb_timeline_op(&one, rd / k, rh / k);
  dlb_timeline_seg(t, &one, k);
}

enum { MAX_STAGES = 4096 };

/* `checked`: the search already validated the inputs and enumerates only possible layouts
** (whole micro-batches, tp dividing tp_div, within the cluster), so those checks are skipped. */
int dlb_par_layout_eval(const dlb_par_layer *L, int n, dlb_layer_times *LT, const dlb_roof *dev,
                        const dlb_par_cluster *cl, const dlb_par_opts *o,
                        const dlb_par_row *cfg, dlb_par_row *out, double *stage_mem,
                        int checked) {
  int st;
  if (!cfg || !out) return dlb_fail(DLB_EINVAL, "plan: missing configuration or result");
  double dp = cfg->dp, tp = cfg->tp, pp = cfg->pp, m = cfg->m;
  double ep = cfg->ep > 0 ? cfg->ep : 1, cp = cfg->cp > 0 ? cfg->cp : 1;
  double hs = cfg->hsdp;
  double etp = cfg->etp > 0 ? cfg->etp : tp;
  int sched = (int)cfg->sched, zero = (int)cfg->zero;
  /* the recompute policy: full (the layer's forward again from its input, Narayanan et al.
  ** 2021 sec. 3.5) or selective (the attention core's forward again, Korthikanti et al.
  ** 2022 sec. 5) */
  int rcp = (cfg->recompute >= DLB_PAR_RECOMPUTE_NONE && cfg->recompute <= DLB_PAR_RECOMPUTE_OP)
    ? (int)cfg->recompute : -1;
  if (rcp < 0 || cfg->recompute != rcp)
    return dlb_fail(DLB_EINVAL, "plan: recompute must be 0 (none), 1 (full), 2 (selective: "
                    "the attention core) or 3 (torchtitan's per-op selective AC), got %g",
                    cfg->recompute);
  int rc = rcp == DLB_PAR_RECOMPUTE_FULL, sel = rcp == DLB_PAR_RECOMPUTE_SELECTIVE;
  int sop = rcp == DLB_PAR_RECOMPUTE_OP;
  /* selective recompute's Megatron-Core modules (opts.recompute_modules, DLB_RCM_*; 0: the
  ** attention core, its default): the core by its own rule (selc), the others by the ops'
  ** modules (dlb_layer_rcm) */
  int mods = (o->recompute_modules >= 0 && o->recompute_modules < 64)
    ? (int)o->recompute_modules : 0;   /* cast only a value in range; checked below */
  int selc = sel && (mods == 0 || (mods & DLB_RCM_CORE_ATTN));
  int rcm = sel ? (mods & ~DLB_RCM_CORE_ATTN) : 0;
  /* recompute_every picks the blocks full recompute checkpoints: under another policy it
  ** would change nothing, so it is refused rather than ignored (the search checks its own
  ** policy once, dlb_par_plan_new_ops, and also evaluates layouts without recompute) */
  if (!checked && o->recompute_every > 1 && !rc)
    return dlb_fail(DLB_EINVAL, "plan: recompute_every = %g applies to full recompute only "
                    "(recompute 1), got recompute %d", o->recompute_every, rcp);
  if (!checked && o->recompute_modules != 0 && !sel)
    return dlb_fail(DLB_EINVAL, "plan: recompute_modules applies to selective recompute only "
                    "(recompute 2: Megatron-Core's recompute_granularity \"selective\"), got "
                    "recompute %d", rcp);
  if (!checked && (st = dlb_layer_rcm_check(LT, o->recompute_modules))) return st;
  /* cast only a value in range (a NaN or huge double cast to int is undefined) */
  int ca = (cfg->cp_algo >= DLB_CP_RING && cfg->cp_algo <= DLB_CP_ALLTOALL) ? (int)cfg->cp_algo : -1;
  if (!dlb_par_whole(dp) || !dlb_par_whole(tp) || !dlb_par_whole(pp) || !dlb_par_whole(m))
    return dlb_fail(DLB_EINVAL, "plan: dp, tp, pp and m must be whole numbers >= 1 "
                    "(got %g, %g, %g, %g)", dp, tp, pp, m);
  if (!dlb_par_whole(ep) || !dlb_par_whole(cp))
    return dlb_fail(DLB_EINVAL, "plan: ep and cp must be whole numbers >= 1 (got %g, %g)", ep, cp);
  double dpc = dp * cp;   /* the replicas of the weights: data x context ranks */
  if (!checked) {
    if ((st = dlb_par_cluster_check("plan", cl, dp * tp * pp * cp))) return st;
    if (cfg->cp_algo != ca || ca < DLB_CP_RING || ca > DLB_CP_ALLTOALL)
      return dlb_fail(DLB_EINVAL, "plan: cp_algo must be 0 (ring), 1 (allgather) or 2 "
                      "(alltoall), got %g", cfg->cp_algo);
    if (!dlb_par_whole(etp) || fmod(tp, etp) != 0)
      return dlb_fail(DLB_EINVAL, "plan: etp %g (the experts' tensor degree) must divide tp %g",
                      etp, tp);
    if (etp == tp && fmod(dpc, ep) != 0)
      return dlb_fail(DLB_EINVAL, "plan: ep %g does not divide dp x cp = %g", ep, dpc);
    if (fmod(tp * dpc, ep * etp) != 0)
      return dlb_fail(DLB_EINVAL, "plan: ep %g x etp %g does not divide tp x dp x cp = %g (the "
                      "expert layers are laid out etp x ep x their dp over those ranks)", ep,
                      etp, tp * dpc);
    for (int i = 0; i < n && ep > 1; i++)
      if (L[i].experts > 0 && fmod(L[i].experts, ep) != 0)
        return dlb_fail(DLB_EINVAL, "plan: ep %g does not divide the %g experts of layer %d",
                        ep, L[i].experts, i + 1);
    if (ep > 1) {
      int any = 0;
      for (int i = 0; i < n; i++) any |= L[i].experts > 0;
      if (!any) return dlb_fail(DLB_EINVAL, "plan: ep %g but the model has no MoE layer "
                                "(layers with experts)", ep);
    }
    if (cp > 1 && ca == DLB_CP_ALLTOALL)
      for (int i = 0; i < n; i++)
        if (L[i].kv_bytes > 0 && L[i].tp_div > 0 && fmod(L[i].tp_div, tp * cp) != 0)
          return dlb_fail(DLB_EINVAL, "plan: all-to-all context parallelism (Ulysses) splits "
                          "the heads over tp x cp = %g ranks, which does not divide the %g "
                          "heads/hidden units of layer %d", tp * cp, L[i].tp_div, i + 1);
    if (!(hs == 0 || (dlb_par_whole(hs) && fmod(dpc, hs) == 0)))
      return dlb_fail(DLB_EINVAL, "plan: hsdp %g must divide dp x cp = %g (0: no hybrid "
                      "sharding)", hs, dpc);
    if (hs > 0 && (zero != 3 || ep > 1))
      return dlb_fail(DLB_EINVAL, "plan: hsdp (hybrid sharding) needs ZeRO stage 3 and ep 1 "
                      "(got zero %d, ep %g)", zero, ep);
  }
  if (hs >= dpc) hs = 0;  /* one shard group of all replicas: plain ZeRO-3 */
  /* batch = dp x m x mb with a whole micro-batch mb >= 1 */
  if (!checked && fmod(o->batch, dp) != 0)
    return dlb_fail(DLB_EINVAL, "plan: a batch of %g does not split over dp %g replicas "
                    "(%g samples each): the batch must be a multiple of dp", o->batch, dp,
                    o->batch / dp);
  if (!checked && fmod(o->batch / dp, m) != 0)
    return dlb_fail(DLB_EINVAL, "plan: %g samples per replica (batch %g / dp %g) do not split "
                    "into m %g micro-batches (%g samples each): batch/dp must be a multiple of m",
                    o->batch / dp, o->batch, dp, m, o->batch / dp / m);
  int bad = checked ? -1 : dlb_par_tp_misfit(L, n, tp);
  if (bad >= 0)
    return dlb_fail(DLB_EINVAL, "plan: tp %g does not divide the %g heads/hidden units of "
                    "layer %d (tp must divide %g)", tp, L[bad].tp_div, bad + 1, L[bad].tp_div);
  if (cfg->sched != sched || sched < DLB_SCHED_GPIPE || sched > DLB_SCHED_INTERLEAVED)
    return dlb_fail(DLB_EINVAL, "plan: unknown schedule %g", cfg->sched);
  if (cfg->zero != zero || zero < 0 || zero > 3)
    return dlb_fail(DLB_EINVAL, "plan: ZeRO stage must be 0..3, got %g", cfg->zero);
  double v = sched == DLB_SCHED_INTERLEAVED ? (cfg->v > 0 ? cfg->v : 2) : 1;
  if (!dlb_par_whole(v)) return dlb_fail(DLB_EINVAL, "plan: v must be a whole number, got %g", v);
  if (pp * v > n || pp * v > MAX_STAGES)
    return dlb_fail(DLB_EINVAL, "plan: %g pipeline chunks (pp %g x v %g) for %d layers "
                    "(at most one chunk per layer)", pp * v, pp, v, n);
  int p = (int)pp, K = (int)(pp * v);
  /* Megatron-Core's combined 1F1B (opts.moe_a2a_overlap) where the layout can run it; an
  ** evaluated layout that cannot is refused with TransformerConfig's own asserts
  ** (megatron/core/transformer/transformer_config.py, the overlap_moe_expert_parallel_comm
  ** block): expert parallelism, no full recompute, no "moe" recompute module, and with pp > 1
  ** the interleaved schedule ("virtual_pipeline_model_parallel_size must be specified") */
  int a2aov = 0;
  if (o->moe_a2a_overlap == 1) {
    const char *why = ep <= 1 ? "needs expert parallelism (ep > 1)"
      : rc ? "cannot run with full recompute (\"Disable full recomputation\")"
      : (rcm & DLB_RCM_MOE) ? "cannot run with the \"moe\" recompute module"
      : (pp > 1 && sched != DLB_SCHED_INTERLEAVED) ? "needs the interleaved schedule when pp > 1"
      : NULL;
    if (why && !checked)
      return dlb_fail(DLB_EINVAL, "plan: moe_a2a_overlap (Megatron-Core's combined 1F1B) %s; "
                      "layout ep %g, pp %g, recompute %d", why, ep, pp, rcp);
    a2aov = why == NULL;
  }
  double mb = o->batch / (dp * m);
  /* context parallelism: each device holds 1/cp of every sample's tokens (Megatron-Core
  ** splits the sequence in 2 cp chunks and gives rank r chunks r and 2cp-1-r, so causal
  ** attention's work is balanced too): every per-sample cost is divided by cp */
  double mbc = mb / cp;
  /* Megatron's fused-softmax rule reads the attention batches b x heads / tp of a rank: the
  ** whole micro-batch under ring or all-gather context parallelism (each rank's queries of
  ** every sample), b / cp's worth under all-to-all (the heads split over tp x cp): the
  ** factor from mbc back to the rule's samples (planner_ops.c softmax_kernels) */
  dlb_layer_times_cp(LT, cp > 1 && ca != DLB_CP_ALLTOALL ? cp : 1);
  double wb, gb, ob;
  param_bytes(o, &wb, &gb, &ob);
  int sp = o->seq_par != 0;
  int moe = o->moe_impl == DLB_MOE_MCORE ? DLB_MOE_MCORE : DLB_MOE_GRAPH;
  /* the busiest expert's tokens over the mean: padded to the capacity factor (Fedus et al.
  ** 2022, Switch Transformer sec. 2.2: expert capacity = tokens/experts x capacity factor,
  ** every expert's buffer that size), or dropless at the routing imbalance */
  double load = o->capacity > 0 ? o->capacity : (o->imbalance > 1 ? o->imbalance : 1);

  /* Balanced split into K chunks; chunk c runs on device c mod pp. By count (DLB_BALANCE_LAYERS,
  ** Megatron-Core's account_for_* split) the layers must divide into the K chunks (Megatron-Core
  ** asserts "num_layers should be divisible by pipeline_model_parallel_size" and the virtual
  ** stages' likewise); the search (planner_search.c) enumerates only such layouts. */
  if (o->balance == DLB_BALANCE_LAYERS && n % K != 0)
    return dlb_fail(DLB_EINVAL, "plan: balance \"layers\" (Megatron-Core's split by count, the "
                    "embedding and the loss one layer each) needs the %d layers to divide into "
                    "pp %g x v %g = %d chunks", n, pp, v, K);
  double *w = dlb_malloc(sizeof(double) * (size_t)n);
  int *first = dlb_malloc(sizeof(int) * (size_t)(K + 1));
  stage *S = dlb_calloc((size_t)p, sizeof(stage));
  if (!w || !first || !S) {
    dlb_free(w); dlb_free(first); dlb_free(S);
    return dlb_fail(DLB_ENOMEM, "plan: out of memory");
  }
  for (int i = 0; i < n; i++) {
    double tl = L[i].tp_bytes > 0 ? tp : 1;
    w[i] = o->balance == DLB_BALANCE_MEMORY
      ? (dlb_par_layer_wbytes(&L[i], wb) + dlb_par_layer_trainable(&L[i]) * (gb + ob)) / tl
        + (L[i].act_kept / tl + L[i].act_rep) * mbc
      : (L[i].flops_fwd + L[i].flops_bwd) / tl + 1e-30 * L[i].bytes_sample;
  }
  if (o->balance == DLB_BALANCE_LAYERS) {
    for (int c = 0; c < K; c++) first[c] = c * (n / K);
  } else {
    st = dlb_par_partition(w, n, K, first);
    if (st) { dlb_free(w); dlb_free(first); dlb_free(S); return st; }
  }
  first[K] = n;

  const dlb_par_link *tplink = dlb_par_group_link(cl, tp);
  const dlb_par_link *pplink = dlb_par_group_link(cl, tp * cp * pp);
  const dlb_par_link *cplink = dlb_par_group_link(cl, tp * cp);
  /* With collectives as NCCL runs them, a stage-to-stage send across nodes shares the node's
  ** NICs with the node's other senders (every device of a node sends its own activation at
  ** once): nics x inter.bw / per_node each, the data-parallel groups' rule (issue [19]). */
  dlb_par_link ppshare;
  if (o->nccl && pplink == &cl->inter && cl->nics > 0 && cl->per_node > 0) {
    ppshare = cl->inter;
    ppshare.bw = cl->inter.bw * cl->nics / cl->per_node;
    pplink = &ppshare;
  }
  /* The host-side model (issue [19]), a device with host_op or host_layer > 0: each stage's
  ** micro-batch forward (dlb_par_stage.tlf) and each layer's backward piece (bp[i]: its
  ** recomputed forward, the rest it adds as one op, its backward ops; sync: it ends at a
  ** synchronisation point) through the one timeline rule of graphs/hw/roofline_impl.h, so a
  ** device waits for the host exactly as dlb_step_time has it (dlb.roofline.time, the
  ** compiled sweep); composed per stage after the layers (below). */
  int host = dev->host_op > 0 || dev->host_layer > 0;
  bpiece *bp = host ? dlb_malloc(sizeof(bpiece) * (size_t)n) : NULL;
  if (host && !bp) {
    dlb_free(w); dlb_free(first); dlb_free(S);
    return dlb_fail(DLB_ENOMEM, "plan: out of memory");
  }
  double shard_total = 0, shard_t = 0, shard_w = 0;
  /* the expert-tensor all-gather + reduce-scatter of the last MoE layer timed (bytes,
  ** seconds): the same for every MoE layer of a model, timed once a layout */
  double etmemo[2] = { -1, 0 };
  /* likewise a layer's tensor-parallel collective pair (bytes, seconds) and its
  ** context-parallel exchanges (bytes, the two collectives' seconds): a layout's blocks
  ** repeat the last block's bytes, so each is timed once (the same call, the same value) */
  double tpmemo[3] = { -1, 0, 0 }, cpmemo[3] = { -1, 0, 0 };
  /* the blocks counted in layer order (opts.recompute_every: every k-th is checkpointed) */
  int nblk = 0, every = (int)o->recompute_every;
  for (int c = 0; c < K; c++) {
    stage *s = &S[c % p];
    s->nl += first[c + 1] - first[c];
    /* with a pipeline the host and the device meet at each chunk's receive (p2p below) */
    if (host && p > 1) dlb_timeline_sync(&s->tlf);
    hrun run;   /* the chunk's current run of equal layers (host model) */
    run.k = 0;
    for (int i = first[c]; i < first[c + 1]; i++) {
      const dlb_par_layer *l = &L[i];
      /* the backward's seconds before this layer's (its piece is what it adds) */
      double b0 = s->b + s->tpb + s->epb + s->cpb, hb0 = s->hb;
      s->syncf = s->syncb = 0;
      /* full recompute checkpoints the blocks between the model's input layer and its loss
      ** layer: the first (reading the inputs, act_in 0: the embedding) and the last (the
      ** loss, act_out 0: the head and the cross-entropy) run once (see recompute_layer);
      ** with opts.recompute_every = k only the k-th, 2k-th, ... block */
      int blk = recompute_layer(l);
      nblk += blk;
      int lrc = rc && blk && (every <= 1 || nblk % every == 0);
      double tl = l->tp_bytes > 0 ? tp : 1;
      /* the layer's times, host seconds and update work, cached per layer class */
      dlb_layer_cost lc;
      st = dlb_layer_times_cost(LT, dev, i, mbc, tl, l->experts > 0 ? ep : 1, sp, moe, &lc);
      if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
      double tf = lc.tf, tb = lc.tb, tu = lc.tu, af = lc.af, ab = lc.ab, cf = lc.cf;
      double mfx = lc.mf, mbx = lc.mb;   /* the experts' side (the combined 1F1B, below) */
      double ef = l->params > 0 && l->expert_params > 0 ? l->expert_params / l->params : 0;
      if (l->expert_frac > 0 && load != 1) {   /* the busiest expert sets the MoE block's time */
        double k = 1 + l->expert_frac * (load - 1);
        tf *= k; tb *= k; mfx *= k; mbx *= k;
      }
      s->f += tf;
      /* selective recompute's other Megatron-Core modules (layernorm, mlp, moe, moe_act):
      ** their forward ops again in the backward (dlb_layer_rcm) */
      dlb_par_rcm rr;
      memset(&rr, 0, sizeof rr);
      if (rcm) {
        st = dlb_layer_rcm(LT, dev, i, mbc, tl, l->experts > 0 ? ep : 1, sp, moe, rcm, load, &rr);
        if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
      }
      /* full recompute runs the layer's forward again before its backward; selective only
      ** the attention core's forward (Korthikanti et al. 2022 sec. 5: the extra compute is
      ** the forward of Q K^T, softmax, dropout and the attention over V) */
      s->b += tb + (lrc ? tf : 0) + (selc ? cf : 0) + rr.time;
      s->rcf += rr.flops;
      /* torchtitan's per-op selective AC wraps the same blocks as full recompute (every one:
      ** its "op" option excludes the layer-level one) and runs their forward ops again but
      ** the saved ones (dlb_layer_sac) */
      int lop = sop && blk;
      double srt = 0, srf = 0, srh = 0, skept = 0;
      if (lop) {
        st = dlb_layer_sac(LT, dev, i, mbc, tl, l->experts > 0 ? ep : 1, sp, moe, &srt, &srf,
                           &srh, &skept);
        if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
        s->b += srt;
        s->rcf += srf;
      }
      /* ZeRO partitions the update over the replicas: dense over dp x cp (or the HSDP shard
      ** group), experts over their dp x cp / ep */
      double et = tl > 1 ? etp : 1;   /* the experts' tensor degree on this layer */
      double ushare = (1 - ef) / (zero >= 1 ? (hs > 0 ? hs : dpc) : 1)
              + ef * (tl / et) / ep / (zero >= 1 ? tp * dpc / (etp * ep) : 1);
      /* a layer whose update the launch model times (its Adam / AdamW tensors) adds its work
      ** to uf, ub, ut, uc; any other (SGD, momentum, ..., a layer without ops: each update op
      ** one kernel) its seconds to upd and hu: a stage of both kinds runs both (below) */
      int launched = o->optim_impl > 0 && l->upd_tensors > 0;
      if (!launched) s->upd += tu * ushare;
      if (launched) {
        /* the optimizer's launch model: the layer's update work at the same share, and its
        ** tensors with their chunks shrunk as the share shrinks the bytes (a tensor split
        ** over tl ranks, or sharded by ZeRO, is still one tensor of at least one chunk) */
        double uf = lc.uf, ub = lc.ub;   /* dlb_layer_update at tl */
        s->uf += uf * ushare, s->ub += ub * ushare;
        /* views of a contiguous shard of the layer's flat buffer (opts.optim_views, FSDP1):
        ** the tensors a window of 1/shards of the buffer meets, T / shards + 1 on average
        ** (a tensor of n elements meets a window of w at (n + w) / N of its starts; summed,
        ** T w / N + 1) */
        double zs = zero >= 1 ? (hs > 0 ? hs : dpc) : 1;
        double nt = l->upd_tensors;
        if (o->optim_views != 0 && zs > 1) nt = fmin(nt, nt / zs + 1);
        s->ut += nt;
        double whole = lc.wb;   /* dlb_layer_update's bytes at tensor degree 1 */
        double frac = whole > 0 ? ub * ushare / whole : 1;
        s->uc += fmax(nt, ceil(l->upd_chunks * frac));
      }
      if (lrc) s->rcf += l->flops_fwd;
      if (selc) s->rcf += fmin(l->flops_core, l->flops_fwd);
      /* the host issuing the layer's ops (its recomputed forward, or core, again) */
      double hf = lc.hf, hb = lc.hb, hu = lc.hu, hc = lc.hc;   /* dlb_layer_host */
      s->hf += hf;
      s->hb += hb + (lrc ? hf : 0) + (selc ? hc : 0) + srh + rr.host;
      if (!launched) s->hu += hu;
      /* Under ep the MoE side's tensor-parallel pair is its dispatcher's (the ep block
      ** below: none with etp 1, the expert-tensor all-gather and reduce-scatter of the
      ** received copies with etp > 1), not a dense MLP's: the block's collectives are its
      ** attention's only (issue 27, branch tp-ep) */
      int moetp = ep > 1 && l->experts > 0 && l->moe_bytes > 0 && l->tp_colls >= 2;
      double ncol = l->tp_colls - (moetp ? 1 : 0);
      if (tl > 1 && ncol > 0) {
        /* each tensor-parallel allreduce is an op the host issues too */
        double nco = sp ? 2 : 1;   /* sequence parallelism: two collectives each */
        s->hf += ncol * nco * dev->host_op;
        /* a recomputed MLP / MoE layer runs its side's collectives again: half the block's
        ** (under ep the MoE side has none here: the dispatcher's, below) */
        double rtc = lrc ? 1 : ((rr.side && !moetp) ? 0.5 : 0);
        s->hb += ncol * nco * dev->host_op * (1 + rtc);
        /* the pair's collectives forward and backward (planner_tp.c); under sequence
        ** parallelism with tp_async the backward's re-gathers are host ops too */
        double tf2, tb2;
        st = dlb_par_tp_layer(l, &lc, cl, o, tp, sp, mbc, ncol, rtc, tpmemo, &tf2, &tb2);
        if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
        s->hb += dlb_par_tp_regathers(l, o, sp, ncol) * dev->host_op;
        s->tpf += tf2;
        s->tpb += tb2;
      }
      if (ep > 1 && l->moe_bytes > 0) {
        /* the token dispatch and combine: two all-to-alls forward, two backward (and two
        ** more in a recomputed forward) over the ep ranks, tp apart: Megatron-Core's MoE
        ** parallel folding with the experts split as the attention (etp = tp) lays the
        ** expert layers out etp-ep-edp-pp over the same ranks, so an expert group is ep
        ** consecutive ranks of the tp x cp x dp ranks after the tensor ones; each rank
        ** sends its tokens' copies (its 1/tp share under the sequence parallelism MoE
        ** requires with tp), padded or skewed by the load */
        double a2t;   /* one dispatch + one combine */
        double cpy = l->moe_bytes * mbc * load / tl;   /* the rank's tokens' top-k copies */
        if (o->moe_dispatcher != DLB_DISPATCHER_ALLTOALL) {
          /* the flex dispatcher over the tp_ep group: ep slots of et ranks (planner_moe.c) */
          a2t = dlb_par_ep_dispatch_time((int)o->moe_dispatcher, cpy, l->experts, l->top_k, ep,
                                         et, cl);
        } else {
          dlb_par_coll a2;
          st = dlb_par_alltoall_cluster(cpy, ep, et, cl, &a2);
          if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
          a2t = 2 * a2.time;
          /* with the experts split over et > 1 tensor ranks the alltoall dispatcher
          ** all-gathers the received copies over the expert-tensor group after the
          ** dispatch and reduce-scatters the experts' output before the combine
          ** (token_dispatcher.py, MoEAlltoAllTokenDispatcher: "permute -> A2A(EP) -> AG(TP)
          ** -> sort_chunk", "sort_chunk -> RS(TP) -> A2A(EP) -> unpermute", over tp_group =
          ** the expert-tensor group, output_splits_tp): each rank ends with et x the copies
          ** it received (balanced: its own count); backward the reverse pair (an
          ** all-gather's gradient is a reduce-scatter); two host ops each way. Consecutive
          ** ranks (etp first in the expert layout). */
          if (et > 1 && et * cpy == etmemo[0]) {   /* the last MoE layer's bytes again */
            s->tpf += etmemo[1];
            s->tpb += etmemo[1] * ((lrc || rr.side) ? 2 : 1);
            s->hf += 2 * dev->host_op;
            s->hb += 2 * dev->host_op * ((lrc || rr.side) ? 2 : 1);
          } else if (et > 1) {
            double eb = et * cpy, t1 = 0, t2 = 0;
            if (o->nccl) {
              double en = dlb_par_group_per_node(cl->per_node, 1, et);
              st = dlb_par_nccl_group(cl, DLB_COLL_ALLGATHER, eb, et, en, &t1);
              if (!st) st = dlb_par_nccl_group(cl, DLB_COLL_REDUCE_SCATTER, eb, et, en, &t2);
            } else {
              dlb_par_coll g1, g2;
              st = dlb_par_collective(DLB_COLL_ALLGATHER, DLB_ALGO_RING, eb, et, 0,
                                      dlb_par_group_link(cl, et), &g1);
              if (!st) st = dlb_par_collective(DLB_COLL_REDUCE_SCATTER, DLB_ALGO_RING, eb, et,
                                               0, dlb_par_group_link(cl, et), &g2);
              t1 = g1.time; t2 = g2.time;
            }
            if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
            int rcs = lrc || rr.side;
            etmemo[0] = eb; etmemo[1] = t1 + t2;
            s->tpf += t1 + t2;
            s->tpb += (t1 + t2) * (rcs ? 2 : 1);
            s->hf += 2 * dev->host_op;
            s->hb += 2 * dev->host_op * (rcs ? 2 : 1);
          }
        }
        s->epf += a2t;
        s->epb += a2t * ((lrc || rr.side) ? 2 : 1);
        /* Megatron-Core's combined 1F1B (opts.moe_a2a_overlap): this layer's forward of one
        ** micro-batch and its backward of another as one pair (dlb_par_combined_1f1b, the
        ** layer standing for the layer it is paired with: a model's MoE layers alike); the
        ** all-to-alls it hides are the serial sum less the pair's span. Forward: the
        ** attention side tf - mfx, the experts' mfx; backward: the experts' mbx, the
        ** attention side the rest with selective recompute's reruns; each dispatch and each
        ** combine half of a2t, its kernels taking their SMs from the computation beside
        ** them (dlb_par_a2a_contention). Where the layout cannot run it (a2aov 0) nothing
        ** is hidden. */
        if (a2aov && !lrc && !rr.side) {
          double bx = tb + (selc ? cf : 0) + rr.time;
          double span = dlb_par_combined_1f1b(tf - mfx, mfx, mbx, bx - mbx, a2t / 2, a2t / 2,
                                              dlb_par_a2a_contention((int)o->moe_dispatcher, dev));
          s->ovl += fmax(0, tf + bx + 2 * a2t - span);
        }
      }
      if (cp > 1 && l->kv_bytes > 0) {
        double kvl = l->kv_bytes * mbc / tl;   /* this rank's K/V chunk (its heads) */
        double f1 = 0, b1 = 0, ws = 0;
        dlb_par_coll c1, c2;
        /* the exchange's bytes (the key of cpmemo: the algorithm is the layout's) */
        double cpk = ca == DLB_CP_ALLTOALL ? (l->kv_bytes + l->qo_bytes) * mbc / tl : kvl;
        int again = cpk == cpmemo[0];
        c1.time = cpmemo[1]; c2.time = cpmemo[2];
        if (ca == DLB_CP_RING) {
          /* Megatron-Core CP (ring attention, Liu et al. 2023): cp - 1 steps, each passing
          ** a K/V chunk to the next rank (point to point: latency + bytes/bw) while the
          ** attention of the chunk in hand runs; backward passes K/V and dK/dV. Exposed:
          ** what the attention kernels do not hide. Two chunks in flight. */
          if (!again) {
            st = dlb_par_collective(DLB_COLL_BROADCAST, DLB_ALGO_TREE, kvl, 2, 0, cplink, &c1);
            if (!st) st = dlb_par_collective(DLB_COLL_BROADCAST, DLB_ALGO_TREE, 2 * kvl, 2, 0,
                                             cplink, &c2);
          }
          if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
          f1 = fmax(0, (cp - 1) * c1.time - af);
          b1 = fmax(0, (cp - 1) * c2.time - ab);
          ws = 2 * kvl;
        } else if (ca == DLB_CP_ALLGATHER) {
          /* Llama 3 (Dubey et al. 2024 sec. 3.3.2): all-gather the whole K/V before the
          ** attention forward; backward gathers again and reduce-scatters dK/dV; not
          ** overlapped. The gathered K/V is one layer's workspace. */
          if (!again)
            st = dlb_par_collective(DLB_COLL_ALLGATHER, DLB_ALGO_RING, kvl * cp, cp, 0, cplink,
                                    &c1);
          if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
          f1 = c1.time;
          b1 = 2 * c1.time;
          ws = kvl * (cp - 1);
        } else {
          /* DeepSpeed-Ulysses (Jacobs et al. 2023): all-to-all of Q, K, V from sequence to
          ** head shards before attention and of the output back, the same four backward */
          if (!again) st = dlb_par_alltoall_cluster(cpk, cp, tp, cl, &c1);
          if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
          f1 = c1.time;
          b1 = c1.time;
        }
        if (!again) { cpmemo[0] = cpk; cpmemo[1] = c1.time; cpmemo[2] = ca == DLB_CP_RING ? c2.time : 0; }
        s->cpf += f1;
        /* a recomputed attention (full, or the selective core) exchanges K/V again */
        s->cpb += b1 + ((lrc || selc) ? f1 : 0);
        if (ws > s->cpws) s->cpws = ws;
      }
      if (moe == DLB_MOE_MCORE && l->experts > 0 && l->moe_bytes > 0) {
        /* Megatron-Core's MoE layer beyond the graph's ops (planner_moe.c) */
        st = dlb_par_mcore_layer(l, dev, cl, o, ep, et, tp, cp, mbc, load, tl, lrc, rr.side, s);
        if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
      }
      if (host) {
        /* the layer through the timeline: forward, its ops then the rest it added; backward
        ** (a piece, composed in reverse below), the rest first (a recompute's extra work),
        ** its recomputed forward ops, its backward ops; equal layers in a row as one run */
        double fd = s->f + s->tpf + s->epf + s->cpf, bd = s->b + s->tpb + s->epb + s->cpb;
        double rd[4] = { fd - s->fin - lc.sf.busy, s->hf - s->fhin - lc.sf.host,
                         bd - b0 - lc.sb.busy - (lrc ? lc.sf.busy : 0),
                         s->hb - hb0 - lc.sb.host - (lrc ? lc.sf.host : 0) };
        s->fin = fd, s->fhin = s->hf;
        bp[i].k = 0;
        if (!s->syncf && !s->syncb &&
            same_run(&run, &lc.sf, &lc.sb, lrc, rd, 1e-12 * (fd + bd + s->hf + s->hb))) {
          run.k += 1;
          bp[run.i].k += 1;
        } else {
          end_run(s, &run);
          run.sf = lc.sf, run.sb = lc.sb, run.lrc = lrc, run.syncf = s->syncf;
          run.syncb = s->syncb, run.rdf = rd[0], run.rhf = rd[1], run.rdb = rd[2];
          run.rhb = rd[3], run.k = 1, run.i = i;
          run.fp = lc.sf;   /* (the segment from a synchronisation point) */
          layer_rest(&run.fp, rd[0], rd[1], dev->host_op);
          bpiece *q = &bp[i];
          const dlb_timeline z = { 0, 0, 0, 0 };
          q->t = z, q->k = 1, q->sync = s->syncb;
          layer_rest(&q->t, rd[2], rd[3], dev->host_op);
          if (lrc) dlb_timeline_seg(&q->t, &lc.sf, 1);
          dlb_timeline_seg(&q->t, &lc.sb, 1);
        }
      }
      double pr = l->params * (1 - ef) / tl + l->params * ef / (et * ep);
      double tr = dlb_par_layer_trainable(l) * (1 - ef) / tl;
      double wl = dlb_par_layer_wbytes(l, wb) * (1 - ef) / tl;
      s->etrain += dlb_par_layer_trainable(l) * ef / (et * ep);
      s->ewb += dlb_par_layer_wbytes(l, wb) * ef / (et * ep);
      if (l->shardable > 0 && o->shard) {
        s->shard += pr; shard_total += pr; s->shard_t += tr; shard_t += tr;
        s->shard_w += wl; shard_w += wl;
      } else { s->params += pr; s->trainable += tr; s->wbytes += wl; }
      double rep = l->act_rep * ((sp && tl > 1) ? 1 / tl : 1);
      double full = l->act_kept / tl + rep;
      /* selective recompute keeps all but the attention core (Korthikanti et al. 2022 sec.
      ** 5: 34 s b h / t per layer with sequence parallelism instead of sec. 4.2.2's
      ** s b h / t (34 + 5 a s / h)); the core of one layer is rebuilt at a time in the
      ** backward */
      double core = fmin(l->act_core, l->act_kept) / tl;
      /* (the stack's rc, not lrc, for the input and loss layers: see recompute_layer; a
      ** block that recompute_every leaves out keeps its activations) */
      double ain = l->act_in * ((sp && tl > 1) ? 1 / tl : 1);
      /* per-op selective AC keeps a block's input and its saved outputs (never more than
      ** all of it); the rest of one block is rebuilt at a time in the backward */
      double sk = fmin(full, ain + skept);
      /* recompute_modules: the normally checkpointed modules' share of the layer's kept
      ** bytes and the discarded outputs (dlb_layer_rcm), never below the block's input; one
      ** layer's modules rebuilt at a time in the backward (its MoE / MLP side before its
      ** attention core) */
      double cfree = selc ? core : 0;
      double rfree = fmin(rr.share * full + rr.out, fmax(0, full - cfree - ain));
      /* full recompute: a rebuilt block keeps its input (the checkpoint); a layer that runs
      ** once (the embedding, the head: outside the checkpointed blocks) keeps every tensor it
      ** saves, as the stacks run a module outside checkpoint() (torch.utils.checkpoint wraps
      ** the blocks only: torchtitan's apply_ac, Hugging Face's gradient checkpointing,
      ** Megatron-LM's _checkpointed_forward) and as the graph path does (its once ops are
      ** never dropped, graphs/step/train.c); before issue [18] item 5 it kept its input
      ** alone, so BERT's embedding LayerNorm and dropout were in neither kept nor full */
      double add = rc && lrc ? ain : (sel ? full - cfree - rfree : (lop ? sk : full));
      s->kept += add;
      if (rc) s->tail = lrc ? 0 : s->tail + add;
      if (rfree > s->rcmx) s->rcmx = rfree;
      if (lop && full - sk > s->sacx) s->sacx = full - sk;
      /* a rebuilt block's working set: its saved tensors again, and the gradient of its
      ** output arriving from the layer above while its backward runs (the graph path's walk
      ** holds it there too) */
      double wset = rc ? full + l->act_out * ((sp && tl > 1) ? 1 / tl : 1) : full;
      if ((!rc || lrc) && wset > s->full) s->full = wset;
      if (core > s->core) s->core = core;
    }
    if (host) end_run(s, &run);
    if (c < K - 1) {
      double x = L[first[c + 1] - 1].act_out / ((sp && tp > 1) ? tp : 1);
      if (x > s->xfer) s->xfer = x;
    }
  }

  /* Bytes per parameter left on a device after ZeRO partitions over the replicas (dp x cp,
  ** or the HSDP shard group; the experts' over dp x cp / ep): weights (their own bytes, zw
  ** of them under ZeRO-3), and per trainable parameter gradients and optimizer state. */
  /* the experts' replicas: etp x ep x ze = tp x dp x cp (Megatron-Core's expert data
  ** parallel size) */
  /* (over how many devices each state is split: dlb_par_zero_split, the one ZeRO rule) */
  double zd = hs > 0 ? hs : dpc, ze = tp * dpc / (etp * ep);
  double nw, ng, no, nwe, nge, noe;
  if ((st = dlb_par_zero_split(zero, zd, &nw, &ng, &no)) ||
      (st = dlb_par_zero_split(zero, ze, &nwe, &nge, &noe))) {
    dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st;
  }
  double zw = 1.0 / nw, eg = gb / ng, eo = ob / no;
  double zwe = 1.0 / nwe, ege = gb / nge, eoe = ob / noe;
  /* Memory before the shardable parameters: states + activations in flight. */
  for (int d = 0; d < p; d++) {
    stage *s = &S[d];
    double inflight;
    if (sched == DLB_SCHED_GPIPE) inflight = m;
    else if (sched == DLB_SCHED_1F1B) inflight = fmin(m, p - d);
    else inflight = fmin(m, (p - d) * (1 + (p - 1) / (pp * v)));
    s->mem = s->wbytes * zw + s->trainable * (eg + eo) + s->ewb * zwe + s->etrain * (ege + eoe)
             /* full recompute: the rebuilt block's working set, beyond the layers after
             ** the last rebuilt one (the head), whose backward has freed them by then: the
             ** larger of the loss's moment (every kept byte) and a block's rebuild */
             + inflight * mbc * s->kept + (rc ? mbc * fmax(0, s->full - s->tail) : 0)
             + (sel ? mbc * fmax(selc ? s->core : 0, s->rcmx) : 0)
             + (sop ? mbc * s->sacx : 0)
             + s->cpws;
  }
  double lambda = 0;
  if (shard_total > 0) {
    /* Water-fill the shardable parameters (embeddings) into the emptiest devices
    ** (Hestness et al. 2019 sec. 6.2.2: split the embedding to even out footprints). */
    double lo = 0, hi = 0, need = shard_w * zw + shard_t * (eg + eo);
    for (int d = 0; d < p; d++) if (S[d].mem > hi) hi = S[d].mem;
    hi += need;
    for (int it = 0; it < 200; it++) {
      double mid = 0.5 * (lo + hi), got = 0;
      for (int d = 0; d < p; d++) got += fmax(0, mid - S[d].mem);
      if (got >= need) hi = mid; else lo = mid;
    }
    lambda = hi;
    for (int d = 0; d < p; d++) {
      double add = fmax(0, lambda - S[d].mem), f = need > 0 ? add / need : 0;
      S[d].params += f * shard_total;
      S[d].trainable += f * shard_t;
      S[d].wbytes += f * shard_w;
      S[d].mem += add;
    }
  }

  /* Each device's bytes under the memory schedule (dlb_step_memory, the rule
  ** dlb.roofline.time uses too); the fullest decides `fits`. */
  int mode = (int)o->mem_schedule;
  for (int d = 0; d < p; d++) {
    stage *s = &S[d];
    double sw = s->wbytes * zw + s->ewb * zwe, sg = s->trainable * eg + s->etrain * ege,
           so = s->trainable * eo + s->etrain * eoe;
    double act = s->mem - (sw + sg + so), m2;
    st = dlb_step_memory(mode, sw, sg, so, act > 0 ? act : 0, o->slack, &m2);
    if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
    s->mem = m2;
  }
  /* The bottleneck device sets the pipeline's pace. */
  int worst = 0, fullest = 0;
  double T = -1;
  double xt = 0, upd = 0, idle = 0, hidw = 0;
  for (int d = 0; d < p; d++) {
    stage *s = &S[d];
    double x = 0;
    if (p > 1) {  /* one activation out and one gradient back per chunk, per micro-batch: a
                  ** point-to-point send, the two-rank tree broadcast (latency + bytes/bw) */
      /* the scatter/gather optimisation (Narayanan et al. 2021 sec. 4.1; Megatron-LM
      ** megatron/p2p_communication.py: split_tensor_into_1d_equal_chunks before the send,
      ** gather_split_1d_tensor after the receive, both directions): each of the tp ranks
      ** sends 1/tp of the activation and the receiving stage all-gathers the whole over its
      ** tensor group. Under sequence parallelism the activation is already 1/tp per rank
      ** (xfer above) and is sent as it is. */
      double xb = s->xfer * mbc;
      int scat = o->pp_scatter != 0 && tp > 1 && !sp && xb > 0;
      dlb_par_coll c1, cg = { 0 };
      st = dlb_par_collective(DLB_COLL_BROADCAST, DLB_ALGO_TREE, scat ? xb / tp : xb, 2, 0,
                              pplink, &c1);
      if (!st && scat) {
        if (o->nccl)
          st = dlb_par_nccl_group(cl, DLB_COLL_ALLGATHER, xb, tp,
                                  dlb_par_group_per_node(cl->per_node, 1, tp), &cg.time);
        else
          st = dlb_par_collective(DLB_COLL_ALLGATHER, DLB_ALGO_RING, xb, tp, 0, tplink, &cg);
      }
      if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
      x = 2 * v * (c1.time + cg.time);
    }
    /* the host-side model (issue [19]): the device's stream (ops, the tensor-parallel
    ** allreduces, the MoE all-to-alls and the exposed context-parallel exchanges, Megatron-LM:
    ** not overlapped) against the host issuing it. efb: the micro-batch's forward and
    ** backward. Without a host model the device's seconds. With one, the stage's layers
    ** through the timeline (dlb_timeline, the rule dlb_step_time runs a step's ops by): the
    ** forward (tlf), then the layers' backward pieces in reverse order, each chunk's from the
    ** synchronisation point of its receive when p > 1 (Megatron-LM p2p_communication.py:
    ** torch.cuda.synchronize() after batch_isend_irecv). Where nothing synchronises (one
    ** stage, no phase_sync: no send or receive, forward_backward_no_pipelining; the backward
    ** is issued while the forward's ops still run, and so the next micro-batch) the phases and
    ** the m micro-batches run as one stream, as dlb.roofline.time runs a step; else each phase
    ** from a synchronisation point (opts.phase_sync: Megatron-LM's timers), the device waiting
    ** for the host's first op. */
    double df = s->f + s->tpf + s->epf + s->cpf, db = s->b + s->tpb + s->epb + s->cpb;
    double efb = df + db;
    if (host) {
      dlb_timeline tb = { 0, 0, 0, 0 };
      /* the stage's chunks d, d + p, ... (chunk c on stage c mod p), the last first */
      for (int c = d + p * ((K - 1 - d) / p); c >= 0; c -= p) {
        if (p > 1) dlb_timeline_sync(&tb);
        for (int i = first[c + 1] - 1; i >= first[c]; i--) {
          if (!(bp[i].k > 0)) continue;   /* a later layer of a run */
          dlb_timeline_seg(&tb, &bp[i].t, bp[i].k);
          if (bp[i].sync) dlb_timeline_sync(&tb);
        }
      }
      if (p == 1 && !o->phase_sync) {
        dlb_timeline one = s->tlf, all = { 0, 0, 0, 0 };
        dlb_timeline_seg(&one, &tb, 1);
        dlb_timeline_seg(&all, &one, m);
        efb = dlb_timeline_end(&all) / m;
      } else {
        efb = dlb_timeline_end(&s->tlf) + dlb_timeline_end(&tb);
      }
    }
    /* the combined 1F1B hides s->ovl of a micro-batch's all-to-alls in the steps that pair a
    ** forward with a backward: all but the first forward and the last backward without a
    ** pipeline (combined_1f1b_schedule_for_no_pipelining), the steady state of the
    ** interleaved schedule otherwise, whose warm-up on stage d runs min(m v, 2 (pp - d - 1)
    ** + (v - 1) pp + 1) forwards alone and its cool-down as many backwards
    ** (megatron/core/pipeline_parallel/schedules.py, get_pp_rank_microbatches: "When enabling
    ** overlap_moe_expert_parallel_comm, we schedule one extra micro-batch forward step
    ** before the 1f1b stages"); never below the host's seconds of the micro-batch (a
    ** host-bound phase hides nothing) */
    double hid = 0;
    if (s->ovl > 0) {
      double tot = m * v, wu = p > 1 ? fmin(tot, 2 * (p - d - 1) + (v - 1) * p + 1) : 1;
      hid = fmin(s->ovl * (tot - wu) / tot, fmax(0, efb - (s->hf + s->hb)));
    }
    double t = efb + x - hid;
    if (t > T) {
      T = t; worst = d; xt = x; hidw = hid;
      idle = efb - (df + db);
    }
    /* the stage's update phase: the launch model's tensors as the implementation launches
    ** them, then the other layers' update ops, one kernel each (their device and host
    ** streams); the sum where a stage holds both kinds (mixed optimizers) */
    double su = 0;
    if (o->optim_impl > 0 && s->ut > 0) {
      /* the update phase as the implementation launches it (graphs/hw/optim_launch.c): its
      ** launches, host dispatches and syncs over the stage's tensors, through the same
      ** host / device rule (dlb_optim_time); DLB_OPTIM_FLAT steps one flat partition */
      dlb_optim_count oc;
      int kind = (int)o->optim_impl;
      /* (an expected count of views, rounded up to whole tensors) */
      double ut = kind == DLB_OPTIM_FLAT ? 1 : ceil(s->ut - 1e-9);
      st = dlb_optim_launches(kind, o->optim_kernels, o->optim_ops, o->optim_sync != 0, ut,
                              fmax(ut, ceil(s->uc - 1e-9)), &oc);
      if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }
      double ud, uh;
      su = dlb_optim_time(dev, &oc, s->uf, s->ub, &ud, &uh, NULL);
    }
    if (s->upd > 0 || s->hu > 0) su += dlb_stream_time(s->upd, s->hu);
    if (su > upd) upd = su;
    if (s->mem > S[fullest].mem) fullest = d;
    if (stage_mem) stage_mem[d] = s->mem;
  }
  stage *bw = &S[worst];
  /* the schedule's idle fraction f of the step (dlb_par_bubble): bubble = m T f / (1 - f) */
  double bf = dlb_par_bubble(sched, pp, m, v);
  double bubble = bf > 0 && bf < 1 ? m * T * bf / (1 - bf) : 0;

  /* the data-parallel collectives after the pipeline flush (planner_dp.c) */
  double dpt = 0;
  dlb_par_dp_layout dy = { tp, pp, ep, etp, dpc, hs, ze, m, zero, p, K, first, wb, gb };
  st = dlb_par_dp_comm(L, S, bw, dev, cl, o, &dy, &dpt);
  if (st) { dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp); return st; }

  double model_flops = 0;
  for (int i = 0; i < n; i++) model_flops += L[i].flops_fwd + L[i].flops_bwd;
  model_flops *= o->batch;
  double ndev = dp * tp * pp * cp;

  memset(out, 0, sizeof *out);
  out->dp = dp; out->tp = tp; out->pp = pp; out->v = v; out->m = m; out->mb = mb;
  out->ep = ep; out->cp = cp; out->cp_algo = cp > 1 ? ca : 0; out->hsdp = hs; out->etp = etp;
  out->sched = sched; out->recompute = rcp; out->zero = zero;
  out->compute = m * (bw->f + bw->b);
  out->tp_comm = m * (bw->tpf + bw->tpb);
  /* the all-to-alls exposed: the combined 1F1B's hidden seconds taken off (hidw) */
  out->ep_comm = m * (bw->epf + bw->epb - hidw);
  out->ep_hidden = m * hidw;
  out->a2a_overlap = a2aov && ep > 1;
  out->cp_comm = m * (bw->cpf + bw->cpb);
  out->pp_comm = m * xt;
  out->dp_comm = dpt;
  out->comm = out->tp_comm + out->pp_comm + out->dp_comm + out->ep_comm + out->cp_comm;
  out->bubble = bubble;
  out->update = upd;
  out->host_idle = m * idle;
  out->load = load;
  out->step = out->compute + out->comm + out->bubble + out->update + out->host_idle
              + dev->step_overhead;
  stage *fs = &S[fullest];
  out->mem = fs->mem;
  out->mem_weights = fs->wbytes * zw + fs->ewb * zwe;
  out->mem_grads = fs->trainable * eg + fs->etrain * ege;
  out->mem_opt = fs->trainable * eo + fs->etrain * eoe;
  out->mem_act = fs->mem - out->mem_weights - out->mem_grads - out->mem_opt;
  out->fits = (dev->mem <= 0 || out->mem <= dev->mem) ? 1 : 0;
  out->util = model_flops / (out->step * dev->peak * ndev);
  out->mfu = out->util;
  double rcflops = 0;   /* the recomputed forwards, summed over the stages (layers once) */
  for (int d = 0; d < p; d++) rcflops += S[d].rcf;
  out->hfu = (model_flops + rcflops * o->batch) / (out->step * dev->peak * ndev);
  out->throughput = o->batch / out->step;
  dlb_free(w); dlb_free(first); dlb_free(S); dlb_free(bp);
  return DLB_OK;
}
