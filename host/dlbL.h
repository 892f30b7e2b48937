/*
** dlbL.h — helpers shared by the Lua 5.4 C-API bindings of libdlbench (host/l*.c).
** Each area binding exports one dlbL_open_<area>(L), which adds its functions to the
** backend table on top of the stack (the `dlbench.core` module) and creates its metatables.
*/
#ifndef DLBL_H
#define DLBL_H

#include <lua.h>
#include <lauxlib.h>

/* Raise a Lua error with the core's last message (never returns). */
int dlbL_error(lua_State *L);
/* If status != DLB_OK raise the core's message; otherwise return 0. */
int dlbL_check(lua_State *L, int status);

/* Shared argument helpers (host/lutil.c); scratch memory is a userdata left on the stack. */
double *dlbL_checknumbers(lua_State *L, int i, size_t *n, const char *what);
void dlbL_pushnumbers(lua_State *L, const double *v, size_t n);
void dlbL_setnumber(lua_State *L, const char *k, double v);
size_t dlbL_checkbindings(lua_State *L, int i, const char ***names, double **values);

/* Graph-area handles for other bindings (host/lgraph.c, host/lpoly.c): the dlb_analysis *
** inside a "dlbench.Analysis" handle (raises on anything else; borrowed, the userdata owns
** it), and a new "dlbench.Poly" handle owning p (raises the core's message when p is NULL). */
struct dlb_analysis *dlbL_checkanalysis(lua_State *L, int i);
int dlbL_pushpoly(lua_State *L, struct dlb_poly *p);
/* A device table at index t as a dlb_roof (C defaults for absent fields; host/lroofline.c). */
void dlbL_checkroof(lua_State *L, int t, struct dlb_roof *d);
/* A new "dlbench.Graph" handle owning g (raises the core's message when g is NULL). */
int dlbL_pushgraph(lua_State *L, struct dlb_graph *g);

/* Area registrations, called in order by luaopen_dlbench_core. */
int dlbL_open_poly(lua_State *L);
int dlbL_open_graph(lua_State *L);
int dlbL_open_hw(lua_State *L);
int dlbL_open_roofline(lua_State *L);
int dlbL_open_stats(lua_State *L);
int dlbL_open_scaling(lua_State *L);
int dlbL_open_parallel(lua_State *L);
int dlbL_open_proc(lua_State *L);
int dlbL_open_plot(lua_State *L);
int dlbL_open_energy(lua_State *L);
int dlbL_open_measure(lua_State *L);
int dlbL_open_import(lua_State *L);
int dlbL_open_file(lua_State *L);

/* The backend module: a table of functions (see lua/dlbench/backend.lua). */
int luaopen_dlbench_core(lua_State *L);

#endif
