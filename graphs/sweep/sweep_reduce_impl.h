/*
** sweep_reduce_impl.h — the reducer's layout (struct dlb_reduce and its reductions' state),
** shared by sweep_reduce.c (the reductions: fronts, top-k, bins, groups; feeding, merging,
** reading back) and sweep_kept.c (the kept rows: added back, a compiled sweep's compact
** blocks, read by column and as hex text). Not part of the public interface.
*/
#ifndef SWEEP_REDUCE_IMPL_H
#define SWEEP_REDUCE_IMPL_H

#include <stddef.h>
#include <stdint.h>

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
/* sweep_reduce.c */
/* DLB_ENOMEM with the reductions' message. */
int dlb_reduce_oom(void);
/* DLB_EINVAL: more rows to keep than r's cap. */
int dlb_reduce_capfail(const dlb_reduce *r);
/* Append a row (ncols values) with its index to s. */
int dlb_reduce_rs_add(rowset *s, size_t ncols, const double *row, double idx);
/* The rowset of reducer (kind, id) in its read order (kept rows: the permutation or the
** blocks' order made); *s NULL for bins and groups; a message when there is none. */
int dlb_reduce_find(dlb_reduce *r, int kind, int id, rowset **s);

/* sweep_kept.c */
/* Free a compiled sweep's block of kept rows (its reference to the program dropped). */
void dlb_reduce_kb_free(kblock *B);
/* Rows kept: pushed ones and the compiled sweep's. */
size_t dlb_reduce_kept_rows(const dlb_reduce *r);
/* Kept pushed rows (n of 1 + ncols numbers: the index, then the row) added to r's (id 0). */
int dlb_reduce_keep_add(dlb_reduce *r, int id, size_t n, size_t len, const double *data);
/* Column col (-1: the index) of a compiled sweep's kept rows start .. start + n - 1 into out
** (after dlb_reduce_find ordered the blocks). */
int dlb_reduce_kb_column(dlb_reduce *r, int col, size_t start, size_t n, double *out);

#endif
