/*
** poly_impl.h — the representation of polynomials shared inside libdlbench (poly*.c and
** the graph engine). Not part of the public interface.
**
** A term is (key, coef): key packs the exponent of variable i into bits 4i..4i+3, so a
** monomial product is an addition of keys (with a nibble-overflow check) and monomials
** compare as integers. Term arrays are kept canonical: sorted by key, merged, no zeros.
** Variable indices refer to a table of names held by the owner (a dlb_poly, or a graph).
*/
#ifndef POLY_IMPL_H
#define POLY_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "dlb_poly.h"

typedef struct pterm {
  uint64_t key;
  double c;
} pterm;

struct dlb_poly {
  int nvars;
  int nterms;
  char *names[DLB_POLY_MAXVARS]; /* sorted, owned */
  pterm *t;                      /* canonical, owned */
};

/* Exponent of variable i in key. */
static inline int pkey_exp(uint64_t key, int i) {
  return (int)((key >> (4 * i)) & 15u);
}

/* key a * key b into *out; 0 if an exponent would exceed DLB_POLY_MAXEXP. */
static inline int pkey_mul(uint64_t a, uint64_t b, uint64_t *out) {
  uint64_t s = a + b;
  if (s < a || ((a ^ b ^ s) & 0x1111111111111110ULL)) return 0;
  *out = s;
  return 1;
}

/* Total degree of a key. */
int dlb_pkey_degree(uint64_t key);
/* Sort by key, merge equal keys, drop zero coefficients; returns the new count. */
size_t dlb_pterms_normalize(pterm *t, size_t n);
/* The one bound on a product of polynomials (the poly algebra, a graph's dims, the
** symbolic analysis): DLB_OK, or DLB_EINVAL with "WHAT: a product of NA x NB terms (more
** than N term products; ...)" when na*nb passes the product limit (dlb_poly_set_limits).
** Call it before sizing a buffer for the na*nb products. */
int dlb_pterms_mulcheck(size_t na, size_t nb, const char *what);
/* The one bound on a result's terms: DLB_OK, or DLB_EINVAL with "WHAT: the RESULT has
** more than N terms ..." when n passes the term limit. */
int dlb_pterms_sizecheck(size_t n, const char *what, const char *result);
/* The term limit in force (at most DLB_POLY_MAXTERMS). */
size_t dlb_pterms_maxterms(void);
/* r = a * b (canonical inputs); r has room for na*nb terms. Returns the count, or -1 with
** a message (prefixed with what) when the product fails dlb_pterms_mulcheck, an exponent
** exceeds DLB_POLY_MAXEXP, or the result fails dlb_pterms_sizecheck. */
long dlb_pterms_mul(const pterm *a, size_t na, const pterm *b, size_t nb, pterm *r,
                    const char *what);
/* Evaluate with vals[i] for variable i. */
double dlb_pterms_eval(const pterm *t, size_t n, const double *vals);
/* Write terms with variable names names[i] into buf; returns the full length. Terms are
** printed by falling degree, then by the alphabetical order of names. */
size_t dlb_pterms_print(const pterm *t, size_t n, const char *const *names, int nvars,
                    char *buf, size_t size);
/* A new dlb_poly from terms over variables names[0..nvars) in any order (remapped to
** alphabetical); copies names and terms. NULL with an error on allocation failure. */
dlb_poly *dlb_poly_build(const char *const *names, int nvars, const pterm *t, size_t n);
/* The sum of ps[0..n) as a new poly in one pass (sorting all terms once), so a sum of
** many summands costs O(T log T) instead of the O(T^2) of adding them one by one. NULL
** with a message past DLB_POLY_MAXVARS variables or DLB_POLY_MAXTERMS terms. */
dlb_poly *dlb_poly_sum(dlb_poly *const *ps, size_t n);
/* Remap key from variable i to variable map[i]. */
uint64_t dlb_pkey_remap(uint64_t key, int nvars, const int *map);

#endif
