-- dlbench.coltable — a result table whose rows stay in C, column by column (the rows
-- dlb.sweep.model keeps: 8 bytes a cell, strings interned as level indices), read by
-- column in chunks. It answers count, columns, has, column, row, head and to_csv itself
-- (to_csv streams the rows in chunks); every other dlb.table method (where, sort,
-- group_by, pivot, with, join, format ...) runs on a row table made from it once
-- (t:to_table(); capped by dlb.sweep.max_configs), so all of dlb.table works on it.
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

-- fetch(col0, start0, n) -> array of n numbers (C's column), n rows, names, levels (name ->
-- list of strings for interned columns), owner (kept alive).
function M.new(fetch, n, cols, levels, owner)
  local has = {}
  for i, c in ipairs(cols) do has[c] = i - 1 end
  return setmetatable({ _fetch = fetch, _n = n, _cols = cols, _idx = has, _levels = levels or {},
    _owner = owner, _cache = {} }, C)
end

function M.is_coltable(x) return getmetatable(x) == C end

local CHUNK = 65536

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

-- Values of column c for rows start .. start + n - 1 (1-based), decoded.
local function read(self, c, start, n)
  return M.decode(self._fetch(self._idx[c], start - 1, n), n, c, self._levels[c])
end

local function checkcol(self, c, who)
  if self._idx[c] == nil then
    error(string.format("%s: no column '%s' (columns: %s)", who, tostring(c),
      table.concat(self._cols, ", ")), 3)
  end
end

function C:count() return self._n end
function C:columns() local c = {} for i, v in ipairs(self._cols) do c[i] = v end return c end
function C:has(name) return self._idx[name] ~= nil end

function C:column(name)
  checkcol(self, name, "table:column")
  local a = self._cache[name]
  if not a then
    a = self._n > 0 and read(self, name, 1, self._n) or {}
    self._cache[name] = a
  end
  local out = {}
  for i = 1, #a do out[i] = a[i] end
  return out
end

function C:row(i)
  if type(i) ~= "number" or i < 1 or i > self._n or i ~= math.floor(i) then
    error(string.format("table:row: row %s out of range (1..%d)", tostring(i), self._n), 2)
  end
  local r = {}
  for _, c in ipairs(self._cols) do r[c] = read(self, c, i, 1)[1] end
  return r
end

-- The first n rows (default 10) as a dlb.table.
function C:head(n)
  n = math.min(n or 10, self._n)
  local data = {}
  for _, c in ipairs(self._cols) do data[c] = n > 0 and read(self, c, 1, n) or {} end
  return tbl.from_columns(data, self._cols)
end

-- A dlb.table of every row (made once, then kept).
function C:to_table()
  local t = rawget(self, "_rows_table")
  if t then return t end
  local cap = require("dlbench.sweep").max_configs
  if self._n > cap then
    error(string.format("table: %d rows is more than dlb.sweep.max_configs (%g) as Lua rows; "
      .. "reduce them in C (pareto, top, heatmap, group_by) or raise the cap", self._n, cap), 3)
  end
  local data = {}
  for _, c in ipairs(self._cols) do data[c] = self._n > 0 and read(self, c, 1, self._n) or {} end
  t = tbl.from_columns(data, self._cols)
  rawset(self, "_rows_table", t)
  return t
end

-- CSV of every row, read from C in chunks (the text as dlb.table's to_csv writes it).
function C:to_csv(path, opts)
  if type(path) ~= "string" then error("table:to_csv: a file name expected, got a " .. type(path), 2) end
  local sep = (opts or {}).sep or ","
  local out = {}
  local hdr = {}
  for _, c in ipairs(self._cols) do hdr[c] = c end
  out[1] = io_.csvline(hdr, self._cols, sep)
  for s = 1, self._n, CHUNK do
    local n = math.min(CHUNK, self._n - s + 1)
    local cols = {}
    for _, c in ipairs(self._cols) do cols[c] = read(self, c, s, n) end
    local r = {}
    for i = 1, n do
      for _, c in ipairs(self._cols) do r[c] = cols[c][i] end
      out[#out + 1] = io_.csvline(r, self._cols, sep)
    end
  end
  return io_.write_atomic(path, table.concat(out))
end

C.__tostring = function(self)
  return string.format("dlb.table: %d rows x %d columns (columnar, in C)", self._n, #self._cols)
end
C.__len = function(self) return self._n end

doc.doc(M.new, "dlbench.coltable.new(fetch, n, columns, levels) -> table",
  "a result table whose rows stay in C by column; dlb.table's methods work on it")

return M
