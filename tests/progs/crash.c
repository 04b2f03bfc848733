/* Rank 1 dereferences a null pointer, for the crash-report test. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    volatile int *p = NULL;
    *p = 42;
  }
  MPI_Finalize();
  return 0;
}
