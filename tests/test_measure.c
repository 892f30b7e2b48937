/*
** test_measure.c — the measure area in C: the trace reader (columns, both JSON forms,
** interning, exact byte offsets of errors), the Nelder-Mead minimiser in reverse
** communication, and the argument checks of the microbenchmarks (one tiny run of each).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"

static dlb_trace *parse(const char *s) { return dlb_trace_parse(s, strlen(s)); }

static void test_trace_columns(void) {
  dlb_trace *t = parse("{\"traceEvents\": [{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 1.5, \"dur\": 2,"
                       " \"pid\": 0, \"tid\": \"stream 7\", \"args\": {\"Input Dims\": [[2, 3], [3, 4]],"
                       " \"stream\": 7, \"External id\": 9}}, {\"name\": \"aten::mm\"}]}");
  CHECK(t != NULL);
  if (!t) return;
  CHECK(dlb_trace_count(t) == 2);
  CHECK_NEAR(dlb_trace_numbers(t, DLB_TRACE_TS)[0], 1.5, 0);
  CHECK_NEAR(dlb_trace_numbers(t, DLB_TRACE_STREAM)[0], 7, 0);
  CHECK_NEAR(dlb_trace_numbers(t, DLB_TRACE_EXTERNAL_ID)[0], 9, 0);
  CHECK(isnan(dlb_trace_numbers(t, DLB_TRACE_TS)[1]));        /* not recorded */
  CHECK(strcmp(dlb_trace_string(t, DLB_TRACE_SHAPES, 0), "[[2,3],[3,4]]") == 0);
  CHECK(strcmp(dlb_trace_string(t, DLB_TRACE_TID, 0), "stream 7") == 0);
  CHECK(strcmp(dlb_trace_string(t, DLB_TRACE_PID, 0), "0") == 0);  /* numbers as their text */
  /* interned: the same name is the same pointer */
  CHECK(dlb_trace_string(t, DLB_TRACE_NAME, 0) == dlb_trace_string(t, DLB_TRACE_NAME, 1));
  CHECK(dlb_trace_string(t, DLB_TRACE_CAT, 0) == NULL);
  CHECK(dlb_trace_string(t, DLB_TRACE_NAME, 2) == NULL);    /* out of range */
  CHECK(dlb_trace_numbers(t, 99) == NULL);
  /* bytes read: the whole text */
  CHECK(dlb_trace_bytes(t) > 100);
  dlb_trace_free(t);
  dlb_trace_free(NULL);
}

/* Each malformed input fails with a message containing `want` (byte offsets by hand:
** counted from 0 at the first character). */
static void bad(const char *json, const char *want) {
  dlb_trace *t = parse(json);
  CHECK(t == NULL);
  if (t) { dlb_trace_free(t); return; }
  if (!strstr(dlb_last_error(), want)) {
    fprintf(stderr, "for %s: expected '%s' in '%s'\n", json, want, dlb_last_error());
    CHECK(0);
  }
}

static void test_trace_errors(void) {
  bad("[", "byte 1: the JSON ends early");
  bad("[{\"ts\": 1}, 7]", "event 2 is not an object");
  bad("{\"traceEvents\": 3}", "traceEvents must be an array");
  bad("[{\"ts\": \"x\"}]", "event 1: 'ts' must be a finite number");
  bad("{}", "no traceEvents array");
  bad("", "empty input");
  bad("[{\"name\": \"a\",}]", "byte");
  /* a kept column given twice in one event (before review7: the last value won silently,
  ** dur 9 here); other keys, and the same key in another event or in args, are not */
  bad("[{\"ts\": 1, \"dur\": 5, \"dur\": 9}]", "event 1: the key 'dur' given twice");
  bad("[{\"ts\": 1}, {\"name\": \"a\", \"ts\": 2, \"name\": \"b\"}]", "event 2: the key 'name' given twice");
  bad("[{\"ts\": 1, \"args\": {}, \"args\": {}}]", "the key 'args' given twice");
  bad("[{\"ts\": 1, \"args\": {\"External id\": 1, \"external id\": 2}}]",
      "the args key 'external id' given twice (or with another spelling of it)");
  const char *fine = "[{\"ts\": 1, \"x\": 1, \"x\": 2, \"args\": {\"ts\": 3, \"y\": 1, \"y\": 2}},"
                     " {\"ts\": 2, \"dur\": 4}]";
  dlb_trace *t = parse(fine);
  CHECK(t && dlb_trace_count(t) == 2);
  dlb_trace_free(t);
  /* a UTF-8 byte order mark is skipped (before: "lexical error: invalid char" at byte 1);
  ** byte offsets still count from the first byte of the text */
  t = parse("\xEF\xBB\xBF[{\"ts\": 1, \"dur\": 2}]");
  CHECK(t && dlb_trace_count(t) == 1 && dlb_trace_numbers(t, DLB_TRACE_DUR)[0] == 2);
  dlb_trace_free(t);
  bad("\xEF\xBB\xBF[", "byte 4: the JSON ends early");
  CHECK(dlb_trace_read("/nonexistent/trace.json") == NULL);
  CHECK(strstr(dlb_last_error(), "cannot open") != NULL);
  CHECK(dlb_trace_parse(NULL, 0) == NULL);
}

static void test_minimizer(void) {
  /* (x - 2)^2 + 10 (y + 1)^2: minimum 0 at (2, -1) (hand derivation) */
  double x0[2] = { 0, 0 }, st[2] = { 0.5, 0.5 }, lo[2] = { -10, -10 }, hi[2] = { 10, 10 }, x[2], f;
  int evals;
  dlb_minimizer *m = dlb_minimizer_new(2, x0, st, lo, hi, 1e-14, 2000);
  CHECK(m != NULL);
  if (!m) return;
  CHECK(dlb_minimizer_tell(m, 1) != DLB_OK); /* tell before ask */
  while (dlb_minimizer_ask(m, x)) dlb_minimizer_tell(m, (x[0] - 2) * (x[0] - 2) + 10 * (x[1] + 1) * (x[1] + 1));
  CHECK(dlb_minimizer_best(m, x, &f, &evals) == DLB_OK);
  CHECK_NEAR(x[0], 2, 1e-5);
  CHECK_NEAR(x[1], -1, 1e-5);
  CHECK(f < 1e-9 && evals > 0 && evals <= 2000);
  dlb_minimizer_free(m);
  CHECK(dlb_minimizer_new(0, x0, st, lo, hi, 0, 1) == NULL);
  CHECK(dlb_minimizer_new(1, x0, st, hi, lo, 0, 1) == NULL); /* lo > hi */
  dlb_minimizer_free(NULL);
}

/* Whether OpenBLAS is mapped in this process (1/0; -1 without Linux's /proc/self/maps). */
static int blas_mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, "libopenblas") != NULL;
  fclose(f);
  return found;
}

static void test_microbenchmarks(void) {
  double out[4], c[4];
  int levels;
  CHECK(dlb_measure_caches(c, &levels) == DLB_OK);
  CHECK(levels >= 0 && levels <= 4);
  /* OpenBLAS is loaded by the first GEMM measurement (graphs/hw/measure.c), not linked */
  int before = blas_mapped();
  CHECK(before != 1);
  CHECK(dlb_measure_gemm(0, 16, 16, 16, 1, 1, 1, 0, out) == DLB_OK);
  if (before == 0) CHECK(blas_mapped() == 1);
  CHECK(out[1] <= out[0] && out[0] <= out[2] && out[0] > 0);
  CHECK(dlb_measure_stream(DLB_MEASURE_TRIAD, 4096, 2, 3, 0, out) == DLB_OK);
  CHECK(out[0] > 0);
  CHECK_NEAR(out[3], 2 * floor(4096 / 24) * 24, 0); /* 2 threads x 170 elements x 24 B */
  CHECK(dlb_measure_gemm(2, 16, 16, 16, 1, 1, 1, 0, out) != DLB_OK);
  CHECK(dlb_measure_gemm(0, 16.5, 16, 16, 1, 1, 1, 0, out) != DLB_OK);
  CHECK(dlb_measure_stream(7, 4096, 1, 1, 0, out) != DLB_OK);
  CHECK(dlb_measure_stream(0, 4096, 1, 0, 0, out) != DLB_OK);
  CHECK(dlb_measure_stream(0, 4096, 1, 1, -1, out) != DLB_OK);
}

int main(void) {
  RUN(test_trace_columns);
  RUN(test_trace_errors);
  RUN(test_minimizer);
  RUN(test_microbenchmarks);
  return check_done();
}
