/*
** dlb_parallel.h — parallel training: collectives, data/pipeline/tensor parallelism, plans.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
**
** Units everywhere: seconds, bytes, bytes/s, FLOPs, FLOP/s. Every struct is plain doubles
** (counts included), so the Lua bindings fill them field by field by name. A field left 0
** means "absent" where the comment says so.
*/
#ifndef DLB_PARALLEL_H
#define DLB_PARALLEL_H

#include "dlb_export.h"
#include "dlb_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* Collective operations. */
enum {
  DLB_COLL_ALLREDUCE = 0,
  DLB_COLL_ALLGATHER = 1,
  DLB_COLL_REDUCE_SCATTER = 2,
  DLB_COLL_BROADCAST = 3,
  DLB_COLL_ALLTOALL = 4,
  DLB_COLL_PS = 5,          /* parameter server push + pull (one server, or `shards`) */
  DLB_COLL_NOPS = 6
};

/* Algorithms (not every pair is defined; dlb_par_collective says which). */
enum {
  DLB_ALGO_RING = 0,        /* Patarasuk & Yuan 2009; Thakur et al. 2005 (allgather) */
  DLB_ALGO_TREE = 1,        /* binomial tree (Thakur, Rabenseifner & Gropp 2005) */
  DLB_ALGO_DBTREE = 2,      /* double binary tree (Sanders, Speck & Traff 2009) */
  DLB_ALGO_HD = 3,          /* recursive halving-doubling (Rabenseifner; Thakur et al. 2005) */
  DLB_ALGO_DIRECT = 4,      /* pairwise exchange (all-to-all) / parameter server */
  DLB_ALGO_NALGOS = 5
};

/* One tier of links: bandwidth per direction per device, latency per message, and the
** achievable fraction of bw (0 means 1). */
typedef struct dlb_par_link {
  double bw;        /* bytes/s */
  double latency;   /* s */
  double eff;       /* 0..1; 0 = 1 */
  double nccl_latency; /* s added to every NCCL collective (dlb_par_nccl) whose group runs on
                        this tier (intra: one node; inter: across nodes), beyond tuning.cc's
                        latencies: a CALIBRATION from measured nccl-tests times
                        (dlb.parallel.calibrate_collective); 0 = none. The alpha-beta
                        collectives (dlb_par_collective) do not read it. */
} dlb_par_link;

/* What a collective costs. */
typedef struct dlb_par_coll {
  double time;      /* s */
  double bytes;     /* bytes the busiest rank sends on the wire */
  double total;     /* bytes on the wire summed over all ranks */
  double steps;     /* latency-bound message rounds on the critical path */
} dlb_par_coll;

/* Time of collective `op` with `algo` over n ranks on one link tier, for a buffer of
** `bytes` (allreduce/broadcast: the buffer; allgather/reduce-scatter: the full gathered
** buffer; all-to-all: what each rank holds; PS: the gradient/weights). `shards` is the
** number of parameter servers (DLB_COLL_PS only; 0 = 1). Returns DLB_OK or DLB_EINVAL. */
DLB_API int dlb_par_collective(int op, int algo, double bytes, double n, double shards,
                       const dlb_par_link *link, dlb_par_coll *out);

/* Hierarchical allreduce (intra-node ring reduce-scatter, inter-node `inter_algo` allreduce
** of the 1/per_node shard, intra-node ring all-gather) over per_node x nodes ranks. */
DLB_API int dlb_par_allreduce_hier(double bytes, double per_node, double nodes, int inter_algo,
                           const dlb_par_link *intra, const dlb_par_link *inter,
                           dlb_par_coll *out);

/* A cluster: devices per node, nodes, and two link tiers (declared below). */
typedef struct dlb_par_cluster dlb_par_cluster;

/* All-to-all of `bytes` held by each of n ranks whose neighbours in the group are `stride`
** devices apart on cl (a group of n x stride consecutive devices, packed node by node):
** each rank sends bytes/n to every other rank; the peers on its own node are reached over
** the intra links, the others over the inter links, both tiers at once (NCCL issues the
** sends of an all-to-all as one group). The MoE token dispatch and combine, and the
** DeepSpeed-Ulysses exchange of context parallelism. DLB_EINVAL on a bad cluster, n or
** stride not whole, or n x stride more devices than a sized cluster holds. */
DLB_API int dlb_par_alltoall_cluster(double bytes, double n, double stride,
                                     const dlb_par_cluster *cl, dlb_par_coll *out);

/* Allreduce of `bytes` over n devices of cl, packed node by node: within one node on the
** intra links with `algo`; across nodes hierarchically when per_node > 1 divides n, else
** flat with `algo` on the inter links. DLB_EINVAL when cl is invalid (dlb_par_cluster_check)
** or n devices do not fit in it. */
DLB_API int dlb_par_allreduce_cluster(double bytes, double n, int algo, const dlb_par_cluster *cl,
                              dlb_par_coll *out);

/* A device as the parallel models see it is the roofline's dlb_roof (graphs/hw/dlb_hw.h):
** one struct, one set of defaults (dlb_roof_init), one check, one per-op time rule
** (dlb_op_time). Its mem (bytes, 0 = unlimited) decides `fits`. */

/* per_node and nodes are whole numbers >= 1, or 0 for "not sized" (one flat tier of any
** size). A link is absent when its bw is 0; a present link needs bw > 0,
** latency >= 0 and eff in [0, 1] (0 = 1), all finite. At least one link must be present. */
struct dlb_par_cluster {
  double per_node;
  double nodes;
  dlb_par_link intra;
  dlb_par_link inter;
  /* the fabric as NCCL sees it (issue [19]; dlb_par_nccl_topo), 0 = not stated: */
  double nics;       /* network adapters per node, each of inter.bw (0: one per device) */
  double nvlink;     /* NVLink generation inside a node (0: none / PCIe) */
  double nvls;       /* 1: NVLink SHARP in the node's switches (NVLS algorithms) */
};

/* Validate cl and, when devices > 0 and cl is sized (per_node and nodes > 0), that devices
** <= per_node x nodes. `what` prefixes the message. DLB_OK or DLB_EINVAL. */
DLB_API int dlb_par_cluster_check(const char *what, const dlb_par_cluster *cl, double devices);


/* A data-parallel workload, split into what scales with the samples of a step and what
** does not (the weight update, reading weights). */
typedef struct dlb_par_work {
  double flops_sample;   /* forward + backward FLOPs per sample */
  double flops_fixed;    /* per step, batch-independent (weight update) */
  double bytes_sample;   /* bytes accessed per sample */
  double bytes_fixed;    /* bytes accessed per step, batch-independent */
  double bwd_frac;       /* fraction of the compute in the backward pass (0 = 2/3) */
  double grad_bytes;     /* gradient bytes all-reduced per step */
  double mem_fixed;      /* footprint independent of batch (weights, grads, optimizer) */
  double mem_sample;     /* footprint per sample (activations) */
  double samples_epoch;  /* samples in one epoch (0: no epoch time) */
} dlb_par_work;

/* Options of synchronous data-parallel training. */
typedef struct dlb_par_dp_opts {
  double workers;        /* whole number >= 1, at most the cluster's devices when it is sized */
  double subbatch;       /* samples per worker per step (weak scaling), whole >= 1; or */
  double batch;          /* global batch (strong scaling) when subbatch is 0: a whole multiple
                            of workers (each worker gets batch/workers >= 1 samples) */
  double algo;           /* DLB_ALGO_* for the allreduce; hierarchical if cluster has nodes */
  double bucket;         /* bytes per gradient bucket (0 = one bucket) */
  double overlap;        /* fraction of the backward pass that can hide communication */
  double async;          /* 1: asynchronous parameter-server training (no barrier) */
  double shards;         /* parameter-server shards for async (0 = 1) */
  double compute;        /* s of compute per worker per step measured or modelled by the
                            caller (dlb.roofline.time); 0 = dlb_op_time of the work on dev */
  double nccl;           /* 1: each bucket's allreduce as NCCL runs it (dlb_par_nccl over the
                            workers packed node by node, the planner's rule; algo unused);
                            0: the alpha-beta model with algo (dlb_par_allreduce_cluster).
                            Async parameter-server training is alpha-beta either way. */
} dlb_par_dp_opts;

typedef struct dlb_par_dp_result {
  double step;           /* s per step (sync) or per worker iteration (async) */
  double compute;        /* s of compute per step */
  double comm;           /* s of communication (all buckets) */
  double exposed;        /* s of communication not hidden by the backward pass */
  double batch;          /* global batch */
  double subbatch;
  double throughput;     /* samples/s */
  double util;           /* achieved FLOP/s over peak FLOP/s */
  double mem;            /* bytes per worker: mem_fixed + mem_sample x subbatch */
  double epoch;          /* s per epoch (0 if samples_epoch is 0) */
  double wire;           /* bytes each worker sends per step */
  double buckets;
  double fits;           /* 1 when mem <= the device's mem (or its mem is 0, unlimited), else 0 */
  double shortfall;      /* bytes missing per worker: mem - device mem when it does not fit */
} dlb_par_dp_result;

/* Synchronous (or asynchronous) data-parallel step time of work on dev over cl. */
DLB_API int dlb_par_data(const dlb_par_work *w, const dlb_roof *dev,
                 const dlb_par_cluster *cl, const dlb_par_dp_opts *o, dlb_par_dp_result *out);

/* The cost of one layer of a model, per sample (a sample = one sequence for LMs). */
typedef struct dlb_par_layer {
  double flops_fwd;      /* FLOPs per sample, forward */
  double flops_bwd;      /* FLOPs per sample, backward */
  double bytes_sample;   /* bytes accessed per sample */
  double bytes_fixed;    /* bytes accessed per forward + backward pass whatever its batch
                            (weights; paid again by every micro-batch) */
  double params;         /* parameters */
  double act_out;        /* bytes per sample sent to the next layer (and its gradient back) */
  double act_kept;       /* bytes per sample kept for backward, split by tensor parallelism */
  double act_rep;        /* bytes per sample kept, replicated across tensor ranks unless
                            sequence parallelism is on */
  double act_in;         /* bytes per sample kept under full recompute (the checkpoint) */
  double tp_bytes;       /* bytes per sample of each tensor-parallel allreduce (0: the
                            layer is not tensor-parallel and runs replicated) */
  double tp_colls;       /* allreduces per forward pass (Megatron: 2); as many backward */
  double shardable;      /* 1: its parameters may be spread over all stages (embeddings) */
  double tp_div;         /* the tensor degree must divide it (attention: gcd of heads and
                            hidden); 0 = any degree */
  double frozen;         /* parameters that do not train (g:freeze, LoRA's base weights,
                            quantised weights): no gradient, optimizer state or allreduce */
  double weight_bytes;   /* bytes of the layer's weights (quantised or mixed storage);
                            0 = params x w_bytes */
  /* mixture of experts (0 = a dense layer) */
  double experts;        /* experts of the layer's MoE block; the expert degree divides it */
  double expert_params;  /* of `params`, the experts' (split over ep x tp; their gradients
                            reduced and their optimizer state sharded over dp x cp / ep) */
  double expert_frac;    /* fraction of the layer's forward/backward FLOPs in the experts
                            (timed at the busiest expert's load) */
  double moe_bytes;      /* bytes per sample the router dispatches: tokens x top_k x hidden x
                            activation bytes (the combine returns as many) */
  /* attention, for context parallelism (0 = no attention) */
  double kv_bytes;       /* bytes per sample of the layer's keys and values (all heads) */
  double qo_bytes;       /* bytes per sample of its queries and attention output */
  /* selective activation recomputation (Korthikanti et al. 2022 sec. 5; 0 = no attention
  ** core) */
  double act_core;       /* of act_kept, the bytes per sample the attention core keeps (the
                            softmax output, the attention-dropout mask and output: 5 a s^2 b
                            at 2 bytes), split by tensor parallelism; not kept under
                            selective recompute */
  double flops_core;     /* forward FLOPs per sample of the attention core (Q K^T, softmax,
                            dropout, attention over V), recomputed in the backward under
                            selective recompute (its time: the layer's ops marked as the
                            core, or this share of its forward for a layer without ops) */
  double top_k;          /* of a MoE layer, the experts each token is routed to (moe_bytes
                            counts top_k copies); 0 = not known. The DeepEP and HybridEP
                            dispatchers (DLB_DISPATCHER_DEEPEP, _HYBRIDEP) need it: they send
                            a token once per destination rank or node, not once per expert */
  /* the optimizer step's tensors (the launch model of opts.optim_impl; 0 = none known) */
  double upd_tensors;    /* parameter tensors the layer's update steps (its trainable weights) */
  double upd_chunks;     /* their multi_tensor_apply chunks in all: sum of ceil(numel / 65536)
                            (dlb_analysis_update_tensors), unsharded */
  /* full recompute (issue [18] item 5) */
  double rerun;          /* whether full recompute runs the layer's forward again: 1 yes (a
                            block of the stack), -1 no (an embedding, a head: a layer reading
                            only the model's inputs or holding a loss), 0 by its place (the
                            first layer, act_in 0, and the loss layer, act_out 0, run once).
                            dlb.parallel.layers.from_graph sets it by the graph path's rule
                            (dlb_analysis_layer_rerun) */
} dlb_par_layer;

/* Criteria for splitting layers into stages: by the layers' FLOPs (time) or their bytes
** (memory), each the split with the smallest largest chunk (dlb_par_partition); or by count
** (layers): every chunk the same number of layers, the input layer (an embedding) and the loss
** layer (the head) counted as one each: Megatron-Core's split with
** account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split
** (megatron/core/transformer/transformer_block.py, get_num_layers_to_build: (num_layers + 2)
** / pp per stage, / vp per virtual chunk, the embedding in the first chunk and the loss in the
** last), which needs the layers to divide into pp x v chunks. */
enum { DLB_BALANCE_TIME = 0, DLB_BALANCE_MEMORY = 1, DLB_BALANCE_LAYERS = 2 };

/* Split n layers into k contiguous stages minimising the largest stage weight, where a
** layer's weight is w[i]. first[s] receives the index of stage s's first layer (k values).
** Returns DLB_OK, or DLB_EINVAL when k < 1 or k > n. */
DLB_API int dlb_par_partition(const double *w, int n, int k, int *first);

/* Over how many devices ZeRO stage `zero` (0..3) splits each model state among n
** data-parallel replicas (Rajbhandari et al. 2020 sec. 5, Fig. 1): stage 1 partitions the
** optimizer state, 2 the gradients too, 3 the weights too; a partitioned state is split n
** ways (each device keeps 1/n of it), the others 1. The planner's rule (and
** dlb.parallel.zero_memory's): *w, *g, *o receive the weights', gradients' and optimizer
** state's divisors. DLB_EINVAL for a stage outside 0..3 or n not a number >= 1. */
DLB_API int dlb_par_zero_split(int zero, double n, double *w, double *g, double *o);

/* Pipeline schedules. */
enum { DLB_SCHED_GPIPE = 0, DLB_SCHED_1F1B = 1, DLB_SCHED_INTERLEAVED = 2 };

/* Bubble fraction of a schedule: idle time over step time, for p stages, m micro-batches,
** v virtual stages per device (interleaved). */
DLB_API double dlb_par_bubble(int sched, double p, double m, double v);

/* Training options shared by the pipeline and the planner: bytes per parameter of
** weights, gradients and optimizer state (defaults 0 = mixed-precision Adam 2, 2, 12). */
typedef struct dlb_par_opts {
  double batch;          /* global batch (samples) */
  double w_bytes, g_bytes, o_bytes;
  double overlap;        /* fraction of the last backward that hides the DP allreduce */
  double dp_algo;        /* DLB_ALGO_* for gradient allreduce across nodes */
  double tp_max;         /* largest tensor-parallel degree (0 = devices per node) */
  double pp_max;         /* largest pipeline degree (0 = layers) */
  double m_max;          /* most micro-batches tried (0 = 4 x pipeline degree, >= 1) */
  double zero_max;       /* highest ZeRO stage tried (0..3) */
  double sched;          /* -1 = try all; else DLB_SCHED_* */
  double v;              /* virtual stages for the interleaved schedule (0 = 2) */
  double seq_par;        /* 1: sequence parallelism with tensor parallelism */
  double recompute;      /* -1 = try none and full; 0 = keep activations; 1 = full
                            recompute; 2 = selective (the attention core); 3 = torchtitan's
                            per-op selective AC (DLB_PAR_RECOMPUTE_*) */
  double balance;        /* DLB_BALANCE_* */
  double shard;          /* 1: spread shardable layers' parameters over the stages */
  double devices;        /* devices to use (0 = the whole cluster) */
  double keep_unfit;     /* 1: also return plans that do not fit in memory */
  double mem_schedule;   /* DLB_MEM_FRAMEWORK (0) or DLB_MEM_MINIMAL (dlb_step_memory) */
  double slack;          /* caching-allocator slack, a fraction of the framework schedule's
                            bytes (>= 0) */
  double fsdp_overlap;   /* fraction of ZeRO-3's parameter all-gathers and gradient
                            reduce-scatters hidden under compute, [0, 1] */
  double gather_tensors; /* ZeRO-3 all-gathers per layer and pass issued in the list form
                            (one copy kernel per rank each; DeepSpeed 2021 gathered every
                            parameter tensor so); 0 = one flat buffer per layer (FSDP) */
  double nccl;           /* 1: tensor- and data-parallel collectives as NCCL runs them
                            (dlb_par_nccl: algorithm and protocol by size, multi-rail NICs);
                            0: the alpha-beta ring / hierarchical model of dlb_par_collective */
  double ep_max;         /* largest expert-parallel degree searched (0 = the most experts
                            of a layer; 1 = none) */
  double cp_max;         /* largest context-parallel degree searched (0 = 1: none) */
  double cp_algo;        /* -1 = try all; else DLB_CP_* (the search; evaluate takes cfg's) */
  double capacity;       /* expert capacity factor (Switch Transformer): every expert's buffer
                            padded to capacity x its mean tokens; 0 = dropless */
  double imbalance;      /* dropless routing: the busiest expert's tokens over the mean
                            (>= 1; 0 = 1, perfectly balanced) */
  double hsdp;           /* 1: the search also tries hybrid sharding (ZeRO-3 within a node,
                            replicated across) */
  double etp;            /* the experts' tensor degree in the search: 0 = tp (the experts
                            split as the attention), 1 = not split (Megatron-Core's
                            --expert-tensor-parallel-size 1) */
  double pp_scatter;     /* 1: pipeline sends with the scatter/gather optimisation
                            (Narayanan et al. 2021 sec. 4.1; Megatron-LM's
                            --scatter-gather-tensors-in-pipeline, on by default): each tensor
                            rank sends 1/tp of the activation and the receiver all-gathers it
                            over the tensor group; 0: every tensor rank sends all of it */
  double moe_impl;       /* how a MoE layer runs beyond the graph's ops: DLB_MOE_GRAPH (0)
                            or DLB_MOE_MCORE (1, below) */
  double moe_dispatcher; /* how a MoE layer's tokens reach the experts and come back:
                            DLB_DISPATCHER_ALLTOALL (0), DLB_DISPATCHER_DEEPEP (1) or
                            DLB_DISPATCHER_HYBRIDEP (2, below) */
  double reduce_bytes;   /* bytes per gradient element of the data-parallel reduction (the
                            allreduce, or ZeRO / FSDP's reduce-scatter): PyTorch FSDP's
                            MixedPrecision reduce_dtype (Composer's mixed_precision DEFAULT
                            and torchtitan's default: fp32, 4; PURE: the 16-bit parameter
                            dtype, 2); 0 = g_bytes. Memory keeps g_bytes */
  double phase_sync;     /* 1: the host and the device meet (torch.cuda.synchronize()) at the
                            start and end of every micro-batch's forward and backward:
                            Megatron-LM 2021 - mid 2022 times each with a timer whose start()
                            and stop() synchronise (megatron/global_vars.py _Timer;
                            megatron/schedules.py forward_step / backward_step), so the device
                            waits while the host issues a phase's first op (its host_op, and
                            host_layer before a forward); 0: the host enters a phase ahead */
  double recompute_every; /* under full recompute, checkpoint every k-th block (the layers
                            between the input and the loss layer, counted from the first, 1-
                            based: blocks k, 2k, ...), the others keep their activations:
                            torchtitan's layer-level selective AC (selective_ac_option "2",
                            its default: every other TransformerBlock); 0 or 1: every block;
                            > 1 under another policy than full (or, in the search, none and
                            full) is an error */
  double recompute_modules; /* under selective recompute (recompute 2), the Megatron-Core
                            modules recomputed (--recompute-modules; TransformerConfig
                            recompute_modules): a sum of DLB_RCM_* flags; 0 = DLB_RCM_CORE_ATTN,
                            Megatron-Core's default. Non-zero under another policy is an error,
                            as is a module that reruns nothing in the model */
  double optim_impl;     /* the optimizer step's launches (DLB_OPTIM_*, dlb_roofline.h): 0 =
                            none (each update op one kernel, as before); else the update
                            phase of each stage is dlb_optim_launches over its layers'
                            upd_tensors / upd_chunks (sharded as the ZeRO stage divides the
                            update) through dlb_optim_time */
  double optim_kernels;  /* DLB_OPTIM_LOOP: kernels per tensor (from the loop's source) */
  double optim_ops;      /* DLB_OPTIM_LOOP: host ops per tensor (>= optim_kernels) */
  double optim_sync;     /* DLB_OPTIM_LOOP: 1 when each tensor's step syncs (.item()) */
  double optim_views;    /* 1: under ZeRO sharding a rank steps only the parameters its
                            contiguous shard of each layer's flat buffer holds (PyTorch FSDP1
                            with use_orig_params: the others' .grad is None), about T / shards
                            + 1 of a layer's T; 0: every tensor, each sharded (FSDP2) */
  double moe_a2a_overlap; /* 1: Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-
                            comm): in the steady state the forward of one micro-batch runs
                            with the backward of another, layer by layer, the MoE all-to-alls
                            on a communication stream beside the other's computation
                            (megatron/core/models/common/model_chunk_schedule_plan.py,
                            TransformerLayerSchedulePlan.run; docs/parallel.md). Needs ep > 1;
                            refused with full recompute, the "moe" recompute module, and pp >
                            1 without the interleaved schedule (TransformerConfig's asserts);
                            the search applies it where a layout allows it. 0: not overlapped */
  double contention;     /* the fraction f in [0, 1) of the compute's rate lost while a
                            data-parallel collective runs beside it (overlap, fsdp_overlap):
                            NCCL's kernel holds one CTA per channel, so f = CTAs / SMs
                            (lua/dlbench/contention.lua). A collective of C s under a compute
                            window of W s costs max(C - W, f C) (planner_dp.c); 0: max(0, C - W),
                            the collective hidden for free; overlap 0 exposes it whatever f */
  double tp_async;       /* 1: the backward of each column-parallel linear starts the
                            tensor-parallel collective of its input gradient (the all-reduce;
                            the reduce-scatter under sequence parallelism) asynchronously and
                            runs its weight-gradient GEMM beside it, waiting after (Megatron-LM
                            since late 2021, --async-tensor-model-parallel-allreduce, on by
                            default: megatron/mpu/layers.py ColumnParallelLinearWithAsync-
                            Allreduce; Megatron-Core and Transformer Engine's Linear, "Overlap
                            dgrad-RS/AR with wgrad"). Each backward collective of t s under its
                            linear's dW GEMM of w s costs max(t - w, f t) (dlb_par_hidden, f =
                            contention); w: the layer's forward GEMM of a column-parallel shape
                            (split 2), of the dW GEMM's FLOPs and matrices (planner_ops.h
                            dlb_layer_cost.cw); a layer without ops hides nothing. Under
                            seq_par the same linear saved only its input's local shard and
                            all-gathers it again beside its dX GEMM, waited for before the
                            reduce-scatter (Megatron-LM 2022 LinearWithGradAccumulationAnd-
                            AsyncCommunication, Megatron-Core, Transformer Engine's Linear):
                            one all-gather per collective pair of a layer that reads an
                            activation (act_in > 0), max(t - w, f t) with the same w
                            (planner_tp.c). 0: every tensor-parallel collective on the
                            critical path, and no all-gather again (a linear that keeps its
                            gathered input) */
} dlb_par_opts;

/* MoE layer implementations (dlb_par_opts.moe_impl). */
enum {
  DLB_MOE_GRAPH = 0,     /* the graph's ops: dispatch and combine gathers, each expert matmul
                            one batched kernel */
  DLB_MOE_MCORE = 1      /* Megatron-Core's alltoall token dispatcher and TEGroupedMLP: the
                            local experts' GEMMs one cuBLAS call each on 4 streams, the second
                            permutation (sort by local expert) each way, and a host sync per
                            MoE layer forward when dropless (issue [21]; docs/parallel.md) */
};

/* MoE token dispatchers (dlb_par_opts.moe_dispatcher; issue [21], branch deepep). */
enum {
  DLB_DISPATCHER_ALLTOALL = 0, /* an all-to-all of every token's top_k copies each way
                                  (dlb_par_alltoall_cluster on the tiers the group spans):
                                  Megatron-Core's alltoall dispatcher, DeepSpeed-MoE */
  DLB_DISPATCHER_DEEPEP = 1,   /* DeepEP's normal kernels (Megatron-Core's flex dispatcher with
                                  the deepep backend): each token sent once per destination
                                  rank (within a node) or node (across nodes), at DeepEP's
                                  measured bandwidth carried to the device as the achieved
                                  fraction of its link (planner.c, DEEPEP_*; docs/parallel.md) */
  DLB_DISPATCHER_HYBRIDEP = 2  /* NVIDIA's Hybrid-EP kernels in DeepEP (the flex dispatcher with
                                  the hybridep backend; issue 27, branch moe-bulk): the same
                                  deduplication by destination rank or node as DeepEP, at
                                  Hybrid-EP's own measured bandwidths (planner_moe.c,
                                  HYBRIDEP_*; docs/parallel.md) */
};

/* Activation recompute policies (dlb_par_opts.recompute, dlb_par_row.recompute).
** DLB_PAR_RECOMPUTE_OP is torchtitan's per-op selective AC (selective_ac_option "op",
** torchtitan/parallelisms/parallelize_llama.py `_save_list`): in each block between the
** input and the loss layer, the forward keeps the outputs of its fused attention kernels and
** of every odd-numbered weight matmul (aten.mm calls 1, 3, 5, ... in op order) besides the
** block's input, and the backward runs the block's other forward ops again; it needs the
** layers' ops (layers from a graph). */
enum { DLB_PAR_RECOMPUTE_NONE = 0, DLB_PAR_RECOMPUTE_FULL = 1, DLB_PAR_RECOMPUTE_SELECTIVE = 2,
       DLB_PAR_RECOMPUTE_OP = 3 };

/* Megatron-Core's selective-recompute modules (dlb_par_opts.recompute_modules, flags; names as
** its --recompute-modules, megatron/core/transformer/transformer_config.py), under the
** Transformer Engine layer spec (gpt_layer_specs.py get_gpt_layer_with_transformer_engine_spec:
** input_layernorm fused into linear_qkv, pre_mlp_layernorm a TENorm in MoE layers and fused
** into linear_fc1 in dense ones). What each reruns in the backward (docs/parallel.md):
** CORE_ATTN the attention core (Korthikanti et al. 2022 sec. 5: ops marked attention 1 or 3);
** LAYERNORM a MoE layer's pre-MLP norm (DLB_OPM_PRE_MLP_NORM; CheckpointWithoutOutput: its
** output discarded after use, rebuilt before the MoE layer's backward); MLP a dense block's MLP
** with its fused pre-MLP norm (DLB_OPM_MLP, DLB_OPM_PRE_MLP_NORM; tensor_parallel.checkpoint:
** only its input kept); MOE the MoE layer, router, token dispatch (the all-to-all), experts
** and combine (DLB_OPM_MOE, DLB_OPM_MOE_ACT; tensor_parallel.checkpoint); MOE_ACT the experts'
** activation (DLB_OPM_MOE_ACT; CheckpointWithoutOutput on the bias + activation, its output
** discarded after linear_fc2). */
enum { DLB_RCM_CORE_ATTN = 1, DLB_RCM_LAYERNORM = 2, DLB_RCM_MLP = 4, DLB_RCM_MOE = 8,
       DLB_RCM_MOE_ACT = 16 };

/* The Megatron-Core module a forward op belongs to (dlb_par_op.module), what
** recompute_modules selects (set by dlb.parallel.layers.from_graph from each block's op order,
** lua/dlbench/parallel_layer_ops.lua module_ops). */
enum {
  DLB_OPM_NONE = 0,          /* none of those below */
  DLB_OPM_PRE_MLP_NORM = 1,  /* the norm between a block's attention and its MLP / MoE layer */
  DLB_OPM_MLP = 2,           /* an op of a dense block's MLP (linear_fc1 .. linear_fc2) */
  DLB_OPM_MOE = 3,           /* an op of a MoE layer (router, dispatch, expert matmuls,
                                combine) but the experts' activation */
  DLB_OPM_MOE_ACT = 4        /* the experts' bias + activation (between their two matmuls) */
};

/* Context-parallel attention algorithms. */
enum {
  DLB_CP_RING = 0,       /* Megatron-Core CP: K/V chunks passed round the ring (cp - 1 steps),
                            overlapped with the attention kernels */
  DLB_CP_ALLGATHER = 1,  /* Llama 3: all-gather K/V before attention, reduce-scatter dK/dV */
  DLB_CP_ALLTOALL = 2    /* DeepSpeed-Ulysses: all-to-all of Q, K, V and the output, heads
                            split over the cp ranks (cp x tp must divide the heads) */
};

/* One plan (and the layer-parallel evaluation of a fixed split). */
typedef struct dlb_par_row {
  double dp, tp, pp, v, m, mb;   /* degrees, micro-batches, micro-batch size */
  double sched, recompute, zero;
  double step;                   /* s */
  double compute;                /* s of compute on the bottleneck stage */
  double comm;                   /* s of exposed communication (TP + PP + DP) */
  double bubble;                 /* s of pipeline bubble */
  double tp_comm, pp_comm, dp_comm;  /* the exposed communication, split */
  double mem;                    /* bytes on the fullest device */
  double mem_weights, mem_grads, mem_opt, mem_act;  /* its breakdown */
  double fits;                   /* 1 when mem <= device memory */
  double util;                   /* MFU: model FLOP/s over peak of all devices */
  double throughput;             /* samples/s */
  double update;                 /* s of the optimizer step (after the pipeline flush) */
  double mfu;                    /* model FLOPs utilisation (= util; no recompute counted) */
  double hfu;                    /* hardware FLOPs utilisation: recomputed forwards counted */
  double host_idle;              /* s the bottleneck device waits for its host to issue ops
                                    (the host-side model: the device's host_op, host_layer) */
  double ep, cp;                 /* expert and context degrees (0 in a configuration = 1); the
                                    devices are dp x tp x pp x cp, ep divides dp x cp */
  double cp_algo;                /* DLB_CP_* */
  double hsdp;                   /* ZeRO-3 shard group size under hybrid sharding (0 = none:
                                    sharded over all of dp x cp) */
  double ep_comm, cp_comm;       /* exposed all-to-all (MoE) and context-parallel s, part of
                                    comm */
  double load;                   /* the busiest expert's tokens over the mean (1 dense) */
  double etp;                    /* the experts' tensor degree, dividing tp (0 in a
                                    configuration = tp); ep x etp divides tp x dp x cp */
  double a2a_overlap;            /* 1 when the layout ran Megatron-Core's combined 1F1B
                                    (opts.moe_a2a_overlap and a layout that allows it); a
                                    configuration's is ignored */
  double ep_hidden;              /* s of MoE all-to-all the combined 1F1B hid over the step
                                    (already off ep_comm); a configuration's is ignored */
} dlb_par_row;

/* One op of a layer, for the planner's per-op timing (the same rule as dlb_op_time, on
** the op scaled to a micro-batch and a tensor-parallel degree). Costs at one sample plus a
** batch-independent part; a matmul's shape at one sample with the dim that grows with the
** samples and the dim tensor parallelism splits. */
typedef struct dlb_par_op {
  double layer;          /* 0-based index of the layer it belongs to */
  double phase;          /* 0 forward, 1 backward, 2 optimizer update */
  double flops_sample, flops_fixed;
  double bytes_sample, bytes_fixed;
  double m, n, k, batch; /* matmul shape at one sample (m <= 0: not a matmul) */
  double grow;           /* the dim that grows with the samples: 1 m, 2 n, 3 k, 4 batch; 0 none */
  double split;          /* the dim tensor parallelism splits: 1 m, 2 n, 3 k, 4 batch; 0 none
                            (the FLOPs and bytes of a tensor-parallel layer's ops are divided
                            by the degree either way) */
  double attention;      /* 1: a fused attention kernel (FlashAttention; timed at the
                            device's attn_eff, see dlb_op_time_raw); 2: an op of a MoE
                            layer's experts (under expert parallelism a rank runs experts/ep
                            of them on ep x the rows, and reads experts/ep of the weights:
                            the batch dim / ep, the growing dim x ep, bytes_fixed / ep); 3: an
                            op of the unfused attention core (Q K^T, scale/mask, softmax,
                            dropout, attention over V; timed as any op); 4: an op of a
                            MoE layer's experts (as 2 under expert parallelism) launched
                            once per local expert, batch giving the layer's experts and no
                            matmul shape (m 0): experts/ep kernels, each on its share of
                            the bytes, every launch after the first costing the host a
                            kernel launch (Transformer Engine's per-tensor fp8
                            quantisation of a grouped linear, dlbench.te_fp8); 5: a GEMM of
                            the output layer (the LM head's forward and backward GEMMs, the
                            analysis' DLB_KERNEL_HEAD: timed at the device's head_peak when
                            set, as any op otherwise; a matmul shape required); 0 any other
                            op. Forward ops marked 1 or 3 are what selective recompute runs
                            again in the backward */
  double replicated;     /* 1: an op of a tensor-parallel layer outside its tensor-parallel
                            region (layer norm; the bias, dropout and residual add after a
                            row-parallel matmul; their gradients): every tensor rank runs it
                            on the whole sequence, or on 1/tp of it under sequence
                            parallelism (Korthikanti et al. 2022 sec. 4.2.2); 0: its FLOPs
                            and bytes split over the tensor ranks */
  double module;         /* a forward op's Megatron-Core module, DLB_OPM_* (what
                            dlb_par_opts.recompute_modules reruns); 0 for other phases */
  double softmax;        /* Megatron's FusedScaleMaskSoftmax (megatron/model/fused_softmax.py,
                            2021-22; vTrain src/model/fused_softmax.py): 1 the scaled, masked
                            softmax's forward kernel (its 16-bit scores read and probabilities
                            written), 2 its backward kernel (dy and the probabilities read,
                            dx written); 3 and 4 the same of a causal decoder's
                            upper-triangular kernels (the lower triangle read: 3 B and 4 B per
                            16-bit element, not 4 and 6); 0 any other op. Its fused kernel runs only when
                            micro-batch x softmax_heads / tp is a multiple of 4; else the
                            eager path: 5 kernels each way over fp32 copies (planner_ops.c) */
  double softmax_heads;  /* for softmax 1 or 2: the attention heads per sample (the kernel's
                            attention batches, b x heads / tp, must divide by 4); 0: the fused
                            kernel never runs (the sequence outside its range) */
  double softmax_elems;  /* for softmax 1 or 2: the elements of its 16-bit s x s scores per
                            sample (split over the tensor ranks with the heads) */
  double more_ops;       /* the further Python-level ops the host issues for it beyond its one
                            (whole, >= 0; a stack's eager ops a pass counts on a graph op:
                            dlb_analysis_op_more), host_op each */
  double more_kernels;   /* its further kernel launches beyond its one (whole, >= 0): its
                            kernels each an even share of its costs, those beyond its host ops
                            a kernel launch each on the host (dlb_launch_time, dlb_launch_host) */
} dlb_par_op;

typedef struct dlb_par_plan dlb_par_plan;

/* Evaluate one configuration (dp, tp, pp, v, m, sched, recompute, zero, ep, cp, cp_algo
** and hsdp taken from `cfg`; the other fields of cfg are ignored) of layers on the
** cluster. stage_mem, when not NULL, receives the bytes on each of the pp stages (pp values).
** DLB_EINVAL unless the layout is possible: batch = dp x m x mb with a whole micro-batch
** mb >= 1 (batch a multiple of dp, batch/dp a multiple of m), tp dividing every layer's
** tp_div (tp x cp under DLB_CP_ALLTOALL), ep dividing every MoE layer's experts and ep x etp
** dividing tp x dp x cp (etp, the experts' tensor degree, dividing tp),
** hsdp (ZeRO-3 only, ep 1) dividing dp x cp, pp x v <= layers, and dp x tp x pp x cp within
** the cluster when it is sized. Context parallelism splits each sample's tokens over cp
** ranks: every per-sample cost of a device is divided by cp. */
DLB_API int dlb_par_evaluate(const dlb_par_layer *layers, int n, const dlb_roof *dev,
                     const dlb_par_cluster *cl, const dlb_par_opts *o,
                     const dlb_par_row *cfg, dlb_par_row *out, double *stage_mem);
/* The same with the layers' ops (nops of them, each naming its layer): a layer with ops
** takes its forward, backward and update times from dlb_op_time on each op at the
** micro-batch and tensor degree (cached per layer shape); a layer without ops is one op of
** its flops and bytes. */
DLB_API int dlb_par_evaluate_ops(const dlb_par_layer *layers, int n, const dlb_par_op *ops,
                     int nops, const dlb_roof *dev, const dlb_par_cluster *cl,
                     const dlb_par_opts *o, const dlb_par_row *cfg, dlb_par_row *out,
                     double *stage_mem);

/* A model prepared for many evaluations (a calibration, a sweep over devices or layouts):
** its layers and ops copied once, the ops grouped by layer and the layers of identical ops
** found, the work dlb_par_evaluate_ops repeats on every call. Not for concurrent use (each
** evaluation fills its cache of layer times, emptied before the next). NULL with a message
** on bad input. */
typedef struct dlb_par_model dlb_par_model;
DLB_API dlb_par_model *dlb_par_model_new(const dlb_par_layer *layers, int n,
                                         const dlb_par_op *ops, int nops);
DLB_API void dlb_par_model_free(dlb_par_model *m);
/* dlb_par_evaluate_ops on the prepared model: the same row, bit for bit. */
DLB_API int dlb_par_model_evaluate(dlb_par_model *m, const dlb_roof *dev,
                                   const dlb_par_cluster *cl, const dlb_par_opts *o,
                                   const dlb_par_row *cfg, dlb_par_row *out, double *stage_mem);

/* Enumerate data x tensor x pipeline degrees, micro-batches, schedules, recompute and
** ZeRO stages; keep the ones that fit; sort by step time. NULL on bad input (devices more
** than a sized cluster holds, among others). A plan may hold no rows when nothing fits:
** dlb_par_plan_smallest then says what the leanest layout needs. */
DLB_API dlb_par_plan *dlb_par_plan_new(const dlb_par_layer *layers, int n, const dlb_roof *dev,
                               const dlb_par_cluster *cl, const dlb_par_opts *o);
/* The search with the layers' ops (see dlb_par_evaluate_ops). */
DLB_API dlb_par_plan *dlb_par_plan_new_ops(const dlb_par_layer *layers, int n,
                               const dlb_par_op *ops, int nops, const dlb_roof *dev,
                               const dlb_par_cluster *cl, const dlb_par_opts *o);
DLB_API int dlb_par_plan_count(const dlb_par_plan *p);
/* Copy row i (0-based) into out. */
DLB_API int dlb_par_plan_row(const dlb_par_plan *p, int i, dlb_par_row *out);
/* How many configurations the search evaluated. */
DLB_API double dlb_par_plan_evaluated(const dlb_par_plan *p);
/* Copy the evaluated layout with the least memory on its fullest device (fitting or not)
** into out; DLB_EINVAL when no layout was evaluated. */
DLB_API int dlb_par_plan_smallest(const dlb_par_plan *p, dlb_par_row *out);
DLB_API void dlb_par_plan_free(dlb_par_plan *p);

/* Amdahl's law: speedup on n workers with serial fraction f. */
DLB_API double dlb_par_amdahl(double f, double n);
/* Least-squares serial fraction from measured speedups s[i] on n[i] workers (model
** 1/s = f + (1-f)/n); r2 (may be NULL) receives the fit's R^2 on 1/s. */
DLB_API int dlb_par_amdahl_fit(const double *n, const double *s, int count, double *f, double *r2);
/* == Collectives as NCCL runs them (issue [19]; graphs/parallel/nccl.c) ================
** NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc, ncclTopoTuneModel and
** ncclTopoGetAlgoTime, v2.19-2.20): per algorithm and protocol a latency (base + per hop on
** NVLink/PCIe and on the network) and a bus bandwidth (the fabric's, with each protocol's
** efficiency), time = latency + bytes / algorithm bandwidth; NCCL runs the fastest. */
enum { DLB_NCCL_TREE = 0, DLB_NCCL_RING = 1, DLB_NCCL_NVLS = 2, DLB_NCCL_NVLS_TREE = 3,
       DLB_NCCL_NALGOS = 4 };
enum { DLB_NCCL_LL = 0, DLB_NCCL_LL128 = 1, DLB_NCCL_SIMPLE = 2, DLB_NCCL_NPROTOS = 3 };

/* What NCCL's tuning sees of one communicator. */
typedef struct dlb_nccl_topo {
  double ranks;      /* ranks in the communicator, whole >= 1 */
  double nodes;      /* nodes they span, whole, 1 <= nodes <= ranks (ranks per node even) */
  double bw_intra;   /* bytes/s: the intra-node fabric's bus bandwidth per rank, per direction */
  double bw_inter;   /* bytes/s: the network bandwidth of one node's share for this
                        communicator (NICs x NIC bandwidth x the node's ranks in it / ranks
                        per node: all of a node's communicators of a layout run at once);
                        0 when nodes = 1 */
  double nvlink;     /* NVLink generation of the intra fabric (0: PCIe); 2 Volta, 3 Ampere,
                        4 Hopper, 5 Blackwell: picks the compute-capability rows and LL128 */
  double nvls;       /* 1: NVLink SHARP (NVSwitch 3rd gen, Hopper HGX): the NVLS algorithms */
  double channels;   /* NCCL channels (0 = 16, assumed): only for the ring plateau rule */
  double latency_add; /* s added to every algorithm's and protocol's latency (so NCCL's
                        choice is unchanged): the tier's nccl_latency (dlb_par_nccl_topo);
                        0 = none, >= 0 */
} dlb_nccl_topo;

typedef struct dlb_nccl_result {
  double time;       /* s */
  double algo;       /* DLB_NCCL_* algorithm run */
  double proto;      /* DLB_NCCL_LL / LL128 / SIMPLE */
  double latency;    /* s, that choice's latency term */
  double bw;         /* bytes/s, that choice's algorithm bandwidth (bytes / transfer time) */
} dlb_nccl_result;

/* Time of collective `op` (DLB_COLL_ALLREDUCE, ALLGATHER, REDUCE_SCATTER, BROADCAST) of
** `bytes` (the buffer; allgather / reduce-scatter: the full gathered buffer, NCCL's nBytes)
** on topology t, with algorithm `algo` and protocol `proto` (-1: NCCL's choice, the fastest
** enabled). DLB_EINVAL for a bad topology, op, or a pair NCCL does not run for that op
** (the message names it). */
DLB_API int dlb_par_nccl(int op, double bytes, const dlb_nccl_topo *t, int algo, int proto,
                         dlb_nccl_result *out);
/* The topology of a group of `ranks` devices of cluster cl, `per_node` of them in each of
** its nodes (ranks / per_node nodes): bw_intra from cl->intra, bw_inter from the node's
** NICs (cl->nics x cl->inter.bw, or one per device when nics is 0) shared by the
** cl->per_node / per_node groups of a node that run at once; nvlink, nvls from cl;
** latency_add the nccl_latency of the tier the group runs on (intra on one node, inter
** across nodes). */
DLB_API int dlb_par_nccl_topo(const dlb_par_cluster *cl, double ranks, double per_node,
                              dlb_nccl_topo *out);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
