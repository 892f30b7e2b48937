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

-- OpenBLAS is loaded by the first GEMM measurement (graphs/hw/measure.c), not with the
-- library: linked, its thread pool started in every process and spun ~0.1 s of CPU before
-- sleeping. Seen in this process's mappings (Linux's /proc; elsewhere the test says so).
local function blas_mapped()
  local f = io.open("/proc/self/maps", "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text:find("libopenblas", 1, true) ~= nil
end
T.test("measure: OpenBLAS is loaded by the first GEMM measurement, not at start", function()
  local before = blas_mapped()
  if before == nil then io.write("# no /proc/self/maps: not checked\n"); return end
  T.eq(before, false, "no OpenBLAS before any measurement")
  T.checkerr("m, n, k and batch must be whole", core.measure_gemm, false, 0, 1, 1, 1, 1, 1, 0)
  T.eq(blas_mapped(), false, "a refused measurement loads nothing")
  local med = core.measure_gemm(false, 8, 8, 8, 1, 1, 1, 0)
  assert(med > 0, "a timed 8x8x8 SGEMM")
  T.eq(blas_mapped(), true, "OpenBLAS loaded by the measurement")
end)

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

-- Issue [19] megatron-audit3: under the qkv pass the fused GEMM reports the three widths
-- (M tokens, N 3h, K h); the absorbed k and v GEMMs (no FLOPs, no bytes) are no kernels
T.test("measure.ops: the fused QKV GEMM is one kernel of its own shape", function()
  local g = dlb.models.gpt { layers = 1, hidden = 64, heads = 2, vocab = 100, context = 16,
    seq = 16, batch = 1 }
  local s = g:stats { precision = "fp32", fuse = { "elementwise", "qkv" } }
  local t = dlb.measure.ops(s, { min_time = 0.0005, reps = 1, threads = 1 })
  local keys = {}
  for i = 1, t:count() do
    local r = t:row(i)
    keys[r.key] = r
    if r.kind == "gemm" then assert(r.flops > 0, r.key .. ": a GEMM that runs") end
  end
  assert(keys["gemm 16x192x64 x1"], "the fused forward: 16 tokens x 3h 192 x h 64")
  T.eq(keys["gemm 16x192x64 x1"].count, 1, "one fused forward GEMM")
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
  -- stat = "min": each shape's fastest repetition, never slower than its median's spread
  local tm = dlb.measure.ops(s, { min_time = 0.0005, reps = 3, stat = "min", threads = 1 })
  for i = 1, tm:count() do
    local r = tm:row(i)
    if r.kind ~= "none" then assert(r.time > 0, r.key .. " timed (min)") end
  end
  T.checkerr('stat must be "median" or "min"', dlb.measure.ops, s, { stat = "mean" })
  T.checkerr("reps must be a whole number", dlb.measure.ops, s, { reps = 0 })
end)

T.test("measure.host: the load average and the SIMD width are recorded", function()
  -- dev from the first test: the note says when and how loaded the machine was
  assert(dev.note:find("measured %d%d%d%d%-%d%d%-%d%d"), "date in the note: " .. dev.note)
  if rec.load then
    assert(dev.note:find("load average", 1, true), "load average in the note")
    T.eq(#rec.load, 3, "1, 5 and 15 minute load averages")
  end
  -- /proc/cpuinfo flags: AVX-512F 16, AVX 8, SSE 4 fp32 lanes (or none off x86)
  if dev.vector_width then
    assert(dev.vector_width == 16 or dev.vector_width == 8 or dev.vector_width == 4,
      "lanes " .. dev.vector_width)
    assert(dev.source.vector_width:find("/proc/cpuinfo", 1, true), "its source")
  end
end)

T.test("measure: the host recorded with the PyTorch fixture steps", function()
  -- tests/fixtures/traces/host.csv: written by make_traces.py (dlbench measure --threads 1)
  -- right before the steps; comment lines carry the date and load averages
  local path = "tests/fixtures/traces/host.csv"
  local h = assert(io.open(path, "r"))
  local text = h:read("*a")
  h:close()
  assert(text:find("^# host.csv"), "header comment")
  assert(text:find("load average %d+%.%d+"), "load average recorded")
  -- branch host-traces-1t: the steps' GEMMs on one OpenBLAS thread too, and checked: the
  -- process's CPU time over the stepping thread's (2026-11-24's two-thread GEMMs: ~2)
  assert(text:find("OPENBLAS_NUM_THREADS=1", 1, true), "one BLAS thread recorded")
  local procs = tonumber(text:match("CPU time over the stepping thread's was at most ([%d.]+)"))
  assert(procs and procs >= 1 and procs < 1.05, "one thread busy in the steps: " .. tostring(procs))
  local d = dlb.hw.load(path, { replace = true })[1]
  T.eq(d.name, "host-traces", "name")
  T.eq(d.kind, "cpu", "kind")
  assert(d.note:find("1 thread(s)", 1, true), "one thread, as the steps")
  assert(d.peak.fp32 > 1e10 and d.peak.fp32 < 1e13, "fp32 peak " .. d.peak.fp32)
  local lv = d:level_list()
  T.eq(lv[#lv].name, "DRAM", "levels down to DRAM")
  assert(#lv >= 3, "cache levels measured")
  T.eq(d.vector_width, 16, "AVX-512 host (the project's machine)")
end)

T.test("CPU GEMM packing: the im2col GEMM of a small conv (graphs/hw/roofline.c)", function()
  -- a host-like device: 100 GFLOP/s, L2 1 MiB at 160 GB/s, L3 32 MiB at 90 GB/s, DRAM 38 GB/s,
  -- 16 fp32 lanes (the numbers of a measured host; the rule is what is tested)
  local d = { peak = 100e9, bw = 38e9, flops_eff = 1, bw_eff = 1, vector_width = 16,
    level1_size = 1048576, level1_bw = 160e9, level2_size = 33554432, level2_bw = 90e9 }
  -- conv2 of notebooks/measure.lua's CNN at b = 128: m = 128*16*16 = 32768 pixels,
  -- n = 32 filters, k = 16*3*3 = 144. Compute 2 m n k / peak; packing one read and one write
  -- of A (the m x k im2col buffer) and B (k x n), fp32: 4 (32768*144 + 144*32) B = 18.9 MB,
  -- which fits L3 (32 MiB): 2 x 18.9 MB / 90 GB/s (Goto and van de Geijn 2008)
  local m, n, k = 32768, 32, 144
  local ct = 2 * m * n * k / 100e9
  local pt = 2 * 4 * (m * k + k * n) / 90e9
  local t = core.roofline_op_time(d, 2 * m * n * k, 0, { m, n, k, 1 })
  T.near(t, ct + pt, 1e-12, "compute + packing at the L3 ceiling")
  -- conv1 weight gradient of the same CNN, 16 x 27 x 131072: operands 4 (16*131072 + 131072*27)
  -- = 22.5 MB also fit L3; k is the long side, so packing is O(1/m + 1/n) = large
  m, n, k = 16, 27, 131072
  ct = 2 * m * n * k / (100e9 * 27 / 32) -- n = 27 pads to 32 lanes
  pt = 2 * 4 * (m * k + k * n) / 90e9
  T.near(core.roofline_op_time(d, 2 * m * n * k, 0, { m, n, k, 1 }), ct + pt, 1e-12, "small m and n")
  -- a square GEMM: packing is ~1% of the compute (2 x 4 x 2 n^2 B at DRAM vs 2 n^3 FLOPs)
  m = 4096
  ct = 2 * m ^ 3 / 100e9
  pt = 2 * 4 * 2 * m * m / 38e9
  T.near(core.roofline_op_time(d, 2 * m ^ 3, 0, { m, m, m, 1 }), ct + pt, 1e-12, "square: at DRAM")
  assert(pt / ct < 0.01, "negligible for a large square GEMM")
  -- a GPU-like device (no vector_width) is untouched: compute at peak
  local g = { peak = 100e9, bw = 38e9, flops_eff = 1, bw_eff = 1 }
  T.near(core.roofline_op_time(g, 2 * 32768 * 32 * 144, 0, { 32768, 32, 144, 1 }),
    2 * 32768 * 32 * 144 / 100e9, 1e-12, "no CPU rule without vector_width")
  -- a catalogue CPU (vector_width, no measured levels) keeps only the lane padding
  local c = { peak = 100e9, bw = 38e9, flops_eff = 1, bw_eff = 1, vector_width = 16 }
  T.near(core.roofline_op_time(c, 2 * 32768 * 32 * 144, 0, { 32768, 32, 144, 1 }),
    2 * 32768 * 32 * 144 / 100e9, 1e-12, "no packing without measured levels")
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

-- review 12: `dlbench measure` usage errors exit 2 (docs/cli.md): dlb.measure.cli hands
-- them, and only them, to usage_exit (the host's); a destination error is not one.
T.test("measure.cli: usage errors go to usage_exit, others are raised", function()
  local function usage_of(args)
    local seen
    local ok, e = pcall(dlb.measure.cli, args, function(m) seen = m; error("usage: " .. m, 0) end)
    assert(not ok, "an error")
    return seen, e
  end
  for _, args in ipairs { { "--bogus" }, { "extra" }, { "--seconds", "x" }, { "--threads", "-3" },
      { "--stat", "mean" }, { "--reps" } } do
    local seen, e = usage_of(args)
    assert(seen and seen:find("^dlbench measure: "), table.concat(args, " ") .. ": usage, got " .. tostring(e))
  end
  local seen, e = usage_of { "--csv", "/proc/nope/host.csv" }
  T.eq(seen, nil, "a destination error is not a usage error")
  assert(tostring(e):find("^dlbench measure: %-%-csv /proc/nope/host.csv"), e)
  -- without usage_exit (a library caller) the usage error is raised as before
  T.checkerr("dlbench measure: unexpected argument 'extra'", dlb.measure.cli, { "extra" })
end)

-- dlb.measure.cli checks where it will write before measuring. Under LuaJIT os.execute
-- returns the status as a number, true in every test: a good --csv path was refused as "a
-- folder, not a file" (and a folder was never refused). These fail before any measurement.
local function E_ls(dir)
  return (require("dlbench.errors").shell_capture("ls -A '" .. dir .. "'"))
end

T.test("measure.cli: the destinations checked alike on both backends", function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(require("dlbench.errors").shell("mkdir -p '" .. dir .. "/fig.png'"))
  T.checkerr("dlbench measure: --figure " .. dir .. "/fig.png is a folder, not a file",
    dlb.measure.cli, { "--csv", dir .. "/host.csv", "--figure", dir .. "/fig.png" })
  T.checkerr("dlbench measure: --csv " .. dir .. "/fig.png is a folder, not a file",
    dlb.measure.cli, { "--csv", dir .. "/fig.png" })
  -- review 20: a figure's extension was refused by its save, after the seconds of measuring
  -- and with the catalogue file written; now before anything (plots/render.c's rule, by a
  -- probe save), and nothing is left behind
  T.checkerr("dlbench measure: --figure " .. dir .. "/fig.jpg cannot be written: save '" .. dir
    .. "/fig.jpg': unknown file type 'jpg' (use .png, .pdf or .svg)",
    dlb.measure.cli, { "--csv", dir .. "/host.csv", "--figure", dir .. "/fig.jpg" })
  T.eq(io.open(dir .. "/host.csv"), nil, "nothing measured, no catalogue file")
  T.eq(E_ls(dir), "fig.png\n", "no probe left")
  -- /proc passed `test -w` as root (the permission bits), where no file can be made: refused
  -- before measuring, as root or not
  local ok, e = pcall(dlb.measure.cli, { "--csv", "/proc/host.csv", "--figure", dir .. "/f.png" })
  assert(not ok and tostring(e):find("^dlbench measure: %-%-csv /proc/host.csv"), tostring(e))
  local E = require "dlbench.errors"
  T.eq(E.shell("true"), true, "exit 0")
  T.eq(E.shell("false"), false, "exit 1")
  local out, ok, code = E.shell_capture("printf abc; exit 3")
  T.eq(out, "abc", "output without the status")
  T.eq(ok, false, "exit 3 is a failure")
  T.eq(code, 3, "its code")
  out, ok = E.shell_capture("echo hi")
  T.eq(out, "hi\n", "output")
  T.eq(ok, true, "exit 0")
  os.execute("rm -rf '" .. dir .. "'")
end)

T.done()
