/*
** proc.c — worker processes for parallel sweeps: fork with a pair of channels, full writes,
** polling, reaping; exact binary numbers for the rows they send back; a monotonic clock;
** durable appends for checkpoints. POSIX/Linux.
*/
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dlb_proc.h"
#include "dlb_internal.h"

/* Online processors. */
int dlb_proc_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Monotonic seconds. */
double dlb_proc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of this process or of its reaped children. */
double dlb_proc_cputime(int children) {
  struct rusage ru;
  if (getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru) != 0) return 0;
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
         + 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* 1 when fd is a terminal. */
int dlb_proc_isatty(int fd) {
  return isatty(fd) ? 1 : 0;
}

/* Columns of the terminal on fd (TIOCGWINSZ), or 0 when fd is not a terminal. */
int dlb_proc_term_width(int fd) {
  struct winsize ws;
  if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

/* Fork a worker with two pipes; see dlb_proc.h. */
int dlb_proc_spawn(int *pid, int *wfd, int *rfd) {
  if (!pid || !wfd || !rfd) return dlb_fail(DLB_EINVAL, "proc: NULL argument");
  /* Unix stream sockets rather than pipes: send(MSG_NOSIGNAL) reports a vanished peer
  ** as an error instead of a SIGPIPE, without touching signal dispositions per write. */
  int down[2], up[2]; /* down: parent -> child; up: child -> parent */
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, down) != 0) return dlb_fail(DLB_EIO, "proc: socketpair: %s", strerror(errno));
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, up) != 0) {
    int e = errno;
    close(down[0]); close(down[1]);
    return dlb_fail(DLB_EIO, "proc: socketpair: %s", strerror(e));
  }
  pid_t parent = getpid();
  fflush(NULL);
  pid_t p = fork();
  if (p < 0) {
    int e = errno;
    close(down[0]); close(down[1]); close(up[0]); close(up[1]);
    return dlb_fail(DLB_EIO, "proc: fork: %s", strerror(e));
  }
  if (p == 0) {
    /* Ctrl-C stops workers (the parent handles it), unless whoever started us ignores
    ** SIGINT (a background job): then workers ignore it too */
    struct sigaction cur;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != SIG_IGN) signal(SIGINT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1); /* the parent died before prctl */
    close(down[1]); close(up[0]);
    *pid = 0; *rfd = down[0]; *wfd = up[1];
    return DLB_OK;
  }
  close(down[0]); close(up[1]);
  fcntl(down[1], F_SETFD, FD_CLOEXEC);
  fcntl(up[0], F_SETFD, FD_CLOEXEC);
  *pid = (int)p; *wfd = down[1]; *rfd = up[0];
  return DLB_OK;
}

/* Write all bytes. */
int dlb_proc_write(int fd, const char *buf, size_t len) {
  if (buf == NULL && len > 0) return dlb_fail(DLB_EINVAL, "proc: NULL buffer");
  /* sockets (the worker channels): MSG_NOSIGNAL, so a closed reader is an error, not a
  ** SIGPIPE death of the writer; other descriptors (files): write */
  int sock = 1;
  while (len > 0) {
    ssize_t n = sock ? send(fd, buf, len, MSG_NOSIGNAL) : write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (sock && errno == ENOTSOCK) { sock = 0; continue; }
      return dlb_fail(DLB_EIO, "proc: write to descriptor %d: %s", fd, strerror(errno));
    }
    buf += n;
    len -= (size_t)n;
  }
  return DLB_OK;
}

/* One read. */
int dlb_proc_read(int fd, char *buf, size_t size, size_t *got) {
  if (!buf || !got) return dlb_fail(DLB_EINVAL, "proc: NULL argument");
  for (;;) {
    ssize_t n = read(fd, buf, size);
    if (n >= 0) { *got = (size_t)n; return DLB_OK; }
    if (errno != EINTR) return dlb_fail(DLB_EIO, "proc: read from descriptor %d: %s", fd, strerror(errno));
  }
}

/* Wait for readable descriptors. */
int dlb_proc_poll(const int *fds, size_t n, double timeout, int *ready) {
  if ((n > 0 && (!fds || !ready)) || n > 4096) return dlb_fail(DLB_EINVAL, "proc: bad poll set");
  struct pollfd p[1];
  struct pollfd *pf = n > 0 ? dlb_malloc(n * sizeof *pf) : p;
  if (!pf) return dlb_fail(DLB_ENOMEM, "proc: out of memory");
  for (size_t i = 0; i < n; i++) {
    pf[i].fd = fds[i];
    pf[i].events = POLLIN;
    pf[i].revents = 0;
    ready[i] = 0;
  }
  int ms = timeout < 0 ? -1 : (int)(timeout * 1000 + 0.5);
  int r = poll(pf, (nfds_t)n, ms);
  int st = DLB_OK;
  if (r < 0 && errno != EINTR) st = dlb_fail(DLB_EIO, "proc: poll: %s", strerror(errno));
  for (size_t i = 0; r > 0 && i < n; i++) {
    if (pf[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) ready[i] = 1;
  }
  if (pf != p) dlb_free(pf);
  return st;
}

/* Reap a child. */
int dlb_proc_wait(int pid, int block, int *state, int *code) {
  if (!state || !code) return dlb_fail(DLB_EINVAL, "proc: NULL argument");
  int status = 0;
  pid_t r;
  do r = waitpid((pid_t)pid, &status, block ? 0 : WNOHANG); while (r < 0 && errno == EINTR);
  if (r < 0) return dlb_fail(DLB_ENOTFOUND, "proc: wait for %d: %s", pid, strerror(errno));
  if (r == 0) { *state = DLB_PROC_RUNNING; *code = 0; return DLB_OK; }
  if (WIFSIGNALED(status)) { *state = DLB_PROC_SIGNALED; *code = WTERMSIG(status); }
  else { *state = DLB_PROC_EXITED; *code = WIFEXITED(status) ? WEXITSTATUS(status) : 0; }
  return DLB_OK;
}

/* Send a signal. */
int dlb_proc_kill(int pid, int sig) {
  if (pid <= 0) return dlb_fail(DLB_EINVAL, "proc: refusing to signal pid %d", pid);
  if (kill((pid_t)pid, sig) != 0 && errno != ESRCH) {
    return dlb_fail(DLB_EIO, "proc: kill %d: %s", pid, strerror(errno));
  }
  return DLB_OK;
}

/* Signal name. */
const char *dlb_proc_signame(int sig) {
  const char *s = strsignal(sig);
  return s ? s : "unknown signal";
}

/* Close a descriptor. */
int dlb_proc_close(int fd) {
  if (close(fd) != 0 && errno != EINTR) return dlb_fail(DLB_EIO, "proc: close %d: %s", fd, strerror(errno));
  return DLB_OK;
}

/* End a worker. */
void dlb_proc_exit(int code) {
  fflush(NULL);
  _exit(code);
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
  if (!path || !fd) return dlb_fail(DLB_EINVAL, "proc: NULL argument");
  int f = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (f < 0) return dlb_fail(DLB_EIO, "cannot open %s for appending: %s", path, strerror(errno));
  *fd = f;
  return DLB_OK;
}

/* fsync. */
int dlb_proc_fsync(int fd) {
  if (fsync(fd) != 0 && errno != EINVAL) return dlb_fail(DLB_EIO, "fsync %d: %s", fd, strerror(errno));
  return DLB_OK;
}
