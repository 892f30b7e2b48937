/*
** test_parallel_moe.c — the planner's expert and context parallelism and Megatron-Core's MoE
** layer: the MoE all-to-alls and ring attention (moe_cp), Transformer Engine's fp8 casts per
** local expert, moe_impl "mcore" (its kernels, host syncs, router and counts), DeepEP's
** dispatcher, and the dispatchers under tensor and expert-tensor parallelism; every golden
** number derived in its comment (split from test_parallel_ops.c).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"
#include "parallel_fixtures.h"
#include "planner_impl.h"   /* dlb_par_combined_1f1b: the schedule's rule, checked by hand */

/* Four uniform layers made MoE: 8 experts holding half each layer's 1e6 parameters, half
** its FLOPs in them (expert_frac 0.5), 1e6 bytes of top-k copies dispatched per sample
** (moe_bytes); top_k as given (0: not set). */
static void moe_layers(dlb_par_layer L[4], double top_k) {
  uniform_layers(L, 4);
  for (int i = 0; i < 4; i++) {
    L[i].experts = 8; L[i].expert_params = 0.5e6; L[i].expert_frac = 0.5; L[i].moe_bytes = 1e6;
    L[i].top_k = top_k;
  }
}

/* Expert and context parallelism and hybrid sharding (issue [21]), hand-derived on the
** uniform layers made MoE: each layer has 8 experts holding half its 1e6 parameters, half
** its FLOPs in them (expert_frac 0.5), and its router dispatches 1e6 bytes per sample
** (moe_bytes); attention keys and values 4e5 bytes per sample, queries and output 8e5. One
** flat tier of 10 GB/s without latency; no bytes, so times are FLOPs / (0.8 peak). */
static void moe_cp(void) {
  dlb_par_layer L[4];
  moe_layers(L, 0);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r0, r;
  layout(&o, 8, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.dp = 8;                                    /* mb = 1 */
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  CHECK(r0.ep_comm == 0 && r0.ep == 1 && r0.load == 1);
  cfg.ep = 8;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  /* dispatch + combine forward, the same backward: 4 all-to-alls per layer, each the
  ** pairwise exchange (n-1)/n S / bw (Thakur et al. 2005 sec. 4.5) of the 1e6 bytes */
  CHECK_NEAR(r.ep_comm, 4 * 4 * 7.0 / 8 * 1e6 / 10e9, 1e-15);
  CHECK_NEAR(r.comm, r0.comm + r.ep_comm, 1e-15);
  CHECK_NEAR(r.compute, r0.compute, 1e-15);      /* balanced: the same FLOPs per device */
  /* the experts' half split over ep 8: 4 x (0.5e6 + 0.5e6 / 8) parameters held */
  CHECK_NEAR(r.mem_weights, 4 * (0.5e6 + 0.5e6 / 8) * 2, 1e-6);
  CHECK_NEAR(r.mem_opt, 4 * (0.5e6 + 0.5e6 / 8) * 12, 1e-6);
  /* ZeRO-1: the dense state over dp x cp = 8 replicas, the experts' over 8 / ep = 1 */
  cfg.zero = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.mem_opt, 4 * (0.5e6 / 8 + 0.5e6 / 8) * 12, 1e-6);
  cfg.zero = 0;
  /* the busiest expert sets the time: imbalance 1.5 -> the expert half x 1.5 (compute
  ** x 1.25) and the all-to-all x 1.5; a capacity factor 2 pads every expert to 2x */
  o.imbalance = 1.5;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.compute, 1.25 * r0.compute, 1e-15);
  CHECK_NEAR(r.ep_comm, 1.5 * 4 * 4 * 7.0 / 8 * 1e6 / 10e9, 1e-15);
  CHECK(r.load == 1.5);
  o.imbalance = 0; o.capacity = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.compute, 1.5 * r0.compute, 1e-15);
  o.capacity = 0;
  o.imbalance = 0.5;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "imbalance must be >= 1") != NULL);
  o.imbalance = 0;
  /* ep must divide dp x cp and the experts */
  cfg.ep = 3;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "ep 3 does not divide dp x cp = 8") != NULL);
  cfg.dp = 16; o.batch = 16; cfg.ep = 16;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "does not divide the 8 experts of layer 1") != NULL);
  /* the experts' tensor degree (Megatron-Core's expert-tensor-parallel-size): tp 2 x dp 4;
  ** etp 1 leaves the experts whole, so ep may borrow the tensor ranks (ep x etp = 8 divides
  ** tp x dp = 8); ep 4 with etp 2 holds the same expert share per device */
  for (int i = 0; i < 4; i++) { L[i].tp_bytes = 1e3; L[i].tp_colls = 2; }
  cfg.dp = 4; cfg.tp = 2; o.batch = 4; cfg.ep = 8; cfg.etp = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.mem_weights, 4 * (0.5e6 / 2 + 0.5e6 / 8) * 2, 1e-6);
  CHECK(r.etp == 1);
  cfg.ep = 4; cfg.etp = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  CHECK_NEAR(r0.mem_weights, r.mem_weights, 1e-6);
  cfg.ep = 8;   /* etp = tp: ep must divide dp x cp = 4 */
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "ep 8 does not divide dp x cp = 4") != NULL);
  cfg.etp = 3;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "must divide tp 2") != NULL);
  cfg.etp = 0; cfg.tp = 1;

  /* context parallelism: cp 2 holds half of every sample's tokens, so every per-sample
  ** cost halves (dp 1, batch 1); the K/V exchange per attention layer and micro-batch: */
  uniform_layers(L, 4);
  for (int i = 0; i < 4; i++) { L[i].kv_bytes = 4e5; L[i].qo_bytes = 8e5; L[i].tp_div = 4; }
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  cfg.cp = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.compute, r0.compute / 2, 1e-15);
  CHECK_NEAR(r.mem_act, r0.mem_act / 2 + 2 * 2e5, 1e-6);   /* + two K/V chunks in flight */
  /* ring: cp - 1 = 1 step of this rank's 2e5-byte chunk forward, K/V and dK/dV (4e5)
  ** backward; no fused attention op to hide it (layers without ops) */
  CHECK_NEAR(r.cp_comm, 4 * (2e5 + 4e5) / 10e9, 1e-15);
  CHECK_NEAR(r.mfu, r0.mfu * r0.step / (2 * r.step), 1e-12);  /* 2 devices */
  /* all-gather (Llama 3): the whole 4e5 gathered over 2 ranks, (n-1)/n S / bw forward,
  ** gathered again and reduce-scattered backward */
  cfg.cp_algo = DLB_CP_ALLGATHER;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.cp_comm, 4 * 3 * 0.5 * 4e5 / 10e9, 1e-15);
  /* all-to-all (Ulysses): Q, K, V and the output, (4e5 + 8e5) / 2 per rank, each way */
  cfg.cp_algo = DLB_CP_ALLTOALL;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.cp_comm, 4 * 2 * 0.5 * 6e5 / 10e9, 1e-15);
  for (int i = 0; i < 4; i++) L[i].tp_div = 3;   /* 3 heads do not split over 2 ranks */
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "Ulysses") != NULL);
  cfg.cp_algo = 5;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);

  /* HSDP: ZeRO-3 within groups of 4 replicas of dp 8: weights, gradients and optimizer
  ** state divided by 4, not 8 */
  uniform_layers(L, 4);
  layout(&o, 8, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.dp = 8; cfg.zero = 3; cfg.hsdp = 4;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.mem_weights + r.mem_grads + r.mem_opt, 16 * 4e6 / 4, 1e-6);
  CHECK(r.hsdp == 4);
  cfg.hsdp = 3;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  cfg.hsdp = 4; cfg.zero = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "needs ZeRO stage 3") != NULL);

  /* the search: ep and cp only where they divide; every row a possible layout */
  uniform_layers(L, 4);
  for (int i = 0; i < 4; i++) {
    L[i].experts = 4; L[i].expert_params = 0.5e6; L[i].expert_frac = 0.5; L[i].moe_bytes = 1e6;
    L[i].kv_bytes = 4e5; L[i].qo_bytes = 8e5; L[i].tp_div = 8;
  }
  dlb_par_cluster c8 = flat(10e9, 1e-6);
  c8.per_node = 8; c8.nodes = 2;
  c8.intra.bw = 100e9; c8.intra.latency = 1e-6;
  memset(&o, 0, sizeof o);
  o.batch = 16; o.cp_max = 4; o.cp_algo = -1; o.zero_max = 3; o.hsdp = 1; o.keep_unfit = 1;
  o.sched = -1; o.recompute = -1;
  dlb_par_plan *P = dlb_par_plan_new(L, 4, &V100, &c8, &o);
  if (!P) fprintf(stderr, "plan: %s\n", dlb_last_error());
  CHECK(P != NULL);
  int n = dlb_par_plan_count(P), seen_ep = 0, seen_cp = 0, seen_h = 0;
  for (int i = 0; i < n; i++) {
    CHECK(dlb_par_plan_row(P, i, &r) == DLB_OK);
    CHECK(r.dp * r.tp * r.pp * r.cp == 16);
    CHECK(fmod(r.dp * r.cp, r.ep) == 0 && fmod(4, r.ep) == 0);
    seen_ep |= r.ep > 1; seen_cp |= r.cp > 1; seen_h |= r.hsdp > 0;
  }
  CHECK(seen_ep && seen_cp && seen_h);
  dlb_par_plan_free(P);
}

/* The MoE fixture of moe_mcore and te_fp8_per_expert: two layers, layer 0 a MoE layer of 8
** experts (moe_bytes 1e6 per sample) with one expert matmul forward (8e9 FLOPs, m 1, n = k =
** 1000, batch 8 = the experts) and one backward (16e9), layer 1 a dense layer, one forward
** op of 80e9 FLOPs and one backward of 160e9: ops[0..3]; the rest of the nops zeroed. */
static void moe_fixture(dlb_par_layer L[2], dlb_par_op *ops, int nops) {
  uniform_layers(L, 2);
  L[0].experts = 8; L[0].expert_params = 0.5e6; L[0].expert_frac = 0.5; L[0].moe_bytes = 1e6;
  memset(ops, 0, sizeof *ops * (size_t)nops);
  for (int i = 0; i < 2; i++) {
    ops[i].layer = 0; ops[i].phase = i; ops[i].flops_sample = (i + 1) * 8e9;
    ops[i].m = 1; ops[i].n = 1000; ops[i].k = 1000; ops[i].batch = 8; ops[i].grow = 1;
    ops[i].attention = 2;
    ops[2 + i].layer = 1; ops[2 + i].phase = i; ops[2 + i].flops_sample = (i + 1) * 80e9;
  }
}

/* An op launched once per local expert (attention 4: Transformer Engine's per-tensor fp8
** quantisation of a grouped linear outside delayed scaling, dlbench.te_fp8): the fixture of
** moe_mcore below (V100, launch cost k0 = 10 us, no tile model), layer 0's expert matmul
** followed by a memory-bound op of 8e6 bytes per sample on its 8 experts. By hand, with
** c(B) = B / (0.7 bw) + k0:
**   attention 2 (one fused kernel for every expert):  c(8e6);
**   attention 4, ep 1 (8 local experts):               8 c(1e6) = c(8e6) + 7 k0;
**   attention 4, ep 2 (dp 2, batch 2: 4 local experts, each rank 8e6 bytes): c(8e6) + 3 k0.
** With a host model (host_op h = 10 ms): the op costs the host h and k0 for each further
** launch: the forward's three ops 3 h + 7 k0 of host; one stream through the host-side
** timeline (dlb_timeline, issue [19]): the backward's first op (layer 1's, T(160e9) + k0) is
** issued at 4 h + 7 k0 onto an idle device, and the last (the expert matmul's gradient,
** T(16e9) + k0), issued h later, waits for it: step 4 h + 7 k0 + T(160e9) + T(16e9) + 2 k0,
** with T(F) = F / (0.8 P). */
static void te_fp8_per_expert(void) {
  dlb_par_layer L[2];
  dlb_par_op ops[5];
  moe_fixture(L, ops, 5);
  ops[4].layer = 0; ops[4].phase = 0; ops[4].bytes_sample = 8e6; ops[4].batch = 8;
  ops[4].attention = 2;
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r2, r4;
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
  dlb_roof d = V100;
  const double k0 = 1e-5, h = 1e-2;
  d.kernel_overhead = k0;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 5, &d, &cl, &o, &cfg, &r2, NULL) == DLB_OK);
  ops[4].attention = 4;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 5, &d, &cl, &o, &cfg, &r4, NULL) == DLB_OK);
  CHECK_NEAR(r4.step - r2.step, 7 * k0, 1e-12);
  cfg.dp = 2; cfg.ep = 2; o.batch = 2;
  ops[4].attention = 2;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 5, &d, &cl, &o, &cfg, &r2, NULL) == DLB_OK);
  ops[4].attention = 4;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 5, &d, &cl, &o, &cfg, &r4, NULL) == DLB_OK);
  CHECK_NEAR(r4.compute - r2.compute, 3 * k0, 1e-12);
  cfg.dp = 1; cfg.ep = 1; o.batch = 1;
  d.host_op = h;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 5, &d, &cl, &o, &cfg, &r4, NULL) == DLB_OK);
  CHECK_NEAR(r4.step, 4 * h + 7 * k0 + (160e9 + 16e9) / (0.8 * V100.peak) + 2 * k0, 1e-12);
  /* its experts come in batch, and it is no matmul */
  ops[4].m = 1; ops[4].n = ops[4].k = 1; ops[4].grow = 1;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 5, &d, &cl, &o, &cfg, &r4, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "once per local expert") != NULL);
}

/* Megatron-Core's MoE layer (moe_impl DLB_MOE_MCORE, issue [21]): two layers, dp = tp = pp =
** ep = 1, batch 1, m 1, on the V100 device with a launch cost k0 = 10 us and no tile model.
** Layer 0 is a MoE layer of 8 experts (moe_bytes 1e6 per sample) with one expert matmul
** forward (8e9 FLOPs, m 1, n = k = 1000, batch 8 = the experts) and one backward (16e9);
** layer 1 a dense layer, one forward op of 80e9 FLOPs and one backward of 160e9. By hand,
** with T(F) = F / (0.8 P):
**   graph:  every op T(F) + k0.
**   mcore:  the expert matmul is 8 per-expert GEMMs on 4 streams (Transformer Engine's
**           multi_stream_cublas_gemm): 2 rounds of 4, each T(F / 2) + k0 = T(F) + 2 k0;
**           "Permutation 2" (sort by local expert, 8 local experts > 1) twice forward and
**           twice backward, each a pass of 2 x 1e6 bytes: p = 2e6 / (0.7 bw) + k0;
**           the router's aux loss (5 kernels forward, 5 backward) and the dispatcher's
**           counts (ep 1: the column sum and its cast, 2 kernels forward), each a pass of the
**           counts' 8 experts x 8 bytes: q = 64 / (0.7 bw) + k0; at ep 2 the counts are 8 x 8
**           x 2 bytes (q2 = 128 / (0.7 bw) + k0) and the preprocess 7 kernels.
** With a host model (host_op h = 1 ms): each op issued costs h, each further per-expert GEMM
** launch k0 (7 of them per grouped GEMM), the 5 + 2 router and count kernels and the one
** device-to-host copy of the counts h each forward, the 5 backward kernels h each. One
** stream (pp 1, no phase_sync) through the host-side timeline (dlb_timeline, issue [19]): a
** layer's ops of the graph in order, then what the MoE layer adds as the ops the host issues
** for it (forward: 2 sorts + 8 router and count ops, h + 0.7 k0 each with the further GEMM
** launches spread over them), sharing its device seconds evenly. Dropless, the dispatcher's
** sync closes the forward after layer 0: each added op runs as it is issued (its share is
** shorter than h), the last at host0f, so the sync is at host0f + a tenth of the added device
** seconds; then the host issues layer 1's forward op (h) and the device is busy to the end
** (the host's 10 h + 7 k0 stay behind it): + h + dev1f + dev1b + dev0b. */
static void moe_mcore(void) {
  dlb_par_layer L[2];
  dlb_par_op ops[4];
  moe_fixture(L, ops, 4);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, rg, rm;
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
  dlb_roof d = V100;
  const double k0 = 1e-5, h = 1e-3;
  d.kernel_overhead = k0;
#define T(F) ((F) / (0.8 * V100.peak))
  const double p = 2e6 / (0.7 * V100.bw) + k0;
  const double q = 64 / (0.7 * V100.bw) + k0, q2 = 128 / (0.7 * V100.bw) + k0;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rg, NULL) == DLB_OK);
  CHECK_NEAR(rg.step, T(8e9) + T(16e9) + T(80e9) + T(160e9) + 4 * k0, 1e-12);
  o.moe_impl = DLB_MOE_MCORE;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rm, NULL) == DLB_OK);
  CHECK_NEAR(rm.step, rg.step + 2 * k0 + 4 * p + (5 + 2 + 5) * q, 1e-12);
  CHECK_NEAR(rm.compute, rm.step, 1e-12);   /* no host model: all device time */
  /* under full recompute the forward runs again before the backward: one more round of
  ** per-expert launches (k0) and two more sorts (2 p); the aux loss is skipped in the first
  ** forward (no gradients) and computed in the recomputed one, with the counts again:
  ** forward 2 q, backward 5 q + (2 + 5) q */
  cfg.recompute = DLB_PAR_RECOMPUTE_FULL;
  o.moe_impl = DLB_MOE_GRAPH;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rg, NULL) == DLB_OK);
  o.moe_impl = DLB_MOE_MCORE;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rm, NULL) == DLB_OK);
  CHECK_NEAR(rm.step - rg.step, 3 * k0 + 6 * p + 14 * q, 1e-12);
  cfg.recompute = DLB_PAR_RECOMPUTE_NONE;
  /* 4 experts a rank (ep 2 of dp 2, batch 2): one round of 4, as the batched GEMM, and
  ** the sorts remain (4 local experts) */
  cfg.dp = 2; cfg.ep = 2; o.batch = 2;
  o.moe_impl = DLB_MOE_GRAPH;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rg, NULL) == DLB_OK);
  o.moe_impl = DLB_MOE_MCORE;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rm, NULL) == DLB_OK);
  CHECK_NEAR(rm.compute - rg.compute, 4 * p + (5 + 7 + 5) * q2, 1e-12);
  /* and the counts' all-gather and the probabilities' all-to-all over the expert group:
  ** flat 10 GB/s links, latency 0 (flat()), so their 2 x 8 x 8 bytes and 0 bytes take
  ** 128 / 2 / 10e9 (ring all-gather: (n-1)/n of the gathered bytes) and 0 */
  CHECK_NEAR(rm.comm - rg.comm, 128.0 / 2 / 10e9, 1e-9);
  cfg.dp = 1; cfg.ep = 1; o.batch = 1;
  /* the host model and the sync */
  d.host_op = h;
  double dev0f = T(8e9) + 2 * k0 + 2 * p + 7 * q, host0f = 3 * h + 7 * k0 + 8 * h;
  double dev1f = T(80e9) + k0, host1f = h;
  double dev0b = T(16e9) + 2 * k0 + 2 * p + 5 * q, host0b = 3 * h + 7 * k0 + 5 * h;
  double dev1b = T(160e9) + k0, host1b = h;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rm, NULL) == DLB_OK);
  CHECK(h + T(8e9) + 2 * k0 < host0f);   /* (the expert matmul is done by the added op's issue) */
  CHECK((dev0f - (T(8e9) + 2 * k0)) / 10 < h);
  CHECK_NEAR(rm.step, host0f + (dev0f - (T(8e9) + 2 * k0)) / 10 + h + dev1f + dev1b + dev0b, 1e-12);
  CHECK(host0f + host1f + host0b + host1b < h + dev1f + dev1b + dev0b);   /* (device-bound after it) */
  CHECK(rm.host_idle > 0);   /* layer 0's forward waits for the host */
  /* with a capacity factor every expert is padded (drop and pad): no sync; the load x 2 on
  ** the experts' share (expert_frac 0.5) and on the sorts: layer 0's added ops (the experts'
  ** extra half, the sorts, the router), the last issued at 11 h + 7 k0, are done before layer
  ** 1's op is issued at 12 h + 7 k0; from there the device is busy to the end */
  o.capacity = 2;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rm, NULL) == DLB_OK);
  double pc = 2 * 2e6 / (0.7 * V100.bw) + k0;
  double d0f = 1.5 * (T(8e9) + 2 * k0) + 2 * pc + 7 * q;
  double d0b = 1.5 * (T(16e9) + 2 * k0) + 2 * pc + 5 * q;
  CHECK(11 * h + 7 * k0 + (d0f - (T(8e9) + 2 * k0)) < 12 * h + 7 * k0);
  CHECK_NEAR(rm.step, 12 * h + 7 * k0 + dev1f + dev1b + d0b, 1e-12);
  o.capacity = 0;
  /* the graph's MoE with the same host: no sync, one launch per op: the expert matmul (issued
  ** at h) is done when layer 1's op is issued at 2 h; the device is busy from there */
  o.moe_impl = DLB_MOE_GRAPH;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rg, NULL) == DLB_OK);
  CHECK_NEAR(rg.step, 2 * h + dev1f + dev1b + T(16e9) + k0, 1e-12);
#undef T
  o.moe_impl = 2;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rm, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "moe_impl must be 0") != NULL);
}

/* Four nodes of four devices: 100 GB/s within a node, a 10 GB/s NIC each across (1 us), and
** the moe_cp layers made 16 experts of top-4 (the dispatchers' cross-node cases). */
static dlb_par_cluster four_nodes(dlb_par_layer *L) {
  dlb_par_cluster c4;
  memset(&c4, 0, sizeof c4);
  c4.per_node = 4; c4.nodes = 4;
  c4.intra.bw = 100e9; c4.intra.eff = 1;
  c4.inter.bw = 10e9; c4.inter.latency = 1e-6; c4.inter.eff = 1;
  for (int i = 0; i < 4; i++) { L[i].experts = 16; L[i].top_k = 4; }
  return c4;
}

/* The DeepEP dispatcher (issue [21], branch deepep; planner_moe.c DEEPEP_*), by hand on the
** moe_cp layers (1e6 bytes of top-k copies per sample, mb 1). A token goes once to each
** destination rank (within a node) or node (across nodes): with its k experts drawn from E
** held evenly by D destinations it reaches D (1 - C(E - E/D, k) / C(E, k)) of them. Each
** dispatch and combine runs at DeepEP's H800 figure as a fraction of the link (intranode
** 153/200 and 158/200 of NVLink each way; internode over 4 nodes 58/50 and 57/50 of the
** NIC), plus the tier's latency; forward and backward one of each per layer. */
static void moe_deepep(void) {
  dlb_par_layer L[4];
  moe_layers(L, 2);
  dlb_par_cluster cl = flat(10e9, 0);   /* one tier: within a "node" */
  dlb_par_opts o;
  dlb_par_row cfg, r, ra;
  layout(&o, 8, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.dp = 8; cfg.ep = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &ra, NULL) == DLB_OK);
  o.moe_dispatcher = DLB_DISPATCHER_DEEPEP;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  /* ep 2, 4 experts a rank, top-2 of 8: 2 (1 - 4/8 x 3/7) = 11/7 ranks per token, so the
  ** rank sends 1e6 / 2 x 11/7 bytes each way */
  double b = 1e6 / 2 * (2 * (1 - 4.0 / 8 * 3.0 / 7));
  CHECK_NEAR(b, 1e6 * 11.0 / 14, 1e-6);
  double t = b / (153.0 / 200 * 10e9) + b / (158.0 / 200 * 10e9);
  CHECK_NEAR(r.ep_comm, 4 * 2 * t, 1e-15);
  CHECK_NEAR(r.comm - r.ep_comm, ra.comm - ra.ep_comm, 1e-15);
  CHECK_NEAR(r.compute, ra.compute, 1e-15);       /* the graph's gathers are the permutes */
  /* ep 8, one expert a rank: the two experts always on two ranks, nothing deduplicated */
  cfg.ep = 8;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.ep_comm, 4 * 2 * (1e6 / (153.0 / 200 * 10e9) + 1e6 / (158.0 / 200 * 10e9)), 1e-15);
  /* across nodes: 4 nodes of 4 over a 10 GB/s NIC each (1 us), 100 GB/s inside; 16 experts,
  ** top-4, ep 16 spans the 4 nodes: 4 (1 - C(12,4) / C(16,4)) = 4 x 1325/1820 nodes a token */
  dlb_par_cluster c4 = four_nodes(L);
  layout(&o, 16, &cfg, 1, 1, DLB_SCHED_1F1B);
  o.moe_dispatcher = DLB_DISPATCHER_DEEPEP;
  cfg.dp = 16; cfg.ep = 16;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_OK);
  b = 1e6 / 4 * (4 * 1325.0 / 1820);
  t = 2 * 1e-6 + b / (58.0 / 50 * 10e9) + b / (57.0 / 50 * 10e9);
  CHECK_NEAR(r.ep_comm, 4 * 2 * t, 1e-15);
  /* the alltoall dispatcher on the same layout: (n - g)/n of the copies over the NIC */
  o.moe_dispatcher = DLB_DISPATCHER_ALLTOALL;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &ra, NULL) == DLB_OK);
  CHECK_NEAR(ra.ep_comm, 4 * 4 * (12 * 1e-6 + 12.0 / 16 * 1e6 / 10e9), 1e-15);
  CHECK(r.ep_comm < ra.ep_comm);
  /* one NIC for two devices halves the share each device has */
  c4.nics = 2;
  o.moe_dispatcher = DLB_DISPATCHER_DEEPEP;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.ep_comm, 4 * 2 * (2 * 1e-6 + b / (58.0 / 50 * 5e9) + b / (57.0 / 50 * 5e9)), 1e-15);
  c4.nics = 0;
  /* under moe_impl mcore the flex dispatcher has no second permutation and no counts'
  ** all-gather or probabilities' all-to-all: the same all-to-all time as the graph's MoE,
  ** less device time than mcore's alltoall dispatcher (4 local experts a rank at ep 4) */
  cfg.ep = 4;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &ra, NULL) == DLB_OK);
  o.moe_impl = DLB_MOE_MCORE;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.ep_comm, ra.ep_comm, 1e-15);
  dlb_par_row rm, rg;
  o.moe_dispatcher = DLB_DISPATCHER_ALLTOALL;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &rm, NULL) == DLB_OK);
  CHECK(r.compute < rm.compute);                   /* no second permutation */
  o.moe_impl = DLB_MOE_GRAPH;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &rg, NULL) == DLB_OK);
  CHECK(rm.ep_comm > rg.ep_comm);                  /* the alltoall dispatcher's counts */
  /* bad input: no top_k under DeepEP, an unknown dispatcher, top_k above the experts */
  o.moe_dispatcher = DLB_DISPATCHER_DEEPEP;
  for (int i = 0; i < 4; i++) L[i].top_k = 0;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "DeepEP dispatcher needs layer 1's top_k") != NULL);
  L[0].top_k = 17;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "top_k must be a whole number of at most its 16 experts") != NULL);
  o.moe_dispatcher = 3;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "moe_dispatcher must be 0") != NULL);
  o.moe_dispatcher = DLB_DISPATCHER_HYBRIDEP;
  L[0].top_k = 0;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "Hybrid-EP dispatcher needs layer 1's top_k") != NULL);
}

/* The Hybrid-EP dispatcher (issue 27, branch moe-bulk; planner_moe.c HYBRIDEP_*), by hand on
** the moe_cp layers as moe_deepep: the same destinations a token reaches, at the figures of
** deepseek-ai/DeepEP docs/README_Hybrid-EP.md (commit 41cad944), Torch API, BF16, 16 SMs:
** intranode B200 535.94 (dispatch) and 530.86 (combine) GB/s of NVLink's 900 GB/s each way;
** internode H100 at 16 ranks 54.47 / 53.35, 32 ranks 47.36 / 52.53 GB/s of a 50 GB/s NIC. */
static void moe_hybridep(void) {
  dlb_par_layer L[4];
  moe_layers(L, 2);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r, rd;
  layout(&o, 8, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.dp = 8; cfg.ep = 2;
  o.moe_dispatcher = DLB_DISPATCHER_HYBRIDEP;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  o.moe_dispatcher = DLB_DISPATCHER_DEEPEP;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rd, NULL) == DLB_OK);
  /* ep 2, top-2 of 8: 11/7 ranks a token, as moe_deepep */
  double b = 1e6 * 11.0 / 14;
  double t = b / (535.94 / 900 * 10e9) + b / (530.86 / 900 * 10e9);
  CHECK_NEAR(r.ep_comm, 4 * 2 * t, 1e-15);
  CHECK_NEAR(r.compute, rd.compute, 1e-15);        /* the same fused permute: no device change */
  CHECK(r.ep_comm > rd.ep_comm);                   /* 0.60 of the link within a node, DeepEP 0.77 */
  /* across nodes: 16 experts top-4, ep 16 over 4 nodes of 4 (the 4-node row), and ep 8 over 2
  ** nodes (the 2-node row): 2 (1 - C(8,4) / C(16,4)) = 2 x 1750/1820 nodes a token */
  dlb_par_cluster c4 = four_nodes(L);
  layout(&o, 16, &cfg, 1, 1, DLB_SCHED_1F1B);
  o.moe_dispatcher = DLB_DISPATCHER_HYBRIDEP;
  cfg.dp = 16; cfg.ep = 16;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_OK);
  b = 1e6 / 4 * (4 * 1325.0 / 1820);
  t = 2 * 1e-6 + b / (47.36 / 50 * 10e9) + b / (52.53 / 50 * 10e9);
  CHECK_NEAR(r.ep_comm, 4 * 2 * t, 1e-15);
  cfg.ep = 8;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_OK);
  b = 1e6 / 4 * (2 * 1750.0 / 1820);
  t = 2 * 1e-6 + b / (54.47 / 50 * 10e9) + b / (53.35 / 50 * 10e9);
  CHECK_NEAR(r.ep_comm, 4 * 2 * t, 1e-15);
}

/* Megatron-Core's dispatchers with the attention's tensor parallelism (issue 27, branch
** tp-ep; planner.c, the ep block; planner_moe.c), by hand on four MoE layers (8 experts, top-2, 1e6 bytes
** of top-k copies and a 4e5-byte tensor-parallel activation per sample, two collectives a
** layer) on one 10 GB/s tier, tp 2 with sequence parallelism, mb 1. Each rank holds 1/tp of
** the tokens, so it sends c = 5e5 bytes of copies. Ring all-gather and reduce-scatter of
** S bytes over n ranks: (n-1)/n S / bw each. */
static void moe_tp_ep(void) {
  dlb_par_layer L[4];
  moe_layers(L, 2);
  for (int i = 0; i < 4; i++) { L[i].tp_bytes = 4e5; L[i].tp_colls = 2; }
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r, r1;
  layout(&o, 4, &cfg, 1, 1, DLB_SCHED_1F1B);
  o.seq_par = 1;
  cfg.dp = 4; cfg.tp = 2;
  /* without ep the MoE side's pair stays a dense MLP's (the allgather dispatcher's
  ** all-gather and reduce-scatter of the hidden states over tp): two pairs a layer */
  double pair = 2 * 0.5 * 4e5 / 10e9;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 4 * 2 * 2 * pair, 1e-15);
  /* ep 8 with etp 1: both dispatchers' expert-tensor group has one rank, so the MoE side
  ** has no tensor-parallel collective (token_dispatcher.py: tp_size = the expert-tensor
  ** group's); the attention's pair, forward and backward, and the all-to-alls of c over ep */
  cfg.ep = 8; cfg.etp = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r1, NULL) == DLB_OK);
  CHECK_NEAR(r1.tp_comm, 4 * 2 * pair, 1e-15);
  CHECK_NEAR(r1.ep_comm, 4 * 4 * 7.0 / 8 * 5e5 / 10e9, 1e-15);
  /* ep 4 with etp 2, the alltoall dispatcher: the all-to-all of c over ep 4 (ranks 2
  ** apart), then the all-gather over the 2 expert-tensor ranks of what each received (2 c
  ** gathered) and the reduce-scatter of the experts' output (2 c) before the combine;
  ** backward the reverse pair */
  cfg.ep = 4; cfg.etp = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  double epair = 2 * 0.5 * 2 * 5e5 / 10e9;
  CHECK_NEAR(r.tp_comm, 4 * 2 * (pair + epair), 1e-15);
  CHECK_NEAR(r.ep_comm, 4 * 4 * 3.0 / 4 * 5e5 / 10e9, 1e-15);
  /* full recompute reruns each layer's forward: its attention pair and the expert-tensor
  ** pair once more in the backward, as the all-to-alls */
  cfg.recompute = DLB_PAR_RECOMPUTE_FULL;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 4 * 3 * (pair + epair), 1e-15);
  CHECK_NEAR(r.ep_comm, 4 * 6 * 3.0 / 4 * 5e5 / 10e9, 1e-15);
  cfg.ep = 8; cfg.etp = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 4 * 3 * pair, 1e-15);
  cfg.recompute = DLB_PAR_RECOMPUTE_NONE; cfg.ep = 4; cfg.etp = 2;
  /* the flex dispatcher (DeepEP) with etp 2: no tensor-parallel collective; its group is
  ** the tp_ep group (ep 4 slots of 2 ranks) and a token chosen for an expert goes to both
  ** ranks of its slot: top-2 of 8 experts over 4 slots reaches 4 (1 - C(6,2)/C(8,2)) =
  ** 13/7 slots, so the rank sends c / 2 x 2 x 13/7 bytes each way */
  o.moe_dispatcher = DLB_DISPATCHER_DEEPEP;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 4 * 2 * pair, 1e-15);
  double b = 5e5 / 2 * 2 * 13.0 / 7;
  CHECK_NEAR(r.ep_comm, 4 * 2 * (b / (153.0 / 200 * 10e9) + b / (158.0 / 200 * 10e9)), 1e-15);
  /* etp 1 under DeepEP: the ep group alone, one rank a slot: ep 8, one expert a rank, top-2
  ** on two ranks: c each way */
  cfg.ep = 8; cfg.etp = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.ep_comm, 4 * 2 * (5e5 / (153.0 / 200 * 10e9) + 5e5 / (158.0 / 200 * 10e9)), 1e-15);
  CHECK_NEAR(r.tp_comm, r1.tp_comm, 1e-15);
  /* Megatron-Core's layer (moe_impl mcore), alltoall, ep 8, etp 1: beyond the graph's MoE
  ** the counts' all-gather over the tp_ep group (8 ranks of 8 experts x 8 bytes each:
  ** 7/8 x 512 / bw), the probabilities' all-to-all (latency: 0 here) and the aux loss's
  ** token counts all-reduced over the tensor ranks (moe_utils.py, the tp_cp group: 64
  ** bytes over 2 ranks, 2 (n-1)/n x 64 / bw), each forward */
  o.moe_dispatcher = DLB_DISPATCHER_ALLTOALL;
  o.moe_impl = DLB_MOE_MCORE;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  /* a difference of two sums of per-layer times (r.ep_comm ~ 1e-4 s): its rounding is the
  ** sums' (a few ulps of r.ep_comm, 1.5e-20 s here), not the difference's, so the tolerance
  ** is absolute, in units of r.ep_comm (relative to the 2e-7 s difference it would be 7.5e-14) */
  CHECK_NEAR_ABS(r.ep_comm - r1.ep_comm, 4 * (7.0 / 8 * 512 / 10e9 + 64 / 10e9), 1e-15 * r.ep_comm);
  /* tp 1: no aux-loss all-reduce (the group is one rank) */
  cfg.tp = 1; cfg.dp = 8; o.batch = 8;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  o.moe_impl = DLB_MOE_GRAPH;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r1, NULL) == DLB_OK);
  /* the same difference of sums: absolute, in units of r.ep_comm (4e-20 s here) */
  CHECK_NEAR_ABS(r.ep_comm - r1.ep_comm, 4 * 7.0 / 8 * 512 / 10e9, 1e-15 * r.ep_comm);
}

/* Megatron-Core's combined 1F1B (opts.moe_a2a_overlap; megatron/core/models/common/
** model_chunk_schedule_plan.py, TransformerLayerSchedulePlan.run): the forward of one micro-
** batch and the backward of another, layer by layer, the all-to-alls on a stream of their
** own. The four uniform MoE layers (no ops: the experts are expert_frac 0.5 of each pass) on
** the V100 fixture: per sample u = 1e9 / (0.8 x 15.67e12) s forward, 2u backward, so the
** attention side af = u/2, the experts' mf = u/2, their backward mb = u, the rest pb = u; each
** all-to-all c = 7/8 x 1e6 / bw (8 ranks, no latency). */
static void moe_a2a_overlap(void) {
  dlb_par_layer L[4];
  moe_layers(L, 0);
  const double u = 1e9 / (0.8 * 15.67e12);
  dlb_par_opts o;
  dlb_par_row cfg, r0, r;
  /* the pair's schedule by hand, communication-bound (c = 87.5 us > u = 79.8 us): the
  ** communication stream never waits, combine_bwd ending at c, dispatch_fwd at 2c,
  ** dispatch_bwd at 3c, combine_fwd at 4c; the computation waits for its inputs, mlp_bwd
  ** ending at c + u, mlp_fwd at 2c + u/2, the backward's attention side at 3c + u < 4c: span
  ** 4c, so all of the 3u of computation is hidden */
  double c = 7.0 / 8 * 1e6 / 10e9;
  CHECK_NEAR(dlb_par_combined_1f1b(u / 2, u / 2, u, u, c, c, 0), 4 * c, 1e-15);
  /* computation-bound (c = 0.875 us): the compute stream never waits, span 3u, the 4 c hidden */
  double c2 = c / 100;
  CHECK_NEAR(dlb_par_combined_1f1b(u / 2, u / 2, u, u, c2, c2, 0), 3 * u, 1e-15);
  /* nothing to overlap with: the serial sum */
  CHECK_NEAR(dlb_par_combined_1f1b(0, 0, 0, 0, c, c, 0), 4 * c, 1e-15);
  CHECK_NEAR(dlb_par_combined_1f1b(1, 2, 3, 4, 0, 0, 0), 10, 1e-12);
  /* the all-to-alls' SMs taken from the computation beside them (f = 0.25, planner_dp.c's
  ** rule), by hand: af 2, mb 4, mf 3, pb 2, every all-to-all 1 s. 0-1: combine_bwd beside
  ** attn_fwd at 0.75 (0.75 done); 1-2.25 attn_fwd alone; 2.25-3.25 dispatch_fwd beside
  ** mlp_bwd (0.75 done); 3.25-6.5 mlp_bwd alone; 6.5-7.5 dispatch_bwd beside mlp_fwd;
  ** 7.5-9.75 mlp_fwd alone; 9.75-10.75 combine_fwd beside attn_bwd; 10.75-12 attn_bwd: span
  ** 12, each all-to-all costing f x 1 s over f = 0's 11 */
  CHECK_NEAR(dlb_par_combined_1f1b(2, 3, 4, 2, 1, 1, 0), 11, 1e-15);
  CHECK_NEAR(dlb_par_combined_1f1b(2, 3, 4, 2, 1, 1, 0.25), 12, 1e-15);
  /* a window shorter than the all-to-all: attn_fwd 0.5 beside combine_bwd 1 ends at 0.5 /
  ** 0.75 < 1, so the all-to-all costs C - window = 0.5 there (max(C - W, f C)); the rest as
  ** above from 1: mlp_bwd 1-5 (dispatch_fwd 1-2 beside it: 4.25), dispatch_bwd and mlp_fwd
  ** from 5.25, mlp_fwd to 8.5, combine_fwd and attn_bwd from 8.5: 10.75 */
  CHECK_NEAR(dlb_par_combined_1f1b(0.5, 3, 4, 2, 1, 1, 0.25), 10.75, 1e-15);
  /* the SMs the dispatchers' kernels hold over the device's: NCCL's 32 p2p channels,
  ** DeepEP's 20, Hybrid-EP's 16; none without an SM count */
  dlb_roof h = V100;
  h.sm_count = 132;
  CHECK_NEAR(dlb_par_a2a_contention(DLB_DISPATCHER_ALLTOALL, &h), 32.0 / 132, 1e-15);
  CHECK_NEAR(dlb_par_a2a_contention(DLB_DISPATCHER_DEEPEP, &h), 20.0 / 132, 1e-15);
  CHECK_NEAR(dlb_par_a2a_contention(DLB_DISPATCHER_HYBRIDEP, &h), 16.0 / 132, 1e-15);
  h.sm_count = 0;
  CHECK(dlb_par_a2a_contention(DLB_DISPATCHER_ALLTOALL, &h) == 0);

  /* dp 8 = ep 8, mb 1, m 4, no pipeline: combined_1f1b_schedule_for_no_pipelining pairs all
  ** but the first forward and the last backward, 3 of 4 micro-batches; each hides the 3u of a
  ** layer's computation (communication-bound) in each of the 4 layers */
  dlb_par_cluster cl = flat(10e9, 0);
  layout(&o, 32, &cfg, 1, 4, DLB_SCHED_1F1B);
  cfg.dp = 8; cfg.ep = 8;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  CHECK(r0.a2a_overlap == 0 && r0.ep_hidden == 0);
  CHECK_NEAR(r0.ep_comm, 4 * 4 * 4 * c, 1e-15);    /* m x layers x 4 all-to-alls */
  o.moe_a2a_overlap = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK(r.a2a_overlap == 1);
  CHECK_NEAR(r.ep_hidden, 4 * 4 * 3 * u * 3.0 / 4, 1e-15);
  CHECK_NEAR(r.ep_comm, r0.ep_comm - r.ep_hidden, 1e-15);
  CHECK_NEAR(r.step, r0.step - r.ep_hidden, 1e-12);
  CHECK_NEAR(r.compute, r0.compute, 1e-15);
  /* computation-bound links (1000 GB/s): every all-to-all of the paired steps is hidden */
  cl = flat(1000e9, 0);
  o.moe_a2a_overlap = 0;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  o.moe_a2a_overlap = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  /* 1e-14, not 1e-15: each side sums 64 all-to-all times one by one (3.3e-15 apart here) */
  CHECK_NEAR(r.ep_comm, r0.ep_comm / 4, 1e-14);
  /* the same with the all-to-all's SMs taken from the computation (a device of 80 SMs:
  ** NCCL's 32 channels, f = 0.4): each all-to-all of the paired steps costs f of itself */
  dlb_roof v80 = V100;
  v80.sm_count = 80;
  CHECK(dlb_par_evaluate(L, 4, &v80, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  double c1 = 7.0 / 8 * 1e6 / 1000e9;
  /* 1e-13: the schedule sums its 64 pieces one by one (1.4e-14 apart here) */
  CHECK_NEAR(r.ep_hidden, 4 * 4 * 4 * c1 * 3.0 / 4 * (1 - 0.4), 1e-13);
  CHECK_NEAR(r.ep_comm, r0.ep_comm - r.ep_hidden, 1e-13);
  /* the interleaved schedule, pp 2, v 2, m 4: stage d warms up with min(m v, 2 (pp - d - 1)
  ** + (v - 1) pp + 1) forwards alone (the combined 1F1B's extra one), 5 on stage 0 (which
  ** holds two layers, chunks 0 and 2), so it pairs 3 of its 8 chunk steps: 3/8 of its
  ** 2 x 4c per micro-batch hidden (stage 1 pairs 5: stage 0 is the slower) */
  layout(&o, 32, &cfg, 2, 4, DLB_SCHED_INTERLEAVED);
  cfg.dp = 8; cfg.ep = 8; cfg.v = 2;
  o.moe_a2a_overlap = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  double c3 = 7.0 / 8 * 1e6 / 1000e9;
  /* 1e-14, not 1e-15: the model sums the 16 all-to-alls one by one, the formula multiplies
  ** (1.1e-15 apart here) */
  CHECK_NEAR(r.ep_comm, 4 * (2 * 4 * c3) * 5 / 8, 1e-14);
  CHECK_NEAR(r.ep_hidden, 4 * (2 * 4 * c3) * 3 / 8, 1e-14);
  /* TransformerConfig's asserts, as errors: pp > 1 without the interleaved schedule, full
  ** recompute, no expert parallelism; the flag itself 0 or 1 */
  cfg.sched = DLB_SCHED_1F1B;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "needs the interleaved schedule when pp > 1") != NULL);
  layout(&o, 32, &cfg, 1, 4, DLB_SCHED_1F1B);
  cfg.dp = 8; cfg.ep = 8; o.moe_a2a_overlap = 1; cfg.recompute = DLB_PAR_RECOMPUTE_FULL;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "full recompute") != NULL);
  cfg.recompute = 0; cfg.ep = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "needs expert parallelism (ep > 1)") != NULL);
  cfg.ep = 8; o.moe_a2a_overlap = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "moe_a2a_overlap must be 0") != NULL);
}

int main(void) {
  RUN(moe_cp);
  RUN(moe_a2a_overlap);
  RUN(moe_mcore);
  RUN(moe_deepep);
  RUN(moe_hybridep);
  RUN(moe_tp_ep);
  RUN(te_fp8_per_expert);
  return check_done();
}
