-- notebooks/data/validation_notes.lua — what the model lacks for the validation table's
-- worst held-out rows, the text notebooks/validation.lua prints beside them: a list of
-- {Lua pattern on the row id, note, uses = {setting = value, ...}}: the first entry whose
-- pattern matches and whose `uses` are all settings the row ran with wins (so the more
-- specific first). `uses` names every setting the note's text speaks of (the keys of
-- notebooks/lib/validation_rows.lua's settings: attention (the kernel family), precision,
-- profile, hw, zero, moe, moe_dispatcher, moe_a2a_overlap, planned), so a row whose
-- profile runs another kernel, dispatcher or precision falls through to a note that fits
-- it (tests/lua/test_validation_rows.lua checks the text against `uses`; issue [21]/[18],
-- branch zero-default: the catch-all "h100" note named FlashAttention-2 on rows whose
-- profile runs cuDNN's kernel). Text only: nothing here changes a prediction
-- (docs/validation.md explains each).
return {
  -- issue [21]'s rows first (their ids also hold "h100" and "fp8")
  { "25%.11%-qwen3%-30b", "fine-grained MoE (128 experts of width 768, top-8): a fixed cost per MoE "
    .. "layer and micro-batch is missing (the source's own B200 MBS 1 vs GB200 MBS 4 rows imply "
    .. "~7 ms per layer, fwd + bwd); the recipe's Megatron-Core layer (the row's moe mcore: "
    .. "per-expert GEMMs, second permutation, router aux loss, token counts, dropless host "
    .. "sync) and Transformer Engine's per-expert fp8 quantisation are counted: 3.4 ms predicted of 9.2 ms (B200); "
    .. "the B200 row's stated full-iteration CUDA graph is not (it cannot hold the dropless "
    .. "host sync), and a host cost of ~80 us per op would fit it but not the H100 row "
    .. "(docs/validation.md, issue [21], branch finegrained)", uses = { moe = "mcore", precision = "fp8" } },
  { "25%.11%-qwen3%-235b%-a22b", "fine-grained MoE (128 experts of width 1536, top-8): as Qwen3-30B-A3B, "
    .. "a per-layer cost beyond the recipe's Megatron-Core MoE layer (moe mcore) is missing",
    uses = { moe = "mcore" } },
  -- the later containers' presets (issue 27, branch moe-bulk; validation_runs_moe.lua RECIPES_26)
  { "26%.%d.*qwen3%-235b%-a22b%-s4096%-256xh100", "the preset's moe_a2a_overlap (Megatron-Core's "
    .. "combined 1F1B) is modelled as the code schedules it, the SMs NCCL's all-to-all holds "
    .. "taken from the computation beside it (branch moe-a2a-overlap), and still hides more "
    .. "than measured: the ModelZoo's pair of rows on this layout (EP 32, 19.7 s without, 17.6 s "
    .. "with the overlap) hides 2.1 s of the 6.0 s of all-to-all the model counts; the model "
    .. "hides 4.8 s (5.7 s before the SMs were charged); without the overlap the row is 20-25% "
    .. "too slow (docs/validation.md, branches moe-bulk, moe-a2a-overlap). The recipe's pipeline split by count (the embedding and "
    .. "the loss one layer each: the output layer shares the last chunk with two blocks) is "
    .. "modelled (branch qwen235)", uses = { moe_a2a_overlap = true } },
  { "26%.0[46].*qwen3%-30b%-a3b%-s4096%-16xh100", "the preset's Hybrid-EP dispatcher at its "
    .. "published H100 rates (2 nodes); fine-grained MoE's per-layer cost as the 25.11 rows'",
    uses = { moe_dispatcher = "hybridep", hw = "H100-SXM" } },
  { "26%.02%-qwen3%-30b", "fine-grained MoE at MBS 1, as the 25.11 rows (their note); the "
    .. "26.02.01 container's H100 row of the same layout runs 1.77x faster (9,058 against 5,113 "
    .. "tokens/s/GPU), its B200 row at MBS 4 2.75x: the software changed; no read preset has "
    .. "this container's layouts" },
  { "26%.%d.*qwen3%-235b%-a22b%-s4096%-256xb200", "fine-grained MoE (128 experts of width 1536, "
    .. "top-8) on B200, as the 25.11 64 x B200 row: a per-layer cost is missing (a step of 23.1 s "
    .. "predicted with catalogue values, 19.0 s of it compute, against 34.7 s measured; the "
    .. "recipe's pipeline split by count is modelled, branch qwen235)" },
  -- NeMo 25.02's DGX-B200 table (issue 27): what the model lacks, from the rows' own data
  { "nemo%-25%.02", "B200 fp8: no B200 calibration row (its fp8 flops_eff is pooled from the "
    .. "H100 rows); the same layouts run faster on later containers (Llama 3 8B on 8 B200: "
    .. "26,006 tokens/s in 25.02, 29,994 in 25.09, 30,624 in 25.11), while one nemo profile "
    .. "stands for every release", uses = { hw = "B200", precision = "fp8" } },
  { "modelzoo.*%-s[1-9]%d%d%d%d", "long context: ETP 1 (the model config's), DeepEP, and the "
    .. "stated recompute of layernorm and moe (recompute_modules) are modelled; cuDNN attention "
    .. "at 0.54 on 0.5 / 0.91 of its FLOPs (the masked blocks skipped, at the FA3 paper's causal "
    .. "rate); predicted fast, more so as cp grows (+11% at cp 1 to +23% at cp 8): attention's "
    .. "share grows with cp; Transformer Engine's per-step ring kernels are not modelled",
    uses = { moe_dispatcher = "deepep", attention = "cudnn" } },
  { "modelzoo.*fsdp", "Megatron-FSDP's own gather schedule with ETP 1 not modelled (ZeRO-3 "
    .. "gathers per micro-batch)", uses = { zero = 3 } },
  { "modelzoo", "DeepEP dispatcher modelled (moe_dispatcher deepep); within a node it times "
    .. "as the all-to-all did, so what the model misses on this row is not the dispatcher; "
    .. "with ETP 1 neither dispatcher moves anything over the tensor ranks (Megatron-Core's "
    .. "token_dispatcher.py, read in issue 27, branch tp-ep: the MoE side's tensor-parallel "
    .. "pair, counted before, is gone, which made this row faster still); the experts' GEMM "
    .. "shape under ETP 1 moves its compute by 0.3%; DeepEP's small kernels and the host are "
    .. "not counted", uses = { moe_dispatcher = "deepep" } },
  { "llama3%-405b%-s131072", "long context: Meta's attention kernel is not published (the "
    .. "torchtitan profile's FA2, 0.34, on all its FLOPs); the interleaved schedule's virtual "
    .. "stages are not published (2 assumed)", uses = { profile = "torchtitan", attention = "flash2" } },
  { "zero3", "DeepSpeed ZeRO-3 (2021): collectives at the CALIBRATED share of the links' "
    .. "bandwidth; what grows with the GPU count beyond it (per-tensor gathers, prefetch depth) "
    .. "is not modelled", uses = { profile = "deepspeed-zero3" } },
  { "mtnlg", "DeepSpeed pipeline, micro-batch and schedule not published (1, 1F1B assumed); "
    .. "runs ~30% slower than Megatron-LM's own 530B rows on the same layout",
    uses = { profile = "deepspeed-zero1" } },
  { "resnet50%-tf32", "the source's TF32 command runs NCHW (only AMP passes --memory-format "
    .. "nhwc): cuDNN's layout transposes around tensor-core convolutions not modelled",
    uses = { precision = "tf32" } },
  { "fp32", "fp32 on CUDA cores: no calibration rows, catalogue flops_eff; cuDNN's algorithm "
    .. "choice (e.g. Winograd) not modelled", uses = { precision = "fp32" } },
  { "resnet50%-amp%-8x", "input pipeline not modelled (the 1-GPU row is 19% faster per GPU)" },
  { "fp8", "fp8 rows: attention and the output layer's GEMMs in bf16 (dlbench.fp8_output) and "
    .. "Transformer Engine's quantisation kernels of the row's recipe (dlbench.te_fp8) are "
    .. "modelled; the delayed recipe's amax/scale updates and a per-model recipe tuning are not",
    uses = { precision = "fp8" } },
  -- the H100 rows by the attention kernel their profile runs (lua/dlbench/hw_kernels.lua)
  { "h100", "H100: attention at FlashAttention-2's 0.34 of peak (attn_eff); which attention "
    .. "kernel each run used (FA2, cuDNN or FA3: ~0.6, Shah et al. 2024) is not published",
    uses = { attention = "flash2" } },
  { "h100", "H100: attention at the profile's cuDNN kernel's 0.54 of peak (Shah et al. 2024); "
    .. "the kernel each run used is not published", uses = { attention = "cudnn" } },
  { "megatron%-gpt3%-175b", "the (t, p) layout of this run is not stated (the planner's best "
    .. "layout is used)", uses = { planned = true } },
  { "seq2seq", "TensorFlow 1.x LSTM kernels on Pascal fp32: one calibration row of its own, "
    .. "catalogue flops_eff", uses = { profile = "tensorflow1", precision = "fp32" } },
  { "megatron%-t[12]%-.*529", "530B rows: Megatron runs faster than the per-op model of its layout" },
}
