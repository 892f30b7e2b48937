/*
** fuzz_trace.c — libFuzzer harness of the trace reader (graphs/io/trace.c): any bytes either
** parse into events whose columns can all be read, or fail with a message naming a byte
** offset; never a crash, a leak or a hang. Inputs of odd length are read under small
** limits (dlb_trace_limits), so the limit paths are fuzzed too. Build (see COMMON.md):
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -Igraphs -Iplots tests/fuzz/fuzz_trace.c \
**     graphs/io/trace.c graphs/base/error.c -lyajl -lz -o /tmp/fuzz_trace
**   /tmp/fuzz_trace tests/fuzz/corpus/trace
*/
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dlbench.h"
#include "trace_readback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dlb_trace_limits small = {4096, 64, 256, 2048};
  dlb_trace *t = dlb_trace_parse_limits((const char *)data, size, size & 1 ? &small : NULL);
  if (!t) {
    const char *m = dlb_last_error();
    if (!m || strncmp(m, "trace ", 6) != 0) __builtin_trap(); /* every failure says what */
    return 0;
  }
  size_t n = trace_readback(t);
  if (size & 1 && n > 64) __builtin_trap(); /* max_events held */
  dlb_trace_free(t);
  return 0;
}
