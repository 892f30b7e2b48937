-- gallery.lua — one of each figure type dlb.plot draws, into out/gallery/ (PNG, PDF and
-- SVG), with small PNG copies for the README in out/gallery/readme/ (`./build.sh gallery`
-- runs it and copies those into docs/gallery/).
--   dlbench run notebooks/gallery.lua [outdir]   (default out/; everything in OUTDIR/gallery/)
-- The numbers are illustrative shapes, not measurements (each says where its shape is from).
local dlb = require "dlbench"
-- this notebook reproduces numbers counted before framework profiles (issue [18]): it pins
-- "no profile", so its time models run on the graph as built, as the paper's did
dlb.frameworks.default("none")
local plot = dlb.plot

-- Tests run this file with their own output folder (arg[1]) and a global DLB_GALLERY =
-- {strict=true}: overlapping text an error instead of a message.
local opts = rawget(_G, "DLB_GALLERY") or {}
local nb = require "dlbench.notebook"
local out = nb.outdir { nb.outdir(arg) .. "/gallery" }     -- arg[1] or "out", then gallery/
local docs = nb.outdir { out .. "/readme" }

local made = {}
local function save(f, name, small)
  for _, ext in ipairs { "png", "pdf", "svg" } do
    local ok, err = f:save(out .. "/" .. name .. "." .. ext)
    if not ok then error(err) end
  end
  local bad = f:layout_check()
  if #bad > 0 then
    local msg = "gallery: " .. name .. ": overlapping text:\n  " .. table.concat(bad, "\n  ")
    if opts.strict then error(msg, 0) end
    io.stderr:write(msg, "\n")
  end
  if small then assert(f:save(docs .. "/" .. name .. ".png", { dpi = 110 })) end
  made[#made + 1] = name
end

-- A deterministic generator, so the gallery is the same on every run and on both backends.
local rand = require("dlbench.notebook").lcg(12345)
local function gauss()
  return math.sqrt(-2 * math.log(rand() + 1e-12)) * math.cos(2 * math.pi * rand())
end

-- 1. Heat map (ParaDnn Fig. 3 style): FC FLOPS utilization over batch size x nodes, the
-- out-of-memory corner hatched.
do
  local batch, nodes, z, mask = {}, {}, {}, {}
  for i = 1, 8 do batch[i] = 2 ^ (i + 5) end        -- 64 .. 8192
  for j = 1, 7 do nodes[j] = 2 ^ (j + 4) end        -- 32 .. 2048
  for j = 1, 7 do
    z[j], mask[j] = {}, {}
    for i = 1, 8 do
      z[j][i] = 0.62 * (1 - math.exp(-(i + j) / 5)) * (0.85 + 0.15 * math.sin(i * j))
      mask[j][i] = i + j > 13                        -- too big to fit
    end
  end
  local f = plot.figure { width = 3.3, height = 2.6 }
  f:heatmap { x = batch, y = nodes, z = z, mask = mask, mask_style = "hatch",
              mask_label = "out of memory", colorbar_label = "FLOPS utilization",
              cell_labels = true, fmt = "%.2f" }
  f.xlabel, f.ylabel = "Batch size", "Nodes per layer"
  save(f, "heatmap", true)
end

-- 2. Box plots (ParaDnn Fig. 11 style): speedup distributions, whiskers 2/98, box 9/91.
do
  local data, labels = {}, { "FC", "CNN", "RNN", "LSTM" }
  for g = 1, 4 do
    data[g] = {}
    for i = 1, 400 do data[g][i] = math.exp(0.2 * g + 0.5 * gauss()) end
  end
  local f = plot.figure { width = 3.3, height = 2.3 }
  f:boxplot { data = data, labels = labels }
  f:hline { y = 1, label = "no speedup" }
  f.ylabel = "Speedup over GPU"
  f.yscale = "log"
  save(f, "boxplot", true)
end

-- 3. Roofline (ParaDnn Fig. 6 style): two devices, points coloured by model family.
do
  local tpu = { name = "TPU v2", peak = { fp32 = 180e12 }, mem_bw = 2400e9 }
  local gpu = { name = "V100", peak = { fp32 = 15.7e12 }, mem_bw = 900e9, flops_eff = 0.8,
                bw_eff = 0.7 }
  local pts = {}
  for i = 1, 60 do
    local fam = ({ "FC", "CNN", "RNN" })[i % 3 + 1]
    local I = 10 ^ (0.2 + 2.6 * rand())
    local roof = math.min(180e12, I * 2400e9)
    pts[i] = { intensity = I, flops = roof * (0.15 + 0.7 * rand()), group = fam }
  end
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:roofline { hw = { tpu, gpu }, points = pts }
  f.legend = "outside"
  f.ylabel = "FLOP/s"
  save(f, "roofline", true)
end

-- 4. Stacked bars (TBD Fig. 8 style): memory breakdown per model, in GB.
do
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:bar { labels = { "ResNet-50", "Inception", "Seq2Seq", "Transformer", "WGAN" },
          values = { { 0.10, 0.09, 0.35, 0.40, 0.05 },   -- weights
                     { 0.10, 0.09, 0.35, 0.40, 0.05 },   -- weight gradients
                     { 4.9, 5.6, 1.9, 2.6, 0.9 },        -- feature maps
                     { 0.6, 0.8, 0.3, 0.2, 0.4 } },      -- workspace
          stacks = { "weights", "gradients", "feature maps", "workspace" } }
  f.ylabel = "Memory (GB)"
  save(f, "bars_stacked", true)
end

-- 5. Signed bars (ParaDnn Fig. 2d-f style): normalized regression weights.
do
  local f = plot.figure { width = 3.3, height = 2.0 }
  f:bar { labels = { "layers", "nodes", "batch", "input", "output" },
          values = { -0.21, 0.55, 0.83, -0.05, 0.12 }, color = "C1" }
  f.ylabel = "Normalized weight"
  f.grid = true
  save(f, "bars_signed", false)
end

-- 6. Learning curve with a confidence band and regions on log-log axes (Hestness Fig. 1
-- style: small-data, power-law and irreducible-error regions).
do
  local x, y, lo, hi, xs, ys = {}, {}, {}, {}, {}, {}
  for i = 1, 30 do
    x[i] = 10 ^ (5 + 4 * (i - 1) / 29)
    y[i] = 12 * x[i] ^ -0.066
    lo[i], hi[i] = y[i] * 0.96, y[i] * 1.04
  end
  for i = 1, 12 do
    xs[i] = 10 ^ (5 + 3 * (i - 1) / 11)
    ys[i] = 12 * xs[i] ^ -0.066 * (1 + 0.02 * gauss())
  end
  local f = plot.figure { width = 3.3, height = 2.4 }
  f:span { x = { 1e5, 4e5 }, text = "small data", color = "grey" }
  f:span { x = { 3e8, 1e9 }, text = "irreducible", color = "grey" }
  f:band { x = x, lo = lo, hi = hi, label = "fit ±4%" }
  f:line { x = x, y = y, label = "power law" }
  f:scatter { x = xs, y = ys, label = "measured", color = "C3" }
  f.xscale, f.yscale = "log", "log"
  f.xlabel, f.ylabel = "Training set (words)", "Validation loss"
  save(f, "learning_curve", true)
end

-- 7. Scatter coloured by value with a colour bar, a y = x reference and a note.
do
  local x, y, c = {}, {}, {}
  for i = 1, 300 do
    x[i] = 10 ^ (1 + 3 * rand())
    y[i] = x[i] * 10 ^ (0.3 * gauss())
    c[i] = math.log(x[i], 10)
  end
  local f = plot.figure { width = 3.3, height = 2.5 }
  f:scatter { x = x, y = y, c = c, cmap = "magma", colorbar = true,
              colorbar_label = "log10 params", size = 3 }
  f:diag { label = "y = x" }
  f:text { x = 20, y = 5000, text = "predicted = measured" }
  f.xscale, f.yscale = "log", "log"
  f.xlabel, f.ylabel = "Predicted time (ms)", "Measured time (ms)"
  save(f, "scatter", false)
end

-- 8. Panels with shared axes (double column): throughput vs batch, one panel per GPU.
do
  local f = plot.figure { width = 7, height = 2.2, rows = 1, cols = 3, sharey = true }
  for c, gpu in ipairs { "P4000", "V100", "A100" } do
    local ax = f:panel(1, c)
    for m, model in ipairs { "ResNet-50", "Transformer" } do
      local x, y = {}, {}
      for i = 1, 6 do
        x[i] = 2 ^ (i + 2)
        y[i] = 400 * c * m * (1 - math.exp(-x[i] / 40))
      end
      ax:line { x = x, y = y, label = model, marker = ({ "circle", "square" })[m],
                style = ({ "solid", "dashed" })[m] }
    end
    ax.title, ax.xlabel = gpu, "Batch size"
    ax.xscale = "log"
    ax.xticks = { 8, 16, 32, 64, 128, 256 }                -- the batch sizes measured
    if c == 1 then ax.ylabel = "Samples/s" end
    if c > 1 then ax.legend = "none" end
  end
  save(f, "panels", true)
end

-- 9. Diverging heat map: speedup around 1 over categorical axes.
do
  local models = { "FC", "CNN", "RNN", "LSTM", "GRU" }
  local versions = { "1.7", "1.8", "1.9", "1.10", "1.11", "1.12" }
  local z = {}
  for j = 1, #models do
    z[j] = {}
    for i = 1, #versions do z[j][i] = 0.7 + 0.25 * i * (1 + 0.3 * math.sin(j)) end
  end
  local f = plot.figure { width = 3.3, height = 2.3 }
  f:heatmap { x = versions, y = models, z = z, cmap = "diverging", center = 1,
              cell_labels = true, fmt = "%.1f", colorbar_label = "Speedup" }
  f.xlabel = "TensorFlow version"
  save(f, "heatmap_diverging", false)
end

print(string.format("gallery: %d figures in %s (PNG, PDF, SVG); README copies in %s",
  #made, out, docs))
