/*
** lmeasure.c — Lua 5.4 binding of the measure and trace areas of libdlbench (added to
** `dlbench.core`): host microbenchmarks (graphs/measure.c) and profiler traces
** (graphs/trace.c), and the minimiser behind dlb.hw.calibrate (graphs/minimize.c). Plain
** values in and out; a trace is a "dlbench.Trace" handle, a minimiser a "dlbench.Minimizer".
** lua/dlbench/ffi_measure.lua mirrors it for LuaJIT.
*/
#include <math.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

#define TRACE "dlbench.Trace"
#define MINIMIZER "dlbench.Minimizer"

typedef struct Box { dlb_trace *t; } Box;

/* -- core.measure_caches() -> {l1, l2, l3, l4} (bytes, 0 when absent), deepest level */
static int measure_caches(lua_State *L) {
  double c[4];
  int levels;
  dlbL_check(L, dlb_measure_caches(c, &levels));
  dlbL_pushnumbers(L, c, 4);
  lua_pushinteger(L, levels);
  return 2;
}

/* -- core.measure_gemm(dp, m, n, k, batch, threads, reps, min_time) -> median, min, max s */
static int measure_gemm(lua_State *L) {
  double out[3];
  int dp = lua_toboolean(L, 1);
  double m = luaL_checknumber(L, 2), n = luaL_checknumber(L, 3), k = luaL_checknumber(L, 4);
  double batch = luaL_checknumber(L, 5);
  lua_Integer threads = luaL_checkinteger(L, 6), reps = luaL_checkinteger(L, 7);
  double min_time = luaL_checknumber(L, 8);
  luaL_argcheck(L, threads >= 0 && threads <= 1024, 6, "threads must be 0..1024");
  luaL_argcheck(L, reps >= 1 && reps <= 1000, 7, "reps must be 1..1000");
  dlbL_check(L, dlb_measure_gemm(dp, m, n, k, batch, (int)threads, (int)reps, min_time, out));
  for (int i = 0; i < 3; i++) lua_pushnumber(L, out[i]);
  return 3;
}

/* -- core.measure_stream(kernel, bytes, threads, reps, min_time) -> median, min, max s, moved bytes */
static int measure_stream(lua_State *L) {
  double out[4];
  lua_Integer kernel = luaL_checkinteger(L, 1);
  double bytes = luaL_checknumber(L, 2);
  lua_Integer threads = luaL_checkinteger(L, 3), reps = luaL_checkinteger(L, 4);
  double min_time = luaL_checknumber(L, 5);
  luaL_argcheck(L, kernel >= 0 && kernel <= 3, 1, "kernel must be 0..3");
  luaL_argcheck(L, threads >= 0 && threads <= 1024, 3, "threads must be 0..1024");
  luaL_argcheck(L, reps >= 1 && reps <= 1000, 4, "reps must be 1..1000");
  dlbL_check(L, dlb_measure_stream((int)kernel, bytes, (int)threads, (int)reps, min_time, out));
  for (int i = 0; i < 4; i++) lua_pushnumber(L, out[i]);
  return 4;
}

/* -- traces ------------------------------------------------------------------------ */

static dlb_trace *checktrace(lua_State *L, int i) {
  Box *b = (Box *)luaL_checkudata(L, i, TRACE);
  if (b->t == NULL) luaL_argerror(L, i, "trace is closed");
  return b->t;
}

/* A closed box, then the trace in it (or the core's error). */
static int pushtrace(lua_State *L, Box *b, dlb_trace *t) {
  if (t == NULL) return dlbL_error(L);
  b->t = t;
  return 1;
}

static Box *newbox(lua_State *L) {
  Box *b = (Box *)lua_newuserdatauv(L, sizeof(Box), 0);
  b->t = NULL;
  luaL_setmetatable(L, TRACE);
  return b;
}

/* -- core.trace_read(path) -> trace */
static int trace_read(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  Box *b = newbox(L);
  return pushtrace(L, b, dlb_trace_read(path));
}

/* -- core.trace_parse(text) -> trace */
static int trace_parse(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  Box *b = newbox(L);
  return pushtrace(L, b, dlb_trace_parse(s, len));
}

/* -- core.trace_count(trace) -> events, JSON bytes read */
static int trace_count(lua_State *L) {
  dlb_trace *t = checktrace(L, 1);
  lua_pushinteger(L, (lua_Integer)dlb_trace_count(t));
  lua_pushnumber(L, dlb_trace_bytes(t));
  return 2;
}

/* -- core.trace_numbers(trace, column) -> array (nil where absent: iterate 1..count) */
static int trace_numbers(lua_State *L) {
  dlb_trace *t = checktrace(L, 1);
  lua_Integer col = luaL_checkinteger(L, 2);
  luaL_argcheck(L, col >= 0 && col < DLB_TRACE_NNUMBERS, 2, "unknown numeric trace column");
  size_t n = dlb_trace_count(t);
  const double *v = dlb_trace_numbers(t, (int)col);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    if (isnan(v[i])) continue;
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* -- core.trace_strings(trace, column) -> array (nil where absent: iterate 1..count) */
static int trace_strings(lua_State *L) {
  dlb_trace *t = checktrace(L, 1);
  lua_Integer col = luaL_checkinteger(L, 2);
  luaL_argcheck(L, col >= 0 && col < DLB_TRACE_NSTRINGS, 2, "unknown text trace column");
  size_t n = dlb_trace_count(t);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    const char *s = dlb_trace_string(t, (int)col, i);
    if (!s) continue;
    lua_pushstring(L, s);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* __gc / __close: free the trace and mark the box closed. */
static int trace_gc(lua_State *L) {
  Box *b = (Box *)luaL_checkudata(L, 1, TRACE);
  dlb_trace_free(b->t);
  b->t = NULL;
  return 0;
}

/* -- the minimiser (reverse communication) ------------------------------------------ */

typedef struct MBox { dlb_minimizer *m; size_t n; } MBox;

static MBox *checkmin(lua_State *L, int i) {
  MBox *b = (MBox *)luaL_checkudata(L, i, MINIMIZER);
  if (b->m == NULL) luaL_argerror(L, i, "minimizer is closed");
  return b;
}

/* -- core.minimizer_new(x0, step, lo, hi, tol, max_evals) -> minimizer */
static int minimizer_new(lua_State *L) {
  size_t n, ns, nl, nh;
  double *x0 = dlbL_checknumbers(L, 1, &n, "x0");
  double *st = dlbL_checknumbers(L, 2, &ns, "step");
  double *lo = dlbL_checknumbers(L, 3, &nl, "lo");
  double *hi = dlbL_checknumbers(L, 4, &nh, "hi");
  double tol = luaL_checknumber(L, 5);
  lua_Integer maxe = luaL_checkinteger(L, 6);
  luaL_argcheck(L, ns == n && nl == n && nh == n, 2, "x0, step, lo and hi need the same length");
  luaL_argcheck(L, maxe >= 1 && maxe <= 1000000, 6, "max_evals must be 1..1e6");
  MBox *b = (MBox *)lua_newuserdatauv(L, sizeof(MBox), 0);
  b->m = NULL;
  b->n = n;
  luaL_setmetatable(L, MINIMIZER);
  b->m = dlb_minimizer_new(n, x0, st, lo, hi, tol, (int)maxe);
  if (b->m == NULL) return dlbL_error(L);
  return 1;
}

/* -- core.minimizer_ask(m) -> {x...} or nil when finished */
static int minimizer_ask(lua_State *L) {
  MBox *b = checkmin(L, 1);
  double x[64];
  if (!dlb_minimizer_ask(b->m, x)) { lua_pushnil(L); return 1; }
  dlbL_pushnumbers(L, x, b->n);
  return 1;
}

/* -- core.minimizer_tell(m, f) */
static int minimizer_tell(lua_State *L) {
  MBox *b = checkmin(L, 1);
  dlbL_check(L, dlb_minimizer_tell(b->m, luaL_checknumber(L, 2)));
  return 0;
}

/* -- core.minimizer_best(m) -> {x...}, f, evals */
static int minimizer_best(lua_State *L) {
  MBox *b = checkmin(L, 1);
  double x[64], f;
  int evals;
  dlbL_check(L, dlb_minimizer_best(b->m, x, &f, &evals));
  dlbL_pushnumbers(L, x, b->n);
  lua_pushnumber(L, f);
  lua_pushinteger(L, evals);
  return 3;
}

static int minimizer_gc(lua_State *L) {
  MBox *b = (MBox *)luaL_checkudata(L, 1, MINIMIZER);
  dlb_minimizer_free(b->m);
  b->m = NULL;
  return 0;
}

static const luaL_Reg measurelib[] = {
  {"minimizer_new", minimizer_new},
  {"minimizer_ask", minimizer_ask},
  {"minimizer_tell", minimizer_tell},
  {"minimizer_best", minimizer_best},
  {"measure_caches", measure_caches},
  {"measure_gemm", measure_gemm},
  {"measure_stream", measure_stream},
  {"trace_read", trace_read},
  {"trace_parse", trace_parse},
  {"trace_count", trace_count},
  {"trace_numbers", trace_numbers},
  {"trace_strings", trace_strings},
  {NULL, NULL}
};

static const luaL_Reg meta[] = {
  {"__gc", trace_gc},
  {"__close", trace_gc},
  {NULL, NULL}
};

static const luaL_Reg minmeta[] = {
  {"__gc", minimizer_gc},
  {"__close", minimizer_gc},
  {NULL, NULL}
};

/* Add the measure and trace functions to the backend table on top of the stack. */
int dlbL_open_measure(lua_State *L) {
  luaL_setfuncs(L, measurelib, 0);
  luaL_newmetatable(L, TRACE);
  luaL_setfuncs(L, meta, 0);
  lua_pop(L, 1);
  luaL_newmetatable(L, MINIMIZER);
  luaL_setfuncs(L, minmeta, 0);
  lua_pop(L, 1);
  return 0;
}
