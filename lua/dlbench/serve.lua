-- dlbench.serve — LLM inference and serving on the training model's devices: prefill and
-- decode steps with a KV cache (GQA/MQA, paged, sliding window), time to first token,
-- time per output token, tokens/s per GPU and per replica, KV-cache bytes and what fits,
-- tensor and pipeline parallel serving, weight-only and KV quantisation, energy per token.
-- The model's serving view (dlb.serve.model) is in serve_model.lua; batching (continuous,
-- closed loop, chunked prefill, speculative decoding), the fast sweep and the validation
-- are in serve_batch.lua; both are installed here. See docs/serve.md.
--
-- Every step is a list of per-op costs (FLOPs, bytes, matmul shape, fused-attention mark;
-- step_list) timed by the one per-op rule of graphs/hw/roofline.c (time_list): a step's
-- ops in one call (dlb_roofline_ops_attn), and a decode phase's attention, which grows by
-- one token of cache a step, by dlb_op_time_run (the rule summed over the steps, in C).
-- dlb.serve.graphs builds the same kernels as a dlb graph (kernel ops, the paged KV cache
-- as inputs) and dlb.serve.time times it by time_list.
local hwmod = require "dlbench.hw"
local core = require "dlbench.backend"
local doc = require "dlbench.doc"
local options = require "dlbench.options"

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
  kv_reuse = true }

-- Resolve a serving configuration: the device, dtypes, parallelism and the per-op roofline
-- parameters (the device's roof at the compute precision, as dlb.roofline.time uses).
function M.config(opts, fn)
  fn = fn or "dlb.serve.config"
  opts = options.check(opts, CFG, fn, 3, true)
  local c = { fn = fn }
  if opts.hw == nil then fail(fn, "hw is required (a device from dlb.hw.get or its name)", 3) end
  local ok, dev = pcall(hwmod.get, opts.hw)
  if not ok then fail(fn, "hw: " .. tostring(dev):gsub("^[^%s:]+:%d+: ", ""), 3) end
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
  if not okp then fail(fn, "compute: " .. tostring(prec):gsub("^[^%s:]+:%d+: ", ""), 3) end
  c.compute = prec
  c.tp = opts.tp and posint(fn, "tp", opts.tp, 3) or 1
  c.pp = opts.pp and posint(fn, "pp", opts.pp, 3) or 1
  c.microbatches = opts.microbatches and posint(fn, "microbatches", opts.microbatches, 3) or c.pp
  c.block = opts.block and posint(fn, "block", opts.block, 3) or 16
  c.mem_util = opts.mem_util and posnum(fn, "mem_util", opts.mem_util, 3) or 0.9
  if c.mem_util > 1 then fail(fn, "mem_util must be in (0, 1], got " .. c.mem_util, 3) end
  local ropts = {}
  for _, k in ipairs { "flops_eff", "bw_eff" } do
    if opts[k] ~= nil then ropts[k] = posnum(fn, k, opts[k], 3) end
  end
  local okr, roof = pcall(dev.roof, dev, c.compute, ropts)
  if not okr then fail(fn, tostring(roof):gsub("^[^%s:]+:%d+: ", ""), 3) end
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
  if not okc then fail(fn, "attn_eff: " .. tostring(err):gsub("^[^%s:]+:%d+: ", ""), 3) end
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
  c.cuda_graphs = opts.cuda_graphs and true or false
  c.fused = opts.fused and true or false
  c.kv_reuse = opts.kv_reuse ~= false
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
  local function link(n)
    local l = (n <= 8 and links.intra) or links.inter or links.intra
    if opts.link then l = opts.link end
    if alpha and l then l = { bw = l.bw, latency = alpha } end
    return l
  end
  c.link = link
  if (c.tp > 1 or c.pp > 1) and not (links.intra or links.inter or opts.link) then
    fail(fn, "device '" .. dev.name .. "' has no links for tp/pp collectives; give link = {bw=, latency=}", 3)
  end
  c.opts = opts
  return c
end

doc.doc(M.config, "dlb.serve.config{hw=, weights=, kv=, act=, compute=, tp=, pp=, microbatches=, group=128, block=16, mem_util=0.9, cuda_graphs=, launch=\"overlap\"|\"serial\", kernel_overhead=, step_overhead=, flops_eff=, bw_eff=, attn_eff=, comm_latency=, link=, fused=, kv_reuse=true} -> config",
  "a resolved serving configuration: the device, dtypes and bytes per weight, parallelism, and the per-op roofline parameters every dlb.serve call uses")

-- == a step's ops =================================================================

-- The per-GPU ops of one layer for T = B x n new tokens: a list of
-- {name, flops, bytes, m, n, k, batch, attention, comm}. Attention is costed by the caller
-- (attn_cost) because it depends on the context; here it is a placeholder.
local function layer_ops(s, c, T, moe)
  local tp, ab, wb = c.tp, c.abytes, c.wbytes
  local d, H, KV, dh, f = s.hidden, s.heads, s.kv_heads, s.head_dim, s.ffn
  local hq = H * dh / tp
  local kvh = math.max(1, KV / tp) * dh  -- KV heads replicate when fewer than tp
  local ops = {}
  -- rows x width: the op's output (dlb.serve.graphs' tensors; not a cost)
  local function gemm(name, m, k, n, batch, wn, flops_mul)
    batch = batch or 1
    local w = (wn or k * n * batch) * wb
    ops[#ops + 1] = { name = name, flops = 2 * m * n * k * batch * (flops_mul or 1),
      bytes = w + ab * batch * (m * k + m * n), m = m, n = n, k = k, batch = batch,
      rows = m * batch, width = n }
  end
  local function elem(name, bytes, flops, width, rows)
    ops[#ops + 1] = { name = name, flops = flops or 0, bytes = bytes, rows = rows or T, width = width }
  end
  -- c.fused (TensorRT-LLM's and vLLM's fused kernels): the residual add and the norm are
  -- one kernel (reads x and the residual, writes both), RoPE runs inside the attention
  -- kernel and the activation in the up-projection's epilogue
  local fused = c.fused
  if fused then elem("add_norm1", 4 * T * d * ab, 5 * T * d, d)
  else elem("norm1", 2 * T * d * ab, 4 * T * d, d) end
  gemm("qkv", T, d, hq + 2 * kvh)
  if not fused then elem("rope", 2 * T * (hq + kvh) * ab, 6 * T * (hq + kvh), hq + 2 * kvh) end
  ops[#ops + 1] = { name = "attention", attention = true, flops = 0, bytes = 0, rows = T, width = hq }
  gemm("o_proj", T, hq, d)
  if tp > 1 then ops[#ops + 1] = { name = "allreduce_attn", comm = T * d * ab } end
  if fused then elem("add_norm2", 4 * T * d * ab, 5 * T * d, d)
  else
    elem("residual1", 3 * T * d * ab, T * d, d)
    elem("norm2", 2 * T * d * ab, 4 * T * d, d)
  end
  local fs = f / tp
  local up = s.mlp == "swiglu" and 2 or 1
  if moe then
    local E, kk = s.experts, s.top_k
    gemm("router", T, d, E)
    -- experts a step touches: E (1 - (1 - k/E)^T) with uniform routing; each runs
    -- T k / E tokens (perfect balance); every touched expert's weights are read
    local touched = E * (1 - (1 - kk / E) ^ T)
    local per = T * kk / E
    gemm("experts_up", per, d, up * fs, E, touched * d * up * fs)
    ops[#ops].rows = T * kk
    if not fused then elem("act", (up + 1) * T * kk * fs * ab, 4 * T * kk * fs, fs, T * kk) end
    gemm("experts_down", per, fs, d, E, touched * fs * d)
    ops[#ops].rows = T * kk
  else
    gemm("mlp_up", T, d, up * fs)
    if not fused then elem("act", (up + 1) * T * fs * ab, 4 * T * fs, fs) end
    gemm("mlp_down", T, fs, d)
  end
  if tp > 1 then ops[#ops + 1] = { name = "allreduce_mlp", comm = T * d * ab } end
  if not fused then elem("residual2", 3 * T * d * ab, T * d, d) end
  return ops
end

-- Attention of one layer on one GPU, n new tokens per sequence after p cached ones, B
-- sequences: FLOPs 4 x heads x head_dim per (query, key) pair, causal (query i sees
-- p + i keys, at most the window); bytes: q and o, the cache read (p + n keys, at most the
-- window) and the new K and V written. Prefill (n > 1) and decode run FlashAttention-
-- and FlashDecoding/paged-attention kernels: marked as fused attention (attn_eff applies).
local function attn_cost(s, c, B, n, p)
  local tp = c.tp
  local hq = s.heads * s.head_dim / tp
  local kvh = math.max(1, s.kv_heads / tp) * s.head_dim
  local w = s.window
  local pairs_
  if not w then
    pairs_ = n * p + n * (n + 1) / 2
  else
    -- sum over i = 1..n of min(p + i, w)
    local full = math.max(0, math.min(n, w - p))   -- queries with p + i <= w
    pairs_ = (full > 0 and (full * p + full * (full + 1) / 2) or 0) + (n - full) * w
  end
  local keys = p + n
  if w and keys > w then keys = w end
  local flops = 4 * B * hq * pairs_
  -- kv_reuse = false: a decode kernel that reads the cache once per query head rather than
  -- once per KV head (no sharing of K/V loads across a GQA group)
  local g = (n == 1 and not c.kv_reuse) and s.heads / s.kv_heads or 1
  local bytes = B * (2 * n * hq * c.abytes + 2 * kvh * c.kvbytes * (keys * g + n))
  return flops, bytes
end
M._attn_cost = attn_cost

-- One step of B sequences, n new tokens each after p cached (prefill: p = 0, n = prompt;
-- decode: n = 1, p = context so far; chunked prefill: any p, n), on one pipeline stage
-- holding `layers` layers (all of them when pp = 1). Returns a cost table:
-- {time, flops, bytes, compute_time, memory_time, launch, comm, kernels, ops = {...}}.
-- The per-op rule over a step's kernels in order, list entries {name, flops, bytes, count,
-- gemm = {m, n, k, batch} or nil, attention = bool} (collectives: {name, 0, 0, count, comm =
-- time}): the attention kernels at the activation dtype, the rest at compute's, in one call
-- each (one in all when c.one_roof), then serving's launch model and the step overhead.
-- Returns {time, flops, bytes, comm, launch, kernels, memory_bound_time, by_op, attn_launch}.
-- The one timing of a step: step() below and dlb.serve.time (a step's graph) both use it.
local function time_list(c, list)
  local res = { time = 0, flops = 0, bytes = 0, comm = 0, launch = 0, kernels = 0,
    memory_bound_time = 0, by_op = {}, attn_launch = 0 }
  local function add(name, t, fl, by, mb, count)
    res.time = res.time + t * count
    res.flops = res.flops + fl * count
    res.bytes = res.bytes + by * count
    if mb then res.memory_bound_time = res.memory_bound_time + t * count end
    res.by_op[name] = (res.by_op[name] or 0) + t * count
  end
  -- the launch cost of a kernel of time t: overlapped (the default: asynchronous launches
  -- run ahead of the GPU, so a kernel takes at least the launch interval, max(t, launch))
  -- or serial (launch = "serial": the per-op rule's kernel_overhead added to every op, as
  -- dlb.roofline.time does for a training step); none under CUDA graphs
  local launch = c.cuda_graphs and 0 or c.launch
  local overlap = c.launch_mode == "overlap"
  local function kernel(t, count, attention)
    local x = overlap and math.max(0, launch - t) or launch
    res.launch = res.launch + x * count
    res.kernels = res.kernels + count
    if attention then res.attn_launch = res.attn_launch + x * count end
  end
  local sets = c.one_roof and { { c.one_roof } } or { { c.op_roof, false }, { c.attn_roof, true } }
  for _, set in ipairs(sets) do
    local fl, by, gm, at, idx = {}, {}, {}, {}, {}
    for i, e in ipairs(list) do
      if not e.comm and (set[2] == nil or (e[6] and true or false) == set[2]) then
        local k = #fl + 1
        fl[k], by[k], at[k], idx[k] = e[2], e[3], e[6] and 1 or 0, i
        local g = e[5]
        gm[4 * k - 3], gm[4 * k - 2], gm[4 * k - 1], gm[4 * k] =
          g and g[1] or 0, g and g[2] or 0, g and g[3] or 0, g and g[4] or 0
      end
    end
    if #fl > 0 then
      local _, t, b = core.roofline_ops_attn(set[1], fl, by, gm, at)
      for k, i in ipairs(idx) do list[i].t, list[i].mb = t[k], b[k] == "memory" end
    end
  end
  for _, e in ipairs(list) do
    if e.comm then
      res.comm = res.comm + e.comm * e[4]
      add(e[1], e.comm, 0, 0, false, e[4])
    else
      add(e[1], e.t, e[2], e[3], e.mb, e[4])
      kernel(e.t, e[4], e[6])
    end
  end
  res.time = res.time + res.launch + c.step_overhead
  return res
end

-- The kernels of one step of B sequences, n new tokens each after p cached (prefill:
-- p = 0, n = prompt; decode: n = 1, p = context so far; chunked prefill: any p, n), on one
-- pipeline stage holding `layers` layers (all of them when pp = 1), as time_list's entries;
-- with opts.each (dlb.serve.graphs), every layer's kernels apart and in order, each entry
-- also carrying its layer (0: the ends) and layer_ops' row (out = {rows, width}).
local function step_list(s, c, B, n, p, opts)
  opts = opts or {}
  local T = B * n
  local L = opts.layers or s.layers
  local nmoe = s.experts and math.floor(L / s.every) or 0
  -- attention groups: this step's sequences, and (chunked prefill mixed into a decode
  -- batch) opts.mix = {{B, n, p}, ...}, each its own kernel; their tokens join the GEMMs
  local groups = { { B, n, p } }
  for _, m in ipairs(opts.mix or {}) do
    groups[#groups + 1] = m
    T = T + m[1] * m[2]
  end
  local list = {}
  local function put(name, fl, by, count, gemm, attention, layer, row)
    list[#list + 1] = { name, fl, by, count, gemm, attention, layer = layer, row = row }
  end
  -- the layers as kinds with counts (dense, MoE); opts.each: layer by layer, MoE every
  -- s.every-th (the same count, floor(L / every))
  local kinds = { { false, L - nmoe } }
  if nmoe > 0 then kinds[2] = { true, nmoe } end
  if opts.each then
    kinds = {}
    for l = 1, L do kinds[l] = { nmoe > 0 and l % s.every == 0, 1, l } end
  end
  for _, kd in ipairs(kinds) do
    local count = kd[2]
    if count > 0 then
      for _, op in ipairs(layer_ops(s, c, T, kd[1])) do
        if op.comm then
          local link = c.link(c.tp)
          local t = require("dlbench.parallel").allreduce { bytes = op.comm, n = c.tp,
            bw = link.bw, latency = link.latency or 0 }
          list[#list + 1] = { op.name, 0, 0, count, comm = t, layer = kd[3], row = op }
        elseif op.attention then
          for _, gp in ipairs(groups) do
            if gp[1] > 0 and gp[2] > 0 then
              local fl, by = attn_cost(s, c, gp[1], gp[2], gp[3])
              put(op.name, fl, by, count, nil, true, kd[3], op)
            end
          end
        else
          put(op.name, op.flops, op.bytes, count, op.m and { op.m, op.n, op.k, op.batch or 1 }, nil, kd[3], op)
        end
      end
    end
  end
  if opts.ends ~= false then
    -- the embedding gather on the first stage, the final norm and the LM head on the last
    -- (logits of the last token of each sequence only)
    local d, V = s.hidden, s.vocab / c.tp
    local ab = c.abytes
    for _, m in ipairs(opts.mix or {}) do B = B + m[1] end
    put("embedding", 0, T * d * ab * 2, 1, nil, nil, 0, { rows = T, width = d })
    put("final_norm", 4 * B * d, 2 * B * d * ab, 1, nil, nil, 0, { rows = B, width = d })
    put("lm_head", 2 * B * d * V, d * V * ab + ab * (B * d + B * V), 1, { B, V, d, 1 }, nil, 0,
      { rows = B, width = V, k = d, n = V })
  end
  return list
end
M._step_list = step_list

-- One step (see step_list), timed by time_list. Returns a cost table:
-- {time, flops, bytes, compute_time, memory_time, launch, comm, kernels, ops = {...}}.
local function step(s, c, B, n, p, opts)
  return time_list(c, step_list(s, c, B, n, p, opts))
end
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

-- Cache tokens a sequence of context `ctx` holds: the window at most, in whole blocks.
local function cached_tokens(s, c, ctx)
  if s.window and ctx > s.window then ctx = s.window end
  return math.ceil(ctx / c.block) * c.block
end

-- The memory one GPU needs for B sequences of context ctx: weights, KV cache (paged
-- blocks) and the largest transient activation (a prefill chunk of `tokens` tokens).
function M.memory(model, opts)
  local fn = "dlb.serve.memory"
  opts = opts or {}
  local batch, context, tokens = opts.batch, opts.context, opts.tokens
  local o = {}
  for k, v in pairs(opts) do if k ~= "batch" and k ~= "context" and k ~= "tokens" then o[k] = v end end
  local s = M.model(model)
  local c = M.config(o, fn)
  batch = posint(fn, "batch", batch or 1)
  context = posint(fn, "context", context or 1)
  return M._memory(s, c, batch, context, tokens or batch * context)
end
function M._memory(s, c, batch, context, tokens)
  local w = weight_bytes(s, c)
  local kv = batch * cached_tokens(s, c, context) * kv_per_token_gpu(s, c)
  local d = s.hidden
  local wide = math.max(s.ffn * (s.mlp == "swiglu" and 3 or 2), (s.heads + 2 * s.kv_heads) * s.head_dim) / c.tp
  local act = tokens * (2 * d + wide) * c.abytes
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
  opts = opts or {}
  local o = {}
  for k, v in pairs(opts) do if k ~= "batch" and k ~= "context" then o[k] = v end end
  local s = M.model(model)
  local c = M.config(o, fn)
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
  local wide = math.max(s.ffn * (s.mlp == "swiglu" and 3 or 2), (s.heads + 2 * s.kv_heads) * s.head_dim) / c.tp
  free = free - 2048 * (2 * s.hidden + wide) * c.abytes
  r.kv_tokens = math.max(0, math.floor(free / per / c.block) * c.block)
  if opts.context then
    local ctx = posint(fn, "context", opts.context)
    r.context = ctx
    r.batch = math.floor(r.kv_tokens / cached_tokens(s, c, ctx))
  elseif opts.batch then
    local b = posint(fn, "batch", opts.batch)
    r.batch = b
    local per_seq = math.floor(r.kv_tokens / b / c.block) * c.block
    r.context = (s.window and per_seq >= s.window) and math.huge or per_seq
  else
    r.batch, r.context = 1, r.kv_tokens
  end
  r.fits = r.batch >= 1 and r.context >= 1
  return r
end
doc.doc(M.capacity, "dlb.serve.capacity(model, {hw=, context= | batch=, weights=, kv=, tp=, pp=, block=, mem_util=}) -> {batch=, context=, kv_tokens=, fits=}",
  "the largest batch at a context (or context per sequence at a batch) whose KV cache fits beside the weights")

-- == prefill, decode, generate ===================================================

-- A step's time over a pipeline of c.pp stages: each stage holds layers/pp layers; the
-- batch runs as `microbatches` micro-batches; activations cross stage boundaries on the
-- link. Returns the cost of the whole step (all micro-batches through all stages) and
-- the latency of one micro-batch through the pipeline.
local function pipelined(s, c, B, n, p)
  if c.pp == 1 then
    local r = step(s, c, B, n, p)
    r.latency = r.time
    return r
  end
  local m = math.min(c.microbatches, B)
  local Bm = B / m
  local Ls = s.layers / c.pp
  local r = step(s, c, Bm, n, p, { layers = Ls })
  local link = c.link(c.pp)
  local p2p = (link.latency or 0) + Bm * n * s.hidden * c.abytes / link.bw
  local stage = r.time + p2p
  local out = {}
  for k, v in pairs(r) do out[k] = v end
  -- all micro-batches through all stages: fill (pp - 1) + m stage slots
  out.time = (m + c.pp - 1) * stage
  if n == 1 then out.time = math.max(m, c.pp) * stage end  -- decode keeps the pipe full
  out.latency = c.pp * stage
  out.flops, out.bytes = r.flops * m * c.pp, r.bytes * m * c.pp
  out.comm = (r.comm * m + p2p * m) * c.pp
  return out
end

local STEP_OPTS = { batch = true, prompt = true, context = true, output = true }
for k in pairs(CFG) do STEP_OPTS[k] = true end

local function split_opts(opts, fn, keys)
  opts = options.check(opts, STEP_OPTS, fn, 3, true)
  local cfg, own = {}, {}
  for k, v in pairs(opts) do
    if keys[k] then own[k] = v
    elseif STEP_OPTS[k] and not CFG[k] then
      fail(fn, "option '" .. k .. "' does not apply here (accepted: " .. options.names(CFG) .. ", "
        .. options.names(keys) .. ")", 3)
    else cfg[k] = v end
  end
  return cfg, own
end

-- Energy of `flops` and `bytes` over `time` on the device (dlb.energy.step: the 45 nm
-- per-operation tables and the device's power x time).
local function energy(c, flops, bytes, time, tokens)
  local E = require "dlbench.energy"
  local prec = (c.compute == "fp8" or c.compute == "int8") and "int8" or "fp16"
  if c.compute == "fp32" then prec = "fp32" end
  local ok, e = pcall(E.step, { flops = flops, bytes = bytes }, { precision = prec,
    time = time, power = c.dev.power or 1 })
  if not ok then return nil end
  local gpus = c.tp * c.pp
  return { joules = e.joules * gpus, device_joules = c.dev.power and e.device_joules * gpus or nil,
    per_token = (c.dev.power and e.device_joules or e.joules) * gpus / tokens,
    ops_per_token = e.joules * gpus / tokens, power = c.dev.power }
end

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
  local c = M.config(cfg, fn)
  local B = posint(fn, "batch", own.batch or 1)
  local P = posint(fn, "prompt", own.prompt or 512)
  local p0 = own.context and posint(fn, "context", own.context) or 0
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
  local c = M.config(cfg, fn)
  local B = posint(fn, "batch", own.batch or 1)
  local C = posint(fn, "context", own.context or 1024)
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
-- memory), summed exactly; with a window the context stops growing at the window.
local function decode_sum(s, c, B, p0, steps, cache)
  if steps <= 0 then return 0, 0, 0 end
  if c.pp > 1 then
    -- pipelines: sample (exact for the linear parts, a trapezoid for the kink)
    local tot, fl, by = 0, 0, 0
    local K = math.min(steps, 8)
    for i = 0, K - 1 do
      local ctx = p0 + math.floor(i * (steps - 1) / math.max(1, K - 1))
      local r = pipelined(s, c, B, 1, ctx)
      tot, fl, by = tot + r.time, fl + r.flops, by + r.bytes
    end
    return tot * steps / K, fl * steps / K, by * steps / K
  end
  -- everything but attention is the same at every context: one step at context 0 less
  -- its attention, kept in `cache` per batch size (the sweep reuses it across prompts
  -- and outputs)
  local L = s.layers
  local fa = 4 * B * s.heads * s.head_dim / c.tp
  local kvh = math.max(1, s.kv_heads / c.tp) * s.head_dim
  local bq = B * 2 * s.heads * s.head_dim / c.tp * c.abytes
  local bk = B * 2 * kvh * c.kvbytes
  local bkr = bk * (c.kv_reuse and 1 or s.heads / s.kv_heads)  -- cache bytes read per key
  local k0 = cache and cache[B]
  if not k0 then
    local r0 = step(s, c, B, 1, 0)
    k0 = { base = r0.time - (r0.by_op.attention or 0) - r0.attn_launch, flops = r0.flops - fa * L,
      bytes = r0.bytes - (bq + bkr + bk) * L }
    if cache then cache[B] = k0 end
  end
  local base = k0.base
  -- attention of one layer at the step that brings the cache to j = p + 1 keys (at most the
  -- window w): fa j FLOPs, bq + bk + bkr j bytes; the per-op rule summed over the steps in
  -- C (dlb_op_time_run), each kernel at least the launch interval when launches overlap,
  -- the launch added to each when they are serial
  local w = s.window
  local launch = c.cuda_graphs and 0 or c.launch
  local overlap = c.launch_mode == "overlap"
  local run = core.roofline_op_time_run(c.attn_roof, 0, fa, bq + bk, bkr, p0 + 1, p0 + steps,
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
  local c = M.config(cfg, fn)
  return M._generate(s, c, own, fn)
end
function M._generate(s, c, own, fn)
  local B = posint(fn, "batch", own.batch or 1)
  local P = posint(fn, "prompt", own.prompt or 512)
  local O = posint(fn, "output", own.output or 128)
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

-- The step of B sequences, n new tokens each after p cached, as a dlb graph: the kernels of
-- step_list, layer by layer (g:layer scopes "layer1" ...), each a kernel op (g:kernel)
-- with the FLOPs, bytes, GEMM shape and fused-attention mark step_list gives it, over
-- tensors that show the step: token ids, the weights at the weight dtype (experts as
-- [E, k, n]; the embedding, LM head and norms at the activation dtype: the spec's params), and per layer the paged KV cache the attention reads, at the KV dtype and
-- allocated in whole blocks (the window at most), [B, cached tokens, 2 x KV heads x
-- head_dim]. g.serve = {kind, batch, new, context, config, spec}; dlb.serve.time(g) times
-- it by the same per-op rule and launch model as dlb.serve.prefill/decode.
local function step_graph(s, c, kind, B, n, p)
  local graph = require "dlbench.graph"
  local g = graph.new(s.name .. " " .. kind)
  local list = step_list(s, c, B, n, p, { each = true })
  local T, d = B * n, s.hidden
  local act, kvdt = c.act, c.kv
  local kvw = 2 * math.max(1, s.kv_heads / c.tp) * s.head_dim
  local cached = cached_tokens(s, c, p + n)
  local ids = g:input("ids", { T }, "int32")
  local embed = g:weight("embed", { s.vocab, d }, act)
  -- the norms' weights: RMSNorm a scale, LayerNorm a scale and a bias (as the spec counts)
  local nscale = d * (s.mlp == "swiglu" and 1 or 2)
  local function kernel(e, name, ins, rows, width)
    if e[1]:match("norm") then ins[#ins + 1] = g:weight(name .. ".scale", { nscale }, act) end
    return g:kernel(ins, { rows, width }, { name = name, flops = e[2], bytes = e[3], gemm = e[5],
      attention = e[6] and true or nil, dtype = act })
  end
  local x
  for _, e in ipairs(list) do
    if e[1] == "embedding" then x = kernel(e, "embedding", { ids, embed }, T, d) end
  end
  local layer, cur, res, routed = nil, x, x, nil
  for _, e in ipairs(list) do
    local l, name, row = e.layer, e[1], e.row
    if l and l > 0 then
      if l ~= layer then
        layer = l
        g:layer("layer" .. l)
        res = cur -- the layer's input: the residual stream
      end
      local lname = "layer" .. l .. "." .. name
      local out
      if e[6] then
        local cache = g:input(lname .. ".kv_cache", { B, cached, kvw }, kvdt)
        out = kernel(e, lname, { cur, cache }, row.rows, row.width)
      elseif e[5] then
        local w = g:weight(lname .. ".w", row.batch > 1 and { row.batch, row.k, row.n } or { row.k, row.n },
          c.weights)
        local ins = { cur, w }
        if routed and name:match("^experts") then ins[3] = routed end
        out = kernel(e, lname, ins, row.rows, row.width)
      elseif name:match("^residual") or name:match("^add_norm") then
        out = kernel(e, lname, { cur, res }, row.rows, row.width)
        res = out
      else
        out = kernel(e, lname, { cur }, row.rows, row.width)
      end
      if name == "router" then routed = out else cur = out end
    end
  end
  if layer then g:layer(nil) end
  x = cur -- the last layer's output
  for _, e in ipairs(list) do
    if e[1] == "final_norm" then
      x = kernel(e, "final_norm", { x }, B, d)
    elseif e[1] == "lm_head" then
      local w = s.tied and embed or g:weight("lm_head", { d, s.vocab }, act)
      x = kernel(e, "lm_head", { x, w }, B, e.row.width)
    end
  end
  g.serve = { kind = kind, batch = B, new = n, context = p, config = c, spec = s }
  return g
end

local GRAPHS = { batch = true, prompt = true, context = true }

-- dlb.serve.graphs(model, {hw=, batch=1, prompt=512, context=prompt, ...}) -> prefill_g,
-- decode_g: the prefill of `batch` prompts and one decode step at `context` cached tokens.
function M.graphs(model, opts)
  local fn = "dlb.serve.graphs"
  local cfg, own = split_opts(opts, fn, GRAPHS)
  local s = M.model(model)
  local c = M.config(cfg, fn)
  if c.tp > 1 or c.pp > 1 then
    fail(fn, "tp and pp must be 1: a step's collectives and pipeline stages are not graph ops "
      .. "(dlb.serve.prefill and decode model them)")
  end
  local B = posint(fn, "batch", own.batch or 1)
  local P = posint(fn, "prompt", own.prompt or 512)
  local C = posint(fn, "context", own.context or P)
  return step_graph(s, c, "prefill", B, P, 0), step_graph(s, c, "decode", B, 1, C)
end
doc.doc(M.graphs, "dlb.serve.graphs(model, {hw=, batch=1, prompt=512[, context=prompt], weights=, kv=, act=, cuda_graphs=, fused=, block=, ...}) -> prefill_g, decode_g",
  "the prefill and one decode step as dlb graphs of kernel ops with the paged KV cache as inputs (tp = pp = 1): g:stats{inference=true}, g:dot(), dlb.roofline.time, dlb.serve.time")

local ATTENTION = select(2, require("dlbench.desc").enum("DLB_KERNEL_")).attention

-- dlb.serve.time(g) -> cost: a graph of dlb.serve.graphs timed by the per-op rule and the
-- launch model of dlb.serve.prefill/decode (time_list), from the graph's forward analysis.
function M.time(g)
  local fn = "dlb.serve.time"
  local sv = type(g) == "table" and rawget(g, "serve")
  if type(sv) ~= "table" or not sv.config then
    fail(fn, "expected a graph from dlb.serve.graphs, got " .. (type(g) == "table" and "a graph without g.serve" or type(g)))
  end
  local st = g:stats { inference = true }
  local a = st.analysis
  local F, By, _, Ly, _, K = core.analysis_arrays(a)
  -- the layers' kernels, then the ends' (embedding, final norm, LM head), as step_list
  -- orders them; identical kernels (name, FLOPs, bytes, GEMM shape, attention mark) are
  -- one entry with a count, as step_list's layer kinds are (the per-op rule's host
  -- timeline sees the same sequence)
  local list, seen = {}, {}
  for pass = 1, 2 do
    for i = 1, #F do
      if (Ly[i] >= 0) == (pass == 1) then
        local m, nn, k, b = core.analysis_gemm(a, i - 1)
        local name = core.analysis_op_name(a, i - 1):gsub("^layer%d+%.", "")
        local key = string.format("%s|%.17g|%.17g|%s|%s", name, F[i], By[i],
          m and string.format("%.17g,%.17g,%.17g,%.17g", m, nn, k, b) or "", tostring(K[i] == ATTENTION))
        local e = seen[key]
        if e then e[4] = e[4] + 1
        else
          e = { name, F[i], By[i], 1, m and { m, nn, k, b } or nil, K[i] == ATTENTION }
          seen[key] = e
          list[#list + 1] = e
        end
      end
    end
  end
  local r = time_list(sv.config, list)
  r.kind, r.batch, r.context = sv.kind, sv.batch, sv.context
  return r
end
doc.doc(M.time, "dlb.serve.time(g) -> {time=, flops=, bytes=, launch=, kernels=, by_op=, ...}",
  "a step graph of dlb.serve.graphs timed as dlb.serve.prefill/decode time it (the per-op rule, launches, step overhead)")

require("dlbench.serve_batch").install(M, { step = step, pipelined = pipelined,
  decode_sum = decode_sum, split_opts = split_opts, posint = posint, posnum = posnum,
  fail = fail, finish = finish, weight_bytes = weight_bytes, kv_per_token_gpu = kv_per_token_gpu,
  cached_tokens = cached_tokens, STEP_OPTS = STEP_OPTS, CFG = CFG })

doc.doc(M, "dlb.serve", "LLM serving: prefill/decode with a KV cache, TTFT/TPOT/tokens per s, KV bytes and capacity, tp/pp, quantised weights and KV, continuous batching, speculative decoding, sweeps; docs/serve.md")

return M
