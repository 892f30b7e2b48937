-- test_scaling.lua — dlb.scaling under both backends: fits against exact laws and scipy,
-- bad data, projections reproducing Hestness et al. (PPoPP'19) Tables 1 and 3, the Table 2
-- cost fits, and the Chinchilla joint law (Hoffmann et al. 2022).
local T = require "harness"
local dlb = require "dlbench"
local S = dlb.scaling

local function pct(ours, paper) return (ours / paper - 1) * 100 end

-- |ours/paper - 1| <= tol, with a message naming the table cell.
local function within(ours, paper, tol, what)
  if not (math.abs(ours / paper - 1) <= tol) then
    error(string.format("%s: ours %.6g vs paper %.6g (%+.1f%%, tolerance %.0f%%)", what, ours,
      paper, pct(ours, paper), tol * 100), 2)
  end
end

T.test("power law: exact recovery, predict, data_for", function()
  local xs, ys = {}, {}
  for i = 1, 8 do xs[i] = 10 ^ (i + 2); ys[i] = 13.0 * xs[i] ^ -0.066 end
  local f = S.fit(xs, ys)
  T.eq(f.form, "power", "form")
  T.near(f.alpha, 13.0, 1e-10, "alpha")
  T.near(f.beta, -0.066, 1e-12, "beta")
  T.near(f.r2, 1, 1e-12, "r2")
  T.eq(f.r2_space, "log", "r2 space")
  T.near(f:predict(1e6), 13.0 * 1e6 ^ -0.066, 1e-12, "predict")
  T.near(f:predict({ 1e5, 1e7 })[2], 13.0 * 1e7 ^ -0.066, 1e-12, "predict list")
  T.near(f:data_for(13.0 * 1e9 ^ -0.066), 1e9, 1e-9, "data_for")
  assert(tostring(f):find("alpha=13", 1, true), tostring(f))
  assert(dlb.doc.get(S.fit).signature:find("dlb.scaling.fit", 1, true))
end)

-- The same data and golden numbers as tests/test_scaling.c (scipy 1.10.1 curve_fit; the
-- command is in that file's comment).
local golden_y = {
  0.3987021154673568, 0.323328670181787, 0.26991685874597726, 0.22337724193345168,
  0.18812404882515388, 0.1535701392226479, 0.13313475856936038, 0.11546626288379627,
  0.1015778949234087, 0.09118427426894957, 0.0800102112072691, 0.07545131933747806 }
local golden_x = {}
for i = 1, 12 do golden_x[i] = 1e3 * 2 ^ (i - 1) end

T.test("power+const matches scipy curve_fit", function()
  local f = S.fit(golden_x, golden_y, { form = "power+const" })
  within(f.alpha, 3.541133854134352, 1e-6, "alpha")
  within(f.beta, -0.33421448382783936, 1e-6, "beta")
  within(f.gamma, 0.046446696369777045, 1e-6, "gamma")
  within(f.se.alpha, 0.14202701993652483, 1e-4, "se alpha")
  within(f.se.beta, 0.006254790057939565, 1e-4, "se beta")
  within(f.se.gamma, 0.002405953848348593, 1e-4, "se gamma")
  assert(f.r2 > 0.99 and f.r2 <= 1, f.r2)
  T.checkerr("irreducible error", f.data_for, f, 0.04)
  -- the methods name themselves and the argument (a string was the binding's "bad argument
  -- #3 to 'scaling_invert' (number expected, got string)")
  T.checkerr("fit:data_for: scaling invert: the target 0.04 is at or below", f.data_for, f, 0.04)
  T.checkerr('fit:data_for: target must be a number, got the string "x"', f.data_for, f, "x")
  T.checkerr('fit:predict: x must be a number, got the string "10"', f.predict, f, "10")
  T.checkerr("fit:predict: x[2] must be a number, got boolean", f.predict, f, { 1, true })
  T.checkerr("fit:predict: scaling eval: x = -1", f.predict, f, { 1, -1 })
end)

T.test("bootstrap uncertainties", function()
  local f = S.fit(golden_x, golden_y, { form = "power+const", bootstrap = 100, seed = 3 })
  assert(f.bootstrap.used >= 50)
  for _, k in ipairs { "alpha", "beta", "gamma" } do
    local b = f.bootstrap[k]
    assert(b.se > 0 and b.lo < f[k] and f[k] < b.hi, k)
  end
  local g = S.fit(golden_x, golden_y, { form = "power+const", bootstrap = 100, seed = 3 })
  T.eq(g.bootstrap.beta.se, f.bootstrap.beta.se, "deterministic for a seed")
end)

T.test("three-region curve (Fig. 6)", function()
  -- y = gamma + P*A/(P+A), A = 30 x^-0.5, P = 0.9 - 0.02
  local xs, ys = {}, {}
  for i = 1, 25 do
    xs[i] = 10 ^ (1 + (i - 1) * 0.3)
    local A, P = 30 * xs[i] ^ -0.5, 0.88
    ys[i] = 0.02 + P * A / (P + A)
  end
  local f = S.fit(xs, ys, { form = "three-region" })
  T.near(f.alpha, 30, 1e-5, "alpha")
  T.near(f.beta, -0.5, 1e-6, "beta")
  T.near(f.gamma, 0.02, 1e-6, "gamma")
  T.near(f.plateau, 0.9, 1e-6, "plateau")
  T.checkerr("plateau", f.data_for, f, 0.95)
end)

T.test("bad data is a clear error", function()
  T.checkerr("2 points (with weight > 0) for the 3 parameters", S.fit, { 1, 2 }, { 1, 0.5 },
    { form = "power+const" })
  T.checkerr("x of point 2 is -1", S.fit, { 1, -1, 3 }, { 1, 0.5, 0.3 })
  T.checkerr("y of point 3 is 0", S.fit, { 1, 2, 3 }, { 1, 0.5, 0 })
  T.checkerr("point 2 is NaN", S.fit, { 1, 2, 3 }, { 1, 0 / 0, 0.3 }, { form = "power+const" })
  T.checkerr("ys[2] is a boolean", S.fit, { 1, 2, 3 }, { 1, true, 0.3 })
  T.checkerr("ys has 2 values but xs has 3", S.fit, { 1, 2, 3 }, { 1, 0.5 })
  T.checkerr("unknown form 'cubic'", S.fit, { 1, 2 }, { 1, 2 }, { form = "cubic" })
  T.checkerr("unknown option 'frm'", S.fit, { 1, 2 }, { 1, 2 }, { frm = "power" })
  T.checkerr("same x", S.fit, { 2, 2, 2 }, { 1, 0.5, 0.3 })
  T.checkerr("weight of point 1", S.fit, { 1, 2, 3 }, { 1, 0.5, 0.3 }, { weights = { -1, 1, 1 } })
  local f = S.fit({ 1, 2, 4 }, { 1, 0.5, 0.25 })
  T.checkerr("opposite sign", f.data_for, f, -1)
end)

-- Table 1 of Hestness et al.: "Projected Scale" columns (Data, Model) per domain.
-- Ours: m_target = (desired/alpha)^(1/beta_g), data scale = m_target / current data size,
-- model scale = (m_target / m_current)^beta_p.
T.test("Table 1 reproduction", function()
  local D = S.domains
  -- Word LMs row: Data 100x, Model 23x (ours 103.8x, 23.5x)
  local w = S.project(D.word_lm)
  within(w.data_scale, 100, 0.05, "Table 1 Word LMs Data")
  within(w.model_scale, 23, 0.03, "Table 1 Word LMs Model")
  -- NMT row: Data 750x, Model 90x
  local n = S.project(D.nmt)
  within(n.data_scale, 750, 0.01, "Table 1 NMT Data")
  within(n.model_scale, 90, 0.01, "Table 1 NMT Model")
  -- Image Classification row: Data 81x, Model 12x
  local im = S.project(D.image)
  within(im.data_scale, 81, 0.02, "Table 1 Image Data")
  within(im.model_scale, 12, 0.02, "Table 1 Image Model")
  -- The Model column follows from the Data column by (data scale)^beta_p in every row:
  -- 100^0.68 = 22.9, 971^0.89 = 455.6, 750^0.68 = 90.0, 33^0.54 = 6.61, 81^0.57 = 12.24
  -- (printed 12: the widest gap, 2.0%).
  for _, k in ipairs(S.domain_names) do
    local d = D[k]
    within(d.paper.data_scale ^ d.beta_p, d.paper.model_scale, 0.025,
      "Table 1 " .. k .. " Model from the paper's Data column")
  end
  -- Character LMs (971x) and Speech (33x) Data cells do not follow from Table 1's own alpha
  -- and beta_g: (0.70/9.39)^(1/-0.092) / 3.48e9 = 518x, (0.04/30.5)^(1/-0.291) / 425e6 =
  -- 18.9x (anchoring at the current SOTA instead: 836x and 19.5x). Pin our numbers so a
  -- change is noticed; docs/scaling.md discusses the gap.
  local c = S.project(D.char_lm)
  within(c.data_scale, 518.3, 0.01, "Table 1 Character LMs Data (ours; paper 971x)")
  local s = S.project(D.speech)
  within(s.data_scale, 18.89, 0.01, "Table 1 Speech Data (ours; paper 33x)")
  within(S.project(D.char_lm, { method = "ratio" }).data_scale, 836.0, 0.01, "char ratio")
  -- Table 3 "Projected Data Size": word 77B words, NMT 97.4B WP, image 103M images
  within(w.data, 77e9, 0.04, "Table 3 Word LMs data")
  within(n.data, 97.4e9, 0.01, "Table 3 NMT data")
  within(im.data, 103e6, 0.01, "Table 3 Image data")
  -- Table 3 "Model Params" from sigma*m^beta_p (millions): word 23.8B, NMT 18.9B, image 732M
  within(w.params, 23.8e9, 0.03, "Table 3 Word LMs params")
  within(n.params, 18.9e9, 0.01, "Table 3 NMT params")
  within(im.params, 732e6, 0.02, "Table 3 Image params")
end)

-- Table 3 from Table 2's formulas at the paper's projected params and subbatch, on the
-- Table 4 accelerator (15.67 TFLOP/s at 80%, 898 GB/s at 70%).
local function D_costs() return S.domains.word_lm.costs end

T.test("Table 3 reproduction", function()
  local dev = dlb.hw.get("Hestness-T4")
  -- Table 4 / §5.2: ridge point 17.4 FLOP/B, 19.9 at achievable rates
  within(dev:ridge("fp32"), 17.4, 0.01, "ridge point")
  within(dev:ridge("fp32", true), 19.9, 0.01, "achievable ridge point")
  local rows = {}
  for _, k in ipairs(S.domain_names) do
    local d = S.domains[k]
    rows[k] = S.project(d, { params = d.paper.table3.params, device = dev })
  end
  -- cells within 6%: TFLOPs/Step, Mem Acc. TB/Step and Step (secs) of the Word LMs,
  -- Character LMs and Speech rows
  for _, k in ipairs { "word_lm", "char_lm", "speech" } do
    local r, p = rows[k], S.domains[k].paper.table3
    within(r.flops / 1e12, p.tflops, 0.06, "Table 3 " .. k .. " TFLOPs/Step")
    within(r.bytes / 1e12, p.tb, 0.06, "Table 3 " .. k .. " TB/Step")
    within(r.step_time, p.step_s, 0.06, "Table 3 " .. k .. " Step (secs)")
  end
  -- Image row: TFLOPs 26.0 vs 28 (-7%), step 2.08 vs 2.3 s (-10%); TB/step 0.28 vs 0.4: the
  -- asymptotic bytes model is loose at 732M params
  within(rows.image.flops / 1e12, 28, 0.08, "Table 3 image TFLOPs/Step")
  within(rows.image.step_time, 2.3, 0.11, "Table 3 image Step (secs)")
  -- NMT row: Table 2's 149 b FLOPs/param gives 270 TFLOPs/step at 18.9B params and b = 96,
  -- while Table 3 prints 499 (and 18.4 vs 10.4 TB): the paper's NMT row is ~1.8x its own
  -- Table 2 formula. Pin the ratio so a change in our formula is noticed.
  within(rows.nmt.flops / 1e12 / 499, 0.542, 0.01, "Table 3 NMT TFLOPs (ratio to paper)")
  -- Min Mem Foot (GB): delta*p vs the paper's topological estimates, within 21%
  for _, k in ipairs(S.domain_names) do
    within(rows[k].footprint / 1e9, S.domains[k].paper.table3.footprint_gb, 0.21,
      "Table 3 " .. k .. " footprint")
  end
  -- Epoch (days) of the Image row: 103M images / 32 per step * step time (1 image a sample);
  -- with the paper's own step time 2.3 s: 103e6/32*2.3/86400 = 85.7 days vs 84.
  within(103e6 / 32 * 2.3 / 86400, 84, 0.03, "Table 3 image Epoch (days), paper step time")
  within(rows.image.epoch_days, 84 * 2.08 / 2.3, 0.05, "Table 3 image Epoch (days), ours")
  -- Word LM step time is compute bound (115 s vs 66 s of memory time)
  T.eq(rows.word_lm.bound, "compute", "word LM bound")
  T.eq(rows.word_lm.fits, false, "272 GB does not fit 32 GB")
  T.checkerr("device must be a catalogue device", S.step_time, { flops = 1, bytes = 1 }, {})
  T.checkerr("costs must be {flops=, bytes=", S.step_time, { flops = 1 }, dev)
  -- step_time is dlb.roofline.time's whole-step roofline: 1e15 FLOPs / (0.8 * 15.67e12)
  -- = 79.77 s against 1e13 B / (0.7 * 898e9) = 15.91 s
  local st = S.step_time({ flops = 1e15, bytes = 1e13 }, "Hestness-T4")
  T.near(st.time, 1e15 / (0.8 * 15.67e12), 1e-12, "step_time compute bound")
  T.near(st.memory_time, 1e13 / (0.7 * 898e9), 1e-12, "step_time memory time")
  T.eq(st.bound, "compute", "bound")
  T.eq(st.time, dlb.roofline.time({ flops = 1e15, bytes = 1e13 }, dev).time, "same as roofline")
  T.checkerr("params must be a finite number > 0", S.step_costs, D_costs(), -1, 32)
end)

-- Synthetic steps generated from Table 2's formulas for every domain: fit_costs returns the
-- constants and the intensity form b*sqrt(p)/(c1*sqrt(p) + c2*b) of Table 2's fourth column.
T.test("fit_costs recovers Table 2", function()
  for _, k in ipairs(S.domain_names) do
    local c = S.domains[k].costs
    local rows = {}
    for i = 1, 10 do
      local p, b = 1e7 * 2.5 ^ i, (i % 3 == 0) and 32 or 128
      rows[i] = { params = p, batch = b, flops = c.flops_per_param * b * p,
                  bytes = c.lambda * p + c.mu * b * math.sqrt(p),
                  footprint = c.footprint_per_param * p }
    end
    local f = S.fit_costs(rows)
    T.near(f.gamma, c.flops_per_param, 1e-9, k .. " gamma")
    T.near(f.lambda, c.lambda, 1e-8, k .. " lambda")
    T.near(f.mu, c.mu, 1e-8, k .. " mu")
    T.near(f.delta, c.footprint_per_param, 1e-9, k .. " delta")
    -- Table 2 intensity coefficients (rounded in the paper, e.g. NMT 152 printed 151)
    within(f.intensity[1], c.intensity[1], 0.02, k .. " intensity c1")
    within(f.intensity[2], c.intensity[2], 0.01, k .. " intensity c2")
  end
  T.checkerr("row 2 needs numbers params= and batch=", S.fit_costs,
    { { params = 1, batch = 1, flops = 1 }, { params = 2 } })
  T.checkerr("flops is given in 1 of 2 rows", S.fit_costs,
    { { params = 1, batch = 1, flops = 1 }, { params = 2, batch = 1 } })
end)

T.test("step_costs evaluates a fit_costs result (review 20)", function()
  -- Hestness et al. Table 2, word LM: gamma 481, lambda 1755, mu 30784, delta 11.94; the
  -- fit's names (gamma, delta) were refused ("costs.flops_per_param must be a number")
  local c = S.domains.word_lm.costs
  local rows = {}
  for i = 1, 6 do
    local p, b = 1e8 * 3 ^ i, (i % 2 == 0) and 64 or 128
    rows[i] = { params = p, batch = b, flops = c.flops_per_param * b * p,
                bytes = c.lambda * p + c.mu * b * math.sqrt(p), footprint = c.footprint_per_param * p }
  end
  local f = S.fit_costs(rows)
  local p, b = 23.8e9, 128 -- Table 3's word LM size and subbatch
  local got, want = S.step_costs(f, p, b), S.step_costs(c, p, b)
  -- by hand: 481 x 128 x 23.8e9 = 1.465e15 FLOPs a step
  T.near(want.flops, 481 * 128 * 23.8e9, 1e-15, "Table 2's flops = gamma b p")
  T.near(got.flops, want.flops, 1e-9, "the fit's gamma")
  T.near(got.bytes, want.bytes, 1e-8, "lambda p + mu b sqrt(p)")
  T.near(got.footprint, 11.94 * 23.8e9, 1e-9, "the fit's delta")
  -- and so into a projection's costs
  local r = S.project(S.domains.word_lm, { costs = f, params = p })
  T.near(r.flops, want.flops, 1e-9, "project{costs = fit}")
  T.checkerr("costs.flops_per_param = 481 and costs.gamma = 480 name one coefficient", S.step_costs,
    { flops_per_param = 481, gamma = 480, lambda = 1, mu = 1 }, p, b)
  T.checkerr("costs.flops_per_param (or gamma) must be a number", S.step_costs, { lambda = 1, mu = 1 }, p, b)
end)

-- Hoffmann et al. 2022 eq. 10: E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28.
T.test("joint law: recover Chinchilla's fit, compute-optimal exponents", function()
  local runs = {}
  for i = 0, 7 do
    for j = 0, 5 do
      local N, D = 1e7 * 3 ^ i, 1e9 * 4 ^ j
      runs[#runs + 1] = { N = N, D = D, L = S.chinchilla:loss(N, D) }
    end
  end
  local law = S.fit_joint(runs)
  T.near(law.E, 1.69, 1e-4, "E")
  T.near(law.A, 406.4, 1e-4, "A")
  T.near(law.B, 410.7, 1e-4, "B")
  T.near(law.alpha, 0.34, 1e-5, "alpha")
  T.near(law.beta, 0.28, 1e-5, "beta")
  -- allocation exponents a = beta/(alpha+beta) = 0.4516, b = alpha/(alpha+beta) = 0.5484
  local o = law:compute_optimal(5.76e23)
  T.near(o.a, 0.28 / 0.62, 1e-4, "a")
  T.near(o.b, 0.34 / 0.62, 1e-4, "b")
  T.near(6 * o.N * o.D, 5.76e23, 1e-12, "C = 6 N D")
  local o2 = S.compute_optimal(S.chinchilla, 5.76e24)
  T.near(o2.N / S.compute_optimal(S.chinchilla, 5.76e23).N, 10 ^ (0.28 / 0.62), 1e-12, "N ~ C^a")
  -- k from a graph's stats: 6 FLOPs per token per parameter
  local k = S.k_from_stats({ flops = 6 * 1e9 * 2048, params = 1e9 }, 2048)
  T.near(k, 6, 1e-12, "k")
  local o3 = S.compute_optimal(S.chinchilla, 1e22, { stats = { flops = 8 * 10 * 100, params = 10 },
    tokens = 100 })
  T.near(o3.k, 8, 1e-12, "k from stats")
  T.near(8 * o3.N * o3.D, 1e22, 1e-12, "C = 8 N D")
  -- columns form, least squares, and errors
  local cols = { N = {}, D = {}, L = {} }
  for i, r in ipairs(runs) do cols.N[i], cols.D[i], cols.L[i] = r.N, r.D, r.L end
  local l2 = S.fit_joint(cols, { huber = false })
  T.near(l2.alpha, 0.34, 1e-5, "alpha (least squares)")
  T.checkerr("need at least 5", S.fit_joint, { runs[1], runs[2] })
  runs[3].L = -1
  T.checkerr("L (loss) of run 3", S.fit_joint, runs)
  T.checkerr("dlb.scaling.compute_optimal: C (FLOPs) must be a finite number > 0, got -5",
    S.compute_optimal, S.chinchilla, -5)
  T.checkerr("unknown option 'kk'", S.compute_optimal, S.chinchilla, 1e20, { kk = 6 })
  -- review 20: a law made by hand without B was the binding's "bad argument #3 to
  -- 'scaling_compute_optimal' (number expected, got nil)"
  T.checkerr("dlb.scaling.compute_optimal: law.B must be a finite number, got nil",
    S.compute_optimal, { E = 1.69, A = 406.4, alpha = 0.34, beta = 0.28 }, 1e23)
  T.checkerr("law.alpha must be a finite number, got the string \"0.34\"",
    S.compute_optimal, { E = 1.69, A = 406.4, B = 410.7, alpha = "0.34", beta = 0.28 }, 1e23)
  -- a plain table with the five numbers is a law (Hoffmann et al. eq. 10's, as S.chinchilla)
  T.near(S.compute_optimal({ E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28 }, 5.76e23).N,
    S.compute_optimal(S.chinchilla, 5.76e23).N, 1e-15, "a plain table")
  T.checkerr("dlb.scaling.fit: seed must be a whole number >= 0, got the string \"a\"", S.fit,
    { 1, 2, 3, 4 }, { 4, 3, 2, 1.5 }, { bootstrap = 10, seed = "a" })
end)

T.test("project on users' own fits", function()
  local ms, errs, ps = {}, {}, {}
  for i = 1, 10 do
    ms[i] = 1e5 * 2 ^ i
    errs[i] = 5 * ms[i] ^ -0.3 + 0.01
    ps[i] = 2e-2 * ms[i] ^ 0.6
  end
  local lc = S.fit(ms, errs, { form = "power+const" })
  local model = S.fit_model_size(ms, ps)
  T.near(model.beta_p, 0.6, 1e-10, "beta_p")
  local r = S.project({ curve = lc, model = model, data_size = ms[10] }, { target = 0.02 })
  T.near(r.data, ((0.02 - 0.01) / 5) ^ (1 / -0.3), 1e-5, "data for target")
  T.near(r.model_scale, r.data_scale ^ 0.6, 1e-8, "model scale")
  T.checkerr("irreducible error", S.project, { curve = lc, data_size = ms[10] }, { target = 0.005 })
  T.checkerr("unknown option 'targt'", S.project, S.domains.word_lm, { targt = 1 })
  T.checkerr("curve= (a fit) or alpha=", S.project, { data_size = 1 })
  -- a costs function (e.g. over a graph's stats)
  local r2 = S.project(S.domains.image, { costs = function(p, b)
    return { flops = 2 * p * b, bytes = 4 * p, footprint = 16 * p } end,
    device = dlb.hw.get("Hestness-T4") })
  T.near(r2.flops, 2 * r2.params * 32, 1e-12, "costs function")
end)

-- graph_costs on a stand-in graph with the word LM's analytic counts of Hestness et al. §4.2:
-- p = 8h^2 l + 2hv, forward FLOPs q(16 h^2 l + 2hv) per sample (training ~3x forward).
T.test("graph_costs: the size whose params match, bisection", function()
  local l, v, q = 2, 10000, 80
  local function stats_of(h, b)
    return { params = 8 * h * h * l + 2 * h * v, flops = 3 * b * q * (16 * h * h * l + 2 * h * v),
             bytes = 4 * (8 * h * h * l + 2 * h * v), footprint = 16 * (8 * h * h * l + 2 * h * v) }
  end
  local costs = S.graph_costs(stats_of)
  -- h = 4096: p = 8*4096^2*2 + 2*4096*10000 = 350,355,456
  local c = costs(350355456, 128)
  T.eq(c.size, 4096, "hidden size found")
  T.near(c.flops, 3 * 128 * 80 * (16 * 4096 * 4096 * 2 + 2 * 4096 * 10000), 1e-12, "flops")
  -- nearest integer size for params between two sizes
  T.eq(costs(350355456 + 100, 128).size, 4096, "nearest")
  T.checkerr("outside the sizes' range", costs, 1e20, 128)
  -- in a projection: the word LM at its projected params, through the stand-in graph
  local r = S.project(S.domains.word_lm, { costs = costs, device = dlb.hw.get("Hestness-T4") })
  -- at 24.3B params h ~ 39,000: 2hv is 3% of p, so FLOPs/(6 q b p) = (2*16h^2 l + 2hv) /
  -- (2*(8h^2 l + 2hv)) is within 2% of 1
  assert(math.abs(r.flops / (3 * 128 * 80 * 2 * r.params) - 1) < 0.02, "FLOPs ~ 6 q b p")
  T.checkerr("must return numbers", S.graph_costs(function() return {} end), 10, 1)
end)

T.test("backend: a parameter array of the wrong length for its form is an error", function()
  local core = require("dlbench").core
  -- form 0, the pure power law alpha * m^beta, takes 2 parameters
  T.checkerr("params has 1 values, the form needs 2", core.scaling_eval, 0, { 1 }, 2)
  T.checkerr("params has 3 values, the form needs 2", core.scaling_invert, 0, { 1, 2, 3 }, 2)
end)

-- Hoffmann et al. 2022 eq. 4 by hand with eq. 10's rounded coefficients at Gopher's budget
-- C = 5.76e23 (their §3): G = (alpha A / (beta B))^(1/(alpha+beta)) = (138.176 / 114.996)^(1/0.62)
-- = 1.34471; N = G (C/6)^(0.28/0.62) = 3.2190e10; D = C / (6 N) = 2.9823e12; L = 1.93075.
-- (The paper's approach-3 figure of 40B comes from its unrounded fit; these are the rounded
-- eq. 10 constants dlb.scaling.chinchilla holds.)
T.test("compute-optimal Chinchilla by hand, and bad input named", function()
  local o = S.compute_optimal(S.chinchilla, 5.76e23)
  T.near(o.N, 3.2189859e10, 1e-7, "N_opt")
  T.near(o.D, 2.9823057e12, 1e-7, "D_opt")
  T.near(o.loss, 1.9307481, 1e-7, "L at the optimum")
  -- law:loss at N or D <= 0 returned inf or NaN as a loss
  T.checkerr("law:loss: N (parameters) must be a finite number > 0, got -1", S.chinchilla.loss,
    S.chinchilla, -1, 1e9)
  T.checkerr("law:loss: D (tokens) must be a finite number > 0, got 0", S.chinchilla.loss,
    S.chinchilla, 1e9, 0)
  -- the string "6" said "bad argument #7 to 'scaling_compute_optimal'"
  T.checkerr('dlb.scaling.compute_optimal: k (FLOPs per parameter per token) must be a finite '
    .. 'number > 0, got the string "6"', S.compute_optimal, S.chinchilla, 1e21, { k = "6" })
  T.checkerr("k (FLOPs per parameter per token) must be a finite number > 0, got nan",
    S.compute_optimal, S.chinchilla, 1e21, { k = 0 / 0 })
  -- fit_joint: huber = -1 ran least squares without a word; true was a binding's error
  local cols = { N = {}, D = {}, L = {} }
  for i = 1, 6 do
    cols.N[i], cols.D[i] = 1e8 * 2 ^ i, 1e9 * 3 ^ i
    cols.L[i] = S.chinchilla:loss(cols.N[i], cols.D[i])
  end
  for _, h in ipairs { -1, true, "x" } do
    T.checkerr("dlb.scaling.fit_joint: huber must be false or a finite number >= 0", S.fit_joint,
      cols, { huber = h })
  end
  -- fit: a seed without bootstrap= was dropped without a word (project already said so)
  T.checkerr("dlb.scaling.fit: seed= applies to bootstrap=", S.fit, { 1, 2, 4 }, { 3, 2, 1.5 },
    { seed = 3 })
  -- bootstrap= counts: one rule for fit and project (fit's 0 or 1.5 was the binding's "bad
  -- argument #5 to 'scaling_bootstrap'")
  for _, v in ipairs { 0, 1, 1.5, -3 } do
    T.checkerr("dlb.scaling.fit: bootstrap must be true or a whole number of resamples >= 2, got "
      .. tostring(v), S.fit, { 1, 2, 4 }, { 3, 2, 1.5 }, { bootstrap = v })
  end
  T.checkerr('resamples >= 2, got the string "x"', S.fit, { 1, 2, 4 }, { 3, 2, 1.5 },
    { bootstrap = "x" })
  T.checkerr("dlb.scaling.fit_joint: D has 2 values but N has 3", S.fit_joint,
    { N = { 1, 2, 3 }, D = { 1, 2 }, L = { 1, 2, 3 } })
end)

T.done()
