/* Windowed unidirectional bandwidth: rank 0 posts WINDOW sends, rank 1 WINDOW receives, then
 * a 4-byte acknowledgement; MB/s = bytes moved / time (OSU convention, MB = 10^6 B). */
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
  if (osu_parse(argc, argv, &o, "osu_bw", 1, &status)) {
    MPI_Finalize();
    return status;
  }
  if ((status = osu_need_ranks(rank, np, 2, "osu_bw"))) {
    MPI_Finalize();
    return status;
  }
  char *sbuf = osu_buffer(o.max_size, 'a'), *rbuf = osu_buffer(o.max_size, 'b');
  char ack[4];
  MPI_Request *req = malloc((size_t)o.window * sizeof *req);
  if (rank == 0)
    printf("# icsim OSU-style MPI bandwidth test (window %d)\n# Size      Bandwidth (MB/s)\n", o.window);
  for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
    int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
      if (i == skip)
        start = MPI_Wtime();
      if (rank == 0) {
        for (int w = 0; w < o.window; w++)
          MPI_Isend(sbuf, (int)size, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(o.window, req, MPI_STATUSES_IGNORE);
        MPI_Recv(ack, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        for (int w = 0; w < o.window; w++)
          MPI_Irecv(rbuf, (int)size, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(o.window, req, MPI_STATUSES_IGNORE);
        MPI_Send(ack, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
      }
    }
    if (rank == 0) {
      double t = MPI_Wtime() - start;
      printf("%-10zu%18.2f\n", size, (double)size / 1e6 * iters * o.window / t);
    }
    fflush(stdout);
  }
  free(req);
  osu_free(sbuf);
  osu_free(rbuf);
  MPI_Finalize();
  return 0;
}
