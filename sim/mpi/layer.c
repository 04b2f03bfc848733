/* The MPI layer: strong MPI_* point-to-point entry points linked into every program built
 * with icsimcc. Each charges the stack's per-message CPU time as real CPU occupation of the
 * calling rank (so a busy CPU delays its next operation) and then calls SMPI's PMPI_*.
 *
 * Send side: charged before the message is handed over (the stack's work precedes the wire).
 * Receive side: charged when the receive completes (taking the data out of the stack).
 * Outside icsim (plain smpirun without the icsim platform) every wrapper is a pass-through.
 * Collectives are built on these calls in mpi_coll.c, so their messages pay the same costs.
 * Globals here are shared by all ranks: SMPI runs them in one process. */
#include <mpi.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

/* Receives in flight: request -> buffer and communicator, to cost them on completion. */
#define PENDING_BUCKETS 4096
struct pending {
  MPI_Request req;
  const void *buf;
  MPI_Comm comm;
  struct pending *next;
};
static struct pending *pending[PENDING_BUCKETS];

static size_t bucket_of(MPI_Request r) { return ((uintptr_t)r >> 4) % PENDING_BUCKETS; }

static void pending_add(MPI_Request r, const void *buf, MPI_Comm comm)
{
  struct pending *p = malloc(sizeof *p);
  p->req = r;
  p->buf = buf;
  p->comm = comm;
  p->next = pending[bucket_of(r)];
  pending[bucket_of(r)] = p;
}

/* Remove and return the entry of R (caller frees), or NULL. */
static struct pending *pending_take(MPI_Request r)
{
  for (struct pending **pp = &pending[bucket_of(r)]; *pp; pp = &(*pp)->next)
    if ((*pp)->req == r) {
      struct pending *p = *pp;
      *pp = p->next;
      return p;
    }
  return NULL;
}

/* Rank R of group G (freed here) in MPI_COMM_WORLD. */
static int group_to_world(MPI_Group g, int r)
{
  MPI_Group wg;
  int out = MPI_UNDEFINED;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, 1, &r, wg, &out);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  return out;
}

static int world_rank(MPI_Comm comm, int r)
{
  if (comm == MPI_COMM_WORLD || r < 0)
    return r;
  MPI_Group g;
  PMPI_Comm_group(comm, &g);
  return group_to_world(g, r);
}

static void fill_msg(struct icsim_runtime *rt, struct icsim_msg *m, int src_world, int dst_world, size_t bytes,
                     const void *buf, int tag)
{
  m->kind = ICSIM_MSG_P2P;
  int sh = rt->rank_host[src_world], dh = rt->rank_host[dst_world];
  m->src_rank = src_world;
  m->dst_rank = dst_world;
  m->src_node = sh / rt->pf.p.sockets;
  m->src_socket = sh % rt->pf.p.sockets;
  m->dst_node = dh / rt->pf.p.sockets;
  m->dst_socket = dh % rt->pf.p.sockets;
  m->bytes = bytes;
  m->buf = buf;
  m->tag = tag;
}

static void occupy_cpu(double seconds)
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

/* World rank of the calling rank, cached by actor pid: each PMPI call costs SMPI two clock
 * syscalls, and this is asked for every message. */
static int my_world_rank(void)
{
  static int *by_pid;
  static size_t cap;
  size_t pid = (size_t)sg_actor_self_get_pid();
  if (pid >= cap) {
    size_t n = pid * 2 + 16;
    by_pid = realloc(by_pid, n * sizeof *by_pid);
    for (size_t i = cap; i < n; i++)
      by_pid[i] = -1;
    cap = n;
  }
  if (by_pid[pid] < 0)
    PMPI_Comm_rank(MPI_COMM_WORLD, &by_pid[pid]);
  return by_pid[pid];
}

/* Common predefined types answered here: each PMPI call costs SMPI two clock syscalls. */
static size_t type_size(MPI_Datatype type)
{
  if (type == MPI_CHAR || type == MPI_BYTE || type == MPI_UNSIGNED_CHAR || type == MPI_SIGNED_CHAR)
    return 1;
  if (type == MPI_INT || type == MPI_FLOAT || type == MPI_UNSIGNED)
    return 4;
  if (type == MPI_DOUBLE || type == MPI_LONG_LONG || type == MPI_LONG)
    return 8;
  int size;
  PMPI_Type_size(type, &size);
  return (size_t)size;
}

static void charge_send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt || dest == MPI_PROC_NULL)
    return;
  struct icsim_msg m;
  fill_msg(rt, &m, my_world_rank(), world_rank(comm, dest), (size_t)count * type_size(type), buf, tag);
  occupy_cpu(icsim_runtime_send_cpu(rt, &m));
}

static void charge_recv(const void *buf, MPI_Comm comm, const MPI_Status *st)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
    return;
  int bytes = st->count; /* SMPI keeps the received size in bytes in the status */
  struct icsim_msg m;
  fill_msg(rt, &m, world_rank(comm, st->MPI_SOURCE), my_world_rank(), (size_t)(bytes > 0 ? bytes : 0), buf,
           st->MPI_TAG);
  occupy_cpu(icsim_runtime_recv_cpu(rt, &m));
}

int MPI_Init(int *argc, char ***argv)
{
  int rc = PMPI_Init(argc, argv);
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rc == MPI_SUCCESS && rt) {
    int me = my_world_rank(), n;
    PMPI_Comm_size(MPI_COMM_WORLD, &n);
    char expect[64];
    icsim_host_name(&rt->pf, rt->rank_host[me < rt->nranks ? me : 0], expect, sizeof expect);
    if (n != rt->nranks || strcmp(expect, sg_host_get_name(sg_host_self())) != 0) {
      fprintf(stderr,
              "icsim: rank %d runs on %s but the placement says %s (-np %d, %s=%d): the hostfile and %s disagree; "
              "regenerate the command with `icsim run --dry-run`\n",
              me, sg_host_get_name(sg_host_self()), expect, n, ICSIM_ENV_NRANKS, rt->nranks, ICSIM_ENV_PLACE);
      PMPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  return rc;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  charge_send(buf, count, type, dest, tag, comm);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
  charge_send(buf, count, type, dest, tag, comm);
  return PMPI_Ssend(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
  charge_send(buf, count, type, dest, tag, comm);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Status *status)
{
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Recv(buf, count, type, src, tag, comm, st);
  if (rc == MPI_SUCCESS)
    charge_recv(buf, comm, st);
  return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req)
{
  int rc = PMPI_Irecv(buf, count, type, src, tag, comm, req);
  if (rc == MPI_SUCCESS && icsim_runtime_get() && src != MPI_PROC_NULL)
    pending_add(*req, buf, comm);
  return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *status)
{
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  charge_send(sbuf, scount, stype, dest, stag, comm);
  int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm, st);
  if (rc == MPI_SUCCESS)
    charge_recv(rbuf, comm, st);
  return rc;
}

/* Cost the receives among REQS[0..n) that completed (COMPLETED[i] != 0), using STATUSES. */
static void settle(int n, const MPI_Request *before, const int *completed, const MPI_Status *statuses)
{
  for (int i = 0; i < n; i++) {
    if (!completed[i] || before[i] == MPI_REQUEST_NULL)
      continue;
    struct pending *p = pending_take(before[i]);
    if (p) {
      charge_recv(p->buf, p->comm, &statuses[i]);
      free(p);
    }
  }
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
  MPI_Request before = *req;
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Wait(req, st);
  int done = 1;
  if (rc == MPI_SUCCESS)
    settle(1, &before, &done, st);
  return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
  MPI_Request before = *req;
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Test(req, flag, st);
  if (rc == MPI_SUCCESS && *flag)
    settle(1, &before, flag, st);
  return rc;
}

/* Waitall completes requests one at a time and costs each receive as it lands, so that the
 * receiver's software work overlaps later arrivals, as a progress engine does: a window of 64
 * receives costs max(arrival, processing) per message, not arrival + processing. */
int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
  if (!icsim_runtime_get())
    return PMPI_Waitall(n, reqs, statuses);
  int rc = MPI_SUCCESS;
  for (int done = 0; done < n; done++) {
    int index;
    MPI_Status st;
    rc = MPI_Waitany(n, reqs, &index, &st);
    if (rc != MPI_SUCCESS || index == MPI_UNDEFINED)
      break;
    if (statuses != MPI_STATUSES_IGNORE)
      statuses[index] = st;
  }
  return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  MPI_Request *before = malloc((size_t)(n > 0 ? n : 1) * sizeof *before);
  memcpy(before, reqs, (size_t)n * sizeof *before);
  int rc = PMPI_Waitany(n, reqs, index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) {
    int done = 1;
    settle(1, &before[*index], &done, st);
  }
  free(before);
  return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
  MPI_Request *before = malloc((size_t)(n > 0 ? n : 1) * sizeof *before);
  MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? malloc((size_t)(n > 0 ? n : 1) * sizeof *st) : statuses;
  int *done = malloc((size_t)(n > 0 ? n : 1) * sizeof *done);
  for (int i = 0; i < n; i++) {
    before[i] = reqs[i];
    done[i] = 1;
  }
  int rc = PMPI_Testall(n, reqs, flag, st);
  if (rc == MPI_SUCCESS && *flag)
    settle(n, before, done, st);
  free(before);
  free(done);
  if (statuses == MPI_STATUSES_IGNORE)
    free(st);
  return rc;
}

/* One-sided operations: costed by the stack as their own kind, and announced to the wire side. */
static int rma(enum icsim_msg_kind kind, const void *buf, int count, MPI_Datatype type, int target, MPI_Win win)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt || target == MPI_PROC_NULL)
    return 0;
  MPI_Group g;
  PMPI_Win_get_group(win, &g);
  int world = group_to_world(g, target);
  struct icsim_msg m;
  int me = my_world_rank();
  fill_msg(rt, &m, me, world, (size_t)count * type_size(type), buf, 0);
  m.kind = kind;
  /* data flows origin -> target for a put, target -> origin for a get */
  int from = kind == ICSIM_MSG_PUT ? rt->rank_host[me] : rt->rank_host[world];
  int to = kind == ICSIM_MSG_PUT ? rt->rank_host[world] : rt->rank_host[me];
  icsim_runtime_expect_rma(rt, kind, from, to, (double)m.bytes);
  occupy_cpu(icsim_runtime_send_cpu(rt, &m));
  return 0;
}

int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
            MPI_Datatype ttype, MPI_Win win)
{
  rma(ICSIM_MSG_PUT, obuf, ocount, otype, target, win);
  return PMPI_Put(obuf, ocount, otype, target, tdisp, tcount, ttype, win);
}

int MPI_Get(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
            MPI_Win win)
{
  rma(ICSIM_MSG_GET, obuf, ocount, otype, target, win);
  return PMPI_Get(obuf, ocount, otype, target, tdisp, tcount, ttype, win);
}

/* Declared compute phases (workloads/include/icsim_phase.h). With host timing on, SMPI is
 * timing the program: stop its timer for the phase, whose cost comes from the model instead. */
void icsim_phase_begin(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt && rt->host_timing)
    smpi_bench_end();
}

void icsim_phase_end(double ops, double bytes)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt)
    return;
  int me = my_world_rank();
  double t = icsim_runtime_compute_time(rt, me, ops, bytes);
  if (t > 0)
    smpi_execute_flops(t * sg_host_get_speed(sg_host_self()));
  if (me < rt->nranks)
    rt->compute_s[me] += t;
  rt->phases++;
  rt->phase_ops += ops;
  rt->phase_bytes += bytes;
  if (rt->host_timing)
    smpi_bench_begin();
}

double icsim_phase_seconds(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int me = rt ? my_world_rank() : -1;
  return rt && me < rt->nranks ? rt->compute_s[me] : 0;
}

int icsim_phase_modeled(void) { return icsim_runtime_get() != NULL; }
