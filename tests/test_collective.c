/*
** test_collective.c — the alpha-beta closed forms of dlb_par_collective and the
** hierarchical allreduce, each recomputed here by hand from its source.
*/
#include <math.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"

static const dlb_par_link L = { 10e9, 5e-6, 0.8, 0 };  /* 10 GB/s at 80%: beta = 1/8e9 */
static const double beta = 1.0 / 8e9, alpha = 5e-6, S = 1e9;

static double T(int op, int algo, double bytes, double n, double shards) {
  dlb_par_coll c;
  int st = dlb_par_collective(op, algo, bytes, n, shards, &L, &c);
  CHECK(st == DLB_OK);
  return st == DLB_OK ? c.time : NAN;
}

/* Patarasuk & Yuan 2009: 2(n-1) alpha + 2(n-1)/n S beta; 8 ranks: 14 alpha + 1.75 S beta. */
static void ring_allreduce(void) {
  CHECK_NEAR(T(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 8, 0), 14 * alpha + 1.75 * S * beta, 1e-12);
  dlb_par_coll c;
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 8, 0, &L, &c) == DLB_OK);
  CHECK_NEAR(c.bytes, 1.75e9, 1e-12);   /* each rank sends 2(n-1)/n S */
  CHECK_NEAR(c.total, 14e9, 1e-12);
  CHECK_NEAR(c.steps, 14, 0);
  /* one rank: nothing to do */
  CHECK(T(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 1, 0) == 0);
  /* the bandwidth term tends to 2 S beta: 1024 ranks */
  CHECK_NEAR(T(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 1024, 0),
             2046 * alpha + 2.0 * 1023 / 1024 * S * beta, 1e-12);
}

/* Thakur et al. 2005: binomial reduce + broadcast 2 ceil(lg n)(alpha + S beta); 5 ranks: lg 3. */
static void tree_allreduce(void) {
  CHECK_NEAR(T(DLB_COLL_ALLREDUCE, DLB_ALGO_TREE, S, 8, 0), 6 * (alpha + S * beta), 1e-12);
  CHECK_NEAR(T(DLB_COLL_ALLREDUCE, DLB_ALGO_TREE, S, 5, 0), 6 * (alpha + S * beta), 1e-12);
  /* double binary tree: 2 lg alpha + 2 S beta (Sanders, Speck & Traff 2009) */
  CHECK_NEAR(T(DLB_COLL_ALLREDUCE, DLB_ALGO_DBTREE, S, 16, 0), 8 * alpha + 2 * S * beta, 1e-12);
  /* small messages: the tree's log latency beats the ring's linear one */
  CHECK(T(DLB_COLL_ALLREDUCE, DLB_ALGO_TREE, 8, 1024, 0) <
        T(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, 8, 1024, 0));
  /* large messages: the ring's bandwidth term wins over the binomial tree */
  CHECK(T(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 64, 0) <
        T(DLB_COLL_ALLREDUCE, DLB_ALGO_TREE, S, 64, 0));
}

/* Rabenseifner (Thakur et al. 2005 sec. 4.4): 2 lg n alpha + 2 (n-1)/n S beta; for 6 ranks
** p' = 4 and the 2 extra ranks add 2 (alpha + S beta). */
static void halving_doubling(void) {
  CHECK_NEAR(T(DLB_COLL_ALLREDUCE, DLB_ALGO_HD, S, 8, 0), 6 * alpha + 1.75 * S * beta, 1e-12);
  CHECK_NEAR(T(DLB_COLL_ALLREDUCE, DLB_ALGO_HD, S, 6, 0),
             4 * alpha + 1.5 * S * beta + 2 * (alpha + S * beta), 1e-12);
  /* reduce-scatter halving: lg n alpha + (n-1)/n S beta, powers of two only */
  CHECK_NEAR(T(DLB_COLL_REDUCE_SCATTER, DLB_ALGO_HD, S, 8, 0), 3 * alpha + 0.875 * S * beta, 1e-12);
  dlb_par_coll c;
  CHECK(dlb_par_collective(DLB_COLL_REDUCE_SCATTER, DLB_ALGO_HD, S, 6, 0, &L, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "power-of-two") != NULL);
}

/* Thakur et al. 2005: ring all-gather / reduce-scatter (n-1) alpha + (n-1)/n S beta; Bruck
** all-gather ceil(lg n) alpha + (n-1)/n S beta; ring allreduce = reduce-scatter + all-gather. */
static void gather_scatter(void) {
  double ag = T(DLB_COLL_ALLGATHER, DLB_ALGO_RING, S, 4, 0);
  double rs = T(DLB_COLL_REDUCE_SCATTER, DLB_ALGO_RING, S, 4, 0);
  CHECK_NEAR(ag, 3 * alpha + 0.75 * S * beta, 1e-12);
  CHECK_NEAR(rs, ag, 1e-12);
  CHECK_NEAR(ag + rs, T(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 4, 0), 1e-12);
  CHECK_NEAR(T(DLB_COLL_ALLGATHER, DLB_ALGO_HD, S, 5, 0), 3 * alpha + 0.8 * S * beta, 1e-12);
}

/* Broadcast: binomial lg (alpha + S beta); scatter + ring all-gather
** (lg + n - 1) alpha + 2 (n-1)/n S beta; two-tree lg alpha + S beta. All-to-all pairwise
** (n-1) alpha + (n-1)/n S beta; Bruck lg alpha + S/2 lg beta. */
static void broadcast_alltoall(void) {
  CHECK_NEAR(T(DLB_COLL_BROADCAST, DLB_ALGO_TREE, S, 16, 0), 4 * (alpha + S * beta), 1e-12);
  CHECK_NEAR(T(DLB_COLL_BROADCAST, DLB_ALGO_RING, S, 16, 0),
             19 * alpha + 2 * 15.0 / 16 * S * beta, 1e-12);
  CHECK_NEAR(T(DLB_COLL_BROADCAST, DLB_ALGO_DBTREE, S, 16, 0), 4 * alpha + S * beta, 1e-12);
  CHECK_NEAR(T(DLB_COLL_ALLTOALL, DLB_ALGO_DIRECT, S, 16, 0), 15 * alpha + 15.0 / 16 * S * beta,
             1e-12);
  CHECK_NEAR(T(DLB_COLL_ALLTOALL, DLB_ALGO_HD, S, 16, 0), 4 * alpha + S / 2 * 4 * beta, 1e-12);
}

/* Parameter server (hand derivation): 2 alpha + 2 max(S, n S / k) beta. */
static void parameter_server(void) {
  CHECK_NEAR(T(DLB_COLL_PS, DLB_ALGO_DIRECT, S, 8, 1), 2 * alpha + 16 * S * beta, 1e-12);
  CHECK_NEAR(T(DLB_COLL_PS, DLB_ALGO_DIRECT, S, 8, 8), 2 * alpha + 2 * S * beta, 1e-12);
  CHECK_NEAR(T(DLB_COLL_PS, DLB_ALGO_DIRECT, S, 8, 2), 2 * alpha + 8 * S * beta, 1e-12);
  dlb_par_coll c;
  CHECK(dlb_par_collective(DLB_COLL_PS, DLB_ALGO_DIRECT, S, 8, 4, &L, &c) == DLB_OK);
  CHECK_NEAR(c.total, 16e9, 1e-12);   /* push + pull of S by each of 8 workers */
}

/* Hierarchical: ring RS(S, g) on intra + allreduce(S/g, nodes) on inter + ring AG(S, g). */
static void hierarchical(void) {
  dlb_par_link intra = { 100e9, 1e-6, 1, 0 }, inter = { 12.5e9, 5e-6, 1, 0 };
  dlb_par_coll c;
  CHECK(dlb_par_allreduce_hier(S, 8, 4, DLB_ALGO_RING, &intra, &inter, &c) == DLB_OK);
  double rs = 7 * 1e-6 + 7.0 / 8 * S / 100e9;
  double ar = 6 * 5e-6 + 1.5 * (S / 8) / 12.5e9;
  CHECK_NEAR(c.time, 2 * rs + ar, 1e-12);
  /* beats the flat ring on the slow links */
  dlb_par_coll flat;
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 32, 0, &inter, &flat) == 0);
  CHECK(c.time < flat.time);
  /* cluster dispatch: within a node on intra, across nodes hierarchically */
  dlb_par_cluster cl = { 8, 4, intra, inter, 0, 0, 0 };
  dlb_par_coll d;
  CHECK(dlb_par_allreduce_cluster(S, 8, DLB_ALGO_RING, &cl, &d) == DLB_OK);
  CHECK_NEAR(d.time, 14 * 1e-6 + 1.75 * S / 100e9, 1e-12);
  CHECK(dlb_par_allreduce_cluster(S, 32, DLB_ALGO_RING, &cl, &d) == DLB_OK);
  CHECK_NEAR(d.time, c.time, 1e-12);
  CHECK(dlb_par_allreduce_cluster(S, 12, DLB_ALGO_RING, &cl, &d) == DLB_OK); /* 12 % 8: flat */
  CHECK_NEAR(d.time, 22 * 5e-6 + 2 * 11.0 / 12 * S / 12.5e9, 1e-12);
}

static void bad_input(void) {
  dlb_par_coll c;
  dlb_par_link bad = { 0, 1e-6, 1, 0 };
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 8, 0, &bad, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "bandwidth") != NULL);
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 2.5, 0, &L, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "ranks") != NULL);
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, -1, 8, 0, &L, &c) == DLB_EINVAL);
  CHECK(dlb_par_collective(99, DLB_ALGO_RING, S, 8, 0, &L, &c) == DLB_EINVAL);
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, 99, S, 8, 0, &L, &c) == DLB_EINVAL);
  CHECK(dlb_par_collective(DLB_COLL_ALLGATHER, DLB_ALGO_TREE, S, 8, 0, &L, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "not defined") != NULL);
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, NAN, 8, 0, &L, &c) == DLB_EINVAL);
  dlb_par_link eff = { 1e9, 0, 1.5, 0 };
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 8, 0, &eff, &c) == DLB_EINVAL);
}

/* QA regression: a cluster of per_node 0 and intra bw -1 used to give 1.875e9 s. */
static void bad_cluster(void) {
  dlb_par_coll c;
  dlb_par_link neg = { -1, 0, 0, 0 }, one = { 1, 0, 0, 0 }, good = { 100e9, 1e-6, 1, 0 };
  dlb_par_cluster cl = { 0, 2, neg, one, 0, 0, 0 };
  CHECK(dlb_par_allreduce_cluster(1e9, 16, DLB_ALGO_RING, &cl, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "intra: link bandwidth must be a positive") != NULL);
  CHECK(dlb_par_cluster_check("x", &cl, 0) == DLB_EINVAL);
  dlb_par_cluster frac = { 2.5, 2, good, good, 0, 0, 0 };
  CHECK(dlb_par_cluster_check("x", &frac, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "x: cluster per_node must be a whole number >= 1, got 2.5") != NULL);
  dlb_par_cluster neg_nodes = { 8, -1, good, good, 0, 0, 0 };
  CHECK(dlb_par_cluster_check("x", &neg_nodes, 0) == DLB_EINVAL);
  /* past the bound the message says the bound (before review7: "must be a whole number >= 1,
  ** got 1.25e+14", for a cluster of 1e15 devices in nodes of 8) */
  dlb_par_cluster huge = { 8, 1.25e14, good, good, 0, 0, 0 };
  CHECK(dlb_par_cluster_check("x", &huge, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "x: cluster nodes must be at most 1e9, got 1.25e+14") != NULL);
  dlb_par_coll c2;
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, 1e6, 1e15, 0, &good, &c2) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "ranks must be at most 1e12, got 1e+15") != NULL);
  dlb_par_link lat = { 1e9, -1, 1, 0 }, nanbw = { NAN, 0, 1, 0 }, eff = { 1e9, 0, 2, 0 };
  dlb_par_cluster l1 = { 8, 2, good, lat, 0, 0, 0 }, l2 = { 8, 2, nanbw, good, 0, 0, 0 },
                  l3 = { 8, 2, good, eff, 0, 0, 0 };
  CHECK(dlb_par_cluster_check("x", &l1, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "latency") != NULL);
  CHECK(dlb_par_cluster_check("x", &l2, 0) == DLB_EINVAL);
  CHECK(dlb_par_cluster_check("x", &l3, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "efficiency") != NULL);
  dlb_par_link none = { 0, 0, 0, 0 };
  dlb_par_cluster nolink = { 8, 2, none, none, 0, 0, 0 };
  CHECK(dlb_par_cluster_check("x", &nolink, 0) == DLB_EINVAL);
  /* devices must fit a sized cluster: 8 x 2 = 16 */
  dlb_par_cluster ok = { 8, 2, good, good, 0, 0, 0 };
  CHECK(dlb_par_cluster_check("x", &ok, 16) == DLB_OK);
  CHECK(dlb_par_cluster_check("x", &ok, 17) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "17 devices do not fit the cluster of 2 nodes x 8 per node") != NULL);
  CHECK(dlb_par_allreduce_cluster(1e9, 32, DLB_ALGO_RING, &ok, &c) == DLB_EINVAL);
  CHECK(dlb_par_allreduce_cluster(1e9, 2.5, DLB_ALGO_RING, &ok, &c) == DLB_EINVAL);
  /* an unsized flat tier takes any number of ranks; an absent link is bw 0 */
  dlb_par_cluster flat = { 0, 0, none, good, 0, 0, 0 };
  CHECK(dlb_par_cluster_check("x", &flat, 4096) == DLB_OK);
  CHECK(dlb_par_allreduce_cluster(1e9, 4096, DLB_ALGO_RING, &flat, &c) == DLB_OK);
}

/* NCCL's tuning model (graphs/parallel/nccl.c), each number derived by hand from
** NVIDIA/nccl src/graph/tuning.cc (v2.19-2.20 tables): latencies in us, bandwidths GB/s. */
static void nccl_model(void) {
  dlb_nccl_topo t = { .ranks = 8, .nodes = 1, .bw_intra = 240e9, .nvlink = 3 };
  dlb_nccl_result r;
  /* 8 ranks, one A100 node, allreduce, nsteps = 14:
  **   ring LL     lat 6.6 + 14 x 0.6 = 15.0; bus min(llMaxBw 87.7, 240 / 4) = 60, x 8/14
  **   ring LL128  lat 14 + 14 x 1.9 = 40.6; bus 240 x 0.92, x 8/14
  **   ring Simple lat 8.4 + 14 x 3.4 = 56.0; bus 240, x 8/14
  **   tree Simple lat 0 + 2 x 7 x 28 = 392; bus 240 x 0.92, x 0.5 */
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 0, &t, -1, -1, &r) == DLB_OK);
  CHECK(r.algo == DLB_NCCL_RING && r.proto == DLB_NCCL_LL);
  CHECK_NEAR(r.time, 15.0e-6, 1e-12);
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1048576, &t, DLB_NCCL_RING, DLB_NCCL_LL, &r) == DLB_OK);
  CHECK_NEAR(r.time, 15.0e-6 + 1048576 / (60e9 * 8 / 14), 1e-12);
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1048576, &t, DLB_NCCL_RING, DLB_NCCL_LL128, &r) == DLB_OK);
  CHECK_NEAR(r.time, 40.6e-6 + 1048576 / (240e9 * 0.92 * 8 / 14), 1e-12);
  /* 1 GiB: ring Simple, 56 us + 2^30 / (240e9 x 8/14); tree Simple pays 392 us and
  ** 0.92 of the bandwidth (no correction above 2^28 bytes) */
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1073741824, &t, -1, -1, &r) == DLB_OK);
  CHECK(r.algo == DLB_NCCL_RING && r.proto == DLB_NCCL_SIMPLE);
  CHECK_NEAR(r.time, 56.0e-6 + 1073741824 / (240e9 * 8 / 14), 1e-12);
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1073741824, &t, DLB_NCCL_TREE, DLB_NCCL_SIMPLE, &r) == DLB_OK);
  CHECK_NEAR(r.time, 392e-6 + 1073741824 / (240e9 * 0.92 * 0.5), 1e-12);
  /* tree correction: 1 MiB / 64 = 2^14 -> factor[Simple][14] = .5 */
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1048576, &t, DLB_NCCL_TREE, DLB_NCCL_SIMPLE, &r) == DLB_OK);
  CHECK_NEAR(r.time, 392e-6 + 1048576 / (240e9 * 0.92 * 0.5 * 0.5), 1e-12);
  /* 16 ranks on 2 nodes, network 100 GB/s: tree LL128 at 1e6 bytes,
  **   lat 14 + 2 x ((8 - 1) x 1.25 + log2(2) x 8.5) = 48.5;
  **   bus min(240, 100) x 0.92 x 120/128 x 0.5, x treeCorrection[LL128][log2(15625) = 13] .6 */
  dlb_nccl_topo t2 = { .ranks = 16, .nodes = 2, .bw_intra = 240e9, .bw_inter = 100e9, .nvlink = 3 };
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1e6, &t2, DLB_NCCL_TREE, DLB_NCCL_LL128, &r) == DLB_OK);
  CHECK_NEAR(r.latency, 48.5e-6, 1e-12);
  CHECK_NEAR(r.time, 48.5e-6 + 1e6 / (100e9 * 0.92 * 120.0 / 128.0 * 0.5 * 0.6), 1e-12);
  /* ring Simple across 2 nodes: nsteps 30, nInterSteps 2 x 2 = 4; intra hop max(3.4, net
  ** overhead 1 x 3) = 3.4, network hop 14: 8.4 + 26 x 3.4 + 4 x 14 = 152.8, x 1.4 (plateau:
  ** 1e9 / (16 channels x 16 ranks) >= 64, Ampere) */
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1e9, &t2, DLB_NCCL_RING, DLB_NCCL_SIMPLE, &r) == DLB_OK);
  CHECK_NEAR(r.latency, 152.8e-6 * 1.4, 1e-12);
  CHECK_NEAR(r.time, 152.8e-6 * 1.4 + 1e9 / (100e9 * 16 / 30), 1e-12);
  /* NVLS on an H100 node: Simple only, lat 23 us, bus 450 x 5/6 */
  dlb_nccl_topo h = { .ranks = 8, .nodes = 1, .bw_intra = 450e9, .nvlink = 4, .nvls = 1 };
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1073741824, &h, -1, -1, &r) == DLB_OK);
  CHECK(r.algo == DLB_NCCL_NVLS && r.proto == DLB_NCCL_SIMPLE);
  CHECK_NEAR(r.time, 23e-6 + 1073741824 / (450e9 * 5 / 6), 1e-12);
  /* what NCCL does not run is an error naming why */
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1, &t, DLB_NCCL_NVLS, -1, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "NVLink SHARP") != NULL);
  CHECK(dlb_par_nccl(DLB_COLL_BROADCAST, 1, &t, DLB_NCCL_TREE, -1, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "broadcast runs rings only") != NULL);
  dlb_nccl_topo pcie = { .ranks = 8, .nodes = 1, .bw_intra = 24e9 };
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1, &pcie, -1, DLB_NCCL_LL128, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "LL128") != NULL);
  t.nodes = 3;
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1, &t, -1, -1, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "spread evenly") != NULL);
  CHECK(dlb_par_nccl(DLB_COLL_ALLTOALL, 1, &t2, -1, -1, &r) == DLB_EINVAL);
  /* one rank: nothing to do */
  dlb_nccl_topo one = { .ranks = 1, .nodes = 1, .bw_intra = 1e9 };
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1e9, &one, -1, -1, &r) == DLB_OK && r.time == 0);
  /* latency_add (a measured latency the tables lack, dlb.parallel.calibrate_collective):
  ** added to every pair alike, so the choice stays ring / Simple at 1 GiB on the 8-rank
  ** node above: 56.0 + 25 us + 2^30 / (240e9 x 8/14); and to LL at 0 bytes: 15.0 + 25 us */
  t.nodes = 1;
  t.latency_add = 25e-6;
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1073741824, &t, -1, -1, &r) == DLB_OK);
  CHECK(r.algo == DLB_NCCL_RING && r.proto == DLB_NCCL_SIMPLE);
  CHECK_NEAR(r.latency, 81.0e-6, 1e-12);
  CHECK_NEAR(r.time, 81.0e-6 + 1073741824 / (240e9 * 8 / 14), 1e-12);
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 0, &t, -1, -1, &r) == DLB_OK);
  CHECK(r.algo == DLB_NCCL_RING && r.proto == DLB_NCCL_LL);
  CHECK_NEAR(r.time, 40.0e-6, 1e-12);
  t.latency_add = -1e-6;
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1, &t, -1, -1, &r) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "latency_add must be >= 0") != NULL);
  t.latency_add = NAN;
  CHECK(dlb_par_nccl(DLB_COLL_ALLREDUCE, 1, &t, -1, -1, &r) == DLB_EINVAL);
}

/* A group's share of the fabric (dlb_par_nccl_topo): 2 nodes of 8, 4 NICs of 25 GB/s. A
** tensor-parallel group of 16 (8 per node) has the node's 100 GB/s; a data-parallel group
** of 16 with one rank per node (tp 8) shares them with the node's 7 other groups: 12.5 GB/s;
** with nics 0 every device has its own NIC (8 x 25 GB/s / 8). */
static void nccl_topology(void) {
  dlb_par_link nv = { 300e9, 1e-6, 0.8, 0 }, ib = { 25e9, 5e-6, 0, 0 };
  dlb_par_cluster cl = { 8, 2, nv, ib, 4, 3, 0 };
  dlb_nccl_topo t;
  CHECK(dlb_par_nccl_topo(&cl, 16, 8, &t) == DLB_OK);
  CHECK(t.nodes == 2 && t.nvlink == 3);
  CHECK_NEAR(t.bw_intra, 240e9, 1e-3);
  CHECK_NEAR(t.bw_inter, 100e9, 1e-3);
  dlb_par_cluster big = { 8, 16, nv, ib, 4, 3, 0 };
  CHECK(dlb_par_nccl_topo(&big, 16, 1, &t) == DLB_OK);
  CHECK(t.nodes == 16);
  CHECK_NEAR(t.bw_inter, 12.5e9, 1e-3);
  big.nics = 0;
  CHECK(dlb_par_nccl_topo(&big, 16, 1, &t) == DLB_OK);
  CHECK_NEAR(t.bw_inter, 25e9, 1e-3);
  CHECK(dlb_par_nccl_topo(&cl, 8, 8, &t) == DLB_OK && t.nodes == 1 && t.bw_inter == 0);
  CHECK(dlb_par_nccl_topo(&cl, 16, 9, &t) == DLB_EINVAL);
  cl.nvls = 2;
  CHECK(dlb_par_nccl_topo(&cl, 16, 8, &t) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "nvls") != NULL);
  /* a tier's nccl_latency reaches the groups that run on it: one node, the intra tier's;
  ** across nodes, the inter tier's */
  cl.nvls = 0;
  cl.intra.nccl_latency = 25e-6;
  cl.inter.nccl_latency = 7e-6;
  CHECK(dlb_par_nccl_topo(&cl, 8, 8, &t) == DLB_OK && t.latency_add == 25e-6);
  CHECK(dlb_par_nccl_topo(&cl, 16, 8, &t) == DLB_OK && t.latency_add == 7e-6);
  cl.intra.nccl_latency = -1;
  CHECK(dlb_par_nccl_topo(&cl, 8, 8, &t) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "nccl_latency must be >= 0") != NULL);
}

/* dlb_par_alltoall_cluster: the pairwise exchange (Thakur et al. 2005 sec. 4.5) split by
** tier, both tiers at once (the hand derivation in collective.c). 8 per node; intra
** 100 GB/s, 1 us; inter the 10 GB/s at 80% link L. */
static void alltoall_cluster(void) {
  dlb_par_cluster cl = { 8, 4, { 100e9, 1e-6, 0, 0 }, L, 0, 0, 0 };
  dlb_par_coll c;
  /* within one node: the one-tier formula, 7 a + 7/8 S / bw */
  CHECK(dlb_par_alltoall_cluster(S, 8, 1, &cl, &c) == DLB_OK);
  CHECK_NEAR(c.time, 7e-6 + 7.0 / 8 * S / 100e9, 1e-12);
  /* 16 ranks, 8 a node: 7 node peers over intra, 8 others over inter */
  CHECK(dlb_par_alltoall_cluster(S, 16, 1, &cl, &c) == DLB_OK);
  CHECK_NEAR(c.time, fmax(7e-6 + 7.0 / 16 * S / 100e9, 8 * alpha + 0.5 * S * beta), 1e-12);
  CHECK_NEAR(c.total, 15 * S, 1e-3);
  /* ranks 4 apart (tp x cp = 4): 2 of the 8 on a node */
  CHECK(dlb_par_alltoall_cluster(S, 8, 4, &cl, &c) == DLB_OK);
  CHECK_NEAR(c.time, fmax(1e-6 + S / 8 / 100e9, 6 * alpha + 6.0 / 8 * S * beta), 1e-12);
  CHECK(dlb_par_alltoall_cluster(S, 1, 1, &cl, &c) == DLB_OK && c.time == 0);
  /* bad input: a clear error */
  CHECK(dlb_par_alltoall_cluster(S, 2.5, 1, &cl, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "ranks must be a whole number") != NULL);
  CHECK(dlb_par_alltoall_cluster(S, 16, 4, &cl, &c) == DLB_EINVAL);   /* 64 > 32 devices */
  CHECK(strstr(dlb_last_error(), "do not fit") != NULL);
  CHECK(dlb_par_alltoall_cluster(-1, 8, 1, &cl, &c) == DLB_EINVAL);
}

int main(void) {
  RUN(nccl_model);
  RUN(nccl_topology);
  RUN(ring_allreduce);
  RUN(tree_allreduce);
  RUN(halving_doubling);
  RUN(gather_scatter);
  RUN(broadcast_alltoall);
  RUN(parameter_server);
  RUN(hierarchical);
  RUN(bad_input);
  RUN(bad_cluster);
  RUN(alltoall_cluster);
  return check_done();
}
