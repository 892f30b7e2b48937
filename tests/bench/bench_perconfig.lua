-- bench_perconfig.lua — the per-configuration path of a transformer design-space sweep
-- (issue [20] item 5): a 32-layer GPT (hidden 4096, 32 heads, seq 2048, micro-batch 8)
-- built by dlb.models.gpt, analysed by g:stats{fuse = true} and timed by
-- dlb.roofline.time on an H100. CPU time (os.clock) per call, median and best of N after
-- one warm-up (timing.lua). Rows: graph build; g:stats{fuse=true} on a graph with every
-- dim bound; roofline.time of those stats; the sum (one configuration, fresh graph); and
-- the same with one symbolic graph (batch "b", seq "q") reused and bound per call.
-- Run: build/bin/dlbench run tests/bench/bench_perconfig.lua
--  or LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" LD_LIBRARY_PATH=$PWD/build/lib \
--     DLB_BACKEND=ffi luajit tests/bench/bench_perconfig.lua
-- DLB_BENCH_N sets the number of timed runs (default 30).
local dlb = require "dlbench"
local time = dofile((arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench") .. "/timing.lua")
local N = tonumber(os.getenv("DLB_BENCH_N") or "") or 30

local M = { layers = 32, hidden = 4096, heads = 32, seq = 2048, context = 4096, batch = 8 }
local dev = dlb.hw.get("H100")

-- `bench_perconfig.lua loop all|stats N`: N configurations and nothing else, for an
-- instruction count (valgrind --tool=callgrind; subtract N = 0): "all" builds each graph,
-- "stats" re-analyses one graph (g:stats{fuse=true} + roofline.time)
-- `bench_perconfig.lua mean N`: the mean CPU time per configuration over N in a row (the
-- collector's work included, as a sweep pays it), re-analysing one graph and building each
if arg and arg[1] == "mean" then
  local n = tonumber(arg[2] or "200")
  local g = dlb.models.gpt(M)
  for _ = 1, 5 do dlb.roofline.time(g:stats{ fuse = true }, dev) end
  local t0 = os.clock()
  for _ = 1, n do dlb.roofline.time(g:stats{ fuse = true }, dev) end
  local t1 = os.clock()
  for _ = 1, n do dlb.roofline.time(dlb.models.gpt(M):stats{ fuse = true }, dev) end
  local t2 = os.clock()
  print(string.format("bench_perconfig (%s), mean of %d: stats + roofline.time %.3f ms, "
    .. "build + stats + roofline.time %.3f ms", dlb.backend, n, (t1 - t0) / n * 1e3, (t2 - t1) / n * 1e3))
  return
end
if arg and arg[1] == "loop" then
  local n = tonumber(arg[3] or "30")
  local g = dlb.models.gpt(M)
  for _ = 1, n do
    if arg[2] == "all" then g = dlb.models.gpt(M) end
    dlb.roofline.time(g:stats{ fuse = true }, dev)
  end
  return
end

local g, s, r
local function build() g = dlb.models.gpt(M) end
local function stats() s = g:stats{ fuse = true } end
local function roof() r = dlb.roofline.time(s, dev) end
build(); stats(); roof()
local mb, bb = time(N, build)
local ms, bs = time(N, stats)
local mr, br = time(N, roof)
local mall, ball = time(N, function() build(); stats(); roof() end)
print(string.format("bench_perconfig (%s): GPT 32x4096, seq 2048, b 8, %d step ops, H100 %.4g ms/step",
  dlb.backend, s.nops, r.time * 1e3))
local function row(what, m, b)
  print(string.format("  %-44s median %7.3f ms  best %7.3f ms  (%.0f/s)", what, m * 1e3, b * 1e3, 1 / m))
end
row("build (dlb.models.gpt)", mb, bb)
row("g:stats{fuse=true}", ms, bs)
row("dlb.roofline.time(s, H100)", mr, br)
row("stats + roofline.time", ms + mr, bs + br)
row("build + stats + roofline.time", mall, ball)

-- one symbolic graph (b, q unbound), bound per configuration
local gs = dlb.models.gpt{ layers = 32, hidden = 4096, heads = 32, context = 4096, batch = "b", seq = "q" }
local rb
local mbind, bbind = time(N, function()
  rb = dlb.roofline.time(gs:stats{ fuse = true, b = 8, q = 2048 }, dev)
end)
assert(math.abs(rb.time - r.time) <= 1e-12 * r.time, "bound graph differs from the built one")
row("symbolic graph bound: stats + roofline.time", mbind, bbind)

-- a sweep as a user writes it (dlb.sweep, one job): 32 layers x hidden x seq x micro-batch,
-- a fresh graph per configuration, one row each; wall time per configuration
local space = { hidden = { 2048, 3072, 4096, 5120 }, seq = { 512, 1024, 2048 }, batch = { 1, 2, 4, 8 } }
local function cfg(p)
  local gg = dlb.models.gpt{ layers = 32, hidden = p.hidden, heads = p.hidden / 128, seq = p.seq,
    context = 4096, batch = p.batch }
  local rr = dlb.roofline.time(gg:stats{ fuse = true }, dev)
  return { time = rr.time, footprint = rr.footprint }
end
local ncfg = #space.hidden * #space.seq * #space.batch
local now = dlb.core.sys_now
dlb.sweep(space, cfg, { jobs = 1, quiet = true, progress = false })
local bestw = math.huge
for _ = 1, 3 do
  local t0 = now()
  dlb.sweep(space, cfg, { jobs = 1, quiet = true, progress = false })
  bestw = math.min(bestw, now() - t0)
end
row(string.format("dlb.sweep of %d configs (build+stats+time), per config", ncfg), bestw / ncfg, bestw / ncfg)

-- the peer comparison (issue [20] item 6; tests/bench/peer_llm_analysis.py runs the
-- analytical peer on the same 72 layouts): layers x hidden x seq x micro-batch, heads =
-- hidden / 128, vocab 50257, bf16, Adam, fused kernels, one H100; a fresh graph each
local layouts = {}
for _, L in ipairs { 24, 32, 40 } do
  for _, h in ipairs { 2048, 4096, 5120 } do
    for _, q in ipairs { 1024, 2048 } do
      for _, b in ipairs { 1, 2, 4, 8 } do layouts[#layouts + 1] = { L, h, math.floor(h / 128), q, b } end
    end
  end
end
local function peer_cfg(c)
  local gg = dlb.models.gpt{ layers = c[1], hidden = c[2], heads = c[3], seq = c[4], context = 2048,
    batch = c[5], vocab = 50257 }
  local ss = gg:stats{ fuse = true, precision = "bf16", optimizer = "adam" }
  return dlb.roofline.time(ss, dev), ss
end
local bestp = math.huge
for _ = 1, 3 do
  local t0 = os.clock()
  for _, c in ipairs(layouts) do peer_cfg(c) end
  bestp = math.min(bestp, os.clock() - t0)
end
print(string.format("  peer layouts (%d GPT layouts, bf16, adam, fused, H100): %.3f ms per configuration, %.0f configurations/s",
  #layouts, bestp / #layouts * 1e3, #layouts / bestp))
for _, c in ipairs { { 32, 4096, 32, 2048, 8 }, { 24, 2048, 16, 1024, 1 }, { 40, 5120, 40, 2048, 4 } } do
  local rr, ss = peer_cfg(c)
  print(string.format("  L=%d h=%d heads=%d seq=%d b=%d: step %.4g s, %.4g FLOP, footprint %.4g B",
    c[1], c[2], c[3], c[4], c[5], rr.time, ss.flops, rr.footprint))
end
