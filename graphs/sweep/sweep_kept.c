/*
** sweep_kept.c — a reducer's kept rows (graphs/sweep/sweep_reduce.c's reductions hold them;
** the reducer's layout is sweep_reduce_impl.h): pushed rows added back, a compiled sweep's
** blocks stored and dropped, every row's columns read in index order, and the stored numbers
** as hex text (a checkpoint's chunk lines) and back.
** Kept rows come two ways. Rows pushed by dlb_reduce_push are held whole (8 bytes a cell,
** row-major). A compiled sweep's rows (dlb_sweep_eval, through dlb_reduce_keep_block) are held
** compactly, one block per call: per row only the four numbers of the step model
** (DLB_SWK_*: time, FLOPs, bytes, memory-bound time, 32 bytes); the row's index, its grid
** coordinates (tags, symbols, device) follow from its position in the block, and every other
** column is recomputed on read by the evaluator's own helpers (dlb_sweep_rates,
** dlb_sweep_memcols) from the program the block holds, so a read gives the very bits the
** evaluator wrote into its rows (docs/sweep.md "Kept rows").
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "sweep_impl.h"
#include "sweep_reduce_impl.h"

/* Free a block of a compiled sweep's kept rows (its reference to the program dropped). */
void dlb_reduce_kb_free(kblock *B) {
  dlb_free(B->values); dlb_free(B->tags); dlb_free(B->dev); dlb_free(B->st); dlb_free(B->ids);
  dlb_sweep_prog_free(B->p);
  memset(B, 0, sizeof *B);
}

/* Rows kept: pushed ones and the compiled sweep's. */
size_t dlb_reduce_kept_rows(const dlb_reduce *r) {
  size_t n = r->keep.n;
  for (size_t i = 0; i < r->nkb; i++) n += r->kb[i].n;
  return n;
}

/* Kept pushed rows (n of 1 + ncols numbers: the index, then the row) added to r's, as
** dlb_reduce_merge adds another reducer's; a compiled sweep's (stored compactly) are
** dlb_sweep_keep's. */
int dlb_reduce_keep_add(dlb_reduce *r, int id, size_t n, size_t len, const double *data) {
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
  if ((double)(r->keep.n + n) > r->maxrows) return dlb_reduce_capfail(r);
  for (size_t i = 0; i < n; i++)
    if ((st = dlb_reduce_rs_add(&r->keep, nc, data + i * w + 1, data[i * w]))) return st;
  if (n > 0) r->sorted = 0;
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
  if ((double)dlb_reduce_kept_rows(r) + (double)n > r->maxrows) return dlb_reduce_capfail(r);
  if (r->nkb == r->capkb) {
    size_t c = r->capkb ? 2 * r->capkb : 16;
    kblock *a = dlb_realloc(r->kb, c * sizeof *a);
    if (!a) return dlb_reduce_oom();
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
  if (!B->values || !B->tags || !B->dev || !B->st || !B->ids) { dlb_reduce_kb_free(B); return dlb_reduce_oom(); }
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
  dlb_reduce_kb_free(&r->kb[--r->nkb]);
  r->sorted = 0, r->mcn = 0;
}

/* Column col (-1: the index) of a compiled sweep's kept rows start .. start + n - 1, in index
** order: the block's coordinates at each row's position, its stored values, and the rest
** recomputed by the evaluator's helpers (the same code, so the same bits). */
int dlb_reduce_kb_column(dlb_reduce *r, int col, size_t start, size_t n, double *out) {
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
        return dlb_reduce_oom();
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
        if (!mv || !pv) { st = dlb_reduce_oom(); break; }
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
  int st = dlb_reduce_find(r, DLB_RED_KEEP, 0, &s);
  if (st) return st;
  size_t size = dlb_reduce_kept_rows(r);
  if (start > size || n > size - start)
    return dlb_fail(DLB_EINVAL, "reductions: rows %zu..%zu out of range (%zu)", start + 1, start + n, size);
  int pushed = r->nkb == 0;
  size_t nc = r->ncols, w = 16 * (pushed ? nc + 1 : DLB_SWK_COUNT);
  char *out = dlb_malloc(n * w + 1);
  if (!out) return dlb_reduce_oom();
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
  if (n == 0) return dlb_reduce_keep_add(r, 0, 0, 0, NULL);
  double *v = dlb_malloc(n * w * sizeof *v);
  if (!v) return dlb_reduce_oom();
  int st = dlb_sweep_unhex(text, n * w, v);
  if (!st) st = dlb_reduce_keep_add(r, 0, n, n * w, v);
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
