-- dlbench.hw_levels — the `levels` field of a dlb.hw device: measured memory ceilings per
-- level, innermost first, {{name=, size= (bytes; absent for memory), bw= (bytes/s)}, ...}
-- (dlb.measure.host, docs/measure.md). Its checks, copies and CSV text, used by dlbench.hw.
local M = {}

local function finite(x) return type(x) == "number" and x == x and x > -math.huge and x < math.huge end

-- Check a levels list; bad(fmt, ...) raises with the caller's position.
function M.check(levels, bad)
  for i, l in ipairs(levels) do
    if type(l) ~= "table" or type(l.name) ~= "string" or l.name == "" then
      bad("levels[%d] must be {name=, size=, bw=} with a name", i)
    end
    for _, k in ipairs(require("dlbench.options").keys(l)) do -- sorted: the first refused key is named
      if k ~= "name" and k ~= "size" and k ~= "bw" then
        bad("%s", require("dlbench.options").message(k, { "name", "size", "bw" }, "levels[" .. i .. "]", "field"))
      end
    end
    if not finite(l.bw) or l.bw <= 0 then bad("levels[%d].bw must be positive bytes/s, got %s", i, tostring(l.bw)) end
    if l.size ~= nil and (not finite(l.size) or l.size <= 0) then
      bad("levels[%d].size must be positive bytes (leave it out for memory), got %s", i, tostring(l.size))
    end
  end
end

-- A plain copy of a list of levels (each entry read field by field, so read-only proxies
-- copy too).
function M.copy(levels)
  local out = {}
  for i, l in ipairs(levels) do out[i] = { name = l.name, size = l.size, bw = l.bw } end
  return out
end

-- Put a device's levels into its backend table r (graphs/hw/dlb_hw.h dlb_roof, level1_size,
-- level1_bw ... level4_*): the levels with a size (caches; memory has none and is the
-- device's mem_bw), smallest first, at most 4 (larger ones are then timed at mem_bw).
function M.to_roof(levels, r)
  local sized = {}
  for _, l in ipairs(levels) do
    if l.size then sized[#sized + 1] = l end
  end
  table.sort(sized, function(a, b) return a.size < b.size end)
  for i = 1, math.min(4, #sized) do
    r["level" .. i .. "_size"], r["level" .. i .. "_bw"] = sized[i].size, sized[i].bw
  end
  return r
end

-- CSV text: "name:size:bw;..." with size empty for memory, e.g. "L1:49152:1.6e11;DRAM::3.7e10".
function M.format(levels)
  local parts = {}
  for i, l in ipairs(levels) do
    parts[i] = l.name .. ":" .. (l.size and string.format("%.17g", l.size) or "") .. ":"
      .. string.format("%.17g", l.bw)
  end
  return table.concat(parts, ";")
end

-- A CSV number (looked up when called: dlbench.table_io loads after this module)
local function csvnumber(s) return require("dlbench.table_io").csvnumber(s) end

-- The levels of CSV text; `where` (file:line) names a bad item.
function M.parse(s, where)
  local out = {}
  for item in (s .. ";"):gmatch("([^;]*);") do
    local nm, sz, bw = item:gsub("^%s+", ""):gsub("%s+$", ""):match("^([^:]+):([^:]*):([^:]+)$")
    -- decimal numbers only, as the catalogue's other columns (table_io.csvnumber)
    local size, rate
    if nm then size, rate = sz ~= "" and csvnumber(sz) or nil, csvnumber(bw) end
    if not nm or rate == nil or (sz ~= "" and size == nil) then
      error(string.format("%s: column 'levels': '%s' is not name:size:bw", where, item), 0)
    end
    out[#out + 1] = { name = nm, size = size, bw = rate }
  end
  return out
end

return M
