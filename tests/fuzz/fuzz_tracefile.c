/*
** fuzz_tracefile.c — libFuzzer harness of the trace reader's file paths (graphs/io/trace.c):
** gzip'd traces inflated member by member (zsrc), and the streamed reader behind
** dlb.trace.summary(path) (dlb_trace_open / dlb_trace_next), which fuzz_trace.c (the reader
** of text in memory) does not reach. The first byte of the input says what to make of the
** rest:
**   bit 0  the rest is JSON text that the harness gzips (so the fuzzer reaches the JSON
**          reader through zlib); clear: the rest is the file's bytes as they are (a mutated
**          gzip stream where it starts 1f 8b, plain JSON otherwise)
**   bit 1  gzipped as two members, cut in the middle of the text (concatenated members)
**   bit 2  one junk byte after the gzip stream (must be refused, naming its file offset)
**   bit 3  read in batches (dlb_trace_open, dlb_trace_next with a batch of 1..8 events)
**   bit 4  small limits (max_bytes 65,536: a gzip bomb must stop there, a bounded memory)
**   bit 5  the gzip stream cut short by the second byte of the input (mod its length)
** The file is a memory file read through /proc/self/fd. What must hold: no crash, no
** sanitizer report, no leak, no allocation past libFuzzer's -rss_limit_mb / -malloc_limit_mb
** (the decompression bomb); a failure names the file ("trace /proc/..."); a success reads
** back whole; under the default limits the streamed reader and the whole read agree (both
** fail, or both give the same events and bytes), and a gzipped JSON text reads as the text
** itself does through dlb_trace_parse (the same events). Built and run by tests/fuzz/run.sh;
** seeds in tests/fuzz/corpus/tracefile/.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "dlbench.h"
#include "trace_readback.h"

static int memfd = -1;
static char path[64];

/* n bytes of src gzipped into out (cap bytes); the count, or 0 when it does not fit. */
static size_t gz(const uint8_t *src, size_t n, uint8_t *out, size_t cap) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
  z.next_in = (Bytef *)src, z.avail_in = (uInt)n;
  z.next_out = out, z.avail_out = (uInt)cap;
  int r = deflate(&z, Z_FINISH);
  size_t got = cap - z.avail_out;
  deflateEnd(&z);
  return r == Z_STREAM_END ? got : 0;
}

/* A failure names the file. */
static void failed(void) {
  const char *m = dlb_last_error();
  if (!m || strncmp(m, "trace /proc/", 12) != 0) {
    fprintf(stderr, "unnamed failure: %s\n", m ? m : "(none)");
    abort();
  }
}

/* The whole read: 1 and *n, *bytes on success, 0 on failure. */
static int whole(const dlb_trace_limits *lim, size_t *n, double *bytes) {
  dlb_trace *t = dlb_trace_read_limits(path, lim);
  if (!t) { failed(); return 0; }
  (void)trace_readback(t);
  *n = dlb_trace_count(t), *bytes = dlb_trace_bytes(t);
  if (lim && *n > lim->max_events) abort();
  dlb_trace_free(t);
  return 1;
}

/* The read in batches of `batch`: 1 and the events, the bytes on success, 0 on failure. */
static int streamed(const dlb_trace_limits *lim, size_t batch, size_t *n, double *bytes) {
  dlb_trace *t = dlb_trace_open(path, lim);
  if (!t) { failed(); return 0; }
  size_t total = 0, count;
  int ok = 1;
  for (int rounds = 0;; rounds++) {
    if (dlb_trace_next(t, batch, &count) != DLB_OK) { failed(); ok = 0; break; }
    if (count == 0) break;
    (void)trace_readback(t);
    total += count;
    if (rounds > 1 << 20) abort(); /* no end: a hang */
  }
  if (ok) {
    /* after the end, another call gives nothing again */
    if (dlb_trace_next(t, batch, &count) != DLB_OK || count != 0) abort();
    *bytes = dlb_trace_bytes(t);
  } else if (dlb_trace_next(t, batch, &count) == DLB_OK) {
    abort(); /* a failed read stays failed */
  }
  *n = total;
  dlb_trace_free(t);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || size > (1 << 20)) return 0;
  if (memfd < 0) {
    memfd = memfd_create("fuzz_tracefile", 0);
    if (memfd < 0) abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
  }
  unsigned mode = data[0], cut = data[1];
  const uint8_t *text = data + 2;
  size_t tlen = size - 2;
  size_t cap = tlen + tlen / 2 + 256;
  uint8_t *file = malloc(cap);
  if (!file) return 0;
  size_t flen;
  int gzipped = mode & 1;
  if (gzipped) {
    size_t half = (mode & 2) ? tlen / 2 : tlen;
    size_t a = gz(text, half, file, cap), b = 0;
    if (a && half < tlen) b = gz(text + half, tlen - half, file + a, cap - a);
    if (!a || (half < tlen && !b)) { free(file); return 0; }
    flen = a + b;
    if (mode & 32) flen = cut % flen + 1 < flen ? cut % flen + 1 : flen; /* cut short */
    if ((mode & 4) && flen < cap) file[flen++] = 'x';
  } else {
    memcpy(file, text, tlen);
    flen = tlen;
  }
  if (ftruncate(memfd, 0) != 0 || pwrite(memfd, file, flen, 0) != (ssize_t)flen) abort();
  free(file);

  dlb_trace_limits small = {65536, 64, 256, 2048};
  const dlb_trace_limits *lim = (mode & 16) ? &small : NULL;
  size_t batch = 1 + (size_t)(cut & 7);
  size_t nw = 0, ns = 0;
  double bw = 0, bs = 0;
  if (mode & 8) {
    int okw = whole(lim, &nw, &bw), oks = streamed(lim, batch, &ns, &bs);
    /* under the default limits both readers take the same files (inputs here are far below
    ** the 64 MiB the stream's max_bytes defaults to at least; max_events: 1,048,576) */
    if (!lim && (okw != oks || (okw && (nw != ns || bw != bs)))) {
      fprintf(stderr, "whole %d (%zu events, %.0f bytes) but streamed %d (%zu, %.0f)\n", okw, nw,
              bw, oks, ns, bs);
      abort();
    }
  } else {
    int okw = whole(lim, &nw, &bw);
    if (gzipped && (mode & 4) && !(mode & 32) && okw) abort(); /* junk after the stream */
    /* the whole text gzipped in one or two members, nothing after: what the text reads as */
    if (gzipped && !(mode & (4 | 32)) && !lim) {
      dlb_trace *t = dlb_trace_parse((const char *)text, tlen);
      int okp = t != NULL;
      size_t np = t ? dlb_trace_count(t) : 0;
      double bp = t ? dlb_trace_bytes(t) : 0;
      dlb_trace_free(t);
      if (okp != okw || (okw && (np != nw || bp != bw))) {
        fprintf(stderr, "text %d (%zu events, %.0f bytes) but gzipped %d (%zu, %.0f)\n", okp, np,
                bp, okw, nw, bw);
        abort();
      }
    }
  }
  return 0;
}
