/*
** graph_fixtures.h — what tests/test_graph.c and tests/test_footprint.c share: a tensor and an
** op added to a graph by name, and the SGD training and inference options.
*/
#ifndef DLB_TEST_GRAPH_FIXTURES_H
#define DLB_TEST_GRAPH_FIXTURES_H

#include <stdio.h>

#include "dlbench.h"
#include "dlb_runtime.h"

static inline int T(dlb_graph *g, const char *name, int role, int dt, int n, const char *d0,
                    const char *d1, const char *d2, const char *d3) {
  const char *d[4] = {d0, d1, d2, d3};
  int id = -1;
  if (dlb_graph_tensor(g, name, role, dt, (size_t)n, d, &id)) fprintf(stderr, "%s\n", dlb_last_error());
  return id;
}

static inline int OP(dlb_graph *g, const char *type, const char *name, int a, int b, size_t nat,
                     const int *at) {
  int in[2] = {a, b}, out[8];
  size_t nout;
  if (dlb_graph_op(g, dlb_graph_op_type(type), name, b < 0 ? 1 : 2, in, nat, at, 0, NULL, out, 8, &nout))
    return -1;
  return out[0];
}

static dlb_train_opts SGD = {DLB_OPT_SGD, DLB_POLICY_FP32, DLB_RECOMPUTE_NONE, 0, 0, 0, 0};
static dlb_train_opts INFER = {DLB_OPT_SGD, DLB_POLICY_FP32, DLB_RECOMPUTE_NONE, 0, 1, 0, 0};

#endif
