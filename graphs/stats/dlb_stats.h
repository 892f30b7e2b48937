/*
** dlb_stats.h — statistics: least-squares regression, percentiles, means, and the CSV
** reader behind dlb.read_csv.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_STATS_H
#define DLB_STATS_H

#include <stddef.h>

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* --- least squares (graphs/stats/regress.c) --- */

/* Solve min ||A x - b||_2 by Householder QR (never the normal equations). A is n x p,
** row-major (A[i*p + j]), n >= p. x receives p coefficients. If se is not NULL it
** receives the p standard errors sqrt(s^2 [(R^T R)^-1]_jj), s^2 = RSS / (n - p) (needs
** n > p). *rss receives the residual sum of squares when rss is not NULL. A column that
** is zero or a linear combination of earlier ones fails with DLB_ENUMERIC naming it:
** names[j] when names is not NULL, else "column j" (1-based). */
DLB_API int dlb_lstsq(size_t n, size_t p, const double *a, const double *b,
              const char *const *names, double *x, double *se, double *rss);

/* Options of dlb_regress (add them: DLB_REGRESS_INTERACTIONS + DLB_REGRESS_LOG_Y). */
enum {
  DLB_REGRESS_INTERACTIONS = 1, /* add every pairwise product a*b of the inputs */
  DLB_REGRESS_LOG_Y = 2,        /* regress log(y) instead of y */
  DLB_REGRESS_RAW = 4,          /* do not normalise the inputs (weights in raw units) */
  DLB_REGRESS_MINMAX = 8        /* normalise to [0, 1] instead of z-scores */
};
/* Per-input flag of dlb_regress. */
enum { DLB_REGRESS_LOG = 1 };   /* use log(x) (x must be > 0) */

typedef struct dlb_regression dlb_regression;

/* The fit of dlb_regress. */
typedef struct dlb_regress_fit {
  double intercept, intercept_se, intercept_t;
  double r2, adj_r2, rss, sigma; /* sigma = sqrt(rss / (n - k - 1)) */
  double n, k;                   /* observations; terms without the intercept */
} dlb_regress_fit;

/* Sensitivity regression (ParaDnn, seeds/004 §2.3, §4.1): y = w0 + sum_j w_j z_j where
** z_j are the inputs (columns x[j*n .. j*n+n-1], named names[j]), optionally log-
** transformed (flags[j] & DLB_REGRESS_LOG; flags may be NULL), then normalised to zero
** mean and unit sample standard deviation so the weights compare across hyperparameters
** and keep their signs; with DLB_REGRESS_INTERACTIONS the products z_a*z_b (a < b) are
** added, named "a*b", and normalised the same way. Returns a new regression (caller
** frees) or NULL: a constant, non-finite or collinear column is an error naming it. */
DLB_API dlb_regression *dlb_regress(size_t n, size_t p, const double *x, const double *y,
                            const char *const *names, const int *flags, int options);
DLB_API void dlb_regression_free(dlb_regression *r);
/* Number of terms (inputs plus interactions), not counting the intercept. */
DLB_API size_t dlb_regression_terms(const dlb_regression *r);
/* Term i (0-based): its name (borrowed until r is freed), weight, standard error and
** t-value. Fails with DLB_EINVAL when i is out of range. */
DLB_API int dlb_regression_term(const dlb_regression *r, size_t i, const char **name,
                        double *weight, double *se, double *t);
/* The intercept, goodness of fit and sizes. */
DLB_API void dlb_regression_fit(const dlb_regression *r, dlb_regress_fit *out);
/* The normalisation of term i: z = (v - shift) / scale, v after the log transform. */
DLB_API int dlb_regression_scaling(const dlb_regression *r, size_t i, double *shift, double *scale);

/* --- percentiles and means (graphs/stats/stats.c) --- */

/* The p-th percentile (p in [0, 100]) of x[0..n-1] with linear interpolation between
** the closest ranks (numpy's default, "linear"). NaN elements are errors. */
DLB_API int dlb_percentile(const double *x, size_t n, double p, double *out);
/* As dlb_percentile for np percentiles at once (one sort). */
DLB_API int dlb_percentiles(const double *x, size_t n, const double *p, size_t np, double *out);

enum { DLB_MEAN_ARITHMETIC = 0, DLB_MEAN_GEOMETRIC = 1, DLB_MEAN_HARMONIC = 2 };
/* The arithmetic, geometric or harmonic mean of x (the last two need x > 0). */
DLB_API int dlb_mean(const double *x, size_t n, int kind, double *out);

/* Box statistics: whiskers, box and median; outliers are the points outside the
** whiskers. */
typedef struct dlb_box {
  double whisker_lo, q_lo, median, q_hi, whisker_hi;
  double mean, min, max, n, outliers;
} dlb_box;
/* Box of x with the whiskers and box edges at the percentiles lo_w, lo_q, hi_q, hi_w
** (ParaDnn's 2, 9, 91, 98: seeds/004 §6). With tukey != 0 the box is 25/75 and the
** whiskers reach the furthest points within 1.5 IQR of the box (the four percentiles
** are ignored). */
DLB_API int dlb_box_stats(const double *x, size_t n, double lo_w, double lo_q, double hi_q,
                  double hi_w, int tukey, dlb_box *out);

/* --- CSV (graphs/io/csv.c), RFC 4180 --- */

typedef struct dlb_csv dlb_csv;
/* Parse text[0..len-1] as CSV with the separator sep (',' usually): quoted fields with
** "" escapes and embedded newlines, CRLF or LF line ends, a leading UTF-8 BOM skipped,
** blank lines skipped — except in a file whose first record has one field, where every
** later line is a record (a blank line: one empty unquoted field, a missing value). Every
** record must have as many fields as the first. A NUL byte may appear inside a quoted
** field only (elsewhere: an error, "binary data?"); use the length, not strlen. Returns a
** new parse (caller frees) or NULL with "line L, column C: ..." in dlb_last_error(). */
DLB_API dlb_csv *dlb_csv_parse(const char *text, size_t len, int sep);
DLB_API void dlb_csv_free(dlb_csv *c);
/* Records (including the header, if the file has one) and fields per record. */
DLB_API size_t dlb_csv_records(const dlb_csv *c);
DLB_API size_t dlb_csv_fields(const dlb_csv *c);
/* Field j of record i (0-based): its unescaped text (NUL-terminated, borrowed until c
** is freed; NULL when out of range), its length, whether it was quoted (1: the field
** was written "..."; so a quoted empty field "" — an empty string — differs from an
** empty unquoted one — a missing value), and where it starts (1-based line and column,
** for error messages). Any of the out-pointers may be NULL. */
DLB_API const char *dlb_csv_field(const dlb_csv *c, size_t i, size_t j, size_t *len, int *quoted,
                          size_t *line, size_t *column);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
