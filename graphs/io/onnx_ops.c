/*
** onnx_ops.c — the ONNX operator table and the handlers of element-wise, shape and
** constant ops (docs/import.md lists the mapping and how each op is costed). Shape
** arithmetic on constants (Shape, Gather, Concat, Unsqueeze, Reshape targets ...) is
** evaluated here, on values that are interned dims, so symbolic batch and sequence dims
** flow through it. The layers with weights are in onnx_layers.c, helpers in onnx_node.c.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_onnx.h"
#include "dlb_runtime.h"
#include "onnx_impl.h"

#define FAIL(...) dlb_onnx_fail(m, DLB_EINVAL, __VA_ARGS__)

/* -- handlers -- */


static const struct { const char *name; int type; } UNARY[] = {
  {"Relu", OP_RELU}, {"Sigmoid", OP_SIGMOID}, {"Tanh", OP_TANH}, {"Exp", OP_EXP}, {"Log", OP_LOG},
  {"Sqrt", OP_SQRT}, {"Neg", OP_NEG}, {"Erf", OP_TANH}, {"Gelu", OP_GELU}, {"Clip", OP_RELU},
  {"LeakyRelu", OP_RELU}, {"Elu", OP_EXP}, {"Selu", OP_EXP}, {"Celu", OP_EXP}, {"Softplus", OP_EXP},
  {"HardSigmoid", OP_RELU}, {"HardSwish", OP_RELU}, {"Reciprocal", OP_SCALE}, {"Abs", OP_RELU},
  {"Floor", OP_SCALE}, {"Ceil", OP_SCALE}, {"Round", OP_SCALE}, {"Sign", OP_SCALE},
  {"Sin", OP_TANH}, {"Cos", OP_TANH}, {"Mish", OP_SILU}, {"Softsign", OP_SCALE}, {"Not", OP_SCALE},
  {"Softmax", OP_SOFTMAX}, {"LogSoftmax", OP_LOGSOFTMAX}, {"Dropout", OP_DROPOUT},
  {"Trilu", OP_SCALE}, {"CumSum", OP_SCALE}, {"IsNaN", OP_SCALE}, {"IsInf", OP_SCALE},
};

static int unary(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x), type = OP_SCALE;
  if (rc) return rc;
  for (size_t i = 0; i < sizeof UNARY / sizeof *UNARY; i++)
    if (!strcmp(UNARY[i].name, n->op_type)) type = UNARY[i].type;
  if (x->state == OV_CONST) { /* folded: dims only (values only where they matter) */
    oval c = *x;
    int nv = 0;
    if (c.nv && (!strcmp(n->op_type, "Neg") || !strcmp(n->op_type, "Floor") || !strcmp(n->op_type, "Ceil")))
      nv = c.nv;
    oval *v = dlb_onnx_set_c(m, n, 0, c.nd, c.d, nv, c.elem);
    if (!v) return dlb_last_status();
    if (!strcmp(n->op_type, "Not")) dlb_onnx_mask_not(v, &c);
    for (int i = 0; i < nv; i++) {
      double a;
      int d = m->pool[c.v + i];
      if (n->op_type[0] == 'N') d = dlb_dim_scale(m->g, d, -1);
      else if (dlb_dim_is_const(m->g, d, &a)) d = dlb_dim_const(m->g, n->op_type[0] == 'F' ? floor(a) : ceil(a));
      if (d < 0) return d;
      m->pool[v->v + i] = d;
    }
    return DLB_OK;
  }
  int elem = x->elem, t = dlb_onnx_tens(m, x);
  if (t < 0) return t;
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_op1(m, n, type, NULL, t), elem);
}

/* Trilu: costed as a unary element-wise op (a mask's triangle); its offset k (input 1, 0
** when absent; NaN when not a constant known at import time) and `upper` go to the report
** (DLB_ONNX_R_TRIL / _TRIU, the node named), where dlb.serve reads a sliding window from a
** mask's band (docs/import.md "Trilu"). */
static int trilu(dlb_onnx *m, const Onnx__NodeProto *n) {
  double k = 0;
  if (n->n_input > 1 && n->input[1] && *n->input[1]) {
    oval *kv;
    int rc = dlb_onnx_need(m, n, 1, &kv);
    if (rc) return rc;
    double x;
    k = kv->state == OV_CONST && kv->nv == 1 && dlb_dim_is_const(m->g, m->pool[kv->v], &x) ? x : NAN;
  }
  int upper = dlb_onnx_aint(n, "upper", 1) != 0;
  int rc = dlb_onnx_note(m, upper ? DLB_ONNX_R_TRIU : DLB_ONNX_R_TRIL, k, "node %zu '%s'",
                         m->nodei, n->name && *n->name ? n->name
                         : n->n_output > 0 && n->output[0] ? n->output[0] : "");
  if (rc) return rc;
  oval *x;
  if ((rc = dlb_onnx_need(m, n, 0, &x))) return rc;
  oval c = *x;
  if ((rc = unary(m, n))) return rc;
  oval *v = c.state == OV_CONST ? dlb_onnx_find(m, n->output[0]) : NULL;
  if (v) dlb_onnx_mask_trilu(v, &c, upper, k); /* Trilu of a filled constant: a triangle */
  return DLB_OK;
}

static int cast(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int to = (int)dlb_onnx_aint(n, "to", 1), from = x->elem;
  if ((rc = dlb_onnx_alias(m, n))) return rc;
  oval *v = dlb_onnx_find(m, n->output[0]);
  if (v) {
    v->elem = to;
    dlb_onnx_mask_cast(v, from, to);
    if (v->state == OV_CONST && v->nv && !dlb_onnx_isfloat(to)) { /* truncate numbers */
      int off = dlb_onnx_pool(m, (size_t)v->nv);
      if (off < 0) return off;
      v = dlb_onnx_find(m, n->output[0]);
      for (int i = 0; i < v->nv; i++) {
        double a;
        int d = m->pool[v->v + i];
        if (dlb_dim_is_const(m->g, d, &a)) d = dlb_dim_const(m->g, trunc(a));
        if (d < 0) return d;
        m->pool[off + i] = d;
      }
      v->v = off;
    }
  }
  return DLB_OK;
}

/* Fold a binary op on constant values; 1 if folded, 0 if not foldable, <0 error. */
static int fold2(dlb_onnx *m, const Onnx__NodeProto *n, const oval *a, const oval *b, int32_t *d, int r) {
  const char *op = n->op_type;
  int nv = a->nv > b->nv ? a->nv : b->nv;
  if (!a->nv || !b->nv || (a->nv != b->nv && a->nv != 1 && b->nv != 1)) return 0;
  int ok = 1;
  oval tmp = {0};
  tmp.nd = r;
  memcpy(tmp.d, d, (size_t)r * sizeof *d);
  if (dlb_onnx_numel_const(m, &tmp, &ok) != nv || !ok) return 0;
  int32_t res[ONNX_MAXVALS];
  for (int i = 0; i < nv; i++) {
    int x = m->pool[a->v + (a->nv == 1 ? 0 : i)], y = m->pool[b->v + (b->nv == 1 ? 0 : i)], z;
    double p, q;
    int cp = dlb_dim_is_const(m->g, x, &p), cq = dlb_dim_is_const(m->g, y, &q);
    if (!strcmp(op, "Add")) z = dlb_dim_add(m->g, x, y, 1);
    else if (!strcmp(op, "Sub")) z = dlb_dim_add(m->g, x, y, -1);
    else if (!strcmp(op, "Mul")) z = dlb_dim_mul(m->g, x, y);
    else if (!strcmp(op, "Div")) {
      if (cp && cq && q != 0) z = dlb_dim_const(m->g, dlb_onnx_isfloat(a->elem) ? p / q : trunc(p / q));
      else z = dlb_onnx_ddiv(m, x, y, "Div");
    } else if (cp && cq) {
      double v;
      if (!strcmp(op, "Equal")) v = p == q;
      else if (!strcmp(op, "Less")) v = p < q;
      else if (!strcmp(op, "Greater")) v = p > q;
      else if (!strcmp(op, "LessOrEqual")) v = p <= q;
      else if (!strcmp(op, "GreaterOrEqual")) v = p >= q;
      else if (!strcmp(op, "Max")) v = p > q ? p : q;
      else if (!strcmp(op, "Min")) v = p < q ? p : q;
      else if (!strcmp(op, "Pow")) v = pow(p, q);
      else if (!strcmp(op, "Mod")) v = q != 0 ? fmod(p, q) : 0;
      else if (!strcmp(op, "And")) v = p != 0 && q != 0;
      else if (!strcmp(op, "Or")) v = p != 0 || q != 0;
      else return 0;
      if (!isfinite(v)) return 0;
      z = dlb_dim_const(m->g, v);
    } else if (!strcmp(op, "Equal") && (x == y || (cp && p <= 0) || (cq && q <= 0))) {
      z = dlb_dim_const(m->g, x == y); /* dims are positive: a symbolic dim is never <= 0 */
    } else {
      return 0;
    }
    if (z < 0) return z;
    res[i] = z;
  }
  int elem = !strcmp(op, "Equal") || !strcmp(op, "Less") || !strcmp(op, "Greater") ? 9 : a->elem;
  oval *v = dlb_onnx_set_c(m, n, 0, r, d, nv, elem);
  if (!v) return dlb_last_status();
  memcpy(m->pool + v->v, res, (size_t)nv * sizeof *res);
  return 1;
}

/* Element-wise binary ops with broadcasting (and variadic Sum/Max/Min/Mean). */
static int binary(dlb_onnx *m, const Onnx__NodeProto *n) {
  const char *op = n->op_type;
  if (n->n_input == 1) return dlb_onnx_alias(m, n);
  oval *a, *b;
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &a)) || (rc = dlb_onnx_need(m, n, 1, &b))) return rc;
  if (n->n_input > 2 && (a->state != OV_TENSOR || b->state != OV_TENSOR))
    return FAIL("variadic %s on constants is not supported", op);
  int32_t d[DLB_GRAPH_MAXRANK];
  int r = dlb_onnx_bcast(m, a->nd, a->d, b->nd, b->d, d);
  if (r < 0) return r;
  int cmp = !strcmp(op, "Equal") || !strcmp(op, "Less") || !strcmp(op, "Greater") ||
            !strcmp(op, "LessOrEqual") || !strcmp(op, "GreaterOrEqual") || !strcmp(op, "And") ||
            !strcmp(op, "Or") || !strcmp(op, "Xor");
  if (a->state == OV_CONST && b->state == OV_CONST) {
    oval ca = *a, cb = *b;
    int f = fold2(m, n, a, b, d, r);
    if (f < 0) return f;
    if (f == 0 && !dlb_onnx_set_c(m, n, 0, r, d, 0, cmp ? 9 : ca.elem)) return dlb_last_status();
    oval *v = dlb_onnx_find(m, n->output[0]);
    if (v) dlb_onnx_mask_binary(m, v, op, &ca, &cb); /* an iota's offset, a comparison's triangle */
    return DLB_OK;
  }
  int elem = a->state == OV_TENSOR ? a->elem : b->elem;
  /* a tensor and a scalar constant: one FLOP per element */
  if (n->n_input == 2 && (dlb_onnx_scalar_const(m, a) || dlb_onnx_scalar_const(m, b))) {
    oval *x = dlb_onnx_scalar_const(m, a) ? b : a;
    int t = dlb_onnx_tens(m, x);
    if (t < 0) return t;
    return dlb_onnx_set_t(m, n, 0, dlb_onnx_op1(m, n, OP_SCALE, NULL, t), cmp ? 9 : elem);
  }
  int type = !strcmp(op, "Add") || !strcmp(op, "Sum") || !strcmp(op, "Mean") ? OP_ADD
           : !strcmp(op, "Mul") || !strcmp(op, "Pow") ? OP_MUL
           : !strcmp(op, "Div") ? OP_DIV : OP_SUB;
  /* scores + a causal additive mask (onnx_mask.c) */
  int causal = type == OP_ADD && n->n_input == 2 &&
               (dlb_onnx_mask_causal_add(a, r, d) || dlb_onnx_mask_causal_add(b, r, d));
  int ta = dlb_onnx_tens(m, a), tb = ta < 0 ? ta : dlb_onnx_tens(m, b);
  if (tb < 0) return tb;
  int t = dlb_onnx_op2(m, n, type, NULL, ta, tb);
  if (causal) dlb_onnx_mask_mark(m, t);
  for (size_t i = 2; i < n->n_input && t >= 0; i++) {
    oval *c = dlb_onnx_in(m, n, i);
    if (!c || c->state != OV_TENSOR) return FAIL("input %zu must be a tensor", i + 1);
    char sfx[32];
    snprintf(sfx, sizeof sfx, "/%zu", i);
    t = dlb_onnx_op2(m, n, type, sfx, t, c->t);
  }
  return dlb_onnx_set_t(m, n, 0, t, cmp ? 9 : elem);
}

/* Where(cond, a, b): folded on constants, else costed as an add of a and b. */
static int where(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *c, *a, *b;
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &c)) || (rc = dlb_onnx_need(m, n, 1, &a)) || (rc = dlb_onnx_need(m, n, 2, &b))) return rc;
  int32_t d[DLB_GRAPH_MAXRANK], d2[DLB_GRAPH_MAXRANK];
  int r = dlb_onnx_bcast(m, a->nd, a->d, b->nd, b->d, d);
  if (r < 0) return r;
  if ((r = dlb_onnx_bcast(m, c->nd, c->d, r, d, d2)) < 0) return r;
  if (c->state == OV_CONST && a->state == OV_CONST && b->state == OV_CONST) {
    int nv = c->nv > a->nv ? c->nv : a->nv;
    if (b->nv > nv) nv = b->nv;
    int ok = c->nv && a->nv && b->nv;
    ok = ok && (c->nv == nv || c->nv == 1) && (a->nv == nv || a->nv == 1) && (b->nv == nv || b->nv == 1);
    for (int i = 0; ok && i < c->nv; i++) {
      double x;
      ok = dlb_dim_is_const(m->g, m->pool[c->v + i], &x);
    }
    oval cc = *c, ca = *a, cb = *b;
    oval *v = dlb_onnx_set_c(m, n, 0, r, d2, ok ? nv : 0, ca.elem);
    if (!v) return dlb_last_status();
    dlb_onnx_mask_where(m, v, &cc, &ca, &cb); /* masked_fill of a filled constant */
    for (int i = 0; ok && i < nv; i++) {
      double x;
      dlb_dim_is_const(m->g, m->pool[cc.v + (cc.nv == 1 ? 0 : i)], &x);
      m->pool[v->v + i] = x != 0 ? m->pool[ca.v + (ca.nv == 1 ? 0 : i)] : m->pool[cb.v + (cb.nv == 1 ? 0 : i)];
    }
    return DLB_OK;
  }
  int elem = a->state == OV_TENSOR ? a->elem : b->elem;
  if (a->state == OV_CONST && b->state == OV_CONST) { /* a mask from a tensor condition */
    int tc = dlb_onnx_tens(m, c), ta = tc < 0 ? tc : dlb_onnx_tens(m, a);
    if (ta < 0) return ta;
    return dlb_onnx_set_t(m, n, 0, dlb_onnx_op2(m, n, OP_ADD, NULL, tc, ta), elem);
  }
  /* Where(causal, scores, fill), Where(~causal, fill, scores): marked (onnx_mask.c) */
  int causal = dlb_onnx_mask_causal_where(m, c, a, b, r, d2);
  int ta = dlb_onnx_tens(m, a), tb = ta < 0 ? ta : dlb_onnx_tens(m, b);
  if (tb < 0) return tb;
  int t = dlb_onnx_op2(m, n, OP_ADD, NULL, ta, tb);
  if (causal) dlb_onnx_mask_mark(m, t);
  return dlb_onnx_set_t(m, n, 0, t, elem);
}

static int constant(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *v = dlb_onnx_outv(m, n, 0);
  if (!v) return FAIL("Constant without an output");
  const Onnx__AttributeProto *a;
  if ((a = dlb_onnx_attr(n, "value")) && a->t) return dlb_onnx_const_tensor(m, v, a->t, 0);
  v->state = OV_CONST;
  int off;
  if ((a = dlb_onnx_attr(n, "value_int")) && a->has_i) {
    if ((off = dlb_onnx_pool(m, 1)) < 0) return off;
    v = dlb_onnx_find(m, n->output[0]);
    v->elem = 7, v->nv = 1, v->v = off;
    return (m->pool[off] = dlb_dim_const(m->g, (double)a->i)) < 0 ? m->pool[off] : DLB_OK;
  }
  if ((a = dlb_onnx_attr(n, "value_float")) && a->has_f) {
    if ((off = dlb_onnx_pool(m, 1)) < 0) return off;
    v = dlb_onnx_find(m, n->output[0]);
    v->elem = 1, v->nv = isfinite(a->f) ? 1 : 0, v->v = off;
    v->allnz = a->f != 0, v->neg = a->f == 0 || a->f <= ONNX_MASK_NEG; /* a fill: -inf ... */
    return (m->pool[off] = dlb_dim_const(m->g, isfinite(a->f) ? a->f : 0)) < 0 ? m->pool[off] : DLB_OK;
  }
  if ((a = dlb_onnx_attr(n, "value_ints")) || (a = dlb_onnx_attr(n, "value_floats"))) {
    size_t k = a->n_ints ? a->n_ints : a->n_floats;
    if (k > ONNX_MAXVALS) return FAIL("constant list of %zu values (at most %d)", k, ONNX_MAXVALS);
    if ((off = dlb_onnx_pool(m, k ? k : 1)) < 0) return off;
    v = dlb_onnx_find(m, n->output[0]);
    v->elem = a->n_ints ? 7 : 1, v->nv = (int)k, v->v = off, v->nd = 1;
    if ((v->d[0] = dlb_dim_const(m->g, (double)k)) < 0) return v->d[0];
    for (size_t i = 0; i < k; i++) {
      double x = a->n_ints ? (double)a->ints[i] : a->floats[i];
      if ((m->pool[off + (int)i] = dlb_dim_const(m->g, isfinite(x) ? x : 0)) < 0) return m->pool[off + (int)i];
    }
    return DLB_OK;
  }
  return FAIL("Constant without a supported value attribute");
}

static int shape(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int r = x->nd, s = 0, e = r;
  int64_t st = dlb_onnx_aint(n, "start", 0), en = dlb_onnx_aint(n, "end", r);
  if (st < 0) st += r;
  if (en < 0) en += r;
  s = st < 0 ? 0 : st > r ? r : (int)st;
  e = en < s ? s : en > r ? r : (int)en;
  int32_t d[DLB_GRAPH_MAXRANK], len = dlb_dim_const(m->g, e - s);
  memcpy(d, x->d + s, (size_t)(e - s) * sizeof *d);
  oval *v = dlb_onnx_set_c(m, n, 0, 1, &len, e - s, 7);
  if (!v) return dlb_last_status();
  if (e > s) memcpy(m->pool + v->v, d, (size_t)(e - s) * sizeof *d);
  if (e == s) v->nv = 0;
  return DLB_OK;
}

static int size_op(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int p = dlb_onnx_dprod(m, x->nd, x->d);
  if (p < 0) return p;
  oval *v = dlb_onnx_set_c(m, n, 0, 0, NULL, 1, 7);
  if (!v) return dlb_last_status();
  m->pool[v->v] = p;
  return DLB_OK;
}

/* Axes from attribute "axes" (older opsets) or input i. */
static int axes_of(dlb_onnx *m, const Onnx__NodeProto *n, size_t i, int64_t *ax) {
  const int64_t *p;
  size_t k = dlb_onnx_aints(n, "axes", &p);
  if (k) {
    if (k > DLB_GRAPH_MAXRANK) return FAIL("too many axes");
    memcpy(ax, p, k * sizeof *p);
    return (int)k;
  }
  oval *a = dlb_onnx_in(m, n, i);
  if (!a) return 0;
  return dlb_onnx_ivals(m, a, ax, DLB_GRAPH_MAXRANK, "axes");
}

/* Output 0 = x with new dims (a constant keeps its values; a tensor gets a reshape). */
static int redim(dlb_onnx *m, const Onnx__NodeProto *n, oval *x, int nd, const int32_t *d) {
  if (x->state == OV_CONST) {
    oval c = *x, tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.nd = nd;
    memcpy(tmp.d, d, (size_t)nd * sizeof *d);
    int ok;
    double cnt = dlb_onnx_numel_const(m, &tmp, &ok);
    if (c.nv && (!ok || cnt != c.nv))
      return dlb_onnx_fail(m, DLB_ESHAPE, "a constant of %d values cannot take %d dims of another element count", c.nv, nd);
    oval *v = dlb_onnx_set_c(m, n, 0, nd, d, 0, c.elem);
    if (!v) return dlb_last_status();
    v->nv = c.nv, v->v = c.v, v->weight = c.weight, v->t = -1;
    dlb_onnx_mask_redim(v, &c);
    if (c.weight) { /* a reshaped weight: materialise the original and reshape it */
      oval *src = dlb_onnx_find(m, c.name);
      int t = dlb_onnx_tens(m, src);
      if (t < 0) return t;
      return dlb_onnx_set_t(m, n, 0, dlb_onnx_reshape(m, n, NULL, t, nd, d), c.elem);
    }
    return DLB_OK;
  }
  int elem = x->elem, t = dlb_onnx_tens(m, x);
  if (t < 0) return t;
  if (nd == m->g->t[t].ndims && !memcmp(d, m->g->t[t].dims, (size_t)nd * sizeof *d))
    return dlb_onnx_set_t(m, n, 0, t, elem);
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_reshape(m, n, NULL, t, nd, d), elem);
}

static int unsqueeze(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int64_t ax[DLB_GRAPH_MAXRANK];
  int k = axes_of(m, n, 1, ax);
  if (k < 0) return k;
  int r = x->nd + k;
  if (r > DLB_GRAPH_MAXRANK) return FAIL("rank %d exceeds %d", r, DLB_GRAPH_MAXRANK);
  int mark[DLB_GRAPH_MAXRANK] = {0};
  for (int i = 0; i < k; i++) {
    int a = 0;
    if ((rc = dlb_onnx_axis0(m, ax[i], r, &a))) return rc;
    mark[a] = 1;
  }
  int32_t d[DLB_GRAPH_MAXRANK];
  for (int i = 0, j = 0; i < r; i++) d[i] = mark[i] ? dlb_dim_const(m->g, 1) : j < x->nd ? x->d[j++] : dlb_dim_const(m->g, 1);
  return redim(m, n, x, r, d);
}

static int squeeze(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int64_t ax[DLB_GRAPH_MAXRANK];
  int k = axes_of(m, n, 1, ax), one = dlb_dim_const(m->g, 1);
  if (k < 0) return k;
  int mark[DLB_GRAPH_MAXRANK] = {0};
  for (int i = 0; i < k; i++) {
    int a = 0;
    if ((rc = dlb_onnx_axis0(m, ax[i], x->nd, &a))) return rc;
    if (x->d[a] != one) return dlb_onnx_fail(m, DLB_ESHAPE, "squeezed axis %d is not 1", a + 1);
    mark[a] = 1;
  }
  int32_t d[DLB_GRAPH_MAXRANK];
  int r = 0;
  for (int i = 0; i < x->nd; i++)
    if (!(k ? mark[i] : x->d[i] == one)) d[r++] = x->d[i];
  return redim(m, n, x, r, d);
}

static int flatten(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int64_t a = dlb_onnx_aint(n, "axis", 1);
  if (a < 0) a += x->nd;
  if (a < 0 || a > x->nd) return FAIL("axis out of range");
  int32_t d[2];
  if ((d[0] = dlb_onnx_dprod(m, (int)a, x->d)) < 0 || (d[1] = dlb_onnx_dprod(m, x->nd - (int)a, x->d + a)) < 0) return -1;
  return redim(m, n, x, 2, d);
}

static int reshape_op(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *s;
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &x)) || (rc = dlb_onnx_need(m, n, 1, &s))) return rc;
  int32_t d[DLB_GRAPH_MAXRANK];
  int r = dlb_onnx_dvals(m, s, d, "the target shape");
  if (r < 0) return r;
  int allowzero = (int)dlb_onnx_aint(n, "allowzero", 0), infer = -1;
  for (int i = 0; i < r; i++) {
    double v;
    if (!dlb_dim_is_const(m->g, d[i], &v)) continue;
    if (v == 0 && !allowzero) {
      if (i >= x->nd) return FAIL("target dim %d is 0 (copy) beyond the input's rank", i + 1);
      d[i] = x->d[i];
    } else if (v == -1) {
      if (infer >= 0) return FAIL("two -1 dims in the target shape");
      infer = i;
    } else if (v < 1 || v != floor(v)) {
      return FAIL("target dim %d is %g", i + 1, v);
    }
  }
  if (infer >= 0) {
    int32_t others[DLB_GRAPH_MAXRANK], no = 0;
    for (int i = 0; i < r; i++) if (i != infer) others[no++] = d[i];
    /* cancel dims the input has, then divide the rest */
    int32_t rest[DLB_GRAPH_MAXRANK], nr = x->nd;
    memcpy(rest, x->d, sizeof rest);
    int32_t left[DLB_GRAPH_MAXRANK], nl = 0;
    for (int i = 0; i < no; i++) {
      int k = 0;
      while (k < nr && rest[k] != others[i]) k++;
      if (k < nr) rest[k] = rest[--nr];
      else left[nl++] = others[i];
    }
    int num = dlb_onnx_dprod(m, nr, rest), den = num < 0 ? num : dlb_onnx_dprod(m, nl, left);
    if (den < 0) return den;
    if ((d[infer] = dlb_onnx_ddiv(m, num, den, "Reshape -1")) < 0) return d[infer];
  }
  return redim(m, n, x, r, d);
}

static int transpose(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  const int64_t *p;
  size_t k = dlb_onnx_aints(n, "perm", &p);
  int r = x->nd, perm[DLB_GRAPH_MAXRANK];
  if (k && (int)k != r) return FAIL("perm has %zu entries for rank %d", k, r);
  for (int i = 0; i < r; i++) {
    perm[i] = k ? (p[i] >= 0 && p[i] < r ? (int)p[i] : -1) : r - 1 - i;
    if (perm[i] < 0 || perm[i] >= r) return FAIL("perm entry %d out of range", i + 1);
  }
  int32_t d[DLB_GRAPH_MAXRANK];
  for (int i = 0; i < r; i++) d[i] = x->d[perm[i]];
  if (x->state == OV_CONST && !x->weight) {
    oval c = *x;
    oval *v = dlb_onnx_set_c(m, n, 0, r, d, r <= 1 ? c.nv : 0, c.elem);
    if (!v) return dlb_last_status();
    if (v->nv) memcpy(m->pool + v->v, m->pool + c.v, (size_t)v->nv * sizeof *m->pool);
    return DLB_OK;
  }
  int elem = x->elem, t = dlb_onnx_tens(m, x);
  if (t < 0) return t;
  /* A Transpose read only for its shape is no copy (review 18): in eager PyTorch a permute
  ** is a view (torch.Tensor.permute: "returns a view"), copied only where a reader needs
  ** contiguous memory, and x.size() reads no data. torch.onnx's peephole pass
  ** fuseConsecutiveTransposes (torch/csrc/jit/passes/onnx/peephole.cpp) merges GPT-2's
  ** k.permute(0, 2, 1, 3) with k.transpose(-1, -2) into one Transpose of the permute's
  ** input, leaving the permute's node read by k.size(-2) alone (gpt2_like's /h.N/Transpose_1):
  ** it was counted as a forward copy, and its gradient was rightly absent (nothing it makes
  ** reaches the loss). Its shape stays known (the value's dims); no op is made (below). */
  int last2 = 1, view = r >= 2 && dlb_onnx_shape_only(m, n);
  if (r < 2) return dlb_onnx_set_t(m, n, 0, t, elem);
  /* A swap of the last two axes read only as a MatMul / Gemm operand is the GEMM's layout
  ** flag, not a copy (review 17): ONNX Runtime's MatmulTransposeFusion
  ** (onnxruntime/core/optimizer/matmul_transpose_fusion.cc) folds exactly such a Transpose
  ** into FusedMatMul's transA/transB and removes it once no other node reads it; PyTorch's
  ** x @ w.t() (a tied LM head, F.linear) passes the strided view to cuBLAS as transa/transb
  ** without a copy. The zoo counts the same way (transformer.lua lm_head: transpose_b). The
  ** value keeps the untransposed tensor; the consumer sets the flag (onnx_layers.c). */
  for (int i = 0; i < r - 2; i++) last2 &= perm[i] == i;
  int flag = !view && last2 && perm[r - 2] == r - 1 && perm[r - 1] == r - 2 &&
             dlb_onnx_only_gemm_operand(m, n);
  if (view || flag) {
    oval *v = dlb_onnx_outv(m, n, 0); /* (a second outv would clear it) */
    if (!v) return FAIL("output 1 is missing");
    v->state = OV_TENSOR;
    v->t = t;
    v->elem = elem;
    v->nd = r;
    memcpy(v->d, d, sizeof v->d);
    v->trans = flag;
    return DLB_OK;
  }
  int a[DLB_GRAPH_MAXRANK];
  for (int i = 0; i < r; i++) a[i] = perm[i] + 1;
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_TRANSPOSE, NULL, 1, &t, (size_t)r, a, 0, NULL)), elem);
}

static int concat(dlb_onnx *m, const Onnx__NodeProto *n) {
  size_t k = n->n_input;
  if (k == 0 || k > OP_MAXIO) return FAIL("Concat of %zu inputs", k);
  oval *x0;
  int rc = dlb_onnx_need(m, n, 0, &x0);
  if (rc) return rc;
  int ax = 0, allc = 1, nvs = 0;
  if ((rc = dlb_onnx_axis0(m, dlb_onnx_aint(n, "axis", 0), x0->nd, &ax))) return rc;
  int32_t d[DLB_GRAPH_MAXRANK];
  memcpy(d, x0->d, sizeof d);
  int zero = dlb_dim_const(m->g, 0);
  for (size_t i = 0; i < k; i++) {
    oval *x = dlb_onnx_in(m, n, i);
    if (!x) return FAIL("input %zu is missing", i + 1);
    if (x->nd != x0->nd) return dlb_onnx_fail(m, DLB_ESHAPE, "inputs of different rank");
    if (x->state != OV_CONST || x->weight) allc = 0;
    if (i && (d[ax] = dlb_dim_add(m->g, d[ax], x->d[ax], 1)) < 0) return d[ax];
    nvs += x->nv;
  }
  if (allc) {
    int known = x0->nd == 1;
    for (size_t i = 0; i < k && known; i++) {
      oval *x = dlb_onnx_in(m, n, i);
      known = x->nv > 0 || x->d[0] == zero;
    }
    int elem = x0->elem;
    oval *v = dlb_onnx_set_c(m, n, 0, x0->nd, d, known ? nvs : 0, elem);
    if (!v) return dlb_last_status();
    int off = v->v, pos = 0;
    for (size_t i = 0; i < k && known; i++) {
      oval *x = dlb_onnx_in(m, n, i);
      if (x->nv) memcpy(m->pool + off + pos, m->pool + x->v, (size_t)x->nv * sizeof *m->pool);
      pos += x->nv;
    }
    return DLB_OK;
  }
  int ins[OP_MAXIO], ni = 0, elem = 1;
  for (size_t i = 0; i < k; i++) {
    oval *x = dlb_onnx_in(m, n, i);
    if (x->d[ax] == zero) continue;
    if (x->state == OV_TENSOR) elem = x->elem;
    if ((ins[ni++] = dlb_onnx_tens(m, x)) < 0) return ins[ni - 1];
  }
  if (ni == 1) return dlb_onnx_set_t(m, n, 0, ins[0], elem);
  int a = ax + 1;
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_CONCAT, NULL, (size_t)ni, ins, 1, &a, 0, NULL)), elem);
}

static int split(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int ax = 0;
  if ((rc = dlb_onnx_axis0(m, dlb_onnx_aint(n, "axis", 0), x->nd, &ax))) return rc;
  size_t k = n->n_output;
  if (k == 0 || k > OP_MAXIO) return FAIL("Split into %zu outputs", k);
  int32_t sizes[OP_MAXIO];
  int64_t iv[OP_MAXIO];
  const int64_t *p;
  size_t ns = dlb_onnx_aints(n, "split", &p);
  oval *s = dlb_onnx_in(m, n, 1);
  if (!ns && s) {
    int c = dlb_onnx_ivals(m, s, iv, OP_MAXIO, "split sizes");
    if (c < 0) return c;
    ns = (size_t)c, p = iv;
  }
  if (ns && ns != k) return FAIL("%zu split sizes for %zu outputs", ns, k);
  for (size_t i = 0; i < ns; i++)
    if ((sizes[i] = dlb_dim_const(m->g, (double)p[i])) < 0) return sizes[i];
  if (x->state == OV_CONST && !x->weight) {
    oval c = *x;
    int part = ns ? 0 : dlb_onnx_ddiv(m, c.d[ax], dlb_dim_const(m->g, (double)k), "Split");
    if (part < 0) return part;
    for (size_t i = 0; i < k; i++) {
      int32_t d[DLB_GRAPH_MAXRANK];
      memcpy(d, c.d, sizeof d);
      d[ax] = ns ? sizes[i] : part;
      if (!dlb_onnx_set_c(m, n, i, c.nd, d, 0, c.elem) && i < k && *n->output[i]) return dlb_last_status();
    }
    return DLB_OK;
  }
  int elem = x->elem, t = dlb_onnx_tens(m, x), a[2] = {ax + 1, (int)k};
  if (t < 0) return t;
  int o = dlb_onnx_mk(m, n, OP_SPLIT, NULL, 1, &t, 2, a, ns ? ns : 0, ns ? sizes : NULL);
  if (o < 0) return o;
  for (size_t i = 0; i < k; i++)
    if ((rc = dlb_onnx_set_t(m, n, i, op_out(m->g, &m->g->o[o])[i], elem))) return rc;
  return DLB_OK;
}

/* TopK: the k largest values along an axis and their indices (a mixture-of-experts
** router's choice of experts). Read as a split of the axis into k and the rest: both
** outputs take the first part's shape [.., k, ..] (the indices as int64), at a split's
** costs (no FLOPs: the selection's compares are not counted). k is the second input, a
** constant; the axis must be numeric. */
static int topk(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *kv;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  if ((rc = dlb_onnx_need(m, n, 1, &kv))) return rc;
  int ax = 0;
  if ((rc = dlb_onnx_axis0(m, dlb_onnx_aint(n, "axis", -1), x->nd, &ax))) return rc;
  int64_t k;
  int c = dlb_onnx_ivals(m, kv, &k, 1, "TopK's k");
  if (c < 0) return c;
  if (c != 1) return FAIL("TopK's k must be one value");
  double e;
  if (!dlb_dim_is_const(m->g, x->d[ax], &e))
    return FAIL("TopK over axis %d of '%s', a symbolic dim; it must be a number", ax, x->name);
  if (k < 1 || (double)k > e) return FAIL("TopK's k = %lld of an axis of %.0f", (long long)k, e);
  int32_t d[DLB_GRAPH_MAXRANK];
  memcpy(d, x->d, sizeof d);
  if ((d[ax] = dlb_dim_const(m->g, (double)k)) < 0) return d[ax];
  if (x->state == OV_CONST && !x->weight) {
    for (size_t i = 0; i < n->n_output && i < 2; i++)
      if (!dlb_onnx_set_c(m, n, i, x->nd, d, 0, i ? 7 : x->elem)) return dlb_last_status();
    return DLB_OK;
  }
  int elem = x->elem, t = dlb_onnx_tens(m, x);
  if (t < 0) return t;
  int part = t;
  if ((double)k < e) {
    int32_t sizes[2] = {d[ax], dlb_dim_const(m->g, e - (double)k)};
    if (sizes[1] < 0) return sizes[1];
    int a[2] = {ax + 1, 2};
    int o = dlb_onnx_mk(m, n, OP_SPLIT, NULL, 1, &t, 2, a, 2, sizes);
    if (o < 0) return o;
    part = op_out(m->g, &m->g->o[o])[0];
  }
  if ((rc = dlb_onnx_set_t(m, n, 0, part, elem))) return rc;
  return n->n_output > 1 ? dlb_onnx_set_t(m, n, 1, part, 7) : DLB_OK;
}

static int const_of_shape(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *s;
  int rc = dlb_onnx_need(m, n, 0, &s);
  if (rc) return rc;
  int32_t d[DLB_GRAPH_MAXRANK];
  int r = dlb_onnx_dvals(m, s, d, "the shape");
  if (r < 0) return r;
  double fill = 0;
  int elem = 1, known = 1, allnz = 0, neg = 1;
  const Onnx__AttributeProto *a = dlb_onnx_attr(n, "value");
  if (a && a->t) {
    oval tmp = {0};
    tmp.name = "value";
    if ((rc = dlb_onnx_const_tensor(m, &tmp, a->t, 0))) return rc;
    elem = tmp.elem;
    known = tmp.nv > 0 && dlb_dim_is_const(m->g, m->pool[tmp.v], &fill);
    allnz = tmp.allnz, neg = tmp.neg;
  }
  oval tmp = {0};
  tmp.nd = r;
  memcpy(tmp.d, d, sizeof d);
  int ok;
  double cnt = dlb_onnx_numel_const(m, &tmp, &ok);
  /* values of a small result (a fill not known, -inf, gives none; a shape of negative
  ** dims, a count below 0, none: the fuzzer's case, (int) of -6.8e19) */
  int nv = ok && known && cnt >= 0 && cnt <= 64 ? (int)cnt : 0;
  oval *v = dlb_onnx_set_c(m, n, 0, r, d, nv, elem);
  if (!v) return dlb_last_status();
  v->allnz = allnz, v->neg = neg;
  for (int k = 0; k < nv; k++) m->pool[v->v + k] = dlb_dim_const(m->g, fill);
  return DLB_OK;
}

static int range(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *s, *l, *dl;
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &s)) || (rc = dlb_onnx_need(m, n, 1, &l)) || (rc = dlb_onnx_need(m, n, 2, &dl))) return rc;
  double a, b, c;
  int len;
  if (s->nv && l->nv && dl->nv && dlb_dim_is_const(m->g, m->pool[s->v], &a) &&
      dlb_dim_is_const(m->g, m->pool[l->v], &b) && dlb_dim_is_const(m->g, m->pool[dl->v], &c) && c != 0) {
    double k = ceil((b - a) / c);
    if (k < 0) k = 0;
    if (k > (double)((int64_t)1 << 40)) return FAIL("Range of %g elements", k);
    int32_t d = dlb_dim_const(m->g, k);
    int nv = k <= ONNX_MAXVALS ? (int)k : 0;
    oval *v = dlb_onnx_set_c(m, n, 0, 1, &d, nv, s->elem);
    if (!v) return dlb_last_status();
    if (c == 1) dlb_onnx_mask_range(v, a);
    for (int i = 0; i < nv; i++) m->pool[v->v + i] = dlb_dim_const(m->g, a + i * c);
    return DLB_OK;
  }
  if (s->nv && l->nv && dl->nv && dlb_dim_is_const(m->g, m->pool[s->v], &a) && a == 0 &&
      dlb_dim_is_const(m->g, m->pool[dl->v], &c) && c == 1) {
    len = m->pool[l->v];
    int32_t d = len;
    oval *v = dlb_onnx_set_c(m, n, 0, 1, &d, 0, s->elem);
    if (!v) return dlb_last_status();
    dlb_onnx_mask_range(v, 0); /* arange(n): an iota */
    return DLB_OK;
  }
  return FAIL("Range needs start, limit and delta known at import time");
}

/* Expand / Tile: broadcast to a bigger shape (a tensor: one add per output element). */
static int expand(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *s;
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &x)) || (rc = dlb_onnx_need(m, n, 1, &s))) return rc;
  int32_t t[DLB_GRAPH_MAXRANK], d[DLB_GRAPH_MAXRANK];
  int r = dlb_onnx_dvals(m, s, t, n->op_type[0] == 'T' ? "repeats" : "the shape");
  if (r < 0) return r;
  if (n->op_type[0] == 'T') { /* Tile: dims times repeats */
    if (r != x->nd) return FAIL("repeats of length %d for rank %d", r, x->nd);
    for (int i = 0; i < r; i++) if ((d[i] = dlb_dim_mul(m->g, x->d[i], t[i])) < 0) return d[i];
  } else {
    if ((r = dlb_onnx_bcast(m, x->nd, x->d, r, t, d)) < 0) return r;
  }
  if (x->state == OV_CONST && !x->weight) {
    oval c = *x;
    oval *v = dlb_onnx_set_c(m, n, 0, r, d, 0, c.elem);
    if (!v) return dlb_last_status();
    if (n->op_type[0] == 'E') dlb_onnx_mask_redim(v, &c); /* Expand: broadcast */
    return DLB_OK;
  }
  int elem = x->elem, tx = dlb_onnx_tens(m, x);
  if (tx < 0) return tx;
  if (r == m->g->t[tx].ndims && !memcmp(d, m->g->t[tx].dims, (size_t)r * sizeof *d)) return dlb_onnx_set_t(m, n, 0, tx, elem);
  int z = dlb_onnx_source(m, n, "expand", r, d);
  if (z < 0) return z;
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_op2(m, n, OP_ADD, NULL, tx, z), elem);
}

static int reduce(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int64_t ax[DLB_GRAPH_MAXRANK];
  int k = axes_of(m, n, 1, ax);
  if (k < 0) return k;
  int keep = (int)dlb_onnx_aint(n, "keepdims", 1);
  if (!strcmp(n->op_type, "ArgMax") || !strcmp(n->op_type, "ArgMin")) {
    ax[0] = dlb_onnx_aint(n, "axis", 0), k = 1;
  }
  if (k == 0 && dlb_onnx_aint(n, "noop_with_empty_axes", 0)) return dlb_onnx_alias(m, n);
  unsigned mask = 0;
  for (int i = 0; i < k; i++) {
    int a = 0;
    if ((rc = dlb_onnx_axis0(m, ax[i], x->nd, &a))) return rc;
    mask |= 1u << a;
  }
  if (!mask) mask = (1u << x->nd) - 1;
  if (x->state == OV_CONST && !x->weight) {
    int32_t d[DLB_GRAPH_MAXRANK];
    int r = 0;
    oval c = *x;
    for (int i = 0; i < c.nd; i++) {
      if (!(mask >> i & 1u)) d[r++] = c.d[i];
      else if (keep) d[r++] = dlb_dim_const(m->g, 1);
    }
    return dlb_onnx_set_c(m, n, 0, r, d, 0, c.elem) ? DLB_OK : dlb_last_status();
  }
  int type = strstr(n->op_type, "Mean") ? OP_MEAN : strstr(n->op_type, "Max") || strstr(n->op_type, "Min") ? OP_MAX : OP_SUM;
  int elem = x->elem, t = dlb_onnx_tens(m, x), a[2] = {(int)mask, keep};
  if (t < 0) return t;
  return dlb_onnx_set_t(m, n, 0, dlb_onnx_first(m, dlb_onnx_mk(m, n, type, NULL, 1, &t, 2, a, 0, NULL)), elem);
}

static const struct { const char *name; onnx_fn fn; } TABLE[] = {
  {"Abs", unary}, {"Add", binary}, {"And", binary}, {"ArgMax", reduce}, {"ArgMin", reduce},
  {"AveragePool", dlb_onnx_op_pool}, {"BatchNormalization", dlb_onnx_op_batchnorm}, {"Cast", cast}, {"CastLike", cast},
  {"Ceil", unary}, {"Celu", unary}, {"Clip", unary}, {"Concat", concat}, {"Constant", constant},
  {"ConstantOfShape", const_of_shape}, {"Conv", dlb_onnx_op_conv}, {"Cos", unary}, {"CumSum", unary},
  {"Div", binary}, {"Dropout", unary}, {"Elu", unary}, {"Equal", binary}, {"Erf", unary},
  {"Exp", unary}, {"Expand", expand}, {"Flatten", flatten}, {"Floor", unary}, {"GRU", dlb_onnx_op_recurrent},
  {"Gather", dlb_onnx_op_gather}, {"Gelu", unary}, {"Gemm", dlb_onnx_op_gemm}, {"GlobalAveragePool", dlb_onnx_op_pool},
  {"GlobalMaxPool", dlb_onnx_op_pool}, {"Greater", binary}, {"GreaterOrEqual", binary}, {"HardSigmoid", unary},
  {"HardSwish", unary}, {"Identity", dlb_onnx_alias}, {"IsInf", unary}, {"IsNaN", unary},
  {"LSTM", dlb_onnx_op_recurrent}, {"LayerNormalization", dlb_onnx_op_layernorm}, {"LeakyRelu", unary}, {"Less", binary},
  {"LessOrEqual", binary}, {"Log", unary}, {"LogSoftmax", unary}, {"MatMul", dlb_onnx_op_matmul}, {"Max", binary},
  {"MaxPool", dlb_onnx_op_pool}, {"Mean", binary}, {"Min", binary}, {"Mish", unary}, {"Mod", binary},
  {"Mul", binary}, {"Neg", unary}, {"Not", unary}, {"Or", binary}, {"Pad", dlb_onnx_op_pad}, {"Pow", binary},
  {"RNN", dlb_onnx_op_recurrent}, {"Range", range}, {"Reciprocal", unary}, {"ReduceL2", reduce},
  {"ReduceLogSumExp", reduce}, {"ReduceMax", reduce}, {"ReduceMean", reduce}, {"ReduceMin", reduce},
  {"ReduceProd", reduce}, {"ReduceSum", reduce}, {"ReduceSumSquare", reduce}, {"Relu", unary},
  {"Reshape", reshape_op}, {"Round", unary}, {"Selu", unary}, {"Shape", shape}, {"Sigmoid", unary},
  {"Sign", unary}, {"Sin", unary}, {"Size", size_op}, {"Slice", dlb_onnx_op_slice}, {"Softmax", unary},
  {"Softplus", unary}, {"Softsign", unary}, {"Split", split}, {"Sqrt", unary}, {"Squeeze", squeeze},
  {"Sub", binary}, {"Sum", binary}, {"Tanh", unary}, {"Tile", expand}, {"Transpose", transpose},
  {"TopK", topk}, {"Trilu", trilu}, {"Unsqueeze", unsqueeze}, {"Where", where}, {"Xor", binary},
};

onnx_fn dlb_onnx_handler(const char *op_type) {
  for (size_t i = 0; i < sizeof TABLE / sizeof *TABLE; i++)
    if (!strcmp(TABLE[i].name, op_type)) return TABLE[i].fn;
  return NULL;
}
