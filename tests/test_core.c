/*
** test_core.c — the error model and versions of libdlbench; the text checksum.
*/
#include <math.h>


#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_runtime.h"
#include "check.h"

static void test_abi(void) {
  CHECK(dlb_abi_version() == DLB_ABI_VERSION);
  CHECK(strlen(dlb_version()) > 0);
}

static void test_last_error(void) {
  CHECK(dlb_fail(DLB_EINVAL, "op %s: bad %d", "matmul", 3) == DLB_EINVAL);
  CHECK(strcmp(dlb_last_error(), "op matmul: bad 3") == 0);
  CHECK(dlb_last_status() == DLB_EINVAL);
  CHECK(dlb_fail_null(DLB_ENOMEM, "out of memory") == NULL);
  CHECK(strcmp(dlb_last_error(), "out of memory") == 0);
}

/* The message formatter (dlb_vformat, graphs/base/error.c) prints what vsnprintf prints,
** conversion by conversion, but a NaN as "nan" whatever its sign bit: glibc printed the NaN
** 0/0 makes on x86 as "-nan", so a message said "got -nan" or "got nan" by backend. */
static void same_as_printf(const char *want_fmt, const char *got) {
  CHECK(strcmp(got, want_fmt) == 0);
  if (strcmp(got, want_fmt) != 0) fprintf(stderr, "  want \"%s\"\n  got  \"%s\"\n", want_fmt, got);
}
static int fmt_into(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = dlb_vformat(buf, n, fmt, ap);
  va_end(ap);
  return k;
}
static void test_nan_in_messages(void) {
  volatile double zero = 0;
  double nan_neg = -fabs(zero / zero), nan_pos = fabs(zero / zero);
  char want[256];
  dlb_fail(DLB_EINVAL, "got %g", nan_neg);
  same_as_printf("got nan", dlb_last_error());
  dlb_fail(DLB_EINVAL, "got %g and %.3f, %e, %G", nan_pos, nan_neg, nan_neg, nan_neg);
  same_as_printf("got nan and nan, nan, NAN", dlb_last_error());
  dlb_fail(DLB_EINVAL, "[%6g] [%-6g|]", nan_neg, nan_neg);
  same_as_printf("[   nan] [nan   |]", dlb_last_error());
  dlb_fail(DLB_EINVAL, "inf %g, %g", 1 / zero, -1 / zero);
  same_as_printf("inf inf, -inf", dlb_last_error());
  /* every other conversion as printf prints it: lengths, flags, '*' widths, %%, literal text */
  long long ll = -1234567890123LL;
  size_t z = 42;
  const char *str = "matmul";
  snprintf(want, sizeof want, "a %d %5i %-4u| %x %#o %ld %lld %zu %hhd %c %s %.3s %*d %-*.*f %p %% %.17g %a end",
           -7, 12, 3u, 255u, 8u, -9L, ll, z, 300, 'q', str, str, 6, 5, 9, 2, 3.14159, (void *)str, 0.1, 0.5);
  dlb_fail(DLB_EINVAL, "a %d %5i %-4u| %x %#o %ld %lld %zu %hhd %c %s %.3s %*d %-*.*f %p %% %.17g %a end",
           -7, 12, 3u, 255u, 8u, -9L, ll, z, 300, 'q', str, str, 6, 5, 9, 2, 3.14159, (void *)str, 0.1, 0.5);
  same_as_printf(want, dlb_last_error());
  /* truncation: the message is cut at the slot's size, NUL-terminated, as vsnprintf cuts it */
  char big[2000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = 0;
  dlb_fail(DLB_EINVAL, "%s %g", big, nan_neg);
  CHECK(strlen(dlb_last_error()) == 1023);
  /* a context before the last message keeps the rule */
  dlb_fail(DLB_EINVAL, "value %g", nan_neg);
  dlb_fail_context("op %d (%g): ", 3, nan_neg);
  same_as_printf("op 3 (nan): value nan", dlb_last_error());
  /* the formatter alone: it returns the full length and cuts at the buffer, as vsnprintf */
  char small[8];
  CHECK(fmt_into(small, sizeof small, "%s-%g", "0123", nan_neg) == 8);
  same_as_printf("0123-na", small);
  CHECK(fmt_into(NULL, 0, "%d%s", 12345, "ab") == 7);
  CHECK(fmt_into(small, sizeof small, "") == 0 && small[0] == 0);
}

/* A counting allocator (realloc/free underneath, as dlb_set_allocator requires). */
static int calls_alloc, calls_free;
static void *counting(void *ud, void *ptr, size_t n) {
  (void)ud;
  if (n == 0) { calls_free++; free(ptr); return NULL; }
  calls_alloc++;
  return realloc(ptr, n);
}

/* Every block of the library goes through the allocator a host sets, and
** dlb_memory_in_use counts what is live (graphs/base/alloc.c). */
static void test_allocator(void) {
  double before = dlb_memory_in_use();
  dlb_set_allocator(counting, NULL);
  dlb_graph *g = dlb_graph_new("mem");
  CHECK(g != NULL);
  int x;
  const char *dims[] = { "b", "784" };
  CHECK(dlb_graph_tensor(g, "x", DLB_ROLE_INPUT, DLB_DT_DEFAULT, 2, dims, &x) == DLB_OK);
  CHECK(calls_alloc > 0);
  CHECK(dlb_memory_in_use() > before);
  dlb_graph_free(g);
  CHECK(calls_free > 0);
  CHECK_NEAR(dlb_memory_in_use(), before, 0);
  dlb_set_allocator(NULL, NULL);
  int a = calls_alloc;
  char *p = dlb_strdup("back to the C library's");
  CHECK(p != NULL && strcmp(p, "back to the C library's") == 0);
  dlb_free(p);
  CHECK(calls_alloc == a);
  CHECK(dlb_calloc((size_t)-1, 16) == NULL); /* overflow, as calloc */
}

/* check.h's tolerances themselves (a check that cannot fail is a defect): each expected
** failure is caught by resetting check_current_failed (its message on stderr is expected). */
static int fails(int absolute, double a, double b, double tol) {
  int was = check_current_failed, got;
  check_current_failed = 0;
  if (absolute) CHECK_NEAR_ABS(a, b, tol); else CHECK_NEAR(a, b, tol);
  got = check_current_failed;
  check_current_failed = was;
  if (got) fprintf(stderr, "  (expected: test_check_near checks that it fails)\n");
  return got;
}
static int near_fails(double a, double b, double rel) { return fails(0, a, b, rel); }
static int near_abs_fails(double a, double b, double abs) { return fails(1, a, b, abs); }
static void test_check_near(void) {
  /* relative below 1: a 5e-5 s time off by 1e-12 s is 2e-8 relative (the old rule's floor at
  ** 1 let 1e-9 pass anything within 1e-9 s) */
  CHECK(near_fails(5e-5, 5e-5 + 1e-12, 1e-9));
  CHECK(!near_fails(5e-5, 5e-5 * (1 + 5e-10), 1e-9));
  CHECK(near_fails(1e-3, 1.5e-3, 1e-3));           /* a millisecond time with rel 1e-3 */
  CHECK(!near_fails(1e6, 1e6 + 0.5, 1e-6));        /* and above 1, as before */
  CHECK(near_fails(1e6, 1e6 + 2, 1e-6));
  CHECK(!near_fails(0, 0, 0) && !near_fails(-0.0, 0, 1e-12));  /* both 0: equal */
  CHECK(near_fails(0, 1e-300, 1e-9));              /* relative to 0: exact */
  CHECK(near_fails(NAN, NAN, 1) && near_fails(1, NAN, 1));
  CHECK(!near_fails(INFINITY, INFINITY, 0) && near_fails(INFINITY, -INFINITY, 1));
  CHECK(near_fails(INFINITY, 1e300, 0.5) && near_fails(-1e308, 1e308, 2));  /* inf, overflow */
  CHECK(!near_abs_fails(0, 1e-13, 1e-12) && near_abs_fails(0, 2e-12, 1e-12));
  CHECK(!near_abs_fails(0.0049, 0.004874, 5e-5) && near_abs_fails(NAN, 0, 1));
  CHECK(!near_abs_fails(INFINITY, INFINITY, 0) && near_abs_fails(INFINITY, 0, 1e300));
}

/* dlb_text_checksum: 64-bit FNV-1a against the test vectors of the FNV reference
** (draft-eastlake-fnv-17, section 8 / the reference code's test suite: "" -> cbf29ce484222325,
** "a" -> af63dc4c8601ec8c, "foobar" -> 85944171f73967e8). */
static void test_text_checksum(void) {
  char h[17];
  CHECK(dlb_text_checksum("", 0, h, sizeof h) == DLB_OK && strcmp(h, "cbf29ce484222325") == 0);
  CHECK(dlb_text_checksum("a", 1, h, sizeof h) == DLB_OK && strcmp(h, "af63dc4c8601ec8c") == 0);
  CHECK(dlb_text_checksum("foobar", 6, h, sizeof h) == DLB_OK && strcmp(h, "85944171f73967e8") == 0);
  /* bytes past a NUL count (len, not strlen) */
  CHECK(dlb_text_checksum("a\0b", 3, h, sizeof h) == DLB_OK && strcmp(h, "af63dc4c8601ec8c") != 0);
  CHECK(dlb_text_checksum("a", 1, h, 16) == DLB_EINVAL && strstr(dlb_last_error(), "17") != NULL);
  CHECK(dlb_text_checksum(NULL, 1, h, sizeof h) == DLB_EINVAL);
}

int main(void) {
  RUN(test_check_near);
  RUN(test_text_checksum);
  RUN(test_abi);
  RUN(test_last_error);
  RUN(test_nan_in_messages);
  RUN(test_allocator);
  return check_done();
}
