-- test_help.lua — dlbench.help (the text help(x) prints) under both backends.
local T = require "harness"
local dlb = require "dlbench"
local help = require "dlbench.help"
local doc = require "dlbench.doc"

T.test("a documented function: signature and meaning", function()
  local s = help.text(dlb.version)
  assert(s:find("dlb.version() -> string", 1, true), s)
  assert(s:find("the library version", 1, true), s)
end)

T.test("help() lists dlb's modules and functions", function()
  local s = help.text()
  assert(s:find("Modules and functions of dlb:", 1, true), s)
  assert(s:find("dlb.version() -> string", 1, true), s)
  assert(s:find("dlb.pretty(x [, opts]) -> string", 1, true), s)
end)

T.test("help(dlb): the module and its members", function()
  local s = help.text(dlb)
  assert(s:find("^dlb\n"), s)
  assert(s:find("Members:", 1, true), s)
  assert(s:find("dlb.version() -> string", 1, true), s)
end)

T.test("help of a dotted name", function()
  local s = help.text("dlb.pretty.format")
  assert(s:find("dlb.pretty.format(x [, opts]) -> string", 1, true), s)
  s = help.text("dlb.no.such")
  assert(s:find("'dlb.no.such' does not name a value", 1, true), s)
end)

T.test("every alias a help text names ('also dlb.x.y') is reachable and the same function", function()
  -- dlb.pretty.si's help says "(also dlb.graph.si)": that name must work, under both
  -- backends, and be the same function (a session found it reported as unreachable)
  local function resolve(name)
    local v = dlb
    for part in name:gsub("^dlb%.?", ""):gmatch("[^.]+") do
      if type(v) ~= "table" then return nil end
      v = v[part]
    end
    return v
  end
  local n, seen = 0, {}
  local function walk(t, depth)
    if seen[t] or depth > 3 then return end
    seen[t] = true
    for _, v in pairs(t) do
      local d = (type(v) == "function" or type(v) == "table") and doc.get(v)
      for alias in ((d and d.meaning) or ""):gmatch("also (dlb%.[%w_.]*[%w_])") do
        n = n + 1
        assert(resolve(alias) == v, alias .. " (named in " .. d.signature .. ") does not reach it")
      end
      if type(v) == "table" then walk(v, depth + 1) end
    end
  end
  walk(dlb, 1)
  assert(n >= 1, "no alias found (dlb.pretty.si names dlb.graph.si)")
  T.eq(dlb.graph.si(1.5e9, "FLOP"), "1.5 GFLOP")
  local s = help.text("dlb.graph.si")
  assert(s:find("dlb.pretty.si(x, unit) -> string", 1, true), s)
end)

T.test("help of dlb.parallel.calibrate_collective and the calibration it points to", function()
  local s = help.text("dlb.parallel.calibrate_collective")
  assert(s:find("dlb.parallel.calibrate_collective(cluster, rows[, opts]) -> cluster, fit", 1, true), s)
  assert(s:find("nccl-tests", 1, true), s)
  s = help.text(require("dlbench.calibrate").collective)
  assert(s:find("{gpus=, bytes=, time=[, per_node=, label=]}", 1, true), s)
  assert(s:find("least squares in log time", 1, true), s)
end)

T.test("objects list the documented methods of their metatable", function()
  local methods = {}
  function methods.area(self) return self.w * self.h end
  doc.doc(methods.area, "r:area() -> number", "width times height")
  local r = setmetatable({ w = 2, h = 3 }, { __index = methods })
  local s = help.text(r)
  assert(s:find("Members:", 1, true) and s:find("r:area() -> number", 1, true), s)
end)

T.test("no help: a clear message", function()
  local s = help.text(12345)
  assert(s:find("no help for 12345", 1, true) and s:find("help()", 1, true), s)
  s = help.text(string.format)
  assert(s:find("string.format", 1, true) and s:find("standard library", 1, true), s)
  s = help.text(function() end)
  assert(s:find("no help for", 1, true), s)
  s = help.text(nil)
  assert(s:find("no help for nil", 1, true), s)
end)

-- Every module of dlb (and its submodules), every function it exports and every method of
-- the object classes it registers (doc.methods) has help, reachable from the module:
-- help(dlb.table.pivot) works as help(t.pivot) does.
T.test("every module function and object method has help reachable from its module", function()
  local missing, seen = {}, {}
  local function walk(name, mod, depth)
    if seen[mod] or depth > 3 then return end
    seen[mod] = true
    if type(mod) == "function" then
      if not doc.get(mod) then missing[#missing + 1] = name end
      return
    end
    if type(mod) ~= "table" then return end
    -- own string keys and the module's __index table (the exposed methods)
    local keys = {}
    for k in pairs(mod) do if type(k) == "string" then keys[#keys + 1] = k end end
    local mt = getmetatable(mod)
    if type(mt) == "table" and type(rawget(mt, "__index")) == "table" then
      for k in pairs(rawget(mt, "__index")) do if type(k) == "string" then keys[#keys + 1] = k end end
    end
    table.sort(keys)
    for _, k in ipairs(keys) do
      if k:sub(1, 1) ~= "_" and k ~= "core" then
        local v = mod[k]
        if type(v) == "function" then
          if not doc.get(v) then missing[#missing + 1] = name .. "." .. k end
        elseif type(v) == "table" and doc.get(v) then
          walk(name .. "." .. k, v, depth + 1)
        end
      end
    end
  end
  for _, k in ipairs(dlb.lazy_names) do walk("dlb." .. k, dlb[k], 1) end
  -- every method of every registered class, and its name on the module
  local classes = doc.classes()
  assert(#classes >= 10, "classes registered: " .. #classes)
  for _, c in ipairs(classes) do
    for k, f in pairs(c.methods) do
      if type(k) == "string" and type(f) == "function" and k:sub(1, 2) ~= "__" then
        if not doc.get(f) then missing[#missing + 1] = c.name .. ":" .. k end
        -- (a module's data field of the same name wins: dlb.hw.precisions is the list)
        local mv = c.module[k]
        if type(mv) == "function" and not doc.get(mv) then
          missing[#missing + 1] = "module of " .. c.name .. "." .. k
        end
      end
    end
  end
  table.sort(missing)
  T.eq(table.concat(missing, " "), "")
  -- the issue's case
  local s = help.text(dlb.table.pivot)
  assert(s:find("t:pivot(x, y, value[, agg])", 1, true), s)
  s = help.text("dlb.graph.stats")
  assert(s:find("g:stats{", 1, true), s)
end)

T.done()
