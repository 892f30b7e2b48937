/*
** state.c — the interpreter the host runs: standard libraries, package.path pointing at
** dlbench's Lua library, the `dlbench.core` backend preloaded, `dlb` as a global, and
** chunks run through one docall with a traceback (as Lua's own lua.c).
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "dlbench.h"
#include "dlbL.h"
#include "host.h"

static char luadir[PATH_MAX];

/* The folder holding dlbench/init.lua (static storage). */
const char *host_luadir(void) {
  return luadir;
}

/* Does dir hold a readable dlbench/init.lua? */
static int exists(const char *dir) {
  char probe[PATH_MAX + 32];
  snprintf(probe, sizeof probe, "%s/dlbench/init.lua", dir);
  return access(probe, R_OK) == 0;
}

/* Find the folder holding dlbench/init.lua: $DLBENCH_LUA_DIR, then beside the
** executable: an install (PREFIX/bin -> PREFIX/share/lua/5.4, where Debian's Lua 5.4 looks
** too; PREFIX/share/dlbench/lua for installs made before 0.2), then the source tree
** (build/bin, build/asan/bin -> lua/). */
static int findluadir(const char *argv0) {
  const char *env = getenv("DLBENCH_LUA_DIR");
  if (env && *env) {
    snprintf(luadir, sizeof luadir, "%s", env);
    return exists(luadir);
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    if (realpath(argv0, exe) == NULL) return 0;
  } else {
    exe[n] = '\0';
  }
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  static const char *const rel[] = {
    "/../share/lua/5.4", "/../share/dlbench/lua", "/../../lua", "/../../../lua", "/../lua", NULL
  };
  for (int i = 0; rel[i]; i++) {
    char cand[PATH_MAX + 32];
    snprintf(cand, sizeof cand, "%s%s", exe, rel[i]);
    char real[PATH_MAX];
    if (realpath(cand, real) && exists(real)) {
      snprintf(luadir, sizeof luadir, "%s", real);
      return 1;
    }
  }
  return 0;
}

/* The message handler of every call: the message (or __tostring of an error object)
** with a stack traceback, as lua.c's. */
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

static int lastinterrupted = 0;

/* Did Ctrl-C interrupt the last host_docall? */
int host_interrupted(void) {
  return lastinterrupted;
}

/* After Ctrl-C stopped a call (its error message on top): clear the terminal line a
** progress bar may be drawn on, so the message starts on a clean line, and append the
** note a library function left in dlbench.errors.interrupt_note (a function returning a
** string: where its partial results are, e.g. dlb.sweep.last()); the note is cleared. */
static void interrupt_epilogue(lua_State *L) {
  if (isatty(STDERR_FILENO)) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  if (lua_type(L, -1) != LUA_TSTRING) return;
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "dlbench.errors");
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_getfield(L, -1, "interrupt_note");
    lua_pushnil(L);
    lua_setfield(L, -3, "interrupt_note");
    if (lua_type(L, -1) == LUA_TFUNCTION && lua_pcall(L, 0, 1, 0) == LUA_OK
        && lua_type(L, -1) == LUA_TSTRING) {
      lua_pushliteral(L, "\n");
      lua_insert(L, -2);
      lua_concat(L, 2);           /* "\n" .. note */
      lua_copy(L, -1, -3);        /* over the loaded table: [msg, note, errors, note] */
      lua_pop(L, 2);              /* note copy, errors table: [msg, "\nnote"] */
      lua_concat(L, 2);
      return;
    }
    lua_pop(L, 1); /* the note (or pcall's error) */
  }
  lua_pop(L, 2);
}

/* Run with a traceback handler; Ctrl-C interrupts the call (see interrupt.c). */
int host_docall(lua_State *L, int narg, int nres) {
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  host_interrupt_arm(L);
  int status = lua_pcall(L, narg, nres, base);
  lastinterrupted = host_interrupt_disarm(L) && status != LUA_OK;
  if (lastinterrupted) interrupt_epilogue(L);
  lua_remove(L, base);
  return status;
}

/* -- help([x]) prints the help of x (see lua/dlbench/help.lua); the module loads on
** first use, so start-up stays fast. */
static int help(lua_State *L) {
  int n = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "dlbench.help");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "text");
  lua_insert(L, 1);
  lua_pop(L, 1);
  lua_call(L, n, 1);
  size_t len;
  const char *s = luaL_tolstring(L, -1, &len);
  fwrite(s, 1, len, stdout);
  fputc('\n', stdout);
  fflush(stdout);
  return 0;
}

/* Print the error on top of the stack to stderr, prefixed "dlbench: "; pops it. */
void host_report(lua_State *L, int status) {
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "dlbench: %s\n", msg ? msg : "(error object is not a string)");
    fflush(stderr);
    lua_pop(L, 1);
  }
}

/* Protected part of the setup: libraries, paths, preload, require "dlbench". */
static int setup(lua_State *L) {
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", luadir, luadir);
  lua_getfield(L, -2, "path");
  lua_concat(L, 2);
  lua_setfield(L, -2, "path");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_dlbench_core);
  lua_setfield(L, -2, "dlbench.core");
  lua_pop(L, 2);
  lua_register(L, "help", help);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "dlbench");
  lua_call(L, 1, 1);
  lua_setglobal(L, "dlb");
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE); /* help's own help */
  if (lua_getfield(L, -1, "dlbench.doc") == LUA_TTABLE) {
    lua_getfield(L, -1, "doc");
    lua_getglobal(L, "help");
    lua_pushliteral(L, "help([x])");
    lua_pushliteral(L, "print the help of x (a value or a dotted name); "
                       "help() lists dlbench's modules");
    lua_call(L, 3, 0);
  }
  lua_pop(L, 2);
  return 0;
}

/* A ready state (see host.h); the caller closes it. */
/* libdlbench's allocator in the host: the Lua state's own (luaL_newstate's realloc/free),
** so the library's blocks come from where Lua's do (graphs/base/alloc.c; the collector learns
** of them through dlb.memory). lua_Alloc's osize is not needed by that allocator. */
static void *coremem(void *ud, void *ptr, size_t n) {
  void *aud;
  lua_Alloc f = lua_getallocf((lua_State *)ud, &aud);
  return f(aud, ptr, 0, n);
}

lua_State *host_newstate(const char *argv0) {
  dlb_sys_malloc_tune(); /* first: graphs/base/sys.c says why */
  if (!findluadir(argv0)) {
    fprintf(stderr, "dlbench: cannot find the Lua library (dlbench/init.lua); "
                    "set DLBENCH_LUA_DIR to the folder holding it\n");
    return NULL;
  }
  lua_State *L = luaL_newstate();
  if (L == NULL) {
    fprintf(stderr, "dlbench: cannot create the Lua state (out of memory)\n");
    return NULL;
  }
  dlb_set_allocator(coremem, L);
  lua_pushcfunction(L, setup);
  int status = host_docall(L, 0, 0);
  if (status != LUA_OK) {
    host_report(L, status);
    host_closestate(L);
    return NULL;
  }
  return L;
}

/* Close the state made by host_newstate; the library's allocator goes back to the C
** library's first, so the blocks finalizers free after this do not reach a closed state. */
void host_closestate(lua_State *L) {
  dlb_set_allocator(NULL, NULL);
  lua_close(L);
}
