/*
** dlb_sweep.h — compiled model families (a step's per-op costs as polynomials over the
** swept dims, evaluated for many configurations through the per-op time rule) and the
** streaming reductions their rows feed (docs/sweep.md "dlb.sweep.model").
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_SWEEP_H
#define DLB_SWEEP_H

#include <stddef.h>

#include "dlb_graph.h"
#include "dlb_hw.h"

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
typedef struct dlb_sweep_prog dlb_sweep_prog;
typedef struct dlb_reduce dlb_reduce;

/* Totals a program evaluates (per configuration; bytes and FLOPs as dlb_totals). STASH is
** the bytes of the tensors the forward pass writes and a later phase reads (activations
** kept for backward, after the fusion passes): the activations live when the loss is
** computed, the compiled stand-in for the searched peak (docs/sweep.md "Memory"). ACT_ALL
** is the bytes of every activation and workspace tensor of the step (after fusion): no op
** order holds more, so it bounds the searched peak's activations from above. PEAK is the
** peak live bytes of the step's construction order (graphs/step/footprint.c: weights,
** gradients, optimizer state, activations, workspace; what dlb_totals.footprint_order
** counts), PEAK_ACT the step's largest activations + workspace in that order (what the
** framework memory schedule holds with every gradient, dlb_analysis_act_peak's; at PEAK's
** moment before issue [18] item 5, which under full recompute held none): computed per
** configuration from per-op-position polynomials, not polynomials themselves; NaN where the
** program has no peak (see docs/sweep.md "Exactness and memory"). OPT_STATES is the bytes of
** the optimizer states without the fp32 master copies (dlb_totals.opt_states), LOGITS the
** elements of the logits dlb_sweep_prog_logits gave (0 without): what a framework profile's
** memory terms scale with (docs/sweep.md "A stack's memory"). */
enum {
  DLB_SWT_PARAMS = 0, DLB_SWT_TRAINABLE = 1, DLB_SWT_FLOPS_FWD = 2, DLB_SWT_FLOPS_BWD = 3,
  DLB_SWT_FLOPS_UPDATE = 4, DLB_SWT_FLOPS_RECOMPUTE = 5, DLB_SWT_FLOPS = 6,
  DLB_SWT_BYTES = 7, DLB_SWT_IO = 8, DLB_SWT_WEIGHTS = 9, DLB_SWT_OPTIMIZER = 10,
  DLB_SWT_STASH = 11, DLB_SWT_NOPS = 12, DLB_SWT_ACT_ALL = 13, DLB_SWT_PEAK = 14,
  DLB_SWT_PEAK_ACT = 15, DLB_SWT_OPT_STATES = 16, DLB_SWT_LOGITS = 17, DLB_SWT_COUNT = 18
};

/* A device's memory rule in dlb_sweep_eval's mem (DLB_SWM_COUNT numbers a device): the
** schedule (DLB_MEM_*), the allocator's slack, the gradient bytes per trainable parameter
** and the capacity (bytes); then the training stack's terms beyond the step's tensors (a
** framework profile's memory table, lua/dlbench/framework_memory.lua, all 0 without one):
** bytes per logit element its loss holds beyond the graph's (LOSS), the optimizer step's
** temporaries per byte of optimizer state (TEMP_STATES) and per trainable parameter
** (TEMP_TRAINABLE), and per-device bytes (FIXED: the CUDA context, ZeRO's buckets). */
enum {
  DLB_SWM_SCHEDULE = 0, DLB_SWM_SLACK = 1, DLB_SWM_GRAD = 2, DLB_SWM_CAPACITY = 3,
  DLB_SWM_LOSS = 4, DLB_SWM_TEMP_STATES = 5, DLB_SWM_TEMP_TRAINABLE = 6, DLB_SWM_FIXED = 7,
  DLB_SWM_COUNT = 8
};

/* Columns of a row dlb_sweep_eval writes, after the grid's variables and the device
** index (see dlb_sweep_eval). */
enum {
  DLB_SWC_TIME = 0, DLB_SWC_FLOPS = 1, DLB_SWC_BYTES = 2, DLB_SWC_PARAMS = 3,
  DLB_SWC_MEMORY = 4, DLB_SWC_FITS = 5, DLB_SWC_UTIL = 6, DLB_SWC_MEMORY_BOUND_TIME = 7,
  DLB_SWC_FLOPS_FWD = 8, DLB_SWC_FLOPS_BWD = 9, DLB_SWC_ACTIVATIONS = 10,
  DLB_SWC_THROUGHPUT = 11, DLB_SWC_MEMORY_BOUND = 12, DLB_SWC_PEAK = 13, DLB_SWC_COUNT = 14
};

/* A new, empty program over the symbols vars[0..nvars) (the step's dims that a sweep
** binds; at most 15), plus the symbol "layers" when layered != 0. NULL on bad input. */
DLB_API dlb_sweep_prog *dlb_sweep_prog_new(size_t nvars, const char *const *vars, int layered);
/* Drop the caller's reference; the program is freed with its last one (a reducer keeping a
** sweep's rows holds one: they are decoded through the program on read). */
DLB_API void dlb_sweep_prog_free(dlb_sweep_prog *p);
/* Add the training step of g under o (fusion passes included) built with `layers` repeated
** layers (ignored when the program is not layered). Every variable of g must be one of
** the program's symbols. A layered program takes three graphs at three layer counts, an
** unlayered one one graph. */
DLB_API int dlb_sweep_prog_add(dlb_sweep_prog *p, dlb_graph *g, const dlb_train_opts *o,
                               double layers);
/* The elements of the logits of the graph added last (the tensors a framework's loss
** memory counts: lua/dlbench/framework_memory.lua, the logits of every g:softmax_xent), as
** a polynomial over the program's symbols other than "layers" (the LOGITS total; 0 for a
** graph without this call). Call it after dlb_sweep_prog_add, before finishing. */
DLB_API int dlb_sweep_prog_logits(dlb_sweep_prog *p, const dlb_poly *n);
/* The optimizer step's launch model of the program (the profile it was compiled under:
** optimizer_impl; DLB_OPTIM_* kind, a loop's kernels and host ops per tensor and sync, as
** dlb_optim_launches takes them): its time at a point runs the update phase as
** dlb_opcosts_roofline does for an analysis's set with the same model (dlb_opcosts_set_optim),
** over the point's Adam / AdamW tensors and chunks. DLB_OPTIM_NONE (the default): none.
** DLB_EINVAL for a bad model. */
DLB_API int dlb_sweep_prog_optim(dlb_sweep_prog *p, int kind, double kernels, double host_ops,
                                 int sync);
/* The profile's phase syncs (on != 0: sync = "phase"): with a host model each pass of the step
** runs from a synchronisation point, as dlb_opcosts_set_phase_sync has an analysis's set run
** it. Default off. */
DLB_API int dlb_sweep_prog_phase_sync(dlb_sweep_prog *p, int on);
/* Finish: a layered program checks that every op's multiplicity and every total is affine
** in layers (the third graph must agree with the line through the first two: a builder
** whose layers differ by position fails with a message); then the polynomials are laid
** out for evaluation. */
DLB_API int dlb_sweep_prog_finish(dlb_sweep_prog *p);
/* Symbols (with "layers" last when layered), distinct op classes, monomials. */
DLB_API size_t dlb_sweep_prog_nvars(const dlb_sweep_prog *p);
DLB_API size_t dlb_sweep_prog_nclasses(const dlb_sweep_prog *p);
/* The totals (DLB_SWT_COUNT values) at one point vals[0..nvars). */
DLB_API int dlb_sweep_prog_totals(const dlb_sweep_prog *p, const double *vals, double *out);
/* The per-op roofline of one point on device d (checked): *time the step time plus
** d->step_overhead, as dlb.roofline.time of g:stats at that point: each op through
** dlb_op_time_raw, repeated ones by multiplicity when d->host_op == 0; with host_op > 0 the
** ops in the step's order through the host-side timeline (dlb_timeline, graphs/hw/
** roofline_impl.h), which a layered program knows as fixed ops around one layer's ops per
** pass (refused with a message where its three builds are not of that form). */
DLB_API int dlb_sweep_prog_time(const dlb_sweep_prog *p, const double *vals, const dlb_roof *d,
                                double *time, double *flops, double *bytes, double *mbtime);

/* What dlb_sweep_prog_serve returns (DLB_SVT_COUNT numbers): the step's time (every class:
** its ops' per-op times, each at least min_time; no collective, no step_overhead), FLOPs and
** bytes (as counted, unscaled), the fused attention classes' time (within TIME), the number
** of distinct attention classes with ops at the point, the FLOPs and bytes of one attention
** op of the last of them and the attention ops in all, and the ops that do work. */
enum {
  DLB_SVT_TIME = 0, DLB_SVT_FLOPS = 1, DLB_SVT_BYTES = 2, DLB_SVT_ATTN_TIME = 3,
  DLB_SVT_ATTN_CLASSES = 4, DLB_SVT_ATTN_FLOPS = 5, DLB_SVT_ATTN_BYTES = 6,
  DLB_SVT_ATTN_OPS = 7, DLB_SVT_KERNELS = 8, DLB_SVT_COUNT = 9
};
/* Serving's step model at one point of an unlayered program (a serving step graph of
** lua/dlbench/serve_graph.lua compiled over its batch, context and touched experts;
** docs/serve.md "The compiled sweep"): the classes that are fused attention kernels through
** the one step model (dlb_step_time) on device attn, the others on device op (the same
** device twice: one roof), each op that does work taking at least min_time seconds
** (asynchronous launches: a kernel lasts at least the launch interval; 0: none; a serial
** launch is the devices' kernel_overhead). vals: one finite value >= 0 per symbol (a
** context may be 0, a mean batch fractional). Devices with host_op > 0 (the host timeline
** needs the op order), host_layer > 0 or cache_aware are refused
** (dlb_sweep_serve_refusal). out: DLB_SVT_COUNT numbers. */
DLB_API int dlb_sweep_prog_serve(const dlb_sweep_prog *p, const double *vals, const dlb_roof *op,
                                 const dlb_roof *attn, double min_time, double *out);

/* Why dlb_sweep_prog_serve refuses device d, the one rule (lua/dlbench/serve_graph.lua asks it
** before compiling): "cache_aware", "host_op > 0" or "host_layer > 0" (the host model needs
** the step's ops in issue order and its layers' marks, which the compiled classes do not
** keep); NULL when d can be compiled (d is not otherwise checked: dlb_roof_check). */
DLB_API const char *dlb_sweep_serve_refusal(const dlb_roof *d);

/* Evaluate the grid: the cartesian product of the value lists of the program's symbols
** (nvalues[i] values of symbol i, concatenated in values[0..nvals); the last symbol varies fastest)
** times the devices roofs[0..nroofs) (varying slowest). For each device, mem[DLB_SWM_COUNT j
** ..]: its memory rule (DLB_SWM_*). A row holds ntags tag values, the symbols' values, the
** device index, then the DLB_SWC_* columns (MEMORY: the memory rule with the activations +
** workspace at the construction order's peak (the stash where the program has no peak) and
** the stack's terms (ACTIVATIONS: those bytes, the stack's included); PEAK: that peak,
** bytes (an upper bound of the per-configuration footprint, equal to it where the
** construction order is the best order found; NaN without a peak);
** MEMORY_BOUND: with ACT_ALL, an upper bound of the per-configuration footprint; THROUGHPUT: the product of the symbols whose bit is set in per_mask,
** divided by the time: e.g. tokens per second); its index is first_index + its position in
** the grid. Rows go to
** sink from `threads` threads (0: one per core; each thread a copy of the
** sink, merged at the end). *count receives the rows evaluated. */
DLB_API int dlb_sweep_eval(const dlb_sweep_prog *p, size_t nvalues_n, const double *nvalues,
                           size_t nvals, const double *values, size_t nroofs, const dlb_roof *roofs,
                           const double *mem, size_t ntags, const double *tags, int per_mask,
                           double first_index, dlb_reduce *sink, int threads, double *count);

/* Keep the rows of the grid dlb_sweep_eval would evaluate with these arguments (checked as
** it checks them) without evaluating them: text holds each configuration's stored numbers
** as dlb_reduce_keep_text writes them (len = 64 x the configurations: time, FLOPs, bytes and
** memory-bound time, the TIME, FLOPS, BYTES and MEMORY_BOUND_TIME columns of its kept rows),
** the other columns recomputed on read as for an evaluation's rows: the kept rows of a
** checkpointed sweep's finished chunk (lua/dlbench/sweep_model_checkpoint.lua). sink must
** keep rows. */
DLB_API int dlb_sweep_keep(const dlb_sweep_prog *p, size_t nvalues_n, const double *nvalues,
                           size_t nvals, const double *values, size_t nroofs, const dlb_roof *roofs,
                           const double *mem, size_t ntags, const double *tags, int per_mask,
                           double first_index, dlb_reduce *sink, size_t len, const char *text);

/* Reductions over rows of ncols numbers, fed in any order and merged (docs/sweep.md):
** kept rows (up to a cap), Pareto fronts, top-k, 1-D/2-D bins, grouped aggregates. A row's
** index orders ties and the kept rows. */
enum { DLB_AGG_COUNT = 0, DLB_AGG_SUM = 1, DLB_AGG_MIN = 2, DLB_AGG_MAX = 3, DLB_AGG_MEAN = 4 };
enum { DLB_RED_KEEP = 0, DLB_RED_PARETO = 1, DLB_RED_TOP = 2, DLB_RED_BINS = 3,
       DLB_RED_GROUP = 4 };
DLB_API dlb_reduce *dlb_reduce_new(size_t ncols);
DLB_API void dlb_reduce_free(dlb_reduce *r);
/* Keep every row (read back by index); pushing more than maxrows fails. Rows pushed here
** are held whole; a dlb_sweep_eval's rows compactly (32 bytes a row, every other column
** decoded on read, bit for bit: docs/sweep.md "Kept rows"); one reducer keeps one kind. */
DLB_API int dlb_reduce_keep(dlb_reduce *r, double maxrows);
/* A Pareto front over columns cols[0..n), n 1..8 (maximize[i] != 0: larger is better), rows with
** where_col != 0 only (where_col < 0: all). *id receives its reducer id. */
DLB_API int dlb_reduce_pareto(dlb_reduce *r, size_t n, const int *cols, const int *maximize,
                              int where_col, int *id);
/* The k rows with the smallest (maximize: largest) column col. */
DLB_API int dlb_reduce_top(dlb_reduce *r, size_t k, int col, int maximize, int where_col,
                           int *id);
/* Bins: column xcol cut by nx + 1 increasing edges, and (ycol >= 0) ycol by ny + 1; each
** bin aggregates column zcol by agg (DLB_AGG_*; zcol ignored for COUNT). */
DLB_API int dlb_reduce_bins(dlb_reduce *r, int xcol, size_t nxe, const double *xedges, int ycol,
                            size_t nye, const double *yedges, int zcol, int agg, int where_col,
                            int *id);
/* Groups by the values of columns keys[0..nk), nk 1..8; each group keeps count, and sum, min
** and max of columns cols[0..nc), nc at most 32. */
DLB_API int dlb_reduce_group(dlb_reduce *r, size_t nk, const int *keys, size_t nc,
                             const int *cols, int where_col, int *id);
/* Feed n rows (row-major, ncols each) whose indices are first_index, first_index + 1, ... */
DLB_API int dlb_reduce_push(dlb_reduce *r, size_t n, const double *rows, double first_index);
/* Add a partial state of reducer (kind, id) as dlb_reduce_column reads it from another
** reducer made alike (a checkpointed sweep's finished chunk, lua/dlbench/sweep_model_checkpoint.lua),
** the way dlb_reduce_merge adds a thread's copy: PARETO and TOP n rows of 1 + ncols numbers
** (the index, then the row); BINS every bin (n = the bins), each its accumulator and count
** (columns 2 and 1); GROUP n groups of nk keys, count, then sum, min, max per column. len:
** the numbers in data. KEEP (id 0) n rows of 1 + ncols numbers, as PARETO's, to a reducer
** that keeps pushed rows (dlb.sweep.layouts' chunks); a compiled sweep's kept rows are
** dlb_sweep_keep's. */
DLB_API int dlb_reduce_add(dlb_reduce *r, int kind, int id, size_t n, size_t len,
                           const double *data);
/* The stored numbers of a compiled sweep's kept rows start .. start + n - 1 (index order;
** DLB_SWK: time, FLOPs, bytes, memory-bound time) as text: 16 hex digits per number (its
** IEEE-754 bits, most significant first), exact and fast to read back (dlb_sweep_keep). Rows
** kept by dlb_reduce_push: each row's index, then its ncols numbers, the same way
** (dlb_reduce_keep_add_text reads them back).
** *text (NUL-terminated, *len characters) is the caller's: free it with dlb_reduce_text_free. */
DLB_API int dlb_reduce_keep_text(dlb_reduce *r, size_t start, size_t n, char **text, size_t *len);
DLB_API void dlb_reduce_text_free(char *text);
/* n pushed kept rows as dlb_reduce_keep_text writes them (len = 16 x (1 + ncols) x n) added
** to r's, as dlb_reduce_add's KEEP adds them (dlb.sweep.layouts' checkpoint). */
DLB_API int dlb_reduce_keep_add_text(dlb_reduce *r, size_t n, const char *text, size_t len);
/* Rows seen; reducers; the rows a reducer holds (KEEP: id 0 when keeping). */
DLB_API double dlb_reduce_seen(const dlb_reduce *r);
DLB_API size_t dlb_reduce_ncols(const dlb_reduce *r);
/* How many rows (or groups, or bins) reducer `id` holds; kind DLB_RED_KEEP with id 0 for
** the kept rows. */
DLB_API size_t dlb_reduce_size(dlb_reduce *r, int kind, int id);
/* Column col of reducer id's rows start .. start + n - 1 (in order: kept by index, front by
** its first objective, top by rank; col = -1: the row index). For BINS, col 0 the
** aggregate, 1 the count of each bin (x fastest); for GROUP, col 0 .. nk - 1 the keys,
** then count, then sum, min, max per column. BINS col 2: each bin's accumulator (the sum for
** SUM and MEAN, as added; what dlb_reduce_add takes back). */
DLB_API int dlb_reduce_column(dlb_reduce *r, int kind, int id, int col, size_t start,
                              size_t n, double *out);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
