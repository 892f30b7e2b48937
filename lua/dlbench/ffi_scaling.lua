-- dlbench.ffi_scaling — FFI wrappers of the scaling area: the same functions, names, arguments
-- and results as host/lscaling.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
