-- dlbench.serve_model — the serving view of a decoder for dlb.serve: dlb.serve.model (from
-- a zoo graph, a Hugging Face config or fields: layer shapes, KV heads, window, parameter
-- counts) and dlb.serve.kv_bytes_per_token. Installed into dlb.serve by serve.lua; see
-- docs/serve.md.
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local strip = require("dlbench.errors").strip

local B = {}

function B.install(M, H)
  local posint, fail, names_of = H.posint, H.fail, H.names_of

  -- == the model ===================================================================

  local SPEC_KEYS = { name = true, layers = true, hidden = true, heads = true, kv_heads = true,
    head_dim = true, ffn = true, vocab = true, mlp = true, experts = true, top_k = true,
    every = true, window = true, tied = true, params = true, parallel_block = true }

  -- A serving spec from explicit fields: {layers=, hidden=, heads=[, kv_heads=heads,
  -- head_dim=hidden/heads, ffn=4*hidden, vocab=32000 (Llama-2's), mlp="gelu"|"swiglu",
  -- experts=, top_k=2, every=1, window=, tied=]}.
  local function from_fields(t, fn)
    for _, k in ipairs(options.keys(t)) do -- sorted: the first refused key is named
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
        .. "(a non-decoder zoo model or a hand-built graph); give the fields instead: "
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

  -- The spec of an imported ONNX decoder (dlb.models.from_onnx), read from its graph's
  -- structure, not from names: the tensors' dims and the ops that made them, at the
  -- importer's default bindings (dlb.models.info's: sequence-like dims 128, others 1).
  --   layers    the attention-score matmuls, outputs [.., heads, S, S] with S symbolic;
  --   heads     their heads axis; head_dim: the context matmuls [.., heads, S, dh];
  --   kv_heads  the fewest heads of a rank-4 [.., n, S, dh] or [.., S, n, dh] tensor (K and
  --             V before a GQA/MQA repeat) that divides heads and whose projection weight
  --             {hidden, n x dh} (or a fused qkv's) exists; heads without one;
  --   hidden    the commonest size of the 1-D weights (the norms' scales and biases);
  --   vocab     the last dim of the last matmul's output (the logits), which must be the
  --             token table's rows (the largest dim of a 2-D weight beside hidden);
  --   ffn       the last dim of the first activation (gelu, silu, sigmoid, tanh, relu)
  --             after the first attention; mlp: the layers' 2-D weight elements less the
  --             attention's, over hidden x ffn: 2 (gelu) or 3 (swiglu);
  --   tied      one 2-D weight with a vocab dim (the embedding, reused as the LM head).
  --   window    the model's metadata sliding_window, else the attention mask's band read
  --             from its Trilu nodes (onnx_window below).
  -- Anything not found is refused, naming it.
  local ACTS = { gelu = true, silu = true, sigmoid = true, tanh = true, relu = true }

  -- The sliding window of an imported decoder (docs/serve.md "An ONNX decoder"): the
  -- model's metadata entry sliding_window where present, else the attention mask's band,
  -- read from its Trilu nodes (the importer reports each with its upper attribute and
  -- offset k). A window of w keeps the keys j of query i with i - w < j <= i (w keys, the
  -- query's own included, as the serving model's cache holds them), built as the kept band's
  -- lower edge, Trilu(upper = 1, k = 1 - w), or as the masked-out triangle below it,
  -- Trilu(upper = 0, k = -w) (Hugging Face's AttentionMaskConverter._make_causal_mask:
  -- tril(ones, diagonal = -sliding_window), masked_fill with the dtype's min). The causal
  -- triangles (upper = 0, k = 0 kept; upper = 1, k = 1 masked out) carry no window. nil
  -- without a band. Refused, naming the node (give {window=}, or window = false for none):
  -- an offset that is not a constant (unless the metadata gives the window), a triangle that
  -- is neither causal nor a band, two bands of different widths, a band the metadata
  -- contradicts.
  local function onnx_window(g, fn, gname)
    local imp = rawget(g, "import") or {}
    local hint = "; give the window: dlb.serve.model(g, {window = n}), or {window = false} for none"
    local function refuse(node, why)
      fail(fn, "ONNX graph '" .. gname .. "': " .. node .. " (Trilu): " .. why .. hint, 5)
    end
    local meta = imp.metadata and imp.metadata.sliding_window
    local mw
    if meta ~= nil then
      mw = tonumber(meta)
      if not mw or mw < 1 or mw ~= math.floor(mw) or mw == math.huge then
        fail(fn, "ONNX graph '" .. gname .. "': metadata sliding_window = '" .. meta
          .. "' is not a positive integer" .. hint, 4)
      end
    end
    local w, wnode
    for _, t in ipairs(imp.trilu or {}) do
      local k, this = t.k, nil
      if k == nil then
        if not mw then
          refuse(t.node, "its offset k is not a constant known at import time, so the mask's window cannot be read")
        end
      elseif k < 0 then
        this = math.floor(t.upper and 1 - k or -k)
      elseif not ((t.upper and k == 1) or (not t.upper and k == 0)) then
        refuse(t.node, string.format("upper = %d, k = %.0f is neither a causal triangle (upper = 0, "
          .. "k = 0; upper = 1, k = 1) nor a sliding window's band (k < 0)", t.upper and 1 or 0, k))
      end
      if this then
        if w and this ~= w then
          refuse(t.node, string.format("a band of %.0f keys, but %s gives %.0f", this, wnode, w))
        end
        if mw and this ~= mw then
          refuse(t.node, string.format("a band of %.0f keys, but the model's metadata says sliding_window = %.0f", this, mw))
        end
        w, wnode = this, t.node
      end
    end
    return mw and math.floor(mw) or w
  end

  local function from_onnx(g, fn, extra, window_given)
    local core = require "dlbench.backend"
    local gname = tostring(rawget(g, "name") or "onnx")
    local function refuse(what, why)
      fail(fn, "ONNX graph '" .. gname .. "': cannot infer " .. what .. " (" .. why .. "); give "
        .. "the fields instead: dlb.serve.model{layers=, hidden=, heads=, kv_heads=, head_dim=, "
        .. "ffn=, vocab=, mlp=}", 4)
    end
    local sym = g:stats { inference = true }
    local bind = require("dlbench.models.onnx")._defaults(rawget(sym, "unbound"))
    bind.inference = true
    local ok, rows = pcall(g.ops, g, bind)
    if not ok then refuse("its structure", "its forward pass does not evaluate: " .. tostring(rows)) end
    local T = {}
    for i = 0, g:ntensors() - 1 do
      local _, dims, _, role, prod = core.graph_tensor_info(g._h, i)
      T[#T + 1] = { dims = dims, role = role, prod = prod,
        type = prod >= 0 and rows[prod + 1] and rows[prod + 1].type or nil }
    end
    local num = tonumber
    -- attention scores: layers, heads, the sequence symbol
    local layers, heads, S, first = 0, nil, nil, nil
    for i, t in ipairs(T) do
      local d = t.dims
      if t.type == "matmul" and #d == 4 and d[3] == d[4] and not num(d[3]) then
        local h = num(d[2])
        if not h then refuse("heads", "the attention scores " .. "[" .. table.concat(d, ", ") .. "] have no numeric heads axis") end
        if heads and h ~= heads then refuse("heads", "the layers' attention scores have " .. heads .. " and " .. h .. " heads") end
        heads, S, layers, first = h, d[3], layers + 1, first or i
      end
    end
    if layers == 0 then
      refuse("layers", "no attention-score matmul [.., heads, seq, seq] with a symbolic sequence dim")
    end
    -- head_dim: the context matmuls [.., heads, S, dh]
    local dh
    for _, t in ipairs(T) do
      local d = t.dims
      if t.type == "matmul" and #d == 4 and num(d[2]) == heads and d[3] == S and num(d[4]) then
        dh = dh or num(d[4])
      end
    end
    if not dh then refuse("head_dim", "no attention-context matmul [.., " .. heads .. ", " .. S .. ", head_dim]") end
    -- hidden: the commonest 1-D weight size
    local count, hidden, best = {}, nil, 0
    for _, t in ipairs(T) do
      local n = t.role == 2 and #t.dims == 1 and num(t.dims[1])
      if n then
        count[n] = (count[n] or 0) + 1
        if count[n] > best or (count[n] == best and n > hidden) then hidden, best = n, count[n] end
      end
    end
    if not hidden then refuse("hidden", "no 1-D weights (norm scales) to read it from") end
    -- kv heads: the fewest heads n of a per-head [.., n, S, dh] / [.., S, n, dh] activation
    -- that a projection weight confirms ({hidden, n x dh} or a fused qkv {hidden, (heads +
    -- 2n) x dh}; n = heads needs none): broadcast tables such as RoPE's cos/sin [.., 1, S,
    -- dh] are not K/V heads
    local wpairs = {}
    for _, t in ipairs(T) do
      if t.role == 2 and #t.dims == 2 then
        local a, b = num(t.dims[1]), num(t.dims[2])
        if a and b then wpairs[a .. "x" .. b], wpairs[b .. "x" .. a] = true, true end
      end
    end
    local kv = heads
    for _, t in ipairs(T) do
      local d = t.dims
      if t.role == 3 and #d == 4 and num(d[4]) == dh then
        local n = (d[3] == S and num(d[2])) or (d[2] == S and num(d[3])) or nil
        if n and n < kv and heads % n == 0 and (wpairs[hidden .. "x" .. n * dh]
            or wpairs[hidden .. "x" .. (heads + 2 * n) * dh]) then
          kv = n
        end
      end
    end
    -- vocab: the logits, the last matmul's last dim
    local vocab, ldims
    for _, t in ipairs(T) do
      if t.type == "matmul" and t.role == 3 then vocab, ldims = num(t.dims[#t.dims]), t.dims end
    end
    if not vocab or vocab == hidden then refuse("vocab", "the last matmul does not produce logits") end
    -- ffn: the first activation after the first attention scores
    local ffn
    for i = first + 1, #T do
      local t = T[i]
      if ACTS[t.type or ""] and t.role == 3 then
        ffn = num(t.dims[#t.dims])
        if ffn then break end
      end
    end
    if not ffn then refuse("ffn", "no activation (gelu, silu, sigmoid, tanh, relu) after the attention") end
    -- the 2-D weights: the token table (the largest dim beside hidden, which the logits
    -- must have: else an encoder's or a classifier's head), the layers' projections (dims
    -- among hidden, ffn, 2 ffn (a fused gate/up), the q and k/v widths and a fused qkv's;
    -- a position table [context, hidden] must not share one) and a tied LM head (one weight
    -- with a vocab dim)
    local qw, kw = heads * dh, kv * dh
    local widths = { [hidden] = true, [ffn] = true, [2 * ffn] = true, [qw] = true, [kw] = true,
      [qw + 2 * kw] = true }
    local layer_el, vocab_w, table_rows = 0, 0, 0
    for _, t in ipairs(T) do
      local a, b = t.role == 2 and #t.dims == 2 and num(t.dims[1]), t.role == 2 and #t.dims == 2 and num(t.dims[2])
      if a and b then
        if a == vocab or b == vocab then vocab_w = vocab_w + 1 end
        if a == hidden or b == hidden then table_rows = math.max(table_rows, a == hidden and b or a) end
        if a ~= vocab and b ~= vocab and widths[a] and widths[b] then layer_el = layer_el + a * b end
      end
    end
    if vocab ~= table_rows then
      refuse("vocab", "the last matmul gives " .. vocab .. " outputs, not the " .. table_rows
        .. " rows of the token table: an encoder or a classifier head, not a decoder's LM head")
    end
    -- mixture of experts: a router, a matmul of the hidden state by a {hidden, E} weight
    -- into E logits per token (the logits' leading dims; E none of the layer widths), and
    -- the TopK that picks k of them (the importer reads TopK as a split of the axis into k
    -- and E - k: the first split output after the router with its leading dims and a last
    -- dim below E)
    local function per_token(d)
      if #d ~= #ldims then return false end
      for a = 1, #d - 1 do if d[a] ~= ldims[a] then return false end end
      return true
    end
    local routers, experts, top_k = 0, nil, nil
    for i, t in ipairs(T) do
      local d = t.dims
      local E = t.type == "matmul" and t.role == 3 and per_token(d) and num(d[#d])
      if E and E > 1 and not widths[E] and E ~= vocab and wpairs[hidden .. "x" .. E] then
        if experts and E ~= experts then refuse("experts", "the layers' routers pick among " .. experts .. " and " .. E .. " experts") end
        experts, routers = E, routers + 1
        local k
        for j = i + 1, #T do
          local u = T[j]
          if u.type == "matmul" and u.role == 3 and num(u.dims[#u.dims]) == E then break end -- the next router
          local kk = u.type == "split" and #u.dims == #d and num(u.dims[#u.dims])
          if kk and kk < E then
            local prefix = true
            for a = 1, #d - 1 do if u.dims[a] ~= d[a] then prefix = false end end
            if prefix then k = kk break end
          end
        end
        if not k then refuse("top_k", "the router of " .. E .. " experts has no TopK after it") end
        if top_k and k ~= top_k then refuse("top_k", "the layers' routers pick " .. top_k .. " and " .. k .. " experts") end
        top_k = k
      end
    end
    local every
    if routers > 0 then
      every = layers / routers
      if every ~= math.floor(every) then
        refuse("every", routers .. " routers in " .. layers .. " layers: not one every n layers")
      end
    end
    -- the MLP's matrices: the layers' 2-D weight elements less the attention's, over hidden x
    -- ffn x the MLPs (a dense layer one, an MoE layer E)
    local mlps = routers > 0 and (layers - routers + routers * experts) / layers or 1
    local mats = (layer_el / layers - hidden * (qw + 2 * kw) - qw * hidden) / (hidden * ffn * mlps)
    if mats ~= 2 and mats ~= 3 then
      refuse("mlp", string.format("the layers' weights leave %.4g x hidden x ffn elements a%s MLP "
        .. "beside the attention, not 2 (gelu) or 3 (swiglu)", mats, routers > 0 and "n expert's" or ""))
    end
    if vocab_w ~= 1 and vocab_w ~= 2 then
      refuse("tied", vocab_w .. " 2-D weights have a vocab dim, not 1 (tied) or 2")
    end
    local t = { name = gname, layers = layers, hidden = hidden, heads = heads, kv_heads = kv,
      head_dim = dh, ffn = ffn, vocab = vocab, mlp = mats == 3 and "swiglu" or "gelu",
      tied = vocab_w == 1, experts = experts, top_k = top_k, every = every }
    if not window_given then t.window = onnx_window(g, fn, gname) end
    for k, v in pairs(extra or {}) do t[k] = v end
    return from_fields(t, fn)
  end
  M._from_onnx = from_onnx

  local MODEL_OPTS = { window = true, name = true }

  -- A spec in one line, as the other results print (dlb.pretty.full(spec) shows the fields):
  -- "serve model llama: 32 layers, hidden 4096, 32 heads (8 KV) x 128, ffn 11008 swiglu,
  -- vocab 32000, 6.74 G params".
  local function spec_tostring(s)
    local P = require "dlbench.pretty"
    local f = string.format
    local moe = s.experts and f(", %d experts top-%d in %d of %d layers", s.experts, s.top_k,
      s.moe_layers or 0, s.layers) or ""
    return f("serve model %s: %d layers, hidden %d, %d heads (%d KV) x %d, ffn %d %s%s, "
      .. "vocab %d%s%s%s, %s params", tostring(s.name), s.layers, s.hidden, s.heads,
      s.kv_heads, s.head_dim, s.ffn, s.mlp, moe, s.vocab, s.tied and " (tied)" or "",
      s.parallel_block and ", parallel block" or "",
      s.window and f(", window %d", s.window) or "", P.si(s.params, ""))
  end

  -- dlb.serve.model(src[, {window=, name=}]) -> spec. src: a zoo graph (dlb.models.llama{...},
  -- gpt, moe, from_hf), a Hugging Face config.json path or table (sliding_window is read),
  -- an imported ONNX graph (the window from its metadata or mask: onnx_window), a spec
  -- already made, or explicit fields {layers=, hidden=, heads=, ...}. window = false: none.
  function M.model(src, opts)
    local fn = "dlb.serve.model"
    opts = options.check(opts, MODEL_OPTS, fn)
    local s
    if type(src) == "table" and rawget(src, "_serve_spec") then
      -- a spec already made: as it is, or a copy with the options given applied
      if next(opts) == nil then return src end
      -- (not the step graphs' cache key the original may carry, serve_graph.lua shape_key:
      -- it names the original's fields, and the copy's window or name may differ)
      s = {}
      for k, v in pairs(src) do if k ~= "_graph_key" then s[k] = v end end
    elseif type(src) == "string" or (type(src) == "table" and src.model_type ~= nil) then
      local cfg = src
      if type(src) == "string" then
        local core = require "dlbench.backend"
        local ok, r = pcall(core.json_read, src)
        if not ok then fail(fn, tostring(r)) end
        cfg = r
      end
      local ok, g = pcall(require("dlbench.models").from_hf, cfg)
      if not ok then fail(fn, strip(g)) end
      local extra = {}
      if type(cfg.sliding_window) == "number" and cfg.use_sliding_window ~= false then
        extra.window = cfg.sliding_window
      end
      extra.name = cfg._name_or_path or cfg.model_type
      s = from_graph(g, fn, extra)
    elseif type(src) == "table" and rawget(src, "import") ~= nil and rawget(src, "_h") ~= nil then
      s = from_onnx(src, fn, nil, opts.window ~= nil)
    elseif type(src) == "table" and (getmetatable(src) ~= nil or rawget(src, "model") ~= nil) then
      s = from_graph(src, fn)
    elseif type(src) == "table" then
      s = from_fields(src, fn)
    else
      fail(fn, "expected a zoo graph, a Hugging Face config (path or table) or model fields, got " .. type(src))
    end
    if opts.window == false then s.window = nil  -- none: an imported graph's mask not read
    elseif opts.window ~= nil then s.window = posint(fn, "window", opts.window) end
    if opts.name then s.name = opts.name end
    s._serve_spec = true
    return require("dlbench.pretty").object(s, spec_tostring)
  end
  doc.doc(M.model, "dlb.serve.model(graph | hf_config | {layers=, hidden=, heads=, kv_heads=heads, head_dim=hidden/heads, ffn=4*hidden, vocab=32000, mlp=\"gelu\"|\"swiglu\", experts=, top_k=2, window=}[, {window=n | false, name=}]) -> spec",
    "the serving view of a decoder: layer shapes, KV heads (GQA/MQA), sliding window (an ONNX graph's from its metadata or mask; window = false: none), parameter counts")

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
