-- dlbench.mfu — the one model-FLOPs-utilisation convention (issue [18] item 7), used by
-- dlb.roofline.time and dlb.parallel.evaluate/plan:
--   MFU = model FLOPs / (time x peak x devices), where model FLOPs are the forward and
--   backward FLOPs of the algorithmic step: no recompute of any kind (neither a recompute
--   policy's forward nor FlashAttention's backward recompute, which fusion.c counts in
--   flops_recompute: both are hardware FLOPs, in HFU), no optimizer update;
--   attention_flops = "causal" (default): a causal decoder's attention score and value
--   matmuls count half (the masked half is not computed by a causal kernel; the
--   convention of FlashAttention-2, Dao 2023 sec. 4.1, and MaxText); "full": counted whole
--   (the convention of Narayanan et al. 2021 eq. 3 and of PaLM's 6N + 12 L H Q T,
--   Chowdhery et al. 2022 App. B);
--   mfu = "6N": 6 x parameters x tokens (Kaplan et al. 2020 sec. 2.1; every parameter,
--   embeddings included), for comparison with papers quoting it.
-- Every result names the convention it used (r.mfu_convention). A graph's attention comes
-- from its zoo model (M.attention_fwd), an imported graph's from its attention patterns and
-- the masks the ONNX importer read (g:attention; docs/import.md "Causal attention"); a layer
-- list's from its layers (flops_attn per layer,
-- `causal` and `seq` on the list: M.layers_attention), filled by dlb.parallel.layers.from_graph
-- from the same M.attention_layer, so every path counts the same model FLOPs. A step that does
-- not say its attention is counted as it is ("attention as in the graph/layers"); asking for
-- attention_flops = "causal" on it is an error (M.attention_option).
local M = {}

M.ATTENTION = { causal = true, full = true }
M.KINDS = { model = true, ["6N"] = true }
local CAUSAL = { gpt = true, llama = true, moe = true }

-- A number for a model option that may be a dim name bound in `bind`.
local function val(x, bind)
  if type(x) == "number" then return x end
  if type(x) == "string" and type(bind) == "table" then return tonumber(bind[x]) end
  return nil
end

-- Whether x is a layer list (dlb.parallel.layers.*) rather than a graph.
local function is_list(x)
  return type(x) == "table" and type(rawget(x, 1)) == "table" and type(x.ops) ~= "function"
end

-- Whether g is an imported graph (dlb.models.from_onnx: its g.import report). Its causality is
-- read from its masks (docs/import.md "Causal attention"): graphs/io/onnx_mask.c reads a
-- constant's triangle at import (GPT-2's tril buffer sliced and applied by Where, an additive
-- 0 / -inf triangle, Trilu of a fill, arange comparisons) and marks the masked scores, and
-- g:attention counts the attention patterns whose mask is so marked.
local function imported(g)
  return type(g) == "table" and not is_list(g) and type(rawget(g, "import")) == "table"
end

-- g:attention's counts (patterns, causal ones) of an imported graph, per graph generation
-- (g:stats asks M.causal at every call)
local counts = setmetatable({}, { __mode = "k" })
local function attention_counts(g)
  local gen = g:generation()
  local c = counts[g]
  if not (c and c.gen == gen) then
    local a = g:attention()
    c = { gen = gen, n = a.count, causal = a.causal }
    counts[g] = c
  end
  return c.n, c.causal
end

-- Whether g is a causal decoder: a zoo one (its attention masked: gpt, llama, moe), or an
-- imported graph whose every attention pattern has a mask read as causal; false else.
function M.causal(g)
  local m = type(g) == "table" and g.model
  if type(m) == "table" and CAUSAL[m.builder or ""] then return true end
  if imported(g) then
    local n, c = attention_counts(g)
    return n > 0 and c == n
  end
  return false
end

-- The forward FLOPs per sample of one block's attention score and value matmuls of a zoo
-- transformer (Q K^T and the probabilities times V: 2 x 2 q^2 H dh, the part a causal mask
-- halves), and whether its attention is causal; nil for other graphs. Layer lists carry it
-- per block (layer field flops_attn: dlb.parallel.layers.from_graph, layers.transformer_formula).
function M.attention_layer(g, bind)
  local m = type(g) == "table" and g.model
  if type(m) ~= "table" or type(m.options) ~= "table" then return nil end
  local o = m.options
  local q = val(o.seq or o.context, bind)
  local H = val(o.heads, bind)
  local d = val(o.hidden, bind)
  local dh = val(o.dh, bind) or (d and H and d / H)
  if not (q and H and dh) then return nil end
  return 4 * q * q * H * dh, M.causal(g)
end

-- The forward FLOPs of the attention score and value matmuls of a zoo decoder, per sample
-- (4 L q^2 H dh: L blocks of attention_layer), and whether its attention is causal; nil for
-- other graphs.
function M.attention_fwd(g, bind)
  if imported(g) then return M.imported_attention(g, bind) end
  local m = type(g) == "table" and g.model
  local L = type(m) == "table" and type(m.options) == "table" and val(m.options.layers, bind)
  local a, causal = M.attention_layer(g, bind)
  if not (a and L) then return nil end
  return L * a, causal
end

-- An imported graph's attention score and value matmuls' forward FLOPs at the bindings (its
-- own dims only; the step's, or a sample's with the batch dim bound to 1), and true, when
-- every attention pattern's mask is read as causal; nil otherwise (no pattern, or a mask not
-- read as causal: the importer cannot tell a mask it does not read from a non-causal one, so
-- such a graph does not say its attention), or when a dim is left unbound.
function M.imported_attention(g, bind)
  local n, c = attention_counts(g)
  if n == 0 or c < n then return nil end
  local b = {}
  if type(bind) == "table" then
    for _, d in ipairs(g:dims()) do if type(bind[d]) == "number" then b[d] = bind[d] end end
  end
  local f = g:attention(b).flops:number()
  if not f then return nil end
  return f, true
end

-- The samples dlb.roofline.time counts a step's model FLOPs for (model_flops' samples): a
-- zoo model's batch (a number, or its dim bound), else a bound `b`; an imported graph's
-- attention is counted at the step's bindings (M.imported_attention), so 1, but under 6N
-- (tokens per sample, which it has not); nil: not known.
function M.samples(g, bind, kind)
  local m = g and type(g.model) == "table" and type(g.model.options) == "table" and g.model.options
  local batch = m and (type(m.batch) == "number" and m.batch or (bind and tonumber(bind[m.batch])))
    or (bind and tonumber(bind.b))
  if not batch and kind ~= "6N" and imported(g) then return 1 end
  return batch
end

-- Layer i of a list, for an error: its index and name.
local function where(i, l)
  return string.format("layers[%d]%s", i, l.name ~= nil and (" (" .. tostring(l.name) .. ")") or "")
end

-- The attention of a layer list, per sample: the sum of its layers' flops_attn and the list's
-- `causal` (true: a causal decoder; false: not causal, or no attention); nil when the list
-- does not say (a hand-made list: no `causal`, or causal without any flops_attn).
function M.layers_attention(ls)
  local causal = rawget(ls, "causal")
  if type(causal) ~= "boolean" then return nil end
  local a, any = 0, false
  for i, l in ipairs(ls) do
    local f = type(l) == "table" and l.flops_attn
    if f ~= nil then
      -- the score and value matmuls are part of the layer's forward: more is a wrong list
      -- (it would make the model FLOPs, and MFU, negative)
      local ff = tonumber(l.flops_fwd) or 0
      if type(f) ~= "number" or not (f >= 0 and f <= ff) then
        error(string.format("%s: flops_attn must be a number >= 0 and at most the layer's "
          .. "flops_fwd (%g), got %s", where(i, l), ff, tostring(f)), 0)
      end
      a, any = a + f, true
    end
  end
  if causal and not any then return nil end
  return a, causal
end

-- A layer list's forward + backward FLOPs per sample without recompute: its layers'
-- flops_fwd + flops_bwd less the fused attention's backward recompute they hold
-- (flops_recompute: dlb.parallel.layers.from_graph), the fb of M.model_flops for a list.
function M.layers_fwdbwd(ls)
  local t = 0
  for i, l in ipairs(ls) do
    local r, fb = l.flops_recompute, tonumber(l.flops_bwd) or 0
    -- the recompute is part of the layer's backward: more is a wrong list (negative MFU)
    if r ~= nil and (type(r) ~= "number" or not (r >= 0 and r <= fb)) then
      error(string.format("%s: flops_recompute must be a number >= 0 and at most the layer's "
        .. "flops_bwd (%g), got %s", where(i, l), fb, tostring(r)), 0)
    end
    t = t + (l.flops_fwd or 0) + (l.flops_bwd or 0) - (r or 0)
  end
  return t
end

-- The words of a convention for a step that does not say its attention (a layer list without
-- flops_attn/causal, a graph that is not a zoo transformer, an imported graph), the one text
-- every path prints (M.model_flops, dlb.roofline.time).
function M.unsaid(src)
  if is_list(src) then return "attention as in the layers" end
  if imported(src) then
    return "attention as in the graph, counted whole: not every attention mask of the imported "
      .. "graph is read as causal, docs/import.md"
  end
  return "attention as in the graph"
end

-- The attention score and value matmuls' forward FLOPs per sample and whether they are
-- causal, of a graph (M.attention_fwd) or a layer list (M.layers_attention); nil: not said.
function M.attention_of(src, bind)
  if is_list(src) then return M.layers_attention(src) end
  return M.attention_fwd(src, bind)
end

-- Tokens per sample of a zoo model (its sequence) or of a layer list (its `seq`), or nil.
function M.tokens_per_sample(g, bind)
  if is_list(g) then
    local q = rawget(g, "seq")
    if q ~= nil and (type(q) ~= "number" or not (q > 0 and q < math.huge)) then
      error("the layer list's seq (tokens per sample) must be a finite number > 0, got "
        .. tostring(q), 0)
    end
    return q
  end
  local m = type(g) == "table" and g.model
  if type(m) ~= "table" or type(m.options) ~= "table" then return nil end
  return val(m.options.seq or m.options.context, bind)
end

-- Check the convention options; returns kind, attention.
function M.options(fname, kind, attention)
  kind = kind or "model"
  attention = attention or "causal"
  if not M.KINDS[kind] then
    error(fname .. ": mfu must be \"model\" or \"6N\", got " .. tostring(kind), 3)
  end
  if not M.ATTENTION[attention] then
    error(fname .. ": attention_flops must be \"causal\" or \"full\", got " .. tostring(attention), 3)
  end
  return kind, attention
end

-- Model FLOPs per sample (or per step: pass samples = batch), the convention's name, and
-- whether the step says its attention (false: the attention is counted as the step counts it).
--   fb: forward + backward FLOPs of the algorithmic step (no recompute) for `samples`
--   src, bind: the graph (a zoo model's options give the attention and the tokens) or a layer
--     list (its layers' flops_attn, its `causal` and `seq`: M.layers_attention), so a graph
--     and its layers (dlb.parallel.layers.from_graph) count the same model FLOPs
--   params: the parameter count (6N)
function M.model_flops(fb, samples, src, bind, params, kind, attention)
  local list = is_list(src)
  if kind == "6N" then
    local tps = M.tokens_per_sample(src, bind)
    if not (tps and params) then
      return nil, list and "6N needs the tokens per sample (the layer list's seq) and its parameters"
        or "6N needs a token model (a zoo transformer with seq) and its parameters", true
    end
    return 6 * params * tps * samples, "6N: 6 x parameters x tokens (Kaplan et al. 2020)", true
  end
  local a, causal = M.attention_of(src, bind)
  if a and causal and attention == "causal" then
    -- forward + backward of the two matmuls (backward = 2 x forward), half of it masked
    return fb - 0.5 * 3 * a * samples,
      "model FLOPs (fwd + bwd, no recompute; causal attention counted half)", true
  end
  local what = (a and causal) and "causal attention counted full"
    or (a == 0 and "no attention")
    or (a and "non-causal attention")
    or M.unsaid(src)
  return fb, "model FLOPs (fwd + bwd, no recompute; " .. what .. ")", a ~= nil
end

-- The one rule for the attention_flops option on every path, after model_flops said whether
-- the step knows its attention (`known`): not given, the entry for the result's defaults
-- (which says when the default causal convention could not be applied); given as "causal"
-- for a step that does not say its attention (a hand-made layer list, a graph that is not a
-- zoo transformer), an error -- the convention cannot be honoured, and MFU must not claim it.
-- "full" is always honoured: the FLOPs as the step counts them, attention whole.
function M.attention_option(fname, given, att, kind, known, list, level, src)
  if given == nil then
    if kind == "6N" then return "attention_flops " .. att .. " (not applied: 6N)" end
    if known then return "attention_flops " .. att end
    return "attention_flops " .. att .. " (not applied: the "
      .. (list and "layers do not say their attention" or imported(src)
        and "imported graph does not say whether its attention is causal (docs/import.md)"
        or "graph does not say its attention") .. ")"
  end
  if given == "causal" and kind ~= "6N" and not known then
    error(fname .. ": attention_flops = \"causal\" needs a step that says its attention: "
      .. (list and "layers with flops_attn per layer and causal = true|false on the list "
        .. "(dlb.parallel.layers.from_graph of a zoo transformer, layers.transformer, "
        .. "layers.transformer_formula)" or "a zoo transformer (dlb.models gpt, llama, moe, bert, ...)")
      .. "; without it MFU counts the attention as the step does (leave attention_flops out, or "
      .. "give \"full\")", level or 3)
  end
end

-- mfu = "6N" asked of a step without tokens per sample (neither a zoo transformer with seq
-- nor a layer list with seq): refused, as dlb.roofline.time leaves its MFU out.
function M.check_6N(fname, kind, src, bind, level)
  if kind == "6N" and not M.tokens_per_sample(src, bind) then
    error(fname .. ": mfu = \"6N\" needs the tokens per sample: a zoo transformer (its seq) "
      .. "or a layer list with seq (dlb.parallel.layers.from_graph, layers.transformer)", level or 3)
  end
end

return M
