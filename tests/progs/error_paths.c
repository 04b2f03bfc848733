/* Errors MPICH reports that need the layer's help to see (issue 39), each printed per rank as
 * "rank R: CASE: error" or "ok", compared line by line with native MPICH by
 * tests/mpi/same_as_mpich.py (built by icsimcc, and the MPICH binary through the adaptor):
 *   bcast-long / bcast-short  a broadcast whose non-roots give a longer / shorter buffer than the
 *                             root: every non-root fails, also those whose own data came whole from
 *                             a rank that had failed (the error travels down the tree);
 *   signature                 3 chars received into a type of ints: MPI_ERR_TYPE;
 *   idup-limit                MPI_Comm_idup until the context ids run out: an error at a wait. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void say(int rank, const char *what, int rc)
{
  int cls = rc;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &cls);
  const char *name = cls == MPI_ERR_TYPE ? "MPI_ERR_TYPE" : cls == MPI_ERR_TRUNCATE ? "MPI_ERR_TRUNCATE"
                     : cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER" : cls == MPI_ERR_IN_STATUS ? "MPI_ERR_IN_STATUS"
                     : "another class";
  if (rc == MPI_SUCCESS)
    printf("rank %d: %s: ok\n", rank, what);
  else
    printf("rank %d: %s: error, %s\n", rank, what, name);
}

int main(int argc, char **argv)
{
  int rank, size, buf[10] = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  say(rank, "bcast-long", MPI_Bcast(buf, rank == 0 ? 1 : 10, MPI_INT, 0, MPI_COMM_WORLD));
  say(rank, "bcast-short", MPI_Bcast(buf, rank == 0 ? 10 : 1, MPI_INT, 0, MPI_COMM_WORLD));
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank < 2) {
    int lens[3] = {1, 2, 1}, disps[3] = {4, 8, 16};
    MPI_Datatype ints;
    MPI_Type_indexed(3, lens, disps, MPI_INT, &ints);
    MPI_Type_commit(&ints);
    char src[3] = {1, 2, 3};
    int dst[32];
    if (rank == 1)
      MPI_Send(src, 3, MPI_CHAR, 0, 5, MPI_COMM_WORLD);
    else
      say(rank, "signature", MPI_Recv(dst, 1, ints, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Type_free(&ints);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  enum { MAX = 100000, BATCH = 7 };
  MPI_Comm *comms = malloc(MAX * sizeof *comms);
  MPI_Request reqs[BATCH];
  MPI_Status sts[BATCH];
  int made = 0, failed = 0, why = MPI_SUCCESS;
  while (made + BATCH <= MAX && !failed) {
    for (int i = 0; i < BATCH; i++)
      MPI_Comm_idup(MPI_COMM_WORLD, &comms[made + i], &reqs[i]);
    if (MPI_Waitall(BATCH, reqs, sts) != MPI_SUCCESS) {
      failed = 1;
      for (int i = 0; i < BATCH; i++)
        if (sts[i].MPI_ERROR == MPI_SUCCESS)
          made++;
        else if (sts[i].MPI_ERROR != MPI_ERR_PENDING && why == MPI_SUCCESS)
          why = sts[i].MPI_ERROR;
        else if (sts[i].MPI_ERROR == MPI_ERR_PENDING && MPI_Wait(&reqs[i], MPI_STATUS_IGNORE) == MPI_SUCCESS)
          made++;
    } else {
      made += BATCH;
    }
  }
  say(rank, "idup-limit", failed ? why : MPI_SUCCESS);
  for (int i = 0; i < made; i++)
    MPI_Comm_free(&comms[i]);
  free(comms);
  MPI_Finalize();
  return 0;
}
