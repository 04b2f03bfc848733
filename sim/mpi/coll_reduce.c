/* Reductions: reduce, allreduce, reduce_scatter(_block), scan, exscan.
 *
 * Operand order. MPI_Reduce_local(in, inout) computes inout = in op inout. A non-commutative op
 * must combine the ranks' contributions in rank order (lower ranks on the left); commutative ops
 * keep the orders of the algorithms the validation figures were produced with.
 * Temporaries are laid out like the user's buffers (true extent, true lower bound), so any
 * datatype works, and local copies are memmove or pack/unpack: nothing goes to oneself through
 * SMPI (such a message would reach the network model without the stack's costs). */
#include <stdlib.h>

#include "coll.h"

static void swap(char **a, char **b)
{
  char *t = *a;
  *a = *b;
  *b = t;
}

/* Binomial tree to rank 0 over relative ranks equal to the ranks, each node holding the
 * reduction of ranks [me, me + 2^k) in order: a child's block goes on the right. Then rank 0
 * sends the result to ROOT. n - 1 messages, plus one when ROOT != 0. */
static int reduce_ordered(const struct icsim_coll *c, const char *in, char *out, int count, MPI_Datatype t,
                          MPI_Op op, int root)
{
  int n = c->n, me = c->me;
  void *ablk, *bblk;
  char *acc = icsim_coll_tmp(count, t, &ablk), *got = icsim_coll_tmp(count, t, &bblk);
  icsim_coll_copy(in, count, t, acc, count, t);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (me & mask) {
      icsim_coll_send(c, acc, count, t, me - mask);
      break;
    }
    if (me + mask < n) {
      icsim_coll_recv(c, got, count, t, me + mask);
      icsim_coll_reduce_local(acc, got, count, t, op); /* got = acc op got */
      swap(&acc, &got);
    }
  }
  if (root == 0) {
    if (me == 0)
      icsim_coll_copy(acc, count, t, out, count, t);
  } else if (me == 0) {
    icsim_coll_send(c, acc, count, t, root);
  } else if (me == root) {
    icsim_coll_recv(c, out, count, t, 0);
  }
  free(ablk);
  free(bblk);
  return MPI_SUCCESS;
}

/* Commutative: binomial tree rooted at ROOT (relative ranks), each node adding its children's
 * partial results as they come. n - 1 messages. */
int icsim_reduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
                 int root)
{
  int n = c->n, me = c->me;
  char *out = icsim_coll_addr(rbuf);
  const char *in = sbuf == MPI_IN_PLACE ? out : icsim_coll_addr(sbuf);
  if (!icsim_coll_commutative(op))
    return reduce_ordered(c, in, out, count, t, op, root);
  void *ablk, *bblk;
  char *acc = icsim_coll_tmp(count, t, &ablk), *got = icsim_coll_tmp(count, t, &bblk);
  icsim_coll_copy(in, count, t, acc, count, t);
  int rel = (me - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rel & mask) { /* hand my partial result to the parent and stop */
      icsim_coll_send(c, acc, count, t, (me - mask + n) % n);
      break;
    }
    if (rel + mask < n) {
      icsim_coll_recv(c, got, count, t, (me + mask) % n);
      icsim_coll_reduce_local(got, acc, count, t, op);
    }
  }
  if (me == root)
    icsim_coll_copy(acc, count, t, out, count, t);
  free(ablk);
  free(bblk);
  return MPI_SUCCESS;
}

/* Power of two: recursive doubling, log2 n rounds of pairwise exchange (n log2 n messages).
 * Otherwise: reduce to rank 0, then broadcast (2 (n - 1) messages). */
int icsim_allreduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op)
{
  int n = c->n, me = c->me;
  char *out = icsim_coll_addr(rbuf);
  const char *in = sbuf == MPI_IN_PLACE ? out : icsim_coll_addr(sbuf);
  if (n & (n - 1)) {
    icsim_reduce(c, in, out, count, t, op, 0);
    return icsim_bcast(c, out, count, t, 0);
  }
  int commutative = icsim_coll_commutative(op);
  icsim_coll_copy(in, count, t, out, count, t);
  void *blk;
  char *got = icsim_coll_tmp(count, t, &blk);
  for (int mask = 1; mask < n; mask <<= 1) {
    int peer = me ^ mask;
    icsim_coll_sendrecv(c, out, count, t, peer, got, count, t, peer);
    /* after round k each rank holds the reduction of its aligned block of 2^(k+1) ranks */
    if (commutative) { /* higher block on the left on both sides: identical results everywhere */
      if (peer < me) {
        icsim_coll_reduce_local(out, got, count, t, op);
        icsim_coll_copy(got, count, t, out, count, t);
      } else {
        icsim_coll_reduce_local(got, out, count, t, op);
      }
    } else if (peer < me) { /* lower block on the left */
      icsim_coll_reduce_local(got, out, count, t, op);
    } else {
      icsim_coll_reduce_local(out, got, count, t, op);
      icsim_coll_copy(got, count, t, out, count, t);
    }
  }
  free(blk);
  return MPI_SUCCESS;
}

/* Reduce the whole vector to rank 0, then scatter the blocks (linear scatterv): (n - 1) + the
 * number of other ranks with a non-empty block. */
int icsim_reduce_scatter(const struct icsim_coll *c, const void *sbuf, void *rbuf, const int *rcounts,
                         MPI_Datatype t, MPI_Op op)
{
  int n = c->n, me = c->me;
  char *out = icsim_coll_addr(rbuf);
  const char *in = sbuf == MPI_IN_PLACE ? out : icsim_coll_addr(sbuf);
  int *displs = malloc((size_t)n * sizeof *displs), total = 0;
  for (int i = 0; i < n; i++) {
    displs[i] = total;
    total += rcounts[i];
  }
  void *blk = NULL;
  char *all = me == 0 ? icsim_coll_tmp(total, t, &blk) : NULL;
  icsim_reduce(c, in, all, total, t, op, 0);
  icsim_scatterv(c, all, rcounts, displs, t, out, rcounts[me], t, 0);
  free(blk);
  free(displs);
  return MPI_SUCCESS;
}

int icsim_reduce_scatter_block(const struct icsim_coll *c, const void *sbuf, void *rbuf, int rcount, MPI_Datatype t,
                               MPI_Op op)
{
  int *counts = malloc((size_t)c->n * sizeof *counts);
  for (int i = 0; i < c->n; i++)
    counts[i] = rcount;
  int rc = icsim_reduce_scatter(c, sbuf, rbuf, counts, t, op);
  free(counts);
  return rc;
}

/* Recursive doubling (inclusive or exclusive prefix): in round k rank me exchanges with
 * me ^ 2^k (when it exists) the reduction of its aligned block of 2^k ranks; a block from
 * below goes on the left of both the block total and the prefix. Rank 0's exscan result is
 * left untouched (undefined in MPI). */
int icsim_scan(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
               int exclusive)
{
  int n = c->n, me = c->me;
  char *out = icsim_coll_addr(rbuf);
  const char *in = sbuf == MPI_IN_PLACE ? out : icsim_coll_addr(sbuf);
  int commutative = icsim_coll_commutative(op);
  void *pblk, *gblk;
  char *part = icsim_coll_tmp(count, t, &pblk), *got = icsim_coll_tmp(count, t, &gblk);
  icsim_coll_copy(in, count, t, part, count, t); /* before OUT is written: IN may be OUT */
  int have = !exclusive; /* OUT holds a prefix */
  if (have)
    icsim_coll_copy(in, count, t, out, count, t);
  for (int mask = 1; mask < n; mask <<= 1) {
    int peer = me ^ mask;
    if (peer >= n)
      continue;
    icsim_coll_sendrecv(c, part, count, t, peer, got, count, t, peer);
    if (peer < me) {
      icsim_coll_reduce_local(got, part, count, t, op);
      if (have) {
        icsim_coll_reduce_local(got, out, count, t, op);
      } else {
        icsim_coll_copy(got, count, t, out, count, t);
        have = 1;
      }
    } else if (commutative) {
      icsim_coll_reduce_local(got, part, count, t, op);
    } else {
      icsim_coll_reduce_local(part, got, count, t, op); /* got = part op got */
      swap(&part, &got);
    }
  }
  free(pblk);
  free(gblk);
  return MPI_SUCCESS;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Reduce", comm, 0, &c))
    return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
  return icsim_reduce(&c, sbuf, rbuf, count, type, op, root);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Allreduce", comm, 0, &c))
    return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
  return icsim_allreduce(&c, sbuf, rbuf, count, type, op);
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Reduce_scatter", comm, 0, &c))
    return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
  return icsim_reduce_scatter(&c, sbuf, rbuf, rcounts, type, op);
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Reduce_scatter_block", comm, 0, &c))
    return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op, comm);
  return icsim_reduce_scatter_block(&c, sbuf, rbuf, rcount, type, op);
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Scan", comm, 0, &c))
    return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
  return icsim_scan(&c, sbuf, rbuf, count, type, op, 0);
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Exscan", comm, 0, &c))
    return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
  return icsim_scan(&c, sbuf, rbuf, count, type, op, 1);
}
