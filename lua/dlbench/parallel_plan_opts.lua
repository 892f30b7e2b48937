-- dlbench.parallel_plan_opts — the options of dlb.parallel.plan and evaluate as the planner's
-- dlb_par_opts (graphs/parallel/dlb_parallel.h): the memory schedules, the recompute policies
-- and Megatron-Core's recompute modules, the reduce dtype, the optimizer's launch model, the
-- contention and every switch, each checked with a message naming the option. Split out of
-- dlbench.parallel_plan (900 lines) along this seam; parallel_plan re-exports its tables.
local core = require "dlbench.backend"
local base = require "dlbench.parallel_base"
local num, enum, flag = base.num, base.enum, base.flag
local ALGOS, SCHEDS, CP_ALGOS, MOE_IMPLS = base.ALGOS, base.SCHEDS, base.CP_ALGOS, base.MOE_IMPLS
local DISPATCHERS, COLLECTIVES = base.DISPATCHERS, base.COLLECTIVES
local M = {}

-- Memory schedules (dlb_step_memory in graphs/hw/dlb_roofline.h): what a step holds at its peak.
local MEM_SCHEDULES = { framework = 0, minimal = 1 }
M.mem_schedules = MEM_SCHEDULES

-- Activation recompute policies (DLB_PAR_RECOMPUTE_* in graphs/parallel/dlb_parallel.h): true is
-- "full", false "none"; "selective" is Korthikanti et al. 2022's (sec. 5): the attention core
-- recomputed in the backward; "selective_op" is torchtitan's per-op selective AC (its
-- selective_ac_option "op": the attention kernels' and every other matmul's outputs kept,
-- the rest of each block recomputed; layers with ops). nil: the search tries none and full,
-- evaluate none.
local RECOMPUTE = { none = 0, full = 1, selective = 2, selective_op = 3 }
local RECOMPUTE_NAMES = { [0] = false, [1] = true, [2] = "selective", [3] = "selective_op" }
-- How a plan line names its recompute policy (the decorated value: RECOMPUTE_NAMES).
local RECOMPUTE_TEXT = { selective = ", selective recompute", selective_op = ", per-op selective AC" }
local function recompute_text(rc, mods)
  return (RECOMPUTE_TEXT[rc] or (rc and ", recompute" or ""))
    .. ((rc == "selective" and mods) and (" (" .. mods .. ")") or "")
end
M.recompute_policies = RECOMPUTE
local function recompute_of(fname, rc, search)
  if rc == nil then return search and -1 or 0 end   -- evaluate takes its cfg's value
  if rc == true or rc == false then return rc and 1 or 0 end
  local v = type(rc) == "string" and RECOMPUTE[rc] or nil
  if v then return v end
  error(string.format("%s: recompute must be true (full), false (none), \"none\", \"full\", "
    .. "\"selective\" (the attention core), \"selective_op\" (torchtitan's per-op selective "
    .. "AC) or nil (%s), got %s", fname,
    fname == "parallel.plan" and "try none and full" or "none", tostring(rc)), 4)
end

-- Megatron-Core's selective-recompute modules (--recompute-modules; TransformerConfig
-- recompute_modules), recompute_modules = {"layernorm", "moe"}: the names of DLB_RCM_*
-- (graphs/parallel/dlb_parallel.h, which says what each reruns) -> the sum of their flags.
-- Only with recompute = "selective" (its recompute_granularity "selective"); nil: 0, the
-- default module core_attn. Megatron-Core's other choices name modules no dlbench model has:
-- refused with that reason, as an unknown name is; a module that reruns nothing in the
-- model is the planner's error (dlb_layer_rcm_check).
local RCM, RCM_NAMES = core.enum_names("DLB_RCM_")
M.recompute_modules = RCM
local RCM_UNMODELLED = {
  shared_experts = "the shared experts of a MoE layer (DeepSeek's), which no dlbench model has",
  mla_up_proj = "multi-latent attention's up projections and RoPE, which no dlbench model has",
}
local function recompute_modules_of(fname, mods, rc)
  if mods == nil then return 0 end
  if type(mods) ~= "table" or mods[1] == nil then
    error(string.format("%s: recompute_modules must be a non-empty list of module names (%s), "
      .. "got %s", fname, require("dlbench.options").names(RCM), type(mods) == "table" and "an empty table"
      or tostring(mods)), 4)
  end
  if rc ~= "selective" then
    error(string.format("%s: recompute_modules applies to recompute = \"selective\" (Megatron-"
      .. "Core's recompute_granularity \"selective\"), got recompute = %s", fname, tostring(rc)), 4)
  end
  local sum, seen = 0, {}
  for i, m in ipairs(mods) do
    local v = RCM[m]
    if not v then
      if RCM_UNMODELLED[m] then
        error(string.format("%s: recompute_modules[%d] \"%s\" is Megatron-Core's, not modelled: "
          .. "it recomputes %s", fname, i, m, RCM_UNMODELLED[m]), 4)
      end
      error(string.format("%s: recompute_modules[%d]: %s", fname, i,
        require("dlbench.options").message(m, RCM, fname, "recompute module")), 4)
    end
    if not seen[m] then sum, seen[m] = sum + v, true end
  end
  return sum
end
-- The modules of flags v (the row's recompute_modules), in flag order: "layernorm, moe".
local function recompute_modules_text(v)
  local t, f = {}, 1
  while f <= v do
    if v % (2 * f) >= f then t[#t + 1] = RCM_NAMES[f] end
    f = 2 * f
  end
  return table.concat(t, ", ")
end

-- reduce_dtype= (PyTorch FSDP MixedPrecision reduce_dtype: "fp32", "bf16", ...) -> bytes per
-- element, the core's element size of that precision; nil -> 0 (the gradients' own bytes)
local function reduce_bytes_of(fname, dt)
  if dt == nil then return 0 end
  local ok, b = pcall(core.hw_precision_bytes, dt)
  if type(dt) == "string" and ok and type(b) == "number" and b > 0 then return b end
  error(string.format("%s: option 'reduce_dtype' must be a precision name (\"fp32\", \"bf16\", "
    .. "\"fp16\", ...), got %s", fname, tostring(dt)), 4)
end

-- The planner's optimizer launch model from option optimizer_impl (a profile's optimizer_impl
-- table, or a launch name; nil: none): {kind, kernels, ops, sync} (dlb.frameworks.launch_of).
local function optim_of(fname, u)
  if u == nil then return { kind = 0, kernels = 0, ops = 0, sync = 0, views = 0 } end
  local ok, kind, k, h, sync, views = pcall(require("dlbench.frameworks").launch_of, u)
  if not ok then error(fname .. ": option " .. tostring(kind), 4) end
  return { kind = kind, kernels = k, ops = h, sync = sync, views = views }
end

-- cp_algo = "none": a plan row's word for cp 1, taken back by evaluate (and pipeline) where
-- cp is 1, so a row's layout can be evaluated as printed (review 11: refused as unknown)
local function cp_none(fname, o)
  return o.cp_algo == "none" and fname ~= "parallel.plan" and (o.cp == nil or o.cp == 1)
end

-- opts.contention: a fraction in [0, 1) (setup resolves "nccl" from the device first)
local function contention_num(fname, v)
  if v == nil then return 0 end
  if type(v) ~= "number" or not (v >= 0 and v < 1) then
    error(string.format("%s: option 'contention' must be \"nccl\" (NCCL's CTAs over the "
      .. "device's SMs: dlb.frameworks.contention) or a fraction in [0, 1), got %s", fname,
      tostring(v)), 4)
  end
  return v
end

-- contention = "nccl" (an option, or a profile's default): the device's f (dlbench.contention).
-- A device without a published NCCL CTA count: an error when the caller asked for it; under a
-- profile's default the overlapped collectives the profile hides stay exposed (overlap and
-- fsdp_overlap 0 unless the caller gave them), said in the defaults applied.
local function resolve_contention(fname, o, o2, dev, applied)
  if o2.contention ~= "nccl" then return end
  local f, why = require("dlbench.contention").of(dev)
  if f then rawset(o2, "contention", f); return end
  if o.contention ~= nil then
    error(string.format("%s: contention \"nccl\": %s; give a fraction in [0, 1)", fname, why), 4)
  end
  rawset(o2, "contention", 0)
  for _, k in ipairs { "overlap", "fsdp_overlap" } do
    if o[k] == nil and (o2[k] or 0) > 0 then
      rawset(o2, k, 0)
      applied[#applied + 1] = k .. " 0 (" .. why .. ": exposed)"
    end
  end
end

local function plan_opts(fname, o, ls)
  local rc = o.recompute
  local optim = optim_of(fname, o.optimizer_impl)
  local zero = o.zero
  -- a graph's own bytes per parameter, unless the caller gives them
  local sb = ls and ls.state_bytes
  local given = o.w_bytes ~= nil or o.g_bytes ~= nil or o.o_bytes ~= nil
  local wd, gd, od = 0, 0, 0
  if sb and not given then wd, gd, od = sb.w, sb.g, sb.o end
  return {
    batch = num(fname, "batch", o.batch, nil, "count"),
    w_bytes = num(fname, "w_bytes", o.w_bytes, wd, "nonneg"),
    g_bytes = num(fname, "g_bytes", o.g_bytes, gd, "nonneg"),
    o_bytes = num(fname, "o_bytes", o.o_bytes, od, "nonneg"),
    mem_schedule = enum(fname, "schedule_mem", o.schedule_mem, MEM_SCHEDULES, "framework"),
    slack = num(fname, "slack", o.slack, 0, "nonneg"),
    fsdp_overlap = num(fname, "fsdp_overlap", o.fsdp_overlap, 0, "unit"),
    gather_tensors = num(fname, "gather_tensors", o.gather_tensors, 0, "nonneg"),
    overlap = num(fname, "overlap", o.overlap, 0, "unit"),
    -- what a collective beside compute takes from it (setup resolved "nccl" to a number)
    contention = contention_num(fname, o.contention),
    dp_algo = enum(fname, "algo", o.algo, ALGOS, "ring"),
    tp_max = num(fname, "tp_max", o.tp_max, 0, "whole"),
    pp_max = num(fname, "pp_max", o.pp_max, 0, "whole"),
    m_max = num(fname, "m_max", o.m_max, 0, "whole"),
    zero_max = num(fname, "zero", zero, 3, "whole"),
    sched = o.schedule == nil and -1 or enum(fname, "schedule", o.schedule, SCHEDS),
    v = num(fname, "v", o.v, 2, "count"),
    seq_par = flag(fname, "seq_par", o.seq_par),
    recompute = recompute_of(fname, rc, true),
    -- under full recompute, every k-th block checkpointed (torchtitan's layer-level selective
    -- AC, selective_ac_option "2" by default); 1: every block
    recompute_every = num(fname, "recompute_every", o.recompute_every, 1, "count"),
    -- under "selective", Megatron-Core's recompute_modules (DLB_RCM_* flags; 0: core_attn)
    recompute_modules = recompute_modules_of(fname, o.recompute_modules, rc),
    pp_scatter = flag(fname, "pp_scatter", o.pp_scatter),
    -- the backward's column-parallel dX all-reduce (reduce-scatter) beside its dW GEMM
    -- (Megatron-LM's --async-tensor-model-parallel-allreduce; a profile's tp_async sets it)
    tp_async = flag(fname, "tp_async", o.tp_async),
    -- host and device synchronised at every micro-batch phase (Megatron-LM's timers; a
    -- profile's sync = "phase" sets it: dlb.frameworks.plan_defaults)
    phase_sync = flag(fname, "phase_sync", o.phase_sync),
    -- how a MoE layer runs beyond the graph's ops (DLB_MOE_*: "graph", "mcore"); a profile's
    -- moe field sets it (dlb.frameworks.plan_defaults)
    moe_impl = enum(fname, "moe_impl", o.moe_impl, MOE_IMPLS, "graph"),
    -- how a MoE layer's tokens reach the experts (DLB_DISPATCHER_*: "alltoall", "deepep":
    -- DeepEP's normal kernels at their measured bandwidth, "hybridep": Hybrid-EP's kernels at
    -- theirs, graphs/parallel/planner_moe.c)
    moe_dispatcher = enum(fname, "moe_dispatcher", o.moe_dispatcher, DISPATCHERS, "alltoall"),
    -- Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): a forward and a
    -- backward of two micro-batches run layer by layer together, the MoE all-to-alls of one
    -- beside the other's computation (graphs/parallel/planner_moe.c dlb_par_combined_1f1b)
    moe_a2a_overlap = (o.moe_a2a_overlap == nil or o.moe_a2a_overlap == false) and 0
      or (o.moe_a2a_overlap == true and 1 or error(fname .. ": moe_a2a_overlap must be true or "
      .. "false (Megatron-Core's combined 1F1B: the MoE all-to-alls beside another micro-batch's "
      .. "computation), got " .. tostring(o.moe_a2a_overlap), 3)),
    -- the data-parallel reduction's bytes per gradient element, from the stack's reduce
    -- dtype (a precision name; nil: g_bytes): graphs/parallel/dlb_parallel.h reduce_bytes
    reduce_bytes = reduce_bytes_of(fname, o.reduce_dtype),
    -- the optimizer step's launches (graphs/hw/optim_launch.c; a profile's optimizer_impl
    -- sets it: dlb.frameworks.plan_defaults); nil: each update op one kernel, as before
    optim_impl = optim.kind, optim_kernels = optim.kernels, optim_ops = optim.ops,
    optim_sync = optim.sync, optim_views = optim.views,
    balance = enum(fname, "balance", o.balance, { time = 0, memory = 1, layers = 2 }, "time"),
    shard = flag(fname, "shard", o.shard),
    devices = num(fname, "devices", o.devices, 0, "nonneg"),
    keep_unfit = flag(fname, "keep_unfit", o.keep_unfit),
    nccl = enum(fname, "collectives", o.collectives, COLLECTIVES, "nccl"),
    ep_max = num(fname, "ep_max", o.ep_max, 0, "whole"),
    cp_max = num(fname, "cp_max", o.cp_max, 0, "whole"),
    cp_algo = (o.cp_algo == nil or cp_none(fname, o)) and -1 or enum(fname, "cp_algo", o.cp_algo, CP_ALGOS),
    capacity = num(fname, "capacity", o.capacity, 0, "nonneg"),
    etp = num(fname, "etp", o.etp, 0, "whole"),
    imbalance = o.imbalance == nil and 0 or num(fname, "imbalance", o.imbalance, 1, "ge1"),
    -- evaluate takes a shard group size too (its configuration's, below)
    hsdp = (o.hsdp == nil or o.hsdp == true or type(o.hsdp) == "number") and 1 or (o.hsdp == false and 0 or
      error(fname .. ": hsdp must be true or false (search hybrid sharding; default true)", 3)),
  }
end

M.RECOMPUTE_NAMES, M.recompute_text, M.recompute_of = RECOMPUTE_NAMES, recompute_text, recompute_of
M.recompute_modules_text, M.cp_none, M.resolve_contention = recompute_modules_text, cp_none,
  resolve_contention
M.plan_opts = plan_opts
return M
