/*
** history.c — the REPL's history file. Each entry is a whole chunk (a multi-line function
** is one entry, recalled whole); in the file an entry is one line with `\` written `\\`
** and newlines written `\n`. Entries are appended as they are entered, so a crash or
** os.exit() loses nothing; the file is cut to the newest MAXENTRIES entries when it is
** loaded and when a long session has doubled it (rewritten whole through dlb_file_write).
** An entry is appended with one write(2), its bytes cut off again when it did not land
** whole (a full disk, the file size limit); a torn last line found at load (a crash) is
** dropped and the file rewritten.
** $DLBENCH_HISTORY names the file (default ~/.dlbench_history); an empty value disables it.
** A history that is not a regular file (a FIFO, /dev/full, /dev/zero) or is over
** MAXBYTES is not used: a warning, and the session runs without one.
*/
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lineedit.h"

#include "dlbench.h"
#include "host.h"

#if !DLB_HAVE_RL
/* Built without a line editor (--readline=none): lines cannot be recalled, so no file. */
const char *host_history_file(void) { return NULL; }
void host_history_load(void) {}
void host_history_add(const char *chunk) { (void)chunk; }
#else
#define MAXENTRIES 1000
#define MAXBYTES (64u << 20)

static char path[PATH_MAX];
static int enabled = 0;
static int filelines = 0; /* entries in the file, to know when to cut it */
static int warned = 0;

/* The file in use (static storage), or NULL when disabled. */
const char *host_history_file(void) {
  return enabled ? path : NULL;
}

/* Say once on stderr that the file cannot be used (host code may print). */
static void warnmsg(const char *what, const char *why) {
  if (warned) return;
  warned = 1;
  fprintf(stderr, "dlbench: cannot %s history file %s: %s (history not saved)\n", what,
          path, why);
}

static void warn(const char *what) {
  warnmsg(what, strerror(errno));
}

/* Open for appending, creating the file readable by its owner only (history can hold
** anything typed); only a regular file (a FIFO must not block the prompt). A descriptor,
** or -1 with errno set. */
static int openappend(const char *name) {
  int fd = open(name, O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
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
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f == NULL) { warn("write"); return; }
  int ok = 1;
  HIST_ENTRY **list = history_list();
  int n = 0;
  for (int i = 0; list && list[i]; i++, n++)
    if (putentry(f, list[i]->line) != 0) ok = 0;
  if (fclose(f) != 0) ok = 0;
  /* the one writer (graphs/base/file.c): temporary file, fsync, rename; the mode is kept */
  if (!ok) warn("write");
  else if (dlb_file_write(path, text, len) != DLB_OK) warnmsg("write", dlb_last_error());
  else filelines = n;
  free(text);
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
  char *text;
  size_t len;
  int st = dlb_file_read(path, MAXBYTES, &text, &len);
  if (st == DLB_ENOTFOUND) return; /* not there yet */
  if (st != DLB_OK) {
    /* a FIFO, /dev/full, a huge file: not ours to append to */
    warnmsg("use", dlb_last_error());
    enabled = 0;
    return;
  }
  int torn = 0;
  for (char *line = text, *end = text + len; line < end;) {
    char *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl) { torn = 1; break; } /* a last entry without its newline: cut short, dropped */
    *nl = '\0';
    unescape(line); /* stops at the NUL; an entry with a NUL byte is cut there */
    if (*line) add_history(line);
    filelines++;
    line = nl + 1;
  }
  dlb_file_free(text);
  /* a torn entry goes (the next one would be glued to it); a long file is cut */
  if (torn || filelines > MAXENTRIES) rewrite();
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
  /* the entry whole, then one write(2): on a full disk or past the file size limit the
  ** bytes that did land are cut off again, so the file never holds a torn entry (which
  ** the next entry would be glued to) */
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (m == NULL) { warn("append to"); return; }
  int bad = putentry(m, chunk) != 0;
  if (fclose(m) != 0 || bad) { free(text); warn("append to"); return; }
  int fd = openappend(path);
  if (fd < 0) { free(text); warn("append to"); return; }
  size_t done = 0;
  int e = 0;
  while (done < len) { /* a short write is followed by one that says why (EFBIG, ENOSPC) */
    ssize_t w = write(fd, text + done, len - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) { e = w < 0 ? errno : EIO; break; }
    done += (size_t)w;
  }
  free(text);
  if (done != len) {
    /* O_APPEND: our bytes end at the offset: cut them (and anything another session
    ** appended in the instant since, a window of one system call) */
    off_t end = done > 0 ? lseek(fd, 0, SEEK_CUR) : -1;
    if (end >= (off_t)done && done > 0 && ftruncate(fd, end - (off_t)done) != 0) {
      /* left as it is: the load drops a torn last line */
    }
    close(fd);
    errno = e;
    warn("append to");
    return;
  }
  if (close(fd) != 0) { warn("append to"); return; }
  filelines++;
}
#endif
