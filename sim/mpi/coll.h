/* Collectives of the MPI layer, built from the layer's public point-to-point calls (MPI_Send,
 * MPI_Recv, MPI_Sendrecv, MPI_Isend, MPI_Irecv, MPI_Waitall) so that every message of a
 * collective pays the stack's per-message costs like any other. Internal to libicsim_mpi.
 *
 * Files, calls running down this list only: coll_persistent.c and coll_nonblocking.c (the
 * MPI_*_init and MPI_I* forms), coll_entry.c (the blocking entry points; each collective on any
 * communicator), coll_inter.c (on intercommunicators), one file per family of intracommunicator
 * algorithms: coll_alltoall.c (alltoall(v,w)), coll_reduce.c (reduce, allreduce,
 * reduce_scatter(_block), scan, exscan), coll_gather.c (gather(v), scatter(v), allgather(v)),
 * coll_barrier_bcast.c; then coll_check.c (argument checks) and coll_comm.c (shadow
 * communicators, entry, datatype and buffer helpers). coll_neighbor.c uses coll_comm.c only.
 *
 * Each public entry point is `if (!icsim_coll_enter(...)) return PMPI_X(...);` followed by the
 * algorithm below, which runs on the shadow communicator in C. The algorithms take the user's
 * arguments unchanged (MPI_IN_PLACE and MPI_BOTTOM included) and resolve them themselves, so the
 * blocking and the non-blocking forms share them. */
#ifndef ICSIM_MPI_COLL_H
#define ICSIM_MPI_COLL_H

#include <mpi.h>
#include <stddef.h>
#include "comm_record.h" /* struct icsim_inter */
#include "layer.h"       /* icsim_error, icsim_type_valid */

#define ICSIM_HIDDEN __attribute__((visibility("hidden")))

/* Every collective the layer runs, listed once: an upper-case id and the name after "MPI_". The
 * order gives each its tag (ICSIM_COLL_TAG + its place: coll_comm.c), so a collective is added at
 * the end. Users: the tags, the persistent collectives' kinds (coll_persistent.c). */
#define ICSIM_COLLECTIVES(X)                                                                                       \
  X(BARRIER, Barrier) X(BCAST, Bcast) X(GATHER, Gather) X(GATHERV, Gatherv) X(SCATTER, Scatter)                    \
  X(SCATTERV, Scatterv) X(ALLGATHER, Allgather) X(ALLGATHERV, Allgatherv) X(ALLTOALL, Alltoall)                    \
  X(ALLTOALLV, Alltoallv) X(ALLTOALLW, Alltoallw) X(REDUCE, Reduce) X(ALLREDUCE, Allreduce)                        \
  X(REDUCE_SCATTER, Reduce_scatter) X(REDUCE_SCATTER_BLOCK, Reduce_scatter_block) X(SCAN, Scan) X(EXSCAN, Exscan)

#define ICSIM_COLL_ENUM(ID, NAME) ICSIM_COLL_##ID,
enum icsim_coll_kind { ICSIM_COLLECTIVES(ICSIM_COLL_ENUM) };
#undef ICSIM_COLL_ENUM

/* The one tag of collective traffic; it only ever travels on shadow communicators. */
#define ICSIM_COLL_TAG 7

struct icsim_coll {
  MPI_Comm comm; /* the shadow (or, for a one-rank communicator, the user's: nothing is sent) */
  int n, me;     /* of COMM: for an intercommunicator, the union's */
  int is_inter;  /* an intercommunicator: INTER holds its groups (the traffic between them runs on
                  * the shadow of its union, the steps inside a group on INTER.local's shadow) */
  struct icsim_inter inter;
  int tag; /* the operation's own (ICSIM_COLL_TAG + its place in coll_comm.c's list), as MPICH gives
            * each collective a tag: a message an erroneous call left behind (counts that disagree)
            * cannot match a later collective of another kind */
};

/* Entry of every collective. Returns 0 when the call must go to SMPI's PMPI_* (outside icsim,
 * or MPI_COMM_NULL so that SMPI reports the error); otherwise fills C: the blocking shadow of
 * COMM, or its separate non-blocking shadow when NONBLOCKING; for one of the layer's
 * intercommunicators, the shadow of its union and its groups (C->is_inter). */
ICSIM_HIDDEN int icsim_coll_enter(const char *call, MPI_Comm comm, int nonblocking, struct icsim_coll *c);
/* icsim_coll_enter in two steps, for calls that check their arguments in between: PEEK fills C
 * but its communicator (C->comm is COMM), SHADOW then sets the shadow (making it on first use,
 * a collective step). */
ICSIM_HIDDEN int icsim_coll_peek(const char *call, MPI_Comm comm, struct icsim_coll *c);
ICSIM_HIDDEN void icsim_coll_shadow(struct icsim_coll *c, MPI_Comm comm, int nonblocking);
/* A check's result the collective still runs after: MPI_ERR_TRUNCATE (counts that disagree between
 * ranks, seen at the root) is returned once the algorithm has run, as MPICH finds it while
 * communicating, so that the other ranks are not left waiting; any other error returns at once. */
static inline int icsim_coll_runs(int check) { return check == MPI_SUCCESS || check == MPI_ERR_TRUNCATE; }
static inline int icsim_coll_merge(int check, int ran) { return ran != MPI_SUCCESS ? ran : check; }
/* coll_check.c: the arguments' checks SMPI's own collectives make (MPI_SUCCESS or the error
 * class), before any message. Scan also checks MPI_Exscan and MPI_Reduce_scatter_block. */
ICSIM_HIDDEN int icsim_check_bcast(const struct icsim_coll *c, const void *buf, int count, MPI_Datatype t, int root);
ICSIM_HIDDEN int icsim_check_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                    const void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_check_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                     const void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype,
                                     int root);
ICSIM_HIDDEN int icsim_check_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                     const void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_check_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts,
                                      const int *displs, MPI_Datatype stype, const void *rbuf, int rcount,
                                      MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_check_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                       const void *rbuf, int rcount, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_check_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                        const void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_check_alltoall(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                      const void *rbuf, int rcount, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_check_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts,
                                       const int *sdispls, MPI_Datatype stype, const void *rbuf, const int *rcounts,
                                       const int *rdispls, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_check_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts,
                                       const int *sdispls, const MPI_Datatype *stypes, const void *rbuf,
                                       const int *rcounts, const int *rdispls, const MPI_Datatype *rtypes);
ICSIM_HIDDEN int icsim_check_reduce(const struct icsim_coll *c, const void *sbuf, const void *rbuf, int count,
                                    MPI_Datatype t, MPI_Op op, int root);
ICSIM_HIDDEN int icsim_check_allreduce(const struct icsim_coll *c, const void *sbuf, const void *rbuf, int count,
                                       MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_check_scan(const struct icsim_coll *c, const void *sbuf, const void *rbuf, int count,
                                  MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_check_reduce_scatter(const struct icsim_coll *c, const void *sbuf, const void *rbuf,
                                            const int *rcounts, MPI_Datatype t, MPI_Op op);
/* MPI_Reduce_local's (no communicator): operands not MPI_IN_PLACE, distinct. */
ICSIM_HIDDEN int icsim_check_reduce_local(const void *in, const void *inout, int count, MPI_Datatype t, MPI_Op op);
/* A request that is already complete, for the non-blocking forms (see coll_nonblocking.c). */
ICSIM_HIDDEN int icsim_coll_done_request(MPI_Request *req);

/* Point-to-point on the shadow through the layer's public calls, with the collective tag.
 * Buffers are addresses (see icsim_coll_addr); a NULL address holding data goes to SMPI as
 * MPI_BOTTOM. */
ICSIM_HIDDEN int icsim_coll_send(const struct icsim_coll *c, const void *buf, int count, MPI_Datatype t, int dst);
ICSIM_HIDDEN int icsim_coll_recv(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int src);
/* The same, failing (MPI_ERR_OTHER) when fewer bytes arrive than the buffer holds (broadcast). */
ICSIM_HIDDEN int icsim_coll_recv_all(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int src);
ICSIM_HIDDEN int icsim_coll_sendrecv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                     int dst, void *rbuf, int rcount, MPI_Datatype rtype, int src);
ICSIM_HIDDEN int icsim_coll_isend(const struct icsim_coll *c, const void *buf, int count, MPI_Datatype t, int dst,
                                  MPI_Request *req);
ICSIM_HIDDEN int icsim_coll_irecv(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int src,
                                  MPI_Request *req);
ICSIM_HIDDEN int icsim_coll_waitall(int n, MPI_Request *reqs);
/* What a collective returns: RC (the algorithm's) or else the first error of its messages. */
ICSIM_HIDDEN int icsim_coll_result(int rc);

/* Buffers and datatypes, all local (no message, nothing through SMPI's network). */
/* A user buffer as an address: MPI_BOTTOM is address 0 (absolute displacements). */
ICSIM_HIDDEN char *icsim_coll_addr(const void *buf);
ICSIM_HIDDEN MPI_Aint icsim_coll_extent(MPI_Datatype t);
ICSIM_HIDDEN size_t icsim_coll_size(MPI_Datatype t); /* bytes of data in one element */
/* Scratch room for COUNT elements of T laid out as in a user buffer (true extent, shifted by the
 * true lower bound): returns the buffer to address, *BLOCK the allocation to free(). */
ICSIM_HIDDEN char *icsim_coll_tmp(int count, MPI_Datatype t, void **block);
/* DST (RCOUNT of RTYPE) <- SRC (SCOUNT of STYPE): memmove for plain data, else pack/unpack. */
ICSIM_HIDDEN void icsim_coll_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount,
                                  MPI_Datatype rtype);
/* COUNT elements of T at SRC as contiguous bytes at OUT (COUNT * size bytes), and back. */
ICSIM_HIDDEN void icsim_coll_pack(const void *src, int count, MPI_Datatype t, void *out);
ICSIM_HIDDEN void icsim_coll_unpack(const void *in, void *dst, int count, MPI_Datatype t);
/* INOUT <- IN op INOUT (MPI_Reduce_local's order: IN is the left operand), for any datatype:
 * a predefined op on a derived datatype is applied to its basic elements. */
ICSIM_HIDDEN void icsim_coll_reduce_local(const void *in, void *inout, int count, MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_coll_commutative(MPI_Op op);
/* One of MPI's predefined ops (MPICH splits vectors among ranks only for those). */
ICSIM_HIDDEN int icsim_coll_predefined_op(MPI_Op op);

/* The intracommunicator algorithms, one file per family (coll_barrier_bcast.c, coll_reduce.c,
 * coll_gather.c, coll_alltoall.c): C is an intracommunicator's. */
ICSIM_HIDDEN int icsim_intra_barrier(const struct icsim_coll *c);
ICSIM_HIDDEN int icsim_intra_bcast(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int root);
ICSIM_HIDDEN int icsim_intra_reduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count,
    MPI_Datatype t, MPI_Op op, int root);
ICSIM_HIDDEN int icsim_intra_allreduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count,
    MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_intra_reduce_scatter(const struct icsim_coll *c, const void *sbuf, void *rbuf,
    const int *rcounts, MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_intra_reduce_scatter_block(const struct icsim_coll *c, const void *sbuf, void *rbuf, int rcount,
    MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_intra_scan(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t,
    MPI_Op op, int exclusive);
ICSIM_HIDDEN int icsim_intra_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_intra_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_intra_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_intra_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts,
    const int *displs, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_intra_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, int rcount, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_intra_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_intra_alltoall(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
    void *rbuf, int rcount, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_intra_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts,
    const int *sdispls, MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_intra_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts,
    const int *sdispls, const MPI_Datatype *stypes, void *rbuf, const int *rcounts, const int *rdispls,
    const MPI_Datatype *rtypes);

/* coll_entry.c: each collective on any communicator (an intercommunicator's: coll_inter.c), for
 * the blocking, non-blocking and persistent entry points. */
ICSIM_HIDDEN int icsim_barrier(const struct icsim_coll *c);
ICSIM_HIDDEN int icsim_bcast(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int root);
ICSIM_HIDDEN int icsim_reduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t,
                              MPI_Op op, int root);
ICSIM_HIDDEN int icsim_allreduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count,
                                 MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_reduce_scatter(const struct icsim_coll *c, const void *sbuf, void *rbuf, const int *rcounts,
                                      MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_reduce_scatter_block(const struct icsim_coll *c, const void *sbuf, void *rbuf, int rcount,
                                            MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_scan(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count, MPI_Datatype t,
                            MPI_Op op, int exclusive);
ICSIM_HIDDEN int icsim_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                              void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                               void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                               void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *displs,
                                MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                 void *rbuf, int rcount, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                  void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_alltoall(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                void *rbuf, int rcount, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts,
                                 const int *sdispls, MPI_Datatype stype, void *rbuf, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts,
                                 const int *sdispls, const MPI_Datatype *stypes, void *rbuf, const int *rcounts,
                                 const int *rdispls, const MPI_Datatype *rtypes);

/* coll_inter.c: the collectives on an intercommunicator (MPI 3.1, 5.2.2), each called by
 * coll_entry.c when C->is_inter; they call the intracommunicator algorithms on each group. ROOT is MPI_ROOT on the
 * root, MPI_PROC_NULL on the rest of its group, the root's rank in the other group there. */
ICSIM_HIDDEN int icsim_coll_local(const struct icsim_coll *c, struct icsim_coll *local);
/* Make COMM's two shadows now if it has none (every member calls it). */
ICSIM_HIDDEN void icsim_coll_prepare(MPI_Comm comm);
ICSIM_HIDDEN int icsim_inter_check_root(const struct icsim_coll *c, int root);
ICSIM_HIDDEN int icsim_inter_barrier(const struct icsim_coll *c);
ICSIM_HIDDEN int icsim_inter_bcast(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int root);
ICSIM_HIDDEN int icsim_inter_reduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count,
                                    MPI_Datatype t, MPI_Op op, int root);
ICSIM_HIDDEN int icsim_inter_allreduce(const struct icsim_coll *c, const void *sbuf, void *rbuf, int count,
                                       MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_inter_reduce_scatter(const struct icsim_coll *c, const void *sbuf, void *rbuf,
                                            const int *rcounts, int rcount, MPI_Datatype t, MPI_Op op);
ICSIM_HIDDEN int icsim_inter_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                    void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_inter_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                     void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_inter_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                     void *rbuf, int rcount, MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_inter_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts,
                                      const int *displs, MPI_Datatype stype, void *rbuf, int rcount,
                                      MPI_Datatype rtype, int root);
ICSIM_HIDDEN int icsim_inter_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                                       void *rbuf, int rcount, MPI_Datatype rtype);
ICSIM_HIDDEN int icsim_inter_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount,
                                        MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
                                        MPI_Datatype rtype);
/* all-to-all, -v and -w in one: per-peer counts and byte displacements, one type or one per peer */
ICSIM_HIDDEN int icsim_inter_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts,
                                       const MPI_Aint *sdispls, const MPI_Datatype *stypes, void *rbuf,
                                       const int *rcounts, const MPI_Aint *rdispls, const MPI_Datatype *rtypes);

ICSIM_HIDDEN int icsim_inter_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts,
                                       const int *sdispls, int scount, int sstep, MPI_Datatype stype, void *rbuf,
                                       const int *rcounts, const int *rdispls, int rcount, MPI_Datatype rtype);

#endif
