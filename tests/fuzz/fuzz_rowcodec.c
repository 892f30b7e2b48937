/*
** fuzz_rowcodec.c — libFuzzer harness for the sweep row codec (host/lproc.c), the bytes a
** worker sends its parent. The codec lives in the Lua binding, so the harness includes
** that file and drives core.proc_decode_row in a Lua state: the input is decoded against
** a name list that starts with two names; a row that decodes is encoded again with a
** fresh name list and decoded again, and must come back the same (malformed input gives
** nil and a message, never an error). Built and run by tests/fuzz/run.sh; seeds
** in tests/fuzz/corpus/rowcodec/.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* fuzz-link: -llua5.4 */
#include "../../host/lproc.c"

/* host/lcore.c's status check, which the other proc functions use */
int dlbL_check(lua_State *L, int status) {
  if (status != DLB_OK) return luaL_error(L, "%s", dlb_last_error());
  return 0;
}

static lua_State *L;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (L == NULL) {
    L = luaL_newstate();
    if (L == NULL) abort();
  }
  lua_settop(L, 0);
  lua_pushcfunction(L, proc_decode_row);
  lua_pushlstring(L, (const char *)data, size);
  lua_createtable(L, 2, 0);
  lua_pushliteral(L, "a"); lua_rawseti(L, -2, 1);
  lua_pushliteral(L, "b"); lua_rawseti(L, -2, 2);
  lua_pushvalue(L, -1);
  lua_insert(L, 1); /* keep cols: [cols, f, s, cols] */
  if (lua_pcall(L, 2, 2, 0) != LUA_OK) abort(); /* malformed input must not raise */
  if (lua_isnil(L, -2)) {
    if (!lua_isstring(L, -1)) abort();
    if (lua_rawlen(L, 1) != 2) abort(); /* a failure leaves the names as they were */
    lua_gc(L, LUA_GCCOLLECT, 0);
    return 0;
  }
  /* re-encode with a fresh name list and decode again: the same row comes back */
  lua_pop(L, 1); /* [cols, row] */
  lua_pushcfunction(L, proc_encode_row);
  lua_pushvalue(L, 2);
  lua_newtable(L);
  lua_newtable(L);
  if (lua_pcall(L, 3, 1, 0) != LUA_OK) abort(); /* a decoded row is always encodable */
  lua_pushcfunction(L, proc_decode_row);
  lua_insert(L, -2);
  lua_newtable(L);
  if (lua_pcall(L, 2, 2, 0) != LUA_OK || lua_isnil(L, -2)) abort();
  lua_pop(L, 1); /* [cols, row, row2] */
  size_t n1 = 0, n2 = 0;
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    n1++;
    lua_pushvalue(L, -2);
    lua_rawget(L, 3);
    int same = lua_rawequal(L, -1, -2) ||
               (lua_type(L, -1) == LUA_TNUMBER && lua_type(L, -2) == LUA_TNUMBER &&
                lua_tonumber(L, -1) != lua_tonumber(L, -1) && lua_tonumber(L, -2) != lua_tonumber(L, -2));
    if (!same) abort();
    lua_pop(L, 2);
  }
  lua_pushnil(L);
  while (lua_next(L, 3)) { n2++; lua_pop(L, 1); }
  if (n1 != n2) abort();
  lua_settop(L, 0);
  lua_gc(L, LUA_GCCOLLECT, 0);
  return 0;
}
