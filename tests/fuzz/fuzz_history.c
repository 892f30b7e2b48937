/*
** fuzz_history.c — libFuzzer harness for the REPL's history file reader (host/history.c,
** host_history_load, with GNU readline's history list): the input is the file. What must
** hold: no crash, no sanitizer report, no leak; at most 1,000 entries are kept, none empty;
** every entry written back as the file holds it (putentry) reads back as itself (unescape);
** and a second load of the file as the first load left it (cut to the newest entries, a torn
** last line dropped) gives the same entries. The file is a real one in a folder of the
** harness (the reader takes regular files only; a rewrite renames a temporary beside it).
** Built and run by tests/fuzz/run.sh; seeds in tests/fuzz/corpus/history/.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fuzz-link: -lreadline */
#include "../../host/history.c"

static char file[PATH_MAX], dir[] = "/tmp/fuzz_history.XXXXXX";

static void cleanup(void) {
  unlink(file);
  rmdir(dir);
}

/* The entries of readline's history list, copied (n of them; free with drop). */
static char **entries(int *n) {
  HIST_ENTRY **list = history_list();
  int k = 0;
  while (list && list[k]) k++;
  char **out = malloc(sizeof *out * (size_t)(k + 1));
  if (!out) abort();
  for (int i = 0; i < k; i++)
    if (!(out[i] = strdup(list[i]->line))) abort();
  *n = k;
  return out;
}
static void drop(char **e, int n) {
  for (int i = 0; i < n; i++) free(e[i]);
  free(e);
}

/* A fresh load of the file: the reader's state as a new process has it. */
static void load(void) {
  clear_history();
  enabled = 0, filelines = 0, warned = 0;
  path[0] = '\0';
  host_history_load();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!file[0]) {
    if (!mkdtemp(dir)) abort();
    atexit(cleanup);
    snprintf(file, sizeof file, "%s/history", dir);
    if (setenv("DLBENCH_HISTORY", file, 1) != 0) abort();
  }
  FILE *f = fopen(file, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
  load();
  if (!enabled) abort(); /* a regular file under 64 MiB is always used */
  int n1, n2;
  char **e1 = entries(&n1);
  if (n1 > MAXENTRIES) abort();
  for (int i = 0; i < n1; i++) {
    if (!e1[i][0]) abort(); /* empty entries are not kept */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m || putentry(m, e1[i]) != 0 || fclose(m) != 0) abort();
    if (len == 0 || text[len - 1] != '\n') abort();
    text[len - 1] = '\0';
    if (memchr(text, '\n', len - 1)) abort(); /* one line in the file */
    unescape(text);
    if (strcmp(text, e1[i]) != 0) abort(); /* written back, read back: itself */
    free(text);
  }
  load(); /* the file as the first load left it */
  char **e2 = entries(&n2);
  if (n2 != n1) abort();
  for (int i = 0; i < n1; i++)
    if (strcmp(e1[i], e2[i]) != 0) abort();
  drop(e1, n1);
  drop(e2, n2);
  clear_history();
  return 0;
}
