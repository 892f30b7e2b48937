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
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "foreach", grad_clip = false,
    launch = "foreach",
    launch_source = "torch/optim/adamw.py @ c15fcf4 _multi_tensor_adamw: 8 foreach ops per "
      .. "device / dtype group, each one multi_tensor_apply (MultiTensorApply.cuh), the step "
      .. "counters on the CPU",
    source = "PyTorch 2.x torch/optim/adamw.py: foreach=None, fused=None on CUDA tensors -> " ..
      "_default_to_fused_or_foreach picks foreach (_multi_tensor_adamw); fused only " ..
      "when asked. No clipping unless the script calls clip_grad_norm_" },
  -- overlap / fsdp_overlap stay nil (the planner's exposed communication): the stack does
  -- overlap its collectives (sources below), but the planner has no model of the compute /
  -- communication contention that overlap brings (NCCL kernels take SMs), and hiding them
  -- made the validation table's held-out error worse (median 10.3% -> 12.9%, p90 32.6% ->
  -- 41.1%, catalogue values; FSDP rows over-predicted by up to 46%): issue [21]'s to model
  -- what the stack overlaps (data for that model): gradient reduction, parameter gathers
  stack_overlap = { grad_reduce = true, param_gather = false },
  gather = { unit = "none" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = 25e6,
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
