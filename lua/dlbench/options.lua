-- dlbench.options — the one checker of options tables for the Lua library (as lauxlib's
-- luaL_checkoption is Lua's): an unknown option is an error in one form everywhere,
--   unknown option 'x' for f (did you mean 'y'?); accepted: a, b, c
-- that names it, names the function, suggests the accepted name closest to it (when one is
-- close) and lists the accepted ones. Every options table, field table and command-line
-- flag set of the library is checked here.
local M = {}

-- The accepted names of `valid`: a set {name = true} or a list {"name", ...}; sorted.
local function namelist(valid)
  local names = {}
  if valid[1] ~= nil then
    for i, n in ipairs(valid) do names[i] = tostring(n) end
  else
    for n in pairs(valid) do names[#names + 1] = tostring(n) end
  end
  table.sort(names)
  return names
end

-- The sorted keys of a set (or the entries of a list), joined with ", ".
function M.names(valid) return table.concat(namelist(valid), ", ") end

-- Is k accepted by `valid` (a set or a list)?
local function accepts(valid, k)
  if valid[k] then return true end
  if valid[1] ~= nil then
    for _, n in ipairs(valid) do if n == k then return true end end
  end
  return false
end

-- Levenshtein distance of a and b, stopping early above `most` (returns most + 1).
local function distance(a, b, most)
  if math.abs(#a - #b) > most then return most + 1 end
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur, best = { [0] = i }, i
    local ca = a:sub(i, i)
    for j = 1, #b do
      local cost = ca == b:sub(j, j) and 0 or 1
      local v = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
      cur[j] = v
      if v < best then best = v end
    end
    if best > most then return most + 1 end
    prev = cur
  end
  return prev[#b]
end

-- The accepted name closest to `key` by edit distance (case ignored), or nil when none is
-- close: at most 1 edit for names up to 4 letters, 2 for longer ones, and never all of it.
function M.suggest(key, valid)
  if type(key) ~= "string" or key == "" then return nil end
  local k = key:lower()
  local most = #k <= 4 and 1 or 2
  if most >= #k then most = #k - 1 end
  local best, bestd
  for _, n in ipairs(namelist(valid)) do
    local d = distance(k, n:lower(), most)
    if d <= most and (bestd == nil or d < bestd) then best, bestd = n, d end
  end
  return best
end

-- The message for an unknown key: "unknown option 'x' for f (did you mean 'y'?); accepted:
-- a, b, c". noun replaces "option" (a device's "field", a figure's "property", a command's
-- "flag"); accepted, when given, is the list as shown (names with their aliases).
function M.message(key, valid, fname, noun, accepted)
  local near = M.suggest(key, valid)
  return string.format("unknown %s '%s' for %s%s; accepted: %s", noun or "option", tostring(key),
    fname, near and (" (did you mean '" .. near .. "'?)") or "", accepted or M.names(valid))
end

-- The order keys are reported in: numbers before strings (type names' order), each sorted;
-- other keys by type name. pairs() order differs between backends (and, for string keys,
-- between runs under Lua 5.4, whose string hashes are seeded per run), so a checker that
-- names the first bad key of several walks the keys in this order.
local function keyorder(a, b)
  if type(a) == type(b) and (type(a) == "string" or type(a) == "number") then return a < b end
  return type(a) < type(b)
end

-- The keys of table t, sorted by keyorder: `for _, k in ipairs(options.keys(t))` where
-- pairs(t) would choose which of several bad keys an error names.
function M.keys(t)
  local ks = {}
  for k in next, t do ks[#ks + 1] = k end
  table.sort(ks, keyorder)
  return ks
end

-- The message for the first unknown key of table t (keys in sorted order, so both
-- backends name the same one), or nil when every key is accepted. A proxy whose keys only
-- its __pairs shows (a dlb.hw device given where options go) is walked through __pairs, which
-- LuaJIT's pairs ignores (review 11: dlb.roofline.gemm(m, n, k, device) said "unknown option
-- 'attn_eff'" under dlbench and, under LuaJIT, "bad argument #1 to 'hw_precision_id'").
function M.unknown(t, valid, fname, noun, accepted)
  local bad -- made only when a key is refused: every option table of a build passes here
  local mt = getmetatable(t)
  local iter, st, k0 = next, t, nil
  if type(mt) == "table" and type(rawget(mt, "__pairs")) == "function" then iter, st, k0 = mt.__pairs(t) end
  for k in iter, st, k0 do
    if not (valid[k] or accepts(valid, k)) then
      bad = bad or {}
      bad[#bad + 1] = k
    end
  end
  if bad == nil then return nil end
  table.sort(bad, keyorder)
  return M.message(bad[1], valid, fname, noun, accepted)
end

-- Check opts (nil means {}) against `valid` (a set or a list) for function `fname`; returns
-- opts. `level` is error()'s level as seen by the caller of check (default 2: the caller's
-- caller, i.e. the user's call of fname). With `required`, a missing table is an error too.
function M.check(opts, valid, fname, level, required)
  level = (level or 2) + 1
  if opts == nil and not required then return {} end
  if type(opts) ~= "table" then
    error(string.format("%s: options must be a table, got %s", fname, type(opts)), level)
  end
  local msg = M.unknown(opts, valid, fname)
  if msg then error(msg, level) end
  return opts
end

-- Switches: each key of `names` (a list) in opts must be nil or a boolean, else an error
-- naming the option and fname ("f: option 'x' must be true or false, got number 0"): Lua
-- reads 0 and "no" as true, so a switch given 0 would be on. level as M.check's.
function M.switches(opts, names, fname, level)
  local msg = M.switch_error(opts, names, fname)
  if msg then error(msg, (level or 2) + 1) end
end

-- The message of M.switches for the first of `names` that is not nil or a boolean, or nil
-- (for callers that raise in their own way, as dlb.read_csv at the user's line). hint, when
-- given, follows "true or false" in parentheses.
function M.switch_error(opts, names, fname, hint)
  for _, k in ipairs(names) do
    local v = opts[k]
    if v ~= nil and type(v) ~= "boolean" then
      return string.format("%s: option '%s' must be true or false%s, got %s", fname, k,
        hint and (" (" .. hint .. ")") or "",
        type(v) == "table" and "a table" or (type(v) .. " " .. tostring(v)))
    end
  end
end

-- An option that holds one spec table or a list of them (dlb.sweep's pareto=, top=,
-- heatmap=, group_by=): nil, false and {} are none; a table with named fields is one spec; a
-- list holds specs. Each spec is checked against `valid` as M.check does; anything else (a
-- number, a string, a list entry that is not a table, a list with named fields too) is an
-- error naming the option (fname, e.g. "dlb.sweep.layouts top") and what was given, never an
-- index error. Returns the list of specs. level as M.check's; 0: no position in the message.
-- shape, when given, describes the accepted forms in that message (the caller's own).
function M.specs(x, valid, fname, level, shape)
  level = level == 0 and 0 or (level or 2) + 1
  if x == nil or x == false then return {} end
  shape = shape or ("a table {" .. M.names(valid) .. "} or a list of them")
  local function got(v) return type(v) .. (type(v) == "table" and "" or (" " .. tostring(v))) end
  if type(x) ~= "table" then
    error(string.format("%s must be %s, got %s", fname, shape, got(x)), level)
  end
  if x[1] == nil then
    if next(x) == nil then return {} end
    local msg = M.unknown(x, valid, fname)
    if msg then error(msg, level) end
    return { x }
  end
  for _, k in ipairs(M.keys(x)) do
    if type(k) ~= "number" or k ~= math.floor(k) or k < 1 or k > #x then
      error(string.format("%s must be %s, got a list with the field '%s'", fname, shape, tostring(k)), level)
    end
  end
  for i, sp in ipairs(x) do
    local name = string.format("%s[%d]", fname, i)
    if type(sp) ~= "table" then
      error(string.format("%s must be a table {%s}, got %s", name, M.names(valid), got(sp)), level)
    end
    local msg = M.unknown(sp, valid, name)
    if msg then error(msg, level) end
  end
  return x
end

return M
