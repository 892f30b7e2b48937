/*
** test_roofline.c — precisions, ridge points, whole-graph and per-op roofline times, the
** tiled-matmul traffic model and op-cost sets. Golden numbers name their source.
*/
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "roofline_impl.h"   /* dlb_timeline (internal: the planner composes with it) */
#include "check.h"
#include "graph_fixtures.h"

/* Hestness et al. Table 4: 15.67 TFLOP/s fp32, 898 GB/s, 6 MB cache; 80% / 70% (5.2). */
static dlb_roof table4(void) {
  dlb_roof d = { .peak = 15.67e12, .bw = 898e9, .flops_eff = 0.8, .bw_eff = 0.7, .cache = 6e6,
                 .elem = 4, .cache_aware = 0, .bytes_scale = 1 };
  return d;
}

static void test_precisions(void) {
  CHECK(dlb_precision_id("fp32") == DLB_PREC_FP32);
  CHECK(dlb_precision_id("int8") == DLB_PREC_INT8);
  CHECK(dlb_precision_id("fp12") == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "fp12") != NULL);
  CHECK(strstr(dlb_last_error(), "bf16") != NULL); /* lists the valid names */
  CHECK(dlb_precision_id(NULL) == DLB_EINVAL);
  CHECK(strcmp(dlb_precision_name(DLB_PREC_BF16), "bf16") == 0);
  CHECK(dlb_precision_name(DLB_PREC_COUNT) == NULL);
  CHECK(dlb_precision_bytes(DLB_PREC_FP64) == 8);
  CHECK(dlb_precision_bytes(DLB_PREC_TF32) == 4); /* tf32 is stored as fp32 */
  CHECK(dlb_precision_bytes(DLB_PREC_FP16) == 2);
  CHECK(dlb_precision_bytes(DLB_PREC_FP8) == 1);
  CHECK(dlb_precision_bytes(-1) == 0);
}

/* Hestness et al. 5.2: the Table 4 device's ridge is 17.4 FLOP/B at peak, 19.9 at
** achievable rates (0.8 x 15.67e12) / (0.7 x 898e9) = 19.94. */
static void test_ridge(void) {
  dlb_roof d = table4();
  double r;
  CHECK(dlb_roof_ridge(&d, 0, &r) == DLB_OK);
  CHECK_NEAR(r, 17.4, 0.003);
  CHECK_NEAR(r, 15.67e12 / 898e9, 1e-12);
  CHECK(dlb_roof_ridge(&d, 1, &r) == DLB_OK);
  CHECK_NEAR(r, 19.9, 0.003);
  double a;
  CHECK(dlb_roof_attainable(&d, 1, &a) == DLB_OK); /* memory side: 1 x 898e9 x 0.7 */
  CHECK_NEAR(a, 628.6e9, 1e-12);
  CHECK(dlb_roof_attainable(&d, 1000, &a) == DLB_OK); /* compute side: 0.8 x peak */
  CHECK_NEAR(a, 12.536e12, 1e-12);
  CHECK(dlb_roof_attainable(&d, -1, &a) == DLB_EINVAL);
}

static void test_check(void) {
  dlb_roof d = table4();
  double r;
  d.bw = -898e9;
  CHECK(dlb_roof_ridge(&d, 0, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "bandwidth") != NULL);
  d = table4(); d.flops_eff = 1.5;
  CHECK(dlb_roof_check(&d) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "flops_eff") != NULL);
  d = table4(); d.peak = NAN;
  CHECK(dlb_roof_check(&d) == DLB_EINVAL);
  d = table4(); d.cache = -1;
  CHECK(dlb_roof_check(&d) == DLB_EINVAL);
  CHECK(dlb_roof_check(NULL) == DLB_EINVAL);
  /* attn_eff: the fused attention kernels' fraction of peak, [0, 1], 0 = off */
  d = table4(); d.attn_eff = 1.5;
  CHECK(dlb_roof_check(&d) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "attn_eff") != NULL);
  d = table4(); d.attn_eff = NAN;
  CHECK(dlb_roof_check(&d) == DLB_EINVAL);
  d = table4(); d.attn_eff = 0.34;
  CHECK(dlb_roof_check(&d) == DLB_OK);
  dlb_roof_init(&d);
  CHECK(d.attn_eff == 0);
}

/* Hestness et al. 5.2.2 on Table 3's word LM row, from Table 2's formulas (hand
** computation): p = 23.8e9, b = 128, c = 481 b p FLOPs, a = p (1755 + 30784 b / sqrt p)
** bytes; step = max(c / (0.8 x 15.67e12), a / (0.7 x 898e9)); Table 3 prints 115 s. */
static void test_whole_graph(void) {
  dlb_roof d = table4();
  double p = 23.8e9, b = 128;
  double c = 481 * b * p, a = p * (1755 + 30784 * b / sqrt(p));
  dlb_roof_result r;
  CHECK(dlb_roofline_time(&d, c, a, &r) == DLB_OK);
  CHECK(r.bound == DLB_BOUND_COMPUTE);
  CHECK_NEAR(r.time, c / (0.8 * 15.67e12), 1e-12);
  CHECK_NEAR(r.time, 115, 0.03); /* Table 3: 115 s, within 3% */
  CHECK_NEAR(r.util, 0.8, 1e-12); /* compute-bound: utilisation = flops_eff */
  CHECK(dlb_roofline_time(&d, 1e9, 1e9, &r) == DLB_OK); /* intensity 1 < ridge */
  CHECK(r.bound == DLB_BOUND_MEMORY);
  CHECK_NEAR(r.time, 1e9 / (0.7 * 898e9), 1e-12);
  CHECK_NEAR(r.util, 1e9 / r.time / 15.67e12, 1e-12);
  d.bytes_scale = 0.5; /* fp32-counted bytes timed at fp16 */
  CHECK(dlb_roofline_time(&d, 1e9, 1e9, &r) == DLB_OK);
  CHECK_NEAR(r.time, 0.5e9 / (0.7 * 898e9), 1e-12);
  CHECK(r.bytes == 0.5e9);
  d.bytes_scale = 0; /* 0 means 1 */
  CHECK(dlb_roofline_time(&d, 1e9, 1e9, &r) == DLB_OK);
  CHECK(r.bytes == 1e9);
  d.bytes_scale = -1;
  CHECK(dlb_roofline_time(&d, 1e9, 1e9, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "bytes_scale") != NULL);
  d.bytes_scale = 1;
  CHECK(dlb_roofline_time(&d, 0, 0, &r) == DLB_OK);
  CHECK(r.time == 0 && r.util == 0);
  CHECK(dlb_roofline_time(&d, -1, 0, &r) == DLB_EINVAL);
  CHECK(dlb_roofline_time(&d, 1, INFINITY, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "bytes") != NULL);
}

/* Per op: each op at its own bound; the sum is never below the whole-graph time. */
static void test_per_op(void) {
  dlb_roof d = table4();
  /* op 1: 1e12 FLOPs, 1e9 B (compute); op 2: 1e9 FLOPs, 1e10 B (memory) */
  double f[2] = { 1e12, 1e9 }, by[2] = { 1e9, 1e10 }, t[2];
  int bd[2];
  dlb_roof_result r, w;
  CHECK(dlb_roofline_ops(&d, f, by, NULL, 2, t, bd, &r) == DLB_OK);
  CHECK(bd[0] == DLB_BOUND_COMPUTE && bd[1] == DLB_BOUND_MEMORY);
  CHECK_NEAR(t[0], 1e12 / 12.536e12, 1e-12);
  CHECK_NEAR(t[1], 1e10 / 628.6e9, 1e-12);
  CHECK_NEAR(r.time, t[0] + t[1], 1e-12);
  CHECK(r.n_memory_bound == 1);
  CHECK_NEAR(r.memory_bound_time, t[1], 1e-12);
  CHECK(dlb_roofline_time(&d, f[0] + f[1], by[0] + by[1], &w) == DLB_OK);
  CHECK(r.time >= w.time);
  CHECK_NEAR(r.util, (f[0] + f[1]) / r.time / 15.67e12, 1e-12);
  by[1] = -1;
  CHECK(dlb_roofline_ops(&d, f, by, NULL, 2, t, bd, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "op 2") != NULL);
  CHECK(dlb_roofline_ops(&d, NULL, NULL, NULL, 0, NULL, NULL, &r) == DLB_OK);
  CHECK(r.time == 0);
}

/* Tiled matmul traffic, hand-derived. fp32 (4 B), cache 6e6 B: tile side
** t = floor(sqrt(6e6 / 12)) = 707. */
static void test_gemm_traffic(void) {
  double out;
  /* small: 64 x 64 x 64 fits -> algorithmic 4 x 3 x 4096 B */
  CHECK(dlb_gemm_traffic(64, 64, 64, 1, 4, 6e6, &out) == DLB_OK);
  CHECK_NEAR(out, 4.0 * 3 * 4096, 1e-12);
  /* m = 128, k = n = 8192: A = 4 MiB > cache / 2, B = 256 MiB: tiled.
  ** A read ceil(8192 / 707) = 12 times, B once (ceil(128 / 707) = 1), C written once. */
  CHECK(dlb_gemm_traffic(128, 8192, 8192, 1, 4, 6e6, &out) == DLB_OK);
  CHECK_NEAR(out, 4.0 * (128.0 * 8192 * 12 + 8192.0 * 8192 + 128.0 * 8192), 1e-12);
  /* batch multiplies; one operand resident in half the cache -> algorithmic */
  CHECK(dlb_gemm_traffic(16, 4096, 4096, 3, 4, 6e6, &out) == DLB_OK);
  CHECK_NEAR(out, 3 * 4.0 * (16.0 * 4096 + 4096.0 * 4096 + 16.0 * 4096), 1e-12);
  /* no cache: tile side 1, every element re-streamed: m k n + k n m + m n */
  CHECK(dlb_gemm_traffic(10, 20, 30, 1, 2, 0, &out) == DLB_OK);
  CHECK_NEAR(out, 2.0 * (300 * 20 + 600 * 10 + 200), 1e-12);
  CHECK(dlb_gemm_traffic(0, 1, 1, 1, 4, 1, &out) == DLB_EINVAL);
  CHECK(dlb_gemm_traffic(1, 1, 1, 1, 4, -1, &out) == DLB_EINVAL);
  CHECK(dlb_gemm_traffic(1, 1, 1, NAN, 4, 1, &out) == DLB_EINVAL);
  /* monotone: more cache never moves more bytes (randomized) */
  srand(7);
  for (int i = 0; i < 2000; i++) {
    double m = 1 + rand() % 5000, n = 1 + rand() % 5000, k = 1 + rand() % 5000;
    double c1 = rand() % 20000000, c2 = c1 * (1 + (rand() % 100) / 10.0), o1, o2;
    CHECK(dlb_gemm_traffic(m, n, k, 1, 4, c1, &o1) == DLB_OK);
    CHECK(dlb_gemm_traffic(m, n, k, 1, 4, c2, &o2) == DLB_OK);
    CHECK(o2 <= o1 * (1 + 1e-12));
    CHECK(o2 >= 4 * (m * k + k * n + m * n) * (1 - 1e-12)); /* never below algorithmic */
  }
}

/* Given output tiles (Hestness 6.1's sensitivity), hand-derived: A moves ceil(n / tn)
** times, B ceil(m / tm) times, C once. */
static void test_gemm_traffic_tiled(void) {
  double out = 0, sq = 0;
  /* m = 128, n = k = 8192, 128 x 128 tiles: A 128 x 8192 moves 64 times, B once, C once */
  CHECK(dlb_gemm_traffic_tiled(128, 8192, 8192, 1, 4, 6e6, 128, 128, &out) == DLB_OK);
  CHECK(out == 4.0 * (128.0 * 8192 * 64 + 8192.0 * 8192 + 128.0 * 8192));
  /* rectangular 100 x 50 tiles over a 300 x 200 x 1000 matmul, no cache: A 4x, B 3x */
  CHECK(dlb_gemm_traffic_tiled(300, 200, 1000, 2, 2, 0, 100, 50, &out) == DLB_OK);
  CHECK(out == 2 * 2.0 * (300.0 * 1000 * 4 + 1000.0 * 200 * 3 + 300.0 * 200));
  /* the residency shortcut still applies: a small B in half the cache */
  CHECK(dlb_gemm_traffic_tiled(4096, 16, 4096, 1, 4, 6e6, 8, 8, &out) == DLB_OK);
  CHECK(out == 4.0 * (4096.0 * 4096 + 4096.0 * 16 + 4096.0 * 16));
  /* tiles 0, 0 are the square tiles from the cache */
  CHECK(dlb_gemm_traffic_tiled(128, 8192, 8192, 1, 4, 6e6, 0, 0, &out) == DLB_OK);
  CHECK(dlb_gemm_traffic(128, 8192, 8192, 1, 4, 6e6, &sq) == DLB_OK);
  CHECK(out == sq);
  /* smaller tiles never move fewer bytes (randomized) */
  srand(7);
  for (int i = 0; i < 500; i++) {
    double m = 1 + rand() % 5000, n = 1 + rand() % 5000, k = 1 + rand() % 5000;
    double t1 = 1 + rand() % 300, t2 = t1 + rand() % 300, o1, o2;
    CHECK(dlb_gemm_traffic_tiled(m, n, k, 1, 4, 0, t1, t1, &o1) == DLB_OK);
    CHECK(dlb_gemm_traffic_tiled(m, n, k, 1, 4, 0, t2, t2, &o2) == DLB_OK);
    CHECK(o1 >= o2);
    CHECK(o2 >= 4 * (m * k + k * n + m * n)); /* never below algorithmic */
  }
  CHECK(dlb_gemm_traffic_tiled(1, 1, 1, 1, 4, 0, 0.5, 0.5, &out) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "tiles") != NULL);
  CHECK(dlb_gemm_traffic_tiled(1, 1, 1, 1, 4, 0, 8, 0, &out) == DLB_EINVAL);
  CHECK(dlb_gemm_traffic_tiled(1, 1, 1, 1, 4, 0, NAN, NAN, &out) == DLB_EINVAL);
  dlb_roof d = table4();
  d.tile_m = -3;
  dlb_roof_result r;
  CHECK(dlb_roofline_time(&d, 1, 1, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "tiles") != NULL);
}

static void test_cache_aware_ops(void) {
  dlb_roof d = table4();
  double f[2] = { 2.0 * 128 * 8192 * 8192, 1e6 };
  double by[2] = { 4.0 * (128.0 * 8192 + 8192.0 * 8192 + 128.0 * 8192), 1e6 };
  double g[8] = { 128, 8192, 8192, 1, 0, 0, 0, 0 };
  dlb_roof_result r0, r1;
  CHECK(dlb_roofline_ops(&d, f, by, g, 2, NULL, NULL, &r0) == DLB_OK); /* model off */
  d.cache_aware = 1;
  CHECK(dlb_roofline_ops(&d, f, by, g, 2, NULL, NULL, &r1) == DLB_OK);
  double extra = 4.0 * 128 * 8192 * 11; /* A re-read 11 more times (see above) */
  CHECK_NEAR(r1.bytes - r0.bytes, extra, 1e-9);
  CHECK(r1.time >= r0.time);
  g[0] = 128; g[3] = -1; /* bad batch is reported with the op */
  CHECK(dlb_roofline_ops(&d, f, by, g, 2, NULL, NULL, &r1) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "op 1") != NULL);
}

static void test_opcosts(void) {
  enum { N = 1000 };
  double f[N], b[N], t1[N], t2[N];
  srand(11);
  for (int i = 0; i < N; i++) {
    f[i] = (rand() % 1000000) * 1e6;
    b[i] = (rand() % 1000000) * 1e3;
  }
  dlb_opcosts *c = dlb_opcosts_new(N, f, b);
  CHECK(c != NULL);
  CHECK(dlb_opcosts_n(c) == N);
  dlb_roof d = table4();
  dlb_roof_result r1, r2;
  CHECK(dlb_opcosts_roofline(c, &d, t1, NULL, &r1) == DLB_OK);
  CHECK(dlb_roofline_ops(&d, f, b, NULL, N, t2, NULL, &r2) == DLB_OK);
  CHECK(r1.time == r2.time && memcmp(t1, t2, sizeof t1) == 0);
  CHECK(dlb_opcosts_set_gemm(c, N, 1, 1, 1, 1) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "out of range") != NULL);
  CHECK(dlb_opcosts_set_gemm(c, 0, 1, -1, 1, 1) == DLB_EINVAL);
  /* a message wrapping the previous one (dlb_fail(.., "%s", dlb_last_error())) says each
  ** prefix once: it used to read "op costs: op 1: op costs: op 1:  n, k must ..." */
  CHECK(strcmp(dlb_last_error(),
               "op costs: op 1: gemm traffic: m, n, k must be positive, got 1, -1, 1") == 0);
  CHECK(dlb_opcosts_set_gemm(c, 0, 4096, 4096, 4096, 1) == DLB_OK);
  CHECK(dlb_opcosts_flops(c)[5] == f[5]);
  dlb_opcosts_free(c);
  dlb_opcosts_free(NULL);
  f[3] = NAN;
  CHECK(dlb_opcosts_new(N, f, b) == NULL);
  CHECK(strstr(dlb_last_error(), "op 4") != NULL);
  CHECK(dlb_opcosts_new(3, NULL, b) == NULL);
}

/* The output layer's GEMMs (graphs/step/output_layer.c, DLB_KERNEL_HEAD) at head_peak: an MLP
** 784-1024-10 with softmax cross-entropy at b = 32 (test_graph.c's), fp32 SGD. fc2 (its
** logits) and its two backward matmuls are the output layer; fc1 is not. On a device without a
** matmul model, bandwidth high enough that every GEMM is compute-bound and no kernel overhead,
** a GEMM takes F / (peak x flops_eff); with head_peak = peak / 2 the three take twice as long
** (hand derivation: fc2 2 x 32 x 1024 x 10 = 655360 FLOPs each way, dW the same), every other
** op as it was; head_peak 0 is the step's peak; a negative one is refused. */
static void test_head_peak(void) {
  dlb_graph *g = dlb_graph_new("mlp");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "32", "784", 0, 0);
  int w1 = T(g, "w1", DLB_ROLE_WEIGHT, 0, 2, "784", "1024", 0, 0);
  int w2 = T(g, "w2", DLB_ROLE_WEIGHT, 0, 2, "1024", "10", 0, 0);
  int y = T(g, "y", DLB_ROLE_LABEL, DLB_DT_INT32, 1, "32", 0, 0, 0);
  int h = OP(g, "relu", NULL, OP(g, "matmul", "fc1", x, w1, 0, NULL), -1, 0, NULL);
  dlb_graph_set_loss(g, OP(g, "softmax_xent", "loss", OP(g, "matmul", "fc2", h, w2, 0, NULL), y, 0, NULL));
  dlb_analysis *a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a != NULL);
  size_t n = dlb_analysis_nops(a);
  const int *k = dlb_analysis_op_kernel(a);
  const double *F = dlb_analysis_op_flops(a);
  int heads = 0;
  char name[64];
  for (size_t i = 0; i < n; i++) {
    dlb_analysis_op_name(a, i, name, sizeof name);
    int is_fc2 = strncmp(name, "fc2", 3) == 0 && dlb_analysis_op_type(a)[i] == dlb_graph_op_type("matmul");
    CHECK((k[i] == DLB_KERNEL_HEAD) == is_fc2);
    if (k[i] == DLB_KERNEL_HEAD) {
      heads++;
      CHECK(F[i] == 655360);
    }
  }
  CHECK(heads == 3);
  dlb_opcosts *c = dlb_opcosts_from_analysis(a);
  CHECK(c != NULL);
  dlb_roof d = { .peak = 1e12, .bw = 1e18, .flops_eff = 0.8, .bw_eff = 0.7, .elem = 4, .bytes_scale = 1 };
  double *t0 = malloc(n * sizeof *t0), *t1 = malloc(n * sizeof *t1);
  dlb_roof_result r0, r1;
  CHECK(dlb_opcosts_roofline(c, &d, t0, NULL, &r0) == DLB_OK);
  d.head_peak = d.peak / 2;
  CHECK(dlb_opcosts_roofline(c, &d, t1, NULL, &r1) == DLB_OK);
  for (size_t i = 0; i < n; i++) {
    if (k[i] == DLB_KERNEL_HEAD) {
      CHECK_NEAR(t0[i], 655360 / (1e12 * 0.8), 1e-12);
      CHECK_NEAR(t1[i], 2 * t0[i], 1e-12);
    } else {
      CHECK(t1[i] == t0[i]);
    }
  }
  CHECK_NEAR(r1.time - r0.time, 3 * 655360 / (1e12 * 0.8), 1e-9);
  CHECK(r1.util < r0.util); /* utilisation stays at the step's peak */
  d.head_peak = -1;
  CHECK(dlb_opcosts_roofline(c, &d, t1, NULL, &r1) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "head_peak must be") != NULL);
  (void)INFER;   /* graph_fixtures.h's inference options: not used here */
  free(t0); free(t1);
  dlb_opcosts_free(c);
  dlb_analysis_free(a);
  dlb_graph_free(g);
}

/* Randomized bad and extreme inputs: every call returns a status, never a NaN result. */
static void test_fuzz(void) {
  const double vals[] = { 0, -1, 1, 0.5, 1e-300, 1e300, 3, 707, 4096, NAN, INFINITY, -INFINITY,
                          6e6, 1e9 };
  const int nv = (int)(sizeof vals / sizeof vals[0]);
  srand(99);
  for (int i = 0; i < 20000; i++) {
    double a[6], out = -1;
    for (int j = 0; j < 6; j++) a[j] = vals[rand() % nv];
    int st = dlb_gemm_traffic(a[0], a[1], a[2], a[3], a[4], a[5], &out);
    CHECK(st == DLB_OK || st == DLB_EINVAL || st == DLB_ENUMERIC);
    if (st == DLB_OK) CHECK(isfinite(out) && out >= 0);
    double tm = vals[rand() % nv], tn = rand() % 2 ? tm : vals[rand() % nv];
    st = dlb_gemm_traffic_tiled(a[0], a[1], a[2], a[3], a[4], a[5], tm, tn, &out);
    CHECK(st == DLB_OK || st == DLB_EINVAL || st == DLB_ENUMERIC);
    if (st == DLB_OK) CHECK(isfinite(out) && out >= 0);
    dlb_roof d = { .peak = a[0], .bw = a[1], .flops_eff = a[2], .bw_eff = a[3], .cache = a[4],
                   .elem = a[5], .cache_aware = rand() % 2, .bytes_scale = vals[rand() % nv],
                   .tile_m = tm, .tile_n = tn };
    dlb_roof_result r;
    double f[2] = { vals[rand() % nv], vals[rand() % nv] };
    double b[2] = { vals[rand() % nv], vals[rand() % nv] };
    double g[8] = { a[0], a[1], a[2], a[3], 0, 0, 0, 0 };
    st = dlb_roofline_ops(&d, f, b, g, 2, NULL, NULL, &r);
    CHECK(st == DLB_OK || st == DLB_EINVAL || st == DLB_ENUMERIC);
    if (st == DLB_OK) CHECK(isfinite(r.time) && r.time >= 0 && isfinite(r.util) && r.util >= 0);
  }
}

/* The host-side timeline of the per-op rule (issue [19], dlb_timeline): the host issues op
** after op at host_op each; the device starts an op when it is free and the op is issued.
** Four tiny ops (1e3 FLOPs: 1e3 / (0.8 x 1e12) s each) at host_op 10 us: each waits for its
** issue, time = 4 x 10 us + the last op; idle = time - busy. A 100 us op first lets the host
** run ahead: only the first issue is waited for. */
static void test_host_timeline(void) {
  dlb_roof d;
  dlb_roof_init(&d);
  d.peak = 1e12; d.bw = 1e12; d.host_op = 10e-6;
  double tiny = 1e3 / (0.8 * 1e12), big = 100e-6;
  double f4[4] = { 1e3, 1e3, 1e3, 1e3 }, b4[4] = { 0, 0, 0, 0 };
  dlb_roof_result r;
  CHECK(dlb_roofline_ops(&d, f4, b4, NULL, 4, NULL, NULL, &r) == DLB_OK);
  CHECK_NEAR(r.time, 4 * 10e-6 + tiny, 1e-15);
  CHECK_NEAR(r.host_idle, 4 * 10e-6 + tiny - 4 * tiny, 1e-15);
  CHECK_NEAR(r.host_time, 4 * 10e-6, 1e-15);
  double f2[4] = { big * 0.8 * 1e12, 1e3, 1e3, 1e3 };
  CHECK(dlb_roofline_ops(&d, f2, b4, NULL, 4, NULL, NULL, &r) == DLB_OK);
  CHECK_NEAR(r.time, 10e-6 + big + 3 * tiny, 1e-15);
  CHECK_NEAR(r.host_idle, 10e-6, 1e-15);
  /* without a host model the times add up, as before */
  d.host_op = 0;
  CHECK(dlb_roofline_ops(&d, f4, b4, NULL, 4, NULL, NULL, &r) == DLB_OK);
  CHECK_NEAR(r.time, 4 * tiny, 1e-18);
  CHECK(r.host_idle == 0);
  /* an op doing no work is not issued */
  d.host_op = 10e-6;
  double z[2] = { 0, 0 };
  CHECK(dlb_roofline_ops(&d, z, z, NULL, 2, NULL, NULL, &r) == DLB_OK);
  CHECK(r.time == 0);
  d.host_op = -1;
  CHECK(dlb_roofline_ops(&d, f4, b4, NULL, 4, NULL, NULL, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "host_op") != NULL);
}

/* An op with further host ops and kernels (dlb_step_ops.xops, xkern: a pass's eager ops on a
** graph op, graphs/step/fusion_loss.c): 2 further host ops and 4 further kernels, so 3 host
** ops and 5 kernels. By hand (peak 1e12 at flops_eff 0.8, host_op 10 us, kernel_overhead
** 2 us, F FLOPs): the device 5 kernels of F / 5 each, F / 0.8e12 + 5 x 2 us; the host 3 x 10 us
** + (5 - 3) x 2 us = 34 us (dlb_launch_host: the optimizer launch model's rule), issued kernel
** by kernel (6.8 us each): a short op ends one device share after the host's 34 us. */
static void test_more_ops(void) {
  dlb_roof d;
  dlb_roof_init(&d);
  d.peak = 1e12; d.bw = 1e12; d.host_op = 10e-6; d.kernel_overhead = 2e-6;
  double f = 1e3, b = 0, xo = 2, xk = 4, t = f / 0.8e12 + 5 * 2e-6;
  dlb_step_ops s = { .n = 1, .flops = &f, .bytes = &b, .xops = &xo, .xkern = &xk };
  dlb_roof_result r;
  CHECK(dlb_step_time(&d, &s, NULL, NULL, NULL, &r) == DLB_OK);
  CHECK_NEAR(r.host_time, 34e-6, 1e-15);
  CHECK_NEAR(r.time, 34e-6 + t / 5, 1e-15);
  CHECK_NEAR(r.time - r.host_idle, t, 1e-15);   /* busy: the five kernels */
  /* no host model: the kernels' device seconds only */
  d.host_op = 0;
  CHECK(dlb_step_time(&d, &s, NULL, NULL, NULL, &r) == DLB_OK);
  CHECK_NEAR(r.time, t, 1e-15);
  CHECK(r.host_time == 0);
  /* none: one host op, one kernel, as before */
  d.host_op = 10e-6;
  s.xops = s.xkern = NULL;
  CHECK(dlb_step_time(&d, &s, NULL, NULL, NULL, &r) == DLB_OK);
  CHECK_NEAR(r.host_time, 10e-6, 1e-15);
  CHECK_NEAR(r.time, 10e-6 + f / 0.8e12 + 2e-6, 1e-15);
  /* a bad count is named */
  xo = 1.5;
  s.xops = &xo, s.xkern = &xk;
  CHECK(dlb_step_time(&d, &s, NULL, NULL, NULL, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "further host ops") != NULL);
  xo = 0, xk = 2e6;   /* past DLB_MORE_MAX: refused, not issued kernel by kernel */
  CHECK(dlb_step_time(&d, &s, NULL, NULL, NULL, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "0 to 1000000") != NULL);
}

/* A segment of ops through the timeline k times in one call (dlb_timeline_seg, the
** planner's composition of its layers) = the same ops op by op (dlb_timeline_op), from any
** state: a sync point, a device running behind (lag < 0), an idle device the host is ahead
** of (lag > 0). Random segments of 1-6 ops (device 0-3 us, host 0-2 us, some host-only or
** device-only), k = 1..5 repetitions, 2000 cases: every clock within 1e-12 relative. By hand:
** one op (t 3 us, h 1 us) twice from a sync point: the device waits 1 us, then runs them back
** to back (the second is issued while the first runs): dev 7 us, host 2 us, idle 1 us. */
static void test_timeline_seg(void) {
  dlb_timeline z = { 0, 0, 0, 0 }, one = z, g = z;
  dlb_timeline_op(&one, 3e-6, 1e-6);
  dlb_timeline_seg(&g, &one, 2);
  CHECK_NEAR(g.dev, 7e-6, 1e-12);
  CHECK_NEAR(g.host, 2e-6, 1e-12);
  CHECK_NEAR(g.idle, 1e-6, 1e-12);
  CHECK_NEAR(g.busy, 6e-6, 1e-12);
  dlb_timeline_seg(&g, &one, 0);   /* none: nothing moves */
  CHECK(g.dev == 7e-6 || fabs(g.dev - 7e-6) < 1e-18);
  unsigned int seed = 12345;
#define RND() ((seed = seed * 1103515245u + 12345u), (double)((seed >> 8) % 10000) / 10000.0)
  for (int c = 0; c < 2000; c++) {
    int n = 1 + (int)(RND() * 6);
    double t[6], h[6];
    for (int i = 0; i < n; i++) {
      double r = RND();
      t[i] = r < 0.15 ? 0 : 3e-6 * RND();
      h[i] = r > 0.85 ? 0 : 2e-6 * RND();
    }
    double k = 1 + (int)(RND() * 5);
    dlb_timeline start = { 0, 0, 0, 0 };
    double r = RND();
    if (r < 0.3) { start.host = 5e-6; start.dev = 5e-6 + 4e-6 * RND(); }      /* lag < 0 */
    else if (r < 0.6) { start.dev = 5e-6; start.host = 5e-6 + 4e-6 * RND(); } /* lag > 0 */
    dlb_timeline seg = z, a = start, b = start;
    for (int i = 0; i < n; i++) dlb_timeline_op(&seg, t[i], h[i]);
    for (int j = 0; j < (int)k; j++)
      for (int i = 0; i < n; i++) dlb_timeline_op(&a, t[i], h[i]);
    dlb_timeline_seg(&b, &seg, k);
    double sc = a.dev + a.host;
    CHECK(fabs(a.dev - b.dev) <= 1e-12 * sc && fabs(a.host - b.host) <= 1e-12 * sc);
    CHECK(fabs(a.idle - b.idle) <= 1e-12 * sc && fabs(a.busy - b.busy) <= 1e-12 * sc);
  }
#undef RND
}

/* The optimizer step's launches (graphs/hw/optim_launch.c). Counts from the sources:
** pytorch/pytorch aten/src/ATen/native/cuda/MultiTensorApply.cuh @ 4b6fea91c74c (tensor slots
** {110, 64, 48, 36, 30} by depth, {96, 64, 48, 36, 30} with a scalar list, 320 blocks, 65536
** elements a chunk) and torch/optim/adamw.py @ c15fcf4eb79d (_multi_tensor_adamw's eight
** foreach ops at depths 1, 2, 1, 3, 2, 1 (scalar list), 1, 3 (scalar list); _fused_adamw's
** _foreach_add_ of the device steps and _fused_adamw_ at depth 4). */
static void test_optim_launches(void) {
  dlb_optim_count c;
  CHECK(dlb_optim_chunk() == 65536);
  /* 100 one-chunk tensors: ceil(100 / slots) */
  CHECK(dlb_optim_mta_launches(100, 100, 1, 0) == 1);   /* 110 slots */
  CHECK(dlb_optim_mta_launches(100, 100, 1, 1) == 2);   /* 96 with a scalar list */
  CHECK(dlb_optim_mta_launches(100, 100, 4, 0) == 3);   /* 36 */
  /* one tensor of 1000 chunks: ceil(1000 / 320) */
  CHECK(dlb_optim_mta_launches(1, 1000, 4, 0) == 4);
  CHECK(dlb_optim_mta_launches(1, 1000, 6, 0) == -1);   /* depth 1..5 */
  /* foreach over 100 one-chunk tensors: 1 + 2 + 1 + 3 + 2 + 2 + 1 + 3 = 15 launches; the 8
  ** foreach ops and the CPU step increment dispatched */
  CHECK(dlb_optim_launches(DLB_OPTIM_FOREACH, 0, 0, 0, 100, 100, &c) == DLB_OK);
  CHECK(c.launches == 15 && c.dispatches == 9 && c.syncs == 0);
  /* torch fused: ceil(100 / 110) + ceil(100 / 36) = 1 + 3, two dispatches */
  CHECK(dlb_optim_launches(DLB_OPTIM_TORCH_FUSED, 0, 0, 0, 100, 100, &c) == DLB_OK);
  CHECK(c.launches == 4 && c.dispatches == 2);
  /* apex over 100 tensors of 1000 chunks: max(ceil(100 / 36), ceil(1000 / 320)) = 4 */
  CHECK(dlb_optim_launches(DLB_OPTIM_APEX, 0, 0, 0, 100, 1000, &c) == DLB_OK);
  CHECK(c.launches == 4 && c.dispatches == 1);
  /* DeepSpeed's flat partition: the same chunks as one tensor, ceil(1000 / 320) */
  CHECK(dlb_optim_launches(DLB_OPTIM_FLAT, 0, 0, 0, 1, 1000, &c) == DLB_OK);
  CHECK(c.launches == 4 && c.dispatches == 1);
  /* Composer's loop: 10 kernels, 11 host ops, one sync per tensor */
  CHECK(dlb_optim_launches(DLB_OPTIM_LOOP, 10, 11, 1, 5, 7, &c) == DLB_OK);
  CHECK(c.launches == 50 && c.dispatches == 55 && c.syncs == 5);
  CHECK(dlb_optim_launches(DLB_OPTIM_PER_TENSOR, 0, 0, 0, 5, 7, &c) == DLB_OK);
  CHECK(c.launches == 5 && c.dispatches == 5);
  /* bad input names itself */
  CHECK(dlb_optim_launches(9, 0, 0, 0, 5, 7, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "unknown implementation 9") != NULL);
  CHECK(dlb_optim_launches(DLB_OPTIM_APEX, 0, 0, 0, 5, 4, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "chunks") != NULL);
  CHECK(dlb_optim_launches(DLB_OPTIM_LOOP, 0, 0, 0, 5, 5, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "kernels per tensor") != NULL);
}

int main(void) {
  RUN(test_optim_launches);
  RUN(test_host_timeline);
  RUN(test_more_ops);
  RUN(test_timeline_seg);
  RUN(test_precisions);
  RUN(test_ridge);
  RUN(test_check);
  RUN(test_whole_graph);
  RUN(test_per_op);
  RUN(test_gemm_traffic);
  RUN(test_gemm_traffic_tiled);
  RUN(test_cache_aware_ops);
  RUN(test_opcosts);
  RUN(test_head_peak);
  RUN(test_fuzz);
  return check_done();
}
