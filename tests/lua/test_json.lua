-- test_json.lua — dlbench.json's writer (dlbench plan --json, the Jupyter kernel's replies)
-- under both backends: what has a JSON form is written the same way on both, what has none
-- is an error naming it (it was dropped without a word).
local T = require "harness"
local J = require "dlbench.json"

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

T.done()
