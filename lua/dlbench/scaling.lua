-- dlbench.scaling — scaling laws (dlb.scaling): fit learning curves and model-size laws to
-- your own measurements, project the data, model and compute a target error needs
-- (Hestness, Ardalani, Diamos, PPoPP'19, §3-§5), fit asymptotic per-parameter costs
-- (their Table 2), and the joint loss law L(N, D) with its compute-optimal frontier
-- (Hoffmann et al. 2022). The numerics run in C (graphs/scaling_*.c, graphs/lm.c).
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local M = {}

M.domains = require "dlbench.scaling_domains"
M.domain_names = { "word_lm", "char_lm", "nmt", "speech", "image" }

local FORMS = { power = 0, ["power+const"] = 1, ["three-region"] = 2 }
local FORM_NAMES = { [0] = "power", [1] = "power+const", [2] = "three-region" }
local PARAMS = {
  [0] = { "alpha", "beta" },
  [1] = { "alpha", "beta", "gamma" },
  [2] = { "alpha", "beta", "gamma", "plateau" },
}

-- Options tables: unknown keys are errors naming the key and the accepted ones.
local function check_opts(opts, valid, fname) return options.check(opts, valid, fname, 3) end

local function form_id(name, fname)
  if name == nil then return 0 end
  local id = FORMS[name]
  if id == nil then
    error(string.format("%s: unknown form '%s' (accepted: power, power+const, three-region)",
      fname, tostring(name)), 3)
  end
  return id
end

local function positive(v, what, fname)
  if type(v) ~= "number" or not (v > 0) or v == math.huge then
    error(string.format("%s: %s must be a finite number > 0, got %s", fname, what,
      tostring(v)), 3)
  end
  return v
end

-- A fitted curve: its parameters by name, and methods.
local Fit = {}
Fit.__index = Fit

local function curve_params(f)
  local p = {}
  for i, name in ipairs(PARAMS[f._form]) do p[i] = f[name] end
  return p
end

function Fit:predict(x)
  if type(x) == "table" then
    local out = {}
    for i = 1, #x do out[i] = core.scaling_eval(self._form, curve_params(self), x[i]) end
    return out
  end
  return core.scaling_eval(self._form, curve_params(self), x)
end
doc.doc(Fit.predict, "fit:predict(x) -> y (or a list for a list of x)",
  "the fitted curve's value at x")

function Fit:data_for(target)
  return core.scaling_invert(self._form, curve_params(self), target)
end
doc.doc(Fit.data_for, "fit:data_for(target) -> x",
  "the x (data size) at which the fitted curve reaches target; an error when unreachable "
  .. "(at or below the irreducible error, above the plateau)")

function Fit:__tostring()
  local parts = {}
  for _, name in ipairs(PARAMS[self._form]) do
    parts[#parts + 1] = string.format("%s=%.6g±%.2g", name, self[name], self.se[name])
  end
  return string.format("scaling fit (%s): %s, r2=%.6f (%s space), n=%d", self.form,
    table.concat(parts, ", "), self.r2, self.r2_space, self.n)
end

-- dlb.scaling.fit(xs, ys[, opts])
function M.fit(xs, ys, opts)
  opts = check_opts(opts, { form = true, weights = true, bootstrap = true, seed = true },
    "dlb.scaling.fit")
  local form = form_id(opts.form, "dlb.scaling.fit")
  if type(xs) ~= "table" or type(ys) ~= "table" then
    error("dlb.scaling.fit: xs and ys must be lists of numbers", 2)
  end
  local r = core.scaling_fit(form, xs, ys, opts.weights)
  local f = setmetatable({ form = FORM_NAMES[form], _form = form, params = r.params,
    r2 = r.r2, rss = r.rss, n = r.n, iterations = r.iterations, se = {},
    r2_space = form == 0 and "log" or "linear" }, Fit)
  for i, name in ipairs(PARAMS[form]) do
    f[name] = r.params[i]
    f.se[name] = r.se[i]
  end
  if opts.bootstrap then
    local reps = opts.bootstrap == true and 1000 or opts.bootstrap
    if type(reps) ~= "number" then
      error("dlb.scaling.fit: bootstrap must be true or a number of resamples", 2)
    end
    local b = core.scaling_bootstrap(form, xs, ys, opts.weights, reps, opts.seed or 1)
    f.bootstrap = { reps = reps, used = b.used }
    for i, name in ipairs(PARAMS[form]) do
      f.bootstrap[name] = { se = b.se[i], lo = b.lo[i], hi = b.hi[i] }
    end
  end
  return f
end
doc.doc(M.fit, "dlb.scaling.fit(xs, ys[, {form=, weights=, bootstrap=, seed=}]) -> fit",
  "fit a learning curve or model-size law: form 'power' (alpha*x^beta, log-space least "
  .. "squares; r2 in log space), 'power+const' (+gamma, the irreducible error) or "
  .. "'three-region' (small-data plateau, power law, irreducible; Levenberg-Marquardt, r2 in "
  .. "y space); fit.alpha, .beta, .gamma, .plateau, .se (from the Jacobian), .r2; "
  .. "bootstrap=N adds .bootstrap[name] = {se=, lo=, hi=} (2.5/97.5 percentiles)")

-- dlb.scaling.fit_model_size(ms, ps[, opts])
function M.fit_model_size(ms, ps, opts)
  local f = M.fit(ms, ps, opts)
  if f.form ~= "power" then
    error("dlb.scaling.fit_model_size: the model-size law is a pure power law", 2)
  end
  f.sigma, f.beta_p = f.alpha, f.beta
  return f
end
doc.doc(M.fit_model_size, "dlb.scaling.fit_model_size(ms, params[, opts]) -> fit",
  "fit p(m) = sigma*m^beta_p (Hestness et al. eq. 2); fit.sigma, fit.beta_p")

-- The learning curve of a projection spec: a fit, or alpha/beta_g[/gamma] constants.
local function spec_curve(spec, fname)
  if spec.curve then
    local c = spec.curve
    if getmetatable(c) ~= Fit then error(fname .. ": curve must come from dlb.scaling.fit", 3) end
    return c._form, curve_params(c)
  end
  if spec.alpha and spec.beta_g then
    if spec.gamma then return 1, { spec.alpha, spec.beta_g, spec.gamma } end
    return 0, { spec.alpha, spec.beta_g }
  end
  error(fname .. ": the spec needs curve= (a fit) or alpha= and beta_g=", 3)
end

-- Parameters at data size m from the spec's model-size law (nil when it has none).
local function spec_params(spec, m)
  if spec.model then
    return core.scaling_eval(0, { spec.model.alpha, spec.model.beta }, m)
  end
  if spec.sigma and spec.beta_p then
    return spec.sigma * m ^ spec.beta_p * (spec.sigma_unit or 1)
  end
  return nil
end

-- Per-step costs at p parameters and subbatch b: a function(p, b) -> {flops=, bytes=,
-- footprint=}, or Table 2 coefficients {flops_per_param=, lambda=, mu=, footprint_per_param=}.
function M.step_costs(costs, p, b)
  local fname = "dlb.scaling.step_costs"
  positive(p, "params", fname)
  positive(b, "subbatch", fname)
  local c
  if type(costs) == "function" then
    c = costs(p, b)
    if type(c) ~= "table" or type(c.flops) ~= "number" or type(c.bytes) ~= "number" then
      error(fname .. ": the costs function must return {flops=, bytes=[, footprint=]}", 2)
    end
    c = { flops = c.flops, bytes = c.bytes, footprint = c.footprint }
  elseif type(costs) == "table" then
    for _, k in ipairs { "flops_per_param", "lambda", "mu" } do
      if type(costs[k]) ~= "number" then
        error(fname .. ": costs." .. k .. " must be a number (Table 2 coefficients)", 2)
      end
    end
    c = { flops = costs.flops_per_param * b * p,
          bytes = costs.lambda * p + costs.mu * b * math.sqrt(p),
          footprint = costs.footprint_per_param and costs.footprint_per_param * p }
  else
    error(fname .. ": costs must be a function(p, b) or a table of Table 2 coefficients", 2)
  end
  c.intensity = c.flops / c.bytes
  return c
end
doc.doc(M.step_costs, "dlb.scaling.step_costs(costs, params, subbatch) -> "
  .. "{flops=, bytes=, footprint=, intensity=}",
  "training-step FLOPs, bytes accessed and minimal footprint (bytes) at a model size: "
  .. "Hestness et al. Table 2 (flops = gamma*b*p, bytes = lambda*p + mu*b*sqrt(p), "
  .. "footprint = delta*p) or a function(p, b) (e.g. over a graph's stats)")

-- dlb.scaling.graph_costs(stats_of[, opts])
function M.graph_costs(stats_of, opts)
  local fname = "dlb.scaling.graph_costs"
  if type(stats_of) ~= "function" then
    error(fname .. ": expects a function(size, subbatch) -> stats {params=, flops=, bytes=, "
      .. "footprint=}", 2)
  end
  opts = check_opts(opts, { lo = true, hi = true, integer = true }, fname)
  local lo0, hi0 = opts.lo or 1, opts.hi or 1e7
  positive(lo0, "opts.lo", fname)
  positive(hi0, "opts.hi", fname)
  local integer = opts.integer ~= false
  local function stats(size, b)
    local s = stats_of(size, b)
    local r = type(s) == "table" and { params = tonumber(s.params), flops = tonumber(s.flops),
      bytes = tonumber(s.bytes), footprint = tonumber(s.footprint) }
    if not (r and r.params and r.flops and r.bytes) then
      error(string.format("%s: stats_of(%g, %g) must return numbers params=, flops=, bytes= "
        .. "(bind every dim)", fname, size, b), 3)
    end
    return r
  end
  return function(p, b)
    local lo, hi = lo0, hi0
    local plo, phi = stats(lo, b).params, stats(hi, b).params
    if not (plo <= p and p <= phi) then
      error(string.format("%s: %g parameters is outside the sizes' range [%g, %g] "
        .. "(sizes %g to %g; widen opts.lo/opts.hi)", fname, p, plo, phi, lo, hi), 2)
    end
    for _ = 1, 200 do -- bisection in log size: params grow with size
      if integer and hi - lo <= 1 then break end
      if not integer and hi / lo - 1 < 1e-12 then break end
      local mid = math.sqrt(lo * hi)
      if integer then mid = math.floor(mid + 0.5) end
      if mid <= lo or mid >= hi then mid = integer and math.floor((lo + hi) / 2) or (lo + hi) / 2 end
      if mid <= lo or mid >= hi then break end
      if stats(mid, b).params < p then lo = mid else hi = mid end
    end
    local slo, shi = stats(lo, b), stats(hi, b)
    local r = (math.abs(slo.params - p) <= math.abs(shi.params - p)) and slo or shi
    r.size = r == slo and lo or hi
    return r
  end
end
doc.doc(M.graph_costs, "dlb.scaling.graph_costs(stats_of[, {lo=1, hi=1e7, integer=true}]) "
  .. "-> function(p, b)",
  "per-step costs from a graph: stats_of(size, b) returns a graph's stats (e.g. "
  .. "function(h, b) return dlb.models.word_lm{hidden=h, batch=b}:stats{} end); the "
  .. "returned function finds the size whose params is nearest p (bisection) and returns "
  .. "its {flops=, bytes=, footprint=, params=, size=}, for project's costs=")

-- The accelerator of Hestness et al. Table 4 (V100-like) with §5.2's achievable fractions.
M.table4_device = {
  name = "Hestness et al. Table 4 target accelerator (V100-like)",
  peak = { fp32 = 15.67e12 }, mem_bw = 898e9, mem = 32e9, cache = 6e6, link_bw = 56e9,
  flops_eff = 0.8, bw_eff = 0.7,
  source = "Hestness, Ardalani, Diamos PPoPP'19, Table 4 and §5.2 (80% of peak FLOP/s, "
    .. "70% of peak bandwidth)",
}

local function device_numbers(dev, fname)
  if type(dev) ~= "table" then error(fname .. ": device must be a table", 3) end
  local peak = dev.peak
  if type(peak) == "table" then
    peak = peak[type(dev.precision) == "string" and dev.precision or "fp32"]
  end
  if type(peak) ~= "number" or type(dev.mem_bw) ~= "number" then
    error(fname .. ": device needs peak= (FLOP/s, or {fp32=...}) and mem_bw= (bytes/s)", 3)
  end
  return peak, dev.mem_bw, dev.flops_eff or 0.8, dev.bw_eff or 0.7
end

-- dlb.scaling.step_time(costs, device)
function M.step_time(c, dev)
  local fname = "dlb.scaling.step_time"
  local peak, bw, fe, be = device_numbers(dev, fname)
  if type(c) ~= "table" or type(c.flops) ~= "number" or type(c.bytes) ~= "number" then
    error(fname .. ": costs must be {flops=, bytes=[, footprint=]}", 2)
  end
  local tc, tm = c.flops / (fe * peak), c.bytes / (be * bw)
  local r = { compute_time = tc, memory_time = tm, time = math.max(tc, tm),
              bound = tc >= tm and "compute" or "memory" }
  if c.footprint and dev.mem then r.fits = c.footprint <= dev.mem end
  return r
end
doc.doc(M.step_time, "dlb.scaling.step_time({flops=, bytes=[, footprint=]}, device) -> "
  .. "{time=, bound=, compute_time=, memory_time=, fits=}",
  "roofline step time in seconds, max(flops/(flops_eff*peak), bytes/(bw_eff*mem_bw)) "
  .. "(Hestness et al. §5.2.2); device = {peak=, mem_bw=[, mem=, flops_eff=0.8, bw_eff=0.7]}")

-- dlb.scaling.project(spec[, opts])
function M.project(spec, opts)
  local fname = "dlb.scaling.project"
  if type(spec) ~= "table" then error(fname .. ": spec must be a table (e.g. a domain)", 2) end
  opts = check_opts(opts, { target = true, method = true, subbatch = true, device = true,
    costs = true, tokens_per_sample = true, params = true }, fname)
  local form, q = spec_curve(spec, fname)
  local m0 = positive(spec.data_size, "spec.data_size (current data)", fname)
  local target = opts.target or spec.desired
  if type(target) ~= "number" then
    error(fname .. ": no target error (opts.target or spec.desired)", 2)
  end
  local method = opts.method or "curve"
  local r = { target = target, current_data = m0, method = method, form = FORM_NAMES[form] }
  r.current_error_fit = core.scaling_eval(form, q, m0)
  r.current_error = spec.current
  if method == "curve" then
    r.data = core.scaling_invert(form, q, target)
  elseif method == "ratio" then
    -- anchored at the measured current error: m = m0 * (target/current)^(1/beta)
    if form ~= 0 then error(fname .. ": method 'ratio' needs a pure power law", 2) end
    positive(spec.current, "spec.current (current error, for method 'ratio')", fname)
    positive(target, "the target", fname)
    r.data = m0 * (target / spec.current) ^ (1 / q[2])
  else
    error(fname .. ": unknown method '" .. tostring(method) .. "' (accepted: curve, ratio)", 2)
  end
  r.data_scale = r.data / m0
  local p0, p1 = spec_params(spec, m0), spec_params(spec, r.data)
  if p0 then
    r.current_params, r.params, r.model_scale = p0, p1, p1 / p0
  end
  if opts.params then r.params = positive(opts.params, "opts.params", fname) end
  local b = opts.subbatch or spec.subbatch or (spec.paper and spec.paper.table3
    and spec.paper.table3.subbatch)
  local costs = opts.costs or spec.costs
  if b and costs and r.params then
    r.subbatch = b
    local c = M.step_costs(costs, r.params, b)
    r.flops, r.bytes, r.footprint, r.intensity = c.flops, c.bytes, c.footprint, c.intensity
    if opts.device then
      local t = M.step_time(c, opts.device)
      r.step_time, r.bound, r.fits = t.time, t.bound, t.fits
      local tps = opts.tokens_per_sample or spec.tokens_per_sample
      if tps then
        r.epoch_steps = r.data / (b * tps)
        r.epoch_time = r.epoch_steps * r.step_time
        r.epoch_days = r.epoch_time / 86400
      end
    end
  end
  return r
end
doc.doc(M.project, "dlb.scaling.project(spec[, {target=, method=, subbatch=, device=, "
  .. "costs=, tokens_per_sample=, params=}]) -> table",
  "data needed for the target error (spec: a dlb.scaling.domains entry, or {curve=fit, "
  .. "data_size=, desired=, model=fit}), data_scale and model_scale versus the current data "
  .. "and model (Hestness et al. Table 1), params; with a subbatch and costs: flops, bytes, "
  .. "footprint per step; with a device: step_time (s), bound, epoch_days (Table 3)")

local function getrow(rows, i)
  if type(rows.row) == "function" then return rows:row(i) end
  return rows[i]
end

local function nrows(rows)
  if type(rows.count) == "function" then return rows:count() end
  return #rows
end

-- dlb.scaling.fit_costs(rows)
function M.fit_costs(rows)
  local fname = "dlb.scaling.fit_costs"
  if type(rows) ~= "table" then error(fname .. ": rows must be a list of tables", 2) end
  local n = nrows(rows)
  local cols = { params = {}, batch = {}, flops = {}, bytes = {}, footprint = {} }
  local have = { flops = 0, bytes = 0, footprint = 0 }
  for i = 1, n do
    local row = getrow(rows, i)
    if type(row) ~= "table" then error(fname .. ": row " .. i .. " is not a table", 2) end
    local p, b = row.params or row.p, row.batch or row.b or row.subbatch
    if type(p) ~= "number" or type(b) ~= "number" then
      error(string.format("%s: row %d needs numbers params= and batch=", fname, i), 2)
    end
    cols.params[i], cols.batch[i] = p, b
    for k in pairs(have) do
      local v = row[k]
      if v ~= nil then
        if type(v) ~= "number" then
          error(string.format("%s: row %d: %s is a %s, not a number", fname, i, k, type(v)), 2)
        end
        cols[k][i] = v
        have[k] = have[k] + 1
      end
    end
  end
  for k, c in pairs(have) do
    if c ~= 0 and c ~= n then
      error(string.format("%s: %s is given in %d of %d rows (all or none)", fname, k, c, n), 2)
    end
  end
  local r = core.scaling_fit_costs(cols.params, cols.batch,
    have.flops > 0 and cols.flops or nil, have.bytes > 0 and cols.bytes or nil,
    have.footprint > 0 and cols.footprint or nil)
  local function num(v) if v == v then return v end return nil end
  local out = {
    gamma = num(r.gamma), lambda = num(r.lambda), mu = num(r.mu), delta = num(r.delta),
    se = { gamma = num(r.gamma_se), lambda = num(r.lambda_se), mu = num(r.mu_se),
           delta = num(r.delta_se) },
    r2 = { flops = num(r.gamma_r2), bytes = num(r.bytes_r2), footprint = num(r.footprint_r2) },
    n = n,
  }
  if out.gamma and out.lambda then
    out.intensity = { out.lambda / out.gamma, out.mu / out.gamma }
  end
  return out
end
doc.doc(M.fit_costs, "dlb.scaling.fit_costs(rows) -> {gamma=, lambda=, mu=, delta=, "
  .. "intensity={c1, c2}, se=, r2=}",
  "fit Hestness et al. Table 2 from measured steps (rows {params=, batch=, flops=, bytes=, "
  .. "footprint=} per step): flops = gamma*b*p, bytes = lambda*p + mu*b*sqrt(p), footprint "
  .. "= delta*p by relative-error least squares; intensity = b*sqrt(p)/(c1*sqrt(p) + c2*b)")

-- A joint loss law L(N, D) = E + A/N^alpha + B/D^beta.
local Law = {}
Law.__index = Law

function Law:loss(N, D)
  return self.E + self.A / N ^ self.alpha + self.B / D ^ self.beta
end
doc.doc(Law.loss, "law:loss(N, D) -> L", "the joint law's loss at N parameters, D tokens")

function Law:compute_optimal(C, opts)
  return M.compute_optimal(self, C, opts)
end
doc.doc(Law.compute_optimal, "law:compute_optimal(C[, {k=, stats=, tokens=}]) -> table",
  "see dlb.scaling.compute_optimal")

-- dlb.scaling.law{E=, A=, B=, alpha=, beta=}
function M.law(t)
  local fname = "dlb.scaling.law"
  if type(t) ~= "table" then error(fname .. ": expects {E=, A=, B=, alpha=, beta=}", 2) end
  for _, k in ipairs { "E", "A", "B", "alpha", "beta" } do
    if type(t[k]) ~= "number" then error(fname .. ": " .. k .. " must be a number", 2) end
  end
  local l = setmetatable({}, Law)
  for k, v in pairs(t) do l[k] = v end
  return l
end
doc.doc(M.law, "dlb.scaling.law{E=, A=, B=, alpha=, beta=} -> law",
  "a joint loss law L(N, D) = E + A/N^alpha + B/D^beta with :loss and :compute_optimal")

-- Hoffmann et al. 2022 eq. 10, their fitted law.
M.chinchilla = M.law { E = 1.69, A = 406.4, B = 410.7, alpha = 0.34, beta = 0.28,
  source = "Hoffmann et al. 2022, 'Training Compute-Optimal Large Language Models', eq. 10" }

-- dlb.scaling.fit_joint(runs[, opts])
function M.fit_joint(runs, opts)
  local fname = "dlb.scaling.fit_joint"
  opts = check_opts(opts, { huber = true }, fname)
  if type(runs) ~= "table" then error(fname .. ": runs must be a list of {N=, D=, L=}", 2) end
  local N, D, L = {}, {}, {}
  if type(runs.N) == "table" then
    N, D, L = runs.N, runs.D, runs.L
    if type(D) ~= "table" or type(L) ~= "table" then
      error(fname .. ": columns N=, D= and L= must all be lists", 2)
    end
  else
    for i = 1, nrows(runs) do
      local r = getrow(runs, i)
      if type(r) ~= "table" then error(fname .. ": run " .. i .. " is not a table", 2) end
      N[i] = r.N or r.params
      D[i] = r.D or r.tokens
      L[i] = r.L or r.loss
      if type(N[i]) ~= "number" or type(D[i]) ~= "number" or type(L[i]) ~= "number" then
        error(string.format("%s: run %d needs numbers N (params), D (tokens), L (loss)",
          fname, i), 2)
      end
    end
  end
  local huber = opts.huber
  if huber == nil then huber = 1e-3 end
  if huber == false then huber = 0 end
  local r = core.scaling_fit_joint(N, D, L, huber)
  local law = M.law { E = r.E, A = r.A, B = r.B, alpha = r.alpha, beta = r.beta }
  law.se = { E = r.se[1], A = r.se[2], B = r.se[3], alpha = r.se[4], beta = r.se[5] }
  law.r2, law.rss, law.n, law.iterations = r.r2, r.rss, r.n, r.iterations
  law.huber = huber
  law.a = law.beta / (law.alpha + law.beta)
  law.b = law.alpha / (law.alpha + law.beta)
  return law
end
doc.doc(M.fit_joint, "dlb.scaling.fit_joint(runs[, {huber=1e-3}]) -> law",
  "fit L(N, D) = E + A/N^alpha + B/D^beta (Hoffmann et al. 2022) to runs {N=, D=, L=} (or "
  .. "params=, tokens=, loss=; or columns {N={}, D={}, L={}}), in log space like the paper: "
  .. "Huber loss with delta huber (false or 0: least squares), Levenberg-Marquardt from a "
  .. "grid of starts; law.E, .A, .B, .alpha, .beta, .se, .r2 (log L), .a, .b exponents")

-- dlb.scaling.k_from_stats(stats, tokens)
function M.k_from_stats(stats, tokens)
  local fname = "dlb.scaling.k_from_stats"
  if type(stats) ~= "table" then error(fname .. ": stats must be {flops=, params=}", 2) end
  local f, p = tonumber(stats.flops), tonumber(stats.params)
  if not f or not p then
    error(fname .. ": stats.flops and stats.params must be numbers (bind every dim)", 2)
  end
  positive(tokens, "tokens (per training step)", fname)
  positive(p, "stats.params", fname)
  return f / (p * tokens)
end
doc.doc(M.k_from_stats, "dlb.scaling.k_from_stats(stats, tokens) -> k",
  "training FLOPs per token per parameter of a step: stats.flops / (stats.params * tokens) "
  .. "(about 6 for a dense transformer), for compute_optimal's C = k*N*D")

-- dlb.scaling.compute_optimal(law, C[, opts])
function M.compute_optimal(law, C, opts)
  local fname = "dlb.scaling.compute_optimal"
  opts = check_opts(opts, { k = true, stats = true, tokens = true }, fname)
  if type(law) ~= "table" then error(fname .. ": law must be a dlb.scaling.law", 2) end
  local k = opts.k or 6
  if opts.stats then
    if opts.k then error(fname .. ": give k= or stats=, not both", 2) end
    k = M.k_from_stats(opts.stats, opts.tokens)
  end
  local r = core.scaling_compute_optimal(law.E, law.A, law.B, law.alpha, law.beta, C, k)
  r.C, r.k = C, k
  return r
end
doc.doc(M.compute_optimal, "dlb.scaling.compute_optimal(law, C[, {k=6 | stats=, tokens=}]) "
  .. "-> {N=, D=, loss=, a=, b=, k=}",
  "compute-optimal parameters N and tokens D for a budget of C FLOPs with C = k*N*D "
  .. "(Hoffmann et al. 2022 eq. 4): N = G*(C/k)^a, D = (C/k)^b/G, a = beta/(alpha+beta), "
  .. "b = alpha/(alpha+beta); k from a graph's stats with stats= and tokens= per step")

doc.doc(M.domains, "dlb.scaling.domains.<word_lm|char_lm|nmt|speech|image>",
  "Hestness et al. (PPoPP'19) Table 1 constants (alpha, beta_g, sigma, beta_p, current and "
  .. "desired error, data size and unit), Table 2 costs, Table 3 for comparison, with sources")
doc.doc(M.table4_device, "dlb.scaling.table4_device",
  "the Table 4 accelerator of Hestness et al.: 15.67 TFLOP/s fp32 (80% achievable), "
  .. "898 GB/s (70%), 32 GB, 6 MB cache")
doc.doc(M.chinchilla, "dlb.scaling.chinchilla",
  "Hoffmann et al. 2022 eq. 10 law: E=1.69, A=406.4, B=410.7, alpha=0.34, beta=0.28")
doc.doc(M, "dlb.scaling",
  "scaling laws: fit, fit_model_size, project, step_costs, graph_costs, step_time, fit_costs, "
  .. "fit_joint, "
  .. "law, compute_optimal, k_from_stats, domains (Hestness et al. Table 1-2), chinchilla, "
  .. "table4_device")
return M
