-- dlbench.ffi — the LuaJIT FFI backend: the same functions as the C-API binding in host/,
-- over libdlbench.so. Declarations come from lua/dlbench/ffi_cdef.lua, generated from the
-- public header at build time; the ABI version is checked on load. Each area's wrappers
-- live in lua/dlbench/ffi_<area>.lua.
local ffi = require "ffi"

ffi.cdef(require "dlbench.ffi_cdef")

local function here()
  local src = debug.getinfo(1, "S").source
  return (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
end

-- Find libdlbench: $DLBENCH_LIB, the loader's search path (LD_LIBRARY_PATH), the source
-- tree's build/lib, an install's lib/.
local function load()
  local dir = here() -- .../lua/dlbench
  local cands = {
    os.getenv("DLBENCH_LIB"), "dlbench",
    dir .. "/../../build/lib/libdlbench.so",
    dir .. "/../../../../lib/libdlbench.so",
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
  error("dlbench.ffi: cannot load libdlbench (" .. table.concat(errs, "; ")
    .. "); set DLBENCH_LIB or LD_LIBRARY_PATH", 0)
end

local C = load()
if C.dlb_abi_version() ~= C.DLB_ABI_VERSION then
  error(string.format("dlbench.ffi: libdlbench ABI %d, declarations expect %d: rebuild",
    C.dlb_abi_version(), C.DLB_ABI_VERSION), 0)
end

local M = { name = "ffi", C = C, ffi = ffi }

-- Raise the core's last message (without a position: like the C-API binding).
function M.error()
  error(ffi.string(C.dlb_last_error()), 0)
end

-- Raise the core's message unless status is DLB_OK; returns nothing.
function M.check(status)
  if status ~= 0 then M.error() end
end

function M.version() return ffi.string(C.dlb_version()) end
function M.abi_version() return C.dlb_abi_version() end
function M.memory_in_use() return C.dlb_memory_in_use() end

for _, area in ipairs { "poly", "graph", "hw", "roofline", "stats", "scaling",
                        "parallel", "proc", "plot", "energy", "measure", "import", "file" } do
  require("dlbench.ffi_" .. area)(M, C, ffi)
end
return M
