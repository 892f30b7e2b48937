-- Megatron-LM as of 2021 (Narayanan et al., SC21): the GPT runs of the validation table.
return {
  name = "megatron-lm", year = 2021,
  title = "Megatron-LM (2021): fused softmax / bias-GeLU kernels, apex FusedAdam, no FlashAttention",
  -- scaled_masked_softmax fuses scale + mask + softmax, the s x s scores still go to memory
  attention = "unfused",
  fuse = { "elementwise", "optimizer" },
  -- data parallelism: one allreduce of the gradients after the pipeline flush, not overlapped
  -- with the backward in 2021 (overlap_grad_reduce came with Megatron-Core, 2023)
  gather = { unit = "none" }, overlap = 0, fsdp_overlap = nil, bucket_bytes = nil,
  zero = 0, slack = nil, fp8 = nil,
  -- per_layer (Python around each ParallelTransformerLayer) is 0: on the vTrain rows, where
  -- the host bounds the step, a layer's op count is the same in every model, so a per-layer
  -- and a per-op cost cannot be told apart; the per-op cost carries both (CALIBRATED 40 us
  -- under calibration = "validated", lua/dlbench/hw_calibrated.lua)
  dispatch = { per_op = 10e-6, per_layer = 0, source = "ESTIMATE (order of magnitude of eager "
    .. "PyTorch's per-op host cost; no published number for this stack): for issue [19]'s host "
    .. "model" },
  recompute = { "none", "full" },
  sources = {
    "Narayanan et al. 2021 (SC21, arXiv 2104.04473) sec. 4.2 'Computation optimizations': "
      .. "fused kernels for bias + GeLU and scale + mask + softmax; sec. 3.5 full recompute",
    "NVIDIA/Megatron-LM megatron/optimizer/__init__.py (2021): from apex.optimizers import "
      .. "FusedAdam as Adam (multi-tensor update)",
    "Korthikanti et al. 2022 (arXiv 2205.05198): selective recompute is the 2022 addition",
  },
}
