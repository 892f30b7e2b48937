-- test_hostile_files.lua — regressions for issue 23 ("hostile files, round two"): deep
-- ONNX and JSON, trace limits and the streaming summary, NUL bytes in names, ONNX accepted
-- too loosely, info_cli that raises, writers' failures, torn checkpoint lines. The hostile
-- inputs are made by tests/lua/hostile_files.lua. Runs under both backends.
local T = require "harness"
local H = require "hostile_files"
local dlb = require "dlbench"
local core = require "dlbench.backend"

local dir = T.tmpdir()
local function write(name, s)
  local p = dir .. "/" .. name
  local f = assert(io.open(p, "wb")); f:write(s); f:close()
  return p
end
local function onnx(name, s) return dlb.models.from_onnx(write(name .. ".onnx", s)) end

-- ------------------------------------------------------------- item 1: deep ONNX, no crash

T.test("onnx: a TypeProto nested 5,000 levels is refused before protobuf-c recurses", function()
  local s = H.onnx_deep_type(5000)
  T.eq(#s < 40000, true, "a small file (34 KB in the issue)")
  T.checkerr("messages nested deeper than 64 levels", onnx, "deep", s)
  T.checkerr("sequence_type.elem_type", onnx, "deep", s)
  T.checkerr("byte ", onnx, "deep", s)
  -- 20 levels are unpacked (and refused later, as a graph input that is not a tensor)
  T.checkerr("graph input 'x' is not a tensor", onnx, "deep20", H.onnx_deep_type(20))
end)

T.test("onnx: graphs nested through If then_branch are refused the same way", function()
  T.checkerr("messages nested deeper than 64 levels (...attribute.g", onnx, "if", H.onnx_deep_graph(400))
  T.checkerr("unsupported operator type: If", onnx, "if10", H.onnx_deep_graph(10))
  -- dlbench info says so in one line instead of a segfault
  local p = write("if.onnx", H.onnx_deep_graph(400))
  local ok, e = pcall(dlb.models.info_cli, { p })
  T.eq(ok, false, "info_cli raises")
  T.eq(tostring(e):find("^dlbench info: ") ~= nil and tostring(e):find("onnx '", 1, true) ~= nil, true, tostring(e))
end)

-- ------------------------------------------------------------- item 2: deep JSON, no crash

T.test("json: 400,000 nested brackets and a 10^6-deep key are refused while parsing", function()
  T.checkerr("json 'deep': byte 65: nesting deeper than 64", core.json_parse, H.json_deep(400000), "deep")
  local p = write("config.json", H.config_deep(1000000))
  T.checkerr("nesting deeper than 64", dlb.models.from_hf, p)
  -- 64 levels still parse
  local t = core.json_parse(H.json_deep(64), "ok")
  T.eq(type(t), "table", "64 levels parse")
  T.checkerr("nesting deeper than 64", core.json_parse, H.json_deep(65), "65")
  -- a file of tiny values is capped by count (memory), not only by its 64 MiB size
  T.checkerr("more than 4194304 values", core.json_parse, "[" .. string.rep("0,", 4194304) .. "0]", "wide")
end)

-- ------------------------------------------------------------- item 4: NUL in names

T.test("NUL bytes in names are errors, not cut: HF model_type, ONNX dim_param and tensor names", function()
  local p = write("nul.json", '{"model_type": "gpt2\\u0000evil", "n_layer": 2, "n_embd": 64, "n_head": 2}')
  T.checkerr("a NUL byte (\\u0000) inside a string", dlb.models.from_hf, p)
  T.checkerr("inside a key", core.json_parse, '{"a\\u0000b": 1}', "k")
  T.checkerr("NUL byte inside the string graph.input.type.tensor_type.shape.dim.dim_param", onnx,
    "nuldim", H.relu_model { dims = { "a\0b", 4 } })
  T.checkerr("NUL byte inside the string graph.input.name", onnx, "nulx",
    H.relu_model { x = "x\0evil", nodes = { H.node("Relu", { "x" }, { "y" }) } })
  T.checkerr("NUL byte inside the string graph.node.input", onnx, "nuln",
    H.relu_model { nodes = { H.node("Relu", { "x\0evil" }, { "y" }) } })
  T.checkerr("a NUL byte (\\u0000) inside 'name'", dlb.trace.parse,
    '[{"ph": "X", "name": "a\\u0000b", "ts": 1, "dur": 1}]')
end)

-- ------------------------------------------------------------- item 5: ONNX too loose

T.test("onnx: two writers of a value, opset 0 or 2^62, long names, Conv kernel_shape against W", function()
  T.eq(dlb.models.from_onnx(write("ok.onnx", H.relu_model())) ~= nil, true, "the base model imports")
  T.checkerr("value 'y' is written by two nodes: 0 'a' (Relu) and 1 'b' (Relu)", onnx, "dup",
    H.relu_model { nodes = { H.node("Relu", { "x" }, { "y" }, "a"), H.node("Relu", { "x" }, { "y" }, "b") } })
  T.checkerr("writes 'x', a graph input or initializer", onnx, "inw",
    H.relu_model { nodes = { H.node("Relu", { "x" }, { "x" }, "a"), H.node("Relu", { "x" }, { "y" }, "b") } })
  T.checkerr("version 0 of the default domain (ai.onnx) is outside 1..100", onnx, "op0", H.relu_model { opset = 0 })
  T.checkerr("version 4611686018427387904 of the default domain", onnx, "op62", H.relu_model { opset = 2 ^ 62 })
  T.checkerr("graph.input.name is a name of 600 bytes (at most 511)", onnx, "long",
    H.relu_model { x = string.rep("x", 600), nodes = { H.node("Relu", { "x" }, { "y" }) } })
  T.eq(dlb.models.from_onnx(write("n511.onnx", H.relu_model { x = string.rep("x", 511) })) ~= nil, true,
    "a 511-byte name imports")
  T.eq(dlb.models.from_onnx(write("conv.onnx", H.onnx_conv { 3, 3 })) ~= nil, true, "a consistent Conv")
  T.checkerr("kernel_shape[0] is 5 but the weight 'W' has 3 there", onnx, "conv5", H.onnx_conv { 5, 5 })
  T.checkerr("kernel_shape has 10 entries for 2 spatial axes", onnx, "conv10",
    H.onnx_conv { 2 ^ 40, 1, 1, 1, 1, 1, 1, 1, 1, 1 })
end)

-- ------------------------------------------------------------- item 3: trace limits

T.test("traces: max_events, max_bytes, max_string and max_text name the limit and the byte", function()
  local text = H.trace(50)
  T.eq(dlb.trace.parse(text):count(), 50, "within the defaults")
  T.checkerr("more than 10 events (the limit max_events", dlb.trace.parse, text, { max_events = 10 })
  T.checkerr("byte 1000: more than 1000 bytes of JSON after decompression (the limit max_bytes)",
    dlb.trace.parse, text, { max_bytes = 1000 })
  local long = H.trace(2, string.rep("n", 5000))
  T.checkerr("a string longer than 100 bytes (the limit max_string)", dlb.trace.parse, long, { max_string = 100 })
  T.checkerr("byte ", dlb.trace.parse, long, { max_string = 100 })
  T.checkerr("more than 3000 bytes of distinct text (the limit max_text)", dlb.trace.parse,
    H.trace(2, string.rep("n", 5000)) .. "", { max_text = 3000 })
  T.checkerr("max_events must be a number >= 1", dlb.trace.parse, text, { max_events = 0 })
  T.checkerr("unknown option", dlb.trace.parse, text, { max_event = 10 })
  -- the name is capped too (the args' 64 KiB cap did not cover it): the default max_string
  T.checkerr("(the limit max_string)", dlb.trace.parse, H.trace(1, string.rep("n", 70000)))
  -- a file: plain and gzip, max_bytes counts the JSON after decompression
  local p = write("t.json", text)
  T.eq(dlb.trace.read(p):count(), 50, "a plain file")
  T.checkerr("(the limit max_events", dlb.trace.read, p, { max_events = 49 })
  if os.execute("gzip -c '" .. p .. "' > '" .. p .. ".gz'") then
    T.eq(dlb.trace.read(p .. ".gz"):count(), 50, "the gzip file")
    T.checkerr("bytes of JSON after decompression (the limit max_bytes)", dlb.trace.read, p .. ".gz",
      { max_bytes = 2000 })
  end
  -- a long name repeated in every event becomes one Lua string per distinct text
  local t = dlb.trace.parse(H.trace(20, string.rep("m", 3000)))
  T.eq(#t:row(20).name, 3000, "the long name is whole")
end)

T.test("traces: dlb.trace.summary(path) streams and matches the summary of the table", function()
  local f = "tests/fixtures/traces/cnn_b32.pt.trace.json.gz"
  local a = dlb.trace.summary(dlb.trace.read(f))
  local b = dlb.trace.summary(f, { window = 50 })
  T.eq(tostring(b), tostring(a), "the same headline")
  T.eq(b.by_kind:count(), a.by_kind:count(), "the same op kinds")
  for i = 1, a.by_kind:count() do
    T.eq(b.by_kind:row(i).kind, a.by_kind:row(i).kind, "kind " .. i)
    T.near(b.by_kind:row(i).time, a.by_kind:row(i).time, 1e-9, "time " .. i)
  end
  -- a stream has no event cap: a file beyond max_events of read is summarised in windows
  local p = write("many.json", H.trace(3000))
  T.checkerr("(the limit max_events", dlb.trace.read, p, { max_events = 1000 })
  local s = dlb.trace.summary(p, { window = 100 })
  T.eq(s.by_kind:row(1).count, 3000, "every event counted")
  -- the stream's limits apply; events out of time order beyond a window are refused
  T.checkerr("dlb.trace.summary: ", dlb.trace.summary, p, { max_bytes = 5000 })
  T.checkerr("go back in time past an earlier batch", dlb.trace.summary,
    "tests/fixtures/traces/gpu_cuda_synthetic.json", { window = 1 })
  T.checkerr("apply to a path", dlb.trace.summary, dlb.trace.read(p), { max_bytes = 10 })
end)

-- ------------------------------------------------------------- item 6: writers

T.test("writers: nil and a message by default; dlb.write_errors('raise') raises at the caller", function()
  local t = dlb.table.new({ { a = 1 } }, { "a" })
  local bad = dir .. "/no/such/dir/x.csv"
  local ok, msg = t:to_csv(bad)
  T.eq(ok, nil, "nil")
  T.eq(type(msg) == "string" and #msg > 0, true, "and a message")
  -- the REPL prints what an expression returns: the message is shown
  T.eq(dlb.pretty.values(t:to_csv(bad)):find(msg, 1, true) ~= nil, true, "the REPL shows the message")
  T.eq(dlb.write_errors("raise"), "return", "the default mode")
  local ok2, e = pcall(function() return t:to_csv(bad) end)
  T.eq(ok2, false, "raises")
  T.eq(tostring(e):find("test_hostile_files.lua:%d+: ") ~= nil, true, "at the caller's line: " .. tostring(e))
  T.checkerr("save_csv", dlb.hw.save_csv, bad)
  T.eq(t:to_csv(dir .. "/ok.csv"), true, "a good write still returns true")
  T.eq(dlb.write_errors("return"), "raise", "back to the default")
  T.checkerr('mode must be "return" or "raise"', dlb.write_errors, "panic")
end)

-- ------------------------------------------------------------- item 7: torn checkpoint line

T.test("read_csv drops a torn last line (a checkpoint after a full disk) with a warning", function()
  local p = write("ck.csv", "batch,util,time\n64,0.5,1\n128,0.7,2\n256,0.")
  local t = dlb.read_csv(p)
  T.eq(t:count(), 2, "the whole rows")
  T.eq(t:row(2).util, 0.7, "intact")
  -- a torn line that is a whole record by chance ("256,0.9,3" cut to "256,0.9,"): only a
  -- reader that says the file is a checkpoint drops it
  p = write("ckw.csv", "batch,util,time\n64,0.5,1\n128,0.7,2\n256,0.9,")
  T.eq(dlb.read_csv(p):count(), 3, "read as written")
  T.eq(dlb.read_csv(p, { checkpoint = true }):count(), 2, "checkpoint = true drops it")
  T.checkerr("checkpoint must be a boolean", dlb.read_csv, p, { checkpoint = 1 })
  write("ck2.csv", 'batch,name\n64,"a"\n128,"b\nc')
  T.eq(dlb.read_csv(dir .. "/ck2.csv"):count(), 1, "a torn quoted field")
  -- a whole last record without a line break is read as it is; other damage stays an error
  T.eq(dlb.read_csv(write("ck3.csv", "batch,util\n64,0.5")):count(), 1, "no final newline")
  T.checkerr("record has 1 field", dlb.read_csv, write("ck4.csv", "batch,util\n64\n128,0.7\n"))
  -- a real checkpoint torn by a killed write reads, and the sweep repairs it as before
  local ck = dir .. "/sweep.csv"
  dlb.sweep({ b = { 1, 2, 3 } }, function(c) return { y = c.b * 2 } end, { checkpoint = ck, quiet = true })
  local f = assert(io.open(ck, "ab")); f:write("4"); f:close()
  T.eq(dlb.read_csv(ck):count(), 3, "the checkpoint reads")
  f = assert(io.open(ck, "ab")); f:write(","); f:close() -- "4,": a whole record by chance
  T.eq(dlb.read_csv(ck, { checkpoint = true }):count(), 3, "read as a checkpoint")
end)

-- ------------------------------------------------------------- info_cli never exits

T.test("dlb.models.info_cli raises on a usage error instead of exiting", function()
  T.checkerr("dlbench info: usage: dlbench info FILE", dlb.models.info_cli, {})
  T.checkerr("is not name=integer", dlb.models.info_cli, { "tests/fixtures/hf/gpt2.json", "b=x" })
  -- review 9: a word that is not a string is named (it raised "attempt to index a number value")
  T.checkerr("dlbench info: argument 2 (a number) is not name=integer", dlb.models.info_cli,
    { "tests/fixtures/hf/gpt2.json", 8 })
  T.checkerr("expected the argument list", dlb.models.info_cli, nil)
end)

T.test("the test writer's varint: negative int64s as ten-byte two's complement, not a hang", function()
  -- protobuf encoding (protobuf.dev, "Encoding": int64 -1 is ff ff ff ff ff ff ff ff ff 01)
  T.eq(H.varint(-1), string.rep("\255", 9) .. "\1", "-1")
  -- -2 = 0xfffffffffffffffe: fe, then eight ff, then 01
  T.eq(H.varint(-2), "\254" .. string.rep("\255", 8) .. "\1", "-2")
  -- -128 = ...ff80: 80 (group 0 is 0 with the continuation bit), ff x 8, 01
  T.eq(H.varint(-128), "\128" .. string.rep("\255", 8) .. "\1", "-128")
  T.eq(H.varint(300), "\172\2", "300 (the guide's example: ac 02)")
  T.eq(H.varint(0), "\0", "0")
  T.checkerr("an integer (above -2^53) expected, got 1.5", H.varint, 1.5)
  T.checkerr("an integer (above -2^53) expected", H.varint, -2 ^ 60)
  -- read back by the importer: a Trilu's offset k = -3 (a one-element int64 initializer),
  -- which the import report gives with the node's name
  local k = H.int(1, 1) .. H.int(2, 7) .. H.int(7, -3) .. H.bytes(8, "k")
  local m = H.model(H.graph { nodes = { H.node("Trilu", { "x", "k" }, { "y" }, "band") },
    inits = { k }, inputs = { H.value_info("x", H.tensor_type(1, { "seq", "seq" })) },
    outputs = { H.value_info("y", H.tensor_type(1, { "seq", "seq" })) } }, 14)
  local g = dlb.models.from_onnx(write("neg_k.onnx", m), { quiet = true, loss = "none" })
  T.eq(#g.import.trilu, 1, "one Trilu reported")
  T.eq(g.import.trilu[1].k, -3, "k = -3 decoded")
  T.eq(g.import.trilu[1].upper, true, "upper (the default)")
  T.eq(g.import.trilu[1].node, "node 0 'band'", "named")
end)

os.execute("rm -rf '" .. dir .. "'")
T.done()
