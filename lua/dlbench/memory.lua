-- dlbench.memory — library (C) memory made visible to Lua's garbage collector, the same way
-- on both backends. Graphs, analyses, op-cost sets and figures live in C memory that Lua's
-- collector does not count: a sweep that drops thousands of graphs would otherwise keep
-- hundreds of MB alive until the (small) Lua heap happens to trigger a cycle. Every place
-- that makes such an object calls M.account(), which runs a collector step as if Lua had
-- allocated the C bytes grown since the last step (collectgarbage("step", KB): "as if it
-- had allocated that amount of memory", Lua 5.4 manual 6.1; LuaJIT takes the same
-- argument). See docs/architecture.md, "Memory".
local core = require "dlbench.backend"
local doc = require "dlbench.doc"

local M = {}

-- Grow this much (bytes) before a step: small enough to bound the C memory waiting for a
-- cycle, large enough that the step's cost is spread over many objects.
M.step_bytes = 4 * 1048576

local last = 0

function M.account()
  local now = core.memory_in_use()
  local grown = now - last
  if grown >= M.step_bytes then
    collectgarbage("step", math.floor(grown / 1024))
    last = core.memory_in_use()
  elseif grown < 0 then
    last = now -- freed since: count growth from here
  end
end
doc.doc(M.account, "dlb.memory.account()", "tell Lua's collector about library memory "
  .. "allocated since the last call (called by dlbench itself when it makes C objects)")

function M.in_use() return core.memory_in_use() end
doc.doc(M.in_use, "dlb.memory.in_use() -> bytes", "library (C) memory live in this process: "
  .. "graphs, analyses, op-cost sets, figures")

return M
