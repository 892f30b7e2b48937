-- test_format_backends.lua — string.format prints the same text under both backends
-- (lua/dlbench/ffi_format.lua). Lua 5.4 formats %e %f %g with the C library's printf, which
-- rounds a value exactly halfway between two outputs to even; LuaJIT 2.1's own formatter
-- rounded it away from zero, so notebooks/deepbench.lua printed 62% (Lua 5.4) / 63% (LuaJIT)
-- for 100 x 100 / 160 = 62.5 and notebooks/validation.lua 218.2 / 218.3 for 218.25. And %d of
-- 3.5 was an error under Lua 5.4 and printed 3 under LuaJIT. Every expected string here is
-- what C's printf (glibc) writes, the rule Lua 5.4 follows (lstrlib.c: l_sprintf). Runs under
-- both backends.
local T = require "harness"
require "dlbench" -- under LuaJIT, loading the FFI backend installs its string.format
local fmt = string.format

T.test("halfway values round to even, as C's printf", function()
  -- each value is exact in binary, so it lies exactly halfway at the printed precision
  local cases = {
    { "%.0f", 62.5, "62" }, { "%.0f", 63.5, "64" }, { "%.0f", 0.5, "0" }, { "%.0f", 1.5, "2" },
    { "%.0f", 2.5, "2" }, { "%.0f", -2.5, "-2" }, { "%.1f", 218.25, "218.2" },
    { "%.1f", 7996.25, "7996.2" }, { "%.4f", 0.78125, "0.7812" }, { "%.2f", 0.125, "0.12" },
    { "%.3g", 1.125, "1.12" }, { "%.4g", 1670.5, "1670" }, { "%.2e", 1.125e-3, "1.12e-03" },
    { "%.1E", 2.25, "2.2E+00" }, { "%.3G", 3.125e20, "3.12E+20" },
    { "%13.0f%%", 100 * 100 / 160, "           62%" }, -- notebooks/deepbench.lua's column
  }
  for _, c in ipairs(cases) do
    T.eq(fmt(c[1], c[2]), c[3], c[1] .. " of " .. c[2])
  end
  T.eq(("%.1f"):format(218.25), "218.2", "the method form (the string metatable)")
  T.eq(fmt("%.1f", 218.26), "218.3", "a value off the halfway point")
end)

T.test("widths, flags and other conversions beside the float ones", function()
  T.eq(fmt("%-6s|%5d|%8.3f|%s", "ab", 42, 3.14159, "z"), "ab    |   42|   3.142|z", "mixed")
  T.eq(fmt("%+g %#.0f %08.2f % e", 2.5, 3, -1.25, 1), "+2.5 3. -0001.25  1.000000e+00", "flags")
  T.eq(fmt("%5.1f%% of %d", 12.25, 7), " 12.2% of 7", "a literal %")
  T.eq(fmt("%f", "1.5"), "1.500000", "a numeric string")
  T.eq(fmt("%.17g", "0.5") .. fmt("%.17g", 0.1), "0.50.10000000000000001", "one conversion alone")
  T.eq(fmt("%g %g %.17g", 2 ^ 53, 1e15, 0.1), "9.0072e+15 1e+15 0.10000000000000001", "%g")
  T.eq(#fmt("%.99f", 1e300), 401, "a long result")
  T.eq(fmt("%.1f %g %e", 1 / 0, -1 / 0, 1 / 0), "inf -inf inf", "infinities")
  local a, b = fmt("%.1f", 0 / 0), fmt("%.1f", -(0 / 0))
  T.eq((a < b) and a .. " " .. b or b .. " " .. a, "-nan nan", "a NaN prints its sign, as printf")
  T.eq(fmt("%d %x %c", 3.0, 255.0, 65), "3 ff A", "an integral float where an integer goes")
  T.eq(fmt("no conversion"), "no conversion", "plain text")
end)

T.test("a number where the core takes a string: its text as C's printf writes it", function()
  -- host/lbind.c's dlbG_numtext writes %.17g with snprintf; the FFI glue's copy
  -- (lua/dlbench/ffi_rt.lua) used LuaJIT's formatter: 2^-25 = 2.98023223876953125e-08 lies
  -- halfway at the 17th digit, and the message read ...313e-08 under LuaJIT
  local core = require "dlbench.backend"
  T.checkerr("unknown precision '2.9802322387695312e-08'", core.hw_precision_id, 2 ^ -25)
  T.checkerr("unknown precision '12345678'", core.hw_precision_id, 12345678)
end)

T.test("formats while the string methods are hidden (dlbench.dataload's sandbox)", function()
  -- dataload empties the string metatable's __index while a catalogue runs, and its hook
  -- formats its message then: the FFI backend's format called fmt:find and failed
  -- ("attempt to call method 'find'"); a format never seen before, so it is parsed here
  local smt = getmetatable("")
  local index = smt.__index
  smt.__index = {}
  local ok, s = pcall(string.format, "%s: sandboxed after %d steps (%.1f%%)", "x", 5, 2.25)
  smt.__index = index
  T.eq(ok and s or tostring(s), "x: sandboxed after 5 steps (2.2%)", "format in the sandbox")
end)

T.test("refused as Lua 5.4 refuses", function()
  T.checkerr("number has no integer representation", fmt, "%d", 3.5)
  T.checkerr("number has no integer representation", fmt, "%5.1f %x", 1, 0.5)
  T.checkerr("number has no integer representation", fmt, "%d", "3.5")
  T.checkerr("#2", fmt, "%.1f", nil)
  T.checkerr("#3", fmt, "%.1f %d", 1)
  T.checkerr("#3", fmt, "%.1f %.1f", 1)
end)

T.done()
