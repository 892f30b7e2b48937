-- dlbench.help — the text that help(x) prints, read from the help registered with
-- dlbench.doc next to each public function and module. Returns strings; the host's global
-- `help` prints them.
--   help()        dlbench's modules and top-level functions
--   help(x)       x's signature and meaning, and the documented members of a module or
--                 object (fields, methods of its metatable's __index tables)
--   help("a.b")   the same for the value a dotted name leads to
local doc = require "dlbench.doc"

local M = {}

local stdlibs = { "string", "table", "math", "io", "os", "coroutine", "debug", "utf8",
  "package", "bit", "jit", "ffi" }

local function entry(d)
  return "  " .. d.signature .. "\n      " .. d.meaning
end

-- The value a dotted name ("dlb.hw.get") leads to from the globals, or nil.
local function resolve(name)
  local v = _G
  if rawget(_G, "dlb") == nil then -- under LuaJIT there is no global dlb
    v = setmetatable({ dlb = require "dlbench" }, { __index = _G })
  end
  for part in name:gmatch("[^.:]+") do
    if type(v) ~= "table" and type(v) ~= "userdata" then return nil end
    local ok, f = pcall(function() return v[part] end)
    if not ok then return nil end
    v = f
  end
  return v
end

-- A name for a value found among the globals and the loaded modules, or nil.
-- The string keys of t, sorted: the walks below never nest a next() loop inside another
-- (LuaJIT #827, docs/security.md), and a value with two names gets the same one every time.
local function sorted_names(t)
  local ks = {}
  for k in next, t do
    if type(k) == "string" then ks[#ks + 1] = k end
  end
  table.sort(ks)
  return ks
end

local function nameof(x)
  local globals = sorted_names(_G)
  for _, k in ipairs(globals) do
    if rawget(_G, k) == x then return k end
  end
  for _, k in ipairs(globals) do
    local t = rawget(_G, k)
    if type(t) == "table" and k ~= "_G" and k ~= "package" then
      for _, k2 in ipairs(sorted_names(t)) do
        if rawget(t, k2) == x then return k .. "." .. k2 end
      end
    end
  end
  for _, mod in ipairs(sorted_names(package.loaded)) do
    local t = package.loaded[mod]
    if type(t) == "table" then
      for _, k2 in ipairs(sorted_names(t)) do
        if rawget(t, k2) == x then return mod .. "." .. k2 end
      end
    end
  end
  return nil
end

local function isstd(name)
  if name == nil then return false end
  local lib = name:match("^([%a_][%w_]*)%.")
  if lib == nil then return rawget(_G, name) ~= nil and type(rawget(_G, name)) == "function" end
  for _, l in ipairs(stdlibs) do
    if l == lib then return true end
  end
  return false
end

-- Documented members of a table or object: its own string keys, names it loads lazily
-- (loaded now, protected: a module that fails to load is listed with its error), and
-- the string keys of its metatables' __index tables (methods).
local function members(x)
  local seen, names, lines = {}, {}, {}
  local function collect(t)
    for k in next, t do
      if type(k) == "string" and not seen[k] then seen[k] = true; names[#names + 1] = k end
    end
  end
  local failed = {}
  if type(x) == "table" then
    collect(x)
    local lazy = rawget(x, "lazy_names")
    if type(lazy) == "table" then
      for _, k in ipairs(lazy) do
        if rawget(x, k) == nil then
          local ok, err = pcall(function() return x[k] end)
          if not ok then
            failed[k] = require("dlbench.errors").strip(err):match("^[^\n]*"):gsub(":$", "")
          end
        end
        if not seen[k] then seen[k] = true; names[#names + 1] = k end
      end
    end
  end
  local mt, depth = getmetatable(x), 0
  while type(mt) == "table" and type(rawget(mt, "__index")) == "table" and depth < 16 do
    collect(rawget(mt, "__index"))
    mt, depth = getmetatable(rawget(mt, "__index")), depth + 1
  end
  table.sort(names)
  for _, k in ipairs(names) do
    local v
    if type(x) == "table" then v = rawget(x, k) end
    if v == nil then
      local ok, got = pcall(function() return x[k] end)
      if ok then v = got end
    end
    local d = v ~= nil and doc.get(v)
    if d then
      lines[#lines + 1] = entry(d)
    elseif failed[k] then
      lines[#lines + 1] = "  " .. k .. "  (cannot load: " .. failed[k] .. ")"
    end
  end
  return lines
end

-- The help text of x (see the header); a clear message when there is none.
function M.text(...)
  local n = select("#", ...)
  local x = ...
  if n == 0 then
    local dlb = require "dlbench"
    local out = { "dlbench " .. dlb.version() .. " — help(x) for any dlbench module or function, "
      .. "e.g. help(dlb.hw) or help(\"dlb.version\")", "Modules and functions of dlb:" }
    for _, l in ipairs(members(dlb)) do out[#out + 1] = l end
    return table.concat(out, "\n")
  end
  local name
  if type(x) == "string" then
    name = x
    x = resolve(x)
    if x == nil then
      return "no help: '" .. name .. "' does not name a value (help() lists dlbench's modules)"
    end
  else
    name = nameof(x)
  end
  local out = {}
  local d = doc.get(x)
  if d then out[1] = d.signature .. "\n  " .. d.meaning end
  if type(x) == "table" or type(x) == "userdata" then
    local lines = members(x)
    if #lines > 0 then
      out[#out + 1] = (d and "" or ((name or tostring(x)) .. "\n")) .. "Members:"
      for _, l in ipairs(lines) do out[#out + 1] = l end
    end
  end
  if #out > 0 then return table.concat(out, "\n") end
  local what = name or (type(x) == "string" and x) or tostring(x)
  if type(x) == "function" and isstd(name) then
    return "no dlbench help for " .. what .. ": it is part of Lua's standard library "
      .. "(see the Lua 5.4 reference manual, https://www.lua.org/manual/5.4/)"
  end
  return "no help for " .. what .. " (a " .. type(x) .. " without registered help; "
    .. "help() lists dlbench's modules)"
end
doc.doc(M.text, "dlbench.help.text([x]) -> string",
  "the text help(x) prints: signature, meaning and documented members of x")

doc.doc(M, "dlbench.help", "the help system: help(x) in the REPL and scripts")
return M
