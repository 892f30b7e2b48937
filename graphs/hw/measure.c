/*
** measure.c — microbenchmarks of the host for its empirical roofline (dlb_measure.h):
** GEMM through OpenBLAS's CBLAS, STREAM-style copy/triad and elementwise kernels over a
** given working set on one or all threads (pthreads, started together at a barrier), and
** the cache sizes from sysfs. Times: on one thread the calling thread's CPU time
** (CLOCK_THREAD_CPUTIME_ID: the kernel runs on this thread, and the time another job on a
** shared machine preempts it for is not counted), on more threads wall time from
** dlb_sys_now (CLOCK_MONOTONIC). Caches and memory shared with other jobs still count.
**
** OpenBLAS is loaded (dlopen) by the first GEMM measurement, not linked: a linked OpenBLAS
** starts its thread pool when the process loads it, and each pool thread spins on
** sched_yield for about 0.1 s before it sleeps, in every program that links libdlbench,
** measuring or not (docs/measure.md, "OpenBLAS").
*/
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h> /* the CBLAS prototypes and enums; the functions come from blas_load */

#include "dlb_measure.h"
#include "dlb_sys.h"
#include "dlb_runtime.h"

/* OpenBLAS, loaded once by blas_load: its SONAME first, then the development link. */
static const char *const BLAS_NAMES[] = { "libopenblas.so.0", "libopenblas.so" };
static struct {
  __typeof__(&cblas_dgemm) dgemm;
  __typeof__(&cblas_sgemm) sgemm;
  void (*set_threads)(int); /* openblas_set_num_threads: OpenBLAS's own thread control */
  char error[400];          /* why the load failed ("" when loaded) */
} blas;
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

/* A function of the loaded library into *fn (dlsym's void * copied: POSIX's way to read a
** function pointer from it); 0 when the library lacks it. */
static int blas_sym(void *h, const char *name, void *fn) {
  void *p = dlsym(h, name);
  memcpy(fn, &p, sizeof p);
  return p != NULL;
}

static void blas_open(void) {
  void *h = NULL;
  const char *name = BLAS_NAMES[0], *why = "";
  for (size_t i = 0; i < sizeof BLAS_NAMES / sizeof *BLAS_NAMES && !h; i++) {
    name = BLAS_NAMES[i];
    h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) why = dlerror();
  }
  if (!h) {
    snprintf(blas.error, sizeof blas.error, "measure gemm: cannot load OpenBLAS (%s or %s): %s",
             BLAS_NAMES[0], BLAS_NAMES[1], why ? why : "unknown error");
    return;
  }
  if (!blas_sym(h, "cblas_dgemm", &blas.dgemm) || !blas_sym(h, "cblas_sgemm", &blas.sgemm) ||
      !blas_sym(h, "openblas_set_num_threads", &blas.set_threads)) {
    snprintf(blas.error, sizeof blas.error, "measure gemm: %s lacks cblas_dgemm, cblas_sgemm "
             "or openblas_set_num_threads", name);
    blas.dgemm = NULL;
  }
}

/* Load OpenBLAS once (thread-safe); DLB_OK, or an error naming the library and why. */
static int blas_load(void) {
  pthread_once(&blas_once, blas_open);
  if (!blas.dgemm) return dlb_fail(DLB_ENOTFOUND, "%s", blas.error);
  return DLB_OK;
}

enum { MAX_REPS = 1000, MAX_THREADS = 1024 };

/* -- cache sizes ---------------------------------------------------------------- */

/* Read a small sysfs file into buf; 0 on success. */
static int readfile(const char *path, char *buf, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, size - 1, f);
  fclose(f);
  buf[n] = '\0';
  return 0;
}

/* "48K", "1024K", "32M", "65536" -> bytes; 0 when unreadable. */
static double parse_size(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || !(v > 0)) return 0;
  if (*end == 'K' || *end == 'k') v *= 1024;
  else if (*end == 'M' || *end == 'm') v *= 1024.0 * 1024;
  else if (*end == 'G' || *end == 'g') v *= 1024.0 * 1024 * 1024;
  return v;
}

int dlb_measure_caches(double out[4], int *levels) {
  if (!out || !levels) return dlb_fail(DLB_EINVAL, "measure caches: NULL argument");
  for (int i = 0; i < 4; i++) out[i] = 0;
  *levels = 0;
  for (int idx = 0; idx < 16; idx++) {
    char path[128], buf[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
    if (readfile(path, buf, sizeof buf) != 0) continue;
    int level = atoi(buf);
    if (level < 1 || level > 4) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
    if (readfile(path, buf, sizeof buf) != 0 || strncmp(buf, "Instruction", 11) == 0) continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
    if (readfile(path, buf, sizeof buf) != 0) continue;
    double sz = parse_size(buf);
    if (sz > out[level - 1]) out[level - 1] = sz;
    if (sz > 0 && level > *levels) *levels = level;
  }
  return DLB_OK;
}

/* -- clocks ----------------------------------------------------------------------- */

/* Seconds on the clock a measurement on nt threads uses (see the file's comment). */
static double clock_now(int nt) {
  struct timespec ts;
  if (nt == 1 && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  return dlb_sys_now();
}

/* -- statistics of repetitions ---------------------------------------------------- */

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median, min, max of t[0..n-1] (sorted in place). */
static void summarise(double *t, int n, double out[3]) {
  qsort(t, (size_t)n, sizeof *t, cmpd);
  out[0] = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  out[1] = t[0];
  out[2] = t[n - 1];
}

static int check_common(const char *what, int threads, int reps, double min_time, int *nthreads) {
  if (reps < 1 || reps > MAX_REPS) return dlb_fail(DLB_EINVAL, "%s: reps must be 1..%d, got %d", what, MAX_REPS, reps);
  if (!(min_time >= 0 && min_time <= 60))
    return dlb_fail(DLB_EINVAL, "%s: min_time must be 0..60 seconds, got %g", what, min_time);
  if (threads < 0 || threads > MAX_THREADS)
    return dlb_fail(DLB_EINVAL, "%s: threads must be 0 (all) .. %d, got %d", what, MAX_THREADS, threads);
  *nthreads = threads == 0 ? dlb_sys_cores() : threads;
  return DLB_OK;
}

/* -- GEMM ------------------------------------------------------------------------- */

static int whole(double x) { return x >= 1 && x <= 2147483647.0 && x == floor(x); }

/* Run the batched product `iters` times. */
static void gemm_run(int dp, int m, int n, int k, long batch, long iters, void *a, void *b, void *c) {
  for (long it = 0; it < iters; it++) {
    for (long j = 0; j < batch; j++) {
      if (dp)
        blas.dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
      else
        blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
    }
  }
}

int dlb_measure_gemm(int dp, double m, double n, double k, double batch, int threads,
                     int reps, double min_time, double out[3]) {
  int nt = 1;
  if (!out) return dlb_fail(DLB_EINVAL, "measure gemm: NULL argument");
  int st = check_common("measure gemm", threads, reps, min_time, &nt);
  if (st) return st;
  if (dp != 0 && dp != 1) return dlb_fail(DLB_EINVAL, "measure gemm: dp must be 0 (fp32) or 1 (fp64), got %d", dp);
  if (!whole(m) || !whole(n) || !whole(k) || !whole(batch))
    return dlb_fail(DLB_EINVAL, "measure gemm: m, n, k and batch must be whole numbers 1 .. 2^31-1, "
                    "got %g, %g, %g, %g", m, n, k, batch);
  size_t elem = dp ? sizeof(double) : sizeof(float);
  double bytes = (m * k + k * n + m * n) * (double)elem;
  if (bytes > 1073741824.0)
    return dlb_fail(DLB_EINVAL, "measure gemm: %gx%gx%g needs %.3g GB of matrices (limit 1 GiB)", m, n, k, bytes / 1e9);
  if ((st = blas_load())) return st; /* after the argument checks: a bad call needs no OpenBLAS */
  size_t na = (size_t)(m * k), nb = (size_t)(k * n), nc = (size_t)(m * n);
  char *a = dlb_malloc(na * elem), *b = dlb_malloc(nb * elem), *c = dlb_malloc(nc * elem);
  if (!a || !b || !c) {
    dlb_free(a); dlb_free(b); dlb_free(c);
    return dlb_fail(DLB_ENOMEM, "measure gemm: out of memory for %.3g GB of matrices", bytes / 1e9);
  }
  /* small values that stay finite: no denormals, no overflow in any repetition */
  for (size_t i = 0; i < na; i++) { if (dp) ((double *)a)[i] = 1e-3 * (double)(i % 7); else ((float *)a)[i] = 1e-3f * (float)(i % 7); }
  for (size_t i = 0; i < nb; i++) { if (dp) ((double *)b)[i] = 1e-3 * (double)(i % 5); else ((float *)b)[i] = 1e-3f * (float)(i % 5); }
  memset(c, 0, nc * elem);
  blas.set_threads(nt);
  int im = (int)m, in = (int)n, ik = (int)k;
  long lb = (long)batch;
  /* warm up (thread pool, pages), then find how many products fill min_time */
  gemm_run(dp, im, in, ik, lb, 1, a, b, c);
  long iters = 1;
  for (;;) {
    double t0 = clock_now(nt);
    gemm_run(dp, im, in, ik, lb, iters, a, b, c);
    double dt = clock_now(nt) - t0;
    if (dt >= min_time || iters >= (1L << 30)) break;
    double want = dt > 0 ? 1.2 * min_time / dt * (double)iters : 2.0 * (double)iters;
    iters = want > 2.0 * (double)iters ? (long)want : 2 * iters;
    if (want > 8.0 * (double)iters) iters *= 8;
  }
  double t[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    double t0 = clock_now(nt);
    gemm_run(dp, im, in, ik, lb, iters, a, b, c);
    t[r] = (clock_now(nt) - t0) / (double)iters;
  }
  summarise(t, reps, out);
  dlb_free(a); dlb_free(b); dlb_free(c);
  return DLB_OK;
}

/* -- memory kernels ---------------------------------------------------------------- */

typedef struct worker {
  pthread_t th;
  int kernel;
  size_t n;            /* elements per array */
  void *a, *b, *c;      /* 64-byte aligned views of raw[0..2] */
  void *raw[3];         /* the library blocks (graphs/base/alloc.c) */
  struct shared *sh;
} worker;

typedef struct shared {
  pthread_barrier_t start, done;
  long iters;          /* passes to run in the next round; 0 ends the workers */
  pthread_mutex_t mu;  /* gate: the workers wait until every thread has started */
  pthread_cond_t cv;
  int go;              /* 0 wait, 1 run the rounds, -1 leave (a thread failed to start) */
} shared;

/* One pass of the kernel over the worker's arrays. */
static void pass(worker *w) {
  size_t n = w->n;
  switch (w->kernel) {
  case DLB_MEASURE_COPY: {
    const double *a = w->a; double *c = w->c;
    for (size_t i = 0; i < n; i++) c[i] = a[i];
    break;
  }
  case DLB_MEASURE_TRIAD: {
    double *a = w->a; const double *b = w->b, *c = w->c;
    for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    break;
  }
  case DLB_MEASURE_RELU: {
    const float *x = w->a; float *y = w->c;
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
    break;
  }
  default: {
    const float *a = w->a, *b = w->b; float *c = w->c;
    for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
    break;
  }
  }
}

/* Arrays and bytes per element of each kernel. */
static const int narrays[] = { 2, 3, 2, 3 };
static const int elemsz[] = { 8, 8, 4, 4 };

/* Zero a worker's arrays: the first touch places their pages near the thread that runs it. */
static void touch(worker *w) {
  size_t sz = w->n * (size_t)elemsz[w->kernel];
  memset(w->a, 0, sz); memset(w->b, 0, sz); memset(w->c, 0, sz);
}

static void *worker_main(void *p) {
  worker *w = p;
  touch(w); /* before the first round's barrier, which waits for every thread */
  pthread_mutex_lock(&w->sh->mu);
  while (w->sh->go == 0) pthread_cond_wait(&w->sh->cv, &w->sh->mu);
  int go = w->sh->go;
  pthread_mutex_unlock(&w->sh->mu);
  if (go < 0) return NULL;
  for (;;) {
    pthread_barrier_wait(&w->sh->start);
    long iters = w->sh->iters;
    if (iters == 0) break;
    for (long i = 0; i < iters; i++) pass(w);
    pthread_barrier_wait(&w->sh->done);
  }
  return NULL;
}


/* One timed round of iters passes on all threads (worker 0 runs on this thread). */
static double round_time(worker *w, int nt, shared *sh, long iters) {
  sh->iters = iters;
  if (nt > 1) pthread_barrier_wait(&sh->start);
  double t0 = clock_now(nt);
  for (long i = 0; i < iters; i++) pass(&w[0]);
  if (nt > 1) pthread_barrier_wait(&sh->done);
  return clock_now(nt) - t0;
}

int dlb_measure_stream(int kernel, double bytes, int threads, int reps, double min_time,
                       double out[4]) {
  int nt = 1;
  if (!out) return dlb_fail(DLB_EINVAL, "measure stream: NULL argument");
  int st = check_common("measure stream", threads, reps, min_time, &nt);
  if (st) return st;
  if (kernel < DLB_MEASURE_COPY || kernel > DLB_MEASURE_ADD)
    return dlb_fail(DLB_EINVAL, "measure stream: unknown kernel %d (copy 0, triad 1, relu 2, add 3)", kernel);
  if (!(bytes >= 64 && bytes <= 4294967296.0))
    return dlb_fail(DLB_EINVAL, "measure stream: bytes per thread must be 64 .. 4 GiB, got %g", bytes);
  size_t per = (size_t)narrays[kernel] * (size_t)elemsz[kernel];
  size_t n = (size_t)(bytes / (double)per);
  if (n < 1) n = 1;
  worker *w = dlb_calloc((size_t)nt, sizeof *w);
  shared sh;
  if (!w) return dlb_fail(DLB_ENOMEM, "measure stream: out of memory");
  int rc = DLB_OK, started = 0;
  for (int i = 0; i < nt && rc == DLB_OK; i++) {
    w[i].kernel = kernel; w[i].n = n; w[i].sh = &sh;
    size_t sz = n * (size_t)elemsz[kernel];
    /* 64-byte aligned, each thread its own pages (first touch by the initialiser below) */
    void **view[3] = { &w[i].a, &w[i].b, &w[i].c };
    for (int j = 0; j < 3; j++) {
      w[i].raw[j] = dlb_malloc(sz + 64);
      *view[j] = w[i].raw[j] ? (void *)(((uintptr_t)w[i].raw[j] + 63) & ~(uintptr_t)63) : NULL;
    }
    if (!w[i].raw[0] || !w[i].raw[1] || !w[i].raw[2]) {
      rc = dlb_fail(DLB_ENOMEM, "measure stream: out of memory for %g bytes x %d threads", bytes, nt);
      break;
    }
    if (i == 0) touch(&w[0]); /* the others touch their own (worker_main) */
  }
  int sync = 0; /* barriers and gate initialised */
  if (rc == DLB_OK && nt > 1) {
    if (pthread_barrier_init(&sh.start, NULL, (unsigned)nt) != 0) rc = dlb_fail(DLB_ENOMEM, "measure stream: barrier");
    else if (pthread_barrier_init(&sh.done, NULL, (unsigned)nt) != 0) {
      pthread_barrier_destroy(&sh.start);
      rc = dlb_fail(DLB_ENOMEM, "measure stream: barrier");
    } else {
      pthread_mutex_init(&sh.mu, NULL);
      pthread_cond_init(&sh.cv, NULL);
      sh.go = 0;
      sync = 1;
      for (int i = 1; i < nt; i++) {
        if (pthread_create(&w[i].th, NULL, worker_main, &w[i]) != 0) {
          rc = dlb_fail(DLB_EIO, "measure stream: cannot start thread %d of %d", i + 1, nt);
          break;
        }
        started = i;
      }
      pthread_mutex_lock(&sh.mu);
      sh.go = rc == DLB_OK ? 1 : -1;   /* a failed start releases the others unused */
      pthread_cond_broadcast(&sh.cv);
      pthread_mutex_unlock(&sh.mu);
    }
  }
  if (rc == DLB_OK) {
    round_time(w, nt, &sh, 1); /* warm up */
    long iters = 1;
    for (;;) {
      double dt = round_time(w, nt, &sh, iters);
      if (dt >= min_time || iters >= (1L << 30)) break;
      double want = dt > 0 ? 1.2 * min_time / dt * (double)iters : 2.0 * (double)iters;
      iters = want > 2.0 * (double)iters ? (long)want : 2 * iters;
    }
    double t[MAX_REPS];
    for (int r = 0; r < reps; r++) t[r] = round_time(w, nt, &sh, iters) / (double)iters;
    summarise(t, reps, out);
    out[3] = (double)nt * (double)n * (double)per;
    if (nt > 1) { /* end the workers */
      sh.iters = 0;
      pthread_barrier_wait(&sh.start);
    }
  }
  for (int i = 1; i <= started; i++) pthread_join(w[i].th, NULL);
  if (sync) {
    pthread_barrier_destroy(&sh.start);
    pthread_barrier_destroy(&sh.done);
    pthread_mutex_destroy(&sh.mu);
    pthread_cond_destroy(&sh.cv);
  }
  for (int i = 0; i < nt; i++) { dlb_free(w[i].raw[0]); dlb_free(w[i].raw[1]); dlb_free(w[i].raw[2]); }
  dlb_free(w);
  return rc;
}
