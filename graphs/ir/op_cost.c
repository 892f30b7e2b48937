/*
** op_cost.c — the cost rules of every op: forward/backward/update FLOPs, bytes accessed
** and GEMM shapes, as sums of products of dims (so they evaluate numerically or stay
** polynomials). The conventions (docs/graph.md has the table):
**   a multiply-accumulate is 2 FLOPs (Catamount, Hestness et al. 2019, seeds/000);
**   matmul 2*batch*M*N*K; conv 2*N*Cout*Ho*Wo*(Cin/groups)*KH*KW, its data- and filter-
**   gradient convs the same each; pooling 1 per window element; elementwise 1 per output
**   element except sigmoid 4, tanh 6, gelu 14 (tanh form), silu 5; their gradients 1,
**   except sigmoid and tanh 3 (Catamount), gelu 16, silu 7, sqrt 2; reductions 1 per
**   input element; softmax 3 per element (Catamount), backward 4; layer/batch norm
**   6N + 3R (Catamount's fused batch norm, R = rows or channels), backward 10N + 5R;
**   RMS norm 4N + 3R, backward 7N + 4R; embedding gather 0 (bytes: ids + rows read +
**   rows written), its backward 1 per gradient element (scatter-add); concat, split,
**   slice, transpose, reshape 0 (reshape moves no bytes); softmax cross-entropy 4 per
**   logit, backward 2; MSE 3 per element, backward 2; CTC (approximation) 3*T*B*V +
**   3*B*T*(2S+1) forward and 2*T*B*V + 3*B*T*(2S+1) backward; gradient accumulation 1
**   per element; updates per parameter: sgd 2, momentum 4, rmsprop 9, adam 12, adamw 14
**   (adam + decoupled decay w -= lr*wd*w, Loshchilov & Hutter 2019 Alg. 2), adafactor 11
**   (g^2 1, row and column sums 2, the factored estimate R C / sum(R) 2, g / sqrt(v) 2,
**   update clipping RMS 2, w -= lr*u 2; Shazeer & Stern 2018 Alg. 4, beta1 = 0; the
**   per-row/column moving averages are O(rows + cols) and left out), adam8bit 20 (adam 12
**   + for each of the two states dequantise 1 and quantise 3: block absmax, scale, round;
**   Dettmers et al. 2022) (+1 for the low-precision copy under mixed precision).
**   Bytes: every input plus every output, at its element size (Catamount); a tensor kept
**   only for a backward op (TF_SAVED: an eager RMSNorm's fp32 upcast, train.c) is not traffic.
**   A kernel op (graph_ops.c) carries its FLOPs, bytes and GEMM shape as given dims
**   (extra dims 0, 1 and 2..5): a step described kernel by kernel by a model of its own
**   (dlb.serve's prefill and decode steps), forward only.
*/
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

static const char *const names[OP_NTYPES] = {
  "matmul", "conv2d", "maxpool", "avgpool", "global_maxpool", "global_avgpool",
  "relu", "sigmoid", "tanh", "gelu", "silu", "exp", "log", "sqrt", "dropout",
  "neg", "scale", "cast",
  "add", "sub", "mul", "div",
  "sum", "mean", "max",
  "softmax", "log_softmax", "layernorm", "batchnorm", "rmsnorm", "embedding",
  "concat", "split", "slice", "reshape", "transpose",
  "softmax_xent", "mse", "ctc",
  "conv2d_bwd_data", "conv2d_bwd_filter", "pool_bwd", "unary_bwd", "div_bwd",
  "reduce_bwd", "softmax_bwd", "log_softmax_bwd", "norm_bwd", "embedding_bwd",
  "slice_bwd", "fill", "softmax_xent_bwd", "mse_bwd", "ctc_bwd", "accum", "update", "kernel"
};

const char *dlb_op_type_name(int type) {
  return type >= 0 && type < OP_NTYPES ? names[type] : "?";
}

const char *dlb_graph_op_type_name(int type) { return dlb_op_type_name(type); }

int dlb_graph_op_type(const char *name) {
  for (int i = 0; i < OP_NTYPES; i++)
    if (strcmp(names[i], name) == 0) return i;
  return dlb_fail(DLB_ENOTFOUND, "graph: no op type '%s'", name);
}

const char *dlb_graph_convention(void) {
  return "FLOPs: multiply-accumulate = 2; matmul 2MNK; conv 2*out*Cin/g*KH*KW (dgrad, wgrad "
         "same); pointwise 1/elt, sigmoid 4, tanh 6, gelu 14, silu 5 (grads 1, sigmoid/tanh 3); "
         "softmax 3/elt; norms 6N+3C; gather 0; bytes = inputs + outputs";
}

int dlb_op_is_unary(int type) { return type >= OP_RELU && type <= OP_CAST; }

double dlb_dtype_size(int dt) {
  switch (dt) {
  case DLB_DT_FP16: case DLB_DT_BF16: return 2;
  case DLB_DT_FP8: case DLB_DT_INT8: return 1;
  case DLB_DT_INT64: case DLB_DT_FP64: return 8;
  /* 4 bits + an 8-bit scale per block of 64 + an fp32 scale of the scales per 256 blocks */
  case DLB_DT_NF4: return (4.0 + 8.0 / 64 + 32.0 / (64 * 256)) / 8;
  /* 4 bits + an fp16 scale and a 4-bit zero point per group of 128 */
  case DLB_DT_INT4: return (4.0 + (16.0 + 4.0) / 128) / 8;
  default: return 4;
  }
}

/* Per-element FLOPs of the unary ops, forward and backward. */
static double unary_fwd(int type) {
  switch (type) {
  case OP_SIGMOID: return 4;
  case OP_TANH: return 6;
  case OP_GELU: return 14;
  case OP_SILU: return 5;
  case OP_CAST: return 0;
  default: return 1;
  }
}

/* Per-element FLOPs of the gradient of a unary op. */
static double unary_bwd(int type) {
  switch (type) {
  case OP_SIGMOID: case OP_TANH: return 3;
  case OP_GELU: return 16;
  case OP_SILU: return 7;
  case OP_SQRT: return 2;
  case OP_CAST: return 0;
  default: return 1;
  }
}

/* Per-parameter FLOPs of one optimizer step of DLB_OPT_* optimizer (the counts above; an
** unknown id counts as sgd). dlb.graph.optimizers reads them here. */
double dlb_optimizer_update_flops(int optimizer) {
  switch (optimizer) {
  case DLB_OPT_MOMENTUM: return 4;
  case DLB_OPT_RMSPROP: return 9;
  case DLB_OPT_ADAM: return 12;
  case DLB_OPT_ADAMW: return 14;
  case DLB_OPT_ADAFACTOR: return 11;
  case DLB_OPT_ADAM8BIT: return 20;
  default: return 2;
  }
}

/* -- building sums of products -- */

static cterm *term(cexpr *e, double c) {
  cterm *t = &e->t[e->n++];
  t->c = c;
  t->nf = 0;
  return t;
}

/* Multiply a cost term by dim d (skipping the constant 1). */
static void facdim(cterm *t, int32_t d) {
  if (d != 0) t->f[t->nf++] = d; /* dim id 0 is the constant 1 */
}

static void facnumel(cterm *t, int tensor) { t->f[t->nf++] = -tensor - 1; }

/* Dims of tensor x (all of them) as factors. */
static void facdims(cterm *t, const dlb_graph *g, int x, int from, int to) {
  for (int i = from; i < to; i++) facdim(t, g->t[x].dims[i]);
}

/* A kernel op's given cost, dim d: a constant as the term's coefficient (exact: a dim's
** value is snapped to an integer within 1e-9 when it is evaluated), else the dim. */
static void given(cexpr *e, const dlb_graph *g, int32_t d) {
  double v;
  if (dlb_dim_is_const(g, d, &v)) term(e, v);
  else facdim(term(e, 1), d);
}

/* c * numel(x) */
static void per_elem(cexpr *e, double c, int x) {
  if (c != 0) facnumel(term(e, c), x);
}

/* Conv FLOPs: 2 * N * Cout * out-spatial * (Cin/g) * k-spatial, from x, w, y. */
static void conv_flops(const dlb_graph *g, int x, int w, int y, cexpr *e) {
  (void)x;
  cterm *t = term(e, 2);
  facnumel(t, y);              /* N * Cout * Ho * Wo */
  facdims(t, g, w, 1, g->t[w].ndims); /* Cin/g * KH * KW */
}

void dlb_op_flops(const dlb_graph *g, int o, cexpr *e) {
  const op *p = &g->o[o];
  const int32_t *in = op_in(g, p), *out = op_out(g, p);
  e->n = 0;
  switch (p->type) {
  case OP_MATMUL: {
    const tensor *A = &g->t[in[0]], *B = &g->t[in[1]];
    cterm *t = term(e, 2);
    facnumel(t, out[0]);                                  /* batch * M * N */
    facdim(t, A->dims[A->ndims - (p->attr[0] ? 2 : 1)]);  /* K */
    (void)B;
    break;
  }
  case OP_CONV: conv_flops(g, in[0], in[1], out[0], e); break;
  case OP_CONV_BWD_DATA: conv_flops(g, out[0], in[1], in[0], e); break;   /* (dy, w) -> dx */
  case OP_CONV_BWD_FILTER: conv_flops(g, in[0], out[0], in[1], e); break; /* (x, dy) -> dw */
  case OP_MAXPOOL: case OP_AVGPOOL: {
    cterm *t = term(e, 1);
    facnumel(t, out[0]);
    if (p->attr[0]) t->c *= p->attr[0];
    if (g->t[in[0]].ndims == 4 && p->attr[1]) t->c *= p->attr[1];
    break;
  }
  case OP_GMAXPOOL: case OP_GAVGPOOL: per_elem(e, 1, in[0]); break;
  case OP_POOL_BWD: { /* (dy, x) -> dx; attrs copied from the forward pool, attr[6] type */
    int ft = p->attr[6];
    if (ft == OP_GMAXPOOL || ft == OP_GAVGPOOL) { per_elem(e, 1, out[0]); break; }
    cterm *t = term(e, 1);
    facnumel(t, in[0]);
    if (p->attr[0]) t->c *= p->attr[0];
    if (g->t[in[1]].ndims == 4 && p->attr[1]) t->c *= p->attr[1];
    break;
  }
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_ACCUM:
    per_elem(e, 1, out[0]);
    break;
  case OP_DIV_BWD: per_elem(e, 3, out[0]); break;
  case OP_SUM: case OP_MEAN: case OP_MAX: per_elem(e, 1, in[0]); break;
  case OP_REDUCE_BWD: per_elem(e, p->attr[0] == OP_SUM ? 0 : 1, out[0]); break;
  case OP_SOFTMAX: case OP_LOGSOFTMAX: per_elem(e, 3, in[0]); break;
  case OP_SOFTMAX_BWD: case OP_LOGSOFTMAX_BWD: per_elem(e, 4, out[0]); break;
  case OP_LAYERNORM: case OP_BATCHNORM: case OP_RMSNORM: {
    int rms = p->type == OP_RMSNORM;
    per_elem(e, rms ? 4 : 6, in[0]);
    cterm *t = term(e, 3);
    if (p->type == OP_BATCHNORM) facdim(t, g->t[in[0]].dims[1]);
    else facdims(t, g, in[0], 0, g->t[in[0]].ndims - 1);
    break;
  }
  case OP_NORM_BWD: { /* (dy, x, gamma, stats) -> dx, dgamma[, dbeta]; attr[0] fwd type */
    int rms = p->attr[0] == OP_RMSNORM;
    per_elem(e, rms ? 7 : 10, in[1]);
    cterm *t = term(e, rms ? 4 : 5);
    if (p->attr[0] == OP_BATCHNORM) facdim(t, g->t[in[1]].dims[1]);
    else facdims(t, g, in[1], 0, g->t[in[1]].ndims - 1);
    break;
  }
  case OP_EMBEDDING_BWD: per_elem(e, 1, in[0]); break;
  case OP_XENT: per_elem(e, 4, in[0]); break;
  case OP_XENT_BWD: per_elem(e, 2, out[0]); break;
  case OP_MSE: per_elem(e, 3, in[0]); break;
  case OP_MSE_BWD: per_elem(e, 2, out[0]); break;
  case OP_CTC: case OP_CTC_BWD: { /* lattice [B, T, 2S+1] is output 1 / input 1 */
    int logits = p->type == OP_CTC ? in[0] : out[0];
    int lat = p->type == OP_CTC ? out[1] : in[1];
    per_elem(e, p->type == OP_CTC ? 3 : 2, logits);
    per_elem(e, 3, lat);
    break;
  }
  case OP_UNARY_BWD: per_elem(e, unary_bwd(p->attr[0]), out[0]); break;
  case OP_UPDATE: per_elem(e, dlb_optimizer_update_flops(p->attr[0]) + (p->attr[2] ? 1 : 0), in[0]); break;
  case OP_KERNEL: given(e, g, g->args[p->extra]); break;
  default:
    if (dlb_op_is_unary(p->type)) per_elem(e, unary_fwd(p->type), out[0]);
    break; /* data movement: 0 FLOPs */
  }
}

/* Workspace rules (docs/graph.md "Workspace"). Scratch memory an op needs only while it
** runs, as an extra output of role workspace without consumers, so the footprint counts it
** during that op alone (category workspace). It is not algorithmic traffic: dlb_op_bytes skips
** it.
**   softmax, log_softmax, softmax_xent: the row maximum and the row sum of exponentials,
**     2 fp32 per row (rows = the elements of all but the last axis);
**   norm backward (layer, RMS, batch): the two per-row (per-channel) reductions of the
**     gradient (sum dy and sum dy*xhat), 2 fp32 per row (channel), shaped like the saved
**     statistics;
**   conv2d and its data and filter gradients with attr[7] = 1 (workspace = "im2col"): the
**     column matrix of the implicit GEMM, N*Ho*Wo x Cin*KH*KW elements at the input's type
**     (the default, attr[7] = 0, is a direct or implicit-GEMM algorithm without one).
** Dropout keeps its mask until the backward pass (an activation, not workspace). */
int dlb_op_workspace(dlb_graph *g, int o) {
  const op *p = &g->o[o];
  const int32_t *in = op_in(g, p), *out = op_out(g, p);
  int32_t d[DLB_GRAPH_MAXRANK];
  int nd = 0;
  switch (p->type) {
  case OP_SOFTMAX: case OP_LOGSOFTMAX: case OP_XENT: {
    const tensor *X = &g->t[in[0]];
    if (X->ndims < 1 || X->ndims > DLB_GRAPH_MAXRANK) return DLB_OK;
    nd = X->ndims - 1;
    memcpy(d, X->dims, (size_t)nd * sizeof *d);
    int two = dlb_dim_const(g, 2);
    if (two < 0) return two;
    d[nd++] = two;
    break;
  }
  case OP_NORM_BWD: { /* (dy, x, gamma, stats) */
    const tensor *S = &g->t[in[3]];
    nd = S->ndims;
    memcpy(d, S->dims, (size_t)nd * sizeof *d);
    break;
  }
  case OP_CONV: case OP_CONV_BWD_DATA: case OP_CONV_BWD_FILTER: {
    if (p->attr[7] != 1) return DLB_OK;
    int x, w, y;
    if (p->type == OP_CONV) x = in[0], w = in[1], y = out[0];
    else if (p->type == OP_CONV_BWD_DATA) x = out[0], w = in[1], y = in[0];
    else x = in[0], w = out[0], y = in[1];
    const tensor *X = &g->t[x], *W = &g->t[w], *Y = &g->t[y];
    int sp = Y->ndims - 2;
    d[nd++] = Y->dims[0];                                  /* N */
    for (int i = 0; i < sp; i++) d[nd++] = Y->dims[2 + i]; /* Ho, Wo */
    d[nd++] = X->dims[1];                                  /* Cin */
    for (int i = 0; i < sp; i++) d[nd++] = W->dims[2 + i]; /* KH, KW */
    int dt = X->flags & TF_DTYPE_SET ? X->dtype : DLB_DT_DEFAULT;
    int t = dlb_add_workspace(g, o, nd, d, dt);
    return t < 0 ? t : DLB_OK;
  }
  default:
    return DLB_OK;
  }
  int t = dlb_add_workspace(g, o, nd, d, DLB_DT_FP32);
  return t < 0 ? t : DLB_OK;
}

void dlb_op_bytes(const dlb_graph *g, int o, bytes_fn add, void *c) {
  const op *p = &g->o[o];
  const int32_t *in = op_in(g, p), *out = op_out(g, p);
  int nout = p->nout;
  if (nout && g->t[out[nout - 1]].role == DLB_ROLE_WORKSPACE) nout--; /* scratch: not traffic */
  switch (p->type) {
  case OP_RESHAPE: return; /* moves nothing */
  case OP_EMBEDDING: /* ids, the gathered rows, the output */
    add(c, in[0], 1);
    add(c, out[0], 2);
    return;
  case OP_EMBEDDING_BWD: /* (dy, ids) -> rows of dtable: read dy, ids; write rows */
    add(c, in[0], 2);
    add(c, in[1], 1);
    return;
  case OP_UPDATE: /* w, grad, states...: read all, write w and states */
    for (int i = 0; i < p->nin; i++) add(c, in[i], i == 1 ? 1 : 2);
    return;
  case OP_NORM_BWD:
    if (p->nin == 5) { /* an eager RMSNorm's (dy, x or its fp32 copy, gamma, stats, x_normed):
                       ** the algorithmic backward's reads, x standing as x_normed (x's shape
                       ** and type) where the saved input is the fp32 copy (TF_SAVED) */
      add(c, in[0], 1);
      add(c, g->t[in[1]].flags & TF_SAVED ? in[4] : in[1], 1);
      add(c, in[2], 1);
      add(c, in[3], 1);
      for (int i = 0; i < nout; i++) add(c, out[i], 1);
      return;
    }
    /* fall through */
  default: /* saved copies (TF_SAVED) are memory, not traffic */
    for (int i = 0; i < p->nin; i++)
      if (!(g->t[in[i]].flags & TF_SAVED)) add(c, in[i], 1);
    for (int i = 0; i < nout; i++)
      if (!(g->t[out[i]].flags & TF_SAVED)) add(c, out[i], 1);
  }
}

int dlb_op_bytes_given(const dlb_graph *g, int o, cexpr *e) {
  const op *p = &g->o[o];
  e->n = 0;
  if (p->type != OP_KERNEL) return 0;
  given(e, g, g->args[p->extra + 1]);
  return 1;
}

int dlb_op_gemm(const dlb_graph *g, int o, cexpr *m) {
  const op *p = &g->o[o];
  const int32_t *in = op_in(g, p), *out = op_out(g, p);
  for (int i = 0; i < 4; i++) m[i].n = 0;
  if (p->type == OP_KERNEL) {
    if (!p->attr[1]) return 0;
    for (int i = 0; i < 4; i++) given(&m[i], g, g->args[p->extra + 2 + i]);
    return 1;
  }
  if (p->type == OP_MATMUL) {
    const tensor *A = &g->t[in[0]], *B = &g->t[in[1]];
    int ra = A->ndims;
    cterm *t = term(&m[0], 1);
    facdim(t, A->dims[ra - (p->attr[0] ? 1 : 2)]);
    if (B->ndims == 2) facdims(t, g, in[0], 0, ra - 2); /* batch folded into M */
    facdim(term(&m[1], 1), B->dims[B->ndims - (p->attr[1] ? 2 : 1)]);
    facdim(term(&m[2], 1), A->dims[ra - (p->attr[0] ? 2 : 1)]);
    t = term(&m[3], 1);
    if (B->ndims > 2) /* batched b (a 2-D a only in the backward of transpose_a) */
      facdims(t, g, ra > 2 ? in[0] : in[1], 0, (ra > 2 ? ra : B->ndims) - 2);
    return 1;
  }
  if (p->type != OP_CONV && p->type != OP_CONV_BWD_DATA && p->type != OP_CONV_BWD_FILTER)
    return 0;
  int x, w, y;
  if (p->type == OP_CONV) x = in[0], w = in[1], y = out[0];
  else if (p->type == OP_CONV_BWD_DATA) x = out[0], w = in[1], y = in[0];
  else x = in[0], w = out[0], y = in[1];
  double gr = p->attr[6] ? p->attr[6] : 1;
  const tensor *W = &g->t[w], *Y = &g->t[y], *X = &g->t[x];
  cterm *npix = NULL, *cout = NULL, *kk = NULL;
  /* forward: m = N*Ho*Wo, n = Cout/g, k = Cin/g*KH*KW; data grad: m = N*H*W,
  ** n = Cin/g, k = Cout/g*KH*KW; filter grad: m = Cout/g, n = Cin/g*KH*KW, k = N*Ho*Wo */
  if (p->type == OP_CONV) {
    npix = term(&m[0], 1), cout = term(&m[1], 1 / gr), kk = term(&m[2], 1);
    facdim(npix, Y->dims[0]); facdims(npix, g, y, 2, Y->ndims);
    facdim(cout, W->dims[0]);
    facdims(kk, g, w, 1, W->ndims);
  } else if (p->type == OP_CONV_BWD_DATA) {
    npix = term(&m[0], 1), cout = term(&m[1], 1), kk = term(&m[2], 1 / gr);
    facdim(npix, X->dims[0]); facdims(npix, g, x, 2, X->ndims);
    facdim(cout, W->dims[1]);
    facdim(kk, W->dims[0]); facdims(kk, g, w, 2, W->ndims);
  } else {
    cout = term(&m[0], 1 / gr), kk = term(&m[1], 1), npix = term(&m[2], 1);
    facdim(cout, W->dims[0]);
    facdims(kk, g, w, 1, W->ndims);
    facdim(npix, Y->dims[0]); facdims(npix, g, y, 2, Y->ndims);
  }
  term(&m[3], gr);
  return 1;
}
