-- test_scaling_notebook.lua — notebooks/hestness_scaling.lua runs to the end under this
-- backend, prints its tables (Table 3 from our graphs, Table 2 fitted from them) and writes
-- Figures 6-10.
local T = require "harness"

local function root()
  local src = debug.getinfo(1, "S").source
  local dir = (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
  return dir .. "/../.."
end

-- Run the notebook, returning what it printed.
local function run_notebook()
  local lines = {}
  local saved = print
  print = function(...) -- luacheck: ignore
    local t = {}
    for i = 1, select("#", ...) do t[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(t, "\t")
  end
  -- every figure it saves passes f:layout_check() (for test_figures_out, which leaves this
  -- notebook to this test)
  local ok, err, nsaved, problems = T.layout_checked(function()
    dofile(root() .. "/notebooks/hestness_scaling.lua")
  end)
  print = saved -- luacheck: ignore
  assert(ok, err)
  assert(nsaved >= 5, "figures saved: " .. nsaved)
  T.eq(table.concat(problems, "\n"), "", "layout_check of its figures")
  return table.concat(lines, "\n")
end

T.test("hestness_scaling notebook runs", function()
  local text = run_notebook()
  for _, want in ipairs { "== Table 1", "== Table 3", "== Table 2", "== Figures 6-10",
                          "Word LMs (LSTM)", "Image Classification (ResNet)",
                          "(c) our graphs", "Device: Hestness-T4 (catalogue)",
                          "compute-optimal exponents" } do
    assert(text:find(want, 1, true), "missing: " .. want)
  end
  -- the word LM Table 1 row: ours 103.8x data vs the paper's 100x
  assert(text:find("103.8x", 1, true), "word LM data scale not printed")
  -- Table 3 (c), word LM from our graph at 23.8B params: 1441 TFLOP (paper 1444, -0.2%) and
  -- 114.9 s (paper 115, -0.1%); see tests/lua/test_scaling_graphs.lua for the derivation
  local row = text:match("%(c%) our graphs[^\n]*\n[^\n]*\n(Word LMs[^\n]*)")
  assert(row, "no Table 3 (c) word LM row")
  assert(row:find("1441", 1, true) and row:find("114.9", 1, true), row)
  -- Table 2 fitted from the graphs: one line per domain with gamma beside the paper's
  for _, k in ipairs(require("dlbench").scaling.domain_names) do
    local d = require("dlbench").scaling.domains[k]
    local name = d.name:gsub("%p", "%%%0")
    local line = text:match("\n" .. name .. " +[%d.]+[KMBT]? %- +[%d.]+[KMBT]? |[^\n]*")
    assert(line, "no Table 2 line for " .. k)
    assert(line:find(string.format(" %g ", d.costs.flops_per_param), 1, true), line)
  end
  for _, n in ipairs { "fig6_learning_curve", "fig7_flops", "fig8_bytes", "fig9_intensity",
                       "fig10_footprint" } do
    assert(text:find("wrote out/hestness_" .. n .. ".png", 1, true), "figure " .. n)
  end
end)

T.done()
