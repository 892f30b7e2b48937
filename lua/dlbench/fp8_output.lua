-- dlbench.fp8_output — the output layer under an fp8 recipe (issues [18]/[21], branch
-- fp8-head): whether a stack's fp8 recipe runs the output layer's GEMMs in fp8 or leaves them
-- in 16-bit, and the peak they are then timed at (dlb_roof head_peak, graphs/hw/dlb_hw.h).
-- The output layer's GEMMs are the matmul that makes the loss's logits (the LM head; a tied
-- head's matmul with the embedding too), its recomputation and its two backward GEMMs
-- (graphs/step/output_layer.c, DLB_KERNEL_HEAD; the planner's dlb_par_op attention 5).
-- A profile states it in its fp8 table: fp8.output = {quantized = true | false, source = "..."}.
-- Read (each profile's file gives the source):
--   megatron-core, nemo: Megatron-Core's GPTModel.output_layer is a plain
--     tensor_parallel.ColumnParallelLinear (megatron/core/models/gpt/gpt_model.py), not a
--     Transformer Engine module, so TE's fp8 autocast leaves it in bf16;
--   torchtitan: torchtitan/float8.py converts every nn.Linear but the output layer
--     (convert_to_float8_training(..., module_filter_fn=lambda mod, fqn: fqn != "output"));
--     later releases take filter_fqns from the config, the shipped float8 configs and docs
--     listing "output", the MXFP8 converter's default ["output"];
--   maxtext: MaxText/layers/decoders.py builds logits_dense without the quantisation config
--     ("We do not quantize the logits matmul").
--   llm-foundry (the validation rows' Composer + Transformer Engine runs, whose profile is
--     fsdp): MPT's tied head is SharedEmbedding.forward(unembed=True) = F.linear(input,
--     self.weight) (llmfoundry/models/layers/custom_embedding.py), not a te.Linear; stated
--     with the rows' recipe (notebooks/data/validation_runs.lua).
-- A profile that does not state it (the default, M.DEFAULT, chosen before any row was
-- re-measured): 16-bit, as every stack read leaves it, and as Transformer Engine's
-- fp8_autocast quantises only TE's own modules (a plain torch Linear or F.linear inside it
-- runs in its input's precision; NVIDIA Transformer Engine docs, "Using FP8 with
-- Transformer Engine"). The profile "none" (no stack: the graph engine's own fp8 step, its
-- pre-profile behaviour) states quantized = true: every GEMM at the fp8 peak.
-- The output layer's GEMMs then run at the device's 16-bit peak (peak.bf16, else peak.fp16)
-- with the step's flops_eff and matmul efficiency; MFU keeps the step precision's peak (the
-- fp8 peak of an fp8 step: docs/frameworks.md "The output layer under fp8").
local M = {}

M.DEFAULT = { quantized = false, source = "default for a profile that does not state it: "
  .. "16-bit, as every stack read leaves it (Megatron-Core, NeMo, torchtitan, MaxText, "
  .. "llm-foundry under Transformer Engine) and as Transformer Engine's fp8_autocast "
  .. "quantises only its own modules" }

-- Check an fp8.output field (nil allowed: the default): {quantized = boolean, source =
-- string}; raises at level with `where` naming it.
function M.check(o, where, level)
  if o ~= nil and (type(o) ~= "table" or type(o.quantized) ~= "boolean"
      or type(o.source) ~= "string") then
    error(where .. ": fp8.output must be {quantized = true | false, source = \"...\"} (whether "
      .. "the fp8 recipe runs the output layer's GEMMs in fp8)", level)
  end
end

-- Profile p's output layer under its fp8 recipe: quantized (boolean), the source, and
-- whether the profile states it (false: M.DEFAULT). p: a profile table or nil (no profile:
-- the graph engine's own step, quantized).
function M.of(p)
  if p == nil then return true, "no profile: every GEMM at the step's precision", false end
  local f = type(p.fp8) == "table" and p.fp8.output or nil
  if f == nil then return M.DEFAULT.quantized, M.DEFAULT.source, false end
  return f.quantized, f.source, true
end

-- The peak the output layer's GEMMs run at in a step of profile p on device dev (a device
-- table: hw.get's) at device precision prec, and a note: the 16-bit peak when prec is fp8
-- and p's recipe leaves the output layer in 16-bit; nil otherwise (the step's peak).
function M.head_peak(p, dev, prec)
  if dev == nil then return nil end
  prec = dev:precision(prec)
  if prec ~= "fp8" then return nil end
  local q, src, stated = M.of(p)
  if q then return nil, "output layer in fp8 (" .. src .. ")" end
  local half = dev.peak.bf16 and "bf16" or (dev.peak.fp16 and "fp16") or nil
  if not half then
    return nil, "no 16-bit peak on " .. tostring(dev.name) .. ": output layer at the fp8 peak"
  end
  return dev.peak[half], string.format("output layer's GEMMs at the %s peak (%s%s)", half,
    stated and "" or "the default: ", src)
end

return M
