/*
** onnx_layers.c — ONNX handlers for the layers with weights and windows: MatMul, Gemm,
** Conv, pooling, Pad, BatchNormalization, LayerNormalization, LSTM/GRU/RNN, and the
** element-wise costing of unsupported ops (unknown = "skip"). docs/import.md.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_onnx.h"
#include "dlb_runtime.h"
#include "onnx_impl.h"

#define FAIL(...) dlb_onnx_fail(m, DLB_EINVAL, __VA_ARGS__)

int dlb_onnx_op_matmul(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *a, *b;
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &a)) || (rc = dlb_onnx_need(m, n, 1, &b))) return rc;
  int elem = a->state == OV_TENSOR ? a->elem : b->elem;
  /* a folded Transpose of the last two axes (onnx_ops.c transpose): the GEMM's flag */
  int tr[2] = {a->trans, b->trans};
  int ta = dlb_onnx_tens(m, a), tb = ta < 0 ? ta : dlb_onnx_tens(m, b);
  if (tb < 0) return tb;
  int one = dlb_dim_const(m->g, 1);
  if (m->g->t[ta].ndims == 1) {
    int32_t d[2] = {one, m->g->t[ta].dims[0]};
    if ((ta = dlb_onnx_reshape(m, n, "/a", ta, 2, d)) < 0) return ta;
  }
  int bvec = m->g->t[tb].ndims == 1;
  if (bvec) {
    int32_t d[2] = {m->g->t[tb].dims[0], one};
    if ((tb = dlb_onnx_reshape(m, n, "/b", tb, 2, d)) < 0) return tb;
  }
  int ins[2] = {ta, tb};
  int t = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_MATMUL, NULL, 2, ins, 2, tr, 0, NULL));
  if (t < 0) return t;
  if (bvec || a->nd == 1) {
    int32_t d[DLB_GRAPH_MAXRANK];
    int r = 0;
    const tensor *T = &m->g->t[t];
    for (int i = 0; i < T->ndims; i++)
      if (!((a->nd == 1 && i == T->ndims - 2) || (bvec && i == T->ndims - 1))) d[r++] = T->dims[i];
    if ((t = dlb_onnx_reshape(m, n, "/out", t, r, d)) < 0) return t;
  }
  return dlb_onnx_set_t(m, n, 0, t, elem);
}

int dlb_onnx_op_gemm(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *a, *b, *c = dlb_onnx_in(m, n, 2);
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &a)) || (rc = dlb_onnx_need(m, n, 1, &b))) return rc;
  /* transA / transB, each flipped by a folded Transpose (onnx_ops.c transpose) */
  int at[2] = {((int)dlb_onnx_aint(n, "transA", 0) != 0) ^ a->trans,
               ((int)dlb_onnx_aint(n, "transB", 0) != 0) ^ b->trans};
  int elem = a->elem, ta = dlb_onnx_tens(m, a), tb = ta < 0 ? ta : dlb_onnx_tens(m, b);
  if (tb < 0) return tb;
  int ins[2] = {ta, tb};
  int t = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_MATMUL, NULL, 2, ins, 2, at, 0, NULL));
  if (t < 0) return t;
  if (dlb_onnx_afloat(n, "alpha", 1) != 1 && (t = dlb_onnx_op1(m, n, OP_SCALE, "/alpha", t)) < 0) return t;
  if (c && dlb_onnx_afloat(n, "beta", 1) != 0) {
    int tc = dlb_onnx_tens(m, c);
    if (tc < 0) return tc;
    if ((t = dlb_onnx_op2(m, n, OP_ADD, "/bias", t, tc)) < 0) return t;
  }
  return dlb_onnx_set_t(m, n, 0, t, elem);
}

/* Pads and strides of Conv/pooling: symmetric pads per spatial axis into p[], or an error.
** auto_pad SAME_* computes them from the (numeric) input dims. */
static int window_attrs(dlb_onnx *m, const Onnx__NodeProto *n, const oval *x, int sp,
                        const int64_t *k, const int64_t *s, const int64_t *dl, int *p) {
  const int64_t *pads;
  size_t np = dlb_onnx_aints(n, "pads", &pads);
  int64_t pb[2] = {0, 0}, pe[2] = {0, 0};
  if (np == (size_t)(2 * sp)) for (int i = 0; i < sp; i++) pb[i] = pads[i], pe[i] = pads[sp + i];
  else if (np) return FAIL("pads of length %zu for %d spatial axes", np, sp);
  if (dlb_onnx_astr(n, "auto_pad", "SAME_UPPER") || dlb_onnx_astr(n, "auto_pad", "SAME_LOWER")) {
    for (int i = 0; i < sp; i++) {
      double D;
      if (!dlb_dim_is_const(m->g, x->d[2 + i], &D)) return FAIL("auto_pad SAME needs numeric spatial dims");
      double o = ceil(D / (double)s[i]), tot = (o - 1) * (double)s[i] + (double)(dl[i] * (k[i] - 1) + 1) - D;
      if (tot < 0) tot = 0;
      pb[i] = (int64_t)floor(tot / 2), pe[i] = (int64_t)tot - pb[i];
    }
  }
  if (x->haspad) for (int i = 0; i < sp; i++) pb[i] += x->pad[i], pe[i] += x->pad[2 + i];
  for (int i = 0; i < sp; i++) {
    if (pb[i] < 0 || pe[i] < 0 || pb[i] > (1 << 20) || pe[i] > (1 << 20)) return FAIL("pads out of range");
    if (pb[i] != pe[i]) {
      /* an asymmetric pad that does not change the output size behaves as the smaller one */
      double D;
      int64_t lo = pb[i] < pe[i] ? pb[i] : pe[i], span = dl[i] * (k[i] - 1) + 1;
      if (!dlb_dim_is_const(m->g, x->d[2 + i], &D) ||
          floor((D + (double)(pb[i] + pe[i]) - (double)span) / (double)s[i]) !=
          floor((D + 2.0 * (double)lo - (double)span) / (double)s[i]))
        return FAIL("asymmetric pads (%lld, %lld) on spatial axis %d are not supported",
                    (long long)pb[i], (long long)pe[i], i + 1);
      pb[i] = lo;
    }
    p[i] = (int)pb[i];
  }
  return DLB_OK;
}


int dlb_onnx_op_conv(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *w, *b = dlb_onnx_in(m, n, 2);
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &x)) || (rc = dlb_onnx_need(m, n, 1, &w))) return rc;
  int sp = x->nd - 2;
  if (sp != 1 && sp != 2) return FAIL("only 1-D and 2-D convolutions are supported (input rank %d)", x->nd);
  if (w->nd != x->nd) return dlb_onnx_fail(m, DLB_ESHAPE, "weight rank %d differs from input rank %d", w->nd, x->nd);
  int64_t k[2], s[2], dl[2];
  double kv;
  for (int i = 0; i < sp; i++) {
    if (!dlb_dim_is_const(m->g, w->d[2 + i], &kv) || kv < 1 || kv > (1 << 20))
      return FAIL("kernel dims must be numbers in 1..2^20");
    k[i] = (int64_t)kv;
  }
  const int64_t *ks;
  size_t nks = dlb_onnx_aints(n, "kernel_shape", &ks);
  if (nks && nks != (size_t)sp) /* optional, but when given it must agree with W */
    return dlb_onnx_fail(m, DLB_ESHAPE, "kernel_shape has %zu entries for %d spatial axes (the "
                         "weight '%s')", nks, sp, w->name);
  for (size_t i = 0; i < nks; i++)
    if (ks[i] != k[i])
      return dlb_onnx_fail(m, DLB_ESHAPE, "kernel_shape[%zu] is %lld but the weight '%s' has %lld "
                           "there", i, (long long)ks[i], w->name, (long long)k[i]);
  if (!dlb_onnx_ints_or(n, "strides", sp, 1, s) || !dlb_onnx_ints_or(n, "dilations", sp, 1, dl)) return FAIL("strides/dilations length");
  for (int i = 0; i < sp; i++)
    if (s[i] < 1 || s[i] > (1 << 20) || dl[i] < 1 || dl[i] > (1 << 20)) return FAIL("strides and dilations must be in 1..2^20");
  int p[2] = {0, 0};
  if ((rc = window_attrs(m, n, x, sp, k, s, dl, p))) return rc;
  int64_t grp = dlb_onnx_aint(n, "group", 1);
  if (grp < 1 || grp > (1 << 24)) return FAIL("group %lld", (long long)grp);
  int a[8] = {0};
  if (sp == 2) a[0] = (int)s[0], a[1] = (int)s[1], a[2] = p[0], a[3] = p[1], a[4] = (int)dl[0], a[5] = (int)dl[1];
  else a[0] = (int)s[0], a[2] = p[0], a[4] = (int)dl[0];
  a[6] = (int)grp;
  int elem = x->elem, tx = x->t, tw = dlb_onnx_tens(m, w);
  if (!x->haspad && (tx = dlb_onnx_tens(m, x)) < 0) return tx;
  if (tw < 0) return tw;
  int ins[2] = {tx, tw};
  int t = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_CONV, NULL, 2, ins, 8, a, 0, NULL));
  if (t < 0) return t;
  if (b) {
    if (b->state == OV_CONST && b->weight && b->t < 0 && b->nd == 1) { /* [C] -> [C, 1(, 1)] */
      b->nd = 1 + sp;
      for (int i = 1; i <= sp; i++) b->d[i] = dlb_dim_const(m->g, 1);
    }
    int tb = dlb_onnx_tens(m, b);
    if (tb < 0) return tb;
    if (m->g->t[tb].ndims == 1) {
      int32_t d[3] = {m->g->t[tb].dims[0], dlb_dim_const(m->g, 1), dlb_dim_const(m->g, 1)};
      if ((tb = dlb_onnx_reshape(m, n, "/bias_shape", tb, 1 + sp, d)) < 0) return tb;
    }
    if ((t = dlb_onnx_op2(m, n, OP_ADD, "/bias", t, tb)) < 0) return t;
  }
  return dlb_onnx_set_t(m, n, 0, t, elem);
}

int dlb_onnx_op_pool(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int sp = x->nd - 2, glob = !strncmp(n->op_type, "Global", 6);
  if (sp != 1 && sp != 2) return FAIL("only 1-D and 2-D pooling is supported (input rank %d)", x->nd);
  int maxp = strstr(n->op_type, "Max") != NULL;
  int elem = x->elem, t;
  if (glob) {
    if ((t = dlb_onnx_tens(m, x)) < 0) return t;
    if ((t = dlb_onnx_op1(m, n, maxp ? OP_GMAXPOOL : OP_GAVGPOOL, NULL, t)) < 0) return t;
    int32_t d[4] = {x->d[0], x->d[1], dlb_dim_const(m->g, 1), dlb_dim_const(m->g, 1)};
    return dlb_onnx_set_t(m, n, 0, dlb_onnx_reshape(m, n, "/keepdims", t, x->nd, d), elem);
  }
  int64_t k[2], s[2], dl[2];
  if (!dlb_onnx_ints_or(n, "kernel_shape", sp, 0, k) || !dlb_onnx_ints_or(n, "strides", sp, 1, s) || !dlb_onnx_ints_or(n, "dilations", sp, 1, dl))
    return FAIL("kernel_shape/strides/dilations length");
  for (int i = 0; i < sp; i++) {
    if (k[i] < 1 || k[i] > (1 << 20) || s[i] < 1 || s[i] > (1 << 20)) return FAIL("kernel_shape and strides must be in 1..2^20");
    if (dl[i] != 1) return FAIL("dilated pooling is not supported");
  }
  int p[2] = {0, 0};
  if ((rc = window_attrs(m, n, x, sp, k, s, dl, p))) return rc;
  if (dlb_onnx_aint(n, "ceil_mode", 0)) {
    /* ceil_mode: the output size rounds up (a last window that starts in the input or its
    ** begin padding is kept, as torch and ONNX define it); we reach the same size with the
    ** smallest larger symmetric pad (its extra windows cost as the partial ones would) */
    for (int i = 0; i < sp; i++) {
      double D;
      if (!dlb_dim_is_const(m->g, x->d[2 + i], &D)) return FAIL("ceil_mode needs numeric spatial dims");
      double num = D + 2.0 * p[i] - (double)k[i], want = ceil(num / (double)s[i]) + 1;
      if ((want - 1) * (double)s[i] >= D + p[i]) want--;
      int q = p[i];
      while (q <= p[i] + (int)s[i] && floor((D + 2.0 * q - (double)k[i]) / (double)s[i]) + 1 != want) q++;
      if (q > p[i] + (int)s[i])
        return FAIL("ceil_mode = 1 on spatial axis %d: no symmetric padding gives its output size", i + 1);
      p[i] = q;
    }
  }
  int a[6] = {0};
  if (sp == 2) a[0] = (int)k[0], a[1] = (int)k[1], a[2] = (int)s[0], a[3] = (int)s[1], a[4] = p[0], a[5] = p[1];
  else a[0] = (int)k[0], a[2] = (int)s[0], a[4] = p[0];
  t = x->t;
  if (!x->haspad && (t = dlb_onnx_tens(m, x)) < 0) return t;
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_first(m, dlb_onnx_mk(m, n, maxp ? OP_MAXPOOL : OP_AVGPOOL, NULL, 1, &t, 6, a, 0, NULL)), elem);
}

/* Pad: zero pads are the identity; spatial pads are folded into a following Conv or pool. */
int dlb_onnx_op_pad(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int64_t pv[2 * DLB_GRAPH_MAXRANK];
  int k;
  const int64_t *p;
  if (dlb_onnx_in(m, n, 1)) {
    if ((k = dlb_onnx_ivals(m, dlb_onnx_in(m, n, 1), pv, 2 * DLB_GRAPH_MAXRANK, "pads")) < 0) return k;
  } else {
    k = (int)dlb_onnx_aints(n, "pads", &p);
    if (k > 2 * DLB_GRAPH_MAXRANK) return FAIL("too many pads");
    if (k) memcpy(pv, p, (size_t)k * sizeof *p);
  }
  int r = x->nd, nz = 0;
  if (k != 2 * r) return FAIL("%d pads for rank %d", k, r);
  for (int i = 0; i < k; i++) nz |= pv[i] != 0;
  if (!nz) return dlb_onnx_alias(m, n);
  if (r < 3 || r > 4 || pv[0] || pv[1] || pv[r] || pv[r + 1] || x->state != OV_TENSOR || x->haspad)
    return FAIL("non-zero pads are supported only on the spatial axes of a tensor before Conv or pooling");
  for (int i = 0; i < k; i++) if (pv[i] < 0 || pv[i] > (1 << 20)) return FAIL("pads out of range");
  oval c = *x;
  oval *v = dlb_onnx_outv(m, n, 0);
  if (!v) return DLB_OK;
  const char *nm = v->name;
  *v = c;
  v->name = nm;
  v->haspad = 1;
  for (int i = 0; i < r - 2; i++) {
    v->pad[i] = (int)pv[2 + i], v->pad[2 + i] = (int)pv[r + 2 + i];
    double D;
    if (dlb_dim_is_const(m->g, c.d[2 + i], &D)) v->d[2 + i] = dlb_dim_const(m->g, D + (double)(pv[2 + i] + pv[r + 2 + i]));
  }
  return DLB_OK;
}

int dlb_onnx_op_batchnorm(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *s, *b;
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &x)) || (rc = dlb_onnx_need(m, n, 1, &s)) || (rc = dlb_onnx_need(m, n, 2, &b))) return rc;
  for (size_t i = 3; i < 5; i++) {
    oval *st = dlb_onnx_in(m, n, i);
    int ok;
    if (st && st->state == OV_CONST) m->facts[DLB_ONNX_BN_STATS] += dlb_onnx_numel_const(m, st, &ok);
  }
  int elem = x->elem, ins[3] = {dlb_onnx_tens(m, x), dlb_onnx_tens(m, s), dlb_onnx_tens(m, b)};
  for (int i = 0; i < 3; i++) if (ins[i] < 0) return ins[i];
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_BATCHNORM, NULL, 3, ins, 0, NULL, 0, NULL)), elem);
}

int dlb_onnx_op_layernorm(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *s, *b = dlb_onnx_in(m, n, 2);
  int rc, ax = 0;
  if ((rc = dlb_onnx_need(m, n, 0, &x)) || (rc = dlb_onnx_need(m, n, 1, &s))) return rc;
  if ((rc = dlb_onnx_axis0(m, dlb_onnx_aint(n, "axis", -1), x->nd, &ax))) return rc;
  if (ax != x->nd - 1) return FAIL("LayerNormalization over axis %d (not the last) is not supported", ax + 1);
  int elem = x->elem, ins[3] = {dlb_onnx_tens(m, x), dlb_onnx_tens(m, s), b ? dlb_onnx_tens(m, b) : 0};
  for (int i = 0; i < 3; i++) if (ins[i] < 0) return ins[i];
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_LAYERNORM, NULL, b ? 3 : 2, ins, 0, NULL, 0, NULL)), elem);
}

/* LSTM / GRU / RNN, time-batched: the input projection and the recurrent projection are
** one matmul each over all steps ([seq*batch, in] x [in, gates*H]); h_{t-1} (and c_{t-1})
** are stood in by zero-FLOP views of the same size, so FLOPs, bytes and kept activations
** equal an unrolled loop's and the sequence length may stay symbolic (docs/import.md). */
int dlb_onnx_op_recurrent(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *w, *rr, *bb = dlb_onnx_in(m, n, 3);
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &x)) || (rc = dlb_onnx_need(m, n, 1, &w)) || (rc = dlb_onnx_need(m, n, 2, &rr))) return rc;
  int lstm = n->op_type[0] == 'L', gru = n->op_type[0] == 'G';
  int ng = lstm ? 4 : gru ? 3 : 1;
  if (x->nd != 3 || w->nd != 3 || rr->nd != 3) return dlb_onnx_fail(m, DLB_ESHAPE, "X, W and R must have rank 3");
  if (dlb_onnx_aint(n, "layout", 0) != 0) return FAIL("layout = 1 (batch first) is not supported");
  double D, Hd;
  if (!dlb_dim_is_const(m->g, w->d[0], &D) || (D != 1 && D != 2)) return FAIL("num_directions must be 1 or 2");
  int H = dlb_dim_scale(m->g, w->d[1], 1.0 / ng);
  if (H < 0) return H;
  if (!dlb_dim_is_const(m->g, H, &Hd)) return FAIL("hidden size must be a number");
  int elem = x->elem, tx = dlb_onnx_tens(m, x), tw = tx < 0 ? tx : dlb_onnx_tens(m, w), tr = tw < 0 ? tw : dlb_onnx_tens(m, rr);
  int tb = bb && tr >= 0 ? dlb_onnx_tens(m, bb) : -1;
  if (tr < 0 || (bb && tb < 0)) return tr < 0 ? tr : tb;
  int ys[2], cs[2];
  for (int dir = 0; dir < (int)D; dir++) {
    char sx[64];
    int wd = tw, rd = tr, bd = tb;
#define SFX(s) (snprintf(sx, sizeof sx, "/d%d/%s", dir, s), sx)
    int32_t w2[2] = {w->d[1], w->d[2]}, r2[2] = {rr->d[1], rr->d[2]};
    if (D == 2) {
      if ((wd = dlb_onnx_slice(m, n, SFX("w"), tw, 0, dir, dlb_dim_const(m->g, 1))) < 0) return wd;
      if ((rd = dlb_onnx_slice(m, n, SFX("r"), tr, 0, dir, dlb_dim_const(m->g, 1))) < 0) return rd;
      if (tb >= 0 && (bd = dlb_onnx_slice(m, n, SFX("b"), tb, 0, dir, dlb_dim_const(m->g, 1))) < 0) return bd;
    }
    if ((wd = dlb_onnx_reshape(m, n, SFX("w2"), wd, 2, w2)) < 0) return wd;
    if ((rd = dlb_onnx_reshape(m, n, SFX("r2"), rd, 2, r2)) < 0) return rd;
    int ins[2] = {tx, wd}, tb1[2] = {0, 1};
    int xp = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_MATMUL, SFX("x_proj"), 2, ins, 2, tb1, 0, NULL));
    if (xp < 0) return xp;
    int hprev = dlb_onnx_slice(m, n, SFX("h_prev"), xp, 2, 0, H);
    if (hprev < 0) return hprev;
    ins[0] = hprev, ins[1] = rd;
    int hp = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_MATMUL, SFX("h_proj"), 2, ins, 2, tb1, 0, NULL));
    if (hp < 0) return hp;
    if (bd >= 0) {
      int32_t b1[1] = {dlb_dim_scale(m->g, H, 2 * ng)};
      int bv = dlb_onnx_reshape(m, n, SFX("b1"), bd, 1, b1);
      if (bv < 0) return bv;
      int a2[2] = {1, 2};
      int so = dlb_onnx_mk(m, n, OP_SPLIT, SFX("bias_split"), 1, &bv, 2, a2, 0, NULL);
      if (so < 0) return so;
      int wb = op_out(m->g, &m->g->o[so])[0], rb = op_out(m->g, &m->g->o[so])[1];
      if ((xp = dlb_onnx_op2(m, n, OP_ADD, SFX("x_bias"), xp, wb)) < 0) return xp;
      if ((hp = dlb_onnx_op2(m, n, OP_ADD, SFX("h_bias"), hp, rb)) < 0) return hp;
    }
    int h;
    if (lstm) {
      int gsum = dlb_onnx_op2(m, n, OP_ADD, SFX("gates"), xp, hp);
      int a2[2] = {3, 4};
      int so = gsum < 0 ? gsum : dlb_onnx_mk(m, n, OP_SPLIT, SFX("gate_split"), 1, &gsum, 2, a2, 0, NULL);
      if (so < 0) return so;
      int gi = op_out(m->g, &m->g->o[so])[0], go = op_out(m->g, &m->g->o[so])[1];
      int gf = op_out(m->g, &m->g->o[so])[2], gc = op_out(m->g, &m->g->o[so])[3];
      int cprev = dlb_onnx_slice(m, n, SFX("c_prev"), xp, 2, 0, H);
      int i_ = dlb_onnx_op1(m, n, OP_SIGMOID, SFX("i"), gi), o_ = dlb_onnx_op1(m, n, OP_SIGMOID, SFX("o"), go);
      int f_ = dlb_onnx_op1(m, n, OP_SIGMOID, SFX("f"), gf), c_ = dlb_onnx_op1(m, n, OP_TANH, SFX("c_cand"), gc);
      if (cprev < 0 || i_ < 0 || o_ < 0 || f_ < 0 || c_ < 0) return -1;
      int fc = dlb_onnx_op2(m, n, OP_MUL, SFX("f_c"), f_, cprev), ic = fc < 0 ? fc : dlb_onnx_op2(m, n, OP_MUL, SFX("i_c"), i_, c_);
      int c = ic < 0 ? ic : dlb_onnx_op2(m, n, OP_ADD, SFX("c"), fc, ic);
      int tc = c < 0 ? c : dlb_onnx_op1(m, n, OP_TANH, SFX("tanh_c"), c);
      if ((h = tc < 0 ? tc : dlb_onnx_op2(m, n, OP_MUL, SFX("h"), o_, tc)) < 0) return h;
      cs[dir] = c;
    } else if (gru) {
      int a2[2] = {3, 3};
      int sx_ = dlb_onnx_mk(m, n, OP_SPLIT, SFX("x_split"), 1, &xp, 2, a2, 0, NULL);
      int sh_ = sx_ < 0 ? sx_ : dlb_onnx_mk(m, n, OP_SPLIT, SFX("h_split"), 1, &hp, 2, a2, 0, NULL);
      if (sh_ < 0) return sh_;
      const int32_t *ox = op_out(m->g, &m->g->o[sx_]), *oh = op_out(m->g, &m->g->o[sh_]);
      int xz = ox[0], xr = ox[1], xh = ox[2], hz = oh[0], hr = oh[1], hh = oh[2];
      int z = dlb_onnx_op2(m, n, OP_ADD, SFX("z_in"), xz, hz);
      z = z < 0 ? z : dlb_onnx_op1(m, n, OP_SIGMOID, SFX("z"), z);
      int r = dlb_onnx_op2(m, n, OP_ADD, SFX("r_in"), xr, hr);
      r = r < 0 ? r : dlb_onnx_op1(m, n, OP_SIGMOID, SFX("r"), r);
      int rh = r < 0 ? r : dlb_onnx_op2(m, n, OP_MUL, SFX("r_h"), r, hh);
      int nn = rh < 0 ? rh : dlb_onnx_op2(m, n, OP_ADD, SFX("n_in"), xh, rh);
      nn = nn < 0 ? nn : dlb_onnx_op1(m, n, OP_TANH, SFX("n"), nn);
      int df = nn < 0 || z < 0 ? -1 : dlb_onnx_op2(m, n, OP_SUB, SFX("h_minus_n"), hprev, nn);
      int zd = df < 0 ? df : dlb_onnx_op2(m, n, OP_MUL, SFX("z_diff"), z, df);
      if ((h = zd < 0 ? zd : dlb_onnx_op2(m, n, OP_ADD, SFX("h"), nn, zd)) < 0) return h;
    } else {
      int s = dlb_onnx_op2(m, n, OP_ADD, SFX("sum"), xp, hp);
      if ((h = s < 0 ? s : dlb_onnx_op1(m, n, OP_TANH, SFX("h"), s)) < 0) return h;
    }
    ys[dir] = h;
#undef SFX
  }
  /* Y [seq, dirs, batch, H]; Y_h, Y_c [dirs, batch, H] (the last step's state) */
  int32_t yd[4] = {x->d[0], dlb_dim_const(m->g, 1), x->d[1], H};
  int y[2], yh[2], yc[2];
  int32_t hd[3] = {dlb_dim_const(m->g, 1), x->d[1], H};
  for (int dir = 0; dir < (int)D; dir++) {
    if ((y[dir] = dlb_onnx_reshape(m, n, dir ? "/d1/y" : "/d0/y", ys[dir], 4, yd)) < 0) return y[dir];
    int last = dlb_onnx_slice(m, n, dir ? "/d1/last" : "/d0/last", ys[dir], 0, 0, dlb_dim_const(m->g, 1));
    if (last < 0 || (yh[dir] = dlb_onnx_reshape(m, n, dir ? "/d1/y_h" : "/d0/y_h", last, 3, hd)) < 0) return -1;
    if (lstm) {
      int lc = dlb_onnx_slice(m, n, dir ? "/d1/last_c" : "/d0/last_c", cs[dir], 0, 0, dlb_dim_const(m->g, 1));
      if (lc < 0 || (yc[dir] = dlb_onnx_reshape(m, n, dir ? "/d1/y_c" : "/d0/y_c", lc, 3, hd)) < 0) return -1;
    }
  }
  int a2 = 2, a1 = 1, Y = y[0], YH = yh[0], YC = lstm ? yc[0] : -1;
  if (D == 2) {
    if ((Y = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_CONCAT, "/y", 2, y, 1, &a2, 0, NULL))) < 0) return Y;
    if ((YH = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_CONCAT, "/y_h", 2, yh, 1, &a1, 0, NULL))) < 0) return YH;
    if (lstm && (YC = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_CONCAT, "/y_c", 2, yc, 1, &a1, 0, NULL))) < 0) return YC;
  }
  if ((rc = dlb_onnx_set_t(m, n, 0, Y, elem)) || (n->n_output > 1 && (rc = dlb_onnx_set_t(m, n, 1, YH, elem)))) return rc;
  if (lstm && n->n_output > 2 && (rc = dlb_onnx_set_t(m, n, 2, YC, elem))) return rc;
  return DLB_OK;
}

/* An unsupported node costed as element-wise (unknown = "skip"): one FLOP per element of
** its first tensor input. An output takes its shape from the file's value_info (or graph
** output) when that is known: the same element count through a reshape, another count
** through a sum of the input broadcast into the output (one FLOP per input and per output
** element, so the backward pass still reaches the input); else the input's shape. */
int dlb_onnx_skip(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x = NULL;
  for (size_t i = 0; i < n->n_input && !x; i++) {
    oval *v = dlb_onnx_in(m, n, i);
    if (v && v->state == OV_TENSOR) x = v;
  }
  int32_t d[DLB_GRAPH_MAXRANK];
  if (!x) {
    for (size_t i = 0; i < n->n_input && !x; i++) x = dlb_onnx_in(m, n, i);
    if (!x) return FAIL("unsupported operator without inputs; its output shape is unknown");
    oval c = *x; /* constants in, constants out */
    for (size_t i = 0; i < n->n_output; i++) {
      if (!*n->output[i]) continue;
      int r = dlb_onnx_vi_dims(m, n->output[i], d, 1);
      if (r < 0 && r != DLB_ENOTFOUND) return r;
      if (!dlb_onnx_set_c(m, n, i, r >= 0 ? r : c.nd, r >= 0 ? d : c.d, 0, c.elem)) return dlb_last_status();
    }
    return DLB_OK;
  }
  int elem = x->elem, t = dlb_onnx_tens(m, x);
  if (t < 0) return t;
  int y = dlb_onnx_op1(m, n, OP_SCALE, NULL, t);
  if (y < 0) return y;
  for (size_t i = 0; i < n->n_output; i++) {
    if (!*n->output[i]) continue;
    int r = dlb_onnx_vi_dims(m, n->output[i], d, 1), o = y;
    if (r < 0 && r != DLB_ENOTFOUND) return r;
    const tensor *Y = &m->g->t[y];
    if (r >= 0 && !(r == Y->ndims && !memcmp(d, Y->dims, (size_t)r * sizeof *d))) {
      int ny = dlb_onnx_dprod(m, Y->ndims, Y->dims), nd = dlb_onnx_dprod(m, r, d);
      if (ny < 0 || nd < 0) return ny < 0 ? ny : nd;
      char sfx[32];
      snprintf(sfx, sizeof sfx, "/out%zu", i);
      if (ny == nd) {
        o = dlb_onnx_reshape(m, n, sfx, y, r, d);
      } else {
        int a[2] = {0, 1}, one = dlb_dim_const(m->g, 1);
        int32_t ones[DLB_GRAPH_MAXRANK];
        for (int k = 0; k < r; k++) ones[k] = one;
        int sm = dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_SUM, "/sum", 1, &y, 2, a, 0, NULL));
        if (sm >= 0) sm = dlb_onnx_reshape(m, n, "/sum_shape", sm, r, ones);
        char what[32];
        snprintf(what, sizeof what, "shape%zu", i);
        int z = sm < 0 ? sm : dlb_onnx_source(m, n, what, r, d);
        o = z < 0 ? z : dlb_onnx_op2(m, n, OP_ADD, sfx, z, sm);
      }
    }
    if ((t = dlb_onnx_set_t(m, n, i, o, elem))) return t;
  }
  return DLB_OK;
}

