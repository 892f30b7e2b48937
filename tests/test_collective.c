/*
** test_collective.c — the alpha-beta closed forms of dlb_par_collective and the
** hierarchical allreduce, each recomputed here by hand from its source.
*/
#include <math.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"

static const dlb_par_link L = { 10e9, 5e-6, 0.8 };  /* 10 GB/s at 80%: beta = 1/8e9 */
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
  dlb_par_link intra = { 100e9, 1e-6, 1 }, inter = { 12.5e9, 5e-6, 1 };
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
  dlb_par_cluster cl = { 8, 4, intra, inter };
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
  dlb_par_link bad = { 0, 1e-6, 1 };
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
  dlb_par_link eff = { 1e9, 0, 1.5 };
  CHECK(dlb_par_collective(DLB_COLL_ALLREDUCE, DLB_ALGO_RING, S, 8, 0, &eff, &c) == DLB_EINVAL);
}

/* QA regression: a cluster of per_node 0 and intra bw -1 used to give 1.875e9 s. */
static void bad_cluster(void) {
  dlb_par_coll c;
  dlb_par_link neg = { -1, 0, 0 }, one = { 1, 0, 0 }, good = { 100e9, 1e-6, 1 };
  dlb_par_cluster cl = { 0, 2, neg, one };
  CHECK(dlb_par_allreduce_cluster(1e9, 16, DLB_ALGO_RING, &cl, &c) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "intra: link bandwidth must be a positive") != NULL);
  CHECK(dlb_par_cluster_check("x", &cl, 0) == DLB_EINVAL);
  dlb_par_cluster frac = { 2.5, 2, good, good };
  CHECK(dlb_par_cluster_check("x", &frac, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "x: cluster per_node must be a whole number >= 1, got 2.5") != NULL);
  dlb_par_cluster neg_nodes = { 8, -1, good, good };
  CHECK(dlb_par_cluster_check("x", &neg_nodes, 0) == DLB_EINVAL);
  dlb_par_link lat = { 1e9, -1, 1 }, nanbw = { NAN, 0, 1 }, eff = { 1e9, 0, 2 };
  dlb_par_cluster l1 = { 8, 2, good, lat }, l2 = { 8, 2, nanbw, good }, l3 = { 8, 2, good, eff };
  CHECK(dlb_par_cluster_check("x", &l1, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "latency") != NULL);
  CHECK(dlb_par_cluster_check("x", &l2, 0) == DLB_EINVAL);
  CHECK(dlb_par_cluster_check("x", &l3, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "efficiency") != NULL);
  dlb_par_link none = { 0, 0, 0 };
  dlb_par_cluster nolink = { 8, 2, none, none };
  CHECK(dlb_par_cluster_check("x", &nolink, 0) == DLB_EINVAL);
  /* devices must fit a sized cluster: 8 x 2 = 16 */
  dlb_par_cluster ok = { 8, 2, good, good };
  CHECK(dlb_par_cluster_check("x", &ok, 16) == DLB_OK);
  CHECK(dlb_par_cluster_check("x", &ok, 17) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "17 devices do not fit the cluster of 2 nodes x 8 per node") != NULL);
  CHECK(dlb_par_allreduce_cluster(1e9, 32, DLB_ALGO_RING, &ok, &c) == DLB_EINVAL);
  CHECK(dlb_par_allreduce_cluster(1e9, 2.5, DLB_ALGO_RING, &ok, &c) == DLB_EINVAL);
  /* an unsized flat tier takes any number of ranks; an absent link is bw 0 */
  dlb_par_cluster flat = { 0, 0, none, good };
  CHECK(dlb_par_cluster_check("x", &flat, 4096) == DLB_OK);
  CHECK(dlb_par_allreduce_cluster(1e9, 4096, DLB_ALGO_RING, &flat, &c) == DLB_OK);
}

/* dlb_par_alltoall_cluster: the pairwise exchange (Thakur et al. 2005 sec. 4.5) split by
** tier, both tiers at once (the hand derivation in collective.c). 8 per node; intra
** 100 GB/s, 1 us; inter the 10 GB/s at 80% link L. */
static void alltoall_cluster(void) {
  dlb_par_cluster cl = { 8, 4, { 100e9, 1e-6, 0 }, L };
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
