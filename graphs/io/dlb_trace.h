/*
** dlb_trace.h — profiler traces in: the Chrome trace-event JSON that PyTorch's profiler and
** Kineto write (object form {"traceEvents": [...]} and bare-array form [...], plain or
** gzip), parsed as a stream with yajl's callback parser and zlib into columns of events,
** never into a document tree (graphs/io/trace.c; lua/dlbench/trace.lua builds the dlb.table).
** Part of the public interface: included by dlbench.h; see its comment for the rules
** that hold between the FFI markers.
*/
#ifndef DLB_TRACE_H
#define DLB_TRACE_H

#include <stddef.h>

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
typedef struct dlb_trace dlb_trace;

/* Numeric columns of dlb_trace_numbers (NaN where the event does not say): "ts" and "dur"
** (microseconds, as written), and from "args": "device", "stream", "correlation",
** "External id", "Sequence number", "flops" (with_flops=True). */
enum {
  DLB_TRACE_TS = 0, DLB_TRACE_DUR = 1, DLB_TRACE_DEVICE = 2, DLB_TRACE_STREAM = 3,
  DLB_TRACE_CORRELATION = 4, DLB_TRACE_EXTERNAL_ID = 5, DLB_TRACE_SEQUENCE = 6,
  DLB_TRACE_FLOPS = 7, DLB_TRACE_NNUMBERS = 8
};
/* Text columns of dlb_trace_string: "name", "cat", "ph", "pid" and "tid" (numbers kept as
** their text), args "Input Dims" (compact JSON, e.g. "[[64,784],[784]]") and
** "Input type". */
enum {
  DLB_TRACE_NAME = 0, DLB_TRACE_CAT = 1, DLB_TRACE_PH = 2, DLB_TRACE_PID = 3,
  DLB_TRACE_TID = 4, DLB_TRACE_SHAPES = 5, DLB_TRACE_TYPES = 6, DLB_TRACE_NSTRINGS = 7
};

/* Read a trace file (gzip or plain: detected from its bytes); NULL on failure, with a
** message naming the file and the byte offset (of the decompressed JSON) where the input
** went wrong. Free with dlb_trace_free. */
DLB_API dlb_trace *dlb_trace_read(const char *path);
/* The same for len bytes of JSON text in memory. */
DLB_API dlb_trace *dlb_trace_parse(const char *json, size_t len);
DLB_API void dlb_trace_free(dlb_trace *t);
/* Number of events. */
DLB_API size_t dlb_trace_count(const dlb_trace *t);
/* Bytes of JSON read (after decompression). */
DLB_API double dlb_trace_bytes(const dlb_trace *t);
/* A numeric column (DLB_TRACE_TS ..): count entries, borrowed until dlb_trace_free; NULL for
** an unknown column. */
DLB_API const double *dlb_trace_numbers(const dlb_trace *t, int column);
/* Event i's text in a text column (DLB_TRACE_NAME ..), borrowed until dlb_trace_free; NULL
** when the event does not say, i is out of range or the column unknown. */
DLB_API const char *dlb_trace_string(const dlb_trace *t, int column, size_t i);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
