/*
** sweep_peak.c — the construction order's memory peak of a compiled program, exact for
** every configuration (docs/sweep.md "Memory"): each op position's live bytes (and the
** activations + workspace among them) of the three builds, walked in construction order as
** graphs/step/footprint.c's simulate counts them (compile_step, sweep_compile.c), fitted as a
** linear function of the layer count and the repetition index (two edge terms where the first
** or last repetition differs), checked against every observation, and pruned of positions
** another dominates; dlb_sweep_peak (sweep_eval.c) evaluates what is left per configuration.
** Called by dlb_sweep_prog_finish (sweep_compile.c).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_runtime.h"
#include "dlb_sweep.h"
#include "sweep_impl.h"

/* -- the construction order's peak -- */

/* One observation of an op position's live bytes: build layers L, repetition r of R, value v. */
typedef struct pkobs { double L, r, R; const swpoly *v; } pkobs;

enum { PK_MAXCOL = 5 };

/* Observation o's row of the fit's basis: 1; with layers, L; in a repeated segment r, and
** with edges [r = 0], [r = R - 1] (the first and the last repetition, where a layer's
** neighbour differs: the input of the first, the loss side of the last). */
static int pk_row(const pkobs *o, int ncol, double *row) {
  double full[PK_MAXCOL] = {1, o->L, o->r, o->r == 0, o->r == o->R - 1};
  for (int j = 0; j < ncol; j++) row[j] = full[j];
  return ncol;
}

/* Rank of k rows of m scalars (Gaussian elimination; a copy). */
static int rank_of(const double (*rows)[PK_MAXCOL], int k, int m) {
  double a[PK_MAXCOL + 1][PK_MAXCOL];
  memcpy(a, rows, (size_t)k * sizeof a[0]);
  int r = 0;
  for (int c = 0; c < m && r < k; c++) {
    int piv = -1;
    for (int i = r; i < k; i++) if (fabs(a[i][c]) > 1e-9 && (piv < 0 || fabs(a[i][c]) > fabs(a[piv][c]))) piv = i;
    if (piv < 0) continue;
    for (int j = 0; j < m; j++) { double t = a[r][j]; a[r][j] = a[piv][j]; a[piv][j] = t; }
    for (int i = r + 1; i < k; i++) {
      double f = a[i][c] / a[r][c];
      for (int j = 0; j < m; j++) a[i][j] -= f * a[r][j];
    }
    r++;
  }
  return r;
}

/* Coefficients within 1e-9 of an integer become it (the fit's divisions leave 1e-16 residues
** on byte counts, which are integers: exact sums keep first-maximum ties as footprint.c's
** simulate sees them). */
static void snap(swpoly *a) {
  for (size_t i = 0; i < a->n; i++) {
    double r = nearbyint(a->t[i].c);
    if (fabs(a->t[i].c - r) <= 1e-9 * fmax(1, fabs(a->t[i].c))) a->t[i].c = r;
  }
  a->n = dlb_pterms_normalize(a->t, a->n);
}

/* Fit v = a + L c + r b + [r = 0] e0 + [r = R - 1] e1 over the first ncol basis functions
** (pk_row) through observations o[0..n): ncol independent ones solved (Gauss-Jordan), every
** one checked (layered: at least one beyond those solved). out[0..4) receive the term lists
** of a + L c, b, e0, e1 (absent ones empty; owned by the caller, also on failure). 1, 0 off
** the form or too few observations, -1 on OOM. */
static int fit_pos(dlb_sweep_prog *p, const pkobs *o, int n, int ncol, swpoly *out) {
  double rows[PK_MAXCOL + 1][PK_MAXCOL];
  int pick[PK_MAXCOL], k = 0;
  for (int i = 0; i < n && k < ncol; i++) {
    pk_row(&o[i], ncol, rows[k]);
    if (rank_of((const double (*)[PK_MAXCOL])rows, k + 1, ncol) == k + 1) pick[k++] = i;
  }
  /* layered: one observation beyond those solved checks the form, except a repeated
  ** position with r and L alone seen in exactly three (a layer kind that first occurs at two
  ** layers, as ParaDnn FC's hidden-to-hidden layers: seen at 2 and 3 layers only), which the
  ** three builds determine without a check (docs/sweep.md "Exactness and memory") */
  if (k < ncol || (p->layered && n <= ncol && !(ncol == 3 && n == 3))) return 0;
  /* inverse of the picked rows */
  double m[PK_MAXCOL][2 * PK_MAXCOL];
  for (int i = 0; i < k; i++)
    for (int j = 0; j < 2 * k; j++) m[i][j] = j < k ? rows[i][j] : (j - k == i);
  for (int c = 0; c < k; c++) {
    int piv = c;
    for (int i = c + 1; i < k; i++) if (fabs(m[i][c]) > fabs(m[piv][c])) piv = i;
    for (int j = 0; j < 2 * k; j++) { double t = m[c][j]; m[c][j] = m[piv][j]; m[piv][j] = t; }
    double d = m[c][c];
    for (int j = 0; j < 2 * k; j++) m[c][j] /= d;
    for (int i = 0; i < k; i++) {
      if (i == c || m[i][c] == 0) continue;
      double f = m[i][c];
      for (int j = 0; j < 2 * k; j++) m[i][j] -= f * m[c][j];
    }
  }
  swpoly x[PK_MAXCOL], pred = {NULL, 0};
  memset(x, 0, sizeof x);
  int ok = 1, fits = 1;
  for (int j = 0; ok && j < k; j++) {
    for (int i = 0; ok && i < k; i++) ok = dlb_swpoly_add(&x[j], o[pick[i]].v, m[j][k + i]);
    if (ok) snap(&x[j]);
  }
  for (int i = 0; ok && fits && i < n; i++) {
    double row[PK_MAXCOL];
    pk_row(&o[i], ncol, row);
    for (int j = 0; ok && j < k; j++) ok = dlb_swpoly_add(&pred, &x[j], row[j]);
    if (ok) fits = dlb_swpoly_close(&pred, o[i].v);
    dlb_free(pred.t);
    pred.t = NULL, pred.n = 0;
  }
  if (ok && fits) { /* a + L c over the symbols with layers; b, e0, e1 as they are */
    uint64_t lk = (uint64_t)1 << (4 * (p->nv - 1));
    ok = dlb_swpoly_add(&out[0], &x[0], 1);
    for (size_t i = 0; ok && ncol > 1 && i < x[1].n; i++) x[1].t[i].key += lk;
    if (ok && ncol > 1) ok = dlb_swpoly_add(&out[0], &x[1], 1);
    for (int j = 2; ok && j < ncol; j++) ok = dlb_swpoly_add(&out[j - 1], &x[j], 1);
  }
  for (int j = 0; j < PK_MAXCOL; j++) dlb_free(x[j].t);
  return ok ? fits : -1;
}

enum { PK_MAXOBS = 16 };

/* Whether every coefficient of k - j is >= 0 (so k >= j at every point: the symbols are
** positive dims), and *strict when the difference is not zero there. */
static int dominates(const swpoly *k, const swpoly *j, int *strict) {
  swpoly d = {NULL, 0};
  int ok = dlb_swpoly_add(&d, k, 1) && dlb_swpoly_add(&d, j, -1);
  for (size_t i = 0; ok && i < d.n; i++) ok = d.t[i].c >= 0;
  *strict = ok && d.n > 0;
  dlb_free(d.t);
  return ok;
}

/* Position j (its term lists F[4 j ..], in all) can never be the step's first maximum:
** another position k of its group (the same repeated segment, or the fixed positions) holds
** at least as many bytes at every point and repetition (each of a + L c, b, e0, e1 of k - j
** with coefficients >= 0), and runs before j or holds strictly more. The group's positions
** come in cand[0..nc) by their bytes at a reference point (ref), most first: only those at
** least j's there can dominate it, and at most PK_TRIES of them are compared (a position
** kept for want of a comparison is only evaluated, never wrong), so a step of many ops
** compiles in O(ops log ops). */
enum { PK_TRIES = 64 };

static int dominated(const swpoly *F, const double *ref, size_t j, const int32_t *cand, size_t nc) {
  int tries = 0;
  for (size_t c = 0; c < nc && tries < PK_TRIES; c++) {
    size_t k = (size_t)cand[c];
    if (ref[4 * k] < ref[4 * j]) break;
    if (k == j) continue;
    int skip = 0, strict = 0;
    for (int w = 1; w < 4 && !skip; w++) skip = ref[4 * k + w] < ref[4 * j + w];
    if (skip) continue;
    tries++;
    int all = 1;
    for (int w = 0; w < 4 && all; w++) {
      int s1;
      all = dominates(&F[4 * k + w], &F[4 * j + w], &s1);
      if (w == 0) strict = s1;
    }
    if (all && (k < j || strict)) return 1;
  }
  return 0;
}

/* A position and its reference bytes, sorted most first, then by position. */
typedef struct pkref { double ref; int32_t pos; } pkref;
static int by_ref(const void *a, const void *b) {
  const pkref *x = a, *y = b;
  return x->ref > y->ref ? -1 : x->ref < y->ref ? 1 : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sort cand[lo, hi) by ref (tmp: scratch of hi - lo). */
static void sort_group(int32_t *cand, size_t lo, size_t hi, const double *ref, pkref *tmp) {
  for (size_t c = lo; c < hi; c++) tmp[c - lo].ref = ref[4 * (size_t)cand[c]], tmp[c - lo].pos = cand[c];
  qsort(tmp, hi - lo, sizeof *tmp, by_ref);
  for (size_t c = lo; c < hi; c++) cand[c] = tmp[c - lo].pos;
}

/* The construction order's live bytes per position of the program's op order (after
** dlb_sweep_build_order): each build's per-op live bytes (G->lt, G->la) placed at their
** (position, repetition) by the segments (as order_gives walks them), fitted per position
** (fit_pos) and checked against all three builds. Positions that can never be the first
** maximum (dominated) are dropped (pk[8 j] = -1); the others' term lists are pooled. Sets
** p->peak_ok (0 with p->peak_msg where the order is unknown or a position is off the form);
** an error only on OOM. */
int dlb_sweep_build_peak(dlb_sweep_prog *p) {
  p->peak_ok = 0;
  if (!p->order_ok) {
    snprintf(p->peak_msg, sizeof p->peak_msg, "the op order is unknown: %.150s", p->order_msg);
    return DLB_OK;
  }
  size_t n = p->nord;
  if (n == 0) { /* footprint.c's peak is then the bytes before any op: not kept here */
    snprintf(p->peak_msg, sizeof p->peak_msg, "the step has no ops");
    return DLB_OK;
  }
  pkobs *obs = dlb_calloc(n * PK_MAXOBS + 1, sizeof *obs);
  int *nobs = dlb_calloc(n + 1, sizeof *nobs);
  swpoly *F = dlb_calloc(8 * n + 1, sizeof *F);   /* [pos][w][4]: w 0 in all, 1 activations */
  double *ref = dlb_calloc(4 * n + 1, sizeof *ref);
  uint8_t *rep = dlb_calloc(n + 1, 1), *fixed = dlb_calloc(n + 1, 1);
  size_t *glo = dlb_calloc(n + 1, sizeof *glo), *ghi = dlb_calloc(n + 1, sizeof *ghi);
  int32_t *cand = dlb_calloc(n + 1, sizeof *cand);   /* groups' positions, by ref */
  p->pk = dlb_calloc(8 * n + 1, sizeof *p->pk);
  int good = 1, st = DLB_OK;
  if (!obs || !nobs || !F || !ref || !rep || !fixed || !glo || !ghi || !cand || !p->pk) {
    st = dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    goto out;
  }
  for (size_t k = 0; k < p->nseg; k++)
    for (int32_t i = 0; i < p->segn[k]; i++) {
      size_t pos = (size_t)(p->sego[k] + i);
      rep[pos] = p->segr[k], fixed[pos] = !p->segr[k];
    }
  for (int pass = 0; pass < 2 && good; pass++) { /* pass 0: totals, pass 1: activations */
    memset(nobs, 0, n * sizeof *nobs);
    for (int g = 0; g < p->ng && good; g++) {
      const swgraph *G = &p->g[g];
      double L = p->layered ? G->layers : 1;
      size_t j = 0;
      for (size_t k = 0; k < p->nseg && good; k++) {
        double reps = p->segr[k] ? L - p->ordL + 1 : 1;
        for (double r = 0; r < reps && good; r++)
          for (int32_t i = 0; i < p->segn[k] && good; i++, j++) {
            size_t pos = (size_t)(p->sego[k] + i);
            if (j >= G->nlive || nobs[pos] == PK_MAXOBS) { good = 0; break; }
            pkobs *o = &obs[pos * PK_MAXOBS + nobs[pos]++];
            o->L = L, o->r = r, o->R = reps, o->v = pass ? &G->la[j] : &G->lt[j];
          }
      }
      if (j != G->nlive) good = 0;
    }
    for (size_t pos = 0; pos < n && good; pos++) {
      swpoly *out = &F[8 * pos + 4 * pass];
      /* unlayered: the value; a fixed position: a + L c; a repeated one: + r b, and where
      ** that is off, + the first and last repetitions' own terms */
      int f = fit_pos(p, &obs[pos * PK_MAXOBS], nobs[pos], !p->layered ? 1 : rep[pos] ? 3 : 2, out);
      if (f == 0 && rep[pos]) {
        for (int w = 0; w < 4; w++) dlb_free(out[w].t), out[w].t = NULL, out[w].n = 0;
        f = fit_pos(p, &obs[pos * PK_MAXOBS], nobs[pos], 5, out);
      }
      if (f < 0) { st = dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory"); goto out; }
      if (f == 0) {
        good = 0;
        snprintf(p->peak_msg, sizeof p->peak_msg, "the live bytes at op %zu of the step's order "
                 "are not affine in the layer count and the repetition at layers = %g, %g, %g",
                 pos + 1, p->g[0].layers, p->g[1].layers, p->g[2].layers);
      }
    }
  }
  if (!good && !p->peak_msg[0])
    snprintf(p->peak_msg, sizeof p->peak_msg, "the builds' live bytes do not follow the op order");
  if (good) {
    double x[DLB_POLY_MAXVARS];
    for (int v = 0; v < DLB_POLY_MAXVARS; v++) x[v] = 2 + v;
    /* the totals' term lists side by side for dominated(): [pos][4]; the activations'
    ** (+ workspace) likewise in A, refa, canda: a position is kept while it can be the
    ** first maximum of either (pkw) */
    swpoly *T = dlb_calloc(4 * n + 1, sizeof *T), *A = dlb_calloc(4 * n + 1, sizeof *A);
    double *refa = dlb_calloc(4 * n + 1, sizeof *refa);
    int32_t *canda = dlb_calloc(n + 1, sizeof *canda);
    p->pkw = dlb_calloc(n + 1, 1);
    if (!T || !A || !refa || !canda || !p->pkw) {
      dlb_free(T); dlb_free(A); dlb_free(refa); dlb_free(canda);
      st = dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
      goto out;
    }
    for (size_t pos = 0; pos < n; pos++)
      for (int w = 0; w < 4; w++) {
        T[4 * pos + w] = F[8 * pos + w], ref[4 * pos + w] = dlb_swpoly_at(&T[4 * pos + w], x);
        A[4 * pos + w] = F[8 * pos + 4 + w], refa[4 * pos + w] = dlb_swpoly_at(&A[4 * pos + w], x);
      }
    /* the groups in cand: the fixed positions first, then each repeated segment; each
    ** position's group is cand[glo .. ghi), sorted by ref */
    size_t nf = 0, mc = 0;
    pkref *tmp = dlb_malloc((n + 1) * sizeof *tmp);
    if (!tmp) {
      dlb_free(T); dlb_free(A); dlb_free(refa); dlb_free(canda);
      st = dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
      goto out;
    }
    for (size_t pos = 0; pos < n; pos++) if (fixed[pos]) cand[mc++] = (int32_t)pos;
    nf = mc;
    for (size_t pos = 0; pos < n; pos++) if (fixed[pos]) glo[pos] = 0, ghi[pos] = nf;
    sort_group(cand, 0, nf, ref, tmp);
    for (size_t k = 0; k < p->nseg; k++) {
      if (!p->segr[k]) continue;
      size_t lo = mc;
      for (int32_t i = 0; i < p->segn[k]; i++) cand[mc++] = p->sego[k] + i;
      for (size_t c = lo; c < mc; c++) glo[cand[c]] = lo, ghi[cand[c]] = mc;
      sort_group(cand, lo, mc, ref, tmp);
    }
    /* the same groups sorted by the activations' reference bytes */
    memcpy(canda, cand, n * sizeof *canda);
    sort_group(canda, 0, nf, refa, tmp);
    for (size_t k = 0; k < p->nseg; k++)
      if (p->segr[k] && p->segn[k] > 0) {
        size_t pos0 = (size_t)p->sego[k];
        sort_group(canda, glo[pos0], ghi[pos0], refa, tmp);
      }
    dlb_free(tmp);
    for (size_t pos = 0; pos < n && st == DLB_OK; pos++) {
      int32_t *id = &p->pk[8 * pos];
      int dt = dominated(T, ref, pos, cand + glo[pos], ghi[pos] - glo[pos]);
      int da = dominated(A, refa, pos, canda + glo[pos], ghi[pos] - glo[pos]);
      if (dt && da) {
        id[0] = -1;
        continue;
      }
      p->pkw[pos] = (uint8_t)((dt ? 0 : 1) | (da ? 0 : 2));
      for (int q = 0; q < 8 && st == DLB_OK; q++)
        if ((id[q] = dlb_swpoly_intern(p, &F[8 * pos + q])) < 0) st = dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
      /* intern took the term lists over (emptied them): T's and A's copies of the pointers
      ** go stale */
      for (int w = 0; w < 4 && st == DLB_OK; w++)
        T[4 * pos + w] = p->poly[id[w]], A[4 * pos + w] = p->poly[id[4 + w]];
    }
    dlb_free(T); dlb_free(A); dlb_free(refa); dlb_free(canda);
    /* the kept positions by segment */
    p->pkpos = dlb_malloc((n + 1) * sizeof *p->pkpos);
    p->pkoff = dlb_malloc((p->nseg + 1) * sizeof *p->pkoff);
    if (st == DLB_OK && (!p->pkpos || !p->pkoff)) st = dlb_fail(DLB_ENOMEM, "compiled sweep: out of memory");
    int32_t m = 0;
    for (size_t k = 0; st == DLB_OK && k < p->nseg; k++) {
      p->pkoff[k] = m;
      for (int32_t i = 0; i < p->segn[k]; i++)
        if (p->pk[8 * (p->sego[k] + i)] >= 0) p->pkpos[m++] = p->sego[k] + i;
    }
    if (st == DLB_OK) p->pkoff[p->nseg] = m;
    if (st != DLB_OK) good = 0;
  }
  p->peak_ok = good;
out:
  for (size_t i = 0; F && i < 8 * n; i++) dlb_free(F[i].t);
  dlb_free(obs); dlb_free(nobs); dlb_free(F); dlb_free(ref); dlb_free(rep); dlb_free(fixed);
  dlb_free(glo); dlb_free(ghi); dlb_free(cand);
  return st;
}
