/* Non-blocking collectives (MPI_Ibarrier ... MPI_Iexscan, MPI_Ialltoallw; MPI_Comm_idup: comm.c).
 *
 * PROGRESS HAPPENS AT THE CALL. Each MPI_I* runs the blocking algorithm of its family to
 * completion, on a separate shadow communicator of its own (so its messages can never match
 * those of a blocking collective in flight on the same communicator), and returns a request
 * that is already complete; MPI_Wait/MPI_Test and friends on it return at once. The messages
 * and their costs are those of the blocking form, charged at the call. Consequence: a program
 * whose correctness needs the collective to overlap something it posts after the call (rank A
 * starts MPI_Ibarrier and only then sends what rank B waits for before B enters the barrier)
 * deadlocks here; so does one that relies on a large blocking send completing while the
 * non-blocking collective is pending. Progressing on MPI_Wait would need the layer's wait calls
 * to drive collective schedules (the point-to-point layer owns those entry points).
 *
 * The returned request. MPI_Grequest_start + MPI_Grequest_complete was the first choice, but in
 * SMPI 3.32 a generalized request is created persistent and PMPI_Waitany takes an extra
 * reference on it: after MPI_Waitany or MPI_Waitall (the layer's Waitall completes requests one
 * by one through MPI_Waitany) the request is freed while the user's handle is left pointing at
 * it, not set to MPI_REQUEST_NULL (checked here: handles stay "live" after free_fn ran). A
 * receive from MPI_PROC_NULL crashes PMPI_Waitany (refcount), and MPI_REQUEST_NULL makes MPI_Test
 * with MPI_STATUS_IGNORE leave the flag unset. What SMPI completes cleanly on every path is its
 * own non-blocking-collective request: MPI_Ibarrier on MPI_COMM_SELF, which on one rank has no
 * sub-request and sends nothing. Known limit (shared with SMPI's own non-blocking collectives):
 * SMPI's MPI_Testany ignores such requests (it answers flag = 1, index = MPI_UNDEFINED). */
#include <stdlib.h>

#include "coll.h"

/* Returns the algorithm's RC, or the request's creation error. */
static int finish(int rc, MPI_Request *req)
{
  int made = icsim_coll_done_request(req);
  return rc != MPI_SUCCESS ? rc : made;
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Ibarrier", comm, &c))
    return icsim_error(comm, "MPI_Ibarrier", PMPI_Ibarrier(comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : MPI_SUCCESS;
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Ibarrier", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_barrier(&c), req))));
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Ibcast", comm, &c))
    return icsim_error(comm, "MPI_Ibcast", PMPI_Ibcast(buf, count, type, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_bcast(&c, buf, count, type, root);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Ibcast", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_bcast(&c, buf, count, type, root), req))));
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Ireduce", comm, &c))
    return icsim_error(comm, "MPI_Ireduce", PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_reduce(&c, sbuf, rbuf, count, type, op, root);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Ireduce", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_reduce(&c, sbuf, rbuf, count, type, op, root), req))));
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Iallreduce", comm, &c))
    return icsim_error(comm, "MPI_Iallreduce", PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_allreduce(&c, sbuf, rbuf, count, type, op);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Iallreduce", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_allreduce(&c, sbuf, rbuf, count, type, op), req))));
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Ireduce_scatter", comm, &c))
    return icsim_error(comm, "MPI_Ireduce_scatter", PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Ireduce_scatter", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op), req))));
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                              MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Ireduce_scatter_block", comm, &c))
    return icsim_error(comm, "MPI_Ireduce_scatter_block", PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scan(&c, sbuf, rbuf, rcount, type, op);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Ireduce_scatter_block", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_reduce_scatter_block(&c, sbuf, rbuf, rcount, type, op), req))));
}

int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Iscan", comm, &c))
    return icsim_error(comm, "MPI_Iscan", PMPI_Iscan(sbuf, rbuf, count, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scan(&c, sbuf, rbuf, count, type, op);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Iscan", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_scan(&c, sbuf, rbuf, count, type, op, 0), req))));
}

int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Iexscan", comm, &c))
    return icsim_error(comm, "MPI_Iexscan", PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scan(&c, sbuf, rbuf, count, type, op);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Iexscan", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_scan(&c, sbuf, rbuf, count, type, op, 1), req))));
}

int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Igather", comm, &c))
    return icsim_error(comm, "MPI_Igather", PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Igather", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root), req))));
}

int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Igatherv", comm, &c))
    return icsim_error(comm, "MPI_Igatherv", PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Igatherv", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root), req))));
}

int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Iscatter", comm, &c))
    return icsim_error(comm, "MPI_Iscatter", PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Iscatter", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root), req))));
}

int MPI_Iscatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
                  int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Iscatterv", comm, &c))
    return icsim_error(comm, "MPI_Iscatterv", PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Iscatterv", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root), req))));
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Iallgather", comm, &c))
    return icsim_error(comm, "MPI_Iallgather", PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Iallgather", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype), req))));
}

int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                    const int *displs, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Iallgatherv", comm, &c))
    return icsim_error(comm, "MPI_Iallgatherv", PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Iallgatherv", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype), req))));
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Ialltoall", comm, &c))
    return icsim_error(comm, "MPI_Ialltoall", PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Ialltoall", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype), req))));
}

int MPI_Ialltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                   const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Ialltoallv", comm, &c))
    return icsim_error(comm, "MPI_Ialltoallv", PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Ialltoallv", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype), req))));
}

int MPI_Ialltoallw(const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes, void *rbuf,
                   const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm,
                   MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek("MPI_Ialltoallw", comm, &c))
    return icsim_error(comm, "MPI_Ialltoallw", PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
  if (icsim_coll_runs(rc))
    icsim_coll_shadow(&c, comm, 1);
  return icsim_error(comm, "MPI_Ialltoallw", !icsim_coll_runs(rc) ? rc : icsim_coll_merge(rc, icsim_coll_result(finish(icsim_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes), req))));
}
