/*
** alloc.c — the allocator behind every block libdlbench allocates, and the count of what is
** live. A host sets its own allocator with dlb_set_allocator (the Lua host hands it the Lua
** state's, in the manner of SQLite's SQLITE_CONFIG_MALLOC), and reads dlb_memory_in_use to
** tell its garbage collector about C memory it cannot see (docs/architecture.md, "Memory").
** Both are per thread, like dlb_last_error; a forked worker inherits them.
** The count uses glibc's malloc_usable_size, so an allocator must hand out blocks of the C
** library's malloc (realloc-based allocators such as Lua's own qualify).
*/
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_base.h"
#include "dlb_runtime.h"

static _Thread_local dlb_allocf allocf = NULL; /* NULL: the C library's realloc/free */
static _Thread_local void *allocud = NULL;
static _Thread_local size_t live = 0;

/* Use f (with its ud) for every allocation of this thread from now on; NULL restores the C
** library's. Blocks allocated before stay valid: f must free and resize malloc blocks. */
void dlb_set_allocator(dlb_allocf f, void *ud) {
  allocf = f;
  allocud = ud;
}

/* Bytes of library memory live in this thread (usable sizes of the blocks). */
double dlb_memory_in_use(void) {
  return (double)live;
}

/* Resize (or allocate, ptr NULL) to n > 0 bytes through the allocator, keeping the count. */
void *dlb_realloc(void *ptr, size_t n) {
  if (n == 0) n = 1; /* realloc(p, 0) is implementation-defined; never free through it */
  size_t before = ptr ? malloc_usable_size(ptr) : 0;
  void *q = allocf ? allocf(allocud, ptr, n) : realloc(ptr, n);
  if (q == NULL) return NULL; /* ptr untouched, as realloc */
  live += malloc_usable_size(q);
  live -= before < live ? before : live;
  return q;
}

/* Allocate n bytes. */
void *dlb_malloc(size_t n) {
  return dlb_realloc(NULL, n);
}

/* Allocate n * size zeroed bytes (NULL on overflow, as calloc). */
void *dlb_calloc(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  size_t bytes = n * size;
  if (bytes == 0) bytes = 1;
  void *p = dlb_realloc(NULL, bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

/* Free p (NULL is a no-op). */
void dlb_free(void *p) {
  if (p == NULL) return;
  size_t n = malloc_usable_size(p);
  live -= n < live ? n : live;
  if (allocf) allocf(allocud, p, 0);
  else free(p);
}

/* A copy of s in library memory, or NULL. */
char *dlb_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = dlb_malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}
