-- dlbench.ffi_hw — FFI wrappers of the hw area: the same functions, names, arguments
-- and results as host/lhw.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
  local function id(name)
    if type(name) ~= "string" then
      error("bad argument #1 (string expected, got " .. type(name) .. ")", 0)
    end
    local i = C.dlb_precision_id(name)
    if i < 0 then core.error() end
    return i
  end

  function core.hw_precision_id(name) return id(name) end
  function core.hw_precision_bytes(name) return C.dlb_precision_bytes(id(name)) end
  function core.hw_precisions()
    local t = {}
    for i = 0, C.DLB_PREC_COUNT - 1 do t[i + 1] = ffi.string(C.dlb_precision_name(i)) end
    return t
  end
end
