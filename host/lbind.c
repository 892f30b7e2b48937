/*
** lbind.c — the argument checks and conversions of the generated C-API glue
** (build/gen/lbind_gen.c, made by host/gen_bindings.lua from host/bindings.lua). Every
** message here has its twin in lua/dlbench/ffi_rt.lua, word for word, so both backends
** raise the same errors (tests/lua/test_binding_matrix.lua). Scratch memory is a userdata
** left on the stack, so an error raised half-way never leaks; strings made from numbers are
** anchored in a table left on the stack, so they live until the call returns.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlbL.h"

/* The type name both backends print: a handle's metatable name, "nil" for a missing one. */
const char *dlbG_typename(lua_State *L, int i) {
  if (lua_type(L, i) == LUA_TNONE) return "nil";
  if (luaL_getmetafield(L, i, "__name") != LUA_TNIL) {
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    lua_pop(L, 1); /* the name stays referenced by the metatable */
    if (s) return s;
  }
  return luaL_typename(L, i);
}

/* Raise a formatted message without a position (luaL_error would add the calling Lua
** line, which the FFI backend cannot know). */
static int rawerror(lua_State *L, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  return lua_error(L);
}

/* -- core._typename(v): the type name of v as the messages print it */
int dlbG_typename_l(lua_State *L) {
  lua_pushstring(L, dlbG_typename(L, 1));
  return 1;
}

/* Raise "bad argument #i to 'fn' (...)" without a position (like the FFI backend). */
int dlbG_argerror(lua_State *L, int i, const char *fn, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *msg = lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  lua_pushfstring(L, "bad argument #%d to '%s' (%s)", i, fn, msg);
  return lua_error(L);
}

static int typeerror(lua_State *L, int i, const char *fn, const char *want) {
  return dlbG_argerror(L, i, fn, "%s expected, got %s", want, dlbG_typename(L, i));
}

/* The pointer boxed in a handle of metatable `meta` (never NULL). The metatable is found in
** the registry under the address `key` (no string hashing: this is every call's path). */
void *dlbG_handle(lua_State *L, int i, const char *meta, const void *key, const char *fn) {
  void **b = lua_touserdata(L, i);
  if (b && lua_getmetatable(L, i)) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    if (!lua_rawequal(L, -1, -2)) b = NULL;
    lua_pop(L, 2);
  } else {
    b = NULL;
  }
  if (!b) typeerror(L, i, fn, meta);
  if (!*b) dlbG_argerror(L, i, fn, "closed %s", meta);
  return *b;
}

/* Push a new handle owning p, or raise the core's message when p is NULL. */
int dlbG_newhandle(lua_State *L, void *p, const char *meta) {
  if (!p) return dlbL_error(L);
  void **b = lua_newuserdatauv(L, sizeof *b, 0);
  *b = p;
  luaL_setmetatable(L, meta);
  return 1;
}

/* Text of a number as both backends write it: integers exactly, others "%.17g". */
/* An integer in decimal, as "%lld" writes it (graph dims arrive here once per dim of every
** op: no snprintf on that path). */
static void inttext(long long v, char buf[32]) {
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  char tmp[24];
  int n = 0, k = 0;
  do tmp[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
  if (v < 0) buf[k++] = '-';
  while (n) buf[k++] = tmp[--n];
  buf[k] = 0;
}

const char *dlbG_numtext(lua_State *L, int i, char buf[32]) {
  if (lua_isinteger(L, i)) {
    inttext((long long)lua_tointeger(L, i), buf);
  } else {
    double v = lua_tonumber(L, i);
    if (isnan(v)) snprintf(buf, 32, "nan");
    else if (isinf(v)) snprintf(buf, 32, "%s", v > 0 ? "inf" : "-inf");
    else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
      /* "%.0f" of an integral double below 2^53 is its integer's digits ("-0" for -0.0) */
      if (v == 0 && signbit(v)) snprintf(buf, 32, "%.0f", v);
      else inttext((long long)v, buf);
    } else snprintf(buf, 32, "%.17g", v);
  }
  return buf;
}

/* s followed by the integer at index i, in buf (512 bytes): nn.lua's layer names. */
const char *dlbG_suffix(lua_State *L, int i, const char *fn, const char *s, char *buf) {
  long long n = dlbG_integer(L, i, fn, -9007199254740992LL, 9007199254740992LL, NULL);
  int len = snprintf(buf, 512, "%s%lld", s, n);
  if (len < 0 || len >= 512) dlbG_argerror(L, i, fn, "name too long");
  return buf;
}

/* A string argument (a number is written as dlbG_numtext does); no NUL inside. */
const char *dlbG_string(lua_State *L, int i, const char *fn, size_t *len) {
  int t = lua_type(L, i);
  size_t n;
  if (t == LUA_TNUMBER) {
    char buf[32];
    lua_pushstring(L, dlbG_numtext(L, i, buf));
    lua_replace(L, i); /* the argument slot anchors the text */
  } else if (t != LUA_TSTRING) {
    typeerror(L, i, fn, "string");
  }
  const char *s = lua_tolstring(L, i, &n);
  if (len) *len = n;
  else if (strlen(s) != n) dlbG_argerror(L, i, fn, "string contains a NUL byte");
  return s;
}

double dlbG_number(lua_State *L, int i, const char *fn) {
  if (lua_type(L, i) != LUA_TNUMBER) typeerror(L, i, fn, "number");
  return lua_tonumber(L, i);
}

/* An integer argument in [lo, hi]. */
long long dlbG_integer(lua_State *L, int i, const char *fn, long long lo, long long hi,
                       const char *what) {
  int ok;
  if (lua_type(L, i) != LUA_TNUMBER) typeerror(L, i, fn, "number");
  lua_Integer v = lua_tointegerx(L, i, &ok);
  if (!ok) dlbG_argerror(L, i, fn, "number has no integer representation");
  if ((v < lo || v > hi) && what) dlbG_argerror(L, i, fn, "%s must be %I..%I", what, (lua_Integer)lo, (lua_Integer)hi);
  if (v < lo || v > hi) dlbG_argerror(L, i, fn, "integer out of range");
  return (long long)v;
}

static size_t arraylen(lua_State *L, int i, const char *fn, size_t max, const char *what) {
  if (lua_type(L, i) != LUA_TTABLE) typeerror(L, i, fn, what);
  size_t n = (size_t)lua_rawlen(L, i);
  if (n > max) dlbG_argerror(L, i, fn, "more than %I values", (lua_Integer)max);
  return n;
}

/* An array of numbers, copied into buf (room for max) or, when buf is NULL, into scratch
** memory. A numeric string ("1") is an error, as for a number argument (dlbG_number): Lua's
** coercion let it through, and a column read as text passed for numbers. */
double *dlbG_numbers(lua_State *L, int i, const char *fn, const char *label, size_t max,
                     size_t *n, double *buf) {
  size_t len = arraylen(L, i, fn, max, "table of numbers");
  double *v = buf ? buf : lua_newuserdatauv(L, sizeof *v * (len ? len : 1), 0);
  for (size_t k = 0; k < len; k++) {
    if (lua_rawgeti(L, i, (lua_Integer)k + 1) != LUA_TNUMBER)
      rawerror(L, "%s[%I] is a %s, not a number", label, (lua_Integer)k + 1, dlbG_typename(L, -1));
    v[k] = (double)lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  *n = len;
  return v;
}

/* An array of integers in int range, copied into buf (room for max) or scratch memory. */
int *dlbG_ints(lua_State *L, int i, const char *fn, const char *label, size_t max, size_t *n,
               int *buf) {
  size_t len = arraylen(L, i, fn, max, "table of integers");
  int *v = buf ? buf : lua_newuserdatauv(L, sizeof *v * (len ? len : 1), 0);
  for (size_t k = 0; k < len; k++) {
    int ok = 0;
    lua_Integer x = 0;
    if (lua_rawgeti(L, i, (lua_Integer)k + 1) == LUA_TNUMBER) x = lua_tointegerx(L, -1, &ok);
    if (!ok || x < -2147483647 - 1 || x > 2147483647)
      rawerror(L, "%s[%I] is not an integer", label, (lua_Integer)k + 1);
    v[k] = (int)x;
    lua_pop(L, 1);
  }
  *n = len;
  return v;
}

/* An array of strings (numbers written as dlbG_numtext does). The pointers stay valid
** while the call runs: strings are held by the array, texts of numbers by a table left on
** the stack (never a popped temporary, which the collector could free). */
const char **dlbG_strings(lua_State *L, int i, const char *fn, const char *label, size_t max,
                          size_t *n, const char **buf) {
  size_t len = arraylen(L, i, fn, max, "table of strings");
  const char **v = buf ? buf : lua_newuserdatauv(L, sizeof *v * (len + 1), 0);
  int anchor = 0; /* made on the first number */
  for (size_t k = 0; k < len; k++) {
    int t = lua_rawgeti(L, i, (lua_Integer)k + 1);
    if (t == LUA_TNUMBER) {
      char text[32];
      if (!anchor) {
        lua_newtable(L);
        lua_insert(L, -2);
        anchor = lua_gettop(L) - 1;
      }
      lua_pushstring(L, dlbG_numtext(L, -1, text));
      lua_pushvalue(L, -1);
      lua_rawseti(L, anchor, (lua_Integer)k + 1);
      lua_remove(L, -2);
    } else if (t != LUA_TSTRING) {
      rawerror(L, "%s[%I] is a %s, not a string", label, (lua_Integer)k + 1,
                 dlbG_typename(L, -1));
    }
    size_t sl;
    v[k] = lua_tolstring(L, -1, &sl);
    if (strlen(v[k]) != sl) rawerror(L, "%s[%I] contains a NUL byte", label, (lua_Integer)k + 1);
    lua_pop(L, 1);
  }
  v[len] = NULL;
  *n = len;
  return v;
}

/* The values of p's variables (in dlb_poly_varname order) from the table {name = number} at
** i into v; 0 when one of them has no value. */
int dlbG_varvalues(lua_State *L, int i, const char *fn, const dlb_poly *p, double *v) {
  if (lua_type(L, i) != LUA_TTABLE) typeerror(L, i, fn, "table");
  size_t n = dlb_poly_nvars(p);
  for (size_t k = 0; k < n; k++) {
    const char *name = dlb_poly_varname(p, k);
    int t = lua_getfield(L, i, name);
    if (t == LUA_TNIL) return 0;
    if (t != LUA_TNUMBER)
      rawerror(L, "poly: value of %s must be a number, got %s", name, dlbG_typename(L, -1));
    v[k] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  return 1;
}

/* 1 when the value at i is a table without metatable holding only strings and numbers. */
int dlbG_plainlist(lua_State *L, int i) {
  if (lua_type(L, i) != LUA_TTABLE || lua_getmetatable(L, i)) return 0;
  size_t n = (size_t)lua_rawlen(L, i);
  for (size_t k = 1; k <= n; k++) {
    int t = lua_rawgeti(L, i, (lua_Integer)k);
    lua_pop(L, 1);
    if (t != LUA_TSTRING && t != LUA_TNUMBER) return 0;
  }
  return 1;
}

/* Two arrays of different lengths: "b has 2 values but a has 3". */
int dlbG_lenerror(lua_State *L, const char *b, size_t nb, const char *a, size_t na) {
  return rawerror(L, "%s has %I values but %s has %I", b, (lua_Integer)nb, a, (lua_Integer)na);
}

/* ---------------------------------------------------------------- structs as tables */

/* Fill the struct at base from the table at index i (fields absent take their default). */
void dlbG_getstruct(lua_State *L, int i, const char *fn, const dlbG_field *f, void *base,
                    const char *label) {
  i = lua_absindex(L, i);
  if (lua_type(L, i) != LUA_TTABLE) typeerror(L, i, fn, "table");
  for (; f->name; f++) {
    int t = lua_getfield(L, i, f->name);
    if (t == LUA_TNIL && f->alias) {
      lua_pop(L, 1);
      t = lua_getfield(L, i, f->alias);
    }
    double v = f->dflt;
    if (t == LUA_TNUMBER) {
      v = lua_tonumber(L, -1);
    } else if (t == LUA_TBOOLEAN) {
      v = lua_toboolean(L, -1);
    } else if (t == LUA_TNIL) {
      if (f->required) rawerror(L, "%s%s%s is required", label, f->shown, f->close);
    } else if (t == LUA_TTABLE && f->sub) {
      dlbG_getstruct(L, -1, fn, f->sub, (char *)base + f->off, f->sublabel);
      lua_pop(L, 1);
      continue;
    } else if (!f->sub) {
      rawerror(L, "%s%s%s must be a number, got %s", label, f->shown, f->close,
               dlbG_typename(L, -1));
    }
    lua_pop(L, 1);
    if (f->sub) continue; /* a nested struct given as something else stays zero */
    if (t == LUA_TNIL && isnan(v)) continue; /* keep the struct's init value */
    if (f->isint) *(int *)((char *)base + f->off) = (int)v;
    else *(double *)((char *)base + f->off) = v;
  }
}

/* An array of tables at index i read into n structs of `size` bytes (scratch memory). Each
** starts as proto (the struct's init, as one struct argument starts: a field a table leaves
** out keeps its default) or, without one, zero. */
void *dlbG_structs(lua_State *L, int i, const char *fn, const dlbG_field *f, size_t size,
                   const void *proto, size_t max, size_t *n, const char *what,
                   const char *label) {
  size_t len = arraylen(L, i, fn, max, "table of tables");
  char *v = lua_newuserdatauv(L, size * (len ? len : 1), 0);
  memset(v, 0, size * (len ? len : 1));
  for (size_t k = 0; k < len; k++) {
    if (lua_rawgeti(L, i, (lua_Integer)k + 1) != LUA_TTABLE)
      rawerror(L, "%s[%I] must be a table", what, (lua_Integer)k + 1);
    if (proto != NULL) memcpy(v + k * size, proto, size);
    dlbG_getstruct(L, -1, fn, f, v + k * size, label);
    lua_pop(L, 1);
  }
  *n = len;
  return v;
}

/* Push a table of the struct's fields (count: the field holding an array's length). */
void dlbG_pushstruct(lua_State *L, const dlbG_field *f, const void *base) {
  lua_newtable(L);
  for (; f->name; f++) {
    const char *p = (const char *)base + f->off;
    if (f->count) {
      int n = f->countoff == (size_t)-1 ? f->count : *(const int *)((const char *)base + f->countoff);
      lua_createtable(L, n > 0 ? n : 0, 0);
      for (int k = 0; k < n && k < f->count; k++) {
        lua_pushnumber(L, ((const double *)p)[k]);
        lua_rawseti(L, -2, k + 1);
      }
    } else if (f->isint) {
      lua_pushinteger(L, *(const int *)p);
    } else {
      double x = *(const double *)p;
      if (f->whole && x == floor(x) && fabs(x) < 9007199254740992.0) lua_pushinteger(L, (lua_Integer)x);
      else lua_pushnumber(L, x);
    }
    lua_setfield(L, -2, f->name);
  }
}
