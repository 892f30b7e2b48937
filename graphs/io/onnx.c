/*
** onnx.c — importing an ONNX model: read and parse the file (protobuf-c, the generated
** onnx.pb-c.c), the value table, graph inputs and initializers, the walk over the nodes
** (op handlers in onnx_ops.c), the loss on the first output and the import report.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dlb_onnx.h"
#include "dlb_runtime.h"
#include "onnx_impl.h"

static int oom(void) { return dlb_fail(DLB_ENOMEM, "onnx: out of memory"); }


static uint64_t shash(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
  return h;
}

static int rehash(dlb_onnx *m) {
  size_t ns = m->nslot ? 2 * m->nslot : 256;
  int32_t *s = dlb_malloc(ns * sizeof *s);
  if (!s) return oom();
  for (size_t i = 0; i < ns; i++) s[i] = -1;
  for (size_t i = 0; i < m->nval; i++) {
    size_t h = shash(m->val[i].name) & (ns - 1);
    while (s[h] >= 0) h = (h + 1) & (ns - 1);
    s[h] = (int32_t)i;
  }
  dlb_free(m->slot);
  m->slot = s, m->nslot = ns;
  return DLB_OK;
}

oval *dlb_onnx_find(dlb_onnx *m, const char *name) {
  if (!m->nslot || !name) return NULL;
  size_t h = shash(name) & (m->nslot - 1);
  while (m->slot[h] >= 0) {
    oval *v = &m->val[m->slot[h]];
    if (strcmp(v->name, name) == 0) return v;
    h = (h + 1) & (m->nslot - 1);
  }
  return NULL;
}

oval *dlb_onnx_def(dlb_onnx *m, const char *name) {
  oval *v = dlb_onnx_find(m, name);
  if (!v) {
    if (2 * (m->nval + 1) > m->nslot && rehash(m)) return NULL;
    if (!GROW(m->val, m->nval, m->capval, 1)) { oom(); return NULL; }
    size_t h = shash(name) & (m->nslot - 1);
    while (m->slot[h] >= 0) h = (h + 1) & (m->nslot - 1);
    m->slot[h] = (int32_t)m->nval;
    v = &m->val[m->nval++];
  }
  memset(v, 0, sizeof *v);
  v->name = name;
  v->t = -1;
  return v;
}

int dlb_onnx_pool(dlb_onnx *m, size_t n) {
  if (!GROW(m->pool, m->npool, m->cappool, n)) return oom();
  int off = (int)m->npool;
  memset(m->pool + off, 0, n * sizeof *m->pool); /* dim 0 until filled (a valid dim id) */
  m->npool += n;
  return off;
}

int dlb_onnx_fail(dlb_onnx *m, int status, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  dlb_vformat(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (m->node)
    return dlb_fail(status, "onnx '%s': node %zu '%s' (%s): %s", m->file, m->nodei,
                    m->node->name && *m->node->name ? m->node->name : "", m->node->op_type, msg);
  return dlb_fail(status, "onnx '%s': %s", m->file, msg);
}

int dlb_onnx_note(dlb_onnx *m, int kind, double count, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  dlb_vformat(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!GROW(m->rep, m->nrep, m->caprep, 1)) return oom();
  char *s = dlb_strdup(msg);
  if (!s) return oom();
  m->rep[m->nrep].text = s, m->rep[m->nrep].kind = kind, m->rep[m->nrep].count = count;
  m->nrep++;
  return DLB_OK;
}

/* A symbol name from a dim_param: an identifier (other characters become '_'). */
static void symname(const char *p, char *buf, size_t size) {
  size_t n = 0;
  if (!isalpha((unsigned char)*p) && *p != '_') buf[n++] = '_';
  for (; *p && n + 1 < size; p++) buf[n++] = isalnum((unsigned char)*p) ? *p : '_';
  buf[n] = '\0';
}

int dlb_onnx_dim(dlb_onnx *m, const Onnx__TensorShapeProto__Dimension *p, const char *what, int i) {
  char buf[64];
  if (p && p->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
    if (p->dim_value < 1 || p->dim_value > ((int64_t)1 << 40))
      return dlb_onnx_fail(m, DLB_EPARSE, "%s dim %d is %lld; a dim must be a positive integer",
                           what, i + 1, (long long)p->dim_value);
    return dlb_dim_const(m->g, (double)p->dim_value);
  }
  if (p && p->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && p->dim_param && *p->dim_param)
    symname(p->dim_param, buf, sizeof buf);
  else
    snprintf(buf, sizeof buf, "d%d", i + 1); /* an unnamed dynamic dim */
  int d = dlb_dim_text(m->g, buf);
  if (d < 0) return dlb_onnx_fail(m, d, "%s dim %d: %s", what, i + 1, dlb_last_error());
  return d;
}

/* The dims of value name from the file's value_info or graph outputs into d: the rank;
** DLB_ENOTFOUND when the file gives no full shape (not an error for callers that fall back);
** <0 with a message for a shape that is present but malformed. */
int dlb_onnx_vi_dims(dlb_onnx *m, const char *name, int32_t *d, int newsyms) {
  const Onnx__GraphProto *gp = m->model->graph;
  const Onnx__ValueInfoProto *vi = NULL;
  for (size_t i = 0; i < gp->n_value_info && !vi; i++)
    if (gp->value_info[i]->name && !strcmp(gp->value_info[i]->name, name)) vi = gp->value_info[i];
  for (size_t i = 0; i < gp->n_output && !vi; i++)
    if (gp->output[i]->name && !strcmp(gp->output[i]->name, name)) vi = gp->output[i];
  const Onnx__TypeProto *tp = vi ? vi->type : NULL;
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
      !tp->tensor_type->shape || tp->tensor_type->shape->n_dim > DLB_GRAPH_MAXRANK)
    return dlb_fail(DLB_ENOTFOUND, "no shape for '%s'", name);
  const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
  for (size_t i = 0; i < sh->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension *x = sh->dim[i];
    if (x->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET)
      return dlb_fail(DLB_ENOTFOUND, "no full shape for '%s'", name);
    if (!newsyms && x->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) {
      char buf[64];
      int known = 0;
      symname(x->dim_param ? x->dim_param : "", buf, sizeof buf);
      for (int k = 0; k < m->g->nvars && !known; k++) known = !strcmp(m->g->vars[k], buf);
      if (!known) return dlb_fail(DLB_ENOTFOUND, "'%s' names a dim the graph does not have", name);
    }
  }
  char what[300];
  snprintf(what, sizeof what, "value_info '%s'", name);
  for (size_t i = 0; i < sh->n_dim; i++)
    if ((d[i] = dlb_onnx_dim(m, sh->dim[i], what, (int)i)) < 0) return d[i];
  return (int)sh->n_dim;
}

/* Floating-point ONNX element types (float, float16, double, bfloat16). */
int dlb_onnx_isfloat(int elem) { return elem == 1 || elem == 10 || elem == 11 || elem == 16; }

int dlb_onnx_tensor(dlb_onnx *m, oval *v) {
  if (v->haspad)
    return dlb_onnx_fail(m, DLB_EINVAL, "value '%s' comes from a Pad with nonzero pads; those are "
                         "supported only in front of Conv and pooling", v->name);
  if (v->t >= 0) return v->t;
  if (v->state != OV_CONST) return dlb_onnx_fail(m, DLB_EINVAL, "value '%s' is not defined", v->name);
  int role = v->weight ? DLB_ROLE_WEIGHT : DLB_ROLE_ACTIVATION;
  int dt = dlb_onnx_isfloat(v->elem) ? DLB_DT_DEFAULT : v->elem == 6 ? DLB_DT_INT32 : DLB_DT_INT64;
  int32_t nm = dlb_gstr(m->g, v->name);
  if (nm < 0) return oom();
  int t = dlb_new_tensor(m->g, nm, v->nd, v->d, dt, role);
  if (t < 0) return t;
  if (dt != DLB_DT_DEFAULT) m->g->t[t].flags |= TF_DTYPE_SET;
  if (v->weight) {
    double n = 1;
    for (int i = 0; i < v->nd; i++) {
      double x;
      dlb_dim_is_const(m->g, v->d[i], &x);
      n *= x;
    }
    m->facts[DLB_ONNX_WEIGHT_ELEMENTS] += n;
  }
  v->t = t;
  return t;
}

/* An initializer as a constant value (its dims; integer data with few elements kept). */
static int initializer(dlb_onnx *m, const Onnx__TensorProto *tp) {
  if (!tp->name || !*tp->name) return dlb_onnx_fail(m, DLB_EPARSE, "an initializer without a name");
  oval *v = dlb_onnx_def(m, tp->name);
  if (!v) return dlb_last_status();
  m->facts[DLB_ONNX_INITIALIZERS]++;
  return dlb_onnx_const_tensor(m, v, tp, 1);
}

int dlb_onnx_const_tensor(dlb_onnx *m, oval *v, const Onnx__TensorProto *tp, int weights) {
  const char *what = tp->name && *tp->name ? tp->name : "constant";
  if (tp->n_dims > DLB_GRAPH_MAXRANK)
    return dlb_onnx_fail(m, DLB_EPARSE, "tensor '%s' has rank %zu (at most %d)", what,
                         tp->n_dims, DLB_GRAPH_MAXRANK);
  v->state = OV_CONST;
  v->elem = tp->has_data_type ? tp->data_type : 1;
  v->nd = (int)tp->n_dims;
  double n = 1;
  for (size_t i = 0; i < tp->n_dims; i++) {
    if (tp->dims[i] < 0 || tp->dims[i] > ((int64_t)1 << 40)) /* 0: an empty constant */
      return dlb_onnx_fail(m, DLB_EPARSE, "tensor '%s' dim %zu is %lld", what, i + 1,
                           (long long)tp->dims[i]);
    v->d[i] = dlb_dim_const(m->g, (double)tp->dims[i]);
    if (v->d[i] < 0) return v->d[i];
    n *= (double)tp->dims[i];
  }
  /* a float initializer is a weight unless its data is an additive mask (0 and fills: a
  ** buffer such as a causal mask, onnx_mask.c); other constants' mask properties */
  int wcand = weights && dlb_onnx_isfloat(v->elem) && n > 1;
  dlb_onnx_mask_scan(v, tp, wcand);
  if (wcand && !(v->tri && v->neg)) {
    v->weight = 1;
    return DLB_OK;
  }
  /* small integer (or scalar float) data: keep the values when present */
  size_t cnt = (size_t)n;
  if (n > ONNX_MAXVALS) return DLB_OK;
  double buf[ONNX_MAXVALS];
  size_t got = 0;
  if (v->elem == 7 && tp->n_int64_data == cnt) {
    for (size_t i = 0; i < cnt; i++) buf[i] = (double)tp->int64_data[i];
    got = cnt;
  } else if ((v->elem == 6 || v->elem == 9) && tp->n_int32_data == cnt) {
    for (size_t i = 0; i < cnt; i++) buf[i] = tp->int32_data[i];
    got = cnt;
  } else if (v->elem == 1 && tp->n_float_data == cnt) {
    for (size_t i = 0; i < cnt; i++) buf[i] = tp->float_data[i];
    got = cnt;
  } else if (v->elem == 11 && tp->n_double_data == cnt) {
    for (size_t i = 0; i < cnt; i++) buf[i] = tp->double_data[i];
    got = cnt;
  } else if (tp->has_raw_data) {
    size_t es = v->elem == 7 || v->elem == 11 ? 8 : v->elem == 1 || v->elem == 6 ? 4 : v->elem == 9 ? 1 : 0;
    if (es && tp->raw_data.len == es * cnt) {
      const uint8_t *p = tp->raw_data.data;
      for (size_t i = 0; i < cnt; i++, p += es) {
        if (v->elem == 7) { int64_t x; memcpy(&x, p, 8); buf[i] = (double)x; }
        else if (v->elem == 11) { double x; memcpy(&x, p, 8); buf[i] = x; }
        else if (v->elem == 1) { float x; memcpy(&x, p, 4); buf[i] = x; }
        else if (v->elem == 6) { int32_t x; memcpy(&x, p, 4); buf[i] = x; }
        else buf[i] = *p;
      }
      got = cnt;
    }
  }
  if (got == 0 && cnt > 0) return DLB_OK; /* stripped: dims only */
  for (size_t i = 0; i < got; i++)
    if (!isfinite(buf[i])) return DLB_OK;
  int off = dlb_onnx_pool(m, got ? got : 1);
  if (off < 0) return off;
  for (size_t i = 0; i < got; i++) {
    int d = dlb_dim_const(m->g, buf[i]);
    if (d < 0) return d;
    m->pool[off + (int)i] = d;
  }
  v->v = off, v->nv = (int)got;
  m->facts[DLB_ONNX_CONST_ELEMENTS] += (double)got;
  return DLB_OK;
}

/* A graph input: a source tensor with the ValueInfo's dims. */
static int graph_input(dlb_onnx *m, const Onnx__ValueInfoProto *vi) {
  if (!vi->name || !*vi->name) return dlb_onnx_fail(m, DLB_EPARSE, "a graph input without a name");
  if (dlb_onnx_find(m, vi->name)) return DLB_OK; /* an initializer listed as input (IR < 4) */
  const Onnx__TypeProto *tp = vi->type;
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
    return dlb_onnx_fail(m, DLB_EPARSE, "graph input '%s' is not a tensor", vi->name);
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  const Onnx__TensorShapeProto *sh = tt->shape;
  size_t nd = sh ? sh->n_dim : 0;
  if (!sh) return dlb_onnx_fail(m, DLB_EPARSE, "graph input '%s' has no shape", vi->name);
  if (nd > DLB_GRAPH_MAXRANK)
    return dlb_onnx_fail(m, DLB_EPARSE, "graph input '%s' has rank %zu (at most %d)", vi->name, nd,
                         DLB_GRAPH_MAXRANK);
  oval *v = dlb_onnx_def(m, vi->name);
  if (!v) return dlb_last_status();
  v->state = OV_TENSOR;
  v->elem = tt->has_elem_type ? tt->elem_type : 1;
  v->nd = (int)nd;
  char what[300];
  snprintf(what, sizeof what, "graph input '%s'", vi->name);
  for (size_t i = 0; i < nd; i++) {
    int d = dlb_onnx_dim(m, sh->dim[i], what, (int)i);
    if (d < 0) return d;
    v = dlb_onnx_find(m, vi->name);
    v->d[i] = d;
  }
  int fl = dlb_onnx_isfloat(v->elem);
  int dt = fl ? DLB_DT_DEFAULT : v->elem == 6 ? DLB_DT_INT32 : DLB_DT_INT64;
  int32_t nm = dlb_gstr(m->g, vi->name);
  if (nm < 0) return oom();
  int t = dlb_new_tensor(m->g, nm, v->nd, v->d, dt, DLB_ROLE_INPUT);
  if (t < 0) return t;
  if (!fl) m->g->t[t].flags |= TF_DTYPE_SET;
  v->t = t;
  return DLB_OK;
}

/* Tensor t as the graph's loss; a refusal is an importer error naming the file and output. */
static int set_loss(dlb_onnx *m, int t, const char *output) {
  int r = dlb_graph_set_loss(m->g, t);
  return r < 0 ? dlb_onnx_fail(m, r, "the loss on graph output '%s': %s", output, dlb_last_error()) : r;
}

/* The loss on the first graph output (docs/import.md "Training step"). */
static int add_loss(dlb_onnx *m, const Onnx__GraphProto *gp) {
  if (m->loss == DLB_ONNX_LOSS_NONE) return DLB_OK;
  if (gp->n_output == 0 || !gp->output[0]->name)
    return dlb_onnx_fail(m, DLB_EPARSE, "the graph has no output to put a loss on");
  const char *name = gp->output[0]->name;
  oval *v = dlb_onnx_find(m, name);
  if (!v || v->state == OV_UNSET)
    return dlb_onnx_fail(m, DLB_EPARSE, "graph output '%s' is not computed by any node", name);
  if (v->state == OV_CONST || !dlb_onnx_isfloat(v->elem))
    return dlb_onnx_fail(m, DLB_EINVAL, "graph output '%s' does not depend on the inputs or is not "
                         "floating point; give loss = \"none\" and analyse with inference = true", name);
  int t = v->t;
  dlb_graph *g = m->g;
  int nd = g->t[t].ndims;
  /* a scalar output is the loss itself, if a node computes it (an output that is a graph
     input is not: found by fuzz_onnx, regress-loss-on-input) */
  if (nd == 0 && m->loss == DLB_ONNX_LOSS_AUTO) return set_loss(m, t, name);
  double c = 0;
  int xent = m->loss == DLB_ONNX_LOSS_XENT ||
             (m->loss == DLB_ONNX_LOSS_AUTO && nd >= 1 && dlb_dim_is_const(g, g->t[t].dims[nd - 1], &c) && c >= 2);
  int32_t nm = dlb_gstr(g, "labels");
  if (nm < 0) return oom();
  int32_t dims[DLB_GRAPH_MAXRANK];
  memcpy(dims, g->t[t].dims, sizeof dims);
  if (xent && nd < 1) return dlb_onnx_fail(m, DLB_EINVAL, "loss \"xent\" needs logits of rank >= 1");
  int lab = dlb_new_tensor(g, nm, xent ? nd - 1 : nd, dims, xent ? DLB_DT_INT32 : DLB_DT_DEFAULT, DLB_ROLE_LABEL);
  if (lab < 0) return lab;
  if (xent) g->t[lab].flags |= TF_DTYPE_SET;
  int in[2] = {t, lab};
  size_t nt0 = g->nt, no0 = g->no, na0 = g->nargs;
  int o = dlb_make_op(g, xent ? OP_XENT : OP_MSE, "loss", 2, in, 0, NULL, 0, NULL, DLB_PHASE_FWD);
  if (o < 0) {
    g->nt = nt0, g->no = no0, g->nargs = na0;
    return dlb_onnx_fail(m, o, "adding the loss: %s", dlb_last_error());
  }
  return set_loss(m, op_out(g, &g->o[o])[0], name);
}

/* Text "[a, b]" of n dims into buf. */
static const char *dims_text(const dlb_graph *g, int n, const int32_t *d, char *buf, size_t size) {
  size_t k = 0;
  buf[k++] = '[';
  for (int i = 0; i < n && k + 2 < size; i++) {
    if (i) k += (size_t)snprintf(buf + k, size - k, ", ");
    if (k < size) k += dlb_dim_print(g, d[i], buf + k, size - k);
  }
  if (k + 2 > size) k = size - 2;
  buf[k++] = ']';
  buf[k] = '\0';
  return buf;
}

/* The graph outputs' shapes as the file states them against ours: a warning per mismatch
** (an inference rule of ours or of the exporter differs; the counts use ours). */
static int check_outputs(dlb_onnx *m, const Onnx__GraphProto *gp) {
  for (size_t i = 0; i < gp->n_output; i++) {
    const char *name = gp->output[i]->name;
    oval *v = name ? dlb_onnx_find(m, name) : NULL;
    int32_t d[DLB_GRAPH_MAXRANK];
    if (!v || v->state != OV_TENSOR) continue;
    int r = dlb_onnx_vi_dims(m, name, d, 0); /* names the graph has, or no comparison */
    if (r == DLB_ENOTFOUND) continue;
    if (r < 0) return r;
    v = dlb_onnx_find(m, name);
    const tensor *T = &m->g->t[v->t];
    if (r != T->ndims || memcmp(d, T->dims, (size_t)r * sizeof *d)) {
      char b1[256], b2[256];
      int rc = dlb_onnx_note(m, DLB_ONNX_R_WARNING, 0, "graph output '%s': the file says %s, dlbench infers %s",
                             name, dims_text(m->g, r, d, b1, sizeof b1), dims_text(m->g, T->ndims, T->dims, b2, sizeof b2));
      if (rc) return rc;
    }
  }
  return DLB_OK;
}

/* Count op types; fail listing the unsupported ones unless unknown = skip. */
static int survey(dlb_onnx *m, const Onnx__GraphProto *gp) {
  size_t n = gp->n_node;
  const char **types = dlb_calloc(n ? n : 1, sizeof *types);
  size_t *counts = dlb_calloc(n ? n : 1, sizeof *counts);
  size_t nt = 0;
  if (!types || !counts) { dlb_free(types); dlb_free(counts); return oom(); }
  for (size_t i = 0; i < n; i++) {
    const char *t = gp->node[i]->op_type ? gp->node[i]->op_type : "";
    size_t k = 0;
    while (k < nt && strcmp(types[k], t)) k++;
    if (k == nt) types[nt++] = t;
    counts[k]++;
  }
  char msg[700];
  size_t len = 0, nbad = 0;
  int rc = DLB_OK;
  for (size_t k = 0; k < nt && rc == DLB_OK; k++) {
    rc = dlb_onnx_note(m, DLB_ONNX_R_OPTYPE, (double)counts[k], "%s", types[k]);
    if (!dlb_onnx_handler(types[k])) {
      if (m->unknown == DLB_ONNX_UNKNOWN_SKIP) {
        if (rc == DLB_OK) rc = dlb_onnx_note(m, DLB_ONNX_R_UNSUPPORTED, (double)counts[k], "%s", types[k]);
      } else if (len < sizeof msg) {
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s (%zu)", nbad ? ", " : "",
                                *types[k] ? types[k] : "<empty op_type>", counts[k]);
      }
      nbad++;
    }
  }
  dlb_free(types);
  dlb_free(counts);
  if (rc) return rc;
  if (nbad && m->unknown != DLB_ONNX_UNKNOWN_SKIP)
    return dlb_onnx_fail(m, DLB_ENOTFOUND, "%zu unsupported operator type%s: %s; pass "
                         "{unknown = \"skip\"} to cost them as element-wise ops", nbad,
                         nbad > 1 ? "s" : "", msg);
  return DLB_OK;
}

/* The layer scope of a module path: the path without its parameter (for a weight) and
** without its leaf module when two or more modules remain ("layer1.0.conv1.weight" ->
** "layer1.0", "fc.weight" -> "fc"). parts: the components; n of them. */
static void scope_of(char **parts, int n, char *buf, size_t size) {
  if (n >= 2) n--;
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && k + 1 < size; i++)
    k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? "." : "", parts[i]);
}

/* Split s at sep into at most max parts (modifies s); the count. */
static int split_at(char *s, char sep, char **parts, int max) {
  int n = 0;
  while (*s && n < max) {
    char *e = strchr(s, sep);
    if (e) *e = '\0';
    if (*s) parts[n++] = s;
    if (!e) break;
    s = e + 1;
  }
  return n;
}

/* Whether scope names a layer of g other than the current one (a scope left before). */
static int closed_scope(const dlb_graph *g, const char *scope) {
  for (size_t i = 0; i < g->nlayers; i++)
    if ((int)i != g->curlayer && !strcmp(g->layers[i], scope)) return 1;
  return 0;
}

/* The scope of node n's name path ("/layer1/layer1.0/conv1/Conv" -> "layer1.0",
** "/lm_head/MatMul" -> "lm_head") into scope; 0 when it has none ("/MatMul"). */
static int node_scope(const Onnx__NodeProto *n, char *scope, size_t size) {
  char tmp[512];
  char *parts[64];
  scope[0] = '\0';
  if (!n->name || n->name[0] != '/') return 0;
  snprintf(tmp, sizeof tmp, "%s", n->name);
  int nm = split_at(tmp, '/', parts, 64) - 1; /* module components (torch qualifies each) */
  if (nm >= 1) snprintf(scope, size, "%s", parts[nm >= 2 ? nm - 2 : 0]);
  return scope[0] != '\0';
}

/* Layer scopes from module paths (docs/import.md "Layers"): a node using a weight named
** like a module path opens a scope: up to the first block index ("layer1.0.conv1.weight",
** "enc.layers.3.self_attn.out_proj.weight" -> "layer1.0", "enc.layers.3"), else the path
** without the parameter and its leaf module ("bert.pooler.dense.weight" -> "bert.pooler",
** "fc.weight" -> "fc"); weights without
** a path ("onnx::MatMul_12") take the node's name path ("/layer1/layer1.0/conv1/Conv");
** other nodes stay in the current scope. A scope once left is not opened again: a weight
** used again later (GPT-2's lm_head tied to wte.weight) takes the node's name path instead
** ("/lm_head/MatMul" -> "lm_head"), else the node stays in the current scope, so every scope
** is one run of the forward, as the planner's layers and their pipeline stages take it
** (dlb.parallel.layers.from_graph; issue [18] item 5: gpt2_like.onnx's head and loss, in the
** scope "wte" of its first op, ran before the blocks in evaluate's forward and after them in
** roofline.time's, 0.18% apart under megatron-lm's host model and phase syncs). */
static int node_layer(dlb_onnx *m, const Onnx__NodeProto *n) {
  char tmp[512], scope[512] = "";
  char *parts[64];
  for (size_t k = 0; k < n->n_input && !scope[0]; k++) {
    oval *v = n->input[k] && *n->input[k] ? dlb_onnx_find(m, n->input[k]) : NULL;
    if (!v || v->state != OV_CONST || !v->weight) continue;
    if (strchr(v->name, ':') || !strchr(v->name, '.')) {
      if (!node_scope(n, scope, sizeof scope)) return DLB_OK;
    } else {
      snprintf(tmp, sizeof tmp, "%s", v->name);
      int np = split_at(tmp, '.', parts, 64), blk = 0;
      for (int i = 1; i < np - 1 && !blk; i++) /* a block index of a ModuleList/Sequential */
        if (strspn(parts[i], "0123456789") == strlen(parts[i])) blk = i + 1;
      if (blk) scope_of(parts, blk + 1, scope, sizeof scope); /* scope_of drops one */
      else scope_of(parts, np - 1 > 0 ? np - 1 : np, scope, sizeof scope);
    }
  }
  if (!scope[0]) return DLB_OK;
  dlb_graph *g = m->g;
  if (g->curlayer >= 0 && !strcmp(g->layers[g->curlayer], scope)) return DLB_OK;
  if (closed_scope(g, scope) && (!node_scope(n, scope, sizeof scope) || closed_scope(g, scope)))
    return DLB_OK;   /* (a scope left before: not reopened; see above) */
  if (g->curlayer >= 0 && !strcmp(g->layers[g->curlayer], scope)) return DLB_OK;
  return dlb_graph_layer(g, scope);
}

/* The opset of the default domain (0 when the file names none) into *out; an error for a
** version outside 1..ONNX_MAXOPSET (docs/import.md). */
static int opset_of(dlb_onnx *m, const Onnx__ModelProto *mp, int *out) {
  *out = 0;
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
    if (o && (!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx")) && o->has_version) {
      if (o->version < 1 || o->version > ONNX_MAXOPSET)
        return dlb_onnx_fail(m, DLB_EPARSE, "opset_import: version %lld of the default domain "
                             "(ai.onnx) is outside 1..%d", (long long)o->version, ONNX_MAXOPSET);
      *out = (int)o->version;
      return DLB_OK;
    }
  }
  return DLB_OK;
}

static int import(dlb_onnx *m) {
  const Onnx__ModelProto *mp = m->model;
  const Onnx__GraphProto *gp = mp->graph;
  if (!gp) return dlb_onnx_fail(m, DLB_EPARSE, "not an ONNX model: no graph");
  int rc = opset_of(m, mp, &m->opset);
  if (rc) return rc;
  m->facts[DLB_ONNX_OPSET] = m->opset;
  m->facts[DLB_ONNX_IR_VERSION] = mp->has_ir_version ? (double)mp->ir_version : 0;
  m->facts[DLB_ONNX_NODES] = (double)gp->n_node;
  for (size_t i = 0; i < mp->n_metadata_props; i++) {
    const Onnx__StringStringEntryProto *e = mp->metadata_props[i];
    if (e && e->key && *e->key &&
        (rc = dlb_onnx_note(m, DLB_ONNX_R_META, (double)strlen(e->key), "%s=%s", e->key,
                             e->value ? e->value : "")))
      return rc;
  }
  if (m->opset && (m->opset < 7 || m->opset > 21))
    dlb_onnx_note(m, DLB_ONNX_R_WARNING, 0, "opset %d is outside the tested range 9-19", m->opset);
  if ((rc = survey(m, gp))) return rc;
  for (size_t i = 0; i < gp->n_initializer; i++)
    if ((rc = initializer(m, gp->initializer[i]))) return rc;
  for (size_t i = 0; i < gp->n_input; i++)
    if ((rc = graph_input(m, gp->input[i]))) return rc;
  if ((rc = dlb_onnx_uses_build(m))) return rc;
  if (!(m->done = dlb_calloc(gp->n_node ? gp->n_node : 1, 1))) return oom();
  for (size_t i = 0; i < gp->n_node; i++) {
    const Onnx__NodeProto *n = gp->node[i];
    m->node = n, m->nodei = i;
    if (m->done[i]) continue;
    if (!n->op_type) return dlb_onnx_fail(m, DLB_EPARSE, "a node without op_type");
    for (size_t k = 0; k < n->n_input; k++)
      if (n->input[k] && *n->input[k]) {
        oval *v = dlb_onnx_find(m, n->input[k]);
        if (!v || v->state == OV_UNSET)
          return dlb_onnx_fail(m, DLB_EPARSE, "input '%s' is not defined before this node (nodes must "
                               "be in topological order)", n->input[k]);
      }
    for (size_t k = 0; k < n->n_output; k++)
      if (!n->output[k]) return dlb_onnx_fail(m, DLB_EPARSE, "an output without a name");
    /* room for the outputs, so handlers may hold pointers to their inputs' values */
    while (2 * (m->nval + n->n_output + 1) > m->nslot)
      if ((rc = rehash(m))) return rc;
    if (!GROW(m->val, m->nval, m->capval, n->n_output + 1)) return oom();
    onnx_fn fn = (!n->domain || !*n->domain || !strcmp(n->domain, "ai.onnx")) ? dlb_onnx_handler(n->op_type) : NULL;
    if ((rc = node_layer(m, n))) return rc;
    if (!fn) {
      rc = dlb_onnx_skip(m, n);
    } else { /* a spelled-out LayerNorm starts with a ReduceMean */
      rc = !strcmp(n->op_type, "ReduceMean") ? dlb_onnx_fuse_layernorm(m, i) : 0;
      rc = rc == 0 ? fn(m, n) : rc == 1 ? DLB_OK : rc;
    }
    if (rc) {
      if (strncmp(dlb_last_error(), "onnx '", 6) != 0) /* a graph engine message */
        return dlb_onnx_fail(m, rc, "%s", dlb_last_error());
      return rc;
    }
  }
  m->node = NULL;
  for (size_t i = 0; i < m->g->nlayers; i++)
    if ((rc = dlb_onnx_note(m, DLB_ONNX_R_LAYER, (double)i, "%s", m->g->layers[i]))) return rc;
  if ((rc = check_outputs(m, gp))) return rc;
  return add_loss(m, gp);
}

static dlb_onnx *parse(const void *data, size_t size, const char *name, int unknown, int loss) {
  if (unknown != DLB_ONNX_UNKNOWN_ERROR && unknown != DLB_ONNX_UNKNOWN_SKIP)
    return dlb_fail_null(DLB_EINVAL, "onnx: unknown must be DLB_ONNX_UNKNOWN_ERROR or _SKIP, got %d", unknown);
  if (loss < DLB_ONNX_LOSS_AUTO || loss > DLB_ONNX_LOSS_NONE)
    return dlb_fail_null(DLB_EINVAL, "onnx: loss must be one of DLB_ONNX_LOSS_*, got %d", loss);
  dlb_onnx *m = dlb_calloc(1, sizeof *m);
  if (!m) return dlb_fail_null(DLB_ENOMEM, "onnx: out of memory");
  m->file = name ? name : "<memory>";
  m->unknown = unknown, m->loss = loss;
  if (dlb_onnx_wire_check(data, size, m->file)) { /* protobuf-c recurses: depth first */
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", dlb_last_error());
    dlb_onnx_free(m);
    return dlb_fail_null(DLB_EPARSE, "%s", msg);
  }
  m->model = onnx__model_proto__unpack(NULL, size, data);
  if (!m->model) {
    dlb_onnx_free(m);
    return dlb_fail_null(DLB_EPARSE, "onnx '%s': not an ONNX model (the protobuf is malformed or "
                         "truncated, %zu bytes)", name ? name : "<memory>", size);
  }
  const char *gname = m->model->graph && m->model->graph->name && *m->model->graph->name
                      ? m->model->graph->name : "onnx";
  m->g = dlb_graph_new(gname);
  if (!m->g || import(m)) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", dlb_last_error());
    int st = dlb_last_status();
    dlb_onnx_free(m);
    return dlb_fail_null(st ? st : DLB_EINVAL, "%s", msg);
  }
  m->file = NULL; /* name is the caller's */
  return m;
}

dlb_onnx *dlb_onnx_parse(const void *data, size_t size, const char *name, int unknown, int loss) {
  if (!data && size) return dlb_fail_null(DLB_EINVAL, "onnx: no data");
  return parse(data ? data : "", size, name, unknown, loss);
}

dlb_onnx *dlb_onnx_read(const char *path, int unknown, int loss) {
  if (!path) return dlb_fail_null(DLB_EINVAL, "onnx: no path");
  FILE *f = fopen(path, "rb");
  if (!f) return dlb_fail_null(DLB_EIO, "onnx '%s': cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return dlb_fail_null(DLB_EIO, "onnx '%s': not a regular file", path);
  }
  if ((unsigned long long)st.st_size > ((unsigned long long)1 << 31)) {
    fclose(f);
    return dlb_fail_null(DLB_EIO, "onnx '%s': %lld bytes; files over 2 GiB keep their weights in "
                         "external data (only the dims are needed)", path, (long long)st.st_size);
  }
  size_t size = (size_t)st.st_size;
  char *buf = dlb_malloc(size ? size : 1);
  if (!buf) { fclose(f); return dlb_fail_null(DLB_ENOMEM, "onnx: out of memory"); }
  size_t got = fread(buf, 1, size, f);
  int err = ferror(f);
  fclose(f);
  if (err || got != size) {
    dlb_free(buf);
    return dlb_fail_null(DLB_EIO, "onnx '%s': read error", path);
  }
  dlb_onnx *m = parse(buf, size, path, unknown, loss);
  dlb_free(buf);
  return m;
}

void dlb_onnx_free(dlb_onnx *m) {
  if (!m) return;
  if (m->model) onnx__model_proto__free_unpacked(m->model, NULL);
  dlb_graph_free(m->g);
  dlb_onnx_uses_free(m->uses);
  dlb_free(m->done);
  dlb_free(m->val);
  dlb_free(m->slot);
  dlb_free(m->pool);
  for (size_t i = 0; i < m->nrep; i++) dlb_free(m->rep[i].text);
  dlb_free(m->rep);
  dlb_free(m);
}

dlb_graph *dlb_onnx_take_graph(dlb_onnx *m) {
  if (!m) return dlb_fail_null(DLB_EINVAL, "onnx: no model");
  dlb_graph *g = m->g;
  m->g = NULL;
  if (!g) return dlb_fail_null(DLB_EINVAL, "onnx: the graph was taken already");
  return g;
}

size_t dlb_onnx_nreport(const dlb_onnx *m) { return m ? m->nrep : 0; }

const char *dlb_onnx_report(const dlb_onnx *m, size_t i, int *kind, double *count) {
  if (!m || i >= m->nrep) return NULL;
  if (kind) *kind = m->rep[i].kind;
  if (count) *count = m->rep[i].count;
  return m->rep[i].text;
}

int dlb_onnx_facts(const dlb_onnx *m, double *out, size_t n) {
  if (!m || !out) return dlb_fail(DLB_EINVAL, "onnx: no model or output");
  for (size_t i = 0; i < n && i < DLB_ONNX_NFACTS; i++) out[i] = m->facts[i];
  return DLB_OK;
}
