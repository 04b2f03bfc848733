/* Every way an MPI program can end, chosen by argv[1], for the exit-status tests (test_exit.c).
 * Unless the mode says otherwise rank 0 waits for one message from rank 1, so that a rank that
 * ends early leaves another one blocked. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *m = argc > 1 ? argv[1] : "normal";
  int code = argc > 2 ? atoi(argv[2]) : 7;
  if (!strcmp(m, "abort-world") && rank == 1)
    MPI_Abort(MPI_COMM_WORLD, code);
  if (!strcmp(m, "abort-self") && rank == 1)
    MPI_Abort(MPI_COMM_SELF, code);
  if (!strcmp(m, "abort-sub")) { /* ranks 1, 3, ... in one communicator; rank 0 is not in it */
    MPI_Comm odd;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &odd);
    if (rank == 1)
      MPI_Abort(odd, code);
  }
  if (!strcmp(m, "exit") && rank == 1) /* rank 0 is left waiting for rank 1 */
    exit(code);
  if (!strcmp(m, "exit-rank0") && rank == 0) /* rank 1 then sends to a rank that has ended */
    exit(code);
  if (!strcmp(m, "abort") && rank == 1)
    abort();
  if (!strcmp(m, "fork") && rank == 1 && fork() == 0)
    return 0; /* a child would return from main inside the simulation */
  if (!strcmp(m, "segv") && rank == 1) {
    volatile int *p = NULL;
    *p = 1;
  }
  if (!strcmp(m, "return-nonzero")) { /* every rank finishes; rank 1 reports failure */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rank == 1 ? code : 0;
  }
  if (!strcmp(m, "no-finalize")) {
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
  }
  if (!strcmp(m, "print")) { /* much more than a pipe holds, on both streams */
    for (int i = 0; i < code; i++) {
      printf("out %d %d\n", rank, i);
      fprintf(stderr, "err %d %d\n", rank, i);
    }
  }
  if (rank == 0)
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 1)
    MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
