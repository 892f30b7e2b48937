/*
** series.c — series of a figure: creation, named data arrays, string lists and options
** (each kind has a fixed list of valid names), and validation at commit. What differs by
** kind (its names, checks, extent, legend, drawing) is the kind's method table, found by
** dlbp_methods; the tables live with their kinds (series_xy.c, series_ref.c, series_cat.c,
** series_roof.c).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* The method table of each kind. */
static const series_methods *const kinds[DLB_SERIES_NKINDS] = {
  [DLB_SERIES_LINE] = &dlbp_line_methods, [DLB_SERIES_SCATTER] = &dlbp_scatter_methods,
  [DLB_SERIES_BAR] = &dlbp_bar_methods, [DLB_SERIES_HEATMAP] = &dlbp_heatmap_methods,
  [DLB_SERIES_BOX] = &dlbp_box_methods, [DLB_SERIES_ROOFLINE] = &dlbp_roofline_methods,
  [DLB_SERIES_BAND] = &dlbp_band_methods, [DLB_SERIES_HLINE] = &dlbp_hline_methods,
  [DLB_SERIES_VLINE] = &dlbp_vline_methods, [DLB_SERIES_DIAG] = &dlbp_diag_methods,
  [DLB_SERIES_TEXT] = &dlbp_text_methods, [DLB_SERIES_SPAN] = &dlbp_span_methods,
};

/* The method table of a kind (static), or NULL for an unknown kind. */
const series_methods *dlbp_methods(int kind) {
  return (kind >= 0 && kind < DLB_SERIES_NKINDS) ? kinds[kind] : NULL;
}

/* The name of a kind ("line", ...); "?" when out of range. */
const char *dlbp_kind_name(int kind) {
  const series_methods *m = dlbp_methods(kind);
  return m ? m->name : "?";
}

/* The valid names of a kind: which 0 data, 1 string lists, 2 string options, 3 numbers. */
const char *dlb_series_options(int kind, int which) {
  const series_methods *m = dlbp_methods(kind);
  if (!m || which < -1 || which > 3) return NULL;
  return which < 0 ? m->name : m->names[which];
}

/* The static copy of `name` in the space-separated list, or NULL when absent. Returning
** the list's own spelling lets fields keep a pointer without owning a copy. */
const char *dlbp_inlist(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  while (n && (p = strstr(p, name)) != NULL) {
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return p;
    p += n;
  }
  return NULL;
}

static int keylen(const char *k) { return (int)strcspn(k, " "); }

/* A series' data array by name, or NULL. */
darray *dlbp_series_data(series *s, const char *name) {
  for (int i = 0; i < s->ndata; i++)
    if (strncmp(s->data[i].name, name, keylen(s->data[i].name)) == 0 &&
        (int)strlen(name) == keylen(s->data[i].name)) return &s->data[i];
  return NULL;
}

/* A series' string list by name, or NULL. */
slist *dlbp_series_strs(series *s, const char *name) {
  for (int i = 0; i < s->nstrs; i++)
    if ((int)strlen(name) == keylen(s->strs[i].name) &&
        strncmp(s->strs[i].name, name, strlen(name)) == 0) return &s->strs[i];
  return NULL;
}

/* A string option, or dflt. Borrowed from the series. */
const char *dlbp_series_str(const series *s, const char *name, const char *dflt) {
  for (int i = 0; i < s->nstr; i++)
    if ((int)strlen(name) == keylen(s->str[i].name) &&
        strncmp(s->str[i].name, name, strlen(name)) == 0) return s->str[i].s;
  return dflt;
}

/* A number option, or dflt. */
double dlbp_series_num(const series *s, const char *name, double dflt) {
  for (int i = 0; i < s->nnum; i++)
    if ((int)strlen(name) == keylen(s->num[i].name) &&
        strncmp(s->num[i].name, name, strlen(name)) == 0) return s->num[i].v;
  return dflt;
}

/* Free what a series holds. */
void dlbp_series_clear(series *s) {
  for (int i = 0; i < s->ndata; i++) dlb_free(s->data[i].v);
  for (int i = 0; i < s->nstrs; i++) {
    for (size_t j = 0; j < s->strs[i].n; j++) dlb_free(s->strs[i].s[j]);
    dlb_free(s->strs[i].s);
  }
  for (int i = 0; i < s->nstr; i++) dlb_free(s->str[i].s);
  memset(s, 0, sizeof *s);
  s->dead = 1;
}

/* Series id of f, or NULL with a message naming fn. */
static series *getseries(dlb_figure *f, int id, const char *fn) {
  if (!f) { dlb_fail(DLB_EINVAL, "%s: no figure", fn); return NULL; }
  if (id < 0 || id >= f->nseries || f->series[id].dead) {
    dlb_fail(DLB_EINVAL, "%s: no series %d", fn, id);
    return NULL;
  }
  return &f->series[id];
}

/* The error for a name a kind does not know, listing the ones it does. */
static int badname(const series *s, int which, const char *name) {
  const char *list = s->methods->names[which];
  static const char *const what[] = {"data array", "string list", "option", "option"};
  return dlb_fail(DLB_EINVAL, "%s: unknown %s '%s' (valid: %s)", dlbp_kind_name(s->kind),
                  what[which], name, list[0] ? list : "none");
}

/* Start a new series; its id in *id. */
int dlb_series_new(dlb_figure *f, int panel, int kind, int *id) {
  if (!f || !id) return dlb_fail(DLB_EINVAL, "series_new: no figure");
  if (panel < 0 || panel >= f->rows * f->cols)
    return dlb_fail(DLB_EINVAL, "series_new: no panel %d (the figure has %d)", panel + 1,
                    f->rows * f->cols);
  const series_methods *m = dlbp_methods(kind);
  if (!m)
    return dlb_fail(DLB_EINVAL, "series_new: unknown series kind %d", kind);
  if (f->nseries == f->capseries) {
    int cap = f->capseries ? 2 * f->capseries : 8;
    series *ns = dlb_realloc(f->series, (size_t)cap * sizeof *ns);
    if (!ns) return dlb_fail(DLB_ENOMEM, "series_new: out of memory");
    f->series = ns;
    f->capseries = cap;
  }
  series *s = &f->series[f->nseries];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->methods = m;
  s->panel = panel;
  *id = f->nseries++;
  f->laid_out = 0;
  return DLB_OK;
}

/* Set a named data array (copied; replaces an earlier one of the same name). */
int dlb_series_data(dlb_figure *f, int id, const char *name, const double *v, size_t n) {
  series *s = getseries(f, id, "dlbp_series_data");
  if (!s) return DLB_EINVAL;
  const char *key = name ? dlbp_inlist(s->methods->names[0], name) : NULL;
  if (!key) return badname(s, 0, name ? name : "(null)");
  if (n && !v) return dlb_fail(DLB_EINVAL, "%s: data '%s' is NULL", dlbp_kind_name(s->kind), name);
  double *copy = dlb_malloc((n ? n : 1) * sizeof *copy);
  if (!copy) return dlb_fail(DLB_ENOMEM, "%s: out of memory for '%s'", dlbp_kind_name(s->kind), name);
  if (n) memcpy(copy, v, n * sizeof *copy);
  darray *d = dlbp_series_data(s, name);
  if (!d) {
    if (s->ndata == MAXFIELDS) { dlb_free(copy); return dlb_fail(DLB_EINVAL, "too many fields"); }
    d = &s->data[s->ndata++];
    d->name = key;
  } else {
    dlb_free(d->v);
  }
  d->v = copy;
  d->n = n;
  f->laid_out = 0;
  return DLB_OK;
}

/* Append a string to a named list (copied). */
int dlb_series_addstr(dlb_figure *f, int id, const char *name, const char *str) {
  series *s = getseries(f, id, "series_addstr");
  if (!s) return DLB_EINVAL;
  const char *key = name ? dlbp_inlist(s->methods->names[1], name) : NULL;
  if (!key) return badname(s, 1, name ? name : "(null)");
  if (str && !dlbp_text_valid_utf8(str))
    return dlb_fail(DLB_EINVAL, "%s: %s[%zu] is not valid UTF-8", dlbp_kind_name(s->kind), name,
                    dlbp_series_strs(s, name) ? dlbp_series_strs(s, name)->n + 1 : 1);
  slist *l = dlbp_series_strs(s, name);
  if (!l) {
    if (s->nstrs == MAXFIELDS) return dlb_fail(DLB_EINVAL, "too many fields");
    l = &s->strs[s->nstrs++];
    l->name = key;
  }
  char **ns = dlb_realloc(l->s, (l->n + 1) * sizeof *ns);
  if (!ns) return dlb_fail(DLB_ENOMEM, "out of memory");
  l->s = ns;
  if (!(l->s[l->n] = dlb_strdup(str ? str : ""))) return dlb_fail(DLB_ENOMEM, "out of memory");
  l->n++;
  f->laid_out = 0;
  return DLB_OK;
}

/* Set a string option (copied). */
int dlb_series_str(dlb_figure *f, int id, const char *key, const char *value) {
  series *s = getseries(f, id, "dlbp_series_str");
  if (!s) return DLB_EINVAL;
  const char *k = key ? dlbp_inlist(s->methods->names[2], key) : NULL;
  if (!k) return badname(s, 2, key ? key : "(null)");
  if (!value) value = "";
  if (!dlbp_text_valid_utf8(value))
    return dlb_fail(DLB_EINVAL, "%s: option '%s' is not valid UTF-8", dlbp_kind_name(s->kind), key);
  if (strcmp(key, "color") == 0) {
    double rgb[3];
    if (!dlbp_colour_parse(value, rgb))
      return dlb_fail(DLB_EINVAL, "%s: bad color '%s' (use #rrggbb, a name like 'black', "
                      "or C1..C8 for the palette)", dlbp_kind_name(s->kind), value);
  }
  if (strcmp(key, "cmap") == 0 && dlbp_cmap_from_name(value) < 0)
    return dlb_fail(DLB_EINVAL, "%s: unknown cmap '%s' (valid: viridis magma cividis "
                    "diverging grey)", dlbp_kind_name(s->kind), value);
  static const char *const choices[][2] = {
    {"style", "solid dashed dotted dashdot none"},
    {"marker", dlbp_markers},
    {"anchor", "left center right"}, {"mode", "stacked grouped"},
    {"mask_style", "white hatch"}};
  for (size_t i = 0; i < sizeof choices / sizeof choices[0]; i++)
    if (strcmp(key, choices[i][0]) == 0 && !dlbp_inlist(choices[i][1], value))
      return dlb_fail(DLB_EINVAL, "%s: bad %s '%s' (valid: %s)", dlbp_kind_name(s->kind), key, value,
                      choices[i][1]);
  if (strcmp(key, "fmt") == 0 && !dlbp_plot_safe_fmt(value))
    return dlb_fail(DLB_EINVAL, "%s: fmt '%s' must hold one %%e, %%f or %%g conversion (e.g. "
                    "'%%.2f')", dlbp_kind_name(s->kind), value);
  char *copy = dlb_strdup(value);
  if (!copy) return dlb_fail(DLB_ENOMEM, "out of memory");
  for (int i = 0; i < s->nstr; i++)
    if (s->str[i].name == k) { dlb_free(s->str[i].s); s->str[i].s = copy; return DLB_OK; }
  if (s->nstr == MAXFIELDS) { dlb_free(copy); return dlb_fail(DLB_EINVAL, "too many options"); }
  s->str[s->nstr].name = k;
  s->str[s->nstr++].s = copy;
  f->laid_out = 0;
  return DLB_OK;
}

/* Set a number option. */
int dlb_series_num(dlb_figure *f, int id, const char *key, double value) {
  series *s = getseries(f, id, "dlbp_series_num");
  if (!s) return DLB_EINVAL;
  const char *k = key ? dlbp_inlist(s->methods->names[3], key) : NULL;
  if (!k) return badname(s, 3, key ? key : "(null)");
  if (!isfinite(value))
    return dlb_fail(DLB_EINVAL, "%s: option '%s' must be a finite number", dlbp_kind_name(s->kind),
                    key);
  static const struct { const char *key; double lo, hi; } ranges[] = {
    {"width", 0, 100}, {"size", 0, 200}, {"label_size", 1, 100}, {"alpha", 0, 1},
    {"nx", 1, 1e6}, {"ny", 1, 1e6}, {"lo", 0, 100}, {"hi", 0, 100}, {"box_lo", 0, 100},
    {"box_hi", 0, 100}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
    if (strcmp(key, ranges[i].key) == 0 && !(value >= ranges[i].lo && value <= ranges[i].hi) &&
        !(s->methods->unranged && dlbp_inlist(s->methods->unranged, key)))
      return dlb_fail(DLB_EINVAL, "%s: %s = %g is outside %g..%g", dlbp_kind_name(s->kind), key,
                      value, ranges[i].lo, ranges[i].hi);
  f->laid_out = 0;
  for (int i = 0; i < s->nnum; i++)
    if (s->num[i].name == k) { s->num[i].v = value; return DLB_OK; }
  if (s->nnum == MAXFIELDS) return dlb_fail(DLB_EINVAL, "too many options");
  s->num[s->nnum].name = k;
  s->num[s->nnum++].v = value;
  return DLB_OK;
}

/* How many values of d are NaN or infinite. */
size_t dlbp_nonfinite(const darray *d) {
  size_t c = 0;
  if (d) for (size_t i = 0; i < d->n; i++) c += !isfinite(d->v[i]);
  return c;
}

/* The named array, which must exist and not be empty. */
int dlbp_series_need(series *s, const char *name, darray **out) {
  darray *d = dlbp_series_data(s, name);
  if (!d || d->n == 0)
    return dlb_fail(DLB_EINVAL, "%s: '%s' is missing or empty", dlbp_kind_name(s->kind), name);
  *out = d;
  return DLB_OK;
}

/* Array bname (if given) must be as long as a. */
int dlbp_series_samelen(series *s, const darray *a, const char *bname) {
  darray *b = dlbp_series_data(s, bname);
  if (b && b->n != a->n)
    return dlb_fail(DLB_EINVAL, "%s: '%s' has %zu values but '%.*s' has %zu",
                    dlbp_kind_name(s->kind), bname, b->n, keylen(a->name), a->name, a->n);
  return DLB_OK;
}

/* Count non-positive finite values of the data that lands on a log axis. */
static size_t nonpositive(const darray *d, double *first) {
  size_t c = 0;
  if (d) for (size_t i = 0; i < d->n; i++)
    if (isfinite(d->v[i]) && d->v[i] <= 0) { if (!c) *first = d->v[i]; c++; }
  return c;
}

/* Check a series against the log scales of its panel; DLB_OK or an error naming it. */
int dlbp_series_logcheck(dlb_figure *f, int id) {
  series *s = &f->series[id];
  const panel *p = &f->panels[s->panel];
  static const char *const xs[] = {"x", "px", NULL}, *const ys[] = {"y", "lo", "hi", "py",
                                                                  "values", NULL};
  for (int axn = 0; axn < 2; axn++) {
    if (p->ax[axn].scale != DLB_SCALE_LOG) continue;
    int st = s->methods->logcheck ? s->methods->logcheck(s, axn) : DLB_OK;
    if (st != DLB_OK) return st;
    const char *const *names = axn ? ys : xs;
    for (int i = 0; names[i]; i++) {
      darray *d = dlbp_series_data(s, names[i]);
      double first = 0;
      size_t c = nonpositive(d, &first);
      if (c)
        return dlb_fail(DLB_EINVAL, "panel %d, %s series %d: %zu value%s of '%s' <= 0 on a "
                        "log %c axis (first %g)", s->panel + 1, dlbp_kind_name(s->kind), id + 1, c,
                        c == 1 ? "" : "s", names[i], axn ? 'y' : 'x', first);
    }
  }
  return DLB_OK;
}

/* Validate a series: on failure it is dropped. */
int dlb_series_commit(dlb_figure *f, int id) {
  series *s = getseries(f, id, "series_commit");
  if (!s) return DLB_EINVAL;
  const series_methods *m = s->methods;
  size_t skipped = 0, total = 0;
  int st = m->validate ? m->validate(s, &skipped, &total) : DLB_OK;
  /* nothing to draw (every value NaN or infinite, none masked) is an error for every kind
  ** (docs/plot.md "Bad input"); some values skipped is a warning */
  if (st == DLB_OK && total > 0 && skipped == total)
    st = dlb_fail(DLB_EINVAL, "%s: all %zu %s are NaN or infinite", dlbp_kind_name(s->kind),
                  total, m->items ? m->items : "values");
  if (st == DLB_OK && m->cvalues) st = dlbp_cmap_check(s);
  if (st == DLB_OK) st = dlbp_series_logcheck(f, id);
  if (st != DLB_OK) {
    dlbp_series_clear(s);
    return st;
  }
  /* categorical axes always have labels: the kind gives defaults (series_cat.c) */
  if (m->defaults && (st = m->defaults(f, id)) != DLB_OK) { dlbp_series_clear(s); return st; }
  f->warning[0] = '\0';
  if (skipped)
    snprintf(f->warning, sizeof f->warning, "%s: %zu NaN or infinite value%s skipped",
             dlbp_kind_name(s->kind), skipped, skipped == 1 ? "" : "s");
  int colour = 0; /* the palette goes to series that take their colour from it */
  for (int i = 0; i < id; i++) {
    series *o = &f->series[i];
    if (o->dead || o->panel != s->panel || dlbp_series_str(o, "color", NULL)) continue;
    colour += o->methods->palette && o->methods->palette(o);
  }
  s->colour_index = colour;
  s->committed = 1;
  return DLB_OK;
}

/* The last commit's warnings. */
const char *dlb_figure_warning(const dlb_figure *f) {
  return f ? f->warning : "";
}

/* Drop a series: it is no longer drawn and its id is no longer valid. */
int dlb_series_drop(dlb_figure *f, int id) {
  series *s = getseries(f, id, "series_drop");
  if (!s) return DLB_EINVAL;
  dlbp_series_clear(s);
  f->laid_out = 0;
  return DLB_OK;
}
