-- dlbench.serve — LLM inference and serving on the training model's devices: prefill and
-- decode steps with a KV cache (GQA/MQA, paged, sliding window), time to first token,
-- time per output token, tokens/s per GPU and per replica, KV-cache bytes and what fits,
-- tensor and pipeline parallel serving, weight-only and KV quantisation, energy per token.
-- The model's serving view (dlb.serve.model) is in serve_model.lua; batching (continuous,
-- closed loop, chunked prefill, speculative decoding), the fast sweep and the validation
-- are in serve_batch.lua; both are installed here. See docs/serve.md.
--
-- Every step is a dlb graph (serve_graph.lua): the prefill's, a decode step's, a chunked-
-- prefill iteration's, one rank's under tp (its allreduces as kernels), one stage's under
-- pp; its kernels are read back through the graph's forward analysis and timed by the one
-- per-op rule and step model of graphs/hw (dlb_roofline_ops_attn -> dlb_step_time) and
-- serving's launch model. A decode phase's sum is the graph of the step at context 0 less
-- its attention, once per step, plus the attention kernel as the cache grows one token a
-- step, summed by the same rule in C (dlb_op_time_run). dlb.serve.graphs hands the graphs
-- out and dlb.serve.time times them.
local hwmod = require "dlbench.hw"
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local strip = require("dlbench.errors").strip

local M = {}

-- == dtypes ======================================================================

-- Bytes per stored weight, serving's own table (independent of the graph engine's dtypes).
-- int4/nf4 add one fp16 scale per group of `group` weights (GPTQ/AWQ/bitsandbytes NF4 use
-- groups of 64-128 with an fp16 scale; AWQ also a 4-bit zero point, not counted); int8 and
-- fp8 use per-channel or per-tensor scales (negligible).
M.WEIGHT_BYTES = { fp32 = 4, fp16 = 2, bf16 = 2, fp8 = 1, int8 = 1, int4 = 0.5, nf4 = 0.5 }
M.GROUPED = { int4 = true, nf4 = true }
M.KV_BYTES = { fp32 = 4, fp16 = 2, bf16 = 2, fp8 = 1, int8 = 1, int4 = 0.5 }

local function names_of(t)
  local n = {}
  for k in pairs(t) do n[#n + 1] = k end
  table.sort(n)
  return table.concat(n, ", ")
end

local function fail(fn, msg, level) error(fn .. ": " .. msg, (level or 2) + 1) end

local function posint(fn, what, v, level)
  if type(v) ~= "number" or v ~= v or v < 1 or v == math.huge or v ~= math.floor(v) then
    fail(fn, what .. " must be a positive integer, got " .. tostring(v), (level or 2) + 1)
  end
  return v
end

-- The longest prompt, output or context, in tokens, that dlb.serve takes: 2^24 (16,777,216),
-- above every published context window (10M tokens at most in 2025). A stated bound, not a
-- model limit: a length of 1e300 failed deep inside (a poly's "inf", "1e+300 ops is more than
-- 2^31") and output = 2^31 - 1 ran 18 CPU-s before any answer.
M.max_length = 2 ^ 24

-- A sequence's context, prompt + output tokens (means, for lists of lengths), within the
-- same bound: each alone in it, their sum reached past it where the cache is sized.
local function sequence(fn, P, O, level)
  if P + O > M.max_length then
    fail(fn, string.format("prompt + output = %.14g tokens, more than dlb.serve.max_length = %d "
      .. "(the context a sequence reaches)", P + O, M.max_length), (level or 2) + 1)
  end
end

-- A length in tokens (prompt, output, context): a whole number from 1 (from 0 with zero) to
-- M.max_length, else an error naming it and the bound. level as posint's.
local function length(fn, what, v, level, zero)
  local lo = zero and 0 or 1
  if type(v) ~= "number" or v ~= v or v < lo or v > M.max_length or v ~= math.floor(v) then
    fail(fn, string.format("%s must be a whole number of tokens from %d to %d (dlb.serve.max_length), got %s",
      what, lo, M.max_length, v ~= v and "nan" or type(v) == "number" and string.format("%.14g", v) or (type(v) .. " " .. tostring(v))),
      (level or 2) + 1)
  end
  return v
end

-- A switch: nil (the default) or a boolean; anything else (a string "no" read as true) is
-- an error naming it.
local function flag(fn, what, v, level)
  if v ~= nil and type(v) ~= "boolean" then
    fail(fn, what .. " must be true or false, got " .. tostring(v), (level or 2) + 1)
  end
  return v
end

local function posnum(fn, what, v, level, allow0)
  if type(v) ~= "number" or v ~= v or v == math.huge or v < 0 or (v == 0 and not allow0) then
    fail(fn, what .. " must be a finite number " .. (allow0 and ">= 0" or "> 0") .. ", got "
      .. tostring(v), (level or 2) + 1)
  end
  return v
end

-- == the model (serve_model.lua) ================================================

require("dlbench.serve_model").install(M, { posint = posint, fail = fail, names_of = names_of })

-- == the serving configuration ===================================================

local CFG = { hw = true, weights = true, act = true, kv = true, compute = true, tp = true,
  pp = true, microbatches = true, group = true, cuda_graphs = true, kernel_overhead = true,
  step_overhead = true, flops_eff = true, bw_eff = true, attn_eff = true, block = true,
  mem_util = true, link = true, comm_latency = true, fused = true, launch = true,
  kv_reuse = true, collectives = true, calibration = true }

local MEMORY_OPTS, CAPACITY_OPTS = { batch = true, context = true, tokens = true },
  { batch = true, context = true }
for k in pairs(CFG) do MEMORY_OPTS[k], CAPACITY_OPTS[k] = true, true end

-- Resolve a serving configuration: the device, dtypes, parallelism and the per-op roofline
-- parameters (the device's roof at the compute precision, as dlb.roofline.time uses).
function M.config(opts, fn, spec)
  fn = fn or "dlb.serve.config"
  opts = options.check(opts, CFG, fn, 3, true)
  local c = { fn = fn }
  if opts.hw == nil then fail(fn, "hw is required (a device from dlb.hw.get or its name)", 3) end
  local ok, dev = pcall(hwmod.get, opts.hw)
  if not ok then fail(fn, "hw: " .. strip(dev), 3) end
  c.dev = dev
  c.act = opts.act or (dev.peak.bf16 and not dev.peak.fp16 and "bf16" or "fp16")
  if c.act ~= "fp16" and c.act ~= "bf16" and c.act ~= "fp32" then
    fail(fn, "act must be fp16, bf16 or fp32, got " .. tostring(c.act), 3)
  end
  c.weights = opts.weights or c.act
  if not M.WEIGHT_BYTES[c.weights] then
    fail(fn, "weights must be one of " .. names_of(M.WEIGHT_BYTES) .. ", got " .. tostring(c.weights), 3)
  end
  c.group = opts.group and posint(fn, "group", opts.group, 3) or 128
  c.wbytes = M.WEIGHT_BYTES[c.weights] + (M.GROUPED[c.weights] and 2 / c.group or 0)
  c.kv = opts.kv or c.act
  if not M.KV_BYTES[c.kv] then
    fail(fn, "kv must be one of " .. names_of(M.KV_BYTES) .. ", got " .. tostring(c.kv), 3)
  end
  c.kvbytes = M.KV_BYTES[c.kv]
  c.abytes = M.WEIGHT_BYTES[c.act]
  -- fp8 weights run fp8 GEMMs where the device has an fp8 peak (W8A8, as TensorRT-LLM's
  -- FP8 does); int8/int4/nf4 are weight-only: dequantised in the GEMM, computed at act
  local compute = opts.compute
  if compute == nil then
    compute = (c.weights == "fp8" and dev.peak.fp8) and "fp8" or c.act
  end
  local okp, prec = pcall(dev.precision, dev, compute)
  if not okp then fail(fn, "compute: " .. strip(prec), 3) end
  c.compute = prec
  c.tp = opts.tp and posint(fn, "tp", opts.tp, 3) or 1
  c.pp = opts.pp and posint(fn, "pp", opts.pp, 3) or 1
  -- the model's split (spec: the serving model, when the caller has it): tensor parallelism
  -- shards the attention heads (tp divides them) and the KV heads (tp divides them, or they
  -- are replicated: tp a multiple of them), as vLLM and TensorRT-LLM require; pipeline
  -- parallelism gives each stage a layer at least. Before, tp = 3 of 4 heads failed in the
  -- graph engine ("kv_cache dim 3: 42.67 is not a positive integer") or, in memory and
  -- capacity, counted 4/3 KV heads per GPU.
  if spec and spec.heads then
    local h, kv = spec.heads, spec.kv_heads or spec.heads
    if h % c.tp ~= 0 then
      fail(fn, string.format("tp %d does not divide the %d attention heads of '%s'", c.tp, h,
        tostring(spec.name)), 3)
    end
    if kv % c.tp ~= 0 and c.tp % kv ~= 0 then
      fail(fn, string.format("tp %d and the %d KV heads of '%s' neither divide the other (the KV "
        .. "heads are sharded, or replicated when tp is a multiple of them)", c.tp, kv, tostring(spec.name)), 3)
    end
  end
  if spec and spec.layers and c.pp > spec.layers then
    fail(fn, string.format("pp %d is more stages than the %d layers of '%s'", c.pp, spec.layers,
      tostring(spec.name)), 3)
  end
  c.microbatches = opts.microbatches and posint(fn, "microbatches", opts.microbatches, 3) or c.pp
  c.block = opts.block and posint(fn, "block", opts.block, 3) or 16
  c.mem_util = opts.mem_util and posnum(fn, "mem_util", opts.mem_util, 3) or 0.9
  if c.mem_util > 1 then fail(fn, "mem_util must be in (0, 1], got " .. c.mem_util, 3) end
  local ropts = {}
  for _, k in ipairs { "flops_eff", "bw_eff" } do
    if opts[k] ~= nil then ropts[k] = posnum(fn, k, opts[k], 3) end
  end
  -- calibration = "validated": the GEMMs' flops_eff is the chip's CALIBRATED value at the
  -- compute precision's unit (tensor or fp8; lua/dlbench/hw_calibrated.lua, fitted on the
  -- training validation rows), the same rule as a training step's calibration = "validated"
  -- (dlb.frameworks.calibrate); the catalogue's where the chip has none. "catalogue" (the
  -- default): the catalogue's. A flops_eff given as well is an error naming both.
  local fw = require "dlbench.frameworks"
  c.calibration = opts.calibration == nil and "catalogue"
    or fw.check_calibration(opts.calibration, fn)
  c.calibration_note = "catalogue flops_eff"
  if c.calibration == "validated" then
    if opts.flops_eff ~= nil then
      fail(fn, "give flops_eff or calibration = \"validated\" (which sets flops_eff), not both", 3)
    end
    dev, c.calibration_note = fw.calibrate(dev, c.compute, "validated")
  end
  local okr, roof = pcall(dev.roof, dev, c.compute, ropts)
  if not okr then fail(fn, strip(roof), 3) end
  -- fused attention runs at the activation dtype (FlashAttention-2 and the paged decode
  -- kernels are 16-bit; an fp8 step runs attention in bf16/fp16, as dlb.hw's
  -- attention_eff has it): attn_eff of that peak where known, else flops_eff
  local ae = opts.attn_eff and posnum(fn, "attn_eff", opts.attn_eff, 3) or dev:attention_eff(c.act)
  if not (ae > 0) then ae = roof.flops_eff end
  c.roof = roof
  -- the devices the per-op rule sees: the GEMMs' and the other ops' at the compute dtype,
  -- the attention kernels' at the activation dtype with attn_eff; without the rule's
  -- kernel_overhead, since serving's launch model (c.launch, c.launch_mode below) adds it
  local op_roof, attn_roof = {}, {}
  for k, v in pairs(roof) do op_roof[k], attn_roof[k] = v, v end
  op_roof.kernel_overhead, attn_roof.kernel_overhead = 0, 0
  attn_roof.peak, attn_roof.attn_eff = dev.peak[c.act] or roof.peak, ae
  local okc, err = pcall(core.roof_check, attn_roof)
  if not okc then fail(fn, "attn_eff: " .. strip(err), 3) end
  c.op_roof, c.attn_roof = op_roof, attn_roof
  -- one device for both (one call of the rule per step) when the attention kernels' rate
  -- is a fraction of the compute dtype's peak: attn_eff x peak(act) / peak(compute) <= 1
  local share = ae * attn_roof.peak / op_roof.peak
  if share > 0 and share <= 1 then
    local one = {}
    for k, v in pairs(op_roof) do one[k] = v end
    one.attn_eff = share
    c.one_roof = one
  end
  c.cuda_graphs = flag(fn, "cuda_graphs", opts.cuda_graphs, 3) or false
  c.fused = flag(fn, "fused", opts.fused, 3) or false
  c.kv_reuse = flag(fn, "kv_reuse", opts.kv_reuse, 3) ~= false
  local ko = opts.kernel_overhead
  if ko ~= nil then posnum(fn, "kernel_overhead", ko, 3, true) else ko = roof.kernel_overhead or 0 end
  c.launch = ko                   -- per kernel launch, removed by CUDA graphs
  c.launch_mode = opts.launch or "overlap"
  if c.launch_mode ~= "serial" and c.launch_mode ~= "overlap" then
    fail(fn, "launch must be \"serial\" or \"overlap\", got " .. tostring(opts.launch), 3)
  end
  c.step_overhead = opts.step_overhead and posnum(fn, "step_overhead", opts.step_overhead, 3, true)
    or (roof.step_overhead or 0)
  -- the links the collectives run on: NVLink-class intra-node links while the group fits
  -- a node (8 GPUs), else the inter-node links
  local links = dev.links or {}
  -- comm_latency: the per-step latency (alpha) of the collectives, in place of the link's
  local alpha = opts.comm_latency and posnum(fn, "comm_latency", opts.comm_latency, 3, true)
  -- link= checked here, as the training models check theirs (dlb.parallel's link rule), not
  -- first read by an allreduce deep in a step ("parallel.allreduce: option 'bw' is required")
  local ulink
  if opts.link ~= nil then
    -- serving's alpha-beta ring reads bw and latency (no eff): a misspelt or unused field is
    -- refused rather than left out of the time
    if type(opts.link) ~= "table" then
      fail(fn, "link must be a table {bw=, latency=}, got " .. type(opts.link) .. " " .. tostring(opts.link), 3)
    end
    options.check(opts.link, { bw = true, latency = true }, fn .. " link", 3)
    local okl, l = pcall(require("dlbench.parallel_base").link, fn, opts.link, "link")
    if not okl then error((strip(l)), 3) end
    ulink = l
  end
  local function link(n)
    local l = (n <= 8 and links.intra) or links.inter or links.intra
    if ulink then l = ulink end
    if alpha and l then l = { bw = l.bw, latency = alpha } end
    return l
  end
  c.link = link
  if (c.tp > 1 or c.pp > 1) and not (links.intra or links.inter or opts.link) then
    fail(fn, "device '" .. dev.name .. "' has no links for tp/pp collectives; give link = {bw=, latency=}", 3)
  end
  -- How the tensor-parallel allreduces are timed (docs/serve.md, "Collectives"): "nccl",
  -- NCCL's own tuning model on the device's fabric (dlb.parallel.nccl, the rule training's
  -- planner times its tensor-parallel allreduces with), the default on a catalogue GPU; or
  -- "alpha-beta", the ring on the link (link= or the device's), whose per-step latency
  -- comm_latency replaces; a link= or comm_latency= describes such a link and selects it.
  local coll = opts.collectives
  if coll ~= nil and coll ~= "nccl" and coll ~= "alpha-beta" then
    fail(fn, "collectives must be \"nccl\" or \"alpha-beta\", got " .. tostring(coll), 3)
  end
  if coll == "nccl" and (opts.link or alpha) then
    fail(fn, "collectives = \"nccl\" times NCCL on the device's fabric; link= and comm_latency= "
      .. "describe an alpha-beta link (give collectives = \"alpha-beta\" with them)", 3)
  end
  if coll == nil then
    coll = (opts.link or alpha) and "alpha-beta"
      or require("dlbench.parallel_base").default_collectives({ hw = dev }, { nvlink = dev.nvlink or 0 })
  end
  c.collectives = coll
  if coll == "nccl" then
    -- the tensor-parallel group packed node by node, 8 GPUs a node (as link() above)
    local topos = {}
    function c.nccl_topo(n)
      local t = topos[n]
      if not t then
        local P = require "dlbench.parallel"
        local per = math.min(n, 8)
        local okt, tt = pcall(function()
          return P.nccl_topo(P.cluster { hw = dev, per_node = per, nodes = math.ceil(n / per) }, n, per)
        end)
        if not okt then fail(fn, "collectives = \"nccl\": " .. strip(tt), 3) end
        t = tt
        topos[n] = t
      end
      return t
    end
    if c.tp > 1 then c.nccl_topo(c.tp) end   -- a fabric NCCL cannot time fails here, by name
  end
  c.opts = opts
  return c
end

doc.doc(M.config, "dlb.serve.config{hw=, weights=, kv=, act=, compute=, tp=, pp=, microbatches=, group=128, block=16, mem_util=0.9, cuda_graphs=, launch=\"overlap\"|\"serial\", kernel_overhead=, step_overhead=, flops_eff=, bw_eff=, attn_eff=, collectives=\"nccl\"|\"alpha-beta\", comm_latency=, link=, fused=, kv_reuse=true, calibration=\"catalogue\"|\"validated\"} -> config",
  "a resolved serving configuration: the device, dtypes and bytes per weight, parallelism, and the per-op roofline parameters every dlb.serve call uses (calibration = \"validated\": the GEMMs' flops_eff is the chip's CALIBRATED value, lua/dlbench/hw_calibrated.lua)")

-- == a step (serve_graph.lua) ===================================================

-- Every step is its graph (serve_graph.lua): built from the serving rules, read back through
-- its forward analysis and timed by the training step's per-op model and serving's launch
-- model. step: one step on one stage; pipelined: a whole step through the pipeline.
local SG = require "dlbench.serve_graph"
local step, pipelined, cached_tokens = SG.step, SG.pipelined, SG.cached_tokens
M._step = step

-- == weights and memory ==========================================================

-- Per-GPU weight bytes: the linear layers at the weight dtype (plus group scales), the
-- embedding and LM head at the activation dtype (quantisers keep them, as TensorRT-LLM's
-- FP8 and AWQ/GPTQ checkpoints do), sharded over tp and pp.
local function weight_bytes(s, c)
  return (s.linear_params * c.wbytes / c.tp + s.embed_params * c.abytes / c.tp) / c.pp
end

-- KV bytes per token per GPU (KV heads shard over tp; layers over pp).
local function kv_per_token_gpu(s, c)
  local kvh = math.max(1, s.kv_heads / c.tp)
  return 2 * (s.layers / c.pp) * kvh * s.head_dim * c.kvbytes
end

-- The largest transient activation of a forward pass over `tokens` tokens on one GPU: the
-- residual stream twice and the widest projection's output (the MLP's up (and gate) or
-- the fused QKV), sharded over tp. Used by memory and capacity.
local function act_bytes(s, c, tokens)
  local wide = math.max(s.ffn * (s.mlp == "swiglu" and 3 or 2),
    (s.heads + 2 * s.kv_heads) * s.head_dim) / c.tp
  return tokens * (2 * s.hidden + wide) * c.abytes
end

-- The memory one GPU needs for B sequences of context ctx: weights, KV cache (paged
-- blocks) and the largest transient activation (a prefill chunk of `tokens` tokens).
function M.memory(model, opts)
  local fn = "dlb.serve.memory"
  -- its own keys checked with the configuration's, so an unknown option's list names them all
  opts = options.check(opts, MEMORY_OPTS, fn)
  local batch, context, tokens = opts.batch, opts.context, opts.tokens
  local o = {}
  for k, v in pairs(opts) do if k ~= "batch" and k ~= "context" and k ~= "tokens" then o[k] = v end end
  local s = M.model(model)
  local c = M.config(o, fn, s)
  batch = posint(fn, "batch", batch or 1)
  context = length(fn, "context", context or 1)
  -- tokens: the prefill chunk whose activations are charged (a negative or NaN one gave a
  -- negative or NaN activation and total; a string a bare arithmetic error)
  tokens = tokens == nil and batch * context or posint(fn, "tokens", tokens)
  return M._memory(s, c, batch, context, tokens)
end
function M._memory(s, c, batch, context, tokens)
  local w = weight_bytes(s, c)
  local kv = batch * cached_tokens(s, c, context) * kv_per_token_gpu(s, c)
  local act = act_bytes(s, c, tokens)
  local cap = c.dev.mem * c.mem_util
  return { weights = w, kv = kv, activations = act, total = w + kv + act, capacity = cap,
    fits = w + kv + act <= cap, kv_per_token = kv_per_token_gpu(s, c),
    kv_per_token_model = 2 * s.layers * s.kv_heads * s.head_dim * c.kvbytes }
end
doc.doc(M.memory, "dlb.serve.memory(model, {hw=, batch=, context=, tokens=, weights=, kv=, tp=, pp=, block=16, mem_util=0.9}) -> {weights=, kv=, activations=, total=, capacity=, fits=}",
  "per-GPU serving memory: weights (quantised), paged KV cache, transient activations, against mem x mem_util")

-- The largest batch at a context (or context at a batch) whose KV cache fits beside the
-- weights: {batch=, context=, kv_tokens=} (kv_tokens: the cache tokens the GPU holds).
function M.capacity(model, opts)
  local fn = "dlb.serve.capacity"
  opts = options.check(opts, CAPACITY_OPTS, fn)
  if opts.context ~= nil and opts.batch ~= nil then -- one is solved for: batch was ignored
    fail(fn, "give context= (the batch that fits is found) or batch= (the context that fits "
      .. "is found), not both", 2)
  end
  local o = {}
  for k, v in pairs(opts) do if k ~= "batch" and k ~= "context" then o[k] = v end end
  local s = M.model(model)
  local c = M.config(o, fn, s)
  -- checked before the answer (review 20: a model too large for the device returned
  -- fits = false for context = -5 or batch = 0); neither given is batch = 1, the same path
  -- (it answered the cache's whole tokens, where batch = 1 answered inf for a windowed
  -- model, whose cache stops at the window)
  local ctx = opts.context ~= nil and length(fn, "context", opts.context) or nil
  local b = ctx == nil and posint(fn, "batch", opts.batch or 1) or nil
  local cap = c.dev.mem * c.mem_util
  local w = weight_bytes(s, c)
  local per = kv_per_token_gpu(s, c)
  local free = cap - w
  local r = { weights = w, capacity = cap, kv_per_token = per }
  if free <= 0 then
    r.batch, r.context, r.kv_tokens, r.fits = 0, 0, 0, false
    return r
  end
  -- activations of one decode step are small; a prefill chunk's are charged at 2048 tokens
  free = free - act_bytes(s, c, 2048)
  r.kv_tokens = math.max(0, math.floor(free / per / c.block) * c.block)
  if ctx then
    r.context = ctx
    r.batch = math.floor(r.kv_tokens / cached_tokens(s, c, ctx))
  else
    r.batch = b
    local per_seq = math.floor(r.kv_tokens / b / c.block) * c.block
    r.context = (s.window and per_seq >= s.window) and math.huge or per_seq
  end
  r.fits = r.batch >= 1 and r.context >= 1
  return r
end
doc.doc(M.capacity, "dlb.serve.capacity(model, {hw=, context= | batch=1, weights=, kv=, tp=, pp=, block=, mem_util=}) -> {batch=, context=, kv_tokens=, fits=}",
  "the largest batch at a context (or context per sequence at a batch, default 1; inf when a windowed model's cache stops at its window) whose KV cache fits beside the weights")

-- == prefill, decode, generate ===================================================

local STEP_OPTS = { batch = true, prompt = true, context = true, output = true, new = true,
  chunks = true }
for k in pairs(CFG) do STEP_OPTS[k] = true end

local function split_opts(opts, fn, keys)
  opts = options.check(opts, STEP_OPTS, fn, 3, true)
  local cfg, own = {}, {}
  for _, k in ipairs(options.keys(opts)) do -- sorted: the first refused key is named
    local v = opts[k]
    if keys[k] then own[k] = v
    elseif STEP_OPTS[k] and not CFG[k] then
      fail(fn, "option '" .. k .. "' does not apply here (accepted: " .. options.names(CFG) .. ", "
        .. options.names(keys) .. ")", 3)
    else cfg[k] = v end
  end
  return cfg, own
end

-- Energy of `flops` and `bytes` over `time` on the device (dlb.energy.step: the 45 nm
-- per-operation tables and the device's power x time), for `tokens` tokens. per_token is
-- the device's power x time / tokens only: on a device the catalogue lists without power
-- (TPU v5p, A10G, ...) it is nil, as dlb.energy.step's device_joules is (review 20: it was
-- the 45 nm tables' ops_per_token there, another quantity (Llama-2-7B, batch 8: 0.42 J
-- against H100-SXM's 0.82 J of power x time), under the same name as the
-- power x time figure of every other device). dlb.serve.continuous prices its steady
-- state with the same function (it kept a copy of the power rule).
local function energy(c, flops, bytes, time, tokens)
  local E = require "dlbench.energy"
  local prec = (c.compute == "fp8" or c.compute == "int8") and "int8" or "fp16"
  if c.compute == "fp32" then prec = "fp32" end
  local ok, e = pcall(E.step, { flops = flops, bytes = bytes }, { precision = prec,
    time = time, power = c.dev.power })
  if not ok then return nil end
  local gpus = c.tp * c.pp
  local dj = c.dev.power and e.device_joules * gpus or nil
  return { joules = e.joules * gpus, device_joules = dj, per_token = dj and dj / tokens,
    ops_per_token = e.joules * gpus / tokens, power = c.dev.power }
end
M._energy = energy

local function finish(kind, s, c, r, tokens)
  r.kind = kind
  r.model, r.device = s.name, c.dev.name
  r.tp, r.pp, r.gpus = c.tp, c.pp, c.tp * c.pp
  r.weights, r.kv, r.compute = c.weights, c.kv, c.compute
  r.cuda_graphs = c.cuda_graphs
  r.bound = r.memory_bound_time > r.time / 2 and "memory" or "compute"
  r.energy = energy(c, r.flops, r.bytes, r.time, tokens)
  return r
end

-- dlb.serve.prefill(model, {hw=, batch=1, prompt=, ...}) -> cost: the prompt's forward
-- pass writing the KV cache; r.time is the time to first token of the batch.
function M.prefill(model, opts)
  local fn = "dlb.serve.prefill"
  local cfg, own = split_opts(opts, fn, { batch = true, prompt = true, context = true })
  local s = M.model(model)
  local c = M.config(cfg, fn, s)
  local B = posint(fn, "batch", own.batch or 1)
  local P = length(fn, "prompt", own.prompt or 512)
  -- the cached prefix; 0 (the documented default) given explicitly was refused ("from 1")
  local p0 = own.context ~= nil and length(fn, "context", own.context, nil, true) or 0
  local r = pipelined(s, c, B, P, p0)
  r.ttft = r.time
  return finish("prefill", s, c, r, B)
end
doc.doc(M.prefill, "dlb.serve.prefill(model, {hw=, batch=1, prompt=512[, context=0], weights=, kv=, act=, tp=, pp=, cuda_graphs=, ...}) -> cost",
  "the prompt pass: r.time = r.ttft (s), flops, bytes, comm, launch, by_op, energy")

-- dlb.serve.decode(model, {hw=, batch=, context=}) -> cost: one decode step of `batch`
-- sequences whose cache holds `context` tokens; r.tpot its time, r.tokens_per_s.
function M.decode(model, opts)
  local fn = "dlb.serve.decode"
  local cfg, own = split_opts(opts, fn, { batch = true, context = true })
  local s = M.model(model)
  local c = M.config(cfg, fn, s)
  local B = posint(fn, "batch", own.batch or 1)
  local C = length(fn, "context", own.context or 1024)
  local r = pipelined(s, c, B, 1, C)
  r.tpot = r.time
  r.tokens_per_s = B / r.time
  r.tokens_per_s_gpu = r.tokens_per_s / (c.tp * c.pp)
  r.intensity = r.bytes > 0 and r.flops / r.bytes or math.huge
  r.ridge = c.roof.peak * c.roof.flops_eff / (c.roof.bw * c.roof.bw_eff)
  return finish("decode", s, c, r, B)
end
doc.doc(M.decode, "dlb.serve.decode(model, {hw=, batch=1, context=1024, ...}) -> cost",
  "one decode step: r.tpot (s), r.tokens_per_s (per replica), r.tokens_per_s_gpu, r.intensity, r.ridge, r.bound")


-- The total time of the decode steps that take the cache from p0 + 1 to p0 + steps tokens
-- (B sequences, one token each per step): every op but attention is the same at every
-- step; attention's time is max of two linear functions of the context (compute,
-- memory), summed exactly; with a window the context stops growing at the window. cs: the
-- compiled steps (serve_graph.lua's M.compiled) the steps come from, or nil: their graphs.
local function decode_sum(s, c, B, p0, steps, cache, cs)
  if steps <= 0 then return 0, 0, 0 end
  if c.pp > 1 then
    -- pipelines: sample (exact for the linear parts, a trapezoid for the kink)
    local tot, fl, by = 0, 0, 0
    local K = math.min(steps, 8)
    for i = 0, K - 1 do
      local ctx = p0 + math.floor(i * (steps - 1) / math.max(1, K - 1))
      local r = cs and cs.pipelined(B, 1, ctx) or pipelined(s, c, B, 1, ctx)
      tot, fl, by = tot + r.time, fl + r.flops, by + r.bytes
    end
    return tot * steps / K, fl * steps / K, by * steps / K
  end
  -- the decode phase as a sum of graph steps: everything but attention is the same at
  -- every context, so it is the graph of the step at context 0 less its attention, once a
  -- step (kept in `cache` per batch size: the sweep reuses it across prompts and outputs);
  -- the attention kernel is read from the graphs at contexts 0 and 1 (a layer's kernel
  -- at j = p + 1 keys: f0 + f1 j FLOPs, b0 + b1 j bytes) and summed over the steps
  local k0 = cache and cache[B]
  if not k0 then
    local a0, a1, r0, att0
    if cs then
      a0, r0 = cs.attention(B, 0)
      a1 = cs.attention(B, 1)
      att0 = r0.attn_time  -- the attention kernels' time, their launch floor included
    else
      a0, a1 = SG.attention(s, c, B, 0), SG.attention(s, c, B, 1)
      r0 = step(s, c, B, 1, 0)
      att0 = (r0.by_op.attention or 0) + r0.attn_launch
    end
    local f1, b1 = a1[2] - a0[2], a1[3] - a0[3]
    k0 = { base = r0.time - att0, L = a0[4],
      flops = r0.flops - a0[2] * a0[4], bytes = r0.bytes - a0[3] * a0[4],
      f0 = a0[2] - f1, f1 = f1, b0 = a0[3] - b1, b1 = b1 }
    if cache then cache[B] = k0 end
  end
  local base, L = k0.base, k0.L
  -- the per-op rule summed over the steps in C (dlb_op_time_run; at most the window's
  -- keys), each kernel at least the launch interval when launches overlap, the launch
  -- added to each when they are serial
  local w = s.window
  local launch = c.cuda_graphs and 0 or c.launch
  local overlap = c.launch_mode == "overlap"
  local run = core.roofline_op_time_run(c.attn_roof, k0.f0, k0.f1, k0.b0, k0.b1, p0 + 1, p0 + steps,
    w or -1, true, overlap and launch or 0)
  local att = run.time + (overlap and 0 or launch * steps)
  local total = base * steps + att * L
  local flops = k0.flops * steps + L * run.flops
  local bytes = k0.bytes * steps + L * run.bytes
  return total, flops, bytes
end
M._decode_sum = decode_sum

-- dlb.serve.generate(model, {hw=, batch=, prompt=, output=}) -> result: a static batch —
-- prefill of every prompt, then output - 1 decode steps. ttft, tpot (mean), latency (s),
-- tokens_per_s (output tokens per replica), tokens_per_s_gpu, energy per output token.
local GEN = { batch = true, prompt = true, output = true }
function M.generate(model, opts)
  local fn = "dlb.serve.generate"
  local cfg, own = split_opts(opts, fn, GEN)
  local s = M.model(model)
  local c = M.config(cfg, fn, s)
  return M._generate(s, c, own, fn)
end
function M._generate(s, c, own, fn)
  local B = posint(fn, "batch", own.batch or 1)
  local P = length(fn, "prompt", own.prompt or 512)
  local O = length(fn, "output", own.output or 128)
  sequence(fn, P, O)
  local pre = pipelined(s, c, B, P, 0)
  local dt, dfl, dby = decode_sum(s, c, B, P, O - 1)
  local r = { ttft = pre.time, prefill = pre.time, decode = dt, batch = B, prompt = P, output = O }
  r.latency = pre.time + dt
  r.tpot = O > 1 and dt / (O - 1) or 0
  r.tokens_per_s = B * O / r.latency
  r.tokens_per_s_gpu = r.tokens_per_s / (c.tp * c.pp)
  r.requests_per_s = B / r.latency
  r.flops, r.bytes = pre.flops + dfl, pre.bytes + dby
  local mem = M._memory(s, c, B, P + O, B * P)
  r.memory, r.fits = mem.total, mem.fits
  r.memory_bound_time = 0
  r.time = r.latency
  finish("generate", s, c, r, B * O)
  r.bound = nil
  r.energy_per_token = r.energy and r.energy.per_token
  return r
end
doc.doc(M.generate, "dlb.serve.generate(model, {hw=, batch=1, prompt=512, output=128, weights=, kv=, tp=, pp=, cuda_graphs=, ...}) -> result",
  "a static batch: ttft, tpot, latency (s), tokens_per_s (per replica), tokens_per_s_gpu, requests_per_s, fits, energy_per_token (J)")


-- == the steps as graphs ==========================================================

local GRAPHS = { batch = true, prompt = true, context = true }

-- dlb.serve.graphs(model, {hw=, batch=1, prompt=512, context=prompt, ...}) -> prefill_g,
-- decode_g: the prefill of `batch` prompts and one decode step at `context` cached tokens,
-- the graphs every dlb.serve answer is computed from (serve_graph.lua). With tp > 1 each
-- is one rank's graph, its allreduces kernels of their own; with pp > 1, one pipeline
-- stage's (layers / pp layers) of one micro-batch, which dlb.serve.time puts through the
-- pipeline.
function M.graphs(model, opts)
  local fn = "dlb.serve.graphs"
  local cfg, own = split_opts(opts, fn, GRAPHS)
  local s = M.model(model)
  local c = M.config(cfg, fn, s)
  local B = posint(fn, "batch", own.batch or 1)
  local P = length(fn, "prompt", own.prompt or 512)
  local C = length(fn, "context", own.context or P)
  return SG.graphs(s, c, B, P, C, fn)
end
doc.doc(M.graphs, "dlb.serve.graphs(model, {hw=, batch=1, prompt=512[, context=prompt], weights=, kv=, act=, tp=, pp=, cuda_graphs=, fused=, block=, ...}) -> prefill_g, decode_g",
  "the prefill and one decode step as dlb graphs of kernel ops (one rank's, one pipeline stage's), the paged KV cache as inputs, allreduces as kernels: g:stats{inference=true}, g:dot(), dlb.serve.time")

local STEPG = { batch = true, new = true, context = true, chunks = true }

-- dlb.serve.step_graph(model, {hw=, batch=1, new=1, context=0, chunks={{sequences, tokens,
-- cached}, ...}, ...}) -> g: any step as a graph: `batch` sequences with `new` tokens each
-- after `context` cached, and (chunked prefill, as dlb.serve.continuous{chunk=} runs it)
-- prompt chunks in the same iteration: each {sequences, tokens, cached} group its own
-- attention kernel reading its own cache, its tokens joining the GEMMs.
function M.step_graph(model, opts)
  local fn = "dlb.serve.step_graph"
  local cfg, own = split_opts(opts, fn, STEPG)
  local s = M.model(model)
  local c = M.config(cfg, fn, s)
  local B = posint(fn, "batch", own.batch or 1)
  local n = posint(fn, "new", own.new or 1)
  local p = own.context ~= nil and length(fn, "context", own.context, nil, true) or 0
  local mix
  if own.chunks ~= nil then
    if type(own.chunks) ~= "table" then fail(fn, "chunks must be a list of {sequences, tokens, cached}, got " .. type(own.chunks)) end
    if c.pp > 1 then fail(fn, "chunks (chunked prefill) with pp > 1 is not modelled; use tp, or leave chunks out") end
    mix = {}
    for i, g in ipairs(own.chunks) do
      if type(g) ~= "table" then fail(fn, "chunks[" .. i .. "] must be {sequences, tokens, cached}, got " .. type(g)) end
      local what = "chunks[" .. i .. "]"
      mix[i] = { posint(fn, what .. "[1] (sequences)", g[1]), posint(fn, what .. "[2] (tokens)", g[2]),
        posnum(fn, what .. "[3] (cached)", g[3] or 0, nil, true) }
    end
  end
  return SG.graph(s, c, mix and "chunked" or (n == 1 and "decode" or "prefill"), B, n, p, mix, fn)
end
doc.doc(M.step_graph, "dlb.serve.step_graph(model, {hw=, batch=1, new=1, context=0, chunks={{sequences, tokens, cached}, ...}, ...}) -> g",
  "one serving step as a graph: a decode batch with chunked-prefill groups in the same iteration (each its own attention kernel and cache); dlb.serve.time(g)")

-- dlb.serve.time(g) -> cost: a graph of dlb.serve.graphs timed as every dlb.serve answer is
-- (serve_graph.lua): its kernels by the per-op rule, serving's launch model, the step
-- overhead, its allreduces on the links, a stage through the pipeline.
function M.time(g)
  local fn = "dlb.serve.time"
  local sv = type(g) == "table" and rawget(g, "serve")
  if type(sv) ~= "table" or not sv.config then
    fail(fn, "expected a graph from dlb.serve.graphs, got " .. (type(g) == "table" and "a graph without g.serve" or type(g)))
  end
  local r = SG.time_graph(g)
  r.kind, r.batch, r.context = sv.kind, sv.pipeline_batch or sv.batch, sv.context
  return r
end
doc.doc(M.time, "dlb.serve.time(g) -> {time=, flops=, bytes=, launch=, kernels=, comm=, by_op=, ...}",
  "a step graph of dlb.serve.graphs timed as dlb.serve.prefill/decode time it (the per-op rule, launches, step overhead, allreduces, pipeline)")

require("dlbench.serve_batch").install(M, { step = step, pipelined = pipelined, compiled = SG.compiled,
  decode_sum = decode_sum, split_opts = split_opts, posint = posint, length = length, sequence = sequence, posnum = posnum, flag = flag,
  fail = fail, finish = finish, weight_bytes = weight_bytes, kv_per_token_gpu = kv_per_token_gpu,
  cached_tokens = cached_tokens, STEP_OPTS = STEP_OPTS, CFG = CFG })

doc.doc(M, "dlb.serve", "LLM serving: prefill/decode with a KV cache, TTFT/TPOT/tokens per s, KV bytes and capacity, tp/pp, quantised weights and KV, continuous batching, speculative decoding, sweeps; docs/serve.md")

return M
