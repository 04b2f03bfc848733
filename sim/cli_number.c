/* Numbers given on icsim's command lines, each checked against its descriptor (cli.h) before it
 * reaches SimGrid, a workload's allocation or a loop bound (issue 39, item 5). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *shown(double v, enum icsim_dim dim, char *buf, size_t len)
{
  if (dim == ICSIM_DIM_NONE) {
    snprintf(buf, len, "%.15g", v);
  } else if (dim == ICSIM_DIM_SIZE) { /* sizes in their binary unit, exact when it divides */
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (u < 5 && v >= 1024)
      v /= 1024, u++;
    snprintf(buf, len, v == floor(v) ? "%.15g%s" : "%.4g%s", v, unit[u]);
  } else {
    icsim_format_quantity(v, dim, buf, len);
  }
  return buf;
}

const char *icsim_cli_show(double v, enum icsim_dim dim, char *buf, size_t len) { return shown(v, dim, buf, len); }

int icsim_cli_number(const struct icsim_cli_num *d, const char *text, double *out, char *err, size_t errlen)
{
  char why[512], lo[48], hi[48];
  shown(d->min, d->dim, lo, sizeof lo);
  shown(d->max, d->dim, hi, sizeof hi);
  double v;
  enum icsim_dim dim = d->bare && *text && strspn(text, "0123456789") == strlen(text) ? ICSIM_DIM_NONE : d->dim;
  if (icsim_parse_quantity(text, dim, &v, why, sizeof why)) {
    snprintf(err, errlen, "%s %s: %s; give %s%s from %s to %s (e.g. %s %s)", d->option, text, why,
             d->whole ? "a whole number" : "a value", d->dim == ICSIM_DIM_NONE ? "" : " with its unit", lo, hi,
             d->option, d->example);
    return -1;
  }
  if (!(v >= d->min && v <= d->max) || (d->whole && v != floor(v))) {
    snprintf(err, errlen, "%s %s: out of range: give %s from %s to %s%s%s (e.g. %s %s)", d->option, text,
             d->whole ? "a whole number" : "a value", lo, hi, d->why ? ": " : "", d->why ? d->why : "", d->option,
             d->example);
    return -1;
  }
  *out = v;
  return 0;
}

double icsim_physical_memory(void)
{
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}
