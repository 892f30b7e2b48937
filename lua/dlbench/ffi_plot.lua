-- dlbench.ffi_plot — FFI wrappers of the plot area: the same functions, names, arguments
-- and results as host/lplot.c adds to `dlbench.core`.
return function(core, C, ffi) -- luacheck: ignore
end
