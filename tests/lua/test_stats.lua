-- test_stats.lua — percentiles (numpy goldens), means, box statistics and the sensitivity
-- regression on result tables (hand derivations; the C tests hold the numpy goldens).
local T = require "harness"
local dlb = require "dlbench"

T.test("percentiles: numpy's linear interpolation", function()
  -- numpy.percentile(d, q) for d below (tests/golden/stats_golden.py, part 3)
  local d = { 3.5, -1, 7, 2, 2, 10, 0.25, 4, 8, 6.5, 1 }
  T.near(dlb.stats.percentile(d, 9), 0.12499999999999989, 1e-14, "p9")
  T.near(dlb.stats.percentile(d, 91), 8.1999999999999993, 1e-14, "p91")
  T.near(dlb.stats.percentile(d, 98), 9.6000000000000014, 1e-14, "p98")
  local ps = dlb.stats.percentiles(d, { 0, 50, 100 })
  T.eq(ps[1], -1, "min"); T.eq(ps[2], 3.5, "median"); T.eq(ps[3], 10, "max")
  T.eq(dlb.stats.median({ 4, 1, 3, 2 }), 2.5, "median of even count")
  T.checkerr("p must be a number in [0, 100], got 101", dlb.stats.percentile, d, 101)
  T.checkerr("p must be a number in [0, 100], got -1", dlb.stats.percentile, d, -1)
  -- review 10: a numeric string said "got 50" (it looked like a number), NaN "-nan" on Lua 5.4
  T.checkerr('p must be a number in [0, 100], got string "50"', dlb.stats.percentile, d, "50")
  T.checkerr("p[2] must be a number in [0, 100], got nan", dlb.stats.percentiles, d, { 50, 0 / 0 })
  T.checkerr("empty list", dlb.stats.percentile, {}, 50)
  T.checkerr("list[2] is a string, not a number", dlb.stats.percentile, { 1, "x" }, 50)
  T.checkerr("element 2 is NaN", dlb.stats.percentile, { 1, 0 / 0 }, 50)
end)

T.test("means", function()
  -- {1, 2, 4}: arithmetic 7/3, geometric 2, harmonic 3/(1 + 1/2 + 1/4) = 12/7
  T.near(dlb.stats.mean { 1, 2, 4 }, 7 / 3, 1e-15, "mean")
  T.near(dlb.stats.gmean { 1, 2, 4 }, 2, 1e-15, "gmean")
  T.near(dlb.stats.hmean { 1, 2, 4 }, 12 / 7, 1e-15, "hmean")
  T.near(dlb.stats.sd { 2, 4, 4, 4, 5, 5, 7, 9 }, math.sqrt(32 / 7), 1e-15, "sample sd")
  T.checkerr("element 2 is -1 (needs > 0)", dlb.stats.gmean, { 1, -1 })
end)

T.test("box: ParaDnn's 2/9/50/91/98 and Tukey", function()
  local d = {}
  for i = 0, 100 do d[#d + 1] = i end -- percentile p of 0..100 is p
  local b = dlb.stats.box(d)
  T.eq(b.whisker_lo, 2, "p2"); T.eq(b.q_lo, 9, "p9"); T.eq(b.median, 50, "p50")
  T.eq(b.q_hi, 91, "p91"); T.eq(b.whisker_hi, 98, "p98")
  T.eq(table.concat(b.outliers, " "), "0 1 99 100", "outliers")
  local t = dlb.stats.box({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 100 }, { tukey = true })
  T.eq(t.whisker_hi, 9, "Tukey whisker (fence 7.75 + 1.5*4.5 = 14.5)")
  T.eq(t.outliers[1], 100, "outlier")
  T.checkerr("unknown option 'whis'", dlb.stats.box, d, { whis = 1 })
end)

T.test("regress: hand example on a table", function()
  -- x = {0,1,2}, y = {0,1,1}: slope 1/2, z-scored x has sd 1 so weight 1/2; intercept
  -- ybar = 2/3; se = sqrt(s^2/Sxx) = sqrt((1/6)/2); r2 = 3/4
  local t = dlb.table { { x = 0, y = 0 }, { x = 1, y = 1 }, { x = 2, y = 1 } }
  local r = dlb.stats.regress(t, { "x" }, "y")
  T.near(r.weights.x, 0.5, 1e-14, "weight")
  T.near(r.intercept, 2 / 3, 1e-14, "intercept")
  T.near(r.se.x, math.sqrt(1 / 12), 1e-14, "se")
  T.near(r.t.x, 0.5 / math.sqrt(1 / 12), 1e-13, "t")
  T.near(r.r2, 0.75, 1e-14, "r2")
  T.near(r.adj_r2, 0.5, 1e-14, "adj r2")
  local raw = dlb.stats.regress({ x = { 0, 1, 2 }, y = { 0, 1, 1 } }, "x", "y", { normalize = false })
  T.near(raw.intercept, 1 / 6, 1e-14, "raw intercept from a table of columns")
  assert(tostring(r):find("r2=0.7500"), tostring(r))
end)

T.test("regress: signs and ranking on a ParaDnn-like sweep", function()
  -- util grows with log(batch) and log(nodes), falls slightly with layers
  local t = dlb.sweep({ layers = { 4, 8, 16 }, nodes = dlb.range(32, 1024, "x2"), batch = dlb.range(64, 1024, "x2") },
    function(p)
      return { util = 0.05 * math.log(p.nodes) + 0.08 * math.log(p.batch) - 0.001 * p.layers }
    end, { jobs = 1, quiet = true, progress = false })
  local r = dlb.stats.regress(t, { "layers", "nodes", "batch" }, "util", { log = { "nodes", "batch" } })
  assert(r.weights.batch > r.weights.nodes and r.weights.nodes > 0 and r.weights.layers < 0, "signs and order")
  T.near(r.r2, 1, 1e-12, "exactly linear in the logs")
  T.eq(table.concat(r:ranked(), ","), "batch,nodes,layers", "ranked by |weight|")
  local ri = dlb.stats.regress(t, { "layers", "nodes", "batch" }, "util", { log = true, interactions = true })
  T.eq(table.concat(ri.terms, ","), "layers,nodes,batch,layers*nodes,layers*batch,nodes*batch", "interaction names")
  assert(math.abs(ri.weights["nodes*batch"]) < 1e-9, "no interaction in the data")
  local ly = dlb.stats.regress(t, { "nodes" }, "util", { log = { "util", "nodes" } })
  assert(ly.log_y, "log y")
end)

T.test("regress: errors name the column", function()
  local t = dlb.table { { a = 1, b = 5, c = 2, y = 1 }, { a = 2, b = 5, c = 4, y = 3 },
    { a = 3, b = 5, c = 6, y = 2 }, { a = 4, b = 5, c = 8, y = 5 }, { a = 5, b = 5, c = 10, y = 4 } }
  T.checkerr("'b' is constant", dlb.stats.regress, t, { "a", "b" }, "y")
  T.checkerr("c is collinear", dlb.stats.regress, t, { "a", "c" }, "y")
  T.checkerr("no column 'z'", dlb.stats.regress, t, { "a", "z" }, "y")
  T.checkerr("unknown option 'logs'", dlb.stats.regress, t, { "a" }, "y", { logs = true })
  local m = dlb.table { { a = 1, y = 1 }, { a = 2 }, { a = 3, y = 2 }, { a = 4, y = 4 } }
  T.checkerr("row 2: 'y' is missing", dlb.stats.regress, m, { "a" }, "y")
  local r = dlb.stats.regress(m, { "a" }, "y", { drop_missing = true })
  T.eq(r.n, 3, "dropped"); T.eq(r.skipped, 1, "skipped count")
  local f = dlb.table { { a = 1, y = 1 }, { a = 2, y = 2, _error = "oom" }, { a = 3, y = 2 }, { a = 4, y = 4 } }
  T.eq(dlb.stats.regress(f, "a", "y").n, 3, "failed sweep rows are skipped")
  T.checkerr("log of 'a': row 1", dlb.stats.regress, dlb.table { { a = 0, y = 1 }, { a = 1, y = 2 }, { a = 2, y = 2 } }, "a", "y", { log = true })
end)

T.done()
