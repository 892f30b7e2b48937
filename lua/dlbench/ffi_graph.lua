-- dlbench.ffi_graph — FFI wrappers of the graph area: the same functions, names, arguments
-- and results as host/lgraph.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
