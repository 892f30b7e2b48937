-- test_json.lua — dlbench.json's writer (dlbench plan --json, the Jupyter kernel's replies)
-- under both backends: what has a JSON form is written the same way on both, what has none
-- is an error naming it (it was dropped without a word). And the reader's nulls
-- (core.json_parse / json_read, host/bindings.lua json_tree): an object's null leaves the key
-- out; an array's null item is core.json_null, so later items keep their positions.
local T = require "harness"
local J = require "dlbench.json"
local core = require "dlbench.backend"

T.test("scalars, objects with sorted keys, arrays, NaN and infinities as null", function()
  T.eq(J.encode({ b = 1, a = "x\n", c = true }), '{"a":"x\\n","b":1,"c":true}', "object")
  T.eq(J.encode({ 1, 2.5, 0 / 0, math.huge }), "[1,2.5,null,null]", "array")
  T.eq(J.encode(J.array {}), "[]", "an empty array")
  T.eq(J.encode({}), "{}", "an empty table is an object")
  T.eq(J.encode({ a = { 1, { b = -math.huge } } }), '{"a":[1,{"b":null}]}', "nested")
end)

T.test("a list with a hole runs to its largest index on both backends", function()
  -- # of {1, nil, 3} is 3 under Lua 5.4 and 1 under LuaJIT: [1] dropped the 3
  T.eq(J.encode({ 1, nil, 3 }), "[1,null,3]", "hole")
  local t = { 1 }
  t[4] = 4
  T.eq(J.encode(t), "[1,null,null,4]", "holes at the end of the list part")
  T.checkerr("a list of 2 items with index 1000000000: too sparse", J.encode, { 1, [1e9] = 2 })
end)

T.test("no JSON form: an error naming the key", function()
  -- {1, 2, a = 3} was written [1,2]: a silently lost
  T.checkerr('a table with list items and the key "a" has no JSON form', J.encode, { 1, 2, a = 3 })
  T.checkerr('a table with list items and the key "a"', J.encode, { rows = { 1, a = 3 } })
  T.checkerr('keys 2 and "2" write the same JSON key', J.encode, { [2] = 1, ["2"] = 2 })
  T.checkerr("cannot encode a function", J.encode, { f = print })
end)

T.test("reader: an array's null item keeps the positions after it (core.json_null)", function()
  -- [1,null,3] was read as {1, 3}: the 3 at index 2, a silent wrong value
  local a = core.json_parse("[1,null,3]")
  T.eq(#a, 3); T.eq(a[1], 1); T.eq(a[2], core.json_null); T.eq(a[3], 3)
  T.eq(tostring(a[2]), "null")
  T.eq(getmetatable(a[2]), "dlbench.json_null")
  T.checkerr("dlb.core.json_null is read-only", function() a[2].x = 1 end)
  T.eq(next(core.json_null), nil)
  -- Whisper's config.json: "forced_decoder_ids": [[1, null], [2, 50359], [3, 50363]]
  local w = core.json_parse('{"forced_decoder_ids":[[1,null],[2,50359]],"pad":null,"n":[null]}')
  T.eq(w.forced_decoder_ids[1][1], 1); T.eq(w.forced_decoder_ids[1][2], core.json_null)
  T.eq(#w.forced_decoder_ids[1], 2); T.eq(w.forced_decoder_ids[2][2], 50359)
  T.eq(w.pad, nil, "an object's null leaves the key out (a config reader's default)")
  T.eq(#w.n, 1); T.eq(w.n[1], core.json_null)
  T.eq(core.json_parse("null"), nil, "a null document")
  -- written back as null: a reader-writer round trip keeps the array
  T.eq(J.encode(core.json_parse("[1,null,[null,2]]")), "[1,null,[null,2]]")
  T.eq(J.encode(core.json_parse('{"a":[null]}')), '{"a":[null]}')
end)

T.test("reader: a Hugging Face config with null array items builds (the readers read no arrays)", function()
  local f = assert(io.open("tests/fixtures/hf/llama-2-7b.json", "rb")); local text = f:read("*a"); f:close()
  local cfg = core.json_parse((text:gsub("^%s*{", '{"forced_decoder_ids":[[1,null],[2,3]],"suppress_tokens":[2,null,7],', 1)))
  T.eq(cfg.suppress_tokens[3], 7)
  local g = require("dlbench.models").from_hf(cfg)
  local base = require("dlbench.models").from_hf("tests/fixtures/hf/llama-2-7b.json")
  T.eq(g:stats().params, base:stats().params)
  T.eq(table.concat(g.hf.ignored, ","), "forced_decoder_ids,suppress_tokens")
end)

T.done()
