/*
** onnx_impl.h — state shared by the ONNX importer (onnx.c: file, values, inputs, loss,
** report; onnx_ops.c: the operator table). Not part of the public interface.
**
** Every ONNX value (graph input, initializer, node output) is an `oval`: either a tensor of
** the dlbench graph, or a constant known at import time (initializers, Constant nodes and
** everything computed from them and from shapes: Shape/Gather/Concat/... are evaluated
** here). A constant carries its dims and, when it is small enough, its values as interned
** dims of the graph (so a value may be symbolic: Shape of a [batch, 3, 224, 224] input is
** {batch, 3, 224, 224}). A float initializer becomes a weight when an op uses it as a
** tensor; running statistics of BatchNormalization are counted, not made weights.
*/
#ifndef ONNX_IMPL_H
#define ONNX_IMPL_H

#include <stdint.h>

#include "dlb_onnx.h"
#include "graph_impl.h"
#include "onnx.pb-c.h"

enum { OV_UNSET = 0, OV_TENSOR = 1, OV_CONST = 2 };
enum { ONNX_MAXVALS = 4096 };  /* constants with more elements keep only their dims */
/* The wire check before unpacking (onnx_wire.c, docs/security.md): message nesting, and
** the memory unpacking may take besides tensor data. */
enum { ONNX_WIRE_MAXDEPTH = 64, ONNX_WIRE_MAXMEM = 256 << 20 };
enum { ONNX_MAXOPSET = 100 };  /* the default domain's opset: 1..100 (23 in 2025) */
enum { ONNX_TRI_LOWER = 1, ONNX_TRI_UPPER = 2 };  /* oval.tri: a triangular mask (onnx_mask.c) */
/* Refuse what protobuf-c must not see: nesting past ONNX_WIRE_MAXDEPTH, NUL bytes in
** strings, names over 511 bytes, groups, malformed lengths, unpacking past
** ONNX_WIRE_MAXMEM; file names the input in the message. */
int dlb_onnx_wire_check(const void *data, size_t size, const char *file);

typedef struct oval {
  const char *name;      /* borrowed from the parsed model */
  int state;             /* OV_* */
  int t;                 /* graph tensor (a tensor, or a materialised constant), -1 */
  int weight;            /* a float initializer: becomes a weight when used as a tensor */
  int elem;              /* ONNX element type (1 float, 7 int64 ...) */
  int nd;
  int32_t d[DLB_GRAPH_MAXRANK];
  int nv;                /* number of known values (= elements), 0: unknown */
  int32_t v;             /* offset of the values (dim ids) in the pool */
  int pad[4];            /* pending spatial pads of a Pad node (h0, w0, h1, w1) */
  int haspad;
  int trans;             /* a Transpose of the last two axes read only by MatMul / Gemm as
                            an operand: t is the untransposed tensor, d the transposed dims,
                            the consumer's transpose flag (onnx_ops.c transpose) */
  /* a constant's mask properties, read from its data and carried through the ops that
  ** move masks (onnx_mask.c; docs/import.md "Causal attention") */
  int tri, trik;         /* ONNX_TRI_*: over the last two axes (row i, column j) the nonzero
                            elements are exactly those with j - i <= trik (LOWER) or
                            j - i >= trik (UPPER), in every leading slice; 0: not known */
  int allnz;             /* every element is nonzero */
  int neg;               /* every nonzero element is <= ONNX_MASK_NEG (a mask's fill) */
  int iota, ioff;        /* iota > 0: the values are index + ioff along axis nd - iota and
                            the same along every other axis (a Range from a constant) */
} oval;

typedef struct onnx_rep {
  char *text;
  int kind;              /* DLB_ONNX_R_* */
  double count;
} onnx_rep;

struct dlb_onnx {
  Onnx__ModelProto *model;
  dlb_graph *g;
  oval *val;
  size_t nval, capval;
  int32_t *slot;         /* open addressing name -> value index, -1 empty */
  size_t nslot;
  int32_t *pool;         /* constant values */
  size_t npool, cappool;
  onnx_rep *rep;
  size_t nrep, caprep;
  int opset, unknown, loss;
  const char *file;      /* for messages */
  const Onnx__NodeProto *node;  /* the node being imported (messages) */
  size_t nodei;
  double facts[DLB_ONNX_NFACTS];
  struct dlb_onnx_uses *uses;   /* consumers of each value (onnx_fuse.c) */
  unsigned char *done;          /* nodes imported as part of a fused pattern */
};

/* -- onnx.c -- */
/* The value called name, or NULL. */
oval *dlb_onnx_find(dlb_onnx *m, const char *name);
/* A new (or reset) value called name. NULL on OOM. */
oval *dlb_onnx_def(dlb_onnx *m, const char *name);
/* Fail with "onnx 'file': node i 'name' (Type): message". */
int dlb_onnx_fail(dlb_onnx *m, int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
/* Add a report entry. */
int dlb_onnx_note(dlb_onnx *m, int kind, double count, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;
/* Room for n constant values; returns the pool offset or <0. */
int dlb_onnx_pool(dlb_onnx *m, size_t n);
/* The graph tensor of a value (materialising a constant: a weight for float initializers,
** else a source of role activation). <0 with an error. */
int dlb_onnx_tensor(dlb_onnx *m, oval *v);
/* Is elem a floating-point ONNX element type. */
int dlb_onnx_isfloat(int elem);
/* The dims of a value from the file's value_info or graph outputs into d; the rank, or
** DLB_ENOTFOUND when the file gives no full shape (or, without newsyms, names a dim_param
** the graph has no symbol for), or <0 for a malformed one. */
int dlb_onnx_vi_dims(dlb_onnx *m, const char *name, int32_t *d, int newsyms);
/* Fill constant v from a TensorProto (dims; values of small tensors with data); weights:
** a float tensor of more than one element becomes a weight when used. */
int dlb_onnx_const_tensor(dlb_onnx *m, oval *v, const Onnx__TensorProto *tp, int weights);
/* The dim of ValueInfo dimension p (a value, or a symbol from dim_param). */
int dlb_onnx_dim(dlb_onnx *m, const Onnx__TensorShapeProto__Dimension *p, const char *what, int i);

/* -- onnx_mask.c: a causal attention mask (docs/import.md "Causal attention") -- */
/* A mask's fill: an additive mask's masked entries and Where's fill value are at most this
** (Hugging Face: torch.finfo(dtype).min, -inf, or -10000.0 in older modeling_bert.py). */
#define ONNX_MASK_NEG (-1e4)
/* v's mask properties (tri, allnz, neg) from tensor tp's data (none when it has none);
** fill_only: only an additive mask (every element 0 or a fill) gets any, so a float
** initializer's scan ends at its first other value. */
void dlb_onnx_mask_scan(oval *v, const Onnx__TensorProto *tp, int fill_only);
/* out (a constant computed from in by a reshape, Unsqueeze, Squeeze or Expand) keeps the
** properties that survive it. */
void dlb_onnx_mask_redim(oval *out, const oval *in);
/* out = in[start:...] (per axis: touched, a known start or -1, the step). */
void dlb_onnx_mask_slice(oval *out, const oval *in, const int *touched, const int64_t *start,
                         const int64_t *step);
/* Cast of v's values from `from` to `to` (ONNX element types), in place. */
void dlb_onnx_mask_cast(oval *v, int from, int to);
/* out = Not(in); out = Trilu(in, upper, k) (k NaN when not known). */
void dlb_onnx_mask_not(oval *out, const oval *in);
void dlb_onnx_mask_trilu(oval *out, const oval *in, int upper, double k);
/* out = Where(c, a, b) of constants; out = op(a, b) of constants (Add/Sub of a scalar to an
** iota, comparisons of two iotas); out = Range(start, limit, 1). */
void dlb_onnx_mask_where(dlb_onnx *m, oval *out, const oval *c, const oval *a, const oval *b);
void dlb_onnx_mask_binary(dlb_onnx *m, oval *out, const char *op, const oval *a, const oval *b);
void dlb_onnx_mask_range(oval *out, double start);
/* Whether Where(c, a, b) with one tensor branch (the scores) applies a causal mask: c keeps
** j <= i (or masks j > i with the fill in a); the fill is a mask fill; c spans the last two
** dims d[nd - 2], d[nd - 1] of the result. Add(scores, mask): the mask masks exactly j > i
** with fills. */
int dlb_onnx_mask_causal_where(const dlb_onnx *m, const oval *c, const oval *a, const oval *b, int nd,
                               const int32_t *d);
int dlb_onnx_mask_causal_add(const oval *mask, int nd, const int32_t *d);
/* Mark graph tensor t (the masked scores) as the output of a causal mask (TF_CAUSAL). */
void dlb_onnx_mask_mark(dlb_onnx *m, int t);

/* -- onnx_fuse.c -- */
/* Count the consumers of every value (for pattern matching). */
int dlb_onnx_uses_build(dlb_onnx *m);
void dlb_onnx_uses_free(struct dlb_onnx_uses *u);
/* Whether node n's output 0 is read only as operand A or B of MatMul / Gemm nodes (at most
** two reads, no graph output): ORT's MatmulTransposeFusion's condition (onnx_ops.c transpose). */
int dlb_onnx_only_gemm_operand(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_shape_only(dlb_onnx *m, const Onnx__NodeProto *n);
/* At ReduceMean node i: a spelled-out LayerNorm chain becomes one layernorm op (its nodes
** are marked done). 1 fused, 0 no match, <0 error. */
int dlb_onnx_fuse_layernorm(dlb_onnx *m, size_t i);

/* -- onnx_ops.c -- */
typedef int (*onnx_fn)(dlb_onnx *m, const Onnx__NodeProto *n);
/* The handler of an op type of the default domain, or NULL (unsupported). */
onnx_fn dlb_onnx_handler(const char *op_type);
/* Cost an unsupported node as an element-wise op (unknown = "skip"). */
int dlb_onnx_skip(dlb_onnx *m, const Onnx__NodeProto *n);

/* -- onnx_node.c: helpers of the handlers -- */
oval *dlb_onnx_in(dlb_onnx *m, const Onnx__NodeProto *n, size_t i);
int dlb_onnx_need(dlb_onnx *m, const Onnx__NodeProto *n, size_t i, oval **out);
const Onnx__AttributeProto *dlb_onnx_attr(const Onnx__NodeProto *n, const char *name);
int64_t dlb_onnx_aint(const Onnx__NodeProto *n, const char *name, int64_t def);
double dlb_onnx_afloat(const Onnx__NodeProto *n, const char *name, double def);
size_t dlb_onnx_aints(const Onnx__NodeProto *n, const char *name, const int64_t **p);
int dlb_onnx_astr(const Onnx__NodeProto *n, const char *name, const char *s);
oval *dlb_onnx_outv(dlb_onnx *m, const Onnx__NodeProto *n, size_t i);
int dlb_onnx_set_t(dlb_onnx *m, const Onnx__NodeProto *n, size_t i, int t, int elem);
oval *dlb_onnx_set_c(dlb_onnx *m, const Onnx__NodeProto *n, size_t i, int nd, const int32_t *d,
                   int nv, int elem);
int dlb_onnx_mk(dlb_onnx *m, const Onnx__NodeProto *n, int type, const char *suffix, size_t nin,
              const int *ins, size_t nattr, const int *attrs, size_t ndims, const int32_t *dims);
int dlb_onnx_first(dlb_onnx *m, int o);
int dlb_onnx_op1(dlb_onnx *m, const Onnx__NodeProto *n, int type, const char *sfx, int x);
int dlb_onnx_op2(dlb_onnx *m, const Onnx__NodeProto *n, int type, const char *sfx, int a, int b);
int dlb_onnx_reshape(dlb_onnx *m, const Onnx__NodeProto *n, const char *sfx, int x, int nd,
                   const int32_t *d);
int dlb_onnx_slice(dlb_onnx *m, const Onnx__NodeProto *n, const char *sfx, int x, int axis0,
                 int start, int32_t len);
int dlb_onnx_tens(dlb_onnx *m, oval *v);
double dlb_onnx_numel_const(dlb_onnx *m, const oval *v, int *ok);
int dlb_onnx_scalar_const(dlb_onnx *m, const oval *v);
int dlb_onnx_ivals(dlb_onnx *m, const oval *v, int64_t *out, int max, const char *what);
int dlb_onnx_dvals(dlb_onnx *m, const oval *v, int32_t *out, const char *what);
int dlb_onnx_ddiv(dlb_onnx *m, int a, int b, const char *what);
int dlb_onnx_dprod(dlb_onnx *m, int nd, const int32_t *d);
int dlb_onnx_bcast(dlb_onnx *m, int na, const int32_t *a, int nb, const int32_t *b, int32_t *out);
int dlb_onnx_axis0(dlb_onnx *m, int64_t a, int r, int *out);
int dlb_onnx_alias(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_source(dlb_onnx *m, const Onnx__NodeProto *n, const char *what, int nd, const int32_t *d);
int64_t dlb_onnx_i64(double x);
int dlb_onnx_ints_or(const Onnx__NodeProto *n, const char *name, int sp, int64_t def, int64_t *out);

/* -- onnx_layers.c: handlers -- */
int dlb_onnx_op_matmul(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_op_gemm(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_op_conv(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_op_pool(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_op_pad(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_op_batchnorm(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_op_layernorm(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_op_recurrent(dlb_onnx *m, const Onnx__NodeProto *n);
/* -- onnx_index.c: handlers -- */
int dlb_onnx_op_slice(dlb_onnx *m, const Onnx__NodeProto *n);
int dlb_onnx_op_gather(dlb_onnx *m, const Onnx__NodeProto *n);

#endif
