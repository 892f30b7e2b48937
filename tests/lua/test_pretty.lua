-- test_pretty.lua — dlbench.pretty (the REPL's printer) under both backends: scalars,
-- sorted keys, key syntax, depth/items/width limits, cycles, __tostring objects, options,
-- and a randomized round trip (the output of a plain table is Lua that rebuilds it).
local T = require "harness"
local dlb = require "dlbench"
local pretty = require "dlbench.pretty"
local fmt = pretty.format

T.test("scalars", function()
  T.eq(fmt(nil), "nil", "nil")
  T.eq(fmt(true), "true", "boolean")
  T.eq(fmt(42), tostring(42), "integer")
  T.eq(fmt(1.5), "1.5", "float")
  T.eq(fmt("a\nb\t\"c\"\\"), [["a\nb\t\"c\"\\"]], "string escapes")
  T.eq(fmt("\1\127"), [["\001\127"]], "control bytes as decimal escapes")
  T.eq(fmt({}), "{}", "empty table")
end)

T.test("keys sorted: array part, numbers, strings, booleans", function()
  T.eq(fmt({ b = 2, a = 1 }), "{ a = 1, b = 2 }", "strings sorted")
  T.eq(fmt({ 10, 20, x = 1 }), "{ 10, 20, x = 1 }", "array part first")
  T.eq(fmt({ [1.5] = 3, ["a b"] = 1, ["end"] = 2, [true] = 4, [-1] = 0 }),
    '{ [-1] = 0, [1.5] = 3, ["a b"] = 1, ["end"] = 2, [true] = 4 }', "key syntax")
  T.eq(fmt({ [1] = "a", [3] = "c" }), '{ "a", [3] = "c" }', "holes end the array part")
end)

T.test("depth limit", function()
  local t = { a = { b = { c = { d = {} } } } }
  T.eq(fmt(t, { depth = 2 }), "{ a = { b = {...} } }", "depth 2")
  T.eq(fmt(t, { depth = 0 }), "{...}", "depth 0")
  T.eq(fmt(t), "{ a = { b = { c = { d = {} } } } }", "default depth shows 4 levels")
end)

T.test("items limit", function()
  T.eq(fmt({ 1, 2, 3, 4, 5 }, { items = 3 }), "{ 1, 2, 3, ...(2 more) }", "items 3")
  T.eq(fmt({ 1, 2, z = 1 }, { items = 2 }), "{ 1, 2, ...(1 more) }", "hash counted too")
end)

T.test("long strings are cut", function()
  T.eq(fmt(("x"):rep(10), { strlen = 4 }), '"xxxx"...(10 bytes)', "strlen")
end)

T.test("width: long tables break into lines that fit", function()
  local a = {}
  for i = 1, 60 do a[i] = i * 1000 end
  local s = fmt(a, { width = 40, items = 100 })
  assert(s:find("\n", 1, true), "multi-line")
  for line in s:gmatch("[^\n]+") do
    assert(#line <= 40, "line too long: " .. line)
  end
  assert(s:match("^{\n  1000, 2000, "), s)
  local rec = { name = ("n"):rep(30), kind = ("k"):rep(30), sub = { 1, 2 } }
  T.eq(fmt(rec, { width = 40 }),
    '{\n  kind = "' .. ("k"):rep(30) .. '",\n  name = "' .. ("n"):rep(30)
    .. '",\n  sub = { 1, 2 }\n}', "records one field a line")
end)

T.test("cycles are marked, shared tables are not", function()
  local t = {}
  t.self = t
  assert(fmt(t):match("^{ self = <cycle: table: [^>]+> }$"), fmt(t))
  local s = { 1 }
  T.eq(fmt({ s, s }), "{ { 1 }, { 1 } }", "shared")
end)

T.test("objects print through __tostring", function()
  local obj = setmetatable({ hidden = 1 }, { __tostring = function() return "Obj<3>" end })
  T.eq(fmt(obj), "Obj<3>", "top level")
  T.eq(fmt({ obj }), "{ Obj<3> }", "nested")
  local bad = setmetatable({}, { __tostring = function() error("nope") end })
  assert(fmt(bad):find("__tostring failed", 1, true), fmt(bad))
end)

T.test("documented functions show their signature", function()
  T.eq(fmt(dlb.version), "<function dlb.version() -> string>", "signature")
  assert(fmt(print):match("^function"), fmt(print))
end)

T.test("dlb.pretty is callable; values() as the REPL prints", function()
  T.eq(dlb.pretty({ 1 }), "{ 1 }", "dlb.pretty(x)")
  T.eq(dlb.pretty({ 1, { 2 } }, { depth = 1 }), "{ 1, {...} }", "with options")
  T.eq(pretty.values("a", 1, { 2 }), "a\t1\t{ 2 }", "values")
  T.eq(pretty.values(nil), "nil", "values(nil)")
end)

T.test("pretty.object gives tables a summary and refuses shared metatables", function()
  local t = dlb.pretty.object({ x = 1 }, function() return "summary" end)
  T.eq(tostring(t), "summary")
  T.eq(t.x, 1)
  -- found by tests/fuzz/api_fuzz.lua: a string's metatable is every string's
  T.checkerr("expected a table, got string", dlb.pretty.object, "x.pdf", function() end)
  T.checkerr("expected a function", dlb.pretty.object, {}, {})
  T.eq(tostring("still a string"), "still a string")
end)

T.test("bad options are errors naming them", function()
  T.checkerr("unknown option 'colour'", fmt, {}, { colour = 1 })
  T.checkerr("unknown option 'colour' for dlb.pretty; accepted: depth, indent, items, strlen, width", fmt, {}, { colour = 1 })
  T.checkerr("option 'depth' must be a number", fmt, {}, { depth = "deep" })
  T.checkerr("options must be a table", fmt, {}, 3)
end)

-- Random plain tables print as Lua that rebuilds them (wide limits, so nothing is cut).
local function deepeq(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do if not deepeq(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local function randstr()
  local n, c = math.random(0, 6), {}
  for i = 1, n do c[i] = string.char(math.random(0, 255)) end
  return table.concat(c)
end

local function randvalue(level)
  local r = math.random(1, level > 3 and 3 or 5)
  if r == 1 then return math.random(-1000, 1000) end
  if r == 2 then return randstr() end
  if r == 3 then return math.random(0, 1) == 1 end
  local t = {}
  for i = 1, math.random(0, 5) do t[i] = randvalue(level + 1) end
  for _ = 1, math.random(0, 5) do
    local kind = math.random(1, 3)
    local k = kind == 1 and randstr() or kind == 2 and math.random(-50, 50)
      or ({ "name", "end", "x_1", "_" })[math.random(1, 4)]
    if k ~= "" or kind ~= 1 then t[k] = randvalue(level + 1) end
  end
  return t
end

T.test("randomized round trip (300 tables)", function()
  math.randomseed(20261121)
  local load = loadstring or load
  for i = 1, 300 do
    local v = randvalue(1)
    local s = fmt(v, { depth = 100, items = 1000, strlen = 1000, width = 60 })
    local f, err = load("return " .. s)
    assert(f, "case " .. i .. ": " .. tostring(err) .. "\n" .. s)
    assert(deepeq(f(), v), "case " .. i .. " differs:\n" .. s)
  end
end)

T.test("whole floats print as integers (counts), others as Lua prints them", function()
  local fmt = require "dlbench.pretty"
  T.eq(fmt(25557032.0), "25557032", "a float count")
  T.eq(fmt(1.5), "1.5", "a fraction")
  T.eq(fmt(2 ^ 60), tostring(2 ^ 60), "beyond 2^53")
  -- 2^-21 = 4.76837158203125e-07 lies halfway at the 14th digit: C's printf (Lua 5.4's
  -- tostring) rounds it to even, LuaJIT's tostring away from zero; dlb.pretty prints the former
  T.eq(fmt(2 ^ -21), "4.7683715820312e-07", "halfway at the 14th digit, both backends")
  T.eq(fmt(-1 / 0) .. " " .. fmt({ 0.1 }), "-inf { 0.1 }", "infinity and a list")
end)

-- Review 11: a NaN printed "-nan" under dlbench (Lua 5.4 writes the sign x86's 0/0 carries)
-- and "nan" under LuaJIT, in dlb.pretty, dlb.pretty.si and dlb.pretty.seconds.
T.test("NaN prints as nan on both backends", function()
  local nan = 0 / 0
  T.eq(fmt(nan), "nan"); T.eq(fmt(-nan), "nan")
  T.eq(fmt({ a = nan }), "{ a = nan }")
  T.eq(pretty.si(nan, "B"), "nan B"); T.eq(pretty.seconds(nan), "nan s")
  T.eq(pretty.seconds(math.huge), "inf s"); T.eq(pretty.si(1.5e9, "FLOP"), "1.5 GFLOP")
end)

-- Review 14: a plan row printed "773  tokens/s" (si(773, "") ended in a space) and an
-- infinite value took the largest prefix ("inf YB")
T.test("dlb.pretty.si: no trailing space without a unit, infinities unprefixed", function()
  T.eq(pretty.si(773, ""), "773"); T.eq(pretty.si(8.43e6, ""), "8.43 M"); T.eq(pretty.si(773, "B"), "773 B")
  T.eq(pretty.si(0 / 0, ""), "nan")
  T.eq(pretty.si(math.huge, "B"), "inf B"); T.eq(pretty.si(-math.huge, ""), "-inf")
end)

T.done()
