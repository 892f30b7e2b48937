-- bench_sweep.lua — throughput of dlb.sweep (configs/s) serial and in 2 worker processes
-- on a cheap fn, table operations and the statistics on a ParaDnn-sized table, and
-- ParaDnn's full FC family (seeds/004 Table 2, 9720 models) through zoo + graph +
-- roofline on three devices (dlb.paradnn.sweep).
-- Run: build/bin/dlbench run tests/bench/bench_sweep.lua   (figures go in BENCHMARKS.md)
-- Or only the FC family, once, in a fresh process (for /usr/bin/time -v):
--      build/bin/dlbench run tests/bench/bench_sweep.lua fc 2     (2 = jobs)
local dlb = require "dlbench"
local now = dlb.core.sys_now

if arg and arg[1] == "fc" then
  local jobs = tonumber(arg[2] or "1")
  local cpu = dlb.core.proc_cputime
  local t0, c0, k0 = now(), cpu(), cpu(true)
  local r = dlb.paradnn.sweep("fc", { jobs = jobs, quiet = true, progress = false })
  local el = now() - t0
  print(string.format("ParaDnn FC family, %s, jobs=%d: %.2f s wall, %.0f configs/s, CPU parent %.2f s + workers %.2f s, %d failed",
    dlb.backend, jobs, el, r:count() / el, cpu() - c0, cpu(true) - k0, r:failures():count()))
  return
end

local function timeit(label, n, unit, f)
  f() -- warm up
  local best = math.huge
  for _ = 1, 3 do
    local t0 = now()
    f()
    local el = now() - t0
    if el < best then best = el end
  end
  print(string.format("%-52s %10.0f %s/s  (%.3f s for %d)", label, n / best, unit, best, n))
  return best
end

print(string.format("dlbench %s, backend %s, %d cores", dlb.version(), dlb.backend, dlb.core.sys_cores()))

-- the row transport of jobs > 1: one ParaDnn FC row (31 columns: 5 parameters, flops,
-- params and 8 per device) encoded by a worker that has sent its names already, and
-- decoded by the parent from a record inside its read buffer, header included
do
  local p = { layers = 4, nodes = 512, input = 2000, output = 1000, batch = 64 }
  local row = dlb.paradnn.evaluate("fc")(p)
  for k, v in pairs(p) do row[k] = v end
  local ncol = 0
  for _ in pairs(row) do ncol = ncol + 1 end
  local cols, index, dcols = {}, {}, {}
  assert(dlb.core.proc_decode_row(dlb.core.proc_encode_row(row, cols, index), dcols))
  local N = 20000
  local body
  local te = timeit("row transport: encode (worker, names sent once)", N, "rows", function()
    for _ = 1, N do body = dlb.core.proc_encode_row(row, cols, index) end
  end)
  local rec = string.rep("R 1 " .. #body .. "\n" .. body, 16)
  local td = timeit("row transport: header + decode (parent)", N, "rows", function()
    for _ = 1, N / 16 do
      local pos = 1
      for _ = 1, 16 do
        local nl = rec:find("\n", pos, true)
        local kind, ks, lens = rec:match("^([RE]) (%d+) (%d+)\n", pos)
        local len = tonumber(lens)
        assert(kind and tonumber(ks) and dlb.core.proc_decode_row(rec, dcols, nl + 1, len))
        pos = nl + len + 1
      end
    end
  end)
  print(string.format("%-52s %7.2f + %.2f us per row (%d columns, %d bytes)", "  row transport per row",
    te / N * 1e6, td / N * 1e6, ncol, #body))
end

-- a cheap fn over ParaDnn's FC space: 9720 configs
local space = dlb.paradnn.space("fc")
local n = 1
for _, v in pairs(space) do n = n * #v end
local function cheap(p)
  local flops = 2 * p.batch * (p.input * p.nodes + (p.layers - 1) * p.nodes * p.nodes + p.nodes * p.output)
  return { flops = flops, util = flops / (flops + 1e9) }
end
local quiet = { quiet = true, progress = false }
timeit("sweep, cheap fn, serial (jobs=1)", n, "configs", function()
  dlb.sweep(space, cheap, { jobs = 1, quiet = true, progress = false })
end)
timeit("sweep, cheap fn, 2 worker processes (jobs=2)", n, "configs", function()
  dlb.sweep(space, cheap, { jobs = 2, quiet = true, progress = false })
end)
local function busy(p)
  local s = 0
  for i = 1, 200000 do s = s + (i % p.layers) end
  return { s = s }
end
local small = { layers = dlb.range(4, 128, "x2"), nodes = dlb.range(32, 8192, "x2"), batch = { 64, 128, 256, 512 } }
local ns = 6 * 9 * 4
local t1 = timeit("sweep, ~200k-iteration fn, serial", ns, "configs", function()
  dlb.sweep(small, busy, { jobs = 1, quiet = true, progress = false })
end)
local t2 = timeit("sweep, ~200k-iteration fn, jobs=2", ns, "configs", function()
  dlb.sweep(small, busy, { jobs = 2, quiet = true, progress = false })
end)
print(string.format("%-52s %10.2fx", "  speedup with 2 workers", t1 / t2))
local tmp = os.tmpname()
os.remove(tmp)
timeit("sweep, cheap fn, serial, checkpoint (append per row)", n, "configs", function()
  os.remove(tmp)
  dlb.sweep(space, cheap, { jobs = 1, quiet = true, progress = false, checkpoint = tmp })
end)
os.remove(tmp)

-- tables and statistics on the 9720-row table
local t = dlb.sweep(space, cheap, quiet)
timeit("table:group_by(batch) mean+p91 of util", n, "rows", function()
  t:group_by("batch", { util = "mean", p91 = { "percentile", "util", 91 } })
end)
timeit("table:pivot(nodes, batch, util, max)", n, "rows", function()
  t:pivot("nodes", "batch", "util", "max")
end)
local csv = os.tmpname()
timeit("table:to_csv", n, "rows", function() assert(t:to_csv(csv)) end)
timeit("dlb.read_csv", n, "rows", function() dlb.read_csv(csv) end)
os.remove(csv)
timeit("stats.regress 5 inputs (log), 9720 rows", n, "rows", function()
  dlb.stats.regress(t, { "layers", "nodes", "input", "output", "batch" }, "util", { log = true })
end)
timeit("stats.regress 5 inputs + 10 interactions", n, "rows", function()
  dlb.stats.regress(t, { "layers", "nodes", "input", "output", "batch" }, "util", { log = true, interactions = true })
end)
local u = t:column("util")
timeit("stats.percentile(91) of 9720 values", n, "values", function() dlb.stats.percentile(u, 91) end)

-- the full FC family (seeds/004 Table 2, 9720 models) through the zoo's
-- dlb.models.paradnn.fc, the training-step analysis and the per-op roofline on Table 3's
-- three platforms (TPU v2 board mixed bf16, V100 mixed fp16, Skylake fp32): the same
-- dlb.paradnn.sweep the notebook runs (graphs reused across the 9 batch sizes of a model).
-- CPU seconds: the parent's own, and its workers' (reaped children), per run; on a shared
-- machine the wall time says how much of the 2 cores we got, the CPU what the work costs.
local cpu = dlb.core.proc_cputime
for _, jobs in ipairs { 1, 2 } do
  local best, r, pc, wc = math.huge, nil, 0, 0
  for _ = 1, 2 do
    local t0, c0, k0 = now(), cpu(), cpu(true)
    r = dlb.paradnn.sweep("fc", { jobs = jobs, quiet = true, progress = false })
    local el = now() - t0
    if el < best then best, pc, wc = el, cpu() - c0, cpu(true) - k0 end
  end
  print(string.format("%-52s %10.0f configs/s  (%.2f s for %d models x 3 devices, jobs=%d, %d failed)",
    "ParaDnn FC family: zoo + graph + roofline", r:count() / best, best, r:count(), jobs, r:failures():count()))
  print(string.format("%-52s %10.2f s CPU  (parent %.2f s, workers %.2f s)", "  CPU", pc + wc, pc, wc))
end
