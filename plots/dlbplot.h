/*
** dlbplot.h — the figure model and its Cairo renderer (PNG, PDF, SVG).
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLBPLOT_H
#define DLBPLOT_H

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
