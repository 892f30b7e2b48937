/*
** fuzz_onnx.c — libFuzzer harness of the ONNX importer (graphs/onnx*.c over protobuf-c):
** any input must give an imported graph (then analysed with every dim bound) or a clear
** error, never a crash, a leak or a sanitizer report. Seed corpus: tests/fuzz/corpus/onnx/
** (small fixtures; causal-*: the causal mask forms of tests/lua/test_onnx_causal.lua) and the deep files tests/lua/hostile_files.lua writes (build/fuzz/seeds/onnx,
** made by tests/fuzz/run.sh). Build and run (docs/import.md, BENCHMARKS.md):
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Igraphs -Iplots -Ibuild/gen \
**     tests/fuzz/fuzz_onnx.c $(find graphs -name '*.c') build/gen/onnx.pb-c.c -lprotobuf-c -lyajl -lm \
**     -o /tmp/fuzz_onnx
**   /tmp/fuzz_onnx -max_len=65536 tests/fuzz/corpus/onnx
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dlb_onnx *m = dlb_onnx_parse(data, size, "fuzz", (int)(size & 1), DLB_ONNX_LOSS_AUTO);
  if (!m) {
    if (strncmp(dlb_last_error(), "onnx '", 6) != 0) abort(); /* every message names the file */
    return 0;
  }
  dlb_graph *g = dlb_onnx_take_graph(m);
  dlb_onnx_free(m);
  /* bind the symbols the importer makes (batch, seq, d1 ...) and analyse a training step */
  const char *names[] = {"batch", "seq", "d1", "d2", "d3", "sequence", "N"};
  double vals[] = {2, 3, 2, 2, 2, 3, 2};
  dlb_train_opts o = {0};
  if (dlb_graph_nops(g) < 2000) {
    dlb_analysis *a = dlb_graph_analyze(g, &o, 7, names, vals);
    dlb_analysis_free(a);
    /* the attention patterns and their causal masks (graphs/io/onnx_mask.c) */
    size_t na = 0, nc = 0;
    if (dlb_graph_attention_count(g, &na, &nc) == DLB_OK && nc > na) abort();
    dlb_poly_free(dlb_graph_symbolic_attention(g, 1, 0, NULL, NULL));
  }
  dlb_graph_free(g);
  return 0;
}
