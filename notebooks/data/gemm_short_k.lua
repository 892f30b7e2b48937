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
  .. "its best rows, 808.7 TFLOP/s, exceed the H100 PCIe's 756 dense bf16 peak, so an H100 SXM "
  .. "/ H800-class part). Rows here: every entry with batch b in {1, 2, 4} and (m, n) in "
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
