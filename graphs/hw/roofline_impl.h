/*
** roofline_impl.h — the per-op time rule shared inside the hardware folder and with the
** planner (graphs/parallel/), without its argument checks. Not part of the public interface.
*/
#ifndef ROOFLINE_IMPL_H
#define ROOFLINE_IMPL_H

#include <stddef.h>

#include "dlb_roofline.h"

/* The per-op time rule of dlb_op_time without its argument checks, for loops that checked
** the device once (dlb_roofline_ops, the planner). bytes are already scaled and made
** cache-aware by the caller; gemm may be NULL; attention != 0 marks a fused attention
** kernel (timed at d->attn_eff when set). Returns the seconds and sets *mem_bound. */
double dlb_op_time_raw(const dlb_roof *d, double flops, double bytes, const double *gemm,
                       int attention, int *mem_bound);
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
void dlb_timeline_op(dlb_timeline *t, double dev_s, double host_s);
/* A synchronisation point: host = dev = max(host, dev). */
void dlb_timeline_sync(dlb_timeline *t);
/* The end of the stream: max(host, dev). */
double dlb_timeline_end(const dlb_timeline *t);

/* The end of a stream whose device work takes dev_s and whose host issues it in host_s,
** started from a synchronisation point, in the steady state of dlb_timeline (the host
** runs ahead while the device is busy, so neither waits for the other's slack):
** max(dev_s, host_s). The planner's rule per micro-batch phase. */
double dlb_stream_time(double dev_s, double host_s);

/* Mark op i of a set as a fused attention kernel (roofline_graph.c, from the analysis). */
struct dlb_opcosts;
int dlb_opcosts_mark_attention(struct dlb_opcosts *c, size_t i);

#endif
