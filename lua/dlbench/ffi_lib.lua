-- dlbench.ffi_lib — libdlbench and libdlbench_proc loaded through LuaJIT's FFI, with the
-- declarations generated from the public headers (lua/dlbench/ffi_cdef.lua and
-- ffi_cdef_proc.lua) and the ABI version checked: what the FFI backend (dlbench.ffi) and its
-- hand-written areas (ffi_stats.lua, ffi_proc.lua) share. Returns {C = libdlbench,
-- P = libdlbench_proc, ffi = ffi, error = raise the core's message, check = raise unless OK}.
local ffi = require "ffi"

ffi.cdef(require "dlbench.ffi_cdef")
ffi.cdef(require "dlbench.ffi_cdef_proc")

local function here()
  local src = debug.getinfo(1, "S").source
  return (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
end

-- Find libdlbench (name "dlbench") or libdlbench_proc ("dlbench_proc"): $DLBENCH_LIB (the
-- path of libdlbench.so; libdlbench_proc.so is looked for beside it), the loader's search
-- path (LD_LIBRARY_PATH), the source tree's build/lib, an install's lib/. libdlbench is
-- loaded first: libdlbench_proc's NEEDED entry then finds it by its SONAME.
local function load(name)
  local dir = here() -- .../lua/dlbench
  local env = os.getenv("DLBENCH_LIB")
  if env and name ~= "dlbench" then
    local d = env:match("^(.*/)[^/]*$")
    env = d and d .. "lib" .. name .. ".so"
  end
  local cands = {
    env, name,
    dir .. "/../../build/lib/lib" .. name .. ".so",
    dir .. "/../../../../lib/lib" .. name .. ".so",
  }
  local errs = {}
  for i = 1, #cands + 1 do
    local c = cands[i]
    if c and c ~= "" then
      local ok, lib = pcall(ffi.load, c)
      if ok then return lib end
      errs[#errs + 1] = tostring(lib)
    end
  end
  error("dlbench.ffi: cannot load lib" .. name .. " (" .. table.concat(errs, "; ")
    .. "); set DLBENCH_LIB or LD_LIBRARY_PATH", 0)
end

local C = load("dlbench")
local P = load("dlbench_proc")
if C.dlb_abi_version() ~= C.DLB_ABI_VERSION then
  error(string.format("dlbench.ffi: libdlbench ABI %d, declarations expect %d: rebuild",
    C.dlb_abi_version(), C.DLB_ABI_VERSION), 0)
end

local M = { C = C, P = P, ffi = ffi }

-- Raise the core's last message (without a position: like the C-API binding).
function M.error()
  error(ffi.string(C.dlb_last_error()), 0)
end

-- Raise the core's message unless status is DLB_OK; returns nothing.
function M.check(status)
  if status ~= 0 then M.error() end
end

return M
