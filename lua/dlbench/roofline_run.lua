-- dlbench.roofline_run — figures over a whole run from a step's time: time to train and
-- cost (dlb.roofline.train, DAWNBench's metrics) and the figure of merit over problems
-- (dlb.roofline.fom, dlb.roofline.harmonic_mean: CANDLE, seed 002). Reached as
-- dlb.roofline.* (this module's names are installed there by dlbench.roofline). See
-- docs/hw.md.
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local M = {}

local function checkopts(opts, valid, fn) return options.check(opts, valid, fn, 3) end

-- == time to train and cost ======================================================

local train_opts = { step = true, step_time = true, dataset = true, batch = true, epochs = true,
  price = true, devices = true }

-- Epoch time = dataset / batch steps x step time (seconds); time to accuracy = epochs x
-- epoch time; cost = devices x hours x price per device-hour (DAWNBench's metrics).
function M.train(t)
  local fn = "dlb.roofline.train"
  t = checkopts(t, train_opts, fn)
  if t.step_time == nil and t.step == nil then
    error(fn .. ": needs step = a roofline result or step_time = seconds", 2)
  end
  local key = t.step_time ~= nil and "step_time" or "step"
  local st = t.step_time or (type(t.step) == "table" and t.step.time) or t.step
  if type(st) ~= "number" or not (st > 0) or st == math.huge then
    error(fn .. ": " .. key .. (key == "step" and ".time" or "") .. " must be a positive number "
      .. "of seconds, got " .. tostring(st), 2)
  end
  local function pos(k, dflt)
    local v = t[k]
    if v == nil then v = dflt end
    -- finite too (review 13: dataset = math.huge gave an infinite time to train, silently)
    if type(v) ~= "number" or not (v > 0) or v == math.huge then
      error(fn .. ": " .. k .. " must be a positive finite number, got " .. tostring(v), 3)
    end
    return v
  end
  local dataset, batch = pos("dataset"), pos("batch")
  local epochs, devices = pos("epochs", 1), pos("devices", 1)
  local r = { step_time = st, steps_per_epoch = dataset / batch }
  r.epoch_time = r.steps_per_epoch * st
  r.epoch_days = r.epoch_time / 86400
  r.time = epochs * r.epoch_time
  r.hours = r.time / 3600
  r.days = r.time / 86400
  r.device_hours = r.hours * devices
  if t.price ~= nil then
    r.price = pos("price")
    r.cost = r.device_hours * r.price
  end
  return r
end
doc.doc(M.train, "dlb.roofline.train{step=r | step_time=s, dataset=samples, batch=, epochs=1, "
  .. "devices=1, price=USD per device-hour} -> {epoch_time=, time=, days=, cost=, ...}",
  "epoch time, time to accuracy and cost (DAWNBench's metrics)")

-- == figure of merit (seed 002, CANDLE) ============================================

function M.harmonic_mean(xs)
  return require("dlbench.stats")._mean("dlb.roofline.harmonic_mean", xs, 2)
end
doc.doc(M.harmonic_mean, "dlb.roofline.harmonic_mean(list) -> number", "n / sum(1/x) "
  .. "(the same as dlb.stats.hmean)")

-- The figure of merit: units of work per day on the new system over the baseline's, each
-- averaged over the problems with the harmonic mean. Each problem:
-- {base_hours=, base_nodes=, hours=, nodes=} (hours per unit on one node); rate =
-- 24 / hours x nodes units per day.
function M.fom(problems)
  local fn = "dlb.roofline.fom"
  if type(problems) ~= "table" or #problems == 0 then error(fn .. ": expected a list of problems", 2) end
  local base, new, ratios = {}, {}, {}
  for i, p in ipairs(problems) do
    -- a problem that is not a table was an index error, an infinite number of hours an error
    -- of harmonic_mean's ("element 1 is 0") at a line of this file (review 13)
    if type(p) ~= "table" then
      error(string.format("%s: problem %d must be a table {base_hours=, base_nodes=, hours=, nodes=}, got %s",
        fn, i, type(p)), 2)
    end
    for _, k in ipairs { "base_hours", "base_nodes", "hours", "nodes" } do
      if type(p[k]) ~= "number" or not (p[k] > 0) or p[k] == math.huge then
        error(fn .. ": problem " .. i .. " needs a positive finite " .. k .. ", got " .. tostring(p[k]), 2)
      end
    end
    base[i] = 24 / p.base_hours * p.base_nodes
    new[i] = 24 / p.hours * p.nodes
    ratios[i] = new[i] / base[i]
  end
  local hb, hn = M.harmonic_mean(base), M.harmonic_mean(new)
  local am = 0
  for _, x in ipairs(ratios) do am = am + x end
  return { fom = hn / hb, base_rate = hb, rate = hn, base_rates = base, rates = new,
    ratios = ratios, mean_ratio = am / #ratios }
end
doc.doc(M.fom, "dlb.roofline.fom{{base_hours=, base_nodes=, hours=, nodes=}, ...} -> {fom=, ...}",
  "figure of merit: harmonic-mean units/day on the new system over the baseline's (seed 002)")

return M
