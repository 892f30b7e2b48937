/*
** onnx_index.c — the ONNX indexing ops: Slice (starts/ends/axes/steps as inputs from opset
** 10, attributes before; an end may be a symbolic dim, as in x[:, :seq]) and Gather
** (folded on constants, a slice for one index, an embedding lookup for a tensor of
** indices). docs/import.md.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dlb_onnx.h"
#include "dlb_runtime.h"
#include "onnx_impl.h"

#define FAIL(...) dlb_onnx_fail(m, DLB_EINVAL, __VA_ARGS__)

/* Slice: starts/ends/axes/steps (inputs from opset 10, attributes before). */
int dlb_onnx_op_slice(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x;
  int rc = dlb_onnx_need(m, n, 0, &x);
  if (rc) return rc;
  int64_t st[DLB_GRAPH_MAXRANK], en[DLB_GRAPH_MAXRANK], ax[DLB_GRAPH_MAXRANK], sp[DLB_GRAPH_MAXRANK];
  int32_t ed[DLB_GRAPH_MAXRANK];
  int k;
  const int64_t *p;
  for (int i = 0; i < DLB_GRAPH_MAXRANK; i++) ed[i] = -1;
  if (dlb_onnx_in(m, n, 1)) {
    if ((k = dlb_onnx_ivals(m, dlb_onnx_in(m, n, 1), st, DLB_GRAPH_MAXRANK, "starts")) < 0) return k;
    /* ends may be symbolic (x[:, :seq] with seq from a Shape): kept as dims */
    oval *ev = dlb_onnx_in(m, n, 2);
    if (!ev) return FAIL("ends are missing");
    if ((rc = ev->nv <= DLB_GRAPH_MAXRANK ? dlb_onnx_dvals(m, ev, ed, "ends") : FAIL("too many ends")) < 0) return rc;
    if (rc != k) return FAIL("starts and ends differ in length");
    for (int i = 0; i < k; i++) {
      double v;
      if (dlb_dim_is_const(m->g, ed[i], &v)) en[i] = dlb_onnx_i64(v), ed[i] = -1;
      else en[i] = 0;
    }
    if (dlb_onnx_in(m, n, 3)) { if ((rc = dlb_onnx_ivals(m, dlb_onnx_in(m, n, 3), ax, DLB_GRAPH_MAXRANK, "axes")) != k) return rc < 0 ? rc : FAIL("axes length"); }
    else for (int i = 0; i < k; i++) ax[i] = i;
    if (dlb_onnx_in(m, n, 4)) { if ((rc = dlb_onnx_ivals(m, dlb_onnx_in(m, n, 4), sp, DLB_GRAPH_MAXRANK, "steps")) != k) return rc < 0 ? rc : FAIL("steps length"); }
    else for (int i = 0; i < k; i++) sp[i] = 1;
  } else {
    k = (int)dlb_onnx_aints(n, "starts", &p);
    if (k > DLB_GRAPH_MAXRANK || (int)dlb_onnx_aints(n, "ends", &p) != k) return FAIL("starts/ends attributes");
    if (k == 0) return FAIL("Slice without starts and ends");
    dlb_onnx_aints(n, "starts", &p);
    memcpy(st, p, (size_t)k * sizeof *p);
    dlb_onnx_aints(n, "ends", &p);
    memcpy(en, p, (size_t)k * sizeof *p);
    if ((int)dlb_onnx_aints(n, "axes", &p) == k && k) memcpy(ax, p, (size_t)k * sizeof *p);
    else for (int i = 0; i < k; i++) ax[i] = i;
    for (int i = 0; i < k; i++) sp[i] = 1;
  }
  const int64_t LIM = (int64_t)1 << 40; /* dims are below it; larger values mean "to the end" */
  for (int i = 0; i < k; i++) {
    st[i] = st[i] > LIM ? LIM : st[i] < -LIM ? -LIM : st[i];
    en[i] = en[i] > LIM ? LIM : en[i] < -LIM - 1 ? -LIM - 1 : en[i];
    sp[i] = sp[i] > LIM ? LIM : sp[i] < -LIM ? -LIM : sp[i];
  }
  int32_t d[DLB_GRAPH_MAXRANK], start[DLB_GRAPH_MAXRANK] = {0};
  memcpy(d, x->d, sizeof d);
  int touched[DLB_GRAPH_MAXRANK] = {0};
  /* per axis: the step, and the start when it is known exactly (-1 not), for a mask's
  ** diagonal (onnx_mask.c) */
  int64_t ustep[DLB_GRAPH_MAXRANK], ustart[DLB_GRAPH_MAXRANK];
  for (int i = 0; i < DLB_GRAPH_MAXRANK; i++) ustep[i] = 1, ustart[i] = -1;
  for (int i = 0; i < k; i++) {
    int a = 0;
    if ((rc = dlb_onnx_axis0(m, ax[i], x->nd, &a))) return rc;
    if (sp[i] == 0) return FAIL("step 0");
    double D;
    int dd = x->d[a];
    const int64_t BIG = (int64_t)1 << 40;
    if (ed[i] >= 0) { /* a symbolic end: [start, end) with 0 <= start, step 1 */
      if (sp[i] != 1 || st[i] < 0)
        return FAIL("slice with the symbolic end on axis %d needs step 1 and a start >= 0", a + 1);
      int c = dlb_dim_const(m->g, (double)st[i]);
      if (c < 0 || (d[a] = dlb_dim_add(m->g, ed[i], c, -1)) < 0) return c < 0 ? c : d[a];
      start[a] = st[i] < 2147483647 ? (int)st[i] : 0;
      ustart[a] = st[i];
    } else if (dlb_dim_is_const(m->g, dd, &D)) {
      double s = (double)st[i], e = (double)en[i];
      if (sp[i] > 0) {
        if (s < 0) s += D;
        if (e < 0) e += D;
        s = s < 0 ? 0 : s > D ? D : s;
        e = e < 0 ? 0 : e > D ? D : e;
      } else {
        if (s < 0) s += D;
        if (e < -D - 1 || e < -BIG) e = -1; else if (e < 0) e += D;
        s = s < 0 ? 0 : s > D - 1 ? D - 1 : s;
        e = e < -1 ? -1 : e > D - 1 ? D - 1 : e;
      }
      double len = sp[i] > 0 ? ceil((e - s) / (double)sp[i]) : ceil((s - e) / (double)-sp[i]);
      if (len < 0) len = 0;
      if ((d[a] = dlb_dim_const(m->g, len)) < 0) return d[a];
      double s0 = sp[i] > 0 ? s : e + 1;
      start[a] = s0 < 2147483647.0 ? (int)s0 : 0; /* the start changes no cost */
      ustart[a] = sp[i] > 0 ? (int64_t)s : -1;
    } else if (sp[i] == 1 && st[i] >= 0 && en[i] >= BIG) {
      if ((d[a] = dlb_dim_add(m->g, dd, dlb_dim_const(m->g, (double)st[i]), -1)) < 0) return d[a];
      start[a] = st[i] < 2147483647 ? (int)st[i] : 0;
      ustart[a] = st[i];
    } else if (sp[i] == 1 && st[i] >= 0 && en[i] >= 0 && en[i] < BIG) {
      if ((d[a] = dlb_dim_const(m->g, (double)(en[i] - st[i]))) < 0) return d[a];
      start[a] = st[i] < 2147483647 ? (int)st[i] : 0;
      ustart[a] = st[i];
    } else if (sp[i] == 1 && st[i] == 0 && en[i] < 0) {
      if ((d[a] = dlb_dim_add(m->g, dd, dlb_dim_const(m->g, (double)-en[i]), -1)) < 0) return d[a];
      ustart[a] = 0;
    } else if (sp[i] == 1 && st[i] < 0 && en[i] >= BIG) {
      if ((d[a] = dlb_dim_const(m->g, (double)-st[i])) < 0) return d[a];
    } else {
      return FAIL("slice [%lld:%lld:%lld] of the symbolic axis %d needs that dim bound to a number",
                  (long long)st[i], (long long)en[i], (long long)sp[i], a + 1);
    }
    touched[a] = 1;
    ustep[a] = sp[i];
  }
  if (x->state == OV_CONST && !x->weight) {
    oval c = *x;
    int nv = 0;
    double len;
    if (c.nd == 1 && c.nv && k == 1 && sp[0] == 1 && dlb_dim_is_const(m->g, d[0], &len) && len <= c.nv &&
        start[0] >= 0 && start[0] + len <= c.nv)
      nv = (int)len;
    oval *v = dlb_onnx_set_c(m, n, 0, c.nd, d, nv, c.elem);
    if (!v) return dlb_last_status();
    dlb_onnx_mask_slice(v, &c, touched, ustart, ustep);
    if (nv) memmove(m->pool + v->v, m->pool + c.v + start[0], (size_t)nv * sizeof *m->pool);
    if (c.nd == 1 && c.nv && k == 1 && !nv) v->nv = 0;
    return DLB_OK;
  }
  int elem = x->elem, t = dlb_onnx_tens(m, x);
  if (t < 0) return t;
  for (int a = 0; a < x->nd; a++) {
    if (!touched[a] || d[a] == m->g->t[t].dims[a]) continue;
    char sfx[32];
    snprintf(sfx, sizeof sfx, "/axis%d", a + 1);
    if ((t = dlb_onnx_slice(m, n, sfx, t, a, start[a], d[a])) < 0) return t;
  }
  return dlb_onnx_set_t(m, n, 0, t, elem);
}

int dlb_onnx_op_gather(dlb_onnx *m, const Onnx__NodeProto *n) {
  oval *x, *i;
  int rc;
  if ((rc = dlb_onnx_need(m, n, 0, &x)) || (rc = dlb_onnx_need(m, n, 1, &i))) return rc;
  int ax = 0;
  if ((rc = dlb_onnx_axis0(m, dlb_onnx_aint(n, "axis", 0), x->nd, &ax))) return rc;
  int32_t d[DLB_GRAPH_MAXRANK];
  int r = x->nd - 1 + i->nd;
  if (r > DLB_GRAPH_MAXRANK) return FAIL("rank %d exceeds %d", r, DLB_GRAPH_MAXRANK);
  memcpy(d, x->d, (size_t)ax * sizeof *d);
  memcpy(d + ax, i->d, (size_t)i->nd * sizeof *d);
  memcpy(d + ax + i->nd, x->d + ax + 1, (size_t)(x->nd - ax - 1) * sizeof *d);
  if (x->state == OV_CONST && !x->weight) {
    oval c = *x, ci = *i;
    int nv = 0;
    if (c.nd == 1 && c.nv && ci.state == OV_CONST && ci.nv) nv = ci.nv;
    oval *v = dlb_onnx_set_c(m, n, 0, r, d, nv, c.elem);
    if (!v) return dlb_last_status();
    for (int k = 0; k < nv; k++) {
      double idx;
      if (!dlb_dim_is_const(m->g, m->pool[ci.v + k], &idx)) return FAIL("symbolic index");
      if (idx < 0) idx += c.nv;
      if (idx < 0 || idx >= c.nv) return FAIL("index %g out of range", idx);
      m->pool[v->v + k] = m->pool[c.v + (int)idx];
    }
    return DLB_OK;
  }
  int elem = x->elem;
  if (i->state == OV_CONST && i->nv && i->nv <= 1 + 0 * i->nd) { /* one index: a slice */
    double idx;
    if (!dlb_dim_is_const(m->g, m->pool[i->v], &idx)) return FAIL("symbolic index");
    int t = dlb_onnx_tens(m, x);
    if (t < 0) return t;
    double D;
    if (idx < 0 && dlb_dim_is_const(m->g, x->d[ax], &D)) idx += D;
    if (dlb_dim_is_const(m->g, x->d[ax], &D) && (idx < 0 || idx >= D)) return FAIL("index %g out of range", idx);
    if (idx >= 2147483647.0) return FAIL("index %g out of range", idx);
    if ((t = dlb_onnx_slice(m, n, "/index", t, ax, idx < 0 ? 0 : (int)idx, dlb_dim_const(m->g, 1))) < 0) return t;
    return dlb_onnx_set_t(m, n, 0, dlb_onnx_reshape(m, n, NULL, t, r, d), elem);
  }
  if (ax != 0) return FAIL("Gather along axis %d of a tensor with a tensor of indices is not supported", ax + 1);
  /* an embedding lookup: table [V, rest] */
  int tt = dlb_onnx_tens(m, x), ti = tt < 0 ? tt : dlb_onnx_tens(m, i);
  if (ti < 0) return ti;
  if (x->nd != 2) {
    int32_t d2[2] = {x->d[0], 0};
    if ((d2[1] = dlb_onnx_dprod(m, x->nd - 1, x->d + 1)) < 0) return d2[1];
    if ((tt = dlb_onnx_reshape(m, n, "/table", tt, 2, d2)) < 0) return tt;
  }
  int t = dlb_onnx_op2(m, n, OP_EMBEDDING, NULL, ti, tt);
  if (t < 0) return t;
  if (x->nd != 2 && (t = dlb_onnx_reshape(m, n, NULL, t, r, d)) < 0) return t;
  return dlb_onnx_set_t(m, n, 0, t, elem);
}

