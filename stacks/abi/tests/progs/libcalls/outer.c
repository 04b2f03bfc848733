/* libicsimabi_outer.so: a library that calls MPI (MPI_Init, collectives, MPI_Finalize) and uses
 * another that does (libicsimabi_inner.so), found through its RUNPATH ($ORIGIN). */
#include <mpi.h>
#include <stdio.h>

#include "libcalls.h"

static int failures; /* this process's */

static void check(int ok, const char *what, int rank)
{
  if (!ok) {
    failures++;
    printf("FAIL rank %d: %s\n", rank, what);
  }
}

int outer_run(int *argc, char ***argv, int rounds)
{
  MPI_Init(argc, argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check(inner_setup() == rank, "the inner library's rank", rank);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank has set its own state: shared globals would now differ */
  for (int i = 0; i < rounds; i++) {
    long got = inner_ring(rank * 1000L + i);
    check(got == ((rank + size - 1) % size) * 1000L + i, "the value passed round the ring", rank);
  }
  check(inner_rank() == rank, "the inner library's rank after the others set theirs", rank);
  check(inner_calls() == rounds, "the inner library's count of calls", rank);
  check(inner_tuning() == 7, "the program's own libcalls_tuning, called by the library", rank);
  inner_done();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("library calls on %d ranks, %d rounds: %d checks failed\n", size, rounds, all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
