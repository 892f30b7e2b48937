/*
** dlb_json.h — reading JSON documents (Hugging Face config.json files) with yajl's event
** parser, as a flat list of nodes a binding can turn into its own tables (graphs/io/json.c).
** Part of the public interface: included by dlbench.h.
*/
#ifndef DLB_JSON_H
#define DLB_JSON_H

#include <stddef.h>

#include "dlb_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLB_FFI_BEGIN */
typedef struct dlb_json dlb_json;   /* a parsed document: nodes in document order */

enum { DLB_JSON_NULL = 0, DLB_JSON_FALSE = 1, DLB_JSON_TRUE = 2, DLB_JSON_NUMBER = 3,
       DLB_JSON_STRING = 4, DLB_JSON_OBJECT = 5, DLB_JSON_ARRAY = 6 };

/* Parse text (size bytes; need not end with a NUL); name is used in messages. NULL with
** a message naming the byte offset (and for a syntax error the text around it) of a
** syntax error, nesting deeper than 64 (refused while parsing) or a NUL byte in the text
** or inside a string or key ("\u0000"). Free with dlb_json_free. */
DLB_API dlb_json *dlb_json_parse(const char *text, size_t size, const char *name);
/* Read and parse a file (a regular file of at most 64 MiB). */
DLB_API dlb_json *dlb_json_read(const char *path);
DLB_API void dlb_json_free(dlb_json *j);
/* Number of nodes; node 0 is the document's root. */
DLB_API size_t dlb_json_count(const dlb_json *j);
/* Node i: its type (DLB_JSON_*), its parent's index (-1 for the root), its number (for
** NUMBER), and in *key the member name when the parent is an object (else NULL) and in
** *str the text of a STRING (else NULL); strings borrowed while j lives. DLB_EINVAL when
** i is out of range. */
DLB_API int dlb_json_node(const dlb_json *j, size_t i, int *type, int *parent, double *number,
                          const char **key, const char **str);
/* DLB_FFI_END */

#ifdef __cplusplus
}
#endif

#endif
