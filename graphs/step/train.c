/*
** train.c — expanding a forward graph into an explicit training step.
**
** The forward ops are kept; then, walking them in reverse, each op's gradient rule emits
** backward ops (a matmul's backward is two matmuls, a conv's a data-gradient and a
** filter-gradient conv ...). Where a tensor fans out, the contributions to its gradient
** are summed by accum ops. Once every consumer of a weight has been processed its
** gradient is final and one update op (with the optimizer's state tensors, plus an fp32
** master copy under mixed precision) is emitted. With a recompute policy the forward ops
** are cut into segments; activations that do not cross a segment boundary (and are not
** marked checkpoints) are dropped after the forward pass, and entering a segment in the
** backward pass re-runs its forward ops (phase RECOMPUTE: all of them, see recompute()); a
** segment whose backward reads none of them is not re-run.
** With norm_upcast each rmsnorm first gets the tensors eager model code's autograd keeps
** for its backward in place of its input (upcast_norms below). Linear in the size of the
** graph.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

enum { SUF_GRAD = 1, SUF_GRAD_A, SUF_GRAD_B, SUF_GRAD_W, SUF_ACCUM, SUF_UPDATE, SUF_RECOMPUTE,
       SUF_GRAD_X, SUF_REDUCE, SUF_ZEROS, SUF_RESHAPE };

typedef struct tx {
  dlb_graph *s;
  const dlb_train_opts *opt;
  int nt, no;          /* forward tensors and ops */
  int32_t *grad;       /* forward tensor -> its gradient so far, -1 */
  uint8_t *needs;      /* forward tensor depends on a weight */
  uint8_t *useful;     /* forward tensor contributes to the loss */
  uint8_t *dropped;    /* forward tensor is recomputed in the backward pass */
  int32_t *saved;      /* forward tensor -> the tensor backward ops read */
  int32_t *pending;    /* weight -> forward consumer ops not yet processed */
  int32_t *seg;        /* forward op -> segment */
  uint8_t *once;       /* forward op -> 1: a layer recompute never reruns (NULL: none) */
  int phase, fwd, suffix;
} tx;

static int oom(void) { return dlb_fail(DLB_ENOMEM, "graph: out of memory"); }

/* A new op of the step with nout outputs still to add: in the current phase, tagged with
** the forward op it serves and that op's layer. Returns the op (<0 error). */
static int step_op(tx *x, int type, int suffix, size_t nin, const int *in, int nout,
                   const int *attrs) {
  dlb_graph *s = x->s;
  int o = dlb_new_op(s, type, -1, nin, in, nout);
  if (o < 0) return o;
  op *p = &s->o[o];
  p->phase = (uint8_t)x->phase;
  p->fwd = x->fwd;
  p->suffix = (uint8_t)suffix;
  p->layer = x->fwd >= 0 ? s->o[x->fwd].layer : -1;
  if (attrs) memcpy(p->attr, attrs, sizeof p->attr);
  return o;
}

/* Emit an op; output i gets the dims of tensor shapes[i] and role roles. Returns the op
** index (<0 error). */
static int emit(tx *x, int type, int suffix, size_t nin, const int *in, int nout,
                const int *shapes, int role, const int *attrs) {
  dlb_graph *s = x->s;
  int o = step_op(x, type, suffix, nin, in, nout, attrs);
  if (o < 0) return o;
  for (int i = 0; i < nout; i++) {
    const tensor *sh = &s->t[shapes[i]];
    int32_t d[DLB_GRAPH_MAXRANK];
    int nd = sh->ndims, dt = sh->flags & TF_DTYPE_SET ? sh->dtype : DLB_DT_DEFAULT;
    memcpy(d, sh->dims, (size_t)nd * sizeof *d);
    int t = dlb_add_output(s, o, i, nd, d, dt, role);
    if (t < 0) return t;
    if (role == DLB_ROLE_GRADIENT) s->t[t].grad_of = shapes[i];
  }
  int rc = dlb_op_workspace(s, o); /* scratch of norm backward, conv ops with im2col ... */
  return rc < 0 ? rc : o;
}

/* Emit an op with one gradient output of the given dims (for shapes no tensor has);
** returns the output tensor (<0 error). */
static int emit_dims(tx *x, int type, int suffix, size_t nin, const int *in, int ndims,
                     const int32_t *dims, int grad_of, const int *attrs) {
  dlb_graph *s = x->s;
  int o = step_op(x, type, suffix, nin, in, 1, attrs);
  if (o < 0) return o;
  int dt = s->t[grad_of].flags & TF_DTYPE_SET ? s->t[grad_of].dtype : DLB_DT_DEFAULT;
  int t = dlb_add_output(s, o, 0, ndims, dims, dt, DLB_ROLE_GRADIENT);
  if (t < 0) return t;
  s->t[t].grad_of = grad_of;
  return t;
}

static int out0(tx *x, int o) { return op_out(x->s, &x->s->o[o])[0]; }

/* Add contribution c to the gradient of forward tensor t. */
static int accumulate(tx *x, int t, int c) {
  if (t >= x->nt || !x->needs[t] || !x->useful[t]) return DLB_OK;
  if (x->grad[t] < 0) {
    x->grad[t] = c;
    return DLB_OK;
  }
  int in[2] = {x->grad[t], c}, sh[1] = {t};
  int o = emit(x, OP_ACCUM, SUF_ACCUM, 2, in, 1, sh, DLB_ROLE_GRADIENT, NULL);
  if (o < 0) return o;
  x->grad[t] = out0(x, o);
  return DLB_OK;
}

static int wants(tx *x, int t) { return t < x->nt && x->needs[t] && x->useful[t]; }

/* Sum gradient g (shaped like the broadcast output) down to the shape of tensor t. */
static int reduce_to(tx *x, int gt, int t, int *res) {
  dlb_graph *s = x->s;
  const tensor *G = &s->t[gt], *T = &s->t[t];
  if (G->ndims == T->ndims && !memcmp(G->dims, T->dims, G->ndims * sizeof *G->dims)) {
    *res = gt;
    return DLB_OK;
  }
  int attrs[OP_MAXATTR] = {0}, sh[1] = {t}, in[1] = {gt};
  int off = G->ndims - T->ndims;
  for (int i = 0; i < G->ndims; i++)
    if (i < off || T->dims[i - off] != G->dims[i]) attrs[0] |= 1 << i;
  int o = emit(x, OP_SUM, SUF_REDUCE, 1, in, 1, sh, DLB_ROLE_GRADIENT, attrs);
  if (o < 0) return o;
  *res = out0(x, o);
  return DLB_OK;
}

/* A reshape of t (sharing its storage) in the current phase; *res the output. */
static int reshape_to(tx *x, int t, int ndims, const int32_t *dims, int *res) {
  dlb_graph *s = x->s;
  int o = dlb_new_op(s, OP_RESHAPE, -1, 1, &t, 1);
  if (o < 0) return o;
  s->o[o].phase = (uint8_t)x->phase;
  s->o[o].fwd = x->fwd;
  s->o[o].suffix = SUF_RESHAPE;
  s->o[o].layer = s->o[x->fwd].layer;
  int r = dlb_add_output(s, o, 0, ndims, dims, s->t[t].flags & TF_DTYPE_SET ? s->t[t].dtype : 0,
                     s->t[t].role);
  if (r < 0) return r;
  s->t[r].base = s->t[t].base;
  s->t[r].grad_of = s->t[t].grad_of;
  *res = r;
  return DLB_OK;
}

/* A matmul's backward: dA and dB as matmuls (batch dims folded by reshapes for a 2-D b). */
static int matmul_bwd(tx *x, const op *p, const int32_t *in, int dy) {
  dlb_graph *s = x->s;
  int a = in[0], b = in[1], ta = p->attr[0], tb = p->attr[1], rc, o;
  int A = x->saved[a], B = x->saved[b];
  if (wants(x, a)) {
    int ins[2], at[OP_MAXATTR] = {0}, sh[1] = {a};
    if (!ta) ins[0] = dy, ins[1] = B, at[1] = !tb;
    else ins[0] = B, ins[1] = dy, at[0] = tb, at[1] = 1;
    if ((o = emit(x, OP_MATMUL, SUF_GRAD_A, 2, ins, 1, sh, DLB_ROLE_GRADIENT, at)) < 0) return o;
    if ((rc = accumulate(x, a, out0(x, o)))) return rc;
  }
  if (wants(x, b)) {
    int ra = s->t[a].ndims, at[OP_MAXATTR] = {0}, sh[1] = {b}, ins[2];
    int AA = A, dd = dy;
    if (s->t[b].ndims == 2 && ra > 2 && ta) {
      /* a [..., K, M] is used transposed: per batch, dB_i = A_i dy_i ([K, N]; with
      ** transpose_b dB_i = dy_i^T A_i^T, [N, K]) as one batched matmul, then a sum over
      ** the batch dims (the batch cannot fold into M: K is a's second-to-last axis). */
      int32_t d[DLB_GRAPH_MAXRANK];
      memcpy(d, s->t[a].dims, (size_t)(ra - 2) * sizeof *d);
      d[ra - 2] = s->t[b].dims[0], d[ra - 1] = s->t[b].dims[1];
      if (!tb) ins[0] = A, ins[1] = dy;
      else ins[0] = dy, ins[1] = A, at[0] = 1, at[1] = 1;
      int part = emit_dims(x, OP_MATMUL, SUF_GRAD_B, 2, ins, ra, d, b, at), r;
      if (part < 0) return part;
      if ((rc = reduce_to(x, part, b, &r))) return rc;
      return accumulate(x, b, r);
    }
    if (s->t[b].ndims == 2 && ra > 2) { /* fold the batch dims of a and dy into one */
      int32_t m = s->t[a].dims[ra - 2], d[2];
      for (int i = 0; i < ra - 2; i++)
        if ((m = dlb_dim_mul(s, m, s->t[a].dims[i])) < 0) {
          char b1[512], b2[512];
          return dlb_fail_context("training: matmul '%s': folding the batch dims of '%s': ",
                                  dlb_oname(s, x->fwd, b1, sizeof b1), dlb_tname(s, a, b2, sizeof b2));
        }
      d[0] = m, d[1] = s->t[a].dims[ra - 1];
      if ((rc = reshape_to(x, A, 2, d, &AA))) return rc;
      d[1] = s->t[dy].dims[ra - 1];
      if ((rc = reshape_to(x, dy, 2, d, &dd))) return rc;
    }
    if (!tb) ins[0] = AA, ins[1] = dd, at[0] = !ta;
    else ins[0] = dd, ins[1] = AA, at[0] = 1, at[1] = ta;
    if ((o = emit(x, OP_MATMUL, SUF_GRAD_B, 2, ins, 1, sh, DLB_ROLE_GRADIENT, at)) < 0) return o;
    if ((rc = accumulate(x, b, out0(x, o)))) return rc;
  }
  return DLB_OK;
}

/* Emit the backward ops of forward op o. */
static int backward(tx *x, int o) {
  dlb_graph *s = x->s;
  op P = s->o[o]; /* a copy: emitting grows the op array */
  const op *p = &P;
  int32_t in[OP_MAXIO], out[OP_MAXIO];
  memcpy(in, op_in(s, p), p->nin * sizeof *in);
  memcpy(out, op_out(s, p), p->nout * sizeof *out);
  int dy = x->grad[out[0]], rc, k, at[OP_MAXATTR];
  memcpy(at, p->attr, sizeof at);
  x->fwd = o;
#define EMIT1(type, suf, n, ins, shape, attrs) \
  do { int sh_[1] = {shape}; \
       if ((k = emit(x, type, suf, n, ins, 1, sh_, DLB_ROLE_GRADIENT, attrs)) < 0) return k; \
       k = out0(x, k); } while (0)
#define ACC(t, c) do { if ((rc = accumulate(x, t, c))) return rc; } while (0)
  switch (p->type) {
  case OP_MATMUL: return matmul_bwd(x, p, in, dy);
  case OP_CONV: {
    if (wants(x, in[0])) { int i2[2] = {dy, x->saved[in[1]]}; EMIT1(OP_CONV_BWD_DATA, SUF_GRAD_X, 2, i2, in[0], at); ACC(in[0], k); }
    if (wants(x, in[1])) { int i2[2] = {x->saved[in[0]], dy}; EMIT1(OP_CONV_BWD_FILTER, SUF_GRAD_W, 2, i2, in[1], at); ACC(in[1], k); }
    return DLB_OK;
  }
  case OP_MAXPOOL: case OP_AVGPOOL: case OP_GMAXPOOL: case OP_GAVGPOOL: {
    int i2[2] = {dy, x->saved[in[0]]};
    at[6] = p->type;
    int max = p->type == OP_MAXPOOL || p->type == OP_GMAXPOOL;
    EMIT1(OP_POOL_BWD, SUF_GRAD, max ? 2 : 1, i2, in[0], at);
    ACC(in[0], k);
    return DLB_OK;
  }
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: {
    for (int side = 0; side < 2; side++) {
      int t = in[side], c = dy, r;
      if (!wants(x, t)) continue;
      int a1[OP_MAXATTR] = {0};
      if (p->type == OP_SUB && side == 1) { int i1[1] = {dy}; EMIT1(OP_NEG, SUF_GRAD_B, 1, i1, out[0], a1); c = k; }
      if (p->type == OP_MUL) { int i2[2] = {dy, x->saved[in[1 - side]]}; EMIT1(OP_MUL, side ? SUF_GRAD_B : SUF_GRAD_A, 2, i2, out[0], a1); c = k; }
      if (p->type == OP_DIV && side == 0) { int i2[2] = {dy, x->saved[in[1]]}; EMIT1(OP_DIV, SUF_GRAD_A, 2, i2, out[0], a1); c = k; }
      if (p->type == OP_DIV && side == 1) { int i3[3] = {dy, x->saved[in[0]], x->saved[in[1]]}; EMIT1(OP_DIV_BWD, SUF_GRAD_B, 3, i3, out[0], a1); c = k; }
      if ((rc = reduce_to(x, c, t, &r))) return rc;
      ACC(t, r);
    }
    return DLB_OK;
  }
  case OP_SUM: case OP_MEAN: case OP_MAX: {
    int i3[3] = {dy, x->saved[in[0]], x->saved[out[0]]};
    at[0] = p->type;
    EMIT1(OP_REDUCE_BWD, SUF_GRAD, p->type == OP_MAX ? 3 : 1, i3, in[0], at);
    ACC(in[0], k);
    return DLB_OK;
  }
  case OP_SOFTMAX: case OP_LOGSOFTMAX: {
    int i2[2] = {dy, x->saved[out[0]]};
    EMIT1(p->type == OP_SOFTMAX ? OP_SOFTMAX_BWD : OP_LOGSOFTMAX_BWD, SUF_GRAD, 2, i2, in[0], NULL);
    ACC(in[0], k);
    return DLB_OK;
  }
  case OP_LAYERNORM: case OP_BATCHNORM: case OP_RMSNORM: {
    int i5[5] = {dy, x->saved[in[0]], x->saved[in[1]], x->saved[out[1]], -1}, sh[3], ni = 4;
    int n = p->nin; /* dx, dgamma, dbeta */
    for (int i = 0; i < n; i++) sh[i] = in[i];
    at[0] = p->type;
    if (p->nout > 2 && (s->t[out[2]].flags & TF_SAVED)) { /* upcast_norms' saved tensors */
      if (p->nout > 3) i5[1] = x->saved[out[3]]; /* the fp32 copy in place of x */
      i5[4] = x->saved[out[2]];                  /* the normalised output */
      ni = 5;
    }
    if ((k = emit(x, OP_NORM_BWD, SUF_GRAD, (size_t)ni, i5, n, sh, DLB_ROLE_GRADIENT, at)) < 0) return k;
    int32_t outs[3];
    memcpy(outs, op_out(s, &s->o[k]), (size_t)n * sizeof *outs);
    for (int i = 0; i < n; i++) ACC(in[i], outs[i]);
    return DLB_OK;
  }
  case OP_EMBEDDING: {
    int i2[2] = {dy, x->saved[in[0]]};
    if (wants(x, in[1])) { EMIT1(OP_EMBEDDING_BWD, SUF_GRAD_W, 2, i2, in[1], NULL); ACC(in[1], k); }
    return DLB_OK;
  }
  case OP_CONCAT: {
    int sh[OP_MAXIO], n = p->nin;
    int32_t sizes[OP_MAXIO];
    for (int i = 0; i < n; i++) sh[i] = in[i], sizes[i] = s->t[in[i]].dims[at[0] - 1];
    int i1[1] = {dy};
    if ((k = emit(x, OP_SPLIT, SUF_GRAD, 1, i1, n, sh, DLB_ROLE_GRADIENT, at)) < 0) return k;
    if ((rc = dlb_add_extra(s, k, (size_t)n, sizes))) return rc;
    int32_t outs[OP_MAXIO];
    memcpy(outs, op_out(s, &s->o[k]), (size_t)n * sizeof *outs);
    for (int i = 0; i < n; i++) ACC(in[i], outs[i]);
    return DLB_OK;
  }
  case OP_SPLIT: {
    int ins[OP_MAXIO];
    for (int i = 0; i < p->nout; i++) {
      ins[i] = x->grad[out[i]];
      if (ins[i] < 0) { /* a part without gradient contributes zeros */
        if ((k = emit(x, OP_FILL, SUF_ZEROS, 0, NULL, 1, &out[i], DLB_ROLE_GRADIENT, NULL)) < 0) return k;
        ins[i] = out0(x, k);
      }
    }
    EMIT1(OP_CONCAT, SUF_GRAD, (size_t)p->nout, ins, in[0], at);
    ACC(in[0], k);
    return DLB_OK;
  }
  case OP_SLICE: { int i1[1] = {dy}; EMIT1(OP_SLICE_BWD, SUF_GRAD, 1, i1, in[0], at); ACC(in[0], k); return DLB_OK; }
  case OP_RESHAPE: {
    int r;
    if ((rc = reshape_to(x, dy, s->t[in[0]].ndims, s->t[in[0]].dims, &r))) return rc;
    s->t[r].role = DLB_ROLE_GRADIENT;
    s->t[r].grad_of = in[0];
    ACC(in[0], r);
    return DLB_OK;
  }
  case OP_TRANSPOSE: {
    int inv[OP_MAXATTR] = {0}, r = s->t[in[0]].ndims;
    for (int i = 0; i < r; i++) inv[at[i] - 1] = i + 1;
    int i1[1] = {dy};
    EMIT1(OP_TRANSPOSE, SUF_GRAD, 1, i1, in[0], inv);
    ACC(in[0], k);
    return DLB_OK;
  }
  case OP_XENT: {
    /* L = -sum y log p, p = softmax(z): dz = (p - y) dL (2 per logit); with probability
    ** labels y that need a gradient (a teacher's output ...), dy = -log(p) dL (2 per
    ** element: a log and a scale; OP_XENT_BWD with attr[0] = 1). Class ids get none. */
    int dense = s->t[in[1]].ndims == s->t[in[0]].ndims;
    if (wants(x, in[0])) {
      int i3[3] = {x->saved[out[1]], x->saved[in[1]], dy};
      EMIT1(OP_XENT_BWD, SUF_GRAD, 3, i3, in[0], NULL);
      ACC(in[0], k);
    }
    if (dense && wants(x, in[1])) {
      int i2[2] = {x->saved[out[1]], dy}, a1[OP_MAXATTR] = {1};
      EMIT1(OP_XENT_BWD, SUF_GRAD_B, 2, i2, in[1], a1);
      ACC(in[1], k);
    }
    return DLB_OK;
  }
  case OP_MSE: {
    /* L = mean((p - t)^2): dp = 2(p - t)/n dL (2 per element); dt = -dp (1 per element,
    ** a neg of dp), or 2 per element when p needs no gradient. */
    int dp = -1;
    if (wants(x, in[0])) {
      int i3[3] = {x->saved[in[0]], x->saved[in[1]], dy};
      EMIT1(OP_MSE_BWD, SUF_GRAD, 3, i3, in[0], NULL);
      dp = k;
      ACC(in[0], k);
    }
    if (wants(x, in[1])) {
      if (dp >= 0) { int i1[1] = {dp}, a1[OP_MAXATTR] = {0}; EMIT1(OP_NEG, SUF_GRAD_B, 1, i1, in[1], a1); }
      else { int i3[3] = {x->saved[in[0]], x->saved[in[1]], dy}; EMIT1(OP_MSE_BWD, SUF_GRAD_B, 3, i3, in[1], NULL); }
      ACC(in[1], k);
    }
    return DLB_OK;
  }
  case OP_CTC: { int i3[3] = {dy, x->saved[out[1]], x->saved[in[1]]}; EMIT1(OP_CTC_BWD, SUF_GRAD, 3, i3, in[0], NULL); ACC(in[0], k); return DLB_OK; }
  default:
    if (dlb_op_is_unary(p->type)) {
      int usey = p->type == OP_RELU || p->type == OP_SIGMOID || p->type == OP_TANH ||
                 p->type == OP_EXP || p->type == OP_SQRT || p->type == OP_DROPOUT;
      int nodata = p->type == OP_NEG || p->type == OP_SCALE || p->type == OP_CAST;
      int i2[2] = {dy, x->saved[usey ? out[0] : in[0]]};
      at[0] = p->type;
      EMIT1(OP_UNARY_BWD, SUF_GRAD, nodata ? 1 : 2, i2, in[0], at);
      ACC(in[0], k);
      return DLB_OK;
    }
    return dlb_fail(DLB_EINVAL, "training: no gradient rule for %s", dlb_op_type_name(p->type));
  }
#undef EMIT1
#undef ACC
}

/* The optimizer state tensors of weight w (docs/graph.md "Optimizers"): their count (at
** most 2), shapes and types. momentum, rmsprop: one like w; adam, adamw: two (m, v);
** adam8bit: two of int8 (Dettmers et al. 2022; the per-block fp32 scales, 4 bytes per 2048
** elements, are left out); adafactor: for a weight of rank >= 2 a row vector (w without
** its last dim) and a column vector (w without its second-to-last dim) of second-moment
** statistics and no first moment (Shazeer & Stern 2018, beta1 = 0), else one like w. */
static int opt_states(const dlb_train_opts *o, const tensor *W, int32_t dims[2][DLB_GRAPH_MAXRANK],
                      int nd[2], int dt[2], int mixed) {
  int def = mixed ? DLB_DT_FP32 : DLB_DT_DEFAULT, n = 0;
  switch (o->optimizer) {
  case DLB_OPT_SGD: return 0;
  case DLB_OPT_MOMENTUM: case DLB_OPT_RMSPROP: n = 1; break;
  case DLB_OPT_ADAM8BIT: def = DLB_DT_INT8; n = 2; break;
  case DLB_OPT_ADAFACTOR:
    if (W->ndims >= 2) {
      int r = W->ndims;
      memcpy(dims[0], W->dims, (size_t)(r - 1) * sizeof *W->dims);    /* drop the last dim */
      nd[0] = r - 1;
      memcpy(dims[1], W->dims, (size_t)(r - 2) * sizeof *W->dims);    /* drop the one before */
      dims[1][r - 2] = W->dims[r - 1];
      nd[1] = r - 1;
      dt[0] = dt[1] = def;
      return 2;
    }
    n = 1;
    break;
  default: n = 2; break; /* adam, adamw */
  }
  for (int i = 0; i < n; i++) {
    memcpy(dims[i], W->dims, (size_t)W->ndims * sizeof *W->dims);
    nd[i] = W->ndims;
    dt[i] = def;
  }
  return n;
}

/* Optimizer-state bytes per parameter (dlb_graph.h): opt_states on a weight of that shape. */
int dlb_optimizer_state_bytes(int optimizer, int ndims, const double *dims, double *bytes) {
  if (bytes == NULL || ndims < 0 || ndims > DLB_GRAPH_MAXRANK || (ndims > 0 && dims == NULL))
    return dlb_fail(DLB_EINVAL, "optimizer_state_bytes: bad arguments");
  if (optimizer < 0 || optimizer > DLB_OPT_ADAM8BIT)
    return dlb_fail(DLB_EINVAL, "optimizer_state_bytes: unknown optimizer %d", optimizer);
  tensor w;
  memset(&w, 0, sizeof w);
  w.ndims = (uint8_t)ndims;
  double n = 1;
  for (int i = 0; i < ndims; i++) {
    if (!(dims[i] >= 1 && dims[i] <= 2147483647.0) || dims[i] != (double)(int32_t)dims[i])
      return dlb_fail(DLB_EINVAL, "optimizer_state_bytes: dim %d must be an integer >= 1", i + 1);
    w.dims[i] = (int32_t)dims[i];
    n *= dims[i];
  }
  dlb_train_opts o;
  memset(&o, 0, sizeof o);
  o.optimizer = optimizer;
  int32_t sd[2][DLB_GRAPH_MAXRANK];
  int nd[2], dt[2];
  int ns = opt_states(&o, &w, sd, nd, dt, 1);
  double b = 0;
  for (int k = 0; k < ns; k++) {
    double e = 1;
    for (int i = 0; i < nd[k]; i++) e *= sd[k][i];
    b += e * dlb_dtype_size(dt[k]);
  }
  *bytes = b / n;
  return DLB_OK;
}

int dlb_op_layer(const dlb_graph *g, int o, const int *done) {
  const op *p = &g->o[o];
  if (p->layer >= 0) return p->layer;
  if (g->nlayers == 0) return -1;
  /* a generated op (backward, recompute) of a forward op outside every scope runs where that
  ** forward op's work is: a pipeline stage runs the backward of the ops it holds */
  if (p->phase != DLB_PHASE_FWD && p->fwd >= 0 && p->fwd < o)
    return done ? done[p->fwd] : dlb_op_layer(g, p->fwd, NULL);
  /* a forward op outside every scope is its predecessor's layer's (the first layer's before
  ** any): a final norm or head joins the last block, an embedding before the first block
  ** the first; the nearest earlier forward op's placement is that same answer */
  for (int j = o - 1; j >= 0; j--)
    if (g->o[j].phase == DLB_PHASE_FWD) {
      if (g->o[j].layer >= 0) return g->o[j].layer;
      if (done) return done[j];
    }
  return 0;
}

int dlb_weight_layer(const dlb_graph *g, int t, int c) {
  if (g->t[t].layer >= 0) return g->t[t].layer;
  if (g->nlayers == 0) return -1;
  /* a weight outside every scope trains with the layer that holds its first consumer's work
  ** (dlb_op_layer; issue [18]: the framework steps every trainable tensor, in a layer or not) */
  return c >= 0 ? dlb_op_layer(g, c, NULL) : 0;
}

int dlb_layer_reruns(const dlb_graph *g, uint8_t *out) {
  size_t nl = g->nlayers;
  if (nl == 0 || g->no == 0) return DLB_OK;
  int *pl = dlb_malloc(g->no * sizeof *pl);
  uint8_t *reads = dlb_calloc(nl, 1), *loss = dlb_calloc(nl, 1);
  if (!pl || !reads || !loss) { dlb_free(pl); dlb_free(reads); dlb_free(loss); return oom(); }
  for (size_t i = 0; i < g->no; i++) pl[i] = dlb_op_layer(g, (int)i, pl);
  for (size_t i = 0; i < g->no; i++) {
    const op *p = &g->o[i];
    int l = pl[i];
    if (p->phase != DLB_PHASE_FWD || l < 0 || (size_t)l >= nl) continue;
    if (p->type == OP_XENT || p->type == OP_MSE || p->type == OP_CTC) loss[l] = 1;
    for (int j = 0; j < p->nin; j++) {
      const tensor *T = &g->t[op_in(g, p)[j]];
      if (T->role == DLB_ROLE_ACTIVATION && T->producer >= 0 &&
          g->o[T->producer].phase == DLB_PHASE_FWD && pl[T->producer] != l)
        reads[l] = 1;
    }
  }
  for (size_t l = 0; l < nl; l++) out[l] = reads[l] && !loss[l];
  dlb_free(pl); dlb_free(reads); dlb_free(loss);
  return DLB_OK;
}

/* Which forward ops a layer-tagged recompute policy never reruns (x->once): those of a layer
** dlb_layer_reruns leaves out, placed by dlb_op_layer. */
static int once_ops(tx *x, const dlb_graph *g) {
  const dlb_train_opts *o = x->opt;
  if (!g->nlayers || (o->recompute != DLB_RECOMPUTE_LAYERS && o->recompute != DLB_RECOMPUTE_SQRT))
    return DLB_OK;
  uint8_t *rr = dlb_calloc(g->nlayers, 1);
  int *pl = dlb_malloc((g->no + 1) * sizeof *pl);
  x->once = dlb_calloc(g->no + 1, 1);
  int rc = !rr || !pl || !x->once ? oom() : dlb_layer_reruns(g, rr);
  for (size_t i = 0; rc == DLB_OK && i < g->no; i++) {
    pl[i] = dlb_op_layer(g, (int)i, pl);
    x->once[i] = pl[i] >= 0 && !rr[pl[i]];
  }
  dlb_free(rr); dlb_free(pl);
  return rc;
}

/* The update of weight w with its final gradient; c its first consumer (the forward op whose
** backward completed the gradient). */
static int update(tx *x, int w, int c) {
  dlb_graph *s = x->s;
  int32_t dims[2][DLB_GRAPH_MAXRANK];
  int nd[2], dt[2];
  /* a weight that trains in its own type (dlb_graph_own_type): no master copy, the states
  ** in the weight's type (torch.optim on a 16-bit parameter) */
  const tensor *W = &s->t[w];
  int own = (W->flags & TF_OWNTYPE) != 0;
  int mixed = s->mixed && !own;
  int nst = opt_states(x->opt, W, dims, nd, dt, mixed);
  if (own && x->opt->optimizer != DLB_OPT_ADAM8BIT && (W->flags & TF_DTYPE_SET))
    for (int i = 0; i < nst; i++) dt[i] = W->dtype;
  int in[5] = {w, x->grad[w]}, n = 2; /* weight, gradient, <= 2 states, master copy */
  for (int i = 0; i < nst + mixed; i++) {
    int master = mixed && i == nst;
    int t = master ? dlb_new_tensor(s, -1, s->t[w].ndims, s->t[w].dims, DLB_DT_FP32, DLB_ROLE_OPTSTATE)
                   : dlb_new_tensor(s, -1, nd[i], dims[i], dt[i], DLB_ROLE_OPTSTATE);
    if (t < 0) return t;
    s->t[t].grad_of = w; /* names read "d(w)"-like; the flag tells them apart */
    s->t[t].layer = s->t[w].layer;
    if (master) s->t[t].flags |= TF_MASTER;
    in[n++] = t;
  }
  int at[OP_MAXATTR] = {x->opt->optimizer, nst, mixed};
  int saved = x->phase, sfwd = x->fwd;
  x->phase = DLB_PHASE_UPDATE;
  int o = emit(x, OP_UPDATE, SUF_UPDATE, (size_t)n, in, 0, NULL, 0, at);
  x->phase = saved;
  x->fwd = sfwd;
  if (o < 0) return o;
  s->o[o].layer = dlb_weight_layer(s, w, c);
  return DLB_OK;
}

/* Segments of the forward ops for a recompute policy; returns the count (<0 error). */
static int segments(tx *x, const dlb_graph *g) {
  const dlb_train_opts *o = x->opt;
  int nseg = 1;
  if (o->recompute == DLB_RECOMPUTE_LAYERS || (o->recompute == DLB_RECOMPUTE_SQRT && g->nlayers)) {
    if (!g->nlayers)
      return dlb_fail(DLB_EINVAL, "graph '%s': recompute every k layers needs layer tags (g:layer)",
                      g->str + g->name);
    int k = o->recompute == DLB_RECOMPUTE_LAYERS ? o->recompute_k : (int)ceil(sqrt((double)g->nlayers));
    if (k < 1) return dlb_fail(DLB_EINVAL, "recompute: k must be >= 1, got %d", k);
    int cur = 0;
    for (int i = 0; i < x->no; i++) {
      if (g->o[i].layer >= 0) cur = g->o[i].layer / k;
      x->seg[i] = cur;
      if (cur + 1 > nseg) nseg = cur + 1;
    }
  } else if (o->recompute == DLB_RECOMPUTE_SQRT) {
    int chunk = (int)ceil(sqrt((double)x->no));
    for (int i = 0; i < x->no; i++) x->seg[i] = i / chunk;
    nseg = (x->no + chunk - 1) / chunk;
  } else if (o->recompute == DLB_RECOMPUTE_MARKED) {
    int cur = 0, any = 0;
    for (int i = 0; i < x->no; i++) {
      x->seg[i] = cur;
      const op *p = &g->o[i];
      for (int j = 0; j < p->nout; j++)
        if (g->t[op_out(g, p)[j]].flags & TF_CHECKPOINT) any = 1, cur = x->seg[i] + 1;
    }
    if (!any)
      return dlb_fail(DLB_EINVAL, "graph '%s': recompute='marked' but no tensor is marked "
                      "(g:checkpoint(t))", g->str + g->name);
    nseg = cur + 1;
  } else if (o->recompute != DLB_RECOMPUTE_NONE) {
    return dlb_fail(DLB_EINVAL, "recompute: unknown policy %d", o->recompute);
  } else {
    memset(x->seg, 0, (size_t)x->no * sizeof *x->seg);
  }
  return nseg;
}

/* Re-run the forward ops of segment sg: all of them, as a checkpointed function runs its
** whole forward again in the backward (Megatron-LM's CheckpointFunction.backward and
** torch.utils.checkpoint's reentrant variant call run_function on the saved inputs:
** Korthikanti et al. 2022 sec. 4, "full activation recomputation" reruns each layer's
** forward), not only the ops whose outputs the backward reads; prune() drops the segment's
** rerun when the backward reads none of it. Until issue [18]/[19] (branch recompute-one)
** only the ops producing dropped tensors ran again and prune() dropped those nobody read, so
** a GPT block's fc2 matmul, its bias and the closing residual add were never recomputed
** (the planner, dlb_par_layout_eval, reruns the block's whole forward: GPT-2 on an A100
** under megatron-lm, 18.41 ms against the planner's 19.02). */
static int recompute(tx *x, int sg, int first, int last) {
  dlb_graph *s = x->s;
  int saved = x->phase;
  x->phase = DLB_PHASE_RECOMPUTE;
  for (int i = first; i <= last; i++) {
    if (x->seg[i] != sg || (x->once && x->once[i])) continue;
    op P = s->o[i];
    int32_t in[OP_MAXIO], sh[OP_MAXIO];
    int nout = P.nout; /* the workspace output, if any, is re-made by emit */
    if (nout && s->t[op_out(s, &P)[nout - 1]].role == DLB_ROLE_WORKSPACE) nout--;
    for (int j = 0; j < P.nin; j++) in[j] = x->saved[op_in(s, &P)[j]];
    for (int j = 0; j < nout; j++) sh[j] = op_out(s, &P)[j];
    x->fwd = i;
    int o = emit(x, P.type, SUF_RECOMPUTE, P.nin, in, nout, sh, DLB_ROLE_ACTIVATION, P.attr);
    if (o < 0) return o;
    if (P.nextra && dlb_add_extra(s, o, (size_t)P.nextra, s->args + P.extra)) return oom();
    for (int j = 0; j < nout; j++) {
      int t = op_out(s, &s->o[o])[j];
      x->saved[sh[j]] = t;
      s->t[t].flags |= s->t[sh[j]].flags & TF_SAVED;
      if (P.type == OP_RESHAPE) s->t[t].base = s->t[in[0]].base;
    }
  }
  x->phase = saved;
  return DLB_OK;
}

/* Drop a segment's rerun when the backward reads none of its outputs (a segment whose
** backward needs no activation of its own, such as an embedding's: its gradient needs the
** ids only, so checkpointing it saves nothing and nothing runs again); a segment whose
** backward reads any recomputed tensor keeps its whole rerun (see recompute). Liveness in
** reverse, so chains go too; seg maps a forward op to its segment (nseg of them). */
static int prune(dlb_graph *s, int from, const int32_t *seg, int nseg) {
  int32_t *uses = dlb_calloc(s->nt, sizeof *uses);
  uint8_t *dead = dlb_calloc(s->no, 1), *live = dlb_calloc((size_t)nseg, 1);
  if (!uses || !dead || !live) { dlb_free(uses); dlb_free(dead); dlb_free(live); return oom(); }
  for (size_t i = 0; i < s->no; i++)
    for (int j = 0; j < s->o[i].nin; j++) uses[op_in(s, &s->o[i])[j]]++;
  for (size_t i = s->no; i-- > (size_t)from;) {
    const op *p = &s->o[i];
    if (p->phase != DLB_PHASE_RECOMPUTE) continue;
    int used = 0;
    for (int j = 0; j < p->nout; j++) used |= uses[op_out(s, p)[j]] > 0;
    if (used) continue;
    dead[i] = 1;
    for (int j = 0; j < p->nin; j++) uses[op_in(s, p)[j]]--;
  }
  for (size_t i = (size_t)from; i < s->no; i++)
    if (s->o[i].phase == DLB_PHASE_RECOMPUTE && !dead[i]) live[seg[s->o[i].fwd]] = 1;
  for (size_t i = (size_t)from; i < s->no; i++)
    if (s->o[i].phase == DLB_PHASE_RECOMPUTE) dead[i] = !live[seg[s->o[i].fwd]];
  dlb_free(live);
  size_t n = 0;
  dlb_free(uses);
  int32_t *newidx = dlb_malloc(s->no * sizeof *newidx);
  if (!newidx) { dlb_free(dead); return oom(); }
  for (size_t i = 0; i < s->no; i++) {
    if (dead[i]) {
      newidx[i] = -1;
      for (int j = 0; j < s->o[i].nout; j++) s->t[op_out(s, &s->o[i])[j]].producer = -2;
      continue;
    }
    newidx[i] = (int32_t)n;
    s->o[n++] = s->o[i];
  }
  s->no = n;
  for (size_t t = 0; t < s->nt; t++)
    if (s->t[t].producer >= 0) s->t[t].producer = newidx[s->t[t].producer];
  for (size_t i = 0; i < s->no; i++)
    if (s->o[i].fwd >= 0) s->o[i].fwd = newidx[s->o[i].fwd];
  dlb_free(newidx);
  dlb_free(dead);
  return DLB_OK;
}

/* What eager model code's RMSNorm keeps for its backward (dlb_train_opts.norm_upcast,
** docs/frameworks.md "What eager RMSNorm saves"). torchtune/modules/rms_norm.py (stored
** 1b0918f2): x_fp32 = x.float(); x_normed = (x_fp32 * torch.rsqrt(x_fp32.pow(2).mean(-1,
** keepdim=True) + eps)).type_as(x); return x_normed * self.scale; transformers'
** LlamaRMSNorm (models/llama/modeling_llama.py, stored 00227283) the same with
** hidden_states.to(torch.float32) and self.weight * hidden_states.to(input_dtype). Autograd
** (PyTorch tools/autograd/derivatives.yaml, stored d327a787): pow saves its input, rsqrt its
** result, mul the other operand of each input that needs a gradient, _to_copy nothing. So
** the norm keeps x_fp32 (4 B an element; x itself when x is fp32: .float() returns it), the
** row statistics and x_normed (x's type), and nothing keeps x. dlbench's fused rmsnorm op
** keeps x and the statistics; here each forward rmsnorm op of a copy of g gets two more
** outputs, x_normed (output 2, y's shape and type) and, where x is not 4 bytes under the
** precision, x_fp32 (output 3), both TF_SAVED (not traffic: the algorithmic op's bytes stay
** as they are), which its backward op reads instead of x: 4 B an element more per norm,
** whatever x's type (2 + 2 at 16 bits, 4 at 32). *res gets the copy (NULL when g has no
** rmsnorm); the caller releases it. */
double dlb_tensor_esize(const dlb_graph *s, int t, int precision); /* analysis.c */
static int upcast_norms(const dlb_graph *g, int precision, dlb_graph **res) {
  size_t n = 0;
  *res = NULL;
  for (size_t i = 0; i < g->no; i++) n += g->o[i].type == OP_RMSNORM;
  if (n == 0) return DLB_OK;
  dlb_graph *c = dlb_graph_clone(g, 0, 2 * n, 4 * n);
  if (!c) return DLB_ENOMEM;
  for (size_t i = 0; i < c->no; i++) {
    op *p = &c->o[i];
    if (p->type != OP_RMSNORM || p->nout != 2) continue;
    int x = op_in(c, p)[0], y = op_out(c, p)[0];
    int copy = dlb_tensor_esize(c, x, precision) != 4;
    /* move the outputs to the end of the args pool, with room for the saved tensors */
    int32_t off = (int32_t)c->nargs;
    for (int j = 0; j < 2; j++) c->args[c->nargs++] = op_out(c, p)[j];
    for (int j = 0; j < 1 + copy; j++) c->args[c->nargs++] = -1;
    p->out = off;
    int t = dlb_add_output(c, (int)i, 2, c->t[y].ndims, c->t[y].dims,
                           c->t[y].flags & TF_DTYPE_SET ? c->t[y].dtype : DLB_DT_DEFAULT,
                           DLB_ROLE_ACTIVATION);
    if (t >= 0) c->t[t].flags |= TF_SAVED;
    if (t >= 0 && copy) {
      t = dlb_add_output(c, (int)i, 3, c->t[x].ndims, c->t[x].dims, DLB_DT_FP32, DLB_ROLE_ACTIVATION);
      if (t >= 0) c->t[t].flags |= TF_SAVED;
    }
    if (t < 0) {
      dlb_graph_release(c);
      return t;
    }
  }
  *res = c;
  return DLB_OK;
}

static dlb_graph *expand(dlb_graph *g, const dlb_train_opts *opt);

dlb_graph *dlb_train_expand(dlb_graph *g, const dlb_train_opts *opt) {
  if (!opt->norm_upcast || opt->inference) return expand(g, opt);
  dlb_graph *u;
  if (upcast_norms(g, opt->precision, &u)) return NULL;
  dlb_graph *s = expand(u ? u : g, opt);
  dlb_graph_release(u);
  return s;
}

/* The training step of forward graph g (dlb_train_expand without the upcast copies). */
static dlb_graph *expand(dlb_graph *g, const dlb_train_opts *opt) {
  /* a step has about 3x the forward ops: reserve once rather than grow */
  int inf = opt->inference;
  dlb_graph *s = dlb_graph_clone(g, inf ? 0 : 2 * g->no + 64, inf ? 0 : 2 * g->nt + 2 * g->no + 64,
                             inf ? 0 : 2 * g->nargs + 64);
  if (!s) return NULL;
  s->nfwd = (int)g->no;
  s->mixed = dlb_policy_mixed(opt->precision);
  if (opt->inference) return s;
  if (g->loss < 0) {
    dlb_graph_release(s);
    return dlb_fail_null(DLB_EINVAL, "graph '%s': no loss marked (g:loss(t)); pass "
                         "inference=true to analyse the forward pass only", g->str + g->name);
  }
  for (size_t i = 0; i < g->no; i++)
    if (g->o[i].type == OP_KERNEL) { /* given costs, no backward rule */
      char on[512];
      dlb_graph_release(s);
      return dlb_fail_null(DLB_EINVAL, "graph '%s': op '%s' is a kernel op (given costs, forward "
                           "only); pass inference=true", g->str + g->name,
                           dlb_oname(g, (int)i, on, sizeof on));
    }
  if (g->t[g->loss].producer < 0 || g->no == 0) { /* dlb_graph_set_loss refuses these */
    dlb_graph_release(s);
    return dlb_fail_null(DLB_EINVAL, "graph '%s': the loss is not the output of an op",
                         g->str + g->name);
  }
  tx x = {s, opt, (int)g->nt, (int)g->no, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
          DLB_PHASE_BWD, -1, 0};
  x.grad = dlb_malloc(g->nt * sizeof *x.grad);
  x.saved = dlb_malloc(g->nt * sizeof *x.saved);
  x.pending = dlb_calloc(g->nt, sizeof *x.pending);
  x.needs = dlb_calloc(g->nt, 1);
  x.useful = dlb_calloc(g->nt, 1);
  x.dropped = dlb_calloc(g->nt, 1);
  x.seg = dlb_malloc((g->no + 1) * sizeof *x.seg);
  int rc = DLB_OK;
  if (!x.grad || !x.saved || !x.pending || !x.needs || !x.useful || !x.dropped || !x.seg) {
    rc = oom();
    goto done;
  }
  for (size_t t = 0; t < g->nt; t++) {
    x.grad[t] = -1;
    x.saved[t] = (int32_t)t;
    x.needs[t] = g->t[t].role == DLB_ROLE_WEIGHT && !(g->t[t].flags & TF_FROZEN);
  }
  for (size_t i = 0; i < g->no; i++) {
    const op *p = &g->o[i];
    int need = 0;
    for (int j = 0; j < p->nin; j++) {
      int t = op_in(g, p)[j];
      need |= x.needs[t];
      if (g->t[t].role == DLB_ROLE_WEIGHT && (j == 0 || op_in(g, p)[j - 1] != t)) x.pending[t]++;
    }
    if (p->type == OP_EMBEDDING) need = x.needs[op_in(g, p)[1]];
    for (int j = 0; j < p->nout; j++) x.needs[op_out(g, p)[j]] = (uint8_t)need;
  }
  x.useful[g->loss] = 1;
  for (size_t i = g->no; i-- > 0;) {
    const op *p = &g->o[i];
    int u = 0;
    for (int j = 0; j < p->nout; j++) u |= x.useful[op_out(g, p)[j]];
    if (u) for (int j = 0; j < p->nin; j++) x.useful[op_in(g, p)[j]] = 1;
  }
  int nseg = segments(&x, g);
  if (nseg < 0) { rc = nseg; goto done; }
  if (nseg > 1 && (rc = once_ops(&x, g))) goto done;
  if (nseg > 1) { /* drop activations that stay inside a recomputed segment */
    int last = x.seg[g->no - 1];
    int32_t *lastuse = x.grad; /* temporarily: the latest forward segment reading t */
    for (size_t t = 0; t < g->nt; t++) lastuse[t] = -1;
    for (size_t i = 0; i < g->no; i++)
      for (int j = 0; j < g->o[i].nin; j++) {
        int t = op_in(g, &g->o[i])[j];
        if (x.seg[i] > lastuse[t]) lastuse[t] = x.seg[i];
      }
    for (size_t t = 0; t < g->nt; t++) {
      const tensor *T = &g->t[t];
      if (T->producer < 0 || T->role != DLB_ROLE_ACTIVATION || (T->flags & TF_CHECKPOINT)) continue;
      int sg = x.seg[T->producer];
      x.dropped[t] = sg != last && lastuse[t] <= sg && (int)t != g->loss &&
                     !(x.once && x.once[T->producer]);
    }
    for (size_t t = 0; t < g->nt; t++) lastuse[t] = -1;
  }
  /* the seed: d(loss) = 1 */
  int seed = dlb_new_tensor(s, -1, g->t[g->loss].ndims, g->t[g->loss].dims, DLB_DT_DEFAULT,
                        DLB_ROLE_GRADIENT);
  if (seed < 0) { rc = seed; goto done; }
  s->t[seed].grad_of = g->loss;
  x.grad[g->loss] = seed;
  int cur = -1, lastseg = x.seg[g->no - 1];
  for (int i = (int)g->no; i-- > 0;) {
    if (nseg > 1 && x.seg[i] != cur) {
      cur = x.seg[i];
      if (cur != lastseg && (rc = recompute(&x, cur, 0, i))) goto done;
    }
    const op *p = &s->o[i];
    int any = 0, need = 0;
    for (int j = 0; j < p->nout; j++) any |= x.grad[op_out(s, p)[j]] >= 0;
    for (int j = 0; j < p->nin; j++) need |= wants(&x, op_in(s, p)[j]);
    if (any && need && (rc = backward(&x, i))) goto done;
    int nin = s->o[i].nin, in0 = s->o[i].in; /* update() grows the arrays: use indices */
    for (int j = 0; j < nin; j++) {
      int t = s->args[in0 + j];
      if (s->t[t].role != DLB_ROLE_WEIGHT || (j > 0 && s->args[in0 + j - 1] == t)) continue;
      if (--x.pending[t] == 0 && x.grad[t] >= 0 && (rc = update(&x, t, i))) goto done;
    }
  }
  if (nseg > 1) rc = prune(s, (int)g->no, x.seg, nseg);
done:
  dlb_free(x.grad); dlb_free(x.saved); dlb_free(x.pending); dlb_free(x.needs); dlb_free(x.useful);
  dlb_free(x.dropped); dlb_free(x.seg); dlb_free(x.once);
  if (rc) {
    dlb_graph_release(s);
    return NULL;
  }
  return s;
}
