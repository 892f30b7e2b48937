/*
** planner_ops.c — the planner's layer times from the one per-op rule (dlb_op_time_raw,
** graphs/hw/roofline.c): each op of a layer scaled to a micro-batch and a tensor-parallel
** degree, timed at its own bound with its matmul efficiency and kernel overhead, summed by
** phase. Layers with identical ops (a transformer's blocks) share a class, and times are
** cached per (class, micro-batch, tensor degree), so a plan search over thousands of layouts
** times each distinct layer shape once.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner_ops.h"
#include "dlb_runtime.h"
#include "roofline_impl.h"
#include "planner_impl.h"

/* a cached layer class at one (micro-batch, tensor degree, expert degree, sp, moe): its
** times (compute), and the host seconds and update work that depend on fewer of those (so a
** layout's layers reach them through one look-up, dlb_layer_times_cost) */
typedef struct entry { int cls, sp, moe; double mb, tl, ep; dlb_layer_cost c; int used; } entry;

/* An op of the attention core, what selective recompute runs again: a fused attention
** kernel (attention 1) or an op of the unfused core (attention 3). */
static int core_op(const dlb_par_op *o) { return o->attention == 1 || o->attention == 3; }

/* Whether the host issues op o (dlb_layer_host): it has a cost. */
static int host_costed(const dlb_par_op *o) {
  return o->flops_sample > 0 || o->flops_fixed > 0 || o->bytes_sample > 0 || o->bytes_fixed > 0;
}

/* The host seconds of issuing op o once: its host ops and kernels (one each, and the further
** ones a pass counted on it: more_ops, more_kernels) through the one rule (dlb_launch_host, as
** dlb_step_time charges an op); nothing for an op without a cost. */
static double op_host(const dlb_roof *d, const dlb_par_op *o) {
  return host_costed(o) ? dlb_launch_host(d, 1 + o->more_ops, 1 + o->more_kernels) : 0;
}

/* Megatron's FusedScaleMaskSoftmax (dlb_par_op.softmax; issue [19] megatron-audit2): its
** fused kernel (scaled_upper_triang_masked_softmax) runs only when the attention batches
** b x np (micro-batch x heads / tp) divide by 4, VIA-Research/vTrain f8dda84
** src/model/fused_softmax.py FusedScaleMaskSoftmax.forward: custom_kernel_constraint =
** 16 < sk <= 2048 and sq % 4 == 0 and attn_batch_size % 4 == 0 (NVIDIA/Megatron-LM 2021-22
** megatron/model/fused_softmax.py is_kernel_available: attn_batches % 4 == 0, and for the
** causal kernel attn_batches % batch_per_block == 0, 4 at sk 1024 and 2048 -- the same
** rule here; the sequence part is the op's softmax_heads 0). Else forward_torch_softmax runs
** eagerly, per element of the s x s scores (e = 2 B in, E = 4 B fp32): input.float() e + E,
** input * scale 2 E, masked_fill_(mask) 2 E (in place; the boolean mask, broadcast over the
** heads, not counted), torch.nn.Softmax 2 E, probs.half() E + e: 36 B in 5 kernels for the
** fused kernel's 2 e = 4 B; autograd's backward: half's e + E, softmax's 3 E, masked_fill's
** 2 E, the scale's 2 E, float's E + e: 40 B in 5 kernels for the fused 3 e = 6 B. What else
** the op moves (a fused producer's or consumer's traffic) stays with the softmax pass, as do
** the FLOPs. A causal decoder's fused kernels (softmax 3 and 4: scaled_upper_triang_masked_
** softmax, graphs/step/fusion.c causal_softmax, issue [19] megatron-audit3) read the lower
** triangle only: 3 e = 3 B forward, 4 e = 4 B backward in the graph's count; the eager path
** (the whole s x s scores, the causal mask a masked_fill_) is the same 36 and 40 B. */
enum { SOFTMAX_PASSES = 5 };
static const double SOFTMAX_EAGER[2][SOFTMAX_PASSES] = {
  { 6, 8, 8, 8, 6 },    /* forward, bytes per element */
  { 6, 12, 8, 8, 6 },   /* backward */
};
/* the fused kernels' bytes per element, by dlb_par_op.softmax 1..4 */
static const double SOFTMAX_FUSED[4] = { 4, 6, 3, 4 };
static const int SOFTMAX_PASS[2] = { 3, 1 };          /* the pass that holds the FLOPs */

/* The kernels op o runs as at micro-batch mb on tensor degree tl: SOFTMAX_PASSES for a
** fused softmax whose kernel is not available there, else 1. smb: the samples of the
** attention batches per sample of mb (dlb_layer_times_cp): mb is the micro-batch over the
** context degree, and the rule's b is the micro-batch itself (review 16: at cp 2 the rule
** read b / 2). */
static int softmax_kernels(const dlb_par_op *o, double mb, double tl, double smb) {
  if (!(o->softmax >= 1 && o->softmax <= 4)) return 1;
  if (!(o->softmax_heads > 0)) return SOFTMAX_PASSES;
  double ab = mb * smb * o->softmax_heads / (tl > 1 ? tl : 1);
  return fmod(ab, 4) == 0 ? 1 : SOFTMAX_PASSES;
}

/* The numbers dlb_layer_times keeps per layer for dlb_layer_host (its field `host`). */
enum { HOST_COUNTS = 9 };

/* The last layer class dlb_layer_rcm answered, and its answer: consecutive blocks share one */
typedef struct rcm_memo {
  int cls, sp, moe, used;
  double mb, tl, ep, mods, load;
  double act_out, experts;   /* the layer's own fields the answer reads (not in its class) */
  dlb_par_rcm r;
} rcm_memo;

struct dlb_layer_times {
  rcm_memo rcm;
  const dlb_par_layer *L;
  int n, nops;
  dlb_par_op *ops;      /* copy, sorted by layer (stable) */
  int *first, *count;   /* per layer: its ops in `ops` */
  int *cls;             /* per layer: the first layer with the same ops and costs */
  /* per layer, what dlb_layer_host counts whatever the layout: its costed ops by phase (3),
  ** those of its attention core's forward, 1 when one of them may be launched once per
  ** local expert (else its further launches are none at any ep), and 1 when it has a fused
  ** softmax that may run eagerly (softmax_kernels: its further kernels by the layout); then
  ** by phase the further kernels its ops launch from C++ (more_kernels beyond more_ops) */
  double *host;
  /* the attention batches' samples per sample of the micro-batch the costs are asked at
  ** (dlb_layer_times_cp; the cache holds one value's times) */
  double smb;
  entry *tab;           /* open-addressing cache */
  size_t cap, used;
};


/* Do layers i and j have the same ops (all fields but the layer index) and costs? The
** layer's own fields compute reads: its FLOPs and bytes, and flops_core (a layer without ops:
** its attention core's share of the forward) */
static int same(const dlb_layer_times *T, int i, int j) {
  const dlb_par_layer *a = &T->L[i], *b = &T->L[j];
  if (a->flops_fwd != b->flops_fwd || a->flops_bwd != b->flops_bwd ||
      a->bytes_sample != b->bytes_sample || a->bytes_fixed != b->bytes_fixed ||
      a->flops_core != b->flops_core)
    return 0;
  if (T->count[i] != T->count[j]) return 0;
  for (int k = 0; k < T->count[i]; k++) {
    dlb_par_op x = T->ops[T->first[i] + k], y = T->ops[T->first[j] + k];
    x.layer = y.layer = 0;
    if (memcmp(&x, &y, sizeof x) != 0) return 0;
  }
  return 1;
}

dlb_layer_times *dlb_layer_times_new(const dlb_par_layer *L, int n, const dlb_par_op *ops,
                                     int nops) {
  if (nops < 0 || (nops > 0 && ops == NULL))
    return dlb_fail_null(DLB_EINVAL, "plan: %d ops without an array", nops);
  for (int i = 0; i < nops; i++) {
    const dlb_par_op *o = &ops[i];
    const double v[] = { o->flops_sample, o->flops_fixed, o->bytes_sample, o->bytes_fixed };
    if (!(o->layer >= 0 && o->layer < n) || o->layer != floor(o->layer))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d names layer %g (the model has %d layers)",
                           i + 1, o->layer + 1, n);
    if (!(o->phase == 0 || o->phase == 1 || o->phase == 2))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d has phase %g (0 forward, 1 backward, 2 "
                           "update)", i + 1, o->phase);
    for (size_t j = 0; j < sizeof v / sizeof v[0]; j++)
      if (!(v[j] >= 0) || !isfinite(v[j]))
        return dlb_fail_null(DLB_EINVAL, "plan: op %d has a negative or non-finite cost", i + 1);
    if (!(o->module >= DLB_OPM_NONE && o->module <= DLB_OPM_MOE_ACT && o->module == floor(o->module)))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d has module %g (0 none, 1 the pre-MLP norm, 2 "
                           "a dense MLP's op, 3 a MoE layer's op, 4 the experts' activation)",
                           i + 1, o->module);
    if (!(o->softmax >= 0 && o->softmax <= 4 && o->softmax == floor(o->softmax)) ||
        !(o->softmax_heads >= 0) ||
        !isfinite(o->softmax_heads) || o->softmax_heads != floor(o->softmax_heads) ||
        !(o->softmax_elems >= 0) || !isfinite(o->softmax_elems) ||
        ((o->softmax == 1 || o->softmax == 3) && o->phase != 0) ||
        ((o->softmax == 2 || o->softmax == 4) && o->phase != 1))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d has softmax %g, softmax_heads %g (softmax 1: "
                           "a fused softmax's forward, phase 0; 2: its backward, phase 1; 3, 4: "
                           "the same of a causal decoder's upper-triangular kernels; 0 any "
                           "other op; softmax_heads a whole number >= 0, softmax_elems >= 0)", i + 1, o->softmax,
                           o->softmax_heads);
    if (!(o->replicated == 0 || o->replicated == 1))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d has replicated %g (1: outside the tensor-"
                           "parallel region, 0: split by it)", i + 1, o->replicated);
    if (!(o->attention == 0 || o->attention == 1 || o->attention == 2 || o->attention == 3 ||
          o->attention == 4 || o->attention == 5))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d has attention %g (1: a fused attention "
                           "kernel, 2: an op of a MoE layer's experts, 3: an op of the unfused "
                           "attention core, 4: an experts' op launched once per local expert, "
                           "5: a GEMM of the output layer, 0: any other op)", i + 1, o->attention);
    if (o->attention == 5 && !(o->m > 0))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d (attention 5, a GEMM of the output layer) "
                           "must give its matmul shape (m > 0)", i + 1);
    if (o->attention == 4 && !(o->m <= 0 && o->batch >= 1 && o->batch == floor(o->batch)))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d (attention 4, launched once per local "
                           "expert) must give its layer's experts as batch (a whole number >= "
                           "1) and no matmul shape, got batch %g", i + 1, o->batch);
    if (o->m > 0 && !(o->n > 0 && o->k > 0 && o->batch > 0 && isfinite(o->m * o->n * o->k * o->batch)))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d's matmul shape must be positive and finite",
                           i + 1);
    if (dlb_bad_more(o->more_ops) || dlb_bad_more(o->more_kernels))
      return dlb_fail_null(DLB_EINVAL, "plan: op %d has more_ops %g and more_kernels %g (the "
                           "further host ops and kernels beyond its one: whole numbers, 0 to "
                           "%d)", i + 1, o->more_ops, o->more_kernels, DLB_MORE_MAX);
  }
  dlb_layer_times *T = dlb_calloc(1, sizeof *T);
  if (!T) return dlb_fail_null(DLB_ENOMEM, "plan: out of memory");
  T->L = L;
  T->n = n;
  T->nops = nops;
  T->smb = 1;
  T->ops = dlb_malloc(sizeof(dlb_par_op) * (size_t)(nops > 0 ? nops : 1));
  T->first = dlb_calloc((size_t)n, sizeof(int));
  T->count = dlb_calloc((size_t)n, sizeof(int));
  T->cls = dlb_malloc(sizeof(int) * (size_t)n);
  T->host = dlb_calloc((size_t)(n > 0 ? n : 1) * HOST_COUNTS, sizeof(double));
  T->cap = 1024;
  T->tab = dlb_calloc(T->cap, sizeof(entry));
  if (!T->ops || !T->first || !T->count || !T->cls || !T->host || !T->tab) {
    dlb_layer_times_free(T);
    return dlb_fail_null(DLB_ENOMEM, "plan: out of memory");
  }
  /* grouped by layer, each layer's ops in their given order (a step's order: the host-side
  ** timeline issues them so, dlb_layer_cost's sf and sb): a stable counting sort (a step's
  ** backward runs the layers in reverse, so its ops never arrive grouped) */
  for (int i = 0; i < nops; i++) T->count[(int)ops[i].layer]++;
  for (int li = 1; li < n; li++) T->first[li] = T->first[li - 1] + T->count[li - 1];
  for (int li = 0; li < n; li++) T->count[li] = 0;
  for (int i = 0; i < nops; i++) {
    int li = (int)ops[i].layer;
    T->ops[T->first[li] + T->count[li]++] = ops[i];
  }
  for (int i = 0; i < n; i++) {
    T->cls[i] = i;
    /* the previous layer, and the one before it, are the likely twins */
    for (int j = i - 1; j >= 0 && j >= i - 2; j--)
      if (same(T, i, T->cls[j])) { T->cls[i] = T->cls[j]; break; }
  }
  for (int li = 0; li < n; li++) {
    double *h = T->host + (size_t)li * HOST_COUNTS;
    for (int k = 0; k < T->count[li]; k++) {
      const dlb_par_op *o = &T->ops[T->first[li] + k];
      if (!host_costed(o)) continue;
      h[(int)o->phase] += 1 + o->more_ops;
      if (o->phase == 0 && core_op(o)) h[3] += 1 + o->more_ops;
      if (o->more_kernels > o->more_ops) h[6 + (int)o->phase] += o->more_kernels - o->more_ops;
      if (o->attention == 4 || (o->attention == 2 && o->phase != 2 && o->m > 0)) h[4] = 1;
      if (o->softmax != 0) h[5] = 1;
    }
  }
  return T;
}

void dlb_layer_times_free(dlb_layer_times *T) {
  if (!T) return;
  dlb_free(T->ops);
  dlb_free(T->first);
  dlb_free(T->count);
  dlb_free(T->cls);
  dlb_free(T->host);
  dlb_free(T->tab);
  dlb_free(T);
}

void dlb_layer_times_cp(dlb_layer_times *T, double smb) {
  if (!T || !(smb > 0) || smb == T->smb) return;
  T->smb = smb;
  dlb_layer_times_reset(T);
}

void dlb_layer_times_reset(dlb_layer_times *T) {
  if (T) T->rcm.used = 0;
  if (!T || T->used == 0) return;
  memset(T->tab, 0, T->cap * sizeof(entry));
  T->used = 0;
}

static size_t hash(int cls, double mb, double tl, double ep, int sp, int moe, size_t cap) {
  unsigned long long h = (unsigned long long)(4 * cls + 2 * moe + sp) * 0x9E3779B97F4A7C15ULL;
  h ^= (unsigned long long)(mb * 1024) * 0xC2B2AE3D27D4EB4FULL;
  h ^= (unsigned long long)tl * 0x165667B19E3779F9ULL;
  h ^= (unsigned long long)ep * 0x27D4EB2F165667C5ULL;
  h ^= h >> 29;
  return (size_t)(h & (cap - 1));
}

static entry *find(dlb_layer_times *T, int cls, double mb, double tl, double ep, int sp,
                   int moe) {
  size_t i = hash(cls, mb, tl, ep, sp, moe, T->cap);
  for (;;) {
    entry *e = &T->tab[i];
    if (!e->used || (e->cls == cls && e->mb == mb && e->tl == tl && e->ep == ep && e->sp == sp
                     && e->moe == moe))
      return e;
    i = (i + 1) & (T->cap - 1);
  }
}

static int grow(dlb_layer_times *T) {
  entry *old = T->tab;
  size_t oc = T->cap;
  T->tab = dlb_calloc(2 * oc, sizeof(entry));
  if (!T->tab) { T->tab = old; return dlb_fail(DLB_ENOMEM, "plan: out of memory"); }
  T->cap = 2 * oc;
  for (size_t i = 0; i < oc; i++)
    if (old[i].used)
      *find(T, old[i].cls, old[i].mb, old[i].tl, old[i].ep, old[i].sp, old[i].moe) = old[i];
  dlb_free(old);
  return DLB_OK;
}


/* The streams Transformer Engine spreads a grouped GEMM's per-expert cuBLAS calls over
** (transformer_engine/common/gemm/cublaslt_gemm.cu, multi_stream_cublas_gemm: GEMM i on
** compute stream i % num_streams; num_streams = 4, transformer_engine/gemm.h). */
enum { TE_GEMM_STREAMS = 4 };

/* The local experts an expert matmul of gemm shape g (after ep) is launched as under
** DLB_MOE_MCORE: its batch dimension, the experts a rank holds (1: not split). */
static double local_gemms(const dlb_par_op *o, const double *g, int moe) {
  if (moe != DLB_MOE_MCORE || o->attention != 2 || o->phase == 2 || !(o->m > 0)) return 1;
  return g[3] > 1 ? g[3] : 1;
}

/* The kernels an op marked attention 4 is launched as: once per local expert, the layer's
** experts (its batch field) over the expert degree xe (Transformer Engine quantises a grouped
** linear's tensors one at a time outside delayed scaling: pytorch/csrc/extensions/cast.cpp
** multi_quantize_impl, "Quantize kernels individually"; dlbench.te_fp8). 1 for other ops. */
static double per_expert(const dlb_par_op *o, double xe) {
  if (o->attention != 4) return 1;
  double nl = o->batch / (xe > 1 ? xe : 1);
  return nl > 1 ? nl : 1;
}

/* The FLOPs and (scaled) bytes of op o of a layer at mb samples on tensor degree tl, expert
** degree ep, with sequence parallelism when sp (*xe: the expert degree its weights split
** over): what op_time times, and what dlb_layer_update sums. */
static void op_work(const dlb_roof *d, const dlb_par_op *o, double mb, double tl, double ep,
                    int sp, double *f, double *b, double *xe) {
  double scale = d->bytes_scale > 0 ? d->bytes_scale : 1;
  /* expert parallelism (Megatron-Core's experts.py: num_local_experts = experts / ep, the
  ** tokens of the ep ranks dispatched to them): a rank's expert ops hold experts/ep of the
  ** weights and ep x the rows each, the same FLOPs; the update phase's share is the
  ** planner's (dlb_par_evaluate divides it by ep) */
  *xe = ((o->attention == 2 || o->attention == 4) && ep > 1 && o->phase != 2) ? ep : 1;
  /* an op outside the tensor-parallel region runs whole on every rank, or on 1/tl of the
  ** sequence under sequence parallelism (Korthikanti et al. 2022 sec. 4.2.2) */
  double ot = (o->replicated != 0 && !sp) ? 1 : tl;
  *f = (o->flops_sample * mb + o->flops_fixed) / ot;
  *b = scale * (o->bytes_sample * mb + o->bytes_fixed / *xe) / ot;
}

void dlb_layer_update(const dlb_layer_times *T, const dlb_roof *d, int li, double tl, int sp,
                      double *f, double *b) {
  *f = *b = 0;
  for (int k = 0; k < T->count[li]; k++) {
    const dlb_par_op *o = &T->ops[T->first[li] + k];
    if (o->phase != 2) continue;
    double of, ob, xe;
    op_work(d, o, 1, tl, 1, sp, &of, &ob, &xe);
    *f += of, *b += ob;
  }
}

/* Seconds of pass i of the eager path of fused softmax op o at mb samples on tensor degree
** tl, (f, b) its FLOPs and bytes as op_work gives them. */
static double softmax_pass(const dlb_roof *d, const dlb_par_op *o, double mb, double tl,
                           double f, double b, int i) {
  int k = o->softmax == 2 || o->softmax == 4, mbound;
  double scale = d->bytes_scale > 0 ? d->bytes_scale : 1;
  double n = scale * o->softmax_elems * mb / (tl > 1 ? tl : 1);   /* elements on this rank */
  double pb = SOFTMAX_EAGER[k][i] * n;
  if (i == SOFTMAX_PASS[k]) pb += fmax(0, b - SOFTMAX_FUSED[(int)o->softmax - 1] * n);
  return dlb_op_time_raw(d, i == SOFTMAX_PASS[k] ? f : 0, pb, NULL, 0, &mbound);
}

/* Seconds of one op o of a layer at mb samples on tensor degree tl, expert degree ep (its
** expert ops), with sequence parallelism when sp, under moe (DLB_MOE_*): the per-op rule
** (dlb_op_time_raw) at its own bound. */
static double op_time(const dlb_roof *d, const dlb_par_op *o, double mb, double tl, double ep,
                      int sp, int moe, double smb) {
  int mbound;
  double f, b, xe;
  op_work(d, o, mb, tl, ep, sp, &f, &b, &xe);
  double g[4] = { o->m, o->n, o->k, o->batch };
  if (o->m > 0) {
    int gd = (int)o->grow, sd = (int)o->split;
    if (gd >= 1 && gd <= 4) g[gd - 1] *= mb;
    if (xe > 1 && g[3] >= xe) {
      g[3] /= xe;
      if (gd >= 1 && gd <= 3) g[gd - 1] *= xe;
    }
    if (tl > 1 && sd >= 1 && sd <= 4) g[sd - 1] = fmax(1, g[sd - 1] / tl);
  }
  double nl = local_gemms(o, g, moe);
  double pe = per_expert(o, xe);
  if (softmax_kernels(o, mb, tl, smb) > 1) {
    /* the eager path: its passes, each a kernel */
    double t = 0;
    for (int i = 0; i < SOFTMAX_PASSES; i++) t += softmax_pass(d, o, mb, tl, f, b, i);
    return t;
  }
  if (pe > 1) {
    /* one kernel per local expert, each on its expert's share of the bytes (dlb_launch_time) */
    return dlb_launch_time(d, f, b, NULL, 0, pe, &mbound);
  } else if (nl > 1) {
    /* Megatron-Core's TEGroupedMLP: Transformer Engine's GroupedLinear runs one cuBLAS GEMM
    ** per local expert (general_grouped_gemm -> multi_stream_cublas_gemm), up to
    ** TE_GEMM_STREAMS at once on their streams: ceil(nl / s) rounds, each the per-op rule
    ** of s experts' GEMMs as one batch (their tiles share the device; one launch each
    ** round on the device's clock) */
    double s = nl < TE_GEMM_STREAMS ? nl : TE_GEMM_STREAMS;
    double g1[4] = { g[0], g[1], g[2], s };
    return ceil(nl / s) * dlb_op_time_raw(d, f * s / nl, b * s / nl, g1, 0, &mbound);
  }
  /* the kernel class: a fused attention kernel (1), a GEMM of the output layer (5: at the
  ** device's head_peak when set, dlb_op_time_raw); its kernels: one, or the further ones a
  ** pass counted on it, each an even share */
  int kind = o->attention == 1 ? DLB_KERNEL_ATTENTION : o->attention == 5 ? DLB_KERNEL_HEAD : 0;
  return dlb_launch_time(d, f, b, o->m > 0 ? g : NULL, kind, 1 + o->more_kernels, &mbound);
}

/* Time layer li (uncached). ep: the expert-parallel degree its expert ops (attention 2)
** run under (1: all the experts on every rank); moe: DLB_MOE_*. */
static void compute(const dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                    double ep, int sp, int moe, double *tf, double *tb, double *tu, double *af,
                    double *ab, double *cf, double *mf, double *mbk) {
  const dlb_par_layer *l = &T->L[li];
  double scale = d->bytes_scale > 0 ? d->bytes_scale : 1;
  int mbound;
  *tf = *tb = *tu = *af = *ab = *cf = *mf = *mbk = 0;
  if (T->count[li] == 0) {
    double fl = l->flops_fwd + l->flops_bwd;
    double t = dlb_op_time_raw(d, fl * mb / tl, scale * (l->bytes_sample * mb + l->bytes_fixed) / tl,
                               NULL, 0, &mbound);
    *tf = fl > 0 ? t * l->flops_fwd / fl : t / 3;
    *tb = t - *tf;
    /* one op: the attention core is its share of the forward FLOPs, the experts their share
    ** of the layer's FLOPs (expert_frac) */
    *cf = l->flops_fwd > 0 ? *tf * fmin(1, l->flops_core / l->flops_fwd) : 0;
    double ex = l->experts > 0 ? fmin(1, fmax(0, l->expert_frac)) : 0;
    *mf = *tf * ex;
    *mbk = *tb * ex;
    return;
  }
  for (int k = 0; k < T->count[li]; k++) {
    const dlb_par_op *o = &T->ops[T->first[li] + k];
    double t = op_time(d, o, mb, tl, ep, sp, moe, T->smb);
    if (o->phase == 0) *tf += t;
    else if (o->phase == 1) *tb += t;
    else *tu += t;
    if (o->attention == 1 && o->phase == 0) *af += t;
    if (o->attention == 1 && o->phase == 1) *ab += t;
    if (core_op(o) && o->phase == 0) *cf += t;   /* the attention core's forward */
    /* the experts' side: their ops (attention 2, 4) both ways, and forward their activation
    ** (module DLB_OPM_MOE_ACT; backward ops carry no module: its gradient stays with the
    ** rest) */
    int ex = o->attention == 2 || o->attention == 4;
    if (o->phase == 0 && (ex || o->module == DLB_OPM_MOE_ACT)) *mf += t;
    if (o->phase == 1 && ex) *mbk += t;
  }
}

/* The layer's forward and backward through the host-side timeline from a synchronisation
** point (dlb_layer_cost's sf and sb): host_layer before a forward that issues ops, then each
** op at op_time and op_host when it has a cost (dlb_layer_host's counts), kernel by kernel
** (dlb_timeline_kernels); a layer without ops
** one op each way (tf, tb). The grouped GEMMs' further per-expert launches are not ops here
** (the planner adds what dlb_layer_host counts beyond these). */
static void segments(const dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                     double ep, int sp, int moe, double tf, double tb, dlb_timeline *sf,
                     dlb_timeline *sb) {
  const dlb_timeline z = { 0, 0, 0, 0 };
  *sf = *sb = z;
  if (!(d->host_op > 0 || d->host_layer > 0)) return;
  if (T->count[li] == 0) {
    dlb_timeline_op(sf, 0, d->host_layer);
    dlb_timeline_op(sf, tf, d->host_op);
    dlb_timeline_op(sb, tb, d->host_op);
    return;
  }
  if (T->host[(size_t)li * HOST_COUNTS] > 0) dlb_timeline_op(sf, 0, d->host_layer);
  for (int k = 0; k < T->count[li]; k++) {
    const dlb_par_op *o = &T->ops[T->first[li] + k];
    if (o->phase == 2) continue;
    double t = op_time(d, o, mb, tl, ep, sp, moe, T->smb), h = op_host(d, o);
    int nk = softmax_kernels(o, mb, tl, T->smb);
    if (nk > 1) {
      /* an eager softmax: each pass a kernel the host issues (op_time's passes) */
      double f, b, xe;
      op_work(d, o, mb, tl, ep, sp, &f, &b, &xe);
      for (int i = 0; i < nk; i++)
        dlb_timeline_op(o->phase == 0 ? sf : sb, softmax_pass(d, o, mb, tl, f, b, i), h);
      continue;
    }
    dlb_timeline_kernels(o->phase == 0 ? sf : sb, t, h, 1 + o->more_kernels);
  }
}

/* Whether torchtitan's per-op selective AC keeps forward op o's output (DLB_PAR_RECOMPUTE_OP):
** its `_save_list` policy (torchtitan/parallelisms/parallelize_llama.py,
** _apply_ac_to_transformer_block, 2024) saves the outputs of the SDPA kernels
** (aten._scaled_dot_product_flash_attention / _efficient_attention: a fused attention kernel,
** attention 1) and of aten.mm except every second call ("Saves output of all compute ops,
** except every second mm": the count is incremented before the test, so calls 1, 3, 5, ...
** are saved); every other op is PREFER_RECOMPUTE. *mm counts the layer's weight matmuls so
** far (an unbatched GEMM, batch 1, of no MoE layer's experts: nn.Linear's aten.mm). */
static int sac_saved(const dlb_par_op *o, int *mm) {
  if (o->attention == 1) return 1;
  if (o->m > 0 && o->batch == 1 && (o->attention == 0 || o->attention == 5)) {
    *mm += 1;
    return *mm % 2 == 1;
  }
  return 0;
}

/* The bytes per sample of op o's output, an estimate from its bytes per sample: a weight
** matmul reads m x k and writes m x n elements per sample (its weights are bytes_fixed), so
** its output is n / (n + k) of them; a fused attention kernel writes the attention output,
** half of the layer's qo_bytes (Q and the output) when the layer gives them, else a quarter
** of what it moves (Q, K, V and the output, equal under multi-head attention); its fp32
** log-sum-exp (2 / head dim of the 16-bit output's bytes) is not counted. */
static double out_bytes(const dlb_par_layer *l, const dlb_par_op *o) {
  if (o->attention == 1) return l->qo_bytes > 0 ? l->qo_bytes / 2 : o->bytes_sample / 4;
  if (o->m > 0 && o->n + o->k > 0) return o->bytes_sample * o->n / (o->n + o->k);
  return o->bytes_sample;
}

int dlb_layer_sac(const dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                  double ep, int sp, int moe, double *rt, double *rf, double *rh, double *kept) {
  *rt = *rf = *rh = *kept = 0;
  if (T->count[li] == 0)
    return dlb_fail(DLB_EINVAL, "plan: recompute 3 (\"selective_op\": torchtitan's per-op selective AC) needs the "
                    "layers' ops (dlb.parallel.layers.from_graph), layer %d has none", li + 1);
  const dlb_par_layer *l = &T->L[li];
  int mm = 0;
  for (int k = 0; k < T->count[li]; k++) {
    const dlb_par_op *o = &T->ops[T->first[li] + k];
    if (o->phase != 0) continue;
    double ot = (o->replicated != 0 && !sp) ? 1 : tl;
    if (sac_saved(o, &mm)) {
      *kept += out_bytes(l, o) / ot;
    } else {
      *rt += op_time(d, o, mb, tl, ep, sp, moe, T->smb);
      *rf += o->flops_sample;
      int nk = softmax_kernels(o, mb, tl, T->smb);
      *rh += nk > 1 ? (host_costed(o) ? nk * d->host_op : 0) : op_host(d, o);
    }
  }
  /* the checkpoint reruns the block's Python forward to reach them (as full recompute's
  ** host time, dlb_layer_host's forward: host_layer once a layer) */
  if (*rh > 0) *rh += d->host_layer;
  return DLB_OK;
}

/* Does Megatron-Core's recompute_modules `mods` (DLB_RCM_*) rerun forward op o of a layer
** (moe: the layer is a MoE layer)? Returns how many times (2: the experts' activation under
** both "moe" and "moe_act": the MoE layer's recomputed forward discards its output again, and
** linear_fc2's backward rebuilds it once more), and sets the DLB_RCM_* flag that selected it.
** The attention core (DLB_RCM_CORE_ATTN) is the selective policy's own rule, not counted here.
** Under the Transformer Engine spec the pre-MLP norm is a module of its own (TENorm) in a MoE
** layer and part of linear_fc1 (TELayerNormColumnParallelLinear) in a dense one. */
static int rcm_runs(const dlb_par_op *o, int mods, int moe, int *flag) {
  int m = (int)o->module, n = 0;
  *flag = 0;
  if (o->phase != 0) return 0;
  if (m == DLB_OPM_PRE_MLP_NORM && moe && (mods & DLB_RCM_LAYERNORM)) { n = 1; *flag = DLB_RCM_LAYERNORM; }
  if (m == DLB_OPM_PRE_MLP_NORM && !moe && (mods & DLB_RCM_MLP)) { n = 1; *flag = DLB_RCM_MLP; }
  if (m == DLB_OPM_MLP && !moe && (mods & DLB_RCM_MLP)) { n = 1; *flag = DLB_RCM_MLP; }
  if ((m == DLB_OPM_MOE || m == DLB_OPM_MOE_ACT) && moe && (mods & DLB_RCM_MOE)) {
    n = 1; *flag = DLB_RCM_MOE;
  }
  if (m == DLB_OPM_MOE_ACT && moe && (mods & DLB_RCM_MOE_ACT)) { n += 1; *flag |= DLB_RCM_MOE_ACT; }
  return n;
}

int dlb_layer_rcm(dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                  double ep, int sp, int moe, double mods, double load, dlb_par_rcm *r) {
  memset(r, 0, sizeof *r);
  const dlb_par_layer *l = &T->L[li];
  int cls = T->cls[li];
  rcm_memo *c = &T->rcm;
  if (c->used && c->cls == cls && c->mb == mb && c->tl == tl && c->ep == ep && c->sp == sp
      && c->moe == moe && c->mods == mods && c->load == load && c->act_out == l->act_out
      && c->experts == l->experts) {
    *r = c->r;
    return DLB_OK;
  }
  int im = (int)mods, ismoe = l->experts > 0;
  double all = 0, part = 0;   /* the layer's forward bytes per sample on a rank, the modules' */
  int lastact = -1, act = 0;  /* the experts' last activation op; its output found */
  for (int k = 0; k < T->count[li]; k++)
    if (T->ops[T->first[li] + k].phase == 0 && T->ops[T->first[li] + k].module == DLB_OPM_MOE_ACT)
      lastact = k;
  for (int k = 0; k < T->count[li]; k++) {
    const dlb_par_op *o = &T->ops[T->first[li] + k];
    if (o->phase != 0) continue;
    double ot = (o->replicated != 0 && !sp) ? 1 : tl;
    all += o->bytes_sample / ot;
    int flag, n = rcm_runs(o, im, ismoe, &flag);
    /* the experts' activation output: linear_fc2's input, m x k of the (m x k + m x n)
    ** elements per sample the next expert matmul moves (out_bytes' complement) */
    if (!act && k > lastact && lastact >= 0 && o->attention == 2 && o->m > 0 && o->n + o->k > 0) {
      if ((im & DLB_RCM_MOE_ACT) && !(im & DLB_RCM_MOE))
        r->out += o->bytes_sample * o->k / (o->n + o->k) / ot;
      act = 1;
    }
    if (n == 0) continue;
    r->hit |= flag;
    /* the busiest expert sets an expert op's time (the layer's load, as its forward) */
    double ld = (o->attention == 2 || o->attention == 4 || o->module == DLB_OPM_MOE_ACT) ? load : 1;
    r->time += n * ld * op_time(d, o, mb, tl, ep, sp, moe, T->smb);
    r->flops += n * o->flops_sample;
    r->host += n * op_host(d, o);
    /* normal checkpointing (mlp, moe) frees what the module keeps but its input: its share of
    ** the layer's kept bytes, in proportion to its forward bytes per sample (the rule that
    ** spreads the step's activations over the layers, dlb.parallel.layers.from_graph); an
    ** output-discarding norm (layernorm) frees its output, the block's hidden state */
    if (flag & (DLB_RCM_MLP | DLB_RCM_MOE)) part += o->bytes_sample / ot;
    else if (flag == DLB_RCM_LAYERNORM) r->out += l->act_out / ot;
  }
  r->share = all > 0 ? part / all : 0;
  /* the module's rerun repeats its collectives: the MLP side's tensor-parallel pair, and a
  ** MoE layer's dispatch and combine all-to-alls */
  r->side = (r->hit & (DLB_RCM_MLP | DLB_RCM_MOE)) != 0;
  c->used = 1; c->cls = cls; c->mb = mb; c->tl = tl; c->ep = ep; c->sp = sp; c->moe = moe;
  c->mods = mods; c->load = load; c->act_out = l->act_out; c->experts = l->experts; c->r = *r;
  return DLB_OK;
}

int dlb_layer_rcm_check(const dlb_layer_times *T, double mods) {
  static const struct { int flag; const char *name, *needs; } M[] = {
    { DLB_RCM_CORE_ATTN, "core_attn", "an attention core (ops marked attention 1 or 3, or a "
      "layer's flops_core)" },
    { DLB_RCM_LAYERNORM, "layernorm", "a MoE layer's pre-MLP norm (Transformer Engine fuses "
      "the other norms into linear_qkv and linear_fc1)" },
    { DLB_RCM_MLP, "mlp", "a dense block's MLP" },
    { DLB_RCM_MOE, "moe", "a MoE layer" },
    { DLB_RCM_MOE_ACT, "moe_act", "a MoE layer's experts' activation" },
  };
  int all = DLB_RCM_CORE_ATTN | DLB_RCM_LAYERNORM | DLB_RCM_MLP | DLB_RCM_MOE | DLB_RCM_MOE_ACT;
  if (!(mods >= 0 && mods <= all && mods == floor(mods)))
    return dlb_fail(DLB_EINVAL, "plan: recompute_modules must be a sum of DLB_RCM_* flags (0..%d), "
                    "got %g", all, mods);
  int im = (int)mods, hit = 0;
  if (im == 0) return DLB_OK; /* no module asked for: nothing to find (the common call) */
  for (int li = 0; li < T->n; li++) {
    const dlb_par_layer *l = &T->L[li];
    if (l->flops_core > 0) hit |= DLB_RCM_CORE_ATTN;
    for (int k = 0; k < T->count[li]; k++) {
      const dlb_par_op *o = &T->ops[T->first[li] + k];
      int flag;
      if (o->phase == 0 && core_op(o)) hit |= DLB_RCM_CORE_ATTN;
      if (rcm_runs(o, im, l->experts > 0, &flag) > 0) hit |= flag;
    }
  }
  for (size_t i = 0; i < sizeof M / sizeof M[0]; i++)
    if ((im & M[i].flag) && !(hit & M[i].flag))
      return dlb_fail(DLB_EINVAL, "plan: recompute_modules \"%s\" reruns nothing in this model: "
                      "it needs %s, with the layers' ops (dlb.parallel.layers.from_graph)",
                      M[i].name, M[i].needs);
  return DLB_OK;
}

void dlb_layer_host(const dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                    double ep, int moe, double *hf, double *hb, double *hu, double *hc) {
  double n[3] = { 0, 0, 0 }, nc = 0, xl[3] = { 0, 0, 0 };
  if (T->count[li] == 0) {
    n[0] = n[1] = 1;
  } else {
    /* the counts, made once (dlb_layer_times_new); the per-expert launches by the layout */
    const double *h = T->host + (size_t)li * HOST_COUNTS;
    n[0] = h[0]; n[1] = h[1]; n[2] = h[2]; nc = h[3];
    /* the further kernels its ops launch from C++ (a pass's eager ops: dlb_launch_host) */
    xl[0] = h[6]; xl[1] = h[7]; xl[2] = h[8];
    for (int k = 0; h[4] != 0 && k < T->count[li]; k++) {
      const dlb_par_op *o = &T->ops[T->first[li] + k];
      if (host_costed(o)) {
        /* a grouped GEMM's further per-expert cuBLAS calls (compute's DLB_MOE_MCORE rule):
        ** launched from Transformer Engine's C++ loop, no Python dispatch each, so each costs
        ** the host a kernel launch (the device's kernel_overhead: "a CUDA kernel launch is
        ** 3-5 us on the host", hw_catalog.lua) */
        double g[4] = { o->m, o->n, o->k, o->batch };
        if (ep > 1 && g[3] >= ep) g[3] /= ep;
        double nl = local_gemms(o, g, moe);
        if (nl > 1) xl[(int)o->phase] += nl - 1;
        /* an op launched once per local expert from Transformer Engine's C++ loop: its
        ** further launches, as the grouped GEMM's */
        double pe = per_expert(o, (o->phase != 2 && ep > 1) ? ep : 1);
        if (pe > 1) xl[(int)o->phase] += pe - 1;
      }
    }
    /* an eager softmax's further kernels, each dispatched from Python (host_op) */
    for (int k = 0; h[5] != 0 && k < T->count[li]; k++) {
      const dlb_par_op *o = &T->ops[T->first[li] + k];
      if (!host_costed(o)) continue;
      int nk = softmax_kernels(o, mb, tl, T->smb);
      if (nk <= 1) continue;
      n[(int)o->phase] += nk - 1;
      if (o->phase == 0 && core_op(o)) nc += nk - 1;
    }
  }
  /* no host model (host_op 0: a compiled or graph-captured step) issues nothing per launch */
  double lk = d->host_op > 0 ? d->kernel_overhead : 0;
  *hf = n[0] * d->host_op + xl[0] * lk + (n[0] > 0 ? d->host_layer : 0);
  *hb = n[1] * d->host_op + xl[1] * lk;
  *hu = n[2] * d->host_op + xl[2] * lk;
  *hc = nc * d->host_op;
}

/* The dW GEMMs of layer li's column-parallel linears (dlb_layer_cost.cw, planner_ops.h). */
static void column_wgrads(const dlb_layer_times *T, const dlb_roof *d, int li, double mb,
                          double tl, double ep, int sp, int moe, dlb_layer_cost *c) {
  c->ncw = 0;
  for (int j = 0; j < 4; j++) c->cw[j] = 0;
  for (int k = 0; k < T->count[li]; k++) {
    const dlb_par_op *o = &T->ops[T->first[li] + k];
    if (o->phase != 0 || !(o->m > 0) || o->split != 2 || o->attention != 0 || o->replicated)
      continue;
    c->cw[c->ncw < 4 ? c->ncw : 3] += op_time(d, o, mb, tl, ep, sp, moe, T->smb);
    c->ncw += c->ncw < 4;
  }
}

double dlb_layer_tp_exposed(const dlb_layer_cost *c, double ncol, double t, double f) {
  double e = 0;
  int n = (int)ncol;
  for (int k = 0; k < n; k++) {
    double w = 0;
    if (k < n - 1) w = k < c->ncw ? c->cw[k] : 0;
    else for (int j = k; j < c->ncw; j++) w += c->cw[j];   /* the last: the rest */
    e += w > 0 ? dlb_par_hidden(t, w, f) : t;
  }
  return e + (ncol - n) * t;   /* (a fractional count: its remainder exposed) */
}

int dlb_layer_times_cost(dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                         double ep, int sp, int moe, dlb_layer_cost *out) {
  int cls = T->cls[li];
  if (!(ep >= 1)) ep = 1;
  sp = sp != 0;
  moe = moe == DLB_MOE_MCORE;
  entry *e = find(T, cls, mb, tl, ep, sp, moe);
  if (!e->used) {
    if (2 * (T->used + 1) > T->cap) {
      int st = grow(T);
      if (st) return st;
      e = find(T, cls, mb, tl, ep, sp, moe);
    }
    e->used = 1;
    e->cls = cls;
    e->sp = sp;
    e->moe = moe;
    e->mb = mb;
    e->tl = tl;
    e->ep = ep;
    dlb_layer_cost *c = &e->c;
    compute(T, d, cls, mb, tl, ep, sp, moe, &c->tf, &c->tb, &c->tu, &c->af, &c->ab, &c->cf,
            &c->mf, &c->mb);
    /* the same functions the planner called per layer and layout before (exact: a class's
    ** layers have the same ops) */
    dlb_layer_host(T, d, cls, mb, tl, ep, moe ? DLB_MOE_MCORE : DLB_MOE_GRAPH, &c->hf, &c->hb, &c->hu,
                   &c->hc);
    dlb_layer_update(T, d, cls, tl, sp, &c->uf, &c->ub);
    dlb_layer_update(T, d, cls, 1, sp, &c->wf, &c->wb);
    segments(T, d, cls, mb, tl, ep, sp, moe, c->tf, c->tb, &c->sf, &c->sb);
    column_wgrads(T, d, cls, mb, tl, ep, sp, moe, c);
    T->used++;
  }
  *out = e->c;
  return DLB_OK;
}

int dlb_layer_times_get(dlb_layer_times *T, const dlb_roof *d, int li, double mb, double tl,
                        double ep, int sp, int moe, double *tf, double *tb, double *tu,
                        double *af, double *ab, double *cf) {
  dlb_layer_cost c;
  int st = dlb_layer_times_cost(T, d, li, mb, tl, ep, sp, moe, &c);
  if (st) return st;
  *tf = c.tf;
  *tb = c.tb;
  *tu = c.tu;
  if (af) *af = c.af;
  if (ab) *ab = c.ab;
  if (cf) *cf = c.cf;
  return DLB_OK;
}
