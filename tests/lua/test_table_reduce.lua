-- test_table_reduce.lua — t:pareto and t:top on both table kinds (dlb.table: a sweep's rows,
-- dlb.read_csv's, a trace's; the columnar rows of dlb.sweep.model's keep=), through the
-- sweep's C rule (graphs/sweep/sweep_reduce.c). Expected fronts and lists computed by hand
-- below (the rule: docs/sweep.md "Reductions": a row stays unless another is at least as
-- good in every objective and better in one; of equal rows the first; NaN skipped; top-k
-- ties: the first row).
local T = require "harness"
local dlb = require "dlbench"
local coltable = require "dlbench.coltable"

--   row  time  mem  name  fits
--    1     3    5    a    true    dominated by 3 (2 <= 3, 2 <= 5)
--    2     1    9    b    true    front (fastest)
--    3     2    2    c    false   front (equal to 4: the first stays)
--    4     2    2    d    true    dropped (equal to 3), front when where = "fits"
--    5     4    1    e    true    front (least memory)
--    6     5    5    f    true    dominated by 1, 3
--    7   nil    0    g    true    skipped (no time: NaN to the rule)
--    8     1    9    h    true    dropped (equal to 2)
local TIME = { 3, 1, 2, 2, 4, 5, 0 / 0, 1 }
local MEM = { 5, 9, 2, 2, 1, 5, 0, 9 }
local NAME = { "a", "b", "c", "d", "e", "f", "g", "h" }
local FITS = { true, true, false, true, true, true, true, true }

local function rowtable()
  local rows = {}
  for i = 1, #NAME do
    rows[i] = { time = TIME[i] == TIME[i] and TIME[i] or nil, mem = MEM[i], name = NAME[i], fits = FITS[i] }
  end
  return dlb.table.new(rows, { "name", "time", "mem", "fits" })
end

-- the same rows as a columnar table (rows in "C", strings interned, fits 1/0 decoded)
local function coltab()
  local data = { TIME, MEM, {}, {} }
  for i = 1, #NAME do data[3][i] = i - 1; data[4][i] = FITS[i] and 1 or 0 end
  local cols = { "time", "mem", "name", "fits" }
  local function fetch(c, start, n)
    local out = {}
    for i = 1, n do out[i] = data[c + 1][start + i] end
    return out
  end
  return coltable.new(fetch, #NAME, cols, { name = NAME })
end

local function names(t) return table.concat(t:column("name"), "") end

for _, kind in ipairs { "table", "coltable" } do
  local make = kind == "table" and rowtable or coltab
  local same = kind == "table" and dlb.table.is_table or coltable.is_coltable

  T.test(kind .. ": pareto, hand-computed fronts", function()
    local t = make()
    local f = t:pareto { minimize = { "time", "mem" } }
    T.eq(same(f), true, "a table of the same kind")
    T.eq(names(f), "bce", "front: equal rows keep the first, NaN skipped, by first objective")
    T.eq(names(t:pareto { minimize = { "time", "mem" }, where = "fits" }), "bde", "where = fits")
    T.eq(names(t:pareto { minimize = "time", maximize = "mem" }), "b", "maximize")
    -- maximize both: (5,5) f; (3,5) a dominated by f; (1,9) b, h equal: b; (4,1) e dominated by f
    T.eq(names(t:pareto { maximize = { "time", "mem" } }), "fb", "maximize both, by first (larger first)")
    T.eq(f:count(), 3, "count")
    T.eq(table.concat(f:column("mem"), " "), "9 2 1", "whole rows")
  end)

  T.test(kind .. ": top, hand-computed lists", function()
    local t = make()
    T.eq(names(t:top { k = 3, by = "time" }), "bhc", "ties: the first row; NaN skipped")
    T.eq(names(t:top { k = 2, by = "-mem" }), "bh", "largest first")
    T.eq(names(t:top { k = 3, by = "-mem", where = "fits" }), "bha", "where")
    T.eq(names(t:top { k = 100 }), "bhcdaef", "k beyond the rows; by defaults to time")
    T.eq(same(t:top { k = 1 }), true, "a table of the same kind")
    -- a view of a view: the rows of the selection
    local v = t:where(function(r) return r.name ~= "b" end)
    T.eq(names(v:top { k = 2, by = "time" }), "hc", "on a derived table")
  end)

  T.test(kind .. ": errors name the column, k and the option", function()
    local t = make()
    T.checkerr("t:pareto: minimize: no column 'flops' (columns: ", t.pareto, t, { minimize = { "time", "flops" } })
    T.checkerr("t:top: by: no column 'step'", t.top, t, { k = 2, by = "step" })
    T.checkerr("t:top: where: no column 'ok'", t.top, t, { k = 2, where = "ok" })
    T.checkerr("t:top: k = 0", t.top, t, { k = 0 })
    T.checkerr("t:top: k = 1.5", t.top, t, { k = 1.5 })
    T.checkerr("t:top: k = x", t.top, t, { k = "x" })
    T.checkerr("bx", t.top, t, { k = 1, bx = "time" })
    T.checkerr("minimize= or maximize= columns needed", t.pareto, t, {})
    -- fixes11: 9 objectives said only "more than 8 values" (the binding's array bound)
    T.checkerr("t:pareto: minimize= and maximize= name 9 columns: reductions: a Pareto front takes "
      .. "1..8 objectives (the fixed limit MAXOBJ of graphs/sweep/sweep_reduce.c's fronts), got 9",
      t.pareto, t, { minimize = { "time", "time", "time", "time", "time" }, maximize = { "mem", "mem", "mem", "mem" } })
    T.eq(t:pareto { minimize = { "time", "time", "time", "time" }, maximize = { "mem", "mem", "mem", "mem" } }:count() > 0,
      true, "8 objectives: a front")
    T.checkerr("column 'name' row 1 holds the string 'a'", t.top, t, { by = "name" })
    T.checkerr("column 'fits' row 1 holds a boolean", t.top, t, { by = "fits" })
  end)
end

T.test("empty table, CSV table", function()
  local e = dlb.table.new({}, { "time", "mem" })
  T.eq(e:pareto { minimize = { "time", "mem" } }:count(), 0, "empty front")
  T.eq(e:top { k = 3 }:count(), 0, "empty top")
  local tmp = (os.getenv("TMPDIR") or "/tmp") .. "/dlb_test_table_reduce_" .. os.time() .. "_" .. math.random(1, 1e9) .. ".csv"
  rowtable():to_csv(tmp)
  local c = dlb.read_csv(tmp)
  os.remove(tmp)
  T.eq(names(c:pareto { minimize = { "time", "mem" } }), "bce", "read_csv's table")
  T.eq(names(c:top { k = 3, by = "time" }), "bhc", "read_csv's table")
end)

T.done()
