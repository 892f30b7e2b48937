-- test_memory.lua — library (C) memory is counted and Lua's collector learns of it
-- (graphs/base/alloc.c, lua/dlbench/memory.lua), on both backends.
local T = require "harness"
local dlb = require "dlbench"

T.test("a graph's memory is counted and freed with it", function()
  collectgarbage() collectgarbage()
  local base = dlb.memory.in_use()
  local g = dlb.models.resnet{depth = 50}
  local with = dlb.memory.in_use()
  assert(with > base + 10000, ("resnet-50 graph counted: %g -> %g bytes"):format(base, with))
  g = nil -- luacheck: ignore
  collectgarbage() collectgarbage()
  assert(dlb.memory.in_use() < with, "freed with the graph")
end)

T.test("dropped graphs do not pile up in C memory", function()
  -- A notebook holding 400k small tables makes Lua's cycles rare; each of these graphs
  -- leaves ~40 KB of C memory behind that Lua's collector cannot see. Measured with
  -- dlb.memory.step_bytes = 4e15 (no accounting): C memory in flight peaked at 153 MB
  -- (capi) and 167 MB (ffi); with the accounting, 32 MB and 19 MB.
  local ballast = {}
  for i = 1, 400000 do ballast[i] = { i } end
  collectgarbage() collectgarbage()
  local base, peak = dlb.memory.in_use(), 0
  for i = 1, 4000 do
    local g = dlb.models.paradnn.fc{layers = 8, nodes = 64 + i % 7, batch = 16}
    assert(g:stats{}.params > 0)
    peak = math.max(peak, dlb.memory.in_use() - base)
  end
  assert(#ballast == 400000)
  assert(peak < 64 * 1048576, ("C memory in flight peaked at %.1f MB"):format(peak / 1048576))
end)

T.test("account is documented and callable", function()
  dlb.memory.account()
  assert(dlb.doc.get(dlb.memory.account))
end)

T.done()
