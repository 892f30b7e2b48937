/*
** limport.c — Lua 5.4 binding of the importers (ONNX files, JSON documents), added to
** `dlbench.core`; the user-facing API is lua/dlbench/models/onnx.lua and hf.lua. The FFI
** twin is lua/dlbench/ffi_import.lua.
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* -- core.onnx_read(path, unknown, loss) -> graph handle, {{text, kind, count}...}, {facts} */
static int onnx_read(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  int unknown = (int)luaL_checkinteger(L, 2), loss = (int)luaL_checkinteger(L, 3);
  dlb_onnx *m = dlb_onnx_read(path, unknown, loss);
  if (!m) return dlbL_error(L);
  size_t n = dlb_onnx_nreport(m);
  double facts[DLB_ONNX_NFACTS];
  dlb_onnx_facts(m, facts, DLB_ONNX_NFACTS);
  lua_createtable(L, (int)n, 0);  /* pushed before the graph: no raise while m is open */
  for (size_t i = 0; i < n; i++) {
    int kind = 0;
    double count = 0;
    const char *text = dlb_onnx_report(m, i, &kind, &count);
    lua_createtable(L, 3, 0);
    lua_pushstring(L, text);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, kind);
    lua_rawseti(L, -2, 2);
    lua_pushnumber(L, count);
    lua_rawseti(L, -2, 3);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  dlbL_pushnumbers(L, facts, DLB_ONNX_NFACTS);
  dlb_graph *g = dlb_onnx_take_graph(m);
  dlb_onnx_free(m);
  dlbL_pushgraph(L, g);
  lua_rotate(L, -3, 1); /* graph, report, facts */
  return 3;
}

/* -- core.json_read(path) / core.json_parse(text) -> the document as Lua values (JSON null
** leaves the key out; arrays are 1-based sequences) */
static int json_push(lua_State *L, dlb_json *j) {
  if (!j) return dlbL_error(L);
  size_t n = dlb_json_count(j);
  int top = lua_gettop(L);
  lua_createtable(L, 0, 0); /* containers by node index */
  int refs = lua_gettop(L);
  luaL_checkstack(L, 8, "json");
  for (size_t i = 0; i < n; i++) {
    int type, parent;
    double num;
    const char *key, *str;
    dlb_json_node(j, i, &type, &parent, &num, &key, &str);
    switch (type) {
    case DLB_JSON_NULL: continue;
    case DLB_JSON_FALSE: case DLB_JSON_TRUE: lua_pushboolean(L, type == DLB_JSON_TRUE); break;
    case DLB_JSON_NUMBER: lua_pushnumber(L, num); break;
    case DLB_JSON_STRING: lua_pushstring(L, str); break;
    default:
      lua_newtable(L);
      lua_pushvalue(L, -1);
      lua_rawseti(L, refs, (lua_Integer)i + 1);
      break;
    }
    if (parent < 0) continue; /* the root stays on the stack */
    lua_rawgeti(L, refs, parent + 1);
    lua_insert(L, -2);
    if (key) lua_setfield(L, -2, key);
    else lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
    lua_pop(L, 1);
  }
  dlb_json_free(j);
  if (lua_gettop(L) == refs) lua_pushnil(L); /* a null document */
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
  return 1;
}

static int json_read(lua_State *L) {
  return json_push(L, dlb_json_read(luaL_checkstring(L, 1)));
}

static int json_parse(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  return json_push(L, dlb_json_parse(s, len, luaL_optstring(L, 2, "<text>")));
}

static const luaL_Reg funcs[] = {
  {"onnx_read", onnx_read}, {"json_read", json_read}, {"json_parse", json_parse},
  {NULL, NULL}
};

/* Add the importer functions to the backend table on top of the stack. */
int dlbL_open_import(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
