-- test_calibrate.lua — dlb.hw.calibrate on measurements made from a known device (so the
-- right answer is known), the seeded holdout, robustness to an outlier, fields the time
-- model does not use, and the Nelder-Mead minimiser behind it. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local core = dlb.core

T.test("minimizer: Rosenbrock from (-1.2, 1) to (1, 1)", function()
  -- the classic test function of Nelder & Mead's successors: minimum 0 at (1, 1)
  local m = core.minimizer_new({ -1.2, 1 }, { 0.1, 0.1 }, { -5, -5 }, { 5, 5 }, 1e-14, 5000)
  while true do
    local x = core.minimizer_ask(m)
    if not x then break end
    core.minimizer_tell(m, (1 - x[1]) ^ 2 + 100 * (x[2] - x[1] ^ 2) ^ 2)
  end
  local x, f, evals = core.minimizer_best(m)
  T.near(x[1], 1, 1e-3, "x"); T.near(x[2], 1, 1e-3, "y")
  assert(f < 1e-6 and evals > 10 and evals <= 5000, "converged")
  -- bounds hold: minimum of (x - 3)^2 inside [-1, 1] is at 1
  local b = core.minimizer_new({ 0 }, { 0.5 }, { -1 }, { 1 }, 1e-14, 500)
  while true do
    local x1 = core.minimizer_ask(b)
    if not x1 then break end
    assert(x1[1] >= -1 and x1[1] <= 1, "inside the box")
    core.minimizer_tell(b, (x1[1] - 3) ^ 2)
  end
  T.near(core.minimizer_best(b)[1], 1, 1e-6, "on the bound")
  T.checkerr("outside", core.minimizer_new, { 2 }, { 1 }, { -1 }, { 1 }, 0, 10)
  T.checkerr("same length", core.minimizer_new, { 0, 0 }, { 1 }, { -1 }, { 1 }, 0, 10)
  T.checkerr("step", core.minimizer_new, { 0 }, { 0 }, { -1 }, { 1 }, 0, 10)
  T.checkerr("tell without", core.minimizer_tell, core.minimizer_new({ 0 }, { 1 }, { -1 }, { 1 }, 0, 10), 1)
end)

-- measurements: GEMM-like and streaming op sets timed by a device with known efficiencies
-- (a plain device: only peak and bandwidth, so nothing but the two efficiencies shapes time)
local base = dlb.hw.device { name = "plain", kind = "accelerator", peak = { fp32 = 15e12 },
  mem_bw = 900e9, mem = 16e9, power = 300 }
local truth = base:with { name = "truth", flops_eff = 0.55, bw_eff = 0.45 }
local function measurements(noise)
  local ms = {}
  for i = 1, 24 do
    local n = 64 * i
    -- a matmul n x n x n and an elementwise op of n^2 elements: some compute-, some memory-bound
    local s = { ops = { flops = { 2 * n * n * n, n * n }, bytes = { 12 * n * n, 12 * n * n } } }
    local t = dlb.roofline.time(s, truth).time
    local wobble = noise and (1 + noise * math.sin(i * 1.7)) or 1
    ms[i] = { stats = s, time = t * wobble, label = "n=" .. n }
  end
  return ms
end

T.test("calibrate: recovers known efficiencies and reports held-out error", function()
  local dev, fit = dlb.hw.calibrate(base, measurements(), { holdout = 0.5, seed = 7,
    fields = { "flops_eff", "bw_eff" } })
  T.near(fit.fields.flops_eff, 0.55, 1e-3, "flops_eff")
  T.near(fit.fields.bw_eff, 0.45, 1e-3, "bw_eff")
  T.near(dev.flops_eff, fit.fields.flops_eff, 1e-15, "the device carries the fit")
  T.eq(dev.name, "plain (calibrated)", "the name says calibrated")
  assert(dev.source.flops_eff:find("CALIBRATED", 1, true), "labelled a calibration")
  T.eq(fit.n_fit + fit.n_holdout, 24, "every measurement used once")
  T.eq(fit.n_holdout, 12, "half held out")
  assert(fit.holdout_error < 1e-3 and fit.fit_error < 1e-3, "exact data fits exactly")
  T.eq(fit.table:count(), 24, "a row per measurement")
  -- the split is seeded: the same seed gives the same sets, another seed others
  local _, again = dlb.hw.calibrate(base, measurements(), { holdout = 0.5, seed = 7, fields = { "flops_eff" } })
  local _, other = dlb.hw.calibrate(base, measurements(), { holdout = 0.5, seed = 8, fields = { "flops_eff" } })
  local function sets(f) local s = {} for i = 1, f.table:count() do s[i] = f.table:row(i).set end return table.concat(s, ",") end
  T.eq(sets(again), sets(fit), "same seed, same split")
  assert(sets(other) ~= sets(fit), "another seed, another split")
end)

T.test("calibrate: robust to noise and an outlier (least absolute log error)", function()
  local ms = measurements(0.05)
  ms[3].time = ms[3].time * 20 -- one wild measurement
  local _, fit = dlb.hw.calibrate(base, ms, { fields = { "flops_eff", "bw_eff" } })
  T.near(fit.fields.flops_eff, 0.55, 0.06, "flops_eff despite the outlier")
  T.near(fit.fields.bw_eff, 0.45, 0.06, "bw_eff despite the outlier")
  assert(fit.median_abs < 0.06, "median error within the noise")
  T.eq(fit.errors_on, "fit", "no holdout: errors on the fit set")
  local _, hub = dlb.hw.calibrate(base, ms, { fields = { "flops_eff", "bw_eff" }, loss = "huber" })
  T.near(hub.fields.flops_eff, 0.55, 0.06, "Huber too")
end)

T.test("calibrate: fields the time model does not use are reported, not fitted", function()
  local _, fit = dlb.hw.calibrate(base, measurements(), {})
  assert(fit.fields.flops_eff and fit.fields.bw_eff, "the efficiencies are fitted")
  -- the default set names the overheads of issue [9]; whatever dlb.roofline.time does not
  -- use (or devices do not have) is listed with the reason
  for _, f in ipairs { "kernel_overhead", "step_overhead" } do
    assert(fit.fields[f] or fit.not_identifiable[f], f .. " fitted or reported")
  end
  local _, f2 = dlb.hw.calibrate(base, measurements(), { fields = { "flops_eff", "power" } })
  assert(f2.not_identifiable.power:find("does not use", 1, true), "power is not in the time model")
end)

T.test("calibrate: bad input is a clear error", function()
  T.checkerr("unknown option 'holdot'", dlb.hw.calibrate, "V100", measurements(), { holdot = 0.5 })
  T.checkerr("holdout must be", dlb.hw.calibrate, "V100", measurements(), { holdout = 1 })
  T.checkerr("non-empty list", dlb.hw.calibrate, "V100", {})
  T.checkerr("measurements[1].time", dlb.hw.calibrate, "V100", { { stats = { flops = 1, bytes = 1 }, time = -1 } })
  T.checkerr("needs stats", dlb.hw.calibrate, "V100", { { time = 1 } })
  T.checkerr("loss must be", dlb.hw.calibrate, "V100", measurements(), { loss = "l2" })
  T.checkerr("unknown device", dlb.hw.calibrate, "V1000x", measurements())
end)

T.test("calibrate: the split's seed and Huber's delta are checked (review7)", function()
  local m = measurements(0)
  -- before: seed = NaN or inf raised "table index is NaN" from the shuffle, "x" a bad argument
  -- to floor, 1.5 was floored; delta = NaN or -1 fitted with a NaN or negative loss, silently
  for _, s in ipairs { 0 / 0, math.huge, "x", 1.5 } do
    T.checkerr("dlb.hw.calibrate: seed must be a whole number (the fit/holdout split's)", dlb.hw.calibrate,
      base, m, { holdout = 0.5, seed = s })
  end
  for _, d in ipairs { 0 / 0, -1, 0 } do
    T.checkerr("dlb.hw.calibrate: delta must be a finite number > 0", dlb.hw.calibrate, base, m,
      { loss = "huber", delta = d })
  end
end)

T.test("calibrate: bw_scale and peak.fp32 scale measured ceilings beyond 1", function()
  -- a measured-style device with cache levels; the "machine" runs compute 1.6x and every
  -- memory level 1.7x faster than measured (the ceilings were taken at a busier moment):
  -- factors an efficiency (<= 1) cannot express
  local meas = dlb.hw.device { name = "lv-dev", kind = "cpu", peak = { fp32 = 100e9 }, mem_bw = 20e9,
    mem = 16e9, flops_eff = 1, bw_eff = 1,
    levels = { { name = "L2", size = 1048576, bw = 150e9 }, { name = "L3", size = 33554432, bw = 90e9 },
      { name = "DRAM", bw = 20e9 } } }
  local lv = meas:level_list()
  for _, l in ipairs(lv) do l.bw = 1.7 * l.bw end
  local fast = meas:with { name = "fast", peak = { fp32 = 160e9 }, mem_bw = 1.7 * 20e9, levels = lv }
  local ms = {}
  for i = 1, 24 do
    local n = 2 ^ (8 + i / 2)
    -- an elementwise op of n floats in, n out (sizes across L2, L3 and DRAM), or a
    -- compute-bound one (intensity 1000 FLOP/B)
    local s = { flops = i % 3 == 0 and 8000 * n or n, bytes = 8 * n }
    ms[i] = { stats = s, time = dlb.roofline.time(s, fast).time, label = "n=" .. n }
  end
  local dev, fit = dlb.hw.calibrate(meas, ms, { fields = { "peak.fp32", "bw_scale" } })
  T.near(fit.fields["peak.fp32"], 160e9, 1e-3, "compute factor 1.6 found")
  T.near(fit.fields.bw_scale, 1.7, 1e-3, "memory factor 1.7 found")
  local got = dev:level_list()
  for i, l in ipairs(meas:level_list()) do T.near(got[i].bw, 1.7 * l.bw, 1e-3, l.name .. " scaled") end
  T.near(dev.mem_bw, 1.7 * 20e9, 1e-3, "mem_bw scaled")
  assert(dev.source.levels:find("CALIBRATED", 1, true) and dev.source.levels:find("bw_scale", 1, true),
    "the levels say calibrated: " .. dev.source.levels)
  assert(fit.median_abs < 1e-3, "fits its own model")
end)

-- Review 21: a mistyped field ("flops_ef") returned a device named "(calibrated)" with
-- nothing fitted, the reason only in fit.not_identifiable, which nothing printed. docs/
-- measure.md: such fields are reported, not refused; now the report is seen: the name, the
-- closest field, fit.not_fitted, fit.note, the printed fit and a warning on stderr.
T.test("calibrate: a mistyped field is reported where the user sees it", function()
  local d, fit = dlb.hw.calibrate(base, measurements(), { fields = { "flops_ef" } })
  T.eq(d.name, "plain (nothing fitted)", "the name says nothing was fitted")
  T.eq(d.flops_eff, base.flops_eff, "the device is the one given")
  T.eq(fit.not_identifiable.flops_ef, "not a field of dlb.hw devices (did you mean 'flops_eff'?)")
  T.eq(#fit.not_fitted, 1); T.eq(fit.not_fitted[1], "flops_ef")
  assert(fit.note:find("1 of 1 fields not fitted (flops_ef: not a field of dlb.hw devices "
    .. "(did you mean 'flops_eff'?)); NOTHING was fitted", 1, true), fit.note)
  local text = tostring(fit)
  assert(text:find("calibration: nothing fitted", 1, true) and text:find("NOT FITTED: ", 1, true), text)
  -- one of two fitted: the device is calibrated, the note names the other
  local d2, f2 = dlb.hw.calibrate(base, measurements(), { fields = { "flops_eff", "flops_ef" } })
  T.eq(d2.name, "plain (calibrated)")
  assert(f2.fields.flops_eff, "flops_eff fitted")
  assert(f2.note:find("1 of 2 fields not fitted (flops_ef", 1, true) and not f2.note:find("NOTHING", 1, true), f2.note)
  assert(tostring(f2):find("calibration: flops_eff = ", 1, true), tostring(f2))
  -- everything fitted: no note
  local _, f3 = dlb.hw.calibrate(base, measurements(), { fields = { "flops_eff", "bw_eff" } })
  T.eq(f3.note, nil); T.eq(#f3.not_fitted, 0)
end)

T.done()
