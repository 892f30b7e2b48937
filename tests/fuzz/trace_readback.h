/*
** trace_readback.h — the trace harnesses' one read-back (fuzz_trace.c, fuzz_tracefile.c):
** every column of every event of t read, so that ASan sees an offset or a length gone wrong;
** a string column that is not its id's text is a crash. Returns the event count.
*/
#ifndef FUZZ_TRACE_READBACK_H
#define FUZZ_TRACE_READBACK_H
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"

static size_t trace_readback(const dlb_trace *t) {
  size_t n = dlb_trace_count(t);
  volatile double sink = dlb_trace_bytes(t);
  for (int c = 0; c < DLB_TRACE_NNUMBERS; c++) {
    const double *v = dlb_trace_numbers(t, c);
    for (size_t i = 0; i < n; i++) sink += v[i];
  }
  for (int c = 0; c < DLB_TRACE_NSTRINGS; c++)
    for (size_t i = 0; i < n; i++) {
      const char *s = dlb_trace_string(t, c, i);
      if (s) sink += (double)strlen(s);
      if (s != dlb_trace_text(t, dlb_trace_string_id(t, c, i))) abort();
    }
  (void)sink;
  return n;
}
#endif
