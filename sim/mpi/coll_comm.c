/* Collectives, common part: the shadow communicators collective traffic runs on, the entry
 * checks of every collective, and local (message-free) datatype and buffer helpers.
 *
 * Shadows. Each user communicator gets a private duplicate per rank, created on its first
 * collective (every member gets there in the same collective), so collective messages never
 * match a user's receive; a second, separate duplicate carries the non-blocking collectives.
 * The pair is kept in the communicator's record (comm_record.c), which frees it with the
 * communicator; a user's MPI_Comm_dup does not inherit it. Shadows are made with MPI_Comm_create
 * over the user's group rather than MPI_Comm_dup, so the user's own attribute copy callbacks are
 * not run for them. A one-rank communicator (MPI_COMM_SELF, a singleton split) needs no shadow,
 * since no algorithm sends anything on one rank. WORLD's shadows live until the end of the run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll.h"
#include "comm_record.h"
#include "layer.h"
#include "runtime.h"

static int *err_slot(void);
/* The rank's collective in progress (by world rank): its first error (the algorithms go on through
 * their steps, so that the other ranks are not left waiting, and the collective returns it), and
 * which collective it is: its communicator's SMPI identifier, the same on every member, and its
 * place among the collectives on that communicator, the same on every member too (MPI makes every
 * member call them in one order). */
struct coll_state {
  int err;
  int comm_id;         /* icsim_smpi_comm_id; ID_NONE: not propagated (MPI_COMM_SELF, no record) */
  unsigned long seq;   /* the communicator record's count of collectives */
};
#define ID_NONE (-1)
static struct coll_state *mine(void);

/* COMM's record (comm_record.c), which holds its shadows. */
static struct icsim_comm *shadows_of(MPI_Comm comm)
{
  struct icsim_comm *r = icsim_comm_get(comm);
  if (!r) {
    fprintf(stderr, "icsim: the MPI layer cannot keep a record on a communicator of rank %d (SMPI refused an "
                    "attribute on it), so its collectives have no private communicator to run on\n",
            icsim_my_rank());
    icsim_stop(3);
  }
  return r;
}

static MPI_Comm make_shadow(MPI_Comm comm)
{
  MPI_Group g;
  MPI_Comm dup = MPI_COMM_NULL;
  PMPI_Comm_group(comm, &g);
  /* SMPI's communicator creation sends its own messages: counted as SMPI's, not as missed ones */
  icsim_smpi_enter(NULL);
  icsim_smpi_leave(PMPI_Comm_create(comm, g, &dup));
  /* its messages' errors (a truncation: the program's counts disagree) come back to the collective,
   * which hands them to the program's communicator; SMPI would stop at once on a fatal handler */
  if (dup != MPI_COMM_NULL)
    PMPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  PMPI_Group_free(&g);
  return dup;
}

/* The operations, in the order that gives their tags (coll.h's list; a non-blocking form shares its
 * blocking form's: the two run on different shadows). */
#define ICSIM_COLL_NAME(ID, NAME) #NAME,
static const char *const ops[] = {ICSIM_COLLECTIVES(ICSIM_COLL_NAME)};
#undef ICSIM_COLL_NAME

static int tag_of(const char *call)
{
  const char *op = call + 4; /* after "MPI_" */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      if (strcasecmp(op, ops[i]) == 0)
        return ICSIM_COLL_TAG + (int)i;
    op++; /* MPI_Ixxx */
  }
  return ICSIM_COLL_TAG;
}

int icsim_coll_peek(const char *call, MPI_Comm comm, struct icsim_coll *c)
{
  if (!icsim_runtime_get() || comm == MPI_COMM_NULL)
    return 0;
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) /* not a valid communicator: SMPI says so */
    return 0;
  const struct icsim_inter *x = icsim_inter_of(comm); /* the layer's own intercommunicators (intercomm.c) */
  c->is_inter = x != NULL;
  if (x)
    c->inter = *x;
  if (inter && !c->is_inter) {
    fprintf(stderr,
            "icsim: %s on an intercommunicator: the MPI layer's collectives are built for intracommunicators "
            "only (SMPI 3.32 implements no MPI_Intercomm_create, so no intercommunicator is expected here)\n",
            call);
    icsim_stop(3);
  }
  PMPI_Comm_size(comm, &c->n);
  PMPI_Comm_rank(comm, &c->me);
  c->tag = tag_of(call);
  struct coll_state *s = mine();
  s->err = MPI_SUCCESS;
  struct icsim_comm *r = comm == MPI_COMM_SELF ? NULL : icsim_comm_get(comm);
  s->comm_id = r ? icsim_smpi_comm_id(comm) : ID_NONE;
  s->seq = r ? ++r->coll_seq : 0;
  c->comm = comm;
  return 1;
}

/* The shadow C's collective runs on, made at its first use: a collective step of its own, which
 * only a call whose arguments have passed may take (a rank whose call fails returns alone). */
void icsim_coll_shadow(struct icsim_coll *c, MPI_Comm comm, int nonblocking)
{
  if (c->n == 1)
    return;
  struct icsim_comm *s = shadows_of(comm);
  MPI_Comm *dup = nonblocking ? &s->nbc : &s->coll;
  if (*dup == MPI_COMM_NULL)
    *dup = make_shadow(comm);
  c->comm = *dup;
}

int icsim_coll_enter(const char *call, MPI_Comm comm, int nonblocking, struct icsim_coll *c)
{
  if (!icsim_coll_peek(call, comm, c))
    return 0;
  icsim_coll_shadow(c, comm, nonblocking);
  return 1;
}

void icsim_coll_prepare(MPI_Comm comm)
{
  int n = 1;
  PMPI_Comm_size(comm, &n);
  if (n < 2)
    return;
  struct icsim_comm *s = shadows_of(comm);
  if (s->coll == MPI_COMM_NULL)
    s->coll = make_shadow(comm);
  if (s->nbc == MPI_COMM_NULL)
    s->nbc = make_shadow(comm);
}

/* The local group's part of intercommunicator collective C: its intracommunicator's shadow (the
 * blocking one: an intercommunicator's non-blocking collectives also complete at the call). */
int icsim_coll_local(const struct icsim_coll *c, struct icsim_coll *local)
{
  MPI_Comm comm = c->inter.local;
  *local = (struct icsim_coll){.comm = comm, .tag = c->tag};
  PMPI_Comm_size(comm, &local->n);
  PMPI_Comm_rank(comm, &local->me);
  if (local->n > 1) {
    struct icsim_comm *s = shadows_of(comm);
    if (s->coll == MPI_COMM_NULL)
      s->coll = make_shadow(comm);
    local->comm = s->coll;
  }
  return MPI_SUCCESS;
}

/* SMPI's own non-blocking barrier on MPI_COMM_SELF: one rank, so no message and no
 * sub-request; a request SMPI's Wait/Test/Waitall/Waitany/Waitsome/Testall/Request_free all
 * complete and release (see coll_nonblocking.c for why not a generalized request). */
int icsim_coll_done_request(MPI_Request *req) { return PMPI_Ibarrier(MPI_COMM_SELF, req); }

/* An address holding data is given to SMPI as MPI_BOTTOM when it is 0 (absolute addressing). */
static void *arg(const void *buf, int count) { return buf == NULL && count > 0 ? MPI_BOTTOM : (void *)buf; }

static struct coll_state *states;
static int nstates;

static struct coll_state *mine(void)
{
  int me = icsim_my_rank();
  if (me < 0)
    me = 0;
  if (me >= nstates) {
    int n = 2 * (me + 1);
    struct coll_state *grown = realloc(states, (size_t)n * sizeof *grown);
    if (!grown) {
      fprintf(stderr, "icsim: out of memory for the collectives' state of rank %d\n", me);
      icsim_stop(3);
    }
    for (int i = nstates; i < n; i++)
      grown[i] = (struct coll_state){MPI_SUCCESS, ID_NONE, 0};
    states = grown;
    nstates = n;
  }
  return &states[me];
}

static int *err_slot(void) { return &mine()->err; }

/* Errors travel down a collective as MPICH's do (its tags' error bit): once a member has failed,
 * every member that receives after it in the same collective fails too, so a rank whose own part
 * went well learns that its data came from one that did not (MPICH's errors/coll/bcastlength: the
 * grandchild of a rank given a short message). A failed collective is remembered by its
 * communicator and place; a run has few of them, and none in a correct program. */
struct failed_coll {
  int comm_id;
  unsigned long seq;
};
static struct failed_coll *failed;
static int nfailed, capfailed;

static void fail_current(void)
{
  struct coll_state *s = mine();
  if (s->comm_id == ID_NONE)
    return;
  for (int i = 0; i < nfailed; i++)
    if (failed[i].comm_id == s->comm_id && failed[i].seq == s->seq)
      return;
  if (nfailed == capfailed) {
    int cap = capfailed ? 2 * capfailed : 16;
    struct failed_coll *grown = realloc(failed, (size_t)cap * sizeof *grown);
    if (!grown)
      return; /* the error stays this rank's */
    failed = grown;
    capfailed = cap;
  }
  failed[nfailed++] = (struct failed_coll){s->comm_id, s->seq};
}

static int current_failed(void)
{
  const struct coll_state *s = mine();
  for (int i = 0; s->comm_id != ID_NONE && i < nfailed; i++)
    if (failed[i].comm_id == s->comm_id && failed[i].seq == s->seq)
      return 1;
  return 0;
}

static int note(int rc)
{
  if (rc != MPI_SUCCESS && *err_slot() == MPI_SUCCESS) {
    *err_slot() = rc;
    fail_current();
  }
  return rc;
}

/* A receive that went well, in a collective another member has failed: this one fails too. */
static int received(int rc)
{
  if (rc == MPI_SUCCESS && nfailed && *err_slot() == MPI_SUCCESS && current_failed())
    rc = MPI_ERR_OTHER;
  return note(rc);
}

int icsim_coll_result(int rc)
{
  int *slot = err_slot(), first = *slot;
  *slot = MPI_SUCCESS;
  return rc != MPI_SUCCESS ? rc : first;
}

int icsim_coll_send(const struct icsim_coll *c, const void *buf, int count, MPI_Datatype t, int dst)
{
  return note(MPI_Send(arg(buf, count), count, t, dst, c->tag, c->comm));
}

int icsim_coll_recv(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int src)
{
  return received(MPI_Recv(arg(buf, count), count, t, src, c->tag, c->comm, MPI_STATUS_IGNORE));
}

/* A receive that must fill its buffer: fewer bytes mean the sender's count was smaller, which
 * MPICH's broadcast answers with an error ("collective size mismatch", MPI_ERR_OTHER). */
int icsim_coll_recv_all(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int src)
{
  MPI_Status st;
  int rc = MPI_Recv(arg(buf, count), count, t, src, c->tag, c->comm, &st), got = 0;
  if (rc == MPI_SUCCESS && PMPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS &&
      (size_t)got < (size_t)count * icsim_coll_size(t))
    rc = MPI_ERR_OTHER;
  return received(rc);
}

int icsim_coll_sendrecv(const struct icsim_coll *c, const void *sbuf, int scount, MPI_Datatype stype, int dst,
                        void *rbuf, int rcount, MPI_Datatype rtype, int src)
{
  return received(icsim_sendrecv(arg(sbuf, scount), scount, stype, dst, c->tag, arg(rbuf, rcount), rcount, rtype,
                                 src, c->tag, c->comm, MPI_STATUS_IGNORE, 1));
}

/* A synchronous send. A detached send (what SMPI makes of a small one) lives in one global list of
 * SimGrid 3.32 (maestro's activities) that every completion walks: an all-to-all(v) of n ranks keeps
 * n x throttle of them in flight, and the walks grew with the square of the ranks (IS class B on
 * 256 ranks: 83 s -> 23 s). Every algorithm waits for all of its sends before it returns, so with
 * ranks that arrive together nothing moves (test_coll_mpich compares every algorithm with SimGrid's;
 * the validation cases print the same figures). What does differ: a send now completes when its
 * receiver has the data, where MPICH's eager send completes at once, so a rank that sends to a late
 * rank waits for it in the batch that sends to it rather than in the one that receives from it;
 * the collective still cannot end before that late rank's block has arrived. */
int icsim_coll_isend(const struct icsim_coll *c, const void *buf, int count, MPI_Datatype t, int dst,
                     MPI_Request *req)
{
  icsim_charge_call("MPI_Issend");
  icsim_charge_send(arg(buf, count), count, t, dst, c->tag, c->comm);
  return note(icsim_layer_isend(1, arg(buf, count), count, t, dst, c->tag, c->comm, req));
}

/* The layer's MPI_Irecv (its call charge included) on a receive of the layer's own: the handle
 * goes to icsim_coll_waitall only. */
int icsim_coll_irecv(const struct icsim_coll *c, void *buf, int count, MPI_Datatype t, int src, MPI_Request *req)
{
  icsim_charge_call("MPI_Irecv");
  return note(icsim_engine_irecv_internal(arg(buf, count), count, t, src, c->tag, c->comm, req, 1));
}

int icsim_coll_waitall(int n, MPI_Request *reqs)
{
  return n > 0 ? received(icsim_engine_waitall(n, reqs, MPI_STATUSES_IGNORE)) : MPI_SUCCESS;
}

char *icsim_coll_addr(const void *buf) { return buf == MPI_BOTTOM ? NULL : (char *)buf; }

MPI_Aint icsim_coll_extent(MPI_Datatype t)
{
  MPI_Aint lb, ext;
  PMPI_Type_get_extent(t, &lb, &ext);
  return ext;
}

size_t icsim_coll_size(MPI_Datatype t)
{
  int size = 0;
  PMPI_Type_size(t, &size);
  return size > 0 ? (size_t)size : 0;
}

char *icsim_coll_tmp(int count, MPI_Datatype t, void **block)
{
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_get_extent(t, &lb, &ext);
  PMPI_Type_get_true_extent(t, &tlb, &text);
  MPI_Aint lo = tlb, hi = tlb + text; /* element 0; the others are shifted by multiples of the extent */
  if (count > 1) {
    MPI_Aint shift = (MPI_Aint)(count - 1) * ext;
    if (shift < 0)
      lo += shift;
    else
      hi += shift;
  }
  size_t span = hi > lo ? (size_t)(hi - lo) : 0;
  *block = malloc(span ? span : 1);
  return (char *)*block - lo;
}

/* Data of T fills [0, extent) densely and in order: a byte copy of the extent copies it. */
static int dense(MPI_Datatype t)
{
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_get_extent(t, &lb, &ext);
  PMPI_Type_get_true_extent(t, &tlb, &text);
  return lb == 0 && tlb == 0 && ext == text && (size_t)ext == icsim_coll_size(t);
}

void icsim_coll_pack(const void *src, int count, MPI_Datatype t, void *out)
{
  size_t bytes = (size_t)count * icsim_coll_size(t);
  if (count <= 0 || bytes == 0)
    return;
  int pos = 0;
  PMPI_Pack(src ? src : MPI_BOTTOM, count, t, out, (int)bytes, &pos, MPI_COMM_WORLD);
}

void icsim_coll_unpack(const void *in, void *dst, int count, MPI_Datatype t)
{
  size_t bytes = (size_t)count * icsim_coll_size(t);
  if (count <= 0 || bytes == 0)
    return;
  int pos = 0;
  if (dst) {
    PMPI_Unpack(in, (int)bytes, &pos, dst, count, t, MPI_COMM_WORLD);
    return;
  }
  /* Absolute addresses (MPI_BOTTOM): SMPI's unpack takes its output buffer literally, so unpack
   * at MPI_BOTTOM a type shifted back by MPI_BOTTOM's value. */
  MPI_Datatype shifted;
  int blocklen = count;
  MPI_Aint disp = -(MPI_Aint)(intptr_t)MPI_BOTTOM;
  PMPI_Type_create_hindexed(1, &blocklen, &disp, t, &shifted);
  PMPI_Type_commit(&shifted);
  PMPI_Unpack(in, (int)bytes, &pos, MPI_BOTTOM, 1, shifted, MPI_COMM_WORLD);
  PMPI_Type_free(&shifted);
}

void icsim_coll_copy(const void *src, int scount, MPI_Datatype stype, void *dst, int rcount, MPI_Datatype rtype)
{
  size_t ssize = icsim_coll_size(stype), rsize = icsim_coll_size(rtype);
  size_t sbytes = scount > 0 ? (size_t)scount * ssize : 0, rbytes = rcount > 0 ? (size_t)rcount * rsize : 0;
  size_t bytes = sbytes < rbytes ? sbytes : rbytes;
  if (bytes == 0 || (src == dst && stype == rtype))
    return;
  if (stype == rtype && src && dst && dense(stype)) {
    memmove(dst, src, bytes);
    return;
  }
  char *tmp = malloc(sbytes);
  icsim_coll_pack(src, scount, stype, tmp);
  icsim_coll_unpack(tmp, dst, (int)(bytes / rsize), rtype);
  free(tmp);
}

int icsim_coll_commutative(MPI_Op op)
{
  int yes = 1;
  PMPI_Op_commutative(op, &yes);
  return yes;
}

int icsim_coll_predefined_op(MPI_Op op)
{
  return op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD || op == MPI_LAND || op == MPI_BAND ||
         op == MPI_LOR || op == MPI_BOR || op == MPI_LXOR || op == MPI_BXOR || op == MPI_MAXLOC || op == MPI_MINLOC;
}

/* The one predefined datatype T is built from, or MPI_DATATYPE_NULL when there are several or
 * SMPI cannot tell. Datatypes returned by SMPI's get_contents are its own (not new handles). */
static MPI_Datatype basic_of(MPI_Datatype t, int depth)
{
  int ni, na, nd, comb;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
    return MPI_DATATYPE_NULL;
  if (comb == MPI_COMBINER_NAMED)
    return t;
  if (depth > 32 || nd <= 0)
    return MPI_DATATYPE_NULL;
  int *ints = malloc((size_t)(ni > 0 ? ni : 1) * sizeof *ints);
  MPI_Aint *addrs = malloc((size_t)(na > 0 ? na : 1) * sizeof *addrs);
  MPI_Datatype *types = malloc((size_t)nd * sizeof *types);
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  if (PMPI_Type_get_contents(t, ni > 0 ? ni : 1, na > 0 ? na : 1, nd, ints, addrs, types) == MPI_SUCCESS) {
    for (int i = 0; i < nd; i++) {
      if (types[i] == MPI_LB || types[i] == MPI_UB) /* bound markers (SMPI's resized types) */
        continue;
      MPI_Datatype b = basic_of(types[i], depth + 1);
      if (b == MPI_DATATYPE_NULL || (basic != MPI_DATATYPE_NULL && b != basic)) {
        basic = MPI_DATATYPE_NULL;
        break;
      }
      basic = b;
    }
  }
  free(ints);
  free(addrs);
  free(types);
  return basic;
}

void icsim_coll_reduce_local(const void *in, void *inout, int count, MPI_Datatype t, MPI_Op op)
{
  if (count <= 0)
    return;
  /* SMPI applies predefined ops to predefined datatypes only: apply them to the basic elements
   * of a derived one (MPI allows a predefined op on a datatype built from one basic type). */
  MPI_Datatype basic;
  if (icsim_coll_predefined_op(op) && (basic = basic_of(t, 0)) != MPI_DATATYPE_NULL && basic != t) {
    size_t bytes = (size_t)count * icsim_coll_size(t), bsize = icsim_coll_size(basic);
    if (bsize > 0 && bytes % bsize == 0) {
      char *a = malloc(bytes ? bytes : 1), *b = malloc(bytes ? bytes : 1);
      icsim_coll_pack(in, count, t, a);
      icsim_coll_pack(inout, count, t, b);
      PMPI_Reduce_local(a, b, (int)(bytes / bsize), basic, op);
      icsim_coll_unpack(b, inout, count, t);
      free(a);
      free(b);
      return;
    }
  }
  PMPI_Reduce_local(in, inout, count, t, op);
}
