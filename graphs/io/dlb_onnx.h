/*
** dlb_onnx.h — importing ONNX models as dlbench graphs (graphs/io/onnx.c, onnx_ops.c).
** Part of the public interface: included by dlbench.h.
**
** The file is parsed with protobuf-c and the onnx.proto of Debian's libonnx-dev (C code
** generated at build time). Each node becomes ops of the graph IR; shapes come from the
** graph inputs (dim_param names become symbols, so the counts stay polynomials in them)
** and are inferred op by op; shape arithmetic on constants is evaluated at import time;
** float initializers used by ops become weights (their data is never read, so stripped or
** external-data files work). A loss is added to the first graph output so the training
** step can be generated (docs/import.md). The mapping is documented in docs/import.md.
*/
#ifndef DLB_ONNX_H
#define DLB_ONNX_H

#include <stddef.h>

#include "dlb_graph.h"

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
typedef struct dlb_onnx dlb_onnx;  /* an imported model: its graph and the import report */

/* What to do with operators the importer does not know. */
enum { DLB_ONNX_UNKNOWN_ERROR = 0, DLB_ONNX_UNKNOWN_SKIP = 1 };
/* The loss added to the first graph output (AUTO: a scalar output is the loss itself;
** logits [..., C] with a constant C get softmax cross-entropy against class ids; other
** outputs a mean squared error against a target of the same shape). */
enum { DLB_ONNX_LOSS_AUTO = 0, DLB_ONNX_LOSS_XENT = 1, DLB_ONNX_LOSS_MSE = 2, DLB_ONNX_LOSS_NONE = 3 };
/* Kinds of report entries. */
enum { DLB_ONNX_R_OPTYPE = 0,      /* an ONNX op type in the file and its node count */
       DLB_ONNX_R_UNSUPPORTED = 1, /* an op type costed as element-wise (unknown = skip) */
       DLB_ONNX_R_WARNING = 2,     /* an approximation the user should know about */
       DLB_ONNX_R_LAYER = 3,       /* a layer scope of the graph, in order (docs/import.md) */
       DLB_ONNX_R_TRIL = 4,        /* a Trilu node with upper = 0: text "node N 'name'", count
                                   ** its offset k (NaN: not a constant; docs/import.md) */
       DLB_ONNX_R_TRIU = 5,        /* the same with upper = 1 */
       DLB_ONNX_R_META = 6 };      /* the model's metadata_props entry: text "key=value",
                                   ** count the key's length (a key may hold '=') */
/* Facts about the import (dlb_onnx_facts). */
enum { DLB_ONNX_OPSET = 0, DLB_ONNX_IR_VERSION = 1, DLB_ONNX_NODES = 2,
       DLB_ONNX_INITIALIZERS = 3, DLB_ONNX_WEIGHT_ELEMENTS = 4, DLB_ONNX_BN_STATS = 5,
       DLB_ONNX_CONST_ELEMENTS = 6, DLB_ONNX_FUSED = 7, /* spelled-out LayerNorms fused */
       DLB_ONNX_NFACTS = 8 };

/* Import an ONNX file; unknown: DLB_ONNX_UNKNOWN_*, loss: DLB_ONNX_LOSS_*. NULL with a
** message (unreadable or malformed file, unsupported operators listed with their counts,
** shapes that do not fit). The caller frees the result with dlb_onnx_free. */
DLB_API dlb_onnx *dlb_onnx_read(const char *path, int unknown, int loss);
/* The same from bytes in memory; name is used in messages. */
DLB_API dlb_onnx *dlb_onnx_parse(const void *data, size_t size, const char *name, int unknown,
                                 int loss);
DLB_API void dlb_onnx_free(dlb_onnx *m);
/* The imported graph; the caller takes it over (frees it with dlb_graph_free); NULL when
** it was taken already. */
DLB_API dlb_graph *dlb_onnx_take_graph(dlb_onnx *m);
/* Report entries: count, and entry i's text (borrowed while m lives; NULL when out of
** range) with its kind (DLB_ONNX_R_*) and count. */
DLB_API size_t dlb_onnx_nreport(const dlb_onnx *m);
DLB_API const char *dlb_onnx_report(const dlb_onnx *m, size_t i, int *kind, double *count);
/* Facts into out[DLB_ONNX_NFACTS] (indices DLB_ONNX_OPSET ...). */
DLB_API int dlb_onnx_facts(const dlb_onnx *m, double *out, size_t n);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
