-- bench_import.lua — bring your own model: ONNX import (protobuf parse, operator mapping,
-- shape inference) plus the full training analysis (g:stats with every dim bound: FLOPs,
-- bytes, footprint schedule). Target: ResNet-50 from ONNX in under 50 ms. Also the other
-- fixtures, and Hugging Face configs through from_hf.
-- Run: build/bin/dlbench run tests/bench/bench_import.lua
--  or: LUA_PATH="$PWD/lua/?.lua;$PWD/lua/?/init.lua;;" LD_LIBRARY_PATH=$PWD/build/lib \
--      DLB_BACKEND=ffi luajit tests/bench/bench_import.lua
local dlb = require "dlbench"
local models = dlb.models

-- median, min over n runs of f (CPU seconds), after one warm-up run
local time = dofile((arg[0]:match("^(.*)/") or ".") .. "/timing.lua")

local F = "tests/fixtures/onnx/"
print(string.format("dlbench %s, backend %s", dlb.version(), dlb.backend))
print(string.format("%-40s %6s %10s %10s %10s %8s", "model (batch 32)", "ops", "import ms", "stats ms", "total ms", "target"))
local function row(label, n, build, bind, target)
  local g = build()
  local ti = time(n, build)
  local ts = time(n, function() return g:stats(bind) end)
  local tt = time(n, function() return build():stats(bind) end)
  print(string.format("%-40s %6d %10.2f %10.2f %10.2f %8s%s", label, g:nops(), ti * 1e3, ts * 1e3,
    tt * 1e3, target and string.format("%d ms", target) or "",
    target and (tt * 1e3 <= target and "  ok" or "  SLOW") or ""))
end
row("resnet50.onnx (torchvision)", 30, function() return models.from_onnx(F .. "resnet50.onnx") end, { batch = 32 }, 50)
row("  zoo: dlb.models.resnet{depth=50}", 30, function() return models.resnet { depth = 50, batch = 32 } end, {})
row("mobilenet_v2.onnx (opset 17)", 30, function() return models.from_onnx(F .. "mobilenet_v2.onnx") end, { batch = 32 })
row("transformer_encoder.onnx (seq 128)", 30, function() return models.from_onnx(F .. "transformer_encoder.onnx") end, { batch = 32, seq = 128 })
row("lstm.onnx (seq 128)", 30, function() return models.from_onnx(F .. "lstm.onnx") end, { batch = 32, seq = 128 })
row("llama-2-7b config.json (seq 4096)", 10, function() return models.from_hf("tests/fixtures/hf/llama-2-7b.json") end, { b = 32 })
row("mixtral-8x7b config.json (seq 4096)", 10, function() return models.from_hf("tests/fixtures/hf/mixtral-8x7b-v0.1.json") end, { b = 32 })
