-- test_graph.lua — the compute-graph engine through the Lua API, under both backends:
-- hand-derived goldens (MLP, conv layer, LSTM LM against Hestness et al.), backward vs
-- forward, symbolic vs numeric, errors naming ops and tensors.
local T = require "harness"
local dlb = require "dlbench"
local nn = require "dlbench.nn"
local P = dlb.poly

local function mlp()
  local g = dlb.graph("mlp")
  local x = g:input("x", { "b", 784 })
  local w1 = g:weight("w1", { 784, "h" })
  local w2 = g:weight("w2", { "h", 10 })
  local y = g:matmul(g:relu(g:matmul(x, w1, "fc1")), w2, "fc2")
  g:loss(g:softmax_xent(y, g:label("labels", { "b" })))
  return g
end

T.test("mlp goldens", function()
  -- hand derivation (b=32, h=1024): params 784*1024 + 1024*10 = 813056;
  -- fwd 2*32*784*1024 + 32*1024 + 2*32*1024*10 + 4*32*10 = 52069632;
  -- bwd 640 + 2*655360 + 32768 + 51380224 = 52724352; sgd update 2*813056 = 1626112
  local s = mlp():stats{ b = 32, h = 1024 }
  T.eq(s.params, 813056)
  T.eq(s.flops_fwd, 52069632)
  T.eq(s.flops_bwd, 52724352)
  T.eq(s.flops_update, 1626112)
  T.eq(s.flops, 52069632 + 52724352 + 1626112)
  T.eq(s.io, 32 * 784 * 4 + 32 * 4)
  T.near(s.intensity, s.flops / s.bytes)
  T.near(s.breakdown.weights, 813056 * 4)
  T.eq(s.precision, "fp32")
  assert(s.analysis ~= nil and s.nops == 11)
  -- adam keeps two fp32 states per parameter (12 FLOPs/parameter update)
  local a = mlp():stats{ b = 32, h = 1024, optimizer = "adam" }
  T.eq(a.flops_update, 12 * 813056)
  T.eq(a.breakdown.optimizer, 2 * 4 * 813056)
end)

T.test("symbolic stats", function()
  local g = mlp()
  local s = g:stats{}
  T.eq(tostring(s.flops), "3198*b*h + 60*b + 1588*h")
  T.eq(tostring(s.params), "794*h")
  T.eq(s.flops{ b = 32, h = 1024 }, g:stats{ b = 32, h = 1024 }.flops)
  T.eq(tostring(g:stats{ h = 10 }.flops), "32040*b + 15880")
  T.checkerr("needs every dim bound; no value for b, h", function() return s.footprint end)
  T.checkerr("no value for h", function() return g:ops{ b = 1 } end)
end)

T.test("backward = 2x forward for matmul-only graphs", function()
  -- a chain of matmuls whose input needs a gradient too (it is produced from a weight):
  -- every matmul's backward is two matmuls of its own size, so bwd = 2*fwd exactly.
  local g = dlb.graph("chain")
  local x = g:weight("x", { "b", "h" })
  local y = x
  for i = 1, 3 do y = g:matmul(y, g:weight("w" .. i, { "h", "h" })) end
  g:loss(g:sum(y))
  local s = g:stats{}
  -- the sum (b*h FLOPs) and its gradient broadcast (0 FLOPs) are not matmuls
  local mm = g:type_flops("matmul")
  T.eq(tostring(mm), "6*b*h^2")
  T.eq(tostring(s.flops_bwd), "12*b*h^2")
  T.eq(tostring(s.flops_fwd - mm), "b*h")
end)

T.test("conv layer", function()
  -- x [8, 3, 32, 32], 16 filters 3x3, stride 2, pad 1 -> [8, 16, 16, 16];
  -- FLOPs 2*8*16*16*16*3*3*3 = 1769472; weights 16*3*3*3 = 432
  local g = dlb.graph("conv")
  local x = g:input("x", { 8, 3, 32, 32 })
  local y = nn.conv2d(g, x, 16, 3, { stride = 2, padding = 1, name = "c1" })
  T.eq(table.concat(y:dims(), ","), "8,16,16,16")
  local s = g:stats{ inference = true }
  T.eq(s.flops, 1769472)
  T.eq(s.params, 432)
  local ops = g:ops{ inference = true }
  T.eq(ops[1].name, "c1")
  T.eq(ops[1].phase, "fwd")
  local m, n, k, batch = dlb.core.analysis_gemm(s.analysis, 0)
  T.eq(m * n * k * batch * 2, 1769472)
end)

T.test("LSTM LM matches Hestness et al. q(16h^2 l + 2hv)", function()
  -- seeds/000 §4.2: params 8h^2 l + 2hv (plus biases 4h per layer and v for the output);
  -- forward matmul FLOPs per sample q(16h^2 l + 2hv). Unrolled q = 3 steps, l = 2 layers,
  -- b = 1 (the paper normalises per sample).
  local g = nn.lstm_lm{ batch = 1, steps = 3, layers = 2 }
  local paper = P("q*(16*h^2*l + 2*h*v)"):bind{ q = 3, l = 2 }
  T.eq(g:type_flops("matmul") == paper, true)
  local s = g:stats{}
  T.eq(tostring(s.params), tostring(P("8*h^2*l + 2*h*v + 4*h*l + v"):bind{ l = 2 }))
  -- the rest of the forward pass is elementwise: linear in h
  local rest = s.flops_fwd - paper
  assert(rest:degree() == 1, tostring(rest))
  -- with a symbolic batch the counts scale by b
  local gb = nn.lstm_lm{ batch = "b", steps = 3, layers = 2 }
  T.eq(gb:type_flops("matmul") == paper * "b", true)
end)

T.test("errors name ops, tensors and dims", function()
  local g = dlb.graph("bad")
  local x = g:input("x", { "b", 784 })
  local w = g:weight("w", { 512, "h" })
  T.checkerr("matmul 'fc1': inner dims differ: a 'x' [b, 784] has 784, b 'w' [512, h] has 512",
    g.matmul, g, x, w, "fc1")
  local img = g:input("img", { "b", 3, "s", "s" })
  T.checkerr("conv2d 'c': output height needs input 'img' [b, 3, s, s] dim s bound to a number",
    function() return nn.conv2d(g, img, 8, 3, { stride = 2, name = "c" }) end)
  T.checkerr("g:matmul: unknown option 'transpose'", g.matmul, g, x, w, { transpose = true })
  T.checkerr("tensor 'z' dim 1: poly: expected a number or a name at the end of \"4*h+\"", g.input, g, "z", { "4*h+" })
  T.checkerr("g:stats: unknown optimizer 'adamw'", g.stats, g, { optimizer = "adamw" })
  T.checkerr("g:stats: unknown option 'foo'", g.stats, g, { foo = "x" })
  T.checkerr("no loss marked", g.stats, g, { b = 1, h = 1, s = 8 })
  T.checkerr("g:matmul: a tensor expected", g.matmul, g, x, 3)
end)

T.test("summary and dot", function()
  local g = mlp()
  local text = g:summary{ b = 32, h = 1024 }
  assert(text:find("matmul", 1, true) and text:find("multiply-accumulate = 2", 1, true), text)
  local dot = g:dot()
  assert(dot:find("digraph \"mlp\"", 1, true) and dot:find("fc1", 1, true), dot)
end)

T.done()
