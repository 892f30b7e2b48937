-- tour.lua — a tour of dlbench: what the README's first command runs.
-- Each section shows one capability; figures go to out/.
local dlb = require "dlbench"

print(string.format("dlbench %s on %s, backend %s", dlb.version(), _VERSION, dlb.backend))
print()

-- == section: graphs ==
-- Compute graphs: build a forward graph, let dlbench expand the training step and count it.
do
  local nn = require "dlbench.nn"
  local g = dlb.graph("mlp")
  local x = g:input("x", { "b", 784 })
  local h = g:relu(nn.linear(g, x, "h", { name = "fc1" }))
  g:loss(g:softmax_xent(nn.linear(g, h, 10, { name = "fc2" }), g:label("labels", { "b" })))
  local sym = g:stats{}
  print("MLP training-step FLOPs: " .. tostring(sym.flops))
  print("  at b=32, h=1024: " .. string.format("%.4g", sym.flops{ b = 32, h = 1024 }))
  g:summary{ b = 32, h = 1024, optimizer = "adam" }
  -- Hestness et al. (seeds/000 §4.2): an LSTM LM's forward matmul FLOPs q(16h^2 l + 2hv)
  local lm = nn.lstm_lm{ batch = 1, steps = 4, layers = 2 }
  print("LSTM LM (q=4, l=2) forward matmul FLOPs: " .. tostring(lm:type_flops("matmul"))
    .. "; params " .. tostring(lm:stats{}.params))
  local s = lm:stats{ h = 1024, v = 10000, precision = "mixed", optimizer = "adam" }
  print(string.format("  h=1024, v=10000, mixed precision, adam: %.3g FLOP/step, footprint %.3g MB",
    s.flops, s.footprint / 1e6))
  print()
end
-- == end: graphs ==

-- == section: models ==
-- == end: models ==

-- == section: hw ==
-- == end: hw ==

-- == section: plots ==
-- == end: plots ==

-- == section: sweeps ==
-- == end: sweeps ==

-- == section: scaling ==
-- == end: scaling ==

-- == section: parallel ==
-- == end: parallel ==
