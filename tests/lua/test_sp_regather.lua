-- test_sp_regather.lua — sequence parallelism's backward all-gather (issue [19], branch
-- sp-backward-ag): Megatron's column-parallel linear saves only its input's local shard under
-- sequence parallelism and all-gathers it again in the backward, beside its dX GEMM
-- (Megatron-LM megatron/mpu/layers.py LinearWithGradAccumulationAndAsyncCommunication.backward,
-- 2022; Megatron-Core tensor_parallel/layers.py; Transformer Engine's Linear,
-- backward_input_needs_gather). The planner runs it with seq_par and tp_async (the same linear
-- function; graphs/parallel/planner_tp.c). The formula with its windows is tested by hand in
-- tests/test_parallel_ops.c (async_tp); here the layer lists without ops (nothing hidden),
-- the embedding (no column-parallel linear), and plan / evaluate agreeing. Both backends.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel

-- one layer without ops of two collective pairs (a block), reading an activation or not
local function layer(act_in)
  return { flops_fwd = 1e12, flops_bwd = 2e12, bytes_sample = 1e8, bytes_fixed = 0,
    params = 1e8, act_out = 1e6, act_kept = 1e7, act_rep = 0, act_in = act_in, tp_bytes = 4e6,
    tp_colls = 2, shardable = 0 }
end
local function ev(act_in, extra)
  local ls = { layer(act_in) }
  ls.precision = "mixed"
  local o = { layers = ls, hw = "A100-SXM4-80GB", batch = 4, dp = 1, tp = 4, pp = 1, m = 1,
    per_node = 8, nodes = 1, seq_par = true, collectives = "alpha-beta" }
  for k, v in pairs(extra or {}) do o[k] = v end
  return P.evaluate(o)
end

T.test("a layer without ops: each pair's all-gather again, exposed", function()
  local off, on = ev(1e6, { tp_async = false }), ev(1e6, { tp_async = true })
  local eoff, eon = ev(0, { tp_async = false }), ev(0, { tp_async = true })
  -- reading no activation (an embedding): nothing gathered again, and without ops nothing
  -- hidden either: the same as with tp_async off
  T.near(eon.tp_comm, eoff.tp_comm, 1e-12, "act_in 0: no re-gather")
  T.near(eoff.tp_comm, off.tp_comm, 1e-12, "tp_async off: act_in does not matter")
  -- a block: two all-gathers more in the backward, each the forward's own; on a ring
  -- (alpha-beta) a reduce-scatter and an all-gather of the same bytes take the same time, so
  -- off = 2 x 2 x (rs + ag) = 8 ag and the re-gathers 2 ag, a quarter of it
  local ag = on.tp_comm - off.tp_comm
  T.eq(ag > 0, true, "the re-gathers add time: " .. ag)
  T.near(ag, off.tp_comm / 4, 1e-12, "two all-gathers: a quarter of the four pairs")
  T.near(on.step - off.step, ag, 1e-9, "the step lengthens by as much")
  -- without sequence parallelism there is nothing to gather
  local a, b = ev(1e6, { seq_par = false, tp_async = false }),
    ev(1e6, { seq_par = false, tp_async = true })
  T.near(a.tp_comm, b.tp_comm, 1e-12, "no seq_par, a layer without ops: nothing changes")
end)

T.test("a model with ops: hidden under the dX GEMMs; plan = evaluate", function()
  local g = dlb.models.gpt { layers = 2, hidden = 2048, heads = 16, seq = 2048,
    context = 2048, vocab = 1000 }
  local L = P.layers.from_graph(g, { precision = "fp16", framework = "megatron-lm" })
  local function evg(extra)
    local o = { layers = L, hw = "A100-SXM4-80GB", precision = "fp16", batch = 4, dp = 1,
      tp = 4, pp = 1, m = 2, per_node = 8, nodes = 1, framework = "megatron-lm",
      seq_par = true, recompute = false }
    for k, v in pairs(extra or {}) do o[k] = v end
    return P.evaluate(o)
  end
  -- with contention f the hidden part of each collective costs f of itself: more than
  -- without, for the re-gathers as for the reduce-scatters
  local e0, e1 = evg(), evg { contention = 0.2 }
  T.eq(e1.tp_comm > e0.tp_comm, true, "contention: the hidden part costs f of itself")
  local rows = P.plan { layers = L, hw = "A100-SXM4-80GB", precision = "fp16", batch = 4,
    devices = 4, per_node = 8, nodes = 1, framework = "megatron-lm", table = false,
    recompute = false, zero = 0, seq_par = true }
  local hit = 0
  for _, r in ipairs(rows) do
    if r.tp == 4 and r.pp == 1 then
      T.near(r.step, evg { m = r.m }.step, 1e-12, "plan row = evaluate, m " .. r.m)
      hit = hit + 1
    end
  end
  T.eq(hit > 0, true, "a tp 4 row")
end)

T.done()
