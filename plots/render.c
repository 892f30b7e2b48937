/*
** render.c — drawing a laid-out figure once against a cairo_t (axes, grid, series,
** ticks, labels, colour bars, legends), the surface chosen by the file extension (PNG,
** PDF, SVG) written to a temporary file and renamed, and reading PNGs back for tests.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* Tick marks (major and minor), tick labels and axis labels of a panel. */
static void draw_axis_ticks(dlb_figure *f, cairo_t *cr, panel *p) {
  const rect b = p->box;
  double ts = f->font * 0.875;
  axis *x = &p->ax[0], *y = &p->ax[1];
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 0.6);
  for (int i = 0; i < x->nticks; i++) {
    double px = dlbp_panel_px(p, x->ticks[i]);
    cairo_move_to(cr, px, b.y + b.h); cairo_line_to(cr, px, b.y + b.h + TICK);
  }
  for (int i = 0; i < y->nticks; i++) {
    double py = dlbp_panel_py(p, y->ticks[i]);
    cairo_move_to(cr, b.x, py); cairo_line_to(cr, b.x - TICK, py);
  }
  cairo_stroke(cr);
  cairo_set_line_width(cr, 0.45);
  for (int i = 0; i < x->nminor; i++) {
    double px = dlbp_panel_px(p, x->minor[i]);
    cairo_move_to(cr, px, b.y + b.h); cairo_line_to(cr, px, b.y + b.h + TICK * 0.6);
  }
  for (int i = 0; i < y->nminor; i++) {
    double py = dlbp_panel_py(p, y->minor[i]);
    cairo_move_to(cr, b.x, py); cairo_line_to(cr, b.x - TICK * 0.6, py);
  }
  cairo_stroke(cr);
  double xw = 0, xh = 0, yw = 0;
  if (x->show_labels) {
    for (int i = 0; i < x->nticks; i++) {
      double px = dlbp_panel_px(p, x->ticks[i]), py = b.y + b.h + TICK + PAD, w, h;
      dlbp_text_extent(cr, x->tlabels[i], ts, 0, &w, &h);
      xw = fmax(xw, w); xh = fmax(xh, h);
      if (x->rotate) dlbp_text_draw(cr, x->tlabels[i], ts, 0, px, py, 1, 0.5, M_PI / 2, NULL);
      else dlbp_text_draw(cr, x->tlabels[i], ts, 0, px, py, 0.5, 0, 0, NULL);
    }
    if (x->label[0])
      dlbp_text_draw(cr, x->label_fit, x->label_size, 0, x->label_pos,
                b.y + b.h + TICK + PAD + (x->rotate ? xw : xh) + PAD, 0.5, 0, 0, NULL);
  }
  if (y->show_labels) {
    for (int i = 0; i < y->nticks; i++) {
      double w, h;
      dlbp_text_extent(cr, y->tlabels[i], ts, 0, &w, &h);
      yw = fmax(yw, w);
      dlbp_text_draw(cr, y->tlabels[i], ts, 0, b.x - TICK - PAD, dlbp_panel_py(p, y->ticks[i]), 1, 0.5,
                0, NULL);
    }
    if (y->label[0])
      dlbp_text_draw(cr, y->label_fit, y->label_size, 0, b.x - TICK - PAD - yw - PAD, y->label_pos,
                0.5, 1, M_PI / 2, NULL);
  }
}

/* Light grid lines at the major ticks of numeric axes. */
static void draw_grid(cairo_t *cr, panel *p) {
  cairo_save(cr);
  cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
  cairo_set_line_width(cr, 0.4);
  for (int i = 0; i < p->ax[0].nticks && !p->ax[0].ncats; i++) {
    double px = dlbp_panel_px(p, p->ax[0].ticks[i]);
    cairo_move_to(cr, px, p->box.y); cairo_line_to(cr, px, p->box.y + p->box.h);
  }
  for (int i = 0; i < p->ax[1].nticks && !p->ax[1].ncats; i++) {
    double py = dlbp_panel_py(p, p->ax[1].ticks[i]);
    cairo_move_to(cr, p->box.x, py); cairo_line_to(cr, p->box.x + p->box.w, py);
  }
  cairo_stroke(cr);
  cairo_restore(cr);
}

/* A panel's colour bar: the map as a vertical gradient, ticks, labels. */
static void draw_colorbar(dlb_figure *f, cairo_t *cr, panel *p) {
  series *s = &f->series[p->cbar_series];
  int cmap = dlbp_cmap_from_name(dlbp_series_str(s, "cmap", "viridis"));
  double vmin, vmax, center, rgb[3];
  dlbp_cmap_norm(s, &vmin, &vmax, &center);
  const rect c = p->cbar;
  cairo_pattern_t *g = cairo_pattern_create_linear(0, c.y + c.h, 0, c.y);
  for (int i = 0; i <= 32; i++) {
    dlbp_cmap_rgb(cmap, i / 32.0, rgb);
    cairo_pattern_add_color_stop_rgb(g, i / 32.0, rgb[0], rgb[1], rgb[2]);
  }
  cairo_rectangle(cr, c.x, c.y, c.w, c.h);
  cairo_set_source(cr, g);
  cairo_fill(cr);
  cairo_pattern_destroy(g);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 0.6);
  cairo_rectangle(cr, c.x, c.y, c.w, c.h);
  cairo_stroke(cr);
  axis *a = &p->cbar_axis;
  double ts = f->font * 0.875, mw = 0;
  for (int i = 0; i < a->nticks; i++) {
    double t = dlbp_cmap_t(a->ticks[i], vmin, vmax, center), y = c.y + c.h * (1 - t), w, h;
    if (t < -1e-9 || t > 1 + 1e-9) continue;
    cairo_move_to(cr, c.x + c.w, y); cairo_line_to(cr, c.x + c.w + TICK, y);
    cairo_stroke(cr);
    dlbp_text_draw(cr, a->tlabels[i], ts, 0, c.x + c.w + TICK + PAD, y, 0, 0.5, 0, NULL);
    dlbp_text_extent(cr, a->tlabels[i], ts, 0, &w, &h);
    mw = fmax(mw, w);
  }
  const char *cl = dlbp_series_str(s, "colorbar_label", "");
  if (cl[0])
    dlbp_text_draw(cr, cl, f->font, 0, c.x + c.w + TICK + PAD + mw + PAD, c.y + c.h / 2, 0.5, 0,
              M_PI / 2, NULL);
}

/* A panel's legend box: swatches (line, marker, patch, hatch) and labels. */
static void draw_legend(dlb_figure *f, cairo_t *cr, int pi) {
  panel *p = &f->panels[pi];
  legend_entry e[32];
  int n = dlbp_legend_entries(f, pi, e, 32);
  if (!p->has_legend || n == 0) return;
  const rect b = p->legend_box;
  cairo_rectangle(cr, b.x, b.y, b.w, b.h);
  cairo_set_source_rgba(cr, 1, 1, 1, 0.88);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 0.7, 0.7, 0.7);
  cairo_set_line_width(cr, 0.4);
  cairo_stroke(cr);
  double ts = f->font * 0.875, colw, rowh;
  int cols = p->legend_cols < 1 ? 1 : p->legend_cols;
  dlbp_legend_grid(cr, f, e, n, &colw, &rowh);
  for (int i = 0; i < n; i++) {
    double w, h;
    dlbp_text_extent(cr, e[i].label, ts, 0, &w, &h);
    double y = b.y + PAD + (i / cols) * rowh;
    double cy = y + h / 2, x = b.x + PAD + (i % cols) * (colw + PAD);
    cairo_save(cr);
    cairo_set_source_rgb(cr, e[i].rgb[0], e[i].rgb[1], e[i].rgb[2]);
    if (e[i].kind == LEG_LINE) {
      double lw = e[i].sid >= 0 ? dlbp_series_num(&f->series[e[i].sid], "width", 1.2) : 1.3;
      cairo_set_line_width(cr, lw);
      dlbp_set_dash(cr, e[i].style[0] ? e[i].style : "solid", lw);
      cairo_move_to(cr, x, cy); cairo_line_to(cr, x + 14, cy);
      cairo_stroke(cr);
      cairo_set_dash(cr, NULL, 0, 0);
    }
    if ((e[i].kind == LEG_LINE || e[i].kind == LEG_MARKER) && e[i].marker[0] &&
        strcmp(e[i].marker, "none")) {
      cairo_set_line_width(cr, 0.8);
      dlbp_draw_marker(cr, e[i].marker, x + 7, cy, 4);
      if (dlbp_marker_open(e[i].marker)) cairo_stroke(cr);
      else cairo_fill(cr);
    }
    rect sw = {x + 2, cy - h * 0.3, 10, h * 0.6};
    if (e[i].kind == LEG_PATCH || e[i].kind == LEG_BAND) {
      if (e[i].kind == LEG_BAND) cairo_set_source_rgba(cr, e[i].rgb[0], e[i].rgb[1],
                                                       e[i].rgb[2], 0.3);
      cairo_rectangle(cr, sw.x, sw.y, sw.w, sw.h);
      cairo_fill(cr);
    } else if (e[i].kind == LEG_HATCH || e[i].kind == LEG_WHITE) {
      cairo_rectangle(cr, sw.x, sw.y, sw.w, sw.h);
      cairo_set_source_rgb(cr, 1, 1, 1);
      cairo_fill_preserve(cr);
      cairo_clip_preserve(cr);
      if (e[i].kind == LEG_HATCH) {
        cairo_new_path(cr);
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        cairo_set_line_width(cr, 0.5);
        for (double t = -sw.h; t < sw.w; t += 3) {
          cairo_move_to(cr, sw.x + t, sw.y + sw.h); cairo_line_to(cr, sw.x + t + sw.h, sw.y);
        }
        cairo_stroke(cr);
      }
      cairo_reset_clip(cr);
      cairo_rectangle(cr, sw.x, sw.y, sw.w, sw.h);
      cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
      cairo_set_line_width(cr, 0.4);
      cairo_stroke(cr);
    }
    cairo_restore(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    dlbp_text_draw(cr, e[i].label, ts, 0, x + 14 + PAD, y, 0, 0, 0, NULL);
  }
}

/* Draw a panel's series of one layer (LAYER_*), in order, each with cr's state saved and
** restored around it. */
static void draw_layer(dlb_figure *f, cairo_t *cr, int pi, int layer) {
  for (int i = 0; i < f->nseries; i++) {
    series *s = &f->series[i];
    if (s->dead || !s->committed || s->panel != pi || s->methods->layer != layer ||
        !s->methods->draw) continue;
    cairo_save(cr);
    cairo_new_path(cr); /* the path and current point are not part of save/restore */
    s->methods->draw(f, cr, s);
    cairo_restore(cr);
  }
}

/* Draw the laid-out figure onto cr (in points). */
void dlbp_render_figure(dlb_figure *f, cairo_t *cr) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  if (f->title[0]) {
    cairo_set_source_rgb(cr, 0, 0, 0);
    dlbp_text_draw(cr, f->title_fit, f->title_size, 1, f->title_x, PAD, 0.5, 0, 0, NULL);
  }
  for (int pi = 0; pi < f->rows * f->cols; pi++) {
    panel *p = &f->panels[pi];
    if (p->grid) draw_grid(cr, p);
    cairo_save(cr);
    cairo_rectangle(cr, p->box.x, p->box.y, p->box.w, p->box.h);
    cairo_clip(cr);
    draw_layer(f, cr, pi, LAYER_AREA); /* areas first, then lines and marks, then text */
    draw_layer(f, cr, pi, LAYER_MARK);
    cairo_restore(cr);
    draw_layer(f, cr, pi, LAYER_TEXT);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.6);
    cairo_rectangle(cr, p->box.x, p->box.y, p->box.w, p->box.h);
    cairo_stroke(cr);
    draw_axis_ticks(f, cr, p);
    if (p->title[0])
      dlbp_text_draw(cr, p->title_fit, p->title_size, 1, p->title_x, p->box.y - PAD - p->title_above,
                0.5, 1, 0, NULL);
    if (p->cbar_series >= 0) draw_colorbar(f, cr, p);
    draw_legend(f, cr, pi);
  }
}

/* The file a figure goes to, and why its first failed write failed (errno; 0: none), so
** the message says "File too large" or "No space left on device", not only Cairo's "error
** while writing to output stream". */
typedef struct { FILE *f; int err; } outfile;

/* fwrite to o, keeping the reason of a failure. */
static int put(outfile *o, const void *data, size_t len) {
  errno = 0;
  if (fwrite(data, 1, len, o->f) == len) return 1;
  if (!o->err) o->err = errno ? errno : EIO;
  return 0;
}

/* Cairo write callback into an outfile. */
static cairo_status_t write_stream(void *closure, const unsigned char *data, unsigned len) {
  return put(closure, data, len) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* A growable byte buffer for the PNG stream. */
typedef struct { unsigned char *p; size_t n, cap; int failed; } membuf;

/* Cairo write callback into a growable memory buffer. */
static cairo_status_t write_mem(void *closure, const unsigned char *data, unsigned len) {
  membuf *m = closure;
  if (m->n + len > m->cap) {
    size_t cap = m->cap ? m->cap : 65536;
    while (cap < m->n + len) cap *= 2;
    unsigned char *np = dlb_realloc(m->p, cap);
    if (!np) { m->failed = 1; return CAIRO_STATUS_NO_MEMORY; }
    m->p = np;
    m->cap = cap;
  }
  memcpy(m->p + m->n, data, len);
  m->n += len;
  return CAIRO_STATUS_SUCCESS;
}

/* CRC-32 of PNG chunks (ISO 3309, the PNG specification's sample code). */
static unsigned long crc32_png(const unsigned char *buf, size_t len) {
  unsigned long c = 0xffffffffUL;
  for (size_t i = 0; i < len; i++) {
    c ^= buf[i];
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320UL ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xffffffffUL;
}

/* Big-endian 32-bit integer, as PNG stores them. */
static void put32(unsigned char *p, unsigned long v) {
  p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v;
}

/* Write Cairo's PNG with a pHYs chunk after IHDR, so LaTeX and viewers know its size in
** inches (dpi as pixels per metre). Cairo's PNG starts with the 8-byte signature and the
** 25-byte IHDR chunk. */
static cairo_status_t write_png_dpi(const membuf *m, double dpi, outfile *out) {
  if (m->n < 33 || memcmp(m->p + 12, "IHDR", 4) != 0)
    return put(out, m->p, m->n) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
  unsigned char chunk[21];
  unsigned long ppm = (unsigned long)floor(dpi / 0.0254 + 0.5);
  put32(chunk, 9);
  memcpy(chunk + 4, "pHYs", 4);
  put32(chunk + 8, ppm);
  put32(chunk + 12, ppm);
  chunk[16] = 1; /* unit: metre */
  put32(chunk + 17, crc32_png(chunk + 4, 13));
  if (!put(out, m->p, 33) || !put(out, chunk, 21) || !put(out, m->p + 33, m->n - 33))
    return CAIRO_STATUS_WRITE_ERROR;
  return CAIRO_STATUS_SUCCESS;
}

/* The reproducible-builds convention (reproducible-builds.org/specs/source-date-epoch/):
** when SOURCE_DATE_EPOCH is set (seconds since 1970-01-01 00:00 UTC, as `date +%s` prints
** them), a PDF carries that date as its creation and modification dates instead of now (the
** one thing that made two saves of a figure differ: Cairo writes the clock's time), so the
** same figure saved twice is the same bytes. iso gets the date as Cairo's metadata takes it,
** "YYYY-MM-DDThh:mm:ssZ", or "" when the variable is unset or empty. A value that is not a
** whole number of seconds from 0 to the end of year 9999 is an error naming it (the
** specification: a malformed value is an error, not silently the clock's time). */
static int source_date(const char *path, char iso[32]) {
  iso[0] = 0;
  const char *v = getenv("SOURCE_DATE_EPOCH");
  if (!v || !v[0]) return DLB_OK;
  long long secs = 0;
  const char *c = v;
  for (; *c >= '0' && *c <= '9' && secs <= 253402300799LL; c++) secs = secs * 10 + (*c - '0');
  struct tm tm;
  time_t t = (time_t)secs;
  if (*c || secs > 253402300799LL || !gmtime_r(&t, &tm))
    return dlb_fail(DLB_EINVAL, "save '%s': SOURCE_DATE_EPOCH='%.40s' is not a whole number of "
                    "seconds since 1970-01-01 00:00 UTC (0 to 253402300799, as `date +%%s` prints)",
                    path, v);
  strftime(iso, 32, "%Y-%m-%dT%H:%M:%SZ", &tm); /* years 1970-9999: 20 characters */
  return DLB_OK;
}

/* Draw into a surface writing to out; DLB_OK or a failure status. iso: the PDF's date
** (source_date), "" for Cairo's default (now). */
static int draw_to(dlb_figure *f, const char *ext, double dpi, outfile *out, const char *path,
                   const char *iso) {
  cairo_surface_t *sf;
  double scale = 1;
  if (strcasecmp(ext, "png") == 0) {
    scale = dpi / 72;
    int w = (int)ceil(f->width * scale - 1e-9), h = (int)ceil(f->height * scale - 1e-9);
    sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
  } else if (strcasecmp(ext, "pdf") == 0) {
    sf = cairo_pdf_surface_create_for_stream(write_stream, out, f->width, f->height);
    if (iso[0] && cairo_surface_status(sf) == CAIRO_STATUS_SUCCESS) {
      cairo_pdf_surface_set_metadata(sf, CAIRO_PDF_METADATA_CREATE_DATE, iso);
      cairo_pdf_surface_set_metadata(sf, CAIRO_PDF_METADATA_MOD_DATE, iso);
    }
  } else {
    sf = cairo_svg_surface_create_for_stream(write_stream, out, f->width, f->height);
    if (cairo_surface_status(sf) == CAIRO_STATUS_SUCCESS)
      cairo_svg_surface_set_document_unit(sf, CAIRO_SVG_UNIT_PT);
  }
  if (cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS) {
    int st = dlb_fail(DLB_EIO, "save '%s': cannot create the surface: %s", path,
                      cairo_status_to_string(cairo_surface_status(sf)));
    cairo_surface_destroy(sf);
    return st;
  }
  cairo_t *cr = cairo_create(sf);
  dlbp_text_setup(cr);
  cairo_scale(cr, scale, scale);
  dlbp_render_figure(f, cr);
  cairo_status_t cs = cairo_status(cr);
  cairo_destroy(cr);
  if (cs == CAIRO_STATUS_SUCCESS) {
    if (strcasecmp(ext, "png") == 0) {
      membuf m = {NULL, 0, 0, 0};
      cs = cairo_surface_write_to_png_stream(sf, write_mem, &m);
      if (cs == CAIRO_STATUS_SUCCESS) cs = write_png_dpi(&m, dpi, out);
      dlb_free(m.p);
    } else {
      cairo_surface_finish(sf);
      cs = cairo_surface_status(sf);
    }
  }
  cairo_surface_destroy(sf);
  if (cs == CAIRO_STATUS_WRITE_ERROR && out->err)
    return dlb_fail(DLB_EIO, "save '%s': %s", path, strerror(out->err));
  if (cs != CAIRO_STATUS_SUCCESS)
    return dlb_fail(DLB_EIO, "save '%s': %s", path, cairo_status_to_string(cs));
  return DLB_OK;
}

/* Write the figure to path (format by extension), whole or not at all. */
int dlb_figure_save(dlb_figure *f, const char *path, double dpi) {
  if (!f || !path || !path[0]) return dlb_fail(DLB_EINVAL, "save: no figure or path");
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  const char *ext = dot && (!slash || dot > slash) ? dot + 1 : "";
  if (strcasecmp(ext, "png") && strcasecmp(ext, "pdf") && strcasecmp(ext, "svg"))
    return dlb_fail(DLB_EINVAL, "save '%s': unknown file type '%s' (use .png, .pdf or .svg)",
                    path, ext);
  if (dpi <= 0) dpi = f->dpi;
  if (!(dpi >= 10 && dpi <= 2400)) return dlb_fail(DLB_EINVAL, "save: dpi %g is not 10-2400", dpi);
  if (strcasecmp(ext, "png") == 0 && (f->width * dpi / 72 * f->height * dpi / 72 > 4e8 ||
                                       f->width * dpi / 72 > 32767 || f->height * dpi / 72 > 32767))
    return dlb_fail(DLB_EINVAL, "save '%s': %g dpi makes a PNG over 400 Mpixel or 32767 pixels "
                    "a side", path, dpi);
  int st = dlb_figure_layout(f);
  if (st != DLB_OK) return st;
  char iso[32] = "";
  if (strcasecmp(ext, "pdf") == 0 && (st = source_date(path, iso)) != DLB_OK) return st;
  /* the one writer (graphs/base/file.c): temporary file beside the target, fsync, rename */
  dlb_file_tmp t;
  st = dlb_file_begin(path, &t);
  if (st != DLB_OK) return st; /* "cannot write PATH: why" */
  int fd = dup(t.fd);
  FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
  outfile o = {fp, 0}, *out = &o;
  if (!fp) {
    st = dlb_fail(DLB_EIO, "save '%s': %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    dlb_file_abort(&t);
    return st;
  }
  st = draw_to(f, ext, dpi, out, path, iso);
  if (fflush(fp) != 0 && st == DLB_OK)
    st = dlb_fail(DLB_EIO, "save '%s': %s", path, strerror(errno));
  if (fclose(fp) != 0 && st == DLB_OK)
    st = dlb_fail(DLB_EIO, "save '%s': %s", path, strerror(errno));
  if (st != DLB_OK) { dlb_file_abort(&t); return st; }
  return dlb_file_commit(&t, 0);
}

/* A PNG as an image surface, or NULL with a message. */
static cairo_surface_t *load_png(const char *path) {
  if (!path) { dlb_fail(DLB_EINVAL, "png: no path"); return NULL; }
  cairo_surface_t *s = cairo_image_surface_create_from_png(path);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    dlb_fail(DLB_EIO, "png '%s': %s", path, cairo_status_to_string(cairo_surface_status(s)));
    cairo_surface_destroy(s);
    return NULL;
  }
  return s;
}

/* Width and height of a PNG in pixels. */
int dlb_png_size(const char *path, int *width, int *height) {
  cairo_surface_t *s = load_png(path);
  if (!s) return DLB_EIO;
  *width = cairo_image_surface_get_width(s);
  *height = cairo_image_surface_get_height(s);
  cairo_surface_destroy(s);
  return DLB_OK;
}

/* Pixel (x, y) of a PNG as un-premultiplied rgba[4] in 0..1. */
int dlb_png_pixel(const char *path, int x, int y, double *rgba) {
  cairo_surface_t *s = load_png(path);
  if (!s) return DLB_EIO;
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s), st = DLB_OK;
  cairo_format_t fmt = cairo_image_surface_get_format(s);
  if (x < 0 || y < 0 || x >= w || y >= h) {
    st = dlb_fail(DLB_EINVAL, "png '%s': pixel (%d, %d) outside %d x %d", path, x, y, w, h);
  } else if (fmt != CAIRO_FORMAT_ARGB32 && fmt != CAIRO_FORMAT_RGB24) {
    st = dlb_fail(DLB_EINVAL, "png '%s': unsupported pixel format", path);
  } else {
    cairo_surface_flush(s);
    const unsigned char *row = cairo_image_surface_get_data(s) +
                               (size_t)y * (size_t)cairo_image_surface_get_stride(s);
    unsigned v;
    memcpy(&v, row + 4 * (size_t)x, 4);
    double a = fmt == CAIRO_FORMAT_ARGB32 ? ((v >> 24) & 255) / 255.0 : 1;
    rgba[3] = a;
    for (int c = 0; c < 3; c++) { /* un-premultiply */
      double ch = ((v >> (16 - 8 * c)) & 255) / 255.0;
      rgba[c] = a > 0 ? ch / a : 0;
    }
  }
  cairo_surface_destroy(s);
  return st;
}
