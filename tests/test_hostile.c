/*
** test_hostile.c — regressions for issue 18 in the C library: the one atomic writer and the
** capped reader (graphs/base/file.c), checkpoint locks, polynomial limits (term cap, overflow,
** interruption, a long sum parsed in one pass), conv/pool window ranges, dlb_palette's
** INT_MIN. Lua-level regressions are in tests/lua/test_hostile.lua.
*/
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "dlbench.h"
#include "check.h"

static char dir[64];

static void path(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", dir, name);
}

/* Entries in dir other than . and .. */
static int entries(void) {
  int n = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

static void test_write_read(void) {
  char p[128];
  path(p, sizeof p, "a.txt");
  CHECK(dlb_file_write(p, "hello\n", 6) == DLB_OK);
  char *data; size_t len;
  CHECK(dlb_file_read(p, 100, &data, &len) == DLB_OK && len == 6 && memcmp(data, "hello\n", 7) == 0);
  dlb_file_free(data);
  CHECK(dlb_file_read(p, 5, &data, &len) == DLB_EIO && strstr(dlb_last_error(), "limit of 5"));
  CHECK(dlb_file_write(p, "", 0) == DLB_OK);
  CHECK(dlb_file_read(p, 0, &data, &len) == DLB_OK && len == 0 && data[0] == '\0');
  dlb_file_free(data);
  path(p, sizeof p, "missing");
  CHECK(dlb_file_read(p, 10, &data, &len) == DLB_ENOTFOUND);
  CHECK(entries() == 1); /* a.txt only: no temporary file */
}

static void test_special_files(void) {
  CHECK(dlb_file_write("/dev/null", "x", 1) == DLB_EIO);
  CHECK(strstr(dlb_last_error(), "is a character device") != NULL);
  char *data; size_t len;
  CHECK(dlb_file_read("/dev/zero", 1 << 20, &data, &len) == DLB_EIO);
  CHECK(strstr(dlb_last_error(), "/dev/zero: is a character device") != NULL);
  CHECK(dlb_file_write(dir, "x", 1) == DLB_EIO && strstr(dlb_last_error(), "is a directory"));
  char f[128];
  path(f, sizeof f, "fifo");
  if (mkfifo(f, 0600) == 0) {
    CHECK(dlb_file_read(f, 100, &data, &len) == DLB_EIO && strstr(dlb_last_error(), "is a FIFO"));
    CHECK(dlb_file_write(f, "x", 1) == DLB_EIO && strstr(dlb_last_error(), "is a FIFO"));
    int fd;
    CHECK(dlb_file_lock_append(f, &fd) == DLB_EIO && strstr(dlb_last_error(), "is a FIFO"));
    struct stat st;
    CHECK(lstat(f, &st) == 0 && S_ISFIFO(st.st_mode)); /* still a FIFO */
    unlink(f);
  }
  CHECK(dlb_file_write(NULL, "x", 1) == DLB_EINVAL);
  CHECK(dlb_file_write("", "x", 1) == DLB_EINVAL);
}

static void test_locks(void) {
  char p[128];
  path(p, sizeof p, "ck.csv");
  int a, b, c;
  CHECK(dlb_file_lock_append(p, &a) == DLB_OK);
  CHECK(dlb_file_lock_append(p, &b) == DLB_EIO && strstr(dlb_last_error(), "in use by another process"));
  /* rewritten whole: the new file is locked before it appears */
  CHECK(dlb_file_write_locked(p, "x\n", 2, &c) == DLB_OK);
  close(a);
  CHECK(dlb_file_lock_append(p, &b) == DLB_EIO);
  CHECK(write(c, "1\n", 2) == 2); /* appends */
  close(c);
  CHECK(dlb_file_lock_append(p, &b) == DLB_OK);
  close(b);
  char *data; size_t len;
  CHECK(dlb_file_read(p, 100, &data, &len) == DLB_OK && strcmp(data, "x\n1\n") == 0);
  dlb_file_free(data);
  unlink(p);
}

static void test_poly_limits(void) {
  /* (a+...+p)^15 has C(30,15) = 155,117,520 terms: refused, quickly */
  dlb_poly *p = dlb_poly_parse("(a+b+c+d+e+f+g+h+i+j+k+l+m+n+o+p)^15");
  CHECK(p == NULL && strstr(dlb_last_error(), "more than 100000 terms"));
  /* (a+...+m)^5 has C(17,5) = 6188 terms: allowed, and its text parses back (one pass) */
  p = dlb_poly_parse("(a+b+c+d+e+f+g+h+i+j+k+l+m)^5");
  CHECK(p && dlb_poly_nterms(p) == 6188);
  size_t n = dlb_poly_tostring(p, NULL, 0);
  char *s = malloc(n + 1);
  dlb_poly_tostring(p, s, n + 1);
  dlb_poly *q = dlb_poly_parse(s);
  CHECK(q && dlb_poly_equal(p, q));
  dlb_poly_free(q);
  free(s);
  /* 6188^2 = 38 million term products: over the 4e6 bound, refused at once */
  q = dlb_poly_mul(p, p);
  CHECK(q == NULL && strstr(dlb_last_error(), "term products"));
  /* interruption: a flag a signal handler sets stops the expansion */
  dlb_poly *ab = dlb_poly_parse("a+b");
  dlb_interrupt(1);
  q = dlb_poly_mul(p, ab);
  CHECK(q == NULL && strstr(dlb_last_error(), "interrupted!"));
  CHECK(dlb_interrupted() == 1);
  CHECK(dlb_poly_parse("1 + x + y") == NULL); /* the parser's sums check it too */
  dlb_interrupt(0);
  q = dlb_poly_mul(p, ab);
  CHECK(q != NULL);
  dlb_poly_free(q);
  dlb_poly_free(ab);
  dlb_poly_free(p);
  /* overflow of finite literals */
  CHECK(dlb_poly_parse("2*1e308") == NULL && strstr(dlb_last_error(), "overflows"));
  CHECK(dlb_poly_parse("1e308 + 1e308") == NULL);
  CHECK(dlb_poly_number(1.0 / 0.0) == NULL);
  p = dlb_poly_parse("1e308*x");
  CHECK(p && dlb_poly_scale(p, 10) == NULL);
  dlb_poly_free(p);
}

/* The bounds lowered through the public limit API (what tests/fuzz/fuzz_poly.c does for its
** run), checked at both limits and restored. */
static void test_poly_set_limits(void) {
  long t = -1, pr = -1;
  dlb_poly_limits(&t, &pr);
  CHECK(t == DLB_POLY_MAXTERMS && pr == DLB_POLY_MAXPRODUCTS);
  /* outside the ranges: an error, the bounds unchanged */
  CHECK(dlb_poly_set_limits(-1, 0) == DLB_EINVAL && strstr(dlb_last_error(), "outside 1..100000"));
  CHECK(dlb_poly_set_limits(0, DLB_POLY_MAXPRODUCTS + 1L) == DLB_EINVAL);
  CHECK(dlb_poly_set_limits(DLB_POLY_MAXTERMS + 1L, 0) == DLB_EINVAL);
  dlb_poly_limits(&t, NULL);
  CHECK(t == DLB_POLY_MAXTERMS);
  CHECK(dlb_poly_set_limits(500, 20000) == DLB_OK);
  dlb_poly_limits(&t, &pr);
  CHECK(t == 500 && pr == 20000);
  /* (a+...+f)^6 has C(11,6) = 462 terms: within 500 */
  dlb_poly *p = dlb_poly_parse("(a+b+c+d+e+f)^6");
  CHECK(p && dlb_poly_nterms(p) == 462);
  /* (a+...+f)^7 has C(12,7) = 792 terms: the product passes 500 terms */
  CHECK(dlb_poly_parse("(a+b+c+d+e+f)^7") == NULL &&
        strstr(dlb_last_error(), "the product has more than 500 terms"));
  /* (a+...+p)^3 has C(18,3) = 816 terms */
  CHECK(dlb_poly_parse("(a+b+c+d+e+f+g+h+i+j+k+l+m+n+o+p)^3") == NULL &&
        strstr(dlb_last_error(), "more than 500 terms"));
  /* 462 x 462 = 213,444 term products: over 20,000, refused before any is formed */
  CHECK(dlb_poly_mul(p, p) == NULL &&
        strstr(dlb_last_error(), "a product of 462 x 462 terms (more than 20000 term products"));
  /* a sum past the term bound: 462 terms of p plus 462 distinct terms of p*g */
  dlb_poly *q = dlb_poly_parse("(a+b+c+d+e+f)^6*g");
  CHECK(q && dlb_poly_nterms(q) == 462);
  CHECK(dlb_poly_add(p, q) == NULL && strstr(dlb_last_error(), "the sum has more than 500 terms"));
  dlb_poly_free(q);
  /* 0 restores the defaults: the same product is allowed again */
  CHECK(dlb_poly_set_limits(0, 0) == DLB_OK);
  dlb_poly_limits(&t, &pr);
  CHECK(t == DLB_POLY_MAXTERMS && pr == DLB_POLY_MAXPRODUCTS);
  q = dlb_poly_mul(p, p); /* (a+...+f)^12: C(17,12) = 6188 terms */
  CHECK(q && dlb_poly_nterms(q) == 6188);
  dlb_poly_free(q);
  dlb_poly_free(p);
}

static void test_palette(void) {
  double rgb[3], ref[3];
  dlb_palette(INT_MIN, rgb); /* -INT_MIN used to overflow (UBSan) */
  dlb_palette(0, ref);       /* 2^31 mod 8 = 0 */
  CHECK(rgb[0] == ref[0] && rgb[1] == ref[1] && rgb[2] == ref[2]);
  dlb_palette(-1, rgb);
  dlb_palette(1, ref);
  CHECK(rgb[0] == ref[0]);
  dlb_palette(3, NULL);
}

/* Review 8: a new file's permission bits are 0666 less the umask, as open(2) gives them
** (they were 0644 whatever the umask: a result written under umask 077 was world-readable);
** an existing file keeps its bits; the checkpoint opener creates files the same way. */
static void test_new_file_mode(void) {
  char p[128];
  struct stat st;
  mode_t old = umask(077);
  path(p, sizeof p, "private.csv");
  CHECK(dlb_file_write(p, "x\n", 2) == DLB_OK);
  CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
  umask(002);
  path(p, sizeof p, "group.csv");
  CHECK(dlb_file_write(p, "x\n", 2) == DLB_OK);
  CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0664);
  path(p, sizeof p, "private.csv"); /* rewritten: keeps its 0600 */
  CHECK(dlb_file_write(p, "y\n", 2) == DLB_OK);
  CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
  int fd = -1;
  umask(027);
  path(p, sizeof p, "ck.csv");
  CHECK(dlb_file_lock_append(p, &fd) == DLB_OK);
  CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0640);
  if (fd >= 0) close(fd);
  umask(old);
  unlink(p);
  path(p, sizeof p, "group.csv"); unlink(p);
  path(p, sizeof p, "private.csv"); unlink(p);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/dlb_hostile.XXXXXX");
  if (!mkdtemp(dir)) return 1;
  RUN(test_write_read);
  RUN(test_special_files);
  RUN(test_locks);
  RUN(test_new_file_mode);
  RUN(test_poly_limits);
  RUN(test_poly_set_limits);
  RUN(test_palette);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_done();
}
