-- dlbench.ffi_proc — FFI wrappers of the proc area: the same functions, names, arguments
-- and results as host/lproc.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
