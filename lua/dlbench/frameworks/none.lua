-- framework "none": no framework profile. The graph as built and the switches the caller
-- passes (fuse=, overlap=, gather_tensors=, slack=, ...), nothing else: exactly dlbench's
-- behaviour before profiles existed (issue [18]); the seed notebooks pin it.
return {
  name = "none", year = nil,
  title = "no profile: the algorithmic step and the caller's own switches (pre-profile behaviour)",
  attention = "unfused",
  fuse = {},
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "fused", grad_clip = false,
    launch = "none",
    launch_source = "none: no launch model (each update op one kernel, as before profiles)",
    source = "dlbench's algorithmic update: one pass over each tensor (the behaviour before " ..
      "profiles)" },
  gather = { unit = "none" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = nil, slack = nil,
  zero = nil, dispatch = nil,
  -- no fp8 recipe; the graph engine's own fp8 step quantises every GEMM, the output layer's
  -- too (dlbench.fp8_output: the pre-profile behaviour)
  fp8 = { output = { quantized = true, source = "no stack: the graph engine's own fp8 step, "
    .. "every GEMM at the step's precision" } },
  -- no stack to limit them: every policy the planner models, as the caller asks
  recompute = { "none", "full", "selective", "selective_op" },
  sources = { "dlbench itself: the unfused algorithmic graph of g:stats (docs/graph.md)" },
}
