/* The collectives' entry points: the 17 blocking MPI calls (coll.h lists them once), and each
 * collective on any communicator, the intracommunicator algorithm of its family or, on one of the
 * layer's intercommunicators, coll_inter.c's. The non-blocking (coll_nonblocking.c) and persistent
 * (coll_persistent.c) forms come through here too, so the arrows run one way: entry -> inter ->
 * families -> coll_comm.c.
 *
 * Each public entry point is `if (!icsim_coll_enter(...)) return PMPI_X(...);`, the argument
 * checks (coll_check.c), then the algorithm on the shadow communicator. */
#include <stdlib.h>

#include "coll.h"

/* ---- each collective on any communicator ---- */

int icsim_barrier(const struct icsim_coll *c)
{
  if (c->is_inter)
    return icsim_inter_barrier(c);
  return icsim_intra_barrier(c);
}

int icsim_bcast(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int root)
{
  if (c->is_inter)
    return icsim_inter_bcast(c, buf, count, t, root);
  return icsim_intra_bcast(c, buf, count, t, root);
}

int icsim_reduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
                 int root)
{
  if (c->is_inter)
    return icsim_inter_reduce(c, sbuf, rbuf, count, t, op, root);
  return icsim_intra_reduce(c, sbuf, rbuf, count, t, op, root);
}

int icsim_allreduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op)
{
  if (c->is_inter)
    return icsim_inter_allreduce(c, sbuf, rbuf, count, t, op);
  return icsim_intra_allreduce(c, sbuf, rbuf, count, t, op);
}

int icsim_reduce_scatter(const struct icsim_coll *c, const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype t,
                         MPI_Op op)
{
  if (c->is_inter)
    return icsim_inter_reduce_scatter(c, sbuf, rbuf, rcounts, 0, t, op);
  return icsim_intra_reduce_scatter(c, sbuf, rbuf, rcounts, t, op);
}

int icsim_reduce_scatter_block(const struct icsim_coll *c, const void *sbuf, void *rbuf, int rcount, MPI_Datatype t,
                               MPI_Op op)
{
  if (c->is_inter)
    return icsim_inter_reduce_scatter(c, sbuf, rbuf, NULL, rcount, t, op);
  return icsim_intra_reduce_scatter_block(c, sbuf, rbuf, rcount, t, op);
}

int icsim_scan(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
               int exclusive)
{
  if (c->is_inter) /* not defined on intercommunicators (MPI 3.1, 5.11) */
    return MPI_ERR_COMM;
  return icsim_intra_scan(c, sbuf, rbuf, count, t, op, exclusive);
}

int icsim_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root)
{
  if (c->is_inter)
    return icsim_inter_gather(c, sbuf, scount, stype, rbuf, rcount, rtype, root);
  return icsim_intra_gather(c, sbuf, scount, stype, rbuf, rcount, rtype, root);
}

int icsim_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  const int *rcounts, const int *displs, MPI_Datatype rtype, int root)
{
  if (c->is_inter)
    return icsim_inter_gatherv(c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
  return icsim_intra_gatherv(c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
}

int icsim_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, int root)
{
  if (c->is_inter)
    return icsim_inter_scatter(c, sbuf, scount, stype, rbuf, rcount, rtype, root);
  return icsim_intra_scatter(c, sbuf, scount, stype, rbuf, rcount, rtype, root);
}

int icsim_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *displs,
                   MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root)
{
  if (c->is_inter)
    return icsim_inter_scatterv(c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
  return icsim_intra_scatterv(c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
}

int icsim_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                    int rcount, MPI_Datatype rtype)
{
  if (c->is_inter)
    return icsim_inter_allgather(c, sbuf, scount, stype, rbuf, rcount, rtype);
  return icsim_intra_allgather(c, sbuf, scount, stype, rbuf, rcount, rtype);
}

int icsim_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     const int *rcounts, const int *displs, MPI_Datatype rtype)
{
  if (c->is_inter)
    return icsim_inter_allgatherv(c, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
  return icsim_intra_allgatherv(c, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
}

int icsim_alltoall(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   int rcount, MPI_Datatype rtype)
{
  if (c->is_inter)
    return icsim_inter_alltoallv(c, sbuf, NULL, NULL, scount, scount, stype, rbuf, NULL, NULL, rcount, rtype);
  return icsim_intra_alltoall(c, sbuf, scount, stype, rbuf, rcount, rtype);
}

int icsim_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype)
{
  if (c->is_inter)
    return icsim_inter_alltoallv(c, sbuf, scounts, sdispls, 0, 0, stype, rbuf, rcounts, rdispls, 0, rtype);
  return icsim_intra_alltoallv(c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
}

int icsim_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                    const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const int *rdispls,
                    const MPI_Datatype *rtypes)
{
  if (c->is_inter) { /* all-to-all-w with byte displacements */
    int n = c->inter.rsize;
    MPI_Aint *d = malloc(sizeof *d * 2 * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
      d[i] = sdispls[i], d[n + i] = rdispls[i];
    int err = icsim_inter_alltoallw(c, sbuf, scounts, d, stypes, rbuf, rcounts, d + n, rtypes);
    free(d);
    return err;
  }
  return icsim_intra_alltoallw(c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
}

/* ---- the blocking MPI calls ---- */

int MPI_Barrier(MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Barrier", comm, 0, &c))
    return icsim_error(comm, "MPI_Barrier", PMPI_Barrier(comm));
  int rc = MPI_SUCCESS;
  return icsim_error(comm, "MPI_Barrier", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_barrier(&c)));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Bcast", comm, 0, &c))
    return icsim_error(comm, "MPI_Bcast", PMPI_Bcast(buf, count, type, root, comm));
  int rc = icsim_check_bcast(&c, buf, count, type, root);
  return icsim_error(comm, "MPI_Bcast", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_bcast(&c, buf, count, type, root)));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Reduce", comm, 0, &c))
    return icsim_error(comm, "MPI_Reduce", PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm));
  int rc = icsim_check_reduce(&c, sbuf, rbuf, count, type, op, root);
  return icsim_error(comm, "MPI_Reduce", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_reduce(&c, sbuf, rbuf, count, type, op, root)));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Allreduce", comm, 0, &c))
    return icsim_error(comm, "MPI_Allreduce", PMPI_Allreduce(sbuf, rbuf, count, type, op, comm));
  int rc = icsim_check_allreduce(&c, sbuf, rbuf, count, type, op);
  return icsim_error(comm, "MPI_Allreduce", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_allreduce(&c, sbuf, rbuf, count, type, op)));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Reduce_scatter", comm, 0, &c))
    return icsim_error(comm, "MPI_Reduce_scatter", PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm));
  int rc = icsim_check_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op);
  return icsim_error(comm, "MPI_Reduce_scatter", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op)));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Reduce_scatter_block", comm, 0, &c))
    return icsim_error(comm, "MPI_Reduce_scatter_block", PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm));
  int rc = icsim_check_scan(&c, sbuf, rbuf, rcount, type, op);
  return icsim_error(comm, "MPI_Reduce_scatter_block", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_reduce_scatter_block(&c, sbuf, rbuf, rcount, type, op)));
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Scan", comm, 0, &c))
    return icsim_error(comm, "MPI_Scan", PMPI_Scan(sbuf, rbuf, count, type, op, comm));
  int rc = icsim_check_scan(&c, sbuf, rbuf, count, type, op);
  return icsim_error(comm, "MPI_Scan", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_scan(&c, sbuf, rbuf, count, type, op, 0)));
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Exscan", comm, 0, &c))
    return icsim_error(comm, "MPI_Exscan", PMPI_Exscan(sbuf, rbuf, count, type, op, comm));
  int rc = icsim_check_scan(&c, sbuf, rbuf, count, type, op);
  return icsim_error(comm, "MPI_Exscan", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_scan(&c, sbuf, rbuf, count, type, op, 1)));
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
               MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Gather", comm, 0, &c))
    return icsim_error(comm, "MPI_Gather", PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
  int rc = icsim_check_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root);
  return icsim_error(comm, "MPI_Gather", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root)));
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Gatherv", comm, 0, &c))
    return icsim_error(comm, "MPI_Gatherv", PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm));
  int rc = icsim_check_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
  return icsim_error(comm, "MPI_Gatherv", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root)));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Scatter", comm, 0, &c))
    return icsim_error(comm, "MPI_Scatter", PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
  int rc = icsim_check_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root);
  return icsim_error(comm, "MPI_Scatter", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root)));
}

int MPI_Scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Scatterv", comm, 0, &c))
    return icsim_error(comm, "MPI_Scatterv", PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm));
  int rc = icsim_check_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
  return icsim_error(comm, "MPI_Scatterv", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root)));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Allgather", comm, 0, &c))
    return icsim_error(comm, "MPI_Allgather", PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
  int rc = icsim_check_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype);
  return icsim_error(comm, "MPI_Allgather", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype)));
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                   const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Allgatherv", comm, 0, &c))
    return icsim_error(comm, "MPI_Allgatherv", PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm));
  int rc = icsim_check_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
  return icsim_error(comm, "MPI_Allgatherv", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype)));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Alltoall", comm, 0, &c))
    return icsim_error(comm, "MPI_Alltoall", PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm));
  int rc = icsim_check_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype);
  return icsim_error(comm, "MPI_Alltoall", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype)));
}

int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                  const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Alltoallv", comm, 0, &c))
    return icsim_error(comm, "MPI_Alltoallv", PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm));
  int rc = icsim_check_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
  return icsim_error(comm, "MPI_Alltoallv", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype)));
}

int MPI_Alltoallw(const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes, void *rbuf,
                  const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Alltoallw", comm, 0, &c))
    return icsim_error(comm, "MPI_Alltoallw", PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm));
  int rc = icsim_check_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
  return icsim_error(comm, "MPI_Alltoallw", rc != MPI_SUCCESS ? rc : icsim_coll_result(icsim_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes)));
}
