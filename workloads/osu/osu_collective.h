/* One timing loop for the collective tests: average latency over ranks of one call. */
#ifndef OSU_COLLECTIVE_H
#define OSU_COLLECTIVE_H

#include <mpi.h>
#include <stdio.h>

#include "osu_util.h"

/* Runs CALL(size) skip + iters times per size and prints "# Size  Avg Latency(us)" rows.
 * STEP(size) gives the next size. */
static inline void osu_collective_loop(const struct osu_opts *o, int rank, int np, const char *title,
                                       void (*call)(size_t size, void *ctx), void *ctx)
{
  if (rank == 0)
    printf("# icsim OSU-style MPI %s latency test (%d ranks)\n# Size       Avg Latency(us)\n", title, np);
  for (size_t size = o->min_size; size <= o->max_size; size = osu_next_size(size)) {
    int iters = osu_iters(o, size), skip = osu_skip(o, size);
    double total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
      double t0 = MPI_Wtime();
      call(size, ctx);
      if (i >= skip)
        total += MPI_Wtime() - t0;
    }
    double mine = total * 1e6 / iters, sum;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("%-10zu%18.2f\n", size, sum / np);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

#endif
