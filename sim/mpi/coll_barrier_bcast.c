/* Barrier (dissemination, as MPICH) and broadcast with MPICH 3.x's choice (select.c):
 * binomial tree for short messages or few processes, else a binomial scatter of the message in
 * n pieces followed by an all-gather of the pieces: recursive doubling when n is a power of two
 * and the message is below mpi/bcast-long-msg-size, a ring otherwise. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "runtime.h"

/* Round k: send to me + 2^k, receive from me - 2^k; ceil(log2 n) rounds of zero-byte messages. */
int icsim_intra_barrier(const struct icsim_coll *c)
{
  int n = c->n, me = c->me;
  for (int k = 1; k < n; k <<= 1)
    icsim_coll_sendrecv(c, NULL, 0, MPI_BYTE, (me + k) % n, NULL, 0, MPI_BYTE, (me - k + n) % n);
  return MPI_SUCCESS;
}

/* Binomial tree rooted at ROOT: receive from the parent (relative rank minus its lowest set
 * bit), then send to the children from the highest bit down. n - 1 messages. */
static int bcast_binomial(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int root)
{
  int n = c->n, me = c->me;
  char *b = icsim_coll_addr(buf);
  int rel = (me - root + n) % n, mask = 1;
  while (mask < n) {
    if (rel & mask) {
      icsim_coll_recv_all(c, b, count, t, (me - mask + n) % n);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n)
      icsim_coll_send(c, b, count, t, (me + mask) % n);
  return MPI_SUCCESS;
}

/* The message as NB bytes cut in n pieces of PIECE bytes (ceiling division; the last pieces
 * may be short or empty), piece i belonging to relative rank i. Bytes of pieces [from, to). */
static size_t pieces(size_t nb, size_t piece, int from, int to)
{
  size_t lo = (size_t)from * piece, hi = (size_t)to * piece;
  lo = lo < nb ? lo : nb;
  hi = hi < nb ? hi : nb;
  return hi - lo;
}

/* Binomial scatter of the pieces (MPICH's scatter_for_bcast): relative rank rel receives from its
 * parent the pieces of its subtree [rel, rel + lowbit(rel)), nothing when they are all empty, then
 * hands each child rel + m (largest m first) the pieces of the child's subtree. */
static void scatter_pieces(const struct icsim_coll *c, char *tmp, size_t nb, size_t piece, int root)
{
  int n = c->n, me = c->me, rel = (me - root + n) % n, mask = 1;
  while (mask < n) {
    if (rel & mask) {
      int end = rel + mask < n ? rel + mask : n;
      size_t len = pieces(nb, piece, rel, end);
      if (len > 0)
        icsim_coll_recv_all(c, tmp + (size_t)rel * piece, (int)len, MPI_BYTE, (me - mask + n) % n);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n) {
      int end = rel + 2 * mask < n ? rel + 2 * mask : n;
      size_t len = pieces(nb, piece, rel + mask, end);
      if (len > 0)
        icsim_coll_send(c, tmp + (size_t)(rel + mask) * piece, (int)len, MPI_BYTE, (me + mask) % n);
    }
}

/* Recursive doubling over the pieces (n a power of two): step k exchanges with relative rank
 * rel ^ 2^k the pieces of the two aligned subtrees of 2^k ranks. */
static void allgather_pieces_rdb(const struct icsim_coll *c, char *tmp, size_t nb, size_t piece, int root)
{
  int n = c->n, rel = (c->me - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    int rdst = rel ^ mask, mine = rel & ~(mask - 1), theirs = rdst & ~(mask - 1), dst = (rdst + root) % n;
    icsim_coll_sendrecv(c, tmp + pieces(nb, piece, 0, mine), (int)pieces(nb, piece, mine, mine + mask), MPI_BYTE,
                        dst, tmp + pieces(nb, piece, 0, theirs), (int)pieces(nb, piece, theirs, theirs + mask),
                        MPI_BYTE, dst);
  }
}

/* Ring over the pieces: step i sends to the right the piece received in the previous step (my own
 * first) and receives the next from the left; empty pieces still travel (zero-byte messages), as
 * in MPICH. */
static void allgather_pieces_ring(const struct icsim_coll *c, char *tmp, size_t nb, size_t piece, int root)
{
  int n = c->n, me = c->me, left = (me - 1 + n) % n, right = (me + 1) % n;
  int j = me, jnext = left;
  for (int i = 1; i < n; i++) {
    int rj = (j - root + n) % n, rnext = (jnext - root + n) % n;
    icsim_coll_sendrecv(c, tmp + pieces(nb, piece, 0, rj), (int)pieces(nb, piece, rj, rj + 1), MPI_BYTE, right,
                        tmp + pieces(nb, piece, 0, rnext), (int)pieces(nb, piece, rnext, rnext + 1), MPI_BYTE, left);
    j = jnext;
    jnext = (jnext - 1 + n) % n;
  }
}

int icsim_intra_bcast(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int root)
{
  int n = c->n;
  size_t nb = count > 0 ? (size_t)count * icsim_coll_size(t) : 0;
  enum icsim_coll_algo a = icsim_select_bcast(&icsim_runtime_get()->pf.mpi, nb, n);
  if (a == ICSIM_BCAST_BINOMIAL || nb == 0)
    return bcast_binomial(c, buf, count, t, root);
  /* the message as bytes (packed: any datatype), scattered then gathered again */
  char *b = icsim_coll_addr(buf), *tmp = malloc(nb);
  size_t piece = (nb + (size_t)n - 1) / (size_t)n;
  if (c->me == root)
    icsim_coll_pack(b, count, t, tmp);
  scatter_pieces(c, tmp, nb, piece, root);
  if (a == ICSIM_BCAST_SCATTER_RDB)
    allgather_pieces_rdb(c, tmp, nb, piece, root);
  else
    allgather_pieces_ring(c, tmp, nb, piece, root);
  if (c->me != root)
    icsim_coll_unpack(tmp, b, count, t);
  free(tmp);
  return MPI_SUCCESS;
}
