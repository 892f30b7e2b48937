-- test_serve_onnx.lua — dlb.serve.model of an imported ONNX decoder without hand-given
-- fields (issue [23] / 29): layers, hidden, heads, KV heads, head dim, vocab, ffn, MLP kind
-- and tying read from the graph's structure; a mixture of experts' experts, top-k and
-- frequency from its routers and their TopK. The GPT-2 fixture (tests/fixtures/onnx,
-- modeling_gpt2.py: 2 layers, d 64, 4 heads, ffn 256, vocab 1000, tied) and Llama-like
-- decoders written here as protobuf bytes (MHA, GQA, MQA; SwiGLU, untied head), and the
-- refusals. Runs on both backends (dlbench run and LuaJIT FFI).
local T = require "harness"
local H = require "hostile_files"
local dlb = require "dlbench"
local S = dlb.serve

local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
local FIX = here .. "/../fixtures/onnx/"

local dir = T.tmpdir()
local function write(name, s)
  local p = dir .. "/" .. name .. ".onnx"
  local f = assert(io.open(p, "wb")); f:write(s); f:close()
  return p
end

-- onnx.proto: TensorProto dims 1, data_type 2 (INT64 7), int64_data 7, name 8;
-- AttributeProto name 1, i 3, type 20 (INT 2)
local function shape_init(name, vals)
  local s = { H.int(1, #vals), H.int(2, 7) }
  for _, v in ipairs(vals) do s[#s + 1] = H.int(7, v) end
  s[#s + 1] = H.bytes(8, name)
  return table.concat(s)
end
local function attr_int(name, v) return H.bytes(1, name) .. H.int(20, 2) .. H.int(3, v) end

-- A Llama-like decoder as Hugging Face's modeling_llama.py exports it (q/k/v projections,
-- [0, 0, heads, dh] reshapes, repeat_kv as a concat of the K/V heads, softmax(QK^T) V,
-- o_proj, SiLU-gated MLP as Sigmoid and Mul; norms as a scale Mul), ids [batch, seq] ->
-- logits [batch, seq, vocab]. o: {layers, hidden, heads, kv, dh, ffn, vocab, tied, gelu};
-- o.trilu: an attention mask made from an input "ones" [seq, seq] by Trilu nodes in a chain
-- ({upper=, k=} each; k = "input": an offset given as a graph input, not a constant), that
-- multiplies every layer's scores; o.meta: the model's metadata_props {key = value}.
local function llama_onnx(o)
  local L, d, Hq, KV, dh, f, V = o.layers, o.hidden, o.heads, o.kv, o.dh, o.ffn, o.vocab
  local nodes, inits = {}, {}
  local function w(name, dims) inits[#inits + 1] = H.initializer(name, dims); return name end
  local function n(op, ins, out, attrs) nodes[#nodes + 1] = H.node(op, ins, { out }, out, attrs); return out end
  inits[#inits + 1] = shape_init("shape_q", { 0, 0, Hq, dh })
  inits[#inits + 1] = shape_init("shape_kv", { 0, 0, KV, dh })
  inits[#inits + 1] = shape_init("shape_o", { 0, 0, Hq * dh })
  inits[#inits + 1] = shape_init("axes1", { 1 })
  inits[#inits + 1] = shape_init("axes_last", { 2 })
  inits[#inits + 1] = shape_init("topk_k", { o.top_k or 1 })
  local perm = H.attr_ints("perm", { 0, 2, 1, 3 })
  local mask, extra_in = nil, {}
  for i, t in ipairs(o.trilu or {}) do
    local kname = "trilu_k" .. i
    if t.k == "input" then extra_in[#extra_in + 1] = H.value_info(kname, H.tensor_type(7, {}))
    else -- a 0-D int64 tensor: data_type 2, int64_data 7, name 8
      inits[#inits + 1] = H.int(2, 7) .. H.int(7, t.k) .. H.bytes(8, kname)
    end
    mask = n("Trilu", { mask or "ones", kname }, "mask" .. i, { attr_int("upper", t.upper and 1 or 0) })
  end
  if mask then extra_in[#extra_in + 1] = H.value_info("ones", H.tensor_type(1, { "seq", "seq" })) end
  local x = n("Gather", { w("embed", { V, d }), "ids" }, "x0")
  for i = 1, L do
    local p = "l" .. i .. "."
    local h = n("Mul", { x, w(p .. "ln1", { d }) }, p .. "n1")
    local q = n("Transpose", { n("Reshape", { n("MatMul", { h, w(p .. "wq", { d, Hq * dh }) }, p .. "q"), "shape_q" }, p .. "q4") }, p .. "qt", { perm })
    if o.rope then -- a RoPE table broadcast over the heads: an activation [batch, 1, seq, dh]
      q = n("Mul", { q, n("Unsqueeze", { "cos", "axes1" }, p .. "cos4") }, p .. "qrot")
    end
    local kv = {}
    for _, c in ipairs { "k", "v" } do
      local t = n("Transpose", { n("Reshape", { n("MatMul", { h, w(p .. "w" .. c, { d, KV * dh }) }, p .. c), "shape_kv" }, p .. c .. "4") }, p .. c .. "t", { perm })
      if KV < Hq then
        local copies = {}
        for j = 1, Hq / KV do copies[j] = t end
        t = n("Concat", copies, p .. c .. "r", { attr_int("axis", 1) })
      end
      kv[c] = t
    end
    local kT = n("Transpose", { kv.k }, p .. "kT", { H.attr_ints("perm", { 0, 1, 3, 2 }) })
    local sc = n("MatMul", { q, kT }, p .. "scores")
    if mask then sc = n("Mul", { sc, mask }, p .. "masked") end
    local pr = n("Softmax", { sc }, p .. "probs")
    local ctx = n("Transpose", { n("MatMul", { pr, kv.v }, p .. "ctx") }, p .. "ctxt", { perm })
    local a = n("MatMul", { n("Reshape", { ctx, "shape_o" }, p .. "ctx2"), w(p .. "wo", { Hq * dh, d }) }, p .. "attn")
    x = n("Add", { x, a }, p .. "x1")
    local h2 = n("Mul", { x, w(p .. "ln2", { d }) }, p .. "n2")
    local act
    if o.experts and i % (o.every or 1) == 0 then
      -- a mixture of experts as an export computes it densely: the router's logits, their
      -- softmax and TopK (values, indices), every SwiGLU expert on every token, their sum
      -- scaled by the chosen experts' summed weight (a stand-in for the per-token mix)
      local probs = n("Softmax", { n("MatMul", { h2, w(p .. "router", { d, o.experts }) }, p .. "rlogits") }, p .. "rprobs")
      nodes[#nodes + 1] = H.node("TopK", { probs, "topk_k" }, { p .. "topv", p .. "topi" }, p .. "topk")
      local rw = n("ReduceSum", { p .. "topv", "axes_last" }, p .. "rweight", { attr_int("keepdims", 1) })
      local sum
      for e = 1, o.experts do
        local q = p .. "e" .. e .. "."
        local g = n("MatMul", { h2, w(q .. "wg", { d, f }) }, q .. "gate")
        local si = n("Mul", { g, n("Sigmoid", { g }, q .. "sig") }, q .. "silu")
        local a2 = n("Mul", { si, n("MatMul", { h2, w(q .. "wu", { d, f }) }, q .. "up") }, q .. "act")
        local out = n("MatMul", { a2, w(q .. "wd", { f, d }) }, q .. "down")
        sum = sum and n("Add", { sum, out }, q .. "sum") or out
      end
      x = n("Add", { x, n("Mul", { sum, rw }, p .. "moe") }, p .. "x2")
    elseif o.gelu then
      act = n("Gelu", { n("MatMul", { h2, w(p .. "wu", { d, f }) }, p .. "up") }, p .. "act")
    else
      local g = n("MatMul", { h2, w(p .. "wg", { d, f }) }, p .. "gate")
      local si = n("Mul", { g, n("Sigmoid", { g }, p .. "sig") }, p .. "silu")
      act = n("Mul", { si, n("MatMul", { h2, w(p .. "wu", { d, f }) }, p .. "up") }, p .. "act")
    end
    if act then x = n("Add", { x, n("MatMul", { act, w(p .. "wd", { f, d }) }, p .. "down") }, p .. "x2") end
  end
  local head = o.tied and n("Transpose", { "embed" }, "embedT", { H.attr_ints("perm", { 1, 0 }) })
    or w("lm_head", { d, V })
  n("MatMul", { n("Mul", { x, w("lnf", { d }) }, "nf"), head }, "logits")
  local inputs = { H.value_info("ids", H.tensor_type(7, { "batch", "seq" })),
    H.value_info("cos", H.tensor_type(1, { "batch", "seq", dh })) }
  for _, v in ipairs(extra_in) do inputs[#inputs + 1] = v end
  local model = H.model(H.graph { nodes = nodes, inits = inits, inputs = inputs,
    outputs = { H.value_info("logits", H.tensor_type(1, { "batch", "seq", V })) } }, 17)
  -- ModelProto metadata_props 14: StringStringEntryProto key 1, value 2
  for k, v in pairs(o.meta or {}) do model = model .. H.bytes(14, H.bytes(1, k) .. H.bytes(2, v)) end
  return model
end

local function load(name, o) return dlb.models.from_onnx(write(name, llama_onnx(o)), { quiet = true }) end
local FIELDS = { "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "mlp", "tied" }
local function same(spec, want, what)
  for _, k in ipairs(FIELDS) do T.eq(spec[k], want[k], what .. " " .. k) end
end

T.test("ONNX GPT-2 (fixture): every decoder field read from the graph", function()
  local g = dlb.models.from_onnx(FIX .. "gpt2_like.onnx", { quiet = true })
  local s = S.model(g)
  -- tests/fixtures/onnx/README.md: 2 layers, d 64, 4 heads, context 128, vocab 1000, tied
  same(s, { layers = 2, hidden = 64, heads = 4, kv_heads = 4, head_dim = 16, ffn = 256,
    vocab = 1000, mlp = "gelu", tied = true }, "gpt2_like")
  -- 2 (K, V) x 2 layers x 4 heads x 16 x 2 B
  T.eq(S.kv_bytes_per_token(g), 512, "kv bytes per token")
  -- the graph holds these weights and the position table (128 x 64) and the biases
  -- (per layer 192 + 64 + 256 + 64), which the serving view leaves out
  local held = g:stats { inference = true, batch = 1, sequence = 1 }.params
  T.eq(held, 172288, "the fixture's parameters (README)")
  T.eq(s.params + 128 * 64 + 2 * (192 + 64 + 256 + 64), held, "serving view + positions + biases")
end)

T.test("ONNX Llama-like: MHA, GQA and MQA heads, SwiGLU, untied and tied heads", function()
  local cases = {
    { "mha", { layers = 2, hidden = 64, heads = 4, kv = 4, dh = 16, ffn = 160, vocab = 500 } },
    -- with a RoPE table [batch, 1, seq, dh] (one "head" that is not a K/V head)
    { "gqa", { layers = 3, hidden = 64, heads = 8, kv = 2, dh = 8, ffn = 176, vocab = 500, rope = true } },
    { "mqa", { layers = 2, hidden = 96, heads = 6, kv = 1, dh = 16, ffn = 256, vocab = 300, tied = true } },
    -- head_dim x heads different from hidden (as Gemma's), a GELU MLP
    { "wide", { layers = 2, hidden = 64, heads = 4, kv = 2, dh = 32, ffn = 128, vocab = 400, gelu = true } },
  }
  for _, c in ipairs(cases) do
    local o = c[2]
    local g = load(c[1], o)
    local s = S.model(g)
    same(s, { layers = o.layers, hidden = o.hidden, heads = o.heads, kv_heads = o.kv, head_dim = o.dh,
      ffn = o.ffn, vocab = o.vocab, mlp = o.gelu and "gelu" or "swiglu", tied = o.tied and true or false }, c[1])
    T.eq(S.kv_bytes_per_token(g), 2 * o.layers * o.kv * o.dh * 2, c[1] .. " kv bytes")
    -- the spec equals the one given by hand, and so does every serving number
    local byhand = S.model { layers = o.layers, hidden = o.hidden, heads = o.heads, kv_heads = o.kv,
      head_dim = o.dh, ffn = o.ffn, vocab = o.vocab, mlp = o.gelu and "gelu" or "swiglu", tied = o.tied }
    T.eq(s.params, byhand.params, c[1] .. " params")
    local a = S.decode(g, { hw = "A100-SXM4-80GB", batch = 8, context = 1000 })
    local b = S.decode(byhand, { hw = "A100-SXM4-80GB", batch = 8, context = 1000 })
    T.eq(a.time, b.time, c[1] .. " decode time")
    T.eq(a.flops, b.flops, c[1] .. " decode flops")
  end
  -- a graph without a mask: no window unless given as an option
  local plain = load("gqa_w", { layers = 1, hidden = 64, heads = 8, kv = 2, dh = 8, ffn = 176, vocab = 500 })
  T.eq(S.model(plain).window, nil, "no mask, no window")
  T.eq(S.model(plain, { window = 32 }).window, 32, "window option")
end)

T.test("ONNX sliding window: read from the mask's Trilu band or the metadata; ambiguity refused naming the node", function()
  local base = { layers = 2, hidden = 64, heads = 8, kv = 2, dh = 8, ffn = 176, vocab = 500 }
  local function with(t)
    local o = {}
    for k, v in pairs(base) do o[k] = v end
    for k, v in pairs(t) do o[k] = v end
    return o
  end
  local function window(name, t, opts) return S.model(load(name, with(t)), opts).window end
  -- the kept band i - 48 < j <= i: its lower edge triu(ones, -(48 - 1)), then the causal tril
  T.eq(window("band", { trilu = { { upper = true, k = -47 }, { upper = false, k = 0 } } }), 48, "kept band")
  -- Hugging Face's _make_causal_mask: the causal triangle masked out (triu, k = 1) and the
  -- keys at or beyond the window below it, tril(ones, diagonal = -48)
  T.eq(window("hf", { trilu = { { upper = true, k = 1 }, { upper = false, k = -48 } } }), 48, "masked-out triangle")
  T.eq(window("causal", { trilu = { { upper = false, k = 0 } } }), nil, "a causal mask: no window")
  T.eq(window("meta", { meta = { sliding_window = "32" } }), 32, "metadata sliding_window")
  -- a key may hold '=' (onnx.proto: any string): split at the key's length, not the first '='
  -- (before: "a=sliding_window" = "16" was read as key "a", value "sliding_window=16")
  local gm = load("meta_eq", with { meta = { ["a=sliding_window"] = "16", ["b"] = "x=y" } })
  T.eq(gm.import.metadata["a=sliding_window"], "16", "key with '='")
  T.eq(gm.import.metadata.b, "x=y", "value with '='")
  T.eq(gm.import.metadata.a, nil, "no key cut at its '='")
  T.eq(S.model(gm).window, nil, "no sliding_window key: no window")
  T.eq(window("meta_band", { meta = { sliding_window = "48" }, trilu = { { upper = false, k = -48 } } }), 48,
    "metadata and band agree")
  -- a dynamic offset (Hugging Face's diagonal = past_key_values_length - sliding_window) is
  -- read from the metadata where present
  T.eq(window("meta_dyn", { meta = { sliding_window = "40" }, trilu = { { upper = false, k = "input" } } }), 40,
    "metadata with a dynamic offset")
  -- refusals name the node
  local function refused(name, t, msg)
    T.checkerr(msg, S.model, load(name, with(t)))
  end
  refused("dyn", { trilu = { { upper = false, k = "input" } } },
    "node 0 'mask1' (Trilu): its offset k is not a constant known at import time")
  refused("two", { trilu = { { upper = false, k = -48 }, { upper = true, k = -31 } } },
    "node 1 'mask2' (Trilu): a band of 32 keys, but node 0 'mask1' gives 48")
  refused("odd", { trilu = { { upper = false, k = 2 } } },
    "node 0 'mask1' (Trilu): upper = 0, k = 2 is neither a causal triangle")
  refused("meta_conflict", { meta = { sliding_window = "32" }, trilu = { { upper = false, k = -48 } } },
    "node 0 'mask1' (Trilu): a band of 48 keys, but the model's metadata says sliding_window = 32")
  refused("meta_bad", { meta = { sliding_window = "wide" } }, "metadata sliding_window = 'wide' is not a positive integer")
  -- the refusal's way out: the window given, or none
  T.eq(window("dyn2", { trilu = { { upper = false, k = "input" } } }, { window = 64 }), 64, "given")
  T.eq(window("dyn3", { trilu = { { upper = false, k = "input" } } }, { window = false }), nil, "none")
  -- the window read is dlb.serve's: the cache and attention stop at 48 tokens
  local g = load("served", with { trilu = { { upper = true, k = -47 }, { upper = false, k = 0 } } })
  local byhand = S.model { layers = 2, hidden = 64, heads = 8, kv_heads = 2, head_dim = 8, ffn = 176,
    vocab = 500, mlp = "swiglu", window = 48 }
  local a = S.decode(g, { hw = "H100-SXM", batch = 4, context = 1000 })
  local b = S.decode(byhand, { hw = "H100-SXM", batch = 4, context = 1000 })
  T.eq(a.time, b.time, "windowed decode time"); T.eq(a.bytes, b.bytes, "windowed decode bytes")
  T.eq(a.time, S.decode(g, { hw = "H100-SXM", batch = 4, context = 48 }).time, "past the window: as at 48")
  -- 4 sequences x 48 cached tokens (3 blocks of 16) x 2 layers x 2 (K, V) x 2 heads x 8 x 2 B
  T.eq(S.memory(g, { hw = "H100-SXM", batch = 4, context = 1000 }).kv, 4 * 48 * 2 * 2 * 2 * 8 * 2, "KV cache capped")
end)

T.test("ONNX mixture of experts: experts and top-k from the router and its TopK", function()
  -- 4 layers, 8 SwiGLU experts, top-2 (Mixtral's routing), GQA
  local o = { layers = 4, hidden = 64, heads = 8, kv = 2, dh = 8, ffn = 96, vocab = 500, experts = 8, top_k = 2 }
  local g = load("moe", o)
  local s = S.model(g)
  same(s, { layers = 4, hidden = 64, heads = 8, kv_heads = 2, head_dim = 8, ffn = 96, vocab = 500,
    mlp = "swiglu", tied = false }, "moe")
  T.eq(s.experts, 8, "experts: the router's logits"); T.eq(s.top_k, 2, "top_k: its TopK")
  T.eq(s.every, 1, "a router every layer")
  local byhand = S.model { layers = 4, hidden = 64, heads = 8, kv_heads = 2, head_dim = 8, ffn = 96,
    vocab = 500, mlp = "swiglu", experts = 8, top_k = 2 }
  T.eq(s.params, byhand.params, "params = the fields by hand")
  -- the graph's own weights are the ones the serving view counts (norm scales, router,
  -- experts, attention, embedding and head; no biases or position table here)
  T.eq(g:stats { inference = true, batch = 1, seq = 1 }.params, s.params, "the graph's weights")
  local a = S.decode(g, { hw = "H100-SXM", batch = 8, context = 1000 })
  local b = S.decode(byhand, { hw = "H100-SXM", batch = 8, context = 1000 })
  T.eq(a.time, b.time, "moe decode time"); T.eq(a.flops, b.flops, "moe decode flops")
  -- MoE every other layer (routers on layers 2 and 4)
  local h = S.model(load("moe2", { layers = 4, hidden = 64, heads = 8, kv = 2, dh = 8, ffn = 96, vocab = 500,
    experts = 4, top_k = 1, every = 2 }))
  T.eq(h.experts, 4, "experts"); T.eq(h.top_k, 1, "top_k"); T.eq(h.every, 2, "every other layer")
  T.eq(h.params, S.model { layers = 4, hidden = 64, heads = 8, kv_heads = 2, head_dim = 8, ffn = 96,
    vocab = 500, mlp = "swiglu", experts = 4, top_k = 1, every = 2 }.params, "every-2 params")
  -- the importer's TopK: k from its input, refused when it exceeds the axis
  local bad = llama_onnx { layers = 1, hidden = 64, heads = 8, kv = 2, dh = 8, ffn = 96, vocab = 500,
    experts = 4, top_k = 5 }
  T.checkerr("TopK's k = 5 of an axis of 4", dlb.models.from_onnx, write("moe_bad", bad), { quiet = true })
  -- TopK alone: [batch, seq, 8] -> [batch, seq, 3]; over the symbolic seq axis, or with a k
  -- that is not a constant, refused naming it
  local function topk_model(axis, k_input)
    local inits = {}
    if not k_input then inits[1] = shape_init("k3", { 3 }) end
    local inputs = { H.value_info("x", H.tensor_type(1, { "batch", "seq", 8 })) }
    if k_input then inputs[2] = H.value_info("k3", H.tensor_type(7, { 1 })) end
    return H.model(H.graph { nodes = { H.node("TopK", { "x", "k3" }, { "v", "i" }, "topk", { attr_int("axis", axis) }) },
      inits = inits, inputs = inputs,
      outputs = { H.value_info("v", H.tensor_type(1, { "batch", "seq", 3 })) } }, 17)
  end
  local tg = dlb.models.from_onnx(write("topk", topk_model(2)), { quiet = true })
  local core = require "dlbench.backend"
  local shapes = {}
  for i = 0, tg:ntensors() - 1 do
    local name, dims = core.graph_tensor_info(tg._h, i)
    shapes[name] = table.concat(dims, ",")
  end
  T.eq(shapes["topk:0"], "batch,seq,3", "TopK's values: the first part of the split")
  for _, r in ipairs(tg:ops { inference = true, batch = 2, seq = 4 }) do
    if r.name == "topk" then T.eq(r.type, "split", "TopK as a split"); T.eq(r.flops, 0, "a split's costs: no FLOPs") end
  end
  T.checkerr("TopK over axis 1 of 'x', a symbolic dim", dlb.models.from_onnx, write("topk_seq", topk_model(1)), { quiet = true })
  T.checkerr("TopK's k ('k3') must be a constant known at import time", dlb.models.from_onnx,
    write("topk_in", topk_model(2, true)), { quiet = true })
end)

T.test("ONNX: what cannot be inferred is refused, naming it", function()
  local cnn = dlb.models.from_onnx(FIX .. "small_cnn.onnx", { quiet = true })
  T.checkerr("cannot infer layers", S.model, cnn)
  T.checkerr("give the fields instead", S.model, cnn)
  -- an encoder-only graph without an LM head: the BERT fixture has no vocab matmul
  local bert = dlb.models.from_onnx(FIX .. "bert_like.onnx", { quiet = true })
  T.checkerr("cannot infer vocab", S.model, bert)
  T.checkerr("not a decoder's LM head", S.model, bert)
  -- a graph built by hand with no transformer config still says what to give
  local g = dlb.graph("plain")
  local x = g:input("x", { "b", 8 })
  g:relu(g:matmul(x, g:weight("w", { 8, 8 })))
  T.checkerr("carries no transformer config", S.model, g)
end)

os.execute("rm -rf '" .. dir .. "'")
T.done()
