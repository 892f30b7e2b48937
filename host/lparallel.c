/*
** lparallel.c — Lua 5.4 binding of the parallel area of libdlbench (added to `dlbench.core`).
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Add the parallel functions to the backend table on top of the stack. */
int dlbL_open_parallel(lua_State *L) {
  (void)L;
  return 0;
}
