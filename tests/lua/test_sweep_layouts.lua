-- test_sweep_layouts.lua — dlb.sweep.layouts (lua/dlbench/sweep_layouts.lua): one
-- dlb.parallel.plan per model x device x GPU count, every fitting plan reduced as
-- dlb.sweep.model's rows are (keep, pareto, top, heat maps, group_by); its reduction specs'
-- errors, shared with dlb.sweep.model and dlb.sweep.reduce; a builder that returns no graph.
-- Split from test_sweep_model.lua (which kept the compiled per-op model's tests); its
-- checkpoints are in test_sweep_layouts_checkpoint.lua.
local T = require "harness"
local dlb = require "dlbench"

T.test("dlb.sweep.layouts: every fitting plan of dlb.parallel.plan, reduced", function()
  local function build(p) return dlb.models.gpt { layers = p.layers, hidden = 256, heads = 4, context = 256,
    vocab = 1000 } end
  local r = dlb.sweep.layouts(build, { layers = { 2, 4 }, gpus = { 8, 16 }, device = "A100-SXM4-80GB" },
    { plan = { batch = 64, precision = "mixed" }, keep = true, top = { k = 3, by = "step" },
      pareto = { minimize = { "step", "gpus" } } })
  local n, best = 0, math.huge
  for _, L in ipairs { 2, 4 } do
    -- the plan of the graph (review 10: the bare from_graph layers before, framework "none"
    -- where dlb.parallel.plan{graph = g} applies the family's default profile)
    local g = build { layers = L }
    for _, ng in ipairs { 8, 16 } do
      local hw = dlb.hw.get("A100-SXM4-80GB")
      local rows = dlb.parallel.plan { graph = g, hw = hw, cluster = dlb.parallel.cluster { per_node = 8,
        nodes = ng / 8, hw = hw }, batch = 64, precision = "mixed", table = false }
      n = n + #rows
      for _, row in ipairs(rows) do best = math.min(best, row.step) end
    end
  end
  T.eq(r.count, n)
  T.eq(r.rows:count(), n)
  T.near(r.top:row(1).step, best, 0, "best step")
  local t = r.rows:to_table()
  T.eq(t:where { gpus = 16 }:count() + t:where { gpus = 8 }:count(), n)
  assert(r.pareto:count() >= 1)
end)

-- Before the fix `top = 3` (and heatmap = 3, pareto = "x", group_by = true) indexed a number:
-- "attempt to index a number value (local 'tops')"; top = {k = 3} without by= and top = "step"
-- were dropped without a word. top is documented: a number is its k now (the time column,
-- `step` for layouts), anything else a named refusal (dlbench.options.specs). (fixes7)
T.test("dlb.sweep.layouts/model/reduce: top = k works; a wrong reduction spec is named", function()
  local function build(p) return dlb.models.gpt { layers = p.layers, hidden = 256, heads = 4, context = 256,
    vocab = 1000 } end
  local space = { layers = { 2 }, gpus = { 8 }, device = "A100-SXM4-80GB" }
  local po = { batch = 64, precision = "mixed" }
  local full = dlb.sweep.layouts(build, space, { plan = po, keep = true })
  local steps = full.rows:column("step")
  table.sort(steps)
  assert(#steps >= 3, "at least three fitting plans")
  for _, top in ipairs { 3, { k = 3 }, { k = 3, by = "step" } } do
    local r = dlb.sweep.layouts(build, space, { plan = po, top = top })
    T.eq(r.top:count(), 3, "three rows")
    for i = 1, 3 do T.near(r.top:row(i).step, steps[i], 0, "the i-th smallest step") end
  end
  local function L(o) o.plan = po; return dlb.sweep.layouts(build, space, o) end
  T.checkerr("dlb.sweep.layouts top must be a number k, a table {by, k, where} or a list of tables, got string step",
    L, { top = "step" })
  T.checkerr("dlb.sweep.layouts top[2] must be a table {by, k, where}, got number 5", L, { top = { { k = 2 }, 5 } })
  T.checkerr("dlb.sweep.layouts: top.k = 0: k must be 1..1000000", L, { top = 0 })
  T.checkerr("dlb.sweep.layouts heatmap must be a table {agg, value, where, x, y} or a list of them, got number 3",
    L, { heatmap = 3 })
  T.checkerr("dlb.sweep.layouts pareto must be a table {maximize, minimize, where} or a list of them, got string x",
    L, { pareto = "x" })
  T.checkerr("dlb.sweep.layouts group_by must be a table {keys, values, where} or a list of them, got boolean true",
    L, { group_by = true })
  T.checkerr("unknown option 'bye' for dlb.sweep.layouts top (did you mean 'by'?)", L, { top = { bye = "step" } })
  T.checkerr("dlb.sweep.layouts: keep must be true, false or a whole number >= 1 (the most rows kept), got number 0",
    L, { keep = 0 })
  -- review 9: plan options the sweep sets itself are refused, named; plan = {hw = V100}
  -- timed every row on the V100 under the space's device name, cluster = 32 devices gave
  -- rows of gpus = 8 with dp x tp = 32, layers = one model for every builder's
  local function with(k, v)
    local p = {}
    for kk, vv in pairs(po) do p[kk] = vv end
    p[k] = v
    return { plan = p }
  end
  local A = dlb.hw.get("A100-80GB")
  for k, v in pairs { hw = dlb.hw.get("V100-SXM2-16GB"), device = "V100-SXM2-16GB",
      cluster = dlb.parallel.cluster { per_node = 8, nodes = 4, hw = A }, devices = 32,
      layers = dlb.parallel.layers.from_graph(build { layers = 2 }), graph = build { layers = 2 },
      table = true } do
    T.checkerr("dlb.sweep.layouts: plan." .. k .. " is the sweep's own", dlb.sweep.layouts, build, space, with(k, v))
  end
  T.checkerr("dlb.sweep.layouts: plan must be a table of dlb.parallel.plan options, got string",
    dlb.sweep.layouts, build, space, { plan = "x" })
  -- dlb.sweep.reduce over the kept rows: the same rule, its own name
  T.eq(dlb.sweep.reduce(full.rows, { top = { k = 2, by = "step" } }).top:count(), 2)
  T.checkerr("dlb.sweep.reduce heatmap must be a table", dlb.sweep.reduce, full.rows, { heatmap = 3 })
  T.checkerr("dlb.sweep.reduce top must be a number k", dlb.sweep.reduce, full.rows, { top = "x" })
end)


-- A builder that does not return a graph: sweep.layouts said "parallel.plan: the layers carry
-- no precision ..." (the plan's complaint about what it was handed), not what was wrong.
T.test("dlb.sweep.layouts and model: a builder returning no graph is named", function()
  local space = { layers = { 2 }, gpus = { 8 }, device = "A100-SXM4-80GB" }
  for _, bad in ipairs { function() return 42 end, function() return {} end, function() return nil end } do
    T.checkerr("dlb.sweep.layouts: the builder must return a graph", function()
      dlb.sweep.layouts(bad, space, {})
    end)
    T.checkerr("dlb.sweep.model: the builder must return a graph", function()
      dlb.sweep.model(bad, { layers = { 2 }, device = "A100-SXM4-80GB" }, {})
    end)
  end
  T.checkerr("dlb.sweep.layouts: the builder failed: boom", function()
    dlb.sweep.layouts(function() error("boom", 0) end, space, {})
  end)
end)

-- review 13: dlb.sweep.layouts named dlb.sweep.model in the errors of the helpers it shares
-- (the builder, the devices, an empty space dim), and a device count that is not a number
-- reached "attempt to mod a 'string' with a 'number'" at a line of the library
T.test("dlb.sweep.layouts: its own name in the shared checks; gpus checked", function()
  local b = function(p) return dlb.models.gpt { layers = p.layers, hidden = 256, heads = 4, context = 256, vocab = 1000 } end
  local space = { layers = { 2 }, gpus = { 8 }, device = "A100-SXM4-80GB" }
  local function sp(k, v) return T.with(space, k, v) end
  T.checkerr("dlb.sweep.layouts: builder must be a function(options) -> graph or a zoo model's name, got nil",
    dlb.sweep.layouts, nil, space, {})
  T.checkerr("dlb.sweep.layouts: no zoo model 'gptx'", dlb.sweep.layouts, "gptx", space, {})
  T.checkerr("dlb.sweep.layouts: space.device[1]: unknown device 'H1000'", dlb.sweep.layouts, b, sp("device", "H1000"), {})
  T.checkerr("dlb.sweep.layouts: space.layers is empty", dlb.sweep.layouts, b, sp("layers", {}), {})
  T.checkerr("dlb.sweep.layouts: space.gpus[1] must be a whole number of devices >= 1, got string x",
    dlb.sweep.layouts, b, sp("gpus", { "x" }), {})
  T.checkerr("dlb.sweep.layouts: space.gpus[2] must be a whole number of devices >= 1, got number 0",
    dlb.sweep.layouts, b, sp("gpus", { 8, 0 }), {})
  local e = T.checkerr("dlb.sweep.layouts: unknown option 'precison' for dlb.sweep.layouts plan (did you mean 'precision'?)",
    dlb.sweep.layouts, b, space, { plan = { batch = 64, precison = "mixed" } })
  assert(not e:find("devices", 1, true) and not e:find(" hw,", 1, true), "the sweep's own are not offered: " .. e)
  for _, v in ipairs { "x", 0, 0.5 } do
    T.checkerr("dlb.sweep.layouts: per_node must be a whole number of devices per node >= 1, got " .. type(v),
      dlb.sweep.layouts, b, space, { per_node = v })
  end
  T.checkerr("dlb.sweep.layouts: option 'quiet' must be true or false, got string yes", dlb.sweep.layouts,
    b, space, { quiet = "yes" })
  -- dlb.sweep.model keeps its own name for the same checks
  T.checkerr("dlb.sweep.model: space.device[1]: unknown device 'H1000'", dlb.sweep.model, b,
    { layers = { 2 }, device = "H1000" }, {})
end)

-- review 13: dlb.sweep.model's table options and switches checked by type before use
-- (stats = "x" was "bad argument #1 to 'for iterator'" at a line of sweep_model.lua,
-- throughput = 5 "attempt to index a number value", quiet = "yes" taken as true)
T.test("dlb.sweep.model: stats, derive, throughput tables; quiet, verify switches", function()
  local b = function(p) return dlb.models.gpt { layers = p.layers, hidden = 256, heads = 4, context = 256,
    vocab = 1000, batch = 1 } end
  local sp = { layers = { 1, 2 }, device = "A100-SXM4-80GB" }
  T.checkerr("dlb.sweep.model: stats must be a table, got string x", dlb.sweep.model, b, sp, { stats = "x" })
  T.checkerr("dlb.sweep.model: derive must be a table, got number 3", dlb.sweep.model, b, sp, { derive = 3 })
  T.checkerr("dlb.sweep.model: throughput must be a table, got number 5", dlb.sweep.model, b, sp, { throughput = 5 })
  T.checkerr("dlb.sweep.model: option 'quiet' must be true or false, got string yes", dlb.sweep.model, b, sp,
    { quiet = "yes" })
  T.checkerr("dlb.sweep.model: option 'verify' must be true or false, got number 1", dlb.sweep.model, b, sp,
    { verify = 1 })
  T.eq(dlb.sweep.model(b, sp, { quiet = true }).count, 2, "good options as before")
end)

T.done()
