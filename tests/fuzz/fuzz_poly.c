/*
** fuzz_poly.c — libFuzzer harness for the polynomial parser and printer (graphs/poly*.c).
** A parse that succeeds is printed, the text parsed again and compared (the printer's
** output must read back as the same polynomial), the difference of the two must be 0, and
** the square is taken and evaluated at ones, so the arithmetic runs on parser-made
** polynomials too. Every failure must leave a message.
**
** Speed: the harness lowers the polynomial bounds for its process through the public limit
** API (dlb_poly_set_limits: 300 terms, 3,000 term products per multiplication) and takes
** inputs up to 1 KiB, so no input expands for long: each costs at most a few hundred
** small bounded multiplications (~14,000 executions per CPU second under ASan+UBSan on
** the long run's corpus; 4,000 at 2,000 terms and 20,000 products, with the same 405
** edges covered). What the bounds refuse is the same code path at any limit (a check
** before the products, a check on the result); the default limits themselves are tested
** in tests/test_hostile.c. Built and run by tests/fuzz/run.sh; seeds in
** tests/fuzz/corpus/poly/.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"

enum { MAXLEN = 1024, MAXTERMS = 300, MAXPRODUCTS = 3000 };

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  long t = 0, p = 0;
  if (dlb_poly_set_limits(MAXTERMS, MAXPRODUCTS) != DLB_OK) abort();
  dlb_poly_limits(&t, &p);
  if (t != MAXTERMS || p != MAXPRODUCTS) abort();
  return 0;
}

/* A failed call must say why. */
static void failed(void) {
  const char *m = dlb_last_error();
  if (!m || !m[0] || strcmp(m, "no error") == 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAXLEN) return 0;
  char text[MAXLEN + 1];
  memcpy(text, data, size);
  text[size] = '\0';
  dlb_poly *p = dlb_poly_parse(text);
  if (p == NULL) {
    failed();
    return 0;
  }
  if (dlb_poly_nterms(p) > MAXTERMS) abort(); /* the bound holds */
  size_t n = dlb_poly_tostring(p, NULL, 0);
  char *s = malloc(n + 1);
  if (!s) { dlb_poly_free(p); return 0; }
  if (dlb_poly_tostring(p, s, n + 1) != n || strlen(s) != n) abort();
  /* the printed form reads back as the same polynomial, and p - q is 0 */
  dlb_poly *q = dlb_poly_parse(s);
  if (q == NULL || !dlb_poly_equal(p, q)) abort();
  free(s);
  dlb_poly *d = dlb_poly_sub(p, q);
  if (d == NULL || dlb_poly_nterms(d) != 0) abort();
  dlb_poly_free(d);
  dlb_poly_free(q);
  /* the square: refused with a message past the bounds, else evaluated at ones */
  dlb_poly *sq = dlb_poly_mul(p, p);
  if (sq == NULL) {
    failed();
  } else {
    if (dlb_poly_nterms(sq) > MAXTERMS) abort();
    double ones[DLB_POLY_MAXVARS];
    for (int i = 0; i < DLB_POLY_MAXVARS; i++) ones[i] = 1;
    (void)dlb_poly_evalv(sq, ones);
  }
  dlb_poly_free(sq);
  dlb_poly_free(p);
  return 0;
}
