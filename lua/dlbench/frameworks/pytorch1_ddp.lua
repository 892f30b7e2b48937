-- PyTorch 1.x eager + DDP (2019-2022): the DeepLearningExamples ResNet-50 rows.
return {
  name = "pytorch1-ddp", year = 2021,
  title = "PyTorch 1.x eager + DDP: every op its own kernel, torch.optim stepping tensor by tensor",
  attention = "unfused",
  fuse = {},
  gather = { unit = "none" },
  overlap = 1, fsdp_overlap = nil, bucket_bytes = 25e6,
  zero = 0, slack = nil, fp8 = nil,
  dispatch = { per_op = 10e-6, source = "ESTIMATE (eager PyTorch order of magnitude): for issue [19]" },
  recompute = { "none", "full" },
  sources = {
    "NVIDIA DeepLearningExamples PyTorch/Classification/ConvNets (NGC 21.03): torchvision-style "
      .. "ResNet-50, batch norm, ReLU and residual add as separate kernels",
    "PyTorch 1.x torch.optim.SGD: a for loop over parameters (foreach became default in 2.0)",
    "Li et al. 2020 (VLDB): DDP's bucketed, overlapped allreduce (25 MB buckets)",
  },
}
