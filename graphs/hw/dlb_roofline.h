/*
** dlb_roofline.h — roofline timing of costs and graphs on a device: whole-graph time
** (Hestness et al. 5.2.2), per-op time (each op at its own bound, ParaDnn Fig 3), the
** cache-aware tiled-matmul traffic model (Hestness et al. 6.1).
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_ROOFLINE_H
#define DLB_ROOFLINE_H

#include <stddef.h>

#include "dlb_hw.h"
#include "dlb_graph.h"

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
enum { DLB_BOUND_COMPUTE = 0, DLB_BOUND_MEMORY = 1 };

/* The roofline time of a step (or of one op). Seconds, FLOPs, bytes. */
typedef struct dlb_roof_result {
  double time;          /* s: whole graph max(compute, memory); per op: sum of op times */
  double compute_time;  /* s: flops / (peak * flops_eff) */
  double memory_time;   /* s: bytes / (bw * bw_eff) */
  double flops;         /* total FLOPs */
  double bytes;         /* total bytes (after the cache model when it is on) */
  double util;          /* flops / (time * peak): the algorithmic FLOP utilisation */
  double memory_bound_time; /* s spent in memory-bound ops (per op; whole graph: 0 or time) */
  double n_memory_bound;    /* how many ops are memory-bound */
  int bound;            /* DLB_BOUND_COMPUTE or DLB_BOUND_MEMORY (of the totals) */
  double host_idle;     /* s the device waits for the host to issue ops (per op, with the
                           device's host_op; 0 without it): time = device busy + host_idle */
  double host_time;     /* s the host spends issuing the ops (n ops x host_op) */
  double update_time;   /* s of time spent in the optimizer step's update phase under a launch
                           model (dlb_opcosts_set_optim; 0 without one) */
} dlb_roof_result;

/* Whole-graph roofline time of `flops` FLOPs and `bytes` bytes:
** max(flops / (peak * flops_eff), bytes / (bw * bw_eff)). Non-negative finite inputs. */
DLB_API int dlb_roofline_time(const dlb_roof *d, double flops, double bytes, dlb_roof_result *out);

/* Per-op roofline over plain arrays of n ops: each op at its own bound, run in order on
** one stream; with the device's host_op the ops go through the host timeline (the device
** starts op i when it is free and the host has issued it: dlb_timeline), else times summed.
** gemm (may be NULL) holds 4 numbers per op (m, n, k, batch; m <= 0 when the op is not
** a matmul); with d->cache_aware the bytes of matmul ops become
** max(bytes[i], dlb_gemm_traffic(...)). op_time and op_bound (may be NULL) receive each
** op's time (s) and bound; the caller supplies n entries. */
DLB_API int dlb_roofline_ops(const dlb_roof *d, const double *flops, const double *bytes,
                     const double *gemm, size_t n, double *op_time, int *op_bound,
                     dlb_roof_result *out);

/* The one per-op time rule every model uses (dlb.roofline.time op by op, data
** parallelism, the planner's layers): an op of `flops` FLOPs moving `bytes` bytes
** (after bytes_scale and, with d->cache_aware and a gemm shape, the tiled traffic) takes
**   kernel_overhead + max(flops / (peak x flops_eff x q), (bytes + half_bw_bytes) / (bw x bw_eff))
** where q (dlb_gemm_efficiency) is the share of the matrix units a matmul of shape
** gemm = {m, n, k, batch} keeps busy (1 for other ops, or gemm NULL or m <= 0);
** kernel_overhead only for an op that does work. *time receives seconds, *bound (may be
** NULL) DLB_BOUND_COMPUTE or DLB_BOUND_MEMORY. */
DLB_API int dlb_op_time(const dlb_roof *d, double flops, double bytes, const double *gemm,
                        double *time, int *bound);
/* dlb_roofline_ops with fused-attention marks: attention (may be NULL) holds n flags, an
** op whose flag is nonzero is a fused attention kernel timed at d->attn_eff of d->peak when
** that is set (as the analysis marks FlashAttention in a graph; dlb.serve's prefill and
** decode kernels). */
DLB_API int dlb_roofline_ops_attn(const dlb_roof *d, const double *flops, const double *bytes,
                                  const double *gemm, const int *attention, size_t n,
                                  double *op_time, int *op_bound, dlb_roof_result *out);
/* The per-op rule over a run of ops that grow with a counter (a decode step's attention as
** the KV cache grows by one token a step): op j, for every integer j in [lo, hi], moves
** bytes0 + bytes1 min(j, cap) bytes and does flops0 + flops1 min(j, cap) FLOPs (cap < 0: no
** cap; a sliding window stops the growth at cap), and takes max(t_j, min_time) seconds, t_j
** the rule of dlb_op_time (attention != 0: a fused attention kernel, as
** dlb_roofline_ops_attn; no gemm shape) and min_time a lower bound per op (an asynchronous
** launch interval; 0 for none). out receives the sums (time, flops, bytes,
** memory_bound_time, n_memory_bound) and the whole run's compute and memory times. Every
** op is evaluated, not a closed form, so a change to the rule reaches this sum too; at most
** 2^31 ops. */
DLB_API int dlb_op_time_run(const dlb_roof *d, double flops0, double flops1, double bytes0,
                            double bytes1, double lo, double hi, double cap, int attention,
                            double min_time, dlb_roof_result *out);
/* The fraction of the device's matrix throughput a matmul [m,k] x [k,n], `batch` times,
** can use (0, 1]: the product of
** - GPU tile and wave quantisation (sm_count and gemm_tile set): the output is cut into
**   T = ceil(m/tm) ceil(n/tn) batch tiles run in waves of sm_count (NVIDIA, "Matrix
**   Multiplication Background User's Guide", Deep Learning Performance Documentation: tile
**   and wave quantization); when T < sm_count the reduction is split over
**   s = min(floor(sm_count / T), floor(k / 256)) slices (split-K, CUTLASS; Osama et al.
**   2023), so q = m n batch s / (ceil(T s / sm_count) x sm_count x tm x tn); with
**   gemm_tile_overhead = t0 > 0 (a fixed cost per tile and slice: pipeline prologue and
**   epilogue) also times t_main / (t_main + t0), t_main = 2 tm tn (k / s) sm_count /
**   (peak x flops_eff) the tile's main loop (docs/hw.md "GEMM efficiency: a fixed cost per tile");
** - TPU systolic padding (systolic = s): k and n are padded to multiples of s, the
**   128 x 128 MXU (Wang et al. 2019, seeds/004 sec. 4: "the dimensions ... padded to
**   multiples of 128"; Google Cloud TPU performance guide);
** - CPU vector width (vector_width = w lanes): n padded to a multiple of w (Intel 64 and
**   IA-32 Optimization Reference Manual, vectorised loops over the contiguous dim).
** 1 when none of those fields is set. */
DLB_API double dlb_gemm_efficiency(const dlb_roof *d, double m, double n, double k,
                                   double batch);

/* Memory schedules: what a training step holds at its peak. */
enum { DLB_MEM_FRAMEWORK = 0, DLB_MEM_MINIMAL = 1 };

/* The one memory rule of a step (dlb.roofline.time, data parallelism, the planner) from
** its parts in bytes: weights, gradients (all of them), optimizer state, activations (with
** workspace) at the peak.
** DLB_MEM_FRAMEWORK, as PyTorch and Megatron-LM run: gradients are held until the
**   optimizer step, so w + g + o + act, times (1 + slack) for the caching allocator's
**   slack (a fraction >= 0; PyTorch's allocator rounds and caches blocks, see the PyTorch
**   "CUDA semantics: memory management" notes);
** DLB_MEM_MINIMAL, as dlbench's own scheduler frees every buffer at its last use and
**   applies each gradient at once: w + o + max(act, g) (gradients appear as activations
**   are freed in the backward pass), slack ignored.
** DLB_EINVAL for a negative or non-finite part or an unknown schedule. */
DLB_API int dlb_step_memory(int schedule, double weights, double grads, double opt,
                            double act, double slack, double *out);

/* The bytes an optimizer step's temporaries `temps` need beyond `live`, the activations and
** workspace held at the step's peak: the step runs after the backward pass has freed the
** activations, so its temporaries reuse that memory and add max(0, temps - live). The one
** rule of a training stack's step temporaries (lua/dlbench/framework_memory.lua, for
** g:stats, dlb.parallel.evaluate/plan; the compiled sweep per configuration, graphs/sweep/
** sweep_eval.c); docs/frameworks.md "Memory a stack adds". DLB_EINVAL for a negative or
** non-finite input. */
DLB_API int dlb_step_temporaries(double temps, double live, double *out);

/* The optimizer step's kernel launches per implementation (graphs/hw/optim_launch.c, with the
** sources of every count; docs/frameworks.md "Optimizer implementation"). */
enum { DLB_OPTIM_NONE = 0,        /* no launch model: each update op one kernel (before) */
       DLB_OPTIM_LOOP = 1,        /* a per-parameter loop of elementwise ops (torch 1.x Adam,
                                     _single_tensor_adamw, Composer's DecoupledAdamW) */
       DLB_OPTIM_FOREACH = 2,     /* PyTorch 2.x _multi_tensor_adamw: 8 foreach ops */
       DLB_OPTIM_TORCH_FUSED = 3, /* torch.optim.AdamW(fused=True): _fused_adamw_ */
       DLB_OPTIM_APEX = 4,        /* apex / Transformer Engine FusedAdam: multi_tensor_adam */
       DLB_OPTIM_FLAT = 5,        /* DeepSpeed FusedAdam over one flat fp32 partition */
       DLB_OPTIM_PER_TENSOR = 6   /* one fused kernel per tensor, each an op (TF1 ApplyAdam) */ };
typedef struct dlb_optim_count {
  double launches;     /* kernels launched on the device */
  double dispatches;   /* Python-level ops the host dispatches (each the profile's host_op) */
  double syncs;        /* host-device synchronisations (a .item() per parameter) */
} dlb_optim_count;
/* Elements per chunk of multi_tensor_apply (ATen's kChunkSize, apex's 2048 * 32): 65536. */
DLB_API double dlb_optim_chunk(void);
/* Kernels one multi_tensor_apply call launches over `tensors` tensors of `chunks` chunks in
** all at `depth` (1..5) tensor lists, scalarlist != 0 for the scalar-list variant: the larger
** of ceil(tensors / slots(depth)) and ceil(chunks / 320); -1 for bad input. */
DLB_API double dlb_optim_mta_launches(double tensors, double chunks, int depth, int scalarlist);
/* The launches, host dispatches and host syncs of one optimizer step of implementation
** `kind` (DLB_OPTIM_*) over `tensors` parameter tensors holding `chunks` chunks in all
** (sum of ceil(numel / dlb_optim_chunk()); chunks >= tensors). A loop takes its kernels and
** host ops per tensor (from its source) and sync != 0 when each tensor's step reads a device
** scalar. DLB_EINVAL for bad counts or an unknown kind. */
DLB_API int dlb_optim_launches(int kind, double per_tensor_kernels, double per_tensor_ops,
                               int sync, double tensors, double chunks, dlb_optim_count *out);

/* Off-chip bytes moved by a tiled matmul C[m,n] = A[m,k] B[k,n], `batch` times, with
** elements of `elem` bytes and an on-chip cache of `cache` bytes. When A, B and C fit
** together they move once; otherwise square tiles of side t = floor(sqrt(cache/(3 elem)))
** (one tile each of A, B, C resident) re-stream A once per column tile and B once per
** row tile: elem * batch * (m k ceil(n/t) + k n ceil(m/t) + m n). (Coleman & McKinley's
** tiling, as cited by Hestness et al. 6.1.) */
DLB_API int dlb_gemm_traffic(double m, double n, double k, double batch, double elem, double cache,
                     double *out);
/* The same with a given output tile of tile_m x tile_n elements (the tiles of A, tile_m x k
** slices, and of B, k x tile_n slices, stream past it): A moves ceil(n / tile_n) times, B
** ceil(m / tile_m) times, C once: elem * batch * (m k ceil(n/tile_n) + k n ceil(m/tile_m)
** + m n). tile_m = tile_n = 0 picks the square tiles of dlb_gemm_traffic. The residency
** shortcut (all of A, B, C in the cache, or A or B in half of it: algorithmic traffic)
** applies in both cases. Tiles must be >= 1 or both 0. */
DLB_API int dlb_gemm_traffic_tiled(double m, double n, double k, double batch, double elem,
                           double cache, double tile_m, double tile_n, double *out);

/* A set of op costs kept in C, so many devices can be timed without copying. */
typedef struct dlb_opcosts dlb_opcosts;
/* Copy n ops' FLOPs and bytes (non-negative, finite); NULL on failure. Free with
** dlb_opcosts_free. */
DLB_API dlb_opcosts *dlb_opcosts_new(size_t n, const double *flops, const double *bytes);
DLB_API void dlb_opcosts_free(dlb_opcosts *c);
DLB_API size_t dlb_opcosts_n(const dlb_opcosts *c);
/* Mark op i (0-based) as a matmul of m x k times k x n, `batch` times. */
DLB_API int dlb_opcosts_set_gemm(dlb_opcosts *c, size_t i, double m, double n, double k,
                         double batch);
/* dlb_roofline_ops over the set (op_time/op_bound may be NULL, else dlb_opcosts_n entries). */
DLB_API int dlb_opcosts_roofline(const dlb_opcosts *c, const dlb_roof *d, double *op_time,
                         int *op_bound, dlb_roof_result *out);
/* A new set holding the ops of an analysed graph step (dlb_graph_analyze): FLOPs, bytes and
** the matmul shape (m, n, k, batch) of matmul-like ops, and its optimizer step: the update
** phase's ops of every layer that updates Adam / AdamW tensors, with those tensors and their
** chunks (dlb_analysis_update_tensors over the layers, at dlb_optim_chunk()); NULL on
** failure. The set is a copy: it does not keep the analysis alive. */
DLB_API dlb_opcosts *dlb_opcosts_from_analysis(const dlb_analysis *a);
/* The optimizer step's launch model of a set (a framework profile's optimizer_impl:
** DLB_OPTIM_* kind; a loop's kernels and host ops per tensor and sync, as
** dlb_optim_launches takes them). With a kind other than DLB_OPTIM_NONE and a set made from
** an analysis whose step updates Adam / AdamW tensors, dlb_opcosts_roofline times the ops
** before the update phase through the one step model and then the phase as the
** implementation launches it (dlb_optim_launches over the step's tensors and chunks, the
** phase's FLOPs and bytes shared by the launches: the planner's update phase, so one
** device's dlb.roofline.time and dlb.parallel.evaluate agree); DLB_OPTIM_NONE (the default)
** or a set without such tensors: every op through the step model as before. DLB_EINVAL for
** a bad model (dlb_optim_launches' checks). */
DLB_API int dlb_opcosts_set_optim(dlb_opcosts *c, int kind, double kernels, double host_ops,
                                  int sync);
/* The profile's phase syncs (on != 0: its stack synchronises host and device at the start
** and end of every forward and backward: Megatron-LM's timers, a framework profile's
** sync = "phase", the planner's opts.phase_sync): with a host model (the device's host_op or
** host_layer > 0) the backward of an analysis's set then runs from a synchronisation point,
** as the planner runs each phase (graphs/parallel/planner.c; the forward starts the step and
** a launch model's update phase starts from one anyway). Default off. */
DLB_API int dlb_opcosts_set_phase_sync(dlb_opcosts *c, int on);
/* Borrowed views of the set's arrays (n entries; gemm 4 per op), valid until freed. */
DLB_API const double *dlb_opcosts_flops(const dlb_opcosts *c);
DLB_API const double *dlb_opcosts_bytes(const dlb_opcosts *c);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
