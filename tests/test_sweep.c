/*
** test_sweep.c — compiled model families (graphs/sweep): a layered MLP compiled with its
** batch symbolic and its depth by multiplicity, against the numeric analysis and the per-op
** roofline of the same graph built at that depth; the reductions (Pareto front, top-k, bins,
** groups, kept rows) against hand-worked rows; a compiled sweep's compact kept rows against
** the rows the evaluator writes, bit for bit; bad input.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "mlp_fixture.h"
#include "check.h"
#include "sweep_impl.h" /* only to take a program's peak away (the kept rows' fallback) */

/* An MLP of `layers` hidden layers of width 64 on an input [b, 32], mse loss. */
static dlb_graph *mlp(int layers) { return mlp_fixture(layers, "32", "64"); }

static dlb_roof device(void) {
  dlb_roof d;
  dlb_roof_init(&d);
  d.peak = 100e12, d.bw = 2e12, d.kernel_overhead = 5e-6, d.step_overhead = 1e-4;
  d.sm_count = 108, d.gemm_tile_m = 128, d.gemm_tile_n = 128;
  return d;
}

/* A finished program over the batch "b", layered: build(L) at L = 1, 2, 3 under o. */
static dlb_sweep_prog *layered(dlb_graph *(*build)(int), const dlb_train_opts *o) {
  const char *vars[] = {"b"};
  dlb_sweep_prog *p = dlb_sweep_prog_new(1, vars, 1);
  CHECK(p != NULL);
  for (int L = 1; L <= 3; L++) {
    dlb_graph *g = build(L);
    CHECK(dlb_sweep_prog_add(p, g, o, L) == DLB_OK);
    dlb_graph_free(g);
  }
  CHECK(dlb_sweep_prog_finish(p) == DLB_OK);
  return p;
}

static void test_compiled_equals_numeric(void) {
  const char *vars[] = {"b"};
  dlb_train_opts o = {DLB_OPT_ADAM, DLB_POLICY_FP32, 0, 0, 0, DLB_FUSE_ALL, 0};
  dlb_sweep_prog *p = layered(mlp, &o);
  dlb_roof d = device();
  const double bs[] = {1, 7, 256}, Ls[] = {1, 5, 9};
  for (int i = 0; i < 3; i++) {
    dlb_graph *g = mlp((int)Ls[i]);
    const char *names[] = {"b"};
    dlb_analysis *a = dlb_graph_analyze(g, &o, 1, names, &bs[i]);
    CHECK(a != NULL);
    dlb_totals t;
    dlb_analysis_totals(a, &t);
    double vals[2] = {bs[i], Ls[i]}, tot[DLB_SWT_COUNT];
    CHECK(dlb_sweep_prog_totals(p, vals, tot) == DLB_OK);
    CHECK_NEAR(tot[DLB_SWT_FLOPS], t.flops, 1e-12);
    CHECK_NEAR(tot[DLB_SWT_BYTES], t.bytes, 1e-12);
    CHECK_NEAR(tot[DLB_SWT_PARAMS], t.params, 1e-12);
    CHECK_NEAR(tot[DLB_SWT_NOPS], t.nops, 1e-12);
    /* the construction order's peak, exact; the footprint's breakdown where it is the best */
    CHECK_NEAR(tot[DLB_SWT_PEAK], t.footprint_order, 1e-12);
    CHECK(tot[DLB_SWT_PEAK] >= t.footprint * (1 - 1e-12));
    /* PEAK_ACT: the step's largest activations + workspace (issue [18] item 5), at least
    ** those at the peak; dlb_analysis_act_peak's where the construction order is the best */
    if (t.footprint == t.footprint_order) {
      double ap[6];
      CHECK(dlb_analysis_act_peak(a, ap) == DLB_OK);
      CHECK_NEAR(tot[DLB_SWT_PEAK_ACT], ap[4] + ap[5], 1e-12);
      CHECK(tot[DLB_SWT_PEAK_ACT] >= (t.activations + t.workspace) * (1 - 1e-12));
    }
    dlb_opcosts *c = dlb_opcosts_from_analysis(a);
    dlb_roof_result r;
    CHECK(dlb_opcosts_roofline(c, &d, NULL, NULL, &r) == DLB_OK);
    double tm, f, b, mb;
    CHECK(dlb_sweep_prog_time(p, vals, &d, &tm, &f, &b, &mb) == DLB_OK);
    /* a step's op-cost set carries the step overhead (dlb_step_time), as the compiled path */
    CHECK(r.time > d.step_overhead);
    CHECK_NEAR(tm, r.time, 1e-12);
    CHECK_NEAR(f, r.flops, 1e-12);
    CHECK_NEAR(mb, r.memory_bound_time, 1e-12);
    dlb_opcosts_free(c);
    dlb_analysis_free(a);
    dlb_graph_free(g);
  }
  /* the grid: 3 batches x 2 depths x 2 devices, rows kept */
  dlb_reduce *k = dlb_reduce_new(2 + 1 + DLB_SWC_COUNT);
  CHECK(dlb_reduce_ncols(k) == 17); /* symbols b, layers; the device; 14 outputs */
  CHECK(dlb_reduce_keep(k, 100) == DLB_OK);
  const double nval[] = {3, 2}, values[] = {1, 7, 256, 1, 9};
  dlb_roof two[2] = {d, d};
  two[1].peak = 50e12;
  const double mem[] = {DLB_MEM_FRAMEWORK, 0, 4, 80e9, 0, 0, 0, 0,
                        DLB_MEM_MINIMAL, 0, 4, 1e3, 0, 0, 0, 0};
  double n = 0;
  CHECK(dlb_sweep_eval(p, 2, nval, 5, values, 2, two, mem, 0, NULL, 0, 0, k, 2, &n) == DLB_OK);
  CHECK(n == 12);
  CHECK(dlb_reduce_size(k, DLB_RED_KEEP, 0) == 12);
  double col[12], dev[12], fits[12];
  CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, 3 + DLB_SWC_TIME, 0, 12, col) == DLB_OK);
  CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, 2, 0, 12, dev) == DLB_OK);
  CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, 3 + DLB_SWC_FITS, 0, 12, fits) == DLB_OK);
  /* row 5 (0-based): device 0, b = 256, L = 9; the device varies slowest */
  double tm, f, b, mb, v5[2] = {256, 9};
  dlb_sweep_prog_time(p, v5, &d, &tm, &f, &b, &mb);
  CHECK_NEAR(col[5], tm, 1e-15);
  CHECK(dev[5] == 0 && dev[6] == 1);
  CHECK(fits[0] == 1 && fits[6] == 0); /* 1 kB of memory holds nothing */
  /* the same grid's kept rows from their stored values (dlb_sweep_keep: a checkpointed
  ** sweep's finished chunk): every column as the evaluation's, bit for bit */
  char *st = NULL, *st2 = NULL;
  size_t len = 0, len2 = 0;
  CHECK(dlb_reduce_keep_text(k, 0, 12, &st, &len) == DLB_OK);
  CHECK(len == 12 * 64 && strlen(st) == len);
  /* row 6's time: its bits as 16 hex digits */
  double c[12];
  CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, 3 + DLB_SWC_TIME, 0, 12, c) == DLB_OK);
  char want[17];
  unsigned long long u;
  memcpy(&u, &c[6], sizeof u);
  snprintf(want, sizeof want, "%016llx", u);
  CHECK(strncmp(st + 6 * 64, want, 16) == 0);
  CHECK(dlb_reduce_keep_text(k, 5, 2, &st2, &len2) == DLB_OK);
  CHECK(len2 == 128 && memcmp(st2, st + 5 * 64, 128) == 0);
  dlb_reduce_text_free(st2);
  CHECK(dlb_reduce_keep_text(k, 5, 8, &st2, &len2) == DLB_EINVAL); /* past the 12 rows */
  dlb_reduce *k3 = dlb_reduce_new(17);
  CHECK(dlb_reduce_keep(k3, 100) == DLB_OK);
  CHECK(dlb_sweep_keep(p, 2, nval, 5, values, 2, two, mem, 0, NULL, 0, 0, k3, len, st) == DLB_OK);
  CHECK(dlb_reduce_size(k3, DLB_RED_KEEP, 0) == 12);
  for (int cc = -1; cc < 17; cc++) {
    double x[12], y[12];
    CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, cc, 0, 12, x) == DLB_OK);
    CHECK(dlb_reduce_column(k3, DLB_RED_KEEP, 0, cc, 0, 12, y) == DLB_OK);
    CHECK(memcmp(x, y, sizeof x) == 0 || (cc == 3 + DLB_SWC_PEAK && x[0] != x[0]));
  }
  /* a wrong count of stored values, or reductions that keep no rows: refused */
  CHECK(dlb_sweep_keep(p, 2, nval, 5, values, 2, two, mem, 0, NULL, 0, 0, k3, len - 1, st) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "767 characters of stored values for 12 configurations") != NULL);
  dlb_reduce *k4 = dlb_reduce_new(17);
  CHECK(dlb_sweep_keep(p, 2, nval, 5, values, 2, two, mem, 0, NULL, 0, 0, k4, len, st) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "keep no rows") != NULL);
  CHECK(dlb_reduce_keep(k4, 100) == DLB_OK);
  st[100] = 'g'; /* not a hex digit: refused, nothing kept */
  CHECK(dlb_sweep_keep(p, 2, nval, 5, values, 2, two, mem, 0, NULL, 0, 0, k4, len, st) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "character 101 is not a hex digit") != NULL);
  CHECK(dlb_reduce_size(k4, DLB_RED_KEEP, 0) == 0);
  dlb_reduce_free(k4);
  dlb_reduce_text_free(st);
  dlb_reduce_free(k3);
  dlb_reduce_free(k);
  /* bad input */
  double bad[2] = {2.5, 1};
  CHECK(dlb_sweep_prog_totals(p, bad, col) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "positive integer") != NULL);
  CHECK(dlb_sweep_eval(p, 2, nval, 4, values, 2, two, mem, 0, NULL, 0, 0, NULL, 1, &n) == DLB_EINVAL);
  /* a stack's memory term that is negative or not finite is refused, naming the device */
  double badmem[16];
  memcpy(badmem, mem, sizeof badmem);
  badmem[8 + DLB_SWM_FIXED] = -1;
  dlb_reduce *k2 = dlb_reduce_new(17);
  CHECK(dlb_sweep_eval(p, 2, nval, 5, values, 2, two, badmem, 0, NULL, 0, 0, k2, 1, &n) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "device 2: the stack's memory terms") != NULL);
  dlb_reduce_free(k2);
  dlb_sweep_prog_free(p);
  /* a layered program that gets one graph cannot finish */
  p = dlb_sweep_prog_new(1, vars, 1);
  dlb_graph *g = mlp(1);
  dlb_sweep_prog_add(p, g, &o, 1);
  CHECK(dlb_sweep_prog_finish(p) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "needs 3") != NULL);
  dlb_graph_free(g);
  dlb_sweep_prog_free(p);
}

static void test_reductions(void) {
  /* rows (a, b, key): a Pareto front minimising a and b */
  const double rows[] = {3, 1, 0,  1, 3, 1,  2, 2, 0,  2, 3, 1,  1, 3, 0,  4, 0, 1};
  dlb_reduce *r = dlb_reduce_new(3);
  int pid, tid, bid, gid;
  const int cols[] = {0, 1}, mx[] = {0, 0};
  CHECK(dlb_reduce_pareto(r, 2, cols, mx, -1, &pid) == DLB_OK);
  CHECK(dlb_reduce_top(r, 2, 1, 1, -1, &tid) == DLB_OK);             /* largest b */
  const double xe[] = {0, 2, 5};
  CHECK(dlb_reduce_bins(r, 0, 3, xe, -1, 0, NULL, 1, DLB_AGG_MIN, -1, &bid) == DLB_OK);
  const int keys[] = {2}, vals[] = {0};
  CHECK(dlb_reduce_group(r, 1, keys, 1, vals, -1, &gid) == DLB_OK);
  CHECK(dlb_reduce_push(r, 3, rows, 0) == DLB_OK);
  CHECK(dlb_reduce_push(r, 3, rows + 9, 3) == DLB_OK);
  CHECK(dlb_reduce_seen(r) == 6);
  /* front: (1,3) first at index 1 (the equal row 4 drops), (2,2), (3,1), (4,0) */
  CHECK(dlb_reduce_size(r, DLB_RED_PARETO, pid) == 4);
  double a[4], idx[4];
  dlb_reduce_column(r, DLB_RED_PARETO, pid, 0, 0, 4, a);
  dlb_reduce_column(r, DLB_RED_PARETO, pid, -1, 0, 4, idx);
  CHECK(a[0] == 1 && a[1] == 2 && a[2] == 3 && a[3] == 4);
  CHECK(idx[0] == 1);
  /* top 2 by largest b: 3 (index 1), 3 (index 3) */
  double tb[2], ti[2];
  dlb_reduce_column(r, DLB_RED_TOP, tid, 1, 0, 2, tb);
  dlb_reduce_column(r, DLB_RED_TOP, tid, -1, 0, 2, ti);
  CHECK(tb[0] == 3 && tb[1] == 3 && ti[0] == 1 && ti[1] == 3);
  /* bins of a over [0,2), [2,5]: min of b */
  double bv[2], bc[2];
  dlb_reduce_column(r, DLB_RED_BINS, bid, 0, 0, 2, bv);
  dlb_reduce_column(r, DLB_RED_BINS, bid, 1, 0, 2, bc);
  CHECK(bv[0] == 3 && bc[0] == 2 && bv[1] == 0 && bc[1] == 4);
  /* groups by key: key 0 has a = 3, 2, 1; key 1 has 1, 2, 4 */
  CHECK(dlb_reduce_size(r, DLB_RED_GROUP, gid) == 2);
  double gk[2], gn[2], gs[2], gmin[2];
  dlb_reduce_column(r, DLB_RED_GROUP, gid, 0, 0, 2, gk);
  dlb_reduce_column(r, DLB_RED_GROUP, gid, 1, 0, 2, gn);
  dlb_reduce_column(r, DLB_RED_GROUP, gid, 2, 0, 2, gs);
  dlb_reduce_column(r, DLB_RED_GROUP, gid, 3, 0, 2, gmin);
  CHECK(gk[0] == 0 && gn[0] == 3 && gs[0] == 6 && gmin[0] == 1);
  CHECK(gk[1] == 1 && gn[1] == 3 && gs[1] == 7 && gmin[1] == 1);
  /* a partial state read back (dlb_reduce_column) and added to a reducer made alike
  ** (dlb_reduce_add: a checkpointed sweep's finished chunk) is dlb_reduce_merge's: two halves
  ** of the rows, each reduced alone, then added, give the reductions of all the rows */
  {
    dlb_reduce *whole = dlb_reduce_new(3), *part[2], *sum = dlb_reduce_new(3);
    int mean_id;
    part[0] = dlb_reduce_new(3), part[1] = dlb_reduce_new(3);
    dlb_reduce *all[4] = {whole, part[0], part[1], sum};
    for (int q = 0; q < 4; q++) {
      CHECK(dlb_reduce_pareto(all[q], 2, cols, mx, -1, &pid) == DLB_OK);
      CHECK(dlb_reduce_top(all[q], 2, 1, 1, -1, &tid) == DLB_OK);
      CHECK(dlb_reduce_bins(all[q], 0, 3, xe, -1, 0, NULL, 1, DLB_AGG_MIN, -1, &bid) == DLB_OK);
      CHECK(dlb_reduce_bins(all[q], 0, 3, xe, -1, 0, NULL, 1, DLB_AGG_MEAN, -1, &mean_id) == DLB_OK);
      CHECK(dlb_reduce_group(all[q], 1, keys, 1, vals, -1, &gid) == DLB_OK);
    }
    CHECK(dlb_reduce_push(whole, 6, rows, 0) == DLB_OK);
    CHECK(dlb_reduce_push(part[0], 3, rows, 0) == DLB_OK);
    CHECK(dlb_reduce_push(part[1], 3, rows + 9, 3) == DLB_OK);
    for (int h = 0; h < 2; h++) {
      double d[64], x[8];
      size_t n;
      int kinds[2] = {DLB_RED_PARETO, DLB_RED_TOP}, ids[2] = {pid, tid};
      for (int q = 0; q < 2; q++) { /* rows: the index, then the columns */
        n = dlb_reduce_size(part[h], kinds[q], ids[q]);
        for (int cc = -1; cc < 3; cc++) {
          dlb_reduce_column(part[h], kinds[q], ids[q], cc, 0, n, x);
          for (size_t i = 0; i < n; i++) d[4 * i + (size_t)(cc + 1)] = x[i];
        }
        CHECK(dlb_reduce_add(sum, kinds[q], ids[q], n, 4 * n, d) == DLB_OK);
      }
      int bids[2] = {bid, mean_id};
      for (int q = 0; q < 2; q++) { /* bins: accumulator, count */
        double acc[2], cnt[2];
        dlb_reduce_column(part[h], DLB_RED_BINS, bids[q], 2, 0, 2, acc);
        dlb_reduce_column(part[h], DLB_RED_BINS, bids[q], 1, 0, 2, cnt);
        for (int i = 0; i < 2; i++) d[2 * i] = acc[i], d[2 * i + 1] = cnt[i];
        CHECK(dlb_reduce_add(sum, DLB_RED_BINS, bids[q], 2, 4, d) == DLB_OK);
      }
      n = dlb_reduce_size(part[h], DLB_RED_GROUP, gid); /* key, count, sum, min, max */
      for (int cc = 0; cc < 5; cc++) {
        dlb_reduce_column(part[h], DLB_RED_GROUP, gid, cc, 0, n, x);
        for (size_t i = 0; i < n; i++) d[5 * i + (size_t)cc] = x[i];
      }
      CHECK(dlb_reduce_add(sum, DLB_RED_GROUP, gid, n, 5 * n, d) == DLB_OK);
    }
    int kinds[5] = {DLB_RED_PARETO, DLB_RED_TOP, DLB_RED_BINS, DLB_RED_BINS, DLB_RED_GROUP};
    int ids[5] = {pid, tid, bid, mean_id, gid}, ncol[5] = {3, 3, 3, 3, 5};
    for (int q = 0; q < 5; q++) {
      size_t n = dlb_reduce_size(whole, kinds[q], ids[q]);
      CHECK(n == dlb_reduce_size(sum, kinds[q], ids[q]));
      for (int cc = kinds[q] == DLB_RED_BINS || kinds[q] == DLB_RED_GROUP ? 0 : -1; cc < ncol[q]; cc++) {
        double x[8], y[8];
        CHECK(dlb_reduce_column(whole, kinds[q], ids[q], cc, 0, n, x) == DLB_OK);
        CHECK(dlb_reduce_column(sum, kinds[q], ids[q], cc, 0, n, y) == DLB_OK);
        CHECK(memcmp(x, y, n * sizeof *x) == 0);
      }
    }
    /* bad input: a wrong length, a bin count that is not the heat map's, kept rows */
    double d[8] = {0};
    CHECK(dlb_reduce_add(sum, DLB_RED_TOP, tid, 2, 7, d) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "7 values for 2 entries of 4") != NULL);
    CHECK(dlb_reduce_add(sum, DLB_RED_BINS, bid, 3, 6, d) == DLB_EINVAL);
    /* entries whose count times the width wraps around size_t (2^62 x 4 = 0): refused, not
    ** read past data (tests/fuzz/fuzz_sweepck.c's input corpus/sweepck/wrap-count) */
    CHECK(dlb_reduce_add(sum, DLB_RED_TOP, tid, (size_t)1 << 62, 0, d) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "0 values for 4611686018427387904 entries of 4") != NULL);
    CHECK(dlb_reduce_add(sum, DLB_RED_KEEP, 0, 0, 0, d) == DLB_EINVAL);
    CHECK(dlb_reduce_add(sum, DLB_RED_GROUP, 5, 0, 0, d) == DLB_EINVAL);
    for (int q = 0; q < 4; q++) dlb_reduce_free(all[q]);
  }
  /* kept pushed rows (dlb.sweep.layouts' checkpointed plan calls): each half's read back
  ** (index, then the row) and added, in either order, are the rows pushed whole, in index
  ** order; the cap holds; a wrong width or a reducer that keeps nothing is refused */
  {
    dlb_reduce *whole = dlb_reduce_new(3), *part[2], *sum = dlb_reduce_new(3), *small = dlb_reduce_new(3);
    part[0] = dlb_reduce_new(3), part[1] = dlb_reduce_new(3);
    dlb_reduce *all[5] = {whole, part[0], part[1], sum, small};
    for (int q = 0; q < 5; q++) CHECK(dlb_reduce_keep(all[q], q == 4 ? 5 : 100) == DLB_OK);
    CHECK(dlb_reduce_push(whole, 6, rows, 0) == DLB_OK);
    CHECK(dlb_reduce_push(part[0], 3, rows, 0) == DLB_OK);
    CHECK(dlb_reduce_push(part[1], 3, rows + 9, 3) == DLB_OK);
    double d[2][16], x[8], y[8];
    for (int h = 0; h < 2; h++) {
      CHECK(dlb_reduce_size(part[h], DLB_RED_KEEP, 0) == 3);
      for (int cc = -1; cc < 3; cc++) {
        dlb_reduce_column(part[h], DLB_RED_KEEP, 0, cc, 0, 3, x);
        for (size_t i = 0; i < 3; i++) d[h][4 * i + (size_t)(cc + 1)] = x[i];
      }
    }
    CHECK(dlb_reduce_add(sum, DLB_RED_KEEP, 0, 3, 12, d[1]) == DLB_OK); /* the later half first */
    CHECK(dlb_reduce_add(sum, DLB_RED_KEEP, 0, 3, 12, d[0]) == DLB_OK);
    CHECK(dlb_reduce_size(sum, DLB_RED_KEEP, 0) == 6);
    for (int cc = -1; cc < 3; cc++) {
      CHECK(dlb_reduce_column(whole, DLB_RED_KEEP, 0, cc, 0, 6, x) == DLB_OK);
      CHECK(dlb_reduce_column(sum, DLB_RED_KEEP, 0, cc, 0, 6, y) == DLB_OK);
      CHECK(memcmp(x, y, 6 * sizeof *x) == 0);
    }
    CHECK(y[5] == rows[17]); /* the last row's last column, in place */
    CHECK(dlb_reduce_add(small, DLB_RED_KEEP, 0, 3, 12, d[0]) == DLB_OK);
    CHECK(dlb_reduce_add(small, DLB_RED_KEEP, 0, 3, 12, d[1]) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "more than 5 rows to keep") != NULL);
    CHECK(dlb_reduce_add(sum, DLB_RED_KEEP, 0, 3, 11, d[0]) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "11 values for 3 entries of 4") != NULL);
    CHECK(dlb_reduce_add(sum, DLB_RED_KEEP, 1, 0, 0, d[0]) == DLB_EINVAL);
    /* the same through text (dlb_reduce_keep_text: 16 hex digits a number, the index first;
    ** read back by dlb_reduce_keep_add_text), bit for bit; a bad digit or length refused */
    dlb_reduce *back = dlb_reduce_new(3);
    CHECK(dlb_reduce_keep(back, 100) == DLB_OK);
    char *text = NULL;
    size_t len = 0;
    CHECK(dlb_reduce_keep_text(part[1], 0, 3, &text, &len) == DLB_OK && len == 3 * 64);
    CHECK(strncmp(text, "4008000000000000", 16) == 0); /* index 3 */
    CHECK(dlb_reduce_keep_add_text(back, 3, text, len) == DLB_OK);
    dlb_reduce_text_free(text);
    CHECK(dlb_reduce_keep_text(part[0], 0, 3, &text, &len) == DLB_OK);
    CHECK(dlb_reduce_keep_add_text(back, 3, text, len - 1) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "191 characters for 3 kept rows of 4 numbers") != NULL);
    text[5] = 'x';
    CHECK(dlb_reduce_keep_add_text(back, 3, text, len) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "character 6 is not a hex digit") != NULL);
    text[5] = '0';
    CHECK(dlb_reduce_keep_add_text(back, 3, text, len) == DLB_OK);
    dlb_reduce_text_free(text);
    for (int cc = -1; cc < 3; cc++) {
      CHECK(dlb_reduce_column(whole, DLB_RED_KEEP, 0, cc, 0, 6, x) == DLB_OK);
      CHECK(dlb_reduce_column(back, DLB_RED_KEEP, 0, cc, 0, 6, y) == DLB_OK);
      CHECK(memcmp(x, y, 6 * sizeof *x) == 0);
    }
    dlb_reduce_free(back);
    for (int q = 0; q < 5; q++) dlb_reduce_free(all[q]);
  }
  /* bad input */
  CHECK(dlb_reduce_top(r, 0, 0, 0, -1, &tid) == DLB_EINVAL);
  const double down[] = {1, 0};
  CHECK(dlb_reduce_bins(r, 0, 2, down, -1, 0, NULL, 1, DLB_AGG_MIN, -1, &bid) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "increase") != NULL);
  CHECK(dlb_reduce_column(r, DLB_RED_PARETO, pid, 0, 3, 2, a) == DLB_EINVAL);
  CHECK(dlb_reduce_keep(r, 1) == DLB_OK);
  CHECK(dlb_reduce_push(r, 2, rows, 10) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "rows to keep") != NULL);
  dlb_reduce_free(r);
  CHECK(dlb_reduce_new(0) == NULL);
}

static dlb_graph *mlp_kinds(const char *kinds, const char *in);

/* The ReLU MLP of `layers` hidden layers on an input [b, in] (in = 8192: a first layer far
** heavier than the others). */
static dlb_graph *mlp_wide(int layers, const char *in) {
  char kinds[64];
  CHECK(layers < 64);
  memset(kinds, 'A', (size_t)layers);
  kinds[layers] = 0;
  return mlp_kinds(kinds, in);
}

/* An MLP whose hidden layers are of two kinds, A (relu) and B (tanh), in the order `kinds`:
** "A", "AB", "BAB" count every op affinely in the depth (A once, B depth - 1 times) but are
** no fixed ops around a repeated layer. */
static dlb_graph *mlp_kinds(const char *kinds, const char *in) {
  dlb_graph *g = dlb_graph_new("mlp");
  const char *xd[] = {"b", in}, *yd[] = {"b", "64"};
  int x, y, out;
  dlb_graph_tensor(g, "x", DLB_ROLE_INPUT, 0, 2, xd, &x);
  dlb_graph_linear(g, x, "64", 1, "in", &x);
  for (int l = 0; kinds[l]; l++) {
    char name[32];
    snprintf(name, sizeof name, "h%d", l);
    dlb_graph_layer(g, name);
    dlb_graph_linear(g, x, "64", 1, name, &x);
    dlb_graph_op1(g, dlb_graph_op_type(kinds[l] == 'A' ? "relu" : "tanh"), NULL, x, -1, 0, 0, &x);
  }
  dlb_graph_layer(g, NULL);
  dlb_graph_tensor(g, "y", DLB_ROLE_LABEL, 0, 2, yd, &y);
  dlb_graph_op1(g, dlb_graph_op_type("mse"), "loss", x, y, 0, 0, &out);
  dlb_graph_set_loss(g, out);
  return g;
}

/* The per-op roofline of an analysis's ops in reverse order (same ops, same shapes). */
static double reversed_time(const dlb_analysis *a, const dlb_roof *d) {
  size_t n = dlb_analysis_nops(a);
  const double *f = dlb_analysis_op_flops(a), *b = dlb_analysis_op_bytes(a);
  double *rf = malloc((n + 1) * sizeof *rf), *rb = malloc((n + 1) * sizeof *rb);
  for (size_t i = 0; i < n; i++) rf[i] = f[n - 1 - i], rb[i] = b[n - 1 - i];
  dlb_opcosts *c = dlb_opcosts_new(n, rf, rb);
  free(rf);
  free(rb);
  for (size_t i = 0; i < n; i++) {
    double g[4];
    if (dlb_analysis_op_gemm(a, n - 1 - i, g) == DLB_OK && g[0] > 0 && g[1] > 0 && g[2] > 0 &&
        g[3] > 0)
      CHECK(dlb_opcosts_set_gemm(c, i, g[0], g[1], g[2], g[3]) == DLB_OK);
  }
  dlb_roof_result r;
  CHECK(dlb_opcosts_roofline(c, d, NULL, NULL, &r) == DLB_OK);
  dlb_opcosts_free(c);
  return r.time;
}

/* The host-side model (issue [19]: graphs/hw/roofline_impl.h's dlb_timeline): with host_op > 0
** the per-op path runs the step's ops in order through the host/device timeline, so the step
** time depends on the ops' order, not only on their multiset; the compiled program keeps the
** order (fixed ops and one layer's ops per pass, repeated) and gives the per-op path's time
** at depths it was not built at, over host costs from device-bound to host-bound; the wide
** MLP's heavy first layer puts the device ahead, and its host-bound hidden layers then climb
** the lag back layer by layer (run_reps' counted idle-free repetitions). */
static void test_host_timeline(void) {
  const char *vars[] = {"b"};
  dlb_train_opts o = {DLB_OPT_ADAM, DLB_POLICY_FP32, 0, 0, 0, DLB_FUSE_ALL, 0};
  dlb_sweep_prog *p;
  dlb_roof d = device();
  int order_matters = 0;
  double worst = 0, worst_sum = 0;
  size_t npts = 0;
  for (int fam = 0; fam < 2; fam++) {
    p = dlb_sweep_prog_new(1, vars, 1);
    for (int L = 1; L <= 3; L++) {
      dlb_graph *g = fam ? mlp_wide(L, "8192") : mlp(L);
      CHECK(dlb_sweep_prog_add(p, g, &o, L) == DLB_OK);
      dlb_graph_free(g);
    }
    CHECK(dlb_sweep_prog_finish(p) == DLB_OK);
    const double hosts[] = {1e-7, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4};
    const double bs[] = {1, 64, 4096, 65536, 1048576};
    const int Ls[] = {1, 4, 9, 40};
    for (size_t li = 0; li < sizeof Ls / sizeof *Ls; li++) {
      dlb_graph *g = fam ? mlp_wide(Ls[li], "8192") : mlp(Ls[li]);
      for (size_t bi = 0; bi < sizeof bs / sizeof *bs; bi++) {
        const char *names[] = {"b"};
        dlb_analysis *a = dlb_graph_analyze(g, &o, 1, names, &bs[bi]);
        CHECK(a != NULL);
        dlb_opcosts *c = dlb_opcosts_from_analysis(a);
        for (size_t hi = 0; hi < sizeof hosts / sizeof *hosts; hi++) {
          d.host_op = hosts[hi];
          dlb_roof_result r;
          CHECK(dlb_opcosts_roofline(c, &d, NULL, NULL, &r) == DLB_OK);
          double vals[2] = {bs[bi], Ls[li]}, tm, f, b, mb, want = r.time;
          CHECK(dlb_sweep_prog_time(p, vals, &d, &tm, &f, &b, &mb) == DLB_OK);
          worst = fmax(worst, fabs(tm - want) / want);
          CHECK_NEAR(tm, want, 1e-12);
          /* what a class sum would say: the op times (host_op 0) plus the idle it cannot place */
          dlb_roof d0 = d;
          d0.host_op = 0;
          double t0;
          CHECK(dlb_sweep_prog_time(p, vals, &d0, &t0, &f, &b, &mb) == DLB_OK);
          worst_sum = fmax(worst_sum, fabs(t0 - want) / want);
          /* the same ops in reverse order take another time: order is part of the answer */
          double rev = reversed_time(a, &d) + d.step_overhead;
          if (fabs(rev - want) > 1e-3 * want) order_matters++;
          npts++;
        }
        dlb_opcosts_free(c);
        dlb_analysis_free(a);
      }
      dlb_graph_free(g);
    }
    dlb_sweep_prog_free(p);
  }
  printf("# host timeline: worst relative gap %.2g over %zu points; reversed order differs "
         "(> 0.1%%) at %d; host_op = 0's time is off by up to %.2g\n", worst, npts,
         order_matters, worst_sum);
  CHECK(order_matters >= 10);
  CHECK(worst_sum > 0.1);
  /* a layer whose ops first occur in the second build (as ParaDnn's FC nets: L - 1
  ** hidden-to-hidden layers): "A", "AB", "ABB", timed at depth 1 (no B) and 7 */
  p = dlb_sweep_prog_new(1, vars, 1);
  const char *grow[] = {"A", "AB", "ABB", "ABBBBBB"};
  for (int L = 1; L <= 3; L++) {
    dlb_graph *g = mlp_kinds(grow[L - 1], "32");
    CHECK(dlb_sweep_prog_add(p, g, &o, L) == DLB_OK);
    dlb_graph_free(g);
  }
  CHECK(dlb_sweep_prog_finish(p) == DLB_OK);
  d.host_op = 1e-5;
  double v0[2] = {8, 1}, tm, f, b, mb;
  for (int q = 0; q < 2; q++) {
    dlb_graph *g = mlp_kinds(grow[3 * q], "32");
    const char *names[] = {"b"};
    dlb_analysis *a = dlb_graph_analyze(g, &o, 1, names, &v0[0]);
    dlb_opcosts *c = dlb_opcosts_from_analysis(a);
    dlb_roof_result r;
    CHECK(dlb_opcosts_roofline(c, &d, NULL, NULL, &r) == DLB_OK);
    double v[2] = {8, q ? 7 : 1};
    CHECK(dlb_sweep_prog_time(p, v, &d, &tm, &f, &b, &mb) == DLB_OK);
    CHECK_NEAR(tm, r.time, 1e-12);
    dlb_opcosts_free(c);
    dlb_analysis_free(a);
    dlb_graph_free(g);
  }
  dlb_sweep_prog_free(p);
  /* builds whose order is not fixed ops around repeated layers: the class sums still hold
  ** (host_op = 0), the timeline is refused with a message */
  p = dlb_sweep_prog_new(1, vars, 1);
  const char *kinds[] = {"A", "AB", "BAB"};
  for (int L = 1; L <= 3; L++) {
    dlb_graph *g = mlp_kinds(kinds[L - 1], "32");
    CHECK(dlb_sweep_prog_add(p, g, &o, L) == DLB_OK);
    dlb_graph_free(g);
  }
  CHECK(dlb_sweep_prog_finish(p) == DLB_OK);
  d.host_op = 0;
  CHECK(dlb_sweep_prog_time(p, v0, &d, &tm, &f, &b, &mb) == DLB_OK);
  d.host_op = 1e-5;
  CHECK(dlb_sweep_prog_time(p, v0, &d, &tm, &f, &b, &mb) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "op order") != NULL);
  dlb_reduce *k = dlb_reduce_new(2 + 1 + DLB_SWC_COUNT);
  const double nval[] = {1, 1}, values[] = {8, 5}, mem[] = {DLB_MEM_FRAMEWORK, 0, 4, 80e9, 0, 0, 0, 0};
  double n;
  CHECK(dlb_sweep_eval(p, 2, nval, 2, values, 1, &d, mem, 0, NULL, 0, 0, k, 1, &n) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "device 1: host_op") != NULL);
  dlb_reduce_free(k);
  dlb_sweep_prog_free(p);
}

/* The one step model (graphs/hw/roofline_impl.h, dlb_step_time): the per-configuration path
** (an op-cost set made from a step's analysis) and the compiled program's per-configuration
** call take the step-level terms from the same function, so a change of one term moves both
** by the same seconds: with and without the host timeline, the step overhead raised by 3 ms
** moves both times by 3 ms and leaves them equal; a set of bare ops (not a step) gets no
** step overhead. */
static void test_one_step_model(void) {
  const char *vars[] = {"b"};
  dlb_train_opts o = {DLB_OPT_ADAM, DLB_POLICY_FP32, 0, 0, 0, DLB_FUSE_ALL, 0};
  dlb_sweep_prog *p = dlb_sweep_prog_new(1, vars, 1);
  for (int L = 1; L <= 3; L++) {
    dlb_graph *g = mlp(L);
    CHECK(dlb_sweep_prog_add(p, g, &o, L) == DLB_OK);
    dlb_graph_free(g);
  }
  CHECK(dlb_sweep_prog_finish(p) == DLB_OK);
  dlb_graph *g = mlp(6);
  const char *names[] = {"b"};
  const double b = 64;
  dlb_analysis *a = dlb_graph_analyze(g, &o, 1, names, &b);
  CHECK(a != NULL);
  dlb_opcosts *c = dlb_opcosts_from_analysis(a);
  dlb_opcosts *bare = dlb_opcosts_new(dlb_analysis_nops(a), dlb_analysis_op_flops(a),
                                      dlb_analysis_op_bytes(a));
  const double hosts[] = {0, 2e-5};
  for (int h = 0; h < 2; h++) {
    dlb_roof d = device();
    d.host_op = hosts[h];
    double vals[2] = {b, 6}, t[2], tc[2], tb[2], f, by, mb;
    for (int k = 0; k < 2; k++) {
      d.step_overhead = k ? 3e-3 : 0;
      dlb_roof_result r, rb;
      CHECK(dlb_opcosts_roofline(c, &d, NULL, NULL, &r) == DLB_OK);
      CHECK(dlb_opcosts_roofline(bare, &d, NULL, NULL, &rb) == DLB_OK);
      CHECK(dlb_sweep_prog_time(p, vals, &d, &tc[k], &f, &by, &mb) == DLB_OK);
      t[k] = r.time, tb[k] = rb.time;
      CHECK_NEAR(tc[k], t[k], 1e-12);
      CHECK(r.util == r.flops / (r.time * d.peak));
    }
    CHECK_NEAR(t[1] - t[0], 3e-3, 1e-9);
    CHECK_NEAR(tc[1] - tc[0], 3e-3, 1e-9);
    CHECK(tb[1] == tb[0]);
  }
  dlb_opcosts_free(c);
  dlb_opcosts_free(bare);
  dlb_analysis_free(a);
  dlb_graph_free(g);
  dlb_sweep_prog_free(p);
}

/* A chain: x [b, 32] through a linear layer to 64 features (no bias), then `layers` relus. */
static dlb_graph *chain(int layers) {
  dlb_graph *g = dlb_graph_new("chain");
  const char *xd[] = {"b", "32"};
  int x;
  dlb_graph_tensor(g, "x", DLB_ROLE_INPUT, 0, 2, xd, &x);
  dlb_graph_linear(g, x, "64", 0, "in", &x);
  for (int l = 0; l < layers; l++) {
    char name[32];
    snprintf(name, sizeof name, "r%d", l);
    dlb_graph_layer(g, name);
    dlb_graph_op1(g, dlb_graph_op_type("relu"), NULL, x, -1, 0, 0, &x);
  }
  dlb_graph_layer(g, NULL);
  return g;
}

/* The construction order's peak by hand (graphs/step/footprint.c's counting): the chain's
** inference step in fp32 holds the weight (32 x 64 x 4 = 8192 bytes) throughout and x (128 b
** bytes) from the start; the matmul allocates its output (256 b: 8192 + 384 b live) before x
** goes; each relu allocates 256 b beside its input (8192 + 512 b), which then goes. So the
** peak is 8192 + 512 b at the first relu, activations 512 b, at every depth >= 1. In the
** row, peak is that and memory the framework rule (dlb_step_memory): weights + 2048 trainable
** parameters x 4 gradient bytes + activations, no slack. */
static void test_peak_by_hand(void) {
  dlb_train_opts o = {DLB_OPT_SGD, DLB_POLICY_FP32, 0, 0, 1, 0, 0};
  dlb_sweep_prog *p = layered(chain, &o);
  const double bs[] = {1, 3, 1000}, Ls[] = {1, 4, 20};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double vals[2] = {bs[i], Ls[j]}, tot[DLB_SWT_COUNT];
      CHECK(dlb_sweep_prog_totals(p, vals, tot) == DLB_OK);
      CHECK(tot[DLB_SWT_PEAK] == 8192 + 512 * bs[i]);
      CHECK(tot[DLB_SWT_PEAK_ACT] == 512 * bs[i]);
    }
  dlb_reduce *k = dlb_reduce_new(2 + 1 + DLB_SWC_COUNT);
  CHECK(dlb_reduce_keep(k, 10) == DLB_OK);
  const double nval[] = {1, 1}, values[] = {3, 7};
  dlb_roof d = device();
  const double mem[] = {DLB_MEM_FRAMEWORK, 0, 4, 80e9, 0, 0, 0, 0};
  double n = 0, m, pk;
  CHECK(dlb_sweep_eval(p, 2, nval, 2, values, 1, &d, mem, 0, NULL, 0, 0, k, 1, &n) == DLB_OK);
  CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, 3 + DLB_SWC_MEMORY, 0, 1, &m) == DLB_OK);
  CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, 3 + DLB_SWC_PEAK, 0, 1, &pk) == DLB_OK);
  CHECK(m == 8192 + 2048 * 4 + 512 * 3);
  CHECK(pk == 8192 + 512 * 3);
  dlb_reduce_free(k);
  dlb_sweep_prog_free(p);
}

/* Bitwise equality of two doubles (NaN payloads and -0 included). */
static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* One sweep into `keep` (kept rows, compact) and `all` (a top list as long as the grid:
** the rows dlb_sweep_eval writes, held whole): every column and index of every kept row
** must equal the whole row of the same index, bit for bit. */
static void compare_kept(dlb_reduce *keep, dlb_reduce *all, int tid, size_t n) {
  size_t nc = dlb_reduce_ncols(keep);
  CHECK(dlb_reduce_size(keep, DLB_RED_KEEP, 0) == n);
  CHECK(dlb_reduce_size(all, DLB_RED_TOP, tid) == n);
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *ia = malloc(n * sizeof *ia),
         *ib = malloc(n * sizeof *ib);
  size_t *at = malloc(n * sizeof *at);
  CHECK(dlb_reduce_column(keep, DLB_RED_KEEP, 0, -1, 0, n, ia) == DLB_OK);
  CHECK(dlb_reduce_column(all, DLB_RED_TOP, tid, -1, 0, n, ib) == DLB_OK);
  /* the top list is by time; pair its rows with the kept ones by index */
  for (size_t i = 0; i < n; i++) {
    at[i] = n;
    for (size_t j = 0; j < n; j++) if (ib[j] == ia[i]) at[i] = j;
    CHECK(at[i] < n);
    if (i) CHECK(ia[i] > ia[i - 1]); /* kept rows in index order */
  }
  int bad = 0;
  for (size_t c = 0; c < nc; c++) {
    CHECK(dlb_reduce_column(keep, DLB_RED_KEEP, 0, (int)c, 0, n, a) == DLB_OK);
    CHECK(dlb_reduce_column(all, DLB_RED_TOP, tid, (int)c, 0, n, b) == DLB_OK);
    for (size_t i = 0; i < n; i++)
      if (at[i] < n && !same_bits(a[i], b[at[i]])) {
        if (bad++ < 5) fprintf(stderr, "kept row %zu column %zu: %.17g, written %.17g\n", i, c, a[i], b[at[i]]);
      }
    /* a read of a part (not from row 0) gives the same numbers */
    if (n > 3) {
      double part[3];
      CHECK(dlb_reduce_column(keep, DLB_RED_KEEP, 0, (int)c, n - 3, 3, part) == DLB_OK);
      for (int i = 0; i < 3; i++) CHECK(same_bits(part[i], a[n - 3 + (size_t)i]));
    }
  }
  CHECK(bad == 0);
  free(a); free(b); free(ia); free(ib); free(at);
}

/* A compiled sweep's kept rows are stored compactly (the step model's four numbers a row;
** coordinates from the position, the rest recomputed through the program on read): every
** column equals what the evaluator writes, bit for bit, over tags, a layered program's
** symbols, three devices (peaks, bytes_scale, both memory rules, a capacity that cuts),
** throughput per_mask, several calls (blocks) fed out of index order, any thread count, a
** program without a peak (memory from the stash, peak NaN), and the program freed by its
** owner before the rows are read. */
static void test_kept_compact(void) {
  dlb_train_opts o = {DLB_OPT_ADAM, DLB_POLICY_FP32, 0, 0, 0, DLB_FUSE_ALL, 0};
  dlb_roof d[3] = {device(), device(), device()};
  d[1].peak = 50e12, d[1].bytes_scale = 0.5, d[1].host_op = 1e-5;
  d[2].peak = 7e12, d[2].bw = 0.3e12;
  /* the third device's rule carries a stack's terms (loss bytes per logit, temporaries per
  ** state byte and per trainable parameter, fixed bytes): decoded on read as written */
  const double mem[] = {DLB_MEM_FRAMEWORK, 0.1, 4, 80e9, 0, 0, 0, 0,
                        DLB_MEM_MINIMAL, 0, 2, 2e6, 0, 0, 0, 0,
                        DLB_MEM_FRAMEWORK, 0, 4, 5e5, 8, 0.5, 4, 1.4e9};
  const double nval[] = {4, 3}, values[] = {1, 7, 256, 3000, 1, 2, 9};
  const double tags[] = {2.5, 0, -1};
  for (int nopeak = 0; nopeak < 2; nopeak++)
    for (int per = 0; per < 4; per++) {
      dlb_sweep_prog *p = layered(mlp, &o);
      if (nopeak) p->peak_ok = 0;
      size_t nc = 3 + 2 + 1 + DLB_SWC_COUNT, grid = 4 * 3 * 3;
      dlb_reduce *keep = dlb_reduce_new(nc), *all = dlb_reduce_new(nc);
      int tid;
      CHECK(dlb_reduce_keep(keep, 1000) == DLB_OK);
      CHECK(dlb_reduce_top(all, 2 * grid, 3 + 2 + 1 + DLB_SWC_TIME, 0, -1, &tid) == DLB_OK);
      double n = 0;
      /* two calls, the second's indices first: the kept rows come back by index */
      for (int call = 0; call < 2; call++) {
        double first = call == 0 ? (double)grid : 0;
        int threads = call == 0 ? 3 : 1;
        for (int s = 0; s < 2; s++)
          CHECK(dlb_sweep_eval(p, 2, nval, 7, values, 3, d, mem, 3, tags, per, first,
                               s ? all : keep, threads, &n) == DLB_OK);
        CHECK(n == (double)grid);
      }
      dlb_sweep_prog_free(p); /* the kept rows hold their own reference */
      compare_kept(keep, all, tid, 2 * grid);
      double pk[2], mm[2];
      CHECK(dlb_reduce_column(keep, DLB_RED_KEEP, 0, 6 + DLB_SWC_PEAK, 0, 2, pk) == DLB_OK);
      CHECK(dlb_reduce_column(keep, DLB_RED_KEEP, 0, 6 + DLB_SWC_MEMORY, 0, 2, mm) == DLB_OK);
      CHECK(nopeak ? isnan(pk[0]) : pk[0] > 0);
      CHECK(mm[0] > 0);
      /* rows pushed by hand cannot join the compact ones, and the reverse */
      double row[3 + 2 + 1 + DLB_SWC_COUNT] = {0};
      CHECK(dlb_reduce_push(keep, 1, row, 99) == DLB_EINVAL);
      CHECK(strstr(dlb_last_error(), "compiled sweep") != NULL);
      dlb_reduce_free(keep);
      dlb_reduce_free(all);
    }
  /* more rows than one cached range (65,536): a whole column read in one call (recomputed
  ** row by row) equals the same column read in ranges (through the range cache) */
  dlb_sweep_prog *p = layered(mlp, &o);
  {
    size_t nb = 70001;
    double *bv = malloc(nb * sizeof *bv), cnt[2] = {(double)(nb - 1), 1}, n = 0;
    for (size_t i = 0; i < nb; i++) bv[i] = (double)(i + 1);
    bv[nb - 1] = 9; /* the layers value */
    dlb_reduce *k = dlb_reduce_new(2 + 1 + DLB_SWC_COUNT);
    CHECK(dlb_reduce_keep(k, 1e6) == DLB_OK);
    int est = dlb_sweep_eval(p, 2, cnt, nb, bv, 1, d, mem, 0, NULL, 0, 0, k, 2, &n);
    if (est) fprintf(stderr, "%s\n", dlb_last_error());
    CHECK(est == DLB_OK);
    size_t rows = nb - 1;
    double *whole = malloc(rows * sizeof *whole), *part = malloc(rows * sizeof *part);
    int cols[] = {3 + DLB_SWC_MEMORY, 3 + DLB_SWC_PARAMS, 3 + DLB_SWC_PEAK, 3 + DLB_SWC_TIME};
    int diff = 0;
    for (int c = 0; c < 4; c++) {
      CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, cols[c], 0, rows, whole) == DLB_OK);
      for (size_t s0 = 0; s0 < rows; s0 += 30000) {
        size_t m = rows - s0 < 30000 ? rows - s0 : 30000;
        CHECK(dlb_reduce_column(k, DLB_RED_KEEP, 0, cols[c], s0, m, part + s0) == DLB_OK);
      }
      for (size_t i = 0; i < rows; i++) diff += !same_bits(whole[i], part[i]);
    }
    CHECK(diff == 0);
    CHECK(whole[rows - 1] > whole[0]); /* the step time grows with the batch */
    free(whole); free(part); free(bv);
    dlb_reduce_free(k);
  }
  /* the cap: a call that would pass it fails up front and keeps nothing of it */
  dlb_reduce *k = dlb_reduce_new(2 + 1 + DLB_SWC_COUNT);
  CHECK(dlb_reduce_keep(k, 20) == DLB_OK);
  double n = 0;
  CHECK(dlb_sweep_eval(p, 2, nval, 7, values, 1, d, mem, 0, NULL, 0, 0, k, 2, &n) == DLB_OK);
  CHECK(dlb_reduce_size(k, DLB_RED_KEEP, 0) == 12);
  CHECK(dlb_sweep_eval(p, 2, nval, 7, values, 1, d, mem, 0, NULL, 0, 12, k, 2, &n) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "more than 20 rows to keep") != NULL);
  CHECK(dlb_reduce_size(k, DLB_RED_KEEP, 0) == 12);
  dlb_reduce_free(k);
  /* a reducer holding pushed rows refuses a sweep's */
  k = dlb_reduce_new(2 + 1 + DLB_SWC_COUNT);
  CHECK(dlb_reduce_keep(k, 100) == DLB_OK);
  double row[2 + 1 + DLB_SWC_COUNT] = {0};
  CHECK(dlb_reduce_push(k, 1, row, 0) == DLB_OK);
  CHECK(dlb_sweep_eval(p, 2, nval, 7, values, 1, d, mem, 0, NULL, 0, 1, k, 1, &n) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "dlb_reduce_push") != NULL);
  dlb_reduce_free(k);
  dlb_sweep_prog_free(p);
}

int main(void) {
  RUN(test_compiled_equals_numeric);
  RUN(test_kept_compact);
  RUN(test_peak_by_hand);
  RUN(test_host_timeline);
  RUN(test_one_step_model);
  RUN(test_reductions);
  return check_done();
}
