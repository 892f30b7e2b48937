/*
** occupancy.c — what a panel's series draw, rasterised onto a grid of small cells (about
** 2 pt), with a summed-area table: the area of data under any rectangle in O(1). The
** legend's "best" place scans every position of the axes with it (not only eight), and
** f:layout_check uses it to find legends over data. Built from what is drawn, in one pass
** over the points: a line's segments, a marker's square, a bar's or box's column, a band's
** quads, reference lines; not by testing every point against every candidate. Each kind
** marks its own drawing (its `occupy` method) with the helpers here.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

enum { MAXCELLS = 400 }; /* per side: coarser cells on very large axes */
/* (A translucent fill (band, span) under a legend costs OCC_TRANSLUCENT, 2% of data: the
** legend goes over shading before it goes over lines, markers or bars.) */

/* Mark cell (i, j) with weight w (a cell keeps its largest); cells off the grid and, on a
** solid grid, translucent fills are left out. */
void dlbp_occ_cell(occgrid *gr, int i, int j, float w) {
  const occupancy *o = gr->o;
  if (o->solid && w < 1) return;
  if (i < 0 || j < 0 || i >= o->nx || j >= o->ny) return;
  float *c = &gr->g[(size_t)j * (size_t)o->nx + (size_t)i];
  if (w > *c) *c = w;
}

/* Mark the cell under point (x, y). */
void dlbp_occ_point(occgrid *gr, double x, double y, float w) {
  const occupancy *o = gr->o;
  dlbp_occ_cell(gr, (int)floor((x - o->x0) / o->cell), (int)floor((y - o->y0) / o->cell), w);
}

/* The cells a rectangle (points) overlaps. */
void dlbp_occ_rect(occgrid *gr, rect r, float w) {
  const occupancy *o = gr->o;
  if (!(r.w >= 0 && r.h >= 0) || !isfinite(r.x + r.y + r.w + r.h)) return;
  int i0 = (int)floor((r.x - o->x0) / o->cell), i1 = (int)floor((r.x + r.w - o->x0) / o->cell);
  int j0 = (int)floor((r.y - o->y0) / o->cell), j1 = (int)floor((r.y + r.h - o->y0) / o->cell);
  if (i0 < 0) i0 = 0;
  if (j0 < 0) j0 = 0;
  if (i1 >= o->nx) i1 = o->nx - 1;
  if (j1 >= o->ny) j1 = o->ny - 1;
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++) dlbp_occ_cell(gr, i, j, w);
}

/* A segment, sampled every half cell (long segments are clipped to the grid first). */
void dlbp_occ_seg(occgrid *gr, double x0, double y0, double x1, double y1, float w) {
  const occupancy *o = gr->o;
  double gx1 = o->x0 + o->nx * o->cell, gy1 = o->y0 + o->ny * o->cell;
  if ((x0 < o->x0 && x1 < o->x0) || (x0 > gx1 && x1 > gx1) || (y0 < o->y0 && y1 < o->y0) ||
      (y0 > gy1 && y1 > gy1) || !isfinite(x0 + y0 + x1 + y1)) return;
  double len = hypot(x1 - x0, y1 - y0);
  int n = (int)(len / (o->cell * 0.5)) + 1;
  if (n > 4 * (o->nx + o->ny)) n = 4 * (o->nx + o->ny);
  for (int k = 0; k <= n; k++) {
    double t = (double)k / n;
    dlbp_occ_point(gr, x0 + t * (x1 - x0), y0 + t * (y1 - y0), w);
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
  occgrid gr = {o, g};
  for (int i = 0; i < f->nseries; i++) {
    series *s = &f->series[i];
    if (!s->dead && s->committed && s->panel == pi && s->methods->occupy)
      s->methods->occupy(f, s, &gr);
  }
  for (size_t j = 0; j < f->nboxes; j++) /* annotations and other text on the axes */
    if (f->boxes[j].panel == pi && strcmp(f->boxes[j].what, "legend") != 0)
      dlbp_occ_rect(&gr, f->boxes[j].r, 1000);
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

/* Free what an occupancy holds. */
void dlbp_occupancy_free(occupancy *o) {
  dlb_free(o->sat);
  o->sat = NULL;
}

/* The weighted area (pt^2) under rectangle r, from the summed-area table. */
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
