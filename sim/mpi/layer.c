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
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/dynar.h>

#include "layer.h"

/* A null buffer of no data (a type of no size): MPI allows it, SMPI 3.32 stops at a null buffer
 * whenever the count is not 0 (MPICH's rma/badrma). Such a buffer is never read or written, so
 * SMPI is given MPI_BOTTOM instead (point-to-point and one-sided calls). */
void *icsim_no_data(const void *buf, int count, MPI_Datatype type)
{
  return buf == NULL && count > 0 && icsim_type_valid(type) && icsim_type_bytes(count, type) == 0 ? MPI_BOTTOM
                                                                                                  : (void *)buf;
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
  m->recv_buf = NULL;
}

/* --trace: the state of rank ME's timeline that a charge of the layer's is (see icsim_occupy). */
static void trace_push(struct icsim_runtime *rt, int me, const char *what)
{
  if (rt && rt->trace)
    icsim_trace_push(rt->trace, me, simgrid_get_clock(), what);
}

static void trace_pop(struct icsim_runtime *rt, int me)
{
  if (rt && rt->trace)
    icsim_trace_pop(rt->trace, me, simgrid_get_clock());
}

/* The timeline's name of a charge of KIND: the layers whose parts make it ("generic send",
 * "abi+generic call", "numa shm-send"). */
static void charge_name(const struct icsim_runtime *rt, enum icsim_cpu_kind kind, char *out, size_t len)
{
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < rt->pf.nlayers && n + 1 < len; i++)
    if (rt->last_part[i] > 0)
      n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "+" : "", rt->pf.layer[i]->name);
  const char *k = icsim_cpu_kind_name[kind];
  if (rt->last_shm && kind != ICSIM_CPU_CALL)
    k = kind == ICSIM_CPU_SEND ? "shm-send" : "shm-recv";
  if (n + 1 < len)
    snprintf(out + n, len - n, "%s%s", n ? " " : "", k);
}

/* --trace: the parts of a charge the layers named (icsim_cpu_part), nested in it: each layer's in
 * the order of the layers (the rest of a layer's share unnamed), scaled as the charge came out on
 * the clock (T0 to T1 for SECONDS asked). Drawn once the charge has ended: the rank's timeline has
 * had nothing else meanwhile, so its events stay in time order. */
static void trace_parts(struct icsim_runtime *rt, int me, double t0, double t1, double seconds,
                        const struct icsim_cpu_named *part, int nparts, const double *layer_s)
{
  if (nparts == 0 || seconds <= 0)
    return;
  double f = (t1 - t0) / seconds, off = 0;
  char name[128];
  for (int i = 0; i < rt->pf.nlayers; i++) {
    double at = t0 + off * f, end = fmin(t1, t0 + (off + layer_s[i]) * f);
    for (int k = 0; k < nparts; k++) {
      if (part[k].layer != i || at >= end)
        continue;
      double b = fmin(end, at + part[k].s * f);
      snprintf(name, sizeof name, "%s %s", rt->pf.layer[i]->name, part[k].name);
      icsim_trace_push(rt->trace, me, at, name);
      icsim_trace_pop(rt->trace, me, b);
      at = b;
    }
    off += layer_s[i];
  }
}

void icsim_occupy(double seconds, enum icsim_cpu_kind kind)
{
  if (seconds <= 0)
    return;
  struct icsim_runtime *rt = icsim_runtime_get();
  int me = icsim_my_rank();
  char name[128];
  /* the parts the layers named, taken before the charge: other ranks compute costs while it runs */
  struct icsim_cpu_named part[ICSIM_CPU_MAX_PARTS];
  double layer_s[ICSIM_MAX_LAYERS];
  int nparts = 0;
  /* the layers' shares of this charge, kept before it runs: other ranks price theirs meanwhile and
   * overwrite the runtime's (the breakdown's split between layers, send and shm-send, needs these) */
  memcpy(layer_s, rt->last_part, sizeof layer_s);
  int shm = rt->last_shm;
  if (rt->trace) {
    charge_name(rt, kind, name, sizeof name);
    trace_push(rt, me, name);
    nparts = icsim_runtime_cpu_parts(part, ICSIM_CPU_MAX_PARTS);
  }
  /* the breakdown keeps what the charge took on the simulated clock (SimGrid ends an execution
   * within its work-amount precision of the request), so that a rank's entries sum to its time */
  double t0 = simgrid_get_clock();
  icsim_occupy_cpu(seconds);
  double t1 = simgrid_get_clock();
  icsim_runtime_charged(rt, me, kind, t1 - t0, layer_s, shm);
  if (rt->trace) {
    trace_parts(rt, me, t0, t1, seconds, part, nparts, layer_s);
    trace_pop(rt, me);
  }
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

/* Calls a call layer's own entry point brackets (a call layer's program-side library: icsim_call_enter/leave),
 * per actor: inside one, the layer's own charges are not made again (its collectives' sends, the
 * Waitall inside Sendrecv), so the call layer's cost is paid once per call the program makes. */
static struct icsim_actor_ints entered_depth = {NULL, 0, 0};

static int *entered_slot(void) { return icsim_actor_int(&entered_depth); }

int icsim_direct_ok(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  return rt && !rt->host_timing;
}

void icsim_charge_call(const char *name)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt && rt->has_call_cpu && *entered_slot() == 0)
    icsim_occupy(icsim_runtime_call_cpu(rt, name), ICSIM_CPU_CALL);
}

void icsim_call_enter(const char *name)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int *depth = entered_slot();
  icsim_enter(name);
  if (rt && rt->has_call_cpu && *depth == 0)
    icsim_occupy(icsim_runtime_call_cpu(rt, name), ICSIM_CPU_CALL);
  ++*depth;
}

void icsim_call_leave(void)
{
  int *depth = entered_slot();
  if (*depth > 0)
    --*depth;
  icsim_leave();
}

/* The bracket of every MPI call a program makes (mpi_entries.c, generated by gen_entries.py; a
 * call layer's icsim_call_enter/leave opens it first): per actor, the depth of program calls. On
 * the timeline (--trace) a rank is always in one top-level state: "program" (its own code: the
 * trace opens one per rank at time 0) or the MPI call it is in, so they tile its time. */
static struct icsim_actor_ints program_depth = {NULL, 0, 0};
static struct icsim_actor_ints in_finalize = {NULL, 0, 0};

void icsim_enter(const char *name)
{
  int *depth = icsim_actor_int(&program_depth);
  if ((*depth)++ > 0)
    return;
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt)
    return;
  /* SMPI charges the program's host-timed code at its next call: here, before the call begins,
   * when someone looks at where the time goes (it costs a context switch per call) */
  if (rt->host_timing && rt->time_observed)
    smpi_execute_flops_benched(0);
  int me = icsim_my_rank();
  *icsim_actor_int(&in_finalize) = strcmp(name, "MPI_Finalize") == 0;
  icsim_runtime_in_mpi(rt, me, 1, simgrid_get_clock(), 0);
  if (rt->trace) {
    trace_pop(rt, me); /* "program" */
    trace_push(rt, me, name);
  }
}

void icsim_leave(void)
{
  int *depth = icsim_actor_int(&program_depth);
  if (*depth == 0 || --*depth > 0)
    return;
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt)
    return;
  int me = icsim_my_rank(), final = *icsim_actor_int(&in_finalize);
  icsim_runtime_in_mpi(rt, me, 0, simgrid_get_clock(), final);
  if (rt->trace) {
    trace_pop(rt, me);
    if (!final)
      trace_push(rt, me, "program");
  }
}

void icsim_charge_poll(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt) {
    double s = rt->pf.p.poll_instructions / rt->pf.p.clock_Hz;
    int me = icsim_my_rank();
    if (rt->trace && s > 0)
      trace_push(rt, me, "poll");
    double t0 = simgrid_get_clock();
    icsim_occupy_cpu(s);
    icsim_runtime_polled(rt, me, simgrid_get_clock() - t0);
    if (rt->trace && s > 0)
      trace_pop(rt, me);
  }
}

int icsim_poll_skip_ok(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  return rt && rt->pf.p.poll_instructions > 0 && icsim_spin_skip_ok();
}

int icsim_spin_skip_ok(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  if (!rt || rt->host_timing || rt->every_poll)
    return 0;
  sg_host_t h = sg_host_self();
  xbt_dynar_t actors = xbt_dynar_new(sizeof(sg_actor_t), NULL);
  sg_host_get_actor_list(h, actors);
  int alone = (int)xbt_dynar_length(actors) <= sg_host_core_count(h);
  xbt_dynar_free(&actors);
  return alone;
}

double icsim_spin_until(double step, int polls, void (*wait)(void *), void *arg)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int me = icsim_my_rank();
  double c = simgrid_get_clock(); /* the failed try just made: the next ones follow at c + step, c + 2 step, ... */
  if (rt->trace)
    trace_push(rt, me, polls ? "poll" : "retry");
  wait(arg);
  double te = simgrid_get_clock();
  /* the first try at or after the event succeeds: k tries (k >= 1) from c */
  double k = ceil((te - c) / step);
  if (k < 1)
    k = 1;
  while (k > 1 && c + (k - 1) * step >= te)
    k--;
  while (c + k * step < te)
    k++;
  icsim_occupy_cpu(c + k * step - te);
  if (polls)
    icsim_runtime_polled(rt, me, k * step);
  if (rt->trace)
    trace_pop(rt, me);
  return k;
}

void icsim_poll_until(void (*wait)(void *), void *arg)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  icsim_spin_until(rt->pf.p.poll_instructions / rt->pf.p.clock_Hz, 1, wait, arg);
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
  icsim_occupy(icsim_runtime_send_cpu(rt, &m), ICSIM_CPU_SEND);
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
                          double store_fills, double chain_int, double chain_int_mul, double moves)
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
                         .chain_int = chain_int,
                         .chain_int_mul = chain_int_mul,
                         .moves = moves,
                         .chain_divide = chain_divide,
                         .mispredicts = mispredicts,
                         .stride = stride,
                         .stride_stores = stride_stores,
                         .paths = paths,
                         .branch_chain = branch_chain,
                         .integer = integer,
                         .store_fills = store_fills};
  struct icsim_compute_terms terms;
  double t = icsim_runtime_compute_terms(rt, me, &w, &terms);
  icsim_phase_profile_add(me, &w, &terms);
  if (t > 0) {
    trace_push(rt, me, "compute");
    double t0 = simgrid_get_clock();
    smpi_execute_flops(t * sg_host_get_speed(sg_host_self()));
    if (rt->rank_time && me >= 0 && me < rt->nranks)
      rt->rank_time[me].compute_s += simgrid_get_clock() - t0;
    trace_pop(rt, me);
  }
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
void icsim_phase_end(double ops, double bytes) { icsim_phase_end_work(ops, bytes, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); }

double icsim_phase_seconds(void)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  int me = rt ? icsim_my_rank() : -1;
  return rt && me < rt->nranks ? rt->compute_s[me] : 0;
}

int icsim_phase_modeled(void) { return icsim_runtime_get() != NULL; }
