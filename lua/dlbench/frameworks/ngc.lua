-- The NGC containers' tuned training scripts (DeepLearningExamples, MLPerf), 2020-22.
return {
  name = "ngc", year = 2021,
  title = "NVIDIA NGC PyTorch/MXNet scripts (DeepLearningExamples, MLPerf): apex / cuDNN fused "
    .. "kernels (LayerNorm, bias-GeLU, BN + ReLU), fused LAMB/Adam, no FlashAttention",
  attention = "unfused",
  fuse = { "elementwise", "optimizer" },
  gather = { unit = "none" },
  overlap = 1, fsdp_overlap = nil, bucket_bytes = 25e6,
  zero = 0, slack = nil, fp8 = nil,
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  recompute = { "none" },
  sources = {
    "NVIDIA DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md: apex FusedLAMB, "
      .. "fused bias-GeLU and LayerNorm kernels",
    "MLPerf Training v1.0 NVIDIA submission notes: cuDNN fused BN + ReLU (MXNet), DALI",
  },
}
