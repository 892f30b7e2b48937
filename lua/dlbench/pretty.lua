-- dlbench.pretty — format Lua values for people: nested tables with sorted keys, depth
-- and width limits and cycle marks; dlbench objects (anything with __tostring) as their
-- tostring. Returns strings, never prints (the REPL prints what it returns).
--   dlb.pretty(x [, opts]) -> string         (the module is callable; same as format)
--   opts: depth (levels shown, 4), items (entries per table, 40), width (line width, 80),
--         indent (string, two spaces), strlen (longest string shown whole, 200)
local doc = require "dlbench.doc"

local M = {}

local defaults = { depth = 4, items = 40, width = 80, indent = "  ", strlen = 200 }
local optnames = { "depth", "items", "width", "indent", "strlen" }

local keywords = {}
for w in ([[and break do else elseif end false for function goto if in local nil not or
  repeat return then true until while]]):gmatch("%a+") do keywords[w] = true end

local function options(opts)
  if opts == nil then return defaults end
  if type(opts) ~= "table" then
    error("dlb.pretty: options must be a table, got " .. type(opts), 3)
  end
  local o = {}
  local msg = require("dlbench.options").unknown(opts, optnames, "dlb.pretty")
  if msg then error(msg, 3) end
  for _, k in ipairs(require("dlbench.options").keys(opts)) do -- sorted: the first refused key is named
    local v = opts[k]
    if type(v) ~= type(defaults[k]) or (type(v) == "number" and not (v >= 0)) then
      error("dlb.pretty: option '" .. k .. "' must be a " .. type(defaults[k])
        .. (type(v) == "number" and " >= 0" or "") .. ", got " .. tostring(v), 3)
    end
    o[k] = v
  end
  for k, v in pairs(defaults) do
    if o[k] == nil then o[k] = v end
  end
  return o
end

-- A string as a Lua literal, cut after strlen bytes.
local function quote(s, strlen)
  local cut = ""
  if #s > strlen then
    cut = string.format("...(%d bytes)", #s)
    s = s:sub(1, strlen)
  end
  s = s:gsub('[%c"\\]', function(c)
    if c == "\n" then return "\\n" end
    if c == "\t" then return "\\t" end
    if c == "\r" then return "\\r" end
    if c == '"' or c == "\\" then return "\\" .. c end
    return string.format("\\%03d", c:byte())
  end)
  return '"' .. s .. '"' .. cut
end

-- tostring through __tostring, protected: a broken __tostring does not break printing.
local function safetostring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == "string" then return s end
  return "<" .. type(v) .. ": __tostring failed: " .. tostring(s) .. ">"
end

local function hastostring(v)
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__tostring") ~= nil
end

local function scalar(v, o)
  local t = type(v)
  if t == "string" then return quote(v, o.strlen) end
  -- counts computed in floating point (params, FLOPs, op counts) read as integers:
  -- 25557032, not 25557032.0 (exact below 2^53; larger ones keep Lua's %.14g form)
  if t == "number" and v == math.floor(v) and math.abs(v) < 2 ^ 53 then
    return string.format("%.0f", v)
  end
  -- NaN as "nan" on both backends: Lua 5.4's tostring writes the sign a NaN carries (0/0 on
  -- x86 is "-nan"), LuaJIT's never (review 11: dlb.pretty(0/0) differed)
  if t == "number" and v ~= v then return "nan" end
  -- other floats in Lua's %.14g form through string.format, C's printf on both backends:
  -- LuaJIT's tostring rounds a value exactly halfway at the 14th digit away from zero, Lua
  -- 5.4's to even (2^-21: 4.7683715820313e-07 / ...312e-07; lua/dlbench/ffi_format.lua)
  if t == "number" and not (math.type and math.type(v) == "integer") then
    return string.format("%.14g", v)
  end
  if t == "function" then
    local d = doc.get(v)
    if d then return "<function " .. d.signature .. ">" end
  end
  return safetostring(v)
end

-- Order of keys: numbers, then strings, then booleans, then the rest by their tostring.
local rank = { number = 1, string = 2, boolean = 3 }
local function keyless(a, b)
  local ta, tb = type(a), type(b)
  local ra, rb = rank[ta] or 4, rank[tb] or 4
  if ra ~= rb then return ra < rb end
  if ta == "number" or ta == "string" then
    if ta == tb then return a < b end
  end
  if ta == "boolean" and tb == "boolean" then return (not a) and b end
  return safetostring(a) < safetostring(b)
end

local function keystr(k, o)
  if type(k) == "string" and k:match("^[%a_][%w_]*$") and not keywords[k] then
    return k .. " = "
  end
  if type(k) == "table" or type(k) == "function" or type(k) == "userdata" then
    return "[" .. safetostring(k) .. "] = "
  end
  return "[" .. scalar(k, o) .. "] = "
end

local render

-- A table at nesting level `level`; `onpath` holds the tables being printed (cycles).
local function tablestr(t, level, o, onpath)
  if onpath[t] then return "<cycle: " .. safetostring(t) .. ">" end
  if next(t) == nil then return "{}" end
  if level >= o.depth then return "{...}" end
  onpath[t] = true
  local n = 0
  while rawget(t, n + 1) ~= nil do n = n + 1 end
  local keys = {}
  for k in next, t do
    if not (type(k) == "number" and k >= 1 and k <= n and k == math.floor(k)) then
      keys[#keys + 1] = k
    end
  end
  table.sort(keys, keyless)
  local total = n + #keys
  local shown = math.min(total, o.items)
  local items, scalars, multiline = {}, true, false
  for i = 1, shown do
    local s, v
    if i <= n then
      v = rawget(t, i)
      s = render(v, level + 1, o, onpath)
    else
      local k = keys[i - n]
      v = rawget(t, k)
      s = keystr(k, o) .. render(v, level + 1, o, onpath)
      scalars = false
    end
    if type(v) == "table" then scalars = false end
    if s:find("\n", 1, true) then multiline = true end
    items[#items + 1] = s
  end
  if shown < total then
    items[#items + 1] = string.format("...(%d more)", total - shown)
  end
  onpath[t] = nil
  local pad = o.indent:rep(level)
  local inner = pad .. o.indent
  local oneline = "{ " .. table.concat(items, ", ") .. " }"
  if not multiline and #pad + #oneline <= o.width then return oneline end
  local lines = {}
  if scalars and not multiline then -- a long array of numbers or strings: fill lines
    local cur = inner
    for i, s in ipairs(items) do
      local piece = s .. (i < #items and "," or "")
      if cur ~= inner and #cur + 1 + #piece > o.width then
        lines[#lines + 1] = cur
        cur = inner .. piece
      else
        cur = (cur == inner) and (inner .. piece) or (cur .. " " .. piece)
      end
    end
    lines[#lines + 1] = cur
  else
    for i, s in ipairs(items) do
      lines[#lines + 1] = inner .. s .. (i < #items and "," or "")
    end
  end
  return "{\n" .. table.concat(lines, "\n") .. "\n" .. pad .. "}"
end

function render(v, level, o, onpath)
  if type(v) == "table" and not hastostring(v) then
    return tablestr(v, level, o, onpath)
  end
  return scalar(v, o)
end

-- Format one value (strings quoted).
function M.format(x, opts)
  return render(x, 0, options(opts), {})
end
doc.doc(M.format, "dlb.pretty.format(x [, opts]) -> string",
  "x formatted for reading: tables nested with sorted keys, strings quoted; opts: "
  .. "depth=4, items=40, width=80, indent=\"  \", strlen=200")

-- == units for one-line summaries ====================================================
-- Rounding done here, not by the C library's printf (Lua 5.4) or LuaJIT's own formatter,
-- which round halfway cases differently: both backends print the same text.
-- x rounded to n significant digits, halves away from zero; "%.<n>g" of the result prints
-- the same digits under both backends.
local function round_sig(x, n)
  if x == 0 or x ~= x or x == math.huge or x == -math.huge then return x end
  local e = math.floor(math.log(math.abs(x)) / math.log(10))
  local sc = 10 ^ (n - 1 - e)
  return (x < 0 and -math.floor(-x * sc + 0.5) or math.floor(x * sc + 0.5)) / sc
end
M.round_sig = round_sig
doc.doc(round_sig, "dlb.pretty.round_sig(x, n) -> number", "x rounded to n significant digits, "
  .. "halves away from zero (what string.format(\"%.<n>g\") prints alike under both backends)")
local function round3g(x) return round_sig(x, 3) end
-- A number and what follows it (prefix and unit), one space between; no trailing space when
-- nothing follows (si(773, "") is "773": review 14 found "773  tokens/s" in a plan row).
local function with_unit(num, u)
  return u == "" and num or num .. " " .. u
end
local function si(x, unit)
  if x ~= x then return with_unit("nan", unit) end   -- not "-nan" under Lua 5.4 only (as scalar)
  if x == math.huge or x == -math.huge then return with_unit(x > 0 and "inf" or "-inf", unit) end
  x = round3g(x)
  local pre = { { 1e24, "Y" }, { 1e21, "Z" }, { 1e18, "E" }, { 1e15, "P" }, { 1e12, "T" },
    { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } }
  for _, p in ipairs(pre) do
    -- the prefix whose rounded mantissa is at least 1 (1e12 is "1 T", not "1e+03 G")
    local v = round3g(x / p[1])
    if math.abs(v) >= 1 then return with_unit(string.format("%.3g", v), p[2] .. unit) end
  end
  return with_unit(string.format("%.3g", x), unit)
end
M.si = si
doc.doc(si, "dlb.pretty.si(x, unit) -> string", "x with an SI prefix, e.g. \"1.5 GFLOP\" (also dlb.graph.si)")

-- A duration with its unit: "91.2 ms", "5 µs", "2.5 s", "3.1 h".
function M.seconds(t)
  if type(t) ~= "number" then return tostring(t) end
  local a = math.abs(t)
  if t ~= t then return "nan s" end
  if a == math.huge then return tostring(t) .. " s" end
  if a == 0 then return "0 s" end
  if a < 1e-6 then return string.format("%.3g ns", round3g(t * 1e9)) end
  if a < 1e-3 then return string.format("%.3g µs", round3g(t * 1e6)) end
  if a < 1 then return string.format("%.3g ms", round3g(t * 1e3)) end
  if a < 600 then return string.format("%.3g s", round3g(t)) end
  if a < 3 * 3600 then return string.format("%.3g min", round3g(t / 60)) end
  if a < 3 * 86400 then return string.format("%.3g h", round3g(t / 3600)) end
  return string.format("%.3g days", round3g(t / 86400))
end
doc.doc(M.seconds, "dlb.pretty.seconds(t) -> string", "a duration with its unit: \"91.2 ms\", \"5 µs\", \"3.1 h\"")

-- Values a function has already printed (g:summary, dlb.hw.list): the REPL does not echo
-- them again. Only the most recent one is kept, and the REPL forgets it before each chunk
-- (M.forget), so `x = g:summary{}` then `x` prints x.
local shown = nil
function M.shown(v)
  shown = { v }
  return v
end
function M.forget() shown = nil end

-- The fields of x, also when x prints as a one-line summary (an object with __tostring:
-- stats, roofline results, plans): the "full table one call away".
function M.full(x, opts)
  local o = options(opts)
  if type(x) ~= "table" then return render(x, 0, o, {}) end
  return tablestr(x, 0, o, {})
end

-- Give table t a one-line __tostring (its summary with units) and return t. The fields
-- stay as they are (pairs, indexing); dlb.pretty.full(t) shows them all. A metatable t
-- already has keeps its other fields.
function M.object(t, tostr)
  -- a string's or userdata's metatable is shared by every value of its kind: never touch it
  if type(t) ~= "table" then
    error("dlb.pretty.object: expected a table, got " .. type(t), 2)
  end
  if type(tostr) ~= "function" then
    error("dlb.pretty.object: expected a function (t -> string), got " .. type(tostr), 2)
  end
  local mt = getmetatable(t)
  if mt == nil then mt = {}; setmetatable(t, mt) end
  mt.__tostring = tostr
  return t
end

-- Format values as the REPL shows them: strings as they are, the rest through format,
-- separated by tabs (as print does). nil when the one value is what a function has just
-- printed itself (M.shown).
function M.values(...)
  local n = select("#", ...)
  if shown ~= nil and n == 1 and rawequal((...), shown[1]) then
    shown = nil
    return nil
  end
  local out = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    out[i] = type(v) == "string" and v or M.format(v)
  end
  return table.concat(out, "\t")
end
doc.doc(M.values, "dlb.pretty.values(...) -> string",
  "the values as the REPL prints them: strings raw, others formatted, tab-separated")

doc.doc(M.shown, "dlb.pretty.shown(v) -> v",
  "mark v as already printed (by the function returning it): the REPL does not echo it")
doc.doc(M.forget, "dlb.pretty.forget()", "forget the value marked by shown (the REPL calls it before each chunk)")
doc.doc(M.full, "dlb.pretty.full(x [, opts]) -> string",
  "every field of x, also when x prints as a one-line summary (stats, roofline results, plans); opts as format")
doc.doc(M.object, "dlb.pretty.object(t, tostring_fn) -> t",
  "give t a one-line __tostring (kept fields; dlb.pretty.full(t) shows them)")

setmetatable(M, { __call = function(_, x, opts) return M.format(x, opts) end })
doc.doc(M, "dlb.pretty(x [, opts]) -> string",
  "format a value for reading (tables nested and sorted, depth/width limits, cycles "
  .. "marked, objects through __tostring); see dlb.pretty.format for opts")
return M
