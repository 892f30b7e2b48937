/*
** test_graph.c — the compute-graph engine in C: hand-derived goldens for an MLP and a conv
** net (FLOPs, params, bytes), GEMM shapes, shape and unbound-dim errors, workspaces, layers,
** optimizers. The footprint rules are tests/test_footprint.c's.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_runtime.h"
#include "check.h"

#include "graph_fixtures.h"

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

/* MLP 784-h-10 with relu and softmax cross-entropy, b=32, h=1024, SGD (hand derivation):
**   params = 784*1024 + 1024*10 = 813056
**   fwd = 2*32*784*1024 (fc1) + 32*1024 (relu) + 2*32*1024*10 (fc2) + 4*32*10 (xent)
**       = 51380224 + 32768 + 655360 + 1280 = 52069632
**   bwd = 2*32*10 (xent grad) + 655360 (fc2 dX) + 655360 (fc2 dW) + 32768 (relu grad)
**       + 51380224 (fc1 dW; no dX: x is an input) = 52724352
**   update = 2 * 813056 = 1626112 (sgd: w -= lr*g)
**   io = 32*784*4 (x) + 32*4 (labels) = 100480 bytes */
static void test_mlp(void) {
  dlb_graph *g = mlp();
  const char *names[] = {"b", "h"};
  double vals[] = {32, 1024};
  dlb_analysis *a = dlb_graph_analyze(g, &SGD, 2, names, vals);
  CHECK(a != NULL);
  if (!a) { dlb_graph_free(g); return; }
  dlb_totals t;
  dlb_analysis_totals(a, &t);
  CHECK(t.params == 813056);
  CHECK(t.flops_fwd == 52069632);
  CHECK(t.flops_bwd == 52724352);
  CHECK(t.flops_update == 1626112);
  CHECK(t.flops == 52069632.0 + 52724352 + 1626112);
  CHECK(t.io == 100480);
  CHECK(t.footprint <= t.footprint_order && t.footprint <= t.footprint_heuristic);
  /* weights live throughout: the breakdown holds them all */
  CHECK(t.weights == 813056.0 * 4);
  CHECK_NEAR(t.weights + t.gradients + t.optimizer + t.activations + t.workspace, t.footprint, 1e-12);
  /* fc1 is a GEMM m=32, n=1024, k=784 */
  double m[4];
  CHECK(dlb_analysis_op_gemm(a, 0, m) == DLB_OK);
  CHECK(m[0] == 32 && m[1] == 1024 && m[2] == 784 && m[3] == 1);
  CHECK(dlb_analysis_op_gemm(a, 1, m) == DLB_ENOTFOUND); /* relu */
  CHECK(dlb_analysis_op_phase(a)[0] == DLB_PHASE_FWD);
  CHECK(dlb_analysis_op_phase(a)[dlb_analysis_nops(a) - 1] == DLB_PHASE_UPDATE);
  char name[64];
  dlb_analysis_op_name(a, 0, name, sizeof name);
  CHECK(strcmp(name, "fc1") == 0);
  dlb_analysis_free(a);
  /* symbolic: 3198*b*h + 60*b + 1588*h (fwd 1589bh + 40b, bwd 1609bh + 20b, update 1588h) */
  dlb_poly *p[DLB_SYM_COUNT];
  CHECK(dlb_graph_symbolic(g, &SGD, 0, NULL, NULL, p) == DLB_OK);
  char s[256];
  dlb_poly_tostring(p[DLB_SYM_FLOPS], s, sizeof s);
  CHECK(strcmp(s, "3198*b*h + 60*b + 1588*h") == 0);
  dlb_poly_tostring(p[DLB_SYM_PARAMS], s, sizeof s);
  CHECK(strcmp(s, "794*h") == 0);
  for (int i = 0; i < DLB_SYM_COUNT; i++) dlb_poly_free(p[i]);
  /* unbound dims: the numeric analysis names them */
  CHECK(dlb_graph_analyze(g, &SGD, 1, names, vals) == NULL);
  CHECK(dlb_last_status() == DLB_EUNBOUND && strstr(dlb_last_error(), "no value for h") != NULL);
  dlb_graph_free(g);
}

/* Two convs (hand derivation, x [8, 3, 32, 32]):
**   conv1 w [16, 3, 3, 3], pad 1: out [8, 16, 32, 32], 2*8*16*32*32*3*3*3 = 7077888 FLOPs
**   conv2 w [32, 16, 3, 3], stride 2, pad 1: out [8, 32, 16, 16] ((32+2-3)/2+1 = 16),
**         2*8*32*16*16*16*3*3 = 18874368 FLOPs; its data and filter gradients the same each;
**   conv1 gets only a filter gradient (x is an input). */
static void test_conv(void) {
  dlb_graph *g = dlb_graph_new("convnet");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 4, "8", "3", "32", "32");
  int w1 = T(g, "w1", DLB_ROLE_WEIGHT, 0, 4, "16", "3", "3", "3");
  int w2 = T(g, "w2", DLB_ROLE_WEIGHT, 0, 4, "32", "16", "3", "3");
  int wf = T(g, "wf", DLB_ROLE_WEIGHT, 0, 2, "32", "10", 0, 0);
  int y = T(g, "y", DLB_ROLE_LABEL, DLB_DT_INT32, 1, "8", 0, 0, 0);
  int a1[7] = {1, 1, 1, 1, 1, 1, 1}, a2[7] = {2, 2, 1, 1, 1, 1, 1};
  int c1 = OP(g, "conv2d", "conv1", x, w1, 7, a1);
  int c2 = OP(g, "conv2d", "conv2", OP(g, "relu", NULL, c1, -1, 0, NULL), w2, 7, a2);
  CHECK(c1 >= 0 && c2 >= 0);
  int p = OP(g, "global_avgpool", NULL, c2, -1, 0, NULL);
  int l = OP(g, "softmax_xent", NULL, OP(g, "matmul", "fc", p, wf, 0, NULL), y, 0, NULL);
  dlb_graph_set_loss(g, l);
  dlb_analysis *a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a != NULL);
  if (!a) { dlb_graph_free(g); return; }
  const double *f = dlb_analysis_op_flops(a);
  CHECK(f[0] == 7077888);
  CHECK(f[2] == 18874368);
  const int *ty = dlb_analysis_op_type(a);
  double data = 0, filt = 0;
  for (size_t i = 0; i < dlb_analysis_nops(a); i++) {
    if (ty[i] == dlb_graph_op_type("conv2d_bwd_data")) data += f[i];
    if (ty[i] == dlb_graph_op_type("conv2d_bwd_filter")) filt += f[i];
  }
  CHECK(data == 18874368);
  CHECK(filt == 18874368 + 7077888);
  double m[4];
  CHECK(dlb_analysis_op_gemm(a, 2, m) == DLB_OK); /* implicit GEMM: m = N*Ho*Wo */
  CHECK(m[0] == 8 * 16 * 16 && m[1] == 32 && m[2] == 16 * 9 && m[3] == 1);
  CHECK(2 * m[0] * m[1] * m[2] * m[3] == f[2]);
  dlb_analysis_free(a);
  /* grouped conv: w [16, 4, 3, 3], groups 4 on [8, 16, 32, 32]: 2*8*16*32*32*4*9 = 9437184 */
  dlb_graph *h = dlb_graph_new("grouped");
  int gx = T(h, "x", DLB_ROLE_INPUT, 0, 4, "8", "16", "32", "32");
  int gw = T(h, "w", DLB_ROLE_WEIGHT, 0, 4, "16", "4", "3", "3");
  int ag[7] = {1, 1, 1, 1, 1, 1, 4};
  CHECK(OP(h, "conv2d", "g", gx, gw, 7, ag) >= 0);
  a = dlb_graph_analyze(h, &INFER, 0, NULL, NULL);
  CHECK(a && dlb_analysis_op_flops(a)[0] == 9437184);
  CHECK(a && dlb_analysis_op_gemm(a, 0, m) == DLB_OK && m[1] == 4 && m[3] == 4);
  dlb_analysis_free(a);
  dlb_graph_free(h);
  dlb_graph_free(g);
}

static void test_errors(void) {
  dlb_graph *g = dlb_graph_new("bad");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "b", "784", 0, 0);
  int w = T(g, "w", DLB_ROLE_WEIGHT, 0, 2, "512", "h", 0, 0);
  CHECK(OP(g, "matmul", "fc1", x, w, 0, NULL) < 0);
  CHECK(dlb_last_status() == DLB_ESHAPE);
  CHECK(strstr(dlb_last_error(), "matmul 'fc1'") && strstr(dlb_last_error(), "'x' [b, 784]") &&
        strstr(dlb_last_error(), "'w' [512, h]"));
  CHECK(dlb_graph_nops(g) == 0); /* nothing half-made stays */
  int img = T(g, "img", DLB_ROLE_INPUT, 0, 4, "b", "3", "s", "s");
  int k = T(g, "k", DLB_ROLE_WEIGHT, 0, 4, "8", "3", "3", "3");
  int a2[7] = {2, 2, 1, 1, 1, 1, 1};
  CHECK(OP(g, "conv2d", "c", img, k, 7, a2) < 0 && dlb_last_status() == DLB_EUNBOUND);
  CHECK(strstr(dlb_last_error(), "conv2d 'c'") && strstr(dlb_last_error(), "bound to a number"));
  int a1[7] = {1, 1, 1, 1, 1, 1, 1}; /* stride 1: the output size is a polynomial, s */
  int c = OP(g, "conv2d", "c1", img, k, 7, a1);
  CHECK(c >= 0);
  char d[32];
  dlb_graph_tensor_dim(g, c, 2, d, sizeof d);
  CHECK(strcmp(d, "s") == 0);
  int y = T(g, "y", DLB_ROLE_INPUT, 0, 2, "b", "785", 0, 0);
  CHECK(OP(g, "add", "sum", x, y, 0, NULL) < 0 && strstr(dlb_last_error(), "do not broadcast"));
  const char *bad[] = {"4*h+"};
  int id;
  CHECK(dlb_graph_tensor(g, "z", 0, 0, 1, bad, &id) == DLB_EPARSE);
  CHECK(strstr(dlb_last_error(), "tensor 'z' dim 1"));
  const char *neg[] = {"-3"};
  CHECK(dlb_graph_tensor(g, "z", 0, 0, 1, neg, &id) == DLB_ESHAPE);
  dlb_graph_free(g);
  g = dlb_graph_new("noloss");
  x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "4", "4", 0, 0);
  CHECK(OP(g, "relu", NULL, x, -1, 0, NULL) >= 0);
  CHECK(dlb_graph_analyze(g, &SGD, 0, NULL, NULL) == NULL && strstr(dlb_last_error(), "no loss"));
  dlb_graph_free(g);
}

/* QA findings: a loss no op produces (an ASan overflow in dlb_train_expand before), a negative
** concat axis (an out-of-bounds attribute in the backward split), bound dims that evaluate
** to non-positive or fractional sizes, bindings that are not positive integers. */
static void test_qa_errors(void) {
  dlb_graph *g = dlb_graph_new("l");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "3", "4", 0, 0);
  CHECK(dlb_graph_set_loss(g, x) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "tensor 'x'") && strstr(dlb_last_error(), "not the output of any op"));
  CHECK(dlb_graph_analyze(g, &SGD, 0, NULL, NULL) == NULL && strstr(dlb_last_error(), "no loss"));
  dlb_graph_free(g);

  g = dlb_graph_new("c");
  x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "4", "3", 0, 0);
  int w1 = T(g, "w1", DLB_ROLE_WEIGHT, 0, 2, "3", "5", 0, 0);
  int w2 = T(g, "w2", DLB_ROLE_WEIGHT, 0, 2, "3", "6", 0, 0);
  int m1 = OP(g, "matmul", NULL, x, w1, 0, NULL), m2 = OP(g, "matmul", NULL, x, w2, 0, NULL);
  int ins[2] = {m1, m2}, ax[1] = {-1}, out[1];
  size_t nout = 0;
  CHECK(dlb_graph_op(g, dlb_graph_op_type("concat"), NULL, 2, ins, 1, ax, 0, NULL, out, 1, &nout) == DLB_OK);
  int s = OP(g, "sum", NULL, out[0], -1, 0, NULL);
  CHECK(dlb_graph_set_loss(g, s) == DLB_OK);
  dlb_analysis *a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a != NULL);
  dlb_totals t;
  /* matmuls 2*4*3*(5+6) fwd and the same for the weight gradients, sum 44, updates 66 */
  if (a) { dlb_analysis_totals(a, &t); CHECK(t.flops == 264 + 264 + 44 + 66); dlb_analysis_free(a); }
  dlb_graph_free(g);

  g = dlb_graph_new("h");
  x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "h-10", "4", 0, 0);
  s = OP(g, "sum", NULL, x, -1, 0, NULL);
  dlb_graph_set_loss(g, s);
  const char *hn[] = {"h"};
  double h5[] = {5}, h15[] = {1.5}, h0[] = {0}, h11[] = {11};
  CHECK(dlb_graph_analyze(g, &SGD, 1, hn, h5) == NULL);
  CHECK(strstr(dlb_last_error(), "tensor 'x' dim 1 = h - 10 evaluates to -5"));
  CHECK(dlb_graph_analyze(g, &SGD, 1, hn, h15) == NULL && strstr(dlb_last_error(), "binding h = 1.5"));
  CHECK(dlb_graph_analyze(g, &SGD, 1, hn, h0) == NULL && strstr(dlb_last_error(), "binding h = 0"));
  dlb_poly *p[DLB_SYM_COUNT];
  CHECK(dlb_graph_symbolic(g, &SGD, 1, hn, h5, p) != DLB_OK && strstr(dlb_last_error(), "evaluates to -5"));
  a = dlb_graph_analyze(g, &SGD, 1, hn, h11);
  CHECK(a != NULL);
  if (a) { dlb_analysis_totals(a, &t); CHECK(t.flops == 4); dlb_analysis_free(a); }
  dlb_graph_free(g);
}

/* Two branches from x (8 B): a1 (100 B) -> a2 (4 B), b1 (100 B) -> b2 (4 B), add -> 4 B.
** Construction order a1, b1, a2, b2, add holds x, a1 and b1 together: 8+100+100 = 208 at b1.
** Best: a1, a2, b1, b2, add: peaks 8+100 (a1), 8+100+4 (a2), 8+4+100 (b1): 112. */
/* The analysis contract other areas code against: per-op arrays, phases, layers, GEMMs of
** backward convs. conv on x [2, 4, 8, 8] with w [8, 4, 3, 3], pad 1, as the only layer. */
static void test_contract(void) {
  dlb_graph *g = dlb_graph_new("contract");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 4, "2", "4", "8", "8");
  int w0 = T(g, "w0", DLB_ROLE_WEIGHT, 0, 4, "4", "4", "1", "1");
  int w = T(g, "w", DLB_ROLE_WEIGHT, 0, 4, "8", "4", "3", "3");
  int a1[7] = {1, 1, 1, 1, 1, 1, 1}, a0[7] = {1, 1, 0, 0, 1, 1, 1};
  int c0 = OP(g, "conv2d", "c0", x, w0, 7, a0); /* so that c1 needs a data gradient */
  CHECK(dlb_graph_layer(g, "body") == DLB_OK);
  int c = OP(g, "conv2d", "c1", c0, w, 7, a1);
  CHECK(dlb_graph_layer(g, NULL) == DLB_OK);
  int s = OP(g, "sum", NULL, c, -1, 0, NULL);
  dlb_graph_set_loss(g, s);
  dlb_analysis *a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a != NULL);
  if (!a) { dlb_graph_free(g); return; }
  size_t n = dlb_analysis_nops(a);
  const int *ph = dlb_analysis_op_phase(a), *ly = dlb_analysis_op_layer(a), *ty = dlb_analysis_op_type(a);
  const double *f = dlb_analysis_op_flops(a), *by = dlb_analysis_op_bytes(a);
  CHECK(dlb_analysis_nlayers(a) == 1 && strcmp(dlb_analysis_layer_name(a, 0), "body") == 0);
  CHECK(ly[0] == -1 && ly[1] == 0 && ly[2] == -1);
  int ndata = 0, nfilt = 0, nupd = 0;
  double flops = 0;
  for (size_t i = 0; i < n; i++) {
    double m[4];
    flops += f[i];
    CHECK(by[i] >= 0);
    if (ph[i] == DLB_PHASE_UPDATE) nupd++;
    if (ty[i] == dlb_graph_op_type("conv2d_bwd_data")) {
      ndata++;
      /* data gradient of c1: m = N*H*W = 128, n = C = 4, k = Cout*KH*KW = 72 */
      CHECK(dlb_analysis_op_gemm(a, i, m) == DLB_OK && m[0] == 128 && m[1] == 4 && m[2] == 72 && m[3] == 1);
      CHECK(2 * m[0] * m[1] * m[2] == f[i]);
      CHECK(ly[i] == 0 && ph[i] == DLB_PHASE_BWD);
    }
    if (ty[i] == dlb_graph_op_type("conv2d_bwd_filter")) {
      nfilt++;
      CHECK(dlb_analysis_op_gemm(a, i, m) == DLB_OK && 2 * m[0] * m[1] * m[2] * m[3] == f[i]);
    }
  }
  CHECK(ndata == 1 && nfilt == 2 && nupd == 2);
  /* w0 and its consumer c0 sit outside every scope, before it: w0 trains and counts with
  ** the first layer (dlb_weight_layer, train.c), where layers.from_graph puts c0's work, so
  ** every path times its update in that layer's update phase (before: layer -1, 16 params) */
  for (size_t i = 0; i < n; i++)
    if (ph[i] == DLB_PHASE_UPDATE) CHECK(ly[i] == 0);
  /* every op's work in the one layer (dlb_op_layer): c0 and the sum outside the scope too */
  const int *pl = dlb_analysis_op_layer_placed(a);
  for (size_t i = 0; i < n; i++) CHECK(pl[i] == 0);
  double lay[6];
  CHECK(dlb_analysis_layer(a, 0, lay) == DLB_OK && lay[0] == 4 * 4 + 8 * 4 * 3 * 3);
  dlb_totals t;
  dlb_analysis_totals(a, &t);
  CHECK_NEAR(flops, t.flops, 1e-12);
  CHECK(t.nops == (double)n && t.nlayers == 1);
  const int *order = dlb_analysis_schedule(a);
  int seen = 0;
  for (size_t i = 0; i < n; i++) seen += order[i] >= 0 && (size_t)order[i] < n;
  CHECK((size_t)seen == n);
  double m[4];
  CHECK(dlb_analysis_op_gemm(a, n, m) == DLB_EINVAL);
  dlb_analysis_free(a);
  dlb_graph_free(g);
}

/* FLOPs of the ops of one type and phase in an analysis (type NULL: every type). */
static double flops_of(const dlb_analysis *a, const char *type, int phase) {
  const int *ty = dlb_analysis_op_type(a), *ph = dlb_analysis_op_phase(a);
  const double *f = dlb_analysis_op_flops(a);
  double s = 0;
  for (size_t i = 0; i < dlb_analysis_nops(a); i++)
    if ((!type || ty[i] == dlb_graph_op_type(type)) && ph[i] == phase) s += f[i];
  return s;
}

static int count_of(const dlb_analysis *a, const char *type) {
  const int *ty = dlb_analysis_op_type(a);
  int n = 0;
  for (size_t i = 0; i < dlb_analysis_nops(a); i++) n += ty[i] == dlb_graph_op_type(type);
  return n;
}

/* Gradients into a loss's second input (hand derivation, x [5, 4] input, b=5, K=4, V=3):
** MSE(p, t) with p = x w1 and t = x w2 both trainable: L = mean((p - t)^2), so
**   dp = 2(p - t)/n dL (mse_bwd, 2 per element: 2*15 = 30), dt = -dp (neg, 15);
**   dw1 = x^T dp and dw2 = x^T dt (2*4*3*5 = 120 each): bwd = 30 + 15 + 240 = 285;
**   with p an input (no gradient) only t's: mse_bwd 30 + dw2 120 = 150.
** Soft-label cross-entropy: logits z = x w1, labels y = softmax(x w2) [5, 3]; L = -sum y log p:
**   dz = (p - y) dL (2*15 = 30), dy = -log(p) dL (2*15 = 30), softmax_bwd 4*15 = 60,
**   dw1 = dw2 = 120: bwd = 360; fwd = 120 + 120 + 3*15 (softmax) + 4*15 (xent) = 345. */
static void test_loss_grads(void) {
  dlb_graph *g = dlb_graph_new("mse2");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "5", "4", 0, 0);
  int w1 = T(g, "w1", DLB_ROLE_WEIGHT, 0, 2, "4", "3", 0, 0);
  int w2 = T(g, "w2", DLB_ROLE_WEIGHT, 0, 2, "4", "3", 0, 0);
  int p = OP(g, "matmul", "p", x, w1, 0, NULL), t = OP(g, "matmul", "t", x, w2, 0, NULL);
  dlb_graph_set_loss(g, OP(g, "mse", "loss", p, t, 0, NULL));
  dlb_analysis *a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a != NULL);
  if (a) {
    CHECK(flops_of(a, NULL, DLB_PHASE_BWD) == 285);
    CHECK(flops_of(a, "mse_bwd", DLB_PHASE_BWD) == 30 && flops_of(a, "neg", DLB_PHASE_BWD) == 15);
    CHECK(count_of(a, "update") == 2); /* both weights get a gradient */
  }
  dlb_analysis_free(a);
  dlb_graph_free(g);
  g = dlb_graph_new("mse_target");
  x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "5", "4", 0, 0);
  int pin = T(g, "p", DLB_ROLE_INPUT, 0, 2, "5", "3", 0, 0);
  w2 = T(g, "w2", DLB_ROLE_WEIGHT, 0, 2, "4", "3", 0, 0);
  dlb_graph_set_loss(g, OP(g, "mse", "loss", pin, OP(g, "matmul", "t", x, w2, 0, NULL), 0, NULL));
  a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a && flops_of(a, NULL, DLB_PHASE_BWD) == 150 && count_of(a, "update") == 1);
  dlb_analysis_free(a);
  dlb_graph_free(g);
  g = dlb_graph_new("soft_xent");
  x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "5", "4", 0, 0);
  w1 = T(g, "w1", DLB_ROLE_WEIGHT, 0, 2, "4", "3", 0, 0);
  w2 = T(g, "w2", DLB_ROLE_WEIGHT, 0, 2, "4", "3", 0, 0);
  int z = OP(g, "matmul", "z", x, w1, 0, NULL);
  int y = OP(g, "softmax", "teacher", OP(g, "matmul", "t", x, w2, 0, NULL), -1, 0, NULL);
  dlb_graph_set_loss(g, OP(g, "softmax_xent", "loss", z, y, 0, NULL));
  a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a != NULL);
  if (a) {
    CHECK(flops_of(a, NULL, DLB_PHASE_FWD) == 345);
    CHECK(flops_of(a, NULL, DLB_PHASE_BWD) == 360);
    CHECK(flops_of(a, "softmax_xent_bwd", DLB_PHASE_BWD) == 60 && count_of(a, "softmax_xent_bwd") == 2);
    CHECK(count_of(a, "update") == 2);
  }
  dlb_analysis_free(a);
  dlb_graph_free(g);
}

/* Matmul backward with transpose_a on a batched a and a 2-D b (hand derivation):
** a [2, 4, 3] (K=4, M=3, batch 2) used transposed, b [4, 5]: y = a^T b is [2, 3, 5],
**   fwd 2*30*4 = 240; loss mse(y, target) 3*30 = 90, its gradient 2*30 = 60;
**   db = sum_i a_i dy_i: a batched matmul [2, 4, 5] (2*40*3 = 240) and a sum over the batch
**   (1 per summed element: 40); da = b dy^T (2*24*5 = 240) when a is trainable.
** With transpose_b (b [5, 4], y = a^T b^T): db = sum_i dy_i^T a_i^T, [2, 5, 4] then [5, 4]:
**   the same FLOPs. */
static void test_matmul_ta_batched(void) {
  for (int tb = 0; tb < 2; tb++)
    for (int train_a = 0; train_a < 2; train_a++) {
      dlb_graph *g = dlb_graph_new("ta");
      int a = T(g, "a", train_a ? DLB_ROLE_WEIGHT : DLB_ROLE_INPUT, 0, 3, "2", "4", "3", 0);
      int b = tb ? T(g, "b", DLB_ROLE_WEIGHT, 0, 2, "5", "4", 0, 0)
                 : T(g, "b", DLB_ROLE_WEIGHT, 0, 2, "4", "5", 0, 0);
      int tgt = T(g, "target", DLB_ROLE_LABEL, 0, 3, "2", "3", "5", 0);
      int at[2] = {1, tb};
      int y = OP(g, "matmul", "y", a, b, 2, at);
      CHECK(y >= 0);
      dlb_graph_set_loss(g, OP(g, "mse", "loss", y, tgt, 0, NULL));
      dlb_analysis *an = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
      CHECK(an != NULL);
      if (an) {
        CHECK(flops_of(an, NULL, DLB_PHASE_FWD) == 240 + 90);
        CHECK(flops_of(an, "sum", DLB_PHASE_BWD) == 40);
        CHECK(flops_of(an, "matmul", DLB_PHASE_BWD) == 240 + (train_a ? 240 : 0));
        CHECK(flops_of(an, NULL, DLB_PHASE_BWD) == 60 + 240 + 40 + (train_a ? 240 : 0));
        CHECK(count_of(an, "update") == 1 + train_a);
        /* the batched db: m = K = 4 (tb: N = 5), n = 5 (tb: 4), k = M = 3, batch 2 */
        const int *ty = dlb_analysis_op_type(an), *ph = dlb_analysis_op_phase(an);
        for (size_t i = 0; i < dlb_analysis_nops(an); i++) {
          double m[4];
          if (ty[i] != dlb_graph_op_type("matmul") || ph[i] != DLB_PHASE_BWD) continue;
          CHECK(dlb_analysis_op_gemm(an, i, m) == DLB_OK);
          CHECK(2 * m[0] * m[1] * m[2] * m[3] == dlb_analysis_op_flops(an)[i]);
          CHECK(m[3] == 2);
        }
      } else {
        fprintf(stderr, "%s\n", dlb_last_error());
      }
      dlb_analysis_free(an);
      dlb_graph_free(g);
    }
}

/* Workspace (docs/graph.md): scratch outputs live only while their op runs.
** softmax_xent on x [8, 10] (inference): live at the op = labels 8*4 + x 320 + loss 4 +
**   probabilities 320 + row statistics 8*2*4 = 64 (workspace) = 740 bytes.
** conv2d x [8, 3, 32, 32], w [16, 3, 3, 3], pad 1 (inference): x 98304 + w 1728 + y
**   8*16*32*32*4 = 524288 = 624320 bytes; with workspace = im2col the column matrix
**   N*Ho*Wo x Cin*KH*KW = 8*32*32 x 27 = 221184 elements = 884736 bytes more. Bytes
**   (algorithmic traffic) do not change. */
static void test_workspace(void) {
  dlb_graph *g = dlb_graph_new("ws");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "8", "10", 0, 0);
  int y = T(g, "y", DLB_ROLE_LABEL, DLB_DT_INT32, 1, "8", 0, 0, 0);
  dlb_graph_set_loss(g, OP(g, "softmax_xent", "loss", x, y, 0, NULL));
  dlb_analysis *a = dlb_graph_analyze(g, &INFER, 0, NULL, NULL);
  dlb_totals t;
  CHECK(a != NULL);
  if (a) {
    dlb_analysis_totals(a, &t);
    CHECK(t.footprint == 740 && t.workspace == 64);
    CHECK(t.bytes == 32 + 320 + 4 + 320); /* inputs + outputs, no workspace */
    double ex;
    CHECK(dlb_analysis_footprint_exact(a, &ex) == DLB_OK && ex == 740);
  }
  dlb_analysis_free(a);
  dlb_graph_free(g);
  double fp[2], by[2];
  for (int ws = 0; ws < 2; ws++) {
    g = dlb_graph_new("conv_ws");
    x = T(g, "x", DLB_ROLE_INPUT, 0, 4, "8", "3", "32", "32");
    int w = T(g, "w", DLB_ROLE_WEIGHT, 0, 4, "16", "3", "3", "3");
    int at[8] = {1, 1, 1, 1, 1, 1, 1, ws};
    CHECK(OP(g, "conv2d", "c", x, w, 8, at) >= 0);
    a = dlb_graph_analyze(g, &INFER, 0, NULL, NULL);
    CHECK(a != NULL);
    if (a) {
      dlb_analysis_totals(a, &t);
      fp[ws] = t.footprint, by[ws] = t.bytes;
      CHECK(t.workspace == (ws ? 884736 : 0));
    }
    dlb_analysis_free(a);
    dlb_graph_free(g);
  }
  CHECK(fp[0] == 624320 && fp[1] == 624320 + 884736 && by[0] == by[1]);
  /* a bad workspace mode is refused */
  g = dlb_graph_new("bad_ws");
  x = T(g, "x", DLB_ROLE_INPUT, 0, 4, "8", "3", "32", "32");
  int w = T(g, "w", DLB_ROLE_WEIGHT, 0, 4, "16", "3", "3", "3");
  int bad[8] = {1, 1, 1, 1, 1, 1, 1, 2};
  CHECK(OP(g, "conv2d", "c", x, w, 8, bad) < 0 && strstr(dlb_last_error(), "workspace") != NULL);
  CHECK(dlb_graph_nops(g) == 0);
  dlb_graph_free(g);
  /* training with im2col: the data and filter gradients have the buffer too; layer norm's
  ** backward has its per-row reductions (2 fp32 per row) */
  g = dlb_graph_new("train_ws");
  x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "8", "16", 0, 0);
  int gm = T(g, "gamma", DLB_ROLE_WEIGHT, 0, 1, "16", 0, 0, 0);
  int in3[2] = {x, gm}, out[4];
  size_t nout;
  CHECK(dlb_graph_op(g, dlb_graph_op_type("layernorm"), "ln", 2, in3, 0, NULL, 0, NULL, out, 4, &nout) == DLB_OK);
  dlb_graph_set_loss(g, OP(g, "sum", NULL, out[0], -1, 0, NULL));
  a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a != NULL);
  if (a) {
    dlb_totals t2;
    dlb_analysis_totals(a, &t2);
    /* ntensors: x, gamma, y, stats, loss, seed, reduce grad, dx, dgamma, norm workspace */
    CHECK(t2.ntensors == 10);
    /* the peak is norm_bwd: x 512 + gamma 64 + stats 64 + dy 512 live, dx 512 + dgamma 64
    ** + workspace 64 allocated = 1792 (the forward peak is 1160) */
    CHECK(t2.footprint == 1792 && t2.workspace == 64);
  }
  dlb_analysis_free(a);
  dlb_graph_free(g);
}


/* The one-call layer builders (graph_layers.c): names, golden counts, errors, rollback.
** The Lua test tests/lua/test_graph_layers.lua compares them op for op with the op-by-op
** construction; here the C contract on its own. */
static void test_layers(void) {
  dlb_graph *g = dlb_graph_new("layers");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "b", "h", 0, 0), y = -1, h2 = -1, c2 = -1;
  char buf[64];
  CHECK(dlb_graph_linear(g, x, "4*h", 1, "fc", &y) == DLB_OK);
  CHECK(dlb_graph_ntensors(g) == 5 && dlb_graph_nops(g) == 2); /* w, mm, b, add */
  dlb_graph_tensor_name(g, 1, buf, sizeof buf);
  CHECK(strcmp(buf, "fc/w") == 0);
  dlb_graph_tensor_name(g, 3, buf, sizeof buf);
  CHECK(strcmp(buf, "fc/b") == 0);
  dlb_graph_tensor_dim(g, y, 1, buf, sizeof buf);
  CHECK(strcmp(buf, "4*h") == 0);
  /* an LSTM step with nin = nh = h: w [2h, 4h]; forward matmul FLOPs 2*b*2h*4h = 16*b*h^2
  ** (Hestness et al. 2019 §4.2: 16h^2 per sample and layer for nin = h), 13 ops */
  dlb_graph *l = dlb_graph_new("lstm");
  int xi = T(l, "x", DLB_ROLE_INPUT, 0, 2, "b", "h", 0, 0);
  int h0 = T(l, "h0", DLB_ROLE_ACTIVATION, 0, 2, "b", "h", 0, 0);
  int c0 = T(l, "c0", DLB_ROLE_ACTIVATION, 0, 2, "b", "h", 0, 0);
  int w = T(l, "w", DLB_ROLE_WEIGHT, 0, 2, "2*h", "4*h", 0, 0);
  int b = T(l, "b", DLB_ROLE_WEIGHT, 0, 1, "4*h", 0, 0, 0);
  CHECK(dlb_graph_lstm_cell(l, xi, h0, c0, w, b, &h2, &c2) == DLB_OK);
  CHECK(dlb_graph_nops(l) == 13);
  dlb_poly *mm = dlb_graph_symbolic_type(l, "matmul", 0, NULL, NULL);
  CHECK(mm != NULL);
  if (mm) {
    char pb[64];
    dlb_poly_tostring(mm, pb, sizeof pb);
    CHECK(strcmp(pb, "16*b*h^2") == 0);
    dlb_poly_free(mm);
  }
  /* errors name the layer and leave nothing behind */
  size_t nt = dlb_graph_ntensors(g), no = dlb_graph_nops(g);
  CHECK(dlb_graph_linear(g, x, "0", 1, "bad", &y) == DLB_ESHAPE);
  CHECK(strstr(dlb_last_error(), "tensor 'bad/w' dim 2") && strstr(dlb_last_error(), "positive integer"));
  CHECK(dlb_graph_linear(g, x, "h", 1, NULL, &y) == DLB_EINVAL);
  CHECK(dlb_graph_linear(g, 99, "h", 1, "l", &y) == DLB_EINVAL && strstr(dlb_last_error(), "x is not a tensor"));
  const char *wd[4] = {"8", "h", "3", "3"};
  int at[8] = {1, 1, 1, 1, 1, 1, 1, 0};
  CHECK(dlb_graph_conv(g, x, 4, wd, at, 1, "conv", &y) < 0); /* x is not [N, C, H, W] */
  CHECK(strstr(dlb_last_error(), "conv2d 'conv'"));
  CHECK(dlb_graph_lstm_cell(g, x, x, x, 1000, b, &h2, &c2) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "lstm_cell: w is not a tensor"));
  int hb = T(g, "hb", DLB_ROLE_INPUT, 0, 2, "c", "h", 0, 0);
  int wg = T(g, "wg", DLB_ROLE_WEIGHT, 0, 2, "2*h", "4*h", 0, 0);
  int bg = T(g, "bg", DLB_ROLE_WEIGHT, 0, 1, "4*h", 0, 0, 0);
  nt = dlb_graph_ntensors(g), no = dlb_graph_nops(g);
  CHECK(dlb_graph_lstm_cell(g, x, hb, hb, wg, bg, &h2, &c2) == DLB_ESHAPE); /* b vs c */
  CHECK(strstr(dlb_last_error(), "concat"));
  CHECK(dlb_graph_ntensors(g) == nt && dlb_graph_nops(g) == no);
  CHECK(dlb_graph_norm(g, dlb_graph_op_type("relu"), x, "n", &y) == DLB_EINVAL);
  CHECK(dlb_graph_norm(g, dlb_graph_op_type("layernorm"), x, "ln", &y) == DLB_OK);
  dlb_graph_tensor_name(g, (int)nt + 1, buf, sizeof buf);
  CHECK(strcmp(buf, "ln/beta") == 0);
  /* a highway sublayer without input: 8 ops (matmul, add, split, tanh, sigmoid, sub, mul, add) */
  no = dlb_graph_nops(g);
  int ws = T(g, "ws", DLB_ROLE_WEIGHT, 0, 2, "h", "2*h", 0, 0);
  int bs = T(g, "bs", DLB_ROLE_WEIGHT, 0, 1, "2*h", 0, 0, 0);
  CHECK(dlb_graph_highway(g, -1, x, ws, bs, &y) == DLB_OK && dlb_graph_nops(g) == no + 8);
  dlb_graph_free(l);
  dlb_graph_free(g);
}

/* dlb_graph_op1 (the bindings' fast path) makes the op dlb_graph_op makes: same output ids
** and dims; b < 0 means one input; a failure leaves nothing behind. */
static void test_op1(void) {
  dlb_graph *g = dlb_graph_new("op1"), *h = dlb_graph_new("op");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "b", "4", NULL, NULL);
  int w = T(g, "w", DLB_ROLE_WEIGHT, 0, 2, "4", "3", NULL, NULL);
  T(h, "x", DLB_ROLE_INPUT, 0, 2, "b", "4", NULL, NULL);
  T(h, "w", DLB_ROLE_WEIGHT, 0, 2, "4", "3", NULL, NULL);
  int y = -1, r = -1;
  CHECK(dlb_graph_op1(g, dlb_graph_op_type("matmul"), "mm", x, w, 0, 0, &y) == DLB_OK);
  CHECK(dlb_graph_op1(g, dlb_graph_op_type("relu"), NULL, y, -1, 0, 0, &r) == DLB_OK);
  CHECK(y == OP(h, "matmul", "mm", 0, 1, 0, NULL));
  CHECK(r == OP(h, "relu", NULL, y, -1, 0, NULL));
  char a[64], b[64];
  dlb_graph_tensor_dim(g, r, 1, a, sizeof a);
  dlb_graph_tensor_dim(h, r, 1, b, sizeof b);
  CHECK(strcmp(a, "3") == 0 && strcmp(b, "3") == 0);
  size_t nt = dlb_graph_ntensors(g);
  CHECK(dlb_graph_op1(g, dlb_graph_op_type("matmul"), NULL, x, x, 0, 0, &y) == DLB_ESHAPE);
  CHECK(dlb_graph_ntensors(g) == nt);
  dlb_graph_free(g);
  dlb_graph_free(h);
}

/* dlb_graph_generation (graph.c): every change an analysis would see bumps it (a tensor, an
** op, a new layer, set_loss, freeze / unfreeze, set_dtype, own_type, checkpoint, a layer
** builder, repeat); a call that changes nothing (re-freezing a frozen weight, re-entering a
** layer, an analysis) leaves it: the key of the Lua caches of a graph's costs
** (lua/dlbench/parallel_plan.lua's model FLOPs). */
static void test_generation(void) {
  CHECK(dlb_graph_generation(NULL) == 0);
  dlb_graph *g = dlb_graph_new("gen");
  size_t v = dlb_graph_generation(g), v2;
#define BUMPS(call) do { v2 = dlb_graph_generation(g); CHECK((call) == DLB_OK); \
                          CHECK(dlb_graph_generation(g) > v2); v = dlb_graph_generation(g); } while (0)
#define KEEPS(call) do { CHECK((call) == DLB_OK); CHECK(dlb_graph_generation(g) == v); } while (0)
  int x = -1, w = -1, y = -1, l = -1, z = -1;
  const char *xd[] = {"b", "4"}, *wd[] = {"4", "4"};
  BUMPS(dlb_graph_tensor(g, "x", DLB_ROLE_INPUT, 0, 2, xd, &x));
  BUMPS(dlb_graph_layer(g, "l0"));
  KEEPS(dlb_graph_layer(g, NULL));
  KEEPS(dlb_graph_layer(g, "l0")); /* re-entering a layer: the same graph */
  BUMPS(dlb_graph_tensor(g, "w", DLB_ROLE_WEIGHT, 0, 2, wd, &w));
  BUMPS(dlb_graph_op1(g, dlb_graph_op_type("matmul"), "mm", x, w, 0, 0, &y));
  BUMPS(dlb_graph_linear(g, y, "4", 1, "lin", &z));
  BUMPS(dlb_graph_op1(g, dlb_graph_op_type("sum"), "loss", z, -1, 0, 0, &l));
  BUMPS(dlb_graph_set_loss(g, l));
  const char *names[] = {"b"};
  double vals[] = {2};
  dlb_train_opts adam = {DLB_OPT_ADAM, DLB_POLICY_FP32, DLB_RECOMPUTE_NONE, 0, 0, 0, 0};
  dlb_analysis *a = dlb_graph_analyze(g, &adam, 1, names, vals);
  CHECK(a != NULL);
  dlb_analysis_free(a);
  CHECK(dlb_graph_generation(g) == v); /* an analysis (the cached step) changes nothing */
  BUMPS(dlb_graph_freeze(g, w, 1));
  KEEPS(dlb_graph_freeze(g, w, 1)); /* already frozen */
  BUMPS(dlb_graph_freeze(g, w, 0));
  BUMPS(dlb_graph_set_dtype(g, w, DLB_DT_INT8));
  KEEPS(dlb_graph_set_dtype(g, w, DLB_DT_INT8));
  BUMPS(dlb_graph_own_type(g, w, 1));
  KEEPS(dlb_graph_own_type(g, w, 1));
  BUMPS(dlb_graph_checkpoint(g, y));
  KEEPS(dlb_graph_checkpoint(g, y));
  /* a refused call leaves the graph, whatever it does to the count; the next change bumps */
  CHECK(dlb_graph_freeze(g, x, 1) == DLB_EINVAL);
  v = dlb_graph_generation(g);
  BUMPS(dlb_graph_layer(g, "l1"));
  size_t op0 = dlb_graph_nops(g), t0 = dlb_graph_ntensors(g);
  int r = -1, out = -1;
  BUMPS(dlb_graph_op1(g, dlb_graph_op_type("relu"), "l1/relu", z, -1, 0, 0, &r));
  BUMPS(dlb_graph_layer(g, "l2"));
  BUMPS(dlb_graph_repeat(g, op0, t0, z, r, "l1", "l2", &out));
  CHECK(out >= 0);
#undef BUMPS
#undef KEEPS
  dlb_graph_free(g);
}

/* The kernel op (graph_ops.c kernel()): given FLOPs, bytes and GEMM shape, exact (a dim's
** value would be snapped to an integer within 1e-9; a given constant is the cost term's
** coefficient), the attention mark as the kernel class, forward only. */
static void test_kernel(void) {
  dlb_graph *g = dlb_graph_new("kernel");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "4", "8", NULL, NULL);
  int w = T(g, "w", DLB_ROLE_WEIGHT, 0, 2, "8", "16", NULL, NULL);
  int type = dlb_graph_op_type("kernel"), in[2] = {x, w}, out[2];
  size_t nout;
  int at[4] = {0, 1, 2, 0}, at2[4] = {1, 0, 2, 0};
  const char *d[8] = {"333333333333.33331", "12345.5", "4", "16", "8", "1", "4", "16"};
  CHECK(dlb_graph_op(g, type, "mm", 2, in, 4, at, 8, d, out, 2, &nout) == DLB_OK && nout == 1);
  const char *d2[4] = {"7", "0.1", "4", "16"};
  int y = out[0];
  CHECK(dlb_graph_op(g, type, "att", 1, &y, 4, at2, 4, d2, out, 2, &nout) == DLB_OK);
  /* wrong dims count, a negative cost, a bad mark: refused, the graph unchanged */
  size_t nt = dlb_graph_ntensors(g);
  CHECK(dlb_graph_op(g, type, NULL, 1, &y, 4, at2, 3, d2, out, 2, &nout) == DLB_EINVAL);
  const char *neg[4] = {"-1", "1", "4", "16"};
  CHECK(dlb_graph_op(g, type, NULL, 1, &y, 4, at2, 4, neg, out, 2, &nout) == DLB_ESHAPE);
  int bad[4] = {2, 0, 2, 0};
  CHECK(dlb_graph_op(g, type, NULL, 1, &y, 4, bad, 4, d2, out, 2, &nout) == DLB_EINVAL);
  CHECK(dlb_graph_ntensors(g) == nt);
  dlb_train_opts o = {0};
  o.inference = 1;
  dlb_analysis *a = dlb_graph_analyze(g, &o, 0, NULL, NULL);
  CHECK(a != NULL);
  const double *F = dlb_analysis_op_flops(a), *B = dlb_analysis_op_bytes(a);
  CHECK(F[0] == 1e12 / 3 && B[0] == 12345.5 && F[1] == 7 && B[1] == 0.1);
  double gm[4];
  CHECK(dlb_analysis_op_gemm(a, 0, gm) == DLB_OK && gm[0] == 4 && gm[1] == 16 && gm[2] == 8 && gm[3] == 1);
  CHECK(dlb_analysis_op_gemm(a, 1, gm) == DLB_ENOTFOUND);
  CHECK(dlb_analysis_op_kernel(a)[0] == DLB_KERNEL_PLAIN && dlb_analysis_op_kernel(a)[1] == DLB_KERNEL_ATTENTION);
  dlb_analysis_free(a);
  /* training refuses it */
  o.inference = 0;
  CHECK(dlb_graph_set_loss(g, out[0]) == DLB_OK);
  CHECK(dlb_graph_analyze(g, &o, 0, NULL, NULL) == NULL);
  CHECK(strstr(dlb_last_error(), "op 'mm' is a kernel op (given costs, forward only)") != NULL);
  dlb_graph_free(g);
}

/* Optimizers, precisions and frozen weights on the MLP (b=32, h=1024; hand derivation,
** params 784*1024 + 1024*10 = 813056, docs/graph.md "Optimizers"):
**   update FLOPs per parameter: adamw 14, adafactor 11, adam8bit 20;
**   optimizer state bytes (fp32 policy): adamw 8 per parameter = 6504448; adam8bit 1 byte
**   x 2 states = 1626112; adafactor rows + columns: (784 + 1024) + (1024 + 10) = 2842
**   fp32 values = 11368 bytes;
**   fp8: weights 1 byte = 813056 bytes, adam state fp32 + fp32 master = 12 per parameter;
**   w1 frozen: 10240 trainable parameters (w2); nothing before fc2 needs a gradient, so
**   the backward pass is the xent gradient (2*32*10 = 640) and fc2's filter gradient
**   (655360) only, and adam updates only w2 (12 * 10240 FLOPs). */
static void test_optimizers(void) {
  dlb_graph *g = mlp();
  const char *names[] = {"b", "h"};
  double vals[] = {32, 1024};
  struct { int opt; double upd, state; } c[] = {
    {DLB_OPT_ADAMW, 14, 6504448}, {DLB_OPT_ADAFACTOR, 11, 11368}, {DLB_OPT_ADAM8BIT, 20, 1626112}};
  for (int i = 0; i < 3; i++) {
    dlb_train_opts o = {c[i].opt, DLB_POLICY_FP32, DLB_RECOMPUTE_NONE, 0, 0, 0, 0};
    dlb_analysis *a = dlb_graph_analyze(g, &o, 2, names, vals);
    CHECK(a != NULL);
    if (!a) continue;
    dlb_totals t;
    dlb_analysis_totals(a, &t);
    CHECK(t.flops_update == c[i].upd * 813056);
    CHECK(t.optimizer == c[i].state);
    CHECK(t.trainable == 813056);
    dlb_analysis_free(a);
  }
  dlb_train_opts f8 = {DLB_OPT_ADAM, DLB_POLICY_FP8, DLB_RECOMPUTE_NONE, 0, 0, 0, 0};
  dlb_analysis *a = dlb_graph_analyze(g, &f8, 2, names, vals);
  CHECK(a != NULL);
  if (a) {
    dlb_totals t;
    dlb_analysis_totals(a, &t);
    CHECK(t.weights == 813056);
    CHECK(t.optimizer == 12.0 * 813056);
    dlb_analysis_free(a);
  }
  dlb_train_opts bad = {7, DLB_POLICY_FP32, DLB_RECOMPUTE_NONE, 0, 0, 0, 0};
  CHECK(dlb_graph_analyze(g, &bad, 2, names, vals) == NULL);
  bad.optimizer = DLB_OPT_SGD;
  bad.precision = 7;
  CHECK(dlb_graph_analyze(g, &bad, 2, names, vals) == NULL);
  /* freeze w1 (tensor 1) */
  CHECK(dlb_graph_freeze(g, 1, 1) == DLB_OK);
  CHECK(dlb_graph_freeze(g, 0, 1) == DLB_EINVAL); /* x is not a weight */
  CHECK(dlb_graph_freeze(g, 99, 1) == DLB_EINVAL);
  CHECK(dlb_graph_freeze(NULL, 1, 1) == DLB_EINVAL);
  dlb_train_opts adam = {DLB_OPT_ADAM, DLB_POLICY_FP32, DLB_RECOMPUTE_NONE, 0, 0, 0, 0};
  a = dlb_graph_analyze(g, &adam, 2, names, vals);
  CHECK(a != NULL);
  if (a) {
    dlb_totals t;
    dlb_analysis_totals(a, &t);
    CHECK(t.params == 813056 && t.trainable == 10240);
    CHECK(t.flops_bwd == 640 + 655360);
    CHECK(t.flops_update == 12.0 * 10240);
    CHECK(t.optimizer == 8.0 * 10240);
    dlb_analysis_free(a);
  }
  CHECK(dlb_graph_freeze(g, 1, 0) == DLB_OK);
  a = dlb_graph_analyze(g, &adam, 2, names, vals);
  if (a) {
    dlb_totals t;
    dlb_analysis_totals(a, &t);
    CHECK(t.trainable == 813056 && t.flops_bwd == 52724352);
    dlb_analysis_free(a);
  }
  dlb_graph_free(g);
}

/* dlb_graph_repeat: an MLP of 4 blocks ("blk0".."blk3": linear with bias, relu), the last
** three copied from the block before, against the same MLP built block by block: the same
** DOT text and the same step totals; refusals leave the graph unchanged. */
static dlb_graph *blocks(int copy) {
  dlb_graph *g = dlb_graph_new("blocks");
  const char *xd[] = {"b", "16"}, *yd[] = {"b", "16"};
  int x, y, out;
  dlb_graph_layer(g, "in");
  dlb_graph_tensor(g, "x", DLB_ROLE_INPUT, 0, 2, xd, &x);
  size_t t0 = dlb_graph_ntensors(g), o0 = dlb_graph_nops(g);
  int xin = x;
  for (int l = 0; l < 4; l++) {
    char name[16], prev[16];
    snprintf(name, sizeof name, "blk%d", l);
    snprintf(prev, sizeof prev, "blk%d", l - 1);
    CHECK(dlb_graph_layer(g, name) == DLB_OK);
    if (copy && l > 0) {
      size_t t1 = dlb_graph_ntensors(g), o1 = dlb_graph_nops(g);
      int nx;
      CHECK(dlb_graph_repeat(g, o0, t0, xin, x, prev, name, &nx) == DLB_OK);
      CHECK(nx >= 0);
      t0 = t1, o0 = o1, xin = x, x = nx;
      continue;
    }
    char rn[32];
    snprintf(rn, sizeof rn, "%s/relu", name);
    CHECK(dlb_graph_linear(g, x, "16", 1, name, &x) == DLB_OK);
    CHECK(dlb_graph_op1(g, dlb_graph_op_type("relu"), rn, x, -1, 0, 0, &x) == DLB_OK);
  }
  dlb_graph_layer(g, NULL);
  dlb_graph_tensor(g, "y", DLB_ROLE_LABEL, 0, 2, yd, &y);
  dlb_graph_op1(g, dlb_graph_op_type("mse"), "loss", x, y, 0, 0, &out);
  dlb_graph_set_loss(g, out);
  return g;
}

static void test_repeat(void) {
  dlb_graph *a = blocks(1), *b = blocks(0);
  static char da[1 << 16], db[1 << 16];
  CHECK(dlb_graph_dot(a, da, sizeof da) < sizeof da);
  CHECK(dlb_graph_dot(b, db, sizeof db) < sizeof db);
  CHECK(strcmp(da, db) == 0);
  CHECK(dlb_graph_nops(a) == dlb_graph_nops(b) && dlb_graph_ntensors(a) == dlb_graph_ntensors(b));
  dlb_train_opts o = {DLB_OPT_ADAM, DLB_POLICY_FP32, 0, 0, 0, DLB_FUSE_ALL, 0};
  const char *names[] = {"b"};
  const double v = 8;
  dlb_analysis *sa = dlb_graph_analyze(a, &o, 1, names, &v), *sb = dlb_graph_analyze(b, &o, 1, names, &v);
  dlb_totals ta, tb;
  dlb_analysis_totals(sa, &ta);
  dlb_analysis_totals(sb, &tb);
  CHECK(ta.flops == tb.flops && ta.bytes == tb.bytes && ta.params == tb.params &&
        ta.footprint == tb.footprint && ta.nops == tb.nops);
  dlb_analysis_free(sa);
  dlb_analysis_free(sb);
  /* refused: no layer "zz"; a current layer that is not `to`; the graph unchanged */
  size_t n = dlb_graph_nops(a);
  int r;
  dlb_graph_layer(a, "blk9");
  CHECK(dlb_graph_repeat(a, 0, 1, 0, 1, "zz", "blk9", &r) == DLB_OK && r == -1);
  CHECK(dlb_graph_repeat(a, 0, 1, 0, 1, "blk0", "other", &r) == DLB_OK && r == -1);
  CHECK(dlb_graph_nops(a) == n);
  /* bad arguments */
  CHECK(dlb_graph_repeat(a, n, 1, 0, 1, "blk0", "blk9", &r) == DLB_EINVAL);
  CHECK(dlb_graph_repeat(a, 0, 1, 5, 1, "blk0", "blk9", &r) == DLB_EINVAL);
  CHECK(dlb_graph_repeat(a, 0, 1, 0, 1, NULL, "blk9", &r) == DLB_EINVAL);
  dlb_graph_free(a);
  dlb_graph_free(b);
}

/* The step's bytes of the MLP above at b = 32, h = 1024 under AdamW, precision `prec` and
** fusion passes `fuse`; -1 when the analysis fails (checked). */
static double mlp_bytes(dlb_graph *g, int prec, int fuse) {
  const char *names[] = {"b", "h"};
  double vals[] = {32, 1024};
  dlb_train_opts o = {DLB_OPT_ADAMW, prec, DLB_RECOMPUTE_NONE, 0, 0, fuse, 0};
  dlb_analysis *a = dlb_graph_analyze(g, &o, 2, names, vals);
  CHECK(a != NULL);
  if (!a) return -1;
  dlb_totals t;
  dlb_analysis_totals(a, &t);
  dlb_analysis_free(a);
  return t.bytes;
}

/* The optimizer implementation passes (graphs/step/fusion.c IMPL_PASSES): the MLP above
** (params 813056), AdamW fp32, b=32, h=1024. Over the fused update's 7 tensor passes
** (28 B/param) PyTorch's foreach AdamW adds 13 passes (torch/optim/adamw.py
** _multi_tensor_adamw: 20), Composer's DecoupledAdamW loop 15 (22); gradient clipping 3 of
** the gradient (clip_grad_norm_: a norm read, an in-place scale): 4 B each. */
static void test_optimizer_impl(void) {
  dlb_graph *g = mlp();
  const char *names[] = {"b", "h"};
  double vals[] = {32, 1024}, n = 813056, b[5];
  int fuse[5] = {0, DLB_FUSE_OPT_FOREACH, DLB_FUSE_OPT_LOOP, DLB_FUSE_OPT_LOOP | DLB_FUSE_GRAD_CLIP,
                 DLB_FUSE_GRAD_CLIP};
  for (int i = 0; i < 5; i++) b[i] = mlp_bytes(g, DLB_POLICY_FP32, fuse[i]);
  CHECK_NEAR(b[1] - b[0], 13 * 4 * n, 1e-12);
  CHECK_NEAR(b[2] - b[0], 15 * 4 * n, 1e-12);
  CHECK_NEAR(b[3] - b[0], 18 * 4 * n, 1e-12);
  CHECK_NEAR(b[4] - b[0], 3 * 4 * n, 1e-12);
  /* foreach and loop at once: refused, naming both */
  dlb_train_opts bad = {DLB_OPT_ADAMW, DLB_POLICY_FP32, 0, 0, 0, DLB_FUSE_OPT_FOREACH | DLB_FUSE_OPT_LOOP, 0};
  CHECK(dlb_graph_analyze(g, &bad, 2, names, vals) == NULL);
  CHECK(strstr(dlb_last_error(), "foreach") && strstr(dlb_last_error(), "loop"));
  dlb_graph_free(g);
}

/* The trainer's language-model train metrics (graphs/step/fusion.c lm_metrics; Composer's
** Trainer._eval_train_metrics over llm-foundry MPT's [LanguageCrossEntropy,
** LanguagePerplexity], each torch.nn.CrossEntropyLoss over the logits): the MLP above,
** logits b x 10 = 320 elements. fp32: 2 metrics x (read 4 + log-softmax write 4) = 16 B per
** logit; mixed (2-byte logits, autocast's fp32 upcast): 2 x (2 + 4 + 4 + 4) = 28 B. */
static void test_lm_metrics(void) {
  dlb_graph *g = mlp();
  const char *names[] = {"b", "h"};
  double vals[] = {32, 1024};
  int prec[2] = {DLB_POLICY_FP32, DLB_POLICY_MIXED}, per[2] = {16, 28};
  for (int p = 0; p < 2; p++)
    CHECK_NEAR(mlp_bytes(g, prec[p], DLB_FUSE_LM_METRICS) - mlp_bytes(g, prec[p], 0),
               per[p] * 32.0 * 10, 1e-12);
  /* their eager ops on the loss (graphs/step/fusion_loss.c, composer/metrics/nlp.py): 5 host
  ** ops and 7 kernels a metric (6 over fp32 logits: no autocast cast); Megatron's fp32
  ** cross-entropy (megatron/mpu/cross_entropy.py): 18 + 8 ops of a kernel each (17 + 7 over
  ** fp32 logits), the loss op and its backward one each. Others: none. */
  int fuse[2] = {DLB_FUSE_LM_METRICS, DLB_FUSE_XENT_FP32};
  double want[2][2][4] = {{{10, 12, 0, 0}, {10, 14, 0, 0}}, {{16, 16, 6, 6}, {17, 17, 7, 7}}};
  for (int f = 0; f < 2; f++)
    for (int p = 0; p < 2; p++) {
      dlb_train_opts o = {DLB_OPT_ADAMW, prec[p], 0, 0, 0, fuse[f], 0};
      dlb_analysis *a = dlb_graph_analyze(g, &o, 2, names, vals);
      CHECK(a != NULL);
      if (!a) continue;
      const double *m = dlb_analysis_op_more(a);
      double got[4] = {0, 0, 0, 0}, rest = 0;
      for (size_t i = 0; i < dlb_analysis_nops(a); i++) {
        char nm[64];
        dlb_analysis_op_name(a, i, nm, sizeof nm);
        int k = strcmp(nm, "loss") == 0 ? 0 : strcmp(nm, "loss/grad") == 0 ? 2 : -1;
        if (k >= 0) got[k] += m[2 * i], got[k + 1] += m[2 * i + 1];
        else rest += m[2 * i] + m[2 * i + 1];
      }
      for (int k = 0; k < 4; k++) CHECK(got[k] == want[f][p][k]);
      CHECK(rest == 0);
      dlb_analysis_free(a);
    }
  /* a bit outside DLB_FUSE_BITS is refused */
  dlb_train_opts bad = {DLB_OPT_ADAMW, DLB_POLICY_FP32, 0, 0, 0, DLB_FUSE_BITS + 1, 0};
  CHECK(dlb_graph_analyze(g, &bad, 2, names, vals) == NULL);
  dlb_graph_free(g);
}

int main(void) {
  RUN(test_lm_metrics);
  RUN(test_optimizer_impl);
  RUN(test_repeat);
  RUN(test_op1);
  RUN(test_generation);
  RUN(test_kernel);
  RUN(test_mlp);
  RUN(test_optimizers);
  RUN(test_contract);
  RUN(test_conv);
  RUN(test_errors);
  RUN(test_qa_errors);
  RUN(test_loss_grads);
  RUN(test_matmul_ta_batched);
  RUN(test_workspace);
  RUN(test_layers);
  return check_done();
}
