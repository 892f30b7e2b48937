-- test_sweep_model_provenance.lua — issue [18] item 6 on the compiled sweep: every row of
-- dlb.sweep.model (kept rows, Pareto fronts, top lists, group_by tables) carries the
-- provenance columns dlbench, framework, calibration and defaults, with the text of the
-- per-configuration path (g:stats + dlb.roofline.time: its r.provenance, built by
-- dlb.frameworks.provenance) and of dlb.sweep's rows for the same configuration; a sweep
-- over two families (a transformer and a CNN: two default profiles) says each row's own;
-- heat maps carry it as table-level metadata; CSV output has the columns.
local T = require "harness"
local dlb = require "dlbench"
local fw = require "dlbench.frameworks"

local PROV = { "dlbench", "framework", "calibration", "defaults" }

-- two families behind one builder: a structure dim `family`
local function build(p)
  if p.family == "gpt" then
    return dlb.models.gpt { layers = 2, hidden = 256, heads = 4, context = 1024, vocab = 1000,
      seq = 128, batch = p.batch }
  end
  return dlb.models.resnet { depth = 18, image = 32, classes = 10, batch = p.batch }
end
-- one device (the per-configuration path's text, exactly), or two whose precision defaults differ
local SPACE = { family = { "gpt", "resnet" }, batch = { 1, 4 }, device = { "H100-SXM" } }
local SPACE2 = { family = { "gpt", "resnet" }, batch = { 1, 4 }, device = { "H100-SXM", "TPUv4" } }

-- the per-configuration path's provenance of a row, as the sweep's columns: the compiled
-- sweep reports no MFU, so the attention-FLOPs convention entry of dlb.roofline.time's
-- defaults (an MFU convention) is not one it applied
local function reference(row, framework, calibration)
  local g = build(row)
  local s = g:stats { framework = framework or "auto", precision = nil }
  local r = dlb.roofline.time(s, row.device, { calibration = calibration })
  local pv = r.provenance
  local d = {}
  for _, e in ipairs(pv.defaults) do
    if not e:find("^attention_flops") then d[#d + 1] = e end
  end
  return { dlbench = pv.dlbench, framework = pv.framework, calibration = pv.calibration,
    defaults = table.concat(d, ", ") }, r
end

local function run(stats, time, space)
  return dlb.sweep.model(build, space or SPACE, { bind = { "batch" }, keep = true, stats = stats, time = time,
    top = { k = 3 }, pareto = { minimize = { "time", "memory" } },
    group_by = { keys = "batch" }, heatmap = { x = "batch" }, threads = 1 })
end

-- every row of t against the per-configuration path; returns the distinct frameworks seen
-- (a structure's defaults over several devices name the device that chose the precision:
-- the test after this one)
local function check_rows(t, framework, calibration, what)
  local seen = {}
  for _, c in ipairs(PROV) do T.eq(t:has(c), true, what .. " has " .. c) end
  for i = 1, t:count() do
    local row = t:row(i)
    local ref = reference(row, framework, calibration)
    for _, c in ipairs(PROV) do
      T.eq(row[c], ref[c], string.format("%s row %d (%s on %s) %s", what, i, row.family, row.device, c))
    end
    seen[row.framework] = true
  end
  return seen
end

T.test("sweep.model: each kept row's provenance is the per-configuration path's, per family", function()
  local r = run()
  T.eq(r.rows:count(), 4)
  local seen = check_rows(r.rows, nil, nil, "kept")
  -- two families, two default profiles, each row its own
  T.eq(seen.torchtitan, true)
  T.eq(seen["pytorch-ddp"], true)
  -- the text, stated: the version, a default profile per family, the default calibration
  for i = 1, r.rows:count() do
    local row = r.rows:row(i)
    T.eq(row.dlbench, require("dlbench.backend").version())
    T.eq(row.calibration, "catalogue")
    T.eq(row.framework, row.family == "gpt" and "torchtitan" or "pytorch-ddp")
  end
  -- the reductions' rows carry the same columns
  check_rows(r.top, nil, nil, "top")
  check_rows(r.pareto, nil, nil, "pareto")
end)

T.test("sweep.model: a default only some devices applied names them", function()
  local r = run(nil, nil, SPACE2)
  T.eq(r.rows:count(), 8)
  for i = 1, r.rows:count() do
    local row = r.rows:row(i)
    local prof = row.family == "gpt" and "torchtitan" or "pytorch-ddp"
    -- review 21: each device's choice is named, the GPU's fp32 as the TPU's bf16
    T.eq(row.defaults, "framework " .. prof .. ", calibration catalogue, precision fp32 (on H100-SXM), "
      .. "precision bf16 (on TPUv4)")
  end
  -- one device: no device named, the per-configuration path's text exactly
  local one = dlb.sweep.model(build, { family = { "gpt" }, batch = { 1 }, device = "TPUv4" },
    { bind = { "batch" }, keep = true })
  local row = one.rows:row(1)
  T.eq(row.defaults, reference(row).defaults)
  T.eq(row.defaults, "framework torchtitan, calibration catalogue, precision bf16")
end)

T.test("sweep.model: stats.framework= and time.calibration= are each row's, as dlb.sweep's rows say", function()
  local r = run({ framework = "megatron-core" }, { calibration = "validated" })
  local seen = check_rows(r.rows, "megatron-core", "validated", "kept")
  T.eq(seen["megatron-core"], true)
  T.eq(seen.torchtitan, nil)
  for i = 1, r.rows:count() do
    local row = r.rows:row(i)
    T.eq(row.framework, "megatron-core")
    T.eq(row.calibration, "validated")
    -- neither the profile nor the calibration was a default
    T.eq(row.defaults:find("framework", 1, true), nil)
    T.eq(row.defaults:find("calibration", 1, true), nil)
  end
  -- dlb.sweep over the same configurations, its fn timing each one: the same four fields
  local rows = dlb.sweep(SPACE, function(p)
    local rt = dlb.roofline.time(build(p):stats { framework = "megatron-core" }, p.device,
      { calibration = "validated" })
    return { time = rt.time }
  end, { jobs = 1, quiet = true })
  local byk = {}
  for i = 1, r.rows:count() do
    local row = r.rows:row(i)
    byk[row.family .. "|" .. string.format("%g", row.batch) .. "|" .. row.device] = row
  end
  T.eq(rows:count(), 4)
  for i = 1, rows:count() do
    local s = rows:row(i)
    local m = byk[s.family .. "|" .. string.format("%g", s.batch) .. "|" .. s.device]
    T.eq(m ~= nil, true)
    T.eq(s.dlbench, m.dlbench)
    T.eq(s.framework, m.framework)
    T.eq(s.calibration, m.calibration)
    -- dlb.sweep's row keeps roofline.time's MFU convention entry, which the compiled sweep
    -- (no MFU) has not applied: the rest is the same text
    local d = {}
    for e in (s.defaults .. ", "):gmatch("(.-), ") do
      if not e:find("^attention_flops") then d[#d + 1] = e end
    end
    T.eq(table.concat(d, ", "), m.defaults)
  end
end)

T.test("sweep.model: group_by tables keep the provenance as keys; heat maps as metadata", function()
  local r = run(nil, nil, SPACE2)
  local g = r.group
  for _, c in ipairs(PROV) do T.eq(g:has(c), true, "group has " .. c) end
  -- two batch values x two families' profiles: a group never mixes two profiles' rows
  T.eq(g:count(), 4)
  local total = 0
  for i = 1, g:count() do
    local row = g:row(i)
    T.eq(row.count, 2) -- the two devices of one family
    total = total + row.count
    T.eq(row.defaults, "framework " .. row.framework .. ", calibration catalogue, precision fp32 "
      .. "(on H100-SXM), precision bf16 (on TPUv4)")
  end
  T.eq(total, 8)
  -- the sorted keys stay the caller's
  T.eq(g:row(1).batch, 1)
  T.eq(g:row(4).batch, 4)
  -- heat map bins: the distinct provenances, table-level
  T.eq(#r.provenance, 2)
  T.eq(r.bins[1].provenance, r.provenance)
  local names = {}
  for _, pv in ipairs(r.provenance) do
    names[pv.framework] = true
    T.eq(pv.dlbench, require("dlbench.backend").version())
    T.eq(pv.calibration, "catalogue")
    T.eq(type(pv.defaults), "table")
  end
  T.eq(names.torchtitan and names["pytorch-ddp"], true)
end)

T.test("sweep.model: CSV output has the provenance columns", function()
  local r = run()
  local path = os.tmpname()
  for _, t in ipairs { r.rows, r.top } do
    t:to_csv(path)
    local f = assert(io.open(path))
    local header = f:read("l")
    local line = f:read("l")
    f:close()
    T.eq(header:find("dlbench,framework,calibration,defaults", 1, true) ~= nil, true, header)
    T.eq(line:find("calibration catalogue", 1, true) ~= nil, true, line)
    -- read back: the same text in every field (the defaults hold commas: quoted)
    local back = dlb.read_csv(path)
    T.eq(back:count(), t:count())
    for i = 1, t:count() do
      local a, b = t:row(i), back:row(i)
      for _, c in ipairs(PROV) do T.eq(tostring(b[c]), tostring(a[c]), "csv " .. c) end
    end
  end
  os.remove(path)
end)

T.test("sweep.model: a space dim named as a provenance column is refused, named", function()
  T.checkerr("space names 'framework', a provenance column of every row", dlb.sweep.model,
    function(p) return build { family = "gpt", batch = p.batch } end,
    { framework = { "a" }, batch = { 1 }, device = "H100-SXM" }, { bind = { "batch" }, top = 1 })
  T.checkerr("derive names 'calibration', a provenance column", dlb.sweep.model,
    function(p) return build { family = "gpt", batch = p.batch } end,
    { batch = { 1 }, device = "H100-SXM" }, { bind = { "batch" }, top = 1,
      derive = { calibration = function() return 1 end } })
end)

T.test("sweep.layouts: each plan row's provenance, as dlb.parallel.plan wrote it", function()
  local P = dlb.parallel
  local function gpt(p)
    return dlb.models.gpt { layers = p.layers, hidden = 256, heads = 4, context = 512, seq = 512, batch = 1 }
  end
  for _, po in ipairs { { batch = 64 }, { batch = 64, framework = "megatron-core", calibration = "validated" } } do
    local r = dlb.sweep.layouts(gpt, { layers = { 2 }, gpus = { 8 }, device = "A100-SXM4-80GB" },
      { plan = po, keep = true, top = 3, group_by = { keys = "gpus" } })
    -- the planner's own rows for the same model and cluster: the plan of the graph (its
    -- family's default profile when plan.framework is not given; review 10)
    local o = { graph = gpt { layers = 2 }, hw = "A100-SXM4-80GB",
      cluster = P.cluster { per_node = 8, nodes = 1, hw = "A100-SXM4-80GB" }, table = false }
    for k, v in pairs(po) do o[k] = v end
    local rows = P.plan(o)
    local want = {}
    for _, x in ipairs(rows) do
      want[table.concat({ x.dlbench, x.framework, x.calibration, x.defaults }, "|")] = true
    end
    T.eq(r.rows:count(), #rows)
    for _, t in ipairs { r.rows, r.top, r.group } do
      for i = 1, t:count() do
        local row = t:row(i)
        local k = table.concat({ row.dlbench, row.framework, row.calibration, row.defaults }, "|")
        T.eq(want[k], true, k)
        if po.framework then
          T.eq(row.framework, "megatron-core")
          T.eq(row.calibration, "validated")
        else
          -- the default profile of a transformer, as dlb.parallel.plan{graph = g} says (it
          -- said "none": the bare layers of from_graph(g))
          T.eq(row.framework, require("dlbench.frameworks").DEFAULTS.transformer)
        end
      end
    end
  end
  T.checkerr("dlb.sweep.layouts: space names 'dlbench', a provenance column", dlb.sweep.layouts, gpt,
    { layers = { 2 }, dlbench = { 1 }, gpus = { 8 }, device = "A100-SXM4-80GB" }, { top = 1 })
end)

T.done()
