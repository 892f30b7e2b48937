-- dlbench.models.paradnn — ParaDnn's parameterised families (Wang, Wei, Brooks, "A
-- Systematic Methodology for Analysis of Deep Learning Hardware and Software Platforms",
-- MLSys 2020; seeds/004 §2.1, Table 2): fully connected, residual/bottleneck CNN and
-- RNN/LSTM/GRU models. Every dim may be symbolic except the RNN length (unrolled) and the
-- CNN image/blocks/filters (convolution shapes). RMSProp is the default optimizer.
local C = require "dlbench.models.common"
local nn = require "dlbench.nn"
local R = require "dlbench.models.resnet"
local doc = require "dlbench.doc"

local M = {}
local OPT = C.OPTIMIZERS -- the C enum DLB_OPT_*, in its order

local FC = {
  { "layers", 4, "count", "hidden layers (Table 2: 4..128, x2)" },
  { "nodes", 1024, "dim", "units per hidden layer (32..8192, x2)", { "hidden", "width" } },
  { "input", 2000, "dim", "input features (2000..8000, +2000)" },
  { "output", 1000, "dim", "output classes (200..1000, +200)", { "classes" } },
  { "batch", "b", "dim", "examples per step (64..16384, x2)" },
  { "optimizer", "rmsprop", OPT, "default optimizer for g:stats (ParaDnn: RMSProp)" },
}

-- Input -> [Layer[Node]] -> Output: `layers` ReLU layers of `nodes` units (with biases), a
-- linear output layer and softmax cross-entropy.
function M.fc(opts)
  local what = "dlb.models.paradnn.fc"
  local o = C.options(opts, FC, what)
  local g = C.graph("paradnn_fc", o, o.optimizer)
  local x = g:input("x", { o.batch, o.input })
  for l = 1, o.layers do
    g:layer("fc" .. l)
    x = g:relu(nn.linear(g, x, o.nodes, { name = "fc" .. l }))
  end
  g:layer("output")
  local logits = nn.linear(g, x, o.output, { name = "output" })
  g:loss(g:softmax_xent(logits, g:label("labels", { o.batch }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.fc, "dlb.models.paradnn.fc{layers=4, nodes=1024, input=2000, output=1000, batch=\"b\", optimizer=\"rmsprop\"} -> graph",
  "ParaDnn fully connected model; params = input*nodes + (layers-1)*nodes^2 + nodes*output + biases")

local CNN = {
  { "blocks", 2, "count", "blocks per group, four groups (Table 2: 1..8)" },
  { "filters", 16, "int", "filters of the first group, doubling per group (16..64, x2)" },
  { "image", 200, "int", "input height = width, 3 channels (200..300, +50)" },
  { "output", 1000, "dim", "output classes (500..1500, +500)", { "classes" } },
  { "batch", "b", "dim", "images per step (64..1024, x2)" },
  { "block", "bottleneck", { "bottleneck", "residual" }, "bottleneck (3 convs, x4 expansion) or residual (2 convs) blocks" },
  { "optimizer", "rmsprop", OPT, "default optimizer for g:stats" },
}

-- Input -> [Residual/Bottleneck Block] x 4 groups -> FC -> Output, with ResNet's stem (7x7
-- stride-2 conv with `filters` channels, 3x3 max pool), groups 2..4 downsampling by 2 in
-- their first block, batch norm after every conv, global average pool, FC.
function M.cnn(opts)
  local what = "dlb.models.paradnn.cnn"
  local o = C.options(opts, CNN, what)
  C.image_min(what, CNN, o, 32, "at least 32: the net downsamples 32x")
  local g = C.graph("paradnn_cnn", o, o.optimizer)
  local x = g:input("images", { o.batch, 3, o.image, o.image })
  local n = o.blocks
  local outs = R.trunk(g, x, { block = o.block == "residual" and "basic" or "bottleneck",
    blocks = { n, n, n, n }, width = o.filters / 64, bn = true })
  g:layer("fc")
  local logits = nn.linear(g, g:global_avgpool(outs[4]), o.output, { name = "fc" })
  g:loss(g:softmax_xent(logits, g:label("labels", { o.batch }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.cnn, "dlb.models.paradnn.cnn{blocks=2, filters=16, image=200, output=1000, batch=\"b\", block=\"bottleneck\"|\"residual\"} -> graph",
  "ParaDnn residual CNN: four groups of blocks, filters doubling per group")

local RNN = {
  { "layers", 1, "count", "recurrent layers (Table 2: 1..13, +4)" },
  { "embed", 100, "dim", "embedding size = hidden units (100..900, +400)", { "hidden" } },
  { "length", 10, "count", "tokens per sequence, unrolled (10..90, +40)", { "seq", "steps" } },
  { "vocab", 2, "dim", "vocabulary (2..1024, x4)" },
  { "batch", "b", "dim", "sequences per step (16..1024, x4)" },
  { "cell", "rnn", { "rnn", "lstm", "gru" }, "recurrent cell (the paper's default: basic RNN)" },
  { "optimizer", "rmsprop", OPT, "default optimizer for g:stats" },
}

-- Input -> [RNN/LSTM/GRU Cell] -> Output: token embedding of size `embed`, `layers` cells of
-- `embed` units unrolled over `length`, a softmax over the vocabulary at every step.
function M.rnn(opts)
  local what = "dlb.models.paradnn.rnn"
  local o = C.options(opts, RNN, what)
  local b, e, v, q = o.batch, o.embed, o.vocab, o.length
  local g = C.graph("paradnn_rnn", o, o.optimizer)
  g:layer("embedding")
  local xs = C.unstack(g, nn.embedding(g, g:input("ids", { b, q }, "int32"), v, e, { name = "embedding" }), "embedding")
  local outs = nn.lstm(g, xs, { hidden = e, layers = o.layers, cell = o.cell, name = o.cell })
  g:layer("output")
  local logits = nn.linear(g, C.concat(g, outs, 1), v, { name = "output" })
  g:loss(g:softmax_xent(logits, g:label("labels", { C.mul(q, b) }), "loss"))
  g:layer(nil)
  return g
end
doc.doc(M.rnn, "dlb.models.paradnn.rnn{layers=1, embed=100, length=10, vocab=2, batch=\"b\", cell=\"rnn\"|\"lstm\"|\"gru\"} -> graph",
  "ParaDnn recurrent model (embedding, cells, per-token softmax)")

-- option specs {name, default, kind, help} by model name (docs/models.md)
M.specs = { ["paradnn.fc"] = FC, ["paradnn.cnn"] = CNN, ["paradnn.rnn"] = RNN }

return M
