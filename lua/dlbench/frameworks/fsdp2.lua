-- PyTorch FSDP2 (fully_shard, per-parameter DTensor sharding), 2024.
return {
  name = "fsdp2", year = 2024,
  title = "PyTorch FSDP2 (fully_shard): per-module all-gather of DTensor shards, implicit "
    .. "forward prefetch, SDPA (FlashAttention-2), fused optimizer",
  attention = "flash2",
  fuse = { "attention", "elementwise", "optimizer" },
  gather = { unit = "block", prefetch = "implicit (CPU runs ahead)" },
  overlap = 1, fsdp_overlap = 1, bucket_bytes = nil,
  zero = 3, slack = nil, fp8 = nil,
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  recompute = { "none", "full", "selective" },
  sources = {
    "PyTorch docs, torch.distributed.fsdp.fully_shard (FSDP2): one all-gather per module's "
      .. "parameters, implicit prefetching",
  },
}
