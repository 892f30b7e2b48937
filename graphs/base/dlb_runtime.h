/*
** dlb_runtime.h — the base runtime's helpers for the code built on it (the core's folders
** and plots/): recording failures, the library's allocator, files written whole or not at
** all. Not part of the public interface (never installed); it includes only the base
** runtime's public header, so a file that includes it sees no other part of the library.
*/
#ifndef DLB_RUNTIME_H
#define DLB_RUNTIME_H

#include <stdarg.h>
#include <stddef.h>

#include "dlb_base.h"

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

/* Put a printf-style context before the last failure's message ("reshape 'r': ...",
** for a caller that knows the op or tensor a helper failed on); returns its status. */
int dlb_fail_context(const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 1, 2)))
#endif
  ;

/* vsnprintf for messages: the same text, but a NaN prints as "nan" whatever its sign bit
** (glibc prints "-nan" for one with the sign bit set, which 0/0 makes on x86), so a message
** is the same under both backends. dlb_fail and dlb_fail_context format with it. */
int dlb_vformat(char *buf, size_t n, const char *fmt, va_list ap);

/* The status of the last recorded failure in this thread (DLB_OK if none). */
int dlb_last_status(void);

/* Every block the library allocates goes through these (graphs/base/alloc.c): the allocator a
** host set with dlb_set_allocator, and the count dlb_memory_in_use reports. Same contracts
** as malloc, calloc, realloc (n 0 allocates a byte), free and strdup. */
#include <stddef.h>
void *dlb_malloc(size_t n);
void *dlb_calloc(size_t n, size_t size);
void *dlb_realloc(void *ptr, size_t n);
void dlb_free(void *p);
char *dlb_strdup(const char *s);
/* A file being written whole or not at all (graphs/base/file.c): dlb_file_begin makes the
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
