/*
** lproc.c — the hand-written part of the proc binding (added to `dlbench.core`): the row
** codec of worker messages: a byte format walked in Lua values (every key and value of a
** row table), with no C function behind it for the generator to describe. The rest of
** the area is generated (host/bindings.lua). lua/dlbench/ffi_proc.lua mirrors it for
** LuaJIT, byte for byte.
*/
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "dlb_proc.h"
#include "dlbL.h"

/* ---------------------------------------------------------------- the row codec
** A row {name = number|string|boolean} travels as (all integers little-endian):
**   u32 nnew, nnew x (u32 len, name bytes)    names new to the receiver, appended to its list
**   u32 ncols                                 the list's length after that
**   ncols tag bytes                           'd' double, 'i' integer (Lua 5.4), 's' string,
**                                             't' true, 'f' false, '-' absent
**   one 8-byte word per 'd'/'i' tag           dlb_proc_pack_f64 / dlb_proc_pack_i64 (exact)
**   (u32 len, bytes) per 's' tag              in column order
** Sender and receiver each keep the list of names (`cols`), so a stream of rows with the
** same columns carries the names once. */

/* One column of a row being encoded; the strings are anchored in row and cols. */
typedef struct {
  char tag;
  const char *s; size_t len;      /* 's' */
  lua_Number d; lua_Integer i;     /* 'd', 'i' */
} packcol;

static void put32(char *p, size_t x) {
  for (int k = 0; k < 4; k++) p[k] = (char)((x >> (8 * k)) & 255);
}

static size_t get32(const unsigned char *p) {
  return (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
}

/* -- core.proc_encode_row(row, cols, index) -> string
** cols: the names the receiver knows, in order; index: {name = position in cols}. Names of
** row missing from index are appended to both (only once row is known to be valid) and
** travel in the string. Raises on a non-string key or a value that is not a number,
** string or boolean, leaving cols and index as they were. */
static int proc_encode_row(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 3);
  size_t n0 = (size_t)lua_rawlen(L, 2), nnew = 0, nkeys = 0;
  /* pass 1: check the row, count the new names */
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    nkeys++;
    if (lua_type(L, -2) != LUA_TSTRING) {
      return luaL_error(L, "encode_row: a %s key (names are strings)", luaL_typename(L, -2));
    }
    int t = lua_type(L, -1);
    if (t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TBOOLEAN) {
      return luaL_error(L, "encode_row: column '%s' holds a %s (numbers, strings, booleans)",
                        lua_tostring(L, -2), luaL_typename(L, -1));
    }
    lua_pushvalue(L, -2);
    if (lua_rawget(L, 3) == LUA_TNIL) nnew++;
    lua_pop(L, 2);
  }
  /* pass 2: append the new names */
  if (nnew > 0) {
    size_t at = n0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      if (lua_rawget(L, 3) == LUA_TNIL) {
        at++;
        lua_pushvalue(L, -2);
        lua_pushinteger(L, (lua_Integer)at);
        lua_rawset(L, 3);
        lua_pushvalue(L, -2);
        lua_rawseti(L, 2, (lua_Integer)at);
      }
      lua_pop(L, 1);
    }
  }
  size_t n = n0 + nnew;
  if (n > 0xffffffffu) return luaL_error(L, "encode_row: too many columns");
  /* pass 3: the columns in order */
  packcol few[64], *pc = few;
  if (n > 64) pc = lua_newuserdatauv(L, n * sizeof *pc, 0); /* stays below the buffer */
  size_t total = 4 + 4 + n, newbytes = 0, present = 0;
  for (size_t c = 0; c < n; c++) {
    if (lua_rawgeti(L, 2, (lua_Integer)c + 1) != LUA_TSTRING) {
      return luaL_error(L, "encode_row: cols[%d] is not a name", (int)c + 1);
    }
    if (c >= n0) newbytes += 4 + lua_rawlen(L, -1);
    packcol *k = &pc[c];
    switch (lua_rawget(L, 1)) {
      case LUA_TNIL: k->tag = '-'; break;
      case LUA_TBOOLEAN: k->tag = lua_toboolean(L, -1) ? 't' : 'f'; break;
      case LUA_TNUMBER:
        if (lua_isinteger(L, -1)) { k->tag = 'i'; k->i = lua_tointeger(L, -1); }
        else { k->tag = 'd'; k->d = lua_tonumber(L, -1); }
        total += 8;
        break;
      case LUA_TSTRING:
        k->tag = 's';
        k->s = lua_tolstring(L, -1, &k->len); /* anchored by row */
        if (k->len > 0xffffffffu) return luaL_error(L, "encode_row: a string over 4 GB");
        total += 4 + k->len;
        break;
      default: return luaL_error(L, "encode_row: cols and index disagree"); /* unreachable */
    }
    if (k->tag != '-') present++;
    lua_pop(L, 1);
  }
  if (present != nkeys) return luaL_error(L, "encode_row: index names a column that cols lacks");
  total += newbytes;
  luaL_Buffer b;
  char *p = luaL_buffinitsize(L, &b, total), *q = p;
  put32(q, nnew); q += 4;
  for (size_t c = n0; c < n; c++) {
    size_t len;
    lua_rawgeti(L, 2, (lua_Integer)c + 1);
    const char *nm = lua_tolstring(L, -1, &len); /* anchored by cols */
    lua_pop(L, 1);
    put32(q, len); q += 4;
    memcpy(q, nm, len); q += len;
  }
  put32(q, n); q += 4;
  for (size_t c = 0; c < n; c++) *q++ = pc[c].tag;
  for (size_t c = 0; c < n; c++) {
    if (pc[c].tag == 'd') { double d = (double)pc[c].d; dlb_proc_pack_f64(&d, 1, q); q += 8; }
    else if (pc[c].tag == 'i') { long long i = (long long)pc[c].i; dlb_proc_pack_i64(&i, 1, q); q += 8; }
  }
  for (size_t c = 0; c < n; c++) {
    if (pc[c].tag != 's') continue;
    put32(q, pc[c].len); q += 4;
    memcpy(q, pc[c].s, pc[c].len); q += pc[c].len;
  }
  luaL_pushresultsize(&b, (size_t)(q - p));
  return 1;
}

/* -- core.proc_decode_row(s, cols[, pos[, len]]) -> row | nil, message
** Decodes the len bytes of s from pos (default: the rest of s). New names are appended to
** cols; malformed input leaves cols as it was and returns nil and a message naming the
** byte (1-based, in s). */
static int proc_decode_row(lua_State *L) {
  size_t slen;
  const char *s = luaL_checklstring(L, 1, &slen);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_Integer pos = luaL_optinteger(L, 3, 1);
  luaL_argcheck(L, pos >= 1 && (size_t)pos <= slen + 1, 3, "position out of range");
  lua_Integer len = luaL_optinteger(L, 4, (lua_Integer)(slen - (size_t)pos + 1));
  luaL_argcheck(L, len >= 0 && (size_t)len <= slen - (size_t)pos + 1, 4, "length out of range");
  lua_settop(L, 2);
  const unsigned char *start = (const unsigned char *)s + pos - 1, *q = start, *end = start + len;
  size_t n0 = (size_t)lua_rawlen(L, 2), nnew = 0, added = 0;
  const char *why;
#define NEED(k, what) do { if ((size_t)(end - q) < (size_t)(k)) { why = (what); goto bad; } } while (0)
  NEED(4, "truncated count of new names");
  nnew = get32(q); q += 4;
  for (; added < nnew; added++) {
    NEED(4, "truncated name length");
    size_t l = get32(q); q += 4;
    NEED(l, "truncated name");
    lua_pushlstring(L, (const char *)q, l);
    lua_rawseti(L, 2, (lua_Integer)(n0 + added + 1));
    q += l;
  }
  NEED(4, "truncated column count");
  size_t n = get32(q);
  if (n != n0 + nnew) { why = "column count differs from the names sent"; goto bad; }
  q += 4;
  NEED(n, "truncated tags");
  const unsigned char *tags = q;
  size_t words = 0, present = 0;
  for (size_t c = 0; c < n; c++, q++) {
    switch (tags[c]) {
      case 'd': case 'i': words++; present++; break;
      case 's': case 't': case 'f': present++; break;
      case '-': break;
      default: why = "unknown tag"; goto bad;
    }
  }
  NEED(8 * words, "truncated numbers");
  const unsigned char *w = q;
  q += 8 * words;
  lua_createtable(L, 0, (int)(present < 0x7fffffff ? present : 0));
  for (size_t c = 0; c < n; c++) {
    int t = tags[c];
    if (t == '-') continue;
    if (lua_rawgeti(L, 2, (lua_Integer)c + 1) != LUA_TSTRING) {
      lua_pop(L, 2);
      why = "a column without a name";
      goto bad;
    }
    if (t == 'd') { double d; dlb_proc_unpack_f64((const char *)w, 1, &d); w += 8; lua_pushnumber(L, (lua_Number)d); }
    else if (t == 'i') { long long i; dlb_proc_unpack_i64((const char *)w, 1, &i); w += 8; lua_pushinteger(L, (lua_Integer)i); }
    else if (t == 't' || t == 'f') lua_pushboolean(L, t == 't');
    else {
      if ((size_t)(end - q) < 4) { lua_pop(L, 2); why = "truncated string length"; goto bad; }
      size_t l = get32(q); q += 4;
      if ((size_t)(end - q) < l) { lua_pop(L, 2); why = "truncated string"; goto bad; }
      lua_pushlstring(L, (const char *)q, l);
      q += l;
    }
    lua_rawset(L, -3);
  }
  if (q != end) { lua_pop(L, 1); why = "bytes after the row"; goto bad; }
#undef NEED
  return 1;
bad:
  for (size_t a = 0; a < added; a++) { lua_pushnil(L); lua_rawseti(L, 2, (lua_Integer)(n0 + added - a)); }
  lua_pushnil(L);
  lua_pushfstring(L, "malformed row at byte %I: %s", (lua_Integer)(pos + (q - start)), why);
  return 2;
}

static const luaL_Reg funcs[] = {
  {"proc_encode_row", proc_encode_row},
  {"proc_decode_row", proc_decode_row}, {NULL, NULL}
};

/* Add the proc functions to the backend table on top of the stack. */
int dlbL_open_proc(lua_State *L) {
  luaL_setfuncs(L, funcs, 0);
  return 0;
}
