/*
** dlb_parallel.h — parallel training: collectives, data/pipeline/tensor parallelism, plans.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_PARALLEL_H
#define DLB_PARALLEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
