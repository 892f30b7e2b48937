/*
** sweep_reduce.c — reductions fed row by row (rows of ncols numbers, each with an index):
** kept rows up to a cap, Pareto fronts (a row stays unless another is at least as good in
** every objective and better in one; of equal rows the lower index stays), top-k, 1-D/2-D
** bins with an aggregate, grouped count/sum/min/max. Each is mergeable, so a sweep gives
** every thread its own copy (dlb_reduce_like) and merges them at the end; every result is
** ordered by value and index, so it does not depend on the threads.
** Kept rows come two ways. Rows pushed by dlb_reduce_push are held whole (8 bytes a cell,
** row-major). A compiled sweep's rows (dlb_sweep_eval, through dlb_reduce_keep_block) are held
** compactly, one block per call: per row only the four numbers of the step model
** (DLB_SWK_*: time, FLOPs, bytes, memory-bound time, 32 bytes); the row's index, its grid
** coordinates (tags, symbols, device) follow from its position in the block, and every other
** column is recomputed on read by the evaluator's own helpers (dlb_sweep_rates,
** dlb_sweep_memcols) from the program the block holds, so a read gives the very bits the
** evaluator wrote into its rows (docs/sweep.md "Kept rows").
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "sweep_impl.h"

enum { MAXOBJ = 8, MAXKEY = 8, MAXAGG = 32, MAXRED = 64, MCROWS = 65536 };

/* Rows with their indices: a growable block. */
typedef struct rowset { double *v, *idx; size_t n, cap; } rowset;

typedef struct pareto { int n, cols[MAXOBJ], where; double sign[MAXOBJ]; rowset s; } pareto;
typedef struct top { size_t k; int col, where; double sign; rowset s; } top;
typedef struct bins {
  int x, y, z, agg, where;
  size_t nx, ny;
  double *xe, *ye, *acc, *cnt;
} bins;
/* A compiled sweep's kept rows: one dlb_sweep_eval call's grid (its arguments, copied). */
typedef struct kblock {
  dlb_sweep_prog *p;             /* a reference (dlb_sweep_prog_hold) */
  double first;                  /* the index of position 0 */
  size_t n, nv, ntags, nval[DLB_POLY_MAXVARS], voff[DLB_POLY_MAXVARS];
  double *values, *tags;
  double *dev;                   /* per device: peak, bytes_scale, memory rule (DLB_SWM_COUNT) */
  int per;
  double *st;                    /* n x DLB_SWK_COUNT stored values */
  int32_t *ids;                  /* the polynomials the recomputed columns read */
  size_t nids;
} kblock;

typedef struct group {
  int nk, keys[MAXKEY], nc, cols[MAXAGG], where;
  double *key, *val;             /* per group: nk keys; 1 + 3 nc values (count, sum/min/max) */
  size_t n, cap;
  int32_t *slot;
  size_t nslot;
} group;

struct dlb_reduce {
  size_t ncols;
  double seen;
  int keeping, sorted;
  double maxrows;
  rowset keep;
  size_t *perm;          /* the kept rows in index order (made on first read) */
  kblock *kb; size_t nkb, capkb;  /* a compiled sweep's kept rows */
  size_t *kbord, *kbcum;  /* blocks by first index; rows before each (made on first read) */
  /* the recomputed columns of the last range read (start, n <= MCROWS rows), so that reading
  ** a range column by column (a table's rows, CSV) runs the program once a row */
  double *mc; uint8_t *mcok; size_t mcstart, mcn;
  pareto *P; size_t nP;
  top *T; size_t nT;
  bins *B; size_t nB;
  group *G; size_t nG;
};

static int oom(void) { return dlb_fail(DLB_ENOMEM, "reductions: out of memory"); }

static int capfail(const dlb_reduce *r) {
  return dlb_fail(DLB_EINVAL, "reductions: more than %.0f rows to keep (the cap on "
                  "materialised rows); reduce them instead (pareto, top, bins, group_by)",
                  r->maxrows);
}

static void kb_free(kblock *B) {
  dlb_free(B->values); dlb_free(B->tags); dlb_free(B->dev); dlb_free(B->st); dlb_free(B->ids);
  dlb_sweep_prog_free(B->p);
  memset(B, 0, sizeof *B);
}

/* Rows kept: pushed ones and the compiled sweep's. */
static size_t kept_rows(const dlb_reduce *r) {
  size_t n = r->keep.n;
  for (size_t i = 0; i < r->nkb; i++) n += r->kb[i].n;
  return n;
}

/* Append a row (ncols values) with its index. */
static int rs_add(rowset *s, size_t ncols, const double *row, double idx) {
  if (s->n == s->cap) {
    size_t c = s->cap ? 2 * s->cap : 64;
    double *v = dlb_realloc(s->v, c * ncols * sizeof *v);
    if (!v) return oom();
    s->v = v;
    double *i = dlb_realloc(s->idx, c * sizeof *i);
    if (!i) return oom();
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
  for (size_t i = 0; i < r->nkb; i++) kb_free(&r->kb[i]);
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
    return oom();
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
  return rs_add(s, ncols, row, idx);
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
    int st = rs_add(s, ncols, row, idx);
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
  if (g < 0) return oom();
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
      if ((double)r->keep.n + 1 > r->maxrows) return capfail(r);
      if ((st = rs_add(&r->keep, nc, row, idx))) return st;
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
    if ((double)(kept_rows(dst) + src->keep.n) > dst->maxrows) return capfail(dst);
    for (size_t i = 0; i < src->keep.n; i++)
      if ((st = rs_add(&dst->keep, nc, src->keep.v + i * nc, src->keep.idx[i]))) return st;
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

/* Kept pushed rows (n of 1 + ncols numbers: the index, then the row) added to r's, as
** dlb_reduce_merge adds another reducer's; a compiled sweep's (stored compactly) are
** dlb_sweep_keep's. */
static int keep_add(dlb_reduce *r, int id, size_t n, size_t len, const double *data) {
  size_t nc = r->ncols, w = nc + 1;
  int st;
  if (id != 0 || !r->keeping)
    return dlb_fail(DLB_EINVAL, "reductions: no reducer %d of kind %d", id, DLB_RED_KEEP);
  if (r->nkb > 0)
    return dlb_fail(DLB_EINVAL, "reductions: the kept rows are a compiled sweep's (stored "
                    "compactly): they are added by dlb_sweep_keep");
  if (len > 0 && !data) return dlb_fail(DLB_EINVAL, "reductions: data is NULL");
  if (len != n * w)
    return dlb_fail(DLB_EINVAL, "reductions: %zu values for %zu entries of %zu", len, n, w);
  if ((double)(r->keep.n + n) > r->maxrows) return capfail(r);
  for (size_t i = 0; i < n; i++)
    if ((st = rs_add(&r->keep, nc, data + i * w + 1, data[i * w]))) return st;
  if (n > 0) r->sorted = 0;
  return DLB_OK;
}

/* See dlb_sweep.h: a partial state as dlb_reduce_column reads it, added as
** dlb_reduce_merge adds another reducer's (the same pushes, the same order). */
int dlb_reduce_add(dlb_reduce *r, int kind, int id, size_t n, size_t len, const double *data) {
  int st = DLB_OK;
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  if (kind == DLB_RED_KEEP) return keep_add(r, id, n, len, data);
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

int dlb_reduce_keep_block(dlb_reduce *r, const dlb_sweep_prog *p, const size_t *nval,
                          const size_t *voff, const double *values, size_t nroofs,
                          const dlb_roof *roofs, const double *mem, size_t ntags,
                          const double *tags, int per, double first, size_t n, double **st) {
  *st = NULL;
  if (!r->keeping) return DLB_OK;
  if (r->keep.n > 0)
    return dlb_fail(DLB_EINVAL, "reductions: the reducer keeps rows pushed with "
                    "dlb_reduce_push; a compiled sweep's rows (stored compactly) cannot join "
                    "them: give the sweep a reducer of its own");
  if ((double)kept_rows(r) + (double)n > r->maxrows) return capfail(r);
  if (r->nkb == r->capkb) {
    size_t c = r->capkb ? 2 * r->capkb : 16;
    kblock *a = dlb_realloc(r->kb, c * sizeof *a);
    if (!a) return oom();
    r->kb = a, r->capkb = c;
  }
  size_t nv = (size_t)p->nv, nvals = nv ? voff[nv - 1] + nval[nv - 1] : 0;
  kblock *B = &r->kb[r->nkb];
  memset(B, 0, sizeof *B);
  B->values = dlb_malloc((nvals + 1) * sizeof *B->values);
  B->tags = dlb_malloc((ntags + 1) * sizeof *B->tags);
  B->dev = dlb_malloc((2 + DLB_SWM_COUNT) * nroofs * sizeof *B->dev);
  B->st = dlb_malloc(n * DLB_SWK_COUNT * sizeof *B->st);
  B->nids = dlb_sweep_memcol_polys(p, NULL);
  B->ids = dlb_malloc((B->nids + 1) * sizeof *B->ids);
  if (!B->values || !B->tags || !B->dev || !B->st || !B->ids) { kb_free(B); return oom(); }
  dlb_sweep_memcol_polys(p, B->ids);
  if (nvals) memcpy(B->values, values, nvals * sizeof *values);
  if (ntags) memcpy(B->tags, tags, ntags * sizeof *tags);
  for (size_t d = 0; d < nroofs; d++) {
    double *e = B->dev + (2 + DLB_SWM_COUNT) * d;
    e[0] = roofs[d].peak, e[1] = roofs[d].bytes_scale;
    memcpy(e + 2, mem + DLB_SWM_COUNT * d, DLB_SWM_COUNT * sizeof *mem);
  }
  for (size_t v = 0; v < nv; v++) B->nval[v] = nval[v], B->voff[v] = voff[v];
  B->first = first, B->n = n, B->nv = nv, B->ntags = ntags, B->per = per;
  dlb_sweep_prog_hold(p);
  B->p = (dlb_sweep_prog *)p;
  r->nkb++;
  r->sorted = 0, r->mcn = 0;
  *st = B->st;
  return DLB_OK;
}

void dlb_reduce_drop_block(dlb_reduce *r) {
  if (r->nkb == 0) return;
  kb_free(&r->kb[--r->nkb]);
  r->sorted = 0, r->mcn = 0;
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
  if (!o || !v || !ix) { dlb_free(o); dlb_free(v); dlb_free(ix); return oom(); }
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
static int find(dlb_reduce *r, int kind, int id, rowset **s) {
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
      if (!o || !bo || !cum) { dlb_free(o); return oom(); }
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
      if (!o || !pm) { dlb_free(o); if (pm) r->perm = pm; return oom(); }
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

/* Column col (-1: the index) of a compiled sweep's kept rows start .. start + n - 1, in index
** order: the block's coordinates at each row's position, its stored values, and the rest
** recomputed by the evaluator's helpers (the same code, so the same bits). */
static int kb_column(dlb_reduce *r, int col, size_t start, size_t n, double *out) {
  const size_t *cum = r->kbcum, *bo = r->kbord;
  size_t lo = 0, hi = r->nkb; /* the block holding row start: cum[b] <= start < cum[b + 1] */
  while (hi - lo > 1) {
    size_t m = (lo + hi) / 2;
    if (cum[m] <= start) lo = m; else hi = m;
  }
  size_t b = lo;
  double *mv = NULL, *pv = NULL;
  size_t capm = 0, capp = 0;
  int st = DLB_OK;
  int cache = n > 0 && n <= MCROWS;
  if (cache && !(r->mcn == n && r->mcstart == start)) {
    if (!r->mc) {
      r->mc = dlb_malloc((size_t)MCROWS * DLB_SWC_COUNT * sizeof *r->mc);
      r->mcok = dlb_malloc(MCROWS);
      if (!r->mc || !r->mcok) {
        dlb_free(r->mc); dlb_free(r->mcok);
        r->mc = NULL, r->mcok = NULL;
        return oom();
      }
    }
    memset(r->mcok, 0, n);
    r->mcstart = start, r->mcn = n;
  }
  for (size_t i = 0; i < n && st == DLB_OK; i++) {
    size_t g = start + i;
    while (g >= cum[b + 1]) b++;
    const kblock *B = &r->kb[bo[b]];
    size_t x = g - cum[b], nt = B->ntags, nv = B->nv;
    if (col < 0) { out[i] = B->first + (double)x; continue; }
    if ((size_t)col < nt) { out[i] = B->tags[col]; continue; }
    double vals[DLB_POLY_MAXVARS], o[DLB_SWC_COUNT] = {0};
    size_t ri = dlb_sweep_point(nv, B->nval, B->voff, B->values, x, vals);
    if ((size_t)col < nt + nv) { out[i] = vals[(size_t)col - nt]; continue; }
    if ((size_t)col == nt + nv) { out[i] = (double)ri; continue; }
    int k = col - (int)(nt + nv + 1);
    const double *dv = B->dev + (2 + DLB_SWM_COUNT) * ri;
    if (k == DLB_SWC_TIME || k == DLB_SWC_FLOPS || k == DLB_SWC_BYTES ||
        k == DLB_SWC_MEMORY_BOUND_TIME || k == DLB_SWC_UTIL || k == DLB_SWC_THROUGHPUT) {
      dlb_sweep_rates(B->p, vals, B->per, dv[0], B->st + DLB_SWK_COUNT * x, o);
    } else if (cache && r->mcok[i]) {
      out[i] = r->mc[i * DLB_SWC_COUNT + (size_t)k];
      continue;
    } else {
      if (B->p->nmono + 1 > capm || B->p->npoly + 1 > capp) {
        dlb_free(mv); dlb_free(pv);
        capm = B->p->nmono + 1, capp = B->p->npoly + 1;
        mv = dlb_malloc(capm * sizeof *mv), pv = dlb_malloc(capp * sizeof *pv);
        if (!mv || !pv) { st = oom(); break; }
      }
      dlb_sweep_values_of(B->p, vals, mv, pv, B->ids, B->nids);
      if ((st = dlb_sweep_memcols(B->p, vals, pv, dv[1], dv + 2, o))) break;
      if (cache) memcpy(r->mc + i * DLB_SWC_COUNT, o, sizeof o), r->mcok[i] = 1;
    }
    out[i] = o[k];
  }
  dlb_free(mv); dlb_free(pv);
  return st;
}

/* v as 16 hex digits (its IEEE-754 bits, most significant first) at o. */
static void hex16(char *o, double v) {
  static const char hex[] = "0123456789abcdef";
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  for (int d = 15; d >= 0; d--, u >>= 4) o[d] = hex[u & 15];
}

/* See dlb_sweep.h: the stored numbers of kept rows start .. start + n - 1 as hex text (pushed
** rows: each row's index, then the row). */
int dlb_reduce_keep_text(dlb_reduce *r, size_t start, size_t n, char **text, size_t *len) {
  rowset *s;
  if (!text || !len) return dlb_fail(DLB_EINVAL, "reductions: text or len is NULL");
  *text = NULL, *len = 0;
  int st = find(r, DLB_RED_KEEP, 0, &s);
  if (st) return st;
  size_t size = kept_rows(r);
  if (start > size || n > size - start)
    return dlb_fail(DLB_EINVAL, "reductions: rows %zu..%zu out of range (%zu)", start + 1, start + n, size);
  int pushed = r->nkb == 0;
  size_t nc = r->ncols, w = 16 * (pushed ? nc + 1 : DLB_SWK_COUNT);
  char *out = dlb_malloc(n * w + 1);
  if (!out) return oom();
  if (pushed) { /* in index order (find sorted the permutation) */
    for (size_t i = 0; i < n; i++) {
      size_t row = r->perm[start + i];
      hex16(out + i * w, s->idx[row]);
      for (size_t c = 0; c < nc; c++) hex16(out + i * w + 16 * (c + 1), s->v[row * nc + c]);
    }
  } else {
    const size_t *cum = r->kbcum, *bo = r->kbord;
    size_t b = 0;
    for (size_t i = 0; i < n; i++) {
      size_t g = start + i;
      while (g >= cum[b + 1]) b++;
      const kblock *B = &r->kb[bo[b]];
      const double *v = B->st + DLB_SWK_COUNT * (g - cum[b]);
      for (int k = 0; k < DLB_SWK_COUNT; k++) hex16(out + i * w + 16 * (size_t)k, v[k]);
    }
  }
  out[n * w] = 0;
  *text = out, *len = n * w;
  return DLB_OK;
}

/* See dlb_sweep.h: pushed kept rows from their hex text, added as dlb_reduce_add's KEEP. */
int dlb_reduce_keep_add_text(dlb_reduce *r, size_t n, const char *text, size_t len) {
  if (!r) return dlb_fail(DLB_EINVAL, "reductions: NULL");
  size_t w = r->ncols + 1;
  if (len > 0 && !text) return dlb_fail(DLB_EINVAL, "reductions: text is NULL");
  if (len != 16 * w * n)
    return dlb_fail(DLB_EINVAL, "reductions: %zu characters for %zu kept rows of %zu numbers "
                    "(16 hex digits each)", len, n, w);
  if (n == 0) return keep_add(r, 0, 0, 0, NULL);
  double *v = dlb_malloc(n * w * sizeof *v);
  if (!v) return oom();
  int st = dlb_sweep_unhex(text, n * w, v);
  if (!st) st = keep_add(r, 0, n, n * w, v);
  dlb_free(v);
  return st;
}

void dlb_reduce_text_free(char *text) { dlb_free(text); }

/* The numbers of hex text (16 digits a number, IEEE-754 bits, most significant first) into
** out[0 .. n); DLB_EINVAL naming the first bad digit. */
int dlb_sweep_unhex(const char *text, size_t n, double *out) {
  for (size_t i = 0; i < n; i++) {
    uint64_t u = 0;
    for (int d = 0; d < 16; d++) {
      char c = text[16 * i + (size_t)d];
      int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (x < 0)
        return dlb_fail(DLB_EINVAL, "compiled sweep: stored values: character %zu is not a hex "
                        "digit", 16 * i + (size_t)d + 1);
      u = u << 4 | (uint64_t)x;
    }
    memcpy(&out[i], &u, sizeof u);
  }
  return DLB_OK;
}

size_t dlb_reduce_size(dlb_reduce *r, int kind, int id) {
  rowset *s;
  if (find(r, kind, id, &s) != DLB_OK) return 0;
  if (kind == DLB_RED_KEEP) return kept_rows(r);
  if (kind == DLB_RED_BINS) return r->B[id].nx * r->B[id].ny;
  if (kind == DLB_RED_GROUP) return r->G[id].n;
  return s->n;
}

int dlb_reduce_column(dlb_reduce *r, int kind, int id, int col, size_t start, size_t n, double *out) {
  rowset *s;
  int st = find(r, kind, id, &s);
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
  if (kind == DLB_RED_KEEP && r->nkb > 0) return kb_column(r, col, start, n, out);
  const size_t *pm = kind == DLB_RED_KEEP ? r->perm : NULL;
  for (size_t i = 0; i < n; i++) {
    size_t row = pm ? pm[start + i] : start + i;
    out[i] = col < 0 ? s->idx[row] : s->v[row * r->ncols + (size_t)col];
  }
  return DLB_OK;
}
