/*
** lpoly.c — Lua 5.4 binding of the poly area of libdlbench (added to `dlbench.core`).
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Add the poly functions to the backend table on top of the stack. */
int dlbL_open_poly(lua_State *L) {
  (void)L;
  return 0;
}
