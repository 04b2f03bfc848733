/* The neighbourhood collectives (MPI_Neighbor_* and MPI_Ineighbor_*) on any topology: Cartesian
 * (SMPI keeps its dimensions), graph and distributed graph (the communicator's record, kept by
 * topology.c). SMPI 3.32's are stubs that abort the program.
 *
 * They send and receive through the layer's point-to-point calls on the communicator's
 * collective shadow (coll_comm.c), so every message pays the stacks' costs. The
 * non-blocking forms run at the call, like the layer's other non-blocking collectives
 * (coll_nonblocking.c says what that implies). Neighbour order (MPI 3.1, 7.6): a Cartesian
 * communicator's are, per dimension, the rank at -1 then +1 (MPI_PROC_NULL off a non-periodic
 * edge); a graph's its adjacency list; a distributed graph's its sources (receive) and
 * destinations (send). Messages carry a tag per Cartesian direction, so that a neighbour met in
 * both directions (a periodic dimension of 1 or 2) gets each block in the right slot; between
 * graph neighbours the j-th message one way pairs with the j-th the other way expects. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "comm_record.h"

enum { NEIGHBOR_TAG = ICSIM_COLL_TAG + 64 };


/* The calling rank's neighbours on COMM: receive from in[i] with tag intag[i], send to out[i]
 * with tag outtag[i]. */
struct nbrs {
  int nin, nout;
  int *in, *out, *intag, *outtag;
};

static void nbrs_free(struct nbrs *nb)
{
  free(nb->in), free(nb->out), free(nb->intag), free(nb->outtag);
}

static int neighbours(MPI_Comm comm, struct nbrs *nb)
{
  *nb = (struct nbrs){0, 0, NULL, NULL, NULL, NULL};
  const struct icsim_topo *t = icsim_topo_of(comm);
  int cart = 0, nd = 0;
  if (t && t->kind == MPI_GRAPH) {
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    int lo = me ? t->index[me - 1] : 0;
    nb->nin = nb->nout = t->index[me] - lo;
    nb->in = icsim_ints(t->edges + lo, nb->nin);
    nb->out = icsim_ints(t->edges + lo, nb->nout);
  } else if (t && t->kind == MPI_DIST_GRAPH) {
    nb->nin = t->indeg, nb->nout = t->outdeg;
    nb->in = icsim_ints(t->in, nb->nin);
    nb->out = icsim_ints(t->out, nb->nout);
  } else {
    if (!t || PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS)
      return MPI_ERR_TOPOLOGY;
    cart = 1;
    nb->nin = nb->nout = 2 * nd;
    nb->in = icsim_ints(NULL, nb->nin);
    nb->out = icsim_ints(NULL, nb->nout);
  }
  nb->intag = icsim_ints(NULL, nb->nin);
  nb->outtag = icsim_ints(NULL, nb->nout);
  if (!nb->in || !nb->out || !nb->intag || !nb->outtag) {
    nbrs_free(nb);
    return MPI_ERR_NO_MEM;
  }
  for (int d = 0; cart && d < nd; d++) {
    int src, dst;
    PMPI_Cart_shift(comm, d, 1, &src, &dst);
    nb->in[2 * d] = nb->out[2 * d] = src;
    nb->in[2 * d + 1] = nb->out[2 * d + 1] = dst;
    /* a block sent towards -1 arrives in the receiver's +1 slot, and the other way round */
    nb->outtag[2 * d] = 2 * d, nb->outtag[2 * d + 1] = 2 * d + 1;
    nb->intag[2 * d] = 2 * d + 1, nb->intag[2 * d + 1] = 2 * d;
  }
  return MPI_SUCCESS;
}

/* One neighbourhood exchange: block i of the receive side from in[i], block i of the send side to
 * out[i] (the same block to all when ALLGATHER). Counts, displacements in bytes and types per
 * block come from the callbacks' arrays (NULL counts: COUNT each; NULL displacements: packed). */
struct side {
  const void *buf;
  int count;              /* when counts is NULL */
  const int *counts;
  const int *displs;      /* in elements of type, or NULL: block i at i * count */
  const MPI_Aint *bdispls; /* in bytes (alltoallw), or NULL */
  MPI_Datatype type;
  const MPI_Datatype *types; /* alltoallw, or NULL */
  int same;               /* allgather: every block is the whole buffer */
};

static int exchange(const char *call, MPI_Comm comm, int nonblocking, const struct side *s, const struct side *r,
                    MPI_Request *req)
{
  struct icsim_coll c;
  if (!icsim_coll_peek(call, comm, &c)) /* outside icsim or no communicator: SMPI has none */
    return icsim_error(MPI_COMM_NULL, call, MPI_ERR_COMM);
  struct nbrs nb;
  int rc = neighbours(comm, &nb);
  if (rc != MPI_SUCCESS)
    return icsim_error(comm, call, rc);
  /* each block's count and type, known only now that the neighbours are (MPICH checks them too) */
  for (int i = 0; rc == MPI_SUCCESS && i < nb.nin + nb.nout; i++) {
    const struct side *x = i < nb.nin ? r : s;
    int j = i < nb.nin ? i : i - nb.nin;
    if ((x->counts ? x->counts[j] : x->count) < 0)
      rc = MPI_ERR_COUNT;
    else if (!icsim_type_valid(x->types ? x->types[j] : x->type))
      rc = MPI_ERR_TYPE;
  }
  if (rc != MPI_SUCCESS) {
    nbrs_free(&nb);
    return icsim_error(comm, call, rc);
  }
  icsim_coll_shadow(&c, comm, nonblocking); /* only now: a failing rank returns alone */
  MPI_Request *reqs = malloc((size_t)(nb.nin + nb.nout + 1) * sizeof *reqs);
  if (!reqs) {
    nbrs_free(&nb);
    return icsim_error(comm, call, MPI_ERR_NO_MEM);
  }
  int k = 0;
  for (int i = 0; i < nb.nin; i++) {
    MPI_Datatype t = r->types ? r->types[i] : r->type;
    int cnt = r->counts ? r->counts[i] : r->count;
    MPI_Aint off = r->bdispls ? r->bdispls[i]
                   : (MPI_Aint)(r->displs ? r->displs[i] : (long long)i * cnt) * icsim_coll_extent(t);
    struct icsim_coll cc = c;
    cc.tag = NEIGHBOR_TAG + nb.intag[i];
    icsim_coll_irecv(&cc, icsim_coll_addr(r->buf) + off, cnt, t, nb.in[i], &reqs[k++]);
  }
  for (int i = 0; i < nb.nout; i++) {
    MPI_Datatype t = s->types ? s->types[i] : s->type;
    int cnt = s->counts ? s->counts[i] : s->count;
    MPI_Aint off = s->same ? 0
                   : s->bdispls ? s->bdispls[i]
                                : (MPI_Aint)(s->displs ? s->displs[i] : (long long)i * cnt) * icsim_coll_extent(t);
    struct icsim_coll cc = c;
    cc.tag = NEIGHBOR_TAG + nb.outtag[i];
    icsim_coll_isend(&cc, icsim_coll_addr(s->buf) + off, cnt, t, nb.out[i], &reqs[k++]);
  }
  icsim_coll_waitall(k, reqs);
  free(reqs);
  nbrs_free(&nb);
  rc = icsim_coll_result(MPI_SUCCESS);
  if (rc == MPI_SUCCESS && req)
    rc = icsim_coll_done_request(req);
  return icsim_error(comm, call, rc);
}

#define PLAIN(buf_, count_, type_) {(buf_), (count_), NULL, NULL, NULL, (type_), NULL, 0}

int MPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm)
{
  struct side s = PLAIN(sbuf, scount, stype), r = PLAIN(rbuf, rcount, rtype);
  s.same = 1;
  return exchange("MPI_Neighbor_allgather", comm, 0, &s, &r, NULL);
}

int MPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                            const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
  struct side s = PLAIN(sbuf, scount, stype), r = {rbuf, 0, rcounts, displs, NULL, rtype, NULL, 0};
  s.same = 1;
  return exchange("MPI_Neighbor_allgatherv", comm, 0, &s, &r, NULL);
}

int MPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm)
{
  struct side s = PLAIN(sbuf, scount, stype), r = PLAIN(rbuf, rcount, rtype);
  return exchange("MPI_Neighbor_alltoall", comm, 0, &s, &r, NULL);
}

int MPI_Neighbor_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                           void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
  struct side s = {sbuf, 0, scounts, sdispls, NULL, stype, NULL, 0};
  struct side r = {rbuf, 0, rcounts, rdispls, NULL, rtype, NULL, 0};
  return exchange("MPI_Neighbor_alltoallv", comm, 0, &s, &r, NULL);
}

int MPI_Neighbor_alltoallw(const void *sbuf, const int *scounts, const MPI_Aint *sdispls, const MPI_Datatype *stypes,
                           void *rbuf, const int *rcounts, const MPI_Aint *rdispls, const MPI_Datatype *rtypes,
                           MPI_Comm comm)
{
  struct side s = {sbuf, 0, scounts, NULL, sdispls, MPI_DATATYPE_NULL, stypes, 0};
  struct side r = {rbuf, 0, rcounts, NULL, rdispls, MPI_DATATYPE_NULL, rtypes, 0};
  return exchange("MPI_Neighbor_alltoallw", comm, 0, &s, &r, NULL);
}

int MPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                            MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  struct side s = PLAIN(sbuf, scount, stype), r = PLAIN(rbuf, rcount, rtype);
  s.same = 1;
  return req ? exchange("MPI_Ineighbor_allgather", comm, 1, &s, &r, req) : icsim_error(comm, "MPI_Ineighbor_allgather", MPI_ERR_REQUEST);
}

int MPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                             const int *displs, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  struct side s = PLAIN(sbuf, scount, stype), r = {rbuf, 0, rcounts, displs, NULL, rtype, NULL, 0};
  s.same = 1;
  return req ? exchange("MPI_Ineighbor_allgatherv", comm, 1, &s, &r, req) : icsim_error(comm, "MPI_Ineighbor_allgatherv", MPI_ERR_REQUEST);
}

int MPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
  struct side s = PLAIN(sbuf, scount, stype), r = PLAIN(rbuf, rcount, rtype);
  return req ? exchange("MPI_Ineighbor_alltoall", comm, 1, &s, &r, req) : icsim_error(comm, "MPI_Ineighbor_alltoall", MPI_ERR_REQUEST);
}

int MPI_Ineighbor_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                            void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                            MPI_Request *req)
{
  struct side s = {sbuf, 0, scounts, sdispls, NULL, stype, NULL, 0};
  struct side r = {rbuf, 0, rcounts, rdispls, NULL, rtype, NULL, 0};
  return req ? exchange("MPI_Ineighbor_alltoallv", comm, 1, &s, &r, req) : icsim_error(comm, "MPI_Ineighbor_alltoallv", MPI_ERR_REQUEST);
}

int MPI_Ineighbor_alltoallw(const void *sbuf, const int *scounts, const MPI_Aint *sdispls,
                            const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const MPI_Aint *rdispls,
                            const MPI_Datatype *rtypes, MPI_Comm comm, MPI_Request *req)
{
  struct side s = {sbuf, 0, scounts, NULL, sdispls, MPI_DATATYPE_NULL, stypes, 0};
  struct side r = {rbuf, 0, rcounts, NULL, rdispls, MPI_DATATYPE_NULL, rtypes, 0};
  return req ? exchange("MPI_Ineighbor_alltoallw", comm, 1, &s, &r, req) : icsim_error(comm, "MPI_Ineighbor_alltoallw", MPI_ERR_REQUEST);
}
