-- test_measure.lua — dlb.measure.host (a short measurement of this machine), the measured
-- device as a catalogue file, the figure, and the checks of the C microbenchmarks. Bounds
-- are wide: the machine is shared, so only orders of magnitude are asserted.
-- Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local core = dlb.core

local function tmpname(ext)
  local n = os.tmpname()
  os.remove(n)
  return n .. ext
end

local dev, rec
T.test("measure.host: a device with measured ceilings", function()
  dev, rec = dlb.measure.host { seconds = 0.3, reps = 3, gemm = { 32, 64 } }
  T.eq(dev.name, "host", "name")
  T.eq(dev.kind, "cpu", "kind")
  -- any CPU of the last decade does 1 GFLOP/s in SGEMM and less than 100 TFLOP/s
  assert(dev.peak.fp32 > 1e9 and dev.peak.fp32 < 1e14, "fp32 peak " .. dev.peak.fp32)
  assert(dev.peak.fp64 > 1e8 and dev.peak.fp64 < 1e14, "fp64 peak " .. dev.peak.fp64)
  -- DRAM: more than 100 MB/s and less than 10 TB/s
  assert(dev.mem_bw > 1e8 and dev.mem_bw < 1e13, "mem_bw " .. dev.mem_bw)
  T.eq(dev.flops_eff, 1, "measured ceilings are achievable rates")
  local lv = dev:level_list()
  assert(#lv >= 1, "at least the memory level")
  T.eq(lv[#lv].name, "DRAM", "last level")
  T.eq(lv[#lv].bw, dev.mem_bw, "mem_bw is the DRAM ceiling")
  for _, l in ipairs(lv) do assert(l.bw > 1e8, l.name .. " bandwidth") end
  -- the record: 2 fp32 sizes + fp64 at the largest and second largest, per thread count
  local nt = rec.threads > 1 and 2 or 1
  T.eq(rec.gemm:count(), nt * 4, "gemm rows")
  for i = 1, rec.gemm:count() do
    local r = rec.gemm:row(i)
    assert(r.time_min <= r.time and r.time <= r.time_max, "median inside the spread")
    T.eq(r.flops, 2 * r.m * r.n * r.k, "FLOPs count a MAC as 2")
  end
  T.eq(rec.stream:count(), #lv * (2 * nt + 1), "stream rows: copy, triad per thread count, relu")
  assert(rec.seconds < 60, "a 0.3 s budget took " .. rec.seconds .. " s")
end)

T.test("measure.host: the device works where a catalogue device does", function()
  local r = dlb.roofline.time({ flops = 1e9, bytes = 1e6 }, dev)
  T.near(r.time, 1e9 / dev.peak.fp32, 1e-9, "compute bound at the measured peak")
  local g = dlb.graph("mlp")
  local x = g:input("x", { "b", 64 })
  local y = g:relu(g:matmul(x, g:weight("w", { 64, 32 })))
  g:loss(g:softmax_xent(y, g:input("labels", { "b" }, "int32")))
  local s = g:stats { b = 16 }
  assert(dlb.roofline.time(s, dev).time > 0, "a graph's step on the host")
end)

T.test("measure.host: saved and loaded as a catalogue file, levels kept", function()
  local path = tmpname(".csv")
  assert(dlb.hw.save_csv(path, { dev }))
  local back = dlb.hw.load(path, { replace = true })[1]
  os.remove(path)
  T.eq(back.name, "host", "name")
  T.eq(back.peak.fp32, dev.peak.fp32, "peak exact")
  T.eq(back.mem_bw, dev.mem_bw, "mem_bw exact")
  local a, b = dev:level_list(), back:level_list()
  T.eq(#b, #a, "levels")
  for i = 1, #a do
    T.eq(b[i].name, a[i].name, "level name")
    T.eq(b[i].bw, a[i].bw, "level bw")
    T.eq(b[i].size, a[i].size, "level size")
  end
  T.checkerr("'levels'", dlb.hw.parse_csv, "name,fp32,mem,mem_bw,levels\nx,1e12,1e9,1e9,L1:abc\n", "f.csv")
  T.checkerr("levels[1].bw", dlb.hw.define, { name = "lv", peak = { fp32 = 1 }, mem = 1, mem_bw = 1,
    levels = { { name = "L1", bw = -1 } } })
end)

T.test("measure.figure: an ERT-style roofline that saves", function()
  local f = dlb.measure.figure(dev, rec)
  local path = tmpname(".png")
  assert(f:save(path))
  local h = assert(io.open(path, "rb"))
  local n = #h:read("*a")
  h:close()
  os.remove(path)
  assert(n > 1000, "png size " .. n)
end)

T.test("measure.ops: each distinct GEMM and elementwise shape timed once", function()
  local nn = require "dlbench.nn"
  local g = dlb.graph("small")
  local x = g:input("x", { "b", 3, 8, 8 })
  local h = g:relu(nn.conv2d(g, x, 4, 3, { padding = 1, name = "c" }))
  h = g:reshape(h, { "b", 4 * 8 * 8 })
  g:loss(g:softmax_xent(nn.linear(g, h, 10, { name = "fc" }), g:input("labels", { "b" }, "int32")))
  local s = g:stats { b = 8 }
  local t, info = dlb.measure.ops(s, { min_time = 0.0005, reps = 1 })
  T.eq(info.ops, s.nops, "every op of the step")
  T.eq(info.shapes, t:count(), "a row per distinct shape")
  assert(info.complete, "everything measured")
  local n, keys = 0, {}
  for i = 1, t:count() do
    local r = t:row(i)
    n = n + r.count
    keys[r.key] = r
    if r.kind ~= "none" then assert(r.time > 0, r.key .. " timed") end
  end
  T.eq(n, s.nops, "counts add up to the step's ops")
  -- the conv's forward as its im2col GEMM: m = b*8*8 output pixels, n = 4 filters,
  -- k = 3*3*3 (hand derivation of the implicit-GEMM shape)
  assert(keys["gemm 512x4x27 x1"], "conv forward as the im2col GEMM 512x4x27")
  assert(info.step_time > 0 and #info.points > 0, "a step estimate and roofline points")
  -- a graph with bindings works as its stats do
  local _, i2 = dlb.measure.ops(g, { bind = { b = 8 }, min_time = 0.0005, reps = 1 })
  T.eq(i2.ops, s.nops, "graph + bind")
  T.checkerr("every dim bound", dlb.measure.ops, { flops = 1 })
  T.checkerr("unknown option 'thread'", dlb.measure.ops, s, { thread = 1 })
end)

T.test("measure: bad options and arguments are errors", function()
  T.checkerr("unknown option 'thread'", dlb.measure.host, { thread = 1 })
  T.checkerr("threads must be", dlb.measure.host, { threads = -1 })
  T.checkerr("seconds must be", dlb.measure.host, { seconds = 0 })
  T.checkerr("gemm[1]", dlb.measure.host, { gemm = { 0 } })
  T.checkerr("m, n, k and batch must be whole", core.measure_gemm, false, 0, 1, 1, 1, 1, 1, 0)
  T.checkerr("1 GiB", core.measure_gemm, false, 1e5, 1e5, 1e5, 1, 1, 1, 0)
  T.checkerr("bytes per thread", core.measure_stream, 1, 1, 1, 1, 0)
  T.checkerr("kernel", core.measure_stream, 9, 1e4, 1, 1, 0)
  T.checkerr("reps", core.measure_stream, 1, 1e4, 1, 0, 0)
  T.checkerr("threads", core.measure_gemm, false, 8, 8, 8, 1, -1, 1, 0)
  local c, levels = core.measure_caches()
  T.eq(#c, 4, "four cache levels reported")
  assert(levels >= 0 and levels <= 4, "levels")
end)

T.done()
