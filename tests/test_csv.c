/*
** test_csv.c — the RFC 4180 reader: fields, quoting, line ends, errors with line and
** column, and a fuzz (random bytes and random mutations of valid CSV must give a parse
** or a "line L, column C" error, never a crash; run under ASan by ./build.sh test).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"

static const char *field(const dlb_csv *c, size_t i, size_t j) {
  return dlb_csv_field(c, i, j, NULL, NULL, NULL, NULL);
}

static void test_basic(void) {
  const char *s = "a,b,c\n1,2.5,x\n\n3,,\"y,\"\"z\"\"\nw\"\r\n";
  dlb_csv *c = dlb_csv_parse(s, strlen(s), ',');
  CHECK(c != NULL);
  if (!c) return;
  CHECK(dlb_csv_records(c) == 3 && dlb_csv_fields(c) == 3);
  CHECK(strcmp(field(c, 0, 2), "c") == 0);
  CHECK(strcmp(field(c, 1, 1), "2.5") == 0);
  size_t len, line, col; int q;
  const char *f = dlb_csv_field(c, 2, 2, &len, &q, &line, &col);
  CHECK(f && strcmp(f, "y,\"z\"\nw") == 0 && len == 7 && q == 1 && line == 4 && col == 4);
  f = dlb_csv_field(c, 2, 1, &len, &q, NULL, NULL);
  CHECK(f && len == 0 && q == 0);
  CHECK(dlb_csv_field(c, 3, 0, NULL, NULL, NULL, NULL) == NULL);
  dlb_csv_free(c);
  /* BOM, no final newline, semicolons, trailing empty field */
  const char *t = "\xEF\xBB\xBFx;y\n1;";
  c = dlb_csv_parse(t, strlen(t), ';');
  CHECK(c && dlb_csv_records(c) == 2 && strcmp(field(c, 0, 0), "x") == 0 &&
        strcmp(field(c, 1, 1), "") == 0);
  dlb_csv_free(c);
  c = dlb_csv_parse("", 0, ',');
  CHECK(c && dlb_csv_records(c) == 0);
  dlb_csv_free(c);
}

/* A quoted "" (an empty string) and an empty unquoted field (a missing value) differ by
** the quoted flag; in a file one field wide a blank line is a record (a missing value),
** elsewhere blank lines are skipped; a NUL byte is data inside quotes. */
static void test_empty_and_quoted(void) {
  const char *s = "a,b\n\"\",\n\n,\"\"\n";
  dlb_csv *c = dlb_csv_parse(s, strlen(s), ',');
  CHECK(c && dlb_csv_records(c) == 3);
  if (!c) return;
  size_t len; int q;
  const char *f = dlb_csv_field(c, 1, 0, &len, &q, NULL, NULL);
  CHECK(f && len == 0 && q == 1);
  f = dlb_csv_field(c, 1, 1, &len, &q, NULL, NULL);
  CHECK(f && len == 0 && q == 0);
  f = dlb_csv_field(c, 2, 0, &len, &q, NULL, NULL);
  CHECK(f && len == 0 && q == 0);
  f = dlb_csv_field(c, 2, 1, &len, &q, NULL, NULL);
  CHECK(f && len == 0 && q == 1);
  dlb_csv_free(c);
  /* one column: "x", 1, (missing), "", (missing, CRLF), 5, (missing, the last line) */
  const char *one = "\n\nx\n1\n\n\"\"\n\r\n5\n\n";
  c = dlb_csv_parse(one, strlen(one), ',');
  CHECK(c && dlb_csv_records(c) == 7 && dlb_csv_fields(c) == 1);
  if (c) {
    static const char *want[] = {"x", "1", "", "", "", "5", ""};
    static const int wantq[] = {0, 0, 0, 1, 0, 0, 0};
    size_t line;
    for (size_t i = 0; i < 7; i++) {
      f = dlb_csv_field(c, i, 0, &len, &q, &line, NULL);
      CHECK(f && strcmp(f, want[i]) == 0 && q == wantq[i] && line == i + 3);
    }
    dlb_csv_free(c);
  }
  const char nul[] = "a,b\n1,\"x\0y\"\n";
  c = dlb_csv_parse(nul, sizeof nul - 1, ',');
  CHECK(c && dlb_csv_records(c) == 2);
  if (c) {
    f = dlb_csv_field(c, 1, 1, &len, &q, NULL, NULL);
    CHECK(f && len == 3 && q == 1 && memcmp(f, "x\0y", 3) == 0);
    dlb_csv_free(c);
  }
}

static void expect_error(const char *s, const char *where, const char *what) {
  dlb_csv *c = dlb_csv_parse(s, strlen(s), ',');
  CHECK(c == NULL);
  if (c) { dlb_csv_free(c); return; }
  const char *m = dlb_last_error();
  if (!strstr(m, where) || !strstr(m, what)) {
    fprintf(stderr, "  input %s: got '%s', expected '%s' and '%s'\n", s, m, where, what);
    CHECK(0);
  }
}

static void test_errors(void) {
  expect_error("a,b\n1,\"2\n", "line 2, column 3", "never closed");
  expect_error("a,b\n1,\"2\"x\n", "line 2, column 6", "after the closing quote");
  expect_error("a,b\n1,2\"\n", "line 2, column 4", "quote inside an unquoted field");
  expect_error("a,b\n1,2,3\n", "line 2, column 5", "more than 2 fields");
  expect_error("a,b\n1\n", "line 2, column 1", "record has 1 field, the first record has 2");
  expect_error("a,b\r1,2\n", "line 1, column 4", "carriage return");
  const char nul[] = "a,b\n1,\0\n";
  dlb_csv *c = dlb_csv_parse(nul, sizeof nul - 1, ',');
  CHECK(c == NULL && strstr(dlb_last_error(), "line 2, column 3: NUL byte"));
  CHECK(dlb_csv_parse("a", 1, '"') == NULL);
}

/* xorshift64: a reproducible fuzz */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return rng;
}

static int fuzz_one(const char *buf, size_t len) {
  dlb_csv *c = dlb_csv_parse(buf, len, ',');
  if (c) {
    /* touch every field */
    size_t n = dlb_csv_records(c), w = dlb_csv_fields(c), total = 0;
    for (size_t i = 0; i < n; i++) {
      for (size_t j = 0; j < w; j++) {
        size_t l; int q; const char *f = dlb_csv_field(c, i, j, &l, &q, NULL, NULL);
        if (!f || f[l] != '\0' || (memchr(f, '\0', l) && !q)) return 0; /* NUL only quoted */
        total += l;
      }
    }
    dlb_csv_free(c);
    return total <= len;
  }
  const char *m = dlb_last_error();
  size_t line, col;
  return sscanf(m, "line %zu, column %zu:", &line, &col) == 2 && line >= 1 && col >= 1;
}

static void test_fuzz(void) {
  static const char alphabet[] = "ab1,,\"\"\n\r 9.e-";
  char buf[512];
  int bad = 0;
  for (int it = 0; it < 20000 && !bad; it++) {
    size_t len = next() % sizeof buf;
    int mode = (int)(next() % 3);
    for (size_t i = 0; i < len; i++) {
      buf[i] = mode == 0 ? (char)(next() & 0xff) : alphabet[next() % (sizeof alphabet - 1)];
    }
    if (!fuzz_one(buf, len)) { bad = 1; fprintf(stderr, "  fuzz case %d failed\n", it); }
  }
  /* mutations of a valid file */
  const char *valid = "set,m,n,k,name\ntraining,1760,16,1760,\"a, \"\"b\"\"\"\n"
                      "inference,5124,700,2048,c\r\n\"x\ny\",1,2,3,d\n";
  size_t vl = strlen(valid);
  for (int it = 0; it < 20000 && !bad; it++) {
    memcpy(buf, valid, vl);
    size_t len = vl;
    int edits = 1 + (int)(next() % 4);
    for (int e = 0; e < edits; e++) {
      size_t at = next() % len;
      switch (next() % 3) {
      case 0: buf[at] = alphabet[next() % (sizeof alphabet - 1)]; break;
      case 1: memmove(buf + at, buf + at + 1, len - at - 1); len--; break;
      default:
        if (len + 1 < sizeof buf) {
          memmove(buf + at + 1, buf + at, len - at);
          buf[at] = (char)(next() & 0xff);
          len++;
        }
      }
      if (len == 0) break;
    }
    if (!fuzz_one(buf, len)) { bad = 1; fprintf(stderr, "  mutation case %d failed\n", it); }
  }
  CHECK(!bad);
}

int main(void) {
  RUN(test_basic);
  RUN(test_empty_and_quoted);
  RUN(test_errors);
  RUN(test_fuzz);
  return check_done();
}
