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



/* The checks of the generated glue (host/lbind.c; twins in lua/dlbench/ffi_rt.lua). */
typedef struct dlbG_field {
  const char *name;        /* the Lua key */
  const char *shown;       /* the name in messages (a device's bw is shown as mem_bw) */
  const char *close;       /* text after the name in messages */
  size_t off;              /* offsetof the C field */
  int isint;               /* an int field (else double) */
  double dflt;             /* value when absent (NAN: keep the init function's) */
  int required;            /* absent is an error */
  const struct dlbG_field *sub; /* a nested struct, read when its key holds a table */
  const char *sublabel;    /* message label of the nested struct ("intra.") */
  int count;               /* > 0: a double array of this capacity ... */
  size_t countoff;         /* ... whose length is the int field at this offset */
  int whole;               /* push whole numbers as integers */
  const char *alias;       /* a second key read when name is absent (mem_bw for bw) */
} dlbG_field;
const char *dlbG_typename(lua_State *L, int i);
int dlbG_typename_l(lua_State *L);
int dlbG_argerror(lua_State *L, int i, const char *fn, const char *fmt, ...);
void *dlbG_handle(lua_State *L, int i, const char *meta, const void *key, const char *fn);
int dlbG_newhandle(lua_State *L, void *p, const char *meta);
const char *dlbG_numtext(lua_State *L, int i, char buf[32]);
const char *dlbG_string(lua_State *L, int i, const char *fn, size_t *len);
const char *dlbG_suffix(lua_State *L, int i, const char *fn, const char *s, char *buf);
double dlbG_number(lua_State *L, int i, const char *fn);
/* what: the argument's name for a declared range ("kernel must be 0..3"); NULL: no range */
long long dlbG_integer(lua_State *L, int i, const char *fn, long long lo, long long hi,
                       const char *what);
double *dlbG_numbers(lua_State *L, int i, const char *fn, const char *label, size_t max, size_t *n,
                     double *buf);
int *dlbG_ints(lua_State *L, int i, const char *fn, const char *label, size_t max, size_t *n,
               int *buf);
const char **dlbG_strings(lua_State *L, int i, const char *fn, const char *label, size_t max,
                          size_t *n, const char **buf);
int dlbG_plainlist(lua_State *L, int i);
int dlbG_varvalues(lua_State *L, int i, const char *fn, const struct dlb_poly *p, double *v);
int dlbG_lenerror(lua_State *L, const char *b, size_t nb, const char *a, size_t na);
void dlbG_getstruct(lua_State *L, int i, const char *fn, const dlbG_field *f, void *base,
                    const char *label);
void dlbG_pushstruct(lua_State *L, const dlbG_field *f, const void *base);
void *dlbG_structs(lua_State *L, int i, const char *fn, const dlbG_field *f, size_t size,
                   const void *proto, size_t max, size_t *n, const char *what,
                   const char *label);
/* The generated functions, metatables, enums and shared Lua composites (build/gen/). */
int dlbG_open(lua_State *L);

/* Area registrations, called in order by luaopen_dlbench_core. */
int dlbL_open_stats(lua_State *L);
int dlbL_open_proc(lua_State *L);

/* The backend module: a table of functions (see lua/dlbench/backend.lua). */
int luaopen_dlbench_core(lua_State *L);

#endif
