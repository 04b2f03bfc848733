/* Message rate ("MsgRate", the SkifCh paper's test; ScaliMPI's Ping-Ping): rank 0 sends N
 * messages back to back with blocking MPI_Send, rank 1 receives them; rate = N / elapsed,
 * elapsed between two barriers. Other ranks only join the barriers. */
#include <mpi.h>
#include <stdio.h>

#include "osu_util.h"

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, status;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  struct osu_opts o = {1, 1 << 16, 10000, 1000, 100, 10, 0, 0, 0};
  if (osu_parse(argc, argv, &o, "osu_msgrate", 0, &status)) {
    MPI_Finalize();
    return status;
  }
  if (np < 2) {
    if (rank == 0)
      fprintf(stderr, "osu_msgrate: needs at least 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  char *buf = osu_buffer(o.max_size, 'a');
  if (rank == 0)
    printf("# icsim message-rate test (MsgRate: blocking sends 0 -> 1)\n# Size        Messages/s\n");
  for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
    int n = osu_iters(&o, size), skip = osu_skip(&o, size);
    for (int i = 0; i < skip; i++) {
      if (rank == 0)
        MPI_Send(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      else if (rank == 1)
        MPI_Recv(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < n; i++) {
      if (rank == 0)
        MPI_Send(buf, (int)size, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      else if (rank == 1)
        MPI_Recv(buf, (int)size, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double elapsed = MPI_Wtime() - start;
    if (rank == 0)
      printf("%-10zu%18.2f\n", size, n / elapsed);
    fflush(stdout);
  }
  osu_free(buf);
  MPI_Finalize();
  return 0;
}
