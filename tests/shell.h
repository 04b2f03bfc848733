/* Run a shell command from a test and keep its output. */
#ifndef ICSIM_TEST_SHELL_H
#define ICSIM_TEST_SHELL_H
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Run CMD through sh; returns its exit status (128 when killed), stdout (and stderr when MERGE)
 * in *OUT, to be freed. */
static int run(const char *cmd, char **out, int merge)
{
  char *full;
  if (asprintf(&full, "%s%s", cmd, merge ? " 2>&1" : " 2>/dev/null") < 0)
    abort();
  FILE *p = popen(full, "r");
  free(full);
  size_t cap = 1 << 16, len = 0, n;
  char *buf = malloc(cap);
  while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += n;
    if (cap - len < 2)
      buf = realloc(buf, cap *= 2);
  }
  buf[len] = '\0';
  int st = pclose(p);
  *out = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Value printed for SIZE in an OSU-style output, or -1. */
__attribute__((unused)) static double row_value(const char *out, long size)
{
  for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    long s;
    double v;
    if (*l != '#' && sscanf(l, "%ld %lf", &s, &v) == 2 && s == size)
      return v;
  }
  return -1;
}

#ifdef cr_assert_eq /* a Criterion test (criterion.h included before this file) */
#include <stdarg.h>
/* Run CMD with its output merged: its exit status must be STATUS and its output hold each needle of
 * the NULL-terminated list AP. Returns the output, to be freed. */
__attribute__((unused)) static char *run_expecting(const char *cmd, int status, va_list ap)
{
  char *out;
  int rc = run(cmd, &out, 1);
  cr_assert_eq(rc, status, "'%s' exited %d, expected %d:\n%s", cmd, rc, status, out);
  for (const char *needle; (needle = va_arg(ap, const char *));)
    cr_assert(strstr(out, needle), "'%s' said:\n%s\nexpected: %s", cmd, out, needle);
  return out;
}
#endif

#endif
