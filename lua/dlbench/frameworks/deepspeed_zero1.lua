-- DeepSpeed ZeRO stage 1 (Rajbhandari et al. 2020), as Megatron-DeepSpeed ran it (2021).
return {
  name = "deepspeed-zero1", year = 2021,
  title = "DeepSpeed ZeRO-1 (2021, Megatron-DeepSpeed): FusedAdam, Megatron's fused kernels, "
    .. "bucketed gradient reduction",
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
    launch_source = "DeepSpeed ZeRO-1/2 steps FusedAdam on the flat fp32 partition "
      .. "(stage_1_and_2.py single_partition_of_fp32_groups): one tensor per group",
    source = "DeepSpeed deepspeed/ops/adam FusedAdam (multi_tensor_adam: one pass over each " ..
      "tensor); gradient_clipping defaults to 0 (off) in the DeepSpeed config; " ..
      "with offload_optimizer, DeepSpeedCPUAdam (csrc/adam/cpu_adam: one AVX pass over each " ..
      "tensor on the host, the same traffic)" },
  gather = { unit = "none" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = 5e8,
  grad_buffer = { persistent = false, source = "deepspeed/runtime/zero/stage_1_and_2.py: "
    .. "stage 1 (partition_gradients off) leaves each .grad as autograd makes it and reduces "
    .. "after the backward pass (reduce_gradients); not checked against a measurement" },
  zero = 1, slack = nil, fp8 = nil,
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  recompute = { "none", "full" },
  sources = {
    "Rajbhandari et al. 2020 (SC20, 'ZeRO'): stage 1 partitions optimizer states",
    "DeepSpeed config docs: reduce_bucket_size / allgather_bucket_size 5e8; Adam runs as "
      .. "deepspeed.ops.adam.FusedAdam unless torch_adam is set",

  },
}
