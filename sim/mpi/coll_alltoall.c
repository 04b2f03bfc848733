/* All-to-all, all-to-all-v and all-to-all-w: pairwise exchange, round i (1 <= i < n) sending to
 * me + i and receiving from me - i, n (n - 1) messages, empty blocks included. This is the
 * sequence the validation figures (all-to-all rows, NPB IS/FT) were produced with.
 *
 * In place (MPI_IN_PLACE as send buffer) the blocks to send are first packed aside, since a
 * round's receive overwrites a block that a later round sends; they then go out as MPI_BYTE,
 * the same bytes as with the user's datatype. */
#include <stdlib.h>

#include "coll.h"

/* Pack every block but mine of an in-place exchange: block i is COUNTS[i] elements of TYPES[i]
 * at RBUF + BYTE_DISPLS[i]. Returns the packed copy; OFF[i] and LEN[i] locate block i in it. */
static char *pack_aside(const struct icsim_coll *c, const char *rbuf, const int *counts, const MPI_Aint *byte_displs,
                        const MPI_Datatype *types, size_t *off, int *len)
{
  size_t total = 0;
  for (int i = 0; i < c->n; i++) {
    off[i] = total;
    len[i] = i == c->me ? 0 : (int)((size_t)counts[i] * icsim_coll_size(types[i]));
    total += (size_t)len[i];
  }
  char *aside = malloc(total + 1);
  for (int i = 0; i < c->n; i++)
    if (i != c->me)
      icsim_coll_pack(rbuf + byte_displs[i], counts[i], types[i], aside + off[i]);
  return aside;
}

/* The one exchange behind all three: block i of the send side is SCOUNTS[i] elements of
 * STYPES[i] at SBUF + SDISPLS[i] (bytes), likewise for the receive side. */
static int exchange(const struct icsim_coll *c, const void *sbuf, const int *scounts, const MPI_Aint *sdispls,
                    const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const MPI_Aint *rdispls,
                    const MPI_Datatype *rtypes)
{
  int n = c->n, me = c->me;
  char *out = icsim_coll_addr(rbuf);
  if (sbuf == MPI_IN_PLACE) {
    size_t *off = malloc((size_t)n * sizeof *off);
    int *len = malloc((size_t)n * sizeof *len);
    char *aside = pack_aside(c, out, rcounts, rdispls, rtypes, off, len);
    for (int i = 1; i < n; i++) {
      int dst = (me + i) % n, src = (me - i + n) % n;
      icsim_coll_sendrecv(c, aside + off[dst], len[dst], MPI_BYTE, dst, out + rdispls[src], rcounts[src], rtypes[src],
                          src);
    }
    free(aside);
    free(off);
    free(len);
    return MPI_SUCCESS;
  }
  const char *in = icsim_coll_addr(sbuf);
  icsim_coll_copy(in + sdispls[me], scounts[me], stypes[me], out + rdispls[me], rcounts[me], rtypes[me]);
  for (int i = 1; i < n; i++) {
    int dst = (me + i) % n, src = (me - i + n) % n;
    icsim_coll_sendrecv(c, in + sdispls[dst], scounts[dst], stypes[dst], dst, out + rdispls[src], rcounts[src],
                        rtypes[src], src);
  }
  return MPI_SUCCESS;
}

/* Per-rank arrays for the exchange, from element displacements and one datatype per side. */
struct blocks {
  MPI_Aint *sd, *rd;
  MPI_Datatype *st, *rt;
};

static void blocks_init(struct blocks *b, int n, const int *sdispls, MPI_Datatype stype, const int *rdispls,
                        MPI_Datatype rtype)
{
  b->sd = malloc((size_t)n * 2 * sizeof *b->sd);
  b->rd = b->sd + n;
  b->st = malloc((size_t)n * 2 * sizeof *b->st);
  b->rt = b->st + n;
  MPI_Aint sext = sdispls ? icsim_coll_extent(stype) : 0, rext = icsim_coll_extent(rtype);
  for (int i = 0; i < n; i++) {
    b->sd[i] = sdispls ? (MPI_Aint)sdispls[i] * sext : 0;
    b->rd[i] = (MPI_Aint)rdispls[i] * rext;
    b->st[i] = stype;
    b->rt[i] = rtype;
  }
}

static void blocks_free(struct blocks *b)
{
  free(b->sd);
  free(b->st);
}

int icsim_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype)
{
  struct blocks b;
  int inplace = sbuf == MPI_IN_PLACE;
  blocks_init(&b, c->n, inplace ? NULL : sdispls, stype, rdispls, rtype);
  int rc = exchange(c, sbuf, scounts, b.sd, b.st, rbuf, rcounts, b.rd, b.rt);
  blocks_free(&b);
  return rc;
}

int icsim_alltoall(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   int rcount, MPI_Datatype rtype)
{
  int n = c->n;
  int *sc = malloc((size_t)n * 4 * sizeof *sc), *sd = sc + n, *rc = sc + 2 * n, *rd = sc + 3 * n;
  for (int i = 0; i < n; i++) {
    sc[i] = scount;
    sd[i] = i * scount;
    rc[i] = rcount;
    rd[i] = i * rcount;
  }
  int err = icsim_alltoallv(c, sbuf, sc, sd, stype, rbuf, rc, rd, rtype);
  free(sc);
  return err;
}

int icsim_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                    const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const int *rdispls,
                    const MPI_Datatype *rtypes)
{
  int n = c->n;
  MPI_Aint *sd = malloc((size_t)n * 2 * sizeof *sd), *rd = sd + n;
  for (int i = 0; i < n; i++) {
    sd[i] = sbuf == MPI_IN_PLACE ? 0 : sdispls[i];
    rd[i] = rdispls[i];
  }
  int err = exchange(c, sbuf, scounts, sd, stypes, rbuf, rcounts, rd, rtypes);
  free(sd);
  return err;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Alltoall", comm, 0, &c))
    return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  return icsim_alltoall(&c, sbuf, scount, stype, rbuf, rcount, rtype);
}

int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
                  const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Alltoallv", comm, 0, &c))
    return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
  return icsim_alltoallv(&c, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype);
}

int MPI_Alltoallw(const void *sbuf, const int *scounts, const int *sdispls, const MPI_Datatype *stypes, void *rbuf,
                  const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm)
{
  struct icsim_coll c;
  if (!icsim_coll_enter("MPI_Alltoallw", comm, 0, &c))
    return PMPI_Alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm);
  return icsim_alltoallw(&c, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes);
}
