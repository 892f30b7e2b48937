-- PyTorch 2.x eager with DistributedDataParallel: the default profile of CNNs, RNNs and
-- other non-transformer graphs (issue [18]).
return {
  name = "pytorch-ddp", year = 2024,
  title = "PyTorch 2.x eager + DDP: cuDNN/cuBLAS kernels one op at a time, foreach optimizer, "
    .. "SDPA (FlashAttention-2) in transformer code, bucketed overlapped allreduce",
  attention = "flash2",
  -- by model family: only code that calls scaled_dot_product_attention gets the fused
  -- attention kernel (the zoo's transformers); hand-written attention (the RNN models' Luong
  -- attention) and BN + ReLU stay separate kernels in eager mode
  fuse = { transformer = { "attention", "optimizer" }, other = { "optimizer" } },
  gather = { unit = "none" },
  overlap = 1, fsdp_overlap = nil, bucket_bytes = 25e6,
  zero = 0, slack = nil, fp8 = nil,
  dispatch = { per_op = 10e-6, source = "ESTIMATE: eager PyTorch's per-op host cost is of the "
    .. "order of 10 us (Python + dispatcher + launch); for issue [19]'s host model" },
  recompute = { "none", "full" },
  sources = {
    "Li et al. 2020 (VLDB, 'PyTorch Distributed'): DDP buckets gradients (bucket_cap_mb = 25) "
      .. "and overlaps their allreduce with the backward",
    "PyTorch 2.0 docs, torch.optim: the foreach (multi-tensor) implementation is the default on "
      .. "CUDA",
    "PyTorch 2.2 release notes: scaled_dot_product_attention uses FlashAttention-2",
  },
}
