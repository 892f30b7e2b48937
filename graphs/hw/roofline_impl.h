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
/* Mark op i of a set as a fused attention kernel (roofline_graph.c, from the analysis). */
struct dlb_opcosts;
int dlb_opcosts_mark_attention(struct dlb_opcosts *c, size_t i);

#endif
