/* Point-to-point and one-sided entry points of the MPI layer.
 *
 * Send side: the call's CPU, the stack's send CPU (charged before the message is handed over: the
 * stack's work precedes the wire), then the announcement that joins the message to its transfer.
 * Receive side: receives are the progress engine's (engine.c), which charges them when they land.
 * Blocking calls are their non-blocking form followed by the engine's wait, so a rank blocked in a
 * send still takes the messages that land meanwhile. */
#include <simgrid/engine.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

#define ACTIVE() (icsim_runtime_get() != NULL)

/* A null buffer of no data (a type of no size): MPI allows it, SMPI 3.32 stops at a null buffer
 * whenever the count is not 0 (MPICH's rma/badrma). Such a buffer is never read or written, so
 * SMPI is given MPI_BOTTOM instead (point-to-point and one-sided calls). */
static void *no_data(const void *buf, int count, MPI_Datatype type)
{
  return buf == NULL && count > 0 && icsim_type_valid(type) && icsim_type_bytes(count, type) == 0 ? MPI_BOTTOM
                                                                                                  : (void *)buf;
}

/* SMPI detaches a buffered send, and a standard or ready one below its threshold (the stack's
 * eager limit): such a send, once cancelled, may still be delivered (layer.c, sent[]). */
static int lingers(const char *name, int count, MPI_Datatype type)
{
  if (!strcmp(name, "Issend"))
    return 0;
  return !strcmp(name, "Ibsend") || icsim_type_bytes(count, type) < icsim_runtime_detach_threshold(icsim_runtime_get());
}

/* Every kind of send: the same charge, then SMPI's own call. */
#define ISEND_LIKE(NAME)                                                                                    \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,          \
                 MPI_Request *req)                                                                         \
  {                                                                                                        \
    uint64_t id = 0; /* read before SMPI's call, which lets the other ranks run and announce */          \
    if (ACTIVE()) {                                                                                        \
      dest = icsim_inter_peer(comm, dest);                                                                 \
      icsim_charge_call("MPI_" #NAME);                                                                    \
      icsim_charge_send(buf, count, type, dest, tag, comm);                                                \
      id = icsim_last_announced();                                                                         \
    }                                                                                                      \
    int rc = PMPI_##NAME(no_data(buf, count, type), count, type, dest, tag, comm, req);                    \
    if (rc == MPI_SUCCESS && ACTIVE())                                                                     \
      icsim_remember_send(*req, id, lingers(#NAME, count, type));                                          \
    return icsim_error(comm, "MPI_" #NAME, rc);                                                            \
  }
ISEND_LIKE(Isend)
ISEND_LIKE(Issend)
ISEND_LIKE(Irsend)
ISEND_LIKE(Ibsend)

/* Blocking sends: the non-blocking form, then the engine's wait. */
#define SEND_LIKE(NAME, INAME)                                                                              \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)          \
  {                                                                                                        \
    if (!ACTIVE())                                                                                         \
      return PMPI_##NAME(buf, count, type, dest, tag, comm);                                               \
    dest = icsim_inter_peer(comm, dest);                                                                   \
    icsim_charge_call("MPI_" #NAME);                                                                      \
    icsim_charge_send(buf, count, type, dest, tag, comm);                                                  \
    MPI_Request r;                                                                                         \
    int rc = PMPI_##INAME(no_data(buf, count, type), count, type, dest, tag, comm, &r);                    \
    return icsim_error(comm, "MPI_" #NAME, rc != MPI_SUCCESS ? rc : icsim_engine_wait(&r, MPI_STATUS_IGNORE)); \
  }
SEND_LIKE(Send, Isend)
SEND_LIKE(Ssend, Issend)
SEND_LIKE(Rsend, Irsend)
SEND_LIKE(Bsend, Ibsend)

/* Persistent sends: charged and announced at each MPI_Start (engine.c). */
#define SEND_INIT_LIKE(NAME, MODE)                                                                          \
  int MPI_##NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,          \
                 MPI_Request *req)                                                                         \
  {                                                                                                        \
    if (ACTIVE() && dest == MPI_PROC_NULL)                                                                 \
      return icsim_psend_init_null(req);                                                                   \
    if (ACTIVE())                                                                                          \
      dest = icsim_inter_peer(comm, dest);                                                                 \
    int rc = PMPI_##NAME(no_data(buf, count, type), count, type, dest, tag, comm, req);                    \
    if (rc == MPI_SUCCESS && ACTIVE()) {                                                                   \
      icsim_charge_call("MPI_" #NAME);                                                                    \
      icsim_engine_track_psend(*req, MODE, buf, count, type, dest, tag, comm);                             \
    }                                                                                                      \
    return icsim_error(comm, "MPI_" #NAME, rc);                                                            \
  }
SEND_INIT_LIKE(Send_init, 'n')
SEND_INIT_LIKE(Ssend_init, 's')
SEND_INIT_LIKE(Rsend_init, 'r')
SEND_INIT_LIKE(Bsend_init, 'b')

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
  if (!ACTIVE())
    return PMPI_Irecv(buf, count, type, src, tag, comm, req);
  src = icsim_inter_peer(comm, src);
  icsim_charge_call("MPI_Irecv");
  return icsim_error(comm, "MPI_Irecv", icsim_engine_irecv(no_data(buf, count, type), count, type, src, tag, comm, req, 0));
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
  if (!ACTIVE())
    return PMPI_Recv_init(buf, count, type, src, tag, comm, req);
  src = icsim_inter_peer(comm, src);
  icsim_charge_call("MPI_Recv_init");
  return icsim_error(comm, "MPI_Recv_init", icsim_engine_irecv(no_data(buf, count, type), count, type, src, tag, comm, req, 1));
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Recv(buf, count, type, src, tag, comm, status);
  src = icsim_inter_peer(comm, src);
  icsim_charge_call("MPI_Recv");
  MPI_Request r;
  int rc = icsim_engine_irecv_internal(no_data(buf, count, type), count, type, src, tag, comm, &r, 0);
  return icsim_error(comm, "MPI_Recv", rc != MPI_SUCCESS ? rc : icsim_engine_wait(&r, status));
}

int icsim_layer_isend(int synchronous, const void *buf, int count, MPI_Datatype type, int dst, int tag, MPI_Comm comm,
                      MPI_Request *req)
{
  if (icsim_direct_ok() && icsim_direct_args_ok(buf, count, type))
    return icsim_smpi_isend(synchronous, buf, count, type, dst, tag, comm, req);
  return synchronous ? PMPI_Issend(buf, count, type, dst, tag, comm, req) : PMPI_Isend(buf, count, type, dst, tag, comm, req);
}

int icsim_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                   MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status, int layer_args)
{
  icsim_charge_call("MPI_Sendrecv");
  MPI_Request r[2];
  MPI_Status st[2];
  int rc = icsim_engine_irecv_internal(rbuf, rcount, rtype, src, rtag, comm, &r[0], layer_args);
  if (rc != MPI_SUCCESS)
    return rc;
  icsim_charge_send(sbuf, scount, stype, dest, stag, comm);
  rc = layer_args ? icsim_layer_isend(0, sbuf, scount, stype, dest, stag, comm, &r[1])
                  : PMPI_Isend(sbuf, scount, stype, dest, stag, comm, &r[1]);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = icsim_engine_waitall(2, r, st);
  if (status != MPI_STATUS_IGNORE) { /* MPI_ERROR as the program set it unless the call fails */
    int kept = status->MPI_ERROR;
    *status = st[0];
    if (rc == MPI_SUCCESS)
      status->MPI_ERROR = kept;
  }
  return rc == MPI_ERR_IN_STATUS ? (st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR) : rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, status);
  dest = icsim_inter_peer(comm, dest);
  src = icsim_inter_peer(comm, src);
  return icsim_error(comm, "MPI_Sendrecv",
                     icsim_sendrecv(no_data(sbuf, scount, stype), scount, stype, dest, stag, no_data(rbuf, rcount, rtype),
                                    rcount, rtype, src, rtag, comm, status, 0));
}

/* The outgoing data is packed first, so the receive may land in the same buffer. */
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag, int src, int rtag,
                         MPI_Comm comm, MPI_Status *status)
{
  if (!ACTIVE())
    return PMPI_Sendrecv_replace(buf, count, type, dest, stag, src, rtag, comm, status);
  dest = icsim_inter_peer(comm, dest);
  src = icsim_inter_peer(comm, src);
  int size = 0, pos = 0;
  PMPI_Pack_size(count, type, comm, &size);
  char *packed = malloc(size > 0 ? (size_t)size : 1);
  PMPI_Pack(buf, count, type, packed, size, &pos, comm);
  int rc = icsim_sendrecv(packed, pos, MPI_PACKED, dest, stag, buf, count, type, src, rtag, comm, status, 0);
  free(packed);
  return icsim_error(comm, "MPI_Sendrecv_replace", rc);
}

/* Probes move no data: the engine takes what has landed, then SMPI answers. */
int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
  if (ACTIVE()) {
    icsim_charge_call("MPI_Probe");
    icsim_engine_poll();
    src = icsim_inter_peer(comm, src);
  }
  int rc = PMPI_Probe(src, tag, comm, status);
  if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE && ACTIVE()) /* a rank of the remote group */
    status->MPI_SOURCE = icsim_inter_source(comm, status->MPI_SOURCE);
  return icsim_error(comm, "MPI_Probe", rc);
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
  if (ACTIVE()) {
    icsim_charge_call("MPI_Iprobe");
    icsim_engine_poll();
    src = icsim_inter_peer(comm, src);
  }
  int rc = PMPI_Iprobe(src, tag, comm, flag, status);
  if (rc == MPI_SUCCESS && *flag && status != MPI_STATUS_IGNORE && ACTIVE())
    status->MPI_SOURCE = icsim_inter_source(comm, status->MPI_SOURCE);
  return icsim_error(comm, "MPI_Iprobe", rc);
}

/* One-sided operations: the origin's CPU issues them; the transfer is announced in the direction
 * the data flows (a get flows from the target). On the origin's own window SMPI 3.32 copies a put
 * or get locally but still moves an accumulate as a transfer (SELF_MOVES). */
static uint64_t rma(enum icsim_msg_kind kind, const void *buf, size_t bytes, int target, MPI_Win win, int self_moves)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt || target == MPI_PROC_NULL)
    return 0;
  MPI_Group g;
  PMPI_Win_get_group(win, &g);
  int world = icsim_group_world_rank(g, target);
  int me = icsim_my_rank();
  icsim_check_peer(world);
  struct icsim_msg m;
  if (kind == ICSIM_MSG_GET)
    icsim_fill_msg(rt, &m, world, me, bytes, buf, 0);
  else
    icsim_fill_msg(rt, &m, me, world, bytes, buf, 0);
  m.kind = kind;
  icsim_occupy_cpu(icsim_runtime_send_cpu(rt, &m));
  return world != me || self_moves ? icsim_runtime_announce(rt, &m, simgrid_get_clock()) : 0;
}

/* The call failed (an erroneous argument): SMPI moved nothing, so its announcements go. */
static int rma_done(int rc, uint64_t id1, uint64_t id2)
{
  if (rc != MPI_SUCCESS) {
    if (id1)
      icsim_withdraw_send(MPI_REQUEST_NULL, id1);
    if (id2)
      icsim_withdraw_send(MPI_REQUEST_NULL, id2);
  }
  return rc;
}

int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
            MPI_Datatype ttype, MPI_Win win)
{
  icsim_charge_call("MPI_Put");
  uint64_t id = rma(ICSIM_MSG_PUT, obuf, icsim_type_bytes(ocount, otype), target, win, 0);
  return icsim_win_error(win, "MPI_Put", rma_done(PMPI_Put(no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, win), id, 0));
}

int MPI_Get(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
            MPI_Win win)
{
  icsim_charge_call("MPI_Get");
  uint64_t id = rma(ICSIM_MSG_GET, obuf, icsim_type_bytes(tcount, ttype), target, win, 0);
  return icsim_win_error(win, "MPI_Get", rma_done(PMPI_Get(no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, win), id, 0));
}

int MPI_Accumulate(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                   MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
  icsim_charge_call("MPI_Accumulate");
  uint64_t id = rma(ICSIM_MSG_PUT, obuf, icsim_type_bytes(ocount, otype), target, win, 1);
  return icsim_win_error(win, "MPI_Accumulate", rma_done(PMPI_Accumulate(no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, op, win), id, 0));
}

/* A request-based operation returns a request the program waits on (MPI 3.1, 11.3.5), even when
 * there is nothing to wait for: SMPI 3.32 hands back MPI_REQUEST_NULL for MPI_PROC_NULL targets and
 * for a get-accumulate, which it completes inside the call. The layer gives a request that is
 * already complete, with an empty status. */
static int rma_request(int rc, MPI_Request *req)
{
  if (rc == MPI_SUCCESS && req && *req == MPI_REQUEST_NULL && icsim_runtime_get()) {
    MPI_Status st;
    st.MPI_SOURCE = MPI_ANY_SOURCE;
    st.MPI_TAG = MPI_ANY_TAG;
    st.MPI_ERROR = MPI_SUCCESS;
    st.count = 0;
    st.cancelled = 0;
    rc = icsim_engine_completed(req, &st);
  }
  return rc;
}

int MPI_Rput(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
             MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
  icsim_charge_call("MPI_Rput");
  uint64_t id = rma(ICSIM_MSG_PUT, obuf, icsim_type_bytes(ocount, otype), target, win, 0);
  int rc = PMPI_Rput(no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, win, req);
  return icsim_win_error(win, "MPI_Rput", rma_request(rma_done(rc, id, 0), req));
}

int MPI_Rget(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
             MPI_Win win, MPI_Request *req)
{
  icsim_charge_call("MPI_Rget");
  uint64_t id = rma(ICSIM_MSG_GET, obuf, icsim_type_bytes(tcount, ttype), target, win, 0);
  int rc = PMPI_Rget(no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, win, req);
  return icsim_win_error(win, "MPI_Rget", rma_request(rma_done(rc, id, 0), req));
}

int MPI_Raccumulate(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                    MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *req)
{
  icsim_charge_call("MPI_Raccumulate");
  uint64_t id = rma(ICSIM_MSG_PUT, obuf, icsim_type_bytes(ocount, otype), target, win, 1);
  int rc = PMPI_Raccumulate(no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, op, win, req);
  return icsim_win_error(win, "MPI_Raccumulate", rma_request(rma_done(rc, id, 0), req));
}

/* Read-modify-write operations fetch the old value and send the new one: both directions. SMPI
 * 3.32 makes them a get and then an accumulate, so on the origin's own window the get is a local
 * copy and the accumulate still a transfer (as MPI_Accumulate's). */
int MPI_Get_accumulate(const void *obuf, int ocount, MPI_Datatype otype, void *rbuf, int rcount, MPI_Datatype rtype,
                       int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
  icsim_charge_call("MPI_Get_accumulate");
  uint64_t get = rma(ICSIM_MSG_GET, rbuf, icsim_type_bytes(tcount, ttype), target, win, 0), put = 0;
  if (op != MPI_NO_OP)
    put = rma(ICSIM_MSG_PUT, obuf, icsim_type_bytes(ocount, otype), target, win, 1);
  int rc = PMPI_Get_accumulate(no_data(obuf, ocount, otype), ocount, otype, no_data(rbuf, rcount, rtype), rcount, rtype,
                               target, tdisp, tcount, ttype, op, win);
  return icsim_win_error(win, "MPI_Get_accumulate", rma_done(rc, get, put));
}

int MPI_Rget_accumulate(const void *obuf, int ocount, MPI_Datatype otype, void *rbuf, int rcount, MPI_Datatype rtype,
                        int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                        MPI_Request *req)
{
  icsim_charge_call("MPI_Rget_accumulate");
  uint64_t get = rma(ICSIM_MSG_GET, rbuf, icsim_type_bytes(tcount, ttype), target, win, 0), put = 0;
  if (op != MPI_NO_OP)
    put = rma(ICSIM_MSG_PUT, obuf, icsim_type_bytes(ocount, otype), target, win, 1);
  int rc = PMPI_Rget_accumulate(no_data(obuf, ocount, otype), ocount, otype, no_data(rbuf, rcount, rtype), rcount,
                                rtype, target, tdisp, tcount, ttype, op, win, req);
  return icsim_win_error(win, "MPI_Rget_accumulate", rma_request(rma_done(rc, get, put), req));
}

int MPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype type, int target, MPI_Aint tdisp, MPI_Op op,
                     MPI_Win win)
{
  return MPI_Get_accumulate(obuf, 1, type, rbuf, 1, type, target, tdisp, 1, type, op, win);
}

/* SMPI makes a compare-and-swap a get and then, when the value fetched equals the comparand, a
 * put (a local copy on the own window). Whether the put happens is read from the target's cell
 * just before (win_table.c says when that can be wrong). */
int MPI_Compare_and_swap(const void *obuf, void *cbuf, void *rbuf, MPI_Datatype type, int target, MPI_Aint tdisp,
                         MPI_Win win)
{
  icsim_charge_call("MPI_Compare_and_swap");
  size_t bytes = icsim_type_bytes(1, type);
  uint64_t get = rma(ICSIM_MSG_GET, rbuf, bytes, target, win, 0), put = 0;
  const void *cell = target == MPI_PROC_NULL ? NULL : icsim_win_target_addr(win, target, tdisp);
  MPI_Aint lb = 0, extent = 0;
  if (cell && cbuf && icsim_type_valid(type) && PMPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS && extent > 0 &&
      memcmp(cell, cbuf, (size_t)extent) == 0)
    put = rma(ICSIM_MSG_PUT, obuf, bytes, target, win, 0);
  return icsim_win_error(win, "MPI_Compare_and_swap",
                         rma_done(PMPI_Compare_and_swap(obuf, cbuf, rbuf, type, target, tdisp, win), get, put));
}

/* SMPI's window synchronisation and communicator creation send their own messages (barriers,
 * gathers of colours): bracketed so that --stats counts those transfers as SMPI's own. */
static void internal_enter(const char *name)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt)
    return;
  icsim_charge_call(name);
  icsim_engine_poll();
  icsim_runtime_internal_enter(rt, icsim_my_rank());
}

static int internal_leave(int rc)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt)
    icsim_runtime_internal_leave(rt, icsim_my_rank());
  return rc;
}

#define INTERNAL(NAME, PARAMS, ARGS)                                                                        \
  int MPI_##NAME PARAMS                                                                                    \
  {                                                                                                        \
    internal_enter("MPI_" #NAME);                                                                         \
    return internal_leave(PMPI_##NAME ARGS);                                                               \
  }
INTERNAL(Win_fence, (int assert, MPI_Win win), (assert, win))
/* Window creation and release: SMPI's own messages, and every member's base recorded
 * (win_table.c) inside the same bracket. */
#define WIN_CREATOR(NAME, PARAMS, ARGS, BASE, FLAVOR)                                                       \
  int MPI_##NAME PARAMS                                                                                    \
  {                                                                                                        \
    internal_enter("MPI_" #NAME);                                                                         \
    int rc = PMPI_##NAME ARGS;                                                                             \
    if (rc == MPI_SUCCESS && icsim_runtime_get())                                                          \
      icsim_win_remember(*win, comm, BASE, disp, FLAVOR);                                                  \
    return internal_leave(rc);                                                                             \
  }
WIN_CREATOR(Win_create, (void *base, MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, MPI_Win *win),
            (base, size, disp, info, comm, win), base, MPI_WIN_FLAVOR_CREATE)
WIN_CREATOR(Win_allocate, (MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
            (size, disp, info, comm, base, win), *(void **)base, MPI_WIN_FLAVOR_ALLOCATE)
WIN_CREATOR(Win_allocate_shared, (MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
            (size, disp, info, comm, base, win), *(void **)base, MPI_WIN_FLAVOR_SHARED)

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
  internal_enter("MPI_Win_create_dynamic");
  int rc = PMPI_Win_create_dynamic(info, comm, win);
  if (rc == MPI_SUCCESS && icsim_runtime_get())
    icsim_win_remember(*win, comm, MPI_BOTTOM, 1, MPI_WIN_FLAVOR_DYNAMIC); /* displacements are addresses */
  return internal_leave(rc);
}

int MPI_Win_free(MPI_Win *win)
{
  internal_enter("MPI_Win_free");
  MPI_Win w = win ? *win : MPI_WIN_NULL;
  int rc = PMPI_Win_free(win);
  if (rc == MPI_SUCCESS)
    icsim_win_forget(w);
  return internal_leave(rc);
}
INTERNAL(Win_start, (MPI_Group group, int assert, MPI_Win win), (group, assert, win))
INTERNAL(Win_complete, (MPI_Win win), (win))
INTERNAL(Win_post, (MPI_Group group, int assert, MPI_Win win), (group, assert, win))
INTERNAL(Win_wait, (MPI_Win win), (win))
/* MPI_Win_test (SMPI 3.32's stub aborts): the exposure epoch is waited for, and then it has ended.
 * That cannot deadlock: the origins' MPI_Win_complete needs nothing more from the target. What the
 * program loses is only its own work between a test that finds the epoch open and the next. */
int MPI_Win_test(MPI_Win win, int *flag)
{
  internal_enter("MPI_Win_test");
  int rc = PMPI_Win_wait(win);
  if (flag)
    *flag = rc == MPI_SUCCESS;
  return internal_leave(rc);
}
INTERNAL(Win_lock, (int type, int rank, int assert, MPI_Win win), (type, rank, assert, win))
INTERNAL(Win_unlock, (int rank, MPI_Win win), (rank, win))
INTERNAL(Win_lock_all, (int assert, MPI_Win win), (assert, win))
INTERNAL(Win_unlock_all, (MPI_Win win), (win))
INTERNAL(Win_flush, (int rank, MPI_Win win), (rank, win))
INTERNAL(Win_flush_all, (MPI_Win win), (win))
INTERNAL(Win_flush_local, (int rank, MPI_Win win), (rank, win))
INTERNAL(Win_flush_local_all, (MPI_Win win), (win))
/* A duplicate of an intercommunicator is one too (intercomm.c). */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
  internal_enter("MPI_Comm_dup");
  int rc = internal_leave(PMPI_Comm_dup(comm, out));
  if (rc == MPI_SUCCESS && out && icsim_runtime_get())
    icsim_inter_dup(comm, *out);
  return rc;
}
/* Communicators made from another. From an intercommunicator: split and create make
 * intercommunicators (intercomm.c); split_type and create_group are refused (intracommunicators
 * only). */
#define COMM_MAKER(NAME, PARAMS, ARGS, INTER)                                                               \
  int MPI_##NAME PARAMS                                                                                    \
  {                                                                                                        \
    if (icsim_inter_of(comm))                                                                              \
      INTER;                                                                                               \
    internal_enter("MPI_" #NAME);                                                                         \
    return internal_leave(PMPI_##NAME ARGS);                                                               \
  }
COMM_MAKER(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *out), (comm, color, key, out),
           return icsim_inter_split(comm, color, key, out))
COMM_MAKER(Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out),
           (comm, type, key, info, out), icsim_inter_refuse(comm, "MPI_Comm_split_type"))
COMM_MAKER(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *out), (comm, group, out),
           return icsim_inter_create(comm, group, out))
COMM_MAKER(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out), (comm, group, tag, out),
           icsim_inter_refuse(comm, "MPI_Comm_create_group"))
/* Cartesian communicators: SMPI's messages bracketed, and the result marked for MPI_Topo_test
 * (topology.c: SMPI's is a stub). */
int MPI_Cart_create(MPI_Comm comm, int ndims, const int *dims, const int *periods, int reorder, MPI_Comm *out)
{
  internal_enter("MPI_Cart_create");
  int rc = internal_leave(PMPI_Cart_create(comm, ndims, dims, periods, reorder, out));
  if (rc == MPI_SUCCESS && out && icsim_runtime_get())
    icsim_topo_mark_cart(*out);
  return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int *remain, MPI_Comm *out)
{
  internal_enter("MPI_Cart_sub");
  int rc = internal_leave(PMPI_Cart_sub(comm, remain, out));
  if (rc == MPI_SUCCESS && out && icsim_runtime_get())
    icsim_topo_mark_cart(*out);
  return rc;
}
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *out)
{
  internal_enter("MPI_Comm_dup_with_info");
  int rc = internal_leave(PMPI_Comm_dup_with_info(comm, info, out));
  if (rc == MPI_SUCCESS && out && icsim_runtime_get())
    icsim_inter_dup(comm, *out);
  return rc;
}
/* Graph and distributed-graph creation: topology.c (SMPI 3.32's are stubs). */
