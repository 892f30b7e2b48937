/*
** trace.c — Chrome trace-event JSON (PyTorch profiler, Kineto) into columns of events
** (dlb_trace.h). The JSON goes through yajl's callback parser chunk by chunk, straight from
** the file (plain, or gzip inflated by zlib: zsrc below), so no document tree is ever
** built: a state machine keeps the fields dlbench uses (name, cat, ph, ts, dur, pid, tid,
** and a few args) and skips the rest. Text values are interned. Any failure names the byte
** offset of the (decompressed) JSON where it happened. Limits (dlb_trace_limits): the JSON
** bytes after decompression, the events kept, and the length of every token, checked on
** the raw bytes before yajl sees them (yajl's lexer gathers a whole string, however long,
** before it calls back). dlb_trace_open/next read a file in batches, for summaries that
** never hold all the events.
*/
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "dlb_trace.h"
#include "dlb_runtime.h"

enum { MAX_DEPTH = 64, CHUNK = 1 << 20, STREAM_CHUNK = 1 << 16, MAX_CAPTURE = 1 << 16 };

/* The defaults of dlb_trace_limits (docs/security.md). */
#define DEF_MAX_BYTES 1073741824.0          /* 1 GiB of JSON */
#define DEF_STREAM_RATIO 100.0              /* streamed: 100 times the file's bytes ... */
#define DEF_STREAM_MAX_BYTES 67108864.0     /* ... or 64 MiB if more (docs/security.md) */
#define DEF_MAX_EVENTS 1048576.0
#define DEF_MAX_STRING 65536.0
#define DEF_MAX_TEXT 67108864.0             /* 64 MiB of distinct strings */

struct session;

struct dlb_trace {
  size_t n, cap;
  double *num[DLB_TRACE_NNUMBERS];
  uint32_t *str[DLB_TRACE_NSTRINGS];   /* 0: absent; else 1 + index into pool */
  char **pool;
  size_t npool, cappool;
  uint32_t *hash;                      /* open addressing over pool indices (+1), 0 empty */
  size_t hcap;
  double text;                         /* bytes of the pool's strings */
  double max_text;                     /* at most that many (dlb_trace_limits) */
  double bytes;
  struct session *stream;              /* dlb_trace_open: the reader in progress, else NULL */
};

/* Which event field or arg a key names. */
enum { F_NONE = -1, F_ARGS = 100 };

typedef struct parser {
  dlb_trace *t;
  int depth;
  int form;             /* 0 unknown, 1 bare array, 2 object */
  int events_depth;     /* depth inside the events array; 0 until found */
  int want_events;      /* the last top-level key was "traceEvents" */
  int seen_events;
  int in_event, in_args;
  int field, arg;       /* the current key's column: numbers 0.., strings 1000.., F_ARGS */
  uint64_t seen, seen_args; /* the event's columns (and args) given so far: seen_bit() */
  int capture;          /* string column being captured as compact JSON, or -1 */
  int cap_depth;
  char *cap; size_t caplen, capcap;
  double num[DLB_TRACE_NNUMBERS];
  uint32_t str[DLB_TRACE_NSTRINGS];
  char err[256];
  int status;
  double max_events;    /* 0: no cap (a stream's batches) */
} parser;

/* -- interning ------------------------------------------------------------------- */

static uint32_t fnv(const char *s, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

/* The pool id (1-based) of s[0..len), added if new; 0 on allocation failure or when a
** new string would take the pool past max_text (then *over is set). */
static uint32_t intern(dlb_trace *t, const char *s, size_t len, int *over) {
  if (t->npool * 2 + 2 > t->hcap) {
    size_t nc = t->hcap ? 2 * t->hcap : 1024;
    uint32_t *nh = dlb_calloc(nc, sizeof *nh);
    if (!nh) return 0;
    for (size_t i = 0; i < t->hcap; i++) {
      uint32_t id = t->hash[i];
      if (!id) continue;
      const char *p = t->pool[id - 1];
      size_t j = fnv(p, strlen(p)) & (nc - 1);
      while (nh[j]) j = (j + 1) & (nc - 1);
      nh[j] = id;
    }
    dlb_free(t->hash);
    t->hash = nh;
    t->hcap = nc;
  }
  size_t j = fnv(s, len) & (t->hcap - 1);
  while (t->hash[j]) {
    const char *p = t->pool[t->hash[j] - 1];
    if (strncmp(p, s, len) == 0 && p[len] == '\0') return t->hash[j];
    j = (j + 1) & (t->hcap - 1);
  }
  if (t->max_text > 0 && t->text + (double)len + 1 > t->max_text) {
    *over = 1;
    return 0;
  }
  if (t->npool == t->cappool) {
    size_t nc = t->cappool ? 2 * t->cappool : 256;
    char **np = dlb_realloc(t->pool, nc * sizeof *np);
    if (!np) return 0;
    t->pool = np;
    t->cappool = nc;
  }
  char *c = dlb_malloc(len + 1);
  if (!c) return 0;
  memcpy(c, s, len);
  c[len] = '\0';
  t->pool[t->npool++] = c;
  t->text += (double)len + 1;
  t->hash[j] = (uint32_t)t->npool;
  return (uint32_t)t->npool;
}

/* -- errors --------------------------------------------------------------------- */

/* Record a failure of the parse (the callbacks then cancel yajl). */
static int fail(parser *p, int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
static int fail(parser *p, int status, const char *fmt, ...) {
  if (!p->status) {
    va_list ap;
    va_start(ap, fmt);
    dlb_vformat(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
    p->status = status;
  }
  return 0;
}

/* A failed intern: the text limit, or memory. */
static int text_fail(parser *p, int over) {
  if (over)
    return fail(p, DLB_EPARSE, "event %zu: more than %.0f bytes of distinct text (the limit "
                "max_text)", p->t->n + 1, p->t->max_text);
  return fail(p, DLB_ENOMEM, "out of memory at event %zu", p->t->n + 1);
}

/* -- the event under construction ----------------------------------------------- */

static void event_reset(parser *p) {
  for (int i = 0; i < DLB_TRACE_NNUMBERS; i++) p->num[i] = NAN;
  for (int i = 0; i < DLB_TRACE_NSTRINGS; i++) p->str[i] = 0;
  p->seen = p->seen_args = 0;
}

/* The bit of column col (numbers 0.., strings 1000.., F_ARGS) in parser.seen. */
static uint64_t seen_bit(int col) {
  if (col == F_ARGS) return (uint64_t)1 << 63;
  return (uint64_t)1 << (col >= 1000 ? 32 + col - 1000 : col);
}

/* The rule an event's numbers keep, in one place: a trace's events (event_push) and the
** tables made by hand that dlb.trace.summary is given (dlb_trace_check_event). dur is 0 or
** more; NaN (not given) passes. 1 when it holds, else 0 with the message in buf. */
static int event_rule(size_t i, const char *name, double dur, char *buf, size_t n) {
  if (!(dur < 0)) return 1;
  snprintf(buf, n, "event %zu%s%.100s%s: 'dur' is negative (%g us; a duration is 0 or more)",
           i, name ? " ('" : "", name ? name : "", name ? "')" : "", dur);
  return 0;
}

int dlb_trace_check_event(size_t i, const char *name, double dur) {
  char msg[256];
  if (event_rule(i, name, dur, msg, sizeof msg)) return DLB_OK;
  return dlb_fail(DLB_EINVAL, "%s", msg);
}

static int event_push(parser *p) {
  dlb_trace *t = p->t;
  if (p->max_events > 0 && (double)t->n >= p->max_events)
    return fail(p, DLB_EPARSE, "more than %.0f events (the limit max_events; raise it, or "
                "summarise the file with dlb.trace.summary(path), which streams)", p->max_events);
  if (t->n == t->cap) {
    size_t nc = t->cap ? 2 * t->cap : 1024;
    for (int i = 0; i < DLB_TRACE_NNUMBERS; i++) {
      double *a = dlb_realloc(t->num[i], nc * sizeof *a);
      if (!a) return fail(p, DLB_ENOMEM, "out of memory at event %zu", t->n + 1);
      t->num[i] = a;
    }
    for (int i = 0; i < DLB_TRACE_NSTRINGS; i++) {
      uint32_t *a = dlb_realloc(t->str[i], nc * sizeof *a);
      if (!a) return fail(p, DLB_ENOMEM, "out of memory at event %zu", t->n + 1);
      t->str[i] = a;
    }
    t->cap = nc;
  }
  char msg[256];
  uint32_t nm = p->str[DLB_TRACE_NAME];
  if (!event_rule(t->n + 1, nm ? t->pool[nm - 1] : NULL, p->num[DLB_TRACE_DUR], msg, sizeof msg))
    return fail(p, DLB_EPARSE, "%s", msg);
  for (int i = 0; i < DLB_TRACE_NNUMBERS; i++) t->num[i][t->n] = p->num[i];
  for (int i = 0; i < DLB_TRACE_NSTRINGS; i++) t->str[i][t->n] = p->str[i];
  t->n++;
  return 1;
}

/* Event keys and args keys -> column. */
static int key_field(const unsigned char *k, size_t len) {
#define IS(s) (len == sizeof(s) - 1 && memcmp(k, s, len) == 0)
  if (IS("name")) return 1000 + DLB_TRACE_NAME;
  if (IS("ts")) return DLB_TRACE_TS;
  if (IS("dur")) return DLB_TRACE_DUR;
  if (IS("ph")) return 1000 + DLB_TRACE_PH;
  if (IS("cat")) return 1000 + DLB_TRACE_CAT;
  if (IS("pid")) return 1000 + DLB_TRACE_PID;
  if (IS("tid")) return 1000 + DLB_TRACE_TID;
  if (IS("args")) return F_ARGS;
  return F_NONE;
}

static int key_arg(const unsigned char *k, size_t len) {
  if (IS("Input Dims") || IS("Input dims")) return 1000 + DLB_TRACE_SHAPES;
  if (IS("Input type")) return 1000 + DLB_TRACE_TYPES;
  if (IS("device")) return DLB_TRACE_DEVICE;
  if (IS("stream")) return DLB_TRACE_STREAM;
  if (IS("correlation")) return DLB_TRACE_CORRELATION;
  /* "external id": the device and runtime events of Kineto as PyTorch 1.8-1.9 wrote them */
  if (IS("External id") || IS("external id")) return DLB_TRACE_EXTERNAL_ID;
  if (IS("Sequence number")) return DLB_TRACE_SEQUENCE;
  if (IS("flops")) return DLB_TRACE_FLOPS;
  return F_NONE;
#undef IS
}

static const char *field_name(int f) {
  static const char *nums[] = { "ts", "dur" };
  static const char *strs[] = { "name", "cat", "ph", "pid", "tid" };
  if (f >= 1000) return strs[f - 1000];
  return nums[f];
}

/* -- compact JSON capture (Input Dims) --------------------------------------------- */

/* Room for `more` bytes in the capture buffer (64 KiB at most). */
static int cap_reserve(parser *p, size_t more) {
  if (p->caplen + more > MAX_CAPTURE)
    return fail(p, DLB_EPARSE, "event %zu: args value longer than 64 KiB", p->t->n + 1);
  if (p->caplen + more > p->capcap) {
    size_t nc = p->capcap ? 2 * p->capcap : 256;
    while (nc < p->caplen + more) nc *= 2;
    char *c = dlb_realloc(p->cap, nc);
    if (!c) return fail(p, DLB_ENOMEM, "out of memory at event %zu", p->t->n + 1);
    p->cap = c;
    p->capcap = nc;
  }
  return 1;
}

/* Append a token, with a comma when it follows a value. */
static int cap_put(parser *p, const char *s, size_t len) {
  if (!cap_reserve(p, len + 1)) return 0;
  if (p->caplen > 0 && len > 0) {
    char last = p->cap[p->caplen - 1];
    if (last != '[' && last != '{' && last != ':' && s[0] != ']' && s[0] != '}' && s[0] != ':')
      p->cap[p->caplen++] = ',';
  }
  memcpy(p->cap + p->caplen, s, len);
  p->caplen += len;
  return 1;
}

/* A string inside a capture: quoted, '"' and '\\' escaped, control characters dropped. */
static int cap_string(parser *p, const unsigned char *s, size_t len) {
  if (!cap_put(p, "\"", 1) || !cap_reserve(p, 2 * len + 1)) return 0;
  for (size_t i = 0; i < len; i++) {
    char c = (char)s[i];
    if ((unsigned char)c < 0x20) continue;
    if (c == '"' || c == '\\') p->cap[p->caplen++] = '\\';
    p->cap[p->caplen++] = c;
  }
  p->cap[p->caplen++] = '"';
  return 1;
}

/* -- scalar values ----------------------------------------------------------------- */

/* kind: 'z' null, 'b' boolean, 'n' number, 's' string; s[0..len) its text. */
static int scalar(parser *p, int kind, const unsigned char *s, size_t len) {
  if (p->capture >= 0) {
    if (kind == 's') return cap_string(p, s, len);
    return cap_put(p, (const char *)s, len);
  }
  if (p->depth == 0) return fail(p, DLB_EPARSE, "a trace is a JSON array of events or an object with traceEvents, not a lone value");
  if (p->form == 2 && p->depth == 1) {
    if (p->want_events) return fail(p, DLB_EPARSE, "traceEvents must be an array of events");
    return 1;
  }
  if (p->events_depth && p->depth == p->events_depth)
    return fail(p, DLB_EPARSE, "event %zu is not an object", p->t->n + 1);
  int col;
  if (p->in_event && !p->in_args && p->depth == p->events_depth + 1) col = p->field;
  else if (p->in_args && p->depth == p->events_depth + 2) col = p->arg;
  else return 1;
  if (col == F_NONE || col == F_ARGS) return 1;
  if (kind == 'z') return 1; /* null: the event does not say */
  if (col >= 1000) {
    if (col - 1000 == DLB_TRACE_SHAPES || col - 1000 == DLB_TRACE_TYPES) return 1; /* not a list */
    if (memchr(s, '\0', len))
      return fail(p, DLB_EPARSE, "event %zu: a NUL byte (\\u0000) inside '%s' (C would cut the "
                  "text there)", p->t->n + 1, field_name(col));
    int over = 0;
    uint32_t id = intern(p->t, (const char *)s, len, &over);
    if (!id) return text_fail(p, over);
    p->str[col - 1000] = id;
    return 1;
  }
  /* numeric columns: numbers, or strings holding one */
  char buf[64];
  double v = NAN;
  if ((kind == 'n' || kind == 's') && len > 0 && len < sizeof buf) {
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    v = strtod(buf, &end);
    if (*end != '\0') v = NAN;
  }
  if (!isfinite(v)) {
    if (col == DLB_TRACE_TS || col == DLB_TRACE_DUR)
      return fail(p, DLB_EPARSE, "event %zu: '%s' must be a finite number of microseconds",
                  p->t->n + 1, field_name(col));
    return 1; /* an arg we cannot read as a number: leave it out */
  }
  p->num[col] = v;
  return 1;
}

static int cb_null(void *ctx) { return scalar(ctx, 'z', (const unsigned char *)"null", 4); }
static int cb_boolean(void *ctx, int b) {
  return scalar(ctx, 'b', (const unsigned char *)(b ? "true" : "false"), b ? 4 : 5);
}
static int cb_number(void *ctx, const char *s, size_t len) { return scalar(ctx, 'n', (const unsigned char *)s, len); }
static int cb_string(void *ctx, const unsigned char *s, size_t len) { return scalar(ctx, 's', s, len); }

/* -- containers ------------------------------------------------------------------- */

static int open_container(parser *p, int is_map) {
  if (p->depth >= MAX_DEPTH)
    return fail(p, DLB_EPARSE, "JSON nested deeper than 64 levels");
  if (p->capture >= 0) {
    p->depth++;
    return cap_put(p, is_map ? "{" : "[", 1);
  }
  int d = p->depth;
  if (d == 0) {
    p->form = is_map ? 2 : 1;
    if (!is_map) { p->events_depth = 1; p->seen_events = 1; }
  } else if (p->form == 2 && d == 1) {
    if (p->want_events) {
      if (is_map) return fail(p, DLB_EPARSE, "traceEvents must be an array of events");
      p->events_depth = 2;
      p->seen_events = 1;
      p->want_events = 0;
    }
  } else if (p->events_depth && d == p->events_depth) {
    if (!is_map) return fail(p, DLB_EPARSE, "event %zu is not an object", p->t->n + 1);
    p->in_event = 1;
    p->in_args = 0;
    p->field = F_NONE;
    event_reset(p);
  } else if (p->in_event && !p->in_args && d == p->events_depth + 1) {
    if (p->field == F_ARGS && is_map) {
      p->in_args = 1;
      p->arg = F_NONE;
    } else if (p->field != F_NONE && p->field != F_ARGS) {
      return fail(p, DLB_EPARSE, "event %zu: '%s' must be a string or number, not a container",
                  p->t->n + 1, field_name(p->field));
    }
  } else if (p->in_args && d == p->events_depth + 2 && !is_map
             && (p->arg == 1000 + DLB_TRACE_SHAPES || p->arg == 1000 + DLB_TRACE_TYPES)) {
    p->capture = p->arg - 1000;
    p->cap_depth = d;
    p->caplen = 0;
    p->depth++;
    return cap_put(p, "[", 1);
  }
  p->depth++;
  return 1;
}

static int close_container(parser *p, int is_map) {
  p->depth--;
  if (p->capture >= 0) {
    if (!cap_put(p, is_map ? "}" : "]", 1)) return 0;
    if (p->depth == p->cap_depth) {
      int over = 0;
      uint32_t id = intern(p->t, p->cap, p->caplen, &over);
      if (!id) return text_fail(p, over);
      p->str[p->capture] = id;
      p->capture = -1;
    }
    return 1;
  }
  if (p->in_args && p->depth == p->events_depth + 1) {
    p->in_args = 0;
  } else if (p->in_event && p->depth == p->events_depth) {
    p->in_event = 0;
    return event_push(p);
  } else if (p->form == 2 && p->events_depth == 2 && p->depth == 1) {
    /* the traceEvents array closed: what follows it at the top level (Kineto's "INFO"
    ** array of strings, "traceName", "baseTimeNanoseconds" ...) holds no events */
    p->events_depth = 0;
  }
  return 1;
}

static int cb_start_map(void *ctx) { return open_container(ctx, 1); }
static int cb_end_map(void *ctx) { return close_container(ctx, 1); }
static int cb_start_array(void *ctx) { return open_container(ctx, 0); }
static int cb_end_array(void *ctx) { return close_container(ctx, 0); }

static int cb_map_key(void *ctx, const unsigned char *k, size_t len) {
  parser *p = ctx;
  if (p->capture >= 0) return cap_string(p, k, len) && cap_put(p, ":", 1);
  if (p->form == 2 && p->depth == 1) {
    p->want_events = len == 11 && memcmp(k, "traceEvents", 11) == 0;
    if (p->want_events && p->seen_events)
      return fail(p, DLB_EPARSE, "traceEvents appears twice");
  } else if (p->in_event && !p->in_args && p->depth == p->events_depth + 1) {
    /* a column given twice in one event: which value counts would be the reader's guess
    ** (the last, before review7), so it is an error naming the key, as traceEvents twice */
    p->field = key_field(k, len);
    if (p->field != F_NONE) {
      uint64_t b = seen_bit(p->field);
      if (p->seen & b)
        return fail(p, DLB_EPARSE, "event %zu: the key '%.*s' given twice", p->t->n + 1,
                    (int)(len < 100 ? len : 100), (const char *)k);
      p->seen |= b;
    }
  } else if (p->in_args && p->depth == p->events_depth + 2) {
    p->arg = key_arg(k, len);
    if (p->arg != F_NONE) {
      uint64_t b = seen_bit(p->arg);
      if (p->seen_args & b)
        return fail(p, DLB_EPARSE, "event %zu: the args key '%.*s' given twice (or with another "
                    "spelling of it)", p->t->n + 1, (int)(len < 100 ? len : 100), (const char *)k);
      p->seen_args |= b;
    }
  }
  return 1;
}

static const yajl_callbacks callbacks = {
  cb_null, cb_boolean, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array
};

/* -- driving the parse ---------------------------------------------------------------- */

/* -- the file: plain JSON, or gzip through zlib's inflate -------------------------------- */

/* A trace file read in chunks: plain JSON as it is; gzip (magic 1f 8b) inflated member by
** member, as gzip -d reads concatenated members. Anything after the last member that is not
** another member is an error naming its file offset (zlib's gzread skipped such bytes
** quietly), and so is a member cut short. */
enum { ZIN = 1 << 18 };
typedef struct zsrc {
  FILE *f;
  int gz, inmember, zinit, eof;
  double raw;              /* file bytes read into `in` so far */
  z_stream z;
  unsigned char *in;
} zsrc;

static void zsrc_close(zsrc *z) {
  if (z->zinit) inflateEnd(&z->z);
  if (z->f) fclose(z->f);
  dlb_free(z->in);
  memset(z, 0, sizeof *z);
}

static int zsrc_open(zsrc *z, const char *path) {
  memset(z, 0, sizeof *z);
  if (!(z->f = fopen(path, "rb"))) return dlb_fail(DLB_EIO, "trace %s: cannot open", path);
  unsigned char m[2];
  size_t got = fread(m, 1, 2, z->f);
  z->gz = got == 2 && m[0] == 0x1f && m[1] == 0x8b;
  rewind(z->f);
  if (z->gz) {
    if (!(z->in = dlb_malloc(ZIN)) || inflateInit2(&z->z, 15 + 16) != Z_OK) {
      zsrc_close(z);
      return dlb_fail(DLB_ENOMEM, "trace %s: out of memory", path);
    }
    z->zinit = 1, z->inmember = 1;
  }
  return DLB_OK;
}

/* Up to n bytes of JSON into buf: the count (0 at a clean end), or -1 with the error set;
** base: the JSON bytes before these (for messages). */
static long zsrc_read(zsrc *z, const char *path, size_t base, char *buf, size_t n) {
  if (!z->gz) {
    size_t got = fread(buf, 1, n, z->f);
    if (got < n && ferror(z->f))
      return dlb_fail(DLB_EIO, "trace %s: byte %zu: read error", path, base), -1;
    return (long)got;
  }
  size_t out = 0;
  while (out == 0) {
    if (z->z.avail_in == 0 && !z->eof) {
      size_t got = fread(z->in, 1, ZIN, z->f);
      if (got < ZIN) {
        if (ferror(z->f)) return dlb_fail(DLB_EIO, "trace %s: byte %zu of the decompressed JSON: "
                                          "read error", path, base), -1;
        z->eof = 1;
      }
      z->z.next_in = z->in, z->z.avail_in = (uInt)got, z->raw += (double)got;
    }
    if (!z->inmember) {
      if (z->z.avail_in == 0) return 0; /* eof after a whole member */
      double at = z->raw - (double)z->z.avail_in;
      if (z->z.next_in[0] != 0x1f)
        return dlb_fail(DLB_EPARSE, "trace %s: byte %.0f of the file: junk after the gzip stream "
                        "(not another gzip member; the file is damaged or was appended to)",
                        path, at), -1;
      inflateReset(&z->z);
      z->inmember = 1;
    }
    z->z.next_out = (unsigned char *)buf + out, z->z.avail_out = (uInt)(n - out);
    int r = inflate(&z->z, Z_NO_FLUSH);
    out = n - z->z.avail_out;
    if (r == Z_STREAM_END) z->inmember = 0;
    else if (r == Z_BUF_ERROR || (r == Z_OK && z->z.avail_in == 0 && z->eof && out == 0)) {
      if (z->eof && z->z.avail_in == 0 && out == 0)
        return dlb_fail(DLB_EIO, "trace %s: byte %zu of the decompressed JSON: unexpected end of "
                        "file (the gzip stream is cut short)", path, base), -1;
    } else if (r != Z_OK) {
      double at = z->raw - (double)z->z.avail_in;
      return dlb_fail(DLB_EIO, "trace %s: byte %zu of the decompressed JSON (byte %.0f of the "
                      "file): %s", path, base + out, at,
                      z->z.msg ? z->z.msg : "gzip data error"), -1;
    }
  }
  return (long)out;
}

static void stream_free(struct session *s);

/* The interned strings and their hash, emptied (a stream's next batch). */
static void pool_clear(dlb_trace *t) {
  for (size_t i = 0; i < t->npool; i++) dlb_free(t->pool[i]);
  t->npool = 0;
  t->text = 0;
  if (t->hash) memset(t->hash, 0, t->hcap * sizeof *t->hash);
}

void dlb_trace_free(dlb_trace *t) {
  if (!t) return;
  stream_free(t->stream);
  for (int i = 0; i < DLB_TRACE_NNUMBERS; i++) dlb_free(t->num[i]);
  for (int i = 0; i < DLB_TRACE_NSTRINGS; i++) dlb_free(t->str[i]);
  for (size_t i = 0; i < t->npool; i++) dlb_free(t->pool[i]);
  dlb_free(t->pool);
  dlb_free(t->hash);
  dlb_free(t);
}

typedef struct session {
  parser p;
  yajl_handle h;
  size_t base;          /* bytes fed before the current chunk */
  int nonblank;         /* any non-whitespace byte seen */
  double max_bytes, max_string;
  int in_str, esc;      /* the token scan: inside a string, after a backslash */
  size_t toklen;        /* bytes of the token being scanned */
  const char *where;    /* the file name in messages */
  zsrc src;             /* a stream's file, its chunk buffer, at its end */
  char *buf;
  size_t bpos, blen;    /* the part of buf not fed yet */
  int done;
} session;

/* Limits with defaults in; an error for a NaN (stream: a read in batches). */
static int limits(const dlb_trace_limits *lim, int stream, double fsize, double *bytes,
                  double *events, double *string, double *text) {
  dlb_trace_limits l = {0, 0, 0, 0};
  if (lim) l = *lim;
  if (l.max_bytes != l.max_bytes || l.max_events != l.max_events || l.max_string != l.max_string ||
      l.max_text != l.max_text)
    return dlb_fail(DLB_EINVAL, "trace: a limit is NaN");
  *text = l.max_text > 0 ? l.max_text : DEF_MAX_TEXT;
  /* streamed: in proportion to the file (a gzip bomb inflates 1000-fold), at least 64 MiB */
  double prop = DEF_STREAM_RATIO * fsize;
  *bytes = l.max_bytes > 0 ? l.max_bytes
         : stream ? (prop > DEF_STREAM_MAX_BYTES ? prop : DEF_STREAM_MAX_BYTES) : DEF_MAX_BYTES;
  *events = stream ? 0 : l.max_events > 0 ? l.max_events : DEF_MAX_EVENTS;
  *string = l.max_string > 0 ? l.max_string : DEF_MAX_STRING;
  return DLB_OK;
}

static int session_open(session *s, const dlb_trace_limits *lim, int stream, const char *where,
                        double fsize) {
  memset(s, 0, sizeof *s);
  double text = 0;
  if (limits(lim, stream, fsize, &s->max_bytes, &s->p.max_events, &s->max_string, &text))
    return DLB_EINVAL;
  s->where = where;
  s->p.capture = -1;
  s->p.t = dlb_calloc(1, sizeof *s->p.t);
  if (!s->p.t) return dlb_fail(DLB_ENOMEM, "trace: out of memory");
  s->p.t->max_text = text;
  s->h = yajl_alloc(&callbacks, NULL, &s->p);
  if (!s->h) {
    dlb_free(s->p.t);
    return dlb_fail(DLB_ENOMEM, "trace: out of memory");
  }
  return DLB_OK;
}

static void session_close(session *s, int keep) {
  yajl_free(s->h);
  dlb_free(s->p.cap);
  if (!keep) dlb_trace_free(s->p.t);
}

/* Report a failed parse at byte `at`: the parser's own message or yajl's. */
static int session_error(session *s, const char *where, const unsigned char *chunk, size_t len) {
  size_t at = s->base + yajl_get_bytes_consumed(s->h);
  if (s->p.status)
    return dlb_fail(s->p.status, "trace %s: byte %zu: %s", where, at, s->p.err);
  unsigned char *m = yajl_get_error(s->h, 0, chunk, len);
  char msg[160];
  snprintf(msg, sizeof msg, "%s", m ? (const char *)m : "malformed JSON");
  if (m) yajl_free_error(s->h, m);
  size_t n = strlen(msg);
  while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = '\0';
  return dlb_fail(DLB_EPARSE, "trace %s: byte %zu: %s", where, at, msg);
}

/* The token scan over a chunk before yajl sees it: a string (escapes included) or another
** token longer than max_string is an error at the byte where it passes the limit. */
static int scan(session *s, const char *where, const char *buf, size_t len) {
  size_t tok = s->toklen, max = s->max_string >= 1e18 ? SIZE_MAX : (size_t)s->max_string;
  int in_str = s->in_str, esc = s->esc;
  for (size_t i = 0; i < len; i++) {
    char c = buf[i];
    if (in_str) {
      if (esc) esc = 0;
      else if (c == '\\') esc = 1;
      else if (c == '"') { in_str = 0; tok = 0; continue; }
    } else if (c == '"') {
      in_str = 1, tok = 0;
      continue;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ',' || c == ':' ||
               c == '[' || c == ']' || c == '{' || c == '}') {
      tok = 0;
      continue;
    }
    if (++tok > max)
      return dlb_fail(DLB_EPARSE, "trace %s: byte %zu: a %s longer than %.0f bytes (the limit "
                      "max_string)", where, s->base + i, in_str ? "string" : "token", s->max_string);
  }
  s->toklen = tok, s->in_str = in_str, s->esc = esc;
  return DLB_OK;
}

/* Feed one chunk. */
static int session_feed(session *s, const char *where, const char *buf, size_t len) {
  if ((double)s->base + (double)len > s->max_bytes)
    return dlb_fail(DLB_EPARSE, "trace %s: byte %.0f: more than %.0f bytes of JSON after "
                    "decompression (the limit max_bytes)", where, s->max_bytes, s->max_bytes);
  if (s->base == 0 && len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB &&
      (unsigned char)buf[2] == 0xBF) {
    /* a UTF-8 byte order mark (RFC 8259 sec. 8.1; graphs/io/json.c skips it too); offsets
    ** still count from the first byte */
    buf += 3, len -= 3, s->base = 3;
  }
  if (!s->nonblank) {
    for (size_t i = 0; i < len; i++) {
      char c = buf[i];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') { s->nonblank = 1; break; }
    }
  }
  if (scan(s, where, buf, len)) return DLB_EPARSE;
  yajl_status st = yajl_parse(s->h, (const unsigned char *)buf, len);
  if (st != yajl_status_ok) return session_error(s, where, (const unsigned char *)buf, len);
  s->base += len;
  return DLB_OK;
}

static int session_finish(session *s, const char *where) {
  if (!s->nonblank) return dlb_fail(DLB_EPARSE, "trace %s: empty input (expected a JSON trace)", where);
  yajl_status st = yajl_complete_parse(s->h);
  if (st != yajl_status_ok) {
    size_t at = s->base;
    if (s->p.status) return dlb_fail(s->p.status, "trace %s: byte %zu: %s", where, at, s->p.err);
    return dlb_fail(DLB_EPARSE, "trace %s: byte %zu: the JSON ends early (truncated file?)", where, at);
  }
  if (!s->p.seen_events)
    return dlb_fail(DLB_EPARSE, "trace %s: no traceEvents array (not a Chrome trace-event file?)", where);
  s->p.t->bytes = (double)s->base;
  return DLB_OK;
}

dlb_trace *dlb_trace_parse(const char *json, size_t len) {
  return dlb_trace_parse_limits(json, len, NULL);
}

dlb_trace *dlb_trace_parse_limits(const char *json, size_t len, const dlb_trace_limits *lim) {
  if (!json) return dlb_fail_null(DLB_EINVAL, "trace: NULL text");
  session s;
  if (session_open(&s, lim, 0, "text", 0)) return NULL;
  int st = session_feed(&s, "text", json, len);
  if (!st) st = session_finish(&s, "text");
  session_close(&s, st == DLB_OK);
  return st == DLB_OK ? s.p.t : NULL;
}

dlb_trace *dlb_trace_read(const char *path) {
  return dlb_trace_read_limits(path, NULL);
}

dlb_trace *dlb_trace_read_limits(const char *path, const dlb_trace_limits *lim) {
  if (!path) return dlb_fail_null(DLB_EINVAL, "trace: NULL path");
  zsrc z;
  if (zsrc_open(&z, path)) return NULL;
  char *buf = dlb_malloc(CHUNK);
  session s;
  if (!buf || session_open(&s, lim, 0, path, 0)) {
    int st = buf ? dlb_last_status() : DLB_ENOMEM;
    char msg[300];
    snprintf(msg, sizeof msg, "%s", buf ? dlb_last_error() : "out of memory");
    dlb_free(buf);
    zsrc_close(&z);
    return dlb_fail_null(st, "trace %s: %s", path, msg);
  }
  int st = DLB_OK;
  for (;;) {
    long got = zsrc_read(&z, path, s.base, buf, CHUNK);
    if (got < 0) { st = dlb_last_status(); break; }
    if (got == 0) break;
    st = session_feed(&s, path, buf, (size_t)got);
    if (st) break;
  }
  if (!st) st = session_finish(&s, path);
  dlb_free(buf);
  zsrc_close(&z);
  session_close(&s, st == DLB_OK);
  return st == DLB_OK ? s.p.t : NULL;
}

size_t dlb_trace_count(const dlb_trace *t) { return t ? t->n : 0; }

double dlb_trace_bytes(const dlb_trace *t) { return t ? t->bytes : 0; }

const double *dlb_trace_numbers(const dlb_trace *t, int column) {
  if (!t || column < 0 || column >= DLB_TRACE_NNUMBERS) return NULL;
  static const double none = 0;
  return t->num[column] ? t->num[column] : &none;
}

size_t dlb_trace_string_id(const dlb_trace *t, int column, size_t i) {
  if (!t || column < 0 || column >= DLB_TRACE_NSTRINGS || i >= t->n) return 0;
  return t->str[column][i];
}

const char *dlb_trace_text(const dlb_trace *t, size_t id) {
  return t && id >= 1 && id <= t->npool ? t->pool[id - 1] : NULL;
}

const char *dlb_trace_string(const dlb_trace *t, int column, size_t i) {
  if (!t || column < 0 || column >= DLB_TRACE_NSTRINGS || i >= t->n) return NULL;
  uint32_t id = t->str[column][i];
  return id ? t->pool[id - 1] : NULL;
}

/* -- reading in batches ------------------------------------------------------------- */

static void stream_free(struct session *s) {
  if (!s) return;
  zsrc_close(&s->src);
  yajl_free(s->h);
  dlb_free(s->p.cap);
  dlb_free(s->buf);
  dlb_free(s);
}

dlb_trace *dlb_trace_open(const char *path, const dlb_trace_limits *lim) {
  if (!path) return dlb_fail_null(DLB_EINVAL, "trace: NULL path");
  FILE *f = fopen(path, "rb");
  if (!f) return dlb_fail_null(DLB_EIO, "trace %s: cannot open", path);
  double size = 0; /* the file's bytes: the default of max_bytes (limits) */
  if (fseek(f, 0, SEEK_END) == 0) {
    long e = ftell(f);
    if (e > 0) size = (double)e;
  }
  fclose(f);
  session *s = dlb_calloc(1, sizeof *s);
  if (!s) return dlb_fail_null(DLB_ENOMEM, "trace %s: out of memory", path);
  if (session_open(s, lim, 1, path, size)) {
    dlb_free(s);
    return NULL;
  }
  s->p.t->stream = s;
  if (!(s->buf = dlb_malloc(STREAM_CHUNK))) {
    dlb_trace_free(s->p.t);
    return dlb_fail_null(DLB_ENOMEM, "trace %s: out of memory", path);
  }
  if (zsrc_open(&s->src, path)) {
    dlb_trace_free(s->p.t);
    return NULL;
  }
  return s->p.t;
}

/* Empty t for the next batch; the strings of the event being read (it may span two
** batches) are interned again. */
static int batch_reset(session *s) {
  dlb_trace *t = s->p.t;
  char *keep[DLB_TRACE_NSTRINGS] = {0};
  int rc = DLB_OK, over = 0;
  for (int i = 0; i < DLB_TRACE_NSTRINGS; i++)
    if (s->p.str[i] && !(keep[i] = dlb_strdup(t->pool[s->p.str[i] - 1]))) rc = DLB_ENOMEM;
  t->n = 0;
  pool_clear(t);
  for (int i = 0; i < DLB_TRACE_NSTRINGS && rc == DLB_OK; i++)
    if (keep[i] && !(s->p.str[i] = intern(t, keep[i], strlen(keep[i]), &over))) rc = DLB_ENOMEM;
  for (int i = 0; i < DLB_TRACE_NSTRINGS; i++) dlb_free(keep[i]);
  return rc ? dlb_fail(rc, "trace %s: out of memory", s->where) : DLB_OK;
}

int dlb_trace_next(dlb_trace *t, size_t batch, size_t *count) {
  if (count) *count = 0;
  if (!t || !t->stream || !count)
    return dlb_fail(DLB_EINVAL, "trace: dlb_trace_next needs a trace from dlb_trace_open");
  session *s = t->stream;
  if (s->p.status || s->done < 0)
    return dlb_fail(DLB_EINVAL, "trace %s: the read failed before", s->where);
  int st = batch_reset(s);
  if (batch < 1) batch = 1;
  while (!st && !s->done && t->n < batch) {
    if (s->bpos < s->blen) { /* fed in slices, so a batch ends soon after `batch` events */
      size_t k = s->blen - s->bpos < 4096 ? s->blen - s->bpos : 4096;
      st = session_feed(s, s->where, s->buf + s->bpos, k);
      s->bpos += k;
      continue;
    }
    long got = zsrc_read(&s->src, s->where, s->base, s->buf, STREAM_CHUNK);
    if (got < 0) {
      st = dlb_last_status();
    } else if (got > 0) {
      s->bpos = 0, s->blen = (size_t)got;
    } else {
      st = session_finish(s, s->where);
      s->done = 1;
    }
  }
  if (st) {
    s->done = -1;
    t->n = 0;
    return st;
  }
  t->bytes = (double)s->base;
  *count = t->n;
  return DLB_OK;
}
