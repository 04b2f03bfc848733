/* Non-blocking collectives (MPI_Ibarrier ... MPI_Iexscan, MPI_Ialltoallw, and MPI_Comm_idup).
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
  if (!icsim_coll_enter("MPI_Ibarrier", comm, 1, &c))
    return icsim_error(comm, "MPI_Ibarrier", PMPI_Ibarrier(comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : MPI_SUCCESS;
  return icsim_error(comm, "MPI_Ibarrier", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_barrier(&c), req)));
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Ibcast", comm, 1, &c))
    return icsim_error(comm, "MPI_Ibcast", PMPI_Ibcast(buf, count, type, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_bcast(&c, buf, count, type, root);
  return icsim_error(comm, "MPI_Ibcast", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_bcast(&c, buf, count, type, root), req)));
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Ireduce", comm, 1, &c))
    return icsim_error(comm, "MPI_Ireduce", PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_reduce(&c, sbuf, rbuf, count, type, op, root);
  return icsim_error(comm, "MPI_Ireduce", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_reduce(&c, sbuf, rbuf, count, type, op, root), req)));
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Iallreduce", comm, 1, &c))
    return icsim_error(comm, "MPI_Iallreduce", PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_allreduce(&c, sbuf, rbuf, count, type, op);
  return icsim_error(comm, "MPI_Iallreduce", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_allreduce(&c, sbuf, rbuf, count, type, op), req)));
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Ireduce_scatter", comm, 1, &c))
    return icsim_error(comm, "MPI_Ireduce_scatter", PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op);
  return icsim_error(comm, "MPI_Ireduce_scatter", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op), req)));
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                              MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Ireduce_scatter_block", comm, 1, &c))
    return icsim_error(comm, "MPI_Ireduce_scatter_block", PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scan(&c, sbuf, rbuf, rcount, type, op);
  return icsim_error(comm, "MPI_Ireduce_scatter_block", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_reduce_scatter_block(&c, sbuf, rbuf, rcount, type, op), req)));
}

int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Iscan", comm, 1, &c))
    return icsim_error(comm, "MPI_Iscan", PMPI_Iscan(sbuf, rbuf, count, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scan(&c, sbuf, rbuf, count, type, op);
  return icsim_error(comm, "MPI_Iscan", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_scan(&c, sbuf, rbuf, count, type, op, 0), req)));
}

int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Iexscan", comm, 1, &c))
    return icsim_error(comm, "MPI_Iexscan", PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scan(&c, sbuf, rbuf, count, type, op);
  return icsim_error(comm, "MPI_Iexscan", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_scan(&c, sbuf, rbuf, count, type, op, 1), req)));
}

int MPI_Igather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Igather", comm, 1, &c))
    return icsim_error(comm, "MPI_Igather", PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root);
  return icsim_error(comm, "MPI_Igather", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root), req)));
}

int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                 MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Igatherv", comm, 1, &c))
    return icsim_error(comm, "MPI_Igatherv", PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
  return icsim_error(comm, "MPI_Igatherv", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root), req)));
}

int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Iscatter", comm, 1, &c))
    return icsim_error(comm, "MPI_Iscatter", PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root);
  return icsim_error(comm, "MPI_Iscatter", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root), req)));
}

int MPI_Iscatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
                  int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Iscatterv", comm, 1, &c))
    return icsim_error(comm, "MPI_Iscatterv", PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
  return icsim_error(comm, "MPI_Iscatterv", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root), req)));
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Iallgather", comm, 1, &c))
    return icsim_error(comm, "MPI_Iallgather", PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype);
  return icsim_error(comm, "MPI_Iallgather", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype), req)));
}

int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                    const int *displs, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Iallgatherv", comm, 1, &c))
    return icsim_error(comm, "MPI_Iallgatherv", PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
  return icsim_error(comm, "MPI_Iallgatherv", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype), req)));
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Ialltoall", comm, 1, &c))
    return icsim_error(comm, "MPI_Ialltoall", PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype);
  return icsim_error(comm, "MPI_Ialltoall", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype), req)));
}

int MPI_Ialltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                   const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Ialltoallv", comm, 1, &c))
    return icsim_error(comm, "MPI_Ialltoallv", PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
  return icsim_error(comm, "MPI_Ialltoallv", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype), req)));
}

int MPI_Ialltoallw(const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes, void *rbuf,
                   const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm,
                   MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Ialltoallw", comm, 1, &c))
    return icsim_error(comm, "MPI_Ialltoallw", PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req));
  int rc = req == NULL ? MPI_ERR_REQUEST : icsim_check_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
  return icsim_error(comm, "MPI_Ialltoallw", rc != MPI_SUCCESS ? rc : icsim_coll_result(finish(icsim_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes), req)));
}

/* MPI_Comm_idup and MPI 4.0's MPI_Comm_idup_with_info (SMPI 3.32 has neither: its MPI_Comm_idup
 * is a stub). Unlike the collectives above, the duplication is deferred: it is made when the
 * program first waits for or tests the request (or frees it), after this rank's idups of the same
 * communicator started before it (MPI's order of collectives), several in the order of their
 * communicators' SMPI identifiers, which every rank shares. A program may
 * go on communicating between the idup and its wait, which a duplication at the call would block:
 * MPICH's comm_idup tests have rank 0 receive from every other rank before it calls MPI_Comm_idup,
 * while the others call it first and then send. The new communicator is written at completion, as
 * MPI allows (it may not be used before). Through the MPI adaptor, which writes a call's output
 * handles when the call returns, the duplication is made at the call. */
int icsim_outputs_at_return; /* set by the MPI adaptor (stacks/abi/adaptor/bind.c) */

struct deferred_dup {
  MPI_Request req; /* the request handed to the program (already complete for SMPI) */
  MPI_Comm comm, *out;
  MPI_Info info;
  int with_info;   /* MPI_Comm_idup_with_info */
  int needed;      /* to be made by the wait under way */
  int rank;        /* world rank that started it */
  struct deferred_dup *next;
};
static struct deferred_dup *deferred; /* every rank's, in the order they were started */
static int ndeferred;

static int idup(const char *call, MPI_Comm comm, int with_info, MPI_Info info, MPI_Comm *newcomm, MPI_Request *req,
                int at_call)
{
  if (req == NULL || newcomm == NULL)
    return icsim_error(comm, call, MPI_ERR_ARG);
  if (at_call || icsim_outputs_at_return || !icsim_runtime_get()) {
    int rc = with_info ? MPI_Comm_dup_with_info(comm, info, newcomm) : MPI_Comm_dup(comm, newcomm);
    if (rc != MPI_SUCCESS)
      return rc; /* MPI_Comm_dup has handed it to the error handler */
    return icsim_error(comm, call, icsim_coll_done_request(req));
  }
  int flag = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &flag) != MPI_SUCCESS)
    return icsim_error(comm, call, MPI_ERR_COMM);
  int rc = icsim_coll_done_request(req);
  if (rc != MPI_SUCCESS)
    return icsim_error(comm, call, rc);
  struct deferred_dup *d = malloc(sizeof *d), **tail = &deferred;
  *d = (struct deferred_dup){*req, comm, newcomm, info, with_info, 0, icsim_my_rank(), NULL};
  while (*tail)
    tail = &(*tail)->next;
  *tail = d;
  ndeferred++;
  *newcomm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *req)
{
  return idup("MPI_Comm_idup_with_info", comm, 1, info, newcomm, req, 0);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
  return idup("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, req, 0);
}

/* The Fortran binding's: it converts the new communicator to a Fortran handle when the call
 * returns, so the duplication is made at the call. */
int icsim_comm_idup_at_call(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
  return idup("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, req, 1);
}

void icsim_deferred_run(int n, const MPI_Request *reqs)
{
  if (!ndeferred || !reqs)
    return;
  int me = icsim_my_rank(), need = 0;
  /* needed: this rank's idups among REQS and, on the same communicator, those started before them */
  for (struct deferred_dup *d = deferred; d; d = d->next) {
    if (d->rank != me)
      continue; /* other ranks' (every rank shares the list; each marks only its own) */
    d->needed = 0;
    for (int i = 0; i < n; i++)
      if (reqs[i] != MPI_REQUEST_NULL && reqs[i] == d->req)
        d->needed = 1;
  }
  for (struct deferred_dup *d = deferred; d; d = d->next)
    if (d->rank == me && d->needed)
      for (struct deferred_dup *e = deferred; e != d; e = e->next)
        if (e->rank == me && e->comm == d->comm)
          e->needed = 1;
  for (struct deferred_dup *d = deferred; d; d = d->next)
    need += d->rank == me && d->needed;
  /* made in the order of their communicators' SMPI identifiers, the same on every rank (two ranks
   * may start idups of two communicators in opposite orders and wait for both), and on one
   * communicator in the order they were started */
  while (need-- > 0) {
    struct deferred_dup **best = NULL;
    for (struct deferred_dup **pp = &deferred; *pp; pp = &(*pp)->next)
      if ((*pp)->rank == me && (*pp)->needed &&
          (!best || icsim_smpi_comm_id((*pp)->comm) < icsim_smpi_comm_id((*best)->comm)))
        best = pp;
    if (!best)
      return;
    struct deferred_dup *d = *best;
    *best = d->next;
    ndeferred--;
    if (d->with_info)
      MPI_Comm_dup_with_info(d->comm, d->info, d->out);
    else
      MPI_Comm_dup(d->comm, d->out);
    free(d);
  }
}
