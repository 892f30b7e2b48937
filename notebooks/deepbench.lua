-- deepbench.lua — Baidu DeepBench's kernel lists (GEMM, convolution, RNN, all-reduce;
-- notebooks/data/deepbench/, from DeepBench's code/kernels/*_problems.h) through the
-- roofline of catalogue devices: one paper-style figure per kernel family, in the manner
-- of DeepBench's results pages (achieved TFLOP/s per kernel, all-reduce time per size).
-- Everything printed is PREDICTED by the roofline (80% of peak FLOP/s, 70% of bandwidth),
-- not measured.
--   dlbench run notebooks/deepbench.lua [outdir]     (default out/; about a second)
-- Kernel cost models (counts: a multiply-accumulate is 2 FLOPs):
--   GEMM  dlb.roofline.gemm(m, n, k): 2mnk FLOPs, A, B read and C written once (fp32);
--   conv  the forward convolution as a one-op graph (g:conv2d with DeepBench's padding and
--         strides), its op costs from the graph engine;
--   RNN   DeepBench's forward pass of one layer: per time step one GEMM of [batch, 2h] x
--         [2h, gates x h] (vanilla 1 gate, GRU 3, LSTM 4) timed at its roofline, the weights
--         re-read every step (no persistent kernels);
--   all-reduce  dlb.parallel.allreduce, ring, of the float counts over 2-32 GPUs: NVLink
--         inside a node of 8, 100 Gb/s InfiniBand between nodes (V100's catalogue links).
local dlb = require "dlbench"
-- this notebook reproduces numbers counted before framework profiles (issue [18]): it pins
-- "no profile", so its time models run on the graph as built, as the paper's did
dlb.frameworks.default("none")
local R = dlb.roofline

local nb = require "dlbench.notebook"
local outdir = nb.outdir(arg)
local SHORT = "predicted (roofline), not measured"
local function here()
  local src = debug.getinfo(1, "S").source
  return (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
end
local DATA = here() .. "/data/deepbench/"

local DEVICES = { dlb.hw.get("Quadro-P4000"), dlb.hw.get("V100-SXM2-16GB"), dlb.hw.get("A100-SXM4-80GB"),
                  dlb.hw.get("H100-SXM") }
-- The measured host (branch `measure`, dlb.measure.host): add it with this one line.
if os.getenv("DLB_DEEPBENCH_HOST") then
  if not dlb.measure then
    error("deepbench.lua: DLB_DEEPBENCH_HOST is set but this dlbench has no dlb.measure (the measured host "
      .. "comes with branch `measure`); unset it to run on the catalogue devices", 0)
  end
  DEVICES[#DEVICES + 1] = dlb.measure.host {}
end

local function save(f, name) return nb.save(f, outdir, name) end
local function training(t) return t:where { set = "training_set" } end
local results = { devices = {} }
for i, d in ipairs(DEVICES) do results.devices[i] = d.name end

-- Summaries per device: median and max achieved TFLOP/s, share of compute-bound kernels.
local function summary(name, per_dev)
  print(string.format("  %-16s %8s %10s %8s %14s", "device", "kernels", "median TF", "max TF", "compute-bound"))
  for _, d in ipairs(DEVICES) do
    local rs = per_dev[d.name]
    local tf, cb = {}, 0
    for i, r in ipairs(rs) do tf[i] = r.tflops; if r.bound == "compute" then cb = cb + 1 end end
    local med = dlb.stats.percentile(tf, 50)
    local mx = 0
    for _, v in ipairs(tf) do mx = math.max(mx, v) end
    print(string.format("  %-16s %8d %10.2f %8.2f %13.0f%%", d.name, #rs, med, mx, 100 * cb / #rs))
    results[name] = results[name] or {}
    results[name][d.name] = { median = med, max = mx, compute_bound = cb / #rs, n = #rs }
  end
end

-- One figure per family: achieved TFLOP/s per kernel (sorted by FLOPs), one line per device.
local function family_figure(title, per_dev, file, xlabel)
  local f = dlb.plot.figure { width = 7, height = 3.2, title = title .. ", " .. SHORT }
  for _, d in ipairs(DEVICES) do
    local rs = per_dev[d.name]
    local xs, ys = {}, {}
    for i, r in ipairs(rs) do xs[i], ys[i] = i, r.tflops end
    f:scatter { x = xs, y = ys, label = d.name, size = 3 }
  end
  f.yscale = "log"
  f.xlabel = xlabel
  f.ylabel = "achieved TFLOP/s (fp32)"
  f.legend = "outside"
  save(f, file)
end

local function sorted_by_flops(rows)
  table.sort(rows, function(a, b)
    if a.flops ~= b.flops then return a.flops < b.flops end
    return a.key < b.key
  end)
  return rows
end

print(string.format("== Kernels at %.0f%% of peak FLOP/s and %.0f%% of memory bandwidth (ASSUMED: the catalogue's default "
  .. "achievable fractions, not fitted to DeepBench's results); DeepBench's lists from notebooks/data/deepbench/README.md",
  100 * DEVICES[1].flops_eff, 100 * DEVICES[1].bw_eff))
------------------------------------------------------------------------------------------
print("\n== DeepBench GEMM (training set), fp32 (" .. SHORT .. ")")
local gemm = training(dlb.read_csv(DATA .. "gemm.csv"))
local gper = {}
for _, d in ipairs(DEVICES) do
  local rs = {}
  for _, r in gemm:rows() do
    local c = R.gemm(r.m, r.n, r.k)
    local t = R.time(c, d)
    rs[#rs + 1] = { key = string.format("%d/%d/%d", r.m, r.n, r.k), flops = c.flops, time = t.time,
      tflops = c.flops / t.time / 1e12, bound = t.bound, intensity = c.flops / c.bytes }
  end
  gper[d.name] = sorted_by_flops(rs)
end
summary("gemm", gper)
do
  local f = dlb.plot.figure { width = 6, height = 3.6, title = "DeepBench GEMM (training set) on the roofline, " .. SHORT }
  local pts = {}
  for _, r in ipairs(gper[DEVICES[2].name]) do
    pts[#pts + 1] = { intensity = r.intensity, flops = r.tflops * 1e12, group = "GEMM kernels" }
  end
  f:roofline { hw = DEVICES, points = pts, precision = "fp32" }
  f.legend = "outside"
  save(f, "deepbench_gemm_roofline.png")
end
family_figure("DeepBench GEMM (training set)", gper, "deepbench_gemm.png", "kernel (sorted by FLOPs)")

------------------------------------------------------------------------------------------
print("\n== DeepBench convolution (training set), forward, fp32 (" .. SHORT .. ")")
local conv = training(dlb.read_csv(DATA .. "conv.csv"))
local costs = {}
for _, r in conv:rows() do
  local g = dlb.graph("conv")
  local x = g:input("x", { r.n, r.c, r.h, r.w })
  local w = g:weight("w", { r.k, r.c, r.r, r.s })
  g:conv2d(x, w, { padding = { r.pad_h, r.pad_w }, stride = { r.stride_h, r.stride_w } })
  local s = g:stats { inference = true }
  costs[#costs + 1] = { key = string.format("%dx%dx%dx%d k%d %dx%d", r.w, r.h, r.c, r.n, r.k, r.s, r.r), stats = s }
end
local cper = {}
for _, d in ipairs(DEVICES) do
  local rs = {}
  for _, c in ipairs(costs) do
    local t = R.time(c.stats, d)
    rs[#rs + 1] = { key = c.key, flops = c.stats.flops, time = t.time, tflops = c.stats.flops / t.time / 1e12,
      bound = t.bound }
  end
  cper[d.name] = sorted_by_flops(rs)
end
summary("conv", cper)
family_figure("DeepBench convolution, forward (training set)", cper, "deepbench_conv.png", "kernel (sorted by FLOPs)")

------------------------------------------------------------------------------------------
print("\n== DeepBench RNN (training set), forward of one layer, fp32 (" .. SHORT .. ")")
local rnn = training(dlb.read_csv(DATA .. "rnn.csv"))
local GATES = { vanilla = 1, gru = 3, lstm = 4 }
local rper = {}
for _, d in ipairs(DEVICES) do
  local rs = {}
  for _, r in rnn:rows() do
    local gates = GATES[r.cell] or error("deepbench rnn.csv: unknown cell '" .. tostring(r.cell) .. "'")
    local c = R.gemm(r.batch, gates * r.hidden, 2 * r.hidden)
    local t = R.time(c, d)
    local flops = c.flops * r.timesteps
    rs[#rs + 1] = { key = string.format("%s h%d b%d t%d", r.cell, r.hidden, r.batch, r.timesteps), flops = flops,
      time = t.time * r.timesteps, tflops = flops / (t.time * r.timesteps) / 1e12, bound = t.bound }
  end
  rper[d.name] = sorted_by_flops(rs)
end
summary("rnn", rper)
family_figure("DeepBench RNN, forward (training set)", rper, "deepbench_rnn.png", "kernel (sorted by FLOPs)")

------------------------------------------------------------------------------------------
local SHORT_AR = "predicted (ring latency-bandwidth model), not measured"
print("\n== DeepBench all-reduce (training set), ring, V100 links (" .. SHORT_AR .. ")")
local ar = training(dlb.read_csv(DATA .. "allreduce.csv"))
local v = dlb.hw.get("V100-SXM2-16GB")
local RANKS = { 2, 4, 8, 16, 32 }
local sizes = ar:column("floats")
table.sort(sizes)
results.allreduce = {}
print(string.format("  %12s %s", "floats", table.concat((function()
  local h = {}
  for i, n in ipairs(RANKS) do h[i] = string.format("%9s", n .. " GPUs") end
  return h
end)(), " ")))
local arf = dlb.plot.figure { width = 5.5, height = 3.4, title = "DeepBench all-reduce (ring), " .. SHORT_AR }
for _, n in ipairs(RANKS) do
  local ys = {}
  for i, fl in ipairs(sizes) do
    local cl = dlb.parallel.cluster { per_node = math.min(8, n), nodes = math.max(1, math.ceil(n / 8)), hw = v }
    ys[i] = dlb.parallel.allreduce { bytes = 4 * fl, n = n, cluster = cl } * 1e3
  end
  results.allreduce[n] = ys
  arf:line { x = sizes, y = ys, label = n .. " GPUs", marker = "circle" }
end
for i, fl in ipairs(sizes) do
  local cells = {}
  for j, n in ipairs(RANKS) do cells[j] = string.format("%8.3f", results.allreduce[n][i]) end
  print(string.format("  %12d %s ms", fl, table.concat(cells, "  ")))
end
arf.xscale, arf.yscale = "log", "log"
arf.xlabel, arf.ylabel = "floats reduced", "time (ms)"
arf.legend = "upper left"
save(arf, "deepbench_allreduce.png")
print("  Beyond one node of 8 the ring crosses 100 Gb/s InfiniBand (12.5 GB/s) instead of NVLink: the 16- and")
print("  32-GPU lines jump; the smallest sizes are latency-bound (2 (n-1) steps).")

return results
