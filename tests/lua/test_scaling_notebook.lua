-- test_scaling_notebook.lua — notebooks/hestness_scaling.lua runs to the end under this
-- backend (with or without dlb.plot / dlb.models / dlb.hw) and prints its tables.
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
  local ok, err = pcall(dofile, root() .. "/notebooks/hestness_scaling.lua")
  print = saved -- luacheck: ignore
  assert(ok, err)
  return table.concat(lines, "\n")
end

T.test("hestness_scaling notebook runs", function()
  local text = run_notebook()
  for _, want in ipairs { "== Table 1", "== Table 3", "== Table 2", "== Figures 6-10",
                          "Word LMs (LSTM)", "Image Classification (ResNet)",
                          "compute-optimal exponents" } do
    assert(text:find(want, 1, true), "missing: " .. want)
  end
  -- the word LM Table 1 row: ours 103.8x data vs the paper's 100x
  assert(text:find("103.8x", 1, true), "word LM data scale not printed")
end)

-- The notebook's paths for the zoo, the plot front-end and the hardware catalogue, with
-- stand-ins that follow DESIGN.md's API: a zoo whose graphs cost exactly Table 2's formulas
-- (so the fitted constants must equal the paper's), a figure that records its calls, and
-- dlb.hw.define returning its argument.
T.test("notebook with stand-ins for dlb.models, dlb.plot, dlb.hw", function()
  local S = require("dlbench").scaling
  local function graph_for(key, size, b)
    local c = S.domains[key].costs
    local p = 1e6 * size * size
    return { stats = function()
      return { params = p, flops = c.flops_per_param * b * p,
               bytes = c.lambda * p + c.mu * b * math.sqrt(p),
               footprint = c.footprint_per_param * p }
    end }
  end
  local models = {}
  for key, builder in pairs { word_lm = "word_lm", char_lm = "char_lm", nmt = "nmt",
                              speech = "speech", image = "resnet" } do
    models[builder] = function(o)
      local size = o.hidden or o.width
      if not size then error("unknown option") end
      return graph_for(key, size / 64, o.batch)
    end
  end
  local saved = 0
  local Fig = {}
  Fig.__index = Fig
  function Fig:line(t) assert(#t.x == #t.y and #t.x > 0) end
  function Fig:scatter(t) assert(#t.x == #t.y and #t.x > 0) end
  function Fig:save(path) assert(path:match("^out/hestness_.*%.png$")); saved = saved + 1; return true end
  local plot = { figure = function() return setmetatable({}, Fig) end }
  local hw = { define = function(t) return t end }
  -- dlb caches lazily loaded modules in itself: hide the real ones while stubbed
  local dlb = require "dlbench"
  local cached, loaded = {}, {}
  for _, k in ipairs { "models", "plot", "hw" } do
    cached[k], loaded[k] = rawget(dlb, k), package.loaded["dlbench." .. k]
    rawset(dlb, k, nil)
  end
  package.loaded["dlbench.models"], package.loaded["dlbench.plot"] = models, plot
  package.loaded["dlbench.hw"] = hw
  local ok, text = pcall(run_notebook)
  for _, k in ipairs { "models", "plot", "hw" } do
    rawset(dlb, k, cached[k])
    package.loaded["dlbench." .. k] = loaded[k]
  end
  assert(ok, text)
  T.eq(saved, 5, "figures 6-10 saved")
  assert(text:find("dlb.hw.define with Table 4", 1, true), "device from dlb.hw")
  -- every domain's fitted constants equal Table 2's: the % differences print as +0.0% or -0.0%
  for _, k in ipairs(S.domain_names) do
    local name = S.domains[k].name:gsub("%p", "%%%0")
    local line = text:match("\n  " .. name .. "[^\n]*FLOPs/param %(paper[^\n]*")
    assert(line, "no Table 2 line for " .. k)
    assert(line:find("[+-]0%.0%%"), line)
  end
end)

T.done()
