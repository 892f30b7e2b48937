-- dlbench.json — a small JSON writer for the command line's --json output (dlbench plan),
-- the Slurm sweep's files and the Jupyter kernel's replies. Reading JSON is the C
-- reader's (core.json_read, graphs/io/json.c).
--   json.encode(v) -> string: tables with a [1] (or empty with json.array) are arrays, other
--   tables objects with their keys sorted; NaN and infinities become null; numbers exact.
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
  if t ~= "table" then error("json.encode: cannot encode a " .. t, 0) end
  if depth > 100 then error("json.encode: nested deeper than 100 levels (a cycle?)", 0) end
  local out = {}
  if v[1] ~= nil or getmetatable(v) == array_mt then
    for i = 1, #v do out[i] = encode(v[i], depth + 1) end
    return "[" .. table.concat(out, ",") .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
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
