/*
** collective.c — alpha-beta cost models of collective operations on one link tier, and the
** hierarchical (intra-node, then inter-node) allreduce.
**
** Notation: S bytes, n ranks, alpha = link latency per message, beta = 1/(bw * eff) s/byte,
** lg = ceil(log2 n). `bytes` in the result is the average per rank sent on the wire
** (total / n), `total` the sum over ranks, `steps` the message rounds on the critical path.
** Every formula names its source; the tests re-derive each closed form.
*/
#include <math.h>
#include <stdio.h>

#include "dlb_parallel.h"
#include "dlb_runtime.h"

static const char *opname[] = { "allreduce", "allgather", "reduce_scatter", "broadcast",
                                "alltoall", "ps" };
static const char *algoname[] = { "ring", "tree", "dbtree", "hd", "direct" };

/* ceil(log2 n) for n >= 1 */
static double clog2(double n) {
  double l = 0, p = 1;
  while (p < n) { p *= 2; l += 1; }
  return l;
}

static int ispow2(double n) {
  double p = 1;
  while (p < n) p *= 2;
  return p == n;
}

static int check_link(const char *what, const dlb_par_link *l) {
  if (!l) return dlb_fail(DLB_EINVAL, "%s: link is missing", what);
  if (!(l->bw > 0) || !isfinite(l->bw))
    return dlb_fail(DLB_EINVAL, "%s: link bandwidth must be a positive number of bytes/s, got %g",
                    what, l->bw);
  if (!(l->latency >= 0) || !isfinite(l->latency))
    return dlb_fail(DLB_EINVAL, "%s: link latency must be >= 0 s, got %g", what, l->latency);
  if (!(l->eff >= 0 && l->eff <= 1))
    return dlb_fail(DLB_EINVAL, "%s: link efficiency must be in (0, 1], got %g", what, l->eff);
  if (!(l->nccl_latency >= 0) || !isfinite(l->nccl_latency))
    return dlb_fail(DLB_EINVAL, "%s: link nccl_latency must be >= 0 s, got %g", what,
                    l->nccl_latency);
  return DLB_OK;
}

static int link_absent(const dlb_par_link *l) {
  return l->bw == 0;
}

/* A cluster's sizes and links; see the header. */
int dlb_par_cluster_check(const char *what, const dlb_par_cluster *cl, double devices) {
  if (!what) what = "cluster";
  if (!cl) return dlb_fail(DLB_EINVAL, "%s: cluster is missing", what);
  const double sz[2] = { cl->per_node, cl->nodes };
  const char *nm[2] = { "per_node", "nodes" };
  for (int i = 0; i < 2; i++) {
    if (sz[i] > 1e9 && isfinite(sz[i]))   /* said apart: "must be >= 1, got 1.25e+14" misled */
      return dlb_fail(DLB_EINVAL, "%s: cluster %s must be at most 1e9, got %g", what, nm[i], sz[i]);
    if (!(sz[i] == 0 || (sz[i] >= 1 && sz[i] == floor(sz[i]) && sz[i] <= 1e9)))
      return dlb_fail(DLB_EINVAL, "%s: cluster %s must be a whole number >= 1, got %g", what,
                      nm[i], sz[i]);
  }
  char buf[96];
  const dlb_par_link *tier[2] = { &cl->intra, &cl->inter };
  const char *dlb_tname[2] = { "intra", "inter" };
  for (int i = 0; i < 2; i++) {
    const dlb_par_link *l = tier[i];
    if (link_absent(l) || (isfinite(l->bw) && l->bw > 0 && isfinite(l->latency) &&
                           l->latency >= 0 && l->eff >= 0 && l->eff <= 1 &&
                           l->nccl_latency >= 0 && isfinite(l->nccl_latency)))
      continue;   /* the message is formatted only on failure (the planner calls this often) */
    snprintf(buf, sizeof buf, "%s: cluster %s", what, dlb_tname[i]);
    return check_link(buf, l);
  }
  if (!(cl->intra.bw > 0) && !(cl->inter.bw > 0))
    return dlb_fail(DLB_EINVAL, "%s: the cluster has no link with a bandwidth "
                    "(set intra.bw or inter.bw)", what);
  if (!(devices >= 0) || !isfinite(devices))
    return dlb_fail(DLB_EINVAL, "%s: devices must be >= 0, got %g", what, devices);
  if (devices > 0 && cl->per_node > 0 && cl->nodes > 0 && devices > cl->per_node * cl->nodes)
    return dlb_fail(DLB_EINVAL, "%s: %g devices do not fit the cluster of %g nodes x %g "
                    "per node = %g devices", what, devices, cl->nodes, cl->per_node,
                    cl->nodes * cl->per_node);
  return DLB_OK;
}

static int check_count(const char *what, const char *name, double n) {
  if (n > 1e12 && isfinite(n))
    return dlb_fail(DLB_EINVAL, "%s: %s must be at most 1e12, got %g", what, name, n);
  if (!(n >= 1) || !isfinite(n) || n != floor(n) || n > 1e12)
    return dlb_fail(DLB_EINVAL, "%s: %s must be a whole number >= 1, got %g", what, name, n);
  return DLB_OK;
}

static void set(dlb_par_coll *o, double time, double total, double n, double steps) {
  o->time = time;
  o->total = total;
  o->bytes = total / n;
  o->steps = steps;
}

/* Time, bytes and rounds of collective `op` with `algo`; see the header. */
int dlb_par_collective(int op, int algo, double S, double n, double shards,
                       const dlb_par_link *link, dlb_par_coll *out) {
  if (!out) return dlb_fail(DLB_EINVAL, "collective: no result buffer");
  if (op < 0 || op >= DLB_COLL_NOPS)
    return dlb_fail(DLB_EINVAL, "collective: unknown operation %d", op);
  if (algo < 0 || algo >= DLB_ALGO_NALGOS)
    return dlb_fail(DLB_EINVAL, "collective %s: unknown algorithm %d", opname[op], algo);
  const char *what = opname[op];
  int st = check_link(what, link);
  if (st) return st;
  if ((st = check_count(what, "ranks", n))) return st;
  if (!(S >= 0) || !isfinite(S))
    return dlb_fail(DLB_EINVAL, "%s: bytes must be >= 0, got %g", what, S);
  double a = link->latency;
  double beta = 1.0 / (link->bw * (link->eff > 0 ? link->eff : 1.0));
  double lg = clog2(n);
  set(out, 0, 0, n, 0);

  switch (op) {
  case DLB_COLL_ALLREDUCE:
    if (n == 1) return DLB_OK;
    switch (algo) {
    case DLB_ALGO_RING:
      /* Patarasuk & Yuan 2009, eq. for the bandwidth-optimal ring: reduce-scatter then
      ** all-gather, 2(n-1) rounds of S/n bytes: 2(n-1)a + 2(n-1)/n S b. */
      set(out, 2 * (n - 1) * a + 2 * (n - 1) / n * S * beta, 2 * (n - 1) * S, n, 2 * (n - 1));
      return DLB_OK;
    case DLB_ALGO_TREE:
      /* Thakur, Rabenseifner & Gropp 2005 sec. 4: binomial reduce lg(a + S b) followed by
      ** binomial broadcast lg(a + S b); each phase moves (n-1) S bytes in total. */
      set(out, 2 * lg * (a + S * beta), 2 * (n - 1) * S, n, 2 * lg);
      return DLB_OK;
    case DLB_ALGO_DBTREE:
      /* Sanders, Speck & Traff 2009 (two-tree reduction + broadcast, as in NCCL): each of two
      ** complementary trees carries S/2, pipelined, at full bandwidth: 2 lg a + 2 S b
      ** (pipeline fill neglected). Both trees together move 2(n-1) S bytes. */
      set(out, 2 * lg * a + 2 * S * beta, 2 * (n - 1) * S, n, 2 * lg);
      return DLB_OK;
    case DLB_ALGO_HD: {
      /* Rabenseifner's recursive halving (reduce-scatter) + doubling (all-gather), Thakur et
      ** al. 2005 sec. 4.4: 2 log2(p') a + 2 (p'-1)/p' S b for p' = 2^floor(log2 n); when n is
      ** not a power of two the n - p' extra ranks first fold into partners and get the result
      ** back at the end: + 2 (a + S b). */
      double pp = ispow2(n) ? n : pow(2, lg - 1);
      double l2 = clog2(pp);
      double t = 2 * l2 * a + 2 * (pp - 1) / pp * S * beta;
      double total = 2 * (pp - 1) * S, steps = 2 * l2;
      if (pp != n) {
        t += 2 * (a + S * beta);
        total += 2 * (n - pp) * S;
        steps += 2;
      }
      set(out, t, total, n, steps);
      return DLB_OK;
    }
    default: break;
    }
    break;

  case DLB_COLL_ALLGATHER:
  case DLB_COLL_REDUCE_SCATTER:
    if (n == 1) return DLB_OK;
    switch (algo) {
    case DLB_ALGO_RING:
      /* Thakur et al. 2005 sec. 4.1 (ring all-gather) and sec. 4.4 (ring reduce-scatter,
      ** the first half of Patarasuk & Yuan's allreduce): (n-1) a + (n-1)/n S b. */
      set(out, (n - 1) * a + (n - 1) / n * S * beta, (n - 1) * S, n, n - 1);
      return DLB_OK;
    case DLB_ALGO_HD:
      if (op == DLB_COLL_ALLGATHER) {
        /* Thakur et al. 2005 sec. 4.1: recursive doubling (powers of two) and Bruck's
        ** algorithm (any n): ceil(log2 n) a + (n-1)/n S b. */
        set(out, lg * a + (n - 1) / n * S * beta, (n - 1) * S, n, lg);
        return DLB_OK;
      }
      /* Thakur et al. 2005 sec. 4.4: recursive halving, n a power of two:
      ** log2(n) a + (n-1)/n S b. */
      if (!ispow2(n))
        return dlb_fail(DLB_EINVAL, "reduce_scatter hd: needs a power-of-two number of ranks, "
                        "got %g (use ring)", n);
      set(out, lg * a + (n - 1) / n * S * beta, (n - 1) * S, n, lg);
      return DLB_OK;
    default: break;
    }
    break;

  case DLB_COLL_BROADCAST:
    if (n == 1) return DLB_OK;
    switch (algo) {
    case DLB_ALGO_TREE:
      /* Thakur et al. 2005 sec. 4.3: binomial tree, lg (a + S b). */
      set(out, lg * (a + S * beta), (n - 1) * S, n, lg);
      return DLB_OK;
    case DLB_ALGO_RING:
      /* Thakur et al. 2005 sec. 4.3 (van de Geijn): binomial scatter then ring all-gather,
      ** (lg + n - 1) a + 2 (n-1)/n S b. The scatter moves lg S/2 bytes (power of two). */
      set(out, (lg + n - 1) * a + 2 * (n - 1) / n * S * beta, lg * S / 2 + (n - 1) * S, n,
          lg + n - 1);
      return DLB_OK;
    case DLB_ALGO_DBTREE:
      /* Sanders, Speck & Traff 2009: two-tree broadcast at full bandwidth, lg a + S b. */
      set(out, lg * a + S * beta, (n - 1) * S, n, lg);
      return DLB_OK;
    default: break;
    }
    break;

  case DLB_COLL_ALLTOALL:
    if (n == 1) return DLB_OK;
    switch (algo) {
    case DLB_ALGO_DIRECT:
    case DLB_ALGO_RING:
      /* Thakur et al. 2005 sec. 4.5: pairwise exchange, each rank sends S/n to each of the
      ** n-1 others: (n-1) a + (n-1)/n S b. */
      set(out, (n - 1) * a + (n - 1) / n * S * beta, (n - 1) * S, n, n - 1);
      return DLB_OK;
    case DLB_ALGO_HD:
      /* Thakur et al. 2005 sec. 4.5: Bruck's algorithm for short messages,
      ** lg a + (S/2) lg b; each round moves half of every rank's buffer. */
      set(out, lg * a + S / 2 * lg * beta, n * S / 2 * lg, n, lg);
      return DLB_OK;
    default: break;
    }
    break;

  case DLB_COLL_PS: {
    if (algo != DLB_ALGO_DIRECT) break;
    double k = shards > 0 ? shards : 1;
    if ((st = check_count(what, "shards", k))) return st;
    /* Parameter server (Li et al. 2014, OSDI): every worker pushes its S-byte gradient and
    ** pulls S bytes of weights; server shard j holds S/k and exchanges n S/k bytes each way.
    ** Hand derivation in the alpha-beta model with each endpoint's link the bottleneck:
    ** 2 a + 2 max(S, n S / k) b. On the wire: 2 n S. */
    double heavy = fmax(S, n * S / k);
    set(out, 2 * a + 2 * heavy * beta, 2 * n * S, n, 2);
    return DLB_OK;
  }
  default: break;
  }
  return dlb_fail(DLB_EINVAL, "%s: algorithm '%s' is not defined for it", what, algoname[algo]);
}

/* Hierarchical allreduce: ring reduce-scatter inside each node, allreduce of the 1/g shard
** across nodes, ring all-gather inside each node (Jia et al. 2018, "Highly scalable deep
** learning training system with mixed-precision"; NCCL's 2-D scheme). */
int dlb_par_allreduce_hier(double S, double g, double nodes, int inter_algo,
                           const dlb_par_link *intra, const dlb_par_link *inter,
                           dlb_par_coll *out) {
  if (!out) return dlb_fail(DLB_EINVAL, "hierarchical allreduce: no result buffer");
  int st;
  if ((st = check_count("hierarchical allreduce", "per_node", g))) return st;
  if ((st = check_count("hierarchical allreduce", "nodes", nodes))) return st;
  dlb_par_coll rs, ar, ag;
  if ((st = dlb_par_collective(DLB_COLL_REDUCE_SCATTER, DLB_ALGO_RING, S, g, 0, intra, &rs)))
    return st;
  if ((st = dlb_par_collective(DLB_COLL_ALLREDUCE, inter_algo, S / g, nodes, 0, inter, &ar)))
    return st;
  if ((st = dlb_par_collective(DLB_COLL_ALLGATHER, DLB_ALGO_RING, S, g, 0, intra, &ag)))
    return st;
  double n = g * nodes;
  out->time = rs.time + ar.time + ag.time;
  out->total = nodes * (rs.total + ag.total) + g * ar.total;
  out->bytes = out->total / n;
  out->steps = rs.steps + ar.steps + ag.steps;
  return DLB_OK;
}

/* All-to-all over n ranks `stride` devices apart on cl (the MoE dispatch/combine, Ulysses).
** Hand derivation in the alpha-beta model from the pairwise exchange of Thakur et al. 2005
** sec. 4.5 ((n-1) a + (n-1)/n S b on one tier), split by tier: with g = the group's ranks on
** one node (per_node / stride, at least 1, at most n), a rank sends S/n to each of its g-1
** node peers over the intra link and to each of the n-g others over its inter link; the two
** tiers progress at once (NCCL posts every send and receive of the exchange in one group),
** so the time is the slower tier's: max((g-1) a_i + (g-1)/n S b_i, (n-g) a_e + (n-g)/n S b_e).
** An unsized cluster, or a group within one node, is the one-tier formula on its link. */
int dlb_par_alltoall_cluster(double S, double n, double stride, const dlb_par_cluster *cl,
                             dlb_par_coll *out) {
  if (!out) return dlb_fail(DLB_EINVAL, "alltoall: no result buffer");
  int st;
  if ((st = check_count("alltoall", "ranks", n))) return st;
  if ((st = check_count("alltoall", "stride", stride))) return st;
  if ((st = dlb_par_cluster_check("alltoall", cl, n * stride))) return st;
  if (!(S >= 0) || !isfinite(S))
    return dlb_fail(DLB_EINVAL, "alltoall: bytes must be >= 0, got %g", S);
  set(out, 0, 0, n, 0);
  if (n == 1) return DLB_OK;
  int has_intra = cl->intra.bw > 0, has_inter = cl->inter.bw > 0;
  double g = n;   /* ranks of the group on one node */
  if (cl->per_node > 0) g = fmin(n, fmax(1, floor(cl->per_node / stride)));
  if (!has_inter || g >= n || !has_intra)
    return dlb_par_collective(DLB_COLL_ALLTOALL, DLB_ALGO_DIRECT, S, n, 0,
                              (has_intra && (g >= n || !has_inter)) ? &cl->intra : &cl->inter,
                              out);
  const dlb_par_link *li = &cl->intra, *le = &cl->inter;
  double bi = 1.0 / (li->bw * (li->eff > 0 ? li->eff : 1.0));
  double be = 1.0 / (le->bw * (le->eff > 0 ? le->eff : 1.0));
  double ti = (g - 1) * li->latency + (g - 1) / n * S * bi;
  double te = (n - g) * le->latency + (n - g) / n * S * be;
  set(out, fmax(ti, te), (n - 1) * S, n, fmax(g - 1, n - g));
  return DLB_OK;
}
