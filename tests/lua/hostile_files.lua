-- hostile_files.lua — the hostile inputs of issue 23 ("hostile files, round two"), made
-- here instead of committed: ONNX protobuf bytes written by hand (a small protobuf encoder
-- over onnx.proto's field numbers), deep JSON, traces. Runs under Lua 5.4 and LuaJIT.
--   require "hostile_files"                       the builders (tests/lua/test_hostile_files.lua)
--   dlbench run tests/lua/hostile_files.lua DIR   writes the fuzzers' deep seeds into DIR/onnx,
--                                                 DIR/json and DIR/trace (tests/fuzz/run.sh
--                                                 SEEDS=DIR; BENCHMARKS.md)
local M = {}

-- == protobuf wire format (https://protobuf.dev/programming-guides/encoding/) ============
-- An int64 as a varint: a negative number as its 64-bit two's complement, ten bytes (the
-- complement of -x - 1's 7-bit groups, then bit 63; x above -2^53, where doubles are exact
-- integers); a non-negative one in 7-bit groups (any integer-valued double).
local function varint(x)
  if type(x) ~= "number" or x ~= math.floor(x) or x == math.huge or x <= -2 ^ 53 then
    error("varint: an integer (above -2^53) expected, got " .. tostring(x), 2)
  end
  local out = {}
  if x < 0 then
    local y = -x - 1
    for i = 1, 9 do
      local b = y % 128
      y = (y - b) / 128
      out[i] = string.char(127 - b + 128)
    end
    out[10] = string.char(1)
    return table.concat(out)
  end
  repeat
    local b = x % 128
    x = (x - b) / 128
    out[#out + 1] = string.char(b + (x > 0 and 128 or 0))
  until x == 0
  return table.concat(out)
end
local function key(f, wire) return varint(f * 8 + wire) end
local function int(f, v) return key(f, 0) .. varint(v) end
local function bytes(f, s) return key(f, 2) .. varint(#s) .. s end
M.varint, M.int, M.bytes = varint, int, bytes

-- onnx.proto field numbers: ModelProto ir_version 1, opset_import 8, graph 7;
-- OperatorSetIdProto version 2; GraphProto node 1, name 2, initializer 5, input 11,
-- output 12; NodeProto input 1, output 2, name 3, op_type 4, attribute 5; AttributeProto
-- name 1, i 3, g 6, ints 8, type 20; ValueInfoProto name 1, type 2; TypeProto tensor_type
-- 1, sequence_type 4 (Sequence elem_type 1); Tensor elem_type 1, shape 2; TensorShapeProto
-- dim 1 (Dimension dim_value 1, dim_param 2); TensorProto dims 1, data_type 2, name 8.
function M.tensor_type(elem, dims)
  local d = {}
  for i, x in ipairs(dims) do
    d[i] = bytes(1, type(x) == "number" and int(1, x) or bytes(2, x))
  end
  return bytes(1, int(1, elem) .. bytes(2, table.concat(d)))
end
function M.value_info(name, typ) return bytes(1, name) .. bytes(2, typ) end
function M.node(op, ins, outs, name, attrs)
  local s = {}
  for _, x in ipairs(ins) do s[#s + 1] = bytes(1, x) end
  for _, x in ipairs(outs) do s[#s + 1] = bytes(2, x) end
  s[#s + 1] = bytes(3, name or op) .. bytes(4, op)
  for _, a in ipairs(attrs or {}) do s[#s + 1] = bytes(5, a) end
  return table.concat(s)
end
function M.attr_ints(name, list)
  local s = { bytes(1, name), int(20, 7) }
  for _, v in ipairs(list) do s[#s + 1] = int(8, v) end
  return table.concat(s)
end
function M.attr_graph(name, graph) return bytes(1, name) .. int(20, 5) .. bytes(6, graph) end
function M.initializer(name, dims)
  local s = {}
  for _, d in ipairs(dims) do s[#s + 1] = int(1, d) end
  return table.concat(s) .. int(2, 1) .. bytes(8, name)
end
-- GraphProto from {nodes=, inputs=, outputs=, inits=} (each a list of message bodies)
function M.graph(g)
  local s = { bytes(2, g.name or "g") }
  for _, n in ipairs(g.nodes or {}) do s[#s + 1] = bytes(1, n) end
  for _, t in ipairs(g.inits or {}) do s[#s + 1] = bytes(5, t) end
  for _, v in ipairs(g.inputs or {}) do s[#s + 1] = bytes(11, v) end
  for _, v in ipairs(g.outputs or {}) do s[#s + 1] = bytes(12, v) end
  return table.concat(s)
end
function M.model(graph, opset)
  return int(1, 8) .. bytes(8, int(2, opset or 13)) .. bytes(7, graph)
end

-- x [batch, 4] -> Relu -> y: a model that imports; parts replaced by the hostile variants
function M.relu_model(o)
  o = o or {}
  local x = o.x or "x"
  local nodes = o.nodes or { M.node("Relu", { x }, { "y" }) }
  return M.model(M.graph { nodes = nodes,
    inputs = { M.value_info(x, M.tensor_type(1, o.dims or { "batch", 4 })) },
    outputs = { M.value_info("y", M.tensor_type(1, { "batch", 4 })) } }, o.opset)
end

-- a graph input whose TypeProto nests depth times through sequence_type.elem_type
-- (issue 23 item 1: 5,000 levels crashed protobuf-c's unpack)
function M.onnx_deep_type(depth)
  local t = M.tensor_type(1, { 1 })
  for _ = 1, depth do t = bytes(4, bytes(1, t)) end
  return M.model(M.graph { inputs = { M.value_info("x", t) } })
end

-- If nodes nested depth times through their then_branch attribute
function M.onnx_deep_graph(depth)
  local g = M.graph { name = "leaf" }
  for i = 1, depth do
    g = M.graph { name = "g" .. i, nodes = { M.node("If", { "c" }, { "o" }, "if" .. i,
      { M.attr_graph("then_branch", g) }) } }
  end
  return M.model(g)
end

-- Conv over x [1, 3, 8, 8] with W [4, 3, 3, 3] and the given kernel_shape
function M.onnx_conv(kernel_shape)
  return M.model(M.graph {
    nodes = { M.node("Conv", { "x", "W" }, { "y" }, "conv", { M.attr_ints("kernel_shape", kernel_shape) }) },
    inits = { M.initializer("W", { 4, 3, 3, 3 }) },
    inputs = { M.value_info("x", M.tensor_type(1, { 1, 3, 8, 8 })) },
    outputs = { M.value_info("y", M.tensor_type(1, { 1, 4, 6, 6 })) } })
end

-- == JSON ==================================================================================
function M.json_deep(n) return string.rep("[", n) .. string.rep("]", n) end
-- a config.json with one key n levels deep
function M.config_deep(n)
  return '{"model_type": "gpt2", "n_layer": 2, "deep": ' .. string.rep('{"a": ', n) .. "1"
    .. string.rep("}", n) .. "}"
end

-- == traces ================================================================================
-- n complete events, each named name (default "aten::mm")
function M.trace(n, name)
  local ev = {}
  for i = 1, n do
    ev[i] = string.format('{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1, "tid": 1, '
      .. '"ts": %d, "dur": 1}', name or "aten::mm", 10 * i)
  end
  return '{"traceEvents": [' .. table.concat(ev, ",\n") .. "]}"
end

-- == the fuzzers' seeds ====================================================================
function M.write_seeds(dir)
  local function put(sub, name, s)
    assert(os.execute("mkdir -p '" .. dir .. "/" .. sub .. "'"))
    local f = assert(io.open(dir .. "/" .. sub .. "/" .. name, "wb"))
    f:write(s)
    f:close()
  end
  put("onnx", "deep-type-5000", M.onnx_deep_type(5000))
  put("onnx", "deep-type-20", M.onnx_deep_type(20))
  put("onnx", "deep-if-400", M.onnx_deep_graph(400))
  put("onnx", "deep-if-20", M.onnx_deep_graph(20))
  put("onnx", "dup-output", M.relu_model { nodes = { M.node("Relu", { "x" }, { "y" }, "a"),
    M.node("Relu", { "x" }, { "y" }, "b") } })
  put("onnx", "conv-kernel", M.onnx_conv({ 3, 3 }))
  put("json", "deep-400000", M.json_deep(400000))
  put("json", "config-deep-100000", M.config_deep(100000))
  put("trace", "deep-args", '[{"name": "a", "args": ' .. string.rep("[", 100000) .. "]")
  put("trace", "events-2000", M.trace(2000))
  put("trace", "long-name", M.trace(2, string.rep("n", 200000)))
end

-- run as a script (not required: `require` passes the module name as ...)
if arg and arg[0] and (arg[0]:find("[/\\]hostile_files%.lua$") or arg[0] == "hostile_files.lua")
   and select("#", ...) > 0 and (...) ~= "hostile_files" then
  M.write_seeds((...))
end
return M
