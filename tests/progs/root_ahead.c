/* Broadcasts of 1 to 6 ints from rank 0 on a communicator the layer has not seen yet. The root
 * sends them all at once while the others are still in the layer's first use of the
 * communicator, whose SMPI messages (communicator creation) are as small as the 5-int broadcast:
 * none of them may take that message's place (under --stats every transfer must be joined to its
 * message). Prints "root_ahead: N wrong" (rank 0). Runs under native MPICH too. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, bad = 0, total = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  for (int k = 1; k <= 6; k++) {
    int v[8];
    for (int i = 0; i < 8; i++)
      v[i] = rank == 0 ? 100 * k + i : -1;
    MPI_Bcast(v, k, MPI_INT, 0, c);
    for (int i = 0; i < k; i++)
      bad += v[i] != 100 * k + i;
  }
  MPI_Comm_free(&c);
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("root_ahead: %d wrong\n", total);
  MPI_Finalize();
  return 0;
}
