/* Published tables (validate/data/NAME.csv): rows "metric,x,published", '#' lines are comments;
 * an empty published value is a point held back for blind validation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "paths.h"

/* "a,b,c" or "a,\"b,with,commas\",c" into three fields of 64 bytes; returns the field count. */
static int split_csv3(const char *line, char f0[64], char f1[64], char f2[64])
{
  char *f[3] = {f0, f1, f2};
  int n = 0;
  const char *p = line;
  while (n < 3) {
    size_t k = 0;
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++)
        if (k < 63)
          f[n][k++] = *p;
      if (*p == '"')
        p++;
    } else {
      for (; *p && *p != ','; p++)
        if (k < 63)
          f[n][k++] = *p;
    }
    f[n][k] = '\0';
    n++;
    if (*p != ',')
      break;
    p++;
  }
  return n;
}

int load_published(const char *path, const char *metric, struct point **out, size_t *n, char *err, size_t errlen)
{
  FILE *f = icsim_input_fopen("published table", path, err, errlen); /* a regular file only (paths.h) */
  if (!f)
    return -1;
  char line[512];
  int lineno = 0, header = 0;
  *out = NULL;
  *n = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0')
      continue;
    if (!header) {
      if (strcmp(line, "metric,x,published")) {
        snprintf(err, errlen, "%s:%d: header must be 'metric,x,published'", icsim_path_shown(path), lineno);
        goto fail;
      }
      header = 1;
      continue;
    }
    char m[64], x[64], v[64] = "";
    if (split_csv3(line, m, x, v) < 2) {
      snprintf(err, errlen, "%s:%d: expected metric,x,published", icsim_path_shown(path), lineno);
      goto fail;
    }
    if (strcmp(m, metric))
      continue;
    struct point *grown = realloc(*out, (*n + 1) * sizeof **out);
    if (!grown) {
      snprintf(err, errlen, "%s:%d: out of memory", icsim_path_shown(path), lineno);
      goto fail;
    }
    *out = grown;
    struct point *p = &(*out)[(*n)++];
    snprintf(p->x, sizeof p->x, "%s", x);
    p->has_value = v[0] != '\0';
    if (p->has_value) {
      char *end;
      p->value = strtod(v, &end);
      if (*end) {
        snprintf(err, errlen, "%s:%d: published value '%s' is not a number", icsim_path_shown(path), lineno, v);
        goto fail;
      }
    }
  }
  fclose(f);
  if (*n == 0) {
    snprintf(err, errlen, "%s: no rows for metric '%s'", icsim_path_shown(path), metric);
    return -1;
  }
  return 0;
fail: /* nothing half-read is handed back (the fuzz target reads every file kind: tests/fuzz) */
  fclose(f);
  free(*out);
  *out = NULL;
  *n = 0;
  return -1;
}
