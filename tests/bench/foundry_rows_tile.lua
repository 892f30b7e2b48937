-- foundry_rows_tile.lua — a diagnostic (not a timed benchmark, not a test): branch gemm-k's
-- per-tile GEMM cost on the H100 / H200 (t0 = 0.94 us, its fit on published GEMM tables that
-- vary K: docs/validation.md "GEMM efficiency at short K") checked on llm-foundry's published
-- 8-GPU rows that neither that fit nor any calibration saw (tests/bench/foundry_small_rows.lua,
-- catalogue values). No device ships the value; here it is set on the H100-class devices
-- through dlb.hw.get for the run only, then the rows are predicted with and without it.
--   LUA_PATH="$PWD/tests/lua/?.lua;;" build/bin/dlbench run tests/bench/foundry_rows_tile.lua
local dlb = require "dlbench"
local T0 = 0.94e-6   -- branch gemm-k: H100-SXM / H200-SXM, fitted on notebooks/data/gemm_short_k.lua there
local get = dlb.hw.get
for _, t0 in ipairs { 0, T0 } do
  dlb.hw.get = function(name, ...)
    local h = get(name, ...)
    if t0 > 0 and type(name) == "string" and (name:find("H100", 1, true) or name:find("H200", 1, true)) then
      return h:with { gemm_tile_overhead = t0 }
    end
    return h
  end
  print(string.format("== H100-class gemm_tile_overhead %.2f us", t0 * 1e6))
  dofile("tests/bench/foundry_small_rows.lua")
end
dlb.hw.get = get
