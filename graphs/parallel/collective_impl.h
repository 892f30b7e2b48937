/*
** collective_impl.h — internal to libdlbench: the one data-parallel allreduce rule that
** the planner (planner.c) and dlb_par_data (parallel_data.c) share, as NCCL runs it
** (nccl.c) or in the alpha-beta model (collective.c). Not part of the public interface.
*/
#ifndef DLB_COLLECTIVE_IMPL_H
#define DLB_COLLECTIVE_IMPL_H

#include "dlb_parallel.h"

/* An allreduce of `bytes` over a group of `ranks` devices, `per_node` of them in each node
** of cl, as NCCL runs it (dlb_par_nccl on the group's share of the fabric): *time in s,
** 0 on error. DLB_OK or the error of dlb_par_nccl_topo / dlb_par_nccl. */
int dlb_par_nccl_allreduce(const dlb_par_cluster *cl, double bytes, double ranks,
                           double per_node, double *time);
/* The same for collective `op` (DLB_COLL_ALLREDUCE, ALLGATHER, REDUCE_SCATTER, BROADCAST;
** bytes as dlb_par_nccl takes them): NCCL's fastest algorithm and protocol. */
int dlb_par_nccl_group(const dlb_par_cluster *cl, int op, double bytes, double ranks,
                       double per_node, double *time);

/* The ranks per node of a group whose members are `stride` devices apart (data-parallel
** replicas: stride tp x pp; plain data parallelism: 1), of `ranks` members in all, on nodes
** of g devices (g <= 0: not sized, the whole group on one node): the most that fit a node
** and divide ranks, at least 1. */
double dlb_par_group_per_node(double g, double stride, double ranks);

/* A data-parallel-type allreduce (gradients, ZeRO's gathers, the experts' replicas) of
** `ranks` members, `per_node` of them on each node of cl: as NCCL runs it when nccl is 1
** (dlb_par_nccl_allreduce), else the alpha-beta model over the sub-cluster `sub` with
** algorithm `algo` (dlb_par_allreduce_cluster). *out receives the time and the bytes the
** busiest rank sends: for NCCL, 2 (ranks - 1) / ranks x bytes, the bus-bandwidth
** convention of nccl-tests (doc/PERFORMANCE.md; ring and tree alike move that much per
** rank). */
int dlb_par_dp_allreduce(int nccl, const dlb_par_cluster *cl, double bytes, double ranks,
                         double per_node, int algo, const dlb_par_cluster *sub,
                         dlb_par_coll *out);

#endif
