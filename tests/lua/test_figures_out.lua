-- test_figures_out.lua — every figure the notebooks write to out/ passes f:layout_check()
-- (no overlapping text, nothing leaving the figure, no legend over data where a free spot
-- exists; issue [14]). Runs the notebooks with dlb.plot's save wrapped to check each figure
-- it saves. notebooks/paradnn.lua is left out by default (its sweeps take over a minute on
-- the suite's machine); DLB_ALL_NOTEBOOKS=1 adds it (BENCHMARKS.md records that run).
-- notebooks/hestness_scaling.lua's figures are checked by test_scaling_notebook, which runs
-- that notebook anyway (one run of it per backend instead of two).
local T = require "harness"

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local root = here .. "/../.."

T.test("the notebooks' figures pass f:layout_check()", function()
  local print0 = print
  print = function() end
  -- The gallery writes README copies into docs/gallery/ (tracked files): send both of its
  -- folders to a temporary directory so the suite leaves the work tree as it found it.
  local pipe = io.popen("mktemp -d /tmp/dlb_figures_out.XXXXXX")
  local tmpdir = pipe:read("*l")
  pipe:close()
  assert(tmpdir and tmpdir ~= "", "mktemp -d failed")
  DLB_GALLERY = { out = tmpdir .. "/gallery", docs = tmpdir .. "/gallery_docs" }
  local ok, err, saved, problems = T.layout_checked(function()
    local nbs = { "gallery", "tour", "hestness_roofline", "hestness_parallel" }
    if os.getenv("DLB_ALL_NOTEBOOKS") == "1" then nbs[#nbs + 1] = "paradnn" end
    for _, nb in ipairs(nbs) do
      dofile(root .. "/notebooks/" .. nb .. ".lua")
    end
  end)
  print = print0
  DLB_GALLERY = nil
  os.execute("rm -rf '" .. tmpdir .. "'")
  assert(ok, err)
  assert(saved >= 10, "figures saved: " .. saved)
  T.eq(table.concat(problems, "\n"), "")
end)

T.done()
