-- dlbench.parallel_base — what dlb.parallel (lua/dlbench/parallel.lua) and its planner
-- (parallel_plan.lua) share: the C enums by name (graphs/parallel/dlb_parallel.h), the option checks
-- (numbers and their rules, enum names, links), and the devices and clusters the models take
-- (dlb.parallel.device and dlb.parallel.cluster, which parallel.lua gives, and the cluster
-- of an options table). Internal: the user-facing API is dlb.parallel (docs/parallel.md).
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local M = {}

-- The C enums by name (graphs/parallel/dlb_parallel.h, through core.enum).
M.OPS = core.enum_names("DLB_COLL_")
M.ALGOS = core.enum_names("DLB_ALGO_")
M.SCHEDS, M.SCHED_NAMES = core.enum_names("DLB_SCHED_")
M.CP_ALGOS, M.CP_ALGO_NAMES = core.enum_names("DLB_CP_")
M.MOE_IMPLS, M.MOE_IMPL_NAMES = core.enum_names("DLB_MOE_")
M.DISPATCHERS, M.DISPATCHER_NAMES = core.enum_names("DLB_DISPATCHER_")

local function keys(t)
  local k = {}
  for name in pairs(t) do k[#k + 1] = tostring(name) end
  table.sort(k)
  return table.concat(k, ", ")
end

-- Raise for options not in `valid` (a set), naming the function and the accepted keys.
local function check_opts(fname, o, valid)
  options.check(o, valid, fname, 3, true)
end

local function set(list)
  local s = {}
  for _, k in ipairs(list) do s[k] = true end
  return s
end

-- Rules a number must obey (all must be finite): what the message says for each.
local RULES = {
  pos = { function(x) return x > 0 end, "a number > 0" },
  nonneg = { function(x) return x >= 0 end, "a number >= 0" },
  count = { function(x) return x >= 1 and x == math.floor(x) end, "a whole number >= 1" },
  eff = { function(x) return x > 0 and x <= 1 end, "a fraction in (0, 1]" },
  unit = { function(x) return x >= 0 and x <= 1 end, "a fraction in [0, 1]" },
  ge1 = { function(x) return x >= 1 end, "a number >= 1" },
  whole = { function(x) return x >= 0 and x == math.floor(x) end, "a whole number >= 0" },
}

local function num(fname, name, v, default, rule)
  if v == nil then
    if default == nil then error(string.format("%s: option '%s' is required", fname, name), 3) end
    return default
  end
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
    error(string.format("%s: option '%s' must be a finite number, got %s", fname, name,
      type(v) == "number" and tostring(v) or (type(v) .. " " .. tostring(v))), 3)
  end
  local r = rule and RULES[rule]
  if r and not r[1](v) then
    -- the value as it is: tostring's 14 digits show 1 + 2^-52 as "1.0", a fraction that
    -- reads as inside (0, 1]
    local shown = tonumber(tostring(v)) == v and tostring(v) or string.format("%.17g", v)
    error(string.format("%s: option '%s' must be %s, got %s", fname, name, r[2], shown), 3)
  end
  return v
end

-- A switch: nil (default false) or a boolean -> 1 or 0 for C. Anything else is an error
-- naming it: Lua reads 0 and "no" as true, so seq_par = 0 would turn the switch on.
local function flag(fname, name, v)
  options.switches({ [name] = v }, { name }, fname, 3)
  return v and 1 or 0
end

local function enum(fname, name, v, map, default)
  if v == nil then v = default end
  local x = map[v]
  if x == nil then
    error(string.format("%s: %s '%s' is unknown (accepted: %s)", fname, name, tostring(v),
      keys(map)), 3)
  end
  return x
end

-- A link {bw=, latency=, eff=[, nccl_latency=]} from a table (or the hw's `links` tier);
-- nccl_latency: seconds added to every NCCL collective on the tier (a CALIBRATION,
-- dlb.parallel.calibrate_collective; C's dlb_par_link).
local function link(fname, t, what)
  if type(t) ~= "table" then
    error(string.format("%s: %s must be a table {bw=, latency=, eff=}", fname, what), 3)
  end
  local l = { bw = num(fname, what .. ".bw", t.bw, nil, "pos"),
    latency = num(fname, what .. ".latency", t.latency, 0, "nonneg"),
    eff = num(fname, what .. ".eff", t.eff, 1, "eff") }
  if t.nccl_latency ~= nil then
    l.nccl_latency = num(fname, what .. ".nccl_latency", t.nccl_latency, 0, "nonneg")
  end
  return l
end

------------------------------------------------------------------------------------------
-- devices and clusters

-- The fields of a device the models read: C's struct dlb_roof (graphs/hw/dlb_hw.h, through
-- dlbench.desc), which a plain table spells by the same names (`mem_bw` may stand for `bw`).
local DEVICE_FIELDS = require("dlbench.desc").fields("dlb_roof")

-- The defaults entry of the precision plan / evaluate chose when the call named none, or
-- nil (review 21: a layer list's went unsaid, and "mixed" did not say which peak): the one
-- rule, hw:defaulted_precision, on a catalogue device (gp: the graph's "mixed" or the layer
-- list's own); a device table's graph: "precision mixed". Errors name fname at the caller's
-- caller (a default the device cannot run: mixed on a CPU host).
function M.precision_entry(fname, o, gp, graph)
  if o.precision ~= nil then return nil end
  if o.device == nil and M.is_catalogue(o.hw) then
    local whose = not graph and gp and "the layers'" or nil
    local ok, res = pcall(function() return select(3, o.hw:defaulted_precision(gp, whose)) end)
    if not ok then error(fname .. ": " .. require("dlbench.errors").strip(res), 4) end
    return res
  end
  return graph and "precision mixed" or nil
end

-- The device numbers the models use, from a dlb.hw device (peak per precision, and the same
-- description dlb.roofline.time uses: hw:roof) or a table.
function M.device(hw, precision)
  local errors = require "dlbench.errors"
  if type(hw) ~= "table" then errors.raise("parallel.device: hw table expected, got " .. type(hw)) end
  local peak = hw.peak
  if type(peak) == "table" then
    local p = precision
    if type(hw.precision) == "function" then        -- a dlb.hw device: "mixed", defaults
      if p == nil and type(hw.default_precision) == "function" then p = hw:default_precision() end
      local ok, q = pcall(hw.precision, hw, p)
      if not ok then errors.raise("parallel.device: " .. errors.strip(q)) end
      p = q
      local r = hw:roof(p)
      r.mem, r.mem_bw, r.name, r.precision = hw.mem or 0, r.bw, hw.name, p
      return r
    end
    p = p or "fp32"
    peak = peak[p]
    if type(peak) ~= "number" then
      errors.raise(string.format("parallel.device: %s has no peak for precision '%s' (has: %s)",
        tostring(hw.name or "device"), p, keys(hw.peak)))
    end
  end
  if type(peak) ~= "number" or not (peak > 0) then
    errors.raise("parallel.device: hw.peak must be FLOP/s (a number or {fp32=...})")
  end
  local dflt = core.roof_defaults()   -- the C defaults (0.8 / 0.7), one home
  local d = { peak = peak, mem_bw = hw.mem_bw or hw.bw or 0, mem = hw.mem or 0, name = hw.name }
  d.bw = d.mem_bw
  for _, k in ipairs(DEVICE_FIELDS) do if d[k] == nil then d[k] = hw[k] end end
  d.flops_eff, d.bw_eff = hw.flops_eff or dflt.flops_eff, hw.bw_eff or dflt.bw_eff
  return d
end
doc.doc(M.device, "dlb.parallel.device(hw[, precision]) -> {peak=, mem_bw=, mem=, flops_eff=, bw_eff=, ...}",
  "the numbers of a dlb.hw device (or any table with those fields) the parallel models use: "
  .. "the same description (hw:roof) as dlb.roofline.time, with mem")

-- A device name works wherever a device does (dlb.roofline.time takes names too): an
-- options table whose hw is a name gets a copy with the catalogue device in its place.
local function named_hw(fname, o)
  if type(o) ~= "table" or type(rawget(o, "hw")) ~= "string" then return o end
  local errors = require "dlbench.errors"
  local ok, d = pcall(require("dlbench.hw").get, o.hw)
  if not ok then errors.raise(fname .. ": hw: " .. errors.strip(d)) end
  local c = {}
  for k, v in pairs(o) do c[k] = v end
  c.hw = d
  return c
end
M.named_hw = named_hw

local CLUSTER_OPTS = set { "per_node", "nodes", "intra", "inter", "hw", "nics", "nvlink", "nvls" }
-- A cluster: devices per node, nodes and two link tiers (default: the hw's links).
function M.cluster(o)
  check_opts("parallel.cluster", o, CLUSTER_OPTS)
  o = named_hw("parallel.cluster", o)
  local links = o.hw and o.hw.links or {}
  local c = { per_node = num("parallel.cluster", "per_node", o.per_node, 1, "count"),
              nodes = num("parallel.cluster", "nodes", o.nodes, 1, "count") }
  local intra, inter = o.intra or links.intra, o.inter or links.inter
  if intra then c.intra = link("parallel.cluster", intra, "intra") end
  if inter then c.inter = link("parallel.cluster", inter, "inter") end
  if not c.intra and not c.inter then
    error("parallel.cluster: give intra and/or inter links {bw=, latency=} (or hw with links)", 2)
  end
  -- the fabric as NCCL sees it (issue [19]): NICs per node (each of inter.bw; 0: one per
  -- device), NVLink generation, NVLink SHARP; default: the hw's (catalogue FABRIC)
  local hw = o.hw or {}
  c.nics = num("parallel.cluster", "nics", o.nics, hw.nics or 0, "nonneg")
  c.nvlink = num("parallel.cluster", "nvlink", o.nvlink, hw.nvlink or 0, "nonneg")
  c.nvls = num("parallel.cluster", "nvls", o.nvls == true and 1 or o.nvls, hw.nvls or 0, "nonneg")
  if c.nics ~= math.floor(c.nics) or c.nvlink ~= math.floor(c.nvlink) or c.nvlink > 5
    or not (c.nvls == 0 or c.nvls == 1) then
    error(string.format("parallel.cluster: nics must be a whole number, nvlink a generation "
      .. "0..5 and nvls 0 or 1 (got %s, %s, %s)", tostring(c.nics), tostring(c.nvlink),
      tostring(c.nvls)), 2)
  end
  return c
end
doc.doc(M.cluster, "dlb.parallel.cluster{per_node=, nodes=, intra={bw=, latency=, eff=[, nccl_latency=]}, inter=..., nics=, nvlink=, nvls=}",
  "a cluster of nodes with two link tiers (bytes/s, s; inter.bw is one NIC's; nccl_latency: s "
  .. "added to every NCCL collective on the tier, dlb.parallel.calibrate_collective), NICs per node "
  .. "(0: one per device), NVLink generation and NVLink SHARP; hw= takes hw.links and the fabric")

-- A cluster= table (from dlb.parallel.cluster or built by hand) obeys the same rules:
-- per_node and nodes whole >= 1 (nodes 0: a flat tier of any size), links bw > 0, latency
-- >= 0, eff in (0, 1].
local function check_cluster(fname, c)
  if type(c) ~= "table" then
    error(fname .. ": cluster must be a dlb.parallel.cluster{...}, got " .. type(c), 3)
  end
  num(fname, "cluster.per_node", c.per_node, 1, "count")
  if c.nodes ~= 0 then num(fname, "cluster.nodes", c.nodes, 1, "count") end
  for _, tier in ipairs { "intra", "inter" } do
    if c[tier] ~= nil then link(fname, c[tier], "cluster." .. tier) end
  end
  if c.intra == nil and c.inter == nil then
    error(fname .. ": the cluster has no links (give intra= and/or inter= {bw=, latency=})", 3)
  end
  return c
end

-- The cluster of an options table: cluster=, or bw=/latency=/eff= for one flat tier.
local function cluster_of(fname, o)
  -- latency= and eff= describe the flat tier bw= makes: without bw= (the device's links or a
  -- cluster= used) they were ignored, whatever they held ("x", NaN)
  if o.bw == nil and (o.latency ~= nil or o.eff ~= nil) then
    error(fname .. ": latency= and eff= describe one flat link tier with bw=; give bw= too, or "
      .. "leave them out (a cluster= or the device's links carry their own)", 3)
  end
  if o.cluster then
    if o.bw ~= nil then
      error(fname .. ": give cluster= or bw= (one flat link tier), not both", 3)
    end
    return check_cluster(fname, o.cluster)
  end
  if o.bw then
    -- one flat tier of any size (nodes 0: not sized)
    return { per_node = 1, nodes = 0, inter = { bw = num(fname, "bw", o.bw, nil, "pos"),
             latency = num(fname, "latency", o.latency, 0, "nonneg"),
             eff = num(fname, "eff", o.eff, 1, "eff") } }
  end
  if o.hw and type(o.hw.links) == "table" and (o.hw.links.intra or o.hw.links.inter) then
    -- the device's own link tiers; nodes of 8 devices unless per_node= says otherwise
    local g = num(fname, "per_node", o.per_node, 8, "count")
    local total = o.devices or (type(o.workers) == "number" and o.workers) or g
    return M.cluster { hw = o.hw, per_node = g, nodes = o.nodes or math.ceil(total / g) }
  end
  error(fname .. ": give cluster= (dlb.parallel.cluster{...}) or bw= and latency= for one link tier", 3)
end

-- A device of the dlb.hw catalogue (what dlb.roofline.time accepts).
local function is_catalogue(hw)
  if type(hw) ~= "table" then return false end
  local ok, h = pcall(require, "dlbench.hw")
  return ok and type(h) == "table" and h.Device ~= nil and getmetatable(hw) == h.Device
end

-- How the tensor- and data-parallel collectives are timed (issue [19]): "nccl", NCCL's own
-- tuning model (dlb_par_nccl: algorithm and protocol by message size, the node's NICs), or
-- "alpha-beta", the ring / hierarchical model of dlb_par_collective (before issue [19]).
-- Used by dlb.parallel.plan / evaluate and dlb.parallel.data.
M.COLLECTIVES = { ["alpha-beta"] = 0, nccl = 1 }

-- The collectives of options o on cluster cl when o.collectives does not say: as NCCL runs
-- them on GPUs (a catalogue GPU, or a cluster that states its NVLink), else alpha-beta (TPU
-- ICI, CPUs, hand-made devices).
function M.default_collectives(o, cl)
  local gpu = (is_catalogue(o.hw) and o.hw.kind == "gpu") or (cl.nvlink or 0) > 0
  return gpu and "nccl" or "alpha-beta"
end
-- algo= names an alpha-beta allreduce algorithm (ring, tree, dbtree, hd): under NCCL's model,
-- which picks its own algorithm by size, it would be ignored, so it is refused, in
-- parallel.data and in evaluate / plan / pipeline alike (review 11: those three ignored it
-- without a word). coll: the collectives model in force; given: whether the caller chose it.
function M.check_algo(fname, coll, algo, given, level)
  if coll == "nccl" and algo ~= nil then
    error(string.format("%s: algo='%s' is an alpha-beta algorithm, but the allreduce runs as "
      .. "NCCL runs it (collectives = \"nccl\"%s, which picks its own algorithm): give "
      .. "collectives = \"alpha-beta\" with algo=", fname, tostring(algo),
      given and "" or ", the default on a GPU"), (level or 1) + 1)
  end
end

M.keys, M.check_opts, M.set, M.num, M.enum, M.link, M.flag = keys, check_opts, set, num, enum, link, flag
-- Memory pressure (issue [19] item 3): a step whose peak (the framework memory schedule's
-- bytes) comes within PRESSURE_MARGIN of the device's capacity runs into the caching
-- allocator's limits (PyTorch's allocator frees its cached blocks and retries cudaMalloc,
-- "CUDA semantics: memory management", and fragmentation leaves blocks unusable), which the
-- time models do not cost: such a prediction is flagged unreliable, not printed as a
-- confident number. The margin, 10% of capacity, was chosen before any error was looked at
-- (the order of the fragmentation reported for the caching allocator: Guo et al. 2024,
-- GMLake, ASPLOS, sec. 2). Returns frac = need / cap and the reason, or nil when there is
-- no pressure (or no capacity: cap <= 0, unlimited).
M.PRESSURE_MARGIN = 0.10
function M.mem_pressure(need, cap)
  if type(need) ~= "number" or type(cap) ~= "number" or not (cap > 0) then return nil, nil end
  local frac = need / cap
  if frac < 1 - M.PRESSURE_MARGIN then return frac, nil end
  return frac, string.format("peak memory %.0f%% of the device's %.3g GB (within %.0f%% of "
    .. "capacity): allocator retries and fragmentation are not modelled, so this time is "
    .. "UNRELIABLE", 100 * frac, cap / 1e9, 100 * M.PRESSURE_MARGIN)
end

M.check_cluster, M.cluster_of, M.is_catalogue = check_cluster, cluster_of, is_catalogue
return M
