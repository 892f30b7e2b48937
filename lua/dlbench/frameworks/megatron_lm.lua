-- Megatron-LM as of 2021 (Narayanan et al., SC21): the GPT runs of the validation table.
return {
  name = "megatron-lm", year = 2021,
  title = "Megatron-LM (2021): fused softmax / bias-GeLU kernels, apex FusedAdam, no FlashAttention",
  -- scaled_masked_softmax fuses scale + mask + softmax, the s x s scores still go to memory
  attention = "unfused",
  -- xent_fp32: the loss is megatron/mpu/cross_entropy.py's vocab-parallel cross-entropy over
  -- output.float() (--fp16-lm-cross-entropy off by default; graphs/step/fusion.c xent_fp32)
  -- qkv, qkv_views: one ColumnParallelLinear(h, 3h) (megatron/model/transformer.py
  -- ParallelAttention.query_key_value; vTrain src/model/gpt_modeling.py
  -- ShardedGptSelfAttention.query_key_value, F.linear -> addmm with the bias), q, k, v strided
  -- views of its output read by baddbmm / bmm (split_tensor_along_last_dim; fusion.c qkv)
  -- softmax_causal: a causal decoder's softmax is ScaledUpperTriangMaskedSoftmax
  -- (megatron/fused_kernels/scaled_upper_triang_masked_softmax.h: row r loads its first r + 1
  -- scores, and in the backward its first r + 1 gradients and probabilities), and the
  -- attention dropout is torch.nn.Dropout, its backward a kernel of its own
  -- (megatron/model/transformer.py ParallelAttention.attention_dropout; fusion.c causal_softmax)
  -- grad_accum: local DDP's param_hook, main_grad.add_(param.grad) for every parameter after
  -- every micro-batch's backward (megatron/model/distributed.py; gradient accumulation fusion
  -- is off for fp16: megatron/arguments.py sets it False without
  -- --accumulate-allreduce-grads-in-fp32; graphs/step/fusion_grad.c)
  fuse = { "elementwise", "optimizer", "xent_fp32", "qkv", "qkv_views", "softmax_causal",
    "grad_accum" },
  -- the optimizer step as the stack runs it (frameworks.lua OPTIMIZER_IMPLS; fusion.c)
  optimizer_impl = { kind = "fused", grad_clip = false,
    launch = "apex",
    launch_source = "apex FusedAdam.step: one multi_tensor_applier(amp_C.multi_tensor_adam, "
      .. "[g, p, m, v]) call per dtype group (apex/optimizers/fused_adam.py; "
      .. "csrc/multi_tensor_apply.cuh @ 87c4deb)",
    source = "NVIDIA/Megatron-LM megatron/optimizer/__init__.py (2021): " ..
      "apex.optimizers.FusedAdam (amp_C.multi_tensor_adam: one pass over each tensor). " ..
      "Megatron's clip_grad_norm_fp32 reads the gradients once (multi_tensor_l2norm) " ..
      "and scales them only when the norm exceeds clip_grad: not counted (grad_clip " ..
      "counts the unconditional norm + scale of torch.nn.utils.clip_grad_norm_)" },
  -- data parallelism: one allreduce of the gradients after the pipeline flush, not overlapped
  -- with the backward in 2021 (overlap_grad_reduce came with Megatron-Core, 2023)
  gather = { unit = "none" }, overlap = 0, fsdp_overlap = nil, bucket_bytes = nil,
  -- every gradient in one buffer allocated at start-up: the framework schedule holds them all
  -- at every moment of the step (graph_analysis: no backward walk)
  grad_buffer = { persistent = true, source = "megatron/model/distributed.py "
    .. "DistributedDataParallel: --use-contiguous-buffers-in-local-ddp (default on) allocates "
    .. "MemoryBuffer main_grad for every parameter once; zero_grad_buffer zeroes it, never frees" },
  zero = 0, slack = nil, fp8 = nil,
  -- what the stack allocates beyond the graph's tensors (lua/dlbench/framework_memory.lua;
  -- issue [19] memory audit, docs/validation.md): the CUDA context with PyTorch's kernels,
  -- and the fp16 step's fp32 copy of the gradients (Float16OptimizerWithFloat16Params:
  -- main_param.grad = main_grad.float(), the 16-bit grad buffer being the fp16 default), 4 B
  -- per trainable parameter while the step runs, after the activations are freed
  -- and the loss's tensors (issue [19] memory, second round): the 16-bit logits and their
  -- fp32 copy, in which megatron/mpu/cross_entropy.py computes and saves the softmax and then
  -- the gradient in place, cast back to 16 bits by .float()'s backward: 6 B per logit at
  -- each moment against the fused graph loss's 4 (framework_memory loss.vocab_parallel)
  memory = { context = require("dlbench.framework_memory").PYTORCH_CONTEXT, fp32_grad_copy = true,
    loss = { vocab_parallel = true } },
  -- per_layer (Python around each ParallelTransformerLayer) is 0: on the vTrain rows, where
  -- the host bounds the step, a layer's op count is the same in every model, so a per-layer
  -- and a per-op cost cannot be told apart; the per-op cost carries both (CALIBRATED 40 us
  -- under calibration = "validated", lua/dlbench/hw_calibrated.lua)
  dispatch = { per_op = 10e-6, per_layer = 0, source = "ESTIMATE (order of magnitude of eager "
    .. "PyTorch's per-op host cost; no published number for this stack): for issue [19]'s host "
    .. "model" },
  -- Korthikanti et al. 2022's selective recompute (the attention core) and sequence
  -- parallelism came to this stack in 2022 (--recompute-activations, --sequence-parallel):
  -- the validation table's Korthikanti rows run it
  recompute = { "none", "full", "selective" },
  selective = "attention core",
  -- FusedScaleMaskSoftmax takes its fused kernel only when 16 < s <= 2048, s % 4 == 0 and the
  -- attention batches (micro-batch x heads / tp) divide by 4; else the eager path (fp32 copy,
  -- scale, masked_fill_, softmax, cast back: 5 kernels each way). The sequence range here;
  -- the batch rule where the planner knows the layout (graphs/parallel/planner_ops.c
  -- softmax_kernels; dlbench.parallel_layer_ops softmax_ops)
  softmax_fallback = { seq_min = 16, seq_max = 2048, seq_multiple = 4,
    source = "VIA-Research/vTrain f8dda84 src/model/fused_softmax.py FusedScaleMaskSoftmax.forward "
      .. "(custom_kernel_constraint: key_seq_len > 16 and key_seq_len <= 2048 and "
      .. "query_seq_len % 4 == 0 and attn_batch_size % 4 == 0, else the torch softmax in fp32); "
      .. "NVIDIA/Megatron-LM 2021-22 megatron/model/fused_softmax.py is_kernel_available" },
  -- pipeline sends with the scatter/gather optimisation, on by default
  -- (--no-scatter-gather-tensors-in-pipeline turns it off): each tensor rank sends 1/t of
  -- the activation, the receiver all-gathers it over NVLink (Narayanan et al. 2021 sec. 4.1;
  -- megatron/p2p_communication.py, split_tensor_into_1d_equal_chunks / gather_split_1d_tensor)
  pp_scatter = true,
  -- the backward of a column-parallel linear (QKV, FC1) all-reduces its input gradient with
  -- async_op=True and runs its weight-gradient GEMM while it is in flight, handle.wait()
  -- after (--async-tensor-model-parallel-allreduce, on by default since late 2021 with
  -- tp > 1, CUDA_DEVICE_MAX_CONNECTIONS=1; under --sequence-parallel its reduce-scatter
  -- likewise): the planner's tp_async (docs/parallel.md, docs/validation.md). This one
  -- field is the early-2022 code's (02bb1f5c, below), not the 2021 code's (aed2f75, a
  -- synchronous all-reduce): the profile's Korthikanti rows ran the 2022 code, and vTrain does
  -- not state its version; a 2021 run is dlb.frameworks.derive("megatron-lm", {tp_async = false})
  -- With sequence parallelism the same linear all-gathers its input again beside its dX GEMM
  -- (it saved only the local shard); tp_async times that too (planner_tp.c, branch sp-backward-ag)
  tp_async = true,
  -- every micro-batch's forward and backward timed by timers whose start() and stop() call
  -- torch.cuda.synchronize() (megatron/global_vars.py _Timer, megatron/schedules.py
  -- forward_step 'forward-compute', backward_step 'backward-compute'; Megatron-LM 2021 to
  -- mid-2022: megatron/timers.py's --timing-log-level, Sep 2022, made them no-ops by
  -- default): the device waits for the host's first op of each phase (the planner's
  -- phase_sync, docs/parallel.md)
  sync = "phase",
  sources = {
    "NVIDIA/Megatron-LM megatron/mpu/layers.py at 02bb1f5c (early 2022): "
      .. "ColumnParallelLinearWithAsyncAllreduce.backward: grad_input = "
      .. "grad_output.matmul(weight); handle = all_reduce(grad_input, async_op=True); "
      .. "grad_weight = grad_output.t().matmul(input); handle.wait(); "
      .. "ColumnParallelLinearWithSequenceParallelism: the reduce-scatter of grad_input "
      .. "likewise; megatron/arguments.py: --no-async-tensor-model-parallel-allreduce (on by "
      .. "default), off under sequence parallelism (which overlaps its own), "
      .. "CUDA_DEVICE_MAX_CONNECTIONS=1",
    "Narayanan et al. 2021 (SC21, arXiv 2104.04473) sec. 4.2 'Computation optimizations': "
      .. "fused kernels for bias + GeLU and scale + mask + softmax; sec. 3.5 full recompute",
    "NVIDIA/Megatron-LM megatron/optimizer/__init__.py (2021): from apex.optimizers import "
      .. "FusedAdam as Adam (multi-tensor update)",
    "Korthikanti et al. 2022 (arXiv 2205.05198) sec. 5: selective recompute (the attention "
      .. "core), the 2022 addition; sec. 4.2.2 sequence parallelism",
    "Narayanan et al. 2021 sec. 4.1 'scatter/gather communication optimization'; "
      .. "NVIDIA/Megatron-LM megatron/p2p_communication.py (2021-22)",
    "NVIDIA/Megatron-LM megatron/optimizer/optimizer.py (2021-22) "
      .. "Float16OptimizerWithFloat16Params._copy_model_grads_to_main_grads: main_param.grad = "
      .. "model_param.main_grad.float(); megatron/arguments.py: --accumulate-allreduce-grads-"
      .. "in-fp32 off by default for fp16 (forced on for bf16), the grad buffer in params_dtype "
      .. "(megatron/model/distributed.py _get_buffer_type); the CUDA context as every PyTorch "
      .. "stack's (framework_memory.PYTORCH_CONTEXT)",
    "NVIDIA/Megatron-LM at commit 00ac56ab: megatron/global_vars.py _Timer.start/stop call "
      .. "torch.cuda.synchronize(); megatron/schedules.py forward_step / backward_step time "
      .. "'forward-compute' / 'backward-compute' per micro-batch (sync = \"phase\")",
  },
}
