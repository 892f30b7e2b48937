-- Hugging Face Transformers' Trainer on PyTorch 2.x eager with amp autocast (--bf16/--fp16,
-- no DeepSpeed): the stack of most fine-tuning recipes (PEFT LoRA scripts) (issue [18]).
-- the CUDA context with PyTorch's kernels (dlbench.framework_memory, with its source)
local CONTEXT = require("dlbench.framework_memory").PYTORCH_CONTEXT
return {
  name = "hf-trainer", year = 2023,
  title = "Hugging Face Trainer (transformers 4.3x, PyTorch 2.x eager, amp autocast): "
    .. "FlashAttention-2 or SDPA, foreach AdamW, the model's own unfused loss",
  attention = "flash2",
  fuse = { transformer = { "attention", "optimizer" }, other = { "optimizer" } },
  -- overlap / fsdp_overlap stay nil for the reason pytorch_ddp.lua gives
  stack_overlap = { grad_reduce = true, param_gather = false },
  gather = { unit = "none" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = 25e6,
  zero = 0, slack = nil, fp8 = nil,
  dispatch = { per_op = 10e-6, source = "ESTIMATE: eager PyTorch's per-op host cost is of the "
    .. "order of 10 us (Python + dispatcher + launch); for issue [19]'s host model" },
  recompute = { "none", "full" },
  -- What the stack allocates beyond the graph's tensors (lua/dlbench/framework_memory.lua):
  -- a causal LM's loss as the model code writes it, under autocast (see the sources).
  memory = { loss = { autocast = true }, context = CONTEXT, adam_temporaries = 1 },
  sources = {
    "Hugging Face transformers docs, 'Model training anatomy' (model_memory_anatomy.md): "
      .. "after torch.ones((1, 1)).to('cuda') nvidia-smi shows 1343 MB, 'the kernels alone'",
    "transformers Trainer (4.3x): --bf16/--fp16 without DeepSpeed runs the step under "
      .. "torch.autocast; optim adamw_torch is torch.optim.AdamW (foreach on CUDA)",
    "QwenLM/Qwen modeling_qwen.py QWenLMHeadModel.forward (as transformers' LlamaForCausalLM "
      .. "of the same years): lm_logits = lm_head(h); shift_logits = lm_logits[..., :-1, :]"
      .. ".contiguous(); CrossEntropyLoss()(shift_logits, shift_labels)",
    "torch/optim/adamw.py _multi_tensor_adamw (PyTorch 2.x): exp_avg_sq_sqrt = "
      .. "torch._foreach_sqrt(device_exp_avg_sqs), one list the size of a moment during the step",
    "PyTorch 2.0 docs, Automatic Mixed Precision, 'CUDA Ops that can autocast to float32': "
      .. "log_softmax, nll_loss, cross_entropy run in fp32 (the logits are upcast)",
  },
}
