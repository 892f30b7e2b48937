/*
** test_poly.c — polynomials: parse, print, algebra, evaluation, errors, and a randomized
** round trip of the parser (fuzz): random expressions evaluate to the value computed
** alongside them, printing and re-parsing gives the same polynomial, and random garbage
** never crashes (it parses or fails with DLB_EPARSE).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_runtime.h"
#include "check.h"

static char buf[4096];

static const char *str(const char *text) {
  dlb_poly *p = dlb_poly_parse(text);
  if (!p) return dlb_last_error();
  dlb_poly_tostring(p, buf, sizeof buf);
  dlb_poly_free(p);
  return buf;
}

static void test_print(void) {
  /* the paper's LSTM LM forward FLOPs, q(16h^2 l + 2hv) (Hestness et al., seeds/000 §4.2) */
  CHECK(strcmp(str("q*(16*h^2*l + 2*h*v)"), "16*h^2*l*q + 2*h*q*v") == 0);
  CHECK(strcmp(str("(b+1)^2"), "b^2 + 2*b + 1") == 0);
  CHECK(strcmp(str("h/2 - h"), "-0.5*h") == 0);
  CHECK(strcmp(str("0*x"), "0") == 0);
  CHECK(strcmp(str("784"), "784") == 0);
  CHECK(strcmp(str("  4 * h "), "4*h") == 0);
  CHECK(strcmp(str("-(a-b)*(a+b)"), "-a^2 + b^2") == 0);
  CHECK(strcmp(str("1e6*x"), "1000000*x") == 0);
  CHECK(strcmp(str("x*y*x"), "x^2*y") == 0);
  CHECK(strcmp(str("0.1*a"), "0.1*a") == 0);
}

static void test_errors(void) {
  CHECK(dlb_poly_parse("4*h+") == NULL && dlb_last_status() == DLB_EPARSE);
  CHECK(strstr(dlb_last_error(), "at the end of \"4*h+\"") != NULL);
  CHECK(dlb_poly_parse("x/y") == NULL && strstr(dlb_last_error(), "division") != NULL);
  CHECK(dlb_poly_parse("x^16") == NULL && strstr(dlb_last_error(), "exponent") != NULL);
  CHECK(dlb_poly_parse("(x") == NULL && strstr(dlb_last_error(), "expected ')'") != NULL);
  CHECK(dlb_poly_parse("x $ 2") == NULL && strstr(dlb_last_error(), "position 3") != NULL);
  CHECK(dlb_poly_parse("") == NULL);
  CHECK(dlb_poly_parse("a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q") == NULL &&
        strstr(dlb_last_error(), "more than 16") != NULL);
  CHECK(dlb_poly_parse("x^8*x^8") == NULL && strstr(dlb_last_error(), "exceeds") != NULL);
  char deep[300];
  memset(deep, '(', 200);
  deep[200] = 'x';
  memset(deep + 201, ')', 1);
  deep[202] = '\0';
  CHECK(dlb_poly_parse(deep) == NULL && strstr(dlb_last_error(), "nesting") != NULL);
}

static void test_eval(void) {
  dlb_poly *p = dlb_poly_parse("16*h^2*l*q + 2*h*q*v");
  const char *names[] = {"h", "l", "q", "v"};
  double vals[] = {2048, 2, 80, 10000}, out;
  CHECK(dlb_poly_eval(p, 4, names, vals, &out) == DLB_OK);
  CHECK_NEAR(out, 80 * (16.0 * 2048 * 2048 * 2 + 2.0 * 2048 * 10000), 1e-15);
  CHECK(dlb_poly_eval(p, 2, names, vals, &out) == DLB_EUNBOUND);
  CHECK(strstr(dlb_last_error(), "q, v") != NULL);
  dlb_poly *b = dlb_poly_bind(p, 2, names, vals); /* h, l bound */
  dlb_poly_tostring(b, buf, sizeof buf);
  CHECK(strcmp(buf, "4096*q*v + 134217728*q") == 0); /* 16*2048^2*2 = 134217728; by degree */
  CHECK(dlb_poly_nvars(b) == 2 && strcmp(dlb_poly_varname(b, 0), "q") == 0);
  double v2[] = {80, 10000};
  CHECK_NEAR(dlb_poly_evalv(b, v2), out == out ? 80 * (16.0 * 2048 * 2048 * 2 + 2.0 * 2048 * 10000) : 0, 1e-15);
  double c;
  CHECK(!dlb_poly_is_number(p, &c));
  dlb_poly *n = dlb_poly_number(7);
  CHECK(dlb_poly_is_number(n, &c) && c == 7);
  dlb_poly *s = dlb_poly_sub(p, p);
  CHECK(dlb_poly_is_number(s, &c) && c == 0 && dlb_poly_nterms(s) == 0);
  CHECK(dlb_poly_degree(p) == 4);
  dlb_poly_free(p); dlb_poly_free(b); dlb_poly_free(n); dlb_poly_free(s);
}

/* -- fuzz -- */

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(unsigned n) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (unsigned)(rng % n);
}

static const char *const vnames[] = {"b", "h", "q", "v", "l", "seq_len"};
static const double vvals[] = {3, 1.5, -2, 0.5, 2, 1.25};

/* Random expression into s (appending); returns its value. */
static double gen(char *s, int depth) {
  char tmp[64];
  int k = depth > 4 ? (int)rnd(2) : (int)rnd(7);
  if (k == 0) {
    int c = (int)rnd(20);
    snprintf(tmp, sizeof tmp, "%d", c);
    strcat(s, tmp);
    return c;
  }
  if (k == 1) {
    int v = (int)rnd(6);
    strcat(s, vnames[v]);
    return vvals[v];
  }
  if (k == 2) {
    strcat(s, "(");
    double a = gen(s, depth + 1);
    strcat(s, ")^");
    int e = (int)rnd(3);
    snprintf(tmp, sizeof tmp, "%d", e);
    strcat(s, tmp);
    return pow(a, e);
  }
  if (k == 3) {
    strcat(s, "-(");
    double a = gen(s, depth + 1);
    strcat(s, ")");
    return -a;
  }
  if (k == 4) {
    strcat(s, "(");
    double a = gen(s, depth + 1);
    strcat(s, ")/4");
    return a / 4;
  }
  static const char ops[] = "+-*";
  char op = ops[rnd(3)];
  strcat(s, "(");
  double a = gen(s, depth + 1);
  snprintf(tmp, sizeof tmp, ") %c (", op);
  strcat(s, tmp);
  double b = gen(s, depth + 1);
  strcat(s, ")");
  return op == '+' ? a + b : op == '-' ? a - b : a * b;
}

static void test_fuzz_roundtrip(void) {
  int bad = 0;
  for (int i = 0; i < 3000; i++) {
    char s[8192] = "";
    double want = gen(s, 0);
    dlb_poly *p = dlb_poly_parse(s);
    if (!p) { /* only exponent overflow may fail */
      if (!strstr(dlb_last_error(), "exceed")) { bad++; fprintf(stderr, "parse %s: %s\n", s, dlb_last_error()); }
      continue;
    }
    double got;
    if (dlb_poly_eval(p, 6, vnames, vvals, &got) != DLB_OK ||
        fabs(got - want) > 1e-9 * fmax(1, fabs(want))) {
      bad++;
      fprintf(stderr, "eval %s: %g vs %g\n", s, got, want);
    }
    char text[8192];
    dlb_poly_tostring(p, text, sizeof text);
    dlb_poly *r = dlb_poly_parse(text);
    if (!r || !dlb_poly_equal(p, r)) {
      /* printing rounds coefficients only to a round-tripping decimal: must be equal */
      bad++;
      fprintf(stderr, "roundtrip %s -> %s\n", s, text);
    }
    dlb_poly_free(r);
    dlb_poly_free(p);
  }
  CHECK(bad == 0);
}

static void test_fuzz_garbage(void) {
  static const char alphabet[] = "0123456789 +-*/^()hbq_.eE$x";
  int parsed = 0, failed = 0;
  for (int i = 0; i < 20000; i++) {
    char s[40];
    int n = (int)rnd(30);
    for (int k = 0; k < n; k++) s[k] = alphabet[rnd(sizeof alphabet - 1)];
    s[n] = '\0';
    dlb_poly *p = dlb_poly_parse(s);
    if (p) parsed++;
    else if (dlb_last_status() == DLB_EPARSE || dlb_last_status() == DLB_EINVAL) failed++;
    dlb_poly_free(p);
  }
  CHECK(parsed + failed == 20000);
  CHECK(parsed > 0 && failed > 0);
}

int main(void) {
  RUN(test_print);
  RUN(test_errors);
  RUN(test_eval);
  RUN(test_fuzz_roundtrip);
  RUN(test_fuzz_garbage);
  return check_done();
}
