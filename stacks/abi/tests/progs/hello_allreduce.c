/* The smallest real MPI program: every rank says it is there and the ranks' numbers are summed.
 * Built by mpicc.mpich and mpicc.openmpi, it runs through the adaptor at 2 to 1024 ranks
 * (test_abi_scale, bench/abi-scale). Prints one line from rank 0; exits 1 on a wrong sum. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long mine = rank, sum = -1;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long expect = (long)size * (size - 1) / 2;
  if (rank == 0)
    printf("hello from %d ranks: sum of ranks %ld (%s)\n", size, sum, sum == expect ? "ok" : "WRONG");
  MPI_Finalize();
  return sum == expect ? 0 : 1;
}
