/* Windowed bidirectional bandwidth: both ranks post WINDOW receives and WINDOW sends at once;
 * MB/s counts the bytes of both directions (OSU convention). `--split-waitall` completes the sends
 * and then the receives in two MPI_Waitall calls, as OSU 7.2's osu_bibw does; a real MPI's
 * progress engine takes the messages in either, so both forms must give the same figures. */
#include <string.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "osu_util.h"

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, status;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int split = 0;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--split-waitall") == 0) {
      split = 1;
      memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
      argc--;
      break;
    }
  struct osu_opts o = {1, 1 << 22, 100, 20, 10, 2, 64, 0, 0};
  if (osu_parse(argc, argv, &o, "osu_bibw", 1, &status)) {
    MPI_Finalize();
    return status;
  }
  if ((status = osu_need_ranks(rank, np, 2, "osu_bibw"))) {
    MPI_Finalize();
    return status;
  }
  char *sbuf = osu_buffer(o.max_size, 'a'), *rbuf = osu_buffer(o.max_size, 'b');
  MPI_Request *req = malloc(2 * (size_t)o.window * sizeof *req);
  int peer = 1 - rank;
  if (rank == 0)
    printf("# icsim OSU-style MPI bi-directional bandwidth test (window %d)\n# Size    Bandwidth (MB/s)\n",
           o.window);
  for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
    int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
      if (i == skip)
        start = MPI_Wtime();
      for (int w = 0; w < o.window; w++)
        MPI_Irecv(rbuf, (int)size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &req[w]);
      for (int w = 0; w < o.window; w++)
        MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &req[o.window + w]);
      if (split) {
        MPI_Waitall(o.window, req + o.window, MPI_STATUSES_IGNORE);
        MPI_Waitall(o.window, req, MPI_STATUSES_IGNORE);
      } else {
        MPI_Waitall(2 * o.window, req, MPI_STATUSES_IGNORE);
      }
    }
    if (rank == 0) {
      double t = MPI_Wtime() - start;
      printf("%-10zu%18.2f\n", size, (double)size / 1e6 * iters * o.window * 2 / t);
    }
    fflush(stdout);
  }
  free(req);
  osu_free(sbuf);
  osu_free(rbuf);
  MPI_Finalize();
  return 0;
}
