-- dlbench.ffi — the LuaJIT FFI backend: the same functions as the C-API binding in host/,
-- over libdlbench.so and libdlbench_proc.so (the worker pool of sweeps, proc/). Declarations
-- come from lua/dlbench/ffi_cdef.lua and ffi_cdef_proc.lua, generated from the public
-- headers at build time; the ABI version is checked on load. The generated wrappers are
-- lua/dlbench/ffi_gen.lua; the hand-written ones, lua/dlbench/ffi_<area>.lua.
local L = require "dlbench.ffi_lib"
local ffi, C, P = L.ffi, L.C, L.P

local M = { name = "ffi", C = C, P = P, ffi = ffi, error = L.error, check = L.check }

-- The generated functions (host/bindings.lua), then the hand-written areas (modules of
-- their own over dlbench.ffi_lib).
require("dlbench.ffi_gen")(M, C, ffi, { proc = P })
for _, area in ipairs { "dlbench.ffi_stats", "dlbench.ffi_proc" } do
  for k, f in pairs(require(area)) do M[k] = f end
end
-- core.table_new(n): an empty table with room for n array entries (host/lcore.c says why;
-- the capi backend's lua_createtable), checked as the generated functions check an integer
do
  local R, tnew = require "dlbench.ffi_rt", require "table.new"
  local MAX = 2 ^ 24   -- host/lcore.c DLB_TABLE_NEW_MAX: n is a hint, the room made at most this
  function M.table_new(n)
    return tnew(math.min(R.integer(n, 1, "table_new", 0, 0x7fffffff), MAX), 0)
  end
end
-- the allocation policy the dlbench executable sets at start (graphs/base/sys.c says why)
M.sys_malloc_tune()
-- the JIT's machine-code limits, process-wide like the allocation policy (docs/graph.md,
-- "Speed"): 4 MB code areas up to 64 MB and 20,000 traces instead of LuaJIT's 32 KB areas,
-- 512 KB and 1,000 traces. With the defaults a long script fills the small areas and the
-- trace limit, so the JIT flushes and recompiles and write-protects each small area anew
-- (16,565 mprotect calls in notebooks/validation.lua, 5-6 s of system time on this VM).
-- A host that wants other limits calls jit.opt.start after requiring dlbench.
require("jit.opt").start("sizemcode=4096", "maxmcode=65536", "maxtrace=20000")
-- string.format prints numbers as Lua 5.4's does (halfway values to even, %d of a fraction
-- refused), process-wide too: lua/dlbench/ffi_format.lua says why
require("dlbench.ffi_format").install()
return M
