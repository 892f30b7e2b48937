/*
** dlb_stats.h — statistics: least-squares regression, percentiles, means.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_STATS_H
#define DLB_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
