/*
** host.h — the dlbench executable's shared pieces: the interpreter setup, running chunks
** with tracebacks, and the REPL.
*/
#ifndef HOST_H
#define HOST_H

#include <lua.h>

/* Create a Lua state with the standard libraries, package.path pointing at dlbench's
** Lua library, `dlbench.core` preloaded and the global `dlb`; NULL (message on stderr)
** on failure. argv0 locates the Lua library relative to the executable. */
lua_State *host_newstate(const char *argv0);
/* Close a state made by host_newstate (restores the library's default allocator first). */
void host_closestate(lua_State *L);

/* Call the function on top of the stack (below it, narg arguments) with a message
** handler that appends a traceback; like lua.c's docall. Returns the lua_pcall status. */
int host_docall(lua_State *L, int narg, int nres);

/* Did Ctrl-C interrupt the last host_docall? */
int host_interrupted(void);

/* Print the error message on top of the stack to stderr with the program name; pops it. */
void host_report(lua_State *L, int status);

/* interrupt.c: Ctrl-C. Install the SIGINT handler (unless force, returns 0 when SIGINT
** was inherited ignored and stays so); arm before running Lua code of L, disarm after (returns 1 when
** the code was interrupted); host_interrupt_prompt reports (and clears) a Ctrl-C pressed
** while no Lua code ran. */
int host_interrupt_install(int force);
void host_interrupt_arm(lua_State *L);
int host_interrupt_disarm(lua_State *L);
int host_interrupt_prompt(void);
/* Make sig interrupt running code as Ctrl-C does (Slurm's SIGUSR1 and SIGTERM), and which
** signal interrupted the last interrupted call (0: none). */
void host_interrupt_also(int sig);
int host_interrupt_signal(void);

/* kernel.c: `dlbench kernel REQFD MSGFD`, the Lua side of the Jupyter kernel
** (host/jupyter/): requests on descriptor req, messages on msg (numbers as strings).
** Returns the exit status. */
int host_kernel(lua_State *L, const char *req, const char *msg);

/* history.c: the REPL history file ($DLBENCH_HISTORY, default ~/.dlbench_history; empty
** disables). host_history_load reads it into readline's history; host_history_add adds a
** whole chunk (multi-line chunks are one entry) and appends it to the file. */
void host_history_load(void);
void host_history_add(const char *chunk);
/* The history file in use, or NULL when disabled. */
const char *host_history_file(void);

/* complete.c: tab completion of globals, tbl.field and obj:method chains in L. */
void host_complete_init(lua_State *L);

/* repl.c: the interactive loop (stdin a terminal). Returns the process exit status. */
int host_repl(lua_State *L);

/* Directory holding dlbench/init.lua, as found by host_newstate; static storage. */
const char *host_luadir(void);

#endif
