/*
** complete.c — tab completion for the REPL: globals and keywords, `tbl.field` chains and
** `obj:method` (the last separator may be `:`, which offers functions only). Only string
** keys that are Lua names are offered. A value's fields are its own (for tables) followed
** by the `__index` tables of its metatables (never `__index` functions, which could run
** arbitrary code). A table with a `lazy_names` array of strings (as `dlb`, whose
** submodules load on first use) also offers those names, without loading them; walking
** *through* such a name (`dlb.hw.<TAB>`) loads that one module, as using it would.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lineedit.h"

#include <lua.h>
#include <lauxlib.h>

#include "host.h"

#if !DLB_HAVE_RL
/* Built without a line editor (--readline=none): nothing to complete with. */
void host_complete_init(lua_State *L) { (void)L; }
#else
static lua_State *CL;

static const char *const keywords[] = {
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
  "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
  NULL
};

static int isname(const char *s, size_t len) {
  if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
  for (size_t i = 1; i < len; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
  return 1;
}

/* Is the value at index i callable (a function, or has __call)? */
static int callable(lua_State *L, int i) {
  if (lua_type(L, i) == LUA_TFUNCTION) return 1;
  int has = luaL_getmetafield(L, i, "__call") != LUA_TNIL;
  if (has) lua_pop(L, 1);
  return has;
}

/* out[head .. key] = true for a key that is a name starting with the partial word.
** Metamethods and other "__" names are offered only once the user has typed "__". */
static void offer(lua_State *L, int out, const char *head, const char *key, size_t klen,
                  const char *part, size_t plen) {
  if (klen < plen || memcmp(key, part, plen) != 0 || !isname(key, klen)) return;
  if (klen >= 2 && key[0] == '_' && key[1] == '_' && !(plen >= 2 && part[0] == '_' && part[1] == '_'))
    return;
  lua_pushstring(L, head);
  lua_pushlstring(L, key, klen);
  lua_concat(L, 2);
  lua_pushboolean(L, 1);
  lua_rawset(L, out);
}

/* Offer the fields of the value on top of the stack (popped): its own string keys when a
** table, then those of its metatables' __index tables (at most 16 levels). */
static void fields(lua_State *L, int out, const char *head, const char *part, int methods) {
  size_t plen = strlen(part);
  for (int depth = 0; depth < 16; depth++) {
    int obj = lua_gettop(L);
    if (lua_type(L, obj) == LUA_TTABLE) {
      lua_pushnil(L);
      while (lua_next(L, obj)) {
        if (lua_type(L, -2) == LUA_TSTRING && (!methods || callable(L, -1))) {
          size_t klen;
          const char *k = lua_tolstring(L, -2, &klen);
          offer(L, out, head, k, klen, part, plen);
        }
        lua_pop(L, 1);
      }
      lua_pushliteral(L, "lazy_names");
      if (lua_rawget(L, obj) == LUA_TTABLE && !methods) {
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        for (lua_Integer i = 1; i <= n; i++) {
          if (lua_rawgeti(L, -1, i) == LUA_TSTRING) {
            size_t klen;
            const char *k = lua_tolstring(L, -1, &klen);
            offer(L, out, head, k, klen, part, plen);
          }
          lua_pop(L, 1);
        }
      }
      lua_pop(L, 1);
    }
    if (!lua_getmetatable(L, obj)) break;
    lua_pushliteral(L, "__index");
    lua_rawget(L, -2);
    lua_remove(L, -2); /* the metatable */
    lua_remove(L, obj);
    if (lua_type(L, -1) != LUA_TTABLE) break;
  }
  lua_pop(L, 1);
}

/* Is name listed in the lazy_names of the table at index t? */
static int islazy(lua_State *L, int t, const char *name) {
  int found = 0;
  lua_pushliteral(L, "lazy_names");
  if (lua_rawget(L, t < 0 ? t - 1 : t) == LUA_TTABLE) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n && !found; i++) {
      if (lua_rawgeti(L, -1, i) == LUA_TSTRING && strcmp(lua_tostring(L, -1), name) == 0)
        found = 1;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return found;
}

/* Push the field `name` of the value at index o without running __index functions
** (except to load a lazy name); nil when there is none. */
static void getfield(lua_State *L, int o, const char *name) {
  lua_pushvalue(L, o);
  for (int depth = 0; depth < 16; depth++) {
    int cur = lua_gettop(L);
    if (lua_type(L, cur) == LUA_TTABLE) {
      lua_pushstring(L, name);
      if (lua_rawget(L, cur) != LUA_TNIL) { lua_remove(L, cur); return; }
      lua_pop(L, 1);
      if (islazy(L, cur, name)) {
        lua_getfield(L, cur, name); /* loads the module; errors are caught by the caller */
        lua_remove(L, cur);
        return;
      }
    }
    if (!lua_getmetatable(L, cur)) break;
    lua_pushliteral(L, "__index");
    lua_rawget(L, -2);
    lua_remove(L, -2);
    lua_remove(L, cur);
    if (lua_type(L, -1) != LUA_TTABLE) break;
  }
  lua_pop(L, 1);
  lua_pushnil(L);
}

/* -- candidates(word) -> {full completions} (run protected: a lazy load may fail) */
/* Return the candidate set at index out. */
static int done(lua_State *L, int out) {
  lua_pushvalue(L, out);
  return 1;
}

static int candidates(lua_State *L) {
  const char *word = luaL_checkstring(L, 1);
  lua_newtable(L);
  int out = lua_gettop(L);
  const char *last = NULL; /* last separator */
  for (const char *p = word; *p; p++)
    if (*p == '.' || *p == ':') last = p;
  if (last == NULL) {
    for (int i = 0; keywords[i]; i++)
      offer(L, out, "", keywords[i], strlen(keywords[i]), word, strlen(word));
    lua_pushglobaltable(L);
    fields(L, out, "", word, 0);
    return done(L, out);
  }
  for (const char *p = word; p < last; p++)
    if (*p == ':') return done(L, out); /* a method call can only be the last step */
  lua_pushglobaltable(L);
  const char *seg = word;
  while (seg <= last) {
    const char *end = seg;
    while (*end != '.' && *end != ':') end++;
    if (!isname(seg, (size_t)(end - seg))) return done(L, out);
    lua_pushlstring(L, seg, (size_t)(end - seg));
    getfield(L, -2, lua_tostring(L, -1));
    lua_remove(L, -2); /* the name */
    lua_remove(L, -2); /* the parent */
    if (lua_isnil(L, -1)) return done(L, out);
    seg = end + 1;
  }
  lua_pushlstring(L, word, (size_t)(last - word) + 1); /* head includes the separator */
  lua_insert(L, -2);
  const char *head = lua_tostring(L, -2);
  fields(L, out, head, last + 1, *last == ':');
  return done(L, out);
}

/* The sorted matches of the protected candidates() call; readline frees them. */
static char **matches(const char *text) {
  lua_State *L = CL;
  int top = lua_gettop(L);
  lua_pushcfunction(L, candidates);
  lua_pushstring(L, text);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
    lua_settop(L, top);
    return NULL;
  }
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) { n++; lua_pop(L, 1); }
  if (n == 0) { lua_settop(L, top); return NULL; }
  char **m = calloc(n + 2, sizeof *m);
  if (m == NULL) { lua_settop(L, top); return NULL; }
  size_t i = 1;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    m[i++] = strdup(lua_tostring(L, -2));
    lua_pop(L, 1);
  }
  lua_settop(L, top);
  /* m[0] is the longest common prefix, as rl_completion_matches makes it */
  size_t lcp = strlen(m[1]);
  for (size_t k = 2; k <= n; k++) {
    size_t j = 0;
    while (j < lcp && m[k][j] == m[1][j]) j++;
    lcp = j;
  }
  m[0] = strndup(m[1], lcp);
  return m;
}

/* qsort order of C strings. */
static int cmpstr(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* readline's attempted-completion function: text is the word before the cursor (a name
** chain, since `.` and `:` do not break words); returns malloc'd matches or NULL. */
static char **complete(const char *text, int start, int end) {
  (void)start; (void)end;
  rl_attempted_completion_over = 1; /* never fall back to file names */
  rl_completion_append_character = '\0'; /* reset by readline before each completion */
  rl_completion_suppress_append = 1;
  char **m = matches(text);
  if (m != NULL) {
    size_t n = 0;
    while (m[n + 1]) n++;
    qsort(m + 1, n, sizeof *m, cmpstr);
  }
  return m;
}

#ifndef DLB_READLINE_LIBEDIT
/* List the matches by their last name only (`version`, not `dlb.version`). */
static void display(char **m, int num, int max) {
  char **shown = calloc((size_t)num + 2, sizeof *shown);
  if (shown == NULL) { rl_display_match_list(m, num, max); return; }
  size_t cut = 0;
  for (const char *p = m[1]; *p; p++)
    if (*p == '.' || *p == ':') cut = (size_t)(p - m[1]) + 1;
  shown[0] = m[0];
  for (int i = 1; i <= num; i++) shown[i] = m[i] + cut;
  rl_display_match_list(shown, num, max - (int)cut);
  free(shown);
  rl_forced_update_display();
}
#endif

/* Complete in L from now on (the REPL's state; readline holds no Lua references). */
void host_complete_init(lua_State *L) {
  CL = L;
  rl_attempted_completion_function = complete;
  rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{}()[],+-*/%^#~";
  rl_completer_word_break_characters = (char *)rl_basic_word_break_characters;
#ifndef DLB_READLINE_LIBEDIT
  rl_completion_display_matches_hook = display; /* libedit lists matches its own way */
#endif
}
#endif
