/*
** onnx_wire.c — the check of an ONNX file's protobuf wire bytes before protobuf-c unpacks
** them (docs/security.md, "ONNX models"). protobuf-c's unpack recurses once per nested
** message and turns strings into NUL-terminated `char *` (a NUL inside one cuts it, unseen
** after unpacking), so one iterative pass over the bytes, led by the generated descriptors
** of onnx.proto (build/gen/onnx.pb-c.c: which field of which message is a message, a
** string, bytes or a number), refuses first:
**   - messages nested deeper than ONNX_WIRE_MAXDEPTH (a TypeProto through
**     sequence_type.elem_type, a graph through an If's then_branch attribute, ...);
**   - a NUL byte inside any string field;
**   - names (name, input, output, op_type, domain, dim_param, ...) longer than 511 bytes,
**     the graph engine's limit for the names it keeps;
**   - files whose unpacked form would need more than ONNX_WIRE_MAXMEM bytes besides the
**     tensor data (many tiny messages each cost a struct: 2 bytes on the wire, ~100 in
**     memory);
**   - group wire types (protobuf-c does not read them) and malformed lengths.
** Each error names the byte offset and the path of fields that leads there.
*/
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dlb_onnx.h"
#include "dlb_runtime.h"
#include "onnx_impl.h"

/* One open message: its descriptor, where its bytes end and the field that holds it. */
typedef struct wframe {
  const ProtobufCMessageDescriptor *desc;
  size_t end;
  const char *field;
} wframe;

/* A base-128 varint at *pos (at most 10 bytes) into *v; 0 when cut or too long. */
static int varint(const uint8_t *p, size_t end, size_t *pos, uint64_t *v) {
  uint64_t x = 0;
  for (int i = 0; i < 10 && *pos < end; i++) {
    uint8_t b = p[(*pos)++];
    x |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = x;
      return 1;
    }
  }
  return 0;
}

/* The string fields that hold names: the graph engine keeps them (at most 511 bytes). */
static int is_name_field(const char *f) {
  static const char *names[] = { "name", "input", "output", "op_type", "domain", "dim_param",
                                 "tensor_name", "ref_attr_name", "overload", "attribute" };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(f, names[i])) return 1;
  return 0;
}

/* "graph.node.attribute.g" for the open frames (the last ones when long) and field f. */
static const char *path_of(const wframe *st, int depth, const char *f, char *buf, size_t size) {
  size_t k = 0;
  int from = 1, first = 1;
  if (depth > 8) from = depth - 7, k = (size_t)snprintf(buf, size, "...");
  for (int i = from; i < depth && k < size; i++, first = 0)
    k += (size_t)snprintf(buf + k, size - k, "%s%s", first ? "" : ".", st[i].field);
  if (f && k < size) snprintf(buf + k, size - k, "%s%s", first ? "" : ".", f);
  else if (!k) snprintf(buf, size, "the model");
  return buf;
}

int dlb_onnx_wire_check(const void *data, size_t size, const char *file) {
  const uint8_t *p = data;
  wframe st[ONNX_WIRE_MAXDEPTH + 1];
  char path[256];
  int depth = 1;
  size_t pos = 0;
  double mem = (double)onnx__model_proto__descriptor.sizeof_message;
  st[0].desc = &onnx__model_proto__descriptor, st[0].end = size, st[0].field = "";
  while (depth > 0) {
    wframe *w = &st[depth - 1];
    if (pos == w->end) { /* the message ends */
      depth--;
      continue;
    }
    size_t at = pos;
    uint64_t key, len = 0;
    if (!varint(p, w->end, &pos, &key) || key >> 32 || (key >> 3) == 0)
      return dlb_fail(DLB_EPARSE, "onnx '%s': not an ONNX model: byte %zu: a malformed field "
                      "key in %s (%zu bytes)", file, at, path_of(st, depth, NULL, path, sizeof path), size);
    int wire = (int)(key & 7);
    const ProtobufCFieldDescriptor *fd =
      protobuf_c_message_descriptor_get_field(w->desc, (unsigned)(key >> 3));
    const char *fname = fd ? fd->name : "an unknown field";
    switch (wire) {
    case PROTOBUF_C_WIRE_TYPE_VARINT:
      if (!varint(p, w->end, &pos, &len)) goto cut;
      mem += 16;
      continue;
    case PROTOBUF_C_WIRE_TYPE_64BIT:
    case PROTOBUF_C_WIRE_TYPE_32BIT: {
      size_t n = wire == PROTOBUF_C_WIRE_TYPE_64BIT ? 8 : 4;
      if (w->end - pos < n) goto cut;
      pos += n;
      mem += 16;
      continue;
    }
    case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
      break;
    default:
      return dlb_fail(DLB_EPARSE, "onnx '%s': not an ONNX model: byte %zu: %s: wire type %d "
                      "(groups are not read)", file, at, path_of(st, depth, fname, path, sizeof path), wire);
    }
    if (!varint(p, w->end, &pos, &len)) goto cut;
    if (len > w->end - pos) goto cut;
    size_t body = pos, end = pos + (size_t)len;
    pos = end;
    if (!fd) { /* kept by protobuf-c as an unknown field: a copy */
      mem += (double)len + 48;
    } else if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
      if (depth >= ONNX_WIRE_MAXDEPTH)
        return dlb_fail(DLB_EPARSE, "onnx '%s': byte %zu: messages nested deeper than %d "
                        "levels (%s)", file, at, ONNX_WIRE_MAXDEPTH,
                        path_of(st, depth, fname, path, sizeof path));
      const ProtobufCMessageDescriptor *sub = fd->descriptor;
      mem += (double)sub->sizeof_message + 24;
      st[depth].desc = sub, st[depth].end = end, st[depth].field = fd->name;
      depth++;
      pos = body;
    } else if (fd->type == PROTOBUF_C_TYPE_STRING) {
      const uint8_t *nul = memchr(p + body, '\0', (size_t)len);
      if (nul)
        return dlb_fail(DLB_EPARSE, "onnx '%s': byte %zu: a NUL byte inside the string %s "
                        "(C would cut the text there)", file, (size_t)(nul - p),
                        path_of(st, depth, fname, path, sizeof path));
      if (len > 511 && is_name_field(fd->name))
        return dlb_fail(DLB_EPARSE, "onnx '%s': byte %zu: %s is a name of %llu bytes (at most "
                        "511)", file, at, path_of(st, depth, fname, path, sizeof path),
                        (unsigned long long)len);
      mem += (double)len + 24;
    } else if (fd->type == PROTOBUF_C_TYPE_BYTES) {
      mem += 24; /* tensor data: as much as the file holds, not counted against the cap */
    } else { /* packed numbers (tensor data too): only what unpacking adds is counted */
      size_t n = 0;
      if (fd->type != PROTOBUF_C_TYPE_FLOAT && fd->type != PROTOBUF_C_TYPE_DOUBLE &&
          fd->type != PROTOBUF_C_TYPE_FIXED32 && fd->type != PROTOBUF_C_TYPE_SFIXED32 &&
          fd->type != PROTOBUF_C_TYPE_FIXED64 && fd->type != PROTOBUF_C_TYPE_SFIXED64)
        for (size_t i = body; i < end; i++) n += !(p[i] & 0x80); /* varints: 8 bytes each */
      mem += 24 + (8.0 * (double)n > (double)len ? 8.0 * (double)n - (double)len : 0);
    }
    if (mem > ONNX_WIRE_MAXMEM)
      return dlb_fail(DLB_EPARSE, "onnx '%s': byte %zu: unpacking would take more than %d MiB "
                      "besides tensor data (%s)", file, at, ONNX_WIRE_MAXMEM >> 20,
                      path_of(st, depth, fname, path, sizeof path));
    continue;
  cut:
    return dlb_fail(DLB_EPARSE, "onnx '%s': not an ONNX model (the protobuf is malformed or "
                    "truncated, %zu bytes): byte %zu: %s runs past the end of %s", file, size, at,
                    path_of(st, depth, fname, path, sizeof path),
                    depth > 1 ? "its message" : "the file");
  }
  return DLB_OK;
}
