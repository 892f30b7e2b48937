/*
** dlb_roofline.h — roofline timing of costs and graphs on a device.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_ROOFLINE_H
#define DLB_ROOFLINE_H

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
