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
-- Every result names the convention it used (r.mfu_convention).
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

-- Whether g is a zoo causal decoder (its attention masked: gpt, llama, moe); false else.
function M.causal(g)
  local m = type(g) == "table" and g.model
  return type(m) == "table" and CAUSAL[m.builder or ""] or false
end

-- The forward FLOPs of the attention score and value matmuls of a zoo decoder, per sample
-- (4 L q^2 H dh), and whether its attention is causal; nil for other graphs.
function M.attention_fwd(g, bind)
  local m = type(g) == "table" and g.model
  if type(m) ~= "table" or type(m.options) ~= "table" then return nil end
  local o = m.options
  local q = val(o.seq or o.context, bind)
  local L, H = val(o.layers, bind), val(o.heads, bind)
  local d = val(o.hidden, bind)
  local dh = val(o.dh, bind) or (d and H and d / H)
  if not (q and L and H and dh) then return nil end
  return 4 * L * q * q * H * dh, M.causal(g)
end

-- Tokens per sample of a zoo model (its sequence), or nil.
function M.tokens_per_sample(g, bind)
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

-- Model FLOPs per sample (or per step: pass samples = batch) and the convention's name.
--   fb: forward + backward FLOPs of the algorithmic step (no recompute) for `samples`
--   g, bind: the graph (a zoo model's options give the attention and the tokens)
--   params: the parameter count (6N)
function M.model_flops(fb, samples, g, bind, params, kind, attention)
  if kind == "6N" then
    local tps = M.tokens_per_sample(g, bind)
    if not (tps and params) then
      return nil, "6N needs a token model (a zoo transformer with seq) and its parameters"
    end
    return 6 * params * tps * samples, "6N: 6 x parameters x tokens (Kaplan et al. 2020)"
  end
  local a, causal = M.attention_fwd(g, bind)
  if a and causal and attention == "causal" then
    -- forward + backward of the two matmuls (backward = 2 x forward), half of it masked
    return fb - 0.5 * 3 * a * samples,
      "model FLOPs (fwd + bwd, no recompute; causal attention counted half)"
  end
  local what = (a and causal) and "causal attention counted full"
    or (a and "non-causal attention" or "attention as in the graph")
  return fb, "model FLOPs (fwd + bwd, no recompute; " .. what .. ")"
end

return M
