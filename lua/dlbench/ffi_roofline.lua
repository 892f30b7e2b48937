-- dlbench.ffi_roofline — FFI wrappers of the roofline area: the same functions, names, arguments
-- and results as host/lroofline.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
