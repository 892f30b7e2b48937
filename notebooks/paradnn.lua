-- paradnn.lua — ParaDnn's methodology (Wang, Wei, Brooks, seeds/004) on predictions:
-- sweep the FC, CNN and RNN families over Table 2's ranges, cost every model through its
-- compute graph and the roofline of three platforms (Table 3: TPU v2 board, V100 GPU,
-- Skylake CPU), then the paper's analyses: FLOPS-utilization heat maps and regression
-- weights (Fig. 2, §4.1), examples/s heat maps with out-of-memory cells (Fig. 7), TPU over
-- GPU speedups (Fig. 8), box plots of utilization (Fig. 11, 2/9/50/91/98 percentiles)
-- and a roofline of the FC models (§4.2).
--   dlbench run notebooks/paradnn.lua [outdir]        (default out/; ~20k models)
-- Measured results (a CSV of examples/s from a real GPU or TPU) go through the same
-- analyses: dlb.read_csv("runs.csv") and the same group_by / pivot / regress calls.
local dlb = require "dlbench"

-- What this notebook needs from other parts of the workbench; say exactly what is missing.
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
local missing = {}
for _, need in ipairs {
  { { "models.paradnn.fc", "models.paradnn.cnn", "models.paradnn.rnn" },
    "the model zoo's ParaDnn families (dlb.models.paradnn.fc/cnn/rnn)" },
  { { "hw.get" }, "the hardware catalogue (dlb.hw.get)" },
  { { "roofline.time" }, "the roofline (dlb.roofline.time)" },
  { { "plot.figure" }, "the figures (dlb.plot.figure)" },
} do
  for _, path in ipairs(need[1]) do
    if not have(path) then missing[#missing + 1] = need[2]; break end
  end
end
if #missing > 0 then
  error("notebooks/paradnn.lua needs " .. table.concat(missing, "; ")
    .. " -- not in this build yet", 0)
end

local outdir = (arg and arg[1]) or "out"
os.execute("mkdir -p '" .. outdir:gsub("'", "'\\''") .. "'")

-- Table 3's platforms as catalogued by dlb.hw; the TPU trains in bfloat16 (§3).
local platforms = {
  { key = "tpu", name = "TPUv2-board", precision = "bf16" },
  { key = "gpu", name = "V100-SXM2-16GB", precision = "fp32" },
  { key = "cpu", name = "Skylake-n1-32", precision = "fp32" },
}
for _, p in ipairs(platforms) do p.hw = dlb.hw.get(p.name) end

-- One family: every Table 2 model through graph -> stats -> roofline on each platform.
local function measure(kind)
  local build = dlb.models.paradnn[kind]
  local t0 = dlb.core.proc_now()
  local t = dlb.sweep(dlb.paradnn.space(kind), function(p)
    local s = build(p):stats()
    local row = { params = s.params, flops = s.flops, bytes = s.bytes, footprint = s.footprint }
    for _, pf in ipairs(platforms) do
      local r = dlb.roofline.time(s, pf.hw, { precision = pf.precision })
      row["util_" .. pf.key] = r.util
      row["time_" .. pf.key] = r.time
      row["fits_" .. pf.key] = r.fits
      row["flops_" .. pf.key] = r.attainable
      row["ai_" .. pf.key] = r.intensity        -- FLOP/byte at the platform's precision
      if r.fits then row["eps_" .. pf.key] = p.batch / r.time end -- examples/s
    end
    return row
  end, { order = dlb.paradnn.order(kind), label = "paradnn " .. kind })
  print(string.format("%s: %d models in %.1f s (%d failed)", kind, t:count(),
    dlb.core.proc_now() - t0, t:failures():count()))
  assert(t:to_csv(outdir .. "/paradnn_" .. kind .. ".csv"))
  return t:ok()
end

local fams = { fc = measure("fc"), cnn = measure("cnn"), rnn = measure("rnn") }
local width = { fc = "nodes", cnn = "filters", rnn = "embed" }

local function save(f, name)
  local ok, err = f:save(outdir .. "/" .. name)
  print(ok and ("wrote " .. outdir .. "/" .. name) or ("could not write " .. name .. ": " .. err))
end

-- Fig. 2(a)-(c): FLOPS utilization on the TPU over width x batch, the other
-- hyperparameters fixed (the smallest depth and data sizes of Table 2).
local fixed = {
  fc = { layers = 64, input = 2000, output = 200 },
  cnn = { blocks = 1, image = 200, output = 500 },
  rnn = { layers = 1, length = 10, vocab = 2 },
}
local heat = dlb.plot.figure { width = 7, height = 2.4, cols = 3 }
for i, kind in ipairs { "fc", "cnn", "rnn" } do
  local xs, ys, z = fams[kind]:where(fixed[kind]):pivot(width[kind], "batch", "util_tpu")
  local ax = heat:panel(1, i)
  ax:heatmap { x = xs, y = ys, z = z, colorbar = true }
  ax.title = kind:upper() .. " FLOPS utilization, TPU"
  ax.xlabel, ax.ylabel = width[kind], "batch"
end
save(heat, "paradnn_fig2_heatmaps.png")

-- Fig. 2(d)-(f): the regression weights of utilization on the five hyperparameters,
-- inputs normalised (z-scores) so the weights compare and keep their signs (§4.1).
local bars = dlb.plot.figure { width = 7, height = 2.2, cols = 3 }
for i, kind in ipairs { "fc", "cnn", "rnn" } do
  print(("\n%s utilization on the TPU, regression weights (Fig. 2):"):format(kind:upper()))
  local ok, reg = pcall(dlb.stats.regress, fams[kind], dlb.paradnn.order(kind), "util_tpu")
  local ax = bars:panel(1, i)
  if ok then
    print(reg)
    local vals = {}
    for j, n in ipairs(reg.terms) do vals[j] = reg.weights[n] end
    ax:bar { labels = reg.terms, values = vals }
    ax.title = kind:upper() .. " LR weights (r2 " .. string.format("%.2f", reg.r2) .. ")"
  else
    print("  no regression: " .. tostring(reg)) -- e.g. every model at the same utilization
    ax.title = kind:upper() .. ": no regression"
  end
end
save(bars, "paradnn_fig2_weights.png")

-- Fig. 7: FC examples/s over nodes x batch with 64 layers, one map per platform; white
-- cells (NaN) are models that do not fit in the device's memory.
local fc64 = fams.fc:where { layers = 64, input = 2000, output = 200 }
local eps = dlb.plot.figure { width = 7, height = 2.4, cols = 3 }
for i, pf in ipairs(platforms) do
  local xs, ys, z = fc64:pivot("nodes", "batch", "eps_" .. pf.key)
  local ax = eps:panel(1, i)
  ax:heatmap { x = xs, y = ys, z = z, colorbar = true }
  ax.title = "FC examples/s, " .. pf.name
  ax.xlabel, ax.ylabel = "nodes", "batch"
end
save(eps, "paradnn_fig7_examples_per_s.png")

-- Fig. 8: TPU over GPU speedup of the FC models that fit on both.
local both = fams.fc:where(function(r) return r.eps_tpu and r.eps_gpu end)
  :with("speedup", function(r) return r.eps_tpu / r.eps_gpu end)
local sreg = dlb.stats.regress(both, dlb.paradnn.order("fc"), "speedup")
print("\nFC TPU/GPU speedup, regression weights (Fig. 8(a)):")
print(sreg)
local faster = both:where(function(r) return r.speedup > 1 end):count()
print(string.format("%.0f%% of the FC models that fit on both run faster on the TPU "
  .. "(the paper measured 62%%)", 100 * faster / both:count()))
local sc = dlb.plot.figure { width = 3.3, height = 2.4 }
local logb = {}
for i, b in ipairs(both:column("batch")) do logb[i] = math.log(b) / math.log(2) end
sc:scatter { x = both:column("params"), y = both:column("speedup"), c = logb, colorbar = true }
sc.xscale, sc.yscale = "log", "log"
sc.xlabel, sc.ylabel, sc.title = "parameters", "TPU / GPU speedup", "FC, colour: log2 batch"
save(sc, "paradnn_fig8_speedup.png")

-- Fig. 11: utilization of every family on every platform as box plots (box 9-91,
-- whiskers 2-98 percentiles).
local data, labels = {}, {}
for _, kind in ipairs { "fc", "cnn", "rnn" } do
  for _, pf in ipairs(platforms) do
    local u = fams[kind]:column("util_" .. pf.key)
    data[#data + 1] = u
    labels[#labels + 1] = kind:upper() .. " " .. pf.key
    local b = dlb.stats.box(u)
    print(string.format("%-4s %-4s utilization: p2 %.3f  p9 %.3f  median %.3f  p91 %.3f  p98 %.3f",
      kind, pf.key, b.whisker_lo, b.q_lo, b.median, b.q_hi, b.whisker_hi))
  end
end
local box = dlb.plot.figure { width = 7, height = 2.4 }
box:boxplot { data = data, labels = labels }
box.ylabel, box.title = "FLOPS utilization", "ParaDnn utilization (Fig. 11 style)"
save(box, "paradnn_fig11_boxplots.png")

-- §4.2: the FC models on the TPU's roofline (bfloat16 peak).
local pts = {}
for _, r in fams.fc:rows() do
  pts[#pts + 1] = { intensity = r.ai_tpu, flops = r.flops_tpu }
end
local roof = dlb.plot.figure { width = 3.3, height = 2.4 }
roof:roofline { hw = { platforms[1].hw }, points = pts, precision = "bf16" }
roof.title = "ParaDnn FC on TPU v2 (roofline)"
save(roof, "paradnn_roofline_fc.png")
