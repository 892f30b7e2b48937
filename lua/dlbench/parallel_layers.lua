-- dlbench.parallel_layers — per-layer cost arrays for the parallel planner, from closed
-- forms (so plans work without the graph engine), and Hestness Table 2 whole-model costs.
-- A layer cost is a table of numbers per sample (one sequence for language models):
--   flops_fwd, flops_bwd, bytes_sample, bytes_fixed, params, act_out, act_kept, act_rep,
--   act_in, tp_bytes, tp_colls, shardable   (see graphs/parallel/dlb_parallel.h, dlb_par_layer)
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local M = {}

local function opt(fname, o, name, default)
  local v = o[name]
  if v == nil then
    if default == nil then error(string.format("%s: option '%s' is required", fname, name), 3) end
    return default
  end
  if type(v) ~= "number" or not (v > 0) then
    error(string.format("%s: option '%s' must be a positive number, got %s", fname, name,
      tostring(v)), 3)
  end
  return v
end

local function check(fname, o, valid)
  options.check(o, valid, fname, 3, true)
end

-- Greatest common divisor of whole numbers (nil when one is not whole and > 0).
local function gcd(...)
  local g
  for _, x in ipairs { ... } do
    if type(x) ~= "number" or x < 1 or x ~= math.floor(x) then return nil end
    if not g then g = x else
      local a, b = g, x
      while b ~= 0 do a, b = b, a % b end
      g = a
    end
  end
  return g
end

local TF = { layers = true, d = true, seq = true, heads = true, vocab = true, bytes = true,
             embedding = true, tied = true, dropout = true }

-- A GPT-style transformer: an embedding, `layers` blocks, the logits.
-- Per block and sample (s tokens, hidden d, a heads; Narayanan et al. 2021 sec. 5.1):
--   params 12 d^2, forward FLOPs 24 s d^2 + 4 s^2 d, backward twice the forward;
-- activations kept (Korthikanti et al. 2022 eq. 1-4, 2-byte activations):
--   s d (34 + 5 a s / d) bytes, of which 10 s d stay replicated under tensor parallelism
--   unless sequence parallelism is on; full recompute keeps the 2 s d-byte input.
-- Megatron: two allreduces of the s x d activations forward, two backward (Shoeybi 2019).
-- dropout=false drops Korthikanti's dropout terms (two s d masks, a s^2 mask and a s^2
-- output): s d (32 + 2 a s / d) bytes kept, 8 s d of them replicated (the two layernorm
-- inputs and the attention and MLP inputs) -- the models of dlb.models, which have no dropout.
function M.transformer_formula(o)
  local fname = "parallel.layers.transformer_formula"
  check(fname, o, TF)
  -- switches: dropout = 0 (the rate of no dropout) counted dropout's masks (Lua's truth)
  options.switches(o, { "tied", "embedding", "dropout" }, fname, 2)
  local l, d, s = opt(fname, o, "layers"), opt(fname, o, "d"), opt(fname, o, "seq")
  local a = opt(fname, o, "heads", math.max(1, d / 128))
  local V = opt(fname, o, "vocab", 51200)
  local by = opt(fname, o, "bytes", 2)
  local act = s * d * by / 2   -- Korthikanti's counts are for 2-byte activations
  local out = {}
  if o.embedding ~= false then
    out[#out + 1] = { name = "embedding", flops_fwd = 0, flops_bwd = 0, params = V * d,
      bytes_sample = 2 * s * d * by, bytes_fixed = 0, act_out = 2 * act, act_kept = 0,
      act_rep = 0, act_in = 0, tp_bytes = 2 * act, tp_colls = 1, shardable = 1 }
  end
  local drop = o.dropout ~= false
  for i = 1, l do
    local f = 24 * s * d * d + 4 * s * s * d
    local p = 12 * d * d
    local kept = act * (24 + (drop and 5 or 2) * a * s / d)
    local rep = act * (drop and 10 or 8)
    out[#out + 1] = { name = "layer" .. i, flops_fwd = f, flops_bwd = 2 * f, params = p,
      bytes_sample = 2 * (kept + rep), bytes_fixed = 3 * by * p, act_out = 2 * act,
      act_kept = kept, act_rep = rep, act_in = 2 * act, tp_bytes = 2 * act, tp_colls = 2,
      shardable = 0, tp_div = gcd(a, d) or 0,   -- Megatron splits heads and hidden evenly
      -- the attention core (Korthikanti et al. 2022 sec. 5): the 5 a s^2 bytes of softmax
      -- output, dropout mask and dropout output (2 a s^2 without dropout: the softmax
      -- output), dropped by selective recompute; its forward is Q K^T and attention over V,
      -- 2 x 2 s^2 d FLOPs
      act_core = act * (drop and 5 or 2) * a * s / d, flops_core = 4 * s * s * d,
      -- of it, the score and value matmuls a causal mask halves (dlbench.mfu): all 4 s^2 d
      flops_attn = 4 * s * s * d }
  end
  -- logits: 2 s d V forward; softmax in fp32 keeps s V x 4 bytes (split over tensor ranks);
  -- column-parallel over the vocabulary, its input gradient (s x d) is all-reduced in the
  -- backward pass (Shoeybi et al. 2019 sec. 3; counted as one allreduce each way)
  out[#out + 1] = { name = "logits", flops_fwd = 2 * s * d * V, flops_bwd = 4 * s * d * V,
    params = o.tied == false and V * d or 0, bytes_sample = 2 * s * V * 4 + 2 * s * d * by,
    bytes_fixed = 3 * by * V * d, act_out = 0, act_kept = 4 * s * V, act_rep = 0,
    act_in = 2 * act, tp_bytes = 2 * act, tp_colls = 1, shardable = 0 }
  -- the precision its bytes describe (2-byte activations: Korthikanti's mixed precision),
  -- which evaluate/plan{layers=} time it at unless precision= says otherwise
  out.precision = by == 2 and "mixed" or (by == 4 and "fp32" or nil)
  -- a GPT decoder: causal attention (MFU under attention_flops = "causal" counts flops_attn
  -- half, dlbench.mfu), seq tokens per sample
  out.causal, out.seq = true, s
  return out
end
doc.doc(M.transformer_formula, "dlb.parallel.layers.transformer_formula{layers=, d=, seq=[, heads=, vocab=51200, bytes=2,"
  .. " tied=true, embedding=true, dropout=true]} -> {layer cost...}",
  "the papers' closed forms per layer (12 d^2 params, 24 s d^2 + 4 s^2 d FLOPs, Korthikanti's "
  .. "activations): algorithmic counts, one op per layer when timed (no elementwise traffic, no "
  .. "optimizer update: 33-75% faster than the op-by-op step); plans use layers.transformer")

local TG = { layers = true, d = true, seq = true, heads = true, vocab = true, bytes = true,
             tied = true, dropout = true, fuse = true, framework = true }
-- A GPT-style transformer's layers for plans: the zoo's GPT graph of that shape
-- (dlb.models.gpt, context = seq) through from_graph, so a plan of these layers and a plan
-- of the graph are the same computation (issue [18]: the closed form, one op per layer,
-- disagreed with the graph by 33-75% in step time; its formulas stay in transformer_formula).
function M.transformer(o)
  local fname = "parallel.layers.transformer"
  check(fname, o, TG)
  options.switches(o, { "tied", "dropout" }, fname, 2)
  local l, d, s = opt(fname, o, "layers"), opt(fname, o, "d"), opt(fname, o, "seq")
  local a = opt(fname, o, "heads", math.max(1, math.floor(d / 128)))
  local V = opt(fname, o, "vocab", 51200)
  local by = opt(fname, o, "bytes", 2)
  if by ~= 2 and by ~= 4 then
    error(fname .. ": bytes must be 2 (mixed precision) or 4 (fp32), got " .. tostring(by), 2)
  end
  local ok, g = pcall(require("dlbench.models").gpt, { layers = l, hidden = d, heads = a,
    seq = s, context = s, vocab = V, tied = o.tied ~= false, dropout = o.dropout ~= false })
  if not ok then error(fname .. ": " .. require("dlbench.errors").strip(g), 2) end
  -- the default profile of a transformer unless fuse= or framework= says otherwise, as
  -- evaluate/plan{graph=} time the same graph
  local ls = M.from_graph(g, { precision = by == 2 and "mixed" or "fp32", fuse = o.fuse,
    framework = o.framework or (o.fuse == nil and "auto" or nil) })
  ls.graph = g
  return ls
end
doc.doc(M.transformer, "dlb.parallel.layers.transformer{layers=, d=, seq=[, heads=d/128, vocab=51200, bytes=2,"
  .. " tied=true, dropout=true, fuse=, framework=]} -> {layer cost...}",
  "per-layer costs of a GPT-style transformer for plans: the zoo's GPT graph of that shape through "
  .. "from_graph (embedding, blocks, output; 12 d^2 + 13 d params per block), op by op; the papers' "
  .. "closed forms are layers.transformer_formula")

local WLM = { h = true, v = true, l = true, q = true, e = true, hp = true, bytes = true }

-- Hestness et al. 2019 sec. 4.2 word LM: embedding (h v params, no FLOPs), l LSTM layers
-- (8 h^2 params, 16 q h^2 forward FLOPs each), output (h v params, 2 q v h FLOPs); with an
-- LSTM projection to hp (Sak et al. 2014) a layer has 4 h (x + hp) + h hp parameters and
-- every dense layer does 2 q FLOPs per parameter forward, twice that backward.
function M.word_lm(o)
  local fname = "parallel.layers.word_lm"
  check(fname, o, WLM)
  local h, v, l, q = opt(fname, o, "h"), opt(fname, o, "v"), opt(fname, o, "l", 2), opt(fname, o, "q")
  local e, hp, by = opt(fname, o, "e", h), opt(fname, o, "hp", h), opt(fname, o, "bytes", 4)
  local proj = o.hp ~= nil
  local out = {}
  out[1] = { name = "embedding", flops_fwd = 0, flops_bwd = 0, params = v * e,
    bytes_sample = 2 * q * e * by, bytes_fixed = 0, act_out = q * e * by, act_kept = q * e * by,
    act_rep = 0, act_in = q * e * by, tp_bytes = 0, tp_colls = 0, shardable = 1 }
  local x = e
  for i = 1, l do
    local p = proj and (4 * h * (x + hp) + h * hp) or (4 * h * (x + h))
    local kept = q * (6 * h + hp) * by    -- 4 gates, cell, tanh(cell), output per step
    out[#out + 1] = { name = "lstm" .. i, flops_fwd = 2 * q * p, flops_bwd = 4 * q * p,
      params = p, bytes_sample = 2 * kept, bytes_fixed = 4 * by * p, act_out = q * hp * by,
      act_kept = kept, act_rep = 0, act_in = q * x * by, tp_bytes = 0, tp_colls = 0,
      shardable = 0 }
    x = hp
  end
  local po = hp * v
  out[#out + 1] = { name = "output", flops_fwd = 2 * q * po, flops_bwd = 4 * q * po, params = po,
    bytes_sample = 4 * q * v * by, bytes_fixed = 4 * by * po, act_out = 0,
    act_kept = 2 * q * v * by, act_rep = 0, act_in = q * hp * by, tp_bytes = 0, tp_colls = 0,
    shardable = 0 }
  out.precision = by == 2 and "mixed" or (by == 4 and "fp32" or nil)
  -- no attention (MFU's attention_flops has nothing to count half, dlbench.mfu); q tokens
  -- per sample
  for _, l in ipairs(out) do l.flops_attn = 0 end
  out.causal, out.seq = false, q
  return out
end
doc.doc(M.word_lm, "dlb.parallel.layers.word_lm{h=, v=, q=[, l=2, e=h, hp=, bytes=4]} -> {layer cost...}",
  "per-layer costs of Hestness's LSTM word LM (sec. 4.2 formulas; optional LSTM projection hp)")

-- A data-parallel work table for a model of p parameters from Hestness et al. 2019 Table 2's
-- asymptotes (constants in dlbench.scaling_domains; "resnet" names its "image" domain):
-- FLOPs gamma b p, bytes lambda p + mu b sqrt(p), footprint delta p, fp32 gradients 4 p.
function M.table2_work(domain, p, opts)
  local domains = require "dlbench.scaling_domains"
  local d = domains[domain == "resnet" and "image" or domain]
  if not d then
    error(string.format("parallel.layers.table2_work: unknown domain '%s' (accepted: "
      .. "word_lm, char_lm, nmt, speech, resnet)", tostring(domain)), 2)
  end
  if type(p) ~= "number" or not (p > 0) then
    error("parallel.layers.table2_work: params must be > 0", 2)
  end
  opts = opts or {}
  local c = d.costs
  return { flops_sample = c.flops_per_param * p, flops_fixed = 0,
    bytes_sample = c.mu * math.sqrt(p), bytes_fixed = c.lambda * p, bwd_frac = 2 / 3,
    grad_bytes = 4 * p, mem_fixed = c.footprint_per_param * p, mem_sample = 0,
    samples_epoch = opts.samples_epoch or 0 }
end
doc.doc(M.table2_work, "dlb.parallel.layers.table2_work(domain, params[, {samples_epoch=}]) -> work",
  "whole-model per-step costs from Hestness Table 2 (word_lm, char_lm, nmt, speech, resnet)")

-- Aggregate per-op costs into per-layer costs, in order of first appearance of each layer.
-- An op is a table with a layer tag (`layer` = index or name) and any of: flops_fwd,
-- flops_bwd (or flops, split 1:2 as a training step's forward and backward, Hestness sec.
-- 4.2), bytes, params, act_kept (bytes kept for backward), act_out (bytes leaving the
-- layer). Costs are per `per` samples (default 1).
local OP_ALIASES = {
  flops_fwd = { "flops_fwd", "fwd_flops" }, flops_bwd = { "flops_bwd", "bwd_flops" },
  bytes_sample = { "bytes", "bytes_sample" }, params = { "params" },
  act_kept = { "act_kept", "kept", "saved" }, act_out = { "act_out", "out_bytes" },
}
function M.from_ops(ops, opts)
  if type(ops) ~= "table" then error("parallel.layers.from_ops: a list of ops expected", 2) end
  opts = opts or {}
  local per = opts.per or 1
  local order, by = {}, {}
  local function get(op, k)
    for _, a in ipairs(OP_ALIASES[k]) do
      local v = op[a]
      if v ~= nil then
        v = tonumber(v)
        if not v or v < 0 then
          error(string.format("parallel.layers.from_ops: op '%s' field %s must be a number >= 0",
            tostring(op.name or "?"), a), 3)
        end
        return v
      end
    end
    return 0
  end
  for i, op in ipairs(ops) do
    local tag = op.layer
    if tag == nil then
      error(string.format("parallel.layers.from_ops: op %d ('%s') has no layer tag "
        .. "(build the graph inside g:layer(name) scopes)", i, tostring(op.name or "?")), 2)
    end
    local l = by[tag]
    if not l then
      l = { name = tostring(tag), flops_fwd = 0, flops_bwd = 0, bytes_sample = 0,
            bytes_fixed = 0, params = 0, act_out = 0, act_kept = 0, act_rep = 0, act_in = 0,
            tp_bytes = 0, tp_colls = 0, shardable = 0 }
      by[tag] = l
      order[#order + 1] = l
    end
    local ff, fb = get(op, "flops_fwd"), get(op, "flops_bwd")
    if ff == 0 and fb == 0 and op.flops then
      local f = tonumber(op.flops) or 0
      ff, fb = f / 3, 2 * f / 3
    end
    l.flops_fwd = l.flops_fwd + ff / per
    l.flops_bwd = l.flops_bwd + fb / per
    l.bytes_sample = l.bytes_sample + get(op, "bytes_sample") / per
    l.params = l.params + get(op, "params")
    l.act_kept = l.act_kept + get(op, "act_kept") / per
    l.act_out = get(op, "act_out") / per   -- the last op of the layer feeds the next one
    if op.shardable or op.kind == "embedding" or op.op == "embedding" then l.shardable = 1 end
  end
  for _, l in ipairs(order) do l.act_in = l.act_in > 0 and l.act_in or l.act_out end
  if #order == 0 then error("parallel.layers.from_ops: no ops", 2) end
  return order
end
doc.doc(M.from_ops, "dlb.parallel.layers.from_ops(ops[, {per=samples}]) -> {layer cost...}",
  "aggregate layer-tagged per-op costs (flops, bytes, params, kept bytes) into planner layers")

-- Per-layer costs of a dlb.graph (a dlb.models graph or any graph built in g:layer scopes),
-- per sample, for the planner. The step is analysed at two batch sizes (1 and 2 of the batch
-- dim) and every cost is split into a per-sample slope and a batch-independent intercept:
--   flops_fwd/bwd    FLOPs of the layer's forward and backward ops (g:ops phases fwd, bwd;
--                    an op outside every scope goes where dlb_op_layer places it: its
--                    forward op's layer, else the nearest earlier forward op's, else the first)
--   bytes_sample/_fixed  bytes of those ops (the intercept is the weights read and written)
--   params, act_out  g:layers (params, activations_out: bytes sent to other layers)
--   act_kept         the bytes per sample the layer keeps for the backward: what its ops
--                    save (dlb_analysis_op_saved: the tensors a backward op reads, at the
--                    forward op that makes them; a dropout mask at the op that reads it),
--                    and the working set of the op at the step's scheduled peak in that op's
--                    layer (the logits' gradient at the loss); they sum to the step's bytes
--                    at the peak (framework_memory.sample_bytes); what a profile adds there
--                    (its loss tensors) goes to the layer of the loss (softmax_xent), any
--                    other difference in proportion. (Before issue [19]'s memory fix the
--                    step's bytes were spread by forward bytes: the fp32 loss's eager
--                    passes made the output layer's share 2.6x what Megatron keeps.)
--   act_in           the previous layer's act_out (the checkpoint under full recompute)
-- Tensor parallelism (tp="megatron", the default; tp=false: none) is read from the op types:
-- a layer with a softmax and weight matmuls is an attention block split Megatron-style (two
-- allreduces of its output each way; of its kept bytes those saved by the ops outside the
-- tensor-parallel region -- the layernorm and matmul inputs and the dropout masks after the
-- row-parallel matmuls, Korthikanti et al. 2022 Table 2's 10 s b h -- stay replicated, act_rep;
-- 4 x act_out for a MoE block, whose region is not traced); a layer with an embedding op
-- is vocab-parallel and shardable over the stages (one allreduce of its output); a layer with
-- softmax_xent and a matmul is the column-parallel logits (one allreduce of its input). Other
-- layers (convolutions, LSTMs) run replicated on the tensor ranks.
local FG = { bind = true, batch_dim = true, batch = true, precision = true, optimizer = true,
             fuse = true, framework = true,
             tp = true, fp8 = true }
local function gerr(fname, msg)
  -- drop the location prefixes of errors raised inside the graph engine
  msg = require("dlbench.errors").strip(msg)
  error(fname .. ": " .. msg, 3)
end

-- The per-op cost array of a step for the planner and its marks: dlbench.parallel_layer_ops.
local LO = require "dlbench.parallel_layer_ops"
local OP = LO.OP
M.OP = OP
local core_ops, region_ops, module_ops, ops_of = LO.core_ops, LO.region_ops, LO.module_ops, LO.ops_of

-- A zoo option's number (a dim name bound in bind).
local function optnum(x, bind)
  if type(x) == "number" then return x end
  if type(x) == "string" and type(bind) == "table" then return tonumber(bind[x]) end
  return nil
end

-- The fields of a zoo transformer's layer r that context and expert parallelism need
-- (dlb_par_layer in graphs/parallel/dlb_parallel.h), from the model's options, per sample
-- of q tokens with hidden d, H heads of dh, Hkv key/value heads, a-byte activations (2
-- under mixed/bf16 precision, 4 in fp32):
--   an attention block (softmax and weight matmuls): kv_bytes = 2 q Hkv dh a (K and V),
--     qo_bytes = 2 q H dh a (Q and the attention output);
--   a MoE block of dlb.models.moe (block l with l a multiple of `every`; E experts of
--     width f, top-k routing): experts = E; expert_params = E x 3 d f (SwiGLU, llama style)
--     or E (2 d f + f + d) (GELU with biases, gpt style), as the builder makes them;
--     moe_bytes = q k d a (each token's k copies dispatched); top_k = k; expert_frac = the experts'
--     share of the block's forward + backward FLOPs, 3 x 2 q k (3 or 2) d f / fb.
local function moe_attn_fields(r, l, kinds, mo, model, bind, precision, fb)
  if type(model) ~= "table" or type(mo) ~= "table" then return end
  local q = optnum(mo.seq or mo.context, bind)
  local d, H = optnum(mo.hidden, bind), optnum(mo.heads, bind)
  if not (q and d and H) then return end
  local a = (precision == "fp32" or precision == "tf32") and 4 or 2
  local dh = optnum(mo.dh, bind) or d / H
  local Hkv = optnum(mo.kv_heads, bind) or H
  if kinds.softmax and kinds.matmul and (l.params or 0) > 0 then
    r.kv_bytes = 2 * q * Hkv * dh * a
    r.qo_bytes = 2 * q * H * dh * a
  end
  if model.builder == "moe" and mo.experts and tostring(l.name):match("^h%d+$") then
    local blk = tonumber(tostring(l.name):match("^h(%d+)$")) + 1
    local every = mo.every or 1
    if blk % every == 0 then
      local E, k, f = mo.experts, mo.top_k, mo.ffn
      local llama = mo.style == "llama"
      r.experts = E
      r.expert_params = llama and E * 3 * d * f or E * (2 * d * f + f + d)
      r.moe_bytes = q * k * d * a
      r.top_k = k
      local ex = 3 * 2 * q * k * (llama and 3 or 2) * d * f
      r.expert_frac = fb > 0 and math.min(1, ex / fb) or 0
    end
  end
end

function M.from_graph(g, o)
  local fname = "parallel.layers.from_graph"
  o = o or {}
  check(fname, o, FG)
  if type(g) ~= "table" or type(g.layers) ~= "function" or type(g.ops) ~= "function" then
    gerr(fname, "a dlb.graph expected (with g:layers and g:ops), got " .. type(g))
  end
  local mopts = type(g.model) == "table" and type(g.model.options) == "table" and g.model.options or {}
  -- batch_dim names a dim; batch= is the samples a graph of numeric batch holds, a whole
  -- number, and a zoo graph says its own (before: batch_dim = 4 acted as batch=, batch = 1.5
  -- was taken, and batch = 8 of a graph built at 4 halved every per-sample cost, silently)
  if o.batch_dim ~= nil and type(o.batch_dim) ~= "string" then
    gerr(fname, "option 'batch_dim' must be the name of the graph's batch dim, got "
      .. type(o.batch_dim) .. " " .. tostring(o.batch_dim) .. " (a number of samples is batch=)")
  end
  if o.batch ~= nil then
    local b = o.batch
    if type(b) ~= "number" or not (b >= 1) or b ~= math.floor(b) or b == math.huge then
      gerr(fname, "option 'batch' must be a whole number of samples >= 1, got " .. tostring(b))
    end
    if type(mopts.batch) == "number" and mopts.batch ~= b then
      gerr(fname, string.format("batch = %.0f, but the graph was built with batch = %.0f (its "
        .. "per-sample costs would be off by %.3g x)", b, mopts.batch, mopts.batch / b))
    end
  end
  local mb = o.batch_dim or (o.batch == nil and mopts.batch) or o.batch or "b"
  local nodim = type(mb) == "string" and g:missing_dim(mb)
  if nodim then
    gerr(fname, nodim .. ": name the graph's batch dim with batch_dim=, or give batch= the "
      .. "samples a numeric graph holds")
  end
  local base = {}
  if o.bind ~= nil and type(o.bind) ~= "table" then
    gerr(fname, "option 'bind' must be a table of dim values ({h = 1024, ...}), got " .. type(o.bind)
      .. " " .. tostring(o.bind))
  end
  for k, v in pairs(o.bind or {}) do base[k] = v end
  base.precision = o.precision or base.precision or "mixed"
  base.optimizer = o.optimizer or base.optimizer
  -- fusion passes (g:stats{fuse=}): the layers' ops are the fused kernels. framework= (a
  -- profile, or "auto": the default of the graph's family, issue [18]) sets them as
  -- evaluate/plan{graph=} would, and the list says which profile it was built under
  -- (ls.framework; evaluate/plan report it). Neither given: the algorithmic step.
  local fw = require "dlbench.frameworks"
  local prof, psrc
  if o.fuse ~= nil and o.framework ~= nil then
    gerr(fname, "give framework= or fuse=, not both (the profile sets the fusion passes)")
  end
  base.fuse = o.fuse
  if o.framework ~= nil then
    local fam = fw.family(g)
    if fam == nil then
      -- a hand-built or imported graph: g:stats finds its family from the step (cached)
      local st = { framework = "auto", precision = base.precision }
      for k, v in pairs(base) do if k ~= "precision" and k ~= "optimizer" and k ~= "fuse" then st[k] = v end end
      if type(mb) == "string" and st[mb] == nil then st[mb] = 1 end
      pcall(g.stats, g, st)
      fam = fw.family(g)
    end
    prof, psrc = fw.resolve(o.framework ~= "auto" and o.framework or nil, fam, false, fname)
    base.fuse = fw.fuse_of(prof, fam, require("dlbench.mfu").causal(g))
    if #base.fuse == 0 then base.fuse = nil end
  end
  local core = require "dlbench.backend"
  -- One training-step analysis at batch b: per-layer rows (as g:layers) and per-op arrays
  -- (the analysis contract of docs/graph.md: flops, bytes, phases 0 fwd / 1 bwd, layers).
  local function at(b)
    local t = {}
    for k, v in pairs(base) do t[k] = v end
    -- under a profile the stats count its step: its fusion passes and the memory it adds
    -- beyond the graph's tensors (dlbench.framework_memory: per-sample loss bytes)
    if prof then t.fuse, t.framework = nil, prof end
    if type(mb) == "string" then t[mb] = b end
    local ok, s = pcall(g.stats, g, t)
    if ok and s.symbolic then
      ok, s = pcall(function() return s.footprint end)
      s = tostring(s) .. " (name the batch dim with batch_dim= and bind the other dims with "
        .. "bind={name=value})"
    end
    if not ok then gerr(fname, s) end
    local L = {}
    for i, name in ipairs(s.layers) do
      local p, _, _, _, act, wb = core.analysis_layer(s.analysis, i - 1)
      L[i] = { name = name, params = p, activations_out = act, weight_bytes = wb }
    end
    if #L == 0 then
      gerr(fname, "the graph has no layer scopes (build it inside g:layer(name) scopes)")
    end
    local F, By, Ph, _, Ty, Kn = core.analysis_arrays(s.analysis)
    -- each op's layer: its scope, or where the one C rule places an op outside every scope
    -- (dlb_op_layer: its forward op's layer, else the nearest earlier forward op's, else the first)
    local Lp = core.analysis_op_layer_placed(s.analysis)
    -- what each op keeps for the backward (dlb_analysis_op_saved, the one C rule: the
    -- tensors a backward op reads, at the forward op that makes them, and the working set
    -- of the op at the step's peak)
    local Sv = core.analysis_op_saved(s.analysis)
    -- each op's further host ops and kernels (dlb_analysis_op_more: a pass's eager ops on it)
    local Mo = core.analysis_op_more(s.analysis)
    return L, { F = F, B = By, P = Ph, Lp = Lp, T = Ty, K = Kn, Sv = Sv, Mo = Mo, a = s.analysis }, s
  end
  -- two batch sizes when the batch is a dim; one analysis at a numeric batch
  local B, two
  if type(mb) == "string" then B, two = 1, true
  elseif type(mb) == "number" and mb > 0 then B, two = o.batch or mb, false
  else gerr(fname, "batch_dim must name the graph's batch dim (or the graph a numeric batch)") end
  local L1, ops1, s1 = at(1)
  local reruns = core.analysis_layer_rerun(ops1.a)
  local L2, ops2, s2
  if two then
    L2, ops2, s2 = at(2)
    if #ops2.F ~= #ops1.F or #L2 ~= #L1 then
      gerr(fname, "the graph's structure depends on the batch dim '" .. mb .. "'")
    end
  end
  if two then
    local d = 0
    for j = 1, #ops1.F do d = d + (ops2.F[j] - ops1.F[j]) end
    if not (d > 0) then
      gerr(fname, "the step's FLOPs do not grow with the batch dim '" .. mb .. "': name the "
        .. "graph's batch dim with batch_dim=, or give batch= the samples a numeric graph holds")
    end
  end
  local n = #L1
  local out = {}
  local tname = {}   -- op type id -> name, looked up once per type
  local function per_layer(ops, marks)
    local f, b, by, kinds, u = {}, {}, {}, {}, {}
    local cfl = {}   -- the attention core's forward FLOPs
    for i = 1, n do f[i], b[i], by[i], kinds[i], u[i], cfl[i] = 0, 0, 0, {}, 0, 0 end
    local F, By, Ph, Ly, Ty = ops.F, ops.B, ops.P, ops.Lp, ops.T
    for j = 1, #F do
      local li = Ly[j] + 1
      local ph = Ph[j]
      if ph == 0 then       -- forward
        f[li] = f[li] + F[j]; by[li] = by[li] + By[j]
        if marks[j] then cfl[li] = cfl[li] + F[j] end
        local ty = Ty[j]
        local nm = tname[ty]
        if not nm then nm = core.graph_op_type_name(ty); tname[ty] = nm end
        kinds[li][nm] = true
      elseif ph == 1 then   -- backward
        b[li] = b[li] + F[j]; by[li] = by[li] + By[j]
      elseif ph == 2 then   -- the optimizer's update: only the weights that train have one
        u[li] = u[li] + F[j]
      end
    end
    return f, b, by, kinds, u, cfl
  end
  local marks1 = core_ops(ops1, n)
  local f1, b1, by1, kinds, upd1, cf1 = per_layer(ops1, marks1)
  local utot, trainable = 0, tonumber(s1.trainable) or 0
  for i = 1, #upd1 do utot = utot + upd1[i] end
  local f2, b2, by2, cf2
  if two then
    local _
    -- the same ops at batch 2 (checked above): the same core
    f2, b2, by2, _, _, cf2 = per_layer(ops2, marks1)
  end
  local function split(x1, x2)   -- per sample, batch-independent
    if two then return x2 - x1, math.max(0, 2 * x1 - x2) end
    return x1 / B, 0
  end
  -- the step's bytes that grow with the samples (activations and workspace at its peak, the
  -- stack's per-device terms left out: framework_memory.sample_bytes, the sum parallel.data
  -- uses), so that a one-device row's mem is g:stats' footprint (issue [18]: one number)
  local fmem = require "dlbench.framework_memory"
  local act1 = fmem.sample_bytes(s1)
  local kept_total = two and (fmem.sample_bytes(s2) - act1) or act1 / B
  -- each op's saved bytes per sample (dlb_analysis_op_saved), and each layer's sum
  local sv = {}
  local saved, saved_total, csv = {}, 0, {}   -- csv: the attention core's
  for i = 1, n do saved[i], csv[i] = 0, 0 end
  for j = 1, #ops1.Sv do
    local x = split(ops1.Sv[j], two and ops2.Sv[j])
    sv[j] = x
    local li = ops1.Lp[j] + 1
    saved[li] = saved[li] + x
    saved_total = saved_total + x
    if marks1[j] then csv[li] = csv[li] + x end
  end
  -- (a layer whose per-sample slope is negative -- the op at the peak in it at 1 sample and
  -- in another layer at 2 -- keeps nothing of its own; the difference goes as below)
  for i = 1, n do
    if saved[i] < 0 then saved_total = saved_total - saved[i]; saved[i] = 0 end
  end
  -- the forward FLOPs per sample of one block's attention score and value matmuls, and
  -- whether they are causal, as the graph path counts them (dlbench.mfu.attention_layer: a
  -- zoo transformer's shape), given to each layer with an attention core (core_ops); nil
  -- for a graph that is not a zoo transformer (MFU then counts its attention as it is)
  local mfu = require "dlbench.mfu"
  local attn, causal = mfu.attention_layer(g, o.bind)
  -- FlashAttention's backward recompute (fused attention kernels, fusion.c): its FLOPs are in
  -- the fused backward ops' FLOPs but not in the step's flops_fwd + flops_bwd (they are its
  -- flops_recompute): the difference, per sample, spread over the attention layers by their
  -- core's forward FLOPs (exact in total; per layer exact when the blocks are alike)
  local function fwdbwd(s) return (tonumber(s.flops_fwd) or 0) + (tonumber(s.flops_bwd) or 0) end
  local arr1, arr2, core_total = 0, 0, 0
  for i = 1, n do
    arr1 = arr1 + f1[i] + b1[i]
    if two then arr2 = arr2 + f2[i] + b2[i] end
    core_total = core_total + (split(cf1[i], two and cf2[i]))
  end
  local fa_rc = split(arr1 - fwdbwd(s1), two and (arr2 - fwdbwd(s2)))
  if not (fa_rc > 1e-12 * math.abs(split(arr1, two and arr2))) then fa_rc = 0 end   -- rounding
  local tp = o.tp == nil and "megatron" or o.tp
  if tp ~= "megatron" and tp ~= false then gerr(fname, "tp must be \"megatron\" or false") end
  -- the kept bytes per sample of each layer, in whole bytes: what it saves (above); the
  -- step's bytes beyond them (a profile's loss tensors, framework_memory) to the layer of
  -- the loss, any other difference (a schedule whose peak is not where every saved tensor
  -- is live) in proportion to the saved bytes; apportioned by largest remainder, so that
  -- the layers hold whole bytes and sum to the step's (the shares' fractions of a byte were
  -- the plans' fractional memory: 42778850189.887 B, review 11). A step's total that is not
  -- whole (a numeric batch whose kept bytes do not divide by it) goes to the nearest byte.
  local keptw = {}
  do
    local kt = math.floor(math.max(0, kept_total) + 0.5)
    local want, extra, lossl = {}, kt - saved_total, nil
    for i = 1, n do want[i] = saved[i] end
    for i = 1, n do if kinds[i].softmax_xent then lossl = i; break end end
    if extra > 0 and lossl then want[lossl] = want[lossl] + extra; extra = 0 end
    local rem, order, sum = {}, {}, 0
    for i = 1, n do
      local x = saved_total > 0 and math.max(0, want[i] + extra * saved[i] / saved_total)
        or kt / n
      keptw[i] = math.floor(x); rem[i] = x - keptw[i]; sum = sum + keptw[i]; order[i] = i
    end
    table.sort(order, function(a, b)
      if rem[a] ~= rem[b] then return rem[a] > rem[b] end
      return a < b
    end)
    for j = 1, math.min(n, kt - sum) do keptw[order[j]] = keptw[order[j]] + 1 end
  end
  for i = 1, n do
    local l = L1[i]
    local ff = split(f1[i], two and f2[i])
    local fbw = split(b1[i], two and b2[i])
    local bs, bf = split(by1[i], two and by2[i])
    if not two then bf = 3 * (l.weight_bytes or 0); bs = math.max(0, (by1[i] - bf) / B) end
    local ao = split(l.activations_out, two and L2[i].activations_out)
    local kept = keptw[i]
    local k = kinds[i]
    -- full recompute reruns the layer (1) or not (-1) by the graph path's rule (the C rule
    -- dlb_layer_reruns: a block reading the hidden state, no embedding nor head; issue [18])
    local r = { name = l.name, flops_fwd = ff, flops_bwd = fbw, bytes_sample = bs,
      bytes_fixed = bf, params = l.params, act_out = ao, act_kept = kept, act_rep = 0,
      act_in = i > 1 and out[i - 1].act_out or 0, tp_bytes = 0, tp_colls = 0, shardable = 0,
      rerun = reruns[i] == 1 and 1 or -1 }
    if tp == "megatron" and l.params > 0 then
      -- attention first: a MoE block (dlb.models.moe) gathers its tokens to and from the
      -- experts with embedding ops, and is still an attention block, not an embedding
      if k.embedding and not (k.softmax and k.matmul) then
        r.shardable, r.tp_bytes, r.tp_colls = 1, ao, 1
      elseif k.softmax and k.matmul then
        r.tp_bytes, r.tp_colls = ao, 2
        -- Megatron splits the heads (and K/V heads) and the hidden units evenly; a single
        -- K/V head (multi-query attention) is replicated on every tensor-parallel rank, as
        -- PaLM does (Chowdhery et al. 2022 sec. 2: K/V projections shared by all heads)
        local kv = mopts.kv_heads or mopts.heads
        if kv == 1 then kv = mopts.heads end
        r.tp_div = gcd(mopts.heads, kv, mopts.hidden) or 0
        -- (a block without experts: what its replicated ops save, set below)
        r.act_rep = math.min(kept, 4 * ao)
        r.act_kept = kept - r.act_rep
      elseif k.softmax_xent and k.matmul then
        r.tp_bytes, r.tp_colls = r.act_in, 1
      end
    elseif k.embedding and not (k.softmax and k.matmul) then
      r.shardable = 1
    end
    -- the attention core (core_ops): its forward FLOPs, and what its ops save (scores,
    -- softmax, dropout mask and output: Korthikanti et al. 2022 sec. 5's 5 a s^2 b),
    -- what selective recompute does not keep
    local cfs = split(cf1[i], two and cf2[i])
    if cfs > 0 then
      r.flops_core = cfs
      r.act_core = math.min(r.act_kept, math.floor(csv[i] + 0.5))
    end
    -- the attention score and value matmuls' forward FLOPs, what attention_flops = "causal"
    -- counts half in MFU (dlbench.mfu.layers_attention)
    if attn then r.flops_attn = cfs > 0 and attn or 0 end
    -- of flops_bwd, the fused attention's recompute of its forward (hardware FLOPs, in HFU,
    -- not in MFU: dlb.parallel's model FLOPs leave it out)
    if fa_rc > 0 and cfs > 0 and core_total > 0 then r.flops_recompute = fa_rc * cfs / core_total end
    -- attention and MoE sizes for context and expert parallelism, from the zoo model's
    -- options (see moe_attn_fields)
    moe_attn_fields(r, l, k, mopts, g.model, o.bind, base.precision, ff + fbw)
    -- frozen weights (g:freeze, LoRA's base weights, quantised weights) have no update: a
    -- layer's trainable parameters are its share of the update FLOPs (the same per parameter
    -- for every weight: the optimizer's, plus the master-copy cast under mixed precision)
    if utot > 0 then
      local fz = (L1[i].params or 0) - upd1[i] * trainable / utot
      if fz > 0.5 then r.frozen = math.floor(fz + 0.5) end
    elseif trainable == 0 and (L1[i].params or 0) > 0 then
      r.frozen = L1[i].params
    end
    -- the layer's own weight bytes (quantised weights are smaller than params x w_bytes)
    if (L1[i].weight_bytes or 0) > 0 then r.weight_bytes = L1[i].weight_bytes end
    -- the parameter tensors its optimizer step updates and their multi_tensor_apply chunks
    -- (the launch model of a profile's optimizer_impl, graphs/hw/optim_launch.c)
    local ut, uc = core.analysis_update_tensors(s1.analysis, i - 1, core.optim_chunk())
    if ut > 0 then r.upd_tensors, r.upd_chunks = ut, uc end
    out[i] = r
  end
  local moe = {}
  for i = 1, n do moe[i] = (out[i].experts or 0) > 0 end
  local tpl = {}   -- the Megatron tensor-parallel attention blocks (no experts)
  for i = 1, n do tpl[i] = (out[i].tp_colls or 0) == 2 and not out[i].experts end
  local rep = region_ops(ops1, n, tpl, marks1)
  -- such a block's replicated kept bytes: what the ops outside its tensor-parallel region save
  local rsv = {}
  for j = 1, #sv do
    if rep[j] then local li = ops1.Lp[j] + 1; rsv[li] = (rsv[li] or 0) + sv[j] end
  end
  for i = 1, n do
    if tpl[i] then
      local r = out[i]
      local kept = r.act_kept + r.act_rep
      r.act_rep = math.min(kept, math.floor((rsv[i] or 0) + 0.5))
      r.act_kept = kept - r.act_rep
      if r.act_core then r.act_core = math.min(r.act_core, r.act_kept) end
    end
  end
  -- Megatron's fused softmax and its fallback (the profile's softmax_fallback: the planner
  -- knows the micro-batch and tensor degree the kernel's rule reads)
  local causal_sm = false
  for _, nm in ipairs(type(base.fuse) == "table" and base.fuse or {}) do
    if nm == "softmax_causal" then causal_sm = true end
  end
  local sm = prof and prof.softmax_fallback and LO.softmax_ops(ops1, marks1, prof.softmax_fallback,
    mopts.heads, mfu.tokens_per_sample(g, o.bind), base.precision, causal_sm, two and 1 or B)
  out.ops = ops_of(ops1, two and ops2, B, n, moe, marks1, rep, module_ops(ops1, n, moe, marks1), sm)
  -- fp8=true: Transformer Engine's quantisation kernels of the profile's fp8 recipe
  -- (dlbench.te_fp8), for a step whose linear layers run fp8 GEMMs on these bf16 layers
  if o.fp8 ~= nil and o.fp8 ~= false then
    local ok, e = pcall(require("dlbench.te_fp8").apply, out, { fp8 = o.fp8, prof = prof,
      precision = base.precision, kinds = kinds, tpl = tpl, types = ops1.T })
    if not ok then gerr(fname, e) end
  end
  -- a causal decoder (dlbench.mfu): under a profile whose kernel skips the masked blocks
  -- the planner times its fused attention on 0.5 / the kernel's causal rate of its FLOPs
  -- (attn_work), and MFU counts its flops_attn half under attention_flops = "causal"; false:
  -- a zoo transformer that is not causal (BERT); nil: not known (MFU counts the layers'
  -- attention as it is). seq: tokens per sample (tokens/s, time to train, mfu = "6N").
  if attn then out.causal = causal and true or false else out.causal = mfu.causal(g) or nil end
  out.seq = mfu.tokens_per_sample(g, o.bind)
  -- the step's batch-independent model FLOPs (forward + backward, no recompute: a tied
  -- embedding's gradient sum, v x h adds), which the per-sample layers cannot hold: MFU
  -- counts them once per step, as the algorithmic step does (parallel_plan.lua
  -- fb_per_sample); 0 at a numeric batch (in its per-sample average)
  out.flops_fixed = two and math.max(0, 2 * fwdbwd(s1) - fwdbwd(s2)) or 0
  -- bytes per parameter of weights, gradients and optimizer state as the graph engine counts
  -- them (the planner's defaults are mixed-precision Adam's 2, 2, 12)
  local P, Tr = 0, 0
  for i = 1, n do
    P = P + (L1[i].params or 0)
    Tr = Tr + (L1[i].params or 0) - (out[i].frozen or 0)
  end
  if P > 0 then
    local bd = s1.breakdown
    local prec = base.precision
    out.state_bytes = { w = (tonumber(bd.weights) or 0) / P,
      g = (prec == "fp32" or prec == "tf32") and 4 or 2,
      o = Tr > 0 and (tonumber(bd.optimizer) or 0) / Tr or 0 }   -- per trainable parameter
  end
  out.precision = base.precision   -- evaluate/plan{layers=} take it (docs/parallel.md)
  -- the profile itself, not only its name: a derived one (dlb.frameworks.derive, e.g.
  -- memory.offload_gradients = false) keeps its fields when evaluate/plan{layers=} take the
  -- list's profile (parallel_plan.lua framed); ls.framework is its name, for the reports
  if prof then out.framework, out.framework_source, out.framework_profile = prof.name, psrc, prof end
  -- the profile's per-device terms (CUDA context, optimizer-step temporaries, ZeRO buckets):
  -- not per sample, so not in the layers; evaluate/plan add them per layout
  -- (dlbench.framework_memory.device)
  out.framework_memory = prof and require("dlbench.framework_memory").for_layers(prof, s1) or nil
  return out
end


doc.doc(M.from_graph, "dlb.parallel.layers.from_graph(g[, {bind=, batch_dim=\"b\"|batch=n, precision=\"mixed\","
  .. " optimizer=, fuse=, framework=, fp8=false, tp=\"megatron\"|false}]) -> {layer cost...}",
  "per-sample layer costs of a dlb.graph's g:layer scopes (FLOPs, bytes, params, activations, "
  .. "tensor-parallel collectives) for dlb.parallel.plan; fp8=true adds Transformer Engine's "
  .. "fp8 casts of the profile's recipe (dlbench.te_fp8; evaluate at precision fp8); a zoo "
  .. "transformer's list carries flops_attn, flops_recompute, causal and seq, so its MFU is the "
  .. "graph's under every convention (dlbench.mfu)")

-- Sum of a layer array's parameters and training FLOPs per sample.
function M.totals(ls)
  local p, f = 0, 0
  for _, l in ipairs(ls) do
    p = p + (l.params or 0)
    f = f + (l.flops_fwd or 0) + (l.flops_bwd or 0)
  end
  return { params = p, flops = f }
end
doc.doc(M.totals, "dlb.parallel.layers.totals(layers) -> {params=, flops=}",
  "total parameters and training FLOPs per sample of a layer cost array")

-- Errors name the user's line: re-raise at the caller's level without library positions.
local strip = require("dlbench.errors").strip
local function ret(fname, ok, ...)
  if not ok then
    local e = ...
    if type(e) ~= "string" then error(e, 2) end
    local m = strip(e)
    if not m:match("^parallel[%.%w_]*: ") then m = fname .. ": " .. m end
    error(m, 2)
  end
  return ...
end
local names = {}
for k, f in pairs(M) do
  if type(f) == "function" then names[#names + 1] = k end
end
for _, k in ipairs(names) do
  local f, fname = M[k], "parallel.layers." .. k
  local g = function(...) return ret(fname, pcall(f, ...)) end
  local d = doc.get(f)
  if d then doc.doc(g, d.signature, d.meaning) end
  M[k] = g
end

doc.doc(M, "dlb.parallel.layers", "per-layer cost arrays: transformer, word_lm, from_graph, from_ops; table2_work, totals")
return M
