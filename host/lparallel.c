/*
** lparallel.c — the hand-written part of the parallel binding (added to `dlbench.core`):
** the planner's evaluate and plan, which take an array of layer structs and return rows
** from a plan object or a per-stage array sized by the config. The rest of the area is
** generated (host/bindings.lua). Structs travel as Lua tables with the C field names
** (missing fields are 0); the same as lua/dlbench/ffi_parallel.lua.
*/
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

typedef struct field { const char *name; size_t off; } field;

#define F(T, x) { #x, offsetof(T, x) }

static const field link_f[] = {
  F(dlb_par_link, bw), F(dlb_par_link, latency), F(dlb_par_link, eff), { NULL, 0 } };
static const field dev_f[] = {
  F(dlb_par_device, peak), F(dlb_par_device, mem_bw), F(dlb_par_device, mem),
  F(dlb_par_device, flops_eff), F(dlb_par_device, bw_eff), { NULL, 0 } };
static const field layer_f[] = {
  F(dlb_par_layer, flops_fwd), F(dlb_par_layer, flops_bwd), F(dlb_par_layer, bytes_sample),
  F(dlb_par_layer, bytes_fixed), F(dlb_par_layer, params), F(dlb_par_layer, act_out),
  F(dlb_par_layer, act_kept), F(dlb_par_layer, act_rep), F(dlb_par_layer, act_in),
  F(dlb_par_layer, tp_bytes), F(dlb_par_layer, tp_colls), F(dlb_par_layer, shardable),
  F(dlb_par_layer, tp_div), { NULL, 0 } };
static const field opts_f[] = {
  F(dlb_par_opts, batch), F(dlb_par_opts, w_bytes), F(dlb_par_opts, g_bytes),
  F(dlb_par_opts, o_bytes), F(dlb_par_opts, overlap), F(dlb_par_opts, dp_algo),
  F(dlb_par_opts, tp_max), F(dlb_par_opts, pp_max), F(dlb_par_opts, m_max),
  F(dlb_par_opts, zero_max), F(dlb_par_opts, sched), F(dlb_par_opts, v),
  F(dlb_par_opts, seq_par), F(dlb_par_opts, recompute), F(dlb_par_opts, balance),
  F(dlb_par_opts, shard), F(dlb_par_opts, devices), F(dlb_par_opts, keep_unfit),
  { NULL, 0 } };
static const field row_f[] = {
  F(dlb_par_row, dp), F(dlb_par_row, tp), F(dlb_par_row, pp), F(dlb_par_row, v),
  F(dlb_par_row, m), F(dlb_par_row, mb), F(dlb_par_row, sched), F(dlb_par_row, recompute),
  F(dlb_par_row, zero), F(dlb_par_row, step), F(dlb_par_row, compute), F(dlb_par_row, comm),
  F(dlb_par_row, bubble), F(dlb_par_row, tp_comm), F(dlb_par_row, pp_comm),
  F(dlb_par_row, dp_comm), F(dlb_par_row, mem), F(dlb_par_row, mem_weights),
  F(dlb_par_row, mem_grads), F(dlb_par_row, mem_opt), F(dlb_par_row, mem_act),
  F(dlb_par_row, fits), F(dlb_par_row, util), F(dlb_par_row, throughput), { NULL, 0 } };

/* Fill the doubles of `base` from the table at idx (fields absent stay 0). */
static void getfields(lua_State *L, int idx, const field *f, void *base, const char *what) {
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  for (; f->name; f++) {
    int t = lua_getfield(L, idx, f->name);
    if (t == LUA_TNUMBER) {
      *(double *)((char *)base + f->off) = lua_tonumber(L, -1);
    } else if (t == LUA_TBOOLEAN) {
      *(double *)((char *)base + f->off) = lua_toboolean(L, -1) ? 1 : 0;
    } else if (t != LUA_TNIL) {
      luaL_error(L, "%s.%s must be a number, got %s", what, f->name, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
  }
}

static void pushfields(lua_State *L, const field *f, const void *base) {
  lua_newtable(L);
  for (; f->name; f++) {
    double x = *(const double *)((const char *)base + f->off);
    if (x == floor(x) && fabs(x) < 9007199254740992.0) lua_pushinteger(L, (lua_Integer)x);
    else lua_pushnumber(L, x);
    lua_setfield(L, -2, f->name);
  }
}

static void getcluster(lua_State *L, int idx, dlb_par_cluster *c) {
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  *c = (dlb_par_cluster){ 0 };
  lua_getfield(L, idx, "per_node");
  c->per_node = luaL_optnumber(L, -1, 0);
  lua_getfield(L, idx, "nodes");
  c->nodes = luaL_optnumber(L, -1, 0);
  lua_pop(L, 2);
  if (lua_getfield(L, idx, "intra") == LUA_TTABLE) getfields(L, -1, link_f, &c->intra, "intra");
  lua_pop(L, 1);
  if (lua_getfield(L, idx, "inter") == LUA_TTABLE) getfields(L, -1, link_f, &c->inter, "inter");
  lua_pop(L, 1);
}

/* Read the array of layer tables at idx into a userdata pushed on the stack (so an error
** while reading frees it with the garbage). */
static dlb_par_layer *getlayers(lua_State *L, int idx, int *n) {
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_Integer len = luaL_len(L, idx);
  luaL_argcheck(L, len >= 1 && len < 1000000, idx, "layers: a non-empty array of layer tables");
  dlb_par_layer *ls = lua_newuserdatauv(L, sizeof *ls * (size_t)len, 0);
  memset(ls, 0, sizeof *ls * (size_t)len);
  for (lua_Integer i = 1; i <= len; i++) {
    if (lua_geti(L, idx, i) != LUA_TTABLE)
      luaL_error(L, "layers[%d] must be a table", (int)i);
    getfields(L, -1, layer_f, &ls[i - 1], "layer");
    lua_pop(L, 1);
  }
  *n = (int)len;
  return ls;
}

/* -- core.parallel_evaluate(layers, device, cluster, opts, cfg) -> row, {stage bytes...} */
static int p_evaluate(lua_State *L) {
  dlb_par_device d = { 0 };
  dlb_par_opts o = { 0 };
  dlb_par_row cfg = { 0 }, r;
  dlb_par_cluster cl;
  getfields(L, 2, dev_f, &d, "device");
  getcluster(L, 3, &cl);
  getfields(L, 4, opts_f, &o, "opts");
  getfields(L, 5, row_f, &cfg, "config");
  int n;
  dlb_par_layer *ls = getlayers(L, 1, &n);
  int p = cfg.pp >= 1 && cfg.pp <= 4096 ? (int)cfg.pp : 1;
  double *sm = calloc((size_t)p, sizeof(double));
  if (!sm) { return luaL_error(L, "parallel: out of memory"); }
  int st = dlb_par_evaluate(ls, n, &d, &cl, &o, &cfg, &r, sm);
  if (st) { free(sm); return dlbL_error(L); }
  pushfields(L, row_f, &r);
  lua_createtable(L, p, 0);
  for (int i = 0; i < p; i++) {
    lua_pushnumber(L, sm[i]);
    lua_seti(L, -2, i + 1);
  }
  free(sm);
  return 2;
}

/* -- core.parallel_plan(layers, device, cluster, opts) -> {row...}, evaluated, smallest row
** (the evaluated layout with the least memory; nil when none was evaluated) */
static int p_plan(lua_State *L) {
  dlb_par_device d = { 0 };
  dlb_par_opts o = { 0 };
  dlb_par_cluster cl;
  getfields(L, 2, dev_f, &d, "device");
  getcluster(L, 3, &cl);
  getfields(L, 4, opts_f, &o, "opts");
  int n;
  dlb_par_layer *ls = getlayers(L, 1, &n);
  dlb_par_plan *P = dlb_par_plan_new(ls, n, &d, &cl, &o);
  if (!P) return dlbL_error(L);
  int count = dlb_par_plan_count(P);
  lua_createtable(L, count, 0);
  for (int i = 0; i < count; i++) {
    dlb_par_row r;
    dlb_par_plan_row(P, i, &r);
    pushfields(L, row_f, &r);
    lua_seti(L, -2, i + 1);
  }
  lua_pushnumber(L, dlb_par_plan_evaluated(P));
  dlb_par_row sm;
  if (dlb_par_plan_smallest(P, &sm) == DLB_OK) pushfields(L, row_f, &sm);
  else lua_pushnil(L);
  dlb_par_plan_free(P);
  return 3;
}

static const luaL_Reg funcs[] = {
  {"parallel_evaluate", p_evaluate},
  {"parallel_plan", p_plan},
  {NULL, NULL}
};

/* Add the parallel functions to the backend table on top of the stack. */
int dlbL_open_parallel(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
