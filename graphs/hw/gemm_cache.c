/*
** gemm_cache.c — off-chip traffic of a tiled matrix multiply with a finite on-chip cache
** (Hestness et al. 6.1, after Coleman & McKinley's tile-size selection): inputs are
** re-streamed from memory once per tile of the other operand when they do not fit.
*/
#include <math.h>

#include "dlb_roofline.h"
#include "dlb_runtime.h"

/* Bytes moved by `batch` matmuls [m,k] x [k,n] with a cache of `cache` bytes: algorithmic
** when A, B and C fit together or one operand fits in half the cache; else tiled. */
int dlb_gemm_traffic(double m, double n, double k, double batch, double elem, double cache,
                     double *out) {
  return dlb_gemm_traffic_tiled(m, n, k, batch, elem, cache, 0, 0, out);
}

/* The same with a given output tile (0, 0: square tiles from the cache). */
int dlb_gemm_traffic_tiled(double m, double n, double k, double batch, double elem,
                           double cache, double tile_m, double tile_n, double *out) {
  if (out == NULL) return dlb_fail(DLB_EINVAL, "gemm traffic: out is NULL");
  if (!(isfinite(m) && isfinite(n) && isfinite(k) && m > 0 && n > 0 && k > 0))
    return dlb_fail(DLB_EINVAL, "gemm traffic: m, n, k must be positive, got %g, %g, %g",
                    m, n, k);
  if (!(isfinite(batch) && batch > 0))
    return dlb_fail(DLB_EINVAL, "gemm traffic: batch must be positive, got %g", batch);
  if (!(isfinite(elem) && elem > 0))
    return dlb_fail(DLB_EINVAL, "gemm traffic: element size must be positive, got %g", elem);
  if (!(isfinite(cache) && cache >= 0))
    return dlb_fail(DLB_EINVAL, "gemm traffic: cache must be >= 0 bytes, got %g", cache);
  int given = tile_m != 0 || tile_n != 0;
  if (given && !(isfinite(tile_m) && isfinite(tile_n) && tile_m >= 1 && tile_n >= 1))
    return dlb_fail(DLB_EINVAL, "gemm traffic: tiles must be >= 1 element (or both 0), "
                    "got %g x %g", tile_m, tile_n);
  double a = m * k, b = k * n, c = m * n;
  double alg = batch * elem * (a + b + c);
  if (!isfinite(alg))
    return dlb_fail(DLB_ENUMERIC, "gemm traffic: %g x %g x %g (batch %g) overflows", m, n, k,
                    batch);
  /* everything resident, or one operand resident in half the cache while the other
  ** streams past once: algorithmic traffic */
  if ((a + b + c) * elem <= cache || a * elem <= cache / 2 || b * elem <= cache / 2) {
    *out = alg;
    return DLB_OK;
  }
  double tm = floor(tile_m), tn = floor(tile_n);
  if (!given) {
    double t = floor(sqrt(cache / (3 * elem))); /* square tiles of A, B and C resident */
    if (t < 1) t = 1;
    tm = tn = t;
  }
  double r = batch * elem * (a * ceil(n / tn) + b * ceil(m / tm) + c);
  if (!isfinite(r))
    return dlb_fail(DLB_ENUMERIC, "gemm traffic: %g x %g x %g (batch %g) overflows", m, n, k,
                    batch);
  *out = r;
  return DLB_OK;
}
