-- dlbench.nn — layer builders over dlb.graph: each creates its weights with sensible
-- names (<name>/w, <name>/b ...) and returns the output tensor(s).
--   local nn = require "dlbench.nn"
--   local h = nn.linear(g, x, 1024, {name="fc1"})           -- matmul + bias
--   local y = nn.conv2d(g, img, 64, 3, {stride=2, padding=1, name="conv1"})
--   local outs = nn.lstm(g, xs, {hidden="h", layers=2, name="lstm"})  -- unrolled
-- Dims are integers, strings ("4*h") or polys, as everywhere in dlb.graph.
local doc = require "dlbench.doc"
local options = require "dlbench.options"
local poly = require "dlbench.poly"
local core = require "dlbench.backend"
local graph = require "dlbench.graph"

local Tensor = graph.Tensor
local setmetatable, type = setmetatable, type
-- Whole layers in one backend call (graphs/ir/graph_layers.c): the same tensors and ops, in
-- the same order, as the op-by-op construction kept below as the fallback (used when an
-- argument is not a plain tensor/dim, so that the ops' own messages explain).
local c_linear, c_conv, c_norm, c_embedding = core.graph_linear, core.graph_conv, core.graph_norm,
  core.graph_embedding_layer
local c_lstm, c_gru, c_rnn, c_highway = core.graph_lstm_cell, core.graph_gru_cell, core.graph_rnn_cell,
  core.graph_highway
local BATCHNORM, LAYERNORM, RMSNORM = core.graph_op_type("batchnorm"), core.graph_op_type("layernorm"),
  core.graph_op_type("rmsnorm")

-- t is a tensor of g (only tensors carry their graph, as graph.lua's hot paths assume; the
-- backend checks the id).
local function ist(g, t) return type(t) == "table" and t.graph == g end
local function isdim(d) local td = type(d) return td == "string" or td == "number" end
local function wrap(g, id) return setmetatable({ graph = g, id = id }, Tensor) end

local M = {}
-- true: the helpers build each layer in one backend call; false: op by op through
-- dlb.graph (the reference construction; tests/lua/test_graph_layers.lua compares both).
M.fast = true

local counter = setmetatable({}, { __mode = "k" })
-- A fresh name "<kind><n>" per graph when opts.name is not given: autonum returns (opts.name, nil) or (kind, n) for the name kind .. n, which the layer
-- builder bindings compose themselves (a Lua string per layer costs about 200 ns).
local function autonum(g, opts, kind)
  local name = opts and opts.name
  if name then return name, nil end
  local c = counter[g]
  if not c then c = {}; counter[g] = c end
  local n = (c[kind] or 0) + 1
  c[kind] = n
  return kind, n
end
local function autoname(g, opts, kind)
  local name, n = autonum(g, opts, kind)
  if n then return name .. n end
  return name
end

-- The valid options of each helper (constant tables: no allocation per call).
local V1 = { name = true, bias = true }
local V2 = { name = true, bias = true, stride = true, padding = true, dilation = true,
             groups = true, workspace = true }
local V3, V4, V5, V6 = { name = true }, { name = true }, { name = true }, { name = true }
local V7 = { name = true, heads = true }
local V8 = { hidden = true, layers = true, name = true, cell = true }
local V9 = { hidden = true, depth = true, name = true }
local V10 = { batch = true, steps = true, hidden = true, layers = true, vocab = true,
              name = true, cell = true }
-- The options of a call without options (read only).
local NOOPTS = setmetatable({}, { __newindex = function() error("nn: options are read-only", 2) end })
local function check(opts, valid, what)
  if opts == nil then return NOOPTS end
  opts = options.check(opts, valid, what, 3)
  -- bias is a switch: bias = 0 added one (linear's "~= false", conv's truth)
  if valid.bias then options.switches(opts, { "bias" }, what, 3) end
  return opts
end

local function last(t)
  local d = t:dims()
  return d[#d]
end

local function dstr(d) return poly.is(d) and tostring(d) or d end

-- Multiply a dim (number or text) by k, as text.
local function times(k, d)
  if type(d) == "number" then return k * d end
  return tostring(poly.new(dstr(d)) * k)
end

function M.linear(g, x, nout, opts)
  opts = check(opts, V1, "nn.linear")
  local name, n = autonum(g, opts, "linear")
  local lora = rawget(g, "_lora") and graph.lora_target(g, n and (name .. n) or name)
  if M.fast and not lora and ist(g, x) and isdim(nout) and type(name) == "string" then
    return wrap(g, c_linear(g._h, x.id, nout, opts.bias ~= false, name, n))
  end
  if n then name = name .. n end
  local w = g:weight(name .. "/w", { last(x), dstr(nout) })
  local y = g:matmul(x, w, { name = name })
  if lora then -- LoRA (Hu et al. 2021): y += alpha/r (x A) B; W is frozen at g:stats
    local lo = g._lora
    local a = g:weight(name .. "/lora_A", { last(x), lo.rank })
    local b = g:weight(name .. "/lora_B", { lo.rank, dstr(nout) })
    local d = g:matmul(g:matmul(x, a, { name = name .. "/lora_A" }), b, { name = name .. "/lora_B" })
    y = g:add(y, g:scale(d, { name = name .. "/lora_scale" }), { name = name .. "/lora" })
  end
  if opts.bias ~= false then y = g:add(y, g:weight(name .. "/b", { dstr(nout) }), { name = name .. "/bias" }) end
  return y
end
doc.doc(M.linear, "nn.linear(g, x, nout[, {name=, bias=true}]) -> tensor",
  "x [..., nin] times <name>/w [nin, nout] plus <name>/b [nout]")

local function conv(g, x, cout, k, opts, what)
  opts = check(opts, V2, what)
  local name = autoname(g, opts, what == "nn.conv1d" and "conv1d" or "conv")
  local cin = x:dims()[2]
  local groups = opts.groups or 1
  if groups ~= 1 then
    local c = tonumber(cin)
    if not c then error(what .. " '" .. name .. "': groups need a numeric channel count", 3) end
    cin = c / groups
    if cin == math.floor(cin) then cin = math.floor(cin) end -- "32", not "32.0"
  end
  local kh, kw = k, k
  if type(k) == "table" then kh, kw = k[1], k[2] or k[1] end
  local wd = what == "nn.conv1d" and { dstr(cout), cin, kh } or { dstr(cout), cin, kh, kw }
  local attrs = M.fast and ist(g, x) and type(name) == "string" and graph._convattrs(opts, groups)
  if attrs then
    return wrap(g, c_conv(g._h, x.id, wd, attrs, opts.bias, name))
  end
  local w = g:weight(name .. "/w", wd)
  local y = (what == "nn.conv1d" and g.conv1d or g.conv2d)(g, x, w, { name = name, stride = opts.stride,
    padding = opts.padding, dilation = opts.dilation, groups = groups, workspace = opts.workspace })
  if opts.bias then
    local bd = what == "nn.conv1d" and { dstr(cout), 1 } or { dstr(cout), 1, 1 }
    y = g:add(y, g:weight(name .. "/b", bd), { name = name .. "/bias" })
  end
  return y
end
function M.conv2d(g, x, cout, k, opts) return conv(g, x, cout, k, opts, "nn.conv2d") end
function M.conv1d(g, x, cout, k, opts) return conv(g, x, cout, k, opts, "nn.conv1d") end
doc.doc(M.conv2d, "nn.conv2d(g, x, cout, k[, {stride=, padding=, dilation=, groups=, workspace=, bias=false, name=}]) -> tensor",
  "x [N, C, H, W]; creates <name>/w [cout, C/groups, k, k] (k or {kh, kw})")
doc.doc(M.conv1d, "nn.conv1d(g, x, cout, k[, opts]) -> tensor", "x [N, C, L]; <name>/w [cout, C/groups, k]")

function M.batchnorm(g, x, opts)
  opts = check(opts, V3, "nn.batchnorm")
  local name, n = autonum(g, opts, "bn")
  if M.fast and ist(g, x) and type(name) == "string" then return wrap(g, c_norm(g._h, BATCHNORM, x.id, name, n)) end
  if n then name = name .. n end
  local c = x:dims()[2]
  return g:batchnorm(x, g:weight(name .. "/gamma", { c }), g:weight(name .. "/beta", { c }), name)
end
doc.doc(M.batchnorm, "nn.batchnorm(g, x[, {name=}]) -> tensor", "batch norm with <name>/gamma, <name>/beta [C]")

function M.layernorm(g, x, opts)
  opts = check(opts, V4, "nn.layernorm")
  local name, n = autonum(g, opts, "ln")
  if M.fast and ist(g, x) and type(name) == "string" then return wrap(g, c_norm(g._h, LAYERNORM, x.id, name, n)) end
  if n then name = name .. n end
  local h = last(x)
  return g:layernorm(x, g:weight(name .. "/gamma", { h }), g:weight(name .. "/beta", { h }), name)
end
doc.doc(M.layernorm, "nn.layernorm(g, x[, {name=}]) -> tensor", "layer norm with <name>/gamma, <name>/beta")

function M.rmsnorm(g, x, opts)
  opts = check(opts, V5, "nn.rmsnorm")
  local name, n = autonum(g, opts, "rms")
  if M.fast and ist(g, x) and type(name) == "string" then return wrap(g, c_norm(g._h, RMSNORM, x.id, name, n)) end
  if n then name = name .. n end
  return g:rmsnorm(x, g:weight(name .. "/gamma", { last(x) }), name)
end
doc.doc(M.rmsnorm, "nn.rmsnorm(g, x[, {name=}]) -> tensor", "RMS norm with <name>/gamma")

function M.embedding(g, ids, vocab, dim, opts)
  opts = check(opts, V6, "nn.embedding")
  local name, n = autonum(g, opts, "embedding")
  if M.fast and ist(g, ids) and isdim(dstr(vocab)) and isdim(dstr(dim)) and type(name) == "string" then
    return wrap(g, c_embedding(g._h, ids.id, dstr(vocab), dstr(dim), name, n))
  end
  if n then name = name .. n end
  return g:embedding(ids, g:weight(name .. "/table", { dstr(vocab), dstr(dim) }), name)
end
doc.doc(M.embedding, "nn.embedding(g, ids, vocab, dim[, {name=}]) -> tensor", "lookup in <name>/table [vocab, dim]")

-- Multi-head self-attention on x [b, s, h]: q, k, v and output projections (with biases),
-- scores q k^T per head (scaled), softmax, weighted sum of v.
function M.attention(g, x, opts)
  opts = check(opts, V7, "nn.attention")
  local name = autoname(g, opts, "attention")
  local heads = opts.heads or error("nn.attention: heads= is required", 2)
  local d = x:dims()
  if #d ~= 3 then error("nn.attention: x must be [b, s, h], got " .. x:shape(), 2) end
  local b, sq, h = d[1], d[2], d[3]
  if type(heads) ~= "number" or heads < 1 or heads ~= math.floor(heads) then
    error("nn.attention: heads must be a positive integer, got " .. tostring(heads), 2)
  end
  local hn = tonumber(h)
  if hn and hn % heads ~= 0 then
    error(string.format("nn.attention '%s': heads (%d) must divide the hidden size %s of x %s",
      name, heads, h, x:shape()), 2)
  end
  local hd = tostring(poly.new(h) / heads)
  local function split_heads(t) -- [b, s, h] -> [b, heads, s, h/heads]
    return g:transpose(g:reshape(t, { b, sq, heads, hd }), { 1, 3, 2, 4 })
  end
  local q = split_heads(M.linear(g, x, h, { name = name .. "/q" }))
  local k = split_heads(M.linear(g, x, h, { name = name .. "/k" }))
  local v = split_heads(M.linear(g, x, h, { name = name .. "/v" }))
  local p = g:softmax(g:scale(g:matmul(q, k, { transpose_b = true, name = name .. "/scores" })))
  local o = g:matmul(p, v, { name = name .. "/context" })
  o = g:reshape(g:transpose(o, { 1, 3, 2, 4 }), { b, sq, h })
  return M.linear(g, o, h, { name = name .. "/o" })
end
doc.doc(M.attention, "nn.attention(g, x [b, s, h], {heads=, name=}) -> tensor",
  "multi-head self-attention: <name>/q, /k, /v, /o projections [h, h] with biases")

-- -- recurrent cells --

-- Split x [b, q, h] into q tensors [b, h] (q a number).
function M.unstack(g, x, name)
  local d = x:dims()
  local q = tonumber(d[2])
  if not q then error("nn.unstack: the time dim of " .. tostring(x) .. " must be a number", 2) end
  local parts = q == 1 and { x } or g:split(x, q, 2, name and (name .. "/steps"))
  local r = {}
  for i = 1, q do r[i] = g:reshape(parts[i], { d[1], d[3] }) end
  return r
end
doc.doc(M.unstack, "nn.unstack(g, x [b, q, h]) -> {q tensors [b, h]}", "time steps of a sequence (q a number)")

-- Weights of one cell: gates = [x, h] * w + b, w [nin + nh, gates*nh].
local function cellweights(g, name, nin, nh, gates)
  local w = g:weight(name .. "/w", { tostring(poly.new(dstr(nin)) + poly.new(dstr(nh))), times(gates, nh) })
  local b = g:weight(name .. "/b", { times(gates, nh) })
  return { w = w, b = b, gates = gates }
end

function M.lstm_weights(g, name, nin, nh) return cellweights(g, name, nin, nh, 4) end
function M.gru_weights(g, name, nin, nh)
  local p = cellweights(g, name, nin, nh, 2)
  p.wn = g:weight(name .. "/wn", { dstr(nin), dstr(nh) })
  p.un = g:weight(name .. "/un", { dstr(nh), dstr(nh) })
  p.bn = g:weight(name .. "/bn", { dstr(nh) })
  return p
end
function M.rnn_weights(g, name, nin, nh) return cellweights(g, name, nin, nh, 1) end
doc.doc(M.lstm_weights, "nn.lstm_weights(g, name, nin, nh) -> params", "<name>/w [nin+nh, 4nh], <name>/b [4nh]")
doc.doc(M.gru_weights, "nn.gru_weights(g, name, nin, nh) -> params", "GRU weights (reset/update gates, candidate)")
doc.doc(M.rnn_weights, "nn.rnn_weights(g, name, nin, nh) -> params", "<name>/w [nin+nh, nh], <name>/b [nh]")

local function gates(g, x, h, p)
  return g:add(g:matmul(g:concat({ x, h }, 2), p.w), p.b)
end

-- One LSTM step: returns h', c'.
function M.lstm_cell(g, x, h, c, p)
  -- ist(g, .) inlined: one step per layer and time step, the hot path of a recurrent build
  local w, b = type(p) == "table" and p.w, type(p) == "table" and p.b
  if M.fast and type(x) == "table" and x.graph == g and type(h) == "table" and h.graph == g
     and type(c) == "table" and c.graph == g and type(w) == "table" and w.graph == g
     and type(b) == "table" and b.graph == g then
    local h2, c2 = c_lstm(g._h, x.id, h.id, c.id, w.id, b.id)
    return wrap(g, h2), wrap(g, c2)
  end
  local parts = g:split(gates(g, x, h, p), 4, 2)
  local i, f, gg, o = g:sigmoid(parts[1]), g:sigmoid(parts[2]), g:tanh(parts[3]), g:sigmoid(parts[4])
  local c2 = g:add(g:mul(f, c), g:mul(i, gg))
  return g:mul(o, g:tanh(c2)), c2
end
doc.doc(M.lstm_cell, "nn.lstm_cell(g, x, h, c, params) -> h, c", "one LSTM step (16*nh^2 MAC-FLOPs per sample for nin=nh)")

-- One GRU step: returns h'.
function M.gru_cell(g, x, h, p)
  if M.fast and ist(g, x) and ist(g, h) and type(p) == "table" and ist(g, p.w) and ist(g, p.b) and ist(g, p.wn)
     and ist(g, p.un) and ist(g, p.bn) then
    return wrap(g, c_gru(g._h, x.id, h.id, p.w.id, p.b.id, p.wn.id, p.un.id, p.bn.id))
  end
  local rz = g:split(gates(g, x, h, p), 2, 2)
  local r, z = g:sigmoid(rz[1]), g:sigmoid(rz[2])
  local n = g:tanh(g:add(g:add(g:matmul(x, p.wn), g:mul(r, g:matmul(h, p.un))), p.bn))
  return g:add(n, g:mul(z, g:sub(h, n)))
end
doc.doc(M.gru_cell, "nn.gru_cell(g, x, h, params) -> h", "one GRU step")

function M.rnn_cell(g, x, h, p)
  if M.fast and ist(g, x) and ist(g, h) and type(p) == "table" and ist(g, p.w) and ist(g, p.b) then
    return wrap(g, c_rnn(g._h, x.id, h.id, p.w.id, p.b.id))
  end
  return g:tanh(gates(g, x, h, p))
end
doc.doc(M.rnn_cell, "nn.rnn_cell(g, x, h, params) -> h", "one Elman RNN step: tanh([x, h] w + b)")

local function zeros(g, name, b, nh)
  return g:tensor(name, { b, dstr(nh) }, { role = "activation" })
end

-- A stack of recurrent layers unrolled over the steps xs (a list of [b, nin] tensors).
-- Each layer is a layer scope "<name>/l<i>"; returns the top layer's outputs.
function M.lstm(g, xs, opts)
  opts = check(opts, V8, "nn.lstm")
  local name = autoname(g, opts, "lstm")
  local cell = opts.cell or "lstm"
  if cell ~= "lstm" and cell ~= "gru" and cell ~= "rnn" then
    error("nn.lstm: cell must be \"lstm\", \"gru\" or \"rnn\", got " .. tostring(cell), 2)
  end
  local nh = opts.hidden or error("nn.lstm: hidden= is required", 2)
  if #xs == 0 then error("nn.lstm: no time steps", 2) end
  local b = xs[1]:dims()[1]
  local ins = xs
  for l = 1, opts.layers or 1 do
    local lname = name .. "/l" .. l
    g:layer(lname)
    local nin = last(ins[1])
    local p = (cell == "lstm" and M.lstm_weights or cell == "gru" and M.gru_weights or M.rnn_weights)(g, lname, nin, nh)
    local h = zeros(g, lname .. "/h0", b, nh)
    local c = cell == "lstm" and zeros(g, lname .. "/c0", b, nh) or nil
    local outs = {}
    for t = 1, #ins do
      if cell == "lstm" then h, c = M.lstm_cell(g, ins[t], h, c, p)
      elseif cell == "gru" then h = M.gru_cell(g, ins[t], h, p)
      else h = M.rnn_cell(g, ins[t], h, p) end
      outs[t] = h
    end
    ins = outs
  end
  g:layer(nil)
  return ins
end
doc.doc(M.lstm, "nn.lstm(g, xs, {hidden=, layers=1, cell=\"lstm\"|\"gru\"|\"rnn\", name=}) -> {outputs}",
  "a multi-layer recurrent stack unrolled over the steps xs; layer scopes <name>/l<i>")

-- Recurrent highway network (Zilly et al. 2017): per step, `depth` highway sublayers with
-- coupled carry gates; the first also reads the input. Each sublayer is a layer scope.
function M.rhn(g, xs, opts)
  opts = check(opts, V9, "nn.rhn")
  local name = autoname(g, opts, "rhn")
  local nh = opts.hidden or error("nn.rhn: hidden= is required", 2)
  local depth = opts.depth or 1
  local b = xs[1]:dims()[1]
  local nin = last(xs[1])
  local ws, scope = {}, {} -- scope[l]: the layer name of sublayer l (not rebuilt per step)
  for l = 1, depth do
    scope[l] = name .. "/s" .. l
    g:layer(scope[l])
    local rows = l == 1 and tostring(poly.new(dstr(nin)) + poly.new(dstr(nh))) or dstr(nh)
    ws[l] = { w = g:weight(name .. "/s" .. l .. "/w", { rows, times(2, nh) }),
              b = g:weight(name .. "/s" .. l .. "/b", { times(2, nh) }) }
  end
  g:layer(name .. "/s1")
  local s = zeros(g, name .. "/h0", b, nh)
  local outs = {}
  for t = 1, #xs do
    for l = 1, depth do
      g:layer(scope[l])
      local x = l == 1 and xs[t] or nil
      if M.fast and (x == nil or ist(g, x)) and ist(g, s) then -- one call: graph_layers.c dlb_graph_highway
        s = wrap(g, c_highway(g._h, x and x.id or -1, s.id, ws[l].w.id, ws[l].b.id))
      else
        local inp = l == 1 and g:concat({ xs[t], s }, 2) or s
        local ht = g:split(g:add(g:matmul(inp, ws[l].w), ws[l].b), 2, 2)
        local h, tg = g:tanh(ht[1]), g:sigmoid(ht[2])
        s = g:add(s, g:mul(tg, g:sub(h, s))) -- s + t*(h - s): coupled carry gate
      end
    end
    outs[t] = s
  end
  g:layer(nil)
  return outs
end
doc.doc(M.rhn, "nn.rhn(g, xs, {hidden=, depth=, name=}) -> {outputs}",
  "a recurrent highway layer of `depth` sublayers unrolled over xs; scopes <name>/s<l>")

-- A word-level LSTM language model (Hestness et al. 2019, seeds/000 §4.2): embedding,
-- `layers` LSTM layers of `hidden` units unrolled `steps` times, an output projection to
-- the vocabulary and a softmax cross-entropy per step. Returns the graph, loss marked.
function M.lstm_lm(opts)
  opts = check(opts, V10, "nn.lstm_lm")
  local g = graph.new(opts.name or "lstm_lm")
  local b, q, h, v = opts.batch or "b", opts.steps or 1, opts.hidden or "h", opts.vocab or "v"
  if type(q) ~= "number" then error("nn.lstm_lm: steps must be a number (the graph is unrolled)", 2) end
  g:layer("embedding")
  local ids = g:input("ids", { b, q }, "int32")
  local x = M.embedding(g, ids, v, h, { name = "embedding" })
  local xs = M.unstack(g, x, "embedding")
  local outs = M.lstm(g, xs, { hidden = h, layers = opts.layers or 1, name = "lstm", cell = opts.cell })
  g:layer("output")
  local wo = g:weight("output/w", { h, v })
  local bo = g:weight("output/b", { v })
  local labels = g:label("labels", { b, q })
  local lab = g:split(labels, q, 2)
  local loss
  for t = 1, q do
    local logits = g:add(g:matmul(outs[t], wo), bo)
    local l = g:softmax_xent(logits, g:reshape(lab[t], { b }))
    loss = loss and g:add(loss, l) or l
  end
  g:layer(nil)
  g:loss(loss)
  return g
end
doc.doc(M.lstm_lm, "nn.lstm_lm{batch=, steps=, hidden=, layers=, vocab=} -> graph",
  "an LSTM word LM unrolled over `steps` (a number); other dims may be names")

doc.doc(M, "dlbench.nn", "layer builders: linear, conv2d, conv1d, batchnorm, layernorm, rmsnorm, "
  .. "embedding, attention, lstm/gru/rnn cells, lstm (stack), rhn, lstm_lm")
return M
