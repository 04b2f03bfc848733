/* Erroneous calls a program may make, each on every rank: a collective with an uncommitted type,
 * a negative count, a null buffer holding data, a root out of range, a null operation, an operation
 * the type does not take (the maximum of bytes), a null request; a gather whose root's count is too
 * small (only the root can tell); a send buffer that is the receive buffer (or this rank's block of
 * it) where MPI_IN_PLACE was meant (MPI_ERR_BUFFER, as MPICH reports it; the root alone, for the
 * rooted ones); a send to a rank out of range; a message longer than its receive buffer (MPI_Recv;
 * MPI_Waitall: MPI_ERR_IN_STATUS). With MPI_ERRORS_RETURN each call must return
 * its error class at once, having sent nothing, so that the collectives after it still match and
 * the program ends; a handler of the program's own must be called with the code. Prints
 * "coll_errors: N wrong" (rank 0). Runs clean under native MPICH too.
 * With the argument "fatal" the communicator keeps MPI_ERRORS_ARE_FATAL and the first error
 * (the uncommitted type) must stop the run. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int handled, last_code;
static void on_error(MPI_Comm *comm, int *code, ...)
{
  (void)comm;
  handled++;
  last_code = *code;
}

static int expect(const char *what, int rc, int cls)
{
  int got = MPI_SUCCESS;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &got);
  if (got != cls) {
    printf("coll_errors: %s returned class %d, expected %d\n", what, got, cls);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, n, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
  if (!fatal) { /* the world's too: completion calls (MPI_Waitall) report to it, having no communicator */
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  int sb[64] = {0}, rb[64] = {0};
  MPI_Datatype loose;
  MPI_Type_contiguous(2, MPI_INT, &loose); /* never committed */
  MPI_Request req;
  int rc;
  bad += expect("alltoall, uncommitted type", MPI_Alltoall(sb, 1, loose, rb, 1, loose, comm), MPI_ERR_TYPE);
  bad += expect("alltoall, negative count", MPI_Alltoall(sb, -1, MPI_INT, rb, -1, MPI_INT, comm), MPI_ERR_COUNT);
  bad += expect("bcast, null buffer", MPI_Bcast(NULL, 4, MPI_INT, 0, comm), MPI_ERR_BUFFER);
  bad += expect("bcast, root out of range", MPI_Bcast(sb, 4, MPI_INT, n, comm), MPI_ERR_ROOT);
  bad += expect("allreduce, null op", MPI_Allreduce(sb, rb, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP);
  bad += expect("allreduce, max of bytes", MPI_Allreduce(sb, rb, 1, MPI_BYTE, MPI_MAX, comm), MPI_ERR_OP);
  bad += expect("allreduce, bitwise and of bytes", MPI_Allreduce(sb, rb, 1, MPI_BYTE, MPI_BAND, comm), MPI_SUCCESS);
  bad += expect("allreduce, maxloc of int pairs", MPI_Allreduce(sb, rb, 1, MPI_2INT, MPI_MAXLOC, comm), MPI_SUCCESS);
  rc = MPI_Ibcast(sb, 1, MPI_INT, 0, comm, NULL); /* SMPI says MPI_ERR_REQUEST, MPICH MPI_ERR_ARG */
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &cls);
  bad += expect("ibcast, null request", rc, cls == MPI_ERR_ARG ? MPI_ERR_ARG : MPI_ERR_REQUEST);
  bad += expect("ialltoall, uncommitted type", MPI_Ialltoall(sb, 1, loose, rb, 1, loose, comm, &req), MPI_ERR_TYPE);
  /* aliased buffers, each caught before any message (only the root calls the rooted ones) */
  bad += expect("allreduce, aliased", MPI_Allreduce(sb, sb, 4, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
  bad += expect("alltoall, aliased", MPI_Alltoall(sb, 1, MPI_INT, sb, 1, MPI_INT, comm), MPI_ERR_BUFFER);
  bad += expect("allgather, own block aliased", MPI_Allgather(&sb[rank], 1, MPI_INT, sb, 1, MPI_INT, comm),
                MPI_ERR_BUFFER);
  bad += expect("scan, aliased", MPI_Scan(sb, sb, 2, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
  if (rank == 0) {
    bad += expect("gather, root's block aliased", MPI_Gather(sb, 1, MPI_INT, sb, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    bad += expect("reduce, root aliased", MPI_Reduce(sb, sb, 1, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_BUFFER);
  }
  bad += expect("allreduce, no data, aliased", MPI_Allreduce(sb, sb, 0, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
  bad += expect("send, rank out of range", MPI_Send(sb, 1, MPI_INT, n, 0, comm), MPI_ERR_RANK);
  /* counts that disagree: only the root can tell (it returns the truncation without receiving); the
   * others' blocks are left unreceived and must not match any later collective */
  bad += expect("gather, root's count too small", MPI_Gather(sb, 2, MPI_INT, rb, rank == 0 ? 1 : 2, MPI_INT, 0, comm),
                rank == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
  /* a message longer than the receive buffer: MPI_Recv returns the truncation; MPI_Waitall returns
   * MPI_ERR_IN_STATUS with the truncation in that request's status and success in the other's */
  int two[2] = {1, 2}, one = 0;
  int right = (rank + 1) % n, left = (rank + n - 1) % n;
  MPI_Request rr[2];
  MPI_Status sts[2];
  MPI_Isend(two, 2, MPI_INT, right, 5, comm, &rr[0]);
  bad += expect("recv, message truncated", MPI_Recv(&one, 1, MPI_INT, left, 5, comm, MPI_STATUS_IGNORE),
                MPI_ERR_TRUNCATE);
  MPI_Wait(&rr[0], MPI_STATUS_IGNORE);
  MPI_Irecv(&one, 1, MPI_INT, left, 6, comm, &rr[0]);
  MPI_Isend(two, 2, MPI_INT, right, 6, comm, &rr[1]);
  bad += expect("waitall, one message truncated", MPI_Waitall(2, rr, sts), MPI_ERR_IN_STATUS);
  bad += expect("its status", sts[0].MPI_ERROR, MPI_ERR_TRUNCATE);
  if (sts[1].MPI_ERROR != MPI_ERR_PENDING) /* MPICH stops at the first error: the rest "pending" */
    bad += expect("the other status", sts[1].MPI_ERROR, MPI_SUCCESS);
  if (rr[1] != MPI_REQUEST_NULL)
    MPI_Wait(&rr[1], MPI_STATUS_IGNORE);
  /* the collectives still match: every rank took every error above without sending */
  for (int i = 0; i < n; i++)
    sb[i] = 100 * rank + i;
  bad += expect("alltoall", MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm), MPI_SUCCESS);
  for (int i = 0; i < n; i++)
    bad += rb[i] != 100 * i + rank;
  /* a handler of the program's own is called with the code, which is also returned */
  MPI_Errhandler mine;
  MPI_Comm_create_errhandler(on_error, &mine);
  MPI_Comm_set_errhandler(comm, mine);
  rc = MPI_Bcast(sb, 1, MPI_INT, -1, comm);
  bad += expect("bcast, negative root, own handler", rc, MPI_ERR_ROOT);
  bad += handled != 1 || last_code != rc;
  MPI_Errhandler_free(&mine);
  MPI_Comm_free(&comm);
  MPI_Type_free(&loose);
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("coll_errors: %d wrong\n", total);
  MPI_Finalize();
  return 0;
}
