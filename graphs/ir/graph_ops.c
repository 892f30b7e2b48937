/*
** graph_ops.c — creating the user-facing ops: argument checks and shape inference.
** Every shape mismatch fails with DLB_ESHAPE naming the op, the tensors and their dims.
**
** Integer attributes (attrs[i]) by op type:
**   matmul       transpose_a, transpose_b
**   conv2d       stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups
**                workspace (0: none, 1: an im2col buffer; op_cost.c dlb_op_workspace)
**                (x [N, C, H, W], w [Cout, C/groups, KH, KW]; rank-3 x and w: 1-D conv)
**   maxpool, avgpool  kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w (stride 0: kernel)
**   gmaxpool, gavgpool  none: [N, C, H, W] -> [N, C]
**   sum, mean, max     axes bit mask (bit i: axis i+1; 0: all), keepdims
**   concat / split     axis (1-based); split: parts (or dims: the sizes)
**   slice              axis (1-based), start; dims: the length
**   transpose          the permutation, 1-based (default: swap the last two)
**   cast               dtype
** Inputs: embedding(ids, table); layernorm(x, gamma, beta); batchnorm(x, gamma, beta);
** rmsnorm(x, gamma); softmax_xent(logits, labels); mse(pred, target); ctc(logits [T,B,V],
** labels [B,S]). Extra outputs: norms save statistics, softmax_xent its probabilities,
** ctc its lattice (used by their backward ops).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

typedef struct ctx {
  dlb_graph *g;
  int type;
  const char *name;
  char label[160];       /* "matmul 'fc1'" for messages, formatted on first use */
} ctx;

/* The op's label for messages: "matmul 'fc1'" (or "matmul 'matmul_12'" when unnamed). */
static const char *lbl(ctx *c) {
  if (!c->label[0]) {
    if (c->name && *c->name)
      snprintf(c->label, sizeof c->label, "%s '%s'", dlb_op_type_name(c->type), c->name);
    else
      snprintf(c->label, sizeof c->label, "%s '%s_%zu'", dlb_op_type_name(c->type),
               dlb_op_type_name(c->type), c->g->no);
  }
  return c->label;
}

/* "x [b, 784]" for messages. */
static const char *desc(const dlb_graph *g, int t, char *buf, size_t size) {
  char n[128], s[256];
  snprintf(buf, size, "'%s' %s", dlb_tname(g, t, n, sizeof n), dlb_shape_text(g, t, s, sizeof s));
  return buf;
}

/* Text of dim d into buf. */
static const char *dtext(const dlb_graph *g, int d, char *buf, size_t size) {
  dlb_dim_print(g, d, buf, size);
  return buf;
}

#define SHAPE(...) dlb_fail(DLB_ESHAPE, __VA_ARGS__)

/* The dtype of float outputs computed from t (integer inputs give the default). */
static int floatdt(const dlb_graph *g, int t) {
  int d = g->t[t].dtype;
  return d == DLB_DT_INT8 || d == DLB_DT_INT32 || d == DLB_DT_INT64 || d == DLB_DT_NF4 ||
         d == DLB_DT_INT4 ? DLB_DT_DEFAULT : d;
}

/* The largest kernel, stride, padding or dilation a window takes (2^24): far beyond any
** real layer, and small enough that the window arithmetic below is exact in doubles. */
#define WINDOW_MAX 16777216.0

/* Output size of a strided window along one axis: (n + 2p - d(k-1) - 1)/s + 1, computed
** in doubles (exact: every term is at most 2^48) after range checks, so no int overflows. */
static int window(ctx *c, int n, double k, int s, int p, int dil, const char *axis, int x,
                  int32_t *out) {
  dlb_graph *g = c->g;
  char b1[300], b2[64];
  double nv;
  if (s < 1 || p < 0 || dil < 1 || !(k >= 1))
    return dlb_fail(DLB_EINVAL, "%s: stride, dilation and kernel must be >= 1 and padding >= 0 "
                    "(got kernel %.0f, stride %d, padding %d, dilation %d)", lbl(c), k, s, p, dil);
  if (k > WINDOW_MAX || s > WINDOW_MAX || p > WINDOW_MAX || dil > WINDOW_MAX || k != floor(k))
    return dlb_fail(DLB_EINVAL, "%s: %s window out of range: kernel %.0f, stride %d, padding %d, "
                    "dilation %d (each a whole number of at most 2^24 = 16777216)", lbl(c), axis,
                    k, s, p, dil);
  double span = (double)dil * (k - 1) + 1;
  if (dlb_dim_is_const(g, n, &nv)) {
    double o = floor((nv + 2.0 * p - span) / s) + 1;
    if (o < 1)
      return SHAPE("%s: %s %.0f with padding %d is smaller than the window %.0f of input %s",
                   lbl(c), axis, nv, p, span, desc(g, x, b1, sizeof b1));
    *out = dlb_dim_const(g, o);
    return *out < 0 ? *out : DLB_OK;
  }
  if (s != 1)
    return dlb_fail(DLB_EUNBOUND, "%s: output %s needs input %s dim %s bound to a number "
                    "((n + 2*pad - dil*(k-1) - 1)/stride + 1 is not a polynomial for stride %d)",
                    lbl(c), axis, desc(g, x, b1, sizeof b1), dtext(g, n, b2, sizeof b2), s);
  int k2 = dlb_dim_const(g, 2.0 * p - span + 1);
  if (k2 < 0) return k2;
  *out = dlb_dim_add(g, n, k2, 1);
  return *out < 0 ? *out : DLB_OK;
}

/* DLB_ESHAPE unless tensor t has rank >= r. */
static int rank_at_least(ctx *c, int t, int r, const char *what) {
  char b[300];
  if (c->g->t[t].ndims < r)
    return SHAPE("%s: %s must have rank >= %d, got %s", lbl(c), what, r,
                 desc(c->g, t, b, sizeof b));
  return DLB_OK;
}

/* A new op of the context's type and name with inputs in and nout outputs to fill. */
static int mk(ctx *c, size_t nin, const int *in, int nout) {
  int32_t nm = -1;
  if (c->name && *c->name) {
    nm = dlb_gstr(c->g, c->name);
    if (nm < 0) return dlb_fail(DLB_ENOMEM, "graph: out of memory");
  }
  return dlb_new_op(c->g, c->type, nm, nin, in, nout);
}

/* A new op with one activation output of the given dims; the op index or <0. */
static int out1(ctx *c, size_t nin, const int *in, int ndims, const int32_t *dims, int dt) {
  int o = mk(c, nin, in, 1);
  if (o < 0) return o;
  int t = dlb_add_output(c->g, o, 0, ndims, dims, dt, DLB_ROLE_ACTIVATION);
  return t < 0 ? t : o;
}

/* matmul: a [..., M, K] x b [K, N] or batched b [..., K, N], transposes in attrs. */
static int matmul(ctx *c, const int *in, const int *a) {
  dlb_graph *g = c->g;
  int x = in[0], w = in[1], ta = a[0], tb = a[1], rc;
  if ((rc = rank_at_least(c, x, 2, "a")) || (rc = rank_at_least(c, w, 2, "b"))) return rc;
  const tensor *A = &g->t[x], *B = &g->t[w];
  int ra = A->ndims, rb = B->ndims;
  int32_t M = A->dims[ra - (ta ? 1 : 2)], K = A->dims[ra - (ta ? 2 : 1)];
  int32_t K2 = B->dims[rb - (tb ? 1 : 2)], N = B->dims[rb - (tb ? 2 : 1)];
  char b1[300], b2[300], d1[64], d2[64];
  if (K != K2)
    return SHAPE("%s: inner dims differ: a %s%s has %s, b %s%s has %s", lbl(c),
                 desc(g, x, b1, sizeof b1), ta ? " (transposed)" : "", dtext(g, K, d1, sizeof d1),
                 desc(g, w, b2, sizeof b2), tb ? " (transposed)" : "", dtext(g, K2, d2, sizeof d2));
  if (rb > 2 && (rb != ra || memcmp(A->dims, B->dims, (size_t)(ra - 2) * sizeof *A->dims)))
    return SHAPE("%s: batch dims differ: a %s, b %s", lbl(c), desc(g, x, b1, sizeof b1),
                 desc(g, w, b2, sizeof b2));
  int32_t d[DLB_GRAPH_MAXRANK];
  memcpy(d, A->dims, (size_t)(ra - 2) * sizeof *d);
  d[ra - 2] = M;
  d[ra - 1] = N;
  return out1(c, 2, in, ra, d, floatdt(g, x));
}

/* conv2d / conv1d: x [N, C, H(, W)], w [Cout, C/groups, KH(, KW)]. */
static int conv(ctx *c, const int *in, const int *a) {
  dlb_graph *g = c->g;
  int x = in[0], w = in[1];
  const tensor *X = &g->t[x], *W = &g->t[w];
  char b1[300], b2[300], d1[64];
  if ((X->ndims != 4 && X->ndims != 3) || W->ndims != X->ndims)
    return SHAPE("%s: x must be [N, C, H, W] (or [N, C, L]) and w [Cout, C/groups, KH, KW] "
                 "(or [Cout, C/groups, K]) of the same rank; got x %s, w %s", lbl(c),
                 desc(g, x, b1, sizeof b1), desc(g, w, b2, sizeof b2));
  int sp = X->ndims - 2, groups = a[6] ? a[6] : 1;
  if (groups < 1) return dlb_fail(DLB_EINVAL, "%s: groups must be >= 1, got %d", lbl(c), groups);
  int cin = dlb_dim_scale(g, W->dims[1], groups);
  if (cin < 0) return cin;
  if (cin != X->dims[1])
    return SHAPE("%s: channels differ: x %s has C=%s but w %s with groups=%d expects %s",
                 lbl(c), desc(g, x, b1, sizeof b1), dtext(g, X->dims[1], d1, sizeof d1),
                 desc(g, w, b2, sizeof b2), groups, dtext(g, cin, (char[64]){0}, 64));
  double co;
  if (dlb_dim_is_const(g, W->dims[0], &co) && fmod(co, groups) != 0)
    return SHAPE("%s: Cout %.0f of w %s is not divisible by groups=%d", lbl(c), co,
                 desc(g, w, b2, sizeof b2), groups);
  int32_t d[4] = {X->dims[0], W->dims[0], 0, 0};
  for (int i = 0; i < sp; i++) {
    double k;
    if (!dlb_dim_is_const(g, W->dims[2 + i], &k))
      return dlb_fail(DLB_EUNBOUND, "%s: kernel size of w %s must be a number", lbl(c),
                      desc(g, w, b2, sizeof b2));
    int s = a[0 + (sp == 2 ? i : 0)] ? a[0 + (sp == 2 ? i : 0)] : 1;
    int p = a[2 + (sp == 2 ? i : 0)], dil = a[4 + (sp == 2 ? i : 0)] ? a[4 + (sp == 2 ? i : 0)] : 1;
    int rc = window(c, X->dims[2 + i], k, s, p, dil, sp == 1 ? "length" : i ? "width" : "height", x, &d[2 + i]);
    if (rc) return rc;
  }
  return out1(c, 2, in, X->ndims, d, floatdt(g, x));
}

/* Windowed and global pooling. */
static int pool(ctx *c, const int *in, const int *a) {
  dlb_graph *g = c->g;
  int x = in[0];
  const tensor *X = &g->t[x];
  char b1[300];
  if (X->ndims != 4 && X->ndims != 3)
    return SHAPE("%s: x must be [N, C, H, W] or [N, C, L], got %s", lbl(c), desc(g, x, b1, sizeof b1));
  if (c->type == OP_GMAXPOOL || c->type == OP_GAVGPOOL)
    return out1(c, 1, in, 2, X->dims, floatdt(g, x));
  int sp = X->ndims - 2;
  int32_t d[4] = {X->dims[0], X->dims[1], 0, 0};
  for (int i = 0; i < sp; i++) {
    int k = a[i], s = a[2 + i] ? a[2 + i] : k, p = a[4 + i];
    if (sp == 1) k = a[0], s = a[2] ? a[2] : k, p = a[4];
    int rc = window(c, X->dims[2 + i], k, s, p, 1, sp == 1 ? "length" : i ? "width" : "height", x, &d[2 + i]);
    if (rc) return rc;
  }
  return out1(c, 1, in, X->ndims, d, floatdt(g, x));
}

/* Elementwise binary ops with NumPy broadcasting (dim id 0 is the constant 1). */
static int broadcast(ctx *c, const int *in) {
  dlb_graph *g = c->g;
  const tensor *A = &g->t[in[0]], *B = &g->t[in[1]];
  int r = A->ndims > B->ndims ? A->ndims : B->ndims;
  int32_t d[DLB_GRAPH_MAXRANK];
  for (int i = 0; i < r; i++) {
    int ia = A->ndims - r + i, ib = B->ndims - r + i;
    int32_t da = ia >= 0 ? A->dims[ia] : 0, db = ib >= 0 ? B->dims[ib] : 0; /* dim id 0 is 1 */
    if (da == db || db == 0) d[i] = da;
    else if (da == 0) d[i] = db;
    else {
      char b1[300], b2[300];
      return SHAPE("%s: shapes do not broadcast: %s and %s (axis %d from the right)", lbl(c),
                   desc(g, in[0], b1, sizeof b1), desc(g, in[1], b2, sizeof b2), r - i);
    }
  }
  return out1(c, 2, in, r, d, floatdt(g, in[0]));
}

/* sum / mean / max over the axes in the bit mask attrs[0] (0: all), keepdims attrs[1]. */
static int reduce(ctx *c, const int *in, const int *a) {
  dlb_graph *g = c->g;
  const tensor *X = &g->t[in[0]];
  unsigned mask = a[0] ? (unsigned)a[0] : (1u << X->ndims) - 1;
  int32_t d[DLB_GRAPH_MAXRANK];
  int r = 0;
  if (mask >> X->ndims) {
    char b1[300];
    return SHAPE("%s: axis mask 0x%x names axes beyond the rank of %s", lbl(c), mask,
                 desc(g, in[0], b1, sizeof b1));
  }
  for (int i = 0; i < X->ndims; i++) {
    if (!(mask >> i & 1u)) d[r++] = X->dims[i];
    else if (a[1]) d[r++] = 0;
  }
  return out1(c, 1, in, r, d, floatdt(g, in[0]));
}

/* layernorm / rmsnorm (last axis) and batchnorm (axis 2): y and saved statistics. */
static int norm(ctx *c, const int *in, size_t nin) {
  dlb_graph *g = c->g;
  int x = in[0];
  const tensor *X = &g->t[x];
  char b1[300], b2[300];
  int rc = rank_at_least(c, x, c->type == OP_BATCHNORM ? 2 : 1, "x");
  if (rc) return rc;
  int32_t feat = c->type == OP_BATCHNORM ? X->dims[1] : X->dims[X->ndims - 1];
  for (size_t i = 1; i < nin; i++) {
    const tensor *P = &g->t[in[i]];
    if (P->ndims != 1 || P->dims[0] != feat)
      return SHAPE("%s: %s %s must be a vector of the %s (%s) of x %s", lbl(c),
                   i == 1 ? "gamma" : "beta", desc(g, in[i], b1, sizeof b1),
                   c->type == OP_BATCHNORM ? "channels" : "last dim",
                   dtext(g, feat, (char[64]){0}, 64), desc(g, x, b2, sizeof b2));
  }
  int o = mk(c, nin, in, 2);
  if (o < 0) return o;
  int t = dlb_add_output(g, o, 0, X->ndims, g->t[x].dims, floatdt(g, x), DLB_ROLE_ACTIVATION);
  if (t < 0) return t;
  int32_t d[DLB_GRAPH_MAXRANK];
  int r;
  X = &g->t[x];
  if (c->type == OP_BATCHNORM) {
    d[0] = feat, d[1] = dlb_dim_const(g, 2), r = 2;
  } else {
    r = X->ndims - 1;
    memcpy(d, X->dims, (size_t)r * sizeof *d);
    d[r++] = dlb_dim_const(g, c->type == OP_LAYERNORM ? 2 : 1);
  }
  t = dlb_add_output(g, o, 1, r, d, DLB_DT_FP32, DLB_ROLE_ACTIVATION);
  return t < 0 ? t : o;
}

/* embedding(ids, table [V, H]) -> [ids..., H]. */
static int embedding(ctx *c, const int *in) {
  dlb_graph *g = c->g;
  int ids = in[0], tab = in[1];
  const tensor *I = &g->t[ids], *T = &g->t[tab];
  char b1[300], b2[300];
  if (T->ndims != 2 || I->ndims + 1 > DLB_GRAPH_MAXRANK)
    return SHAPE("%s: table must be [V, H] and ids of rank < %d; got ids %s, table %s",
                 lbl(c), DLB_GRAPH_MAXRANK, desc(g, ids, b1, sizeof b1), desc(g, tab, b2, sizeof b2));
  /* ids index rows, the table holds them (review 11: embedding(table, ids), the arguments
  ** swapped, gathered from an int32 "table" with a weight as "ids", a wrong graph in
  ** silence). Refused: a weight or a float-typed tensor as ids, an int32/int64 table. ids
  ** computed by ops carry the default dtype (integer inputs give it, floatdt) and stay
  ** allowed, as an int8 table (a quantised one) does. */
  int fl = I->dtype == DLB_DT_FP32 || I->dtype == DLB_DT_FP16 || I->dtype == DLB_DT_BF16 ||
           I->dtype == DLB_DT_FP8 || I->dtype == DLB_DT_FP64;
  if (I->role == DLB_ROLE_WEIGHT || fl || T->dtype == DLB_DT_INT32 || T->dtype == DLB_DT_INT64)
    return SHAPE("%s: embedding(ids, table) takes the integer ids first and the [V, H] table "
                 "second; got ids %s (%s, %s) and table %s (%s)", lbl(c),
                 desc(g, ids, b1, sizeof b1), I->role == DLB_ROLE_WEIGHT ? "a weight" : "not a weight",
                 dlb_dtype_name(I->dtype), desc(g, tab, b2, sizeof b2), dlb_dtype_name(T->dtype));
  int32_t d[DLB_GRAPH_MAXRANK];
  memcpy(d, I->dims, I->ndims * sizeof *d);
  d[I->ndims] = T->dims[1];
  return out1(c, 2, in, I->ndims + 1, d, floatdt(g, tab));
}

/* A 1-based (or negative) axis of tensor t to a 0-based index in *out. */
static int axisarg(ctx *c, int t, int axis, int *out) {
  int r = c->g->t[t].ndims, given = axis;
  if (axis < 0) axis = r + 1 + axis;
  if (axis < 1 || axis > r) {
    char b1[300];
    return SHAPE("%s: axis %d outside 1..%d (or -%d..-1) of %s", lbl(c), given, r, r,
                 desc(c->g, t, b1, sizeof b1));
  }
  *out = axis - 1;
  return DLB_OK;
}

/* A size an op takes as a dim (a slice's length, a split's sizes): a constant must be a
** positive integer. */
static int posdim(ctx *c, int32_t d, const char *what, size_t i) {
  double v;
  if (dlb_dim_is_const(c->g, d, &v) && !(v >= 1 && v == floor(v))) {
    char b[64], n[24] = "";
    if (i) snprintf(n, sizeof n, " %zu", i);
    return dlb_fail(DLB_ESHAPE, "%s: %s%s is %s; it must be a positive integer", lbl(c), what, n,
                    dtext(c->g, d, b, sizeof b));
  }
  return DLB_OK;
}

/* concat along attrs[0]: the other dims must agree. */
static int concat(ctx *c, const int *in, size_t nin, int *a) {
  dlb_graph *g = c->g;
  int ax = 0, rc = axisarg(c, in[0], a[0] ? a[0] : 1, &ax);
  if (rc) return rc;
  int32_t d[DLB_GRAPH_MAXRANK];
  const tensor *X = &g->t[in[0]];
  memcpy(d, X->dims, X->ndims * sizeof *d);
  for (size_t i = 1; i < nin; i++) {
    const tensor *Y = &g->t[in[i]];
    int ok = Y->ndims == X->ndims;
    for (int k = 0; ok && k < X->ndims; k++) ok = k == ax || Y->dims[k] == X->dims[k];
    if (!ok) {
      char b1[300], b2[300];
      return SHAPE("%s: inputs differ outside axis %d: %s and %s", lbl(c), ax + 1,
                   desc(g, in[0], b1, sizeof b1), desc(g, in[i], b2, sizeof b2));
    }
    d[ax] = dlb_dim_add(g, d[ax], Y->dims[ax], 1);
    if (d[ax] < 0) {
      char b1[512];
      return dlb_fail_context("%s: axis %d adding input %zu '%s': ", lbl(c), ax + 1, i + 1,
                              dlb_tname(g, in[i], b1, sizeof b1));
    }
  }
  a[0] = ax + 1; /* normalised (dlb_make_op stores a): the backward split reads it */
  return out1(c, nin, in, X->ndims, d, floatdt(g, in[0]));
}

/* split along attrs[0] into attrs[1] equal parts or the given sizes. */
static int split(ctx *c, const int *in, const int *a, size_t ndims, const int32_t *dims) {
  dlb_graph *g = c->g;
  int ax = 0, rc = axisarg(c, in[0], a[0] ? a[0] : 1, &ax);
  if (rc) return rc;
  int32_t sizes[OP_MAXIO];
  int n = ndims ? (int)ndims : a[1];
  char b1[300];
  if (n < 1 || n > OP_MAXIO) return dlb_fail(DLB_EINVAL, "%s: parts must be 1..%d, got %d", lbl(c), OP_MAXIO, n);
  int32_t whole = g->t[in[0]].dims[ax];
  if (ndims) {
    for (size_t i = 0; i < ndims; i++)
      if ((rc = posdim(c, dims[i], "size", i + 1))) return rc;
    int sum = dims[0];
    for (size_t i = 1; i < ndims && sum >= 0; i++) sum = dlb_dim_add(g, sum, dims[i], 1);
    if (sum < 0) return sum;
    if (sum != whole)
      return SHAPE("%s: sizes do not add up to axis %d of %s", lbl(c), ax + 1, desc(g, in[0], b1, sizeof b1));
    memcpy(sizes, dims, ndims * sizeof *dims);
  } else {
    double v;
    if (dlb_dim_is_const(g, whole, &v) && fmod(v, n) != 0)
      return SHAPE("%s: axis %d of %s does not split into %d equal parts", lbl(c), ax + 1,
                   desc(g, in[0], b1, sizeof b1), n);
    int part = dlb_dim_scale(g, whole, 1.0 / n);
    if (part < 0) return part;
    for (int i = 0; i < n; i++) sizes[i] = part;
  }
  int o = mk(c, 1, in, n);
  if (o < 0) return o;
  g->o[o].attr[0] = ax + 1;
  if ((rc = dlb_add_extra(g, o, (size_t)n, sizes))) return rc;
  for (int i = 0; i < n; i++) {
    int32_t d[DLB_GRAPH_MAXRANK];
    memcpy(d, g->t[in[0]].dims, g->t[in[0]].ndims * sizeof *d);
    d[ax] = sizes[i];
    int t = dlb_add_output(g, o, i, g->t[in[0]].ndims, d, floatdt(g, in[0]), DLB_ROLE_ACTIVATION);
    if (t < 0) return t;
  }
  return o;
}

/* The interned product of dims (dim id 0 is the constant 1). */
static int numel_dim(dlb_graph *g, int ndims, const int32_t *dims) {
  int p = 0; /* dim id 0 is the constant 1 */
  for (int i = 0; i < ndims && p >= 0; i++) p = dlb_dim_mul(g, p, dims[i]);
  return p;
}

/* reshape: same element count; the output shares the input's storage. */
static int reshape(ctx *c, const int *in, size_t ndims, const int32_t *dims) {
  dlb_graph *g = c->g;
  char b1[300], b2[300];
  if (ndims > DLB_GRAPH_MAXRANK) return dlb_fail(DLB_EINVAL, "%s: rank %zu exceeds %d", lbl(c), ndims, DLB_GRAPH_MAXRANK);
  for (size_t i = 0; i < ndims; i++) {
    int rc = posdim(c, dims[i], "dim", i + 1);
    if (rc) return rc;
  }
  int n1 = numel_dim(g, g->t[in[0]].ndims, g->t[in[0]].dims);
  if (n1 < 0)
    return dlb_fail_context("%s: the element count of tensor '%s': ", lbl(c),
                            dlb_tname(g, in[0], b1, sizeof b1));
  int n2 = numel_dim(g, (int)ndims, dims);
  if (n2 < 0) return dlb_fail_context("%s: the element count of the new shape: ", lbl(c));
  if (n1 != n2)
    return SHAPE("%s: %s has %s elements, the new shape %s elements", lbl(c),
                 desc(g, in[0], b1, sizeof b1), dtext(g, n1, b2, sizeof b2), dtext(g, n2, (char[64]){0}, 64));
  int o = out1(c, 1, in, (int)ndims, dims, g->t[in[0]].dtype);
  if (o < 0) return o;
  int t = op_out(g, &g->o[o])[0];
  g->t[t].base = g->t[in[0]].base;
  g->t[t].flags = g->t[in[0]].flags & TF_DTYPE_SET;
  return o;
}

/* slice of length dims[0] from attrs[1] along attrs[0]. */
static int slice(ctx *c, const int *in, const int *a, size_t ndims, const int32_t *dims) {
  dlb_graph *g = c->g;
  int ax = 0, rc = axisarg(c, in[0], a[0] ? a[0] : 1, &ax);
  if (rc) return rc;
  if (ndims != 1) return dlb_fail(DLB_EINVAL, "%s: slice needs one length", lbl(c));
  if ((rc = posdim(c, dims[0], "length", 0))) return rc;
  double len, whole;
  char b1[300];
  if (dlb_dim_is_const(g, dims[0], &len) && dlb_dim_is_const(g, g->t[in[0]].dims[ax], &whole) &&
      (a[1] < 0 || a[1] + len > whole))
    return SHAPE("%s: slice [%d, %d) outside axis %d of %s", lbl(c), a[1], (int)(a[1] + len),
                 ax + 1, desc(g, in[0], b1, sizeof b1));
  int32_t d[DLB_GRAPH_MAXRANK];
  memcpy(d, g->t[in[0]].dims, g->t[in[0]].ndims * sizeof *d);
  d[ax] = dims[0];
  int o = out1(c, 1, in, g->t[in[0]].ndims, d, floatdt(g, in[0]));
  if (o >= 0) g->o[o].attr[0] = ax + 1;
  return o;
}

/* transpose by a 1-based permutation (default: swap the last two axes). */
static int transpose(ctx *c, const int *in, size_t nattr, const int *a) {
  dlb_graph *g = c->g;
  int r = g->t[in[0]].ndims;
  int perm[DLB_GRAPH_MAXRANK], seen = 0;
  char b1[300];
  if (nattr == 0) {
    if (r < 2) return SHAPE("%s: %s has no two axes to swap", lbl(c), desc(g, in[0], b1, sizeof b1));
    for (int i = 0; i < r; i++) perm[i] = i;
    perm[r - 2] = r - 1, perm[r - 1] = r - 2;
  } else {
    if ((int)nattr != r)
      return SHAPE("%s: permutation of %zu axes for %s", lbl(c), nattr, desc(g, in[0], b1, sizeof b1));
    for (int i = 0; i < r; i++) {
      perm[i] = a[i] - 1;
      if (perm[i] < 0 || perm[i] >= r || (seen >> perm[i] & 1))
        return SHAPE("%s: not a permutation of 1..%d", lbl(c), r);
      seen |= 1 << perm[i];
    }
  }
  int32_t d[DLB_GRAPH_MAXRANK];
  for (int i = 0; i < r; i++) d[i] = g->t[in[0]].dims[perm[i]];
  int o = out1(c, 1, in, r, d, floatdt(g, in[0]));
  if (o >= 0) for (int i = 0; i < r; i++) g->o[o].attr[i] = perm[i] + 1;
  return o;
}

/* softmax_xent, mse, ctc: a scalar loss plus what their backward ops read. */
static int loss2(ctx *c, const int *in) {
  dlb_graph *g = c->g;
  const tensor *L = &g->t[in[0]], *Y = &g->t[in[1]];
  char b1[300], b2[300];
  int o;
  if (c->type == OP_XENT) {
    int sparse = Y->ndims + 1 == L->ndims && !memcmp(Y->dims, L->dims, Y->ndims * sizeof *Y->dims);
    int dense = Y->ndims == L->ndims && !memcmp(Y->dims, L->dims, Y->ndims * sizeof *Y->dims);
    if (L->ndims < 1 || (!sparse && !dense))
      return SHAPE("%s: labels %s must be the logits' dims without the last (class ids) or "
                   "equal to them (probabilities); logits %s", lbl(c),
                   desc(g, in[1], b1, sizeof b1), desc(g, in[0], b2, sizeof b2));
  } else if (c->type == OP_MSE) {
    if (Y->ndims != L->ndims || memcmp(Y->dims, L->dims, Y->ndims * sizeof *Y->dims))
      return SHAPE("%s: prediction %s and target %s differ", lbl(c),
                   desc(g, in[0], b1, sizeof b1), desc(g, in[1], b2, sizeof b2));
  } else { /* CTC */
    if (L->ndims != 3 || Y->ndims != 2 || Y->dims[0] != L->dims[1])
      return SHAPE("%s: logits must be [T, B, V] and labels [B, S]; got logits %s, labels %s",
                   lbl(c), desc(g, in[0], b1, sizeof b1), desc(g, in[1], b2, sizeof b2));
  }
  int nout = c->type == OP_MSE ? 1 : 2;
  if ((o = mk(c, 2, in, nout)) < 0) return o;
  int t = dlb_add_output(g, o, 0, 0, NULL, floatdt(g, in[0]), DLB_ROLE_ACTIVATION);
  if (t < 0) return t;
  if (c->type == OP_XENT) {
    t = dlb_add_output(g, o, 1, g->t[in[0]].ndims, g->t[in[0]].dims, floatdt(g, in[0]), DLB_ROLE_ACTIVATION);
  } else if (c->type == OP_CTC) {
    int s2 = dlb_dim_scale(g, g->t[in[1]].dims[1], 2);
    int lat = s2 < 0 ? s2 : dlb_dim_add(g, s2, 0, 1);
    if (lat < 0) return lat;
    int32_t d[3] = {g->t[in[0]].dims[1], g->t[in[0]].dims[0], lat};
    t = dlb_add_output(g, o, 1, 3, d, DLB_DT_FP32, DLB_ROLE_ACTIVATION);
  }
  return t < 0 ? t : o;
}

/* kernel: an op whose costs are given, for a step described kernel by kernel by a model of
** its own (dlb.serve's prefill and decode). attrs: [0] 1 = a fused attention kernel (timed
** at the device's attn_eff), [1] 1 = GEMM-shaped (dims 2..5 are its m, n, k, batch), [2]
** the output's rank r (1..DLB_GRAPH_MAXRANK), [3] its dtype (DLB_DT_*; 0: the policy's).
** dims: FLOPs, bytes[, m, n, k, batch], then the r output dims. Any number of inputs (what
** it reads, for the graph's structure and footprint; its bytes are the given ones). The
** training expansion refuses it: forward only. */
static int kernel(ctx *c, const int *in, size_t nin, const int *a, size_t ndims,
                  const int32_t *dims) {
  dlb_graph *g = c->g;
  int gm = a[1], r = a[2];
  if ((a[0] != 0 && a[0] != 1) || (gm != 0 && gm != 1))
    return dlb_fail(DLB_EINVAL, "%s: the attention and GEMM marks must be 0 or 1, got %d and %d",
                    lbl(c), a[0], gm);
  if (r < 1 || r > DLB_GRAPH_MAXRANK)
    return dlb_fail(DLB_EINVAL, "%s: output rank %d (1..%d)", lbl(c), r, DLB_GRAPH_MAXRANK);
  if (a[3] < DLB_DT_DEFAULT || a[3] >= DLB_DT_COUNT)
    return dlb_fail(DLB_EINVAL, "%s: unknown dtype %d", lbl(c), a[3]);
  size_t nc = gm ? 6 : 2;
  if (ndims != nc + (size_t)r)
    return dlb_fail(DLB_EINVAL, "%s: takes %zu dims (FLOPs, bytes%s, then %d output dims), got %zu",
                    lbl(c), nc + (size_t)r, gm ? ", m, n, k, batch" : "", r, ndims);
  static const char *const what[6] = {"FLOPs", "bytes", "m", "n", "k", "batch"};
  for (size_t i = 0; i < nc; i++) {
    double v;
    char b[64];
    if (dlb_dim_is_const(g, dims[i], &v) && !(v >= 0 && v < HUGE_VAL))
      return SHAPE("%s: %s is %s; it must be a finite number >= 0", lbl(c), what[i],
                   dtext(g, dims[i], b, sizeof b));
  }
  for (int i = 0; i < r; i++) {
    int rc = posdim(c, dims[nc + (size_t)i], "output dim", (size_t)i + 1);
    if (rc) return rc;
  }
  int o = out1(c, nin, in, r, dims + nc, a[3]);
  if (o < 0) return o;
  int rc = dlb_add_extra(g, o, nc, dims);
  return rc < 0 ? rc : o;
}

/* Inputs by user op type (0: one; concat: any number). */
static const signed char arity[OP_CTC + 1] = {
  [OP_MATMUL] = 2, [OP_CONV] = 2, [OP_ADD] = 2, [OP_SUB] = 2, [OP_MUL] = 2, [OP_DIV] = 2,
  [OP_LAYERNORM] = 3, [OP_BATCHNORM] = 3, [OP_RMSNORM] = 2, [OP_EMBEDDING] = 2, [OP_XENT] = 2,
  [OP_MSE] = 2, [OP_CTC] = 2
};

int dlb_make_op(dlb_graph *g, int type, const char *name, size_t nin, const int *inputs,
            size_t nattr, const int *attrs, size_t ndims, const int32_t *dims, int phase) {
  ctx c;
  c.g = g, c.type = type, c.name = name, c.label[0] = '\0'; /* the label only on errors */
  int a[OP_MAXATTR] = {0};
  if (type < 0 || (type > OP_CTC && type != OP_KERNEL))
    return dlb_fail(DLB_EINVAL, "graph: op type %d is not a user op", type);
  if (nattr > OP_MAXATTR) return dlb_fail(DLB_EINVAL, "%s: more than %d attributes", lbl(&c), OP_MAXATTR);
  if (nattr) memcpy(a, attrs, nattr * sizeof *a);
  int want = type == OP_CONCAT || type == OP_KERNEL ? -1 : arity[type] ? arity[type] : 1;
  if (type == OP_LAYERNORM && nin == 2) want = 2; /* layernorm without beta */
  if ((want >= 0 && nin != (size_t)want) || nin == 0 || nin > OP_MAXIO)
    return dlb_fail(DLB_EINVAL, "%s: takes %d inputs, got %zu", lbl(&c), want, nin);
  for (size_t i = 0; i < nin; i++)
    if (inputs[i] < 0 || (size_t)inputs[i] >= g->nt)
      return dlb_fail(DLB_EINVAL, "%s: input %zu is not a tensor of graph '%s'", lbl(&c), i + 1, g->str + g->name);
  if (g->loss >= 0 && phase == DLB_PHASE_FWD) { /* nothing: ops after the loss are fine */ }
  int o;
  switch (type) {
  case OP_MATMUL: o = matmul(&c, inputs, a); break;
  case OP_CONV: o = conv(&c, inputs, a); break;
  case OP_MAXPOOL: case OP_AVGPOOL: case OP_GMAXPOOL: case OP_GAVGPOOL: o = pool(&c, inputs, a); break;
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: o = broadcast(&c, inputs); break;
  case OP_SUM: case OP_MEAN: case OP_MAX: o = reduce(&c, inputs, a); break;
  case OP_LAYERNORM: case OP_BATCHNORM: case OP_RMSNORM: o = norm(&c, inputs, nin); break;
  case OP_EMBEDDING: o = embedding(&c, inputs); break;
  case OP_CONCAT: o = concat(&c, inputs, nin, a); break;
  case OP_SPLIT: o = split(&c, inputs, a, ndims, dims); break;
  case OP_SLICE: o = slice(&c, inputs, a, ndims, dims); break;
  case OP_RESHAPE: o = reshape(&c, inputs, ndims, dims); break;
  case OP_TRANSPOSE: o = transpose(&c, inputs, nattr, a); break;
  case OP_XENT: case OP_MSE: case OP_CTC: o = loss2(&c, inputs); break;
  case OP_KERNEL: o = kernel(&c, inputs, nin, a, ndims, dims); break;
  case OP_CAST: {
    if (a[0] < DLB_DT_DEFAULT || a[0] >= DLB_DT_COUNT)
      return dlb_fail(DLB_EINVAL, "%s: unknown dtype %d", lbl(&c), a[0]);
    o = out1(&c, 1, inputs, g->t[inputs[0]].ndims, g->t[inputs[0]].dims, a[0]);
    break;
  }
  default: /* elementwise unary, softmax, log-softmax */
    o = out1(&c, 1, inputs, g->t[inputs[0]].ndims, g->t[inputs[0]].dims, floatdt(g, inputs[0]));
    break;
  }
  /* a dim helper's failure (the polynomial bounds) names the op here if not already */
  if (o < 0 && strncmp(dlb_last_error(), "dim: ", 5) == 0) return dlb_fail_context("%s: ", lbl(&c));
  if (o < 0) return o;
  op *p = &g->o[o];
  p->phase = (uint8_t)phase;
  if (type != OP_SPLIT && type != OP_SLICE && type != OP_TRANSPOSE)
    memcpy(p->attr, a, sizeof p->attr);
  if (type == OP_SPLIT) p->attr[1] = (int)(ndims ? ndims : (size_t)a[1]);
  if (type == OP_SLICE) p->attr[1] = a[1];
  if (type == OP_CONV && (a[7] < 0 || a[7] > 1))
    return dlb_fail(DLB_EINVAL, "%s: workspace must be 0 (none) or 1 (im2col), got %d", lbl(&c), a[7]);
  int rc = dlb_op_workspace(g, o);
  if (rc < 0) return rc;
  return o;
}

int dlb_graph_op1(dlb_graph *g, int type, const char *name, int a, int b, int x, int y,
                  int *out) {
  int in[2] = { a, b }, at[2] = { x, y }, outs[4];
  size_t nout;
  int st = dlb_graph_op(g, type, name, b < 0 ? 1 : 2, in, 2, at, 0, NULL, outs, 4, &nout);
  if (st == DLB_OK) *out = outs[0];
  return st;
}

int dlb_graph_op(dlb_graph *g, int type, const char *name, size_t nin, const int *inputs,
                 size_t nattr, const int *attrs, size_t ndims, const char *const *dims,
                 int *outputs, size_t maxout, size_t *nout) {
  int32_t d[OP_MAXIO];
  if (ndims > OP_MAXIO) return dlb_fail(DLB_EINVAL, "graph: more than %d dims for one op", OP_MAXIO);
  /* names are read back through 512-byte buffers (with suffixes): an error, not cut */
  if (name && strlen(name) > 480)
    return dlb_fail(DLB_EINVAL, "op '%.40s...': a name of %zu bytes (at most 480)", name,
                    strlen(name));
  for (size_t i = 0; i < ndims; i++) {
    d[i] = dlb_dim_text(g, dims[i]);
    if (d[i] < 0) return d[i];
  }
  size_t nt0 = g->nt, no0 = g->no, na0 = g->nargs;
  int o = dlb_make_op(g, type, name, nin, inputs, nattr, attrs, ndims, d, DLB_PHASE_FWD);
  if (o < 0) { /* roll back a half-made op */
    g->nt = nt0, g->no = no0, g->nargs = na0;
    return o;
  }
  const op *p = &g->o[o];
  size_t n = 0;
  for (; n < p->nout && n < maxout; n++) outputs[n] = op_out(g, p)[n];
  *nout = p->nout;
  return DLB_OK;
}
