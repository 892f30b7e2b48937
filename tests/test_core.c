/*
** test_core.c — the error model and versions of libdlbench.
*/
#include <string.h>

#include "dlbench.h"
#include "dlb_internal.h"
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

int main(void) {
  RUN(test_abi);
  RUN(test_last_error);
  return check_done();
}
