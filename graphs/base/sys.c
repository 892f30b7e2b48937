/*
** sys.c — the machine facts the core needs: a monotonic clock and the online processors.
** POSIX.
*/
#include <time.h>
#include <unistd.h>

#include "dlb_sys.h"

/* Online processors. */
int dlb_sys_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Monotonic seconds. */
double dlb_sys_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
