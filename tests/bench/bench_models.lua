-- bench_models.lua — the model zoo's speed: build a model and run the full training
-- analysis (g:stats with every dim bound: FLOPs, bytes, footprint schedule). Targets:
-- ResNet-152 under 5 ms, GPT-3 175B (96 layers) under 20 ms. Also the recurrent models,
-- whose unrolled graphs are the largest, and a symbolic (polynomial) analysis.
-- Run: build/bin/dlbench run tests/bench/bench_models.lua
--  or: LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" LD_LIBRARY_PATH=$PWD/build/lib \
--      DLB_BACKEND=ffi luajit tests/bench/bench_models.lua
local dlb = require "dlbench"
local models = dlb.models

-- median, min over n runs of f (CPU seconds), after one warm-up run
local time = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua")

print(string.format("dlbench %s, backend %s", dlb.version(), dlb.backend))
print(string.format("%-34s %7s %10s %10s %10s %8s", "model (batch 32)", "ops", "build ms", "stats ms", "total ms", "target"))
local function row(label, n, build, bind, target)
  local g = build()
  local tb = time(n, build)
  local ts = time(n, function() return g:stats(bind) end)
  local tt, tmin = time(n, function() return build():stats(bind) end)
  print(string.format("%-34s %7d %10.2f %10.2f %10.2f %8s%s", label, g:nops(), tb * 1e3, ts * 1e3,
    tt * 1e3, target and string.format("%d ms", target) or "",
    target and (tt * 1e3 <= target and "  ok" or "  SLOW") or ""))
  return tt, tmin
end
row("resnet152", 50, function() return models.resnet { depth = 152, batch = 32 } end, {}, 5)
row("gpt3-175b (96 layers, seq 2048)", 20, function() return models.gpt { size = "gpt3-175b", batch = 32 } end, {}, 20)
row("resnet50", 50, function() return models.resnet { depth = 50, batch = 32 } end, {})
row("bert-large", 20, function() return models.bert { size = "large", batch = 32 } end, {})
row("llama-70b", 20, function() return models.llama { size = "70b", batch = 32 } end, {})
row("word_lm (80 steps, 2 layers)", 10, function() return models.word_lm { batch = 32 } end, {})
row("char_lm (150 steps x 10 sublayers)", 5, function() return models.char_lm { batch = 32 } end, {})
row("speech (300 + 300 steps)", 5, function() return models.speech { batch = 32 } end, {})
row("gpt3-175b symbolic (b, seq q)", 20, function() return models.gpt { size = "gpt3-175b", seq = "q" } end, {})
