/*
** csv.c — an RFC 4180 CSV reader: quoted fields with "" escapes and embedded line
** breaks, CRLF or LF records, a leading UTF-8 BOM skipped, blank lines skipped (but in a
** file one field wide, a blank line after the first record is a record with one empty
** field), every record as wide as the first. Each field remembers whether it was quoted,
** so a caller can tell a quoted empty field ("") from an empty unquoted one. A NUL byte
** is an error outside quotes (binary data?) and data inside them. Errors name the line and column (1-based, in bytes).
*/
#include <stdlib.h>
#include <string.h>

#include "dlb_stats.h"
#include "dlb_runtime.h"

typedef struct field {
  size_t off, len, line, col;
  int quoted;
} field;

struct dlb_csv {
  char *data;          /* unescaped fields, each NUL-terminated */
  size_t len, cap;
  field *f;            /* record i, field j at f[i * width + j] */
  size_t nf, fcap;
  size_t records, width;
};

/* Free a parse; NULL is a no-op. */
void dlb_csv_free(dlb_csv *c) {
  if (c == NULL) return;
  dlb_free(c->data);
  dlb_free(c->f);
  dlb_free(c);
}

static int putc_(dlb_csv *c, char ch) {
  if (c->len == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 4096;
    char *d = dlb_realloc(c->data, cap);
    if (!d) return dlb_fail(DLB_ENOMEM, "csv: out of memory");
    c->data = d;
    c->cap = cap;
  }
  c->data[c->len++] = ch;
  return DLB_OK;
}

static int newfield(dlb_csv *c, size_t line, size_t col, int quoted) {
  if (c->nf == c->fcap) {
    size_t cap = c->fcap ? 2 * c->fcap : 256;
    field *f = dlb_realloc(c->f, cap * sizeof *f);
    if (!f) return dlb_fail(DLB_ENOMEM, "csv: out of memory");
    c->f = f;
    c->fcap = cap;
  }
  field *f = &c->f[c->nf++];
  f->off = c->len;
  f->len = 0;
  f->line = line;
  f->col = col;
  f->quoted = quoted;
  return DLB_OK;
}

/* Parse CSV text; see dlb_stats.h. Caller frees the result. */
dlb_csv *dlb_csv_parse(const char *text, size_t len, int sep) {
  if (text == NULL && len > 0) return dlb_fail_null(DLB_EINVAL, "csv: NULL text");
  if (sep <= 0 || sep > 127 || sep == '"' || sep == '\r' || sep == '\n') {
    return dlb_fail_null(DLB_EINVAL, "csv: separator must be an ASCII character other than "
                         "quote and line breaks, got code %d", sep);
  }
  dlb_csv *c = dlb_calloc(1, sizeof *c);
  if (!c) return dlb_fail_null(DLB_ENOMEM, "csv: out of memory");
  size_t i = 0, line = 1, col = 1;
  int st = DLB_OK;
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) i = 3;
  while (i < len && st == DLB_OK) {
    /* a record; skip blank lines first, except in a one-field-wide file past its first
    ** record, where a blank line is a record whose only field is empty (a missing value:
    ** otherwise that row would vanish) */
    int blank_is_record = c->records > 0 && c->width == 1;
    if (!blank_is_record && text[i] == '\n') { i++; line++; col = 1; continue; }
    if (!blank_is_record && text[i] == '\r' && i + 1 < len && text[i + 1] == '\n') {
      i += 2; line++; col = 1; continue;
    }
    size_t nfields = 0, first = c->nf;
    for (;;) { /* a field */
      if (c->records > 0 && nfields == c->width) {
        st = dlb_fail(DLB_EPARSE, "line %zu, column %zu: record has more than %zu fields, "
                      "like the first record", line, col, c->width);
        break;
      }
      int quoted = i < len && text[i] == '"';
      if ((st = newfield(c, line, col, quoted))) break;
      nfields++;
      if (quoted) {
        size_t qline = line, qcol = col;
        i++; col++;
        for (;;) {
          if (i >= len) {
            st = dlb_fail(DLB_EPARSE, "line %zu, column %zu: quoted field is never closed "
                          "(end of input)", qline, qcol);
            break;
          }
          char ch = text[i]; /* a NUL byte is data here (a string may hold one) */
          if (ch == '"') {
            if (i + 1 < len && text[i + 1] == '"') {
              if ((st = putc_(c, '"'))) break;
              i += 2; col += 2;
              continue;
            }
            i++; col++;
            break;
          }
          if ((st = putc_(c, ch))) break;
          i++;
          if (ch == '\n') { line++; col = 1; } else col++;
        }
        if (st) break;
        if (i < len && text[i] != sep && text[i] != '\n' && text[i] != '\r') {
          st = dlb_fail(DLB_EPARSE, "line %zu, column %zu: unexpected character after the "
                        "closing quote (a field is either quoted whole or not at all)", line, col);
          break;
        }
      } else {
        while (i < len && text[i] != sep && text[i] != '\n' && text[i] != '\r') {
          char ch = text[i];
          if (ch == '"') {
            st = dlb_fail(DLB_EPARSE, "line %zu, column %zu: quote inside an unquoted field "
                          "(quote the whole field and double the quote)", line, col);
            break;
          }
          if (ch == '\0') {
            st = dlb_fail(DLB_EPARSE, "line %zu, column %zu: NUL byte (binary data?)", line, col);
            break;
          }
          if ((st = putc_(c, ch))) break;
          i++; col++;
        }
        if (st) break;
      }
      field *f = &c->f[c->nf - 1];
      f->len = c->len - f->off;
      if ((st = putc_(c, '\0'))) break;
      if (i < len && text[i] == sep) { i++; col++; continue; }
      /* end of record: LF, CRLF or end of input */
      if (i < len && text[i] == '\r') {
        if (i + 1 < len && text[i + 1] == '\n') { i += 2; }
        else {
          st = dlb_fail(DLB_EPARSE, "line %zu, column %zu: carriage return without a line "
                        "feed", line, col);
          break;
        }
        line++; col = 1;
      } else if (i < len) { /* '\n' */
        i++; line++; col = 1;
      }
      break;
    }
    if (st) break;
    if (c->records == 0) {
      c->width = nfields;
    } else if (nfields != c->width) {
      field *f = &c->f[first];
      st = dlb_fail(DLB_EPARSE, "line %zu, column %zu: record has %zu field%s, the first "
                    "record has %zu", f->line, f->col, nfields, nfields == 1 ? "" : "s", c->width);
      break;
    }
    c->records++;
  }
  if (st) {
    dlb_csv_free(c);
    return NULL;
  }
  return c;
}

/* Records, including a header. */
size_t dlb_csv_records(const dlb_csv *c) {
  return c ? c->records : 0;
}

/* Fields per record. */
size_t dlb_csv_fields(const dlb_csv *c) {
  return c ? c->width : 0;
}

/* Field j of record i; borrowed until c is freed; NULL when out of range. */
const char *dlb_csv_field(const dlb_csv *c, size_t i, size_t j, size_t *len, int *quoted,
                          size_t *line, size_t *column) {
  if (c == NULL || i >= c->records || j >= c->width) {
    dlb_fail(DLB_EINVAL, "csv: field %zu of record %zu out of range", j + 1, i + 1);
    return NULL;
  }
  const field *f = &c->f[i * c->width + j];
  if (len) *len = f->len;
  if (quoted) *quoted = f->quoted;
  if (line) *line = f->line;
  if (column) *column = f->col;
  return c->data + f->off;
}
