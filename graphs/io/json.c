/*
** json.c — JSON documents through yajl's tree API (yajl_tree_parse), flattened into a list
** of nodes in document order so both Lua backends can rebuild tables without walking C
** structures.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yajl/yajl_tree.h>

#include "dlb_json.h"
#include "dlb_runtime.h"

typedef struct jnode {
  int type, parent;
  double number;
  const char *key, *str;   /* borrowed from the yajl tree */
} jnode;

struct dlb_json {
  yajl_val root;
  jnode *n;
  size_t count, cap;
};

enum { MAXDEPTH = 64, MAXBYTES = 64 << 20 };

static int push(dlb_json *j, yajl_val v, int parent, const char *key, int depth) {
  if (depth > MAXDEPTH) return dlb_fail(DLB_EPARSE, "json: nesting deeper than %d", MAXDEPTH);
  if (j->count == j->cap) {
    size_t c = j->cap ? 2 * j->cap : 64;
    jnode *q = dlb_realloc(j->n, c * sizeof *q);
    if (!q) return dlb_fail(DLB_ENOMEM, "json: out of memory");
    j->n = q, j->cap = c;
  }
  int me = (int)j->count++;
  jnode *p = &j->n[me];
  p->parent = parent, p->key = key, p->str = NULL, p->number = 0;
  if (YAJL_IS_STRING(v)) p->type = DLB_JSON_STRING, p->str = YAJL_GET_STRING(v);
  else if (YAJL_IS_NUMBER(v)) p->type = DLB_JSON_NUMBER, p->number = YAJL_GET_DOUBLE(v);
  else if (YAJL_IS_TRUE(v)) p->type = DLB_JSON_TRUE;
  else if (YAJL_IS_FALSE(v)) p->type = DLB_JSON_FALSE;
  else if (YAJL_IS_OBJECT(v)) {
    p->type = DLB_JSON_OBJECT;
    for (size_t i = 0; i < v->u.object.len; i++) {
      int rc = push(j, v->u.object.values[i], me, v->u.object.keys[i], depth + 1);
      if (rc) return rc;
    }
  } else if (YAJL_IS_ARRAY(v)) {
    j->n[me].type = DLB_JSON_ARRAY;
    for (size_t i = 0; i < v->u.array.len; i++) {
      int rc = push(j, v->u.array.values[i], me, NULL, depth + 1);
      if (rc) return rc;
    }
  } else {
    p->type = DLB_JSON_NULL;
  }
  return DLB_OK;
}

dlb_json *dlb_json_parse(const char *text, size_t size, const char *name) {
  if (!text && size) return dlb_fail_null(DLB_EINVAL, "json: no text");
  if (!name) name = "<text>";
  if (size > MAXBYTES) return dlb_fail_null(DLB_EINVAL, "json '%s': %zu bytes (at most %d)", name, size, MAXBYTES);
  char *buf = dlb_malloc(size + 1);
  if (!buf) return dlb_fail_null(DLB_ENOMEM, "json: out of memory");
  if (size) memcpy(buf, text, size);
  buf[size] = '\0';
  if (strlen(buf) != size) {
    dlb_free(buf);
    return dlb_fail_null(DLB_EPARSE, "json '%s': a NUL byte inside the text", name);
  }
  char err[512] = "";
  dlb_json *j = dlb_calloc(1, sizeof *j);
  if (!j) { dlb_free(buf); return dlb_fail_null(DLB_ENOMEM, "json: out of memory"); }
  j->root = yajl_tree_parse(buf, err, sizeof err);
  dlb_free(buf);
  if (!j->root) {
    dlb_free(j);
    for (char *p = err; *p; p++) if (*p == '\n') *p = ' ';
    return dlb_fail_null(DLB_EPARSE, "json '%s': %s", name, err[0] ? err : "malformed");
  }
  if (push(j, j->root, -1, NULL, 0)) {
    char msg[600];
    snprintf(msg, sizeof msg, "%s", dlb_last_error());
    int st = dlb_last_status();
    dlb_json_free(j);
    return dlb_fail_null(st, "json '%s': %s", name, msg);
  }
  return j;
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
  yajl_tree_free(j->root);
  dlb_free(j->n);
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
  if (key) *key = p->key;
  if (str) *str = p->str;
  return DLB_OK;
}
