-- PyTorch FSDP (FullyShardedDataParallel, FSDP1), as llm-foundry / Composer ran it (2023-24).
return {
  name = "fsdp", year = 2023,
  title = "PyTorch FSDP (FULL_SHARD): one flat all-gather per wrapped block, backward prefetch, "
    .. "FlashAttention-2, Composer's per-parameter AdamW loop, gradient clipping, its two "
    .. "language-model train metrics",
  attention = "flash2",
  -- no "optimizer" pass: Composer's DecoupledAdamW launches its kernels parameter by
  -- parameter (optimizer_impl below), not as multi-tensor kernels
  -- qkv: MPT's attention projects with one Wqkv linear d -> 3d (llmfoundry/models/layers/
  -- attention.py, MultiheadAttention / GroupedQueryAttention Wqkv; graphs/step/fusion.c qkv);
  -- not its views: the flash path gathers q, k, v (unpadding) in copies of their own
  fuse = { "attention", "elementwise", "qkv" },
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "loop", grad_clip = true,
    launch = "loop", kernels = 10, host_ops = 11, sync = true, views = true,
    launch_source = "composer/optim/decoupled_weight_decay.py @ 2052adc: step() runs "
      .. "state['step'] += 1 on a device tensor per parameter (1 kernel), then adamw() per "
      .. "parameter: step = state_steps[i].item() (a host sync), p.mul_, "
      .. "exp_avg.mul_().add_(), exp_avg_sq.mul_().addcmul_(), (exp_avg_sq.sqrt() / "
      .. "c).add_(eps), p.addcdiv_() (9 kernels): 10 kernels, 11 host ops, one sync per "
      .. "tensor; it skips p.grad None: Composer's FSDPConfig use_orig_params = True "
      .. "(composer/utils/parallelism.py @ 008dac7) and FSDP1's "
      .. "FlatParamHandle._use_sharded_grad_views sets .grad = None for a parameter not in "
      .. "the rank's shard (torch/distributed/fsdp/_flat_param.py), so a rank steps only its "
      .. "shard's views (views = true)",
    source = "llm-foundry's optimizer decoupled_adamw is mosaicml/composer " ..
      "composer/optim/decoupled_weight_decay.py DecoupledAdamW: its adamw() loops over " ..
      "the parameters with p.mul_, exp_avg.mul_().add_(), exp_avg_sq.mul_().addcmul_(), " ..
      "(exp_avg_sq.sqrt() / c).add_(eps), p.addcdiv_() (and a step.item() per " ..
      "parameter); llm-foundry's yamls set algorithms: gradient_clipping (clipping_type " ..
      "norm), which Composer applies through FSDP's clip_grad_norm_ (a norm pass, then " ..
      "every gradient scaled in place)" },
  -- the trainer's train metrics (frameworks.lua fuse_of "lm_metrics"; graphs/step/fusion.c
  -- lm_metrics): Composer updates each train metric after every micro-batch's backward and
  -- llm-foundry's MPT declares two, each an eager cross-entropy over the whole logits
  train_metrics = { lm_xent = true,
    source = "mosaicml/composer composer/trainer/trainer.py: _train_microbatch calls "
      .. "_eval_train_metrics after the backward of every micro-batch (torch.no_grad(), the "
      .. "precision context) for each metric of state.train_metrics = "
      .. "model.get_metrics(is_train=True); mosaicml/llm-foundry "
      .. "llmfoundry/models/mpt/modeling_mpt.py ComposerMPTCausalLM: train_metrics = "
      .. "[LanguageCrossEntropy(), LanguagePerplexity()] (use_train_metrics defaults to True; "
      .. "the loss itself is flash-attn's fused cross-entropy); composer/metrics/nlp.py "
      .. "LanguageCrossEntropy.update runs torch.nn.CrossEntropyLoss(reduction='sum') over the "
      .. "logits, LanguagePerplexity subclasses it (compute() only differs)" },
  -- one flat buffer per wrapped block (gather_tensors 0); BACKWARD_PRE prefetch hides the
  -- backward's gathers; the forward's next-block gather is issued ahead on its own stream
  -- overlap / fsdp_overlap stay nil (the planner's exposed communication): the stack does
  -- overlap its collectives (sources below). Hiding them for free made the validation table
  -- worse (commit 0b5d953: held-out median 10.3% -> 12.9%, p90 32.6% -> 41.1%); hiding them
  -- at the cost of NCCL's CTAs on the SMs (contention "nccl": lua/dlbench/contention.lua,
  -- graphs/parallel/planner_dp.c) did not meet its adoption rule either (docs/validation.md,
  -- branch overlap: the FSDP plain call's held-out median 4.6% -> 8.4%, p90 19.0% -> 35.9%).
  -- dlb.frameworks.overlapped(profile) is the profile with them hidden so (an option).
  -- What the stack overlaps (overlapped's data): gradient reduction, parameter gathers
  stack_overlap = { grad_reduce = true, param_gather = true },
  gather = { unit = "block", prefetch = "BACKWARD_PRE" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = nil,
  zero = 3, slack = nil, fp8 = nil,
  -- gradients reduce-scattered in fp32: Composer's fsdp_config mixed_precision defaults to
  -- 'DEFAULT' (param_dtype = the autocast precision, reduce_dtype = torch.float32,
  -- buffer_dtype = the precision; composer get_mixed_precision); 'PURE' reduces in the
  -- 16-bit precision (a run that states it passes reduce_dtype = "bf16")
  reduce_dtype = "fp32",
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  recompute = { "none", "full" },
  sources = {
    "Zhao et al. 2023 (VLDB, 'PyTorch FSDP'): FlatParameter per FSDP unit, one all-gather and "
      .. "one reduce-scatter per unit, backward prefetching",
    "Zhao et al. 2023 sec. 3.3-3.4: the reduce-scatter of one unit overlaps the next unit's "
      .. "backward; the eager CPU thread issues the next unit's all-gather ahead on its own "
      .. "stream (rate-limited by limit_all_gathers): stack_overlap above",
    "mosaicml/composer (2023): fsdp_config mixed_precision 'DEFAULT' = MixedPrecision("
      .. "param_dtype = precision, reduce_dtype = float32, buffer_dtype = precision); 'PURE' = "
      .. "all three the 16-bit precision (reduce_dtype fp32 by default)",
    "mosaicml/llm-foundry (2023-24): FlashAttention (attn_impl flash), fused kernels, "
      .. "activation checkpointing as the recompute offered",
  },
}
