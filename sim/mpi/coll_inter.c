/* Collectives on an intercommunicator (MPI 3.1, 5.2.2), with MPICH's algorithms for them
 * (its src/mpi/coll files named *_inter_*): a group's data is combined inside the group on its own
 * intracommunicator with the layer's algorithms (a gather or a reduction to its rank 0), crosses
 * to the other group between the two leaders, and is spread there by a broadcast or a scatter;
 * the -v and all-to-all forms, whose blocks differ per peer, go straight from each process to each
 * process of the other group. Every message is the layer's point-to-point, so it pays the stacks'
 * costs; the crossing ones travel on the shadow of the union communicator (intercomm.c), with the
 * operation's own tag like any collective's.
 *
 * Roots: the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL (they take no part), the
 * other group the root's rank in the root's group. Not defined on intercommunicators, and so
 * returned as MPI_ERR_COMM: MPI_Scan and MPI_Exscan. The non-blocking forms complete at the call,
 * like every non-blocking collective of the layer (coll_nonblocking.c). */
#include <stdlib.h>
#include <string.h>

#include "coll.h"

/* The union rank of rank I of the remote group. */
static int remote(const struct icsim_coll *c, int i) { return c->inter.rbase + i; }

static int leader(const struct icsim_coll *c) { return c->inter.lrank == 0; }

/* Room for COUNT elements of T at the leader only (the others pass NULL to the root-only
 * argument of a gather or a reduction). */
static char *leader_tmp(const struct icsim_coll *c, int count, MPI_Datatype t, void **block)
{
  *block = NULL;
  return leader(c) ? icsim_coll_tmp(count, t, block) : NULL;
}

int icsim_inter_check_root(const struct icsim_coll *c, int root)
{
  return root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->inter.rsize) ? MPI_SUCCESS
                                                                                           : MPI_ERR_ROOT;
}

/* Every process of both groups has entered before any leaves: each group meets on its own, the
 * leaders cross, and each group meets again. */
int icsim_inter_barrier(const struct icsim_coll *c)
{
  struct icsim_coll l;
  icsim_coll_local(c, &l);
  icsim_intra_barrier(&l);
  if (leader(c))
    icsim_coll_sendrecv(c, NULL, 0, MPI_BYTE, remote(c, 0), NULL, 0, MPI_BYTE, remote(c, 0));
  return icsim_intra_barrier(&l);
}

/* The root sends to the other group's leader, which broadcasts in its group. */
int icsim_inter_bcast(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int root)
{
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root == MPI_ROOT)
    return icsim_coll_send(c, icsim_coll_addr(buf), count, t, remote(c, 0));
  struct icsim_coll l;
  icsim_coll_local(c, &l);
  if (leader(c))
    icsim_coll_recv(c, icsim_coll_addr(buf), count, t, remote(c, root));
  return icsim_intra_bcast(&l, buf, count, t, 0);
}

/* The sending group reduces to its leader, which sends the result to the root. */
int icsim_inter_reduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t,
                       MPI_Op op, int root)
{
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root == MPI_ROOT)
    return icsim_coll_recv(c, icsim_coll_addr(rbuf), count, t, remote(c, 0));
  struct icsim_coll l;
  icsim_coll_local(c, &l);
  void *block;
  char *tmp = leader_tmp(c, count, t, &block);
  icsim_intra_reduce(&l, sbuf, tmp, count, t, op, 0);
  if (leader(c))
    icsim_coll_send(c, tmp, count, t, remote(c, root));
  free(block);
  return MPI_SUCCESS;
}

/* Each group reduces to its leader, the leaders swap, and each broadcasts the other group's result. */
int icsim_inter_allreduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t,
                          MPI_Op op)
{
  struct icsim_coll l;
  icsim_coll_local(c, &l);
  void *block;
  char *tmp = leader_tmp(c, count, t, &block);
  icsim_intra_reduce(&l, sbuf, tmp, count, t, op, 0);
  if (leader(c))
    icsim_coll_sendrecv(c, tmp, count, t, remote(c, 0), icsim_coll_addr(rbuf), count, t, remote(c, 0));
  free(block);
  return icsim_intra_bcast(&l, rbuf, count, t, 0);
}

/* The reduction of one group's vectors is scattered over the other group (RCOUNTS, or RCOUNT each
 * when RCOUNTS is NULL: the _block form); both groups' vectors have the same length, the sum of
 * their own group's counts. Each group reduces to its leader, the leaders swap, each scatters. */
int icsim_inter_reduce_scatter(const struct icsim_coll *c, const void *sbuf, void *rbuf, const int *rcounts,
                               int rcount, MPI_Datatype t, MPI_Op op)
{
  int n = c->inter.lsize;
  int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n), total = 0;
  for (int i = 0; i < n; i++) {
    counts[i] = rcounts ? rcounts[i] : rcount;
    displs[i] = total;
    total += counts[i];
  }
  struct icsim_coll l;
  icsim_coll_local(c, &l);
  void *b1, *b2;
  char *mine = leader_tmp(c, total, t, &b1), *theirs = leader_tmp(c, total, t, &b2);
  icsim_intra_reduce(&l, sbuf, mine, total, t, op, 0);
  if (leader(c))
    icsim_coll_sendrecv(c, mine, total, t, remote(c, 0), theirs, total, t, remote(c, 0));
  icsim_intra_scatterv(&l, theirs, counts, displs, t, rbuf, counts[c->inter.lrank], t, 0);
  free(b1);
  free(b2);
  free(counts);
  free(displs);
  return MPI_SUCCESS;
}

/* Gather (GATHER) and scatter, the same path in opposite directions: the root receives from (or
 * sends to) the other group's leader the whole (ROOTCOUNT x the other group's size of ROOTTYPE at
 * ROOTBUF), which that group gathers to (scatters from) its leader, MYCOUNT of MYTYPE at MYBUF a
 * process. */
static int through_leaders(const struct icsim_coll *c, int gather, int root, void *rootbuf, int rootcount,
                           MPI_Datatype roottype, void *mybuf, int mycount, MPI_Datatype mytype)
{
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root == MPI_ROOT) {
    char *b = icsim_coll_addr(rootbuf);
    int n = rootcount * c->inter.rsize;
    return gather ? icsim_coll_recv(c, b, n, roottype, remote(c, 0)) : icsim_coll_send(c, b, n, roottype, remote(c, 0));
  }
  struct icsim_coll l;
  icsim_coll_local(c, &l);
  int all = mycount * c->inter.lsize;
  void *block;
  char *tmp = leader_tmp(c, all, mytype, &block);
  if (gather) {
    icsim_intra_gather(&l, mybuf, mycount, mytype, tmp, mycount, mytype, 0);
    if (leader(c))
      icsim_coll_send(c, tmp, all, mytype, remote(c, root));
  } else {
    if (leader(c))
      icsim_coll_recv(c, tmp, all, mytype, remote(c, root));
    icsim_intra_scatter(&l, tmp, mycount, mytype, mybuf, mycount, mytype, 0);
  }
  free(block);
  return MPI_SUCCESS;
}

int icsim_inter_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, int root)
{
  return through_leaders(c, 1, root, rbuf, rcount, rtype, (void *)sbuf, scount, stype);
}

int icsim_inter_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int root)
{
  return through_leaders(c, 0, root, (void *)sbuf, scount, stype, rbuf, rcount, rtype);
}

/* The root receives each process's block straight from it: an all-to-all of the root's receives. */
int icsim_inter_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rtype, int root)
{
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root != MPI_ROOT)
    return icsim_coll_send(c, icsim_coll_addr(sbuf), scount, stype, remote(c, root));
  return icsim_inter_alltoallv(c, NULL, NULL, NULL, 0, 0, rtype, rbuf, rcounts, displs, 0, rtype);
}

/* The root sends each process its block: an all-to-all of the root's sends. */
int icsim_inter_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *displs,
                         MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root)
{
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root != MPI_ROOT)
    return icsim_coll_recv(c, icsim_coll_addr(rbuf), rcount, rtype, remote(c, root));
  return icsim_inter_alltoallv(c, sbuf, scounts, displs, 0, 0, stype, NULL, NULL, NULL, 0, stype);
}

/* Each group gathers to its leader, the leaders swap the wholes, each broadcasts the other's. */
int icsim_inter_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype)
{
  struct icsim_coll l;
  icsim_coll_local(c, &l);
  int mine = scount * c->inter.lsize, theirs = rcount * c->inter.rsize;
  void *block;
  char *tmp = leader_tmp(c, mine, stype, &block);
  icsim_intra_gather(&l, sbuf, scount, stype, tmp, scount, stype, 0);
  if (leader(c))
    icsim_coll_sendrecv(c, tmp, mine, stype, remote(c, 0), icsim_coll_addr(rbuf), theirs, rtype, remote(c, 0));
  free(block);
  return icsim_intra_bcast(&l, rbuf, theirs, rtype, 0);
}

/* Each process sends its one block to every process of the other group and receives theirs. */
int icsim_inter_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           const int *rcounts, const int *displs, MPI_Datatype rtype)
{
  return icsim_inter_alltoallv(c, sbuf, NULL, NULL, scount, 0, stype, rbuf, rcounts, displs, 0, rtype);
}

int icsim_inter_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts, const MPI_Aint *sdispls,
                          const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const MPI_Aint *rdispls,
                          const MPI_Datatype *rtypes)
{
  int n = c->inter.rsize, k = 0;
  MPI_Request *req = malloc(sizeof *req * (size_t)(2 * n + 1));
  for (int i = 0; i < n; i++) {
    if (rcounts[i] > 0)
      icsim_coll_irecv(c, icsim_coll_addr(rbuf) + rdispls[i], rcounts[i], rtypes[i], remote(c, i), &req[k++]);
    if (scounts[i] > 0)
      icsim_coll_isend(c, icsim_coll_addr(sbuf) + sdispls[i], scounts[i], stypes[i], remote(c, i), &req[k++]);
  }
  icsim_coll_waitall(k, req);
  free(req);
  return MPI_SUCCESS;
}

/* Per-peer counts and displacements in elements as the -w form: MPI_Alltoallv, and the others
 * above. SCOUNTS NULL: SCOUNT to each peer, its block SSTEP elements after the previous one (SCOUNT
 * for MPI_Alltoall, 0 for one block to all, SCOUNT 0 for no sends); RCOUNTS NULL: RCOUNT from each,
 * in order. */
int icsim_inter_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                          int scount, int sstep, MPI_Datatype stype, void *rbuf, const int *rcounts,
                          const int *rdispls, int rcount, MPI_Datatype rtype)
{
  int n = c->inter.rsize;
  size_t m = (size_t)(n ? n : 1);
  int *sc = malloc(sizeof(int) * 2 * m), *rc = sc + m;
  MPI_Aint *sd = malloc(sizeof(MPI_Aint) * 2 * m), *rd = sd + m, sext = icsim_coll_extent(stype),
           rext = icsim_coll_extent(rtype);
  MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * 2 * m), *rt = st + m;
  for (int i = 0; i < n; i++) {
    sc[i] = scounts ? scounts[i] : scount;
    rc[i] = rcounts ? rcounts[i] : rcount;
    sd[i] = (MPI_Aint)(scounts ? sdispls[i] : i * sstep) * sext;
    rd[i] = (MPI_Aint)(rcounts ? rdispls[i] : i * rcount) * rext;
    st[i] = stype;
    rt[i] = rtype;
  }
  int err = icsim_inter_alltoallw(c, sbuf, sc, sd, st, rbuf, rc, rd, rt);
  free(sc);
  free(sd);
  free(st);
  return err;
}
