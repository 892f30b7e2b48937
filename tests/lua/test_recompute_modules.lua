-- Megatron-Core's selective-recompute modules in the planner (issue 27: recompute =
-- "selective", recompute_modules = {...}; graphs/parallel/dlb_parallel.h DLB_RCM_*,
-- docs/parallel.md): the modules from_graph marks on a small MoE and a dense block, the
-- recomputed FLOPs and freed bytes by hand, the refusals, the rows. Both backends.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel
local OP = P.layers.OP

-- a llama-style MoE of hidden d, experts of width f, top-k of E, sequence q; every = 2: block
-- h0 dense (SwiGLU MLP of width f), h1 MoE
local d, f, E, k, q = 256, 512, 4, 2, 128
local function moe(every, layers)
  return dlb.models.moe { layers = layers or 2, hidden = d, heads = 4, ffn = f, experts = E,
    top_k = k, seq = q, vocab = 1000, style = "llama", every = every }
end
local A100 = "A100-SXM4-80GB"
local peak = dlb.hw.get(A100).peak.bf16

-- per layer (0-based in the op list) and module: the forward ops marked
local function marks(ls)
  local c = {}
  for i = 1, #ls.ops, OP do
    if ls.ops[i + 1] == 0 and ls.ops[i + 14] ~= 0 then
      local key = ls.ops[i] .. ":" .. ls.ops[i + 14]
      c[key] = (c[key] or 0) + 1
    end
  end
  return c
end

T.test("the modules of each block's forward ops (from_graph)", function()
  local ls = P.layers.from_graph(moe(2), { precision = "mixed_bf16", framework = "megatron-core" })
  local c = marks(ls)
  -- h0 (layer 1, dense): ln2 the pre-MLP norm (1); gate, up, silu, mul, down its MLP (2)
  T.eq(c["1:1"], 1, "h0's pre-MLP norm")
  T.eq(c["1:2"], 5, "h0's MLP: gate, up, silu, mul, down")
  -- h1 (layer 2, MoE): ln2 (1); reshape, router, softmax, dispatch, w1, w3, w2, reshape,
  -- combine, reshape, topk gates, mul, combine_sum, reshape its MoE layer (3); silu and
  -- mul between the expert matmuls its experts' activation (4); the residual adds none
  T.eq(c["2:1"], 1, "h1's pre-MLP norm")
  T.eq(c["2:3"], 14, "h1's MoE layer")
  T.eq(c["2:4"], 2, "h1's experts' activation: silu, mul")
  T.eq(c["1:3"] or c["1:4"] or c["2:2"], nil, "no MoE ops in the dense block, no MLP in the MoE one")
  T.eq(c["0:1"] or c["3:1"], nil, "the embedding and the head (ln_f) have none")
end)

-- one layout on an A100: dp 1, batch 2, m 1; the given recompute options
local function ev(g, t)
  local o = { graph = g, hw = A100, precision = "mixed_bf16", batch = 2, dp = 1, tp = 1, pp = 1,
    m = 1, framework = "megatron-core" }
  for key, v in pairs(t) do o[key] = v end
  return P.evaluate(o)
end
-- the FLOPs the hardware ran per step beyond the model's (HFU - MFU), per sample, over a
-- row without recompute (whose HFU and MFU differ by the profile's MFU convention: causal
-- attention counted half)
local function hw_extra(r) return (r.hfu - r.mfu) * r.step * peak / 2 end
local base = {}
local function rec(r, g)
  if not base[g] then base[g] = hw_extra(ev(g, { recompute = false })) end
  return hw_extra(r) - base[g]
end

T.test("recomputed FLOPs by hand", function()
  local g = moe(1, 2)   -- two MoE blocks
  local none = ev(g, { recompute = false })
  -- moe_act: each MoE block's silu (5 FLOPs an element) and product (1) over the q k routed
  -- copies of width f (graphs/ir/op_cost.c): 2 blocks x 6 q k f
  local ra = ev(g, { recompute = "selective", recompute_modules = { "moe_act" } })
  T.near(rec(ra, g), 2 * 6 * q * k * f, 1e-9, "moe_act")
  T.eq(ra.recompute, "selective")
  T.eq(ra.recompute_modules, "moe_act")
  assert(ra.step > none.step, "the rerun costs time")
  -- moe: the whole MoE layer again, its router (2 q d E), three expert matmuls (3 x 2 q k d f)
  -- and its elementwise ops (the activation, the router softmax, the gate product and sum:
  -- read from the ops' FLOPs, as the graph counts them)
  local ls = P.layers.from_graph(g, { precision = "mixed_bf16", framework = "megatron-core" })
  local elem = 0
  for i = 1, #ls.ops, OP do
    local m = ls.ops[i + 14]
    if ls.ops[i + 1] == 0 and (m == 3 or m == 4) and ls.ops[i + 6] == 0 then elem = elem + ls.ops[i + 2] end
  end
  local rm = ev(g, { recompute = "selective", recompute_modules = { "moe" } })
  T.near(rec(rm, g), 2 * (2 * q * d * E + 3 * 2 * q * k * d * f) + elem, 1e-9, "moe")
  -- both: the activation once more (the MoE layer's rerun discards it again)
  local rb = ev(g, { recompute = "selective", recompute_modules = { "moe", "moe_act" } })
  T.near(rec(rb, g), rec(rm, g) + rec(ra, g), 1e-9, "moe + moe_act")
  -- the default module list is core_attn: the same row as "selective"
  local rs, rc = ev(g, { recompute = "selective" }), ev(g, { recompute = "selective",
    recompute_modules = { "core_attn" } })
  T.eq(rc.step, rs.step, "core_attn is the default")
  T.eq(rs.recompute_modules, "core_attn")
  assert(tostring(rb):find("selective recompute (moe, moe_act)", 1, true), tostring(rb))
end)

T.test("freed activations by hand", function()
  -- four MoE blocks; layernorm discards each block's pre-MLP norm output, the hidden state
  -- [q, d] in bf16 (2 bytes) per sample, and one block's is rebuilt at a time: 3 q d 2 x 2
  -- samples fewer
  local g = moe(1, 4)
  local none = ev(g, { recompute = false })
  local rl = ev(g, { recompute = "selective", recompute_modules = { "layernorm" } })
  T.near(none.mem_act - rl.mem_act, 3 * q * d * 2 * 2, 1e-9, "layernorm")
  -- moe_act discards the experts' activation output, linear_fc2's input: q k f x 2 bytes
  local ra = ev(g, { recompute = "selective", recompute_modules = { "moe_act" } })
  T.near(none.mem_act - ra.mem_act, 3 * q * k * f * 2 * 2, 1e-9, "moe_act")
  local rm = ev(g, { recompute = "selective", recompute_modules = { "layernorm", "moe" } })
  assert(rm.mem_act < rl.mem_act and rm.mem_act < ra.mem_act, "the MoE layer's share as well")
end)

T.test("a dense block: mlp", function()
  local g = dlb.models.llama { layers = 2, hidden = d, heads = 4, kv_heads = 4, ffn = f, seq = q,
    vocab = 1000 }
  local r = ev(g, { recompute = "selective", recompute_modules = { "mlp" } })
  -- its MLP (gate, up, down: 3 x 2 q d f; silu 5 q f, product q f) and its pre-MLP RMSNorm
  -- (fused into linear_fc1 under Transformer Engine), read from the ops
  local ls = P.layers.from_graph(g, { precision = "mixed_bf16", framework = "megatron-core" })
  local norm = 0
  for i = 1, #ls.ops, OP do
    if ls.ops[i + 1] == 0 and ls.ops[i + 14] == 1 then norm = norm + ls.ops[i + 2] end
  end
  T.near(rec(r, g), 2 * (3 * 2 * q * d * f + 6 * q * f) + norm, 1e-9, "mlp")
  T.checkerr("\"layernorm\" reruns nothing in this model", ev, g,
    { recompute = "selective", recompute_modules = { "layernorm" } })
  T.checkerr("\"moe\" reruns nothing in this model", ev, g,
    { recompute = "selective", recompute_modules = { "moe" } })
end)

T.test("refused by name", function()
  local g = moe(1)
  T.checkerr("unknown recompute module 'moee' for parallel.evaluate (did you mean 'moe'?); accepted: "
    .. "core_attn, layernorm, mlp, moe, moe_act", ev, g, { recompute = "selective",
    recompute_modules = { "moee" } })
  T.checkerr("\"shared_experts\" is Megatron-Core's, not modelled", ev, g,
    { recompute = "selective", recompute_modules = { "shared_experts" } })
  T.checkerr("\"mla_up_proj\" is Megatron-Core's, not modelled", ev, g,
    { recompute = "selective", recompute_modules = { "mla_up_proj" } })
  T.checkerr("recompute_modules applies to recompute = \"selective\"", ev, g,
    { recompute = true, recompute_modules = { "moe" } })
  T.checkerr("recompute_modules must be a non-empty list", ev, g,
    { recompute = "selective", recompute_modules = {} })
  T.checkerr("\"mlp\" reruns nothing in this model", ev, g,
    { recompute = "selective", recompute_modules = { "mlp" } })
  T.checkerr("recompute_modules applies to recompute = \"selective\"", P.plan,
    { graph = g, hw = A100, devices = 2, batch = 4, recompute_modules = { "moe" } })
end)

T.test("the search", function()
  local t = P.plan { graph = moe(1), hw = A100, devices = 4, batch = 8, precision = "mixed_bf16",
    framework = "megatron-core", recompute = "selective", recompute_modules = { "layernorm", "moe" },
    ep_max = 4 }
  assert(#t > 0, "rows")
  for i = 1, #t do
    T.eq(t[i].recompute, "selective")
    T.eq(t[i].recompute_modules, "layernorm, moe")
  end
end)

T.test("the sweeps: layouts through the planner take it, the compiled model sweep refuses it", function()
  local b = function() return moe(1) end
  local function lay(m)
    return dlb.sweep.layouts(b, { x = { 1 }, gpus = { 8 }, device = A100 }, { keep = true,
      plan = { batch = 8, precision = "mixed_bf16", framework = "megatron-core",
        recompute = "selective", recompute_modules = m } })
  end
  local a, c = lay(nil), lay { "layernorm", "moe" }
  local best = function(r)
    local m = math.huge
    for _, v in ipairs(r.rows:column("step")) do m = math.min(m, v) end
    return m
  end
  T.eq(c.rows:column("recompute")[1], 2, "the selective policy by its number (DLB_PAR_RECOMPUTE_SELECTIVE)")
  assert(best(c) > best(a), "the MoE layers' rerun costs time in every layout")
  -- dlb.sweep.model times g:stats steps, whose recompute policies are the graph's
  T.checkerr("unknown option 'recompute_modules'", dlb.sweep.model, b, { x = { 1 }, device = A100 },
    { stats = { recompute_modules = { "moe" } } })
end)

T.done()
