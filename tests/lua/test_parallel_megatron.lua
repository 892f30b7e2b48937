-- test_parallel_megatron.lua — three mechanisms Megatron-LM runs, as the planner's Lua
-- options and layer costs carry them (issue [19], third round; the formulas are tested by
-- hand in tests/test_parallel_ops.c): selective recompute (Korthikanti et al. 2022 sec. 5),
-- pipeline sends with scatter/gather (Narayanan et al. 2021 sec. 4.1), sequence parallelism's
-- time (Korthikanti et al. 2022 sec. 4.2.2). Both backends.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel

-- Korthikanti et al. 2022's 22B model (Table 3: a 64, h 6144, 48 layers; s 2048), 4 layers
local K = { layers = 4, d = 6144, seq = 2048, heads = 64 }
local cf = P.layers.transformer_formula(K)
local s, h, a = K.seq, K.d, K.heads
local A100 = "A100-SXM4-80GB"

local function near(x, want, tol, what)
  T.eq(math.abs(x - want) <= tol * math.abs(want), true,
    string.format("%s: %.6g, want %.6g", what, x, want))
end

T.test("closed-form layers carry the attention core: 5 a s^2 bytes, 4 s^2 h FLOPs", function()
  local l = cf[2]
  -- eq. 1 at 2-byte activations: 34 s h + 5 a s^2 per layer and sample, the core 5 a s^2
  near(l.act_kept + l.act_rep, 34 * s * h + 5 * a * s * s, 1e-12, "kept (eq. 1)")
  near(l.act_core, 5 * a * s * s, 1e-12, "the core's bytes")
  near(l.flops_core, 4 * s * s * h, 1e-12, "Q K^T and attention over V")
  local nd = P.layers.transformer_formula { layers = 1, d = h, seq = s, heads = a, dropout = false }
  near(nd[2].act_core, 2 * a * s * s, 1e-12, "without dropout: the softmax output")
end)

T.test("recompute = \"selective\": sec. 5's memory, the core's forward again", function()
  local base = { layers = cf, hw = A100, dp = 1, tp = 8, pp = 1, m = 1, batch = 1, seq_par = true,
    zero = 0 }
  local function ev(rc)
    local o = {}
    for k, v in pairs(base) do o[k] = v end
    o.recompute = rc
    return P.evaluate(o)
  end
  local none, sel, full = ev("none"), ev("selective"), ev(true)
  T.eq(sel.recompute, "selective", "the row names the policy")
  T.eq(full.recompute, true, "full stays true")
  T.eq(none.recompute, false, "none is false")
  -- the four blocks: 5 a s^2 / t each kept without recompute, none of it with selective (one
  -- block's rebuilt in the backward)
  near(none.mem_act - sel.mem_act, 3 * 5 * a * s * s / 8, 1e-9, "the core's bytes dropped")
  T.eq(none.step < sel.step and sel.step < full.step, true, "none < selective < full in time")
  T.eq(sel.hfu > sel.mfu, true, "HFU counts the recomputed core")
  T.checkerr("recompute must be true (full), false (none), \"none\", \"full\", \"selective\"",
    ev, "attention")
end)

T.test("the search tries selective when asked, and only then", function()
  local o = { layers = cf, hw = A100, devices = 8, batch = 8, recompute = "selective",
    per_node = 8, nodes = 1, table = false }
  local rows = P.plan(o)
  T.eq(#rows > 0, true, "layouts found")
  for _, r in ipairs(rows) do T.eq(r.recompute, "selective", "every row selective") end
  o.recompute = nil
  for _, r in ipairs(P.plan(o)) do T.eq(r.recompute ~= "selective", true, "nil: none and full") end
end)

T.test("pp_scatter: 1/tp of the activation over the network, all-gathered over NVLink", function()
  local o = { layers = cf, hw = A100, dp = 1, tp = 8, pp = 2, m = 4, batch = 4, per_node = 8,
    nodes = 2, collectives = "alpha-beta" }
  local whole = P.evaluate(o)
  o.pp_scatter = true
  local scat = P.evaluate(o)
  T.eq(scat.pp_comm < whole.pp_comm, true, "scattered sends are cheaper across nodes")
  -- the profile that does it sets it; megatron-core (no scatter) does not
  local lm = P.evaluate { layers = cf, hw = A100, dp = 1, tp = 8, pp = 2, m = 4, batch = 4,
    per_node = 8, nodes = 2, collectives = "alpha-beta", framework = "megatron-lm" }
  T.eq(lm.pp_comm, scat.pp_comm, "megatron-lm's default")
  T.eq(dlb.frameworks.plan_defaults(dlb.frameworks.get("megatron-core")).pp_scatter, nil,
    "megatron-core sends the whole tensor")
  -- NeMo runs sequence parallelism by default: its sends are 1/tp already, no all-gather
  T.eq(dlb.frameworks.plan_defaults(dlb.frameworks.get("nemo")).seq_par, true, "nemo: seq_par")
  local nm = P.evaluate { layers = cf, hw = A100, dp = 1, tp = 8, pp = 2, m = 4, batch = 4,
    per_node = 8, nodes = 2, collectives = "alpha-beta", framework = "nemo" }
  local sp = P.evaluate { layers = cf, hw = A100, dp = 1, tp = 8, pp = 2, m = 4, batch = 4,
    per_node = 8, nodes = 2, collectives = "alpha-beta", framework = "nemo", seq_par = true }
  T.eq(nm.step, sp.step, "nemo's default is seq_par = true")
end)

T.test("phase_sync: Megatron-LM's timers synchronise every micro-batch phase", function()
  -- megatron/global_vars.py _Timer.start/stop call torch.cuda.synchronize() around every
  -- micro-batch's forward and backward (megatron/schedules.py): the device waits for the
  -- host's first op of each phase. Closed-form layers (one op per pass) through the host-side
  -- timeline (dlb_timeline; tests/test_parallel_ops.c by hand): every op is longer than
  -- host_op h but the embedding's forward (e, bytes only), so the device waits for a first
  -- issue (h) and, after the embedding, for layer 1's (h - e): without phase_sync once in the
  -- step (one stream: the host runs ahead from there), with it in each micro-batch's forward,
  -- and h more at each backward's first issue: m (3h - e).
  local h = 1e-4
  local hw = dlb.hw.get(A100):with { host_op = h, host_layer = 0 }
  local o = { layers = cf, hw = hw, dp = 1, tp = 1, pp = 1, m = 2, batch = 2, zero = 0 }
  local free = P.evaluate(o)
  o.phase_sync = true
  local sync = P.evaluate(o)
  local e = 2 * h - free.host_idle
  T.eq(e > 0 and e < h, true, "the embedding's forward is shorter than its issue: " .. e)
  near(sync.host_idle, 2 * (3 * h - e), 1e-9, "m (3h - e)")
  near(sync.step - free.step, sync.host_idle - free.host_idle, 1e-9, "the wait is host_idle")
  T.eq(sync.compute, free.compute, "the device's work is unchanged")
  -- the profile that times its phases sets it; Megatron-Core (timers no-ops at the default
  -- --timing-log-level 0) does not
  T.eq(dlb.frameworks.plan_defaults(dlb.frameworks.get("megatron-lm")).phase_sync, true,
    "megatron-lm: sync = \"phase\"")
  T.eq(dlb.frameworks.plan_defaults(dlb.frameworks.get("megatron-core")).phase_sync, nil,
    "megatron-core: no sync")
  local bad = dlb.frameworks.derive("megatron-lm", { sync = "always" })
  T.checkerr("sync must be \"phase\"", dlb.frameworks.plan_defaults, bad)
  T.checkerr("unknown option 'phase_synk'", P.evaluate, { layers = cf, hw = hw, dp = 1, tp = 1,
    pp = 1, m = 2, batch = 2, phase_synk = true })
end)

T.test("sequence parallelism: ops outside the tensor-parallel region split over tp", function()
  local g = dlb.models.gpt { layers = 2, hidden = 1024, heads = 16, seq = 512, context = 512,
    dropout = true }
  local ls = P.layers.from_graph(g, { framework = "megatron-lm" })
  -- per block: the unfused core (Q K^T, scale, softmax, dropout, attention over V) marked 3,
  -- the two LayerNorms and the bias / dropout / residual after each row-parallel matmul
  -- marked replicated, forward and backward
  local core, rep = {}, {}
  for k = 1, #ls.ops, P.layers.OP do
    local li = ls.ops[k]
    if ls.ops[k + 12] == 3 and ls.ops[k + 1] == 0 then core[li] = (core[li] or 0) + 1 end
    if ls.ops[k + 13] == 1 then rep[li] = (rep[li] or 0) + 1 end
  end
  T.eq(core[1], 5, "the core's five forward ops (block h0)")
  T.eq(rep[1] ~= nil and rep[1] >= 8, true, "the ops outside the region (block h0)")
  T.eq(core[0], nil, "the embedding has no core")
  T.eq(ls[2].flops_core > 0 and ls[2].act_core > 0, true, "the block's core costs")
  local o = { layers = ls, hw = A100, dp = 1, tp = 4, pp = 1, m = 1, batch = 1, per_node = 8,
    nodes = 1 }
  local plain = P.evaluate(o)
  o.seq_par = true
  local sp = P.evaluate(o)
  T.eq(sp.compute < plain.compute, true, "LayerNorm and dropout on 1/tp of the sequence")
end)

T.test("an MoE block with fused attention: the core is the attention kernel only", function()
  -- the same attention in a dense and an MoE block: the same core FLOPs (the fused kernel's);
  -- the core once ran on from the attention chain to the first expert matmul, taking in the
  -- out-projection, the norm and the router (6x the core FLOPs here)
  local base = { layers = 2, hidden = 512, heads = 8, kv_heads = 8, ffn = 1024, vocab = 1000,
    seq = 256 }
  local mo = { experts = 8, top_k = 2 }
  for k, v in pairs(base) do mo[k] = v end
  local ld = P.layers.from_graph(dlb.models.llama(base), { framework = "megatron-core" })
  local lm = P.layers.from_graph(dlb.models.moe(mo), { framework = "megatron-core" })
  T.eq(ld[2].flops_core > 0, true, "the dense block has a core")
  near(lm[2].flops_core, ld[2].flops_core, 1e-12, "the MoE block's core FLOPs")
end)

T.done()
