-- Hugging Face Transformers' Trainer with DeepSpeed ZeRO-2 (--deepspeed ds_config_zero2.json):
-- the DeepSpeed engine runs the model cast to fp16/bf16 itself, no autocast (issue [18]).
-- the CUDA context with PyTorch's kernels (dlbench.framework_memory, with its source)
local CONTEXT = require("dlbench.framework_memory").PYTORCH_CONTEXT
return {
  name = "hf-deepspeed", year = 2023,
  title = "Hugging Face Trainer + DeepSpeed ZeRO-2 (fp16/bf16 engine, no autocast): "
    .. "FlashAttention-2 or SDPA, the model's own unfused loss, contiguous gradient buckets",
  attention = "flash2",
  fuse = { transformer = { "attention", "optimizer" }, other = { "optimizer" } },
  stack_overlap = { grad_reduce = true, param_gather = false },
  gather = { unit = "none" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = 5e8,
  zero = 2, slack = nil, fp8 = nil,
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  recompute = { "none", "full" },
  -- What the stack allocates beyond the graph's tensors (lua/dlbench/framework_memory.lua):
  -- the loss in the engine's 16-bit type, and ZeRO-1/2's contiguous gradient buckets at
  -- DeepSpeed's defaults (reduce_bucket_size 5e8 elements, contiguous_gradients on,
  -- overlap_comm off: one buffer). A run's own ds_config may differ: derive a profile
  -- (docs/frameworks.md, "Memory a stack adds").
  memory = { loss = { autocast = false }, buckets = { count = 1, elements = 5e8 },
    context = CONTEXT },
  sources = {
    "Hugging Face transformers docs, 'Model training anatomy' (model_memory_anatomy.md): "
      .. "after torch.ones((1, 1)).to('cuda') nvidia-smi shows 1343 MB, 'the kernels alone'",
    "transformers Trainer (4.3x) with DeepSpeed: the engine casts the module to fp16 "
      .. "(DeepSpeedEngine: module.half()) and no torch.autocast wraps the step",
    "QwenLM/Qwen modeling_qwen.py QWenLMHeadModel.forward: the shifted contiguous logits and "
      .. "CrossEntropyLoss, here in the engine's 16-bit type",
    "DeepSpeed runtime/zero/stage_1_and_2.py, DeepSpeedZeroOptimizer.backward: with "
      .. "contiguous_gradients, ipg_buffer = torch.empty(reduce_bucket_size, dtype = the 16-bit "
      .. "type) before loss.backward(), and a second one (buf_1) under overlap_comm",
    "DeepSpeed config docs (ZeRO): reduce_bucket_size 5e8, contiguous_gradients true, "
      .. "overlap_comm false by default for stage 2",
  },
}
