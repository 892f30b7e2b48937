/*
** planner_model.c — the planner's entry points for one layout: the checks of the inputs
** (planner_check.c), the per-layer times from the per-op rule (planner_ops.c: built once and
** kept in a prepared model, dlb_par_model, across devices), then one layout's evaluation
** (dlb_par_layout_eval, planner.c). Split from planner.c, which keeps the evaluation itself.
*/
#include <string.h>

#include "dlb_parallel.h"
#include "planner_ops.h"
#include "planner_impl.h"
#include "dlb_runtime.h"

/* Evaluate one layout; see the header. */
int dlb_par_evaluate_ops(const dlb_par_layer *L, int n, const dlb_par_op *ops, int nops,
                         const dlb_roof *dev, const dlb_par_cluster *cl,
                         const dlb_par_opts *o, const dlb_par_row *cfg, dlb_par_row *out,
                         double *stage_mem) {
  int st = dlb_par_check_inputs(L, n, dev, cl, o);
  if (st) return st;
  dlb_layer_times *LT = dlb_layer_times_new(L, n, ops, nops);
  if (!LT) return dlb_last_status();
  st = dlb_par_layout_eval(L, n, LT, dev, cl, o, cfg, out, stage_mem, 0);
  dlb_layer_times_free(LT);
  return st;
}

/* A prepared model; see the header. */
struct dlb_par_model {
  dlb_par_layer *L;
  int n;
  dlb_layer_times *LT;
};

dlb_par_model *dlb_par_model_new(const dlb_par_layer *L, int n, const dlb_par_op *ops,
                                 int nops) {
  if (n < 1 || L == NULL)
    return dlb_fail_null(DLB_EINVAL, "parallel model: at least one layer is required");
  dlb_par_model *m = dlb_calloc(1, sizeof *m);
  if (!m) return dlb_fail_null(DLB_ENOMEM, "parallel model: out of memory");
  m->L = dlb_malloc(sizeof(dlb_par_layer) * (size_t)n);
  if (!m->L) { dlb_free(m); return dlb_fail_null(DLB_ENOMEM, "parallel model: out of memory"); }
  memcpy(m->L, L, sizeof(dlb_par_layer) * (size_t)n);
  m->n = n;
  m->LT = dlb_layer_times_new(m->L, n, ops, nops);   /* checks the ops */
  if (!m->LT) { dlb_free(m->L); dlb_free(m); return NULL; }
  return m;
}

void dlb_par_model_free(dlb_par_model *m) {
  if (!m) return;
  dlb_layer_times_free(m->LT);
  dlb_free(m->L);
  dlb_free(m);
}

int dlb_par_model_evaluate(dlb_par_model *m, const dlb_roof *dev, const dlb_par_cluster *cl,
                           const dlb_par_opts *o, const dlb_par_row *cfg, dlb_par_row *out,
                           double *stage_mem) {
  if (!m) return dlb_fail(DLB_EINVAL, "parallel model: NULL");
  int st = dlb_par_check_inputs(m->L, m->n, dev, cl, o);
  if (st) return st;
  dlb_layer_times_reset(m->LT);   /* the cached times are the last device's */
  return dlb_par_layout_eval(m->L, m->n, m->LT, dev, cl, o, cfg, out, stage_mem, 0);
}

int dlb_par_evaluate(const dlb_par_layer *L, int n, const dlb_roof *dev,
                     const dlb_par_cluster *cl, const dlb_par_opts *o,
                     const dlb_par_row *cfg, dlb_par_row *out, double *stage_mem) {
  return dlb_par_evaluate_ops(L, n, NULL, 0, dev, cl, o, cfg, out, stage_mem);
}
