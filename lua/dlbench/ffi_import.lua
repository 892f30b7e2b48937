-- dlbench.ffi_import — FFI wrappers of the importers: the same functions, arguments and
-- results as host/limport.c adds to `dlbench.core` (onnx_read, json_read, json_parse).
return function(core, C, ffi)
  local kind = ffi.new("int[1]")
  local count = ffi.new("double[1]")
  local facts = ffi.new("double[?]", C.DLB_ONNX_NFACTS)

  local function str(v, what)
    if type(v) ~= "string" then
      error(string.format("bad argument #1 to '%s' (string expected, got %s)", what, type(v)), 0)
    end
    return v
  end
  local function int(v, i, what)
    if type(v) ~= "number" or v ~= math.floor(v) then
      error(string.format("bad argument #%d to '%s' (number has no integer representation)", i, what), 0)
    end
    return v
  end

  function core.onnx_read(path, unknown, loss)
    str(path, "onnx_read")
    int(unknown, 2, "onnx_read")
    int(loss, 3, "onnx_read")
    local m = C.dlb_onnx_read(path, unknown, loss)
    if m == nil then core.error() end
    local rep = {}
    for i = 0, tonumber(C.dlb_onnx_nreport(m)) - 1 do
      local t = C.dlb_onnx_report(m, i, kind, count)
      rep[#rep + 1] = { ffi.string(t), kind[0], count[0] }
    end
    C.dlb_onnx_facts(m, facts, C.DLB_ONNX_NFACTS)
    local f = {}
    for i = 0, C.DLB_ONNX_NFACTS - 1 do f[i + 1] = facts[i] end
    local g = C.dlb_onnx_take_graph(m)
    C.dlb_onnx_free(m)
    if g == nil then core.error() end
    return ffi.gc(g, C.dlb_graph_free), rep, f
  end

  local ty = ffi.new("int[1]")
  local parent = ffi.new("int[1]")
  local num = ffi.new("double[1]")
  local key = ffi.new("const char *[1]")
  local s = ffi.new("const char *[1]")
  local function build(j)
    if j == nil then core.error() end
    j = ffi.gc(j, C.dlb_json_free)
    local refs, root = {}, nil
    for i = 0, tonumber(C.dlb_json_count(j)) - 1 do
      C.dlb_json_node(j, i, ty, parent, num, key, s)
      local t, v = ty[0], nil
      if t == C.DLB_JSON_NULL then v = nil
      elseif t == C.DLB_JSON_FALSE or t == C.DLB_JSON_TRUE then v = t == C.DLB_JSON_TRUE
      elseif t == C.DLB_JSON_NUMBER then v = num[0]
      elseif t == C.DLB_JSON_STRING then v = ffi.string(s[0])
      else v = {}; refs[i] = v end
      if v ~= nil then
        local p = parent[0]
        if p < 0 then root = v
        elseif key[0] ~= nil then refs[p][ffi.string(key[0])] = v
        else local a = refs[p]; a[#a + 1] = v end
      end
    end
    C.dlb_json_free(ffi.gc(j, nil))
    return root
  end

  function core.json_read(path)
    return build(C.dlb_json_read(str(path, "json_read")))
  end

  function core.json_parse(text, name)
    str(text, "json_parse")
    return build(C.dlb_json_parse(text, #text, name or "<text>"))
  end
end
