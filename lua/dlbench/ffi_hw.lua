-- dlbench.ffi_hw — FFI wrappers of the hw area: the same functions, names, arguments
-- and results as host/lhw.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
