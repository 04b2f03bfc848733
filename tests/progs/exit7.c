/* Returns 7 from every rank: icsim run must hand the status on. */
#include <mpi.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 7;
}
