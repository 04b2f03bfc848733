/* Gather and scatter (binomial trees, as MPICH 3.x does them at every size), their v-variants
 * (linear: the root posts one receive or send per rank and waits for all, as MPICH) and
 * all-gather(v) (MPICH's choice among recursive doubling, Bruck and ring; below).
 *
 * The binomial trees move whole subtrees' blocks at once: inner nodes hold the blocks of their
 * subtree as contiguous bytes (packed, so any datatype works) and send or receive them as
 * MPI_BYTE; leaves send from or receive into the user's buffer with the user's datatype. The
 * bytes each message carries are the same either way. Relative rank rel = (me - root) mod n;
 * the subtree of rel covers [rel, rel + lowbit(rel)) clipped to n. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "runtime.h"

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
int icsim_intra_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
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
int icsim_intra_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
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
int icsim_intra_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
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
int icsim_intra_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *displs,
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

/* All-gather(v), with MPICH 3.x's choice (select.c) on the bytes gathered on each rank: recursive
 * doubling (n a power of two, below mpi/allgather-long-msg-size), Bruck's algorithm (below
 * mpi/allgather-short-msg-size), else a ring. All three move the blocks as contiguous bytes in a
 * work buffer (block i at OFF[i], LEN[i] bytes, in rank order), unpacked into the user's buffer
 * at the end, so any datatype works and each message carries the bytes MPICH's would. */
struct gathered {
  char *work;
  size_t *off, *len; /* n + 1 offsets: off[n] is the total */
};

static size_t span_bytes(const struct gathered *g, int from, int count) /* blocks from..from+count-1, in order */
{
  return g->off[from + count] - g->off[from];
}

/* Recursive doubling (power-of-two n): step k exchanges with me ^ 2^k the blocks of the two
 * aligned subtrees of 2^k ranks. log2 n messages per rank. */
static void allgather_rdb(const struct icsim_coll *c, struct gathered *g)
{
  int me = c->me;
  for (int mask = 1; mask < c->n; mask <<= 1) {
    int dst = me ^ mask, mine = me & ~(mask - 1), theirs = dst & ~(mask - 1);
    icsim_coll_sendrecv(c, g->work + g->off[mine], (int)span_bytes(g, mine, mask), MPI_BYTE, dst,
                        g->work + g->off[theirs], (int)span_bytes(g, theirs, mask), MPI_BYTE, dst);
  }
}

/* Bruck: the work buffer holds the blocks of me, me + 1, ... in that order; step k sends the
 * 2^k blocks held so far to me - 2^k and receives the next 2^k from me + 2^k; a last step moves
 * the remaining n - 2^floor(log2 n) blocks. ceil(log2 n) messages per rank. */
static void allgather_bruck(const struct icsim_coll *c, struct gathered *g)
{
  int n = c->n, me = c->me;
  size_t total = g->off[n];
  char *rot = malloc(total + 1), *recv = malloc(total + 1);
  size_t *roff = malloc((size_t)(n + 1) * sizeof *roff);
  roff[0] = 0;
  for (int j = 0; j < n; j++)
    roff[j + 1] = roff[j] + g->len[(me + j) % n];
  memcpy(rot, g->work + g->off[me], g->len[me]);
  int have = 1;
  while (have < n) {
    int cnt = have <= n - have ? have : n - have;
    int src = (me + have) % n, dst = (me - have + n) % n;
    /* the receive lands straight after what I hold: blocks me + have .. me + have + cnt - 1 */
    icsim_coll_sendrecv(c, rot, (int)(roff[cnt] - roff[0]), MPI_BYTE, dst, recv,
                        (int)(roff[have + cnt] - roff[have]), MPI_BYTE, src);
    memcpy(rot + roff[have], recv, roff[have + cnt] - roff[have]);
    have += cnt;
  }
  for (int j = 0; j < n; j++)
    memcpy(g->work + g->off[(me + j) % n], rot + roff[j], g->len[(me + j) % n]);
  free(rot);
  free(recv);
  free(roff);
}

/* Ring: step i sends to the right the block received in the previous step (my own first) and
 * receives from the left the block of me - i. n - 1 messages per rank. */
static void allgather_ring(const struct icsim_coll *c, struct gathered *g)
{
  int n = c->n, me = c->me, left = (me - 1 + n) % n, right = (me + 1) % n;
  int j = me, jnext = left;
  for (int i = 1; i < n; i++) {
    icsim_coll_sendrecv(c, g->work + g->off[j], (int)g->len[j], MPI_BYTE, right, g->work + g->off[jnext],
                        (int)g->len[jnext], MPI_BYTE, left);
    j = jnext;
    jnext = (jnext - 1 + n) % n;
  }
}

int icsim_intra_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     const int *rcounts, const int *displs, MPI_Datatype rtype)
{
  int n = c->n, me = c->me;
  char *out = icsim_coll_addr(rbuf);
  MPI_Aint rext = icsim_coll_extent(rtype);
  size_t rsize = icsim_coll_size(rtype);
  struct gathered g;
  g.off = malloc((size_t)(n + 1) * 2 * sizeof *g.off);
  g.len = g.off + n + 1;
  g.off[0] = 0;
  for (int i = 0; i < n; i++) {
    g.len[i] = rcounts[i] > 0 ? (size_t)rcounts[i] * rsize : 0;
    g.off[i + 1] = g.off[i] + g.len[i];
  }
  size_t total = g.off[n];
  if (total == 0) { /* nothing to gather anywhere: MPICH returns at once */
    free(g.off);
    return MPI_SUCCESS;
  }
  g.work = malloc(total + 1);
  char *mine = out + (MPI_Aint)displs[me] * rext;
  if (sbuf == MPI_IN_PLACE)
    icsim_coll_pack(mine, rcounts[me], rtype, g.work + g.off[me]);
  else
    icsim_coll_pack(icsim_coll_addr(sbuf), scount, stype, g.work + g.off[me]);
  switch (icsim_select_allgather(&icsim_runtime_get()->pf.mpi, total, n)) {
  case ICSIM_ALLGATHER_RDB: allgather_rdb(c, &g); break;
  case ICSIM_ALLGATHER_BRUCK: allgather_bruck(c, &g); break;
  default: allgather_ring(c, &g); break;
  }
  for (int i = 0; i < n; i++)
    if (i != me || sbuf != MPI_IN_PLACE)
      icsim_coll_unpack(g.work + g.off[i], out + (MPI_Aint)displs[i] * rext, rcounts[i], rtype);
  free(g.work);
  free(g.off);
  return MPI_SUCCESS;
}

int icsim_intra_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                    int rcount, MPI_Datatype rtype)
{
  int n = c->n;
  int *counts = malloc((size_t)n * 2 * sizeof *counts), *displs = counts + n;
  for (int i = 0; i < n; i++) {
    counts[i] = rcount;
    displs[i] = i * rcount;
  }
  int rc = icsim_intra_allgatherv(c, sbuf, scount, stype, rbuf, counts, displs, rtype);
  free(counts);
  return rc;
}
