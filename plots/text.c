/*
** text.c — text in DejaVu Sans through Cairo's toy font API: measuring and drawing with a
** little markup ("10^{3}" superscript, "x_{i}" subscript) and rotation, and the boxes
** the layout checks for overlaps.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

enum { MAXRUNS = 16 };
typedef struct { const char *s; size_t len; double scale, rise; } run;

/* Split s into runs: plain text, ^{superscript}, _{subscript}. Returns the run count. */
static int parse(const char *s, run *r) {
  int n = 0;
  const char *p = s;
  while (*p && n < MAXRUNS) {
    if (n == MAXRUNS - 1) { /* the last run takes the rest as it is */
      r[n].s = p; r[n].len = strlen(p); r[n].scale = 1; r[n].rise = 0;
      return n + 1;
    }
    if ((p[0] == '^' || p[0] == '_') && p[1] == '{' && strchr(p + 2, '}')) {
      const char *e = strchr(p + 2, '}');
      r[n].s = p + 2;
      r[n].len = (size_t)(e - p - 2);
      r[n].scale = 0.72;
      r[n].rise = p[0] == '^' ? 0.42 : -0.18;
      n++;
      p = e + 1;
      continue;
    }
    const char *q = p;
    while (*q && !((q[0] == '^' || q[0] == '_') && q[1] == '{' && strchr(q + 2, '}'))) q++;
    r[n].s = p;
    r[n].len = (size_t)(q - p);
    r[n].scale = 1;
    r[n].rise = 0;
    n++;
    p = q;
  }
  return n;
}

/* Is s valid UTF-8 (what Cairo's text functions require)? Overlong forms, surrogates
** and code points past U+10FFFF are refused. */
int dlbp_text_valid_utf8(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    int n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
          : (c & 0xf8) == 0xf0 ? 3 : -1; /* continuation bytes that follow */
    if (n < 0 || (n == 1 && c < 0xc2)) return 0;
    unsigned cp = n == 0 ? c : n == 1 ? c & 0x1f : n == 2 ? c & 0x0f : c & 0x07;
    for (int i = 1; i <= n; i++) {
      if ((p[i] & 0xc0) != 0x80) return 0;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    p += n + 1;
  }
  return 1;
}

/* Copy src into dst[size], cut (if it must be) at a character boundary. */
void dlbp_text_copy(char *dst, size_t size, const char *src) {
  size_t n = strlen(src);
  if (n >= size) {
    n = size - 1;
    while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80) n--; /* src[n] starts a char */
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
}

/* Select DejaVu Sans at `size` points. */
void dlbp_text_font(cairo_t *cr, double size, int bold) {
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

/* A run as a C string in buf[size] (cut at a character boundary if long). */
static void run_copy(char *buf, size_t size, const run *r) {
  size_t len = r->len;
  if (len >= size) {
    len = size - 1;
    while (len > 0 && ((unsigned char)r->s[len] & 0xc0) == 0x80) len--;
  }
  memcpy(buf, r->s, len);
  buf[len] = '\0';
}

/* Advance width of one markup run. */
static double run_width(cairo_t *cr, const run *r, double size, int bold) {
  char buf[512];
  run_copy(buf, sizeof buf, r);
  cairo_text_extents_t te;
  dlbp_text_font(cr, size * r->scale, bold);
  cairo_text_extents(cr, buf, &te);
  return te.x_advance;
}

static void line_extent(cairo_t *cr, const char *s, double size, int bold, double *w, double *h);

/* Width and height of s (height: the font's ascent + descent, plus room for a raised run);
** lines separated by '\n' stack: the widest line's width, the sum of their heights. */
void dlbp_text_extent(cairo_t *cr, const char *s, double size, int bold, double *w, double *h) {
  if (!strchr(s, '\n')) { line_extent(cr, s, size, bold, w, h); return; }
  char buf[512];
  *w = *h = 0;
  while (*s) {
    size_t n = strcspn(s, "\n");
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), s);
    double lw, lh;
    line_extent(cr, buf, size, bold, &lw, &lh);
    *w = fmax(*w, lw);
    *h += lh;
    s += n;
    if (*s == '\n') s++;
  }
}

/* One line's width and height. */
static void line_extent(cairo_t *cr, const char *s, double size, int bold, double *w, double *h) {
  run r[MAXRUNS];
  int n = parse(s, r);
  double width = 0, up = 0;
  for (int i = 0; i < n; i++) {
    width += run_width(cr, &r[i], size, bold);
    if (r[i].rise > 0) up = 0.25 * size;
  }
  cairo_font_extents_t fe;
  dlbp_text_font(cr, size, bold);
  cairo_font_extents(cr, &fe);
  *w = width;
  *h = fe.ascent + fe.descent + up;
}

/* The axis-aligned box of s anchored at (x, y): anchor (ax, ay) in 0..1 of the text's own
** box (0, 0 = top left); rotated = 1 turns it 90 degrees counter-clockwise. */
rect dlbp_text_box(cairo_t *cr, const char *s, double size, int bold, double x, double y,
              double ax, double ay, int rotated) {
  double w, h;
  dlbp_text_extent(cr, s, size, bold, &w, &h);
  rect b;
  if (!rotated) {
    b.x = x - ax * w; b.y = y - ay * h; b.w = w; b.h = h;
  } else { /* reading upwards: the text's x runs up the page, its y runs right */
    b.x = x - ay * h; b.y = y - (1 - ax) * w; b.w = h; b.h = w;
  }
  return b;
}

static void line_draw(cairo_t *cr, const char *s, double size, int bold, double x, double y,
                      double ax, double ay, double angle);

/* Draw s anchored at (x, y), rotated by angle (radians, counter-clockwise). Lines separated
** by '\n' stack downwards, each aligned within the block by the horizontal anchor. */
void dlbp_text_draw(cairo_t *cr, const char *s, double size, int bold, double x, double y,
               double ax, double ay, double angle, rect *out) {
  if (!isfinite(x) || !isfinite(y)) return;
  if (!strchr(s, '\n')) {
    line_draw(cr, s, size, bold, x, y, ax, ay, angle);
  } else {
    double w, h, top;
    dlbp_text_extent(cr, s, size, bold, &w, &h);
    top = -ay * h;
    const char *p = s;
    char buf[512];
    while (*p) {
      size_t n = strcspn(p, "\n");
      snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), p);
      double lw, lh;
      line_extent(cr, buf, size, bold, &lw, &lh);
      (void)lw;
      /* each line at the block's horizontal anchor and its own top, turned by the angle */
      line_draw(cr, buf, size, bold, x + top * sin(angle), y + top * cos(angle), ax, 0, angle);
      top += lh;
      p += n;
      if (*p == '\n') p++;
    }
  }
  if (out) *out = dlbp_text_box(cr, s, size, bold, x, y, ax, ay, fabs(angle) > 0.1);
}

/* One line of dlbp_text_draw. */
static void line_draw(cairo_t *cr, const char *s, double size, int bold, double x, double y,
                      double ax, double ay, double angle) {
  run r[MAXRUNS];
  int n = parse(s, r);
  double w, h;
  dlbp_text_extent(cr, s, size, bold, &w, &h);
  cairo_font_extents_t fe;
  dlbp_text_font(cr, size, bold);
  cairo_font_extents(cr, &fe);
  double up = h - fe.ascent - fe.descent;
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -angle);
  double cx = -ax * w, base = -ay * h + up + fe.ascent;
  for (int i = 0; i < n; i++) {
    char buf[512];
    run_copy(buf, sizeof buf, &r[i]);
    dlbp_text_font(cr, size * r[i].scale, bold);
    cairo_move_to(cr, cx, base - r[i].rise * size);
    cairo_show_text(cr, buf);
    cairo_text_extents_t te;
    cairo_text_extents(cr, buf, &te);
    cx += te.x_advance;
  }
  cairo_restore(cr);
}

/* src fitted into maxw points: shrink the size (down to min_size), then cut whole UTF-8
** characters off the end and add an ellipsis until it fits. A cut inside a markup run
** ("^{...") gets its closing brace back. */
void dlbp_text_fit(cairo_t *cr, const char *src, double size, double min_size, int bold,
              double maxw, char *dst, size_t dsize, double *out_size) {
  double w, h;
  dlbp_text_copy(dst, dsize, src);
  dlbp_text_extent(cr, dst, size, bold, &w, &h);
  if (w > maxw && maxw > 0 && min_size < size) { /* shrink first: keeps every word */
    double s2 = fmax(min_size, size * maxw / w);
    size = s2;
    dlbp_text_extent(cr, dst, size, bold, &w, &h);
  }
  *out_size = size;
  if (w <= maxw || !dst[0]) return;
  char buf[512];
  size_t n = strlen(dst);
  while (n > 0) {
    do n--; while (n > 0 && ((unsigned char)dst[n] & 0xC0) == 0x80); /* a character back */
    while (n > 0 && dst[n - 1] == ' ') n--;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
      if ((dst[i] == '^' || dst[i] == '_') && dst[i + 1] == '{') open = 1;
      else if (dst[i] == '}') open = 0;
    }
    snprintf(buf, sizeof buf, "%.*s%s\xe2\x80\xa6", (int)n, dst, open ? "}" : ""); /* U+2026 */
    dlbp_text_extent(cr, buf, size, bold, &w, &h);
    if (w <= maxw) break;
  }
  if (n == 0) snprintf(buf, sizeof buf, "\xe2\x80\xa6");
  dlbp_text_copy(dst, dsize, buf);
}

/* Font options every context uses, so measuring and drawing agree on every surface:
** unhinted metrics (text widths do not depend on the resolution). */
void dlbp_text_setup(cairo_t *cr) {
  cairo_font_options_t *fo = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
  cairo_set_font_options(cr, fo);
  cairo_font_options_destroy(fo);
}
