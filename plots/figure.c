/*
** figure.c — the figure and its panels: creation, options by name, freeing.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlbplot.h"
#include "plot_internal.h"

/* An automatic linear axis with labels shown. */
static void axis_init(axis *a) {
  memset(a, 0, sizeof *a);
  a->umin = a->umax = NAN;
  a->show_labels = 1;
  snprintf(a->fmt, sizeof a->fmt, "auto");
}

/* A new figure of width x height inches and rows x cols panels; NULL on bad sizes. */
dlb_figure *dlb_figure_new(double width_in, double height_in, int rows, int cols) {
  if (!(width_in >= 0.5 && width_in <= 100 && height_in >= 0.5 && height_in <= 100))
    return dlb_fail_null(DLB_EINVAL, "figure: width and height must be 0.5 to 100 inches "
                         "(got %g x %g)", width_in, height_in);
  if (rows < 1 || cols < 1 || rows > 16 || cols > 16)
    return dlb_fail_null(DLB_EINVAL, "figure: rows and cols must be 1 to 16 (got %d x %d)",
                         rows, cols);
  dlb_figure *f = dlb_calloc(1, sizeof *f);
  if (!f) return dlb_fail_null(DLB_ENOMEM, "figure: out of memory");
  f->panels = dlb_calloc((size_t)(rows * cols), sizeof *f->panels);
  if (!f->panels) { dlb_free(f); return dlb_fail_null(DLB_ENOMEM, "figure: out of memory"); }
  f->width = width_in * 72;
  f->height = height_in * 72;
  f->rows = rows;
  f->cols = cols;
  f->font = 8;
  f->dpi = 200;
  for (int i = 0; i < rows * cols; i++) {
    panel *p = &f->panels[i];
    axis_init(&p->ax[0]);
    axis_init(&p->ax[1]);
    snprintf(p->legend, sizeof p->legend, "best");
    p->cbar_series = -1;
  }
  return f;
}

/* Free the figure, its panels, series and layout. */
void dlb_figure_free(dlb_figure *f) {
  if (!f) return;
  for (int i = 0; i < f->nseries; i++) dlbp_series_clear(&f->series[i]);
  dlb_free(f->series);
  dlb_free(f->panels);
  dlb_free(f->boxes);
  dlb_free(f->pairs);
  dlb_free(f);
}

/* Number of panels (rows x cols); 0 for NULL. */
int dlb_figure_npanels(const dlb_figure *f) {
  return f ? f->rows * f->cols : 0;
}

/* Figure number options: font, dpi, sharex, sharey. */
int dlb_figure_num(dlb_figure *f, const char *key, double v) {
  if (!f || !key) return dlb_fail(DLB_EINVAL, "figure: no figure or option");
  f->laid_out = 0;
  if (strcmp(key, "font") == 0) {
    if (!(v >= 4 && v <= 48)) return dlb_fail(DLB_EINVAL, "figure: font %g pt is not 4-48", v);
    f->font = v;
  } else if (strcmp(key, "dpi") == 0) {
    if (!(v >= 10 && v <= 2400)) return dlb_fail(DLB_EINVAL, "figure: dpi %g is not 10-2400", v);
    f->dpi = v;
  } else if (strcmp(key, "sharex") == 0) {
    f->sharex = v != 0;
  } else if (strcmp(key, "sharey") == 0) {
    f->sharey = v != 0;
  } else {
    return dlb_fail(DLB_EINVAL, "figure: unknown option '%s' (valid: font dpi sharex sharey "
                    "title)", key);
  }
  return DLB_OK;
}

/* Figure string options: title (above all panels). */
int dlb_figure_str(dlb_figure *f, const char *key, const char *value) {
  if (!f || !key) return dlb_fail(DLB_EINVAL, "figure: no figure or option");
  if (strcmp(key, "title") != 0)
    return dlb_fail(DLB_EINVAL, "figure: unknown option '%s' (valid: font dpi sharex sharey "
                    "title)", key);
  if (value && !dlbp_text_valid_utf8(value))
    return dlb_fail(DLB_EINVAL, "figure: title is not valid UTF-8");
  dlbp_text_copy(f->title, sizeof f->title, value ? value : "");
  f->laid_out = 0;
  return DLB_OK;
}

/* Panel i of f (marking the layout stale), or NULL with a message. */
static panel *getpanel(dlb_figure *f, int i) {
  if (!f) { dlb_fail(DLB_EINVAL, "panel: no figure"); return NULL; }
  if (i < 0 || i >= f->rows * f->cols) {
    dlb_fail(DLB_EINVAL, "no panel %d (the figure has %d)", i + 1, f->rows * f->cols);
    return NULL;
  }
  f->laid_out = 0;
  return &f->panels[i];
}

/* Set an axis scale by name, refused when a series has values the log axis cannot show. */
static int setscale(dlb_figure *f, int pi, int axn, const char *v) {
  axis *a = &f->panels[pi].ax[axn];
  int old = a->scale;
  if (strcmp(v, "linear") == 0) a->scale = DLB_SCALE_LINEAR;
  else if (strcmp(v, "log") == 0) a->scale = DLB_SCALE_LOG;
  else return dlb_fail(DLB_EINVAL, "%cscale: unknown scale '%s' (valid: linear log)",
                       axn ? 'y' : 'x', v);
  if (a->scale == DLB_SCALE_LOG)
    for (int k = 0; k < 2; k++) {
      double u = k ? a->umax : a->umin;
      if (!isnan(u) && u <= 0) {
        a->scale = old;
        return dlb_fail(DLB_EINVAL, "panel %d: %c%s = %g <= 0 on a log %c axis", pi + 1,
                        axn ? 'y' : 'x', k ? "max" : "min", u, axn ? 'y' : 'x');
      }
    }
  for (int i = 0; i < f->nseries; i++) {
    if (f->series[i].dead || !f->series[i].committed || f->series[i].panel != pi) continue;
    int st = dlbp_series_logcheck(f, i);
    if (st != DLB_OK) { a->scale = old; return st; }
  }
  a->scale_set = 1;
  return DLB_OK;
}

/* Panel string options: title xlabel ylabel xscale yscale legend xtickformat ytickformat. */
int dlb_panel_str(dlb_figure *f, int pi, const char *key, const char *v) {
  panel *p = getpanel(f, pi);
  if (!p) return DLB_EINVAL;
  if (!key) return dlb_fail(DLB_EINVAL, "panel: no option name");
  if (!v) v = "";
  if (!dlbp_text_valid_utf8(v)) return dlb_fail(DLB_EINVAL, "%s: text is not valid UTF-8", key);
  if (strcmp(key, "title") == 0) dlbp_text_copy(p->title, sizeof p->title, v);
  else if (strcmp(key, "xlabel") == 0) dlbp_text_copy(p->ax[0].label, sizeof p->ax[0].label, v);
  else if (strcmp(key, "ylabel") == 0) dlbp_text_copy(p->ax[1].label, sizeof p->ax[1].label, v);
  else if (strcmp(key, "xscale") == 0) return setscale(f, pi, 0, v);
  else if (strcmp(key, "yscale") == 0) return setscale(f, pi, 1, v);
  else if (strcmp(key, "legend") == 0) {
    static const char *const ok[] = {"best", "upper left", "upper right", "lower left",
                                     "lower right", "outside", "none", NULL};
    int i = 0;
    while (ok[i] && strcmp(ok[i], v)) i++;
    if (!ok[i])
      return dlb_fail(DLB_EINVAL, "legend: unknown place '%s' (valid: best, upper left, upper "
                      "right, lower left, lower right, outside, none)", v);
    snprintf(p->legend, sizeof p->legend, "%s", v);
  } else if (strcmp(key, "xtickformat") == 0 || strcmp(key, "ytickformat") == 0) {
    if (strcmp(v, "auto") && strcmp(v, "si") && strcmp(v, "pow") && strcmp(v, "plain") &&
        strcmp(v, "count") && strcmp(v, "time"))
      return dlb_fail(DLB_EINVAL, "%s: unknown format '%s' (valid: auto si pow plain count time)",
                      key, v);
    axis *a = &p->ax[key[0] == 'y'];
    snprintf(a->fmt, sizeof a->fmt, "%s", v);
  } else {
    return dlb_fail(DLB_EINVAL, "panel: unknown option '%s' (valid: title xlabel ylabel xscale "
                    "yscale legend xtickformat ytickformat xmin xmax ymin ymax grid)", key);
  }
  return DLB_OK;
}

/* Panel number options: xmin xmax ymin ymax (NaN = automatic), grid. */
int dlb_panel_num(dlb_figure *f, int pi, const char *key, double v) {
  panel *p = getpanel(f, pi);
  if (!p) return DLB_EINVAL;
  if (!key) return dlb_fail(DLB_EINVAL, "panel: no option name");
  if (strcmp(key, "grid") == 0) { p->grid = v != 0; return DLB_OK; }
  int axn = key[0] == 'y';
  if ((key[0] == 'x' || key[0] == 'y') && (strcmp(key + 1, "min") == 0 ||
                                           strcmp(key + 1, "max") == 0)) {
    if (isinf(v)) return dlb_fail(DLB_EINVAL, "%s must be finite (or NaN: automatic)", key);
    if (p->ax[axn].scale == DLB_SCALE_LOG && v <= 0)
      return dlb_fail(DLB_EINVAL, "panel %d: %s = %g <= 0 on a log %c axis", pi + 1, key, v,
                      key[0]);
    if (key[2] == 'i') p->ax[axn].umin = v; else p->ax[axn].umax = v;
    return DLB_OK;
  }
  return dlb_fail(DLB_EINVAL, "panel: unknown option '%s' (valid: title xlabel ylabel xscale "
                  "yscale legend xtickformat ytickformat xmin xmax ymin ymax grid)", key);
}

/* User ticks of an axis: positions (copied), n = 0 for automatic ones. */
int dlb_panel_ticks(dlb_figure *f, int pi, int axn, const double *v, size_t n) {
  panel *p = getpanel(f, pi);
  if (!p) return DLB_EINVAL;
  if (axn != 0 && axn != 1) return dlb_fail(DLB_EINVAL, "ticks: axis %d is not 0 (x) or 1 (y)", axn);
  if (n > MAXTICKS) return dlb_fail(DLB_EINVAL, "%cticks: %zu ticks, at most %d", axn ? 'y' : 'x',
                                    n, MAXTICKS);
  axis *a = &p->ax[axn];
  for (size_t i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return dlb_fail(DLB_EINVAL, "%cticks[%zu] is not a finite number", axn ? 'y' : 'x', i + 1);
  for (size_t i = 0; i < n; i++) { a->uticks[i] = v[i]; a->has_ulabel[i] = 0; }
  a->nuticks = (int)n;
  return DLB_OK;
}

/* Points of the last layout's series outside user-set limits ("" if none); borrowed. */
const char *dlb_figure_layout_warning(const dlb_figure *f) {
  return f && f->laid_out ? f->layout_warning : "";
}

/* The label of user tick i (copied, at most 31 bytes). */
int dlb_panel_ticklabel(dlb_figure *f, int pi, int axn, size_t i, const char *label) {
  panel *p = getpanel(f, pi);
  if (!p) return DLB_EINVAL;
  if (axn != 0 && axn != 1) return dlb_fail(DLB_EINVAL, "ticklabel: axis %d is not 0 or 1", axn);
  axis *a = &p->ax[axn];
  if (i >= (size_t)a->nuticks)
    return dlb_fail(DLB_EINVAL, "%cticklabels: label %zu but only %d ticks", axn ? 'y' : 'x',
                    i + 1, a->nuticks);
  if (label && !dlbp_text_valid_utf8(label))
    return dlb_fail(DLB_EINVAL, "%cticklabels[%zu] is not valid UTF-8", axn ? 'y' : 'x', i + 1);
  dlbp_text_copy(a->ulabels[i], sizeof a->ulabels[i], label ? label : "");
  a->has_ulabel[i] = 1;
  return DLB_OK;
}
