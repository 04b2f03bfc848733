/* A program's own computation between MPI calls (no declared phase): N dependent additions,
 * timed by SMPI on this machine and charged at the simulated CPU's clock. Prints the simulated
 * seconds the loop took and the operations it ran. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 300000000L;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t0 = MPI_Wtime();
  unsigned long x = 1;
  for (long i = 0; i < n; i++)
    __asm__ volatile("add $1, %0" : "+r"(x));
  double t = MPI_Wtime() - t0;
  if (rank == 0)
    printf("Operations = %ld\nLoop seconds = %.6f\n", n + (long)(x == 0), t);
  MPI_Finalize();
  return 0;
}
