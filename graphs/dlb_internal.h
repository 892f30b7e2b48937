/*
** dlb_internal.h — helpers shared inside libdlbench; not part of the public interface.
*/
#ifndef DLB_INTERNAL_H
#define DLB_INTERNAL_H

#include "dlbench.h"

/* Record a printf-style message for dlb_last_error() and return `status`, so failures
** read `return dlb_fail(DLB_EINVAL, "matmul %s: ...", name);`. */
int dlb_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* As dlb_fail for constructors: records the message and returns NULL. */
void *dlb_fail_null(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* The status of the last recorded failure in this thread (DLB_OK if none). */
int dlb_last_status(void);

/* A file being written whole or not at all (graphs/file.c): dlb_file_begin makes the
** temporary file beside path's target and opens it (fd); write to fd, then
** dlb_file_commit (fsync, permission bits, rename; closes fd unless keep is set, frees
** the names) or dlb_file_abort (close, remove, free). dlb_file_write is the whole cycle. */
typedef struct dlb_file_tmp {
  int fd;
  char *tmp, *target;
  unsigned mode;
} dlb_file_tmp;
int dlb_file_begin(const char *path, dlb_file_tmp *t);
int dlb_file_commit(dlb_file_tmp *t, int keep);
void dlb_file_abort(dlb_file_tmp *t);

#endif
