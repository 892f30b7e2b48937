/*
** lstats.c — Lua 5.4 binding of the stats area of libdlbench (added to `dlbench.core`):
** regression, percentiles, means, box statistics and the CSV reader. Plain Lua values in
** and out; lua/dlbench/ffi_stats.lua offers the same functions under LuaJIT.
*/
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Scratch memory owned by Lua (a userdata pushed on the stack), so raising never leaks. */
static void *scratch(lua_State *L, size_t bytes) {
  return lua_newuserdatauv(L, bytes ? bytes : 1, 0);
}

/* The numbers in the array at index arg, copied into scratch memory pushed on the stack;
** *n its length. Raises naming the first element that is not a number. */
static double *checknumbers(lua_State *L, int arg, size_t *n, const char *what) {
  luaL_checktype(L, arg, LUA_TTABLE);
  size_t len = (size_t)lua_rawlen(L, arg);
  double *v = scratch(L, sizeof(double) * len);
  for (size_t i = 0; i < len; i++) {
    lua_rawgeti(L, arg, (lua_Integer)i + 1);
    int isnum;
    v[i] = lua_tonumberx(L, -1, &isnum);
    if (!isnum) luaL_error(L, "%s: element %d is a %s, not a number", what, (int)i + 1, luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  *n = len;
  return v;
}

static void setnum(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* -- core.stats_regress(xcols, y, names, logs, options) -> {terms={{name=, weight=, se=,
** t=, shift=, scale=}, ...}, intercept=, intercept_se=, intercept_t=, r2=, adj_r2=, rss=,
** sigma=, n=, k=}; xcols: array of p arrays of n numbers; logs: array of p booleans. */
static int stats_regress(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  int options = (int)luaL_checkinteger(L, 5);
  size_t p = (size_t)lua_rawlen(L, 1), n;
  if (lua_rawlen(L, 3) != p || lua_rawlen(L, 4) != p) return luaL_error(L, "regress: names and logs must match the inputs");
  double *y = checknumbers(L, 2, &n, "regress: y");
  double *x = scratch(L, sizeof(double) * n * p);
  const char **names = scratch(L, sizeof(char *) * p);
  int *flags = scratch(L, sizeof(int) * p);
  for (size_t j = 0; j < p; j++) {
    lua_rawgeti(L, 3, (lua_Integer)j + 1);
    names[j] = lua_tostring(L, -1); /* stays alive in the names table */
    lua_pop(L, 1);
    if (names[j] == NULL) return luaL_error(L, "regress: input %d has no name", (int)j + 1);
    lua_rawgeti(L, 4, (lua_Integer)j + 1);
    flags[j] = lua_toboolean(L, -1) ? DLB_REGRESS_LOG : 0;
    lua_pop(L, 1);
    lua_rawgeti(L, 1, (lua_Integer)j + 1);
    if (!lua_istable(L, -1) || lua_rawlen(L, -1) != n) {
      return luaL_error(L, "regress: '%s' must have %d numbers, like y", names[j], (int)n);
    }
    for (size_t i = 0; i < n; i++) {
      lua_rawgeti(L, -1, (lua_Integer)i + 1);
      int isnum;
      x[j * n + i] = lua_tonumberx(L, -1, &isnum);
      if (!isnum) return luaL_error(L, "regress: '%s', row %d is not a number", names[j], (int)i + 1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  dlb_regression *r = dlb_regress(n, p, x, y, names, flags, options);
  if (!r) return dlbL_error(L);
  size_t k = dlb_regression_terms(r);
  lua_createtable(L, 0, 12);
  lua_createtable(L, (int)k, 0);
  for (size_t j = 0; j < k; j++) {
    const char *nm; double w, se, t, sh, sc;
    dlb_regression_term(r, j, &nm, &w, &se, &t);
    dlb_regression_scaling(r, j, &sh, &sc);
    lua_createtable(L, 0, 6);
    lua_pushstring(L, nm);
    lua_setfield(L, -2, "name");
    setnum(L, "weight", w); setnum(L, "se", se); setnum(L, "t", t);
    setnum(L, "shift", sh); setnum(L, "scale", sc);
    lua_rawseti(L, -2, (lua_Integer)j + 1);
  }
  lua_setfield(L, -2, "terms");
  dlb_regress_fit f;
  dlb_regression_fit(r, &f);
  dlb_regression_free(r);
  setnum(L, "intercept", f.intercept); setnum(L, "intercept_se", f.intercept_se);
  setnum(L, "intercept_t", f.intercept_t); setnum(L, "r2", f.r2); setnum(L, "adj_r2", f.adj_r2);
  setnum(L, "rss", f.rss); setnum(L, "sigma", f.sigma); setnum(L, "n", f.n); setnum(L, "k", f.k);
  return 1;
}

/* -- core.stats_percentiles(list, ps) -> list */
static int stats_percentiles(lua_State *L) {
  size_t n, np;
  double *x = checknumbers(L, 1, &n, "percentile: list");
  double *p = checknumbers(L, 2, &np, "percentile: p");
  double *out = scratch(L, sizeof(double) * np);
  dlbL_check(L, dlb_percentiles(x, n, p, np, out));
  lua_createtable(L, (int)np, 0);
  for (size_t i = 0; i < np; i++) {
    lua_pushnumber(L, out[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* -- core.stats_mean(list, kind) -> number; kind 0 arithmetic, 1 geometric, 2 harmonic */
static int stats_mean(lua_State *L) {
  size_t n;
  int kind = (int)luaL_checkinteger(L, 2);
  double *x = checknumbers(L, 1, &n, "mean: list"), v = 0;
  dlbL_check(L, dlb_mean(x, n, kind, &v));
  lua_pushnumber(L, v);
  return 1;
}

/* -- core.stats_box(list, lo_w, lo_q, hi_q, hi_w, tukey) -> {whisker_lo=, q_lo=, median=,
** q_hi=, whisker_hi=, mean=, min=, max=, n=, outliers=} */
static int stats_box(lua_State *L) {
  size_t n;
  double lw = luaL_checknumber(L, 2), lq = luaL_checknumber(L, 3);
  double hq = luaL_checknumber(L, 4), hw = luaL_checknumber(L, 5);
  int tukey = lua_toboolean(L, 6);
  double *x = checknumbers(L, 1, &n, "box: list");
  dlb_box b;
  dlbL_check(L, dlb_box_stats(x, n, lw, lq, hq, hw, tukey, &b));
  lua_createtable(L, 0, 10);
  setnum(L, "whisker_lo", b.whisker_lo); setnum(L, "q_lo", b.q_lo);
  setnum(L, "median", b.median); setnum(L, "q_hi", b.q_hi);
  setnum(L, "whisker_hi", b.whisker_hi); setnum(L, "mean", b.mean);
  setnum(L, "min", b.min); setnum(L, "max", b.max); setnum(L, "n", b.n);
  setnum(L, "outliers", b.outliers);
  return 1;
}

/* -- core.stats_csv_parse(text, sep) -> records, lines: records an array of arrays of
** strings (every record as wide as the first), lines[i] the line record i starts on. */
static int stats_csv_parse(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  const char *sep = luaL_optstring(L, 2, ",");
  luaL_argcheck(L, strlen(sep) == 1, 2, "separator must be one character");
  dlb_csv *c = dlb_csv_parse(text, len, (unsigned char)sep[0]);
  if (!c) return dlbL_error(L);
  size_t n = dlb_csv_records(c), w = dlb_csv_fields(c);
  if (!lua_checkstack(L, 8)) { dlb_csv_free(c); return luaL_error(L, "csv: stack overflow"); }
  lua_createtable(L, (int)n, 0);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_createtable(L, (int)w, 0);
    size_t line = 0;
    for (size_t j = 0; j < w; j++) {
      size_t fl;
      const char *f = dlb_csv_field(c, i, j, &fl, NULL, j == 0 ? &line : NULL, NULL);
      lua_pushlstring(L, f, fl);
      lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    lua_rawseti(L, -3, (lua_Integer)i + 1);
    lua_pushinteger(L, (lua_Integer)line);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  dlb_csv_free(c);
  return 2;
}

static const luaL_Reg funcs[] = {
  {"stats_regress", stats_regress},
  {"stats_percentiles", stats_percentiles},
  {"stats_mean", stats_mean},
  {"stats_box", stats_box},
  {"stats_csv_parse", stats_csv_parse},
  {NULL, NULL}
};

/* Add the stats functions to the backend table on top of the stack. */
int dlbL_open_stats(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
