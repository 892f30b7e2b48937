-- paradnn_ablation.lua — which mechanism of the kernel model (docs/hw.md, "Kernel
-- efficiency") moves which ParaDnn verdict: reruns notebooks/paradnn.lua with groups of
-- the kernel-model device fields removed from its three platforms and prints the verdicts
-- side by side. notebooks/paradnn.lua's BEFORE / MECHANISM tables come from this run.
--   dlbench run notebooks/paradnn_ablation.lua [outdir]   (default out/; five notebook runs,
--                                                          ~2 min; each run of paradnn.lua,
--                                                          given the same argument, writes
--                                                          its CSV files and figures there)
local dlb = require "dlbench"
-- this notebook reproduces numbers counted before framework profiles (issue [18]): it pins
-- "no profile", so its time models run on the graph as built, as the paper's did
dlb.frameworks.default("none")

require("dlbench.notebook").outdir(arg)   -- arg[1] or "out", created: paradnn.lua's folder
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "notebooks"
local ALL = { "kernel_overhead", "step_overhead", "half_bw_bytes", "sm_count", "gemm_tile",
  "systolic", "vector_width" }
local VARIANTS = {   -- name, fields removed
  { "pure roofline (no kernel model)", ALL },
  { "quantisation only (tiles, waves, systolic, vector)", { "kernel_overhead", "step_overhead", "half_bw_bytes" } },
  { "overheads only (kernel, step)", { "half_bw_bytes", "sm_count", "gemm_tile", "systolic", "vector_width" } },
  { "n_1/2 bandwidth ramp only", { "kernel_overhead", "step_overhead", "sm_count", "gemm_tile", "systolic", "vector_width" } },
  { "the whole kernel model (the catalogue)", {} },
}

local orig = dlb.paradnn.platforms
local results, labels = {}, nil
for vi, v in ipairs(VARIANTS) do
  dlb.paradnn.platforms = function()
    local p = orig()
    for _, pf in ipairs(p) do
      local sp = pf.hw:spec()
      for _, k in ipairs(v[2]) do sp[k] = nil; sp.source[k] = nil end
      sp.name = sp.name .. " (ablation " .. vi .. ")"
      pf.hw = dlb.hw.define(sp)
    end
    return p
  end
  local lines = {}
  local real_print = print
  print = function(...)   -- luacheck: ignore
    local t = {}
    for i = 1, select("#", ...) do t[i] = tostring((select(i, ...))) end
    local l = table.concat(t, "\t")
    local verdict, obs = l:match("^(%u+)%s+(.-): ")
    if verdict == "AGREE" or verdict == "PARTLY" or verdict == "DISAGREE" then
      lines[#lines + 1] = { verdict, obs }
    end
  end
  local ok, err = pcall(dofile, here .. "/paradnn.lua")
  print = real_print   -- luacheck: ignore
  if not ok then error(err, 0) end
  -- the summary prints every verdict a second time: keep the first 17
  local first = {}
  for i = 1, math.min(#lines, 17) do first[i] = lines[i] end
  results[vi] = first
  labels = labels or first
  io.write(string.format("%d. %s: done\n", vi, v[1]))
end
dlb.paradnn.platforms = orig

print("\nParaDnn verdicts (PREDICTIONS) per kernel-model variant:")
for vi, v in ipairs(VARIANTS) do print(string.format("  V%d = %s", vi, v[1])) end
print(string.format("%-22s %s", "observation", "V1       V2       V3       V4       V5"))
for i, l in ipairs(labels) do
  local cells = {}
  for vi = 1, #VARIANTS do cells[vi] = string.format("%-8s", results[vi][i] and results[vi][i][1] or "?") end
  print(string.format("%-22s %s%s", l[2]:sub(1, 22), table.concat(cells, " "),
    results[1][i][1] ~= results[#VARIANTS][i][1] and "  <- changed" or ""))
end
