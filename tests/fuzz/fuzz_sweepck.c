/*
** fuzz_sweepck.c — libFuzzer harness for what C takes from a dlb.sweep.model checkpoint
** (lua/dlbench/sweep_model_checkpoint.lua, docs/sweep.md "Checkpoints of dlb.sweep.model"):
** a chunk line's reduction states, added back with dlb_reduce_add (counts, NaNs, huge
** values, sizes that do not match), and its kept rows' stored values, read back with
** dlb_sweep_keep (hex digits, lengths). The input is text: a first line naming the part and
** the reducer it goes to, then the part as the checkpoint holds it:
**   "P NCOLS\n" a Pareto front over the last two columns   then "M V1 V2 ..." (%.17g, nan, inf)
**   "T NCOLS\n" a top-3 list of column 0                     then "M V1 V2 ..."
**   "B NX NY AGG\n" a heat map of NX x NY bins, aggregate AGG then "M V1 V2 ..."
**   "G NCOLS NK NC\n" groups by NK keys of NC columns         then "M V1 V2 ..."
**   "K NB ND\n" NB batch values x ND devices of a compiled MLP, rows kept, then the hex text
** (M: the entries, passed as dlb_reduce_add's n; the numbers' count as its len). What must
** hold: no crash, no sanitizer report; a refused part leaves a message; an accepted one reads
** back (every column of every entry); accepted kept rows give back the very text read
** (dlb_reduce_keep_text), and a refused one keeps nothing. Built and run by
** tests/fuzz/run.sh; seeds in tests/fuzz/corpus/sweepck/ (parts of real checkpoint lines:
** tests/fuzz/sweepck_seeds.lua).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "../mlp_fixture.h"

/* An MLP of `layers` hidden layers of width 16 on an input [b, 8], mse loss. */
static dlb_graph *mlp(int layers) { return mlp_fixture(layers, "8", "16"); }

static dlb_sweep_prog *prog;
static int debug; /* FUZZ_SWEEPCK_DEBUG=1: why an input was refused, on stderr */

static void setup(void) {
  const char *vars[] = {"b"};
  dlb_train_opts o = {DLB_OPT_ADAM, DLB_POLICY_FP32, 0, 0, 0, DLB_FUSE_ALL, 0};
  prog = dlb_sweep_prog_new(1, vars, 1);
  if (!prog) abort();
  for (int L = 1; L <= 3; L++) { /* depths 1, 2, 3: the program's depth by multiplicity */
    dlb_graph *g = mlp(L);
    if (dlb_sweep_prog_add(prog, g, &o, L) != DLB_OK) { fprintf(stderr, "%s\n", dlb_last_error()); abort(); }
    dlb_graph_free(g);
  }
  if (dlb_sweep_prog_finish(prog) != DLB_OK) { fprintf(stderr, "%s\n", dlb_last_error()); abort(); }
}

/* The numbers of text s (%.17g, nan, inf: strtod's forms), at most cap. */
static size_t numbers(const char *s, double *out, size_t cap) {
  size_t n = 0;
  char *end;
  while (n < cap) {
    while (*s == ' ') s++;
    if (!*s) break;
    double x = strtod(s, &end);
    if (end == s) { out[n++] = NAN; while (*s && *s != ' ') s++; continue; } /* a bad token */
    out[n++] = x;
    s = end;
  }
  return n;
}

/* A count as dlb_reduce_add's size_t: what a binding could pass (huge, wrapped values too). */
static size_t count_of(double m) {
  if (!(m >= 0)) return (size_t)-1;
  if (m >= 18446744073709551615.0) return (size_t)-1;
  return (size_t)m;
}

/* Every column of every entry of reducer (kind, id): reads back without error. */
static void read_all(dlb_reduce *r, int kind, int id, int c0, int c1) {
  size_t m = dlb_reduce_size(r, kind, id);
  if (m > 100000) abort(); /* more than the input could hold */
  double *out = malloc((m + 1) * sizeof *out);
  if (!out) abort();
  for (int c = c0; c <= c1; c++)
    if (dlb_reduce_column(r, kind, id, c, 0, m, out) != DLB_OK) abort();
  free(out);
}

static void part(char kind, const size_t *a, int na, const char *body) {
  static double v[1 << 16];
  size_t len = numbers(body, v, sizeof v / sizeof *v);
  if (len == 0) return;
  size_t n = count_of(v[0]);
  const double *data = v + 1;
  len--;
  size_t ncols = na > 0 && a[0] >= 2 && a[0] <= 64 ? a[0] : 17;
  dlb_reduce *r = NULL;
  int id = -1, k = 0, c0 = 0, c1 = 0;
  if (kind == 'P') {
    int cols[2] = {(int)ncols - 1, (int)ncols - 2}, mx[2] = {0, 1};
    r = dlb_reduce_new(ncols);
    if (!r || dlb_reduce_pareto(r, 2, cols, mx, -1, &id) != DLB_OK) abort();
    k = DLB_RED_PARETO, c0 = -1, c1 = (int)ncols - 1;
  } else if (kind == 'T') {
    r = dlb_reduce_new(ncols);
    if (!r || dlb_reduce_top(r, 3, 0, 0, -1, &id) != DLB_OK) abort();
    k = DLB_RED_TOP, c0 = -1, c1 = (int)ncols - 1;
  } else if (kind == 'B') {
    size_t nx = na > 0 && a[0] >= 1 && a[0] <= 16 ? a[0] : 2;
    size_t ny = na > 1 && a[1] <= 16 ? a[1] : 0; /* 0: 1-D */
    int agg = na > 2 && a[2] <= DLB_AGG_MEAN ? (int)a[2] : DLB_AGG_SUM;
    double xe[17], ye[17];
    for (size_t i = 0; i <= 16; i++) xe[i] = (double)i, ye[i] = 10.0 * (double)i;
    r = dlb_reduce_new(3);
    if (!r) abort();
    if (dlb_reduce_bins(r, 0, nx + 1, xe, ny ? 1 : -1, ny + 1, ye, 2, agg, -1, &id) != DLB_OK) abort();
    k = DLB_RED_BINS, c0 = 0, c1 = 2;
  } else if (kind == 'G') {
    size_t nk = na > 1 && a[1] >= 1 && a[1] <= 8 && a[1] <= ncols ? a[1] : 1;
    size_t nc = na > 2 && a[2] <= 8 && a[2] <= ncols ? a[2] : 1;
    int keys[8], cols[8];
    for (size_t i = 0; i < 8; i++) keys[i] = (int)(i % ncols), cols[i] = (int)((ncols - 1 - i % ncols));
    r = dlb_reduce_new(ncols);
    if (!r || dlb_reduce_group(r, nk, keys, nc, cols, -1, &id) != DLB_OK) abort();
    k = DLB_RED_GROUP, c0 = 0, c1 = (int)(nk + 3 * nc);
  } else {
    return;
  }
  if (dlb_reduce_add(r, k, id, n, len, data) != DLB_OK) {
    if (debug) fprintf(stderr, "refused: %s\n", dlb_last_error());
    if (!*dlb_last_error()) abort();
  } else {
    read_all(r, k, id, c0, c1);
    /* a second time: the state merges with what it holds */
    if (dlb_reduce_add(r, k, id, n, len, data) != DLB_OK) abort();
    read_all(r, k, id, c0, c1);
  }
  dlb_reduce_free(r);
}

static void kept(const size_t *a, int na, const char *text, size_t tlen) {
  size_t nb = na > 0 && a[0] >= 1 && a[0] <= 8 ? a[0] : 1;
  size_t nd = na > 1 && a[1] >= 1 && a[1] <= 3 ? a[1] : 1;
  double nval[2] = {(double)nb, 2}, values[10];
  for (size_t i = 0; i < nb; i++) values[i] = (double)(1 + 3 * i);
  values[nb] = 1, values[nb + 1] = 2;
  dlb_roof d[3];
  double mem[3 * DLB_SWM_COUNT];
  memset(mem, 0, sizeof mem);
  for (size_t i = 0; i < nd; i++) {
    dlb_roof_init(&d[i]);
    d[i].peak = 100e12 / (double)(i + 1), d[i].bw = 2e12, d[i].kernel_overhead = 5e-6;
    mem[i * DLB_SWM_COUNT] = DLB_MEM_FRAMEWORK, mem[i * DLB_SWM_COUNT + 2] = 4;
    mem[i * DLB_SWM_COUNT + 3] = 80e9;
  }
  size_t ncols = 2 + 1 + DLB_SWC_COUNT, rows = nb * 2 * nd;
  if (debug) fprintf(stderr, "kept: %zu rows, %zu characters\n", rows, tlen);
  dlb_reduce *r = dlb_reduce_new(ncols);
  if (!r || dlb_reduce_keep(r, 1000) != DLB_OK) abort();
  int st = dlb_sweep_keep(prog, 2, nval, nb + 2, values, nd, d, mem, 0, NULL, 0, 0, r, tlen, text);
  if (st != DLB_OK) {
    if (debug) fprintf(stderr, "refused: %s\n", dlb_last_error());
    if (!*dlb_last_error() || dlb_reduce_size(r, DLB_RED_KEEP, 0) != 0) abort();
  } else {
    if (tlen != 64 * rows || dlb_reduce_size(r, DLB_RED_KEEP, 0) != rows) abort();
    double out[64];
    for (int c = -1; c < (int)ncols; c++)
      if (dlb_reduce_column(r, DLB_RED_KEEP, 0, c, 0, rows, out) != DLB_OK) abort();
    char *back = NULL;
    size_t blen = 0;
    if (dlb_reduce_keep_text(r, 0, rows, &back, &blen) != DLB_OK) abort();
    if (blen != tlen || memcmp(back, text, tlen) != 0) abort(); /* the very bits */
    dlb_reduce_text_free(back);
  }
  dlb_reduce_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!prog) setup(), debug = getenv("FUZZ_SWEEPCK_DEBUG") != NULL;
  if (size < 2 || size > 200000) return 0;
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = 0;
  char *nl = memchr(s, '\n', size);
  if (!nl) { free(s); return 0; }
  *nl = 0;
  size_t a[3] = {0, 0, 0};
  int na = 0;
  char *p = s + 1, *end;
  while (na < 3) {
    unsigned long long x = strtoull(p, &end, 10);
    if (end == p) break;
    a[na++] = (size_t)x;
    p = end;
  }
  const char *body = nl + 1;
  size_t blen = size - (size_t)(body - s);
  if (s[0] == 'K') kept(a, na, body, blen);
  else if (memchr(body, 0, blen) == NULL) part(s[0], a, na, body);
  free(s);
  return 0;
}
