/*
** test_parallel_ops.c — the planner's per-op and framework mechanisms: fused attention and
** selective recompute, the layers full recompute reruns, pipeline scatter/gather, replicated
** (sequence-parallel) ops, expert and context parallelism, Megatron-Core's MoE layer, the
** host-side model, Megatron-LM's timer syncs and its asynchronous tensor-parallel all-reduce;
** every golden number derived in its comment
** (split from test_parallel.c; expert and context parallelism and Megatron-Core's MoE layer
** are in test_parallel_moe.c).
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

/* The output layer's GEMMs (dlb_par_op.attention = 5, the analysis' DLB_KERNEL_HEAD) at the
** device's head_peak (the 16-bit peak of an fp8 step whose recipe leaves the output layer in
** bf16; graphs/hw/roofline.c dlb_op_time_raw). attention_ops' layers, no attention kernels;
** the last layer's backward op (2e9 FLOPs a sample, mb = 2) a GEMM of the output layer
** (m = 1 row a sample, n = k = 1000: no matmul model on this device, efficiency 1). By hand:
** head_peak 0: 4 x 6e9 / (P x 0.8) as before; head_peak P / 2: that op's 4e9 FLOPs at
** (P / 2) x 0.8, the rest at P x 0.8. Without a matmul shape the mark is refused. */
static void head_ops(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  dlb_par_op ops[8];
  two_ops_per_layer(ops, 4);
  for (int i = 0; i < 8; i++) ops[i].attention = 0;
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r;
  layout(&o, 2, &cfg, 1, 1, DLB_SCHED_1F1B);
  dlb_roof d = V100;
  const double P = V100.peak;
  ops[7].attention = 5;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "must give its matmul shape") != NULL);
  ops[7].m = 1; ops[7].n = 1000; ops[7].k = 1000; ops[7].batch = 1; ops[7].grow = 1;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * 6e9 / (P * 0.8), 1e-12);          /* head_peak 0: the step's peak */
  d.head_peak = P / 2;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 20e9 / (P * 0.8) + 4e9 / (P / 2 * 0.8), 1e-12);
  CHECK_NEAR(r.mfu, 24e9 / (r.step * P), 1e-12);            /* MFU at the step's peak */
  ops[7].attention = 0;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * 6e9 / (P * 0.8), 1e-12);          /* any other op: the step's peak */
}

/* Selective activation recompute (Korthikanti et al. 2022 sec. 5) on four GPT-3-shaped
** layers of their Table 3 kind (s = 2048, h = 4096, a = 32, one sample, 2-byte activations):
** kept per layer (eq. 1) 34 s h + 5 a s^2 bytes, of which 10 s h replicated over the tensor
** ranks (LayerNorm inputs, the dropout masks after attention and MLP) and 5 a s^2 the
** attention core's; tp 2 with sequence parallelism. By hand:
**   none:      4 x (34 s h + 5 a s^2) / t                           (sec. 4.2.2, with SP)
**   selective: 4 x 34 s h / t + 5 a s^2 / t (sec. 5: 34 s h / t per layer; the one layer
**              whose core the backward rebuilds at a time)
**   full:      4 x 2 s h / t + (34 s h + 5 a s^2) / t + 2 s h / t (the checkpoints, one
**              layer rebuilt, and the gradient arriving at it: issue [18] item 5)
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
  CHECK_NEAR(rf.mem_act, 4 * 2 * sh / t + (34 * sh + core) / t + 2 * sh / t, 1e-6);
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
** Memory (act_in X between layers, kept K0, K, K, K2): the input and loss layers run once
** and keep what they save, K0 and K2 (as the stacks run modules outside checkpoint(); issue
** [18] item 5: before, their input alone, 0 and X, with K2 counted as the working set); a
** rebuilt block its input X; the working set, a rebuilt block's K, beyond the loss layer's K2
** freed by then: max(0, K - K2) = 0, so
**   full keeps K0 + X + X + K2;  every 2nd: the first block keeps K, the second X:
**   K0 + K + X + K2. */
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
  CHECK_NEAR(rf.mem_act, K0 + 2 * X + K2, 1e-9);
  CHECK_NEAR(r2.mem_act, K0 + K + X + K2, 1e-9);
  /* rerun (issue [18] item 5: the graph path's rule, set by layers.from_graph) overrides
  ** the rule by place: -1 a block runs once, 1 the input layer runs again; 2 is refused */
  o.recompute_every = 1;
  L[2].rerun = -1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_OK);
  CHECK_NEAR(r2.step, (W + F) / P8, 1e-9);
  L[2].rerun = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_OK);
  CHECK_NEAR(r2.step, rf.step, 1e-12);
  L[0].rerun = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_OK);
  CHECK_NEAR(r2.step, (W + 2 * F + F0) / P8, 1e-9);
  L[0].rerun = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "layer 1 has rerun 2") != NULL);
  L[0].rerun = L[2].rerun = 0;
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

/* Megatron-LM's asynchronous tensor-parallel all-reduce (opts.tp_async; megatron/mpu/
** layers.py ColumnParallelLinearWithAsyncAllreduce.backward: grad_input's all-reduce with
** async_op=True, the weight-gradient GEMM, handle.wait()). One layer on the V100 device (no
** launch cost, no tile model), tp 2, batch = m = 1, a flat link of B = 10 GB/s without
** latency; two collectives each way of X = 2e6 bytes: the ring all-reduce 2 (t - 1) X / (t B)
** = X / B = 200 us each (reduce-scatter and all-gather 100 us each). Forward: a column-parallel
** matmul (split 2) of 2e9 FLOPs, a row-parallel one (split 3) of 2e9, a column one of 8e9, a
** row one of 8e9; backward one op. The dW GEMMs: the column matmuls' forward times at tp 2,
** wa = 1e9 / (0.8 P) = 79.8 us and wb = 4e9 / (0.8 P) = 319 us (P = 15.67e12). By hand:
**   off: tp_comm = 4 t (two forward, two backward, every one exposed)
**   on:  2 t + max(t - wa, 0) + max(t - wb, 0) = 3 t - wa (the first beside QKV's dW
**        partly, the second beside FC1's whole)
**   contention f = 0.25: 2 t + max(t - wa, f t) + max(t - wb, f t) = 3 t - wa + f t
**   sequence parallelism (r = t / 2 each): 2 t + 2 r (the backward's all-gathers) +
**        max(r - wa, 0) + max(r - wb, 0) (the reduce-scatters beside the dW GEMMs) +
**        max(r - wa, 0) + max(r - wb, 0) (each column-parallel linear's input gathered
**        again beside its dX GEMM, of the dW GEMM's time: Megatron-LM megatron/mpu/layers.py
**        LinearWithGradAccumulationAndAsyncCommunication.backward, 2022; Megatron-Core's,
**        Transformer Engine's Linear) = 3 t + 2 r - 2 wa = 4 t - 2 wa (wa < r: QKV's GEMMs
**        hide part of each); a layer reading no activation (act_in 0: an embedding) gathers
**        nothing again: 3 t + r - wa; with tp_async off every collective exposed, none
**        gathered again: 4 t
**   full recompute: the recomputed forward's two all-reduces stay exposed: 5 t - wa
**   a layer without ops: nothing known of its GEMMs, nothing hidden (4 t). */
static void async_tp(void) {
  const double X = 2e6, Bw = 10e9, t = X / Bw, P = V100.peak * V100.flops_eff;
  const double wa = 1e9 / P, wb = 4e9 / P;
  CHECK(wa < t / 2 && wb > t);   /* the cases the hand formulas above assume */
  dlb_par_layer L[1];
  uniform_layers(L, 1);
  L[0].flops_fwd = 20e9; L[0].flops_bwd = 40e9;
  L[0].tp_bytes = X; L[0].tp_colls = 2; L[0].rerun = 1;
  dlb_par_op ops[5];
  memset(ops, 0, sizeof ops);
  const double fl[4] = { 2e9, 2e9, 8e9, 8e9 }, sp[4] = { 2, 3, 2, 3 };
  for (int i = 0; i < 4; i++) {
    ops[i].flops_sample = fl[i]; ops[i].m = 1; ops[i].n = 1000; ops[i].k = 1000;
    ops[i].batch = 1; ops[i].grow = 1; ops[i].split = sp[i];
  }
  ops[4].phase = 1; ops[4].flops_sample = 40e9;
  dlb_par_cluster cl = flat(Bw, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r;
  layout(&o, 1, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.tp = 2;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 5, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 4 * t, 1e-12);
  double off = r.step;
  o.tp_async = 1;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 5, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 3 * t - wa, 1e-12);
  CHECK_NEAR(off - r.step, t + wa, 1e-9);
  o.contention = 0.25;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 5, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 3 * t - wa + 0.25 * t, 1e-12);
  o.contention = 0; o.seq_par = 1;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 5, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 4 * t - 2 * wa, 1e-12);
  const double ain = L[0].act_in;
  L[0].act_in = 0;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 5, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 3 * t + t / 2 - wa, 1e-12);
  L[0].act_in = ain; o.tp_async = 0;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 5, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 4 * t, 1e-12);
  o.tp_async = 1;
  o.seq_par = 0; cfg.recompute = 1;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 5, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 5 * t - wa, 1e-12);
  cfg.recompute = 0;
  CHECK(dlb_par_evaluate(L, 1, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.tp_comm, 4 * t, 1e-12);
  o.tp_async = 2;
  CHECK(dlb_par_evaluate_ops(L, 1, ops, 5, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "tp_async") != NULL);
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
  /* the host-side timeline (dlb_timeline, issue [19]), one stream (pp 1, no phase_sync: the
  ** phases and the 4 micro-batches issued back to back). host_layer 1 ms (host_op 0): layer
  ** i's forward op (t/3) of micro-batch j is issued at 4 (j - 1) + i ms, its backward ops
  ** (2t/3 each) at once; a micro-batch's ops end 3t after its last forward issue (3t < 1 ms
  ** + t/3: the next micro-batch's ops wait for their issue again), so step = 16 ms + 3t and
  ** the device idles 16 ms + 3t - 16t */
  d.host_layer = 1e-3;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.host_idle, 16e-3 - 13 * t, 1e-12);
  CHECK_NEAR(r.step, 16e-3 + 3 * t, 1e-12);
  CHECK_NEAR(r.compute, 4 * 4 * t, 1e-12);    /* the device's own time is unchanged */
  /* host_op per op instead: one op per pass, 0.5 ms, longer than every op (2t/3 = 0.32 ms):
  ** the 32 ops run as they are issued, the step ends with the last (a backward op) */
  d.host_layer = 0;
  d.host_op = 0.5e-3;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 32 * 0.5e-3 + 2 * t / 3, 1e-12);
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

/* An op's further host ops and kernels (dlb_par_op.more_ops, more_kernels: a pass's eager ops
** on a graph op, graphs/step/fusion_loss.c), as dlb_step_time charges them: 4 layers of two
** ops (forward t/3 = 2e9 / (0.8 P) = 0.16 ms at mb 2, backward 2t/3), kernel_overhead k =
** 0.1 ms on every kernel, host_op h = 1 ms (longer than every kernel: the device runs each as
** it is issued), one stream. Plain: 8 ops issued, step 8 h + the last (layer 0's backward,
** 2t/3 + k) = 8.42 ms. Layer 0's forward with 2 further host ops and 4 further kernels: 5
** kernels of t/15 + k each, host 3 h + 2 k (the kernels beyond the host ops launched from
** C++, dlb_launch_host): step 7 h + 3.2 ms + 2t/3 + k = 10.62 ms; its device time 4 k more. */
static void more_ops(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  dlb_par_op ops[8];
  two_ops_per_layer(ops, 4);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r, r0;
  layout(&o, 2, &cfg, 1, 1, DLB_SCHED_1F1B);
  dlb_roof d = V100;
  d.host_op = 1e-3;
  d.kernel_overhead = 0.1e-3;
  double t = 6e9 / (0.8 * 15.67e12);
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  CHECK_NEAR(r0.step, 8e-3 + 2 * t / 3 + 0.1e-3, 1e-12);
  ops[0].more_ops = 2;
  ops[0].more_kernels = 4;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 7e-3 + 3.2e-3 + 2 * t / 3 + 0.1e-3, 1e-12);
  CHECK_NEAR(r.compute - r0.compute, 4 * 0.1e-3, 1e-12);
  ops[0].more_kernels = 0.5;
  CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, &d, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "more_kernels") != NULL);
}

/* Megatron-LM's timers (opts.phase_sync, issue [19]; megatron/global_vars.py _Timer.start/stop
** call torch.cuda.synchronize(), megatron/schedules.py times every micro-batch's forward and
** backward): 4 equal layers without ops (one op per pass), pp 1, m 4, mb 2, device seconds
** per layer t = 6e9 / (0.8 peak), forward t/3, backward 2t/3 (as host_model above). By hand,
** from a synchronisation point (dlb_timeline: the first op starts at its host time):
**   host_op h = 0.1 ms, host_layer 0: every op (t/3 = 0.16 ms and up) is longer than h, so
**     each phase waits only for its first issue: forward h + 4t/3, backward h + 8t/3; step =
**     4 (4t + 2h); host_idle = 4 x 2h. Without phase_sync (one stream) only the step's first
**     issue is waited for: 16t + h.
**   host_layer 1 ms too: the forward's ops are issued 1.1 ms apart and each runs at once:
**     4 x 1.1 ms + t/3; backward h + 8t/3.
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
  CHECK_NEAR(r0.step, 4 * 4 * t + h, 1e-12);   /* the host runs ahead after the first op */
  o.phase_sync = 1;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (4 * t + 2 * h), 1e-12);
  CHECK_NEAR(r.host_idle, 4 * 2 * h, 1e-12);
  CHECK_NEAR(r.compute, r0.compute, 1e-15);   /* the device's work is unchanged */
  d.host_layer = 1e-3;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (4 * 1.1e-3 + t / 3 + h + 8 * t / 3), 1e-12);
  d.host_layer = 0;
  cfg.recompute = DLB_PAR_RECOMPUTE_FULL;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * ((h + 4 * t / 3) + (h + 4 * t)), 1e-12);
  /* host_layer 0.2 ms: the forward is host-bound, its ops issued 0.3 ms apart (> t/3), ending
  ** t/3 after the last issue: 4(h + 0.2 ms) + t/3; in the backward each layer's Python (0.2
  ** ms) and two issues (the recomputed op, the gradient op: 0.4 ms a layer) keep ahead of its
  ** device seconds t, which bind after the first lead h + 0.2 ms: h + 0.2 ms + 4t.
  ** When the last layer is a loss layer (act_out 0) it is not recomputed and its gradient
  ** ops come first: lead h, and the device's recompute is t/3 shorter, so each micro-batch
  ** is 0.2 ms + t/3 faster (host 4h + 3(h + 0.2 ms) = 1.3 ms < 11t/3). */
  d.host_layer = 0.2e-3;
  dlb_par_row rl;
  CHECK(dlb_par_evaluate(L, 4, &d, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.step, 4 * (4 * (h + 0.2e-3) + t / 3 + (h + 0.2e-3 + 4 * t)), 1e-12);
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

int main(void) {
  RUN(attention_ops);
  RUN(head_ops);
  RUN(selective_recompute);
  RUN(recompute_scope);
  RUN(selective_op);
  RUN(pipeline_scatter);
  RUN(replicated_ops);
  RUN(async_tp);
  RUN(host_model);
  RUN(more_ops);
  RUN(phase_sync);
  RUN(recompute_modules);
  return check_done();
}
