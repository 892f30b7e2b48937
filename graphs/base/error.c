/*
** error.c — the per-thread error message behind dlb_last_error(), and the version.
** With the interruption flag of dlb_interrupt (here) and the polynomial bounds of
** dlb_poly_set_limits (poly.c), this is the library's state outside the objects callers own.
*/
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dlb_base.h"
#include "dlb_runtime.h"

static _Thread_local char message[1024];
static _Thread_local int last_status = DLB_OK;

/* vsnprintf, but a NaN prints as "nan" (NAN for %G ...) whatever its sign bit: glibc prints
** a NaN with the sign bit set as "-nan", and the sign of a NaN is an accident of how it was
** made (0/0 on x86 sets it; Lua 5.4 and LuaJIT make and pass NaNs differently), so a message
** read "got -nan" under one backend and "got nan" under the other. Infinities print as
** printf prints them ("inf", "-inf"). Each conversion of fmt is printed by snprintf with its
** own flags, width and precision; a conversion this does not know (none of the library's
** formats has one) prints the whole message by vsnprintf instead. */
int dlb_vformat(char *buf, size_t n, const char *fmt, va_list ap) {
  va_list whole;
  va_copy(whole, ap);
  size_t at = 0; /* characters of the message so far (as snprintf counts: past n too) */
#define ROOM (at < n ? n - at : 0)
#define DST (at < n ? buf + at : NULL)
#define PUT(...)                                       \
  do {                                                 \
    int k_ = snprintf(DST, ROOM, __VA_ARGS__);         \
    if (k_ > 0) at += (size_t)k_;                      \
  } while (0)
/* one conversion with its '*' width / precision arguments, if any */
#define CONV(v)                                        \
  do {                                                 \
    if (nstar == 0) PUT(spec, v);                      \
    else if (nstar == 1) PUT(spec, star[0], v);        \
    else PUT(spec, star[0], star[1], v);               \
  } while (0)
  const char *p = fmt;
  while (*p) {
    if (*p != '%') {
      const char *q = strchr(p, '%');
      size_t len = q ? (size_t)(q - p) : strlen(p);
      PUT("%.*s", (int)len, p);
      p += len;
      continue;
    }
    if (p[1] == '%') {
      PUT("%%");
      p += 2;
      continue;
    }
    const char *s = p++;
    int star[2], nstar = 0;
    while (*p && strchr("-+ #0'", *p)) p++;
    if (*p == '*') star[nstar++] = va_arg(ap, int), p++;
    else while (*p >= '0' && *p <= '9') p++;
    if (*p == '.') {
      p++;
      if (*p == '*') star[nstar++] = va_arg(ap, int), p++;
      else while (*p >= '0' && *p <= '9') p++;
    }
    char len[3] = {0, 0, 0};
    if (*p && strchr("hljztL", *p)) {
      len[0] = *p++;
      if ((len[0] == 'h' || len[0] == 'l') && *p == len[0]) len[1] = *p++;
    }
    char conv = *p ? *p++ : 0;
    char spec[40];
    size_t sl = (size_t)(p - s);
    if (sl >= sizeof spec || !conv) goto whole_message;
    memcpy(spec, s, sl);
    spec[sl] = 0;
    switch (conv) {
    case 'd': case 'i':
      if (len[0] == 'l' && len[1]) CONV(va_arg(ap, long long));
      else if (len[0] == 'l') CONV(va_arg(ap, long));
      else if (len[0] == 'z') CONV(va_arg(ap, size_t));
      else if (len[0] == 'j') CONV(va_arg(ap, intmax_t));
      else if (len[0] == 't') CONV(va_arg(ap, ptrdiff_t));
      else if (len[0] == 'L') goto whole_message;
      else CONV(va_arg(ap, int)); /* hh, h: promoted to int */
      break;
    case 'u': case 'o': case 'x': case 'X':
      if (len[0] == 'l' && len[1]) CONV(va_arg(ap, unsigned long long));
      else if (len[0] == 'l') CONV(va_arg(ap, unsigned long));
      else if (len[0] == 'z') CONV(va_arg(ap, size_t));
      else if (len[0] == 'j') CONV(va_arg(ap, uintmax_t));
      else if (len[0] == 't') CONV(va_arg(ap, ptrdiff_t));
      else if (len[0] == 'L') goto whole_message;
      else CONV(va_arg(ap, unsigned));
      break;
    case 'c':
      if (len[0]) goto whole_message;
      CONV(va_arg(ap, int));
      break;
    case 's':
      if (len[0]) goto whole_message;
      CONV(va_arg(ap, const char *));
      break;
    case 'p':
      CONV(va_arg(ap, void *));
      break;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
      if (len[0] == 'L') {
        long double v = va_arg(ap, long double);
        CONV(isnan(v) ? fabsl(v) : v);
      } else {
        double v = va_arg(ap, double);
        CONV(isnan(v) ? fabs(v) : v); /* a NaN without its sign bit prints "nan" */
      }
      break;
    default:
      goto whole_message;
    }
  }
  if (n > 0 && at >= n) buf[n - 1] = '\0';
  else if (n > 0) buf[at] = '\0';
  va_end(whole);
  return at > (size_t)INT_MAX ? INT_MAX : (int)at;
whole_message: {
    int k = vsnprintf(buf, n, fmt, whole);
    va_end(whole);
    return k;
  }
#undef CONV
#undef PUT
#undef DST
#undef ROOM
}

/* Formatted aside first: a message that wraps the previous one (`dlb_fail(st, "op %zu: %s",
** i, dlb_last_error())`, the usual way to add context) reads `message` while it is written,
** which vsnprintf does not allow (it garbled "op costs: op 1: op costs: op 1: ..."). */
static void record(int status, const char *fmt, va_list ap) {
  char buf[sizeof message];
  last_status = status;
  dlb_vformat(buf, sizeof buf, fmt, ap);
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
  int n = dlb_vformat(message, sizeof message, fmt, ap);
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
