/*
** dlb_sys.h — what the numeric core asks of the machine: a monotonic clock and the number
** of online processors (graphs/base/sys.c), and the allocation policy hosts set. Used by the host microbenchmarks (graphs/hw/measure.c)
** and, through the backends, by sweeps' rates and default job counts. Process control (the
** worker pool) is not here: it is libdlbench_proc (proc/dlb_proc.h).
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_SYS_H
#define DLB_SYS_H

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* Online processors (at least 1). */
DLB_API int dlb_sys_cores(void);
/* Seconds on a monotonic clock (for rates and ETAs). */
DLB_API double dlb_sys_now(void);
/* The C library's allocation policy for a process that runs analyses (large blocks from
** the heap, freed heap kept for reuse; glibc's mallopt): a host calls it once, first.
** 1 where applied (glibc), 0 elsewhere. */
DLB_API int dlb_sys_malloc_tune(void);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
