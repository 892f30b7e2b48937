-- bench_recompute_modules.lua — Megatron-Core's selective-recompute modules in the planner
-- (recompute_modules, issue 27): what they cost an evaluation and a search.
--   1. dlb.parallel.evaluate of the Megatron-MoE-ModelZoo long-context row's layout (Qwen3-235B-
--      A22B, seq 16,384, 256 H100s: tp 4, ep 8, pp 8, vpp 4, dp 8) on prepared layers, with
--      recompute = "selective" (the attention core) and with recompute_modules = {"layernorm",
--      "moe"} (the row's), median of 21 runs, and the step each predicts (catalogue device);
--   2. dlb.parallel.plan of the same model on 256 GPUs (batch 256, pp up to 8, ep up to 8),
--      both ways, median of 3 runs.
-- Run: dlbench run tests/bench/bench_recompute_modules.lua
-- (or under LuaJIT: DLB_BACKEND=ffi luajit tests/bench/bench_recompute_modules.lua).
local time = dofile((arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench") .. "/timing.lua")
local dlb = require "dlbench"
local P = dlb.parallel

local g = dlb.models.moe { style = "llama", layers = 94, hidden = 4096, heads = 64, kv_heads = 4,
  head_dim = 128, ffn = 1536, experts = 128, top_k = 8, vocab = 151936, seq = 16384 }
local ls = P.layers.from_graph(g, { precision = "mixed_bf16", framework = "megatron-core" })
P.prepare(ls)
local cl = P.cluster { hw = "H100-SXM", per_node = 8, nodes = 32 }
local function ev(mods)
  return P.evaluate { layers = ls, hw = "H100-SXM", precision = "mixed_bf16", cluster = cl,
    framework = "megatron-core", batch = 256, dp = 8, tp = 4, pp = 8, ep = 8, m = 32,
    schedule = "interleaved", v = 4, recompute = "selective", recompute_modules = mods }
end
local mods = { "layernorm", "moe" }
-- both warmed up first (under LuaJIT the first timed calls pay for the traces they compile)
for _ = 1, 21 do ev(nil); ev(mods) end
local e0, e1 = time(21, function() ev(nil) end), time(21, function() ev(mods) end)
local r0, r1 = ev(nil), ev(mods)
print(string.format("evaluate, prepared: selective (core_attn) median %.2f ms, (layernorm, moe) "
  .. "median %.2f ms; step %.2f s -> %.2f s, activations %.1f GB -> %.1f GB per GPU",
  1e3 * e0, 1e3 * e1, r0.step, r1.step, r0.mem_act / 1e9, r1.mem_act / 1e9))
local function plan(m)
  return P.plan { layers = ls, hw = "H100-SXM", precision = "mixed_bf16", cluster = cl,
    framework = "megatron-core", batch = 256, devices = 256, pp_max = 8, ep_max = 8,
    recompute = "selective", recompute_modules = m, keep_unfit = true, table = false }
end
local p0, p1 = time(3, function() plan(nil) end), time(3, function() plan(mods) end)
local _, n0 = plan(nil)
local _, n1 = plan(mods)
print(string.format("plan, 256 GPUs: selective (core_attn) median %.2f s (%d layouts), (layernorm, "
  .. "moe) median %.2f s (%d layouts)", p0, n0, p1, n1))
