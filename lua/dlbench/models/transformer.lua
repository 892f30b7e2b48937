-- dlbench.models.transformer — the transformer family: Vaswani's encoder-decoder (base,
-- big), BERT, GPT-2/GPT-3, a Llama-style decoder (RMSNorm, SwiGLU, grouped-query attention,
-- rotary embeddings), ViT and a mixture-of-experts decoder. Batch and sequence may be
-- symbolic ("b", "q"); attention is full (causal masks change no FLOPs in this count, as
-- in Kaplan et al. 2020 and Narayanan et al. 2021).
local C = require "dlbench.models.common"
local nn = require "dlbench.nn"
local graph = require "dlbench.graph"
local poly = require "dlbench.poly"
local doc = require "dlbench.doc"

local M = {}
local OPT = C.OPTIMIZERS -- the C enum DLB_OPT_*, in its order

local function div(a, k)
  if type(a) == "number" then return a / k end
  return tostring(poly.new(a) / k)
end

-- Multi-head attention. x [b, q, d]; kv (optional) [b, s, d] for cross-attention.
-- a = {b=, q=, s=, d=, heads=, kv_heads=, dh=, bias=, qkv_bias=, rotary=, name=}
-- (qkv_bias: biases on q, k and v only, as Qwen2's attention)
-- Grouped-query attention: the G = heads/kv_heads query heads sharing a K/V head are laid
-- out as one [G*q, dh] block per K/V head, so scores and context cost exactly
-- 2*heads*q*s*dh each without repeating K and V.
-- Dropout as Megatron keeps it (Korthikanti et al. 2022, sec. 4.1): y = x * mask with a
-- 1-byte mask per element saved for the backward pass (dx = dy * mask), 1 FLOP per element.
-- The mask is a random source tensor of the step (dtype int8).
local function dropout(g, x, dims, name)
  local m = g:tensor(name .. "/mask", dims, { role = "activation", dtype = "int8" })
  return g:mul(x, m, name)
end
M.dropout = dropout

local function attention(g, x, a, kv)
  local b, q, s, H, KV, dh = a.b, a.q, a.s or a.q, a.heads, a.kv_heads or a.heads, a.dh
  local G = H / KV
  local name = a.name
  local src = kv or x
  local qkvb = a.bias or a.qkv_bias or false
  local Q = nn.linear(g, x, H * dh, { name = name .. "/q", bias = qkvb })
  local K = nn.linear(g, src, KV * dh, { name = name .. "/k", bias = qkvb })
  local V = nn.linear(g, src, KV * dh, { name = name .. "/v", bias = qkvb })
  Q = g:transpose(g:reshape(Q, { b, q, KV, G, dh }), { 1, 3, 4, 2, 5 })  -- [b, KV, G, q, dh]
  K = g:transpose(g:reshape(K, { b, s, KV, dh }), { 1, 3, 2, 4 })        -- [b, KV, s, dh]
  V = g:transpose(g:reshape(V, { b, s, KV, dh }), { 1, 3, 2, 4 })
  if a.rotary then
    -- rotary embeddings: x*cos + rotate_half(x)*sin; the rotation is a permutation with a
    -- sign flip (0 FLOPs here), so 3 FLOPs per element of q and k
    local cos = g:tensor(name .. "/rope_cos", { q, dh }, { role = "activation" })
    local sin = g:tensor(name .. "/rope_sin", { q, dh }, { role = "activation" })
    Q = g:add(g:mul(Q, cos), g:mul(Q, sin), name .. "/rope_q")
    K = g:add(g:mul(K, cos), g:mul(K, sin), name .. "/rope_k")
  end
  Q = g:reshape(Q, { b, KV, C.mul(G, q), dh })
  local scores = g:matmul(Q, K, { transpose_b = true, name = name .. "/scores" })  -- [b, KV, G*q, s]
  local p = g:softmax(g:scale(scores, name .. "/scale"), name .. "/softmax")
  if a.dropout then p = dropout(g, p, { b, KV, C.mul(G, q), s }, name .. "/attn_dropout") end
  local ctx = g:matmul(p, V, { name = name .. "/context" })                      -- [b, KV, G*q, dh]
  ctx = g:transpose(g:reshape(ctx, { b, KV, G, q, dh }), { 1, 4, 2, 3, 5 })     -- [b, q, KV, G, dh]
  ctx = g:reshape(ctx, { b, q, H * dh })
  local out = nn.linear(g, ctx, a.d, { name = name .. "/out", bias = a.bias })
  if a.dropout then out = dropout(g, out, { b, q, a.d }, name .. "/out_dropout") end
  return out
end
M.attention = attention

local function mlp(g, x, d, ff, act, bias, name)
  local h = nn.linear(g, x, ff, { name = name .. "/fc1", bias = bias })
  h = act == "relu" and g:relu(h) or g:gelu(h)
  return nn.linear(g, h, d, { name = name .. "/fc2", bias = bias })
end

local function swiglu(g, x, d, ff, name, bias)
  local gate = nn.linear(g, x, ff, { name = name .. "/gate", bias = bias or false })
  local up = nn.linear(g, x, ff, { name = name .. "/up", bias = bias or false })
  return nn.linear(g, g:mul(g:silu(gate), up), d, { name = name .. "/down", bias = bias or false })
end

-- The MLP's output dropout (a.dropout): [b, q, d].
local function mlp_drop(g, y, a, name)
  if a.dropout then return dropout(g, y, { a.b, a.q, a.d }, name .. "/mlp_dropout") end
  return y
end

-- A pre-LN block (GPT-2, ViT): x + attn(ln(x)); x + mlp(ln(x)). With a.dropout: dropout on
-- the attention probabilities, the attention output and the MLP output (Megatron's).
-- act "swiglu": a SwiGLU MLP with biases (timm's SwiGLUPacked, DINOv2's ViT-g/14: fc1 to
-- 2 x ff chunked into gate and up, silu(gate) x up, fc2 from ff; built as two linears, the same
-- parameters and saved tensors). a.layerscale: each branch scaled by a learned vector of d
-- (LayerScale, Touvron et al. 2021, CaiT; DINOv2's init_values), whose product saves its input.
local function preln_block(g, x, a, ff, act, name)
  g:layer(name)
  a.name = name .. "/attn"
  local function scaled(y, ls)
    if not a.layerscale then return y end
    return g:mul(y, g:weight(name .. "/" .. ls .. "/gamma", { a.d }))
  end
  x = g:add(x, scaled(attention(g, nn.layernorm(g, x, { name = name .. "/ln1" }), a), "ls1"))
  local h = nn.layernorm(g, x, { name = name .. "/ln2" })
  h = act == "swiglu" and swiglu(g, h, a.d, ff, name .. "/mlp", a.bias)
    or mlp(g, h, a.d, ff, act, a.bias, name .. "/mlp")
  x = g:add(x, scaled(mlp_drop(g, h, a, name), "ls2"))
  return x
end

-- A post-LN block (BERT, Vaswani): ln(x + attn(x)); [ln(x + cross(x, mem))]; ln(x + mlp(x)).
local function postln_block(g, x, a, ff, act, name, mem, ca)
  g:layer(name)
  a.name = name .. "/attn"
  x = nn.layernorm(g, g:add(x, attention(g, x, a)), { name = name .. "/ln1" })
  if mem then
    ca.name = name .. "/cross"
    x = nn.layernorm(g, g:add(x, attention(g, x, ca, mem)), { name = name .. "/ln_cross" })
  end
  x = nn.layernorm(g, g:add(x, mlp_drop(g, mlp(g, x, a.d, ff, act, a.bias, name .. "/mlp"), a, name)), { name = name .. "/ln2" })
  return x
end

-- A language model's output layer, lm_head: logits over the vocabulary V from x, through the
-- token embedding emb when tied (x emb^T), else an unbiased linear layer of its own.
local function lm_head(g, x, emb, V, tied)
  if tied then return g:matmul(x, emb, { transpose_b = true, name = "lm_head" }) end
  return nn.linear(g, x, V, { name = "lm_head", bias = false })
end

-- Resolve a size table: opts.size names a preset; explicit options override it.
local function preset(o, sizes, what, spec, keys)
  local p = {}
  if o.size ~= nil then
    p = sizes[o.size]
    if not p then
      local names = {}
      for k in pairs(sizes) do names[#names + 1] = tostring(k) end
      table.sort(names)
      C.fail(what, spec, "size=\"" .. tostring(o.size) .. "\" is not one of " .. table.concat(names, ", "))
    end
  end
  local preset_of, custom = {}, false
  for _, k in ipairs(keys) do
    if o[k] == nil and p[k] ~= nil then o[k], preset_of[k] = p[k], true
    elseif o[k] ~= nil and o[k] ~= p[k] then custom = true end
  end
  -- "heads=12 (from size="base")": where a value in a message came from
  local function v(k)
    return k .. "=" .. tostring(o[k]) .. (preset_of[k] and (" (from size=\"" .. tostring(o.size) .. "\")") or "")
  end
  if o.heads and type(o.hidden) == "number" and o.dh == nil then
    if o.hidden % o.heads ~= 0 then C.fail(what, spec, v("hidden") .. " is not divisible by " .. v("heads")) end
    o.dh = o.hidden / o.heads
  end
  return o, v, custom
end

-- The graph's name: family-size for a preset ("llama-7b"), the family alone when a shape
-- option overrides the preset (a 2-layer llama{hidden = 512} was named "llama-7b" in every
-- table, serving result and plot label).
local function model_name(family, o, custom)
  if custom or o.size == nil then return family end
  return family .. "-" .. o.size
end

-- -- GPT --

local GPT_SIZES = {
  -- GPT-2 (Radford et al. 2019, Table 2; n_ctx 1024)
  ["gpt2"] = { layers = 12, hidden = 768, heads = 12, context = 1024 },
  ["gpt2-small"] = { layers = 12, hidden = 768, heads = 12, context = 1024 },
  ["gpt2-medium"] = { layers = 24, hidden = 1024, heads = 16, context = 1024 },
  ["gpt2-large"] = { layers = 36, hidden = 1280, heads = 20, context = 1024 },
  ["gpt2-xl"] = { layers = 48, hidden = 1600, heads = 25, context = 1024 },
  -- GPT-3 (Brown et al. 2020, Table 2.1; n_ctx 2048). XL: the table's 24 heads of 128 do
  -- not multiply to d_model 2048; 16 heads of 128 are used. 13B: d_model 5120 (40 x 128),
  -- the table prints 5140.
  ["gpt3-small"] = { layers = 12, hidden = 768, heads = 12, context = 2048 },
  ["gpt3-medium"] = { layers = 24, hidden = 1024, heads = 16, context = 2048 },
  ["gpt3-large"] = { layers = 24, hidden = 1536, heads = 16, context = 2048 },
  ["gpt3-xl"] = { layers = 24, hidden = 2048, heads = 16, context = 2048 },
  ["gpt3-2.7b"] = { layers = 32, hidden = 2560, heads = 32, context = 2048 },
  ["gpt3-6.7b"] = { layers = 32, hidden = 4096, heads = 32, context = 2048 },
  ["gpt3-13b"] = { layers = 40, hidden = 5120, heads = 40, context = 2048 },
  ["gpt3-175b"] = { layers = 96, hidden = 12288, heads = 96, context = 2048 },
}
M.gpt_sizes = GPT_SIZES

local GPT = {
  { "size", "gpt2", "str", "preset: gpt2[-small|-medium|-large|-xl], gpt3-small|-medium|-large|-xl|-2.7b|-6.7b|-13b|-175b" },
  { "batch", "b", "dim", "sequences per step" },
  { "seq", nil, "dim", "tokens per sequence (default: context); may be symbolic", { "steps" } },
  { "layers", nil, "count", "transformer blocks (overrides size)", { "depth" } },
  { "hidden", nil, "int", "d_model (overrides size)", { "width" } },
  { "heads", nil, "int", "attention heads (overrides size)" },
  { "ffn", nil, "int", "feed-forward width (default 4*hidden)" },
  { "context", nil, "int", "n_ctx: learned position embeddings" },
  { "vocab", 50257, "dim", "vocabulary (GPT-2 BPE)" },
  { "tied", true, "bool", "output layer shares the token embedding" },
  { "dropout", false, "bool", "dropout on attention probabilities, attention output and MLP output, 1-byte masks kept for backward (Korthikanti et al. 2022: 34sbh + 5as^2b bytes per layer at 16 bits)" },
  { "positions", true, "bool", "learned position embeddings (false: none, e.g. GPT-NeoX uses rotary)" },
  { "rotary", false, "bool", "rotary embeddings on q and k (GPT-NeoX; 3 FLOPs per element)" },
  { "optimizer", "adam", OPT, "default optimizer for g:stats" },
}

-- GPT-2/GPT-3 decoder (pre-LN blocks with biases, GELU MLP of 4*d, final LN, output tied
-- to the token embedding). GPT-3's alternating locally banded sparse attention is not
-- modelled (dense attention everywhere, as Kaplan's and Narayanan's formulas assume).
function M.gpt(opts)
  local what = "dlb.models.gpt"
  local o, from, custom = preset(C.options(opts, GPT, what), GPT_SIZES, what, GPT, { "layers", "hidden", "heads", "context" })
  local b, d, V = o.batch, o.hidden, o.vocab
  local q = o.seq or o.context
  if type(q) == "number" and q > o.context then C.fail(what, GPT, "seq=" .. q .. " exceeds " .. from("context")) end
  local g = C.graph((o.size and not custom) and o.size or "gpt", o, o.optimizer)
  g:layer("embedding")
  local ids = g:input("ids", { b, q }, "int32")
  local wte = g:weight("wte", { V, d })
  local x = g:embedding(ids, wte, "wte")
  if o.positions then
    local wpe = g:weight("wpe", { o.context, d })
    local pos = type(q) == "number" and q == o.context and wpe or g:slice(wpe, 1, 0, q, "wpe/positions")
    x = g:add(x, pos, "embed_add")
  end
  local a = { b = b, q = q, d = d, heads = o.heads, dh = o.dh, bias = true, rotary = o.rotary, dropout = o.dropout }
  local function hname(l) return "h" .. (l - 1) end
  x = C.blocks(g, x, o.layers, hname, function(l, y) return preln_block(g, y, a, o.ffn or 4 * d, "gelu", hname(l)) end)
  g:layer("output")
  x = nn.layernorm(g, x, { name = "ln_f" })
  local logits = lm_head(g, x, wte, V, o.tied)
  g:loss(g:softmax_xent(logits, g:label("labels", { b, q }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.gpt, "dlb.models.gpt{size=\"gpt2\", batch=\"b\", seq=context, layers=, hidden=, heads=, ffn=4*hidden, context=, vocab=50257, tied=true, positions=true, rotary=false} -> graph",
  "GPT-2 / GPT-3 decoder by size name or by layers/hidden/heads/context/vocab (gpt2: 124,439,808 params)")

-- -- BERT --

local BERT_SIZES = {
  base = { layers = 12, hidden = 768, heads = 12 },
  large = { layers = 24, hidden = 1024, heads = 16 },
}
local BERT = {
  { "size", "base", { "base", "large" }, "preset (Devlin et al. 2019)" },
  { "batch", "b", "dim", "sequences per step" },
  { "seq", 128, "dim", "tokens per sequence (phase 1: 128, phase 2: 512)", { "steps" } },
  { "masked", 20, "dim", "predicted (masked) positions per sequence (max_predictions_per_seq); at most seq" },
  { "layers", nil, "count", "encoder blocks", { "depth" } },
  { "hidden", nil, "int", "d_model", { "width" } },
  { "heads", nil, "int", "attention heads" },
  { "ffn", nil, "int", "feed-forward width (default 4*hidden)" },
  { "vocab", 30522, "dim", "WordPiece vocabulary" },
  { "positions", 512, "int", "learned position embeddings" },
  { "dropout", false, "bool", "dropout on attention probabilities, attention output and MLP output, 1-byte masks kept for backward (Korthikanti et al. 2022: 34sbh + 5as^2b bytes per layer at 16 bits)" },
  { "optimizer", "adam", OPT, "default optimizer for g:stats" },
}

-- BERT pre-training (BertForPreTraining): word + position + token-type embeddings with LN,
-- post-LN encoder blocks (GELU), pooler, masked-LM head (dense, GELU, LN, decoder tied to
-- the word embedding plus a bias) over the `masked` gathered positions, NSP head.
function M.bert(opts)
  local what = "dlb.models.bert"
  local o, _, custom = preset(C.options(opts, BERT, what), BERT_SIZES, what, BERT, { "layers", "hidden", "heads" })
  local b, q, d, V = o.batch, o.seq, o.hidden, o.vocab
  if type(q) == "number" and q > o.positions then C.fail(what, BERT, "seq=" .. q .. " exceeds positions=" .. o.positions) end
  if type(q) == "number" and type(o.masked) == "number" and o.masked > q then
    C.fail(what, BERT, "masked=" .. o.masked .. " exceeds seq=" .. q .. " (at most every token of a sequence is masked)")
  end
  local g = C.graph(model_name("bert", o, custom), o, o.optimizer)
  g:layer("embeddings")
  local wte = g:weight("embeddings/word", { V, d })
  local x = g:embedding(g:input("ids", { b, q }, "int32"), wte, "embeddings/word")
  local wpe = g:weight("embeddings/position", { o.positions, d })
  x = g:add(x, (type(q) == "number" and q == o.positions) and wpe or g:slice(wpe, 1, 0, q))
  x = g:add(x, nn.embedding(g, g:input("token_types", { b, q }, "int32"), 2, d, { name = "embeddings/token_type" }))
  x = nn.layernorm(g, x, { name = "embeddings/ln" })
  local a = { b = b, q = q, d = d, heads = o.heads, dh = o.dh, bias = true, dropout = o.dropout }
  local function lname(l) return "layer" .. (l - 1) end
  x = C.blocks(g, x, o.layers, lname, function(l, y) return postln_block(g, y, a, o.ffn or 4 * d, "gelu", lname(l)) end)
  -- NSP: pooler on the first token
  g:layer("pooler")
  local first = g:reshape(g:slice(x, 2, 0, 1), { b, d })
  local pooled = g:tanh(nn.linear(g, first, d, { name = "pooler" }))
  local nsp = nn.linear(g, pooled, 2, { name = "nsp" })
  local l_nsp = g:softmax_xent(nsp, g:label("nsp_labels", { b }), "nsp/loss")
  -- MLM over the masked positions, gathered from [b*q, d]
  g:layer("mlm")
  local flat = g:reshape(x, { C.mul(q, b), d })
  local m = g:embedding(g:input("masked_positions", { b, o.masked }, "int32"), flat, "mlm/gather")
  local t = nn.layernorm(g, g:gelu(nn.linear(g, m, d, { name = "mlm/transform" })), { name = "mlm/ln" })
  local logits = g:add(g:matmul(t, wte, { transpose_b = true, name = "mlm/decoder" }), g:weight("mlm/bias", { V }))
  local l_mlm = g:softmax_xent(logits, g:label("mlm_labels", { b, o.masked }), "mlm/loss")
  g:loss(g:add(l_mlm, l_nsp, "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.bert, "dlb.models.bert{size=\"base\"|\"large\", batch=\"b\", seq=128, masked=20, layers=, hidden=, heads=, ffn=, vocab=30522, positions=512} -> graph",
  "BERT pre-training graph (BertModel base: 109,482,240 params; with MLM+NSP heads 110,106,428)")

-- -- Llama --

local LLAMA_SIZES = {
  -- Touvron et al. 2023 (Llama 2), the released configs
  ["7b"] = { layers = 32, hidden = 4096, heads = 32, kv_heads = 32, ffn = 11008 },
  ["13b"] = { layers = 40, hidden = 5120, heads = 40, kv_heads = 40, ffn = 13824 },
  ["70b"] = { layers = 80, hidden = 8192, heads = 64, kv_heads = 8, ffn = 28672 },
}
local LLAMA = {
  { "size", "7b", { "7b", "13b", "70b" }, "Llama-2 preset" },
  { "batch", "b", "dim", "sequences per step" },
  { "seq", 4096, "dim", "tokens per sequence (Llama 2 context: 4096)", { "steps" } },
  { "layers", nil, "count", "decoder blocks", { "depth" } },
  { "hidden", nil, "int", "d_model", { "width" } },
  { "heads", nil, "int", "query heads" },
  { "kv_heads", nil, "int", "key/value heads (grouped-query attention; = heads for MHA)" },
  { "ffn", nil, "int", "SwiGLU inner width" },
  { "vocab", 32000, "dim", "vocabulary" },
  { "tied", false, "bool", "output layer shares the embedding" },
  { "qkv_bias", false, "bool", "biases on the q, k, v projections (Qwen2)" },
  { "optimizer", "adamw", OPT, "default optimizer for g:stats (AdamW, Touvron et al. 2023)" },
}

-- Llama-style decoder: pre-RMSNorm blocks without biases, rotary embeddings on q and k,
-- grouped-query attention, SwiGLU MLP, final RMSNorm, untied output.
function M.llama(opts)
  local what = "dlb.models.llama"
  local o, from, custom = preset(C.options(opts, LLAMA, what), LLAMA_SIZES, what, LLAMA, { "layers", "hidden", "heads", "kv_heads", "ffn" })
  if o.heads % o.kv_heads ~= 0 then C.fail(what, LLAMA, from("heads") .. " must be a multiple of " .. from("kv_heads")) end
  local b, q, d, V = o.batch, o.seq, o.hidden, o.vocab
  local g = C.graph(model_name("llama", o, custom), o, o.optimizer)
  g:layer("embedding")
  local emb = g:weight("embed_tokens", { V, d })
  local x = g:embedding(g:input("ids", { b, q }, "int32"), emb, "embed_tokens")
  local a = { b = b, q = q, d = d, heads = o.heads, kv_heads = o.kv_heads, dh = o.dh, bias = false,
              qkv_bias = o.qkv_bias, rotary = true }
  local function lname(l) return "layers." .. (l - 1) end
  x = C.blocks(g, x, o.layers, lname, function(l, y)
    local name = lname(l)
    g:layer(name)
    a.name = name .. "/attn"
    y = g:add(y, attention(g, nn.rmsnorm(g, y, { name = name .. "/input_norm" }), a))
    return g:add(y, swiglu(g, nn.rmsnorm(g, y, { name = name .. "/post_attention_norm" }), d, o.ffn, name .. "/mlp"))
  end)
  g:layer("output")
  x = nn.rmsnorm(g, x, { name = "norm" })
  local logits = lm_head(g, x, emb, V, o.tied)
  g:loss(g:softmax_xent(logits, g:label("labels", { b, q }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.llama, "dlb.models.llama{size=\"7b\"|\"13b\"|\"70b\", batch=\"b\", seq=4096, layers=, hidden=, heads=, kv_heads=, ffn=, vocab=32000, tied=false, qkv_bias=false} -> graph",
  "Llama-style decoder: RMSNorm, SwiGLU, GQA, rotary (Llama-2-7B: 6,738,415,616 params)")

-- -- ViT --

local VIT_SIZES = {
  ["b/16"] = { layers = 12, hidden = 768, heads = 12, ffn = 3072, patch = 16 },
  ["b/32"] = { layers = 12, hidden = 768, heads = 12, ffn = 3072, patch = 32 },
  ["l/16"] = { layers = 24, hidden = 1024, heads = 16, ffn = 4096, patch = 16 },
  ["l/32"] = { layers = 24, hidden = 1024, heads = 16, ffn = 4096, patch = 32 },
  ["h/14"] = { layers = 32, hidden = 1280, heads = 16, ffn = 5120, patch = 14 },
}
local VIT = {
  { "size", "b/16", { "b/16", "b/32", "l/16", "l/32", "h/14" }, "preset (Dosovitskiy et al. 2021, Table 1)" },
  { "batch", "b", "dim", "images per step" },
  { "image", 224, "int", "input height = width" },
  { "classes", 1000, "dim", "classifier outputs" },
  { "layers", nil, "count", "encoder blocks", { "depth" } },
  { "hidden", nil, "int", "d_model", { "width" } },
  { "heads", nil, "int", "attention heads" },
  { "ffn", nil, "int", "MLP width" },
  { "patch", nil, "int", "patch size" },
  { "dropout", false, "bool", "dropout on attention probabilities, attention output and MLP output, 1-byte masks kept for backward (Korthikanti et al. 2022: 34sbh + 5as^2b bytes per layer at 16 bits)" },
  { "mlp", "gelu", { "gelu", "swiglu" }, "MLP kind: GELU (ViT), or SwiGLU with biases of width ffn (DINOv2 ViT-g/14, timm's SwiGLUPacked: ffn = 4096)" },
  { "layerscale", false, "bool", "LayerScale: each residual branch times a learned vector of hidden (Touvron et al. 2021; DINOv2)" },
  { "optimizer", "adam", OPT, "default optimizer for g:stats" },
}

-- ViT (torchvision vit_b_16's definition): a conv patch embedding, a class token, learned
-- positions, pre-LN encoder blocks (GELU MLP), final LN, linear head on the class token.
function M.vit(opts)
  local what = "dlb.models.vit"
  local o, from, custom = preset(C.options(opts, VIT, what), VIT_SIZES, what, VIT, { "layers", "hidden", "heads", "ffn", "patch" })
  if o.image % o.patch ~= 0 then C.fail(what, VIT, "image=" .. o.image .. " must be a multiple of " .. from("patch")) end
  local b, d = o.batch, o.hidden
  local n = (o.image / o.patch) ^ 2
  local q = n + 1
  local g = C.graph(model_name("vit", o, custom), o, o.optimizer)
  g:layer("embedding")
  local img = g:input("images", { b, 3, o.image, o.image })
  local p = nn.conv2d(g, img, d, o.patch, { stride = o.patch, bias = true, name = "conv_proj" })
  p = g:transpose(g:reshape(p, { b, d, n }), { 1, 3, 2 })                   -- [b, n, d]
  local cls = g:weight("class_token", { 1, 1, d })
  local clsb = g:add(g:tensor("class_token/zeros", { b, 1, d }, { role = "activation" }), cls)
  local x = g:add(g:concat({ clsb, p }, 2), g:weight("pos_embedding", { q, d }))
  local a = { b = b, q = q, d = d, heads = o.heads, dh = o.dh, bias = true, dropout = o.dropout,
    layerscale = o.layerscale }
  local function lname(l) return "encoder_layer_" .. (l - 1) end
  x = C.blocks(g, x, o.layers, lname, function(l, y) return preln_block(g, y, a, o.ffn, o.mlp, lname(l)) end)
  g:layer("head")
  x = nn.layernorm(g, x, { name = "ln" })
  local c = g:reshape(g:slice(x, 2, 0, 1), { b, d })
  local logits = nn.linear(g, c, o.classes, { name = "head" })
  g:loss(g:softmax_xent(logits, g:label("labels", { b }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.vit, "dlb.models.vit{size=\"b/16\", batch=\"b\", image=224, classes=1000, layers=, hidden=, heads=, ffn=, patch=, mlp=\"gelu\"|\"swiglu\", layerscale=false} -> graph",
  "Vision Transformer (ViT-B/16: 86,567,656 params; DINOv2 ViT-g/14 at 224 with 45 classes, mlp=\"swiglu\", ffn=4096, layerscale: 1,134,838,829)")

-- -- Transformer (Vaswani) --

local TR_SIZES = {
  base = { layers = 6, hidden = 512, heads = 8, ffn = 2048 },
  big = { layers = 6, hidden = 1024, heads = 16, ffn = 4096 },
}
local TR = {
  { "size", "base", { "base", "big" }, "preset (Vaswani et al. 2017, Table 3)" },
  { "batch", "b", "dim", "sentence pairs per step" },
  { "seq", 64, "dim", "source tokens per sentence", { "steps" } },
  { "tgt_seq", nil, "dim", "target tokens (default: seq)", { "tgt_steps" } },
  { "layers", nil, "count", "encoder = decoder blocks", { "depth" } },
  { "hidden", nil, "int", "d_model", { "width" } },
  { "heads", nil, "int", "attention heads" },
  { "ffn", nil, "int", "feed-forward width" },
  { "vocab", 37000, "dim", "shared source-target BPE vocabulary (WMT En-De)" },
  { "dropout", false, "bool", "dropout on attention probabilities, attention output and MLP output, 1-byte masks kept for backward (Korthikanti et al. 2022: 34sbh + 5as^2b bytes per layer at 16 bits)" },
  { "optimizer", "adam", OPT, "default optimizer for g:stats" },
}

-- The encoder-decoder Transformer: shared embedding (tied with the output), sinusoidal
-- positions (no parameters; the add is counted), post-LN blocks with ReLU FFN, decoder
-- self-attention, cross-attention and FFN. With vocab 37000: base 63.1M, big 213.9M
-- parameters (the paper's "65M"/"213M" used a slightly different vocabulary).
function M.transformer(opts)
  local what = "dlb.models.transformer"
  local o, _, custom = preset(C.options(opts, TR, what), TR_SIZES, what, TR, { "layers", "hidden", "heads", "ffn" })
  local b, S, d, V = o.batch, o.seq, o.hidden, o.vocab
  local T = o.tgt_seq or S
  local g = C.graph(model_name("transformer", o, custom), o, o.optimizer)
  g:layer("embedding")
  local emb = g:weight("embedding", { V, d })
  local function embed(name, len)
    local x = g:embedding(g:input(name, { b, len }, "int32"), emb, name .. "/embed")
    x = g:scale(x, name .. "/scale")   -- sqrt(d_model)
    return g:add(x, g:tensor(name .. "/positions", { len, d }, { role = "activation" }), name .. "/add_pos")
  end
  local x = embed("src", S)
  local a = { b = b, q = S, d = d, heads = o.heads, dh = o.dh, bias = true, dropout = o.dropout }
  local function ename(l) return "encoder" .. (l - 1) end
  x = C.blocks(g, x, o.layers, ename, function(l, y) return postln_block(g, y, a, o.ffn, "relu", ename(l)) end)
  local mem = x
  local y = embed("tgt", T)
  local sa = { b = b, q = T, d = d, heads = o.heads, dh = o.dh, bias = true, dropout = o.dropout }
  local ca = { b = b, q = T, s = S, d = d, heads = o.heads, dh = o.dh, bias = true, dropout = o.dropout }
  for l = 1, o.layers do y = postln_block(g, y, sa, o.ffn, "relu", "decoder" .. (l - 1), mem, ca) end
  g:layer("output")
  local logits = g:matmul(y, emb, { transpose_b = true, name = "output" })
  g:loss(g:softmax_xent(logits, g:label("labels", { b, T }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.transformer, "dlb.models.transformer{size=\"base\"|\"big\", batch=\"b\", seq=64, tgt_seq=seq, layers=, hidden=, heads=, ffn=, vocab=37000} -> graph",
  "Vaswani et al.'s encoder-decoder Transformer")

-- -- MoE --

local MOE_SIZES = {
  -- Mixtral 8x7B (Jiang et al. 2024; the released config): Llama-style blocks, 8 SwiGLU
  -- experts per layer, top-2 routing
  ["mixtral-8x7b"] = { style = "llama", layers = 32, hidden = 4096, heads = 32, kv_heads = 8,
                       ffn = 14336, experts = 8, top_k = 2, vocab = 32000, seq = 4096 },
}
local MOE = {
  { "size", nil, "str", "preset: mixtral-8x7b (explicit options override it)" },
  { "style", "gpt", { "gpt", "llama" }, "gpt: LayerNorm, GELU experts with biases, learned positions, tied output; llama: RMSNorm, SwiGLU experts, rotary, GQA, untied" },
  { "batch", "b", "dim", "sequences per step" },
  { "seq", nil, "dim", "tokens per sequence (default 1024)", { "steps" } },
  { "layers", nil, "count", "decoder blocks (default 12)", { "depth" } },
  { "hidden", nil, "int", "d_model (default 768)", { "width" } },
  { "heads", nil, "int", "attention heads (default 12)" },
  { "kv_heads", nil, "int", "key/value heads (llama style; default heads)" },
  { "head_dim", nil, "int", "width of each head (default hidden/heads; Qwen3 MoE: 128 with hidden 2048 or 4096)" },
  { "ffn", nil, "int", "each expert's MLP width (default 3072)" },
  { "experts", nil, "int", "experts per MoE layer (default 8)" },
  { "top_k", nil, "int", "experts each token is routed to (default 2)" },
  { "every", 1, "int", "every n-th block is MoE (the others dense); 1 = all; at most layers" },
  { "vocab", nil, "dim", "vocabulary (default 50257)" },
  { "optimizer", "adam", OPT, "default optimizer for g:stats" },
}
-- The batched matmul of E experts [E, cap, nin] x [E, nin, nout], named after its weight
-- (h0/experts/w1 ...), so LoRA targets experts by name as PEFT does Mixtral's w1, w2, w3: under
-- g:lora each expert gets its own adapters, A [E, nin, r] and B [E, r, nout] (Hu et al. 2021).
local function expert_mm(g, x, w, name, E, nin, nout)
  local y = g:matmul(x, w, { name = name })
  if rawget(g, "_lora") and graph.lora_target(g, name) then
    local lo = g._lora
    local a = g:weight(name .. "/lora_A", { E, nin, lo.rank })
    local b = g:weight(name .. "/lora_B", { E, lo.rank, nout })
    local dd = g:matmul(g:matmul(x, a, { name = name .. "/lora_A" }), b, { name = name .. "/lora_B" })
    y = g:add(y, g:scale(dd, { name = name .. "/lora_scale" }), { name = name .. "/lora" })
  end
  return y
end

local MOE_DEFAULTS = { seq = 1024, layers = 12, hidden = 768, heads = 12, ffn = 3072, experts = 8,
                       top_k = 2, vocab = 50257 }

-- A decoder whose MLPs are mixture-of-experts layers (GShard/Switch/Mixtral): a router
-- (linear d -> experts, softmax; top-k selection is integer work, not counted), dispatch of
-- each token to its k experts (a gather), per-expert MLPs run as one batched matmul over
-- [experts, capacity, d] with capacity = k*tokens/experts (perfect balance), a gather back
-- and a gate-weighted sum. FLOPs therefore count only the routed experts (4*k*d*ffn per
-- token for GELU experts, 6*k*d*ffn for SwiGLU); parameters count all experts.
function M.moe(opts)
  local what = "dlb.models.moe"
  local o = C.options(opts, MOE, what)
  if o.size then
    local p = MOE_SIZES[o.size]
    if not p then C.fail(what, MOE, "size=\"" .. o.size .. "\" is not one of mixtral-8x7b") end
    for k, v in pairs(p) do
      if k == "style" then
        if not (opts or {}).style then o.style = v end
      elseif o[k] == nil then o[k] = v end
    end
  end
  for k, v in pairs(MOE_DEFAULTS) do if o[k] == nil then o[k] = v end end
  local llama = o.style == "llama"
  o.kv_heads = o.kv_heads or o.heads
  if o.top_k > o.experts then C.fail(what, MOE, "top_k=" .. o.top_k .. " exceeds experts=" .. o.experts) end
  if o.every > o.layers then
    C.fail(what, MOE, "every=" .. o.every .. " exceeds layers=" .. o.layers
      .. ": no block would be a MoE block (block l is MoE when l is a multiple of every)")
  end
  if not o.head_dim and o.hidden % o.heads ~= 0 then C.fail(what, MOE, "hidden=" .. o.hidden .. " is not divisible by heads=" .. o.heads .. " (or give head_dim=)") end
  if o.heads % o.kv_heads ~= 0 then C.fail(what, MOE, "heads=" .. o.heads .. " must be a multiple of kv_heads=" .. o.kv_heads) end
  o.dh = o.head_dim   -- the attention's head width (dlbench.mfu and the planner read dh)
  local b, q, d, V, E, k = o.batch, o.seq, o.hidden, o.vocab, o.experts, o.top_k
  local tokens = C.mul(q, b)
  local cap
  if type(tokens) == "number" then
    if (tokens * k) % E ~= 0 then
      C.fail(what, MOE, string.format("batch*seq*top_k = %s*%s*%d = %d is not divisible by experts=%d "
        .. "(each expert's capacity is batch*seq*top_k/experts tokens)", tostring(b), tostring(q), k, tokens * k, E))
    end
    cap = tokens * k / E
  else
    cap = tostring(poly.new(tokens) * k / E)
  end
  local g = C.graph(o.size or "moe", o, o.optimizer)
  local function norm(x, name)
    return llama and nn.rmsnorm(g, x, { name = name }) or nn.layernorm(g, x, { name = name })
  end
  g:layer("embedding")
  local wte = g:weight("wte", { V, d })
  local x = g:embedding(g:input("ids", { b, q }, "int32"), wte, "wte")
  if not llama then x = g:add(x, g:weight("wpe", { q, d })) end
  local a = { b = b, q = q, d = d, heads = o.heads, kv_heads = o.kv_heads, dh = o.head_dim or d / o.heads,
              bias = not llama, rotary = llama }
  for l = 1, o.layers do
    local name = "h" .. (l - 1)
    g:layer(name)
    a.name = name .. "/attn"
    x = g:add(x, attention(g, norm(x, name .. "/ln1"), a))
    local h = norm(x, name .. "/ln2")
    if l % o.every ~= 0 then
      x = g:add(x, llama and swiglu(g, h, d, o.ffn, name .. "/mlp") or mlp(g, h, d, o.ffn, "gelu", true, name .. "/mlp"))
    else
      h = g:reshape(h, { tokens, d })
      local gates = g:softmax(nn.linear(g, h, E, { name = name .. "/router", bias = false }))
      local disp = g:embedding(g:input(name .. "/dispatch", { E, cap }, "int32"), h, name .. "/dispatch")  -- [E, cap, d]
      local eo
      local ex = name .. "/experts/"
      if llama then
        local w1 = g:weight(ex .. "w1", { E, d, o.ffn })
        local w3 = g:weight(ex .. "w3", { E, d, o.ffn })
        local w2 = g:weight(ex .. "w2", { E, o.ffn, d })
        eo = expert_mm(g, g:mul(g:silu(expert_mm(g, disp, w1, ex .. "w1", E, d, o.ffn)),
          expert_mm(g, disp, w3, ex .. "w3", E, d, o.ffn)), w2, ex .. "w2", E, o.ffn, d)
      else
        local w1 = g:weight(ex .. "w1", { E, d, o.ffn })
        local b1 = g:weight(ex .. "b1", { E, 1, o.ffn })
        local w2 = g:weight(ex .. "w2", { E, o.ffn, d })
        local b2 = g:weight(ex .. "b2", { E, 1, d })
        eo = g:add(expert_mm(g, g:gelu(g:add(expert_mm(g, disp, w1, ex .. "w1", E, d, o.ffn), b1)),
          w2, ex .. "w2", E, o.ffn, d), b2)
      end
      local back = g:embedding(g:input(name .. "/combine", { tokens, k }, "int32"),
        g:reshape(eo, { C.mul(E, cap), d }), name .. "/combine")                       -- [tokens, k, d]
      -- gate weights of the chosen experts [tokens, k, 1], taken from the router softmax
      local topw = g:embedding(g:input(name .. "/topk", { tokens, k }, "int32"),
        g:reshape(gates, { C.mul(E, tokens), 1 }), name .. "/topk_gates")
      local y = g:sum(g:mul(back, topw), { axes = 2, name = name .. "/combine_sum" })   -- [tokens, d]
      x = g:add(x, g:reshape(y, { b, q, d }))
    end
  end
  g:layer("output")
  x = norm(x, "ln_f")
  local logits = lm_head(g, x, wte, V, not llama)
  g:loss(g:softmax_xent(logits, g:label("labels", { b, q }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.moe, "dlb.models.moe{size=, style=\"gpt\"|\"llama\", batch=\"b\", seq=1024, layers=12, hidden=768, heads=12, kv_heads=, ffn=3072, experts=8, top_k=2, every=1, vocab=50257} -> graph",
  "decoder with mixture-of-experts MLPs; FLOPs count only the top_k routed experts (mixtral-8x7b: 46,702,792,704 params)")


-- -- T5 --

local T5 = {
  { "batch", "b", "dim", "sequence pairs per step" },
  { "seq", 512, "dim", "encoder tokens per sequence", { "steps" } },
  { "tgt_seq", nil, "dim", "decoder tokens (default: seq)", { "tgt_steps" } },
  { "layers", 6, "count", "encoder blocks", { "depth" } },
  { "dec_layers", nil, "count", "decoder blocks (default: layers)" },
  { "hidden", 512, "int", "d_model", { "width" } },
  { "heads", 8, "int", "attention heads" },
  { "dkv", 64, "int", "key/value width per head (heads*dkv need not be d_model)" },
  { "ffn", 2048, "int", "feed-forward width" },
  { "vocab", 32128, "dim", "SentencePiece vocabulary" },
  { "buckets", 32, "int", "relative-position buckets (a [buckets, heads] bias, first block of each stack)" },
  { "gated", false, "bool", "gated-GELU feed-forward (T5 v1.1, Flan-T5): wi_0, wi_1, wo" },
  { "tied", true, "bool", "the output layer shares the embedding (T5 v1.0), scaled by d^-0.5" },
  { "optimizer", "adam", OPT, "default optimizer for g:stats (Adafactor in the paper)" },
}

-- T5 (Raffel et al. 2020, the Hugging Face T5ForConditionalGeneration): shared embedding,
-- pre-norm blocks with RMS norms and no biases, relative-position biases added to the
-- attention scores (one table per stack, in its first block; every block adds the bias),
-- no score scaling, ReLU (or gated-GELU) feed-forward, encoder-decoder with cross-attention.
function M.t5(opts)
  local what = "dlb.models.t5"
  local o = C.options(opts, T5, what)
  local b, S, d, H, dkv, V = o.batch, o.seq, o.hidden, o.heads, o.dkv, o.vocab
  local T = o.tgt_seq or S
  local inner = H * dkv
  local g = C.graph("t5", o, o.optimizer)
  g:layer("shared")
  local emb = g:weight("shared", { V, d })
  local function heads(t, n) return g:transpose(g:reshape(t, { b, n, H, dkv }), { 1, 3, 2, 4 }) end
  local function attn(x, kv, q, k, name, bias)
    local Q = heads(nn.linear(g, x, inner, { name = name .. "/q", bias = false }), q)
    local K = heads(nn.linear(g, kv, inner, { name = name .. "/k", bias = false }), k)
    local Vv = heads(nn.linear(g, kv, inner, { name = name .. "/v", bias = false }), k)
    local sc = g:matmul(Q, K, { transpose_b = true, name = name .. "/scores" })   -- [b, H, q, k]
    if bias then sc = g:add(sc, bias, name .. "/position_bias") end
    local ctx = g:matmul(g:softmax(sc, name .. "/softmax"), Vv, { name = name .. "/context" })
    ctx = g:reshape(g:transpose(ctx, { 1, 3, 2, 4 }), { b, q, inner })
    return nn.linear(g, ctx, d, { name = name .. "/o", bias = false })
  end
  local function relbias(name, q, k)
    local rel = g:weight(name .. "/relative_attention_bias", { o.buckets, H })
    local e = g:embedding(g:input(name .. "/buckets", { q, k }, "int32"), rel, name .. "/relative_attention_bias")
    return g:transpose(e, { 3, 1, 2 })                                                  -- [H, q, k]
  end
  local function ffn(x, name)
    if o.gated then
      local h = g:mul(g:gelu(nn.linear(g, x, o.ffn, { name = name .. "/wi_0", bias = false })),
        nn.linear(g, x, o.ffn, { name = name .. "/wi_1", bias = false }))
      return nn.linear(g, h, d, { name = name .. "/wo", bias = false })
    end
    return nn.linear(g, g:relu(nn.linear(g, x, o.ffn, { name = name .. "/wi", bias = false })), d,
      { name = name .. "/wo", bias = false })
  end
  local x = g:embedding(g:input("input_ids", { b, S }, "int32"), emb, "encoder/embed")
  local pb
  for l = 1, o.layers do
    local n = "encoder.block." .. (l - 1)
    g:layer(n)
    if l == 1 then pb = relbias("encoder", S, S) end
    local h = nn.rmsnorm(g, x, { name = n .. "/ln_attn" })
    x = g:add(x, attn(h, h, S, S, n .. "/self", pb))
    x = g:add(x, ffn(nn.rmsnorm(g, x, { name = n .. "/ln_ff" }), n .. "/ff"))
  end
  local mem = nn.rmsnorm(g, x, { name = "encoder.final_layer_norm" })
  g:layer("decoder.embed")
  local y = g:embedding(g:input("decoder_input_ids", { b, T }, "int32"), emb, "decoder/embed")
  for l = 1, o.dec_layers or o.layers do
    local n = "decoder.block." .. (l - 1)
    g:layer(n)
    if l == 1 then pb = relbias("decoder", T, T) end
    local h = nn.rmsnorm(g, y, { name = n .. "/ln_self" })
    y = g:add(y, attn(h, h, T, T, n .. "/self", pb))
    y = g:add(y, attn(nn.rmsnorm(g, y, { name = n .. "/ln_cross" }), mem, T, S, n .. "/cross"))
    y = g:add(y, ffn(nn.rmsnorm(g, y, { name = n .. "/ln_ff" }), n .. "/ff"))
  end
  g:layer("output")
  y = nn.rmsnorm(g, y, { name = "decoder.final_layer_norm" })
  local logits
  if o.tied then logits = g:matmul(g:scale(y, "lm_scale"), emb, { transpose_b = true, name = "lm_head" })
  else logits = nn.linear(g, y, V, { name = "lm_head", bias = false }) end
  g:loss(g:softmax_xent(logits, g:label("labels", { b, T }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.t5, "transformer.t5{batch=\"b\", seq=512, tgt_seq=seq, layers=6, dec_layers=layers, hidden=512, heads=8, dkv=64, ffn=2048, vocab=32128, buckets=32, gated=false, tied=true} -> graph",
  "T5 encoder-decoder (t5-small by default: 60,506,624 params); used by dlb.models.from_hf")

doc.doc(M.attention, "transformer.attention(g, x, {b=, q=, s=, d=, heads=, kv_heads=, dh=, bias=, rotary=, name=}[, kv]) -> tensor", "multi-head / grouped-query attention")

-- option specs {name, default, kind, help} by model name (docs/models.md)
M.specs = { ["gpt"] = GPT, ["bert"] = BERT, ["llama"] = LLAMA, ["vit"] = VIT, ["transformer"] = TR, ["moe"] = MOE,
            ["t5"] = T5 }

return M
