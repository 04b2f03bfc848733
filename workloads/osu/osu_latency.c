/* Ping-pong latency between ranks 0 and 1: one-way time = round trip / 2 (OSU convention). */
#include <mpi.h>
#include <stdio.h>

#include "osu_util.h"

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, status;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  struct osu_opts o = {0, 1 << 22, 10000, 1000, 100, 10, 0, 0, 0};
  if (osu_parse(argc, argv, &o, "osu_latency", 0, &status)) {
    MPI_Finalize();
    return status;
  }
  if ((status = osu_need_ranks(rank, np, 2, "osu_latency"))) {
    MPI_Finalize();
    return status;
  }
  char *sbuf = osu_buffer(o.max_size, 'a'), *rbuf = osu_buffer(o.max_size, 'b');
  if (rank == 0)
    printf("# icsim OSU-style MPI latency test\n# Size          Latency (us)\n");
  for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
    int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + skip; i++) {
      if (i == skip)
        start = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(sbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      }
    }
    if (rank == 0)
      printf("%-10zu%18.2f\n", size, (MPI_Wtime() - start) * 1e6 / (2.0 * iters));
    fflush(stdout);
  }
  osu_free(sbuf);
  osu_free(rbuf);
  MPI_Finalize();
  return 0;
}
