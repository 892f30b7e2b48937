/*
** kernel.c — `dlbench kernel REQFD MSGFD`: the Lua side of the Jupyter kernel. The kernel Jupyter
** starts is host/jupyter/dlbench_kernel.py (an ipykernel wrapper kernel, which speaks the
** Jupyter protocol); it starts this process and talks to it over pipes:
**   requests on REQFD:   "<op> <len>\n" and len bytes (ops: execute, complete, inspect)
**   messages on MSGFD:   "<len>\n" and len bytes of JSON, written by lua/dlbench/kernel.lua;
**                        each request ends with a message holding "done"
**   stdout, stderr:      the cells' own output (print, help, a sweep's summary), forwarded
**                        by the wrapper as stream output; flushed before every message.
** stdin is /dev/null: io.read() in a cell reads nothing. Every request runs through host_docall, so Ctrl-C (SIGINT, which the wrapper forwards on
** a Jupyter interrupt) stops a running cell as in the REPL and cannot be swallowed by a
** pcall; the state persists from cell to cell. An error (or an interrupt) is turned into an
** error message by kernel.lua's on_error, called afresh once the hook is gone.
*/
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>

#include "host.h"

static int replyfd = -1; /* the pipes to and from the wrapper: `dlbench kernel REQFD MSGFD` */
static int reqfd = -1;

/* Write all of buf to fd (EINTR retried); 0 on success. */
static int writeall(int fd, const char *buf, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

/* -- send(json) writes one message frame to the wrapper (stdout and stderr flushed first,
** so the cell's output precedes it). Raises when the wrapper is gone. */
static int ksend(lua_State *L) {
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  fflush(stdout);
  fflush(stderr);
  char head[32];
  int h = snprintf(head, sizeof head, "%zu\n", n);
  if (writeall(replyfd, head, (size_t)h) != 0 || writeall(replyfd, s, n) != 0)
    return luaL_error(L, "kernel: the Jupyter wrapper is gone (write to its pipe failed)");
  return 0;
}

/* -- chdir(path) -> true | nil, message: change the working folder (the kernel's cd();
** a notebook runs in its own folder, a study from the repository's root). */
static int kchdir(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  if (chdir(path) != 0) {
    luaL_pushfail(L);
    lua_pushfstring(L, "cd %s: %s", path, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* Read exactly n bytes from the request pipe (EINTR retried: a Ctrl-C between cells is ignored);
** 0 on success, -1 at end of input or on error. */
static int readall(char *buf, size_t n) {
  while (n > 0) {
    ssize_t r = read(reqfd, buf, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    buf += r;
    n -= (size_t)r;
  }
  return 0;
}

/* The largest request body (a cell's code, a completion's text) the kernel takes: 64 MiB,
** the cap of the other texts dlbench reads whole (catalogues, the REPL history). */
#define KERNEL_MAXREQUEST ((size_t)64 << 20)

/* Read one request from the request pipe: a header "<op> <len>\n" (op a word of at most
** opsize - 1 bytes, len decimal digits only, at most KERNEL_MAXREQUEST; the header at most
** 63 bytes) and len bytes. Returns 0 with *body (malloc'd, NUL-terminated, len bytes) and
** *len set; 1 at the end of the input before a header; -1 on a malformed, oversized or cut
** request, with what was wrong in why (the stream is out of step then: no later request can
** be found). Before fuzz-long a length of "-1" wrapped malloc(len + 1) to malloc(0) and a
** huge one was allocated as claimed (tests/fuzz/fuzz_kernel.c). */
static int readrequest(char *op, size_t opsize, char **body, size_t *len, char *why, size_t whysize) {
  char line[64];
  size_t i = 0;
  *body = NULL;
  *len = 0;
  for (;;) {
    if (i + 1 >= sizeof line) {
      snprintf(why, whysize, "a header longer than %zu bytes", sizeof line - 2);
      return -1;
    }
    if (readall(line + i, 1) != 0) {
      if (i == 0) return 1; /* the wrapper closed the pipe between requests */
      snprintf(why, whysize, "the input ends inside a header");
      return -1;
    }
    if (line[i] == '\n') break;
    i++;
  }
  line[i] = '\0';
  if (memchr(line, '\0', i) != NULL) {
    snprintf(why, whysize, "a NUL byte in the header");
    return -1;
  }
  const char *sp = memchr(line, ' ', i);
  size_t oplen = sp ? (size_t)(sp - line) : 0;
  if (sp == NULL || oplen == 0 || oplen >= opsize) {
    snprintf(why, whysize, "a malformed header (expected \"<op> <length>\", an op of 1 to %zu bytes)",
             opsize - 1);
    return -1;
  }
  size_t n = 0;
  const char *d = sp + 1;
  if (*d == '\0') {
    snprintf(why, whysize, "a header without a length");
    return -1;
  }
  for (; *d; d++) {
    if (*d < '0' || *d > '9') {
      snprintf(why, whysize, "a length that is not decimal digits");
      return -1;
    }
    if (n > (KERNEL_MAXREQUEST - (size_t)(*d - '0')) / 10) {
      snprintf(why, whysize, "a request of more than %zu bytes", KERNEL_MAXREQUEST);
      return -1;
    }
    n = n * 10 + (size_t)(*d - '0');
  }
  char *buf = malloc(n + 1);
  if (buf == NULL) {
    snprintf(why, whysize, "out of memory for a request of %zu bytes", n);
    return -1;
  }
  if (readall(buf, n) != 0) {
    free(buf);
    snprintf(why, whysize, "the input ends inside a request of %zu bytes", n);
    return -1;
  }
  buf[n] = '\0';
  memcpy(op, line, oplen);
  op[oplen] = '\0';
  *body = buf;
  *len = n;
  return 0;
}

/* Call require("dlbench.kernel")[fname] with the values above it on the stack (nargs)
** through host_docall; returns the status (the error message left on top on failure). */
static int callkernel(lua_State *L, const char *fname, int nargs) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "dlbench.kernel");
  int status = lua_pcall(L, 1, 1, 0);
  if (status != LUA_OK) {
    lua_insert(L, -1 - nargs);
    lua_pop(L, nargs);
    return status;
  }
  lua_getfield(L, -1, fname);
  lua_remove(L, -2);
  lua_insert(L, -1 - nargs);
  return host_docall(L, nargs, 0);
}

/* The request loop: one docall per request until the request pipe ends. */
/* A descriptor number from the command line, or -1. */
static int fdarg(const char *s) {
  char *end;
  long n = s ? strtol(s, &end, 10) : -1;
  return (s == NULL || *s == '\0' || *end != '\0' || n < 0 || n > 65535) ? -1 : (int)n;
}

int host_kernel(lua_State *L, const char *req, const char *msg) {
  reqfd = fdarg(req);
  replyfd = fdarg(msg);
  if (reqfd < 0 || replyfd < 0 || write(replyfd, "", 0) < 0) {
    fprintf(stderr, "dlbench kernel: needs the descriptors of its two pipes (dlbench kernel "
                    "REQFD MSGFD); Jupyter starts it through host/jupyter/dlbench_kernel.py\n");
    return EXIT_FAILURE;
  }
  signal(SIGPIPE, SIG_IGN);
  host_interrupt_install(1); /* the wrapper may have started us with SIGINT ignored */
  setvbuf(stdout, NULL, _IOLBF, 0); /* a long cell's prints arrive as they are made */
  lua_register(L, "kernel_send", ksend); /* both moved into dlbench.kernel at its load */
  lua_register(L, "kernel_chdir", kchdir);
  char op[32], why[128];
  size_t len;
  char *buf;
  for (long nreq = 1;; nreq++) {
    int r = readrequest(op, sizeof op, &buf, &len, why, sizeof why);
    if (r == 1) break;
    if (r != 0) {
      fprintf(stderr, "dlbench kernel: request %ld: %s; stopping\n", nreq, why);
      return EXIT_FAILURE;
    }
    lua_pushstring(L, op);
    lua_pushlstring(L, buf, len);
    free(buf);
    int status = callkernel(L, "handle", 2);
    if (status != LUA_OK) {
      int interrupted = host_interrupted();
      /* [msg] -> on_error(msg, interrupted), which sends the error and "done" */
      lua_pushboolean(L, interrupted);
      status = callkernel(L, "on_error", 2);
      if (status != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        fprintf(stderr, "dlbench kernel: %s\n", m ? m : "(error in the error handler)");
        lua_pop(L, 1);
        static const char done[] = "{\"type\":\"done\",\"status\":\"error\"}";
        char head[32];
        int h = snprintf(head, sizeof head, "%zu\n", sizeof done - 1);
        fflush(stdout);
        fflush(stderr);
        if (writeall(replyfd, head, (size_t)h) != 0 || writeall(replyfd, done, sizeof done - 1) != 0)
          break;
      }
    }
    lua_settop(L, 0);
  }
  return EXIT_SUCCESS;
}
