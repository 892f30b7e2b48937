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

T.test("megatron-lm: the softmax backward applies the scale (scaled_upper_triang_masked_softmax)", function()
  local m = ops("megatron-lm")
  eq(m["bwd h0/attn/scale/grad"].bytes, 0, "no pass of its own for the scale's gradient")
  eq(m["bwd h0/attn/softmax/grad"].bytes, 3 * a * s * s * E,
    "one kernel: read dy and the probabilities, write dx")
  eq(m["fwd h0/attn/softmax"].bytes, 2 * a * s * s * E, "forward: read the scores, write the probabilities")
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

T.test("the vTrain rows build the layer vTrain measured: dropout 0.1 (gpt_modeling.py)", function()
  local rows = dofile("notebooks/data/vtrain_runs.lua")("notebooks/data")
  T.eq(#rows, 1549, "the four vTrain sets")
  for _, r in ipairs(rows) do
    if r.model.opts.dropout ~= true then error(r.id .. ": built without dropout") end
  end
end)

T.done()
