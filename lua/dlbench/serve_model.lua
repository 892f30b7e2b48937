-- dlbench.serve_model — the serving view of a decoder for dlb.serve: dlb.serve.model (from
-- a zoo graph, a Hugging Face config or fields: layer shapes, KV heads, window, parameter
-- counts) and dlb.serve.kv_bytes_per_token. Installed into dlb.serve by serve.lua; see
-- docs/serve.md.
local doc = require "dlbench.doc"
local options = require "dlbench.options"

local B = {}

function B.install(M, H)
  local posint, fail, names_of = H.posint, H.fail, H.names_of

  -- == the model ===================================================================

  local SPEC_KEYS = { name = true, layers = true, hidden = true, heads = true, kv_heads = true,
    head_dim = true, ffn = true, vocab = true, mlp = true, experts = true, top_k = true,
    every = true, window = true, tied = true, params = true, parallel_block = true }

  -- A serving spec from explicit fields: {layers=, hidden=, heads=[, kv_heads=heads,
  -- head_dim=hidden/heads, ffn=4*hidden, vocab=, mlp="gelu"|"swiglu", experts=, top_k=,
  -- every=1, window=, tied=]}.
  local function from_fields(t, fn)
    for k in pairs(t) do
      if not SPEC_KEYS[k] then
        fail(fn, "unknown model field '" .. tostring(k) .. "' (accepted: " .. names_of(SPEC_KEYS) .. ")", 3)
      end
    end
    local s = {}
    for _, k in ipairs { "layers", "hidden", "heads" } do
      if t[k] == nil then fail(fn, "model field '" .. k .. "' is required", 3) end
      s[k] = posint(fn, k, t[k], 3)
    end
    s.kv_heads = posint(fn, "kv_heads", t.kv_heads or s.heads, 3)
    if s.heads % s.kv_heads ~= 0 then
      fail(fn, "heads=" .. s.heads .. " must be a multiple of kv_heads=" .. s.kv_heads, 3)
    end
    s.head_dim = posint(fn, "head_dim", t.head_dim or s.hidden / s.heads, 3)
    s.ffn = posint(fn, "ffn", t.ffn or 4 * s.hidden, 3)
    s.vocab = posint(fn, "vocab", t.vocab or 32000, 3)
    s.mlp = t.mlp or "gelu"
    if s.mlp ~= "gelu" and s.mlp ~= "swiglu" then
      fail(fn, "mlp must be \"gelu\" or \"swiglu\", got " .. tostring(s.mlp), 3)
    end
    if t.experts then
      s.experts = posint(fn, "experts", t.experts, 3)
      s.top_k = posint(fn, "top_k", t.top_k or 2, 3)
      s.every = posint(fn, "every", t.every or 1, 3)
      if s.top_k > s.experts then fail(fn, "top_k exceeds experts", 3) end
    end
    if t.window ~= nil and t.window ~= false then s.window = posint(fn, "window", t.window, 3) end
    s.tied = t.tied and true or false
    s.parallel_block = t.parallel_block and true or false
    s.name = t.name or "model"
    local d, H, KV, dh, f, L = s.hidden, s.heads, s.kv_heads, s.head_dim, s.ffn, s.layers
    local mats = s.mlp == "swiglu" and 3 or 2
    local attn = d * (H + 2 * KV) * dh + H * dh * d
    local mlp = mats * d * f
    local nmoe = s.experts and math.floor(L / s.every) or 0
    s.moe_layers = nmoe
    s.linear_params = L * attn + (L - nmoe) * mlp
    if nmoe > 0 then s.linear_params = s.linear_params + nmoe * (s.experts * mlp + d * s.experts) end
    -- embeddings (and an untied LM head) and the norms' weights (RMSNorm: a scale; LayerNorm:
    -- a scale and a bias; two per block and a final one), kept at the activation dtype
    s.embed_params = s.vocab * d * (s.tied and 1 or 2) + (2 * L + 1) * d * (s.mlp == "swiglu" and 1 or 2)
    s.params = t.params or (s.linear_params + s.embed_params)
    return s
  end

  -- The spec of a zoo graph: its builder's options (g.model.options; g.hf for from_hf).
  local function from_graph(g, fn, extra)
    local m = rawget(g, "model")
    local o = m and m.options
    if type(o) ~= "table" or not o.layers then
      fail(fn, "graph '" .. tostring(m and m.name or "?") .. "' carries no transformer config "
        .. "(an ONNX import or a non-decoder zoo model); give the fields instead: "
        .. "dlb.serve.model{layers=, hidden=, heads=, kv_heads=, ffn=, vocab=, mlp=}", 3)
    end
    local name = m.name or "model"
    local t = { name = name, layers = o.layers, hidden = o.hidden, heads = o.heads,
      kv_heads = o.kv_heads, ffn = o.ffn, vocab = type(o.vocab) == "number" and o.vocab or nil,
      tied = o.tied, head_dim = o.dh }
    if o.experts then
      t.experts, t.top_k, t.every = o.experts, o.top_k, o.every
      t.mlp = o.style == "llama" and "swiglu" or "gelu"
      t.tied = o.style ~= "llama"
    elseif o.kv_heads or name:match("^llama") then
      t.mlp = "swiglu"
    else
      t.mlp = "gelu"
    end
    for k, v in pairs(extra or {}) do t[k] = v end
    return from_fields(t, fn)
  end

  local MODEL_OPTS = { window = true, name = true }

  -- dlb.serve.model(src[, {window=, name=}]) -> spec. src: a zoo graph (dlb.models.llama{...},
  -- gpt, moe, from_hf), a Hugging Face config.json path or table (sliding_window is read),
  -- a spec already made, or explicit fields {layers=, hidden=, heads=, ...}.
  function M.model(src, opts)
    local fn = "dlb.serve.model"
    opts = options.check(opts, MODEL_OPTS, fn)
    if type(src) == "table" and rawget(src, "_serve_spec") then return src end
    local s
    if type(src) == "string" or (type(src) == "table" and src.model_type ~= nil) then
      local cfg = src
      if type(src) == "string" then
        local core = require "dlbench.backend"
        local ok, r = pcall(core.json_read, src)
        if not ok then fail(fn, tostring(r)) end
        cfg = r
      end
      local ok, g = pcall(require("dlbench.models").from_hf, cfg)
      if not ok then fail(fn, (tostring(g):gsub("^[^%s:]+:%d+: ", ""))) end
      local extra = {}
      if type(cfg.sliding_window) == "number" and cfg.use_sliding_window ~= false then
        extra.window = cfg.sliding_window
      end
      extra.name = cfg._name_or_path or cfg.model_type
      s = from_graph(g, fn, extra)
    elseif type(src) == "table" and (getmetatable(src) ~= nil or rawget(src, "model") ~= nil) then
      s = from_graph(src, fn)
    elseif type(src) == "table" then
      s = from_fields(src, fn)
    else
      fail(fn, "expected a zoo graph, a Hugging Face config (path or table) or model fields, got " .. type(src))
    end
    if opts.window ~= nil then s.window = posint(fn, "window", opts.window) end
    if opts.name then s.name = opts.name end
    s._serve_spec = true
    return s
  end
  doc.doc(M.model, "dlb.serve.model(graph | hf_config | {layers=, hidden=, heads=, kv_heads=, head_dim=, ffn=, vocab=, mlp=\"gelu\"|\"swiglu\", experts=, top_k=, window=}[, {window=, name=}]) -> spec",
    "the serving view of a decoder: layer shapes, KV heads (GQA/MQA), sliding window, parameter counts")

  -- KV-cache bytes per token of context (all layers, K and V): 2 x layers x kv_heads x
  -- head_dim x bytes (Llama-2-7B fp16: 2 x 32 x 32 x 128 x 2 = 524,288).
  function M.kv_bytes_per_token(spec, kv)
    local s = M.model(spec)
    kv = kv or "fp16"
    local b = M.KV_BYTES[kv]
    if not b then fail("dlb.serve.kv_bytes_per_token", "kv dtype must be one of " .. names_of(M.KV_BYTES) .. ", got " .. tostring(kv)) end
    return 2 * s.layers * s.kv_heads * s.head_dim * b
  end
  doc.doc(M.kv_bytes_per_token, "dlb.serve.kv_bytes_per_token(model[, kv=\"fp16\"]) -> bytes",
    "KV-cache bytes per token: 2 x layers x kv_heads x head_dim x bytes(kv)")
end

return B
