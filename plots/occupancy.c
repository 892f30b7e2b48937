/*
** occupancy.c — what a panel's series draw, rasterised onto a grid of small cells (about
** 2 pt), with a summed-area table: the area of data under any rectangle in O(1). The
** legend's "best" place scans every position of the axes with it (not only eight), and
** f:layout_check uses it to find legends over data. Built from what is drawn, in one pass
** over the points: a line's segments, a marker's square, a bar's or box's column, a band's
** quads, reference lines; not by testing every point against every candidate.
*/
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

enum { MAXCELLS = 400 }; /* per side: coarser cells on very large axes */
/* A translucent fill (band, span) under a legend costs 2% of data: the legend goes over
** shading before it goes over lines, markers or bars. */
#define TRANSLUCENT 0.02f

typedef struct { const occupancy *o; float *g; } grid;

static void mark_cell(grid *gr, int i, int j, float w) {
  const occupancy *o = gr->o;
  if (o->solid && w < 1) return;
  if (i < 0 || j < 0 || i >= o->nx || j >= o->ny) return;
  float *c = &gr->g[(size_t)j * (size_t)o->nx + (size_t)i];
  if (w > *c) *c = w;
}

static void mark_point(grid *gr, double x, double y, float w) {
  const occupancy *o = gr->o;
  mark_cell(gr, (int)floor((x - o->x0) / o->cell), (int)floor((y - o->y0) / o->cell), w);
}

/* The cells a rectangle (points) overlaps. */
static void mark_rect(grid *gr, rect r, float w) {
  const occupancy *o = gr->o;
  if (!(r.w >= 0 && r.h >= 0) || !isfinite(r.x + r.y + r.w + r.h)) return;
  int i0 = (int)floor((r.x - o->x0) / o->cell), i1 = (int)floor((r.x + r.w - o->x0) / o->cell);
  int j0 = (int)floor((r.y - o->y0) / o->cell), j1 = (int)floor((r.y + r.h - o->y0) / o->cell);
  if (i0 < 0) i0 = 0;
  if (j0 < 0) j0 = 0;
  if (i1 >= o->nx) i1 = o->nx - 1;
  if (j1 >= o->ny) j1 = o->ny - 1;
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++) mark_cell(gr, i, j, w);
}

/* A segment, sampled every half cell (long segments are clipped to the grid first). */
static void mark_seg(grid *gr, double x0, double y0, double x1, double y1, float w) {
  const occupancy *o = gr->o;
  double gx1 = o->x0 + o->nx * o->cell, gy1 = o->y0 + o->ny * o->cell;
  if ((x0 < o->x0 && x1 < o->x0) || (x0 > gx1 && x1 > gx1) || (y0 < o->y0 && y1 < o->y0) ||
      (y0 > gy1 && y1 > gy1) || !isfinite(x0 + y0 + x1 + y1)) return;
  double len = hypot(x1 - x0, y1 - y0);
  int n = (int)(len / (o->cell * 0.5)) + 1;
  if (n > 4 * (o->nx + o->ny)) n = 4 * (o->nx + o->ny);
  for (int k = 0; k <= n; k++) {
    double t = (double)k / n;
    mark_point(gr, x0 + t * (x1 - x0), y0 + t * (y1 - y0), w);
  }
}

static int drawable(const panel *p, double x, double y) {
  return isfinite(x) && isfinite(y) && !(p->ax[0].scale == DLB_SCALE_LOG && x <= 0) &&
         !(p->ax[1].scale == DLB_SCALE_LOG && y <= 0);
}

/* Mark what series s draws. */
static void mark_series(const dlb_figure *f, series *s, grid *gr) {
  const panel *p = &f->panels[s->panel];
  darray *x = dlbp_series_data(s, "x"), *y = dlbp_series_data(s, "y");
  switch (s->kind) {
  case DLB_SERIES_LINE: case DLB_SERIES_SCATTER: {
    int line = s->kind == DLB_SERIES_LINE && strcmp(dlbp_series_str(s, "style", "solid"), "none");
    const char *m = dlbp_series_str(s, "marker", s->kind == DLB_SERIES_SCATTER ? "circle" : "none");
    double r = strcmp(m, "none") ? dlbp_series_num(s, "size", 4) / 2 : 0;
    darray *sz = s->kind == DLB_SERIES_SCATTER ? dlbp_series_data(s, "s") : NULL;
    /* a line as drawn (draw_line thins long lines per column, M4): the points of one grid
    ** column mark the column from their lowest to their highest; consecutive points in
    ** different columns are joined by a segment */
    const occupancy *o = gr->o;
    double px0 = NAN, py0 = NAN, lo = 0, hi = 0;
    long col = LONG_MIN;
    for (size_t i = 0; i <= x->n; i++) {
      int ok = i < x->n && drawable(p, x->v[i], y->v[i]);
      double px = ok ? dlbp_panel_px(p, x->v[i]) : 0, py = ok ? dlbp_panel_py(p, y->v[i]) : 0;
      long c = ok ? (long)floor((px - o->x0) / o->cell) : LONG_MIN;
      if (line && col != LONG_MIN && c != col) { /* flush the column */
        mark_rect(gr, (rect){o->x0 + col * o->cell + o->cell / 2, lo, 0, hi - lo}, 1);
        col = LONG_MIN;
      }
      if (!ok) { px0 = NAN; continue; }
      if (line) {
        if (col == LONG_MIN) {
          if (!isnan(px0)) mark_seg(gr, px0, py0, px, py, 1);
          col = c; lo = hi = py;
        }
        if (py < lo) lo = py;
        if (py > hi) hi = py;
      }
      if (r > 0 || !line) {
        double rr = sz && isfinite(sz->v[i]) && sz->v[i] > 0 ? fmin(sz->v[i], 200) / 2 : r;
        if (rr < 1) rr = 1;
        if (rr <= gr->o->cell / 2) mark_point(gr, px, py, 1);
        else mark_rect(gr, (rect){px - rr, py - rr, 2 * rr, 2 * rr}, 1);
      }
      px0 = px; py0 = py;
    }
    break;
  }
  case DLB_SERIES_BAND: {
    darray *lo = dlbp_series_data(s, "lo"), *hi = dlbp_series_data(s, "hi");
    for (size_t i = 0; i + 1 < x->n; i++) {
      if (!drawable(p, x->v[i], lo->v[i]) || !drawable(p, x->v[i + 1], hi->v[i + 1])) continue;
      double x0 = dlbp_panel_px(p, x->v[i]), x1 = dlbp_panel_px(p, x->v[i + 1]);
      double y0 = dlbp_panel_py(p, hi->v[i]), y1 = dlbp_panel_py(p, lo->v[i]);
      mark_rect(gr, (rect){fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0)}, TRANSLUCENT);
    }
    break;
  }
  case DLB_SERIES_HLINE: {
    double py = dlbp_panel_py(p, dlbp_series_num(s, "value", 0));
    mark_seg(gr, p->box.x, py, p->box.x + p->box.w, py, 1);
    break;
  }
  case DLB_SERIES_VLINE: {
    double px = dlbp_panel_px(p, dlbp_series_num(s, "value", 0));
    mark_seg(gr, px, p->box.y, px, p->box.y + p->box.h, 1);
    break;
  }
  case DLB_SERIES_SPAN: {
    double x0 = dlbp_panel_px(p, dlbp_series_num(s, "lo", 0)), x1 = dlbp_panel_px(p, dlbp_series_num(s, "hi", 0));
    mark_rect(gr, (rect){fmin(x0, x1), p->box.y, fabs(x1 - x0), p->box.h}, TRANSLUCENT);
    break;
  }
  case DLB_SERIES_BAR: case DLB_SERIES_BOX: case DLB_SERIES_HEATMAP: {
    rect rs[256];
    int n = dlbp_cat_rects(f, s, rs, 256);
    for (int i = 0; i < n; i++) mark_rect(gr, rs[i], 1);
    break;
  }
  case DLB_SERIES_ROOFLINE: { /* few ceiling segments: ask them per cell; each point once */
    const occupancy *o = gr->o;
    for (int j = 0; j < o->ny; j++)
      for (int i = 0; i < o->nx; i++) {
        rect c = {o->x0 + i * o->cell, o->y0 + j * o->cell, o->cell, o->cell};
        if (dlbp_roof_covers_lines(f, s, c) > 0) mark_cell(gr, i, j, 1);
      }
    darray *rx = dlbp_series_data(s, "px"), *ry = dlbp_series_data(s, "py");
    if (rx) for (size_t i = 0; i < rx->n; i++)
      if (rx->v[i] > 0 && ry->v[i] > 0)
        mark_point(gr, dlbp_panel_px(p, rx->v[i]), dlbp_panel_py(p, ry->v[i]), 1);
    break;
  }
  default: break;
  }
}

/* Build the occupancy of panel pi's axes box (and the text boxes of annotations on it). */
int dlbp_occupancy_build(const dlb_figure *f, int pi, int solid, occupancy *o) {
  const panel *p = &f->panels[pi];
  memset(o, 0, sizeof *o);
  o->solid = solid;
  o->x0 = p->box.x;
  o->y0 = p->box.y;
  o->cell = 2;
  double side = fmax(p->box.w, p->box.h);
  if (side / o->cell > MAXCELLS) o->cell = side / MAXCELLS;
  o->nx = (int)ceil(p->box.w / o->cell);
  o->ny = (int)ceil(p->box.h / o->cell);
  if (o->nx < 1) o->nx = 1;
  if (o->ny < 1) o->ny = 1;
  size_t n = (size_t)o->nx * (size_t)o->ny;
  float *g = dlb_calloc(n, sizeof *g);
  o->sat = dlb_calloc((size_t)(o->nx + 1) * (size_t)(o->ny + 1), sizeof *o->sat);
  if (!g || !o->sat) {
    dlb_free(g); dlb_free(o->sat); o->sat = NULL;
    return dlb_fail(DLB_ENOMEM, "layout: out of memory");
  }
  grid gr = {o, g};
  for (int i = 0; i < f->nseries; i++) {
    series *s = &f->series[i];
    if (!s->dead && s->committed && s->panel == pi) mark_series(f, s, &gr);
  }
  for (size_t j = 0; j < f->nboxes; j++) /* annotations and other text on the axes */
    if (f->boxes[j].panel == pi && strcmp(f->boxes[j].what, "legend") != 0)
      mark_rect(&gr, f->boxes[j].r, 1000);
  const size_t W = (size_t)o->nx + 1;
  for (int j = 0; j < o->ny; j++) {
    double row = 0;
    for (int i = 0; i < o->nx; i++) {
      row += g[(size_t)j * (size_t)o->nx + (size_t)i];
      o->sat[(size_t)(j + 1) * W + (size_t)(i + 1)] = o->sat[(size_t)j * W + (size_t)(i + 1)] + row;
    }
  }
  dlb_free(g);
  return DLB_OK;
}

void dlbp_occupancy_free(occupancy *o) {
  dlb_free(o->sat);
  o->sat = NULL;
}

double dlbp_occupancy_area(const occupancy *o, rect r) {
  if (!o->sat) return 0;
  int i0 = (int)floor((r.x - o->x0) / o->cell + 1e-9), j0 = (int)floor((r.y - o->y0) / o->cell + 1e-9);
  int i1 = (int)ceil((r.x + r.w - o->x0) / o->cell - 1e-9);
  int j1 = (int)ceil((r.y + r.h - o->y0) / o->cell - 1e-9);
  if (i0 < 0) i0 = 0;
  if (j0 < 0) j0 = 0;
  if (i1 > o->nx) i1 = o->nx;
  if (j1 > o->ny) j1 = o->ny;
  if (i1 <= i0 || j1 <= j0) return 0;
  const size_t W = (size_t)o->nx + 1;
  double s = o->sat[(size_t)j1 * W + (size_t)i1] - o->sat[(size_t)j0 * W + (size_t)i1] -
             o->sat[(size_t)j1 * W + (size_t)i0] + o->sat[(size_t)j0 * W + (size_t)i0];
  return s * o->cell * o->cell;
}
