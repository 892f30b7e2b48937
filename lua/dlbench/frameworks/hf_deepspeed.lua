-- Hugging Face Transformers' Trainer with DeepSpeed ZeRO-2 (--deepspeed ds_config_zero2.json):
-- the DeepSpeed engine runs the model cast to fp16/bf16 itself, no autocast (issue [18]).
-- As hf-trainer (its kernels, fusion, dispatch) but for ZeRO-2 and the memory it adds.
local p = {}
for k, v in pairs(require "dlbench.frameworks.hf_trainer") do p[k] = v end
p.name, p.year = "hf-deepspeed", 2023
p.title = "Hugging Face Trainer + DeepSpeed ZeRO-2 (fp16/bf16 engine, no autocast): "
  .. "FlashAttention-2 or SDPA, the model's own unfused loss, contiguous gradient buckets"
p.zero, p.bucket_bytes = 2, 5e8
-- ZeRO-2's gradient partition buffer (as deepspeed-zero2)
p.grad_buffer = require("dlbench.frameworks.deepspeed_zero2").grad_buffer
-- the DeepSpeed engine's optimizer (ds_config "AdamW" -> FusedAdam) and clipping
-- (gradient_clipping "auto" = max_grad_norm 1.0)
p.optimizer_impl = { kind = "fused", grad_clip = true,
  launch = "flat",
  -- offload_optimizer: DeepSpeedCPUAdam on the host (dlb.roofline.CPU_OPTIMIZERS)
  cpu = "cpu_adam",
  launch_source = "DeepSpeed ZeRO-2: FusedAdam on the flat fp32 partition "
    .. "(single_partition_of_fp32_groups)",
  source = "DeepSpeed: ds_config optimizer AdamW builds deepspeed.ops.adam.FusedAdam "
    .. "(multi_tensor_adam: one pass over each tensor); Trainer's gradient_clipping 'auto' = "
    .. "max_grad_norm 1.0; ZeRO-1/2 unscale_and_clip_grads computes the norm and scales every "
    .. "gradient partition in place (grad.data.mul_(1 / combined_scale))" }
-- What the stack allocates beyond the graph's tensors (lua/dlbench/framework_memory.lua):
-- the loss in the engine's 16-bit type, the CUDA context, and ZeRO-1/2's contiguous
-- gradient buckets at DeepSpeed's defaults (reduce_bucket_size 5e8 elements,
-- contiguous_gradients on, overlap_comm off: one buffer); DeepSpeed's own Adam has no
-- foreach temporaries, but its step makes an fp32 copy of the gradient partition. A run's
-- own ds_config may differ: dlb.frameworks.derive.
p.memory = { loss = { autocast = false }, buckets = { count = 1, elements = 5e8 },
  context = require("dlbench.framework_memory").PYTORCH_CONTEXT, zero_fp32_grads = true }
p.sources = {
  "transformers Trainer (4.3x) with DeepSpeed: the engine casts the module to fp16 "
    .. "(DeepSpeedEngine: module.half()) and no torch.autocast wraps the step",
  "QwenLM/Qwen modeling_qwen.py QWenLMHeadModel.forward: the shifted contiguous logits and "
    .. "CrossEntropyLoss, here in the engine's 16-bit type",
  "DeepSpeed runtime/zero/stage_1_and_2.py, DeepSpeedZeroOptimizer.backward: with "
    .. "contiguous_gradients, ipg_buffer = torch.empty(reduce_bucket_size, dtype = the 16-bit "
    .. "type) before loss.backward(), and a second one (buf_1) under overlap_comm",
  "DeepSpeed runtime/zero/stage_1_and_2.py, DeepSpeedZeroOptimizer.step: "
    .. "single_grad_partition = flatten(averaged_gradients).to(fp32 master's dtype)",
  "DeepSpeed config docs (ZeRO): reduce_bucket_size 5e8, contiguous_gradients true, "
    .. "overlap_comm false by default for stage 2",
  "Hugging Face transformers docs, 'Model training anatomy': the CUDA context, 1343 MB",
}
return p
