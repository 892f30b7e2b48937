-- dlbench.table — result tables: named columns over rows of plain values (numbers,
-- strings, booleans; nil where a row has no value). What dlb.sweep returns, what
-- dlb.read_csv reads, what dlb.stats.regress and the plots consume.
--   local t = dlb.table{ {nodes=32, util=0.1}, {nodes=64, util=0.2} }
--   t:count()  t:columns()  t:column("util")  t:row(1)  t:where{nodes=64}
--   t:sort("-util")  t:group_by("batch", {util="mean"})  t:pivot("nodes", "batch", "util")
--   t:to_csv("out/fc.csv")  dlb.read_csv("out/fc.csv")  t:to_json()
local core = require "dlbench.backend"
local doc = require "dlbench.doc"

local M = {}
local T = {}          -- methods
T.__index = T

local unpack = table.unpack or unpack
local NaN = 0 / 0
local floor = math.floor

local function isT(x) return getmetatable(x) == T end

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
    error(string.format("%s: column names must be strings, got a %s", where, type(k)), 3)
  end
  if tv ~= "number" and tv ~= "string" and tv ~= "boolean" then
    error(string.format("%s: column '%s' holds a %s (a table holds numbers, strings and "
      .. "booleans)", where, k, tv), 3)
  end
end

-- A table over rows (an array of {column = value}); columns gives the order (default:
-- order of first appearance, each row's new keys sorted). Rows are copied.
function M.new(rows, columns)
  rows = rows or {}
  if type(rows) ~= "table" then error("dlb.table.new: rows must be an array of tables", 2) end
  local t = setmetatable({ _cols = {}, _has = {}, _rows = {} }, T)
  if columns then
    for _, c in ipairs(columns) do
      if type(c) ~= "string" then error("dlb.table.new: column names must be strings", 2) end
      if not t._has[c] then t._has[c] = true; t._cols[#t._cols + 1] = c end
    end
  end
  for i, r in ipairs(rows) do
    if type(r) ~= "table" then error(string.format("dlb.table.new: row %d is a %s, not a table", i, type(r)), 2) end
    t:append(r)
  end
  return t
end

-- A table from columns: {name = array, ...} (all the same length); order optional.
function M.from_columns(cols, order)
  if type(cols) ~= "table" then error("dlb.table.from_columns: table of arrays expected", 2) end
  order = order or sortedkeys(cols)
  local n
  for _, c in ipairs(order) do
    local a = cols[c]
    if type(a) ~= "table" then error("dlb.table.from_columns: column '" .. tostring(c) .. "' is not an array", 2) end
    if n and #a ~= n then
      error(string.format("dlb.table.from_columns: column '%s' has %d values, others %d", c, #a, n), 2)
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
    error(string.format("%s: no column '%s' (columns: %s)", who, tostring(name),
      table.concat(t._cols, ", ")), 3)
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
    error(string.format("table:row: row %s out of range (1..%d)", tostring(i), #self._rows), 2)
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
    error("table:where: a function(row) or a table {column = value} expected", 2)
  end
  local out = {}
  for _, r in ipairs(self._rows) do if f(r) then out[#out + 1] = r end end
  return derive(self, out)
end

-- Only the named columns, in that order: t:select{"a", "b"} or t:select("a", "b").
function T:select(a, ...)
  local names = type(a) == "table" and a or { a, ... }
  for _, c in ipairs(names) do checkcol(self, c, "table:select") end
  local out = {}
  for i, r in ipairs(self._rows) do
    local s = {}
    for _, c in ipairs(names) do s[c] = r[c] end
    out[i] = s
  end
  return derive(self, out, names)
end

-- Add (or replace) a column computed by f(row, i), or from an array. Returns a new table.
function T:with(name, f)
  if type(name) ~= "string" then error("table:with: column name expected", 2) end
  local out = {}
  for i, r in ipairs(self._rows) do
    local c = {}
    for k, v in pairs(r) do c[k] = v end
    local v
    if type(f) == "function" then v = f(r, i) elseif type(f) == "table" then v = f[i]
    else error("table:with: a function(row, i) or an array expected", 2) end
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
    local keys = type(spec) == "table" and spec or { spec }
    local ks = {}
    for n, k in ipairs(keys) do
      if type(k) ~= "string" then error("table:sort: column names expected", 2) end
      local desc = k:sub(1, 1) == "-"
      local name = desc and k:sub(2) or k
      checkcol(self, name, "table:sort")
      ks[n] = { name, desc }
    end
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
  n = n or 10
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
      error(string.format("%s needs numbers, value %d is a %s", fname, i, type(v)), 0)
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
local function aggspec(t, out, spec, who)
  local fname, col, p
  if type(spec) == "string" then fname, col = spec, out
  elseif type(spec) == "table" then fname, col, p = spec[1], spec[2], spec[3]
  else error(who .. ": aggregate for '" .. tostring(out) .. "' must be a name or {name, column[, p]}", 3) end
  if not aggregates[fname] then
    error(string.format("%s: unknown aggregate '%s' (one of %s)", who, tostring(fname),
      table.concat(aggnames, ", ")), 3)
  end
  if fname == "count" and (col == out and not t._has[col]) then col = nil end
  if col ~= nil then checkcol(t, col, who) end
  if fname == "percentile" and type(p) ~= "number" then
    error(who .. ": percentile needs p: {\"percentile\", column, p}", 3)
  end
  return fname, col, p
end

-- Groups by the key column(s), sorted by key, with aggregates: t:group_by("batch",
-- {util="mean", n="count", p91={"percentile", "util", 91}}). Output columns: keys, then
-- the aggregates sorted by name.
function T:group_by(keys, aggs)
  if type(keys) == "string" then keys = { keys } end
  if type(keys) ~= "table" or #keys == 0 then error("table:group_by: key column(s) expected", 2) end
  for _, k in ipairs(keys) do checkcol(self, k, "table:group_by") end
  aggs = aggs or { count = "count" }
  stats = stats or require "dlbench.stats"
  local names = sortedkeys(aggs)
  local specs = {}
  for _, nm in ipairs(names) do
    for _, k in ipairs(keys) do
      if nm == k then error("table:group_by: aggregate '" .. nm .. "' has the name of a key", 2) end
    end
    local f, c, p = aggspec(self, nm, aggs[nm], "table:group_by")
    specs[#specs + 1] = { nm, f, c, p }
  end
  local groups, order = {}, {}
  for _, r in ipairs(self._rows) do
    local parts = {}
    for i, k in ipairs(keys) do parts[i] = keystr(r[k]) end
    local ks = table.concat(parts, "\0")
    local g = groups[ks]
    if not g then g = { key = r, rows = {} }; groups[ks] = g; order[#order + 1] = g end
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
  local out = {}
  for i, g in ipairs(order) do
    local row = {}
    for _, k in ipairs(keys) do row[k] = g.key[k] end
    for _, s in ipairs(specs) do
      local vals = {}
      if s[3] == nil then
        for n = 1, #g.rows do vals[n] = true end
      else
        for _, r in ipairs(g.rows) do
          local v = r[s[3]]
          if v ~= nil then vals[#vals + 1] = v end
        end
      end
      local ok, v = pcall(aggregates[s[2]], vals, s[4])
      if not ok then error("table:group_by: '" .. s[1] .. "': " .. tostring(v), 2) end
      row[s[1]] = v
    end
    out[i] = row
  end
  local cols = {}
  for _, k in ipairs(keys) do cols[#cols + 1] = k end
  for _, nm in ipairs(names) do cols[#cols + 1] = nm end
  return derive(self, out, cols)
end

-- A heat-map grid: xs and ys (sorted distinct values of columns x and y) and z with
-- z[j][i] the value at (xs[i], ys[j]) — the layout of plot:heatmap. Cells without a row
-- are NaN; several rows in a cell need an aggregate ("mean", "max", ...).
function T:pivot(x, y, value, agg)
  checkcol(self, x, "table:pivot"); checkcol(self, y, "table:pivot")
  checkcol(self, value, "table:pivot")
  stats = stats or require "dlbench.stats"
  if agg ~= nil and not aggregates[agg] then
    error(string.format("table:pivot: unknown aggregate '%s' (one of %s)", tostring(agg),
      table.concat(aggnames, ", ")), 2)
  end
  local xs, ys = self:unique(x), self:unique(y)
  local xi, yi = {}, {}
  for i, v in ipairs(xs) do xi[keystr(v)] = i end
  for j, v in ipairs(ys) do yi[keystr(v)] = j end
  local cells = {}
  for _, r in ipairs(self._rows) do
    local vx, vy, v = r[x], r[y], r[value]
    if vx ~= nil and vy ~= nil and v ~= nil then
      local i, j = xi[keystr(vx)], yi[keystr(vy)]
      local key = j * (#xs + 1) + i
      local c = cells[key]
      if c == nil then cells[key] = { v }
      elseif agg == nil then
        error(string.format("table:pivot: several rows at %s=%s, %s=%s; pass an aggregate, "
          .. "e.g. t:pivot(%q, %q, %q, \"mean\")", x, tostring(vx), y, tostring(vy), x, y, value), 2)
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
        if agg then v = aggregates[agg](c) else v = c[1] end
        if type(v) ~= "number" then
          error(string.format("table:pivot: '%s' at %s=%s, %s=%s is a %s, not a number", value,
            x, tostring(xs[i]), y, tostring(ys[j]), type(v)), 2)
        end
      end
      rowz[i] = v
    end
    z[j] = rowz
  end
  return xs, ys, z
end

-- Rows of several tables one after the other; columns are the union, in order.
function M.concat(...)
  local ts = { ... }
  if #ts == 1 and not isT(ts[1]) and type(ts[1]) == "table" then ts = ts[1] end
  local out = M.new()
  for n, t in ipairs(ts) do
    if not isT(t) then error(string.format("dlb.table.concat: argument %d is not a table", n), 2) end
    for _, c in ipairs(t._cols) do
      if not out._has[c] then out._has[c] = true; out._cols[#out._cols + 1] = c end
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
  if not isT(other) then error("table:join: a table expected", 2) end
  if type(keys) == "string" then keys = { keys } end
  if type(keys) ~= "table" or #keys == 0 then error("table:join: key column(s) expected", 2) end
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= "how" and k ~= "suffix" then
      error("table:join: unknown option '" .. tostring(k) .. "' (how, suffix)", 2)
    end
  end
  local how, suffix = opts.how or "inner", opts.suffix or "_2"
  if how ~= "inner" and how ~= "left" then error("table:join: how must be 'inner' or 'left'", 2) end
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

-- Numbers as the shortest text that reads back exactly (%.15g, %.16g or %.17g).
local function numtext(v)
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  if math.type and math.type(v) == "integer" then return tostring(v) end
  for _, f in ipairs { "%.15g", "%.16g", "%.17g" } do
    local s = string.format(f, v)
    if tonumber(s) == v then return s end
  end
  return string.format("%.17g", v)
end
M.numtext = numtext

local function csvfield(v, sep)
  if v == nil then return "" end
  local tv = type(v)
  if tv == "number" then return numtext(v) end
  if tv == "boolean" then return v and "true" or "false" end
  v = tostring(v)
  if v == "" or v:find('[\r\n"]') or v:find(sep, 1, true) or v:find("^%s") or v:find("%s$") then
    return '"' .. v:gsub('"', '""') .. '"'
  end
  return v
end
M.csvfield = csvfield

-- One CSV record for the given columns (with its CRLF-free "\n" end).
function M.csvline(values, cols, sep)
  sep = sep or ","
  local f = {}
  for i, c in ipairs(cols) do f[i] = csvfield(values[c], sep) end
  return table.concat(f, sep) .. "\n"
end

local function csvtext(t, sep)
  local out = {}
  local hdr = {}
  for i, c in ipairs(t._cols) do hdr[i] = csvfield(c, sep) end
  out[1] = table.concat(hdr, sep) .. "\n"
  for i, r in ipairs(t._rows) do out[i + 1] = M.csvline(r, t._cols, sep) end
  return table.concat(out)
end

-- Write text to path whole or not at all (a temporary file beside it, then rename).
-- Returns true, or nil and a message.
function M.write_atomic(path, text)
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "wb")
  if not f then return nil, "cannot write " .. path .. ": " .. tostring(err) end
  local ok, werr = f:write(text)
  local cok, cerr = f:close()
  if not ok or not cok then
    os.remove(tmp)
    return nil, "cannot write " .. path .. ": " .. tostring(werr or cerr)
  end
  local rok, rerr = os.rename(tmp, path)
  if not rok then
    os.remove(tmp)
    return nil, "cannot write " .. path .. ": " .. tostring(rerr)
  end
  return true
end

-- Write the table as CSV (RFC 4180; numbers exact; written whole or not at all).
-- opts.sep (default ","). Returns true, or nil and a message.
function T:to_csv(path, opts)
  if type(path) ~= "string" then error("table:to_csv: a file name expected", 2) end
  opts = opts or {}
  if type(opts) ~= "table" then error("table:to_csv: opts must be a table", 2) end
  for k in pairs(opts) do
    if k ~= "sep" then error("table:to_csv: unknown option '" .. tostring(k) .. "' (sep)", 2) end
  end
  local sep = opts.sep or ","
  if type(sep) ~= "string" or #sep ~= 1 or sep:find('["\r\n]') then
    error("table:to_csv: sep must be one character other than a quote or a line break", 2)
  end
  return M.write_atomic(path, csvtext(self, sep))
end

local function jsonstr(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local m = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
    return m[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

-- The table as JSON (an array of objects; NaN and infinities become null). With a path
-- the text is written there (whole or not at all) and true returned, or nil and a message.
function T:to_json(path)
  local out = {}
  for i, r in ipairs(self._rows) do
    local f = {}
    for _, c in ipairs(self._cols) do
      local v = r[c]
      if v ~= nil then
        local s
        if type(v) == "number" then
          s = (v ~= v or v == math.huge or v == -math.huge) and "null" or numtext(v)
        elseif type(v) == "boolean" then s = tostring(v)
        else s = jsonstr(v) end
        f[#f + 1] = jsonstr(c) .. ":" .. s
      end
    end
    out[i] = "{" .. table.concat(f, ",") .. "}"
  end
  local text = "[" .. table.concat(out, ",\n ") .. "]\n"
  if path == nil then return text end
  return M.write_atomic(path, text)
end

-- Type of a CSV column from its texts: "number", "boolean" or "string".
local function isnumtext(s)
  if s:match("^%s*[-+]?%d+%.?%d*[eE]?[-+]?%d*%s*$") or s:match("^%s*[-+]?%.%d+[eE]?[-+]?%d*%s*$") then
    return tonumber(s) ~= nil
  end
  local l = s:lower():match("^%s*(.-)%s*$")
  return l == "nan" or l == "inf" or l == "-inf" or l == "+inf" or l == "-nan" or l == "infinity" or l == "-infinity"
end
local function tonum(s)
  local v = tonumber(s)
  if v then return v end
  local l = s:lower():match("^%s*(.-)%s*$")
  if l == "nan" or l == "-nan" then return NaN end
  if l == "inf" or l == "+inf" or l == "infinity" then return math.huge end
  if l == "-inf" or l == "-infinity" then return -math.huge end
  return nil
end
local function isbooltext(s)
  local l = s:lower()
  return l == "true" or l == "false"
end

-- Parse CSV text into a table; name is used in messages. See M.read_csv for opts.
function M.parse_csv(text, opts, name)
  opts = opts or {}
  name = name or "csv"
  if type(opts) ~= "table" then error("dlb.read_csv: opts must be a table", 3) end
  for k in pairs(opts) do
    if k ~= "sep" and k ~= "types" and k ~= "header" then
      error(string.format("dlb.read_csv: unknown option '%s' (sep, types, header)", tostring(k)), 3)
    end
  end
  local sep = opts.sep or ","
  local ok, records, lines = pcall(core.stats_csv_parse, text, sep)
  if not ok then error(name .. ": " .. tostring(records), 0) end
  local header
  local first = 1
  if opts.header == false then
    header = {}
    for j = 1, records[1] and #records[1] or 0 do header[j] = tostring(j) end
  else
    header = records[1]
    if header == nil then error(name .. ": empty file (no header line)", 0) end
    first = 2
    local seen = {}
    for j, h in ipairs(header) do
      if h == "" then error(string.format("%s: line %d, field %d: empty column name", name, lines[1], j), 0) end
      if seen[h] then
        error(string.format("%s: line %d, field %d: column '%s' appears twice (fields %d and %d)",
          name, lines[1], j, h, seen[h], j), 0)
      end
      seen[h] = j
    end
  end
  local types = opts.types or {}
  for k, v in pairs(types) do
    local j
    for jj, h in ipairs(header) do if h == k then j = jj end end
    if not j then error(string.format("%s: types names column '%s', which the file lacks", name, tostring(k)), 0) end
    if v ~= "number" and v ~= "string" and v ~= "boolean" then
      error(string.format("%s: type of '%s' must be number, string or boolean", name, k), 0)
    end
  end
  local kinds = {}
  for j, h in ipairs(header) do
    local kind = types[h]
    if kind == nil then
      local num, bool, any = true, true, false
      for i = first, #records do
        local s = records[i][j]
        if s ~= "" then
          any = true
          if num and not isnumtext(s) then num = false end
          if bool and not isbooltext(s) then bool = false end
          if not num and not bool then break end
        end
      end
      kind = (any and num) and "number" or (any and bool) and "boolean" or "string"
    end
    kinds[j] = kind
  end
  local t = M.new({}, header)
  local rows = t._rows
  for i = first, #records do
    local rec, r = records[i], {}
    for j, h in ipairs(header) do
      local s = rec[j]
      if s ~= "" then
        local kind = kinds[j]
        if kind == "number" then
          local v = tonum(s)
          if v == nil then
            error(string.format("%s: line %d, field %d ('%s'): '%s' is not a number", name,
              lines[i], j, h, s), 0)
          end
          r[h] = v
        elseif kind == "boolean" then
          local l = s:lower()
          if l ~= "true" and l ~= "false" then
            error(string.format("%s: line %d, field %d ('%s'): '%s' is not true or false", name,
              lines[i], j, h, s), 0)
          end
          r[h] = l == "true"
        else
          r[h] = s
        end
      end
    end
    rows[#rows + 1] = r
  end
  return t
end

-- Read a CSV file (RFC 4180) into a table. Column types are inferred (all numbers ->
-- numbers, all true/false -> booleans, else strings; empty fields are nil) unless
-- opts.types = {column = "number"|"string"|"boolean"}. opts.sep (default ","),
-- opts.header = false for files without a header line (columns "1", "2", ...).
-- Errors name the file, line and column.
function M.read_csv(path, opts)
  if type(path) ~= "string" then error("dlb.read_csv: a file name expected", 2) end
  local f, err = io.open(path, "rb")
  if not f then error("dlb.read_csv: cannot open " .. tostring(err), 2) end
  local text = f:read("*a")
  f:close()
  return M.parse_csv(text, opts, path)
end

-- Text of a cell for printing.
local function celltext(v)
  if v == nil then return "" end
  if type(v) == "number" then
    if v ~= v then return "nan" end
    if v == floor(v) and math.abs(v) < 1e15 then return string.format("%.0f", v) end
    return string.format("%.6g", v)
  end
  local s = tostring(v)
  s = s:gsub("[\r\n\t]", " ")
  if #s > 40 then s = s:sub(1, 37) .. "..." end
  return s
end

-- Aligned text: at most max_rows rows (default 20: the first 10 and the last 5 of larger
-- tables), numbers right-aligned.
function T:format(max_rows)
  max_rows = max_rows or 20
  local n, cols = #self._rows, self._cols
  local show = {}
  if n <= max_rows then
    for i = 1, n do show[#show + 1] = i end
  else
    local head = math.max(1, floor(max_rows / 2))
    local tail = math.max(1, floor(max_rows / 4))
    for i = 1, head do show[#show + 1] = i end
    show[#show + 1] = false
    for i = n - tail + 1, n do show[#show + 1] = i end
  end
  local width, numeric, cells = {}, {}, {}
  for c, name in ipairs(cols) do
    width[c] = #name
    numeric[c] = true
  end
  for k, i in ipairs(show) do
    if i then
      local r, line = self._rows[i], {}
      for c, name in ipairs(cols) do
        local v = r[name]
        if v ~= nil and type(v) ~= "number" then numeric[c] = false end
        line[c] = celltext(v)
        if #line[c] > width[c] then width[c] = #line[c] end
      end
      cells[k] = line
    end
  end
  local function fmtline(vals)
    local parts = {}
    for c = 1, #cols do
      local s = vals[c]
      local pad = string.rep(" ", width[c] - #s)
      parts[c] = numeric[c] and (pad .. s) or (s .. pad)
    end
    return (table.concat(parts, "  "):gsub("%s+$", ""))
  end
  local out = { fmtline(cols) }
  local rule = {}
  for c = 1, #cols do rule[c] = string.rep("-", width[c]) end
  out[2] = table.concat(rule, "  ")
  for k, i in ipairs(show) do
    if i then out[#out + 1] = fmtline(cells[k])
    else out[#out + 1] = string.format("... (%d more rows)", n - (#show - 1)) end
  end
  out[#out + 1] = string.format("[%d row%s x %d column%s]", n, n == 1 and "" or "s", #cols,
    #cols == 1 and "" or "s")
  return table.concat(out, "\n")
end

T.__tostring = function(t) return t:format() end
T.__name = "dlbench.Table"

M.is_table = isT

setmetatable(M, { __call = function(_, rows, columns) return M.new(rows, columns) end })

doc.doc(M, "dlb.table", "result tables: dlb.table{rows} or dlb.table.new(rows[, columns]); "
  .. "count, columns, column, row, rows, where, select, with, sort, head, unique, group_by, "
  .. "pivot, concat, join, to_csv, to_json; dlb.read_csv(path)")
doc.doc(M.new, "dlb.table.new(rows[, columns]) -> table", "a table from an array of {column = value} rows")
doc.doc(M.from_columns, "dlb.table.from_columns({name = array, ...}[, order]) -> table", "a table from equal-length columns")
doc.doc(M.concat, "dlb.table.concat(t1, t2, ...) -> table", "rows of several tables one after the other (merge sweep shards)")
doc.doc(M.read_csv, "dlb.read_csv(path[, {sep=, types=, header=}]) -> table", "read a CSV file; types inferred per column; errors name line and column")
doc.doc(M.parse_csv, "dlb.table.parse_csv(text[, opts[, name]]) -> table", "parse CSV text (as dlb.read_csv)")
doc.doc(M.write_atomic, "dlb.table.write_atomic(path, text) -> true | nil, msg", "write a file whole or not at all")
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
doc.doc(T.with, "t:with(name, function(row, i) | array) -> table", "add or replace a column")
doc.doc(T.sort, "t:sort(\"col\" | \"-col\" | {cols} | function(a, b)) -> table", "stable sort; '-' for descending; nil last")
doc.doc(T.head, "t:head([n]) -> table", "the first n rows (default 10)")
doc.doc(T.unique, "t:unique(name) -> array", "sorted distinct values of a column")
doc.doc(T.failures, "t:failures() -> table", "sweep rows that failed (with an _error message)")
doc.doc(T.ok, "t:ok() -> table", "sweep rows that did not fail")
doc.doc(T.group_by, "t:group_by(keys, {out = \"mean\" | {agg, column[, p]}}) -> table",
  "one row per key, sorted; aggregates count, sum, min, max, mean, median, gmean, hmean, sd, percentile, first, last")
doc.doc(T.pivot, "t:pivot(x, y, value[, agg]) -> xs, ys, z", "heat-map grid, z[j][i] at (xs[i], ys[j]); missing cells NaN")
doc.doc(T.concat, "t:concat(t2, ...) -> table", "rows of this table then the others'")
doc.doc(T.join, "t:join(other, keys[, {how=\"inner\"|\"left\", suffix=\"_2\"}]) -> table", "join rows on equal key values")
doc.doc(T.to_csv, "t:to_csv(path[, {sep=}]) -> true | nil, msg", "write CSV (RFC 4180, exact numbers), whole or not at all")
doc.doc(T.to_json, "t:to_json([path]) -> text | true | nil, msg", "the rows as a JSON array of objects")
doc.doc(T.format, "t:format([max_rows]) -> string", "aligned text (what the REPL prints)")
return M
