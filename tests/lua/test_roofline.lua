-- test_roofline.lua — roofline time (whole graph and per op), precision, capacity,
-- subbatch choice, time to train and cost, the figure of merit, and the Hestness Table 3
-- reproduction from Table 2's formulas. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local R = dlb.roofline

local T4 = dlb.hw.get("Hestness-T4")

T.test("DESIGN example: time, bound, util, fits", function()
  local r = R.time({ flops = 1e12, bytes = 1e9, footprint = 1e9 }, T4)
  -- compute-bound: 1e12 / (0.8 x 15.67e12) s, utilisation = 80% of peak (hand computed)
  T.eq(r.bound, "compute", "bound")
  T.near(r.time, 1e12 / (0.8 * 15.67e12), 1e-12, "time")
  T.near(r.util, 0.8, 1e-12, "util")
  assert(r.fits and r.shortfall == 0)
  local m = R.time({ flops = 1e9, bytes = 1e10 }, "Hestness-T4")
  T.eq(m.bound, "memory", "memory bound")
  T.near(m.time, 1e10 / (0.7 * 898e9), 1e-12, "memory time")
  T.near(m.util, 1e9 / m.time / 15.67e12, 1e-12, "util of a memory-bound step")
  T.near(m.intensity, 0.1, 1e-12, "intensity")
end)

T.test("capacity: footprint beyond memory does not fit, with the shortfall", function()
  -- seed 000 6.2: 113.8 GB per step on a 32 GB accelerator
  local r = R.time({ flops = 1e12, bytes = 1e9, footprint = 113.8e9 }, T4)
  T.eq(r.fits, false, "fits")
  T.near(r.shortfall, 81.8e9, 1e-12, "shortfall")
  T.eq(r.mem, 32e9, "mem")
end)

T.test("Table 3 word LM step from Table 2's formulas (seed 000)", function()
  -- Table 3 row 'Word LMs': 23.8B params, subbatch 128 -> 1444 TFLOPs, 41.5 TB, 115 s
  local s = R.hestness("word_lm", 23.8e9, 128)
  T.near(s.flops / 1e12, 1444, 0.02, "TFLOPs/step (Table 3: 1444)")
  T.near(s.bytes / 1e12, 41.5, 0.03, "TB/step (Table 3: 41.5)")
  local r = R.time(s, T4)
  T.near(r.time, 115, 0.02, "step seconds (Table 3: 115)")
  T.eq(r.bound, "compute", "bound")
  T.checkerr("unknown domain", R.hestness, "vision", 1, 1)
end)

T.test("precision selects the peak and the bytes", function()
  local v = dlb.hw.get("V100-SXM2-16GB")
  local s = { flops = 1e13, bytes = 1e10, footprint = 8e9, precision = "fp32" }
  local r32 = R.time(s, v)
  T.eq(r32.precision, "fp32", "default from stats")
  T.near(r32.peak, 15.7e12, 1e-12, "fp32 peak")
  local r16 = R.time(s, v, { precision = "fp16" })
  T.near(r16.peak, 125e12, 1e-12, "fp16 peak")
  T.near(r16.bytes, 5e9, 1e-12, "fp32 -> fp16 halves the bytes")
  T.near(r16.footprint, 4e9, 1e-12, "and the footprint")
  T.eq(R.time({ flops = 1, bytes = 1, precision = "mixed" }, v).precision, "fp16", "mixed")
  -- no precision anywhere: the device's natural one (TPUv4: bf16), and the result says so
  local nat = R.time({ flops = 1, bytes = 1 }, "TPUv4")
  T.eq(nat.precision, "bf16", "natural")
  T.eq(nat.precision_source, "device")
  assert(tostring(nat):find("bf16: the device's natural precision", 1, true), tostring(nat))
  T.checkerr("has no fp32 peak", R.time, { flops = 1, bytes = 1 }, "TPUv4", { precision = "fp32" })
  T.eq(R.time({ flops = 1, bytes = 1 }, "TPUv4", { precision = "bf16" }).precision, "bf16", "tpu")
end)

T.test("per op: each op at its own bound, and the step's", function()
  local ops = R.ops { flops = { 1e12, 1e9, 0 }, bytes = { 1e9, 1e10, 1e8 },
    names = { "matmul", "add", "copy" } }
  local r = R.time(ops, T4, { detail = true })
  T.eq(r.mode, "per_op", "mode")
  local t1, t2, t3 = 1e12 / (0.8 * 15.67e12), 1e10 / (0.7 * 898e9), 1e8 / (0.7 * 898e9)
  T.near(r.time, t1 + t2 + t3, 1e-12, "sum of op times")
  T.near(r.graph.time, math.max((1e12 + 1e9) / (0.8 * 15.67e12), (1e9 + 1e10 + 1e8) / (0.7 * 898e9)),
    1e-12, "whole-graph time")
  assert(r.time >= r.graph.time)
  T.eq(r.op_bound[1], "compute", "op 1"); T.eq(r.op_bound[2], "memory", "op 2")
  T.near(r.op_time[2], t2, 1e-12, "op 2 time")
  T.near(r.op_util[1], 0.8, 1e-12, "op 1 util")
  T.eq(r.op_util[3], 0, "op 3 util")
  T.eq(r.n_memory_bound, 2, "memory-bound ops")
  T.near(r.memory_bound_time, t2 + t3, 1e-12, "time in memory-bound ops")
  T.near(r.util, (1e12 + 1e9) / r.time / 15.67e12, 1e-12, "step util")
  -- breakdown by label (ParaDnn Fig 3): phase sums
  local lab = R.ops { flops = { 1e12, 1e9, 0 }, bytes = { 1e9, 1e10, 1e8 },
    phase = { "fwd", "bwd", "bwd" }, kind = { "matmul", "add", "copy" } }
  local rl = R.time(lab, T4, { detail = true })
  T.near(rl.by_phase.fwd.time, t1, 1e-12, "fwd time")
  T.near(rl.by_phase.bwd.time, t2 + t3, 1e-12, "bwd time")
  T.near(rl.by_phase.bwd.memory_bound_time, t2 + t3, 1e-12, "bwd memory-bound")
  T.near(rl.by_phase.fwd.share + rl.by_phase.bwd.share, 1, 1e-12, "shares")
  T.near(rl.by_kind.matmul.util, 0.8, 1e-12, "matmul util")
  T.checkerr("phase must list one label per op", R.ops, { flops = { 1 }, bytes = { 1 }, phase = {} })
  -- stats carrying ops: the same answer, whole graph on request
  local s = { flops = 1e12 + 1e9, bytes = 1.11e10, ops = { flops = { 1e12, 1e9, 0 },
    bytes = { 1e9, 1e10, 1e8 } } }
  T.near(R.time(s, T4).time, r.time, 1e-12, "s.ops")
  T.near(R.time(s, T4, { per_op = false }).time, r.graph.time, 1e-12, "per_op = false")
  T.checkerr("per_op needs per-op costs", R.time, { flops = 1, bytes = 1 }, T4, { per_op = true })
  T.checkerr("op 2 has bytes", R.ops, { flops = { 1, 1 }, bytes = { 1, -1 } })
  T.checkerr("2 flops but 1 bytes", R.ops, { flops = { 1, 1 }, bytes = { 1 } })
end)

T.test("cache-aware matmul traffic (Hestness 6.1)", function()
  -- hand derivation (tests/test_roofline.c): 128 x 8192 x 8192 fp32, 6 MB cache, tile 707:
  -- A re-read ceil(8192/707) = 12 times
  local alg = 4 * (128 * 8192 + 8192 * 8192 + 128 * 8192)
  T.near(dlb.core.gemm_traffic(128, 8192, 8192, 1, 4, 6e6),
    4 * (128 * 8192 * 12 + 8192 * 8192 + 128 * 8192), 1e-12, "traffic")
  local ops = R.ops { flops = { 2 * 128 * 8192 * 8192 }, bytes = { alg }, gemm = { { 128, 8192, 8192 } } }
  local r0 = R.time(ops, T4)
  local r1 = R.time(ops, T4, { cache_aware = true })
  T.near(r1.bytes - r0.bytes, 4 * 128 * 8192 * 11, 1e-12, "extra re-streamed bytes")
  -- a larger cache (H100's 50 MB) keeps the 4 MiB A resident: no extra traffic
  local h = R.time(ops, "H100-SXM", { cache_aware = true })
  T.near(h.bytes, alg, 1e-12, "resident operand")
  T.checkerr("cache_aware needs per-op costs", R.time, { flops = 1, bytes = 1 }, T4, { cache_aware = true })
end)

T.test("cache-aware tiling options: tile shape and usable cache fraction", function()
  local alg = 4 * (128 * 8192 + 8192 * 8192 + 128 * 8192)
  local ops = R.ops { flops = { 2 * 128 * 8192 * 8192 }, bytes = { alg }, gemm = { { 128, 8192, 8192 } } }
  -- 128 x 128 output tiles: A (128 x 8192) moves 8192/128 = 64 times, B and C once
  local r = R.time(ops, T4, { cache_aware = true, tile = 128 })
  T.near(r.bytes, 4 * (128 * 8192 * 64 + 8192 * 8192 + 128 * 8192), 1e-12, "tile 128")
  T.near(dlb.core.gemm_traffic(128, 8192, 8192, 1, 4, 6e6, 128, 128), r.bytes, 1e-12, "core")
  -- rectangular {tile_m, tile_n} = {64, 256}: A 32 times, B twice
  r = R.time(ops, T4, { cache_aware = true, tile = { 64, 256 } })
  T.near(r.bytes, 4 * (128 * 8192 * 32 + 8192 * 8192 * 2 + 128 * 8192), 1e-12, "tile 64x256")
  -- a quarter of the 6 MB cache: t = floor(sqrt(1.5e6 / 12)) = 353, A 24 times
  r = R.time(ops, T4, { cache_aware = true, cache_fraction = 0.25 })
  T.near(r.bytes, 4 * (128 * 8192 * 24 + 8192 * 8192 + 128 * 8192), 1e-12, "cache / 4")
  -- the whole H100 cache keeps A resident; 5% of it (2.5 MB < 4 MiB x 2) does not
  T.near(R.time(ops, "H100", { cache_aware = true }).bytes, alg, 1e-12, "resident")
  assert(R.time(ops, "H100", { cache_aware = true, cache_fraction = 0.05 }).bytes > alg)
  T.checkerr("cache_fraction must be a number in [0, 1]", R.time, ops, T4,
    { cache_aware = true, cache_fraction = 1.5 })
  T.checkerr("tile must be a side >= 1", R.time, ops, T4, { cache_aware = true, tile = 0 })
  T.checkerr("tile must be a side >= 1", R.time, ops, T4, { cache_aware = true, tile = { 8 } })
  T.checkerr("need cache_aware = true", R.time, ops, T4, { tile = 64 })
end)

T.test("ParaDnn 4.5: TPU v3 over v2 is 2.3x on compute-bound, 1.5x on memory-bound ops", function()
  local v2, v3 = dlb.hw.get("TPUv2-board"), dlb.hw.get("TPUv3-board")
  local opts = { precision = "bf16", flops_eff = 1, bw_eff = 1 } -- ParaDnn's rooflines use peaks
  local big = { flops = 1e15, bytes = 1e12, precision = "bf16" }  -- 1000 FLOP/B: compute-bound
  local small = { flops = 1e12, bytes = 1e12, precision = "bf16" } -- 1 FLOP/B: memory-bound
  T.near(R.time(big, v2, opts).time / R.time(big, v3, opts).time, 420 / 180, 1e-12, "2.3x")
  T.near(R.time(small, v2, opts).time / R.time(small, v3, opts).time, 1.5, 1e-12, "1.5x")
  -- an op between the two ridges (75 and 117 FLOP/B) is memory-bound on v3 only: < 2.3x
  local mid = { flops = 100e12, bytes = 1e12, precision = "bf16" }
  local s = R.time(mid, v2, opts).time / R.time(mid, v3, opts).time
  assert(s > 1.5 and s < 2.33, "boundary speedup " .. s)
end)

T.test("matmul costs from sizes (seed 002's estimation method)", function()
  -- P1B3's largest matmul per pass: [100 x 29532] x [29532 x 1000] (the lecture's profile)
  local g = R.gemm(100, 1000, 29532)
  T.eq(g.flops, 2 * 100 * 1000 * 29532, "2mnk FLOPs")
  T.eq(g.bytes, 4 * (100 * 29532 + 29532 * 1000 + 100 * 1000), "fp32 bytes")
  local r = R.time(g, T4)
  -- intensity 5.906e9 / 1.3e8 B = 45 FLOP/B > 19.9: compute-bound, 0.47 ms on Table 4's device
  T.eq(r.bound, "compute", "bound")
  T.near(r.time, 2 * 100 * 1000 * 29532 / (0.8 * 15.67e12), 1e-12, "time")
  T.eq(R.gemm(8, 8, 8, { precision = "fp16", batch = 3 }).bytes, 3 * 2 * 192, "fp16, batch 3")
  T.checkerr("k must be a positive number", R.gemm, 1, 1, -1)
end)

T.test("subbatch: Hestness 5.2.1's three points (word LM, Table 2)", function()
  local p = 23.8e9
  -- the 23.8B-parameter model (12 B/param: 285 GB) fits no single 32 GB device; Hestness
  -- picks the subbatch of the step regardless (the model is split across devices)
  local res = R.subbatch(function(b) return R.hestness("word_lm", p, b) end, T4,
    { require_fit = false })
  local c = res.curve
  local none = R.subbatch(function(b) return R.hestness("word_lm", p, b) end, T4)
  T.eq(none.n_fit, 0, "fits no device"); T.eq(none.ridge, nil, "no point by default")
  local ridge = T4:ridge("fp32", true)
  T.near(res.ridge_point, ridge, 1e-12, "achievable ridge")
  -- the ridge point: first b with intensity >= 19.94 (hand: I(b) = 481 b p / (1755 p +
  -- 30784 b sqrt p) crosses 19.94 between b = 64 (I = 18.5) and b = 128 (I = 34.6))
  T.eq(res.ridge, 128, "ridge subbatch")
  for i, b in ipairs(c.batch) do
    if b == res.ridge and i > 1 then assert(c.intensity[i - 1] < ridge and c.intensity[i] >= ridge) end
  end
  -- whole-graph time per sample is flat once compute-bound: the best point is the ridge
  T.eq(res.best, 128, "best subbatch")
  assert(res.saturation >= res.ridge, "saturation beyond the ridge")
  local imax = res.max_intensity
  for i, b in ipairs(c.batch) do
    if b == res.saturation then assert(c.intensity[i] >= 0.95 * imax) end
    if b < res.saturation then assert(c.intensity[i] < 0.95 * imax) end
  end
  -- a graph-like object with a stats method and a named batch dim
  local g = { stats = function(_, bind) return R.hestness("word_lm", bind.p, bind.batch) end }
  local res2 = R.subbatch(g, T4, { dim = "batch", bind = { p = p }, require_fit = false })
  T.eq(res2.ridge, 128, "graph form")
  T.checkerr("unknown option 'tolerance'", R.subbatch, g, T4, { tolerance = 1 })
  T.checkerr("batches must increase", R.subbatch, g, T4, { dim = "batch", bind = { p = p },
    batches = { 4, 2 } })
end)

T.test("time to train and cost (DAWNBench metrics)", function()
  -- hand: 1.28M images, batch 256, 0.5 s/step -> 5000 steps = 2500 s per epoch; 90 epochs
  -- = 62.5 h; 8 devices at $3/device-hour -> $1500
  local t = R.train { step_time = 0.5, dataset = 1.28e6, batch = 256, epochs = 90, devices = 8,
    price = 3 }
  T.near(t.epoch_time, 2500, 1e-12, "epoch")
  T.near(t.hours, 62.5, 1e-12, "hours")
  T.near(t.cost, 1500, 1e-12, "cost")
  local r = R.time(R.hestness("image", 732e6, 32), T4)
  local t2 = R.train { step = r, dataset = 103e6, batch = 32 }
  T.near(t2.epoch_days, 103e6 / 32 * r.time / 86400, 1e-12, "from a roofline result")
  T.checkerr("dataset must be a positive", R.train, { step_time = 1, batch = 1 })
  T.checkerr("unknown option 'gpus'", R.train, { step_time = 1, batch = 1, dataset = 1, gpus = 2 })
end)

T.test("figure of merit: the lecture's worked example is 82.6 (seed 002)", function()
  -- seed 002 'Example FOM Calculation': Titan 18,688 nodes, A 94,000 nodelets; units take
  -- 60/4, 6/0.5 and 12/0.25 hours. H_titan = 17250.1, H_A = 1.42484e6, FOM = 82.599,
  -- against the arithmetic mean of the ratios 125.747.
  local f = R.fom {
    { base_hours = 60, base_nodes = 18688, hours = 4, nodes = 94000 },
    { base_hours = 6, base_nodes = 18688, hours = 0.5, nodes = 94000 },
    { base_hours = 12, base_nodes = 18688, hours = 0.25, nodes = 94000 },
  }
  T.near(f.fom, 82.599, 1e-4, "FOM")
  T.eq(string.format("%.1f", f.fom), "82.6", "printed FOM")
  -- the lecture rounds P1's Titan rate 24/60 x 18688 = 7475.2 to 7,475 u/day, so its
  -- H_titan = 1676313600/97177 = 17250.1; exactly it is 17250.46 (2e-5 relative)
  T.near(f.base_rate, 17250.1, 3e-5, "H_titan")
  T.near(f.rate, 1.42484e6, 1e-5, "H_A")
  T.near(f.ratios[1], 75.45, 1e-3, "P1 ratio")
  T.near(f.mean_ratio, 125.747, 1e-4, "arithmetic mean of ratios")
  T.near(R.harmonic_mean { 1, 2, 4 }, 3 / (1 + 0.5 + 0.25), 1e-12, "harmonic mean")
  -- one home: the figure of merit's harmonic mean is dlb.stats.hmean's (graphs/stats/stats.c)
  T.eq(R.harmonic_mean { 3, 5, 7.5 }, dlb.stats.hmean { 3, 5, 7.5 }, "same as dlb.stats.hmean")
  local ok, e = pcall(function() return R.harmonic_mean { 1, 0 } + 0 end)
  assert(not ok and e:find("^[^:]*test_roofline.lua:%d+: dlb.roofline.harmonic_mean: element 2 "),
    "error at the caller's line: " .. tostring(e))
  T.checkerr("needs a positive finite hours", R.fom, { { base_hours = 1, base_nodes = 1, nodes = 1 } })
end)

T.test("bad input is a clear error", function()
  T.checkerr("unknown device", R.time, { flops = 1, bytes = 1 }, "Z9000")
  T.checkerr("unknown option 'prec'", R.time, { flops = 1, bytes = 1 }, T4, { prec = "fp32" })
  T.checkerr("bytes must be a number", R.time, { flops = 1 }, T4)
  T.checkerr("bytes must be >= 0", R.time, { flops = 1, bytes = -1 }, T4)
  T.checkerr("flops must be >= 0", R.time, { flops = 0 / 0, bytes = 1 }, T4)
  T.checkerr("expected a device", R.time, { flops = 1, bytes = 1 }, 42)
  T.checkerr("bw_eff must be in (0, 1]", R.time, { flops = 1, bytes = 1 }, T4, { bw_eff = 2 })
end)

T.done()
