/*
** lcore.c — the `dlbench.core` backend module of the Lua 5.4 host: the library's
** version functions and the registration of every area binding.
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Raise a Lua error carrying dlb_last_error(), without a position (as the FFI backend:
** core messages name what failed; the traceback says where). */
int dlbL_error(lua_State *L) {
  lua_pushstring(L, dlb_last_error());
  return lua_error(L);
}

/* Raise the core's message when status is not DLB_OK. */
int dlbL_check(lua_State *L, int status) {
  if (status != DLB_OK) return dlbL_error(L);
  return 0;
}

/* -- core.version() -> string */
static int core_version(lua_State *L) {
  lua_pushstring(L, dlb_version());
  return 1;
}

/* -- core.abi_version() -> integer */
static int core_abi_version(lua_State *L) {
  lua_pushinteger(L, dlb_abi_version());
  return 1;
}

/* -- core.memory_in_use() -> number (bytes of library memory live in this thread) */
static int core_memory_in_use(lua_State *L) {
  lua_pushnumber(L, dlb_memory_in_use());
  return 1;
}

static const luaL_Reg corelib[] = {
  {"version", core_version},
  {"abi_version", core_abi_version},
  {"memory_in_use", core_memory_in_use},
  {NULL, NULL}
};

typedef int (*opener)(lua_State *L);

static const opener areas[] = {
  dlbL_open_poly, dlbL_open_graph, dlbL_open_hw, dlbL_open_roofline, dlbL_open_stats,
  dlbL_open_scaling, dlbL_open_parallel, dlbL_open_proc, dlbL_open_plot, dlbL_open_energy,
  dlbL_open_measure, dlbL_open_import, dlbL_open_file, NULL
};

/* Build the backend table: core functions plus every area's. */
int luaopen_dlbench_core(lua_State *L) {
  luaL_newlib(L, corelib);
  lua_pushliteral(L, "capi");
  lua_setfield(L, -2, "name");
  for (int i = 0; areas[i]; i++) {
    areas[i](L);
    luaL_checktype(L, -1, LUA_TTABLE); /* each opener leaves the table where it was */
  }
  return 1;
}
