/* The MPI layer's common parts: who the calling rank is, how messages are described to the
 * stacks and charged, errors handed to the handlers, and the compute phases of our own kernels.
 *
 * What the layer promises: every message an MPI program sends or receives, through any call,
 * from C or Fortran, reaches the stack models (per-call CPU, per-message CPU on each side, and
 * its transfer on the wire joined by one id), or the program stops with a message saying what is
 * not supported. Start and end of ranks (MPI_Init, MPI_Abort, exit) are in lifecycle.c,
 * point-to-point entry points in p2p.c, completion and the progress engine in
 * engine.c, collectives in coll*.c, Fortran entry points in fortran.c. Outside icsim (plain
 * smpirun without the icsim platform) every entry point passes through to PMPI_*. */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

/* One int per actor that never moves once handed out: a rank that yields (an MPI call, a CPU
 * charge) while holding the pointer finds it still valid when another rank's first use has grown
 * the table meanwhile. A realloc-ed array did not: past 17 ranks the adaptor's MPI_Init wrote its
 * call depth into freed memory (pid 18 was the first to grow the table). Pages of 1024 slots. */
struct actor_ints {
  int **pages;
  size_t npages;
  int init;
};

static int *actor_int(struct actor_ints *t)
{
  size_t pid = (size_t)sg_actor_self_get_pid();
  size_t page = pid / 1024;
  if (page >= t->npages) {
    size_t n = page + 1;
    t->pages = realloc(t->pages, n * sizeof *t->pages);
    for (size_t i = t->npages; i < n; i++)
      t->pages[i] = NULL;
    t->npages = n;
  }
  if (!t->pages[page]) {
    t->pages[page] = malloc(1024 * sizeof(int));
    for (size_t i = 0; i < 1024; i++)
      t->pages[page][i] = t->init;
  }
  return &t->pages[page][pid % 1024];
}

/* World rank of the calling rank, cached by actor pid: each PMPI call costs SMPI two clock
 * syscalls, and this is asked for every message. */
int icsim_my_rank(void)
{
  static struct actor_ints by_pid = {NULL, 0, -1};
  int *mine = actor_int(&by_pid);
  if (*mine < 0) {
    int r = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    *mine = r;
  }
  return *mine;
}

int icsim_group_world_rank(MPI_Group g, int r)
{
  MPI_Group wg;
  int out = MPI_UNDEFINED;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, 1, &r, wg, &out);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  return out;
}

/* Communicators whose ranks are the world's (the collectives' shadows of MPI_COMM_WORLD, a dup of
 * it) answer icsim_world_rank from this table instead of five PMPI calls per message. A chained
 * hash on the communicator's address; an attribute's delete callback drops the entry when SMPI
 * destroys the communicator, so a new one at the same address starts unknown. Globals: SMPI runs
 * one rank at a time and nothing here yields. */
struct same_ranks {
  MPI_Comm comm;
  int identity; /* 1: rank r is world rank r; 0: translate */
  struct same_ranks *next;
};
static struct same_ranks *same_ranks_bucket[1024];
static int same_ranks_keyval = MPI_KEYVAL_INVALID;

static size_t same_ranks_hash(MPI_Comm c) { return ((uintptr_t)c >> 4) % (sizeof same_ranks_bucket / sizeof same_ranks_bucket[0]); }

static int same_ranks_drop(MPI_Comm comm, int key, void *value, void *extra)
{
  (void)key;
  (void)value;
  (void)extra;
  for (struct same_ranks **at = &same_ranks_bucket[same_ranks_hash(comm)]; *at; at = &(*at)->next)
    if ((*at)->comm == comm) {
      struct same_ranks *gone = *at;
      *at = gone->next;
      free(gone);
      break;
    }
  return MPI_SUCCESS;
}

static int ranks_are_world(MPI_Comm comm)
{
  for (struct same_ranks *e = same_ranks_bucket[same_ranks_hash(comm)]; e; e = e->next)
    if (e->comm == comm)
      return e->identity;
  MPI_Group g, wg;
  int cmp = MPI_UNEQUAL;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_compare(g, wg, &cmp);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  if (same_ranks_keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, same_ranks_drop, &same_ranks_keyval, NULL);
  if (PMPI_Comm_set_attr(comm, same_ranks_keyval, NULL) != MPI_SUCCESS)
    return 0; /* no way to learn of its end: not cached */
  struct same_ranks *e = malloc(sizeof *e);
  size_t h = same_ranks_hash(comm);
  *e = (struct same_ranks){comm, cmp == MPI_IDENT, same_ranks_bucket[h]};
  same_ranks_bucket[h] = e;
  return e->identity;
}

int icsim_world_rank(MPI_Comm comm, int r)
{
  if (comm == MPI_COMM_WORLD || r < 0 || r == MPI_ANY_SOURCE)
    return r;
  if (comm != MPI_COMM_SELF && ranks_are_world(comm))
    return r;
  MPI_Group g;
  PMPI_Comm_group(comm, &g);
  return icsim_group_world_rank(g, r);
}

/* Common predefined types answered here: each PMPI call costs SMPI two clock syscalls. */
size_t icsim_type_bytes(int count, MPI_Datatype type)
{
  size_t size;
  if (type == MPI_CHAR || type == MPI_BYTE || type == MPI_UNSIGNED_CHAR || type == MPI_SIGNED_CHAR)
    size = 1;
  else if (type == MPI_INT || type == MPI_FLOAT || type == MPI_UNSIGNED)
    size = 4;
  else if (type == MPI_DOUBLE || type == MPI_LONG_LONG || type == MPI_LONG)
    size = 8;
  else {
    int s;
    PMPI_Type_size(type, &s);
    size = (size_t)s;
  }
  return count > 0 ? (size_t)count * size : 0;
}

void icsim_fill_msg(struct icsim_runtime *rt, struct icsim_msg *m, int src, int dst, size_t bytes, const void *buf,
                    int tag)
{
  int sh = rt->rank_host[src], dh = rt->rank_host[dst];
  m->kind = ICSIM_MSG_P2P;
  m->src_rank = src;
  m->dst_rank = dst;
  m->src_node = sh / rt->pf.p.sockets;
  m->src_socket = sh % rt->pf.p.sockets;
  m->dst_node = dh / rt->pf.p.sockets;
  m->dst_socket = dh % rt->pf.p.sockets;
  m->bytes = bytes;
  m->buf = buf;
  m->tag = tag;
}

void icsim_occupy_cpu(double seconds)
{
  if (seconds <= 0)
    return;
  double flops = seconds * sg_host_get_speed(sg_host_self());
  /* With host timing on, SMPI is timing the program's code: pause that timer around our
   * charge. With it off there is no timer, and skipping the pause saves two clock syscalls. */
  if (icsim_runtime_get()->host_timing)
    smpi_execute_flops_benched(flops);
  else
    smpi_execute_flops(flops);
}

/* Calls a call layer's own entry point brackets (the abi stack's adaptor: icsim_call_enter/leave),
 * per actor: inside one, the layer's own charges are not made again (its collectives' sends, the
 * Waitall inside Sendrecv), so the call layer's cost is paid once per call the program makes. */
static struct actor_ints entered_depth = {NULL, 0, 0};

static int *entered_slot(void) { return actor_int(&entered_depth); }

/* MPI_ERRORS_ARE_FATAL: say which call failed and how, and stop the run. */
static void fatal(const char *call, int rc, const char *on)
{
  char what[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, what, &len) != MPI_SUCCESS) /* errors.c: the program's codes too */
    len = snprintf(what, sizeof what, "error code %d", rc);
  fprintf(stderr,
          "icsim: rank %d: %s failed: %.*s. The %s's error handler is MPI_ERRORS_ARE_FATAL, so the run stops (set "
          "MPI_ERRORS_RETURN on it to get the error code back)\n",
          icsim_my_rank(), call, len, what, on);
  icsim_stop(1);
}

/* Handler EH (a reference the caller got, released here) of the communicator or window ON: stops
 * the run when it is MPI_ERRORS_ARE_FATAL; 1 when it is the program's own, for the caller to call.
 * SMPI takes a null handler as MPI_ERRORS_RETURN. */
static int programs_own(MPI_Errhandler eh, const char *call, int rc, const char *on)
{
  if (eh == MPI_ERRORS_ARE_FATAL)
    fatal(call, rc, on);
  int own = eh != MPI_ERRHANDLER_NULL && eh != MPI_ERRORS_RETURN;
  if (eh != MPI_ERRHANDLER_NULL)
    PMPI_Errhandler_free(&eh);
  return own;
}

int icsim_win_error(MPI_Win win, const char *call, int rc)
{
  if (rc == MPI_SUCCESS || !icsim_runtime_get() || win == MPI_WIN_NULL)
    return rc;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (PMPI_Win_get_errhandler(win, &eh) == MPI_SUCCESS && programs_own(eh, call, rc, "window"))
    PMPI_Win_call_errhandler(win, rc);
  return rc;
}

int icsim_error(MPI_Comm comm, const char *call, int rc)
{
  if (rc == MPI_SUCCESS || !icsim_runtime_get())
    return rc;
  MPI_Comm on = comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (PMPI_Comm_get_errhandler(on, &eh) != MPI_SUCCESS) {
    on = MPI_COMM_WORLD;
    PMPI_Comm_get_errhandler(on, &eh);
  }
  if (programs_own(eh, call, rc, "communicator"))
    PMPI_Comm_call_errhandler(on, rc);
  return rc;
}

/* A program raising an error itself. SMPI 3.32 calls the predefined handlers' functions, which
 * are null: MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN crashed the program (MPICH's errfatal).
 * Fatal stops the run naming the error, return does nothing, the program's own is called. */
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  int rc = PMPI_Comm_get_errhandler(comm, &eh);
  if (rc != MPI_SUCCESS)
    return rc;
  if (programs_own(eh, "MPI_Comm_call_errhandler", errorcode, "communicator"))
    return PMPI_Comm_call_errhandler(comm, errorcode);
  return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  int rc = PMPI_Win_get_errhandler(win, &eh);
  if (rc != MPI_SUCCESS)
    return rc;
  if (programs_own(eh, "MPI_Win_call_errhandler", errorcode, "window"))
    return PMPI_Win_call_errhandler(win, errorcode);
  return MPI_SUCCESS;
}

int icsim_direct_ok(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  return rt && !rt->host_timing;
}

void icsim_charge_call(const char *name)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt && rt->has_call_cpu && *entered_slot() == 0)
    icsim_occupy_cpu(icsim_runtime_call_cpu(rt, name));
}

void icsim_call_enter(const char *name)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int *depth = entered_slot();
  if (rt && rt->has_call_cpu && *depth == 0)
    icsim_occupy_cpu(icsim_runtime_call_cpu(rt, name));
  ++*depth;
}

void icsim_call_leave(void)
{
  int *depth = entered_slot();
  if (*depth > 0)
    --*depth;
}

void icsim_charge_poll(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt)
    icsim_occupy_cpu(rt->pf.p.poll_instructions / rt->pf.p.clock_Hz);
}

/* The id of the last announcement (all ranks share this process; read right after a send). */
static uint64_t last_announced;

void icsim_charge_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt || dest == MPI_PROC_NULL)
    return;
  struct icsim_msg m;
  int to = icsim_world_rank(comm, dest);
  icsim_check_peer(to);
  icsim_fill_msg(rt, &m, icsim_my_rank(), to, icsim_type_bytes(count, type), buf, tag);
  icsim_occupy_cpu(icsim_runtime_send_cpu(rt, &m));
  last_announced = icsim_runtime_announce(rt, &m, simgrid_get_clock());
}

/* Which announcement a send request carries, for MPI_Cancel: a direct-mapped cache by handle (a slot
 * is overwritten by a later send; a cancel that finds another handle there withdraws nothing, and
 * its announcement stays counted as never started). LINGERS: SMPI 3.32 detached the send (a
 * standard or ready one below the detach threshold, or a buffered one), and cancelling a detached
 * send still waiting in the mailbox marks the request cancelled but leaves the message there
 * (CommImpl::cancel skips detached communications): a receive may still take it, so its
 * announcement stays for a transfer to take, counted only if one does. */
#define SENT_SLOTS 4096
static struct {
  MPI_Request req;
  uint64_t id;
  int lingers;
} sent[SENT_SLOTS];

static size_t sent_slot(MPI_Request r) { return (size_t)(((uintptr_t)r >> 4) * 0x9E3779B1u) % SENT_SLOTS; }

void icsim_remember_send(MPI_Request req, uint64_t id, int lingers)
{
  size_t i = sent_slot(req);
  sent[i].req = req;
  sent[i].id = id;
  sent[i].lingers = lingers;
}

uint64_t icsim_last_announced(void) { return last_announced; }

void icsim_withdraw_send(MPI_Request req, uint64_t id)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt)
    return;
  if (req != MPI_REQUEST_NULL) {
    size_t i = sent_slot(req);
    if (sent[i].req != req)
      return;
    id = sent[i].id;
    sent[i].req = MPI_REQUEST_NULL;
    if (sent[i].lingers) {
      if (id)
        icsim_runtime_cancel_lingering(rt, id);
      return;
    }
  }
  if (id)
    icsim_runtime_withdraw(rt, id);
}

/* Declared compute phases (workloads/include/icsim_phase.h). With host timing on, SMPI is
 * timing the program: stop its timer for the phase, whose cost comes from the model instead. */
void icsim_phase_begin(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt && rt->host_timing)
    smpi_bench_end();
}

void icsim_phase_end_work(double ops, double bytes, double accesses, double working_set, double access_set,
                          double chain, double chain_mul, double chain_divide, double mispredicts, double stride,
                          double stride_stores, double paths, double branch_chain, double integer,
                          double store_fills)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt)
    return;
  int me = icsim_my_rank();
  struct icsim_work w = {.ops = ops,
                         .bytes = bytes,
                         .accesses = accesses,
                         .working_set = working_set,
                         .access_set = access_set,
                         .chain = chain,
                         .chain_mul = chain_mul,
                         .chain_divide = chain_divide,
                         .mispredicts = mispredicts,
                         .stride = stride,
                         .stride_stores = stride_stores,
                         .paths = paths,
                         .branch_chain = branch_chain,
                         .integer = integer,
                         .store_fills = store_fills};
  double t = icsim_runtime_compute_time(rt, me, &w);
  if (t > 0)
    smpi_execute_flops(t * sg_host_get_speed(sg_host_self()));
  if (me < rt->nranks)
    rt->compute_s[me] += t;
  rt->phases++;
  rt->phase_ops += ops;
  rt->phase_bytes += bytes;
  rt->phase_accesses += accesses;
  if (rt->host_timing)
    smpi_bench_begin();
}

/* A phase declared the first way: operations and bytes streamed from memory. */
void icsim_phase_end(double ops, double bytes) { icsim_phase_end_work(ops, bytes, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); }

double icsim_phase_seconds(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int me = rt ? icsim_my_rank() : -1;
  return rt && me < rt->nranks ? rt->compute_s[me] : 0;
}

int icsim_phase_modeled(void) { return icsim_runtime_get() != NULL; }
