-- dlbench.hw_kernels — catalogue data (issue [18]): each device's measured efficiency per
-- attention kernel family, the fraction of its dense 16-bit tensor-core peak that family's
-- fused attention kernel reaches forward + backward. A framework profile names its family
-- (dlb.frameworks, field attention); dlb.frameworks.attention_eff reads this table, and a
-- device or family missing here falls back to the device's attn_eff (the FlashAttention-2
-- attn_eff, said so in every result. Each number carries its source.
--
-- causal (issue [21]): the family's causal kernel skips the masked key blocks; its rate with
-- the FLOPs counted half (the papers' convention: Dao 2023 sec. 4.1, "with causal mask, this
-- number is divided by 2"), over its non-causal rate, at the longest sequence published (16k;
-- the ratio levels off from 8k): {ratio, source}. dlb.frameworks.attn_work turns it into the
-- fraction of the counted FLOPs a causal decoder's kernel is timed on, 0.5 / ratio. Shorter
-- sequences run lower (the diagonal blocks are computed whole): FA2 on A100, hdim 128,
-- forward + backward, 0.66-0.76 at 512, 0.79-0.83 at 2k, 0.86-0.91 at 4k; not modelled (the
-- constant is the long-sequence value: a sweep binds seq symbolically, and attn_work is one
-- number per device in the C rule). The values are the bar labels as transcribed from the
-- papers' figures (two independent transcriptions agree for Dao 2023 Fig. 4 at 16k).
local CAUSAL_H100 = "Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608) Fig. 5, H100 SXM5 "
  .. "BF16, head dim 128, forward at 16k, with causal mask (FLOPs counted half) against without; "
  .. "the backward's causal rate is not published there, so the forward ratio stands for forward "
  .. "+ backward (on A100 Dao 2023's backward ratio, 0.95, is above its forward one, 0.88): "
return {
  ["A100-SXM4-80GB"] = {
    flash2 = { 0.66, "Dao 2023 (FlashAttention-2) sec. 4.1: 73% of peak forward, 63% backward "
      .. "(2.5x the forward FLOPs): 3.5 / (1/0.73 + 2.5/0.63) = 0.66 (= hw_catalog attn_eff)",
      causal = { 0.93, "Dao 2023 (FlashAttention-2, arXiv 2307.08691) Fig. 4 (b)/(d), A100 80GB "
        .. "SXM4, head dim 128, forward + backward at 16k: 189 TFLOP/s with causal mask (FLOPs "
        .. "counted half) against 203 without: 0.93 (Fig. 5/6: forward 197 against 224, backward "
        .. "186 against 196, which combine to the same 189 / 203)" } },
  },
  ["A100-SXM4-40GB"] = {
    flash2 = { 0.66, "as A100-SXM4-80GB (the same GA100 die and clocks)",
      causal = { 0.93, "as A100-SXM4-80GB: Dao 2023 Fig. 4, 189 against 203 at 16k" } },
  },
  -- The H100 families, all from one figure set so they compare: Shah et al. 2024
  -- (FlashAttention-3, arXiv 2407.08608) Fig. 5 (forward) and Fig. 6 (backward), H100 80GB
  -- SXM5, BF16, head dim 128, without causal mask (dlbench counts attention whole, so the
  -- non-causal rates, which count every FLOP the kernel computes, are the ones that apply),
  -- at sequence 16k (the bars level off from 4-8k). Forward + backward with the backward's
  -- 2.5x the forward FLOPs: eff = 3.5 / (P/fwd + 2.5 P/bwd), P = 989.5 TFLOP/s (dense BF16).
  -- The same figures' FlashAttention-2 bars (370 / 322) give 0.338: the Dao 2023 value.
  ["H100-SXM"] = {
    flash2 = { 0.34, "Dao 2023 Fig. 7: up to 335 TFLOP/s forward + backward = 0.34 of 989.5 "
      .. "(= hw_catalog attn_eff); Shah et al. 2024 Fig. 5/6's FA2 bars (hdim 128, 16k, no "
      .. "causal mask: 370 forward, 322 backward TFLOP/s) give the same 3.5 / (989.5/370 + "
      .. "2.5 x 989.5/322) = 0.338",
      causal = { 0.91, CAUSAL_H100 .. "FlashAttention-2 335 against 370: 0.91 (Dao 2023 Fig. 7, "
        .. "forward + backward, hdim 128: 328 against 318 at 16k, 308 against 318 at 8k)" } },
    flash3 = { 0.59, "Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608) Fig. 5 / Fig. 6, "
      .. "H100 SXM5 BF16, head dim 128, no causal mask, sequence 16k: 648 TFLOP/s forward, "
      .. "561 backward; 3.5 / (989.5/648 + 2.5 x 989.5/561) = 0.59",
      causal = { 0.95, CAUSAL_H100 .. "FlashAttention-3 616 against 648: 0.95" } },
    cudnn = { 0.54, "Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608) Fig. 5 / Fig. 6, "
      .. "the cuDNN bars (the fused attention Transformer Engine runs on Hopper), H100 SXM5 "
      .. "BF16, head dim 128, no causal mask, sequence 16k: 595 TFLOP/s forward, 516 "
      .. "backward; 3.5 / (989.5/595 + 2.5 x 989.5/516) = 0.54",
      causal = { 0.91, CAUSAL_H100 .. "cuDNN 539 against 595: 0.91" } },
  },
  ["H200-SXM"] = {
    flash2 = { 0.34, "as H100-SXM (the same die): Dao 2023 Fig. 7",
      causal = { 0.91, "as H100-SXM (the same die): Shah et al. 2024 Fig. 5, 335 against 370" } },
    flash3 = { 0.59, "as H100-SXM (the same die): Shah et al. 2024 Fig. 5 / 6, 648 / 561 TFLOP/s",
      causal = { 0.95, "as H100-SXM (the same die): Shah et al. 2024 Fig. 5, 616 against 648" } },
    cudnn = { 0.54, "as H100-SXM (the same die): Shah et al. 2024 Fig. 5 / 6, cuDNN 595 / 516 TFLOP/s",
      causal = { 0.91, "as H100-SXM (the same die): Shah et al. 2024 Fig. 5, cuDNN 539 against 595" } },
  },
  -- The B200 (issue [21]; added after seeing every B200 validation row predicted too fast,
  -- docs/validation.md): cuDNN's fused attention, which Transformer Engine runs on Blackwell
  -- (nemo, megatron-core), from NVIDIA's own SDPA training benchmark on B200
  -- (NVIDIA/cudnn-frontend, benchmark/sdpa_benchmark_training/artifacts/
  -- sdpa_bf16_benchmark_results_NVIDIA_B200.csv, commit bb37575d; the earlier commit
  -- cb560b92 of the same file is within 1%): PyTorch's cuDNN backend, BF16, head dim 128,
  -- 128 query / 8 KV heads, sequence 16k, causal (FLOPs counted half): 1332.4 TFLOP/s
  -- forward, 1074.8 backward, so forward + backward 3.5 / (1/1332.4 + 2.5/1074.8) = 1137.6
  -- TFLOP/s = 0.506 of the dense 2250 (the causal rate). The file has no non-causal rows;
  -- the causal over non-causal ratio is the same benchmark's on GB200 (the same Blackwell
  -- SM100 kernels; results/llama3.1/gb200/llama3.1_20260424_100750.csv, cuDNN 9.22, BF16,
  -- hdim 128, 64 / 8 heads, batch 2, 16k, non-deterministic): causal 1708 forward / 1328
  -- backward, no mask 1697 / 1374, forward + backward 1418.1 against 1453.0 = 0.976 -> 0.98
  -- (derived); the non-causal efficiency is then 0.506 / 0.976 = 0.518 -> 0.52 (derived).
  -- A causal decoder's kernels (the cudnn family skips the masked blocks) are timed at
  -- 0.52 x 0.98 = 0.51 of the peak on half the FLOPs: the B200 figure itself.
  -- Not here: FlashAttention-2 (its B200 figure is the device's attn_eff, hw_catalog.lua;
  -- no causal ratio published for it on B200), FlashAttention-3 (Hopper only: it does not
  -- run on B200, meta-pytorch/tritonbench PR 171), FlashAttention-4 (no profile names it;
  -- its own figures: flash-attention PR 2280, hdim 128, 8k, non-causal, 1534.8 forward,
  -- 1359.8 backward TFLOP/s = 0.62 forward + backward).
  ["B200"] = {
    cudnn = { 0.52, "NVIDIA/cudnn-frontend SDPA training benchmark on B200 (sdpa_bf16_benchmark_"
      .. "results_NVIDIA_B200.csv), PyTorch cuDNN backend, BF16, hdim 128, 16k, causal (FLOPs "
      .. "counted half): 1332.4 forward, 1074.8 backward TFLOP/s, 3.5 / (2250/1332.4 + 2.5 x "
      .. "2250/1074.8) = 0.506; over the causal ratio 0.976 (GB200, below): 0.52 non-causal (derived)",
      causal = { 0.98, "derived: the same benchmark on GB200 (results/llama3.1/gb200, cuDNN 9.22, "
        .. "BF16, hdim 128, 16k), forward + backward with causal mask (FLOPs counted half) 1708 / "
        .. "1328 TFLOP/s against no mask 1697 / 1374: 1418.1 / 1453.0 = 0.98 (no non-causal "
        .. "rows in the B200 file)" } },
  },
}
