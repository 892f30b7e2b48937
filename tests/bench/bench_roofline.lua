-- bench_roofline.lua — roofline timing of a 100,000-op training step on every catalogue
-- device (target: under 50 ms for the whole catalogue). Until the graph engine's analysis
-- handle is merged, the step is a synthetic array of 100k ops (deterministic costs, one op
-- in five a matmul with its shape) held in C by dlb.roofline.ops.
--   dlbench run tests/bench/bench_roofline.lua
local dlb = require "dlbench"
local R = dlb.roofline

local N = 100000
local flops, bytes, gemm = {}, {}, {}
local seed = 1
local function rnd() -- Park-Miller (exact in doubles and integers: same step everywhere)
  seed = (seed * 16807) % 2147483647
  return seed / 2147483647
end
for i = 1, N do
  if i % 5 == 0 then
    local m, n, k = 32 + math.floor(rnd() * 2048), 64 + math.floor(rnd() * 8192), 64 + math.floor(rnd() * 8192)
    flops[i] = 2 * m * n * k
    bytes[i] = 4 * (m * k + k * n + m * n)
    gemm[i] = { m, n, k }
  else
    flops[i] = math.floor(rnd() * 1e8)
    bytes[i] = math.floor(rnd() * 4e8)
    gemm[i] = false
  end
end

local clock = os.clock
local t0 = clock()
local ops = R.ops { flops = flops, bytes = bytes, gemm = gemm }
local t_build = clock() - t0

local devs = dlb.hw.list { print = false }
local function run(opts)
  local best = math.huge
  local total = 0
  for _ = 1, 5 do
    local t = clock()
    total = 0
    for _, d in ipairs(devs) do
      local o = { precision = d:default_precision() }
      for k, v in pairs(opts) do o[k] = v end
      total = total + R.time(ops, d, o).time
    end
    best = math.min(best, clock() - t)
  end
  return best, total
end

local t_plain, sum1 = run {}
local t_cache, sum2 = run { cache_aware = true }
print(string.format("roofline of a %d-op step on %d devices: %.2f ms per op-by-op pass over "
  .. "the catalogue, %.2f ms with the cache-aware matmul model (best of 5; build of the op "
  .. "set once: %.1f ms)", N, #devs, 1e3 * t_plain, 1e3 * t_cache, 1e3 * t_build))
print(string.format("(checksum: %.6g s, %.6g s summed over devices)", sum1, sum2))
if t_plain > 0.05 or t_cache > 0.05 then
  print("SLOWER than the 50 ms target")
end
