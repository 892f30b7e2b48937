/*
** dlb_scaling.h — scaling laws: power-law fits and projections.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_SCALING_H
#define DLB_SCALING_H

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
