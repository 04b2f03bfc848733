/* Multiple bandwidth / message rate: the first half of the ranks each stream WINDOW messages
 * to a partner in the second half (rank i -> i + n/2), with an acknowledgement per window.
 * Reports the aggregate MB/s and messages/s of all pairs over the slowest sender's time. */
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
  struct osu_opts o = {1, 1 << 22, 100, 20, 10, 2, 64, 0, 0};
  if (osu_parse(argc, argv, &o, "osu_mbw_mr", 1, &status)) {
    MPI_Finalize();
    return status;
  }
  if (np < 2 || np % 2) {
    if (rank == 0)
      fprintf(stderr, "osu_mbw_mr: needs an even number of ranks (got %d)\n", np);
    MPI_Finalize();
    return 2;
  }
  int pairs = np / 2;
  int sender = rank < pairs;
  int peer = sender ? rank + pairs : rank - pairs;
  char *buf = osu_buffer(o.max_size, 'a');
  char ack[4];
  MPI_Request *req = malloc((size_t)o.window * sizeof *req);
  if (rank == 0)
    printf("# icsim OSU-style MPI multiple bandwidth / message rate test (%d pairs, window %d)\n"
           "# Size                  MB/s        Messages/s\n",
           pairs, o.window);
  for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
    int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
      if (i == skip)
        start = MPI_Wtime();
      for (int w = 0; w < o.window; w++) {
        if (sender)
          MPI_Isend(buf, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[w]);
        else
          MPI_Irecv(buf, (int)size, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[w]);
      }
      MPI_Waitall(o.window, req, MPI_STATUSES_IGNORE);
      if (sender)
        MPI_Recv(ack, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else
        MPI_Send(ack, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD);
    }
    double t = sender ? MPI_Wtime() - start : 0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double rate = (double)pairs * iters * o.window / tmax;
      printf("%-10zu%18.2f%18.2f\n", size, rate * (double)size / 1e6, rate);
    }
    fflush(stdout);
  }
  free(req);
  osu_free(buf);
  MPI_Finalize();
  return 0;
}
