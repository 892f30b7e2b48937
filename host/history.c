/*
** history.c — the REPL's history file. Each entry is a whole chunk (a multi-line function
** is one entry, recalled whole); in the file an entry is one line with `\` written `\\`
** and newlines written `\n`. Entries are appended as they are entered, so a crash or
** os.exit() loses nothing; the file is cut to the newest MAXENTRIES entries when it is
** loaded and when a long session has doubled it (rewritten whole: temporary file, rename).
** $DLBENCH_HISTORY names the file (default ~/.dlbench_history); an empty value disables it.
*/
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lineedit.h"

#include "host.h"

#if !DLB_HAVE_RL
/* Built without a line editor (--readline=none): lines cannot be recalled, so no file. */
const char *host_history_file(void) { return NULL; }
void host_history_load(void) {}
void host_history_add(const char *chunk) { (void)chunk; }
#else
#define MAXENTRIES 1000

static char path[PATH_MAX];
static int enabled = 0;
static int filelines = 0; /* entries in the file, to know when to cut it */
static int warned = 0;

/* The file in use (static storage), or NULL when disabled. */
const char *host_history_file(void) {
  return enabled ? path : NULL;
}

/* Say once on stderr that the file cannot be used (host code may print). */
static void warn(const char *what) {
  if (warned) return;
  warned = 1;
  fprintf(stderr, "dlbench: cannot %s history file %s: %s (history not saved)\n", what,
          path, strerror(errno));
}

/* Open for writing, creating the file readable by its owner only (history can hold
** anything typed). */
static FILE *openw(const char *name, int flags) {
  int fd = open(name, O_WRONLY | O_CREAT | flags, 0600);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, (flags & O_APPEND) ? "a" : "w");
  if (f == NULL) close(fd);
  return f;
}

/* Write one entry escaped on one line. */
static int putentry(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '\\') fputs("\\\\", f);
    else if (*s == '\n') fputs("\\n", f);
    else fputc(*s, f);
  }
  return fputc('\n', f) == EOF ? -1 : 0;
}

/* Undo putentry on a line (in place); drops the trailing newline. */
static void unescape(char *s) {
  char *w = s;
  for (char *r = s; *r && *r != '\n'; r++) {
    if (r[0] == '\\' && r[1] == 'n') { *w++ = '\n'; r++; }
    else if (r[0] == '\\' && r[1] == '\\') { *w++ = '\\'; r++; }
    else *w++ = *r;
  }
  *w = '\0';
}

/* Rewrite the file with readline's in-memory history (already stifled). */
static void rewrite(void) {
  char tmp[PATH_MAX + 16];
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  FILE *f = openw(tmp, O_TRUNC);
  if (f == NULL) { warn("write"); return; }
  int ok = 1;
  HIST_ENTRY **list = history_list();
  int n = 0;
  for (int i = 0; list && list[i]; i++, n++)
    if (putentry(f, list[i]->line) != 0) ok = 0;
  if (fclose(f) != 0) ok = 0;
  if (!ok || rename(tmp, path) != 0) {
    warn("write");
    remove(tmp);
    return;
  }
  filelines = n;
}

/* Choose the file from the environment and load its entries into readline's history. */
void host_history_load(void) {
  const char *env = getenv("DLBENCH_HISTORY");
  if (env != NULL) {
    if (*env == '\0') return; /* disabled */
    snprintf(path, sizeof path, "%s", env);
  } else {
    const char *home = getenv("HOME");
    if (home == NULL || *home == '\0') return;
    snprintf(path, sizeof path, "%s/.dlbench_history", home);
  }
  enabled = 1;
  stifle_history(MAXENTRIES);
  FILE *f = fopen(path, "r");
  if (f == NULL) return; /* not there yet */
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, f) != -1) {
    unescape(line);
    if (*line) add_history(line);
    filelines++;
  }
  free(line);
  fclose(f);
  if (filelines > MAXENTRIES) rewrite();
}

/* Add a whole chunk to the history and append it to the file (no empty or repeated
** entries). */
void host_history_add(const char *chunk) {
  if (chunk == NULL || *chunk == '\0') return;
  HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1)
                                        : NULL;
  if (last && strcmp(last->line, chunk) == 0) return; /* no repeats */
  add_history(chunk);
  if (!enabled) return;
  if (filelines >= 2 * MAXENTRIES) {
    rewrite();
    return;
  }
  FILE *f = openw(path, O_APPEND);
  if (f == NULL) { warn("append to"); return; }
  int bad = putentry(f, chunk) != 0;
  if (fclose(f) != 0 || bad) { warn("append to"); return; }
  filelines++;
}
#endif
