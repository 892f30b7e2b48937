/*
** sweep_impl.h — the compiled program's layout, shared by sweep_compile.c (which builds it)
** and sweep_eval.c (which runs it). Not part of the public interface.
*/
#ifndef SWEEP_IMPL_H
#define SWEEP_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "dlb_sweep.h"
#include "poly_impl.h"

enum { SW_MAXG = 3 };

/* A term list (canonical once normalised), owned. */
typedef struct swpoly { pterm *t; size_t n; } swpoly;

/* An op class: ops with the same FLOPs, bytes and matmul shape (polynomial ids; g[0] < 0
** when not a matmul) and kernel class, counted by mult (a polynomial id). */
typedef struct swclass {
  int32_t f, b, g[4], mult;
  int attn;
} swclass;

/* One added graph while the program is built: its classes with their counts, its totals. */
typedef struct swgraph {
  swclass *c;
  double *count;
  size_t nc, cap;
  int32_t tot[DLB_SWT_COUNT];
  double layers;
} swgraph;

struct dlb_sweep_prog {
  int nv;                      /* symbols, "layers" last when layered */
  char *vars[DLB_POLY_MAXVARS];
  int layered, finished, ng;
  swgraph g[SW_MAXG];
  /* the polynomial pool (deduplicated) */
  swpoly *poly;
  size_t npoly, cappoly;
  int32_t *slot;               /* hash slots over poly ids, -1 empty */
  size_t nslot;
  /* the evaluation layout (after finish) */
  size_t nmono;
  uint64_t *mono;              /* monomial keys over the symbols */
  int32_t *poff, *tm;          /* poly i: terms poff[i] .. poff[i + 1] */
  double *tc;
  swclass *cls;
  size_t ncls;
  int32_t tot[DLB_SWT_COUNT];
};

/* The values of every pooled polynomial at one point (pv: p->npoly entries, mv: p->nmono
** scratch). */
void dlb_sweep_values(const dlb_sweep_prog *p, const double *vals, double *mv, double *pv);

/* The per-op roofline of one point from its polynomial values pv (device d checked):
** summed op times, FLOPs, bytes (scaled), memory-bound time. */
void dlb_sweep_roof(const dlb_sweep_prog *p, const double *pv, const dlb_roof *d, double *time,
                    double *flops, double *bytes, double *mbtime);



/* A reducer set with the same reductions as r and no rows (for one thread); NULL on OOM. */
dlb_reduce *dlb_reduce_like(const dlb_reduce *r);
/* Merge src's rows into dst (same reductions); src is left as it was. */
int dlb_reduce_merge(dlb_reduce *dst, const dlb_reduce *src);
#endif
