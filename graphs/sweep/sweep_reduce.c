/*
** sweep_reduce.c — reductions fed row by row (rows of ncols numbers, each with an index):
** kept rows up to a cap, Pareto fronts (a row stays unless another is at least as good in
** every objective and better in one; of equal rows the lower index stays), top-k, 1-D/2-D
** bins with an aggregate, grouped count/sum/min/max. Each is mergeable, so a sweep gives
** every thread its own copy (dlb_reduce_like) and merges them at the end; every result is
** ordered by value and index, so it does not depend on the threads.
** The kept rows' storage (pushed rows whole, a compiled sweep's compactly), their column
** reads and their hex text are sweep_kept.c's; the reducer's layout is sweep_reduce_impl.h.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "sweep_impl.h"
#include "sweep_reduce_impl.h"

int dlb_reduce_oom(void) { return dlb_fail(DLB_ENOMEM, "reductions: out of memory"); }

int dlb_reduce_capfail(const dlb_reduce *r) {
  return dlb_fail(DLB_EINVAL, "reductions: more than %.0f rows to keep (the cap on "
                  "materialised rows); reduce them instead (pareto, top, bins, group_by)",
                  r->maxrows);
}

/* Append a row (ncols values) with its index. */
int dlb_reduce_rs_add(rowset *s, size_t ncols, const double *row, double idx) {
  if (s->n == s->cap) {
    size_t c = s->cap ? 2 * s->cap : 64;
    double *v = dlb_realloc(s->v, c * ncols * sizeof *v);
    if (!v) return dlb_reduce_oom();
    s->v = v;
    double *i = dlb_realloc(s->idx, c * sizeof *i);
    if (!i) return dlb_reduce_oom();
    s->idx = i, s->cap = c;
  }
  memcpy(s->v + s->n * ncols, row, ncols * sizeof *row);
  s->idx[s->n++] = idx;
  return DLB_OK;
}

static void rs_del(rowset *s, size_t ncols, size_t i) {
  s->n--;
  if (i != s->n) {
    memcpy(s->v + i * ncols, s->v + s->n * ncols, ncols * sizeof *s->v);
    s->idx[i] = s->idx[s->n];
  }
}

dlb_reduce *dlb_reduce_new(size_t ncols) {
  if (ncols == 0 || ncols > 4096)
    return dlb_fail_null(DLB_EINVAL, "reductions: rows of %zu columns (1..4096)", ncols);
  dlb_reduce *r = dlb_calloc(1, sizeof *r);
  if (!r) return dlb_fail_null(DLB_ENOMEM, "reductions: out of memory");
  r->ncols = ncols;
  r->P = dlb_calloc(MAXRED, sizeof *r->P);
  r->T = dlb_calloc(MAXRED, sizeof *r->T);
  r->B = dlb_calloc(MAXRED, sizeof *r->B);
  r->G = dlb_calloc(MAXRED, sizeof *r->G);
  if (!r->P || !r->T || !r->B || !r->G) { dlb_reduce_free(r); return dlb_fail_null(DLB_ENOMEM, "reductions: out of memory"); }
  return r;
}

void dlb_reduce_free(dlb_reduce *r) {
  if (!r) return;
  dlb_free(r->keep.v); dlb_free(r->keep.idx); dlb_free(r->perm);
  for (size_t i = 0; i < r->nkb; i++) dlb_reduce_kb_free(&r->kb[i]);
  dlb_free(r->kb); dlb_free(r->kbord); dlb_free(r->kbcum); dlb_free(r->mc); dlb_free(r->mcok);
  for (size_t i = 0; r->P && i < r->nP; i++) { dlb_free(r->P[i].s.v); dlb_free(r->P[i].s.idx); }
  for (size_t i = 0; r->T && i < r->nT; i++) { dlb_free(r->T[i].s.v); dlb_free(r->T[i].s.idx); }
  for (size_t i = 0; r->B && i < r->nB; i++) {
    dlb_free(r->B[i].xe); dlb_free(r->B[i].ye); dlb_free(r->B[i].acc); dlb_free(r->B[i].cnt);
  }
  for (size_t i = 0; r->G && i < r->nG; i++) {
    dlb_free(r->G[i].key); dlb_free(r->G[i].val); dlb_free(r->G[i].slot);
  }
  dlb_free(r->P); dlb_free(r->T); dlb_free(r->B); dlb_free(r->G);
  dlb_free(r);
}

static int checkcol(const dlb_reduce *r, int c, const char *what, int optional) {
  if (optional && c < 0) return DLB_OK;
  if (c < 0 || (size_t)c >= r->ncols)
    return dlb_fail(DLB_EINVAL, "reductions: %s column %d out of range (0..%zu)", what, c, r->ncols - 1);
  return DLB_OK;
}

int dlb_reduce_keep(dlb_reduce *r, double maxrows) {
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  if (!(maxrows >= 0)) return dlb_fail(DLB_EINVAL, "reductions: keep needs a cap >= 0, got %g", maxrows);
  r->keeping = 1, r->maxrows = maxrows;
  return DLB_OK;
}

int dlb_reduce_pareto(dlb_reduce *r, size_t n, const int *cols, const int *maximize, int where_col,
                      int *id) {
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  if (n < 1 || n > MAXOBJ)
    return dlb_fail(DLB_EINVAL, "reductions: a Pareto front takes 1..%d objectives (the fixed "
                    "limit MAXOBJ of graphs/sweep/sweep_reduce.c's fronts), got %zu", MAXOBJ, n);
  if (!cols || !id) return dlb_fail(DLB_EINVAL, "reductions: pareto columns or id is NULL");
  if (r->nP == MAXRED) return dlb_fail(DLB_EINVAL, "reductions: at most %d fronts", MAXRED);
  pareto *P = &r->P[r->nP];
  memset(P, 0, sizeof *P);
  for (size_t i = 0; i < n; i++) {
    int st = checkcol(r, cols[i], "pareto", 0);
    if (st) return st;
    P->cols[i] = cols[i];
    P->sign[i] = maximize && maximize[i] ? -1 : 1;
  }
  int st = checkcol(r, where_col, "where", 1);
  if (st) return st;
  P->n = (int)n, P->where = where_col;
  *id = (int)r->nP++;
  return DLB_OK;
}

int dlb_reduce_top(dlb_reduce *r, size_t k, int col, int maximize, int where_col, int *id) {
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  if (k < 1 || k > 1000000) return dlb_fail(DLB_EINVAL, "reductions: top k must be 1..1000000, got %zu", k);
  if (!id) return dlb_fail(DLB_EINVAL, "reductions: id is NULL");
  if (r->nT == MAXRED) return dlb_fail(DLB_EINVAL, "reductions: at most %d top lists", MAXRED);
  int st = checkcol(r, col, "top", 0);
  if (st || (st = checkcol(r, where_col, "where", 1))) return st;
  top *T = &r->T[r->nT];
  memset(T, 0, sizeof *T);
  T->k = k, T->col = col, T->where = where_col, T->sign = maximize ? -1 : 1;
  *id = (int)r->nT++;
  return DLB_OK;
}

static int check_edges(size_t n, const double *e, const char *what) {
  if (!e) return dlb_fail(DLB_EINVAL, "reductions: %s edges are NULL", what);
  if (n < 2) return dlb_fail(DLB_EINVAL, "reductions: bins need at least 2 %s edges, got %zu", what, n);
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(e[i])) return dlb_fail(DLB_EINVAL, "reductions: %s edge %zu is not finite", what, i + 1);
    if (i && !(e[i] > e[i - 1]))
      return dlb_fail(DLB_EINVAL, "reductions: %s edges must increase (edge %zu = %g after %g)",
                      what, i + 1, e[i], e[i - 1]);
  }
  return DLB_OK;
}

int dlb_reduce_bins(dlb_reduce *r, int xcol, size_t nxe, const double *xedges, int ycol,
                    size_t nye, const double *yedges, int zcol, int agg, int where_col, int *id) {
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  if (r->nB == MAXRED) return dlb_fail(DLB_EINVAL, "reductions: at most %d bin sets", MAXRED);
  if (!id) return dlb_fail(DLB_EINVAL, "reductions: id is NULL");
  int st = checkcol(r, xcol, "bins x", 0);
  if (st || (st = checkcol(r, ycol, "bins y", 1)) || (st = checkcol(r, where_col, "where", 1)) ||
      (st = check_edges(nxe, xedges, "x")))
    return st;
  if (ycol >= 0 && (st = check_edges(nye, yedges, "y"))) return st;
  if (agg < DLB_AGG_COUNT || agg > DLB_AGG_MEAN)
    return dlb_fail(DLB_EINVAL, "reductions: unknown aggregate %d", agg);
  if (agg != DLB_AGG_COUNT && (st = checkcol(r, zcol, "bins value", 0))) return st;
  bins *B = &r->B[r->nB];
  memset(B, 0, sizeof *B);
  B->x = xcol, B->y = ycol, B->z = zcol, B->agg = agg, B->where = where_col;
  B->nx = nxe - 1, B->ny = ycol >= 0 ? nye - 1 : 1;
  B->xe = dlb_malloc(nxe * sizeof *B->xe);
  B->ye = dlb_malloc((ycol >= 0 ? nye : 1) * sizeof *B->ye);
  B->acc = dlb_malloc(B->nx * B->ny * sizeof *B->acc);
  B->cnt = dlb_calloc(B->nx * B->ny, sizeof *B->cnt);
  if (!B->xe || !B->ye || !B->acc || !B->cnt) {
    dlb_free(B->xe); dlb_free(B->ye); dlb_free(B->acc); dlb_free(B->cnt);
    return dlb_reduce_oom();
  }
  memcpy(B->xe, xedges, nxe * sizeof *xedges);
  if (ycol >= 0) memcpy(B->ye, yedges, nye * sizeof *yedges);
  double init = agg == DLB_AGG_MIN ? INFINITY : agg == DLB_AGG_MAX ? -INFINITY : 0;
  for (size_t i = 0; i < B->nx * B->ny; i++) B->acc[i] = init;
  *id = (int)r->nB++;
  return DLB_OK;
}

int dlb_reduce_group(dlb_reduce *r, size_t nk, const int *keys, size_t nc, const int *cols,
                     int where_col, int *id) {
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  if (nk < 1 || nk > MAXKEY)
    return dlb_fail(DLB_EINVAL, "reductions: a group_by takes 1..%d keys (the fixed limit MAXKEY "
                    "of graphs/sweep/sweep_reduce.c's groups), got %zu", MAXKEY, nk);
  if (nc > MAXAGG)
    return dlb_fail(DLB_EINVAL, "reductions: a group_by aggregates at most %d columns (the fixed "
                    "limit MAXAGG of graphs/sweep/sweep_reduce.c's groups), got %zu", MAXAGG, nc);
  if (!keys || (nc > 0 && !cols) || !id) return dlb_fail(DLB_EINVAL, "reductions: group_by keys, columns or id is NULL");
  if (r->nG == MAXRED) return dlb_fail(DLB_EINVAL, "reductions: at most %d groupings", MAXRED);
  group *G = &r->G[r->nG];
  memset(G, 0, sizeof *G);
  for (size_t i = 0; i < nk; i++) {
    int st = checkcol(r, keys[i], "group key", 0);
    if (st) return st;
    G->keys[i] = keys[i];
  }
  for (size_t i = 0; i < nc; i++) {
    int st = checkcol(r, cols[i], "group value", 0);
    if (st) return st;
    G->cols[i] = cols[i];
  }
  int st = checkcol(r, where_col, "where", 1);
  if (st) return st;
  G->nk = (int)nk, G->nc = (int)nc, G->where = where_col;
  *id = (int)r->nG++;
  return DLB_OK;
}

dlb_reduce *dlb_reduce_like(const dlb_reduce *r, int keep) {
  dlb_reduce *c = dlb_reduce_new(r->ncols);
  if (!c) return NULL;
  c->keeping = keep && r->keeping, c->maxrows = r->maxrows;
  for (size_t i = 0; i < r->nP; i++) { c->P[i] = r->P[i]; memset(&c->P[i].s, 0, sizeof(rowset)); }
  for (size_t i = 0; i < r->nT; i++) { c->T[i] = r->T[i]; memset(&c->T[i].s, 0, sizeof(rowset)); }
  c->nP = r->nP, c->nT = r->nT;
  for (size_t i = 0; i < r->nB; i++) {
    const bins *B = &r->B[i];
    int id;
    if (dlb_reduce_bins(c, B->x, B->nx + 1, B->xe, B->y, B->ny + 1, B->ye, B->z, B->agg, B->where, &id)) {
      dlb_reduce_free(c);
      return NULL;
    }
  }
  for (size_t i = 0; i < r->nG; i++) {
    const group *G = &r->G[i];
    int id;
    if (dlb_reduce_group(c, (size_t)G->nk, G->keys, (size_t)G->nc, G->cols, G->where, &id)) {
      dlb_reduce_free(c);
      return NULL;
    }
  }
  return c;
}

/* -- feeding -- */

/* a is at least as good as b in every objective (values already signed). */
static int pareto_push(pareto *P, size_t ncols, const double *row, double idx) {
  double v[MAXOBJ];
  for (int i = 0; i < P->n; i++) {
    v[i] = P->sign[i] * row[P->cols[i]];
    if (isnan(v[i])) return DLB_OK;
  }
  rowset *s = &P->s;
  for (size_t j = 0; j < s->n; j++) {
    const double *w = s->v + j * ncols;
    int le = 1, lt = 0, eq = 1;
    for (int i = 0; i < P->n && le; i++) {
      double x = P->sign[i] * w[P->cols[i]];
      if (x > v[i]) le = 0;
      if (x < v[i]) lt = 1;
      if (x != v[i]) eq = 0;
    }
    if (le && (lt || (eq && s->idx[j] < idx))) return DLB_OK; /* dominated */
  }
  for (size_t j = s->n; j-- > 0;) {
    const double *w = s->v + j * ncols;
    int ge = 1;
    for (int i = 0; i < P->n && ge; i++)
      if (P->sign[i] * w[P->cols[i]] < v[i]) ge = 0;
    if (ge) rs_del(s, ncols, j); /* the new row is as good everywhere (and, if equal, earlier) */
  }
  return dlb_reduce_rs_add(s, ncols, row, idx);
}

static int top_push(top *T, size_t ncols, const double *row, double idx) {
  double v = T->sign * row[T->col];
  if (isnan(v)) return DLB_OK;
  rowset *s = &T->s;
  /* s is sorted by (value, index); find the insertion point */
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t m = (lo + hi) / 2;
    double w = T->sign * s->v[m * ncols + T->col];
    if (w < v || (w == v && s->idx[m] < idx)) lo = m + 1; else hi = m;
  }
  if (lo >= T->k) return DLB_OK;
  if (s->n < T->k) {
    int st = dlb_reduce_rs_add(s, ncols, row, idx);
    if (st) return st;
  }
  /* shift [lo, n-1) right by one, dropping the last */
  size_t n = s->n;
  memmove(s->v + (lo + 1) * ncols, s->v + lo * ncols, (n - 1 - lo) * ncols * sizeof *s->v);
  memmove(s->idx + lo + 1, s->idx + lo, (n - 1 - lo) * sizeof *s->idx);
  memcpy(s->v + lo * ncols, row, ncols * sizeof *row);
  s->idx[lo] = idx;
  return DLB_OK;
}

/* The bin of x among n + 1 edges (the last bin closed), or -1. */
static long binof(const double *e, size_t n, double x) {
  if (!(x >= e[0] && x <= e[n])) return -1;
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    size_t m = (lo + hi) / 2;
    if (x >= e[m]) lo = m; else hi = m;
  }
  return (long)lo;
}

static void bins_add(bins *B, size_t cell, double z, double cnt) {
  B->cnt[cell] += cnt;
  switch (B->agg) {
  case DLB_AGG_SUM: case DLB_AGG_MEAN: B->acc[cell] += z; break;
  case DLB_AGG_MIN: if (z < B->acc[cell]) B->acc[cell] = z; break;
  case DLB_AGG_MAX: if (z > B->acc[cell]) B->acc[cell] = z; break;
  default: break;
  }
}

static void bins_push(bins *B, const double *row) {
  long i = binof(B->xe, B->nx, row[B->x]), j = 0;
  if (i < 0) return;
  if (B->y >= 0 && (j = binof(B->ye, B->ny, row[B->y])) < 0) return;
  double z = B->agg == DLB_AGG_COUNT ? 0 : row[B->z];
  if (isnan(z)) return;
  bins_add(B, (size_t)j * B->nx + (size_t)i, z, 1);
}

static uint64_t khash(const double *k, int n) {
  uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i < n; i++) {
    uint64_t c;
    double d = k[i] + 0.0;
    memcpy(&c, &d, sizeof c);
    h = (h ^ c) * 1099511628211ULL;
  }
  return h;
}

/* The group of key k (created when new), or -1 on OOM. */
static long group_slot(group *G, const double *k) {
  if (2 * (G->n + 1) > G->nslot) {
    size_t ns = G->nslot ? 2 * G->nslot : 64;
    int32_t *s = dlb_malloc(ns * sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < ns; i++) s[i] = -1;
    for (size_t g = 0; g < G->n; g++) {
      size_t h = (size_t)khash(G->key + g * G->nk, G->nk) & (ns - 1);
      while (s[h] >= 0) h = (h + 1) & (ns - 1);
      s[h] = (int32_t)g;
    }
    dlb_free(G->slot);
    G->slot = s, G->nslot = ns;
  }
  size_t h = (size_t)khash(k, G->nk) & (G->nslot - 1);
  while (G->slot[h] >= 0) {
    if (!memcmp(G->key + (size_t)G->slot[h] * G->nk, k, (size_t)G->nk * sizeof *k)) return G->slot[h];
    h = (h + 1) & (G->nslot - 1);
  }
  size_t nv = 1 + 3 * (size_t)G->nc;
  if (G->n == G->cap) {
    size_t c = G->cap ? 2 * G->cap : 16;
    double *a = dlb_realloc(G->key, c * G->nk * sizeof *a);
    if (!a) return -1;
    G->key = a;
    double *b = dlb_realloc(G->val, c * nv * sizeof *b);
    if (!b) return -1;
    G->val = b, G->cap = c;
  }
  memcpy(G->key + G->n * G->nk, k, (size_t)G->nk * sizeof *k);
  double *v = G->val + G->n * nv;
  v[0] = 0;
  for (int c = 0; c < G->nc; c++) v[1 + 3 * c] = 0, v[2 + 3 * c] = INFINITY, v[3 + 3 * c] = -INFINITY;
  G->slot[h] = (int32_t)G->n;
  return (long)G->n++;
}

static int group_add(group *G, const double *k, const double *vals, double cnt) {
  long g = group_slot(G, k);
  if (g < 0) return dlb_reduce_oom();
  double *v = G->val + (size_t)g * (1 + 3 * (size_t)G->nc);
  v[0] += cnt;
  for (int c = 0; c < G->nc; c++) {
    v[1 + 3 * c] += vals[3 * c];
    if (vals[3 * c + 1] < v[2 + 3 * c]) v[2 + 3 * c] = vals[3 * c + 1];
    if (vals[3 * c + 2] > v[3 + 3 * c]) v[3 + 3 * c] = vals[3 * c + 2];
  }
  return DLB_OK;
}

static int group_push(group *G, const double *row) {
  double k[MAXKEY], vals[3 * MAXAGG];
  for (int i = 0; i < G->nk; i++) k[i] = row[G->keys[i]] + 0.0;
  for (int c = 0; c < G->nc; c++) vals[3 * c] = vals[3 * c + 1] = vals[3 * c + 2] = row[G->cols[c]];
  return group_add(G, k, vals, 1);
}

int dlb_reduce_push(dlb_reduce *r, size_t n, const double *rows, double first_index) {
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  if (n > 0 && !rows) return dlb_fail(DLB_EINVAL, "reductions: rows is NULL");
  size_t nc = r->ncols;
  for (size_t i = 0; i < n; i++) {
    const double *row = rows + i * nc;
    double idx = first_index + (double)i;
    int st;
    if (r->keeping) {
      if (r->nkb > 0)
        return dlb_fail(DLB_EINVAL, "reductions: the kept rows are a compiled sweep's "
                        "(dlb_sweep_eval, stored compactly); rows pushed with dlb_reduce_push "
                        "cannot join them: keep those in a reducer of their own");
      if ((double)r->keep.n + 1 > r->maxrows) return dlb_reduce_capfail(r);
      if ((st = dlb_reduce_rs_add(&r->keep, nc, row, idx))) return st;
      r->sorted = 0;
    }
    for (size_t k = 0; k < r->nP; k++) {
      pareto *P = &r->P[k];
      if (P->where >= 0 && !(row[P->where] != 0)) continue;
      if ((st = pareto_push(P, nc, row, idx))) return st;
    }
    for (size_t k = 0; k < r->nT; k++) {
      top *T = &r->T[k];
      if (T->where >= 0 && !(row[T->where] != 0)) continue;
      if ((st = top_push(T, nc, row, idx))) return st;
    }
    for (size_t k = 0; k < r->nB; k++)
      if (r->B[k].where < 0 || row[r->B[k].where] != 0) bins_push(&r->B[k], row);
    for (size_t k = 0; k < r->nG; k++)
      if (r->G[k].where < 0 || row[r->G[k].where] != 0)
        if ((st = group_push(&r->G[k], row))) return st;
  }
  r->seen += (double)n;
  return DLB_OK;
}

int dlb_reduce_merge(dlb_reduce *dst, const dlb_reduce *src) {
  size_t nc = dst->ncols;
  int st;
  if (dst->keeping && src->keep.n > 0) {
    if (dst->nkb > 0)
      return dlb_fail(DLB_EINVAL, "reductions: rows pushed with dlb_reduce_push cannot join a "
                      "compiled sweep's kept rows");
    if ((double)(dlb_reduce_kept_rows(dst) + src->keep.n) > dst->maxrows) return dlb_reduce_capfail(dst);
    for (size_t i = 0; i < src->keep.n; i++)
      if ((st = dlb_reduce_rs_add(&dst->keep, nc, src->keep.v + i * nc, src->keep.idx[i]))) return st;
    dst->sorted = 0;
  }
  for (size_t k = 0; k < dst->nP; k++)
    for (size_t i = 0; i < src->P[k].s.n; i++)
      if ((st = pareto_push(&dst->P[k], nc, src->P[k].s.v + i * nc, src->P[k].s.idx[i]))) return st;
  for (size_t k = 0; k < dst->nT; k++)
    for (size_t i = 0; i < src->T[k].s.n; i++)
      if ((st = top_push(&dst->T[k], nc, src->T[k].s.v + i * nc, src->T[k].s.idx[i]))) return st;
  for (size_t k = 0; k < dst->nB; k++) {
    bins *B = &dst->B[k];
    const bins *S = &src->B[k];
    for (size_t c = 0; c < B->nx * B->ny; c++)
      if (S->cnt[c] > 0) bins_add(B, c, S->acc[c], S->cnt[c]);
  }
  for (size_t k = 0; k < dst->nG; k++) {
    const group *S = &src->G[k];
    size_t nv = 1 + 3 * (size_t)S->nc;
    for (size_t g = 0; g < S->n; g++) {
      double vals[3 * MAXAGG];
      const double *v = S->val + g * nv;
      for (int c = 0; c < S->nc; c++)
        vals[3 * c] = v[1 + 3 * c], vals[3 * c + 1] = v[2 + 3 * c], vals[3 * c + 2] = v[3 + 3 * c];
      if ((st = group_add(&dst->G[k], S->key + g * S->nk, vals, v[0]))) return st;
    }
  }
  dst->seen += src->seen;
  return DLB_OK;
}

/* See dlb_sweep.h: a partial state as dlb_reduce_column reads it, added as
** dlb_reduce_merge adds another reducer's (the same pushes, the same order). */
int dlb_reduce_add(dlb_reduce *r, int kind, int id, size_t n, size_t len, const double *data) {
  int st = DLB_OK;
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  if (kind == DLB_RED_KEEP) return dlb_reduce_keep_add(r, id, n, len, data);
  size_t nred = kind == DLB_RED_PARETO ? r->nP : kind == DLB_RED_TOP ? r->nT :
                kind == DLB_RED_BINS ? r->nB : kind == DLB_RED_GROUP ? r->nG : 0;
  if (id < 0 || (size_t)id >= nred)
    return dlb_fail(DLB_EINVAL, "reductions: no reducer %d of kind %d", id, kind);
  if (len > 0 && !data) return dlb_fail(DLB_EINVAL, "reductions: data is NULL");
  size_t nc = r->ncols, w;
  if (kind == DLB_RED_BINS) w = 2;
  else if (kind == DLB_RED_GROUP) w = (size_t)r->G[id].nk + 1 + 3 * (size_t)r->G[id].nc;
  else w = nc + 1;
  if (kind == DLB_RED_BINS && n != r->B[id].nx * r->B[id].ny)
    return dlb_fail(DLB_EINVAL, "reductions: %zu bins given, the heat map has %zu", n,
                    r->B[id].nx * r->B[id].ny);
  /* len / w, not n * w: a count whose product with the width wraps around size_t (2^62 x 4
  ** = 0) would pass and read past data */
  if (len % w != 0 || len / w != n)
    return dlb_fail(DLB_EINVAL, "reductions: %zu values for %zu entries of %zu", len, n, w);
  for (size_t i = 0; i < n; i++) {
    const double *e = data + i * w;
    if (kind == DLB_RED_PARETO) st = pareto_push(&r->P[id], nc, e + 1, e[0]);
    else if (kind == DLB_RED_TOP) st = top_push(&r->T[id], nc, e + 1, e[0]);
    else if (kind == DLB_RED_BINS) { if (e[1] > 0) bins_add(&r->B[id], i, e[0], e[1]); }
    else {
      const group *G = &r->G[id];
      double vals[3 * MAXAGG];
      for (int c = 0; c < G->nc; c++)
        for (int j = 0; j < 3; j++) vals[3 * c + j] = e[G->nk + 1 + 3 * c + j];
      st = group_add(&r->G[id], e, vals, e[G->nk]);
    }
    if (st) return st;
  }
  return DLB_OK;
}

/* -- results -- */

double dlb_reduce_seen(const dlb_reduce *r) { return r ? r->seen : 0; }
size_t dlb_reduce_ncols(const dlb_reduce *r) { return r ? r->ncols : 0; }

typedef struct ord { double key1, idx; size_t pos; } ord;
static int cmpord(const void *a, const void *b) {
  const ord *x = a, *y = b;
  if (x->key1 != y->key1) return x->key1 < y->key1 ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Reorder a rowset by (key1 of column col with sign, index); col < 0: by index. */
static int rs_sort(rowset *s, size_t ncols, int col, double sign) {
  if (s->n < 2) return DLB_OK;
  ord *o = dlb_malloc(s->n * sizeof *o);
  double *v = dlb_malloc(s->n * ncols * sizeof *v), *ix = dlb_malloc(s->n * sizeof *ix);
  if (!o || !v || !ix) { dlb_free(o); dlb_free(v); dlb_free(ix); return dlb_reduce_oom(); }
  for (size_t i = 0; i < s->n; i++)
    o[i] = (ord){col >= 0 ? sign * s->v[i * ncols + col] : 0, s->idx[i], i};
  qsort(o, s->n, sizeof *o, cmpord);
  for (size_t i = 0; i < s->n; i++) {
    memcpy(v + i * ncols, s->v + o[i].pos * ncols, ncols * sizeof *v);
    ix[i] = s->idx[o[i].pos];
  }
  dlb_free(o); dlb_free(s->v); dlb_free(s->idx);
  s->v = v, s->idx = ix, s->cap = s->n;
  return DLB_OK;
}

/* The rowset or container of reducer (kind, id); NULL with a message. */
int dlb_reduce_find(dlb_reduce *r, int kind, int id, rowset **s) {
  *s = NULL;
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  size_t n = kind == DLB_RED_KEEP ? (size_t)r->keeping : kind == DLB_RED_PARETO ? r->nP :
             kind == DLB_RED_TOP ? r->nT : kind == DLB_RED_BINS ? r->nB : kind == DLB_RED_GROUP ? r->nG : 0;
  if (id < 0 || (size_t)id >= n)
    return dlb_fail(DLB_EINVAL, "reductions: no reducer %d of kind %d", id, kind);
  if (kind == DLB_RED_KEEP && r->nkb > 0) {
    if (!r->sorted) { /* the blocks by first index (stable), with the rows before each */
      size_t nb = r->nkb;
      ord *o = dlb_malloc(nb * sizeof *o);
      size_t *bo = dlb_realloc(r->kbord, nb * sizeof *bo);
      if (bo) r->kbord = bo;
      size_t *cum = bo ? dlb_realloc(r->kbcum, (nb + 1) * sizeof *cum) : NULL;
      if (cum) r->kbcum = cum;
      if (!o || !bo || !cum) { dlb_free(o); return dlb_reduce_oom(); }
      for (size_t i = 0; i < nb; i++) o[i] = (ord){r->kb[i].first, (double)i, i};
      qsort(o, nb, sizeof *o, cmpord);
      cum[0] = 0;
      for (size_t i = 0; i < nb; i++) bo[i] = o[i].pos, cum[i + 1] = cum[i] + r->kb[o[i].pos].n;
      dlb_free(o);
      r->sorted = 1;
    }
    *s = &r->keep;
  } else if (kind == DLB_RED_KEEP) {
    if (!r->sorted) { /* a permutation by index, not a second copy of the rows */
      size_t n = r->keep.n;
      ord *o = dlb_malloc((n + 1) * sizeof *o);
      size_t *pm = dlb_realloc(r->perm, (n + 1) * sizeof *pm);
      if (!o || !pm) { dlb_free(o); if (pm) r->perm = pm; return dlb_reduce_oom(); }
      r->perm = pm;
      for (size_t i = 0; i < n; i++) o[i] = (ord){0, r->keep.idx[i], i};
      qsort(o, n, sizeof *o, cmpord);
      for (size_t i = 0; i < n; i++) pm[i] = o[i].pos;
      dlb_free(o);
      r->sorted = 1;
    }
    *s = &r->keep;
  } else if (kind == DLB_RED_PARETO) {
    pareto *P = &r->P[id];
    int st = rs_sort(&P->s, r->ncols, P->cols[0], P->sign[0]);
    if (st) return st;
    *s = &P->s;
  } else if (kind == DLB_RED_TOP) *s = &r->T[id].s;
  return DLB_OK;
}

size_t dlb_reduce_size(dlb_reduce *r, int kind, int id) {
  rowset *s;
  if (dlb_reduce_find(r, kind, id, &s) != DLB_OK) return 0;
  if (kind == DLB_RED_KEEP) return dlb_reduce_kept_rows(r);
  if (kind == DLB_RED_BINS) return r->B[id].nx * r->B[id].ny;
  if (kind == DLB_RED_GROUP) return r->G[id].n;
  return s->n;
}

int dlb_reduce_column(dlb_reduce *r, int kind, int id, int col, size_t start, size_t n, double *out) {
  rowset *s;
  int st = dlb_reduce_find(r, kind, id, &s);
  if (st) return st;
  if (n > 0 && !out) return dlb_fail(DLB_EINVAL, "reductions: out is NULL");
  size_t size = dlb_reduce_size(r, kind, id);
  if (start > size || n > size - start)
    return dlb_fail(DLB_EINVAL, "reductions: rows %zu..%zu out of range (%zu)", start + 1, start + n, size);
  if (kind == DLB_RED_BINS) {
    const bins *B = &r->B[id];
    if (col < 0 || col > 2)
      return dlb_fail(DLB_EINVAL, "reductions: bins have columns 0 (value), 1 (count) and 2 (accumulator)");
    for (size_t i = 0; i < n; i++) {
      size_t c = start + i;
      double cnt = B->cnt[c], a = B->acc[c];
      if (col == 1) out[i] = cnt;
      else if (col == 2) out[i] = a;
      else if (B->agg == DLB_AGG_COUNT) out[i] = cnt;
      else if (B->agg == DLB_AGG_SUM) out[i] = a;
      else out[i] = cnt > 0 ? (B->agg == DLB_AGG_MEAN ? a / cnt : a) : NAN;
    }
    return DLB_OK;
  }
  if (kind == DLB_RED_GROUP) {
    const group *G = &r->G[id];
    size_t nv = 1 + 3 * (size_t)G->nc;
    if (col < 0 || (size_t)col >= (size_t)G->nk + nv)
      return dlb_fail(DLB_EINVAL, "reductions: group column %d out of range (0..%zu)", col, G->nk + nv - 1);
    for (size_t i = 0; i < n; i++) {
      size_t g = start + i;
      out[i] = col < G->nk ? G->key[g * G->nk + col] : G->val[g * nv + (size_t)(col - G->nk)];
    }
    return DLB_OK;
  }
  if (col < -1 || col >= (int)r->ncols)
    return dlb_fail(DLB_EINVAL, "reductions: column %d out of range (-1..%zu)", col, r->ncols - 1);
  if (kind == DLB_RED_KEEP && r->nkb > 0) return dlb_reduce_kb_column(r, col, start, n, out);
  const size_t *pm = kind == DLB_RED_KEEP ? r->perm : NULL;
  for (size_t i = 0; i < n; i++) {
    size_t row = pm ? pm[start + i] : start + i;
    out[i] = col < 0 ? s->idx[row] : s->v[row * r->ncols + (size_t)col];
  }
  return DLB_OK;
}
