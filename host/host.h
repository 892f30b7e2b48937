/*
** host.h — the dlbench executable's shared pieces: the interpreter setup, running chunks
** with tracebacks, and the REPL.
*/
#ifndef HOST_H
#define HOST_H

#include <lua.h>

/* Create a Lua state with the standard libraries, package.path pointing at dlbench's
** Lua library, `dlbench.core` preloaded and the global `dlb`; NULL (message on stderr)
** on failure. argv0 locates the Lua library relative to the executable. */
lua_State *host_newstate(const char *argv0);

/* Call the function on top of the stack (below it, narg arguments) with a message
** handler that appends a traceback; like lua.c's docall. Returns the lua_pcall status. */
int host_docall(lua_State *L, int narg, int nres);

/* Print the error message on top of the stack to stderr with the program name; pops it. */
void host_report(lua_State *L, int status);

/* The interactive loop (stdin a terminal). Returns the process exit status. */
int host_repl(lua_State *L);

/* Directory holding dlbench/init.lua, as found by host_newstate; static storage. */
const char *host_luadir(void);

#endif
