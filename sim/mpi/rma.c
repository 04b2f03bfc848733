/* One-sided communication: the RMA calls, window creation, synchronisation and release, and
 * the table of every window's members.
 *
 * Calls: the origin's CPU issues each; its transfer is announced in the direction the data flows.
 * Window creation, synchronisation and release are SMPI's own messages (the bracket:
 * smpi_bracket.c).
 *
 * The members' table: where each rank's window memory is, for the calls whose traffic depends on data.
 *
 * SMPI 3.32 makes MPI_Compare_and_swap a get and then, only when the value fetched equals the
 * comparand, a put, both started inside the call: the layer must announce the put before the call
 * if it is to happen. All ranks live in one address space under SMPI, so the origin can look at
 * the target's cell just before the call (as SMPI's get will, a moment later). Each window records
 * every member's base and displacement unit when it is created (an allgather inside the creating
 * call, whose messages are SMPI's own). Under an exclusive lock the look is exact; where several
 * ranks swap the same cell under a shared lock, another rank's swap may land in between, and one
 * put may then be announced in vain or happen unannounced (counted either way by --stats).
 * Creation also gives attr.c the window's MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL, which SMPI 3.32
 * does not know. */
#include <simgrid/engine.h>
#include <stdlib.h>
#include <string.h>

#include "comm_record.h"
#include "layer.h"


struct win_entry {
  MPI_Win win; /* this rank's handle */
  int n;
  MPI_Aint *base_unit; /* [n][2]: base address (MPI_BOTTOM for a dynamic window), displacement unit */
  struct win_entry *next;
};
static struct win_entry *wins;

void icsim_win_remember(MPI_Win win, MPI_Comm comm, const void *base, int disp_unit, int flavor)
{
  int n = 0;
  PMPI_Comm_size(comm, &n);
  struct win_entry *e = calloc(1, sizeof *e);
  e->base_unit = malloc(2 * sizeof *e->base_unit * (size_t)(n > 0 ? n : 1));
  MPI_Aint mine[2] = {(MPI_Aint)(intptr_t)base, disp_unit};
  if (n <= 0 || PMPI_Allgather(mine, 2, MPI_AINT, e->base_unit, 2, MPI_AINT, comm) != MPI_SUCCESS) {
    free(e->base_unit);
    free(e);
    return;
  }
  e->win = win;
  e->n = n;
  icsim_win_attrs_set(win, flavor);
  e->next = wins;
  wins = e;
}

void icsim_win_forget(MPI_Win win)
{
  for (struct win_entry **pp = &wins; *pp; pp = &(*pp)->next)
    if ((*pp)->win == win) {
      struct win_entry *e = *pp;
      *pp = e->next;
      icsim_win_attrs_forget(win);
      free(e->base_unit);
      free(e);
      return;
    }
}

const void *icsim_win_target_addr(MPI_Win win, int target, MPI_Aint disp)
{
  for (const struct win_entry *e = wins; e; e = e->next)
    if (e->win == win) {
      if (target < 0 || target >= e->n)
        return NULL;
      return (const char *)(intptr_t)e->base_unit[2 * target] + disp * e->base_unit[2 * target + 1];
    }
  return NULL;
}

/* ---- the calls ---- */

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
  icsim_occupy(icsim_runtime_send_cpu(rt, &m), ICSIM_CPU_SEND);
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
  return icsim_win_error(win, "MPI_Put", rma_done(PMPI_Put(icsim_no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, win), id, 0));
}

int MPI_Get(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
            MPI_Win win)
{
  icsim_charge_call("MPI_Get");
  uint64_t id = rma(ICSIM_MSG_GET, obuf, icsim_type_bytes(tcount, ttype), target, win, 0);
  return icsim_win_error(win, "MPI_Get", rma_done(PMPI_Get(icsim_no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, win), id, 0));
}

int MPI_Accumulate(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                   MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
  icsim_charge_call("MPI_Accumulate");
  uint64_t id = rma(ICSIM_MSG_PUT, obuf, icsim_type_bytes(ocount, otype), target, win, 1);
  return icsim_win_error(win, "MPI_Accumulate", rma_done(PMPI_Accumulate(icsim_no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, op, win), id, 0));
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
  int rc = PMPI_Rput(icsim_no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, win, req);
  return icsim_win_error(win, "MPI_Rput", rma_request(rma_done(rc, id, 0), req));
}

int MPI_Rget(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
             MPI_Win win, MPI_Request *req)
{
  icsim_charge_call("MPI_Rget");
  uint64_t id = rma(ICSIM_MSG_GET, obuf, icsim_type_bytes(tcount, ttype), target, win, 0);
  int rc = PMPI_Rget(icsim_no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, win, req);
  return icsim_win_error(win, "MPI_Rget", rma_request(rma_done(rc, id, 0), req));
}

int MPI_Raccumulate(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
                    MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *req)
{
  icsim_charge_call("MPI_Raccumulate");
  uint64_t id = rma(ICSIM_MSG_PUT, obuf, icsim_type_bytes(ocount, otype), target, win, 1);
  int rc = PMPI_Raccumulate(icsim_no_data(obuf, ocount, otype), ocount, otype, target, tdisp, tcount, ttype, op, win, req);
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
  int rc = PMPI_Get_accumulate(icsim_no_data(obuf, ocount, otype), ocount, otype, icsim_no_data(rbuf, rcount, rtype), rcount, rtype,
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
  int rc = PMPI_Rget_accumulate(icsim_no_data(obuf, ocount, otype), ocount, otype, icsim_no_data(rbuf, rcount, rtype), rcount,
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
 * just before (the members' table above says when that can be wrong). */
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

/* ---- windows ---- */

#define INTERNAL(NAME, PARAMS, ARGS)                                                                        \
  int MPI_##NAME PARAMS                                                                                    \
  {                                                                                                        \
    icsim_smpi_enter("MPI_" #NAME);                                                                         \
    return icsim_smpi_leave(PMPI_##NAME ARGS);                                                               \
  }
INTERNAL(Win_fence, (int assert, MPI_Win win), (assert, win))
/* Window creation and release: SMPI's own messages, and every member's base recorded
 * (the table above) inside the same bracket. */
#define WIN_CREATOR(NAME, PARAMS, ARGS, BASE, FLAVOR)                                                       \
  int MPI_##NAME PARAMS                                                                                    \
  {                                                                                                        \
    icsim_smpi_enter("MPI_" #NAME);                                                                         \
    int rc = PMPI_##NAME ARGS;                                                                             \
    if (rc == MPI_SUCCESS && icsim_runtime_get())                                                          \
      icsim_win_remember(*win, comm, BASE, disp, FLAVOR);                                                  \
    return icsim_smpi_leave(rc);                                                                             \
  }
WIN_CREATOR(Win_create, (void *base, MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, MPI_Win *win),
            (base, size, disp, info, comm, win), base, MPI_WIN_FLAVOR_CREATE)
WIN_CREATOR(Win_allocate, (MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
            (size, disp, info, comm, base, win), *(void **)base, MPI_WIN_FLAVOR_ALLOCATE)
WIN_CREATOR(Win_allocate_shared, (MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
            (size, disp, info, comm, base, win), *(void **)base, MPI_WIN_FLAVOR_SHARED)

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
  icsim_smpi_enter("MPI_Win_create_dynamic");
  int rc = PMPI_Win_create_dynamic(info, comm, win);
  if (rc == MPI_SUCCESS && icsim_runtime_get())
    icsim_win_remember(*win, comm, MPI_BOTTOM, 1, MPI_WIN_FLAVOR_DYNAMIC); /* displacements are addresses */
  return icsim_smpi_leave(rc);
}

int MPI_Win_free(MPI_Win *win)
{
  icsim_smpi_enter("MPI_Win_free");
  MPI_Win w = win ? *win : MPI_WIN_NULL;
  int rc = PMPI_Win_free(win);
  if (rc == MPI_SUCCESS)
    icsim_win_forget(w);
  return icsim_smpi_leave(rc);
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
  icsim_smpi_enter("MPI_Win_test");
  int rc = PMPI_Win_wait(win);
  if (flag)
    *flag = rc == MPI_SUCCESS;
  return icsim_smpi_leave(rc);
}
INTERNAL(Win_lock, (int type, int rank, int assert, MPI_Win win), (type, rank, assert, win))
INTERNAL(Win_unlock, (int rank, MPI_Win win), (rank, win))
INTERNAL(Win_lock_all, (int assert, MPI_Win win), (assert, win))
INTERNAL(Win_unlock_all, (MPI_Win win), (win))
INTERNAL(Win_flush, (int rank, MPI_Win win), (rank, win))
INTERNAL(Win_flush_all, (MPI_Win win), (win))
INTERNAL(Win_flush_local, (int rank, MPI_Win win), (rank, win))
INTERNAL(Win_flush_local_all, (MPI_Win win), (win))
