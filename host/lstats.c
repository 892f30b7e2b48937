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
  double *y = dlbL_checknumbers(L, 2, &n, "regress: y");
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
    dlbL_setnumber(L, "weight", w); dlbL_setnumber(L, "se", se); dlbL_setnumber(L, "t", t);
    dlbL_setnumber(L, "shift", sh); dlbL_setnumber(L, "scale", sc);
    lua_rawseti(L, -2, (lua_Integer)j + 1);
  }
  lua_setfield(L, -2, "terms");
  dlb_regress_fit f;
  dlb_regression_fit(r, &f);
  dlb_regression_free(r);
  dlbL_setnumber(L, "intercept", f.intercept); dlbL_setnumber(L, "intercept_se", f.intercept_se);
  dlbL_setnumber(L, "intercept_t", f.intercept_t); dlbL_setnumber(L, "r2", f.r2); dlbL_setnumber(L, "adj_r2", f.adj_r2);
  dlbL_setnumber(L, "rss", f.rss); dlbL_setnumber(L, "sigma", f.sigma); dlbL_setnumber(L, "n", f.n); dlbL_setnumber(L, "k", f.k);
  return 1;
}

/* -- core.stats_percentiles(list, ps) -> list */
static int stats_percentiles(lua_State *L) {
  size_t n, np;
  double *x = dlbL_checknumbers(L, 1, &n, "percentile: list");
  double *p = dlbL_checknumbers(L, 2, &np, "percentile: p");
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
  double *x = dlbL_checknumbers(L, 1, &n, "mean: list"), v = 0;
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
  double *x = dlbL_checknumbers(L, 1, &n, "box: list");
  dlb_box b;
  dlbL_check(L, dlb_box_stats(x, n, lw, lq, hq, hw, tukey, &b));
  lua_createtable(L, 0, 10);
  dlbL_setnumber(L, "whisker_lo", b.whisker_lo); dlbL_setnumber(L, "q_lo", b.q_lo);
  dlbL_setnumber(L, "median", b.median); dlbL_setnumber(L, "q_hi", b.q_hi);
  dlbL_setnumber(L, "whisker_hi", b.whisker_hi); dlbL_setnumber(L, "mean", b.mean);
  dlbL_setnumber(L, "min", b.min); dlbL_setnumber(L, "max", b.max); dlbL_setnumber(L, "n", b.n);
  dlbL_setnumber(L, "outliers", b.outliers);
  return 1;
}

/* -- core.stats_csv_parse(text, sep) -> records, lines, quoted: records an array of arrays
** of strings (every record as wide as the first), lines[i] the line record i starts on,
** quoted[i] nil when no field of record i was quoted, else {[j] = true} for its quoted
** fields (a quoted "" is an empty string, an empty unquoted field a missing value).
** Errors (same text as lua/dlbench/ffi_stats.lua): "csv: text must be a string, got
** nil", "csv: separator must be one character", "line L, column C: ...". */
static int stats_csv_parse(lua_State *L) {
  size_t len, seplen;
  if (lua_type(L, 1) != LUA_TSTRING) {
    return luaL_error(L, "csv: text must be a string, got %s", luaL_typename(L, 1));
  }
  const char *text = lua_tolstring(L, 1, &len);
  const char *sep = ",";
  seplen = 1;
  if (!lua_isnoneornil(L, 2)) {
    if (lua_type(L, 2) != LUA_TSTRING) return luaL_error(L, "csv: separator must be one character");
    sep = lua_tolstring(L, 2, &seplen);
  }
  if (seplen != 1) return luaL_error(L, "csv: separator must be one character");
  dlb_csv *c = dlb_csv_parse(text, len, (unsigned char)sep[0]);
  if (!c) return dlbL_error(L);
  size_t n = dlb_csv_records(c), w = dlb_csv_fields(c);
  if (!lua_checkstack(L, 8)) { dlb_csv_free(c); return luaL_error(L, "csv: stack overflow"); }
  lua_createtable(L, (int)n, 0);
  int recs = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  int lines = lua_gettop(L);
  lua_newtable(L);
  int quoted = lua_gettop(L);
  for (size_t i = 0; i < n; i++) {
    lua_createtable(L, (int)w, 0);
    int rec = lua_gettop(L), q = 0;
    size_t line = 0;
    for (size_t j = 0; j < w; j++) {
      size_t fl;
      int isq = 0;
      const char *f = dlb_csv_field(c, i, j, &fl, &isq, j == 0 ? &line : NULL, NULL);
      lua_pushlstring(L, f, fl);
      lua_rawseti(L, rec, (lua_Integer)j + 1);
      if (isq) {
        if (!q) {
          lua_newtable(L);
          q = lua_gettop(L);
        }
        lua_pushboolean(L, 1);
        lua_rawseti(L, q, (lua_Integer)j + 1);
      }
    }
    if (q) lua_rawseti(L, quoted, (lua_Integer)i + 1);
    lua_rawseti(L, recs, (lua_Integer)i + 1);
    lua_pushinteger(L, (lua_Integer)line);
    lua_rawseti(L, lines, (lua_Integer)i + 1);
  }
  dlb_csv_free(c);
  return 3;
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
