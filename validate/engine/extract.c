/* Values from a workload's output: a column of its "x v1 v2 ..." rows (OSU style), or a
 * "Name = value" line of a report block (NPB style) with further lines as a breakdown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

static void add_point(struct point **out, size_t *n, const char *x, double value)
{
  *out = realloc(*out, (*n + 1) * sizeof **out);
  struct point *p = &(*out)[(*n)++];
  memset(p, 0, sizeof *p);
  snprintf(p->x, sizeof p->x, "%s", x);
  p->value = value;
  p->has_value = 1;
}

/* x of one row: XFMT with {k} replaced by token k, or the first token. */
static void format_x(const char *xfmt, char **tok, int ntok, char *x, size_t len)
{
  if (!xfmt) {
    snprintf(x, len, "%s", tok[0]);
    return;
  }
  size_t k = 0;
  x[0] = '\0';
  for (const char *f = xfmt; *f && k + 1 < len; f++) {
    int c;
    if (*f == '{' && sscanf(f, "{%d}", &c) == 1 && c >= 1 && c <= ntok) {
      k += (size_t)snprintf(x + k, len - k, "%s", tok[c - 1]);
      f = strchr(f, '}');
    } else {
      x[k++] = *f;
      x[k] = '\0';
    }
  }
}

void extract_columns(const char *text, int column, const char *xfmt, double scale, struct point **out, size_t *n)
{
  const char *line = text;
  while (line && *line) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len && line[0] != '#' && len < 1024) { /* '#' lines are the workloads' headers */
      char buf[1024], *tok[32] = {0}, *save;
      int ntok = 0;
      memcpy(buf, line, len);
      buf[len] = '\0';
      for (char *t = strtok_r(buf, " \t", &save); t && ntok < 32; t = strtok_r(NULL, " \t", &save))
        tok[ntok++] = t;
      char *end = NULL;
      double v = column <= ntok ? strtod(tok[column - 1], &end) : 0;
      if (ntok >= 1 && column <= ntok && end != tok[column - 1]) { /* rows whose column is a number */
        char x[64];
        format_x(xfmt, tok, ntok, x, sizeof x);
        add_point(out, n, x, v * scale);
      }
    }
    line = nl ? nl + 1 : NULL;
  }
}

/* Value of a "  Name   =   value" line, or NAN. */
double extract_field_value(const char *text, const char *name)
{
  size_t len = strlen(name);
  for (const char *line = text; line && *line;) {
    const char *p = line;
    while (*p == ' ' || *p == '\t')
      p++;
    if (!strncmp(p, name, len)) {
      p += len;
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '=') {
        char *end;
        double v = strtod(p + 1, &end);
        if (end != p + 1)
          return v;
      }
    }
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  return NAN;
}

int extract_field(const struct icsim_yfile *y, int mi, const char *text, const char *x, double scale,
                  struct point **out, size_t *n, char *err, size_t errlen)
{
  const char *field = case_get(y, "metrics/%d/field", mi);
  double v = extract_field_value(text, field);
  if (isnan(v)) {
    snprintf(err, errlen, "%s: metric %d: the workload printed no '%s = number' line", y->path, mi, field);
    return -1;
  }
  add_point(out, n, x, v * scale);
  struct point *p = &(*out)[*n - 1];
  const char *part;
  for (int k = 0; (part = case_item(y, "metrics/%d/breakdown/%d", mi, k)); k++) {
    size_t used = strlen(p->note);
    snprintf(p->note + used, sizeof p->note - used, "%s%s %.4g", used ? ", " : "", part, extract_field_value(text, part));
  }
  return 0;
}
