-- bench_graph.lua — speed of the compute-graph engine (BENCHMARKS.md "Compute-graph engine").
--   build/bin/dlbench run tests/bench/bench_graph.lua            (Lua 5.4, C-API backend)
--   DLB_BACKEND=ffi luajit tests/bench/bench_graph.lua           (LuaJIT FFI; LUA_PATH and
--                                                                LD_LIBRARY_PATH as in tests)
-- Times are CPU seconds (os.clock), best of a few repetitions.
local dlb = require "dlbench"
local nn = require "dlbench.nn"
local clock = os.clock

local function best(n, f)
  local b = math.huge
  local r
  for _ = 1, n do
    collectgarbage()
    local t0 = clock()
    r = f()
    local t = clock() - t0
    if t < b then b = t end
  end
  return b, r
end

-- A forward graph of about n ops as a user builds it: layers of nn.linear (matmul + bias
-- add, weights linear<i>/w [h, h] and linear<i>/b [h]) and relu, ending in a softmax
-- cross-entropy loss. With nn.fast (the default) each linear is one backend call
-- (graphs/ir/graph_layers.c); `opbyop` builds the same graph one op and weight at a time.
local function mlp(n, opbyop)
  local g = dlb.graph("mlp" .. n)
  local x = g:input("x", { "b", "h" })
  local ops = 0
  local i = 0
  while ops + 3 <= n - 1 do
    i = i + 1
    if opbyop then
      local w = g:weight("linear" .. i .. "/w", { "h", "h" })
      local bias = g:weight("linear" .. i .. "/b", { "h" })
      x = g:relu(g:add(g:matmul(x, w, "linear" .. i), bias, "linear" .. i .. "/bias"))
    else
      x = g:relu(nn.linear(g, x, "h"))
    end
    ops = ops + 3
  end
  g:loss(g:softmax_xent(x, g:label("y", { "b" })))
  return g
end

print(string.format("dlbench %s, backend %s (%s)", dlb.version(), dlb.backend, _VERSION))
print(string.format("%-52s %12s %12s %10s", "case", "build", "analyse", "step ops"))
-- build and analyse fresh graphs (the training expansion is cached per graph)
local function timed(reps, build, analyse)
  local tb, ta, g, s = math.huge, math.huge, nil, nil
  for _ = 1, reps do
    collectgarbage()
    local t0 = clock()
    g = build()
    local t1 = clock()
    s = analyse(g)
    local t2 = clock()
    if t1 - t0 < tb then tb = t1 - t0 end
    if t2 - t1 < ta then ta = t2 - t1 end
  end
  return tb, ta, g, s
end

for _, n in ipairs { 10000, 100000 } do
  -- one untimed run first: without the host's malloc settings (LuaJIT) the first analysis
  -- of a size pays for growing the heap (page faults), whichever row comes first
  mlp(n):stats{ b = 64, h = 512, optimizer = "adam" }
  for _, opbyop in ipairs { false, true } do
    local tb, ta, g, s = timed(3, function() return mlp(n, opbyop) end,
      function(gg) return gg:stats{ b = 64, h = 512, optimizer = "adam" } end)
    print(string.format("%-52s %9.1f ms %9.1f ms %10d", string.format("%d-op forward graph%s, full analysis",
      g:nops(), opbyop and " op by op" or ""), tb * 1e3, ta * 1e3, s.nops))
  end
end

-- the 4-layer, 320-step LSTM LM of Catamount's benchmark (B=64, H=2004, V=10004); first
-- with the cell steps built op by op (nn.fast = false), then in one call per step
local tb, ta, s
for _, fast in ipairs { false, true } do
  nn.fast = fast
  tb, ta, _, s = timed(3, function()
    return nn.lstm_lm{ batch = 64, steps = 320, layers = 4, hidden = 2004, vocab = 10004 }
  end, function(gg) return gg:stats{} end)
  print(string.format("%-52s %9.1f ms %9.1f ms %10d", "LSTM LM 4x2004, 320 steps, B=64, V=10004"
    .. (fast and "" or " (op by op)"), tb * 1e3, ta * 1e3, s.nops))
end
print(string.format("  -> %.3g FLOP/step, footprint %.3g B; Catamount 206 s -> speedup %.0fx",
  s.flops, s.footprint, 206 / (tb + ta)))

-- symbolic analysis of the same model with H and V unbound
local tsym, sy = best(1, function()
  return nn.lstm_lm{ batch = "b", steps = 320, layers = 4, hidden = "h", vocab = "v" }:stats{}
end)
print(string.format("%-52s %22.1f ms  %s", "  same, symbolic (b, h, v unbound), build+analyse", tsym * 1e3,
  tostring(sy.flops_fwd):sub(1, 40) .. "..."))

-- evaluating a bound polynomial
local p = sy.flops
local vals = { b = 64, h = 2004, v = 10004 }
local N = 1000000
local te = best(3, function()
  local acc = 0
  for _ = 1, N do acc = acc + p(vals) end
  return acc
end)
local h = p._h
local vv = {}
for i, name in ipairs(p:vars()) do vv[i] = vals[name] end
local evalv = dlb.core.poly_evalv
local tr = best(3, function()
  local acc = 0
  for _ = 1, N do acc = acc + evalv(h, vv) end
  return acc
end)
print(string.format("%-52s %9.0f ns (p{...}); %.0f ns (core.poly_evalv)", "evaluate a bound polynomial ("
  .. #p:terms() .. " terms)", te / N * 1e9, tr / N * 1e9))

-- a 10-sublayer RHN unrolled 150 steps (op by op, then one call per sublayer)
for _, fast in ipairs { false, true } do
nn.fast = fast
local tb2, ta2, _, s2 = timed(3, function()
  local gg = dlb.graph("rhn")
  local ids = gg:input("ids", { "b", 150 }, "int32")
  local xs = nn.unstack(gg, nn.embedding(gg, ids, "v", "h", { name = "emb" }), "emb")
  local outs = nn.rhn(gg, xs, { hidden = "h", depth = 10, name = "rhn" })
  local wo = gg:weight("out/w", { "h", "v" })
  local lab = gg:split(gg:label("labels", { "b", 150 }), 150, 2)
  local loss
  for t = 1, 150 do
    local l = gg:softmax_xent(gg:matmul(outs[t], wo), gg:reshape(lab[t], { "b" }))
    loss = loss and gg:add(loss, l) or l
  end
  gg:loss(loss)
  return gg
end, function(gg) return gg:stats{ b = 32, h = 1000, v = 10000 } end)
print(string.format("%-52s %9.1f ms %9.1f ms %10d", "RHN depth 10, 150 steps" .. (fast and "" or " (op by op)"),
  tb2 * 1e3, ta2 * 1e3, s2.nops))
end
