/* All-to-all, all-to-all-v and all-to-all-w, with MPICH 3.x's choice of algorithm (select.c):
 *
 *   alltoall   block <= mpi/alltoall-short-msg-size and n >= mpi/alltoall-min-procs: Bruck's
 *              algorithm, ceil(log2 n) steps each forwarding the blocks whose index has bit k set
 *              (n ceil(log2 n) messages);
 *              block <= mpi/alltoall-medium-msg-size: batches of mpi/alltoall-throttle Irecv +
 *              Isend with scattered peers (receive from me + i, send to me - i), a Waitall per
 *              batch (n (n - 1) messages);
 *              longer: pairwise exchange, n - 1 Sendrecv steps with peer me ^ i when n is a power
 *              of two, else sending to me + i and receiving from me - i; or, where the platform
 *              says its MPI does so (MVAPICH2's per-ppn tables), the batched exchange when every
 *              node holds the same number of the communicator's processes and that number is in
 *              mpi/alltoall-long-batched-{min,max}-ppn.
 *   alltoallv  the batched Isend/Irecv exchange, empty blocks skipped (MPICH's MPIR_Alltoallv_intra).
 *   alltoallw  pairwise exchange (me + i / me - i), empty blocks included.
 *   in place   (MPI_IN_PLACE as send buffer, any of the three) pairwise exchange: the blocks to send
 *              are first packed aside, since a step's receive overwrites a block a later step
 *              sends; they then go out as MPI_BYTE, the same bytes as with the user's datatype.
 *
 * A rank's own block is a local copy (no message), as in MPICH. */
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "runtime.h"

/* Block i of one side: COUNTS[i] elements of TYPES[i] at BUF + BYTE_DISPLS[i]. */
struct side {
  char *buf;
  const int *counts;
  const MPI_Aint *displs;
  const MPI_Datatype *types;
};

static size_t block_bytes(const struct side *s, int i) { return (size_t)s->counts[i] * icsim_coll_size(s->types[i]); }

/* Pack every block but mine of an in-place exchange. Returns the packed copy; OFF[i] and LEN[i]
 * locate block i in it. */
static char *pack_aside(const struct icsim_coll *c, const struct side *r, size_t *off, int *len)
{
  size_t total = 0;
  for (int i = 0; i < c->n; i++) {
    off[i] = total;
    len[i] = i == c->me ? 0 : (int)block_bytes(r, i);
    total += (size_t)len[i];
  }
  char *aside = malloc(total + 1);
  for (int i = 0; i < c->n; i++)
    if (i != c->me)
      icsim_coll_pack(r->buf + r->displs[i], r->counts[i], r->types[i], aside + off[i]);
  return aside;
}

/* Pairwise exchange: step i (1 <= i < n) with peer me ^ i when XOR, else sending to me + i and
 * receiving from me - i. In place when S is NULL. */
static int pairwise(const struct icsim_coll *c, const struct side *s, const struct side *r, int xor)
{
  int n = c->n, me = c->me;
  if (!s) {
    size_t *off = malloc((size_t)n * sizeof *off);
    int *len = malloc((size_t)n * sizeof *len);
    char *aside = pack_aside(c, r, off, len);
    for (int i = 1; i < n; i++) {
      int dst = (me + i) % n, src = (me - i + n) % n;
      icsim_coll_sendrecv(c, aside + off[dst], len[dst], MPI_BYTE, dst, r->buf + r->displs[src], r->counts[src],
                          r->types[src], src);
    }
    free(aside);
    free(off);
    free(len);
    return MPI_SUCCESS;
  }
  icsim_coll_copy(s->buf + s->displs[me], s->counts[me], s->types[me], r->buf + r->displs[me], r->counts[me],
                  r->types[me]);
  for (int i = 1; i < n; i++) {
    int dst = xor ? me ^ i : (me + i) % n, src = xor ? dst : (me - i + n) % n;
    icsim_coll_sendrecv(c, s->buf + s->displs[dst], s->counts[dst], s->types[dst], dst, r->buf + r->displs[src],
                        r->counts[src], r->types[src], src);
  }
  return MPI_SUCCESS;
}

/* Batches of THROTTLE (0: all) peers: receives from me + i + ii, sends to me - i - ii, then one
 * Waitall; my own block is copied. SKIP_EMPTY: no message for an empty block (alltoallv). */
static int batched(const struct icsim_coll *c, const struct side *s, const struct side *r, int throttle,
                   int skip_empty)
{
  int n = c->n, me = c->me;
  int bb = throttle <= 0 || throttle > n ? n : throttle;
  icsim_coll_copy(s->buf + s->displs[me], s->counts[me], s->types[me], r->buf + r->displs[me], r->counts[me],
                  r->types[me]);
  MPI_Request *reqs = malloc((size_t)2 * bb * sizeof *reqs);
  for (int ii = 0; ii < n; ii += bb) {
    int ss = n - ii < bb ? n - ii : bb, k = 0;
    for (int i = 0; i < ss; i++) {
      int src = (me + i + ii) % n;
      if (src != me && !(skip_empty && block_bytes(r, src) == 0))
        icsim_coll_irecv(c, r->buf + r->displs[src], r->counts[src], r->types[src], src, &reqs[k++]);
    }
    for (int i = 0; i < ss; i++) {
      int dst = (me - i - ii + n) % n;
      if (dst != me && !(skip_empty && block_bytes(s, dst) == 0))
        icsim_coll_isend(c, s->buf + s->displs[dst], s->counts[dst], s->types[dst], dst, &reqs[k++]);
    }
    icsim_coll_waitall(k, reqs);
  }
  free(reqs);
  return MPI_SUCCESS;
}

/* Bruck et al. (IEEE TPDS 1997), as MPICH's MPIR_Alltoall_intra does it for short blocks: on
 * contiguous bytes, block i of the work buffer is first the block for me + i; step k sends the
 * blocks whose index has bit k set to me + 2^k (receiving the same positions from me - 2^k);
 * at the end block i holds the block from me - i. */
static int bruck(const struct icsim_coll *c, const char *in, int scount, MPI_Datatype stype, char *out, int rcount,
                 MPI_Datatype rtype)
{
  int n = c->n, me = c->me;
  size_t blk = (size_t)rcount * icsim_coll_size(rtype);
  MPI_Aint sext = icsim_coll_extent(stype), rext = icsim_coll_extent(rtype);
  char *work = malloc((size_t)n * blk + 1), *pack = malloc((size_t)n * blk + 1), *got = malloc((size_t)n * blk + 1);
  for (int i = 0; i < n; i++)
    icsim_coll_pack(in + (MPI_Aint)((me + i) % n) * scount * sext, scount, stype, work + (size_t)i * blk);
  for (int pof2 = 1; pof2 < n; pof2 <<= 1) {
    size_t len = 0;
    for (int i = 1; i < n; i++)
      if (i & pof2) {
        memcpy(pack + len, work + (size_t)i * blk, blk);
        len += blk;
      }
    icsim_coll_sendrecv(c, pack, (int)len, MPI_BYTE, (me + pof2) % n, got, (int)len, MPI_BYTE, (me - pof2 + n) % n);
    len = 0;
    for (int i = 1; i < n; i++)
      if (i & pof2) {
        memcpy(work + (size_t)i * blk, got + len, blk);
        len += blk;
      }
  }
  for (int i = 0; i < n; i++)
    icsim_coll_unpack(work + (size_t)i * blk, out + (MPI_Aint)((me - i + n) % n) * rcount * rext, rcount, rtype);
  free(work);
  free(pack);
  free(got);
  return MPI_SUCCESS;
}

/* Per-rank arrays of one side from element counts/displacements and one datatype. */
struct blocks {
  MPI_Aint *d;
  MPI_Datatype *t;
  int *counts;
};

static struct side side_of(struct blocks *b, int n, const void *buf, const int *counts, const int *displs,
                           MPI_Datatype type, int uniform_count)
{
  b->d = malloc((size_t)n * sizeof *b->d);
  b->t = malloc((size_t)n * sizeof *b->t);
  b->counts = NULL;
  if (!counts) {
    b->counts = malloc((size_t)n * sizeof *b->counts);
    for (int i = 0; i < n; i++)
      b->counts[i] = uniform_count;
    counts = b->counts;
  }
  MPI_Aint ext = icsim_coll_extent(type);
  for (int i = 0; i < n; i++) {
    b->d[i] = (MPI_Aint)(displs ? displs[i] : i * uniform_count) * ext;
    b->t[i] = type;
  }
  return (struct side){icsim_coll_addr(buf), counts, b->d, b->t};
}

static void blocks_free(struct blocks *b)
{
  free(b->d);
  free(b->t);
  free(b->counts);
}

static const struct icsim_mpi_select *selection(void) { return &icsim_runtime_get()->pf.mpi; }

static int by_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* Processes of C's communicator on each node it spans, when every such node holds the same number
 * (MVAPICH2's "uniform" communicator), else 0. Asked only for long blocks, on a platform whose
 * selection depends on it. */
static int uniform_ppn(const struct icsim_coll *c)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int n = c->n;
  int *mine = malloc((size_t)n * 2 * sizeof *mine), *world = mine + n;
  MPI_Group g, wg;
  PMPI_Comm_group(c->comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  for (int i = 0; i < n; i++)
    mine[i] = i;
  PMPI_Group_translate_ranks(g, n, mine, wg, world);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  for (int i = 0; i < n; i++)
    world[i] = world[i] == MPI_UNDEFINED ? -1 : rt->rank_host[world[i]] / rt->pf.p.sockets;
  qsort(world, (size_t)n, sizeof *world, by_int);
  int ppn = 0, run = 1;
  for (int i = 1; i <= n; i++) {
    if (i < n && world[i] == world[i - 1]) {
      run++;
      continue;
    }
    if (ppn && run != ppn) {
      ppn = 0;
      break;
    }
    ppn = run;
    run = 1;
  }
  free(mine);
  return ppn;
}

int icsim_intra_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype)
{
  struct blocks sb, rb;
  struct side r = side_of(&rb, c->n, rbuf, rcounts, rdispls, rtype, 0);
  int rc;
  if (sbuf == MPI_IN_PLACE) {
    rc = pairwise(c, NULL, &r, 0);
  } else {
    struct side s = side_of(&sb, c->n, sbuf, scounts, sdispls, stype, 0);
    rc = batched(c, &s, &r, selection()->alltoall_throttle, 1);
    blocks_free(&sb);
  }
  blocks_free(&rb);
  return rc;
}

int icsim_intra_alltoall(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   int rcount, MPI_Datatype rtype)
{
  int n = c->n;
  struct blocks sb, rb;
  struct side r = side_of(&rb, n, rbuf, NULL, NULL, rtype, rcount);
  int rc;
  if (sbuf == MPI_IN_PLACE) {
    rc = pairwise(c, NULL, &r, 0);
    blocks_free(&rb);
    return rc;
  }
  struct side s = side_of(&sb, n, sbuf, NULL, NULL, stype, scount);
  const struct icsim_mpi_select *sel = selection();
  size_t block = (size_t)scount * icsim_coll_size(stype);
  int ppn = block > sel->alltoall_medium_B && sel->alltoall_long_batched_min_ppn > 0 ? uniform_ppn(c) : 0;
  switch (icsim_select_alltoall_ppn(sel, block, n, ppn)) {
  case ICSIM_ALLTOALL_BRUCK: rc = bruck(c, s.buf, scount, stype, r.buf, rcount, rtype); break;
  case ICSIM_ALLTOALL_ISEND_IRECV: rc = batched(c, &s, &r, sel->alltoall_throttle, 0); break;
  default: rc = pairwise(c, &s, &r, (n & (n - 1)) == 0); break;
  }
  blocks_free(&sb);
  blocks_free(&rb);
  return rc;
}

int icsim_intra_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                    const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const int *rdispls,
                    const MPI_Datatype *rtypes)
{
  int n = c->n;
  MPI_Aint *sd = malloc((size_t)n * 2 * sizeof *sd), *rd = sd + n;
  for (int i = 0; i < n; i++) {
    sd[i] = sbuf == MPI_IN_PLACE ? 0 : sdispls[i];
    rd[i] = rdispls[i];
  }
  struct side r = {icsim_coll_addr(rbuf), rcounts, rd, rtypes};
  struct side s = {sbuf == MPI_IN_PLACE ? NULL : icsim_coll_addr(sbuf), scounts, sd, stypes};
  int err = pairwise(c, sbuf == MPI_IN_PLACE ? NULL : &s, &r, 0);
  free(sd);
  return err;
}
