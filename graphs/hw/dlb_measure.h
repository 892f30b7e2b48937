/*
** dlb_measure.h — microbenchmarks of the host: GEMM through OpenBLAS's CBLAS, STREAM-style
** memory kernels over a working-set size (L1 .. DRAM), an elementwise kernel, and the
** cache sizes the kernel reports in sysfs (graphs/hw/measure.c). dlb.measure builds the host's
** empirical roofline from them (lua/dlbench/measure.lua, docs/measure.md).
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_MEASURE_H
#define DLB_MEASURE_H

#include <stddef.h>

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* Memory kernels of dlb_measure_stream. Bytes moved per element, the STREAM convention
** (no write-allocate traffic): copy c = a (fp64, 16 B), triad a = b + s c (fp64, 24 B),
** relu y = max(x, 0) (fp32, 8 B), add c = a + b (fp32, 12 B). */
enum { DLB_MEASURE_COPY = 0, DLB_MEASURE_TRIAD = 1, DLB_MEASURE_RELU = 2, DLB_MEASURE_ADD = 3 };

/* Data cache sizes of CPU 0 from /sys/devices/system/cpu/cpu0/cache: out[l-1] = bytes of
** the level-l data or unified cache (0 when absent), l = 1..4. *levels receives the deepest
** level found (0 when sysfs says nothing; not an error). */
DLB_API int dlb_measure_caches(double out[4], int *levels);

/* Time C = A B with A [m x k], B [k x n] (batch independent products, reusing one set of
** matrices) through OpenBLAS's cblas_sgemm (dp = 0) or cblas_dgemm (dp = 1) on `threads`
** threads (0: all online processors). Each of `reps` repetitions runs the product enough
** times to last at least min_time seconds. out[0..2]: median, fastest and slowest seconds
** per (batched) product. Shapes up to 2^31 - 1 per side and 1 GiB of matrices. */
DLB_API int dlb_measure_gemm(int dp, double m, double n, double k, double batch, int threads,
                             int reps, double min_time, double out[3]);

/* Time one memory kernel (DLB_MEASURE_*) whose arrays together hold `bytes` per thread
** (64 B .. 4 GiB), on `threads` threads (0: all online processors), each thread on its own
** arrays, started together at a barrier. Repetitions and min_time as dlb_measure_gemm.
** out[0..2]: median, fastest and slowest seconds per pass over all threads' arrays;
** out[3]: bytes moved per pass (all threads). */
DLB_API int dlb_measure_stream(int kernel, double bytes, int threads, int reps,
                               double min_time, double out[4]);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
