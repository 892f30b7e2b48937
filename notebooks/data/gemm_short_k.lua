-- notebooks/data/gemm_short_k.lua — published GEMM throughput measurements that vary the
-- reduction depth K at fixed large M, N (issues [19], [21]: "GEMM efficiency at short K";
-- docs/validation.md). Written down BEFORE any constant was fitted to them; the per-tile
-- overhead of graphs/hw/roofline.c (dlb_gemm_efficiency, device field gemm_tile_overhead)
-- is fitted on these rows only (tests/bench/gemm_short_k_fit.lua), never on validation rows.
-- Returns { sources = {id = text}, rows = { {src, device, precision, batch, m, n, k,
-- tflops}, ... } }: device is the catalogue part the measured GPU is (or stands for),
-- precision the inputs', tflops the published FLOP/s / 1e12 with FLOPs = 2 batch m n k.
local M = { sources = {}, rows = {} }

M.sources.xla = "openxla/xla (mirrored in tensorflow/tensorflow) "
  .. "third_party/xla/xla/service/gpu/model/matmul_interpolator_data.h at tensorflow commit "
  .. "372d578bb861cc5804e56d37d93aec931a59762c, kDefaultMatmulPTable, key \"sm_90\", flops key "
  .. "\"bf16xbf16->bf16\" (measured FLOP/s of XLA's GEMMs; the GPU is not named beyond sm_90: "
  .. "its best rows, 808.7 TFLOP/s, exceed the H100 PCIe's 756 dense bf16 peak, so the GH100 die "
  .. "of the H100 SXM, H800 or H200). Rows here: every entry with batch b in {1, 2, 4} and (m, n) in "
  .. "{(4096, 4096), (4096, 2048), (2048, 4096)}, all five K (256..4096); the table's smaller "
  .. "shapes (<= 3.9 waves of 128 x 128 tiles on 132 SMs) are left out"
M.sources.tilelang = "TileLang's benchmark/matmul/README.md, 'FP16 Matmul Benchmark "
  .. "(8192x8192)' (read in the fork xwhzz/tilelang at b2acfc3791d5ddeef3772214222461c85659c904; "
  .. "the README names tile-ai/tilelang commit 17bd0a6c651f599bec1397e0b91830c3ddc93076): NVIDIA "
  .. "H800 SXM, driver 560.35.05, M = N = 8192, K 256..16384, TileLang's autotuned kernel (not "
  .. "cuBLAS); its 'Latency (s)' column is in ms (2 x 8192^2 x 256 / 0.089056e-3 s = 386 TFLOP/s)"
M.sources.deepgemm = "deepseek-ai/DeepGEMM README, 'Performance', table 'Normal GEMMs for "
  .. "dense models' (2025-02; the rows also quoted by tests/bench/moe_layer_audit.lua): H800 "
  .. "SXM, FP8 e4m3 with 1x128 / 128x128 scaling, bf16 output; the M = 4096 rows (N and K "
  .. "vary together, so K is not alone; FP8 with fine-grained scaling promotes the partial "
  .. "sums on CUDA cores every 128 of K, a cost per K that no per-tile term holds)"

M.sources.xla_sm100 = "openxla/xla (mirrored in tensorflow/tensorflow) "
  .. "third_party/xla/xla/backends/gpu/cost_model/matmul_interpolator_data.h at tensorflow "
  .. "commit a305421c45a1ea5117c170b8d8a00a51f9dcee8f, kDefaultMatmulPTable, key \"sm_100\", "
  .. "flops keys \"bf16xbf16->bf16\" and \"f8e4m3fnxf8e4m3fn->bf16\" (measured FLOP/s of XLA's "
  .. "GEMMs). sm_100 is compute capability 10.0, the B200 or the GB200 (the table does not say "
  .. "which; the catalogue's B200 stands for both, one Blackwell SM design). The same shapes as "
  .. "the sm_90 rows (batch 1, 2, 4; m x n 4096 x 4096, 4096 x 2048, 2048 x 4096; K 256..4096). "
  .. "Added after the H100 fit (same selection rule, written down before the B200 fit)"

local function add(src, dev, prec, b, m, n, k, tf)
  M.rows[#M.rows + 1] = { src = src, device = dev, precision = prec, batch = b, m = m, n = n,
    k = k, tflops = tf }
end

-- xla sm_90 bf16: {b, m, n, TFLOP/s at K = 256, 512, 1024, 2048, 4096} (values / 1e12,
-- two decimals, of the table's FLOP/s)
local XLA = {
  { 1, 4096, 4096, 392.16, 543.12, 677.44, 738.74, 783.33 },
  { 1, 4096, 2048, 304.00, 447.02, 593.23, 716.07, 758.43 },
  { 1, 2048, 4096, 299.26, 450.40, 594.21, 715.35, 753.64 },
  { 2, 4096, 4096, 464.02, 607.67, 692.97, 763.01, 807.67 },
  { 2, 4096, 2048, 394.47, 546.43, 680.88, 733.30, 783.19 },
  { 2, 2048, 4096, 393.89, 542.29, 678.72, 729.08, 779.35 },
  { 4, 4096, 4096, 503.87, 619.86, 725.51, 764.58, 793.13 },
  { 4, 4096, 2048, 458.47, 607.49, 687.86, 759.30, 808.70 },
  { 4, 2048, 4096, 458.86, 607.32, 688.63, 752.46, 801.94 },
}
local XLA_K = { 256, 512, 1024, 2048, 4096 }
for _, r in ipairs(XLA) do
  for i, k in ipairs(XLA_K) do add("xla", "H100-SXM", "bf16", r[1], r[2], r[3], k, r[3 + i]) end
end

-- xla_sm100 (B200 / GB200): {b, m, n, TFLOP/s at K = 256, 512, 1024, 2048, 4096}, bf16
-- then fp8 (e4m3 x e4m3 -> bf16)
local XLA100 = {
  bf16 = {
    { 1, 4096, 4096, 514.71, 805.32, 1075.62, 1277.79, 1416.87 },
    { 1, 4096, 2048, 403.59, 652.33, 913.82, 1170.01, 1343.54 },
    { 1, 2048, 4096, 406.11, 647.47, 911.35, 1172.85, 1342.54 },
    { 2, 4096, 4096, 793.60, 916.77, 1161.17, 1344.40, 1466.62 },
    { 2, 4096, 2048, 535.13, 804.72, 1074.82, 1276.41, 1418.40 },
    { 2, 2048, 4096, 534.73, 804.08, 1074.55, 1277.12, 1417.38 },
    { 4, 4096, 4096, 791.83, 1090.65, 1350.49, 1539.85, 1670.47 },
    { 4, 4096, 2048, 790.64, 913.24, 1163.06, 1345.75, 1465.71 },
    { 4, 2048, 4096, 794.00, 923.25, 1159.63, 1345.55, 1466.23 },
  },
  fp8 = {
    { 1, 4096, 4096, 666.92, 1172.13, 1895.40, 2484.97, 2764.98 },
    { 1, 4096, 2048, 487.12, 871.28, 1332.19, 1833.50, 2499.44 },
    { 1, 2048, 4096, 488.95, 818.32, 1423.94, 2035.17, 2491.28 },
    { 2, 4096, 4096, 903.78, 1535.01, 2393.99, 2901.02, 3123.54 },
    { 2, 4096, 2048, 643.59, 1103.54, 1870.22, 2484.08, 2788.94 },
    { 2, 2048, 4096, 636.86, 1014.70, 1753.94, 2489.84, 2782.62 },
    { 4, 4096, 4096, 1012.75, 1712.21, 2651.21, 3122.48, 3279.68 },
    { 4, 4096, 2048, 840.67, 1534.88, 2400.76, 2884.89, 3133.33 },
    { 4, 2048, 4096, 904.58, 1533.92, 2398.08, 2895.10, 3131.37 },
  },
}
for _, prec in ipairs { "bf16", "fp8" } do
  for _, r in ipairs(XLA100[prec]) do
    for i, k in ipairs(XLA_K) do
      add("xla_sm100", "B200", prec, r[1], r[2], r[3], k, r[3 + i])
    end
  end
end

-- tilelang, H800 fp16, M = N = 8192: {K, latency ms, TFLOP/s}
for _, r in ipairs {
  { 256, 0.089056, 386 }, { 512, 0.132064, 520 }, { 1024, 0.218816, 628 },
  { 2048, 0.390112, 705 }, { 4096, 0.746752, 736 }, { 8192, 1.449888, 758 },
  { 16384, 2.871168, 766 },
} do add("tilelang", "H100-SXM", "fp16", 1, 8192, 8192, r[1], r[3]) end

-- deepgemm, H800 fp8, M = 4096: {N, K, TFLOP/s}
for _, r in ipairs {
  { 2112, 7168, 1058 }, { 24576, 1536, 990 }, { 32768, 512, 590 },
  { 7168, 16384, 1358 }, { 4096, 7168, 1304 }, { 7168, 2048, 1025 },
} do add("deepgemm", "H100-SXM", "fp8", 1, 4096, r[1], r[2], r[3]) end

return M
