/* A shell command built printf-style, run, its exit status checked (Criterion): the adaptor's
 * scale and library tests. Returns its output (stdout and stderr), to be freed. */
#ifndef ABI_EXPECT_RUN_H
#define ABI_EXPECT_RUN_H
#include <criterion/criterion.h>
#include <stdarg.h>

#include "../../../tests/shell.h"

static char *expect_run(int expect, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static char *expect_run(int expect, const char *fmt, ...)
{
  char *cmd, *out;
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(&cmd, fmt, ap) < 0)
    abort();
  va_end(ap);
  int rc = run(cmd, &out, 1);
  cr_assert_eq(rc, expect, "'%s' exited %d, expected %d:\n%s", cmd, rc, expect, out);
  free(cmd);
  return out;
}
#endif
