/*
** check.h — the tiny C test harness: CHECK / CHECK_NEAR inside test functions, RUN(fn)
** per test, and check_done() printing "N passed, N failed" (the suite sums these lines).
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

/* |a - b| <= rel * max(|a|, |b|) (or <= rel when both are tiny). */
#define CHECK_NEAR(a, b, rel) do { \
    double ca_ = (double)(a), cb_ = (double)(b), cr_ = (double)(rel); \
    double scale_ = fmax(fabs(ca_), fabs(cb_)); \
    if (!(fabs(ca_ - cb_) <= cr_ * (scale_ > 1 ? scale_ : 1))) { \
      fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g (rel %g)\n", \
              __FILE__, __LINE__, #a, ca_, #b, cb_, cr_); \
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
