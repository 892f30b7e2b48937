/*
** hw.c — precisions and the roofline description of a device: names, element sizes,
** validation, ridge point and attainable FLOP/s (Williams et al.'s roofline with
** Hestness et al.'s achievable fractions, 5.2).
*/
#include <math.h>
#include <string.h>

#include "dlb_hw.h"
#include "dlb_runtime.h"

static const char *const names[DLB_PREC_COUNT] = {
  "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"
};
static const double elem_bytes[DLB_PREC_COUNT] = { 8, 4, 4, 2, 2, 1, 1 };

/* The id of precision `name`; DLB_EINVAL listing the names when unknown. */
int dlb_precision_id(const char *name) {
  if (name == NULL) return dlb_fail(DLB_EINVAL, "precision: expected a name, got NULL");
  for (int i = 0; i < DLB_PREC_COUNT; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return dlb_fail(DLB_EINVAL, "unknown precision '%.64s' (expected fp64, fp32, tf32, fp16, "
                  "bf16, fp8, int8)", name);
}

/* The static name of precision id, or NULL. */
const char *dlb_precision_name(int id) {
  return (id >= 0 && id < DLB_PREC_COUNT) ? names[id] : NULL;
}

/* Bytes per element of precision id, 0 when out of range. */
double dlb_precision_bytes(int id) {
  return (id >= 0 && id < DLB_PREC_COUNT) ? elem_bytes[id] : 0;
}

static int positive(double x) { return isfinite(x) && x > 0; }

/* The defaults of a device description (the one home of 0.8 / 0.7). */
void dlb_roof_init(dlb_roof *d) {
  if (d == NULL) return;
  memset(d, 0, sizeof *d);
  d->flops_eff = 0.8;   /* Hestness et al. 2019 sec. 5.2: 80% of peak FLOP/s */
  d->bw_eff = 0.7;      /* ibid.: 70% of peak memory bandwidth */
  d->elem = 4;
  d->bytes_scale = 1;
}

/* Validate a roofline description; names the first bad field. */
int dlb_roof_check(const dlb_roof *d) {
  if (d == NULL) return dlb_fail(DLB_EINVAL, "roofline: device is NULL");
  if (!positive(d->peak))
    return dlb_fail(DLB_EINVAL, "roofline: peak must be a positive FLOP/s, got %g", d->peak);
  if (!positive(d->bw))
    return dlb_fail(DLB_EINVAL, "roofline: memory bandwidth must be positive bytes/s, got %g",
                    d->bw);
  if (!positive(d->flops_eff) || d->flops_eff > 1)
    return dlb_fail(DLB_EINVAL, "roofline: flops_eff must be in (0, 1], got %g", d->flops_eff);
  if (!positive(d->bw_eff) || d->bw_eff > 1)
    return dlb_fail(DLB_EINVAL, "roofline: bw_eff must be in (0, 1], got %g", d->bw_eff);
  if (!(d->attn_eff >= 0 && d->attn_eff <= 1))
    return dlb_fail(DLB_EINVAL, "roofline: attn_eff must be in [0, 1] (0: off), got %g",
                    d->attn_eff);
  if (!(d->attn_work >= 0 && d->attn_work <= 1))
    return dlb_fail(DLB_EINVAL, "roofline: attn_work must be in [0, 1] (the fraction of the "
                    "attention kernels' FLOPs computed; 0: all), got %g", d->attn_work);
  if (!(d->head_peak >= 0 && isfinite(d->head_peak)))
    return dlb_fail(DLB_EINVAL, "roofline: head_peak must be a FLOP/s >= 0 and finite (the output "
                    "layer's GEMMs' peak; 0: peak), got %g", d->head_peak);
  if (!isfinite(d->cache) || d->cache < 0)
    return dlb_fail(DLB_EINVAL, "roofline: cache must be >= 0 bytes, got %g", d->cache);
  if (!positive(d->peak * d->flops_eff) || !positive(d->bw * d->bw_eff))
    return dlb_fail(DLB_EINVAL, "roofline: achievable rates underflow or overflow (peak %g x %g, "
                    "bandwidth %g x %g)", d->peak, d->flops_eff, d->bw, d->bw_eff);
  if (!isfinite(d->bytes_scale) || d->bytes_scale < 0)
    return dlb_fail(DLB_EINVAL, "roofline: bytes_scale must be >= 0 (0 means 1), got %g",
                    d->bytes_scale);
  if (!positive(d->elem))
    return dlb_fail(DLB_EINVAL, "roofline: element size must be positive bytes, got %g",
                    d->elem);
  if (!(d->tile_m == 0 && d->tile_n == 0) &&
      !(isfinite(d->tile_m) && isfinite(d->tile_n) && d->tile_m >= 1 && d->tile_n >= 1))
    return dlb_fail(DLB_EINVAL, "roofline: matmul tiles must be >= 1 element (or both 0 for "
                    "square tiles sized from the cache), got %g x %g", d->tile_m, d->tile_n);
  const struct { const char *name; double v; } nn[] = {
    { "kernel_overhead", d->kernel_overhead }, { "step_overhead", d->step_overhead },
    { "half_bw_bytes", d->half_bw_bytes }, { "sm_count", d->sm_count },
    { "gemm_tile_m", d->gemm_tile_m }, { "gemm_tile_n", d->gemm_tile_n },
    { "gemm_tile_overhead", d->gemm_tile_overhead },
    { "systolic", d->systolic }, { "vector_width", d->vector_width }, { "mem", d->mem },
    { "level1_size", d->level1_size }, { "level1_bw", d->level1_bw },
    { "level2_size", d->level2_size }, { "level2_bw", d->level2_bw },
    { "level3_size", d->level3_size }, { "level3_bw", d->level3_bw },
    { "level4_size", d->level4_size }, { "level4_bw", d->level4_bw },
    { "host_op", d->host_op }, { "host_layer", d->host_layer } };
  for (size_t i = 0; i < sizeof nn / sizeof nn[0]; i++)
    if (!isfinite(nn[i].v) || nn[i].v < 0)
      return dlb_fail(DLB_EINVAL, "roofline: %s must be a finite number >= 0 (0: off), got %g",
                      nn[i].name, nn[i].v);
  if ((d->gemm_tile_m > 0) != (d->gemm_tile_n > 0) || (d->gemm_tile_m > 0 && d->gemm_tile_m < 1)
      || (d->gemm_tile_n > 0 && d->gemm_tile_n < 1))
    return dlb_fail(DLB_EINVAL, "roofline: gemm_tile must be {m, n} >= 1 element each (or both "
                    "0: off), got %g x %g", d->gemm_tile_m, d->gemm_tile_n);
  const double lv[4][2] = { { d->level1_size, d->level1_bw }, { d->level2_size, d->level2_bw },
    { d->level3_size, d->level3_bw }, { d->level4_size, d->level4_bw } };
  for (int i = 0; i < 4; i++)
    if ((lv[i][0] > 0) != (lv[i][1] > 0))
      return dlb_fail(DLB_EINVAL, "roofline: level%d needs both a size and a bandwidth (or "
                      "both 0: unused), got %g bytes at %g bytes/s", i + 1, lv[i][0], lv[i][1]);
  return DLB_OK;
}

/* Ridge point (FLOP/byte) at peak or at achievable rates. */
int dlb_roof_ridge(const dlb_roof *d, int achievable, double *out) {
  int st = dlb_roof_check(d);
  if (st != DLB_OK) return st;
  if (out == NULL) return dlb_fail(DLB_EINVAL, "roofline ridge: out is NULL");
  *out = achievable ? (d->peak * d->flops_eff) / (d->bw * d->bw_eff) : d->peak / d->bw;
  return DLB_OK;
}

/* Attainable FLOP/s at an operational intensity (FLOP/byte). */
int dlb_roof_attainable(const dlb_roof *d, double intensity, double *out) {
  int st = dlb_roof_check(d);
  if (st != DLB_OK) return st;
  if (out == NULL) return dlb_fail(DLB_EINVAL, "roofline attainable: out is NULL");
  if (isnan(intensity) || intensity < 0)
    return dlb_fail(DLB_EINVAL, "roofline: intensity must be >= 0 FLOP/byte, got %g",
                    intensity);
  double c = d->peak * d->flops_eff, m = intensity * d->bw * d->bw_eff;
  *out = m < c ? m : c;
  return DLB_OK;
}
