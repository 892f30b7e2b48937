-- test_op_saved.lua — dlb_analysis_op_saved (graphs/step/analysis.c), the one rule of the
-- bytes a layer keeps for the backward (dlb.parallel.layers.from_graph): each forward op's
-- storages that a backward op reads, a source's (a dropout mask's) at its first forward
-- reader, and the working set of the op at the step's peak. Hand counts on small fp32
-- graphs (4 B an element, batch 2); the transformer counts (Korthikanti et al. 2022 Table 2,
-- exactly) are in test_parallel_graph.lua and test_megatron_memory.lua. Both backends.
local T = require "harness"
local dlb = require "dlbench"
local nn = require "dlbench.nn"
local core = dlb.core

-- x [b, 8] -> fc1 (8 x 16, no bias) -> relu -> * mask (int8 source) -> fc2 (16 x 4) -> mse
local function tiny(width)
  local g = dlb.graph("tiny")
  local x = g:input("x", { "b", 8 })
  local r = g:relu(nn.linear(g, x, width, { bias = false, name = "fc1" }))
  local m = g:tensor("mask", { "b", width }, { role = "activation", dtype = "int8" })
  local p = nn.linear(g, g:mul(r, m, "drop"), 4, { bias = false, name = "fc2" })
  g:loss(g:mse(p, g:input("target", p:dims())))
  return g
end

local function saved(g)
  local s = g:stats { b = 2, precision = "fp32" }
  local sv = core.analysis_op_saved(s.analysis)
  local by = {}
  for j = 1, #sv do by[core.analysis_op_name(s.analysis, j - 1)] = sv[j] end
  return by, sv, s
end

T.test("what each forward op keeps: a hand count", function()
  local by, sv = saved(tiny(16))
  -- fc1's backward reads x (its weight gradient): 2 x 8 x 4 B, at fc1 (x is a source: its
  -- first forward reader); relu's backward reads its output, 2 x 16 x 4 B; the mask, 2 x 16
  -- x 1 B, at drop (its first reader), whose backward reads it; drop's output, read by fc2's
  -- weight gradient, 2 x 16 x 4; fc2's output and the target, read by mse's backward, 2 x 4
  -- x 4 each
  T.eq(by.fc1, 64)
  T.eq(by.relu_1, 128)
  T.eq(by.drop, 32 + 128)
  T.eq(by.fc2, 32)
  T.eq(by.mse_4, 32)
  local sum = 0
  for _, v in ipairs(sv) do sum = sum + v end
  T.eq(sum, 64 + 128 + 160 + 32 + 32, "every other op keeps nothing")
end)

T.test("the op at the peak gets its working set; the sum is the peak's activations", function()
  -- at 4096 samples the activations outweigh the weights, so the step's peak comes in the
  -- backward with every saved tensor live: the op running there (drop's input gradient,
  -- made while the gradient it reads is live) gets the bytes beyond them, and the sum over
  -- the ops is the peak's activations and workspace. (At 2 samples the weights' gradients
  -- make the peak, where fewer activations are live: the sum is then above the peak's,
  -- and from_graph scales the layers down to it.)
  local g = tiny(16)
  local s = g:stats { b = 4096, precision = "fp32" }
  local sv = core.analysis_op_saved(s.analysis)
  local by, sum = {}, 0
  for j = 1, #sv do by[core.analysis_op_name(s.analysis, j - 1)] = sv[j]; sum = sum + sv[j] end
  local b = 4096
  T.eq(by.fc1, b * 8 * 4)
  T.eq(by.relu_1, b * 16 * 4)
  T.eq(by.drop, b * 16 + b * 16 * 4)
  T.eq(by.fc2, b * 4 * 4)
  T.eq(by.mse_4, b * 4 * 4)
  local hand = b * (32 + 64 + 80 + 16 + 16)
  local bd = s.breakdown
  T.eq(sum, bd.activations + bd.workspace, "the peak's activations and workspace")
  T.eq(by["drop/grad_a"], sum - hand, "the working set, at the op at the peak")
  T.eq(by["drop/grad_a"] > 0, true)
  local small = saved(g)
  T.eq(small["drop/grad_a"], 0, "2 samples: no working set beyond the saved bytes")
  T.checkerr("Analysis expected", function() core.analysis_op_saved(nil) end)
end)

T.done()
