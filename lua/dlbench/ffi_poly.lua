-- dlbench.ffi_poly — FFI wrappers of the poly area: the same functions, names, arguments
-- and results as host/lpoly.c adds to `dlbench.core`.
return function(core, C, ffi)
  local function box(p)
    if p == nil then core.error() end
    return ffi.gc(p, C.dlb_poly_free)
  end
  core.poly_box = box

  function core.poly_parse(text)
    if type(text) ~= "string" then error("poly_parse: string expected, got " .. type(text), 2) end
    return box(C.dlb_poly_parse(text))
  end
  function core.poly_number(c) return box(C.dlb_poly_number(c)) end
  function core.poly_add(a, b) return box(C.dlb_poly_add(a, b)) end
  function core.poly_sub(a, b) return box(C.dlb_poly_sub(a, b)) end
  function core.poly_mul(a, b) return box(C.dlb_poly_mul(a, b)) end
  function core.poly_scale(a, c) return box(C.dlb_poly_scale(a, c)) end
  function core.poly_pow(a, n) return box(C.dlb_poly_pow(a, n)) end

  local small = ffi.new("char[256]")
  function core.poly_tostring(p)
    local n = tonumber(C.dlb_poly_tostring(p, small, 256))
    if n < 256 then return ffi.string(small, n) end
    local buf = ffi.new("char[?]", n + 1)
    C.dlb_poly_tostring(p, buf, n + 1)
    return ffi.string(buf, n)
  end

  function core.poly_vars(p)
    local t = {}
    for i = 0, tonumber(C.dlb_poly_nvars(p)) - 1 do t[i + 1] = ffi.string(C.dlb_poly_varname(p, i)) end
    return t
  end

  local vals = ffi.new("double[16]")
  function core.poly_evalv(p, values)
    for i = 1, #values do vals[i - 1] = values[i] end
    return C.dlb_poly_evalv(p, vals)
  end

  local varcache = setmetatable({}, { __mode = "k" })
  function core.poly_evalt(p, t)
    local vars = varcache[p]
    if not vars then vars = core.poly_vars(p); varcache[p] = vars end
    for i = 1, #vars do
      local v = t[vars[i]]
      if v == nil then return nil end
      if type(v) ~= "number" then error("poly: value of " .. vars[i] .. " must be a number, got " .. type(v), 0) end
      vals[i - 1] = v
    end
    return C.dlb_poly_evalv(p, vals)
  end

  local function bindarrays(names, values)
    local n = #names
    local cn = ffi.new("const char *[?]", n + 1)
    local cv = ffi.new("double[?]", n + 1)
    for i = 1, n do cn[i - 1] = names[i]; cv[i - 1] = values[i] end
    return n, cn, cv, names -- names keeps the Lua strings alive
  end
  core.bindarrays = bindarrays

  function core.poly_bind(p, names, values)
    local n, cn, cv, keep = bindarrays(names, values)
    local r = box(C.dlb_poly_bind(p, n, cn, cv))
    local _ = keep
    return r
  end

  local num = ffi.new("double[1]")
  function core.poly_number_value(p)
    if C.dlb_poly_is_number(p, num) ~= 0 then return num[0] end
    return nil
  end
  function core.poly_equal(a, b) return C.dlb_poly_equal(a, b) ~= 0 end
  function core.poly_degree(p) return C.dlb_poly_degree(p) end

  function core.poly_terms(p)
    local nv = tonumber(C.dlb_poly_nvars(p))
    local e = ffi.new("int[16]")
    local c = ffi.new("double[1]")
    local out = {}
    for i = 0, tonumber(C.dlb_poly_nterms(p)) - 1 do
      C.dlb_poly_term(p, i, c, e)
      local ex = {}
      for v = 0, nv - 1 do ex[v + 1] = e[v] end
      out[i + 1] = { c[0], ex }
    end
    return out
  end
end
