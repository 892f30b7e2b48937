/*
** lroofline.c — Lua 5.4 binding of the roofline area of libdlbench (added to `dlbench.core`).
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Add the roofline functions to the backend table on top of the stack. */
int dlbL_open_roofline(lua_State *L) {
  (void)L;
  return 0;
}
