-- NVIDIA NeMo (24.x), Megatron-Core + Transformer Engine underneath.
return {
  name = "nemo", year = 2024,
  title = "NeMo 24.x (Megatron-Core + Transformer Engine): the performance recipes' settings",
  attention = "cudnn",
  fuse = { "attention", "elementwise", "optimizer" },
  gather = { unit = "none" },
  overlap = 1, fsdp_overlap = nil, bucket_bytes = 40e6,
  zero = 1, slack = nil,
  fp8 = { recipe = "delayed scaling (Transformer Engine), fp8 linear-layer GEMMs, bf16 attention",
    source = "NeMo docs, performance_summary.md / mixed precision training: fp8 via Transformer Engine" },
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  recompute = { "none", "full", "selective" },
  sources = {
    "NVIDIA/NeMo docs/source/performance/performance_summary.md (commit 070a0bb): the measured "
      .. "rows of the validation table, Megatron-Core + Transformer Engine",
    "NeMo LLM recipes (2024): overlap_grad_reduce, overlap_param_gather, distributed optimizer on",
  },
}
