/*
** poly_parse.c — the text form of polynomials: a recursive-descent parser.
**
**   expr   := term (('+' | '-') term)*
**   term   := unary (('*' unary) | ('/' number-valued unary))*
**   unary  := ('-' | '+') unary | power
**   power  := atom ('^' integer)?
**   atom   := number | identifier | '(' expr ')'
** Nesting is limited to 64 levels; errors name the position and the text.
*/
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlb_poly.h"
#include "dlb_runtime.h"
#include "poly_impl.h"

typedef struct {
  const char *text, *p;
  int depth;
  int failed;
} parser;

/* expr := term (('+' | '-') term)* */
static dlb_poly *expr(parser *ps);

/* Skip blanks. */
static void skip(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n') ps->p++;
}

/* Record the first parse error (position and text) and return NULL. */
static dlb_poly *perr(parser *ps, const char *what) {
  if (!ps->failed) {
    ps->failed = 1;
    if (*ps->p)
      dlb_fail(DLB_EPARSE, "poly: %s at position %d ('%.10s') in \"%.80s\"", what,
               (int)(ps->p - ps->text) + 1, ps->p, ps->text);
    else
      dlb_fail(DLB_EPARSE, "poly: %s at the end of \"%.80s\"", what, ps->text);
  }
  return NULL;
}

/* atom := number | identifier | '(' expr ')' */
static dlb_poly *atom(parser *ps) {
  skip(ps);
  char c = *ps->p;
  if (c == '(') {
    ps->p++;
    if (++ps->depth > 64) return perr(ps, "nesting deeper than 64");
    dlb_poly *e = expr(ps);
    ps->depth--;
    if (!e) return NULL;
    skip(ps);
    if (*ps->p != ')') {
      dlb_poly_free(e);
      return perr(ps, "expected ')'");
    }
    ps->p++;
    return e;
  }
  if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)ps->p[1]))) {
    char *end;
    double v = strtod(ps->p, &end);
    if (!isfinite(v)) return perr(ps, "number out of range");
    ps->p = end;
    dlb_poly *r = dlb_poly_number(v);
    if (!r) ps->failed = 1;
    return r;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    const char *s = ps->p;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_') ps->p++;
    size_t n = (size_t)(ps->p - s);
    if (n > 63) {
      ps->p = s;
      return perr(ps, "name longer than 63 characters");
    }
    char name[64];
    memcpy(name, s, n);
    name[n] = '\0';
    char low[64];
    for (size_t i = 0; i <= n; i++) low[i] = (char)tolower((unsigned char)name[i]);
    if (strcmp(low, "nan") == 0 || strcmp(low, "inf") == 0 || strcmp(low, "infinity") == 0) {
      ps->p = s;
      return perr(ps, "not a finite number (nan and inf are not dims or variable names)");
    }
    const char *names[1] = {name};
    pterm t = {1, 1.0};
    dlb_poly *r = dlb_poly_build(names, 1, &t, 1);
    if (!r) ps->failed = 1;
    return r;
  }
  return perr(ps, c ? "unexpected character" : "expected a number or a name");
}

/* power := atom ('^' integer)? */
static dlb_poly *power(parser *ps) {
  dlb_poly *a = atom(ps);
  if (!a) return NULL;
  skip(ps);
  if (*ps->p != '^') return a;
  ps->p++;
  skip(ps);
  if (!isdigit((unsigned char)*ps->p)) {
    dlb_poly_free(a);
    return perr(ps, "expected an integer exponent");
  }
  long n = 0;
  while (isdigit((unsigned char)*ps->p) && n <= 1000) n = n * 10 + (*ps->p++ - '0');
  if (n > DLB_POLY_MAXEXP) {
    dlb_poly_free(a);
    return perr(ps, "exponent larger than 15");
  }
  dlb_poly *r = dlb_poly_pow(a, (int)n);
  dlb_poly_free(a);
  if (!r) ps->failed = 1;
  return r;
}

/* unary := ('-' | '+') unary | power */
static dlb_poly *unary(parser *ps) {
  skip(ps);
  if (*ps->p == '-' || *ps->p == '+') {
    int neg = *ps->p == '-';
    ps->p++;
    if (++ps->depth > 64) return perr(ps, "nesting deeper than 64");
    dlb_poly *a = unary(ps);
    ps->depth--;
    if (!a || !neg) return a;
    dlb_poly *r = dlb_poly_scale(a, -1);
    dlb_poly_free(a);
    if (!r) ps->failed = 1;
    return r;
  }
  return power(ps);
}

/* term := unary (('*' unary) | ('/' number))* */
static dlb_poly *term(parser *ps) {
  dlb_poly *a = unary(ps);
  while (a) {
    skip(ps);
    char op = *ps->p;
    if (op != '*' && op != '/') return a;
    ps->p++;
    const char *at = ps->p;
    dlb_poly *b = unary(ps);
    if (!b) {
      dlb_poly_free(a);
      return NULL;
    }
    dlb_poly *r;
    if (op == '*') {
      r = dlb_poly_mul(a, b);
    } else {
      double d;
      if (!dlb_poly_is_number(b, &d) || d == 0) {
        dlb_poly_free(a);
        dlb_poly_free(b);
        ps->p = at;
        return perr(ps, "division by a name or by zero (only by a nonzero number)");
      }
      r = dlb_poly_scale(a, 1 / d);
    }
    dlb_poly_free(a);
    dlb_poly_free(b);
    if (!r) ps->failed = 1;
    a = r;
  }
  return a;
}

/* Free the n polys of list and the list. */
static void freelist(dlb_poly **list, size_t n) {
  for (size_t i = 0; i < n; i++) dlb_poly_free(list[i]);
  dlb_free(list);
}

/* expr := term (('+' | '-') term)*: the summands are collected and added in one pass
** (dlb_poly_sum), so a long sum parses in O(T log T), not O(T^2). */
static dlb_poly *expr(parser *ps) {
  dlb_poly *a = term(ps);
  if (!a) return NULL;
  dlb_poly **list = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    skip(ps);
    char op = *ps->p;
    if (op != '+' && op != '-') break;
    ps->p++;
    if (n == cap) {
      size_t nc = cap ? 2 * cap : 16;
      dlb_poly **nl = dlb_realloc(list, nc * sizeof *nl);
      if (!nl) {
        dlb_poly_free(a);
        freelist(list, n);
        ps->failed = 1;
        return dlb_fail_null(DLB_ENOMEM, "poly: out of memory");
      }
      list = nl; cap = nc;
    }
    list[n++] = a;
    if (dlb_interrupted()) {
      freelist(list, n);
      ps->failed = 1;
      return dlb_fail_null(DLB_EINVAL, "poly: interrupted! (while parsing)");
    }
    dlb_poly *b = term(ps);
    if (b && op == '-') {
      dlb_poly *nb = dlb_poly_scale(b, -1);
      dlb_poly_free(b);
      if (!nb) ps->failed = 1;
      b = nb;
    }
    if (!b) {
      freelist(list, n);
      return NULL;
    }
    a = b;
  }
  if (n == 0) return a;
  dlb_poly *r = NULL;
  if (n == cap) {
    dlb_poly **nl = dlb_realloc(list, (cap + 1) * sizeof *nl);
    if (!nl) {
      dlb_poly_free(a);
      freelist(list, n);
      ps->failed = 1;
      return dlb_fail_null(DLB_ENOMEM, "poly: out of memory");
    }
    list = nl;
  }
  list[n++] = a;
  r = dlb_poly_sum(list, n);
  freelist(list, n);
  if (!r) ps->failed = 1;
  return r;
}

/* Parse text into a new polynomial (see the grammar above); NULL with DLB_EPARSE. */
dlb_poly *dlb_poly_parse(const char *text) {
  if (!text) return dlb_fail_null(DLB_EINVAL, "poly: text is NULL");
  parser ps = {text, text, 0, 0};
  dlb_poly *r = expr(&ps);
  if (!r) return NULL;
  skip(&ps);
  if (*ps.p) {
    dlb_poly_free(r);
    return perr(&ps, "unexpected text");
  }
  return r;
}
