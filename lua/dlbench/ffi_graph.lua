-- dlbench.ffi_graph — FFI wrappers of the graph area: the same functions, names, arguments
-- and results as host/lgraph.c adds to `dlbench.core`.
return function(core, C, ffi)
  -- Reused argument buffers (calls do not nest).
  local sbuf = ffi.new("const char *[1025]")
  local ibuf = ffi.new("int[1025]")
  local abuf = ffi.new("int[17]")

  -- Dims as C strings in sbuf; returns the count and the Lua strings (keep them alive).
  local function strs(t)
    if t == nil then return 0, nil, nil end
    local n = #t
    if n > 1024 then error("more than 1024 dims", 0) end
    local keep = t
    for i = 1, n do
      local v = t[i]
      local tv = type(v)
      if tv == "number" then
        if keep == t then keep = {} for k = 1, n do keep[k] = t[k] end end
        v = string.format("%.17g", v)
        keep[i] = v
      elseif tv ~= "string" then
        error("dim " .. i .. ": a number or a string expected, got " .. tv, 0)
      end
      sbuf[i - 1] = v
    end
    return n, sbuf, keep
  end

  local function ints(t, max, buf)
    if t == nil then return 0, nil end
    local n = #t
    if n > max then error("more than " .. max .. " values", 0) end
    for i = 1, n do buf[i - 1] = t[i] end
    return n, buf
  end

  function core.graph_new(name)
    local g = C.dlb_graph_new(name or "graph")
    if g == nil then core.error() end
    return ffi.gc(g, C.dlb_graph_free)
  end

  local id = ffi.new("int[1]")
  -- nil when dims is not a plain list of strings and numbers (as the C-API backend)
  function core.graph_tensor(g, name, role, dtype, dims)
    if type(dims) ~= "table" or getmetatable(dims) ~= nil then return nil end
    for i = 1, #dims do
      local tv = type(dims[i])
      if tv ~= "string" and tv ~= "number" then return nil end
    end
    local n, arr, keep = strs(dims)
    core.check(C.dlb_graph_tensor(g, name, role, dtype, n, arr, id))
    local _ = keep
    return id[0]
  end

  local outs = ffi.new("int[1024]")
  local nout = ffi.new("size_t[1]")
  function core.graph_op(g, typ, name, inputs, attrs, dims)
    local nin, cin = ints(inputs, 1024, ibuf)
    local nat, cat = ints(attrs, 16, abuf)
    local nd, cd, keep = strs(dims)
    core.check(C.dlb_graph_op(g, typ, name, nin, cin, nat, cat, nd, cd, outs, 1024, nout))
    local _ = keep
    local r = {}
    for i = 0, tonumber(nout[0]) - 1 do r[i + 1] = outs[i] end
    return r
  end

  local in2 = ffi.new("int[2]")
  local at2 = ffi.new("int[2]")
  function core.graph_op1(g, typ, name, a, b, x, y)
    in2[0] = a
    local nin = 1
    if b ~= nil then in2[1] = b; nin = 2 end
    at2[0] = x or 0
    at2[1] = y or 0
    core.check(C.dlb_graph_op(g, typ, name, nin, in2, 2, at2, 0, nil, outs, 1024, nout))
    return outs[0]
  end

  -- Layer builders (graphs/graph_layers.c): one call per layer.
  local o1, o2 = ffi.new("int[1]"), ffi.new("int[1]")
  local function dimarg(v)
    if type(v) == "number" then
      return string.format("%.17g", v) -- as strs() formats dims
    end
    if type(v) ~= "string" then error("a dim (a number or a string) expected, got " .. type(v), 0) end
    return v
  end
  -- name[, n]: with n the name is name .. n (nn.lua's automatic names)
  function core.graph_linear(g, x, nout, bias, name, n)
    if n ~= nil then name = name .. n end
    core.check(C.dlb_graph_linear(g, x, dimarg(nout), bias and 1 or 0, name, o1))
    return o1[0]
  end
  local cat8 = ffi.new("int[8]")
  function core.graph_conv(g, x, wdims, attrs, bias, name)
    local nd, cd, keep = strs(wdims)
    for i = 0, 7 do cat8[i] = attrs[i + 1] or 0 end
    core.check(C.dlb_graph_conv(g, x, nd, cd, cat8, bias and 1 or 0, name, o1))
    local _ = keep
    return o1[0]
  end
  function core.graph_norm(g, typ, x, name, n)
    if n ~= nil then name = name .. n end
    core.check(C.dlb_graph_norm(g, typ, x, name, o1))
    return o1[0]
  end
  function core.graph_embedding_layer(g, ids, vocab, dim, name, n)
    if n ~= nil then name = name .. n end
    core.check(C.dlb_graph_embedding_layer(g, ids, dimarg(vocab), dimarg(dim), name, o1))
    return o1[0]
  end
  function core.graph_lstm_cell(g, x, h, c, w, b)
    core.check(C.dlb_graph_lstm_cell(g, x, h, c, w, b, o1, o2))
    return o1[0], o2[0]
  end
  function core.graph_gru_cell(g, x, h, w, b, wn, un, bn)
    core.check(C.dlb_graph_gru_cell(g, x, h, w, b, wn, un, bn, o1))
    return o1[0]
  end
  function core.graph_rnn_cell(g, x, h, w, b)
    core.check(C.dlb_graph_rnn_cell(g, x, h, w, b, o1))
    return o1[0]
  end
  function core.graph_highway(g, x, s, w, b)
    core.check(C.dlb_graph_highway(g, x, s, w, b, o1))
    return o1[0]
  end

  function core.graph_opx(g, typ, name, a, b, attrs, dims)
    in2[0] = a
    local nin = 1
    if b ~= nil then in2[1] = b; nin = 2 end
    local nat, cat = ints(attrs, 16, abuf)
    local nd, cd, keep = strs(dims)
    if nd > 8 then error("more than 8 dims", 0) end
    core.check(C.dlb_graph_op(g, typ, name, nin, in2, nat, cat, nd, cd, outs, 1024, nout))
    local _ = keep
    return outs[0]
  end

  function core.graph_op_type(name)
    local t = C.dlb_graph_op_type(name)
    if t < 0 then return nil end
    return t
  end
  function core.graph_op_type_name(t) return ffi.string(C.dlb_graph_op_type_name(t)) end
  function core.graph_set_loss(g, t) core.check(C.dlb_graph_set_loss(g, t)) end
  function core.graph_layer(g, name) core.check(C.dlb_graph_layer(g, name)) end
  function core.graph_checkpoint(g, t) core.check(C.dlb_graph_checkpoint(g, t)) end
  function core.graph_freeze(g, t, frozen)
    if type(t) ~= "number" then error("graph_freeze: tensor id must be a number", 2) end
    core.check(C.dlb_graph_freeze(g, t, frozen and 1 or 0))
  end
  function core.graph_counts(g)
    return tonumber(C.dlb_graph_ntensors(g)), tonumber(C.dlb_graph_nops(g))
  end

  local i4 = ffi.new("int[4]")
  local buf = ffi.new("char[512]")
  function core.graph_tensor_info(g, t)
    core.check(C.dlb_graph_tensor_info(g, t, i4, i4 + 1, i4 + 2, i4 + 3))
    local nd, dt, role, prod = i4[0], i4[1], i4[2], i4[3]
    C.dlb_graph_tensor_name(g, t, buf, 512)
    local name = ffi.string(buf)
    local dims = {}
    for i = 0, nd - 1 do
      C.dlb_graph_tensor_dim(g, t, i, buf, 512)
      dims[i + 1] = ffi.string(buf)
    end
    return name, dims, dt, role, prod
  end

  function core.graph_dot(g)
    local n = tonumber(C.dlb_graph_dot(g, nil, 0))
    local b = ffi.new("char[?]", n + 1)
    C.dlb_graph_dot(g, b, n + 1)
    return ffi.string(b, n)
  end
  function core.graph_convention() return ffi.string(C.dlb_graph_convention()) end

  local function opts(opt, prec, rec, k, inf)
    local o = ffi.new("dlb_train_opts")
    o.optimizer, o.precision, o.recompute, o.recompute_k = opt, prec, rec, k
    o.inference = inf and 1 or 0
    return o
  end

  function core.graph_analyze(g, opt, prec, rec, k, inf, names, values, fuse)
    local n, cn, cv, keep = core.bindarrays(names, values)
    local o = opts(opt, prec, rec, k, inf)
    if fuse ~= nil then
      if type(fuse) ~= "number" or fuse ~= math.floor(fuse) then
        error("bad argument #9 (number has no integer representation)", 0)
      end
      o.fuse = fuse
    end
    local a = C.dlb_graph_analyze(g, o, n, cn, cv)
    local _ = keep
    if a == nil then core.error() end
    return ffi.gc(a, C.dlb_analysis_free)
  end

  function core.graph_symbolic(g, opt, prec, rec, k, inf, names, values)
    local n, cn, cv, keep = core.bindarrays(names, values)
    local out = ffi.new("dlb_poly *[?]", C.DLB_SYM_COUNT)
    core.check(C.dlb_graph_symbolic(g, opts(opt, prec, rec, k, inf), n, cn, cv, out))
    local _ = keep
    local r = {}
    for i = 0, C.DLB_SYM_COUNT - 1 do r[i + 1] = ffi.gc(out[i], C.dlb_poly_free) end
    local nops = ffi.new("size_t[1]")
    core.check(C.dlb_graph_step_nops(g, opts(opt, prec, rec, k, inf), nops))
    r.nops = tonumber(nops[0])
    return r
  end

  function core.graph_symbolic_type(g, typ, names, values)
    local n, cn, cv, keep = core.bindarrays(names, values)
    local p = C.dlb_graph_symbolic_type(g, typ, n, cn, cv)
    local _ = keep
    return core.poly_box(p)
  end

  local fields = { "params", "flops_fwd", "flops_bwd", "flops_update", "flops_recompute",
    "flops", "bytes", "io", "intensity", "footprint", "weights", "gradients", "optimizer",
    "activations", "workspace", "footprint_order", "footprint_heuristic", "nops",
    "ntensors", "nlayers", "trainable" }
  function core.analysis_totals(a)
    local t = ffi.new("dlb_totals")
    C.dlb_analysis_totals(a, t)
    local r = {}
    for _, f in ipairs(fields) do r[f] = t[f] end
    return r
  end

  function core.analysis_arrays(a)
    local n = tonumber(C.dlb_analysis_nops(a))
    local f, by = C.dlb_analysis_op_flops(a), C.dlb_analysis_op_bytes(a)
    local ph, ly, ty = C.dlb_analysis_op_phase(a), C.dlb_analysis_op_layer(a), C.dlb_analysis_op_type(a)
    local F, B, P, L, T = {}, {}, {}, {}, {}
    for i = 0, n - 1 do
      F[i + 1], B[i + 1], P[i + 1], L[i + 1], T[i + 1] = f[i], by[i], ph[i], ly[i], ty[i]
    end
    return F, B, P, L, T
  end

  function core.analysis_op_name(a, i)
    C.dlb_analysis_op_name(a, i, buf, 512)
    return ffi.string(buf)
  end

  local g4 = ffi.new("double[4]")
  function core.analysis_gemm(a, i)
    local rc = C.dlb_analysis_op_gemm(a, i, g4)
    if rc == C.DLB_ENOTFOUND then return nil end
    core.check(rc)
    return g4[0], g4[1], g4[2], g4[3]
  end

  function core.analysis_layers(a)
    local r = {}
    for i = 0, tonumber(C.dlb_analysis_nlayers(a)) - 1 do
      r[i + 1] = ffi.string(C.dlb_analysis_layer_name(a, i))
    end
    return r
  end

  local l6 = ffi.new("double[6]")
  function core.analysis_layer(a, i)
    core.check(C.dlb_analysis_layer(a, i, l6))
    return l6[0], l6[1], l6[2], l6[3], l6[4], l6[5]
  end

  function core.analysis_schedule(a)
    local n = tonumber(C.dlb_analysis_nops(a))
    local o = C.dlb_analysis_schedule(a)
    local r = {}
    for i = 0, n - 1 do r[i + 1] = o[i] end
    return r
  end

  local d1 = ffi.new("double[1]")
  function core.analysis_exact(a)
    core.check(C.dlb_analysis_footprint_exact(a, d1))
    return d1[0]
  end
end
