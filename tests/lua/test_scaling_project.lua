-- test_scaling_project.lua — dlb.scaling.project propagates the fits' uncertainty (issue
-- [14]): bootstrap intervals on the data, the model size and the total training compute,
-- the bootstrap keeps its samples, the same seed gives the same numbers.
local T = require "harness"
local dlb = require "dlbench"
local S = dlb.scaling

-- a synthetic learning curve eps = 5 m^-0.3 and model-size law p = 100 m^0.7, with a few
-- per cent of deterministic "noise" (sin/cos) so the bootstrap has something to resample
local xs, ys, ps = {}, {}, {}
for i = 1, 12 do
  local m = 1e6 * 2 ^ i
  xs[i] = m
  ys[i] = 5 * m ^ -0.3 * (1 + 0.02 * math.sin(i * 1.7))
  ps[i] = 100 * m ^ 0.7 * (1 + 0.03 * math.cos(i))
end
local function costs(p, b) return { flops = 6 * p * b, bytes = 1 } end -- 6 FLOPs/param/sample

T.test("fit: the bootstrap keeps its samples (seeded)", function()
  local f = S.fit(xs, ys, { bootstrap = 100, seed = 7 })
  T.eq(#f.bootstrap.samples, f.bootstrap.used)
  T.eq(f.bootstrap.used, 100)
  local s1 = f.bootstrap.samples[1]
  assert(type(s1.alpha) == "number" and type(s1.beta) == "number")
  -- the kept samples give the reported interval (2.5/97.5 percentiles of beta)
  local b = {}
  for i, s in ipairs(f.bootstrap.samples) do b[i] = s.beta end
  table.sort(b)
  -- linear-interpolated 2.5th percentile of 100 values: position 0.025 x 99 = 2.475
  local pos = 0.025 * 99
  local i = math.floor(pos)
  T.near(f.bootstrap.beta.lo, b[i + 1] + (pos - i) * (b[i + 2] - b[i + 1]), 1e-12, "lo from the samples")
  local g = S.fit(xs, ys, { bootstrap = 100, seed = 7 })
  T.eq(g.bootstrap.samples[50].beta, f.bootstrap.samples[50].beta, "same seed, same samples")
  T.eq(#f.data.xs, 12, "the points are kept")
end)

T.test("project: total compute, and intervals on data, model size and compute", function()
  local curve = S.fit(xs, ys)
  local model = S.fit(xs, ps)
  local spec = { curve = curve, model = model, data_size = xs[12], desired = 0.9 * ys[12] }
  local r = S.project(spec, { subbatch = 32, costs = costs, bootstrap = 200, seed = 7 })
  -- total compute = flops per step x steps = (6 p b) x (data / b) = 6 p data (hand derivation)
  T.near(r.total_flops, 6 * r.params * r.data, 1e-12, "total flops")
  T.near(r.steps, r.data / 32, 1e-12, "steps")
  for _, k in ipairs { "data", "params", "total_flops" } do
    local i = r.interval[k]
    assert(i.lo < r[k] and r[k] < i.hi, k .. ": the point estimate inside its interval")
    assert(i.lo < i.median and i.median < i.hi, k)
    T.eq(#r.bootstrap.samples[k], 200 - r.bootstrap.unreachable, k .. " samples kept")
  end
  -- the model size follows the data: p = 100 m^0.7 spreads 0.7 x as much (in log) as m
  local wd = math.log(r.interval.data.hi / r.interval.data.lo)
  local wp = math.log(r.interval.params.hi / r.interval.params.lo)
  assert(wp > 0.3 * wd, "params interval reflects the data's and the law's spread")
  -- reproducible: the same seed, the same interval; another seed, another
  local r2 = S.project(spec, { subbatch = 32, costs = costs, bootstrap = 200, seed = 7 })
  T.eq(r2.interval.total_flops.lo, r.interval.total_flops.lo)
  local r3 = S.project(spec, { subbatch = 32, costs = costs, bootstrap = 200, seed = 8 })
  assert(r3.interval.total_flops.lo ~= r.interval.total_flops.lo, "another seed")
  -- epochs and tokens per sample scale the steps
  local r4 = S.project(spec, { subbatch = 32, costs = costs, epochs = 3, tokens_per_sample = 10 })
  T.near(r4.total_flops, r.total_flops * 3 / 10, 1e-12, "epochs / tokens per sample")
  assert(tostring(r):find("total ", 1, true) and tostring(r):find("FLOP [", 1, true), tostring(r))
  -- constants cannot be resampled
  T.checkerr("bootstrap needs spec.curve from dlb.scaling.fit",
    S.project, { alpha = 5, beta_g = -0.3, data_size = 1e9, desired = 0.01 }, { bootstrap = 10 })
  T.checkerr("epochs must be a positive number", S.project, spec, { epochs = 0 })
end)

T.test("project: the spec's constants checked by name (review 20)", function()
  -- Hestness et al. (PPoPP'19) eq. 2, p(m) = sigma * m^beta_p (docs/scaling.md): by hand,
  -- sigma 100, beta_p 0.7 at m = 1e9 and at the data 5 m^-0.3 = 0.01 needs,
  -- m = (0.01/5)^(1/-0.3) = 500^(10/3)
  local base = { alpha = 5, beta_g = -0.3, data_size = 1e9, desired = 0.01 }
  local function with(t)
    local c = {}
    for k, v in pairs(base) do c[k] = v end
    for k, v in pairs(t) do c[k] = v end
    return c
  end
  local r = S.project(with { sigma = 100, beta_p = 0.7 })
  local m = 500 ^ (10 / 3)
  T.near(r.data, m, 1e-9, "data for the target")
  T.near(r.params, 100 * m ^ 0.7, 1e-9, "p(m) = sigma m^beta_p")
  T.near(r.model_scale, (m / 1e9) ^ 0.7, 1e-9, "model scale")
  -- before: params 0 and model_scale NaN; negative parameters; sigma alone dropped
  T.checkerr("dlb.scaling.project: spec.sigma must be a finite number > 0, got 0", S.project,
    with { sigma = 0, beta_p = 0.7 })
  T.checkerr("spec.sigma must be a finite number > 0, got -100", S.project, with { sigma = -100, beta_p = 0.7 })
  T.checkerr("needs sigma= and beta_p= together (p(m) = sigma*m^beta_p), got only sigma", S.project,
    with { sigma = 100 })
  T.checkerr("got only beta_p", S.project, with { beta_p = 0.7 })
  T.checkerr("spec.beta_p must be a finite number, got nan", S.project, with { sigma = 100, beta_p = 0 / 0 })
  T.checkerr("spec.sigma_unit must be a finite number > 0, got 0", S.project,
    with { sigma = 100, beta_p = 0.7, sigma_unit = 0 })
  T.checkerr("spec.model must come from dlb.scaling.fit_model_size", S.project,
    with { model = { sigma = 100, beta_p = 0.7 } })
  T.checkerr("spec.model must come from dlb.scaling.fit_model_size", S.project,
    with { model = S.fit(xs, ys, { form = "power+const" }) })
  -- before: the binding's "bad argument" or an arithmetic error
  T.checkerr("dlb.scaling.project: spec.alpha must be a finite number, got the string \"5\"",
    S.project, with { alpha = "5" })
  T.checkerr("spec.gamma must be a finite number, got nan", S.project, with { gamma = 0 / 0 })
  -- the core's refusal of the target under project's name (was the bare "scaling invert: ...")
  T.checkerr("dlb.scaling.project: scaling invert: the target 0.01 is at or below the irreducible error",
    S.project, with { gamma = 0.02 })
  T.checkerr("dlb.scaling.project: seed must be a whole number >= 0, got the string \"1\"", S.project,
    { curve = S.fit(xs, ys), data_size = 1e9, desired = 0.01 }, { bootstrap = 10, seed = "1" })
end)

-- Review 21: a target above the current error (the current data already reaches it) gave
-- less than one sample's worth of training without a word. Hestness et al. Table 1, word LM:
-- current error 3.37 at 768 M words, desired 2.48 (dlb.scaling.domains.word_lm).
T.test("project: a target the current data already meets is said (target_met, note)", function()
  local d = S.domains.word_lm
  local r = S.project(d)
  T.eq(r.target_met, false, "Table 1's desired 2.48 needs more data")
  T.eq(r.note, nil)
  local m = S.project(d, { target = 10 })
  T.eq(m.target_met, true)
  assert(m.data < d.data_size and m.data_scale < 1, "where the curve reaches 10: below the current data")
  assert(m.note:find("target 10 already met: the fitted curve's error at the current data (768 M) is 3.369", 1, true), m.note)
  assert(tostring(m):find("Target 10 already met", 1, true), tostring(m))
  -- at the current error exactly: met (data_scale 1)
  local e = S.project(d, { target = m.current_error_fit })
  T.near(e.data_scale, 1, 1e-9, "the curve's own error at the current data")
  -- method ratio: the measured current error is named
  local q = S.project({ alpha = 5, beta_g = -0.3, data_size = 1e9, current = 0.01 }, { target = 0.02, method = "ratio" })
  T.eq(q.target_met, true)
  assert(q.note:find("the measured error at the current data (1 G) is 0.01", 1, true), q.note)
end)

T.done()
