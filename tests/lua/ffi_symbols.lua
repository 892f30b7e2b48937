-- ffi_symbols.lua — (LuaJIT only) every function declared in the generated FFI
-- declarations resolves in its library: ffi_cdef.lua's in libdlbench.so, ffi_cdef_proc.lua's
-- in libdlbench_proc.so and NOT in libdlbench.so (the numeric core holds no process
-- control: docs/architecture.md, "Layers"); and the ABI check passed.
local T = require "harness"
local core = require "dlbench.ffi"

-- the function names a generated declaration text declares: `type name(args);`, possibly
-- with `*` before name
local function declared(cdef)
  local names = {}
  for name in cdef:gsub("/%*.-%*/", ""):gmatch("([%a_][%w_]*)%s*%b()%s*;") do names[#names + 1] = name end
  return names
end

local function resolves(lib, name)
  return (pcall(function() return lib[name] end))
end

T.test("every declared function resolves", function()
  for _, c in ipairs { { "dlbench.ffi_cdef", core.C, 100 }, { "dlbench.ffi_cdef_proc", core.P, 10 } } do
    local names, missing = declared(require(c[1])), {}
    for _, name in ipairs(names) do
      if not resolves(c[2], name) then missing[#missing + 1] = name end
    end
    assert(#names >= c[3], c[1] .. ": found only " .. #names .. " declarations")
    assert(#missing == 0, c[1] .. ": unresolved: " .. table.concat(missing, ", "))
  end
end)

T.test("libdlbench_proc's functions are not in libdlbench", function()
  local names, found = declared(require "dlbench.ffi_cdef_proc"), {}
  for _, name in ipairs(names) do
    assert(name:match("^dlb_proc_"), name .. ": libdlbench_proc's names start with dlb_proc_")
    -- a library's namespace resolves a declared name when the library or what it links
    -- (libc, not libdlbench_proc) defines it
    if resolves(core.C, name) then found[#found + 1] = name end
  end
  assert(#found == 0, "in libdlbench.so: " .. table.concat(found, ", "))
end)

T.done()
