-- dlbench.sweep_model — dlb.sweep.model(builder, space, opts): a model family swept through
-- the full per-op model in C. Each distinct graph structure (the space's model options
-- other than the swept dims) is built once with the swept dims symbolic — and, for a
-- repeated layer, at three layer counts, so `layers` is counted by multiplicity and never
-- rebuilt — compiled into polynomials (graphs/sweep/sweep_compile.c) and evaluated for every
-- configuration on all cores (sweep_eval.c) through the per-op rule dlb.roofline.time uses,
-- the rows going to streaming reductions (sweep_reduce.c: Pareto fronts, top-k, heat-map
-- bins, grouped aggregates, kept rows; their options and results: lua/dlbench/sweep_reduce.lua)
-- rather than to Lua tables. docs/sweep.md.
local core = require "dlbench.backend"
local options = require "dlbench.options"
local doc = require "dlbench.doc"
local memory = require "dlbench.memory"
local tbl = require "dlbench.table"
local fwmemory = require "dlbench.framework_memory"
-- the reductions (and their interned columns, dlb.sweep.reduce): dlbench.sweep_reduce
local SR = require "dlbench.sweep_reduce"
local interner, reductions, collect = SR.interner, SR.reductions, SR.collect
-- a binding's argument error without its frame (dlbench.errors.argtext)
local argtext = require("dlbench.errors").argtext

local M = {}

-- the C enums, from the one description of the headers (dlbench.desc)
local desc = require "dlbench.desc"
local OUTPUTS = desc.enum("DLB_SWC_")    -- the columns dlb_sweep_eval writes, in order
M.outputs = OUTPUTS
local TOTALS = desc.enum("DLB_SWT_")     -- what dlb_sweep_prog_totals returns, in order
M.totals = TOTALS

local VALID = { bind = true, layers = true, derive = true, stats = true, time = true,
  pareto = true, top = true, heatmap = true, group_by = true, keep = true, threads = true,
  device = true, throughput = true, verify = true, checkpoint = true, quiet = true }
local TIME_OPTS = { schedule = true, slack = true, calibration = true, flops_eff = true,
  bw_eff = true }

local FN = "dlb.sweep.model"
M.chunk_configs = 1e6 -- a structure's grid above this runs one C call per first-symbol value
local function fail(msg) error(FN .. ": " .. msg, 0) end

-- The values of space dim k as a list (a single value becomes a list of one). fail_ (here
-- and in builder_of, devices_of): the caller's error function (its name in the message;
-- review 13: dlb.sweep.layouts' errors said dlb.sweep.model), else this file's.
local function list_of(space, k, fail_)
  local v = space[k]
  if type(v) ~= "table" then v = { v } end
  if #v == 0 then (fail_ or fail)("space." .. k .. " is empty") end
  return v
end

-- A builder: a function of the structure's options, or a zoo model's name.
local function builder_of(b, fail_)
  local f_ = fail_ or fail
  if type(b) == "function" then return b end
  if type(b) == "string" then
    local models = require "dlbench.models"
    local f = models[b]
    if type(f) ~= "function" then f_("no zoo model '" .. b .. "' (dlb.models.list())") end
    return f
  end
  f_("builder must be a function(options) -> graph or a zoo model's name, got " .. type(b))
end

-- The builder's graph for the options p: the builder's error, or a result that is not a
-- graph, named (every sweep plans or compiles the graph it returns);
-- fail_: the caller's error function (its name in the message), else this file's.
local function built(build, p, fail_)
  local f = fail_ or fail
  local ok, g = pcall(build, p)
  if not ok then f("the builder failed: " .. tostring(g)) end
  if type(g) ~= "table" or not g.step_options then
    f("the builder must return a graph, got " .. (type(g) == "table" and "a table that is not one" or type(g)))
  end
  return g
end

-- The cartesian product of named lists (the last varying fastest), as option tables.
local function product(names, lists)
  local out, cur = {}, {}
  local function rec(i)
    if i > #names then
      local p = {}
      for k, v in pairs(cur) do p[k] = v end
      out[#out + 1] = p
      return
    end
    for _, v in ipairs(lists[i]) do cur[names[i]] = v; rec(i + 1) end
  end
  rec(1)
  return out
end


-- What identifies a sweep's space in its checkpoint's first line: the space without its
-- device names, and the devices as their fields (plain copies).
local function space_fields(space, devs)
  local mspace, mdev = {}, {}
  for k, v in pairs(space) do if k ~= "device" then mspace[k] = v end end
  for i, d in ipairs(devs) do mdev[i] = d:spec() end
  return mspace, mdev
end

-- The devices of a space (space.device or opts.device: a name, a device or a list).
local function devices_of(space, opts, fail_)
  local fail = fail_ or fail
  local hw = require "dlbench.hw"
  local devices = space.device or opts.device
  if devices == nil then fail("give the devices: space.device = {\"H100-SXM\", ...}") end
  if type(devices) ~= "table" or getmetatable(devices) == hw.Device then devices = { devices } end
  local devs = {}
  for i, d in ipairs(devices) do
    local ok, dv = pcall(hw.get, d)
    if not ok then fail("space.device[" .. i .. "]: " .. tostring(dv)) end
    devs[i] = dv
  end
  return devs
end

-- A profile applies to graph g but its family (transformer or other) is not known: a hand-
-- built or imported graph's family is found by g:stats from the step at bound dims (the
-- attention pass finding an attention pattern: graph_analysis.lua family_of, the one rule),
-- and a compiled structure's swept dims are symbols. Where the family changes what the
-- profile does (the default profile, its fusion passes, its trainer's lm_metrics:
-- dlb.frameworks.resolve, fuse_of), refuse rather than compile the unknown family's step
-- (review 16: ONNX under fsdp 7-20% off g:stats in bytes, lm_metrics in one and not the
-- other). dlb.sweep.model gives the space's first values (ref).
local function family_matters(g, given, causal)
  local fw = require "dlbench.frameworks"
  local fam = {}
  for _, f in ipairs { "transformer", "other" } do
    local p = fw.resolve(given ~= "auto" and given or nil, f, false, FN)
    fam[f] = p.name .. ": " .. table.concat(fw.fuse_of(p, f, causal), ",")
  end
  if fam.transformer ~= fam.other then
    fail("graph '" .. tostring(g.name) .. "': its family (transformer or other) is not known "
      .. "from its model (a hand-built or imported graph: g:stats finds it by analysing the step "
      .. "at bound dims) and the profile's passes depend on it; give ref = {dim = value, ...} "
      .. "binding every swept dim (dlb.sweep.compile's sixth argument; dlb.sweep.model gives "
      .. "the space's first values)")
  end
end

-- Compile one structure: graphs at three layer counts (or one), the step options of
-- g:stats. Returns the program and the step's names (framework, precision).
local function compile(build, p, bind, layers_dim, stats_opts, ref)
  local prog = core._sweep_prog_new(bind, layers_dim ~= nil)
  memory.account()
  local counts = layers_dim and { 1, 2, 3 } or { false }
  local info
  for _, L in ipairs(counts) do
    local q = {}
    for k, v in pairs(p) do q[k] = v end
    if L then q[layers_dim] = L end
    for _, b in ipairs(bind) do q[b] = b end
    local g = built(build, q)
    -- every bound name a dim of the graph, as g:stats binds (dlb_check_bindings): one the
    -- builder ignored would sweep nothing, every value the same rows (the C program takes
    -- constant symbols, serve's compiled steps rely on it, so the check is the caller's)
    for _, b in ipairs(bind) do
      local nodim = g:missing_dim(b)
      if nodim then fail("bind '" .. b .. "': " .. nodim .. " (does the builder use the value it is given?)") end
    end
    local so = {}
    for k, v in pairs(stats_opts) do so[k] = v end
    for k, v in pairs(ref) do so[k] = v end -- reference bindings: the family of a hand-built graph
    -- (no optimizer given: step_options applies g:stats' one default rule, the model's own
    -- else its family's: dlb.graph.default_optimizer)
    -- a bad stats option (precision = "zz" in the space) named as this function's, without
    -- the line of this file that step_options' error level pointed at
    local oko, o, inf = pcall(g.step_options, g, so)
    if not oko then fail(require("dlbench.errors").strip(o)) end
    info = inf
    info.causal = require("dlbench.mfu").causal(g)
    if inf.family_unknown then family_matters(g, stats_opts.framework, info.causal) end
    core._sweep_prog_add(prog, g._h, o, L or 1)
    -- the logits a profile's loss memory counts (dlbench.framework_memory), per build
    local lp = fwmemory.logit_poly(g)
    if lp then core.sweep_prog_logits(prog, lp._h) end
  end
  -- the profile's optimizer launch model (dlb.frameworks.step_launch) and phase syncs
  -- (dlb.frameworks.phase_sync), as dlb.roofline.time gives them to an analysis's op-cost
  -- set: a derived profile given as a table keeps its own
  local fw = require "dlbench.frameworks"
  local given = stats_opts.framework
  local prof = type(given) == "table" and given or fw.get(info.framework)
  core.sweep_prog_optim(prog, fw.step_launch(prof))
  core.sweep_prog_phase_sync(prog, fw.phase_sync(prof))
  core.sweep_prog_finish(prog)
  return prog, info
end

-- Provenance (issue [18] item 6): every row carries the columns dlb.sweep's rows and
-- dlb.parallel.evaluate's carry, with their text: dlbench (the version), framework (the
-- profile this row's structure was compiled under), calibration and defaults (the defaults
-- applied, ", "-joined: dlb.roofline.defaults_applied, as dlb.roofline.time words them).
-- They are structure tags: one interned level per distinct value, constant over a
-- structure's grid, so the C rows hold a level index and no row builds a string.
local PROV = { "dlbench", "framework", "calibration", "defaults" }
M.provenance_columns = PROV

-- One structure's provenance over its devices (dev[i] = {psource=, prec=}: what roof_of
-- chose on device i): the values of the PROV columns and dlb.frameworks.provenance's table.
-- A default only some devices applied (the precision a device chose: a TPU's bf16 beside a
-- GPU's fp32) is the structure's entry with the devices named: "precision bf16 (on TPU-v5e)".
local function provenance_of(prof, fsource, calibration, cal_given, dev, devs)
  local fw = require "dlbench.frameworks"
  local roofline = require "dlbench.roofline"
  local on, order = {}, {}
  for i, d in ipairs(dev) do
    for _, e in ipairs(roofline.defaults_applied(prof, fsource, false, calibration, cal_given,
        nil, d.psource, d.prec)) do
      if not on[e] then on[e] = {}; order[#order + 1] = e end
      on[e][#on[e] + 1] = devs[i].name
    end
  end
  local defaults = {}
  for _, e in ipairs(order) do
    defaults[#defaults + 1] = #on[e] == #devs and e or (e .. " (on " .. table.concat(on[e], ", ") .. ")")
  end
  local pv = fw.provenance(prof, fsource, calibration, defaults)
  return { pv.dlbench, pv.framework, pv.calibration, table.concat(pv.defaults, ", ") }, pv
end

-- A space or derive dim named as a provenance column: refused, named.
local function check_prov_names(space, derive, fname)
  for _, k in ipairs(PROV) do
    if space[k] ~= nil or derive[k] ~= nil then
      error(fname .. ": " .. (space[k] ~= nil and "space" or "derive") .. " names '" .. k
        .. "', a provenance column of every row (" .. table.concat(PROV, ", ") .. "): rename the dim", 0)
    end
  end
end


-- The (precision, device) pairs of a sweep that cannot be timed: a device without that
-- precision's peak (hw:precision's rule, "mixed" included: bf16 on a V100, fp32 on a TPU).
-- The compiled sweep times every structure on every device (the device column is the roof's
-- place in the array), and dlb.sweep.layouts plans every model on every device, so such a
-- pair cannot become failed rows beside the others: the whole call is refused (by fail)
-- before anything runs, every pair named with the split that runs (label: how the call
-- gives the precision, a format of it: 'precision = {"%s"}' for a space dim). An
-- unknown precision is left to g:stats' (or plan's) check, which names it.
local function check_precisions(precs, devs, fail, label)
  local errors = require "dlbench.errors"
  local bad, can = {}, {}
  for _, pr in ipairs(precs) do
    local ok_devs = {}
    for i, dv in ipairs(devs) do
      local ok, e = pcall(dv.precision, dv, pr)
      if ok then ok_devs[#ok_devs + 1] = dv.name
      elseif not tostring(e):find("unknown precision", 1, true) then
        bad[#bad + 1] = string.format("precision %s on device[%d] %s (%s)", tostring(pr), i,
          dv.name, (errors.strip(e):gsub("; pass precision = one of those$", "")))
      end
    end
    can[#can + 1] = string.format(label .. " over device = {%s}", tostring(pr),
      #ok_devs > 0 and ("\"" .. table.concat(ok_devs, "\", \"") .. "\"") or "none")
  end
  if #bad > 0 then
    fail(string.format("%d (precision, device) pair%s cannot be timed: %s. No row was computed "
      .. "(the sweep times every precision on every device); split the space into one "
      .. "call per precision over the devices that have it: %s", #bad, #bad == 1 and "" or "s",
      table.concat(bad, "; "), table.concat(can, "; ")))
  end
end

function M.model(builder, space, opts)
  opts = options.check(opts, VALID, FN)
  local build = builder_of(builder)
  if type(space) ~= "table" then fail("space must be a table of {dim = values}") end
  local roofline = require "dlbench.roofline"
  local fw = require "dlbench.frameworks"
  -- dims: swept in C (bind), layers by multiplicity, devices, the rest structure
  local bind = opts.bind or {}
  -- a list of names (a number reached ipairs: an index error, worded differently by the two
  -- backends)
  if type(bind) ~= "table" then fail("bind must be a list of dim names, got " .. type(bind) .. " " .. tostring(bind)) end
  local isbind = {}
  for _, b in ipairs(bind) do
    if space[b] == nil then fail("bind names '" .. tostring(b) .. "', which the space lacks") end
    isbind[b] = true
  end
  local layers_dim = opts.layers
  if layers_dim == nil and space.layers ~= nil then layers_dim = "layers" end
  if layers_dim == false then layers_dim = nil end
  if layers_dim and space[layers_dim] == nil then fail("layers names '" .. tostring(layers_dim) .. "', which the space lacks") end
  local devs = devices_of(space, opts)
  for _, dv in ipairs(devs) do
    if dv.cores and dv.mem_per_core then
      fail("device " .. dv.name .. " is a board of cores (per-core memory); the compiled path "
        .. "models one device: use dlb.roofline.time")
    end
  end
  local snames = {}
  for k in pairs(space) do
    if type(k) ~= "string" then fail("space keys must be names") end
    if not isbind[k] and k ~= layers_dim and k ~= "device" then snames[#snames + 1] = k end
  end
  table.sort(snames)
  local slists = {}
  for i, k in ipairs(snames) do slists[i] = list_of(space, k) end
  -- the tables and switches among the options, by type before use (review 13: stats = "x"
  -- was "bad argument #1 to 'for iterator'" at a line of this file, throughput = 5 "attempt to
  -- index a number value", quiet = "yes" taken as true)
  for _, k in ipairs { "stats", "derive", "throughput" } do
    if opts[k] ~= nil and type(opts[k]) ~= "table" then
      fail(k .. " must be a table, got " .. type(opts[k]) .. " " .. tostring(opts[k]))
    end
  end
  local sw = options.switch_error(opts, { "quiet", "verify" }, FN)
  if sw then error(sw, 0) end
  local derive = opts.derive or {}
  local dnames = {}
  for k, f in pairs(derive) do
    if type(f) ~= "function" then fail("derive." .. tostring(k) .. " must be a function(options) -> value") end
    dnames[#dnames + 1] = k
  end
  table.sort(dnames)
  local time_opts = options.check(opts.time, TIME_OPTS, FN .. " time")
  local calibration = fw.check_calibration(time_opts.calibration, FN)
  local sched = roofline.schedules[time_opts.schedule or "framework"]
  if sched == nil then fail("time.schedule must be \"framework\" or \"minimal\"") end
  local stats_opts = {}
  for k, v in pairs(opts.stats or { framework = "auto" }) do stats_opts[k] = v end
  if stats_opts.offload ~= nil and stats_opts.offload ~= false then
    fail("stats.offload is not compiled (its host-link traffic and device footprint are "
      .. "dlb.roofline.time's); time offloaded steps with g:stats + dlb.roofline.time")
  end
  if type(stats_opts.framework) == "table" and type(stats_opts.framework.memory) == "table"
    and stats_opts.framework.memory.optimizer_in_backward then
    fail("stats.framework's memory.optimizer_in_backward is not compiled (the sweep's memory "
      .. "rule holds every gradient); time such steps with g:stats + dlb.roofline.time")
  end
  if stats_opts.schedule == "walk" then
    fail("stats.schedule = \"walk\" is not compiled (the sweep's memory rule holds every "
      .. "gradient); walk a step's backward pass with g:stats + dlb.roofline.time")
  end
  if stats_opts.framework == nil and stats_opts.fuse == nil then stats_opts.framework = "auto" end
  if space.precision and stats_opts.precision then fail("give precision in the space or in stats, not both") end
  -- every (precision, device) pair the space makes must have a peak, checked before any
  -- structure is compiled or a checkpoint opened
  if space.precision ~= nil then check_precisions(list_of(space, "precision"), devs, fail, 'precision = {"%s"}')
  elseif type(stats_opts.precision) == "string" then
    check_precisions({ stats_opts.precision }, devs, fail, 'stats.precision = "%s"')
  end
  -- the row's columns: structure tags (incl. derived), bound dims, layers, device, outputs
  local tagnames = {}
  for _, k in ipairs(snames) do tagnames[#tagnames + 1] = k end
  for _, k in ipairs(dnames) do tagnames[#tagnames + 1] = k end
  check_prov_names(space, derive, FN)
  for _, k in ipairs(PROV) do tagnames[#tagnames + 1] = k end
  local cols = {}
  for _, k in ipairs(tagnames) do cols[#cols + 1] = k end
  for _, k in ipairs(bind) do cols[#cols + 1] = k end
  if layers_dim then cols[#cols + 1] = layers_dim end
  cols[#cols + 1] = "device"
  for _, k in ipairs(OUTPUTS) do cols[#cols + 1] = k end
  -- value lists of the C symbols
  local nvalues, values = {}, {}
  local vlists = {}
  for _, b in ipairs(bind) do vlists[#vlists + 1] = list_of(space, b) end
  if layers_dim then vlists[#vlists + 1] = list_of(space, layers_dim) end
  for i, l in ipairs(vlists) do
    nvalues[i] = #l
    for _, v in ipairs(l) do
      if type(v) ~= "number" then fail("swept dims take numbers, got " .. type(v)) end
      values[#values + 1] = v
    end
  end
  local ref = {}
  for i, b in ipairs(bind) do ref[b] = vlists[i][1] end
  -- throughput = the product of these swept dims per second (e.g. {"batch", "seq"}: tokens/s)
  local per = 0
  local symbols = {}
  for _, b in ipairs(bind) do symbols[#symbols + 1] = b end
  if layers_dim then symbols[#symbols + 1] = layers_dim end
  for _, d in ipairs(opts.throughput or {}) do
    local found
    for i, s in ipairs(symbols) do if s == d then found = i end end
    if not found then fail("throughput names '" .. tostring(d) .. "', which is not a swept (bind) dim") end
    per = per + 2 ^ (found - 1)
  end
  -- reductions
  local numeric = {}
  for _, k in ipairs(bind) do numeric[k] = true end
  if layers_dim then numeric[layers_dim] = true end
  local R = reductions(cols, opts, space, tagnames, devs, numeric, FN, nil, PROV)
  -- one C call; threads is checked by the binding (a whole number 0..64) before any work,
  -- its message named as the option ("bad argument #10 to 'sweep_eval'" before)
  local threads = opts.threads or 0
  local function eval(prog, counts, vals, roofs, mem, tags, per, first, red)
    local ok, n = pcall(core._sweep_eval, prog, counts, vals, roofs, mem, tags, per, first, red, threads)
    if ok then return n end
    if tostring(n):match("^bad argument #10 to '_?sweep_eval'") then
      local t = opts.threads
      fail("threads = " .. (type(t) == "string" and ('"' .. t .. '"') or tostring(t)) .. ": " .. argtext(n))
    end
    error(n, 0)
  end
  local red, levels, intern = R.red, R.levels, R.intern
  -- structures: compile each, evaluate its grid
  local structs = product(snames, slists)
  local t0 = core.sys_now()
  local first, compile_s, nclasses = 0, 0, 0
  local roofcache = {}
  local provs, provseen = {}, {} -- the distinct provenances, in structure order
  -- with a checkpoint (opts.checkpoint): the file locked, checked against this sweep and
  -- repaired before anything runs; closed however the run ends
  local CK
  if opts.checkpoint ~= nil then
    local mspace, mdev = space_fields(space, devs)
    local ckpt = require "dlbench.sweep_model_checkpoint"
    CK = ckpt.open(opts.checkpoint, ckpt.meta {
      dlbench = core.version(), columns = cols, space = mspace, devices = mdev,
      builder = type(builder) == "string" and builder or "function", bind = bind,
      layers = layers_dim or false, derive = dnames, stats = stats_opts, time = time_opts,
      throughput = opts.throughput or {}, pareto = opts.pareto or false, top = opts.top or false,
      heatmap = opts.heatmap or false, group_by = opts.group_by or false, keep = opts.keep or false,
      calls = M.chunk_configs, chunk_configs = ckpt.chunk_configs,
      -- the session's defaults where the options leave them to it (nil, so absent, when unset)
      session_framework = (stats_opts.framework == nil or stats_opts.framework == "auto")
        and fw.session() or nil,
      session_calibration = time_opts.calibration == nil and fw.calibration_session() or nil },
      R, cols, opts.keep, opts.quiet)
  end
  local function run()
    for _, p in ipairs(structs) do
      local bp = {}
      for k, v in pairs(p) do if k ~= "precision" then bp[k] = v end end
      for _, k in ipairs(dnames) do
        local ok, v = pcall(derive[k], p)
        if not ok then fail("derive." .. k .. ": " .. tostring(v)) end
        p[k] = v; bp[k] = v
      end
      local so = {}
      for k, v in pairs(stats_opts) do so[k] = v end
      if p.precision then so.precision = p.precision end
      local c0 = core.sys_now()
      local prog, info = compile(build, bp, bind, layers_dim, so, ref)
      compile_s = compile_s + core.sys_now() - c0
      nclasses = math.max(nclasses, core.sweep_prog_nclasses(prog))
      local roofs, mem, pdev = {}, {}, {}
      -- the profile the step was compiled under: a derived one given as a table is itself (it
      -- keeps its base's name, so fw.get(name) is the base: its host model, efficiencies and
      -- attention kernel timed the rows, while the program had the derived optimizer launches)
      local prof = type(so.framework) == "table" and so.framework or fw.get(info.framework)
      -- the memory the stack adds beyond the graph's tensors (a profile's memory table: the
      -- unfused loss, the CUDA context, the optimizer step's temporaries, ZeRO's buckets), as
      -- g:stats adds it under a given profile (a derived profile keeps its name: its table is
      -- the given one): rates from dlbench.framework_memory, composed per configuration in C
      local given = so.framework
      local sm = fwmemory.compiled(given and (type(given) == "table" and given or prof) or nil,
        info.precision, so.inference, info.optimizer)
      local stack = { sm.loss, sm.temp_states, sm.temp_trainable, sm.fixed }
      -- the devices cached per profile TABLE, not per name: a derived profile keeps its
      -- base's name (one call has one stats.framework, so base and derived never meet in
      -- one cache today; the table keeps it so if a call ever mixes them); and per device
      -- by its place in the space, not its name: hw:with copies of one device share a name
      -- ("H100-SXM+mem_bw") whatever their fields
      local bycache = roofcache[prof]
      if not bycache then bycache = {}; roofcache[prof] = bycache end
      for i, dv in ipairs(devs) do
        local key = i .. "\0" .. info.precision .. "\0" .. tostring(info.precision_given)
          .. "\0" .. tostring(info.causal)
        local rc = bycache[key]
        if not rc then
          local roof, prec, psource, _, _, _, slack, cdev = roofline.roof_of(dv, prof, info.precision,
            info.precision_given, time_opts, calibration, FN)
          -- the profile's kernel on a causal decoder skips the masked blocks, at its published
          -- causal rate on the device (dlb.frameworks.attn_work)
          roof.attn_work = fw.attn_work(prof, info.causal, cdev)
          -- the gradients held at the peak: every trainable one, none for an inference step
          -- (dlb.roofline.holds_all_gradients, as roofline.time's need)
          local ge = roofline.holds_all_gradients(nil, so.inference)
            and (roofline.grad_elem(info.precision) or 4) or 0
          rc = { roof = roof, mem = { sched, slack or 0, ge, cdev.mem or math.huge },
            prec = prec, psource = psource }
          bycache[key] = rc
        end
        roofs[i] = rc.roof
        pdev[i] = rc
        for j = 1, 4 do mem[8 * (i - 1) + j] = rc.mem[j] end
        for j = 1, 4 do mem[8 * (i - 1) + 4 + j] = stack[j] end
      end
      local pcols, pv = provenance_of(prof, info.framework_source, calibration,
        time_opts.calibration ~= nil, pdev, devs)
      local pkey = table.concat(pcols, "\0")
      if not provseen[pkey] then provseen[pkey] = true; provs[#provs + 1] = pv end
      for i, k in ipairs(PROV) do p[k] = pcols[i] end
      local tags = {}
      for i, k in ipairs(tagnames) do tags[i] = intern[k](p[k]) end
      -- one C call per value of the first symbol when the grid is large, so Ctrl-C (checked
      -- between calls) interrupts a long sweep within about a second
      local grid = #roofs
      for _, c in ipairs(nvalues) do grid = grid * c end
      -- one C call; with a checkpoint, into its chunk's reducer (the chunk's contribution made
      -- durable when it is full: lua/dlbench/sweep_model_checkpoint.lua), or taken from the
      -- file when its chunk finished before
      local function chunk(counts, vals)
        if not CK then
          first = first + eval(prog, counts, vals, roofs, mem, tags, per, first, red)
          return
        end
        local n = #roofs
        for _, c in ipairs(counts) do n = n * c end
        local at = first
        CK.call({ prog = prog, counts = counts, vals = vals, roofs = roofs, mem = mem,
          tags = tags, per = per, first = at, n = n },
          function(r) eval(prog, counts, vals, roofs, mem, tags, per, at, r) end)
        first = first + n
      end
      if grid > M.chunk_configs and #vlists > 0 and nvalues[1] > 1 then
        local counts, rest = { 1 }, {}
        for i = 2, #nvalues do counts[i] = nvalues[i] end
        for i = nvalues[1] + 1, #values do rest[#rest + 1] = values[i] end
        for _, v in ipairs(vlists[1]) do
          local vals = { v }
          for _, x in ipairs(rest) do vals[#vals + 1] = x end
          chunk(counts, vals)
        end
      else
        chunk(nvalues, values)
      end
    end
  end
  if CK then CK.run(run) else run() end
  local res = collect(R, cols, opts)
  res.count, res.seconds, res.compile_seconds = first, core.sys_now() - t0, compile_s
  -- the provenance as table-level metadata too: the heat maps' bins (a grid of aggregates
  -- has no row to carry it) and the whole result, one entry per distinct provenance
  res.provenance = provs
  for _, b in ipairs(res.bins or {}) do b.provenance = provs end
  if opts.verify then
    -- the rows of the fronts and top lists through the per-configuration path: the searched
    -- footprint (the compiled memory is the construction order's, equal where that order is
    -- the best found) and the time, beside the compiled ones
    local function check(t)
      local rows = {}
      for i = 1, t:count() do
        local r = t:row(i)
        local q, b = {}, {}
        for _, k in ipairs(snames) do if k ~= "precision" then q[k] = r[k] end end
        for _, k in ipairs(dnames) do q[k] = r[k] end
        if layers_dim then q[layers_dim] = r[layers_dim] end
        for _, k in ipairs(bind) do q[k] = k; b[k] = r[k] end
        for k, v in pairs(stats_opts) do b[k] = v end
        if r.precision then b.precision = r.precision end
        local g = build(q)
        local rt = roofline.time(g:stats(b), r.device, time_opts)
        r.time_checked, r.footprint, r.fits_checked = rt.time, rt.footprint, rt.fits
        rows[i] = r
      end
      local c = {}
      for _, k in ipairs(cols) do c[#c + 1] = k end
      for _, k in ipairs { "time_checked", "footprint", "fits_checked" } do c[#c + 1] = k end
      return tbl.new(rows, c)
    end
    for i, t in ipairs(res.paretos or {}) do res.paretos[i] = check(t) end
    for i, t in ipairs(res.tops or {}) do res.tops[i] = check(t) end
    res.pareto = res.paretos and res.paretos[1]
    res.top = res.tops and res.tops[1]
  end
  res.structures, res.classes = #structs, nclasses
  if CK then res.chunks, res.resumed, res.checkpoint_seconds = CK.chunks, CK.resumed, CK.seconds end
  res.rate = res.seconds > 0 and first / res.seconds or nil
  return res
end
doc.doc(M.model, "dlb.sweep.model(builder, space, {bind=, layers=, derive=, stats=, time=, throughput=, verify=, pareto=, top=, heatmap=, group_by=, keep=, threads=, checkpoint=, quiet=}) -> {count=, seconds=, pareto=, top=, heatmap=, group=, rows=, provenance=}",
  "a model family through the full per-op model in C: each structure compiled once (swept dims "
  .. "symbolic, layers by multiplicity), every configuration timed on all cores, reduced while it "
  .. "runs; every row carries dlbench, framework, calibration and defaults; checkpoint = file: "
  .. "finished chunks kept there, a rerun resumes them (docs/sweep.md)")

-- dlb.sweep.reduce(t, opts): the same reductions over any dlb.table (lua/dlbench/sweep_reduce.lua)
M.reduce = SR.reduce

-- The compiled program of one structure (for tests and studies that evaluate points):
-- {totals = function(vals) -> {name = value}, time = function(vals, roof) -> t, f, b, mb}.
function M.compile(g_builder, p, bind, layers_dim, stats_opts, ref)
  local prog, info = compile(builder_of(g_builder), p, bind, layers_dim, stats_opts or { framework = "auto" }, ref or {})
  local P = { prog = prog, info = info, classes = core.sweep_prog_nclasses(prog) }
  function P.totals(vals)
    local t = core.sweep_prog_totals(prog, vals)
    local r = {}
    for i, k in ipairs(TOTALS) do r[k] = t[i] end
    return r
  end
  function P.time(vals, roof) return core.sweep_prog_time(prog, vals, roof) end
  return P
end
doc.doc(M.compile, "dlb.sweep.compile(builder, options, bind[, layers_dim[, stats_opts[, ref]]]) -> program",
  "one structure's compiled program: P.totals(values), P.time(values, roof) (values in bind order, then layers); ref = {dim = value}: the bindings a hand-built or imported graph's family is found at "
  .. "(g:stats' rule; dlb.sweep.model gives the space's first values): without them such a graph is "
  .. "refused where the profile's passes depend on the family")

-- What dlb.sweep.layouts (lua/dlbench/sweep_layouts.lua) shares with dlb.sweep.model: the
-- one copy of the space's, builder's, provenance's and reductions' helpers (internal).
M.internal = { list_of = list_of, builder_of = builder_of, built = built, product = product,
  interner = interner, space_fields = space_fields, devices_of = devices_of, PROV = PROV,
  check_prov_names = check_prov_names, reductions = reductions, collect = collect,
  check_precisions = check_precisions }

return M
