-- bench_sweep.lua — throughput of dlb.sweep (configs/s) serial and in 2 worker processes
-- on a cheap fn, table operations and the statistics on a ParaDnn-sized table, and (once
-- the model zoo and the roofline exist) ParaDnn's full FC family (seeds/004 Table 2,
-- 9720 models) through graph + roofline on three devices.
-- Run: build/bin/dlbench run tests/bench/bench_sweep.lua   (figures go in BENCHMARKS.md)
local dlb = require "dlbench"
local now = dlb.core.proc_now

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

print(string.format("dlbench %s, backend %s, %d cores", dlb.version(), dlb.backend, dlb.core.proc_cores()))

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

-- the full FC family through graph + roofline on three devices (ParaDnn Table 3's TPU v2
-- board, V100 and Skylake). The zoo's dlb.models.paradnn.fc when it exists; until then
-- the same structure built here with dlb.graph (layers x (matmul + relu), a matmul to the
-- outputs, softmax cross-entropy; no biases).
local function have(path)
  local ok, v = pcall(function()
    local x = dlb
    for part in path:gmatch("[^%.]+") do
      if type(x) ~= "table" then return nil end
      x = x[part]
    end
    return x
  end)
  return ok and v ~= nil
end
local build, how
if have("models.paradnn.fc") then
  build, how = function(p) return dlb.models.paradnn.fc(p):stats() end, "dlb.models.paradnn.fc"
elseif have("graph") then
  how = "an FC graph built with dlb.graph"
  build = function(p)
    local g = dlb.graph("paradnn_fc")
    local h, prev = g:input("x", { "b", p.input }), p.input
    for i = 1, p.layers do
      h = g:relu(g:matmul(h, g:weight("w" .. i, { prev, p.nodes })))
      prev = p.nodes
    end
    local y = g:matmul(h, g:weight("wo", { prev, p.output }))
    g:loss(g:softmax_xent(y, g:input("labels", { "b" }, "int32")))
    return g:stats { b = p.batch }
  end
end
if not build or not have("hw.get") or not have("roofline.time") then
  print("skipped: the FC family through graph + roofline needs dlb.graph (or "
    .. "dlb.models.paradnn.fc), dlb.hw.get and dlb.roofline.time (not in this build)")
else
  local devs = {}
  for _, name in ipairs { "TPUv2-board", "V100-SXM2-16GB", "Skylake-n1-32" } do
    devs[#devs + 1] = { dlb.hw.get(name), name:find("TPU") and "bf16" or "fp32" }
  end
  local fcfn = function(p)
    local s = build(p)
    local out = { flops = s.flops }
    for i, d in ipairs(devs) do
      local r = dlb.roofline.time(s, d[1], { precision = d[2] })
      out["util" .. i], out["fits" .. i] = r.util, r.fits
    end
    return out
  end
  for _, jobs in ipairs { 1, 2 } do
    local t0 = now()
    local r = dlb.sweep(space, fcfn, { jobs = jobs, quiet = true, progress = false })
    print(string.format("%-52s %10.2f s  (%d models x %d devices, jobs=%d, %d failed; %s)",
      "ParaDnn FC family through graph + roofline", now() - t0, r:count(), #devs, jobs,
      r:failures():count(), how))
  end
end
