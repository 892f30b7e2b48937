-- dlbench.sweep_layouts — dlb.sweep.layouts(builder, space, opts): (model x layout) plans
-- through the planner, streamed into dlb.sweep.model's reductions (its helpers:
-- lua/dlbench/sweep_model.lua's M.internal, one copy). docs/sweep.md.
local core = require "dlbench.backend"
local options = require "dlbench.options"
local doc = require "dlbench.doc"
local S = require("dlbench.sweep_model").internal
local list_of, builder_of, built, product = S.list_of, S.builder_of, S.built, S.product
local interner, space_fields, devices_of = S.interner, S.space_fields, S.devices_of
local PROV, check_prov_names, reductions, collect = S.PROV, S.check_prov_names, S.reductions, S.collect

local M = {}

-- dlb.sweep.layouts: (model x layout) plans through the planner (dlb.parallel.plan: the
-- per-layer costs of each model's graph, dlb.parallel.layers.from_graph, each op timed by
-- the per-op rule; every data x tensor x pipeline split, micro-batching, schedule, recompute
-- and ZeRO stage it enumerates), one model at a time, every plan pushed into the same
-- streaming reductions as dlb.sweep.model. space: the builder's model options, gpus = {...}
-- (devices; a cluster of per_node-device nodes), device = name(s).
local PLAN_COLS = { "dp", "tp", "pp", "v", "m", "mb", "zero", "recompute", "schedule", "step",
  "compute", "comm", "bubble", "mem", "fits", "mfu", "hfu", "throughput" }
M.plan_columns = PLAN_COLS
local LVALID = { plan = true, per_node = true, pareto = true, top = true, heatmap = true,
  group_by = true, keep = true, device = true, checkpoint = true, quiet = true }
function M.layouts(builder, space, opts)
  local fn = "dlb.sweep.layouts"
  -- its own errors named with it (the file's fail says dlb.sweep.model)
  local function fail(msg) error(fn .. ": " .. msg, 0) end
  opts = options.check(opts, LVALID, fn)
  local sw = options.switch_error(opts, { "quiet" }, fn)   -- "yes" was taken as true (review 13)
  if sw then error(sw, 0) end
  local build = builder_of(builder, fail)
  if type(space) ~= "table" then fail("space must be a table of {dim = values}") end
  local P = require "dlbench.parallel"
  local RECOMPUTE = require("dlbench.parallel_plan").recompute_policies
  local gpus = space.gpus
  if type(gpus) ~= "table" or #gpus == 0 then fail("space.gpus must list device counts") end
  -- whole counts (review 13: {"x"} reached "attempt to mod a 'string' with a 'number'")
  for i, ng in ipairs(gpus) do
    if type(ng) ~= "number" or ng ~= math.floor(ng) or ng < 1 or ng == math.huge then
      fail(string.format("space.gpus[%d] must be a whole number of devices >= 1, got %s %s", i,
        type(ng), tostring(ng)))
    end
  end
  local devs = devices_of(space, opts, fail)
  -- an fp8 plan under a Transformer Engine profile runs TE's quantisation kernels
  -- (dlbench.te_fp8); the layers here are the graph's algorithmic step without them
  local po0 = opts.plan or {}
  if type(po0) ~= "table" then fail("plan must be a table of dlb.parallel.plan options, got " .. type(po0)) end
  -- what each plan call is given by the sweep itself (the model's graph, the row's device and
  -- gpus): plan = {hw = ...} timed every row on that device under the space's device name,
  -- cluster = ... another device count than the row's gpus, layers = ... one model for all
  for _, k in ipairs { "graph", "layers", "hw", "device", "cluster", "devices", "table" } do
    if po0[k] ~= nil then
      fail("plan." .. k .. " is the sweep's own (each row plans the builder's graph on the "
        .. "row's device and gpus: space.device, space.gpus, per_node)")
    end
  end
  -- the rest are dlb.parallel.plan's options: an unknown one named here, with the ones a
  -- plan= may hold (review 13: the planner's message listed graph, hw, devices ... as accepted)
  local pvalid = {}
  for k in pairs(require("dlbench.parallel_plan").plan_options) do pvalid[k] = true end
  for _, k in ipairs { "graph", "layers", "hw", "device", "cluster", "devices", "table" } do pvalid[k] = nil end
  local bad = options.unknown(po0, pvalid, fn .. " plan")
  if bad then fail(bad) end
  if po0.precision == "fp8" and po0.framework ~= nil then
    local okf, pf = pcall(require("dlbench.frameworks").get, po0.framework, fn)
    if okf and require("dlbench.te_fp8").recipe(pf, fn) then
      fail("plan precision fp8 under profile " .. pf.name .. " (Transformer Engine " .. pf.fp8.scaling
        .. " scaling): the swept layers do not count TE's fp8 casts (dlbench.te_fp8); plan "
        .. "dlb.parallel.layers.from_graph(g, {precision = \"mixed_bf16\", framework = ..., fp8 = true}) "
        .. "with dlb.parallel.plan instead")
    end
  end
  -- every device must have the plan's precision (each row plans on its device): refused
  -- before any plan runs, the pairs named (dlb.sweep.model's check)
  if type(po0.precision) == "string" then
    S.check_precisions({ po0.precision }, devs, fail, 'plan.precision = "%s"')
  end
  local per_node = opts.per_node or 8
  -- a whole count (review 13: "x" and 0 reached the "%" of the gpus check as Lua errors)
  if type(per_node) ~= "number" or per_node ~= math.floor(per_node) or per_node < 1 or per_node == math.huge then
    fail("per_node must be a whole number of devices per node >= 1, got " .. type(per_node) .. " " .. tostring(per_node))
  end
  local snames = {}
  for k in pairs(space) do if k ~= "gpus" and k ~= "device" then snames[#snames + 1] = k end end
  table.sort(snames)
  check_prov_names(space, {}, fn)
  local slists = {}
  for i, k in ipairs(snames) do slists[i] = list_of(space, k, fail) end
  local cols = {}
  for _, k in ipairs(snames) do cols[#cols + 1] = k end
  cols[#cols + 1] = "gpus"
  cols[#cols + 1] = "device"
  for _, k in ipairs(PLAN_COLS) do cols[#cols + 1] = k end
  -- the plan rows' provenance (dlb.parallel.plan's r.dlbench, framework, calibration,
  -- defaults), interned as the model dims are
  local interned = {}
  for _, k in ipairs(snames) do interned[#interned + 1] = k end
  for _, k in ipairs(PROV) do cols[#cols + 1] = k; interned[#interned + 1] = k end
  local R = reductions(cols, opts, space, interned, devs, { gpus = true }, fn, "step", PROV)
  R.levels.schedule, R.intern.schedule = interner()
  local t0 = core.sys_now()
  local n, first, evaluated, models = 0, 0, 0, 0
  local buf, nb = {}, 0
  local pv_last, pv_id = {}, {}
  local function flush()
    if nb > 0 then core._reduce_push(R.red, nb, buf, first); first = first + nb end
    buf, nb = {}, 0
  end
  -- with a checkpoint (opts.checkpoint): the file locked, checked against this sweep and
  -- repaired before anything runs; each plan call a chunk (its rows reduced alone, their
  -- state appended: lua/dlbench/sweep_model_checkpoint.lua), a finished one taken from the
  -- file; closed however the run ends
  local CK
  if opts.checkpoint ~= nil then
    local mspace, mdev = space_fields(space, devs)
    local lnames = { "schedule" } -- the text columns a plan call's rows intern
    for _, k in ipairs(PROV) do lnames[#lnames + 1] = k end
    local ckpt = require "dlbench.sweep_model_checkpoint"
    local fw = require "dlbench.frameworks"
    CK = ckpt.open_layouts(opts.checkpoint, ckpt.meta({
      dlbench = core.version(), columns = cols, space = mspace, devices = mdev,
      builder = type(builder) == "string" and builder or "function", plan = po0, per_node = per_node,
      pareto = opts.pareto or false, top = opts.top or false, heatmap = opts.heatmap or false,
      group_by = opts.group_by or false, keep = opts.keep or false,
      -- the session's defaults where the plan options leave them to it (nil when unset)
      session_framework = (po0.framework == nil or po0.framework == "auto") and fw.session() or nil,
      session_calibration = po0.calibration == nil and fw.calibration_session() or nil }, "layouts"),
      R, cols, opts.keep, lnames, opts.quiet)
  end
  -- one plan call's rows onto buf (nb of them), interned
  local function add_rows(rows, tags, ng, di)
    for _, r in ipairs(rows) do
      for _, v in ipairs(tags) do buf[#buf + 1] = v end
      buf[#buf + 1] = ng
      buf[#buf + 1] = di - 1
      for _, k in ipairs(PLAN_COLS) do
        local v = r[k]
        if k == "schedule" then v = R.intern.schedule(v)
        elseif type(v) == "boolean" then v = v and 1 or 0
        -- a selective policy by its number (DLB_PAR_RECOMPUTE_*: 2 "selective", with
        -- the plan's recompute_modules; 3 "selective_op"), as none 0 and full 1 are
        elseif k == "recompute" then v = RECOMPUTE[v] end
        buf[#buf + 1] = tonumber(v) or 0 / 0
      end
      -- a plan call's rows share their provenance: the last row's level, else interned
      for _, k in ipairs(PROV) do
        local v = r[k]
        if pv_id[k] == nil or v ~= pv_last[k] then pv_last[k], pv_id[k] = v, R.intern[k](v) end
        buf[#buf + 1] = pv_id[k]
      end
      nb = nb + 1
      n = n + 1
      if nb == 4096 and not CK then flush() end
    end
  end
  local k = 0 -- the plan calls, in order
  local function run()
    for _, p in ipairs(product(snames, slists)) do
      models = models + 1
      local tags = {}
      for i, nm in ipairs(snames) do tags[i] = R.intern[nm](p[nm]) end
      local g, isbuilt -- built for the model's first plan call that runs (none when all were resumed)
      for di, dv in ipairs(devs) do
        for _, ng in ipairs(gpus) do
          if ng % per_node ~= 0 then fail("gpus = " .. tostring(ng) .. " is not a whole number of " .. per_node .. "-device nodes") end
          k = k + 1
          local done, ev_done
          if CK then done, ev_done = CK.resume(k) end
          if done then
            -- (the planner's count is a float under Lua 5.4; a call without a fitting
            -- layout added none: the sums keep the uninterrupted run's number type)
            n, first = n + done, first + done
            if ev_done > 0 then evaluated = evaluated + (ev_done + 0.0) end
          else
            if not isbuilt then
              g = built(build, p, fail)
              isbuilt = true
            end
            -- the graph itself, so the plan's one rule (parallel_plan.lua framed: plan.framework,
            -- else the default profile of the graph's family) names the profile and builds the
            -- layers under it, as dlb.parallel.plan{graph = g} does; the bare layers of
            -- from_graph(g) said framework "none" whatever the default
            local po = { graph = g, hw = dv, cluster = P.cluster { per_node = per_node, nodes = ng / per_node, hw = dv },
              table = false }
            for key, v in pairs(opts.plan or {}) do po[key] = v end
            local mark = CK and CK.begin()
            local okp, rows, ev = pcall(P.plan, po)
            if not okp and not tostring(rows):find("no layout", 1, true) then error(rows, 0) end
            if okp then
              evaluated = evaluated + ev
              add_rows(rows, tags, ng, di)
            end
            if CK then
              -- the call's rows reduced alone, their state added to the sweep's and appended
              local r = R.spawn()
              if nb > 0 then core._reduce_push(r, nb, buf, first) end
              CK.finish_chunk(k, r, nb, okp and ev or 0, mark)
              first, buf, nb = first + nb, {}, 0
            end
          end
        end
      end
    end
    flush()
  end
  if CK then CK.run(run) else run() end
  local res = collect(R, cols, opts)
  res.count, res.evaluated, res.models, res.seconds = n, evaluated, models, core.sys_now() - t0
  if CK then res.chunks, res.resumed, res.checkpoint_seconds = CK.chunks, CK.resumed, CK.seconds end
  return res
end
doc.doc(M.layouts, "dlb.sweep.layouts(builder, space{..., gpus=, device=}, {plan=, per_node=8, pareto=, top=, heatmap=, group_by=, keep=, checkpoint=, quiet=}) -> {count=, evaluated=, pareto=, top=, heatmap=, group=, rows=}",
  "(model x layout) plans through dlb.parallel.plan for each model of the space and device count, "
  .. "every plan fed to the same streaming reductions as dlb.sweep.model; checkpoint = file: "
  .. "finished plan calls kept there, a rerun resumes them (docs/sweep.md)")

return M
