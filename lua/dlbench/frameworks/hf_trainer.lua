-- Hugging Face Transformers' Trainer on PyTorch 2.x eager with amp autocast (--bf16/--fp16,
-- no DeepSpeed): the stack of most fine-tuning recipes (PEFT LoRA scripts) (issue [18]).
-- It runs as pytorch-ddp does (its kernels, fusion, overlap, dispatch: that profile's
-- fields and sources); what differs is the memory the stack adds (memory below).
local p = {}
for k, v in pairs(require "dlbench.frameworks.pytorch_ddp") do p[k] = v end
p.name, p.year = "hf-trainer", 2023
p.title = "Hugging Face Trainer (transformers 4.3x, PyTorch 2.x eager, amp autocast): "
  .. "FlashAttention-2 or SDPA, foreach AdamW, the model's own unfused loss"
-- What the stack allocates beyond the graph's tensors (lua/dlbench/framework_memory.lua,
-- where each term's rule and source are): the loss under autocast, the CUDA context with
-- PyTorch's kernels, foreach AdamW's step temporaries (one moment-sized list).
p.memory = { loss = { autocast = true },
  context = require("dlbench.framework_memory").PYTORCH_CONTEXT, adam_temporaries = 1 }
-- The model code's RMSNorm, run eagerly (TrainingArguments.torch_compile defaults to False):
-- transformers' LlamaRMSNorm upcasts and autograd keeps the fp32 copy (dlbench.frameworks
-- check_flagged; graphs/step/train.c upcast_norms). Graphs without an rmsnorm are unaffected.
p.norm = { upcast = true,
  source = "transformers src/transformers/models/llama/modeling_llama.py (stored 00227283) "
    .. "LlamaRMSNorm.forward: hidden_states.to(torch.float32); variance = hidden_states.pow(2)"
    .. ".mean(-1, keepdim=True); hidden_states * torch.rsqrt(variance + eps); self.weight * "
    .. "hidden_states.to(input_dtype) (other models' RMSNorm classes copied from it were not "
    .. "each checked); "
    .. "transformers training_args.py (stored 00349ae8): 'torch_compile (bool, optional, "
    .. "defaults to False)': the model runs eagerly" }
-- Trainer's default optim adamw_torch (foreach on CUDA) and max_grad_norm = 1.0: the
-- gradients' norm and in-place scale (accelerator.clip_grad_norm_ -> torch's clip_grad_norm_)
p.optimizer_impl = { kind = "foreach", grad_clip = true,
  launch = "foreach",
  launch_source = "adamw_torch: torch.optim.AdamW default on CUDA, _multi_tensor_adamw (8 "
    .. "foreach ops)",
  source = "transformers TrainingArguments: optim = adamw_torch (torch.optim.AdamW, foreach on "
    .. "CUDA), max_grad_norm = 1.0; Trainer calls accelerator.clip_grad_norm_ -> "
    .. "torch.nn.utils.clip_grad_norm_ (a norm pass, then the gradients scaled in place)" }
p.sources = {
  "transformers Trainer (4.3x): --bf16/--fp16 without DeepSpeed runs the step under "
    .. "torch.autocast; optim adamw_torch is torch.optim.AdamW (foreach on CUDA)",
  "QwenLM/Qwen modeling_qwen.py QWenLMHeadModel.forward (as transformers' LlamaForCausalLM "
    .. "of the same years): lm_logits = lm_head(h); shift_logits = lm_logits[..., :-1, :]"
    .. ".contiguous(); CrossEntropyLoss()(shift_logits, shift_labels)",
  "PyTorch 2.0 docs, Automatic Mixed Precision, 'CUDA Ops that can autocast to float32': "
    .. "log_softmax, nll_loss, cross_entropy run in fp32 (the logits are upcast)",
  "torch/optim/adamw.py _multi_tensor_adamw (PyTorch 2.x): exp_avg_sq_sqrt = "
    .. "torch._foreach_sqrt(device_exp_avg_sqs), one list the size of a moment during the step",
  "Hugging Face transformers docs, 'Model training anatomy' (model_memory_anatomy.md): "
    .. "after torch.ones((1, 1)).to('cuda') nvidia-smi shows 1343 MB, 'the kernels alone'",
  "otherwise as pytorch-ddp: " .. table.concat(require("dlbench.frameworks.pytorch_ddp").sources, "; "),
}
return p
