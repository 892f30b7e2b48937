-- fsdp_rows.lua — issue [18]'s first target: the FSDP rows of the validation table
-- (notebooks/data/validation_runs.lua: llm-foundry's Composer + PyTorch FSDP rows and
-- torchtitan's FSDP2 rows), predicted two ways:
--   notebook: notebooks/validation.lua's path, its own code (notebooks/lib/validation_rows.lua:
--     per-layer costs from the graph under the row's framework profile,
--     dlb.parallel.evaluate{layers=, framework=, cluster=}; catalogue values);
--   plain: what a user who knows the run passes, no fusion or framework switch:
--     dlb.parallel.evaluate{graph=, hw=, dp=, batch=, m=, zero=, recompute=, precision=};
--     the rows that state a 16-bit gradient reduction (MP Mode PURE) differ: x.reduce_stated.
-- fp8 rows are left out: the notebook analyses them in bf16 and times them at the fp8
-- peak, which one precision= cannot say. Used by tests/lua/test_frameworks.lua (a subset)
-- and tests/bench/bench_frameworks.lua (all, with the held-out errors); F.predict also by
-- tests/bench/foundry_small_rows.lua (and foundry_rows_tile.lua) on rows of their own.
--   local F = require "fsdp_rows"; local list = F.rows(dlb, root); F.predict(dlb, x)
--   (x = {row =, profile =}); F.notebook(dlb, x): the notebook path only; F.median, F.p90:
--   the notebook's (validation_stats.lua)
local M = {}

function M.rows(dlb, root)
  local rows = dofile(root .. "/notebooks/data/validation_runs.lua")
  table.sort(rows, function(a, b) return a.id < b.id end)
  local out = {}
  for _, r in ipairs(rows) do
    local f = r.framework or ""
    if (f:find("PyTorch FSDP", 1, true) or f:find("torchtitan", 1, true)) and r.precision ~= "fp8" then
      -- the notebook's split, stored with each row (its role): "fit" rows calibrate, the
      -- others are held out
      out[#out + 1] = { row = r, calib = (r.role == "fit") }
    end
  end
  return out
end

-- The validation notebook's set-up of a row (notebooks/lib/validation_rows.lua: its profile,
-- fused layers, layout, cluster, measured samples/s), loaded once per dlb
local VR = setmetatable({}, { __mode = "k" })
local ROOT = debug.getinfo(1, "S").source:match("^@(.*)/tests/lua/[^/]*$") or "."
local function rules(dlb)
  if not VR[dlb] then VR[dlb] = dofile(ROOT .. "/notebooks/lib/validation_rows.lua")(dlb) end
  return VR[dlb]
end

-- Predicted samples/s per device both ways, and the measured samples/s per device.
--   x.row: the row; x.profile (optional): a profile to use instead of the row's, for the
--   notebook path only (validation_rows.setup's profile option: tests compare a field's share).
-- The notebook path is the notebook's own code (V.setup, V.predict, V.measured: catalogue
-- values, no calibration). The plain call takes the layout as the notebook resolves it from
-- the row (dp, tp, pp, micro-batches, global batch, ZeRO stage, recompute: what a user who
-- knows the run passes) and nothing else: the graph, no fusion, no framework, no cluster, no
-- reduce dtype (so the default profile's).
-- The notebook path alone: its predicted samples/s per device, and the row's set-up (for a
-- caller that compares profiles and needs no plain call: test_frameworks' x.profile rows,
-- whose plain call is the row's own, made once by M.predict).
function M.notebook(dlb, x)
  local s = assert(rules(dlb).setup(x.row, { profile = x.profile }))
  return rules(dlb).predict(s, s.hw), s
end

function M.predict(dlb, x)
  local P = dlb.parallel
  local r = x.row
  local V = rules(dlb)
  local pn, s = M.notebook(dlb, x)
  local meas = V.measured(r, s)
  -- the plain call's layout: the row's as the notebook resolves it under the row's own
  -- profile (x.profile changes the notebook path only)
  local L, c = r.layout, (x.profile and assert(V.setup(r)) or s).cfg
  -- the gradients' reduce dtype where the row states it (the llm-foundry rows' MP Mode
  -- column), as the notebook passes it; a plain call gets the profile's (fp32 in both the
  -- fsdp and the default torchtitan profile), so the rows that state bf16 (PURE) differ
  x.reduce_stated = L.reduce_dtype ~= nil and L.reduce_dtype ~= s.prof.reduce_dtype
  local g = dlb.models[r.model.builder](r.model.opts)
  local function plain(framework)
    return P.evaluate { graph = g, hw = s.hw, precision = s.dprec, dp = c.dp, tp = c.tp, pp = c.pp,
      m = c.m, batch = c.batch, recompute = c.recompute, zero = c.zero,
      recompute_every = c.recompute_every, framework = framework }
  end
  local e2 = plain()
  if x.before then   -- the same plain call before profiles (framework = "none")
    x.before = plain("none").throughput / s.n
  end
  return pn, e2.throughput / s.n, meas, e2
end

-- the validation notebook's summary statistics (notebooks/lib/validation_stats.lua: the
-- lower median, the ceil(0.9 n)-th smallest as the p90)
local VS = dofile(ROOT .. "/notebooks/lib/validation_stats.lua")
local function p90(xs) return VS.pct(xs, 0.9) end
M.median, M.p90 = VS.median, p90
return M
