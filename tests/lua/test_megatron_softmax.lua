-- test_megatron_softmax.lua — Megatron's FusedScaleMaskSoftmax and its eager fallback on the
-- planner's path (issue [19] megatron-audit2 item 2). The fused kernel runs only when
-- VIA-Research/vTrain f8dda84 src/model/fused_softmax.py FusedScaleMaskSoftmax.forward's
-- custom_kernel_constraint holds: 16 < sk <= 2048, sq % 4 == 0 and attn_batch_size % 4 == 0,
-- attn_batch_size = b x np (micro-batch x heads per tensor rank); NVIDIA/Megatron-LM 2021-22
-- megatron/model/fused_softmax.py is_kernel_available: attn_batches % 4 == 0. Else the eager
-- path (forward_torch_softmax: float, scale, masked_fill_, softmax, half), per element of the
-- 16-bit s x s scores, forward 6 + 8 + 8 + 8 + 6 B in 5 kernels (the fused kernel: 4 B), and
-- autograd's backward 6 + 12 + 8 + 8 + 6 B in 5 kernels (the fused kernel: 6 B). The rule lives
-- in graphs/parallel/planner_ops.c (softmax_kernels, softmax_pass); the profile's sequence
-- range in lua/dlbench/frameworks/megatron_lm.lua (softmax_fallback). A causal decoder's fused
-- kernels are the upper-triangular ones (kinds 3 and 4, issue [19] megatron-audit3): they read
-- the lower triangle, 3 B forward and 4 B backward per element (NVIDIA/Megatron-LM
-- megatron/fused_kernels/scaled_upper_triang_masked_softmax.h at 2387ce0: row r loads
-- element_index < r + 1), the attention dropout's backward its own kernel. Both backends.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel

local A100 = dlb.hw.get("A100-SXM4-80GB")
local ON = dlb.frameworks.get("megatron-lm")
local OFF = dlb.frameworks.derive("megatron-lm", { softmax_fallback = false })
local OP = P.layers.OP
local s, a = 1024, 16

local function gpt(seq)
  return dlb.models.gpt { layers = 2, hidden = 2048, heads = a, vocab = 50257, context = seq or s,
    seq = seq or s, dropout = true }
end

local function marks(ls)
  local r = {}
  for j = 1, #ls.ops / OP do
    local k = (j - 1) * OP
    if ls.ops[k + 16] ~= 0 then
      r[#r + 1] = { layer = ls.ops[k + 1], phase = ls.ops[k + 2], kind = ls.ops[k + 16],
        heads = ls.ops[k + 17], elems = ls.ops[k + 18], bytes = ls.ops[k + 5] }
    end
  end
  return r
end

T.test("from_graph marks each block's fused softmax and its gradient under megatron-lm", function()
  local g = gpt()
  local m = marks(P.layers.from_graph(g, { precision = "mixed", framework = ON }))
  T.eq(#m, 4, "two blocks: a forward and a backward kernel each")
  for _, x in ipairs(m) do
    T.eq(x.kind, x.phase == 0 and 3 or 4, "kind by phase (a causal decoder's kernels)")
    T.eq(x.heads, a, "the heads per sample")
    T.eq(x.elems, a * s * s, "the s x s scores per head")
    -- the fused forward reads the lower triangle of the 16-bit scores and writes every
    -- probability: 1 + 2 = 3 B an element; the backward reads the lower triangle of dy and of
    -- the probabilities and writes every dx: 1 + 1 + 2 = 4 B (the dropout's gradient, 5 B, its
    -- own kernel: before this round fused in, 7 B)
    if x.kind == 3 then T.eq(x.bytes, 3 * a * s * s) else T.eq(x.bytes, 4 * a * s * s) end
  end
  -- without the pass (a derived profile): the whole row, kinds 1 and 2
  local F = {}
  for _, n in ipairs(ON.fuse) do if n ~= "softmax_causal" then F[#F + 1] = n end end
  for _, x in ipairs(marks(P.layers.from_graph(g, { precision = "mixed",
      framework = dlb.frameworks.derive("megatron-lm", { fuse = F }) }))) do
    T.eq(x.kind, x.phase == 0 and 1 or 2, "whole-row kernels: kind by phase")
    if x.kind == 1 then T.eq(x.bytes, 4 * a * s * s) else T.eq(x.bytes, 7 * a * s * s) end
  end
  -- no marks: another stack's profile, the rule off, a 32-bit step
  T.eq(#marks(P.layers.from_graph(g, { precision = "mixed", framework = OFF })), 0)
  T.eq(#marks(P.layers.from_graph(g, { precision = "mixed", framework = "megatron-core" })), 0)
  T.eq(#marks(P.layers.from_graph(g, { precision = "fp32", framework = ON })), 0)
  -- a sequence outside the kernel's range (sk <= 2048): marked, heads 0 (always eager)
  for _, x in ipairs(marks(P.layers.from_graph(gpt(4096), { precision = "mixed", framework = ON }))) do
    T.eq(x.heads, 0, "seq 4096: the eager path at every layout")
  end
  T.checkerr("softmax_fallback must be false or", function()
    dlb.frameworks.derive("megatron-lm", { softmax_fallback = { seq_min = 16 } })
  end)
end)

local function evaluate(ls, prof, tp, mb)
  return P.evaluate { layers = ls, hw = A100, precision = "mixed", framework = prof,
    cluster = P.cluster { hw = A100, per_node = 8, nodes = 1 }, dp = 8 / tp, tp = tp, pp = 1,
    m = 4, batch = 4 * mb * 8 / tp, schedule = "1f1b", recompute = true, zero = 0 }
end

T.test("the rule: eager exactly when micro-batch x heads / tp is not a multiple of 4", function()
  local g = gpt()
  local on = P.layers.from_graph(g, { precision = "mixed", framework = ON })
  local off = P.layers.from_graph(g, { precision = "mixed", framework = OFF })
  for _, c in ipairs { { 8, 1, true }, { 8, 2, false }, { 8, 3, true }, { 4, 1, false },
                       { 2, 1, false }, { 1, 1, false } } do
    local tp, mb, eager = c[1], c[2], c[3]
    local r1, r0 = evaluate(on, ON, tp, mb), evaluate(off, OFF, tp, mb)
    local what = string.format("tp %d micro-batch %d: %d attention batches", tp, mb, mb * a / tp)
    if eager then
      assert(r1.step > 1.05 * r0.step, what .. ": the eager path is slower " .. r1.step .. " " .. r0.step)
    else
      T.eq(r1.step, r0.step, what .. ": the fused kernel")
    end
  end
end)

-- The planner's eager path against the same step with each marked op written out as the
-- source's five kernels (plain ops, bytes per element from the source): the same time, host
-- issue included (each pass a host op).
T.test("the eager path is five kernels with the source's bytes, forward and backward", function()
  local g = gpt()
  local on = P.layers.from_graph(g, { precision = "mixed", framework = ON })
  local EAGER = { { 6, 8, 8, 8, 6 }, { 6, 12, 8, 8, 6 } }
  -- by kind: the whole-row kernels (1, 2) and the upper-triangular ones (3, 4)
  local FUSED, FLOPS_AT = { 4, 6, 3, 4 }, { 4, 2 }
  local flat = {}
  for j = 1, #on.ops / OP do
    local k = (j - 1) * OP
    local kind = on.ops[k + 16]
    if kind == 0 then
      for i = 1, OP do flat[#flat + 1] = on.ops[k + i] end
    else
      local n = on.ops[k + 18]
      local dir = (kind == 1 or kind == 3) and 1 or 2
      assert(kind >= 3, "megatron-lm's causal kernels")
      for p = 1, 5 do
        local op = {}
        for i = 1, OP do op[i] = on.ops[k + i] end
        op[16], op[17], op[18] = 0, 0, 0
        op[5] = EAGER[dir][p] * n
        if p == FLOPS_AT[dir] then op[5] = op[5] + math.max(0, on.ops[k + 5] - FUSED[kind] * n)
        else op[3], op[4] = 0, 0 end
        for i = 1, OP do flat[#flat + 1] = op[i] end
      end
    end
  end
  local hand = {}
  for k, v in pairs(on) do hand[k] = v end
  hand.ops = flat
  local r1, r2 = evaluate(on, ON, 8, 1), evaluate(hand, OFF, 8, 1)
  T.near(r1.step, r2.step, 1e-12, "tp 8 micro-batch 1: the step")
  T.near(r1.compute, r2.compute, 1e-12, "the device's compute")
  -- and where the kernel runs, the written-out passes are the slower step
  assert(evaluate(hand, OFF, 8, 2).step > evaluate(on, ON, 8, 2).step, "tp 8 micro-batch 2: fused")
  -- a kind against its phase (3: a causal forward; 4 a causal backward), or 5: refused
  for _, c in ipairs { { 3, 1 }, { 4, 0 }, { 5, 0 } } do
    local bad = {}
    for k, v in pairs(on) do bad[k] = v end
    bad.ops = {}
    for i = 1, OP do bad.ops[i] = on.ops[i] end
    bad.ops[2], bad.ops[16], bad.ops[17], bad.ops[18] = c[2], c[1], a, a * s * s
    T.checkerr("has softmax " .. c[1], function() evaluate(bad, ON, 8, 1) end)
  end
end)

-- Context parallelism (review 16): the planner times a rank's layers at micro-batch / cp, and
-- the kernel's rule reads b x np, the micro-batch itself under ring (and all-gather) cp (each
-- rank runs its queries of every sample: NVIDIA/Megatron-LM megatron/core/transformer/
-- dot_product_attention.py's FusedScaleMaskSoftmax sees [b, np, sq / cp, sk]); under
-- all-to-all (Ulysses) the heads split over tp x cp: b x np / cp. Before the fix tp 4,
-- micro-batch 1, cp 2 (4 attention batches) ran the eager path (0.5 x 16 / 4 = 2).
T.test("context parallelism: the rule reads the micro-batch, not micro-batch / cp", function()
  local g = gpt()
  local on = P.layers.from_graph(g, { precision = "mixed", framework = ON })
  local off = P.layers.from_graph(g, { precision = "mixed", framework = OFF })
  local function ev(ls, prof, tp, mb, cp, algo)
    return P.evaluate { layers = ls, hw = A100, precision = "mixed", framework = prof,
      cluster = P.cluster { hw = A100, per_node = 8, nodes = 2 }, dp = 16 / tp / cp, tp = tp,
      pp = 1, cp = cp, cp_algo = algo, m = 4, batch = 4 * mb * 16 / tp / cp, schedule = "1f1b",
      recompute = true, zero = 0 }
  end
  for _, c in ipairs { { 4, 1, 2, "ring", false }, { 4, 1, 2, "allgather", false },
                       { 8, 1, 2, "ring", true }, { 2, 1, 2, "alltoall", false },
                       { 4, 1, 2, "alltoall", true }, { 8, 2, 2, "ring", false } } do
    local tp, mb, cp, algo, eager = c[1], c[2], c[3], c[4], c[5]
    local r1, r0 = ev(on, ON, tp, mb, cp, algo), ev(off, OFF, tp, mb, cp, algo)
    local what = string.format("tp %d micro-batch %d cp %d %s", tp, mb, cp, algo)
    if eager then
      assert(r1.step > 1.05 * r0.step, what .. ": the eager path " .. r1.step .. " " .. r0.step)
    else
      T.eq(r1.step, r0.step, what .. ": the fused kernel")
    end
  end
  -- one prepared model across layouts of different cp (the cache holds one cp's times): the
  -- plan's rows as evaluate gives each layout alone
  local t = P.plan { layers = on, hw = A100, precision = "mixed", framework = ON, devices = 8,
    batch = 16, cp_max = 4, keep_unfit = true }
  local n = 0
  for _, r in ipairs(t) do
    if r.cp > 1 then
      n = n + 1
      local e = P.evaluate { layers = on, hw = A100, precision = "mixed", framework = ON,
        cluster = P.cluster { hw = A100, per_node = 8, nodes = 1 }, dp = r.dp, tp = r.tp,
        pp = r.pp, cp = r.cp, cp_algo = r.cp_algo, m = r.m, batch = 16, schedule = r.schedule,
        recompute = r.recompute, zero = r.zero, v = r.v }
      T.near(e.step, r.step, 1e-9, "plan row against evaluate")
    end
  end
  assert(n > 0, "the plan searched cp > 1")
end)

-- Review 16: each marked softmax counts its own scores and only an attention softmax's
-- gradient is marked. Before, every softmax of a block counted heads x seq^2 per sample (an
-- encoder-decoder's decoder self-attention, tgt_seq^2, and cross-attention, tgt_seq x seq, at
-- the encoder's seq^2: 16x and 4x here, the eager path's bytes with them), and every
-- softmax_bwd of a block with an attention core was marked: an MoE router's gradient (3 KB a
-- sample here) would run as five eager passes over the attention's scores (5 MB a sample).
T.test("each softmax its own scores; an MoE router's gradient is not the attention's", function()
  local S, Tq, H = 512, 128, 4
  local g = dlb.models.transformer { layers = 1, hidden = 256, heads = H, ffn = 512, vocab = 1000,
    seq = S, tgt_seq = Tq, batch = 4 }
  local m = marks(P.layers.from_graph(g, { precision = "mixed", framework = ON }))
  T.eq(#m, 6, "encoder self, decoder self and cross attention: a forward and a backward each")
  local seen = {}
  for _, x in ipairs(m) do
    -- the encoder-decoder is not causal: the whole-row kernels, 2 + 2 B forward, 2 + 2 + 2 B
    -- backward per element of the op's own scores
    T.eq(x.kind, x.phase == 0 and 1 or 2, "whole-row kernels")
    T.eq(x.bytes, (x.phase == 0 and 4 or 6) * x.elems, "bytes per element of its own scores")
    local key = string.format("%d %.0f", x.phase, x.elems)
    seen[key] = (seen[key] or 0) + 1
  end
  for _, e in ipairs { H * S * S, H * Tq * Tq, H * Tq * S } do
    T.eq(seen[string.format("0 %.0f", e)], 1, "forward scores of " .. e .. " elements")
    T.eq(seen[string.format("1 %.0f", e)], 1, "backward scores of " .. e .. " elements")
  end
  -- a Mixtral-style MoE block: the attention's softmax and its gradient only
  local moe = dlb.models.moe { style = "llama", layers = 1, hidden = 256, heads = 8, kv_heads = 2,
    ffn = 256, experts = 4, vocab = 1000, seq = 128, batch = 4 }
  local mm = marks(P.layers.from_graph(moe, { precision = "mixed", framework = ON }))
  T.eq(#mm, 2, "the attention's forward and backward softmax, not the router's gradient")
  for _, x in ipairs(mm) do T.eq(x.elems, 8 * 128 * 128, "the attention's scores") end
end)

T.done()
