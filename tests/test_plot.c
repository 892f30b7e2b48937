/*
** test_plot.c — the figure library's pieces: nice ticks, tick labels, colour maps and the
** palette, box-plot percentiles, series validation, saving (whole or not at all; PDFs
** dated by SOURCE_DATE_EPOCH), pixel probes, the layout's overlap check, and a randomized
** robustness run.
*/
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "dlbench.h"
#include "plot_internal.h"

static char tmpdir[256];

static void path(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* Is v k * 10^n with k in {1, 2, 2.5, 5}? */
static int nice_value(double v) {
  if (v <= 0) return 0;
  double m = v / pow(10, floor(log10(v) + 1e-12));
  return fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 2.5) < 1e-6 || fabs(m - 5) < 1e-6 ||
         fabs(m - 10) < 1e-6;
}

static void test_ticks(void) {
  double t[64];
  size_t n;
  CHECK(dlb_ticks_linear(0, 1, 5, t, 64, &n) == DLB_OK);
  CHECK(n == 6); /* hand: step 0.2 -> 0, 0.2, ..., 1 */
  /* the tick at 0: absolute (relative to 0 would mean exactly 0) */
  CHECK_NEAR_ABS(t[0], 0, 1e-12); CHECK_NEAR(t[5], 1, 1e-12); CHECK_NEAR(t[1], 0.2, 1e-12);
  CHECK(dlb_ticks_linear(0, 100, 5, t, 64, &n) == DLB_OK);
  CHECK(n == 6 && t[1] == 20 && t[5] == 100);
  CHECK(dlb_ticks_linear(-3.7, 12.2, 5, t, 64, &n) == DLB_OK);
  CHECK(n == 3 && t[0] == 0 && t[2] == 10); /* raw step 3.2 -> 5 (no 2.5 steps): 0 5 10 */
  CHECK(dlb_ticks_linear(0, 1e6, 4, t, 64, &n) == DLB_OK);
  CHECK(n == 6 && t[1] == 2e5); /* raw step 250k -> 200k, never 250k */
  CHECK(dlb_ticks_linear(-1e-9, 1e-9, 4, t, 64, &n) == DLB_OK);
  CHECK(n >= 3 && t[0] >= -1e-9 && t[n - 1] <= 1e-9);
  CHECK(dlb_ticks_linear(1, 1, 5, t, 64, &n) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "lo < hi") != NULL);
  CHECK(dlb_ticks_linear(NAN, 1, 5, t, 64, &n) == DLB_EINVAL);
  CHECK(dlb_ticks_linear(0, 1, 0, t, 64, &n) == DLB_EINVAL);
}

/* Random ranges: ticks are inside, evenly spaced on a 1/2/2.5/5 x 10^n step, 2..14 of them. */
static void test_ticks_random(void) {
  srand(7);
  for (int k = 0; k < 5000; k++) {
    double lo = (rand() / (double)RAND_MAX - 0.5) * pow(10, rand() % 20 - 8);
    double hi = lo + (rand() / (double)RAND_MAX + 1e-6) * pow(10, rand() % 20 - 8);
    int target = 2 + rand() % 9;
    double t[64];
    size_t n;
    if (!(hi - lo > 1e-6 * fabs(lo))) continue; /* narrower: k * step loses the digits */
    CHECK(dlb_ticks_linear(lo, hi, target, t, 64, &n) == DLB_OK);
    if (n < 2) { /* only when the range is narrower than one step of 1/2/5 x 10^n */
      CHECK(n >= 1 || hi - lo < 1e-300);
      continue;
    }
    double step = t[1] - t[0];
    CHECK(nice_value(step));
    CHECK(n <= (size_t)(target * 4 / 3 + 3));
    for (size_t i = 0; i < n; i++) {
      CHECK(t[i] >= lo - step * 1e-6 && t[i] <= hi + step * 1e-6);
      if (i) CHECK_NEAR(t[i] - t[i - 1], step, 1e-6);
    }
    if (check_current_failed) { fprintf(stderr, "range %g %g target %d\n", lo, hi, target); return; }
  }
}

static void fmt_is(double v, double step, const char *style, const char *want) {
  char buf[64];
  CHECK(dlb_tick_format(v, step, style, buf, sizeof buf) == DLB_OK);
  if (strcmp(buf, want) != 0) {
    fprintf(stderr, "format %g (%s): got '%s', want '%s'\n", v, style, buf, want);
    check_current_failed = 1;
  }
}

static void test_tick_labels(void) {
  fmt_is(1000, 0, "si", "1k");
  fmt_is(1e7, 0, "si", "10M");
  fmt_is(1e9, 0, "si", "1G");
  fmt_is(2500, 500, "si", "2.5k");
  fmt_is(1.5e12, 0, "si", "1.5T");
  fmt_is(0.5, 0.5, "si", "0.5");
  fmt_is(0, 1, "si", "0");
  fmt_is(-2e6, 1e6, "si", "\xe2\x88\x92" "2M"); /* a real minus sign */
  fmt_is(1000, 0, "pow", "10^{3}");
  fmt_is(1e-5, 0, "pow", "10^{\xe2\x88\x92" "5}");
  fmt_is(2e-5, 0, "pow", "2\xc3\x97" "10^{\xe2\x88\x92" "5}");
  fmt_is(0.25, 0.25, "plain", "0.25");
  fmt_is(0.5, 0.25, "plain", "0.50");  /* same decimals as the step */
  fmt_is(-1e-17, 0.1, "plain", "0.0");
  fmt_is(1024, 0, "auto", "1024");      /* powers of two read better in full */
  fmt_is(16384, 0, "auto", "16384");
  fmt_is(20000, 0, "auto", "20k");
  fmt_is(1e-4, 0, "auto", "10^{\xe2\x88\x92" "4}");
  char buf[8];
  CHECK(dlb_tick_format(1, 0, "roman", buf, sizeof buf) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "auto si pow plain") != NULL);
}

static void test_cmaps(void) {
  double c[3], d[3];
  int m;
  CHECK(dlb_cmap_lookup("viridis", &m) == DLB_OK && m == DLB_CMAP_VIRIDIS);
  /* matplotlib 3.6: viridis(0) = #440154 = (0.267004, 0.004874, 0.329415),
  ** viridis(0.5) = (0.127568, 0.566949, 0.550556), viridis(1) = (0.993248, 0.906157, 0.143936).
  ** The control points are stored to 4 decimals (plots/cmap.c), so a channel at a control
  ** point is within half a unit of the 4th decimal of matplotlib's: an absolute 5e-5 (a
  ** channel's precision does not scale with its value: 0.0049 for 0.004874 is 0.5% off) */
  dlb_cmap_eval(m, 0, c);
  CHECK_NEAR_ABS(c[0], 0.267004, 5e-5); CHECK_NEAR_ABS(c[1], 0.004874, 5e-5);
  CHECK_NEAR_ABS(c[2], 0.329415, 5e-5);
  dlb_cmap_eval(m, 0.5, c);
  CHECK_NEAR_ABS(c[0], 0.127568, 5e-5); CHECK_NEAR_ABS(c[1], 0.566949, 5e-5);
  CHECK_NEAR_ABS(c[2], 0.550556, 5e-5);
  dlb_cmap_eval(m, 1, c);
  CHECK_NEAR_ABS(c[0], 0.993248, 5e-5); CHECK_NEAR_ABS(c[2], 0.143936, 5e-5);
  /* matplotlib viridis(0.25) = (0.229739, 0.322361, 0.545706): a control point */
  dlb_cmap_eval(m, 0.25, c);
  CHECK_NEAR_ABS(c[1], 0.322361, 5e-5);
  /* between control points, within 1/255 of matplotlib: viridis(0.3) = (0.206756, 0.371758,
  ** 0.553117) */
  dlb_cmap_eval(m, 0.3, c);
  CHECK(fabs(c[0] - 0.206756) < 4e-3 && fabs(c[1] - 0.371758) < 4e-3 && fabs(c[2] - 0.553117) < 4e-3);
  /* clamping and the NaN guard */
  dlb_cmap_eval(m, -3, c); dlb_cmap_eval(m, 0, d);
  CHECK(c[0] == d[0] && c[1] == d[1] && c[2] == d[2]);
  dlb_cmap_eval(m, 7, c); dlb_cmap_eval(m, 1, d);
  CHECK(c[0] == d[0] && c[1] == d[1] && c[2] == d[2]);
  dlb_cmap_eval(m, NAN, c);
  CHECK(c[0] == 1 && c[1] == 1 && c[2] == 1);
  /* the diverging map is near white at its centre, blue below, red above */
  CHECK(dlb_cmap_lookup("diverging", &m) == DLB_OK);
  dlb_cmap_eval(m, 0.5, c);
  CHECK(c[0] > 0.95 && c[1] > 0.95 && c[2] > 0.95);
  dlb_cmap_eval(m, 0, c);
  CHECK(c[2] > c[0]);
  dlb_cmap_eval(m, 1, c);
  CHECK(c[0] > c[2]);
  /* every map is monotone in lightness except the diverging one: grey strictly */
  CHECK(dlb_cmap_lookup("grey", &m) == DLB_OK);
  dlb_cmap_eval(m, 0.2, c); dlb_cmap_eval(m, 0.8, d);
  CHECK(d[0] > c[0]);
  CHECK(dlb_cmap_lookup("jet", &m) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "viridis magma cividis diverging grey") != NULL);
  CHECK(dlb_cmap_eval(99, 0.5, c) == DLB_EINVAL);
  /* two-slope normalisation: the centre lands at 0.5 (hand: speedup 1 in [0.5, 3]) */
  CHECK_NEAR(dlbp_cmap_t(1, 0.5, 3, 1), 0.5, 1e-12);
  CHECK_NEAR(dlbp_cmap_t(0.5, 0.5, 3, 1), 0, 1e-12);
  CHECK_NEAR(dlbp_cmap_t(2, 0.5, 3, 1), 0.75, 1e-12);
  CHECK_NEAR(dlbp_cmap_t(2, 0, 4, NAN), 0.5, 1e-12);
  CHECK(isnan(dlbp_cmap_t(NAN, 0, 1, NAN)));
}

static double lum(const double c[3]) {
  double l[3];
  for (int i = 0; i < 3; i++)
    l[i] = c[i] <= 0.04045 ? c[i] / 12.92 : pow((c[i] + 0.055) / 1.055, 2.4);
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

/* The palette's first four colours stay apart in grey: relative luminance (WCAG) differs
** by at least 0.1 between any two of them. */
static void test_palette(void) {
  double c[4][3];
  for (int i = 0; i < 4; i++) dlb_palette(i, c[i]);
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++) CHECK(fabs(lum(c[i]) - lum(c[j])) >= 0.1);
  double a[3], b[3];
  dlb_palette(0, a); dlb_palette(8, b);
  CHECK(a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
}

static void test_box_stats(void) {
  double v[101], out[5], q[4] = {2, 9, 91, 98};
  for (int i = 0; i <= 100; i++) v[i] = i;
  /* hand: with values 0..100 percentile p is p itself (rank p/100 * 100) */
  CHECK(dlbp_box_stats(v, 101, q, 0, out));
  CHECK_NEAR(out[0], 2, 1e-12); CHECK_NEAR(out[1], 9, 1e-12); CHECK_NEAR(out[2], 50, 1e-12);
  CHECK_NEAR(out[3], 91, 1e-12); CHECK_NEAR(out[4], 98, 1e-12);
  /* hand: 1..4 -> 50th = 2.5, 9th: rank 0.27 -> 1.27 */
  double w[4] = {1, 2, 3, 4};
  CHECK(dlbp_box_stats(w, 4, q, 0, out));
  CHECK_NEAR(out[2], 2.5, 1e-12); CHECK_NEAR(out[1], 1.27, 1e-12);
  /* Tukey: 1..10 and 100; Q1 = 3.5, Q3 = 8.5, IQR 5 -> whiskers 1 and 10, 100 an outlier */
  double t[11] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100};
  CHECK(dlbp_box_stats(t, 11, q, 1, out));
  CHECK_NEAR(out[1], 3.5, 1e-12); CHECK_NEAR(out[3], 8.5, 1e-12);
  CHECK_NEAR(out[0], 1, 1e-12); CHECK_NEAR(out[4], 10, 1e-12);
  CHECK(!dlbp_box_stats(t, 0, q, 0, out));
}

static int commit_line(dlb_figure *f, const double *x, size_t nx, const double *y, size_t ny) {
  int id;
  if (dlb_series_new(f, 0, DLB_SERIES_LINE, &id)) return -100;
  dlb_series_data(f, id, "x", x, nx);
  dlb_series_data(f, id, "y", y, ny);
  return dlb_series_commit(f, id);
}

static void test_validation(void) {
  CHECK(dlb_figure_new(0.1, 2, 1, 1) == NULL);
  CHECK(strstr(dlb_last_error(), "inches") != NULL);
  CHECK(dlb_figure_new(3, 2, 0, 1) == NULL);
  dlb_figure *f = dlb_figure_new(3.3, 2.4, 1, 2);
  double x[3] = {1, 2, 3}, y[3] = {1, 0, 3}, bad[3] = {1, NAN, INFINITY};
  CHECK(commit_line(f, x, 3, y, 2) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "x has 3 values but y has 2") != NULL);
  CHECK(commit_line(f, x, 0, y, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "missing or empty") != NULL);
  CHECK(commit_line(f, x, 3, bad, 3) == DLB_OK);
  CHECK(strstr(dlb_figure_warning(f), "2 NaN or infinite values skipped") != NULL);
  CHECK(commit_line(f, bad + 1, 2, bad + 1, 2) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "all 2 points") != NULL);
  int id;
  CHECK(dlb_series_new(f, 5, DLB_SERIES_LINE, &id) == DLB_EINVAL);
  CHECK(dlb_series_new(f, 0, 99, &id) == DLB_EINVAL);
  CHECK(dlb_series_new(f, 0, DLB_SERIES_LINE, &id) == DLB_OK);
  CHECK(dlb_series_data(f, id, "z", x, 3) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "unknown data array 'z' (valid: x y)") != NULL);
  CHECK(dlb_series_str(f, id, "colour", "red") == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "valid: label color style marker") != NULL);
  CHECK(dlb_series_str(f, id, "color", "reddish") == DLB_EINVAL);
  CHECK(dlb_series_str(f, id, "style", "wavy") == DLB_EINVAL);
  CHECK(dlb_series_num(f, id, "width", NAN) == DLB_EINVAL);
  dlb_series_drop(f, id);
  CHECK(dlb_series_data(f, id, "x", x, 3) == DLB_EINVAL); /* dropped */
  /* a log axis and a value <= 0: either order is refused */
  CHECK(commit_line(f, x, 3, y, 3) == DLB_OK); /* y holds a 0 */
  CHECK(dlb_panel_str(f, 0, "yscale", "log") == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "<= 0 on a log y axis") != NULL);
  CHECK(dlb_panel_str(f, 1, "yscale", "log") == DLB_OK);
  int id2;
  dlb_series_new(f, 1, DLB_SERIES_LINE, &id2);
  dlb_series_data(f, id2, "x", x, 3);
  dlb_series_data(f, id2, "y", y, 3);
  CHECK(dlb_series_commit(f, id2) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "log y axis (first 0)") != NULL);
  CHECK(dlb_panel_str(f, 0, "xscale", "loglog") == DLB_EINVAL);
  CHECK(dlb_panel_str(f, 0, "colour", "x") == DLB_EINVAL);
  CHECK(dlb_panel_str(f, 0, "legend", "middle") == DLB_EINVAL);
  /* heat map shapes and a format string that is not one double conversion */
  int h;
  double z[6] = {1, 2, 3, 4, 5, 6};
  dlb_series_new(f, 0, DLB_SERIES_HEATMAP, &h);
  dlb_series_data(f, h, "z", z, 6);
  dlb_series_num(f, h, "nx", 4);
  dlb_series_num(f, h, "ny", 2);
  CHECK(dlb_series_commit(f, h) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "z has 6 values but the axes have 4 x 2") != NULL);
  dlb_series_new(f, 0, DLB_SERIES_HEATMAP, &h);
  CHECK(dlb_series_str(f, h, "fmt", "%s") == DLB_EINVAL);
  CHECK(dlb_series_str(f, h, "fmt", "%.2f %.2f") == DLB_EINVAL);
  CHECK(dlb_series_str(f, h, "fmt", "%n") == DLB_EINVAL);
  CHECK(dlb_series_str(f, h, "fmt", "%.1f%%") == DLB_OK);
  /* box percentiles out of order */
  int b;
  dlb_series_new(f, 0, DLB_SERIES_BOX, &b);
  dlb_series_data(f, b, "values", x, 3);
  dlb_series_num(f, b, "lo", 60);
  CHECK(dlb_series_commit(f, b) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "0 <= lo <= box_lo") != NULL);
  dlb_figure_free(f);
  dlb_figure_free(NULL);
}

static int count_tmp(void) {
  DIR *d = opendir(tmpdir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) n += strstr(e->d_name, ".tmp.") != NULL;
  if (d) closedir(d);
  return n;
}

static dlb_figure *heat_figure(void) {
  dlb_figure *f = dlb_figure_new(3.3, 2.4, 1, 1);
  int id;
  double z[6] = {0, 1, 2, 3, 4, 5}, mask[6] = {0, 0, 0, 0, 0, 1};
  dlb_series_new(f, 0, DLB_SERIES_HEATMAP, &id);
  dlb_series_data(f, id, "z", z, 6);
  dlb_series_data(f, id, "mask", mask, 6);
  dlb_series_num(f, id, "nx", 3);
  dlb_series_num(f, id, "ny", 2);
  CHECK(dlb_series_commit(f, id) == DLB_OK);
  dlb_panel_str(f, 0, "xlabel", "columns");
  dlb_panel_str(f, 0, "ylabel", "rows");
  return f;
}

static void test_save_and_probe(void) {
  dlb_figure *f = heat_figure();
  char p[512];
  path(p, sizeof p, "heat.png");
  CHECK(dlb_figure_save(f, p, 100) == DLB_OK);
  int w, h;
  CHECK(dlb_png_size(p, &w, &h) == DLB_OK);
  CHECK(w == 330 && h == 240); /* 3.3 x 2.4 in at 100 dpi */
  /* cell (i=2, j=1) has z = 1 of 0..4 (the masked 5 is left out of the range): t = 0.25 */
  double px, py, rgba[4], want[3];
  CHECK(dlb_panel_to_point(f, 0, 2, 1, &px, &py) == DLB_OK);
  CHECK(dlb_png_pixel(p, (int)(px * 100 / 72), (int)(py * 100 / 72), rgba) == DLB_OK);
  dlb_cmap_eval(DLB_CMAP_VIRIDIS, 0.25, want);
  for (int c = 0; c < 3; c++) CHECK(fabs(rgba[c] - want[c]) < 2.5 / 255);
  /* the masked cell (3, 2) is white */
  dlb_panel_to_point(f, 0, 3, 2, &px, &py);
  CHECK(dlb_png_pixel(p, (int)(px * 100 / 72), (int)(py * 100 / 72), rgba) == DLB_OK);
  CHECK(rgba[0] > 0.99 && rgba[1] > 0.99 && rgba[2] > 0.99);
  CHECK(dlb_png_pixel(p, 1000, 0, rgba) == DLB_EINVAL);
  /* PDF and SVG, and the formats by extension */
  path(p, sizeof p, "heat.pdf");
  CHECK(dlb_figure_save(f, p, 0) == DLB_OK);
  FILE *in = fopen(p, "rb");
  char head[5] = {0};
  CHECK(in && fread(head, 1, 4, in) == 4 && strcmp(head, "%PDF") == 0);
  if (in) fclose(in);
  path(p, sizeof p, "heat.SVG");
  CHECK(dlb_figure_save(f, p, 0) == DLB_OK);
  path(p, sizeof p, "heat.jpg");
  CHECK(dlb_figure_save(f, p, 0) == DLB_EINVAL);
  CHECK(strstr(dlb_last_error(), "use .png, .pdf or .svg") != NULL);
  /* unwritable: a missing folder, and a folder that is not writable; nothing left behind */
  path(p, sizeof p, "missing/heat.png");
  CHECK(dlb_figure_save(f, p, 0) == DLB_EIO);
  CHECK(strstr(dlb_last_error(), "cannot write") != NULL);
  CHECK(access(p, F_OK) != 0);
  CHECK(count_tmp() == 0);
  /* an existing file is replaced whole: the old one survives a failed save */
  path(p, sizeof p, "keep.png");
  CHECK(dlb_figure_save(f, p, 50) == DLB_OK);
  CHECK(dlb_figure_save(f, p, 1e6) == DLB_EINVAL);
  CHECK(dlb_png_size(p, &w, &h) == DLB_OK && w == 165);
  CHECK(count_tmp() == 0);
  dlb_figure_free(f);
}

/* The whole file at p (malloc'd, *n bytes), or NULL. */
static char *slurp(const char *p, size_t *n) {
  FILE *in = fopen(p, "rb");
  if (!in) return NULL;
  char *buf = NULL;
  *n = 0;
  if (fseek(in, 0, SEEK_END) == 0) {
    long len = ftell(in);
    rewind(in);
    buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)len, in) == (size_t)len) { buf[len] = 0; *n = (size_t)len; }
    else { free(buf); buf = NULL; }
  }
  fclose(in);
  return buf;
}

/* Does the n bytes at a hold s? (a PDF's compressed streams hold NUL bytes: no strstr) */
static int has(const char *a, size_t n, const char *s) {
  return a && memmem(a, n, s, strlen(s)) != NULL;
}

/* Does the PDF's date entry key ("/CreationDate", "/ModDate") hold the date digits
** (YYYYMMDDHHmmSS, UTC)? Cairo 1.16 writes "(20231114221320Z)"; later versions add the "D:"
** prefix and an offset ("(D:20231114221320Z)", "+00'00"), so only the digits are compared. */
static int has_date(const char *a, size_t n, const char *key, const char *digits) {
  char k[32];
  snprintf(k, sizeof k, "%s (", key);
  const char *at = a ? memmem(a, n, k, strlen(k)) : NULL;
  if (!at) return 0;
  at += strlen(k);
  if ((size_t)(a + n - at) > 2 && at[0] == 'D' && at[1] == ':') at += 2;
  return (size_t)(a + n - at) > strlen(digits) && memcmp(at, digits, strlen(digits)) == 0 &&
         (at[14] == 'Z' || at[14] == '+' || at[14] == ')');
}

/* Reproducible PDFs (reproducible-builds.org/specs/source-date-epoch/): with
** SOURCE_DATE_EPOCH set, a PDF's creation and modification dates are that time, UTC, so two
** saves of the same figure a second apart are the same bytes (Cairo otherwise writes the
** clock's time: they differed); a malformed value is refused, naming it, and writes
** nothing; PNG and SVG carry no date and ignore it. 1700000000 s = 2023-11-14 22:13:20 UTC
** (`date -u -d @1700000000`). */
static void test_pdf_source_date(void) {
  dlb_figure *f = heat_figure();
  char p1[512], p2[512];
  path(p1, sizeof p1, "sde1.pdf");
  path(p2, sizeof p2, "sde2.pdf");
  const char *old = getenv("SOURCE_DATE_EPOCH");
  char *saved = old ? strdup(old) : NULL;
  setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  CHECK(dlb_figure_save(f, p1, 0) == DLB_OK);
  sleep(1); /* the clock moves on: Cairo's own date would now differ */
  CHECK(dlb_figure_save(f, p2, 0) == DLB_OK);
  size_t n1 = 0, n2 = 0;
  char *a = slurp(p1, &n1), *b = slurp(p2, &n2);
  CHECK(a && b && n1 > 0 && n1 == n2 && memcmp(a, b, n1) == 0);
  /* the date written is the variable's (Cairo 1.16 writes it without the optional "D:") */
  CHECK(has_date(a, n1, "/CreationDate", "20231114221320"));
  CHECK(has_date(a, n1, "/ModDate", "20231114221320"));
  free(a);
  free(b);
  /* malformed values: an error naming the variable, nothing written */
  const char *bad[] = {"abc", "-1", "1.5", " 17", "17e9", "253402300800", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char p[512];
    path(p, sizeof p, "sde_bad.pdf");
    setenv("SOURCE_DATE_EPOCH", bad[i], 1);
    CHECK(dlb_figure_save(f, p, 0) == DLB_EINVAL);
    CHECK(strstr(dlb_last_error(), "SOURCE_DATE_EPOCH") != NULL);
    CHECK(access(p, F_OK) != 0);
    path(p, sizeof p, "sde_bad.png"); /* a PNG has no date: the variable is not read */
    CHECK(dlb_figure_save(f, p, 30) == DLB_OK);
  }
  CHECK(count_tmp() == 0);
  /* the ends of the range, and empty = unset (Cairo's date of now) */
  setenv("SOURCE_DATE_EPOCH", "0", 1);
  CHECK(dlb_figure_save(f, p1, 0) == DLB_OK);
  a = slurp(p1, &n1);
  CHECK(has_date(a, n1, "/CreationDate", "19700101000000"));
  free(a);
  setenv("SOURCE_DATE_EPOCH", "253402300799", 1);
  CHECK(dlb_figure_save(f, p1, 0) == DLB_OK);
  a = slurp(p1, &n1);
  CHECK(has_date(a, n1, "/CreationDate", "99991231235959"));
  free(a);
  setenv("SOURCE_DATE_EPOCH", "", 1);
  CHECK(dlb_figure_save(f, p1, 0) == DLB_OK);
  a = slurp(p1, &n1);
  CHECK(has(a, n1, "/CreationDate (D:") && !has_date(a, n1, "/CreationDate", "19700101000000"));
  free(a);
  if (saved) setenv("SOURCE_DATE_EPOCH", saved, 1);
  else unsetenv("SOURCE_DATE_EPOCH");
  free(saved);
  dlb_figure_free(f);
}

/* A roofline point without a group among grouped ones is "other" in the legend, never an
** entry without text (QA round 2). */
static void test_roof_other(void) {
  dlb_figure *f = dlb_figure_new(3.3, 2.4, 1, 1);
  int id;
  double pk = 15.7e12, bw = 900e9, px[2] = {10, 20}, py[2] = {1e12, 2e12}, pg[2] = {1, 2};
  CHECK(dlb_series_new(f, 0, DLB_SERIES_ROOFLINE, &id) == DLB_OK);
  dlb_series_data(f, id, "peak", &pk, 1);
  dlb_series_data(f, id, "bw", &bw, 1);
  dlb_series_data(f, id, "px", px, 2);
  dlb_series_data(f, id, "py", py, 2);
  dlb_series_data(f, id, "pgroup", pg, 2);
  dlb_series_addstr(f, id, "names", "V100");
  dlb_series_addstr(f, id, "groups", "conv");
  dlb_series_addstr(f, id, "groups", "");
  CHECK(dlb_series_commit(f, id) == DLB_OK);
  legend_entry e[8];
  int n = dlbp_legend_entries(f, 0, e, 8);
  CHECK(n == 3); /* the device, then the two groups */
  CHECK(strcmp(e[1].label, "conv") == 0);
  CHECK(strcmp(e[2].label, "other") == 0);
  for (int i = 0; i < n; i++) CHECK(e[i].label[0] != '\0');
  dlb_figure_free(f);
}

static void test_layout_clean(void) {
  dlb_figure *f = dlb_figure_new(7, 2.4, 1, 3);
  double x[20], y[20];
  for (int i = 0; i < 20; i++) { x[i] = pow(10, i / 4.0); y[i] = 1e9 * (i + 1); }
  for (int p = 0; p < 3; p++) {
    int id;
    dlb_series_new(f, p, DLB_SERIES_LINE, &id);
    dlb_series_data(f, id, "x", x, 20);
    dlb_series_data(f, id, "y", y, 20);
    dlb_series_str(f, id, "label", "throughput");
    CHECK(dlb_series_commit(f, id) == DLB_OK);
    dlb_panel_str(f, p, "xscale", "log");
    dlb_panel_str(f, p, "xlabel", "Parameters");
    dlb_panel_str(f, p, "ylabel", "FLOP/s");
    dlb_panel_str(f, p, "title", "A panel title");
  }
  size_t n = 99;
  CHECK(dlb_figure_layout(f) == DLB_OK);
  CHECK(dlb_figure_overlaps(f, &n) == DLB_OK);
  CHECK(n == 0);
  /* a long title on a narrow panel is fitted into its cell (shrunk, then cut) */
  dlb_panel_str(f, 1, "title", "a title far too long to fit above one third of the figure, running into both neighbours");
  CHECK(dlb_figure_layout(f) == DLB_OK);
  CHECK(dlb_figure_overlaps(f, &n) == DLB_OK);
  CHECK(n == 0);
  /* two annotations at one place do overlap: the check must see it */
  for (int k = 0; k < 2; k++) {
    int id;
    dlb_series_new(f, 1, DLB_SERIES_TEXT, &id);
    dlb_series_str(f, id, "text", k ? "second note" : "first note");
    dlb_series_num(f, id, "x", 1e4);
    dlb_series_num(f, id, "y", 1e10);
    CHECK(dlb_series_commit(f, id) == DLB_OK);
  }
  CHECK(dlb_figure_layout(f) == DLB_OK);
  CHECK(dlb_figure_overlaps(f, &n) == DLB_OK);
  CHECK(n > 0);
  char buf[256];
  CHECK(dlb_figure_overlap_text(f, 0, buf, sizeof buf) == DLB_OK);
  CHECK(strstr(buf, "note") != NULL);
  dlb_figure_free(f);
}

/* Random figures of every kind with hostile data: saving never crashes and either works
** or refuses with a message. */
static void test_random_figures(void) {
  /* PLOT_FUZZ_SEED and PLOT_FUZZ_N run other and longer sequences by hand */
  const char *seed = getenv("PLOT_FUZZ_SEED"), *runs = getenv("PLOT_FUZZ_N");
  srand(seed ? (unsigned)atoi(seed) : 11);
  int nruns = runs ? atoi(runs) : 150;
  char p[512];
  path(p, sizeof p, "fuzz.png");
  static const double specials[] = {NAN, INFINITY, -INFINITY, 0, -1, 1e300, -1e300, 1e-300};
  int drawn = 0;
  for (int k = 0; k < nruns; k++) {
    dlb_figure *f = dlb_figure_new(1 + rand() % 5, 1 + rand() % 4, 1 + rand() % 2, 1 + rand() % 2);
    int np = dlb_figure_npanels(f);
    for (int s = 0; s < 4; s++) {
      int id, kind = rand() % DLB_SERIES_NKINDS;
      if (dlb_series_new(f, rand() % np, kind, &id)) continue;
      const char *names = dlb_series_options(kind, 0);
      char buf[128];
      snprintf(buf, sizeof buf, "%s", names);
      size_t same = (size_t)(rand() % 30);
      int uniform = rand() % 2; /* half the series get equal lengths, so they get drawn */
      int nx = 1 + rand() % 5, ny = 1 + rand() % 5;
      if (uniform && kind == DLB_SERIES_HEATMAP) same = (size_t)(nx * ny);
      for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        size_t n = uniform ? same : (size_t)(rand() % 30);
        if (uniform && kind == DLB_SERIES_HEATMAP && (!strcmp(tok, "x") || !strcmp(tok, "y")))
          continue; /* heat-map axes come from nx, ny */
        double v[30];
        for (size_t i = 0; i < n; i++)
          v[i] = rand() % 6 == 0 ? specials[rand() % 8] : (rand() % 2000 - 500) / 7.0;
        if (strcmp(tok, "sizes") == 0)
          for (size_t i = 0; i < n; i++) v[i] = uniform ? 1 : 1 + rand() % 3;
        if (uniform && (!strcmp(tok, "peak") || !strcmp(tok, "bw") || !strcmp(tok, "px") ||
                        !strcmp(tok, "py")))
          for (size_t i = 0; i < n; i++) v[i] = isfinite(v[i]) ? fabs(v[i]) + 1 : v[i];
        if (!strcmp(tok, "flops_eff") || !strcmp(tok, "bw_eff"))
          for (size_t i = 0; i < n; i++) v[i] = (1 + rand() % 10) / 10.0;
        if (rand() % 2 && (!strcmp(tok, "group") || !strcmp(tok, "pgroup")))
          for (size_t i = 0; i < n; i++) v[i] = 1 + rand() % 5;
        dlb_series_data(f, id, tok, v, n);
      }
      if (kind == DLB_SERIES_HEATMAP) { dlb_series_num(f, id, "nx", nx);
                                        dlb_series_num(f, id, "ny", ny); }
      if (kind == DLB_SERIES_SPAN) { double a = rand() % 50 - 10;
                                     dlb_series_num(f, id, "lo", a);
                                     dlb_series_num(f, id, "hi", a + 1 + rand() % 20); }
      if (kind == DLB_SERIES_TEXT) dlb_series_str(f, id, "text", "note^{2}");
      dlb_series_num(f, id, "value", (rand() % 100) / 3.0);
      if (dlb_series_commit(f, id) != DLB_OK) CHECK(strlen(dlb_last_error()) > 10);
      else drawn++;
    }
    if (rand() % 3 == 0) dlb_panel_str(f, 0, "yscale", "log");
    int st = dlb_figure_save(f, p, 30 + rand() % 60);
    if (st != DLB_OK && st != DLB_EINVAL) fprintf(stderr, "save: %d %s\n", st, dlb_last_error());
    CHECK(st == DLB_OK || st == DLB_EINVAL);
    dlb_figure_free(f);
  }
  CHECK(count_tmp() == 0);
  CHECK(drawn > nruns * 2 / 3); /* most kinds get through validation and are drawn */
}

/* Random labels (markup characters, stray braces, valid and broken UTF-8): invalid UTF-8
** is refused where it is set; whatever is accepted lays out and saves. */
static void test_random_text(void) {
  srand(5);
  static const char *const pieces[] = {"^{", "_{", "}", "{", "^", "_", "a", "10", " ",
                                       "\xc3\x97", "\xe2\x88\x92", "\xff", "\xc3", "\xe2\x88",
                                       "\xf0\x9f\x98\x80", "\xed\xa0\x80", "%s", "%n"};
  char p[512];
  path(p, sizeof p, "text.pdf");
  int accepted = 0, refused = 0;
  for (int k = 0; k < 200; k++) {
    char s[300] = "";
    int n = rand() % 12 + (k % 3 == 0 ? 60 : 0); /* every third long: fitted, cut */
    for (int i = 0; i < n; i++)
      strncat(s, pieces[rand() % (int)(sizeof pieces / sizeof pieces[0])], sizeof s - strlen(s) - 1);
    dlb_figure *f = dlb_figure_new(2, 1.5, 1, 1);
    int id;
    double x[2] = {1, 2};
    dlb_series_new(f, 0, DLB_SERIES_LINE, &id);
    dlb_series_data(f, id, "x", x, 2);
    dlb_series_data(f, id, "y", x, 2);
    int st = dlb_series_str(f, id, "label", s);
    if (st == DLB_OK) st = dlb_series_commit(f, id); else dlb_series_drop(f, id);
    int st2 = dlb_panel_str(f, 0, k % 2 ? "title" : "ylabel", s);
    if (st == DLB_OK && st2 == DLB_OK) accepted++;
    else { refused++; CHECK(strstr(dlb_last_error(), "UTF-8") != NULL); }
    CHECK(dlb_figure_save(f, p, 0) == DLB_OK);
    if (st2 == DLB_OK) { /* what was drawn is whole characters and fits the figure */
      const char *fit = k % 2 ? f->panels[0].title_fit : f->panels[0].ax[1].label_fit;
      CHECK(dlbp_text_valid_utf8(fit));
      size_t nb;
      CHECK(dlb_figure_overlaps(f, &nb) == DLB_OK);
      for (size_t i = 0; i < nb; i++) {
        char d[256];
        dlb_figure_overlap_text(f, i, d, sizeof d);
        CHECK(strstr(d, "leaves the figure") == NULL || strstr(d, "tick") != NULL);
      }
    }
    dlb_figure_free(f);
  }
  if (!(accepted > 20 && refused > 20)) fprintf(stderr, "accepted %d refused %d\n", accepted, refused);
  CHECK(accepted > 20 && refused > 20);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/dlb_test_plot.XXXXXX");
  if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
  RUN(test_ticks);
  RUN(test_ticks_random);
  RUN(test_tick_labels);
  RUN(test_cmaps);
  RUN(test_palette);
  RUN(test_box_stats);
  RUN(test_validation);
  RUN(test_save_and_probe);
  RUN(test_pdf_source_date);
  RUN(test_layout_clean);
  RUN(test_roof_other);
  RUN(test_random_figures);
  RUN(test_random_text);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  return check_done();
}
