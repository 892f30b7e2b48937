/*
** mlp_fixture.h — what tests/test_sweep.c and tests/fuzz/fuzz_sweepck.c share: a small MLP
** to compile sweeps over (its depth swept through g:layer scopes).
*/
#ifndef DLB_TEST_MLP_FIXTURE_H
#define DLB_TEST_MLP_FIXTURE_H

#include <stdio.h>

#include "dlbench.h"

/* An MLP of `layers` hidden layers of width `width` on an input [b, in], mse loss; each
** hidden layer in a g:layer scope h<l>. */
static inline dlb_graph *mlp_fixture(int layers, const char *in, const char *width) {
  dlb_graph *g = dlb_graph_new("mlp");
  const char *xd[] = {"b", in}, *yd[] = {"b", width};
  int x, y, out;
  dlb_graph_tensor(g, "x", DLB_ROLE_INPUT, 0, 2, xd, &x);
  dlb_graph_linear(g, x, width, 1, "in", &x);
  for (int l = 0; l < layers; l++) {
    char name[32];
    snprintf(name, sizeof name, "h%d", l);
    dlb_graph_layer(g, name);
    dlb_graph_linear(g, x, width, 1, name, &x);
    dlb_graph_op1(g, dlb_graph_op_type("relu"), NULL, x, -1, 0, 0, &x);
  }
  dlb_graph_layer(g, NULL);
  dlb_graph_tensor(g, "y", DLB_ROLE_LABEL, 0, 2, yd, &y);
  dlb_graph_op1(g, dlb_graph_op_type("mse"), "loss", x, y, 0, 0, &out);
  dlb_graph_set_loss(g, out);
  return g;
}

#endif
