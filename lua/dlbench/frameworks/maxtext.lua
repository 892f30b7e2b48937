-- JAX / XLA stacks: MaxText, PaLM on Pathways (2022-24).
return {
  name = "maxtext", year = 2024,
  title = "JAX/XLA (MaxText, Pathways): XLA loop fusion of elementwise chains, fused attention "
    .. "kernels (Pallas splash/flash on TPU, cuDNN on GPU), fused optimizer update",
  attention = "xla",
  fuse = { "attention", "elementwise", "optimizer" },
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "fused", grad_clip = false,
    launch = "none",
    launch_source = "XLA compiles the update into the step's program: no per-op dispatch "
      .. "(host_op 0); the graph's update kernels as they are (no launch model)",
    source = "MaxText optax adamw under jit: XLA fuses the update (one pass over each tensor) " ..
      "and the global-norm clipping into the step's fusions; not counted apart" },
  -- overlap / fsdp_overlap stay nil (the planner's exposed communication): the stack does
  -- overlap its collectives (sources below). Hiding them for free made the validation table
  -- worse (commit 0b5d953: held-out median 10.3% -> 12.9%, p90 32.6% -> 41.1%); hiding them
  -- at the cost of NCCL's CTAs on the SMs (contention "nccl": lua/dlbench/contention.lua,
  -- graphs/parallel/planner_dp.c) did not meet its adoption rule either (docs/validation.md,
  -- branch overlap: the FSDP plain call's held-out median 4.6% -> 8.4%, p90 19.0% -> 35.9%).
  -- dlb.frameworks.overlapped(profile) is the profile with them hidden so (an option).
  -- What the stack overlaps (overlapped's data): gradient reduction, parameter gathers
  stack_overlap = { grad_reduce = true, param_gather = true },
  gather = { unit = "block", prefetch = "XLA latency-hiding scheduler" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = nil,
  zero = 3, slack = nil,
  -- fp8 (MaxText's quantization = "fp8" on its dense layers) not read beyond the output
  -- layer, which stays 16-bit: its GEMMs at the 16-bit peak (dlbench.fp8_output)
  fp8 = { output = { quantized = false, source = "MaxText/layers/decoders.py: logits_dense is "
    .. "built without the quantisation config (\"We do not quantize the logits matmul.\")" } },
  dispatch = { per_op = 0, source = "compiled: one XLA executable per step, no per-op host "
    .. "dispatch (Frostig et al. 2018, 'Compiling machine learning programs via high-level "
    .. "tracing')" },
  recompute = { "none", "full", "selective" },
  sources = {
    "AI-Hypercomputer/maxtext (2024): remat_policy (full, minimal, save_dot_except_mlp ...), "
      .. "attention = flash / splash kernels, FSDP-style sharding over ICI",
    "Chowdhery et al. 2022 (PaLM) sec. 4: XLA on Pathways",
    "seeds/004 sec. 2: XLA fuses elementwise ops into their consumers",
  },
}
