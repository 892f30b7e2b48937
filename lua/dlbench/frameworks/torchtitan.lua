-- torchtitan (2024): PyTorch-native LLM training, FSDP2 + TP + PP; the default profile of
-- transformer graphs (issue [18]: today's practice as the default).
return {
  name = "torchtitan", year = 2024,
  title = "torchtitan (PyTorch 2.4+): FSDP2, SDPA FlashAttention-2, fused AdamW, selective AC",
  attention = "flash2",
  fuse = { "attention", "elementwise", "optimizer" },
  gather = { unit = "block", prefetch = "implicit (CPU runs ahead)" },
  overlap = 1, fsdp_overlap = 1, bucket_bytes = nil,
  zero = 3, slack = nil,
  fp8 = { recipe = "float8 linear layers (torchao, tensorwise dynamic scaling)",
    source = "pytorch/torchtitan docs/float8.md" },
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude; torch.compile "
    .. "optional): for issue [19]" },
  recompute = { "none", "full", "selective" },
  sources = {
    "Liang et al. 2024 (arXiv 2410.06511, 'TorchTitan'): FSDP2, TP, PP, float8, selective and "
      .. "full activation checkpointing, fused AdamW",
    "pytorch/torchtitan docs/performance.md (commit 0413364): the validation rows",
  },
}
