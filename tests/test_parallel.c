/*
** test_parallel.c — data parallelism, pipeline partition and bubbles, the 3-D plan
** evaluation and search, and Amdahl fits; every golden number derived in its comment.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"
#include "parallel_fixtures.h"
#include "planner_impl.h"   /* dlb_par_hidden: the overlap rule, checked by hand */

/* The per-op rule on one op without a matmul shape. */
static double optime(const dlb_roof *d, double flops, double bytes) {
  double t = -1;
  CHECK(dlb_op_time(d, flops, bytes, NULL, &t, NULL) == DLB_OK);
  return t;
}

/* Roofline: max(c / (0.8 x_c), a / (0.7 x_a)) (Hestness sec. 5.2.2). Table 3's word LM
** step: 1444 TFLOPs, 41.5 TB -> max(115.19, 66.02) = 115 s. */
static void roofline(void) {
  CHECK_NEAR(optime(&V100, 1444e12, 41.5e12), 1444e12 / (0.8 * 15.67e12), 1e-12);
  CHECK_NEAR(optime(&V100, 1444e12, 41.5e12), 115.19, 1e-3);
  CHECK_NEAR(optime(&V100, 1e9, 1e12), 1e12 / (0.7 * 898e9), 1e-12);
}

static void data_parallel(void) {
  dlb_par_work w;
  memset(&w, 0, sizeof w);
  w.flops_sample = 1e12;
  w.grad_bytes = 4e9;
  w.mem_fixed = 16e9;
  w.mem_sample = 0.1e9;
  w.samples_epoch = 1e6;
  dlb_par_cluster cl = flat(56e9, 0);
  dlb_par_dp_opts o;
  memset(&o, 0, sizeof o);
  o.workers = 4;
  o.subbatch = 128;
  dlb_par_dp_result r;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  double tc = 128e12 / (0.8 * 15.67e12);
  double ar = 2 * 3.0 / 4 * 4e9 / 56e9;      /* ring, Patarasuk & Yuan */
  CHECK_NEAR(r.compute, tc, 1e-12);
  CHECK_NEAR(r.comm, ar, 1e-12);
  CHECK_NEAR(r.exposed, ar, 1e-12);         /* one bucket: nothing overlaps */
  CHECK_NEAR(r.step, tc + ar, 1e-12);
  CHECK_NEAR(r.batch, 512, 0);
  CHECK_NEAR(r.throughput, 512 / (tc + ar), 1e-12);
  CHECK_NEAR(r.util, 128e12 / ((tc + ar) * 15.67e12), 1e-12);
  CHECK_NEAR(r.mem, 16e9 + 12.8e9, 1e-12);
  CHECK_NEAR(r.epoch, 1e6 / r.throughput, 1e-12);
  CHECK_NEAR(r.fits, 1, 0);                 /* 28.8 GB in the V100's 32 GB */
  CHECK_NEAR(r.shortfall, 0, 0);
  /* subbatch 256: 16 + 25.6 = 41.6 GB per worker, 9.6 GB more than 32 GB */
  o.subbatch = 256;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  CHECK_NEAR(r.fits, 0, 0);
  CHECK_NEAR(r.shortfall, 41.6e9 - 32e9, 1e-12);
  {                                          /* mem 0: unlimited, everything fits */
    dlb_roof inf = V100;
    inf.mem = 0;
    CHECK(dlb_par_data(&w, &inf, &cl, &o, &r) == DLB_OK);
    CHECK_NEAR(r.fits, 1, 0);
    CHECK_NEAR(r.shortfall, 0, 0);
  }
  o.subbatch = 128;
  /* one worker: 80% utilisation, the Table 5 baseline's figure */
  o.workers = 1;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  CHECK_NEAR(r.util, 0.8, 1e-12);
  /* 4 buckets of 1 GB with full overlap: all but the last bucket hide under backward */
  o.workers = 4; o.bucket = 1e9; o.overlap = 1;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  double b1 = 2 * 0.75 * 1e9 / 56e9;
  CHECK_NEAR(r.buckets, 4, 0);
  CHECK_NEAR(r.comm, 4 * b1, 1e-12);
  CHECK_NEAR(r.exposed, b1, 1e-12);         /* 3 b1 << 2/3 tc */
  /* half overlap of a short backward: hidden = overlap x bwd */
  w.flops_sample = 1e9;
  o.overlap = 0.5;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  double tc2 = 128e9 / (0.8 * 15.67e12);
  CHECK_NEAR(r.exposed, 4 * b1 - 0.5 * (2.0 / 3) * tc2, 1e-12);
  /* strong scaling: fixed global batch 512 over 8 workers -> subbatch 64 */
  o.subbatch = 0; o.batch = 512; o.workers = 8;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  CHECK_NEAR(r.subbatch, 64, 0);
  /* asynchronous PS, 1 shard: worker iteration tc + 2 S beta, server 2 n S beta */
  w.flops_sample = 1e12;
  memset(&o, 0, sizeof o);
  o.workers = 8; o.subbatch = 128; o.async = 1; o.shards = 1;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  CHECK_NEAR(r.step, fmax(tc + 2 * 4e9 / 56e9, 16 * 4e9 / 56e9), 1e-12);
  o.shards = 8;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  CHECK_NEAR(r.step, tc + 2 * 4e9 / 56e9, 1e-12);
  /* a caller's compute time (dlb.roofline.time) replaces the built-in roofline */
  memset(&o, 0, sizeof o);
  o.workers = 4; o.subbatch = 128; o.compute = 0.25;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_OK);
  CHECK_NEAR(r.compute, 0.25, 0);
  CHECK_NEAR(r.step, 0.25 + ar, 1e-12);
  CHECK_NEAR(r.util, 128e12 / ((0.25 + ar) * 15.67e12), 1e-12);
  o.compute = -1;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "compute") != NULL);
  o.compute = 0;
  /* bad input */
  o.workers = 0;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "workers") != NULL);
  o.workers = 2; o.overlap = 2;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "overlap") != NULL);
  o.overlap = 0; o.nccl = 2;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "nccl must be 0") != NULL);
  /* nccl = 1: the gradient allreduce as NCCL runs it (the planner's rule). 16 workers on 2
  ** nodes of 8 (NVLink 3 at 300 GB/s; 8 NICs of 25 GB/s): NCCL picks ring / Simple for 4 GB
  ** (tuning.cc v2.19; tree's 0.92 x 0.5 and LL128's 0.92 lose): bus bandwidth min(300,
  ** 8 x 25) = 200 GB/s x n / nsteps = 16 / 30; latency baseLat 8.4 + (30 - 4) x max(NVLink
  ** 3.4, net overhead 3) + 4 x net 14.0 = 152.8 us, x 1.4 (ring plateau, NVLink 3). */
  dlb_par_cluster two = { 8, 2, { 300e9, 0, 0, 0 }, { 25e9, 0, 0, 0 }, 8, 3, 0 };
  memset(&o, 0, sizeof o);
  o.workers = 16; o.subbatch = 128; o.nccl = 1;
  CHECK(dlb_par_data(&w, &V100, &two, &o, &r) == DLB_OK);
  CHECK_NEAR(r.comm, 152.8e-6 * 1.4 + 4e9 / (200e9 * 16 / 30), 1e-9);
  CHECK_NEAR(r.wire, 2 * 15.0 / 16 * 4e9, 1e-12);   /* nccl-tests' bus convention */
  o.nccl = 0;                                          /* alpha-beta: hierarchical */
  CHECK(dlb_par_data(&w, &V100, &two, &o, &r) == DLB_OK);
  dlb_par_coll hc;
  CHECK(dlb_par_allreduce_cluster(4e9, 16, DLB_ALGO_RING, &two, &hc) == DLB_OK);
  CHECK_NEAR(r.comm, hc.time, 1e-12);
  CHECK(fabs(hc.time - 152.8e-6 * 1.4 - 4e9 / (200e9 * 16 / 30)) > 1e-3);   /* they differ */
}

/* Brute force over all splits of n layers into k contiguous stages. */
static double best(const double *w, int n, int k, int from) {
  if (k == 1) {
    double s = 0;
    for (int i = from; i < n; i++) s += w[i];
    return s;
  }
  double b = INFINITY, s = 0;
  for (int i = from; i < n - k + 1; i++) {
    s += w[i];
    double rest = best(w, n, k - 1, i + 1);
    double m = s > rest ? s : rest;
    if (m < b) b = m;
  }
  return b;
}

static void partition(void) {
  double w[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  int first[9];
  CHECK(dlb_par_partition(w, 9, 3, first) == DLB_OK);
  /* classic instance: {1..5}=15, {6,7}=13, {8,9}=17 -> bottleneck 17 */
  CHECK(first[0] == 0 && first[1] == 5 && first[2] == 7);
  /* random instances against brute force; every stage non-empty */
  srand(7);
  for (int t = 0; t < 300; t++) {
    int n = 1 + rand() % 9, k = 1 + rand() % n;
    double x[9];
    for (int i = 0; i < n; i++) x[i] = (rand() % 4 == 0) ? 0 : (rand() % 1000) / 10.0;
    CHECK(dlb_par_partition(x, n, k, first) == DLB_OK);
    double mx = 0;
    for (int s = 0; s < k; s++) {
      int end = s + 1 < k ? first[s + 1] : n;
      CHECK(end > first[s]);
      double sum = 0;
      for (int i = first[s]; i < end; i++) sum += x[i];
      if (sum > mx) mx = sum;
    }
    CHECK(first[0] == 0);
    CHECK_NEAR(mx, best(x, n, k, 0), 1e-9);
  }
  CHECK(dlb_par_partition(w, 9, 10, first) == DLB_EINVAL);
  CHECK(dlb_par_partition(w, 9, 0, first) == DLB_EINVAL);
  /* an empty layer list is named as such (it read "k must be 1..0" through the bindings) */
  CHECK(dlb_par_partition(w, 0, 2, first) == DLB_EINVAL);
  CHECK(strcmp(dlb_last_error(), "partition: no layers to split into 2 stages (the layer list is empty)") == 0);
  CHECK(dlb_par_partition(NULL, 0, 2, first) == DLB_EINVAL && strstr(dlb_last_error(), "layer list is empty"));
  double neg[] = { 1, -1 };
  CHECK(dlb_par_partition(neg, 2, 1, first) == DLB_EINVAL);
}

/* GPipe/1F1B (p-1)/(m+p-1); interleaved (p-1)/(v m + p - 1) (Narayanan et al. 2021). */
static void bubbles(void) {
  CHECK_NEAR(dlb_par_bubble(DLB_SCHED_GPIPE, 4, 8, 1), 3.0 / 11, 1e-15);
  CHECK_NEAR(dlb_par_bubble(DLB_SCHED_1F1B, 4, 8, 1), 3.0 / 11, 1e-15);
  CHECK_NEAR(dlb_par_bubble(DLB_SCHED_INTERLEAVED, 4, 8, 2), 3.0 / 19, 1e-15);
  CHECK(dlb_par_bubble(DLB_SCHED_GPIPE, 1, 8, 1) == 0);
  CHECK(isnan(dlb_par_bubble(7, 4, 8, 1)));
}

/* ZeRO's partitioning (Rajbhandari et al. 2020 Fig. 1, Nd = 64): stage 1 splits the
** optimizer state Nd ways, 2 the gradients too, 3 the weights too. */
static void zero_split(void) {
  double w, g, o;
  CHECK(dlb_par_zero_split(0, 64, &w, &g, &o) == DLB_OK && w == 1 && g == 1 && o == 1);
  CHECK(dlb_par_zero_split(1, 64, &w, &g, &o) == DLB_OK && w == 1 && g == 1 && o == 64);
  CHECK(dlb_par_zero_split(2, 64, &w, &g, &o) == DLB_OK && w == 1 && g == 64 && o == 64);
  CHECK(dlb_par_zero_split(3, 64, &w, &g, &o) == DLB_OK && w == 64 && g == 64 && o == 64);
  CHECK(dlb_par_zero_split(4, 64, &w, &g, &o) == DLB_EINVAL
        && strstr(dlb_last_error(), "ZeRO stage must be 0..3, got 4"));
  CHECK(dlb_par_zero_split(1, 0.5, &w, &g, &o) == DLB_EINVAL);
  CHECK(dlb_par_zero_split(1, NAN, NULL, NULL, NULL) == DLB_EINVAL);
}

/* 4 equal layers, pp = 2, m = 4, GPipe, batch 8 (mb = 2); per layer t = 3e9 x 2 / (0.8 peak).
** Step = (m + p - 1) x 2t + activation transfers; bubble = 2t + its transfers. */
static void evaluate(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r;
  layout(&o, 8, &cfg, 2, 4, DLB_SCHED_GPIPE);
  double sm[2];
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, sm) == DLB_OK);
  double t = 6e9 / (0.8 * 15.67e12);
  double x = 2 * 2e3 / 10e9;                 /* act_out x mb forward + its gradient back */
  CHECK_NEAR(r.compute, 4 * 2 * t, 1e-12);
  CHECK_NEAR(r.bubble, 2 * t + x, 1e-12);
  CHECK_NEAR(r.pp_comm, 4 * x, 1e-12);
  CHECK_NEAR(r.step, 5 * (2 * t + x), 1e-12);
  /* memory: 2e6 params x 16 B + m x mb x 2 layers x 1e6 B kept */
  CHECK_NEAR(r.mem, 2e6 * 16 + 4 * 2 * 2e6, 1e-12);
  CHECK_NEAR(sm[0], r.mem, 1e-12);
  CHECK_NEAR(r.mem_opt, 2e6 * 12, 1e-12);
  /* 1F1B keeps only p - d micro-batches in flight: device 0 holds 2 */
  cfg.sched = DLB_SCHED_1F1B;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, sm) == DLB_OK);
  CHECK_NEAR(sm[0], 2e6 * 16 + 2 * 2 * 2e6, 1e-12);
  CHECK_NEAR(sm[1], 2e6 * 16 + 1 * 2 * 2e6, 1e-12);
  /* full recompute: keep the 1e5-byte inputs, plus one layer rebuilt and the gradient
  ** arriving at it (its act_out, 1e3 x mb: issue [18] item 5); backward + forward */
  cfg.recompute = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, sm) == DLB_OK);
  CHECK_NEAR(sm[0], 2e6 * 16 + 2 * 2 * 2e5 + 2 * 1e6 + 2 * 1e3, 1e-12);
  CHECK_NEAR(r.compute, 4 * 2 * (t + t / 3), 1e-12);
  /* ZeRO-1/2/3 over dp = 4 (Rajbhandari et al. 2020 Fig. 1: 2+2+K/Nd, 2+(2+K)/Nd, 16/Nd) */
  cfg.recompute = 0; cfg.dp = 4; cfg.pp = 1; cfg.m = 1; o.batch = 4;
  double Psi = 4e6;
  for (int z = 0; z <= 3; z++) {
    cfg.zero = z;
    CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
    double want[] = { 16 * Psi, (4 + 12.0 / 4) * Psi, (2 + 14.0 / 4) * Psi, 16 * Psi / 4 };
    CHECK_NEAR(r.mem_weights + r.mem_grads + r.mem_opt, want[z], 1e-12);
  }
  /* more pipeline chunks than layers, absurd degrees: clear errors, no overflow */
  dlb_par_row bad = cfg;
  bad.pp = 5;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &bad, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "pipeline chunks") != NULL);
  bad.pp = 1e11;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &bad, &r, NULL) == DLB_EINVAL);
  bad.pp = 1; bad.tp = 2.5;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &bad, &r, NULL) == DLB_EINVAL);
  bad.tp = 1; bad.sched = 7;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &bad, &r, NULL) == DLB_EINVAL);
  /* ZeRO-3 moves 1.5x the bytes of an allreduce (ibid. sec. 7.2.2) */
  dlb_par_row r2;
  cfg.zero = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r2, NULL) == DLB_OK);
  CHECK_NEAR(r2.dp_comm, 2 * 0.75 * Psi * 2 / 10e9, 1e-12);
  CHECK_NEAR(r.dp_comm, 1.5 * r2.dp_comm, 1e-12);
  /* frozen parameters (LoRA's base weights, issue [18]) have no gradient, optimizer state or
  ** allreduce; weight_bytes replaces params x w_bytes (a 4-bit layer: 0.52 B/param) */
  for (int i = 0; i < 4; i++) { L[i].frozen = 0.99e6; L[i].weight_bytes = 0.52e6; }
  cfg.zero = 0;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.mem_weights, 4 * 0.52e6, 1e-12);
  CHECK_NEAR(r.mem_grads, 4 * 0.01e6 * 2, 1e-9);
  CHECK_NEAR(r.mem_opt, 4 * 0.01e6 * 12, 1e-9);
  CHECK_NEAR(r.dp_comm, r2.dp_comm / 100, 1e-12);   /* the trainable 1% only */
  L[0].frozen = 2e6;   /* more frozen than held: an error naming the layer */
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "layer 1 has 2e+06 frozen of 1e+06 parameters") != NULL);
  uniform_layers(L, 4);
}

/* Overlap with contention (planner_dp.c dlb_par_hidden): a collective of C s beside a compute
** window W costs max(C - W, f C), f = NCCL's CTAs / the SMs. f from the sources of
** lua/dlbench/contention.lua: an H100's 24 NCCL channels (NVIDIA/nccl issue 1259) of 132 SMs.
** The window holds C when C <= W / (1 - f): the step lengthens by f C, the compute's lost
** rate over the collective's length; else by C - W. */
static void overlap_contention(void) {
  double f = 24.0 / 132;
  CHECK_NEAR(dlb_par_hidden(1e-3, 2e-3, f), 24.0 / 132 * 1e-3, 1e-18);   /* hidden: f C */
  CHECK_NEAR(dlb_par_hidden(3e-3, 1e-3, f), 2e-3, 1e-18);                /* window-bound */
  CHECK_NEAR(dlb_par_hidden(3e-3, 1e-3, 0), 2e-3, 1e-18);
  CHECK(dlb_par_hidden(1e-3, 2e-3, 0) == 0);                             /* f 0: today's */
  CHECK(dlb_par_hidden(1e-3, 0, f) == 1e-3);                             /* overlap 0: C */
  double w = 1e-3, c = w / (1 - f);                                      /* they meet */
  CHECK_NEAR(dlb_par_hidden(c, w, f), f * c, 1e-12);
  CHECK_NEAR(c - w, f * c, 1e-12);
  /* In the planner: 4 uniform layers, dp 4, ZeRO-2, one micro-batch of 1 sample each, a
  ** 100 GB/s flat link: the gradient allreduce 2 x 3/4 x 4e6 params x 2 B / 100e9 = 0.12 ms,
  ** the backward 4 x 2e9 / (0.8 x 15.67e12) = 0.638 ms holds it whole */
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  dlb_par_cluster cl = flat(100e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r0, r;
  layout(&o, 4, &cfg, 1, 1, DLB_SCHED_1F1B);
  cfg.dp = 4; cfg.zero = 2;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  double C = 2 * 0.75 * 4e6 * 2 / 100e9, B = 4 * 2e9 / (0.8 * 15.67e12);
  CHECK_NEAR(r0.dp_comm, C, 1e-15);                  /* overlap 0: exposed, f or not */
  o.contention = f;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK(r.dp_comm == r0.dp_comm && r.step == r0.step);
  o.overlap = 1;                                     /* hidden: f C, the step f C longer */
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.dp_comm, f * C, 1e-15);
  CHECK_NEAR(r.step, r0.step - C + f * C, 1e-12);
  o.contention = 0;                                  /* hidden for free (the old rule) */
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK(r.dp_comm == 0);
  o.contention = f; o.overlap = 0.1;                 /* a window shorter than C: C - W */
  CHECK(0.1 * B < C);
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.dp_comm, C - 0.1 * B, 1e-12);
  /* ZeRO-3: the backward's gather + reduce-scatter under overlap, the forward's gather under
  ** fsdp_overlap; both windows hold them, so every collective costs f of itself */
  cfg.zero = 3; o.overlap = 0; o.contention = 0;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r0, NULL) == DLB_OK);
  o.overlap = 1; o.fsdp_overlap = 1; o.contention = f;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.dp_comm, f * r0.dp_comm, 1e-15);
  /* contention outside [0, 1): a clear error */
  o.contention = 1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "contention must be in [0, 1)") != NULL);
  o.contention = -0.1;
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
}

/* A prepared model (dlb_par_model) gives dlb_par_evaluate_ops's row bit for bit, across
** devices in any order (its cache of layer times is the last device's, emptied before each
** evaluation) and after the caller's arrays change (they were copied). */
static void prepared_model(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  dlb_par_op ops[8];
  two_ops_per_layer(ops, 4);
  for (int i = 0; i < 4; i++) {   /* with bytes, and a matmul shape growing with the batch */
    ops[2 * i].bytes_sample = 1e6;
    ops[2 * i + 1].m = 64; ops[2 * i + 1].n = 1024; ops[2 * i + 1].k = 1024; ops[2 * i + 1].batch = 1;
    ops[2 * i + 1].grow = 1;
  }
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, want, got;
  layout(&o, 8, &cfg, 2, 1, DLB_SCHED_1F1B);
  dlb_roof a = V100, b = V100;
  a.attn_eff = 0.4;
  b.peak *= 3; b.sm_count = 80; b.gemm_tile_m = 128; b.gemm_tile_n = 128;
  dlb_par_model *m = dlb_par_model_new(L, 4, ops, 8);
  CHECK(m != NULL);
  const dlb_roof *devs[] = { &a, &b, &a, &b, &b };
  for (int k = 0; k < 5; k++) {
    CHECK(dlb_par_evaluate_ops(L, 4, ops, 8, devs[k], &cl, &o, &cfg, &want, NULL) == DLB_OK);
    CHECK(dlb_par_model_evaluate(m, devs[k], &cl, &o, &cfg, &got, NULL) == DLB_OK);
    CHECK(memcmp(&want, &got, sizeof want) == 0);
  }
  /* the caller's arrays changed after the copy: the model keeps what it copied */
  dlb_par_row before = got;
  ops[0].flops_sample = 1e12;
  L[0].params *= 10;
  CHECK(dlb_par_model_evaluate(m, &b, &cl, &o, &cfg, &got, NULL) == DLB_OK);
  CHECK(memcmp(&before, &got, sizeof got) == 0);
  dlb_par_model_free(m);
  dlb_par_model_free(NULL);
  /* bad input: named */
  CHECK(dlb_par_model_new(L, 0, NULL, 0) == NULL);
  CHECK(strstr(dlb_last_error(), "at least one layer") != NULL);
  ops[0].layer = 7;
  CHECK(dlb_par_model_new(L, 4, ops, 8) == NULL);
  CHECK(strstr(dlb_last_error(), "names layer 8") != NULL);
  CHECK(dlb_par_model_evaluate(NULL, &a, &cl, &o, &cfg, &got, NULL) == DLB_EINVAL);
}

/* A Megatron layer: two allreduces of the activations forward and two backward
** (Shoeybi et al. 2019); with tp = 2 on a 100 GB/s link, 4 ring allreduces of b s h x 2 B. */
static void tensor_parallel(void) {
  dlb_par_layer L[2];
  uniform_layers(L, 2);
  for (int i = 0; i < 2; i++) { L[i].tp_bytes = 1e6; L[i].tp_colls = 2; L[i].act_rep = 4e5; }
  dlb_par_cluster cl;
  memset(&cl, 0, sizeof cl);
  cl.per_node = 8; cl.nodes = 1; cl.intra.bw = 100e9; cl.intra.eff = 1;
  dlb_par_opts o;
  memset(&o, 0, sizeof o);
  o.batch = 4;
  dlb_par_row cfg, r;
  memset(&cfg, 0, sizeof cfg);
  cfg.dp = 1; cfg.tp = 2; cfg.pp = 1; cfg.m = 1; cfg.sched = DLB_SCHED_1F1B;
  CHECK(dlb_par_evaluate(L, 2, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  double ar = 2 * 0.5 * 4e6 / 100e9;
  CHECK_NEAR(r.tp_comm, 2 * 4 * ar, 1e-12);
  CHECK_NEAR(r.compute, 2 * 4 * 3e9 / 2 / (0.8 * 15.67e12), 1e-12);
  /* activations: kept / t + replicated (Korthikanti et al. 2022 eq. 2 shape) */
  CHECK_NEAR(r.mem_act, 4 * 2 * (1e6 / 2 + 4e5), 1e-12);
  o.seq_par = 1;  /* sequence parallelism splits the replicated part too (eq. 4) */
  CHECK(dlb_par_evaluate(L, 2, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.mem_act, 4 * 2 * (1e6 / 2 + 4e5 / 2), 1e-12);
}

/* Embedding sharding levels the stages' memory (Hestness sec. 6.2.2). */
static void shard_embedding(void) {
  dlb_par_layer L[4];
  uniform_layers(L, 4);
  L[0].params = 4e6;  L[0].shardable = 1;
  L[0].flops_fwd = L[0].flops_bwd = 0;
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  memset(&o, 0, sizeof o);
  o.batch = 1;
  o.w_bytes = 4; o.g_bytes = 4; o.o_bytes = 4;
  dlb_par_row cfg, r;
  memset(&cfg, 0, sizeof cfg);
  cfg.dp = 1; cfg.tp = 1; cfg.pp = 4; cfg.m = 1; cfg.sched = DLB_SCHED_GPIPE;
  for (int i = 0; i < 4; i++) L[i].act_kept = 0;
  double sm[4];
  /* pp = 4 -> one layer per stage; unsharded: 48 MB on stage 0, 12 MB elsewhere */
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, sm) == DLB_OK);
  CHECK_NEAR(sm[0], 4e6 * 12, 1e-12);
  CHECK_NEAR(sm[1], 1e6 * 12, 1e-12);
  o.shard = 1;   /* total 7e6 params x 12 B = 84 MB over 4 stages: 21 MB each */
  CHECK(dlb_par_evaluate(L, 4, &V100, &cl, &o, &cfg, &r, sm) == DLB_OK);
  for (int d = 0; d < 4; d++) CHECK_NEAR(sm[d], 21e6, 1e-9);
}

/* The split by count (DLB_BALANCE_LAYERS): Megatron-Core's get_num_layers_to_build with
** account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split,
** (num_layers + 2) / pp layers a stage (/ vp a virtual chunk), the embedding and the loss one
** layer each. Six layers: an embedding of no FLOPs, four unit blocks (t each, fwd + bwd of
** one micro-batch of 2 samples: 6e9 FLOPs at 0.8 x 15.67 TFLOP/s) and a head of three units.
** By FLOPs (the default) pp 2 splits {emb, 4 blocks | head}: 4 t against 3 t, compute 4 x 4 t
** over m = 4; by count {emb, b, b | b, b, head}: 2 t against 5 t, compute 4 x 5 t. Interleaved,
** pp 2 x v 3 = 6 chunks of one layer, chunk c on stage c mod 2: stage 1 holds b, b, head, 5 t
** again. Layers not dividing the chunks: an error naming the counts; the search tries only
** layouts whose chunks divide the layers. */
static void split_by_count(void) {
  dlb_par_layer L[6];
  uniform_layers(L, 6);
  L[0].flops_fwd = L[0].flops_bwd = 0;
  L[5].flops_fwd *= 3; L[5].flops_bwd *= 3;
  dlb_par_cluster cl = flat(10e9, 0);
  dlb_par_opts o;
  dlb_par_row cfg, r;
  layout(&o, 8, &cfg, 2, 4, DLB_SCHED_GPIPE);
  double t = 6e9 / (0.8 * 15.67e12);
  CHECK(dlb_par_evaluate(L, 6, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.compute, 4 * 4 * t, 1e-12);
  o.balance = DLB_BALANCE_LAYERS;
  CHECK(dlb_par_evaluate(L, 6, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.compute, 4 * 5 * t, 1e-12);
  cfg.sched = DLB_SCHED_INTERLEAVED; cfg.v = 3;
  CHECK(dlb_par_evaluate(L, 6, &V100, &cl, &o, &cfg, &r, NULL) == DLB_OK);
  CHECK_NEAR(r.compute, 4 * 5 * t, 1e-12);
  cfg.v = 2;   /* 4 chunks for 6 layers */
  CHECK(dlb_par_evaluate(L, 6, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "6 layers to divide into pp 2 x v 2 = 4 chunks") != NULL);
  o.balance = 3;
  CHECK(dlb_par_evaluate(L, 6, &V100, &cl, &o, &cfg, &r, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "balance must be") != NULL);
  /* the search: every layout it returns splits the six layers whole */
  dlb_par_cluster c8 = flat(10e9, 0);
  c8.per_node = 8; c8.nodes = 1;
  layout(&o, 8, &cfg, 1, 1, DLB_SCHED_GPIPE);
  o.sched = -1; o.recompute = -1; o.keep_unfit = 1; o.balance = DLB_BALANCE_LAYERS;
  dlb_par_plan *P = dlb_par_plan_new(L, 6, &V100, &c8, &o);
  CHECK(P != NULL);
  int seen4 = 0;
  for (int i = 0; P && i < dlb_par_plan_count(P); i++) {
    CHECK(dlb_par_plan_row(P, i, &r) == DLB_OK);
    double K = r.sched == DLB_SCHED_INTERLEAVED ? r.pp * r.v : r.pp;
    CHECK(fmod(6, K) == 0);
    seen4 |= r.pp == 4;
  }
  CHECK(!seen4);   /* pp 4 (4 chunks) never: 6 layers do not divide */
  dlb_par_plan_free(P);
}

static void planner(void) {
  enum { N = 24 };
  dlb_par_layer L[N];
  uniform_layers(L, N);
  for (int i = 0; i < N; i++) {
    L[i].params = 1e9; L[i].tp_bytes = 1e6; L[i].tp_colls = 2;
  }
  dlb_par_cluster cl;
  memset(&cl, 0, sizeof cl);
  cl.per_node = 8; cl.nodes = 8;
  cl.intra.bw = 300e9; cl.intra.latency = 1e-6;
  cl.inter.bw = 25e9; cl.inter.latency = 5e-6;
  dlb_roof dev;
  dlb_roof_init(&dev);
  dev.peak = 100e12; dev.bw = 2e12; dev.mem = 80e9;
  dlb_par_opts o;
  memset(&o, 0, sizeof o);
  o.batch = 256; o.sched = -1; o.recompute = -1; o.zero_max = 3;
  dlb_par_plan *P = dlb_par_plan_new(L, N, &dev, &cl, &o);
  CHECK(P != NULL);
  int n = dlb_par_plan_count(P);
  CHECK(n > 10);
  CHECK(dlb_par_plan_evaluated(P) >= n);
  dlb_par_row prev, r;
  for (int i = 0; i < n; i++) {
    CHECK(dlb_par_plan_row(P, i, &r) == DLB_OK);
    CHECK(r.fits == 1 && r.mem <= 80e9);
    CHECK(r.dp * r.tp * r.pp == 64);
    CHECK_NEAR(r.step, r.compute + r.comm + r.bubble, 1e-12);
    if (i > 0) CHECK(r.step >= prev.step);
    prev = r;
  }
  /* 24 GB of parameters x 16 B cannot fit one 80 GB device unsplit: the best plan splits */
  CHECK(dlb_par_plan_row(P, 0, &r) == DLB_OK);
  CHECK(r.tp * r.pp > 1 || r.zero > 0);
  CHECK(dlb_par_plan_row(P, n, &r) == DLB_EINVAL);
  dlb_par_plan_free(P);
  dlb_par_plan_free(NULL);
  o.batch = 0;
  CHECK(dlb_par_plan_new(L, N, &dev, &cl, &o) == NULL);
  CHECK(strstr(dlb_last_error(), "batch") != NULL);
  o.batch = 256;
  L[3].params = -1;
  CHECK(dlb_par_plan_new(L, N, &dev, &cl, &o) == NULL);
  CHECK(strstr(dlb_last_error(), "layer 4") != NULL);
}

static void amdahl(void) {
  CHECK_NEAR(dlb_par_amdahl(0.1, 8), 1 / (0.1 + 0.9 / 8), 1e-15);
  double n[] = { 2, 4, 8, 16 }, s[4], f, r2;
  for (int i = 0; i < 4; i++) s[i] = dlb_par_amdahl(0.05, n[i]);
  CHECK(dlb_par_amdahl_fit(n, s, 4, &f, &r2) == DLB_OK);
  CHECK_NEAR(f, 0.05, 1e-12);
  CHECK_NEAR(r2, 1, 1e-12);
  double n8 = 8, s8 = 8 * 0.62;
  CHECK(dlb_par_amdahl_fit(&n8, &s8, 1, &f, NULL) == DLB_OK);
  CHECK_NEAR(f, (1 / 4.96 - 0.125) / 0.875, 1e-12);
  CHECK_NEAR(f, 0.08756, 1e-4);
  double one = 1;
  CHECK(dlb_par_amdahl_fit(&one, &s8, 1, &f, NULL) == DLB_EINVAL);
  double zero = 0;
  CHECK(dlb_par_amdahl_fit(&n8, &zero, 1, &f, NULL) == DLB_EINVAL);
}

static double urand(double lo, double hi) {
  return lo + (hi - lo) * (rand() / (double)RAND_MAX);
}

/* Randomised layouts: never a crash, and the invariants hold (step = parts, bubble share
** matches the schedule's formula for equal stages, memory falls with ZeRO stage). */
static void random_layouts(void) {
  srand(11);
  for (int t = 0; t < 200; t++) {
    int n = 1 + rand() % 12;
    dlb_par_layer L[12];
    memset(L, 0, sizeof L);
    for (int i = 0; i < n; i++) {
      L[i].flops_fwd = urand(0, 1e10);
      L[i].flops_bwd = 2 * L[i].flops_fwd;
      L[i].bytes_sample = urand(0, 1e8);
      L[i].bytes_fixed = urand(0, 1e9);
      L[i].params = urand(0, 1e8);
      L[i].act_out = urand(0, 1e6);
      L[i].act_kept = urand(0, 1e7);
      L[i].act_rep = urand(0, 1e6);
      L[i].act_in = urand(0, 1e6);
      L[i].tp_bytes = rand() % 2 ? urand(0, 1e6) : 0;
      L[i].tp_colls = 2;
      L[i].shardable = rand() % 4 == 0;
    }
    dlb_par_cluster cl;
    memset(&cl, 0, sizeof cl);
    cl.per_node = 1 << (rand() % 4);
    cl.nodes = 1 + rand() % 8;
    cl.intra.bw = urand(1e9, 1e12);
    cl.intra.latency = urand(0, 1e-5);
    cl.inter.bw = rand() % 3 ? urand(1e8, 1e11) : 0;
    cl.inter.latency = urand(0, 1e-4);
    dlb_roof dev;
    dlb_roof_init(&dev);
    dev.peak = urand(1e12, 1e15); dev.bw = urand(1e11, 3e12); dev.mem = urand(0, 1e11);
    dlb_par_opts o;
    memset(&o, 0, sizeof o);
    o.batch = 1 + rand() % 512;
    o.sched = -1; o.recompute = -1; o.zero_max = rand() % 4;
    o.seq_par = rand() % 2; o.shard = rand() % 2; o.overlap = urand(0, 1);
    o.keep_unfit = rand() % 2; o.balance = rand() % 2;
    dlb_par_plan *P = dlb_par_plan_new(L, n, &dev, &cl, &o);
    CHECK(P != NULL);
    if (!P) { fprintf(stderr, "%s\n", dlb_last_error()); continue; }
    int c = dlb_par_plan_count(P);
    for (int i = 0; i < c; i++) {
      dlb_par_row r;
      CHECK(dlb_par_plan_row(P, i, &r) == DLB_OK);
      CHECK(isfinite(r.step) && r.step >= 0);
      CHECK_NEAR(r.step, r.compute + r.comm + r.bubble, 1e-9);
      CHECK(r.mem >= 0 && isfinite(r.mem));
      CHECK(o.keep_unfit || r.fits);
      CHECK(r.util >= 0 && r.util <= 1 + 1e-9);
      CHECK(r.dp * r.tp * r.pp == cl.per_node * cl.nodes);
    }
    dlb_par_plan_free(P);
  }
}

/* QA regressions: impossible layouts and subbatches are errors, never numbers. */
static void impossible(void) {
  dlb_par_work w;
  memset(&w, 0, sizeof w);
  w.flops_sample = 1e12;
  w.grad_bytes = 4e9;
  dlb_par_cluster fl = flat(56e9, 0);
  dlb_par_dp_opts o;
  dlb_par_dp_result r;
  memset(&o, 0, sizeof o);
  o.workers = 8; o.subbatch = 0.25;
  CHECK(dlb_par_data(&w, &V100, &fl, &o, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "subbatch must be a whole number of samples >= 1") != NULL);
  o.subbatch = 0; o.batch = 4096; o.workers = 8192;      /* 0.5 samples per worker */
  CHECK(dlb_par_data(&w, &V100, &fl, &o, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "0.5 samples per worker") != NULL);
  o.batch = 100; o.workers = 8;                          /* 12.5 */
  CHECK(dlb_par_data(&w, &V100, &fl, &o, &r) == DLB_EINVAL);
  o.batch = 4096; o.workers = 512;                       /* 8 each */
  CHECK(dlb_par_data(&w, &V100, &fl, &o, &r) == DLB_OK);
  CHECK(r.subbatch == 8);
  dlb_par_cluster cl;
  memset(&cl, 0, sizeof cl);
  cl.per_node = 8; cl.nodes = 64; cl.intra.bw = 300e9; cl.inter.bw = 25e9;
  o.workers = 3000; o.batch = 0; o.subbatch = 4;         /* 512 devices */
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "3000 devices do not fit") != NULL);
  w.mem_sample = INFINITY; o.workers = 8;
  CHECK(dlb_par_data(&w, &V100, &cl, &o, &r) == DLB_EINVAL);
  w.mem_sample = 0;

  /* evaluate: batch 64 = dp 2 x m x mb needs m | 32 */
  enum { N = 8 };
  dlb_par_layer L[N];
  uniform_layers(L, N);
  for (int i = 0; i < N; i++) { L[i].tp_bytes = 1e3; L[i].tp_colls = 2; L[i].tp_div = 16; }
  dlb_par_opts po;
  memset(&po, 0, sizeof po);
  po.batch = 64;
  dlb_par_row cfg, row;
  memset(&cfg, 0, sizeof cfg);
  cfg.dp = 2; cfg.tp = 2; cfg.pp = 2; cfg.sched = DLB_SCHED_1F1B;
  cfg.m = 64;                                            /* mb 0.5 */
  CHECK(dlb_par_evaluate(L, N, &V100, &cl, &po, &cfg, &row, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "batch/dp must be a multiple of m") != NULL);
  cfg.m = 5;                                             /* mb 6.4 */
  CHECK(dlb_par_evaluate(L, N, &V100, &cl, &po, &cfg, &row, NULL) == DLB_EINVAL);
  cfg.m = 4; cfg.dp = 3;                                 /* 64 / 3 */
  CHECK(dlb_par_evaluate(L, N, &V100, &cl, &po, &cfg, &row, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "the batch must be a multiple of dp") != NULL);
  cfg.dp = 2; cfg.tp = 3;                                /* 16 heads */
  CHECK(dlb_par_evaluate(L, N, &V100, &cl, &po, &cfg, &row, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "tp 3 does not divide the 16 heads/hidden units of layer 1") != NULL);
  cfg.tp = 4;
  CHECK(dlb_par_evaluate(L, N, &V100, &cl, &po, &cfg, &row, NULL) == DLB_OK);
  CHECK(row.mb == 8);
  /* a batch past the bound: the message says the bound (before review7: "batch must be a
  ** whole number of samples >= 1, got 1e+300") */
  po.batch = 1e300;
  CHECK(dlb_par_evaluate(L, N, &V100, &cl, &po, &cfg, &row, NULL) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "plan: batch must be below 1e12 samples, got 1e+300") != NULL);
  po.batch = 64;
  dlb_par_cluster two;                                   /* 2 x 8 = 16 devices < 2 x 4 x 2 */
  memcpy(&two, &cl, sizeof two);
  two.nodes = 1;
  CHECK(dlb_par_evaluate(L, N, &V100, &two, &po, &cfg, &row, NULL) == DLB_EINVAL);
  /* pp 3 does not divide the 8 devices of a node: 8 x 3 = 24 devices hold dp 8 x pp 3 */
  dlb_par_cluster c83;
  memcpy(&c83, &cl, sizeof c83);
  c83.nodes = 3;
  cfg.dp = 8; cfg.tp = 1; cfg.pp = 3; cfg.m = 2;
  CHECK(dlb_par_evaluate(L, N, &V100, &c83, &po, &cfg, &row, NULL) == DLB_OK);
  CHECK(row.dp_comm > 0);
  po.devices = 0;
  dlb_par_plan *P83 = dlb_par_plan_new(L, N, &V100, &c83, &po);
  CHECK(P83 != NULL && dlb_par_plan_count(P83) > 0);
  /* the search's rows (checks skipped) equal the public, checked evaluation */
  for (int i = 0; P83 && i < dlb_par_plan_count(P83); i += 7) {
    dlb_par_row pr, er;
    CHECK(dlb_par_plan_row(P83, i, &pr) == DLB_OK);
    CHECK(dlb_par_evaluate(L, N, &V100, &c83, &po, &pr, &er, NULL) == DLB_OK);
    CHECK(er.step == pr.step && er.mem == pr.mem && er.mb == pr.mb);
  }
  dlb_par_plan_free(P83);
  cfg.dp = 2; cfg.tp = 4; cfg.pp = 2; cfg.m = 4;
  L[0].tp_div = 2.5;
  CHECK(dlb_par_evaluate(L, N, &V100, &cl, &po, &cfg, &row, NULL) == DLB_EINVAL);
  L[0].tp_div = 16;

  /* plan: devices beyond the cluster; tp degrees the heads do not allow are skipped */
  po.devices = 64; two.nodes = 2;
  CHECK(dlb_par_plan_new(L, N, &V100, &two, &po) == NULL);
  CHECK(strstr(dlb_last_error(), "64 devices do not fit the cluster of 2 nodes x 8") != NULL);
  po.devices = 16; po.tp_max = 8; po.zero_max = 0; po.sched = -1; po.recompute = -1;
  for (int i = 0; i < N; i++) L[i].tp_div = 12;          /* tp 1, 2, 4 but not 8 */
  dlb_par_plan *P = dlb_par_plan_new(L, N, &V100, &two, &po);
  CHECK(P != NULL);
  int seen4 = 0, seen8 = 0;
  for (int i = 0; P && i < dlb_par_plan_count(P); i++) {
    CHECK(dlb_par_plan_row(P, i, &row) == DLB_OK);
    seen4 |= row.tp == 4;
    seen8 |= row.tp == 8;
  }
  CHECK(seen4 && !seen8);
  dlb_par_plan_free(P);

  /* nothing fits: an empty plan whose smallest layout is the leanest of all evaluated */
  dlb_roof tiny = V100;
  tiny.mem = 1e6;                                        /* 8 x 1e6 params x 16 B >> 1 MB */
  P = dlb_par_plan_new(L, N, &tiny, &two, &po);
  CHECK(P != NULL && dlb_par_plan_count(P) == 0);
  dlb_par_row sm;
  CHECK(dlb_par_plan_smallest(P, &sm) == DLB_OK);
  dlb_par_plan_free(P);
  po.keep_unfit = 1;
  P = dlb_par_plan_new(L, N, &tiny, &two, &po);
  double lo = INFINITY;
  for (int i = 0; P && i < dlb_par_plan_count(P); i++) {
    CHECK(dlb_par_plan_row(P, i, &row) == DLB_OK);
    CHECK(row.fits == 0);
    if (row.mem < lo) lo = row.mem;
  }
  CHECK(P && dlb_par_plan_count(P) == dlb_par_plan_evaluated(P));
  CHECK_NEAR(sm.mem, lo, 1e-15);
  dlb_par_plan_free(P);
  CHECK(dlb_par_plan_smallest(NULL, &sm) == DLB_EINVAL);
}

int main(void) {
  RUN(roofline);
  RUN(data_parallel);
  RUN(partition);
  RUN(bubbles);
  RUN(zero_split);
  RUN(evaluate);
  RUN(overlap_contention);
  RUN(tensor_parallel);
  RUN(shard_embedding);
  RUN(split_by_count);
  RUN(planner);
  RUN(prepared_model);
  RUN(amdahl);
  RUN(random_layouts);
  RUN(impossible);
  return check_done();
}
