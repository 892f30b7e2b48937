-- test_notebook_helpers.lua — dlbench.notebook: verdict lines and their counts, and the
-- output folder, as the seed notebooks use them.
local T = require "harness"
local nb = require "dlbench.notebook"

T.test("verdicts", function()
  local saved = print
  local out = {}
  print = function(s) out[#out + 1] = s end -- luacheck: ignore
  local V = nb.verdicts()
  V:add("AGREE", "Obs 1", "claim", "ours")
  V:add("DISAGREE", nil, "slide", "ours")
  local n = V:summary()
  print = saved -- luacheck: ignore
  T.eq(#V, 2, "two lines")
  T.eq(V[1], "AGREE    Obs 1: claim -- ours: ours", "with an observation")
  T.eq(V[2], "DISAGREE slide -- ours: ours", "without")
  T.eq(n.AGREE, 1, "agree"); T.eq(n.DISAGREE, 1, "disagree"); T.eq(n.PARTLY, 0, "partly")
  T.eq(out[#out], "1 agree, 0 partly, 1 disagree", "summary line")
  T.checkerr("expected AGREE, PARTLY or DISAGREE", V.add, V, "MAYBE", "x", "y", "z")
end)

T.test("outdir", function()
  T.eq(nb.outdir({ "out" }), "out", "arg[1]")
  T.eq(nb.outdir(nil), "out", "default")
end)

T.done()
