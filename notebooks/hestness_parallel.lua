-- hestness_parallel.lua — parallel training studies from the seeds:
--   1. Hestness et al. 2019 Table 5: the word LM at projected scale, from one accelerator to
--      data parallelism, layer parallelism and a sharded embedding, beside the paper;
--   2. Hestness Fig. 12: epoch days and utilisation versus data-parallel workers;
--   3. TBD (Zhu et al.) observation 12: 1 Gb/s Ethernet versus 100 Gb/s InfiniBand;
--   4. a 3-D plan search for a 96-layer transformer and the time breakdown of its best plans.
-- Run: dlbench run notebooks/hestness_parallel.lua   (figures go to out/ when dlb.plot exists)
local dlb = require "dlbench"
local P = dlb.parallel

-- A device from the dlb.hw catalogue when that module is present, else the given numbers.
local function catalog(name, fallback)
  local ok, d = pcall(function() return dlb.hw and dlb.hw.get(name) end)
  if ok and type(d) == "table" then return d end
  return fallback
end

local function fmt(x, d) return string.format("%." .. (d or 1) .. "f", x) end
local DAY = 86400

------------------------------------------------------------------------------------------
-- 1. Table 5
-- The target accelerator (Table 4): 15.67 TFLOP/s fp32, 898 GB/s, 32 GB, 56 GB/s links;
-- achievable 80% of peak FLOPs and 70% of memory bandwidth.
local target = catalog("Hestness-T4", { name = "target", peak = { fp32 = 15.67e12 },
  mem_bw = 898e9, mem = 32e9, flops_eff = 0.8, bw_eff = 0.7 })

-- The paper does not publish the projected-LSTM's dimensions, so the model is calibrated
-- on three figures the paper does give and everything else is predicted:
--   (a) the best-case step of 9.89 s for subbatch 128 at 80% of peak (sec. 6.1) sets the
--       training FLOPs per step: 9.89 x 0.8 x 15.67e12 = 1.240e14;
--   (b) the layer-parallel stage footprints {60, 17, 17, 32} GB (Table 5) set each layer's
--       parameters at 12 bytes/parameter (Table 2's 11.94 B/param for word LMs: weights,
--       gradients and one optimizer slot in fp32), the 59.5 GB embedding (sec. 6.2.2) first;
--   (c) 2707 days per epoch at 9.89 s per step (sec. 6.1) sets the samples per epoch (77B
--       words of Table 3 in sequences of q = 25.4 words).
-- Sec. 4.2 gives the FLOP split between layers: every dense layer does 2q FLOPs per
-- parameter forward and twice that backward; the embedding does none.
local B_PARAM = 12
local step_flops = 9.89 * 0.8 * 15.67e12
local mem_gb = { embedding = 59.5, lstm1 = 17, lstm2 = 17, output = 32 }
local names = { "embedding", "lstm1", "lstm2", "output" }
local dense = (mem_gb.lstm1 + mem_gb.lstm2 + mem_gb.output) * 1e9 / B_PARAM
local layers, params = {}, 0
for i, n in ipairs(names) do
  local p = mem_gb[n] * 1e9 / B_PARAM
  params = params + p
  local f = n == "embedding" and 0 or step_flops / 128 * p / dense  -- per sample, fwd+bwd
  layers[i] = { name = n, params = p, flops_fwd = f / 3, flops_bwd = 2 * f / 3,
                bytes_sample = 0, bytes_fixed = 0, act_out = 25.4 * 2048 * 4, act_kept = 0,
                shardable = n == "embedding" and 1 or 0 }
end
local samples_epoch = 2707 * DAY / 9.89 * 128
local words_per_sample = 77e9 / samples_epoch
local work = { flops_sample = step_flops / 128, grad_bytes = 4 * params,
               mem_fixed = params * B_PARAM, samples_epoch = samples_epoch }

-- The cache-hierarchy-aware baseline (sec. 6.1: re-streamed matmul tiles) drops achievable
-- FLOP utilisation to 46% (4671 days); modelled as the device's achievable fraction
-- 0.8 x 2707 / 4671, since the tiled-matmul model itself belongs to the roofline engine.
local cached = P.device(target, "fp32")
cached.flops_eff = 0.8 * 2707 / 4671

local links = { bw = 56e9, latency = 5e-6 }   -- Table 4's 56 GB/s; 5 us per message (ours)

local function dp_row(dev, n, lat)
  return P.data { work = work, hw = dev, workers = n, subbatch = 128, bw = links.bw,
                  latency = lat or links.latency }
end

-- The paper's DP rows imply a per-step overhead that grows with the worker count (23.2 s
-- at 1024 vs 20.8 s at 512 for a 17.1 s compute step): a ring's bandwidth term cannot do
-- that, its latency term 2(n-1) alpha can. Fit alpha to the two rows (a second variant).
local function fit_alpha()
  local t_c = 9.89 * 4671 / 2707
  local t1024, t512 = t_c * 6.2 / (4671 / 1024), t_c * 11.1 / (4671 / 512)
  return ((t1024 - t512) / (2 * (1023 - 511)))
end
local alpha_fit = fit_alpha()

print("== Hestness et al. 2019, Table 5: word LM to target accuracy (dlbench vs paper)")
print(string.format("model: %.2fB parameters (%.1fB embedding), %.3g FLOPs/step at subbatch 128, "
  .. "%.1f words/sample", params / 1e9, layers[1].params / 1e9, step_flops, words_per_sample))
print(string.format("%-34s %6s %7s %-22s %-18s %8s %7s %6s %6s", "stage", "accel", "batch",
  "mem GB (ours)", "mem GB (paper)", "days", "paper", "util", "paper"))
local function line(name, acc, batch, mem, pmem, days, pdays, util, putil)
  print(string.format("%-34s %6d %7d %-22s %-18s %8s %7s %5s%% %5s%%", name, acc, batch, mem,
    pmem, fmt(days), tostring(pdays), fmt(100 * util), tostring(putil)))
end
local base = dp_row(target, 1)
line("Best-case (roofline) baseline", 1, 128, fmt(base.mem / 1e9), "113.8", base.epoch / DAY,
  2707, base.util, 80)
local cache = dp_row(cached, 1)
line("Cache-hierarchy-aware baseline", 1, 128, fmt(cache.mem / 1e9), "113.8",
  cache.epoch / DAY, "4071*", cache.util, 46)
local d1024 = dp_row(cached, 1024)
line("w/ data parallelism (1), alpha 5us", 1024, 131072, fmt(d1024.mem / 1e9), "125.7",
  d1024.epoch / DAY, 6.2, d1024.util, 34)
local d512 = dp_row(cached, 512)
line("w/ data parallelism (2), alpha 5us", 512, 65536, fmt(d512.mem / 1e9), "125.7",
  d512.epoch / DAY, 11.1, d512.util, 38)
local f1024 = dp_row(cached, 1024, alpha_fit)
line(string.format("  same, alpha fitted %.2f ms", alpha_fit * 1e3), 1024, 131072,
  fmt(f1024.mem / 1e9), "125.7", f1024.epoch / DAY, 6.2, f1024.util, 34)
local f512 = dp_row(cached, 512, alpha_fit)
line(string.format("  same, alpha fitted %.2f ms", alpha_fit * 1e3), 512, 65536,
  fmt(f512.mem / 1e9), "125.7", f512.epoch / DAY, 11.1, f512.util, 38)

-- Layer parallelism: 4 accelerators per data-parallel worker, one layer each, GPipe over
-- m micro-batches of the worker's 128 samples; gradients all-reduced per stage across the
-- 512 replicas (the stage with the most parameters sets the time).
local function layer_row(m, shard, lat)
  local c = { per_node = 4, nodes = 512, intra = { bw = 56e9, latency = lat or 5e-6 },
              inter = { bw = 56e9, latency = lat or 5e-6 } }
  local r = P.pipeline { layers = layers, hw = cached, cluster = c, batch = 65536, dp = 512,
    stages = 4, microbatches = m, schedule = "gpipe", w_bytes = 4, g_bytes = 4, o_bytes = 4,
    shard = shard }
  r.epoch = samples_epoch / r.throughput
  return r
end
local function mems(r)
  local t = {}
  for i, b in ipairs(r.stage_mem) do t[i] = fmt(b / 1e9, 0) end
  return "{" .. table.concat(t, ", ") .. "}"
end
local M_MICRO = 8
local lp = layer_row(M_MICRO, false)
line("+ layer parallelism (4x), m=" .. M_MICRO, 2048, 65536, mems(lp), "{60, 17, 17, 32}",
  lp.epoch / DAY, 7.2, lp.util, 14.5)
local sh = layer_row(M_MICRO, true)
line("+ shard the embedding layer", 2048, 65536, mems(sh), "{32, 31, 31, 32}", sh.epoch / DAY,
  7.2, sh.util, 14.5)
print("  micro-batches: days/epoch and utilisation of the layer-parallel row (GPipe):")
for _, m in ipairs { 1, 2, 4, 8, 16, 32, 128 } do
  local r = layer_row(m, true)
  print(string.format("    m=%-4d %6s days %6s%%  bubble %4s%% of the step", m,
    fmt(r.epoch / DAY), fmt(100 * r.util), fmt(100 * r.bubble / r.step)))
end
local lpf = layer_row(M_MICRO, true, alpha_fit)
local out_share = layers[4].params / dense
print("Gaps larger than ~10%, explained:")
print(" * Table 5 lists 4071 days for the cache-aware baseline, but sec. 6.1 says 4671 days and 46%")
print("   utilisation, and sec. 6.2 needs 4671/7 = 667x; 80% x 2707/4671 = 46% agrees: 4071 is a typo.")
print(string.format(" * Memory: ours is the sum of the calibrated stage footprints (%.1f GB, the paper's %.1f GB",
  base.mem / 1e9, 125.7))
print("   data-parallel rows); the paper's single-accelerator 113.8 GB leaves out ~12 GB it does not")
print("   itemise, so the baseline rows differ by 10%.")
print(string.format(" * Data parallelism on a physical link (56 GB/s, 5 us): %.1f / %.1f days at %.0f%%, against",
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
print(string.format("   with the fitted alpha: %.1f days at %.1f%%.", lpf.epoch / DAY, 100 * lpf.util))
print(" * Sharding: water-filling the embedding into the emptier stages gives " .. mems(sh) .. " GB")
print("   against the paper's hand split {32, 31, 31, 32}. Our model all-reduces the embedding's")
print(string.format("   gradient densely, so splitting it also shortens the per-stage allreduce (%.1f -> %.1f days);",
  lp.epoch / DAY, sh.epoch / DAY))
print("   the paper (sparse embedding updates) sees no change.")


------------------------------------------------------------------------------------------
-- 2. Fig. 12: data parallelism at subbatch 128
print()
print("== Hestness Fig. 12: data-parallel workers vs epoch time and utilisation (subbatch 128)")
print(string.format("%8s %12s %8s %14s %8s", "workers", "days/epoch", "util %", "(alpha fitted)", "util %"))
local fig12 = { workers = {}, days = {}, util = {}, days_fit = {}, util_fit = {} }
local n = 1
while n <= 4096 do
  local r, rf = dp_row(cached, n), dp_row(cached, n, alpha_fit)
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
local tbd = { gpus = {}, ethernet = {}, infiniband = {}, flat = {} }
print(string.format("%6s %10s %14s %14s %16s", "GPUs", "machines", "Ether, flat", "Ether, hier.",
  "100 Gb/s IB"))
for _, g in ipairs { 1, 2, 4, 8, 16, 32 } do
  local re = P.data { work = resnet, hw = p4000, workers = g, subbatch = 32,
                      cluster = nets.ethernet }
  local ri = P.data { work = resnet, hw = p4000, workers = g, subbatch = 32,
                      cluster = nets.infiniband }
  local rf = P.data { work = resnet, hw = p4000, workers = g, subbatch = 32,
                      cluster = g <= 4 and nets.ethernet or nets.flat }
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
-- 4. Plans for a 96-layer transformer (GPT-3 175B shape) on 4096 devices
print()
print("== 3-D plans: 96-layer transformer (d 12288, seq 2048), 4096 devices, batch 1536")
local gpt = P.layers.transformer { layers = 96, d = 12288, seq = 2048, heads = 96 }
local a100 = { name = "A100-like", peak = { fp16 = 312e12 }, mem = 80e9, mem_bw = 2.0e12 }
local cluster = P.cluster { per_node = 8, nodes = 512,
  intra = { bw = 300e9, latency = 2e-6 }, inter = { bw = 25e9, latency = 5e-6 } }
local rows, evaluated = P.plan { layers = gpt, hw = a100, precision = "fp16", cluster = cluster,
                                 batch = 1536, table = false }
print(string.format("%d layouts evaluated, %d fit in 80 GB", evaluated, #rows))
print(string.format("%4s %4s %4s %4s %-11s %4s %4s %8s %8s %8s %8s %7s %6s", "dp", "tp", "pp",
  "m", "schedule", "rc", "zero", "step s", "compute", "comm", "bubble", "mem GB", "util"))
for i = 1, math.min(10, #rows) do
  local r = rows[i]
  print(string.format("%4d %4d %4d %4d %-11s %4s %4d %8.2f %8.2f %8.2f %8.2f %7.1f %5.1f%%",
    r.dp, r.tp, r.pp, r.m, r.schedule, r.recompute and "yes" or "no", r.zero, r.step,
    r.compute, r.comm, r.bubble, r.mem / 1e9, 100 * r.util))
end

------------------------------------------------------------------------------------------
-- The figures' data as CSV in out/ (each file written whole: temporary file, then rename)
os.execute("mkdir -p out")
local function write_csv(name, header, cols)
  local path = "out/" .. name
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "w")
  if not f then print("could not write " .. path .. ": " .. tostring(err)); return end
  f:write(table.concat(header, ","), "\n")
  for i = 1, #cols[1] do
    local row = {}
    for j, c in ipairs(cols) do row[j] = type(c[i]) == "number" and string.format("%.6g", c[i]) or tostring(c[i]) end
    f:write(table.concat(row, ","), "\n")
  end
  f:close()
  local ok, e = os.rename(tmp, path)
  if ok then print("wrote " .. path) else os.remove(tmp); print("could not write " .. path .. ": " .. tostring(e)) end
end
print()
write_csv("hestness_fig12.csv", { "workers", "days", "util", "days_alpha_fit", "util_alpha_fit" },
  { fig12.workers, fig12.days, fig12.util, fig12.days_fit, fig12.util_fit })
write_csv("tbd_obs12.csv", { "gpus", "ethernet_flat_img_s", "ethernet_hier_img_s",
  "infiniband_img_s" }, { tbd.gpus, tbd.flat, tbd.ethernet, tbd.infiniband })
do
  local c = { {}, {}, {}, {}, {}, {}, {}, {} }
  for i = 1, math.min(20, #rows) do
    local r = rows[i]
    c[1][i], c[2][i], c[3][i], c[4][i] = r.dp, r.tp, r.pp, r.m
    c[5][i], c[6][i], c[7][i], c[8][i] = r.schedule, r.compute, r.comm, r.bubble
  end
  write_csv("plan_breakdown.csv", { "dp", "tp", "pp", "m", "schedule", "compute_s", "comm_s",
    "bubble_s" }, c)
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
  local okk, err = f:save("out/" .. name)
  print(okk and ("wrote out/" .. name) or ("could not write out/" .. name .. ": " .. tostring(err)))
end
local f = plot.figure { width = 4, height = 3 }
f:line { x = fig12.workers, y = fig12.days, label = "days/epoch (alpha 5 us)" }
f:line { x = fig12.workers, y = fig12.days_fit, label = "days/epoch (alpha fitted)" }
f.xscale, f.yscale = "log", "log"
f.xlabel, f.ylabel, f.title = "data-parallel workers", "days per epoch", "Hestness Fig. 12"
save(f, "hestness_fig12_days.png")
local g = plot.figure { width = 4, height = 3 }
g:line { x = fig12.workers, y = fig12.util, label = "alpha 5 us" }
g:line { x = fig12.workers, y = fig12.util_fit, label = "alpha fitted" }
g.xscale = "log"
g.xlabel, g.ylabel, g.title = "data-parallel workers", "FLOP utilisation", "Hestness Fig. 12"
save(g, "hestness_fig12_util.png")
local h = plot.figure { width = 4, height = 3 }
h:line { x = tbd.gpus, y = tbd.flat, label = "1 Gb/s Ethernet, flat ring" }
h:line { x = tbd.gpus, y = tbd.ethernet, label = "1 Gb/s Ethernet, hierarchical" }
h:line { x = tbd.gpus, y = tbd.infiniband, label = "100 Gb/s InfiniBand" }
h.xscale, h.yscale = "log", "log"
h.xlabel, h.ylabel, h.title = "GPUs (4 per machine)", "images/s", "TBD observation 12"
save(h, "tbd_obs12.png")
local labels, comp, comm, bub = {}, {}, {}, {}
for i = 1, math.min(8, #rows) do
  local r = rows[i]
  labels[i] = string.format("%d/%d/%d", r.dp, r.tp, r.pp)
  comp[i], comm[i], bub[i] = r.compute, r.comm, r.bubble
end
local k = plot.figure { width = 5, height = 3 }
local okb = pcall(function()
  k:bar { labels = labels, values = { comp, comm, bub }, stacked = true,
          legend = { "compute", "exposed comm", "bubble" } }
end)
if not okb then k:bar { labels = labels, values = comp } end
k.xlabel, k.ylabel, k.title = "plan (dp/tp/pp)", "seconds per step", "time breakdown of the best plans"
save(k, "plan_breakdown.png")
