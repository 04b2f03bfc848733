/* Shared option parsing, buffers and output for our OSU-style micro-benchmarks.
 * Options and output layout follow the OSU Micro-Benchmarks conventions so existing scripts
 * parse our output: -m [MIN:]MAX, -i ITERS, -x WARMUP, -W WINDOW, and for the collectives -f (full
 * statistics) and -T TYPE, -h; '# Size ...' header then one "size value ..." row per message size.
 * Ordinary MPI: builds with mpicc or icsimcc. */
#ifndef OSU_UTIL_H
#define OSU_UTIL_H

#include <stddef.h>

/* OSU's defaults: sizes above LARGE_MESSAGE use fewer iterations and warm-ups. */
#define OSU_LARGE_MESSAGE 8192

struct osu_opts {
  size_t min_size, max_size;
  int iters, iters_large;   /* timed iterations */
  int skip, skip_large;     /* warm-up iterations */
  int window;
  int iters_given, skip_given;
};

/* The collective tests' further options. */
struct osu_coll_opts {
  int full;         /* -f: min and max over ranks and the iteration count beside the average */
  const char *type; /* -T: datatype name as given, NULL for the default */
};

/* Parse argv into O (defaults already set by the caller). Prints usage and returns 1 if
 * the program should exit (help or bad option; *STATUS says with what). */
int osu_parse(int argc, char **argv, struct osu_opts *o, const char *name, int has_window, int *status);
/* The same, also taking the collective tests' -f and -T into C. */
int osu_parse_coll(int argc, char **argv, struct osu_opts *o, struct osu_coll_opts *c, const char *name,
                   int *status);
int osu_iters(const struct osu_opts *o, size_t size);
int osu_skip(const struct osu_opts *o, size_t size);
/* Page-aligned buffer of SIZE bytes (at least one page), filled with a pattern. */
void *osu_buffer(size_t size, int fill);
void osu_free(void *p);
/* 0 if NP == WANT; otherwise rank 0 says so and 2 is returned (the program's exit status). */
int osu_need_ranks(int rank, int np, int want, const char *name);
/* Next size in the sweep: 0 -> 1 -> 2 -> 4 ... */
size_t osu_next_size(size_t size);

#endif
