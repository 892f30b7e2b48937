/*
** onnx_fuse.c — recognising LayerNorm spelled out in primitive ops (torch.onnx below opset
** 17, Hugging Face exports): ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul
** gamma, Add beta over the last axis become one `layernorm` op of the graph IR, as opset 17's
** LayerNormalization does (docs/import.md). The chain's intermediate values must have no
** other consumers; otherwise the nodes are imported one by one.
*/
#include <stdlib.h>
#include <string.h>

#include "dlb_onnx.h"
#include "dlb_runtime.h"
#include "onnx_impl.h"

typedef struct cons {
  const char *name;
  int n;                 /* consumers (nodes, plus 1 for a graph output) */
  int first, second;     /* the first two consuming nodes */
  int producer;          /* the node making it, -1: an input or initializer */
} cons;

struct dlb_onnx_uses {
  cons *c;
  size_t nslot;
};

static uint64_t shash(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
  return h;
}

static cons *slot(struct dlb_onnx_uses *u, const char *name) {
  size_t h = shash(name) & (u->nslot - 1);
  while (u->c[h].name && strcmp(u->c[h].name, name)) h = (h + 1) & (u->nslot - 1);
  return &u->c[h];
}

static cons *entry(struct dlb_onnx_uses *u, const char *name) {
  cons *c = slot(u, name);
  if (!c->name) c->name = name, c->first = c->second = c->producer = -1;
  return c;
}

static void use(struct dlb_onnx_uses *u, const char *name, int node) {
  if (!name || !*name) return;
  cons *c = entry(u, name);
  if (c->n == 0) c->first = node;
  else if (c->n == 1) c->second = node;
  c->n++;
}

int dlb_onnx_uses_build(dlb_onnx *m) {
  const Onnx__GraphProto *gp = m->model->graph;
  size_t n = gp->n_output;
  for (size_t i = 0; i < gp->n_node; i++) n += gp->node[i]->n_input + gp->node[i]->n_output;
  size_t ns = 16;
  while (ns < 2 * n + 2) ns *= 2;
  struct dlb_onnx_uses *u = dlb_calloc(1, sizeof *u);
  if (!u || !(u->c = dlb_calloc(ns, sizeof *u->c))) {
    dlb_free(u);
    return dlb_fail(DLB_ENOMEM, "onnx: out of memory");
  }
  u->nslot = ns;
  for (size_t i = 0; i < gp->n_node; i++)
    for (size_t k = 0; k < gp->node[i]->n_input; k++) use(u, gp->node[i]->input[k], (int)i);
  for (size_t i = 0; i < gp->n_output; i++) use(u, gp->output[i]->name, -1);
  m->uses = u; /* freed with m, also on an error below */
  /* one writer per value (ONNX's single assignment): a second node writing a name, or a
     node writing a graph input or initializer, is refused */
  for (size_t i = 0; i < gp->n_node; i++)
    for (size_t k = 0; k < gp->node[i]->n_output; k++) {
      const char *o = gp->node[i]->output[k];
      if (!o || !*o) continue;
      cons *c = entry(u, o);
      if (c->producer >= 0) {
        const Onnx__NodeProto *a = gp->node[c->producer], *b = gp->node[i];
        return dlb_onnx_fail(m, DLB_EPARSE, "value '%s' is written by two nodes: %d '%s' (%s) and "
                             "%zu '%s' (%s)", o, c->producer, a->name ? a->name : "",
                             a->op_type ? a->op_type : "", i, b->name ? b->name : "",
                             b->op_type ? b->op_type : "");
      }
      oval *v = dlb_onnx_find(m, o);
      if (v && v->state != OV_UNSET)
        return dlb_onnx_fail(m, DLB_EPARSE, "node %zu '%s' (%s) writes '%s', a graph input or "
                             "initializer", i, gp->node[i]->name ? gp->node[i]->name : "",
                             gp->node[i]->op_type ? gp->node[i]->op_type : "", o);
      c->producer = (int)i;
    }
  return DLB_OK;
}

void dlb_onnx_uses_free(struct dlb_onnx_uses *u) {
  if (!u) return;
  dlb_free(u->c);
  dlb_free(u);
}

/* Is n of type t (default domain); nodes ahead of the import are not validated yet. */
static int is_type(const Onnx__NodeProto *n, const char *t) {
  return n->op_type && !strcmp(n->op_type, t) && (!n->domain || !*n->domain) && n->n_output >= 1 &&
         n->output[0] && *n->output[0];
}

/* The only consumer of output 0 of node n, if it has exactly one and it is of type t. */
static const Onnx__NodeProto *only(dlb_onnx *m, const Onnx__NodeProto *n, const char *t, int *idx) {
  if (n->n_output < 1 || !n->output[0] || !*n->output[0]) return NULL;
  cons *c = slot(m->uses, n->output[0]);
  if (!c->name || c->n != 1 || c->first < 0) return NULL;
  const Onnx__NodeProto *x = m->model->graph->node[c->first];
  if (!is_type(x, t) || x->n_input < 2) return NULL;
  *idx = c->first;
  return x;
}

static int is_input(const Onnx__NodeProto *n, size_t k, const char *name) {
  return k < n->n_input && n->input[k] && !strcmp(n->input[k], name);
}

/* ORT's MatmulTransposeFusion reads a Transpose's output this way (onnx_impl.h). */
int dlb_onnx_only_gemm_operand(dlb_onnx *m, const Onnx__NodeProto *n) {
  if (!m->uses || n->n_output < 1 || !n->output[0] || !*n->output[0]) return 0;
  cons *c = slot(m->uses, n->output[0]);
  if (!c->name || c->n < 1 || c->n > 2 || c->first < 0 || (c->n == 2 && c->second < 0)) return 0;
  int who[2] = {c->first, c->n == 2 ? c->second : c->first};
  for (int j = 0; j < 2; j++) {
    const Onnx__NodeProto *x = m->model->graph->node[who[j]];
    if (!(is_type(x, "MatMul") || is_type(x, "Gemm")) || x->n_input < 2) return 0;
    for (size_t k = 2; k < x->n_input; k++) /* Gemm's C: a bias, not a GEMM operand */
      if (is_input(x, k, n->output[0])) return 0;
  }
  return 1;
}

/* Whether n's outputs are read only for their shapes: by Shape / Size nodes, by no other
** node and no graph output (gpt2_like's K permute, read by k.size(-2) alone; review 18). */
int dlb_onnx_shape_only(dlb_onnx *m, const Onnx__NodeProto *n) {
  if (!m->uses || n->n_output < 1) return 0;
  const Onnx__GraphProto *gp = m->model->graph;
  for (size_t k = 0; k < n->n_output; k++) {
    const char *o = n->output[k];
    if (!o || !*o) continue;
    cons *c = slot(m->uses, o);
    if (!c->name || c->n == 0) continue;
    /* the common case decided without a scan: the first reader is no Shape / Size */
    if (c->first < 0) return 0;
    const Onnx__NodeProto *f = gp->node[c->first];
    if (!is_type(f, "Shape") && !is_type(f, "Size")) return 0;
    int seen = 0;
    for (size_t i = 0; i < gp->n_node; i++) {
      const Onnx__NodeProto *x = gp->node[i];
      for (size_t j = 0; j < x->n_input; j++)
        if (x->input[j] && !strcmp(x->input[j], o)) {
          if (!is_type(x, "Shape") && !is_type(x, "Size")) return 0;
          seen++;
        }
    }
    if (seen != c->n) return 0; /* a graph output reads it */
  }
  return 1;
}

/* A ReduceMean over the last axis only, keeping dims, of a value of rank r. */
static int mean_last(dlb_onnx *m, const Onnx__NodeProto *n, int r) {
  if (!is_type(n, "ReduceMean") || dlb_onnx_aint(n, "keepdims", 1) != 1) return 0;
  const int64_t *ax;
  size_t k = dlb_onnx_aints(n, "axes", &ax);
  int64_t iv[2];
  if (!k && n->n_input > 1) {
    oval *a = dlb_onnx_in(m, n, 1);
    if (!a || a->state != OV_CONST || a->nv != 1) return 0;
    double v;
    if (!dlb_dim_is_const(m->g, m->pool[a->v], &v)) return 0;
    iv[0] = dlb_onnx_i64(v), ax = iv, k = 1;
  }
  return k == 1 && (ax[0] == -1 || ax[0] == r - 1);
}

/* A constant scalar input k of n into *v: a value known already, or one a Constant node
** later in the file makes (torch places them just before their use). */
static int scalar_in(dlb_onnx *m, const Onnx__NodeProto *n, size_t k, double *v) {
  if (k >= n->n_input || !n->input[k] || !*n->input[k]) return 0;
  oval *c = dlb_onnx_find(m, n->input[k]);
  if (c && c->state == OV_CONST)
    return !c->weight && c->nv == 1 && dlb_dim_is_const(m->g, m->pool[c->v], v);
  cons *e = slot(m->uses, n->input[k]);
  if (!e->name || e->producer < 0) return 0;
  const Onnx__NodeProto *p = m->model->graph->node[e->producer];
  if (!is_type(p, "Constant")) return 0;
  const Onnx__AttributeProto *a = dlb_onnx_attr(p, "value");
  if (a && a->t) {
    oval tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.name = "constant";
    if (dlb_onnx_const_tensor(m, &tmp, a->t, 0) || tmp.nv != 1) return 0;
    return dlb_dim_is_const(m->g, m->pool[tmp.v], v);
  }
  if ((a = dlb_onnx_attr(p, "value_float")) && a->has_f) { *v = a->f; return 1; }
  return 0;
}

/* A weight vector of the last dim c at input k of n (gamma, beta). */
static oval *vec_in(dlb_onnx *m, const Onnx__NodeProto *n, size_t k, int32_t c) {
  oval *w = dlb_onnx_in(m, n, k);
  return w && w->state == OV_CONST && w->weight && w->nd == 1 && w->d[0] == c ? w : NULL;
}

int dlb_onnx_fuse_layernorm(dlb_onnx *m, size_t i) {
  const Onnx__GraphProto *gp = m->model->graph;
  const Onnx__NodeProto *r1 = gp->node[i];
  oval *x = dlb_onnx_in(m, r1, 0);
  if (!m->uses || !x || x->state != OV_TENSOR || x->nd < 1 || !is_type(r1, "ReduceMean") ||
      !mean_last(m, r1, x->nd))
    return 0;
  int is, ip, ir, ia, iq, id, im, ib;
  double two, eps;
  const Onnx__NodeProto *sub = only(m, r1, "Sub", &is);
  if (!sub || !is_input(sub, 0, r1->input[0]) || !is_input(sub, 1, r1->output[0])) return 0;
  cons *c = slot(m->uses, sub->output[0]);
  if (c->n != 2 || c->first < 0 || c->second < 0) return 0;
  ip = is_type(gp->node[c->first], "Pow") ? c->first : c->second;
  id = ip == c->first ? c->second : c->first;
  const Onnx__NodeProto *pw = gp->node[ip], *dv = gp->node[id];
  if (!is_type(pw, "Pow") || !is_type(dv, "Div") || !is_input(pw, 0, sub->output[0]) ||
      !scalar_in(m, pw, 1, &two) || two != 2 || !is_input(dv, 0, sub->output[0]))
    return 0;
  const Onnx__NodeProto *r2 = only(m, pw, "ReduceMean", &ir);
  if (!r2) { /* ReduceMean has one input before opset 18: only() wants two */
    cons *cp = slot(m->uses, pw->output[0]);
    if (cp->n != 1 || cp->first < 0) return 0;
    r2 = gp->node[ir = cp->first];
    if (!is_type(r2, "ReduceMean") || !is_input(r2, 0, pw->output[0])) return 0;
  }
  if (!mean_last(m, r2, x->nd)) return 0;
  const Onnx__NodeProto *ad = only(m, r2, "Add", &ia);
  if (!ad || !scalar_in(m, ad, 1, &eps)) return 0;
  cons *cq = slot(m->uses, ad->output[0]);
  if (cq->n != 1 || cq->first < 0 || !is_type(gp->node[cq->first], "Sqrt")) return 0;
  const Onnx__NodeProto *sq = gp->node[iq = cq->first];
  cons *cd = slot(m->uses, sq->output[0]);
  if (cd->n != 1 || cd->first != id || !is_input(dv, 1, sq->output[0])) return 0;
  const Onnx__NodeProto *mu = only(m, dv, "Mul", &im);
  int32_t last = x->d[x->nd - 1];
  oval *gamma = mu ? vec_in(m, mu, 1, last) : NULL;
  if (!gamma) return 0;
  const Onnx__NodeProto *ab = only(m, mu, "Add", &ib);
  oval *beta = ab ? vec_in(m, ab, 1, last) : NULL;
  if (!beta) return 0;
  /* every node of the chain is in order after r1 and not yet imported */
  int idx[8] = {is, ip, ir, ia, iq, id, im, ib};
  for (int k = 0; k < 8; k++)
    if (idx[k] <= (int)i || m->done[idx[k]]) return 0;
  int ins[3] = {dlb_onnx_tens(m, x), dlb_onnx_tens(m, gamma), dlb_onnx_tens(m, beta)};
  for (int k = 0; k < 3; k++) if (ins[k] < 0) return ins[k];
  int elem = x->elem;
  int t = dlb_onnx_first(m, dlb_onnx_mk(m, ab, OP_LAYERNORM, NULL, 3, ins, 0, NULL, 0, NULL));
  int rc = dlb_onnx_set_t(m, ab, 0, t, elem);
  if (rc) return rc;
  for (int k = 0; k < 8; k++) m->done[idx[k]] = 1;
  m->facts[DLB_ONNX_FUSED]++;
  return 1;
}
