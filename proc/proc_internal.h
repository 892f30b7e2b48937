/*
** proc_internal.h — helpers shared inside libdlbench_proc; not part of its interface.
*/
#ifndef DLB_PROC_INTERNAL_H
#define DLB_PROC_INTERNAL_H

#include "dlb_proc.h"

/* Format a message, record it with dlb_error_set (libdlbench's per-thread slot, read by
** dlb_last_error) and return status. */
int dlb_proc_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

#endif
