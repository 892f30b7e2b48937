-- JAX / XLA stacks: MaxText, PaLM on Pathways (2022-24).
return {
  name = "maxtext", year = 2024,
  title = "JAX/XLA (MaxText, Pathways): XLA loop fusion of elementwise chains, fused attention "
    .. "kernels (Pallas splash/flash on TPU, cuDNN on GPU), fused optimizer update",
  attention = "xla",
  fuse = { "attention", "elementwise", "optimizer" },
  gather = { unit = "block", prefetch = "XLA latency-hiding scheduler" },
  overlap = 1, fsdp_overlap = 1, bucket_bytes = nil,
  zero = 3, slack = nil, fp8 = nil,
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
