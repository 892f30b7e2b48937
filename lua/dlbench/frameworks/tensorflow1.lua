-- TensorFlow 1.x graphs (2016-2019): the TBD rows (seeds/001).
return {
  name = "tensorflow1", year = 2018,
  title = "TensorFlow 1.x: graph executor, one kernel per op (XLA off), per-tensor optimizer ops",
  attention = "unfused",
  fuse = {},
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "fused", grad_clip = false,
    launch = "per_tensor",
    launch_source = "tf.train.AdamOptimizer: one ResourceApplyAdam op (one kernel) per "
      .. "variable",
    source = "TensorFlow 1.x tf.train.AdamOptimizer: one ResourceApplyAdam kernel per variable " ..
      "(one pass over each tensor)" },
  gather = { unit = "none" },
  overlap = nil, fsdp_overlap = nil, bucket_bytes = nil,
  zero = 0, slack = nil, fp8 = nil,
  dispatch = { per_op = 5e-6, source = "ESTIMATE (graph executor's per-op scheduling cost, order "
    .. "of magnitude): for issue [19]" },
  recompute = { "none" },
  sources = {
    "Zhu et al. 2018 (TBD, seeds/001): TensorFlow 1.x implementations, XLA not enabled",
    "Abadi et al. 2016 (OSDI, 'TensorFlow'): the dataflow executor runs each op as its own kernel",
  },
}
