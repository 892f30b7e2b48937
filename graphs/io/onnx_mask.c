/*
** onnx_mask.c — a causal attention mask read from an ONNX file (issue [18] item 7;
** docs/import.md "Causal attention"). The importer keeps the values of constants up to
** ONNX_MAXVALS elements only, so GPT-2's mask buffer (tril(ones(ctx, ctx)), 1M elements at
** ctx 1024) would lose its triangle. Instead, while a constant is read, a compact property
** of its data is computed (dlb_onnx_mask_scan): whether its nonzero elements over the last
** two axes form a triangle (j - i <= k, or j - i >= k, the same in every leading slice),
** whether every element is nonzero, whether every nonzero one is a mask fill (at most
** ONNX_MASK_NEG). The properties ride with the constant through the ops exporters put
** between the buffer and the scores (Slice, Cast, Unsqueeze/Squeeze/Reshape, Expand, Not,
** Trilu of a filled tensor, Where of constants) and a mask built from Range and a
** comparison (Hugging Face's _make_causal_mask: arange(n) < (arange(n) + 1).view(n, 1)).
** Where the mask meets the scores (Where with one tensor branch, or an Add), a causal one
** marks the result (TF_CAUSAL), and graphs/step/fusion.c's attention pattern reports the
** attention it masks as causal. Causal = row i (query) sees columns j <= i (keys): the
** diagonal offset 0, the mask spanning the scores' last two dims. A padding mask added to
** the same tensor, a band (sliding window) or an offset diagonal is not causal here.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dlb_onnx.h"
#include "onnx_impl.h"

/* -- reading a tensor's elements (raw_data or the typed fields), as doubles -- */

typedef struct reader {
  const Onnx__TensorProto *tp;
  int elem, es;           /* ONNX element type; bytes per element in raw_data (0: typed) */
} reader;

static double half(uint16_t h) {
  int e = (h >> 10) & 31, f = h & 1023;
  double v = e == 0 ? ldexp(f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp(f + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

static double bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/* Bytes per element in raw_data of the element types a mask may have; 0 otherwise. */
static int esize(int elem) {
  switch (elem) {
  case 2: case 3: case 9: return 1;         /* uint8, int8, bool */
  case 4: case 5: case 10: case 16: return 2; /* uint16, int16, float16, bfloat16 */
  case 1: case 6: return 4;                  /* float, int32 */
  case 7: case 11: return 8;                 /* int64, double */
  default: return 0;
  }
}

/* A reader of tp's n elements, or 0 when its data is absent or of another length. */
static int reader_init(reader *r, const Onnx__TensorProto *tp, int elem, size_t n) {
  r->tp = tp, r->elem = elem, r->es = 0;
  int es = esize(elem);
  if (!es || n == 0) return 0;
  if (tp->has_raw_data) {
    r->es = es;
    return tp->raw_data.len == (size_t)es * n;
  }
  switch (elem) {
  case 1: return tp->n_float_data == n;
  case 7: return tp->n_int64_data == n;
  case 11: return tp->n_double_data == n;
  default: return tp->n_int32_data == n; /* bool, (u)int8/16, int32, float16, bfloat16 */
  }
}

static double at(const reader *r, size_t i) {
  const Onnx__TensorProto *tp = r->tp;
  if (r->es) {
    const uint8_t *p = tp->raw_data.data + i * (size_t)r->es;
    switch (r->elem) {
    case 1: { float x; memcpy(&x, p, 4); return x; }
    case 6: { int32_t x; memcpy(&x, p, 4); return x; }
    case 7: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    case 11: { double x; memcpy(&x, p, 8); return x; }
    case 3: return (int8_t)*p;
    case 4: case 5: case 10: case 16: {
      uint16_t h;
      memcpy(&h, p, 2);
      return r->elem == 10 ? half(h) : r->elem == 16 ? bf16(h) : r->elem == 5 ? (int16_t)h : h;
    }
    default: return *p;
    }
  }
  switch (r->elem) {
  case 1: return tp->float_data[i];
  case 7: return (double)tp->int64_data[i];
  case 11: return tp->double_data[i];
  case 10: return half((uint16_t)tp->int32_data[i]);
  case 16: return bf16((uint16_t)tp->int32_data[i]);
  default: return tp->int32_data[i];
  }
}

/* Whether element (i, j) of a triangle `tri` with offset k is nonzero. */
static int in_tri(int tri, int64_t k, int64_t i, int64_t j) {
  return tri == ONNX_TRI_LOWER ? j - i <= k : j - i >= k;
}

void dlb_onnx_mask_scan(oval *v, const Onnx__TensorProto *tp, int fill_only) {
  v->tri = v->trik = v->allnz = v->neg = 0;
  double nd = 1;
  for (size_t i = 0; i < tp->n_dims; i++) nd *= (double)tp->dims[i];
  if (!(nd >= 1 && nd <= (double)((size_t)1 << 40))) return;
  size_t n = (size_t)nd;
  reader r;
  if (!reader_init(&r, tp, v->elem, n)) return;
  int allnz = 1, neg = 1;
  for (size_t i = 0; i < n; i++) {
    double x = at(&r, i);
    if (x == 0) allnz = 0;
    else if (!(x <= ONNX_MASK_NEG)) { /* NaN: no fill */
      if (fill_only) return;           /* a float weight's first value ends the scan */
      neg = 0;
    }
  }
  v->allnz = allnz, v->neg = neg;
  if (tp->n_dims < 2) return;
  size_t R = (size_t)tp->dims[tp->n_dims - 2], C = (size_t)tp->dims[tp->n_dims - 1];
  if (R < 2 || C < 2 || R > INT32_MAX || C > INT32_MAX) return;
  /* the offset from the first row neither empty nor full: a prefix (lower) or a suffix */
  int tri = 0;
  int64_t k = 0;
  for (size_t i = 0; i < R && !tri; i++) {
    size_t cnt = 0;
    for (size_t j = 0; j < C; j++) cnt += at(&r, i * C + j) != 0;
    if (cnt == 0 || cnt == C) continue;
    if (at(&r, i * C) != 0) tri = ONNX_TRI_LOWER, k = (int64_t)cnt - 1 - (int64_t)i;
    else if (at(&r, i * C + C - 1) != 0) tri = ONNX_TRI_UPPER, k = (int64_t)(C - cnt) - (int64_t)i;
    else return;
  }
  if (!tri) return;
  /* every element of every leading slice */
  for (size_t q = 0; q < n; q++) {
    int64_t i = (int64_t)((q / C) % R), j = (int64_t)(q % C);
    if ((at(&r, q) != 0) != in_tri(tri, k, i, j)) return;
  }
  v->tri = tri, v->trik = (int)k;
}

/* The properties kept when out's values are in's, rearranged so that the last two axes
** stay (reshape, Expand: the same two last dims). */
void dlb_onnx_mask_redim(oval *out, const oval *in) {
  out->allnz = in->allnz, out->neg = in->neg;
  out->tri = out->trik = out->iota = out->ioff = 0;
  if (in->tri && in->nd >= 2 && out->nd >= 2 && out->d[out->nd - 1] == in->d[in->nd - 1] &&
      out->d[out->nd - 2] == in->d[in->nd - 2])
    out->tri = in->tri, out->trik = in->trik;
  if (in->iota > 0 && in->iota <= in->nd) {
    int D = in->d[in->nd - in->iota], same = out->nd >= in->iota;
    /* Expand, Unsqueeze at the front: the axis and those after it keep their dims */
    for (int t = 1; same && t <= in->iota; t++) same = out->d[out->nd - t] == in->d[in->nd - t];
    if (same) {
      out->iota = in->iota, out->ioff = in->ioff;
      return;
    }
    /* a vector reshaped ([n] -> [n, 1]): out's one axis of dim n (the element count is
    ** n, so every other dim is 1) */
    if (in->nd != 1) return;
    int hit = -1;
    for (int i = 0; i < out->nd; i++)
      if (out->d[i] == D) {
        if (hit >= 0) return;
        hit = i;
      }
    if (hit >= 0) out->iota = out->nd - hit, out->ioff = in->ioff;
  }
}

void dlb_onnx_mask_slice(oval *out, const oval *in, const int *touched, const int64_t *start,
                         const int64_t *step) {
  out->allnz = in->allnz, out->neg = in->neg;
  out->tri = out->trik = out->iota = out->ioff = 0;
  int nd = in->nd;
  if (in->tri && nd >= 2) {
    int r = nd - 2, c = nd - 1, ok = 1;
    int64_t k = in->trik;
    for (int a = r; a <= c; a++)
      if (touched[a]) {
        if (step[a] != 1 || start[a] < 0) ok = 0;
        else k += a == r ? start[a] : -start[a]; /* row i' = i - r0; column j' = j - c0 */
      }
    if (ok && k >= INT32_MIN && k <= INT32_MAX) out->tri = in->tri, out->trik = (int)k;
  }
  if (in->iota > 0 && in->iota <= nd) {
    int a = nd - in->iota;
    if (!touched[a]) out->iota = in->iota, out->ioff = in->ioff;
    else if (step[a] == 1 && start[a] >= 0 && in->ioff + start[a] <= INT32_MAX)
      out->iota = in->iota, out->ioff = in->ioff + (int)start[a];
  }
}

void dlb_onnx_mask_cast(oval *v, int from, int to) {
  /* a float cast to an integer type truncates (0.5 -> 0): the nonzero pattern may change */
  int lossy = dlb_onnx_isfloat(from) && !dlb_onnx_isfloat(to) && to != 9;
  if (lossy) v->tri = v->trik = v->allnz = 0;
  if (!dlb_onnx_isfloat(to)) v->neg = 0;
  if (to == 9) v->iota = v->ioff = 0;
}

/* The triangle of the elements a triangle leaves out: j - i <= k <-> j - i >= k + 1. */
static void complement(int *tri, int *k) {
  if (*tri == ONNX_TRI_LOWER && *k < INT32_MAX) *tri = ONNX_TRI_UPPER, *k += 1;
  else if (*tri == ONNX_TRI_UPPER && *k > INT32_MIN) *tri = ONNX_TRI_LOWER, *k -= 1;
  else *tri = *k = 0;
}

void dlb_onnx_mask_not(oval *out, const oval *in) {
  out->tri = in->tri, out->trik = in->trik;
  complement(&out->tri, &out->trik);
  out->allnz = out->neg = out->iota = out->ioff = 0;
}

void dlb_onnx_mask_trilu(oval *out, const oval *in, int upper, double k) {
  out->tri = out->trik = out->allnz = out->iota = out->ioff = 0;
  out->neg = in->neg; /* zeros added, the rest kept */
  /* Trilu keeps j - i >= k (upper) or j - i <= k (lower) of a tensor without zeros */
  if (in->allnz && in->nd >= 2 && k == floor(k) && fabs(k) < 2147483647.0)
    out->tri = upper ? ONNX_TRI_UPPER : ONNX_TRI_LOWER, out->trik = (int)k;
}

/* Whether constant v is known to be all zeros (its values). */
static int zeros(const dlb_onnx *m, const oval *v) {
  if (!v->nv) return 0;
  for (int i = 0; i < v->nv; i++) {
    double x;
    if (!dlb_dim_is_const(m->g, m->pool[v->v + i], &x) || x != 0) return 0;
  }
  return 1;
}

/* Whether v is a mask fill: every element at most ONNX_MASK_NEG. */
static int fill(const dlb_onnx *m, const oval *v) {
  if (v->allnz && v->neg) return 1;
  if (!v->nv) return 0;
  for (int i = 0; i < v->nv; i++) {
    double x;
    if (!dlb_dim_is_const(m->g, m->pool[v->v + i], &x) || !(x <= ONNX_MASK_NEG)) return 0;
  }
  return 1;
}

/* Whether c's last two dims are those of a result with nd dims d. */
static int spans(const oval *c, int nd, const int32_t *d) {
  return c->nd >= 2 && nd >= 2 && c->d[c->nd - 1] == d[nd - 1] && c->d[c->nd - 2] == d[nd - 2];
}

void dlb_onnx_mask_where(dlb_onnx *m, oval *out, const oval *c, const oval *a, const oval *b) {
  out->tri = out->trik = out->allnz = out->neg = out->iota = out->ioff = 0;
  out->neg = (a->neg || zeros(m, a)) && (b->neg || zeros(m, b));
  out->allnz = a->allnz && b->allnz;
  if (!c->tri || !spans(c, out->nd, out->d)) return;
  int tri = c->tri, k = c->trik;
  if (zeros(m, a) && b->allnz) complement(&tri, &k); /* masked_fill(cond, 0) of a filled tensor */
  else if (!(a->allnz && zeros(m, b))) return;
  out->tri = tri, out->trik = k;
}

/* Whether constant v is a scalar (one element) integer known at import time; its value. */
static int scalar_int(const dlb_onnx *m, const oval *v, double *x) {
  return v->nv == 1 && dlb_dim_is_const(m->g, m->pool[v->v], x) && *x == floor(*x) &&
         fabs(*x) < 1073741824.0;
}

void dlb_onnx_mask_binary(dlb_onnx *m, oval *out, const char *op, const oval *a, const oval *b) {
  out->tri = out->trik = out->allnz = out->neg = out->iota = out->ioff = 0;
  double x;
  /* an iota plus or minus an integer: still an iota */
  if ((!strcmp(op, "Add") || !strcmp(op, "Sub")) && a->iota && scalar_int(m, b, &x) &&
      out->nd == a->nd) {
    double o = a->ioff + (op[0] == 'A' ? x : -x);
    if (fabs(o) < 1073741824.0) out->iota = a->iota, out->ioff = (int)o;
    return;
  }
  if (!strcmp(op, "Add") && b->iota && scalar_int(m, a, &x) && out->nd == b->nd) {
    out->iota = b->iota, out->ioff = b->ioff + (int)x;
    return;
  }
  /* a comparison of a column iota (j + oj) and a row iota (i + oi) over the last two axes */
  int lt = !strcmp(op, "Less"), le = !strcmp(op, "LessOrEqual"), gt = !strcmp(op, "Greater"),
      ge = !strcmp(op, "GreaterOrEqual");
  if (!(lt || le || gt || ge) || !a->iota || !b->iota || out->nd < 2) return;
  const oval *col, *row;
  if (a->iota == 1 && b->iota == 2) col = a, row = b;
  else if (a->iota == 2 && b->iota == 1) {
    /* row OP col is col OP' row, OP' the mirrored comparison */
    int t = lt;
    col = b, row = a, lt = gt, gt = t, t = le, le = ge, ge = t;
  } else {
    return;
  }
  if (col->d[col->nd - 1] != out->d[out->nd - 1] || row->d[row->nd - 2] != out->d[out->nd - 2]) return;
  /* col OP row: j + oj OP i + oi <-> j - i OP oi - oj = e */
  int64_t e = (int64_t)row->ioff - col->ioff;
  int64_t k = lt ? e - 1 : le ? e : gt ? e + 1 : e;
  if (k < INT32_MIN || k > INT32_MAX) return;
  out->tri = lt || le ? ONNX_TRI_LOWER : ONNX_TRI_UPPER, out->trik = (int)k;
}

void dlb_onnx_mask_range(oval *out, double start) {
  out->iota = 0;
  if (start == floor(start) && fabs(start) < 1073741824.0) out->iota = 1, out->ioff = (int)start;
}

int dlb_onnx_mask_causal_where(const dlb_onnx *m, const oval *c, const oval *a, const oval *b, int nd,
                               const int32_t *d) {
  if (c->state != OV_CONST || !c->tri || !spans(c, nd, d)) return 0;
  /* Where(keep, scores, fill): keep is j <= i; Where(masked, fill, scores): masked is j > i */
  if (a->state == OV_TENSOR && b->state == OV_CONST)
    return c->tri == ONNX_TRI_LOWER && c->trik == 0 && fill(m, b);
  if (a->state == OV_CONST && b->state == OV_TENSOR)
    return c->tri == ONNX_TRI_UPPER && c->trik == 1 && fill(m, a);
  return 0;
}

int dlb_onnx_mask_causal_add(const oval *mask, int nd, const int32_t *d) {
  /* scores + mask: zero where j <= i, a fill where j > i */
  return mask->state == OV_CONST && !mask->weight && mask->tri == ONNX_TRI_UPPER &&
         mask->trik == 1 && mask->neg && spans(mask, nd, d);
}

void dlb_onnx_mask_mark(dlb_onnx *m, int t) {
  if (t >= 0 && (size_t)t < m->g->nt) m->g->t[t].flags |= TF_CAUSAL;
}
