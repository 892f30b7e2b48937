-- hestness_roofline.lua — reproduce Hestness, Ardalani & Diamos (PPoPP'19, seeds/000_...)
-- Table 3 (training step costs and accelerator time) from Table 2's asymptotic formulas and
-- Table 4's accelerator, and the first two rows of Table 5 (word LM baseline: best-case
-- roofline and cache-hierarchy-aware).
--   dlbench run notebooks/hestness_roofline.lua
local dlb = require "dlbench"
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
  results[dom] = { tflops = s.flops / 1e12, tb = s.bytes / 1e12, fp = s.footprint / 1e9,
    step = r.time, days = tr.epoch_days }
  print(string.format("%-8s %6.0f / %-6.0f (%+5.1f%%) %5.1f / %-5.1f (%+5.1f%%) %4.0f / %-4.0f "
    .. "(%+3.0f%%) %6.1f / %-6.1f (%+5.1f%%) %8.3g / %-7.3g (%+5.1f%%) %4d %s", dom,
    s.flops / 1e12, tf, pct(s.flops / 1e12, tf), s.bytes / 1e12, tb, pct(s.bytes / 1e12, tb),
    s.footprint / 1e9, fp, pct(s.footprint / 1e9, fp), r.time, st, pct(r.time, st),
    tr.epoch_days, ed, pct(tr.epoch_days, ed), units, unit))
end
print([[
Notes: word LM, char LM and speech agree within 6%. NMT's Table 3 row needs 275 FLOPs per
parameter per sample (499e12 / (18.9e9 x 96)), not Table 2's 149, so it is ~46% low from
Table 2 alone; image's bytes row (0.4 TB) rounds a value Table 2 puts at 0.28 TB. Footprints
use Table 2's delta; the paper's Table 3 used topological-traversal estimates instead (4.5).
]])

-- == Table 5, rows 1 and 2 ======================================================
-- Row 1 (best-case roofline): the projected-LSTM word LM's step is 9.89 s on the Table 4
-- device (6.1), compute-bound at 80% utilisation; epochs have as many steps as Table 3's
-- word LM (same data, same subbatch 128).
local wl = results.word_lm
local steps = wl.days * 86400 / wl.step
local row1_days = steps * 9.89 / 86400
print("Table 5 (word LM to target accuracy), rows 1-2:")
print(string.format("  Best-case (Roofline) Baseline: 9.89 s/step x %.3g steps = %.0f days/epoch "
  .. "(paper: 2707, %+.1f%%), 80%% alg. FLOP utilisation", steps, row1_days, pct(row1_days, 2707)))
-- Row 2: the cache-hierarchy-aware model keeps the FLOPs and raises the bytes of large
-- matmuls; utilisation falls from 80% to 46%, so the step (and epoch) grows by 0.80/0.46.
local util1, util2 = 0.80, 0.46
local row2_days = 2707 * util1 / util2
print(string.format("  Cache-hierarchy-aware Baseline: 2707 x 0.80 / 0.46 = %.0f days/epoch; "
  .. "paper's table says 4071 (%+.1f%%), its text 4671 (%+.1f%%)", row2_days,
  pct(row2_days, 4071), pct(row2_days, 4671)))
print(string.format("  4671 / 7 days = %.0f (the text's '667x'); 4071 / 7 = %.0f. The numbers "
  .. "support 4671: Table 5's 4071 is a typo.", 4671 / 7, 4071 / 7))

-- Our tiled-matmul model on the projected word LM. The paper does not publish its shapes;
-- sized from Table 5's layer-parallel footprints at 12 bytes/parameter (as
-- dlbench.parallel_hestness does): two LSTM layers of 17 GB -> 1.42e9 parameters = 8 h^2,
-- h = 13,308; an output layer of 32 GB -> 2.67e9 = d x v with v = 793,471 (Jozefowicz et
-- al.'s vocabulary, [19]), d = 3,360; q = 25 steps at subbatch 128. Matmuls only (forward,
-- data gradient, weight gradient), as the best-case row.
local b, q, v = 128, 25, 793471
local h = math.floor(math.sqrt(17e9 / 12 / 8) + 0.5)
local d = math.floor(32e9 / 12 / v + 0.5)
local fl, by, gm = {}, {}, {}
local function mm(m, n, k)
  fl[#fl + 1] = 2 * m * n * k
  by[#by + 1] = 4 * (m * k + k * n + m * n)
  gm[#gm + 1] = { m, n, k }
end
for _ = 1, q do
  for _ = 1, 2 do mm(b, 4 * h, 2 * h); mm(b, 2 * h, 4 * h); mm(2 * h, 4 * h, b) end
  mm(b, v, d); mm(b, d, v); mm(d, v, b)
end
local lm = R.ops { flops = fl, bytes = by, gemm = gm }
local r0, r1 = R.time(lm, dev), R.time(lm, dev, { cache_aware = true })
print(string.format("  our tiled model on a word LM sized from Table 5 (h = %d, d = %d, v = %d, "
  .. "q = %d): bytes x%.2f,\n  utilisation %.0f%% -> %.0f%% (%d of %d matmuls memory-bound): a "
  .. "6 MB cache with square tiles keeps these\n  matmuls compute-bound, so it does not "
  .. "reproduce the paper's 46%%; that needs a more pessimistic re-streaming model than 6.1 "
  .. "describes.", h, d, v, q, r1.bytes / r0.bytes, 100 * r0.util, 100 * r1.util,
  r1.n_memory_bound, #fl))

-- == Figure 11 analogue: subbatch choice op by op ===================================
-- Hestness 5.2.1 picks the subbatch from a per-op roofline: at the ridge-point subbatch
-- "many ops are still memory-bound". Whole-graph Table 2 costs cannot show that (their time
-- per sample is flat past the ridge), so here is a real graph: a word LM (embedding, 2 LSTM
-- layers of h = 2048 unrolled over q = 20 steps, a 10,000-word output layer, softmax
-- cross-entropy; SGD, fp32), built with dlbench.nn and timed op by op on the Table 4 device.
local nn = require "dlbench.nn"
local function word_lm(q, h, v)
  local g = dlb.graph("word_lm")
  local x = nn.embedding(g, g:input("ids", { "b", q }, "int32"), v, h)
  local outs = nn.lstm(g, nn.unstack(g, x), { hidden = h, layers = 2 })
  local wo = g:weight("out/w", { h, v })
  local loss
  for t = 1, q do
    local l = g:softmax_xent(g:matmul(outs[t], wo), g:label("y" .. t, { "b" }))
    loss = loss and g:add(loss, l) or l
  end
  g:loss(loss)
  return g
end
local lmg = word_lm(20, 2048, 10000)
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

return results
