-- test_te_fp8.lua — Transformer Engine's fp8 casts as planner ops (dlbench.te_fp8, issue [21]
-- fourth round): the bytes of each recipe's kernels counted by hand on a small Llama and a
-- small MoE, which linears they apply to, and the refusals. The per-local-expert timing rule
-- (op flag 4) is checked by hand in tests/test_parallel_moe.c (te_fp8_per_expert). Both
-- backends.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel
local OP = P.layers.OP   -- numbers per op in the planner's flat array (dlb_par_op)
local fw = dlb.frameworks

-- 2 blocks, hidden 512, 8 heads of 64, 2 K/V heads (K and V 128 wide), SwiGLU 1024, seq 64.
-- Per block the linears (Megatron-Core's TE modules) and their shapes per sample:
--   linear_qkv  (after the input norm)  m 64, k 512, n 512 + 128 + 128 = 768
--   linear_proj                         m 64, k 512, n 512
--   linear_fc1  (after the second norm) m 64, k 512, n 1024 + 1024 = 2048 (gate + up)
--   linear_fc2                          m 64, k 1024, n 512
-- inputs X: 32768, 32768, 32768, 65536 elements; output gradients dY: 49152, 32768, 131072,
-- 32768 elements; weights 393216, 262144, 1048576, 524288 elements. bf16: a = 2 bytes.
local llama = dlb.models.llama { layers = 2, hidden = 512, heads = 8, kv_heads = 2, ffn = 1024,
  vocab = 1000, seq = 64 }
local moe = dlb.models.moe { style = "llama", layers = 2, hidden = 512, heads = 8, kv_heads = 2,
  head_dim = 64, ffn = 128, experts = 8, top_k = 2, vocab = 1000, seq = 64 }

local function prof(scaling, wc)
  return fw.derive("nemo", { fp8 = { scaling = scaling, weight_cast = wc or "step" } })
end
local function layers(g, p, fp8)
  return P.layers.from_graph(g, { precision = "mixed_bf16", framework = p, fp8 = fp8 })
end
-- per phase: the summed bytes per sample, per step, and the op count, of the ops in ls
-- (rep: only those marked replicated; flag: only those with that op flag)
local function sums(ls, rep, flag)
  local o, s = ls.ops, { [0] = { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } }
  for j = 1, #o / OP do
    local k = (j - 1) * OP
    if (rep == nil or o[k + 14] == rep) and (flag == nil or o[k + 13] == flag) then
      local t = s[o[k + 2]]
      t[1], t[2], t[3] = t[1] + o[k + 5], t[2] + o[k + 6], t[3] + 1
    end
  end
  return s
end
local function delta(a, b, ph) -- b - a in phase ph: bytes per sample, per step, ops
  local x, y = sums(a)[ph], sums(b)[ph]
  return y[1] - x[1], y[2] - x[2], y[3] - x[3]
end

T.test("delayed scaling: cast_transpose (a + 2) e, the norm-fused linears (3 - a) e", function()
  local p = prof("delayed")
  local a, b = layers(llama, p), layers(llama, p, true)
  T.eq(b.fp8.scaling, "delayed"); T.eq(b.fp8.linears, 8)
  -- forward: qkv 1 x 32768 (fused), proj 4 x 32768, fc1 1 x 32768 (fused), fc2 4 x 65536
  local bs, b0, n = delta(a, b, 0)
  T.eq(bs, 2 * (32768 + 131072 + 32768 + 262144), "forward bytes per sample")
  T.eq(b0, 0, "weights cast once a step: not counted"); T.eq(n, 8)
  -- backward: 4 x (49152 + 32768 + 131072 + 32768)
  bs, b0, n = delta(a, b, 1)
  T.eq(bs, 2 * 4 * (49152 + 32768 + 131072 + 32768), "backward bytes per sample"); T.eq(n, 8)
  -- column-parallel inputs (qkv, fc1) and row-parallel output gradients (proj, fc2) are
  -- whole on each tensor rank (replicated), the others split
  local rf = sums(b, 1)[0][1] - sums(a, 1)[0][1]
  local rb = sums(b, 1)[1][1] - sums(a, 1)[1][1]
  T.eq(rf, 2 * (32768 + 32768)); T.eq(rb, 2 * 4 * (32768 + 32768))
  -- every micro-batch (weight_cast "micro"): one cast_transpose of each weight, 4 bytes each
  local c = layers(llama, prof("delayed", "micro"), true)
  bs, b0, n = delta(a, c, 0)
  T.eq(b0, 2 * 4 * (393216 + 262144 + 1048576 + 524288), "weights per micro-batch"); T.eq(n, 16)
end)

T.test("current scaling: amax (a e), scale (8 bytes), cast_transpose ((a + 2) e); no norm fusion", function()
  local p = prof("current")
  local a, b = layers(llama, p), layers(llama, p, true)
  local bs, b0, n = delta(a, b, 0)
  T.eq(bs, 2 * 6 * (32768 + 32768 + 32768 + 65536)); T.eq(b0, 2 * 4 * 8); T.eq(n, 24)
  bs, b0, n = delta(a, b, 1)
  T.eq(bs, 2 * 6 * (49152 + 32768 + 131072 + 32768)); T.eq(b0, 2 * 4 * 8); T.eq(n, 24)
end)

T.test("MXFP8: rowwise + columnwise copies and a scale per 32: (a + 2 + 2/32) e", function()
  local p = prof("mxfp8")
  local a, b = layers(llama, p), layers(llama, p, true)
  local bs, _, n = delta(a, b, 0)
  T.near(bs, 2 * 4.0625 * (32768 + 32768 + 32768 + 65536), 1e-12); T.eq(n, 8)
  bs, _, n = delta(a, b, 1)
  T.near(bs, 2 * 4.0625 * (49152 + 32768 + 131072 + 32768), 1e-12); T.eq(n, 8)
end)

T.test("grouped experts: one fused kernel (delayed) or one per local expert; no router cast", function()
  -- per MoE block: linear_qkv, linear_proj and the experts' fc1 (w1 + w3: 16 rows an
  -- expert, k 512, 8 experts) and fc2; the router (n = 8 experts) is not a TE module
  local d = layers(moe, prof("delayed"), true)
  T.eq(d.fp8.linears, 2 * 4)
  T.eq(sums(d, nil, 4)[0][3], 0, "delayed: no per-expert launches")
  -- experts' fc1 input: 16 x 512 x 8 elements, 4 bytes each, flagged 2 (an expert op)
  local e2 = sums(d, nil, 2)
  T.eq(e2[0][1] - sums(layers(moe, prof("delayed")), nil, 2)[0][1], 2 * 4 * (16 * 512 * 8 + 16 * 128 * 8))
  local c = layers(moe, prof("current"), true)
  local e4 = sums(c, nil, 4)
  T.eq(e4[0][3], 2 * 2 * 3, "current: amax, scale, cast for each of fc1 and fc2, per block")
  local o = c.ops
  for j = 1, #o / OP do
    if o[(j - 1) * OP + 13] == 4 then T.eq(o[(j - 1) * OP + 10], 8, "the experts in batch") end
  end
  -- timed: per-expert launches make the current-scaling step slower than one fused kernel
  -- would; both evaluate at fp8 only
  local hw = dlb.hw.get("H100-SXM")
  local r = P.evaluate { layers = c, hw = hw, precision = "fp8", batch = 8, dp = 2, ep = 2,
    tp = 1, pp = 1, m = 1, cluster = P.cluster { hw = hw, per_node = 2, nodes = 1 } }
  assert(r.step > 0)
end)

T.test("refusals name what is wrong", function()
  T.checkerr("needs framework= a profile with a Transformer Engine fp8 recipe", P.layers.from_graph,
    llama, { precision = "mixed_bf16", framework = "fsdp", fp8 = true })
  T.checkerr("precision must be mixed_bf16", P.layers.from_graph, llama,
    { precision = "fp8", framework = "nemo", fp8 = true })
  T.checkerr("fp8 must be true", P.layers.from_graph, llama,
    { precision = "mixed_bf16", framework = "nemo", fp8 = "yes" })
  T.checkerr("fp8.scaling 'fast' is unknown", P.layers.from_graph, llama,
    { precision = "mixed_bf16", framework = prof("fast"), fp8 = true })
  local b = layers(llama, prof("delayed"), true)
  local hw = dlb.hw.get("H100-SXM")
  T.checkerr("evaluate them at precision \"fp8\", got bf16", P.evaluate, { layers = b, hw = hw,
    precision = "bf16", batch = 8, dp = 1, tp = 1, pp = 1, m = 1 })
  -- the swept layouts do not count the casts: refused rather than timed without them
  T.checkerr("the swept layers do not count TE's fp8 casts", dlb.sweep.layouts, "llama",
    { layers = 2, hidden = 512, heads = 8, kv_heads = 2, ffn = 1024, vocab = 1000, seq = 64,
      gpus = { 8 }, device = "H100-SXM" }, { plan = { precision = "fp8", framework = "nemo", batch = 8 } })
end)

T.test("the shipped profiles' recipes", function()
  local te = require "dlbench.te_fp8"
  for _, n in ipairs { "nemo", "megatron-core", "megatron-core-cudagraphs" } do
    local s, w = te.recipe(fw.get(n), "test")
    T.eq(s, "delayed", n); T.eq(w, "step", n)
  end
  T.eq(te.recipe(fw.get("torchtitan"), "test"), nil, "torchao's float8 is not Transformer Engine")
end)

T.done()
