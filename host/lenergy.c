/*
** lenergy.c — Lua 5.4 binding of the energy area of libdlbench (added to `dlbench.core`):
** per-operation energy tables and the energy of a step. The user-facing module is
** lua/dlbench/energy.lua; the FFI twin is lua/dlbench/ffi_energy.lua.
*/
#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* -- core.energy_tables() -> {{name=, note=}, ...} */
static int energy_tables(lua_State *L) {
  int n = dlb_energy_table_count();
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, dlb_energy_table_name(i));
    lua_setfield(L, -2, "name");
    lua_pushstring(L, dlb_energy_table_note(i));
    lua_setfield(L, -2, "note");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* -- core.energy_precisions(table) -> {"fp32", ...} */
static int energy_precisions(lua_State *L) {
  const char *t = luaL_checkstring(L, 1);
  int n = dlb_energy_precision_count(t);
  if (n < 0) { /* the library's message for an unknown table (it lists the known ones) */
    dlb_energy_cost c;
    dlbL_check(L, dlb_energy_cost_get(t, "", &c));
  }
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, dlb_energy_precision_name(t, i));
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/* -- core.energy_cost(table, precision) -> {add=, mul=, rf=, sram=, dram=, word_bytes=,
**    source={add=, ...}} (pJ) */
static int energy_cost(lua_State *L) {
  const char *t = luaL_checkstring(L, 1), *p = luaL_checkstring(L, 2);
  dlb_energy_cost c;
  dlbL_check(L, dlb_energy_cost_get(t, p, &c));
  lua_createtable(L, 0, 7);
  dlbL_setnumber(L, "add", c.add);
  dlbL_setnumber(L, "mul", c.mul);
  dlbL_setnumber(L, "rf", c.rf);
  dlbL_setnumber(L, "sram", c.sram);
  dlbL_setnumber(L, "dram", c.dram);
  dlbL_setnumber(L, "word_bytes", c.word_bytes);
  static const char *fields[] = { "add", "mul", "rf", "sram", "dram" };
  lua_createtable(L, 0, 5);
  for (int i = 0; i < 5; i++) {
    lua_pushstring(L, dlb_energy_source(t, p, fields[i]));
    lua_setfield(L, -2, fields[i]);
  }
  lua_setfield(L, -2, "source");
  return 1;
}

/* -- core.energy_step(add, mul, rf, sram, dram, word_bytes, flops, rf_bytes, sram_bytes,
**    dram_bytes) -> {compute=, rf=, sram=, dram=, total=} (joules) */
static int energy_step(lua_State *L) {
  dlb_energy_cost c;
  c.add = luaL_checknumber(L, 1);
  c.mul = luaL_checknumber(L, 2);
  c.rf = luaL_checknumber(L, 3);
  c.sram = luaL_checknumber(L, 4);
  c.dram = luaL_checknumber(L, 5);
  c.word_bytes = luaL_checknumber(L, 6);
  dlb_energy_split s;
  dlbL_check(L, dlb_energy_step(&c, luaL_checknumber(L, 7), luaL_checknumber(L, 8),
                                luaL_checknumber(L, 9), luaL_checknumber(L, 10), &s));
  lua_createtable(L, 0, 5);
  dlbL_setnumber(L, "compute", s.compute);
  dlbL_setnumber(L, "rf", s.rf);
  dlbL_setnumber(L, "sram", s.sram);
  dlbL_setnumber(L, "dram", s.dram);
  dlbL_setnumber(L, "total", s.total);
  return 1;
}

static const luaL_Reg energylib[] = {
  {"energy_tables", energy_tables},
  {"energy_precisions", energy_precisions},
  {"energy_cost", energy_cost},
  {"energy_step", energy_step},
  {NULL, NULL}
};

/* Add the energy functions to the backend table on top of the stack. */
int dlbL_open_energy(lua_State *L) {
  luaL_setfuncs(L, energylib, 0);
  return 0;
}
