/*
** test_grad_accum.c — the per-micro-batch gradient accumulation pass (DLB_FUSE_GRAD_ACCUM,
** graphs/step/fusion_grad.c) on a hand-built MLP, by hand.
** Source: NVIDIA/Megatron-LM megatron/model/distributed.py DistributedDataParallel.
** _make_param_hook: `param.main_grad.add_(param.grad.data); param.grad = None` for every
** parameter after every micro-batch's backward; megatron/arguments.py (commit 00129014):
** gradient_accumulation_fusion set False unless --accumulate-allreduce-grads-in-fp32 (off
** for fp16), the buffer in params_dtype (_get_buffer_type).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_runtime.h"
#include "check.h"

#include "graph_fixtures.h"

/* MLP 784-h-10 (two weights, no biases), b = 32, h = 1024: params 784 h + 10 h = 813056 */
static dlb_graph *mlp(void) {
  dlb_graph *g = dlb_graph_new("mlp");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "b", "784", 0, 0);
  int w1 = T(g, "w1", DLB_ROLE_WEIGHT, 0, 2, "784", "h", 0, 0);
  int w2 = T(g, "w2", DLB_ROLE_WEIGHT, 0, 2, "h", "10", 0, 0);
  int y = T(g, "y", DLB_ROLE_LABEL, DLB_DT_INT32, 1, "b", 0, 0, 0);
  int h = OP(g, "relu", NULL, OP(g, "matmul", "fc1", x, w1, 0, NULL), -1, 0, NULL);
  int l = OP(g, "softmax_xent", "loss", OP(g, "matmul", "fc2", h, w2, 0, NULL), y, 0, NULL);
  dlb_graph_set_loss(g, l);
  return g;
}

/* Per op of the step: bytes and further host ops, by name */
static void op_costs(dlb_analysis *a, const char *name, double *bytes, double *more_ops,
                     double *more_kernels) {
  const double *b = dlb_analysis_op_bytes(a), *m = dlb_analysis_op_more(a);
  *bytes = *more_ops = *more_kernels = -1;
  for (size_t i = 0; i < dlb_analysis_nops(a); i++) {
    char nm[64];
    dlb_analysis_op_name(a, i, nm, sizeof nm);
    if (strcmp(nm, name) == 0) *bytes = b[i], *more_ops = m[2 * i], *more_kernels = m[2 * i + 1];
  }
}

static dlb_analysis *analyze(dlb_graph *g, int prec, int fuse) {
  const char *names[] = {"b", "h"};
  double vals[] = {32, 1024};
  dlb_train_opts o = {DLB_OPT_ADAMW, prec, DLB_RECOMPUTE_NONE, 0, 0, fuse, 0};
  return dlb_graph_analyze(g, &o, 2, names, vals);
}

/* Mixed precision (16-bit gradients, the fp16 buffer): per micro-batch each weight's gradient
** read (2 B) and main_grad read and written (2 + 2): 6 B an element, on the dW GEMM that
** writes the gradient, and one host op and one kernel (the hook's add_). fc1's dW: 784 x 1024
** elements, +6 x 802816 B; fc2's: 1024 x 10, +6 x 10240 B. fp32 step: 12 B an element. */
static void test_grad_accum(void) {
  dlb_graph *g = mlp();
  int prec[2] = {DLB_POLICY_MIXED, DLB_POLICY_FP32};
  double per[2] = {6, 12};
  const char *dw[2] = {"fc1/grad_b", "fc2/grad_b"};
  double n[2] = {784.0 * 1024, 1024.0 * 10};
  for (int p = 0; p < 2; p++) {
    dlb_analysis *a0 = analyze(g, prec[p], 0), *a1 = analyze(g, prec[p], DLB_FUSE_GRAD_ACCUM);
    CHECK(a0 != NULL && a1 != NULL);
    if (!a0 || !a1) { dlb_analysis_free(a0); dlb_analysis_free(a1); continue; }
    for (int k = 0; k < 2; k++) {
      double b0, o0, k0, b1, o1, k1;
      op_costs(a0, dw[k], &b0, &o0, &k0);
      op_costs(a1, dw[k], &b1, &o1, &k1);
      CHECK(b0 > 0);
      CHECK_NEAR(b1 - b0, per[p] * n[k], 1e-12);
      CHECK(o1 - o0 == 1 && k1 - k0 == 1);
    }
    /* nothing else moves: the totals differ by the two adds' bytes */
    dlb_totals t0, t1;
    dlb_analysis_totals(a0, &t0);
    dlb_analysis_totals(a1, &t1);
    CHECK_NEAR(t1.bytes - t0.bytes, per[p] * (n[0] + n[1]), 1e-12);
    CHECK(t1.flops == t0.flops && t1.params == t0.params);
    dlb_analysis_free(a0);
    dlb_analysis_free(a1);
  }
  /* SGD updates read the same gradients: the same adds; an inference step has no update
  ** (no gradient): nothing is added */
  const char *names[] = {"b", "h"};
  double vals[] = {32, 1024};
  dlb_train_opts sg = SGD, sg1 = SGD, inf = INFER, inf1 = INFER;
  sg1.fuse = inf1.fuse = DLB_FUSE_GRAD_ACCUM;
  dlb_train_opts *os[4] = {&sg, &sg1, &inf, &inf1};
  double tb[4];
  for (int i = 0; i < 4; i++) {
    dlb_analysis *a = dlb_graph_analyze(g, os[i], 2, names, vals);
    CHECK(a != NULL);
    tb[i] = -1;
    if (!a) continue;
    dlb_totals t;
    dlb_analysis_totals(a, &t);
    tb[i] = t.bytes;
    dlb_analysis_free(a);
  }
  CHECK_NEAR(tb[1] - tb[0], 12 * (784.0 * 1024 + 1024.0 * 10), 1e-12);   /* SGD: fp32 */
  CHECK(tb[3] == tb[2]);
  dlb_graph_free(g);
}

int main(void) {
  RUN(test_grad_accum);
  return check_done();
}
