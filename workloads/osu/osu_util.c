#include "osu_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_size(const char *s, size_t *out)
{
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || *end)
    return -1;
  *out = (size_t)v;
  return 0;
}

/* C, if not NULL, takes -f and -T (the collective tests). */
static int parse(int argc, char **argv, struct osu_opts *o, struct osu_coll_opts *c, const char *name,
                 int has_window, int *status)
{
  int coll = c != NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      printf("usage: %s [-m [MIN:]MAX] [-i ITERATIONS] [-x WARMUP]%s%s\n"
             "  -m  message sizes in bytes (default %zu:%zu; MIN: keeps the largest)\n"
             "  -i  timed iterations per size (default %d, %d above %d bytes)\n"
             "  -x  warm-up iterations per size (default %d, %d above %d bytes)\n%s%s",
             name, has_window ? " [-W WINDOW]" : "", coll ? " [-f] [-T TYPE]" : "",
             o->min_size, o->max_size, o->iters, o->iters_large, OSU_LARGE_MESSAGE, o->skip, o->skip_large,
             OSU_LARGE_MESSAGE, has_window ? "  -W  messages in flight per iteration (default 64)\n" : "",
             coll ? "  -f  also the minimum and maximum over ranks of their mean latency, and the iterations\n"
                    "  -T  datatype: mpi_char (default), mpi_int or mpi_float; sizes below its size are skipped\n"
                  : "");
      *status = 0;
      return 1;
    }
    if (coll && !strcmp(a, "-f")) {
      c->full = 1;
      continue;
    }
    if (!v || (strcmp(a, "-m") && strcmp(a, "-i") && strcmp(a, "-x") && (strcmp(a, "-W") || !has_window) &&
               (strcmp(a, "-T") || !coll))) {
      fprintf(stderr, "%s: unknown or incomplete option '%s' (try -h)\n", name, a);
      *status = 2;
      return 1;
    }
    i++;
    if (!strcmp(a, "-T")) {
      c->type = v;
    } else if (!strcmp(a, "-m")) {
      const char *colon = strchr(v, ':');
      char lo[64];
      if (colon) {
        snprintf(lo, sizeof lo, "%.*s", (int)(colon - v), v);
        if ((lo[0] && parse_size(lo, &o->min_size)) || (colon[1] && parse_size(colon + 1, &o->max_size)))
          goto bad;
      } else if (parse_size(v, &o->max_size)) {
        goto bad;
      }
      if (o->min_size > o->max_size)
        goto bad;
    } else {
      char *end;
      long n = strtol(v, &end, 10);
      if (*end || n < (strcmp(a, "-x") ? 1 : 0))
        goto bad;
      if (!strcmp(a, "-i"))
        o->iters = o->iters_large = (int)n, o->iters_given = 1;
      else if (!strcmp(a, "-x"))
        o->skip = o->skip_large = (int)n, o->skip_given = 1;
      else
        o->window = (int)n;
    }
    continue;
  bad:
    fprintf(stderr, "%s: bad value '%s' for %s\n", name, v, a);
    *status = 2;
    return 1;
  }
  return 0;
}

int osu_parse(int argc, char **argv, struct osu_opts *o, const char *name, int has_window, int *status)
{
  return parse(argc, argv, o, NULL, name, has_window, status);
}

int osu_parse_coll(int argc, char **argv, struct osu_opts *o, struct osu_coll_opts *c, const char *name,
                   int *status)
{
  return parse(argc, argv, o, c, name, 0, status);
}

int osu_iters(const struct osu_opts *o, size_t size) { return size > OSU_LARGE_MESSAGE ? o->iters_large : o->iters; }
int osu_skip(const struct osu_opts *o, size_t size) { return size > OSU_LARGE_MESSAGE ? o->skip_large : o->skip; }

void *osu_buffer(size_t size, int fill)
{
  long page = sysconf(_SC_PAGESIZE);
  void *p = NULL;
  size_t len = size > (size_t)page ? size : (size_t)page;
  if (posix_memalign(&p, (size_t)page, len)) {
    fprintf(stderr, "cannot allocate %zu bytes\n", len);
    exit(1);
  }
  memset(p, fill, len);
  return p;
}

void osu_free(void *p) { free(p); }

size_t osu_next_size(size_t size) { return size ? size * 2 : 1; }

int osu_need_ranks(int rank, int np, int want, const char *name)
{
  if (np == want)
    return 0;
  if (rank == 0)
    fprintf(stderr, "%s: needs exactly %d ranks (got %d)\n", name, want, np);
  return 2;
}
