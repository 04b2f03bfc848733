/* The timing loop of the collective tests, measured the way OSU Micro-Benchmarks 7.2 measures its
 * blocking collectives (c/mpi/collective/blocking there), so that our figures and theirs agree:
 *
 * - defaults: sizes 1 B to 1 MiB (doubling), 1000 timed iterations after 100 warm-ups, 100 after 10
 *   above 8 KiB (-i and -x set both); MPI_CHAR elements (-T); a size smaller than one element is
 *   skipped;
 * - each size starts with a barrier; each iteration times the one call with MPI_Wtime on every rank,
 *   then every rank enters a barrier, outside the timed span (so the next call starts together);
 * - each rank's latency is the mean of its timed calls; rank 0 prints the average of these means
 *   over the ranks and, with -f, their minimum, maximum and the iteration count;
 * - a barrier closes each size.
 */
#ifndef OSU_COLLECTIVE_H
#define OSU_COLLECTIVE_H

#include <mpi.h>
#include <stdio.h>
#include <strings.h>

#include "osu_util.h"

/* The collective tests' options with OSU's defaults. */
#define OSU_COLLECTIVE_OPTS {1, 1 << 20, 1000, 100, 100, 10, 0, 0, 0}

/* OSU's default cap on one buffer of a collective test (its -M, which we do not take): 512 MiB. */
#define OSU_COLLECTIVE_MEM_LIMIT ((size_t)512 << 20)

/* The datatype named by -T (NULL: MPI_CHAR) into *TYPE and *NAME; 0, or 2 after saying why. */
static inline int osu_collective_type(const struct osu_coll_opts *o, int rank, const char *prog, MPI_Datatype *type,
                                      const char **name)
{
  static const struct {
    const char *name;
    MPI_Datatype type;
  } known[] = {{"MPI_CHAR", MPI_CHAR}, {"MPI_INT", MPI_INT}, {"MPI_FLOAT", MPI_FLOAT}};
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
    if (!o->type || !strcasecmp(o->type, known[k].name)) {
      *type = known[k].type;
      *name = known[k].name;
      return 0;
    }
  if (rank == 0)
    fprintf(stderr, "%s: bad value '%s' for -T (mpi_char, mpi_int or mpi_float)\n", prog, o->type);
  return 2;
}

/* Caps O's largest size so that PER_SIZE_FACTOR x size bytes fit OSU's memory limit, as OSU does
 * (the all-to-all's buffers hold one block per rank). */
static inline void osu_collective_mem_limit(struct osu_opts *o, int rank, size_t per_size_factor)
{
  if (o->max_size * per_size_factor <= OSU_COLLECTIVE_MEM_LIMIT)
    return;
  o->max_size = OSU_COLLECTIVE_MEM_LIMIT / per_size_factor;
  if (rank == 0)
    fprintf(stderr, "warning: largest message size limited to %zu bytes (%zu MiB per buffer)\n", o->max_size,
            OSU_COLLECTIVE_MEM_LIMIT >> 20);
}

/* Runs CALL(count, ctx) for each size (COUNT elements of TYPE_SIZE bytes) and prints one row per size:
 * "size avg" or, with -f, "size avg min max iterations", latencies in microseconds. */
static inline void osu_collective_loop(const struct osu_opts *o, const struct osu_coll_opts *co, int rank, int np,
                                       const char *title, const char *type_name, int type_size,
                                       void (*call)(int count, void *ctx), void *ctx)
{
  if (rank == 0) {
    printf("# icsim OSU-style MPI %s latency test (%d ranks)\n# Datatype: %s.\n", title, np, type_name);
    printf("%-10s%20s", "# Size", "Avg Latency(us)");
    if (co->full)
      printf("%20s%20s%12s", "Min Latency(us)", "Max Latency(us)", "Iterations");
    printf("\n");
    fflush(stdout);
  }
  for (size_t size = o->min_size; size <= o->max_size; size = osu_next_size(size)) {
    int count = (int)(size / (size_t)type_size);
    if (count == 0)
      continue;
    int iters = osu_iters(o, size), skip = osu_skip(o, size);
    double total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
      double t0 = MPI_Wtime();
      call(count, ctx);
      double t1 = MPI_Wtime();
      MPI_Barrier(MPI_COMM_WORLD);
      if (i >= skip)
        total += t1 - t0;
    }
    double mine = total * 1e6 / iters, lo, hi, sum;
    MPI_Reduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("%-10zu%20.2f", size, sum / np);
      if (co->full)
        printf("%20.2f%20.2f%12d", lo, hi, iters);
      printf("\n");
      fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

#endif
