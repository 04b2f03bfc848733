/* A communicator freed while a receive on it is in flight (MPI 3.1, 6.4.3: the receive completes
 * normally). Its ranks are the world's reversed, so the layer must name the source through the
 * communicator's group after the communicator is gone. Rank 0 of it receives from its rank 1 (a
 * named source and MPI_ANY_SOURCE), having freed it before the messages are sent. Prints
 * "comm_free_inflight: N wrong" (world rank 0). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, n, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, n - rank, &rev); /* rank r of rev is world rank n - 1 - r */
  int me;
  MPI_Comm_rank(rev, &me);
  if (me == 0) {
    int in[2] = {-1, -1};
    MPI_Request req[2];
    MPI_Status st[2];
    MPI_Irecv(&in[0], 1, MPI_INT, 1, 7, rev, &req[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, 8, rev, &req[1]);
    MPI_Comm_free(&rev);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(2, req, st);
    for (int i = 0; i < 2; i++) {
      bad += in[i] != 1000 * (i + 1) + n - 2;
      bad += st[i].MPI_SOURCE != 1;
    }
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) {
      int a = 1000 + rank, b = 2000 + rank;
      MPI_Send(&a, 1, MPI_INT, 0, 7, rev);
      MPI_Send(&b, 1, MPI_INT, 0, 8, rev);
    }
    MPI_Comm_free(&rev);
  }
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, n - 1, MPI_COMM_WORLD);
  if (rank == n - 1)
    printf("comm_free_inflight: %d wrong\n", total);
  MPI_Finalize();
  return 0;
}
