/* Thousands of receives in flight on one rank, completed in an order of the program's choosing:
 * the progress engine's request table grows past its first size and rehashes while receives are
 * outstanding, and every request must still be found (its data and status right) afterwards.
 * Rank 0 posts N receives (tags 0..N-1) and rank 1 sends them in reverse; rank 0 then waits for
 * them in a scrambled order, one MPI_Wait at a time, then as one MPI_Waitall for a second round. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 5000

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static int val[N];
  static MPI_Request req[N];
  for (int round = 0; round < 2; round++) {
    if (rank == 0) {
      for (int i = 0; i < N; i++)
        MPI_Irecv(&val[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &req[i]);
      MPI_Barrier(MPI_COMM_WORLD);
      if (round == 0) {
        for (int k = 0; k < N; k++) { /* 2719 is prime to N: visits every index once */
          int i = (int)((long)k * 2719 % N);
          MPI_Status st;
          MPI_Wait(&req[i], &st);
          if (val[i] != 1000 * i + round || st.MPI_TAG != i || st.MPI_SOURCE != 1 || req[i] != MPI_REQUEST_NULL)
            bad++;
        }
      } else {
        MPI_Status *st = malloc(N * sizeof *st);
        MPI_Waitall(N, req, st);
        for (int i = 0; i < N; i++)
          if (val[i] != 1000 * i + round || st[i].MPI_TAG != i || req[i] != MPI_REQUEST_NULL)
            bad++;
        free(st);
      }
    } else if (rank == 1) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int i = N - 1; i >= 0; i--) {
        int v = 1000 * i + round;
        MPI_Send(&v, 1, MPI_INT, 0, i, MPI_COMM_WORLD);
      }
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  if (rank == 0)
    printf("many_requests: %d of %d receives wrong\n", bad, 2 * N);
  MPI_Finalize();
  return bad != 0;
}
