-- bench_scaling.lua — throughput of three-parameter learning-curve fits (power+const,
-- Levenberg-Marquardt in C) through the user API dlb.scaling.fit, on 12-point curves with 2%
-- noise, plus the pure power law and the Chinchilla joint law for reference.
-- Run: build/bin/dlbench run tests/bench/bench_scaling.lua
--  or: LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" LD_LIBRARY_PATH=$PWD/build/lib \
--      DLB_BACKEND=ffi luajit tests/bench/bench_scaling.lua
local dlb = require "dlbench"
local S = dlb.scaling

local seed = 12345
local function noise() -- uniform in [-1, 1), the LCG of tests/test_scaling.c
  seed = (seed * 1664525 + 1013904223) % 4294967296
  return math.floor(seed / 256) / 16777216 * 2 - 1
end

-- 64 distinct noisy curves, reused round-robin
local sets = {}
for s = 1, 64 do
  local xs, ys = {}, {}
  local a, b, g = 2 + 3 * (noise() + 1), -0.2 - 0.15 * (noise() + 1), 0.02 + 0.02 * (noise() + 1)
  for i = 1, 12 do
    xs[i] = 1e3 * 2 ^ (i - 1)
    ys[i] = (a * xs[i] ^ b + g) * (1 + 0.02 * noise())
  end
  sets[s] = { xs, ys }
end

local function bench(name, n, f)
  f(1) -- warm up
  local t0 = os.clock()
  for i = 1, n do f(i) end
  local dt = os.clock() - t0
  print(string.format("%-44s %8d fits in %6.3f s: %9.0f fits/s", name, n, dt, n / dt))
  return n / dt
end

print(string.format("dlbench %s, backend %s", dlb.version(), dlb.backend))
local rate = bench("power+const (3 params, LM), 12 points", 20000, function(i)
  local d = sets[(i - 1) % 64 + 1]
  S.fit(d[1], d[2], { form = "power+const" })
end)
bench("power (2 params, log-space LS), 12 points", 50000, function(i)
  local d = sets[(i - 1) % 64 + 1]
  S.fit(d[1], d[2])
end)
local runs = {}
for i = 0, 7 do
  for j = 0, 5 do
    local N, D = 1e7 * 3 ^ i, 1e9 * 4 ^ j
    runs[#runs + 1] = { N = N, D = D, L = S.chinchilla:loss(N, D) * (1 + 0.01 * noise()) }
  end
end
bench("joint L(N,D) (5 params, Huber IRLS), 48 runs", 200, function() S.fit_joint(runs) end)
print(string.format("three-parameter fits per second: %.0f (target >= 10000): %s", rate,
  rate >= 10000 and "ok" or "BELOW TARGET"))

-- Table 2 from the graph engine (Hestness et al. §4): one domain's sweep and fit, and one
-- Table 3 projection through a zoo builder (a numeric graph per bisection step).
if dlb.models then
  local function timeit(name, n, f)
    f()
    local t0 = os.clock()
    for _ = 1, n do f() end
    local dt = (os.clock() - t0) / n
    print(string.format("%-44s %8.1f ms each", name, dt * 1e3))
  end
  local wl = dlb.models.word_lm { hidden = "h" }
  timeit("fit_graph_costs word LM, 7 sizes (symbolic h)", 20, function()
    S.fit_graph_costs { graph = wl, dim = "h", params = { 2.38e9, 2.38e11 }, points = 7,
      batch = 128 }
  end)
  local cl = dlb.models.char_lm { hidden = "h" }
  timeit("fit_graph_costs char LM, 7 sizes (symbolic h)", 5, function()
    S.fit_graph_costs { graph = cl, dim = "h", params = { 14.6e9, 1.46e12 }, points = 7,
      batch = 96 }
  end)
  timeit("project word LM via word_lm{hidden=h} builder", 5, function()
    S.project(S.domains.word_lm, { params = 23.8e9, device = "Hestness-T4",
      graph = function(h) return dlb.models.word_lm { hidden = h } end })
  end)
  timeit("notebook Table 2: ResNet-152 width sweep", 3, function()
    S.fit_graph_costs { graph = function(c) return dlb.models.resnet { depth = 152,
      width = c / 64 } end, hi = 8192, params = { 73.2e6, 7.32e9 }, points = 7, batch = 32 }
  end)
end
