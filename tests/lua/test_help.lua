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

T.done()
