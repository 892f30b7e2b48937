/*
** fusion.c — fusion passes over an analysed training step (g:stats{fuse = {...}}): each
** moves the costs of fused ops into one op (the fused kernel) and marks the tensors a fused
** kernel never writes to memory as taking no bytes, so the traffic, the kernel count and
** the footprint all follow. The unfused algorithmic graph stays the default.
**
** - attention (FlashAttention; Dao et al. 2022, "FlashAttention: Fast and Memory-Efficient
**   Exact Attention with IO-Awareness", sec. 3.1 and Theorem 2; fusion_attention.c): the forward chain
**   scores = Q K^T -> scale -> softmax -> [dropout] -> P V becomes one kernel that reads
**   Q, K, V and writes O: no s x s tensor in memory or in traffic. Its backward becomes
**   one kernel reading Q, K, V, O, dO and writing dQ, dK, dV, and it recomputes the
**   scores and the softmax (their forward FLOPs, counted as recompute FLOPs).
** - elementwise (XLA-style loop fusion; ParaDnn's TPUs ran XLA, seeds/004 sec. 2): an
**   elementwise op whose output has exactly one consumer, an elementwise op or a reduction
**   (softmax, norms, sums) of the same phase, is fused into it, and so is a norm whose
**   output only feeds an elementwise op (batch-norm + ReLU): the intermediate is never
**   written nor read back. Two fused kernels of Megatron-LM beyond that rule (issue [19]
**   megatron audit): a bias add into GELU / SiLU whose backward recomputes the sum
**   (bias_act), and the scale's gradient as the softmax backward's epilogue
**   (softmax_scale_bwd).
** - optimizer (fused / multi-tensor optimizers, e.g. apex FusedAdam, PyTorch foreach): the
**   update ops of one layer run as one kernel; their traffic is unchanged.
** - the optimizer's implementation (update_impl below): the traffic of an Adam / AdamW
**   update is one pass over each tensor (a fused kernel) unless the step runs PyTorch's
**   foreach sequence or a per-parameter loop of elementwise ops; gradient clipping adds
**   its passes over the gradient.
** - the trainer's language-model train metrics and the loss as Megatron-LM's vocab-parallel
**   cross-entropy over fp32 logits (graphs/step/fusion_loss.c): a stack's eager ops around
**   the loss, their bytes and their further host ops and kernels counted on it.
** - an attention block's Q, K and V projections as one GEMM h -> 3h (qkv below), and q, k, v
**   as strided views of its output (qkv_views).
*/
#include <stdlib.h>
#include <string.h>

#include "graph_impl.h"
#include "dlb_runtime.h"
#include "fusion_impl.h"

static int elementwise(int t) {
  switch (t) {
  case OP_RELU: case OP_SIGMOID: case OP_TANH: case OP_GELU: case OP_SILU: case OP_EXP:
  case OP_LOG: case OP_SQRT: case OP_DROPOUT: case OP_NEG: case OP_SCALE: case OP_CAST:
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_UNARY_BWD: case OP_DIV_BWD:
  case OP_ACCUM:
    return 1;
  default:
    return 0;
  }
}

/* A producer that fuses into an elementwise consumer: elementwise ops, and the norms whose
** output feeds an activation (cuDNN's fused batch-norm + ReLU, XLA's fusion of a norm with
** the elementwise ops after it). */
static int fusible_producer(int t) {
  return elementwise(t) || t == OP_BATCHNORM || t == OP_LAYERNORM || t == OP_RMSNORM;
}

/* A consumer an elementwise producer fuses into: elementwise ops and reductions. */
static int fusible_consumer(int t) {
  if (elementwise(t)) return 1;
  switch (t) {
  case OP_SOFTMAX: case OP_LOGSOFTMAX: case OP_LAYERNORM: case OP_RMSNORM: case OP_SUM:
  case OP_MEAN: case OP_MAX: case OP_SOFTMAX_BWD: case OP_NORM_BWD: case OP_REDUCE_BWD:
    return 1;
  default:
    return 0;
  }
}

/* the fusion passes' shared state (fusion_impl.h) */
typedef fuse_ctx ctx;

/* Move op i's costs into op k, less the write and read of t between them that the fused
** kernel no longer makes. */
static void merge(ctx *c, int i, int k, int t) {
  double b = c->bytes[k] + c->bytes[i] - 2 * c->size0[t];
  c->flops[k] += c->flops[i];
  c->bytes[k] = b > 0 ? b : 0;
  c->flops[i] = c->bytes[i] = 0;
}

/* Whether op q reads tensor t. */
static int reads(const dlb_graph *s, const op *q, int t) {
  const int32_t *in = op_in(s, q);
  for (int j = 0; j < q->nin; j++) if (in[j] == t) return 1;
  return 0;
}

/* Bias + activation (Megatron-LM's fused bias-GeLU: megatron/model/fused_bias_gelu.py,
** GeLUFunction saves the GEMM output and the bias, its forward bias_gelu computes
** gelu(y + b) in one kernel and its backward bias_gelu_back recomputes y + b; Narayanan et al.
** 2021 sec. 4.2): an add of a bias (one operand a weight) whose output t is read by one GELU
** or SiLU of its phase and otherwise only by that activation's backward (which reads t as
** the activation's input) fuses into the activation, though t has two consumers: the sum is
** never written, the backward reads the add's other operand instead (the same size). Decided
** from the graph's structure only (the compiled sweep applies the pass monomial by
** monomial). Returns the activation op, or -1. */
static int bias_act(const ctx *c, int i, int t) {
  const dlb_graph *s = c->s;
  const op *p = &s->o[i];
  if (p->type != OP_ADD || p->nin != 2) return -1;
  const int32_t *in = op_in(s, p);
  int w0 = s->t[in[0]].role == DLB_ROLE_WEIGHT, w1 = s->t[in[1]].role == DLB_ROLE_WEIGHT;
  if (w0 == w1) return -1;
  int k = -1, other[4], no = 0;
  for (size_t j = i + 1; j < s->no; j++) {
    const op *q = &s->o[j];
    if (!reads(s, q, t)) continue;
    if (k < 0 && q->phase == p->phase && (q->type == OP_GELU || q->type == OP_SILU)) k = (int)j;
    else if (no < 4) other[no++] = (int)j;
    else return -1;
  }
  if (k < 0) return -1;
  int kf = s->o[k].phase == DLB_PHASE_RECOMPUTE ? s->o[k].fwd : k;
  for (int j = 0; j < no; j++) {
    const op *q = &s->o[other[j]];
    if (q->type != OP_UNARY_BWD || q->phase != DLB_PHASE_BWD || (q->fwd != k && q->fwd != kf))
      return -1;
  }
  return k;
}

/* The scale of the attention scores inside a fused softmax: Megatron-LM's
** scaled_upper_triang_masked_softmax and scaled_masked_softmax kernels (megatron/fused_kernels;
** FusedScaleMaskSoftmax, megatron/model/fused_softmax.py, as vTrain's src/model/
** fused_softmax.py traces it: ScaledUpperTriangMaskedSoftmax.backward is one kernel call,
** backward(output_grads, softmax_results, scale)) scale their input in the forward and the
** softmax gradient in the backward. The forward's scale fuses into the softmax as an
** elementwise producer; its backward (dx = c dy, the scale's gradient) is a consumer of the
** softmax backward, fused here into it as its epilogue when it is that output's one
** consumer in the same phase. */
static void softmax_scale_bwd(ctx *c) {
  const dlb_graph *s = c->s;
  for (size_t k = 0; k < s->no; k++) {
    const op *q = &s->o[k];
    if (q->type != OP_UNARY_BWD || q->attr[0] != OP_SCALE || q->nin != 1 || q->nout != 1) continue;
    int t = op_in(s, q)[0], i = s->t[t].producer;
    if (i < 0 || c->ncons[t] != 1 || c->sole[t] != (int)k || s->t[t].base != t) continue;
    const op *p = &s->o[i];
    if (p->type != OP_SOFTMAX_BWD || p->phase != q->phase || p->nout != 1) continue;
    /* absorbed by the attention pass already (its fused backward holds both) */
    if (c->bytes[i] == 0 && c->flops[i] == 0 && c->bytes[k] == 0) continue;
    merge(c, (int)k, i, t);
    c->size[t] = 0;
  }
}

/* Whether forward op f (or the forward op of a rerun) is an attention softmax: a softmax
** of a batched matmul's output (the scores Q K^T, a batch of heads), through at most two
** elementwise ops before it (the scale, a mask add). */
static int attention_softmax(const dlb_graph *s, int f) {
  if (f < 0 || (size_t)f >= s->no) return 0;
  const op *p = &s->o[f];
  if (p->phase == DLB_PHASE_RECOMPUTE && p->fwd >= 0) p = &s->o[p->fwd];
  if (p->type != OP_SOFTMAX || p->nin < 1) return 0;
  int t = op_in(s, p)[0];
  for (int n = 0; n < 3; n++) {
    int i = s->t[t].producer;
    if (i < 0) return 0;
    const op *q = &s->o[i];
    if (q->type == OP_MATMUL)
      return q->nin == 2 && s->t[op_in(s, q)[1]].ndims > 2 &&
             s->t[op_in(s, q)[1]].role != DLB_ROLE_WEIGHT;
    if (!elementwise(q->type) || q->nin < 1) return 0;
    t = op_in(s, q)[0];
  }
  return 0;
}

/* A causal decoder's attention softmax as Megatron-LM runs it (DLB_FUSE_SOFTMAX_CAUSAL):
** FusedScaleMaskSoftmax -> ScaledUpperTriangMaskedSoftmax, whose CUDA kernels
** (NVIDIA/Megatron-LM megatron/fused_kernels/scaled_upper_triang_masked_softmax.h, read at
** 2387ce0; vTrain f8dda84 src/model/fused_softmax.py calls the same) handle row r (0-based)
** of a head's s x s scores so:
**   forward: loads its first r + 1 inputs (element_index < local_seq, local_seq = r + 1),
**     writes the whole row (zeros past r): (s + 1) / 2s of the input read, all of the output;
**   backward: loads the first r + 1 of the output gradient and of the probabilities, writes
**     the whole input-gradient row.
** Per 16-bit element: 3 B forward and 4 B backward, against the whole row's 4 and 6; the
** diagonal's share (1 / 2s of the reads: 0.05% at s 1024) is not counted, so the pass stays
** linear in the sizes (the compiled sweep). The kernel takes output_grads as a tensor: the
** attention dropout's backward (torch.nn.Dropout in Megatron's ParallelAttention, its own
** kernel: read dy and the mask, write dx) does not fuse into it (elementwise_chains). Applies
** to forward, rerun and backward softmaxes of attention (attention_softmax), after the
** elementwise pass (the scale fused into the forward, its gradient into the backward). */
static void causal_softmax(ctx *c) {
  const dlb_graph *s = c->s;
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    if (c->kernel[i] == DLB_KERNEL_ATTENTION || (c->bytes[i] == 0 && c->flops[i] == 0)) continue;
    const int32_t *in = op_in(s, p);
    double cut = 0;
    /* half of each read the op counts (a saved copy is memory, not traffic: op_cost.c) */
    int na = p->type == OP_SOFTMAX ? 1 : 2;
    if ((p->type == OP_SOFTMAX && p->nin >= 1 && attention_softmax(s, (int)i)) ||
        (p->type == OP_SOFTMAX_BWD && p->nin == 2 && attention_softmax(s, p->fwd)))
      for (int j = 0; j < na; j++)
        if (!(s->t[in[j]].flags & TF_SAVED)) cut += 0.5 * c->size0[in[j]];
    c->bytes[i] = c->bytes[i] > cut ? c->bytes[i] - cut : 0;
  }
}

static void elementwise_chains(ctx *c) {
  const dlb_graph *s = c->s;
  softmax_scale_bwd(c);
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    if (!fusible_producer(p->type) || p->phase == DLB_PHASE_UPDATE) continue;
    if (c->held && c->held[i]) continue;
    /* one real output (a norm may also write its statistics: those stay) */
    int t = op_out(s, p)[0];
    if (s->t[t].base != t) continue;
    if (c->ncons[t] != 1) {
      /* a bias add into GELU / SiLU: fused, its output's size kept (the activation's
      ** backward reads the add's input, of the same size, in its place) */
      int k = bias_act(c, (int)i, t);
      if (k >= 0) merge(c, (int)i, k, t);
      continue;
    }
    int r = s->t[t].role;
    if (r == DLB_ROLE_WEIGHT || r == DLB_ROLE_OPTSTATE || r == DLB_ROLE_WORKSPACE) continue;
    int k = c->sole[t];
    if (k <= (int)i || s->o[k].phase != p->phase) continue;
    /* a norm fuses only into an elementwise op; an elementwise op into either */
    if (elementwise(p->type) ? !fusible_consumer(s->o[k].type) : !elementwise(s->o[k].type))
      continue;
    /* Megatron's softmax backward kernel takes its gradient from memory (causal_softmax) */
    if (c->causal && s->o[k].type == OP_SOFTMAX_BWD && attention_softmax(s, s->o[k].fwd)) continue;
    if (elementwise(p->type) && p->nout != 1) continue;
    if ((int)t == s->loss) continue;
    merge(c, (int)i, k, t);
    c->size[t] = 0;
  }
}

/* Tensor passes of an AdamW update per implementation, counted from the sources (a pass
** reads or writes one tensor of the parameter's size once; a kernel reading a tensor twice,
** addcmul_(g, g), reads it once). Columns: the parameter (the fp32 master copy under mixed
** precision), the gradient, exp_avg (m), exp_avg_sq (v), and temporaries of v's size.
** fused: read p, g, m, v, write p, m, v (torch._fused_adamw_, apex / DeepSpeed FusedAdam:
**   one kernel) = 7.
** foreach: PyTorch 2.x torch/optim/adamw.py _multi_tensor_adamw (capturable = False):
**   _foreach_mul_(p) p2 | _foreach_lerp_(m, g) m2 g1 | _foreach_mul_(v) v2 |
**   _foreach_addcmul_(v, g, g) v2 g1 | t = _foreach_sqrt(v) v1 t1 | _foreach_div_(t) t2 |
**   _foreach_add_(t, eps) t2 | _foreach_addcdiv_(p, m, t) p2 m1 t1 = 20.
** loop: mosaicml/composer composer/optim/decoupled_weight_decay.py DecoupledAdamW.adamw, per
**   parameter: p.mul_ p2 | m.mul_ m2 | m.add_(g) m2 g1 | v.mul_ v2 | v.addcmul_(g, g) v2 g1 |
**   t = v.sqrt() v1 t1 | t2 = t / c t2 | t2.add_(eps) t2 | p.addcdiv_(m, t2) p2 m1 t1 = 22.
** Adam (no decoupled weight decay) drops the parameter's mul_ (2 passes) in foreach and
** loop. The 16-bit weight of a mixed-precision step keeps its read and write-back. */
static const double IMPL_PASSES[3][5] = {
  /* p  g  m  v  tmp */
  { 2, 1, 2, 2, 0 },   /* fused */
  { 4, 2, 3, 5, 6 },   /* foreach */
  { 4, 2, 5, 5, 6 },   /* loop */
};
/* Gradient clipping (torch.nn.utils.clip_grad_norm_, FSDP's clip_grad_norm_, which Composer's
** GradientClipping calls): the norm reads each gradient once, the in-place scale by the
** clip coefficient (applied unconditionally, no host sync) reads and writes it. */
enum { CLIP_GRAD_PASSES = 3 };

/* The update ops' traffic under the optimizer implementation of `flags` (the bytes were
** counted with the fused passes, dlb_op_bytes: w, states, master read and written, the
** gradient read). Linear in the tensor sizes, as the compiled sweep needs. */
static void update_impl(ctx *c, int flags) {
  const dlb_graph *s = c->s;
  int impl = (flags & DLB_FUSE_OPT_FOREACH) ? 1 : (flags & DLB_FUSE_OPT_LOOP) ? 2 : 0;
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    if (p->type != OP_UPDATE || p->nin < 2) continue;
    const int32_t *in = op_in(s, p);
    double add = 0;
    if (flags & DLB_FUSE_GRAD_CLIP) add += CLIP_GRAD_PASSES * c->size0[in[1]];
    int opt = p->attr[0], nst = p->attr[1], mixed = p->attr[2];
    if (impl && (opt == DLB_OPT_ADAM || opt == DLB_OPT_ADAMW) && nst == 2 &&
        p->nin == 4 + (mixed ? 1 : 0)) {
      const double *f = IMPL_PASSES[0], *n = IMPL_PASSES[impl];
      int P = mixed ? in[4] : in[0];
      double wd = opt == DLB_OPT_ADAM ? 2 : 0; /* Adam: no decoupled weight decay pass */
      add += (n[0] - wd - f[0]) * c->size0[P] + (n[1] - f[1]) * c->size0[in[1]] +
             (n[2] - f[2]) * c->size0[in[2]] + (n[3] - f[3] + n[4]) * c->size0[in[3]];
    }
    c->bytes[i] += add;
  }
}

/* One attention block's Q, K, V projections as Megatron runs them (DLB_FUSE_QKV): one
** ColumnParallelLinear(h, 3h) (NVIDIA/Megatron-LM 2021-22 megatron/model/transformer.py
** ParallelAttention.query_key_value; VIA-Research/vTrain f8dda84 src/model/gpt_modeling.py
** ShardedGptSelfAttention.query_key_value, whose F.linear(x, W, b) is one addmm: the bias in
** the GEMM's epilogue). The graph builds three GEMMs x W_q, x W_k, x W_v of the same input x,
** each with its bias add. Fused, per phase:
**   forward (and its rerun): one GEMM reads x once (two reads of x fewer), the three weights
**     and biases, and writes the biased output: the three GEMMs' and adds' costs in the first
**     GEMM, less 2 |x| and the write and read of each unbiased output (which is never
**     written: size 0);
**   backward: one dX GEMM dY W^T over K = 3h writes dx once (two partial dx writes fewer) and
**     sums the three in its reduction, so the two accumulations of dx go (their FLOPs in the
**     GEMM); one dW GEMM x^T dY reads x once (2 |x| fewer); one bias-gradient reduction
**     dY.sum(0) (the three reductions' traffic, one kernel).
** With views (DLB_FUSE_QKV_VIEWS): q, k and v are strided views of the output (transformer.py
** split_tensor_along_last_dim and view; baddbmm / bmm read them as strided batches): the
** three head transposes cost nothing, and their backward is SplitBackward's one torch.cat
** into the 3h gradient (the three copies' traffic, one kernel). The transposes' outputs keep
** their sizes (the output's views hold it for the backward). Parameters and FLOPs do not
** change. Found from the graph's structure only: three unbatched GEMMs of one input, each by
** a weight, each output (after its bias add, when all three have one) reaching a transpose
** through reshapes: an attention block's heads (an MLP's gate and up are two). Linear in the
** sizes (the compiled sweep applies it monomial by monomial). */
static int through_reshapes(const ctx *c, int t) {
  const dlb_graph *s = c->s;
  for (int n = 0; n < 8; n++) {
    if (c->ncons[t] != 1) return -1;
    int k = c->sole[t];
    if (k < 0 || k >= s->nfwd) return -1;
    const op *q = &s->o[k];
    if (q->type == OP_TRANSPOSE) return k;
    if (q->type != OP_RESHAPE || q->nout != 1) return -1;
    t = op_out(s, q)[0];
  }
  return -1;
}

/* The op of phase ph derived from forward op f (its rerun, or a backward op of type ty), the
** first in op order; -1 when none. */
static int derived(const ctx *c, int f, int ph, int ty, int nth) {
  const dlb_graph *s = c->s;
  for (int q = c->doff[f]; q < c->doff[f + 1]; q++) {
    const op *p = &s->o[c->dops[q]];
    if (p->phase != ph || (ty >= 0 && p->type != ty)) continue;
    if (nth-- == 0) return c->dops[q];
  }
  return -1;
}

/* Whether op q reads weight w (or a view of it). */
static int reads_weight(const dlb_graph *s, const op *q, int w) {
  const int32_t *in = op_in(s, q);
  for (int j = 0; j < q->nin; j++) if (in[j] == w || s->t[in[j]].base == w) return 1;
  return 0;
}

/* Move op j's costs into op k (no saved traffic). */
static void absorb(ctx *c, int j, int k) {
  if (j < 0 || k < 0 || j == k) return;
  c->flops[k] += c->flops[j];
  c->bytes[k] += c->bytes[j];
  c->flops[j] = c->bytes[j] = 0;
  if (c->into) c->into[j] = k;
}

/* GEMM k now runs the three GEMMs k, j1, j2 as one: its shape is k's with dim d (0 m, 1 n,
** 2 k) the sum of the three's (dlb_fuse_step's gemm_with). */
static void widen(ctx *c, int k, int j1, int j2, int d) {
  if (!c->gw || k < 0 || j1 < 0 || j2 < 0) return;
  c->gw[3 * k] = j1, c->gw[3 * k + 1] = j2, c->gw[3 * k + 2] = d;
}

/* The forward (or rerun) GEMMs m[3], bias adds a[3] (-1: none) and transposes tr[3] of one
** block fused, x the GEMMs' input. */
static void qkv_forward(ctx *c, const int m[3], const int a[3], const int tr[3], int x, int views) {
  const dlb_graph *s = c->s;
  for (int j = 0; j < 3; j++) if (m[j] < 0) return;
  absorb(c, m[1], m[0]);
  absorb(c, m[2], m[0]);
  widen(c, m[0], m[1], m[2], 1);   /* x W: n, the output width, h -> 3h */
  c->bytes[m[0]] -= 2 * c->size0[x];
  for (int j = 0; j < 3; j++) {
    if (a[j] >= 0) {
      int y = op_out(s, &s->o[m[j]])[0];
      merge(c, a[j], m[0], y);
      c->size[y] = 0;
    }
    if (views && tr[j] >= 0) c->bytes[tr[j]] = 0;
    c->held[m[j]] = 1;
    if (a[j] >= 0) c->held[a[j]] = 1;
    if (tr[j] >= 0 && views) c->held[tr[j]] = 1;
  }
  if (c->bytes[m[0]] < 0) c->bytes[m[0]] = 0;
}

static void qkv(ctx *c, int views) {
  const dlb_graph *s = c->s;
  for (int i = 0; i < s->nfwd; i++) {
    const op *p = &s->o[i];
    if (p->type != OP_MATMUL || p->phase != DLB_PHASE_FWD || p->nin != 2 || p->nout != 1) continue;
    int x = op_in(s, p)[0];
    /* the forward GEMMs of x by a weight, x first: exactly three, this one the first */
    int m[3], w[3], nm = 0;
    for (int q = c->fcoff[x]; q < c->fcoff[x + 1]; q++) {
      int j = c->fcons[q];
      const op *r = &s->o[j];
      if (r->type != OP_MATMUL || r->phase != DLB_PHASE_FWD || r->nin != 2 || r->nout != 1) continue;
      const int32_t *in = op_in(s, r);
      if (in[0] != x || s->t[in[1]].role != DLB_ROLE_WEIGHT) continue;
      if (nm == 3) { nm = 4; break; }
      m[nm] = j, w[nm] = in[1], nm++;
    }
    if (nm != 3 || m[0] != i) continue;
    /* each output: a bias add (all three or none), then reshapes to a transpose */
    int a[3], tr[3], nb = 0, ok = 1;
    for (int j = 0; j < 3 && ok; j++) {
      int y = op_out(s, &s->o[m[j]])[0];
      a[j] = -1;
      if (c->ncons[y] == 1) {
        const op *q = &s->o[c->sole[y]];
        if (q->type == OP_ADD && q->nin == 2 && q->phase == DLB_PHASE_FWD) {
          const int32_t *in = op_in(s, q);
          int other = in[0] == y ? in[1] : in[0];
          if (s->t[other].role == DLB_ROLE_WEIGHT) { a[j] = c->sole[y]; y = op_out(s, q)[0]; nb++; }
        }
      }
      tr[j] = through_reshapes(c, y);
      if (tr[j] < 0) ok = 0;
    }
    if (!ok || (nb != 0 && nb != 3)) continue;
    /* forward, and the rerun under activation recompute */
    qkv_forward(c, m, a, tr, x, views);
    {
      int rm[3], ra[3], rt[3], rx = -1;
      for (int j = 0; j < 3; j++) {
        rm[j] = derived(c, m[j], DLB_PHASE_RECOMPUTE, OP_MATMUL, 0);
        ra[j] = a[j] >= 0 ? derived(c, a[j], DLB_PHASE_RECOMPUTE, OP_ADD, 0) : -1;
        rt[j] = derived(c, tr[j], DLB_PHASE_RECOMPUTE, OP_TRANSPOSE, 0);
        if (rm[j] < 0 || (a[j] >= 0 && ra[j] < 0)) rm[0] = -1;
      }
      if (rm[0] >= 0) {
        rx = op_in(s, &s->o[rm[0]])[0];
        qkv_forward(c, rm, ra, rt, rx, views);
      }
    }
    /* backward: the dX and dW GEMMs of each, the bias reductions, the accumulations of dx,
    ** the transposes' gradients */
    int dx[3], dw[3], br[3], tb[3];
    for (int j = 0; j < 3; j++) {
      dx[j] = dw[j] = -1;
      for (int n = 0; n < 2; n++) {
        int k = derived(c, m[j], DLB_PHASE_BWD, OP_MATMUL, n);
        if (k < 0) break;
        if (reads_weight(s, &s->o[k], w[j])) dx[j] = k; else dw[j] = k;
      }
      br[j] = a[j] >= 0 ? derived(c, a[j], DLB_PHASE_BWD, OP_SUM, 0) : -1;
      tb[j] = derived(c, tr[j], DLB_PHASE_BWD, OP_TRANSPOSE, 0);
    }
    if (dx[0] >= 0 && dx[1] >= 0 && dx[2] >= 0) {
      absorb(c, dx[1], dx[0]);
      absorb(c, dx[2], dx[0]);
      widen(c, dx[0], dx[1], dx[2], 2);   /* dY W^T: k, the reduction over 3h */
      c->bytes[dx[0]] -= 2 * c->size0[x];
      for (int j = 1; j < 3; j++) c->size[op_out(s, &s->o[dx[j]])[0]] = 0;
      /* the accumulations of x's gradient from the three: inside the one GEMM */
      for (int j = 0; j < 3; j++)
        for (int n = 0;; n++) {
          int k = derived(c, m[j], DLB_PHASE_BWD, OP_ACCUM, n);
          if (k < 0) break;
          c->flops[dx[0]] += c->flops[k];
          c->flops[k] = c->bytes[k] = 0;
          c->held[k] = 1;
        }
      if (c->bytes[dx[0]] < 0) c->bytes[dx[0]] = 0;
      for (int j = 0; j < 3; j++) c->held[dx[j]] = 1;
    }
    if (dw[0] >= 0 && dw[1] >= 0 && dw[2] >= 0) {
      absorb(c, dw[1], dw[0]);
      absorb(c, dw[2], dw[0]);
      /* x^T dY: n (dY^T x under a transposed weight: m; graphs/step/train.c matmul_bwd) */
      widen(c, dw[0], dw[1], dw[2], s->o[m[0]].attr[1] ? 0 : 1);
      c->bytes[dw[0]] -= 2 * c->size0[x];
      if (c->bytes[dw[0]] < 0) c->bytes[dw[0]] = 0;
    }
    if (br[0] >= 0 && br[1] >= 0 && br[2] >= 0) {
      absorb(c, br[1], br[0]);
      absorb(c, br[2], br[0]);
      for (int j = 0; j < 3; j++) c->held[br[j]] = 1;
    }
    if (views && tb[0] >= 0 && tb[1] >= 0 && tb[2] >= 0) {
      absorb(c, tb[1], tb[0]);
      absorb(c, tb[2], tb[0]);
      for (int j = 0; j < 3; j++) c->held[tb[j]] = 1;
    }
  }
}

static void optimizer(ctx *c) {
  const dlb_graph *s = c->s;
  int nl = (int)s->nlayers + 1;
  int *first = dlb_malloc(sizeof(int) * (size_t)(nl + 1));
  if (!first) return;
  for (int l = 0; l <= nl; l++) first[l] = -1;
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    if (p->phase != DLB_PHASE_UPDATE) continue;
    int l = p->layer >= 0 && p->layer < nl - 1 ? p->layer : nl - 1;
    if (first[l] < 0) { first[l] = (int)i; continue; }
    c->flops[first[l]] += c->flops[i];
    c->bytes[first[l]] += c->bytes[i];
    c->flops[i] = c->bytes[i] = 0;
  }
  dlb_free(first);
}

/* Apply the passes in `flags` (DLB_FUSE_*) to the per-op costs and tensor sizes of step s;
** *recompute receives the FLOPs the fused kernels recompute. DLB_ENOMEM on failure. */
int dlb_fuse_step(const dlb_graph *s, int flags, int precision, double *flops, double *bytes,
                  double *size, int *kernel, double *more, int *gemm_with, double *recompute) {
  *recompute = 0;
  if (gemm_with) for (size_t i = 0; i < 3 * s->no; i++) gemm_with[i] = -1;
  if (!flags) return DLB_OK;
  size_t nt = s->nt;
  ctx c = { s, flops, bytes, size, kernel, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL,
            gemm_with, 0, s->nfwd, NULL };
  double *size0 = dlb_malloc((nt + 1) * sizeof *size0);
  c.ncons = dlb_calloc(nt + 1, sizeof(int));
  c.sole = dlb_malloc((nt + 1) * sizeof(int));
  if (!size0 || !c.ncons || !c.sole) {
    dlb_free(size0); dlb_free(c.ncons); dlb_free(c.sole);
    return dlb_fail(DLB_ENOMEM, "fusion: out of memory");
  }
  memcpy(size0, size, nt * sizeof *size0);
  c.size0 = size0;
  if (flags & DLB_FUSE_GRAD_ACCUM) {   /* the gradient accumulation follows absorbed ops */
    c.into = dlb_malloc((s->no + 1) * sizeof *c.into);
    if (!c.into) {
      dlb_free(size0); dlb_free(c.ncons); dlb_free(c.sole);
      return dlb_fail(DLB_ENOMEM, "fusion: out of memory");
    }
    for (size_t i = 0; i < s->no; i++) c.into[i] = -1;
  }
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    const int32_t *in = op_in(s, p);
    for (int j = 0; j < p->nin; j++) {
      int t = in[j];
      if (c.ncons[t] == 0 || c.sole[t] != (int)i) c.ncons[t]++;
      c.sole[t] = (int)i;
    }
    if (p->type == OP_NORM_BWD && p->nin == 5 && s->t[in[4]].producer >= 0) {
      /* an eager RMSNorm's backward (dlb_train_opts.norm_upcast, train.c upcast_norms) reads
      ** its saved copies instead of the norm's input x: x still counts it as a consumer, as
      ** it does the fused norm's backward, so the passes fuse what they fuse without the
      ** copies (the term is memory, not traffic) */
      int t = op_in(s, &s->o[s->t[in[4]].producer])[0];
      if (c.ncons[t] == 0 || c.sole[t] != (int)i) c.ncons[t]++;
      c.sole[t] = (int)i;
    }
  }
  /* A recomputed forward runs the same kernels as the forward (a checkpointed function's
  ** code does not change: Megatron-LM's CheckpointFunction reruns run_function), so a
  ** forward op and its rerun (a RECOMPUTE op, train.c recompute) fuse alike, and as they do
  ** without a recompute policy: the forward output t and its recomputed copy t' each count
  ** the consumers of both but the rerun's own (which mirror t's forward consumers). Before
  ** issue [18]/[19] (branch recompute-one) a bias add whose output gelu's backward reads
  ** fused into gelu in the forward (its backward reads t' instead) and not in the rerun. */
  int *rcn = dlb_calloc(nt + 1, sizeof(int)), *n0 = dlb_malloc((nt + 1) * sizeof(int));
  if (!rcn || !n0) {
    dlb_free(rcn); dlb_free(n0); dlb_free(size0); dlb_free(c.ncons); dlb_free(c.sole);
    dlb_free(c.into);
    return dlb_fail(DLB_ENOMEM, "fusion: out of memory");
  }
  memcpy(n0, c.ncons, nt * sizeof *n0);
  for (size_t i = 0; i < s->no; i++) {
    const op *p = &s->o[i];
    if (p->phase != DLB_PHASE_RECOMPUTE) continue;
    const int32_t *in = op_in(s, p);
    for (int j = 0; j < p->nin; j++) {
      int dup = 0;
      for (int k = 0; k < j; k++) dup |= in[k] == in[j];
      rcn[in[j]] += !dup;
    }
  }
  for (size_t i = 0; i < s->no; i++) {
    const op *r = &s->o[i];
    if (r->phase != DLB_PHASE_RECOMPUTE || r->fwd < 0) continue;
    const op *f = &s->o[r->fwd];
    for (int j = 0; j < r->nout && j < f->nout; j++) {
      int t = op_out(s, f)[j], u = op_out(s, r)[j];
      /* a tensor without consumers fuses nowhere (and has no sole consumer to name) */
      if (n0[t] > 0) c.ncons[t] += n0[u] - rcn[u];
      if (n0[u] > 0) c.ncons[u] += n0[t] - rcn[u];
    }
  }
  dlb_free(rcn); dlb_free(n0);
  int rc = DLB_OK;
  if (flags & DLB_FUSE_ATTENTION) rc = dlb_fuse_attention(&c);
  /* the QKV projections before the elementwise pass: the ops it places are held from it */
  if (!rc && (flags & DLB_FUSE_QKV)) {
    c.held = dlb_calloc(s->no + 1, 1);
    if (!c.held || (!c.fcoff && dlb_fuse_attention_index(&c))) rc = DLB_ENOMEM;
    else qkv(&c, (flags & DLB_FUSE_QKV_VIEWS) != 0);
  }
  dlb_free(c.fcoff); dlb_free(c.fcons); dlb_free(c.doff); dlb_free(c.dops);
  if (rc) {
    dlb_free(c.held); dlb_free(size0); dlb_free(c.ncons); dlb_free(c.sole); dlb_free(c.into);
    return dlb_fail(DLB_ENOMEM, "fusion: out of memory");
  }
  c.causal = (flags & DLB_FUSE_SOFTMAX_CAUSAL) != 0;
  if (flags & DLB_FUSE_ELEMENTWISE) elementwise_chains(&c);
  if (c.causal) causal_softmax(&c);
  dlb_free(c.held);
  c.held = NULL;
  if (flags & (DLB_FUSE_OPT_FOREACH | DLB_FUSE_OPT_LOOP | DLB_FUSE_GRAD_CLIP)) update_impl(&c, flags);
  if (flags & DLB_FUSE_LM_METRICS) dlb_fuse_lm_metrics(s, precision, bytes, size0, more);
  if (flags & DLB_FUSE_XENT_FP32) dlb_fuse_xent_fp32(s, precision, bytes, size0, more);
  if (flags & DLB_FUSE_GRAD_ACCUM) dlb_fuse_grad_accum(s, c.into, bytes, size0, more);
  if (flags & DLB_FUSE_OPTIMIZER) optimizer(&c);
  *recompute = c.rc;
  dlb_free(size0); dlb_free(c.ncons); dlb_free(c.sole); dlb_free(c.into);
  return DLB_OK;
}
