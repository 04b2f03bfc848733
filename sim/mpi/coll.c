/* Collectives built from the MPI layer's point-to-point calls, so that every message of a
 * collective pays the stack's per-message CPU costs like any other message (SMPI's own
 * collectives call its internal send and receive, which the layer never sees). The algorithms
 * are the textbook ones MPICH uses: dissemination barrier, binomial broadcast and reduce,
 * recursive doubling allreduce, pairwise exchange all-to-all and all-gather.
 *
 * Each user communicator gets a shadow duplicate, created on first use by every member (the
 * first use is a collective), so collective traffic never matches a user's receive. Outside
 * icsim, and for cases these algorithms do not cover (MPI_IN_PLACE in all-to-all and
 * all-gather, non-commutative reductions), SMPI's own collectives run. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define TAG 7 /* on the shadow communicator only */

struct shadow {
  MPI_Comm user, dup;
  int owner; /* world rank: each rank keeps its own duplicate */
};
static struct shadow *shadows;
static size_t nshadows;

static MPI_Comm shadow_of(MPI_Comm comm)
{
  int me;
  PMPI_Comm_rank(MPI_COMM_WORLD, &me);
  for (size_t i = 0; i < nshadows; i++)
    if (shadows[i].user == comm && shadows[i].owner == me)
      return shadows[i].dup;
  MPI_Comm dup;
  /* every member gets here in the same collective; SMPI's dup sends its own messages */
  icsim_runtime_internal_enter(icsim_runtime_get());
  PMPI_Comm_dup(comm, &dup);
  icsim_runtime_internal_leave(icsim_runtime_get());
  shadows = realloc(shadows, (nshadows + 1) * sizeof *shadows);
  shadows[nshadows++] = (struct shadow){comm, dup, me};
  return dup;
}

static int active(void) { return icsim_runtime_get() != NULL; }

static int contiguous_bytes(MPI_Datatype t, MPI_Aint *extent)
{
  int size;
  MPI_Aint lb;
  PMPI_Type_size(t, &size);
  PMPI_Type_get_extent(t, &lb, extent);
  return lb == 0 && *extent == size;
}

/* DST <- SRC for COUNT elements of TYPE on this rank */
static void copy_local(const void *src, void *dst, int count, MPI_Datatype type, MPI_Comm comm, int me)
{
  MPI_Aint ext;
  if (contiguous_bytes(type, &ext)) {
    if (src != dst && count > 0)
      memmove(dst, src, (size_t)count * (size_t)ext);
  } else {
    PMPI_Sendrecv(src, count, type, me, TAG, dst, count, type, me, TAG, comm, MPI_STATUS_IGNORE);
  }
}

int MPI_Barrier(MPI_Comm comm)
{
  if (!active())
    return PMPI_Barrier(comm);
  MPI_Comm c = shadow_of(comm);
  int n, me;
  PMPI_Comm_size(c, &n);
  PMPI_Comm_rank(c, &me);
  for (int k = 1; k < n; k <<= 1)
    MPI_Sendrecv(NULL, 0, MPI_BYTE, (me + k) % n, TAG, NULL, 0, MPI_BYTE, (me - k + n) % n, TAG, c,
                 MPI_STATUS_IGNORE);
  return MPI_SUCCESS;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  if (!active())
    return PMPI_Bcast(buf, count, type, root, comm);
  MPI_Comm c = shadow_of(comm);
  int n, me;
  PMPI_Comm_size(c, &n);
  PMPI_Comm_rank(c, &me);
  int rel = (me - root + n) % n, mask = 1;
  while (mask < n) { /* receive from the parent */
    if (rel & mask) {
      MPI_Recv(buf, count, type, (me - mask + n) % n, TAG, c, MPI_STATUS_IGNORE);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) /* send to the children */
    if (rel + mask < n)
      MPI_Send(buf, count, type, (me + mask) % n, TAG, c);
  return MPI_SUCCESS;
}

static int commutative(MPI_Op op)
{
  int yes = 0;
  PMPI_Op_commutative(op, &yes);
  return yes;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
  MPI_Aint ext;
  if (!active() || !commutative(op) || !contiguous_bytes(type, &ext))
    return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
  MPI_Comm c = shadow_of(comm);
  int n, me;
  PMPI_Comm_size(c, &n);
  PMPI_Comm_rank(c, &me);
  size_t bytes = (size_t)count * (size_t)ext;
  char *acc = malloc(bytes ? bytes : 1), *tmp = malloc(bytes ? bytes : 1);
  memcpy(acc, sbuf == MPI_IN_PLACE ? rbuf : sbuf, bytes);
  int rel = (me - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rel & mask) { /* hand my partial result to the parent and stop */
      MPI_Send(acc, count, type, (me - mask + n) % n, TAG, c);
      break;
    }
    if (rel + mask < n) {
      MPI_Recv(tmp, count, type, (me + mask) % n, TAG, c, MPI_STATUS_IGNORE);
      PMPI_Reduce_local(tmp, acc, count, type, op);
    }
  }
  if (me == root)
    memcpy(rbuf, acc, bytes);
  free(acc);
  free(tmp);
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  MPI_Aint ext;
  if (!active() || !commutative(op) || !contiguous_bytes(type, &ext))
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  MPI_Comm c = shadow_of(comm);
  int n, me;
  PMPI_Comm_size(c, &n);
  PMPI_Comm_rank(c, &me);
  if (n & (n - 1)) { /* not a power of two: reduce to 0, then broadcast */
    MPI_Reduce(sbuf, rbuf, count, type, op, 0, comm);
    return MPI_Bcast(rbuf, count, type, 0, comm);
  }
  size_t bytes = (size_t)count * (size_t)ext;
  if (sbuf != MPI_IN_PLACE)
    memcpy(rbuf, sbuf, bytes);
  char *tmp = malloc(bytes ? bytes : 1);
  for (int mask = 1; mask < n; mask <<= 1) {
    int peer = me ^ mask;
    MPI_Sendrecv(rbuf, count, type, peer, TAG, tmp, count, type, peer, TAG, c, MPI_STATUS_IGNORE);
    /* the same order of operands on both sides keeps the result identical on every rank */
    if (peer < me) {
      PMPI_Reduce_local(rbuf, tmp, count, type, op);
      memcpy(rbuf, tmp, bytes);
    } else {
      PMPI_Reduce_local(tmp, rbuf, count, type, op);
    }
  }
  free(tmp);
  return MPI_SUCCESS;
}

int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                  const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
  if (!active() || sbuf == MPI_IN_PLACE)
    return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
  MPI_Comm c = shadow_of(comm);
  int n, me;
  PMPI_Comm_size(c, &n);
  PMPI_Comm_rank(c, &me);
  MPI_Aint sext, rext, lb;
  PMPI_Type_get_extent(stype, &lb, &sext);
  PMPI_Type_get_extent(rtype, &lb, &rext);
  copy_local((const char *)sbuf + (size_t)sdispls[me] * sext, (char *)rbuf + (size_t)rdispls[me] * rext,
             scounts[me], stype, c, me);
  for (int i = 1; i < n; i++) {
    int dst = (me + i) % n, src = (me - i + n) % n;
    MPI_Sendrecv((const char *)sbuf + (size_t)sdispls[dst] * sext, scounts[dst], stype, dst, TAG,
                 (char *)rbuf + (size_t)rdispls[src] * rext, rcounts[src], rtype, src, TAG, c, MPI_STATUS_IGNORE);
  }
  return MPI_SUCCESS;
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                   const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
  if (!active() || sbuf == MPI_IN_PLACE)
    return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
  MPI_Comm c = shadow_of(comm);
  int n, me;
  PMPI_Comm_size(c, &n);
  PMPI_Comm_rank(c, &me);
  MPI_Aint rext, lb;
  PMPI_Type_get_extent(rtype, &lb, &rext);
  copy_local(sbuf, (char *)rbuf + (size_t)displs[me] * rext, scount, stype, c, me);
  for (int i = 1; i < n; i++) {
    int dst = (me + i) % n, src = (me - i + n) % n;
    MPI_Sendrecv(sbuf, scount, stype, dst, TAG, (char *)rbuf + (size_t)displs[src] * rext, rcounts[src], rtype, src,
                 TAG, c, MPI_STATUS_IGNORE);
  }
  return MPI_SUCCESS;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
  if (!active() || sbuf == MPI_IN_PLACE)
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  int n;
  PMPI_Comm_size(comm, &n);
  int *counts = malloc((size_t)n * sizeof *counts), *displs = malloc((size_t)n * sizeof *displs);
  for (int i = 0; i < n; i++) {
    counts[i] = rcount;
    displs[i] = i * rcount;
  }
  int rc = MPI_Allgatherv(sbuf, scount, stype, rbuf, counts, displs, rtype, comm);
  free(counts);
  free(displs);
  return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
  if (!active() || sbuf == MPI_IN_PLACE)
    return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  int n;
  PMPI_Comm_size(comm, &n);
  int *sc = malloc((size_t)n * 4 * sizeof *sc), *sd = sc + n, *rc = sc + 2 * n, *rd = sc + 3 * n;
  for (int i = 0; i < n; i++) {
    sc[i] = scount;
    sd[i] = i * scount;
    rc[i] = rcount;
    rd[i] = i * rcount;
  }
  int err = MPI_Alltoallv(sbuf, sc, sd, stype, rbuf, rc, rd, rtype, comm);
  free(sc);
  return err;
}
