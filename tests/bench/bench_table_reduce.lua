-- bench_table_reduce.lua — t:pareto and t:top (dlb.table.reduce_rows: the sweep's C rule,
-- sweep_reduce.c) on a 1M-row dlb.table of random (time, mem, fits) rows, and on the same
-- rows as a columnar table; CPU seconds (timing.lua: median and min of 3 after a warm-up).
-- usage: build/bin/dlbench run tests/bench/bench_table_reduce.lua (or LuaJIT FFI)
local dlb = require "dlbench"
local coltable = require "dlbench.coltable"
local time = dofile((arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench") .. "/timing.lua")
local N = 1000000
math.randomseed(42)
local rows, tc, mc, fc = {}, {}, {}, {}
for i = 1, N do
  local t, m = math.random(), math.random()
  rows[i] = { time = t, mem = m, fits = m < 0.9, id = i }
  tc[i], mc[i], fc[i] = t, m, m < 0.9 and 1 or 0
end
local t = dlb.table.adopt(rows, { "id", "time", "mem", "fits" })
local cols = { tc, mc, fc }
local ct = coltable.new(function(c, s, n)
  local a, src = {}, cols[c + 1]
  for i = 1, n do a[i] = src[s + i] end
  return a
end, N, { "time", "mem", "fits" })
local function line(what, f)
  local res
  local med, min = time(3, function() res = f() end)
  print(string.format("%-52s %7.3f s (min %.3f)  %d rows", what, med, min, res:count()))
end
line("dlb.table pareto{minimize={time,mem}}", function() return t:pareto { minimize = { "time", "mem" } } end)
line("dlb.table pareto{..., where=fits}", function() return t:pareto { minimize = { "time", "mem" }, where = "fits" } end)
line("dlb.table top{k=10, by=time}", function() return t:top { k = 10, by = "time" } end)
line("dlb.table top{k=1000, by=-mem}", function() return t:top { k = 1000, by = "-mem" } end)
line("columnar pareto{minimize={time,mem}}", function() return ct:pareto { minimize = { "time", "mem" } } end)
line("columnar top{k=10, by=time}", function() return ct:top { k = 10, by = "time" } end)
