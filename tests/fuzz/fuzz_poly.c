/*
** fuzz_poly.c — libFuzzer harness for the polynomial parser and printer (graphs/poly*.c).
** A parse that succeeds is printed, the text parsed again and compared (the printer's
** output must read back as the same polynomial), and (when small) squared and evaluated
** at ones, so the arithmetic runs on parser-made polynomials too. Built and run by
** tests/fuzz/run.sh; seeds in tests/fuzz/corpus/poly/.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  dlb_poly *p = dlb_poly_parse(text);
  free(text);
  if (p == NULL) {
    if (dlb_last_error()[0] == '\0') abort();
    return 0;
  }
  size_t n = dlb_poly_tostring(p, NULL, 0);
  char *s = malloc(n + 1);
  if (!s) { dlb_poly_free(p); return 0; }
  if (dlb_poly_tostring(p, s, n + 1) != n || strlen(s) != n) abort();
  /* the printed form reads back as the same polynomial (up to 256 KiB of text: a 2 MB
  ** round trip takes seconds under the sanitizers, and tells no more) */
  if (n <= 256 * 1024) {
    dlb_poly *q = dlb_poly_parse(s);
    if (q == NULL || !dlb_poly_equal(p, q)) abort();
    dlb_poly_free(q);
  }
  free(s);
  /* squared only when small: the product of big ones is bounded (DLB_POLY_MAXTERMS and
  ** 4e6 term products) but slow under the sanitizers, and the fuzzer would spend its time
  ** there */
  dlb_poly *sq = dlb_poly_nterms(p) <= 64 ? dlb_poly_mul(p, p) : NULL;
  double ones[DLB_POLY_MAXVARS];
  for (int i = 0; i < DLB_POLY_MAXVARS; i++) ones[i] = 1;
  if (sq) (void)dlb_poly_evalv(sq, ones);
  dlb_poly_free(sq);
  dlb_poly_free(p);
  return 0;
}
