-- dlbench.scaling_uncertainty — how sure a dlb.scaling.project projection is (issue
-- [14]): the bootstrap samples of the fits (kept, or resampled from the fit's points,
-- seeded) propagated to the data needed, the model size and the total training compute;
-- and the projection's one-line summary. docs/scaling.md "Projection". Used by scaling.lua
-- (M.propagate, M.project_tostring); the total compute goes through dlb.scaling.step_costs,
-- looked up when called (dlbench.scaling requires this module).
local core = require "dlbench.backend"
local pretty = require "dlbench.pretty"
local raise = require("dlbench.errors").raise
local fit = require "dlbench.scaling_fit"
local Fit, PARAMS, spec_params = fit.Fit, fit.PARAMS, fit.spec_params
local function step_costs(...) return require("dlbench.scaling").step_costs(...) end

local M = {}

-- The bootstrap samples of a fit: its kept ones when they match reps and seed, else a new
-- resampling of its points (nil when the fit has no points: built from constants).
local function fit_samples(f, reps, seed, fname)
  if getmetatable(f) ~= Fit then return nil end
  local b = f.bootstrap
  if b and b.samples and b.reps == reps and b.seed == seed then return b.samples end
  if not f.data then return nil end
  local ok, res = pcall(core.scaling_bootstrap, f._form, f.data.xs, f.data.ys, f.data.weights, reps, seed)
  if not ok then raise(fname .. ": bootstrap: " .. require("dlbench.errors").strip(res)) end
  local np, out = #PARAMS[f._form], {}
  for r = 1, res.used do
    local s = {}
    for i, name in ipairs(PARAMS[f._form]) do s[name] = res.samples[(r - 1) * np + i] end
    out[r] = s
  end
  return out
end

-- Propagate the fits' uncertainty through a projection: every bootstrap sample of the
-- learning curve (paired with the same-numbered sample of the model-size law when the spec
-- has a fitted one) gives the data needed for the target, the model size there and the
-- total training compute; r.interval holds their 2.5/97.5 percentiles and r.bootstrap the
-- samples (seeded: the same seed gives the same numbers).
local function propagate(r, spec, form, target, method, opts, b, costs, tps, epochs, fname)
  local okr, reps = pcall(fit.reps, opts.bootstrap, fname)
  if not okr then raise(reps) end
  local seed = opts.seed or 1
  local cs = fit_samples(spec.curve, reps, seed, fname)
  if not cs then
    raise(fname .. ": bootstrap needs spec.curve from dlb.scaling.fit (its points are resampled)")
  end
  local ms = spec.model and fit_samples(spec.model, reps, seed + 1, fname) or nil
  local out = { data = {}, params = {}, total_flops = {} }
  local unreachable = 0
  local names = PARAMS[form]
  for i, s in ipairs(cs) do
    local q = {}
    for k, name in ipairs(names) do q[k] = s[name] end
    local ok, d
    if method == "ratio" then
      ok, d = true, r.current_data * (target / spec.current) ^ (1 / q[2])
    else
      ok, d = pcall(core.scaling_invert, form, q, target)
    end
    if ok and d == d and d > 0 and d < math.huge then
      out.data[#out.data + 1] = d
      local p
      if ms and ms[(i - 1) % #ms + 1] then
        local m = ms[(i - 1) % #ms + 1]
        p = core.scaling_eval(0, { m.alpha, m.beta }, d)
      else
        p = spec_params(spec, d)
      end
      if opts.params then p = opts.params end
      if p then
        out.params[#out.params + 1] = p
        if b and costs then
          local c = step_costs(costs, p, b)
          out.total_flops[#out.total_flops + 1] = c.flops * d * epochs / (b * (tps or 1))
        end
      end
    else
      unreachable = unreachable + 1
    end
  end
  r.interval = {}
  for k, v in pairs(out) do
    if #v > 0 then -- numpy's linear percentiles: the one rule, graphs/stats/stats.c
      local q = core.stats_percentiles(v, { 2.5, 97.5, 50 })
      r.interval[k] = { lo = q[1], hi = q[2], median = q[3] }
    end
  end
  r.bootstrap = { reps = reps, used = #cs, seed = seed, unreachable = unreachable, samples = out }
end

-- "projection: 2.1e9 words (x12.3 data) [1.5e9, 3e9], 1.2e8 params [...], total 3.4e21
-- FLOP [...]": what the REPL shows for dlb.scaling.project's result.
local function project_tostring(r)
  local P = pretty
  local function iv(k, unit)
    local i = r.interval and r.interval[k]
    if not i then return "" end
    return string.format(" [%s, %s]", P.si(i.lo, unit), P.si(i.hi, unit))
  end
  local out = { string.format("projection to %.4g: data %s (x%.3g)%s", r.target, P.si(r.data, ""),
    r.data_scale, iv("data", "")) }
  if r.note then out[#out + 1] = string.upper(r.note:sub(1, 1)) .. r.note:sub(2) end
  if r.params then out[#out + 1] = string.format("model %s params%s", P.si(r.params, ""), iv("params", "")) end
  if r.total_flops then
    out[#out + 1] = string.format("total %s%s over %s steps", P.si(r.total_flops, "FLOP"),
      iv("total_flops", "FLOP"), P.si(r.steps, ""))
  end
  if r.step_time then out[#out + 1] = "step " .. P.seconds(r.step_time) end
  if r.framework then out[#out + 1] = "framework " .. tostring(r.framework) end
  return table.concat(out, ", ")
end

M.propagate, M.project_tostring = propagate, project_tostring
return M
