-- hestness_parallel.lua — parallel training studies from the seeds:
--   1. Hestness et al. 2019 Table 5: the word LM at projected scale, from one accelerator to
--      data parallelism, layer parallelism and a sharded embedding, beside the paper;
--   2. Hestness Fig. 12: epoch days and utilisation versus data-parallel workers;
--   3. TBD (Zhu et al.) observation 12: 1 Gb/s Ethernet versus 100 Gb/s InfiniBand;
--   4. a 3-D plan search for GPT-3 175B from the model zoo's graph on 4096 A100s and the time
--      breakdown of its fastest layouts.
-- Every figure shows model predictions (lines/bars); points mark the paper's numbers.
--   dlbench run notebooks/hestness_parallel.lua [outdir]   (default out/; CSV files and, when
--                                                          dlb.plot exists, figures)
local dlb = require "dlbench"
local outdir = require("dlbench.notebook").outdir(arg)   -- arg[1] or "out", created
-- this notebook reproduces numbers counted before framework profiles (issue [18]): it pins
-- "no profile", so its time models run on the graph as built, as the paper's did
dlb.frameworks.default("none")
local P = dlb.parallel

-- A device from the dlb.hw catalogue when that module is present, else the given numbers.
local function catalog(name, fallback)
  local ok, d = pcall(function() return dlb.hw and dlb.hw.get(name) end)
  if ok and type(d) == "table" then return d end
  return fallback
end

local function fmt(x, d) return string.format("%." .. (d or 1) .. "f", x) end

------------------------------------------------------------------------------------------
-- 1. Table 5 (the calibrated per-layer model lives in lua/dlbench/parallel_hestness.lua;
-- read its header for what is calibrated and what is predicted)
local H = require "dlbench.parallel_hestness"
local target = catalog("Hestness-T4", H.target)
local rows5, model = H.table5 { device = target, m = 8, latency = 5e-6 }
local layers, work, cached = model.layers, model.work, model.cached
local alpha_fit = H.alpha_fit()
local function dp_row(dev, n, lat) return H.dp_row(model, dev, n, lat) end
local function layer_row(m, shard, lat, dev) return H.layer_row(model, m, shard, lat, dev) end
local M_MICRO = 8

local function mems(x)
  if type(x) ~= "table" then return fmt(x / 1e9) end
  local t = {}
  for i, b in ipairs(x) do t[i] = fmt(b / 1e9, 0) end
  return "{" .. table.concat(t, ", ") .. "}"
end
print("== Hestness et al. 2019, Table 5: word LM to target accuracy (dlbench vs paper)")
print(string.format("model: %.2fB parameters (%.1fB embedding), %.3g FLOPs/step at subbatch 128, "
  .. "%.1f words/sample", model.params / 1e9, layers[1].params / 1e9, model.step_flops, model.q))
print(string.format("%-37s %6s %7s %-24s %-18s %12s %7s %10s %6s", "stage", "accel", "batch",
  "mem GB (ours)", "mem GB (paper)", "days", "paper", "MFU", "paper"))
local function line(name, acc, batch, mem, pmem, days, pdays, util, putil, cal)
  cal = cal or {}
  print(string.format("%-37s %6d %7d %-24s %-18s %12s %7s %10s %5s%%", name, acc, batch,
    mem .. (cal.mem and " (cal)" or ""), pmem, fmt(days) .. (cal.days and " (cal)" or ""), tostring(pdays),
    fmt(100 * util) .. "%" .. (cal.util and " (cal)" or ""), fmt(putil)))
end
print("(cal) marks a calibrated input: the model was fitted to that cell of the paper, so it is not a")
print("prediction. Every other 'ours' cell is computed. Row 2's device: " .. model.cached_source .. ".")
for i, r in ipairs(rows5) do
  local pdays = i == 2 and "4071*" or r.days_paper
  local name = r.stage
  if i == 3 or i == 4 then name = name .. ", 5 µs" end
  if i >= 5 then name = name .. ", m=" .. M_MICRO end
  line(name, r.accel, r.batch, mems(r.mem), r.mem_paper, r.days, pdays, r.util,
    100 * r.util_paper, r.calibrated)
  if i == 4 then
    for _, n in ipairs { 1024, 512 } do
      local f = dp_row(model.cached_paper, n, alpha_fit)
      line(string.format("  paper's row 2, alpha fitted %.2f ms", alpha_fit * 1e3), n, 128 * n,
        mems(f.mem), "125.7", f.days, n == 1024 and 6.2 or 11.1, f.util, n == 1024 and 34 or 38,
        { days = true, util = true, mem = true })
    end
  end
end
local base, d1024, d512 = rows5[1].result, rows5[3].result, rows5[4].result
local lp, sh = rows5[5].result, rows5[6].result
local DAY = H.DAY
print("  micro-batches: days/epoch and MFU (model FLOPs utilisation) of the layer-parallel row (GPipe):")
for _, m in ipairs { 1, 2, 4, 8, 16, 32, 128 } do
  local r = layer_row(m, true)
  print(string.format("    m=%-4d %6s days %6s%%  bubble %4s%% of the step", m,
    fmt(r.epoch / DAY), fmt(100 * r.util), fmt(100 * r.bubble / r.step)))
end
local lpf = layer_row(M_MICRO, true, alpha_fit, model.cached_paper)
local out_share = layers[4].params / model.dense
print("Gaps larger than ~10%, explained:")
print(" * Table 5 lists 4071 days for the cache-aware baseline, but sec. 6.1 says 4671 days and 46%")
print("   utilisation, and sec. 6.2 needs 4671/7 = 667x; 80% x 2707/4671 = 46% agrees: 4071 is a typo.")
print(string.format(" * Row 2 is ours: the zoo's word LM with Table 5's shapes, cache-aware and op by op, runs at %.0f%%",
  100 * rows5[2].util))
print(string.format("   of peak (%.0f days), not the paper's 46%% (notebooks/hestness_roofline.lua explains the gap). Rows 3-6",
  rows5[2].days))
print("   run on that computed device, so they are faster than the paper's by about 4671 / " .. fmt(rows5[2].days, 0) .. ".")
do
  local ca = H.cache_aware(target)
  print(string.format("   hestness_roofline.lua prints %.0f days for the same row: there the graph's own step (%.2f s; the",
    77e9 / (ca.shapes.batch * ca.shapes.steps) * ca.cached.time / DAY, ca.cached.time))
  print(string.format("   shapes read off Table 5 give %.0f%% fewer FLOPs than the paper's 9.89 s step implies) over",
    100 * (1 - ca.stats.flops / (9.89 * 0.8 * 15.67e12))))
  print("   77e9 / (128 x 25) steps; here the row keeps the calibrated best case (2707 days) and scales it by")
  print(string.format("   the graph's computed ratio %.2f / %.2f s. Both use the same cache-aware model.", ca.cached.time, ca.best.time))
end
print(string.format(" * Memory: ours is the sum of the calibrated stage footprints (%.1f GB, the paper's %.1f GB",
  base.mem / 1e9, 125.7))
print("   data-parallel rows); the paper's single-accelerator 113.8 GB leaves out ~12 GB it does not")
print("   itemise, so the baseline rows differ by 10%.")
print(string.format(" * The data-parallel rows do not fit: %.1f GB per worker on the %.0f GB target "
  .. "(parallel.data: fits = %s,", d1024.mem / 1e9, target.mem / 1e9, tostring(d1024.fits)))
print(string.format("   %.1f GB short). Hestness sec. 6.2 says the same ('each accelerator would "
  .. "require roughly", d1024.shortfall / 1e9))
print("   126GB'); of the rows above only the sharded layer-parallel one fits (the unsharded first")
print("   stage holds the 60 GB embedding). The data-parallel times assume enough memory.")
print(string.format(" * Data parallelism on a physical link (56 GB/s, 5 µs): %.1f / %.1f days at %.0f%%, against",
  d1024.epoch / DAY, d512.epoch / DAY, 100 * d1024.util))
print(string.format("   6.2 / 11.1 days at 34 / 38%%. The ring's bandwidth term (2 x %.1f GB / 56 GB/s = %.2f s)",
  work.grad_bytes / 1e9, 2 * work.grad_bytes / 56e9))
print("   is the same at 512 and 1024 workers, yet the paper's per-step overhead grows from 3.7 s to")
print("   6.2 s. Only a latency term grows like that: fitting alpha to both rows gives the 'alpha")
print(string.format("   fitted' lines (alpha = %.2f ms per ring step, i.e. software/synchronisation overhead,",
  alpha_fit * 1e3))
print("   not wire latency), which reproduce the paper within a few percent.")
print(string.format(" * Layer parallelism: the paper gives no schedule. Stage times follow the layers' FLOPs (sec. 4.2);"))
print(string.format("   the output layer does %.0f%% of them, so a 4-stage pipeline is at best %.2fx faster than",
  100 * out_share, 1 / out_share))
print(string.format("   one device. GPipe with m = %d micro-batches gives %.1f days at %.1f%% (paper 7.2, 14.5%%);",
  M_MICRO, lp.epoch / DAY, 100 * lp.util))
print(string.format("   with the fitted alpha (on the paper's row 2 device): %.1f days at %.1f%%.", lpf.epoch / DAY, 100 * lpf.util))
print(" * Sharding: water-filling the embedding into the emptier stages gives " .. mems(sh.stage_mem) .. " GB")
print("   against the paper's hand split {32, 31, 31, 32}. Our model all-reduces the embedding's")
print(string.format("   gradient densely, so splitting it also shortens the per-stage allreduce (%.1f -> %.1f days);",
  lp.epoch / DAY, sh.epoch / DAY))
print("   the paper (sparse embedding updates) sees no change.")


------------------------------------------------------------------------------------------
-- 2. Fig. 12: data parallelism at subbatch 128
print()
print("== Hestness Fig. 12: data-parallel workers vs epoch time and utilisation (subbatch 128)")
print(string.format("%8s %12s %8s %14s %8s", "workers", "days/epoch", "util %", "(paper row 2,", "alpha fitted)"))
local fig12 = { workers = {}, days = {}, util = {}, days_fit = {}, util_fit = {} }
local n = 1
while n <= 4096 do
  local r, rf = dp_row(cached, n), dp_row(model.cached_paper, n, alpha_fit)
  print(string.format("%8d %12s %8s %14s %8s", n, fmt(r.epoch / DAY), fmt(100 * r.util),
    fmt(rf.epoch / DAY), fmt(100 * rf.util)))
  local i = #fig12.workers + 1
  fig12.workers[i], fig12.days[i], fig12.util[i] = n, r.epoch / DAY, r.util
  fig12.days_fit[i], fig12.util_fit[i] = rf.epoch / DAY, rf.util
  n = n * 2
end

------------------------------------------------------------------------------------------
-- 3. TBD observation 12: ResNet-50, 4 GPUs per machine (PCIe 3.0, 128 Gb/s), machines on
-- 1 Gb/s Ethernet or 100 Gb/s InfiniBand (TBD sec. IV). Costs from Table 2's ResNet row for
-- 25.6M parameters; Quadro P4000: 5.3 TFLOP/s fp32, 243 GB/s, 8 GB (TBD Table IV).
print()
print("== TBD observation 12: ResNet-50 data parallel, subbatch 32 per GPU (images/s)")
local p4000 = catalog("Quadro-P4000", { name = "Quadro P4000", peak = { fp32 = 5.3e12 },
  mem_bw = 243e9, mem = 8e9 })
local resnet = P.layers.table2_work("resnet", 25.6e6)
local nets = {
  ethernet = P.cluster { per_node = 4, nodes = 8, intra = { bw = 16e9, latency = 5e-6 },
                         inter = { bw = 0.125e9, latency = 50e-6 } },
  infiniband = P.cluster { per_node = 4, nodes = 8, intra = { bw = 16e9, latency = 5e-6 },
                           inter = { bw = 12.5e9, latency = 2e-6 } },
}
-- A flat ring (or TBD's parameter-server frameworks) sends the whole gradient across the
-- slow link; a hierarchical allreduce sends a 1/4 shard per machine.
nets.flat = P.cluster { per_node = 1, nodes = 32, intra = { bw = 16e9, latency = 5e-6 },
                        inter = { bw = 0.125e9, latency = 50e-6 } }
-- collectives = "alpha-beta" (pinned): TBD's frameworks (MXNet, TensorFlow, CNTK, 2018) ran
-- their own parameter-server or allreduce exchanges, not NCCL across machines, and the point
-- here is a flat ring against the hierarchical algorithm above; the default on a catalogue
-- GPU, NCCL's model, would also give each GPU its own NIC, which TBD's machines did not have.
local tbd = { gpus = {}, ethernet = {}, infiniband = {}, flat = {} }
print(string.format("%6s %10s %14s %14s %16s", "GPUs", "machines", "Ether, flat", "Ether, hier.",
  "100 Gb/s IB"))
for _, g in ipairs { 1, 2, 4, 8, 16, 32 } do
  local re = P.data { work = resnet, hw = p4000, workers = g, subbatch = 32,
                      cluster = nets.ethernet, collectives = "alpha-beta" }
  local ri = P.data { work = resnet, hw = p4000, workers = g, subbatch = 32,
                      cluster = nets.infiniband, collectives = "alpha-beta" }
  local rf = P.data { work = resnet, hw = p4000, workers = g, subbatch = 32,
                      cluster = g <= 4 and nets.ethernet or nets.flat, collectives = "alpha-beta" }
  print(string.format("%6d %10d %14s %14s %16s", g, math.max(1, g / 4), fmt(rf.throughput, 0),
    fmt(re.throughput, 0), fmt(ri.throughput, 0)))
  tbd.flat[#tbd.gpus + 1] = rf.throughput
  local i = #tbd.gpus + 1
  tbd.gpus[i], tbd.ethernet[i], tbd.infiniband[i] = g, re.throughput, ri.throughput
  tbd.comm_e = tbd.comm_e or {}
  tbd.comm_e[i], tbd.compute = re.exposed, re.compute
end
print(string.format("  One machine scales over PCIe. With a second machine on 1 Gb/s Ethernet a flat ring moves"))
print(string.format("  the whole %.0f MB gradient over the slow link: throughput falls from %.0f to %.0f images/s,",
  resnet.grad_bytes / 1e6, tbd.flat[3], tbd.flat[4]))
print("  TBD's 'performance degrades significantly'. Even a hierarchical allreduce (a quarter of the")
print(string.format("  gradient per machine) spends %.2f s communicating against %.2f s of compute (8 GPUs);",
  tbd.comm_e[4], tbd.compute))
print("  100 Gb/s InfiniBand keeps near-linear scaling.")

------------------------------------------------------------------------------------------
-- 4. Plans for GPT-3 175B (96 layers, d 12288, seq 2048) on 4096 A100s, from the model
-- zoo's graph (per-layer costs read by dlb.parallel.layers.from_graph), beside the closed form
print()
print("== 3-D plans: GPT-3 175B from dlb.models (96 layers, d 12288, seq 2048), 4096 A100s, batch 1536")
local gpt_graph = dlb.models.gpt { size = "gpt3-175b" }
local a100 = dlb.hw.get("A100-SXM4-80GB") -- links: NVLink intra-node, 200 Gb/s inter-node
local cluster = P.cluster { per_node = 8, nodes = 512, hw = a100 }
-- util: MFU with the attention counted whole, as this notebook printed it before issue
-- [18]'s convention (which counts a causal decoder's attention half), for the graph's plans
-- and the closed form's alike (its layers say they are causal since issue [18] item 7)
local plans, evaluated = P.plan { graph = gpt_graph, hw = a100, cluster = cluster, batch = 1536,
  attention_flops = "full" }
local closed = P.plan { layers = P.layers.transformer_formula { layers = 96, d = 12288, seq = 2048,
  heads = 96, vocab = 50257, dropout = false }, hw = a100, precision = "mixed",
  cluster = cluster, batch = 1536, attention_flops = "full" }
local rows = plans -- a dlb.table; rows[i] is its i-th row
print(string.format("%d layouts evaluated, %d fit in 80 GB (closed-form layers: %d fit)",
  evaluated, #rows, #closed))
print(string.format("%4s %4s %4s %4s %-11s %4s %4s %8s %8s %8s %8s %7s %6s", "dp", "tp", "pp",
  "m", "schedule", "rc", "zero", "step s", "compute", "comm", "bubble", "mem GB", "util"))
local function planline(r)
  print(string.format("%4d %4d %4d %4d %-11s %4s %4d %8.2f %8.2f %8.2f %8.2f %7.1f %5.1f%%",
    r.dp, r.tp, r.pp, r.m, r.schedule, r.recompute and "yes" or "no", r.zero, r.step,
    r.compute, r.comm, r.bubble, r.mem / 1e9, 100 * r.util))
end
for i = 1, math.min(10, #rows) do planline(rows[i]) end
print("best plan from the closed-form layers (Narayanan et al. 2021, Korthikanti et al. 2022):")
planline(closed[1])
-- the best plan of each distinct layout (dp x tp x pp) for the breakdown figure
local layouts, seen = {}, {}
for _, r in ipairs(rows) do
  local k = r.dp .. "/" .. r.tp .. "/" .. r.pp
  if not seen[k] then seen[k] = true; layouts[#layouts + 1] = r end
end

------------------------------------------------------------------------------------------
-- The figures' data as CSV in outdir (each file written whole: dlb.table.write_atomic)
local function write_csv(name, header, cols)
  local path = outdir .. "/" .. name
  local lines = { table.concat(header, ",") }
  for i = 1, #cols[1] do
    local row = {}
    for j, c in ipairs(cols) do row[j] = type(c[i]) == "number" and string.format("%.6g", c[i]) or tostring(c[i]) end
    lines[#lines + 1] = table.concat(row, ",")
  end
  local ok, e = dlb.table.write_atomic(path, table.concat(lines, "\n") .. "\n")
  if ok then print("wrote " .. path) else print("could not write " .. path .. ": " .. tostring(e)) end
end
print()
write_csv("hestness_fig12.csv", { "workers", "days", "util", "days_alpha_fit", "util_alpha_fit" },
  { fig12.workers, fig12.days, fig12.util, fig12.days_fit, fig12.util_fit })
write_csv("tbd_obs12.csv", { "gpus", "ethernet_flat_img_s", "ethernet_hier_img_s",
  "infiniband_img_s" }, { tbd.gpus, tbd.flat, tbd.ethernet, tbd.infiniband })
-- every fitting plan, fastest first (dlb.table:to_csv writes the file whole)
do
  local path = outdir .. "/gpt3_plans.csv"
  local okc, err = plans:to_csv(path)
  print(okc and ("wrote " .. path) or ("could not write " .. path .. ": " .. tostring(err)))
end

------------------------------------------------------------------------------------------
-- Figures (when the plot module has landed)
local ok, plot = pcall(function() return dlb.plot end)
if not ok or type(plot) ~= "table" or type(plot.figure) ~= "function" then
  print()
  print("note: dlb.plot is not available in this build; figures skipped (tables above)")
  return
end
local function save(f, name)
  local path = outdir .. "/" .. name
  local okk, err = f:save(path)
  print(okk and ("wrote " .. path) or ("could not write " .. path .. ": " .. tostring(err)))
end
-- Fig. 12: model lines, the paper's Table 5 data-parallel rows as points
local f = plot.figure { width = 7, height = 2.8, cols = 2,
  title = "Hestness Fig. 12, word LM at subbatch 128: model predictions (lines), paper Table 5 (points)" }
local p1, p2 = f:panel(1), f:panel(2)
local xt = { 1, 4, 16, 64, 256, 1024, 4096 }
p1:line { x = fig12.workers, y = fig12.days, label = "model, alpha = 5 µs (wire)" }
p1:line { x = fig12.workers, y = fig12.days_fit, style = "dashed",
  label = string.format("paper's row 2 device, alpha = %.2f ms (fitted)", alpha_fit * 1e3) }
p1:scatter { x = { 512, 1024 }, y = { 11.1, 6.2 }, marker = "square", size = 5, color = "black",
  label = "paper, Table 5" }
p1.xscale, p1.yscale, p1.xticks = "log", "log", xt
p1.xlabel, p1.ylabel = "data-parallel workers", "days per epoch"
p1.legend = "upper right"
p2:line { x = fig12.workers, y = fig12.util, label = "model, alpha = 5 µs" }
p2:line { x = fig12.workers, y = fig12.util_fit, style = "dashed", label = "model, alpha fitted" }
p2:scatter { x = { 512, 1024 }, y = { 0.38, 0.34 }, marker = "square", size = 5, color = "black",
  label = "paper, Table 5" }
p2.xscale, p2.xticks, p2.ylim = "log", xt, { 0, 0.5 }
p2.xlabel, p2.ylabel = "data-parallel workers", "FLOP utilisation"
p2.legend = "lower left"
save(f, "hestness_fig12.png")

-- TBD observation 12
local h = plot.figure { width = 6, height = 3 }
h:span { x = { 1, 4 }, text = "one machine (PCIe)", alpha = 0.12 }
h:line { x = tbd.gpus, y = tbd.infiniband, marker = "circle", label = "100 Gb/s InfiniBand" }
h:line { x = tbd.gpus, y = tbd.ethernet, marker = "square", label = "1 Gb/s Ethernet, hierarchical" }
h:line { x = tbd.gpus, y = tbd.flat, marker = "triangle", label = "1 Gb/s Ethernet, flat ring" }
h.xscale, h.yscale, h.xticks = "log", "log", tbd.gpus
h.xlabel, h.ylabel = "GPUs (4 per machine)", "images/s"
h.title = "TBD obs. 12, ResNet-50 data parallel (model prediction)"
h.legend = "outside"
save(h, "tbd_obs12.png")

-- time breakdown of the best plan of each of the 8 fastest layouts
local SHORT = { gpipe = "gpipe", ["1f1b"] = "1f1b", interleaved = "il" }
local labels, comp, comm, bub = {}, {}, {}, {}
for i = 1, math.min(8, #layouts) do
  local r = layouts[i]
  labels[i] = string.format("%d/%d/%d m%d z%d %s%s", r.dp, r.tp, r.pp, r.m, r.zero,
    SHORT[r.schedule], r.recompute and " rc" or "")
  comp[i], comm[i], bub[i] = r.compute, r.comm, r.bubble
end
local k = plot.figure { width = 7, height = 3.2 }
k:bar { labels = labels, values = { comp, comm, bub }, mode = "stacked",
        stacks = { "compute", "exposed comm", "bubble" } }
k.xlabel = "dp/tp/pp, micro-batches m, ZeRO stage z, schedule (il: interleaved; rc: recompute)"
k.ylabel = "seconds per step"
k.title = "GPT-3 175B on 4096 A100s, batch 1536: fastest layouts (model prediction)"
k.legend = "outside"
save(k, "plan_breakdown.png")
for name, fig in pairs { ["hestness_fig12.png"] = f, ["tbd_obs12.png"] = h, ["plan_breakdown.png"] = k } do
  local clash = fig:layout_check()
  if #clash > 0 then print(string.format("layout: %d overlapping labels in %s", #clash, name)) end
end
