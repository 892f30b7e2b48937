/*
** layout_check.c — what a finished layout is checked for (f:layout_check(), the overlaps
** tests ask for, f:warnings()): the text boxes of titles, labels, ticks, legends and
** colour bars; pairs that overlap or leave the figure; legends over data where a free
** spot exists; colour bars without a label; points outside user-set limits. Where things
** go is layout.c.
*/
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* Text boxes of the layout, for the overlap check. */
void dlbp_layout_boxes(cairo_t *cr, dlb_figure *f) {
  f->nboxes = 0;
  double ts = f->font * 0.875;
  if (f->title[0])
    dlbp_layout_add_box(f, dlbp_text_box(cr, f->title_fit, f->title_size, 1, f->title_x, PAD, 0.5, 0,
                               0), -1, "figure title");
  for (int pi = 0; pi < f->rows * f->cols; pi++) {
    panel *p = &f->panels[pi];
    char what[48];
    axis *x = &p->ax[0], *y = &p->ax[1];
    double lh = dlbp_label_h(cr, f), xw = 0, xh = 0, yw = 0, yh = 0;
    dlbp_tick_sizes(cr, f, x, &xw, &xh);
    dlbp_tick_sizes(cr, f, y, &yw, &yh);
    if (x->show_labels) {
      for (int i = 0; i < x->nticks; i++) {
        snprintf(what, sizeof what, "x tick '%.30s'", x->tlabels[i]);
        double px = dlbp_panel_px(p, x->ticks[i]), py = p->box.y + p->box.h + TICK + PAD;
        dlbp_layout_add_box(f, x->rotate ? dlbp_text_box(cr, x->tlabels[i], ts, 0, px, py, 1, 0.5, 1)
                                    : dlbp_text_box(cr, x->tlabels[i], ts, 0, px, py, 0.5, 0, 0),
                       pi, what);
      }
      if (x->label[0])
        dlbp_layout_add_box(f, dlbp_text_box(cr, x->label_fit, x->label_size, 0, x->label_pos,
                                   p->box.y + p->box.h + TICK + PAD + (x->rotate ? xw : xh) + PAD,
                                   0.5, 0, 0), pi, "x label");
    }
    if (y->show_labels) {
      for (int i = 0; i < y->nticks; i++) {
        snprintf(what, sizeof what, "y tick '%.30s'", y->tlabels[i]);
        dlbp_layout_add_box(f, dlbp_text_box(cr, y->tlabels[i], ts, 0, p->box.x - TICK - PAD,
                                   dlbp_panel_py(p, y->ticks[i]), 1, 0.5, 0), pi, what);
      }
      if (y->label[0])
        dlbp_layout_add_box(f, dlbp_text_box(cr, y->label_fit, y->label_size, 0,
                                   p->box.x - TICK - PAD - yw - PAD, y->label_pos, 0.5, 1, 1),
                       pi, "y label");
    }
    (void)lh;
    if (p->title[0])
      dlbp_layout_add_box(f, dlbp_text_box(cr, p->title_fit, p->title_size, 1, p->title_x,
                                 p->box.y - PAD - p->title_above, 0.5, 1, 0), pi, "title");
    if (p->cbar_series >= 0) {
      axis *a = &p->cbar_axis;
      double vmin, vmax, c, cw = 0, chh;
      dlbp_cmap_norm(&f->series[p->cbar_series], &vmin, &vmax, &c);
      dlbp_tick_sizes(cr, f, a, &cw, &chh);
      for (int i = 0; i < a->nticks; i++) {
        double t = dlbp_cmap_t(a->ticks[i], vmin, vmax, c);
        snprintf(what, sizeof what, "colour bar tick '%.24s'", a->tlabels[i]);
        dlbp_layout_add_box(f, dlbp_text_box(cr, a->tlabels[i], ts, 0, p->cbar.x + p->cbar.w + TICK + PAD,
                                   p->cbar.y + p->cbar.h * (1 - t), 0, 0.5, 0), pi, what);
      }
      const char *cl = dlbp_series_str(&f->series[p->cbar_series], "colorbar_label", "");
      if (cl[0])
        dlbp_layout_add_box(f, dlbp_text_box(cr, cl, f->font, 0, p->cbar.x + p->cbar.w + TICK + PAD + cw
                                   + PAD, p->cbar.y + p->cbar.h / 2, 0.5, 0, 1), pi,
                       "colour bar label");
      else /* no label: recorded for the check (unlabelled_cbars) */
        dlbp_layout_add_box(f, p->cbar, pi, "colour bar");
    }
    for (int i = 0; i < f->nseries; i++) { /* the series' own texts: captions, labels */
      series *s = &f->series[i];
      if (!s->dead && s->committed && s->panel == pi && s->methods->boxes)
        s->methods->boxes(cr, f, s);
    }
  }
}

/* Do two boxes overlap by more than rounding? */
static int overlap(rect a, rect b) {
  double ix = fmin(a.x + a.w, b.x + b.w) - fmax(a.x, b.x);
  double iy = fmin(a.y + a.h, b.y + b.h) - fmax(a.y, b.y);
  return ix > 0.25 && iy > 0.25; /* a quarter point of slack for rounding */
}

/* Every pair of overlapping text boxes, and boxes leaving the figure (pair with nboxes). */
static void find_overlaps(dlb_figure *f) {
  dlb_free(f->pairs);
  f->pairs = NULL;
  f->npairs = 0;
  size_t cap = 0, nb = f->nboxes;
  for (size_t i = 0; i < nb + 1; i++) {
    for (size_t j = i + 1; j < nb + 1; j++) {
      int hit;
      if (j == nb) { /* the figure's edge */
        rect r = f->boxes[i].r;
        hit = r.x < -0.25 || r.y < -0.25 || r.x + r.w > f->width + 0.25 ||
              r.y + r.h > f->height + 0.25;
      } else {
        hit = overlap(f->boxes[i].r, f->boxes[j].r);
      }
      if (!hit) continue;
      if (f->npairs == cap) {
        cap = cap ? 2 * cap : 16;
        size_t *np = dlb_realloc(f->pairs, 2 * cap * sizeof *np);
        if (!np) return;
        f->pairs = np;
      }
      f->pairs[2 * f->npairs] = i;
      f->pairs[2 * f->npairs + 1] = j;
      f->npairs++;
    }
    if (i + 1 >= nb) break;
  }
}

/* Legends over data where a free spot exists: a legend inside the axes covering more
** than 2% of its area with data, when another position covers under half as much (what
** legend = "best" picks). Each is recorded as a pair (legend box, SIZE_MAX - 1). */
static void legends_over_data(dlb_figure *f) {
  size_t nb = f->nboxes;
  for (size_t i = 0; i < nb; i++) {
    const tbox *t = &f->boxes[i];
    if (strcmp(t->what, "legend") != 0 || t->panel < 0) continue;
    panel *p = &f->panels[t->panel];
    const rect l = t->r, b = p->box;
    if (p->legend_out || p->above > 0 || l.x < b.x || l.y < b.y || l.x + l.w > b.x + b.w ||
        l.y + l.h > b.y + b.h) continue; /* outside or above the axes */
    occupancy o;
    if (dlbp_occupancy_build(f, t->panel, 1, &o) != DLB_OK) continue;
    double here = dlbp_occupancy_area(&o, l), least = here;
    if (here > 0.02 * l.w * l.h)
      for (double y = b.y + 4; y + l.h <= b.y + b.h - 4 + 1e-9 && least > 0; y += o.cell)
        for (double x = b.x + 4; x + l.w <= b.x + b.w - 4 + 1e-9; x += o.cell)
          least = fmin(least, dlbp_occupancy_area(&o, (rect){x, y, l.w, l.h}));
    dlbp_occupancy_free(&o);
    if (here > 0.02 * l.w * l.h && least < 0.5 * here) {
      size_t *np = dlb_realloc(f->pairs, 2 * (f->npairs + 1) * sizeof *np);
      if (!np) return;
      f->pairs = np;
      f->pairs[2 * f->npairs] = i;
      f->pairs[2 * f->npairs + 1] = SIZE_MAX - 1; /* "covers data" */
      f->npairs++;
    }
  }
}

/* Colour bars need a label (what the colours measure): collect_boxes records a bar
** without one as the box "colour bar"; each becomes a pair (box, SIZE_MAX). */
static void unlabelled_cbars(dlb_figure *f) {
  size_t nb = f->nboxes;
  for (size_t i = 0; i < nb; i++) {
    if (strcmp(f->boxes[i].what, "colour bar") != 0) continue;
    size_t *np = dlb_realloc(f->pairs, 2 * (f->npairs + 1) * sizeof *np);
    if (!np) return;
    f->pairs = np;
    f->pairs[2 * f->npairs] = i;
    f->pairs[2 * f->npairs + 1] = SIZE_MAX; /* "has no label" */
    f->npairs++;
  }
}

/* Points of the figure's series that fall outside user-set limits, in a warning. */
static void outside_warning(dlb_figure *f) {
  f->layout_warning[0] = '\0';
  size_t len = 0;
  for (int i = 0; i < f->nseries; i++) {
    series *s = &f->series[i];
    if (s->dead || !s->committed) continue;
    size_t c = s->methods->outside ? s->methods->outside(f, s) : 0;
    if (!c || len + 2 >= sizeof f->layout_warning) continue;
    int w = snprintf(f->layout_warning + len, sizeof f->layout_warning - len,
                     "%spanel %d, %s series %d: %zu point%s outside the axis limits not drawn",
                     len ? "; " : "", s->panel + 1, dlbp_kind_name(s->kind), i + 1, c,
                     c == 1 ? "" : "s");
    if (w > 0) len = fmin(len + (size_t)w, sizeof f->layout_warning - 1);
  }
}

/* How many overlaps the layout found (laying out first if needed). */
int dlb_figure_overlaps(dlb_figure *f, size_t *count) {
  if (!f || !count) return dlb_fail(DLB_EINVAL, "overlaps: no figure");
  if (!f->laid_out) {
    int st = dlb_figure_layout(f);
    if (st) return st;
  }
  *count = f->npairs;
  return DLB_OK;
}

/* A description of overlap i into buf. */
int dlb_figure_overlap_text(dlb_figure *f, size_t i, char *buf, size_t size) {
  if (!f || !buf || !size) return dlb_fail(DLB_EINVAL, "overlap_text: no figure or buffer");
  if (!f->laid_out || i >= f->npairs)
    return dlb_fail(DLB_EINVAL, "overlap_text: no overlap %zu", i + 1);
  const tbox *a = &f->boxes[f->pairs[2 * i]];
  size_t j = f->pairs[2 * i + 1];
  if (j == SIZE_MAX)
    snprintf(buf, size, "panel %d %s has no label (colorbar_label=)", a->panel + 1, a->what);
  else if (j == SIZE_MAX - 1)
    snprintf(buf, size, "panel %d %s covers data where a free spot exists (legend = \"best\" "
             "finds it)", a->panel + 1, a->what);
  else if (j >= f->nboxes)
    snprintf(buf, size, "panel %d %s leaves the figure", a->panel + 1, a->what);
  else
    snprintf(buf, size, "panel %d %s overlaps panel %d %s", a->panel + 1, a->what,
             f->boxes[j].panel + 1, f->boxes[j].what);
  return DLB_OK;
}

/* The checks of a laid-out figure, after its boxes are collected and legends placed. */
void dlbp_layout_check(dlb_figure *f) {
  find_overlaps(f);
  legends_over_data(f);
  unlabelled_cbars(f);
  outside_warning(f);
}
