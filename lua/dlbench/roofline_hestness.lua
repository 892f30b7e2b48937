-- dlbench.roofline_hestness — Hestness et al. 2019's two uses of the roofline: the subbatch
-- choice (dlb.roofline.subbatch, sec. 5.2.1, Fig 11) and Table 2's asymptotic step costs
-- (dlb.roofline.hestness). Reached as dlb.roofline.* (this module's names are installed
-- there by dlbench.roofline). See docs/hw.md.
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local M = {}

local function checkopts(opts, valid, fn) return options.check(opts, valid, fn, 3) end

-- == subbatch choice (Hestness 5.2.1) =============================================

local sub_opts = { batches = true, dim = true, bind = true, tol = true, sat_tol = true,
  ridge = true, precision = true, per_op = true, cache_aware = true, cache_fraction = true,
  tile = true, require_fit = true }

-- Sweep the subbatch b over opts.batches (default 1, 2, 4, ..., 4096) and find Hestness's
-- three points of interest: where graph intensity nears saturation (within sat_tol of its
-- largest value on the sweep), where it reaches the device's ridge point (achievable rates
-- unless ridge = "peak"), and the smallest b whose time per sample is within tol of the
-- smallest. `model` is a function b -> stats (or {flops=, bytes=[, footprint=]}) or a
-- graph with a `stats` method (opts.dim names its batch dim, default "b").
function M.subbatch(model, dev, opts)
  local fn = "dlb.roofline.subbatch"
  local R = require "dlbench.roofline"   -- loaded: its names include these
  opts = checkopts(opts, sub_opts, fn)
  dev = R._device(dev, fn)
  local f
  if type(model) == "function" then
    f = model
  elseif type(model) == "table" and type(model.stats) == "function" then
    local dim = opts.dim or "b"
    -- (before fixes9 a graph without the dim gave the same stats at every b, silently)
    local nodim = type(model.missing_dim) == "function" and model:missing_dim(dim)
    if nodim then error(fn .. ": " .. nodim .. ": name its batch dim with dim=", 2) end
    f = function(b)
      local bind = {}
      for k, v in pairs(opts.bind or {}) do bind[k] = v end
      bind[dim] = b
      return model:stats(bind)
    end
  else
    error(fn .. ": expected a function batch -> stats or a graph, got " .. type(model), 2)
  end
  local batches = opts.batches
  if batches == nil then
    batches = {}
    local b = 1
    while b <= 4096 do batches[#batches + 1] = b; b = b * 2 end
  end
  if type(batches) ~= "table" or #batches < 2 then error(fn .. ": batches must list at least 2 sizes", 2) end
  for i, b in ipairs(batches) do
    if type(b) ~= "number" or not (b > 0) or b == math.huge then
      error(fn .. ": batches[" .. i .. "] must be positive (finite), got " .. tostring(b), 2)
    end
    if i > 1 and b <= batches[i - 1] then error(fn .. ": batches must increase", 2) end
  end
  local tol, sat_tol = opts.tol or 0.05, opts.sat_tol or 0.05
  local topts = { precision = opts.precision, per_op = opts.per_op, cache_aware = opts.cache_aware,
    cache_fraction = opts.cache_fraction, tile = opts.tile }
  local curve = { batch = {}, intensity = {}, time = {}, time_per_sample = {}, util = {},
    footprint = {}, bound = {}, fits = {} }
  local used -- the precision the times were computed at (the device's natural one when none given)
  for i, b in ipairs(batches) do
    local s = f(b)
    if type(s) ~= "table" then error(fn .. ": the model returned " .. type(s) .. " for b = " .. b, 2) end
    local r = R.time(s, dev, topts)
    used = r.precision
    curve.batch[i] = b
    curve.intensity[i] = r.intensity
    curve.time[i] = r.time
    curve.time_per_sample[i] = r.time / b
    curve.util[i] = r.util
    curve.footprint[i] = r.footprint or false
    curve.bound[i] = r.bound
    curve.fits[i] = r.fits
  end
  -- the three points are chosen among the batches that fit in memory (require_fit = false:
  -- among all, e.g. for Hestness's models, far larger than one device, split across many)
  local consider = {}
  for i = 1, #batches do consider[i] = curve.fits[i] or opts.require_fit == false end
  local imax, tmin, nfit, ncons = -math.huge, math.huge, 0, 0
  for i = 1, #batches do
    if curve.fits[i] then nfit = nfit + 1 end
    if consider[i] then
      ncons = ncons + 1
      imax = math.max(imax, curve.intensity[i])
      tmin = math.min(tmin, curve.time_per_sample[i])
    end
  end
  local ridge = dev:ridge(used or dev:precision(opts.precision or "fp32"), opts.ridge ~= "peak")
  local res = { curve = curve, ridge_point = ridge, n_fit = nfit }
  if ncons == 0 then
    res.note = string.format("no batch of the sweep (%g..%g) fits in %s's memory; the points "
      .. "are nil", batches[1], batches[#batches], dev.name)
  else
    res.max_intensity, res.min_time_per_sample = imax, tmin
    for i, b in ipairs(batches) do
      if consider[i] then
        if curve.fits[i] then res.max_fit = b end
        if res.saturation == nil and curve.intensity[i] >= (1 - sat_tol) * imax then res.saturation = b end
        if res.ridge == nil and curve.intensity[i] >= ridge then res.ridge = b end
        if res.best == nil and curve.time_per_sample[i] <= (1 + tol) * tmin then res.best = b end
      end
    end
    if nfit < #batches then
      res.note = opts.require_fit == false
        and string.format("%d of %d batches do not fit in %s's memory (require_fit = false: "
          .. "considered anyway)", #batches - nfit, #batches, dev.name)
        or string.format("batches above %g do not fit in %s's memory and were not "
          .. "considered", res.max_fit, dev.name)
    end
  end
  res.points = {
    { name = "saturation", batch = res.saturation },
    { name = "ridge", batch = res.ridge },
    { name = "best", batch = res.best },
  }
  return res
end
doc.doc(M.subbatch, "dlb.roofline.subbatch(f_or_graph, hw[, {batches=, dim=, bind=, tol=0.05, "
  .. "sat_tol=0.05, ridge='achievable'|'peak', precision=, per_op=, cache_aware=, cache_fraction=, "
  .. "tile=, require_fit=true}]) -> {curve=, saturation=, "
  .. "ridge=, best=, points=, n_fit=, max_fit=, note=}", "Hestness 5.2.1's three subbatch points "
  .. "of interest over a sweep, among the batches that fit in memory (curve.fits)")

-- == Hestness et al. Table 2: asymptotic costs per parameter ========================

-- c_t = gamma b p FLOPs, a_t = lambda p + mu b sqrt(p) bytes, f_t = delta p bytes
-- (seed 000 4.2-4.5, Table 2). The constants live once, in dlbench.scaling_domains
-- (dlb.scaling.domains[domain].costs).
function M.hestness(domain, p, b)
  local domains = require "dlbench.scaling_domains"
  local d = domains[domain]
  if d == nil then
    error("dlb.roofline.hestness: unknown domain '" .. tostring(domain)
      .. "' (word_lm, char_lm, nmt, speech, image)", 2)
  end
  local function pos(x) return type(x) == "number" and x > 0 and x < math.huge end -- NaN: false
  if not (pos(p) and pos(b)) then
    local function show(x) return type(x) == "number" and string.format("%g", x) or tostring(x) end
    error("dlb.roofline.hestness: p (parameters) and b (subbatch) must be positive finite numbers, got "
      .. show(p) .. ", " .. show(b), 2)
  end
  local c = require("dlbench.scaling").step_costs(d.costs, p, b)
  return { flops = c.flops, bytes = c.bytes, footprint = c.footprint, precision = "fp32" }
end
doc.doc(M.hestness, "dlb.roofline.hestness(domain, p, b) -> {flops=, bytes=, footprint=}",
  "Hestness et al. Table 2's asymptotic training-step costs for p parameters, subbatch b")

return M
