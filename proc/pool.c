/*
** pool.c — the worker processes of parallel sweeps: fork with a pair of channels, reaping,
** signals, a worker's exit, the CPU time of the pool; and the error helper of
** libdlbench_proc. POSIX/Linux. The channels themselves are proc/channel.c.
*/
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc_internal.h"

/* Format and record a failure in libdlbench's error slot. */
int dlb_proc_fail(int status, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return dlb_error_set(status, msg);
}

/* CPU seconds of this process or of its reaped children. */
double dlb_proc_cputime(int children) {
  struct rusage ru;
  if (getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru) != 0) return 0;
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
         + 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* Fork a worker with two channels; see dlb_proc.h. */
int dlb_proc_spawn(int *pid, int *wfd, int *rfd) {
  if (!pid || !wfd || !rfd) return dlb_proc_fail(DLB_EINVAL, "proc: NULL argument");
  /* Unix stream sockets rather than pipes: send(MSG_NOSIGNAL) reports a vanished peer
  ** as an error instead of a SIGPIPE, without touching signal dispositions per write. */
  int down[2], up[2]; /* down: parent -> child; up: child -> parent */
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, down) != 0) return dlb_proc_fail(DLB_EIO, "proc: socketpair: %s", strerror(errno));
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, up) != 0) {
    int e = errno;
    close(down[0]); close(down[1]);
    return dlb_proc_fail(DLB_EIO, "proc: socketpair: %s", strerror(e));
  }
  pid_t parent = getpid();
  fflush(NULL);
  pid_t p = fork();
  if (p < 0) {
    int e = errno;
    close(down[0]); close(down[1]); close(up[0]); close(up[1]);
    return dlb_proc_fail(DLB_EIO, "proc: fork: %s", strerror(e));
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

/* Reap a child. */
int dlb_proc_wait(int pid, int block, int *state, int *code) {
  if (!state || !code) return dlb_proc_fail(DLB_EINVAL, "proc: NULL argument");
  int status = 0;
  pid_t r;
  do r = waitpid((pid_t)pid, &status, block ? 0 : WNOHANG); while (r < 0 && errno == EINTR);
  if (r < 0) return dlb_proc_fail(DLB_ENOTFOUND, "proc: wait for %d: %s", pid, strerror(errno));
  if (r == 0) { *state = DLB_PROC_RUNNING; *code = 0; return DLB_OK; }
  if (WIFSIGNALED(status)) { *state = DLB_PROC_SIGNALED; *code = WTERMSIG(status); }
  else { *state = DLB_PROC_EXITED; *code = WIFEXITED(status) ? WEXITSTATUS(status) : 0; }
  return DLB_OK;
}

/* Send a signal. */
int dlb_proc_kill(int pid, int sig) {
  if (pid <= 0) return dlb_proc_fail(DLB_EINVAL, "proc: refusing to signal pid %d", pid);
  if (kill((pid_t)pid, sig) != 0 && errno != ESRCH) {
    return dlb_proc_fail(DLB_EIO, "proc: kill %d: %s", pid, strerror(errno));
  }
  return DLB_OK;
}

/* Signal name. */
const char *dlb_proc_signame(int sig) {
  const char *s = strsignal(sig);
  return s ? s : "unknown signal";
}

/* End a worker. */
void dlb_proc_exit(int code) {
  fflush(NULL);
  _exit(code);
}
