-- test_parallel_hestness.lua — Hestness et al. 2019 Table 5 (seeds/000 sec. 6) as
-- notebooks/hestness_parallel.lua prints it: calibrated rows come back exactly, predicted
-- rows within the tolerances the notebook explains.
local T = require "harness"
local H = require "dlbench.parallel_hestness"

local rows, model = H.table5 { m = 8, latency = 5e-6 }

T.test("calibration: baseline 2707 days at 80%; row 2 computed from the cache-aware graph", function()
  T.near(rows[1].days, 2707, 1e-9, "best case days (sec. 6.1; a calibrated input)")
  T.near(rows[1].util, 0.8, 1e-12, "best case utilisation")
  assert(rows[1].calibrated.days and rows[1].calibrated.util, "row 1's calibrated cells are marked")
  assert(rows[2].calibrated.days == nil and rows[2].calibrated.util == nil,
    "row 2's days and utilisation are predictions, not calibrations")
  -- every row's memory comes from the stage footprints row 5 is fitted to (calibrated cells)
  for i = 1, 6 do assert(rows[i].calibrated.mem, "row " .. i .. "'s memory is marked (cal)") end
  -- row 2, computed (not the paper's 0.8 x 2707 / 4671): the Table 5 word LM graph timed
  -- whole-graph and op by op with the cache-aware matmul model (notebooks/hestness_roofline.lua
  -- prints 8.23 s and 9.83 s): flops_eff = 0.8 x 8.23 / 9.83 = 0.67, days = 2707 x 9.83 / 8.23
  local R = require("dlbench").roofline
  local sh = H.table5_shapes()
  local g = require("dlbench").models.word_lm { batch = sh.batch, hidden = sh.hidden, vocab = sh.vocab,
    steps = sh.steps, embed = sh.embed, proj = sh.proj }
  local st, dev = g:stats {}, require("dlbench").hw.get("Hestness-T4")
  local tb, tc = R.time(st, dev, { per_op = false }).time, R.time(st, dev, { cache_aware = true }).time
  T.near(rows[2].days, 2707 * tc / tb, 1e-9, "cache-aware days from the graph")
  T.near(rows[2].util, 0.8 * tb / tc, 1e-9, "cache-aware utilisation from the graph")
  T.near(rows[2].util, 0.67, 0.01, "67% (the paper: 46%)")
  -- the paper's answer stays available, labelled a calibration
  local _, mp = H.table5 { m = 8, cached = "paper" }
  T.near(mp.cached.flops_eff, 0.8 * 2707 / 4671, 1e-12, "paper's row 2 device")
  T.checkerr("cached must be", H.model, nil, { cached = "guess" })
  -- q words per sample implied by 77B words and 2707 days at 9.89 s/step (Table 3 gives ~26)
  T.near(model.q, 25.4, 0.01, "words per sample")
  T.near(model.params * 12 / 1e9, 125.5, 1e-9, "footprint = sum of stage footprints")
end)

T.test("data parallelism: physical links are faster than the paper", function()
  -- the bandwidth term alone: ring of 41.8 GB on 56 GB/s, ~1.49 s on the computed row 2
  -- step of 9.89 x days2 / 2707 s
  local d1024, d512 = rows[3], rows[4]
  assert(d1024.days < 6.2 and d512.days < 11.1, "the paper's overheads are larger")
  local step = 9.89 * rows[2].days / 2707
  T.near(d1024.days, rows[2].days / 1024 * (1 + 1.49 / step), 0.01, "1024 workers")
end)

T.test("data parallelism: the fitted alpha reproduces both rows", function()
  local a = H.alpha_fit()
  T.near(a, 2.37e-3, 0.01, "alpha")
  -- alpha is fitted on the paper's rows 3-4, so it reproduces them on the paper's row 2 device
  local r1 = H.dp_row(model, model.cached_paper, 1024, a)
  local r2 = H.dp_row(model, model.cached_paper, 512, a)
  T.near(r1.days, 6.2, 0.03, "Table 5 1024 workers: 6.2 days")
  T.near(r2.days, 11.1, 0.03, "Table 5 512 workers: 11.1 days")
  T.near(r1.util, 0.34, 0.01, "34%")
  T.near(r2.util, 0.38, 0.01, "38%")
end)

T.test("layer parallelism and the sharded embedding", function()
  local lp, sh = rows[5].result, rows[6].result
  -- stage footprints are the calibration input
  local want = { 59.5, 17, 17, 32 }
  for i = 1, 4 do T.near(lp.stage_mem[i] / 1e9, want[i], 1e-9, "stage " .. i) end
  -- water-filling: paper's {32, 31, 31, 32}
  for i = 1, 3 do T.near(sh.stage_mem[i] / 1e9, 31.2, 0.01, "sharded stage " .. i) end
  T.near(sh.stage_mem[4] / 1e9, 32, 1e-9, "output stage")
  -- GPipe, m = 8 (the paper names no schedule), on the computed row 2 device: 4.6 days at
  -- 23% (the paper: 7.2 at 14.5%; faster by about the row 2 ratio 4671 / 3233); on the
  -- paper's row 2 device with the fitted alpha 7.6 days, 5% over the paper's 7.2
  T.near(lp.days, 7.2 * rows[2].days / 4671, 0.1, "layer parallel days, 5 us, computed device")
  local lpf = H.layer_row(model, 8, true, H.alpha_fit(), model.cached_paper)
  T.near(lpf.days, 7.2, 0.06, "layer parallel days, fitted alpha")
  -- utilisation is inverse to the days (13.9% here, 4.2% under the paper's 14.5% as the days
  -- are 5% over): the days' 6%, relative (the old rule's 0.01 was an absolute point, 6.9%)
  T.near(lpf.util, 0.145, 0.06, "14.5% utilisation")
  -- the bottleneck is the output layer (48% of the FLOPs): speed-up over DP-512 <= 2.06x
  assert(rows[4].days / lp.days < 1 / (model.layers[4].params / model.dense))
end)

T.done()
