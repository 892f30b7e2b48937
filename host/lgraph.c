/*
** lgraph.c — Lua 5.4 binding of the graph area of libdlbench (added to `dlbench.core`).
** Handles: "dlbench.Graph" (dlb_graph *) and "dlbench.Analysis" (dlb_analysis *); the
** user-facing API is lua/dlbench/graph.lua. Tensor ids are the core's (0-based).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GLIBC__)
#endif

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

#define GRAPH "dlbench.Graph"
#define ANALYSIS "dlbench.Analysis"

typedef struct gbox { dlb_graph *g; } gbox;
typedef struct abox { dlb_analysis *a; } abox;

/* The functions below get the graph metatable as upvalue 1: comparing it with the
** argument's metatable costs less than luaL_checkudata's registry lookup by name (op
** creation is the hot path of graph building). */
static dlb_graph *checkgraph(lua_State *L, int i) {
  gbox *b = lua_touserdata(L, i);
  if (b && lua_getmetatable(L, i)) {
    int ok = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (!ok) b = NULL;
  } else {
    b = NULL;
  }
  if (!b) b = luaL_checkudata(L, i, GRAPH); /* raises the standard message */
  luaL_argcheck(L, b->g != NULL, i, "closed graph");
  return b->g;
}

static dlb_analysis *checkanalysis(lua_State *L, int i) {
  abox *b = luaL_checkudata(L, i, ANALYSIS);
  luaL_argcheck(L, b->a != NULL, i, "closed analysis");
  return b->a;
}

/* The analysis of a "dlbench.Analysis" handle, for other areas' bindings. */
dlb_analysis *dlbL_checkanalysis(lua_State *L, int i) {
  return checkanalysis(L, i);
}

/* Strings of the array at index i (numbers converted; the strings stay on the stack) into
** buf (room for `room`), or into scratch userdata when there are more. */
static size_t strings(lua_State *L, int i, const char ***out, const char **buf, size_t room) {
  if (lua_isnoneornil(L, i)) { *out = NULL; return 0; }
  luaL_checktype(L, i, LUA_TTABLE);
  size_t n = luaL_len(L, i);
  *out = n <= room ? buf : lua_newuserdatauv(L, (n + 1) * sizeof **out, 0);
  luaL_checkstack(L, (int)n + 4, "too many dims");
  for (size_t k = 0; k < n; k++) {
    lua_rawgeti(L, i, (lua_Integer)k + 1);
    if (!lua_isstring(L, -1)) luaL_error(L, "dim %d: a number or a string expected, got %s",
                                         (int)k + 1, luaL_typename(L, -1));
    (*out)[k] = lua_tostring(L, -1); /* converts the stack copy, which stays */
  }
  return n;
}

static size_t ints(lua_State *L, int i, int *out, size_t max) {
  if (lua_isnoneornil(L, i)) return 0;
  luaL_checktype(L, i, LUA_TTABLE);
  size_t n = luaL_len(L, i);
  if (n > max) luaL_error(L, "more than %d values", (int)max);
  for (size_t k = 0; k < n; k++) {
    lua_rawgeti(L, i, (lua_Integer)k + 1);
    out[k] = (int)luaL_checkinteger(L, -1);
    lua_pop(L, 1);
  }
  return n;
}

/* Text of a float dim as the FFI binding formats it ("%.17g"; nan and inf without a sign
** for nan, so that both backends print the same dims and messages). */
static void floattext(char *buf, size_t size, double v) {
  if (isnan(v)) snprintf(buf, size, "nan");
  else if (isinf(v)) snprintf(buf, size, "%s", v > 0 ? "inf" : "-inf");
  else snprintf(buf, size, "%.17g", v);
}

/* Text of the number on top of the stack into buf (integers without printf; others as
** floattext). */
static const char *numtext(lua_State *L, char buf[24]) {
  if (lua_isinteger(L, -1)) {
    lua_Integer v = lua_tointeger(L, -1);
    char tmp[24], *e = tmp + sizeof tmp, *q = e;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do *--q = (char)('0' + u % 10); while ((u /= 10) > 0);
    if (v < 0) *--q = '-';
    memcpy(buf, q, (size_t)(e - q));
    buf[e - q] = '\0';
  } else {
    floattext(buf, 24, lua_tonumber(L, -1));
  }
  return buf;
}

/* Push a new "dlbench.Graph" handle owning g (raises the core's message when g is NULL);
** for bindings that receive graphs made in C (host/limport.c). */
int dlbL_pushgraph(lua_State *L, struct dlb_graph *g) {
  if (!g) return dlbL_error(L);
  gbox *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->g = g;
  luaL_setmetatable(L, GRAPH);
  return 1;
}

/* -- core.graph_new(name) -> handle */
static int graph_new(lua_State *L) {
  const char *name = luaL_optstring(L, 1, "graph");
  gbox *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->g = NULL;
  luaL_setmetatable(L, GRAPH);
  b->g = dlb_graph_new(name);
  if (!b->g) return dlbL_error(L);
  return 1;
}

/* -- core.graph_tensor(h, name, role, dtype, {dims}) -> id, or nil when dims is not a
**    plain list of strings and numbers (the caller then converts or explains) */
static int graph_tensor(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  const char *name = luaL_checkstring(L, 2);
  int role = (int)luaL_checkinteger(L, 3), dtype = (int)luaL_checkinteger(L, 4), id;
  const char *dims[DLB_GRAPH_MAXRANK];
  char num[DLB_GRAPH_MAXRANK][24];
  if (lua_type(L, 5) != LUA_TTABLE || lua_getmetatable(L, 5)) { lua_pushnil(L); return 1; }
  size_t n = (size_t)lua_rawlen(L, 5);
  for (size_t k = 0; k < n && k < DLB_GRAPH_MAXRANK; k++) { /* more: dlb_graph_tensor explains */
    int tk = lua_rawgeti(L, 5, (lua_Integer)k + 1);
    if (tk == LUA_TSTRING) {
      dims[k] = lua_tostring(L, -1); /* stays referenced by the table */
    } else if (tk == LUA_TNUMBER) {
      dims[k] = numtext(L, num[k]);
    } else {
      lua_pushnil(L);
      return 1;
    }
    lua_pop(L, 1);
  }
  dlbL_check(L, dlb_graph_tensor(g, name, role, dtype, n, dims, &id));
  lua_pushinteger(L, id);
  return 1;
}

/* -- core.graph_op(h, type, name|nil, {inputs}, {attrs}|nil, {dims}|nil) -> {outputs} */
static int graph_op(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  int type = (int)luaL_checkinteger(L, 2);
  const char *name = luaL_optstring(L, 3, NULL);
  static const size_t maxio = 1024;
  int in[1024], at[16], out[1024];
  size_t nin = ints(L, 4, in, maxio), nat = ints(L, 5, at, 16), nout;
  const char **dims, *buf[DLB_GRAPH_MAXRANK];
  size_t nd = strings(L, 6, &dims, buf, DLB_GRAPH_MAXRANK);
  dlbL_check(L, dlb_graph_op(g, type, name, nin, in, nat, at, nd, dims, out, maxio, &nout));
  lua_createtable(L, (int)nout, 0);
  for (size_t i = 0; i < nout; i++) {
    lua_pushinteger(L, out[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* -- core.graph_opx(h, type, name|nil, in1, in2|nil, {attrs}|nil, {dims}|nil) -> first
**    output id: ops of one or two inputs without argument and result tables (reshape,
**    transpose, slice ...); dims (at most DLB_GRAPH_MAXRANK) formatted as graph_tensor does */
static int graph_opx(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  int type = (int)luaL_checkinteger(L, 2);
  const char *name = luaL_optstring(L, 3, NULL);
  int in[2], at[16], out[4];
  size_t nin = 1, nout, nd = 0;
  in[0] = (int)luaL_checkinteger(L, 4);
  if (!lua_isnoneornil(L, 5)) in[1] = (int)luaL_checkinteger(L, 5), nin = 2;
  size_t nat = ints(L, 6, at, 16);
  const char *dims[DLB_GRAPH_MAXRANK];
  char num[DLB_GRAPH_MAXRANK][24];
  if (!lua_isnoneornil(L, 7)) {
    luaL_checktype(L, 7, LUA_TTABLE);
    nd = (size_t)lua_rawlen(L, 7);
    if (nd > DLB_GRAPH_MAXRANK) luaL_error(L, "more than %d dims", DLB_GRAPH_MAXRANK);
    for (size_t k = 0; k < nd; k++) {
      int tk = lua_rawgeti(L, 7, (lua_Integer)k + 1);
      if (tk == LUA_TSTRING) dims[k] = lua_tostring(L, -1); /* referenced by the table */
      else if (tk == LUA_TNUMBER) dims[k] = numtext(L, num[k]);
      else luaL_error(L, "dim %d: a number or a string expected, got %s", (int)k + 1, luaL_typename(L, -1));
      lua_pop(L, 1);
    }
  }
  dlbL_check(L, dlb_graph_op(g, type, name, nin, in, nat, at, nd, dims, out, 4, &nout));
  lua_pushinteger(L, out[0]);
  return 1;
}

/* -- core.graph_op1(h, type, name|nil, in1[, in2[, attr1, attr2]]) -> output id (fast path) */
static int graph_op1(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  int type = (int)luaL_checkinteger(L, 2);
  const char *name = luaL_optstring(L, 3, NULL);
  int in[2], at[2] = {0, 0}, out[4];
  size_t nin = 1, nout;
  in[0] = (int)luaL_checkinteger(L, 4);
  if (!lua_isnoneornil(L, 5)) in[1] = (int)luaL_checkinteger(L, 5), nin = 2;
  at[0] = (int)luaL_optinteger(L, 6, 0);
  at[1] = (int)luaL_optinteger(L, 7, 0);
  dlbL_check(L, dlb_graph_op(g, type, name, nin, in, 2, at, 0, NULL, out, 4, &nout));
  lua_pushinteger(L, out[0]);
  return 1;
}

/* A dim argument (a string, or a number formatted as graph_tensor does) at index i. */
static const char *dimarg(lua_State *L, int i, char *buf, size_t size) {
  if (lua_type(L, i) == LUA_TSTRING) return lua_tostring(L, i);
  if (lua_isinteger(L, i)) snprintf(buf, size, "%lld", (long long)lua_tointeger(L, i));
  else if (lua_type(L, i) == LUA_TNUMBER) floattext(buf, size, lua_tonumber(L, i));
  else luaL_argerror(L, i, "a dim (a number or a string) expected");
  return buf;
}

static int tid(lua_State *L, int i) { return (int)luaL_checkinteger(L, i); }

/* The layer name at index i: a string, or with an integer n at i + 1 the string followed
** by n ("linear", 3 -> "linear3"; nn.lua's automatic names, composed here to spare the
** interpreter a string per layer). buf holds 512 bytes. */
static const char *layername(lua_State *L, int i, char *buf) {
  size_t len;
  const char *s = luaL_checklstring(L, i, &len);
  if (lua_isnoneornil(L, i + 1)) return s;
  lua_Integer n = luaL_checkinteger(L, i + 1);
  char dig[24], *e = dig + sizeof dig, *q = e;
  unsigned long long u = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
  do *--q = (char)('0' + u % 10); while ((u /= 10) > 0);
  if (n < 0) *--q = '-';
  if (len + (size_t)(e - q) + 1 > 512) luaL_argerror(L, i, "name too long");
  memcpy(buf, s, len);
  memcpy(buf + len, q, (size_t)(e - q));
  buf[len + (size_t)(e - q)] = '\0';
  return buf;
}

/* -- core.graph_linear(h, x, nout, bias, name[, n]) -> output id (n: the name is name..n) */
static int graph_linear(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  char b[32], nb[512];
  int out;
  dlbL_check(L, dlb_graph_linear(g, tid(L, 2), dimarg(L, 3, b, sizeof b), lua_toboolean(L, 4),
                                 layername(L, 5, nb), &out));
  lua_pushinteger(L, out);
  return 1;
}

/* -- core.graph_conv(h, x, {wdims}, {8 attrs}, bias, name) -> output id */
static int graph_conv(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  const char **dims, *buf[DLB_GRAPH_MAXRANK];
  int at[16] = {0}, out;
  size_t nd = strings(L, 3, &dims, buf, DLB_GRAPH_MAXRANK);
  ints(L, 4, at, 16);
  dlbL_check(L, dlb_graph_conv(g, tid(L, 2), nd, dims, at, lua_toboolean(L, 5),
                               luaL_checkstring(L, 6), &out));
  lua_pushinteger(L, out);
  return 1;
}

/* -- core.graph_norm(h, type, x, name[, n]) -> output id */
static int graph_norm(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  char nb[512];
  int out;
  dlbL_check(L, dlb_graph_norm(g, tid(L, 2), tid(L, 3), layername(L, 4, nb), &out));
  lua_pushinteger(L, out);
  return 1;
}

/* -- core.graph_embedding_layer(h, ids, vocab, dim, name[, n]) -> output id */
static int graph_embedding_layer(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  char b1[32], b2[32], nb[512];
  int out;
  const char *v = dimarg(L, 3, b1, sizeof b1), *d = dimarg(L, 4, b2, sizeof b2);
  dlbL_check(L, dlb_graph_embedding_layer(g, tid(L, 2), v, d, layername(L, 5, nb), &out));
  lua_pushinteger(L, out);
  return 1;
}

/* -- core.graph_lstm_cell(h, x, hh, c, w, b) -> h', c' ids */
static int graph_lstm_cell(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  int h2, c2;
  dlbL_check(L, dlb_graph_lstm_cell(g, tid(L, 2), tid(L, 3), tid(L, 4), tid(L, 5), tid(L, 6), &h2, &c2));
  lua_pushinteger(L, h2);
  lua_pushinteger(L, c2);
  return 2;
}

/* -- core.graph_gru_cell(h, x, hh, w, b, wn, un, bn) -> h' id */
static int graph_gru_cell(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  int h2;
  dlbL_check(L, dlb_graph_gru_cell(g, tid(L, 2), tid(L, 3), tid(L, 4), tid(L, 5), tid(L, 6),
                                   tid(L, 7), tid(L, 8), &h2));
  lua_pushinteger(L, h2);
  return 1;
}

/* -- core.graph_rnn_cell(h, x, hh, w, b) -> h' id */
static int graph_rnn_cell(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  int h2;
  dlbL_check(L, dlb_graph_rnn_cell(g, tid(L, 2), tid(L, 3), tid(L, 4), tid(L, 5), &h2));
  lua_pushinteger(L, h2);
  return 1;
}

/* -- core.graph_highway(h, x (-1: none), s, w, b) -> s' id */
static int graph_highway(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  int s2;
  dlbL_check(L, dlb_graph_highway(g, tid(L, 2), tid(L, 3), tid(L, 4), tid(L, 5), &s2));
  lua_pushinteger(L, s2);
  return 1;
}

/* -- core.graph_op_type(name) -> integer or nil */
static int graph_op_type(lua_State *L) {
  int t = dlb_graph_op_type(luaL_checkstring(L, 1));
  if (t < 0) lua_pushnil(L);
  else lua_pushinteger(L, t);
  return 1;
}

/* -- core.graph_op_type_name(type) -> string */
static int graph_op_type_name(lua_State *L) {
  lua_pushstring(L, dlb_graph_op_type_name((int)luaL_checkinteger(L, 1)));
  return 1;
}

/* -- core.graph_set_loss(h, t) */
static int graph_set_loss(lua_State *L) {
  dlbL_check(L, dlb_graph_set_loss(checkgraph(L, 1), (int)luaL_checkinteger(L, 2)));
  return 0;
}

/* -- core.graph_layer(h, name|nil) */
static int graph_layer(lua_State *L) {
  dlbL_check(L, dlb_graph_layer(checkgraph(L, 1), luaL_optstring(L, 2, NULL)));
  return 0;
}

/* -- core.graph_freeze(h, t, frozen) */
static int graph_freeze(lua_State *L) {
  dlbL_check(L, dlb_graph_freeze(checkgraph(L, 1), (int)luaL_checkinteger(L, 2),
                                 lua_toboolean(L, 3)));
  return 0;
}

/* -- core.graph_checkpoint(h, t) */
static int graph_checkpoint(lua_State *L) {
  dlbL_check(L, dlb_graph_checkpoint(checkgraph(L, 1), (int)luaL_checkinteger(L, 2)));
  return 0;
}

/* -- core.graph_counts(h) -> ntensors, nops */
static int graph_counts(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  lua_pushinteger(L, (lua_Integer)dlb_graph_ntensors(g));
  lua_pushinteger(L, (lua_Integer)dlb_graph_nops(g));
  return 2;
}

/* -- core.graph_tensor_info(h, t) -> name, {dims}, dtype, role, producer */
static int graph_tensor_info(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  int t = (int)luaL_checkinteger(L, 2), nd, dt, role, prod;
  dlbL_check(L, dlb_graph_tensor_info(g, t, &nd, &dt, &role, &prod));
  char buf[512];
  dlb_graph_tensor_name(g, t, buf, sizeof buf);
  lua_pushstring(L, buf);
  lua_createtable(L, nd, 0);
  for (int i = 0; i < nd; i++) {
    dlb_graph_tensor_dim(g, t, i, buf, sizeof buf);
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushinteger(L, dt);
  lua_pushinteger(L, role);
  lua_pushinteger(L, prod);
  return 5;
}

/* -- core.graph_dot(h) -> string */
static int graph_dot(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  size_t n = dlb_graph_dot(g, NULL, 0);
  char *s = malloc(n + 1);
  if (!s) return luaL_error(L, "graph: out of memory");
  dlb_graph_dot(g, s, n + 1);
  lua_pushlstring(L, s, n);
  free(s);
  return 1;
}

/* -- core.graph_convention() -> string */
static int graph_convention(lua_State *L) {
  lua_pushstring(L, dlb_graph_convention());
  return 1;
}

static void getopts(lua_State *L, int i, dlb_train_opts *o) {
  o->optimizer = (int)luaL_checkinteger(L, i);
  o->precision = (int)luaL_checkinteger(L, i + 1);
  o->recompute = (int)luaL_checkinteger(L, i + 2);
  o->recompute_k = (int)luaL_checkinteger(L, i + 3);
  o->inference = lua_toboolean(L, i + 4);
  o->fuse = 0;
}

/* -- core.graph_analyze(h, optimizer, precision, recompute, k, inference, {names}, {values}
**    [, fuse]) -> analysis handle (fuse: DLB_FUSE_* bits, default 0) */
static int graph_analyze(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  dlb_train_opts o;
  getopts(L, 2, &o);
  const char **names;
  double *values;
  size_t n = dlbL_checkbindings(L, 7, &names, &values);
  o.fuse = (int)luaL_optinteger(L, 9, 0);
  abox *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->a = NULL;
  luaL_setmetatable(L, ANALYSIS);
  b->a = dlb_graph_analyze(g, &o, n, names, values);
  if (!b->a) return dlbL_error(L);
  return 1;
}

/* -- core.graph_symbolic(h, optimizer, precision, recompute, k, inference, {names},
**    {values}) -> {params, fwd, bwd, update, recompute, flops, bytes, io} poly handles */
static int graph_symbolic(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  dlb_train_opts o;
  getopts(L, 2, &o);
  const char **names;
  double *values;
  size_t n = dlbL_checkbindings(L, 7, &names, &values);
  dlb_poly *out[DLB_SYM_COUNT];
  dlbL_check(L, dlb_graph_symbolic(g, &o, n, names, values, out));
  lua_createtable(L, DLB_SYM_COUNT, 0);
  for (int i = 0; i < DLB_SYM_COUNT; i++) {
    dlbL_pushpoly(L, out[i]);
    lua_rawseti(L, -2, i + 1);
  }
  size_t nops = 0;
  dlbL_check(L, dlb_graph_step_nops(g, &o, &nops));
  lua_pushinteger(L, (lua_Integer)nops);
  lua_setfield(L, -2, "nops");
  return 1;
}

/* -- core.graph_symbolic_type(h, type, {names}, {values}) -> poly handle */
static int graph_symbolic_type(lua_State *L) {
  dlb_graph *g = checkgraph(L, 1);
  const char *type = luaL_checkstring(L, 2);
  const char **names;
  double *values;
  size_t n = dlbL_checkbindings(L, 3, &names, &values);
  return dlbL_pushpoly(L, dlb_graph_symbolic_type(g, type, n, names, values));
}

/* -- core.analysis_totals(a) -> table of numbers */
static int analysis_totals(lua_State *L) {
  dlb_totals t;
  dlb_analysis_totals(checkanalysis(L, 1), &t);
  const struct { const char *k; double v; } f[] = {
    {"params", t.params}, {"flops_fwd", t.flops_fwd}, {"flops_bwd", t.flops_bwd},
    {"flops_update", t.flops_update}, {"flops_recompute", t.flops_recompute},
    {"flops", t.flops}, {"bytes", t.bytes}, {"io", t.io}, {"intensity", t.intensity},
    {"footprint", t.footprint}, {"weights", t.weights}, {"gradients", t.gradients},
    {"optimizer", t.optimizer}, {"activations", t.activations}, {"workspace", t.workspace},
    {"footprint_order", t.footprint_order}, {"footprint_heuristic", t.footprint_heuristic},
    {"nops", t.nops}, {"ntensors", t.ntensors}, {"nlayers", t.nlayers},
    {"trainable", t.trainable}
  };
  lua_createtable(L, 0, (int)(sizeof f / sizeof f[0]));
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    lua_pushnumber(L, f[i].v);
    lua_setfield(L, -2, f[i].k);
  }
  return 1;
}

/* -- core.analysis_arrays(a) -> {flops}, {bytes}, {phase}, {layer}, {type} */
static int analysis_arrays(lua_State *L) {
  dlb_analysis *a = checkanalysis(L, 1);
  size_t n = dlb_analysis_nops(a);
  const double *f = dlb_analysis_op_flops(a), *by = dlb_analysis_op_bytes(a);
  const int *ph = dlb_analysis_op_phase(a), *ly = dlb_analysis_op_layer(a), *ty = dlb_analysis_op_type(a);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) { lua_pushnumber(L, f[i]); lua_rawseti(L, -2, (lua_Integer)i + 1); }
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) { lua_pushnumber(L, by[i]); lua_rawseti(L, -2, (lua_Integer)i + 1); }
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) { lua_pushinteger(L, ph[i]); lua_rawseti(L, -2, (lua_Integer)i + 1); }
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) { lua_pushinteger(L, ly[i]); lua_rawseti(L, -2, (lua_Integer)i + 1); }
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) { lua_pushinteger(L, ty[i]); lua_rawseti(L, -2, (lua_Integer)i + 1); }
  return 5;
}

/* -- core.analysis_op_name(a, i) -> string (i 0-based) */
static int analysis_op_name(lua_State *L) {
  dlb_analysis *a = checkanalysis(L, 1);
  char buf[512];
  dlb_analysis_op_name(a, (size_t)luaL_checkinteger(L, 2), buf, sizeof buf);
  lua_pushstring(L, buf);
  return 1;
}

/* -- core.analysis_gemm(a, i) -> m, n, k, batch or nil (i 0-based) */
static int analysis_gemm(lua_State *L) {
  dlb_analysis *a = checkanalysis(L, 1);
  double o[4];
  int rc = dlb_analysis_op_gemm(a, (size_t)luaL_checkinteger(L, 2), o);
  if (rc == DLB_ENOTFOUND) { lua_pushnil(L); return 1; }
  dlbL_check(L, rc);
  for (int i = 0; i < 4; i++) lua_pushnumber(L, o[i]);
  return 4;
}

/* -- core.analysis_layers(a) -> {names} */
static int analysis_layers(lua_State *L) {
  dlb_analysis *a = checkanalysis(L, 1);
  size_t n = dlb_analysis_nlayers(a);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, dlb_analysis_layer_name(a, i));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* -- core.analysis_layer(a, i) -> params, flops_fwd, flops_bwd, flops_update,
**    activation bytes sent, weight bytes (i 0-based) */
static int analysis_layer(lua_State *L) {
  double o[6];
  dlbL_check(L, dlb_analysis_layer(checkanalysis(L, 1), (size_t)luaL_checkinteger(L, 2), o));
  for (int i = 0; i < 6; i++) lua_pushnumber(L, o[i]);
  return 6;
}

/* -- core.analysis_schedule(a) -> {op indices, 0-based} */
static int analysis_schedule(lua_State *L) {
  dlb_analysis *a = checkanalysis(L, 1);
  size_t n = dlb_analysis_nops(a);
  const int *o = dlb_analysis_schedule(a);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) { lua_pushinteger(L, o[i]); lua_rawseti(L, -2, (lua_Integer)i + 1); }
  return 1;
}

/* -- core.analysis_exact(a) -> bytes */
static int analysis_exact(lua_State *L) {
  double v;
  dlbL_check(L, dlb_analysis_footprint_exact(checkanalysis(L, 1), &v));
  lua_pushnumber(L, v);
  return 1;
}

static int graph_gc(lua_State *L) {
  gbox *b = luaL_checkudata(L, 1, GRAPH);
  dlb_graph_free(b->g);
  b->g = NULL;
  return 0;
}

static int analysis_gc(lua_State *L) {
  abox *b = luaL_checkudata(L, 1, ANALYSIS);
  dlb_analysis_free(b->a);
  b->a = NULL;
  return 0;
}

static const luaL_Reg funcs[] = {
  {"graph_new", graph_new}, {"graph_tensor", graph_tensor}, {"graph_op", graph_op},
  {"graph_op1", graph_op1}, {"graph_opx", graph_opx}, {"graph_op_type", graph_op_type},
  {"graph_linear", graph_linear}, {"graph_conv", graph_conv}, {"graph_norm", graph_norm},
  {"graph_embedding_layer", graph_embedding_layer}, {"graph_lstm_cell", graph_lstm_cell},
  {"graph_gru_cell", graph_gru_cell}, {"graph_rnn_cell", graph_rnn_cell},
  {"graph_highway", graph_highway},
  {"graph_op_type_name", graph_op_type_name}, {"graph_set_loss", graph_set_loss},
  {"graph_layer", graph_layer}, {"graph_checkpoint", graph_checkpoint},
  {"graph_freeze", graph_freeze},
  {"graph_counts", graph_counts}, {"graph_tensor_info", graph_tensor_info},
  {"graph_dot", graph_dot}, {"graph_convention", graph_convention},
  {"graph_analyze", graph_analyze}, {"graph_symbolic", graph_symbolic},
  {"graph_symbolic_type", graph_symbolic_type}, {"analysis_totals", analysis_totals},
  {"analysis_arrays", analysis_arrays}, {"analysis_op_name", analysis_op_name},
  {"analysis_gemm", analysis_gemm}, {"analysis_layers", analysis_layers},
  {"analysis_schedule", analysis_schedule}, {"analysis_layer", analysis_layer}, {"analysis_exact", analysis_exact},
  {NULL, NULL}
};

/* Add the graph functions to the backend table on top of the stack. */
int dlbL_open_graph(lua_State *L) {
  luaL_newmetatable(L, ANALYSIS);
  lua_pushcfunction(L, analysis_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, analysis_gc);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);
  luaL_newmetatable(L, GRAPH);
  lua_pushcfunction(L, graph_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, graph_gc);
  lua_setfield(L, -2, "__close");
  luaL_setfuncs(L, funcs, 1); /* the metatable is every function's upvalue 1 */
  return 0;
}
