-- test_graph_errors.lua — regression tests for the QA findings on the compute-graph engine
-- (/tmp/qt min1, min3, min4, fuzz2, fuzz4): bad input gets an error naming the op, tensor,
-- option or dim, never a crash or a silently wrong number; both backends give the same
-- numbers and messages (the messages checked here are built in one place).
local T = require "harness"
local dlb = require "dlbench"
local nn = require "dlbench.nn"

-- The message without the "file:line: " position.
local function msg(f, ...)
  local ok, e = pcall(f, ...)
  if ok then error("expected an error, got success", 2) end
  return (tostring(e):gsub("^[^:]*:%d+: ", ""))
end

T.test("loss on a tensor no op produces is an error naming it", function()
  local g = dlb.graph("l")
  local x = g:input("x", { 3, 4 })
  T.checkerr("g:loss: tensor 'x' of graph 'l' (role input) is not the output of any op", g.loss, g, x)
  T.checkerr("tensor 'y' of graph 'l' (role label)", g.loss, g, g:label("y", { 3 }))
  T.checkerr("(role weight)", g.loss, g, g:weight("w", { 3 }))
  -- still no loss marked: stats says so rather than crashing
  T.checkerr("no loss marked", g.stats, g, {})
  g:loss(g:sum(x))
  T.eq(g:stats{}.flops, 12, "a loss made by an op")
end)

-- Step numbers and op rows of a graph built by build(axis) for two spellings of an axis.
local function same_step(build, a1, a2, what)
  local g1, g2 = build(a1), build(a2)
  local s1, s2 = g1:stats{ optimizer = "sgd" }, g2:stats{ optimizer = "sgd" } -- hand counts: sgd
  T.eq(s1.flops, s2.flops, what .. " flops")
  T.eq(s1.bytes, s2.bytes, what .. " bytes")
  T.eq(s1.footprint, s2.footprint, what .. " footprint")
  local o1, o2 = g1:ops{}, g2:ops{}
  T.eq(#o1, #o2, what .. " ops")
  for i = 1, #o1 do
    T.eq(o1[i].type .. " " .. o1[i].flops .. " " .. o1[i].bytes,
         o2[i].type .. " " .. o2[i].flops .. " " .. o2[i].bytes, what .. " op " .. i)
  end
  return s1
end

T.test("negative axes are normalised at construction (concat, split, slice, reductions)", function()
  local s = same_step(function(ax) -- min3: concat of two matmuls on the last axis
    local g = dlb.graph("c")
    local x = g:input("x", { 4, 3 })
    local c = g:concat({ g:matmul(x, g:weight("w1", { 3, 5 })), g:matmul(x, g:weight("w2", { 3, 6 })) }, ax)
    T.eq(table.concat(c:dims(), ","), "4,11", "concat dims")
    g:loss(g:sum(c))
    return g
  end, -1, 2, "concat")
  -- hand count: matmuls 2*4*3*5 + 2*4*3*6 = 264 fwd, their weight grads 264, sum 44,
  -- sgd updates 2*(15+18) = 66
  T.eq(s.flops, 264 + 264 + 44 + 66, "concat step flops")
  same_step(function(ax) -- three inputs (the general path)
    local g = dlb.graph("c3")
    local x = g:input("x", { 4, 3 })
    local ys = {}
    for i = 1, 3 do ys[i] = g:matmul(x, g:weight("w" .. i, { 3, i })) end
    g:loss(g:sum(g:concat(ys, ax)))
    return g
  end, -1, 2, "concat3")
  same_step(function(ax)
    local g = dlb.graph("s")
    local x = g:input("x", { 4, 6 })
    local p = g:split(g:matmul(x, g:weight("w", { 6, 6 })), 3, ax)
    g:loss(g:sum(g:mul(p[1], p[3])))
    return g
  end, -1, 2, "split")
  same_step(function(ax)
    local g = dlb.graph("s2")
    local x = g:input("x", { 4, 6 })
    local p = g:split(g:matmul(x, g:weight("w", { 6, 6 })), { 2, 4 }, ax)
    g:loss(g:sum(p[2]))
    return g
  end, -1, 2, "split sizes")
  same_step(function(ax)
    local g = dlb.graph("sl")
    local x = g:input("x", { 4, 6 })
    g:loss(g:sum(g:slice(g:matmul(x, g:weight("w", { 6, 6 })), ax, 1, 3)))
    return g
  end, -1, 2, "slice")
  for _, r in ipairs { "sum", "mean", "max" } do
    same_step(function(ax)
      local g = dlb.graph("r")
      local x = g:input("x", { 4, 6 })
      g:loss(g:sum(g[r](g, g:matmul(x, g:weight("w", { 6, 6 })), { axes = { ax } })))
      return g
    end, -1, 2, r)
  end
  local g = dlb.graph("bad")
  local x = g:input("x", { 4, 6 })
  T.checkerr("g:concat: axis must be a nonzero integer", g.concat, g, { x, x }, 0)
  T.checkerr("g:concat: axis must be a nonzero integer", g.concat, g, { x, x, x }, 1.5)
  T.checkerr("concat 'concat_0': axis -3 outside 1..2 (or -2..-1) of 'x' [4, 6]", g.concat, g, { x, x }, -3)
  T.checkerr("g:split: axis must be a nonzero integer", g.split, g, x, 2, 0)
  T.checkerr("g:split: the axis is a positional argument", g.split, g, x, 2, { axis = 2 })
  T.checkerr("g:split: parts must be an integer", g.split, g, x, 1.5, 1)
  T.checkerr("g:slice: axis must be a nonzero integer", g.slice, g, x, 0.5, 0, 1)
  T.checkerr("g:slice: start must be an integer >= 0", g.slice, g, x, 1, 0.5, 1)
  T.checkerr("g:sum: axis must be a nonzero integer", g.sum, g, x, { axes = { 1.5 } })
  T.checkerr("g:sum: axes must be an axis or a list", g.sum, g, x, { axes = "1" })
end)

T.test("bound dims must evaluate to positive integers", function()
  local g = dlb.graph("h")
  local x = g:input("x", { "h-10", 4 })
  g:loss(g:sum(g:matmul(x, g:weight("w", { 4, 2 }))))
  T.eq(msg(g.stats, g, { h = 5 }), "graph 'h': tensor 'x' dim 1 = h - 10 evaluates to -5 under "
    .. "these bindings; a dim must be a positive integer")
  T.checkerr("tensor 'x' dim 1 = h - 10 evaluates to 0", g.stats, g, { h = 10 })
  T.eq(g:stats{ h = 11, optimizer = "sgd" }.flops, 34 * 11 - 324, "h = 11") -- the symbolic 34*h - 324
  T.eq(tostring(g:stats{ optimizer = "sgd" }.flops), "34*h - 324", "symbolic stays symbolic")
  T.checkerr("g:ops: graph 'h' needs every dim bound; no value for h", g.ops, g, {})
  T.checkerr("tensor 'x' dim 1 = h - 10 evaluates to -5", g.ops, g, { h = 5 })

  -- min4: a stride-1 3x3 conv on s x s gives s - 2
  local c = dlb.graph("c")
  local xi = c:input("x", { 1, 3, "s", "s" })
  local y = c:conv2d(xi, c:weight("w", { 8, 3, 3, 3 }))
  c:loss(c:sum(y))
  T.eq(y:dims()[3], "s - 2")
  T.checkerr("tensor 'conv2d_0:0' dim 3 = s - 2 evaluates to -1", c.stats, c, { s = 1 })
  T.checkerr("tensor 'conv2d_0:0' dim 3 = s - 2 evaluates to 0", c.stats, c, { s = 2 })
  T.eq(c:stats{ s = 3 }.flops_fwd, 2 * 8 * 27 + 8, "s = 3: one output pixel, plus the sum")

  -- a fractional dim
  local d = dlb.graph("d")
  local xd = d:input("x", { "h/2", "b" })
  d:loss(d:sum(xd))
  T.checkerr("tensor 'x' dim 1 = 0.5*h evaluates to 2.5", d.stats, d, { h = 5, b = 2 })
  T.eq(d:stats{ h = 6, b = 2 }.flops, 6, "h = 6")
  -- partly bound: a dim that became a constant is checked too
  T.checkerr("tensor 'x' dim 1 = 0.5*h evaluates to 2.5", d.stats, d, { h = 5 })
  T.eq(tostring(d:stats{ h = 6 }.flops), "3*b")

  -- bindings are dims: positive integers, numbers
  T.checkerr("graph 'd': binding h = 1.5 must be a positive integer", d.stats, d, { h = 1.5, b = 2 })
  T.checkerr("binding b = 0 must be a positive integer", d.stats, d, { h = 2, b = 0 })
  T.checkerr("binding b = -1 must be a positive integer", d.stats, d, { b = -1 })
  T.checkerr("g:stats: binding b must be a number (a positive integer dim), got the string '32'",
    d.stats, d, { b = "32" })
  T.checkerr("unknown option 'foo' for g:stats; accepted: accumulation, framework, fuse, inference, offload, optimizer, precision, recompute, schedule; bindings: name=number (got foo = \"x\")", d.stats, d, { foo = "x" })
  T.checkerr("bindings: name=number (got b = table)", d.stats, d, { b = {} })

  -- a word LM with a negative hidden size
  T.checkerr("evaluates to -", function()
    local lm = nn.lstm_lm { batch = 2, steps = 2, hidden = "-h", layers = 1, vocab = 10 }
    return lm:stats{ h = 4 }
  end)
end)

T.test("integer options are validated in graph.lua with the op and option named", function()
  local g = dlb.graph("o")
  local x = g:input("x", { 1, 3, 8, 8 })
  local w = g:weight("w", { 4, 3, 3, 3 })
  T.eq(msg(g.conv2d, g, x, w, { stride = 1.5 }), "g:conv2d stride must be an integer >= 1, got 1.5")
  T.eq(msg(g.conv2d, g, x, w, { stride = 2.9 }), "g:conv2d stride must be an integer >= 1, got 2.8999999999999999")
  T.eq(msg(g.conv2d, g, x, w, { stride = 0 / 0 }), "g:conv2d stride must be an integer >= 1, got nan")
  T.eq(msg(g.conv2d, g, x, w, { stride = { 1, 0.5 } }), "g:conv2d stride must be an integer >= 1, got 0.5")
  T.eq(msg(g.conv2d, g, x, w, { padding = -1 }), "g:conv2d padding must be an integer >= 0, got -1")
  T.eq(msg(g.conv2d, g, x, w, { padding = 0.5 }), "g:conv2d padding must be an integer >= 0, got 0.5")
  T.eq(msg(g.conv2d, g, x, w, { groups = 1.5 }), "g:conv2d groups must be an integer >= 1, got 1.5")
  T.eq(msg(g.conv1d, g, g:input("s", { 1, 3, 8 }), g:weight("k", { 4, 3, 3 }), { dilation = 1.5 }),
    "g:conv1d dilation must be an integer >= 1, got 1.5")
  T.eq(msg(g.maxpool, g, x, { kernel = 2.5 }), "g:maxpool kernel must be an integer >= 1, got 2.5")
  T.eq(msg(g.avgpool, g, x, { kernel = 2, padding = 0.5 }), "g:avgpool padding must be an integer >= 0, got 0.5")
  -- through nn (its one-call path falls back to the op-by-op path, which explains)
  T.checkerr("g:conv2d stride must be an integer >= 1, got 1.5", nn.conv2d, g, x, 4, 3, { stride = 1.5 })
  -- g:stats options
  g:loss(g:sum(g:conv2d(x, w)))
  T.checkerr("g:stats: recompute = k (layers per segment) must be an integer >= 1, got 1.5",
    g.stats, g, { recompute = 1.5 })
  T.checkerr("g:stats: recompute = k (layers per segment) must be an integer >= 1, got 0",
    g.stats, g, { recompute = { every = 0 } })
  T.checkerr("g:stats: inference must be true or false, got string", g.stats, g, { inference = "yes" })
end)

T.test("zero stride and dilation are errors, not the default", function()
  local g = dlb.graph("z")
  local x = g:input("x", { 1, 3, 8, 8 })
  local w = g:weight("w", { 4, 3, 3, 3 })
  T.checkerr("g:maxpool stride must be an integer >= 1, got 0", g.maxpool, g, x, { kernel = 2, stride = 0 })
  T.checkerr("g:avgpool stride must be an integer >= 1, got 0", g.avgpool, g, x, { stride = { 1, 0 } })
  T.checkerr("g:conv2d stride must be an integer >= 1, got 0", g.conv2d, g, x, w, { stride = 0 })
  T.checkerr("g:conv2d dilation must be an integer >= 1, got 0", g.conv2d, g, x, w, { dilation = 0 })
  T.checkerr("g:conv2d stride must be an integer >= 1, got -1", g.conv2d, g, x, w, { stride = -1 })
  T.checkerr("g:conv2d dilation must be an integer >= 1, got 0", nn.conv2d, g, x, 4, 3, { dilation = 0 })
  T.eq(g:nops(), 0, "nothing of the failed ops is left")
end)

T.test("nan and inf are not dims", function()
  local g = dlb.graph("n")
  T.checkerr("tensor 'x' dim 1: poly: not a finite number (nan and inf are not dims or variable names)",
    g.input, g, "x", { 0 / 0, 4 })
  T.checkerr("tensor 'x' dim 2: poly: not a finite number", g.input, g, "x", { 4, 1 / 0 })
  T.checkerr("tensor 'x' dim 2: poly: not a finite number", g.input, g, "x", { 4, -1 / 0 })
  T.checkerr("not a finite number", g.input, g, "x", { "2*nan" })
  T.checkerr("not a finite number", dlb.poly, "nan")
  T.checkerr("not a finite number", dlb.poly, "inf*h")
  T.checkerr("not a finite number", dlb.poly, "Infinity")
  T.eq(tostring(dlb.poly("info*h")), "h*info", "a name starting with inf is fine")
  T.eq(g:ntensors(), 0)
end)

T.test("messages: attention heads, poly calls", function()
  local g = dlb.graph("a")
  local x = g:input("x", { 2, 3, 12 })
  T.checkerr("nn.attention 'attention1': heads (5) must divide the hidden size 12 of x [2, 3, 12]",
    nn.attention, g, x, { heads = 5 })
  T.checkerr("nn.attention: heads must be a positive integer, got 1.5", nn.attention, g, x, { heads = 1.5 })
  T.checkerr("poly h: call it with a table of bindings, p{h = 5}", function() return dlb.poly("h")(5) end)
  T.eq(dlb.poly("h"){ h = 5 }, 5)
end)

T.test("unknown options are rejected by every op", function()
  local g = dlb.graph("u")
  local x = g:input("x", { 2, 4 })
  local gm = g:weight("gm", { 4 })
  for _, n in ipairs { "relu", "softmax", "log_softmax", "exp", "gelu" } do
    T.checkerr("unknown option 'axis' for g:" .. n .. "; accepted: name", g[n], g, x, { axis = 5 })
  end
  T.checkerr("unknown option 'axis' for g:add; accepted: name", g.add, g, x, x, { axis = 1 })
  T.checkerr("unknown option 'by' for g:scale; accepted: name", g.scale, g, x, { by = 2 })
  T.checkerr("unknown option 'p' for g:cast", g.cast, g, x, "fp16", { p = 1 })
  T.checkerr("unknown option 'eps' for g:layernorm; accepted: name", g.layernorm, g, x, gm, { eps = 1 })
  T.checkerr("unknown option 'eps' for g:rmsnorm", g.rmsnorm, g, x, gm, { eps = 1 })
  T.checkerr("unknown option 'dim' for g:concat", g.concat, g, { x, x }, 1, { dim = 1 })
  T.checkerr("unknown option 'dim' for g:split", g.split, g, x, 2, 2, { dim = 1 })
  T.checkerr("unknown option 'dim' for g:slice", g.slice, g, x, 2, 0, 1, { dim = 1 })
  T.checkerr("g:dropout: p must be a number in [0, 1)", g.dropout, g, x, { p = 2 })
  T.checkerr("unknown option 'foo' for g:tensor; accepted: dtype, role", g.tensor, g, "q", { 2 }, { foo = 1 })
  T.checkerr("g:transpose: perm[1] must be an axis (an integer >= 1), got 1.5", g.transpose, g, x, { 1.5, 2 })
  T.checkerr("g:transpose: perm[2] must be an axis (an integer >= 1), got nan", g.transpose, g, x, { 1, 0 / 0 })
  T.checkerr("reshape 'reshape_0': dim 2 is 2.5; it must be a positive integer", g.reshape, g, x, { 4, 2.5 })
  T.checkerr("g:type_flops: binding b must be a number", g.type_flops, g, "matmul", { b = "x" })
  T.eq(g:relu(x, { name = "r" }):name(), "r:0", "name= still works")
end)

T.test("unique update names, layer indices 1-based, symbolic layers", function()
  local g = dlb.graph("n")
  local x = g:input("x", { 2, 8 })
  g:layer("L1")
  local y = nn.layernorm(g, x, { name = "ln" })
  g:layer("L2")
  y = nn.batchnorm(g, g:reshape(y, { 2, 8, 1, 1 }), { name = "bn" })
  g:loss(g:sum(y))
  local names, seen = {}, {}
  for _, o in ipairs(g:ops{}) do
    T.eq(seen[o.name], nil, "duplicate op name " .. o.name)
    seen[o.name] = true
    if o.phase == "update" then names[#names + 1] = o.name end
    T.eq(o.layer_name, o.layer >= 1 and ({ "L1", "L2" })[o.layer] or nil, "layer " .. o.name)
  end
  table.sort(names)
  T.eq(table.concat(names, " "), "bn/update bn/update_beta ln/update ln/update_beta")
  local rows = g:layers{}
  T.eq(rows[1].index .. rows[1].name .. rows[2].index .. rows[2].name, "1L12L2")
  local s = g:stats{}
  T.eq(s.nlayers, 2)
  T.eq(table.concat(s.layers, ","), "L1,L2")
  local sg = dlb.graph("sym")
  local xs = sg:input("x", { "b", 8 })
  sg:layer("A")
  sg:loss(sg:sum(nn.linear(sg, xs, 4)))
  local ss = sg:stats{}
  T.eq(ss.symbolic, true)
  T.eq(ss.nlayers, 1)
  T.eq(ss.layers[1], "A")
  T.eq(ss.nops, sg:stats{ b = 3 }.nops, "symbolic nops")
  -- matmul, add, sum; reduce_bwd, the bias reduce, grad_b; 2 updates
  T.eq(ss.nops, 8, "symbolic nops")
end)

T.test("summary and dims print the same under both backends", function()
  local g = dlb.graph("r")
  local a = g:input("a", { 1, 8 })
  g:loss(g:sum(g:matmul(a, g:weight("w", { 8, 1 }))))
  local print0 = print
  print = function() end -- g:summary prints its text
  local text = g:summary{}
  print = print0
  -- sum: 1 FLOP over 8 bytes = 0.125, rounded half up (not to even)
  T.eq(text:match("\nsum +1 +1 FLOP +[%d.]+%% +8 B +[%d.]+%% +([%d.]+)"), "0.13", "FLOP/B")
  local big = g:input("big", { 2 ^ 53, 3 })
  T.eq(table.concat(big:dims(), ","), "9007199254740992,3")
  local f = g:input("f", { 4.0, 3 })
  T.eq(table.concat(f:dims(), ","), "4,3")
  -- integral doubles below 2^53 are written as their integers (the C-API binding formats
  -- them without snprintf)
  local f2 = g:input("f2", { 2 ^ 52 + 1, 4096 / 128, 10 })
  T.eq(table.concat(f2:dims(), ","), "4503599627370497,32,10")
end)

T.test("slice lengths and split sizes are positive integers", function()
  local g = dlb.graph("s")
  local x = g:input("x", { 4, 6 })
  T.checkerr("slice 'slice_0': length is 0; it must be a positive integer", g.slice, g, x, 2, 0, 0)
  T.checkerr("split 'split_0': size 1 is 0; it must be a positive integer", g.split, g, x, { 0, 6 }, 2)
  T.checkerr("split 'split_0': size 2 is 3.5", g.split, g, x, { 2, 3.5 }, 2)
  T.eq(g:slice(x, 2, 1, 2):shape(), "[4, 2]")
  T.eq(g:ntensors(), 2)
end)

T.test("binding a name the graph has no dim of is an error listing its dims (fixes9)", function()
  -- before: g:stats{b = 8} on a graph of numbers (or of 'batch') returned the numbers at the
  -- graph's own sizes, as though b had been applied
  local fixed = dlb.models.gpt { layers = 2, hidden = 64, heads = 4, vocab = 100, seq = 16, batch = 4 }
  T.eq(#fixed:dims(), 0, "a graph of numbers has no dims")
  T.checkerr("graph 'gpt': no dim 'b' to bind (the graph's dims: none, every size is a number)",
    fixed.stats, fixed, { b = 8 })
  local g = dlb.graph("two")
  local x = g:input("x", { "batch", "d" })
  g:loss(g:mse(g:matmul(x, g:weight("w", { "d", 8 })), g:input("t", { "batch", 8 })))
  T.eq(table.concat(g:dims(), ","), "batch,d", "g:dims(): first-use order")
  T.checkerr("graph 'two': no dim 'b' to bind (the graph's dims: batch, d)", g.stats, g, { b = 8, d = 4 })
  T.checkerr("no dim 'b' to bind", g.stats, g, { b = 8 })          -- a symbolic analysis too
  T.checkerr("no dim 'zz' to bind", g.flops, g, { zz = 1 })
  T.checkerr("no dim 'zz' to bind", g.ops, g, { batch = 2, d = 4, zz = 1 })
  T.checkerr("no dim 'zz' to bind", g.summary, g, { zz = 1 })
  T.checkerr("dlb.roofline.subbatch: the graph has no dim 'b' (its dims: batch, d): name its batch dim with dim=", dlb.roofline.subbatch, g, "A100", { batches = { 1, 2 }, bind = { d = 4 } })
  T.checkerr("no dim 'zz' to bind", dlb.roofline.subbatch, g, "A100", { batches = { 1, 2 }, dim = "batch", bind = { d = 4, zz = 1 } })
  T.checkerr("no dim 'zz' to bind", dlb.parallel.layers.from_graph, g, { batch_dim = "batch", bind = { d = 4, zz = 1 } })
  T.checkerr("the graph has no dim 'b' (its dims: batch, d): name the graph's batch dim with batch_dim=",
    dlb.parallel.layers.from_graph, g, { bind = { d = 4 } })
  T.eq(g:stats { batch = 8, d = 4 }.params, 32, "the graph's own dims bind as before")
end)

-- Review 11: g:embedding(table, ids), the arguments swapped, built a graph in silence: the
-- weight [V, H] taken as ids and the int32 ids as the table, an output [V, H, q] of another
-- size and a step with other costs. A weight or a float tensor as ids, or an int32/int64
-- table, is refused naming both; ids computed by ops (default dtype) stay allowed.
T.test("embedding: ids first, the table second; swapped arguments are named", function()
  local g = dlb.graph("e")
  local ids = g:input("ids", { "b", 4 }, "int32")
  local tab = g:weight("tab", { 100, 16 })
  T.eq(msg(g.embedding, g, tab, ids), "embedding 'embedding_0': embedding(ids, table) takes the integer ids "
    .. "first and the [V, H] table second; got ids 'tab' [100, 16] (a weight, default) and table 'ids' "
    .. "[b, 4] (int32)")
  local f = g:input("f", { "b", 4 }, "fp32")
  T.checkerr("got ids 'f' [b, 4] (not a weight, fp32)", g.embedding, g, f, tab)
  local y = g:embedding(ids, tab)
  T.eq(table.concat(y:dims(), ","), "b,4,16")
  -- ids an op computed (an int input through an add: the default dtype) index as before
  local y2 = g:embedding(g:add(ids, ids), tab)
  T.eq(table.concat(y2:dims(), ","), "b,4,16")
end)

T.done()
