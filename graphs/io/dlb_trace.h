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

/* What a read may take (docs/security.md, "Traces"); a field <= 0 takes its default. Each
** limit passed is an error naming the limit and the byte offset (of the decompressed
** JSON). The defaults keep a dlb.table of the events within about 1 GB. */
typedef struct dlb_trace_limits {
  double max_bytes;    /* bytes of JSON after decompression: default 1 GiB (stream: 100 times
                       ** the file's bytes, at least 64 MiB) */
  double max_events;   /* events kept: default 1,048,576 (a stream's batches: no total cap) */
  double max_string;   /* bytes of any one string or number (keys and values, name too, as
                          written, escapes included): default 65,536 */
  double max_text;     /* bytes of the distinct strings kept (a stream's batch): 64 MiB */
} dlb_trace_limits;

/* Read a trace file (gzip or plain: detected from its bytes) within lim (NULL: the
** defaults); NULL on failure, with a message naming the file and the byte offset (of the
** decompressed JSON) where the input went wrong: bad JSON, a limit passed, a NUL byte in a
** text value ("\u0000": C would cut it). Free with dlb_trace_free. */
DLB_API dlb_trace *dlb_trace_read(const char *path);
DLB_API dlb_trace *dlb_trace_read_limits(const char *path, const dlb_trace_limits *lim);
/* The same for len bytes of JSON text in memory. */
DLB_API dlb_trace *dlb_trace_parse(const char *json, size_t len);
DLB_API dlb_trace *dlb_trace_parse_limits(const char *json, size_t len, const dlb_trace_limits *lim);
/* A trace file read in batches (dlb.trace.summary of a path): opens it and reads nothing;
** each dlb_trace_next replaces the events with the next batch of at least `batch` events
** (plus those of at most 4 KiB more JSON; fewer at the end), *count of them, 0 at the
** end. The columns and strings of a batch are borrowed until the next call. max_events
** does not apply (a batch bounds the memory); max_bytes and max_string do. */
DLB_API dlb_trace *dlb_trace_open(const char *path, const dlb_trace_limits *lim);
DLB_API int dlb_trace_next(dlb_trace *t, size_t batch, size_t *count);
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
/* Event i's text in a text column as an id: 0 when the event does not say (or i, column
** out of range), else 1.. (equal text, equal id); dlb_trace_text(t, id) is the text,
** borrowed as dlb_trace_string's (NULL for an unknown id). A binding makes each text once. */
DLB_API size_t dlb_trace_string_id(const dlb_trace *t, int column, size_t i);
DLB_API const char *dlb_trace_text(const dlb_trace *t, size_t id);
/* The rule every event keeps, the one place (a trace read here keeps it as it is parsed):
** event i (1-based; name NULL when it has none) with duration dur (us; NaN: not given).
** DLB_OK, or DLB_EINVAL with "event i ('name'): 'dur' is negative (...)": for events that
** did not come from a file (dlb.trace.summary of a table made by hand). */
DLB_API int dlb_trace_check_event(size_t i, const char *name, double dur);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
