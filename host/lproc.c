/*
** lproc.c — Lua 5.4 binding of the proc area of libdlbench (added to `dlbench.core`).
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* Add the proc functions to the backend table on top of the stack. */
int dlbL_open_proc(lua_State *L) {
  (void)L;
  return 0;
}
