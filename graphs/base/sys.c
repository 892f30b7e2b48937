/*
** sys.c — the machine facts the core needs: a monotonic clock and the online processors;
** and the C library's allocation policy a host may ask for. POSIX.
*/
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__) /* defined by the headers above */
#include <malloc.h>
#endif

#include "dlb_sys.h"

/* Online processors. */
int dlb_sys_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Monotonic seconds. */
double dlb_sys_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The allocation policy of a process that runs analyses (both hosts: the dlbench executable
** at start, the LuaJIT FFI backend on load). Graph analyses allocate and free blocks of
** megabytes (a step's arrays, the footprint scheduler's scratch). By default glibc maps such
** blocks fresh and unmaps them on free, so every analysis pays page faults and page zeroing
** for them (a quarter of the analysis time of a 30,000-op step; BENCHMARKS.md "Compute-graph
** engine"; under LuaJIT the LSTM LM step's median analysis 16-22 ms -> 12-13 ms, "The
** per-configuration path"). Serving blocks up to 32 MB (glibc's maximum) from the heap and
** keeping up to 128 MB of freed heap for reuse avoids that, at the price of copies when such
** a block grows by realloc (graph arrays of 100k+ ops). Process-wide: a library never sets
** it by itself. Returns 1 where applied (glibc), 0 elsewhere. */
int dlb_sys_malloc_tune(void) {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
  return 1;
#else
  return 0;
#endif
}
