-- test_onnx_causal.lua — issue [18] item 7: a causal attention mask read from an ONNX file
-- (graphs/io/onnx_mask.c, docs/import.md "Causal attention"). Each case is one attention head
-- block written here as protobuf bytes (scores = q kt, a mask, softmax, p v) in the forms
-- exporters write: GPT-2's bool buffer applied by Where (modeling_gpt2.py: torch.where(
-- causal_mask, w, mask_value)), masked_fill's Where(mask, -inf, scores), an additive 0 / -inf
-- buffer, Trilu of a -inf fill (torch.triu(full(min), diagonal=1)), and Hugging Face's
-- _make_causal_mask (arange(n) < (arange(n) + 1).view(n, 1), masked_fill(cond, 0) of a
-- finfo.min fill). Each must be read as causal (row i sees columns j <= i); masks that are
-- not (the other triangle, an offset diagonal, a band, a zero fill, a padding mask, a buffer
-- whose leading slices differ) must not. g:attention counts the patterns; dlbench.mfu reads
-- it. Both backends.
local T = require "harness"
local H = require "hostile_files"
local dlb = require "dlbench"
local mfu = require "dlbench.mfu"

local S = 8           -- the sequence (static here; the GPT-2 fixture has it symbolic)
local dir = T.tmpdir()
local n = 0

-- TensorProto: dims 1, data_type 2, name 8, raw_data 9 (onnx.proto)
local function tensor(name, dtype, dims, raw)
  local s = {}
  for _, d in ipairs(dims) do s[#s + 1] = H.int(1, d) end
  return table.concat(s) .. H.int(2, dtype) .. H.bytes(8, name) .. H.bytes(9, raw)
end
-- AttributeProto of a tensor: name 1, t 5, type 20 = TENSOR (4)
local function attr_tensor(name, t) return H.bytes(1, name) .. H.int(20, 4) .. H.bytes(5, t) end
local function attr_int(name, v) return H.bytes(1, name) .. H.int(20, 2) .. H.int(3, v) end
local function const(out, dtype, dims, raw)
  return H.node("Constant", {}, { out }, out, { attr_tensor("value", tensor("", dtype, dims, raw)) })
end
local FLOAT, INT64, BOOL, FLOAT16 = 1, 7, 9, 10
local NEGINF = "\0\0\128\255"          -- float32 -inf
local FMIN = "\255\255\127\255"        -- float32 finfo.min
local ZERO = "\0\0\0\0"
local function i64(v) return string.char(v) .. ("\0"):rep(7) end    -- 0 <= v < 256
-- the raw data of L leading slices of an R x C grid: f(l, i, j) true -> one, else zero
local function grid(L, R, C, f, one, zero)
  local s = {}
  for l = 0, L - 1 do
    for i = 0, R - 1 do
      for j = 0, C - 1 do s[#s + 1] = f(l, i, j) and one or zero end
    end
  end
  return table.concat(s)
end
local function tril(k) return function(_, i, j) return j - i <= k end end
local function triu(k) return function(_, i, j) return j - i >= k end end

-- One attention block per entry of `masks` (a function of the scores' name and a prefix that
-- returns the nodes, initializers and the masked scores' name); inputs q, kt, v [batch, 2, S, 4]
-- ([batch, 2, 4, S] for kt), outputs y1, y2 ...
local function import(masks, extra_inputs)
  local nodes, inits, outs = {}, {}, {}
  local inputs = {
    H.value_info("q", H.tensor_type(FLOAT, { "batch", 2, S, 4 })),
    H.value_info("kt", H.tensor_type(FLOAT, { "batch", 2, 4, S })),
    H.value_info("v", H.tensor_type(FLOAT, { "batch", 2, S, 4 })) }
  for _, x in ipairs(extra_inputs or {}) do inputs[#inputs + 1] = x end
  for b, mask in ipairs(masks) do
    local p = "b" .. b .. "/"
    nodes[#nodes + 1] = H.node("MatMul", { "q", "kt" }, { p .. "sc" }, p .. "scores")
    local mn, mi, ms = mask(p .. "sc", p)
    for _, x in ipairs(mn) do nodes[#nodes + 1] = x end
    for _, x in ipairs(mi) do inits[#inits + 1] = x end
    nodes[#nodes + 1] = H.node("Softmax", { ms }, { p .. "pr" }, p .. "softmax")
    nodes[#nodes + 1] = H.node("MatMul", { p .. "pr", "v" }, { "y" .. b }, p .. "context")
    outs[#outs + 1] = H.value_info("y" .. b, H.tensor_type(FLOAT, { "batch", 2, S, 4 }))
  end
  local m = H.model(H.graph { nodes = nodes, inits = inits, inputs = inputs, outputs = outs }, 14)
  n = n + 1
  local path = dir .. "/c" .. n .. ".onnx"
  local f = assert(io.open(path, "wb")); f:write(m); f:close()
  return dlb.models.from_onnx(path, { quiet = true, loss = "mse" })
end

-- the masks
local function where_keep(raw, dims, fill)       -- Where(mask, scores, fill)
  return function(sc, p)
    return { const(p .. "fill", FLOAT, {}, fill or NEGINF),
      H.node("Where", { p .. "mask", sc, p .. "fill" }, { p .. "ms" }, p .. "where") },
      { tensor(p .. "mask", BOOL, dims or { 1, 1, S, S }, raw) }, p .. "ms"
  end
end
local function where_fill(raw)                   -- masked_fill: Where(mask, fill, scores)
  return function(sc, p)
    return { const(p .. "fill", FLOAT, {}, NEGINF),
      H.node("Where", { p .. "mask", p .. "fill", sc }, { p .. "ms" }, p .. "where") },
      { tensor(p .. "mask", BOOL, { 1, 1, S, S }, raw) }, p .. "ms"
  end
end
local function additive(dtype, raw, node)         -- scores + mask (an initializer, or a Constant)
  return function(sc, p)
    local add = H.node("Add", { sc, p .. "mask" }, { p .. "ms" }, p .. "add")
    if node then return { const(p .. "mask", dtype, { S, S }, raw), add }, {}, p .. "ms" end
    return { add }, { tensor(p .. "mask", dtype, { S, S }, raw) }, p .. "ms"
  end
end
local BOOL1, BOOL0 = "\1", "\0"

-- A 2S x 2S lower-triangular boolean buffer sliced to S x S from row r0, column c0 (as GPT-2's
-- exported bias buffer is, before Where keeps the scores): a mask builder for the cases below
local function sliced_tril(r0, c0)
  return function(sc, p)
    return { const(p .. "st", INT64, { 2 }, i64(r0) .. i64(c0)),
      const(p .. "en", INT64, { 2 }, i64(r0 + S) .. i64(c0 + S)),
      const(p .. "ax", INT64, { 2 }, i64(2) .. i64(3)),
      H.node("Slice", { p .. "buf", p .. "st", p .. "en", p .. "ax" }, { p .. "mask" }, p .. "slice"),
      const(p .. "fill", FLOAT, {}, NEGINF),
      H.node("Where", { p .. "mask", sc, p .. "fill" }, { p .. "ms" }, p .. "where") },
      { tensor(p .. "buf", BOOL, { 1, 1, 2 * S, 2 * S }, grid(1, 2 * S, 2 * S, tril(0), BOOL1, BOOL0)) }, p .. "ms"
  end
end

T.test("the causal masks exporters write are read as causal", function()
  local cases = {
    { "GPT-2: Where(tril buffer, scores, -inf)", where_keep(grid(1, S, S, tril(0), BOOL1, BOOL0)) },
    { "Where(tril buffer, scores, finfo.min)", where_keep(grid(1, S, S, tril(0), BOOL1, BOOL0), nil, FMIN) },
    { "masked_fill: Where(triu(1) buffer, -inf, scores)", where_fill(grid(1, S, S, triu(1), BOOL1, BOOL0)) },
    { "additive 0 / -inf buffer (fp32)", additive(FLOAT, grid(1, S, S, triu(1), NEGINF, ZERO)) },
    { "additive 0 / -inf buffer (fp16)", additive(FLOAT16, grid(1, S, S, triu(1), "\0\252", "\0\0")) },
    { "Trilu(upper, k = 1) of a -inf fill", function(sc, p)
      return { const(p .. "shape", INT64, { 2 }, i64(S) .. i64(S)),
        H.node("ConstantOfShape", { p .. "shape" }, { p .. "full" }, p .. "full",
          { attr_tensor("value", tensor("", FLOAT, { 1 }, NEGINF)) }),
        const(p .. "k", INT64, {}, i64(1)),
        H.node("Trilu", { p .. "full", p .. "k" }, { p .. "mask" }, p .. "trilu", { attr_int("upper", 1) }),
        H.node("Add", { sc, p .. "mask" }, { p .. "ms" }, p .. "add") }, {}, p .. "ms"
    end },
    { "Hugging Face _make_causal_mask: arange(n) < (arange(n) + 1).view(n, 1)", function(sc, p)
      return { const(p .. "r0", INT64, {}, i64(0)), const(p .. "rn", INT64, {}, i64(S)),
        const(p .. "r1", INT64, {}, i64(1)),
        H.node("Range", { p .. "r0", p .. "rn", p .. "r1" }, { p .. "cond_cols" }, p .. "range"),
        H.node("Add", { p .. "cond_cols", p .. "r1" }, { p .. "plus1" }, p .. "plus1"),
        const(p .. "col", INT64, { 2 }, i64(S) .. i64(1)),
        H.node("Reshape", { p .. "plus1", p .. "col" }, { p .. "rows" }, p .. "view"),
        H.node("Less", { p .. "cond_cols", p .. "rows" }, { p .. "cond" }, p .. "less"),
        const(p .. "shape", INT64, { 2 }, i64(S) .. i64(S)),
        H.node("ConstantOfShape", { p .. "shape" }, { p .. "full" }, p .. "full",
          { attr_tensor("value", tensor("", FLOAT, { 1 }, FMIN)) }),
        const(p .. "zero", FLOAT, {}, ZERO),
        H.node("Where", { p .. "cond", p .. "zero", p .. "full" }, { p .. "mask" }, p .. "masked_fill"),
        const(p .. "ax", INT64, { 2 }, i64(0) .. i64(1)),
        H.node("Unsqueeze", { p .. "mask", p .. "ax" }, { p .. "mask4" }, p .. "unsqueeze"),
        H.node("Add", { sc, p .. "mask4" }, { p .. "ms" }, p .. "add") }, {}, p .. "ms"
    end },
    { "a 2S buffer sliced to its last S rows and columns", sliced_tril(S, S) },
  }
  for _, c in ipairs(cases) do
    local g = import { c[2] }
    local a = g:attention { batch = 2 }
    T.eq(a.count, 1, c[1] .. ": one attention pattern")
    T.eq(a.causal, 1, c[1] .. ": causal")
    T.eq(mfu.causal(g), true, c[1] .. ": mfu.causal")
    -- the scores and P V matmuls: 2 x 2 b H S S dh = 2 x 2 x 2 x 2 x 8 x 8 x 4 at batch 2
    T.eq(a.flops:number(), 4096, c[1] .. ": attention FLOPs")
    T.eq(a.flops_causal:number(), 4096, c[1] .. ": causal attention FLOPs")
    T.eq(g:stats { batch = 2 }.params, 0, c[1] .. ": no parameters (a mask buffer is no weight)")
  end
end)

T.test("masks that are not causal are not read as causal", function()
  local pad = H.value_info("pad", H.tensor_type(FLOAT, { "batch", 1, 1, S }))
  local cases = {
    { "the other triangle: Where(triu(0), scores, -inf)", where_keep(grid(1, S, S, triu(0), BOOL1, BOOL0)) },
    { "an offset diagonal: Where(tril(1), scores, -inf)", where_keep(grid(1, S, S, tril(1), BOOL1, BOOL0)) },
    { "a band (sliding window 3)", where_keep(grid(1, S, S, function(_, i, j) return j <= i and j > i - 3 end, BOOL1, BOOL0)) },
    { "a zero fill: Where(tril, scores, 0)", where_keep(grid(1, S, S, tril(0), BOOL1, BOOL0), nil, ZERO) },
    { "leading slices that differ", where_keep(grid(2, S, S, function(l, i, j) return l == 1 or j <= i end, BOOL1, BOOL0),
      { 1, 2, S, S }) },
    { "masked_fill of tril (masks the past)", where_fill(grid(1, S, S, tril(0), BOOL1, BOOL0)) },
    -- (a float initializer that is no 0 / fill triangle is a weight, and an add of a weight
    -- is no mask: a Constant here)
    { "additive with -1 above the diagonal (no fill)", additive(FLOAT, grid(1, S, S, triu(1), "\0\0\128\191", ZERO), true) },
    { "a padding mask (a graph input)", function(sc, p)
      return { H.node("Add", { sc, "pad" }, { p .. "ms" }, p .. "add") }, {}, p .. "ms"
    end, { pad } },
    { "a 2S buffer sliced to rows S..2S, columns 0..S (offset S)", sliced_tril(S, 0) },
  }
  for _, c in ipairs(cases) do
    local g = import({ c[2] }, c[3])
    local a = g:attention { batch = 2 }
    T.eq(a.count, 1, c[1] .. ": one attention pattern")
    T.eq(a.causal, 0, c[1] .. ": not causal")
    T.eq(mfu.causal(g), false, c[1] .. ": mfu.causal")
    T.eq(a.flops_causal:number(), 0, c[1] .. ": no causal attention FLOPs")
    -- not read as causal: the graph does not say its attention (a mask the importer does not
    -- read may be causal), and MFU counts it whole
    T.eq(mfu.attention_fwd(g, { batch = 2 }), nil, c[1] .. ": attention not said")
  end
end)

T.test("one causal and one non-causal attention: the graph does not say", function()
  local g = import({ where_keep(grid(1, S, S, tril(0), BOOL1, BOOL0)), where_keep(grid(1, S, S, tril(1), BOOL1, BOOL0)) })
  local a = g:attention { batch = 2 }
  T.eq(a.count, 2, "two patterns")
  T.eq(a.causal, 1, "one causal")
  T.eq(a.flops:number(), 8192, "both blocks' attention FLOPs")
  T.eq(a.flops_causal:number(), 4096, "the causal block's")
  T.eq(mfu.causal(g), false, "not a causal decoder")
  T.eq(mfu.attention_fwd(g, { batch = 2 }), nil, "attention not said: counted whole")
  local H100 = dlb.hw.get("H100-SXM")
  local r = dlb.roofline.time(g:stats { batch = 2 }, H100)
  T.eq(r.mfu_convention, "model FLOPs (fwd + bwd, no recompute; attention as in the graph, counted whole: "
    .. "not every attention mask of the imported graph is read as causal, docs/import.md)", "the convention says why")
end)

T.test("g:attention: bindings checked", function()
  local g = import { where_keep(grid(1, S, S, tril(0), BOOL1, BOOL0)) }
  T.eq(tostring(g:attention().flops), "2048*batch", "a poly in the unbound batch")
  T.checkerr("g:attention: bindings must be a table", g.attention, g, 3)
  T.checkerr("g:attention: binding batch must be a number", g.attention, g, { batch = "2" })
end)

os.execute("rm -rf '" .. dir .. "'")
T.done()
