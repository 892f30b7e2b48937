/*
** dlb_proc.h — libdlbench_proc: the worker pool of parallel sweeps (fork with two channels,
** full writes, polling, reaping, signals), exact binary words for the rows workers send,
** durable appends for sweep checkpoints, and the terminal the progress line is drawn on.
** POSIX (Linux). Its own library beside the host (proc/), so the numeric core, libdlbench,
** holds no process control; it links libdlbench for the error slot (dlb_last_error).
** C users include dlbench.h and this header and link -ldlbench_proc -ldlbench
** (pkg-config dlbench-proc). The FFI declarations of lua/dlbench/ffi_cdef_proc.lua are
** generated from the region below (host/gen_cdef.lua); the rules of dlbench.h hold there.
*/
#ifndef DLB_PROC_H
#define DLB_PROC_H

#include <stddef.h>

#include "dlbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* CPU seconds (user + system) of this process (children = 0) or of its children that
** have been waited for (children = 1), as getrusage counts them. */
DLB_API double dlb_proc_cputime(int children);
/* 1 when fd is a terminal. */
DLB_API int dlb_proc_isatty(int fd);
/* Columns of the terminal on fd, or 0 when fd is not a terminal (or its size is unknown). */
DLB_API int dlb_proc_term_width(int fd);

/* Fork a worker joined by two channels (Unix stream sockets). Flushes stdio first, so buffered output is not
** written twice. In the parent: *pid is the child, *wfd writes to the child, *rfd reads
** from it (both close-on-exec). In the child: *pid is 0, *rfd reads the parent's
** messages, *wfd writes back; SIGINT is reset to its default action (Ctrl-C stops
** workers; the parent handles it) unless it was ignored, and the child is killed when
** the parent dies. */
DLB_API int dlb_proc_spawn(int *pid, int *wfd, int *rfd);
/* Write all len bytes (retrying short writes and EINTR); a vanished reader is DLB_EIO,
** never a SIGPIPE, on the channels of dlb_proc_spawn. */
DLB_API int dlb_proc_write(int fd, const char *buf, size_t len);
/* One read of up to size bytes into buf; *got = 0 at end of file. */
DLB_API int dlb_proc_read(int fd, char *buf, size_t size, size_t *got);
/* Wait up to timeout seconds (< 0: forever) until one of fds[0..n-1] can be read (data
** or end of file); ready[i] is set to 1 for those. A signal ends the wait early with
** nothing ready. */
DLB_API int dlb_proc_poll(const int *fds, size_t n, double timeout, int *ready);
/* The most descriptors one dlb_proc_poll watches (its pollfd array is on the stack), so the
** most workers one parallel sweep runs (dlb.sweep's jobs). */
enum { DLB_PROC_MAXPOLL = 4096 };
/* Process states of dlb_proc_wait. */
enum { DLB_PROC_RUNNING = 0, DLB_PROC_EXITED = 1, DLB_PROC_SIGNALED = 2 };
/* Reap pid (block != 0: wait for it). *state is one of the above; *code the exit status
** or the signal number. */
DLB_API int dlb_proc_wait(int pid, int block, int *state, int *code);
/* Send signal sig to pid (9 kills, 15 terminates). A process already gone is not an error. */
DLB_API int dlb_proc_kill(int pid, int sig);
/* The name of signal sig ("Killed", "Segmentation fault"); static. */
DLB_API const char *dlb_proc_signame(int sig);
/* Close a descriptor. */
DLB_API int dlb_proc_close(int fd);
/* End a worker process now with status code, after flushing stdio (no atexit handlers,
** no Lua state teardown). Only for children made by dlb_proc_spawn. */
DLB_API void dlb_proc_exit(int code);

/* Exact binary numbers for the worker channels (seeds of a sweep's rows): n doubles or
** n 64-bit integers as 8-byte little-endian words (every bit kept: -0, NaN payloads,
** denormals), out holding 8n bytes; and back. in and out need no alignment. */
DLB_API void dlb_proc_pack_f64(const double *v, size_t n, char *out);
DLB_API void dlb_proc_unpack_f64(const char *in, size_t n, double *v);
DLB_API void dlb_proc_pack_i64(const long long *v, size_t n, char *out);
DLB_API void dlb_proc_unpack_i64(const char *in, size_t n, long long *v);

/* Open path for appending (created 0644 if missing); *fd receives the descriptor. */
DLB_API int dlb_proc_open_append(const char *path, int *fd);
/* Flush fd's data to the device (fsync). */
DLB_API int dlb_proc_fsync(int fd);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
