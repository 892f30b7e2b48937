-- test_megatron_grad_accum.lua — Megatron-LM's per-micro-batch gradient accumulation under
-- the megatron-lm profile (the pass grad_accum, graphs/step/fusion_grad.c; issue [19] branch
-- megatron-microbatch, docs/validation.md). Sources:
--   * NVIDIA/Megatron-LM megatron/model/distributed.py DistributedDataParallel.
--     _make_param_hook: `param.main_grad.add_(param.grad.data); param.grad = None` on every
--     parameter's AccumulateGrad node, so after every micro-batch's backward;
--   * megatron/arguments.py (commit 00129014): --DDP-impl local and the contiguous buffer by
--     default; gradient_accumulation_fusion set False unless
--     --accumulate-allreduce-grads-in-fp32 (off for fp16), the buffer in params_dtype
--     (_get_buffer_type): per 16-bit gradient element 2 (grad read) + 2 + 2 (main_grad read
--     and written) = 6 B;
--   * a GPT layer has 12 parameters in Megatron-LM (layernorm weight and bias twice, the
--     fused query_key_value weight and bias, dense, dense_h_to_4h, dense_4h_to_h weight and
--     bias; VIA-Research/vTrain f8dda84 src/predictor.py model_params['transformer'] lists the
--     same 12): 12 add_ launches per layer and micro-batch.
-- Both backends.
local T = require "harness"
local dlb = require "dlbench"
local P = dlb.parallel

local ML = dlb.frameworks.get("megatron-lm")
local F = {}
for _, n in ipairs(ML.fuse) do if n ~= "grad_accum" then F[#F + 1] = n end end
local WITHOUT = dlb.frameworks.derive("megatron-lm", { fuse = F })
local h = 256
local function gpt(layers)
  return dlb.models.gpt { layers = layers or 1, hidden = h, heads = 4, vocab = 1000, context = 128,
    seq = 128, batch = 1 }
end

T.test("megatron-lm runs grad_accum (local DDP's main_grad.add_)", function()
  local has = false
  for _, n in ipairs(ML.fuse) do has = has or n == "grad_accum" end
  T.eq(has, true, "in the profile's fuse list")
  T.checkerr("grad_accum", function() return gpt():stats { fuse = { "grad_acum" } } end)
end)

T.test("per layer: 12 add_ launches, 6 B per 16-bit gradient element", function()
  local g = gpt()
  local function layer(fw)
    local host, bytes = 0, 0
    for _, r in ipairs(g:ops { precision = "mixed", framework = fw }) do
      if r.layer_name == "h0" and r.phase == "bwd" then host = host + r.host_ops; bytes = bytes + r.bytes end
    end
    return host, bytes
  end
  local h1, b1 = layer(ML)
  local h0, b0 = layer(WITHOUT)
  T.eq(h1 - h0, 12, "one add_ per parameter of the layer (the fused QKV weight and bias once)")
  -- the layer's parameters: 4 h^2 + 4 h (attention, QKV fused) + 8 h^2 + 5 h (MLP) + 4 h (norms)
  local n = 12 * h * h + 13 * h
  T.eq(b1 - b0, 6 * n, "grad read, main_grad read and written, 2 B each")
end)

T.test("the step: 3 x the gradients' bytes, FLOPs and parameters unchanged", function()
  local g = gpt(2)
  local s1 = g:stats { precision = "mixed", framework = ML }
  local s0 = g:stats { precision = "mixed", framework = WITHOUT }
  T.eq(s1.bytes - s0.bytes, 3 * 2 * s1.trainable, "every trainable element, 16-bit")
  T.eq(s1.flops, s0.flops); T.eq(s1.params, s0.params)
end)

T.test("the planner charges it once per micro-batch", function()
  local g = dlb.models.gpt { layers = 2, hidden = 1024, heads = 16, seq = 1024, context = 1024,
    vocab = 1000 }
  local Lw = P.layers.from_graph(g, { precision = "fp16", framework = ML })
  local L0 = P.layers.from_graph(g, { precision = "fp16", framework = WITHOUT })
  local function diff(m)
    local function ev(L, fw)
      return P.evaluate { layers = L, hw = "A100-SXM4-80GB", precision = "fp16", batch = 8, dp = 1,
        tp = 1, pp = 1, m = m, framework = fw }
    end
    local a, b = ev(Lw, ML), ev(L0, WITHOUT)
    T.eq(a.update, b.update, "not in the optimizer step")
    return a.compute - b.compute
  end
  local d1, d4 = diff(1), diff(4)
  T.eq(d1 > 0, true, "device time added")
  T.near(d4, 4 * d1, 1e-9, "four micro-batches: four accumulations (the same bytes each)")
end)

T.done()
