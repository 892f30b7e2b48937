/*
** dlb_graph.h — compute graphs: tensors, ops, training-step expansion and analysis.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
**
** A graph holds tensors (name, dims, dtype, role) and ops (type, inputs, outputs,
** attributes) in construction order. Dims are polynomials over named hyperparameters
** (text "b", "4*h", "784"). Op creation validates shapes and fails with DLB_ESHAPE naming
** the op, the tensors and their dims. dlb_graph_analyze expands the forward graph into a
** training step (backward ops from each op's gradient rule, gradient accumulation,
** one update op per weight) and computes FLOPs, bytes and the minimal footprint with all
** dims bound; dlb_graph_symbolic computes the polynomial totals with dims (partly) unbound.
** FLOP conventions: docs/graph.md and dlb_graph_convention().
*/
#ifndef DLB_GRAPH_H
#define DLB_GRAPH_H

#include <stddef.h>

#include "dlb_poly.h"

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
typedef struct dlb_graph dlb_graph;
typedef struct dlb_analysis dlb_analysis;        /* numeric results of one graph under bindings */

enum { DLB_GRAPH_MAXRANK = 8 };
/* Tensor roles. */
enum {
  DLB_ROLE_INPUT = 0, DLB_ROLE_LABEL = 1, DLB_ROLE_WEIGHT = 2, DLB_ROLE_ACTIVATION = 3,
  DLB_ROLE_GRADIENT = 4, DLB_ROLE_OPTSTATE = 5, DLB_ROLE_WORKSPACE = 6
};
/* Element types (DLB_DT_DEFAULT: floating point, size set by the precision policy).
** NF4 and INT4 are weight-only storage formats with their block scales counted in the
** element size (docs/graph.md "Quantised weights"): NF4 is QLoRA's 4-bit NormalFloat with
** double-quantised scales, 4 + 8/64 + 32/(64 x 256) bits (Dettmers et al. 2023 sec. 3);
** INT4 is GPTQ's packing, 4 bits plus an fp16 scale and a 4-bit zero per group of 128
** (Frantar et al. 2023; AutoGPTQ's default group size). */
enum {
  DLB_DT_DEFAULT = 0, DLB_DT_FP32 = 1, DLB_DT_FP16 = 2, DLB_DT_BF16 = 3, DLB_DT_FP8 = 4,
  DLB_DT_INT8 = 5, DLB_DT_INT32 = 6, DLB_DT_INT64 = 7, DLB_DT_FP64 = 8, DLB_DT_NF4 = 9,
  DLB_DT_INT4 = 10, DLB_DT_COUNT = 11
};
/* Phases of the ops of a training step. */
enum { DLB_PHASE_FWD = 0, DLB_PHASE_BWD = 1, DLB_PHASE_UPDATE = 2, DLB_PHASE_RECOMPUTE = 3 };
/* Optimizers (state per parameter and update FLOPs: docs/graph.md "Optimizers"): sgd (no
** state), momentum (1), adam (2: m, v), rmsprop (1), adamw (adam + decoupled weight
** decay), adafactor (factored second moment: a row and a column vector per matrix, no
** first moment), adam8bit (adam's two states in 8 bits, block-wise quantised). */
enum {
  DLB_OPT_SGD = 0, DLB_OPT_MOMENTUM = 1, DLB_OPT_ADAM = 2, DLB_OPT_RMSPROP = 3,
  DLB_OPT_ADAMW = 4, DLB_OPT_ADAFACTOR = 5, DLB_OPT_ADAM8BIT = 6
};
/* Precision policies: fp32 everywhere; fp16/bf16 everywhere; mixed = fp16 (or bf16)
** weights, activations and gradients with fp32 master weights and optimizer state; fp8 =
** mixed with 1-byte (fp8) weights, activations and gradients; tf32 = fp32 storage with
** tf32 tensor-core matmuls (the bytes of fp32). */
enum {
  DLB_POLICY_FP32 = 0, DLB_POLICY_FP16 = 1, DLB_POLICY_BF16 = 2, DLB_POLICY_MIXED = 3,
  DLB_POLICY_MIXED_BF16 = 4, DLB_POLICY_FP8 = 5, DLB_POLICY_TF32 = 6
};
/* Activation recompute (checkpointing) policies. */
enum {
  DLB_RECOMPUTE_NONE = 0, DLB_RECOMPUTE_LAYERS = 1, /* a segment every k layers */
  DLB_RECOMPUTE_SQRT = 2,                           /* about sqrt(n) segments */
  DLB_RECOMPUTE_MARKED = 3                          /* boundaries at dlb_graph_checkpoint */
};

/* Fusion passes over the analysed step (graphs/step/fusion.c; a bit set; 0: the unfused
** algorithmic graph, the default). */
enum { DLB_FUSE_ATTENTION = 1, DLB_FUSE_ELEMENTWISE = 2, DLB_FUSE_OPTIMIZER = 4,
       DLB_FUSE_ALL = 7, DLB_FUSE_OPT_FOREACH = 8, DLB_FUSE_OPT_LOOP = 16,
       DLB_FUSE_GRAD_CLIP = 32, DLB_FUSE_LM_METRICS = 64, DLB_FUSE_XENT_FP32 = 128,
       DLB_FUSE_QKV = 256, DLB_FUSE_QKV_VIEWS = 512, DLB_FUSE_SOFTMAX_CAUSAL = 1024,
       DLB_FUSE_GRAD_ACCUM = 2048, DLB_FUSE_BITS = 4095 };
/* The optimizer's implementation (graphs/step/fusion.c, docs/frameworks.md "Optimizer
** implementation"): DLB_FUSE_OPTIMIZER runs a layer's updates as one multi-tensor kernel;
** the update's traffic is one pass over each tensor (a fused kernel: torch fused=True,
** apex / DeepSpeed FusedAdam) unless DLB_FUSE_OPT_FOREACH (PyTorch's foreach AdamW: 20
** tensor passes) or DLB_FUSE_OPT_LOOP (a per-parameter loop of elementwise ops, Composer's
** DecoupledAdamW: 22) says otherwise (Adam and AdamW only; one of the two);
** DLB_FUSE_GRAD_CLIP adds gradient-norm clipping (a norm pass and an in-place scale: 3
** passes over each gradient). DLB_FUSE_LM_METRICS adds the trainer's language-model train
** metrics to the loss (Composer's, as llm-foundry's MPT runs them: LanguageCrossEntropy and
** LanguagePerplexity, each an eager cross-entropy over the logits every micro-batch: the
** logits read, an fp32 copy written and read, the fp32 log-softmax written, per metric).
** DLB_FUSE_XENT_FP32 runs the loss as Megatron-LM's vocab-parallel cross-entropy over fp32
** logits (megatron/mpu/cross_entropy.py after output.float(): eager in-place passes, 52 B per
** fp16 logit over forward and backward instead of a fused kernel's 8).
** DLB_FUSE_QKV runs an attention block's three projections of one input (Q, K, V) as one
** GEMM h -> 3h with the bias in its epilogue (Megatron's ColumnParallelLinear(h, 3h), F.linear
** -> addmm), and their backward as one dX GEMM, one dW GEMM and one bias-gradient reduction;
** DLB_FUSE_QKV_VIEWS (with it) reads q, k, v as strided views of that output (no transpose
** copies; the backward's three copies as one cat kernel): Megatron-LM 2021-22's baddbmm on
** views. Parameters and FLOPs do not change; kernels and bytes do (graphs/step/fusion.c).
** DLB_FUSE_SOFTMAX_CAUSAL runs a causal decoder's attention softmax as Megatron's
** scaled_upper_triang_masked_softmax kernels (megatron/fused_kernels/
** scaled_upper_triang_masked_softmax.h): the forward reads the lower triangle of the scores
** (half of them; the diagonal's 1 / 2s not counted) and writes every probability; the backward
** reads the lower triangle of the gradient and of the probabilities and writes every input
** gradient; nothing fuses into the backward kernel from before it (the attention dropout's
** backward stays its own kernel, torch.nn.Dropout's). FLOPs do not change.
** DLB_FUSE_GRAD_ACCUM adds the per-micro-batch gradient accumulation of Megatron-LM's local
** DDP (megatron/model/distributed.py param_hook: main_grad.add_(grad) for every parameter
** after every micro-batch's backward, without gradient accumulation fusion): the gradient
** read and the buffer read and written (3 x the gradient's bytes) and one host op and one
** kernel per parameter tensor, on the op that produces the gradient (graphs/step/fusion_grad.c). */

typedef struct dlb_train_opts {
  int optimizer;    /* DLB_OPT_* */
  int precision;    /* DLB_POLICY_* */
  int recompute;    /* DLB_RECOMPUTE_* */
  int recompute_k;  /* layers per segment for DLB_RECOMPUTE_LAYERS */
  int inference;    /* 1: forward only, no loss needed */
  int fuse;         /* DLB_FUSE_* bits (numeric analysis only; 0 = none) */
  int norm_upcast;  /* 1: each rmsnorm keeps for its backward what eager model code's
                       autograd keeps (graphs/step/train.c, docs/frameworks.md "What eager
                       RMSNorm saves"): the fp32 upcast of its input (the input itself when
                       it is fp32) and its normalised output in the input's type, not the
                       input; 0 (the default): the input, as a fused norm kernel does */
} dlb_train_opts;

/* Indices of the polynomials dlb_graph_symbolic returns. */
enum {
  DLB_SYM_PARAMS = 0, DLB_SYM_FLOPS_FWD = 1, DLB_SYM_FLOPS_BWD = 2, DLB_SYM_FLOPS_UPDATE = 3,
  DLB_SYM_FLOPS_RECOMPUTE = 4, DLB_SYM_FLOPS = 5, DLB_SYM_BYTES = 6, DLB_SYM_IO = 7,
  DLB_SYM_COUNT = 8
};

/* Numeric totals of an analysis (FLOPs: a multiply-accumulate is 2; sizes in bytes). */
typedef struct dlb_totals {
  double params, flops_fwd, flops_bwd, flops_update, flops_recompute, flops;
  double bytes, io, intensity;         /* intensity = flops / bytes */
  double footprint;                    /* best of the schedules below */
  double weights, gradients, optimizer, activations, workspace; /* live at the peak */
  double footprint_order;              /* peak in construction order */
  double footprint_heuristic;          /* peak in the memory-aware list schedule */
  double nops, ntensors, nlayers;
  double trainable;                    /* parameters that are not frozen */
  double opt_states;                   /* bytes of the optimizer states without the fp32
                                          master copies (Adam: the two moments) */
} dlb_totals;

DLB_API dlb_graph *dlb_graph_new(const char *name);
DLB_API void dlb_graph_free(dlb_graph *g);
DLB_API const char *dlb_graph_name(const dlb_graph *g);
/* Add a tensor without producer (input, label, weight ...); dims as text ("b", "4*h").
** dtype DLB_DT_DEFAULT follows the precision policy. *id receives its index. */
DLB_API int dlb_graph_tensor(dlb_graph *g, const char *name, int role, int dtype, size_t ndims,
                     const char *const *dims, int *id);
/* The op type of a name ("matmul", "conv2d", "relu" ...), or DLB_ENOTFOUND. */
DLB_API int dlb_graph_op_type(const char *name);
/* The name of an op type; static; "?" if unknown. */
DLB_API const char *dlb_graph_op_type_name(int type);
/* FLOPs per parameter of one update by optimizer DLB_OPT_* (sgd 2, momentum 4, rmsprop 9,
** adam 12, adamw 14, adafactor 11, adam8bit 20; docs/graph.md "Optimizers"); an unknown
** id counts as sgd. */
DLB_API double dlb_optimizer_update_flops(int optimizer);
/* Optimizer-state bytes per parameter of a weight of ndims dims (each >= 1, ndims 0..8)
** under optimizer DLB_OPT_* with fp32 states (mixed precision's), from the training step's
** own rule (graphs/step/train.c): sgd 0, momentum and rmsprop 4, adam and adamw 8, adam8bit
** 2, adafactor 4 (r + c) / (r c) for an r x c matrix. DLB_EINVAL on a bad argument. */
DLB_API int dlb_optimizer_state_bytes(int optimizer, int ndims, const double *dims, double *bytes);
/* Add an op. attrs: integer attributes by op type (see graph_ops.c); dims: extra dims
** as text (reshape's shape, split's sizes, slice's length). Writes up to maxout output
** tensor ids (always consecutive ids); *nout receives the count (the last output of
** softmax, log_softmax, softmax_xent and im2col convs is their workspace, of role
** DLB_ROLE_WORKSPACE). On failure nothing of the op remains in the graph. */
DLB_API int dlb_graph_op(dlb_graph *g, int type, const char *name, size_t nin, const int *inputs,
                 size_t nattr, const int *attrs, size_t ndims, const char *const *dims,
                 int *outputs, size_t maxout, size_t *nout);
/* dlb_graph_op for the common case, without arrays (the bindings' fast path): inputs a and
** b (b < 0: only a), attributes x and y, no dims; *out receives the first output. */
DLB_API int dlb_graph_op1(dlb_graph *g, int type, const char *name, int a, int b, int x, int y,
                  int *out);
DLB_API int dlb_graph_set_loss(dlb_graph *g, int tensor);
/* Layer builders (graph_layers.c): a whole layer of lua/dlbench/nn.lua in one call, making
** exactly the tensors and ops (same order, names, dims, attributes) its op-by-op
** construction makes. Dims as text; name is required; weights are "<name>/w" ... as
** documented per function in graph_layers.c. On failure nothing of the layer remains.
**   linear: w [last(x), nout], matmul "<name>", with bias b [nout] and add "<name>/bias".
**   conv: w with wdims (3: 1-D, 4: 2-D), conv "<name>" with the 8 conv attributes, with
**     bias b [wdims[0], 1(, 1)] and add "<name>/bias".
**   norm: type batchnorm (over dim 2), layernorm or rmsnorm (last dim): "<name>/gamma"
**     (and "<name>/beta") and the norm op "<name>".
**   embedding_layer: "<name>/table" [vocab, dim] and the lookup "<name>".
**   lstm_cell, gru_cell, rnn_cell: one time step with the given weights (unnamed ops).
**   highway: one RHN sublayer s' = s + sigmoid(t) (tanh(h) - s), [h, t] = [x, s] w + b
**     (x < 0: s w + b). */
DLB_API int dlb_graph_linear(dlb_graph *g, int x, const char *nout, int bias, const char *name, int *out);
DLB_API int dlb_graph_conv(dlb_graph *g, int x, size_t nwdims, const char *const *wdims,
                   const int *attrs, int bias, const char *name, int *out);
DLB_API int dlb_graph_norm(dlb_graph *g, int type, int x, const char *name, int *out);
DLB_API int dlb_graph_embedding_layer(dlb_graph *g, int ids, const char *vocab, const char *dim,
                              const char *name, int *out);
DLB_API int dlb_graph_lstm_cell(dlb_graph *g, int x, int h, int c, int w, int b, int *hout, int *cout);
DLB_API int dlb_graph_gru_cell(dlb_graph *g, int x, int h, int w, int b, int wn, int un, int bn,
                       int *hout);
DLB_API int dlb_graph_rnn_cell(dlb_graph *g, int x, int h, int w, int b, int *hout);
DLB_API int dlb_graph_highway(dlb_graph *g, int x, int s, int w, int b, int *out);
/* Start a layer scope (ops created afterwards carry it); NULL ends it. */
DLB_API int dlb_graph_layer(dlb_graph *g, const char *name);
/* Freeze (frozen = 1) or unfreeze a weight: a frozen weight gets no gradient, no update and
** no optimizer state (gradients still flow through it to the tensors that need them). */
DLB_API int dlb_graph_freeze(dlb_graph *g, int tensor, int frozen);
/* Store a weight in another element type (weight-only quantisation: DLB_DT_INT8, FP8, NF4,
** INT4; DLB_DT_DEFAULT returns it to the precision policy). Only the weight's own bytes
** change: the tensors computed from it keep the types they were built with. */
DLB_API int dlb_graph_set_dtype(dlb_graph *g, int tensor, int dtype);
/* Train a weight in its own element type (own = 1): its optimizer states take the weight's
** type and it gets no fp32 master copy under a mixed policy, as torch.optim does for a
** parameter held in 16 bits (AdamW's exp_avg = zeros_like(p)); own = 0: the policy's. */
DLB_API int dlb_graph_own_type(dlb_graph *g, int tensor, int own);
/* Mark a tensor as a recompute checkpoint (for DLB_RECOMPUTE_MARKED). */
DLB_API int dlb_graph_checkpoint(dlb_graph *g, int tensor);
/* Copy the layer just built as the next one: the ops from op0 and the tensors from t0 to the
** end (one layer's builder made them, in layer `from`, from input tensor xin to output xout)
** are appended again in the same order, in the current layer (g:layer(to) first), reading
** xout where the layer read xin, every name under `from` ("from" or "from/...") renamed under
** `to`: the graph the builder would make for layer `to`. *out receives the copy's output, or
** -1 with the graph unchanged when the layer is not such a block (a name not under `from`,
** an op or tensor of another layer, a read of another tensor from before the layer, an input
** made inside it). DLB_OK, or a failure on bad arguments or out of memory. */
DLB_API int dlb_graph_repeat(dlb_graph *g, size_t op0, size_t t0, int xin, int xout,
                             const char *from, const char *to, int *out);
/* The graph's generation: a counter every change an analysis would see bumps (a tensor, an
** op, a layer builder, a new layer, repeat, set_loss, freeze / unfreeze, set_dtype, own_type,
** checkpoint; a call that changes nothing, e.g. freezing a frozen weight, leaves it). Two
** equal generations of one graph: the same graph, so a cache keyed on (graph, generation)
** is never stale. Starts at 0 for an empty graph; 0 for NULL. */
DLB_API size_t dlb_graph_generation(const dlb_graph *g);
DLB_API size_t dlb_graph_ntensors(const dlb_graph *g);
DLB_API size_t dlb_graph_nops(const dlb_graph *g);
/* Tensor facts: rank, dtype (as declared), role, producing op (-1: none). */
DLB_API int dlb_graph_tensor_info(const dlb_graph *g, int t, int *ndims, int *dtype, int *role,
                          int *producer);
/* Text of a tensor's name or dim i into buf; returns the full length (0 if invalid). */
DLB_API size_t dlb_graph_tensor_name(const dlb_graph *g, int t, char *buf, size_t size);
DLB_API size_t dlb_graph_tensor_dim(const dlb_graph *g, int t, int i, char *buf, size_t size);
/* The graph's symbolic dims: the names a binding may give a value (g:stats{b = 8}), in the
** order the graph first used them; how many, and the text of dim i into buf (returns the
** full length; 0 if i is out of range). */
DLB_API size_t dlb_graph_nvars(const dlb_graph *g);
DLB_API size_t dlb_graph_varname(const dlb_graph *g, size_t i, char *buf, size_t size);
/* Graphviz DOT text of the forward graph; returns the full length. */
DLB_API size_t dlb_graph_dot(const dlb_graph *g, char *buf, size_t size);
/* The FLOP convention line printed with every summary; static. */
DLB_API const char *dlb_graph_convention(void);

/* Numeric analysis with every dim bound by names/values. NULL with DLB_EUNBOUND naming
** the unbound dims. The caller frees the result with dlb_analysis_free. */
DLB_API dlb_analysis *dlb_graph_analyze(dlb_graph *g, const dlb_train_opts *o, size_t nb,
                                const char *const *names, const double *values);
/* Polynomial totals with dims partly bound: out[DLB_SYM_*] receive new polys. */
DLB_API int dlb_graph_symbolic(dlb_graph *g, const dlb_train_opts *o, size_t nb,
                       const char *const *names, const double *values, dlb_poly **out);
/* Ops in the training step (or the forward pass under o->inference) into *out; the step
** does not depend on the bindings. */
DLB_API int dlb_graph_step_nops(dlb_graph *g, const dlb_train_opts *o, size_t *out);
/* Symbolic forward FLOPs of the ops of one type (e.g. "matmul"), new poly. */
DLB_API dlb_poly *dlb_graph_symbolic_type(dlb_graph *g, const char *type, size_t nb,
                                  const char *const *names, const double *values);
/* The attention patterns of g (the chains g:stats{fuse = {"attention"}} fuses: scores = Q K^T,
** scale, at most one mask, softmax, dropout, P V; graphs/step/fusion.c): *n of them, *ncausal
** with a mask the ONNX importer read as causal (docs/import.md "Causal attention"). */
DLB_API int dlb_graph_attention_count(dlb_graph *g, size_t *n, size_t *ncausal);
/* Symbolic forward FLOPs of the two matmuls (scores and P V) of g's attention patterns:
** which = 1 those with a causal mask, 0 the others, -1 all. New poly; NULL with an error. */
DLB_API dlb_poly *dlb_graph_symbolic_attention(dlb_graph *g, int which, size_t nb,
                                       const char *const *names, const double *values);

DLB_API void dlb_analysis_free(dlb_analysis *a);
DLB_API int dlb_analysis_totals(const dlb_analysis *a, dlb_totals *out);
DLB_API size_t dlb_analysis_nops(const dlb_analysis *a);
DLB_API const double *dlb_analysis_op_flops(const dlb_analysis *a);  /* borrowed, nops entries */
DLB_API const double *dlb_analysis_op_bytes(const dlb_analysis *a);  /* borrowed, nops entries */
DLB_API const int *dlb_analysis_op_phase(const dlb_analysis *a);     /* DLB_PHASE_FWD/BWD/UPDATE/RECOMPUTE */
DLB_API const int *dlb_analysis_op_layer(const dlb_analysis *a);     /* layer index or -1 */
/* The layer that holds each op's work, the one rule for an op outside every g:layer scope
** (per-layer costs, dlb.parallel.layers.from_graph): its scope; else, a backward or recompute
** op, its forward op's placement; else the scope of the nearest earlier forward op that has
** one; else the first layer (0). -1 only in a graph without layers. Borrowed, nops entries. */
DLB_API const int *dlb_analysis_op_layer_placed(const dlb_analysis *a);
DLB_API const int *dlb_analysis_op_type(const dlb_analysis *a);      /* op type ids */
/* Kernel classes of the ops after the fusion passes (dlb_train_opts.fuse): 0 any op,
** DLB_KERNEL_ATTENTION a fused attention kernel (the forward FlashAttention kernel, or the
** backward one with its recompute), timed at the device's attn_eff (dlb_roof);
** DLB_KERNEL_HEAD a GEMM of the output layer: the matmul whose output is the loss's logits
** (a forward softmax cross-entropy's first input, through reshapes, transposes and casts),
** its recomputation and the backward matmuls derived from it (the input and weight
** gradients), timed at the device's head_peak when that is set (an fp8 step whose recipe
** leaves the output layer in 16-bit: dlb.frameworks.head_peak). */
enum { DLB_KERNEL_PLAIN = 0, DLB_KERNEL_ATTENTION = 1, DLB_KERNEL_HEAD = 2 };
DLB_API const int *dlb_analysis_op_kernel(const dlb_analysis *a);
/* The further host ops and kernels of each op after the fusion passes, beyond the one of each
** an op that does work issues: out[2i] the further Python-level ops the host issues for op i,
** out[2i + 1] its further kernel launches (0 and 0 for every op but where a pass counts a
** stack's eager ops on a graph op: DLB_FUSE_LM_METRICS and DLB_FUSE_XENT_FP32 on the loss;
** graphs/step/fusion.c). The step model charges an op that does work host_op per host op and
** kernel_overhead per further kernel launched from C++ on the host, and times its kernels
** each on an even share of its costs (dlb_launch_time, dlb_launch_host; docs/hw.md "The
** host-side model"). Borrowed, 2 x nops entries. */
DLB_API const double *dlb_analysis_op_more(const dlb_analysis *a);
/* For matmul-like ops (matmul, batched matmul, and conv as implicit GEMM): fills m, n, k and
** batch count (out[0..3]) and returns DLB_OK; otherwise DLB_ENOTFOUND. */
DLB_API int dlb_analysis_op_gemm(const dlb_analysis *a, size_t i, double out[4]);
/* The same for every op at once: out[4i..4i+3] = op i's m, n, k and batch count as
** dlb_analysis_op_gemm gives them, or four zeros for an op that is not matmul-like (m = 0:
** no matmul, as dlb_roofline_ops_attn reads it). n must be 4 x dlb_analysis_nops(a). One
** call instead of one per op for readers that scan every op (dlb.parallel.layers.from_graph). */
DLB_API int dlb_analysis_op_gemms(const dlb_analysis *a, double *out, size_t n);
/* out[i] = 1 when the name of op i (as dlb_analysis_op_name gives it) contains sub, else 0;
** n must be dlb_analysis_nops(a). One call for a scan over every op's name (the expert ops
** of a MoE layer, "<layer>/experts/...": dlb.parallel.layers.from_graph). */
DLB_API int dlb_analysis_op_match(const dlb_analysis *a, const char *sub, int *out, size_t n);
/* Name of op i of the analysed step; returns the full length. */
DLB_API size_t dlb_analysis_op_name(const dlb_analysis *a, size_t i, char *buf, size_t size);
/* The bytes each forward op keeps for the backward: the storages a backward or recompute op
** reads, each once, at the forward op that makes it (a source such as a dropout mask: at its
** first forward reader), after the fusion passes; and the op at the peak of the analysis's
** op order also gets the activation and workspace bytes live there beyond all of those (its
** working set). out[i] for op i, 0 for the others; n must be dlb_analysis_nops(a). The one
** rule of the layers' kept bytes (dlb.parallel.layers.from_graph). */
DLB_API int dlb_analysis_op_saved(const dlb_analysis *a, double *out, size_t n);
DLB_API size_t dlb_analysis_nlayers(const dlb_analysis *a);
/* Name of layer i; borrowed while a lives; NULL if out of range. */
DLB_API const char *dlb_analysis_layer_name(const dlb_analysis *a, size_t i);
/* Costs of layer i (for pipeline partitioning): out[0] parameters, out[1] forward FLOPs,
** out[2] backward FLOPs (with recompute), out[3] update FLOPs, out[4] bytes of forward
** activations the layer sends to other layers, out[5] bytes of its weights. */
DLB_API int dlb_analysis_layer(const dlb_analysis *a, size_t i, double out[6]);
/* Which layers full activation recomputation runs again (the one rule, dlb_layer_reruns in
** graphs/step/train.c; issue [18] item 5): out[l] = 1 for a layer whose forward reads an
** activation made in another layer and holds no loss op (a block of the stack), 0 for one
** that reads only the model's inputs (an embedding) or holds a loss (a head, BERT's pooler).
** The graph path's layer-tagged recompute policies and the planner (dlb_par_layer.rerun, set
** by dlb.parallel.layers.from_graph) follow it. n must be dlb_analysis_nlayers(a). */
DLB_API int dlb_analysis_layer_rerun(const dlb_analysis *a, int *out, size_t n);
/* The parameter tensors layer i's optimizer step updates with Adam or AdamW (one per update
** op: the trainable weights, a weight outside every layer scope in the layer of its first
** consumer or the one before it; frozen ones have none; another optimizer's: none, as its
** launches are not counted): out[0] their count, out[1] the sum of ceil(numel / chunk)
** over them (the chunks a multi-tensor kernel splits them into; chunk >= 1 elements,
** dlb_optim_chunk()). In a graph without layer scopes i = 0 is the whole step (the framework
** launches its optimizer over every trainable tensor whatever the scopes: op_update_group).
** DLB_EINVAL for a layer out of range or a chunk < 1. */
DLB_API int dlb_analysis_update_tensors(const dlb_analysis *a, size_t i, double chunk,
                                        double out[2]);
/* The op order of the best schedule found (nops entries); borrowed. */
DLB_API const int *dlb_analysis_schedule(const dlb_analysis *a);
/* Exact minimal footprint by exhaustive search (dynamic programming over the subsets of
** ops, O(2^n * n)); DLB_EINVAL when the step has more than 22 ops. */
DLB_API int dlb_analysis_footprint_exact(const dlb_analysis *a, double *out);
/* The step as a training stack runs it (PyTorch autograd, then optimizer.step()): the
** analysis's op order with every update op moved after the last backward op, each weight
** gradient kept from the op that makes it until the optimizer step (loss.backward() fills
** .grad; optimizer.step() reads them all; zero_grad(set_to_none=True), the default since
** PyTorch 2.0, frees them before the next step), every other tensor (saved activations,
** checkpoints, a recomputed block's tensors, activation gradients) freed at its last use as
** autograd frees saved tensors once their node's backward has run (torch.autograd docs,
** "Saved tensors"; torch.utils.checkpoint: a block's forward is rerun inside its backward).
** The walk over the blocks in backward order: its peak is max over the ops of the bytes
** then live. out[0] the peak bytes, out[1..5] the weights, gradients, optimizer state,
** activations and workspace live at it. When an op outside the update phase reads an
** update op's output (no training step the library builds does), the analysis's own order
** is measured as it is. */
DLB_API int dlb_analysis_step_peak(const dlb_analysis *a, double out[6]);
/* The activations' peak of the analysis's own order (the schedule t.footprint measures):
** the moment, while an op runs, whose live activations + workspace are largest; out[0] the
** live bytes then, out[1..5] the weights, gradients, optimizer state, activations and
** workspace. The framework memory schedule (dlb_step_memory: weights + every trainable
** gradient + optimizer + activations) reads its activations here: the step's largest, not
** those at the peak of all bytes, which under full recompute is late in the backward with
** no activation live (issue [18] item 5: GPT-2's footprint under pytorch-ddp left its
** 228 MB of checkpoints and output layer out, 10% under the planner's mem). */
DLB_API int dlb_analysis_act_peak(const dlb_analysis *a, double out[6]);
/* Two moments of that walk: while the step's loss runs (the first softmax_xent op of the
** analysis's order) and while its backward op runs (the first op making the logits'
** gradient), the live bytes then: out[0] and out[1..5] (weights, gradients, optimizer state,
** activations, workspace) at the loss's forward op, out[6] and out[7..11] at its backward op.
** The framework profiles' loss terms (lua/dlbench/framework_memory.lua) add what the stack's
** loss holds beyond the graph's two logit-sized tensors at each moment. DLB_ENOTFOUND when
** the step has no softmax_xent with a backward op. */
DLB_API int dlb_analysis_step_loss(const dlb_analysis *a, double out[12]);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
