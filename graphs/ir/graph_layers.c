/*
** graph_layers.c — whole layers in one call: the weights and ops of the layer helpers of
** lua/dlbench/nn.lua (linear, conv, norms, embedding, LSTM/GRU/RNN cell steps, highway
** sublayers). Each function makes exactly the tensors and ops, in the same order, with the
** same names, dims and attributes, as the op-by-op construction in nn.lua does through
** dlb_graph_tensor and dlb_graph_op (tests/lua/test_graph_layers.lua builds each both
** ways and compares), so FLOPs, parameters and footprints are identical; it only saves
** the per-op cost of the host language (a Lua call and a tensor object per op).
** On failure nothing of the layer remains in the graph.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

/* The state to roll back to when a layer fails half-way. */
typedef struct mark { size_t nt, no, nargs; } mark;

static mark getmark(const dlb_graph *g) {
  mark m = {g->nt, g->no, g->nargs};
  return m;
}

static int rollback(dlb_graph *g, mark m, int rc) {
  g->nt = m.nt, g->no = m.no, g->nargs = m.nargs;
  g->version++;
  return rc;
}

static int checkt(const dlb_graph *g, int t, const char *what, const char *arg) {
  if (t < 0 || (size_t)t >= g->nt)
    return dlb_fail(DLB_EINVAL, "%s: %s is not a tensor of graph '%s'", what, arg, g->str + g->name);
  return DLB_OK;
}

/* "<prefix><suffix>" in buf (room for `size`) or in a new block; NULL without memory. */
static char *cat(char *buf, size_t size, const char *prefix, const char *suffix) {
  size_t lp = strlen(prefix), ls = strlen(suffix);
  if (lp + ls + 1 > size) {
    buf = dlb_malloc(lp + ls + 1);
    if (!buf) return NULL;
  }
  memcpy(buf, prefix, lp);
  memcpy(buf + lp, suffix, ls + 1);
  return buf;
}

/* A weight "<prefix><suffix>" with dims as text (through dlb_graph_tensor, as g:weight). */
static int weight(dlb_graph *g, const char *prefix, const char *suffix, size_t nd,
                  const char *const *dims, int *id) {
  char small[256], *buf = cat(small, sizeof small, prefix, suffix);
  if (!buf) return dlb_fail(DLB_ENOMEM, "graph: out of memory");
  int rc = dlb_graph_tensor(g, buf, DLB_ROLE_WEIGHT, DLB_DT_DEFAULT, nd, dims, id);
  if (buf != small) dlb_free(buf);
  return rc;
}

/* A weight "<prefix><suffix>" with dims given as interned dim ids, which must be valid
** dims of tensors (so the text round trip of g:weight(name, t:dims()) gives the same ids:
** dims are hash-consed canonical polynomials). */
static int weight_ids(dlb_graph *g, const char *prefix, const char *suffix, int nd,
                      const int32_t *dims, int *id) {
  char small[256], *buf = cat(small, sizeof small, prefix, suffix);
  if (!buf) return dlb_fail(DLB_ENOMEM, "graph: out of memory");
  int32_t s = dlb_gstr(g, buf);
  if (buf != small) dlb_free(buf);
  if (s < 0) return dlb_fail(DLB_ENOMEM, "graph: out of memory");
  int t = dlb_new_tensor(g, s, nd, dims, DLB_DT_DEFAULT, DLB_ROLE_WEIGHT);
  if (t < 0) return t;
  *id = t;
  return DLB_OK;
}

/* Dim `text` of a new weight "<prefix><suffix>" (dim i, 1-based), checked as
** dlb_graph_tensor checks it (same messages). */
static int newdim(dlb_graph *g, const char *text, const char *prefix, const char *suffix, int i) {
  int x = dlb_dim_text(g, text);
  if (x < 0) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", dlb_last_error());
    return dlb_fail(dlb_last_status(), "tensor '%s%s' dim %d: %s", prefix, suffix, i, msg);
  }
  double v;
  if (dlb_dim_is_const(g, x, &v) && (v < 1 || v != floor(v)))
    return dlb_fail(DLB_ESHAPE, "tensor '%s%s' dim %d: %s is not a positive integer", prefix, suffix, i, text);
  return x;
}

/* An op with up to two inputs and two attributes, as the Lua fast path (graph_op1) makes
** it; *out receives its first output. */
static int op2(dlb_graph *g, int type, const char *name, int a, int b, int x, int y, int *out) {
  int in[2] = {a, b}, at[2] = {x, y}, outs[8];
  size_t nout;
  *out = -1;
  int rc = dlb_graph_op(g, type, name, b < 0 ? 1 : 2, in, 2, at, 0, NULL, outs, 8, &nout);
  if (rc == DLB_OK) *out = outs[0];
  return rc;
}

/* "<name><suffix>" for op names (into buf of 512). */
static int opname(char *buf, size_t size, const char *name, const char *suffix) {
  size_t ln = strlen(name), ls = strlen(suffix);
  if (ln + ls + 1 > size) return dlb_fail(DLB_EINVAL, "graph: layer name '%.60s...' too long", name);
  memcpy(buf, name, ln);
  memcpy(buf + ln, suffix, ls + 1);
  return DLB_OK;
}

static int checkname(const dlb_graph *g, const char *name, const char *what) {
  if (!name || !*name) return dlb_fail(DLB_EINVAL, "%s: a layer needs a name (graph '%s')", what, g->str + g->name);
  return DLB_OK;
}

#define TRY(e) do { int rc_ = (e); if (rc_ < 0) return rollback(g, m, rc_); } while (0)

/* nn.linear: w [last(x), nout] ("<name>/w"), y = x w (op "<name>"), and with bias
** b [nout] ("<name>/b"), y + b (op "<name>/bias"). */
int dlb_graph_linear(dlb_graph *g, int x, const char *nout, int bias, const char *name, int *out) {
  int rc = checkname(g, name, "linear");
  if (rc == DLB_OK) rc = checkt(g, x, "linear", "x");
  if (rc == DLB_OK && !nout) rc = dlb_fail(DLB_EINVAL, "linear '%s': no output size", name);
  if (rc < 0) return rc;
  const tensor *tx = &g->t[x];
  if (tx->ndims == 0) return dlb_fail(DLB_ESHAPE, "linear '%s': x is a scalar", name);
  int32_t wd[2] = {tx->dims[tx->ndims - 1], -1};
  char bn[512];
  int n = newdim(g, nout, name, "/w", 2);
  if (n < 0) return n;
  wd[1] = n;
  mark m = getmark(g);
  int w = -1, b = -1, y = -1;
  TRY(weight_ids(g, name, "/w", 2, wd, &w));
  TRY(op2(g, OP_MATMUL, name, x, w, 0, 0, &y));
  if (bias) {
    TRY(weight_ids(g, name, "/b", 1, wd + 1, &b));
    TRY(opname(bn, sizeof bn, name, "/bias"));
    TRY(op2(g, OP_ADD, bn, y, b, 0, 0, &y));
  }
  *out = y;
  return DLB_OK;
}

/* nn.conv2d / nn.conv1d: w with dims wdims ("<name>/w"; [Cout, C/groups, KH(, KW)]), the
** conv (op "<name>", attrs as dlb_graph_op's conv2d), and with bias b [Cout, 1(, 1)]
** ("<name>/b") added (op "<name>/bias"). */
int dlb_graph_conv(dlb_graph *g, int x, size_t nwdims, const char *const *wdims,
                   const int *attrs, int bias, const char *name, int *out) {
  int rc = checkname(g, name, "conv");
  if (rc == DLB_OK) rc = checkt(g, x, "conv", "x");
  if (rc == DLB_OK && (nwdims < 3 || nwdims > 4))
    rc = dlb_fail(DLB_EINVAL, "conv '%s': the weight needs 3 or 4 dims, got %zu", name, nwdims);
  if (rc < 0) return rc;
  mark m = getmark(g);
  int w = -1, b = -1, y = -1, in[2], outs[8] = {-1};
  size_t nout;
  char bn[512];
  TRY(weight(g, name, "/w", nwdims, wdims, &w));
  in[0] = x, in[1] = w;
  TRY(dlb_graph_op(g, OP_CONV, name, 2, in, 8, attrs, 0, NULL, outs, 8, &nout));
  y = outs[0];
  if (bias) {
    const char *bd[3] = {wdims[0], "1", "1"};
    TRY(weight(g, name, "/b", nwdims - 1, bd, &b));
    TRY(opname(bn, sizeof bn, name, "/bias"));
    TRY(op2(g, OP_ADD, bn, y, b, 0, 0, &y));
  }
  *out = y;
  return DLB_OK;
}

/* nn.batchnorm / nn.layernorm / nn.rmsnorm: "<name>/gamma" (and "<name>/beta", not for
** rmsnorm) over the channel dim (batchnorm: dim 2) or the last dim, and the norm op "<name>".
** type: the op type (dlb_graph_op_type "batchnorm", "layernorm" or "rmsnorm"). */
int dlb_graph_norm(dlb_graph *g, int type, int x, const char *name, int *out) {
  int rc = checkname(g, name, "norm");
  if (rc == DLB_OK && type != OP_BATCHNORM && type != OP_LAYERNORM && type != OP_RMSNORM)
    rc = dlb_fail(DLB_EINVAL, "norm '%s': op type %d is not a norm", name, type);
  if (rc == DLB_OK) rc = checkt(g, x, dlb_op_type_name(type), "x");
  if (rc < 0) return rc;
  const tensor *tx = &g->t[x];
  int axis = type == OP_BATCHNORM ? 1 : tx->ndims - 1;
  if (axis < 0 || axis >= tx->ndims)
    return dlb_fail(DLB_ESHAPE, "%s '%s': x has rank %d", dlb_op_type_name(type), name, tx->ndims);
  int32_t d[1] = {tx->dims[axis]};
  mark m = getmark(g);
  int in[3] = {x, -1, -1}, outs[8];
  size_t nout;
  TRY(weight_ids(g, name, "/gamma", 1, d, &in[1]));
  if (type != OP_RMSNORM) TRY(weight_ids(g, name, "/beta", 1, d, &in[2]));
  TRY(dlb_graph_op(g, type, name, type == OP_RMSNORM ? 2 : 3, in, 0, NULL, 0, NULL, outs, 8, &nout));
  *out = outs[0];
  return DLB_OK;
}

/* nn.embedding: "<name>/table" [vocab, dim] and the lookup op "<name>". */
int dlb_graph_embedding_layer(dlb_graph *g, int ids, const char *vocab, const char *dim,
                              const char *name, int *out) {
  int rc = checkname(g, name, "embedding");
  if (rc == DLB_OK) rc = checkt(g, ids, "embedding", "ids");
  if (rc == DLB_OK && (!vocab || !dim)) rc = dlb_fail(DLB_EINVAL, "embedding '%s': no vocab or dim", name);
  if (rc < 0) return rc;
  mark m = getmark(g);
  const char *d[2] = {vocab, dim};
  int t;
  TRY(weight(g, name, "/table", 2, d, &t));
  TRY(op2(g, OP_EMBEDDING, name, ids, t, 0, 0, out));
  return DLB_OK;
}

/* gates = concat(x, h) w + b (unnamed ops, as nn.lua's gates()). */
static int gates(dlb_graph *g, int x, int h, int w, int b, int *out) {
  int cat, mm;
  int rc = op2(g, OP_CONCAT, NULL, x, h, 2, 0, &cat);
  if (rc == DLB_OK) rc = op2(g, OP_MATMUL, NULL, cat, w, 0, 0, &mm);
  if (rc == DLB_OK) rc = op2(g, OP_ADD, NULL, mm, b, 0, 0, out);
  return rc;
}

static int check4(const dlb_graph *g, const char *what, int n, const int *t, const char *const *names) {
  for (int i = 0; i < n; i++) {
    int rc = checkt(g, t[i], what, names[i]);
    if (rc < 0) return rc;
  }
  return DLB_OK;
}

#define U(type, a, r) TRY(op2(g, type, NULL, a, -1, 0, 0, r))
#define B(type, a, b, r) TRY(op2(g, type, NULL, a, b, 0, 0, r))

/* nn.lstm_cell: gates split in 4 (i, f, g, o) along axis 2; c' = f c + i g, h' = o tanh(c'). */
int dlb_graph_lstm_cell(dlb_graph *g, int x, int h, int c, int w, int b, int *hout, int *cout) {
  static const char *const names[] = {"x", "h", "c", "w", "b"};
  int ts[5] = {x, h, c, w, b};
  int rc = check4(g, "lstm_cell", 5, ts, names);
  if (rc < 0) return rc;
  mark m = getmark(g);
  int z, p0, i, f, gg, o, fc, ig, c2, tc, h2;
  TRY(gates(g, x, h, w, b, &z));
  TRY(op2(g, OP_SPLIT, NULL, z, -1, 2, 4, &p0));
  U(OP_SIGMOID, p0, &i);
  U(OP_SIGMOID, p0 + 1, &f);
  U(OP_TANH, p0 + 2, &gg);
  U(OP_SIGMOID, p0 + 3, &o);
  B(OP_MUL, f, c, &fc);
  B(OP_MUL, i, gg, &ig);
  B(OP_ADD, fc, ig, &c2);
  U(OP_TANH, c2, &tc);
  B(OP_MUL, o, tc, &h2);
  *hout = h2, *cout = c2;
  return DLB_OK;
}

/* nn.gru_cell: r, z = sigmoid(split(gates, 2)); n = tanh(x wn + r (h un) + bn);
** h' = n + z (h - n). */
int dlb_graph_gru_cell(dlb_graph *g, int x, int h, int w, int b, int wn, int un, int bn, int *hout) {
  static const char *const names[] = {"x", "h", "w", "b", "wn", "un", "bn"};
  int ts[7] = {x, h, w, b, wn, un, bn};
  int rc = check4(g, "gru_cell", 7, ts, names);
  if (rc < 0) return rc;
  mark m = getmark(g);
  int z, p0, r, zz, xw, hu, rhu, s1, s2, n, d, zd, h2;
  TRY(gates(g, x, h, w, b, &z));
  TRY(op2(g, OP_SPLIT, NULL, z, -1, 2, 2, &p0));
  U(OP_SIGMOID, p0, &r);
  U(OP_SIGMOID, p0 + 1, &zz);
  B(OP_MATMUL, x, wn, &xw);
  B(OP_MATMUL, h, un, &hu);
  B(OP_MUL, r, hu, &rhu);
  B(OP_ADD, xw, rhu, &s1);
  B(OP_ADD, s1, bn, &s2);
  U(OP_TANH, s2, &n);
  B(OP_SUB, h, n, &d);
  B(OP_MUL, zz, d, &zd);
  B(OP_ADD, n, zd, &h2);
  *hout = h2;
  return DLB_OK;
}

/* nn.rnn_cell: h' = tanh(concat(x, h) w + b). */
int dlb_graph_rnn_cell(dlb_graph *g, int x, int h, int w, int b, int *hout) {
  static const char *const names[] = {"x", "h", "w", "b"};
  int ts[4] = {x, h, w, b};
  int rc = check4(g, "rnn_cell", 4, ts, names);
  if (rc < 0) return rc;
  mark m = getmark(g);
  int z;
  TRY(gates(g, x, h, w, b, &z));
  U(OP_TANH, z, hout);
  return DLB_OK;
}

/* One highway sublayer of nn.rhn: in = concat(x, s) (x >= 0) or s; h, t = split(in w + b, 2);
** s' = s + sigmoid(t) (tanh(h) - s) (a coupled carry gate). */
int dlb_graph_highway(dlb_graph *g, int x, int s, int w, int b, int *out) {
  static const char *const names[] = {"s", "w", "b"};
  int ts[3] = {s, w, b};
  int rc = check4(g, "highway", 3, ts, names);
  if (rc == DLB_OK && x >= 0) rc = checkt(g, x, "highway", "x");
  if (rc < 0) return rc;
  mark m = getmark(g);
  int in = s, mm, z, p0, hh, tg, d, td, s2;
  if (x >= 0) TRY(op2(g, OP_CONCAT, NULL, x, s, 2, 0, &in));
  B(OP_MATMUL, in, w, &mm);
  B(OP_ADD, mm, b, &z);
  TRY(op2(g, OP_SPLIT, NULL, z, -1, 2, 2, &p0));
  U(OP_TANH, p0, &hh);
  U(OP_SIGMOID, p0 + 1, &tg);
  B(OP_SUB, hh, s, &d);
  B(OP_MUL, tg, d, &td);
  B(OP_ADD, s, td, &s2);
  *out = s2;
  return DLB_OK;
}
