-- dlbench.ffi_parallel — FFI wrappers of the parallel area: the same functions, names, arguments
-- and results as host/lparallel.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
