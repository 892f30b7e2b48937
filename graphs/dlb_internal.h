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

/* Put a printf-style context before the last failure's message ("reshape 'r': ...",
** for a caller that knows the op or tensor a helper failed on); returns its status. */
int dlb_fail_context(const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 1, 2)))
#endif
  ;

/* The status of the last recorded failure in this thread (DLB_OK if none). */
int dlb_last_status(void);

/* Every block the library allocates goes through these (graphs/alloc.c): the allocator a
** host set with dlb_set_allocator, and the count dlb_memory_in_use reports. Same contracts
** as malloc, calloc, realloc (n 0 allocates a byte), free and strdup. */
#include <stddef.h>
void *dlb_malloc(size_t n);
void *dlb_calloc(size_t n, size_t size);
void *dlb_realloc(void *ptr, size_t n);
void dlb_free(void *p);
char *dlb_strdup(const char *s);
/* The per-op time rule of dlb_op_time without its argument checks, for loops that checked
** the device once (dlb_roofline_ops, the planner). bytes are already scaled and made
** cache-aware by the caller; gemm may be NULL; attention != 0 marks a fused attention
** kernel (timed at d->attn_eff when set). Returns the seconds and sets *mem_bound. */
double dlb_op_time_raw(const dlb_roof *d, double flops, double bytes, const double *gemm,
                       int attention, int *mem_bound);
/* Mark op i of a set as a fused attention kernel (roofline_graph.c, from the analysis). */
struct dlb_opcosts;
int dlb_opcosts_mark_attention(struct dlb_opcosts *c, size_t i);
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
