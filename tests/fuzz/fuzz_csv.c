/*
** fuzz_csv.c — libFuzzer harness for the CSV reader (graphs/io/csv.c). The first byte picks
** the separator; the rest is the text. Every field of a successful parse is read back
** whole (length and terminating NUL), so an offset or length past the buffer shows up
** under ASan. Built and run by tests/fuzz/run.sh; seeds in tests/fuzz/corpus/csv/.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char seps[] = { ',', ';', '\t', '|' };
  int sep = ',';
  if (size > 0) { sep = seps[data[0] & 3]; data++; size--; }
  dlb_csv *c = dlb_csv_parse((const char *)data, size, sep);
  if (c == NULL) {
    if (dlb_last_error()[0] == '\0') abort(); /* a failure always says why */
    return 0;
  }
  size_t nr = dlb_csv_records(c), nf = dlb_csv_fields(c);
  volatile size_t sum = 0;
  for (size_t i = 0; i < nr; i++)
    for (size_t j = 0; j < nf; j++) {
      size_t len, line, col;
      int quoted;
      const char *s = dlb_csv_field(c, i, j, &len, &quoted, &line, &col);
      if (s == NULL || s[len] != '\0' || len > size) abort();
      for (size_t k = 0; k < len; k++) sum += (unsigned char)s[k];
    }
  if (dlb_csv_field(c, nr, 0, NULL, NULL, NULL, NULL) != NULL) abort();
  dlb_csv_free(c);
  return 0;
}
