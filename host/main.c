/*
** main.c — the dlbench executable: command line, batch runner, entry to the REPL.
**
**   dlbench                 REPL on a terminal; otherwise run the script read from stdin
**   dlbench - [ARGS]        run the script read from stdin (also `run - [ARGS]`)
**   dlbench run FILE [ARGS] run a study script (arg and ... set as the lua standalone does)
**   dlbench info FILE [b=N] one screen about a model.onnx or config.json (dlb.models.info)
**   dlbench plan MODEL ...  the best parallel layout, time, energy, cost (dlbench.cli_plan)
**   dlbench sweep submit|merge|status|task ...  sweeps on Slurm (dlbench.sweep_slurm)
**   dlbench kernel R M      the Jupyter kernel's Lua side (host/kernel.c, host/jupyter/)
**   dlbench -e CODE         run a chunk
**   dlbench measure [...]   measure this host (dlb.measure.cli)
**   dlbench --version | --help
*/
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "dlbench.h"
#include "host.h"

static const char *progname = "dlbench";

/* The --help text. */
static void usage(FILE *out) {
  fprintf(out,
    "usage: %s [command]\n"
    "  (none)              interactive REPL on a terminal; runs stdin otherwise\n"
    "  run FILE [ARGS...]  run a study script; ARGS are in arg[1..] and ...\n"
    "  info FILE [b=N...]  parameters, FLOPs, footprint, ops of a model.onnx or config.json\n"
    "                      [--hw DEVICE] [--precision P] [--framework F]\n"
    "  plan MODEL --hw DEVICE --gpus N [--tokens T] [--json] ...\n"
    "                      best layout, step time, MFU, memory, time/energy/cost (plan --help)\n"
    "  sweep submit STUDY --shards N [sbatch options]   a sweep as a Slurm job array\n"
    "  sweep merge DIR [-o FILE] [--allow-partial] [--label L]  join the shards' checkpoints\n"
    "  sweep status DIR    which shards are done, running, stopped or missing\n"
    "  sweep requeue DIR [SHARD...]  requeue stopped shards, re-arm the merge job\n"
    "  -e CODE [ARGS...]   run CODE (a Lua chunk; ARGS in arg[1..] and ...) and exit\n"
    "  measure [OPTIONS]   measure this host's roofline (measure --help)\n"
    "  - [ARGS...]         run the script read from stdin (also: run - [ARGS...])\n"
    "  --version           print dlbench, Lua and library ABI versions\n"
    "  --help, -h          print this message\n"
    "started by other programs:\n"
    "  kernel REQFD MSGFD  the Jupyter kernel's Lua side (host/jupyter/dlbench_kernel.py)\n"
    "  sweep task STUDY [ARGS...]  one task of a `sweep submit` job array (its task.sh)\n"
    "environment: DLBENCH_HISTORY (REPL history file, empty to disable),\n"
    "             DLBENCH_LUA_DIR (where dlbench/init.lua lives)\n", progname);
}

/* Build the global `arg` table as lua.c does: arg[0] = script, arg[1..] = script args,
** negative indices for what came before. */
static void createargtable(lua_State *L, char **argv, int argc, int script) {
  lua_createtable(L, argc - script - 1, script + 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

/* Run the chunk on top of the stack with arg[1..] as varargs. Exit status 1 on an error,
** 130 when Ctrl-C interrupted it (the state is still closed, so open files are flushed). */
static int runchunk(lua_State *L, int status, int nargs_from, char **argv, int argc) {
  if (status == LUA_OK) {
    int n = 0;
    for (int i = nargs_from; i < argc; i++, n++) lua_pushstring(L, argv[i]);
    status = host_docall(L, n, 0);
  }
  if (status == LUA_OK) return EXIT_SUCCESS;
  host_report(L, status);
  if (!host_interrupted()) return EXIT_FAILURE;
  int sig = host_interrupt_signal();
  return 128 + (sig ? sig : SIGINT); /* 130 after Ctrl-C, as shells report it */
}

/* A syntax error of a script with a line that is an expression alone (the docs' REPL
** examples, `g:stats{}.params`): dlbench.errors.bare_expression's hint appended to the
** message on top of the stack; nothing when it finds none or cannot run. */
static void bare_expression_hint(lua_State *L, const char *file) {
  int top = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "dlbench.errors");
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
    lua_getfield(L, -1, "bare_expression");
    lua_pushstring(L, file);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
      lua_pushvalue(L, top);
      lua_insert(L, -2);
      lua_concat(L, 2);
      lua_replace(L, top);
    }
  }
  lua_settop(L, top);
}

/* Run a script file (NULL: stdin) with the arg table; a missing file is a one-line error. */
static int runfile(lua_State *L, const char *file, char **argv, int argc, int script) {
  createargtable(L, argv, argc, script);
  if (file != NULL) {
    FILE *f = fopen(file, "r");
    if (f == NULL) { /* say why: missing, or no permission */
      fprintf(stderr, "%s: cannot open %s: %s\n", progname, file, strerror(errno));
      return EXIT_FAILURE;
    }
    fclose(f);
  }
  int status = luaL_loadfile(L, file); /* NULL reads stdin */
  if (status == LUA_ERRSYNTAX && file != NULL) bare_expression_hint(L, file);
  return runchunk(L, status, script + 1, argv, argc);
}

/* DLBENCH_EXE: this executable's absolute path, for the batch scripts `dlbench sweep
** submit` writes (unless already set). */
static void exe_env(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = '\0';
  setenv("DLBENCH_EXE", exe, 0);
}

/* `dlbench sweep task STUDY [ARGS]`: what each task of a `dlbench sweep submit` job array
** runs (the batch script execs it, so Slurm's signals reach it). SIGUSR1 (sent by Slurm
** before the time limit, --signal=B:USR1@T) and SIGTERM (pre-emption, scancel) stop the
** sweep as Ctrl-C does, so its checkpoint is closed holding every finished row; after
** SIGUSR1 the task asks Slurm to requeue it (dlbench.sweep_slurm.requeue_self), and the
** requeued task resumes from its checkpoint. */
static int sweep_task(lua_State *L, int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "%s: sweep task needs a study script (dlbench sweep task STUDY [ARGS...])\n",
            progname);
    return EXIT_FAILURE;
  }
  host_interrupt_install(1);
  host_interrupt_also(SIGUSR1);
  host_interrupt_also(SIGTERM);
  int rc = runfile(L, argv[3], argv, argc, 3);
  if (rc == 128 + SIGUSR1) {
    const char *chunk = "require('dlbench.sweep_slurm').requeue_self()";
    int status = luaL_loadbuffer(L, chunk, strlen(chunk), "=dlbench sweep task");
    if (status == LUA_OK) status = host_docall(L, 0, 0);
    if (status != LUA_OK) host_report(L, status);
  }
  return rc;
}

/* At exit (atexit, so os.exit and the CLI's exits pass here too): output on stdout that
** could not be written is an error, as coreutils' close_stdout makes it: `dlbench plan
** --json > full-disk` exited 0 with its answer lost. A message and status 1 (_exit: the
** other handlers have nothing left to save). Nothing pending, nothing said. */
static void check_stdout(void) {
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return;
  int e = errno;
  if (e) fprintf(stderr, "%s: cannot write standard output: %s\n", progname, strerror(e));
  else fprintf(stderr, "%s: cannot write standard output\n", progname);
  _exit(EXIT_FAILURE);
}

int main(int argc, char **argv) {
  atexit(check_stdout);
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return EXIT_SUCCESS;
  }
  if (argc > 1 && !strcmp(argv[1], "--version")) {
    printf("dlbench %s (%s, libdlbench ABI %d)\n", dlb_version(), LUA_RELEASE,
           dlb_abi_version());
    return EXIT_SUCCESS;
  }
  lua_State *L = host_newstate(argv[0]);
  if (L == NULL) return EXIT_FAILURE;
  host_interrupt_install(0);
  int rc;
  if (argc == 1 || !strcmp(argv[1], "-")) { /* `dlbench - ARGS...`: stdin, as lua.c's `-` */
    if (argc == 1 && isatty(STDIN_FILENO)) {
      createargtable(L, argv, argc, 0);
      fprintf(stdout, "dlbench %s (%s)  help() for help, exit or Ctrl-D to leave\n",
              dlb_version(), LUA_RELEASE);
      rc = host_repl(L);
    } else {
      rc = runfile(L, NULL, argv, argc, argc == 1 ? 0 : 1);
    }
  } else if (!strcmp(argv[1], "run")) {
    if (argc < 3) {
      fprintf(stderr, "%s: run needs a script file (dlbench run FILE [ARGS...])\n", progname);
      rc = 2; /* a usage error (docs/cli.md) */
    } else { /* `run -` reads the script from stdin */
      rc = runfile(L, strcmp(argv[2], "-") ? argv[2] : NULL, argv, argc, 2);
    }
  } else if (!strcmp(argv[1], "measure")) { /* dlb.measure.cli, one-line errors: docs/measure.md */
    createargtable(L, argv, argc, 1);
    const char *chunk = "require('dlbench.cli_plan').measure(arg)";
    rc = runchunk(L, luaL_loadbuffer(L, chunk, strlen(chunk), "=dlbench measure"), argc, argv, argc);
  } else if (!strcmp(argv[1], "info")) { /* the model importers' screen (docs/import.md) */
    createargtable(L, argv, argc, 1);
    int status = luaL_loadstring(L, "require('dlbench.cli_plan').info({...})");
    rc = runchunk(L, status, 2, argv, argc);
  } else if (!strcmp(argv[1], "plan")) { /* one command from a model to a plan (docs/cli.md) */
    createargtable(L, argv, argc, 1);
    int status = luaL_loadstring(L, "require('dlbench.cli_plan').plan({...})");
    rc = runchunk(L, status, 2, argv, argc);
  } else if (!strcmp(argv[1], "sweep") && argc > 2 && !strcmp(argv[2], "task")) {
    exe_env();
    rc = sweep_task(L, argc, argv); /* a Slurm array task (docs/sweep.md) */
  } else if (!strcmp(argv[1], "sweep")) { /* submit, merge, status (docs/sweep.md) */
    exe_env();
    createargtable(L, argv, argc, 1);
    int status = luaL_loadstring(L, "require('dlbench.sweep_slurm').cli({...})");
    rc = runchunk(L, status, 2, argv, argc);
  } else if (!strcmp(argv[1], "kernel")) { /* the Jupyter kernel's Lua side (host/kernel.c) */
    rc = host_kernel(L, argc > 2 ? argv[2] : NULL, argc > 3 ? argv[3] : NULL);
  } else if (!strcmp(argv[1], "-e")) {
    if (argc < 3) {
      fprintf(stderr, "%s: -e needs a Lua chunk\n", progname);
      rc = 2; /* a usage error (docs/cli.md) */
    } else {
      createargtable(L, argv, argc, 2);
      int status = luaL_loadbuffer(L, argv[2], strlen(argv[2]), "=(command line)");
      rc = runchunk(L, status, 3, argv, argc);
    }
  } else {
    fprintf(stderr, "%s: unknown command '%s' (try --help)\n", progname, argv[1]);
    rc = 2; /* a usage error (docs/cli.md) */
  }
  host_closestate(L);
  return rc;
}
