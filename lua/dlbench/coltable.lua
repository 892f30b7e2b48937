-- dlbench.coltable — a result table whose rows stay in C, column by column (the rows
-- dlb.sweep.model keeps: 32 bytes a row, the rest decoded in C on read, docs/sweep.md "Kept
-- rows"; strings interned as level indices), read by
-- column. It answers count, columns, has, column, row, rows, head, select, where, sort,
-- pareto, top, unique, group_by and to_csv itself, without a Lua table per row: select,
-- where, sort, pareto and top return views (a column list and a list of row numbers over the same C rows); pivot makes a
-- row table of only the columns it uses; every other dlb.table method (with, join,
-- format, ...) runs on a row table made from the view once (t:to_table(); capped by
-- dlb.sweep.max_configs), so all of dlb.table works on it.
local doc = require "dlbench.doc"
local tbl = require "dlbench.table"
local io_ = require "dlbench.table_io"

local M = {}
local C = {}
local Tmethods = getmetatable(tbl.new {}) -- dlb.table's method table

C.__index = function(self, k)
  local m = rawget(C, k)
  if m ~= nil then return m end
  local f = Tmethods[k]
  if type(f) == "function" then
    return function(t, ...) return f(t:to_table(), ...) end
  end
  return nil
end

-- Decode n values of column c in place: an interned column's level indices become its
-- values (levels: the list, 0-based indices), "fits" becomes booleans. Returns a.
function M.decode(a, n, c, levels)
  if levels and #levels > 0 then
    for i = 1, n do
      local v = levels[a[i] + 1]
      if v ~= nil then a[i] = v end
    end
  end
  if c == "fits" then for i = 1, n do a[i] = a[i] ~= 0 end end
  return a
end

-- fetch(col0, start0, n) -> array of n numbers (C's column), n rows, names, levels (name ->
-- list of values for interned columns), owner (kept alive).
function M.new(fetch, n, cols, levels, owner)
  local has = {}
  for i, c in ipairs(cols) do has[c] = i - 1 end
  -- cache: the base columns read whole, as Lua arrays (16 bytes a value), weakly: a column
  -- stays while something holds it (a caller's array, a view being sorted) and is read from
  -- C again after the collector has taken it, so reading every column of a million rows
  -- once does not keep 20 x 16 MB alive
  local base = { fetch = fetch, n = n, idx = has, levels = levels or {}, owner = owner,
    cache = setmetatable({}, { __mode = "v" }) }
  return setmetatable({ _base = base, _cols = cols }, C)
end

function M.is_coltable(x) return getmetatable(x) == C end

-- A view over the same rows: columns cols, base rows sel (nil: all, in order).
local function view(self, cols, sel)
  return setmetatable({ _base = self._base, _cols = cols or self._cols, _sel = sel }, C)
end

-- The whole base column c, decoded (fetched once, then shared by every view while it is
-- held: the cache is weak).
local function basecol(B, c)
  local a = B.cache[c]
  if not a then
    a = B.n > 0 and M.decode(B.fetch(B.idx[c], 0, B.n), B.n, c, B.levels[c]) or {}
    B.cache[c] = a
  end
  return a
end

local CHUNK = 65536

-- Values of column c for the view's rows start .. start + n - 1 (1-based), decoded; a new array.
local function read(self, c, start, n)
  local B, sel = self._base, self._sel
  if not sel then
    local a = B.cache[c]
    if not a then return M.decode(B.fetch(B.idx[c], start - 1, n), n, c, B.levels[c]) end
    local out = {}
    for i = 1, n do out[i] = a[start + i - 1] end
    return out
  end
  local a, out = basecol(B, c), {}
  for i = 1, n do out[i] = a[sel[start + i - 1]] end
  return out
end

local function checkcol(self, c, who)
  local ok = false
  for _, x in ipairs(self._cols) do if x == c then ok = true end end
  if not ok then
    error(string.format("%s: no column '%s' (columns: %s)", who, tostring(c),
      table.concat(self._cols, ", ")), 3)
  end
end

function C:count() return self._sel and #self._sel or self._base.n end
function C:columns() local c = {} for i, v in ipairs(self._cols) do c[i] = v end return c end
function C:has(name)
  for _, x in ipairs(self._cols) do if x == name then return true end end
  return false
end

function C:column(name, default)
  checkcol(self, name, "table:column")
  local n = self:count()
  local a = n > 0 and read(self, name, 1, n) or {}
  if default ~= nil then for i = 1, n do if a[i] == nil then a[i] = default end end end
  return a
end

function C:row(i)
  if type(i) ~= "number" or i < 1 or i > self:count() or i ~= math.floor(i) then
    error(string.format("table:row: row %s out of range (1..%d)", tostring(i), self:count()), 2)
  end
  local r = {}
  for _, c in ipairs(self._cols) do r[c] = read(self, c, i, 1)[1] end
  return r
end

-- for i, row in t:rows() do ... end: rows made in chunks (a fresh table each).
function C:rows()
  local n, i, chunk, at = self:count(), 0, nil, 0
  return function()
    i = i + 1
    if i > n then return nil end
    if not chunk or i > at + CHUNK then
      at = i - 1
      chunk = {}
      for _, c in ipairs(self._cols) do chunk[c] = read(self, c, i, math.min(CHUNK, n - i + 1)) end
    end
    local r = {}
    for _, c in ipairs(self._cols) do r[c] = chunk[c][i - at] end
    return i, r
  end
end

-- The base rows of the view, in order (a new list).
local function rownums(self)
  local sel, out = self._sel, {}
  if sel then for i = 1, #sel do out[i] = sel[i] end
  else for i = 1, self._base.n do out[i] = i end end
  return out
end

-- Only the named columns (a view).
function C:select(a, ...)
  local names = tbl.select_names(a, ...)
  for _, c in ipairs(names) do checkcol(self, c, "table:select") end
  local cols = {}
  for i, c in ipairs(names) do cols[i] = c end
  return view(self, cols, self._sel)
end

-- The rows where pred holds (a view): pred a function(row) or {column = value or function}.
function C:where(pred)
  local rows = rownums(self)
  local keep = {}
  if type(pred) == "table" then
    local cols = {}
    for k, want in pairs(pred) do
      checkcol(self, k, "table:where")
      cols[#cols + 1] = { basecol(self._base, k), want }
    end
    for _, r in ipairs(rows) do
      local ok = true
      for _, cw in ipairs(cols) do
        local v, want = cw[1][r], cw[2]
        if type(want) == "function" then ok = want(v) and true or false
        else ok = v == want end
        if not ok then break end
      end
      if ok then keep[#keep + 1] = r end
    end
  elseif type(pred) == "function" then
    local i = 0
    for _, row in self:rows() do
      i = i + 1
      if pred(row) then keep[#keep + 1] = rows[i] end
    end
  else
    error("table:where: a function(row) or a table {column = value} expected", 2)
  end
  return view(self, self._cols, keep)
end

-- Sorted (stable) by columns ("util", "-util", {"batch", "-util"}): a view. A comparison
-- function sorts the row table instead (t:to_table():sort(f)).
function C:sort(spec)
  if type(spec) == "function" then return self:to_table():sort(spec) end
  local ks = tbl.sort_keys(spec)
  for _, k in ipairs(ks) do
    checkcol(self, k[1], "table:sort")
    k[1] = basecol(self._base, k[1])
  end
  local rows = rownums(self)
  local less = tbl.less
  table.sort(rows, function(i, j)
    for _, k in ipairs(ks) do
      local x, y = k[1][i], k[1][j]
      if k[2] and x ~= nil and y ~= nil then x, y = y, x end
      if less(x, y) then return true end
      if less(y, x) then return false end
    end
    return i < j
  end)
  return view(self, self._cols, rows)
end

-- The first n rows (default 10) as a dlb.table.
function C:head(n)
  n = math.min(tbl.head_count(n), self:count())
  local data = {}
  for _, c in ipairs(self._cols) do data[c] = n > 0 and read(self, c, 1, n) or {} end
  return tbl.from_columns(data, self._cols)
end

-- Sorted distinct values of a column.
function C:unique(name)
  checkcol(self, name, "table:unique")
  return self:select(name):to_table():unique(name)
end

-- group_by over the columns it uses (dlb.table's own grouping, tbl.group_columns: no Lua
-- table per row); pivot on a row table of only the columns it uses.
function C:group_by(keys, aggs)
  local has = {}
  for _, c in ipairs(self._cols) do has[c] = true end
  local rows, cols = tbl.group_columns({ _has = has, _cols = self._cols }, keys, aggs, self:count(),
    function(c) return self:column(c) end)
  return tbl.adopt(rows, cols)
end
function C:pivot(x, y, value, agg)
  local need = {}
  for _, c in ipairs { x, y, value } do if type(c) == "string" and self:has(c) then need[#need + 1] = c end end
  return self:select(need):to_table():pivot(x, y, value, agg)
end

-- A dlb.table of the view's rows (made once per view, then kept).
-- t:pareto / t:top (dlb.table's, the sweep's C rule: dlb.table.reduce_rows): views of the
-- rows kept, in the rule's order.
local function reduced(self, kind, spec, who)
  local rows = tbl.reduce_rows(kind, spec, self._cols, function(c) return self:column(c) end,
    self:count(), who)
  local sel = self._sel
  if sel then for i, r in ipairs(rows) do rows[i] = sel[r] end end
  return view(self, self._cols, rows)
end
function C:pareto(spec) return reduced(self, "pareto", spec, "t:pareto") end
function C:top(spec) return reduced(self, "top", spec, "t:top") end

function C:to_table()
  local t = rawget(self, "_rows_table")
  if t then return t end
  local n = self:count()
  local cap = require("dlbench.sweep").max_configs
  if n > cap then
    error(string.format("table: %d rows is more than dlb.sweep.max_configs (%g) as Lua rows; "
      .. "reduce them in C (pareto, top, heatmap, group_by) or raise the cap", n, cap), 3)
  end
  -- rows built here from C's numbers, strings and booleans: adopted, not copied again
  local data, rows = {}, {}
  for _, c in ipairs(self._cols) do data[c] = n > 0 and read(self, c, 1, n) or {} end
  for i = 1, n do
    local r = {}
    for _, c in ipairs(self._cols) do r[c] = data[c][i] end
    rows[i] = r
  end
  t = tbl.adopt(rows, self._cols)
  rawset(self, "_rows_table", t)
  return t
end

-- CSV of every row, read from C in chunks (the text dlb.table's to_csv writes).
function C:to_csv(path, opts)
  if type(path) ~= "string" then error("table:to_csv: a file name expected, got a " .. type(path), 2) end
  local sep = (opts or {}).sep or ","
  local out = {}
  local hdr = {}
  for _, c in ipairs(self._cols) do hdr[c] = c end
  out[1] = io_.csvline(hdr, self._cols, sep)
  for _, r in self:rows() do out[#out + 1] = io_.csvline(r, self._cols, sep) end
  return io_.write_atomic(path, table.concat(out))
end

C.__tostring = function(self)
  return string.format("dlb.table: %d rows x %d columns (columnar, in C)", self:count(), #self._cols)
end
C.__len = function(self) return self:count() end

doc.doc(M.new, "dlbench.coltable.new(fetch, n, columns, levels) -> table",
  "a result table whose rows stay in C by column; dlb.table's methods work on it")
doc.doc(M.decode, "dlbench.coltable.decode(values, n, column, levels) -> values",
  "level indices of an interned column back to its values; fits to booleans")

return M
