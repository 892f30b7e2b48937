/*
** series.c — series of a figure: creation, named data arrays, string lists and options
** (each kind has a fixed list of valid names), and validation at commit.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* Valid names per kind: data arrays, string lists, string options, number options. */
static const char *const specs[DLB_SERIES_NKINDS][5] = {
  {"line", "x y", "", "label color style marker", "width size"},
  {"scatter", "x y c s group", "groups", "label color marker cmap colorbar_label norm",
   "size vmin vmax center alpha colorbar share_colors"},
  {"bar", "values", "labels stacks", "label color mode", "width"},
  {"heatmap", "z mask x y", "xlabels ylabels",
   "cmap fmt mask_style mask_label colorbar_label norm",
   "nx ny vmin vmax center cell_labels colorbar label_size share_colors"},
  {"box", "values sizes", "labels", "color", "lo hi box_lo box_hi tukey width outliers"},
  {"roofline", "peak bw flops_eff bw_eff px py pgroup", "names groups plabels pmarkers", "",
   "achievable ridge"},
  {"band", "x lo hi", "", "label color", "alpha"},
  {"hline", "", "", "label color style", "value width"},
  {"vline", "", "", "label color style", "value width"},
  {"diag", "", "", "label color style", "width"},
  {"text", "", "", "text color anchor", "x y size"},
  {"span", "", "", "label color text", "lo hi alpha"},
};

/* The name of a kind ("line", ...); "?" when out of range. */
const char *dlbp_kind_name(int kind) {
  return (kind >= 0 && kind < DLB_SERIES_NKINDS) ? specs[kind][0] : "?";
}

/* The valid names of a kind: which 0 data, 1 string lists, 2 string options, 3 numbers. */
const char *dlb_series_options(int kind, int which) {
  if (kind < 0 || kind >= DLB_SERIES_NKINDS || which < -1 || which > 3) return NULL;
  return specs[kind][which + 1];
}

/* The static copy of `name` in the space-separated list, or NULL when absent. Returning
** the list's own spelling lets fields keep a pointer without owning a copy. */
static const char *inlist(const char *list, const char *name) {
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
  const char *list = specs[s->kind][which + 1];
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
  if (kind < 0 || kind >= DLB_SERIES_NKINDS)
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
  s->panel = panel;
  *id = f->nseries++;
  f->laid_out = 0;
  return DLB_OK;
}

/* Set a named data array (copied; replaces an earlier one of the same name). */
int dlb_series_data(dlb_figure *f, int id, const char *name, const double *v, size_t n) {
  series *s = getseries(f, id, "dlbp_series_data");
  if (!s) return DLB_EINVAL;
  const char *key = name ? inlist(specs[s->kind][1], name) : NULL;
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
  const char *key = name ? inlist(specs[s->kind][2], name) : NULL;
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
  const char *k = key ? inlist(specs[s->kind][3], key) : NULL;
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
    if (strcmp(key, choices[i][0]) == 0 && !inlist(choices[i][1], value))
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
  const char *k = key ? inlist(specs[s->kind][4], key) : NULL;
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
        !(s->kind == DLB_SERIES_SPAN && key[0] != 'a')) /* a span's lo/hi are data */
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
static size_t nonfinite(const darray *d) {
  size_t c = 0;
  if (d) for (size_t i = 0; i < d->n; i++) c += !isfinite(d->v[i]);
  return c;
}

/* The named array, which must exist and not be empty. */
static int need(series *s, const char *name, darray **out) {
  darray *d = dlbp_series_data(s, name);
  if (!d || d->n == 0)
    return dlb_fail(DLB_EINVAL, "%s: '%s' is missing or empty", dlbp_kind_name(s->kind), name);
  *out = d;
  return DLB_OK;
}

/* Array bname (if given) must be as long as a. */
static int samelen(series *s, const darray *a, const char *bname) {
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
    if (axn == 0 && (s->kind == DLB_SERIES_BAR || s->kind == DLB_SERIES_BOX ||
                     s->kind == DLB_SERIES_HEATMAP))
      return dlb_fail(DLB_EINVAL, "panel %d: a %s has a categorical x axis, which cannot be "
                      "log", s->panel + 1, dlbp_kind_name(s->kind));
    if (axn == 1 && s->kind == DLB_SERIES_HEATMAP)
      return dlb_fail(DLB_EINVAL, "panel %d: a heatmap's y axis is categorical, not log",
                      s->panel + 1);
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
    if (s->kind == DLB_SERIES_HLINE && axn == 1 && dlbp_series_num(s, "value", 1) <= 0)
      return dlb_fail(DLB_EINVAL, "panel %d: hline at %g on a log y axis", s->panel + 1,
                      dlbp_series_num(s, "value", 1));
    if (s->kind == DLB_SERIES_SPAN && axn == 0 && dlbp_series_num(s, "lo", 1) <= 0)
      return dlb_fail(DLB_EINVAL, "panel %d: span from %g on a log x axis", s->panel + 1,
                      dlbp_series_num(s, "lo", 1));
    if (s->kind == DLB_SERIES_TEXT && dlbp_series_num(s, axn ? "y" : "x", 1) <= 0)
      return dlb_fail(DLB_EINVAL, "panel %d: text at %c = %g on a log %c axis", s->panel + 1,
                      axn ? 'y' : 'x', dlbp_series_num(s, axn ? "y" : "x", 1), axn ? 'y' : 'x');
    if (s->kind == DLB_SERIES_VLINE && axn == 0 && dlbp_series_num(s, "value", 1) <= 0)
      return dlb_fail(DLB_EINVAL, "panel %d: vline at %g on a log x axis", s->panel + 1,
                      dlbp_series_num(s, "value", 1));
  }
  return DLB_OK;
}

/* Kind-specific checks; fills `skipped` with the non-finite values to be skipped. */
static int validate(series *s, size_t *skipped) {
  darray *x = NULL, *y = NULL, *d = NULL;
  int st;
  slist *l;
  *skipped = 0;
  switch (s->kind) {
  case DLB_SERIES_LINE: case DLB_SERIES_SCATTER:
    if ((st = need(s, "x", &x)) || (st = need(s, "y", &y))) return st;
    if (x->n != y->n)
      return dlb_fail(DLB_EINVAL, "%s: x has %zu values but y has %zu", dlbp_kind_name(s->kind),
                      x->n, y->n);
    if ((st = samelen(s, x, "c")) || (st = samelen(s, x, "s")) || (st = samelen(s, x, "group")))
      return st;
    for (size_t i = 0; i < x->n; i++) {
      darray *c = dlbp_series_data(s, "c");
      *skipped += !isfinite(x->v[i]) || !isfinite(y->v[i]) || (c && !isfinite(c->v[i]));
    }
    if ((d = dlbp_series_data(s, "group"))) {
      l = dlbp_series_strs(s, "groups");
      double ng = l ? (double)l->n : 1e6;
      for (size_t i = 0; i < d->n; i++)
        if (isfinite(d->v[i]) && (d->v[i] < 1 || d->v[i] > ng || d->v[i] != floor(d->v[i])))
          return dlb_fail(DLB_EINVAL, "scatter: group[%zu] = %g is not a group number 1..%.0f",
                          i + 1, d->v[i], ng);
    }
    if (*skipped == x->n)
      return dlb_fail(DLB_EINVAL, "%s: all %zu points are NaN or infinite", dlbp_kind_name(s->kind),
                      x->n);
    if (s->kind == DLB_SERIES_SCATTER && dlbp_series_num(s, "colorbar", 0) != 0 &&
        !dlbp_series_data(s, "c"))
      return dlb_fail(DLB_EINVAL, "scatter: a colorbar needs values c= to colour by");
    return DLB_OK;
  case DLB_SERIES_BAND:
    if ((st = need(s, "x", &x)) || (st = need(s, "lo", &y)) || (st = need(s, "hi", &d)))
      return st;
    if (x->n != y->n || x->n != d->n)
      return dlb_fail(DLB_EINVAL, "band: x, lo and hi have %zu, %zu and %zu values", x->n,
                      y->n, d->n);
    for (size_t i = 0; i < x->n; i++)
      *skipped += !isfinite(x->v[i]) || !isfinite(y->v[i]) || !isfinite(d->v[i]);
    return DLB_OK;
  case DLB_SERIES_BAR: {
    if ((st = need(s, "values", &d))) return st;
    l = dlbp_series_strs(s, "labels");
    size_t n = l ? l->n : d->n;
    if (n == 0 || d->n % n)
      return dlb_fail(DLB_EINVAL, "bar: %zu values do not fill %zu labels (one value per "
                      "label, or one per label and stack)", d->n, n);
    slist *k = dlbp_series_strs(s, "stacks");
    if (k && k->n != d->n / n)
      return dlb_fail(DLB_EINVAL, "bar: %zu stack names but %zu stacks of values", k->n,
                      d->n / n);
    *skipped = nonfinite(d);
    return DLB_OK;
  }
  case DLB_SERIES_HEATMAP: {
    if ((st = need(s, "z", &d))) return st;
    slist *xl = dlbp_series_strs(s, "xlabels"), *yl = dlbp_series_strs(s, "ylabels");
    darray *xv = dlbp_series_data(s, "x"), *yv = dlbp_series_data(s, "y");
    double nx = dlbp_series_num(s, "nx", xl ? (double)xl->n : xv ? (double)xv->n : 0);
    double ny = dlbp_series_num(s, "ny", yl ? (double)yl->n : yv ? (double)yv->n : 0);
    if (nx < 1 || ny < 1 || nx * ny != (double)d->n)
      return dlb_fail(DLB_EINVAL, "heatmap: z has %zu values but the axes have %g x %g cells",
                      d->n, nx, ny);
    if ((xl && xl->n != nx) || (xv && xv->n != nx) || (yl && yl->n != ny) ||
        (yv && yv->n != ny))
      return dlb_fail(DLB_EINVAL, "heatmap: the x/y labels do not match %g x %g cells", nx, ny);
    darray *m = dlbp_series_data(s, "mask");
    if (m && m->n != d->n)
      return dlb_fail(DLB_EINVAL, "heatmap: mask has %zu values but z has %zu", m->n, d->n);
    for (size_t i = 0; i < d->n; i++)
      *skipped += !isfinite(d->v[i]) && !(m && m->v[i] != 0);
    return DLB_OK;
  }
  case DLB_SERIES_BOX: {
    if ((st = need(s, "values", &d))) return st;
    darray *sz = dlbp_series_data(s, "sizes");
    double tot = 0;
    if (sz) for (size_t i = 0; i < sz->n; i++) {
      if (!(sz->v[i] >= 1) || sz->v[i] != floor(sz->v[i]))
        return dlb_fail(DLB_EINVAL, "box: group %zu is empty", i + 1);
      tot += sz->v[i];
    }
    if (sz && tot != (double)d->n)
      return dlb_fail(DLB_EINVAL, "box: group sizes add to %g but there are %zu values", tot,
                      d->n);
    l = dlbp_series_strs(s, "labels");
    size_t ng = sz ? sz->n : 1;
    if (l && l->n != ng)
      return dlb_fail(DLB_EINVAL, "box: %zu labels for %zu groups", l->n, ng);
    double q[4] = {dlbp_series_num(s, "lo", 2), dlbp_series_num(s, "box_lo", 9),
                   dlbp_series_num(s, "box_hi", 91), dlbp_series_num(s, "hi", 98)};
    if (!(0 <= q[0] && q[0] <= q[1] && q[1] <= 50 && 50 <= q[2] && q[2] <= q[3] && q[3] <= 100))
      return dlb_fail(DLB_EINVAL, "box: percentiles must satisfy 0 <= lo <= box_lo <= 50 <= "
                      "box_hi <= hi <= 100 (got %g %g %g %g)", q[0], q[1], q[2], q[3]);
    *skipped = nonfinite(d);
    if (*skipped == d->n) return dlb_fail(DLB_EINVAL, "box: all values are NaN or infinite");
    return DLB_OK;
  }
  case DLB_SERIES_ROOFLINE: {
    darray *pk = NULL, *bw = NULL;
    if ((st = need(s, "peak", &pk)) || (st = need(s, "bw", &bw))) return st;
    if (pk->n != bw->n)
      return dlb_fail(DLB_EINVAL, "roofline: %zu peaks but %zu bandwidths", pk->n, bw->n);
    for (size_t i = 0; i < pk->n; i++)
      if (!(pk->v[i] > 0 && isfinite(pk->v[i]) && bw->v[i] > 0 && isfinite(bw->v[i])))
        return dlb_fail(DLB_EINVAL, "roofline: device %zu needs a positive peak and mem_bw "
                        "(got %g FLOP/s, %g B/s)", i + 1, pk->v[i], bw->v[i]);
    static const char *const eff[] = {"flops_eff", "bw_eff"};
    for (int k = 0; k < 2; k++) if ((d = dlbp_series_data(s, eff[k]))) {
      if (d->n != pk->n)
        return dlb_fail(DLB_EINVAL, "roofline: %zu %s values for %zu devices", d->n, eff[k],
                        pk->n);
      for (size_t i = 0; i < d->n; i++)
        if (!(d->v[i] > 0 && d->v[i] <= 1))
          return dlb_fail(DLB_EINVAL, "roofline: device %zu: %s %g is not in (0, 1]", i + 1,
                          eff[k], d->v[i]);
    }
    if ((l = dlbp_series_strs(s, "names")) && l->n != pk->n)
      return dlb_fail(DLB_EINVAL, "roofline: %zu names for %zu devices", l->n, pk->n);
    darray *px = dlbp_series_data(s, "px"), *py = dlbp_series_data(s, "py");
    if ((px ? px->n : 0) != (py ? py->n : 0))
      return dlb_fail(DLB_EINVAL, "roofline: %zu intensities but %zu FLOP rates",
                      px ? px->n : 0, py ? py->n : 0);
    if (px && (st = samelen(s, px, "pgroup"))) return st;
    if ((d = dlbp_series_data(s, "pgroup")))
      for (size_t i = 0; i < d->n; i++)
        if (isfinite(d->v[i]) && (d->v[i] < 1 || d->v[i] > 1e6 || d->v[i] != floor(d->v[i])))
          return dlb_fail(DLB_EINVAL, "roofline: pgroup[%zu] = %g is not a group number",
                          i + 1, d->v[i]);
    /* a point's own marker ("" keeps its group's shape) */
    if ((l = dlbp_series_strs(s, "pmarkers"))) {
      if (l->n != (px ? px->n : 0))
        return dlb_fail(DLB_EINVAL, "roofline: %zu point markers for %zu points", l->n,
                        px ? px->n : 0);
      for (size_t i = 0; i < l->n; i++)
        if (l->s[i][0] && !inlist(dlbp_markers, l->s[i]))
          return dlb_fail(DLB_EINVAL, "roofline: points[%zu].marker '%s' is not a marker "
                          "(valid: %s)", i + 1, l->s[i], dlbp_markers);
    }
    if (px) for (size_t i = 0; i < px->n; i++)
      *skipped += !isfinite(px->v[i]) || !isfinite(py->v[i]);
    return DLB_OK;
  }
  case DLB_SERIES_SPAN: {
    double lo = dlbp_series_num(s, "lo", NAN), hi = dlbp_series_num(s, "hi", NAN);
    if (!(lo < hi))
      return dlb_fail(DLB_EINVAL, "span: needs lo < hi (got %g, %g)", lo, hi);
    return DLB_OK;
  }
  case DLB_SERIES_TEXT:
    if (!dlbp_series_str(s, "text", NULL))
      return dlb_fail(DLB_EINVAL, "text: option 'text' is missing");
    /* fall through */
  default:
    return DLB_OK;
  }
}

/* Categorical axes always have labels: numeric heat map axes get them formatted (SI
** style), unlabelled bars and boxes get 1..n. */
static int default_labels(dlb_figure *f, int id) {
  series *s = &f->series[id];
  char buf[32];
  int st = DLB_OK;
  if (s->kind == DLB_SERIES_HEATMAP) {
    static const char *const ax[2][2] = {{"x", "xlabels"}, {"y", "ylabels"}};
    for (int k = 0; k < 2; k++) {
      if (dlbp_series_strs(s, ax[k][1])) continue;
      darray *d = dlbp_series_data(s, ax[k][0]);
      double n = d ? (double)d->n : dlbp_series_num(s, k ? "ny" : "nx", 0);
      for (size_t i = 0; st == DLB_OK && i < (size_t)n; i++) {
        if (d) dlbp_format_tick(d->v[i], 0, "auto", buf, sizeof buf);
        else snprintf(buf, sizeof buf, "%zu", i + 1);
        st = dlb_series_addstr(f, id, ax[k][1], buf);
      }
    }
  } else if ((s->kind == DLB_SERIES_BAR || s->kind == DLB_SERIES_BOX) &&
             !dlbp_series_strs(s, "labels")) {
    darray *sz = dlbp_series_data(s, "sizes"), *v = dlbp_series_data(s, "values");
    size_t n = s->kind == DLB_SERIES_BOX ? (sz ? sz->n : 1) : v->n;
    for (size_t i = 0; st == DLB_OK && i < n; i++) {
      snprintf(buf, sizeof buf, "%zu", i + 1);
      st = dlb_series_addstr(f, id, "labels", buf);
    }
  }
  return st;
}

/* Validate a series: on failure it is dropped. */
int dlb_series_commit(dlb_figure *f, int id) {
  series *s = getseries(f, id, "series_commit");
  if (!s) return DLB_EINVAL;
  size_t skipped = 0;
  int st = validate(s, &skipped);
  if (st == DLB_OK) st = dlbp_series_logcheck(f, id);
  if (st != DLB_OK) {
    dlbp_series_clear(s);
    return st;
  }
  if ((st = default_labels(f, id)) != DLB_OK) { dlbp_series_clear(s); return st; }
  f->warning[0] = '\0';
  if (skipped)
    snprintf(f->warning, sizeof f->warning, "%s: %zu NaN or infinite value%s skipped",
             dlbp_kind_name(s->kind), skipped, skipped == 1 ? "" : "s");
  int colour = 0; /* the palette goes to series that take their colour from it */
  for (int i = 0; i < id; i++) {
    series *o = &f->series[i];
    if (o->dead || o->panel != s->panel || dlbp_series_str(o, "color", NULL)) continue;
    colour += o->kind == DLB_SERIES_LINE || o->kind == DLB_SERIES_BAND ||
              o->kind == DLB_SERIES_SPAN || (o->kind == DLB_SERIES_BAR && !dlbp_series_strs(o, "stacks")) ||
              (o->kind == DLB_SERIES_SCATTER && !dlbp_series_data(o, "c") && !dlbp_series_data(o, "group"));
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
