/*
** parallel_data.c — data-parallel training: synchronous SGD with a bucketed gradient
** allreduce that may overlap the backward pass, and asynchronous parameter-server
** training as a throughput model without the barrier. Per-worker compute time comes from
** the caller (dlb.roofline.time op by op) or the per-op rule dlb_op_time on the whole work.
*/
#include <math.h>

#include "collective_impl.h"
#include "dlb_parallel.h"
#include "dlb_roofline.h"
#include "dlb_runtime.h"

/* Allreduce across n devices of a cluster, packed node by node. */
int dlb_par_allreduce_cluster(double S, double n, int algo, const dlb_par_cluster *cl,
                              dlb_par_coll *out) {
  int st;
  if (!(n >= 1) || !isfinite(n) || n != floor(n))
    return dlb_fail(DLB_EINVAL, "allreduce: ranks must be a whole number >= 1, got %g", n);
  if ((st = dlb_par_cluster_check("allreduce", cl, n))) return st;
  double g = cl->per_node;
  int has_intra = cl->intra.bw > 0, has_inter = cl->inter.bw > 0;
  if (n <= 1) return dlb_par_collective(DLB_COLL_ALLREDUCE, algo, S, 1, 0,
                                        has_intra ? &cl->intra : &cl->inter, out);
  if (has_intra && (g <= 0 || n <= g || !has_inter))
    return dlb_par_collective(DLB_COLL_ALLREDUCE, algo, S, n, 0, &cl->intra, out);
  if (has_intra && g > 1 && fmod(n, g) == 0)
    return dlb_par_allreduce_hier(S, g, n / g, algo, &cl->intra, &cl->inter, out);
  return dlb_par_collective(DLB_COLL_ALLREDUCE, algo, S, n, 0, &cl->inter, out);
}

/* The data-parallel allreduce rule of planner and dlb_par_data; see collective_impl.h. */
int dlb_par_dp_allreduce(int nccl, const dlb_par_cluster *cl, double bytes, double ranks,
                         double per_node, int algo, const dlb_par_cluster *sub,
                         dlb_par_coll *out) {
  out->time = out->bytes = out->total = out->steps = 0;
  if (!nccl) {
    int st = dlb_par_allreduce_cluster(bytes, ranks, algo, sub, out);
    if (st) out->time = 0;
    return st;
  }
  int st = dlb_par_nccl_allreduce(cl, bytes, ranks, per_node, &out->time);
  if (st) return st;
  out->bytes = ranks > 1 ? 2 * (ranks - 1) / ranks * bytes : 0;
  out->total = out->bytes * ranks;
  return DLB_OK;
}

static int check_device(const char *what, const dlb_roof *d) {
  if (!d) return dlb_fail(DLB_EINVAL, "%s: device is missing", what);
  if (dlb_roof_check(d)) return dlb_fail(DLB_EINVAL, "%s: %s", what, dlb_last_error());
  return DLB_OK;
}

/* Allreduce the gradient in buckets: total time, the last bucket's time, bytes sent. The
** workers fill nodes in order (dlb_par_group_per_node with stride 1), as the planner packs a
** pure data-parallel layout. */
static int bucketed(double G, double n, int algo, int nccl, double bucket,
                    const dlb_par_cluster *cl, double *total, double *last, double *wire,
                    double *nb) {
  dlb_par_coll c;
  int st;
  double k = (bucket > 0 && bucket < G) ? ceil(G / bucket) : 1;
  double full = k > 1 ? bucket : G, rest = G - (k - 1) * full;
  double pn = dlb_par_group_per_node(cl->per_node, 1, n);
  *total = *wire = 0;
  if (k > 1) {
    if ((st = dlb_par_dp_allreduce(nccl, cl, full, n, pn, algo, cl, &c))) return st;
    *total = (k - 1) * c.time;
    *wire = (k - 1) * c.bytes;
  }
  if ((st = dlb_par_dp_allreduce(nccl, cl, rest, n, pn, algo, cl, &c))) return st;
  *total += c.time;
  *wire += c.bytes;
  *last = c.time;
  *nb = k;
  return DLB_OK;
}

/* Data-parallel step of w on dev over cl; see the header. */
int dlb_par_data(const dlb_par_work *w, const dlb_roof *dev,
                 const dlb_par_cluster *cl, const dlb_par_dp_opts *o, dlb_par_dp_result *r) {
  int st;
  if (!w || !o || !r) return dlb_fail(DLB_EINVAL, "data parallel: missing argument");
  if ((st = check_device("data parallel", dev))) return st;
  double n = o->workers;
  if (!(n >= 1) || n != floor(n) || !isfinite(n))
    return dlb_fail(DLB_EINVAL, "data parallel: workers must be a whole number >= 1, got %g", n);
  if ((st = dlb_par_cluster_check("data parallel", cl, n))) return st;
  double sb = o->subbatch;
  if (sb == 0) {
    double B = o->batch;
    if (!(B >= 1) || !isfinite(B) || B != floor(B))
      return dlb_fail(DLB_EINVAL, "data parallel: give subbatch (weak scaling) or batch "
                      "(strong scaling), a whole number of samples >= 1 (batch %g)", B);
    if (B < n || fmod(B, n) != 0)
      return dlb_fail(DLB_EINVAL, "data parallel: a batch of %g over %g workers is %g samples "
                      "per worker: the batch must be a whole multiple of the workers", B, n,
                      B / n);
    sb = B / n;
  }
  if (!(sb >= 1) || !isfinite(sb) || sb != floor(sb))
    return dlb_fail(DLB_EINVAL, "data parallel: subbatch must be a whole number of samples "
                    ">= 1, got %g", sb);
  const double wv[] = { w->flops_sample, w->flops_fixed, w->bytes_sample, w->bytes_fixed,
                        w->grad_bytes, w->mem_fixed, w->mem_sample, w->samples_epoch };
  for (size_t i = 0; i < sizeof wv / sizeof wv[0]; i++)
    if (!(wv[i] >= 0) || !isfinite(wv[i]))
      return dlb_fail(DLB_EINVAL, "data parallel: work costs must be finite and >= 0");
  if (!(w->flops_sample + w->flops_fixed > 0))
    return dlb_fail(DLB_EINVAL, "data parallel: the work has no FLOPs");
  if (!(w->bwd_frac >= 0 && w->bwd_frac <= 1))
    return dlb_fail(DLB_EINVAL, "data parallel: bwd_frac must be in [0, 1], got %g", w->bwd_frac);
  if (!(o->overlap >= 0 && o->overlap <= 1))
    return dlb_fail(DLB_EINVAL, "data parallel: overlap must be in [0, 1], got %g", o->overlap);
  if (!(o->bucket >= 0) || !isfinite(o->bucket))
    return dlb_fail(DLB_EINVAL, "data parallel: bucket must be >= 0 bytes, got %g", o->bucket);
  if (!(o->nccl == 0 || o->nccl == 1))
    return dlb_fail(DLB_EINVAL, "data parallel: nccl must be 0 (alpha-beta collectives) or 1 "
                    "(as NCCL runs them), got %g", o->nccl);
  int algo = (int)o->algo;
  if (o->algo != algo || algo < 0 || algo >= DLB_ALGO_NALGOS)
    return dlb_fail(DLB_EINVAL, "data parallel: unknown allreduce algorithm %g", o->algo);

  double flops = w->flops_sample * sb + w->flops_fixed;
  if (!(o->compute >= 0) || !isfinite(o->compute))
    return dlb_fail(DLB_EINVAL, "data parallel: compute must be >= 0 s, got %g", o->compute);
  double tcomp = o->compute;
  if (!(tcomp > 0)) {   /* the work as one op of the per-op rule, plus the step overhead */
    if ((st = dlb_op_time(dev, flops, w->bytes_sample * sb + w->bytes_fixed, NULL, &tcomp, NULL)))
      return dlb_fail(st, "data parallel: %s", dlb_last_error());
    tcomp += dev->step_overhead;
  }
  double bwd = (w->bwd_frac > 0 ? w->bwd_frac : 2.0 / 3.0) * tcomp;
  double comm = 0, last = 0, wire = 0, nb = 0, exposed = 0, step;
  r->batch = sb * n;
  r->subbatch = sb;
  r->compute = tcomp;
  r->mem = w->mem_fixed + w->mem_sample * sb;
  /* A step that does not fit a worker's memory is reported, not hidden (as dlb.roofline.time
  ** reports r.fits and r.shortfall for one device). */
  r->fits = (dev->mem == 0 || r->mem <= dev->mem) ? 1 : 0;
  r->shortfall = r->fits ? 0 : r->mem - dev->mem;

  if (o->async) {
    /* Asynchronous SGD with a parameter server (Dean et al. 2012): no barrier; a worker
    ** computes, pushes its gradient and pulls weights (PS model of collective.c with one
    ** worker), while the k server shards can absorb at most k/(2 S b) updates per second. */
    dlb_par_coll one, all;
    const dlb_par_link *lk = cl && cl->inter.bw > 0 ? &cl->inter : (cl ? &cl->intra : NULL);
    if (!lk) return dlb_fail(DLB_EINVAL, "data parallel: cluster is missing");
    double k = o->shards > 0 ? o->shards : 1;
    if ((st = dlb_par_collective(DLB_COLL_PS, DLB_ALGO_DIRECT, w->grad_bytes, 1, 1, lk, &one)))
      return st;
    if ((st = dlb_par_collective(DLB_COLL_PS, DLB_ALGO_DIRECT, w->grad_bytes, n, k, lk, &all)))
      return st;
    double iter = tcomp + one.time;
    double server = all.time - 2 * lk->latency; /* n updates through the shards */
    step = iter > server ? iter : server;
    comm = one.time;
    exposed = step - tcomp;
    wire = one.bytes;
    nb = 1;
  } else {
    if ((st = bucketed(w->grad_bytes, n, algo, o->nccl != 0, o->bucket, cl, &comm, &last, &wire, &nb)))
      return st;
    /* Buckets are reduced as the backward pass produces them (Li et al. 2020, PyTorch DDP);
    ** only `overlap` of the backward time can hide them, and never the last bucket. */
    double hidden = nb > 1 ? fmin(comm - last, o->overlap * bwd) : 0;
    exposed = comm - hidden;
    step = tcomp + exposed;
  }
  r->step = step;
  r->comm = comm;
  r->exposed = exposed;
  r->throughput = n * sb / step;
  r->util = flops / (step * dev->peak);
  r->epoch = w->samples_epoch > 0 ? w->samples_epoch / r->throughput : 0;
  r->wire = wire;
  r->buckets = nb;
  return DLB_OK;
}
