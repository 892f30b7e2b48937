/*
** lstats.c — the hand-written part of the stats binding (added to `dlbench.core`): the
** CSV reader, which builds records of strings with quoting flags while walking the parse
** (one C call per field: in Lua over generated calls it would be several times slower on
** big files). The rest of the area is generated (host/bindings.lua).
** lua/dlbench/ffi_stats.lua offers the same function under LuaJIT.
*/
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"


/* -- core.stats_csv_parse(text, sep) -> records, lines, quoted: records an array of arrays
** of strings (every record as wide as the first), lines[i] the line record i starts on,
** quoted[i] nil when no field of record i was quoted, else {[j] = true} for its quoted
** fields (a quoted "" is an empty string, an empty unquoted field a missing value).
** Errors (same text as lua/dlbench/ffi_stats.lua): "csv: text must be a string, got
** nil", "csv: separator must be one character", "line L, column C: ...". */
static int stats_csv_parse(lua_State *L) {
  size_t len, seplen;
  if (lua_type(L, 1) != LUA_TSTRING) {
    return luaL_error(L, "csv: text must be a string, got %s", dlbG_typename(L, 1));
  }
  const char *text = lua_tolstring(L, 1, &len);
  const char *sep = ",";
  seplen = 1;
  if (!lua_isnoneornil(L, 2)) {
    if (lua_type(L, 2) != LUA_TSTRING) return luaL_error(L, "csv: separator must be one character");
    sep = lua_tolstring(L, 2, &seplen);
  }
  if (seplen != 1) return luaL_error(L, "csv: separator must be one character");
  dlb_csv *c = dlb_csv_parse(text, len, (unsigned char)sep[0]);
  if (!c) return dlbL_error(L);
  size_t n = dlb_csv_records(c), w = dlb_csv_fields(c);
  if (!lua_checkstack(L, 8)) { dlb_csv_free(c); return luaL_error(L, "csv: stack overflow"); }
  lua_createtable(L, (int)n, 0);
  int recs = lua_gettop(L);
  lua_createtable(L, (int)n, 0);
  int lines = lua_gettop(L);
  lua_newtable(L);
  int quoted = lua_gettop(L);
  for (size_t i = 0; i < n; i++) {
    lua_createtable(L, (int)w, 0);
    int rec = lua_gettop(L), q = 0;
    size_t line = 0;
    for (size_t j = 0; j < w; j++) {
      size_t fl;
      int isq = 0;
      const char *f = dlb_csv_field(c, i, j, &fl, &isq, j == 0 ? &line : NULL, NULL);
      lua_pushlstring(L, f, fl);
      lua_rawseti(L, rec, (lua_Integer)j + 1);
      if (isq) {
        if (!q) {
          lua_newtable(L);
          q = lua_gettop(L);
        }
        lua_pushboolean(L, 1);
        lua_rawseti(L, q, (lua_Integer)j + 1);
      }
    }
    if (q) lua_rawseti(L, quoted, (lua_Integer)i + 1);
    lua_rawseti(L, recs, (lua_Integer)i + 1);
    lua_pushinteger(L, (lua_Integer)line);
    lua_rawseti(L, lines, (lua_Integer)i + 1);
  }
  dlb_csv_free(c);
  return 3;
}

static const luaL_Reg funcs[] = {
  {"stats_csv_parse", stats_csv_parse},
  {NULL, NULL}
};

/* Add the stats functions to the backend table on top of the stack. */
int dlbL_open_stats(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
