/*
** graph.c — the compute-graph IR: pools, interned dims, tensors, ops, layers, cloning.
** Shape inference of the user-facing ops is in graph_ops.c.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

/* Grow *p (n used, *cap slots of sz bytes) to hold n+add; 0 on OOM (graph_impl.h GROW). */
int dlb_grow(void **p, size_t *cap, size_t n, size_t add, size_t sz) {
  if (n + add <= *cap) return 1;
  size_t c = *cap ? *cap : 16;
  while (c < n + add) c *= 2;
  void *q = dlb_realloc(*p, c * sz);
  if (!q) return 0;
  *p = q;
  *cap = c;
  return 1;
}

static int oom(void) { return dlb_fail(DLB_ENOMEM, "graph: out of memory"); }

int32_t dlb_gstr(dlb_graph *g, const char *s) {
  size_t n = strlen(s) + 1;
  if (!GROW(g->str, g->nstr, g->capstr, n)) return -1;
  memcpy(g->str + g->nstr, s, n);
  int32_t at = (int32_t)g->nstr;
  g->nstr += n;
  return at;
}

/* -- interned dims -- */

static uint64_t hterms(const pterm *t, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    uint64_t c;
    memcpy(&c, &t[i].c, sizeof c);
    h = (h ^ t[i].key) * 1099511628211ULL;
    h = (h ^ c) * 1099511628211ULL;
  }
  return h ^ (h >> 29);
}

/* Whether interned dim id has exactly the terms t[0..n). */
static int sameterms(const dimtab *d, int id, const pterm *t, size_t n) {
  if ((size_t)d->len[id] != n) return 0;
  const pterm *u = d->terms + d->off[id];
  for (size_t i = 0; i < n; i++)
    if (u[i].key != t[i].key || u[i].c != t[i].c) return 0;
  return 1;
}

/* Double the dim hash table (or create it); 0 on OOM. */
static int rehash(dimtab *d) {
  size_t ns = d->nslots ? d->nslots * 2 : 64;
  int32_t *s = dlb_malloc(ns * sizeof *s);
  if (!s) return 0;
  for (size_t i = 0; i < ns; i++) s[i] = -1;
  for (size_t id = 0; id < d->n; id++) {
    size_t h = hterms(d->terms + d->off[id], (size_t)d->len[id]) & (ns - 1);
    while (s[h] >= 0) h = (h + 1) & (ns - 1);
    s[h] = (int32_t)id;
  }
  dlb_free(d->slots);
  d->slots = s;
  d->nslots = ns;
  return 1;
}

int dlb_dim_intern(dlb_graph *g, const pterm *t, size_t n) {
  dimtab *d = &g->dims;
  if (2 * (d->n + 1) > d->nslots && !rehash(d)) return oom();
  size_t h = hterms(t, n) & (d->nslots - 1);
  while (d->slots[h] >= 0) {
    if (sameterms(d, d->slots[h], t, n)) return d->slots[h];
    h = (h + 1) & (d->nslots - 1);
  }
  if (d->n == d->cap) { /* off and len share one capacity */
    size_t c = d->cap ? 2 * d->cap : 64;
    int32_t *o = dlb_realloc(d->off, c * sizeof *o);
    if (!o) return oom();
    d->off = o;
    int32_t *l = dlb_realloc(d->len, c * sizeof *l);
    if (!l) return oom();
    d->len = l;
    d->cap = c;
  }
  if (!GROW(d->terms, d->nterms, d->capterms, n)) return oom();
  memcpy(d->terms + d->nterms, t, n * sizeof *t);
  d->off[d->n] = (int32_t)d->nterms;
  d->len[d->n] = (int32_t)n;
  d->nterms += n;
  d->slots[h] = (int32_t)d->n;
  return (int)d->n++;
}

int dlb_dim_const(dlb_graph *g, double v) {
  pterm t = {0, v};
  return dlb_dim_intern(g, &t, v == 0 ? 0 : 1);
}

int dlb_dim_is_const(const dlb_graph *g, int d, double *v) {
  const dimtab *dt = &g->dims;
  int n = dt->len[d];
  if (n == 0) { *v = 0; return 1; }
  if (n == 1 && dt->terms[dt->off[d]].key == 0) { *v = dt->terms[dt->off[d]].c; return 1; }
  return 0;
}

/* The graph's index of variable name, added if new; <0 when the table is full. */
static int gvar(dlb_graph *g, const char *name) {
  for (int i = 0; i < g->nvars; i++)
    if (strcmp(g->vars[i], name) == 0) return i;
  if (g->nvars == DLB_POLY_MAXVARS)
    return dlb_fail(DLB_EINVAL, "graph '%s': more than %d dim names (adding '%s')",
                    g->str + g->name, DLB_POLY_MAXVARS, name);
  g->vars[g->nvars] = dlb_strdup(name);
  if (!g->vars[g->nvars]) return oom();
  return g->nvars++;
}

/* FNV-1a hash of a string. */
static uint64_t thash(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
  return h;
}

int dlb_dim_text(dlb_graph *g, const char *text) {
  textcache *c = &g->tcache;
  if (2 * (c->n + 1) > c->nslots) {
    size_t ns = c->nslots ? c->nslots * 2 : 64;
    int32_t *s = dlb_malloc(ns * sizeof *s), *id = dlb_malloc(ns * sizeof *id);
    if (!s || !id) { dlb_free(s); dlb_free(id); return oom(); }
    for (size_t i = 0; i < ns; i++) s[i] = -1;
    for (size_t i = 0; i < c->nslots; i++) {
      if (c->str[i] < 0) continue;
      size_t h = thash(g->str + c->str[i]) & (ns - 1);
      while (s[h] >= 0) h = (h + 1) & (ns - 1);
      s[h] = c->str[i];
      id[h] = c->id[i];
    }
    dlb_free(c->str);
    dlb_free(c->id);
    c->str = s;
    c->id = id;
    c->nslots = ns;
  }
  size_t h = thash(text) & (c->nslots - 1);
  while (c->str[h] >= 0) {
    if (strcmp(g->str + c->str[h], text) == 0) return c->id[h];
    h = (h + 1) & (c->nslots - 1);
  }
  dlb_poly *p = dlb_poly_parse(text);
  if (!p) return dlb_last_status();
  int map[DLB_POLY_MAXVARS];
  for (int i = 0; i < p->nvars; i++) {
    map[i] = gvar(g, p->names[i]);
    if (map[i] < 0) { dlb_poly_free(p); return map[i]; }
  }
  pterm tmp[64], *t = p->nterms <= 64 ? tmp : dlb_malloc((size_t)p->nterms * sizeof *t);
  if (!t) { dlb_poly_free(p); return oom(); }
  for (int i = 0; i < p->nterms; i++) {
    t[i].key = dlb_pkey_remap(p->t[i].key, p->nvars, map);
    t[i].c = p->t[i].c;
  }
  size_t n = dlb_pterms_normalize(t, (size_t)p->nterms);
  dlb_poly_free(p);
  int id = dlb_dim_intern(g, t, n);
  if (t != tmp) dlb_free(t);
  if (id < 0) return id;
  int32_t s = dlb_gstr(g, text);
  if (s < 0) return oom();
  c->str[h] = s;
  c->id[h] = id;
  c->n++;
  return id;
}

/* Intern a*b (mul) or a + sb*b; the id, or <0 with an error. Products and sums obey the
** polynomial bounds (dlb_pterms_mulcheck, dlb_pterms_sizecheck); the callers name the op
** and tensor (dlb_fail_context). */
static int dim_binop(dlb_graph *g, int a, int b, int mul, double sb) {
  const dimtab *d = &g->dims;
  size_t na = (size_t)d->len[a], nb = (size_t)d->len[b];
  if (mul && dlb_pterms_mulcheck(na, nb, "dim") != DLB_OK) return DLB_EINVAL;
  size_t cap = mul ? na * nb : na + nb;
  pterm tmp[64], *r = cap <= 64 ? tmp : dlb_malloc(cap * sizeof *r);
  if (!r) return oom();
  const pterm *ta = d->terms + d->off[a], *tb = d->terms + d->off[b];
  long n;
  if (mul) {
    n = dlb_pterms_mul(ta, na, tb, nb, r, "dim");
  } else {
    memcpy(r, ta, na * sizeof *r);
    for (size_t i = 0; i < nb; i++) r[na + i].key = tb[i].key, r[na + i].c = sb * tb[i].c;
    n = (long)dlb_pterms_normalize(r, na + nb);
    if (dlb_pterms_sizecheck((size_t)n, "dim", "sum") != DLB_OK) n = -1;
  }
  if (n < 0) {
    if (r != tmp) dlb_free(r);
    return DLB_EINVAL;
  }
  int id = dlb_dim_intern(g, r, (size_t)n);
  if (r != tmp) dlb_free(r);
  return id;
}

int dlb_dim_mul(dlb_graph *g, int a, int b) { return dim_binop(g, a, b, 1, 1); }
int dlb_dim_add(dlb_graph *g, int a, int b, double sb) { return dim_binop(g, a, b, 0, sb); }
int dlb_dim_scale(dlb_graph *g, int a, double c) {
  int k = dlb_dim_const(g, c);
  return k < 0 ? k : dlb_dim_mul(g, a, k);
}

size_t dlb_dim_print(const dlb_graph *g, int d, char *buf, size_t size) {
  return dlb_pterms_print(g->dims.terms + g->dims.off[d], (size_t)g->dims.len[d],
                      (const char *const *)g->vars, g->nvars, buf, size);
}

const char *dlb_shape_text(const dlb_graph *g, int t, char *buf, size_t size) {
  size_t len = 0;
  const tensor *x = &g->t[t];
  if (size < 4) { if (size) buf[0] = '\0'; return buf; }
  buf[len++] = '[';
  for (int i = 0; i < x->ndims && len + 2 < size; i++) {
    if (i) { buf[len++] = ','; if (len + 1 < size) buf[len++] = ' '; }
    size_t n = dlb_dim_print(g, x->dims[i], buf + len, size - len);
    len += n < size - len ? n : size - len - 1;
  }
  if (len + 1 < size) buf[len++] = ']';
  buf[len < size ? len : size - 1] = '\0';
  return buf;
}

const char *dlb_oname(const dlb_graph *g, int o, char *buf, size_t size) {
  const op *p = &g->o[o];
  static const char *const suffix[] = {"", "/grad", "/grad_a", "/grad_b", "/grad_w",
                                       "/accum", "/update", "/recompute", "/grad_x",
                                       "/reduce", "/zeros", "/reshape"};
  if (p->name >= 0 && p->fwd < 0) {
    snprintf(buf, size, "%s", g->str + p->name);
  } else if (p->fwd >= 0) {
    char b2[200];
    dlb_oname(g, p->fwd, b2, sizeof b2);
    const op *f = &g->o[p->fwd];
    int w = p->type == OP_UPDATE && p->nin > 0 ? op_in(g, p)[0] : -1, first = -1;
    for (int j = 0; w >= 0 && j < f->nin && first < 0; j++)
      if (g->t[op_in(g, f)[j]].role == DLB_ROLE_WEIGHT) first = op_in(g, f)[j];
    if (w >= 0 && first >= 0 && first != w) {
      /* a second weight of the same op (a norm's beta): "<op>/update_<weight's last part>" */
      char b3[128];
      dlb_tname(g, w, b3, sizeof b3);
      const char *base = strrchr(b3, '/');
      snprintf(buf, size, "%s/update_%s", b2, base ? base + 1 : b3);
    } else {
      snprintf(buf, size, "%s%s", b2, suffix[p->suffix < 12 ? p->suffix : 0]);
    }
  } else {
    snprintf(buf, size, "%s_%d", dlb_op_type_name(p->type), o);
  }
  return buf;
}

const char *dlb_tname(const dlb_graph *g, int t, char *buf, size_t size) {
  const tensor *x = &g->t[t];
  if (x->name >= 0) {
    snprintf(buf, size, "%s", g->str + x->name);
  } else if (x->producer >= 0) {
    char b2[200];
    dlb_oname(g, x->producer, b2, sizeof b2);
    if (x->grad_of >= 0 && g->o[x->producer].type == OP_ACCUM) {
      char b3[200];
      snprintf(buf, size, "d(%s)", dlb_tname(g, x->grad_of, b3, sizeof b3));
    } else {
      snprintf(buf, size, "%s:%d", b2, x->outidx);
    }
  } else if (x->grad_of >= 0) {
    char b3[200];
    snprintf(buf, size, "d(%s)", dlb_tname(g, x->grad_of, b3, sizeof b3));
  } else {
    snprintf(buf, size, "t%d", t);
  }
  return buf;
}

int dlb_new_tensor(dlb_graph *g, int32_t name, int ndims, const int32_t *dims, int dtype,
               int role) {
  int32_t d[DLB_GRAPH_MAXRANK]; /* dims may point into g->t, which may move */
  if (ndims) memcpy(d, dims, (size_t)ndims * sizeof *dims);
  dims = d;
  if (!GROW(g->t, g->nt, g->capt, 1)) return oom();
  tensor *x = &g->t[g->nt];
  memset(x, 0, sizeof *x);
  x->name = name;
  x->ndims = (uint8_t)ndims;
  if (ndims) memcpy(x->dims, dims, (size_t)ndims * sizeof *dims);
  x->dtype = (uint8_t)dtype;
  x->flags = dtype != DLB_DT_DEFAULT ? TF_DTYPE_SET : 0;
  x->role = (uint8_t)role;
  x->producer = -1;
  x->base = (int32_t)g->nt;
  x->layer = g->curlayer;
  x->grad_of = -1;
  g->version++;
  return (int)g->nt++;
}

int dlb_new_op(dlb_graph *g, int type, int32_t name, size_t nin, const int *inputs, int nout) {
  if (!GROW(g->o, g->no, g->capo, 1) || !GROW(g->args, g->nargs, g->capargs, nin + nout))
    return oom();
  op *p = &g->o[g->no];
  memset(p, 0, sizeof *p);
  p->type = (uint16_t)type;
  p->nin = (uint16_t)nin;
  p->in = (int32_t)g->nargs;
  for (size_t i = 0; i < nin; i++) g->args[g->nargs++] = inputs[i];
  p->out = (int32_t)g->nargs;
  for (int i = 0; i < nout; i++) g->args[g->nargs++] = -1;
  p->name = name;
  p->layer = g->curlayer;
  p->fwd = -1;
  p->extra = -1;
  g->version++;
  return (int)g->no++;
}

int dlb_add_output(dlb_graph *g, int o, int idx, int ndims, const int32_t *dims, int dtype,
               int role) {
  int t = dlb_new_tensor(g, -1, ndims, dims, dtype, role);
  if (t < 0) return t;
  g->t[t].producer = o;
  g->t[t].outidx = idx;
  g->t[t].layer = g->o[o].layer;
  g->args[g->o[o].out + idx] = t;
  if (idx >= g->o[o].nout) g->o[o].nout = (uint16_t)(idx + 1);
  return t;
}

int dlb_add_workspace(dlb_graph *g, int o, int ndims, const int32_t *dims, int dtype) {
  op *p = &g->o[o];
  if ((size_t)(p->out + p->nout) != g->nargs) /* the op's outputs must end the args pool */
    return dlb_fail(DLB_EINVAL, "graph: internal error: workspace of op %d added late", o);
  if (!GROW(g->args, g->nargs, g->capargs, 1)) return oom();
  g->args[g->nargs++] = -1;
  int t = dlb_add_output(g, o, g->o[o].nout, ndims, dims, dtype, DLB_ROLE_WORKSPACE);
  return t;
}

int dlb_graph_reserve(dlb_graph *g, size_t ops, size_t tensors, size_t args) {
  if (!GROW(g->o, g->no, g->capo, ops) || !GROW(g->t, g->nt, g->capt, tensors) ||
      !GROW(g->args, g->nargs, g->capargs, args))
    return oom();
  return DLB_OK;
}

int dlb_add_extra(dlb_graph *g, int o, size_t n, const int32_t *dims) {
  if (!GROW(g->args, g->nargs, g->capargs, n)) return oom();
  g->o[o].extra = (int32_t)g->nargs;
  g->o[o].nextra = (int32_t)n;
  memcpy(g->args + g->nargs, dims, n * sizeof *dims);
  g->nargs += n;
  return DLB_OK;
}

/* -- public -- */

dlb_graph *dlb_graph_new(const char *name) {
  dlb_graph *g = dlb_calloc(1, sizeof *g);
  if (!g) return dlb_fail_null(DLB_ENOMEM, "graph: out of memory");
  g->refs = 1;
  g->curlayer = -1;
  g->loss = -1;
  g->name = dlb_gstr(g, name ? name : "graph");
  if (g->name < 0 || dlb_dim_const(g, 1) < 0) {
    dlb_graph_release(g);
    return dlb_fail_null(DLB_ENOMEM, "graph: out of memory");
  }
  return g;
}

void dlb_graph_release(dlb_graph *g) {
  if (!g || --g->refs > 0) return;
  for (int i = 0; i < g->nvars; i++) dlb_free(g->vars[i]);
  for (size_t i = 0; i < g->nlayers; i++) dlb_free(g->layers[i]);
  dlb_free(g->layers);
  dlb_free(g->dims.off); dlb_free(g->dims.len); dlb_free(g->dims.terms); dlb_free(g->dims.slots);
  dlb_free(g->tcache.str); dlb_free(g->tcache.id);
  dlb_free(g->t); dlb_free(g->o); dlb_free(g->args); dlb_free(g->str);
  dlb_graph_release(g->step);
  dlb_free(g);
}

void dlb_graph_free(dlb_graph *g) { dlb_graph_release(g); }

const char *dlb_graph_name(const dlb_graph *g) { return g->str + g->name; }

/* A copy of n bytes of p in a new block of cap >= n bytes. */
static void *dup(const void *p, size_t n, size_t cap, int *ok) {
  if (!cap) return NULL;
  void *q = dlb_malloc(cap);
  if (!q) { *ok = 0; return NULL; }
  if (n) memcpy(q, p, n);
  return q;
}

dlb_graph *dlb_graph_clone(const dlb_graph *g, size_t ops, size_t tensors, size_t args) {
  dlb_graph *c = dlb_calloc(1, sizeof *c);
  if (!c) return dlb_fail_null(DLB_ENOMEM, "graph: out of memory");
  int ok = 1;
  *c = *g;
  c->refs = 1;
  c->step = NULL;
  c->tcache.str = c->tcache.id = NULL;
  c->tcache.nslots = c->tcache.n = 0;
  for (int i = 0; i < g->nvars; i++) c->vars[i] = dlb_strdup(g->vars[i]), ok &= !!c->vars[i];
  c->layers = dup(g->layers, g->nlayers * sizeof *g->layers, g->nlayers * sizeof *g->layers, &ok);
  for (size_t i = 0; ok && i < g->nlayers; i++) c->layers[i] = dlb_strdup(g->layers[i]), ok &= !!c->layers[i];
  c->caplayers = g->nlayers;
  c->dims.off = dup(g->dims.off, g->dims.n * sizeof(int32_t), g->dims.cap * sizeof(int32_t), &ok);
  c->dims.len = dup(g->dims.len, g->dims.n * sizeof(int32_t), g->dims.cap * sizeof(int32_t), &ok);
  c->dims.terms = dup(g->dims.terms, g->dims.nterms * sizeof(pterm), g->dims.capterms * sizeof(pterm), &ok);
  c->dims.slots = dup(g->dims.slots, g->dims.nslots * sizeof(int32_t), g->dims.nslots * sizeof(int32_t), &ok);
  c->capt = g->nt + tensors;
  c->capo = g->no + ops;
  c->capargs = g->nargs + args;
  c->t = dup(g->t, g->nt * sizeof *g->t, c->capt * sizeof *g->t, &ok);
  c->o = dup(g->o, g->no * sizeof *g->o, c->capo * sizeof *g->o, &ok);
  c->args = dup(g->args, g->nargs * sizeof *g->args, c->capargs * sizeof *g->args, &ok);
  c->str = dup(g->str, g->nstr, g->capstr, &ok);
  if (!ok) {
    if (!c->layers) c->nlayers = 0;
    dlb_graph_release(c);
    return dlb_fail_null(DLB_ENOMEM, "graph: out of memory");
  }
  return c;
}

static const char *const dtnames[] = {"default", "fp32", "fp16", "bf16", "fp8", "int8",
                                      "int32", "int64", "fp64", "nf4", "int4"};

int dlb_graph_tensor(dlb_graph *g, const char *name, int role, int dtype, size_t ndims,
                     const char *const *dims, int *id) {
  if (!name || !*name) return dlb_fail(DLB_EINVAL, "graph '%s': a tensor needs a name", g->str + g->name);
  /* names are read back through 512-byte buffers: a longer one is an error, not cut */
  if (strlen(name) > 511)
    return dlb_fail(DLB_EINVAL, "tensor '%.40s...': a name of %zu bytes (at most 511)", name,
                    strlen(name));
  if (role < DLB_ROLE_INPUT || role > DLB_ROLE_WORKSPACE)
    return dlb_fail(DLB_EINVAL, "tensor '%s': unknown role %d", name, role);
  if (dtype < 0 || dtype >= DLB_DT_COUNT)
    return dlb_fail(DLB_EINVAL, "tensor '%s': unknown dtype %d", name, dtype);
  if (ndims > DLB_GRAPH_MAXRANK)
    return dlb_fail(DLB_EINVAL, "tensor '%s': rank %zu exceeds %d", name, ndims, DLB_GRAPH_MAXRANK);
  int32_t d[DLB_GRAPH_MAXRANK];
  for (size_t i = 0; i < ndims; i++) {
    int x = dlb_dim_text(g, dims[i]);
    if (x < 0) {
      char msg[512]; /* the message buffer is the destination too */
      snprintf(msg, sizeof msg, "%s", dlb_last_error());
      return dlb_fail(dlb_last_status(), "tensor '%s' dim %zu: %s", name, i + 1, msg);
    }
    double v;
    if (dlb_dim_is_const(g, x, &v) && (v < 1 || v != floor(v)))
      return dlb_fail(DLB_ESHAPE, "tensor '%s' dim %zu: %s is not a positive integer", name, i + 1, dims[i]);
    d[i] = x;
  }
  int32_t s = dlb_gstr(g, name);
  if (s < 0) return oom();
  int t = dlb_new_tensor(g, s, (int)ndims, d, dtype, role);
  if (t < 0) return t;
  *id = t;
  return DLB_OK;
}

int dlb_graph_set_loss(dlb_graph *g, int t) {
  if (t < 0 || (size_t)t >= g->nt) return dlb_fail(DLB_EINVAL, "loss: no tensor %d", t);
  if (g->t[t].producer < 0) {
    static const char *const roles[] = {"input", "label", "weight", "activation", "gradient",
                                        "optimizer", "workspace"};
    int r = g->t[t].role;
    char n[128];
    return dlb_fail(DLB_EINVAL, "g:loss: tensor '%s' of graph '%s' (role %s) is not the output of any op; "
                    "the loss must be the output of an op (e.g. g:sum(t), g:softmax_xent(...))",
                    dlb_tname(g, t, n, sizeof n), g->str + g->name,
                    r >= 0 && r < 7 ? roles[r] : "tensor");
  }
  g->loss = t;
  g->version++;
  return DLB_OK;
}

int dlb_graph_layer(dlb_graph *g, const char *name) {
  if (!name) { g->curlayer = -1; return DLB_OK; }
  for (size_t i = 0; i < g->nlayers; i++)
    if (strcmp(g->layers[i], name) == 0) { g->curlayer = (int32_t)i; return DLB_OK; }
  if (!GROW(g->layers, g->nlayers, g->caplayers, 1)) return oom();
  g->layers[g->nlayers] = dlb_strdup(name);
  if (!g->layers[g->nlayers]) return oom();
  g->curlayer = (int32_t)g->nlayers++;
  g->version++; /* a new layer (the totals' nlayers), not a change of the current one */
  return DLB_OK;
}

/* Set (on) or clear a training flag of weight t; what names the caller in messages. */
static int weight_flag(dlb_graph *g, int t, uint8_t flag, int on, const char *what) {
  if (!g) return dlb_fail(DLB_EINVAL, "%s: NULL graph", what);
  if (t < 0 || (size_t)t >= g->nt) return dlb_fail(DLB_EINVAL, "%s: no tensor %d", what, t);
  if (g->t[t].role != DLB_ROLE_WEIGHT)
    return dlb_fail(DLB_EINVAL, "%s: tensor %d is not a weight", what, t);
  uint8_t old = g->t[t].flags;
  if (on) g->t[t].flags |= flag;
  else g->t[t].flags &= (uint8_t)~flag;
  if (g->t[t].flags != old) g->version++; /* the cached step is stale only on a change */
  return DLB_OK;
}

int dlb_graph_freeze(dlb_graph *g, int t, int frozen) {
  return weight_flag(g, t, TF_FROZEN, frozen, "freeze");
}

int dlb_graph_own_type(dlb_graph *g, int t, int own) {
  return weight_flag(g, t, TF_OWNTYPE, own, "own type");
}


int dlb_graph_set_dtype(dlb_graph *g, int t, int dtype) {
  if (!g) return dlb_fail(DLB_EINVAL, "set dtype: NULL graph");
  if (t < 0 || (size_t)t >= g->nt) return dlb_fail(DLB_EINVAL, "set dtype: no tensor %d", t);
  char nm[512];
  dlb_tname(g, t, nm, sizeof nm);
  if (g->t[t].role != DLB_ROLE_WEIGHT)
    return dlb_fail(DLB_EINVAL, "set dtype: tensor '%s' is not a weight", nm);
  if (dtype < 0 || dtype >= DLB_DT_COUNT || dtype == DLB_DT_INT32 || dtype == DLB_DT_INT64)
    return dlb_fail(DLB_EINVAL, "set dtype: weight '%s': %d is not a weight storage type", nm,
                    dtype);
  uint8_t flags = dtype == DLB_DT_DEFAULT ? (uint8_t)(g->t[t].flags & ~TF_DTYPE_SET)
                                          : (uint8_t)(g->t[t].flags | TF_DTYPE_SET);
  if (flags != g->t[t].flags || g->t[t].dtype != dtype) g->version++; /* the step is stale */
  g->t[t].flags = flags;
  g->t[t].dtype = (uint8_t)dtype;
  return DLB_OK;
}

int dlb_graph_checkpoint(dlb_graph *g, int t) {
  if (t < 0 || (size_t)t >= g->nt) return dlb_fail(DLB_EINVAL, "checkpoint: no tensor %d", t);
  if (!(g->t[t].flags & TF_CHECKPOINT)) g->version++; /* the cached step is stale on a change */
  g->t[t].flags |= TF_CHECKPOINT;
  return DLB_OK;
}

size_t dlb_graph_generation(const dlb_graph *g) { return g ? g->version : 0; }

size_t dlb_graph_ntensors(const dlb_graph *g) { return g->nt; }
size_t dlb_graph_nops(const dlb_graph *g) { return g->no; }

int dlb_graph_tensor_info(const dlb_graph *g, int t, int *ndims, int *dtype, int *role,
                          int *producer) {
  if (t < 0 || (size_t)t >= g->nt) return dlb_fail(DLB_EINVAL, "graph: no tensor %d", t);
  *ndims = g->t[t].ndims;
  *dtype = g->t[t].dtype;
  *role = g->t[t].role;
  *producer = g->t[t].producer;
  return DLB_OK;
}

size_t dlb_graph_tensor_name(const dlb_graph *g, int t, char *buf, size_t size) {
  if (t < 0 || (size_t)t >= g->nt) { if (size) buf[0] = '\0'; return 0; }
  char tmp[512];
  dlb_tname(g, t, tmp, sizeof tmp);
  if (size) snprintf(buf, size, "%s", tmp);
  return strlen(tmp);
}

size_t dlb_graph_nvars(const dlb_graph *g) { return g ? (size_t)g->nvars : 0; }

size_t dlb_graph_varname(const dlb_graph *g, size_t i, char *buf, size_t size) {
  if (!g || i >= (size_t)g->nvars) { if (size) buf[0] = '\0'; return 0; }
  if (size) snprintf(buf, size, "%s", g->vars[i]);
  return strlen(g->vars[i]);
}

size_t dlb_graph_tensor_dim(const dlb_graph *g, int t, int i, char *buf, size_t size) {
  if (t < 0 || (size_t)t >= g->nt || i < 0 || i >= g->t[t].ndims) {
    if (size) buf[0] = '\0';
    return 0;
  }
  return dlb_dim_print(g, g->t[t].dims[i], buf, size);
}

const char *dlb_dtype_name(int dt) { return dt >= 0 && dt < DLB_DT_COUNT ? dtnames[dt] : "?"; }
