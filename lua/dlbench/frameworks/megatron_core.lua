-- Megatron-Core with Transformer Engine (2023-24).
return {
  name = "megatron-core", year = 2024,
  title = "Megatron-Core + Transformer Engine: fused attention (cuDNN / FlashAttention), fused "
    .. "LayerNorm-Linear, fused Adam, distributed optimizer, overlapped grad reduce",
  attention = "cudnn",
  fuse = { "attention", "elementwise", "optimizer" },
  gather = { unit = "none" },
  overlap = 1, fsdp_overlap = nil, bucket_bytes = 40e6,
  zero = 1, slack = nil,
  fp8 = { recipe = "delayed scaling (te.recipe.DelayedScaling: per-tensor scales from an amax "
    .. "history); fp8 GEMMs in the linear layers, attention in bf16",
    source = "NVIDIA Transformer Engine docs, 'Using FP8 with Transformer Engine'" },
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude; CUDA graphs "
    .. "optional): for issue [19]'s host model" },
  recompute = { "none", "full", "selective" },
  sources = {
    "NVIDIA Megatron-Core docs (megatron.core.transformer, TransformerConfig): "
      .. "apply_rope_fusion, bias_activation_fusion, masked_softmax_fusion; attention through "
      .. "Transformer Engine's DotProductAttention (cuDNN FusedAttention or flash-attn backends)",
    "Megatron-Core DistributedDataParallelConfig: overlap_grad_reduce, bucket_size (40M "
      .. "elements default); use_distributed_optimizer shards optimizer state (ZeRO-1)",
    "Korthikanti et al. 2022: selective activation recompute (recompute_granularity)",
  },
}
