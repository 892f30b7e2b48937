/*
** lhw.c — Lua 5.4 binding of the hw area of libdlbench (added to `dlbench.core`).
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Add the hw functions to the backend table on top of the stack. */
int dlbL_open_hw(lua_State *L) {
  (void)L;
  return 0;
}
