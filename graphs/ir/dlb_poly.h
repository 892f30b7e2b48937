/*
** dlb_poly.h — polynomials over named hyperparameters (symbolic dimensions and costs).
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
**
** A dlb_poly is a sum of terms coef * v1^e1 * ... over at most DLB_POLY_MAXVARS named
** variables, each exponent at most DLB_POLY_MAXEXP. Coefficients are doubles. Text form:
** "16*h^2*l*q + 2*h*q*v" (terms by falling degree; variables in a term alphabetical).
** Every function returning a dlb_poly * returns a new object the caller frees with
** dlb_poly_free, or NULL with dlb_last_error() set.
*/
#ifndef DLB_POLY_H
#define DLB_POLY_H

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
typedef struct dlb_poly dlb_poly;
/* At most 16 variables, exponents up to 15, 100000 terms, 4 million term products in one
** multiplication: a result past the term limit (say the 155 million terms of
** (a+b+...+p)^15) or a product past the product limit fails with a message instead of
** taking minutes and gigabytes. The bounds hold for every polynomial the library makes:
** parsed, computed, a graph's dims, the symbolic costs of an analysis. */
enum { DLB_POLY_MAXVARS = 16, DLB_POLY_MAXEXP = 15, DLB_POLY_MAXTERMS = 100000,
       DLB_POLY_MAXPRODUCTS = 4000000 };

/* Parse "4*h", "2*(b + 1)^2", "h/2", "1e6": + - * ^ (small integer powers), division by
** a number, parentheses, identifiers [A-Za-z_][A-Za-z0-9_]*. DLB_EPARSE names the position. */
DLB_API dlb_poly *dlb_poly_parse(const char *text);
DLB_API dlb_poly *dlb_poly_number(double c);
DLB_API dlb_poly *dlb_poly_copy(const dlb_poly *p);
DLB_API void dlb_poly_free(dlb_poly *p);
DLB_API dlb_poly *dlb_poly_add(const dlb_poly *a, const dlb_poly *b);
DLB_API dlb_poly *dlb_poly_sub(const dlb_poly *a, const dlb_poly *b);
DLB_API dlb_poly *dlb_poly_mul(const dlb_poly *a, const dlb_poly *b);
DLB_API dlb_poly *dlb_poly_scale(const dlb_poly *a, double c);
DLB_API dlb_poly *dlb_poly_pow(const dlb_poly *a, int n);
/* Substitute the named values (others stay symbolic; unknown names are ignored). */
DLB_API dlb_poly *dlb_poly_bind(const dlb_poly *p, size_t n, const char *const *names,
                        const double *values);
/* Evaluate; DLB_EUNBOUND (naming the variables) if a variable has no value. */
DLB_API int dlb_poly_eval(const dlb_poly *p, size_t n, const char *const *names,
                  const double *values, double *out);
/* Evaluate with values[i] for variable i (dlb_poly_varname order); no checks. */
DLB_API double dlb_poly_evalv(const dlb_poly *p, const double *values);
DLB_API size_t dlb_poly_nvars(const dlb_poly *p);
/* Variable i's name (alphabetical order); borrowed while p lives; NULL if out of range. */
DLB_API const char *dlb_poly_varname(const dlb_poly *p, size_t i);
DLB_API size_t dlb_poly_nterms(const dlb_poly *p);
/* Term i (canonical order): its coefficient and nvars exponents. */
DLB_API int dlb_poly_term(const dlb_poly *p, size_t i, double *coef, int *exps);
/* 1 and *value set if p is a number (no variables), else 0. */
DLB_API int dlb_poly_is_number(const dlb_poly *p, double *value);
DLB_API int dlb_poly_equal(const dlb_poly *a, const dlb_poly *b);
DLB_API int dlb_poly_degree(const dlb_poly *p);
/* Write the text form into buf (always NUL-terminated when size > 0); returns the full
** length, so a call with size 0 measures. */
DLB_API size_t dlb_poly_tostring(const dlb_poly *p, char *buf, size_t size);
/* Lower the term and term-product bounds (process-wide; a fuzzer or a service with a time
** budget): maxterms in 1..DLB_POLY_MAXTERMS, maxproducts in 1..DLB_POLY_MAXPRODUCTS, 0 for
** the default (the ceiling). DLB_EINVAL, bounds unchanged, outside those ranges. */
DLB_API int dlb_poly_set_limits(long maxterms, long maxproducts);
/* The bounds in force, into *maxterms and *maxproducts (either may be NULL). */
DLB_API void dlb_poly_limits(long *maxterms, long *maxproducts);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
