/* The collectives' entry points: the 17 blocking MPI calls (coll.h lists them once), and each
 * collective on any communicator, the intracommunicator algorithm of its family or, on one of the
 * layer's intercommunicators, coll_inter.c's. The non-blocking (coll_nonblocking.c) and persistent
 * (coll_persistent.c) forms come through here too, so the arrows run one way: entry -> inter ->
 * families -> coll_comm.c.
 *
 * Each public entry point is `if (!icsim_coll_peek(...)) return PMPI_X(...);`, the argument
 * checks (coll_check.c), then the shadow communicator (icsim_coll_shadow: a rank whose arguments
 * fail returns its error alone, as MPI's do, without a collective step the others never join) and
 * the algorithm on it. */
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

int icsim_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
  int rcount,
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

/* One blocking collective: SMPI's own outside icsim or on MPI_COMM_NULL (SMPI reports it), else
 * the argument checks, then the collective on the shadow; the result goes to COMM's handler. */
#define BLOCKING(NAME, PARAMS, ARGS, CHECK, RUN)                                                            \
  int MPI_##NAME PARAMS                                                                                    \
  {                                                                                                        \
    struct icsim_coll c;                                                                                   \
    if (!icsim_coll_peek("MPI_" #NAME, comm, &c))                                                          \
      return icsim_error(comm, "MPI_" #NAME, PMPI_##NAME ARGS);                                            \
    int rc = CHECK;                                                                                        \
    if (!icsim_coll_runs(rc))                                                                              \
      return icsim_error(comm, "MPI_" #NAME, rc);                                                          \
    icsim_coll_shadow(&c, comm, 0);                                                                        \
    return icsim_error(comm, "MPI_" #NAME, icsim_coll_merge(rc, icsim_coll_result(RUN)));                  \
  }

BLOCKING(Barrier, (MPI_Comm comm),
         (comm),
         MPI_SUCCESS,
         icsim_barrier(&c))
BLOCKING(Bcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm),
         (buf, count, type, root, comm),
         icsim_check_bcast(&c, buf, count, type, root),
         icsim_bcast(&c, buf, count, type, root))
BLOCKING(Reduce, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm),
         (sbuf, rbuf, count, type, op, root, comm),
         icsim_check_reduce(&c, sbuf, rbuf, count, type, op, root),
         icsim_reduce(&c, sbuf, rbuf, count, type, op, root))
BLOCKING(Allreduce, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
         (sbuf, rbuf, count, type, op, comm),
         icsim_check_allreduce(&c, sbuf, rbuf, count, type, op),
         icsim_allreduce(&c, sbuf, rbuf, count, type, op))
BLOCKING(Reduce_scatter, (const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm),
         (sbuf, rbuf, rcounts, type, op, comm),
         icsim_check_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op),
         icsim_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op))
BLOCKING(Reduce_scatter_block, (const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm),
         (sbuf, rbuf, rcount, type, op, comm),
         icsim_check_scan(&c, sbuf, rbuf, rcount, type, op),
         icsim_reduce_scatter_block(&c, sbuf, rbuf, rcount, type, op))
BLOCKING(Scan, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
         (sbuf, rbuf, count, type, op, comm),
         icsim_check_scan(&c, sbuf, rbuf, count, type, op),
         icsim_scan(&c, sbuf, rbuf, count, type, op, 0))
BLOCKING(Exscan, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
         (sbuf, rbuf, count, type, op, comm),
         icsim_check_scan(&c, sbuf, rbuf, count, type, op),
         icsim_scan(&c, sbuf, rbuf, count, type, op, 1))
BLOCKING(Gather, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  int root, MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
         icsim_check_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root),
         icsim_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root))
BLOCKING(Gatherv, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                   MPI_Datatype rtype, int root, MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
         icsim_check_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root),
         icsim_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root))
BLOCKING(Scatter, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                   int root, MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
         icsim_check_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root),
         icsim_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root))
BLOCKING(Scatterv, (const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
                    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
         (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
         icsim_check_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root),
         icsim_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root))
BLOCKING(Allgather, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                     MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcount, rtype, comm),
         icsim_check_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype),
         icsim_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype))
BLOCKING(Allgatherv, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                      const int *displs, MPI_Datatype rtype, MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm),
         icsim_check_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype),
         icsim_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype))
BLOCKING(Alltoall, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                    MPI_Comm comm),
         (sbuf, scount, stype, rbuf, rcount, rtype, comm),
         icsim_check_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype),
         icsim_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype))
BLOCKING(Alltoallv, (const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                     const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm),
         (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
         icsim_check_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype),
         icsim_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype))
BLOCKING(Alltoallw, (const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes, void *rbuf,
                     const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm),
         (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm),
         icsim_check_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes),
         icsim_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes))

/* MPI_Reduce_local (no communicator, no message): MPICH's checks, then SMPI's. SMPI 3.32 takes
 * MPI_IN_PLACE for a buffer address and crashes (MPICH's errors/coll/reduce_local). */
int MPI_Reduce_local(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op)
{
  if (!icsim_runtime_get())
    return PMPI_Reduce_local(in, inout, count, type, op);
  int rc = icsim_check_reduce_local(in, inout, count, type, op);
  return icsim_error(MPI_COMM_NULL, "MPI_Reduce_local", rc != MPI_SUCCESS ? rc : PMPI_Reduce_local(in, inout, count, type, op));
}
