/*
** fuzz_json.c — libFuzzer harness of the JSON reader (graphs/io/json.c over yajl's event parser):
** a document or a clear "json '...'" error, never a crash. Seed corpus tests/fuzz/corpus/json/.
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Igraphs -Iplots -Ibuild/gen \
**     tests/fuzz/fuzz_json.c graphs/io/json.c graphs/base/error.c -lyajl -o /tmp/fuzz_json
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dlb_json *j = dlb_json_parse((const char *)data, size, "fuzz");
  if (!j) {
    if (strncmp(dlb_last_error(), "json '", 6) != 0) abort();
    return 0;
  }
  for (size_t i = 0; i < dlb_json_count(j); i++) {
    int type, parent;
    double num;
    const char *key, *str;
    if (dlb_json_node(j, i, &type, &parent, &num, &key, &str) != DLB_OK || parent >= (int)i) abort();
    if (str) (void)strlen(str);
    if (key) (void)strlen(key);
  }
  dlb_json_free(j);
  return 0;
}
