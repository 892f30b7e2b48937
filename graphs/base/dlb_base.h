/*
** dlb_base.h — the base runtime's public interface: the version, status codes, the
** per-thread error slot, the allocator hook and the interrupt flag. Part of the C users'
** contract (graphs/dlbench.h includes it first); the core (the folders of graphs/) and the figures
** (plots/) both stand on it.
*/
#ifndef DLB_BASE_H
#define DLB_BASE_H

#include <stddef.h>

#include "dlb_export.h"

/* The library version: the one place it is written, with DLB_ABI_VERSION below. premake5.lua
** and build.sh read them here: the SONAME libdlbench.so.ABI, the file name
** libdlbench.so.VERSION and dlbench.pc's Version. */
#define DLB_VERSION "0.2.0"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* The ABI version: the number of the shared library's SONAME (libdlbench.so.N). 0 while
** the interface is still changing (before 1.0); every incompatible change after that adds 1. */
enum { DLB_ABI_VERSION = 0 };

/* Status codes. */
enum {
  DLB_OK = 0,
  DLB_EINVAL = -1,     /* bad argument: unknown option, out-of-range value, wrong type */
  DLB_ENOMEM = -2,     /* allocation failed */
  DLB_ESHAPE = -3,     /* tensor shapes do not fit the op */
  DLB_EUNBOUND = -4,   /* a symbolic dimension needs a value here */
  DLB_EIO = -5,        /* a file could not be read or written */
  DLB_EPARSE = -6,     /* malformed text input */
  DLB_ENUMERIC = -7,   /* a numeric method failed (singular, no convergence, NaN) */
  DLB_ENOTFOUND = -8   /* a named thing does not exist */
};

/* The message of the last failure in this thread; borrowed until the next failure. */
DLB_API const char *dlb_last_error(void);
/* Record a failure for dlb_last_error() (message copied, truncated to 1023 bytes) and return
** status: for the libraries built on libdlbench (libdlbench_proc, proc/dlb_proc.h), so that
** one message slot per thread serves them all. */
DLB_API int dlb_error_set(int status, const char *message);
/* The ABI version the library was built with (compare with DLB_ABI_VERSION). */
DLB_API int dlb_abi_version(void);
/* The library version string (DLB_VERSION when it was built); static. */
DLB_API const char *dlb_version(void);

/* The allocator of the library's memory in this thread: f(ud, NULL, n) allocates n > 0
** bytes, f(ud, p, n) resizes p to n > 0 bytes (NULL on failure, p intact), f(ud, p, 0) frees
** p. Its blocks must be the C library's malloc blocks (a realloc/free-based allocator such
** as Lua's). NULL restores realloc/free. Blocks allocated before stay valid. */
typedef void *(*dlb_allocf)(void *ud, void *ptr, size_t nsize);
DLB_API void dlb_set_allocator(dlb_allocf f, void *ud);
/* Bytes of library memory live in this thread (graphs, analyses, figures...): what a
** garbage-collected host adds to its own heap size to know when to collect. */
DLB_API double dlb_memory_in_use(void);
/* Ask long computations (polynomial expansion) to stop: while the flag is set they fail
** with a message containing "interrupted!". Async-signal-safe (a SIGINT handler calls
** it); on = 0 clears the flag. */
DLB_API void dlb_interrupt(int on);
/* 1 while the flag of dlb_interrupt is set. */
DLB_API int dlb_interrupted(void);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
