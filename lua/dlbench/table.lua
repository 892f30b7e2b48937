-- dlbench.table — result tables: named columns over rows of plain values (numbers,
-- strings, booleans; nil where a row has no value). What dlb.sweep returns, what
-- dlb.read_csv reads, what dlb.stats.regress and the plots consume.
--   local t = dlb.table{ {nodes=32, util=0.1}, {nodes=64, util=0.2} }
--   t:count()  t:columns()  t:column("util")  t:row(1)  t:where{nodes=64}
--   t:sort("-util")  t:group_by("batch", {util="mean"})  t:pivot("nodes", "batch", "util")
--   t:to_csv("out/fc.csv")  dlb.read_csv("out/fc.csv")  t:to_json()
local core = require "dlbench.backend"
local options = require "dlbench.options"
local doc = require "dlbench.doc"

local M = {}
local T = {}          -- methods
T.__index = T

local unpack = table.unpack or unpack
local NaN = require("dlbench.table_io").NaN -- prints "nan" on both backends
local floor = math.floor

local function isT(x) return getmetatable(x) == T end

-- Usage errors point at the caller's line: the first Lua frame outside the library
-- (dlbench.errors.where: lua/dlbench/ and modules registered with M.internal), however deep inside the
-- module the check sits and whether the caller is a script, a REPL line or a user
-- callback run by where/with/sort. (error(msg, 2) would name a line of table.lua when
-- the check is two calls down.) Errors about a file's contents carry no position: they
-- name the file, line and column instead.
local errors = require "dlbench.errors"
function M.internal(source) errors.register(source) end
local fail = errors.fail

-- Column order of a row with no known order: its keys sorted.
local function sortedkeys(r)
  local ks = {}
  for k in pairs(r) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
  return ks
end

local function checkvalue(k, v, where)
  local tv = type(v)
  if type(k) ~= "string" then
    fail(string.format("%s: column names must be strings, got a %s", where, type(k)))
  end
  if tv ~= "number" and tv ~= "string" and tv ~= "boolean" then
    fail(string.format("%s: column '%s' holds a %s (a table holds numbers, strings and "
      .. "booleans)", where, k, tv))
  end
end

-- A table over rows (an array of {column = value}); columns gives the order (default:
-- order of first appearance, each row's new keys sorted). Rows are copied.
function M.new(rows, columns)
  rows = rows or {}
  if type(rows) ~= "table" then fail("dlb.table.new: rows must be an array of tables") end
  local t = setmetatable({ _cols = {}, _has = {}, _rows = {} }, T)
  if columns then
    for _, c in ipairs(columns) do
      if type(c) ~= "string" then fail("dlb.table.new: column names must be strings") end
      if not t._has[c] then t._has[c] = true; t._cols[#t._cols + 1] = c end
    end
  end
  for i, r in ipairs(rows) do
    if type(r) ~= "table" then fail(string.format("dlb.table.new: row %d is a %s, not a table", i, type(r))) end
    t:append(r)
  end
  return t
end

-- A table that takes `rows` as they are, without copying or checking them: for readers
-- that build fresh rows of numbers, strings and booleans whose keys are all in `columns`
-- (dlb.trace.read). The rows belong to the table afterwards.
function M.adopt(rows, columns)
  local t = setmetatable({ _cols = {}, _has = {}, _rows = rows }, T)
  for _, c in ipairs(columns) do
    if not t._has[c] then t._has[c] = true; t._cols[#t._cols + 1] = c end
  end
  return t
end

-- A table from columns: {name = array, ...} (all the same length); order optional.
function M.from_columns(cols, order)
  if type(cols) ~= "table" then fail("dlb.table.from_columns: table of arrays expected") end
  order = order or sortedkeys(cols)
  local n
  for _, c in ipairs(order) do
    local a = cols[c]
    if type(a) ~= "table" then fail("dlb.table.from_columns: column '" .. tostring(c) .. "' is not an array") end
    if n and #a ~= n then
      fail(string.format("dlb.table.from_columns: column '%s' has %d values, others %d", c, #a, n))
    end
    n = #a
  end
  local rows = {}
  for i = 1, n or 0 do
    local r = {}
    for _, c in ipairs(order) do r[c] = cols[c][i] end
    rows[i] = r
  end
  return M.new(rows, order)
end

-- Append a row (copied) in place; new columns join the end. Returns t.
function T:append(r)
  local row = {}
  local new
  for k, v in pairs(r) do
    checkvalue(k, v, "table:append")
    row[k] = v
    if not self._has[k] then new = new or {}; new[#new + 1] = k end
  end
  if new then
    table.sort(new)
    for _, k in ipairs(new) do self._has[k] = true; self._cols[#self._cols + 1] = k end
  end
  self._rows[#self._rows + 1] = row
  return self
end

function T:count() return #self._rows end

function T:columns()
  local c = {}
  for i, v in ipairs(self._cols) do c[i] = v end
  return c
end

function T:has(name) return self._has[name] == true end

local function checkcol(t, name, who)
  if not t._has[name] then
    fail(string.format("%s: no column '%s' (columns: %s)", who, tostring(name),
      table.concat(t._cols, ", ")))
  end
end

-- The values of a column in row order; missing values are nil, or default when given.
function T:column(name, default)
  checkcol(self, name, "table:column")
  local out = {}
  for i, r in ipairs(self._rows) do
    local v = r[name]
    if v == nil then v = default end
    out[i] = v
  end
  return out
end

-- A copy of row i.
function T:row(i)
  local r = self._rows[i]
  if r == nil then
    fail(string.format("table:row: row %s out of range (1..%d)", tostring(i), #self._rows))
  end
  local c = {}
  for k, v in pairs(r) do c[k] = v end
  return c
end

-- for i, row in t:rows() do ... end   (rows are the table's own: do not modify)
function T:rows()
  local i, rows = 0, self._rows
  return function()
    i = i + 1
    if rows[i] then return i, rows[i] end
  end
end

local function derive(t, rows, cols)
  local n = setmetatable({ _cols = {}, _has = {}, _rows = rows }, T)
  for _, c in ipairs(cols or t._cols) do n._has[c] = true; n._cols[#n._cols + 1] = c end
  return n
end

-- Rows for which pred(row) is true, or which match {column = value | function(v)}.
function T:where(pred)
  local f = pred
  if type(pred) == "table" then
    for k in pairs(pred) do checkcol(self, k, "table:where") end
    f = function(r)
      for k, want in pairs(pred) do
        local v = r[k]
        if type(want) == "function" then
          if not want(v) then return false end
        elseif v ~= want then return false end
      end
      return true
    end
  elseif type(pred) ~= "function" then
    fail("table:where: a function(row) or a table {column = value} expected")
  end
  local out = {}
  for _, r in ipairs(self._rows) do if f(r) then out[#out + 1] = r end end
  return derive(self, out)
end

-- Only the named columns, in that order: t:select{"a", "b"} or t:select("a", "b").
-- The first key of t (by name) that is not in its list part 1..#t, or nil: a list given
-- with named fields ({"time", by = "x"}); sorted, so both backends name the same one.
local function first_named(t)
  local named = {}
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or k > #t or k ~= math.floor(k) then named[#named + 1] = tostring(k) end
  end
  table.sort(named)
  return named[1]
end

-- The column names of t:select(a, ...) (names, or one list of them): a non-empty list,
-- checked; shared by the columnar table's select. t:select{} and t:select{by = "x"} made a
-- table of no columns, silently.
function M.select_names(a, ...)
  local names = type(a) == "table" and a or { a, ... }
  local bad = first_named(names)
  if bad then fail("table:select: column names expected, got a table with the field '" .. bad .. "'") end
  if names[1] == nil then fail("table:select: at least one column name expected") end
  return names
end
doc.doc(M.select_names, "dlb.table.select_names(name, ... | {names}) -> {names}",
  "the column list of t:select, checked (a non-empty list of names)")

-- n of t:head(n): nil -> 10; a whole number >= 0 (math.huge: every row), else an error (NaN
-- gave no rows under Lua 5.4 and every row under LuaJIT; -1 and 1.5 were taken). Shared by
-- the columnar table's head.
function M.head_count(n)
  if n == nil then return 10 end
  if type(n) ~= "number" or not (n >= 0) or n ~= math.floor(n) then
    fail("table:head: n must be a whole number >= 0, got " .. tostring(n))
  end
  return n
end
doc.doc(M.head_count, "dlb.table.head_count(n) -> n", "the row count of t:head, checked (nil: 10)")

function T:select(a, ...)
  local names = M.select_names(a, ...)
  for _, c in ipairs(names) do checkcol(self, c, "table:select") end
  local out = {}
  for i, r in ipairs(self._rows) do
    local s = {}
    for _, c in ipairs(names) do s[c] = r[c] end
    out[i] = s
  end
  return derive(self, out, names)
end

-- Add (or replace) a column computed by f(row, i), or from an array of exactly one value
-- per row (an array's length is its n field when it has one, as table.pack's, so trailing
-- missing values can be given; otherwise its highest index). Returns a new table.
function T:with(name, f)
  if type(name) ~= "string" then fail("table:with: column name expected, got a " .. type(name)) end
  local nrows = #self._rows
  if type(f) == "table" then
    local len = 0
    for k in pairs(f) do
      if type(k) == "number" and k >= 1 and k < 2 ^ 53 and k == floor(k) and k > len then len = k end
    end
    if f.n ~= nil then
      if type(f.n) ~= "number" or f.n ~= nrows or len > nrows then
        fail(string.format("table:with: array for '%s' has n = %s (and values up to index %d) "
          .. "for a table of %d rows: give one value per row", name, tostring(f.n), len, nrows))
      end
    elseif len ~= nrows then
      fail(string.format("table:with: array for '%s' has %d values for a table of %d rows: "
        .. "give one value per row (missing values at the end: set n = %d, or pass a "
        .. "function(row, i))", name, len, nrows, nrows))
    end
  elseif type(f) ~= "function" then
    fail("table:with: a function(row, i) or an array expected, got a " .. type(f))
  end
  local out = {}
  for i, r in ipairs(self._rows) do
    local c = {}
    for k, v in pairs(r) do c[k] = v end
    local v
    if type(f) == "function" then v = f(r, i) else v = f[i] end
    if v ~= nil then checkvalue(name, v, "table:with") end
    c[name] = v
    out[i] = c
  end
  local cols = {}
  for _, c in ipairs(self._cols) do cols[#cols + 1] = c end
  if not self._has[name] then cols[#cols + 1] = name end
  return derive(self, out, cols)
end

-- Order of mixed values: numbers, then strings, then booleans; nil last.
local rank = { number = 1, string = 2, boolean = 3 }
local function less(a, b)
  if a == nil then return false end
  if b == nil then return true end
  local ta, tb = type(a), type(b)
  if ta ~= tb then return rank[ta] < rank[tb] end
  if ta == "boolean" then return (not a) and b end
  if ta == "number" and a ~= a then return false end   -- NaN last among numbers
  if ta == "number" and b ~= b then return true end
  return a < b
end
M.less = less

-- The column keys of a sort spec ("util", "-util" or a non-empty list of them) as
-- {{name, descending}, ...}, the column names not yet checked; shared by t:sort and the
-- columnar table's. Anything else is an error: t:sort{by = "time"} (a table without a list
-- part) and t:sort() sorted by nothing and returned the rows as they were.
function M.sort_keys(spec)
  local keys = type(spec) == "table" and spec or { spec }
  local bad = first_named(keys)
  if bad or keys[1] == nil then
    fail("table:sort: a column name (\"-name\": descending), a list of them or a function(a, b) "
      .. "expected, got " .. (bad and ("a table with the field '" .. bad .. "'")
      or (type(spec) == "table" and "an empty list" or type(spec))))
  end
  local ks = {}
  for n, k in ipairs(keys) do
    if type(k) ~= "string" then fail("table:sort: column names expected") end
    local desc = k:sub(1, 1) == "-"
    ks[n] = { desc and k:sub(2) or k, desc }
  end
  return ks
end

doc.doc(M.sort_keys, "dlb.table.sort_keys(spec) -> {{name, descending}, ...}",
  "the column keys of a t:sort spec (\"col\", \"-col\" or a non-empty list of them), checked")

-- Sorted copy (stable): t:sort("util"), t:sort("-util") (descending), t:sort{"batch",
-- "-util"}, or t:sort(function(a, b) ... end).
function T:sort(spec)
  local idx = {}
  for i = 1, #self._rows do idx[i] = i end
  local rows = self._rows
  local cmp
  if type(spec) == "function" then
    cmp = function(i, j)
      if spec(rows[i], rows[j]) then return true end
      if spec(rows[j], rows[i]) then return false end
      return i < j
    end
  else
    local ks = M.sort_keys(spec)
    for _, k in ipairs(ks) do checkcol(self, k[1], "table:sort") end
    cmp = function(i, j)
      local a, b = rows[i], rows[j]
      for _, k in ipairs(ks) do
        local x, y = a[k[1]], b[k[1]]
        if k[2] and x ~= nil and y ~= nil then x, y = y, x end
        if less(x, y) then return true end
        if less(y, x) then return false end
      end
      return i < j
    end
  end
  table.sort(idx, cmp)
  local out = {}
  for n, i in ipairs(idx) do out[n] = rows[i] end
  return derive(self, out)
end

-- First n rows (default 10).
function T:head(n)
  n = M.head_count(n)
  local out = {}
  for i = 1, math.min(n, #self._rows) do out[i] = self._rows[i] end
  return derive(self, out)
end

-- Sorted distinct non-nil values of a column.
function T:unique(name)
  checkcol(self, name, "table:unique")
  local seen, out = {}, {}
  for _, r in ipairs(self._rows) do
    local v = r[name]
    if v ~= nil then
      local k = type(v) .. ":" .. tostring(v)
      if type(v) == "number" then k = "number:" .. string.format("%.17g", v) end
      if not seen[k] then seen[k] = true; out[#out + 1] = v end
    end
  end
  table.sort(out, less)
  return out
end

-- Failed sweep rows (those with an _error) and the others.
function T:failures()
  return self:where(function(r) return r._error ~= nil end)
end
function T:ok()
  local t = self:where(function(r) return r._error == nil end)
  return t
end

-- Aggregates over the non-nil values of a list.
local stats -- loaded lazily (dlbench.stats needs this module)
local function nums(vals, fname)
  for i, v in ipairs(vals) do
    if type(v) ~= "number" then
      fail(string.format("%s needs numbers, value %d is a %s", fname, i, type(v)))
    end
  end
  return vals
end
local aggregates = {
  count = function(v) return #v end,
  sum = function(v) local s = 0; for _, x in ipairs(nums(v, "sum")) do s = s + x end; return s end,
  min = function(v) local m; for _, x in ipairs(v) do if m == nil or less(x, m) then m = x end end; return m end,
  max = function(v) local m; for _, x in ipairs(v) do if m == nil or less(m, x) then m = x end end; return m end,
  mean = function(v) if #v == 0 then return nil end; return stats.mean(nums(v, "mean")) end,
  median = function(v) if #v == 0 then return nil end; return stats.median(nums(v, "median")) end,
  gmean = function(v) if #v == 0 then return nil end; return stats.gmean(nums(v, "gmean")) end,
  hmean = function(v) if #v == 0 then return nil end; return stats.hmean(nums(v, "hmean")) end,
  sd = function(v) if #v < 2 then return nil end; return stats.sd(nums(v, "sd")) end,
  percentile = function(v, p) if #v == 0 then return nil end; return stats.percentile(nums(v, "percentile"), p) end,
  first = function(v) return v[1] end,
  last = function(v) return v[#v] end,
}
local aggnames = {}
for k in pairs(aggregates) do aggnames[#aggnames + 1] = k end
table.sort(aggnames)
M.aggregates = aggnames

local function keystr(v)
  if type(v) == "number" then return "n" .. string.format("%.17g", v) end
  return type(v):sub(1, 1) .. tostring(v)
end
M.keystr = keystr

-- Parse an aggregate spec: "mean" (of the output's own column), {"mean", "util"},
-- {"percentile", "util", 91}, "count".
local aggforms = 'an aggregate name ("mean": of the column of that name) or {name, column} '
  .. '({"mean", "util"}; {"percentile", "util", 91})'
local function describe(v)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) ~= "table" then return tostring(v) .. " (a " .. type(v) .. ")" end
  local parts = {}
  for i = 1, math.min(#v, 4) do
    local x = v[i]
    parts[i] = type(x) == "table" and "{...}" or type(x) == "string" and string.format("%q", x)
      or tostring(x)
  end
  return "{" .. table.concat(parts, ", ") .. (#v > 4 and ", ..." or "") .. "}"
end
local function aggspec(t, out, spec, who)
  local fname, col, p
  if type(spec) == "string" then fname, col = spec, out
  elseif type(spec) == "table" then fname, col, p = spec[1], spec[2], spec[3]
  else
    fail(string.format("%s: aggregate for '%s' is %s; give %s", who, tostring(out),
      describe(spec), aggforms))
  end
  if type(fname) ~= "string" then
    fail(string.format("%s: aggregate for '%s' is %s, whose first element is not an "
      .. "aggregate name; give %s", who, tostring(out), describe(spec), aggforms))
  end
  if not aggregates[fname] then
    fail(string.format("%s: unknown aggregate '%s' for '%s' (one of %s)", who, fname,
      tostring(out), table.concat(aggnames, ", ")))
  end
  if type(spec) == "table" and col ~= nil and type(col) ~= "string" then
    fail(string.format("%s: aggregate for '%s' is %s: its second element must be a column "
      .. "name", who, tostring(out), describe(spec)))
  end
  if fname == "count" and (col == out and not t._has[col]) then col = nil end
  if col ~= nil then checkcol(t, col, who) end
  if fname == "percentile" and type(p) ~= "number" then
    fail(who .. ": percentile needs p: {\"percentile\", column, p}")
  end
  return fname, col, p
end

-- Groups by the key column(s), sorted by key, with aggregates: t:group_by("batch",
-- {util="mean", n="count", p91={"percentile", "util", 91}}). Output columns: keys, then
-- the aggregates sorted by name.
function T:group_by(keys, aggs)
  local rows = self._rows
  return derive(self, M.group_columns(self, keys, aggs, #rows, function(c)
    local a = {}
    for i, r in ipairs(rows) do a[i] = r[c] end
    return a
  end))
end

-- The groups of t:group_by over n rows whose columns col(name) gives as arrays (a row table
-- or the columnar rows of dlbench.coltable, which holds no Lua table per row); t answers
-- _has and _cols for the checks. Returns the output rows and their columns.
function M.group_columns(t, keys, aggs, n, col)
  if type(keys) == "string" then keys = { keys } end
  if type(keys) ~= "table" or #keys == 0 then fail("table:group_by: key column(s) expected") end
  for _, k in ipairs(keys) do checkcol(t, k, "table:group_by") end
  aggs = aggs or { count = "count" }
  if type(aggs) ~= "table" then
    fail("table:group_by: aggregates must be a table {output = spec}, got a " .. type(aggs))
  end
  for nm in pairs(aggs) do
    if type(nm) ~= "string" then
      fail(string.format("table:group_by: aggregates must be named: {output = spec}, e.g. "
        .. "{util = \"mean\", p91 = {\"percentile\", \"util\", 91}}; got a %s key %s",
        type(nm), tostring(nm)))
    end
  end
  stats = stats or require "dlbench.stats"
  local names = sortedkeys(aggs)
  local specs = {}
  for _, nm in ipairs(names) do
    for _, k in ipairs(keys) do
      if nm == k then fail("table:group_by: aggregate '" .. nm .. "' has the name of a key") end
    end
    local f, c, p = aggspec(t, nm, aggs[nm], "table:group_by")
    specs[#specs + 1] = { nm, f, c, p }
  end
  local kcols = {}
  for i, k in ipairs(keys) do kcols[i] = col(k) end
  local groups, order = {}, {}
  for r = 1, n do
    local parts = {}
    for i = 1, #keys do parts[i] = keystr(kcols[i][r]) end
    local ks = table.concat(parts, "\0")
    local g = groups[ks]
    if not g then
      local key = {}
      for i, k in ipairs(keys) do key[k] = kcols[i][r] end
      g = { key = key, rows = {} }; groups[ks] = g; order[#order + 1] = g
    end
    g.rows[#g.rows + 1] = r
  end
  table.sort(order, function(a, b)
    for _, k in ipairs(keys) do
      local x, y = a.key[k], b.key[k]
      if less(x, y) then return true end
      if less(y, x) then return false end
    end
    return false
  end)
  local vcols = {}
  for _, sp in ipairs(specs) do if sp[3] ~= nil and not vcols[sp[3]] then vcols[sp[3]] = col(sp[3]) end end
  local out = {}
  for i, g in ipairs(order) do
    local row = {}
    for _, k in ipairs(keys) do row[k] = g.key[k] end
    for _, sp in ipairs(specs) do
      local vals = {}
      if sp[3] == nil then
        for m = 1, #g.rows do vals[m] = true end
      else
        local a = vcols[sp[3]]
        for _, r in ipairs(g.rows) do
          local v = a[r]
          if v ~= nil then vals[#vals + 1] = v end
        end
      end
      local ok, v = pcall(aggregates[sp[2]], vals, sp[4])
      if not ok then -- dlb.stats names its caller, a line of this file: drop that
        fail("table:group_by: '" .. sp[1] .. "': " .. errors.strip(v))
      end
      row[sp[1]] = v
    end
    out[i] = row
  end
  local cols = {}
  for _, k in ipairs(keys) do cols[#cols + 1] = k end
  for _, nm in ipairs(names) do cols[#cols + 1] = nm end
  return out, cols
end
doc.doc(M.group_columns, "dlb.table.group_columns(t, keys, aggs, n, col) -> rows, columns",
  "t:group_by over n rows given by column (col(name) -> array): the grouping of row tables and "
  .. "of the columnar rows dlb.sweep.model keeps")

-- A heat-map grid: xs and ys (sorted distinct values of columns x and y) and z with
-- z[j][i] the value at (xs[i], ys[j]) — the layout of plot:heatmap. Cells without a row
-- are NaN; several rows in a cell need an aggregate ("mean", "max", ...).
function T:pivot(x, y, value, agg)
  checkcol(self, x, "table:pivot"); checkcol(self, y, "table:pivot")
  checkcol(self, value, "table:pivot")
  stats = stats or require "dlbench.stats"
  if agg ~= nil and not aggregates[agg] then
    fail(string.format("table:pivot: unknown aggregate '%s' (one of %s)", tostring(agg),
      table.concat(aggnames, ", ")))
  end
  local xs, ys = self:unique(x), self:unique(y)
  local xi, yi = {}, {}
  for i, v in ipairs(xs) do xi[keystr(v)] = i end
  for j, v in ipairs(ys) do yi[keystr(v)] = j end
  local cells = {}
  for _, r in ipairs(self._rows) do
    local vx, vy, v = r[x], r[y], r[value]
    if type(v) == "boolean" then v = v and 1 or 0 end -- masks: true 1, false 0
    if vx ~= nil and vy ~= nil and v ~= nil then
      local i, j = xi[keystr(vx)], yi[keystr(vy)]
      local key = j * (#xs + 1) + i
      local c = cells[key]
      if c == nil then cells[key] = { v }
      elseif agg == nil then
        fail(string.format("table:pivot: several rows at %s=%s, %s=%s; pass an aggregate, "
          .. "e.g. t:pivot(%q, %q, %q, \"mean\")", x, tostring(vx), y, tostring(vy), x, y, value))
      else c[#c + 1] = v end
    end
  end
  local z = {}
  for j = 1, #ys do
    local rowz = {}
    for i = 1, #xs do
      local c = cells[j * (#xs + 1) + i]
      local v = NaN
      if c then
        if agg then
          local ok, r = pcall(aggregates[agg], c)
          if not ok then
            fail(string.format("table:pivot: %s at %s=%s, %s=%s: %s", agg, x, tostring(xs[i]), y,
              tostring(ys[j]), errors.strip(r)))
          end
          v = r
        else v = c[1] end
        if type(v) ~= "number" then
          fail(string.format("table:pivot: '%s' at %s=%s, %s=%s is a %s, not a number", value,
            x, tostring(xs[i]), y, tostring(ys[j]), type(v)))
        end
      end
      rowz[i] = v
    end
    z[j] = rowz
  end
  return xs, ys, z
end

-- Rows of several tables one after the other. Columns: the first table's, in its order;
-- a column that first appears in a later table goes right before the first column that
-- follows it in that table and is already there, or at the end when none is (so new
-- columns keep their order of appearance). Shards of one sweep, where a shard lacks some
-- result columns (a,b,v and a,b,extra,v), thus merge to the unsharded order (a,b,extra,v).
-- Rows are shared, not copied.
function M.concat(...)
  local ts, count = { ... }, select("#", ...)
  if count == 1 and not isT(ts[1]) and type(ts[1]) == "table" then ts = ts[1]; count = #ts end
  local out = M.new()
  local cols, has = out._cols, out._has
  for n = 1, count do
    local t = ts[n]
    if not isT(t) then
      fail(string.format("dlb.table.concat: argument %d is a %s, not a dlb.table", n, type(t)))
    end
    local tc = t._cols
    for idx, c in ipairs(tc) do
      if not has[c] then
        local at = #cols + 1
        for k = idx + 1, #tc do
          if has[tc[k]] then
            for m = 1, #cols do if cols[m] == tc[k] then at = m break end end
            break
          end
        end
        table.insert(cols, at, c)
        has[c] = true
      end
    end
    for _, r in ipairs(t._rows) do out._rows[#out._rows + 1] = r end
  end
  return out
end
function T:concat(...) return M.concat(self, ...) end

-- Join with other on key column(s): each row of self with each matching row of other.
-- opts.how = "inner" (default) or "left" (keep rows without a match); other's non-key
-- columns that self has too get opts.suffix (default "_2").
function T:join(other, keys, opts)
  if not isT(other) then fail("table:join: a table expected") end
  if type(keys) == "string" then keys = { keys } end
  if type(keys) ~= "table" or #keys == 0 then fail("table:join: key column(s) expected") end
  opts = opts or {}
  local bad = options.unknown(opts, { how = true, suffix = true }, "table:join")
  if bad then fail(bad) end
  local how, suffix = opts.how or "inner", opts.suffix or "_2"
  if how ~= "inner" and how ~= "left" then fail("table:join: how must be 'inner' or 'left'") end
  for _, k in ipairs(keys) do checkcol(self, k, "table:join"); checkcol(other, k, "table:join (other)") end
  local iskey = {}
  for _, k in ipairs(keys) do iskey[k] = true end
  local rename, cols = {}, {}
  for _, c in ipairs(self._cols) do cols[#cols + 1] = c end
  for _, c in ipairs(other._cols) do
    if not iskey[c] then
      local nm = self._has[c] and (c .. suffix) or c
      rename[c] = nm
      cols[#cols + 1] = nm
    end
  end
  local function key(r)
    local parts = {}
    for i, k in ipairs(keys) do
      if r[k] == nil then return nil end
      parts[i] = keystr(r[k])
    end
    return table.concat(parts, "\0")
  end
  local index = {}
  for _, r in ipairs(other._rows) do
    local k = key(r)
    if k then index[k] = index[k] or {}; local l = index[k]; l[#l + 1] = r end
  end
  local out = {}
  for _, r in ipairs(self._rows) do
    local k = key(r)
    local matches = k and index[k]
    if matches then
      for _, o in ipairs(matches) do
        local c = {}
        for a, v in pairs(r) do c[a] = v end
        for a, v in pairs(o) do if not iskey[a] then c[rename[a]] = v end end
        out[#out + 1] = c
      end
    elseif how == "left" then
      local c = {}
      for a, v in pairs(r) do c[a] = v end
      out[#out + 1] = c
    end
  end
  return derive(self, out, cols)
end

-- ---------------------------------------------------------------- files: CSV and JSON

do
  local io_ = require "dlbench.table_io"
  for k, f in pairs(io_) do if k ~= "methods" then M[k] = f end end
  for k, f in pairs(io_.methods) do T[k] = f end
end

-- a table as aligned text (t:format, what the REPL prints): dlbench.table_text
do
  local tx = require "dlbench.table_text"
  M.ulen, M.termwidth = tx.ulen, tx.termwidth
  for k, f in pairs(tx.methods) do T[k] = f end
end

-- t:pareto / t:top: the rows the sweep's streaming reductions keep (graphs/sweep/
-- sweep_reduce.c: the ONE Pareto and top-k rule, fed through dlb_reduce_push; no Lua copy).
-- Only the columns the spec names go to C (as numbers: an objective's nil is NaN, which the
-- C rule skips; a where column's true/number != 0 keeps a row, false/nil/0 drops it), each
-- row with its index (row - 1), so ties keep the earlier row as in the sweep; the result is
-- the list of row numbers in the C rule's order (a front by its first objective then row,
-- a top list by rank). spec keys: the sweep's (docs/sweep.md "Result tables").
local RED_SPEC = { pareto = { minimize = true, maximize = true, where = true },
  top = { k = true, by = true, where = true } }
M.reduce_spec_keys = RED_SPEC
local _, RED = require("dlbench.desc").enum("DLB_RED_")
function M.reduce_rows(kind, spec, cols, colvalues, n, who)
  -- options.check's messages, raised at the caller's line (errors.fail)
  if spec == nil then spec = {} end
  if type(spec) ~= "table" then fail(string.format("%s: options must be a table, got %s", who, type(spec))) end
  local bad = options.unknown(spec, RED_SPEC[kind], who)
  if bad then fail(bad) end
  local has = {}
  for _, c in ipairs(cols) do has[c] = true end
  local used, pos = {}, {}
  local function col(name, what)
    if type(name) ~= "string" or not has[name] then
      fail(string.format("%s: %s: no column '%s' (columns: %s)", who, what, tostring(name),
        table.concat(cols, ", ")))
    end
    if not pos[name] then used[#used + 1] = name; pos[name] = #used - 1 end
    return pos[name]
  end
  local function list(x) if type(x) == "table" then return x end return { x } end
  local where = spec.where ~= nil and col(spec.where, "where") or -1
  local call, call_cols
  if kind == "pareto" then
    local cs, mx = {}, {}
    for _, c in ipairs(list(spec.minimize or {})) do cs[#cs + 1] = col(c, "minimize"); mx[#mx + 1] = 0 end
    for _, c in ipairs(list(spec.maximize or {})) do cs[#cs + 1] = col(c, "maximize"); mx[#mx + 1] = 1 end
    if #cs == 0 then fail(who .. ": minimize= or maximize= columns needed") end
    call = function(red) return core._reduce_pareto(red, cs, mx, where) end
    call_cols = cs
  else
    local by = spec.by == nil and "time" or spec.by
    if type(by) ~= "string" then fail(who .. ": by must be a column name (\"-name\": largest first), got " .. tostring(by)) end
    local maximize = by:sub(1, 1) == "-"
    if maximize then by = by:sub(2) end
    local k = spec.k == nil and 10 or spec.k   -- checked by the binding and C (1..1000000)
    local c = col(by, "by")
    call = function(red) return core._reduce_top(red, k, c, maximize, where) end
  end
  local red = core.reduce_new(#used)
  local ok, id = pcall(call, red)
  -- the binding's or C's own check (top's k: a whole number 1..1000000; pareto's objective
  -- count), named as the option
  if not ok then
    fail(who .. (kind == "top" and ": k = " .. tostring(spec.k)
      or ": minimize= and maximize= name " .. #call_cols .. " columns") .. ": " .. errors.argtext(id))
  end
  -- the used columns' values as numbers, checked; then row-major chunks to C
  local vals = {}
  for j, name in ipairs(used) do
    local a, isw = colvalues(name), pos[name] == where
    local v = {}
    for i = 1, n do
      local x = a[i]
      local tx = type(x)
      if tx == "number" then v[i] = x
      elseif x == nil then v[i] = isw and 0 or NaN
      elseif isw and tx == "boolean" then v[i] = x and 1 or 0
      else
        fail(string.format("%s: column '%s' row %d holds %s %s (%s)", who, name, i,
          tx == "string" and "the string" or "a", tx == "string" and ("'" .. x .. "'") or tx,
          isw and "where takes numbers or booleans" or "objectives are numbers"))
      end
    end
    vals[j] = v
  end
  local nu, CH = #used, 65536
  for s = 1, n, CH do
    local e, buf, b = math.min(n, s + CH - 1), {}, 0
    for i = s, e do
      for j = 1, nu do buf[b + j] = vals[j][i] end
      b = b + nu
    end
    core._reduce_push(red, e - s + 1, buf, s - 1)
  end
  local size = core._reduce_size(red, RED[kind], id)
  local idx = size > 0 and core._reduce_column(red, RED[kind], id, -1, 0, size) or {}
  local out = {}
  for i = 1, size do out[i] = idx[i] + 1 end
  return out
end

local function reduced(t, kind, spec, who)
  local rows = M.reduce_rows(kind, spec, t._cols, function(c) return t:column(c) end, #t._rows, who)
  local out = {}
  for i, r in ipairs(rows) do out[i] = t._rows[r] end
  return derive(t, out)
end
function T:pareto(spec) return reduced(self, "pareto", spec, "t:pareto") end
function T:top(spec) return reduced(self, "top", spec, "t:top") end

T.__tostring = function(t) return t:format() end
T.__name = "dlbench.Table"

M.is_table = isT

setmetatable(M, { __call = function(_, rows, columns) return M.new(rows, columns) end })

doc.doc(M, "dlb.table", "result tables: dlb.table{rows} or dlb.table.new(rows[, columns]); "
  .. "count, columns, column, row, rows, where, select, with, sort, head, unique, group_by, "
  .. "pivot, concat, join, to_csv, to_json; dlb.read_csv(path)")
doc.doc(M.new, "dlb.table.new(rows[, columns]) -> table", "a table from an array of {column = value} rows")
doc.doc(M.adopt, "dlb.table.adopt(rows, columns) -> table", "a table owning rows as they are (no copy, no checks: every value a number, string or boolean, every key in columns)")
doc.doc(M.from_columns, "dlb.table.from_columns({name = array, ...}[, order]) -> table", "a table from equal-length columns")
doc.doc(M.concat, "dlb.table.concat(t1, t2, ...) -> table", "rows of several tables one after the other (merge sweep shards); columns: the first table's, each new one before the next column it precedes in its own table, else at the end")
doc.doc(M.read_csv, "dlb.read_csv(path[, {sep=, types=, header=}]) -> table", "read a CSV file (docs/csv.md); types inferred per column, a quoted field is text, an empty unquoted field nil, \"\" the empty string; errors name line and column")
doc.doc(M.parse_csv, "dlb.table.parse_csv(text[, opts[, name]]) -> table", "parse CSV text (as dlb.read_csv)")
doc.doc(M.write_atomic, "dlb.table.write_atomic(path, text) -> true | nil, msg", "write a file whole or not at all")
doc.doc(M.internal, "dlb.table.internal(source)", "count a module (its debug.getinfo source) as part of dlb.table, so usage errors name the caller's line, not that module's")
doc.doc(M.csvnumber, "dlb.table.csvnumber(text) -> number | nil", "the number a CSV field holds (decimal, nan, inf; 1e400 is inf; '-0' is -0.0), or nil")
doc.doc(M.ulen, "dlb.table.ulen(s) -> n", "length of a string in UTF-8 code points (for alignment)")
doc.doc(M.is_table, "dlb.table.is_table(x) -> boolean", "whether x is a dlb.table")
doc.doc(M.numtext, "dlb.table.numtext(x) -> string", "a number as the shortest text that reads back exactly")
doc.doc(M.csvfield, "dlb.table.csvfield(v, sep) -> string", "one CSV field, quoted when needed (RFC 4180)")
doc.doc(M.csvline, "dlb.table.csvline(row, columns[, sep]) -> string", "one CSV record ending in a newline")
doc.doc(M.less, "dlb.table.less(a, b) -> boolean", "the table order: numbers, strings, booleans; NaN and nil last")
doc.doc(M.keystr, "dlb.table.keystr(v) -> string", "a value as a grouping key (type-aware, numbers exact)")
doc.doc(T.append, "t:append(row) -> t", "append a row in place")
doc.doc(T.count, "t:count() -> n", "number of rows")
doc.doc(T.columns, "t:columns() -> {names}", "column names in order")
doc.doc(T.has, "t:has(name) -> boolean", "whether the table has that column")
doc.doc(T.column, "t:column(name[, default]) -> array", "a column's values in row order (missing: nil or default)")
doc.doc(T.row, "t:row(i) -> {column = value}", "a copy of row i")
doc.doc(T.rows, "for i, row in t:rows() do", "iterate the rows")
doc.doc(T.where, "t:where(function(row) | {column = value | function(v)}) -> table", "rows that match")
doc.doc(T.select, "t:select{columns} -> table", "only these columns, in this order")
doc.doc(T.with, "t:with(name, function(row, i) | array) -> table", "add or replace a column; an array needs one value per row (n = count for trailing nils)")
doc.doc(T.sort, "t:sort(\"col\" | \"-col\" | {cols} | function(a, b)) -> table", "stable sort; '-' for descending; nil last")
doc.doc(T.head, "t:head([n]) -> table", "the first n rows (default 10)")
doc.doc(T.unique, "t:unique(name) -> array", "sorted distinct values of a column")
doc.doc(M.reduce_rows, "dlb.table.reduce_rows(\"pareto\" | \"top\", spec, columns, column_of, n, who) -> {row numbers}",
  "the rows t:pareto / t:top keep (sweep_reduce.c's rule, fed the named columns of n rows; column_of(name) -> array), in the rule's order")
doc.doc(T.pareto, "t:pareto{minimize = {cols}, maximize = {cols}, where = col} -> table",
  "the Pareto front (sweep_reduce.c's rule, as dlb.sweep.model's pareto=): rows no other row matches or beats in every objective and beats in one; of equal rows the first; NaN/nil objectives skipped; ordered by the first objective")
doc.doc(T.top, "t:top{k = 10, by = \"time\" | \"-col\", where = col} -> table",
  "the k rows with the smallest by (\"-col\": largest; sweep_reduce.c's rule, as dlb.sweep.model's top=); ties: the first row; NaN/nil skipped; in rank order")
doc.doc(T.failures, "t:failures() -> table", "sweep rows that failed (with an _error message)")
doc.doc(T.ok, "t:ok() -> table", "sweep rows that did not fail")
doc.doc(T.group_by, "t:group_by(keys, {out = \"mean\" | {agg, column[, p]}}) -> table",
  "one row per key, sorted; aggregates count, sum, min, max, mean, median, gmean, hmean, sd, percentile, first, last")
doc.doc(T.pivot, "t:pivot(x, y, value[, agg]) -> xs, ys, z", "heat-map grid, z[j][i] at (xs[i], ys[j]); missing cells NaN; a boolean value column counts true as 1, false as 0 (masks)")
doc.doc(T.concat, "t:concat(t2, ...) -> table", "rows of this table then the others'")
doc.doc(T.join, "t:join(other, keys[, {how=\"inner\"|\"left\", suffix=\"_2\"}]) -> table", "join rows on equal key values")
doc.doc(T.to_csv, "t:to_csv(path[, {sep=}]) -> true | nil, msg", "write CSV (RFC 4180, exact numbers), whole or not at all")
doc.doc(T.to_json, "t:to_json([path]) -> text | true | nil, msg", "the rows as a JSON array of objects")
doc.doc(T.format, "t:format([max_rows[, width]]) -> string", "aligned text (what the REPL prints); wider than width (default: the terminal's, $COLUMNS, unlimited when not a terminal) elides middle columns and names them")
doc.doc(M.termwidth, "dlb.table.termwidth() -> columns", "the width tables print to: $COLUMNS, the terminal's, or math.huge")
-- t.count() (a dot for a colon) names the mistake instead of failing inside a method
require("dlbench.errors").guard_methods(T, "t:", isT)
doc.methods(M, T, "t")
return M
