/*
** parallel_fixtures.h — what tests/test_parallel.c and tests/test_parallel_ops.c share: the
** Hestness V100-like device, a flat cluster, uniform layers, a layout, two ops per layer.
*/
#ifndef DLB_TEST_PARALLEL_FIXTURES_H
#define DLB_TEST_PARALLEL_FIXTURES_H

#include <string.h>

#include "dlbench.h"
#include "check.h"

/* Hestness et al. 2019 Table 4: 15.67 TFLOP/s fp32, 898 GB/s, 32 GB, 56 GB/s links. */
/* Hestness et al. Table 4's V100-like accelerator, at its 0.8 / 0.7 achievable fractions */
static const dlb_roof V100 = { .peak = 15.67e12, .bw = 898e9, .flops_eff = 0.8, .bw_eff = 0.7,
                               .elem = 4, .bytes_scale = 1, .mem = 32e9 };

static inline dlb_par_cluster flat(double bw, double lat) {
  dlb_par_cluster c;
  memset(&c, 0, sizeof c);
  c.inter.bw = bw;
  c.inter.latency = lat;
  c.inter.eff = 1;
  return c;
}

static inline void uniform_layers(dlb_par_layer *L, int n) {
  memset(L, 0, sizeof(*L) * (size_t)n);
  for (int i = 0; i < n; i++) {
    L[i].flops_fwd = 1e9;
    L[i].flops_bwd = 2e9;
    L[i].params = 1e6;
    L[i].act_out = 1e3;
    L[i].act_kept = 1e6;
    L[i].act_in = 1e5;
  }
}

/* Options of a global batch and a layout dp x tp x pp, m micro-batches, schedule sched. */
static inline void layout(dlb_par_opts *o, double batch, dlb_par_row *cfg, double pp, double m,
                   int sched) {
  memset(o, 0, sizeof *o);
  o->batch = batch;
  memset(cfg, 0, sizeof *cfg);
  cfg->dp = 1; cfg->tp = 1; cfg->pp = pp; cfg->m = m; cfg->sched = sched;
}

/* n layers of two ops each: a forward fused attention kernel of 1e9 FLOPs per sample and a
** backward op of 2e9, nothing else set. */
static inline void two_ops_per_layer(dlb_par_op *ops, int n) {
  memset(ops, 0, sizeof *ops * 2 * (size_t)n);
  for (int i = 0; i < n; i++) {
    ops[2 * i].layer = i; ops[2 * i].phase = 0; ops[2 * i].flops_sample = 1e9;
    ops[2 * i].attention = 1;
    ops[2 * i + 1].layer = i; ops[2 * i + 1].phase = 1; ops[2 * i + 1].flops_sample = 2e9;
  }
}

#endif
