/*
** pipeline.c — layer (pipeline) parallelism: balanced contiguous partition of layers into
** stages, and the bubble of the GPipe, 1F1B and interleaved schedules.
*/
#include <math.h>

#include "dlb_parallel.h"
#include "dlb_runtime.h"

/* Greedy cut under cap: the stages needed so that no stage exceeds cap. */
static int stages_needed(const double *w, int n, double cap) {
  int s = 1;
  double sum = 0;
  for (int i = 0; i < n; i++) {
    if (sum > 0 && sum + w[i] > cap) { s++; sum = 0; }
    sum += w[i];
  }
  return s;
}

/* Linear partition (the "painter's partition" problem): the smallest cap C for which a greedy
** split needs <= k stages is the optimal bottleneck; found by bisection between max(w) and
** sum(w), then the split is made with exactly k non-empty stages (a forced cut whenever the
** layers left equal the stages still to open). */
int dlb_par_partition(const double *w, int n, int k, int *first) {
  if (n < 1) return dlb_fail(DLB_EINVAL, "partition: no layers to split into %d stages (the layer list is empty)", k);
  if (!w || !first) return dlb_fail(DLB_EINVAL, "partition: missing weights or output");
  if (k < 1 || k > n)
    return dlb_fail(DLB_EINVAL, "partition: %d stages for %d layers (need 1 <= stages <= layers)",
                    k, n);
  double lo = 0, hi = 0;
  for (int i = 0; i < n; i++) {
    if (!(w[i] >= 0) || !isfinite(w[i]))
      return dlb_fail(DLB_EINVAL, "partition: layer %d weight must be >= 0, got %g", i + 1, w[i]);
    if (w[i] > lo) lo = w[i];
    hi += w[i];
  }
  if (stages_needed(w, n, lo) <= k) hi = lo;
  for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
    double mid = 0.5 * (lo + hi);
    if (stages_needed(w, n, mid) <= k) hi = mid; else lo = mid;
  }
  double cap = hi * (1 + 1e-12);
  int s = 0;
  double sum = 0;
  first[0] = 0;
  for (int i = 0; i < n; i++) {
    int must = (n - i) == (k - 1 - s);
    if (s < k - 1 && i > first[s] && (must || sum + w[i] > cap)) {
      s++;
      first[s] = i;
      sum = 0;
    }
    sum += w[i];
  }
  return DLB_OK;
}

/* Idle fraction of a pipelined step. GPipe (Huang et al. 2019) and 1F1B (PipeDream-Flush,
** Narayanan et al. 2021) both idle (p-1) slots of m+p-1: (p-1)/(m+p-1). The interleaved
** schedule (Narayanan et al. 2021 sec. 2.2.2) cuts the bubble time by v:
** ((p-1)/v) / (m + (p-1)/v) = (p-1)/(v m + p - 1). NaN for bad input. */
double dlb_par_bubble(int sched, double p, double m, double v) {
  if (!(p >= 1) || !(m >= 1)) return NAN;
  switch (sched) {
  case DLB_SCHED_GPIPE:
  case DLB_SCHED_1F1B:
    return (p - 1) / (m + p - 1);
  case DLB_SCHED_INTERLEAVED:
    if (!(v >= 1)) return NAN;
    return (p - 1) / (v * m + p - 1);
  default:
    return NAN;
  }
}
