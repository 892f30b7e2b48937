/*
** check.h — the tiny C test harness: CHECK / CHECK_NEAR inside test functions, RUN(fn)
** per test, and check_done() printing "N passed, N failed" (the suite sums these lines).
**
** Tolerances (the same two forms as tests/lua/harness.lua's T.near / T.near_abs):
**   CHECK_NEAR(a, b, rel)      RELATIVE: |a - b| <= rel * max(|a|, |b|); a == b always passes
**                              (both 0, or the same infinity). No floor at 1: a 5e-5 s time
**                              checked with rel 1e-9 must agree to 5e-14 s.
**   CHECK_NEAR_ABS(a, b, abs)  ABSOLUTE: |a - b| <= abs. Only where a relative bound has no
**                              meaning (a value that may be 0, a sum of cancelling terms); the
**                              call site says why in a comment.
** A NaN on either side fails both, and so does an infinity unless both sides are the same one.
** A relative tolerance against 0 is exact equality: a value that may be 0 takes CHECK_NEAR_ABS.
*/
#ifndef CHECK_H
#define CHECK_H

#include <math.h>
#include <stdio.h>

static int check_passed, check_failed, check_current_failed;

#define CHECK(cond) do { \
    if (!(cond)) { \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      check_current_failed = 1; \
    } \
  } while (0)

/* |a - b| <= rel * max(|a|, |b|) (relative; a == b passes, so 0 vs 0 does). */
#define CHECK_NEAR(a, b, rel) do { \
    double ca_ = (double)(a), cb_ = (double)(b), cr_ = (double)(rel); \
    double scale_ = fmax(fabs(ca_), fabs(cb_)); \
    if (!(ca_ == cb_ || (isfinite(ca_ - cb_) && fabs(ca_ - cb_) <= cr_ * scale_))) { \
      fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g (rel %g; " \
              "relative difference %.3g)\n", __FILE__, __LINE__, #a, ca_, #b, cb_, cr_, \
              fabs(ca_ - cb_) / scale_); \
      check_current_failed = 1; \
    } \
  } while (0)

/* |a - b| <= abs (absolute: for values that may be 0 or sums of cancelling terms; say why). */
#define CHECK_NEAR_ABS(a, b, abs) do { \
    double ca_ = (double)(a), cb_ = (double)(b), cr_ = (double)(abs); \
    if (!(ca_ == cb_ || fabs(ca_ - cb_) <= cr_)) { \
      fprintf(stderr, "%s:%d: CHECK_NEAR_ABS failed: %s = %.17g, %s = %.17g (abs %g; " \
              "difference %.3g)\n", __FILE__, __LINE__, #a, ca_, #b, cb_, cr_, \
              fabs(ca_ - cb_)); \
      check_current_failed = 1; \
    } \
  } while (0)

#define RUN(fn) check_run(#fn, fn)

static void check_run(const char *name, void (*fn)(void)) {
  check_current_failed = 0;
  fn();
  if (check_current_failed) {
    check_failed++;
    printf("not ok %s\n", name);
  } else {
    check_passed++;
    printf("ok %s\n", name);
  }
  fflush(stdout);
}

/* Print the summary line; returns the process exit status. */
static int check_done(void) {
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}

#endif
