-- DeepSpeed ZeRO stage 3 (Rajbhandari et al. 2020), as Megatron-DeepSpeed ran it (2021).
return {
  name = "deepspeed-zero3", year = 2021,
  title = "DeepSpeed ZeRO-3 (2021, Megatron-DeepSpeed): FusedAdam, Megatron's fused kernels, "
    .. "parameters gathered tensor by tensor",
  attention = "unfused",
  -- qkv, qkv_views: Megatron-DeepSpeed's megatron/model/transformer.py is Megatron-LM's
  -- ParallelAttention (query_key_value = ColumnParallelLinear(h, 3h), q, k, v views of its
  -- output read by baddbmm; graphs/step/fusion.c qkv)
  fuse = { "elementwise", "optimizer", "qkv", "qkv_views" },
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "fused", grad_clip = false,
    launch = "flat",
    -- offload_optimizer: DeepSpeedCPUAdam on the host (dlb.roofline.CPU_OPTIMIZERS)
    cpu = "cpu_adam",
    launch_source = "DeepSpeed ZeRO-3 steps FusedAdam on the flat fp32 partition (stage3.py "
      .. "fp32_partitioned_groups_flat): one tensor per group",
    source = "DeepSpeed FusedAdam (multi_tensor_adam: one pass over each tensor); " ..
      "gradient_clipping defaults to 0 (off); " ..
      "with offload_optimizer, DeepSpeedCPUAdam (csrc/adam/cpu_adam: one AVX pass over each " ..
      "tensor on the host, the same traffic)" },
  -- partition_parameters.py _allgather_param: the list form of all_gather, one parameter
  -- tensor at a time (a GPT block holds 12: 2 LayerNorms, 4 linear layers, weight + bias)
  gather = { unit = "tensor", tensors = 12 },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = 5e8,
  grad_buffer = { persistent = true, source = "deepspeed/runtime/zero/stage3.py "
    .. "_setup_for_real_optimizer: grad_partitions_flat_buffer = torch.zeros(sum of every "
    .. "parameter's partition_numel), allocated once" },
  zero = 3, slack = nil, fp8 = nil,
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  recompute = { "none", "full" },
  sources = {
    "Rajbhandari et al. 2020 (SC20, 'ZeRO'): stage 3 partitions optimizer states, gradients and parameters",
    "DeepSpeed config docs: reduce_bucket_size / allgather_bucket_size 5e8; Adam runs as "
      .. "deepspeed.ops.adam.FusedAdam unless torch_adam is set",
    "microsoft/DeepSpeed runtime/zero/partition_parameters.py (2021): _allgather_param, "
      .. "per-tensor list-form all_gather",
  },
}
