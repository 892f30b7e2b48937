-- test_megatron_async_tp.lua — Megatron's asynchronous tensor-parallel all-reduce of the
-- backward (the planner's tp_async; issue [19], branch megatron-async-tp): NVIDIA/Megatron-LM
-- megatron/mpu/layers.py (2022) ColumnParallelLinearWithAsyncAllreduce.backward starts the
-- all-reduce of grad_input with async_op=True and runs grad_weight = grad_output.t().matmul(
-- input) before handle.wait(); Megatron-Core and Transformer Engine's Linear likewise ("Overlap
-- dgrad-RS/AR with wgrad"). The formula is tested by hand in tests/test_parallel_ops.c
-- (async_tp); here the profiles that run it, the option's checks, and plan / evaluate
-- agreeing. Both backends.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel
local F = dlb.frameworks

local g = dlb.models.gpt { layers = 2, hidden = 2048, heads = 16, seq = 2048, context = 2048,
  vocab = 1000 }
local L = P.layers.from_graph(g, { precision = "fp16", framework = "megatron-lm" })
local function ev(extra)
  local o = { layers = L, hw = "A100-SXM4-80GB", precision = "fp16", batch = 4, dp = 1, tp = 4,
    pp = 1, m = 2, per_node = 8, nodes = 1, framework = "megatron-lm" }
  for k, v in pairs(extra or {}) do o[k] = v end
  return P.evaluate(o)
end

T.test("the profiles whose code runs it set it; the others do not", function()
  for _, n in ipairs { "megatron-lm", "megatron-core", "megatron-core-cudagraphs", "nemo" } do
    T.eq(F.plan_defaults(F.get(n)).tp_async, true, n)
  end
  -- Megatron-DeepSpeed turns it off under DeepSpeed (arguments.py: "if args.deepspeed:
  -- args.async_tensor_model_parallel_allreduce = False"); the FSDP stacks have no tensor
  -- parallelism of Megatron's kind
  for _, n in ipairs { "deepspeed-zero1", "deepspeed-zero3", "fsdp", "torchtitan", "none" } do
    T.eq(F.plan_defaults(F.get(n)).tp_async, nil, n)
  end
end)

T.test("the backward's collectives hide under the dW GEMMs; the forward's stay", function()
  local off, on = ev { tp_async = false }, ev { tp_async = true }
  T.eq(on.compute, off.compute, "the compute is the same")
  T.eq(on.tp_comm < off.tp_comm, true, "less exposed: " .. on.tp_comm .. " vs " .. off.tp_comm)
  -- two collectives each way of the same bytes: at most the backward's half is hidden
  T.eq(on.tp_comm >= off.tp_comm / 2 - 1e-15, true, "the forward's all-reduces stay exposed")
  T.near(off.step - on.step, off.tp_comm - on.tp_comm, 1e-9, "the step shortens by as much")
  -- the profile's default is on
  T.eq(ev().tp_comm, on.tp_comm, "megatron-lm's default")
  -- with NCCL's CTAs taking f of the compute (contention), the hidden part costs f of itself
  local f = ev { tp_async = true, contention = 0.2 }
  T.eq(f.tp_comm > on.tp_comm and f.tp_comm < off.tp_comm, true, "contention: in between")
  -- sequence parallelism: its reduce-scatter hides, its all-gathers stay exposed
  local so, sn = ev { tp_async = false, seq_par = true }, ev { tp_async = true, seq_par = true }
  T.eq(sn.tp_comm < so.tp_comm, true, "sequence parallelism too")
  -- tp 1: no collectives, nothing changes
  local a, b = ev { tp = 1, tp_async = false }, ev { tp = 1, tp_async = true }
  T.eq(a.step, b.step, "tp 1")
end)

T.test("plan and evaluate agree on a layout; the option is checked", function()
  local rows = P.plan { layers = L, hw = "A100-SXM4-80GB", precision = "fp16", batch = 4,
    devices = 4, per_node = 8, nodes = 1, framework = "megatron-lm", table = false,
    recompute = false, zero = 0 }
  local hit = 0
  for _, r in ipairs(rows) do
    if r.tp == 4 and r.pp == 1 then
      local e = ev { m = r.m, recompute = false }
      T.near(r.step, e.step, 1e-12, "plan row = evaluate, m " .. r.m)
      hit = hit + 1
    end
  end
  T.eq(hit > 0, true, "a tp 4 row")
  T.checkerr("tp_async", ev, { tp_async = 1 })
  T.checkerr("tp_async", F.derive, "megatron-lm", { tp_async = "yes" })
end)

T.done()
