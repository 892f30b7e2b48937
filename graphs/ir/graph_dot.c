/*
** graph_dot.c — Graphviz DOT text of a forward graph: ops as boxes, sources as ellipses,
** edges labelled with the tensor's dims.
*/
#include <stdio.h>
#include <string.h>

#include "dlb_graph.h"
#include "dlb_runtime.h"
#include "graph_impl.h"

typedef struct out { char *buf; size_t size, len; } out;

/* Append text, truncating at the buffer size but counting the full length. */
static void put(out *o, const char *text) {
  size_t len = strlen(text);
  if (o->len < o->size) {
    size_t room = o->size - o->len - 1, k = len < room ? len : room;
    memcpy(o->buf + o->len, text, k);
    o->buf[o->len + k] = '\0';
  }
  o->len += len;
}

/* Escape double quotes and backslashes for a DOT label. */
static const char *esc(const char *s, char *buf, size_t size) {
  size_t n = 0;
  for (; *s && n + 2 < size; s++) {
    if (*s == '"' || *s == '\\') buf[n++] = '\\';
    buf[n++] = *s;
  }
  buf[n] = '\0';
  return buf;
}

size_t dlb_graph_dot(const dlb_graph *g, char *buf, size_t size) {
  out o = {buf, size, 0};
  char a[300], b[300], e1[600], e2[600], line[1400];
  if (size) buf[0] = '\0';
  snprintf(line, sizeof line, "digraph \"%s\" {\n  rankdir=TB;\n"
           "  node [fontname=\"DejaVu Sans\", fontsize=10];\n", esc(g->str + g->name, e1, sizeof e1));
  put(&o, line);
  for (size_t t = 0; t < g->nt; t++) {
    if (g->t[t].producer >= 0) continue;
    snprintf(line, sizeof line, "  t%d [shape=ellipse, label=\"%s\\n%s\"];\n", (int)t,
             esc(dlb_tname(g, (int)t, a, sizeof a), e1, sizeof e1),
             esc(dlb_shape_text(g, (int)t, b, sizeof b), e2, sizeof e2));
    put(&o, line);
  }
  for (size_t i = 0; i < g->no; i++) {
    const op *p = &g->o[i];
    snprintf(line, sizeof line, "  o%d [shape=box, label=\"%s\\n%s\"];\n", (int)i,
             esc(dlb_oname(g, (int)i, a, sizeof a), e1, sizeof e1), dlb_op_type_name(p->type));
    put(&o, line);
    for (int j = 0; j < p->nin; j++) {
      int t = op_in(g, p)[j], pr = g->t[t].producer;
      esc(dlb_shape_text(g, t, b, sizeof b), e1, sizeof e1);
      if (pr >= 0) snprintf(line, sizeof line, "  o%d -> o%d [label=\"%s\"];\n", pr, (int)i, e1);
      else snprintf(line, sizeof line, "  t%d -> o%d [label=\"%s\"];\n", t, (int)i, e1);
      put(&o, line);
    }
  }
  put(&o, "}\n");
  return o.len;
}
