/*
** repl.c — the interactive `dlbench>` loop (readline), following lua.c: try
** `return <line>` first so expressions print, continue incomplete statements.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <readline/readline.h>
#include <readline/history.h>

#include <lua.h>
#include <lauxlib.h>

#include "host.h"

#define PROMPT "dlbench> "
#define PROMPT2 "   ...> "

/* Is the syntax error on top of the stack an incomplete statement (ends at <eof>)? */
static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t lmsg;
    const char *msg = lua_tolstring(L, -1, &lmsg);
    if (lmsg >= 5 && strcmp(msg + lmsg - 5, "<eof>") == 0) {
      lua_pop(L, 1);
      return 1;
    }
  }
  return 0;
}

/* Read a chunk (one or more lines) and compile it; leaves the function or an error. */
static int loadchunk(lua_State *L, int *eof) {
  char *line = readline(PROMPT);
  if (line == NULL) { *eof = 1; return LUA_OK; }
  const char *src = line[0] == '=' ? line + 1 : line;
  lua_pushfstring(L, "return %s;", src);
  int status = luaL_loadbuffer(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=stdin");
  if (status == LUA_OK) {
    lua_remove(L, -2);
    if (line[0]) add_history(line);
    free(line);
    return status;
  }
  lua_pop(L, 2);
  lua_pushstring(L, line);
  free(line);
  for (;;) {
    size_t len;
    const char *buf = lua_tolstring(L, -1, &len);
    status = luaL_loadbuffer(L, buf, len, "=stdin");
    if (!incomplete(L, status)) break;
    char *more = readline(PROMPT2);
    if (more == NULL) break;
    lua_pushliteral(L, "\n");
    lua_pushstring(L, more);
    free(more);
    lua_concat(L, 3);
  }
  add_history(lua_tostring(L, -2));
  lua_remove(L, -2);
  return status;
}

static void printresults(lua_State *L) {
  int n = lua_gettop(L);
  if (n == 0) return;
  lua_getglobal(L, "print");
  lua_insert(L, 1);
  if (lua_pcall(L, n, 0, 0) != LUA_OK) host_report(L, LUA_ERRRUN);
}

int host_repl(lua_State *L) {
  for (;;) {
    int eof = 0;
    lua_settop(L, 0);
    int status = loadchunk(L, &eof);
    if (eof) break;
    if (status == LUA_OK) status = host_docall(L, 0, LUA_MULTRET);
    if (status == LUA_OK) printresults(L);
    else host_report(L, status);
  }
  lua_settop(L, 0);
  fputc('\n', stdout);
  return EXIT_SUCCESS;
}
