-- test_figures_out.lua — every figure the notebooks write to out/ passes f:layout_check()
-- (no overlapping text, nothing leaving the figure, no legend over data where a free spot
-- exists; issue [14]). Runs the notebooks with dlb.plot's save wrapped to check each figure
-- it saves. notebooks/paradnn.lua is left out by default (its sweeps take over a minute on
-- the suite's machine); DLB_ALL_NOTEBOOKS=1 adds it (BENCHMARKS.md records that run).
-- The notebooks another test runs anyway have their figures checked there, with the same
-- wrapper (harness T.layout_checked): hestness_scaling by test_scaling_notebook,
-- hestness_roofline by test_roofline_hestness; the gallery checks its own figures when a
-- test runs it strict (test_plot). One run of each per backend instead of two.
local T = require "harness"

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local root = here .. "/../.."

T.test("the notebooks' figures pass f:layout_check()", function()
  local print0 = print
  print = function() end
  local ok, err, saved, problems = T.layout_checked(function()
    local nbs = { "tour", "hestness_parallel" }
    if os.getenv("DLB_ALL_NOTEBOOKS") == "1" then nbs[#nbs + 1] = "paradnn" end
    for _, nb in ipairs(nbs) do
      dofile(root .. "/notebooks/" .. nb .. ".lua")
    end
  end)
  print = print0
  assert(ok, err)
  assert(saved >= 4, "figures saved: " .. saved)
  T.eq(table.concat(problems, "\n"), "")
end)

T.done()
