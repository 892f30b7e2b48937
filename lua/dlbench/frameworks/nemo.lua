-- NVIDIA NeMo (24.x), Megatron-Core + Transformer Engine underneath.
return {
  name = "nemo", year = 2024,
  title = "NeMo 24.x (Megatron-Core + Transformer Engine): the performance recipes' settings",
  attention = "cudnn",
  fuse = { "attention", "elementwise", "optimizer" },
  -- overlap / fsdp_overlap stay nil (the planner's exposed communication): the stack does
  -- overlap its collectives (sources below), but the planner has no model of the compute /
  -- communication contention that overlap brings (NCCL kernels take SMs), and hiding them
  -- made the validation table's held-out error worse (median 10.3% -> 12.9%, p90 32.6% ->
  -- 41.1%, catalogue values; FSDP rows over-predicted by up to 46%): issue [21]'s to model
  -- what the stack overlaps (data for that model): gradient reduction, parameter gathers
  stack_overlap = { grad_reduce = true, param_gather = true },
  gather = { unit = "none" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = 40e6,
  zero = 1, slack = nil,
  fp8 = { recipe = "delayed scaling (Transformer Engine), fp8 linear-layer GEMMs, bf16 attention",
    source = "NeMo docs, performance_summary.md / mixed precision training: fp8 via Transformer Engine" },
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  -- MoE layers as Megatron-Core runs them (the planner's moe_impl "mcore", docs/parallel.md):
  -- the alltoall token dispatcher (megatron/core/transformer/moe/token_dispatcher.py:
  -- "Permutation 2: Sort tokens by local expert" when num_local_experts > 1, and dropless a
  -- cuda_sync_point, "before_ep_alltoall" or "before_finish", where the host waits for
  -- tokens_per_expert) and TEGroupedMLP (experts.py; moe_grouped_gemm, as the Qwen3 MoE
  -- recipes of Megatron-Bridge set it): Transformer Engine's GroupedLinear, one cuBLAS GEMM
  -- per local expert on 4 streams (transformer_engine/common/gemm/cublaslt_gemm.cu)
  moe = "mcore",
  recompute = { "none", "full", "selective" },
  -- recompute_granularity "selective": Korthikanti et al. 2022's attention core (the default
  -- recompute_modules, core_attn). No pp_scatter: Megatron-Core's pipeline_parallel/
  -- p2p_communication.py sends the whole tensor (1/tp of the sequence under sequence
  -- parallelism, which the planner's seq_par divides)
  selective = "attention core",
  -- sequence parallelism with tensor parallelism: NeMo's configurations turn it on
  -- (NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/gpt3/175b.yaml
  -- "sequence_parallel: True"; the NeMo 2.0 pretrain recipes, nemo/collections/llm/recipes,
  -- "sequence_parallelism: bool = True"); the planner's seq_par unless the caller says
  seq_par = true,
  sources = {
    "NVIDIA/NeMo docs/source/performance/performance_summary.md (commit 070a0bb): the measured "
      .. "rows of the validation table, Megatron-Core + Transformer Engine",
    "NeMo LLM recipes (2024): overlap_grad_reduce, overlap_param_gather, distributed optimizer on",
  },
}
