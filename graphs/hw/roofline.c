/*
** roofline.c — roofline time of a step: whole graph (Hestness et al. 5.2.2,
** r_t = max(c_t / (80% x_c), a_t / (70% x_a))) and op by op (each op at its own bound,
** as ParaDnn's Fig 3 breaks a model into ops), plus op-cost sets kept in C.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_hw.h"
#include "dlb_roofline.h"
#include "dlb_runtime.h"
#include "roofline_impl.h"

struct dlb_opcosts {
  size_t n;
  double *flops, *bytes, *gemm; /* gemm: 4 per op, m <= 0 when not a matmul; lazily made */
  char *attn;                   /* DLB_KERNEL_* per op (1: a fused attention kernel, 2: a
                                   GEMM of the output layer); lazily made */
  double *xops, *xkern;         /* further host ops and kernels per op (dlb_step_ops); lazily made */
  int step;                     /* 1: a training step's ops (the step-level terms join) */
  /* the optimizer step (from the analysis: dlb_opcosts_from_analysis): upd flags the update
  ** phase's ops (lazily made), ut / uc its Adam / AdamW tensors and their chunks; the launch
  ** model (dlb_opcosts_set_optim) in oc, has_oc = 0: none */
  char *upd;
  double ut, uc;
  dlb_optim_count oc;
  int has_oc;
  /* where the step's scopes begin (dlb_step_marks, from the analysis; NULL: none) and the
  ** profile's phase syncs (dlb_opcosts_set_phase_sync) */
  unsigned char *mark;
  int phase_sync;
};

/* Fill `out` with the roofline of one cost at device d (checked by the caller). */
static void one(const dlb_roof *d, double flops, double bytes, dlb_roof_result *out) {
  double ct = flops / (d->peak * d->flops_eff), mt = bytes / (d->bw * d->bw_eff);
  /* callers check that the times are finite */
  out->flops = flops;
  out->bytes = bytes;
  out->compute_time = ct;
  out->memory_time = mt;
  out->bound = mt > ct ? DLB_BOUND_MEMORY : DLB_BOUND_COMPUTE;
  out->time = mt > ct ? mt : ct;
  out->util = out->time > 0 ? flops / (out->time * d->peak) : 0;
  out->memory_bound_time = out->bound == DLB_BOUND_MEMORY ? out->time : 0;
  out->n_memory_bound = out->bound == DLB_BOUND_MEMORY ? 1 : 0;
  out->host_idle = out->host_time = 0;   /* no ops, no host timeline */
  out->update_time = 0;
}

/* Padding efficiency of a dim x to a multiple of t: x / (ceil(x / t) t). */
static double pad(double x, double t) {
  if (!(t >= 1) || !(x > 0)) return 1;
  return x / (ceil(x / t) * t);
}

static double level_bw(const dlb_roof *d, double bytes);

/* Matrix-unit efficiency of a matmul shape; see the header. */
double dlb_gemm_efficiency(const dlb_roof *d, double m, double n, double k, double batch) {
  if (d == NULL || !(m > 0) || !(n > 0) || !(k > 0)) return 1;
  if (!(batch >= 1)) batch = 1;
  double q = 1;
  if (d->sm_count >= 1 && d->gemm_tile_m >= 1 && d->gemm_tile_n >= 1) {
    double tm = d->gemm_tile_m, tn = d->gemm_tile_n, sm = d->sm_count;
    double tiles = ceil(m / tm) * ceil(n / tn) * batch;
    /* split-K: when the output has fewer tiles than SMs, the libraries split the reduction
    ** over s slices of at least 256 each (CUTLASS "split-K" GEMMs; cuBLAS heuristics;
    ** Osama et al. 2023, "Stream-K"); the slices' partial sums are not costed */
    double split = floor(sm / tiles), kmax = floor(k / 256);
    if (split > kmax) split = kmax;
    if (split < 1) split = 1;
    double waves = ceil(tiles * split / sm);
    q *= (m * n * batch * split) / (waves * sm * tm * tn);
    /* the fixed cost per output tile (issues [19], [21]; docs/hw.md "GEMM efficiency: a fixed
    ** cost per tile"): a tiled GEMM's SM spends on each tile (each split-K slice) its main
    ** loop, 2 tm tn (k / split) FLOPs at the SM's share of the rate, t_main = 2 tm tn
    ** (k / split) sm / (peak x flops_eff), plus a cost that does not shrink with k: the
    ** pipeline's prologue (loading the first stages before the first MMA) and epilogue
    ** (converting and writing the C tile), t0 = gemm_tile_overhead seconds. Every wave then
    ** takes t_main + t0, so q *= t_main / (t_main + t0): (K + K0) / K in time, with
    ** K0 = t0 peak flops_eff / (2 tm tn sm) -- a constant in seconds, so in elements of K it
    ** scales with the precision's peak. t0 is a CALIBRATION fitted on published GEMM tables
    ** that vary K at fixed large m, n (notebooks/data/gemm_short_k.lua;
    ** tests/bench/gemm_short_k_fit.lua), set in the catalogue only on the devices with such
    ** a table (H100-SXM, H200-SXM, B200: lua/dlbench/hw_catalog.lua GEMM_TILE); 0 (the
    ** default elsewhere) leaves q bit-identical to the rule without the term. */
    if (d->gemm_tile_overhead > 0) {
      double tmain = 2 * tm * tn * (k / split) * sm / (d->peak * d->flops_eff);
      if (tmain > 0 && isfinite(tmain)) q *= tmain / (tmain + d->gemm_tile_overhead);
    }
  }
  if (d->systolic >= 1) q *= pad(k, d->systolic) * pad(n, d->systolic);
  if (d->vector_width >= 1) {
    q *= pad(n, d->vector_width);
    /* CPU operand packing (Goto and van de Geijn 2008, "Anatomy of high-performance matrix
    ** multiplication", sec. 6-7; OpenBLAS and oneDNN's GEMMs are built the same way): before
    ** its micro-kernel runs, a CPU GEMM copies A and B into contiguous packed panels, every
    ** element read once and written once (one pass for n up to the panel width n_c, some
    ** thousands), on the same core and not overlapped with the FLOPs:
    **   t = 2 m n k batch / (peak x flops_eff x q) + 2 elem batch (m k + k n) / (bw_l x bw_eff)
    ** with bw_l the level ceiling of the operands' bytes (level_bw). The copy is
    ** O(1/m + 1/n) of the compute, negligible for a square GEMM (1024^3: ~1%) but not when a
    ** side is small: a convolution's implicit GEMM with 16-32 output channels (n) and
    ** k = 27..288, whose m x k operand is the im2col column buffer (Chellapilla et al. 2006)
    ** that an unfold + GEMM convolution writes once and reads once -- the same traffic.
    ** Measured on the project's host (one thread in CPU time, OpenBLAS 0.3.21's Haswell
    ** kernels; docs/measure.md "The CNN"; the CNN at b = 128): conv2's input gradient
    ** 32768x16x288 took 5.97 ms, conv1's weight gradient 16x27x131072 2.67 ms, conv1
    ** 131072x16x27 1.29 ms; this rule says 4.46, 1.45 and 1.14 ms, the roofline without it
    ** 2.37, 0.89 and 0.89 ms: packing is about half of the gap. Returned as the factor
    ** t_compute / (t_compute + t_pack) of the compute time. Only on a device with measured
    ** cache levels (a dlb.measure.host device): the packed operands mostly stream from a
    ** cache, and without its measured ceiling the copy would be charged at DRAM bandwidth,
    ** overstating it (so catalogue CPUs, Skylake-n1-32 and the rest, are unchanged). */
    if (d->level1_size > 0) {
      double e = d->elem > 0 ? d->elem : 4, b = batch;
      double ct = 2 * m * n * k * b / (d->peak * d->flops_eff * q);
      double opnd = e * b * (m * k + k * n);
      double pt = 2 * opnd / (level_bw(d, opnd) * d->bw_eff);
      if (ct > 0 && pt > 0 && isfinite(ct + pt)) q *= ct / (ct + pt);
    }
  }
  return q > 0 && q <= 1 ? q : 1;
}

/* The bandwidth an op of `bytes` bytes streams at: that of the smallest measured level
** (dlb_roof level*_size/bw) its bytes fit in, never below the memory's bw; bw when the
** device has no levels or the op fits in none. The op's bytes (inputs + outputs, as
** counted) stand for its working set: a tensor that fits a cache level is read and
** written there (Williams et al. 2009's roofline with one ceiling per level; Ilic et al.
** 2014, "Cache-aware Roofline model"). */
static double level_bw(const dlb_roof *d, double bytes) {
  const double lv[4][2] = { { d->level1_size, d->level1_bw }, { d->level2_size, d->level2_bw },
    { d->level3_size, d->level3_bw }, { d->level4_size, d->level4_bw } };
  double bw = d->bw, size = INFINITY;
  for (int i = 0; i < 4; i++)
    if (lv[i][0] > 0 && bytes <= lv[i][0] && lv[i][0] < size) {
      size = lv[i][0];
      bw = lv[i][1] > d->bw ? lv[i][1] : d->bw;
    }
  return bw;
}

/* The per-op rule (see dlb_op_time) on checked inputs. A fused attention kernel (the
** `attention` fusion pass: FlashAttention's forward, or its backward with the recompute)
** runs at the device's attn_eff of peak when that is set: the kernel's measured FLOP/s
** (Dao 2023, "FlashAttention-2", sec. 4.1, Fig. 4 and 7) already holds its tiling, its
** softmax and its occupancy, so no matmul-shape efficiency applies on top. A kernel that
** skips the masked blocks of causal attention is timed on d->attn_work of the FLOPs counted
** (half of them, Dao 2023 sec. 3.1.1, "causal masking", at the kernel's published causal rate:
** 0.5 / ratio, lua/dlbench/hw_kernels.lua). */
double dlb_op_time_raw(const dlb_roof *d, double flops, double bytes, const double *gemm,
                       int kind, int *mem_bound) {
  double ct;
  int attention = kind == DLB_KERNEL_ATTENTION;
  /* the output layer's GEMMs at the step recipe's peak for them (head_peak: the 16-bit peak of
  ** an fp8 step whose recipe leaves the output layer in bf16, docs/frameworks.md "The output
  ** layer under fp8"): the whole rule on the device with that peak, so the matmul efficiency
  ** (its per-tile cost, a time at the peak) is the 16-bit GEMM's too */
  dlb_roof hd;
  if (kind == DLB_KERNEL_HEAD && d->head_peak > 0) {
    hd = *d;
    hd.peak = d->head_peak;
    d = &hd;
  }
  if (attention && d->attn_work > 0) flops *= d->attn_work;
  if (attention && d->attn_eff > 0) {
    ct = flops / (d->peak * d->attn_eff);
  } else {
    double q = (gemm != NULL && gemm[0] > 0)
      ? dlb_gemm_efficiency(d, gemm[0], gemm[1], gemm[2], gemm[3]) : 1;
    ct = flops / (d->peak * d->flops_eff * q);
  }
  double mt = (bytes > 0 ? bytes + d->half_bw_bytes : 0) / (level_bw(d, bytes) * d->bw_eff);
  *mem_bound = mt > ct;
  double t = mt > ct ? mt : ct;
  if (flops > 0 || bytes > 0) t += d->kernel_overhead;
  return t;
}

/* An op of several kernels; see roofline_impl.h. */
double dlb_launch_time(const dlb_roof *d, double flops, double bytes, const double *gemm,
                       int kind, double kernels, int *mem_bound) {
  if (!(kernels > 1)) return dlb_op_time_raw(d, flops, bytes, gemm, kind, mem_bound);
  return kernels * dlb_op_time_raw(d, flops / kernels, bytes / kernels, gemm, kind, mem_bound);
}

/* The host-side timeline; see roofline_impl.h (dlb_timeline_op is inline there). */
void dlb_timeline_sync(dlb_timeline *t) {
  if (t->host > t->dev) t->idle += t->host - t->dev;
  double e = dlb_timeline_end(t);
  t->host = t->dev = e;
}

double dlb_timeline_end(const dlb_timeline *t) {
  return t->host > t->dev ? t->host : t->dev;
}

void dlb_timeline_seg(dlb_timeline *t, const dlb_timeline *r, double k) {
  if (!(k > 0)) return;
  double s = t->host - t->dev, s0 = s < 0 ? s : 0;
  double a = r->host - r->busy, b = r->host - r->dev;
  double c = b + (k > 1 && a < 0 ? (k - 1) * a : 0);
  /* the device's advance: k busy segments when it never waits (lag min(s0 + k a, c) is
  ** s0 + k a), else up to the host's clock less the end lag c */
  double dadv = s0 + k * a <= c ? (s - s0) + k * r->busy : s + k * r->host - c;
  t->host += k * r->host;
  t->idle += dadv - k * r->busy;
  t->busy += k * r->busy;
  t->dev += dadv;
}

double dlb_stream_time(double dev_s, double host_s) {
  return host_s > dev_s ? host_s : dev_s;
}

/* One op's time; see the header. */
int dlb_op_time(const dlb_roof *d, double flops, double bytes, const double *gemm,
                double *time, int *bound) {
  int st = dlb_roof_check(d);
  if (st != DLB_OK) return st;
  if (time == NULL) return dlb_fail(DLB_EINVAL, "op time: out is NULL");
  if (dlb_bad_cost(flops))
    return dlb_fail(DLB_EINVAL, "op time: flops must be >= 0 and finite, got %g", flops);
  if (dlb_bad_cost(bytes))
    return dlb_fail(DLB_EINVAL, "op time: bytes must be >= 0 and finite, got %g", bytes);
  bytes *= d->bytes_scale > 0 ? d->bytes_scale : 1;
  if (d->cache_aware && gemm != NULL && gemm[0] > 0) {
    double g;
    st = dlb_gemm_traffic_tiled(gemm[0], gemm[1], gemm[2], gemm[3], d->elem, d->cache,
                                d->tile_m, d->tile_n, &g);
    if (st != DLB_OK) return st;
    if (g > bytes) bytes = g;
  }
  int mb;
  *time = dlb_op_time_raw(d, flops, bytes, gemm, 0, &mb);
  if (bound) *bound = mb ? DLB_BOUND_MEMORY : DLB_BOUND_COMPUTE;
  if (!isfinite(*time))
    return dlb_fail(DLB_ENUMERIC, "op time: overflows (%g FLOPs, %g bytes)", flops, bytes);
  return DLB_OK;
}

/* Whole-graph roofline time. */
int dlb_roofline_time(const dlb_roof *d, double flops, double bytes, dlb_roof_result *out) {
  int st = dlb_roof_check(d);
  if (st != DLB_OK) return st;
  if (out == NULL) return dlb_fail(DLB_EINVAL, "roofline: out is NULL");
  if (dlb_bad_cost(flops))
    return dlb_fail(DLB_EINVAL, "roofline: flops must be >= 0 and finite, got %g", flops);
  if (dlb_bad_cost(bytes))
    return dlb_fail(DLB_EINVAL, "roofline: bytes must be >= 0 and finite, got %g", bytes);
  if (d->bytes_scale > 0) bytes *= d->bytes_scale;
  one(d, flops, bytes, out);
  if (!isfinite(out->time))
    return dlb_fail(DLB_ENUMERIC, "roofline: time overflows (%g FLOPs, %g bytes)", flops, bytes);
  return DLB_OK;
}

/* Per-op roofline over arrays, attn (may be NULL) marking fused attention kernels; step != 0
** when the ops are a whole training step (the step-level terms join): one call of the one
** step model (dlb_step_time, step_time.c). */
static int roofline_ops(const dlb_roof *d, const double *flops, const double *bytes,
                        const double *gemm, const char *attn, size_t n, int step,
                        double *op_time, int *op_bound, dlb_roof_result *out) {
  int st = dlb_roof_check(d);
  if (st != DLB_OK) return st;
  if (out == NULL) return dlb_fail(DLB_EINVAL, "roofline: out is NULL");
  dlb_step_ops s = { .n = n, .flops = flops, .bytes = bytes, .gemm = gemm, .attn = attn,
                     .step = step };
  return dlb_step_time(d, &s, NULL, op_time, op_bound, out);
}

/* Per-op roofline over arrays; see the header. */
int dlb_roofline_ops(const dlb_roof *d, const double *flops, const double *bytes,
                     const double *gemm, size_t n, double *op_time, int *op_bound,
                     dlb_roof_result *out) {
  return roofline_ops(d, flops, bytes, gemm, NULL, n, 0, op_time, op_bound, out);
}

/* Per-op roofline over arrays with attention marks; see the header. */
int dlb_roofline_ops_attn(const dlb_roof *d, const double *flops, const double *bytes,
                          const double *gemm, const int *attention, size_t n, double *op_time,
                          int *op_bound, dlb_roof_result *out) {
  if (attention == NULL) return roofline_ops(d, flops, bytes, gemm, NULL, n, 0, op_time, op_bound, out);
  char *attn = dlb_malloc(n ? n : 1);
  if (attn == NULL) return dlb_fail(DLB_ENOMEM, "roofline: out of memory for %zu ops", n);
  for (size_t i = 0; i < n; i++) attn[i] = attention[i] != 0;
  int st = roofline_ops(d, flops, bytes, gemm, attn, n, 0, op_time, op_bound, out);
  dlb_free(attn);
  return st;
}

/* The rule over a run of growing ops; see the header. */
int dlb_op_time_run(const dlb_roof *d, double flops0, double flops1, double bytes0,
                    double bytes1, double lo, double hi, double cap, int attention,
                    double min_time, dlb_roof_result *out) {
  int st = dlb_roof_check(d);
  if (st != DLB_OK) return st;
  if (out == NULL) return dlb_fail(DLB_EINVAL, "op time run: out is NULL");
  if (dlb_bad_cost(flops0) || dlb_bad_cost(flops1) || dlb_bad_cost(bytes0) || dlb_bad_cost(bytes1))
    return dlb_fail(DLB_EINVAL, "op time run: flops0, flops1, bytes0 and bytes1 must be >= 0 "
                    "and finite (got %g, %g, %g, %g)", flops0, flops1, bytes0, bytes1);
  if (dlb_bad_cost(lo) || !isfinite(hi) || lo != floor(lo) || hi != floor(hi))
    return dlb_fail(DLB_EINVAL, "op time run: lo and hi must be whole numbers, lo >= 0 (got %g, %g)",
                    lo, hi);
  if (hi - lo >= 2147483648.0)
    return dlb_fail(DLB_EINVAL, "op time run: %g ops is more than 2^31", hi - lo + 1);
  if (!isfinite(cap)) return dlb_fail(DLB_EINVAL, "op time run: cap must be finite (< 0: none)");
  if (dlb_bad_cost(min_time))
    return dlb_fail(DLB_EINVAL, "op time run: min_time must be >= 0 and finite, got %g", min_time);
  const double scale = d->bytes_scale > 0 ? d->bytes_scale : 1;
  double tt = 0, tf = 0, tb = 0, tmem = 0, nmem = 0;
  for (double j = lo; j <= hi; j += 1) {
    double x = cap >= 0 && j > cap ? cap : j;
    double f = flops0 + flops1 * x, b = (bytes0 + bytes1 * x) * scale;
    int mb;
    double t = dlb_op_time_raw(d, f, b, NULL, attention ? DLB_KERNEL_ATTENTION : 0, &mb);
    if (t < min_time) { t = min_time; mb = 0; }
    if (cap >= 0 && j > cap) { /* every op from here on is the same */
      double k = hi - j + 1;
      tt += t * k; tf += f * k; tb += b * k;
      if (mb) { tmem += t * k; nmem += k; }
      break;
    }
    tt += t; tf += f; tb += b;
    if (mb) { tmem += t; nmem += 1; }
  }
  return dlb_sum_result(d, tf, tb, tt, tmem, nmem, "op time run: the time", out);
}

/* The memory rule of a step; see the header. */
int dlb_step_memory(int schedule, double w, double g, double o, double act, double slack,
                    double *out) {
  if (out == NULL) return dlb_fail(DLB_EINVAL, "step memory: out is NULL");
  if (dlb_bad_cost(w) || dlb_bad_cost(g) || dlb_bad_cost(o) || dlb_bad_cost(act))
    return dlb_fail(DLB_EINVAL, "step memory: weights, gradients, optimizer and activation "
                    "bytes must be >= 0 and finite (got %g, %g, %g, %g)", w, g, o, act);
  if (dlb_bad_cost(slack))
    return dlb_fail(DLB_EINVAL, "step memory: slack must be a fraction >= 0, got %g", slack);
  if (schedule == DLB_MEM_FRAMEWORK) *out = (w + g + o + act) * (1 + slack);
  else if (schedule == DLB_MEM_MINIMAL) *out = w + o + (act > g ? act : g);
  else return dlb_fail(DLB_EINVAL, "step memory: unknown schedule %d (0 framework, 1 minimal)",
                       schedule);
  return DLB_OK;
}

int dlb_step_temporaries(double temps, double live, double *out) {
  if (out == NULL) return dlb_fail(DLB_EINVAL, "step temporaries: out is NULL");
  if (dlb_bad_cost(temps) || dlb_bad_cost(live))
    return dlb_fail(DLB_EINVAL, "step temporaries: temporaries and live bytes must be >= 0 and "
                    "finite (got %g, %g)", temps, live);
  *out = temps > live ? temps - live : 0;
  return DLB_OK;
}

/* Copy n ops' costs into a new set; NULL with a message on bad input. */
dlb_opcosts *dlb_opcosts_new(size_t n, const double *flops, const double *bytes) {
  if (n > 0 && (flops == NULL || bytes == NULL))
    return dlb_fail_null(DLB_EINVAL, "op costs: flops and bytes arrays are required");
  if (n > ((size_t)-1) / (4 * sizeof(double)))
    return dlb_fail_null(DLB_ENOMEM, "op costs: %zu ops is too many", n);
  for (size_t i = 0; i < n; i++) {
    if (dlb_bad_cost(flops[i]))
      return dlb_fail_null(DLB_EINVAL, "op costs: op %zu has flops %g (need >= 0, finite)",
                           i + 1, flops[i]);
    if (dlb_bad_cost(bytes[i]))
      return dlb_fail_null(DLB_EINVAL, "op costs: op %zu has bytes %g (need >= 0, finite)",
                           i + 1, bytes[i]);
  }
  dlb_opcosts *c = dlb_calloc(1, sizeof *c);
  if (c == NULL) return dlb_fail_null(DLB_ENOMEM, "op costs: out of memory");
  c->n = n;
  c->flops = dlb_malloc((n ? n : 1) * sizeof(double));
  c->bytes = dlb_malloc((n ? n : 1) * sizeof(double));
  if (c->flops == NULL || c->bytes == NULL) {
    dlb_opcosts_free(c);
    return dlb_fail_null(DLB_ENOMEM, "op costs: out of memory for %zu ops", n);
  }
  if (n) {
    memcpy(c->flops, flops, n * sizeof(double));
    memcpy(c->bytes, bytes, n * sizeof(double));
  }
  return c;
}

/* Free a set; NULL is a no-op. */
void dlb_opcosts_free(dlb_opcosts *c) {
  if (c == NULL) return;
  dlb_free(c->flops);
  dlb_free(c->bytes);
  dlb_free(c->gemm);
  dlb_free(c->attn);
  dlb_free(c->xops);
  dlb_free(c->xkern);
  dlb_free(c->upd);
  dlb_free(c->mark);
  dlb_free(c);
}

/* Number of ops in the set (0 for NULL). */
size_t dlb_opcosts_n(const dlb_opcosts *c) {
  return c ? c->n : 0;
}

/* Record op i's matmul shape. */
int dlb_opcosts_set_gemm(dlb_opcosts *c, size_t i, double m, double n, double k,
                         double batch) {
  if (c == NULL) return dlb_fail(DLB_EINVAL, "op costs: set is NULL");
  if (i >= c->n)
    return dlb_fail(DLB_EINVAL, "op costs: op %zu out of range (1..%zu)", i + 1, c->n);
  double tmp;
  int st = dlb_gemm_traffic(m, n, k, batch, 1, 0, &tmp); /* validates the shape */
  if (st != DLB_OK) return dlb_fail(st, "op costs: op %zu: %s", i + 1, dlb_last_error());
  if (c->gemm == NULL) {
    c->gemm = dlb_calloc(4 * c->n, sizeof(double));
    if (c->gemm == NULL) return dlb_fail(DLB_ENOMEM, "op costs: out of memory");
  }
  c->gemm[4 * i] = m;
  c->gemm[4 * i + 1] = n;
  c->gemm[4 * i + 2] = k;
  c->gemm[4 * i + 3] = batch;
  return DLB_OK;
}

/* Give op i kernel class kind (DLB_KERNEL_*; see roofline_impl.h). */
int dlb_opcosts_mark_kind(dlb_opcosts *c, size_t i, int kind) {
  if (c == NULL) return dlb_fail(DLB_EINVAL, "op costs: set is NULL");
  if (i >= c->n)
    return dlb_fail(DLB_EINVAL, "op costs: op %zu out of range (1..%zu)", i + 1, c->n);
  if (kind != DLB_KERNEL_PLAIN && kind != DLB_KERNEL_ATTENTION && kind != DLB_KERNEL_HEAD)
    return dlb_fail(DLB_EINVAL, "op costs: op %zu: unknown kernel class %d", i + 1, kind);
  if (c->attn == NULL) {
    c->attn = dlb_calloc(c->n, 1);
    if (c->attn == NULL) return dlb_fail(DLB_ENOMEM, "op costs: out of memory");
  }
  c->attn[i] = (char)kind;
  return DLB_OK;
}

/* Give op i its further host ops and kernels (roofline_graph.c, from the analysis). */
int dlb_opcosts_set_more(dlb_opcosts *c, size_t i, double ops, double kernels) {
  if (c == NULL) return dlb_fail(DLB_EINVAL, "op costs: set is NULL");
  if (i >= c->n)
    return dlb_fail(DLB_EINVAL, "op costs: op %zu out of range (1..%zu)", i + 1, c->n);
  if (dlb_bad_more(ops) || dlb_bad_more(kernels))
    return dlb_fail(DLB_EINVAL, "op costs: op %zu has %g further host ops and %g further "
                    "kernels (need whole numbers, 0 to %d)", i + 1, ops, kernels, DLB_MORE_MAX);
  if (c->xops == NULL) {
    c->xops = dlb_calloc(c->n, sizeof(double));
    c->xkern = dlb_calloc(c->n, sizeof(double));
    if (c->xops == NULL || c->xkern == NULL) {
      dlb_free(c->xops); dlb_free(c->xkern);
      c->xops = c->xkern = NULL;
      return dlb_fail(DLB_ENOMEM, "op costs: out of memory");
    }
  }
  c->xops[i] = ops;
  c->xkern[i] = kernels;
  return DLB_OK;
}

/* Mark a set as a whole training step's ops. */
int dlb_opcosts_mark_step(dlb_opcosts *c) {
  if (c == NULL) return dlb_fail(DLB_EINVAL, "op costs: set is NULL");
  c->step = 1;
  return DLB_OK;
}

/* Mark op i as one of the optimizer step's update phase (kind: DLB_UPD_*). */
int dlb_opcosts_mark_update(dlb_opcosts *c, size_t i, int kind) {
  if (c == NULL) return dlb_fail(DLB_EINVAL, "op costs: set is NULL");
  if (i >= c->n)
    return dlb_fail(DLB_EINVAL, "op costs: op %zu out of range (1..%zu)", i + 1, c->n);
  if (kind != DLB_UPD_LAUNCH && kind != DLB_UPD_OPS)
    return dlb_fail(DLB_EINVAL, "op costs: update kind %d (need DLB_UPD_LAUNCH or DLB_UPD_OPS)", kind);
  if (c->upd == NULL) {
    c->upd = dlb_calloc(c->n, 1);
    if (c->upd == NULL) return dlb_fail(DLB_ENOMEM, "op costs: out of memory");
  }
  c->upd[i] = (char)kind;
  return DLB_OK;
}

/* The update phase's tensors and chunks. */
void dlb_opcosts_set_update_tensors(dlb_opcosts *c, double tensors, double chunks) {
  c->ut = tensors, c->uc = chunks;
}

/* The optimizer step's launch model of a set; see the header. */
int dlb_opcosts_set_optim(dlb_opcosts *c, int kind, double kernels, double host_ops, int sync) {
  if (c == NULL) return dlb_fail(DLB_EINVAL, "op costs: set is NULL");
  c->has_oc = 0;
  /* the rule's own checks on one tensor, so a bad model fails here even on a set without
  ** an update phase (as the planner checks optim_impl once, planner_check.c) */
  dlb_optim_count oc;
  int st = dlb_optim_launches(kind, kernels, host_ops, sync, 1, 1, &oc);
  if (st != DLB_OK) return dlb_fail(st, "op costs: %s", dlb_last_error());
  if (kind == DLB_OPTIM_NONE || c->upd == NULL || !(c->ut > 0)) return DLB_OK;  /* no DLB_UPD_LAUNCH op */
  st = dlb_optim_launches(kind, kernels, host_ops, sync, c->ut, c->uc, &c->oc);
  if (st != DLB_OK) return dlb_fail(st, "op costs: %s", dlb_last_error());
  c->has_oc = 1;
  return DLB_OK;
}

/* The profile's phase syncs of a set; see the header. */
int dlb_opcosts_set_phase_sync(dlb_opcosts *c, int on) {
  if (c == NULL) return dlb_fail(DLB_EINVAL, "op costs: set is NULL");
  c->phase_sync = on != 0;
  return DLB_OK;
}

/* The step's scope marks of a set (roofline_graph.c: dlb_step_marks over the analysis). */
int dlb_opcosts_set_marks(dlb_opcosts *c, const unsigned char *mark) {
  if (c->mark == NULL) {
    c->mark = dlb_malloc(c->n ? c->n : 1);
    if (c->mark == NULL) return dlb_fail(DLB_ENOMEM, "op costs: out of memory");
  }
  if (c->n) memcpy(c->mark, mark, c->n);
  return DLB_OK;
}

/* Per-op roofline over a set. */
int dlb_opcosts_roofline(const dlb_opcosts *c, const dlb_roof *d, double *op_time,
                         int *op_bound, dlb_roof_result *out) {
  if (c == NULL) return dlb_fail(DLB_EINVAL, "op costs: set is NULL");
  int st = dlb_roof_check(d);
  if (st != DLB_OK) return st;
  if (out == NULL) return dlb_fail(DLB_EINVAL, "roofline: out is NULL");
  dlb_step_ops s = { .n = c->n, .flops = c->flops, .bytes = c->bytes, .gemm = c->gemm,
                     .attn = c->attn, .xops = c->xops, .xkern = c->xkern, .step = c->step,
                     .upd = c->upd,
                     .optim = c->has_oc ? &c->oc : NULL, .mark = c->mark,
                     .phase_sync = c->phase_sync };
  return dlb_step_time(d, &s, NULL, op_time, op_bound, out);
}

/* Borrowed arrays of the set. */
const double *dlb_opcosts_flops(const dlb_opcosts *c) { return c ? c->flops : NULL; }
const double *dlb_opcosts_bytes(const dlb_opcosts *c) { return c ? c->bytes : NULL; }
