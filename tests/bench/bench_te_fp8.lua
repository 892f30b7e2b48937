-- bench_te_fp8.lua — Transformer Engine's fp8 casts as planner ops (dlbench.te_fp8, issue
-- [21] fourth round): what building the layers with them costs, and an evaluation of the
-- Megatron-Bridge Qwen3-30B-A3B row (8 B200, ep 8, MXFP8: 48 MoE blocks of 128 experts,
-- per-expert quantisation launches) with and without them.
--   1. layers.from_graph of the Qwen3-30B-A3B zoo graph (seq 4096) under the nemo profile
--      with fp8 = true (MXFP8) and without (median and min of 5 runs, CPU s);
--   2. dlb.parallel.evaluate of the row's layout on prepared layers (median of 21 runs),
--      and the step / throughput each predicts (catalogue device).
-- Run: dlbench run tests/bench/bench_te_fp8.lua
-- (or under LuaJIT: DLB_BACKEND=ffi luajit tests/bench/bench_te_fp8.lua).
local time = dofile((arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench") .. "/timing.lua")
local dlb = require "dlbench"
local P = dlb.parallel

local g = dlb.models.moe { style = "llama", layers = 48, hidden = 2048, heads = 32, kv_heads = 4,
  head_dim = 128, ffn = 768, experts = 128, top_k = 8, vocab = 151936, seq = 4096 }
local mx = dlb.frameworks.derive("nemo", { fp8 = { scaling = "mxfp8", weight_cast = "step" } })
local function build(fp8)
  return P.layers.from_graph(g, { precision = "mixed_bf16", framework = mx, fp8 = fp8 })
end
local plain, te
local m0, n0 = time(5, function() plain = build(false) end)
local m1, n1 = time(5, function() te = build(true) end)
print(string.format("layers.from_graph, Qwen3-30B-A3B: without the casts median %.3f s (min %.3f), "
  .. "with MXFP8 casts median %.3f s (min %.3f); %d ops -> %d (%d linears)", m0, n0, m1, n1,
  #plain.ops / P.layers.OP, #te.ops / P.layers.OP, te.fp8.linears))
local hw = dlb.hw.get("B200")
local cl = P.cluster { hw = hw, per_node = 8, nodes = 1 }
local function row(ls)
  return P.evaluate { layers = ls, hw = hw, precision = "fp8", cluster = cl, framework = mx,
    batch = 512, dp = 8, tp = 1, pp = 1, ep = 8, m = 64 }
end
P.prepare(plain); P.prepare(te)
local r0, r1
local e0 = time(21, function() r0 = row(plain) end)
local e1 = time(21, function() r1 = row(te) end)
print(string.format("evaluate (prepared): without %.2f ms, with %.2f ms; step %.2f s -> %.2f s, "
  .. "%.0f -> %.0f tokens/s per GPU (measured 9,299)", 1e3 * e0, 1e3 * e1, r0.step, r1.step,
  r0.throughput * 4096 / 8, r1.throughput * 4096 / 8))
