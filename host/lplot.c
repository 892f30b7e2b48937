/*
** lplot.c — Lua 5.4 binding of the plot area of libdlbench (added to `dlbench.core`).
** Thin: figure handles, numbers, strings and flat Lua arrays; lua/dlbench/plot.lua
** builds the user API on top. Panels and series are 0-based here, as in C.
*/
#include <math.h>
#include <stdlib.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

#define FIGURE "dlbench.Figure"

/* The figure in box i; raises on a freed or foreign value. */
static dlb_figure *checkfigure(lua_State *L, int i) {
  dlb_figure **box = (dlb_figure **)luaL_checkudata(L, i, FIGURE);
  luaL_argcheck(L, *box != NULL, i, "figure has been freed");
  return *box;
}

/* -- core.plot_figure_new(width_in, height_in, rows, cols) -> figure */
static int plot_figure_new(lua_State *L) {
  double w = luaL_checknumber(L, 1), h = luaL_checknumber(L, 2);
  int rows = (int)luaL_checkinteger(L, 3), cols = (int)luaL_checkinteger(L, 4);
  dlb_figure **box = (dlb_figure **)lua_newuserdatauv(L, sizeof *box, 0);
  *box = NULL; /* closed until the figure exists */
  luaL_setmetatable(L, FIGURE);
  *box = dlb_figure_new(w, h, rows, cols);
  if (!*box) return dlbL_error(L);
  return 1;
}

/* -- core.plot_figure_num(fig, key, value); core.plot_figure_str(fig, key, value) */
static int plot_figure_num(lua_State *L) {
  return dlbL_check(L, dlb_figure_num(checkfigure(L, 1), luaL_checkstring(L, 2),
                                      luaL_checknumber(L, 3)));
}

static int plot_figure_str(lua_State *L) {
  return dlbL_check(L, dlb_figure_str(checkfigure(L, 1), luaL_checkstring(L, 2),
                                      luaL_checkstring(L, 3)));
}

/* -- core.plot_panel_num(fig, panel, key, value); core.plot_panel_str(fig, panel, key, s) */
static int plot_panel_num(lua_State *L) {
  return dlbL_check(L, dlb_panel_num(checkfigure(L, 1), (int)luaL_checkinteger(L, 2),
                                     luaL_checkstring(L, 3), luaL_checknumber(L, 4)));
}

static int plot_panel_str(lua_State *L) {
  return dlbL_check(L, dlb_panel_str(checkfigure(L, 1), (int)luaL_checkinteger(L, 2),
                                     luaL_checkstring(L, 3), luaL_checkstring(L, 4)));
}

/* Read Lua array at index i into a new userdata of doubles (freed by the GC); *n values. */
static double *checkdoubles(lua_State *L, int i, const char *name, size_t *n) {
  luaL_checktype(L, i, LUA_TTABLE);
  *n = (size_t)luaL_len(L, i);
  double *v = (double *)lua_newuserdatauv(L, (*n ? *n : 1) * sizeof *v, 0);
  for (size_t k = 0; k < *n; k++) {
    int isnum;
    lua_geti(L, i, (lua_Integer)k + 1);
    v[k] = lua_tonumberx(L, -1, &isnum);
    if (!isnum)
      luaL_error(L, "%s[%d] is %s, not a number", name, (int)k + 1, luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  return v;
}

/* -- core.plot_panel_ticks(fig, panel, axis, {values}) */
static int plot_panel_ticks(lua_State *L) {
  dlb_figure *f = checkfigure(L, 1);
  int p = (int)luaL_checkinteger(L, 2), ax = (int)luaL_checkinteger(L, 3);
  size_t n;
  double *v = checkdoubles(L, 4, ax ? "yticks" : "xticks", &n);
  return dlbL_check(L, dlb_panel_ticks(f, p, ax, v, n));
}

/* -- core.plot_panel_ticklabel(fig, panel, axis, i, label)   (i 0-based) */
static int plot_panel_ticklabel(lua_State *L) {
  return dlbL_check(L, dlb_panel_ticklabel(checkfigure(L, 1), (int)luaL_checkinteger(L, 2),
                                           (int)luaL_checkinteger(L, 3),
                                           (size_t)luaL_checkinteger(L, 4),
                                           luaL_checkstring(L, 5)));
}

/* -- core.plot_series_new(fig, panel, kind) -> id */
static int plot_series_new(lua_State *L) {
  int id;
  dlbL_check(L, dlb_series_new(checkfigure(L, 1), (int)luaL_checkinteger(L, 2),
                               (int)luaL_checkinteger(L, 3), &id));
  lua_pushinteger(L, id);
  return 1;
}

/* -- core.plot_series_data(fig, id, name, {numbers}) : copies the array into doubles */
static int plot_series_data(lua_State *L) {
  dlb_figure *f = checkfigure(L, 1);
  int id = (int)luaL_checkinteger(L, 2);
  const char *name = luaL_checkstring(L, 3);
  size_t n;
  double *v = checkdoubles(L, 4, name, &n);
  return dlbL_check(L, dlb_series_data(f, id, name, v, n));
}

/* -- core.plot_series_strs(fig, id, name, {strings}) : appends each */
static int plot_series_strs(lua_State *L) {
  dlb_figure *f = checkfigure(L, 1);
  int id = (int)luaL_checkinteger(L, 2);
  const char *name = luaL_checkstring(L, 3);
  luaL_checktype(L, 4, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 4);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 4, i);
    if (!lua_isstring(L, -1))
      return luaL_error(L, "%s[%d] is %s, not a string", name, (int)i, luaL_typename(L, -1));
    dlbL_check(L, dlb_series_addstr(f, id, name, lua_tostring(L, -1)));
    lua_pop(L, 1);
  }
  return 0;
}

/* -- core.plot_series_num(fig, id, key, v); core.plot_series_str(fig, id, key, s) */
static int plot_series_num(lua_State *L) {
  return dlbL_check(L, dlb_series_num(checkfigure(L, 1), (int)luaL_checkinteger(L, 2),
                                      luaL_checkstring(L, 3), luaL_checknumber(L, 4)));
}

static int plot_series_str(lua_State *L) {
  return dlbL_check(L, dlb_series_str(checkfigure(L, 1), (int)luaL_checkinteger(L, 2),
                                      luaL_checkstring(L, 3), luaL_checkstring(L, 4)));
}

/* -- core.plot_series_commit(fig, id) -> warning string or nil */
static int plot_series_commit(lua_State *L) {
  dlb_figure *f = checkfigure(L, 1);
  dlbL_check(L, dlb_series_commit(f, (int)luaL_checkinteger(L, 2)));
  const char *w = dlb_figure_warning(f);
  if (w[0]) lua_pushstring(L, w); else lua_pushnil(L);
  return 1;
}

/* -- core.plot_series_drop(fig, id) */
static int plot_series_drop(lua_State *L) {
  return dlbL_check(L, dlb_series_drop(checkfigure(L, 1), (int)luaL_checkinteger(L, 2)));
}

/* -- core.plot_series_options(kind, which) -> string or nil */
static int plot_series_options(lua_State *L) {
  const char *s = dlb_series_options((int)luaL_checkinteger(L, 1),
                                     (int)luaL_checkinteger(L, 2));
  if (s) lua_pushstring(L, s); else lua_pushnil(L);
  return 1;
}

/* -- core.plot_layout_warning(fig) -> string ("" when none; lays the figure out) */
static int plot_layout_warning(lua_State *L) {
  dlb_figure *f = checkfigure(L, 1);
  dlbL_check(L, dlb_figure_layout(f));
  lua_pushstring(L, dlb_figure_layout_warning(f));
  return 1;
}

/* -- core.plot_overlaps(fig) -> {descriptions} (lays the figure out) */
static int plot_overlaps(lua_State *L) {
  dlb_figure *f = checkfigure(L, 1);
  size_t n;
  dlbL_check(L, dlb_figure_layout(f));
  dlbL_check(L, dlb_figure_overlaps(f, &n));
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    char buf[256];
    dlbL_check(L, dlb_figure_overlap_text(f, i, buf, sizeof buf));
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* -- core.plot_to_point(fig, panel, x, y) -> px, py (points from the top left) */
static int plot_to_point(lua_State *L) {
  double px, py;
  dlbL_check(L, dlb_panel_to_point(checkfigure(L, 1), (int)luaL_checkinteger(L, 2),
                                   luaL_checknumber(L, 3), luaL_checknumber(L, 4), &px, &py));
  lua_pushnumber(L, px);
  lua_pushnumber(L, py);
  return 2;
}

/* -- core.plot_ticks_of(fig, panel, axis) -> {values}, {labels} (axis 0 x, 1 y, 2 colour bar) */
static int plot_ticks_of(lua_State *L) {
  dlb_figure *f = checkfigure(L, 1);
  int p = (int)luaL_checkinteger(L, 2), ax = (int)luaL_checkinteger(L, 3), n;
  dlbL_check(L, dlb_panel_tick_count(f, p, ax, &n));
  lua_createtable(L, n, 0);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    double v;
    char buf[64];
    dlbL_check(L, dlb_panel_tick(f, p, ax, i, &v, buf, sizeof buf));
    lua_pushnumber(L, v);
    lua_rawseti(L, -3, i + 1);
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, i + 1);
  }
  return 2;
}

/* -- core.plot_save(fig, path, dpi) -> true, or nil and a message when it cannot be written */
static int plot_save(lua_State *L) {
  int st = dlb_figure_save(checkfigure(L, 1), luaL_checkstring(L, 2), luaL_optnumber(L, 3, 0));
  if (st == DLB_EIO) {
    luaL_pushfail(L);
    lua_pushstring(L, dlb_last_error());
    return 2;
  }
  dlbL_check(L, st);
  lua_pushboolean(L, 1);
  return 1;
}

/* -- core.plot_cmap(name, t) -> r, g, b */
static int plot_cmap(lua_State *L) {
  int c;
  double rgb[3];
  dlbL_check(L, dlb_cmap_lookup(luaL_checkstring(L, 1), &c));
  dlbL_check(L, dlb_cmap_eval(c, luaL_checknumber(L, 2), rgb));
  for (int i = 0; i < 3; i++) lua_pushnumber(L, rgb[i]);
  return 3;
}

/* -- core.plot_palette(i) -> r, g, b (i 0-based) */
static int plot_palette(lua_State *L) {
  double rgb[3];
  dlb_palette((int)luaL_checkinteger(L, 1), rgb);
  for (int i = 0; i < 3; i++) lua_pushnumber(L, rgb[i]);
  return 3;
}

/* -- core.plot_png_size(path) -> w, h ; core.plot_png_pixel(path, x, y) -> r, g, b, a */
static int plot_png_size(lua_State *L) {
  int w, h;
  dlbL_check(L, dlb_png_size(luaL_checkstring(L, 1), &w, &h));
  lua_pushinteger(L, w);
  lua_pushinteger(L, h);
  return 2;
}

static int plot_png_pixel(lua_State *L) {
  double c[4];
  dlbL_check(L, dlb_png_pixel(luaL_checkstring(L, 1), (int)luaL_checkinteger(L, 2),
                              (int)luaL_checkinteger(L, 3), c));
  for (int i = 0; i < 4; i++) lua_pushnumber(L, c[i]);
  return 4;
}

/* -- core.plot_ticks(lo, hi, target) -> {ticks} */
static int plot_ticks(lua_State *L) {
  double t[256];
  size_t n;
  dlbL_check(L, dlb_ticks_linear(luaL_checknumber(L, 1), luaL_checknumber(L, 2),
                                 (int)luaL_checkinteger(L, 3), t, 256, &n));
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushnumber(L, t[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* -- core.plot_tick_format(v, step, style) -> string */
static int plot_tick_format(lua_State *L) {
  char buf[64];
  dlbL_check(L, dlb_tick_format(luaL_checknumber(L, 1), luaL_checknumber(L, 2),
                                luaL_checkstring(L, 3), buf, sizeof buf));
  lua_pushstring(L, buf);
  return 1;
}

/* __gc / __close: free the figure once. */
static int figure_gc(lua_State *L) {
  dlb_figure **box = (dlb_figure **)luaL_checkudata(L, 1, FIGURE);
  dlb_figure_free(*box);
  *box = NULL;
  return 0;
}

/* __tostring: "dlbench.Figure (0x...)". */
static int figure_tostring(lua_State *L) {
  dlb_figure **box = (dlb_figure **)luaL_checkudata(L, 1, FIGURE);
  if (*box) lua_pushfstring(L, "dlbench.Figure (%p)", (void *)*box);
  else lua_pushliteral(L, "dlbench.Figure (freed)");
  return 1;
}

static const luaL_Reg funcs[] = {
  {"plot_figure_new", plot_figure_new}, {"plot_figure_num", plot_figure_num},
  {"plot_figure_str", plot_figure_str}, {"plot_panel_num", plot_panel_num},
  {"plot_panel_str", plot_panel_str}, {"plot_series_new", plot_series_new},
  {"plot_panel_ticks", plot_panel_ticks}, {"plot_panel_ticklabel", plot_panel_ticklabel},
  {"plot_series_data", plot_series_data}, {"plot_series_strs", plot_series_strs},
  {"plot_series_num", plot_series_num}, {"plot_series_str", plot_series_str},
  {"plot_series_commit", plot_series_commit}, {"plot_series_options", plot_series_options},
  {"plot_series_drop", plot_series_drop},
  {"plot_overlaps", plot_overlaps}, {"plot_layout_warning", plot_layout_warning}, {"plot_to_point", plot_to_point},
  {"plot_ticks_of", plot_ticks_of},
  {"plot_save", plot_save}, {"plot_cmap", plot_cmap}, {"plot_palette", plot_palette},
  {"plot_png_size", plot_png_size}, {"plot_png_pixel", plot_png_pixel},
  {"plot_ticks", plot_ticks}, {"plot_tick_format", plot_tick_format},
  {NULL, NULL}
};

static const luaL_Reg metameth[] = {
  {"__gc", figure_gc}, {"__close", figure_gc}, {"__tostring", figure_tostring},
  {NULL, NULL}
};

/* Add the plot functions to the backend table on top of the stack. */
int dlbL_open_plot(lua_State *L) {
  luaL_newmetatable(L, FIGURE);
  luaL_setfuncs(L, metameth, 0);
  lua_pop(L, 1);
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
