-- dlbench.backend — choose how the Lua library reaches libdlbench: the Lua 5.4 C-API
-- binding built into the `dlbench` host (`dlbench.core`), or LuaJIT's FFI
-- (`dlbench.ffi`). DLB_BACKEND=capi|ffi forces one. Both expose the same functions.
local want = os.getenv("DLB_BACKEND")
if want == "" then want = nil end
if want ~= nil and want ~= "capi" and want ~= "ffi" then
  error("DLB_BACKEND must be 'capi' or 'ffi', got '" .. want .. "'", 0)
end
if want == nil then
  want = package.preload["dlbench.core"] and "capi" or (jit and "ffi") or "capi"
end
if want == "ffi" then
  if not jit then error("DLB_BACKEND=ffi needs LuaJIT (this is " .. _VERSION .. ")", 0) end
  return require "dlbench.ffi"
end
if not package.preload["dlbench.core"] then
  error("the capi backend lives in the dlbench executable; under LuaJIT use DLB_BACKEND=ffi", 0)
end
return require "dlbench.core"
