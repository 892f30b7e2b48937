-- dlbench.json — a small JSON writer for the command line's --json output (dlbench plan),
-- the Slurm sweep's files and the Jupyter kernel's replies. Reading JSON is the C
-- reader's (core.json_read, graphs/io/json.c).
--   json.encode(v) -> string: tables with a [1] (or empty with json.array) are arrays, other
--   tables objects with their keys sorted; NaN and infinities become null; numbers exact.
--   An array runs to its largest index (holes are null); a table with both list items and
--   other keys, or far sparser than a list, is an error.
local tbl = require "dlbench.table"

local M = {}

-- The marker of a table to write as an array even when it is empty.
local array_mt = {}
function M.array(t) return setmetatable(t or {}, array_mt) end

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
function M.string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function encode(v, depth)
  local t = type(v)
  if t == "string" then return M.string(v) end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    return tbl.numtext(v)
  end
  if t == "boolean" then return tostring(v) end
  if v == nil then return "null" end
  -- an array's null item as the JSON reader gives it (core.json_null)
  if t == "table" and getmetatable(v) == "dlbench.json_null" then return "null" end
  if t ~= "table" then error("json.encode: cannot encode a " .. t, 0) end
  if depth > 100 then error("json.encode: nested deeper than 100 levels (a cycle?)", 0) end
  local out = {}
  -- an array's length is its largest integer key, not #v: # of a list with a hole differs
  -- by backend ({1, nil, 3} was [1,null,3] under Lua 5.4 and [1] under LuaJIT); a list
  -- with other keys as well has no JSON form (its other keys were dropped without a word)
  local n, items, other = 0, 0, nil
  for k in pairs(v) do
    if type(k) == "number" and k >= 1 and k == math.floor(k) and k < 2 ^ 53 then
      items = items + 1
      if k > n then n = k end
    elseif other == nil then other = k end
  end
  if v[1] ~= nil or getmetatable(v) == array_mt then
    if other ~= nil then
      error(string.format("json.encode: a table with list items and the key %s has no JSON "
        .. "form (an array or an object, not both)", type(other) == "string"
        and string.format("%q", other) or tostring(other)), 0)
    end
    if n > 2 * items + 16 then -- {1, [1e9] = 2}: a billion nulls
      error(string.format("json.encode: a list of %d items with index %.0f: too sparse for an "
        .. "array", items, n), 0)
    end
    for i = 1, n do out[i] = encode(v[i], depth + 1) end
    return "[" .. table.concat(out, ",") .. "]"
  end
  local keys, seen = {}, {}
  for k in pairs(v) do
    local s = tostring(k)
    if seen[s] then -- 2 and "2" would write the same key twice
      error("json.encode: keys " .. s .. " and \"" .. s .. "\" write the same JSON key", 0)
    end
    seen[s] = true
    keys[#keys + 1] = s
  end
  table.sort(keys)
  for i, k in ipairs(keys) do
    local x = v[k]
    if x == nil then x = v[tonumber(k)] end
    out[i] = M.string(k) .. ":" .. encode(x, depth + 1)
  end
  return "{" .. table.concat(out, ",") .. "}"
end

function M.encode(v) return encode(v, 0) end

return M
