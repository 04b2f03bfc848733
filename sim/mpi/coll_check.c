/* The argument checks of the collectives, made before any message is sent.
 *
 * The layer's algorithms send and receive with the program's buffers, counts and types; an
 * invalid one used to fail inside the algorithm, message by message, with the error dropped, so a
 * rank went on (or left the others waiting) where an MPI returns the error at once. These are the
 * checks SMPI 3.32 makes in its own collectives (src/smpi/bindings/smpi_pmpi_coll.cpp), in the
 * same order with the same error classes, so a program sees under icsim what it sees under plain
 * SMPI; the caller hands the code to the communicator's error handler (icsim_error).
 *
 * One check more than SMPI's: a send buffer that is the receive buffer (or this rank's own block
 * of it) where MPI_IN_PLACE was meant. MPI forbids the aliasing (MPI 4.0, 2.5.1: no two
 * arguments may overlap if one is written) and MPICH reports it as MPI_ERR_BUFFER before any
 * message (its MPIR_ERRTEST_ALIAS_COLL, under the same conditions as here); SMPI runs the
 * algorithm on the aliased buffers, returns success and leaves wrong data. */
#include <stddef.h>

#include "coll.h"

#define TRY(x)                                                                                              \
  do {                                                                                                     \
    int rc_ = (x);                                                                                         \
    if (rc_ != MPI_SUCCESS)                                                                                \
      return rc_;                                                                                          \
  } while (0)

static int count_ok(int n) { return n < 0 ? MPI_ERR_COUNT : MPI_SUCCESS; }
static int type_ok(MPI_Datatype t) { return icsim_type_valid(t) ? MPI_SUCCESS : MPI_ERR_TYPE; }
/* A null buffer (or MPI_BOTTOM with a predefined type: a binary's null becomes MPI_BOTTOM through
 * the adaptor) holding data (SMPI stops at a null buffer with a count, even of a type of no
 * size, which holds no data: MPI allows that one). */
static int buf_ok(const void *b, int n, MPI_Datatype t)
{
  if (b == MPI_BOTTOM && b != NULL) { /* absolute addresses: only a derived type can give them */
    int ni, na, nd, combiner = MPI_COMBINER_NAMED;
    if (!icsim_type_valid(t) || PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner != MPI_COMBINER_NAMED)
      return MPI_SUCCESS;
  } else if (b != NULL) {
    return MPI_SUCCESS;
  }
  return n > 0 && icsim_type_valid(t) && icsim_type_bytes(n, t) > 0 ? MPI_ERR_BUFFER : MPI_SUCCESS;
}
static int not_in_place(const void *b) { return b == MPI_IN_PLACE ? MPI_ERR_BUFFER : MPI_SUCCESS; }
/* On an intercommunicator (MPI 3.1, 5.2.2) the root says MPI_ROOT, the rest of its group
 * MPI_PROC_NULL, the other group the root's rank there; the rooted checks below then check the
 * root's receiving (or sending) side and the other group's other side, and nothing on the
 * MPI_PROC_NULL ranks. Blocks are counted over the remote group. */
static int root_ok(const struct icsim_coll *c, int root)
{
  if (c->is_inter)
    return root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->inter.rsize) ? MPI_SUCCESS
                                                                                             : MPI_ERR_ROOT;
  return root < 0 || root >= c->n ? MPI_ERR_ROOT : MPI_SUCCESS;
}
static int at_root(const struct icsim_coll *c, int root) { return c->is_inter ? root == MPI_ROOT : c->me == root; }
static int peers(const struct icsim_coll *c) { return c->is_inter ? c->inter.rsize : c->n; }
/* Nothing to check on an intercommunicator's MPI_PROC_NULL ranks (their arguments are ignored). */
#define INTER_IDLE(c, root)                                                                                 \
  do {                                                                                                     \
    if ((c)->is_inter && (root) == MPI_PROC_NULL)                                                          \
      return MPI_SUCCESS;                                                                                  \
  } while (0)
static int ptr_ok(const void *p, int err) { return p == NULL ? err : MPI_SUCCESS; }
/* The kinds of predefined types SMPI 3.32 tells apart for reductions (its DT_FLAG_*), and which
 * kinds each predefined operation takes (smpi_op.cpp), as MPI 3.1, 5.9.2 lists them. */
enum { C_INT = 1, F_INT = 2, FP = 4, MULTI = 8, CPLX = 16, LOGIC = 32, BYTE = 64, PAIR = 128 };

static int kind_of(MPI_Datatype t)
{
  if (t == MPI_BYTE)
    return BYTE;
  if (t == MPI_CHAR || t == MPI_INT || t == MPI_INT16_T || t == MPI_INT32_T || t == MPI_INT64_T || t == MPI_INT8_T ||
      t == MPI_LONG || t == MPI_LONG_LONG || t == MPI_SHORT || t == MPI_SIGNED_CHAR || t == MPI_UINT16_T ||
      t == MPI_UINT32_T || t == MPI_UINT64_T || t == MPI_UINT8_T || t == MPI_UNSIGNED || t == MPI_UNSIGNED_CHAR ||
      t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED_LONG_LONG || t == MPI_UNSIGNED_SHORT)
    return C_INT;
  if (t == MPI_FLOAT || t == MPI_DOUBLE || t == MPI_LONG_DOUBLE)
    return FP;
  if (t == MPI_C_BOOL)
    return LOGIC;
  if (t == MPI_C_FLOAT_COMPLEX || t == MPI_C_DOUBLE_COMPLEX || t == MPI_C_LONG_DOUBLE_COMPLEX)
    return CPLX;
  if (t == MPI_2DOUBLE || t == MPI_2FLOAT || t == MPI_2INT || t == MPI_2LONG || t == MPI_DOUBLE_INT ||
      t == MPI_FLOAT_INT || t == MPI_LONG_DOUBLE_INT || t == MPI_LONG_INT || t == MPI_SHORT_INT)
    return PAIR;
  if (t == MPI_AINT || t == MPI_COUNT || t == MPI_OFFSET)
    return MULTI;
  return 0; /* a derived or another type: not judged here */
}

static int kinds_taken(MPI_Op op)
{
  const int max = C_INT | F_INT | FP | MULTI;
  if (op == MPI_MAX || op == MPI_MIN)
    return max;
  if (op == MPI_SUM || op == MPI_PROD)
    return max | CPLX;
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
    return C_INT | FP | LOGIC | MULTI;
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
    return C_INT | F_INT | BYTE | MULTI;
  if (op == MPI_MAXLOC || op == MPI_MINLOC)
    return PAIR;
  return 0; /* the program's own operation: any type */
}

static int op_ok(MPI_Op op, MPI_Datatype t)
{
  if (op == MPI_OP_NULL || op == MPI_REPLACE || op == MPI_NO_OP)
    return MPI_ERR_OP;
  int taken = kinds_taken(op), kind = kind_of(t);
  return taken && kind && !(taken & kind) ? MPI_ERR_OP : MPI_SUCCESS;
}

/* The type of a reduction: MPICH judges a predefined operation on it first, so an invalid type
 * there is MPI_ERR_OP (tests/mpi/errors_diff.py compares the classes with MPICH's). */
static int reduction_type_ok(MPI_Op op, MPI_Datatype t)
{
  return icsim_type_valid(t) ? MPI_SUCCESS : kinds_taken(op) ? MPI_ERR_OP : MPI_ERR_TYPE;
}

/* MPI_ERR_BUFFER when the buffers are one (MPICH's aliasing check). */
static int distinct(const void *a, const void *b) { return a == b ? MPI_ERR_BUFFER : MPI_SUCCESS; }

/* This rank's block of BUF, AT elements of T in (T already checked). */
static const void *own_block(const void *buf, long long at, MPI_Datatype t)
{
  int s = 0;
  PMPI_Type_size(t, &s);
  return (const char *)buf + at * s;
}

/* Bytes of COUNT elements of T (T already checked). */
static long long bytes(int count, MPI_Datatype t)
{
  int s = 0;
  PMPI_Type_size(t, &s);
  return (long long)s * count;
}

int icsim_check_bcast(const struct icsim_coll *c, const void *buf, int count, MPI_Datatype t, int root)
{
  INTER_IDLE(c, root);
  TRY(count_ok(count));
  TRY(type_ok(t));
  TRY(buf_ok(buf, count, t));
  return root_ok(c, root);
}

int icsim_check_gather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, const void *rbuf,
                       int rcount, MPI_Datatype rtype, int root)
{
  INTER_IDLE(c, root);
  if (sbuf != MPI_IN_PLACE) {
    TRY(count_ok(scount));
    TRY(type_ok(stype));
    TRY(buf_ok(sbuf, scount, stype));
  }
  if (at_root(c, root)) {
    TRY(not_in_place(rbuf));
    TRY(type_ok(rtype));
    TRY(count_ok(rcount));
    TRY(buf_ok(rbuf, rcount, rtype));
  } else {
    TRY(not_in_place(sbuf));
  }
  TRY(root_ok(c, root));
  if (at_root(c, root) && sbuf != MPI_IN_PLACE && stype == rtype && scount == rcount && scount != 0)
    TRY(c->is_inter ? MPI_SUCCESS : distinct(sbuf, own_block(rbuf, (long long)c->me * rcount, rtype)));
  if (!c->is_inter && at_root(c, root) && sbuf != MPI_IN_PLACE && bytes(rcount, rtype) != bytes(scount, stype))
    return MPI_ERR_TRUNCATE;
  return MPI_SUCCESS;
}

int icsim_check_gatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, const void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rtype, int root)
{
  INTER_IDLE(c, root);
  if (sbuf != MPI_IN_PLACE) {
    TRY(type_ok(stype));
    TRY(count_ok(scount));
  }
  TRY(buf_ok(sbuf, scount, stype));
  if (at_root(c, root)) {
    TRY(not_in_place(rbuf));
    TRY(type_ok(rtype));
    TRY(ptr_ok(rcounts, MPI_ERR_COUNT));
    TRY(ptr_ok(displs, MPI_ERR_ARG));
  } else {
    TRY(not_in_place(sbuf));
  }
  TRY(root_ok(c, root));
  if (at_root(c, root))
    for (int i = 0; i < peers(c); i++) {
      TRY(count_ok(rcounts[i]));
      TRY(buf_ok(rbuf, rcounts[i], rtype));
    }
  if (!c->is_inter && at_root(c, root) && sbuf != MPI_IN_PLACE && stype == rtype && scount != 0 && rcounts[c->me] != 0)
    TRY(c->is_inter ? MPI_SUCCESS : distinct(sbuf, own_block(rbuf, displs[c->me], rtype)));
  return MPI_SUCCESS;
}

int icsim_check_scatter(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, const void *rbuf,
                        int rcount, MPI_Datatype rtype, int root)
{
  INTER_IDLE(c, root);
  if (at_root(c, root)) {
    TRY(not_in_place(sbuf));
    TRY(count_ok(scount));
    TRY(type_ok(stype));
    TRY(buf_ok(sbuf, scount, stype));
  } else {
    TRY(not_in_place(rbuf));
  }
  if (rbuf != MPI_IN_PLACE) {
    TRY(count_ok(rcount));
    TRY(type_ok(rtype));
    TRY(buf_ok(rbuf, rcount, rtype));
  }
  TRY(root_ok(c, root));
  if (at_root(c, root) && rbuf != MPI_IN_PLACE && stype == rtype && scount == rcount && scount != 0)
    TRY(c->is_inter ? MPI_SUCCESS : distinct(rbuf, own_block(sbuf, (long long)c->me * scount, stype)));
  if (!c->is_inter && at_root(c, root) && rbuf != MPI_IN_PLACE && bytes(rcount, rtype) != bytes(scount, stype))
    return MPI_ERR_TRUNCATE;
  return MPI_SUCCESS;
}

int icsim_check_scatterv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *displs,
                         MPI_Datatype stype, const void *rbuf, int rcount, MPI_Datatype rtype, int root)
{
  INTER_IDLE(c, root);
  if (rbuf != MPI_IN_PLACE) {
    TRY(count_ok(rcount));
    TRY(type_ok(rtype));
    TRY(buf_ok(rbuf, rcount, rtype));
  }
  TRY(root_ok(c, root));
  if (at_root(c, root)) {
    TRY(not_in_place(sbuf));
    TRY(ptr_ok(scounts, MPI_ERR_COUNT));
    TRY(ptr_ok(displs, MPI_ERR_ARG));
    TRY(type_ok(stype));
    for (int i = 0; i < peers(c); i++) {
      TRY(count_ok(scounts[i]));
      TRY(buf_ok(sbuf, scounts[i], stype));
    }
    if (!c->is_inter && rbuf != MPI_IN_PLACE && stype == rtype && rcount != 0 && scounts[c->me] != 0)
      TRY(c->is_inter ? MPI_SUCCESS : distinct(rbuf, own_block(sbuf, displs[c->me], stype)));
  } else {
    TRY(not_in_place(rbuf));
  }
  return MPI_SUCCESS;
}

int icsim_check_allgather(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                          const void *rbuf, int rcount, MPI_Datatype rtype)
{
  (void)c;
  TRY(not_in_place(rbuf));
  if (sbuf != MPI_IN_PLACE) {
    TRY(count_ok(scount));
    TRY(type_ok(stype));
  }
  TRY(type_ok(rtype));
  TRY(count_ok(rcount));
  TRY(buf_ok(sbuf, scount, stype));
  TRY(buf_ok(rbuf, rcount, rtype));
  if (sbuf != MPI_IN_PLACE && stype == rtype && scount == rcount && scount != 0)
    TRY(c->is_inter ? MPI_SUCCESS : distinct(sbuf, own_block(rbuf, (long long)c->me * rcount, rtype)));
  if (!c->is_inter && sbuf != MPI_IN_PLACE && bytes(rcount, rtype) != bytes(scount, stype))
    return MPI_ERR_TRUNCATE;
  return MPI_SUCCESS;
}

int icsim_check_allgatherv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype,
                           const void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rtype)
{
  if (sbuf != MPI_IN_PLACE)
    TRY(type_ok(stype));
  TRY(type_ok(rtype));
  TRY(ptr_ok(rcounts, MPI_ERR_COUNT));
  TRY(ptr_ok(displs, MPI_ERR_ARG));
  if (sbuf != MPI_IN_PLACE) {
    TRY(count_ok(scount));
    TRY(buf_ok(sbuf, scount, stype));
  }
  TRY(not_in_place(rbuf));
  for (int i = 0; i < peers(c); i++) {
    TRY(count_ok(rcounts[i]));
    TRY(buf_ok(rbuf, rcounts[i], rtype));
  }
  if (!c->is_inter && sbuf != MPI_IN_PLACE && stype == rtype && scount != 0 && rcounts[c->me] != 0)
    TRY(c->is_inter ? MPI_SUCCESS : distinct(sbuf, own_block(rbuf, displs[c->me], rtype)));
  return MPI_SUCCESS;
}

int icsim_check_alltoall(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, const void *rbuf,
                         int rcount, MPI_Datatype rtype)
{
  (void)c;
  if (sbuf != MPI_IN_PLACE) {
    TRY(type_ok(stype));
    TRY(count_ok(scount));
    TRY(buf_ok(sbuf, scount, stype));
  }
  TRY(type_ok(rtype));
  TRY(count_ok(rcount));
  TRY(buf_ok(rbuf, rcount, rtype));
  if (sbuf != MPI_IN_PLACE && stype == rtype && scount == rcount && scount != 0)
    TRY(distinct(sbuf, rbuf));
  if (!c->is_inter && sbuf != MPI_IN_PLACE && bytes(rcount, rtype) != bytes(scount, stype))
    return MPI_ERR_TRUNCATE;
  return MPI_SUCCESS;
}

int icsim_check_alltoallv(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                          MPI_Datatype stype, const void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype)
{
  if (sbuf != MPI_IN_PLACE) {
    TRY(ptr_ok(scounts, MPI_ERR_COUNT));
    TRY(ptr_ok(sdispls, MPI_ERR_ARG));
    TRY(type_ok(stype));
  }
  TRY(type_ok(rtype));
  TRY(ptr_ok(rcounts, MPI_ERR_COUNT));
  TRY(ptr_ok(rdispls, MPI_ERR_ARG));
  for (int i = 0; i < peers(c); i++) {
    if (sbuf != MPI_IN_PLACE) {
      TRY(buf_ok(sbuf, scounts[i], stype));
      TRY(count_ok(scounts[i]));
    }
    TRY(buf_ok(rbuf, rcounts[i], rtype));
    TRY(count_ok(rcounts[i]));
  }
  if (sbuf != MPI_IN_PLACE && stype == rtype && scounts == rcounts)
    TRY(distinct(sbuf, rbuf));
  if (!c->is_inter && sbuf != MPI_IN_PLACE && bytes(rcounts[c->me], rtype) != bytes(scounts[c->me], stype))
    return MPI_ERR_TRUNCATE;
  return MPI_SUCCESS;
}

int icsim_check_alltoallw(const struct icsim_coll *c, const void *sbuf, const int *scounts, const int *sdispls,
                          const MPI_Datatype *stypes, const void *rbuf, const int *rcounts, const int *rdispls,
                          const MPI_Datatype *rtypes)
{
  if (sbuf != MPI_IN_PLACE) {
    TRY(ptr_ok(scounts, MPI_ERR_COUNT));
    TRY(ptr_ok(sdispls, MPI_ERR_ARG));
    TRY(ptr_ok(stypes, MPI_ERR_TYPE));
  }
  TRY(ptr_ok(rcounts, MPI_ERR_COUNT));
  TRY(ptr_ok(rdispls, MPI_ERR_ARG));
  TRY(ptr_ok(rtypes, MPI_ERR_TYPE));
  for (int i = 0; i < peers(c); i++) {
    if (sbuf != MPI_IN_PLACE) {
      TRY(count_ok(scounts[i]));
      TRY(type_ok(stypes[i]));
      TRY(buf_ok(sbuf, scounts[i], stypes[i]));
    }
    TRY(count_ok(rcounts[i]));
    TRY(type_ok(rtypes[i]));
    TRY(buf_ok(rbuf, rcounts[i], rtypes[i]));
  }
  /* as MPICH: one buffer to send from and receive into, whatever the arrays say (MPI_BOTTOM aside:
   * absolute addresses in the types may well be apart) */
  if (sbuf != MPI_IN_PLACE && sbuf != NULL && sbuf != MPI_BOTTOM)
    TRY(distinct(sbuf, rbuf));
  return MPI_SUCCESS;
}

int icsim_check_reduce(const struct icsim_coll *c, const void *sbuf, const void *rbuf, int count, MPI_Datatype t,
                       MPI_Op op, int root)
{
  INTER_IDLE(c, root);
  TRY(reduction_type_ok(op, t));
  TRY(count_ok(count));
  if (!c->is_inter || root != MPI_ROOT)
    TRY(buf_ok(sbuf, count, t));
  if (at_root(c, root)) {
    TRY(not_in_place(rbuf));
    TRY(buf_ok(rbuf, count, t));
  }
  TRY(op_ok(op, t));
  TRY(root_ok(c, root));
  return !c->is_inter && at_root(c, root) && count > 0 && sbuf != MPI_IN_PLACE ? distinct(sbuf, rbuf) : MPI_SUCCESS;
}

int icsim_check_allreduce(const struct icsim_coll *c, const void *sbuf, const void *rbuf, int count, MPI_Datatype t,
                          MPI_Op op)
{
  (void)c;
  TRY(not_in_place(rbuf));
  TRY(reduction_type_ok(op, t));
  TRY(op_ok(op, t));
  TRY(count_ok(count));
  TRY(buf_ok(sbuf, count, t));
  TRY(buf_ok(rbuf, count, t));
  return sbuf != MPI_IN_PLACE && count != 0 ? distinct(sbuf, rbuf) : MPI_SUCCESS;
}

/* MPI_Scan, MPI_Exscan and MPI_Reduce_scatter_block (COUNT: the block) check alike. */
int icsim_check_scan(const struct icsim_coll *c, const void *sbuf, const void *rbuf, int count, MPI_Datatype t,
                     MPI_Op op)
{
  (void)c;
  TRY(reduction_type_ok(op, t));
  TRY(count_ok(count));
  TRY(buf_ok(sbuf, count, t));
  TRY(buf_ok(rbuf, count, t));
  TRY(op_ok(op, t));
  return sbuf != MPI_IN_PLACE && count != 0 ? distinct(sbuf, rbuf) : MPI_SUCCESS;
}

int icsim_check_reduce_scatter(const struct icsim_coll *c, const void *sbuf, const void *rbuf, const int *rcounts,
                               MPI_Datatype t, MPI_Op op)
{
  TRY(not_in_place(rbuf));
  TRY(reduction_type_ok(op, t));
  TRY(ptr_ok(rcounts, MPI_ERR_COUNT));
  TRY(op_ok(op, t));
  long long sum = 0;
  for (int i = 0; i < (c->is_inter ? c->inter.lsize : c->n); i++) {
    TRY(count_ok(rcounts[i]));
    TRY(buf_ok(sbuf, rcounts[i], t));
    TRY(buf_ok(rbuf, rcounts[i], t));
    sum += rcounts[i];
  }
  return sbuf != MPI_IN_PLACE && sum != 0 ? distinct(sbuf, rbuf) : MPI_SUCCESS;
}

int icsim_check_reduce_local(const void *in, const void *inout, int count, MPI_Datatype t, MPI_Op op)
{
  if (in == MPI_IN_PLACE || inout == MPI_IN_PLACE)
    return MPI_ERR_BUFFER; /* both operands are read: neither can be "in place" */
  TRY(count_ok(count));
  TRY(reduction_type_ok(op, t));
  TRY(op_ok(op, t));
  return count > 0 ? distinct(in, inout) : MPI_SUCCESS;
}
