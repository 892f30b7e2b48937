-- test_roofline_graph.lua — the roofline over real graphs from the graph engine: per-op
-- timing from the analysis handle, labels (phase, layer, kind), the cache-aware model on
-- the graph's matmul shapes, subbatch choice on a graph, capacity and precision.
local T = require "harness"
local dlb = require "dlbench"
local R = dlb.roofline
local T4 = dlb.hw.get("Hestness-T4")

local function mlp(width)
  local g = dlb.graph("mlp")
  local x = g:input("x", { "b", width or 784 })
  local w = g:weight("w1", { width or 784, "h" })
  local w2 = g:weight("w2", { "h", 10 })
  local y = g:matmul(g:relu(g:matmul(x, w)), w2)
  g:loss(g:softmax_xent(y, g:input("labels", { "b" }, "int32")))
  return g
end

T.test("per-op time from a graph's analysis", function()
  local s = mlp():stats { b = 32, h = 1024 }
  -- framework "none": no host model (issue [19]), so the per-op time is the plain sum of
  -- the op bounds checked below; the default profile (pytorch-ddp) adds the device's idle
  -- time while its host issues ops (dlb_timeline): per_op.time = busy + host_idle
  local r = R.time(s, T4, { detail = true, framework = "none" })
  local rp = R.time(s, T4, { framework = "pytorch-ddp" })
  assert(rp.per_op.host_idle > 0 and rp.per_op.host_time > 0, "the mlp's tiny ops wait for the host")
  T.near(rp.per_op.time, r.per_op.time + rp.per_op.host_idle, 1e-12, "busy + idle")
  T.eq(r.mode, "per_op", "a graph's stats are timed op by op")
  T.eq(#r.op_time, s.nops, "one time per op")
  T.near(r.flops, s.flops, 1e-12, "FLOPs match the stats")
  T.near(r.bytes, s.bytes, 1e-12, "bytes match the stats")
  assert(r.time >= r.graph.time * (1 - 1e-12), "per op >= whole graph")
  -- whole graph is Hestness 5.2.2 on the totals
  T.near(r.graph.time, math.max(s.flops / (0.8 * 15.67e12), s.bytes / (0.7 * 898e9)), 1e-12, "graph")
  -- the per-op sum recomputed here from the same arrays
  local F, B = dlb.core.analysis_arrays(s.analysis)
  local sum = 0
  for i = 1, #F do sum = sum + math.max(F[i] / (0.8 * 15.67e12), B[i] / (0.7 * 898e9)) end
  T.near(r.time, sum, 1e-12, "sum of op bounds")
  -- labels: phases, op kinds, names
  assert(r.by_phase.fwd and r.by_phase.bwd and r.by_phase.update, "phases")
  assert(r.by_kind.matmul and r.by_kind.matmul.flops > 0, "matmul kind")
  local share = 0
  for _, g in pairs(r.by_phase) do share = share + g.share end
  T.near(share, 1, 1e-12, "phase shares add up")
  assert(type(r.op_name[1]) == "string" and #r.op_name[1] > 0, "op names")
  T.near(R.time(s, T4, { per_op = false }).time, r.graph.time, 1e-12, "per_op = false")
end)

T.test("cache-aware traffic on the graph's matmul shapes", function()
  local s = mlp(8192):stats { b = 128, h = 8192 }
  local r0 = R.time(s, T4)
  local r1 = R.time(s, T4, { cache_aware = true })
  assert(r1.bytes > r0.bytes, "6 MB cannot hold 8192-wide operands")
  -- recompute the cache-aware bytes op by op from the analysis' shapes
  local F, B = dlb.core.analysis_arrays(s.analysis)
  local total = 0
  for i = 1, #F do
    local m, n, k, batch = dlb.core.analysis_gemm(s.analysis, i - 1)
    local b = B[i]
    if m and m > 0 and n > 0 and k > 0 and batch > 0 then
      b = math.max(b, dlb.core.gemm_traffic(m, n, k, batch, 4, 6e6))
    end
    total = total + b
  end
  T.near(r1.bytes, total, 1e-12, "bytes with the tiled model")
  local h = R.time(s, "MI300X", { cache_aware = true }) -- 256 MB holds these operands
  T.near(h.bytes, r0.bytes, 1e-12, "a big cache adds nothing")
end)

T.test("subbatch on a graph: the ridge and best points", function()
  local g = mlp()
  local res = R.subbatch(g, T4, { bind = { h = 1024 } })
  T.eq(#res.curve.batch, 13, "1 .. 4096")
  assert(res.ridge and res.best and res.saturation, "three points")
  assert(res.best >= res.ridge, "best is not before the ridge")
  for i, b in ipairs(res.curve.batch) do
    if b == res.best then
      assert(res.curve.time_per_sample[i] <= 1.05 * res.min_time_per_sample)
    elseif b < res.best then
      assert(res.curve.time_per_sample[i] > 1.05 * res.min_time_per_sample)
    end
  end
  T.checkerr("b", R.subbatch, g, T4, { bind = {} }) -- h unbound: the graph engine says so
end)

T.test("capacity and precision from graph stats", function()
  local g = mlp()
  local s = g:stats { b = 65536, h = 65536 }
  local r = R.time(s, "Quadro-P4000") -- 8 GB
  assert(s.footprint > 8e9, "a 65536-wide MLP needs more than 8 GB")
  T.eq(r.fits, false, "does not fit")
  -- framework schedule (the default): weights + all gradients + optimizer + activations
  local bd = s.breakdown
  T.near(r.memory, bd.weights + s.params * 4 + bd.optimizer + bd.activations + bd.workspace,
    1e-12, "framework memory")
  T.eq(r.schedule, "framework", "schedule")
  T.near(r.shortfall, r.memory - 8e9, 1e-12, "shortfall")
  -- minimal schedule: weights + optimizer + max(activations, gradients)
  local rm = R.time(s, "Quadro-P4000", { schedule = "minimal" })
  T.near(rm.memory, bd.weights + bd.optimizer + math.max(bd.activations + bd.workspace,
    s.params * 4), 1e-12, "minimal memory")
  T.eq(rm.footprint_graph, s.footprint, "the engine's own scheduled footprint kept")
  T.eq(rm.footprint, rm.need, "one footprint: the bytes compared with memory")
  T.checkerr("schedule must be", R.time, s, "Quadro-P4000", { schedule = "lazy" })
  T.eq(R.time(g:stats { b = 32, h = 1024 }, "Quadro-P4000").fits, true, "a small one fits")
  local m = g:stats { b = 32, h = 1024, precision = "mixed" }
  T.eq(R.time(m, "V100-SXM2-16GB").precision, "fp16", "mixed uses the fp16 peak")
  T.eq(R.time(g:stats { b = 32, h = 1024, precision = "mixed_bf16" }, "A100-SXM4-80GB").precision,
    "bf16", "mixed_bf16")
  -- fp32-counted per-op bytes timed at bf16 on a TPU are halved
  local s32 = g:stats { b = 32, h = 1024 }
  local rt = R.time(s32, "TPUv4", { precision = "bf16" })
  T.near(rt.bytes, s32.bytes / 2, 1e-12, "bytes halved")
  T.near(rt.graph.bytes, s32.bytes / 2, 1e-12, "whole graph too")
  T.checkerr("must be a number", R.time, g:stats { b = 32 }, T4) -- symbolic stats
end)

T.test("tiling options reach the graph's matmuls and the subbatch sweep", function()
  local g = mlp(4096)
  local s = g:stats { b = 256, h = 8192 }
  -- every matmul's traffic with 16 x 16 tiles, recomputed from the analysis' shapes
  local F, B = dlb.core.analysis_arrays(s.analysis)
  local want = 0
  for i = 1, #F do
    local gm = { dlb.core.analysis_gemm(s.analysis, i - 1) }
    local b = B[i]
    if gm[1] and gm[1] > 0 and gm[2] > 0 and gm[3] > 0 and gm[4] > 0 then
      b = math.max(b, dlb.core.gemm_traffic(gm[1], gm[2], gm[3], gm[4], 4, 6e6, 16, 16))
    end
    want = want + b
  end
  local r = R.time(s, T4, { cache_aware = true, tile = 16 })
  T.near(r.bytes, want, 1e-12, "tile 16 traffic")
  assert(r.util < R.time(s, T4, { cache_aware = true }).util, "small tiles cost time")
  local a = R.subbatch(g, T4, { bind = { h = 8192 }, batches = { 64, 256 }, cache_aware = true })
  local b = R.subbatch(g, T4, { bind = { h = 8192 }, batches = { 64, 256 }, cache_aware = true,
    tile = 16 })
  assert(b.curve.util[2] < a.curve.util[2], "subbatch passes tile through")
end)

T.test("the step overhead joins a step's time once, from the one step model", function()
  -- dlb_step_time (graphs/hw/step_time.c) adds the device's step_overhead to the per-op time
  -- of a set made from a step's analysis, for dlb.roofline.time as for dlb.sweep.model; the
  -- whole-graph roofline of the same totals gets the same term; bare costs get none
  local s = mlp():stats { b = 32, h = 1024 }
  local so = 2.5e-3
  local d0, d1 = T4:with { step_overhead = 0 }, T4:with { step_overhead = so }
  for _, fwk in ipairs { "none", "pytorch-ddp" } do
    local r0 = R.time(s, d0, { framework = fwk })
    local r1 = R.time(s, d1, { framework = fwk })
    T.eq(r1.step_overhead, so, fwk .. ": reported")
    T.eq(r0.step_overhead, nil, fwk .. ": none without one")
    T.near(r1.per_op.time - r0.per_op.time, so, 1e-9, fwk .. ": per-op time, once")
    T.eq(r1.time, r1.per_op.time, fwk .. ": per-op mode's time")
    T.near(r1.graph.time - r0.graph.time, so, 1e-9, fwk .. ": whole-graph time, once")
    T.eq(r1.per_op.host_idle, r0.per_op.host_idle, fwk .. ": the overhead is after the timeline")
    T.near(r1.per_op.util, r1.flops / (r1.per_op.time * r1.peak), 1e-12, fwk .. ": util over the step's time")
    T.eq(r1.util, r1.per_op.util, fwk .. ": util")
    local g1 = R.time(s, d1, { framework = fwk, per_op = false })
    T.eq(g1.time, g1.graph.time, fwk .. ": graph mode's time")
    T.near(g1.time - R.time(s, d0, { framework = fwk, per_op = false }).time, so, 1e-9, fwk .. ": graph mode, once")
  end
  -- bare per-op costs are not a step: no overhead
  local ops = { ops = { flops = { 1e9, 2e9 }, bytes = { 1e6, 1e6 } } }
  T.eq(R.time(ops, d1).time, R.time(ops, d0).time, "bare ops")
end)

T.done()
