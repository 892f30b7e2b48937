-- bench_optim_launch.lua — issues [18]/[19], branch optim-launch: the optimizer step's launch
-- model in the planner (graphs/hw/optim_launch.c). GPT-2 XL (48 blocks, 580 parameter
-- tensors) on 64 A100s, dp 64, ZeRO-3, layers prepared once: one dlb.parallel.evaluate under
-- each profile with its launch model and with optimizer_impl = "none" (one kernel per update
-- op, as before), and a plan search on 64 GPUs under fsdp; prints each update phase.
-- Run: dlbench run tests/bench/bench_optim_launch.lua
-- (or under LuaJIT: DLB_BACKEND=ffi luajit tests/bench/bench_optim_launch.lua).
local dlb = require "dlbench"
local P = dlb.parallel
local time = dofile((arg and arg[0] and arg[0]:match("^(.*)/") or "tests/bench") .. "/timing.lua")

local g = dlb.models.gpt { size = "gpt2-xl" }
local hw = dlb.hw.get("A100-SXM4-80GB")
for _, fw in ipairs { "fsdp", "torchtitan", "pytorch-ddp", "deepspeed-zero3", "megatron-lm" } do
  local ls = P.prepare(P.layers.from_graph(g, { framework = fw }))
  local function ev(impl)
    return P.evaluate { layers = ls, hw = hw, batch = 512, dp = 64, tp = 1, pp = 1, m = 1,
      zero = fw == "pytorch-ddp" and 1 or (fw == "megatron-lm" and 0 or 3), framework = fw,
      optimizer_impl = impl }
  end
  local t1 = time(21, function() ev() end)
  local t0 = time(21, function() ev("none") end)
  print(string.format("%-16s evaluate %.3f ms (launch model) / %.3f ms (none); update %.2f ms "
    .. "/ %.2f ms; step %.1f ms / %.1f ms", fw, 1e3 * t1, 1e3 * t0, 1e3 * ev().update,
    1e3 * ev("none").update, 1e3 * ev().step, 1e3 * ev("none").step))
end
local ls = P.prepare(P.layers.from_graph(g, { framework = "fsdp" }))
local med, best = time(3, function()
  P.plan { layers = ls, hw = hw, devices = 64, batch = 512, framework = "fsdp" }
end)
print(string.format("plan, 64 GPUs, fsdp (launch model on): median %.3f s, min %.3f s (%s)", med,
  best, dlb.backend))
