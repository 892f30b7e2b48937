/*
** lgraph.c — Lua 5.4 binding of the graph area of libdlbench (added to `dlbench.core`).
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Add the graph functions to the backend table on top of the stack. */
int dlbL_open_graph(lua_State *L) {
  (void)L;
  return 0;
}
