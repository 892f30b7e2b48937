/*
** roofline_impl.h — the per-op time rule shared inside the hardware folder and with the
** planner (graphs/parallel/), without its argument checks. Not part of the public interface.
*/
#ifndef ROOFLINE_IMPL_H
#define ROOFLINE_IMPL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "dlb_roofline.h"

/* The per-op time rule of dlb_op_time without its argument checks, for loops that checked
** the device once (dlb_roofline_ops, the planner). bytes are already scaled and made
** cache-aware by the caller; gemm may be NULL; kind is the op's DLB_KERNEL_* class:
** DLB_KERNEL_ATTENTION a fused attention kernel (timed at d->attn_eff when set),
** DLB_KERNEL_HEAD a GEMM of the output layer (at d->head_peak in place of d->peak when set,
** the matmul efficiency too), 0 any other op. Returns the seconds and sets *mem_bound. */
double dlb_op_time_raw(const dlb_roof *d, double flops, double bytes, const double *gemm,
                       int kind, int *mem_bound);
/* An op launched as `kernels` kernels (whole, >= 1; a graph op is one, a pass may give it the
** eager kernels around it: dlb_step_ops.xkern), each the per-op rule on an even share of its
** FLOPs and bytes, their seconds summed (the rule of the optimizer's launches, dlb_optim_time,
** and of an op launched once per local expert, planner_ops.c per_expert): kernels x
** raw(flops / kernels, bytes / kernels). *mem_bound: the bound of one share. */
double dlb_launch_time(const dlb_roof *d, double flops, double bytes, const double *gemm,
                       int kind, double kernels, int *mem_bound);
/* The host seconds of `ops` Python-level ops that launch `kernels` kernels: host_op per op and
** kernel_overhead per further launch from C++ (kernels - ops, when more); 0 without a host
** model (host_op 0: a compiled or graph-captured step issues nothing per launch). The one
** rule of the optimizer's launches (dlb_optim_time), a graph op's (dlb_step_time) and the
** planner's layer ops (planner_ops.c). */
static inline double dlb_launch_host(const dlb_roof *d, double ops, double kernels) {
  if (!(d->host_op > 0)) return 0;
  return ops * d->host_op + (kernels > ops ? kernels - ops : 0) * d->kernel_overhead;
}
/* The host-side model (issue [19]), the one step-time rule of a stream of ops: the host
** issues op after op, each costing it `host` seconds (the device's host_op: framework
** dispatch, Python per layer); the device runs op i from max(the device is free, the host
** has issued it) for its device time (dlb_op_time_raw). The step ends at the later of the
** two timelines; the device idles whenever the host is behind (kernels shorter than their
** launch). A synchronisation point (the host waits for the device: .item(), a blocking
** send/receive, cudaDeviceSynchronize) brings the host forward to the device's clock.
** Counting: host = the host's clock, dev = when the device is free, idle = the device's
** idle seconds so far, busy = its busy seconds. With host = 0 per op, dev is the plain sum
** of device times (the per-op roofline before the host model). */
typedef struct dlb_timeline { double host, dev, idle, busy; } dlb_timeline;
/* Issue one op: host += host_s; start = max(dev, host); idle += start - dev; dev = start +
** dev_s. */
static inline void dlb_timeline_op(dlb_timeline *t, double dev_s, double host_s) {
  t->host += host_s;
  double start = t->host > t->dev ? t->host : t->dev;
  t->idle += start - t->dev;
  t->busy += dev_s;
  t->dev = start + dev_s;
}
/* Issue an op of `kernels` kernels (whole, >= 1; dlb_launch_time): kernels ops through the
** timeline, each an even share of its device and host seconds (the launches of one op
** follow each other; the optimizer's phase with host syncs runs its launches so,
** dlb_optim_time). One kernel: dlb_timeline_op. */
static inline void dlb_timeline_kernels(dlb_timeline *t, double dev_s, double host_s,
                                        double kernels) {
  if (!(kernels > 1)) { dlb_timeline_op(t, dev_s, host_s); return; }
  double dv = dev_s / kernels, hv = host_s / kernels;
  for (double j = 0; j < kernels; j += 1) dlb_timeline_op(t, dv, hv);
}
/* A synchronisation point: host = dev = max(host, dev); the device's wait for a host that is
** ahead of it is idle time (so dev = idle + busy from a {0, 0, 0, 0} start, as every op keeps
** it). */
void dlb_timeline_sync(dlb_timeline *t);
/* The end of the stream: max(host, dev). */
double dlb_timeline_end(const dlb_timeline *t);
/* Run a segment of ops k times (k >= 0, whole) through t, as dlb_timeline_op would op by op:
** r is the segment's own timeline from a synchronisation point (r = {0, 0, 0, 0}, then its
** ops through dlb_timeline_op). Exact, not a steady-state estimate: per op the lag
** s = host - dev moves as s' = min(s + h, 0) - t, a map of the form min(s + a, b), and such
** maps compose in closed form: a segment from any lag s <= 0 ends at lag min(s + a, b) with
** a = r.host - r.busy, b = r.host - r.dev (its end lag from a sync point), and k of them at
** min(s + k a, b + min(0, (k - 1) a)); a lag s > 0 (the host ahead of an idle device)
** starts as 0, the device waiting s first. The planner composes its layers' cached
** segments with it (graphs/parallel/planner.c), so one device's step is this rule there as
** in dlb_step_time. */
void dlb_timeline_seg(dlb_timeline *t, const dlb_timeline *r, double k);

/* The end of a stream whose device work takes dev_s and whose host issues it in host_s,
** started from a synchronisation point, in the steady state of dlb_timeline (the host
** runs ahead while the device is busy, so neither waits for the other's slack):
** max(dev_s, host_s), a lower bound of the timeline. For streams whose op order is not
** known: the optimizer step's launches (dlb_optim_time) and the planner's update phase
** without a launch model; the planner's forward and backward run the timeline itself. */
double dlb_stream_time(double dev_s, double host_s);

/* The optimizer step's update phase (graphs/hw/optim_launch.c) from a synchronisation point:
** c's launches share `flops` and `bytes` evenly, each through the per-op rule (device seconds
** into *dev_s); the host dispatches c->dispatches ops at d->host_op and issues every further
** launch at d->kernel_overhead (into *host_s; 0 without a host model). Without syncs the phase
** ends at dlb_stream_time(*dev_s, *host_s); with c->syncs host syncs it runs as that many
** equal segments, each from a synchronisation point through the timeline. 0 launches: 0.
** *mem_bound (may be NULL): whether the launches are memory-bound (the per-op rule's bound on
** each launch's share; 0 without launches). */
struct dlb_optim_count;
double dlb_optim_time(const dlb_roof *d, const struct dlb_optim_count *c, double flops,
                      double bytes, double *dev_s, double *host_s, int *mem_bound);

/* Give op i of a set kernel class kind (roofline_graph.c, from the analysis):
** DLB_KERNEL_PLAIN, DLB_KERNEL_ATTENTION or DLB_KERNEL_HEAD, the per-op rule's kind above;
** DLB_EINVAL for an op out of range or another class. */
struct dlb_opcosts;
int dlb_opcosts_mark_kind(struct dlb_opcosts *c, size_t i, int kind);
/* Give op i of a set its further host ops and kernels (whole, >= 0; roofline_graph.c, from
** the analysis: dlb_step_ops.xops, xkern). */
int dlb_opcosts_set_more(struct dlb_opcosts *c, size_t i, double ops, double kernels);
/* Mark a set as a whole training step's ops (roofline_graph.c: a set made from a step's
** analysis), so that dlb_opcosts_roofline adds the step-level terms (dlb_step_time). */
int dlb_opcosts_mark_step(struct dlb_opcosts *c);
/* Mark op i of a set as one of the optimizer step's update phase (kind DLB_UPD_LAUNCH: an
** op of a layer whose Adam / AdamW tensors the launch model of dlb_opcosts_set_optim times as
** one phase; DLB_UPD_OPS: another update op, one kernel of its own after the backward), and
** give the phase's parameter tensors and their chunks (roofline_graph.c, from the analysis). */
int dlb_opcosts_mark_update(struct dlb_opcosts *c, size_t i, int kind);
void dlb_opcosts_set_update_tensors(struct dlb_opcosts *c, double tensors, double chunks);
/* Give a set its step's scope marks (dlb_step_marks, n of them; roofline_graph.c). */
int dlb_opcosts_set_marks(struct dlb_opcosts *c, const unsigned char *mark);

/* A cost the rules accept: finite and >= 0. */
static inline int dlb_bad_cost(double x) { return !isfinite(x) || x < 0; }
/* A count of further host ops or kernels of one op the rules accept (dlb_step_ops.xops,
** xkern; dlb_par_op.more_ops, more_kernels): whole, 0 .. DLB_MORE_MAX (the timeline issues
** an op kernel by kernel; a million further kernels on one op is no stack's eager code). */
enum { DLB_MORE_MAX = 1000000 };
static inline int dlb_bad_more(double x) {
  return dlb_bad_cost(x) || x != floor(x) || x > DLB_MORE_MAX;
}

/* The result of a sum over ops: tf FLOPs, tb bytes, tt seconds, tmem of them in nmem
** memory-bound ops; the whole sum's compute and memory times at the achievable rates and its
** bound. No host timeline (host_idle, host_time 0; dlb_step_time sets its own). `what` names
** the sum in the overflow message. */
int dlb_sum_result(const dlb_roof *d, double tf, double tb, double tt, double tmem,
                   double nmem, const char *what, dlb_roof_result *out);

/* A step's ops as the one step model (dlb_step_time) takes them: n ops, or n op classes
** (distinct costs) with their multiplicities and the step's op order. */
typedef struct dlb_step_ops {
  size_t n;
  const double *flops, *bytes; /* n each; bytes as counted (dlb_step_time applies bytes_scale) */
  const double *gemm;          /* 4 per op (m, n, k, batch; m <= 0: not a matmul) or NULL */
  const char *attn;            /* n DLB_KERNEL_* classes (1: a fused attention kernel, 2: a GEMM
                                  of the output layer, 0: any other op); NULL: all 0 */
  /* per op (class): the further Python-level ops the host issues for it and the further
  ** kernels it launches beyond its one of each (whole, >= 0; a pass's eager ops counted on a
  ** graph op: graphs/step/fusion.c lm_metrics, xent_fp32; dlb_analysis_op_more); NULL: none.
  ** An op that does work costs the host dlb_launch_host(1 + xops, 1 + xkern) and the device
  ** dlb_launch_time over 1 + xkern kernels, issued through the timeline kernel by kernel
  ** (dlb_timeline_kernels) */
  const double *xops, *xkern;
  /* NULL: the n ops run once each, in index order. Else op class i runs mult[i] times, and
  ** with a host model (d->host_op > 0) the step's ops are the nseg segments in order, segment
  ** k being the classes ord[sego[k] .. sego[k] + segn[k]) run rep[k] times in a row */
  const double *mult;
  size_t nseg;
  const int32_t *ord, *sego, *segn;
  const double *rep;
  int step;                    /* 1: a whole training step: the step-level terms join */
  /* The optimizer step's update phase: upd NULL, none marked (every op through the
  ** timeline, in place). Else upd[i] (an op or class) is 0, not of the phase; DLB_UPD_LAUNCH,
  ** with a launch model (optim, graphs/hw/optim_launch.c) run after the other ops' timeline
  ** from a synchronisation point as `optim`'s launches share their FLOPs and (scaled) bytes
  ** (dlb_optim_time); DLB_UPD_OPS (or DLB_UPD_LAUNCH without a launch model), with a host
  ** model, after the timeline as one kernel each, their device and host seconds two streams
  ** from that point (dlb_stream_time), without one in place (a sum either way). Both as the
  ** planner's update phase runs after the flush (graphs/parallel/planner.c), and as a
  ** framework's training loop calls optimizer.step() after loss.backward() (PyTorch's
  ** autograd tutorial: loss.backward(), then optim.step() of torch.optim.SGD): before issue
  ** [18] item 5 an update op outside a launch model ran where the analysis puts it, inside the
  ** backward, and a host-bound step's time moved with that order (a momentum-SGD MobileNet
  ** under fsdp 6.9% below the planner's). With classes and a host model the op order (ord,
  ** sego, segn) must leave every marked class out. */
  const char *upd;
  const struct dlb_optim_count *optim;
  /* Where the step's scopes begin (dlb_step_marks): NULL, nowhere; else per op (s->mult NULL)
  ** or per position of s->ord (classes) a set of DLB_MARK_* bits, read with a host model
  ** (d->host_op or d->host_layer > 0): DLB_MARK_PHASE, a pass of the step begins here
  ** (the backward with its recomputation, after the forward), a synchronisation point before the
  ** op when s->phase_sync (the profile synchronises host and device at every phase:
  ** Megatron-LM's timers, the planner's opts.phase_sync); DLB_MARK_LAYER, a layer's forward
  ** (or recomputed forward) begins here, the host spending d->host_layer (its Python per
  ** layer) before the op as an op of no device time, as the planner's layer segments do
  ** (graphs/parallel/planner_ops.c). An op left out of the timeline (the update phase
  ** under a launch model) has its marks left out with it. */
  const unsigned char *mark;
  int phase_sync;
  /* with classes (s->mult): per segment the marks of its positions or'ed (NULL: every
  ** segment's positions are read), so that a segment without a mark that acts runs unmarked */
  const unsigned char *segmk;
} dlb_step_ops;

enum { DLB_MARK_PHASE = 1, DLB_MARK_LAYER = 2 };
/* dlb_step_ops.upd kinds */
enum { DLB_UPD_LAUNCH = 1, DLB_UPD_OPS = 2 };

/* The one rule for where a step's scopes begin (dlb_step_ops.mark) from its analysis arrays
** (n ops in order: phase[i] a DLB_PHASE_*, layer[i] the op's layer or < 0, costed[i] != 0
** when the op does work): DLB_MARK_PHASE on the first op of each pass (the forward; the
** backward with its recomputation) after the first; an update op belongs to the pass it sits
** in (an analysis puts each weight's update after its gradient: the update phase under a
** launch model runs after the timeline, from a synchronisation point, whatever the marks;
** without one its ops run where they sit); DLB_MARK_LAYER on the
** first forward (and the first recomputed-forward) op of each layer that has a forward (a
** recomputed-forward) op doing work, the scope whose Python the planner charges host_layer
** once (dlb_layer_times' costed forward ops, graphs/parallel/planner_ops.c). nl: layers
** (layer ids < nl); scratch: 2 nl bytes. Writes mark[0..n). */
void dlb_step_marks(size_t n, const int *phase, const int *layer, const char *costed, size_t nl,
                    unsigned char *scratch, unsigned char *mark);

/* The one step model, for the per-configuration path (roofline_ops over an op-cost set) and
** the compiled sweep (one call per configuration): each op through the per-op rule
** (dlb_op_time_raw: bytes scaled by d->bytes_scale and, on a cache_aware device, raised to a
** matmul's tiled traffic; an op that does no work costs the host nothing), issued through the
** host-side timeline (dlb_timeline; a repeated segment with an exact early exit once the
** timeline repeats itself), then the step-level terms: the end of the two timelines, plus
** d->step_overhead once when s->step; with s->optim the update phase (dlb_optim_time over the
** flagged ops' FLOPs and bytes) joins after the timeline's end, its device seconds into
** busy time, the rest into host_idle, its host seconds into host_time, and each flagged op
** (op_time, only when s->mult is NULL) its bytes' share of the phase and the bound of the
** phase's launches (memory-bound time when they are). d is checked by the
** caller. work: 2 n doubles of
** scratch when s->mult is set (the classes' device and host seconds land there), else
** unused; op_time and op_bound (may be NULL; only when s->mult is NULL) receive each op's
** time and bound. Fills out (time, FLOPs, bytes, host_idle, host_time, ...). */
int dlb_step_time(const dlb_roof *d, const dlb_step_ops *s, double *work, double *op_time,
                  int *op_bound, dlb_roof_result *out);

#endif
