-- dlbench.serve_graph — a serving step as a dlb graph, and its time: the one description
-- of a step that every dlb.serve answer is computed from (prefill, decode, generate,
-- continuous batching, the sweep, the validation). A step of B sequences with n new tokens
-- each after p cached ones is built as a graph of kernel ops (g:kernel: given FLOPs, bytes,
-- GEMM shape, fused-attention mark), layer by layer, with the paged KV cache as inputs and
-- the tensor-parallel allreduces as kernels of their own; the graph is read back through
-- its forward analysis into the per-op rule's entries, which time_entries times by the one
-- step model (dlb_step_time, through dlb_roofline_ops_attn), the allreduces on the links
-- and serving's launch model. A graph's entries do not depend on the device's rates, so
-- they are kept per model, step shape and configuration (not per device or calibration)
-- and re-timed; a dense model's steps of any batch and context come from a few graphs
-- whose costs they are affine (or, for a chunk's tokens, quadratic) functions of (M.step).
-- See docs/serve.md.
local core = require "dlbench.backend"
local poly = require "dlbench.poly"

local M = {}

-- A symbolic count (a dlb.poly over the compiled step's symbols: see M.compiled) or a number.
local function sym(x) return type(x) == "table" end

-- The experts a step of T tokens touches: E (1 - (1 - k/E)^T) with uniform routing. Not a
-- polynomial in T: a compiled step (T symbolic) carries it as its own symbol u, whose value
-- each configuration gives from this same rule.
local function touched_experts(s, T)
  if sym(T) then return poly.new("u") end
  local E, kk = s.experts, s.top_k
  return E * (1 - (1 - kk / E) ^ T)
end
M.touched_experts = touched_experts

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
    local touched = touched_experts(s, T)
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
  -- a symbolic context (a compiled decode step) is within the window: its evaluation clamps
  -- the context to window - n (M.compiled), where the unwindowed count holds
  if not w or sym(p) then
    pairs_ = n * p + n * (n + 1) / 2
  else
    -- sum over i = 1..n of min(p + i, w)
    local full = math.max(0, math.min(n, w - p))   -- queries with p + i <= w
    pairs_ = (full > 0 and (full * p + full * (full + 1) / 2) or 0) + (n - full) * w
  end
  local keys = p + n
  if w and not sym(p) and keys > w then keys = w end
  local flops = 4 * B * hq * pairs_
  -- kv_reuse = false: a decode kernel that reads the cache once per query head rather than
  -- once per KV head (no sharing of K/V loads across a GQA group)
  -- (the rank's hq / head_dim query heads each read their KV head's keys: hq per key, not
  -- kvh x heads / kv_heads, which overcounts by tp / kv_heads when the KV heads replicate)
  local reuse = not (n == 1 and not c.kv_reuse)
  local bytes = B * (2 * n * hq * c.abytes
    + 2 * c.kvbytes * ((reuse and kvh or hq) * keys + kvh * n))
  return flops, bytes
end

-- Cache tokens a sequence of context `ctx` holds: the window at most, in whole blocks (a
-- symbolic context: the context itself, a tensor's dim that no cost reads).
local function cached_tokens(s, c, ctx)
  if sym(ctx) then return ctx end
  if s.window and ctx > s.window then ctx = s.window end
  return math.ceil(ctx / c.block) * c.block
end
M.cached_tokens = cached_tokens

-- == the time of a step's entries =================================================

-- The per-op rule over a step's kernels, entries {name, flops, bytes, count, gemm = {m, n,
-- k, batch} or nil, attention = bool} (collectives: {name, 0, 0, count, comm = time}): the
-- attention kernels at the activation dtype, the rest at compute's, in one call each (one
-- in all when c.one_roof; each call is dlb_step_time, the training step's model), then
-- serving's launch model and the step overhead. Returns {time, flops, bytes, comm, launch,
-- kernels, memory_bound_time, by_op, attn_launch}.
local function time_list(c, list)
  -- the launch cost of a kernel of time t: overlapped (the default: asynchronous launches
  -- run ahead of the GPU, so a kernel takes at least the launch interval, max(t, launch))
  -- or serial (launch = "serial": the per-op rule's kernel_overhead added to every op, as
  -- dlb.roofline.time does for a training step); none under CUDA graphs
  local launch = c.cuda_graphs and 0 or c.launch
  local overlap = c.launch_mode == "overlap"
  local sets = c.one_roof and { { c.one_roof } } or { { c.op_roof, false }, { c.attn_roof, true } }
  for _, set in ipairs(sets) do
    local fl, by, gm, at, idx = {}, {}, {}, {}, {}
    local k = 0
    for i, e in ipairs(list) do
      if not e.comm and (set[2] == nil or (e[6] and true or false) == set[2]) then
        k = k + 1
        fl[k], by[k], at[k], idx[k] = e[2], e[3], e[6] and 1 or 0, i
        local g = e[5]
        if g then gm[4 * k - 3], gm[4 * k - 2], gm[4 * k - 1], gm[4 * k] = g[1] or 0, g[2] or 0, g[3] or 0, g[4] or 0
        else gm[4 * k - 3], gm[4 * k - 2], gm[4 * k - 1], gm[4 * k] = 0, 0, 0, 0 end
      end
    end
    if k > 0 then
      local _, t, b = core.roofline_ops_attn(set[1], fl, by, gm, at)
      for j, i in ipairs(idx) do list[i].t, list[i].mb = t[j], b[j] == "memory" end
    end
  end
  -- the sums in list order (each kernel: its time, FLOPs, bytes, memory-bound time, its
  -- name's share, its launch cost); accumulated in locals, stored once
  local time, flops, bytes, comm, lsum, kernels, mbt, alaunch = 0, 0, 0, 0, 0, 0, 0, 0
  local by_op = {}
  for _, e in ipairs(list) do
    local count, name = e[4], e[1]
    if e.comm then
      local t = e.comm
      comm = comm + t * count
      time = time + t * count
      flops = flops + 0 * count
      bytes = bytes + 0 * count
      by_op[name] = (by_op[name] or 0) + t * count
    else
      local t = e.t
      time = time + t * count
      flops = flops + e[2] * count
      bytes = bytes + e[3] * count
      if e.mb then mbt = mbt + t * count end
      by_op[name] = (by_op[name] or 0) + t * count
      local x = overlap and math.max(0, launch - t) or launch
      lsum = lsum + x * count
      kernels = kernels + count
      if e[6] then alaunch = alaunch + x * count end
    end
  end
  return { time = time + lsum + c.step_overhead, flops = flops, bytes = bytes, comm = comm,
    launch = lsum, kernels = kernels, memory_bound_time = mbt, by_op = by_op, attn_launch = alaunch }
end


-- == the step's graph =============================================================

-- The kernels of one step of B sequences, n new tokens each after p cached (prefill:
-- p = 0, n = prompt; decode: n = 1, p = context so far; chunked prefill mixed into a
-- decode batch: opts.mix = {{B, n, p}, ...}, each group its own attention kernel, its tokens
-- joining the GEMMs), on one pipeline stage of opts.layers layers (all of them when
-- pp = 1), layer by layer in order: entries {name, flops, bytes, 1, gemm, attention,
-- layer = l (0: the ends), row = layer_ops' op, group = the attention's {B, n, p},
-- payload = a collective's bytes}. The builder of step_graph, nothing else.
local function step_list(s, c, B, n, p, opts)
  local T = B * n
  local L = opts.layers or s.layers
  local nmoe = s.experts and math.floor(L / s.every) or 0
  local groups = { { B, n, p } }
  for _, m in ipairs(opts.mix or {}) do
    groups[#groups + 1] = m
    T = T + m[1] * m[2]
  end
  local list = {}
  local function put(name, fl, by, gemm, attention, layer, row)
    local e = { name, fl, by, 1, gemm, attention, layer = layer, row = row }
    list[#list + 1] = e
    return e
  end
  local kinds = {}  -- layer_ops of a dense and an MoE layer (MoE every s.every-th)
  for l = 1, L do
    local moe = nmoe > 0 and l % s.every == 0
    kinds[moe] = kinds[moe] or layer_ops(s, c, T, moe)
    for _, op in ipairs(kinds[moe]) do
      if op.comm then
        put(op.name, 0, 0, nil, nil, l, op).payload = op.comm
      elseif op.attention then
        for _, gp in ipairs(groups) do
          if (sym(gp[1]) or gp[1] > 0) and gp[2] > 0 then
            local fl, by = attn_cost(s, c, gp[1], gp[2], gp[3])
            put(op.name, fl, by, nil, true, l, op).group = gp
          end
        end
      else
        put(op.name, op.flops, op.bytes, op.m and { op.m, op.n, op.k, op.batch or 1 }, nil, l, op)
      end
    end
  end
  -- the embedding gather on the first stage, the final norm and the LM head on the last
  -- (logits of the last token of each sequence only); a pipeline stage carries all three
  local d, V = s.hidden, s.vocab / c.tp
  local ab = c.abytes
  for _, m in ipairs(opts.mix or {}) do B = B + m[1] end
  put("embedding", 0, T * d * ab * 2, nil, nil, 0, { rows = T, width = d })
  put("final_norm", 4 * B * d, 2 * B * d * ab, nil, nil, 0, { rows = B, width = d })
  put("lm_head", 2 * B * d * V, d * V * ab + ab * (B * d + B * V), { B, V, d, 1 }, nil, 0,
    { rows = B, width = V, k = d, n = V })
  return list
end

-- A tensor's dim for a count that may be a mean (continuous batching's steady state holds
-- N = rate x output x TPOT sequences, not a whole number): the kernels carry the mean's
-- costs, the tensors are drawn at the next whole number.
local function whole(x)
  if sym(x) then return x end
  return math.max(1, math.ceil(x))
end

-- The step as a dlb graph (see step_list): each kernel an op of g:kernel with the FLOPs,
-- bytes, GEMM shape and fused-attention mark of its entry, over tensors that show the step:
-- token ids, the weights at the weight dtype (experts as [E, k, n]; the embedding, LM head
-- and norms at the activation dtype: the spec's params), per layer and attention group the
-- paged KV cache the attention reads, at the KV dtype in whole blocks (the window at most),
-- [B, cached tokens, 2 x KV heads x head_dim], and the tensor-parallel allreduces as kernels
-- of no FLOPs or bytes whose payload (T x hidden at the activation dtype) is in
-- g.serve.comm[op name]. g.serve = {kind, batch, new, context, layers, mix, config, spec,
-- comm}. fn names the caller in errors.
local gbase = require "dlbench.graph_base"
local graph_op = core.graph_op
local function num(v)
  if sym(v) then return tostring(v) end  -- exact: dlb.poly prints the shortest text that reads back
  return string.format("%.17g", v)
end
-- a tensor's dim: a number, or a symbolic count's text
local function dim(v) return sym(v) and tostring(v) or v end
local KERNEL
local function step_graph(s, c, kind, B, n, p, opts, fn)
  KERNEL = KERNEL or gbase.TYPE.kernel
  opts = opts or {}
  local L = opts.layers or s.layers
  if L ~= math.floor(L) then
    error((fn or c.fn) .. ": pp = " .. c.pp .. " must divide the model's " .. s.layers
      .. " layers (a pipeline stage holds whole layers)", 0)
  end
  local graph = require "dlbench.graph"
  local g = graph.new(s.name .. " " .. kind)
  local list = step_list(s, c, B, n, p, opts)
  local T, d = B * n, s.hidden
  for _, m in ipairs(opts.mix or {}) do T = T + m[1] * m[2] end
  local act, kvdt = c.act, c.kv
  local kvw = 2 * math.max(1, s.kv_heads / c.tp) * s.head_dim
  local comm = {}
  local ids = g:input("ids", { dim(whole(T)) }, "int32").id
  local embed = g:weight("embed", { s.vocab, d }, act).id
  -- the norms' weights: RMSNorm a scale, LayerNorm a scale and a bias (as the spec counts)
  local nscale = d * (s.mlp == "swiglu" and 1 or 2)
  -- a kernel op (g:kernel's op, made here without its argument checks: these costs come
  -- from the rules above, and C checks them again); ins and the result are tensor ids
  local dt = gbase.DTYPES[act]
  local function kernel(e, name, ins, rows, width)
    if e[1]:find("norm", 1, true) then ins[#ins + 1] = g:weight(name .. ".scale", { nscale }, act).id end
    local gm = e[5]
    local d = { num(e[2]), num(e[3]) }
    if gm then d[3], d[4], d[5], d[6] = num(gm[1]), num(gm[2]), num(gm[3]), num(gm[4]) end
    local nd = #d
    d[nd + 1], d[nd + 2] = num(whole(rows)), num(width)
    return graph_op(g._h, KERNEL, name, ins, { e[6] and 1 or 0, gm and 1 or 0, 2, dt }, d)[1]
  end
  local x
  for _, e in ipairs(list) do
    if e[1] == "embedding" then x = kernel(e, "embedding", { ids, embed }, T, d) end
  end
  local layer, cur, res, routed, attn = nil, x, x, nil, nil
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
        -- one kernel per attention group (a chunked prefill's pieces beside the decode
        -- batch), each reading its own cache; the next takes the previous one's output
        local gp = e.group
        local gi = attn and attn.layer == l and attn.n + 1 or 1
        local oname = gi > 1 and lname .. gi or lname
        local cache = g:input(oname .. ".kv_cache", { dim(whole(gp[1])), dim(cached_tokens(s, c, gp[3] + gp[2])), kvw }, kvdt).id
        local ins = { cur, cache }
        if gi > 1 then ins[3] = attn.out end
        out = kernel(e, oname, ins, row.rows, row.width)
        attn = { layer = l, n = gi, out = out }
      elseif e.payload then
        out = kernel({ name, 0, 0 }, lname, { cur }, row.rows or T, d)
        comm[lname] = e.payload
      elseif e[5] then
        local w = g:weight(lname .. ".w", row.batch > 1 and { row.batch, row.k, row.n } or { row.k, row.n },
          c.weights).id
        local ins = { cur, w }
        if routed and name:match("^experts") then ins[3] = routed end
        out = kernel(e, lname, ins, row.rows, row.width)
      elseif name:find("^residual") or name:find("^add_norm") then
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
      x = kernel(e, "final_norm", { x }, e.row.rows, d)
    elseif e[1] == "lm_head" then
      local w = s.tied and embed or g:weight("lm_head", { d, s.vocab }, act).id
      x = kernel(e, "lm_head", { x, w }, e.row.rows, e.row.width)
    end
  end
  g.serve = { kind = kind, batch = B, new = n, context = p, layers = L, mix = opts.mix,
    config = c, spec = s, comm = comm }
  return g
end
M.step_graph = step_graph

local ATTENTION = select(2, require("dlbench.desc").enum("DLB_KERNEL_")).attention

-- A step graph read back into time_list's entries, from its forward analysis: the layers'
-- kernels, then the ends' (embedding, final norm, LM head); identical kernels (name, FLOPs,
-- bytes, GEMM shape, attention mark, collective payload) are one entry with a count (the
-- per-op rule's host timeline sees the same sequence). Kept in g.serve.entries.
local function entries(g)
  local sv = g.serve
  if sv.entries then return sv.entries end
  local st = g:stats { inference = true }
  local a = st.analysis
  local F, By, _, Ly, _, K = core.analysis_arrays(a)
  local list, seen = {}, {}
  for pass = 1, 2 do
    for i = 1, #F do
      if (Ly[i] >= 0) == (pass == 1) then
        local m, nn, k, b = core.analysis_gemm(a, i - 1)
        local full = core.analysis_op_name(a, i - 1)
        local name = full:gsub("^layer%d+%.", "")
        local payload = sv.comm[full]
        local key = string.format("%s|%.17g|%.17g|%s|%s|%s", name, F[i], By[i],
          m and string.format("%.17g,%.17g,%.17g,%.17g", m, nn, k, b) or "", tostring(K[i] == ATTENTION),
          payload and string.format("%.17g", payload) or "")
        local e = seen[key]
        if e then e[4] = e[4] + 1
        else
          e = { name, F[i], By[i], 1, m and { m, nn, k, b } or nil, K[i] == ATTENTION, payload = payload }
          seen[key] = e
          list[#list + 1] = e
        end
      end
    end
  end
  sv.entries = list
  return list
end

-- The time of a step's entries on configuration c: each collective as NCCL runs it
-- (c.collectives = "nccl": dlb.parallel.nccl on the group's fabric, the rule training's
-- planner uses) or through dlb.parallel.allreduce on the tensor-parallel group's link
-- ("alpha-beta"), then time_list.
local function allreduce(c, bytes)
  if c.collectives == "nccl" then
    return (require("dlbench.parallel").nccl("allreduce", bytes, c.nccl_topo(c.tp)).time)
  end
  local link = c.link(c.tp)
  return (require("dlbench.parallel").allreduce { bytes = bytes, n = c.tp, bw = link.bw,
    latency = link.latency or 0 })
end
local function time_entries(c, list)
  for _, e in ipairs(list) do
    if e.payload then e.comm = allreduce(c, e.payload) end
  end
  return time_list(c, list)
end

-- The pipeline over a stage's time: c.pp stages of layers / pp layers each, the batch of B
-- sequences as m = min(microbatches, B) micro-batches (r: one micro-batch's stage step, B / m
-- sequences); activations cross the stage boundaries on the link. Prefill fills (m + pp - 1)
-- stage slots; decode keeps the pipe full (max(m, pp) slots per token step). Returns the
-- whole step's cost and out.latency, one micro-batch's way through the pipeline.
local function pipe(s, c, r, B, n)
  local m = math.min(c.microbatches, B)
  local Bm = B / m
  local link = c.link(c.pp)
  local p2p = (link.latency or 0) + Bm * n * s.hidden * c.abytes / link.bw
  local stage = r.time + p2p
  local out = {}
  for k, v in pairs(r) do out[k] = v end
  out.time = (m + c.pp - 1) * stage
  if n == 1 then out.time = math.max(m, c.pp) * stage end
  out.latency = c.pp * stage
  out.flops, out.bytes = r.flops * m * c.pp, r.bytes * m * c.pp
  out.comm = (r.comm * m + p2p * m) * c.pp
  return out
end

-- The time of a graph of step_graph (dlb.serve.time): its entries timed on its
-- configuration, through the pipeline when it is a stage (pp > 1).
function M.time_graph(g)
  local sv = g.serve
  local c = sv.config
  local r = time_entries(c, entries(g))
  if c.pp > 1 then
    r = pipe(sv.spec, c, r, sv.pipeline_batch, sv.new)
  else
    r.latency = r.time
  end
  return r
end

-- The entries of step graphs, per model, step shape and configuration: what the graph
-- holds does not depend on the device's rates, launch costs or links, so a graph is built
-- once and re-timed under each device and calibration. Keyed by the spec's fields (not the
-- table: dlb.serve.decode(graph, ...) makes a new spec a call); at most 4,096 shapes kept.
local SPEC_FIELDS = { "name", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn",
  "vocab", "mlp", "experts", "top_k", "every", "window", "tied" }
local built, nbuilt = {}, 0
local function shape_key(s, c, B, n, p, opts)
  -- the spec's fields, joined once a spec and kept with the values they were joined from: a
  -- spec edited since (s.layers = 8) is joined again, not timed on its old fields' graphs
  local kept, sk = rawget(s, "_graph_key"), nil
  if kept then
    sk = kept.key
    for i, f in ipairs(SPEC_FIELDS) do
      if not rawequal(s[f], kept[i]) then sk = nil; break end
    end
  end
  if not sk then
    local k, v = {}, {}
    for i, f in ipairs(SPEC_FIELDS) do v[i] = s[f]; k[i] = tostring(v[i]) end
    sk = table.concat(k, "|")
    v.key = sk
    rawset(s, "_graph_key", v)
  end
  local ck = rawget(c, "_graph_key")  -- the configuration's part, once a configuration
  if not ck then
    -- %.17g, not %d: a count beyond 2^63 (block = 1e300) has no integer form in Lua 5.4
    ck = string.format("%.17g|%s|%s|%.17g|%s|%.17g|%s|%s|%.17g", c.tp, c.act, c.weights, c.wbytes,
      c.kv, c.kvbytes, tostring(c.fused), tostring(c.kv_reuse), c.block)
    rawset(c, "_graph_key", ck)
  end
  local k = string.format("%s|%s|%.17g|%.17g|%.17g|%s", sk, ck, B, n, p, tostring(opts.layers))
  for _, m in ipairs(opts.mix or {}) do k = k .. string.format("|%.17g,%.17g,%.17g", m[1], m[2], m[3]) end
  return k
end

local function entries_at(s, c, B, n, p, opts)
  local key = shape_key(s, c, B, n, p, opts)
  local list = built[key]
  if not list then
    list = entries(step_graph(s, c, "step", B, n, p, opts))
    if nbuilt >= 4096 then built, nbuilt = {}, 0 end
    built[key], nbuilt = list, nbuilt + 1
  end
  return list
end

-- The entries at any batch B from the graphs at batches 1 and 2 (x = B - 1; the same for
-- a decode step's context, x = p, from the graphs at contexts 0 and 1): a dense model's
-- every kernel cost, GEMM dim and collective payload at fixed new tokens and context is an
-- affine function of the batch (GEMMs, norms, attention and the LM head scale with the
-- tokens or sequences; the weights' bytes are fixed), so f(B) = f(1) + (B - 1)(f(2) - f(1))
-- exactly, up to rounding (tests/lua/test_serve_graph.lua checks it against the graph
-- built at B). This is what lets a sweep over batches and contexts, or continuous
-- batching's mean batch N (not a whole number), build a few graphs a shape instead of one
-- a step. nil when the two graphs' kernels do not pair up (then the graph at B itself is
-- built).
-- Whether two cached entry lists pair up kernel by kernel (the same names, counts, attention
-- marks, GEMM and payload presence), kept per pair of lists: a steady state or a closed
-- loop re-times the same few graphs' entries thousands of times.
local paired = setmetatable({}, { __mode = "k" })
local function pair_up(l0, l1)
  local m = paired[l0]
  if not m then m = setmetatable({}, { __mode = "k" }); paired[l0] = m end
  local ok = m[l1]
  if ok == nil then
    ok = #l0 == #l1
    for i, e in ipairs(l0) do
      local f = l1[i]
      if not ok then break end
      if f[1] ~= e[1] or f[4] ~= e[4] or f[6] ~= e[6] or (f[5] == nil) ~= (e[5] == nil)
          or (f.payload == nil) ~= (e.payload == nil) then
        ok = false
      end
    end
    m[l1] = ok
  end
  return ok
end
local function between(l0, l1, x)
  if not pair_up(l0, l1) then return nil end
  local function at(a, b) return a == b and a or a + x * (b - a) end
  local out = {}
  for i, e in ipairs(l0) do
    local f = l1[i]
    local g
    if e[5] then g = { at(e[5][1], f[5][1]), at(e[5][2], f[5][2]), at(e[5][3], f[5][3]), at(e[5][4], f[5][4]) } end
    out[i] = { e[1], at(e[2], f[2]), at(e[3], f[3]), e[4], g, e[6], payload = e.payload and at(e.payload, f.payload) }
  end
  return out
end
M._between = between  -- tests: the fused decode path below against it

-- between(between(a0, b0, x), between(a1, b1, x), q) in one pass, the same arithmetic in the
-- same order (so the same numbers, bit for bit), without the two intermediate lists: a
-- decode step at batch x + 1 and context q from the graphs at batches 1, 2 (a, b) and
-- contexts 0, 1 (0, 1). nil where the nested form is nil.
local function between2(a0, b0, a1, b1, x, q)
  if not (pair_up(a0, b0) and pair_up(a1, b1) and pair_up(a0, a1)) then return nil end
  local function at(u, v, w) return u == v and u or u + w * (v - u) end
  local out = {}
  for i, e in ipairs(a0) do
    local f, e1, f1 = b0[i], a1[i], b1[i]
    local g
    if e[5] then
      local g0, h0, g1, h1 = e[5], f[5], e1[5], f1[5]
      g = { at(at(g0[1], h0[1], x), at(g1[1], h1[1], x), q), at(at(g0[2], h0[2], x), at(g1[2], h1[2], x), q),
        at(at(g0[3], h0[3], x), at(g1[3], h1[3], x), q), at(at(g0[4], h0[4], x), at(g1[4], h1[4], x), q) }
    end
    -- the FLOPs and bytes: at() written out (the same expression)
    local u, v = e[2], f[2]
    local a = u == v and u or u + x * (v - u)
    u, v = e1[2], f1[2]
    local b = u == v and u or u + x * (v - u)
    local fl = a == b and a or a + q * (b - a)
    u, v = e[3], f[3]
    a = u == v and u or u + x * (v - u)
    u, v = e1[3], f1[3]
    b = u == v and u or u + x * (v - u)
    out[i] = { e[1], fl, a == b and a or a + q * (b - a), e[4], g, e[6],
      payload = e.payload and at(at(e.payload, f.payload, x), at(e1.payload, f1.payload, x), q) }
  end
  return out
end
M._between2 = between2

-- One step of B sequences, n new tokens each after p cached, on one stage of opts.layers
-- layers (all when pp = 1), with opts.mix chunked-prefill groups: its graph's entries,
-- timed on c. The entries are built, or kept from an earlier graph of the same shape; for a
-- dense model they come from the graphs at batches 1 and 2 (see between) and, for a decode
-- step (n = 1), at contexts 0 and 1 as well: a decode step's costs are affine in the
-- context (attention reads and scores p + 1 keys) up to the window (past it, they are those
-- at p = window - 1), so four graphs give every batch and context; a chunked-prefill
-- iteration's from four more (see chunked). MoE models (the experts a step touches are not
-- affine in the tokens), a windowed model's chunked iterations and opts.direct build the
-- graph at (B, n, p) itself.
local function step_entries(s, c, B, n, p, opts)
  local list
  if not (s.experts or opts.mix or opts.direct) then
    local function at_batch(q)
      if B == 1 or B == 2 then return entries_at(s, c, B, n, q, opts) end
      return between(entries_at(s, c, 1, n, q, opts), entries_at(s, c, 2, n, q, opts), B - 1)
    end
    if n == 1 and p ~= 0 and p ~= 1 then
      local q = s.window and math.min(p, s.window - 1) or p
      if B == 1 or B == 2 then
        local a, b = at_batch(0), at_batch(1)
        list = between(a, b, q)
      else
        -- the four graphs' entries, kept on the configuration per spec and stage
        local keep = rawget(c, "_decode_lists")
        if not keep then keep = setmetatable({}, { __mode = "k" }); rawset(c, "_decode_lists", keep) end
        local ks = keep[s]
        if not ks then ks = {}; keep[s] = ks end
        local L = opts.layers or 0
        local four = ks[L]
        if not four then
          four = { entries_at(s, c, 1, 1, 0, opts), entries_at(s, c, 2, 1, 0, opts),
            entries_at(s, c, 1, 1, 1, opts), entries_at(s, c, 2, 1, 1, opts) }
          ks[L] = four
        end
        list = between2(four[1], four[2], four[3], four[4], B - 1, q)
      end
    else
      list = at_batch(p)
    end
  end
  return list or entries_at(s, c, B, n, p, opts)
end
M._entries_at, M._step_entries = entries_at, step_entries  -- tests
-- The entries of a chunked-prefill iteration of a dense model without a window: B decode
-- sequences and one group of `pieces` prompt chunks of t tokens each after q cached. Its
-- costs are affine in B and quadratic in t (the chunks' causal attention pairs, t q +
-- t (t + 1) / 2 a chunk; GEMMs, norms and the rest are affine in the tokens B n + pieces t),
-- with no product of the two, so the graphs at (B, t) = (1, 1), (1, 2), (1, 3), (2, 1) give
-- every B and t: f = f11 + (t - 1) D1 + (t - 1)(t - 2) D2 + (B - 1)(f21 - f11), D1 =
-- f12 - f11, D2 = (f13 - 2 f12 + f11) / 2. nil when the graphs' kernels do not pair up.
local function chunked(s, c, B, n, p, opts)
  local m = opts.mix[1]
  local function at(b, t)
    return entries_at(s, c, b, n, p, { layers = opts.layers, mix = { { m[1], t, m[3] } } })
  end
  local l11, l12, l13, l21 = at(1, 1), at(1, 2), at(1, 3), at(2, 1)
  local t, x = m[2], B - 1
  if #l12 ~= #l11 or #l13 ~= #l11 or #l21 ~= #l11 then return nil end
  local function at4(a, b, cc, d)
    if a == b and b == cc and a == d then return a end
    return a + (t - 1) * (b - a) + (t - 1) * (t - 2) * 0.5 * (cc - 2 * b + a) + x * (d - a)
  end
  local out = {}
  for i, e in ipairs(l11) do
    local f2, f3, g = l12[i], l13[i], l21[i]
    for _, f in ipairs { f2, f3, g } do
      if f[1] ~= e[1] or f[4] ~= e[4] or f[6] ~= e[6] or (f[5] == nil) ~= (e[5] == nil)
          or (f.payload == nil) ~= (e.payload == nil) then
        return nil
      end
    end
    local gm
    if e[5] then
      gm = {}
      for k = 1, 4 do gm[k] = at4(e[5][k], f2[5][k], f3[5][k], g[5][k]) end
    end
    out[i] = { e[1], at4(e[2], f2[2], f3[2], g[2]), at4(e[3], f2[3], f3[3], g[3]), e[4], gm, e[6],
      payload = e.payload and at4(e.payload, f2.payload, f3.payload, g.payload) }
  end
  return out
end

function M.step(s, c, B, n, p, opts)
  opts = opts or {}
  local list
  if opts.mix and #opts.mix == 1 and not (s.experts or s.window or opts.direct) then
    list = chunked(s, c, B, n, p, opts)
  end
  return time_entries(c, list or step_entries(s, c, B, n, p, opts))
end

-- The attention kernel of a decode step of B sequences at context p (all layers alike):
-- its entry {name, FLOPs, bytes, count = layers, nil, true}, read from the step's graph.
function M.attention(s, c, B, p)
  local found
  for _, e in ipairs(step_entries(s, c, B, 1, p, {})) do
    if e[6] then
      if found then error(c.fn .. ": the decode graph's attention kernels differ between layers", 0) end
      found = e
    end
  end
  return found
end

-- A whole step through the pipeline: a stage's graph of one micro-batch when pp > 1.
function M.pipelined(s, c, B, n, p)
  if c.pp == 1 then
    local r = M.step(s, c, B, n, p)
    r.latency = r.time
    return r
  end
  local m = math.min(c.microbatches, B)
  return pipe(s, c, M.step(s, c, B / m, n, p, { layers = s.layers / c.pp }), B, n)
end

-- The graph of a step of B sequences, n new tokens each after p cached, with the chunked-
-- prefill groups mix (nil: none); a pipeline stage's of one micro-batch when pp > 1, which
-- time_graph puts through the pipeline. fn names the caller in errors.
function M.graph(s, c, kind, B, n, p, mix, fn)
  local m, stage = 1, { mix = mix }
  if c.pp > 1 then
    m = math.min(c.microbatches, B)
    stage.layers = s.layers / c.pp
  end
  local g = step_graph(s, c, kind, B / m, n, p, stage, fn)
  g.serve.pipeline_batch = B
  return g
end

-- The graphs of a prefill of B prompts of P tokens and of a decode step at context C.
function M.graphs(s, c, B, P, C, fn)
  return M.graph(s, c, "prefill", B, P, 0, nil, fn), M.graph(s, c, "decode", B, 1, C, nil, fn)
end

-- == the compiled step (graphs/sweep: dlb_sweep_prog_serve) ========================

-- A step's graph built with its batch b, context p (a decode step's; a prefill's is 0) and
-- touched experts u symbolic (the same builder, step_graph, its kernels' costs polynomials),
-- compiled as the training sweeps compile a step (dlb_sweep_prog: identical kernels one class
-- with a count), and timed per configuration in C by dlb_sweep_prog_serve: serving's
-- per-op model (the attention kernels on attn_roof, the rest on op_roof, or both on one_roof)
-- and launch model (a kernel lasts at least the launch interval when launches overlap; the
-- launch is the rule's kernel_overhead when serial; none under CUDA graphs); the allreduces'
-- payloads (polynomials in b) go through dlb.parallel.allreduce, and step_overhead is added,
-- as time_list does. Equal to the graph path (M.step, M.pipelined) within rounding
-- (tests/lua/test_serve_compiled.lua: 1e-9 relative). See docs/serve.md "The compiled sweep".
local SYMS = { "b", "p", "u" }
local programs, nprograms = {}, 0
-- programs compiled so far (tests read it: the sweep took the compiled path)
M.compiled_programs = 0

-- The program of a step of n new tokens a sequence (decode: n = 1, p symbolic; else p = 0)
-- on opts.layers layers: {prog, comm = {{payload poly, count}, ...}}, kept per shape.
local function program(s, c, n, decode, opts)
  local key = shape_key(s, c, 0, n, 0, opts) .. (decode and "|decode" or "|prefill")
  local P = programs[key]
  if P then return P end
  local g = step_graph(s, c, "compiled", poly.new("b"), n, decode and poly.new("p") or 0, opts)
  local prog = core._sweep_prog_new(SYMS, false)
  core._sweep_prog_add(prog, g._h, (g:step_options { inference = true }), 1)
  core.sweep_prog_finish(prog)
  require("dlbench.memory").account()  -- the program's C bytes, seen by Lua's collector
  local comm, at = {}, {}
  for _, payload in pairs(g.serve.comm) do
    local k = tostring(payload)
    if at[k] then comm[at[k]][2] = comm[at[k]][2] + 1
    else comm[#comm + 1] = { payload, 1 }; at[k] = #comm end
  end
  P = { prog = prog, comm = comm }
  M.compiled_programs = M.compiled_programs + 1
  if nprograms >= 1024 then programs, nprograms = {}, 0 end
  programs[key], nprograms = P, nprograms + 1
  return P
end

local SVT = select(2, require("dlbench.desc").enum("DLB_SVT_"))

-- Whether configuration c's devices can be compiled: the C rule dlb_sweep_prog_serve refuses
-- them by (core.sweep_serve_refusal: the host model, host_op or host_layer, needs the op
-- order and the layers' marks; cache-aware devices), else nil from M.compiled. The devices
-- asked are the ones M.compiled passes (one_roof for both where set).
local function compilable(c)
  for _, r in ipairs { c.one_roof or c.op_roof, c.one_roof or c.attn_roof } do
    if core.sweep_serve_refusal(r) then return false end
  end
  return true
end

-- The compiled steps of model s on configuration c: an object with step(B, n, p) (one
-- stage's step: {time, flops, bytes, comm, attn_time, attn_flops, attn_bytes, attn_ops,
-- attn_classes, kernels}), pipelined(B, n, p) (through the pipeline when pp > 1, as
-- M.pipelined) and attention(B, p) ({FLOPs, bytes, count} of the decode step's attention
-- kernel, as M.attention); nil where the devices cannot be compiled (M.step then).
function M.compiled(s, c)
  if not compilable(c) then return nil end
  local launch = c.cuda_graphs and 0 or c.launch
  local op, attn = c.one_roof or c.op_roof, c.one_roof or c.attn_roof
  local floor = 0
  if c.launch_mode == "overlap" then floor = launch
  else
    local o2, a2 = {}, {}
    for k, v in pairs(op) do o2[k] = v end
    for k, v in pairs(attn) do a2[k] = v end
    o2.kernel_overhead, a2.kernel_overhead = launch, launch
    op, attn = o2, a2
  end
  local function step(B, n, p, layers)
    local decode = n == 1
    if decode and s.window then p = math.min(p, s.window - 1) end
    local P = program(s, c, n, decode, { layers = layers })
    local u = s.experts and touched_experts(s, B * n) or 0
    local out = core.sweep_prog_serve(P.prog, { B, decode and p or 0, u }, op, attn, floor)
    local comm = 0
    for _, cm in ipairs(P.comm) do
      comm = comm + cm[2] * allreduce(c, cm[1]:eval { b = B, p = p, u = u })
    end
    return { time = out[SVT.time + 1] + comm + c.step_overhead, flops = out[SVT.flops + 1],
      bytes = out[SVT.bytes + 1], comm = comm, attn_time = out[SVT.attn_time + 1],
      attn_classes = out[SVT.attn_classes + 1], attn_flops = out[SVT.attn_flops + 1],
      attn_bytes = out[SVT.attn_bytes + 1], attn_ops = out[SVT.attn_ops + 1],
      kernels = out[SVT.kernels + 1] }
  end
  local C = { step = step }
  function C.pipelined(B, n, p)
    if c.pp == 1 then
      local r = step(B, n, p)
      r.latency = r.time
      return r
    end
    local m = math.min(c.microbatches, B)
    return pipe(s, c, step(B / m, n, p, s.layers / c.pp), B, n)
  end
  function C.attention(B, p)
    local r = step(B, 1, p)
    if r.attn_classes ~= 1 then
      error(c.fn .. ": the decode graph's attention kernels differ between layers", 0)
    end
    return { "attention", r.attn_flops, r.attn_bytes, r.attn_ops }, r
  end
  return C
end

return M
