/*
** fusion_impl.h — the state the fusion passes share (graphs/step/fusion.c: the passes and
** dlb_fuse_step; fusion_attention.c: the attention pattern and the FlashAttention pass).
** Not part of the public interface.
*/
#ifndef FUSION_IMPL_H
#define FUSION_IMPL_H

#include <stdint.h>

#include "graph_impl.h"

typedef struct fuse_ctx {
  const dlb_graph *s;
  double *flops, *bytes, *size;
  int *kernel;           /* per op: DLB_KERNEL_* */
  const double *size0;   /* sizes before any pass (the bytes were counted with them) */
  int *ncons, *sole;     /* per tensor: consumers, and the consumer when there is one */
  double rc;             /* recompute FLOPs added */
  /* the attention pass's indexes (CSR, each list in increasing op order): the forward ops
  ** reading each tensor, and the generated ops (index >= nfwd) derived from each op */
  int32_t *fcoff, *fcons, *doff, *dops;
  unsigned char *held;   /* per op: its costs placed by the qkv pass (elementwise skips it) */
  int *gw;               /* per op, 3 (or NULL): a fused GEMM's shape (dlb_fuse_step) */
  int causal;            /* DLB_FUSE_SOFTMAX_CAUSAL: Megatron's upper-triangular softmax */
  int nf;                /* the forward ops: the first nf (a step's nfwd; a graph's all) */
  int32_t *into;         /* per op (or NULL): the op whose kernel absorbed it, else -1 */
} fuse_ctx;

/* The indexes the attention pass reads (the forward ops reading each tensor, the generated
** ops derived from each op). DLB_ENOMEM on failure. */
int dlb_fuse_attention_index(fuse_ctx *c);
/* The attention pass (FlashAttention): each attention pattern's forward and backward chains
** into one kernel each (fusion_attention.c). DLB_ENOMEM on failure. */
int dlb_fuse_attention(fuse_ctx *c);

#endif
