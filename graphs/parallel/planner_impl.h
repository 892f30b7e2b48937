/*
** planner_impl.h — internal to libdlbench: what planner.c (one layout's evaluation) and
** planner_check.c (the inputs' checks) give planner_search.c (the search over layouts). Not part of the public interface.
*/
#ifndef DLB_PLANNER_IMPL_H
#define DLB_PLANNER_IMPL_H

#include "dlb_parallel.h"
#include "planner_ops.h"

/* x a whole number in [1, 1e12). */
int dlb_par_whole(double x);
/* The arguments every evaluation and search needs (a message when one is missing). */
int dlb_par_check_inputs(const dlb_par_layer *L, int n, const dlb_roof *dev,
                         const dlb_par_cluster *cl, const dlb_par_opts *o);
/* The first layer tp does not split evenly (tp_div not a multiple of tp), or -1. */
int dlb_par_tp_misfit(const dlb_par_layer *L, int n, double tp);
/* One layout cfg of layers L[0..n) with their layer times LT on device dev and cluster cl:
** the row (*out) and each stage's bytes (stage_mem, may be NULL). `checked`: the search
** already validated the inputs and enumerates only possible layouts (whole micro-batches,
** tp dividing tp_div, within the cluster), so those checks are skipped. */
int dlb_par_layout_eval(const dlb_par_layer *L, int n, dlb_layer_times *LT, const dlb_roof *dev,
                        const dlb_par_cluster *cl, const dlb_par_opts *o,
                        const dlb_par_row *cfg, dlb_par_row *out, double *stage_mem,
                        int checked);

#endif
