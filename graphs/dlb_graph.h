/*
** dlb_graph.h — compute graphs: tensors, ops, training-step expansion and analysis.
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_GRAPH_H
#define DLB_GRAPH_H

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
