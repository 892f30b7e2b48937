-- test_graph_layers.lua — the one-call layer builders (graphs/ir/graph_layers.c, used by
-- dlbench.nn when nn.fast is true) against the op-by-op reference construction (nn.fast =
-- false: the same helpers through g:weight, g:matmul ...). Each case builds a model both
-- ways and requires identical graphs: every tensor (name, dims, dtype, role, producer),
-- the DOT text, every op row of the training step (name, type, phase, FLOPs, bytes,
-- layer), the totals (params, FLOPs, bytes, footprint and its breakdown) and, with dims
-- unbound, the symbolic polynomials. Runs under both backends.
local T = require "harness"
local dlb = require "dlbench"
local nn = require "dlbench.nn"

local common = require "dlbench.models.common"

-- f built with the fast path on or off: nn.fast, or (switch "copy") common.copy_blocks, the
-- zoo's copy of a built block for the next layers (graphs/ir/graph_repeat.c)
local function build(fast, f, switch)
  local mod, key = nn, "fast"
  if switch == "copy" then mod, key = common, "copy_blocks" end
  local old = mod[key]
  mod[key] = fast
  local ok, g = pcall(f)
  mod[key] = old
  if not ok then error(g, 0) end
  return g
end

local function tensors(g)
  local r = {}
  for i = 0, g:ntensors() - 1 do
    local info = setmetatable({ graph = g, id = i }, require("dlbench.graph").Tensor):info()
    r[#r + 1] = string.format("%d %s [%s] %s %s %d", i, info.name, table.concat(info.dims, ","),
      info.dtype, info.role, info.producer)
  end
  return r
end

local TOTALS = { "params", "flops_fwd", "flops_bwd", "flops_update", "flops_recompute", "flops",
  "bytes", "io", "footprint", "weights", "gradients", "optimizer", "activations", "workspace",
  "footprint_order", "footprint_heuristic", "nops", "ntensors" }

-- Compare the graphs of f built both ways; bind: numeric bindings for the analysis;
-- sym: also compare the symbolic totals with no bindings.
local function same(what, f, bind, sym, switch)
  local a, b = build(true, f, switch), build(false, f, switch)
  T.eq(a:nops(), b:nops(), what .. " nops")
  T.eq(a:ntensors(), b:ntensors(), what .. " ntensors")
  local ta, tb = tensors(a), tensors(b)
  for i = 1, #tb do T.eq(ta[i], tb[i], what .. " tensor") end
  T.eq(a:dot(), b:dot(), what .. " dot")
  for _, opts in ipairs { { optimizer = "adam" }, { optimizer = "sgd", recompute = "sqrt" } } do
    -- only the dims the graph has (a random stack may lack h or v; binding a name the graph
    -- does not have is an error since fixes9)
    local o, has = {}, {}
    for _, d in ipairs(a:dims()) do has[d] = true end
    for k, v in pairs(bind) do if has[k] then o[k] = v end end
    for k, v in pairs(opts) do o[k] = v end
    local sa, sb = a:stats(o), b:stats(o)
    for _, k in ipairs(TOTALS) do T.eq(sa[k], sb[k], what .. " " .. k) end
    local ra, rb = a:ops(o), b:ops(o)
    T.eq(#ra, #rb, what .. " step ops")
    for i = 1, #rb do
      local x, y = ra[i], rb[i]
      T.eq(string.format("%s %s %s %.17g %.17g %d", x.name, x.type, x.phase, x.flops, x.bytes, x.layer),
        string.format("%s %s %s %.17g %.17g %d", y.name, y.type, y.phase, y.flops, y.bytes, y.layer),
        what .. " op row " .. i)
    end
  end
  if sym then
    local sa, sb = a:stats{}, b:stats{}
    for _, k in ipairs { "params", "flops_fwd", "flops_bwd", "flops_update", "flops", "bytes" } do
      T.eq(tostring(sa[k]), tostring(sb[k]), what .. " symbolic " .. k)
    end
  end
  return a
end

local function finish(g, y)
  g:loss(g:mse(y, g:input("target", y:dims())))
  return g
end

T.test("linear: with and without bias, symbolic and numeric sizes", function()
  local g = same("linear", function()
    local g = dlb.graph("lin")
    local x = g:input("x", { "b", "s", "h" })
    local y = nn.linear(g, x, "4*h", { name = "fc1" })
    y = nn.linear(g, g:relu(y), "h", { bias = false })
    y = nn.linear(g, y, 64)
    y = nn.linear(g, y, dlb.poly("2*v"))
    return finish(g, y)
  end, { b = 8, s = 16, h = 32, v = 5 }, true)
  -- golden (hand count): 4 matmuls + 3 bias adds + relu + mse = 9 ops;
  -- params 32*128 + 128 + 128*32 + 32*64 + 64 + 64*10 + 10 = 11082
  T.eq(g:nops(), 9)
  T.eq(g:stats{ b = 8, s = 16, h = 32, v = 5 }.params, 11082)
end)

T.test("conv2d / conv1d: bias, stride, padding, groups, im2col", function()
  same("conv", function()
    local g = dlb.graph("cnn")
    local x = g:input("x", { "n", 8, 32, 32 })
    local y = nn.conv2d(g, x, 16, 3, { stride = 2, padding = 1, bias = true, name = "c1" })
    y = nn.conv2d(g, g:relu(y), 16, { 3, 1 }, { groups = 4, padding = { 1, 0 } })
    y = nn.conv2d(g, y, "k", 1, { workspace = "im2col", dilation = 1 })
    local z = g:input("seq", { "n", 4, 50 })
    local w = nn.conv1d(g, z, 6, 5, { bias = true, padding = 2 })
    g:loss(g:add(g:sum(y), g:sum(w)))
    return g
  end, { n = 2, k = 24 }, false)
end)

T.test("norms and embedding", function()
  same("norms", function()
    local g = dlb.graph("norms")
    local x = g:input("x", { "b", 6, 4, 4 })
    local y = nn.batchnorm(g, x, { name = "bn1" })
    local t = g:input("t", { "b", "s", "h" })
    local u = nn.rmsnorm(g, nn.layernorm(g, t), { name = "rms" })
    local ids = g:input("ids", { "b", "s" }, "int32")
    local e = nn.embedding(g, ids, "v", "h", { name = "emb" })
    g:loss(g:add(g:add(g:sum(y), g:sum(u)), g:sum(e)))
    return g
  end, { b = 3, s = 5, h = 8, v = 100 }, true)
end)

T.test("LSTM, GRU and RNN stacks (cell steps in one call)", function()
  for _, cell in ipairs { "lstm", "gru", "rnn" } do
    local g = same(cell, function()
      return nn.lstm_lm{ batch = "b", steps = 4, hidden = "h", layers = 2, vocab = "v", cell = cell }
    end, { b = 4, h = 16, v = 50 }, true)
    -- golden op counts per step: lstm 13 (concat, matmul, add, split, 3 sigmoid, 2 tanh,
    -- 3 mul... see nn.lstm_cell), gru 15, rnn 4; plus embedding, split, 4 reshapes, label
    -- split and per step matmul, add, reshape, xent, and 3 loss adds.
    local per = ({ lstm = 13, gru = 15, rnn = 4 })[cell]
    T.eq(g:nops(), 1 + 1 + 4 + 2 * 4 * per + 1 + 4 * 4 + 3, cell .. " ops")
  end
end)

T.test("RHN sublayers (one call each)", function()
  same("rhn", function()
    local g = dlb.graph("rhn")
    local ids = g:input("ids", { "b", 3 }, "int32")
    local xs = nn.unstack(g, nn.embedding(g, ids, "v", "h", { name = "emb" }), "emb")
    local outs = nn.rhn(g, xs, { hidden = "h", depth = 3 })
    local loss
    for t = 1, 3 do
      local l = g:sum(outs[t])
      loss = loss and g:add(loss, l) or l
    end
    g:loss(loss)
    return g
  end, { b = 2, h = 8, v = 20 }, true)
end)

T.test("attention and a zoo-style block", function()
  same("attention", function()
    local g = dlb.graph("attn")
    local x = g:input("x", { "b", 10, "h" })
    local y = nn.attention(g, nn.layernorm(g, x), { heads = 4 })
    y = nn.linear(g, g:gelu(nn.linear(g, g:add(x, y), "4*h")), "h")
    return finish(g, y)
  end, { b = 2, h = 32 }, true)
end)

T.test("a failing layer leaves nothing behind and names the op", function()
  local g = dlb.graph("bad")
  local x = g:input("x", { "b", 3 })
  local h = g:input("h", { "c", 4 })
  local p = nn.lstm_weights(g, "cell", 3, 4)
  local n0, t0 = g:nops(), g:ntensors()
  T.checkerr("concat", function() nn.lstm_cell(g, x, h, h, p) end)
  T.eq(g:nops(), n0)
  T.eq(g:ntensors(), t0)
  local y = g:input("y", { "b", 7 })
  local w = g:weight("w", { 5, 4 })
  T.checkerr("matmul", function() g:matmul(y, w) end)
  T.eq(g:nops(), n0)
  -- the layer's weights are rolled back too
  T.checkerr("conv", function() nn.conv2d(g, y, 4, 3) end)
  T.eq(g:ntensors(), t0 + 2)
  T.checkerr("not a positive integer", function() nn.linear(g, y, 0) end)
  T.eq(g:ntensors(), t0 + 2)
  -- the fast path and the op-by-op path fail on the same op
  local ok1, e1 = pcall(nn.lstm_cell, g, x, h, h, p)
  nn.fast = false
  local ok2, e2 = pcall(nn.lstm_cell, g, x, h, h, p)
  nn.fast = true
  T.eq(ok1, false)
  T.eq(ok2, false)
  T.eq(tostring(e1):match("concat.*"), tostring(e2):match("concat.*"))
end)

T.test("a failed tensor or layer's new dim names do not block the numeric analysis", function()
  local g = dlb.graph("v")
  local x = g:input("x", { "b", 4 })
  T.checkerr("positive integer", function() g:weight("w", { "k", 0 }) end)
  T.checkerr("conv", function() nn.conv2d(g, x, "c", 3) end) -- registers c, rolled back
  g:loss(g:sum(g:relu(x)))
  local s = g:stats{ b = 2 }
  T.eq(s.symbolic, false)
  T.eq(s.flops_fwd, 16) -- relu 2*4 + sum 2*4 (1 FLOP per element each)
  T.eq(type(s.footprint), "number")
  -- a variable a tensor uses still needs a value
  local g2 = dlb.graph("u")
  g2:loss(g2:sum(g2:input("y", { "b", "n" })))
  T.eq(g2:stats{ b = 2 }.symbolic, true)
  T.checkerr("no value for n", function() return g2:stats{ b = 2 }.footprint end)
end)

T.test("random layer stacks: one-call and op-by-op graphs agree", function()
  -- a fixed-seed generator (not math.random: the same sequence under both backends)
  local seed = 12345
  local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n + 1 end
  local dims = { "h", 16, "2*h", 24, "h+8" }
  for case = 1, 12 do
    local script = {}
    for i = 1, 6 do script[i] = { rnd(7), dims[rnd(#dims)], rnd(2) == 1 } end
    local d0 = dims[rnd(#dims)]
    same("random " .. case, function()
      local g = dlb.graph("r" .. case)
      local x = g:input("x", { "b", d0 })
      local ids = g:input("ids", { "b" }, "int32")
      for i, st in ipairs(script) do
        local k, d, flag = st[1], st[2], st[3]
        if k == 1 then x = nn.linear(g, x, d, { bias = flag })
        elseif k == 2 then x = flag and nn.layernorm(g, x) or nn.rmsnorm(g, x)
        elseif k == 3 then x = g:relu(nn.linear(g, x, d, flag and { name = "named" .. case } or nil))
        elseif k == 4 then
          local p = nn.lstm_weights(g, "lstm" .. i, x:dims()[2], d)
          local h0 = g:tensor("h0_" .. i, { "b", d }, { role = "activation" })
          x = nn.lstm_cell(g, x, h0, h0, p)
        elseif k == 5 then
          local p = nn.gru_weights(g, "gru" .. i, x:dims()[2], d)
          x = nn.gru_cell(g, x, g:tensor("g0_" .. i, { "b", d }, { role = "activation" }), p)
        elseif k == 6 then
          local p = nn.rnn_weights(g, "rnn" .. i, x:dims()[2], d)
          x = nn.rnn_cell(g, x, g:tensor("r0_" .. i, { "b", d }, { role = "activation" }), p)
        else
          x = g:add(x, nn.embedding(g, ids, "v", x:dims()[2]))
        end
      end
      return finish(g, x)
    end, { b = 3, h = 8, v = 11 }, true)
  end
end)

T.test("zoo blocks copied from the first (dlb_graph_repeat) = built one by one", function()
  -- the same graph, step, totals and symbolic polynomials whether the zoo builds every layer
  -- in Lua or copies the first block's ops and tensors for the next ones
  same("gpt", function()
    return dlb.models.gpt { layers = 4, hidden = 64, heads = 4, context = 128, vocab = 100 }
  end, { b = 2, seq = 32 }, true, "copy")
  same("gpt dropout rotary", function()
    return dlb.models.gpt { layers = 3, hidden = 64, heads = 2, context = 64, vocab = 50, seq = 16,
      dropout = true, rotary = true, batch = 2 }
  end, {}, false, "copy")
  same("llama gqa", function()
    return dlb.models.llama { layers = 3, hidden = 64, heads = 4, kv_heads = 2, ffn = 96, vocab = 80,
      seq = 16, batch = 2 }
  end, {}, false, "copy")
  same("bert", function()
    return dlb.models.bert { layers = 3, hidden = 64, heads = 4, vocab = 100, seq = 16, masked = 4, batch = 2 }
  end, {}, false, "copy")
  same("vit", function()
    return dlb.models.vit { layers = 3, hidden = 64, heads = 4, ffn = 128, patch = 16, image = 64, batch = 2, classes = 10 }
  end, {}, false, "copy")
  same("transformer", function()
    return dlb.models.transformer { layers = 3, hidden = 64, heads = 4, ffn = 128, vocab = 100, batch = 2 }
  end, {}, false, "copy")
  same("gpt one layer", function()
    return dlb.models.gpt { layers = 1, hidden = 64, heads = 4, context = 64, vocab = 50, batch = 2, seq = 8 }
  end, {}, false, "copy")
  -- the copies are made: far fewer Lua-built tensors than the graph holds is not observable,
  -- so count the layer scopes and the names of the last block
  local g = dlb.models.gpt { layers = 5, hidden = 64, heads = 4, context = 64, vocab = 50, batch = 2, seq = 8 }
  local names = {}
  for i = 0, g:ntensors() - 1 do
    names[setmetatable({ graph = g, id = i }, require("dlbench.graph").Tensor):name()] = true
  end
  assert(names["h4/attn/q/w"] and names["h4/mlp/fc2/b"] and not names["h5/attn/q/w"], "the last block's names")
end)

T.test("a block the engine cannot copy is built in Lua, the same graph either way", function()
  -- a block that reads a tensor from before it (a shared mask) and one whose names are not
  -- under its layer's: dlb_graph_repeat refuses (-1, graph unchanged), blocks() builds on
  local function model(shared)
    local g = dlb.graph("m")
    g:layer("emb")
    local x = g:input("x", { "b", 8 })
    local m = g:tensor("mask", { "b", 8 }, { role = "activation" })
    local function name(l) return "blk" .. l end
    x = common.blocks(g, x, 4, name, function(l, y)
      g:layer(name(l))
      y = nn.linear(g, y, 8, { name = shared and (name(l) .. "/fc") or ("fc" .. l) })
      if shared then y = g:mul(y, m, name(l) .. "/mask") end
      return g:relu(y)
    end)
    g:layer(nil)
    g:loss(g:mse(x, g:input("t", { "b", 8 })))
    return g
  end
  same("shared input", function() return model(true) end, { b = 3 }, true, "copy")
  same("names outside the layer", function() return model(false) end, { b = 3 }, true, "copy")
  -- the engine's refusal and its argument checks, directly
  local core = require "dlbench.backend"
  local g = dlb.graph("r")
  g:layer("a")
  local x = g:input("x", { 2, 4 })
  local t0, o0 = core.graph_counts(g._h)
  local y = g:relu(x, "a/relu")
  g:layer("b")
  T.eq(core.graph_repeat(g._h, o0, t0, x.id, y.id, "a", "b"), y.id + 1, "copied")
  T.eq(g:nops(), 2)
  g:layer("c")
  T.eq(core.graph_repeat(g._h, o0, t0, x.id, y.id, "z", "c"), -1, "no layer z: refused")
  T.eq(g:nops(), 2, "unchanged")
  T.checkerr("not one built layer", function() core.graph_repeat(g._h, 5, t0, x.id, y.id, "a", "c") end)
end)

T.done()
