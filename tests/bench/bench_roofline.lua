-- bench_roofline.lua — roofline timing of a 100,000-op training step on every catalogue
-- device (target: under 50 ms for the whole catalogue, op by op). The step is a real graph:
-- an MLP (matmul + bias add + relu per layer) whose training expansion has >= 100k ops,
-- analysed once by the graph engine; its per-op costs move into C once (first call) and
-- are then timed on each device.
--   dlbench run tests/bench/bench_roofline.lua
local dlb = require "dlbench"
local R = dlb.roofline
local clock = os.clock

local function mlp(layers)
  local g = dlb.graph("bench_roofline")
  local x = g:input("x", { "b", "h" })
  for i = 1, layers do
    local w = g:weight("w" .. i, { "h", "h" })
    local bias = g:weight("b" .. i, { "h" })
    x = g:relu(g:add(g:matmul(x, w), bias))
  end
  g:loss(g:softmax_xent(x, g:label("y", { "b" })))
  return g
end

local t0 = clock()
local g = mlp(11200)
local s = g:stats { b = 64, h = 1024 }
local t_graph = clock() - t0
local nops = s.nops
assert(nops >= 100000, "the step has only " .. nops .. " ops")

local devs = dlb.hw.list { print = false }
t0 = clock()
R.time(s, devs[1], { precision = devs[1]:default_precision() }) -- moves the ops into C
local t_first = clock() - t0

-- the cache-aware model needs a cache size: devices whose sources give none are left out
local cached = {}
for _, d in ipairs(devs) do if d.cache then cached[#cached + 1] = d end end

local function run(opts, list)
  local best, total = math.huge, 0
  for _ = 1, 5 do
    local t = clock()
    total = 0
    for _, d in ipairs(list) do
      local o = { precision = d:default_precision() }
      for k, v in pairs(opts) do o[k] = v end
      total = total + R.time(s, d, o).time
    end
    best = math.min(best, clock() - t)
  end
  return best, total
end

local t_plain, sum1 = run({}, devs)
local t_cache, sum2 = run({ cache_aware = true }, cached)
print(string.format("roofline of a %d-op training step (MLP, 11200 layers, b=64, h=1024) op by op "
  .. "on %d devices: %.2f ms for the whole catalogue, %.2f ms with the cache-aware matmul model "
  .. "on the %d with a known cache (best of 5)", nops, #devs, 1e3 * t_plain, 1e3 * t_cache,
  #cached))
print(string.format("first call (copies the analysis' per-op costs into C): %.2f ms; building "
  .. "and analysing the graph: %.0f ms (not part of the figure)", 1e3 * t_first, 1e3 * t_graph))
print(string.format("(checksum: %.6g s, %.6g s summed over devices)", sum1, sum2))
if t_plain > 0.05 or t_cache > 0.05 then print("SLOWER than the 50 ms target") end
