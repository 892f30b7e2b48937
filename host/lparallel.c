/*
** lparallel.c — Lua 5.4 binding of the parallel area of libdlbench (added to `dlbench.core`).
** Structs travel as Lua tables with the C field names (missing fields are 0); the same
** functions, arguments and results as lua/dlbench/ffi_parallel.lua.
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
static const field coll_f[] = {
  F(dlb_par_coll, time), F(dlb_par_coll, bytes), F(dlb_par_coll, total),
  F(dlb_par_coll, steps), { NULL, 0 } };
static const field work_f[] = {
  F(dlb_par_work, flops_sample), F(dlb_par_work, flops_fixed), F(dlb_par_work, bytes_sample),
  F(dlb_par_work, bytes_fixed), F(dlb_par_work, bwd_frac), F(dlb_par_work, grad_bytes),
  F(dlb_par_work, mem_fixed), F(dlb_par_work, mem_sample), F(dlb_par_work, samples_epoch),
  { NULL, 0 } };
static const field dpo_f[] = {
  F(dlb_par_dp_opts, workers), F(dlb_par_dp_opts, subbatch), F(dlb_par_dp_opts, batch),
  F(dlb_par_dp_opts, algo), F(dlb_par_dp_opts, bucket), F(dlb_par_dp_opts, overlap),
  F(dlb_par_dp_opts, async), F(dlb_par_dp_opts, shards), F(dlb_par_dp_opts, compute),
  { NULL, 0 } };
static const field dpr_f[] = {
  F(dlb_par_dp_result, step), F(dlb_par_dp_result, compute), F(dlb_par_dp_result, comm),
  F(dlb_par_dp_result, exposed), F(dlb_par_dp_result, batch), F(dlb_par_dp_result, subbatch),
  F(dlb_par_dp_result, throughput), F(dlb_par_dp_result, util), F(dlb_par_dp_result, mem),
  F(dlb_par_dp_result, epoch), F(dlb_par_dp_result, wire), F(dlb_par_dp_result, buckets),
  F(dlb_par_dp_result, fits), F(dlb_par_dp_result, shortfall), { NULL, 0 } };
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
  F(dlb_par_opts, mem_schedule), F(dlb_par_opts, slack), F(dlb_par_opts, fsdp_overlap),
  F(dlb_par_opts, gather_tensors),
  { NULL, 0 } };
static const field row_f[] = {
  F(dlb_par_row, dp), F(dlb_par_row, tp), F(dlb_par_row, pp), F(dlb_par_row, v),
  F(dlb_par_row, m), F(dlb_par_row, mb), F(dlb_par_row, sched), F(dlb_par_row, recompute),
  F(dlb_par_row, zero), F(dlb_par_row, step), F(dlb_par_row, compute), F(dlb_par_row, comm),
  F(dlb_par_row, bubble), F(dlb_par_row, tp_comm), F(dlb_par_row, pp_comm),
  F(dlb_par_row, dp_comm), F(dlb_par_row, mem), F(dlb_par_row, mem_weights),
  F(dlb_par_row, mem_grads), F(dlb_par_row, mem_opt), F(dlb_par_row, mem_act),
  F(dlb_par_row, fits), F(dlb_par_row, util), F(dlb_par_row, throughput),
  F(dlb_par_row, update), F(dlb_par_row, mfu), F(dlb_par_row, hfu), { NULL, 0 } };

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

/* Read the optional flat array of ops at idx (12 numbers per op, the fields of dlb_par_op
** in order) into a userdata pushed on the stack; *n receives the op count (0: none). */
static dlb_par_op *getops(lua_State *L, int idx, int *n) {
  *n = 0;
  if (lua_isnoneornil(L, idx)) return NULL;
  idx = lua_absindex(L, idx);
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_Integer len = luaL_len(L, idx);
  luaL_argcheck(L, len >= 0 && len % 12 == 0 && len / 12 < 10000000, idx,
                "ops: a flat array of 12 numbers per op");
  size_t k = (size_t)(len / 12);
  dlb_par_op *ops = lua_newuserdatauv(L, sizeof *ops * (k ? k : 1), 0);
  for (size_t i = 0; i < k; i++) {
    double v[12];
    for (int j = 0; j < 12; j++) {
      lua_geti(L, idx, (lua_Integer)(12 * i + (size_t)j + 1));
      int ok;
      v[j] = lua_tonumberx(L, -1, &ok);
      lua_pop(L, 1);
      if (!ok) luaL_error(L, "ops[%d] must be a number", (int)(12 * i + (size_t)j + 1));
    }
    dlb_par_op *o = &ops[i];
    o->layer = v[0]; o->phase = v[1]; o->flops_sample = v[2]; o->flops_fixed = v[3];
    o->bytes_sample = v[4]; o->bytes_fixed = v[5]; o->m = v[6]; o->n = v[7]; o->k = v[8];
    o->batch = v[9]; o->grow = v[10]; o->split = v[11];
  }
  *n = (int)k;
  return ops;
}

/* -- core.parallel_collective(op, algo, bytes, n, shards, link) -> {time=, bytes=, total=, steps=} */
static int p_collective(lua_State *L) {
  int op = (int)luaL_checkinteger(L, 1), algo = (int)luaL_checkinteger(L, 2);
  double bytes = luaL_checknumber(L, 3), n = luaL_checknumber(L, 4);
  double shards = luaL_optnumber(L, 5, 0);
  dlb_par_link lk = { 0, 0, 0 };
  getfields(L, 6, link_f, &lk, "link");
  dlb_par_coll c;
  dlbL_check(L, dlb_par_collective(op, algo, bytes, n, shards, &lk, &c));
  pushfields(L, coll_f, &c);
  return 1;
}

/* -- core.parallel_allreduce_hier(bytes, per_node, nodes, algo, intra, inter) -> coll table */
static int p_allreduce_hier(lua_State *L) {
  double bytes = luaL_checknumber(L, 1), g = luaL_checknumber(L, 2), nodes = luaL_checknumber(L, 3);
  int algo = (int)luaL_checkinteger(L, 4);
  dlb_par_link a = { 0, 0, 0 }, b = { 0, 0, 0 };
  getfields(L, 5, link_f, &a, "intra");
  getfields(L, 6, link_f, &b, "inter");
  dlb_par_coll c;
  dlbL_check(L, dlb_par_allreduce_hier(bytes, g, nodes, algo, &a, &b, &c));
  pushfields(L, coll_f, &c);
  return 1;
}

/* -- core.parallel_allreduce_cluster(bytes, n, algo, cluster) -> coll table */
static int p_allreduce_cluster(lua_State *L) {
  double bytes = luaL_checknumber(L, 1), n = luaL_checknumber(L, 2);
  int algo = (int)luaL_checkinteger(L, 3);
  dlb_par_cluster cl;
  getcluster(L, 4, &cl);
  dlb_par_coll c;
  dlbL_check(L, dlb_par_allreduce_cluster(bytes, n, algo, &cl, &c));
  pushfields(L, coll_f, &c);
  return 1;
}

/* -- core.parallel_data(work, device, cluster, opts) -> result table */
static int p_data(lua_State *L) {
  dlb_par_work w = { 0 };
  dlb_roof d;
  dlb_par_dp_opts o = { 0 };
  dlb_par_cluster cl;
  getfields(L, 1, work_f, &w, "work");
  dlbL_checkroof(L, 2, &d);
  getcluster(L, 3, &cl);
  getfields(L, 4, dpo_f, &o, "opts");
  dlb_par_dp_result r;
  dlbL_check(L, dlb_par_data(&w, &d, &cl, &o, &r));
  pushfields(L, dpr_f, &r);
  return 1;
}

/* -- core.parallel_partition(weights, k) -> {first1, first2, ...} (1-based layer indices) */
static int p_partition(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 1), k = luaL_checkinteger(L, 2);
  luaL_argcheck(L, n >= 1 && n < 1000000, 1, "a non-empty array of weights");
  luaL_argcheck(L, k >= 1 && k <= n, 2, "stages must be in 1..#weights");
  double *w = malloc(sizeof(double) * (size_t)n);
  int *first = malloc(sizeof(int) * (size_t)k);
  if (!w || !first) { free(w); free(first); return luaL_error(L, "partition: out of memory"); }
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 1, i);
    int ok;
    w[i - 1] = lua_tonumberx(L, -1, &ok);
    lua_pop(L, 1);
    if (!ok) {
      free(w); free(first);
      return luaL_error(L, "partition: weights[%d] must be a number", (int)i);
    }
  }
  int st = dlb_par_partition(w, (int)n, (int)k, first);
  free(w);
  if (st) { free(first); return dlbL_error(L); }
  lua_createtable(L, (int)k, 0);
  for (lua_Integer s = 0; s < k; s++) {
    lua_pushinteger(L, first[s] + 1);
    lua_seti(L, -2, s + 1);
  }
  free(first);
  return 1;
}

/* -- core.parallel_bubble(sched, p, m, v) -> fraction (NaN for bad input) */
static int p_bubble(lua_State *L) {
  lua_pushnumber(L, dlb_par_bubble((int)luaL_checkinteger(L, 1), luaL_checknumber(L, 2),
                                   luaL_checknumber(L, 3), luaL_optnumber(L, 4, 1)));
  return 1;
}

/* -- core.parallel_evaluate(layers, device, cluster, opts, cfg[, ops]) -> row, {stage bytes...}
** (ops: a flat array, 12 numbers per op, see getops) */
static int p_evaluate(lua_State *L) {
  dlb_roof d;
  dlb_par_opts o = { 0 };
  dlb_par_row cfg = { 0 }, r;
  dlb_par_cluster cl;
  dlbL_checkroof(L, 2, &d);
  getcluster(L, 3, &cl);
  getfields(L, 4, opts_f, &o, "opts");
  getfields(L, 5, row_f, &cfg, "config");
  int n;
  dlb_par_layer *ls = getlayers(L, 1, &n);
  int nops;
  dlb_par_op *ops = getops(L, 6, &nops);
  int p = cfg.pp >= 1 && cfg.pp <= 4096 ? (int)cfg.pp : 1;
  double *sm = calloc((size_t)p, sizeof(double));
  if (!sm) { return luaL_error(L, "parallel: out of memory"); }
  int st = dlb_par_evaluate_ops(ls, n, ops, nops, &d, &cl, &o, &cfg, &r, sm);
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

/* -- core.parallel_plan(layers, device, cluster, opts[, ops]) -> {row...}, evaluated, smallest row
** (the evaluated layout with the least memory; nil when none was evaluated) */
static int p_plan(lua_State *L) {
  dlb_roof d;
  dlb_par_opts o = { 0 };
  dlb_par_cluster cl;
  dlbL_checkroof(L, 2, &d);
  getcluster(L, 3, &cl);
  getfields(L, 4, opts_f, &o, "opts");
  int n;
  dlb_par_layer *ls = getlayers(L, 1, &n);
  int nops;
  dlb_par_op *ops = getops(L, 5, &nops);
  dlb_par_plan *P = dlb_par_plan_new_ops(ls, n, ops, nops, &d, &cl, &o);
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

/* -- core.parallel_amdahl(f, n) -> speedup */
static int p_amdahl(lua_State *L) {
  lua_pushnumber(L, dlb_par_amdahl(luaL_checknumber(L, 1), luaL_checknumber(L, 2)));
  return 1;
}

/* -- core.parallel_amdahl_fit(workers, speedups) -> f, r2 */
static int p_amdahl_fit(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 1);
  luaL_argcheck(L, n == luaL_len(L, 2), 2, "as many speedups as worker counts");
  luaL_argcheck(L, n >= 1 && n < 10000000, 1, "at least one measurement");
  double *a = malloc(sizeof(double) * 2 * (size_t)n);
  if (!a) return luaL_error(L, "amdahl fit: out of memory");
  for (lua_Integer i = 1; i <= n; i++) {
    int ok1, ok2;
    lua_geti(L, 1, i);
    lua_geti(L, 2, i);
    a[i - 1] = lua_tonumberx(L, -2, &ok1);
    a[n + i - 1] = lua_tonumberx(L, -1, &ok2);
    lua_pop(L, 2);
    if (!ok1 || !ok2) { free(a); return luaL_error(L, "amdahl fit: entry %d is not a number", (int)i); }
  }
  double f, r2;
  int st = dlb_par_amdahl_fit(a, a + n, (int)n, &f, &r2);
  free(a);
  dlbL_check(L, st);
  lua_pushnumber(L, f);
  lua_pushnumber(L, r2);
  return 2;
}

static const luaL_Reg funcs[] = {
  {"parallel_collective", p_collective},
  {"parallel_allreduce_hier", p_allreduce_hier},
  {"parallel_allreduce_cluster", p_allreduce_cluster},
  {"parallel_data", p_data},
  {"parallel_partition", p_partition},
  {"parallel_bubble", p_bubble},
  {"parallel_evaluate", p_evaluate},
  {"parallel_plan", p_plan},
  {"parallel_amdahl", p_amdahl},
  {"parallel_amdahl_fit", p_amdahl_fit},
  {NULL, NULL}
};

/* Add the parallel functions to the backend table on top of the stack. */
int dlbL_open_parallel(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
