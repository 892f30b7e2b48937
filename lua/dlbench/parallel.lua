-- dlbench.parallel — how long a training step takes on N devices, and how to split the
-- model: alpha-beta and NCCL collectives, data parallelism (sync and async), layer/pipeline and
-- tensor parallelism, ZeRO, a 3-D planner and Amdahl fits. Heavy lifting in C
-- (graphs/parallel/collective.c, parallel_data.c, pipeline.c, planner.c, amdahl.c).
-- Units: seconds, bytes, bytes/s, FLOPs, FLOP/s.
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local layers = require "dlbench.parallel_layers"

local M = { layers = layers }
local check_work   -- defined with parallel.data

-- The C enums by name, the option checks, devices and clusters, shared with
-- parallel_plan.lua (lua/dlbench/parallel_base.lua).
local base = require "dlbench.parallel_base"
local OPS, ALGOS, SCHEDS = base.OPS, base.ALGOS, base.SCHEDS
M.ops, M.algos, M.schedules = OPS, ALGOS, SCHEDS
local keys, check_opts, set, num, enum = base.keys, base.check_opts, base.set, base.num, base.enum
local check_cluster, cluster_of, is_catalogue = base.check_cluster, base.cluster_of, base.is_catalogue

------------------------------------------------------------------------------------------
-- devices and clusters (lua/dlbench/parallel_base.lua)

M.device, M.cluster = base.device, base.cluster
M.mem_pressure, M.PRESSURE_MARGIN = base.mem_pressure, base.PRESSURE_MARGIN
doc.doc(M.mem_pressure, "dlb.parallel.mem_pressure(need, cap) -> frac, reason|nil",
  "memory pressure (issue [19]): need / cap, and a reason when the peak is within "
  .. "PRESSURE_MARGIN (10%) of capacity: the time of such a step is flagged UNRELIABLE")


------------------------------------------------------------------------------------------
-- collectives

local COLL_OPTS = set { "bytes", "n", "bw", "latency", "eff", "algo", "shards", "cluster",
                        "per_node", "stride" }


-- Cost of one collective: a flat tier (bw, latency) or, for allreduce, a cluster.
function M.collective(op, o)
  local fname = "parallel." .. tostring(op)
  local code = OPS[op]
  if code == nil then
    error(string.format("parallel.collective: unknown operation '%s' (accepted: %s)",
      tostring(op), keys(OPS)), 2)
  end
  check_opts(fname, o, COLL_OPTS)
  local bytes, n = num(fname, "bytes", o.bytes, nil, "nonneg"), num(fname, "n", o.n, nil, "count")
  local default = (op == "alltoall" or op == "ps") and "direct"
    or (op == "broadcast" and "tree" or "ring")
  if op == "allreduce" and (o.cluster or o.algo == "hierarchical") then
    local cl = o.cluster or error(fname .. ": algo 'hierarchical' needs cluster=", 2)
    check_cluster(fname, cl)
    local algo = o.algo == "hierarchical" and 0 or enum(fname, "algo", o.algo, ALGOS, "ring")
    if o.algo == "hierarchical" then
      local g = cl.per_node or 1
      if n % g ~= 0 then
        error(string.format("%s: hierarchical needs n (%g) to be a multiple of per_node (%g)",
          fname, n, g), 2)
      end
      return core.parallel_allreduce_hier(bytes, g, n / g, algo, cl.intra, cl.inter)
    end
    return core.parallel_allreduce_cluster(bytes, n, algo, cl)
  end
  if op == "alltoall" and o.cluster then
    -- over the tiers the group spans: n ranks stride devices apart (the MoE dispatch of
    -- dlb.parallel.plan; graphs/parallel/collective.c dlb_par_alltoall_cluster)
    check_cluster(fname, o.cluster)
    return core.parallel_alltoall_cluster(bytes, n, num(fname, "stride", o.stride, 1, "count"), o.cluster)
  end
  if o.stride ~= nil then error(fname .. ": stride= is for alltoall with cluster=", 2) end
  if o.cluster then
    error(fname .. ": cluster= is for allreduce; give this collective one tier with bw= and "
      .. "latency=", 2)
  end
  local algo = enum(fname, "algo", o.algo, ALGOS, default)
  local lk = { bw = num(fname, "bw", o.bw, nil, "pos"),
               latency = num(fname, "latency", o.latency, 0, "nonneg"),
               eff = num(fname, "eff", o.eff, 1, "eff") }
  return core.parallel_collective(code, algo, bytes, n, num(fname, "shards", o.shards, 1), lk)
end
doc.doc(M.collective, "dlb.parallel.collective(op, {bytes=, n=, bw=, latency=[, eff=, algo=, shards=, cluster=, stride=]})"
  .. " -> {time=, bytes=, total=, steps=}",
  "alpha-beta cost of allreduce|allgather|reduce_scatter|broadcast|alltoall|ps; bytes = average per rank; "
  .. "allreduce and alltoall take cluster= (alltoall: n ranks stride= devices apart, both tiers at once)")

-- Collectives as NCCL runs them (issue [19]; graphs/parallel/nccl.c, NCCL's tuning model):
-- algorithms and protocols by name from their two C enum blocks (the one description,
-- dlbench.desc: each block's count marker left out; the protocol names are NCCL's own,
-- ncclProtoStr).
local desc = require "dlbench.desc"
local _, NCCL_ALGOS = desc.block("DLB_NCCL_TREE", "DLB_NCCL_")
local _, NCCL_PROTOS = desc.block("DLB_NCCL_LL", "DLB_NCCL_", { LL = "LL", LL128 = "LL128", SIMPLE = "Simple" })
local ALGO_NAME, PROTO_NAME = {}, {}
for k, v in pairs(NCCL_ALGOS) do ALGO_NAME[v] = k end
for k, v in pairs(NCCL_PROTOS) do PROTO_NAME[v] = k end
M.nccl_algos, M.nccl_protocols = NCCL_ALGOS, NCCL_PROTOS

function M.nccl_topo(cluster, ranks, per_node)
  local fname = "parallel.nccl_topo"
  check_cluster(fname, cluster)
  return core.parallel_nccl_topo(cluster, num(fname, "ranks", ranks, nil, "count"),
    num(fname, "per_node", per_node, nil, "count"))
end
doc.doc(M.nccl_topo, "dlb.parallel.nccl_topo(cluster, ranks, per_node) -> topo",
  "what NCCL's tuning sees of a group of ranks, per_node of them in each node of the cluster: "
  .. "the NVLink fabric's bandwidth, the group's share of the node's NICs, NVLink generation, NVLS")

function M.nccl(op, bytes, topo, algo, proto)
  local fname = "parallel.nccl"
  local code = enum(fname, "op", op, OPS)
  local a = algo == nil and -1 or enum(fname, "algo", algo, NCCL_ALGOS)
  local p = proto == nil and -1 or enum(fname, "proto", proto, NCCL_PROTOS)
  if type(topo) ~= "table" then error(fname .. ": topo must be a table (dlb.parallel.nccl_topo)", 2) end
  local r = core.parallel_nccl(code, num(fname, "bytes", bytes, nil, "nonneg"), topo, a, p)
  r.algo, r.proto = ALGO_NAME[r.algo], PROTO_NAME[r.proto]
  return r
end
doc.doc(M.nccl, "dlb.parallel.nccl(op, bytes, topo[, algo, proto]) -> {time=, algo=, proto=, latency=, bw=}",
  "a collective (allreduce, allgather, reduce_scatter, broadcast) as NCCL runs it: tuning.cc's "
  .. "latency and bandwidth per algorithm (tree, ring, nvls, nvls_tree) and protocol (LL, LL128, "
  .. "Simple), the fastest unless algo / proto are given")

-- dlb.parallel.allreduce{...} -> seconds, and the full cost table.
local collective = M.collective
function M.allreduce(o)
  local c = collective("allreduce", o)
  return c.time, c
end
doc.doc(M.allreduce, "dlb.parallel.allreduce{bytes=, n=, bw=, latency=, algo=\"ring\"} -> seconds, cost",
  "allreduce time (ring, tree, dbtree, hd; hierarchical or packed by node with cluster=)")

for _, op in ipairs { "allgather", "reduce_scatter", "broadcast", "alltoall", "ps" } do
  M[op] = function(o)
    local c = collective(op, o)
    return c.time, c
  end
  doc.doc(M[op], "dlb.parallel." .. op .. "{bytes=, n=, bw=, latency=[, algo=]} -> seconds, cost",
    op .. " time in the alpha-beta model (see dlb.parallel.collective)")
end

-- Calibrating a cluster's link tier from measured collective times (nccl-tests) lives in
-- lua/dlbench/calibrate.lua, beside dlb.hw.calibrate.
function M.calibrate_collective(cluster, rows, opts)
  return require("dlbench.calibrate").collective(cluster, rows, opts)
end
doc.doc(M.calibrate_collective, "dlb.parallel.calibrate_collective(cluster, rows[, opts]) -> cluster, fit",
  "CALIBRATE a cluster's link tier (eff, nccl_latency) to measured collective times such as "
  .. "nccl-tests' (see help(require 'dlbench.calibrate'.collective))")

------------------------------------------------------------------------------------------
-- data parallelism

-- Bytes of one gradient element under the graph engine's precision policies (docs/graph.md,
-- "precision"; graphs/step/train.c gives a weight's gradient its weight's dtype, and mixed
-- precision keeps only the optimizer state and master weights in fp32): the one table is
-- dlb.roofline.grad_elem's; here a name it does not know is an error naming the caller.
local function grad_elem_bytes(fname, prec, level)
  local R = require "dlbench.roofline"
  local b = R.grad_elem(prec)
  if b then return b end
  error(string.format("%s: precision '%s' has no gradient element size (accepted: %s, or a "
    .. "dlb.hw precision)", fname, tostring(prec), R._grad_elem_names()), level + 1)
end

-- The precision graph stats were counted at ("mixed", "fp32", ...), if they say.
local function stats_precision(s)
  local ok, p = pcall(function() return s.precision end)
  -- g:stats counted at its default (fp32) without being asked: the device chooses (its
  -- natural precision, as dlb.roofline.time)
  if ok and type(s) == "table" and rawget(s, "precision_given") == false then return nil end
  return ok and type(p) == "string" and p or nil
end

-- Bytes per element of a precision as dlb.roofline.time rescales costs (nil: mixed, no rescale).
local function elem_bytes(prec)
  if prec == nil or prec == "mixed" or prec == "mixed_bf16" then return nil end
  local ok, x = pcall(core.hw_precision_bytes, prec)
  return ok and type(x) == "number" and x > 0 and x or nil
end

-- The work of stats computed at `at` samples (see M.work); errors name fname at `level`.
-- The batch stats were counted at, when their graph says: a dlb.models graph's `batch`
-- option, a number or a dim name bound in the g:stats call; nil when unknown.
-- (origin, batch): the g:stats call that made s (dlbench.frameworks.origin) and its graph's
-- batch option (a number, or the name of the dim g:stats bound), or nil.
local function batch_origin(s)
  local origin = type(s) == "table" and require("dlbench.frameworks").origin[s] or nil
  local g = origin and origin.graph
  local mo = type(g) == "table" and type(g.model) == "table" and type(g.model.options) == "table"
    and g.model.options or nil
  return origin, mo and mo.batch
end
local function stats_batch_of(s)
  local origin, mb = batch_origin(s)
  if type(mb) == "number" then return mb end
  if type(mb) == "string" and type(origin.opts) == "table" and type(origin.opts[mb]) == "number" then
    return origin.opts[mb]
  end
  return nil
end

-- The step of stats s counted again at n samples: the same g:stats call (its options, its
-- profile) with the batch dim bound to n, through the graph that made them; nil when the
-- stats do not say their batch dim (a graph built at a numeric batch, hand-made stats) or the
-- graph has changed since (its generation: g:freeze, g:lora, new ops ...).
local function stats_at(s, n)
  local origin, mb = batch_origin(s)
  if type(mb) ~= "string" or type(origin.opts) ~= "table" or type(origin.opts[mb]) ~= "number"
      or not require("dlbench.frameworks").origin_current(origin) then
    return nil
  end
  local o = {}
  for k, v in pairs(origin.opts) do o[k] = v end
  o[mb] = n
  return origin.graph:stats(o)
end

local function work_of(fname, s, at, opts, level)
  opts = opts or {}
  if type(s) ~= "table" and type(s) ~= "userdata" then
    error(fname .. ": stats table expected, got " .. type(s), level + 1)
  end
  if s.flops_sample then return s end
  local b = at or s.batch
  if type(b) ~= "number" or not (b > 0) then
    error(fname .. ": the batch the stats were computed at is needed (subbatch= or stats_batch=)",
      level + 1)
  end
  -- the batch the stats say they were counted at (a zoo graph's numeric batch, or its batch
  -- dim as g:stats bound it): another b would scale every per-sample cost by known / b,
  -- silently (data{stats = s, subbatch = 16} of stats counted at 4 timed 4 samples a worker)
  local known = stats_batch_of(s)
  if known and known ~= b then
    error(string.format("%s: the stats were counted at batch %.0f (their graph's), not %.0f: "
      .. "give stats_batch = %.0f (subbatch= is then the samples per worker)", fname, known, b,
      known), level + 1)
  end
  local function n(x) return tonumber(x) or 0 end
  local params = s.params
  if type(params) ~= "number" or not (params >= 0) or params == math.huge then
    error(string.format("%s: stats.params must be a number >= 0 (the all-reduced gradient is "
      .. "params x bytes per gradient element), got %s; or pass work= with grad_bytes=", fname,
      tostring(params)), level + 1)
  end
  local flops = n(s.flops)
  local fu = n(s.flops_update)
  local bd = s.breakdown or {}
  -- The allreduce moves one gradient per trainable parameter: params x bytes per gradient
  -- element. Not s.breakdown.gradients: that is what is live at the footprint's peak (some
  -- of the gradients, accumulation buffers, or none at all).
  -- Frozen weights (g:freeze, LoRA, quantised) have none: s.trainable when the stats say.
  local tr = tonumber(s.trainable)
  if tr and tr >= 0 and tr <= params then params = tr end
  local grad = params * (opts.grad_bytes_per_param
    or grad_elem_bytes(fname, opts.precision or stats_precision(s), level + 1))
  -- optimizer offload: gradients go to the host as the backward pass makes them (only those
  -- live at the peak stay), as dlb.roofline.core_footprint counts them
  local gmem = grad
  if s.breakdown and (not require("dlbench.roofline").holds_all_gradients(s.offload,
      type(s) == "table" and rawget(s, "inference"), type(s) == "table"
      and rawget(s, "optimizer_in_backward")) or (type(s) == "table" and rawget(s, "footprint_walk"))) then
    -- offload or inference: the peak's (none for inference); g:stats' schedule = "walk":
    -- the gradients live at the walked peak
    gmem = n(s.breakdown.gradients)
  end
  -- memory under the framework schedule (dlb_step_memory, as dlb.roofline.time): weights,
  -- every gradient and the optimizer state per step, activations and workspace per sample;
  -- without a breakdown, the footprint per sample
  local fixed_mem, mem_sample
  if s.breakdown then
    -- a profile's per-device terms (the CUDA context, the optimizer step's temporaries,
    -- ZeRO's buckets: dlbench.framework_memory) are in the workspace once per worker, not per
    -- sample (the step's temporaries as counted at the stats' batch)
    local fmem = require "dlbench.framework_memory"
    local stack = fmem.device_bytes(type(s) == "table" and rawget(s, "framework_memory") or nil)
    fixed_mem = n(bd.weights) + gmem + n(bd.optimizer) + stack
    mem_sample = fmem.sample_bytes(s) / b
  else
    fixed_mem, mem_sample = 0, n(s.footprint) / b
  end
  local fb = n(s.flops_fwd) + n(s.flops_bwd)
  return {
    flops_sample = (fb > 0 and fb or (flops - fu)) / b,
    flops_fixed = fu,
    bytes_sample = n(s.bytes) / b,
    bytes_fixed = 0,
    bwd_frac = fb > 0 and n(s.flops_bwd) / fb or 0,
    grad_bytes = grad,
    mem_fixed = fixed_mem,
    mem_sample = mem_sample,
    samples_epoch = opts.samples_epoch or 0,
  }
end

-- A data-parallel workload from graph stats (computed at `at` samples), a {flops=, bytes=}
-- table, or already in work form.
function M.work(s, at, opts)
  return work_of("parallel.work", s, at, opts, 2)
end
doc.doc(M.work, "dlb.parallel.work(stats, batch[, {samples_epoch=, precision=}]) -> work",
  "split graph stats computed at `batch` samples into per-sample and per-step costs; the "
  .. "gradient all-reduced is stats.params x bytes per gradient element (4 fp32, 2 fp16, bf16, "
  .. "mixed, mixed_bf16; the stats' precision unless precision= is given)")


local DATA_OPTS = set { "stats", "work", "hw", "device", "precision", "workers", "subbatch",
  "batch", "stats_batch", "cluster", "bw", "latency", "eff", "algo", "bucket", "overlap",
  "async", "shards", "samples_epoch", "per_node", "nodes", "per_op", "collectives", "zero" }

-- Whether stats carry per-op costs (what dlb.roofline.time times op by op).
local function has_op_costs(s)
  if type(s) ~= "table" then return false end
  return rawget(s, "analysis") ~= nil or type(rawget(s, "ops")) == "table"
end

-- The fields of a work= table (per-sample / per-step costs): C's struct dlb_par_work.
local WORK_FIELDS = require("dlbench.desc").fields("dlb_par_work")
local WORK_SET = set(WORK_FIELDS)

-- work= is taken as is: reject unknown fields by name (a {flops=, bytes=} table of a whole
-- step belongs in stats= with stats_batch=) and values that are not finite numbers >= 0.
check_work = function(fname, w)
  if type(w) ~= "table" then
    error(string.format("%s: work must be a table {%s}, got %s", fname,
      table.concat(WORK_FIELDS, "=, ") .. "=", type(w)), 3)
  end
  local ks = {}
  for k in pairs(w) do ks[#ks + 1] = tostring(k) end
  table.sort(ks)
  for _, k in ipairs(ks) do
    local v = w[k]
    if not WORK_SET[k] then
      error(options.message(k, WORK_FIELDS, "work=", "field") .. "; for a step's totals "
        .. "{flops=, bytes=} pass stats={...} with stats_batch= the samples they cover", 3)
    end
    num(fname, "work." .. k, v, nil, k == "bwd_frac" and "unit" or "nonneg")
  end
  if not ((w.flops_sample or 0) + (w.flops_fixed or 0) > 0) then
    error(fname .. ": work has no FLOPs (set work.flops_sample, per sample forward + backward)", 3)
  end
end

-- "data parallel: 8 workers, step 120 ms (compute 100 ms, comm 30 ms, exposed 20 ms), util
-- 83%, 12.1 GB per worker (fits)": what the REPL shows for a dlb.parallel.data result.
local function data_tostring(r)
  local P = require "dlbench.pretty"
  return string.format("data parallel: %s workers, step %s (compute %s, comm %s, exposed %s), "
    .. "util %.0f%% (executed FLOPs over peak), %s per worker (%s)%s", tostring(r.workers), P.seconds(r.step),
    P.seconds(r.compute or 0), P.seconds(r.comm or 0), P.seconds(r.exposed or 0),
    100 * (r.util or 0), P.si(r.mem or 0, "B"), r.fits and "fits" or "does not fit",
    r.speedup and string.format(", speedup %.3g (efficiency %.0f%%)", r.speedup,
      100 * (r.efficiency or 0)) or "")
    .. (r.precision_source == "device" and string.format("; %s: the device's natural precision",
      tostring(r.precision)) or "")
    .. ((r.profile_zero or 0) ~= 0 and string.format("; ZeRO-0 (plain all-reduce), not %s's "
      .. "ZeRO-%d: dlb.parallel.evaluate{zero = %d} times that", tostring(r.framework),
      r.profile_zero, r.profile_zero) or "")
end

-- Synchronous (or async) data-parallel training step of stats/work on hw over a cluster.
function M.data(o)
  local fname = "parallel.data"
  if type(o) ~= "table" then error(fname .. ": an options table expected, got " .. type(o), 2) end
  check_opts(fname, o, DATA_OPTS)
  o = base.named_hw(fname, o)
  local dev = o.device or (o.hw and M.device(o.hw, o.precision
      or (is_catalogue(o.hw) and o.stats and stats_precision(o.stats)) or nil))
    or error(fname .. ": option 'hw' (or device) is required", 2)
  if o.stats and not o.work and o.stats_batch == nil and o.subbatch == nil then
    error(fname .. ": with stats= give subbatch= (the batch the stats were computed at) or "
      .. "stats_batch=", 2)
  end
  local workers = num(fname, "workers", o.workers, nil, "count")
  if o.subbatch ~= nil then num(fname, "subbatch", o.subbatch, nil, "count") end
  if o.batch ~= nil then num(fname, "batch", o.batch, nil, "count") end
  if o.subbatch == nil and o.batch == nil then
    error(fname .. ": give subbatch= (samples per worker, weak scaling) or batch= (global, "
      .. "strong scaling)", 2)
  end
  if o.stats_batch ~= nil then num(fname, "stats_batch", o.stats_batch, nil, "pos") end
  -- the ZeRO stage: data times plain data parallelism (DDP: every worker holds the whole
  -- model and all-reduces every gradient), ZeRO-0 and no other; zero = 0 says so, a sharded
  -- stage is evaluate's (its gathers are per layer: dlb_par_zero_split and the planner's
  -- collectives, graphs/parallel/planner_dp.c), named rather than timed as another step
  if o.zero ~= nil and num(fname, "zero", o.zero, nil, "whole") ~= 0 then
    error(string.format("%s: zero = %s: data times a plain all-reduce (ZeRO-0); time ZeRO "
      .. "stage %s with dlb.parallel.evaluate{graph = g, hw = ..., dp = <workers>, tp = 1, pp = 1, "
      .. "batch = <workers x subbatch>, zero = %s}", fname, tostring(o.zero), tostring(o.zero),
      tostring(o.zero)), 2)
  end
  if o.work ~= nil then check_work(fname, o.work) end
  -- switches (async = 0 ran the parameter server), the device and samples_epoch by name
  -- (NaN was "work costs must be finite", a number as device a bad argument to parallel_data)
  options.switches(o, { "per_op", "async" }, fname, 2)
  if o.device ~= nil and type(o.device) ~= "table" then
    error(string.format("%s: option 'device' must be a device table (dlb.parallel.device(hw)), got %s %s",
      fname, type(o.device), tostring(o.device)), 2)
  end
  if o.samples_epoch ~= nil then num(fname, "samples_epoch", o.samples_epoch, nil, "nonneg") end
  if o.stats == nil and o.work == nil then
    error(fname .. ": option 'stats' (or work) is required", 2)
  end
  local at = o.stats_batch or o.subbatch
  local w = o.work or work_of(fname, o.stats, at,
    { samples_epoch = o.samples_epoch, precision = o.precision }, 2)
  if o.samples_epoch and o.work then
    local c = {}
    for k, v in pairs(w) do c[k] = v end
    c.samples_epoch = o.samples_epoch
    w = c
  end
  local cl = cluster_of(fname, o)
  -- the gradient allreduce as NCCL runs it on GPUs, else alpha-beta (the planner's rule and
  -- its one allreduce, dlb_par_dp_allreduce); NCCL chooses its own algorithm, so algo= (an
  -- alpha-beta algorithm) goes with collectives = "alpha-beta"
  local coll = o.collectives == nil and base.default_collectives(o, cl) or o.collectives
  local nccl = enum(fname, "collectives", coll, base.COLLECTIVES)
  if not o.async then base.check_algo(fname, coll, o.algo, o.collectives ~= nil, 2) end
  -- Per-worker compute from dlb.roofline.time when the costs are a graph's stats and hw is a
  -- catalogue device, in the same mode as dlb.roofline.time(s, hw): op by op when the stats
  -- carry per-op costs (a graph's s.analysis, or s.ops), else whole-graph
  -- max(c/(eff x peak), a/(eff x bw)) (Hestness sec. 5.2.2); per_op= chooses.
  local compute, roof, mode, counted = 0, nil, nil, nil
  local stats_roof = o.stats ~= nil and o.work == nil and o.device == nil and is_catalogue(o.hw)
  if o.per_op == true and not (stats_roof and has_op_costs(o.stats)) then
    error(fname .. ": per_op=true needs stats= with per-op costs (a graph's stats) and hw= a "
      .. "dlb.hw catalogue device", 2)
  end
  if stats_roof then
    local R = require "dlbench.roofline"
    local sb = o.subbatch or o.batch / workers
    local ropts = { precision = o.precision, per_op = o.per_op }
    local sp = stats_precision(o.stats)
    -- at another subbatch, the step counted again at it when the stats' graph can (stats_at):
    -- the same rule as dlb.roofline.time of that step, its optimizer launches included
    -- (not at a subbatch that is not whole, batch / workers = 16.5: no batch a graph can be
    -- counted at; the data-parallel rule in C refuses it, naming the batch and the workers)
    local s_sb = sb ~= at and sb == math.floor(sb) and o.per_op ~= false and stats_at(o.stats, sb)
      or nil
    if sb == at or s_sb then   -- the subbatch's stats: exactly dlb.roofline.time
      roof = R.time(s_sb or o.stats, o.hw, ropts)
      compute, mode = roof.time, roof.mode
      if s_sb then counted = sb end
      -- the footprint as dlb.roofline.time counts it (rescaled when precision= differs)
      if roof.memory then   -- under the same memory schedule as dlb.roofline.time
        local c = {}
        for k, v in pairs(w) do c[k] = v end
        c.mem_fixed, c.mem_sample = 0, roof.memory / sb
        w = c
      end
    else
      -- the stats describe `at` samples and cannot be counted again: whole-graph roofline of
      -- the subbatch's FLOPs and bytes, and with per-op costs that time scaled by the per-op /
      -- whole-graph ratio at `at` (an estimate: exact at sb = at)
      local function whole(n)
        return R.time({ flops = w.flops_sample * n + w.flops_fixed,
          bytes = w.bytes_sample * n + w.bytes_fixed, precision = sp }, o.hw,
          { precision = o.precision })
      end
      roof = whole(sb)
      compute, mode = roof.time, "graph"
      if o.per_op ~= false and has_op_costs(o.stats) then
        local there, ref = R.time(o.stats, o.hw, ropts), whole(at)
        if ref.time > 0 then
          compute = roof.time * there.time / ref.time
          mode = "per_op_scaled"
        end
      end
    end
  end
  -- the gradients reduced at the profile's reduce dtype (PyTorch FSDP MixedPrecision
  -- reduce_dtype: torchtitan and fsdp reduce in fp32), as dlb.parallel.evaluate and plan
  -- reduce them (the profile's planner option, dlb.frameworks.plan_defaults; graphs/parallel/
  -- planner_dp.c: reduce_bytes, else the gradients' own bytes); the profile is the one
  -- dlb.roofline.time applies to the stats (theirs, a derived one included, else the
  -- default); memory keeps the gradients' own bytes.
  -- Costs given as work= or a device= table: no profile, the work's grad_bytes as given.
  local rprof = stats_roof and select(2, require("dlbench.roofline")._framed(o.stats, nil, fname))
    or nil
  local pdef = rprof and require("dlbench.frameworks").plan_defaults(rprof) or {}
  local rdt = pdef.reduce_dtype
  if rdt ~= nil then
    local ge = grad_elem_bytes(fname, o.precision or stats_precision(o.stats), 2)
    local c = {}
    for k, v in pairs(w) do c[k] = v end
    c.grad_bytes = w.grad_bytes / ge * core.hw_precision_bytes(rdt)
    w = c
  end
  local r = core.parallel_data(w, dev, cl, {
    compute = compute,
    workers = workers,
    subbatch = o.subbatch or 0,
    batch = o.batch or 0,
    algo = enum(fname, "algo", o.algo, ALGOS, "ring"),
    bucket = num(fname, "bucket", o.bucket, 0, "nonneg"),
    overlap = num(fname, "overlap", o.overlap, 0, "unit"),
    async = o.async and 1 or 0,
    shards = num(fname, "shards", o.shards, 1, "count"),
    nccl = nccl,
  })
  r.workers = o.workers
  -- how the gradient allreduce was timed (async parameter-server steps: alpha-beta always)
  r.collectives = o.async and "alpha-beta" or coll
  r.fits = r.fits == 1
  r.device_mem = dev.mem
  r.grad_bytes = w.grad_bytes
  r.reduce_dtype = rdt
  -- the stage timed (always 0, above) and the one the profile runs, which
  -- dlb.parallel.evaluate takes when given no zero= (dlb.frameworks.plan_defaults; nil: no
  -- profile, work= or a device= table): where they differ, evaluate{dp = workers} of the
  -- same stats is another configuration, and the result says so (r.framework names it)
  r.zero = 0
  if rprof then r.framework, r.profile_zero = rprof.name, pdef.zero or 0 end
  if roof then r.roofline = { time = compute, bound = roof.bound, precision = roof.precision,
    device = roof.device, mode = mode, counted_at = counted, defaults = roof.provenance.defaults } end
  -- the precision the compute ran at, and whether the call chose it (review 21: a TPU's bf16
  -- and a GPU's fp32 were chosen for stats that say none without a word): dlb.roofline.time's
  -- rule and words (hw:defaulted_precision)
  if roof then
    r.precision, r.precision_source = roof.precision, roof.precision_source
  end
  -- which memory rule r.mem and r.fits follow (dlb_step_memory; "footprint": the stats' own)
  r.mem_schedule = (roof and roof.schedule) or (o.work and "work")
    or ((type(o.stats) == "table" and o.stats.breakdown) and "framework" or "footprint")
  return require("dlbench.pretty").object(r, data_tostring)
end
doc.doc(M.data, "dlb.parallel.data{stats=s|work=w, hw=, workers=, subbatch=|batch=, cluster=|bw=,latency=,"
  .. " bucket=, overlap=, algo=, async=, shards=, samples_epoch=, per_op=, collectives=,"
  .. " zero=0} -> {step=,"
  .. " compute=, comm=, exposed=, util=, mem=, fits=, shortfall=, grad_bytes=, reduce_dtype=, collectives=, zero=0, framework=, profile_zero=, ...}",
  "data-parallel synchronous SGD without ZeRO (r.zero = 0; zero= takes only 0: a profile's sharded stage, "
  .. "r.profile_zero when it is not 0, is dlb.parallel.evaluate's) (bucketed allreduce of params x gradient bytes, at the profile's reduce_dtype as evaluate, overlapping "
  .. "backward; as NCCL runs it on GPUs, collectives=\"alpha-beta\" for the ring / hierarchical "
  .. "model and algo=) or async parameter server; compute as dlb.roofline.time (op by op for a graph's "
  .. "stats unless per_op=false); fits=false and shortfall (bytes) when a worker's footprint "
  .. "exceeds the device memory")

-- Data parallelism over a list of worker counts: weak (fixed subbatch) or strong (fixed batch).
function M.scaling(o)
  local ws = type(o) == "table" and o.workers
  if type(ws) ~= "table" or #ws == 0 then
    error("parallel.scaling: workers must be a non-empty list of counts", 2)
  end
  local rows = {}
  for i, n in ipairs(ws) do
    local c = {}
    for k, v in pairs(o) do c[k] = v end
    c.workers = n
    local ok, r = pcall(M.data, c)
    if not ok then
      error(string.format("parallel.scaling: workers[%d] = %s: %s", i, tostring(n),
        (tostring(r):gsub("^parallel%.data: ", ""))), 2)
    end
    r.speedup = nil
    rows[i] = r
  end
  local base = rows[1]
  for _, r in ipairs(rows) do
    r.speedup = r.throughput / base.throughput * (base.workers or 1)
    r.efficiency = r.speedup / r.workers
  end
  return rows
end
doc.doc(M.scaling, "dlb.parallel.scaling{workers={...}, <dlb.parallel.data options>} -> {result...}",
  "data-parallel results per worker count with speedup and efficiency (vs the first count x its "
  .. "workers), and fits/shortfall: whether each count's per-worker footprint fits the device")

------------------------------------------------------------------------------------------
-- pipeline, tensor, plans

function M.partition(weights, k)
  if type(weights) ~= "table" or #weights == 0 then
    error("parallel.partition: weights must be a non-empty list of numbers", 2)
  end
  -- a plain copy goes to C: a proxy whose __index raises must raise here, not inside the
  -- binding between its malloc and its free
  local plain = {}
  for i = 1, #weights do
    local x = weights[i]
    if type(x) ~= "number" or not (x >= 0) or x == math.huge then
      error(string.format("parallel.partition: weights[%d] must be a finite number >= 0, got %s",
        i, tostring(x)), 2)
    end
    plain[i] = x
  end
  weights = plain
  if type(k) ~= "number" or k ~= math.floor(k) or k < 1 or k > #weights then
    error(string.format("parallel.partition: %s stages for %d layers (the stages must be a "
      .. "whole number in 1..%d)", tostring(k), #weights, #weights), 2)
  end
  return core.parallel_partition(weights, k)
end
doc.doc(M.partition, "dlb.parallel.partition(weights, k) -> {first layer of each stage}",
  "split layers into k contiguous stages minimising the heaviest stage (1-based indices)")

function M.bubble(sched, p, m, v)
  local code = enum("parallel.bubble", "schedule", sched, SCHEDS)
  for name, x in pairs { p = p, m = m, v = v or 1 } do
    if type(x) ~= "number" or not (x >= 1) then
      error(string.format("parallel.bubble: %s must be a number >= 1, got %s", name, tostring(x)), 2)
    end
  end
  return core.parallel_bubble(code, p, m, v or 1)
end
doc.doc(M.bubble, "dlb.parallel.bubble(schedule, p, m[, v]) -> fraction",
  "idle fraction of a pipelined step: gpipe/1f1b (p-1)/(m+p-1), interleaved (p-1)/(vm+p-1)")

-- The layouts over per-layer costs (plan, evaluate, pipeline): lua/dlbench/parallel_plan.lua.
do
  local plan = require "dlbench.parallel_plan"
  M.mem_schedules, M.plan, M.evaluate, M.pipeline = plan.mem_schedules, plan.plan, plan.evaluate,
    plan.pipeline
  M.prepare = plan.prepare
end

------------------------------------------------------------------------------------------
-- memory of ZeRO stages (Rajbhandari et al. 2020 Fig. 1)

-- fp16 weights (2 bytes), fp16 gradients (2) and K bytes of optimizer state per parameter
-- (Adam's fp32 master weights, momentum and variance: 12), each kept whole or split dp ways
-- by the planner's ZeRO rule (dlb_par_zero_split, graphs/parallel/planner_dp.c): the paper's
-- (2+2+K) psi, 2 psi + 2 psi + K psi / Nd, 2 psi + (2+K) psi / Nd, (2+2+K) psi / Nd.
function M.zero_memory(params, dp, stage, k)
  local fname = "parallel.zero_memory"
  num(fname, "params", params, nil, "nonneg")
  num(fname, "dp", dp, nil, "count")
  k = num(fname, "K", k, 12, "nonneg")
  if stage ~= 0 and stage ~= 1 and stage ~= 2 and stage ~= 3 then
    error("parallel.zero_memory: stage must be 0..3, got " .. tostring(stage), 2)
  end
  local w, g, o = core.parallel_zero_split(stage, dp)
  return 2 * params / w + 2 * params / g + k * params / o
end
doc.doc(M.zero_memory, "dlb.parallel.zero_memory(params, dp, stage[, K=12]) -> bytes",
  "model-state bytes per device under ZeRO stage 0-3 with mixed-precision Adam (2+2+K per param)")

------------------------------------------------------------------------------------------
-- Amdahl

function M.amdahl(f, n)
  if type(f) ~= "number" or not (f >= 0 and f <= 1) then
    error("parallel.amdahl: serial fraction f must be in [0, 1], got " .. tostring(f), 2)
  end
  if type(n) ~= "number" or not (n > 0) then
    error("parallel.amdahl: workers n must be > 0, got " .. tostring(n), 2)
  end
  return core.parallel_amdahl(f, n)
end
doc.doc(M.amdahl, "dlb.parallel.amdahl(f, n) -> speedup", "Amdahl's law 1/(f + (1-f)/n)")

-- A plain copy of a list of numbers (see M.partition); what names it in messages.
local function numbers(list, what)
  if type(list) ~= "table" then error(string.format("parallel.amdahl_fit: %s must be a list of numbers, got a %s", what, type(list)), 3) end
  local out = {}
  for i = 1, #list do
    local x = list[i]
    if type(x) ~= "number" then
      error(string.format("parallel.amdahl_fit: %s[%d] must be a number, got %s", what, i, type(x)), 3)
    end
    out[i] = x
  end
  return out
end

function M.amdahl_fit(ns, speedups)
  ns, speedups = numbers(ns, "workers"), numbers(speedups, "speedups")
  local f, r2 = core.parallel_amdahl_fit(ns, speedups)
  return { f = f, r2 = r2 }
end
doc.doc(M.amdahl_fit, "dlb.parallel.amdahl_fit(workers, speedups) -> {f=, r2=}",
  "least-squares serial fraction from measured speedups")

-- ParaDnn sec. 4.3: serial fraction from utilisation on 1 and n cores (speedup n u_n / u_1).
function M.amdahl_from_util(u1, un, n)
  if not (type(u1) == "number" and u1 > 0 and type(un) == "number" and un > 0) then
    error("parallel.amdahl_from_util: utilisations must be > 0", 2)
  end
  return core.parallel_amdahl_fit({ n }, { n * un / u1 })
end
doc.doc(M.amdahl_from_util, "dlb.parallel.amdahl_from_util(u1, un, n) -> f",
  "serial fraction from FLOP utilisation on 1 and n cores (ParaDnn sec. 4.3)")

-- Errors of the public functions name the user's line, not the library's: each is wrapped
-- to re-raise its error (without a position inside lua/dlbench or a C prefix) at its
-- caller's level, prefixed with the function's name when the message lacks one.
local unpack = table.unpack or unpack  -- luacheck: ignore
local strip = require("dlbench.errors").strip
local errors = require "dlbench.errors"
local function rethrow(fname, inner, e)
  if type(e) ~= "string" then error(e, 3) end
  local m = strip(e):gsub("^plan: ", ""):gsub("^data parallel: ", "")
  if not m:match("^parallel[%.%w_]*: ") then
    m = fname .. ": " .. m
  end
  if inner then error(m, 0) end -- called by the library: its caller adds the location
  errors.raise(m) -- at the first frame outside the library (tail calls too)
end
-- ret runs in the public function's place (its tail call), so its caller is that function's
-- caller: whether the library called it is asked there, and only when the call failed (the
-- stack walk cost every successful call ~3% of the serving notebook's time, branch suite-cpu3)
local function ret(fname, ok, ...)
  if not ok then rethrow(fname, errors.from_library(2), (...)) end
  return ...
end
local function public(fname, f)
  local g = function(...)
    return ret(fname, pcall(f, ...))
  end
  local d = doc.get(f)
  if d then doc.doc(g, d.signature, d.meaning) end
  return g
end
local names = {}
for k, f in pairs(M) do
  if type(f) == "function" then names[#names + 1] = k end
end
for _, k in ipairs(names) do M[k] = public("parallel." .. k, M[k]) end

doc.doc(M, "dlb.parallel", "parallel training: collective, allreduce, data, scaling, pipeline, "
  .. "evaluate, plan, partition, bubble, zero_memory, amdahl, layers.transformer/word_lm")
return M
