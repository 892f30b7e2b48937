/*
** test_onnx.c — the ONNX importer and the JSON reader in C: the committed fixtures import
** with torchvision's parameter counts (tests/fixtures/onnx/README.md), every prefix of a
** file and random byte mutations give an import or a clear "onnx '...'" error, never a
** crash (run under ASan by ./build.sh test), and the JSON reader's nodes.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "check.h"

#define FIX "tests/fixtures/onnx/"

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(len > 0 ? (size_t)len : 1);
  *n = buf ? fread(buf, 1, (size_t)len, f) : 0;
  fclose(f);
  return buf;
}

/* Parameters of an imported file with every dim bound to 2. */
static double params(const char *path, double *bn) {
  dlb_onnx *m = dlb_onnx_read(path, DLB_ONNX_UNKNOWN_ERROR, DLB_ONNX_LOSS_AUTO);
  if (!m) { fprintf(stderr, "%s\n", dlb_last_error()); return -1; }
  double f[DLB_ONNX_NFACTS];
  dlb_onnx_facts(m, f, DLB_ONNX_NFACTS);
  if (bn) *bn = f[DLB_ONNX_BN_STATS];
  dlb_graph *g = dlb_onnx_take_graph(m);
  dlb_onnx_free(m);
  /* the graph's own dims (binding a name the graph lacks is an error) */
  char bufs[8][64];
  const char *names[8];
  double vals[8];
  size_t nv = dlb_graph_nvars(g);
  if (nv > 8) nv = 8;
  for (size_t i = 0; i < nv; i++) {
    dlb_graph_varname(g, i, bufs[i], sizeof bufs[i]);
    names[i] = bufs[i];
    vals[i] = 2;
  }
  dlb_train_opts o = {0};
  dlb_analysis *a = dlb_graph_analyze(g, &o, nv, names, vals);
  dlb_totals t = {0};
  if (a) dlb_analysis_totals(a, &t);
  else fprintf(stderr, "%s\n", dlb_last_error());
  dlb_analysis_free(a);
  dlb_graph_free(g);
  return a ? t.params : -1;
}

static void test_fixtures(void) {
  double bn = 0;
  /* torchvision 0.14: sum(p.numel() for p in model.parameters()); running_mean +
  ** running_var elements (printed by tests/fixtures/make_onnx.py) */
  CHECK(params(FIX "resnet50.onnx", &bn) == 25557032 && bn == 53120);
  CHECK(params(FIX "resnet18_opset9.onnx", &bn) == 11689512 && bn == 9600);
  CHECK(params(FIX "mobilenet_v2.onnx", &bn) == 3504872 && bn == 34112);
  CHECK(params(FIX "small_cnn.onnx", &bn) == 38634 && bn == 96);
  CHECK(params(FIX "transformer_encoder.onnx", NULL) == 653544);
  CHECK(params(FIX "transformer_encoder_opset17.onnx", NULL) == 653544);
  CHECK(params(FIX "lstm.onnx", NULL) == 232714);
  CHECK(params(FIX "gru.onnx", NULL) == 174858);
  CHECK(params(FIX "googlenet.onnx", &bn) == 6624904 && bn == 14560);
  CHECK(params(FIX "inception_v3.onnx", &bn) == 23834568 && bn == 34432);
  CHECK(params(FIX "densenet121.onnx", &bn) == 7978856 && bn == 83648);
  CHECK(params(FIX "vgg11.onnx", &bn) == 132863336 && bn == 0);
  CHECK(params(FIX "bert_like.onnx", NULL) == 176706);
  CHECK(params(FIX "gpt2_like.onnx", NULL) == 172288);
}

static void test_unknown(void) {
  dlb_onnx *m = dlb_onnx_read(FIX "custom_ops.onnx", DLB_ONNX_UNKNOWN_ERROR, DLB_ONNX_LOSS_AUTO);
  CHECK(m == NULL && strstr(dlb_last_error(), "Einsum (2), FancyAct (1)"));
  m = dlb_onnx_read(FIX "custom_ops.onnx", DLB_ONNX_UNKNOWN_SKIP, DLB_ONNX_LOSS_AUTO);
  CHECK(m != NULL);
  int skipped = 0;
  for (size_t i = 0; m && i < dlb_onnx_nreport(m); i++) {
    int kind;
    double c;
    const char *s = dlb_onnx_report(m, i, &kind, &c);
    if (kind == DLB_ONNX_R_UNSUPPORTED) {
      skipped += (int)c;
      CHECK(!strcmp(s, "Einsum") || !strcmp(s, "FancyAct") || !strcmp(s, "Pool8"));
    }
  }
  CHECK(skipped == 4); /* Einsum 2, FancyAct 1, Pool8 1 */
  CHECK(dlb_onnx_report(m, 1000, NULL, NULL) == NULL);
  dlb_graph *g = dlb_onnx_take_graph(m);
  CHECK(g && dlb_onnx_take_graph(m) == NULL);
  dlb_graph_free(g);
  dlb_onnx_free(m);
  CHECK(dlb_onnx_read(FIX "custom_ops.onnx", 7, 0) == NULL && strstr(dlb_last_error(), "unknown"));
  CHECK(dlb_onnx_read("/nonexistent.onnx", 0, 0) == NULL && strstr(dlb_last_error(), "cannot open"));
  CHECK(dlb_onnx_read("tests", 0, 0) == NULL && strstr(dlb_last_error(), "not a regular file"));
  CHECK(dlb_onnx_parse("", 0, "empty", 0, 0) == NULL && strstr(dlb_last_error(), "no graph"));
}

/* Every prefix, and random mutations: an import or an error starting "onnx '". */
static void test_truncated_and_mutated(void) {
  const char *files[] = {FIX "small_cnn.onnx", FIX "custom_ops.onnx", FIX "lstm.onnx"};
  unsigned seed = 12345;
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    size_t n = 0;
    char *buf = slurp(files[f], &n);
    CHECK(buf && n > 100);
    if (!buf) continue;
    int ok = 0, err = 0;
    size_t step = n > 4000 ? 7 : 1;
    for (size_t len = 0; len < n; len += step) {
      dlb_onnx *m = dlb_onnx_parse(buf, len, "prefix", DLB_ONNX_UNKNOWN_SKIP, DLB_ONNX_LOSS_AUTO);
      if (m) ok++;
      else { err++; CHECK(strncmp(dlb_last_error(), "onnx '", 6) == 0); }
      dlb_onnx_free(m);
    }
    CHECK(err > 0);
    char *mut = malloc(n);
    for (int k = 0; k < 300 && mut; k++) {
      memcpy(mut, buf, n);
      for (int e = 0; e < 4; e++) {
        seed = seed * 1103515245u + 12345u;
        mut[(seed >> 8) % n] = (char)(seed >> 16);
      }
      dlb_onnx *m = dlb_onnx_parse(mut, n, "mutant", k & 1, DLB_ONNX_LOSS_AUTO);
      if (!m) CHECK(strncmp(dlb_last_error(), "onnx '", 6) == 0);
      dlb_onnx_free(m);
    }
    free(mut);
    free(buf);
  }
}

/* The fuzz corpus (seeds and regressions found by tests/fuzz/fuzz_onnx.c) through the
** importer and an analysis, as the harness runs them. */
static void test_corpus(void) {
  DIR *d = opendir("tests/fuzz/corpus/onnx");
  CHECK(d != NULL);
  if (!d) return;
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[600];
    snprintf(path, sizeof path, "tests/fuzz/corpus/onnx/%s", e->d_name);
    size_t len = 0;
    char *buf = slurp(path, &len);
    if (!buf) continue;
    dlb_onnx *m = dlb_onnx_parse(buf, len, "corpus", DLB_ONNX_UNKNOWN_SKIP, DLB_ONNX_LOSS_AUTO);
    if (!m) CHECK(strncmp(dlb_last_error(), "onnx '", 6) == 0);
    dlb_onnx_free(m);
    free(buf);
    n++;
  }
  closedir(d);
  CHECK(n >= 3);
}

static void test_json(void) {
  const char *s = "{\"a\": [1, 2.5, {\"b\": \"x\"}], \"c\": null, \"d\": true}";
  dlb_json *j = dlb_json_parse(s, strlen(s), "t");
  CHECK(j && dlb_json_count(j) == 8);
  int type, parent;
  double num;
  const char *key, *str;
  CHECK(dlb_json_node(j, 0, &type, &parent, &num, &key, &str) == DLB_OK && type == DLB_JSON_OBJECT && parent == -1);
  CHECK(dlb_json_node(j, 3, &type, &parent, &num, &key, &str) == DLB_OK && type == DLB_JSON_NUMBER && num == 2.5 && parent == 1 && key == NULL);
  CHECK(dlb_json_node(j, 5, &type, &parent, &num, &key, &str) == DLB_OK && type == DLB_JSON_STRING && !strcmp(str, "x") && !strcmp(key, "b"));
  CHECK(dlb_json_node(j, 8, &type, NULL, NULL, NULL, NULL) == DLB_EINVAL);
  dlb_json_free(j);
  CHECK(dlb_json_parse("{\"a\": ", 6, "cut") == NULL && strstr(dlb_last_error(), "json 'cut'"));
  CHECK(dlb_json_parse("{\"a\": 1}\0x", 10, "nul") == NULL && strstr(dlb_last_error(), "NUL"));
  char deep[300];
  memset(deep, '[', 200);
  CHECK(dlb_json_parse(deep, 200, "deep") == NULL);
  j = dlb_json_read("tests/fixtures/hf/gpt2.json");
  CHECK(j && dlb_json_count(j) > 20);
  dlb_json_free(j);
  /* a key twice in one object is an error naming it (before review7: the last value kept
  ** silently); the same key in sibling or nested objects is not */
  const char *dup = "{\"heads\": 8, \"x\": 1, \"heads\": 16}";
  CHECK(dlb_json_parse(dup, strlen(dup), "dup") == NULL &&
        strstr(dlb_last_error(), "json 'dup': byte ") &&
        strstr(dlb_last_error(), "the key \"heads\" given twice in one object"));
  const char *dup2 = "{\"a\": {\"k\": 1}, \"b\": {\"k\": 2, \"a\": {\"k\": [{\"k\": 1}, {\"k\": 2}]}}}";
  j = dlb_json_parse(dup2, strlen(dup2), "siblings");
  CHECK(j && dlb_json_count(j) == 11);
  dlb_json_free(j);
  const char *dup3 = "[{\"a\": 1}, {\"b\": {\"c\": 1, \"c\": null}}]";
  CHECK(dlb_json_parse(dup3, strlen(dup3), "nested") == NULL && strstr(dlb_last_error(), "\"c\" given twice"));
  /* many keys (the table grows): 5,000 distinct ones pass, then one repeated fails */
  size_t cap = 5000 * 16 + 64, len = 0;
  char *many = malloc(cap);
  CHECK(many != NULL);
  if (many) {
    len += (size_t)snprintf(many + len, cap - len, "{");
    for (int i = 0; i < 5000; i++) len += (size_t)snprintf(many + len, cap - len, "%s\"k%d\": %d", i ? "," : "", i, i);
    len += (size_t)snprintf(many + len, cap - len, "}");
    j = dlb_json_parse(many, len, "many");
    CHECK(j && dlb_json_count(j) == 5001);
    dlb_json_free(j);
    len -= 1;
    len += (size_t)snprintf(many + len, cap - len, ", \"k4321\": 0}");
    CHECK(dlb_json_parse(many, len, "many") == NULL && strstr(dlb_last_error(), "\"k4321\" given twice"));
    free(many);
  }
  /* a number past the largest double is an error (before review7: +inf, which from_hf's
  ** "positive integer" check let through); underflow reads as 0 */
  CHECK(dlb_json_parse("{\"h\": 1e999}", 12, "big") == NULL &&
        strstr(dlb_last_error(), "json 'big': byte 11: the number 1e999 is out of range"));
  j = dlb_json_parse("[1e-999, -1e308]", 16, "small");
  CHECK(j && dlb_json_count(j) == 3);
  double tiny = -1;
  CHECK(j && dlb_json_node(j, 1, NULL, NULL, &tiny, NULL, NULL) == DLB_OK && tiny == 0);
  dlb_json_free(j);
  /* a UTF-8 byte order mark is skipped (before: "lexical error: invalid char"); offsets
  ** count from the first byte of the text as given */
  const char *bom = "\xEF\xBB\xBF{\"a\": 1}";
  j = dlb_json_parse(bom, strlen(bom), "bom");
  CHECK(j && dlb_json_count(j) == 2);
  dlb_json_free(j);
  const char *bombad = "\xEF\xBB\xBF{\"a\": 1, \"a\": 2}";
  CHECK(dlb_json_parse(bombad, strlen(bombad), "bom") == NULL && strstr(dlb_last_error(), "given twice"));
  CHECK(dlb_json_parse("\xEF\xBB\xBF", 3, "bom only") == NULL && strstr(dlb_last_error(), "json 'bom only': byte 3"));
  /* yajl names the byte after the bad one: 2 for "{x", 5 with the mark before it */
  CHECK(dlb_json_parse("{x", 2, "x") == NULL && strstr(dlb_last_error(), "json 'x': byte 2"));
  CHECK(dlb_json_parse("\xEF\xBB\xBF{x", 5, "bom x") == NULL && strstr(dlb_last_error(), "json 'bom x': byte 5"));
}

/* Issue [18] item 7: the causal mask read at import (graphs/io/onnx_mask.c; docs/import.md
** "Causal attention"). gpt2_like's tril buffer, sliced to the sequence and applied by Where
** (modeling_gpt2.py), makes both its attention patterns causal; bert_like's padding mask and
** transformer_encoder's unmasked attention are not causal. The causal patterns' score and
** value matmuls (make_onnx.py GPT2Like: 2 layers, 4 heads of 16): 2 x 2 x 2 b H s^2 dh per
** layer = 512 b s^2, the zoo gpt's. */
static void test_causal(void) {
  static const struct { const char *file; size_t n, causal; } cases[] = {
    {FIX "gpt2_like.onnx", 2, 2}, {FIX "bert_like.onnx", 2, 0}, {FIX "transformer_encoder.onnx", 2, 0},
    {FIX "transformer_encoder_opset17.onnx", 2, 0}, {FIX "resnet50.onnx", 0, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    dlb_onnx *m = dlb_onnx_read(cases[i].file, DLB_ONNX_UNKNOWN_ERROR, DLB_ONNX_LOSS_AUTO);
    CHECK(m != NULL);
    if (!m) continue;
    dlb_graph *g = dlb_onnx_take_graph(m);
    dlb_onnx_free(m);
    size_t n = 9, c = 9;
    CHECK(dlb_graph_attention_count(g, &n, &c) == DLB_OK && n == cases[i].n && c == cases[i].causal);
    if (i == 0) {
      const char *names[2] = {"batch", "sequence"};
      double vals[2] = {2, 128}, v = -1;
      dlb_poly *all = dlb_graph_symbolic_attention(g, -1, 2, names, vals);
      dlb_poly *cau = dlb_graph_symbolic_attention(g, 1, 2, names, vals);
      dlb_poly *non = dlb_graph_symbolic_attention(g, 0, 2, names, vals);
      CHECK(all && dlb_poly_is_number(all, &v) && v == 512.0 * 2 * 128 * 128);
      CHECK(cau && dlb_poly_is_number(cau, &v) && v == 512.0 * 2 * 128 * 128);
      CHECK(non && dlb_poly_is_number(non, &v) && v == 0);
      CHECK(dlb_graph_symbolic_attention(g, 2, 0, NULL, NULL) == NULL &&
            strstr(dlb_last_error(), "-1 (all), 0 (not causal) or 1 (causal), got 2"));
      dlb_poly_free(all); dlb_poly_free(cau); dlb_poly_free(non);
    }
    dlb_graph_free(g);
  }
}

int main(void) {
  RUN(test_fixtures);
  RUN(test_causal);
  RUN(test_unknown);
  RUN(test_truncated_and_mutated);
  RUN(test_corpus);
  RUN(test_json);
  return check_done();
}
