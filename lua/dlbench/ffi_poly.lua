-- dlbench.ffi_poly — FFI wrappers of the poly area: the same functions, names, arguments
-- and results as host/lpoly.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
