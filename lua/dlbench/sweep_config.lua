-- dlbench.sweep_config — a sweep's configs and their rows, shared by the sweep
-- (lua/dlbench/sweep.lua), its checkpoints (sweep_checkpoint.lua) and its workers
-- (sweep_workers.lua): the parameters of config k, its identity and description, the
-- checked row of fn's result, error text, and a guard object run at collection.
-- Internal: the user-facing API is dlb.sweep (docs/sweep.md).
local tbl = require "dlbench.table"

local M = {}

-- Column names a sweep's table uses for itself; a parameter may not take them.
local reserved = { _error = true }
local function reserved_list()
  local r = {}
  for k in pairs(reserved) do r[#r + 1] = k end
  table.sort(r)
  return table.concat(r, ", ")
end

-- Parameters of config k (1-based): mixed radix, last name fastest.
local function params(names, vals, k)
  local p = {}
  local r = k - 1
  for i = #names, 1, -1 do
    local list = vals[names[i]]
    local n = #list
    local d = r % n
    p[names[i]] = list[d + 1]
    r = (r - d) / n
  end
  return p
end

-- Identity of a config for checkpoints: its values as text, insensitive to whether a
-- CSV read them back as numbers or strings.
local function cfgkey(names, row)
  local parts = {}
  for i, k in ipairs(names) do
    local v = row[k]
    if type(v) == "number" then parts[i] = tbl.numtext(v) else parts[i] = tostring(v) end
  end
  return table.concat(parts, "\0")
end

local function describe(names, p)
  local parts = {}
  for i, k in ipairs(names) do parts[i] = k .. "=" .. tostring(p[k]) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

-- Check fn's result; returns the row (params + result) or nil and a message.
local function mkrow_raw(names, p, res)
  local row = {}
  for _, k in ipairs(names) do row[k] = p[k] end
  if res == nil then return row end
  if type(res) ~= "table" then
    return nil, "fn returned a " .. type(res) .. "; expected a table {column = value} or nil"
  end
  for k, v in pairs(res) do
    if type(k) ~= "string" then return nil, "fn returned a row with a non-string key (" .. tostring(k) .. ")" end
    if k == "" then return nil, "fn returned a column with an empty name (a checkpoint could not be resumed)" end
    local tv = type(v)
    if tv ~= "number" and tv ~= "string" and tv ~= "boolean" then
      return nil, string.format("fn returned column '%s' holding a %s (numbers, strings, booleans only)", k, tv)
    end
    if reserved[k] then return nil, "fn returned the reserved column '" .. k .. "'" end
    if row[k] ~= nil and row[k] ~= v and p[k] ~= nil then
      return nil, string.format("fn returned column '%s' = %s, which is a swept parameter (= %s)",
        k, tostring(v), tostring(p[k]))
    end
    row[k] = v
  end
  return row
end

local function errtext(e)
  if type(e) == "string" then return e end
  local ok, s = pcall(tostring, e)
  return ok and type(s) == "string" and s or "(error object)"
end

-- mkrow_raw under pcall: a result whose __pairs (or a key's __tostring) raises fails its
-- row instead of the sweep.
local function mkrow(names, p, res)
  local ok, row, err = pcall(mkrow_raw, names, p, res)
  if not ok then return nil, "fn's result could not be read: " .. errtext(row) end
  return row, err
end

local function is_interrupt(msg)
  return type(msg) == "string" and msg:find("interrupted!", 1, true) ~= nil
end

-- An object whose collection runs f (tables under 5.4, a proxy userdata under LuaJIT).
local function on_collect(f)
  if newproxy then
    local u = newproxy(true)
    getmetatable(u).__gc = function() f() end
    return u
  end
  return setmetatable({}, { __gc = function() f() end })
end

M.reserved, M.reserved_list = reserved, reserved_list
M.params, M.cfgkey, M.describe, M.mkrow = params, cfgkey, describe, mkrow
M.errtext, M.is_interrupt, M.on_collect = errtext, is_interrupt, on_collect
-- The table of the finished rows of configs first..last (results[k]: config k's row), in
-- config order: params, result columns (sorted), _error. Configs without a row (not run
-- before an interrupt, or a shard that did not finish) are left out. dlb.sweep and the
-- Slurm merge build their tables here.
function M.table_of(names, results, first, last)
  local rows, rescols, seen = {}, {}, {}
  for _, k in ipairs(names) do seen[k] = true end
  local anyerr = false
  for k = first, last do
    local r = results[k]
    if r ~= nil then
      rows[#rows + 1] = r
      for c in pairs(r) do
        if c == "_error" then anyerr = true
        elseif not seen[c] then seen[c] = true; rescols[#rescols + 1] = c end
      end
    end
  end
  table.sort(rescols)
  local cols = {}
  for _, k in ipairs(names) do cols[#cols + 1] = k end
  for _, c in ipairs(rescols) do cols[#cols + 1] = c end
  if anyerr then cols[#cols + 1] = "_error" end
  local t = tbl.new({}, cols)
  t._rows = rows
  return t
end

return M
