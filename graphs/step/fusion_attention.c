/*
** fusion_attention.c — the attention pattern and the attention pass (FlashAttention; Dao et
** al. 2022, sec. 3.1 and Theorem 2; graphs/step/fusion.c lists every pass): the forward chain
** scores = Q K^T -> scale -> [mask] -> softmax -> [dropout] -> P V becomes one kernel that
** reads Q, K, V and writes O, its backward one kernel reading Q, K, V, O, dO and writing dQ,
** dK, dV, recomputing the scores and the softmax. The same pattern answers
** dlb_graph_attention_count / dlb_graph_symbolic_attention (dlb_attention_find): which
** attentions a graph has, and which have a mask the ONNX importer read as causal.
*/
#include <stdlib.h>
#include <string.h>

#include "graph_impl.h"
#include "dlb_runtime.h"
#include "fusion_impl.h"

/* the fusion passes' shared state (fusion_impl.h) */
typedef fuse_ctx ctx;

/* The forward op consuming tensor t as its input `pos` with type `type`, or -1: the first
** such op in construction order. */
static int fwd_consumer(const ctx *c, int t, int type, int pos) {
  const dlb_graph *s = c->s;
  for (int q = c->fcoff[t]; q < c->fcoff[t + 1]; q++) {
    const op *p = &s->o[c->fcons[q]];
    if (p->type != type || p->nin <= pos) continue;
    if (op_in(s, p)[pos] == t) return c->fcons[q];
  }
  return -1;
}

/* The indexes fwd_consumer and the attention pass read: one pass each over the ops
** instead of a scan of the step per attention block. DLB_ENOMEM on failure. */
int dlb_fuse_attention_index(ctx *c) {
  const dlb_graph *s = c->s;
  size_t no = s->no, nt = s->nt, nf = (size_t)c->nf, nuse = 0;
  c->fcoff = dlb_calloc(nt + 2, sizeof(int32_t));
  c->doff = dlb_calloc(no + 2, sizeof(int32_t));
  if (!c->fcoff || !c->doff) return DLB_ENOMEM;
  for (size_t i = 0; i < nf; i++) {
    const op *p = &s->o[i];
    const int32_t *in = op_in(s, p);
    for (int j = 0; j < p->nin; j++) c->fcoff[in[j] + 1]++;
    nuse += p->nin;
  }
  size_t nd = 0;
  for (size_t j = nf; j < no; j++) {
    int f = s->o[j].fwd;
    if (f >= 0 && (size_t)f < no) c->doff[f + 1]++, nd++;
  }
  for (size_t t = 0; t < nt; t++) c->fcoff[t + 1] += c->fcoff[t];
  for (size_t i = 0; i < no; i++) c->doff[i + 1] += c->doff[i];
  c->fcons = dlb_malloc((nuse + 1) * sizeof(int32_t));
  c->dops = dlb_malloc((nd + 1) * sizeof(int32_t));
  if (!c->fcons || !c->dops) return DLB_ENOMEM;
  /* fill with the offsets as cursors, then shift them back by one list */
  for (size_t i = 0; i < nf; i++) {
    const op *p = &s->o[i];
    const int32_t *in = op_in(s, p);
    for (int j = 0; j < p->nin; j++) c->fcons[c->fcoff[in[j]]++] = (int32_t)i;
  }
  for (size_t j = nf; j < no; j++) {
    int f = s->o[j].fwd;
    if (f >= 0 && (size_t)f < no) c->dops[c->doff[f]++] = (int32_t)j;
  }
  for (size_t t = nt; t > 0; t--) c->fcoff[t] = c->fcoff[t - 1];
  for (size_t i = no; i > 0; i--) c->doff[i] = c->doff[i - 1];
  c->fcoff[0] = c->doff[0] = 0;
  return DLB_OK;
}

static int cmp_int32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The scores operand of an attention mask applied by an add (op q, OP_ADD), or -1 when q
** is not one: one operand comes from the scores (a forward matmul, scale or cast), the
** other, the mask, is no weight and has no more axes. The mask forms the exporters write:
** an additive mask, scores + mask (Hugging Face transformers modeling_bert.py
** BertSelfAttention.forward: attention_scores + attention_mask; modeling_llama.py
** eager_attention_forward: attn_weights + causal_mask), and the causal mask by selection,
** Where(mask, scores, min) (modeling_gpt2.py GPT2Attention._attn / eager_attention_forward:
** torch.where(causal_mask, attn_weights, mask_value)) or Where(mask, -inf, scores)
** (masked_fill), which the ONNX importer costs as an add of the scores and the constant
** (graphs/io/onnx_ops.c where). Decided from the graph's structure only. FlashAttention
** applies a causal mask inside the kernel (Dao 2023, FlashAttention-2, sec. 3.1.1): the
** fused kernel's bytes stay Q, K, V and O. */
static int mask_scores(const dlb_graph *s, int nf, const op *q) {
  if (q->type != OP_ADD || q->nin != 2 || q->nout != 1) return -1;
  const int32_t *in = op_in(s, q);
  if (in[0] == in[1]) return -1;
  int out = op_out(s, q)[0];
  for (int k = 0; k < 2; k++) {
    int y = in[k], m = in[1 - k], pr = s->t[y].producer;
    if (pr < 0 || pr >= nf) continue;
    int ty = s->o[pr].type;
    if (ty != OP_MATMUL && ty != OP_SCALE && ty != OP_CAST) continue;
    if (s->t[y].ndims != s->t[out].ndims || s->t[m].ndims > s->t[out].ndims) continue;
    if (s->t[m].role == DLB_ROLE_WEIGHT) continue;
    return y;
  }
  return -1;
}

/* The attention pattern at forward softmax op i: scores = Q K^T (mm1) -> scale / cast ops and
** at most one mask add (chain, nc of them) -> softmax -> [dropout] -> P V (mm2). 1 found, 0
** not; *causal: its mask add's output is marked causal (TF_CAUSAL: the ONNX importer read a
** causal mask, graphs/io/onnx_mask.c). */
static int attention_at(const ctx *c, int i, int chain[8], int *nc, int *mm1, int *drop, int *mm2,
                        int *causal) {
  const dlb_graph *s = c->s;
  const op *sm = &s->o[i];
  if (sm->type != OP_SOFTMAX || sm->phase != DLB_PHASE_FWD || sm->nin < 1 || sm->nout < 1)
    return 0;
  /* walk back from the softmax input through scale ops and at most one mask to the
  ** scores matmul */
  int x = op_in(s, sm)[0], masked = 0;
  *nc = 0, *mm1 = -1, *causal = 0;
  for (;;) {
    int pr = s->t[x].producer;
    if (pr < 0 || pr >= c->nf) break;
    const op *q = &s->o[pr];
    if (q->type == OP_MATMUL) { *mm1 = pr; break; }
    if (*nc == 8) break;
    if (q->type == OP_ADD && !masked) {
      int y = mask_scores(s, c->nf, q);
      if (y < 0) break;
      masked = 1;
      *causal = (s->t[op_out(s, q)[0]].flags & TF_CAUSAL) != 0;
      chain[(*nc)++] = pr;
      x = y;
      continue;
    }
    if (q->type != OP_SCALE && q->type != OP_CAST) break;
    chain[(*nc)++] = pr;
    x = op_in(s, q)[0];
  }
  if (*mm1 < 0) return 0;
  int P = op_out(s, sm)[0], Pin = P;
  *drop = fwd_consumer(c, P, OP_DROPOUT, 0);
  if (*drop >= 0) Pin = op_out(s, &s->o[*drop])[0];
  *mm2 = fwd_consumer(c, Pin, OP_MATMUL, 0);
  return *mm2 >= 0;
}

int dlb_fuse_attention(ctx *c) {
  const dlb_graph *s = c->s;
  size_t nt = s->nt;
  char *inter = dlb_calloc(nt + 1, 1);
  int32_t *D = NULL; /* the generated ops derived from one chain, in op order */
  size_t capD = 0;
  if (!inter || dlb_fuse_attention_index(c)) { dlb_free(inter); return DLB_ENOMEM; }
  for (int i = 0; i < s->nfwd; i++) {
    int chain[8], nc, mm1, drop, mm2, causal;
    if (!attention_at(c, i, chain, &nc, &mm1, &drop, &mm2, &causal)) continue;
    /* the fused forward: every op of the chain into mm2 */
    int F[12], nf = 0;
    F[nf++] = mm1;
    for (int j = nc - 1; j >= 0; j--) F[nf++] = chain[j];
    F[nf++] = i;
    if (drop >= 0) F[nf++] = drop;
    F[nf++] = mm2;
    const int32_t *a1 = op_in(s, &s->o[mm1]), *a2 = op_in(s, &s->o[mm2]);
    int Q = a1[0], K = a1[1], V = a2[1], O = op_out(s, &s->o[mm2])[0];
    double fl = 0, recompute = 0;
    for (int j = 0; j < nf; j++) {
      fl += c->flops[F[j]];
      if (F[j] != mm2 && s->o[F[j]].type != OP_DROPOUT) recompute += c->flops[F[j]];
      if (F[j] != mm2)
        for (int k = 0; k < s->o[F[j]].nout; k++) inter[op_out(s, &s->o[F[j]])[k]] = 1;
      c->flops[F[j]] = c->bytes[F[j]] = 0;
    }
    double qkv = c->size0[Q] + c->size0[K] + c->size0[V], o = c->size0[O];
    c->flops[mm2] = fl;
    c->bytes[mm2] = qkv + o;
    c->kernel[mm2] = DLB_KERNEL_ATTENTION;
    /* the generated ops derived from the chain, in op order (each once) */
    size_t nD = 0;
    for (int j = 0; j < nf; j++) nD += (size_t)(c->doff[F[j] + 1] - c->doff[F[j]]);
    if (nD > capD) {
      int32_t *nd = dlb_realloc(D, (nD + 16) * sizeof *D);
      if (!nd) { dlb_free(D); dlb_free(inter); return DLB_ENOMEM; }
      D = nd, capD = nD + 16;
    }
    nD = 0;
    for (int j = 0; j < nf; j++)
      for (int q = c->doff[F[j]]; q < c->doff[F[j] + 1]; q++) D[nD++] = c->dops[q];
    if (nD > 1) qsort(D, nD, sizeof *D, cmp_int32); /* D is NULL while nothing was derived */
    size_t nu = 0;
    for (size_t q = 0; q < nD; q++) if (!nu || D[q] != D[nu - 1]) D[nu++] = D[q];
    nD = nu;
    /* the fused backward: every backward op derived from the chain into the first one */
    int first = -1;
    double bfl = 0;
    for (size_t d = 0; d < nD; d++) {
      size_t j = (size_t)D[d];
      const op *q = &s->o[j];
      if (q->phase != DLB_PHASE_BWD) continue;
      if (first < 0) first = (int)j;
      bfl += c->flops[j];
      c->flops[j] = c->bytes[j] = 0;
    }
    if (first >= 0) {
      c->flops[first] = bfl + recompute;
      c->bytes[first] = 2 * qkv + 2 * o;   /* read Q K V O dO, write dQ dK dV */
      c->kernel[first] = DLB_KERNEL_ATTENTION;
      c->rc += recompute;
    }
    /* under activation recompute the chain runs again before its backward pass: the same
    ** fused forward kernel (reads Q, K, V, writes O), its s x s tensors never in memory */
    int rmm2 = -1;
    double rfl = 0;
    for (size_t d = 0; d < nD; d++) {
      size_t j = (size_t)D[d];
      const op *q = &s->o[j];
      if (q->phase != DLB_PHASE_RECOMPUTE) continue;
      rfl += c->flops[j];
      if (q->fwd == mm2) rmm2 = (int)j;
      else
        for (int k = 0; k < q->nout; k++) inter[op_out(s, q)[k]] = 1;
      c->flops[j] = c->bytes[j] = 0;
    }
    if (rmm2 >= 0) {
      c->flops[rmm2] = rfl;
      c->bytes[rmm2] = qkv + o;
      c->kernel[rmm2] = DLB_KERNEL_ATTENTION;
    }
  }
  /* the s x s tensors and their gradients are never in memory */
  for (size_t t = 0; t < nt; t++) {
    int g = s->t[t].grad_of;
    if (inter[t] || (g >= 0 && inter[g])) c->size[t] = 0;
  }
  dlb_free(D);
  dlb_free(inter);
  return DLB_OK;
}

/* The attention patterns of graph g's ops (the chains the attention pass fuses, all of g's
** ops taken as forward ops): into mm (when not NULL, up to cap patterns, 3 entries each)
** each one's scores and P V matmuls and whether its mask is marked causal, *n the patterns,
** *ncausal those whose mask is marked causal. DLB_ENOMEM. */
int dlb_attention_find(const dlb_graph *g, int32_t *mm, size_t cap, size_t *n, size_t *ncausal) {
  ctx c;
  memset(&c, 0, sizeof c);
  c.s = g, c.nf = (int)g->no;
  *n = *ncausal = 0;
  if (dlb_fuse_attention_index(&c)) {
    dlb_free(c.fcoff); dlb_free(c.fcons); dlb_free(c.doff); dlb_free(c.dops);
    return dlb_fail(DLB_ENOMEM, "attention: out of memory");
  }
  for (int i = 0; i < c.nf; i++) {
    int chain[8], nc, mm1, drop, mm2, causal;
    if (!attention_at(&c, i, chain, &nc, &mm1, &drop, &mm2, &causal)) continue;
    if (mm && *n < cap) mm[3 * *n] = mm1, mm[3 * *n + 1] = mm2, mm[3 * *n + 2] = causal;
    (*n)++;
    *ncausal += causal != 0;
  }
  dlb_free(c.fcoff); dlb_free(c.fcons); dlb_free(c.doff); dlb_free(c.dops);
  return DLB_OK;
}
