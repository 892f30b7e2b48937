/*
** series_ref.c — reference lines and annotations, drawn over the data's axes rather than
** from data arrays: horizontal and vertical lines at a value, the line y = x, a text in
** data coordinates, and a shaded x range (a span, with an optional caption). Each kind's
** methods together and its method table (plot_internal.h).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* ---- hline, vline, diag: reference lines across the axes ---- */

/* An hline's value on a log y axis must be positive. */
static int hline_logcheck(const series *s, int axn) {
  if (axn == 1 && dlbp_series_num(s, "value", 1) <= 0)
    return dlb_fail(DLB_EINVAL, "panel %d: hline at %g on a log y axis", s->panel + 1,
                    dlbp_series_num(s, "value", 1));
  return DLB_OK;
}

/* A vline's value on a log x axis must be positive. */
static int vline_logcheck(const series *s, int axn) {
  if (axn == 0 && dlbp_series_num(s, "value", 1) <= 0)
    return dlb_fail(DLB_EINVAL, "panel %d: vline at %g on a log x axis", s->panel + 1,
                    dlbp_series_num(s, "value", 1));
  return DLB_OK;
}

/* An hline's value is on the y axis. */
static void hline_extent(const dlb_figure *f, series *s, extent *e) {
  dlbp_extent_add(e, 1, dlbp_series_num(s, "value", 0), &f->panels[s->panel].ax[1]);
}

/* A vline's value is on the x axis. */
static void vline_extent(const dlb_figure *f, series *s, extent *e) {
  dlbp_extent_add(e, 0, dlbp_series_num(s, "value", 0), &f->panels[s->panel].ax[0]);
}

/* An hline covers its row across the axes. */
static void hline_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  const panel *p = &f->panels[s->panel];
  double py = dlbp_panel_py(p, dlbp_series_num(s, "value", 0));
  dlbp_occ_seg(gr, p->box.x, py, p->box.x + p->box.w, py, 1);
}

/* A vline covers its column across the axes. */
static void vline_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  const panel *p = &f->panels[s->panel];
  double px = dlbp_panel_px(p, dlbp_series_num(s, "value", 0));
  dlbp_occ_seg(gr, px, p->box.y, px, p->box.y + p->box.h, 1);
}

/* A reference line's legend entry: its dashes in its colour (grey by default). */
static int ref_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  (void)cap;
  if (!dlbp_legend_label(f, s, out)) return 0;
  out->kind = LEG_LINE;
  out->rgb[0] = out->rgb[1] = out->rgb[2] = 0.3;
  if (dlbp_series_str(s, "color", NULL)) dlbp_colour_parse(dlbp_series_str(s, "color", NULL), out->rgb);
  snprintf(out->style, sizeof out->style, "%s", dlbp_series_str(s, "style", "dashed"));
  snprintf(out->marker, sizeof out->marker, "none");
  return 1;
}

/* The pen of a reference line: its colour (grey by default), width and dashes. */
static void ref_pen(cairo_t *cr, series *s) {
  double rgb[3] = {0.3, 0.3, 0.3}, lw = dlbp_series_num(s, "width", 0.8);
  const char *c = dlbp_series_str(s, "color", NULL);
  if (c) dlbp_colour_parse(c, rgb);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width(cr, lw);
  dlbp_set_dash(cr, dlbp_series_str(s, "style", "dashed"), lw);
}

/* Stroke a reference line's path and drop its dashes. */
static void ref_stroke(cairo_t *cr) {
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
}

/* A horizontal line across the axes. */
static void draw_hline(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  const rect b = p->box;
  ref_pen(cr, s);
  double y = dlbp_panel_py(p, dlbp_series_num(s, "value", 0));
  cairo_move_to(cr, b.x, y); cairo_line_to(cr, b.x + b.w, y);
  ref_stroke(cr);
}

/* A vertical line across the axes. */
static void draw_vline(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  const rect b = p->box;
  ref_pen(cr, s);
  double x = dlbp_panel_px(p, dlbp_series_num(s, "value", 0));
  cairo_move_to(cr, x, b.y); cairo_line_to(cr, x, b.y + b.h);
  ref_stroke(cr);
}

/* The line y = x, sampled so mixed linear/log axes bend correctly. */
static void draw_diag(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  ref_pen(cr, s);
  const axis *ax = &p->ax[0], *ay = &p->ax[1];
  double lo = fmax(ax->lo, ay->lo), hi = fmin(ax->hi, ay->hi);
  if (hi > lo) for (int i = 0; i <= 64; i++) {
    double v = ax->scale == DLB_SCALE_LOG && ay->scale == DLB_SCALE_LOG
               ? lo * pow(hi / lo, i / 64.0) : lo + (hi - lo) * i / 64.0;
    if (!(v > 0) && (ax->scale == DLB_SCALE_LOG || ay->scale == DLB_SCALE_LOG)) continue;
    cairo_line_to(cr, dlbp_panel_px(p, v), dlbp_panel_py(p, v));
  }
  ref_stroke(cr);
}

/* ---- text: an annotation at (x, y) ---- */

/* A text needs its text. */
static int text_validate(series *s, size_t *skipped, size_t *total) {
  (void)skipped, (void)total;
  if (!dlbp_series_str(s, "text", NULL))
    return dlb_fail(DLB_EINVAL, "text: option 'text' is missing");
  return DLB_OK;
}

/* A text's place on a log axis must be positive. */
static int text_logcheck(const series *s, int axn) {
  if (dlbp_series_num(s, axn ? "y" : "x", 1) <= 0)
    return dlb_fail(DLB_EINVAL, "panel %d: text at %c = %g on a log %c axis", s->panel + 1,
                    axn ? 'y' : 'x', dlbp_series_num(s, axn ? "y" : "x", 1), axn ? 'y' : 'x');
  return DLB_OK;
}

/* A text's anchor point. */
static void text_extent(const dlb_figure *f, series *s, extent *e) {
  const panel *p = &f->panels[s->panel];
  dlbp_extent_add(e, 0, dlbp_series_num(s, "x", 0), &p->ax[0]);
  dlbp_extent_add(e, 1, dlbp_series_num(s, "y", 0), &p->ax[1]);
}

/* Horizontal anchor of a text (0 left, 0.5 center, 1 right). */
static double text_anchor(series *s) {
  const char *an = dlbp_series_str(s, "anchor", "left");
  return strcmp(an, "center") == 0 ? 0.5 : strcmp(an, "right") == 0 ? 1 : 0;
}

/* A text's box, for the overlap check (and the occupancy, as text on the axes). */
static void text_boxes(cairo_t *cr, dlb_figure *f, series *s) {
  const panel *p = &f->panels[s->panel];
  char what[48];
  double fx = dlbp_series_num(s, "x", 0), fy = dlbp_series_num(s, "y", 0);
  double ax = text_anchor(s);
  snprintf(what, sizeof what, "text '%.30s'", dlbp_series_str(s, "text", ""));
  dlbp_layout_add_box(f, dlbp_text_box(cr, dlbp_series_str(s, "text", ""),
                                       dlbp_series_num(s, "size", f->font * 0.875), 0,
                                       dlbp_panel_px(p, fx), dlbp_panel_py(p, fy), ax, 0.5, 0),
                      s->panel, what);
}

/* A text annotation in data coordinates. */
static void draw_text(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  double rgb[3] = {0, 0, 0};
  const char *c = dlbp_series_str(s, "color", NULL);
  if (c) dlbp_colour_parse(c, rgb);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  double ax = text_anchor(s);
  dlbp_text_draw(cr, dlbp_series_str(s, "text", ""), dlbp_series_num(s, "size", f->font * 0.875), 0,
            dlbp_panel_px(p, dlbp_series_num(s, "x", 0)), dlbp_panel_py(p, dlbp_series_num(s, "y", 0)), ax, 0.5, 0,
            NULL);
}

/* ---- span: a shaded x range lo..hi ---- */

/* A span needs lo < hi. */
static int span_validate(series *s, size_t *skipped, size_t *total) {
  (void)skipped, (void)total;
  double lo = dlbp_series_num(s, "lo", NAN), hi = dlbp_series_num(s, "hi", NAN);
  if (!(lo < hi))
    return dlb_fail(DLB_EINVAL, "span: needs lo < hi (got %g, %g)", lo, hi);
  return DLB_OK;
}

/* A span on a log x axis must start above 0. */
static int span_logcheck(const series *s, int axn) {
  if (axn == 0 && dlbp_series_num(s, "lo", 1) <= 0)
    return dlb_fail(DLB_EINVAL, "panel %d: span from %g on a log x axis", s->panel + 1,
                    dlbp_series_num(s, "lo", 1));
  return DLB_OK;
}

/* A span takes the next palette colour. */
static int span_palette(series *s) { (void)s; return 1; }

/* A span's ends on the x axis. */
static void span_extent(const dlb_figure *f, series *s, extent *e) {
  const axis *ax = &f->panels[s->panel].ax[0];
  dlbp_extent_add(e, 0, dlbp_series_num(s, "lo", 0), ax);
  dlbp_extent_add(e, 0, dlbp_series_num(s, "hi", 0), ax);
}

/* A span's legend entry: a translucent patch, as a band's. */
static int span_legend(dlb_figure *f, series *s, legend_entry *out, int cap) {
  (void)cap;
  if (!dlbp_legend_label(f, s, out)) return 0;
  out->kind = LEG_BAND;
  return 1;
}

/* A span's caption box, at the top of the shaded range. */
static void span_boxes(cairo_t *cr, dlb_figure *f, series *s) {
  const panel *p = &f->panels[s->panel];
  char what[48];
  const char *t = dlbp_series_str(s, "text", "");
  if (!t[0]) return;
  double x0 = fmax(dlbp_panel_px(p, dlbp_series_num(s, "lo", 0)), p->box.x);
  double x1 = fmin(dlbp_panel_px(p, dlbp_series_num(s, "hi", 0)), p->box.x + p->box.w);
  snprintf(what, sizeof what, "span text '%.30s'", t);
  dlbp_layout_add_box(f, dlbp_text_box(cr, t, f->font * 0.75, 0, (x0 + x1) / 2, p->box.y + 2, 0.5, 0, 0),
                      s->panel, what);
}

/* A span covers its range over the full height, translucent. */
static void span_occupy(const dlb_figure *f, series *s, occgrid *gr) {
  const panel *p = &f->panels[s->panel];
  double x0 = dlbp_panel_px(p, dlbp_series_num(s, "lo", 0)), x1 = dlbp_panel_px(p, dlbp_series_num(s, "hi", 0));
  dlbp_occ_rect(gr, (rect){fmin(x0, x1), p->box.y, fabs(x1 - x0), p->box.h}, OCC_TRANSLUCENT);
}

/* A shaded x range over the full height, with an optional caption at its top. */
static void draw_span(dlb_figure *f, cairo_t *cr, series *s) {
  const panel *p = &f->panels[s->panel];
  double rgb[3], x0 = dlbp_panel_px(p, dlbp_series_num(s, "lo", 0)), x1 = dlbp_panel_px(p, dlbp_series_num(s, "hi", 0));
  dlbp_series_colour(s, rgb);
  cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], dlbp_series_num(s, "alpha", 0.15));
  cairo_rectangle(cr, x0, p->box.y, x1 - x0, p->box.h);
  cairo_fill(cr);
  const char *t = dlbp_series_str(s, "text", "");
  if (t[0]) {
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    dlbp_text_draw(cr, t, f->font * 0.75, 0, (fmax(x0, p->box.x) + fmin(x1, p->box.x + p->box.w)) / 2,
              p->box.y + 2, 0.5, 0, 0, NULL);
  }
}

const series_methods dlbp_hline_methods = {
  .name = "hline", .names = {"", "", "label color style", "value width"},
  .layer = LAYER_MARK,
  .logcheck = hline_logcheck, .extent = hline_extent, .legend = ref_legend,
  .occupy = hline_occupy, .draw = draw_hline,
};

const series_methods dlbp_vline_methods = {
  .name = "vline", .names = {"", "", "label color style", "value width"},
  .layer = LAYER_MARK,
  .logcheck = vline_logcheck, .extent = vline_extent, .legend = ref_legend,
  .occupy = vline_occupy, .draw = draw_vline,
};

/* y = x: no extent of its own (it follows the axes) and nothing the legend avoids. */
const series_methods dlbp_diag_methods = {
  .name = "diag", .names = {"", "", "label color style", "width"},
  .layer = LAYER_MARK,
  .legend = ref_legend, .draw = draw_diag,
};

/* A text: no legend entry; its box (text_boxes) is what the legend avoids. */
const series_methods dlbp_text_methods = {
  .name = "text", .names = {"", "", "text color anchor", "x y size"},
  .layer = LAYER_TEXT,
  .validate = text_validate, .logcheck = text_logcheck, .extent = text_extent,
  .boxes = text_boxes, .draw = draw_text,
};

const series_methods dlbp_span_methods = {
  .name = "span", .names = {"", "", "label color text", "lo hi alpha"},
  .unranged = "lo hi", /* a span's lo and hi are data, not percentiles */
  .layer = LAYER_AREA,
  .validate = span_validate, .logcheck = span_logcheck, .palette = span_palette,
  .extent = span_extent, .legend = span_legend, .boxes = span_boxes, .occupy = span_occupy,
  .draw = draw_span,
};
