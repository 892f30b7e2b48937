-- dlbench.roofline — costs to time on a device. dlb.roofline.time(s, hw) (whole graph,
-- Hestness et al. 5.2.2, and op by op when the costs carry ops, ParaDnn Fig 3),
-- dlb.roofline.ops{...} (an op-cost set kept in C), dlb.roofline.subbatch(...) (Hestness
-- 5.2.1, Fig 11), dlb.roofline.train{...} (epoch time, time to accuracy, cost:
-- DAWNBench), dlb.roofline.fom{...} (the CANDLE figure of merit, seed 002),
-- dlb.roofline.hestness(domain, p, b) (Table 2's asymptotic costs). See docs/hw.md.
-- Three concepts live in their own modules, their names installed here: the host side of
-- offload (host_link, cpu_update_time, offload_step: dlbench.roofline_offload), the
-- figures over a whole run (train, harmonic_mean, fom: dlbench.roofline_run) and Hestness's
-- subbatch choice and Table 2 costs (subbatch, hestness: dlbench.roofline_hestness).
local core = require "dlbench.backend"
local memory = require "dlbench.memory"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local hw = require "dlbench.hw"

local M = {}

local function checkopts(opts, valid, fn) return options.check(opts, valid, fn, 3) end

local function device(x, fn)
  if type(x) == "string" or (type(x) == "table" and getmetatable(x) == hw.Device) then
    -- hw.get also refuses a device changed behind its back (rawset)
    local ok, d = pcall(hw.get, x)
    if not ok then error(fn .. ": " .. tostring(d), 3) end
    return d
  end
  error(fn .. ": expected a device (dlb.hw.get(name)) or its name, got " .. type(x), 3)
end

-- A number out of a stats field (numbers, or anything callable/tonumber-able such as a
-- bound polynomial of the graph engine).
local function num(v, what, fn)
  if type(v) == "number" then return v end
  local n = tonumber(v)
  if n == nil and v ~= nil then
    local ok, r = pcall(function() return v() end)
    if ok and type(r) == "number" then n = r end
  end
  if n == nil then
    error(fn .. ": " .. what .. " must be a number (bind every dim), got " .. tostring(v), 3)
  end
  return n
end

-- == op-cost sets ================================================================

local OpSet = {}
OpSet.__index = OpSet

-- An op-cost set from {flops = {...}, bytes = {...}[, gemm = {{m, n, k[, batch]} or false,
-- ...}][, names = {...}]}: per-op FLOPs and bytes kept in C.
function M.ops(t)
  if type(t) ~= "table" or type(t.flops) ~= "table" or type(t.bytes) ~= "table" then
    error("dlb.roofline.ops: expected {flops = {...}, bytes = {...}[, gemm = {...}]}", 2)
  end
  memory.account()
  local h = core.roofline_opcosts_new(t.flops, t.bytes)
  local set = setmetatable({ _h = h, n = #t.flops, names = t.names, _flops = t.flops,
    _bytes = t.bytes, phase = t.phase, layer = t.layer, kind = t.kind }, OpSet)
  for _, key in ipairs { "names", "phase", "layer", "kind" } do
    local v = t[key]
    if v ~= nil and (type(v) ~= "table" or #v ~= #t.flops) then
      error("dlb.roofline.ops: " .. key .. " must list one label per op (" .. #t.flops .. ")", 2)
    end
  end
  if t.gemm then
    for i = 1, #t.flops do
      local g = t.gemm[i]
      if g then
        if type(g) ~= "table" then
          error("dlb.roofline.ops: gemm[" .. i .. "] must be {m, n, k[, batch]} or false", 2)
        end
        core.roofline_opcosts_set_gemm(h, i, g[1] or g.m, g[2] or g.n, g[3] or g.k,
          g[4] or g.batch or 1)
      end
    end
  end
  return set
end
doc.doc(M.ops, "dlb.roofline.ops{flops={...}, bytes={...}[, gemm={{m,n,k[,batch]}|false, ...}, "
  .. "names=, phase=, layer=, kind=]} -> opset", "per-op costs kept in C, timed op by op by "
  .. "dlb.roofline.time (labels give r.by_phase, r.by_layer, r.by_kind with detail = true)")

function OpSet:__tostring()
  return string.format("roofline op set (%d ops)", self.n)
end

-- The costs of `batch` matmuls [m, k] x [k, n] at a precision (default fp32): FLOPs
-- 2 m n k (a multiply-accumulate is 2 FLOPs), algorithmic bytes elem (m k + k n + m n),
-- and a one-op set carrying the shape, so cache_aware works on it. This is the lecture's
-- (seed 002) "estimate from matrix sizes" step, one matmul at a time.
function M.gemm(m, n, k, opts)
  opts = checkopts(opts, { batch = true, precision = true }, "dlb.roofline.gemm")
  for i, v in ipairs { m, n, k } do
    if type(v) ~= "number" or not (v > 0) or v ~= v or v == math.huge then
      error("dlb.roofline.gemm: " .. ({ "m", "n", "k" })[i] .. " must be a positive number", 2)
    end
  end
  local batch = opts.batch or 1
  local prec = opts.precision or "fp32"
  local elem = core.hw_precision_bytes(prec)
  local flops = 2 * m * n * k * batch
  local bytes = elem * batch * (m * k + k * n + m * n)
  return { flops = flops, bytes = bytes, precision = prec,
    ops = M.ops { flops = { flops }, bytes = { bytes }, gemm = { { m, n, k, batch } } } }
end
doc.doc(M.gemm, "dlb.roofline.gemm(m, n, k[, {batch=, precision=}]) -> costs",
  "FLOPs (2mnk) and algorithmic bytes of a matmul [m,k]x[k,n], with its shape for cache_aware")

-- == time ========================================================================

local time_opts = { precision = true, per_op = true, cache_aware = true, flops_eff = true,
  bw_eff = true, detail = true, cache_fraction = true, tile = true, schedule = true,
  slack = true, framework = true, calibration = true, attention_flops = true, mfu = true }

-- Memory schedules (graphs/hw/dlb_roofline.h, dlb_step_memory): the one rule of what a step
-- holds at its peak, shared with dlb.parallel.evaluate/plan.
local SCHEDULES = { framework = 0, minimal = 1 }
M.schedules = SCHEDULES

-- Bytes of one gradient element under the graph engine's precision policies (docs/graph.md:
-- 4 under fp32, 2 under fp16, bf16, mixed, mixed_bf16; another name: its dlb.hw size).
local GRAD_ELEM = { fp32 = 4, fp16 = 2, bf16 = 2, mixed = 2, mixed_bf16 = 2 }
function M.grad_elem(prec)
  if prec == nil then return 4 end
  local b = GRAD_ELEM[prec]
  if b then return b end
  local ok, x = pcall(core.hw_precision_bytes, prec)
  if ok and type(x) == "number" and x > 0 then return x end
  return nil
end
-- the policies' names, for a caller's error message (dlb.parallel's)
function M._grad_elem_names()
  local t = {}
  for k in pairs(GRAD_ELEM) do t[#t + 1] = k end
  table.sort(t)
  return table.concat(t, ", ")
end
doc.doc(M.grad_elem, "dlb.roofline.grad_elem(precision) -> bytes",
  "bytes of one gradient element under a graph precision policy (fp32 4; fp16, bf16, mixed 2)")

-- Check the tiling options of the cache-aware matmul model (Hestness 6.1).
local function check_tiling(opts, fn)
  local msg = hw.tiling_error(opts)
  if msg then error(fn .. ": " .. msg, 3) end
  local f, t = opts.cache_fraction, opts.tile
  if (f ~= nil or t ~= nil) and not opts.cache_aware then
    error(fn .. ": cache_fraction and tile need cache_aware = true", 3)
  end
end

-- Where the per-op costs of `s` are: an OpSet, s.ops (an OpSet or {flops=, bytes=}), or a
-- graph analysis the graph engine attached.
local function opset_of(s)
  if getmetatable(s) == OpSet then return s end
  local o = rawget(s, "ops")
  if type(o) == "table" then
    if getmetatable(o) == OpSet then return o end
    if type(o.flops) == "table" and type(o.bytes) == "table" then
      local set = M.ops(o)
      rawset(s, "ops", set) -- cache the C copy for the next device
      return set
    end
  end
  local a = rawget(s, "analysis")
  if a ~= nil then
    local set = rawget(s, "_roofline_ops")
    if not set then
      set = setmetatable({ _h = core.roofline_opcosts_from_analysis(a), _analysis = a }, OpSet)
      set.n = core.roofline_opcosts_n(set._h)
      rawset(s, "_roofline_ops", set)
    end
    return set
  end
  return nil
end

local PHASE_NAMES = { [0] = "fwd", "bwd", "update", "recompute" }

-- The per-op labels of a set made from a graph analysis (names, phases, layers, op kinds),
-- filled on first use: only detail = true needs them.
local function labels_from_analysis(set)
  if set._flops or not set._analysis then return end
  local a = set._analysis
  local F, _, P, L, K = core.analysis_arrays(a)
  local layers = core.analysis_layers(a)
  local names, phase, layer, kind = {}, {}, {}, {}
  for i = 1, #F do
    names[i] = core.analysis_op_name(a, i - 1)
    phase[i] = PHASE_NAMES[P[i]] or tostring(P[i])
    layer[i] = L[i] >= 0 and (layers[L[i] + 1] or tostring(L[i])) or "(none)"
    kind[i] = core.graph_op_type_name and core.graph_op_type_name(K[i]) or tostring(K[i])
  end
  set._flops, set.names, set.phase, set.layer, set.kind = F, names, phase, layer, kind
end

local function bytes_per(prec)
  if prec == nil or prec == "mixed" or prec == "mixed_bf16" then return nil end
  return core.hw_precision_bytes(prec)
end

-- "roofline: 91.2 ms on V100-SXM2-16GB (fp32, per_op), compute-bound, 784 GFLOP at 8.6
-- TFLOP/s (util 55%), footprint 2.93 GB of 16 GB (fits)": what the REPL shows for a result.
local function time_tostring(r)
  local P = require "dlbench.pretty"
  local out = { string.format("roofline: %s on %s (%s%s, %s), %s-bound, %s at %s/s (util %.0f%% "
    .. "of executed FLOPs)", P.seconds(r.time), tostring(r.device), tostring(r.precision),
    r.precision_source == "device" and ": the device's natural precision" or "", tostring(r.mode),
    tostring(r.bound), P.si(r.flops or 0, "FLOP"), P.si(r.attainable or 0, "FLOP"),
    100 * (r.util or 0)) }
  if r.mfu and not tostring(r.mfu_convention):find("^flops given") then
    out[#out + 1] = string.format("MFU %.1f%% (%s)", 100 * r.mfu, tostring(r.mfu_convention))
  end
  if r.offload_time then
    out[#out + 1] = string.format("offload %s over the host link", P.seconds(r.offload_time))
  end
  if r.cpu_update_time then
    out[#out + 1] = string.format("optimizer step on the host CPU %s (%s%s)", P.seconds(r.cpu_update_time),
      tostring(r.cpu_optimizer), r.delayed_update and ", delayed: overlapped" or "")
  end
  if r.footprint then
    out[#out + 1] = string.format("footprint %s of %s (%s%s)", P.si(r.footprint, "B"),
      P.si(r.mem or 0, "B"), r.fits and "fits" or "does not fit", r.footprint_stats
      and ("; every trainable gradient held: the stats' footprint " .. P.si(r.footprint_stats, "B")
        .. " applies each as made") or "")
  end
  if r.framework then
    out[#out + 1] = string.format("framework %s%s, calibration %s", r.framework,
      tostring(r.framework_source):find("^default") and " (default)" or "", tostring(r.calibration))
  end
  return table.concat(out, ", ")
end

-- The host side of offload (DEFAULT_HOST_BW, host_link, CPU_OPTIMIZERS, cpu_update_time,
-- offload_step) lives in dlbench.roofline_offload; its names are dlb.roofline's.
for k, v in pairs(require "dlbench.roofline_offload") do M[k] = v end

-- The framework profile a roofline.time call uses (issue [18]) and the stats it times: a
-- graph's algorithmic stats (g:stats without framework=) are recounted under the default
-- profile (or opts.framework), through the graph that made them (frameworks.origin);
-- stats counted under a profile or explicit fuse= keep theirs; bare costs get none.
local function framed(s, fwname, fn)
  local fw = require "dlbench.frameworks"
  local origin = fw.origin[s]
  local sfw = (getmetatable(s) ~= OpSet) and rawget(s, "framework") or nil
  if fwname == "auto" then fwname = nil end   -- the default profile, as when none is given
  -- recount(key): key "auto" or a profile table (a catalogue one or a derived one: the
  -- recount is under that very profile, not the catalogue's of its name)
  local function recount(key)
    -- the graph must still be the one that made the stats (its generation, kept with the
    -- origin): a recount of a graph changed since (g:freeze, g:lora, new ops) would time
    -- another step than the stats count, and a recount cached before the change would
    -- make the answer depend on the calls' order
    if not fw.origin_current(origin) then
      error(string.format("%s: these stats' graph has changed since g:stats counted them "
        .. "(g:freeze, g:lora or new ops); they cannot be recounted under a framework "
        .. "profile: call g:stats again (or pass stats counted with framework =)", fn), 4)
    end
    local cache = fw.recounted[s]
    if not cache then cache = {}; fw.recounted[s] = cache end
    local t = cache[key]
    if not t then
      local o = {}
      for k, v in pairs(origin.opts) do o[k] = v end
      o.framework, o.fuse = key, nil
      t = origin.graph:stats(o)
      cache[key] = t
    end
    return t
  end
  -- the profile the stats were counted under (g:stats' framework=, kept in frameworks.origin):
  -- a derived one (dlb.frameworks.derive) with its own fields, not the catalogue's of its name
  local function own()
    local op = origin and origin.opts and origin.opts.framework
    return (type(op) == "table" and op.name == sfw) and fw.get(op, fn) or fw.get(sfw)
  end
  if fwname ~= nil then
    local ok, p = pcall(fw.get, fwname, fn)
    if not ok then error(p, 0) end -- at the user's line already (frameworks.get)
    if sfw == p.name then
      -- the stats' profile named: a name means the stats' own profile (a derived one keeps its
      -- base's name); a profile table is that profile, and another table of the same name is
      -- another profile: the stats are recounted under it (through their graph) or refused
      local mine = own()
      if type(fwname) == "string" or rawequal(p, mine) then return s, mine, "option" end
      if origin then return recount(p), p, "option" end
      error(string.format("%s: these stats were counted under framework '%s' (%s), not the "
        .. "profile given (%s); count them with g:stats{framework = profile}", fn, sfw,
        tostring(mine.title), tostring(p.title)), 3)
    end
    if origin then return recount(p), p, "option" end
    if sfw and sfw ~= p.name then
      error(string.format("%s: these stats were counted under framework '%s'; count them with "
        .. "g:stats{framework = \"%s\"} (or without one)", fn, sfw, p.name), 3)
    end
    return s, p, "option"
  end
  if origin and rawget(s, "framework_source") == fw.ALGORITHMIC then
    -- the default profile; when it fuses nothing (framework "none" as the session's
    -- default) the stats are already its step: no recount
    local fam = origin.family or fw.family(origin.graph)
    if fam or fw.session() then
      local p, src = fw.resolve(nil, fam, false, fn)
      if #fw.fuse_of(p, fam) == 0 then return s, p, src end
    end
    local t = recount("auto")
    return t, fw.get(t.framework), t.framework_source
  end
  if sfw then return s, own(), rawget(s, "framework_source") or "stats" end
  return s, fw.get("none"), "bare costs: no profile"
end
-- (the profile dlb.roofline.time applies to stats s without framework=, for the models
-- that follow it: dlb.parallel.data's reduce dtype)
M._framed = framed
M._device = device   -- dlbench.roofline_hestness's subbatch resolves its device alike

-- The device as the per-op rule sees it (a dlb_roof table) for costs counted at precision
-- sprec (sprec_given false: the caller named none) under framework profile prof, with
-- dlb.roofline.time's options: the precision (opts.precision, the stats', or the device's
-- natural one), the calibration, the bytes scale between the two precisions, the
-- profile's attention kernel efficiency and the allocator slack. Shared by dlb.roofline.time
-- and dlb.sweep.model (the compiled path), so both time with the same device.
-- Returns roof, prec, psource, scale, cal_note, akernel, slack, dev (calibrated), opts.
function M.roof_of(dev, prof, sprec, sprec_given, opts, calibration, fn)
  local fw = require "dlbench.frameworks"
  local cal_note
  -- no precision given (neither here nor to g:stats): the device's natural training
  -- precision (hw:defaulted_precision, the one rule: fp32 where it has an fp32 peak, else
  -- bf16 on TPUs ...), and the bytes counted at the stats' precision are rescaled to it;
  -- r.precision_source says which: "option", "stats", or "device" whenever the call named
  -- none (review 21: a GPU's fp32 so chosen was "default" or "stats", and unsaid)
  local psource = opts.precision and "option" or "stats"
  if opts.precision == nil and (sprec == nil or sprec_given == false) then
    local natural = dev:defaulted_precision()
    if natural ~= (sprec or "fp32") then
      opts = setmetatable({ precision = natural }, { __index = opts })
    end
    psource = "device"
  end
  local prec = dev:precision(opts.precision or sprec or "fp32")
  dev, cal_note = fw.calibrate(dev, prec, calibration)
  local ropts = { flops_eff = opts.flops_eff, bw_eff = opts.bw_eff, cache_aware = opts.cache_aware,
    cache_fraction = opts.cache_fraction, tile = opts.tile }
  -- precision selects the bytes too: rescale when the costs were counted at another one
  local scale = 1
  local from, to = bytes_per(sprec), bytes_per(opts.precision)
  if from and to and from ~= to then scale = to / from end
  local ok, roof = pcall(dev.roof, dev, prec, ropts)
  if not ok then
    local errors = require "dlbench.errors"
    errors.raise(fn .. ": " .. errors.strip(roof))
  end
  roof.bytes_scale = scale
  -- the profile's attention kernel: the device's efficiency for that kernel family
  local akernel = nil
  if prof.name ~= "none" then roof.attn_eff, akernel = fw.attention_eff(prof, dev, prec) end
  -- the output layer's GEMMs at the 16-bit peak in an fp8 step whose recipe leaves it in bf16
  -- (dlb.frameworks.head_peak; nil: the step's peak)
  roof.head_peak = fw.head_peak(prof, dev, prec)
  -- the host-side model: the profile's host issues every op (dlb_timeline in the per-op rule);
  -- a device that states its own host cost (hw:with{host_op = ...}) keeps it
  fw.apply_host(roof, prof, calibration)
  local slack = opts.slack
  if slack == nil and prof.slack ~= nil then slack = prof.slack end
  return roof, prec, psource, scale, cal_note, akernel, slack, dev, opts
end
doc.doc(M.roof_of, "dlb.roofline.roof_of(hw, profile, precision, precision_given, opts, calibration, fname) -> roof, precision, source, scale, note, kernel, slack, hw",
  "the device as the per-op rule sees it for costs counted at a precision under a framework "
  .. "profile (shared by dlb.roofline.time and dlb.sweep.model)")

-- The defaults a timed result applied, in words (its provenance's defaults list,
-- dlb.frameworks.provenance): the profile when a default chose it (source "default ..."; not
-- when the call named one), the calibration when the call gave none, the attention-FLOPs
-- entry (dlbench.mfu.attention_option; nil: none) and the precision when the call named none
-- (roof_of's source "device": a GPU's fp32 as a TPU's bf16). Shared by dlb.roofline.time and
-- dlb.sweep.model, whose rows carry the same text.
function M.defaults_applied(prof, fsource, framework_given, calibration, calibration_given,
                            aentry, psource, prec)
  local defaults = {}
  if not framework_given and tostring(fsource):find("^default") then
    defaults[#defaults + 1] = "framework " .. prof.name
  end
  if not calibration_given then defaults[#defaults + 1] = "calibration " .. calibration end
  if aentry then defaults[#defaults + 1] = aentry end
  if psource == "device" then defaults[#defaults + 1] = require("dlbench.hw").precision_entry(prec) end
  return defaults
end
doc.doc(M.defaults_applied, "dlb.roofline.defaults_applied(profile, framework_source, framework_given, "
  .. "calibration, calibration_given, attention_entry, precision_source, precision) -> {entry, ...}",
  "the defaults a timed result applied, in words (the provenance's defaults of dlb.roofline.time "
  .. "and of dlb.sweep.model's rows)")

-- HFU counts the FLOPs of the passes the hardware runs, recompute included, not the
-- optimizer's update (Korthikanti et al. 2022 sec. 6; the planner's rows the same,
-- graphs/parallel/planner.c): a step's flops_update (0 for a bare {flops=, bytes=}) is left
-- out of r.flops, which r.util keeps whole. Before review 11 r.hfu was r.util, so one
-- configuration's HFU differed between dlb.roofline.time and dlb.parallel.evaluate.
local function upd_flops(s, fn)
  local fu = rawget(s, "flops_update") or (getmetatable(s) ~= OpSet and s.flops_update) or nil
  if fu == nil then return 0 end
  local ok, v = pcall(num, fu, "flops_update", fn)
  return ok and v or 0
end
local function hfu_of(r, fu, peak)
  return r.time > 0 and math.max(0, r.flops - fu) / (r.time * peak) or 0
end

function M.time(s, dev, opts)
  local fn = "dlb.roofline.time"
  opts = checkopts(opts, time_opts, fn)
  options.switches(opts, { "per_op", "cache_aware", "detail" }, fn, 2)
  if type(s) ~= "table" then error(fn .. ": expected stats or {flops=, bytes=}, got " .. type(s), 2) end
  dev = device(dev, fn)
  check_tiling(opts, fn)
  local fw = require "dlbench.frameworks"
  local mfu = require "dlbench.mfu"
  local calibration = fw.check_calibration(opts.calibration, fn)
  local mkind, matt = mfu.options(fn, opts.mfu, opts.attention_flops)
  local given = s
  local prof, fsource
  s, prof, fsource = framed(s, opts.framework, fn)
  local sprec = rawget(s, "precision") or (getmetatable(s) ~= OpSet and s.precision) or nil
  local roof, prec, psource, scale, cal_note, akernel, slack
  roof, prec, psource, scale, cal_note, akernel, slack, dev, opts =
    M.roof_of(dev, prof, sprec, rawget(s, "precision_given"), opts, calibration, fn)
  -- the profile's attention kernel on a causal decoder skips the masked blocks
  -- (dlb.frameworks.attn_work: the fused attention timed at half its FLOPs, at the kernel's
  -- published causal rate on the device)
  do
    local origin = fw.origin[s] or fw.origin[given]
    local aw, anote = fw.attn_work(prof, origin and mfu.causal(origin.graph), dev)
    roof.attn_work = aw
    if aw and akernel then akernel = akernel .. " (" .. anote .. ")" end
  end

  local set = opset_of(s)
  local r
  if set then
    -- the profile's optimizer launch model on a step's set (dlb.frameworks.step_launch): the
    -- update phase as the implementation launches it, as dlb.parallel.evaluate times it
    -- and its phase syncs (sync = "phase": each pass of the step from a synchronisation point,
    -- as the planner runs it; dlb.frameworks.phase_sync)
    if set._analysis ~= nil then
      core.roofline_opcosts_set_optim(set._h, fw.step_launch(prof))
      core.roofline_opcosts_set_phase_sync(set._h, fw.phase_sync(prof))
    end
    if opts.detail then labels_from_analysis(set) end
    local res, times, bounds = core.roofline_ops(set._h, roof, opts.detail)
    local unscaled = {}
    for k, v in pairs(roof) do unscaled[k] = v end
    unscaled.bytes_scale = 1 -- res.bytes is already scaled (and cache-aware when asked)
    local whole = core.roofline_time(unscaled, res.flops, res.bytes)
    r = {
      graph = whole,
      per_op = res,
    }
    if opts.detail then
      res.op_time, res.op_bound, res.op_name = times, bounds, set.names
      local fl = set._flops
      if fl then
        local utils = {}
        for i = 1, #times do
          utils[i] = times[i] > 0 and fl[i] / (times[i] * roof.peak) or 0
        end
        res.op_util = utils
      end
      -- per-group sums (ParaDnn Fig 3's op breakdown): by phase, layer or op kind
      for _, key in ipairs { "phase", "layer", "kind" } do
        local labels = set[key]
        if labels then
          local groups = {}
          for i = 1, #times do
            local g = groups[labels[i]]
            if not g then
              -- a phase says where it ran (under optimizer offload the update is the
              -- host's, below)
              g = { time = 0, flops = 0, memory_bound_time = 0, ops = 0,
                where = key == "phase" and "device" or nil }
              groups[labels[i]] = g
            end
            g.time = g.time + times[i]
            g.ops = g.ops + 1
            if fl then g.flops = g.flops + fl[i] end
            if bounds[i] == "memory" then g.memory_bound_time = g.memory_bound_time + times[i] end
          end
          for _, g in pairs(groups) do
            g.util = g.time > 0 and g.flops / (g.time * roof.peak) or 0
            g.share = res.time > 0 and g.time / res.time or 0
          end
          res["by_" .. key] = groups
        end
      end
    end
    local main = (opts.per_op == false) and whole or res
    for k, v in pairs(main) do if r[k] == nil then r[k] = v end end
    r.mode = (opts.per_op == false) and "graph" or "per_op"
  else
    if opts.per_op then error(fn .. ": per_op needs per-op costs (s.ops or a graph's stats)", 2) end
    if opts.cache_aware then error(fn .. ": cache_aware needs per-op costs with matmul shapes", 2) end
    local flops = num(s.flops, "flops", fn)
    local bytes = num(s.bytes, "bytes", fn)
    r = core.roofline_time(roof, flops, bytes)
    r.graph = core.roofline_time(roof, flops, bytes)
    r.mode = "graph"
  end
  -- the per-step framework overhead (device field step_overhead; docs/hw.md) joins the time
  -- of a step the graph engine built (not of a single op or a bare {flops=, bytes=}): the
  -- per-op time has it from the one step model (dlb_step_time: a set made from a step's
  -- analysis is a step), the whole-graph roofline of the same totals gets the same term
  if (roof.step_overhead or 0) > 0 and set and set._analysis ~= nil then
    r.step_overhead = roof.step_overhead
    if r.mode == "graph" then r.time = r.time + roof.step_overhead end
    r.graph.time = r.graph.time + roof.step_overhead
    r.util = r.time > 0 and r.flops / (r.time * roof.peak) or 0
  end
  r.device = dev.name
  r.precision = prec
  r.precision_source = psource
  r.peak = roof.peak
  -- MFU: the model's FLOPs (a recompute pass's forward FLOPs are not the model's) over time
  -- x peak; HFU: the passes' FLOPs the hardware executes, recompute included (Korthikanti et al.
  -- 2022 sec. 6: "model FLOPs utilization" vs "hardware FLOPs utilization")
  local rcf = 0
  local fr = rawget(s, "flops_recompute") or (getmetatable(s) ~= OpSet and s.flops_recompute) or nil
  if fr ~= nil then
    local ok, v = pcall(num, fr, "flops_recompute", fn)
    if ok then rcf = v end
  end
  r.hfu = hfu_of(r, upd_flops(s, fn), roof.peak)
  local ff = rawget(s, "flops_fwd") or (getmetatable(s) ~= OpSet and s.flops_fwd) or nil
  local fb = rawget(s, "flops_bwd") or (getmetatable(s) ~= OpSet and s.flops_bwd) or nil
  local mf, conv, known
  if type(ff) == "number" and type(fb) == "number" then
    local origin = fw.origin[s] or fw.origin[given]
    local g, bind = origin and origin.graph, origin and origin.opts
    local batch = mfu.samples(g, bind, mkind)
    local params = rawget(s, "params")
    if batch then
      mf, conv, known = mfu.model_flops(ff + fb, batch, g, bind, params, mkind, matt)
    elseif mkind == "6N" then
      conv = "6N needs the batch (a zoo transformer's batch bound)"
    end
    if not mf and mkind ~= "6N" then
      mf, conv = ff + fb, "model FLOPs (fwd + bwd, no recompute; " .. mfu.unsaid(g) .. ")"
    end
  elseif mkind == "model" then
    mf, conv = math.max(0, r.flops - rcf), "flops given minus flops_recompute"
  end
  r.model_flops = mf
  r.mfu = (mf and r.time > 0) and mf / (r.time * roof.peak) or nil
  r.mfu_convention = conv
  r.framework, r.framework_source, r.attention_kernel = prof.name, fsource, akernel
  r.calibration, r.calibration_note = calibration, cal_note
  -- the default causal convention says when it could not be applied; asked for on a step
  -- that does not say its attention, it is refused (dlbench.mfu.attention_option)
  local aorigin = fw.origin[s] or fw.origin[given]
  local aentry = mfu.attention_option(fn, opts.attention_flops, matt, mkind, known, false, nil,
    aorigin and aorigin.graph)
  local defaults = M.defaults_applied(prof, fsource, opts.framework ~= nil, calibration,
    opts.calibration ~= nil, aentry, psource, prec)
  r.provenance = fw.provenance(prof, fsource, calibration, defaults)
  fw.last = r.provenance
  r.intensity = r.bytes > 0 and r.flops / r.bytes or math.huge
  r.attainable = r.time > 0 and r.flops / r.time or 0
  r.ridge = core.roofline_ridge(roof, true)
  local fp = rawget(s, "footprint") or (getmetatable(s) ~= OpSet and s.footprint) or nil
  local sched = opts.schedule or "framework"
  if SCHEDULES[sched] == nil then
    error(fn .. ": schedule must be \"framework\" or \"minimal\", got " .. tostring(sched), 2)
  end
  if opts.slack ~= nil and (type(opts.slack) ~= "number" or not (opts.slack >= 0)
      or opts.slack == math.huge) then
    error(fn .. ": slack must be a fraction >= 0, got " .. tostring(opts.slack), 2)
  end
  if fp ~= nil then
    local need, cap, rule = M.core_footprint(s, dev, scale, { schedule = sched, slack = slack })
    -- one number called footprint: what the device (one core on a TPU board) holds under the
    -- memory schedule, the bytes compared with its memory (r.need, r.memory: the same); the
    -- graph engine's own scheduled peak of the whole step stays in r.footprint_graph
    r.footprint_graph = num(rawget(s, "footprint_graph") or fp, "footprint", fn) * scale
    r.footprint = need
    -- the stats' own footprint where it is another rule's (the algorithmic step, framework
    -- "none": each gradient applied as made, g:stats says so): printed beside this one
    local sfp = num(fp, "footprint", fn) * scale
    if rule == "device" and math.abs(sfp - need) > 1e-9 * math.max(need, 1) then
      r.footprint_stats = sfp
    end
    -- without a breakdown the stats' own footprint is all there is: schedule "footprint"
    r.memory, r.schedule = need, rule:match("_whole$") and "footprint" or sched
    if rule == "device_whole" then rule = "device" end
    r.need, r.mem, r.fit_rule = need, cap, rule
    r.per_core = rule ~= "device"
    r.cores = r.per_core and dev.cores or nil
    r.fits = need <= cap
    r.shortfall = r.fits and 0 or need - cap
    -- memory pressure: near capacity the time is flagged unreliable (issue [19])
    r.mem_frac, r.unreliable = require("dlbench.parallel_base").mem_pressure(need, cap)
    r.reliable = r.unreliable == nil
  else
    r.fits = true
    r.shortfall = 0
  end
  -- ZeRO-Offload: the step's host-link traffic (s.offload.traffic) at the device's host
  -- link (M.host_link), not overlapped with compute (an upper bound; Ren et al. 2021
  -- overlap part of it). Optimizer offload: the update runs on the host CPU, not on the
  -- device (M.offload_step; the delayed update overlaps it with the device's step)
  local off = rawget(s, "offload")
  if type(off) == "table" and ((off.traffic or 0) > 0 or off.optimizer) then
    local bw
    bw, r.host_link = M.host_link(dev)
    r.host_bw = bw
    r.offload_time = (off.traffic or 0) * scale / bw
    r.compute_time_device = r.time
    if off.optimizer and set and set._analysis ~= nil then
      -- the device's update phase, which it no longer runs: the launch model's phase, or
      -- (no launch model) its update ops' own times (exact where the device, not the host
      -- timeline, sets the step)
      local gu = r.update_time or 0
      if not (gu > 0) then
        local _, _, P = core.analysis_arrays(set._analysis)
        if r.mode == "graph" then
          local F, B = core.analysis_arrays(set._analysis)
          local uf, ub = 0, 0
          for i = 1, #P do if P[i] == 2 then uf, ub = uf + F[i], ub + B[i] end end
          gu = core.roofline_time(roof, uf, ub).time
        else
          local _, times = core.roofline_ops(set._h, roof, true)
          for i = 1, #P do if P[i] == 2 then gu = gu + times[i] end end
        end
      end
      local impl = fw.cpu_optimizer(prof)
      local cpu = M.cpu_update_time(off.cpu_params or 0, impl)
      local lo = (off.opt_traffic or 0) * scale / bw
      r.update_device_saved = gu
      r.cpu_update_time, r.cpu_optimizer = cpu, impl
      r.update_time = cpu   -- the update phase, on the host
      r.update_on = "host"
      r.delayed_update = off.delayed_update or false
      r.time, r.offload_exposed, r.update_exposed =
        M.offload_step(r.time - gu, lo, r.offload_time - lo, cpu, off.delayed_update)
      -- detail: the update phase is the host's (its seconds on the step's path, the CPU's
      -- whole step, the device time it no longer takes), and the host link joins as a phase,
      -- so the phases, the step overhead and the host's idle time sum to the step
      local bp = r.by_phase
      if bp then
        local u = bp.update or { time = 0, flops = 0, memory_bound_time = 0, ops = 0 }
        bp.update = { time = r.update_exposed, where = "host", host_time = cpu,
          device_time = u.time, ops = u.ops, flops = u.flops, memory_bound_time = 0,
          util = 0 }
      end
    else
      r.time = r.time + r.offload_time
      r.offload_exposed = r.offload_time
    end
    if r.by_phase then
      -- detail: the host link's seconds on the step's path, a phase of its own; the shares
      -- are of the offloaded step
      r.by_phase.offload = { time = r.offload_exposed, where = "host link",
        link_time = r.offload_time, ops = 0, flops = 0, memory_bound_time = 0, util = 0 }
      for _, g in pairs(r.by_phase) do g.share = r.time > 0 and g.time / r.time or 0 end
    end
    -- the rates of the whole step, as the planner's rows give them (apply_offload)
    r.util = r.time > 0 and r.flops / (r.time * roof.peak) or 0
    r.hfu = hfu_of(r, upd_flops(s, fn), roof.peak)
    if r.model_flops then r.mfu = r.time > 0 and r.model_flops / (r.time * roof.peak) or nil end
    r.attainable = r.time > 0 and r.flops / r.time or 0
  end
  return require("dlbench.pretty").object(r, time_tostring)
end

-- The gradient bytes a framework holds at a step's peak (the memory rule's g): all the
-- gradients of the weights that train, trainable params x gradient bytes of precision
-- `prec` (frozen weights, g:freeze and LoRA, have none; `peak`, the graph schedule's
-- gradients at its peak, when params are unknown). Under optimizer offload (ZeRO-Offload,
-- Ren et al. 2021 sec. 4.1) each gradient leaves for the host as the backward pass makes
-- it: only those live at the peak stay. An inference step has no gradients (`inference`
-- true: the peak's, none). Shared by core_footprint and g:stats under a framework profile
-- (one footprint).
function M.holds_all_gradients(offload, inference, in_bwd)
  return not (inference or in_bwd or (type(offload) == "table" and offload.optimizer
    and not offload.keeps_gradients))
end
function M.gradients_held(peak, trainable, params, prec, offload, inference, in_bwd)
  if not M.holds_all_gradients(offload, inference, in_bwd) then return peak end
  local n = trainable or params
  return n and n * (M.grad_elem(prec) or 4) or peak
end
doc.doc(M.holds_all_gradients, "dlb.roofline.holds_all_gradients(offload, inference[, in_bwd]) -> boolean",
  "whether a step holds every trainable gradient at its peak (false under optimizer offload unless the "
  .. "offload keeps the device gradients (s.offload.keeps_gradients: a profile's memory.offload_gradients = false), for inference "
  .. "and when the optimizer steps in the backward pass)")
doc.doc(M.gradients_held, "dlb.roofline.gradients_held(peak, trainable, params, precision[, offload[, inference[, in_bwd]]]) -> bytes",
  "gradient bytes a framework holds at the step's peak: trainable x gradient bytes (peak under "
  .. "optimizer offload, for an inference step or without counts); the g of the one memory rule (core_footprint, g:stats "
  .. "under a profile)")

-- The memory one core of `dev` needs for a step with stats `s`, and what it has, under a
-- memory schedule (opts.schedule "framework" (default) or "minimal", opts.slack: the
-- caching allocator's slack; the rule is dlb_step_memory, graphs/hw/dlb_roofline.h, shared with
-- dlb.parallel.evaluate/plan). With a breakdown the parts are the stats' weights, optimizer
-- state, activations + workspace, and params x gradient bytes (all gradients). A board with
-- `cores` and `mem_per_core` (the TPU boards) trains data parallel across its cores, every
-- core keeping a whole copy of the model (seeds/004 §3, "Understanding TPU Memory Size"):
-- weights, gradients and optimizer state in full on each core, the activations and
-- workspace of batch/cores examples. Without a breakdown the whole footprint counts (rule
-- "device_whole", or "per_core_whole" on such a board). `scale` rescales bytes counted at
-- another precision. Returns bytes, capacity, rule ("device", "device_whole", "per_core" or
-- "per_core_whole").
function M.core_footprint(s, dev, scale, opts)
  local fn = "dlb.roofline.core_footprint"
  dev = device(dev, fn)
  scale = scale or 1
  opts = opts or {}
  local code = SCHEDULES[opts.schedule or "framework"]
  if code == nil then error(fn .. ": schedule must be \"framework\" or \"minimal\"", 2) end
  local plain = getmetatable(s) ~= OpSet
  local fp = rawget(s, "footprint") or (plain and s.footprint) or nil
  if fp == nil then error(fn .. ": the stats carry no footprint", 2) end
  fp = num(fp, "footprint", fn) * scale
  local board = dev.cores and dev.mem_per_core
  local b = rawget(s, "breakdown") or (plain and type(s.breakdown) == "table" and s.breakdown) or nil
  local params = plain and tonumber(s.params) or nil
  if type(b) ~= "table" then
    if board then return fp, dev.mem_per_core, "per_core_whole" end
    return fp, dev.mem, "device_whole"
  end
  local function part(k) return b[k] == nil and 0 or num(b[k], "breakdown." .. k, fn) end
  local act = part("activations") + part("workspace")
  -- the framework schedule holds the step's largest activations (g:stats' s.act_peak, issue
  -- [18] item 5), not those at the peak of all bytes; a walked step's are its walk's
  local ap = plain and code == 0 and not rawget(s, "footprint_walk") and tonumber(rawget(s, "act_peak"))
  if ap and ap > act then act = ap end
  if board then act = act / dev.cores end
  -- g:stats under a profile walks the backward pass (s.footprint_walk): its breakdown holds
  -- the gradients live at that peak, which the framework schedule takes as they are
  local grads = (code == 0 and plain and rawget(s, "footprint_walk")) and part("gradients")
    or M.gradients_held(part("gradients"), plain and tonumber(s.trainable) or nil,
    params, plain and s.precision or nil, rawget(s, "offload"), rawget(s, "inference"),
    rawget(s, "optimizer_in_backward"))
  local need = core.roofline_step_memory(code, part("weights") * scale, grads * scale,
    part("optimizer") * scale, act * scale, opts.slack or 0)
  if board then return need, dev.mem_per_core, "per_core" end
  return need, dev.mem, "device"
end
doc.doc(M.core_footprint, "dlb.roofline.core_footprint(stats, hw[, scale[, {schedule=, slack=}]]) -> bytes, capacity, rule",
  "memory one core needs and has under a memory schedule (framework: weights + all gradients "
  .. "+ optimizer + activations, x (1 + slack); minimal: weights + optimizer + max(activations, "
  .. "gradients)); on a board with cores and mem_per_core (TPU) each core holds the model "
  .. "state whole and batch/cores of the activations (seeds/004 §3)")
doc.doc(M.time, "dlb.roofline.time(s, hw[, {precision=, per_op=, cache_aware=, cache_fraction=, "
  .. "tile=, flops_eff=, bw_eff=, detail=}]) -> {time=, bound=, util=, fits=, shortfall=, graph=, per_op=, ...}",
  "roofline time of a step: whole graph max(c/(eff x peak), a/(eff x bw)) and, with per-op "
  .. "costs, each op at its own bound; r.fits is false when the footprint exceeds memory "
  .. "(per core on TPU boards: r.per_core, r.need, r.mem; see dlb.roofline.core_footprint); "
  .. "a step's optimizer update runs as its profile's optimizer launches it, r.update_time "
  .. "(docs/frameworks.md \"One device, one time\")")

-- Figures over a whole run (train, harmonic_mean, fom) live in dlbench.roofline_run;
-- its names are dlb.roofline's.
for k, v in pairs(require "dlbench.roofline_run") do M[k] = v end

-- Hestness et al.'s subbatch choice and Table 2 costs (subbatch, hestness) live in
-- dlbench.roofline_hestness; its names are dlb.roofline's.
for k, v in pairs(require "dlbench.roofline_hestness") do M[k] = v end

doc.doc(M, "dlb.roofline", "costs to time on a device: time, ops, subbatch, train, fom, "
  .. "hestness (docs/hw.md)")
doc.methods(M, OpSet, "ops")
return M
