/*
** lcore.c — the `dlbench.core` backend module of the Lua 5.4 host: the error helpers and
** the registration of the generated functions and the hand-written areas.
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

/* -- core.table_new(n) -> {}: an empty table with room for n array entries (the FFI
** backend: LuaJIT's table.new). For the long flat lists the library fills index by index
** (dlb.parallel.layers.from_graph's per-op array: 14 numbers an op, tens of thousands):
** filled from empty, such a list is copied at every doubling, and under the sanitizer
** flavour each copy is a fresh mapping of pages. n is a hint: the room made is at most
** DLB_TABLE_NEW_MAX entries (16 Mi, 256 MiB of slots; the largest list the library makes
** is some millions), so a huge n cannot commit gigabytes up front (the API fuzzer's
** table_new(2^30) spent 90 s faulting in 16 GiB); the table grows past it as any table. */
#define DLB_TABLE_NEW_MAX (1 << 24)
static int core_table_new(lua_State *L) {
  long long n = dlbG_integer(L, 1, "table_new", 0, 0x7fffffff, NULL);
  lua_createtable(L, (int)(n < DLB_TABLE_NEW_MAX ? n : DLB_TABLE_NEW_MAX), 0);
  return 1;
}

static const luaL_Reg corelib[] = {
  {"table_new", core_table_new},
  {NULL, NULL}
};

typedef int (*opener)(lua_State *L);

/* The areas with hand-written functions (what the generator cannot express; each file
** says why). */
static const opener areas[] = {
  dlbL_open_stats, dlbL_open_proc, NULL
};

/* Build the backend table: core functions, the generated ones, then hand-written areas'. */
int luaopen_dlbench_core(lua_State *L) {
  luaL_newlib(L, corelib);
  lua_pushliteral(L, "capi");
  lua_setfield(L, -2, "name");
  dlbG_open(L); /* the generated functions (host/bindings.lua) */
  for (int i = 0; areas[i]; i++) {
    areas[i](L);
    luaL_checktype(L, -1, LUA_TTABLE); /* each opener leaves the table where it was */
  }
  return 1;
}
