-- bench_serve.lua — dlb.serve's throughput-latency sweep: 10,000 static-batch serving
-- configurations of Llama-2-7B on H100-SXM (25 batch sizes x 20 prompt lengths x 20 output
-- lengths; target: under 1 s), through the compiled path ([20]'s dlb_sweep_prog: the step
-- graphs of lua/dlbench/serve_graph.lua built with batch, context and touched experts
-- symbolic, compiled, and timed per configuration in C by dlb_sweep_prog_serve). Each row
-- is TTFT, TPOT, latency and tokens/s; the decode steps' sum is closed form (no loop over
-- output tokens) and a decode step's non-attention cost is reused across prompts and
-- outputs per batch size. Warm (the programs kept from the first run), cold (a new model:
-- its 21 programs compiled: one prefill program per prompt length, one decode program),
-- and the same sweep through the per-configuration graph path (compiled = false).
-- Also times one dlb.serve.generate call, one continuous-batching steady state, and reading
-- an imported ONNX decoder's fields from its graph (the GPT-2 fixture), and building and
-- timing the prefill and decode steps as graphs (dlb.serve.graphs, dlb.serve.time).
--   dlbench run tests/bench/bench_serve.lua
--   LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" LD_LIBRARY_PATH=$PWD/build/lib DLB_BACKEND=ffi luajit tests/bench/bench_serve.lua
local dlb = require "dlbench"
local S = dlb.serve
local time = dofile((arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench") .. "/timing.lua")

local m = S.model(dlb.models.llama { size = "7b", batch = 1, seq = 16 })
local bs, ps, os_ = {}, {}, {}
for i = 1, 25 do bs[i] = i * 8 end
for i = 1, 20 do ps[i] = i * 100 end
for i = 1, 20 do os_[i] = i * 50 end

local n
local med, min = time(5, function()
  local t = S.sweep { model = m, hw = "H100-SXM", batch = bs, prompt = ps, output = os_ }
  n = t:count()
end)
assert(n == 10000, "rows: " .. tostring(n))
print(string.format("sweep of %d serving configurations: %.3f s (min %.3f s) [%s]", n, med, min, dlb.backend))
-- cold: a new model each run, so its step graphs are built (every step is its graph; a
-- dense model's graphs are built at batches 1 and 2 and, for decode, contexts 0 and 1,
-- per prompt length: 4 + 2 x 20 here), then timed for every configuration
local cold = 0
local cmed, cmin = time(5, function()
  cold = cold + 1  -- a new name: the kept graphs are keyed by the spec's fields, its name too
  local fresh = S.model(dlb.models.llama { size = "7b", batch = 1, seq = 16 }, { name = "cold" .. cold })
  S.sweep { model = fresh, hw = "H100-SXM", batch = bs, prompt = ps, output = os_ }
end)
print(string.format("the same sweep, cold (its 21 step programs compiled): %.3f s (min %.3f s)", cmed, cmin))
local gmed, gmin = time(5, function()
  S.sweep { model = m, hw = "H100-SXM", batch = bs, prompt = ps, output = os_, compiled = false }
end)
print(string.format("the same sweep through the graph path (compiled = false, warm): %.3f s (min %.3f s)", gmed, gmin))

local g = time(20, function()
  S.generate(m, { hw = "H100-SXM", batch = 64, prompt = 1024, output = 512 })
end)
print(string.format("one generate (batch 64, 1024 + 512 tokens): %.3f ms", g * 1e3))
local c = time(5, function()
  S.continuous(m, { hw = "H100-SXM", rate = 5, prompt = 512, output = 256 })
end)
print(string.format("one continuous-batching steady state (with max_rate): %.1f ms", c * 1e3))

local here = (arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench")
local og = dlb.models.from_onnx(here .. "/../fixtures/onnx/gpt2_like.onnx", { quiet = true })
local o = time(5, function() S.model(og) end)
print(string.format("serving fields of an ONNX decoder (gpt2_like, 99 ops): %.2f ms", o * 1e3))

-- the steps as graphs: build Llama-2-7B's prefill and decode graphs (355 kernel ops each)
-- and time the decode graph as dlb.serve.decode does
local gb = time(5, function() S.graphs(m, { hw = "H100-SXM", batch = 16, prompt = 1024, context = 2048 }) end)
local _, dg = S.graphs(m, { hw = "H100-SXM", batch = 16, prompt = 1024, context = 2048 })
local gt = time(5, function() S.time(dg) end)
print(string.format("dlb.serve.graphs (prefill + decode, 2 x 355 kernel ops): %.1f ms; dlb.serve.time of the decode graph: %.2f ms", gb * 1e3, gt * 1e3))
