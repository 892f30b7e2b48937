/*
** lpoly.c — Lua 5.4 binding of the poly area of libdlbench (added to `dlbench.core`).
** Handles are full userdata "dlbench.Poly" boxing a dlb_poly *; the user-facing objects
** are in lua/dlbench/poly.lua.
*/
#include <stdlib.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

#define POLY "dlbench.Poly"

typedef struct pbox { dlb_poly *p; } pbox;

static dlb_poly *checkpoly(lua_State *L, int i) {
  pbox *b = luaL_checkudata(L, i, POLY);
  luaL_argcheck(L, b->p != NULL, i, "closed polynomial");
  return b->p;
}

/* Push a new box owning p (raises the core's message when p is NULL). */
int dlbL_pushpoly(lua_State *L, dlb_poly *p) {
  if (!p) return dlbL_error(L);
  pbox *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->p = p;
  luaL_setmetatable(L, POLY);
  return 1;
}

/* -- core.poly_parse(text) -> handle */
static int poly_parse(lua_State *L) { return dlbL_pushpoly(L, dlb_poly_parse(luaL_checkstring(L, 1))); }
/* -- core.poly_number(c) -> handle */
static int poly_number(lua_State *L) { return dlbL_pushpoly(L, dlb_poly_number(luaL_checknumber(L, 1))); }
/* -- core.poly_add(a, b) / sub / mul -> handle */
static int poly_add(lua_State *L) { return dlbL_pushpoly(L, dlb_poly_add(checkpoly(L, 1), checkpoly(L, 2))); }
static int poly_sub(lua_State *L) { return dlbL_pushpoly(L, dlb_poly_sub(checkpoly(L, 1), checkpoly(L, 2))); }
static int poly_mul(lua_State *L) { return dlbL_pushpoly(L, dlb_poly_mul(checkpoly(L, 1), checkpoly(L, 2))); }
/* -- core.poly_scale(a, c) -> handle */
static int poly_scale(lua_State *L) { return dlbL_pushpoly(L, dlb_poly_scale(checkpoly(L, 1), luaL_checknumber(L, 2))); }
/* -- core.poly_pow(a, n) -> handle */
static int poly_pow(lua_State *L) {
  return dlbL_pushpoly(L, dlb_poly_pow(checkpoly(L, 1), (int)luaL_checkinteger(L, 2)));
}

/* -- core.poly_tostring(h) -> string */
static int poly_tostring(lua_State *L) {
  dlb_poly *p = checkpoly(L, 1);
  char small[256];
  size_t n = dlb_poly_tostring(p, small, sizeof small);
  if (n < sizeof small) {
    lua_pushlstring(L, small, n);
  } else {
    luaL_Buffer b;
    char *s = luaL_buffinitsize(L, &b, n + 1);
    dlb_poly_tostring(p, s, n + 1);
    luaL_pushresultsize(&b, n);
  }
  return 1;
}

/* -- core.poly_vars(h) -> {names} */
static int poly_vars(lua_State *L) {
  dlb_poly *p = checkpoly(L, 1);
  size_t n = dlb_poly_nvars(p);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, dlb_poly_varname(p, i));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* -- core.poly_evalv(h, {values in var order}) -> number */
static int poly_evalv(lua_State *L) {
  dlb_poly *p = checkpoly(L, 1);
  double v[DLB_POLY_MAXVARS];
  size_t n = dlb_poly_nvars(p);
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, 2, (lua_Integer)i + 1);
    v[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pushnumber(L, dlb_poly_evalv(p, v));
  return 1;
}

/* -- core.poly_evalt(h, {name = value}) -> number, or nil when a variable has no value
**    (raises when a value is not a number) */
static int poly_evalt(lua_State *L) {
  dlb_poly *p = checkpoly(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  double v[DLB_POLY_MAXVARS];
  size_t n = dlb_poly_nvars(p);
  for (size_t i = 0; i < n; i++) {
    const char *name = dlb_poly_varname(p, i);
    int t = lua_getfield(L, 2, name);
    if (t == LUA_TNIL) return 1; /* the nil on top */
    if (t != LUA_TNUMBER) return luaL_error(L, "poly: value of %s must be a number, got %s", name, lua_typename(L, t));
    v[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pushnumber(L, dlb_poly_evalv(p, v));
  return 1;
}

/* -- core.poly_bind(h, {names}, {values}) -> handle */
static int poly_bind(lua_State *L) {
  dlb_poly *p = checkpoly(L, 1);
  const char **names;
  double *values;
  size_t n = dlbL_checkbindings(L, 2, &names, &values);
  return dlbL_pushpoly(L, dlb_poly_bind(p, n, names, values));
}

/* -- core.poly_number_value(h) -> number or nil */
static int poly_number_value(lua_State *L) {
  double v;
  if (dlb_poly_is_number(checkpoly(L, 1), &v)) lua_pushnumber(L, v);
  else lua_pushnil(L);
  return 1;
}

/* -- core.poly_equal(a, b) -> boolean */
static int poly_equal(lua_State *L) {
  lua_pushboolean(L, dlb_poly_equal(checkpoly(L, 1), checkpoly(L, 2)));
  return 1;
}

/* -- core.poly_degree(h) -> integer */
static int poly_degree(lua_State *L) {
  lua_pushinteger(L, dlb_poly_degree(checkpoly(L, 1)));
  return 1;
}

/* -- core.poly_terms(h) -> {{coef, {exps...}}, ...} (exps in var order) */
static int poly_terms(lua_State *L) {
  dlb_poly *p = checkpoly(L, 1);
  size_t n = dlb_poly_nterms(p), nv = dlb_poly_nvars(p);
  int e[DLB_POLY_MAXVARS];
  double c;
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    dlb_poly_term(p, i, &c, e);
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, c);
    lua_rawseti(L, -2, 1);
    lua_createtable(L, (int)nv, 0);
    for (size_t v = 0; v < nv; v++) {
      lua_pushinteger(L, e[v]);
      lua_rawseti(L, -2, (lua_Integer)v + 1);
    }
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int poly_gc(lua_State *L) {
  pbox *b = luaL_checkudata(L, 1, POLY);
  dlb_poly_free(b->p);
  b->p = NULL;
  return 0;
}

static const luaL_Reg funcs[] = {
  {"poly_parse", poly_parse}, {"poly_number", poly_number}, {"poly_add", poly_add},
  {"poly_sub", poly_sub}, {"poly_mul", poly_mul}, {"poly_scale", poly_scale},
  {"poly_pow", poly_pow}, {"poly_tostring", poly_tostring}, {"poly_vars", poly_vars},
  {"poly_evalv", poly_evalv}, {"poly_evalt", poly_evalt}, {"poly_bind", poly_bind},
  {"poly_number_value", poly_number_value}, {"poly_equal", poly_equal},
  {"poly_degree", poly_degree}, {"poly_terms", poly_terms}, {NULL, NULL}
};

static const luaL_Reg metameth[] = {
  {"__gc", poly_gc}, {"__close", poly_gc}, {"__tostring", poly_tostring}, {NULL, NULL}
};

/* Add the poly functions to the backend table on top of the stack. */
int dlbL_open_poly(lua_State *L) {
  luaL_newmetatable(L, POLY);
  luaL_setfuncs(L, metameth, 0);
  lua_pop(L, 1);
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
