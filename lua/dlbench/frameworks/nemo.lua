-- NVIDIA NeMo (24.x), Megatron-Core + Transformer Engine underneath.
return {
  name = "nemo", year = 2024,
  title = "NeMo 24.x (Megatron-Core + Transformer Engine): the performance recipes' settings",
  attention = "cudnn",
  -- the RMSNorm of a Transformer Engine layer (dlbench.frameworks check_flagged)
  norm = { upcast = false,
    source = "Transformer Engine transformer_engine/pytorch/module/rmsnorm.py _RMSNorm.forward: "
      .. "tex.rmsnorm_fwd, ctx.save_for_backward(inputmat, rmsnorm_weight, rsigma): one fused "
      .. "kernel keeping its input and rsigma, as dlbench's rmsnorm op counts (no fp32 copy)" },
  -- qkv: SelfAttention.linear_qkv, one linear h -> (heads + 2 kv_heads) head_dim
  -- (megatron/core/transformer/attention.py; graphs/step/fusion.c qkv); whether q, k, v reach
  -- the fused attention as views or copies was not audited (no qkv_views)
  fuse = { "attention", "elementwise", "optimizer", "qkv" },
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "fused", grad_clip = false,
    launch = "apex",
    launch_source = "Megatron-Core's distributed optimizer with TE / apex FusedAdam: one "
      .. "multi_tensor_adam call (depth 4) over the rank's shards",
    source = "NeMo on Megatron-Core: its distributed FusedAdam (one pass over each tensor). " ..
      "Megatron's clip_grad_norm_fp32 reads the gradients once (multi_tensor_l2norm) " ..
      "and scales them only when the norm exceeds clip_grad: not counted (grad_clip " ..
      "counts the unconditional norm + scale of torch.nn.utils.clip_grad_norm_)" },
  -- overlap / fsdp_overlap stay nil (the planner's exposed communication): the stack does
  -- overlap its collectives (sources below). Hiding them for free made the validation table
  -- worse (commit 0b5d953: held-out median 10.3% -> 12.9%, p90 32.6% -> 41.1%); hiding them
  -- at the cost of NCCL's CTAs on the SMs (contention "nccl": lua/dlbench/contention.lua,
  -- graphs/parallel/planner_dp.c) did not meet its adoption rule either (docs/validation.md,
  -- branch overlap: the FSDP plain call's held-out median 4.6% -> 8.4%, p90 19.0% -> 35.9%).
  -- dlb.frameworks.overlapped(profile) is the profile with them hidden so (an option).
  -- What the stack overlaps (overlapped's data): gradient reduction, parameter gathers
  stack_overlap = { grad_reduce = true, param_gather = true },
  gather = { unit = "none" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = 40e6,
  grad_buffer = { persistent = true, source = "NeMo 2 trains through Megatron-Core's "
    .. "DistributedDataParallel: megatron/core/distributed/param_and_grad_buffer.py "
    .. "_ParamAndGradBuffer.grad_data, every gradient in one buffer allocated once" },
  zero = 1, slack = nil,
  -- scaling / weight_cast: Transformer Engine's quantisation kernels as planner ops
  -- (dlbench.te_fp8): NeMo 24.x's default recipe is delayed scaling (its fp8 recipes'
  -- fp8_recipe "delayed"), on Megatron-Core's TE wrappers (weights cast once a step). The
  -- Megatron-Bridge rows' FP8-CS / FP8-MX are other recipes: a derived profile each
  fp8 = { recipe = "delayed scaling (Transformer Engine), fp8 linear-layer GEMMs, bf16 attention",
    scaling = "delayed", weight_cast = "step",
    -- the output layer stays bf16: its GEMMs at the 16-bit peak (dlbench.fp8_output)
    output = { quantized = false, source = "NeMo 2 builds Megatron-Core's GPTModel, whose "
      .. "output_layer is a tensor_parallel.ColumnParallelLinear (megatron/core/models/gpt/"
      .. "gpt_model.py), not a Transformer Engine module: bf16 under TE's fp8 autocast" },
    source = "NeMo docs, performance_summary.md / mixed precision training: fp8 via Transformer Engine" },
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  -- No `moe` field: the planner's moe_impl "mcore" (Megatron-Core's MoE layer op by op:
  -- Transformer Engine's per-expert cuBLAS GEMMs on 4 streams, the alltoall dispatcher's
  -- second permutation, the dropless host sync; docs/parallel.md) is opt-in. As these
  -- profiles' default it moved the held-out MoE / CP validation median from 18.0% to
  -- 20.3% (docs/validation.md, third round), and newer Transformer Engine releases run
  -- grouped GEMMs as one CUTLASS kernel, which it does not represent.
  recompute = { "none", "full", "selective" },
  -- recompute_granularity "selective": Korthikanti et al. 2022's attention core (the default
  -- recompute_modules, core_attn; the planner's recompute_modules names the others: layernorm,
  -- mlp, moe, moe_act, docs/parallel.md). No pp_scatter: Megatron-Core's pipeline_parallel/
  -- p2p_communication.py sends the whole tensor (1/tp of the sequence under sequence
  -- parallelism, which the planner's seq_par divides)
  selective = "attention core",
  -- the column-parallel linear's input-gradient all-reduce (reduce-scatter under sequence
  -- parallelism) beside its weight-gradient GEMM: Megatron-Core's tensor_parallel/layers.py
  -- LinearWithGradAccumulationAndAsyncCommunication and Transformer Engine's Linear /
  -- LayerNormLinear backward ("Overlap dgrad-RS/AR with wgrad": async_op=True, then the wgrad
  -- GEMM); the planner's tp_async. TE's userbuffers (tp_comm_overlap) are another mechanism,
  -- off by default and not modelled
  -- With sequence parallelism the same linear all-gathers its input again beside its dX GEMM
  -- (it saved only the local shard); tp_async times that too (planner_tp.c, branch sp-backward-ag)
  tp_async = true,
  -- sequence parallelism with tensor parallelism: NeMo's configurations turn it on
  -- (NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/gpt3/175b.yaml
  -- "sequence_parallel: True"; the NeMo 2.0 pretrain recipes, nemo/collections/llm/recipes,
  -- "sequence_parallelism: bool = True"); the planner's seq_par unless the caller says
  seq_par = true,
  sources = {
    "Megatron-Core ModelParallelConfig.__post_init__: async_tensor_model_parallel_allreduce "
      .. "off under sequence parallelism ('sequence_parallelism already does this async'); "
      .. "Transformer Engine transformer_engine/pytorch/module/linear.py _Linear.backward: "
      .. "'Overlap dgrad-RS/AR with wgrad' (column parallel: reduce_scatter or allreduce of "
      .. "dgrad with async_op=True, then the wgrad GEMM): tp_async",
    "NVIDIA/NeMo docs/source/performance/performance_summary.md (commit 070a0bb): the measured "
      .. "rows of the validation table, Megatron-Core + Transformer Engine",
    "NeMo LLM recipes (2024): overlap_grad_reduce, overlap_param_gather, distributed optimizer on",
  },
}
