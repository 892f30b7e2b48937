/*
** onnx_node.c — helpers of the ONNX op handlers (onnx_ops.c, onnx_layers.c): node inputs,
** attributes and outputs, graph ops named after the node, and constant values (integer
** lists, shape lists, dim division, broadcasting).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_onnx.h"
#include "dlb_runtime.h"
#include "onnx_impl.h"

#define FAIL(...) dlb_onnx_fail(m, DLB_EINVAL, __VA_ARGS__)

/* -- node access -- */

/* Input i of node n, or NULL when absent (optional inputs are ""). */
oval *dlb_onnx_in(dlb_onnx *m, const Onnx__NodeProto *n, size_t i) {
  if (i >= n->n_input || !n->input[i] || !*n->input[i]) return NULL;
  return dlb_onnx_find(m, n->input[i]);
}

int dlb_onnx_need(dlb_onnx *m, const Onnx__NodeProto *n, size_t i, oval **out) {
  *out = dlb_onnx_in(m, n, i);
  if (!*out) return FAIL("input %zu is missing", i + 1);
  return DLB_OK;
}

const Onnx__AttributeProto *dlb_onnx_attr(const Onnx__NodeProto *n, const char *name) {
  for (size_t i = 0; i < n->n_attribute; i++)
    if (n->attribute[i] && n->attribute[i]->name && !strcmp(n->attribute[i]->name, name))
      return n->attribute[i];
  return NULL;
}

int64_t dlb_onnx_aint(const Onnx__NodeProto *n, const char *name, int64_t def) {
  const Onnx__AttributeProto *a = dlb_onnx_attr(n, name);
  return a && a->has_i ? a->i : def;
}

double dlb_onnx_afloat(const Onnx__NodeProto *n, const char *name, double def) {
  const Onnx__AttributeProto *a = dlb_onnx_attr(n, name);
  return a && a->has_f ? a->f : def;
}

/* Integer list attribute; count (0 when absent). */
size_t dlb_onnx_aints(const Onnx__NodeProto *n, const char *name, const int64_t **p) {
  const Onnx__AttributeProto *a = dlb_onnx_attr(n, name);
  *p = a ? a->ints : NULL;
  return a ? a->n_ints : 0;
}

int dlb_onnx_astr(const Onnx__NodeProto *n, const char *name, const char *s) {
  const Onnx__AttributeProto *a = dlb_onnx_attr(n, name);
  return a && a->has_s && a->s.len == strlen(s) && !memcmp(a->s.data, s, a->s.len);
}

/* Output i of n as a new value (NULL when the node does not name it). */
oval *dlb_onnx_outv(dlb_onnx *m, const Onnx__NodeProto *n, size_t i) {
  if (i >= n->n_output || !*n->output[i]) return NULL;
  return dlb_onnx_def(m, n->output[i]);
}

/* Output i becomes graph tensor t. */
int dlb_onnx_set_t(dlb_onnx *m, const Onnx__NodeProto *n, size_t i, int t, int elem) {
  if (t < 0) return t; /* the op making t failed (its message is recorded) */
  oval *v = dlb_onnx_outv(m, n, i);
  if (!v) return i < n->n_output ? DLB_OK : FAIL("output %zu is missing", i + 1);
  v->state = OV_TENSOR;
  v->t = t;
  v->elem = elem;
  v->nd = m->g->t[t].ndims;
  memcpy(v->d, m->g->t[t].dims, sizeof v->d);
  return DLB_OK;
}

/* Output i as a constant with dims d and nv values (allocated, filled by the caller). */
oval *dlb_onnx_set_c(dlb_onnx *m, const Onnx__NodeProto *n, size_t i, int nd, const int32_t *d,
                   int nv, int elem) {
  int off = 0;
  if (nv > 0 && (off = dlb_onnx_pool(m, (size_t)nv)) < 0) return NULL;
  oval *v = dlb_onnx_outv(m, n, i);
  if (!v) { FAIL("output %zu is missing", i + 1); return NULL; }
  v->state = OV_CONST;
  v->elem = elem;
  v->nd = nd;
  if (nd) memcpy(v->d, d, (size_t)nd * sizeof *d);
  v->nv = nv, v->v = off;
  return v;
}

/* An op of the graph IR named after the node (suffix appended); returns the op or <0. */
int dlb_onnx_mk(dlb_onnx *m, const Onnx__NodeProto *n, int type, const char *suffix, size_t nin,
              const int *ins, size_t nattr, const int *attrs, size_t ndims, const int32_t *dims) {
  char name[256];
  const char *base = n->name && *n->name ? n->name : n->op_type;
  snprintf(name, sizeof name, "%s%s", base, suffix ? suffix : "");
  dlb_graph *g = m->g;
  size_t nt0 = g->nt, no0 = g->no, na0 = g->nargs;
  int o = dlb_make_op(g, type, name, nin, ins, nattr, attrs, ndims, dims, DLB_PHASE_FWD);
  if (o < 0) {
    g->nt = nt0, g->no = no0, g->nargs = na0;
    return dlb_onnx_fail(m, o, "%s", dlb_last_error());
  }
  return o;
}

int dlb_onnx_first(dlb_onnx *m, int o) { return o < 0 ? o : op_out(m->g, &m->g->o[o])[0]; }

/* One-input op on tensor x; the output tensor or <0. */
int dlb_onnx_op1(dlb_onnx *m, const Onnx__NodeProto *n, int type, const char *sfx, int x) {
  return dlb_onnx_first(m, dlb_onnx_mk(m, n, type, sfx, 1, &x, 0, NULL, 0, NULL));
}
int dlb_onnx_op2(dlb_onnx *m, const Onnx__NodeProto *n, int type, const char *sfx, int a, int b) {
  int ins[2] = {a, b};
  return dlb_onnx_first(m, dlb_onnx_mk(m, n, type, sfx, 2, ins, 0, NULL, 0, NULL));
}
int dlb_onnx_reshape(dlb_onnx *m, const Onnx__NodeProto *n, const char *sfx, int x, int nd,
                   const int32_t *d) {
  return dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_RESHAPE, sfx, 1, &x, 0, NULL, (size_t)nd, d));
}
int dlb_onnx_slice(dlb_onnx *m, const Onnx__NodeProto *n, const char *sfx, int x, int axis0,
                 int start, int32_t len) {
  int a[2] = {axis0 + 1, start};
  return dlb_onnx_first(m, dlb_onnx_mk(m, n, OP_SLICE, sfx, 1, &x, 2, a, 1, &len));
}

int dlb_onnx_tens(dlb_onnx *m, oval *v) { return dlb_onnx_tensor(m, v); }

/* -- constants -- */

/* x as int64, saturated (values from a file may be anything). */
int64_t dlb_onnx_i64(double x) {
  if (!(x == x)) return 0;
  if (x >= 9.2e18) return INT64_MAX;
  if (x <= -9.2e18) return INT64_MIN;
  return (int64_t)x;
}

double dlb_onnx_numel_const(dlb_onnx *m, const oval *v, int *ok) {
  double p = 1, x;
  *ok = 1;
  for (int i = 0; i < v->nd; i++) {
    if (!dlb_dim_is_const(m->g, v->d[i], &x)) { *ok = 0; return 0; }
    p *= x;
  }
  return p;
}

/* Is v a constant with exactly one element. */
int dlb_onnx_scalar_const(dlb_onnx *m, const oval *v) {
  int ok;
  return v->state == OV_CONST && dlb_onnx_numel_const(m, v, &ok) == 1 && ok;
}

/* Integer values of constant v into out (max entries); count, or <0 naming what. */
int dlb_onnx_ivals(dlb_onnx *m, const oval *v, int64_t *out, int max, const char *what) {
  if (v->state != OV_CONST || (v->nv == 0 && !(v->nd == 1 && v->d[0] == dlb_dim_const(m->g, 0))))
    return FAIL("%s ('%s') must be a constant known at import time", what, v->name);
  if (v->nv > max) return FAIL("%s has %d values (at most %d)", what, v->nv, max);
  for (int i = 0; i < v->nv; i++) {
    double x;
    if (!dlb_dim_is_const(m->g, m->pool[v->v + i], &x))
      return FAIL("%s value %d is symbolic; it must be a number", what, i + 1);
    out[i] = dlb_onnx_i64(x);
  }
  return v->nv;
}

/* A dim list from the values of a shape constant (dims may be symbolic). */
int dlb_onnx_dvals(dlb_onnx *m, const oval *v, int32_t *out, const char *what) {
  if (v->state != OV_CONST || (v->nv == 0 && v->nd != 1))
    return FAIL("%s ('%s') must be a constant known at import time", what, v->name);
  if (v->nv == 0) {
    double x;
    if (dlb_dim_is_const(m->g, v->d[0], &x) && x == 0) return 0;
    return FAIL("%s ('%s') must be a constant known at import time", what, v->name);
  }
  if (v->nv > DLB_GRAPH_MAXRANK) return FAIL("%s has %d entries (rank at most %d)", what, v->nv, DLB_GRAPH_MAXRANK);
  memcpy(out, m->pool + v->v, (size_t)v->nv * sizeof *out);
  return v->nv;
}

/* a / b for dims: exact division by a number or by a monomial. */
int dlb_onnx_ddiv(dlb_onnx *m, int a, int b, const char *what) {
  dlb_graph *g = m->g;
  double x, y;
  if (a == b) return dlb_dim_const(g, 1);
  if (dlb_dim_is_const(g, b, &y)) {
    if (y == 0) return FAIL("%s: division by zero", what);
    if (dlb_dim_is_const(g, a, &x)) return dlb_dim_const(g, x / y);
    return dlb_dim_scale(g, a, 1 / y);
  }
  const dimtab *dt = &g->dims;
  if (dt->len[b] == 1) {
    pterm mono = dt->terms[dt->off[b]];
    int n = dt->len[a];
    pterm buf[64];
    if (n > 64) return FAIL("%s: dim too long to divide", what);
    for (int i = 0; i < n; i++) {
      pterm t = dt->terms[dt->off[a] + i];
      for (int k = 0; k < DLB_POLY_MAXVARS; k++)
        if (pkey_exp(t.key, k) < pkey_exp(mono.key, k)) goto fail;
      buf[i].key = t.key - mono.key;
      buf[i].c = t.c / mono.c;
    }
    return dlb_dim_intern(g, buf, (size_t)n);
  }
fail:;
  char b1[128], b2[128];
  dlb_dim_print(g, a, b1, sizeof b1);
  dlb_dim_print(g, b, b2, sizeof b2);
  return FAIL("%s: cannot divide %s by %s", what, b1, b2);
}

int dlb_onnx_dprod(dlb_onnx *m, int nd, const int32_t *d) {
  int p = dlb_dim_const(m->g, 1);
  for (int i = 0; i < nd && p >= 0; i++) p = dlb_dim_mul(m->g, p, d[i]);
  return p;
}

/* NumPy broadcast of two dim lists into out; rank or <0. */
int dlb_onnx_bcast(dlb_onnx *m, int na, const int32_t *a, int nb, const int32_t *b, int32_t *out) {
  int r = na > nb ? na : nb, one = dlb_dim_const(m->g, 1);
  for (int i = 0; i < r; i++) {
    int ia = na - r + i, ib = nb - r + i;
    int32_t da = ia >= 0 ? a[ia] : one, db = ib >= 0 ? b[ib] : one;
    if (da == db || db == one) out[i] = da;
    else if (da == one) out[i] = db;
    else return dlb_onnx_fail(m, DLB_ESHAPE, "shapes do not broadcast (axis %d from the right)", r - i);
  }
  return r;
}

/* Normalised 0-based axis. */
int dlb_onnx_axis0(dlb_onnx *m, int64_t a, int r, int *out) {
  if (a < 0) a += r;
  if (a < 0 || a >= r) return FAIL("axis out of range for rank %d", r);
  *out = (int)a;
  return DLB_OK;
}


/* Output 0 = input 0 (Identity, and Dropout/Cast on constants). */
int dlb_onnx_alias(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *v;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  oval c = *x;
  if (!(v = dlb_onnx_outv(m, n, 0))) return DLB_OK;
  const char *nm = v->name;
  *v = c;
  v->name = nm;
  return DLB_OK;
}

/* Integer list attribute of sp entries (absent: def each); 0 when the length is wrong. */
int dlb_onnx_ints_or(const Onnx__NodeProto *n, const char *name, int sp, int64_t def, int64_t *out) {
  const int64_t *p;
  size_t k = dlb_onnx_aints(n, name, &p);
  for (int i = 0; i < sp; i++) out[i] = k == (size_t)sp ? p[i] : def;
  return k == 0 || k == (size_t)sp;
}

/* A source tensor of role activation (no producer, no gradient) named "<node>/<what>",
** standing for a shape the graph IR cannot derive; the tensor or <0. */
int dlb_onnx_source(dlb_onnx *m, const Onnx__NodeProto *n, const char *what, int nd, const int32_t *d) {
  char nm[300];
  snprintf(nm, sizeof nm, "%s/%s", n->name && *n->name ? n->name : n->op_type, what);
  int32_t gs = dlb_gstr(m->g, nm);
  if (gs < 0) return dlb_fail(DLB_ENOMEM, "onnx: out of memory");
  return dlb_new_tensor(m->g, gs, nd, d, DLB_DT_DEFAULT, DLB_ROLE_ACTIVATION);
}
