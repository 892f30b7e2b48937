-- test_graph_fuzz.lua — random op sequences with random shapes and options: every call
-- either builds an op or raises a clean error message; analyses of the random graphs
-- (symbolic, numeric, mixed precision, recompute, inference) never crash. Runs under both
-- backends and AddressSanitizer.
local T = require "harness"
local dlb = require "dlbench"

T.test("random graphs build, fail cleanly and analyse", function()
  math.randomseed(12345)
  local R = math.random
  local dimsets = { {2, 3}, {2, 3, 4}, {4}, {2, 4, 6, 6}, {"b", 3}, {"b", "h"}, {3, 3}, {2, 4, 5}, {1}, {6, 2, 4} }
  local unary = { "relu", "sigmoid", "tanh", "gelu", "silu", "exp", "log", "sqrt", "neg", "softmax", "log_softmax", "dropout", "scale", "global_avgpool", "global_maxpool" }
  local binary = { "add", "sub", "mul", "div", "matmul", "conv2d", "conv1d", "embedding", "softmax_xent", "mse", "ctc" }
  local ok_ops, errs = 0, 0
  for gi = 1, 30 do
    local g = dlb.graph("fz")
    local ts = {}
    for i = 1, 4 do
      local roles = { "input", "weight", "label" }
      local role = roles[R(3)]
      local d = dimsets[R(#dimsets)]
      ts[#ts + 1] = (role == "weight" and g:weight("w" .. i, d)) or (role == "label" and g:label("l" .. i, d)) or g:input("x" .. i, d)
    end
    for k = 1, 25 do
      local a, b = ts[R(#ts)], ts[R(#ts)]
      local c = R(10)
      local ok, r
      if c <= 4 then ok, r = pcall(g[unary[R(#unary)]], g, a)
      elseif c <= 7 then
        local name = binary[R(#binary)]
        local opts = (name == "conv2d" or name == "conv1d") and { stride = R(2), padding = R(0, 1) } or (name == "matmul" and { transpose_a = R(2) == 1, transpose_b = R(2) == 1 }) or nil
        ok, r = pcall(g[name], g, a, b, opts)
      elseif c == 8 then ok, r = pcall(g.reshape, g, a, { 2, 3 })
      elseif c == 9 then ok, r = pcall(g.split, g, a, R(1, 3), R(-1, 3))
        if ok then r = r[1] end
      else ok, r = pcall(g.transpose, g, a) end
      if ok then ts[#ts + 1] = r; ok_ops = ok_ops + 1 else errs = errs + 1
        assert(type(r) == "string" and #r > 0, "error without message")
      end
    end
    local okl = pcall(function() g:loss(g:sum(ts[#ts])) end)
    for _, o in ipairs { {}, { b = 3, h = 4 }, { b = 3, h = 4, optimizer = "adam", precision = "mixed" }, { b = 2, h = 2, recompute = "sqrt" }, { inference = true, b = 1, h = 1 } } do
      local ok, s = pcall(g.stats, g, o)
      if not ok then assert(type(s) == "string", "error without message") end
    end
  end

  assert(ok_ops > 100 and errs > 100, ok_ops .. " ops, " .. errs .. " errors")
end)

T.done()
