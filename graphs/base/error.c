/*
** error.c — the per-thread error message behind dlb_last_error(), and the version.
** With the interruption flag of dlb_interrupt (here) and the polynomial bounds of
** dlb_poly_set_limits (poly.c), this is the library's state outside the objects callers own.
*/
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dlb_base.h"
#include "dlb_runtime.h"

static _Thread_local char message[1024];
static _Thread_local int last_status = DLB_OK;

/* Formatted aside first: a message that wraps the previous one (`dlb_fail(st, "op %zu: %s",
** i, dlb_last_error())`, the usual way to add context) reads `message` while it is written,
** which vsnprintf does not allow (it garbled "op costs: op 1: op costs: op 1: ..."). */
static void record(int status, const char *fmt, va_list ap) {
  char buf[sizeof message];
  last_status = status;
  vsnprintf(buf, sizeof buf, fmt, ap);
  memcpy(message, buf, sizeof message);
}

/* Record a message for dlb_last_error() and return `status`. */
int dlb_fail(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(status, fmt, ap);
  va_end(ap);
  return status;
}

/* A failure reported by a library built on this one (libdlbench_proc). */
int dlb_error_set(int status, const char *msg) {
  return dlb_fail(status, "%s", msg ? msg : "unknown error");
}

/* Record a message for dlb_last_error() and return NULL (for constructors). */
void *dlb_fail_null(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  record(status, fmt, ap);
  va_end(ap);
  return NULL;
}

/* Put a printf-style context ("reshape 'r': tensor 'x': ") before the last failure's
** message, for a caller that knows where a helper failed; returns the failure's status. */
int dlb_fail_context(const char *fmt, ...) {
  char old[sizeof message];
  memcpy(old, message, sizeof old);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  size_t at = n < 0 ? 0 : (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
  size_t room = sizeof message - 1 - at, len = strlen(old);
  memcpy(message + at, old, len < room ? len : room);
  message[at + (len < room ? len : room)] = '\0';
  return last_status;
}

/* The status of the last failure in this thread. */
int dlb_last_status(void) {
  return last_status;
}

/* The last failure's message in this thread; borrowed until the next failure. */
const char *dlb_last_error(void) {
  return message[0] ? message : "no error";
}

/* The interruption flag (process-wide: a signal handler sets it). */
static volatile sig_atomic_t interrupt_flag = 0;

void dlb_interrupt(int on) {
  interrupt_flag = on ? 1 : 0;
}

int dlb_interrupted(void) {
  return interrupt_flag != 0;
}

/* The ABI version compiled into the library. */
int dlb_abi_version(void) {
  return DLB_ABI_VERSION;
}

/* The library version; a static string. */
const char *dlb_version(void) {
  return DLB_VERSION;
}
