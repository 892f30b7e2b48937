-- test_core.lua — the package loads under either backend and reports its versions.
local T = require "harness"
local dlb = require "dlbench"

T.test("backend is named", function()
  assert(dlb.backend == "capi" or dlb.backend == "ffi")
  if os.getenv("DLB_BACKEND") == "ffi" then T.eq(dlb.backend, "ffi", "backend") end
end)

T.test("versions", function()
  assert(dlb.version():match("^%d+%.%d+%.%d+$"), dlb.version())
  T.eq(dlb.core.abi_version(), 0, "ABI version (0 before 1.0; graphs/dlbench.h)")
end)

T.test("help text is registered", function()
  local d = dlb.doc.get(dlb.version)
  assert(d and d.signature:find("dlb.version", 1, true))
end)

T.test("unknown names are nil, not errors", function()
  T.eq(dlb.no_such_thing, nil, "dlb.no_such_thing")
end)

T.done()
