-- dlbench.parallel_layer_ops — the per-op cost array of a graph's step for the planner
-- (dlb_par_op), with each op's marks: the attention core (what selective recompute runs
-- again), the tensor-parallel region, the Megatron-Core module and the MoE experts.
-- Used by dlbench.parallel_layers' from_graph (split out of it: one concept a file).
--   local LO = require "dlbench.parallel_layer_ops"
--   LO.OP (numbers per op); LO.core_ops(ops1, n); LO.region_ops(ops1, n, tpl, marks);
--   LO.module_ops(ops1, n, moe, marks); LO.ops_of(ops1, ops2, B, n, moe, marks, rep, mod)
local M = {}

-- The per-op costs of a step for the planner (dlb_par_op in graphs/parallel/dlb_parallel.h, 20
-- numbers per op, flat: OP): each op's layer (ops1.Lp: the C rule for an op outside every
-- scope, core.analysis_op_layer_placed / dlb_op_layer), phase (0
-- forward, 1 backward -- recompute ops count as backward --, 2 update), FLOPs and bytes per
-- sample and per step (from analyses at 1 and 2 samples, or one at B samples), and a
-- matmul's shape at one sample with the dim that grows with the samples and the dim
-- tensor parallelism splits: the heads (batch) of attention's batched matmuls, else the
-- larger of the other dims (Megatron's column-parallel n, row-parallel k); and whether the
-- op is a fused attention kernel (the analysis' kernel class, timed at the device's attn_eff);
-- its further host ops and kernels (core.analysis_op_more, the analysis at ops1's samples).
local OP = #require("dlbench.desc").fields("dlb_par_op")   -- numbers per op
M.OP = OP
-- Op j's matmul shape in an analysis' arrays, or nothing for an op that is not a matmul:
-- every op's read in one backend call (core.analysis_gemms: four zeros for a non-matmul, the
-- shapes core.analysis_gemm gives one op at a time), once per analysis; the core, region and
-- op passes below all read it. (A matmul whose four dims are all 0 reads as none: every
-- caller treats a shape without m > 0 as no matmul.)
local function gemm_of(ops, j)
  local c = ops.gemms
  if not c then c = require("dlbench.backend").analysis_gemms(ops.a); ops.gemms = c end
  local i = 4 * j
  local gm, gn, gk, gb = c[i - 3], c[i - 2], c[i - 1], c[i]
  if gm ~= 0 or gn ~= 0 or gk ~= 0 or gb ~= 0 then return gm, gn, gk, gb end
end

-- The attention core of each layer (Korthikanti et al. 2022 sec. 5: Q K^T, softmax, dropout,
-- attention over V -- what selective recompute runs again): a fused attention kernel, or,
-- unfused, the forward ops from a batched matmul (a batch of heads) through the next batched
-- matmul with a softmax between them (scale, mask, softmax, dropout in between). A batched
-- matmul without a softmax before the next one (an MoE block's experts) starts nothing.
-- Returns core[j] = true for those op indices (1-based) of the analysis arrays.
local function core_ops(ops1, n)
  local core = require "dlbench.backend"
  local Ph, Ly, Ty, Kn = ops1.P, ops1.Lp, ops1.T, ops1.K
  local marks, start, soft, layer = {}, nil, false, nil
  local tname = {}
  for j = 1, #Ph do
    local li = Ly[j] + 1
    if li ~= layer then start, soft, layer = nil, false, li end
    if Ph[j] == 0 then
      if Kn and Kn[j] == 1 then
        -- a fused attention kernel is the whole core: an open span (its chain's first
        -- batched matmul, left at zero cost by the fusion) ends here, or an MoE block's
        -- first expert matmul would close it over the projections, norm and router
        marks[j] = true
        start, soft = nil, false
      else
        local ty = Ty[j]
        local nm = tname[ty]
        if not nm then nm = core.graph_op_type_name(ty); tname[ty] = nm end
        local gm, _, _, gb = gemm_of(ops1, j)
        if gm and gm > 0 and gb and gb > 1 then
          if start and soft then
            for k = start, j do if Ph[k] == 0 then marks[k] = true end end
            start, soft = nil, false
          else
            start, soft = j, false
          end
        elseif nm == "softmax" and start then
          soft = true
        end
      end
    end
  end
  return marks
end

-- The ops of a Megatron tensor-parallel layer outside its tensor-parallel region (Shoeybi et
-- al. 2019 fig. 3; Korthikanti et al. 2022 sec. 4.2.2 and fig. 5): layer norm, and the bias,
-- dropout and residual add after a row-parallel matmul, run on the whole sequence on every
-- tensor rank (on 1/tp of it with sequence parallelism). Read from the op order of layers
-- tpl[li] (attention blocks without experts): forward, a weight matmul (an unbatched GEMM)
-- opens the region, and one after a nonlinearity (gelu, relu, silu, the attention core)
-- is the row-parallel matmul that closes it; backward, a weight matmul's gradient opens it
-- and a normalisation's gradient closes it (that op and the ones after it are outside).
-- Returns rep[j] = true for those op indices. An estimate from the op order.
local ACT = { gelu = true, relu = true, silu = true, swish = true, sigmoid = true, tanh = true,
  softmax = true }
local function region_ops(ops1, n, tpl, marks)
  local core = require "dlbench.backend"
  local Ph, Ly, Ty = ops1.P, ops1.Lp, ops1.T
  local rep, layer = {}, nil
  local inside, act = false, false
  local tname = {}
  for j = 1, #Ph do
    local li = Ly[j] + 1
    local ph = Ph[j]
    -- each layer's forward, then its backward (update ops between them change nothing)
    local key = ph == 1 and -li or (ph == 0 and li or layer)
    if key ~= layer then layer, inside, act = key, false, false end
    if tpl[li] and (ph == 0 or ph == 1) then
      local ty = Ty[j]
      local nm = tname[ty]
      if not nm then nm = core.graph_op_type_name(ty); tname[ty] = nm end
      local gm, _, _, gb = gemm_of(ops1, j)
      local weight = gm and gm > 0 and gb == 1
      if ph == 0 then
        if weight then
          if inside and act then inside, act = false, false   -- the row-parallel matmul
          else inside = true end
        elseif not inside then
          rep[j] = true
        elseif ACT[nm] or marks[j] then
          act = true
        end
      else
        if weight then inside = true
        elseif nm == "norm_bwd" or nm:find("norm", 1, true) then inside = false; rep[j] = true
        elseif not inside then rep[j] = true end
      end
    end
  end
  return rep
end

-- Megatron-Core's selective-recompute modules of each block's forward ops (dlb_par_op.module,
-- DLB_OPM_* in graphs/parallel/dlb_parallel.h; what recompute_modules reruns): in a layer with
-- an attention core (marks), the first norm after the core is the pre-MLP norm
-- (pre_mlp_layernorm); the ops after it, up to the residual add that ends a pre-norm block
-- (the layer's last forward op, when it is an add), are its MLP (a dense block) or its MoE
-- layer (moe[li]: router, dispatch, experts, combine), and in a MoE layer the ops between its
-- first and last expert matmul (named <layer>/experts/...) that are no expert matmul are the
-- experts' bias + activation (moe_act). Layers without an attention core (the embedding, the
-- head) have none. Returns mod[j] = DLB_OPM_* value for those op indices. An estimate from
-- the op order, as the tensor-parallel region above.
local OPM
local function module_ops(ops1, n, moe, marks)
  local core = require "dlbench.backend"
  if not OPM then OPM = core.enum_names("DLB_OPM_") end
  local Ph, Ly, Ty = ops1.P, ops1.Lp, ops1.T
  local fw, tname = {}, {}
  for j = 1, #Ph do
    local li = Ly[j] + 1
    if Ph[j] == 0 then
      local t = fw[li]
      if not t then t = {}; fw[li] = t end
      t[#t + 1] = j
    end
  end
  local function tn(j)
    local ty = Ty[j]
    local nm = tname[ty]
    if not nm then nm = core.graph_op_type_name(ty); tname[ty] = nm end
    return nm
  end
  local function expert_mm(j)
    local gm = gemm_of(ops1, j)
    return gm and gm > 0 and (core.analysis_op_name(ops1.a, j - 1) or ""):find("/experts/", 1, true)
  end
  local mod = {}
  for li = 1, n do
    local js = fw[li]
    local seen, at = false, nil
    for i, j in ipairs(js or {}) do
      if marks[j] then seen = true
      elseif seen and tn(j):find("norm", 1, true) then at = i; break end
    end
    if at then
      mod[js[at]] = OPM.pre_mlp_norm
      local last = #js
      if tn(js[last]) == "add" then last = last - 1 end
      local e1, e2
      for i = at + 1, last do
        mod[js[i]] = moe[li] and OPM.moe or OPM.mlp
        if moe[li] and expert_mm(js[i]) then e1 = e1 or i; e2 = i end
      end
      for i = (e1 or last) + 1, (e2 or 0) - 1 do
        if not expert_mm(js[i]) then mod[js[i]] = OPM.moe_act end
      end
    end
  end
  return mod
end

-- moe[layer]: true for a MoE layer (its experts' ops, named <layer>/experts/... by
-- dlb.models.moe, are flagged 2: the planner gives a rank experts/ep of them under ep);
-- marks[j]: op j of an attention core (flagged 3 unless fused, 1); rep[j]: outside the
-- tensor-parallel region; mod[j]: its Megatron-Core module (module_ops).
local function ops_of(ops1, ops2, B, n, moe, marks, rep, mod, sm)
  local F1, By1, Ph, Ly, Kn = ops1.F, ops1.B, ops1.P, ops1.Lp, ops1.K
  local F2, By2 = ops2 and ops2.F, ops2 and ops2.B
  local core = require "dlbench.backend"
  local flat, k = core.table_new(OP * #F1), 0   -- presized: OP numbers an op
  -- which ops are a MoE layer's experts (named <layer>/experts/...), read in one call
  local experts
  for i = 1, n do if moe[i] then experts = core.analysis_op_match(ops1.a, "/experts/"); break end end
  for j = 1, #F1 do
    local li = Ly[j] + 1
    local ph = Ph[j]
    ph = (ph == 2) and 2 or ((ph == 0) and 0 or 1)
    local fs, f0, bs, b0
    if ops2 then
      fs, f0 = F2[j] - F1[j], math.max(0, 2 * F1[j] - F2[j])
      bs, b0 = By2[j] - By1[j], math.max(0, 2 * By1[j] - By2[j])
      if fs < 0 then fs, f0 = 0, F1[j] end
      if bs < 0 then bs, b0 = 0, By1[j] end
    elseif ph == 2 then
      -- the optimizer's update at a numeric batch: once a step, whatever the samples (as at
      -- a symbolic batch, where it does not grow from 1 to 2 samples)
      fs, f0, bs, b0 = 0, F1[j], 0, By1[j]
    else
      fs, f0, bs, b0 = F1[j] / B, 0, By1[j] / B, 0
    end
    local m, nn, kk, bb, grow, split = 0, 0, 0, 0, 0, 0
    local gm, gn, gk, gb = gemm_of(ops1, j)
    if gm and gm > 0 and gn > 0 and gk > 0 and gb > 0 then
      -- (dims 1..4 are m, n, k, batch; written out, without a table an op)
      if ops2 then
        local hm, hn, hk, hb = gemm_of(ops2, j)
        if hm == nil then hm, hn, hk, hb = gm, gn, gk, gb end
        -- the first dim that doubles with the samples
        if hm == 2 * gm then grow = 1 elseif hn == 2 * gn then grow = 2
        elseif hk == 2 * gk then grow = 3 elseif hb == 2 * gb then grow = 4 end
      else
        grow = 1
        gm = gm / B   -- an estimate: the rows are the samples
        if gm < 1 then gm = 1 end
      end
      if grow == 4 and gb > 1 then
        split = 4
      else
        local best = -1   -- the largest dim but grow: k, then n, then m on ties
        if grow ~= 3 and gk > best then best, split = gk, 3 end
        if grow ~= 2 and gn > best then best, split = gn, 2 end
        if grow ~= 1 and gm > best then split = 1 end
      end
      m, nn, kk, bb = gm, gn, gk, gb
    end
    flat[k + 1], flat[k + 2], flat[k + 3], flat[k + 4] = li - 1, ph, fs, f0
    flat[k + 5], flat[k + 6], flat[k + 7], flat[k + 8] = bs, b0, m, nn
    flat[k + 9], flat[k + 10], flat[k + 11], flat[k + 12] = kk, bb, grow, split
    -- the analysis' kernel class: 1 a fused attention kernel, 2 a GEMM of the output layer
    -- (DLB_KERNEL_HEAD, graphs/step/output_layer.c: the planner's flag 5)
    local flag = (Kn and Kn[j] == 1) and 1 or ((Kn and Kn[j] == 2 and m > 0) and 5 or 0)
    if flag == 0 and moe[li] and experts[j] == 1 then
      flag = 2
    elseif flag == 0 and marks[j] then
      flag = 3
    end
    flat[k + 13] = flag
    flat[k + 14] = rep[j] and 1 or 0
    flat[k + 15] = mod[j] or 0
    -- Megatron's FusedScaleMaskSoftmax (sm: the profile's rule, softmax_ops below)
    local smk = sm and sm.kind[j]
    flat[k + 16], flat[k + 17], flat[k + 18] = smk or 0, smk and sm.heads[j] or 0, smk and sm.elems[j] or 0
    -- the further host ops and kernels a pass counts on it (more_ops, more_kernels)
    local Mo = ops1.Mo
    flat[k + 19], flat[k + 20] = Mo and Mo[2 * j - 1] or 0, Mo and Mo[2 * j] or 0
    k = k + OP
  end
  return flat
end

-- The fused softmax of each attention core under a profile whose stack runs Megatron's
-- FusedScaleMaskSoftmax (its `softmax_fallback`, megatron_lm.lua): the core's forward softmax
-- (kind 1) and the softmax gradient of its backward (kind 2), with the heads per sample the
-- planner's rule reads (dlb_par_op.softmax, graphs/parallel/planner_ops.c softmax_kernels), 0
-- when the kernel never runs: its keys sk outside the range (rule.seq_min < sk <=
-- rule.seq_max) or its queries sq not a multiple of rule.seq_multiple; no marks for a step
-- that is not 16-bit (input_in_float16 false: the eager path, without its casts -- not
-- counted) or a graph without a sequence length (seq: tokens per sample, dlbench.mfu; a ViT
-- here). causal: the step runs the pass softmax_causal (a causal decoder's upper-triangular
-- kernels, kinds 3 and 4: the fused kernels' bytes the graph counted, planner_ops.c
-- SOFTMAX_FUSED). B1: the samples ops1 was analysed at. Returns {kind = {[j] = 1 | 2 | 3 | 4},
-- heads = {[j] = }, elems = {[j] = its scores' elements per sample}} or nil.
local SIXTEEN = { mixed = true, mixed_bf16 = true, fp16 = true, bf16 = true }
local function softmax_ops(ops1, marks, rule, heads, seq, precision, causal, B1)
  if type(rule) ~= "table" or not SIXTEEN[precision] then return nil end
  if not (type(heads) == "number" and heads >= 1 and type(seq) == "number") then return nil end
  local core = require "dlbench.backend"
  local Ph, Ty = ops1.P, ops1.T
  B1 = B1 or 1
  -- Each marked forward softmax's own scores (review 16): the batched GEMM before it in its
  -- core (Q K^T: m query rows per head group, n keys, batch b x heads), so an encoder-decoder's
  -- decoder self-attention (tgt_seq^2) and cross-attention (tgt_seq x seq) count their own
  -- elements, and the kernel's rule reads their own sq and sk; its gradient, the backward op
  -- of that softmax ("<name>/grad", graphs/step/train.c SUF_GRAD): before this round every
  -- softmax_bwd of a layer with a core was marked, an MoE router's too (at the attention's
  -- size), and every softmax counted seq^2 per head.
  local kind, any, tname = {}, false, {}
  local per = {}      -- op index -> {elems per sample, whether the rule's sequence part holds}
  local byname = {}   -- a marked forward softmax's name -> its entry
  local c2 = causal and 2 or 0
  local last = {}     -- per layer: the last marked batched GEMM's elements (at B1 samples), n
  for j = 1, #Ph do
    local ty = Ty[j]
    local nm = tname[ty]
    if not nm then nm = core.graph_op_type_name(ty); tname[ty] = nm end
    local li = ops1.Lp[j] + 1
    if Ph[j] == 0 and marks[j] then
      local gm, gn, _, gb = gemm_of(ops1, j)
      if gm and gm > 0 and gb and gb > 1 then
        last[li] = { gm * gn * gb, gn }
      elseif nm == "softmax" and last[li] then
        local e, sk = last[li][1] / B1, last[li][2]
        local sq = e / (heads * sk)
        local ok = sk > rule.seq_min and sk <= rule.seq_max and sq % rule.seq_multiple == 0
        local x = { e, ok }
        per[j], kind[j], any = x, 1 + c2, true
        byname[core.analysis_op_name(ops1.a, j - 1)] = x
      end
    elseif Ph[j] == 1 and nm == "softmax_bwd" then
      local x = byname[(core.analysis_op_name(ops1.a, j - 1)):gsub("/grad$", "")]
      if x then per[j], kind[j], any = x, 2 + c2, true end
    end
  end
  if not any then return nil end
  local hs, el = {}, {}
  for j, x in pairs(per) do hs[j], el[j] = x[2] and heads or 0, x[1] end
  return { kind = kind, heads = hs, elems = el }
end

M.core_ops, M.region_ops, M.module_ops, M.ops_of = core_ops, region_ops, module_ops, ops_of
M.softmax_ops = softmax_ops
return M
