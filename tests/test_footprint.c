/*
** test_footprint.c — the memory rules in C: the footprint heuristic against the exhaustive
** search (a branchy graph by hand, random DAGs), and the training step walked
** (dlb_analysis_step_peak, dlb_analysis_step_loss, dlb_analysis_act_peak) by hand. Split from tests/test_graph.c.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_runtime.h"
#include "check.h"
#include "graph_fixtures.h"

static void test_footprint_branches(void) {
  dlb_graph *g;
  int x, wa, wb, va, vb;
  g = dlb_graph_new("branches");
  x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "1", "2", 0, 0);
  wa = T(g, "wa", DLB_ROLE_WEIGHT, 0, 2, "2", "25", 0, 0), wb = T(g, "wb", DLB_ROLE_WEIGHT, 0, 2, "2", "25", 0, 0);
  va = T(g, "va", DLB_ROLE_WEIGHT, 0, 2, "25", "1", 0, 0), vb = T(g, "vb", DLB_ROLE_WEIGHT, 0, 2, "25", "1", 0, 0);
  int a1 = OP(g, "matmul", "a1", x, wa, 0, NULL), b1 = OP(g, "matmul", "b1", x, wb, 0, NULL);
  int a2 = OP(g, "matmul", "a2", a1, va, 0, NULL), b2 = OP(g, "matmul", "b2", b1, vb, 0, NULL);
  CHECK(OP(g, "add", "sum", a2, b2, 0, NULL) >= 0);
  dlb_analysis *a = dlb_graph_analyze(g, &INFER, 0, NULL, NULL);
  dlb_totals t;
  dlb_analysis_totals(a, &t);
  double w = 4 * (50 + 50 + 25 + 25); /* weights live throughout: 600 B */
  CHECK(t.footprint_order == w + 208);
  CHECK(t.footprint_heuristic == w + 112);
  CHECK(t.footprint == w + 112);
  double ex;
  CHECK(dlb_analysis_footprint_exact(a, &ex) == DLB_OK && ex == w + 112);
  dlb_analysis_free(a);
  dlb_graph_free(g);
}

/* dlb_analysis_step_peak, the backward pass walked (update ops after the backward, each weight
** gradient held to the step): x [4,8] through three 8x8 matmuls into softmax_xent, fp32 SGD.
** Activation [4,8] 128 B, weight and gradient 256 B each; weights 768 B throughout. The
** analysis's order runs matmul_2's grad_b before grad_a and matmul_1's grad_a before grad_b
** (tests/lua/test_memory_walk.lua asserts it); the walk, by hand:
**   matmul_2/grad_b  x h1 h2 dh3 512 + dW3 256         = 1536 (the graph schedule's peak)
**   matmul_1/grad_b  x h1 dh2 dh1 512 + dW3 dW2 512    = 1792 <- the peak
**   matmul_0/grad_b  x dh1 256 + dW3 dW2 dW1 768       = 1792 (a tie: the first kept)
** out = {1792, weights 768, gradients 512, optimizer 0, activations 512, workspace 0}. */
static void test_step_peak(void) {
  dlb_graph *g = dlb_graph_new("walk3");
  int h = T(g, "x", DLB_ROLE_INPUT, 0, 2, "4", "8", 0, 0);
  int y = T(g, "labels", DLB_ROLE_LABEL, DLB_DT_INT32, 1, "4", 0, 0, 0);
  for (int i = 0; i < 3; i++) {
    char name[16];
    snprintf(name, sizeof name, "w%d", i + 1);
    h = OP(g, "matmul", NULL, h, T(g, name, DLB_ROLE_WEIGHT, 0, 2, "8", "8", 0, 0), 0, NULL);
  }
  dlb_graph_set_loss(g, OP(g, "softmax_xent", NULL, h, y, 0, NULL));
  dlb_analysis *a = dlb_graph_analyze(g, &SGD, 0, NULL, NULL);
  CHECK(a != NULL);
  if (a) {
    double o[6];
    dlb_totals t;
    dlb_analysis_totals(a, &t);
    CHECK(t.footprint == 1536);
    CHECK(dlb_analysis_step_peak(a, o) == DLB_OK);
    CHECK(o[0] == 1792 && o[1] == 768 && o[2] == 512 && o[3] == 0 && o[4] == 512 && o[5] == 0);
    /* dlb_analysis_step_loss, the same walk at the loss's two ops, by hand (fp32; x, labels
    ** int32 [4] 16 B and the loss's gradient seed, 4 B, live from the start):
    **   softmax_xent_3 running:      x h1 h2 h3 probs 640 + labels 16 + seed 4 + loss 4 = 664
    **                                activations, its row statistics [4, 2] fp32 32 B workspace
    **   softmax_xent_3/grad running: x h1 h2 probs dh3 640 + labels 16 + seed 4 = 660 */
    double l[12];
    CHECK(dlb_analysis_step_loss(a, l) == DLB_OK);
    CHECK(l[0] == 768 + 664 + 32 && l[1] == 768 && l[2] == 0 && l[3] == 0 && l[4] == 664 && l[5] == 32);
    CHECK(l[6] == 768 + 660 && l[7] == 768 && l[8] == 0 && l[9] == 0 && l[10] == 660 && l[11] == 0);
    /* dlb_analysis_act_peak (issue [18] item 5), the analysis's own order: the activations
    ** + workspace are largest while the loss's forward op runs, 664 + 32 = 696 (its
    ** backward op 660, every later op less), with no gradient yet; the peak of all bytes
    ** (1536, above) is later, at matmul_2/grad_b with 512 B of activations */
    CHECK(dlb_analysis_act_peak(a, o) == DLB_OK);
    CHECK(o[0] == 768 + 664 + 32 && o[1] == 768 && o[2] == 0 && o[3] == 0 && o[4] == 664 && o[5] == 32);
    dlb_analysis_free(a);
  }
  /* an inference step has no loss backward: refused by name */
  dlb_train_opts inf = SGD;
  inf.inference = 1;
  a = dlb_graph_analyze(g, &inf, 0, NULL, NULL);
  CHECK(a != NULL);
  if (a) {
    double l[12];
    CHECK(dlb_analysis_step_loss(a, l) == DLB_ENOTFOUND);
    CHECK(strstr(dlb_last_error(), "no softmax_xent loss with a backward op") != NULL);
    dlb_analysis_free(a);
  }
  dlb_graph_free(g);
}

/* dlb_train_opts.norm_upcast (graphs/step/train.c upcast_norms): an eager RMSNorm keeps
** x_fp32 (x itself when x is fp32) and x_normed (x's type) for its backward, not x
** (torchtune/modules/rms_norm.py; PyTorch derivatives.yaml: pow saves its input, mul the
** other operand, _to_copy nothing). x [4,8] -> rmsnorm (gamma [8], statistics [4,1] fp32
** 16 B) -> matmul [8,8] -> softmax_xent, SGD, live while the loss's forward op runs (the walk,
** dlb_analysis_step_loss), by hand:
**   fp32 fused:  x 128, y 128, stats 16, logits 128, probs 128, loss 4, labels 16, seed 4 = 552
**   fp32 eager:  + x_normed 128 (x_fp32 is x)                                          = 680
**   bf16 fused:  x 64, y 64, stats 16, logits 64, probs 64, loss 2, labels 16, seed 2   = 292
**   bf16 eager:  x freed after its forward reader; + x_fp32 128 + x_normed 64           = 420
** Bytes and FLOPs (the algorithmic op's) and the op count are unchanged. */
static void test_norm_upcast(void) {
  dlb_graph *g = dlb_graph_new("norm");
  int x = T(g, "x", DLB_ROLE_INPUT, 0, 2, "4", "8", 0, 0);
  int y = T(g, "labels", DLB_ROLE_LABEL, DLB_DT_INT32, 1, "4", 0, 0, 0);
  int n = OP(g, "rmsnorm", "norm", x, T(g, "gamma", DLB_ROLE_WEIGHT, 0, 1, "8", 0, 0, 0), 0, NULL);
  int h = OP(g, "matmul", NULL, n, T(g, "w", DLB_ROLE_WEIGHT, 0, 2, "8", "8", 0, 0), 0, NULL);
  dlb_graph_set_loss(g, OP(g, "softmax_xent", NULL, h, y, 0, NULL));
  static const double want[2][2] = {{552, 680}, {292, 420}};
  for (int p = 0; p < 2; p++) {
    dlb_totals t[2];
    for (int up = 0; up < 2; up++) {
      dlb_train_opts o = SGD;
      o.precision = p ? DLB_POLICY_BF16 : DLB_POLICY_FP32;
      o.norm_upcast = up;
      dlb_analysis *a = dlb_graph_analyze(g, &o, 0, NULL, NULL);
      CHECK(a != NULL);
      if (!a) continue;
      double l[12];
      CHECK(dlb_analysis_step_loss(a, l) == DLB_OK && l[4] == want[p][up]);
      dlb_analysis_totals(a, &t[up]);
      dlb_analysis_free(a);
    }
    CHECK(t[1].bytes == t[0].bytes && t[1].flops == t[0].flops && t[1].nops == t[0].nops);
  }
  dlb_train_opts bad = SGD;
  bad.norm_upcast = 2;
  CHECK(dlb_graph_analyze(g, &bad, 0, NULL, NULL) == NULL);
  CHECK(strstr(dlb_last_error(), "norm_upcast must be 0 or 1") != NULL);
  dlb_graph_free(g);
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(unsigned n) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (unsigned)(rng % n);
}

/* Random DAGs of elementwise adds and relus over tensors of random sizes (inference, at
** most 14 ops): the exhaustive search is a lower bound of every order we try, and the
** heuristic must match it on most graphs (it is a heuristic: we measure how often). */
static void test_footprint_random(void) {
  int exact_hits = 0, n = 150, bad = 0;
  double worst = 1;
  for (int r = 0; r < n; r++) {
    dlb_graph *g = dlb_graph_new("random");
    int ts[64], nt = 0;
    int nsrc = 1 + (int)rnd(3);
    static const char *sizes[] = {"1", "4", "16", "64", "256"};
    int sz[8];
    for (int i = 0; i < nsrc; i++) {
      sz[i] = (int)rnd(5);
      ts[nt++] = T(g, "in", DLB_ROLE_INPUT, 0, 1, sizes[sz[i]], 0, 0, 0);
    }
    int nops = 3 + (int)rnd(12);
    for (int k = 0; k < nops; k++) {
      int a = ts[rnd((unsigned)nt)];
      int t;
      if (rnd(2)) {
        t = OP(g, "relu", NULL, a, -1, 0, NULL);
      } else { /* add of a and a tensor of a broadcastable size: reshape to another size via matmul-free ops */
        int b = ts[rnd((unsigned)nt)];
        t = OP(g, "add", NULL, a, b, 0, NULL);
        if (t < 0) t = OP(g, "exp", NULL, a, -1, 0, NULL);
      }
      ts[nt++] = t;
    }
    dlb_analysis *a = dlb_graph_analyze(g, &INFER, 0, NULL, NULL);
    dlb_totals t;
    double ex = 0;
    if (!a || dlb_analysis_footprint_exact(a, &ex) != DLB_OK) { bad++; dlb_graph_free(g); dlb_analysis_free(a); continue; }
    dlb_analysis_totals(a, &t);
    if (ex > t.footprint_order + 1e-9 || ex > t.footprint_heuristic + 1e-9) bad++;
    /* steps of at most 16 ops report the exact minimum (its order, simulated, agrees) */
    if (dlb_analysis_nops(a) <= 16 && t.footprint != ex) bad++;
    if (t.footprint_heuristic == ex) exact_hits++;
    double heur = t.footprint_heuristic < t.footprint_order ? t.footprint_heuristic : t.footprint_order;
    if (heur / ex > worst) worst = heur / ex;
    dlb_analysis_free(a);
    dlb_graph_free(g);
  }
  printf("# footprint heuristic exact on %d of %d random graphs; worst (best of order and "
         "heuristics)/exact %.3f\n",
         exact_hits, n, worst);
  CHECK(bad == 0);
  CHECK(exact_hits >= n * 2 / 3);
  CHECK(worst <= 1.5);
}

int main(void) {
  RUN(test_footprint_branches);
  RUN(test_step_peak);
  RUN(test_norm_upcast);
  RUN(test_footprint_random);
  return check_done();
}
