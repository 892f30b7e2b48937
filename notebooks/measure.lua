-- measure.lua — the measuring half of the workbench on this host (issue [10]; seeds 001,
-- 002, 004): measure the host's empirical roofline (dlb.measure.host), time the GEMM and
-- elementwise shapes of real training steps on it (dlb.measure.ops: the lecture's
-- profile-based estimate, ParaDnn Fig. 3 with measured dots), read real PyTorch CPU
-- training steps recorded with torch.profiler (tests/fixtures/make_traces.py: an MLP at
-- batch 16..2048, a small CNN, an LSTM), CALIBRATE the host device on half of the measured
-- steps (seeded split) and PREDICT the other half with dlb.roofline.time.
--   dlbench run notebooks/measure.lua [outdir]     (default out/; about 10-20 s)
-- The fixture traces were recorded on the project's 2-core machine; re-record them on
-- yours with `/usr/bin/python3 tests/fixtures/make_traces.py` to calibrate your own host.
local dlb = require "dlbench"

local outdir = (arg and arg[1]) or "out"
os.execute("mkdir -p '" .. outdir:gsub("'", "'\\''") .. "'")
local DIR = "tests/fixtures/traces/"
local fx = dofile(DIR .. "models.lua")

-- 1. the host's empirical roofline ------------------------------------------------------
local host, rec = dlb.measure.host {}
print(host:describe())
print(string.format("(measured in %.1f s, %d thread(s); the machine is shared, so ceilings move between runs)",
  rec.seconds, rec.threads))
assert(dlb.hw.save_csv(outdir .. "/host.csv", { host }))

-- 2. measured steps: PyTorch's (profiler traces) and dlbench's own op timings ------------
local meas, rows = {}, {}
local points = {}
for _, run in ipairs(fx.runs) do
  local s = fx.stats(run)
  local sm = dlb.trace.summary(dlb.trace.read(DIR .. run.file))
  local ops, info = dlb.measure.ops(s)
  meas[#meas + 1] = { stats = s, time = sm.step_time, label = "torch " .. run.label }
  meas[#meas + 1] = { stats = s, time = info.step_time, label = "ops " .. run.label }
  rows[#rows + 1] = { model = run.label, torch_step_ms = sm.step_time * 1e3,
    torch_fwd_ms = sm.by_phase.forward * 1e3, torch_bwd_ms = sm.by_phase.backward * 1e3,
    torch_opt_ms = sm.by_phase.optimizer * 1e3, ops_step_ms = info.step_time * 1e3,
    shapes = info.shapes, gflop = s.flops / 1e9 }
  if run.model == "mlp" and (run.batch == 64 or run.batch == 1024) or run.model == "cnn" and run.batch == 128 then
    for _, p in ipairs(info.points) do
      points[#points + 1] = { intensity = p.intensity, flops = p.flops, group = run.label .. " " .. p.group:gsub("measured ", "") }
    end
  end
  local _ = ops
end
print("\nmeasured steps (median of the 5 recorded steps; phases from the profiler's ranges):")
print(dlb.table.new(rows, { "model", "gflop", "torch_step_ms", "torch_fwd_ms", "torch_bwd_ms",
  "torch_opt_ms", "ops_step_ms", "shapes" }))

-- ParaDnn Fig. 3 with measured dots: the ops of three steps on the host's own roofline
local f = dlb.measure.figure(host, rec, points, { title = "Host roofline: GEMM sweep and measured ops" })
assert(f:save(outdir .. "/measure_roofline.png"))

-- 3. calibrate on half, predict the other half --------------------------------------------
-- Two sets, each calibrated on its own half: the PyTorch steps (recorded once, into the
-- fixtures) and dlbench's own op timings (made now, with the host measurement). The
-- fields: the measured ceilings themselves (peak.fp32, mem_bw: the traces were recorded at
-- another moment of a shared machine than the ceilings were measured, so a fraction <= 1 of
-- today's ceilings cannot always reach them) and the overheads of issue [9], which are
-- fitted when dlb.roofline.time uses them and otherwise reported as not identifiable.
local FIELDS = { "peak.fp32", "mem_bw", "kernel_overhead", "step_overhead" }
local fits, dev = {}, nil
for _, set in ipairs { "torch", "ops" } do
  local ms = {}
  for _, m in ipairs(meas) do
    if m.label:sub(1, #set) == set then ms[#ms + 1] = m end
  end
  local d, fit = dlb.hw.calibrate(host, ms, { holdout = 0.5, seed = 1, fields = FIELDS,
    name = "host (calibrated on " .. set .. " steps)" })
  fits[set] = fit
  if set == "torch" then dev = d end
  print(string.format("\n%s steps: CALIBRATED on %d, held out %d (%s loss on log time):", set,
    fit.n_fit, fit.n_holdout, fit.loss))
  for _, k in ipairs(FIELDS) do
    if fit.fields[k] then print(string.format("  %-16s %.4g (measured %.4g)", k, fit.fields[k],
      k == "peak.fp32" and host.peak.fp32 or host[k] or 0))
    else print(string.format("  %-16s %s", k, (fit.not_identifiable[k] or "-"):gsub(" %(valid fields.*$", ""))) end
  end
  local tab = fit.table:with("measured_ms", function(r) return r.measured * 1e3 end)
    :with("predicted_ms", function(r) return r.predicted * 1e3 end)
  print(tab:select("label", "set", "measured_ms", "predicted_ms", "error"):format(20))
  print(string.format("%s: fit median |error| %.1f%%; HELD-OUT median |error| %.1f%% (p90 %.1f%%) on %d steps "
    .. "(target <= 20%%)", set, 100 * fit.fit_error, 100 * fit.holdout_error, 100 * fit.p90_abs, fit.n_holdout))
end

-- the same calibration with the memory levels taken away (every op's bytes at mem_bw, the
-- model before the level-aware memory time of graphs/roofline.c): what the levels buy
do
  local ms = {}
  for _, m in ipairs(meas) do
    if m.label:sub(1, 5) == "torch" then ms[#ms + 1] = m end
  end
  local _, fit = dlb.hw.calibrate(host:with { levels = {} }, ms, { holdout = 0.5, seed = 1,
    fields = FIELDS, name = "host without levels (calibrated on torch steps)" })
  print(string.format("\ntorch steps, DRAM only (levels removed): fit median |error| %.1f%%; HELD-OUT "
    .. "median |error| %.1f%% (p90 %.1f%%) on %d steps; level-aware above: %.1f%% (p90 %.1f%%)",
    100 * fit.fit_error, 100 * fit.holdout_error, 100 * fit.p90_abs, fit.n_holdout,
    100 * fits.torch.holdout_error, 100 * fits.torch.p90_abs))
end

-- the lecture's (seed 002) estimate without any calibration: the sum of this host's own
-- kernel timings against the PyTorch step
print("\nprofile-based estimate (sum of measured op timings, uncalibrated) vs the PyTorch step:")
for _, r in ipairs(rows) do
  print(string.format("  %-10s measured %8.3f ms  estimated %8.3f ms  (%+.0f%%)", r.model, r.torch_step_ms,
    r.ops_step_ms, 100 * (r.ops_step_ms / r.torch_step_ms - 1)))
end

-- predicted vs measured, fit and held-out
local g = dlb.plot.figure { width = 4, height = 3.4, title = "Step time on this host: predicted vs measured" }
local xs, ys, grp = {}, {}, {}
local lo, hi = math.huge, 0
for _, set in ipairs { "torch", "ops" } do
  local fit = fits[set]
  for i = 1, fit.table:count() do
    local r = fit.table:row(i)
    xs[#xs + 1], ys[#ys + 1] = r.measured * 1e3, r.predicted * 1e3
    grp[#grp + 1] = set .. (r.set == "fit" and " (fit)" or " (held out)")
    lo, hi = math.min(lo, xs[#xs], ys[#ys]), math.max(hi, xs[#xs], ys[#ys])
  end
end
g:line { x = { lo, hi }, y = { lo, hi }, label = "predicted = measured", style = "dashed" }
g:line { x = { lo, hi }, y = { 1.2 * lo, 1.2 * hi }, label = "+-20%", style = "dotted", color = "gray" }
g:line { x = { lo, hi }, y = { lo / 1.2, hi / 1.2 }, style = "dotted", color = "gray" }
g:scatter { x = xs, y = ys, group = grp }
g.xscale, g.yscale = "log", "log"
g.xlabel, g.ylabel = "measured step time (ms)", "predicted, calibrated (ms)"
assert(g:save(outdir .. "/measure_calibration.png"))

-- 4. one step op by op: the trace against the prediction ------------------------------------
local run = fx.runs[5] -- mlp b=256
print("\n" .. run.label .. ": the trace's summary (TBD's FP32 utilisation against the measured host peak)")
print(dlb.trace.summary(dlb.trace.read(DIR .. run.file), { hw = host, flops = fx.stats(run).flops, cores = 1 }))
local cmp, step, cf = dlb.trace.compare(dlb.trace.read(DIR .. run.file), fx.stats(run), dev, { figure = true })
print(string.format("\n%s op by op (ms per step) on the calibrated host: measured step %.3g ms, predicted %.3g ms",
  run.label, step.measured * 1e3, step.predicted * 1e3))
print(cmp:with("measured_ms", function(r) return r.measured * 1e3 end)
  :with("predicted_ms", function(r) return r.predicted * 1e3 end)
  :select("key", "measured_ms", "predicted_ms", "n_measured", "n_predicted"))
assert(cf:save(outdir .. "/measure_compare.png"))
print("(the prediction times each op's bytes at the measured ceiling of the smallest cache level "
  .. "they fit in: graphs/roofline.c, docs/hw.md \"Kernel efficiency\")")
print("\nfigures: " .. outdir .. "/measure_roofline.png, " .. outdir .. "/measure_calibration.png, "
  .. outdir .. "/measure_compare.png; device: " .. outdir .. "/host.csv")
