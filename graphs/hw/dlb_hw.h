/*
** dlb_hw.h — the hardware catalogue's numeric side: precisions (names, element sizes) and
** the roofline description of a device (peak, bandwidth, achievable fractions, cache).
** The catalogue itself (names, datasheet numbers, sources) is data in
** lua/dlbench/hw_catalog.lua; see docs/hw.md.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_HW_H
#define DLB_HW_H

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* Precisions a device peak is quoted for (dense rates). */
enum {
  DLB_PREC_FP64 = 0, DLB_PREC_FP32 = 1, DLB_PREC_TF32 = 2, DLB_PREC_FP16 = 3,
  DLB_PREC_BF16 = 4, DLB_PREC_FP8 = 5, DLB_PREC_INT8 = 6, DLB_PREC_COUNT = 7
};

/* A device as every time and memory model sees it (the roofline, the per-op kernel model,
** data parallelism, the planner): one struct, one set of defaults (dlb_roof_init), one
** check (dlb_roof_check). Units: FLOP/s, bytes/s, bytes, seconds.
** flops_eff and bw_eff are the achievable fractions of peak (0, 1] (Hestness et al. 5.2:
** 0.8 and 0.7, the defaults). elem is the bytes per element of the tensors (used by the
** cache-aware matmul model); cache_aware != 0 switches that model on. bytes_scale
** multiplies the bytes of the costs timed (e.g. 0.5 for costs counted at fp32 and timed at
** fp16); 0 means 1. tile_m, tile_n (elements, >= 0) fix the output tile of the cache-aware
** matmul model (0: square tiles sized from the cache; see dlb_gemm_traffic_tiled).
** The kernel model (dlb_op_time; docs/hw.md "kernel efficiency"), every field 0 = off:
** kernel_overhead  s per kernel launch / dispatch, added to every op that does work;
** step_overhead    s per training step (framework, data loader), added once per step;
** half_bw_bytes    bytes at which a kernel reaches half the achievable bandwidth (Hockney's
**                  n_1/2): memory time (bytes + half_bw_bytes) / (bw x bw_eff);
** sm_count, gemm_tile_m, gemm_tile_n  GPU wave and tile quantisation of matmuls;
** gemm_tile_overhead  s per GEMM output tile (and split-K slice) that no main-loop iteration
**                  hides: the pipeline prologue (the first stages' loads) and the epilogue
**                  (writing the C tile), amortised over k / split of reduction depth
**                  (dlb_gemm_efficiency; needs sm_count and gemm_tile_m/n; 0: off; the
**                  catalogue sets it on H100-SXM, H200-SXM and B200 only, a CALIBRATION:
**                  docs/hw.md "GEMM efficiency: a fixed cost per tile");
** systolic         TPU matrix-unit side (k and n padded to multiples of it);
** vector_width     CPU SIMD lanes (n padded to a multiple of it);
** mem              device memory in bytes (0 = unlimited), for `fits`;
** level1_size, level1_bw ... level4_size, level4_bw
**                  measured memory levels (a dlb.measure.host device's `levels`; bytes,
**                  bytes/s; both 0 = unused): an op whose bytes fit in a level's size is
**                  charged at the bandwidth of the smallest level it fits in (never below
**                  bw), times bw_eff; an op larger than every level at bw (docs/hw.md);
** attn_eff         the achievable fraction of peak of the fused attention kernels
**                  (FlashAttention; the `attention` fusion pass), which run at an efficiency
**                  of their own, not the GEMMs' flops_eff: FlashAttention-2's forward +
**                  backward reaches ~66% of peak on an A100 but ~34% on an H100 (Dao 2023,
**                  "FlashAttention-2", sec. 4.1 and Fig. 7); 0 = off (flops_eff and the
**                  matmul efficiency, as any matmul).
** attn_work        the fraction of a fused attention kernel's counted FLOPs it is timed on
**                  (at attn_eff, or at flops_eff when that is 0): 0.5 / ratio for a causal
**                  decoder's kernels that skip the masked blocks, ratio their published
**                  causal rate over the non-causal one (dlb.frameworks.attn_work sets it
**                  per call); 0 = 1, all. Not a device's number: a property of the step
**                  and its kernel.
** head_peak        the peak (FLOP/s) of the output layer's GEMMs (ops of kernel class
**                  DLB_KERNEL_HEAD: the LM head's forward GEMM and its two backward GEMMs;
**                  dlb_par_op attention 5) in place of peak: the device's 16-bit peak in an
**                  fp8 step whose recipe leaves the output layer in bf16 (Megatron-Core's
**                  output_layer is a plain ColumnParallelLinear outside Transformer Engine;
**                  torchtitan filters "output" out of its float8 conversion;
**                  dlb.frameworks.head_peak sets it per call, docs/frameworks.md "The output
**                  layer under fp8"); the step's flops_eff and the matmul efficiency apply
**                  at it; 0 = peak. Not a device's number: a property of the step's recipe.
** The host-side model (issue [19]; dlb_timeline in graphs/hw/roofline_impl.h), 0 = off:
** host_op          s of host time to issue one op (framework dispatch: Python, the
**                  dispatcher, the launch call); the device cannot start an op before the
**                  host has issued it, so kernels shorter than this leave it idle;
** host_layer       s of host time per layer and forward pass (a framework's Python module
**                  code around the layer's ops: Megatron-LM's ParallelTransformerLayer),
**                  used where layers are known (the planner). */
typedef struct dlb_roof {
  double peak;
  double bw;
  double flops_eff;
  double bw_eff;
  double cache;
  double elem;
  int cache_aware;
  double bytes_scale;
  double tile_m;
  double tile_n;
  double kernel_overhead;
  double step_overhead;
  double half_bw_bytes;
  double sm_count;
  double gemm_tile_m;
  double gemm_tile_n;
  double gemm_tile_overhead;
  double systolic;
  double vector_width;
  double mem;
  double level1_size, level1_bw, level2_size, level2_bw;
  double level3_size, level3_bw, level4_size, level4_bw;
  double attn_eff;
  double attn_work;
  double head_peak;
  double host_op;
  double host_layer;
} dlb_roof;

/* The defaults of every field, the one place they live: flops_eff 0.8 and bw_eff 0.7
** (Hestness et al. 5.2), elem 4, bytes_scale 1, everything else 0 (peak and bw must be
** set by the caller). */
DLB_API void dlb_roof_init(dlb_roof *d);

/* The precision named `name` ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"),
** or DLB_EINVAL with a message listing the names. */
DLB_API int dlb_precision_id(const char *name);
/* The name of precision `id`, or NULL when out of range; static. */
DLB_API const char *dlb_precision_name(int id);
/* Bytes per element of precision `id` (fp64 8, fp32 and tf32 4, fp16 and bf16 2, fp8
** and int8 1), or 0 when out of range. */
DLB_API double dlb_precision_bytes(int id);

/* Check a device: positive finite peak and bw, effs in (0, 1] (attn_eff in [0, 1], 0 =
** off; attn_work in [0, 1]; head_peak finite and >= 0), cache >= 0, elem > 0,
** the kernel-model fields finite and >= 0 (tiles >= 1 or 0), mem >= 0. Returns DLB_OK or
** DLB_EINVAL naming the bad field. */
DLB_API int dlb_roof_check(const dlb_roof *d);
/* The ridge point in FLOP/byte: peak / bw, or with achievable != 0
** (peak * flops_eff) / (bw * bw_eff). */
DLB_API int dlb_roof_ridge(const dlb_roof *d, int achievable, double *out);
/* Attainable FLOP/s at operational intensity `intensity` (FLOP/byte):
** min(peak * flops_eff, intensity * bw * bw_eff). */
DLB_API int dlb_roof_attainable(const dlb_roof *d, double intensity, double *out);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
