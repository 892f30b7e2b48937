-- fsdp_rows.lua — issue [18]'s first target: the FSDP rows of the validation table
-- (notebooks/data/validation_runs.lua: llm-foundry's Composer + PyTorch FSDP rows and
-- torchtitan's FSDP2 rows), predicted two ways:
--   notebook: notebooks/validation.lua's path (per-layer costs from the graph under the
--     row's framework profile, dlb.parallel.evaluate{layers=, framework=, cluster=});
--   plain: what a user who knows the run passes, no fusion or framework switch:
--     dlb.parallel.evaluate{graph=, hw=, dp=, batch=, m=, zero=, recompute=, precision=};
--     the rows that state a 16-bit gradient reduction (MP Mode PURE) differ: x.reduce_stated.
-- fp8 rows are left out: the notebook analyses them in bf16 and times them at the fp8
-- peak, which one precision= cannot say. Used by tests/lua/test_frameworks.lua (a subset)
-- and tests/bench/bench_frameworks.lua (all, with the held-out errors).
--   local F = require "fsdp_rows"; local list = F.rows(dlb, root); F.predict(dlb, row)
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

-- Predicted samples/s per device both ways, and the measured samples/s per device.
function M.predict(dlb, x)
  local P = dlb.parallel
  local r = x.row
  local L = r.layout
  local hw = dlb.hw.get(r.hw)
  local n = r.devices
  local tp, pp = L.tp or 1, L.pp or 1
  local dp = n / (tp * pp)
  local micro = L.micro_batch or 1
  local gb = L.global_batch or micro * dp * (L.grad_accum or 1)
  local m = gb / (dp * micro)
  if m ~= math.floor(m) or m < 1 then micro = 1; m = gb / dp end
  -- full recompute, or torchtitan's layer-level selective AC (every k-th block fully
  -- checkpointed: layout.recompute_every), which a user who knows the run passes as
  -- recompute = true, recompute_every = k
  local rc = L.recompute == "full" or L.recompute_every ~= nil
  local every = L.recompute_every
  -- torchtitan's per-op selective AC, which a user who knows the run passes by its name
  if L.recompute == "selective_op" then rc = "selective_op" end
  local prec = r.precision   -- mixed_bf16 for these rows: the graph's and the device's
  local g = dlb.models[r.model.builder](r.model.opts)
  -- x.profile: a profile to use instead of the row's (tests compare the update's share)
  local prof = x.profile or dlb.frameworks.get(r.framework:find("torchtitan", 1, true) and "torchtitan" or "fsdp")
  local ls = P.layers.from_graph(g, { precision = prec,
    fuse = dlb.frameworks.fuse_of(prof, dlb.frameworks.family(g)) })
  local per = math.min(8, n)
  local cl = P.cluster { hw = hw, per_node = per, nodes = math.ceil(n / per) }
  local zero = (L.zero or 0) > 0 and dp > 1 and L.zero or 0
  -- the gradients' reduce dtype where the row states it (the llm-foundry rows' MP Mode
  -- column), as the notebook passes it; a plain call gets the profile's (fp32 in both the
  -- fsdp and the default torchtitan profile), so the rows that state bf16 (PURE) differ
  x.reduce_stated = L.reduce_dtype ~= nil and L.reduce_dtype ~= prof.reduce_dtype
  local e1 = P.evaluate { layers = ls, hw = hw, precision = prec, cluster = cl, framework = prof,
    dp = dp, tp = tp, pp = pp, m = m, batch = gb, recompute = rc, zero = zero, reduce_dtype = L.reduce_dtype,
    recompute_every = every }
  local e2 = P.evaluate { graph = g, hw = hw, precision = prec, dp = dp, tp = tp, pp = pp, m = m,
    batch = gb, recompute = rc, zero = zero, recompute_every = every }
  local meas = r.measured.tokens_per_s / r.seq   -- per GPU in these rows
  if x.before then   -- the same plain call before profiles (framework = "none")
    local e3 = P.evaluate { graph = g, hw = hw, precision = prec, dp = dp, tp = tp, pp = pp, m = m,
      batch = gb, recompute = rc, zero = zero, recompute_every = every, framework = "none" }
    x.before = e3.throughput / n
  end
  return e1.throughput / n, e2.throughput / n, meas, e2
end

local function median(xs)
  local t = {}
  for i, v in ipairs(xs) do t[i] = v end
  table.sort(t)
  local k = #t
  if k == 0 then return 0 / 0 end
  if k % 2 == 1 then return t[(k + 1) / 2] end
  return (t[k / 2] + t[k / 2 + 1]) / 2
end
local function p90(xs)   -- the notebook's pct(xs, 0.9): the ceil(0.9 n)-th smallest
  local t = {}
  for i, v in ipairs(xs) do t[i] = v end
  table.sort(t)
  if #t == 0 then return 0 / 0 end
  return t[math.max(1, math.ceil(0.9 * #t))]
end
M.median, M.p90 = median, p90
return M
