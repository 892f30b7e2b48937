-- dlbench.ffi_stats — FFI wrappers of the stats area: the same functions, names, arguments
-- and results as host/lstats.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
