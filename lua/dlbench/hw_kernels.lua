-- dlbench.hw_kernels — catalogue data (issue [18]): each device's measured efficiency per
-- attention kernel family, the fraction of its dense 16-bit tensor-core peak that family's
-- fused attention kernel reaches forward + backward. A framework profile names its family
-- (dlb.frameworks, field attention); dlb.frameworks.attention_eff reads this table, and a
-- device or family missing here falls back to the device's attn_eff (the FlashAttention-2
-- value of hw_catalog.lua), said so in every result. Each number carries its source.
return {
  ["A100-SXM4-80GB"] = {
    flash2 = { 0.66, "Dao 2023 (FlashAttention-2) sec. 4.1: 73% of peak forward, 63% backward "
      .. "(2.5x the forward FLOPs): 3.5 / (1/0.73 + 2.5/0.63) = 0.66 (= hw_catalog attn_eff)" },
  },
  ["A100-SXM4-40GB"] = {
    flash2 = { 0.66, "as A100-SXM4-80GB (the same GA100 die and clocks)" },
  },
  ["H100-SXM"] = {
    flash2 = { 0.34, "Dao 2023 Fig. 7: up to 335 TFLOP/s forward + backward = 0.34 of 989.5 "
      .. "(= hw_catalog attn_eff)" },
    flash3 = { 0.51, "Shah et al. 2024 (FlashAttention-3, arXiv 2407.08608) abstract: 1.5-2.0x "
      .. "FlashAttention-2 on H100; the lower bound, 1.5 x 0.34 = 0.51 (its forward alone "
      .. "reaches 740 TFLOP/s, 75%)" },
  },
  ["H200-SXM"] = {
    flash2 = { 0.34, "as H100-SXM (the same die): Dao 2023 Fig. 7" },
    flash3 = { 0.51, "as H100-SXM (the same die): Shah et al. 2024, 1.5 x 0.34" },
  },
}
