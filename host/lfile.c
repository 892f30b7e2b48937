/*
** lfile.c — Lua binding of graphs/file.c: the one writer (whole or not at all) and the
** capped reader of regular files that every dlbench file goes through.
*/
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* The default read cap of core.file_read: 1 GiB. */
#define READ_MAX ((lua_Integer)1 << 30)

/* A path argument: a string without NUL bytes (which C would cut short). */
static const char *checkpath(lua_State *L, int i) {
  size_t n;
  const char *p = luaL_checklstring(L, i, &n);
  luaL_argcheck(L, strlen(p) == n, i, "a file name with a NUL byte");
  return p;
}

/* -- core.file_write(path, text) -> true | nil, message */
static int file_write(lua_State *L) {
  const char *path = checkpath(L, 1);
  size_t len;
  const char *data = luaL_checklstring(L, 2, &len);
  if (dlb_file_write(path, data, len) != DLB_OK) {
    lua_pushnil(L);
    lua_pushstring(L, dlb_last_error());
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* -- core.file_read(path[, max]) -> text | nil, message, "missing"|"error" */
static int file_read(lua_State *L) {
  const char *path = checkpath(L, 1);
  lua_Integer max = luaL_optinteger(L, 2, READ_MAX);
  luaL_argcheck(L, max >= 0, 2, "a size limit >= 0 expected");
  char *data;
  size_t len;
  int st = dlb_file_read(path, (size_t)max, &data, &len);
  if (st != DLB_OK) {
    lua_pushnil(L);
    lua_pushstring(L, dlb_last_error());
    lua_pushstring(L, st == DLB_ENOTFOUND ? "missing" : "error");
    return 3;
  }
  lua_pushlstring(L, data, len); /* may raise (memory): data is freed first below */
  dlb_file_free(data);
  return 1;
}

/* -- core.file_lock_append(path) -> fd | nil, message */
static int file_lock_append(lua_State *L) {
  int fd;
  if (dlb_file_lock_append(checkpath(L, 1), &fd) != DLB_OK) {
    lua_pushnil(L);
    lua_pushstring(L, dlb_last_error());
    return 2;
  }
  lua_pushinteger(L, fd);
  return 1;
}

/* -- core.file_write_locked(path, text) -> fd | nil, message */
static int file_write_locked(lua_State *L) {
  const char *path = checkpath(L, 1);
  size_t len;
  const char *data = luaL_checklstring(L, 2, &len);
  int fd;
  if (dlb_file_write_locked(path, data, len, &fd) != DLB_OK) {
    lua_pushnil(L);
    lua_pushstring(L, dlb_last_error());
    return 2;
  }
  lua_pushinteger(L, fd);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"file_write", file_write}, {"file_read", file_read},
  {"file_lock_append", file_lock_append}, {"file_write_locked", file_write_locked},
  {NULL, NULL}
};

/* Add the file functions to the backend table on top of the stack. */
int dlbL_open_file(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
