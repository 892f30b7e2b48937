-- test_csv_roundtrip.lua — t:to_csv then dlb.read_csv gives the same table back, value
-- for value (signed zeros, NaN, infinities, "" against a missing value, strings with
-- commas, quotes, line breaks, NUL bytes, UTF-8, 1 MB long), on fixed cases and on random
-- tables; the number grammar of read_csv; sweep checkpoints with "" and -0.0 parameters
-- (regressions of the QA report: "" read back as nil, -0.0 as 0, configs re-run on every
-- restart). Runs under both backends (tests/run.sh).
local T = require "harness"
local dlb = require "dlbench"
local tbl = require "dlbench.table"

local tmpdir = os.getenv("TMPDIR") or "/tmp"
local function tmpname(tag)
  return string.format("%s/dlb_test_csvrt_%s_%d_%d.csv", tmpdir, tag, os.time(), math.random(1, 1e9))
end
local function readall(p) local f = assert(io.open(p, "rb")); local s = f:read("*a"); f:close(); return s end

-- Same value, bit for bit as far as Lua can tell: same type; numbers equal as doubles (CSV
-- numbers read as floats on both interpreters, docs/csv.md, so a Lua 5.4 integer beyond
-- 2^53 comes back as its nearest double) with the same sign of zero, or both NaN.
local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "number" then return a == b end
  a, b = a + 0.0, b + 0.0
  if a ~= a then return b ~= b end
  return a == b and (a ~= 0 or 1 / a == 1 / b)
end
local function show(v)
  if type(v) == "string" then
    if #v > 60 then return string.format("%q...(%d bytes)", v:sub(1, 40), #v) end
    return string.format("%q", v)
  end
  if type(v) == "number" then return string.format("%.17g", v) end
  return tostring(v)
end

-- t written and read back must equal t: columns in order, rows, values.
local function roundtrip(t, what, opts)
  local path = tmpname("rt")
  assert(t:to_csv(path, opts and { sep = opts.sep }))
  local ok, back = pcall(dlb.read_csv, path, opts)
  if not ok then error(what .. ": read_csv failed: " .. tostring(back) .. "\nfile: " .. show(readall(path)), 2) end
  local text = readall(path)
  os.remove(path)
  local c1, c2 = table.concat(t:columns(), "|"), table.concat(back:columns(), "|")
  if c1 ~= c2 then error(string.format("%s: columns %s read back as %s", what, c1, c2), 2) end
  if t:count() ~= back:count() then
    error(string.format("%s: %d rows read back as %d\nfile: %s", what, t:count(), back:count(), show(text)), 2)
  end
  for i = 1, t:count() do
    local a, b = t:row(i), back:row(i)
    for _, c in ipairs(t:columns()) do
      if not same(a[c], b[c]) then
        error(string.format("%s: row %d, column %s: %s (%s) read back as %s (%s)\nfile: %s", what,
          i, show(c), show(a[c]), type(a[c]), show(b[c]), type(b[c]), show(text)), 2)
      end
    end
  end
  return text
end

T.test("empty string, missing, signed zero, NaN, infinities", function()
  local t = tbl.new({
    { s = "", x = -0.0, n = 0 / 0, i = math.huge, j = -math.huge, z = 0 },
    { s = "a", x = 0, n = 1, i = 1, j = 1 },
    { x = -0.0 },
  }, { "s", "x", "n", "i", "j", "z" })
  local text = roundtrip(t, "specials")
  T.eq(text, 's,x,n,i,j,z\n"",-0.0,nan,inf,-inf,0\na,0,1,1,1,\n,-0.0,,,,\n', "the text")
  local back = tbl.parse_csv(text)
  T.eq(back:row(1).s, "", "a quoted \"\" is the empty string")
  T.eq(back:row(3).s, nil, "an empty unquoted field is missing")
  T.eq(1 / back:row(1).x, -math.huge, "-0.0 keeps its sign")
  T.eq(1 / back:row(2).x, math.huge, "0 is +0")
  -- with types: the QA's case, "" read back as nil even with types = {s = "string"}
  local typed = tbl.parse_csv('s,v\n"",1\n,2\n', { types = { s = "string" } })
  T.eq(typed:row(1).s, "", "types = string: \"\" stays")
  T.eq(typed:row(2).s, nil, "types = string: missing stays missing")
  -- "-0" (printf's %g) reads as -0.0 too, under Lua 5.4 as under LuaJIT
  T.eq(1 / tbl.parse_csv("x\n-0\n1\n"):row(1).x, -math.huge, "-0 is -0.0")
  T.eq(tbl.numtext(-0.0), "-0.0", "numtext")
  -- a number or boolean column: a quoted "" is missing (a number cannot be empty)
  local q = tbl.parse_csv('x,b\n"",""\n', { types = { x = "number", b = "boolean" } })
  T.eq(q:row(1).x, nil, "number column: \"\" is missing")
  T.eq(q:row(1).b, nil, "boolean column: \"\" is missing")
end)

T.test("strings: separators, quotes, line breaks, NUL, UTF-8, look-alikes, 1 MB", function()
  local big = string.rep("0123456789,\"\n", 80660) -- just over 1 MB with every special
  local strs = { "a,b", '"', '""', 'say "hi"', "\n", "\r\n", "\r", "line1\nline2", " pad ",
    "\t", "naïve café 日本語 🙂", "\0", "a\0b", "\255\254", "1", "-0", "0x10", "nan", "NaN",
    "-inf", "Infinity", "true", "FALSE", "1e400", ".5", "+5", "5.", " 5", "007", big }
  local rows = {}
  for i, s in ipairs(strs) do rows[i] = { k = i, s = s } end
  roundtrip(tbl.new(rows, { "k", "s" }), "strings")
  -- one at a time too: a column of only look-alikes must stay text
  for i, s in ipairs(strs) do
    if #s < 100 then roundtrip(tbl.new({ { s = s }, { s = s } }, { "s" }), "alone " .. i) end
  end
  -- other separators
  roundtrip(tbl.new(rows, { "k", "s" }), "semicolons", { sep = ";" })
  roundtrip(tbl.new(rows, { "k", "s" }), "tabs", { sep = "\t" })
  -- column names that need quotes
  roundtrip(tbl.new({ { ["a,b"] = 1, [" c "] = "x", ['d"e'] = true, ["f\ng"] = "" } },
    { "a,b", " c ", 'd"e', "f\ng" }), "names")
end)

T.test("one column: a missing value is a blank line, even the last", function()
  local t = tbl.new({ { x = 1 }, {}, { x = 3 }, {} }, { "x" })
  T.eq(roundtrip(t, "one column"), "x\n1\n\n3\n\n", "the text")
  roundtrip(tbl.new({ {}, { s = "" }, {}, { s = "a" } }, { "s" }), "one string column")
end)

T.test("empty tables", function()
  local e = tbl.new()
  -- no columns: an empty file, which dlb.read_csv refuses (review 10), so to_csv refuses it;
  -- as text (dlb.table.csvtext / parse_csv) it is still the empty string and back
  T.checkerr("table:to_csv: the table has no columns, which a CSV file cannot hold",
    function() return e:to_csv(tmpname("e")) end)
  T.eq(tbl.csvtext(e), "", "empty text")
  T.eq(#tbl.parse_csv(tbl.csvtext(e)):columns(), 0, "read back from text")
  T.eq(tostring(e), "[0 rows x 0 columns]", "printed")
  T.eq(roundtrip(tbl.new({}, { "a", "b" }), "header only"), "a,b\n", "header only")
  T.checkerr("2 rows but no columns", function() return tbl.new({ {}, {} }):to_csv(tmpname("x")) end)
end)

-- Random values of one kind per column (read_csv infers one type per column).
local function randstring()
  local pieces = { ",", '"', "\n", "\r", "\r\n", " ", "\t", "a", "Z", "é", "日", "🙂", "1", ".",
    "e", "-", "+", "0x", "nan", "inf", "true", "\0", "\255", ";", "''" }
  local r = math.random()
  if r < 0.1 then return "" end
  if r < 0.15 then return string.rep("x,\"\n", math.random(1000, 5000)) end
  local n, b = math.random(1, 8), {}
  for i = 1, n do b[i] = pieces[math.random(#pieces)] end
  return table.concat(b)
end
local function randnumber()
  local r = math.random(1, 12)
  if r == 1 then return -0.0 elseif r == 2 then return 0 / 0 elseif r == 3 then return math.huge
  elseif r == 4 then return -math.huge elseif r == 5 then return 0
  elseif r == 6 then -- integers (Lua 5.4: with the extremes)
    if math.type then
      local e = { math.maxinteger, math.mininteger, math.random(-1000, 1000), math.random(-2 ^ 31, 2 ^ 31) }
      return e[math.random(#e)]
    end
    return math.random(-2 ^ 31, 2 ^ 31)
  elseif r == 7 then -- subnormals and the extremes of double
    local e = { 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 2 ^ 53, 2 ^ 53 + 2 }
    return e[math.random(#e)]
  end
  -- a double with random bits of mantissa over a wide exponent range
  local m = math.random() + math.random() * 2 ^ -26 + math.random() * 2 ^ -52
  local v = m * 2 ^ math.random(-1074, 1023)
  if math.random() < 0.5 then v = -v end
  return v
end
local function randtable()
  local ncol, nrow = math.random(1, 5), math.random(0, 12)
  local names, kinds, used = {}, {}, {}
  for c = 1, ncol do
    local nm
    repeat
      nm = math.random() < 0.7 and ("c" .. math.random(1, 50)) or randstring()
    until nm ~= "" and not used[nm] and #nm < 200
    used[nm] = true
    names[c] = nm
    kinds[c] = ({ "number", "string", "boolean", "string" })[math.random(4)]
  end
  local rows = {}
  for i = 1, nrow do
    local r = {}
    for c, nm in ipairs(names) do
      if math.random() > 0.2 then
        local k = kinds[c]
        r[nm] = k == "number" and randnumber() or k == "string" and randstring() or math.random() < 0.5
      end
    end
    rows[i] = r
  end
  return tbl.new(rows, names)
end

T.test("random tables: to_csv then read_csv is the identity", function()
  math.randomseed(20261122)
  for n = 1, 300 do roundtrip(randtable(), "random table " .. n) end
end)

T.test("random CSV text: whatever reads, writes and reads back the same", function()
  math.randomseed(777)
  local valid = 'set,m,n,k,name\ntraining,1760,16,1760,"a, ""b"""\ninference,-0,nan,2048,""\r\n"x\ny",1,2,3,d\n'
  local alphabet = { ",", '"', "\n", "\r", "a", "1", ".", "e", "-", " ", "0", "\0", "\255", "t", "x" }
  local tried = 0
  for _ = 1, 1500 do
    local s = valid
    for _ = 1, math.random(1, 5) do
      local at = math.random(1, #s)
      local op = math.random(3)
      if op == 1 then s = s:sub(1, at - 1) .. alphabet[math.random(#alphabet)] .. s:sub(at + 1)
      elseif op == 2 then s = s:sub(1, at - 1) .. s:sub(at + 1)
      else s = s:sub(1, at) .. alphabet[math.random(#alphabet)] .. s:sub(at + 1) end
      if #s == 0 then break end
    end
    local ok, t = pcall(tbl.parse_csv, s, nil, "fuzz")
    if ok then tried = tried + 1; roundtrip(t, "from " .. string.format("%q", s)) end
  end
  assert(tried > 100, "enough parses: " .. tried)
end)

T.test("the numbers read_csv reads (docs/csv.md)", function()
  local cases = {
    { "+5", 5 }, { ".5", 0.5 }, { "5.", 5 }, { "-.5", -0.5 }, { "+.5e1", 5 }, { "1e5", 1e5 },
    { "1E-3", 1e-3 }, { "5.e3", 5000 }, { " 7 ", 7 }, { "007", 7 }, { "1e400", math.huge },
    { "-1e400", -math.huge }, { "1e-400", 0 }, { "nan", 0 / 0 }, { "-NaN", 0 / 0 },
    { "INF", math.huge }, { "-Infinity", -math.huge }, { "+inf", math.huge },
    { "9223372036854775807", 9223372036854775807 }, { "-0.0", -0.0 }, { "-0", -0.0 },
    { "0.1", 0.1 }, { "2.2250738585072014e-308", 2.2250738585072014e-308 },
  }
  for _, c in ipairs(cases) do
    local t = tbl.parse_csv("x,y\n" .. c[1] .. ",1\n")
    local v = t:row(1).x
    assert(same(v, c[2]), string.format("%q read as %s, expected %s", c[1], show(v), show(c[2])))
    T.eq(tbl.csvnumber(c[1]) ~= nil, true, c[1])
  end
  for _, s in ipairs { "0x10", "0x1p4", "5e", "e5", ".", "+", "-", "1,5", "1_000", "1e5.5",
    "--5", "5-", "inf5", "nan(1)", "١", "5 5", "" } do
    T.eq(tbl.csvnumber(s), nil, string.format("%q is not a number", s))
  end
  -- one text cell makes the column text, the cells' text kept as written
  local m = tbl.parse_csv("x\n+5\n0x10\n")
  T.eq(m:row(1).x, "+5", "mixed column: text as written")
  -- a quoted number is text, unless the writer quoted everything (Python's QUOTE_ALL)
  T.eq(tbl.parse_csv('x,y\n"5",6\n'):row(1).x, "5", "quoted: text")
  local qn = tbl.parse_csv('x,y\n5,"a"\n"","b"\n')
  T.eq(qn:row(1).x, 5, "QUOTE_NONNUMERIC: numbers")
  T.eq(qn:row(2).x, nil, "QUOTE_NONNUMERIC: a quoted \"\" in a number column is missing")
  local qa = tbl.parse_csv('"x","y"\n"5","a"\n"","b"\n')
  T.eq(qa:row(1).x, 5, "QUOTE_ALL: numbers")
  T.eq(qa:row(2).x, nil, "QUOTE_ALL: \"\" is missing")
end)

T.test("sweep checkpoints: \"\" and -0.0 configs are done after a restart", function()
  local path = tmpname("ckpt")
  local space = { s = { "", "a", "1" }, x = { -0.0, 0, 1.5 } }
  local calls = 0
  local f = function(p) calls = calls + 1; return { v = 1 / p.x } end
  local opts = { jobs = 1, checkpoint = path, quiet = true, progress = false }
  local t1 = dlb.sweep(space, f, opts)
  T.eq(calls, 9, "first run: every config")
  T.eq(t1:count(), 9, "rows")
  calls = 0
  local t2 = dlb.sweep(space, f, opts)
  T.eq(calls, 0, "restart: nothing re-runs")
  T.eq(t2:count(), 9, "restart: no duplicate rows")
  local saved = dlb.read_csv(path)
  T.eq(saved:count(), 9, "checkpoint rows")
  T.eq(saved:row(1).s, "", "\"\" in the file")
  T.eq(1 / saved:row(1).x, -math.huge, "-0.0 in the file")
  T.eq(saved:row(1).v, -math.huge, "1 / -0.0")
  os.remove(path)
end)

T.test("numbers read as floats on both interpreters: large counts do not wrap", function()
  local t = dlb.table.parse_csv("flops\n4000000000000000000\n")
  local v = t:column("flops")[1]
  T.eq(v * 1e6 > 0, true, "4e18 * 1e6 stays positive") -- an int64 would wrap negative
  T.eq(v, 4e18, "value")
end)

T.test("a NaN read back prints as nan on both interpreters (review 11: -nan under Lua 5.4)", function()
  -- 0/0 on x86 carries the sign bit, which Lua 5.4's tostring writes ("-nan"); the tables'
  -- NaN has it cleared, so a CSV's nan prints as it was written
  for _, text in ipairs { "nan", "-nan", "NaN" } do
    local t = dlb.table.parse_csv("x\n" .. text .. "\n")
    local v = t:column("x")[1]
    T.eq(v ~= v, true, text .. " is NaN")
    T.eq(tostring(v), "nan", text .. " prints")
    T.eq(tostring(t:row(1).x), "nan", text .. " in a row")
  end
  T.eq(tostring(dlb.table.csvnumber("nan")), "nan", "csvnumber")
end)

T.done()
