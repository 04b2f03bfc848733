/* Runtime: one platform + its stacks for the life of an smpirun process. */
#define _GNU_SOURCE
#include "runtime.h"
#include "stats_json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "outfile.h"

static struct icsim_runtime *current;

struct icsim_runtime *icsim_runtime_create(const char *platform, const char *sets, char *err, size_t errlen)
{
  struct icsim_runtime *rt = calloc(1, sizeof *rt);
  int nsets;
  char **setv = icsim_split_sets(sets, &nsets);
  int rc = icsim_platform_load(&rt->pf, platform, setv, nsets, err, errlen);
  if (setv) {
    free(setv[0]);
    free(setv);
  }
  if (rc) {
    free(rt);
    return NULL;
  }
  rt->sets = strdup(sets ? sets : "");
  for (int i = 0; i < rt->pf.nlayers; i++) {
    const struct icsim_stack_ops *l = rt->pf.layer[i];
    if (l->create(&rt->state[i], &rt->pf.params, &rt->pf, err, errlen)) {
      icsim_runtime_destroy(rt);
      return NULL;
    }
    rt->has_call_cpu |= l->call_cpu != NULL;
  }
  rt->transfers = icsim_transfers_new();
  return rt;
}

static double wall_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --progress: a line to stderr every progress_s wall seconds, looked at every 4096 transfers
 * (cheap beside one transfer's simulation, frequent enough at a few thousand per second). */
static void maybe_progress(struct icsim_runtime *rt, double now_s)
{
  if (rt->progress_s <= 0 || ((uint64_t)rt->transfers_started & 4095) != 0)
    return;
  double w = wall_now();
  if (w - rt->progress_last < rt->progress_s)
    return;
  rt->progress_last = w;
  fprintf(stderr, "icsim: progress: %.0f transfers, simulated %.6g s, %.0f s wall (%.0f transfers per wall second)\n",
          rt->transfers_started, now_s, w - rt->progress_t0, rt->transfers_started / (w - rt->progress_t0));
}

int icsim_runtime_init_from_env(char *err, size_t errlen)
{
  const char *platform = getenv(ICSIM_ENV_PLATFORM);
  if (!platform) {
    snprintf(err, errlen, "%s is not set; run programs with `icsim run` (or paste `icsim run --dry-run`)",
             ICSIM_ENV_PLATFORM);
    return -1;
  }
  const char *nranks = getenv(ICSIM_ENV_NRANKS), *place = getenv(ICSIM_ENV_PLACE);
  if (!nranks || atoi(nranks) < 1 || !place) {
    snprintf(err, errlen, "%s and %s must be set (the rank count and placement given to `icsim run`)",
             ICSIM_ENV_NRANKS, ICSIM_ENV_PLACE);
    return -1;
  }
  struct icsim_runtime *rt = icsim_runtime_create(platform, getenv(ICSIM_ENV_SET), err, errlen);
  if (!rt)
    return -1;
  rt->nranks = atoi(nranks);
  const char *ht = getenv(ICSIM_ENV_HOST_TIMING);
  rt->host_timing = !ht || strcmp(ht, "off") != 0;
  const char *ep = getenv(ICSIM_ENV_EVERY_POLL);
  rt->every_poll = ep && strcmp(ep, "0") != 0;
  const char *pg = getenv(ICSIM_ENV_PROGRESS);
  rt->progress_s = pg ? atof(pg) : 0;
  rt->progress_t0 = rt->progress_last = wall_now();
  rt->rank_host = malloc((size_t)rt->nranks * sizeof *rt->rank_host);
  if (icsim_place(&rt->pf, rt->nranks, place, rt->rank_host, err, errlen)) {
    icsim_runtime_destroy(rt);
    return -1;
  }
  rt->compute_s = calloc((size_t)rt->nranks, sizeof *rt->compute_s);
  rt->rank_end = calloc((size_t)rt->nranks, sizeof *rt->rank_end);
  rt->rank_status = calloc((size_t)rt->nranks, sizeof *rt->rank_status);
  rt->rank_internal = calloc((size_t)rt->nranks, sizeof *rt->rank_internal);
  rt->rank_time = calloc((size_t)rt->nranks, sizeof *rt->rank_time);
  for (int r = 0; r < rt->nranks; r++)
    rt->rank_time[r].enter_t = rt->rank_time[r].end_t = -1;
  const char *bd = getenv(ICSIM_ENV_BREAKDOWN), *st = getenv(ICSIM_ENV_STATS);
  rt->breakdown = bd && !strcmp(bd, "1");
  const char *tr = getenv(ICSIM_ENV_TRACE);
  rt->time_observed = rt->breakdown || (tr && *tr) || (st && *st);
  if (tr && *tr) { /* FORMAT:PATH */
    const char *colon = strchr(tr, ':');
    char fmt[16];
    enum icsim_trace_format f;
    snprintf(fmt, sizeof fmt, "%.*s", colon ? (int)(colon - tr) : 0, tr);
    if (!colon || icsim_trace_format_parse(fmt, &f) ||
        !(rt->trace = icsim_trace_open(colon + 1, f, rt->nranks, err, errlen))) {
      if (colon && !icsim_trace_format_parse(fmt, &f))
        ; /* ERR says why */
      else
        snprintf(err, errlen, "%s=%s: write FORMAT:PATH, FORMAT paje or chrome", ICSIM_ENV_TRACE, tr);
      icsim_runtime_destroy(rt);
      return -1;
    }
  }
  current = rt;
  return 0;
}

struct icsim_runtime *icsim_runtime_get(void) { return current; }

void icsim_runtime_destroy(struct icsim_runtime *rt)
{
  if (!rt)
    return;
  for (int i = 0; i < rt->pf.nlayers; i++)
    if (rt->state[i] && rt->pf.layer[i]->destroy)
      rt->pf.layer[i]->destroy(rt->state[i]);
  icsim_transfers_free(rt->transfers);
  icsim_platform_free(&rt->pf);
  free(rt->sets);
  free(rt->rank_host);
  free(rt->compute_s);
  free(rt->rank_end);
  free(rt->rank_status);
  free(rt->rank_internal);
  free(rt->rank_time);
  if (rt == current)
    current = NULL;
  free(rt);
}

/* The default shared-memory channel: a few hundred instructions to enqueue or dequeue a cell. */
static void default_intra_node(const struct icsim_runtime *rt, double *send_s, double *recv_s)
{
  *send_s = *recv_s = rt->pf.p.shm_instructions / rt->pf.p.clock_Hz;
}

/* The parts of the last CPU cost the layers named (icsim_cpu_part), the layer asked now. Statics,
 * not the runtime's struct: what the heap holds must not change with the names. */
static struct icsim_cpu_named cpu_named[ICSIM_CPU_MAX_PARTS];
static int ncpu_named, cpu_layer = -1;

void icsim_cpu_part(const char *name, double s)
{
  if (cpu_layer >= 0 && s > 0 && ncpu_named < ICSIM_CPU_MAX_PARTS)
    cpu_named[ncpu_named++] = (struct icsim_cpu_named){cpu_layer, name, s};
}

int icsim_runtime_cpu_parts(struct icsim_cpu_named *out, int max)
{
  int n = ncpu_named < max ? ncpu_named : max;
  memcpy(out, cpu_named, (size_t)n * sizeof *out);
  return n;
}

static double host_cpu(struct icsim_runtime *rt, const struct icsim_msg *m, int send)
{
  double total = 0;
  int intra = m->src_node == m->dst_node;
  rt->last_shm = intra;
  ncpu_named = 0;
  for (int i = 0; i < rt->pf.nlayers; i++) {
    cpu_layer = i;
    const struct icsim_stack_ops *l = rt->pf.layer[i];
    double part = 0;
    if (i == rt->pf.network && intra) {
      double s, r;
      if (l->intra_node_cpu)
        l->intra_node_cpu(rt->state[i], m, &s, &r);
      else
        default_intra_node(rt, &s, &r);
      part = send ? s : r;
    } else {
      double (*f)(void *, const struct icsim_msg *) = send ? l->send_cpu : l->recv_cpu;
      if (f)
        part = f(rt->state[i], m);
    }
    rt->last_part[i] = part;
    total += part;
  }
  cpu_layer = -1;
  return total;
}

double icsim_runtime_send_cpu(struct icsim_runtime *rt, const struct icsim_msg *m)
{
  double s = host_cpu(rt, m, 1);
  rt->messages++;
  rt->intra_node_messages += m->src_node == m->dst_node;
  rt->payload_bytes += (double)m->bytes;
  rt->send_cpu_s += s;
  return s;
}

double icsim_runtime_recv_cpu(struct icsim_runtime *rt, const struct icsim_msg *m)
{
  double s = host_cpu(rt, m, 0);
  rt->recv_cpu_s += s;
  return s;
}

double icsim_runtime_call_cpu(struct icsim_runtime *rt, const char *mpi_function)
{
  rt->mpi_calls++;
  if (!rt->has_call_cpu)
    return 0;
  double s = 0;
  rt->last_shm = 0;
  ncpu_named = 0;
  for (int i = 0; i < rt->pf.nlayers; i++) {
    cpu_layer = i;
    rt->last_part[i] = rt->pf.layer[i]->call_cpu ? rt->pf.layer[i]->call_cpu(rt->state[i], mpi_function) : 0;
    s += rt->last_part[i];
  }
  cpu_layer = -1;
  rt->call_cpu_s += s;
  return s;
}

uint64_t icsim_runtime_announce(struct icsim_runtime *rt, const struct icsim_msg *m, double now)
{
  return icsim_transfers_announce(rt->transfers, m, icsim_host_of(&rt->pf, m->src_node, m->src_socket),
                                  icsim_host_of(&rt->pf, m->dst_node, m->dst_socket), now);
}

void icsim_runtime_withdraw(struct icsim_runtime *rt, uint64_t id) { icsim_transfers_withdraw(rt->transfers, id); }
void icsim_runtime_cancel_lingering(struct icsim_runtime *rt, uint64_t id) { icsim_transfers_cancel(rt->transfers, id); }

/* The phase a layer names for the part of transfers' time spent sharing their routes
 * (icsim_wire_set_alone), and that layer. */
static const char *alone_name;
static int alone_layer = -1;

/* --trace: one transfer more (DELTA 1) or less (-1) on every link and channel of the route SRC -> DST. */
static void trace_route(struct icsim_runtime *rt, int src, int dst, double now, int delta)
{
  static struct icsim_hop hops[256]; /* not the heap: tracing must not move the program's buffers (trace.c) */
  int n = icsim_route(&rt->pf, src, dst, hops, 256);
  for (int k = 0; k < n; k++)
    icsim_trace_link_load(rt->trace, now, hops[k].link, rt->pf.links[hops[k].link].name, delta);
}

void icsim_runtime_wire(struct icsim_runtime *rt, struct icsim_wire_query *q, int src_host, int dst_host,
                        double size, struct icsim_wire_cost *c)
{
  const struct icsim_transfer *t =
      icsim_transfers_start(rt->transfers, src_host, dst_host, size, q->now_s, rt->internal_calls > 0, rt->rank_internal);
  q->id = t ? t->id : 0;
  /* a message's receive buffer, for the layers that follow what the program touches (numa's
   * cache): the receive SMPI would match it to, in posting order */
  if (t && t->msg.kind == ICSIM_MSG_P2P && rt->posted_recv && t->msg.dst_rank >= 0)
    icsim_transfers_set_recv_buf(rt->transfers, t->id, rt->posted_recv(t->msg.dst_rank, t->msg.src_rank, t->msg.tag));
  q->msg = t ? &t->msg : NULL;
  q->kind = t ? t->msg.kind : ICSIM_MSG_P2P;
  q->announced_s = t ? t->announced_s : q->now_s;
  if (rt->trace && t && t->id)
    icsim_trace_message_start(rt->trace, q->now_s, t->id, t->msg.src_rank, t->msg.dst_rank);
  rt->transfers_started++;
  rt->intra_node_transfers += q->src_node == q->dst_node;
  maybe_progress(rt, q->now_s);
  c->latency_s = q->route_latency_s;
  c->bandwidth_Bps = q->route_bandwidth_Bps;
  int intra = q->src_node == q->dst_node;
  c->nphases = 0;
  c->flow_name = c->flow_layer = NULL;
  c->alone_s = 0;
  c->alone_name = NULL;
  c->alone_layer = -1;
  for (int i = 0; i < rt->pf.nlayers; i++) {
    if (i == rt->pf.network && intra)
      continue; /* inside a node the data crosses the memory links, not the network stack */
    int before = c->nphases;
    const char *flow = c->flow_name;
    if (rt->pf.layer[i]->wire)
      rt->pf.layer[i]->wire(rt->state[i], q, c);
    for (int k = before; k < c->nphases; k++)
      c->phase[k].layer = rt->pf.layer[i]->name;
    if (c->flow_name != flow)
      c->flow_layer = rt->pf.layer[i]->name;
    if (c->alone_name && c->alone_layer < 0)
      c->alone_layer = i;
  }
  double phases = 0;
  for (int k = 0; k < c->nphases; k++)
    phases += c->phase[k].s;
  if (rt->trace && t && t->id)
    trace_route(rt, src_host, dst_host, q->now_s, 1);
  if (t && t->id) { /* the MPI messages' transfers (SMPI's own have no end report) */
    for (int k = 0; k < c->nphases; k++)
      icsim_runtime_wire_phase(rt, c->phase[k].layer, c->phase[k].name, c->phase[k].s);
    icsim_transfers_set_phases(rt->transfers, t->id, phases, c->alone_name ? c->alone_s : 0);
    if (c->alone_name) { /* kept apart from the runtime's struct, whose size the heap's layout depends on */
      alone_name = c->alone_name;
      alone_layer = c->alone_layer;
    }
    if (rt->trace)
      icsim_trace_message_phases(rt->trace, t->id, c->phase, c->nphases, c->flow_layer, c->flow_name);
  }
}

void icsim_runtime_wire_phase(struct icsim_runtime *rt, const char *layer, const char *name, double s)
{
  int k = 0;
  while (k < rt->nwire_phases && !(rt->wire_phase[k].layer == layer && !strcmp(rt->wire_phase[k].name, name)))
    k++;
  if (k == rt->nwire_phases) {
    if (k == ICSIM_RUN_MAX_PHASES)
      return;
    rt->wire_phase[k] = (struct icsim_phase_total){layer, name, 0, 0};
    rt->nwire_phases++;
  }
  rt->wire_phase[k].s += s;
  rt->wire_phase[k].n++;
}

void icsim_runtime_transfer_done(struct icsim_runtime *rt, uint64_t id, double now)
{
  if (id == 0)
    return;
  const struct icsim_transfer *t = icsim_transfers_done(rt->transfers, id);
  if (!t)
    return;
  /* the rest of its time is its flow: the route's latency and the bytes at SimGrid's shared rate
   * (phases a stack priced longer than the transfer turned out to be are counted up to its end);
   * what the flow took beyond the transfer's time alone (a layer that shapes sharing said it) is
   * that layer's phase, known only now */
  double dur = now - t->started_s;
  double flow = dur > t->phases_s ? dur - t->phases_s : 0;
  double shared = t->alone_s > 0 && alone_name ? fmin(fmax(dur - t->alone_s, 0), flow) : 0;
  if (shared < 1e-9) /* SimGrid ends a transfer within its timing precision (1 ns): below it, rounding */
    shared = 0;
  const char *shared_layer = shared > 0 ? rt->pf.layer[alone_layer]->name : NULL;
  if (shared > 0)
    icsim_runtime_wire_phase(rt, shared_layer, alone_name, shared);
  rt->wire_flow_s += flow - shared;
  if (rt->trace) {
    if (shared > 0)
      icsim_trace_message_late_phase(rt->trace, id, shared_layer, alone_name, shared);
    icsim_trace_message_end(rt->trace, now, id);
    trace_route(rt, t->src_host, t->dst_host, now, -1);
  }
  rt->wire_transfers_done++;
  for (int i = 0; i < rt->pf.nlayers; i++)
    if (rt->pf.layer[i]->transfer_done)
      rt->pf.layer[i]->transfer_done(rt->state[i], t, now);
}

double icsim_runtime_detach_threshold(struct icsim_runtime *rt)
{
  double eager = rt->pf.stack->eager_limit_bytes ? rt->pf.stack->eager_limit_bytes(rt->state[rt->pf.network]) : INT_MAX;
  return eager > INT_MAX ? INT_MAX : eager;
}

void icsim_runtime_internal_enter(struct icsim_runtime *rt, int rank)
{
  rt->internal_calls++;
  if (rt->rank_internal && rank >= 0 && rank < rt->nranks)
    rt->rank_internal[rank]++;
}

void icsim_runtime_internal_leave(struct icsim_runtime *rt, int rank)
{
  if (rt->internal_calls > 0)
    rt->internal_calls--;
  if (rt->rank_internal && rank >= 0 && rank < rt->nranks && rt->rank_internal[rank] > 0)
    rt->rank_internal[rank]--;
}

int icsim_runtime_write_stats(struct icsim_runtime *rt, const char *path, double simulated_s, char *err,
                              size_t errlen)
{
  char *text = icsim_stats_json(rt, simulated_s);
  if (!text) {
    snprintf(err, errlen, "--stats %s: out of memory", path);
    return -1;
  }
  int rc = icsim_output_write("--stats", path, text, strlen(text), err, errlen);
  free(text);
  return rc;
}

static int status_fd = -1; /* the claimed ICSIM_STATUS file */

void icsim_runtime_claim_status(void)
{
  const char *path = getenv(ICSIM_ENV_STATUS);
  if (status_fd >= 0 || !path || !*path)
    return;
  status_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (status_fd >= 0)
    unsetenv(ICSIM_ENV_STATUS);
}

void icsim_runtime_note(const char *line)
{
  int fd = status_fd, own = 0;
  if (fd < 0) { /* not claimed (a run without the adapter's start): by name */
    const char *path = getenv(ICSIM_ENV_STATUS);
    if (!path || !*path)
      return;
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    own = 1;
  }
  if (fd < 0)
    return;
  ssize_t n = write(fd, line, strlen(line)); /* one write: whole lines even if two ranks note */
  (void)n;
  if (own)
    close(fd);
}

int icsim_runtime_check(struct icsim_runtime *rt, double end_s, char *err, size_t errlen)
{
  if (getenv("ICSIM_DEBUG_TRANSFERS"))
    icsim_transfers_print_waiting(rt->transfers, stderr);
  /* every rank's time split: no entry below zero (the program's own code and the time blocked
   * are what is left of the others: a negative one means a charge counted twice or outside) */
  for (int r = 0; r < rt->nranks && !rt->deadlocked; r++) {
    struct icsim_time_entry e[64];
    int n = icsim_runtime_breakdown(rt, r, end_s, e, 64);
    for (int i = 0; i < n; i++)
      if (e[i].s < -1e-9) {
        snprintf(err, errlen, "rank %d's time breakdown has %s = %.9g s (below zero)", r, e[i].name, e[i].s);
        return -1;
      }
  }
  for (int i = 0; i < rt->pf.nlayers; i++)
    if (rt->pf.layer[i]->check && rt->pf.layer[i]->check(rt->state[i], err, errlen))
      return -1;
  return 0;
}

/* Node layers (listed below the network stack) know the node's channels best: asked first, from
 * the bottom up; the first non-negative answer wins. */
double icsim_runtime_channel_capacity(struct icsim_runtime *rt, const struct icsim_link *link, int up, double nominal,
                                      int n)
{
  double v = -1;
  for (int i = rt->pf.nlayers - 1; i >= 0 && v < 0; i--)
    if (rt->pf.layer[i]->channel_capacity)
      v = rt->pf.layer[i]->channel_capacity(rt->state[i], link, up, nominal, n);
  /* flows that cannot go faster than whoever moves them: n of them never take more than n x that */
  for (int i = 0; i < rt->pf.nlayers; i++)
    if (rt->pf.layer[i]->channel_flow_limit) {
      double r = rt->pf.layer[i]->channel_flow_limit(rt->state[i], link);
      if (r > 0)
        v = fmin(v < 0 ? nominal : v, n * r);
    }
  return v;
}

int icsim_runtime_models_channels(const struct icsim_runtime *rt)
{
  for (int i = 0; i < rt->pf.nlayers; i++)
    if ((rt->pf.layer[i]->channel_capacity && rt->pf.layer[i]->channel_capacity(rt->state[i], NULL, 1, 0, 0) >= 0) ||
        (rt->pf.layer[i]->channel_flow_limit && rt->pf.layer[i]->channel_flow_limit(rt->state[i], NULL) > 0))
      return 1;
  return 0;
}

double icsim_runtime_channel_peak(struct icsim_runtime *rt, const struct icsim_link *link)
{
  double peak = link->bw_Bps;
  for (int i = 0; i < rt->pf.nlayers; i++)
    if (rt->pf.layer[i]->channel_peak)
      peak = fmax(peak, rt->pf.layer[i]->channel_peak(rt->state[i], link));
  return peak;
}

/* "0-3,5" for the ranks R with rank_end == END (and status STATUS when END is EXITED) into OUT. */
static int rank_list(const struct icsim_runtime *rt, int end, int status, char *out, size_t len)
{
  int n = 0;
  size_t used = 0;
  out[0] = '\0';
  for (int r = 0; r < rt->nranks; r++) {
    if (rt->rank_end[r] != end || (end == ICSIM_RANK_EXITED && rt->rank_status[r] != status))
      continue;
    int last = r;
    while (last + 1 < rt->nranks && rt->rank_end[last + 1] == end &&
           (end != ICSIM_RANK_EXITED || rt->rank_status[last + 1] == status))
      last++;
    if (used < len)
      used += (size_t)snprintf(out + used, len - used, last > r ? "%s%d-%d" : "%s%d", n ? "," : "", r, last);
    n += last - r + 1;
    r = last;
  }
  return n;
}

void icsim_runtime_report_ends(const struct icsim_runtime *rt, FILE *f)
{
  if (!rt->rank_end)
    return;
  char list[1024];
  for (int r = 0; r < rt->nranks; r++) {
    if (rt->rank_end[r] != ICSIM_RANK_EXITED)
      continue;
    int first = 1; /* one line per distinct status, at its first rank */
    for (int k = 0; k < r && first; k++)
      first = !(rt->rank_end[k] == ICSIM_RANK_EXITED && rt->rank_status[k] == rt->rank_status[r]);
    if (!first)
      continue;
    int n = rank_list(rt, ICSIM_RANK_EXITED, rt->rank_status[r], list, sizeof list);
    fprintf(f, "icsim: rank%s %s called exit(%d) before MPI_Finalize\n", n > 1 ? "s" : "", list, rt->rank_status[r]);
  }
  int n = rank_list(rt, ICSIM_RANK_RETURNED, 0, list, sizeof list);
  if (n)
    fprintf(f, "icsim: warning: rank%s %s returned from main without calling MPI_Finalize\n", n > 1 ? "s" : "", list);
}
