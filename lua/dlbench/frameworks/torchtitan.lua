-- torchtitan (2024): PyTorch-native LLM training, FSDP2 + TP + PP; the default profile of
-- transformer graphs (issue [18]: today's practice as the default).
return {
  name = "torchtitan", year = 2024,
  title = "torchtitan (PyTorch 2.4+): FSDP2, SDPA FlashAttention-2, fused AdamW, selective AC",
  attention = "flash2",
  fuse = { "attention", "elementwise", "optimizer" },
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "fused", grad_clip = true,
    launch = "torch_fused",
    launch_source = "optimizer.implementation = \"fused\": torch._fused_adamw_ after the device "
      .. "step counters' _foreach_add_ (adamw.py @ c15fcf4)",
    source = "torchtitan JobConfig optimizer.implementation = \"fused\" (torch.optim.AdamW " ..
      "fused=True: one pass over each tensor); training.max_norm = 1.0: " ..
      "torch.nn.utils.clip_grad_norm_ (a norm pass, then the gradients scaled in place)" },
  -- overlap / fsdp_overlap stay nil (the planner's exposed communication): the stack does
  -- overlap its collectives (sources below). Hiding them for free made the validation table
  -- worse (commit 0b5d953: held-out median 10.3% -> 12.9%, p90 32.6% -> 41.1%); hiding them
  -- at the cost of NCCL's CTAs on the SMs (contention "nccl": lua/dlbench/contention.lua,
  -- graphs/parallel/planner_dp.c) did not meet its adoption rule either (docs/validation.md,
  -- branch overlap: the FSDP plain call's held-out median 4.6% -> 8.4%, p90 19.0% -> 35.9%).
  -- dlb.frameworks.overlapped(profile) is the profile with them hidden so (an option).
  -- What the stack overlaps (overlapped's data): gradient reduction, parameter gathers
  stack_overlap = { grad_reduce = true, param_gather = true },
  gather = { unit = "block", prefetch = "implicit (CPU runs ahead)" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = nil,
  zero = 3, slack = nil,
  -- gradients reduce-scattered in fp32 (MixedPrecisionPolicy reduce_dtype): torchtitan's
  -- training.mixed_precision_reduce defaults to "float32" (torchtitan config_manager.py /
  -- config/job_config.py; parallelize_llama.py passes it to fully_shard's mp_policy)
  reduce_dtype = "fp32",
  fp8 = { recipe = "float8 linear layers (torchao, tensorwise dynamic scaling)",
    -- the output layer stays bf16: its GEMMs at the 16-bit peak (dlbench.fp8_output)
    output = { quantized = false, source = "torchtitan/float8.py (2024-25): "
      .. "convert_to_float8_training(model, ..., module_filter_fn=lambda mod, fqn: fqn != "
      .. "\"output\"); later releases (torchtitan/components/quantization/float8.py) take "
      .. "filter_fqns from the job config, the float8 configs and docs listing \"output\"" },
    source = "pytorch/torchtitan docs/float8.md" },
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude; torch.compile "
    .. "optional): for issue [19]" },
  -- "selective" with selective_ac_option "op" is the planner's "selective_op"
  -- (torchtitan/parallelisms/parallelize_llama.py, _apply_ac_to_transformer_block); the
  -- layer option ("2": every other block) is recompute = "full", recompute_every = k
  recompute = { "none", "full", "selective", "selective_op" },
  sources = {
    "Liang et al. 2024 (arXiv 2410.06511, 'TorchTitan'): FSDP2, TP, PP, float8, selective and "
      .. "full activation checkpointing, fused AdamW",
    "pytorch/torchtitan docs/performance.md (commit 0413364): the validation rows",
    "pytorch/torchtitan job config: training.mixed_precision_param = bfloat16, "
      .. "training.mixed_precision_reduce = float32 (reduce_dtype)",
  },
}
