/*
** lproc.c — Lua 5.4 binding of the proc area of libdlbench (added to `dlbench.core`):
** worker processes, pipes, a monotonic clock and durable appends, with plain Lua values
** (descriptors and pids are integers). lua/dlbench/ffi_proc.lua mirrors it for LuaJIT.
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* -- core.proc_cores() -> integer */
static int proc_cores(lua_State *L) {
  lua_pushinteger(L, dlb_proc_cores());
  return 1;
}

/* -- core.proc_now() -> seconds (monotonic) */
static int proc_now(lua_State *L) {
  lua_pushnumber(L, dlb_proc_now());
  return 1;
}

/* -- core.proc_isatty(fd) -> boolean */
static int proc_isatty(lua_State *L) {
  lua_pushboolean(L, dlb_proc_isatty((int)luaL_checkinteger(L, 1)));
  return 1;
}

/* -- core.proc_spawn() -> pid, wfd, rfd   (pid 0 in the child) */
static int proc_spawn(lua_State *L) {
  int pid, wfd, rfd;
  dlbL_check(L, dlb_proc_spawn(&pid, &wfd, &rfd));
  lua_pushinteger(L, pid);
  lua_pushinteger(L, wfd);
  lua_pushinteger(L, rfd);
  return 3;
}

/* -- core.proc_write(fd, s) */
static int proc_write(lua_State *L) {
  size_t len;
  int fd = (int)luaL_checkinteger(L, 1);
  const char *s = luaL_checklstring(L, 2, &len);
  dlbL_check(L, dlb_proc_write(fd, s, len));
  return 0;
}

/* -- core.proc_read(fd, max) -> string ("" at end of file) */
static int proc_read(lua_State *L) {
  int fd = (int)luaL_checkinteger(L, 1);
  lua_Integer max = luaL_optinteger(L, 2, 65536);
  luaL_argcheck(L, max > 0 && max <= (1 << 24), 2, "read size out of range");
  luaL_Buffer b;
  char *p = luaL_buffinitsize(L, &b, (size_t)max);
  size_t got;
  dlbL_check(L, dlb_proc_read(fd, p, (size_t)max, &got));
  luaL_pushresultsize(&b, got);
  return 1;
}

/* -- core.proc_poll(fds, timeout) -> array of booleans (readable or closed) */
static int proc_poll(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  double timeout = luaL_checknumber(L, 2);
  size_t n = (size_t)lua_rawlen(L, 1);
  luaL_argcheck(L, n <= 4096, 1, "too many descriptors");
  int *fds = lua_newuserdatauv(L, sizeof(int) * (2 * n + 1), 0), *ready = fds + n;
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, 1, (lua_Integer)i + 1);
    fds[i] = (int)luaL_checkinteger(L, -1);
    lua_pop(L, 1);
  }
  dlbL_check(L, dlb_proc_poll(fds, n, timeout, ready));
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushboolean(L, ready[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* -- core.proc_wait(pid, block) -> "running"|"exited"|"signaled", code */
static int proc_wait(lua_State *L) {
  int state, code;
  dlbL_check(L, dlb_proc_wait((int)luaL_checkinteger(L, 1), lua_toboolean(L, 2), &state, &code));
  lua_pushstring(L, state == DLB_PROC_RUNNING ? "running" : state == DLB_PROC_EXITED ? "exited" : "signaled");
  lua_pushinteger(L, code);
  return 2;
}

/* -- core.proc_kill(pid, sig) */
static int proc_kill(lua_State *L) {
  dlbL_check(L, dlb_proc_kill((int)luaL_checkinteger(L, 1), (int)luaL_checkinteger(L, 2)));
  return 0;
}

/* -- core.proc_signame(sig) -> string */
static int proc_signame(lua_State *L) {
  lua_pushstring(L, dlb_proc_signame((int)luaL_checkinteger(L, 1)));
  return 1;
}

/* -- core.proc_close(fd) */
static int proc_close(lua_State *L) {
  dlbL_check(L, dlb_proc_close((int)luaL_checkinteger(L, 1)));
  return 0;
}

/* -- core.proc_exit(code): ends a worker process */
static int proc_exit(lua_State *L) {
  dlb_proc_exit((int)luaL_optinteger(L, 1, 0));
  return 0;
}

/* -- core.proc_open_append(path) -> fd, or nil and a message */
static int proc_open_append(lua_State *L) {
  int fd;
  if (dlb_proc_open_append(luaL_checkstring(L, 1), &fd) != DLB_OK) {
    lua_pushnil(L);
    lua_pushstring(L, dlb_last_error());
    return 2;
  }
  lua_pushinteger(L, fd);
  return 1;
}

/* -- core.proc_fsync(fd) */
static int proc_fsync(lua_State *L) {
  dlbL_check(L, dlb_proc_fsync((int)luaL_checkinteger(L, 1)));
  return 0;
}

static const luaL_Reg funcs[] = {
  {"proc_cores", proc_cores}, {"proc_now", proc_now}, {"proc_isatty", proc_isatty},
  {"proc_spawn", proc_spawn}, {"proc_write", proc_write}, {"proc_read", proc_read},
  {"proc_poll", proc_poll}, {"proc_wait", proc_wait}, {"proc_kill", proc_kill},
  {"proc_signame", proc_signame}, {"proc_close", proc_close}, {"proc_exit", proc_exit},
  {"proc_open_append", proc_open_append}, {"proc_fsync", proc_fsync},
  {NULL, NULL}
};

/* Add the proc functions to the backend table on top of the stack. */
int dlbL_open_proc(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
