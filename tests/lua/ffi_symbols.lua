-- ffi_symbols.lua — (LuaJIT only) every function declared in the generated FFI
-- declarations resolves in libdlbench.so, and the ABI check passed.
local T = require "harness"
local core = require "dlbench.ffi"
local cdef = require "dlbench.ffi_cdef"

T.test("every declared function resolves", function()
  local n, missing = 0, {}
  -- a declaration: `type name(args);` possibly with `*` before name
  for name in cdef:gsub("/%*.-%*/", ""):gmatch("([%a_][%w_]*)%s*%b()%s*;") do
    n = n + 1
    local ok = pcall(function() return core.C[name] end)
    if not ok then missing[#missing + 1] = name end
  end
  assert(n >= 3, "found only " .. n .. " declarations")
  assert(#missing == 0, "unresolved: " .. table.concat(missing, ", "))
end)

T.done()
