/* Shared by the collective test programs: error counting and the final verdict. The verdict is
 * summed with PMPI_Allreduce (SMPI's own collective under icsim) so that it does not depend on
 * the collectives under test nor add messages to the counts test_coll checks. */
#ifndef COLL_CHECK_H
#define COLL_CHECK_H
#include <mpi.h>
#include <stdio.h>

static int errs;

static int world_rank(void)
{
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

#define CHECK(cond, ...)                                                                                               \
  do {                                                                                                                 \
    if (!(cond) && errs++ < 20) {                                                                                      \
      printf("rank %d: %s:%d: ", world_rank(), __FILE__, __LINE__);                                                    \
      printf(__VA_ARGS__);                                                                                             \
      printf("\n");                                                                                                    \
      fflush(stdout);                                                                                                  \
    }                                                                                                                  \
  } while (0)

/* Prints "No Errors" on rank 0 when no rank found one; returns the exit status. */
static int finish(void)
{
  int all = 0;
  PMPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank() == 0) {
    if (all)
      printf("Found %d errors\n", all);
    else
      printf("No Errors\n");
  }
  MPI_Finalize();
  return all ? 1 : 0;
}

#endif
