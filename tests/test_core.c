/*
** test_core.c — the error model and versions of libdlbench.
*/
#include <stdlib.h>
#include <string.h>

#include "dlbench.h"
#include "dlb_runtime.h"
#include "check.h"

static void test_abi(void) {
  CHECK(dlb_abi_version() == DLB_ABI_VERSION);
  CHECK(strlen(dlb_version()) > 0);
}

static void test_last_error(void) {
  CHECK(dlb_fail(DLB_EINVAL, "op %s: bad %d", "matmul", 3) == DLB_EINVAL);
  CHECK(strcmp(dlb_last_error(), "op matmul: bad 3") == 0);
  CHECK(dlb_last_status() == DLB_EINVAL);
  CHECK(dlb_fail_null(DLB_ENOMEM, "out of memory") == NULL);
  CHECK(strcmp(dlb_last_error(), "out of memory") == 0);
}

/* A counting allocator (realloc/free underneath, as dlb_set_allocator requires). */
static int calls_alloc, calls_free;
static void *counting(void *ud, void *ptr, size_t n) {
  (void)ud;
  if (n == 0) { calls_free++; free(ptr); return NULL; }
  calls_alloc++;
  return realloc(ptr, n);
}

/* Every block of the library goes through the allocator a host sets, and
** dlb_memory_in_use counts what is live (graphs/base/alloc.c). */
static void test_allocator(void) {
  double before = dlb_memory_in_use();
  dlb_set_allocator(counting, NULL);
  dlb_graph *g = dlb_graph_new("mem");
  CHECK(g != NULL);
  int x;
  const char *dims[] = { "b", "784" };
  CHECK(dlb_graph_tensor(g, "x", DLB_ROLE_INPUT, DLB_DT_DEFAULT, 2, dims, &x) == DLB_OK);
  CHECK(calls_alloc > 0);
  CHECK(dlb_memory_in_use() > before);
  dlb_graph_free(g);
  CHECK(calls_free > 0);
  CHECK_NEAR(dlb_memory_in_use(), before, 0);
  dlb_set_allocator(NULL, NULL);
  int a = calls_alloc;
  char *p = dlb_strdup("back to the C library's");
  CHECK(p != NULL && strcmp(p, "back to the C library's") == 0);
  dlb_free(p);
  CHECK(calls_alloc == a);
  CHECK(dlb_calloc((size_t)-1, 16) == NULL); /* overflow, as calloc */
}

int main(void) {
  RUN(test_abi);
  RUN(test_last_error);
  RUN(test_allocator);
  return check_done();
}
