/*
** test_parallel_ops.c — the planner's per-op and framework mechanisms: fused attention and
** selective recompute, the layers full recompute reruns, pipeline scatter/gather, replicated
** (sequence-parallel) ops, expert and context parallelism, Megatron-Core's MoE layer, the
** host-side model and Megatron-LM's timer syncs; every golden number derived in its comment
** (split from test_parallel.c).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"
#include "parallel_fixtures.h"

/* The planner's per-op layer times time a fused attention kernel (dlb_par_op.attention = 1)
** at the device's attn_eff, the rest at flops_eff (graphs/hw/roofline.c dlb_op_time_raw).
** 4 layers, each one forward op of 1e9 FLOPs per sample and one backward op of 2e9, no
** bytes, no launch costs; dp = tp = pp = m = 1, batch 2 (mb = 2). Forward ops marked as
** attention: step = 4 x (2e9 / (P x a) + 4e9 / (P x 0.8)) with a = 0.4; with attn_eff 0
** (off) every op at 0.8: 4 x 6e9 / (P x 0.8). */
static void attention_ops(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  dlb_par_op ops[8];
  two_ops_per_layer(ops, 4);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r;
  layout(&o, 2, &cfg, 1, 1, DLB_SCHED_1F1B);
  dlb_roof d = V100;
  const double P = V100.peak;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * 6e9 / (P * 0.8), 1e-12);          /* attn_eff 0: off */
  d.attn_eff = 0.4;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (2e9 / (P * 0.4) + 4e9 / (P * 0.8)), 1e-12);
  /* a kernel that skips the masked blocks of causal attention computes attn_work of its
  ** counted FLOPs (0.5), at attn_eff, or at flops_eff when that is 0 */
  d.attn_work = 0.5;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (0.5 * 2e9 / (P * 0.4) + 4e9 / (P * 0.8)), 1e-12);
  d.attn_eff = 0;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (0.5 * 2e9 + 4e9) / (P * 0.8), 1e-12);
  d.attn_work = 1.5;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "attn_work must be in [0, 1]") != NULL);
  d.attn_work = 0; d.attn_eff = 0.4;
  /* the mark is 0, 1, 2 (an expert op: the same rule as 0 outside a MoE layer) or 3 (an
  ** unfused attention core op, timed as any op) */
  ops[3].attention = 2;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  ops[3].attention = 3;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  ops[3].attention = 4;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "attention") != NULL);
}

/* Selective activation recompute (Korthikanti et al. 2022 sec. 5) on four GPT-3-shaped
** layers of their Table 3 kind (s = 2048, h = 4096, a = 32, one sample, 2-byte activations):
** kept per layer (eq. 1) 34 s h + 5 a s^2 bytes, of which 10 s h replicated over the tensor
** ranks (LayerNorm inputs, the dropout masks after attention and MLP) and 5 a s^2 the
** attention core's; tp 2 with sequence parallelism. By hand:
**   none:      4 x (34 s h + 5 a s^2) / t                           (sec. 4.2.2, with SP)
**   selective: 4 x 34 s h / t + 5 a s^2 / t (sec. 5: 34 s h / t per layer; the one layer
**              whose core the backward rebuilds at a time)
**   full:      4 x 2 s h / t + (34 s h + 5 a s^2) / t (the checkpoint, and one layer)
** Time (one op per layer, no bytes): a layer is T = 3 F / (t P 0.8) with F = 24 s h^2 + 4 s^2
** h, its forward T / 3; selective adds the core's share of the forward, 4 s^2 h / F; full
** the whole forward. HFU counts the recomputed FLOPs (4 s^2 h, or F, per layer). */
static void selective_recompute(void) {
  const double s = 2048, h = 4096, a = 32, t = 2, sh = s * h, core = 5 * a * s * s;
  const double F = 24 * s * h * h + 4 * s * s * h;
  dlb_par_layer L[4];
  memset(L, 0, sizeof L);
  for (int i = 0; i < 4; i++) {
    L[i].flops_fwd = F; L[i].flops_bwd = 2 * F;
    L[i].act_kept = 24 * sh + core; L[i].act_rep = 10 * sh; L[i].act_core = core;
    L[i].act_in = 2 * sh; L[i].act_out = 2 * sh;
    L[i].flops_core = 4 * s * s * h;
    L[i].tp_bytes = 2 * sh;   /* tensor-parallel, no collectives: the compute alone */
  }
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, rn, rs, rf;
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
  o.seq_par = 1;
  cfg.tp = t;
  cfg.recompute = DLB_PAR_RECOMPUTE_NONE;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rn, NULL) == DLB_OK);
  cfg.recompute = DLB_PAR_RECOMPUTE_SELECTIVE;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rs, NULL) == DLB_OK);
  cfg.recompute = DLB_PAR_RECOMPUTE_FULL;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rf, NULL) == DLB_OK);
  CHECK_NEAR(rn.mem_act, 4 * (34 * sh + core) / t, 1e-6);
  CHECK_NEAR(rs.mem_act, 4 * 34 * sh / t + core / t, 1e-6);
  CHECK_NEAR(rf.mem_act, 4 * 2 * sh / t + (34 * sh + core) / t, 1e-6);
  CHECK(rs.recompute == DLB_PAR_RECOMPUTE_SELECTIVE);
  const double T = 3 * F / (t * V100.peak * 0.8);
  CHECK_NEAR(rn.step, 4 * T, 1e-9);
  CHECK_NEAR(rs.step, 4 * (T + T / 3 * (4 * s * s * h) / F), 1e-9);
  CHECK_NEAR(rf.step, 4 * (T + T / 3), 1e-9);
  CHECK_NEAR(rs.hfu, 4 * (3 * F + 4 * s * s * h) / (rs.step * V100.peak * t), 1e-9);
  /* the search takes the policy too; anything else is an error naming it, and the per-op
  ** policy (3) needs the layers' ops */
  cfg.recompute = 4;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rs, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "selective") != NULL);
  cfg.recompute = DLB_PAR_RECOMPUTE_OP;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rs, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "ops") != NULL);
  o.recompute = 2; o.devices = 2; o.tp_max = 2; o.pp_max = 1; o.zero_max = 0; o.sched = -1;
  dlb_par_plan *P = dlb_par_plan_new(L, 4, &V100, &cl, &o);
  CHECK(P != NULL && dlb_par_plan_count(P) > 0);
  for (int i = 0; P && i < dlb_par_plan_count(P); i++) {
    CHECK(dlb_par_plan_row(P, i, &rs) == DLB_OK);
    CHECK(rs.recompute == DLB_PAR_RECOMPUTE_SELECTIVE);
  }
  dlb_par_plan_free(P);
  o.recompute = 2.5;
  CHECK(dlb_par_plan_new(L, 4, &V100, &cl, &o) == NULL);
}

/* Four layers: an input layer (act_in 0), two blocks and a loss layer (act_out 0), forward
** FLOPs fw[i] per sample (the backward twice that), kept bytes kept[i], X bytes between
** layers; nothing else. */
static void input_blocks_loss(dlb_par_layer L[4], const double fw[4], const double kept[4],
                              double X) {
  memset(L, 0, 4 * sizeof L[0]);
  for (int i = 0; i < 4; i++) {
    L[i].flops_fwd = fw[i]; L[i].flops_bwd = 2 * fw[i]; L[i].act_kept = kept[i];
    L[i].act_in = i == 0 ? 0 : X; L[i].act_out = i == 3 ? 0 : X;
  }
}

/* Full recompute reruns the blocks between the model's input layer and its loss layer, not
** those two (llm-foundry's activation_checkpointing_fn selects MPTBlock, torchtitan's apply_ac
** wraps each TransformerBlock, Megatron-LM checkpoints its transformer layers; planner.c
** recompute_layer), and with opts.recompute_every = k only blocks k, 2k, ... (torchtitan's
** selective_ac_option "2": every other TransformerBlock). Four layers on one device, batch 1:
** an input layer (act_in 0) of F0 forward FLOPs, two blocks of F, a loss layer (act_out 0) of
** F2, each backward twice its forward, no bytes, no launch costs, flops_eff 0.8: by hand
**   no recompute:          step = 3 (F0 + 2 F + F2) / (0.8 P)
**   full recompute:        step = (3 (F0 + 2 F + F2) + 2 F) / (0.8 P), hfu counts 2 F again
**   full, every 2nd block: step = (3 (F0 + 2 F + F2) + F) / (0.8 P)
** Memory (act_in X between layers, kept K0, K, K, K2, the largest K2 as the working set):
** full keeps 0 + X + X + X + K2 (the input and loss layers as the stack's rule always did);
** every 2nd: the first block keeps K, the second X: 0 + K + X + X + K2. */
static void recompute_scope(void) {
  const double F0 = 1e9, F = 6e9, F2 = 2e9, X = 1e6, K0 = 3e6, K = 5e6, K2 = 9e6;
  dlb_par_layer L[4];
  const double fw[4] = { F0, F, F, F2 }, kept[4] = { K0, K, K, K2 };
  input_blocks_loss(L, fw, kept, X);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, rn, rf, r2;
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.recompute = DLB_PAR_RECOMPUTE_NONE;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rn, NULL) == DLB_OK);
  cfg.recompute = DLB_PAR_RECOMPUTE_FULL;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rf, NULL) == DLB_OK);
  o.recompute_every = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_OK);
  const double P8 = V100.peak * 0.8, W = 3 * (F0 + 2 * F + F2);
  CHECK_NEAR(rn.step, W / P8, 1e-9);
  CHECK_NEAR(rf.step, (W + 2 * F) / P8, 1e-9);
  CHECK_NEAR(r2.step, (W + F) / P8, 1e-9);
  CHECK_NEAR(rf.hfu, (W + 2 * F) / (rf.step * V100.peak), 1e-9);
  CHECK_NEAR(r2.hfu, (W + F) / (r2.step * V100.peak), 1e-9);
  CHECK_NEAR(rf.mem_act, 3 * X + K2, 1e-9);
  CHECK_NEAR(r2.mem_act, K + 2 * X + K2, 1e-9);
  /* 0 is every block, as 1; a fraction is an error naming the option */
  o.recompute_every = 0;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_OK);
  CHECK_NEAR(r2.step, rf.step, 1e-12);
  o.recompute_every = 1.5;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "recompute_every") != NULL);
  /* under another policy it would change nothing: refused, naming it (it was ignored) */
  o.recompute_every = 2;
  for (int p = DLB_PAR_RECOMPUTE_NONE; p <= DLB_PAR_RECOMPUTE_SELECTIVE; p += 2) {
    cfg.recompute = p;
    CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "recompute_every = 2 applies to full recompute only") != NULL);
  }
  /* the search: with none alone refused; with none and full (-1) the full layouts take it */
  o.devices = 1; o.tp_max = 1; o.pp_max = 1; o.zero_max = 0; o.sched = DLB_SCHED_1F1B;
  o.recompute = DLB_PAR_RECOMPUTE_NONE;
  CHECK(dlb_par_plan_new(L, 4, &V100, &cl, &o) == NULL);
  CHECK(strstr(dlb_last_error(), "recompute_every = 2 applies to full recompute only") != NULL);
  o.recompute = -1;
  dlb_par_plan *P = dlb_par_plan_new(L, 4, &V100, &cl, &o);
  CHECK(P != NULL);
  int found = 0;
  for (int i = 0; P && i < dlb_par_plan_count(P); i++) {
    dlb_par_row r;
    CHECK(dlb_par_plan_row(P, i, &r) == DLB_OK);
    if (r.recompute == DLB_PAR_RECOMPUTE_FULL && r.m == 1) {
      CHECK_NEAR(r.step, (W + F) / P8, 1e-9);
      found = 1;
    }
  }
  CHECK(found);
  dlb_par_plan_free(P);
}

/* Torchtitan's per-op selective AC (DLB_PAR_RECOMPUTE_OP; torchtitan/parallelisms/
** parallelize_llama.py `_save_list` and _apply_ac_to_transformer_block, 2024: the outputs of
** SDPA and of every aten.mm but each second call are saved, everything else recomputed).
** Four layers on one device, batch 1: an input layer (act_in 0) of F0 forward FLOPs, two
** identical blocks with ops, a loss layer (act_out 0) of F3; no launch costs, attn_eff 0 (the
** attention kernel at flops_eff 0.8 as the rest), bytes small enough that every op is
** compute-bound. A block's forward ops in order, FLOPs per sample, bytes per sample:
**   norm 1e8, 4e3 | wq (mm 1) 2e9, 8e3 | wk (mm 2) 5e8, 5e3 | wv (mm 3) 5e8, 5e3 |
**   attention (fused) 3e9, 1.6e4 | wo (mm 4) 1.5e9, 6e3    (forward Ff = 7.6e9)
** and one backward op of 2 Ff. Recomputed: norm, wk, wo: R = 2.1e9 per block (saving mm 2
** and 4 instead would recompute 2.6e9); by hand
**   none:  step = 3 (F0 + 2 Ff + F3) / (0.8 P)
**   op:    step = (3 (F0 + 2 Ff + F3) + 2 R) / (0.8 P), hfu counting 2 R more
** Memory (act_in X, kept K per block, K0 and K3 for the outer layers): a block keeps X and
** the saved outputs: wq 8e3 x 4096 / 8192 = 4e3, wv 5e3 x 1024 / 5120 = 1e3 (an output's
** n / (n + k) of a matmul's bytes), the attention output qo_bytes / 2 = 3e3: S = X + 8e3;
** one block's rest is rebuilt at a time: K - S.
**   none:  K0 + 2 K + K3          op: K0 + 2 S + K3 + (K - S) */
static void selective_op(void) {
  const double F0 = 1e9, F3 = 2e9, Ff = 7.6e9, R = 2.1e9, X = 1e3, K0 = 3e5, K = 1e6,
               K3 = 2e6, S = X + 8e3;
  dlb_par_layer L[4];
  const double fw[4] = { F0, Ff, Ff, F3 }, kept[4] = { K0, K, K, K3 };
  input_blocks_loss(L, fw, kept, X);
  L[1].qo_bytes = L[2].qo_bytes = 6e3;
  /* per block: flops, bytes, m, n, k, attention */
  const double def[6][6] = { { 1e8, 4e3, 0, 0, 0, 0 }, { 2e9, 8e3, 4096, 4096, 4096, 0 },
    { 5e8, 5e3, 4096, 1024, 4096, 0 }, { 5e8, 5e3, 4096, 1024, 4096, 0 },
    { 3e9, 1.6e4, 0, 0, 0, 1 }, { 1.5e9, 6e3, 4096, 4096, 4096, 0 } };
  dlb_par_op ops[14];
  memset(ops, 0, sizeof ops);
  for (int b = 0; b < 2; b++) {
    for (int j = 0; j < 6; j++) {
      dlb_par_op *op = &ops[7 * b + j];
      op->layer = 1 + b; op->phase = 0;
      op->flops_sample = def[j][0]; op->bytes_sample = def[j][1];
      op->m = def[j][2]; op->n = def[j][3]; op->k = def[j][4]; op->attention = def[j][5];
      if (op->m > 0) { op->batch = 1; op->grow = 1; op->split = 3; }
    }
    dlb_par_op *bw = &ops[7 * b + 6];
    bw->layer = 1 + b; bw->phase = 1; bw->flops_sample = 2 * Ff;
  }
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, rn, rs;
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.recompute = DLB_PAR_RECOMPUTE_NONE;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 14, &V100, &cl, &o, &cfg, &rn, NULL) == DLB_OK);
  cfg.recompute = DLB_PAR_RECOMPUTE_OP;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 14, &V100, &cl, &o, &cfg, &rs, NULL) == DLB_OK);
  CHECK(rs.recompute == DLB_PAR_RECOMPUTE_OP);
  const double P8 = V100.peak * 0.8, W = 3 * (F0 + 2 * Ff + F3);
  /* (CHECK_NEAR's tolerance is relative) */
  CHECK_NEAR(rn.step, W / P8, 1e-9);
  CHECK_NEAR(rs.step, (W + 2 * R) / P8, 1e-9);
  CHECK_NEAR(rs.hfu, (W + 2 * R) / (rs.step * V100.peak), 1e-9);
  CHECK_NEAR(rn.mem_act, K0 + 2 * K + K3, 1e-9);
  CHECK_NEAR(rs.mem_act, K0 + 2 * S + K3 + (K - S), 1e-9);
  /* the count is of the block's matmuls: with the second block's wk not a matmul (m 0),
  ** its wv is mm 2 and wo mm 3, so wk and wv are recomputed and wo saved there:
  ** 1e8 + 5e8 + 5e8 = R - 1e9 */
  ops[9].m = 0;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 14, &V100, &cl, &o, &cfg, &rs, NULL) == DLB_OK);
  CHECK_NEAR(rs.step, (W + 2 * R - 1e9) / P8, 1e-9);
  /* the host (a step the host binds: 1 s an op against milliseconds of device work): the
  ** per-op policy reruns each block's Python forward to reach its recomputed ops, so a
  ** layer's Python (host_layer hl) counts once more per block, as under full recompute:
  ** 4 layers forward + 2 blocks' recompute = 6 hl */
  dlb_roof d = V100;
  d.host_op = 1;
  dlb_par_row h0, h1;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 14, &d, &cl, &o, &cfg, &h0, NULL) == DLB_OK);
  d.host_layer = 0.5;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 14, &d, &cl, &o, &cfg, &h1, NULL) == DLB_OK);
  CHECK_NEAR(h1.step - h0.step, 6 * 0.5, 1e-9);
}

/* Pipeline sends with Megatron-LM's scatter/gather (Narayanan et al. 2021 sec. 4.1): tp 2 x
** pp 2 on two nodes of two devices (NVLink-like intra tier Bi, network Be, no latency), an
** activation of X bytes per sample, m = 1 micro-batch of 1. The first stage sends one
** activation out and receives one gradient back; by hand:
**   whole tensor from every rank:       pp_comm = 2 X / Be
**   scatter/gather:                     pp_comm = 2 (X / (t Be) + (t - 1) / t X / Bi)
**     (1/t over the network, the ring all-gather of Thakur et al. 2005 over NVLink)
**   sequence parallelism (1/t already): pp_comm = 2 X / (t Be), no all-gather
** And sequence parallelism's reduce-scatter + all-gather pair moves the bytes of the ring
** allreduce it replaces, with as many latency steps: (t - 1) (a + S / (t B)) each, twice,
** against 2 (t - 1) (a + S / (t B)) (Patarasuk & Yuan 2009): the same tp_comm. */
static void pipeline_scatter(void) {
  const double X = 64e6, Bi = 150e9, Be = 12.5e9, t = 2;
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  for (int i = 0; i < 4; i++) { L[i].act_out = X; L[i].tp_bytes = X; }
  dlb_par_cluster cl;
  memset(&cl, 0, sizeof cl);
  cl.per_node = 2; cl.nodes = 2;
  cl.intra.bw = Bi; cl.intra.eff = 1;
  cl.inter.bw = Be; cl.inter.eff = 1;
  dlb_par_opts o;
  dlb_par_row cfg, r;
  layout(&o, 1, &cfg, 2, 1, DLB_SCHED_1F1B);
  cfg.tp = t;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.pp_comm, 2 * X / Be, 1e-12);
  o.pp_scatter = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.pp_comm, 2 * (X / (t * Be) + (t - 1) / t * X / Bi), 1e-12);
  o.seq_par = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.pp_comm, 2 * X / (t * Be), 1e-12);
  o.pp_scatter = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "pp_scatter") != NULL);
  /* the tensor-parallel collectives: two each way per layer, 2 layers per stage */
  o.pp_scatter = 0;
  cl.intra.latency = 3e-6;
  dlb_par_row ra, rs;
  for (int i = 0; i < 4; i++) L[i].tp_colls = 2;
  o.seq_par = 0;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &ra, NULL) == DLB_OK);
  o.seq_par = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &rs, NULL) == DLB_OK);
  const double one = 2 * (t - 1) * (3e-6 + X / (t * Bi));
  CHECK_NEAR(ra.tp_comm, 2 * 2 * 2 * one, 1e-12);
  CHECK_NEAR(rs.tp_comm, ra.tp_comm, 1e-12);
}

/* An op outside the tensor-parallel region (dlb_par_op.replicated: a LayerNorm, the dropout
** after a row-parallel matmul) runs on the whole sequence on each of the tp ranks, and on
** 1/tp of it with sequence parallelism (Korthikanti et al. 2022 sec. 4.2.2: LayerNorm and
** dropout split along the sequence dimension); the other ops of a
** tensor-parallel layer split either way. One layer, tp 2: a replicated forward op of B
** bytes per sample and a split backward op of 2B: without sequence parallelism B / (0.7 bw)
** + (2B / 2) / (0.7 bw); with it (B / 2 + 2B / 2) / (0.7 bw). */
static void replicated_ops(void) {
  const double B = 1e9, bw = V100.bw * 0.7;
  dlb_par_layer L[1];
  uniform_layers(L, 1);
  L[0].flops_fwd = L[0].flops_bwd = 0;
  L[0].tp_bytes = 1;
  dlb_par_op ops[2];
  memset(ops, 0, sizeof ops);
  ops[0].phase = 0; ops[0].bytes_sample = B; ops[0].replicated = 1;
  ops[1].phase = 1; ops[1].bytes_sample = 2 * B;
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r;
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.tp = 2;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 2, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.compute, B / bw + B / bw, 1e-12);
  o.seq_par = 1;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 2, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.compute, B / 2 / bw + B / bw, 1e-12);
  ops[0].replicated = 2;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 2, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "replicated") != NULL);
}

/* Amdahl: S(8) with f = 0.1 is 1/(0.1 + 0.9/8) = 4.7059; the fit recovers f exactly.
** ParaDnn sec. 4.3: FC max utilisation 100% on 1 core vs 62% on 8 cores -> speedup
** 8 x 0.62 = 4.96 -> f = (1/4.96 - 1/8)/(1 - 1/8) = 0.08756. */
/* Expert and context parallelism and hybrid sharding (issue [21]), hand-derived on the
** uniform layers made MoE: each layer has 8 experts holding half its 1e6 parameters, half
** its FLOPs in them (expert_frac 0.5), and its router dispatches 1e6 bytes per sample
** (moe_bytes); attention keys and values 4e5 bytes per sample, queries and output 8e5. One
** flat tier of 10 GB/s without latency; no bytes, so times are FLOPs / (0.8 peak). */
static void moe_cp(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  for (int i = 0; i < 4; i++) {
    L[i].experts = 8; L[i].expert_params = 0.5e6; L[i].expert_frac = 0.5; L[i].moe_bytes = 1e6;
  }
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
** With a host model (host_op h = 10 ms, host-bound on this device): the op costs the host h
** and k0 for each further launch: forward 3 h + 7 k0 (three ops), backward 2 h. */
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
  CHECK_NEAR(r4.step, 3 * h + 7 * k0 + 2 * h, 1e-12);
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
** device-to-host copy of the counts h each forward, the 5 backward kernels h each; the
** dropless dispatcher's sync closes the forward after layer 0, so the forward is max(dev0,
** host0) + max(dev1, host1) instead of max(dev0 + dev1, host0 + host1); the backward (no
** recompute) has no sync. */
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
  CHECK_NEAR(rm.step, fmax(dev0f, host0f) + fmax(dev1f, host1f)
             + fmax(dev0b + dev1b, host0b + host1b), 1e-12);
  CHECK(rm.host_idle > 0);   /* layer 0's forward waits for the host */
  /* with a capacity factor every expert is padded (drop and pad): no sync; the load x 2 on
  ** the experts' share (expert_frac 0.5) and on the sorts */
  o.capacity = 2;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rm, NULL) == DLB_OK);
  double pc = 2 * 2e6 / (0.7 * V100.bw) + k0;
  double d0f = 1.5 * (T(8e9) + 2 * k0) + 2 * pc + 7 * q;
  double d0b = 1.5 * (T(16e9) + 2 * k0) + 2 * pc + 5 * q;
  CHECK_NEAR(rm.step, fmax(d0f + dev1f, host0f + host1f) + fmax(d0b + dev1b, host0b + host1b),
             1e-12);
  o.capacity = 0;
  /* the graph's MoE with the same host: no sync, one launch per op */
  o.moe_impl = DLB_MOE_GRAPH;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rg, NULL) == DLB_OK);
  CHECK_NEAR(rg.step, fmax(T(8e9) + k0 + dev1f, 2 * h) + fmax(T(16e9) + k0 + dev1b, 2 * h),
             1e-12);
#undef T
  o.moe_impl = 2;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 4, &d, &cl, &o, &cfg, &rm, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "moe_impl must be 0") != NULL);
}

/* Megatron-Core's selective-recompute modules (opts.recompute_modules, DLB_RCM_*; issue 27):
** three layers on the V100 device (no launch cost, no tile model, attn_eff off), dp = tp = pp
** = m = batch = 1, act_kept 1e7, act_in = act_out = 1e5 bytes per sample. Layers 0 and 1 are
** MoE blocks, forward: a fused attention kernel of 1e9 FLOPs (the core), the pre-MLP norm
** (module 1) of 4e6 bytes, an expert matmul (module 3, 8e9 FLOPs, n 1000, k 1000, 8 experts),
** the experts' activation (module 4) of 2e6 bytes, a second expert matmul (module 3, 8e9
** FLOPs, n 1000, k 3000, 4e6 bytes); backward one op of 2e9 FLOPs. Layer 2 is a dense block:
** attention 1e9 FLOPs and 5e6 bytes, the pre-MLP norm 4e6 bytes, an MLP op (module 2) of 4e9
** FLOPs and 1e6 bytes; backward 2e9. With T(F) = F / (0.8 P), B(x) = x / (0.7 bw), by hand
** (transformer_layer.py, moe_layer.py, experts.py of Megatron-Core, Transformer Engine spec):
**   step - step(none): layernorm 2 B(4e6) (the MoE layers' norm; the dense one is fused into
**     linear_fc1); moe 2 (2 T(8e9) + B(2e6)); moe_act 2 B(2e6); moe + moe_act 2 (2 T(8e9) +
**     2 B(2e6)) (the activation rebuilt again at linear_fc2's backward); mlp B(4e6) + T(4e9)
**     (the dense block's MLP with its fused norm); core_attn 3 T(1e9), as the default.
**   memory (3e7 kept without recompute; one layer's modules rebuilt at a time): layernorm
**     frees each MoE layer's norm output, act_out: 3e7 - 2e5 + 1e5; moe its share of the
**     layer's kept bytes, 6e6 / 10e6 of its forward bytes: 3e7 - 1.2e7 + 6e6; moe_act the
**     second expert matmul's input, 3/4 of its 4e6 bytes: 3e7 - 6e6 + 3e6.
**   with ep 2 (dp 2, batch 2) the rerun MoE layer's dispatch and combine all-to-alls run again:
**     ep_comm x 6/4. */
static void moe_modules(dlb_par_layer L[3], dlb_par_op *ops) {
  memset(L, 0, sizeof(*L) * 3);
  memset(ops, 0, sizeof(*ops) * 16);
  int k = 0;
  for (int i = 0; i < 3; i++) {
    L[i].flops_fwd = 1e9; L[i].flops_bwd = 2e9; L[i].params = 1e6;
    L[i].act_kept = 1e7; L[i].act_in = 1e5; L[i].act_out = 1e5;
    int moe = i < 2;
    if (moe) { L[i].experts = 8; L[i].moe_bytes = 1e6; }
    dlb_par_op *a = &ops[k++];
    a->layer = i; a->flops_sample = 1e9; a->attention = 1; a->bytes_sample = moe ? 0 : 5e6;
    dlb_par_op *nm = &ops[k++];
    nm->layer = i; nm->bytes_sample = 4e6; nm->module = DLB_OPM_PRE_MLP_NORM;
    if (moe) {
      dlb_par_op *c = &ops[k++], *d = &ops[k++], *e = &ops[k++];
      c->layer = e->layer = d->layer = i;
      c->flops_sample = e->flops_sample = 8e9;
      c->m = e->m = 1; c->n = e->n = 1000; c->k = 1000; e->k = 3000;
      c->batch = e->batch = 8; c->grow = e->grow = 1; c->attention = e->attention = 2;
      c->module = e->module = DLB_OPM_MOE; e->bytes_sample = 4e6;
      d->bytes_sample = 2e6; d->module = DLB_OPM_MOE_ACT;
    } else {
      dlb_par_op *m = &ops[k++];
      m->layer = i; m->flops_sample = 4e9; m->bytes_sample = 1e6; m->module = DLB_OPM_MLP;
    }
    dlb_par_op *b = &ops[k++];
    b->layer = i; b->phase = 1; b->flops_sample = 2e9;
  }
}

static void recompute_modules(void) {
  dlb_par_layer L[3];
  dlb_par_op ops[16];
  moe_modules(L, ops);
  const int nops = 2 * 6 + 4;
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, rn, r;
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
#define T(F) ((F) / (0.8 * V100.peak))
#define B(x) ((x) / (0.7 * V100.bw))
#define RUN_MODS(m) (o.recompute_modules = (m), \
    dlb_par_evaluate_ops(L, 3, ops, nops, &V100, &cl, &o, &cfg, &r, NULL))
  CHECK(dlb_par_evaluate_ops(L, 3, ops, nops, &V100, &cl, &o, &cfg, &rn, NULL) == DLB_OK);
  CHECK_NEAR(rn.mem_act, 3e7, 1e-6);
  cfg.recompute = DLB_PAR_RECOMPUTE_SELECTIVE;
  CHECK(RUN_MODS(DLB_RCM_LAYERNORM) == DLB_OK);
  CHECK_NEAR(r.step - rn.step, 2 * B(4e6), 1e-12);
  CHECK_NEAR(r.mem_act, 3e7 - 2e5 + 1e5, 1e-6);
  CHECK(RUN_MODS(DLB_RCM_MOE) == DLB_OK);
  CHECK_NEAR(r.step - rn.step, 2 * (2 * T(8e9) + B(2e6)), 1e-12);
  CHECK_NEAR(r.mem_act, 3e7 - 1.2e7 + 6e6, 1e-6);
  CHECK_NEAR(r.hfu, (9e9 + 2 * 16e9) / (r.step * V100.peak), 1e-12);
  CHECK(RUN_MODS(DLB_RCM_MOE_ACT) == DLB_OK);
  CHECK_NEAR(r.step - rn.step, 2 * B(2e6), 1e-12);
  CHECK_NEAR(r.mem_act, 3e7 - 6e6 + 3e6, 1e-6);
  CHECK(RUN_MODS(DLB_RCM_MOE | DLB_RCM_MOE_ACT) == DLB_OK);
  CHECK_NEAR(r.step - rn.step, 2 * (2 * T(8e9) + 2 * B(2e6)), 1e-12);
  CHECK_NEAR(r.mem_act, 3e7 - 1.2e7 + 6e6, 1e-6);
  CHECK(RUN_MODS(DLB_RCM_MLP) == DLB_OK);
  CHECK_NEAR(r.step - rn.step, B(4e6) + T(4e9), 1e-12);
  CHECK(RUN_MODS(DLB_RCM_LAYERNORM | DLB_RCM_MOE) == DLB_OK);
  CHECK_NEAR(r.step - rn.step, 2 * (B(4e6) + 2 * T(8e9) + B(2e6)), 1e-12);
  dlb_par_row rd;
  CHECK(RUN_MODS(0) == DLB_OK);
  rd = r;
  CHECK_NEAR(rd.step - rn.step, 3 * T(1e9), 1e-12);
  CHECK(RUN_MODS(DLB_RCM_CORE_ATTN) == DLB_OK);
  CHECK(r.step == rd.step && r.mem_act == rd.mem_act);
  /* expert parallelism: the rerun MoE layer's all-to-alls again */
  cfg.dp = 2; cfg.ep = 2; o.batch = 2;
  cfg.recompute = DLB_PAR_RECOMPUTE_NONE;
  CHECK(RUN_MODS(0) == DLB_OK);
  rd = r;
  cfg.recompute = DLB_PAR_RECOMPUTE_SELECTIVE;
  CHECK(RUN_MODS(DLB_RCM_MOE) == DLB_OK);
  CHECK(rd.ep_comm > 0);
  CHECK_NEAR(r.ep_comm, 1.5 * rd.ep_comm, 1e-12);
  cfg.dp = 1; cfg.ep = 1; o.batch = 1;
  /* refused: under another policy, not a sum of flags, a module without ops in the model */
  cfg.recompute = DLB_PAR_RECOMPUTE_FULL;
  CHECK(RUN_MODS(DLB_RCM_MOE) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "selective recompute only") != NULL);
  cfg.recompute = DLB_PAR_RECOMPUTE_SELECTIVE;
  CHECK(RUN_MODS(32) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "DLB_RCM_") != NULL);
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 2 * 6, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  o.recompute_modules = DLB_RCM_MLP;
  CHECK(dlb_par_evaluate_ops(L, 2, ops, 2 * 6, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "\"mlp\" reruns nothing") != NULL);
  /* the search: every row selective with the modules; without the selective policy refused */
  o.recompute = DLB_PAR_RECOMPUTE_SELECTIVE; o.recompute_modules = DLB_RCM_MOE;
  o.devices = 2; o.tp_max = 1; o.pp_max = 1; o.zero_max = 0; o.sched = -1; o.batch = 2;
  dlb_par_plan *P = dlb_par_plan_new_ops(L, 3, ops, nops, &V100, &cl, &o);
  CHECK(P != NULL && dlb_par_plan_count(P) > 0);
  for (int i = 0; P && i < dlb_par_plan_count(P); i++) {
    CHECK(dlb_par_plan_row(P, i, &r) == DLB_OK);
    CHECK(r.recompute == DLB_PAR_RECOMPUTE_SELECTIVE);
  }
  dlb_par_plan_free(P);
  o.recompute = -1;
  CHECK(dlb_par_plan_new_ops(L, 3, ops, nops, &V100, &cl, &o) == NULL);
  CHECK(strstr(dlb_last_error(), "selective recompute only") != NULL);
#undef RUN_MODS
#undef B
#undef T
}

/* The host-side model in the planner (issue [19]): 4 equal layers without ops (one op per
** pass), pp 1, m 4, mb 2; host_layer 1 ms per layer forward, host_op 0. Per micro-batch the
** forward ends at max(device 4 tf, host 4 x 1 ms) = 4 ms (tf = t / 3, t = 6e9 / (0.8 peak)),
** the backward at its device time 4 x 2t/3; host_idle = m (4 ms - 4 tf). */
static void host_model(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r;
  layout(&o, 8, &cfg, 1, 4, DLB_SCHED_1F1B);
  dlb_roof d = V100;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  double t = 6e9 / (0.8 * 15.67e12);
  CHECK(r.host_idle == 0);                    /* no host model: as before issue [19] */
  CHECK_NEAR(r.step, 4 * 4 * t, 1e-12);
  d.host_layer = 1e-3;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.host_idle, 4 * (4e-3 - 4 * t / 3), 1e-12);
  CHECK_NEAR(r.step, 4 * (4e-3 + 4 * 2 * t / 3), 1e-12);
  CHECK_NEAR(r.compute, 4 * 4 * t, 1e-12);    /* the device's own time is unchanged */
  /* host_op per op instead: one op per pass, 0.5 ms -> forward host 4 x 0.5 ms = 2 ms,
  ** backward host 2 ms > its device 4 x 2t/3 = 1.28 ms */
  d.host_layer = 0;
  d.host_op = 0.5e-3;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (2e-3 + 2e-3), 1e-12);
  d.host_op = -1;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "host_op") != NULL);
  /* with NCCL collectives a stage-to-stage send across nodes shares the node's NICs: 2
  ** nodes of 2 devices, pp 4, one NIC of 10 GB/s per node -> 5 GB/s per send (latency 0),
  ** so the transfers take twice the time of 2 NICs per node (10 GB/s each) */
  dlb_par_cluster two = flat(10e9, 0);
  two.per_node = 2; two.nodes = 2;
  dlb_par_layer L4[4];
  uniform_layers(L4, 4);
  layout(&o, 8, &cfg, 4, 4, DLB_SCHED_GPIPE);
  o.nccl = 1;
  two.nics = 2;
  dlb_par_row r2, r1;
  CHECK(dlb_par_evaluate(L4, 4, &V100, &two, &o, &cfg, &r2, NULL) == DLB_OK);
  two.nics = 1;
  CHECK(dlb_par_evaluate(L4, 4, &V100, &two, &o, &cfg, &r1, NULL) == DLB_OK);
  CHECK_NEAR(r2.pp_comm, 4 * 2 * 2e3 / 10e9, 1e-15);   /* m x (activation + gradient) x mb 2 */
  CHECK_NEAR(r1.pp_comm, 2 * r2.pp_comm, 1e-15);
  /* nccl must be 0 or 1 */
  d.host_op = 0;
  o.nccl = 2;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "nccl must be 0") != NULL);
}

/* Megatron-LM's timers (opts.phase_sync, issue [19]; megatron/global_vars.py _Timer.start/stop
** call torch.cuda.synchronize(), megatron/schedules.py times every micro-batch's forward and
** backward): 4 equal layers without ops (one op per pass), pp 1, m 4, mb 2, device seconds
** per layer t = 6e9 / (0.8 peak), forward t/3, backward 2t/3 (as host_model above). By hand,
** from a synchronisation point (dlb_timeline: the first op starts at its host time):
**   host_op h = 0.1 ms, host_layer 0: forward max(h + 4t/3, 4h) = h + 4t/3 (4t/3 = 0.64 ms),
**     backward max(h + 8t/3, 4h) = h + 8t/3; step = 4 (4t + 2h); host_idle = 4 x 2h.
**   host_layer 1 ms too: forward max(1.1 ms + 4t/3, 4 x 1.1 ms) = 4.4 ms (host-bound, the
**     lead changes nothing), backward h + 8t/3.
**   full recompute, host_layer 0: backward device 8t/3 + 4t/3 = 4t, host 8h, lead h. */
static void phase_sync(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r, r0;
  layout(&o, 8, &cfg, 1, 4, DLB_SCHED_1F1B);
  dlb_roof d = V100;
  const double t = 6e9 / (0.8 * 15.67e12), h = 0.1e-3;
  /* no host model: the sync changes nothing */
  o.phase_sync = 1;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * 4 * t, 1e-12);
  CHECK(r.host_idle == 0);
  d.host_op = h;
  o.phase_sync = 0;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  CHECK_NEAR(r0.step, 4 * 4 * t, 1e-12);   /* the host runs ahead: hidden */
  o.phase_sync = 1;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (4 * t + 2 * h), 1e-12);
  CHECK_NEAR(r.host_idle, 4 * 2 * h, 1e-12);
  CHECK_NEAR(r.compute, r0.compute, 1e-15);   /* the device's work is unchanged */
  d.host_layer = 1e-3;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (4 * 1.1e-3 + h + 8 * t / 3), 1e-12);
  d.host_layer = 0;
  cfg.recompute = DLB_PAR_RECOMPUTE_FULL;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * ((h + 4 * t / 3) + (h + 4 * t)), 1e-12);
  /* host_layer 0.2 ms: the forward is host-bound, 4(h + 0.2 ms) = 1.2 ms > h + 0.2 ms + 4t/3;
  ** the backward's device binds (host 4h + 4(h + 0.2 ms) = 1.6 ms < 4t = 1.92 ms) and starts
  ** after the recomputed block's Python, lead h + 0.2 ms.
  ** When the last layer is a loss layer (act_out 0) it is not recomputed and its gradient
  ** ops come first: lead h, and the device's recompute is t/3 shorter, so each micro-batch
  ** is 0.2 ms + t/3 faster (host 4h + 3(h + 0.2 ms) = 1.3 ms < 11t/3). */
  d.host_layer = 0.2e-3;
  dlb_par_row rl;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (4 * (h + 0.2e-3) + (h + 0.2e-3 + 4 * t)), 1e-12);
  L[3].act_out = 0;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &rl, NULL) == DLB_OK);
  CHECK_NEAR(r.step - rl.step, 4 * (0.2e-3 + t / 3), 1e-9);
  L[3].act_out = L[2].act_out;
  d.host_layer = 0;
  cfg.recompute = DLB_PAR_RECOMPUTE_NONE;
  o.phase_sync = 2;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "phase_sync must be 0") != NULL);
}

/* The DeepEP dispatcher (issue [21], branch deepep; planner.c DEEPEP_*), by hand on the
** moe_cp layers (1e6 bytes of top-k copies per sample, mb 1). A token goes once to each
** destination rank (within a node) or node (across nodes): with its k experts drawn from E
** held evenly by D destinations it reaches D (1 - C(E - E/D, k) / C(E, k)) of them. Each
** dispatch and combine runs at DeepEP's H800 figure as a fraction of the link (intranode
** 153/200 and 158/200 of NVLink each way; internode over 4 nodes 58/50 and 57/50 of the
** NIC), plus the tier's latency; forward and backward one of each per layer. */
static void moe_deepep(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  for (int i = 0; i < 4; i++) {
    L[i].experts = 8; L[i].expert_params = 0.5e6; L[i].expert_frac = 0.5; L[i].moe_bytes = 1e6;
    L[i].top_k = 2;
  }
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
  dlb_par_cluster c4;
  memset(&c4, 0, sizeof c4);
  c4.per_node = 4; c4.nodes = 4;
  c4.intra.bw = 100e9; c4.intra.eff = 1;
  c4.inter.bw = 10e9; c4.inter.latency = 1e-6; c4.inter.eff = 1;
  for (int i = 0; i < 4; i++) { L[i].experts = 16; L[i].top_k = 4; }
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
  o.moe_dispatcher = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &c4, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "moe_dispatcher must be 0") != NULL);
}

/* Megatron-Core's dispatchers with the attention's tensor parallelism (issue 27, branch
** tp-ep; planner.c, the ep block), by hand on four MoE layers (8 experts, top-2, 1e6 bytes
** of top-k copies and a 4e5-byte tensor-parallel activation per sample, two collectives a
** layer) on one 10 GB/s tier, tp 2 with sequence parallelism, mb 1. Each rank holds 1/tp of
** the tokens, so it sends c = 5e5 bytes of copies. Ring all-gather and reduce-scatter of
** S bytes over n ranks: (n-1)/n S / bw each. */
static void moe_tp_ep(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  for (int i = 0; i < 4; i++) {
    L[i].experts = 8; L[i].expert_params = 0.5e6; L[i].expert_frac = 0.5; L[i].moe_bytes = 1e6;
    L[i].top_k = 2; L[i].tp_bytes = 4e5; L[i].tp_colls = 2;
  }
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
  CHECK_NEAR(r.ep_comm - r1.ep_comm, 4 * (7.0 / 8 * 512 / 10e9 + 64 / 10e9), 1e-15);
  /* tp 1: no aux-loss all-reduce (the group is one rank) */
  cfg.tp = 1; cfg.dp = 8; o.batch = 8;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  o.moe_impl = DLB_MOE_GRAPH;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r1, NULL) == DLB_OK);
  CHECK_NEAR(r.ep_comm - r1.ep_comm, 4 * 7.0 / 8 * 512 / 10e9, 1e-15);
}

int main(void) {
  RUN(attention_ops);
  RUN(selective_recompute);
  RUN(recompute_scope);
  RUN(selective_op);
  RUN(pipeline_scatter);
  RUN(replicated_ops);
  RUN(moe_cp);
  RUN(moe_mcore);
  RUN(moe_deepep);
  RUN(moe_tp_ep);
  RUN(te_fp8_per_expert);
  RUN(host_model);
  RUN(phase_sync);
  RUN(recompute_modules);
  return check_done();
}
