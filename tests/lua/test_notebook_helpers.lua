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

T.test("lcg: integer arithmetic's sequence on both backends", function()
  -- expected: Python's ints, s = (s * 1103515245 + 12345) % 2147483648 from s = 12345 (the
  -- gallery's seed) and 42 (bench_plot_dlb.lua's box plot); LuaJIT's doubles rounded the
  -- product before the notebook's generator took it in halves
  local r = nb.lcg(12345)
  local want = { [1] = 1406932606, [2] = 654583775, [3] = 1449466924, [10000] = 1387838121,
    [100000] = 87008409 }
  for i = 1, 100000 do
    local v = r()
    if want[i] then T.eq(v, want[i] / 2147483648, "draw " .. i) end
  end
  T.eq(nb.lcg(42)(), 1250496027 / 2147483648, "seed 42")
  T.checkerr("notebook.lcg: seed must be an integer in [0, 2^31), got 1.5", nb.lcg, 1.5)
  T.checkerr("got -1", nb.lcg, -1)
  T.checkerr("got nil", nb.lcg)
end)

T.test("outdir", function()
  T.eq(nb.outdir({ "out" }), "out", "arg[1]")
  T.eq(nb.outdir(nil), "out", "default")
end)

T.done()
