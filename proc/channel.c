/*
** channel.c — the descriptors of libdlbench_proc: full writes and reads on the worker
** channels, polling, closing; exact binary words for the rows workers send back; durable
** appends for sweep checkpoints. POSIX.
*/
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "proc_internal.h"

/* Write all bytes. */
int dlb_proc_write(int fd, const char *buf, size_t len) {
  if (buf == NULL && len > 0) return dlb_proc_fail(DLB_EINVAL, "proc: NULL buffer");
  /* sockets (the worker channels): MSG_NOSIGNAL, so a closed reader is an error, not a
  ** SIGPIPE death of the writer; other descriptors (files): write */
  int sock = 1;
  while (len > 0) {
    ssize_t n = sock ? send(fd, buf, len, MSG_NOSIGNAL) : write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (sock && errno == ENOTSOCK) { sock = 0; continue; }
      return dlb_proc_fail(DLB_EIO, "proc: write to descriptor %d: %s", fd, strerror(errno));
    }
    buf += n;
    len -= (size_t)n;
  }
  return DLB_OK;
}

/* One read. */
int dlb_proc_read(int fd, char *buf, size_t size, size_t *got) {
  if (!buf || !got) return dlb_proc_fail(DLB_EINVAL, "proc: NULL argument");
  for (;;) {
    ssize_t n = read(fd, buf, size);
    if (n >= 0) { *got = (size_t)n; return DLB_OK; }
    if (errno != EINTR) return dlb_proc_fail(DLB_EIO, "proc: read from descriptor %d: %s", fd, strerror(errno));
  }
}

/* Wait for readable descriptors. */
int dlb_proc_poll(const int *fds, size_t n, double timeout, int *ready) {
  if ((n > 0 && (!fds || !ready)) || n > DLB_PROC_MAXPOLL) return dlb_proc_fail(DLB_EINVAL, "proc: bad poll set");
  struct pollfd pf[DLB_PROC_MAXPOLL];
  for (size_t i = 0; i < n; i++) {
    pf[i].fd = fds[i];
    pf[i].events = POLLIN;
    pf[i].revents = 0;
    ready[i] = 0;
  }
  int ms = timeout < 0 ? -1 : (int)(timeout * 1000 + 0.5);
  int r = poll(pf, (nfds_t)n, ms);
  int st = DLB_OK;
  if (r < 0 && errno != EINTR) st = dlb_proc_fail(DLB_EIO, "proc: poll: %s", strerror(errno));
  for (size_t i = 0; r > 0 && i < n; i++) {
    if (pf[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) ready[i] = 1;
  }
  return st;
}

/* Close a descriptor. */
int dlb_proc_close(int fd) {
  if (close(fd) != 0 && errno != EINTR) return dlb_proc_fail(DLB_EIO, "proc: close %d: %s", fd, strerror(errno));
  return DLB_OK;
}

/* A 64-bit word as 8 little-endian bytes (shifts, so the host's byte order and the
** buffer's alignment do not matter), and back. */
static void put64(unsigned char *p, unsigned long long u) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(u >> (8 * i));
}

static unsigned long long get64(const unsigned char *p) {
  unsigned long long u = 0;
  for (int i = 0; i < 8; i++) u |= (unsigned long long)p[i] << (8 * i);
  return u;
}

/* Doubles to words: the bit pattern through memcpy (no conversion, so exact). */
void dlb_proc_pack_f64(const double *v, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) {
    unsigned long long u;
    memcpy(&u, &v[i], sizeof u);
    put64((unsigned char *)out + 8 * i, u);
  }
}

/* Words to doubles. */
void dlb_proc_unpack_f64(const char *in, size_t n, double *v) {
  for (size_t i = 0; i < n; i++) {
    unsigned long long u = get64((const unsigned char *)in + 8 * i);
    memcpy(&v[i], &u, sizeof u);
  }
}

/* 64-bit integers to words (two's complement). */
void dlb_proc_pack_i64(const long long *v, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) put64((unsigned char *)out + 8 * i, (unsigned long long)v[i]);
}

/* Words to 64-bit integers. */
void dlb_proc_unpack_i64(const char *in, size_t n, long long *v) {
  for (size_t i = 0; i < n; i++) {
    unsigned long long u = get64((const unsigned char *)in + 8 * i);
    long long x;
    memcpy(&x, &u, sizeof x); /* two's complement without an implementation-defined cast */
    v[i] = x;
  }
}

/* Open for appending. */
int dlb_proc_open_append(const char *path, int *fd) {
  if (!path || !fd) return dlb_proc_fail(DLB_EINVAL, "proc: NULL argument");
  int f = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (f < 0) return dlb_proc_fail(DLB_EIO, "cannot open %s for appending: %s", path, strerror(errno));
  *fd = f;
  return DLB_OK;
}

/* fsync. */
int dlb_proc_fsync(int fd) {
  if (fsync(fd) != 0 && errno != EINVAL) return dlb_proc_fail(DLB_EIO, "fsync %d: %s", fd, strerror(errno));
  return DLB_OK;
}
