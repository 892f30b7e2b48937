-- dlbench.frameworks — framework profiles (issue [18]): what a training stack does to a step,
-- as data with its sources, one file each under lua/dlbench/frameworks/. A profile sets the
-- attention kernel family (timed at the device's efficiency for that family), the fusion
-- passes of g:stats (graphs/step/fusion.c), the optimizer implementation it runs
-- (optimizer_impl: fused, foreach or a per-parameter loop, gradient clipping), how parameters are gathered and how much of the
-- data-parallel communication hides under compute (the planner's gather_tensors, overlap,
-- fsdp_overlap), gradient buckets, allocator slack, its fp8 recipe, a per-op host dispatch
-- cost (data for issue [19]'s host model) and the recompute policies it offers.
--   dlb.frameworks.list()               every profile: name, year, title
--   dlb.frameworks.get("fsdp")          one profile (read it; do not change it)
--   g:stats{framework = "fsdp"}         also roofline.time, parallel.evaluate/plan, sweeps,
--                                       scaling.project
-- With no framework given, transformers get today's practice (M.DEFAULTS.transformer), other
-- graphs a current PyTorch profile (M.DEFAULTS.other); framework = "none" is dlbench's
-- behaviour before profiles (the algorithmic step and the caller's own switches). Every
-- result says which profile it used and why (framework_source). docs/frameworks.md.
local doc = require "dlbench.doc"
local core = require "dlbench.backend"

local M = {}

-- name -> file under lua/dlbench/frameworks/ (the order of M.list())
local FILES = {
  { "none", "none" },
  { "megatron-lm", "megatron_lm" },
  { "megatron-core", "megatron_core" },
  { "megatron-core-cudagraphs", "megatron_core_cudagraphs" },
  { "nemo", "nemo" },
  { "pytorch-ddp", "pytorch_ddp" },
  { "pytorch1-ddp", "pytorch1_ddp" },
  { "ngc", "ngc" },
  { "fsdp", "fsdp" },
  { "fsdp2", "fsdp2" },
  { "deepspeed-zero1", "deepspeed_zero1" },
  { "deepspeed-zero2", "deepspeed_zero2" },
  { "deepspeed-zero3", "deepspeed_zero3" },
  { "torchtitan", "torchtitan" },
  { "hf-trainer", "hf_trainer" },
  { "hf-deepspeed", "hf_deepspeed" },
  { "maxtext", "maxtext" },
  { "tensorflow1", "tensorflow1" },
}
local FILE = {}
for _, f in ipairs(FILES) do FILE[f[1]] = f[2] end
-- other spellings users type
local ALIAS = { megatron = "megatron-lm", ["megatron-lm-2021"] = "megatron-lm",
  mcore = "megatron-core", te = "megatron-core", ["cuda-graphs"] = "megatron-core-cudagraphs",
  cudagraphs = "megatron-core-cudagraphs", ["transformer-engine"] = "megatron-core",
  ddp = "pytorch-ddp", pytorch = "pytorch-ddp", torch = "pytorch-ddp",
  fsdp1 = "fsdp", zero1 = "deepspeed-zero1", zero2 = "deepspeed-zero2", zero3 = "deepspeed-zero3",
  deepspeed = "deepspeed-zero3", jax = "maxtext", xla = "maxtext", tensorflow = "tensorflow1",
  tf1 = "tensorflow1", tf = "tensorflow1", hf = "hf-trainer", transformers = "hf-trainer",
  ["hf-zero2"] = "hf-deepspeed" }

-- framework_source of a g:stats result given neither framework= nor fuse=: the counts of
-- the step as built (the seeds' algorithmic counts; symbolic = numeric). The time models
-- apply the default profile to such stats (they find the graph through M.origin).
M.ALGORITHMIC = "g:stats default: the algorithmic step (time models apply the default profile)"
-- stats -> {graph =, opts =, family =, generation =} of the g:stats call that made them
-- (weak keys)
M.origin = setmetatable({}, { __mode = "k" })
-- Whether origin's graph is still the one that made the stats (its generation unchanged:
-- no g:freeze, g:lora, new ops since), so that counting them again through it counts the
-- same step.
function M.origin_current(origin)
  return origin.generation ~= nil and origin.generation == origin.graph:generation()
end
doc.doc(M.origin_current, "dlb.frameworks.origin_current(origin) -> boolean",
  "whether the graph of a g:stats call (dlb.frameworks.origin[stats]) is unchanged since it "
  .. "counted the stats (its g:generation(): no g:freeze, g:lora or new ops), so that counting "
  .. "them again through it counts the same step")
-- stats -> {profile name -> the same step counted under it} (roofline.time's recounts)
M.recounted = setmetatable({}, { __mode = "k" })

-- The defaults applied when no framework is given (issue [18] item 2: today's practice).
M.DEFAULTS = { transformer = "torchtitan", other = "pytorch-ddp" }
M.DEFAULTS_WHY = {
  transformer = "today's practice for transformers: PyTorch-native FSDP2 with FlashAttention-2 "
    .. "and fused optimizer (torchtitan)",
  other = "today's practice for CNNs/RNNs: PyTorch 2.x eager with DDP (foreach optimizer)",
}

-- the fields a profile must carry, and their kinds
local KINDS = { attention = { flash2 = true, flash3 = true, cudnn = true, xla = true,
  unfused = true } }

-- A profile field {<flag> = true | false, source = "..."} (nil allowed), checked by name:
-- grad_buffer = {persistent =, source =}: whether the stack keeps every gradient in a buffer
-- allocated once (g:stats' schedule = "walk" then holds them all, docs/frameworks.md "The
-- backward pass walked"); norm = {upcast =, source =}: whether the stack's RMSNorm keeps the
-- fp32 upcast of its input for the backward pass (eager model code that writes x.float() ...
-- .type_as(x): torchtune's RMSNorm, transformers' LlamaRMSNorm; not a fused norm kernel, not
-- torch.compile). true sets dlb_train_opts.norm_upcast (graphs/step/train.c,
-- docs/frameworks.md "What eager RMSNorm saves"); false or absent: the fused norm's saved
-- tensors (absent: the profile's model code is not known, today's count).
local function check_flagged(v, field, flag, where, level)
  if v ~= nil and (type(v) ~= "table" or type(v[flag]) ~= "boolean"
      or type(v.source) ~= "string") then
    error(string.format("%s: %s must be {%s = true | false, source = \"...\"}", where, field, flag),
      level)
  end
end

-- A profile's optimizer_impl: {kind = fused | foreach | loop, launch = ..., source = ...}
-- with its launch model (M.launch_of, below) checked; `where` names the profile. A derived
-- profile may leave launch out (no launch model: plan_defaults sets none, as before launches
-- were modelled): `optional`.
local function check_optimizer_impl(u, where, level, optional)
  if type(u) ~= "table" or M.OPTIMIZER_IMPLS[u.kind] == nil or type(u.source) ~= "string" then
    error(where .. ": optimizer_impl must be {kind = "
      .. "\"fused\" | \"foreach\" | \"loop\", grad_clip = true | false, launch = \"...\", "
      .. "source = \"...\"}", level)
  end
  if u.cpu ~= nil and require("dlbench.roofline").CPU_OPTIMIZERS[u.cpu] == nil then
    error(where .. ": optimizer_impl.cpu must be \"cpu_adam\" or \"torch\" (the host's optimizer "
      .. "under offload = \"optimizer\"), got " .. tostring(u.cpu), level)
  end
  if optional and u.launch == nil then return end
  local ok, e = pcall(M.launch_of, u)
  if not ok then error(where .. ": " .. tostring(e), level) end
end

-- The optimizer profile p runs on the host CPU under optimizer offload (offload =
-- "optimizer"): its optimizer_impl.cpu, "cpu_adam" (DeepSpeed's DeepSpeedCPUAdam, what
-- ZeRO-Offload steps with: the DeepSpeed profiles) or "torch" (torch.optim's Adam / AdamW on
-- CPU tensors, what FSDP's CPUOffload and torchao's CPUOffloadOptimizer step with; a profile
-- that names none). Its rate: dlb.roofline.CPU_OPTIMIZERS.
-- The profile argument of the readers below (cpu_optimizer, norm_upcast, phase_sync,
-- step_launch, host_of): a profile table as it is, nil as "no profile" (what they answer
-- for none), a profile's name through M.get (before review 13 a name was read as a profile
-- without fields: host_of("nemo") gave 0 s per op, phase_sync("megatron-lm") false), and
-- anything else refused by M.get with a message naming fname.
local function profile_arg(p, fname)
  if p == nil or type(p) == "table" then return p end
  return M.get(p, fname)
end

function M.cpu_optimizer(p)
  p = profile_arg(p, "dlb.frameworks.cpu_optimizer")
  local u = type(p) == "table" and p.optimizer_impl or nil
  return type(u) == "table" and u.cpu or "torch"
end
doc.doc(M.cpu_optimizer, "dlb.frameworks.cpu_optimizer(profile) -> \"cpu_adam\" | \"torch\"",
  "the host CPU's optimizer under optimizer offload (optimizer_impl.cpu; default torch.optim on the CPU)")

-- Whether profile p's RMSNorm keeps its fp32 upcast (its norm field, above): the one reading
-- of it (g:stats, g:step_options and through them the planner and the compiled sweep).
function M.norm_upcast(p)
  p = profile_arg(p, "dlb.frameworks.norm_upcast")
  return type(p) == "table" and type(p.norm) == "table" and p.norm.upcast == true
end
doc.doc(M.norm_upcast, "dlb.frameworks.norm_upcast(profile) -> boolean",
  "whether the profile's RMSNorm keeps its fp32 upcast for the backward (its norm field: eager "
  .. "model code such as torchtune's or transformers' RMSNorm); counted in the step's saved tensors")

local cache = {}
local function load(name)
  local p = cache[name]
  if p then return p end
  local ok, t = pcall(require, "dlbench.frameworks." .. FILE[name])
  if not ok or type(t) ~= "table" or t.name ~= name then
    error("dlb.frameworks: profile file for '" .. name .. "' is broken: " .. tostring(t), 0)
  end
  if not KINDS.attention[t.attention] then
    error("dlb.frameworks: profile '" .. name .. "': unknown attention kernel family '"
      .. tostring(t.attention) .. "'", 0)
  end
  check_optimizer_impl(t.optimizer_impl, "dlb.frameworks: profile '" .. name .. "'", 0)

  check_flagged(t.grad_buffer, "grad_buffer", "persistent", "dlb.frameworks: profile '" .. name .. "'", 0)
  check_flagged(t.norm, "norm", "upcast", "dlb.frameworks: profile '" .. name .. "'", 0)
  check_flagged(t.train_metrics, "train_metrics", "lm_xent", "dlb.frameworks: profile '" .. name .. "'", 0)
  require("dlbench.fp8_output").check(type(t.fp8) == "table" and t.fp8.output or nil,
    "dlb.frameworks: profile '" .. name .. "'", 0)
  if type(t.sources) ~= "table" or #t.sources == 0 then
    error("dlb.frameworks: profile '" .. name .. "' gives no sources", 0)
  end
  cache[name] = t
  return t
end

local function names()
  local r = {}
  for i, f in ipairs(FILES) do r[i] = f[1] end
  return r
end

-- The profile called name (a profile table passes through).
function M.get(name, fname)
  fname = fname or "dlb.frameworks.get"
  if type(name) == "table" and type(name.name) == "string" and FILE[name.name] then return name end
  if type(name) ~= "string" then
    -- raised at the user's line however deep the caller (g:stats, roofline.time, sweeps
    -- call this under pcall: error level 3 named a line of the library)
    require("dlbench.errors").raise(fname .. ": framework must be a profile name ("
      .. table.concat(names(), ", ") .. "), got " .. type(name))
  end
  local n = ALIAS[name:lower()] or name:lower()
  if not FILE[n] then
    local hint = ""
    for _, f in ipairs(FILES) do
      if f[1]:find(name:lower(), 1, true) or name:lower():find(f[1], 1, true) then
        hint = " (did you mean '" .. f[1] .. "'?)"; break
      end
    end
    require("dlbench.errors").raise(string.format("%s: unknown framework '%s'%s; profiles: %s",
      fname, name, hint, table.concat(names(), ", ")))
  end
  return load(n)
end
-- A profile with some fields replaced (a run's own configuration of its stack, e.g. a
-- DeepSpeed config's bucket sizes): a copy of profile `name` with `fields` over it; it keeps
-- the name (every option that takes a profile name takes it) and says what was changed in
-- its title and `derived`. Unknown fields are refused by name.
-- The fields of a derived profile that were taken as given and failed, or were ignored, only
-- where the profile was used (review7): fuse = {"zz"} raised an arithmetic error inside
-- g:stats, attention = "zz" timed FlashAttention-2's rate, zero = 7 and slack = NaN waited for
-- the planner. Errors at the caller of derive.
local function check_derived(f, fname)
  local errors = require "dlbench.errors"
  local options = require "dlbench.options"
  local function bad(msg) errors.raise(fname .. ": " .. msg) end
  if f.fuse ~= nil then
    local ok, e = pcall(require("dlbench.graph_analysis").fuse_bits, f.fuse, fname)
    if not ok then errors.raise(errors.strip(e)) end
  end
  if f.name ~= nil and type(f.name) ~= "string" then bad("name must be a string, got " .. type(f.name)) end
  if f.fp8 ~= nil and type(f.fp8) ~= "table" then bad("fp8 must be a table (the recipe), got " .. type(f.fp8)) end
  local okf, ef = pcall(require("dlbench.fp8_output").check, f.fp8 and f.fp8.output, fname, 0)
  if not okf then errors.raise(ef) end
  local sw = options.switch_error(f, { "pp_scatter", "tp_async" }, fname)
  if sw then errors.raise(sw) end
  if f.attention ~= nil then
    local fams, tabs = { unfused = true, flash2 = true }, {} -- no pairs in pairs: LuaJIT #827
    for _, t in pairs(require("dlbench.hw_kernels")) do tabs[#tabs + 1] = type(t) == "table" and t or nil end
    for i = 1, #tabs do
      for fam, e in pairs(tabs[i]) do if type(e) == "table" then fams[fam] = true end end
    end
    if not fams[f.attention] then
      errors.raise(options.message(f.attention, fams, fname, "attention kernel family"))
    end
  end
  if f.recompute ~= nil then
    local ok = type(f.recompute) == "table"
    for _, r in ipairs(ok and f.recompute or {}) do
      if r ~= "none" and r ~= "full" and r ~= "selective" and r ~= "selective_op" then ok = false end
    end
    if not ok then bad("recompute must be a list of \"none\", \"full\", \"selective\", \"selective_op\"") end
  end
  local function num(k, lo, hi, whole)
    local v = f[k]
    if v == nil then return end
    if type(v) ~= "number" or not (v >= lo and v <= (hi or math.huge)) or v == math.huge
        or (whole and v ~= math.floor(v)) then
      bad(string.format("%s must be a %s %s, got %s", k, whole and "whole number" or "number",
        hi and string.format("in %g..%g", lo, hi) or string.format(">= %g (finite)", lo), tostring(v)))
    end
  end
  num("zero", 0, 3, true)
  num("slack", 0, nil)
  num("overlap", 0, 1)
  num("fsdp_overlap", 0, 1)
  -- what the overlapped collectives take from the compute (dlbench.contention): "nccl"
  if f.contention ~= nil and f.contention ~= "nccl" then
    bad("contention must be \"nccl\" (NCCL's CTAs over the device's SMs: "
      .. "dlb.frameworks.contention) or nil, got " .. tostring(f.contention))
  end
  local sf = f.softmax_fallback
  if sf ~= nil and sf ~= false then
    local ok = type(sf) == "table"
    for _, k in ipairs { "seq_min", "seq_max", "seq_multiple" } do
      if ok and not (type(sf[k]) == "number" and sf[k] >= 0 and sf[k] < math.huge) then ok = false end
    end
    if not ok then
      bad("softmax_fallback must be false or {seq_min =, seq_max =, seq_multiple =, source = \"...\"} "
        .. "(Megatron's FusedScaleMaskSoftmax: its fused kernel's sequence range)")
    end
  end
end

function M.derive(name, fields)
  local fname = "dlb.frameworks.derive"
  local p = M.get(name, fname)
  -- the fields a profile may carry: its own, and those a profile may leave nil
  local valid = { memory = true, slack = true, bucket_bytes = true, overlap = true,
    fsdp_overlap = true, contention = true, fp8 = true, moe = true, sync = true, grad_buffer = true, norm = true,
    train_metrics = true, softmax_fallback = true }
  for k in pairs(p) do valid[k] = true end
  require("dlbench.options").check(fields, valid, fname, 2, true)
  if fields.memory ~= nil then require("dlbench.framework_memory").check(fields.memory, fname, 3) end
  check_flagged(fields.grad_buffer, "grad_buffer", "persistent", fname, 3)
  check_flagged(fields.norm, "norm", "upcast", fname, 3)
  check_flagged(fields.train_metrics, "train_metrics", "lm_xent", fname, 3)
  if fields.optimizer_impl ~= nil then check_optimizer_impl(fields.optimizer_impl, fname, 3, true) end
  check_derived(fields, fname)
  local d, changed = {}, {}
  for k, v in pairs(p) do d[k] = v end
  for k, v in pairs(fields) do
    d[k] = v
    changed[#changed + 1] = tostring(k)
  end
  table.sort(changed)
  d.derived = changed
  d.title = p.title .. " [derived: " .. table.concat(changed, ", ") .. "]"
  return d
end
doc.doc(M.derive, "dlb.frameworks.derive(name, {field = value, ...}) -> profile",
  "a copy of a profile with some fields replaced (a run's own stack configuration, e.g. "
  .. "memory = {buckets = {count = 2, elements = 2e8}}, or torchtune's memory = {loss = {upcast = true, "
  .. "chunks = 8}, optimizer_in_backward = true} and norm = {upcast = true, source = \"...\"}; unknown "
  .. "fields and memory terms are refused); pass it as framework=")

doc.doc(M.get, "dlb.frameworks.get(name) -> profile",
  "one framework profile: attention, fuse, optimizer_impl, train_metrics, gather, overlap, fsdp_overlap, "
  .. "bucket_bytes, zero, slack, fp8, dispatch, recompute, sources (aliases: ddp, zero3, jax, tf1, ...)")

local function list_tostring(t)
  local out = {}
  for _, p in ipairs(t) do
    out[#out + 1] = string.format("%-16s %-5s %s", p.name, p.year and tostring(p.year) or "", p.title)
  end
  out[#out + 1] = string.format("default: transformers %s, other graphs %s (framework = \"none\": "
    .. "no profile)", M.DEFAULTS.transformer, M.DEFAULTS.other)
  return table.concat(out, "\n")
end

function M.list()
  local r = {}
  for _, f in ipairs(FILES) do
    local p = load(f[1])
    r[#r + 1] = { name = p.name, year = p.year, title = p.title }
  end
  return setmetatable(r, { __tostring = list_tostring })
end
doc.doc(M.list, "dlb.frameworks.list() -> {{name=, year=, title=}, ...}",
  "the framework profiles (one file each under lua/dlbench/frameworks/, with sources); "
  .. "print it for one line each and the defaults")

-- The session's default, when set with M.default(name): it replaces the per-family defaults
-- (the seed notebooks pin "none" this way). nil: the per-family defaults.
local session = nil
function M.default(name)
  if name == nil or name == "auto" then session = nil
  else session = M.get(name, "dlb.frameworks.default").name end
  return session or "auto"
end
doc.doc(M.default, "dlb.frameworks.default([name | \"auto\"]) -> name",
  "set the profile used when a call gives no framework (\"auto\": transformers "
  .. "torchtitan, other graphs pytorch-ddp); the seed notebooks pin \"none\"")
function M.session() return session end

-- The family of a graph: "transformer" (a zoo or Hugging Face transformer), "other" (the
-- zoo's CNNs and RNNs), or nil (not known from the graph's model: g:stats finds out from the
-- step itself, by whether the attention pass finds an attention pattern).
local TRANSFORMERS = { transformer = true, bert = true, gpt = true, llama = true, vit = true,
  moe = true }
function M.family(g)
  if type(g) ~= "table" then
    require("dlbench.errors").raise("dlb.frameworks.family: g must be a graph (dlb.graph, a dlb.models builder's, or "
      .. "dlb.models.from_hf/from_onnx), got " .. type(g) .. " " .. tostring(g))
  end
  local m = g.model
  if type(m) == "table" then
    if m.family == "transformer" or m.family == "other" then return m.family end
    if TRANSFORMERS[m.builder or m.name] then return "transformer" end
  end
  if type(rawget(g, "hf")) == "table" then return "transformer" end
  return rawget(g, "_family")
end

-- The optimizer implementations a profile's optimizer_impl.kind names, and the pass
-- (g:stats fuse=, graphs/step/fusion.c update_impl) each adds: the update's traffic as the
-- implementation runs it (Adam/AdamW; docs/frameworks.md "Optimizer implementation").
-- Whether a layer's updates are one kernel (multi-tensor) stays the "optimizer" pass.
M.OPTIMIZER_IMPLS = {
  fused = false,                   -- one pass over each tensor (torch fused=True, FusedAdam)
  foreach = "optimizer_foreach",   -- PyTorch's foreach sequence: 20 tensor passes (AdamW)
  loop = "optimizer_loop",         -- a per-parameter loop of elementwise ops: 22 (AdamW)
}

-- How the optimizer step launches its kernels (optimizer_impl.launch; graphs/hw/optim_launch.c,
-- DLB_OPTIM_*, the names from the C enum): "none" (no launch model: each update op one
-- kernel), "loop" (a per-parameter loop: optimizer_impl.kernels and host_ops per tensor from
-- the loop's source, sync = true when each tensor's step reads a device scalar), "foreach",
-- "torch_fused", "apex", "flat", "per_tensor".
M.LAUNCHES = core.enum_names("DLB_OPTIM_")

-- The launch model of an optimizer_impl table (or a launch name): kind (DLB_OPTIM_*), kernels
-- and host ops per tensor and sync (a loop's; 0 otherwise), views (1: under ZeRO a rank
-- steps only the parameters its contiguous shard of a layer's flat buffer holds, PyTorch
-- FSDP1's use_orig_params views). Errors name what is wrong.
function M.launch_of(u)
  if type(u) == "string" then u = { launch = u } end
  if type(u) ~= "table" then
    error("optimizer_impl must be a table {launch = ...} or a launch name, got " .. type(u), 0)
  end
  local kind = M.LAUNCHES[u.launch]
  if kind == nil then
    local names = {}
    for k in pairs(M.LAUNCHES) do names[#names + 1] = k end
    table.sort(names)
    error("optimizer_impl.launch must be one of " .. table.concat(names, ", ") .. ", got "
      .. tostring(u.launch), 0)
  end
  if kind == M.LAUNCHES.loop then
    if type(u.kernels) ~= "number" or type(u.host_ops) ~= "number" or type(u.sync) ~= "boolean" then
      error("optimizer_impl.launch \"loop\" needs kernels = and host_ops = (per tensor, from the "
        .. "loop's source) and sync = true | false", 0)
    end
    if u.views ~= nil and type(u.views) ~= "boolean" then
      error("optimizer_impl.views must be true or false", 0)
    end
    return kind, u.kernels, u.host_ops, u.sync and 1 or 0, u.views and 1 or 0
  end
  if u.views ~= nil and type(u.views) ~= "boolean" then
    error("optimizer_impl.views must be true or false", 0)
  end
  return kind, 0, 0, 0, u.views and 1 or 0
end

-- Whether profile p's stack synchronises host and device at every phase of a step (sync =
-- "phase": Megatron-LM's timers; the planner's phase_sync, and dlb.roofline.time's and
-- dlb.sweep.model's op-cost set: core.roofline_opcosts_set_phase_sync,
-- core.sweep_prog_phase_sync); false for "none" or no sync entry. level: error's.
function M.phase_sync(p, level)
  p = profile_arg(p, "dlb.frameworks.phase_sync")
  local s = type(p) == "table" and p.sync or nil
  if s ~= nil and s ~= "phase" and s ~= "none" then
    error(string.format("dlb.frameworks: profile '%s': sync must be \"phase\" (host and device "
      .. "synchronised at every micro-batch forward and backward) or \"none\", got %s",
      tostring(p.name), tostring(s)), level or 2)
  end
  return s == "phase"
end

-- The launch model profile p's optimizer step runs under in a one-device step time
-- (dlb.roofline.time's op-cost set, dlb.sweep.model's program: core.roofline_opcosts_set_optim,
-- core.sweep_prog_optim): kind, kernels and host ops per tensor, sync (true / false), from its
-- optimizer_impl (M.launch_of); a profile without one, or a derived one that leaves launch
-- out: none (DLB_OPTIM_NONE), as plan_defaults gives the planner. views are a sharded step's
-- (ZeRO), not one device's.
function M.step_launch(p)
  p = profile_arg(p, "dlb.frameworks.step_launch")
  local u = type(p) == "table" and p.optimizer_impl or nil
  if type(u) ~= "table" or u.launch == nil then return M.LAUNCHES.none, 0, 0, false end
  local kind, k, h, sync = M.launch_of(p.optimizer_impl)
  return kind, k, h, sync == 1
end

-- The kernel launches, host dispatches and host syncs of one optimizer step under profile
-- p's implementation over `tensors` parameter tensors of `chunks` multi_tensor_apply chunks
-- in all (default: one each), by the one C rule (dlb_optim_launches).
function M.optimizer_launches(p, tensors, chunks)
  local fn = "dlb.frameworks.optimizer_launches"
  p = M.get(p, fn)
  local kind, k, h, sync = M.launch_of(p.optimizer_impl)
  -- the counts checked by the C rule (dlb_optim_launches), its message named with the
  -- function and the argument (review 13: "bad argument #2 to 'optim_launches'", or the C
  -- rule's text with no function named)
  for _, a in ipairs { { "tensors", tensors }, { "chunks", chunks } } do
    if a[2] ~= nil and type(a[2]) ~= "number" then
      require("dlbench.errors").raise(string.format("%s: %s must be a number, got %s", fn, a[1], type(a[2])))
    end
  end
  local ok, r = pcall(core.optim_launches, kind, tensors, chunks or tensors, k, h, sync == 1)
  if not ok then
    require("dlbench.errors").raise(fn .. ": " .. require("dlbench.errors").argtext(
      require("dlbench.errors").strip(r)))
  end
  return { launches = r.launches, dispatches = r.dispatches, syncs = r.syncs,
    launch = p.optimizer_impl.launch }
end

-- Whether profile p's trainer runs the language-model train metrics (its train_metrics
-- field: {lm_xent = true, source = ...}; fusion.c lm_metrics) on a graph of family fam: a
-- transformer's (or a graph whose family is not known); a CNN's or RNN's loss is not a
-- language model's.
local function lm_metrics(p, fam)
  local t = p.train_metrics
  return type(t) == "table" and t.lm_xent == true and fam ~= "other"
end

-- The fusion passes profile p applies to a graph of family fam (a list of pass names): its
-- fuse list, the passes of its optimizer implementation (optimizer_impl) and its trainer's
-- language-model train metrics (train_metrics: "lm_metrics"). causal: whether the graph is a
-- causal decoder (dlbench.mfu.causal); a profile's "softmax_causal" (Megatron's upper-
-- triangular softmax kernels) applies to a causal decoder only: an encoder (BERT) runs
-- scaled_masked_softmax, which reads every score and its mask (megatron/model/fused_softmax.py).
function M.fuse_of(p, fam, causal)
  p = M.get(p, "dlb.frameworks.fuse_of")   -- a name too (review 13: an index error)
  local f = p.fuse
  if f.transformer or f.other then f = f[fam or "other"] or f.other or {} end
  local u = p.optimizer_impl
  local impl = u and M.OPTIMIZER_IMPLS[u.kind]
  local lm = lm_metrics(p, fam)
  local drop = causal ~= true
  if drop then
    drop = false
    for _, n in ipairs(f) do if n == "softmax_causal" then drop = true end end
  end
  if not impl and not (u and u.grad_clip) and not lm and not drop then return f end
  local r = {}
  for _, n in ipairs(f) do if not (drop and n == "softmax_causal") then r[#r + 1] = n end end
  if impl then r[#r + 1] = impl end
  if u and u.grad_clip then r[#r + 1] = "grad_clip" end
  if lm then r[#r + 1] = "lm_metrics" end
  return r
end

-- Which profile a call uses: (profile, source). fw: the framework option (nil: not given);
-- fam: the graph's family (nil: unknown); explicit: the caller gave fuse= (then no
-- default profile applies: "none", as before profiles).
function M.resolve(fw, fam, explicit, fname)
  if fw ~= nil then return M.get(fw, fname), "option" end
  if explicit then return load("none"), "explicit switches (fuse=): no profile" end
  if session then return load(session), "session default (dlb.frameworks.default)" end
  local n = M.DEFAULTS[fam or "other"] or M.DEFAULTS.other
  return load(n), "default: " .. M.DEFAULTS_WHY[fam or "other"]
end

-- == the attention kernel: device x kernel family =======================================
-- The catalogue keeps each device's measured efficiency per kernel family
-- (lua/dlbench/hw_kernels.lua: {flash2 = {0.34, source}, flash3 = {0.59, source},
-- cudnn = {0.54, source}} for the H100); the device's attn_eff is the FlashAttention-2
-- value. The efficiency a profile's kernel gets on a device at a precision, and the kernel
-- as reported: "unfused" -> the device's attn_eff is irrelevant (the attention pass is off:
-- no fused kernel); a family without a measured number on that device -> the device's
-- attn_eff, said so.
-- The catalogue's entry for kernel family fam on device dev (hw_kernels.lua), or nil. A
-- modified copy (hw:with, e.g. the CALIBRATED flops_eff: "H100-SXM+flops_eff") keeps its
-- catalogue device's measured kernels, unless its attn_eff was the change (then the caller's
-- number stands, as for a device without kernels).
local function kernel_entry(dev, fam)
  local name = type(dev) == "table" and dev.name
  if not name then return nil end
  local K = require("dlbench.hw_kernels")
  local t = K[name]
  local cat, changed = tostring(name):match("^([^+]+)%+(.+)$")
  if not t and cat and not ("+" .. changed .. "+"):find("+attn_eff+", 1, true) then t = K[cat] end
  return type(t) == "table" and t[fam] or nil
end

-- A device argument: a device (dlb.hw.get's, or hw:with's copy) as given, a catalogue name
-- looked up (dlb.hw.get: an unknown name is an error naming it), nil as nil; anything else
-- an error naming fname.
local function device_of(dev, fname)
  if dev == nil or type(dev) == "table" then return dev end
  if type(dev) == "string" then
    -- an unknown name named with fname at the caller's line (review 13: dlb.hw.get's message
    -- at a line of this file)
    local ok, d = pcall(require("dlbench.hw").get, dev)
    if not ok then require("dlbench.errors").raise(fname .. ": " .. require("dlbench.errors").strip(d)) end
    return d
  end
  error(fname .. ": hw must be a device (dlb.hw.get) or its name, got " .. type(dev), 3)
end

function M.attention_eff(p, dev, prec)
  p = M.get(p, "dlb.frameworks.attention_eff")
  dev = device_of(dev, "dlb.frameworks.attention_eff")
  if dev == nil then error("dlb.frameworks.attention_eff: hw is required", 2) end
  local fam = p.attention
  local base = dev:attention_eff(prec)
  if fam == "unfused" then return base, "unfused" end
  local e = kernel_entry(dev, fam)
  if e and base > 0 and dev.attn_eff and dev.attn_eff > 0 then
    -- the same precision scaling as attn_eff (fp8 steps run attention in bf16)
    return base * e[1] / dev.attn_eff, fam
  end
  if base == 0 then return 0, fam .. " (no fused-attention efficiency on " .. tostring(dev.name)
    .. " at " .. tostring(prec) .. ": the GEMM efficiency applies)" end
  if fam == "flash2" then return base, fam end
  return base, fam .. " (no measured efficiency on " .. tostring(dev.name)
    .. ": the device's FlashAttention-2 attn_eff)"
end

-- The output layer under the profile's fp8 recipe (dlbench.fp8_output: the field
-- fp8.output, its default, the sources): whether its GEMMs run in fp8, and the peak they run
-- at in a step at precision prec on device dev (nil: the step's peak). The one place the rule
-- is applied: dlb.roofline.roof_of (roofline.time, sweeps) and the planner set the device's
-- head_peak from it.
function M.fp8_output(p)
  return require("dlbench.fp8_output").of(profile_arg(p, "dlb.frameworks.fp8_output"))
end
doc.doc(M.fp8_output, "dlb.frameworks.fp8_output(profile) -> quantized, source, stated",
  "whether the profile's fp8 recipe runs the output layer's GEMMs (the LM head) in fp8 (its "
  .. "fp8.output; stated false: not stated, the default 16-bit)")
function M.head_peak(p, dev, prec)
  p = profile_arg(p, "dlb.frameworks.head_peak")
  return require("dlbench.fp8_output").head_peak(p, device_of(dev, "dlb.frameworks.head_peak"), prec)
end
doc.doc(M.head_peak, "dlb.frameworks.head_peak(profile, hw, precision) -> FLOP/s, note | nil",
  "the peak the output layer's GEMMs run at in a step at the precision (the device's head_peak): "
  .. "the 16-bit peak in an fp8 step whose recipe leaves the output layer in 16-bit, else nil")

-- == causal masking: which kernel families skip the masked blocks ======================
-- A causal FlashAttention-style kernel skips the key blocks above the diagonal (about half
-- the score and value matmuls at long sequences), so a causal decoder's fused attention
-- computes half the FLOPs the graph counts, at its published causal rate (hw_kernels.lua
-- `causal`: the causal rate, FLOPs counted half, over the non-causal one). Listed per kernel
-- family with the evidence that the family's causal kernel skips; a family not listed is
-- timed on all its FLOPs. Chosen after seeing errors (issue [21]): cuDNN from the
-- Megatron-Core long-context rows (a flat -30% with whole attention); the causal rates and
-- FlashAttention-3 from the published causal figures read afterwards (docs/validation.md).
M.CAUSAL_SKIP = {
  cudnn = "Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608) Fig. 5, causal panels: "
    .. "cuDNN's causal forward reaches 539 TFLOP/s at 16k, hdim 128, on H100 with the causal "
    .. "FLOPs counted half (the paper's convention), 0.91 of its non-causal 595: the masked "
    .. "half is not computed. Transformer Engine runs it for attn_mask_type = causal on Hopper "
    .. "(get_attention_backend: FusedAttention preferred on sm90+)",
  flash3 = "Shah et al. 2024 (FlashAttention-3) Fig. 5, causal panels: 616 TFLOP/s at 16k, "
    .. "hdim 128, on H100 with the causal FLOPs counted half, 0.95 of its non-causal 648",
}
-- Families whose kernels skip by their source and papers, but whose skip is NOT applied, with
-- the evidence and why (a user who knows the step ran that kernel can apply it:
-- dlb.frameworks.CAUSAL_SKIP.flash2 = dlb.frameworks.CAUSAL_SKIP_NOT_APPLIED.flash2.evidence).
-- FlashAttention-2 (torchtitan, fsdp, fsdp2, pytorch-ddp): applied at its published causal
-- rate it sent the llm-foundry rows (the only FA2 rows but one) from a held-out median of
-- 4.3% to 20.2% and the H100 calibration from 0.72 to 0.42 (issue [21], causal-eff round,
-- docs/validation.md); those runs' kernel is not stated (llm-foundry's benchmark script
-- defaulted to attn_impl triton, later flash with flash-attn 2.4.2; MPT adds ALiBi).
M.CAUSAL_SKIP_NOT_APPLIED = {
  flash2 = {
    evidence = "Dao 2023 (FlashAttention-2, arXiv 2307.08691) sec. 3.1.1: blocks whose column "
      .. "indices all exceed their row indices are skipped (1.7-1.8x faster than without the "
      .. "mask); csrc flash_fwd_kernel.h: n_block_max = min(n_block_max, ceil_div((m_block + 1) "
      .. "* kBlockM + seqlen_k - seqlen_q, kBlockN)) when Is_causal; Fig. 4: 189 TFLOP/s causal "
      .. "(FLOPs counted half) against 203 non-causal at 16k on A100",
    why = "not applied: the held-out llm-foundry FSDP rows, timed on all the FLOPs, were "
      .. "predicted within 4.3% (median) when it was tried (causal-eff round); at FA2's published "
      .. "causal rate, 20.2% (docs/validation.md)",
  },
}
-- The source when profile p's attention kernel skips the masked blocks of causal attention
-- (nil: timed on all the FLOPs the graph counts).
function M.causal_skip(p)
  return M.CAUSAL_SKIP[M.get(p, "dlb.frameworks.causal_skip").attention]
end
doc.doc(M.causal_skip, "dlb.frameworks.causal_skip(profile) -> source | nil",
  "whether the profile's attention kernel skips the masked blocks of causal attention (a "
  .. "causal decoder's fused attention is then timed on half its FLOPs at the kernel's published "
  .. "causal rate: dlb.frameworks.attn_work), with the evidence")

-- The causal kernel's rate (FLOPs counted half) over the non-causal one for profile p's
-- kernel family on device dev, and a note: hw_kernels.lua's `causal` entry; 1 (the masked
-- half skipped at the non-causal rate) where the device has none for the family, said so;
-- nil when the family does not skip.
function M.causal_rate(p, dev)
  if p == nil then return nil end
  p = M.get(p, "dlb.frameworks.causal_rate")   -- a profile, or its name
  if not M.CAUSAL_SKIP[p.attention] then return nil end
  dev = device_of(dev, "dlb.frameworks.causal_rate")
  local e = kernel_entry(dev, p.attention)
  local c = e and e.causal
  if type(c) == "table" then return c[1], string.format("at %.2f of the non-causal rate", c[1]) end
  local name = type(dev) == "table" and dev.name or "the device (none given)"
  return 1, "no published causal rate on " .. tostring(name) .. ": at the non-causal rate"
end
doc.doc(M.causal_rate, "dlb.frameworks.causal_rate(profile, hw) -> ratio, note | nil",
  "the profile's causal attention kernel's published rate (FLOPs counted half) over its "
  .. "non-causal one on the device (hw_kernels.lua); 1 where none is published; nil when the "
  .. "family does not skip the masked blocks")

-- The fraction of the fused attention kernels' counted FLOPs they are timed on (dlb_roof
-- attn_work) for a step of a model under profile p on device dev: 0.5 / ratio for a causal
-- decoder (causal = true: dlbench.mfu.attention_fwd, or a layer list's `causal`) whose kernel
-- skips the masked blocks (half the FLOPs, at the causal rate: ratio, M.causal_rate); nil
-- (all of them, at the non-causal rate) otherwise; and the kernel's note ("causal: masked
-- blocks skipped, ..."). The one place the rule is applied: dlb.roofline.time, the planner
-- and sweeps set the device's attn_work from it. Checked by hand: tests/lua/test_frameworks.lua.
function M.attn_work(p, causal, dev)
  if not causal then return nil end
  local r, note = M.causal_rate(p, dev)
  if not r then return nil end
  return math.min(1, 0.5 / r), "causal: masked blocks skipped, " .. note
end
doc.doc(M.attn_work, "dlb.frameworks.attn_work(profile, causal, hw) -> fraction, note | nil",
  "the fraction of the fused attention kernels' FLOPs they are timed on (the device's "
  .. "attn_work) for a causal decoder's step under the profile: 0.5 / the kernel's published "
  .. "causal rate ratio when it skips the masked blocks")

-- == calibration =========================================================================
-- calibration = "catalogue" (the default: hw_catalog.lua's datasheet and paper values) or
-- "validated" (the CALIBRATED values of lua/dlbench/hw_calibrated.lua, fitted by
-- notebooks/validation.lua on its calibration rows). docs/frameworks.md says why the
-- catalogue is the default.
M.CALIBRATIONS = { catalogue = true, validated = true }
M.DEFAULT_CALIBRATION = "catalogue"

local session_cal = nil
function M.default_calibration(c)
  if c == nil then session_cal = nil else session_cal = M.check_calibration(c, "dlb.frameworks.default_calibration") end
  return session_cal or M.DEFAULT_CALIBRATION
end
function M.calibration_session() return session_cal end

function M.check_calibration(c, fname)
  if c == nil then return session_cal or M.DEFAULT_CALIBRATION end
  if not M.CALIBRATIONS[c] then
    -- at the user's line however deep the caller (dlb.sweep calls this under pcall)
    require("dlbench.errors").raise(fname .. ": calibration must be \"catalogue\" or \"validated\", got "
      .. tostring(c))
  end
  return c
end

local function unit_of(prec)
  if prec == "fp8" then return "fp8" end
  if prec == "fp32" or prec == "fp64" then return nil end
  return "tensor"
end

-- The device a calibration gives at a device precision, and a note saying what was used.
function M.calibrate(dev, prec, calibration)
  -- a device's name is that device (review 13: the name was read as a device without one:
  -- "no CALIBRATED flops_eff for nil", the name returned as the device)
  dev = device_of(dev, "dlb.frameworks.calibrate")
  if dev == nil then error("dlb.frameworks.calibrate: hw is required", 2) end
  if calibration ~= "validated" then return dev, "catalogue flops_eff" end
  local C = require "dlbench.hw_calibrated"
  local u = unit_of(prec)
  local e = C.flops_eff[dev.name]
  e = e and u and e[u]
  if not e then
    return dev, string.format("no CALIBRATED flops_eff for %s at %s: catalogue value", tostring(dev.name),
      tostring(prec))
  end
  return dev:with { flops_eff = e[1] }, string.format("CALIBRATED flops_eff %.2f (%s%s, %d rows "
    .. "of notebooks/validation.lua)", e[1], u, e.pooled and ", pooled over the " .. e.pooled
    .. " rows" or "", #e[2])
end

-- The CALIBRATED collective efficiency of a profile (nil: none).
function M.collective_eff(p, calibration)
  p = profile_arg(p, "dlb.frameworks.collective_eff")
  if calibration ~= "validated" or p == nil then return nil end
  local c = require("dlbench.hw_calibrated").collective[p.name]
  return c and c[1] or nil
end

-- == provenance ==========================================================================
-- What a result carries so its number can be reproduced (issue [18] item 6).
function M.provenance(p, source, calibration, defaults)
  p = profile_arg(p, "dlb.frameworks.provenance")   -- a name too (it read as "none")
  local core = require "dlbench.backend"
  return { dlbench = core.version(), framework = p and p.name or "none",
    framework_source = source or "option", calibration = calibration or "catalogue",
    defaults = defaults or {} }
end

-- One line: "dlbench 0.2.0, framework torchtitan (default ...), calibration catalogue".
function M.provenance_line(pv)
  if type(pv) ~= "table" then return "" end
  local d = pv.defaults and #pv.defaults > 0 and ("; defaults: " .. table.concat(pv.defaults, ", ")) or ""
  return string.format("dlbench %s, framework %s (%s), calibration %s%s", tostring(pv.dlbench),
    tostring(pv.framework), tostring(pv.framework_source), tostring(pv.calibration), d)
end

-- The planner options a profile sets when the caller does not (nil: the planner's own).
function M.plan_defaults(p, zero)
  -- a profile or its name (nil or a number was an index error, a name a profile without
  -- fields: {}; review 13); zero, when given, the caller's ZeRO stage
  p = M.get(p, "dlb.frameworks.plan_defaults")
  if zero ~= nil and type(zero) ~= "number" then
    require("dlbench.errors").raise("dlb.frameworks.plan_defaults: zero must be a ZeRO stage "
      .. "(0..3) or nil, got " .. type(zero) .. " " .. tostring(zero))
  end
  local d = {}
  if p.overlap ~= nil then d.overlap = p.overlap end
  if p.fsdp_overlap ~= nil then d.fsdp_overlap = p.fsdp_overlap end
  if p.contention ~= nil then d.contention = p.contention end
  if p.slack ~= nil then d.slack = p.slack end
  if p.pp_scatter ~= nil then d.pp_scatter = p.pp_scatter end
  if p.tp_async ~= nil then d.tp_async = p.tp_async end
  -- sync = "phase": the stack synchronises host and device at every micro-batch phase
  if p.sync ~= nil then d.phase_sync = M.phase_sync(p, 4) end
  if p.seq_par ~= nil then d.seq_par = p.seq_par end
  if p.moe ~= nil then d.moe_impl = p.moe end
  if p.reduce_dtype ~= nil then d.reduce_dtype = p.reduce_dtype end
  -- the ZeRO stage the stack runs (nemo, megatron-core: the distributed optimizer, ZeRO-1;
  -- fsdp, torchtitan: FULL_SHARD, ZeRO-3; each profile's sources): evaluate's stage and the
  -- highest a plan searches, unless the caller gives zero= (issue [21]/[18]: a validation
  -- row that states no stage got 0 while a plan of the same profile searched up to this)
  if p.zero ~= nil then d.zero = p.zero end
  -- the optimizer step's launches (none: each update op one kernel, as before profiles)
  local u = p.optimizer_impl
  if u and u.launch and u.launch ~= "none" then d.optimizer_impl = u end
  local g = p.gather or {}
  if g.unit == "tensor" and (zero == nil or zero >= 3) then d.gather_tensors = g.tensors end
  return d
end

-- The host-side model (issue [19]; dlb_roof host_op / host_layer, graphs/hw/roofline_impl.h
-- dlb_timeline): what the profile's host spends to issue one op (dispatch.per_op: Python, the
-- dispatcher, the launch call) and, where the stack runs Python per layer, per layer and
-- forward pass (dispatch.per_layer). A compiled stack (XLA, CUDA graphs) issues the step
-- as one launch: per_op 0. No dispatch (framework "none"): no host model, 0 and 0.
-- With calibration "validated", the CALIBRATED host seconds per op of lua/dlbench/hw_calibrated.lua
-- where the profile has one (fitted by notebooks/validation.lua on the vTrain rows).
function M.host_of(p, calibration)
  p = profile_arg(p, "dlb.frameworks.host_of")
  local d = type(p) == "table" and p.dispatch or nil
  if type(d) ~= "table" then return 0, 0 end
  local per_op = d.per_op or 0
  if calibration == "validated" then
    local h = require("dlbench.hw_calibrated").host
    local c = h and h[p.name]
    if c then per_op = c[1] end
  end
  return per_op, d.per_layer or 0
end

-- The recompute choice of a plan under profile p: nil (try both) unless the profile offers
-- no full recompute.
function M.offers(p, policy)
  for _, r in ipairs(M.get(p, "dlb.frameworks.offers").recompute or {}) do if r == policy then return true end end
  return false
end


doc.doc(M.session, "dlb.frameworks.session() -> name or nil", "the session default set by "
  .. "dlb.frameworks.default (nil: the per-family defaults)")
doc.doc(M.family, "dlb.frameworks.family(g) -> \"transformer\" | \"other\" | nil",
  "the family a graph's default profile follows (a zoo model's; nil: found from the step)")
doc.doc(M.fuse_of, "dlb.frameworks.fuse_of(profile, family[, causal]) -> {pass, ...}",
  "the fusion passes (g:stats fuse=) a profile applies to a graph of that family, with its "
  .. "optimizer implementation's (optimizer_foreach, optimizer_loop, grad_clip) and its trainer's "
  .. "language-model train metrics (lm_metrics); softmax_causal only when causal is true (a "
  .. "causal decoder, dlb.mfu's rule)")
doc.doc(M.resolve, "dlb.frameworks.resolve(framework, family, explicit) -> profile, source",
  "the profile a call uses and why: the option, none under explicit fuse=, the session "
  .. "default, or the family's default")
doc.doc(M.attention_eff, "dlb.frameworks.attention_eff(profile, hw, precision) -> fraction, kernel",
  "the fused attention kernel's fraction of peak: the device's measured efficiency for the "
  .. "profile's kernel family (hw.attn_kernels), else its attn_eff (FlashAttention-2), said so")
doc.doc(M.provenance, "dlb.frameworks.provenance(profile, source, calibration, defaults) -> table",
  "{dlbench=version, framework=, framework_source=, calibration=, defaults={...}}: what a "
  .. "result needs to be reproduced")
doc.doc(M.provenance_line, "dlb.frameworks.provenance_line(provenance) -> string",
  "the provenance as one printed line")
doc.doc(M.step_launch, "dlb.frameworks.step_launch(profile) -> kind, kernels, host_ops, sync",
  "the optimizer launch model a profile gives one device's step (dlb.roofline.time, "
  .. "dlb.sweep.model): its optimizer_impl's (dlb.frameworks.launch_of), none without a launch")
doc.doc(M.phase_sync, "dlb.frameworks.phase_sync(profile) -> boolean", "whether the profile's "
  .. "stack synchronises host and device at every phase of a step (sync = \"phase\": the planner's "
  .. "phase_sync, and dlb.roofline.time's and dlb.sweep.model's passes each from a synchronisation "
  .. "point)")
doc.doc(M.launch_of, "dlb.frameworks.launch_of(optimizer_impl | launch name) -> kind, kernels, "
  .. "host_ops, sync, views", "the optimizer launch model of a profile's optimizer_impl (DLB_OPTIM_* "
  .. "kind; a loop's kernels and host ops per tensor and sync 0/1), checked, with an error "
  .. "naming what is wrong")
doc.doc(M.optimizer_launches, "dlb.frameworks.optimizer_launches(profile, tensors[, chunks]) -> "
  .. "{launches=, dispatches=, syncs=, launch=}", "the kernels one optimizer step of the "
  .. "profile's implementation launches over `tensors` parameter tensors holding `chunks` "
  .. "chunks of 65536 elements in all, the Python-level ops its host dispatches and its host "
  .. "syncs (graphs/hw/optim_launch.c, each count with its source)")
-- what a collective beside compute takes from it on a device (lua/dlbench/contention.lua)
M.contention = require("dlbench.contention").of
M.overlapped = require("dlbench.contention").overlapped

doc.doc(M.plan_defaults, "dlb.frameworks.plan_defaults(profile[, zero]) -> {zero=, overlap=, fsdp_overlap=, contention=, "
  .. "slack=, gather_tensors=, pp_scatter=, tp_async=, phase_sync=, seq_par=, moe_impl=, reduce_dtype=, optimizer_impl=}", "the planner options a profile (a table or its name) sets when the caller does not")
-- The one rule that gives a device its host-side model (dlb.roofline.time and the planner
-- alike): the profile's dispatch cost, unless the device states its own (hw:with{host_op =
-- ...} or host_layer > 0: a positive number; a catalogue device's fields are 0, which is
-- "none stated", not a host that issues for free). Sets dev.host_op and dev.host_layer.
function M.apply_host(dev, p, calibration)
  if not ((dev.host_op or 0) > 0 or (dev.host_layer or 0) > 0) then
    dev.host_op, dev.host_layer = M.host_of(p, calibration)
  end
  return dev
end

doc.doc(M.apply_host, "dlb.frameworks.apply_host(dev, profile[, calibration]) -> dev",
  "give a device (a dlb_roof table) the profile's host cost unless it states its own positive "
  .. "host_op / host_layer (the one rule of roofline.time and the planner)")
doc.doc(M.host_of, "dlb.frameworks.host_of(profile[, calibration]) -> per_op, per_layer",
  "the host-side model's seconds per op issued and per layer forward a profile sets (the "
  .. "device fields host_op, host_layer; 0, 0 without a dispatch entry or without a profile: nil); "
  .. "the profile a table or its name")
doc.doc(M.offers, "dlb.frameworks.offers(profile, policy) -> boolean",
  "whether a profile offers a recompute policy (\"none\", \"full\", \"selective\", \"selective_op\")")
doc.doc(M.default_calibration, "dlb.frameworks.default_calibration([\"catalogue\" | \"validated\"]) -> name",
  "set the calibration used when a call gives none (nil: back to \"catalogue\")")
doc.doc(M.calibration_session, "dlb.frameworks.calibration_session() -> name or nil",
  "the calibration set by default_calibration (nil: none set)")
doc.doc(M.check_calibration, "dlb.frameworks.check_calibration(c, fname) -> name",
  "\"catalogue\" (default) or \"validated\"")
doc.doc(M.calibrate, "dlb.frameworks.calibrate(hw, precision, calibration) -> hw, note",
  "the device under a calibration: \"validated\" takes the CALIBRATED flops_eff of "
  .. "lua/dlbench/hw_calibrated.lua (fitted by notebooks/validation.lua) where it has one")
doc.doc(M.collective_eff, "dlb.frameworks.collective_eff(profile, calibration) -> fraction or nil",
  "the CALIBRATED share of the links' bandwidth of a profile's collectives (validated only)")
doc.doc(M, "dlb.frameworks", "framework profiles as data with sources: list(), get(name), "
  .. "default([name]); framework= in g:stats, roofline.time, parallel.evaluate/plan, sweeps, "
  .. "scaling.project (docs/frameworks.md)")
return M
