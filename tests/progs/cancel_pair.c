/* Two standard sends of the same size from rank 0 to rank 1, the second cancelled before anyone
 * receives: rank 1 then receives one message. SMPI 3.32 reports the cancel as taken but leaves a
 * detached send in the mailbox, so a receive may still take it; under --stats every transfer must
 * still be joined to an announced message (MPICH's pt2pt/scancel_unmatch left one unjoined). Prints
 * "cancel_pair: N wrong" (rank 0). Runs under native MPICH too. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, bad = 0, total = 0, a = 1, b = 2, got = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Request r[2];
    MPI_Status st;
    int flag = 0;
    MPI_Isend(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Cancel(&r[1]);
    MPI_Wait(&r[1], &st);
    MPI_Test_cancelled(&st, &flag);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    (void)flag; /* either answer is allowed; a cancelled message must just not be counted twice */
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      bad += got != a;
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("cancel_pair: %d wrong\n", total);
  MPI_Finalize();
  return 0;
}
