-- dlbench.te_fp8 — Transformer Engine's fp8 costs beyond the GEMMs, as ops of the training
-- step for the planner (dlb_par_op in graphs/parallel/dlb_parallel.h: memory-bound passes
-- timed by the one per-op rule, each a launch for the host model). An fp8 step runs the
-- linear layers' GEMMs on fp8 operands that Transformer Engine (TE) quantises from the bf16
-- activations, gradients and weights; the GEMMs themselves are the graph's (at the fp8 peak).
-- Per linear layer (a group of weight GEMMs that read one input: Megatron-Core fuses Q, K, V
-- into linear_qkv and gate + up into linear_fc1, TE's LayerNormLinear / GroupedLinear) and
-- per micro-batch, with e the elements of the tensor and a the activation bytes (2, bf16):
--   delayed scaling (te.recipe.DelayedScaling): the input X through one cast_transpose kernel
--     that also records the amax (transformer_engine/common/transpose/cast_transpose.cu:
--     reads a e, writes the fp8 rowwise copy and the transposed copy the wgrad GEMM reads,
--     2 e); after a norm, TE's LayerNormLinear writes the norm's output in fp8 itself
--     (layernorm_linear.py `with_quantized_norm`; normalization.cpp "Always used fused kernel
--     for FP8 delayed scaling"): the graph's norm already writes a e, so
--     what is left is the columnwise (transposed) copy, read e + write e, less the (a - 1) e
--     the norm no longer writes: (3 - a) e. The output gradient dY the same way in the
--     backward (cast_transpose, (a + 2) e). Grouped experts: one fused kernel for all the
--     local experts (pytorch/csrc/extensions/cast.cpp multi_quantize_impl:
--     nvte_multi_cast_transpose, "only ... for FP8 delayed scaling").
--   current scaling (te.recipe.Float8CurrentScaling, NeMo's "FP8-CS"): per tensor three
--     kernels (pytorch/csrc/quantizer.cpp Float8CurrentScalingQuantizer::quantize_impl:
--     nvte_compute_amax, reading a e; nvte_compute_scale_from_amax, a scalar; nvte_quantize_v2,
--     the cast (a + 2) e): the input is read twice. The norm is not fused
--     (pytorch/csrc/extensions/normalization.cpp `force_unfused_kernel`: the fused norm +
--     quantise kernel is used for delayed scaling only). Grouped experts: quantised one tensor at
--     a time (multi_quantize_impl's "Quantize kernels individually"): each kernel once per
--     local expert (op flag 4).
--   MXFP8 block scaling (te.recipe.MXFP8BlockScaling, Blackwell, "FP8-MX"): one kernel
--     writes the rowwise and the columnwise copies with an E8M0 scale per 32 elements each
--     (common/util/cast_kernels.cuh, cast_mxfp8_2D_kernel): reads a e, writes 2 e + 2 e / 32.
--     Not fused with the norm (normalization.cpp: only with NVTE_NORM_FWD_USE_CUDNN set and
--     full 128-row tiles; not the default).
--     Grouped experts: per local expert (flag 4), as current scaling (TE releases of 2026 add
--     a grouped MXFP8 kernel, common/cast/mxfp8/group_quantize_mxfp8.cuh: not modelled).
-- Weights: Megatron-Core passes is_first_microbatch, so TE casts each weight once per step
-- and caches it (megatron/core/extensions/transformer_engine.py TELinear.forward,
-- `self.is_first_microbatch = False` after the first call; weight_cast "step": not counted,
-- the planner having no per-step op that ZeRO does not shard: 4 bytes a local parameter at
-- the HBM bandwidth, at most ~0.9% of a validation row's step, GPT-3 20B on 64 H100s at tp 2:
-- 10e9 x 4 B / 3.35 TB/s = 12 ms of 1.40 s; 0.1-0.2% on the others); a
-- stack that calls TE without it casts them every micro-batch (weight_cast "micro": one
-- pass of the recipe over the weights, a forward op per micro-batch).
-- Not counted: the delayed recipe's amax-history and scale update (one fused kernel and one
-- amax all-reduce per forward and backward, FP8GlobalStateManager.reduce_and_update_fp8_tensors),
-- the current recipe's amax all-reduce over the tensor group under sequence parallelism, and
-- the MXFP8 grouped GEMM's padding of each expert's rows to a multiple of 32.
-- Which linear layers: the weight GEMMs of the attention blocks (a layer with softmax and
-- matmul ops: dense and MoE transformer blocks) except a MoE block's router (its n is the
-- number of experts; Megatron-Core's TopKRouter is a plain linear, not TE). The embedding
-- and the output layer are not TE modules in Megatron-Core (its output layer is
-- tensor_parallel.ColumnParallelLinear): no casts there.
local M = {}

-- The scaling recipes (a profile's fp8.scaling; dlb.frameworks.derive(p, {fp8 = ...})).
M.SCALINGS = {
  delayed = "te.recipe.DelayedScaling: per-tensor scales from an amax history; one fused "
    .. "cast_transpose (amax recorded) per tensor",
  current = "te.recipe.Float8CurrentScaling: per-tensor scale from the tensor itself: amax "
    .. "pass, scale kernel, cast_transpose (the input read twice)",
  mxfp8 = "te.recipe.MXFP8BlockScaling: 1x32 block scales (E8M0), rowwise and columnwise "
    .. "copies in one kernel (Blackwell)",
}
-- How often the weights are cast (a profile's fp8.weight_cast).
M.WEIGHT_CASTS = {
  step = "once per step, cached across micro-batches (is_first_microbatch): not counted",
  micro = "every micro-batch (TE modules called without is_first_microbatch)",
}

local names = require("dlbench.graph_base").keys

-- A profile's TE fp8 recipe: scaling, weight_cast (nil when the profile has none, e.g.
-- torchao's float8 under torchtitan, which is not Transformer Engine). Checked.
function M.recipe(prof, fname)
  local f = type(prof) == "table" and prof.fp8 or nil
  if type(f) ~= "table" or f.scaling == nil then return nil end
  if not M.SCALINGS[f.scaling] then
    error(string.format("%s: profile %s's fp8.scaling '%s' is unknown; scalings: %s", fname,
      tostring(prof.name), tostring(f.scaling), names(M.SCALINGS)), 0)
  end
  local wc = f.weight_cast or "step"
  if not M.WEIGHT_CASTS[wc] then
    error(string.format("%s: profile %s's fp8.weight_cast '%s' is unknown; weight casts: %s",
      fname, tostring(prof.name), tostring(wc), names(M.WEIGHT_CASTS)), 0)
  end
  return f.scaling, wc
end

-- The kernels that quantise e elements of a-byte input under a scaling: a list of
-- {name, bytes per element, bytes per call}. fused: the input is a norm's output that TE's
-- LayerNormLinear quantises in the norm kernel (delayed scaling only).
function M.passes(scaling, a, fused)
  if scaling == "delayed" then
    if fused then return { { "fp8 transpose (norm writes fp8)", math.max(0, 3 - a), 0 } } end
    return { { "fp8 cast_transpose", a + 2, 0 } }
  elseif scaling == "current" then
    return { { "fp8 amax", a, 0 }, { "fp8 scale", 0, 8 }, { "fp8 cast_transpose", a + 2, 0 } }
  elseif scaling == "mxfp8" then
    return { { "mxfp8 quantize (rowwise + columnwise)", a + 2 + 2 / 32, 0 } }
  end
  error("te_fp8.passes: unknown scaling " .. tostring(scaling), 2)
end

local OP = require("dlbench.parallel_layers").OP   -- numbers per op in the planner's flat array (dlb_par_op)

-- The linear layers of a flat op array (parallel_layers' ops_of): groups of forward weight
-- GEMMs that read one input. layers[li] = {te = true for a TE block, tp = true for a
-- Megatron tensor-parallel block (its column-/row-parallel input rule), experts = E of a MoE
-- block}; tname(j) the type name of op j. Returns {li, m, k, b, n, flag, norm} per linear:
-- its GEMMs' rows, input width, batch (experts), summed output widths, op flag (2: experts),
-- and whether a norm's output is its input.
function M.linears(flat, layers, tname)
  local groups, cur, layer, prev_norm = {}, nil, nil, false
  for j = 1, math.floor(#flat / OP) do
    local k = (j - 1) * OP
    local li, ph = flat[k + 1] + 1, flat[k + 2]
    if li ~= layer then cur, layer, prev_norm = nil, li, false end
    local L = layers[li]
    if ph == 0 and L and L.te then
      local cost = flat[k + 3] > 0 or flat[k + 4] > 0 or flat[k + 5] > 0 or flat[k + 6] > 0
      local m, n, kk, b = flat[k + 7], flat[k + 8], flat[k + 9], flat[k + 10]
      local grow, flag = flat[k + 11], flat[k + 13]
      local nm = tname(j) or ""
      -- a weight GEMM: unbatched (flag 0; or 3, when the attention-core pass of
      -- parallel_layers ran on past a fused kernel into a MoE block), or the experts' (2)
      local weight = m > 0 and grow == 1 and (flag == 2 or ((flag == 0 or flag == 3) and b == 1))
      if weight and flag ~= 2 and L.experts and n == L.experts then weight = false end
      if weight and not cost then
        -- a GEMM run inside another (the fused QKV's k and v, fusion pass qkv: the first
        -- GEMM's shape holds the three widths, graphs/step/analysis.c op_gemm): counted there
      elseif weight then
        local ex = flag == 2 and 2 or 0
        if cur and cur.open and cur.m == m and cur.k == kk and cur.b == b and cur.flag == ex then
          cur.n = cur.n + n
        else
          cur = { li = li, m = m, k = kk, b = b, n = n, flag = ex, norm = prev_norm,
            open = true }
          groups[#groups + 1] = cur
        end
        prev_norm = false
      elseif m > 0 or nm:find("norm", 1, true) then
        -- another matmul (the attention core's, the router) or a norm: the next weight
        -- GEMM reads another tensor
        if cur then cur.open = false end
        prev_norm = cost and nm:find("norm", 1, true) ~= nil
      elseif cost then
        prev_norm = false
      end
    end
  end
  return groups
end

-- Append the TE fp8 ops of scaling / weight_cast to a flat op array, each layer's after its
-- own ops. a: activation bytes. Returns the new array and {linears = , ops = } counts.
function M.add_ops(flat, layers, tname, a, scaling, weight_cast)
  local groups = M.linears(flat, layers, tname)
  local extra = {}   -- per layer: its TE ops, flat
  local nops = 0
  local function op(li, phase, bs, b0, flag, batch, rep)
    if not (bs > 0 or b0 > 0) then return end
    local t = extra[li]
    if not t then t = {}; extra[li] = t end
    local k = #t
    t[k + 1], t[k + 2], t[k + 3], t[k + 4], t[k + 5], t[k + 6] = li - 1, phase, 0, 0, bs, b0
    t[k + 7], t[k + 8], t[k + 9], t[k + 10], t[k + 11], t[k + 12] = 0, 0, 0, batch, 0, 0
    -- module 0: a recomputed module's quantisation kernels are not run again (not modelled)
    t[k + 13], t[k + 14], t[k + 15] = flag, rep, 0
    t[k + 16], t[k + 17], t[k + 18] = 0, 0, 0   -- no fused softmax
    t[k + 19], t[k + 20] = 0, 0                 -- no further host ops or kernels
    nops = nops + 1
  end
  for _, g in ipairs(groups) do
    local L = layers[g.li]
    local ex, ey, w = g.m * g.k * g.b, g.m * g.n * g.b, g.k * g.n * g.b
    -- grouped experts: one fused kernel for all (delayed) or one per local expert
    local flag, batch = 0, 0
    if g.flag == 2 then
      if scaling == "delayed" then flag = 2 else flag, batch = 4, g.b end
    end
    -- Megatron's column-parallel linear (widening: linear_qkv, linear_fc1) reads the whole
    -- input on every tensor rank (its shard under sequence parallelism, quantised before
    -- the all-gather) and its output gradient is split; a row-parallel one (linear_proj,
    -- linear_fc2: n <= k) the reverse
    local col = g.n > g.k
    local repx = (L.tp and col) and 1 or 0
    local repy = (L.tp and not col) and 1 or 0
    for _, p in ipairs(M.passes(scaling, a, g.norm and scaling == "delayed")) do
      op(g.li, 0, ex * p[2], p[3], flag, batch, repx)
    end
    for _, p in ipairs(M.passes(scaling, a, false)) do
      op(g.li, 1, ey * p[2], p[3], flag, batch, repy)
    end
    if weight_cast == "micro" then
      for _, p in ipairs(M.passes(scaling, a, false)) do
        op(g.li, 0, 0, w * p[2] + p[3], flag, batch, 0)
      end
    end
  end
  if nops == 0 then return flat, { linears = #groups, ops = 0 } end
  -- the merged array, presized (core.table_new); n: #out, counted, not measured an element
  local out, n, layer = require("dlbench.backend").table_new(#flat + OP * nops), 0, nil
  local function flush(li)
    local t = li and extra[li]
    if t then for i = 1, #t do out[n + i] = t[i] end; n = n + #t; extra[li] = nil end
  end
  for j = 1, math.floor(#flat / OP) do
    local k = (j - 1) * OP
    local li = flat[k + 1] + 1
    if li ~= layer then flush(layer); layer = li end
    for i = 1, OP do out[n + i] = flat[k + i] end
    n = n + OP
  end
  flush(layer)
  -- layers without ops of their own (none in a graph's list) keep theirs at the end
  local rest = {}
  for li in pairs(extra) do rest[#rest + 1] = li end
  table.sort(rest)
  for _, li in ipairs(rest) do flush(li) end
  return out, { linears = #groups, ops = nops }
end

-- Add the casts to a layer list from parallel_layers.from_graph (its `ops`, in place) and
-- record the recipe in ls.fp8. c: fp8 (the option: true), prof (the profile the layers are
-- built under, or nil), precision (the graph's), kinds[i] (layer i's forward op type
-- names), tpl[i] (a Megatron tensor-parallel block), types (the op type ids). Raises a
-- message (without a prefix) on a bad option or a profile without a TE recipe.
function M.apply(ls, c)
  if c.fp8 ~= true then error("fp8 must be true (the profile's fp8 recipe) or false, got " .. tostring(c.fp8), 0) end
  local scaling, wc = nil, nil
  if c.prof then
    local ok, s, w = pcall(M.recipe, c.prof, "fp8=true")
    if not ok then error(s, 0) end
    scaling, wc = s, w
  end
  if not scaling then
    error("fp8=true needs framework= a profile with a Transformer Engine fp8 recipe "
      .. "(fp8.scaling: delayed, current or mxfp8; e.g. nemo, megatron-core, or "
      .. "dlb.frameworks.derive(p, {fp8 = {scaling = ...}})), got "
      .. (c.prof and ("profile " .. c.prof.name .. " without one") or "no profile"), 0)
  end
  local p = c.precision
  if p ~= "mixed_bf16" and p ~= "bf16" and p ~= "mixed" then
    error("fp8=true quantises 16-bit activations: precision must be mixed_bf16, bf16 or mixed "
      .. "(the graph's own precision \"fp8\" stores 1-byte activations), got " .. tostring(p), 0)
  end
  local L = {}
  for i = 1, #ls do
    local k = c.kinds[i]
    if k.softmax and k.matmul and (ls[i].params or 0) > 0 then
      L[i] = { te = true, tp = c.tpl[i] or nil, experts = ls[i].experts }
    end
  end
  local core = require "dlbench.backend"
  local tn = {}
  local info
  ls.ops, info = M.add_ops(ls.ops, L, function(j)
    local ty = c.types[j]
    local nm = tn[ty]
    if not nm then nm = core.graph_op_type_name(ty); tn[ty] = nm end
    return nm
  end, 2, scaling, wc)
  ls.fp8 = { scaling = scaling, weight_cast = wc, linears = info.linears, ops = info.ops }
  return ls
end

return M
