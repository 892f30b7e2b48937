/*
** fuzz_kernel.c — libFuzzer harness for the Jupyter kernel's request reader (host/kernel.c,
** readrequest): the bytes the wrapper host/jupyter/dlbench_kernel.py writes on the request
** pipe, "<op> <len>\n" and len bytes, again and again. The input is put in a memory file
** and read as the pipe; every request read must hold: an op of 1..31 bytes without a space
** or NUL, a body of the stated length (NUL-terminated), never more bytes than the input has;
** a refused one says why and ends the stream (nothing is read after it). No crash, no
** sanitizer report, no leak, no allocation past the kernel's cap (-rss_limit_mb and
** -malloc_limit_mb of libFuzzer). The requests' Lua side (lua/dlbench/kernel.lua) runs
** cells, which are code: not fuzzed. Built and run by tests/fuzz/run.sh; seeds in
** tests/fuzz/corpus/kernel/ (the first one is a request of each op as the wrapper writes it).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* fuzz-link: -llua5.4 */
#include "../../host/kernel.c"

/* What host/kernel.c calls of the rest of the host (host/main.c, host/interrupt.c): never
** reached by readrequest. */
int host_docall(lua_State *L, int narg, int nres) { (void)L, (void)narg, (void)nres; abort(); }
int host_interrupted(void) { return 0; }
int host_interrupt_install(int force) { (void)force; return 0; }

static int memfd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (memfd < 0) {
    memfd = memfd_create("fuzz_kernel", 0);
    if (memfd < 0) abort();
  }
  if (ftruncate(memfd, 0) != 0 || lseek(memfd, 0, SEEK_SET) != 0) abort();
  if (size > 0 && write(memfd, data, size) != (ssize_t)size) abort();
  if (lseek(memfd, 0, SEEK_SET) != 0) abort();
  reqfd = memfd;
  size_t used = 0;
  for (;;) {
    char op[32], why[128];
    char *body;
    size_t len;
    why[0] = '\0';
    int r = readrequest(op, sizeof op, &body, &len, why, sizeof why);
    if (r == 1) { /* the end, at a request's boundary */
      if (body != NULL || lseek(memfd, 0, SEEK_CUR) != (off_t)size) abort();
      break;
    }
    if (r != 0) { /* refused: why is said, nothing is handed on */
      if (body != NULL || why[0] == '\0' || strlen(why) >= sizeof why) abort();
      break;
    }
    size_t oplen = strlen(op);
    if (oplen == 0 || oplen >= sizeof op || memchr(op, ' ', oplen) || body == NULL ||
        body[len] != '\0' || len > KERNEL_MAXREQUEST)
      abort();
    used += oplen + 1 + len;
    if (used > size || memcmp(body, data + (lseek(memfd, 0, SEEK_CUR) - (off_t)len), len) != 0)
      abort(); /* the body is the input's bytes, right before where reading stopped */
    free(body);
  }
  return 0;
}
