-- dlbench.scaling — scaling laws (dlb.scaling): fit learning curves and model-size laws to
-- your own measurements, project the data, model and compute a target error needs
-- (Hestness, Ardalani, Diamos, PPoPP'19, §3-§5), fit asymptotic per-parameter costs
-- (their Table 2), and the joint loss law L(N, D) with its compute-optimal frontier
-- (Hoffmann et al. 2022). The numerics run in C (graphs/scaling_*.c, graphs/stats/lm.c).
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local M = {}

M.domains = require "dlbench.scaling_domains"
M.domain_names = { "word_lm", "char_lm", "nmt", "speech", "image" }

-- The C enum by name (graphs/stats/dlb_scaling.h, through core.enum).
local FORMS, FORM_NAMES = core.enum_names("DLB_FORM_",
  { POWER_CONST = "power+const", THREE_REGION = "three-region" })
-- Parameter names per form, the class table of a fit and a spec's model-size law, shared
-- with scaling_uncertainty.lua (lua/dlbench/scaling_fit.lua).
local fit = require "dlbench.scaling_fit"
local PARAMS, Fit, spec_params = fit.PARAMS, fit.Fit, fit.spec_params

-- Raise msg at the first caller outside this file (the user's file:line), however deep in
-- dlb.scaling the check ran.
local raise = require("dlbench.errors").raise
local pretty = require "dlbench.pretty"

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

-- A value as an error message shows it: the string "6" said "got 6"; NaN reads "nan" on
-- both backends (Lua 5.4 says "-nan").
local function shown(v)
  return type(v) == "string" and string.format("the string %q", v)
    or (v ~= v and "nan" or tostring(v))
end

local function positive(v, what, fname)
  if type(v) ~= "number" or not (v > 0) or v == math.huge then
    raise(string.format("%s: %s must be a finite number > 0, got %s", fname, what, shown(v)))
  end
  return v
end

local function finite(v, what, fname)
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    raise(string.format("%s: %s must be a finite number, got %s", fname, what, shown(v)))
  end
  return v
end

-- A fitted curve (Fit, from dlbench.scaling_fit): its parameters by name, and methods.
local function curve_params(f)
  local p = {}
  for i, name in ipairs(PARAMS[f._form]) do p[i] = f[name] end
  return p
end

-- One call of the core for a fit's method: a value that is not a number, or the core's
-- refusal, as "fit:<method>: ..." at the caller's line (it was the binding's "bad argument
-- #3 to 'scaling_eval' (number expected, got string)", or the core's bare message).
local function fit_call(method, what, fn, form, params, v)
  if type(v) ~= "number" then
    raise(string.format("fit:%s: %s must be a number, got %s", method, what,
      type(v) == "string" and string.format("the string %q", v) or type(v)))
  end
  local ok, r = pcall(fn, form, params, v)
  if not ok then raise("fit:" .. method .. ": " .. require("dlbench.errors").strip(r)) end
  return r
end

function Fit:predict(x)
  local params = curve_params(self)
  if type(x) == "table" then
    local out = {}
    for i = 1, #x do
      out[i] = fit_call("predict", "x[" .. i .. "]", core.scaling_eval, self._form, params, x[i])
    end
    return out
  end
  return fit_call("predict", "x", core.scaling_eval, self._form, params, x)
end
doc.doc(Fit.predict, "fit:predict(x) -> y (or a list for a list of x)",
  "the fitted curve's value at x")

function Fit:data_for(target)
  return fit_call("data_for", "target", core.scaling_invert, self._form, curve_params(self), target)
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
  -- as dlb.scaling.project says it: a seed without bootstrap= was dropped without a word
  if opts.seed ~= nil and not opts.bootstrap then
    error("dlb.scaling.fit: seed= applies to bootstrap=", 2)
  end
  -- (review 20: a string seed was the binding's "bad argument #6 to 'scaling_bootstrap'";
  -- the core names a number that is not a whole one in [0, 2^53))
  if opts.seed ~= nil and type(opts.seed) ~= "number" then
    raise("dlb.scaling.fit: seed must be a whole number >= 0, got " .. shown(opts.seed))
  end
  if type(xs) ~= "table" or type(ys) ~= "table" then
    error("dlb.scaling.fit: xs and ys must be lists of numbers", 2)
  end
  local okf, r = pcall(core.scaling_fit, form, xs, ys, opts.weights)
  if not okf then raise("dlb.scaling.fit: " .. (require("dlbench.errors").strip(r):gsub("^scaling fit: ", ""))) end
  local f = setmetatable({ form = FORM_NAMES[form], _form = form, params = r.params,
    r2 = r.r2, rss = r.rss, n = r.n, iterations = r.iterations, se = {},
    r2_space = form == 0 and "log" or "linear" }, Fit)
  for i, name in ipairs(PARAMS[form]) do
    f[name] = r.params[i]
    f.se[name] = r.se[i]
  end
  if opts.bootstrap then
    local okr, reps = pcall(require("dlbench.scaling_fit").reps, opts.bootstrap, "dlb.scaling.fit")
    if not okr then raise(reps) end
    local okb, b = pcall(core.scaling_bootstrap, form, xs, ys, opts.weights, reps, opts.seed or 1)
    if not okb then raise("dlb.scaling.fit: " .. require("dlbench.errors").strip(b)) end
    f.bootstrap = { reps = reps, used = b.used, seed = opts.seed or 1, samples = {} }
    local np = #PARAMS[form]
    for i, name in ipairs(PARAMS[form]) do
      f.bootstrap[name] = { se = b.se[i], lo = b.lo[i], hi = b.hi[i] }
    end
    -- the resampled fits, kept: samples[r] = {alpha=, beta=, ...} (what dlb.scaling.project
    -- propagates)
    for r = 1, b.used do
      local s = {}
      for i, name in ipairs(PARAMS[form]) do s[name] = b.samples[(r - 1) * np + i] end
      f.bootstrap.samples[r] = s
    end
  end
  -- the points, kept for resampling later (dlb.scaling.project{bootstrap=})
  f.data = { xs = xs, ys = ys, weights = opts.weights }
  return f
end
doc.doc(M.fit, "dlb.scaling.fit(xs, ys[, {form=, weights=, bootstrap=, seed=}]) -> fit",
  "fit a learning curve or model-size law: form 'power' (alpha*x^beta, log-space least "
  .. "squares; r2 in log space), 'power+const' (+gamma, the irreducible error) or "
  .. "'three-region' (small-data plateau, power law, irreducible; Levenberg-Marquardt, r2 in "
  .. "y space); fit.alpha, .beta, .gamma, .plateau, .se (from the Jacobian), .r2; "
  .. "bootstrap=N adds .bootstrap[name] = {se=, lo=, hi=} (2.5/97.5 percentiles) and keeps "
  .. ".bootstrap.samples[r] = {alpha=, beta=, ...} (seed= makes them reproducible); .data keeps the points")

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
    -- constants checked by name (review 20: a string reached the core's "bad argument")
    for _, k in ipairs { "alpha", "beta_g", "gamma" } do
      if spec[k] ~= nil then finite(spec[k], "spec." .. k, fname) end
    end
    if spec.gamma then return 1, { spec.alpha, spec.beta_g, spec.gamma } end
    return 0, { spec.alpha, spec.beta_g }
  end
  error(fname .. ": the spec needs curve= (a fit) or alpha= and beta_g=", 3)
end

-- The model-size law of a projection spec, checked: model= a fit of dlb.scaling.fit_model_size,
-- or the constants sigma= and beta_p= together (sigma_unit= > 0, default 1). Review 20:
-- sigma = 0 gave params 0 and model_scale NaN, a negative sigma negative parameters,
-- sigma without beta_p was dropped without a word (no params), model = {sigma=, beta_p=}
-- (not a fit) reached the core as nil.
local function spec_model(spec, fname)
  if spec.model ~= nil then
    if getmetatable(spec.model) ~= Fit or spec.model._form ~= 0 then
      raise(fname .. ": spec.model must come from dlb.scaling.fit_model_size (a power law); "
        .. "give the constants sigma= and beta_p= otherwise")
    end
    return
  end
  if (spec.sigma == nil) ~= (spec.beta_p == nil) then
    raise(fname .. ": the model-size law needs sigma= and beta_p= together (p(m) = "
      .. "sigma*m^beta_p), got only " .. (spec.sigma ~= nil and "sigma" or "beta_p"))
  end
  if spec.sigma ~= nil then
    positive(spec.sigma, "spec.sigma", fname)
    finite(spec.beta_p, "spec.beta_p", fname)
  end
  if spec.sigma_unit ~= nil then positive(spec.sigma_unit, "spec.sigma_unit", fname) end
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
    c = { flops = c.flops, bytes = c.bytes, footprint = c.footprint, size = c.size,
          params = c.params }
  elseif type(costs) == "table" then
    -- Table 2's coefficients by the domains' names (flops_per_param, footprint_per_param) or
    -- by the paper's, as dlb.scaling.fit_costs returns them (gamma, delta): review 20, a
    -- fit_costs result was refused here ("costs.flops_per_param must be a number")
    local function coef(name, alias)
      local v, a = costs[name], costs[alias]
      if v ~= nil and a ~= nil and v ~= a then
        error(string.format("%s: costs.%s = %s and costs.%s = %s name one coefficient: give one",
          fname, name, tostring(v), alias, tostring(a)), 3)
      end
      return v == nil and a or v
    end
    local gamma, delta = coef("flops_per_param", "gamma"), coef("footprint_per_param", "delta")
    for _, kv in ipairs { { "flops_per_param (or gamma)", gamma }, { "lambda", costs.lambda },
        { "mu", costs.mu } } do
      if type(kv[2]) ~= "number" then
        error(fname .. ": costs." .. kv[1] .. " must be a number (Table 2 coefficients)", 2)
      end
    end
    if delta ~= nil and type(delta) ~= "number" then
      error(fname .. ": costs.footprint_per_param (or delta) must be a number", 2)
    end
    c = { flops = gamma * b * p,
          bytes = costs.lambda * p + costs.mu * b * math.sqrt(p),
          footprint = delta and delta * p }
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
  .. "footprint = delta*p; costs {gamma= or flops_per_param=, lambda=, mu=, delta= or "
  .. "footprint_per_param=}, e.g. a dlb.scaling.fit_costs result) or a function(p, b) (e.g. "
  .. "over a graph's stats)")

-- Numbers out of a graph's stats (lazy tables whose fields may be bound polynomials).
local function stat_numbers(s, fname, size, b, footprint)
  local r = type(s) == "table" and { params = tonumber(s.params), flops = tonumber(s.flops),
    bytes = tonumber(s.bytes) }
  if not (r and r.params and r.flops and r.bytes) then
    raise(string.format("%s: the stats at size %g, subbatch %g must have numbers params=, "
      .. "flops=, bytes= (bind every dim)", fname, size, b))
  end
  if footprint ~= false then
    -- Hestness et al.'s minimal memory footprint (Tables 2-3): the graph schedule's peak,
    -- which stats under a framework profile keep in footprint_graph (their footprint is the
    -- framework schedule's, every gradient held: docs/frameworks.md "One footprint")
    local ok, fp = pcall(function() return tonumber(rawget(s, "footprint_graph") or s.footprint) end)
    if ok then r.footprint = fp
    elseif footprint == true then
      raise(string.format("%s: footprint at size %g, subbatch %g: %s", fname, size, b,
        tostring(fp)))
    end
  end
  return r
end

-- A family of graphs indexed by one size (a hidden size, a width multiplier): graph is a
-- function(size) -> graph (or stats), e.g. a zoo builder, or a graph whose dim `dim` is the
-- size. Returns stats_at(size, b) -> stats (raw, lazy), and params_at(size, b) -> number.
-- `bind` holds further bindings and g:stats options (optimizer=, precision=); the subbatch
-- is bound as b: a graph without a dim b (a batch that is a number) is an error naming it
-- (binding('s check), unless bind gives b itself.
local function family(graph, dim, bind, fname)
  bind = bind or {}
  if type(bind) ~= "table" then raise(fname .. ": stats= must be a table of g:stats options") end
  local function has_dim(g, name)
    return type(g.missing_dim) ~= "function" or g:missing_dim(name) == nil
  end
  local function binding(extra, g)
    local t = {}
    for k, v in pairs(bind) do t[k] = v end
    for k, v in pairs(extra) do t[k] = v end
    -- a subbatch on a graph without a dim b would bind nothing: every subbatch the step of
    -- the graph's own batch, and project's steps = data / subbatch with that step's FLOPs (a
    -- fixed batch of 8 under subbatch = 128: total FLOPs 16 times too few). An error, as
    -- dlb.roofline.subbatch's on a graph without its dim
    if bind.b == nil and t.b ~= nil and not has_dim(g, "b") then
      raise(string.format("%s: %s: the subbatch %s would bind nothing (every subbatch the "
        .. "graph's own batch); build it with a symbolic batch b (the zoo's default: "
        .. "dlb.models.word_lm{hidden = h})", fname, g:missing_dim("b"), tostring(t.b)))
    end
    return t
  end
  if type(graph) == "function" then
    local function stats_at(size, b)
      local g = graph(size)
      if type(g) == "table" and type(g.stats) == "function" then return g:stats(binding({ b = b }, g)) end
      if type(g) == "table" and g.params ~= nil then return g end
      raise(string.format("%s: graph(%g) must return a graph (or stats), got %s", fname, size,
        type(g)))
    end
    -- each (size, subbatch)'s params found once a family: a search's bisections come back to
    -- its bounds, and a sweep's points to sizes an earlier point's search built (the numbers
    -- are kept, not the graphs or stats)
    local seen = {}
    return stats_at, function(size, b)
      local key = string.format("%.17g|%s", size, tostring(b))
      if seen[key] then return seen[key] end
      local s = stats_at(size, b)
      local v = tonumber(s.params)
      if v == nil then
        raise(string.format("%s: the graph's params at size %g are %s, not a number: bind "
          .. "every dim but the size (stats={...})", fname, size, tostring(s.params)))
      end
      seen[key] = v
      return v
    end
  elseif type(graph) == "table" and type(graph.stats) == "function" then
    if type(dim) ~= "string" then
      raise(fname .. ": a graph needs dim= naming its size dim (e.g. dim=\"h\" for "
        .. "dlb.models.word_lm{hidden=\"h\"}); or give graph=function(size) ... end")
    end
    if not has_dim(graph, dim) then
      raise(string.format("%s: %s: is '%s' its size dim?", fname, graph:missing_dim(dim), dim))
    end
    local sym = {} -- polynomial stats per subbatch, for fast params during a search
    local function stats_at(size, b) return graph:stats(binding({ [dim] = size, b = b }, graph)) end
    local function params_at(size, b)
      if sym[b] == nil then
        local s = graph:stats(binding({ b = b }, graph))
        sym[b] = s.params
      end
      local p = sym[b]
      if type(p) == "number" then return p end
      local ok, v = pcall(function() return tonumber(p { [dim] = size }) end)
      if ok and v then return v end
      v = tonumber(stats_at(size, b).params)
      if v == nil then
        raise(string.format("%s: the graph's params with %s=%g are %s, not a number: is '%s' "
          .. "its size dim? Bind every other dim (stats={...})", fname, dim, size,
          tostring(p), dim))
      end
      return v
    end
    return stats_at, params_at
  end
  raise(fname .. ": graph must be a function(size) -> graph or a graph (with dim=)")
end

-- The size in [lo, hi] whose params are nearest p, by bisection in log size (params grow
-- with size). Integer sizes unless integer == false.
local function size_for(params_at, p, b, lo, hi, integer, fname)
  local plo, phi = params_at(lo, b), params_at(hi, b)
  if not (plo and phi and plo <= p and p <= phi) then
    raise(string.format("%s: %g parameters is outside the sizes' range [%g, %g] "
      .. "(sizes %g to %g; widen lo=/hi=)", fname, p, plo or 0 / 0, phi or 0 / 0, lo, hi))
  end
  for _ = 1, 200 do
    if integer and hi - lo <= 1 then break end
    if not integer and hi / lo - 1 < 1e-12 then break end
    local mid = math.sqrt(lo * hi)
    if integer then mid = math.floor(mid + 0.5) end
    if mid <= lo or mid >= hi then mid = integer and math.floor((lo + hi) / 2) or (lo + hi) / 2 end
    if mid <= lo or mid >= hi then break end
    if params_at(mid, b) < p then lo = mid else hi = mid end
  end
  if math.abs(params_at(lo, b) - p) <= math.abs(params_at(hi, b) - p) then return lo end
  return hi
end

-- The costs function of a graph family: function(p, b) -> the stats (numbers) of the size
-- whose params are nearest p.
local function family_costs(stats_at, params_at, lo, hi, integer, fname)
  lo, hi = lo or 1, hi or 1e7
  positive(lo, "lo", fname)
  positive(hi, "hi", fname)
  return function(p, b)
    local size = size_for(params_at, p, b, lo, hi, integer ~= false, fname)
    local r = stat_numbers(stats_at(size, b), fname, size, b)
    r.size = size
    return r
  end
end

-- dlb.scaling.graph_costs(stats_of[, opts])
function M.graph_costs(stats_of, opts)
  local fname = "dlb.scaling.graph_costs"
  opts = check_opts(opts, { lo = true, hi = true, integer = true, dim = true, stats = true },
    fname)
  local stats_at, params_at
  if type(stats_of) == "function" then
    -- stats_of(size, b) -> stats
    stats_at = function(size, b) return stats_of(size, b) end
    params_at = function(size, b)
      local s = stats_of(size, b)
      local v = type(s) == "table" and tonumber(s.params)
      if not v then
        raise(string.format("%s: stats_of(%g, %g) must return numbers params=, flops=, "
          .. "bytes= (bind every dim)", fname, size, b))
      end
      return v
    end
  elseif type(stats_of) == "table" then
    stats_at, params_at = family(stats_of, opts.dim, opts.stats, fname)
  else
    error(fname .. ": expects a function(size, subbatch) -> stats {params=, flops=, bytes=, "
      .. "footprint=}, or a graph with dim=", 2)
  end
  return family_costs(stats_at, params_at, opts.lo, opts.hi, opts.integer, fname)
end
doc.doc(M.graph_costs, "dlb.scaling.graph_costs(stats_of | graph[, {dim=, stats=, lo=1, "
  .. "hi=1e7, integer=true}]) "
  .. "-> function(p, b)",
  "per-step costs from a graph family: stats_of(size, b) returns a graph's stats (e.g. "
  .. "function(h, b) return dlb.models.word_lm{hidden=h, batch=b}:stats{} end), or a graph "
  .. "with a symbolic size (graph_costs(dlb.models.word_lm{hidden=\"h\"}, {dim=\"h\"})); the "
  .. "returned function finds the size whose params is nearest p (bisection) and returns "
  .. "its {flops=, bytes=, footprint=, params=, size=}, for project's costs=")

-- dlb.scaling.sweep_costs{graph=, dim=, sizes=, batch=, stats=}
function M.sweep_costs(t)
  local fname = "dlb.scaling.sweep_costs"
  t = check_opts(t, { graph = true, dim = true, sizes = true, params = true, points = true,
    batch = true, stats = true, lo = true, hi = true, integer = true }, fname)
  local stats_at, params_at = family(t.graph, t.dim, t.stats, fname)
  local batches = t.batch
  if type(batches) == "number" then batches = { batches } end
  if type(batches) ~= "table" or #batches == 0 then
    error(fname .. ": batch= must be a subbatch or a list of them", 2)
  end
  for _, b in ipairs(batches) do positive(b, "batch", fname) end
  local sizes = t.sizes
  if sizes == nil and type(t.params) == "table" then
    -- sizes whose params are log-spaced over params = {lo, hi}
    local plo, phi = t.params[1], t.params[2]
    positive(plo, "params[1]", fname)
    positive(phi, "params[2]", fname)
    local n = t.points or 6
    if type(n) ~= "number" or n < 2 or n > 1000 or n ~= math.floor(n) then
      error(fname .. ": points= must be an integer from 2 to 1000", 2)
    end
    sizes = {}
    for i = 0, n - 1 do
      local p = plo * (phi / plo) ^ (i / (n - 1))
      local s = size_for(params_at, p, batches[1], t.lo or 1, t.hi or 1e7, t.integer ~= false,
        fname)
      if s ~= sizes[#sizes] then sizes[#sizes + 1] = s end
    end
  end
  if type(sizes) ~= "table" or #sizes == 0 then
    error(fname .. ": give sizes= (a list) or params={lo, hi}", 2)
  end
  local rows = {}
  for _, b in ipairs(batches) do
    for i, size in ipairs(sizes) do
      positive(size, "sizes[" .. i .. "]", fname)
      local r = stat_numbers(stats_at(size, b), fname, size, b)
      r.size, r.batch = size, b
      rows[#rows + 1] = r
    end
  end
  return rows
end
doc.doc(M.sweep_costs, "dlb.scaling.sweep_costs{graph=, dim=, sizes= | params={lo, hi}, "
  .. "points=6, batch=, stats=} -> rows",
  "training-step costs of a graph family over sizes: graph=function(size) -> graph (a zoo "
  .. "builder) or a graph with a symbolic size dim=; sizes= explicit, or params={lo, hi} for "
  .. "points sizes log-spaced in parameters; batch= a subbatch or a list; stats= further "
  .. "g:stats bindings/options; rows {size=, batch=, params=, flops=, bytes=, footprint=} "
  .. "for dlb.scaling.fit_costs")

-- dlb.scaling.step_time(costs, device)
function M.step_time(c, dev, opts)
  local fname = "dlb.scaling.step_time"
  if type(c) ~= "table" or type(c.flops) ~= "number" or type(c.bytes) ~= "number" then
    raise(fname .. ": costs must be {flops=, bytes=[, footprint=]}")
  end
  local hw = require "dlbench.hw"
  if not (type(dev) == "string" or (type(dev) == "table" and getmetatable(dev) == hw.Device)) then
    raise(fname .. ": device must be a catalogue device (dlb.hw.get(\"Hestness-T4\"), "
      .. "dlb.hw.define{...}) or its name, got " .. type(dev))
  end
  if type(dev) == "string" then
    local ok, d = pcall(hw.get, dev)
    if not ok then raise(fname .. ": " .. require("dlbench.errors").strip(d)) end
    dev = d
  end
  -- the whole-graph roofline of §5.2.2, max(c/(80% x_c), a/(70% x_a)): plain numbers, so
  -- dlb.roofline.time does not go op by op
  local roofline = require "dlbench.roofline"
  local r = roofline.time({ flops = c.flops, bytes = c.bytes, footprint = c.footprint }, dev,
    opts)
  if c.footprint == nil then r.fits = nil end
  return r
end
doc.doc(M.step_time, "dlb.scaling.step_time({flops=, bytes=[, footprint=]}, device[, opts]) "
  .. "-> {time=, bound=, compute_time=, memory_time=, fits=, ...}",
  "roofline step time in seconds over the whole step, max(flops/(flops_eff*peak), "
  .. "bytes/(bw_eff*mem_bw)) (Hestness et al. §5.2.2): dlb.roofline.time on a catalogue "
  .. "device, e.g. dlb.hw.get(\"Hestness-T4\") (Table 4: 80% and 70% achievable); opts as "
  .. "dlb.roofline.time's (precision=, flops_eff=, bw_eff=)")

-- the uncertainty of projections (lua/dlbench/scaling_uncertainty.lua)
local U = require "dlbench.scaling_uncertainty"
local propagate, project_tostring = U.propagate, U.project_tostring

-- dlb.scaling.project(spec[, opts])
function M.project(spec, opts)
  local fname = "dlb.scaling.project"
  if type(spec) ~= "table" then error(fname .. ": spec must be a table (e.g. a domain)", 2) end
  opts = check_opts(opts, { target = true, method = true, subbatch = true, device = true,
    costs = true, tokens_per_sample = true, params = true, graph = true, dim = true,
    stats = true, lo = true, hi = true, integer = true, bootstrap = true, seed = true,
    epochs = true, framework = true }, fname)
  local form, q = spec_curve(spec, fname)
  spec_model(spec, fname)
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
    -- the core's refusal (a target at or below gamma, of the curve's wrong sign) named as
    -- project's, at the caller's line (review 20: it was the bare "scaling invert: ...")
    local oki, d = pcall(core.scaling_invert, form, q, target)
    if not oki then raise(fname .. ": " .. require("dlbench.errors").strip(d)) end
    r.data = d
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
  -- a target the current data already reaches (review 21): the curve meets it below the
  -- current data, and r.data (53 samples of the word LM's 768 M for a target of 10) read as
  -- the data to train on, without a word. Kept (where the curve reaches the target) and said:
  -- r.target_met, r.note, printed.
  r.target_met = r.data <= m0
  if r.target_met then
    local cur, which = r.current_error_fit, "the fitted curve's"
    if method == "ratio" then cur, which = spec.current, "the measured" end
    r.note = string.format("target %.4g already met: %s error at the current data (%s) is %.4g; "
      .. "data is where the curve reaches the target, %.3g x the current data, not data still needed",
      target, which, pretty.si(m0, ""), cur, r.data_scale)
  end
  local p0, p1 = spec_params(spec, m0), spec_params(spec, r.data)
  if p0 then
    r.current_params, r.params, r.model_scale = p0, p1, p1 / p0
  end
  if opts.params then r.params = positive(opts.params, "opts.params", fname) end
  local b = opts.subbatch or spec.subbatch or (spec.paper and spec.paper.table3
    and spec.paper.table3.subbatch)
  -- the counts of a step and of a run, checked where they are given (a string reached the
  -- arithmetic below; tokens_per_sample = 0 made the steps infinite)
  if b ~= nil then positive(b, "subbatch", fname) end
  local tps = opts.tokens_per_sample or spec.tokens_per_sample
  if tps ~= nil then positive(tps, "tokens_per_sample", fname) end
  -- the options that shape graph= costs mean nothing without it (framework= says so too)
  if not opts.graph then
    for _, k in ipairs { "dim", "stats", "lo", "hi", "integer" } do
      if opts[k] ~= nil then error(fname .. ": " .. k .. "= applies to graph= costs", 2) end
    end
  end
  if opts.seed ~= nil and not opts.bootstrap then error(fname .. ": seed= applies to bootstrap=", 2) end
  if opts.seed ~= nil and type(opts.seed) ~= "number" then
    raise(fname .. ": seed must be a whole number >= 0, got " .. shown(opts.seed))
  end
  local costs = opts.costs or spec.costs
  local fw = require "dlbench.frameworks"
  if opts.framework ~= nil then
    local ok, e = pcall(fw.get, opts.framework, fname)
    if not ok then error(e, 0) end -- at the user's line already (frameworks.get)
    if not opts.graph then error(fname .. ": framework= applies to graph= costs", 2) end
  end
  if opts.graph then
    if opts.costs then error(fname .. ": give costs= or graph=, not both", 2) end
    -- the graph's costs under a framework profile: framework=, else the default profile
    -- ("auto": the session's, else the family's), unless stats= gives fuse= itself
    local so = {}
    for k, v in pairs(type(opts.stats) == "table" and opts.stats or {}) do so[k] = v end
    if so.fuse == nil and so.framework == nil then so.framework = opts.framework or "auto" end
    local stats_of, params_at = family(opts.graph, opts.dim,
      type(opts.stats) == "table" and so or (opts.stats == nil and so or opts.stats), fname)
    -- the profile named as the stats that gave the costs carry it (framework, source), not
    -- the default's rule: "auto" is the family's default, which g:stats decides (the graph's
    -- model, else its attention pattern); every size of one family resolves alike
    local applied
    local function stats_at(size, b)
      local st = stats_of(size, b)
      local name = type(st) == "table" and rawget(st, "framework")
      if type(name) == "string" then
        applied = { name = name, source = tostring(rawget(st, "framework_source") or "option") }
      end
      return st
    end
    if so.framework == "auto" then
      -- set below from the stats; without a subbatch no graph costs are computed
      r.framework = "none applied (no subbatch: the graph's costs are not computed)"
      r.framework_source = fw.session() and "session default" or "default"
    elseif so.framework then
      r.framework, r.framework_source = fw.get(so.framework).name, "option"
    else
      r.framework, r.framework_source = "none", "explicit switches (stats.fuse=)"
    end
    local f = family_costs(stats_at, params_at, opts.lo, opts.hi, opts.integer, fname)
    costs = function(p, bb)
      local c = f(p, bb)
      if applied and so.framework == "auto" then
        r.framework, r.framework_source = applied.name, applied.source
      end
      return c
    end
  end
  local epochs = opts.epochs or 1
  if type(epochs) ~= "number" or not (epochs > 0) or epochs == math.huge then
    error(fname .. ": epochs must be a positive number (finite), got " .. tostring(epochs), 2)
  end
  if b and costs and r.params then
    r.subbatch = b
    local c = M.step_costs(costs, r.params, b)
    r.flops, r.bytes, r.footprint, r.intensity = c.flops, c.bytes, c.footprint, c.intensity
    r.size, r.graph_params = c.size, c.params
    -- the whole training run: steps = data x epochs / (subbatch x tokens per sample)
    r.epochs = epochs
    r.steps = r.data * epochs / (b * (tps or 1))
    r.total_flops = r.flops * r.steps
    if opts.device then
      local t = M.step_time(c, opts.device)
      r.step_time, r.bound, r.fits = t.time, t.bound, t.fits
      r.device = t.device
      if tps then
        r.epoch_steps = r.data / (b * tps)
        r.epoch_time = r.epoch_steps * r.step_time
        r.epoch_days = r.epoch_time / 86400
      end
    end
  end
  if opts.bootstrap then
    propagate(r, spec, form, target, method, opts, b, costs, tps, epochs, fname)
  end
  if opts.graph then
    -- after the costs: the profile their stats were counted under (above)
    r.provenance = fw.provenance({ name = r.framework }, r.framework_source, "catalogue",
      opts.framework == nil and { "framework " .. r.framework } or {})
  end
  return pretty.object(r, project_tostring)
end
doc.doc(M.project, "dlb.scaling.project(spec[, {target=, method=, subbatch=, device=, "
  .. "costs= | graph=[, dim=, stats=, lo=, hi=], tokens_per_sample=, params=, epochs=1, "
  .. "bootstrap=N, seed=1, framework=}]) -> table",
  "data needed for the target error (spec: a dlb.scaling.domains entry, or {curve=fit, "
  .. "data_size=, desired=, model=fit}), data_scale and model_scale versus the current data "
  .. "and model (Hestness et al. Table 1), params; with a subbatch and costs (Table 2 "
  .. "coefficients, a function(p, b)) or graph= (function(size) -> graph, e.g. function(h) "
  .. "return dlb.models.word_lm{hidden=h} end, or a graph with a symbolic dim=): flops, "
  .. "bytes, footprint per step (and size=, graph_params= of the graph found); with a "
  .. "device (dlb.hw.get(\"Hestness-T4\")): step_time (s), bound, fits, epoch_days (Table 3); "
  .. "total_flops = flops x steps (steps = data x epochs / (subbatch x tokens_per_sample)); "
  .. "bootstrap=N: r.interval.data/params/total_flops = {lo=, hi=, median=} (2.5/97.5 "
  .. "percentiles over the fits' bootstrap samples) and r.bootstrap.samples (seeded)")

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

-- dlb.scaling.fit_graph_costs{graph=, dim=, sizes= | params=, batch=, ...}
function M.fit_graph_costs(t)
  local rows = M.sweep_costs(t)
  local f = M.fit_costs(rows)
  f.rows = rows
  return f
end
doc.doc(M.fit_graph_costs, "dlb.scaling.fit_graph_costs{graph=, dim=, sizes= | params={lo, "
  .. "hi}, points=, batch=, stats=} -> fit",
  "Hestness et al. Table 2 from our own graphs: dlb.scaling.sweep_costs then fit_costs; "
  .. "fit.gamma (FLOPs/param/sample), .lambda, .mu (bytes), .delta (footprint bytes/param), "
  .. ".rows (the sweep)")

-- the joint law of Hoffmann et al. 2022 (lua/dlbench/scaling_joint.lua)
local Law = require("dlbench.scaling_joint").install(M, { positive = positive, finite = finite,
  check_opts = check_opts, raise = raise, getrow = getrow, nrows = nrows })

doc.doc(M.domains, "dlb.scaling.domains.<word_lm|char_lm|nmt|speech|image>",
  "Hestness et al. (PPoPP'19) Table 1 constants (alpha, beta_g, sigma, beta_p, current and "
  .. "desired error, data size and unit), Table 2 costs, Table 3 for comparison, with sources")
doc.doc(M.chinchilla, "dlb.scaling.chinchilla",
  "Hoffmann et al. 2022 eq. 10 law: E=1.69, A=406.4, B=410.7, alpha=0.34, beta=0.28")
doc.doc(M, "dlb.scaling",
  "scaling laws: fit, fit_model_size, project, step_costs, graph_costs, sweep_costs, "
  .. "fit_graph_costs, step_time, fit_costs, fit_joint, law, compute_optimal, k_from_stats, "
  .. "domains (Hestness et al. Table 1-2), chinchilla")
doc.methods(M, Fit, "fit")
doc.methods(M, Law, "law")
return M
