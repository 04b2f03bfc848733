/* Gather and scatter (binomial trees, as MPICH does them for short blocks), their v-variants
 * (linear: the root posts one receive or send per rank and waits for all) and all-gather(v)
 * (pairwise exchange, the sequence the validation figures were produced with).
 *
 * The binomial trees move whole subtrees' blocks at once: inner nodes hold the blocks of their
 * subtree as contiguous bytes (packed, so any datatype works) and send or receive them as
 * MPI_BYTE; leaves send from or receive into the user's buffer with the user's datatype. The
 * bytes each message carries are the same either way. Relative rank rel = (me - root) mod n;
 * the subtree of rel covers [rel, rel + lowbit(rel)) clipped to n. */
#include <stdlib.h>

#include "coll.h"

/* Lowest set bit of REL, or the first power of two >= N for the root (rel 0). */
static int lowbit(int rel, int n)
{
  int mask = 1;
  while (mask < n && !(rel & mask))
    mask <<= 1;
  return mask;
}

static int min(int a, int b) { return a < b ? a : b; }

/* Children rel + m for m = 1, 2, 4 ... below lowbit(rel), received in that order, then the whole
 * subtree goes to the parent rel - lowbit(rel). n - 1 messages. */
int icsim_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                 int rcount, MPI_Datatype rtype, int root)
{
  int n = c->n, me = c->me, rel = (me - root + n) % n;
  int inplace = me == root && sbuf == MPI_IN_PLACE;
  const char *in = inplace ? NULL : icsim_coll_addr(sbuf);
  char *out = icsim_coll_addr(rbuf);
  MPI_Aint rext = icsim_coll_extent(rtype);
  int blk = (int)(me == root ? (size_t)rcount * icsim_coll_size(rtype) : (size_t)scount * icsim_coll_size(stype));
  int mask = lowbit(rel, n), span = rel + mask < n ? mask : n - rel;
  if (span == 1) { /* a leaf: my block only */
    if (rel)
      icsim_coll_send(c, in, scount, stype, (rel - mask + root) % n);
    else if (!inplace)
      icsim_coll_copy(in, scount, stype, out + (MPI_Aint)root * rcount * rext, rcount, rtype);
    return MPI_SUCCESS;
  }
  char *sub = malloc((size_t)span * (size_t)blk + 1);
  if (rel)
    icsim_coll_pack(in, scount, stype, sub);
  for (int m = 1; m < mask && rel + m < n; m <<= 1)
    icsim_coll_recv(c, sub + (size_t)m * blk, min(m, n - rel - m) * blk, MPI_BYTE, (rel + m + root) % n);
  if (rel) {
    icsim_coll_send(c, sub, span * blk, MPI_BYTE, (rel - mask + root) % n);
  } else {
    for (int r = 1; r < n; r++)
      icsim_coll_unpack(sub + (size_t)r * blk, out + (MPI_Aint)((r + root) % n) * rcount * rext, rcount, rtype);
    if (!inplace)
      icsim_coll_copy(in, scount, stype, out + (MPI_Aint)root * rcount * rext, rcount, rtype);
  }
  free(sub);
  return MPI_SUCCESS;
}

/* The reverse: the subtree's blocks come from the parent, then go to the children rel + m from
 * the largest m down. n - 1 messages. */
int icsim_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  int rcount, MPI_Datatype rtype, int root)
{
  int n = c->n, me = c->me, rel = (me - root + n) % n;
  int inplace = me == root && rbuf == MPI_IN_PLACE;
  const char *in = icsim_coll_addr(sbuf);
  char *out = inplace ? NULL : icsim_coll_addr(rbuf);
  MPI_Aint sext = icsim_coll_extent(stype);
  int blk = (int)(me == root ? (size_t)scount * icsim_coll_size(stype) : (size_t)rcount * icsim_coll_size(rtype));
  int mask = lowbit(rel, n), span = rel + mask < n ? mask : n - rel;
  if (rel && span == 1) { /* a leaf: my block only, straight into my buffer */
    icsim_coll_recv(c, out, rcount, rtype, (rel - mask + root) % n);
    return MPI_SUCCESS;
  }
  char *sub = malloc((size_t)span * (size_t)blk + 1);
  if (rel) {
    icsim_coll_recv(c, sub, span * blk, MPI_BYTE, (rel - mask + root) % n);
  } else {
    for (int r = 1; r < n; r++)
      icsim_coll_pack(in + (MPI_Aint)((r + root) % n) * scount * sext, scount, stype, sub + (size_t)r * blk);
  }
  for (int m = mask >> 1; m > 0; m >>= 1)
    if (rel + m < n)
      icsim_coll_send(c, sub + (size_t)m * blk, min(m, n - rel - m) * blk, MPI_BYTE, (rel + m + root) % n);
  if (rel)
    icsim_coll_unpack(sub, out, rcount, rtype);
  else if (!inplace)
    icsim_coll_copy(in + (MPI_Aint)root * scount * sext, scount, stype, out, rcount, rtype);
  free(sub);
  return MPI_SUCCESS;
}

/* Linear: every other rank with a non-empty block sends it to the root, which receives them all
 * at once (Irecv + Waitall). */
int icsim_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  const int *rcounts, const int *displs, MPI_Datatype rtype, int root)
{
  int n = c->n, me = c->me;
  int inplace = me == root && sbuf == MPI_IN_PLACE;
  const char *in = inplace ? NULL : icsim_coll_addr(sbuf);
  if (me != root) {
    if ((size_t)scount * icsim_coll_size(stype) > 0)
      icsim_coll_send(c, in, scount, stype, root);
    return MPI_SUCCESS;
  }
  char *out = icsim_coll_addr(rbuf);
  MPI_Aint rext = icsim_coll_extent(rtype);
  size_t rsize = icsim_coll_size(rtype);
  MPI_Request *reqs = malloc((size_t)n * sizeof *reqs);
  int k = 0;
  for (int i = 0; i < n; i++)
    if (i != root && rcounts[i] > 0 && rsize > 0)
      icsim_coll_irecv(c, out + (MPI_Aint)displs[i] * rext, rcounts[i], rtype, i, &reqs[k++]);
  if (!inplace)
    icsim_coll_copy(in, scount, stype, out + (MPI_Aint)displs[root] * rext, rcounts[root], rtype);
  icsim_coll_waitall(k, reqs);
  free(reqs);
  return MPI_SUCCESS;
}

/* Linear: the root sends every other non-empty block at once (Isend + Waitall). */
int icsim_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *displs,
                   MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root)
{
  int n = c->n, me = c->me;
  int inplace = me == root && rbuf == MPI_IN_PLACE;
  char *out = inplace ? NULL : icsim_coll_addr(rbuf);
  if (me != root) {
    if ((size_t)rcount * icsim_coll_size(rtype) > 0)
      icsim_coll_recv(c, out, rcount, rtype, root);
    return MPI_SUCCESS;
  }
  const char *in = icsim_coll_addr(sbuf);
  MPI_Aint sext = icsim_coll_extent(stype);
  size_t ssize = icsim_coll_size(stype);
  MPI_Request *reqs = malloc((size_t)n * sizeof *reqs);
  int k = 0;
  for (int i = 0; i < n; i++)
    if (i != root && scounts[i] > 0 && ssize > 0)
      icsim_coll_isend(c, in + (MPI_Aint)displs[i] * sext, scounts[i], stype, i, &reqs[k++]);
  if (!inplace)
    icsim_coll_copy(in + (MPI_Aint)displs[root] * sext, scounts[root], stype, out, rcount, rtype);
  icsim_coll_waitall(k, reqs);
  free(reqs);
  return MPI_SUCCESS;
}

/* Pairwise exchange: round i sends my block to me + i and receives from me - i; n (n - 1)
 * messages, empty blocks included. In place, my block is already in RBUF at displs[me]. */
int icsim_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     const int *rcounts, const int *displs, MPI_Datatype rtype)
{
  int n = c->n, me = c->me;
  char *out = icsim_coll_addr(rbuf);
  MPI_Aint rext = icsim_coll_extent(rtype);
  char *mine = out + (MPI_Aint)displs[me] * rext;
  const char *src = mine;
  if (sbuf != MPI_IN_PLACE) {
    src = icsim_coll_addr(sbuf);
    icsim_coll_copy(src, scount, stype, mine, rcounts[me], rtype);
  } else {
    scount = rcounts[me];
    stype = rtype;
  }
  for (int i = 1; i < n; i++) {
    int dst = (me + i) % n, from = (me - i + n) % n;
    icsim_coll_sendrecv(c, src, scount, stype, dst, out + (MPI_Aint)displs[from] * rext, rcounts[from], rtype, from);
  }
  return MPI_SUCCESS;
}

int icsim_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                    int rcount, MPI_Datatype rtype)
{
  int n = c->n;
  int *counts = malloc((size_t)n * 2 * sizeof *counts), *displs = counts + n;
  for (int i = 0; i < n; i++) {
    counts[i] = rcount;
    displs[i] = i * rcount;
  }
  int rc = icsim_allgatherv(c, sbuf, scount, stype, rbuf, counts, displs, rtype);
  free(counts);
  return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
               MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Gather", comm, 0, &c))
    return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
  return icsim_gather(&c, sbuf, scount, stype, rbuf, rcount, rtype, root);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Gatherv", comm, 0, &c))
    return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
  return icsim_gatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype, root);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Scatter", comm, 0, &c))
    return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
  return icsim_scatter(&c, sbuf, scount, stype, rbuf, rcount, rtype, root);
}

int MPI_Scatterv(const void *sbuf, const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Scatterv", comm, 0, &c))
    return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
  return icsim_scatterv(&c, sbuf, scounts, displs, stype, rbuf, rcount, rtype, root);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Allgather", comm, 0, &c))
    return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  return icsim_allgather(&c, sbuf, scount, stype, rbuf, rcount, rtype);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int *rcounts,
                   const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Allgatherv", comm, 0, &c))
    return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
  return icsim_allgatherv(&c, sbuf, scount, stype, rbuf, rcounts, displs, rtype);
}
