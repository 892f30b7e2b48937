/*
** json.c — JSON documents through yajl's event (callback) parser, flattened into a list of
** nodes in document order so both Lua backends can rebuild tables without walking C
** structures. No document tree is built: the depth is counted while parsing, so nesting
** past MAXDEPTH stops the parse at the bracket that goes too deep (no recursion anywhere,
** on the way in or out), and a NUL byte inside a string or key ("\u0000", which C would
** cut) is an error naming its byte offset. A key given twice in one object is an error
** naming it (readers would otherwise keep one of the two values silently: Python's json the
** last), and a UTF-8 byte order mark before the text is skipped (RFC 8259 sec. 8.1 allows
** either; Windows editors write one); byte offsets count from the file's first byte.
*/
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yajl/yajl_parse.h>

#include "dlb_json.h"
#include "dlb_runtime.h"

/* MAXNODES keeps a 64 MiB file of tiny values ([0,0,...]: 32 M of them) within 1 GB in C
** and in the Lua tables made from it; real configs have hundreds. */
enum { MAXDEPTH = 64, MAXBYTES = 64 << 20, MAXNODES = 1 << 22 };

#define NOTEXT SIZE_MAX

typedef struct jnode {
  int type, parent;
  double number;
  size_t key, str;         /* offsets into text, NOTEXT when absent */
} jnode;

struct dlb_json {
  jnode *n;
  size_t count, cap;
  char *text;              /* every key and string, each NUL-terminated */
  size_t ntext, captext;
};

/* The parse in progress: the open containers (node indices) and the pending member key. */
typedef struct jparse {
  dlb_json *j;
  yajl_handle h;
  int depth;
  int stack[MAXDEPTH + 1];
  size_t key;              /* the key of the next member of an object, NOTEXT if none */
  uint32_t *keys;          /* open addressing over node indices + 1 of object members, 0 empty */
  size_t kcap, nkeys;
  size_t base;             /* bytes skipped before the text yajl sees (a byte order mark) */
  int status;
  char err[256];
} jparse;

/* Record a failure at the byte yajl has reached; returns 0 (the callbacks then cancel). */
static int jfail(jparse *p, int status, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
static int jfail(jparse *p, int status, const char *fmt, ...) {
  if (!p->status) {
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    dlb_vformat(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, sizeof p->err, "byte %zu: %s", p->base + yajl_get_bytes_consumed(p->h), msg);
    p->status = status;
  }
  return 0;
}

/* Copy s[0..len) into the text buffer; its offset, or NOTEXT (with the failure recorded). */
static size_t addtext(jparse *p, const unsigned char *s, size_t len, const char *what) {
  dlb_json *j = p->j;
  if (memchr(s, '\0', len)) {
    jfail(p, DLB_EPARSE, "a NUL byte (\\u0000) inside a %s", what);
    return NOTEXT;
  }
  if (j->ntext + len + 1 > j->captext) {
    size_t c = j->captext ? j->captext : 1024;
    while (c < j->ntext + len + 1) c *= 2;
    char *q = dlb_realloc(j->text, c);
    if (!q) { jfail(p, DLB_ENOMEM, "out of memory"); return NOTEXT; }
    j->text = q, j->captext = c;
  }
  size_t off = j->ntext;
  memcpy(j->text + off, s, len);
  j->text[off + len] = '\0';
  j->ntext += len + 1;
  return off;
}

static uint32_t keyhash(int parent, const char *k) {
  uint32_t h = 2166136261u ^ (uint32_t)parent;
  for (; *k; k++) h = (h ^ (unsigned char)*k) * 16777619u;
  return h;
}

/* Record that node me is the member p->key of object parent: 0 when that object has a
** member of that name already (the failure recorded), 1 otherwise. */
static int addkey(jparse *p, int parent, int me) {
  dlb_json *j = p->j;
  if ((p->nkeys + 1) * 2 > p->kcap) {
    size_t nc = p->kcap ? 2 * p->kcap : 64;
    uint32_t *nk = dlb_calloc(nc, sizeof *nk);
    if (!nk) return jfail(p, DLB_ENOMEM, "out of memory");
    for (size_t i = 0; i < p->kcap; i++) {
      uint32_t id = p->keys[i];
      if (!id) continue;
      const jnode *n = &j->n[id - 1];
      size_t h = keyhash(n->parent, j->text + n->key) & (nc - 1);
      while (nk[h]) h = (h + 1) & (nc - 1);
      nk[h] = id;
    }
    dlb_free(p->keys);
    p->keys = nk, p->kcap = nc;
  }
  const char *k = j->text + p->key;
  size_t h = keyhash(parent, k) & (p->kcap - 1);
  while (p->keys[h]) {
    const jnode *n = &j->n[p->keys[h] - 1];
    if (n->parent == parent && strcmp(j->text + n->key, k) == 0)
      return jfail(p, DLB_EPARSE, "the key \"%.100s\" given twice in one object", k);
    h = (h + 1) & (p->kcap - 1);
  }
  p->keys[h] = (uint32_t)me + 1;
  p->nkeys++;
  return 1;
}

/* A new node under the innermost open container; its index, or -1. */
static int newnode(jparse *p, int type) {
  dlb_json *j = p->j;
  if (j->count == j->cap) {
    size_t c = j->cap ? 2 * j->cap : 64;
    jnode *q = dlb_realloc(j->n, c * sizeof *q);
    if (!q) return jfail(p, DLB_ENOMEM, "out of memory") - 1;
    j->n = q, j->cap = c;
  }
  if (j->count >= MAXNODES) return jfail(p, DLB_EPARSE, "more than %d values", MAXNODES) - 1;
  int parent = p->depth ? p->stack[p->depth - 1] : -1;
  if (p->key != NOTEXT && !addkey(p, parent, (int)j->count)) return -1;
  int me = (int)j->count++;
  jnode *n = &j->n[me];
  n->type = type, n->number = 0, n->str = NOTEXT;
  n->parent = parent;
  n->key = p->key;
  p->key = NOTEXT;
  return me;
}

static int cb_null(void *ctx) { return newnode(ctx, DLB_JSON_NULL) >= 0; }
static int cb_boolean(void *ctx, int b) { return newnode(ctx, b ? DLB_JSON_TRUE : DLB_JSON_FALSE) >= 0; }

static int cb_number(void *ctx, const char *s, size_t len) {
  char buf[512];
  if (len >= sizeof buf) return jfail(ctx, DLB_EPARSE, "a number of %zu digits", len);
  memcpy(buf, s, len);
  buf[len] = '\0';
  /* past the largest double (1e999): an error, not an infinity a config would then carry
  ** (hidden_size = inf passed the reader; yajl's tree made it +-inf). Underflow is 0. */
  double v = strtod(buf, NULL);
  if (isinf(v)) return jfail(ctx, DLB_EPARSE, "the number %.60s is out of range (a double)", buf);
  int me = newnode(ctx, DLB_JSON_NUMBER);
  if (me < 0) return 0;
  ((jparse *)ctx)->j->n[me].number = v;
  return 1;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len) {
  jparse *p = ctx;
  size_t off = addtext(p, s, len, "string");
  if (off == NOTEXT) return 0;
  int me = newnode(p, DLB_JSON_STRING);
  if (me < 0) return 0;
  p->j->n[me].str = off;
  return 1;
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t len) {
  jparse *p = ctx;
  return (p->key = addtext(p, k, len, "key")) != NOTEXT;
}

static int open_container(jparse *p, int type) {
  if (p->depth >= MAXDEPTH) return jfail(p, DLB_EPARSE, "nesting deeper than %d", MAXDEPTH);
  int me = newnode(p, type);
  if (me < 0) return 0;
  p->stack[p->depth++] = me;
  return 1;
}

static int cb_start_map(void *ctx) { return open_container(ctx, DLB_JSON_OBJECT); }
static int cb_start_array(void *ctx) { return open_container(ctx, DLB_JSON_ARRAY); }
static int cb_end(void *ctx) {
  ((jparse *)ctx)->depth--;
  return 1;
}

static const yajl_callbacks callbacks = {
  cb_null, cb_boolean, NULL, NULL, cb_number, cb_string,
  cb_start_map, cb_map_key, cb_end, cb_start_array, cb_end
};

dlb_json *dlb_json_parse(const char *text, size_t size, const char *name) {
  if (!text && size) return dlb_fail_null(DLB_EINVAL, "json: no text");
  if (!name) name = "<text>";
  if (size > MAXBYTES) return dlb_fail_null(DLB_EINVAL, "json '%s': %zu bytes (at most %d)", name, size, MAXBYTES);
  const char *nul = size ? memchr(text, '\0', size) : NULL;
  if (nul) return dlb_fail_null(DLB_EPARSE, "json '%s': byte %zu: a NUL byte inside the text", name,
                                (size_t)(nul - text));
  jparse p;
  memset(&p, 0, sizeof p);
  p.key = NOTEXT;
  if (!(p.j = dlb_calloc(1, sizeof *p.j))) return dlb_fail_null(DLB_ENOMEM, "json: out of memory");
  if (!(p.h = yajl_alloc(&callbacks, NULL, &p))) {
    dlb_json_free(p.j);
    return dlb_fail_null(DLB_ENOMEM, "json: out of memory");
  }
  yajl_config(p.h, yajl_allow_comments, 1); /* as yajl_tree_parse did */
  const unsigned char *u = (const unsigned char *)(text ? text : "");
  if (size >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) { /* a UTF-8 byte order mark */
    p.base = 3;
    u += 3;
    size -= 3;
  }
  yajl_status st = yajl_parse(p.h, u, size);
  int atend = st == yajl_status_ok; /* a failure in yajl_complete_parse is at the end */
  if (st == yajl_status_ok) st = yajl_complete_parse(p.h);
  dlb_free(p.keys);
  p.keys = NULL;
  if (st == yajl_status_ok && p.j->count == 0) { /* only blanks or comments */
    yajl_free(p.h);
    dlb_json_free(p.j);
    return dlb_fail_null(DLB_EPARSE, "json '%s': no value (empty text)", name);
  }
  if (st != yajl_status_ok) {
    char msg[600];
    int status = p.status ? p.status : DLB_EPARSE;
    if (p.status) {
      snprintf(msg, sizeof msg, "%s", p.err);
    } else {
      unsigned char *e = yajl_get_error(p.h, 1, u, size);
      snprintf(msg, sizeof msg, "byte %zu: %s", p.base + (atend ? size : yajl_get_bytes_consumed(p.h)),
               e ? (const char *)e : "malformed");
      if (e) yajl_free_error(p.h, e);
      for (char *q = msg; *q; q++) if (*q == '\n') *q = ' ';
      size_t n = strlen(msg);
      while (n > 0 && msg[n - 1] == ' ') msg[--n] = '\0';
    }
    yajl_free(p.h);
    dlb_json_free(p.j);
    return dlb_fail_null(status, "json '%s': %s", name, msg);
  }
  yajl_free(p.h);
  return p.j;
}

dlb_json *dlb_json_read(const char *path) {
  if (!path) return dlb_fail_null(DLB_EINVAL, "json: no path");
  FILE *f = fopen(path, "rb");
  if (!f) return dlb_fail_null(DLB_EIO, "json '%s': cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAXBYTES) {
    fclose(f);
    return dlb_fail_null(DLB_EIO, "json '%s': not a regular file of at most %d bytes", path, MAXBYTES);
  }
  size_t size = (size_t)st.st_size;
  char *buf = dlb_malloc(size ? size : 1);
  if (!buf) { fclose(f); return dlb_fail_null(DLB_ENOMEM, "json: out of memory"); }
  size_t got = fread(buf, 1, size, f);
  fclose(f);
  if (got != size) { dlb_free(buf); return dlb_fail_null(DLB_EIO, "json '%s': read error", path); }
  dlb_json *j = dlb_json_parse(buf, size, path);
  dlb_free(buf);
  return j;
}

void dlb_json_free(dlb_json *j) {
  if (!j) return;
  dlb_free(j->n);
  dlb_free(j->text);
  dlb_free(j);
}

size_t dlb_json_count(const dlb_json *j) { return j ? j->count : 0; }

int dlb_json_node(const dlb_json *j, size_t i, int *type, int *parent, double *number,
                  const char **key, const char **str) {
  if (!j || i >= j->count) return dlb_fail(DLB_EINVAL, "json: node %zu out of range", i);
  const jnode *p = &j->n[i];
  if (type) *type = p->type;
  if (parent) *parent = p->parent;
  if (number) *number = p->number;
  if (key) *key = p->key == NOTEXT ? NULL : j->text + p->key;
  if (str) *str = p->str == NOTEXT ? NULL : j->text + p->str;
  return DLB_OK;
}
