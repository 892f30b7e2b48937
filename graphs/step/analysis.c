/*
** analysis.c — numeric analysis of a training step (all dims bound): per-op FLOPs,
** bytes, phases, layers, GEMM shapes; totals; footprint over the schedules tried.
** The symbolic (polynomial) totals are in analysis_sym.c.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

enum { EXACT_AUTO = 16 }; /* steps up to this many ops get the exact footprint */

struct dlb_analysis {
  dlb_graph *s;          /* the analysed step (a reference) */
  size_t nops;
  double *flops, *bytes, *size;
  double *dimval, *numel;  /* for GEMM shapes on demand */
  double *lay;             /* 6 per layer: see dlb_analysis_layer */
  int *phase, *layer, *type, *order;
  int *placed;             /* the layer that holds each op's work (dlb_op_layer) */
  int *kernel;             /* DLB_KERNEL_* per op, set by the fusion passes */
  double *more;            /* 2 per op: further host ops and kernels, set by the fusion passes */
  int peak_op;             /* the op running at the footprint's peak (-1: none) */
  int *gemm_with;          /* 3 per op: a fused GEMM's partners and summed dim (dlb_fuse_step) */
  dlb_totals tot;
};

/* Bytes per element of tensor t under a precision policy. */
double dlb_tensor_esize(const dlb_graph *s, int t, int precision);
double dlb_tensor_esize(const dlb_graph *s, int t, int precision) {
  const tensor *x = &s->t[t];
  if (x->flags & TF_DTYPE_SET) return dlb_dtype_size(x->dtype);
  return dlb_policy_esize(precision);
}

/* Bytes per element of a floating-point tensor of the default type under a policy. */
double dlb_policy_esize(int precision) {
  switch (precision) {
  case DLB_POLICY_FP16: case DLB_POLICY_BF16: case DLB_POLICY_MIXED: case DLB_POLICY_MIXED_BF16:
    return 2;
  case DLB_POLICY_FP8: return 1;
  default: return 4; /* fp32, tf32 */
  }
}

/* Whether a policy keeps fp32 master weights and optimizer state (mixed precision). */
int dlb_policy_mixed(int precision) {
  return precision == DLB_POLICY_MIXED || precision == DLB_POLICY_MIXED_BF16 ||
         precision == DLB_POLICY_FP8;
}

int dlb_check_opts(const dlb_train_opts *o);
int dlb_check_opts(const dlb_train_opts *o) {
  if (o->optimizer < DLB_OPT_SGD || o->optimizer > DLB_OPT_ADAM8BIT)
    return dlb_fail(DLB_EINVAL, "graph: unknown optimizer %d", o->optimizer);
  if (o->precision < DLB_POLICY_FP32 || o->precision > DLB_POLICY_TF32)
    return dlb_fail(DLB_EINVAL, "graph: unknown precision %d", o->precision);
  if (o->recompute < DLB_RECOMPUTE_NONE || o->recompute > DLB_RECOMPUTE_MARKED)
    return dlb_fail(DLB_EINVAL, "graph: unknown recompute policy %d", o->recompute);
  if (o->fuse < 0 || o->fuse > DLB_FUSE_BITS)
    return dlb_fail(DLB_EINVAL, "graph: fuse must be a set of DLB_FUSE_* bits (0..%d), got %d",
                    DLB_FUSE_BITS, o->fuse);
  if (o->norm_upcast != 0 && o->norm_upcast != 1)
    return dlb_fail(DLB_EINVAL, "graph: norm_upcast must be 0 or 1, got %d", o->norm_upcast);
  if ((o->fuse & DLB_FUSE_OPT_FOREACH) && (o->fuse & DLB_FUSE_OPT_LOOP))
    return dlb_fail(DLB_EINVAL, "graph: fuse: the optimizer is either foreach (DLB_FUSE_OPT_FOREACH)"
                    " or a per-parameter loop (DLB_FUSE_OPT_LOOP), not both");
  return DLB_OK;
}

/* The training step of g for o (cached on g); a new reference the caller releases. */
dlb_graph *dlb_graph_step(dlb_graph *g, const dlb_train_opts *o);
dlb_graph *dlb_graph_step(dlb_graph *g, const dlb_train_opts *o) {
  if (dlb_check_opts(o)) return NULL;
  int mixed = dlb_policy_mixed(o->precision);
  const dlb_train_opts *c = &g->stepopts;
  int k = o->recompute == DLB_RECOMPUTE_LAYERS ? o->recompute_k : 0;
  int ck = c->recompute == DLB_RECOMPUTE_LAYERS ? c->recompute_k : 0;
  int inf = !!o->inference;
  if (!(g->step && g->stepversion == g->version && !!c->inference == inf &&
        (inf || (c->optimizer == o->optimizer && c->recompute == o->recompute && ck == k &&
                 g->step->mixed == mixed && !!c->norm_upcast == !!o->norm_upcast &&
                 /* the upcast copies depend on the activations' type */
                 (!o->norm_upcast || c->precision == o->precision))))) {
    dlb_graph *s = dlb_train_expand(g, o);
    if (!s) return NULL;
    dlb_graph_release(g->step);
    g->step = s;
    g->stepopts = *o;
    g->stepversion = g->version;
  }
  g->step->refs++;
  return g->step;
}

/* Bit v set when dim d uses variable v (a term key holds variable v's exponent in bits
** 4v..4v+3). */
static uint64_t dim_vars(const dlb_graph *g, int32_t d) {
  uint64_t m = 0;
  if (d < 0 || (size_t)d >= g->dims.n) return 0;
  const pterm *t = g->dims.terms + g->dims.off[d];
  for (int32_t i = 0; i < g->dims.len[d]; i++)
    for (int v = 0; v < g->nvars; v++)
      if (t[i].key >> (4 * v) & 15) m |= (uint64_t)1 << v;
  return m;
}

/* Values of the graph's variables from names/values; DLB_EUNBOUND lists the missing. */
int dlb_bind_vars(const dlb_graph *s, size_t nb, const char *const *names, const double *values,
              double *vals, int *bound, const char *what);
int dlb_bind_vars(const dlb_graph *s, size_t nb, const char *const *names, const double *values,
              double *vals, int *bound, const char *what) {
  char missing[300] = "";
  size_t len = 0;
  for (int v = 0; v < s->nvars; v++) {
    bound[v] = 0;
    vals[v] = 0;
    for (size_t j = 0; j < nb; j++)
      if (names[j] && strcmp(names[j], s->vars[v]) == 0) {
        vals[v] = values[j];
        bound[v] = 1;
      }
    if (!bound[v] && what && len < sizeof missing - 70)
      len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "", s->vars[v]);
  }
  if (len && what) {
    /* Only variables the graph's tensors and ops use need a value: a tensor or op whose
    ** creation failed may have registered a variable that nothing uses (it stays in the
    ** variable table, which the interned dims index, so it is not removed there). Checked
    ** only here, on the way to an error. */
    uint64_t used = 0;
    for (size_t t = 0; t < s->nt; t++)
      for (int i = 0; i < s->t[t].ndims; i++) used |= dim_vars(s, s->t[t].dims[i]);
    for (size_t o = 0; o < s->no; o++)
      for (int i = 0; i < s->o[o].nextra && s->o[o].extra >= 0; i++)
        used |= dim_vars(s, s->args[s->o[o].extra + i]);
    len = 0;
    missing[0] = '\0';
    for (int v = 0; v < s->nvars; v++) {
      if (bound[v]) continue;
      if (!(used >> v & 1)) { bound[v] = 1, vals[v] = 1; continue; } /* unused: any value */
      if (len < sizeof missing - 70)
        len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "", s->vars[v]);
    }
  }
  if (len)
    return dlb_fail(DLB_EUNBOUND, "graph '%s': %s needs every dim bound; no value for %s",
                    s->str + s->name, what, missing);
  return DLB_OK;
}

/* Bindings are dims: each value must be a positive integer (the error names the binding). */
int dlb_check_bindings(const dlb_graph *g, size_t nb, const char *const *names, const double *values);
int dlb_check_bindings(const dlb_graph *g, size_t nb, const char *const *names, const double *values) {
  for (size_t j = 0; j < nb; j++) {
    if (!(isfinite(values[j]) && values[j] >= 1 && values[j] == floor(values[j])))
      return dlb_fail(DLB_EINVAL, "graph '%s': binding %s = %.17g must be a positive integer "
                      "(it is a dim)", g->str + g->name, names[j] ? names[j] : "?", values[j]);
    /* a name the graph has no dim of would bind nothing: the numbers at the graph's own sizes
    ** under a binding that looked applied (g:stats{b = 8} on a graph of 'batch') */
    int found = 0;
    for (int v = 0; v < g->nvars && !found; v++) found = names[j] && strcmp(names[j], g->vars[v]) == 0;
    if (!found) {
      char dims[400] = "";
      size_t len = 0;
      for (int v = 0; v < g->nvars && len < sizeof dims - 80; v++)
        len += (size_t)snprintf(dims + len, sizeof dims - len, "%s%s", v ? ", " : "", g->vars[v]);
      if (len >= sizeof dims - 80) snprintf(dims + len, sizeof dims - len, ", ...");
      return dlb_fail(DLB_EINVAL, "graph '%s': no dim '%s' to bind (the graph's dims: %s)",
                      g->str + g->name, names[j] ? names[j] : "?",
                      g->nvars ? dims : "none, every size is a number");
    }
  }
  return DLB_OK;
}

/* Every dim a tensor of s uses must evaluate to a positive integer once bound: dimval[d]
** holds dim d's value where known[d] (known NULL: every dim). Values within 1e-9 of an
** integer are snapped to it. The error names the tensor, the dim's expression and value.
** The dims table is scanned first; tensors only on the way to an error. */
int dlb_check_dimvals(const dlb_graph *s, double *dimval, const uint8_t *known);
int dlb_check_dimvals(const dlb_graph *s, double *dimval, const uint8_t *known) {
  int bad = 0;
  /* the dims that fail, flagged (a table may hold dims no tensor uses, e.g. intermediate
  ** expressions, so a failing dim is not yet an error); a known dim fails here exactly
  ** when its value is not a positive integer below (an integer >= 1 is its own snap) */
  uint8_t *fails = NULL;
  for (size_t d = 0; d < s->dims.n; d++) {
    if (known && !known[d]) continue;
    double v = dimval[d];
    /* most dims: a whole number already (its own snap; cheaper than the test below) */
    if (v >= 1 && v < 4503599627370496.0 && v == (double)(int64_t)v) continue;  /* < 2^52 */
    double r = floor(v + 0.5);
    if (isfinite(v) && r >= 1 && fabs(v - r) <= 1e-9 * r) { dimval[d] = r; continue; }
    if (!bad) fails = dlb_calloc(s->dims.n, 1);
    bad = 1;
    if (fails) fails[d] = 1;
  }
  if (!bad) return DLB_OK;
  for (size_t t = 0; t < s->nt; t++)
    for (int i = 0; i < s->t[t].ndims; i++) {
      int32_t d = s->t[t].dims[i];
      if (d < 0 || (size_t)d >= s->dims.n || (known && !known[d])) continue;
      if (fails && !fails[d]) continue;
      double v = dimval[d];
      if (isfinite(v) && v >= 1 && v == floor(v)) continue;
      dlb_free(fails);
      char n[128], e[200];
      dlb_tname(s, (int)t, n, sizeof n);
      dlb_dim_print(s, d, e, sizeof e);
      return dlb_fail(DLB_EINVAL, "graph '%s': tensor '%s' dim %d = %s evaluates to %.17g under "
                      "these bindings; a dim must be a positive integer", s->str + s->name, n,
                      i + 1, e, v);
    }
  dlb_free(fails);
  return DLB_OK;
}

/* Evaluate a cost expression with numeric dims and element counts. */
static double ceval(const cexpr *e, const double *dimval, const double *numel) {
  double s = 0;
  for (int i = 0; i < e->n; i++) {
    double m = e->t[i].c;
    for (int j = 0; j < e->t[i].nf; j++) {
      int32_t f = e->t[i].f[j];
      m *= f >= 0 ? dimval[f] : numel[-f - 1];
    }
    s += m;
  }
  return s;
}

typedef struct bctx { const double *size; double sum; } bctx;

/* dlb_op_bytes callback: add mult * bytes of tensor t. */
static void addbytes(void *c, int t, double mult) {
  bctx *b = c;
  b->sum += mult * b->size[t];
}

/* Per-layer costs: FLOPs by phase from the ops; parameters and weight bytes of each weight
** (in the layer of dlb_weight_layer: its own scope, else its first consumer's, ...; where its
** update op is); activations produced by a forward op of one layer and read by a forward op
** of another. O(ops + uses). */
static int layer_costs(dlb_analysis *a, const double *numel) {
  const dlb_graph *s = a->s;
  size_t L = s->nlayers;
  a->lay = dlb_calloc(6 * L, sizeof *a->lay);
  uint8_t *sent = dlb_calloc(s->nt + 1, 1);
  uint8_t *placed = dlb_calloc(s->nt + 1, 1);
  if (!a->lay || !sent || !placed) {
    dlb_free(sent); dlb_free(placed);
    return dlb_fail(DLB_ENOMEM, "graph: out of memory");
  }
  for (size_t i = 0; i < a->nops; i++) {
    int l = a->layer[i];
    if (l < 0) continue;
    double *d = a->lay + 6 * l;
    if (a->phase[i] == DLB_PHASE_FWD) d[1] += a->flops[i];
    else if (a->phase[i] == DLB_PHASE_UPDATE) d[3] += a->flops[i];
    else d[2] += a->flops[i];
  }
  for (int i = 0; i < s->nfwd; i++) {
    const op *p = &s->o[i];
    for (int j = 0; j < p->nin; j++) {
      int t = op_in(s, p)[j];
      const tensor *x = &s->t[t];
      if (x->role == DLB_ROLE_WEIGHT && !placed[t]) {
        int l = dlb_weight_layer(s, t, i);
        placed[t] = 1;
        if (l >= 0) a->lay[6 * l] += numel[t], a->lay[6 * l + 5] += a->size[t];
      }
      int pr = x->producer;
      if (pr >= 0 && pr < s->nfwd && !sent[t] && s->o[pr].layer >= 0 && s->o[pr].layer != p->layer) {
        sent[t] = 1;
        a->lay[6 * s->o[pr].layer + 4] += a->size[s->t[t].base];
      }
    }
  }
  dlb_free(sent); dlb_free(placed);
  return DLB_OK;
}

void dlb_analysis_free(dlb_analysis *a) {
  if (!a) return;
  dlb_graph_release(a->s);
  dlb_free(a->flops); dlb_free(a->bytes); dlb_free(a->size); dlb_free(a->dimval); dlb_free(a->numel); dlb_free(a->lay);
  dlb_free(a->phase); dlb_free(a->layer); dlb_free(a->type); dlb_free(a->order);
  dlb_free(a->kernel); dlb_free(a->more); dlb_free(a->placed); dlb_free(a->gemm_with);
  dlb_free(a);
}

dlb_analysis *dlb_graph_analyze(dlb_graph *g, const dlb_train_opts *o, size_t nb,
                                const char *const *names, const double *values) {
  double vals[DLB_POLY_MAXVARS];
  int bound[DLB_POLY_MAXVARS];
  if (dlb_check_bindings(g, nb, names, values)) return NULL;
  if (dlb_bind_vars(g, nb, names, values, vals, bound, "the numeric analysis (footprint)")) return NULL;
  dlb_graph *s = dlb_graph_step(g, o);
  if (!s) return NULL;
  dlb_analysis *a = dlb_calloc(1, sizeof *a);
  size_t no = s->no, nt = s->nt;
  double *dimval = dlb_malloc((s->dims.n + 1) * sizeof *dimval);
  double *numel = dlb_malloc((nt + 1) * sizeof *numel);
  if (a) {
    a->s = s;
    a->nops = no;
    a->flops = dlb_malloc((no + 1) * sizeof *a->flops);
    a->bytes = dlb_malloc((no + 1) * sizeof *a->bytes);
    a->size = dlb_malloc((nt + 1) * sizeof *a->size);
    a->phase = dlb_malloc((no + 1) * sizeof *a->phase);
    a->layer = dlb_malloc((no + 1) * sizeof *a->layer);
    a->type = dlb_malloc((no + 1) * sizeof *a->type);
    a->order = dlb_malloc((no + 1) * sizeof *a->order);
    a->kernel = dlb_calloc(no + 1, sizeof *a->kernel);
    a->more = dlb_calloc(2 * no + 1, sizeof *a->more);
    a->placed = dlb_malloc((no + 1) * sizeof *a->placed);
  }
  if (!a || !dimval || !numel || !a->flops || !a->bytes ||
      !a->size || !a->phase || !a->layer || !a->type || !a->order || !a->kernel ||
      !a->more || !a->placed) {
    if (a) dlb_analysis_free(a); else dlb_graph_release(s);
    dlb_free(dimval); dlb_free(numel);
    return dlb_fail_null(DLB_ENOMEM, "graph: out of memory");
  }
  for (size_t d = 0; d < s->dims.n; d++)
    dimval[d] = dlb_pterms_eval(s->dims.terms + s->dims.off[d], (size_t)s->dims.len[d], vals);
  if (dlb_check_dimvals(s, dimval, NULL)) {
    dlb_analysis_free(a);
    dlb_free(dimval); dlb_free(numel);
    return NULL;
  }
  dlb_totals *T = &a->tot;
  double esz[DLB_DT_COUNT]; /* element size by declared dtype (DEFAULT: the policy's) */
  for (int d = 0; d < DLB_DT_COUNT; d++) esz[d] = dlb_dtype_size(d);
  esz[DLB_DT_DEFAULT] = dlb_policy_esize(o->precision);
  /* io: the bytes of inputs and labels the forward graph reads (marked first, so that the
  ** tensor records are streamed through once: this pass is memory-bound) */
  uint8_t *read = dlb_calloc(nt + 1, 1);
  if (!read) {
    dlb_analysis_free(a);
    dlb_free(dimval); dlb_free(numel);
    return dlb_fail_null(DLB_ENOMEM, "graph: out of memory");
  }
  for (int i = 0; i < s->nfwd; i++)
    for (int j = 0; j < s->o[i].nin; j++) read[op_in(s, &s->o[i])[j]] = 1;
  for (size_t t = 0; t < nt; t++) {
    const tensor *x = &s->t[t];
    double n = 1;
    for (int i = 0; i < x->ndims; i++) n *= dimval[x->dims[i]];
    numel[t] = n;
    a->size[t] = n * esz[x->flags & TF_DTYPE_SET ? x->dtype : DLB_DT_DEFAULT];
    if (x->role == DLB_ROLE_WEIGHT) {
      T->params += n;
      if (!(x->flags & TF_FROZEN)) T->trainable += n;
    }
    else if (x->role == DLB_ROLE_OPTSTATE && !(x->flags & TF_MASTER)) T->opt_states += a->size[t];
    else if (read[t] && (x->role == DLB_ROLE_INPUT || x->role == DLB_ROLE_LABEL)) T->io += a->size[t];
  }
  dlb_free(read);
  cexpr e;
  for (size_t i = 0; i < no; i++) {
    const op *p = &s->o[i];
    dlb_op_flops(s, (int)i, &e);
    double f = ceval(&e, dimval, numel);
    bctx b = {a->size, 0};
    cexpr given;
    if (dlb_op_bytes_given(s, (int)i, &given)) b.sum = ceval(&given, dimval, numel);
    else dlb_op_bytes(s, (int)i, addbytes, &b);
    if (p->type == OP_KERNEL && p->attr[0]) a->kernel[i] = DLB_KERNEL_ATTENTION;
    a->flops[i] = f;
    a->bytes[i] = b.sum;
    a->phase[i] = p->phase;
    a->layer[i] = p->layer;
    a->placed[i] = dlb_op_layer(s, (int)i, a->placed);
    a->type[i] = p->type;
    switch (p->phase) {
    case DLB_PHASE_FWD: T->flops_fwd += f; break;
    case DLB_PHASE_BWD: T->flops_bwd += f; break;
    case DLB_PHASE_UPDATE: T->flops_update += f; break;
    default: T->flops_recompute += f; break;
    }
    T->bytes += b.sum;
  }
  if (o->fuse && !o->inference) {
    /* fusion passes: costs move into the fused kernels, unwritten tensors take no bytes */
    double rc = 0;
    a->gemm_with = dlb_malloc((3 * no + 1) * sizeof *a->gemm_with);
    if (!a->gemm_with) dlb_fail(DLB_ENOMEM, "analysis: out of memory");
    if (!a->gemm_with || dlb_fuse_step(s, o->fuse, o->precision, a->flops, a->bytes, a->size,
                                       a->kernel, a->more, a->gemm_with, &rc)) {
      dlb_analysis_free(a);
      dlb_free(dimval); dlb_free(numel);
      return NULL;
    }
    T->flops_recompute += rc;
    T->bytes = 0;
    for (size_t i = 0; i < no; i++) T->bytes += a->bytes[i];
  }
  /* the output layer's GEMMs (timed at a recipe's head_peak: output_layer.c) */
  if (dlb_mark_output_layer(s, a->kernel) != DLB_OK) {
    dlb_analysis_free(a);
    dlb_free(dimval); dlb_free(numel);
    return NULL;
  }
  T->flops = T->flops_fwd + T->flops_bwd + T->flops_update + T->flops_recompute;
  T->intensity = T->bytes > 0 ? T->flops / T->bytes : 0;
  T->nops = (double)no;
  T->ntensors = (double)nt;
  T->nlayers = (double)s->nlayers;
  /* footprint: construction order and the list schedule; keep the better */
  fpresult r1 = {0, {0}, -1}, r2 = {0, {0}, -1};
  int rc = dlb_fp_analyse(s, a->size, a->order, &r1, &r2);
  fpresult r3 = {0, {0}, -1};
  const fpresult *best = r2.peak < r1.peak ? &r2 : &r1;
  if (!rc && s->nlayers) rc = layer_costs(a, numel);
  if (!rc && no <= EXACT_AUTO) { /* small steps: the exact minimum is cheap */
    int *o3 = dlb_malloc((no + 1) * sizeof *o3);
    double ex;
    if (o3 && dlb_fp_exact(s, a->size, &ex, o3) == DLB_OK && ex < best->peak &&
        dlb_fp_measure(s, a->size, o3, &r3) == DLB_OK) {
      best = &r3;
      memcpy(a->order, o3, no * sizeof *o3);
    }
    dlb_free(o3);
  }
  T->footprint_order = r1.peak;
  T->footprint_heuristic = r2.peak;
  T->footprint = best->peak;
  a->peak_op = best->op;
  T->weights = best->cat[0];
  T->gradients = best->cat[1];
  T->optimizer = best->cat[2];
  T->activations = best->cat[3];
  T->workspace = best->cat[4];
  a->dimval = dimval;
  a->numel = numel;
  if (rc) {
    dlb_analysis_free(a);
    return NULL;
  }
  return a;
}

int dlb_analysis_totals(const dlb_analysis *a, dlb_totals *out) {
  *out = a->tot;
  return DLB_OK;
}

size_t dlb_analysis_nops(const dlb_analysis *a) { return a->nops; }
const double *dlb_analysis_op_flops(const dlb_analysis *a) { return a->flops; }
const double *dlb_analysis_op_bytes(const dlb_analysis *a) { return a->bytes; }
const int *dlb_analysis_op_phase(const dlb_analysis *a) { return a->phase; }
const int *dlb_analysis_op_layer(const dlb_analysis *a) { return a->layer; }
const int *dlb_analysis_op_layer_placed(const dlb_analysis *a) { return a->placed; }
const int *dlb_analysis_op_type(const dlb_analysis *a) { return a->type; }
const int *dlb_analysis_op_kernel(const dlb_analysis *a) { return a->kernel; }
const double *dlb_analysis_op_more(const dlb_analysis *a) { return a->more; }
const int *dlb_analysis_schedule(const dlb_analysis *a) { return a->order; }

/* Op i's matmul shape (m, n, k, batch; a dim without an expression is 1) into out; 0 when
** the op is not matmul-like. The one rule of dlb_analysis_op_gemm and _op_gemms. */
static int op_gemm1(const dlb_analysis *a, size_t i, double out[4]) {
  cexpr m[4];
  if (!dlb_op_gemm(a->s, (int)i, m)) return 0;
  for (int k = 0; k < 4; k++) out[k] = m[k].n ? ceval(&m[k], a->dimval, a->numel) : 1;
  return 1;
}

/* A GEMM fused with others (the fusion passes' gemm_with: the QKV projections as one GEMM
** h -> 3h) has its own shape with one dim the sum of the GEMMs' (M tokens, N 3h, K h for the
** forward), as graphs/sweep/sweep_compile.c compiles it. */
static int op_gemm(const dlb_analysis *a, size_t i, double out[4]) {
  if (!op_gemm1(a, i, out)) return 0;
  const int *w = a->gemm_with ? a->gemm_with + 3 * i : NULL;
  if (w && w[0] >= 0) {
    double o1[4], o2[4];
    if (op_gemm1(a, (size_t)w[0], o1) && op_gemm1(a, (size_t)w[1], o2))
      out[w[2]] += o1[w[2]] + o2[w[2]];
  }
  return 1;
}

int dlb_analysis_op_gemm(const dlb_analysis *a, size_t i, double out[4]) {
  if (i >= a->nops) return dlb_fail(DLB_EINVAL, "analysis: op %zu out of range (%zu ops)", i, a->nops);
  return op_gemm(a, i, out) ? DLB_OK : DLB_ENOTFOUND;
}

int dlb_analysis_op_gemms(const dlb_analysis *a, double *out, size_t n) {
  if (n != 4 * a->nops)
    return dlb_fail(DLB_EINVAL, "analysis: %zu gemm values for %zu ops (4 per op expected)", n, a->nops);
  for (size_t i = 0; i < a->nops; i++)
    if (!op_gemm(a, i, out + 4 * i)) out[4 * i] = out[4 * i + 1] = out[4 * i + 2] = out[4 * i + 3] = 0;
  return DLB_OK;
}

size_t dlb_analysis_op_name(const dlb_analysis *a, size_t i, char *buf, size_t size) {
  char tmp[512];
  if (i >= a->nops) { if (size) buf[0] = '\0'; return 0; }
  dlb_oname(a->s, (int)i, tmp, sizeof tmp);
  if (size) snprintf(buf, size, "%s", tmp);
  return strlen(tmp);
}

int dlb_analysis_op_match(const dlb_analysis *a, const char *sub, int *out, size_t n) {
  if (sub == NULL) return dlb_fail(DLB_EINVAL, "analysis: no text to match op names against");
  if (n != a->nops)
    return dlb_fail(DLB_EINVAL, "analysis: %zu flags for %zu ops (one per op expected)", n, a->nops);
  char tmp[512];   /* the name as dlb_analysis_op_name gives it (the same bound) */
  for (size_t i = 0; i < a->nops; i++) {
    dlb_oname(a->s, (int)i, tmp, sizeof tmp);
    out[i] = strstr(tmp, sub) != NULL;
  }
  return DLB_OK;
}

/* What each forward op keeps for the backward: out[i] = the bytes of the storages op i makes
** in the forward (a view counts as its base's) that an op of the backward or of a recompute
** reads -- the tensors autograd saves, at the analysis's sizes (after the fusion passes: a
** tensor a fused kernel never writes has no bytes) -- and of the step's sources (a dropout
** mask, the labels) that such an op reads, at their first forward consumer. Weights and
** optimizer state and the backward's own tensors count nowhere. Each storage once. Then the
** op running at the peak of the analysis's op order (the first op where the footprint
** peaks) also gets the activation and workspace bytes live there beyond every saved byte
** (its working set: e.g. the logits' gradient at the loss's backward), when there are any;
** so the sum over the ops is the peak's activations and workspace whenever every saved
** tensor is live at the peak (the start of the backward pass, without recompute). 0 for
** every other op. The one rule of a layer's kept bytes (dlb.parallel.layers.from_graph).
** DLB_EINVAL unless n is the step's op count. */
int dlb_analysis_op_saved(const dlb_analysis *a, double *out, size_t n) {
  if (n != a->nops)
    return dlb_fail(DLB_EINVAL, "analysis: %zu saved-byte values for %zu ops (one per op expected)", n, a->nops);
  const dlb_graph *s = a->s;
  uint8_t *seen = dlb_calloc(s->nt + 1, 1);
  int32_t *first = dlb_malloc((s->nt + 1) * sizeof *first); /* a source's first forward reader */
  if (!seen || !first) {
    dlb_free(seen); dlb_free(first);
    return dlb_fail(DLB_ENOMEM, "analysis: out of memory");
  }
  for (size_t t = 0; t < s->nt; t++) first[t] = -1;
  for (size_t i = 0; i < n; i++) {
    out[i] = 0;
    if (a->phase[i] != DLB_PHASE_FWD) continue;
    const op *p = &s->o[i];
    for (int j = 0; j < p->nin; j++) {
      int b = s->t[op_in(s, p)[j]].base;
      if (first[b] < 0) first[b] = (int32_t)i;
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (a->phase[i] != DLB_PHASE_BWD && a->phase[i] != DLB_PHASE_RECOMPUTE) continue;
    const op *p = &s->o[i];
    for (int j = 0; j < p->nin; j++) {
      int b = s->t[op_in(s, p)[j]].base, pr = s->t[b].producer, role = s->t[b].role;
      if (pr < 0) pr = role == DLB_ROLE_WEIGHT || role == DLB_ROLE_OPTSTATE ? -1 : first[b];
      if (seen[b] || pr < 0 || a->phase[pr] != DLB_PHASE_FWD) continue;
      seen[b] = 1;
      out[pr] += a->size[b];
    }
  }
  dlb_free(seen); dlb_free(first);
  /* the op at the peak of the analysis's order (the footprint's) and what is live there */
  if (a->peak_op >= 0 && (size_t)a->peak_op < n) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += out[i];
    double w = a->tot.activations + a->tot.workspace - sum;
    if (w > 0) out[a->peak_op] += w;
  }
  return DLB_OK;
}

size_t dlb_analysis_nlayers(const dlb_analysis *a) { return a->s->nlayers; }

const char *dlb_analysis_layer_name(const dlb_analysis *a, size_t i) {
  return i < a->s->nlayers ? a->s->layers[i] : NULL;
}

int dlb_analysis_layer(const dlb_analysis *a, size_t i, double out[6]) {
  if (i >= a->s->nlayers)
    return dlb_fail(DLB_EINVAL, "analysis: layer %zu out of range (%zu layers)", i, a->s->nlayers);
  for (int k = 0; k < 6; k++) out[k] = a->lay[6 * i + k];
  return DLB_OK;
}

int dlb_analysis_layer_rerun(const dlb_analysis *a, int *out, size_t n) {
  if (n != a->s->nlayers)
    return dlb_fail(DLB_EINVAL, "analysis: layer_rerun needs %zu entries (the layers), got %zu",
                    a->s->nlayers, n);
  if (n == 0) return DLB_OK;
  uint8_t *r = dlb_calloc(n, 1);
  if (!r) return dlb_fail(DLB_ENOMEM, "analysis: out of memory");
  int st = dlb_layer_reruns(a->s, r);
  for (size_t l = 0; st == DLB_OK && l < n; l++) out[l] = r[l];
  dlb_free(r);
  return st;
}

int dlb_analysis_update_tensors(const dlb_analysis *a, size_t i, double chunk, double out[2]) {
  if (i >= a->s->nlayers && !(i == 0 && a->s->nlayers == 0))
    return dlb_fail(DLB_EINVAL, "analysis: layer %zu out of range (%zu layers)", i, a->s->nlayers);
  if (!(chunk >= 1) || !isfinite(chunk))
    return dlb_fail(DLB_EINVAL, "analysis: chunk must be >= 1 element, got %g", chunk);
  out[0] = out[1] = 0;
  for (size_t k = 0; k < a->nops; k++) {
    const op *p = &a->s->o[k];
    /* the launch counts are Adam's / AdamW's (graphs/hw/optim_launch.c counts their sources):
    ** another optimizer's update has no launch model (0 tensors: each update op one kernel) */
    if (!op_adam_update(p) || op_update_group(a->s, p) != (int)i) continue;
    out[0] += 1;
    out[1] += update_chunks(a->numel[op_in(a->s, p)[0]], chunk);
  }
  return DLB_OK;
}

/* The walk's op order (dlb_analysis_step_peak's doc, dlb_graph.h) into o (nops entries). */
static int walk_order(const dlb_analysis *a, int *o) {
  size_t no = a->nops;
  const dlb_graph *s = a->s;
  uint8_t *upd = dlb_calloc(s->nt + 1, 1); /* tensors an update op produces */
  if (!upd) return dlb_fail(DLB_ENOMEM, "analysis: out of memory");
  size_t k = 0;
  int moved = 1;
  for (size_t i = 0; i < no; i++) {
    const op *p = &s->o[i];
    if (a->phase[i] == DLB_PHASE_UPDATE)
      for (int j = 0; j < p->nout; j++) upd[op_out(s, p)[j]] = 1;
  }
  for (size_t i = 0; i < no && moved; i++) { /* does any other op read an update's output? */
    const op *p = &s->o[i];
    if (a->phase[i] == DLB_PHASE_UPDATE) continue;
    for (int j = 0; j < p->nin; j++)
      if (upd[op_in(s, p)[j]]) moved = 0;
  }
  for (size_t i = 0; i < no; i++)
    if (!moved || a->phase[a->order[i]] != DLB_PHASE_UPDATE) o[k++] = a->order[i];
  for (size_t i = 0; i < no && moved; i++)
    if (a->phase[a->order[i]] == DLB_PHASE_UPDATE) o[k++] = a->order[i];
  dlb_free(upd);
  return DLB_OK;
}

int dlb_analysis_step_peak(const dlb_analysis *a, double out[6]) {
  int *o = dlb_malloc((a->nops + 1) * sizeof *o);
  if (!o) return dlb_fail(DLB_ENOMEM, "analysis: out of memory");
  int rc = walk_order(a, o);
  fpresult r = {0, {0}, -1};
  if (!rc) rc = dlb_fp_measure(a->s, a->size, o, &r);
  dlb_free(o);
  if (rc) return rc;
  out[0] = r.peak;
  for (int c = 0; c < 5; c++) out[c + 1] = r.cat[c];
  return DLB_OK;
}

int dlb_analysis_act_peak(const dlb_analysis *a, double out[6]) {
  size_t no = a->nops;
  uint8_t *mark = dlb_malloc(no + 1);
  fpresult *at = dlb_calloc(no + 1, sizeof *at);
  fpresult r = {0, {0}, -1};
  int rc = (!mark || !at) ? dlb_fail(DLB_ENOMEM, "analysis: out of memory") : DLB_OK;
  if (!rc) {
    memset(mark, 1, no + 1);
    rc = dlb_fp_measure_at(a->s, a->size, a->order, mark, &r, at);
  }
  if (!rc) {
    /* the first op with the largest activations + workspace (none: before the first op) */
    int best = -1;
    for (size_t k = 0; k < no; k++) {
      int i = a->order[k];
      if (best < 0 || at[i].cat[3] + at[i].cat[4] > at[best].cat[3] + at[best].cat[4]) best = i;
    }
    out[0] = best >= 0 ? at[best].peak : 0;
    for (int c = 0; c < 5; c++) out[c + 1] = best >= 0 ? at[best].cat[c] : 0;
  }
  dlb_free(mark); dlb_free(at);
  return rc;
}

int dlb_analysis_step_loss(const dlb_analysis *a, double out[12]) {
  size_t no = a->nops;
  const dlb_graph *s = a->s;
  int fwd = -1, bwd = -1; /* the first softmax_xent and the first gradient of its logits */
  for (size_t i = 0; i < no; i++) {
    const op *p = &s->o[a->order[i]];
    if (p->type == OP_XENT && fwd < 0) fwd = a->order[i];
    if (p->type == OP_XENT_BWD && p->attr[0] == 0 && bwd < 0) bwd = a->order[i];
  }
  if (fwd < 0 || bwd < 0)
    return dlb_fail(DLB_ENOTFOUND, "analysis: the step has no softmax_xent loss with a backward "
                    "op (an inference step, or a loss of another kind)");
  int *o = dlb_malloc((no + 1) * sizeof *o);
  uint8_t *mark = dlb_calloc(no + 1, 1);
  fpresult *at = dlb_calloc(no + 1, sizeof *at);
  int rc = (!o || !mark || !at) ? dlb_fail(DLB_ENOMEM, "analysis: out of memory") : walk_order(a, o);
  fpresult r = {0, {0}, -1};
  if (!rc) {
    mark[fwd] = mark[bwd] = 1;
    rc = dlb_fp_measure_at(s, a->size, o, mark, &r, at);
  }
  if (!rc) {
    out[0] = at[fwd].peak;
    out[6] = at[bwd].peak;
    for (int c = 0; c < 5; c++) out[c + 1] = at[fwd].cat[c], out[c + 7] = at[bwd].cat[c];
  }
  dlb_free(o); dlb_free(mark); dlb_free(at);
  return rc;
}

int dlb_analysis_footprint_exact(const dlb_analysis *a, double *out) {
  return dlb_fp_exact(a->s, a->size, out, NULL);
}
