-- hestness_roofline.lua — reproduce Hestness, Ardalani & Diamos (PPoPP'19, seeds/000_...)
-- Table 3 (training step costs and accelerator time) from Table 2's asymptotic formulas and
-- Table 4's accelerator, and the first two rows of Table 5 (word LM baseline: best-case
-- roofline and cache-hierarchy-aware).
--   dlbench run notebooks/hestness_roofline.lua [outdir]   (default out/; one figure)
local dlb = require "dlbench"
local outdir = require("dlbench.notebook").outdir(arg)   -- arg[1] or "out", created
-- this notebook reproduces numbers counted before framework profiles (issue [18]): it pins
-- "no profile", so its time models run on the graph as built, as the paper's did
dlb.frameworks.default("none")
local R = dlb.roofline
local unpack = table.unpack or unpack

local dev = dlb.hw.get("Hestness-T4")
print(string.format("Table 4 accelerator: %.2f TFLOP/s fp32, %.0f GB/s, %.0f GB, %.0f MB cache; "
  .. "ridge %.1f FLOP/B at peak, %.1f at 80%%/70%% (paper: 17.4 and 19.9)", dev.peak.fp32 / 1e12,
  dev.mem_bw / 1e9, dev.mem / 1e9, dev.cache / 1e6, dev:ridge("fp32"), dev:ridge("fp32", true)))
print()

-- Table 3 as printed: data size (units), params, subbatch, TFLOPs/step, TB/step, min
-- footprint GB, step s, epoch days.
local paper = {
  { "word_lm", 77e9, "words", 23.8e9, 128, 1444, 41.5, 272, 115, 31e3 },
  { "char_lm", 3.4e12, "chars", 146e9, 96, 12618, 488.1, 1703, 1007, 3.5e6 },
  { "nmt", 97.4e9, "WP", 18.9e9, 96, 499, 18.4, 185, 39.8, 16e3 },
  { "speech", 14e9, "chars", 727e6, 128, 72, 2.8, 30, 5.8, 93 },
  { "image", 103e6, "images", 732e6, 32, 28, 0.4, 34, 2.3, 84 },
}

local function pct(mine, theirs) return 100 * (mine / theirs - 1) end

print("Table 3 reproduced: Table 2's c_t = gamma b p, a_t = lambda p + mu b sqrt(p), f_t = delta p;")
print("step = max(c_t / (0.8 x 15.67e12), a_t / (0.7 x 898e9)) (5.2.2). Ours / paper (% diff).")
local hdr = string.format("%-8s %-24s %-22s %-18s %-22s %-26s %s", "domain", "TFLOPs/step",
  "TB/step", "footprint GB", "step s", "epoch days", "units/sample")
print(hdr)
print(string.rep("-", #hdr))
local results = {}
for _, row in ipairs(paper) do
  local dom, data, unit, p, b, tf, tb, fp, st, ed = unpack(row)
  local s = R.hestness(dom, p, b)
  local r = R.time(s, dev)
  -- The paper does not print how many data units (words, chars, ...) one sample holds; the
  -- epoch days it prints imply it: units = data / (epoch days x 86400 / step s x b). We use
  -- that per-domain value (rounded), so the epoch column checks the step -> epoch
  -- arithmetic; see docs/hw.md.
  local units = data / (ed * 86400 / st * b)
  units = math.floor(units + 0.5)
  local tr = R.train { step = r, dataset = data / units, batch = b }
  -- the same epoch at the tokens per sample dlb.scaling.domains uses (the graphs' unroll),
  -- which notebooks/hestness_scaling.lua prints
  local tps = dlb.scaling.domains[dom].tokens_per_sample
  local tg = tps and R.train { step = r, dataset = data / tps, batch = b } or nil
  results[dom] = { tflops = s.flops / 1e12, tb = s.bytes / 1e12, fp = s.footprint / 1e9,
    step = r.time, days = tr.epoch_days, units = units, tokens = tps,
    days_tokens = tg and tg.epoch_days or nil }
  print(string.format("%-8s %6.0f / %-6.0f (%+5.1f%%) %5.1f / %-5.1f (%+5.1f%%) %4.0f / %-4.0f "
    .. "(%+3.0f%%) %6.1f / %-6.1f (%+5.1f%%) %8.3g / %-7.3g (%+5.1f%%) %4d %s (cal)", dom,
    s.flops / 1e12, tf, pct(s.flops / 1e12, tf), s.bytes / 1e12, tb, pct(s.bytes / 1e12, tb),
    s.footprint / 1e9, fp, pct(s.footprint / 1e9, fp), r.time, st, pct(r.time, st),
    tr.epoch_days, ed, pct(tr.epoch_days, ed), units, unit))
end
print("(cal): the units per sample are a calibrated input, read off the paper's own epoch days, so the")
print("epoch column checks only the step -> epoch arithmetic. At the tokens per sample of the graphs the")
print("paper profiled (dlb.scaling.domains, what notebooks/hestness_scaling.lua uses) the epochs are:")
for _, row in ipairs(paper) do
  local r = results[row[1]]
  if r.days_tokens then
    print(string.format("  %-8s %8.3g days at %g %s/sample (vs %.3g at the calibrated %d)", row[1], r.days_tokens,
      r.tokens, row[3], r.days, r.units))
  else
    print(string.format("  %-8s n/a (no tokens per sample in dlb.scaling.domains; the calibrated %d gives %.3g)", row[1],
      r.units, r.days))
  end
end
do
  local w = results.word_lm
  print(string.format("Word LM, reconciled: the 31.3K here and hestness_scaling's 10.5K are the same step time; %.3g x 80/%d",
    w.days_tokens, w.units))
  print(string.format("  = %.3g (words per sample: the paper's epoch implies %d, the profiled graph unrolls 80), and", w.days_tokens * 80 / w.units, w.units))
  print("  hestness_scaling's (a) uses the data size its Table 1 chain projects (79.7B words) where this")
  print(string.format("  table uses Table 3's 77B: %.3g x 79.7/77 = %.3g.", w.days_tokens, w.days_tokens * 79.7 / 77))
end
print([[
Notes: word LM, char LM and speech agree within 6%. NMT's Table 3 row needs 275 FLOPs per
parameter per sample (499e12 / (18.9e9 x 96)), not Table 2's 149, so it is ~46% low from
Table 2 alone; image's bytes row (0.4 TB) rounds a value Table 2 puts at 0.28 TB. Footprints
use Table 2's delta; the paper's Table 3 used topological-traversal estimates instead (4.5).
]])

-- == Table 5, rows 1 and 2, from a real graph ====================================
-- 6.1's projected word LM built by the model zoo and timed op by op. The paper does not
-- publish its shapes; dlbench.parallel_hestness.table5_shapes reads them off the paper
-- (vocabulary 793,471, subbatch 128, q = 25 words per sample, sizes from Table 5's
-- layer-parallel footprints at 12 bytes per parameter; its header gives the derivation).
-- The same graph sets Table 5 row 2's computed device in notebooks/hestness_parallel.lua.
local SH = require("dlbench.parallel_hestness").table5_shapes()
local v, b5, q5, e5, p5, h5 = SH.vocab, SH.batch, SH.steps, SH.embed, SH.proj, SH.hidden
local wlm = dlb.models.word_lm { batch = b5, hidden = h5, vocab = v, steps = q5, embed = e5,
  proj = p5 }
local s5 = wlm:stats {}
local best = R.time(s5, dev, { per_op = false })           -- row 1: whole graph (5.2.2)
local perop = R.time(s5, dev)                              -- op by op, algorithmic bytes
local cached = R.time(s5, dev, { cache_aware = true, detail = true }) -- row 2
local steps5 = 77e9 / (b5 * q5)
local function days(r) return steps5 * r.time / 86400 end
print(string.format("Table 5, rows 1-2, from dlb.models.word_lm{hidden = %d, embed = %d, proj = %d, "
  .. "vocab = %d, steps = %d, batch = %d}:", h5, e5, p5, v, q5, b5))
print(string.format("  %d ops, %.3g parameters, %.3g TFLOPs/step (the paper's 9.89 s at 80%% "
  .. "implies %.3g), %.2f TB/step,", s5.nops, s5.params, s5.flops / 1e12,
  9.89 * 0.8 * 15.67, s5.bytes / 1e12))
print(string.format("  footprint %.1f GB (paper 113.8): %s on the 32 GB device (short by %.1f GB); "
  .. "epoch = 77e9 / (%d x %d) = %.3g steps", s5.footprint / 1e9,
  best.fits and "fits" or "does not fit", best.shortfall / 1e9, b5, q5, steps5))
local hdr5 = string.format("  %-34s %9s %12s %18s %12s", "stage", "step s", "days/epoch",
  "paper days", "alg. util")
print(hdr5)
print("  " .. string.rep("-", #hdr5 - 2))
print(string.format("  %-34s %9.2f %12.0f %18s %5.0f%% (80%%)", "Best-case (roofline), whole graph",
  best.time, days(best), "2707 (" .. string.format("%+.0f%%", pct(days(best), 2707)) .. ")",
  100 * best.util))
print(string.format("  %-34s %9.2f %12.0f %18s %5.0f%%", "  same, op by op", perop.time,
  days(perop), "", 100 * perop.util))
print(string.format("  %-34s %9.2f %12.0f %18s %5.0f%% (46%%)", "Cache-hierarchy-aware, op by op",
  cached.time, days(cached), "4671* (" .. string.format("%+.0f%%", pct(days(cached), 4671)) .. ")",
  100 * cached.util))
print("  * Table 5 prints 4071, its text 4671 twice: 2707 x 0.80 / 0.46 = "
  .. string.format("%.0f", 2707 * 0.8 / 0.46) .. " and the text's '667x' = 4671 / 7 support 4671;"
  .. " 4071 is a typo.")
-- where the time goes (row 2)
local kinds = {}
for k, g in pairs(cached.by_kind) do kinds[#kinds + 1] = { k, g } end
table.sort(kinds, function(a, b)
  if a[2].time ~= b[2].time then return a[2].time > b[2].time end
  return a[1] < b[1]
end)
local parts = {}
for i = 1, math.min(6, #kinds) do
  local k, g = kinds[i][1], kinds[i][2]
  parts[#parts + 1] = string.format("%s %.2f s (%.0f%%%s)", k, g.time, 100 * g.share,
    g.memory_bound_time > 0.5 * g.time and ", memory-bound" or "")
end
print("  row 2 by op kind: " .. table.concat(parts, ", "))
local mm = cached.by_kind.matmul
print(string.format("  cache-aware traffic: %.2f TB/step (x%.2f the algorithmic bytes); the %d "
  .. "matmuls spend %.2f s memory-bound with square tiles of %d (6 MB / 3 fp32 tiles)%s",
  cached.bytes / 1e12, cached.bytes / perop.bytes, mm.ops, mm.memory_bound_time,
  math.floor(math.sqrt(6e6 / 12)), mm.memory_bound_time == 0 and ": every one compute-bound" or ""))

-- Sensitivity of row 2 to the tiling assumptions: how much of the 6 MB the tiles may use,
-- fixed tile shapes (e.g. the 128 x 128 or 64 x 64 thread-block tiles of GPU GEMM kernels,
-- reusing nothing else from the cache), and 16-bit tensors at the same FLOP rate.
local function t5(label, o, d)
  local r = R.time(s5, d or dev, o)
  return string.format("  %-52s %7.2f %9.0f %6.0f%% %8.2f", label, r.time, days(r), 100 * r.util,
    r.bytes / 1e12), r
end
print("  sensitivity of the cache-hierarchy-aware row:")
print(string.format("  %-52s %7s %9s %7s %8s", "tiling assumption", "step s", "days", "util",
  "TB/step"))
local rows = {
  { "square tiles sized from all 6 MB (t = 707; default)", { cache_aware = true } },
  { "half the cache usable (t = 500)", { cache_aware = true, cache_fraction = 0.5 } },
  { "a tenth of the cache usable (t = 223)", { cache_aware = true, cache_fraction = 0.1 } },
  { "1% of the cache usable (t = 70)", { cache_aware = true, cache_fraction = 0.01 } },
  { "256 x 256 output tiles", { cache_aware = true, tile = 256 } },
  { "128 x 128 output tiles", { cache_aware = true, tile = 128 } },
  { "128 x 64 output tiles", { cache_aware = true, tile = { 128, 64 } } },
  { "64 x 64 output tiles", { cache_aware = true, tile = 64 } },
  { "32 x 32 output tiles", { cache_aware = true, tile = 32 } },
}
for _, row in ipairs(rows) do print((t5(row[1], row[2]))) end
-- 16-bit tensors: the same device and FLOP rate, elements of 2 bytes (bytes counted at fp32
-- are halved and tiles hold twice the elements)
local dev16 = dlb.hw.define { name = "Hestness-T4-16bit", peak = { fp16 = dev.peak.fp32 },
  mem_bw = dev.mem_bw, mem = dev.mem, cache = dev.cache, replace = true,
  note = "Table 4's device with 16-bit tensors at the fp32 FLOP rate (a sensitivity case)" }
print((t5("16-bit tensors, same FLOP rate, square tiles", { cache_aware = true,
  precision = "fp16" }, dev16)))
-- the largest square tile at which row 2 falls to the paper's 46%
local lo, hi = 1, 707
while hi - lo > 1 do
  local mid = math.floor((lo + hi) / 2)
  if R.time(s5, dev, { cache_aware = true, tile = mid }).util <= 0.46 then lo = mid else hi = mid end
end
print(string.format("  the paper's 46%% needs square tiles of %d elements or less (%.0f KB for 3 "
  .. "fp32 tiles, %.2f%% of the 6 MB cache).", lo, 3 * 4 * lo * lo / 1e3, 100 * 12 * lo * lo / 6e6))
local function share(k) return cached.by_kind[k] and 100 * cached.by_kind[k].share or 0 end
print(string.format([[
  So: our model gives %.0f%% for the cache-hierarchy-aware baseline, not the paper's 46%%.
  The drop from 80%% comes from the step's memory-bound ops (per-step weight-gradient
  accumulation in the unrolled LSTMs %.0f%% of the time, SGD updates %.0f%%, elementwise
  gates, softmax), not from the matmuls: at subbatch 128 a weight matmul's algorithmic
  intensity is near 128 / 2 = 64 FLOP/B, and square tiles from a 6 MB cache add only x%.2f
  traffic over the step, far from pushing them under the %.1f FLOP/B ridge. The matmuls
  turn memory-bound only when tiles shrink to ~%d elements (a few tens of KB of reuse), so
  the paper's re-streaming model must be much more pessimistic than the tiling 6.1
  describes; its details are not published. Our graph also has %.0f%% fewer FLOPs than the
  paper's 9.89 s step implies (the shapes are read off Table 5, not published), hence row
  1's %+.0f%%. Table 5's row 2 above is ours; the paper's value is beside it.
]], 100 * cached.util, share("accum"), share("update"), cached.bytes / perop.bytes,
  dev:ridge("fp32", true), lo, 100 * (1 - s5.flops / (9.89 * 0.8 * 15.67e12)),
  pct(days(best), 2707)))
results.table5 = { row1 = best, per_op = perop, row2 = cached, row1_days = days(best),
  row2_days = days(cached), tile_for_46 = lo, stats = s5, dims = { h = h5, e = e5, p = p5 } }

-- == Figure 11 analogue: subbatch choice op by op ===================================
-- Hestness 5.2.1 picks the subbatch from a per-op roofline: at the ridge-point subbatch
-- "many ops are still memory-bound". Whole-graph Table 2 costs cannot show that (their time
-- per sample is flat past the ridge), so here is a real graph: the zoo's word LM
-- (dlb.models.word_lm: embedding, 2 LSTM layers of h = 2048 unrolled over q = 20 steps, a
-- 10,000-word output layer, softmax cross-entropy; SGD, fp32), timed op by op on the Table 4
-- device at each subbatch.
local lmg = dlb.models.word_lm { hidden = 2048, layers = 2, vocab = 10000, steps = 20 }
local batches = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048 }
local perop = R.subbatch(lmg, dev, { batches = batches })
local whole = R.subbatch(lmg, dev, { batches = batches, per_op = false })
print()
print(string.format("Figure 11 analogue: word LM graph (%d ops at b=64) on the Table 4 device, "
  .. "time per sample whole graph vs op by op", lmg:stats { b = 64 }.nops))
print(string.format("%8s %10s %18s %16s %10s", "subbatch", "FLOP/B", "ms/sample graph",
  "ms/sample ops", "util ops"))
for i, b in ipairs(perop.curve.batch) do
  print(string.format("%8d %10.1f %18.3f %16.3f %9.0f%%", b, perop.curve.intensity[i],
    1e3 * whole.curve.time_per_sample[i], 1e3 * perop.curve.time_per_sample[i],
    100 * perop.curve.util[i]))
end
print(string.format("points (op by op): intensity saturates at b=%d, reaches the ridge (%.1f FLOP/B) "
  .. "at b=%d, time per sample within 5%% of its minimum from b=%d (whole graph: b=%d)",
  perop.saturation, perop.ridge_point, perop.ridge, perop.best, whole.best))
local iu = {}
for i, b in ipairs(perop.curve.batch) do iu[b] = perop.curve.util[i] end
print(string.format("at the ridge subbatch the step runs at %.0f%% of peak, at the best one %.0f%%: "
  .. "the ridge point leaves %.0f%% of the throughput (the paper: 40%%)", 100 * iu[perop.ridge],
  100 * iu[perop.best], 100 * (1 - iu[perop.ridge] / iu[perop.best])))

-- == Roofline figure: zoo models on two devices ===================================
-- Each model's training step (fp32, subbatch as named) on the V100 (Hestness's reference GPU,
-- Table 4 is "similar to" it) and the H100: x = algorithmic intensity of the whole step,
-- y = achieved FLOP/s op by op (each op at its own bound), so a point sits under its device's
-- roof by how much of the step is memory-bound.
local zoo = {
  { "ResNet-50 b32", function() return dlb.models.resnet { depth = 50, batch = 32 } end },
  { "MobileNet v2 b32", function() return dlb.models.mobilenet { batch = 32 } end },
  { "BERT base b32", function() return dlb.models.bert { size = "base", batch = 32 } end },
  { "GPT-2 b8", function() return dlb.models.gpt { size = "gpt2", batch = 8 } end },
  { "word LM b128", function() return dlb.models.word_lm { batch = 128 } end },
  { "word LM b8", function() return dlb.models.word_lm { batch = 8 } end },
}
local devs = { dlb.hw.get("V100"), dlb.hw.get("H100") }
local pts = {}
print()
print("Roofline of zoo models (fp32, op by op):")
print(string.format("  %-18s %8s %22s %22s", "model", "FLOP/B", devs[1].name .. " TFLOP/s (util)",
  devs[2].name .. " TFLOP/s (util)"))
for _, m in ipairs(zoo) do
  local st = m[2]():stats {}
  local line = string.format("  %-18s", m[1])
  for j, d in ipairs(devs) do
    local r = R.time(st, d, { precision = "fp32" })
    if j == 1 then line = line .. string.format(" %8.1f", r.intensity) end
    line = line .. string.format(" %14.2f (%4.0f%%)", r.attainable / 1e12, 100 * r.util)
    -- one colour per model (the legend names it); the roof above a point names the device
    pts[#pts + 1] = { intensity = r.intensity, flops = r.attainable, group = m[1] }
  end
  print(line)
end
local f = dlb.plot.figure { width = 5.6, height = 3.2,
  title = "Zoo training steps (fp32): each model under the V100 and the H100 roof" }
f:roofline { hw = devs, points = pts, precision = "fp32" }
f.ylabel = "Achieved FLOP/s (op by op)"
f.legend = "outside"
local fig = outdir .. "/hestness_roofline_zoo.png"
local okf, errf = f:save(fig)
print(okf and ("  figure: " .. fig) or ("  figure not written: " .. tostring(errf)))

return results
