-- test_megatron_kernels.lua — one GPT layer's kernels under the megatron-lm profile against
-- the model code vTrain measured and the Megatron-LM kernels it calls (issue [19], the
-- megatron audit in docs/validation.md). Counted by hand, fp16 activations (2 B), one
-- sequence of s = 1024 tokens, hidden h = 1024, a = 16 heads:
--   * bias + GeLU is ONE kernel (megatron/model/fused_bias_gelu.py bias_gelu_impl, as
--     VIA-Research/vTrain src/model/gpt_modeling.py ShardedGptMlp calls it; Narayanan et al.
--     2021 sec. 4.2): it reads the fc1 GEMM's output (s 4h) and the bias (4h), writes the
--     activation (s 4h); the separate bias add is gone. Its backward (bias_gelu_back)
--     recomputes y + b: it reads the incoming gradient and the GEMM output, writes the
--     gradient (3 s 4h), as the unfused GeLU's backward did. Also under full recompute.
--   * the scaled softmax's backward is ONE kernel (scaled_upper_triang_masked_softmax
--     backward(output_grads, softmax_results, scale), vTrain src/model/fused_softmax.py
--     ScaledUpperTriangMaskedSoftmax.backward): it reads the gradient and the probabilities
--     and writes the scaled input gradient, 3 a s^2 elements; no separate pass for the
--     scale's gradient.
--   * the loss is Megatron-LM's vocab-parallel cross-entropy over fp32 logits (38 B per fp16
--     logit forward, 14 B backward; megatron/mpu/cross_entropy.py).
--   * the Q, K, V projections are ONE GEMM h -> 3h with the bias in its epilogue
--     (ColumnParallelLinear(h, 3h): vTrain src/model/gpt_modeling.py ShardedGptSelfAttention
--     .query_key_value, F.linear -> addmm; Megatron-LM megatron/model/transformer.py
--     ParallelAttention.query_key_value), q, k, v strided views of its output (no transpose
--     copies; split_tensor_along_last_dim + view, read by baddbmm / bmm); backward one dX
--     GEMM (K = 3h, the three partial dx summed inside it), one dW GEMM, one bias reduction,
--     and SplitBackward's one cat of dq, dk, dv.
--   * the algorithmic step (no framework profile) keeps every op as the graph has it.
--   * the vTrain rows build the layer vTrain measured: its three dropouts at 0.1
--     (vTrain src/model/gpt_model.py, gpt_modeling.py bias_dropout_add_fused_train(..., 0.1)).
-- Both backends.
local T = require "harness"
local dlb = require "dlbench"

local s, h, a, E = 1024, 1024, 16, 2

local function ops(framework, recompute)
  local g = dlb.models.gpt { layers = 2, hidden = h, heads = a, vocab = 50257, context = s,
    seq = s, batch = 1 }
  local o = { precision = "mixed", recompute = recompute }
  if framework then o.framework = dlb.frameworks.get(framework) end
  local by = {}
  for _, r in ipairs(g:ops(o)) do
    local k = r.phase .. " " .. r.name:gsub("/recompute$", "")
    by[k] = by[k] or r
  end
  return by
end

local function eq(x, want, what) T.eq(x, want, what .. string.format(" (%.6g, want %.6g)", x, want)) end

T.test("megatron-lm: bias + GeLU in one kernel, forward and backward (fused_bias_gelu.py)", function()
  local m = ops("megatron-lm")
  eq(m["fwd h0/mlp/fc1/bias"].bytes, 0, "the bias add writes nothing of its own")
  eq(m["fwd gelu_29"].bytes, 2 * s * 4 * h * E + 4 * h * E,
    "bias_gelu: read the GEMM output and the bias, write the activation")
  eq(m["bwd gelu_29/grad"].bytes, 3 * s * 4 * h * E, "bias_gelu_back: read dy and y, write dx")
  -- the FLOPs move with the bytes: the fused kernel does the add
  local u = ops(nil)
  eq(m["fwd gelu_29"].flops, u["fwd gelu_29"].flops + u["fwd h0/mlp/fc1/bias"].flops,
    "the add's FLOPs in the fused kernel")
end)

T.test("megatron-lm: the recomputed forward runs the same fused bias-GeLU", function()
  local m = ops("megatron-lm", 1)
  local rb, rg
  for k, r in pairs(m) do
    if k == "recompute h1/mlp/fc1/bias" then rb = r end
    if k:match("^recompute gelu_") then rg = r end
  end
  assert(rb and rg, "the rerun's bias add and GeLU")
  eq(rb.bytes, 0, "rerun: the bias add writes nothing of its own")
  eq(rg.bytes, 2 * s * 4 * h * E + 4 * h * E, "rerun: one bias_gelu kernel")
end)

-- The causal softmax (issue [19] megatron-audit3): NVIDIA/Megatron-LM megatron/fused_kernels/
-- scaled_upper_triang_masked_softmax.h (read at 2387ce0; vTrain f8dda84 src/model/
-- fused_softmax.py calls the same kernels): the forward warp of row r loads the inputs with
-- element_index < local_seq = r + 1 and stores the whole row (zeros past r); the backward
-- loads the first r + 1 output gradients and probabilities and stores the whole dx row. Over
-- a head's s x s scores: s (s + 1) / 2 elements read per input, counted as s^2 / 2 (the
-- diagonal's 1 / 2s left out: fusion.c causal_softmax).
T.test("megatron-lm: the softmax backward applies the scale (scaled_upper_triang_masked_softmax)", function()
  local m = ops("megatron-lm")
  eq(m["bwd h0/attn/scale/grad"].bytes, 0, "no pass of its own for the scale's gradient")
  eq(m["bwd h0/attn/softmax/grad"].bytes, (0.5 + 0.5 + 1) * a * s * s * E,
    "one kernel: read the lower triangle of dy and of the probabilities, write every dx")
  eq(m["fwd h0/attn/softmax"].bytes, (0.5 + 1) * a * s * s * E,
    "forward: read the lower triangle of the scores, write every probability")
end)

-- The attention dropout as Megatron-LM runs it: ParallelAttention.attention_dropout =
-- torch.nn.Dropout (megatron/model/transformer.py 2021-22; vTrain src/model/gpt_model.py,
-- probabilities 0.1), its forward and its backward (dx = dy * mask) each a kernel of their own;
-- the upper-triangular softmax's backward kernel reads the dropout's gradient from memory.
T.test("megatron-lm: the attention dropout's backward is its own kernel", function()
  local g = dlb.models.gpt { layers = 1, hidden = h, heads = a, vocab = 50257, context = s,
    seq = s, batch = 1, dropout = true }
  local ML = dlb.frameworks.get("megatron-lm")
  local F = {}
  for _, n in ipairs(ML.fuse) do if n ~= "softmax_causal" then F[#F + 1] = n end end
  local function by(fw)
    local t, k = {}, 0
    for _, r in ipairs(g:ops { precision = "mixed", framework = fw }) do
      t[r.phase .. " " .. r.name] = r
      if r.phase == "bwd" and r.flops + r.bytes > 0 then k = k + 1 end
    end
    return t, k
  end
  local m, km = by(ML)
  local w, kw = by(dlb.frameworks.derive("megatron-lm", { fuse = F }))
  local n = a * s * s
  local d
  for k in pairs(m) do if k:match("^bwd h0/attn/attn_dropout/grad") then d = k end end
  assert(d, "the attention dropout's gradient op")
  eq(m[d].bytes, (2 + 1 + 2) * n, "dropout backward: read dy and the 1-byte mask, write dx")
  eq(w[d].bytes, 0, "before: fused into the softmax backward")
  eq(m["bwd h0/attn/softmax/grad"].bytes, 4 * n, "the softmax backward: 1 + 1 + 2 B")
  eq(w["bwd h0/attn/softmax/grad"].bytes, 7 * n, "before: 6 B + the dropout's 5 B - dy's write and read")
  T.eq(km - kw, 1, "one backward kernel more per layer")
  -- the forward is unchanged but for the softmax's half read: the dropout was its own kernel
  eq(m["fwd h0/attn/attn_dropout"].bytes, w["fwd h0/attn/attn_dropout"].bytes, "dropout forward")
  eq(w["fwd h0/attn/softmax"].bytes - m["fwd h0/attn/softmax"].bytes, 1 * n, "half the scores' read")
  -- an encoder (not causal) runs scaled_masked_softmax: the whole row, as before
  local b = dlb.models.bert { layers = 1, hidden = 256, heads = 4, seq = 128, batch = 1 }
  local function sm(fw)
    for _, r in ipairs(b:ops { precision = "mixed", framework = fw }) do
      if r.phase == "fwd" and r.type == "softmax" and r.name:match("attn") then return r.bytes end
    end
  end
  eq(sm(ML), sm(dlb.frameworks.derive("megatron-lm", { fuse = F })), "BERT: the whole row")
  T.eq(table.concat(dlb.frameworks.fuse_of(ML, "transformer", false), ","), table.concat(F, ","),
    "fuse_of: softmax_causal for a causal decoder only")
end)

T.test("the algorithmic step keeps the graph's ops (no profile, no fusion)", function()
  local u = ops(nil)
  eq(u["fwd h0/mlp/fc1/bias"].bytes, 2 * s * 4 * h * E + 4 * h * E, "the bias add: read y and b, write")
  eq(u["fwd gelu_29"].bytes, 2 * s * 4 * h * E, "GeLU: read, write")
  eq(u["bwd h0/attn/scale/grad"].bytes, 2 * a * s * s * E, "the scale's gradient: read, write")
end)

-- Megatron-LM's loss: vocab_parallel_cross_entropy(output.float(), labels)
-- (megatron/model/gpt_model.py, --fp16-lm-cross-entropy off; megatron/mpu/cross_entropy.py):
-- per fp16 logit, forward .float() 2 + 4, max 4, sub_ 8, exp 8, sum 4, div_ 8 = 38 B; backward
-- mul_ 8, the cast back 4 + 2 = 14 B. The profile-free loss: 4 B each way.
T.test("megatron-lm: the vocab-parallel cross-entropy over fp32 logits (cross_entropy.py)", function()
  local m, u = ops("megatron-lm"), ops(nil)
  local n = s * 50257
  -- (the loss op also reads the labels, int32, and writes the loss: 4 s + 2 B)
  eq(u["fwd loss"].bytes, 4 * n + 4 * s + 2, "a fused loss: read the logits, write the probabilities")
  eq(m["fwd loss"].bytes - u["fwd loss"].bytes, 34 * n, "forward: the cast and five eager passes in fp32")
  eq(m["bwd loss/grad"].bytes - u["bwd loss/grad"].bytes, 10 * n, "backward: mul_ and the cast back to fp16")
  -- an fp32 step has no casts: 8 E forward, 2 E backward
  local g = dlb.models.gpt { layers = 1, hidden = 256, heads = 4, vocab = 1000, context = 64,
    seq = 64, batch = 1 }
  local by = {}
  for _, r in ipairs(g:ops { precision = "fp32", fuse = { "xent_fp32" } }) do by[r.phase .. " " .. r.name] = r end
  local f0 = {}
  for _, r in ipairs(g:ops { precision = "fp32" }) do f0[r.phase .. " " .. r.name] = r end
  eq(by["fwd loss"].bytes - f0["fwd loss"].bytes, (32 - 8) * 64 * 1000, "fp32: max, sub_, exp, sum, div_")
  eq(by["bwd loss/grad"].bytes - f0["bwd loss/grad"].bytes, 0, "fp32: mul_, as a fused loss's backward")
  T.checkerr("xent_fp32", function() g:ops { precision = "fp32", fuse = { "xent_fp33" } } end)
end)

-- Its eager ops (megatron/mpu/cross_entropy.py, graphs/step/fusion_loss.c), each a host op
-- launching one kernel: forward .float(), max, sub_, <, >=, |, clone, - start, the masked_fill_
-- of target_mask, arange, the gather, clone, the masked_fill_ of the predicted logits, exp,
-- sum, log, - predicted, div_ (18; the unsqueezes, views, view_as and .contiguous() launch
-- nothing); backward arange, .float(), 1.0 -, the gather, sub_, index_put_, mul_ and the
-- cast's backward (8). fp32 logits: no casts (17, 7). The graph's loss op and its gradient
-- are one host op and one kernel each; roofline.time's host seconds grow by host_op for each
-- further one.
T.test("megatron-lm: the fp32 cross-entropy's host ops and kernels (18 + 8, fp32 logits 17 + 7)", function()
  local m, u = ops("megatron-lm"), ops(nil)
  T.eq(m["fwd loss"].host_ops, 18, "forward host ops") T.eq(m["fwd loss"].kernels, 18, "forward kernels")
  T.eq(m["bwd loss/grad"].host_ops, 8, "backward") T.eq(m["bwd loss/grad"].kernels, 8, "backward")
  T.eq(u["fwd loss"].host_ops, 1, "a fused loss") T.eq(u["bwd loss/grad"].kernels, 1, "a fused loss")
  local g = dlb.models.gpt { layers = 1, hidden = 256, heads = 4, vocab = 1000, context = 64,
    seq = 64, batch = 1 }
  local by = {}
  for _, r in ipairs(g:ops { precision = "fp32", fuse = { "xent_fp32" } }) do by[r.phase .. " " .. r.name] = r end
  T.eq(by["fwd loss"].kernels, 17, "fp32: forward") T.eq(by["bwd loss/grad"].kernels, 7, "fp32: backward")
  -- roofline.time under the profile: 7 + 17 further host ops, host_op each (one kernel each:
  -- none from C++)
  local s1 = g:stats { framework = "megatron-lm", precision = "mixed" }
  local s0 = g:stats { framework = dlb.frameworks.derive("megatron-lm", { fuse = { "elementwise",
    "optimizer", "qkv", "qkv_views", "softmax_causal", "grad_accum" } }), precision = "mixed" }
  local H = dlb.hw.get("A100-80GB")
  local h = dlb.frameworks.host_of("megatron-lm")
  T.near(dlb.roofline.time(s1, H).host_time - dlb.roofline.time(s0, H).host_time, 24 * h, 1e-9,
    "host seconds: 24 further host ops")
end)

-- The fused QKV (graphs/step/fusion.c qkv, qkv_views), by hand: x the layer norm's output
-- (s h), three weights h x h and biases h.
T.test("megatron-lm: Q, K, V as one GEMM h -> 3h, q k v as views (ColumnParallelLinear(h, 3h))", function()
  local m, u = ops("megatron-lm"), ops(nil)
  local x, W, b = s * h * E, h * h * E, h * E
  eq(m["fwd h0/attn/q"].bytes, x + 3 * W + 3 * b + 3 * x,
    "one addmm: read x once, the three weights and biases, write the biased 3h output")
  eq(m["fwd h0/attn/q"].flops, 3 * 2 * s * h * h + 3 * s * h, "the three GEMMs' and bias adds' FLOPs")
  for _, n in ipairs { "h0/attn/k", "h0/attn/v", "h0/attn/q/bias", "h0/attn/k/bias", "h0/attn/v/bias" } do
    eq(m["fwd " .. n].bytes + m["fwd " .. n].flops, 0, n .. ": inside the one GEMM")
  end
  eq(m["bwd h0/attn/q/grad_a"].bytes, 3 * x + 3 * W + x, "dX: read dY (3h) and W, write dx once")
  eq(m["bwd h0/attn/q/grad_a"].flops, 3 * 2 * s * h * h + 2 * s * h,
    "dX: the three GEMMs and the two accumulations of dx")
  -- and local DDP's main_grad.add_ of the one query_key_value weight and bias (grad_accum:
  -- megatron/model/distributed.py param_hook; 3 x the gradient's bytes each)
  eq(m["bwd h0/attn/q/grad_b"].bytes, x + 3 * x + 3 * W + 3 * 3 * W,
    "dW: read x once and dY, write the 3h weights; then main_grad += them")
  eq(m["bwd h0/attn/q/bias/reduce"].bytes, 3 * (x + b) + 3 * 3 * b,
    "one bias reduction over 3h; then main_grad += it")
  T.eq(m["bwd h0/attn/q/grad_b"].host_ops, 2, "the dW GEMM and one add_ for the fused weight")
  for _, n in ipairs { "h0/attn/k/grad_a", "h0/attn/v/grad_b", "h0/attn/k/bias/reduce", "h0/attn/q/accum" } do
    eq(m["bwd " .. n].bytes + m["bwd " .. n].flops, 0, n .. ": inside the one kernel")
  end
  -- the transposes: the q, k, v head transposes are views; the context's permute stays a copy
  local g = dlb.models.gpt { layers = 1, hidden = h, heads = a, vocab = 50257, context = s, seq = s, batch = 1 }
  local function transposes(o)
    local f, bw = {}, {}
    for _, r in ipairs(g:ops(o)) do
      if r.type == "transpose" and r.layer_name == "h0" then
        local t = r.phase == "fwd" and f or (r.phase == "bwd" and bw or {})
        t[#t + 1] = r.bytes
      end
    end
    return f, bw
  end
  local ff, fb = transposes { precision = "mixed", framework = dlb.frameworks.get("megatron-lm") }
  T.eq(#ff, 4, "four forward transposes in the graph")
  eq(ff[1] + ff[2] + ff[3], 0, "q, k, v: strided views, no copy")
  eq(ff[4], 2 * x, "the context's permute(2, 0, 1, 3).contiguous(): a copy")
  local n, tot = 0, 0
  for _, v in ipairs(fb) do if v > 0 then n = n + 1 end; tot = tot + v end
  T.eq(n, 2, "backward: the context's copy and SplitBackward's one cat")
  eq(tot, 2 * x + 2 * 3 * x, "the cat reads dq, dk, dv and writes the 3h gradient")
  -- FLOPs and parameters do not change; 16 kernels fewer per layer (8 forward, 8 backward)
  local base = { "elementwise", "optimizer", "xent_fp32" }
  local with = { "elementwise", "optimizer", "xent_fp32", "qkv", "qkv_views" }
  local s0 = g:stats { precision = "mixed", fuse = base }
  local s1 = g:stats { precision = "mixed", fuse = with }
  T.eq(s1.params, s0.params, "parameters")
  T.eq(s1.flops, s0.flops, "FLOPs")
  local function kernels(fuse, rc)
    local k = 0
    for _, r in ipairs(g:ops { precision = "mixed", fuse = fuse, recompute = rc }) do
      if r.flops + r.bytes > 0 then k = k + 1 end
    end
    return k
  end
  T.eq(kernels(base) - kernels(with), 16, "8 forward kernels (two GEMMs, three bias adds, three transposes) and 8 backward")
  T.eq(kernels(base, 1) - kernels(with, 1), 24, "and 8 more in the recomputed forward")
  T.eq(m["fwd h0/attn/q"].bytes, u["fwd h0/attn/q"].bytes + u["fwd h0/attn/k"].bytes
    + u["fwd h0/attn/v"].bytes - 2 * x + 3 * b + 3 * x - 3 * x, "against the graph's three GEMMs")
  T.checkerr("needs qkv", function() g:stats { precision = "mixed", fuse = { "qkv_views" } } end)
end)

-- The fused GEMM's shape (issue [19] megatron-audit3): ColumnParallelLinear(h, 3h) is one
-- addmm of [tokens, h] by [h, 3h] (Megatron-LM megatron/model/transformer.py
-- ParallelAttention.query_key_value; vTrain src/model/gpt_modeling.py): M = tokens, N = 3h,
-- K = h; its backward dX = dY W^T [tokens, 3h] x [3h, h] (K = 3h) and dW = x^T dY [h, tokens]
-- x [tokens, 3h] (N = 3h). The shape the roofline and the planner time it at (the analysis'
-- GEMM shape, graphs/step/analysis.c op_gemm; before this round the Q GEMM's h -> h).
T.test("qkv: the fused GEMM is timed at its own shape, M tokens, N 3h, K h", function()
  local core = require "dlbench.backend"
  local function SEQ(x, want, what)
    local function str(t)
      local o = {}
      for i, v in ipairs(t or {}) do o[i] = string.format("%.17g", v) end
      return table.concat(o, " ")
    end
    T.eq(str(x), str(want), what)
  end
  local g = dlb.models.gpt { layers = 1, hidden = h, heads = a, vocab = 50257, context = s,
    seq = s, batch = 2 }
  local function shapes(o)
    local st = g:stats(o)
    local by = {}
    for i, r in ipairs(g:ops(o)) do
      local m, n, k, b = core.analysis_gemm(st.analysis, i - 1)
      if m then by[r.phase .. " " .. r.name:gsub("/recompute$", "")] = { m, n, k, b } end
    end
    return by
  end
  local m = shapes { precision = "mixed", framework = dlb.frameworks.get("megatron-lm") }
  local u = shapes { precision = "mixed" }
  local M = 2 * s   -- tokens of the micro-batch: the batch folds into M
  SEQ(m["fwd h0/attn/q"], { M, 3 * h, h, 1 }, "forward: [tokens, h] x [h, 3h]")
  SEQ(m["bwd h0/attn/q/grad_a"], { M, h, 3 * h, 1 }, "dX: [tokens, 3h] x [3h, h]")
  SEQ(m["bwd h0/attn/q/grad_b"], { h, 3 * h, M, 1 }, "dW: [h, tokens] x [tokens, 3h]")
  SEQ(u["fwd h0/attn/q"], { M, h, h, 1 }, "the unfused graph: three h -> h GEMMs")
  SEQ(m["fwd h0/attn/k"], u["fwd h0/attn/k"], "k keeps its shape (no cost: inside q's)")
  SEQ(m["fwd h0/mlp/fc1"], u["fwd h0/mlp/fc1"], "other GEMMs unchanged")
  -- the rerun under full recompute: the same shape
  local r = shapes { precision = "mixed", framework = dlb.frameworks.get("megatron-lm"), recompute = 1 }
  SEQ(r["recompute h0/attn/q"], { M, 3 * h, h, 1 }, "rerun: [tokens, h] x [h, 3h]")
  -- grouped-query attention (Megatron-Core's linear_qkv, h -> (heads + 2 kv_heads) head_dim):
  -- N the sum of the three widths
  local gl = dlb.models.llama { layers = 1, hidden = 256, heads = 8, kv_heads = 2, ffn = 512,
    vocab = 1000, seq = 64, batch = 1 }
  local st = gl:stats { precision = "mixed", fuse = { "elementwise", "qkv" } }
  local found
  for i, row in ipairs(gl:ops { precision = "mixed", fuse = { "elementwise", "qkv" } }) do
    if row.phase == "fwd" and row.name:match("/attn/q$") then
      found = { core.analysis_gemm(st.analysis, i - 1) }
    end
  end
  SEQ(found, { 64, 256 + 2 * 2 * 32, 256, 1 }, "GQA: N = (8 + 2 x 2) x 32")
end)

T.test("qkv: the rerun under full recompute is the same one GEMM", function()
  local m = ops("megatron-lm", 1)
  local x, W, b = s * h * E, h * h * E, h * E
  eq(m["recompute h1/attn/q"].bytes, x + 3 * W + 3 * b + 3 * x, "rerun: one addmm")
  eq(m["recompute h1/attn/k"].bytes + m["recompute h1/attn/v/bias"].bytes, 0, "rerun: inside it")
end)

T.test("qkv: two GEMMs of one input are not an attention block (a SwiGLU's gate and up)", function()
  local g = dlb.models.llama { layers = 1, hidden = 256, heads = 4, kv_heads = 4, ffn = 512,
    vocab = 1000, seq = 64, batch = 1 }
  local function by(fuse)
    local t = {}
    for _, r in ipairs(g:ops { precision = "mixed", fuse = fuse }) do t[r.phase .. " " .. r.name] = r end
    return t
  end
  local a0, a1 = by { "elementwise" }, by { "elementwise", "qkv" }
  local gate, up
  for k in pairs(a0) do
    if k:match("^fwd .*/gate$") then gate = k end
    if k:match("^fwd .*/up$") then up = k end
  end
  assert(gate and up, "the MLP's gate and up GEMMs")
  eq(a1[gate].bytes, a0[gate].bytes, "gate: its own GEMM")
  eq(a1[up].bytes, a0[up].bytes, "up: its own GEMM")
  -- its attention's three projections (no bias) are one GEMM
  local q, k
  for n in pairs(a0) do
    if n:match("^fwd .*/attn/q$") then q = n end
    if n:match("^fwd .*/attn/k$") then k = n end
  end
  assert(q and k, "the attention's projections")
  local x = 64 * 256 * 2
  eq(a1[q].bytes, a0[q].bytes * 3 - 2 * x, "no bias: read x once, the three weights, write 3h")
  eq(a1[k].bytes, 0, "k: inside it")
end)

T.test("the vTrain rows build the layer vTrain measured: dropout 0.1 (gpt_modeling.py)", function()
  local rows = dofile("notebooks/data/vtrain_runs.lua")("notebooks/data")
  T.eq(#rows, 1549, "the four vTrain sets")
  for _, r in ipairs(rows) do
    if r.model.opts.dropout ~= true then error(r.id .. ": built without dropout") end
  end
end)

-- Review 16: a Qwen3-MoE-style block (head_dim 64 beside hidden 256, 8 query and 2 key/value
-- heads, 8 experts, top 4) under megatron-core: Q, K, V one GEMM of N = (8 + 2 x 2) x 64
-- (Megatron-Core's linear_qkv, megatron/core/transformer/attention.py SelfAttention:
-- query_projection_size + 2 kv_projection_size), the router and the experts' GEMMs as the
-- algorithmic step has them, FLOPs and parameters unchanged.
T.test("qkv on an MoE block with its own head_dim: attention fused, router and experts untouched", function()
  local core = require "dlbench.backend"
  local g = dlb.models.moe { style = "llama", layers = 1, hidden = 256, heads = 8, kv_heads = 2,
    head_dim = 64, ffn = 128, experts = 8, top_k = 4, vocab = 1000, seq = 64, batch = 1 }
  local function by(o)
    local st = g:stats(o)
    local t = {}
    for i, r in ipairs(g:ops(o)) do
      t[r.phase .. " " .. r.name] = { r, { core.analysis_gemm(st.analysis, i - 1) } }
    end
    return t, st
  end
  local u, su = by { precision = "mixed" }
  local f, sf = by { precision = "mixed", framework = "megatron-core" }
  T.eq(sf.params, su.params, "parameters")
  T.eq(sf.flops - sf.flops_recompute, su.flops, "FLOPs")
  local q, n = nil, 0
  for k, v in pairs(f) do
    if k:match("^fwd .*/attn/q$") then q = v end
    -- every batched or unbatched GEMM outside the attention's projections keeps its shape
    if k:match("^fwd ") and not k:match("/attn/[qkv]$") and v[2][1] and u[k][2][1] then
      for i = 1, 4 do T.eq(v[2][i], u[k][2][i], k .. " shape " .. i) end
      n = n + 1
    end
  end
  assert(q, "the attention's q projection")
  T.eq(q[2][1], 64, "M: the tokens")
  T.eq(q[2][2], (8 + 2 * 2) * 64, "N: (heads + 2 kv_heads) x head_dim")
  T.eq(q[2][3], 256, "K: hidden")
  assert(n >= 4, "the router's, the experts' and the output's GEMMs compared (" .. n .. ")")
end)

-- Review 16: cross-attention (Vaswani's encoder-decoder: Q from the decoder, K and V from the
-- encoder's output) stays three GEMMs under qkv (Megatron-LM's ParallelAttention with
-- attention_type cross_attn runs query and key_value, two linears of two inputs), while each
-- self-attention's Q, K and V are one; with tgt_seq != seq the shapes tell them apart.
T.test("qkv: cross-attention's Q (decoder) and K, V (encoder) are not one GEMM", function()
  local d, S, Tq = 256, 64, 32
  local g = dlb.models.transformer { layers = 2, hidden = d, heads = 4, ffn = 512, vocab = 1000,
    seq = S, tgt_seq = Tq, batch = 1 }
  local u, f = {}, {}
  for _, r in ipairs(g:ops { precision = "mixed" }) do u[r.phase .. " " .. r.name] = r end
  for _, r in ipairs(g:ops { precision = "mixed", framework = "megatron-lm" }) do f[r.phase .. " " .. r.name] = r end
  for l = 0, 1 do
    local c = "fwd decoder" .. l .. "/cross/"
    for _, p in ipairs { "q", "k", "v" } do
      assert(f[c .. p].bytes > 0, c .. p .. ": its own GEMM")
      eq(f[c .. p].flops, u[c .. p].flops, c .. p .. ": its own FLOPs")
    end
    -- biased projections: the bias add fuses into the GEMM (elementwise), so compare FLOPs;
    -- the encoder's K and V read S rows, the decoder's Q Tq rows
    eq(u[c .. "k"].flops, u[c .. "q"].flops * S / Tq, "K reads the encoder's S rows")
    for _, blk in ipairs { "encoder" .. l .. "/attn/", "decoder" .. l .. "/attn/" } do
      eq(f["fwd " .. blk .. "k"].bytes + f["fwd " .. blk .. "v"].bytes, 0, blk .. ": k, v inside q's GEMM")
      eq(f["fwd " .. blk .. "q"].flops, u["fwd " .. blk .. "q"].flops + u["fwd " .. blk .. "k"].flops
        + u["fwd " .. blk .. "v"].flops + u["fwd " .. blk .. "q/bias"].flops + u["fwd " .. blk .. "k/bias"].flops
        + u["fwd " .. blk .. "v/bias"].flops, blk .. ": one GEMM, three widths and their biases")
    end
  end
end)

T.done()
