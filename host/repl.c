/*
** repl.c — the interactive `dlbench>` loop, following Lua's lua.c: each chunk is tried
** first as `return <chunk>` so expressions print (`=expr` too), then as statements; a
** chunk whose syntax error ends at <eof> continues on the next line. Results go through
** dlbench.pretty (strings raw, tables pretty-printed); a trailing `;` suppresses printing;
** `_` holds the first result; a chunk's leading `local a = ...` declares session variables
** (session_local). Lines are read with readline's callback interface inside a
** pselect loop, so Ctrl-C at the prompt abandons the chunk being typed; Ctrl-D (an empty
** line) or `exit` leaves.
*/
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

#include "lineedit.h"

#include <lua.h>
#include <lauxlib.h>

#include "host.h"

#define PROMPT  "dlbench> "
#define PROMPT2 "    ...> "

enum { CHUNK_OK, CHUNK_EOF, CHUNK_EXIT, CHUNK_CANCEL };

/* ---- reading lines ------------------------------------------------------------------ */

static volatile sig_atomic_t winched = 0;

/* SIGWINCH: the line reader tells readline the new size. */
static void onwinch(int sig) {
  (void)sig;
  winched = 1;
}

#if DLB_HAVE_RL
static char *gotline;
static int gotit;

/* readline's line handler: keep the line (owned by the caller of getline_rl). */
static void online(char *line) {
  gotline = line;
  gotit = 1;
  rl_callback_handler_remove();
}

/* Read one line with the prompt: a malloc'd string, or NULL at end of input. Ctrl-C sets
** *cancel, clears the line and returns NULL. SIGINT is blocked except inside pselect, and
** a press still pending when input is ready is taken before that input (typed after it):
** pselect returns "ready" without delivering a pending signal. A press that came between
** two lines (after Enter, before the next prompt) cancels the next one. */
static char *getline_rl(const char *prompt, int *cancel) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGWINCH);
  sigprocmask(SIG_BLOCK, &block, &old);
  sigdelset(&old, SIGINT); /* the mask pselect waits with, and the one restored */
  sigdelset(&old, SIGWINCH);
  *cancel = 0;
  gotit = 0;
  gotline = NULL;
  int fd = fileno(rl_instream ? rl_instream : stdin);
  rl_callback_handler_install(prompt, online);
  while (!gotit) {
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(fd, &fds);
    int r = pselect(fd + 1, &fds, NULL, NULL, NULL, &old);
    if (r < 0 && errno != EINTR) { rl_callback_handler_remove(); break; }
    if (r > 0) {
      sigset_t pending;
      if (sigpending(&pending) == 0
          && (sigismember(&pending, SIGINT) || sigismember(&pending, SIGWINCH))) {
        sigprocmask(SIG_SETMASK, &old, NULL); /* run the handlers now */
        sigprocmask(SIG_BLOCK, &block, NULL);
      }
    }
    if (winched) { winched = 0; rl_resize_terminal(); }
    if (host_interrupt_prompt()) {
      rl_point = rl_end; /* print ^C after what was typed, then a fresh line */
      rl_redisplay();
      fputs("^C", rl_outstream ? rl_outstream : stdout);
      fflush(rl_outstream ? rl_outstream : stdout);
#ifndef DLB_READLINE_LIBEDIT
      rl_callback_sigcleanup(); /* libedit has no such call (and no state to clean) */
#endif
      rl_free_line_state();
      rl_callback_handler_remove(); /* restores the terminal (may return the cursor) */
      fputc('\n', stdout);
      fflush(stdout);
      *cancel = 1;
      break;
    }
    if (r > 0) rl_callback_read_char();
  }
  sigprocmask(SIG_SETMASK, &old, NULL); /* SIGINT open again while code runs */
  return gotline;
}
#else
/* Built without a line editor (--readline=none): the prompt, then bytes up to a newline,
** with the same Ctrl-C rule as above (SIGINT open only while waiting in pselect). */
static char *getline_rl(const char *prompt, int *cancel) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigprocmask(SIG_BLOCK, &block, &old);
  sigdelset(&old, SIGINT);
  *cancel = 0;
  fputs(prompt, stdout);
  fflush(stdout);
  size_t n = 0, cap = 128;
  char *line = malloc(cap);
  for (;;) {
    fd_set fds;
    FD_ZERO(&fds);
    FD_SET(STDIN_FILENO, &fds);
    int r = line ? pselect(STDIN_FILENO + 1, &fds, NULL, NULL, NULL, &old) : -1;
    if (host_interrupt_prompt()) {
      fputc('\n', stdout); /* the terminal's own line discipline echoed ^C */
      fflush(stdout);
      *cancel = 1;
      break;
    }
    if (r < 0 && (line == NULL || errno != EINTR)) break;
    if (r <= 0) continue;
    char c;
    ssize_t got = read(STDIN_FILENO, &c, 1);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      if (n > 0) { line[n] = '\0'; sigprocmask(SIG_SETMASK, &old, NULL); return line; }
      break; /* end of input */
    }
    if (c == '\n') { line[n] = '\0'; sigprocmask(SIG_SETMASK, &old, NULL); return line; }
    if (n + 2 > cap) {
      char *bigger = realloc(line, cap * 2);
      if (bigger == NULL) break;
      line = bigger;
      cap *= 2;
    }
    line[n++] = c;
  }
  free(line);
  sigprocmask(SIG_SETMASK, &old, NULL);
  return NULL;
}
#endif

/* ---- compiling chunks --------------------------------------------------------------- */

/* Is the syntax error on top of the stack an incomplete chunk (ends at <eof>)? */
static int incomplete(lua_State *L, int status) {
  if (status != LUA_ERRSYNTAX) return 0;
  size_t lmsg;
  const char *msg = lua_tolstring(L, -1, &lmsg);
  return lmsg >= 5 && strcmp(msg + lmsg - 5, "<eof>") == 0;
}

/* A chunk's top-level `local a, b = ...` lines (the documentation's examples) declare
** session variables: a local of one chunk would be gone on the next line (`local g = ...`
** then `g:stats{}` met a nil `g`), so they are compiled without the `local`, as global
** assignments. The rule is dlbench.errors.session_locals, the one the Jupyter kernel's cells
** follow too (`local function f`, `local x` without a value and attributes stay as typed).
** On top of the stack: the compiled statement chunk, replaced in place; left as it is when
** the rule changes nothing or cannot run. */
static void session_local(lua_State *L, const char *src, size_t len) {
  if (len < 7) return;
  int top = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "dlbench.errors");
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
    lua_getfield(L, -1, "session_locals");
    lua_pushlstring(L, src, len);
    size_t m;
    const char *p;
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && (p = lua_tolstring(L, -1, &m)) != NULL
        && (m != len || memcmp(p, src, len) != 0)
        && luaL_loadbuffer(L, p, m, "=stdin") == LUA_OK) {
      lua_replace(L, top); /* the new chunk over the old one */
    }
  }
  lua_settop(L, top);
}

/* Compile chunk: `return <chunk>` first (an expression), then as statements. A leading
** `=` forces an expression; a trailing `;` sets *quiet. Leaves the function (LUA_OK) or
** the error message; *more is set when the chunk is incomplete. */
static int compile(lua_State *L, const char *chunk, int *quiet, int *more) {
  size_t len = strlen(chunk);
  int expr = chunk[0] == '=';
  const char *src = expr ? chunk + 1 : chunk;
  len -= expr;
  size_t n = len;
  while (n > 0 && isspace((unsigned char)src[n - 1])) n--;
  *quiet = n > 0 && src[n - 1] == ';';
  *more = 0;
  lua_pushliteral(L, "return ");
  lua_pushlstring(L, src, *quiet ? n - 1 : n);
  lua_concat(L, 2);
  size_t rlen;
  const char *rsrc = lua_tolstring(L, -1, &rlen);
  int status = luaL_loadbuffer(L, rsrc, rlen, "=stdin");
  lua_remove(L, -2);
  if (status == LUA_OK) return status;
  int rmore = incomplete(L, status);
  if (expr) { *more = rmore; return status; }
  lua_pop(L, 1);
  status = luaL_loadbuffer(L, src, len, "=stdin");
  *more = status != LUA_OK && (rmore || incomplete(L, status));
  if (status == LUA_OK) session_local(L, src, len);
  return status;
}

/* Read a chunk (continuing while incomplete) and compile it: CHUNK_OK leaves the function
** or an error message (*status says which); CHUNK_EOF (Ctrl-D), CHUNK_EXIT (`exit`) and
** CHUNK_CANCEL (Ctrl-C) leave nothing. */
static int loadchunk(lua_State *L, int *status, int *quiet) {
  int cancel;
  char *line = getline_rl(PROMPT, &cancel);
  if (cancel) return CHUNK_CANCEL;
  if (line == NULL) return CHUNK_EOF;
  const char *s = line;
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  if (n == 4 && memcmp(s, "exit", 4) == 0) { free(line); return CHUNK_EXIT; }
  lua_pushstring(L, line);
  free(line);
  for (;;) {
    int more;
    *status = compile(L, lua_tostring(L, -1), quiet, &more);
    if (!more) break;
    lua_pop(L, 1); /* the incomplete message */
    char *next = getline_rl(PROMPT2, &cancel);
    if (cancel) {
      host_history_add(lua_tostring(L, -1));
      lua_pop(L, 1);
      return CHUNK_CANCEL;
    }
    if (next == NULL) { /* end of input inside a chunk: report it as incomplete */
      *status = compile(L, lua_tostring(L, -1), quiet, &more);
      break;
    }
    lua_pushliteral(L, "\n");
    lua_pushstring(L, next);
    free(next);
    lua_concat(L, 3);
  }
  host_history_add(lua_tostring(L, -2));
  lua_remove(L, -2);
  return CHUNK_OK;
}

/* ---- running and printing ----------------------------------------------------------- */

/* Print the error message on top of the stack (popped), without the program name. */
static void report(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
  fflush(stderr);
  lua_pop(L, 1);
}

/* Print the n values on top of the stack (popped) through dlbench.pretty; if the printer
** cannot load, fall back to tostring. */
static void printvalues(lua_State *L, int n) {
  int base = lua_gettop(L) - n;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "dlbench.pretty");
  int status = lua_pcall(L, 1, 1, 0);
  if (status == LUA_OK && lua_type(L, -1) == LUA_TTABLE) {
    lua_getfield(L, -1, "values");
    lua_remove(L, -2);
  }
  if (status != LUA_OK || lua_type(L, -1) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    for (int i = base + 1; i <= base + n; i++) {
      if (i > base + 1) fputc('\t', stdout);
      fputs(luaL_tolstring(L, i, NULL), stdout);
      lua_pop(L, 1);
    }
    fputc('\n', stdout);
    fflush(stdout);
    lua_settop(L, base);
    return;
  }
  lua_insert(L, base + 1);
  status = host_docall(L, n, 1);
  if (status == LUA_OK) {
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    if (s != NULL) {
      fwrite(s, 1, len, stdout);
      fputc('\n', stdout);
      fflush(stdout);
    }
    lua_pop(L, 1);
  } else {
    report(L);
  }
  lua_settop(L, base);
}

/* Before a chunk runs: dlbench.pretty forgets the value a function marked as already
** printed (dlbench.pretty.shown), so only the chunk that printed it skips the echo. Does
** nothing when the module is not loaded. */
static void forget_shown(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "dlbench.pretty");
  if (lua_type(L, -1) == LUA_TTABLE) {
    lua_getfield(L, -1, "forget");
    if (lua_type(L, -1) == LUA_TFUNCTION) { if (lua_pcall(L, 0, 0, 0) != LUA_OK) lua_pop(L, 1); }
    else lua_pop(L, 1);
  }
  lua_pop(L, 2);
}

/* The loop: read, compile, run, print, until Ctrl-D or `exit`. */
int host_repl(lua_State *L) {
#if DLB_HAVE_RL
  rl_readline_name = "dlbench";
  rl_catch_signals = 0; /* Ctrl-C is ours (interrupt.c); readline must not take it */
  rl_catch_sigwinch = 0;
#endif
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onwinch;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGWINCH, &sa, NULL);
  host_interrupt_install(1);
  host_complete_init(L);
  host_history_load();
  for (;;) {
    lua_settop(L, 0);
    int status, quiet;
    int what = loadchunk(L, &status, &quiet);
    if (what == CHUNK_EXIT) return EXIT_SUCCESS;
    if (what == CHUNK_EOF) break;
    if (what == CHUNK_CANCEL) continue;
    if (status == LUA_OK) {
      forget_shown(L);
      status = host_docall(L, 0, LUA_MULTRET);
    }
    if (status != LUA_OK) {
      report(L);
      continue;
    }
    int n = lua_gettop(L);
    if (n > 0) {
      lua_pushvalue(L, 1);
      lua_setglobal(L, "_");
      if (!quiet) printvalues(L, n);
    }
  }
  lua_settop(L, 0);
  fputc('\n', stdout); /* Ctrl-D leaves the cursor after the prompt */
  fflush(stdout);
  return EXIT_SUCCESS;
}
