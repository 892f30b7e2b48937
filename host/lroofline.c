/*
** lroofline.c — Lua 5.4 binding of the roofline area of libdlbench (added to
** `dlbench.core`): whole-graph and per-op roofline, tiled-matmul traffic, op-cost sets
** ("dlbench.OpCosts" userdata). A device is passed as a table
** {peak=, bw=, flops_eff=, bw_eff=, cache=, elem=, cache_aware=}.
*/
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

#define OPCOSTS "dlbench.OpCosts"

typedef struct { dlb_opcosts *c; } Box;

static dlb_opcosts *checkops(lua_State *L, int i) {
  Box *b = (Box *)luaL_checkudata(L, i, OPCOSTS);
  luaL_argcheck(L, b->c != NULL, i, "op costs already freed");
  return b->c;
}

/* The device field a user knows for a roof field (a dlb.hw device's mem_bw is `bw` here). */
static const char *user_name(const char *k) {
  return strcmp(k, "bw") == 0 ? "mem_bw" : k;
}

static double field(lua_State *L, int t, const char *k, double dflt, int required) {
  lua_getfield(L, t, k);
  double v = dflt;
  if (lua_isnil(L, -1)) {
    if (required) luaL_error(L, "roofline: device field '%s' is required", user_name(k));
  } else if (lua_type(L, -1) == LUA_TNUMBER) {
    v = lua_tonumber(L, -1);
  } else if (lua_type(L, -1) == LUA_TBOOLEAN) {
    v = lua_toboolean(L, -1);
  } else {
    luaL_error(L, "roofline: device field '%s' must be a number, got %s", user_name(k),
               luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  return v;
}

/* Read a device table at index t into a dlb_roof: the C defaults (dlb_roof_init), then
** the fields the table has. `bw` may be spelled `mem_bw` (a dlb.hw device's name). */
void dlbL_checkroof(lua_State *L, int t, dlb_roof *d) {
  static const char *const names[] = { "flops_eff", "bw_eff", "cache", "elem", "bytes_scale",
    "tile_m", "tile_n", "kernel_overhead", "step_overhead", "half_bw_bytes", "sm_count",
    "gemm_tile_m", "gemm_tile_n", "systolic", "vector_width", "mem", "level1_size", "level1_bw",
    "level2_size", "level2_bw", "level3_size", "level3_bw", "level4_size", "level4_bw", NULL };
  t = lua_absindex(L, t);
  luaL_checktype(L, t, LUA_TTABLE);
  dlb_roof_init(d);
  double *const slot[] = { &d->flops_eff, &d->bw_eff, &d->cache, &d->elem, &d->bytes_scale,
    &d->tile_m, &d->tile_n, &d->kernel_overhead, &d->step_overhead, &d->half_bw_bytes,
    &d->sm_count, &d->gemm_tile_m, &d->gemm_tile_n, &d->systolic, &d->vector_width, &d->mem,
    &d->level1_size, &d->level1_bw, &d->level2_size, &d->level2_bw, &d->level3_size,
    &d->level3_bw, &d->level4_size, &d->level4_bw };
  d->peak = field(L, t, "peak", 0, 1);
  lua_getfield(L, t, "bw");
  int has_bw = !lua_isnil(L, -1);
  lua_pop(L, 1);
  d->bw = field(L, t, has_bw ? "bw" : "mem_bw", 0, 1);
  for (int i = 0; names[i]; i++) *slot[i] = field(L, t, names[i], *slot[i], 0);
  d->cache_aware = field(L, t, "cache_aware", 0, 0) != 0;
}

static dlb_roof checkroof(lua_State *L, int t) {
  dlb_roof d;
  dlbL_checkroof(L, t, &d);
  return d;
}

/* -- core.roof_defaults() -> {flops_eff=, bw_eff=, ...}: the C defaults of a device */
static int roof_defaults(lua_State *L) {
  dlb_roof d;
  dlb_roof_init(&d);
  lua_createtable(L, 0, 4);
  lua_pushnumber(L, d.flops_eff); lua_setfield(L, -2, "flops_eff");
  lua_pushnumber(L, d.bw_eff); lua_setfield(L, -2, "bw_eff");
  lua_pushnumber(L, d.elem); lua_setfield(L, -2, "elem");
  lua_pushnumber(L, d.bytes_scale); lua_setfield(L, -2, "bytes_scale");
  return 1;
}

/* -- core.roof_check(dev) -> true (raises with the core's message naming the bad field) */
static int roof_check(lua_State *L) {
  dlb_roof d = checkroof(L, 1);
  dlbL_check(L, dlb_roof_check(&d));
  lua_pushboolean(L, 1);
  return 1;
}

/* -- core.roofline_op_time(dev, flops, bytes[, {m, n, k, batch}]) -> seconds, bound */
static int roofline_op_time(lua_State *L) {
  dlb_roof d = checkroof(L, 1);
  double g[4] = { 0, 0, 0, 1 }, t;
  int bound, has = 0;
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    for (int i = 0; i < 4; i++) {
      lua_geti(L, 4, i + 1);
      if (!lua_isnil(L, -1)) g[i] = luaL_checknumber(L, -1);
      lua_pop(L, 1);
    }
    has = 1;
  }
  dlbL_check(L, dlb_op_time(&d, luaL_checknumber(L, 2), luaL_checknumber(L, 3), has ? g : NULL,
                            &t, &bound));
  lua_pushnumber(L, t);
  lua_pushstring(L, bound == DLB_BOUND_MEMORY ? "memory" : "compute");
  return 2;
}

/* -- core.roofline_step_memory(schedule, weights, grads, opt, act, slack) -> bytes */
static int roofline_step_memory(lua_State *L) {
  double out;
  dlbL_check(L, dlb_step_memory((int)luaL_checkinteger(L, 1), luaL_checknumber(L, 2),
                                luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                luaL_checknumber(L, 5), luaL_optnumber(L, 6, 0), &out));
  lua_pushnumber(L, out);
  return 1;
}

static void pushresult(lua_State *L, const dlb_roof_result *r) {
  lua_createtable(L, 0, 9);
  lua_pushnumber(L, r->time); lua_setfield(L, -2, "time");
  lua_pushnumber(L, r->compute_time); lua_setfield(L, -2, "compute_time");
  lua_pushnumber(L, r->memory_time); lua_setfield(L, -2, "memory_time");
  lua_pushnumber(L, r->flops); lua_setfield(L, -2, "flops");
  lua_pushnumber(L, r->bytes); lua_setfield(L, -2, "bytes");
  lua_pushnumber(L, r->util); lua_setfield(L, -2, "util");
  lua_pushnumber(L, r->memory_bound_time); lua_setfield(L, -2, "memory_bound_time");
  lua_pushnumber(L, r->n_memory_bound); lua_setfield(L, -2, "n_memory_bound");
  lua_pushstring(L, r->bound == DLB_BOUND_MEMORY ? "memory" : "compute");
  lua_setfield(L, -2, "bound");
}

/* -- core.roofline_ridge(dev, achievable) -> FLOP/byte */
static int roofline_ridge(lua_State *L) {
  dlb_roof d = checkroof(L, 1);
  double r;
  dlbL_check(L, dlb_roof_ridge(&d, lua_toboolean(L, 2), &r));
  lua_pushnumber(L, r);
  return 1;
}

/* -- core.roofline_attainable(dev, intensity) -> FLOP/s */
static int roofline_attainable(lua_State *L) {
  dlb_roof d = checkroof(L, 1);
  double r;
  dlbL_check(L, dlb_roof_attainable(&d, luaL_checknumber(L, 2), &r));
  lua_pushnumber(L, r);
  return 1;
}

/* -- core.roofline_time(dev, flops, bytes) -> result table */
static int roofline_time(lua_State *L) {
  dlb_roof d = checkroof(L, 1);
  dlb_roof_result r;
  dlbL_check(L, dlb_roofline_time(&d, luaL_checknumber(L, 2), luaL_checknumber(L, 3), &r));
  pushresult(L, &r);
  return 1;
}

/* -- core.gemm_traffic(m, n, k, batch, elem, cache[, tile_m, tile_n]) -> bytes */
static int gemm_traffic(lua_State *L) {
  double out;
  dlbL_check(L, dlb_gemm_traffic_tiled(luaL_checknumber(L, 1), luaL_checknumber(L, 2),
                                       luaL_checknumber(L, 3), luaL_checknumber(L, 4),
                                       luaL_checknumber(L, 5), luaL_checknumber(L, 6),
                                       luaL_optnumber(L, 7, 0), luaL_optnumber(L, 8, 0), &out));
  lua_pushnumber(L, out);
  return 1;
}

/* Read array argument i (numbers 1..n) into buf. */
static void readarray(lua_State *L, int i, const char *what, double *buf, size_t n) {
  for (size_t j = 0; j < n; j++) {
    int t = lua_rawgeti(L, i, (lua_Integer)j + 1);
    if (t != LUA_TNUMBER)
      luaL_error(L, "roofline: %s[%d] must be a number, got %s", what, (int)j + 1,
                 lua_typename(L, t));
    buf[j] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
}

/* -- core.roofline_opcosts_new(flops, bytes) -> OpCosts (arrays of equal length) */
static int roofline_opcosts_new(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  size_t n = (size_t)lua_rawlen(L, 1);
  if ((size_t)lua_rawlen(L, 2) != n)
    return luaL_error(L, "roofline: %d flops but %d bytes entries", (int)n,
                      (int)lua_rawlen(L, 2));
  Box *b = (Box *)lua_newuserdatauv(L, sizeof(Box), 0);
  b->c = NULL;
  luaL_setmetatable(L, OPCOSTS);
  /* the scratch buffer is a userdata, so an error while reading cannot leak it */
  double *tmp = (double *)lua_newuserdatauv(L, 2 * (n ? n : 1) * sizeof(double), 0);
  readarray(L, 1, "flops", tmp, n);
  readarray(L, 2, "bytes", tmp + n, n);
  b->c = dlb_opcosts_new(n, tmp, tmp + n);
  lua_pop(L, 1);
  if (b->c == NULL) return dlbL_error(L);
  return 1;
}

/* -- core.roofline_opcosts_from_analysis(analysis) -> OpCosts */
static int roofline_opcosts_from_analysis(lua_State *L) {
  dlb_analysis *a = dlbL_checkanalysis(L, 1);
  Box *b = (Box *)lua_newuserdatauv(L, sizeof(Box), 0);
  b->c = NULL;
  luaL_setmetatable(L, OPCOSTS);
  b->c = dlb_opcosts_from_analysis(a);
  if (b->c == NULL) return dlbL_error(L);
  return 1;
}

/* -- ops:set_gemm(i, m, n, k, batch)  (also core.roofline_opcosts_set_gemm) */
static int roofline_opcosts_set_gemm(lua_State *L) {
  dlb_opcosts *c = checkops(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  luaL_argcheck(L, i >= 1, 2, "op index starts at 1");
  dlbL_check(L, dlb_opcosts_set_gemm(c, (size_t)(i - 1), luaL_checknumber(L, 3),
                                     luaL_checknumber(L, 4), luaL_checknumber(L, 5),
                                     luaL_optnumber(L, 6, 1)));
  return 0;
}

/* -- core.roofline_opcosts_n(ops) -> integer */
static int roofline_opcosts_n(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)dlb_opcosts_n(checkops(L, 1)));
  return 1;
}

/* -- core.roofline_ops(ops, dev[, per_op]) -> result[, op_time array, op_bound array] */
static int roofline_ops(lua_State *L) {
  dlb_opcosts *c = checkops(L, 1);
  dlb_roof d = checkroof(L, 2);
  int per = lua_toboolean(L, 3);
  size_t n = dlb_opcosts_n(c);
  double *t = NULL;
  int *bd = NULL;
  if (per) {
    t = (double *)lua_newuserdatauv(L, (n ? n : 1) * sizeof(double), 0);
    bd = (int *)lua_newuserdatauv(L, (n ? n : 1) * sizeof(int), 0);
  }
  dlb_roof_result r;
  dlbL_check(L, dlb_opcosts_roofline(c, &d, t, bd, &r));
  pushresult(L, &r);
  if (!per) return 1;
  lua_createtable(L, (int)n, 0);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushnumber(L, t[i]);
    lua_rawseti(L, -3, (lua_Integer)i + 1);
    lua_pushstring(L, bd[i] == DLB_BOUND_MEMORY ? "memory" : "compute");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 3;
}

/* __gc / __close: free the set and mark the box closed. */
static int opcosts_gc(lua_State *L) {
  Box *b = (Box *)luaL_checkudata(L, 1, OPCOSTS);
  dlb_opcosts_free(b->c);
  b->c = NULL;
  return 0;
}

static int opcosts_tostring(lua_State *L) {
  Box *b = (Box *)luaL_checkudata(L, 1, OPCOSTS);
  if (b->c == NULL) lua_pushliteral(L, "dlbench.OpCosts (freed)");
  else lua_pushfstring(L, "dlbench.OpCosts (%d ops)", (int)dlb_opcosts_n(b->c));
  return 1;
}

static const luaL_Reg rooflib[] = {
  {"roofline_ridge", roofline_ridge},
  {"roof_defaults", roof_defaults},
  {"roof_check", roof_check},
  {"roofline_op_time", roofline_op_time},
  {"roofline_step_memory", roofline_step_memory},
  {"roofline_attainable", roofline_attainable},
  {"roofline_time", roofline_time},
  {"roofline_opcosts_new", roofline_opcosts_new},
  {"roofline_opcosts_from_analysis", roofline_opcosts_from_analysis},
  {"roofline_opcosts_set_gemm", roofline_opcosts_set_gemm},
  {"roofline_opcosts_n", roofline_opcosts_n},
  {"roofline_ops", roofline_ops},
  {"gemm_traffic", gemm_traffic},
  {NULL, NULL}
};

static const luaL_Reg meta[] = {
  {"__gc", opcosts_gc},
  {"__close", opcosts_gc},
  {"__tostring", opcosts_tostring},
  {NULL, NULL}
};

/* Add the roofline functions to the backend table on top of the stack. */
int dlbL_open_roofline(lua_State *L) {
  luaL_setfuncs(L, rooflib, 0);
  luaL_newmetatable(L, OPCOSTS);
  luaL_setfuncs(L, meta, 0);
  lua_pop(L, 1);
  return 0;
}
