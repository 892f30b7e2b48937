/*
** test_proc.c — the worker processes of parallel sweeps (proc/: libdlbench_proc): fork a worker,
** round-trip messages over its channels (including one larger than a socket buffer),
** end of file when a side closes, a killed worker detected by wait and by its channel,
** exit codes, poll timeouts, a vanished reader reported as an error (not SIGPIPE), the
** monotonic clock, durable appends, and bad arguments.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dlbench.h"
#include "dlb_proc.h"
#include "check.h"

/* Read exactly n bytes (several reads); returns the bytes read before end of file. */
static size_t read_n(int fd, char *buf, size_t n) {
  size_t have = 0;
  while (have < n) {
    size_t got = 0;
    if (dlb_proc_read(fd, buf + have, n - have, &got) != DLB_OK || got == 0) break;
    have += got;
  }
  return have;
}

/* Wait until pid has ended (blocking), returning its state and code. */
static void reap(int pid, int *state, int *code) {
  *state = -1; *code = -1;
  CHECK(dlb_proc_wait(pid, 1, state, code) == DLB_OK);
}

/* Echo worker: reads a 4-byte length and that many bytes, writes them back upper-cased,
** until end of file; then exits 7 (so the parent can check the status). */
static void echo_worker(int rfd, int wfd) {
  for (;;) {
    unsigned char hdr[4];
    if (read_n(rfd, (char *)hdr, 4) != 4) dlb_proc_exit(7);
    size_t n = (size_t)hdr[0] | (size_t)hdr[1] << 8 | (size_t)hdr[2] << 16 | (size_t)hdr[3] << 24;
    char *buf = malloc(n ? n : 1);
    if (!buf || read_n(rfd, buf, n) != n) dlb_proc_exit(3);
    for (size_t i = 0; i < n; i++) if (buf[i] >= 'a' && buf[i] <= 'z') buf[i] = (char)(buf[i] - 32);
    if (dlb_proc_write(wfd, (char *)hdr, 4) != DLB_OK || dlb_proc_write(wfd, buf, n) != DLB_OK) dlb_proc_exit(4);
    free(buf);
  }
}

static int send_msg(int wfd, const char *msg, size_t n) {
  unsigned char hdr[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                          (unsigned char)(n >> 24)};
  if (dlb_proc_write(wfd, (char *)hdr, 4) != DLB_OK) return -1;
  return dlb_proc_write(wfd, msg, n) == DLB_OK ? 0 : -1;
}

static void test_roundtrip(void) {
  int pid = -1, wfd = -1, rfd = -1;
  CHECK(dlb_proc_spawn(&pid, &wfd, &rfd) == DLB_OK);
  if (pid == 0) echo_worker(rfd, wfd); /* the child never returns */
  CHECK(pid > 0);
  if (pid <= 0) return;
  /* a short message */
  CHECK(send_msg(wfd, "hello, worker", 13) == 0);
  char hdr[4], buf[64];
  CHECK(read_n(rfd, hdr, 4) == 4 && hdr[0] == 13);
  CHECK(read_n(rfd, buf, 13) == 13 && memcmp(buf, "HELLO, WORKER", 13) == 0);
  /* 1 MB: larger than the socket buffers, so both sides must loop on short transfers;
  ** the worker echoes while we write, so read concurrently: write from a second child */
  size_t big = 1 << 20;
  char *msg = malloc(big), *back = malloc(big);
  CHECK(msg && back);
  if (msg && back) {
    for (size_t i = 0; i < big; i++) msg[i] = (char)('a' + (i * 7) % 26);
    pid_t writer = fork();
    if (writer == 0) _exit(send_msg(wfd, msg, big) == 0 ? 0 : 1);
    CHECK(writer > 0);
    CHECK(read_n(rfd, hdr, 4) == 4);
    size_t got = read_n(rfd, back, big);
    CHECK(got == big);
    int ok = got == big;
    for (size_t i = 0; ok && i < big; i++) ok = back[i] == (char)('A' + (i * 7) % 26);
    CHECK(ok);
    int st, code;
    if (writer > 0) { reap((int)writer, &st, &code); CHECK(st == DLB_PROC_EXITED && code == 0); }
  }
  free(msg); free(back);
  /* still running; closing its input ends it with status 7 and closes its output */
  int st = -1, code = -1;
  CHECK(dlb_proc_wait(pid, 0, &st, &code) == DLB_OK && st == DLB_PROC_RUNNING);
  CHECK(dlb_proc_close(wfd) == DLB_OK);
  size_t got = 99;
  CHECK(dlb_proc_read(rfd, buf, sizeof buf, &got) == DLB_OK && got == 0); /* end of file */
  reap(pid, &st, &code);
  CHECK(st == DLB_PROC_EXITED && code == 7);
  CHECK(dlb_proc_close(rfd) == DLB_OK);
}

static void test_killed(void) {
  int pid = -1, wfd = -1, rfd = -1;
  CHECK(dlb_proc_spawn(&pid, &wfd, &rfd) == DLB_OK);
  if (pid == 0) { for (;;) pause(); } /* a worker stuck forever */
  CHECK(pid > 0);
  if (pid <= 0) return;
  /* nothing to read: poll times out with nothing ready, after about the timeout */
  int ready = 1;
  double t0 = dlb_sys_now();
  CHECK(dlb_proc_poll(&rfd, 1, 0.05, &ready) == DLB_OK && ready == 0);
  double el = dlb_sys_now() - t0;
  CHECK(el >= 0.04 && el < 5);
  /* kill it: its channel becomes readable with end of file, wait reports the signal */
  CHECK(dlb_proc_kill(pid, 9) == DLB_OK);
  CHECK(dlb_proc_poll(&rfd, 1, 5.0, &ready) == DLB_OK && ready == 1);
  char buf[8];
  size_t got = 99;
  CHECK(dlb_proc_read(rfd, buf, sizeof buf, &got) == DLB_OK && got == 0);
  int st, code;
  reap(pid, &st, &code);
  CHECK(st == DLB_PROC_SIGNALED && code == SIGKILL);
  CHECK(strcmp(dlb_proc_signame(SIGKILL), "Killed") == 0);
  /* writing to a dead worker is an error, not a SIGPIPE that kills us */
  char data[4096];
  memset(data, 'x', sizeof data);
  int st2 = DLB_OK;
  for (int i = 0; i < 64 && st2 == DLB_OK; i++) st2 = dlb_proc_write(wfd, data, sizeof data);
  CHECK(st2 == DLB_EIO);
  CHECK(strstr(dlb_last_error(), "write to descriptor") != NULL);
  /* signalling a reaped process is fine; a second wait names the pid */
  CHECK(dlb_proc_kill(pid, 9) == DLB_OK);
  CHECK(dlb_proc_wait(pid, 1, &st, &code) == DLB_ENOTFOUND);
  dlb_proc_close(wfd);
  dlb_proc_close(rfd);
}

static void test_crash_and_exit(void) {
  /* a worker that aborts (SIGABRT: sanitizers leave it alone, unlike SIGSEGV) and one
  ** that calls exit(3): the states say which */
  int pid, wfd, rfd, st, code;
  CHECK(dlb_proc_spawn(&pid, &wfd, &rfd) == DLB_OK);
  if (pid == 0) { signal(SIGABRT, SIG_DFL); raise(SIGABRT); dlb_proc_exit(0); }
  reap(pid, &st, &code);
  CHECK(st == DLB_PROC_SIGNALED && code == SIGABRT);
  dlb_proc_close(wfd); dlb_proc_close(rfd);
  CHECK(dlb_proc_spawn(&pid, &wfd, &rfd) == DLB_OK);
  if (pid == 0) dlb_proc_exit(3);
  reap(pid, &st, &code);
  CHECK(st == DLB_PROC_EXITED && code == 3);
  dlb_proc_close(wfd); dlb_proc_close(rfd);
  /* two workers at once: poll reports the one that wrote */
  int p1, w1, r1, p2, w2, r2;
  CHECK(dlb_proc_spawn(&p1, &w1, &r1) == DLB_OK);
  if (p1 == 0) { for (;;) pause(); }
  CHECK(dlb_proc_spawn(&p2, &w2, &r2) == DLB_OK);
  if (p2 == 0) { dlb_proc_write(w2, "done", 4); for (;;) pause(); }
  int fds[2] = {r1, r2}, ready[2] = {1, 1};
  CHECK(dlb_proc_poll(fds, 2, 5.0, ready) == DLB_OK && ready[0] == 0 && ready[1] == 1);
  dlb_proc_kill(p1, 15); dlb_proc_kill(p2, 15);
  reap(p1, &st, &code); CHECK(st == DLB_PROC_SIGNALED && code == SIGTERM);
  reap(p2, &st, &code); CHECK(st == DLB_PROC_SIGNALED && code == SIGTERM);
  dlb_proc_close(w1); dlb_proc_close(r1); dlb_proc_close(w2); dlb_proc_close(r2);
}

/* The exact number words of the row codec: IEEE 754 binary64 bit patterns, little-endian
** (1.0 is 0x3FF0000000000000, -0.0 is 0x8000000000000000), any alignment, every bit kept. */
static void test_pack(void) {
  char buf[8 * 8 + 1];
  double one = 1.0;
  dlb_proc_pack_f64(&one, 1, buf);
  CHECK(memcmp(buf, "\0\0\0\0\0\0\xf0\x3f", 8) == 0);
  double nz = -0.0;
  dlb_proc_pack_f64(&nz, 1, buf);
  CHECK(memcmp(buf, "\0\0\0\0\0\0\0\x80", 8) == 0);
  long long m1 = -1;
  dlb_proc_pack_i64(&m1, 1, buf);
  CHECK(memcmp(buf, "\xff\xff\xff\xff\xff\xff\xff\xff", 8) == 0);
  long long k = 0x0102030405060708LL;
  dlb_proc_pack_i64(&k, 1, buf);
  CHECK(memcmp(buf, "\x08\x07\x06\x05\x04\x03\x02\x01", 8) == 0);
  /* round trips at an odd offset: a NaN with a payload, denormals, infinities, extremes */
  unsigned long long nanbits = 0x7ff8000000123456ULL;
  double v[8], back[8];
  memcpy(&v[0], &nanbits, 8);
  v[1] = 5e-324; v[2] = -1.0 / 3.0; v[3] = 1e308; v[4] = -0.0; v[5] = 1.0 / 0.0; v[6] = 2.2250738585072009e-308;
  v[7] = 9007199254740993.0;
  dlb_proc_pack_f64(v, 8, buf + 1);
  dlb_proc_unpack_f64(buf + 1, 8, back);
  CHECK(memcmp(v, back, sizeof v) == 0);
  long long iv[4] = {0, -9223372036854775807LL - 1, 9223372036854775807LL, -2}, ib[4];
  dlb_proc_pack_i64(iv, 4, buf + 3);
  dlb_proc_unpack_i64(buf + 3, 4, ib);
  CHECK(memcmp(iv, ib, sizeof iv) == 0);
  dlb_proc_pack_f64(v, 0, buf); /* nothing to do */
}

static void test_misc(void) {
  CHECK(dlb_sys_cores() >= 1);
  double a = dlb_sys_now(), b = dlb_sys_now();
  CHECK(b >= a);
  /* appends: two opens append, never truncate */
  char path[] = "/tmp/dlb_test_proc_XXXXXX";
  int tmp = mkstemp(path);
  CHECK(tmp >= 0);
  if (tmp < 0) return;
  close(tmp);
  for (int i = 0; i < 2; i++) {
    int fd = -1;
    CHECK(dlb_proc_open_append(path, &fd) == DLB_OK);
    CHECK(dlb_proc_write(fd, "row\n", 4) == DLB_OK); /* a file: write, not send */
    CHECK(dlb_proc_fsync(fd) == DLB_OK);
    CHECK(dlb_proc_close(fd) == DLB_OK);
  }
  FILE *f = fopen(path, "rb");
  char buf[16] = {0};
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  CHECK(n == 8 && strcmp(buf, "row\nrow\n") == 0);
  unlink(path);
  /* errors name what is wrong */
  int fd;
  CHECK(dlb_proc_open_append("/nonexistent-dir/x.csv", &fd) == DLB_EIO);
  CHECK(strstr(dlb_last_error(), "/nonexistent-dir/x.csv") != NULL);
  CHECK(dlb_proc_spawn(NULL, &fd, &fd) == DLB_EINVAL);
  CHECK(dlb_proc_kill(0, 9) == DLB_EINVAL); /* never the process group */
  CHECK(dlb_proc_kill(-1, 9) == DLB_EINVAL); /* never everyone */
  CHECK(dlb_proc_write(-1, NULL, 3) == DLB_EINVAL);
  size_t got;
  CHECK(dlb_proc_read(-1, buf, 1, &got) == DLB_EIO);
  int ready;
  CHECK(dlb_proc_poll(NULL, 1, 0, &ready) == DLB_EINVAL);
  CHECK(dlb_proc_poll(NULL, 0, 0.01, NULL) == DLB_OK); /* nothing to watch: a sleep */
}

int main(void) {
  signal(SIGPIPE, SIG_DFL); /* a SIGPIPE would kill the test: the library must avoid it */
  RUN(test_roundtrip);
  RUN(test_killed);
  RUN(test_crash_and_exit);
  RUN(test_pack);
  RUN(test_misc);
  /* CPU time: 30 ms of spinning counts at least 20 ms (ticks are coarse) */
  double c0 = dlb_proc_cputime(0), t0 = dlb_sys_now();
  volatile double x = 0;
  while (dlb_proc_cputime(0) - c0 < 0.03 && dlb_sys_now() - t0 < 5) x += 1;
  CHECK(x > 0); /* the spin ran (and x is used: clang's -Wunused-but-set-variable) */
  CHECK(dlb_proc_cputime(0) - c0 >= 0.02 && dlb_proc_cputime(1) >= 0);
  return check_done();
}
