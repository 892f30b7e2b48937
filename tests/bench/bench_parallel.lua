-- bench_parallel.lua — full 3-D plan search for a 96-layer transformer (GPT-3 175B shape)
-- over 4,096 devices (512 nodes x 8), every schedule, micro-batch count, recompute choice
-- and ZeRO stage; target: under 1 s. Measured twice:
--   1. from the closed-form layers (dlb.parallel.layers.transformer_formula);
--   2. from the model zoo's GPT-3 175B graph: graph build + per-layer extraction
--      (dlb.parallel.layers.from_graph: two training-step analyses) + the plan search.
-- Run: dlbench run tests/bench/bench_parallel.lua
-- (or under LuaJIT: DLB_BACKEND=ffi luajit tests/bench/bench_parallel.lua).
local dlb = require "dlbench"
local P = dlb.parallel

local hw = dlb.hw.get("A100-SXM4-80GB")
local cl = P.cluster { per_node = 8, nodes = 512, hw = hw }
local reps = 5
local unpack = table.unpack or unpack
local function pack(...) return { n = select("#", ...), ... } end

-- Best and mean of reps runs of f (CPU seconds), and f's last results.
local function timeit(f)
  local best, total, res = math.huge, 0, nil
  for _ = 1, reps do
    local t0 = os.clock()
    res = pack(f())
    local dt = os.clock() - t0
    total = total + dt
    if dt < best then best = dt end
  end
  return best, total / reps, unpack(res, 1, res.n)
end

local ls = P.layers.transformer_formula { layers = 96, d = 12288, seq = 2048, heads = 96, vocab = 50257,
  dropout = false }
local best, mean, rows, evaluated = timeit(function()
  return P.plan { layers = ls, hw = hw, precision = "mixed", cluster = cl, batch = 1536,
                  table = false }
end)
local r = rows[1]
print(string.format("bench_parallel (%s), closed-form layers: %d layouts evaluated, %d fit; "
  .. "best %.1f ms, mean %.1f ms per full search (%.2f us per layout)", dlb.backend, evaluated,
  #rows, best * 1e3, mean * 1e3, best / evaluated * 1e6))
print(string.format("  best plan: dp %d x tp %d x pp %d, m %d, %s, zero %d: %.2f s/step, MFU %.1f%%, "
  .. "HFU %.1f%%", r.dp, r.tp, r.pp, r.m, r.schedule, r.zero, r.step, 100 * r.mfu, 100 * r.hfu))

-- from the zoo graph, each stage timed on its own, then all three together
local gb = timeit(function() return dlb.models.gpt { size = "gpt3-175b" } end)
local g = dlb.models.gpt { size = "gpt3-175b" }
local lb = timeit(function() return P.layers.from_graph(dlb.models.gpt { size = "gpt3-175b" }) end)
lb = lb - gb   -- extraction alone (a fresh graph each time: no cached analysis)
local gl = P.layers.from_graph(g)
local pb = timeit(function()
  return P.plan { layers = gl, hw = hw, cluster = cl, batch = 1536, precision = "mixed",
                  table = false }
end)
local allb, allm, t2, ev2 = timeit(function()
  return P.plan { graph = dlb.models.gpt { size = "gpt3-175b" }, hw = hw, cluster = cl,
                  batch = 1536 }
end)
print(string.format("bench_parallel (%s), zoo GPT-3 175B graph: build %.1f ms + layers %.1f ms + "
  .. "plan %.1f ms; end to end best %.1f ms, mean %.1f ms (%d layouts, %d fit, a dlb.table)",
  dlb.backend, gb * 1e3, lb * 1e3, pb * 1e3, allb * 1e3, allm * 1e3, ev2, t2:count()))
print(string.format("  best plan: dp %d x tp %d x pp %d, m %d, %s, zero %d: %.2f s/step, MFU %.1f%%, "
  .. "HFU %.1f%%", t2[1].dp, t2[1].tp, t2[1].pp, t2[1].m, t2[1].schedule, t2[1].zero, t2[1].step,
  100 * t2[1].mfu, 100 * t2[1].hfu))
if best >= 1 or allb >= 1 then
  io.stderr:write("bench_parallel: a search took over 1 s\n")
  os.exit(1)
end
