-- bench_finetune_memory.lua — what issue [18]'s memory paths cost (CPU seconds, best and mean
-- of 5): (1) a Q-LoRA step of Qwen-72B at seq 8192 (graph build, int4 weights, the analysis
-- with recompute under the hf-deepspeed profile and its memory terms, dlb.roofline.time's
-- footprint), the heaviest row of
-- notebooks/data/memory_measured.lua; (2) dlb.parallel.layers.transformer for the GPT-3 175B
-- shape, now the zoo graph through from_graph (the closed form it replaced took ~0.1 ms).
-- Run: dlbench run tests/bench/bench_finetune_memory.lua (or under LuaJIT with DLB_BACKEND=ffi).
local dlb = require "dlbench"
local D = dofile((debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or ".")
  .. "/../../notebooks/data/memory_measured.lua")

local reps = 5
local function timeit(f)
  local best, total, res = math.huge, 0, nil
  for _ = 1, reps do
    local t0 = os.clock()
    res = f()
    local dt = os.clock() - t0
    total = total + dt
    if dt < best then best = dt end
  end
  return best, total / reps, res
end

local DATA = (debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or ".") .. "/../../notebooks/data/"
local TT = dofile(DATA .. "memory_measured_torchtune.lua")
local PE = dofile(DATA .. "memory_measured_peft.lua")
local TA = dofile(DATA .. "memory_measured_torchao.lua")

local b1, m1, fp = timeit(function()
  local g, st = D.build(dlb, { model = "qwen-72b", method = "qlora" }, 8192)
  return dlb.roofline.time(g:stats(st), D.hw).footprint
end)
print(string.format("bench_finetune_memory (%s): Qwen-72B Q-LoRA seq 8192 footprint %.1f GB: "
  .. "best %.0f ms, mean %.0f ms", dlb.backend, fp / 1e9, b1 * 1e3, m1 * 1e3))
local b2, m2, ls = timeit(function()
  return dlb.parallel.layers.transformer { layers = 96, d = 12288, seq = 2048, heads = 96,
    vocab = 50257, dropout = false }
end)
print(string.format("bench_finetune_memory (%s): layers.transformer GPT-3 175B (%d layers, graph "
  .. "path): best %.0f ms, mean %.0f ms", dlb.backend, #ls, b2 * 1e3, m2 * 1e3))
-- (3) a plan under a profile with a memory table (branch plan-mem): every layout comes back
-- from C and gets the stack's per-device terms in Lua, against the same search under
-- torchtitan (no memory table): Llama-2-7B (seq 2048) on 64 H100s, batch 64, the layers
-- built once (the graph's extraction is bench (2)'s cost)
local g = dlb.models.llama { size = "7b", seq = 2048, batch = 1 }
local function planner(fw)
  local ls = dlb.parallel.layers.from_graph(g, { precision = "mixed_bf16", framework = fw })
  return function()
    return dlb.parallel.plan { layers = ls, hw = "H100", devices = 64, batch = 64,
      precision = "mixed_bf16", framework = fw }
  end
end
for _, fw in ipairs { "torchtitan", "hf-deepspeed" } do
  local b3, m3, t = timeit(planner(fw))
  print(string.format("bench_finetune_memory (%s): plan Llama-2-7B, 64 H100, %s: %d layouts fit "
    .. "(best %.1f GB, %s): best %.1f ms, mean %.1f ms", dlb.backend, fw, #t, t[1].mem / 1e9,
    t[1].mem_terms, b3 * 1e3, m3 * 1e3))
end
-- (4) the torchtune table (notebooks/data/memory_measured_torchtune.lua): its 10 rows
-- predicted (Llama 3.2 3B at batch 2 x 4096, graph build, analysis under the derived
-- pytorch-ddp profile with torchtune's memory terms, roofline.time's need), and how many of
-- the comparable rows are within 10%; (5) the same for PEFT's table (bloomz-7b1, fp32, its
-- 2 predicted rows); (6) and torchao's optimizer CPU offload table (ViT-g/14, full bf16,
-- checkpointing, batch 32: 4 rows)
local function source(S, key)
  return function()
    local within, n, p = 0, 0, 0
    for _, row in ipairs(S.rows) do
      if row.predicted ~= false then
        p = p + 1
        local g, st = S.build(dlb, row)
        local need = dlb.roofline.time(g:stats(st), S.hw).need / S.unit
        if row.comparable then
          n = n + 1
          if math.abs(need / row[key] - 1) <= 0.10 then within = within + 1 end
        end
      end
    end
    return string.format("%d rows predicted, %d of %d comparable rows within 10%%", p, within, n)
  end
end
for _, c in ipairs { { "torchtune", TT, "gib" }, { "peft", PE, "gb" }, { "torchao", TA, "gb" } } do
  local b, m, tally = timeit(source(c[2], c[3]))
  print(string.format("bench_finetune_memory (%s): %s table, %d rows (%s): best %.0f ms, "
    .. "mean %.0f ms", dlb.backend, c[1], #c[2].rows, tally, b * 1e3, m * 1e3))
end
-- (7) the eager RMSNorm's saved upcast (branch rmsnorm-upcast): torchtune's packed row
-- (Llama 3.2 3B, batch 2 x 4096, walked) with its RMSNorm term and without; the term makes a
-- copy of the forward graph with two more outputs per rmsnorm before the expansion
-- (graphs/step/train.c upcast_norms). A fresh graph each time: build + expansion + analysis.
local packed
for _, row in ipairs(TT.rows) do if row.name == "+ packed dataset" then packed = row end end
local norm = TT.norm
for _, on in ipairs { false, true } do
  TT.norm = on and norm or nil
  local b, m, need = timeit(function()
    local g, st = TT.build(dlb, packed)
    return dlb.roofline.time(g:stats(st), TT.hw).need
  end)
  print(string.format("bench_finetune_memory (%s): torchtune packed row, eager RMSNorm term %s "
    .. "(%.2f GiB): best %.0f ms, mean %.0f ms", dlb.backend, on and "on" or "off",
    need / 2 ^ 30, b * 1e3, m * 1e3))
end
TT.norm = norm
