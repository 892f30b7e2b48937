-- test_scaling_notebook.lua — notebooks/hestness_scaling.lua runs to the end under this
-- backend (with or without dlb.plot / dlb.models / dlb.hw) and prints its tables.
local T = require "harness"

local function root()
  local src = debug.getinfo(1, "S").source
  local dir = (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
  return dir .. "/../.."
end

T.test("hestness_scaling notebook runs", function()
  local lines = {}
  local saved = print
  print = function(...) -- luacheck: ignore
    local t = {}
    for i = 1, select("#", ...) do t[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(t, "\t")
  end
  local ok, err = pcall(dofile, root() .. "/notebooks/hestness_scaling.lua")
  print = saved -- luacheck: ignore
  assert(ok, err)
  local text = table.concat(lines, "\n")
  for _, want in ipairs { "== Table 1", "== Table 3", "== Table 2", "== Figures 6-10",
                          "Word LMs (LSTM)", "Image Classification (ResNet)",
                          "compute-optimal exponents" } do
    assert(text:find(want, 1, true), "missing: " .. want)
  end
  -- the word LM Table 1 row: ours 103.8x data vs the paper's 100x
  assert(text:find("103.8x", 1, true), "word LM data scale not printed")
end)

T.done()
