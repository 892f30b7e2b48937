/*
** term.c — the terminal a sweep's progress line and the pretty-printer's tables are drawn
** on (libdlbench_proc). POSIX.
*/
#include <sys/ioctl.h>
#include <unistd.h>

#include "proc_internal.h"

/* 1 when fd is a terminal. */
int dlb_proc_isatty(int fd) {
  return isatty(fd) ? 1 : 0;
}

/* Columns of the terminal on fd (TIOCGWINSZ), or 0 when fd is not a terminal. */
int dlb_proc_term_width(int fd) {
  struct winsize ws;
  if (!isatty(fd) || ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}
