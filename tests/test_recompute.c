/*
** test_recompute.c — which layers full recompute runs again, the one rule of the graph path
** and the planner (dlb_layer_reruns, graphs/step/train.c; dlb_analysis_layer_rerun; issue [18]
** item 5): a layer that reads an activation made in another layer and holds no loss op (a
** block of the stack) runs again; an embedding (only the inputs and its weights) and a head
** (a loss) run once, as Hugging Face's BertEncoder checkpoints each BertLayer with
** BertEmbeddings and BertPooler outside it (transformers models/bert/modeling_bert.py).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_runtime.h"
#include "check.h"
#include "graph_fixtures.h"

/* emb (ids -> embedding -> layernorm: its backward reads its input), blk0, blk1 (matmul,
** relu), pool (matmul, tanh, its own mse loss on the side), head (matmul, softmax_xent) */
static dlb_graph *stack(void) {
  dlb_graph *g = dlb_graph_new("stack");
  int ids = T(g, "ids", DLB_ROLE_INPUT, DLB_DT_INT32, 1, "8", 0, 0, 0), x = -1;
  int y = T(g, "labels", DLB_ROLE_LABEL, DLB_DT_INT32, 1, "8", 0, 0, 0);
  int t = T(g, "target", DLB_ROLE_LABEL, 0, 2, "8", "16", 0, 0);
  CHECK(dlb_graph_layer(g, "emb") == DLB_OK);
  CHECK(dlb_graph_embedding_layer(g, ids, "100", "16", "emb", &x) == DLB_OK);
  CHECK(dlb_graph_norm(g, dlb_graph_op_type("layernorm"), x, "emb/ln", &x) == DLB_OK);
  for (int i = 0; i < 2; i++) {
    char n[16];
    snprintf(n, sizeof n, "blk%d", i);
    CHECK(dlb_graph_layer(g, n) == DLB_OK);
    strcat(n, "/w");
    x = OP(g, "relu", NULL, OP(g, "matmul", NULL, x, T(g, n, DLB_ROLE_WEIGHT, 0, 2, "16", "16", 0, 0),
                                  0, NULL), -1, 0, NULL);
  }
  CHECK(dlb_graph_layer(g, "pool") == DLB_OK);
  int p = OP(g, "tanh", NULL, OP(g, "matmul", NULL, x, T(g, "pool/w", DLB_ROLE_WEIGHT, 0, 2, "16",
                                                          "16", 0, 0), 0, NULL), -1, 0, NULL);
  int aux = OP(g, "mse", "pool/loss", p, t, 0, NULL);
  CHECK(dlb_graph_layer(g, "head") == DLB_OK);
  int lg = OP(g, "matmul", NULL, x, T(g, "head/w", DLB_ROLE_WEIGHT, 0, 2, "16", "100", 0, 0), 0, NULL);
  int l = OP(g, "add", "total", OP(g, "softmax_xent", "head/loss", lg, y, 0, NULL), aux, 0, NULL);
  CHECK(dlb_graph_layer(g, NULL) == DLB_OK);
  CHECK(dlb_graph_set_loss(g, l) == DLB_OK);
  return g;
}

static void layer_rerun(void) {
  dlb_graph *g = stack();
  dlb_train_opts o = SGD;
  (void)INFER;
  dlb_analysis *a = dlb_graph_analyze(g, &o, 0, NULL, NULL);
  CHECK(a != NULL);
  if (a) {
    int r[5] = {-1, -1, -1, -1, -1};
    CHECK(dlb_analysis_nlayers(a) == 5);
    CHECK(dlb_analysis_layer_rerun(a, r, 5) == DLB_OK);
    CHECK(r[0] == 0 && r[1] == 1 && r[2] == 1 && r[3] == 0 && r[4] == 0);
    CHECK(dlb_analysis_layer_rerun(a, r, 4) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "needs 5 entries") != NULL);
    dlb_analysis_free(a);
  }
  /* a segment per layer: only the blocks' forward ops run again (before: the embedding's
  ** too, its layernorm's backward reading its input, and the pooler, not the last) */
  o.recompute = DLB_RECOMPUTE_LAYERS, o.recompute_k = 1;
  a = dlb_graph_analyze(g, &o, 0, NULL, NULL);
  CHECK(a != NULL);
  if (a) {
    const int *ph = dlb_analysis_op_phase(a), *ly = dlb_analysis_op_layer(a);
    int n[5] = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < dlb_analysis_nops(a); i++)
      if (ph[i] == DLB_PHASE_RECOMPUTE && ly[i] >= 0 && ly[i] < 5) n[ly[i]]++;
    CHECK(n[0] == 0 && n[1] == 2 && n[2] == 2 && n[3] == 0 && n[4] == 0);
    int r[5];
    CHECK(dlb_analysis_layer_rerun(a, r, 5) == DLB_OK && r[1] == 1 && r[3] == 0); /* the step's too */
    dlb_analysis_free(a);
  }
  dlb_graph_free(g);
}

int main(void) {
  RUN(layer_rerun);
  return check_done();
}
