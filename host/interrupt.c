/*
** interrupt.c — Ctrl-C (SIGINT) for the host. While Lua code runs, Ctrl-C installs a
** count hook that raises "interrupted!" on every hook call until the host takes control
** back (host_interrupt_disarm), as Redis does to kill a script: a user pcall can catch one
** raise but the next instruction raises again, so the error reaches the host's docall with
** its traceback. While no Lua code runs (the REPL prompt), Ctrl-C only sets a flag that the
** line reader polls. Three presses that the hook has not delivered (code stuck in a long C
** call) restore the default action, so a fourth ends the process. Ctrl-C also sets the
** library's interruption flag (dlb_interrupt), which long C loops (polynomial expansion)
** check, so they return "interrupted!" instead of running on for minutes.
** No hook is installed until Ctrl-C: a hook, even a no-op count hook, sends every VM
** instruction through the slow path (measured: a plain loop runs 1.8x slower). The cost is
** that a loop inside a coroutine stops only when the coroutine yields or returns (hooks
** are per thread, and the handler reaches the main thread only), as in lua.c.
*/
#include <signal.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "dlbench.h"
#include "host.h"

static lua_State *volatile running = NULL; /* the state whose code runs, or NULL */
static volatile sig_atomic_t interrupted = 0;  /* Ctrl-C while `running` was set */
static volatile sig_atomic_t undelivered = 0;  /* presses the hook has not seen yet */
static volatile sig_atomic_t prompt_sigint = 0; /* Ctrl-C while no Lua code runs */
static int installed = 0;
static volatile sig_atomic_t lastsig = 0;      /* the signal that interrupted the code */

/* The sticky hook: raises on every call until disarmed (disarming removes it). */
static void stophook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  undelivered = 0;
  luaL_where(L, 0); /* level 0 in a hook: the interrupted function, so file:line */
  lua_pushliteral(L, "interrupted!");
  lua_concat(L, 2);
  lua_error(L);
}

/* SIGINT handler: lua_sethook is safe to call from a signal handler (see lua.c). */
static void onsigint(int sig) {
  lua_State *L = running;
  if (L == NULL) {
    prompt_sigint = 1;
    return;
  }
  interrupted = 1;
  lastsig = sig;
  dlb_interrupt(1); /* a long C call (polynomial expansion) stops too */
  if (++undelivered >= 3) {
    signal(sig, SIG_DFL); /* stuck in C: the next Ctrl-C ends the process */
    undelivered = 0;
  }
  lua_sethook(L, stophook, LUA_MASKCOUNT, 1);
}

/* Install the SIGINT handler once (no SA_RESTART, so a blocking read returns EINTR).
** Unless force, returns 0 when SIGINT was ignored by whoever started us (a background
** job in a script): we keep ignoring it, as shells expect. */
int host_interrupt_install(int force) {
  if (installed > 0 || (installed < 0 && !force)) return installed > 0;
  struct sigaction old;
  if (!force && sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
    installed = -1;
    return 0;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onsigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, NULL);
  installed = 1;
  return 1;
}

/* Make signal sig (SIGUSR1, SIGTERM) interrupt running Lua code as Ctrl-C does: a Slurm
** task told that its time limit is near, or pre-empted, stops its sweep at a row and
** closes its checkpoint (dlbench sweep task). While no Lua code runs it only sets the
** prompt flag, as SIGINT. */
void host_interrupt_also(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onsigint;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

/* The signal that interrupted the last interrupted call (SIGINT for Ctrl-C), 0 if none. */
int host_interrupt_signal(void) {
  return lastsig;
}

/* Lua code of L is about to run: Ctrl-C now interrupts it (no hook until then). */
void host_interrupt_arm(lua_State *L) {
  dlb_interrupt(0);
  lastsig = 0;
  interrupted = 0;
  undelivered = 0;
  running = L;
}

/* Control is back in the host: remove the hook; returns 1 when Ctrl-C interrupted the
** code since host_interrupt_arm. */
int host_interrupt_disarm(lua_State *L) {
  running = NULL;
  lua_sethook(L, NULL, 0, 0);
  dlb_interrupt(0);
  int was = interrupted;
  interrupted = 0;
  undelivered = 0;
  if (installed > 0) { /* a third press may have reset the action */
    struct sigaction cur;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL) {
      installed = 0;
      host_interrupt_install(1);
    }
  }
  return was;
}

/* Was Ctrl-C pressed while no Lua code ran? Clears the flag. */
int host_interrupt_prompt(void) {
  int was = prompt_sigint;
  prompt_sigint = 0;
  return was;
}
