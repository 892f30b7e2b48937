/*
** lhw.c — Lua 5.4 binding of the hw area of libdlbench (added to `dlbench.core`):
** precisions. The catalogue itself is Lua data (lua/dlbench/hw.lua, hw_catalog.lua).
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* -- core.hw_precision_id(name) -> integer (0-based, as the C enum) */
static int hw_precision_id(lua_State *L) {
  int id = dlb_precision_id(luaL_checkstring(L, 1));
  if (id < 0) return dlbL_error(L);
  lua_pushinteger(L, id);
  return 1;
}

/* -- core.hw_precision_bytes(name) -> bytes per element */
static int hw_precision_bytes(lua_State *L) {
  int id = dlb_precision_id(luaL_checkstring(L, 1));
  if (id < 0) return dlbL_error(L);
  lua_pushnumber(L, dlb_precision_bytes(id));
  return 1;
}

/* -- core.hw_precisions() -> {"fp64", "fp32", ...} in enum order */
static int hw_precisions(lua_State *L) {
  lua_createtable(L, DLB_PREC_COUNT, 0);
  for (int i = 0; i < DLB_PREC_COUNT; i++) {
    lua_pushstring(L, dlb_precision_name(i));
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static const luaL_Reg hwlib[] = {
  {"hw_precision_id", hw_precision_id},
  {"hw_precision_bytes", hw_precision_bytes},
  {"hw_precisions", hw_precisions},
  {NULL, NULL}
};

/* Add the hw functions to the backend table on top of the stack. */
int dlbL_open_hw(lua_State *L) {
  luaL_setfuncs(L, hwlib, 0);
  return 0;
}
