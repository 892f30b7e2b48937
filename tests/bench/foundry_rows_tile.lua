-- foundry_rows_tile.lua — a diagnostic (not a timed benchmark, not a test): the catalogue's
-- per-tile GEMM cost (gemm_tile_overhead: H100-SXM / H200-SXM 0.94 us, B200 0.65 us, fitted on
-- published GEMM tables that vary K, lua/dlbench/hw_catalog.lua GEMM_TILE; docs/validation.md
-- "GEMM efficiency at short K") checked on llm-foundry's published 8-GPU rows that neither
-- that fit nor any calibration saw (tests/bench/foundry_small_rows.lua, catalogue values).
-- The rows are predicted with the catalogue as shipped and with the field set to 0 on a copy
-- of every device that carries it (hw:with{gemm_tile_overhead = 0}: the numbers before the
-- catalogue set it); then the H100 rows' and all rows' |error| both ways (medians and p90 as
-- the notebook's: the lower median, the ceil(0.9 n)-th smallest).
--   LUA_PATH="$PWD/tests/lua/?.lua;;" build/bin/dlbench run tests/bench/foundry_rows_tile.lua
package.path = "tests/lua/?.lua;" .. package.path
local dlb = require "dlbench"
local FR = require "fsdp_rows"
local get = dlb.hw.get
local runs = {}
for _, field in ipairs { "catalogue", "off" } do
  dlb.hw.get = function(name, ...)
    local h = get(name, ...)
    if field == "off" and type(h) == "table" and h.gemm_tile_overhead then
      return h:with { gemm_tile_overhead = 0 }
    end
    return h
  end
  print(field == "off" and "== gemm_tile_overhead set to 0 on every device that carries it"
    or "== the catalogue as shipped (gemm_tile_overhead on H100-SXM / H200-SXM / B200)")
  local ok, rows = pcall(dofile, "tests/bench/foundry_small_rows.lua")
  dlb.hw.get = get
  if not ok then error(rows, 0) end
  runs[field] = rows
end

local function summary(label, pick)
  local out = {}
  for _, field in ipairs { "off", "catalogue" } do
    local e, n, moved, toward = {}, 0, 0, 0
    for i, r in ipairs(runs[field]) do
      if pick(r) then
        assert(r.id == runs.off[i].id, "the two runs predict the same rows in the same order")
        e[#e + 1] = math.abs(r.err)
        n = n + 1
        if field == "catalogue" and r.err ~= runs.off[i].err then
          moved = moved + 1
          if math.abs(r.err) < math.abs(runs.off[i].err) then toward = toward + 1 end
        end
      end
    end
    table.sort(e)
    out[field] = { FR.median(e), FR.p90(e), e[#e], n, moved, toward }
  end
  local a, b = out.off, out.catalogue
  print(string.format("%s (%d): |error| median %.1f%% -> %.1f%%, p90 %.1f%% -> %.1f%%, max %.1f%% -> "
    .. "%.1f%% (field 0 -> catalogue); %d rows move, %d of them closer to their measurement",
    label, a[4], 100 * a[1], 100 * b[1], 100 * a[2], 100 * b[2], 100 * a[3], 100 * b[3], b[5], b[6]))
end
summary("H100 rows", function(r) return r.hw == "H100-SXM" end)
summary("all rows", function() return true end)
