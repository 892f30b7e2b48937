/*
** dlb_minimize.h — derivative-free minimisation in reverse communication: a Nelder-Mead
** simplex inside box bounds that asks the caller for the function value at each point it
** wants, so the function can live anywhere (dlb.hw.calibrate evaluates dlb.roofline.time in
** Lua). graphs/stats/minimize.c.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_MINIMIZE_H
#define DLB_MINIMIZE_H

#include <stddef.h>

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
typedef struct dlb_minimizer dlb_minimizer;

/* A minimiser of n (1..64) variables from x0 with initial steps `step` (non-zero), every
** point kept inside [lo, hi] (lo < hi, x0 inside). It stops when the values of the simplex
** differ by less than tol (absolute) on a simplex no wider than 1e-7, or after max_evals evaluations. NULL on bad input. */
DLB_API dlb_minimizer *dlb_minimizer_new(size_t n, const double *x0, const double *step,
                                         const double *lo, const double *hi, double tol,
                                         int max_evals);
DLB_API void dlb_minimizer_free(dlb_minimizer *m);
/* The next point to evaluate into x (n values): 1, or 0 when the search has finished. */
DLB_API int dlb_minimizer_ask(dlb_minimizer *m, double *x);
/* The function value at the point of the last ask (NaN counts as +infinity). */
DLB_API int dlb_minimizer_tell(dlb_minimizer *m, double f);
/* The best point so far into x, its value and the evaluations made. */
DLB_API int dlb_minimizer_best(const dlb_minimizer *m, double *x, double *f, int *evals);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
