/*
** lutil.c — helpers shared by the Lua 5.4 C-API bindings: Lua arrays of numbers in and
** out, number fields, name/value binding arrays. Scratch memory is a userdata pushed on
** the stack, so an error raised half-way never leaks.
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Copy the array of numbers at index i into scratch memory pushed on the stack; *n gets
** its length. Raises naming `what` and the first element that is not a number. */
double *dlbL_checknumbers(lua_State *L, int i, size_t *n, const char *what) {
  luaL_argexpected(L, lua_type(L, i) == LUA_TTABLE, i, "table of numbers");
  lua_Integer len = luaL_len(L, i);
  if (len < 0 || len > 100000000) luaL_error(L, "%s: %I numbers is too many", what, len);
  double *v = lua_newuserdatauv(L, sizeof(double) * (size_t)(len > 0 ? len : 1), 0);
  for (lua_Integer k = 1; k <= len; k++) {
    int isnum;
    lua_geti(L, i, k);
    v[k - 1] = (double)lua_tonumberx(L, -1, &isnum);
    if (!isnum) luaL_error(L, "%s[%I] is a %s, not a number", what, k, luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  *n = (size_t)len;
  return v;
}

/* Push a new array holding v[0..n-1]. */
void dlbL_pushnumbers(lua_State *L, const double *v, size_t n) {
  lua_createtable(L, n < 0x7fffffff ? (int)n : 0, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* t[k] = v for the table on top of the stack. */
void dlbL_setnumber(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* Bindings given as two parallel arrays at index i (names) and i + 1 (numbers), copied
** into scratch memory pushed on the stack (two userdata); returns their count. The name
** strings stay referenced by the array. */
size_t dlbL_checkbindings(lua_State *L, int i, const char ***names, double **values) {
  size_t n = (size_t)luaL_len(L, i);
  *names = lua_newuserdatauv(L, (n + 1) * sizeof **names, 0);
  *values = lua_newuserdatauv(L, (n + 1) * sizeof **values, 0);
  for (size_t k = 0; k < n; k++) {
    lua_rawgeti(L, i, (lua_Integer)k + 1);
    (*names)[k] = luaL_checkstring(L, -1);
    lua_pop(L, 1);
    lua_rawgeti(L, i + 1, (lua_Integer)k + 1);
    (*values)[k] = luaL_checknumber(L, -1);
    lua_pop(L, 1);
  }
  return n;
}
