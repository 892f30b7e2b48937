/*
** graph_repeat.c — a built layer copied as the next layer (dlb_graph_repeat): the tensors and
** ops one layer's builder made, appended again in the same order under the next layer's
** name, so that a model of L identical blocks runs its builder once and not L times. The
** copy is the graph the builder would have made: the same tensor and op ids, fields, dims
** and names (the layer name `from` replaced by `to` where a name starts with it).
*/
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

/* Does name start with the layer name `from` (followed by '/' or its end)? */
static int under(const char *name, const char *from, size_t lf) {
  return strncmp(name, from, lf) == 0 && (name[lf] == '/' || name[lf] == '\0');
}

/* The copy's name of a name under `from`: `to` + the rest, interned; -1 stays -1. */
static int32_t rename_str(dlb_graph *g, int32_t name, size_t lf, const char *to) {
  if (name < 0) return -1;
  const char *rest = g->str + name + lf;
  size_t lt = strlen(to), lr = strlen(rest);
  char small[512], *buf = lt + lr < sizeof small ? small : dlb_malloc(lt + lr + 1);
  if (!buf) return -2;
  memcpy(buf, to, lt);
  memcpy(buf + lt, rest, lr + 1);
  int32_t at = dlb_gstr(g, buf);
  if (buf != small) dlb_free(buf);
  return at < 0 ? -2 : at;
}

/* Copy one layer; see dlb_graph.h. */
int dlb_graph_repeat(dlb_graph *g, size_t op0, size_t t0, int xin, int xout, const char *from,
                     const char *to, int *out) {
  if (!g || !from || !to || !out) return dlb_fail(DLB_EINVAL, "graph repeat: NULL argument");
  *out = -1;
  size_t no = g->no, nt = g->nt;
  if (op0 >= no || t0 > nt || xin < 0 || (size_t)xin >= t0 || xout < (int)t0 || (size_t)xout >= nt)
    return dlb_fail(DLB_EINVAL, "graph repeat: ops from %zu and tensors from %zu of a graph "
                    "of %zu ops and %zu tensors, input %d and output %d: not one built layer",
                    op0, t0, no, nt, xin, xout);
  /* the layer's ops and tensors must all belong to layer `from` and be named under it (or
  ** auto-named): else the copy is not what the builder makes, and the graph is left as is */
  int32_t lfrom = -1;
  for (size_t i = 0; i < g->nlayers; i++) if (strcmp(g->layers[i], from) == 0) lfrom = (int32_t)i;
  size_t lf = strlen(from);
  if (lfrom < 0 || g->curlayer < 0 || g->curlayer == lfrom || strcmp(g->layers[g->curlayer], to))
    return DLB_OK;
  for (size_t t = t0; t < nt; t++) {
    const tensor *x = &g->t[t];
    if ((size_t)x->base < t0 && x->base != g->t[xin].base) return DLB_OK; /* aliases another */
    if (x->layer != lfrom || x->grad_of >= 0 || (x->name >= 0 && !under(g->str + x->name, from, lf)) ||
        (x->producer >= 0 && (size_t)x->producer < op0) || (x->producer < 0 && x->role != DLB_ROLE_WEIGHT &&
        x->role != DLB_ROLE_ACTIVATION))
      return DLB_OK;
  }
  for (size_t o = op0; o < no; o++) {
    const op *p = &g->o[o];
    if (p->layer != lfrom || p->fwd >= 0 || p->suffix || (p->name >= 0 && !under(g->str + p->name, from, lf)))
      return DLB_OK;
    for (int j = 0; j < p->nin; j++) {
      int t = g->args[p->in + j];
      if ((size_t)t < t0 && t != xin) return DLB_OK;   /* reads a tensor from before the layer */
    }
    for (int j = 0; j < p->nout; j++)
      if ((size_t)g->args[p->out + j] < t0) return DLB_OK; /* the marks are not one layer's */
  }
  size_t dt = nt - t0, dop = no - op0, nargs = 0;
  for (size_t o = op0; o < no; o++)
    nargs += (size_t)g->o[o].nin + g->o[o].nout + (g->o[o].extra >= 0 ? (size_t)g->o[o].nextra : 0);
  if (!GROW(g->t, g->nt, g->capt, dt) || !GROW(g->o, g->no, g->capo, dop) ||
      !GROW(g->args, g->nargs, g->capargs, nargs))
    return dlb_fail(DLB_ENOMEM, "graph: out of memory");
  const int32_t layer = g->curlayer;
  const int32_t tshift = (int32_t)dt, oshift = (int32_t)dop;
  for (size_t t = t0; t < nt; t++) {
    tensor x = g->t[t];
    int32_t nm = rename_str(g, x.name, lf, to);
    if (nm == -2) return dlb_fail(DLB_ENOMEM, "graph: out of memory");
    x.name = nm;
    if (x.producer >= 0) x.producer += oshift;
    x.base = (size_t)x.base >= t0 ? x.base + tshift : g->t[xout].base; /* a view of the input */
    x.layer = layer;
    g->t[g->nt++] = x;
  }
  for (size_t o = op0; o < no; o++) {
    op p = g->o[o];
    int32_t nm = rename_str(g, p.name, lf, to);
    if (nm == -2) return dlb_fail(DLB_ENOMEM, "graph: out of memory");
    p.name = nm;
    p.layer = layer;
    int32_t in = (int32_t)g->nargs;
    for (int j = 0; j < p.nin; j++) {
      int t = g->args[p.in + j];
      g->args[g->nargs++] = t == xin ? (int32_t)xout : t + tshift;
    }
    int32_t outs = (int32_t)g->nargs;
    for (int j = 0; j < p.nout; j++) g->args[g->nargs++] = g->args[p.out + j] + tshift;
    if (p.extra >= 0) {
      int32_t ex = (int32_t)g->nargs;
      for (int j = 0; j < p.nextra; j++) g->args[g->nargs++] = g->args[p.extra + j];
      p.extra = ex;
    }
    p.in = in, p.out = outs;
    g->o[g->no++] = p;
  }
  g->version++;
  *out = xout + tshift;
  return DLB_OK;
}
