/*
** planner_search.c — the layout search of the 3-D parallel planner: every (data x tensor x
** pipeline [x context x expert]) layout of a cluster with its micro-batches, schedules,
** recompute and ZeRO stages, each evaluated by planner.c's one layout rule
** (dlb_par_layout_eval), the ones that fit kept fastest first (dlb_par_plan_*, dlb_parallel.h).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_parallel.h"
#include "planner_ops.h"
#include "planner_impl.h"
#include "dlb_runtime.h"

struct dlb_par_plan {
  dlb_par_row *rows;
  int count, cap;
  double evaluated;
  dlb_par_row smallest;   /* the evaluated layout with the least memory */
};

static int push(dlb_par_plan *P, const dlb_par_row *r) {
  if (P->count == P->cap) {
    int nc = P->cap ? 2 * P->cap : 256;
    dlb_par_row *nr = dlb_realloc(P->rows, sizeof(dlb_par_row) * (size_t)nc);
    if (!nr) return dlb_fail(DLB_ENOMEM, "plan: out of memory");
    P->rows = nr;
    P->cap = nc;
  }
  P->rows[P->count++] = *r;
  return DLB_OK;
}

static int bystep(const void *a, const void *b) {
  const dlb_par_row *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  if (x->mem != y->mem) return x->mem < y->mem ? -1 : 1;
  return 0;
}

/* Search the layouts; see the header. */
dlb_par_plan *dlb_par_plan_new(const dlb_par_layer *L, int n, const dlb_roof *dev,
                               const dlb_par_cluster *cl, const dlb_par_opts *o) {
  return dlb_par_plan_new_ops(L, n, NULL, 0, dev, cl, o);
}

dlb_par_plan *dlb_par_plan_new_ops(const dlb_par_layer *L, int n, const dlb_par_op *ops,
                                   int nops, const dlb_roof *dev, const dlb_par_cluster *cl,
                                   const dlb_par_opts *o) {
  if (dlb_par_check_inputs(L, n, dev, cl, o)) return NULL;
  double D = o->devices > 0 ? o->devices : cl->per_node * cl->nodes;
  if (D >= 1e12 && isfinite(D))
    return dlb_fail_null(DLB_EINVAL, "plan: devices must be below 1e12, got %g", D);
  if (!dlb_par_whole(D))
    return dlb_fail_null(DLB_EINVAL, "plan: devices must be a whole number >= 1 (give devices, "
                         "or cluster per_node and nodes), got %g", D);
  if (dlb_par_cluster_check("plan", cl, D)) return NULL;
  if (!(o->zero_max >= 0 && o->zero_max <= 3))
    return dlb_fail_null(DLB_EINVAL, "plan: zero_max must be 0..3, got %g", o->zero_max);
  if (!(o->sched >= -1 && o->sched <= DLB_SCHED_INTERLEAVED) || o->sched != floor(o->sched))
    return dlb_fail_null(DLB_EINVAL, "plan: sched must be -1 (all) or 0..2, got %g", o->sched);
  if (!(o->recompute >= -1 && o->recompute <= DLB_PAR_RECOMPUTE_OP)
      || o->recompute != floor(o->recompute))
    return dlb_fail_null(DLB_EINVAL, "plan: recompute must be -1 (none and full), 0 (none), 1 "
                         "(full), 2 (selective) or 3 (per-op selective AC), got %g", o->recompute);
  if (o->recompute_every > 1 && !(o->recompute == -1 || o->recompute == DLB_PAR_RECOMPUTE_FULL))
    return dlb_fail_null(DLB_EINVAL, "plan: recompute_every = %g applies to full recompute only "
                         "(recompute 1, or -1: none and full), got recompute %g",
                         o->recompute_every, o->recompute);
  if (!(o->etp >= 0 && o->etp <= 1e6) || o->etp != floor(o->etp))
    return dlb_fail_null(DLB_EINVAL, "plan: etp must be a whole number >= 0 (0: tp), got %g",
                         o->etp);
  if (!(o->ep_max >= 0 && o->cp_max >= 0 && o->ep_max <= 1e6 && o->cp_max <= 1e6))
    return dlb_fail_null(DLB_EINVAL, "plan: ep_max and cp_max must be >= 0 (got %g, %g)",
                         o->ep_max, o->cp_max);
  if (!(o->cp_algo >= -1 && o->cp_algo <= DLB_CP_ALLTOALL) || o->cp_algo != floor(o->cp_algo))
    return dlb_fail_null(DLB_EINVAL, "plan: cp_algo must be -1 (all), 0 (ring), 1 (allgather) "
                         "or 2 (alltoall), got %g", o->cp_algo);
  if (!(o->m_max >= 0 && o->m_max <= 65536))
    return dlb_fail_null(DLB_EINVAL, "plan: m_max must be in 0..65536 micro-batches, got %g",
                         o->m_max);
  if (o->recompute_modules != 0 && o->recompute != DLB_PAR_RECOMPUTE_SELECTIVE)
    return dlb_fail_null(DLB_EINVAL, "plan: recompute_modules applies to selective recompute "
                         "only (recompute 2: Megatron-Core's recompute_granularity "
                         "\"selective\"), got recompute %g", o->recompute);
  dlb_layer_times *LT = dlb_layer_times_new(L, n, ops, nops);
  if (!LT) return NULL;
  if (dlb_layer_rcm_check(LT, o->recompute_modules)) { dlb_layer_times_free(LT); return NULL; }
  dlb_par_plan *P = dlb_calloc(1, sizeof *P);
  if (!P) { dlb_layer_times_free(LT); return dlb_fail_null(DLB_ENOMEM, "plan: out of memory"); }
  double tpmax = o->tp_max > 0 ? o->tp_max : (cl->per_node > 0 ? cl->per_node : 8);
  double ppmax = o->pp_max > 0 ? o->pp_max : n;
  double vv = o->v > 0 ? o->v : 2;
  int r0 = o->recompute < 0 ? 0 : (int)o->recompute, r1 = o->recompute < 0 ? 1 : r0;
  /* expert degrees: powers of two dividing every MoE layer's experts (up to ep_max); context
  ** degrees: powers of two up to cp_max; HSDP: the replicas of one node as the shard group */
  double emax = 0;
  for (int i = 0; i < n; i++) if (L[i].experts > emax) emax = L[i].experts;
  if (o->ep_max > 0 && o->ep_max < emax) emax = o->ep_max;
  double cmax = o->cp_max > 0 ? o->cp_max : 1;
  int a0 = o->cp_algo < 0 ? DLB_CP_RING : (int)o->cp_algo;
  int a1 = o->cp_algo < 0 ? DLB_CP_ALLTOALL : a0;
  for (double tp = 1; tp <= tpmax && tp <= D; tp *= 2) {
    if (fmod(D, tp) != 0 || dlb_par_tp_misfit(L, n, tp) >= 0) continue;
    for (double cp = 1; cp <= cmax && tp * cp <= D; cp *= 2) {
    if (fmod(D, tp * cp) != 0) continue;
    for (double pp = 1; pp <= ppmax && pp <= n && tp * cp * pp <= D; pp++) {
      if (fmod(D, tp * cp * pp) != 0) continue;
      double dp = D / (tp * cp * pp), dpc = dp * cp;
      double local = o->batch / dp;
      if (local < 1 || local != floor(local)) continue;
      double mmax = o->m_max > 0 ? o->m_max : fmax(1, 4 * pp);
      double etp = o->etp > 0 && o->etp < tp ? o->etp : tp;
      if (fmod(tp, etp) != 0) etp = tp;
      for (double ep = 1; ep == 1 || ep <= emax; ep *= 2) {
      if (fmod(tp * dpc, ep * etp) != 0) break;
      int eok = 1;
      for (int i = 0; i < n && ep > 1 && eok; i++)
        if (L[i].experts > 0 && fmod(L[i].experts, ep) != 0) eok = 0;
      if (!eok) break;
      for (int ca = a0; ca <= (cp > 1 ? a1 : a0); ca++) {
      if (cp > 1 && ca == DLB_CP_ALLTOALL) {
        int ok = 1;   /* Ulysses splits the heads over tp x cp */
        for (int i = 0; i < n && ok; i++)
          if (L[i].kv_bytes > 0 && L[i].tp_div > 0 && fmod(L[i].tp_div, tp * cp) != 0) ok = 0;
        if (!ok) continue;
      }
      /* HSDP's shard group: the replicas one node holds (per_node / (tp pp)) */
      double hnode = cl->per_node > 0 ? floor(cl->per_node / (tp * pp)) : 0;
      double hsdp = (o->hsdp != 0 && ep == 1 && hnode > 1 && hnode < dpc && fmod(dpc, hnode) == 0)
        ? hnode : 0;
      for (int sc = DLB_SCHED_GPIPE; sc <= DLB_SCHED_INTERLEAVED; sc++) {
        if (o->sched >= 0 && sc != (int)o->sched) continue;
        if (o->sched < 0 && pp == 1 && sc != DLB_SCHED_1F1B) continue; /* all the same */
        if (sc == DLB_SCHED_INTERLEAVED && (pp == 1 || pp * vv > n)) continue;
        /* a split by count needs whole chunks (dlb_par_layout_eval) */
        if (o->balance == DLB_BALANCE_LAYERS &&
            n % (int)(sc == DLB_SCHED_INTERLEAVED ? pp * vv : pp) != 0) continue;
        for (double m = 1; m <= mmax && m <= local; m++) {
          if (fmod(local, m) != 0) continue;
          if (sc == DLB_SCHED_INTERLEAVED && fmod(m, pp) != 0) continue;
          for (int rc = r0; rc <= r1; rc++) {
            for (int z = 0; z <= (int)o->zero_max + (hsdp > 0 && o->zero_max >= 3); z++) {
              if (z > 0 && dpc == 1) break;
              dlb_par_row cfg = { 0 }, r;
              cfg.dp = dp; cfg.tp = tp; cfg.pp = pp; cfg.m = m; cfg.v = vv;
              cfg.sched = sc; cfg.recompute = rc; cfg.zero = z > 3 ? 3 : z;
              cfg.ep = ep; cfg.cp = cp; cfg.cp_algo = ca; cfg.hsdp = z > 3 ? hsdp : 0;
              cfg.etp = etp;
              int st = dlb_par_layout_eval(L, n, LT, dev, cl, o, &cfg, &r, NULL, 1);
              if (st) { dlb_layer_times_free(LT); dlb_par_plan_free(P); return NULL; }
              if (P->evaluated == 0 || r.mem < P->smallest.mem) P->smallest = r;
              P->evaluated += 1;
              if ((r.fits || o->keep_unfit) && push(P, &r)) {
                dlb_layer_times_free(LT);
                dlb_par_plan_free(P);
                return NULL;
              }
            }
          }
        }
      }
      }
      }
    }
    }
  }
  dlb_layer_times_free(LT);
  if (P->count > 1) qsort(P->rows, (size_t)P->count, sizeof(dlb_par_row), bystep);
  return P;
}

/* The number of plans kept. */
int dlb_par_plan_count(const dlb_par_plan *P) {
  return P ? P->count : 0;
}

/* Copy plan i (0-based). */
int dlb_par_plan_row(const dlb_par_plan *P, int i, dlb_par_row *out) {
  if (!P || !out) return dlb_fail(DLB_EINVAL, "plan row: missing plan or output");
  if (i < 0 || i >= P->count)
    return dlb_fail(DLB_EINVAL, "plan row: index %d out of range 1..%d", i + 1, P->count);
  *out = P->rows[i];
  return DLB_OK;
}

/* How many layouts were evaluated. */
double dlb_par_plan_evaluated(const dlb_par_plan *P) {
  return P ? P->evaluated : 0;
}

/* The leanest evaluated layout. */
int dlb_par_plan_smallest(const dlb_par_plan *P, dlb_par_row *out) {
  if (!P || !out) return dlb_fail(DLB_EINVAL, "plan smallest: missing plan or output");
  if (!(P->evaluated > 0)) return dlb_fail(DLB_EINVAL, "plan smallest: no layout was evaluated");
  *out = P->smallest;
  return DLB_OK;
}

/* Free a plan; NULL is a no-op. */
void dlb_par_plan_free(dlb_par_plan *P) {
  if (!P) return;
  dlb_free(P->rows);
  dlb_free(P);
}
