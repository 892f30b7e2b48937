-- test_table.lua — result tables: access, where/select/sort, group_by aggregates, pivot
-- (heat-map layout), concat, join, CSV and JSON output, printing.
local T = require "harness"
local dlb = require "dlbench"

local tmpdir = os.getenv("TMPDIR") or "/tmp"
local function tmpname(tag)
  return string.format("%s/dlb_test_table_%s_%d_%d", tmpdir, tag, os.time(), math.random(1, 1e9))
end

local function fc()
  return dlb.table {
    { nodes = 32, batch = 64, util = 0.10 }, { nodes = 64, batch = 64, util = 0.20 },
    { nodes = 32, batch = 128, util = 0.30 }, { nodes = 64, batch = 128, util = 0.50 },
    { nodes = 32, batch = 64, util = 0.12, note = "rerun" },
  }
end

T.test("access: count, columns, column, row", function()
  local t = fc()
  T.eq(t:count(), 5, "count")
  T.eq(table.concat(t:columns(), ","), "batch,nodes,util,note", "first-appearance order")
  T.eq(table.concat(t:column("nodes"), " "), "32 64 32 64 32", "column")
  T.eq(t:column("note")[1], nil, "missing is nil")
  T.eq(t:column("note", "-")[1], "-", "default")
  local r = t:row(2)
  r.util = 99
  T.eq(t:row(2).util, 0.20, "row is a copy")
  T.checkerr("no column 'flops' (columns: batch, nodes, util, note)", t.column, t, "flops")
  T.checkerr("out of range", t.row, t, 6)
  T.checkerr("holds a table", dlb.table.new, { { a = {} } })
  local c = dlb.table.from_columns({ x = { 1, 2 }, y = { "a", "b" } })
  T.eq(c:row(2).y, "b", "from_columns")
  T.checkerr("has 1 values", dlb.table.from_columns, { x = { 1, 2 }, y = { "a" } })
end)

T.test("where, select, with, sort, unique", function()
  local t = fc()
  T.eq(t:where { nodes = 32 }:count(), 3, "where table")
  T.eq(t:where(function(r) return r.util > 0.25 end):count(), 2, "where function")
  T.eq(t:where { util = function(v) return v < 0.15 end }:count(), 2, "where predicate value")
  local s = t:select { "util", "nodes" }
  T.eq(table.concat(s:columns(), ","), "util,nodes", "select order")
  T.checkerr("no column 'x'", t.select, t, "x")
  local w = t:with("ex", function(r) return r.util * r.batch end)
  T.near(w:row(4).ex, 64, 1e-12, "with")
  local d = t:sort("-util")
  T.eq(table.concat(d:column("util"), " "), "0.5 0.3 0.2 0.12 0.1", "descending")
  local m = t:sort { "nodes", "-batch" }
  T.eq(table.concat(m:column("util"), " "), "0.3 0.1 0.12 0.5 0.2", "two keys, stable")
  local n = t:sort("note")
  T.eq(n:row(1).note, "rerun", "nil sorts last")
  T.eq(table.concat(t:unique("batch"), " "), "64 128", "unique")
end)

T.test("group_by with aggregates", function()
  local t = fc()
  local g = t:group_by("nodes", { util = "mean", n = "count", hi = { "max", "util" },
    lo = { "min", "util" }, med = { "median", "util" }, p91 = { "percentile", "util", 91 } })
  T.eq(table.concat(g:columns(), ","), "nodes,hi,lo,med,n,p91,util", "keys then sorted aggregates")
  T.eq(g:count(), 2, "groups")
  local r = g:row(1) -- nodes = 32: utils 0.10, 0.30, 0.12
  T.eq(r.nodes, 32, "sorted keys")
  T.eq(r.n, 3, "count")
  T.near(r.util, (0.10 + 0.30 + 0.12) / 3, 1e-15, "mean")
  T.eq(r.hi, 0.30, "max"); T.eq(r.lo, 0.10, "min"); T.eq(r.med, 0.12, "median")
  -- sorted {0.10, 0.12, 0.30}: rank 2*0.91 = 1.82 -> 0.12 + 0.82*(0.30-0.12)
  T.near(r.p91, 0.12 + 0.82 * 0.18, 1e-14, "percentile 91")
  local g2 = t:group_by({ "nodes", "batch" })
  T.eq(g2:count(), 4, "two keys")
  T.eq(g2:row(1).count, 2, "default count")
  T.checkerr("unknown aggregate 'avg'", t.group_by, t, "nodes", { util = "avg" })
end)

T.test("pivot: heat-map layout z[j][i], NaN holes, duplicates need an aggregate", function()
  local t = fc():where(function(r) return r.note == nil end)
  local xs, ys, z = t:pivot("nodes", "batch", "util")
  T.eq(table.concat(xs, " "), "32 64", "xs")
  T.eq(table.concat(ys, " "), "64 128", "ys")
  T.eq(z[1][2], 0.20, "z[j=batch 64][i=nodes 64]")
  T.eq(z[2][1], 0.30, "z[j=batch 128][i=nodes 32]")
  local h = t:where(function(r) return not (r.nodes == 64 and r.batch == 128) end)
  local _, _, zh = h:pivot("nodes", "batch", "util")
  assert(zh[2][2] ~= zh[2][2], "missing cell is NaN")
  T.checkerr("pass an aggregate", fc().pivot, fc(), "nodes", "batch", "util")
  local _, _, zm = fc():pivot("nodes", "batch", "util", "max")
  T.eq(zm[1][1], 0.12, "aggregated cell")
end)

T.test("concat and join", function()
  local a = dlb.table { { k = 1, x = "a" }, { k = 2, x = "b" } }
  local b = dlb.table { { k = 3, y = true } }
  local c = dlb.table.concat(a, b)
  T.eq(c:count(), 3, "rows")
  T.eq(table.concat(c:columns(), ","), "k,x,y", "union of columns")
  T.eq(a:concat(b):row(3).y, true, "method")
  local hw = dlb.table { { k = 1, x = "peak", bw = 900 }, { k = 1, x = "peak2", bw = 1000 }, { k = 3, bw = 5 } }
  local j = a:join(hw, "k")
  T.eq(j:count(), 2, "inner join: one row per match")
  T.eq(table.concat(j:columns(), ","), "k,x,bw,x_2", "suffix for clashing columns")
  T.eq(j:row(2).x_2, "peak2", "matched row")
  local l = a:join(hw, "k", { how = "left" })
  T.eq(l:count(), 3, "left join keeps unmatched")
  T.eq(l:row(3).bw, nil, "unmatched has no values")
  T.checkerr("unknown option 'on'", a.join, a, hw, "k", { on = 1 })
end)

T.test("to_csv and read_csv round trip, exactly", function()
  local path = tmpname("rt") .. ".csv"
  local t = dlb.table {
    { a = 1 / 3, b = "plain", c = true, d = 1e-300 },
    { a = -2.5e17, b = "with, comma and \"quotes\"\nand a newline", c = false, d = 0.1 },
    { a = 42, b = " padded ", d = 123456789012345 },
  }
  assert(t:to_csv(path))
  local back = dlb.read_csv(path)
  T.eq(back:count(), 3, "rows")
  for i = 1, 3 do
    for _, c in ipairs { "a", "b", "c", "d" } do T.eq(back:row(i)[c], t:row(i)[c], c .. i) end
  end
  local text = io.open(path):read("*a")
  assert(text:find('"with, comma and ""quotes""\nand a newline"', 1, true), "RFC 4180 quoting")
  assert(text:find("\n42,", 1, true), "integers plain")
  local ok, err = t:to_csv(tmpdir .. "/no/such/dir/x.csv")
  assert(ok == nil and err:find("cannot write"), "unwritable: nil, message")
  os.remove(path)
  assert(io.open(path .. ".tmp") == nil, "no temporary left")
end)

T.test("to_json", function()
  local t = dlb.table { { a = 1, s = "x\"y\n" }, { a = 0 / 0, b = true } }
  local j = t:to_json()
  T.eq(j, '[{"a":1,"s":"x\\"y\\n"},\n {"a":null,"b":true}]\n', "json")
  local path = tmpname("j") .. ".json"
  assert(t:to_json(path))
  T.eq(io.open(path):read("*a"), j, "written")
  os.remove(path)
end)

T.test("printing: aligned and truncated", function()
  local rows = {}
  for i = 1, 100 do rows[i] = { i = i, name = "n" .. i, v = i / 7 } end
  local s = tostring(dlb.table(rows))
  local lines = {}
  for l in s:gmatch("[^\n]+") do lines[#lines + 1] = l end
  T.eq(#lines, 2 + 10 + 1 + 5 + 1, "header, rule, 10 head, ellipsis, 5 tail, footer")
  assert(s:find("%.%.%. %(85 more rows%)"), s)
  assert(lines[#lines] == "[100 rows x 3 columns]", lines[#lines])
  assert(lines[3]:find("^  1  n1  %s+0%.142857$"), "numbers right-aligned: " .. lines[3])
end)

-- Regressions of the QA report (items 3 and 4).
T.test("errors name the caller's line and explain the accepted forms", function()
  local t = dlb.table { { m = "a", v = 1 }, { m = "b", v = 2 } }
  -- the position of the next line (where each pcall below sits)
  local function at() return "test_table.lua:" .. (debug.getinfo(2, "l").currentline + 1) .. ": " end
  local function expect(where, fragment, ok, err)
    assert(not ok, "an error expected")
    assert(err:find(where .. fragment, 1, true), "expected '" .. where .. fragment .. "', got: " .. tostring(err))
    return err
  end
  local err = expect(at(), "table:group_by: aggregate for 'out' is {{...}}",
    pcall(function() return t:group_by("m", { out = { { "mean", "v" } } }) end))
  assert(err:find('{"mean", "util"}', 1, true) and not err:find("table: 0x"), "accepted forms, no address: " .. err)
  expect(at(), "table:group_by: no column 'nope'",
    pcall(function() return t:group_by("m", { out = { "mean", "nope" } }) end))
  expect(at(), "table:group_by: aggregates must be named",
    pcall(function() return t:group_by("m", { "mean" }) end))
  expect(at(), "table:group_by: unknown aggregate 'meen' for 'out'",
    pcall(function() return t:group_by("m", { out = "meen" }) end))
  expect(at(), "table:group_by: 'g': dlb.stats.gmean: element 1 is -1 (needs > 0)",
    pcall(function() return dlb.table { { m = "a", v = -1 } }:group_by("m", { g = { "gmean", "v" } }) end))
  -- from inside a callback of another method: the callback's line
  expect(at(), "table:column: no column 'nope'",
    pcall(function() return t:where(function() return t:column("nope") end) end))
  expect(at(), "dlb.read_csv: cannot read " .. tmpdir .. ": is a directory",
    pcall(function() return dlb.read_csv(tmpdir) end))
  expect(at(), "dlb.read_csv: sep must be one",
    pcall(function() return dlb.table.parse_csv("a\n1\n", { sep = ";;" }) end))
  expect(at(), "dlb.read_csv: type of 'a' must be",
    pcall(function() return dlb.table.parse_csv("a\n1\n", { types = { a = "int" } }) end))
  -- an unreadable file: the OS message with the path (root reads anything: skipped)
  local p = tmpname("unreadable")
  local f = assert(io.open(p, "w")); f:write("a\n1\n"); f:close()
  os.execute("chmod 000 '" .. p .. "'")
  local fh = io.open(p, "rb")
  if fh then fh:close(); print("# skipped the unreadable-file check (running as root)")
  else T.checkerr("dlb.read_csv: cannot open " .. p .. ": Permission denied", dlb.read_csv, p) end
  os.remove(p)
  -- the backend's own checks, the same words under both backends
  local core = require "dlbench.backend"
  T.eq(select(2, pcall(core.stats_csv_parse, nil, ",")), "csv: text must be a string, got nil", "binding: text")
  T.eq(select(2, pcall(core.stats_csv_parse, "a", ";;")), "csv: separator must be one character", "binding: sep")
end)

T.test("with: an array needs one value per row", function()
  local t = dlb.table { { a = 1 }, { a = 2 }, { a = 3 }, { a = 4 }, { a = 5 } }
  T.checkerr("table:with: array for 'w' has 2 values for a table of 5 rows", t.with, t, "w", { 1, 2 })
  T.checkerr("has 6 values for a table of 5 rows", t.with, t, "w", { 1, 2, 3, 4, 5, 6 })
  T.checkerr("has n = 4", t.with, t, "w", { 1, 2, n = 4 })
  local w = t:with("w", { 1, 2, n = 5 })
  T.eq(w:row(2).w, 2, "n = count: trailing values missing")
  T.eq(w:row(5).w, nil, "missing")
  T.eq(t:with("w", { 5, 4, 3, 2, 1 }):row(1).w, 5, "exact length")
  T.eq(dlb.table{}:with("w", {}):count(), 0, "empty")
end)

T.test("concat: shards merge to the unsharded column order", function()
  -- a sweep's columns: parameters, fn's columns sorted, _error; a shard may lack some
  local s1 = dlb.table.new({ { a = 1, b = 1, v = 1 } }, { "a", "b", "v" })
  local s2 = dlb.table.new({ { a = 2, b = 1, extra = 9, v = 2 } }, { "a", "b", "extra", "v" })
  local s3 = dlb.table.new({ { a = 3, b = 1, _error = "x" } }, { "a", "b", "_error" })
  T.eq(table.concat(dlb.table.concat(s1, s2):columns(), ","), "a,b,extra,v", "a later column before its successor")
  T.eq(table.concat(dlb.table.concat(s1, s3, s2):columns(), ","), "a,b,extra,v,_error", "three shards")
  T.eq(table.concat(dlb.table.concat(s2, s1):columns(), ","), "a,b,extra,v", "first table's order")
  local x = dlb.table.new({ { k = 1 } }, { "k" })
  local y = dlb.table.new({ { k = 2, p = 1, q = 2 } }, { "k", "p", "q" })
  T.eq(table.concat(x:concat(y):columns(), ","), "k,p,q", "new columns at the end, in order")
  T.checkerr("argument 2 is a number, not a dlb.table", dlb.table.concat, x, 5)
  T.checkerr("argument 2 is a nil", dlb.table.concat, x, nil, y)
end)

T.test("printing: UTF-8 strings align by code points", function()
  local t = dlb.table.new({ { name = "naïve", v = 1 }, { name = "abcde", v = 22 }, { name = "日本", v = 3 } }, { "name", "v" })
  local lines = {}
  for l in tostring(t):gmatch("[^\n]+") do lines[#lines + 1] = l end
  T.eq(lines[3], "naïve   1", "é is one column")
  T.eq(lines[4], "abcde  22", "ASCII")
  T.eq(lines[5], "日本      3", "two code points")
  T.eq(dlb.table.ulen("naïve 🙂"), 7, "ulen")
  local long = dlb.table { { s = string.rep("é", 50) } }
  local l3 = select(3, tostring(long):match("([^\n]+)\n([^\n]+)\n([^\n]+)"))
  T.eq(l3, string.rep("é", 37) .. "...", "truncated at 40 code points, not inside one")
end)

T.test("sort: a spec that names no column is an error, rows and columnar tables alike (review7)", function()
  -- before: t:sort{by = "time"}, t:sort{} and t:sort() returned the rows as they were
  local t = dlb.sweep({ i = dlb.range(1, 6, 1) }, function(p) return { time = (p.i * 5) % 7 } end)
  local m = "table:sort: a column name (\"-name\": descending), a list of them or a function(a, b) expected, got "
  T.checkerr(m .. "a table with the field 'by'", t.sort, t, { by = "time" })
  T.checkerr(m .. "an empty list", t.sort, t, {})
  T.checkerr(m .. "nil", t.sort, t)
  T.checkerr(m .. "a table with the field 'by'", t.sort, t, { "time", by = "i" })
  T.eq(t:sort("time"):row(1).time, 1, "a name as before (5, 3, 1, 6, 4, 2)")
  T.eq(t:sort({ "-time" }):row(1).time, 6, "a list as before")
  local function b(p)
    return dlb.models.gpt { layers = 2, hidden = 64, heads = 4, vocab = 100, context = 64, seq = 16, batch = p.batch }
  end
  local ct = dlb.sweep.model(b, { batch = { 1, 2 }, device = { "H100" } }, { bind = { "batch" }, keep = true }).rows
  T.checkerr(m .. "a table with the field 'by'", ct.sort, ct, { by = "time" })
  T.eq(ct:sort("-batch"):row(1).batch, 2, "the columnar table's sort as before")
end)

T.test("head and select: counts and column lists checked, rows and columnar tables alike (review7)", function()
  -- before: head(0/0) gave no rows under Lua 5.4 and every row under LuaJIT; head(-1) and
  -- head(1.5) were taken; select{} and select{by = "x"} made a table of no columns
  local t = dlb.sweep({ i = dlb.range(1, 12, 1) }, function(p) return { x = p.i } end)
  local function b(p)
    return dlb.models.gpt { layers = 2, hidden = 64, heads = 4, vocab = 100, context = 64, seq = 16, batch = p.batch }
  end
  local ct = dlb.sweep.model(b, { batch = { 1, 2 }, device = { "H100" } }, { bind = { "batch" }, keep = true }).rows
  for _, tt in ipairs { t, ct } do
    for _, n in ipairs { 0 / 0, -1, 1.5, "3" } do
      T.checkerr("table:head: n must be a whole number >= 0, got ", tt.head, tt, n)
    end
    T.checkerr("table:select: at least one column name expected", tt.select, tt, {})
    T.checkerr("table:select: column names expected, got a table with the field 'by'", tt.select, tt, { by = "x" })
  end
  T.eq(t:head():count(), 10, "head() is 10 rows as before")
  T.eq(t:head(math.huge):count(), 12, "head(math.huge) is every row")
  T.eq(ct:head(1):count(), 1, "the columnar head as before")
  T.eq(#t:select("x"):columns(), 1, "select as before")
end)

T.done()
