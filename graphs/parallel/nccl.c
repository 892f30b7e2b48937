/*
** nccl.c — collectives as NCCL runs them (issue [19]): NCCL's own tuning model, transcribed
** from NVIDIA/nccl src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime; the tables
** of v2.19/v2.20, commit b6475625): per algorithm (tree, ring, NVLS, NVLS tree) and protocol
** (LL, LL128, Simple) a latency in microseconds, a base plus hops on NVLink/PCIe and on the
** network, and a bus bandwidth, the fabric's times each protocol's efficiency, converted to
** an algorithm bandwidth; time = latency + bytes / algorithm bandwidth, and NCCL runs the
** fastest enabled pair (enqueue.cc, getAlgoInfo: the minimum of ncclTopoGetAlgoTime).
**
** What the transcription leaves out, each stated:
**  - NCCL's topology search finds the channels and the per-channel bandwidths (search.cc);
**    here the bus bandwidth is the fabric's aggregate (dlb_nccl_topo.bw_intra / bw_inter),
**    so the per-channel caps (perChMaxRingLL128Bw, perChMaxTreeBw, perChMaxTreeLL128Bw
**    times nChannels) are assumed not to bind; the absolute LL cap (llMaxBws) is kept;
**  - graphs' latencyInter (0 unless the search sets it) is 0; the CPU is x86 Intel
**    (getNetOverhead 1 us; the LL cap's row for multi-node);
**  - NCCL_TOPO_PATTERN_TREE's 0.85 (split trees) is not applied: balanced trees assumed;
**  - for two nodes or fewer NCCL takes the graph's bwIntra, which the search has already
**    limited to the network's speed on a multi-node graph: min(bw_intra, bw_inter) here;
**  - numPipeOps (aggregated launches) is 1.
*/
#include <math.h>

#include "collective_impl.h"
#include "dlb_parallel.h"
#include "dlb_runtime.h"

/* Latencies in us: baseLat[algo][proto], algo order Tree, Ring, NVLS, NVLS tree (tuning.cc
** also has CollNet direct / chain between Ring and NVLS, not modelled: 0 there too). */
static const double base_lat[DLB_NCCL_NALGOS][DLB_NCCL_NPROTOS] = {
  { 6.8, 14.0, 0 }, { 6.6, 14.0, 8.4 }, { 0, 0, 0 }, { 0, 0, 0 } };

/* hwLat[NVLINK, PCI, NET][algo][proto], us */
enum { HW_NVLINK = 0, HW_PCI = 1, HW_NET = 2 };
static const double hw_lat[3][DLB_NCCL_NALGOS][DLB_NCCL_NPROTOS] = {
  { { .6, 1.25, 28 }, { .6, 1.9, 3.4 }, { 0, 0, 23 }, { 0, 0, 23 } },   /* NVLink */
  { { 1.0, 1.9, 28 }, { 1.0, 2.5, 5.7 }, { 0, 0, 0 }, { 0, 0, 0 } },    /* PCI */
  { { 5.0, 8.5, 28 }, { 2.7, 4.0, 14.0 }, { 0, 0, 18 }, { 0, 0, 14 } }, /* network */
};

/* llMaxBws[Volta, Ampere, Hopper][N1, N2, N4], GB/s: the LL protocol's ceiling. For one node
** the row is the GPU's; for more, NCCL indexes the row by the CPU vendor (Intel 0, AMD 1):
** Intel here. */
static const double ll_max_bw[3][3] = {
  { 39.0, 39.0, 20.4 }, { 87.7, 22.5, 19.0 }, { 87.7, 22.5, 19.0 } };

/* treeCorrectionFactor[proto][log2(bytes / 64)], powers of two from 64 B to 256 MB. */
static const double tree_corr[DLB_NCCL_NPROTOS][23] = {
  { 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
    1.0, 1.0 },
  { 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9,
    1.0, 1.0 },
  { .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9,
    .9 } };

static const char *algo_name[DLB_NCCL_NALGOS] = { "tree", "ring", "nvls", "nvls_tree" };
static const char *proto_name[DLB_NCCL_NPROTOS] = { "LL", "LL128", "Simple" };

/* NCCL's log2i: floor(log2 n) for n >= 1, 0 for n < 2. */
static int log2i(double n) {
  int l = 0;
  while (n >= 2) { n /= 2; l++; }
  return l;
}

/* Is (op, algo, proto) one NCCL runs on this topology? 0 with *why set when not. */
static int enabled(int op, int a, int p, const dlb_nccl_topo *t, const char **why) {
  *why = NULL;
  if (op == DLB_COLL_BROADCAST && a != DLB_NCCL_RING) *why = "broadcast runs rings only";
  else if ((op == DLB_COLL_ALLGATHER || op == DLB_COLL_REDUCE_SCATTER) && a != DLB_NCCL_RING
           && a != DLB_NCCL_NVLS)
    *why = "all-gather and reduce-scatter run rings or NVLS only";
  else if ((a == DLB_NCCL_NVLS || a == DLB_NCCL_NVLS_TREE) && p != DLB_NCCL_SIMPLE)
    *why = "NVLS runs the Simple protocol only";
  else if ((a == DLB_NCCL_NVLS || a == DLB_NCCL_NVLS_TREE) && !(t->nvls > 0))
    *why = "NVLS needs NVLink SHARP (nvls = 1)";
  /* tuning.cc: NVLS tree only across nodes; NVLS across nodes only with CollNet */
  else if (a == DLB_NCCL_NVLS_TREE && t->nodes == 1) *why = "NVLS tree runs across nodes only";
  else if (a == DLB_NCCL_NVLS && t->nodes > 1) *why = "NVLS across nodes needs CollNet";
  /* LL128 by default only with NVLink inside the node, Volta to Hopper (tuning.cc pEnable) */
  else if (p == DLB_NCCL_LL128 && !(t->nvlink >= 2 && t->nvlink <= 5))
    *why = "LL128 is enabled by default only on NVLink (Volta, Ampere, Hopper)";
  return *why == NULL;
}

/* One (algo, proto): latency (us) and algorithm bandwidth (GB/s), tuning.cc's formulas. */
static void tune(int op, int a, int p, const dlb_nccl_topo *t, double *lat_us, double *bw_gbs) {
  double n = t->ranks, N = t->nodes, ppn = n / N;
  int cc = t->nvlink >= 4 ? 2 : t->nvlink == 3 ? 1 : 0;   /* Hopper+, Ampere, Volta/other */
  int i2 = N <= 2 ? (int)N - 1 : 2;
  int i1 = N == 1 ? cc : 0;                               /* Intel CPU across nodes */
  double llmax = ll_max_bw[i1][i2];
  double nsteps = op == DLB_COLL_ALLREDUCE ? 2 * (n - 1)
    : (op == DLB_COLL_REDUCE_SCATTER || op == DLB_COLL_ALLGATHER) ? n - 1 : n;
  double ninter = op == DLB_COLL_ALLREDUCE ? (N > 1 ? 2 * N : 0)
    : (op == DLB_COLL_REDUCE_SCATTER || op == DLB_COLL_ALLGATHER) ? N - 1 : N;
  double intra = t->bw_intra / 1e9, inter = t->bw_inter / 1e9;   /* GB/s */
  double bw = N == 1 ? intra : fmin(intra, inter);
  if (a == DLB_NCCL_NVLS_TREE) bw = fmin(intra, N <= 2 ? inter : inter / 2);
  double bus = bw;
  /* Various model refinements */
  if (a == DLB_NCCL_RING && p == DLB_NCCL_LL)
    bus = fmin(llmax, bus * ((N > 1 || op == DLB_COLL_ALLREDUCE) ? 1.0 / 4.0 : 1.0 / 3.0));
  if (a == DLB_NCCL_RING && p == DLB_NCCL_LL128) bus = bus * (ppn < 2 ? 0.7 : 0.92);
  if (a == DLB_NCCL_TREE) bus = bus * .92;
  if (a == DLB_NCCL_TREE && p == DLB_NCCL_LL) bus = fmin(bus * 1.0 / 3.8, llmax);
  if (a == DLB_NCCL_TREE && p == DLB_NCCL_LL128) bus = bus * (N == 1 ? 7.0 / 9.0 : 120.0 / 128.0);
  /* Convert bus BW to algorithm BW */
  double ratio = a == DLB_NCCL_RING ? n / nsteps
    : (a == DLB_NCCL_NVLS || a == DLB_NCCL_NVLS_TREE) ? 5.0 / 6.0 : .5;
  *bw_gbs = bus * ratio;

  int intra_hw = t->nvlink > 0 ? HW_NVLINK : HW_PCI;
  int hw = N == 1 ? intra_hw : HW_NET;
  double lat = base_lat[a][p];
  double intra_lat = hw_lat[intra_hw][a][p];
  double inter_lat = hw_lat[HW_NET][a][p];   /* + graphs' latencyInter, 0 (twice for Simple) */
  if (a == DLB_NCCL_RING) {
    if (op == DLB_COLL_BROADCAST) {
      /* not sameChannels: nsteps hops, Simple at the tree's chunk latency */
      double l = p == DLB_NCCL_SIMPLE ? hw_lat[hw][DLB_NCCL_TREE][p] : hw_lat[hw][a][p];
      lat += nsteps * l;
    } else {
      /* inter-node rings still launch nsteps x the network's post overhead (getNetOverhead,
      ** 1 us on Intel x86; x3 for Simple) */
      double net = 0;
      if (N > 1) { net = 1.0; if (p == DLB_NCCL_SIMPLE) net *= 3; }
      intra_lat = fmax(intra_lat, net);
      lat += (nsteps - ninter) * intra_lat + ninter * inter_lat;
    }
  } else if (a == DLB_NCCL_TREE) {
    lat += 2 * ((n / N - 1) * intra_lat + log2i(N) * inter_lat);
  } else if (a == DLB_NCCL_NVLS) {
    lat = intra_lat;
    if (N > 1) lat += inter_lat;
  } else {
    lat += intra_lat + 2 * log2i(N) * inter_lat;
  }
  *lat_us = lat;
}

/* ncclTopoGetAlgoTime: seconds of one pair, or -1 when its bandwidth is 0. */
static double algo_time(int op, int a, int p, double bytes, const dlb_nccl_topo *t,
                        double *lat_s, double *bw_bs) {
  double lat, bw;
  tune(op, a, p, t, &lat, &bw);
  if (!(bw > 0)) return -1;
  int logsize = log2i(floor(bytes / 64));
  if (a == DLB_NCCL_TREE && logsize < 23) bw *= tree_corr[p][logsize];
  double ch = t->channels > 0 ? t->channels : 16;
  if (a == DLB_NCCL_RING && p == DLB_NCCL_SIMPLE && t->nodes > 1 && op == DLB_COLL_ALLREDUCE
      && bytes / (ch * t->ranks) >= 64)
    lat *= t->nvlink >= 3 ? 1.4 : 1.9;   /* Plateau effect of ring (minCompCap < 80: 1.9) */
  lat += t->latency_add * 1e6;   /* a measured latency the tables lack (0: none), every pair */
  *lat_s = lat * 1e-6;
  *bw_bs = bw * 1e9;
  return lat * 1e-6 + bytes / (1000 * bw) * 1e-6;
}

static int check_topo(const dlb_nccl_topo *t) {
  if (!t) return dlb_fail(DLB_EINVAL, "nccl: topology is missing");
  if (!(t->ranks >= 1) || t->ranks != floor(t->ranks) || t->ranks > 1e9)
    return dlb_fail(DLB_EINVAL, "nccl: ranks must be a whole number >= 1, got %g", t->ranks);
  if (!(t->nodes >= 1) || t->nodes != floor(t->nodes) || t->nodes > t->ranks)
    return dlb_fail(DLB_EINVAL, "nccl: nodes must be a whole number in 1..ranks (%g), got %g",
                    t->ranks, t->nodes);
  if (fmod(t->ranks, t->nodes) != 0)
    return dlb_fail(DLB_EINVAL, "nccl: %g ranks do not spread evenly over %g nodes", t->ranks,
                    t->nodes);
  if (!(t->bw_intra > 0) || !isfinite(t->bw_intra))
    return dlb_fail(DLB_EINVAL, "nccl: bw_intra must be a positive number of bytes/s, got %g",
                    t->bw_intra);
  if (t->nodes > 1 && (!(t->bw_inter > 0) || !isfinite(t->bw_inter)))
    return dlb_fail(DLB_EINVAL, "nccl: bw_inter must be a positive number of bytes/s across "
                    "%g nodes, got %g", t->nodes, t->bw_inter);
  if (!(t->nvlink >= 0 && t->nvlink <= 5) || t->nvlink != floor(t->nvlink))
    return dlb_fail(DLB_EINVAL, "nccl: nvlink must be a generation 0..5, got %g", t->nvlink);
  if (!(t->nvls == 0 || t->nvls == 1))
    return dlb_fail(DLB_EINVAL, "nccl: nvls must be 0 or 1, got %g", t->nvls);
  if (!(t->channels >= 0) || !isfinite(t->channels))
    return dlb_fail(DLB_EINVAL, "nccl: channels must be >= 0 (0: 16), got %g", t->channels);
  if (!(t->latency_add >= 0) || !isfinite(t->latency_add))
    return dlb_fail(DLB_EINVAL, "nccl: latency_add must be >= 0 s, got %g", t->latency_add);
  return DLB_OK;
}

/* A collective as NCCL runs it; see the header. */
int dlb_par_nccl(int op, double bytes, const dlb_nccl_topo *t, int algo, int proto,
                 dlb_nccl_result *out) {
  if (!out) return dlb_fail(DLB_EINVAL, "nccl: no result buffer");
  int st = check_topo(t);
  if (st) return st;
  if (!(op == DLB_COLL_ALLREDUCE || op == DLB_COLL_ALLGATHER || op == DLB_COLL_REDUCE_SCATTER
        || op == DLB_COLL_BROADCAST))
    return dlb_fail(DLB_EINVAL, "nccl: operation %d is not modelled (allreduce, allgather, "
                    "reduce_scatter, broadcast)", op);
  if (!(bytes >= 0) || !isfinite(bytes))
    return dlb_fail(DLB_EINVAL, "nccl: bytes must be >= 0, got %g", bytes);
  if (algo < -1 || algo >= DLB_NCCL_NALGOS)
    return dlb_fail(DLB_EINVAL, "nccl: unknown algorithm %d (-1: NCCL's choice)", algo);
  if (proto < -1 || proto >= DLB_NCCL_NPROTOS)
    return dlb_fail(DLB_EINVAL, "nccl: unknown protocol %d (-1: NCCL's choice)", proto);
  out->time = out->latency = out->bw = 0;
  out->algo = DLB_NCCL_RING;
  out->proto = DLB_NCCL_SIMPLE;
  if (t->ranks == 1) return DLB_OK;   /* nRanks <= 1: nothing to do */
  double best = -1;
  const char *why = NULL;
  for (int a = 0; a < DLB_NCCL_NALGOS; a++) {
    if (algo >= 0 && a != algo) continue;
    for (int p = 0; p < DLB_NCCL_NPROTOS; p++) {
      if (proto >= 0 && p != proto) continue;
      const char *w;
      if (!enabled(op, a, p, t, &w)) { why = w; continue; }
      double l, b, tm = algo_time(op, a, p, bytes, t, &l, &b);
      if (tm >= 0 && (best < 0 || tm < best)) {
        best = tm;
        out->time = tm; out->algo = a; out->proto = p; out->latency = l; out->bw = b;
      }
    }
  }
  if (best < 0)
    return dlb_fail(DLB_EINVAL, "nccl: %s/%s does not run here: %s",
                    algo >= 0 ? algo_name[algo] : "any", proto >= 0 ? proto_name[proto] : "any",
                    why ? why : "no bandwidth");
  return DLB_OK;
}

/* A group's topology in a cluster; see the header. */
int dlb_par_nccl_topo(const dlb_par_cluster *cl, double ranks, double per_node,
                      dlb_nccl_topo *out) {
  if (!out) return dlb_fail(DLB_EINVAL, "nccl topology: no result buffer");
  int st = dlb_par_cluster_check("nccl topology", cl, 0);
  if (st) return st;
  if (!(ranks >= 1) || ranks != floor(ranks))
    return dlb_fail(DLB_EINVAL, "nccl topology: ranks must be a whole number >= 1, got %g", ranks);
  if (!(per_node >= 1) || per_node != floor(per_node) || per_node > ranks)
    return dlb_fail(DLB_EINVAL, "nccl topology: per_node must be a whole number in 1..ranks, "
                    "got %g", per_node);
  if (!(cl->nics >= 0) || cl->nics != floor(cl->nics) || !(cl->nvlink >= 0 && cl->nvlink <= 5)
      || !(cl->nvls == 0 || cl->nvls == 1))
    return dlb_fail(DLB_EINVAL, "nccl topology: cluster nics (whole >= 0), nvlink (0..5) and "
                    "nvls (0 or 1) are out of range: %g, %g, %g", cl->nics, cl->nvlink, cl->nvls);
  double g = cl->per_node > 0 ? cl->per_node : per_node;
  if (per_node > g)
    return dlb_fail(DLB_EINVAL, "nccl topology: %g ranks per node in a node of %g", per_node, g);
  out->ranks = ranks;
  out->nodes = ceil(ranks / per_node);
  if (fmod(ranks, per_node) != 0) out->nodes = ranks;   /* uneven: one rank per hop, flat */
  const dlb_par_link *in = cl->intra.bw > 0 ? &cl->intra : &cl->inter;
  out->bw_intra = in->bw * (in->eff > 0 ? in->eff : 1);
  out->bw_inter = 0;
  if (out->nodes > 1) {
    const dlb_par_link *x = cl->inter.bw > 0 ? &cl->inter : &cl->intra;
    double nics = cl->nics > 0 ? cl->nics : g;
    /* the node's NICs, shared by the g / per_node groups of the node that run at once */
    out->bw_inter = nics * x->bw * (x->eff > 0 ? x->eff : 1) * per_node / g;
  }
  out->nvlink = cl->intra.bw > 0 ? cl->nvlink : 0;
  out->nvls = cl->nvls;
  out->channels = 0;
  /* the measured latency of the tier the group runs on (a CALIBRATION; 0: none) */
  out->latency_add = out->nodes > 1 ? (cl->inter.bw > 0 ? cl->inter : cl->intra).nccl_latency
                                    : in->nccl_latency;
  return DLB_OK;
}

/* A collective as NCCL runs it on a group's share of the fabric; see collective_impl.h. */
int dlb_par_nccl_group(const dlb_par_cluster *cl, int op, double bytes, double ranks,
                       double per_node, double *time) {
  dlb_nccl_topo t;
  dlb_nccl_result r;
  int st = dlb_par_nccl_topo(cl, ranks, per_node, &t);
  if (!st) st = dlb_par_nccl(op, bytes, &t, -1, -1, &r);
  *time = st ? 0 : r.time;
  return st;
}

int dlb_par_nccl_allreduce(const dlb_par_cluster *cl, double bytes, double ranks,
                           double per_node, double *time) {
  return dlb_par_nccl_group(cl, DLB_COLL_ALLREDUCE, bytes, ranks, per_node, time);
}

/* A strided group's ranks per node; see collective_impl.h. */
double dlb_par_group_per_node(double g, double stride, double ranks) {
  if (!(g > 0)) return ranks;
  double r = stride >= g ? 1 : floor(g / stride);
  if (r > ranks) r = ranks;
  while (r > 1 && fmod(ranks, r) != 0) r--;
  return r < 1 ? 1 : r;
}
