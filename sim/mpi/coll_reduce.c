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
#include "runtime.h"

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
static int reduce_binomial(const struct icsim_coll *c, const char *in, char *out, int count, MPI_Datatype t,
                           MPI_Op op, int root)
{
  int n = c->n, me = c->me;
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

/* The largest power of two <= n takes part in the halving and doubling steps: with rem = n - pof2,
 * the first 2 rem ranks pair up (one of each pair hands its vector to the other and sits out),
 * the others are renumbered down by rem. NEWRANK of ME (-1: sits out), and back to real ranks:
 * ODD_KEEPS says whether the odd member of a pair takes part (allreduce) or the even one (reduce). */
static int fold_rank(int me, int rem, int odd_keeps)
{
  if (me >= 2 * rem)
    return me - rem;
  return (me % 2 == 1) == odd_keeps ? me / 2 : -1;
}

static int real_rank(int newrank, int rem, int odd_keeps)
{
  return newrank < rem ? newrank * 2 + (odd_keeps ? 1 : 0) : newrank + rem;
}

/* Vector of COUNT elements split in POF2 segments: segment i is CNTS[i] elements at DISPS[i]
 * (count / pof2 each, the remainder on the last one). */
static void segments(int count, int pof2, int *cnts, int *disps)
{
  for (int i = 0; i < pof2; i++)
    cnts[i] = i < pof2 - 1 ? count / pof2 : count - (count / pof2) * (pof2 - 1);
  disps[0] = 0;
  for (int i = 1; i < pof2; i++)
    disps[i] = disps[i - 1] + cnts[i - 1];
}

static int sum(const int *a, int from, int to)
{
  int s = 0;
  for (int i = from; i < to; i++)
    s += a[i];
  return s;
}

/* One step of Rabenseifner's second phase (recursive doubling back over the halving's blocks):
 * the blocks this rank sends and receives when exchanging with the partner at distance MASK, the
 * lower rank of the pair (LOWER) keeping the lower blocks. Shared by the reduce (gather to the
 * root) and the all-reduce (all-gather). */
static void doubling_step(int lower, int mask, int pof2, const int *cnts, int send_idx, int *last_idx, int *recv_idx,
                          int *send_cnt, int *recv_cnt)
{
  int step = pof2 / (mask * 2);
  if (lower) {
    if (mask != pof2 / 2)
      *last_idx += step;
    *recv_idx = send_idx + step;
    *send_cnt = sum(cnts, send_idx, *recv_idx);
    *recv_cnt = sum(cnts, *recv_idx, *last_idx);
  } else {
    *recv_idx = send_idx - step;
    *send_cnt = sum(cnts, send_idx, *last_idx);
    *recv_cnt = sum(cnts, *recv_idx, send_idx);
  }
}

/* Recursive halving reduce-scatter among the POF2 folded ranks (Rabenseifner; MPICH's
 * MPIR_Allreduce_intra and MPIR_Reduce_redscat_gather): step k exchanges half of the current
 * range of segments with newrank ^ 2^k and reduces the half kept. ACC holds my vector; on return
 * it holds the reduction of segments [*SEND_IDX, *LAST_IDX). Commutative (predefined) ops only. */
static void reduce_scatter_halving(const struct icsim_coll *c, char *acc, char *got, MPI_Datatype t, MPI_Op op,
                                   int newrank, int pof2, int rem, int odd_keeps, const int *cnts, const int *disps,
                                   int *send_idx_out, int *last_idx_out)
{
  MPI_Aint ext = icsim_coll_extent(t);
  int send_idx = 0, recv_idx = 0, last_idx = pof2;
  for (int mask = 1; mask < pof2; mask <<= 1) {
    int newdst = newrank ^ mask, dst = real_rank(newdst, rem, odd_keeps), send_cnt, recv_cnt;
    if (newrank < newdst) {
      send_idx = recv_idx + pof2 / (mask * 2);
      send_cnt = sum(cnts, send_idx, last_idx);
      recv_cnt = sum(cnts, recv_idx, send_idx);
    } else {
      recv_idx = send_idx + pof2 / (mask * 2);
      send_cnt = sum(cnts, send_idx, recv_idx);
      recv_cnt = sum(cnts, recv_idx, last_idx);
    }
    icsim_coll_sendrecv(c, acc + (MPI_Aint)disps[send_idx] * ext, send_cnt, t, dst, got + (MPI_Aint)disps[recv_idx] * ext,
                        recv_cnt, t, dst);
    icsim_coll_reduce_local(got + (MPI_Aint)disps[recv_idx] * ext, acc + (MPI_Aint)disps[recv_idx] * ext, recv_cnt, t,
                            op);
    send_idx = recv_idx;
    if (mask * 2 < pof2) /* not after the last step: the gather that follows starts from this range */
      last_idx = recv_idx + pof2 / (mask * 2);
  }
  *send_idx_out = send_idx;
  *last_idx_out = last_idx;
}

/* Reduce-scatter by recursive halving, then a binomial gather of the segments to ROOT
 * (MPICH 3.x's MPIR_Reduce_redscat_gather): long vectors, predefined ops, count >= pof2. */
static int reduce_rabenseifner(const struct icsim_coll *c, const char *in, char *out, int count, MPI_Datatype t,
                               MPI_Op op, int root)
{
  int n = c->n, me = c->me, pof2 = icsim_pof2_floor(n), rem = n - pof2;
  MPI_Aint ext = icsim_coll_extent(t);
  void *ablk, *gblk;
  char *acc = icsim_coll_tmp(count, t, &ablk), *got = icsim_coll_tmp(count, t, &gblk);
  icsim_coll_copy(in, count, t, acc, count, t);
  /* fold: the odd member of each of the first rem pairs hands its vector to the even one */
  if (me < 2 * rem) {
    if (me % 2) {
      icsim_coll_send(c, acc, count, t, me - 1);
    } else {
      icsim_coll_recv(c, got, count, t, me + 1);
      icsim_coll_reduce_local(got, acc, count, t, op);
    }
  }
  int newrank = fold_rank(me, rem, 0);
  int *cnts = malloc((size_t)pof2 * 2 * sizeof *cnts), *disps = cnts + pof2;
  segments(count, pof2, cnts, disps);
  int send_idx = 0, last_idx = pof2;
  if (newrank != -1)
    reduce_scatter_halving(c, acc, got, t, op, newrank, pof2, rem, 0, cnts, disps, &send_idx, &last_idx);
  /* a root that sat out takes newrank 0's place: rank 0 hands it segment 0 */
  int newroot;
  if (root < 2 * rem) {
    if (root % 2) {
      if (me == root) {
        icsim_coll_recv(c, acc, cnts[0], t, 0);
        newrank = 0;
        send_idx = 0;
        last_idx = 2;
      } else if (newrank == 0) {
        icsim_coll_send(c, acc, cnts[0], t, root);
        newrank = -1;
      }
      newroot = 0;
    } else {
      newroot = root / 2;
    }
  } else {
    newroot = root - rem;
  }
  if (newrank != -1) {
    int j = 0, mask = 1;
    while (mask < pof2) {
      mask <<= 1;
      j++;
    }
    mask >>= 1;
    j--;
    int recv_idx = 0;
    while (mask > 0) {
      int newdst = newrank ^ mask, dst = real_rank(newdst, rem, 0), send_cnt, recv_cnt;
      if (newdst == 0 && root < 2 * rem && root % 2)
        dst = root;
      int newdst_tree_root = (newdst >> j) << j, newroot_tree_root = (newroot >> j) << j;
      doubling_step(newrank < newdst, mask, pof2, cnts, send_idx, &last_idx, &recv_idx, &send_cnt, &recv_cnt);
      if (newdst_tree_root == newroot_tree_root) {
        icsim_coll_send(c, acc + (MPI_Aint)disps[send_idx] * ext, send_cnt, t, dst);
        break;
      }
      icsim_coll_recv(c, acc + (MPI_Aint)disps[recv_idx] * ext, recv_cnt, t, dst);
      if (newrank > newdst)
        send_idx = recv_idx;
      mask >>= 1;
      j--;
    }
  }
  if (me == root)
    icsim_coll_copy(acc, count, t, out, count, t);
  free(cnts);
  free(ablk);
  free(gblk);
  return MPI_SUCCESS;
}

/* Binomial tree for short vectors and user-defined ops (non-commutative ones in rank order, to
 * rank 0 then to ROOT), reduce-scatter + gather for long ones (select.c). */
int icsim_intra_reduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
                 int root)
{
  char *out = icsim_coll_addr(rbuf);
  const char *in = sbuf == MPI_IN_PLACE ? out : icsim_coll_addr(sbuf);
  if (!icsim_coll_commutative(op))
    return reduce_ordered(c, in, out, count, t, op, root);
  size_t bytes = count > 0 ? (size_t)count * icsim_coll_size(t) : 0;
  if (icsim_select_reduce(&icsim_runtime_get()->pf.mpi, bytes, count, c->n, icsim_coll_predefined_op(op)) ==
      ICSIM_REDUCE_RABENSEIFNER)
    return reduce_rabenseifner(c, in, out, count, t, op, root);
  return reduce_binomial(c, in, out, count, t, op, root);
}

/* Recursive doubling (MPICH's MPIR_Allreduce_intra for short vectors): the first 2 rem ranks fold
 * in pairs (the even one hands its vector to the odd one and waits for the result), the pof2
 * others exchange whole vectors with newrank ^ 2^k. A block from a lower rank goes on the left. */
static int allreduce_rdb(const struct icsim_coll *c, char *out, int count, MPI_Datatype t, MPI_Op op)
{
  int n = c->n, me = c->me, pof2 = icsim_pof2_floor(n), rem = n - pof2;
  void *blk;
  char *got = icsim_coll_tmp(count, t, &blk);
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      icsim_coll_send(c, out, count, t, me + 1);
    } else {
      icsim_coll_recv(c, got, count, t, me - 1);
      icsim_coll_reduce_local(got, out, count, t, op); /* lower rank on the left */
    }
  }
  int newrank = fold_rank(me, rem, 1);
  if (newrank != -1) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      int dst = real_rank(newrank ^ mask, rem, 1);
      icsim_coll_sendrecv(c, out, count, t, dst, got, count, t, dst);
      if (dst < me) {
        icsim_coll_reduce_local(got, out, count, t, op);
      } else {
        icsim_coll_reduce_local(out, got, count, t, op);
        icsim_coll_copy(got, count, t, out, count, t);
      }
    }
  }
  if (me < 2 * rem) {
    if (me % 2)
      icsim_coll_send(c, out, count, t, me - 1);
    else
      icsim_coll_recv(c, out, count, t, me + 1);
  }
  free(blk);
  return MPI_SUCCESS;
}

/* Rabenseifner (long vectors, predefined ops): the same folding, reduce-scatter by recursive
 * halving, then all-gather of the segments by recursive doubling. */
static int allreduce_rabenseifner(const struct icsim_coll *c, char *out, int count, MPI_Datatype t, MPI_Op op)
{
  int n = c->n, me = c->me, pof2 = icsim_pof2_floor(n), rem = n - pof2;
  MPI_Aint ext = icsim_coll_extent(t);
  void *blk;
  char *got = icsim_coll_tmp(count, t, &blk);
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      icsim_coll_send(c, out, count, t, me + 1);
    } else {
      icsim_coll_recv(c, got, count, t, me - 1);
      icsim_coll_reduce_local(got, out, count, t, op);
    }
  }
  int newrank = fold_rank(me, rem, 1);
  if (newrank != -1) {
    int *cnts = malloc((size_t)pof2 * 2 * sizeof *cnts), *disps = cnts + pof2;
    segments(count, pof2, cnts, disps);
    int send_idx, last_idx;
    reduce_scatter_halving(c, out, got, t, op, newrank, pof2, rem, 1, cnts, disps, &send_idx, &last_idx);
    for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
      int newdst = newrank ^ mask, dst = real_rank(newdst, rem, 1), send_cnt, recv_cnt, recv_idx;
      doubling_step(newrank < newdst, mask, pof2, cnts, send_idx, &last_idx, &recv_idx, &send_cnt, &recv_cnt);
      icsim_coll_sendrecv(c, out + (MPI_Aint)disps[send_idx] * ext, send_cnt, t, dst,
                          out + (MPI_Aint)disps[recv_idx] * ext, recv_cnt, t, dst);
      if (newrank > newdst)
        send_idx = recv_idx;
    }
    free(cnts);
  }
  if (me < 2 * rem) {
    if (me % 2)
      icsim_coll_send(c, out, count, t, me - 1);
    else
      icsim_coll_recv(c, out, count, t, me + 1);
  }
  free(blk);
  return MPI_SUCCESS;
}

int icsim_intra_allreduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op)
{
  char *out = icsim_coll_addr(rbuf);
  if (sbuf != MPI_IN_PLACE)
    icsim_coll_copy(icsim_coll_addr(sbuf), count, t, out, count, t);
  size_t bytes = count > 0 ? (size_t)count * icsim_coll_size(t) : 0;
  if (icsim_select_allreduce(&icsim_runtime_get()->pf.mpi, bytes, count, c->n, icsim_coll_predefined_op(op)) ==
      ICSIM_ALLREDUCE_RABENSEIFNER)
    return allreduce_rabenseifner(c, out, count, t, op);
  return allreduce_rdb(c, out, count, t, op);
}

/* Reduce the whole vector to rank 0, then scatter the blocks (linear scatterv): (n - 1) + the
 * number of other ranks with a non-empty block. */
int icsim_intra_reduce_scatter(const struct icsim_coll *c, const void *sbuf, void *rbuf, const int *rcounts,
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
  icsim_intra_reduce(c, in, all, total, t, op, 0);
  icsim_intra_scatterv(c, all, rcounts, displs, t, out, rcounts[me], t, 0);
  free(blk);
  free(displs);
  return MPI_SUCCESS;
}

int icsim_intra_reduce_scatter_block(const struct icsim_coll *c, const void *sbuf, void *rbuf, int rcount, MPI_Datatype t,
                               MPI_Op op)
{
  int *counts = malloc((size_t)c->n * sizeof *counts);
  for (int i = 0; i < c->n; i++)
    counts[i] = rcount;
  int rc = icsim_intra_reduce_scatter(c, sbuf, rbuf, counts, t, op);
  free(counts);
  return rc;
}

/* Recursive doubling (inclusive or exclusive prefix): in round k rank me exchanges with
 * me ^ 2^k (when it exists) the reduction of its aligned block of 2^k ranks; a block from
 * below goes on the left of both the block total and the prefix. Rank 0's exscan result is
 * left untouched (undefined in MPI). */
int icsim_intra_scan(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op,
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
