/* The SMPO stack's entry in the icsim contract. The send path (send_cpu, in the sending rank)
 * cuts the message into packets over the user's real bytes and charges the library, queue-system
 * and driver work; wire joins the message to its SimGrid transfer and times it on the module
 * network; when SimGrid completes the transfer (transfer_done) its packets are delivered into the
 * receiving process's queue system, each checksum recomputed (corruption injection damages
 * packets on the way); the receive path (recv_cpu) looks the message up in the ready queue,
 * verifies the message checksum, frees it and charges the receiving side. A mismatch stops the
 * program with the library's diagnostic. Two ranks of one module use shared memory instead. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapping.h"
#include "outfile.h"
#include "platform.h"
#include "smpo.h"

/* Exit status of a run the library aborted (MPI_Abort(MPI_COMM_WORLD, 1) in the real library). */
#define SMPO_ABORT_STATUS 1

static void abort_program(const char *diagnostic)
{
  fflush(stdout);
  fprintf(stderr, "%s\n", diagnostic);
  fflush(stderr);
  _exit(SMPO_ABORT_STATUS); /* the whole simulation stops here: nothing more is delivered */
}
void (*smpo_abort)(const char *diagnostic) = abort_program;

static void ensure_rank(struct smpo_state *s, int r)
{
  if (r < s->nranks)
    return;
  int n = r + 1 > 2 * s->nranks ? r + 1 : 2 * s->nranks;
  s->queue = realloc(s->queue, (size_t)n * sizeof *s->queue);
  s->next_id = realloc(s->next_id, (size_t)n * sizeof *s->next_id);
  memset(s->queue + s->nranks, 0, (size_t)(n - s->nranks) * sizeof *s->queue);
  memset(s->next_id + s->nranks, 0, (size_t)(n - s->nranks) * sizeof *s->next_id);
  s->nranks = n;
}

int smpo_state_init(struct smpo_state *s, const struct smpo_params *p, double clock_Hz)
{
  s->p = *p;
  s->clock_Hz = clock_Hz;
  return 0;
}

void smpo_state_free(struct smpo_state *s)
{
  for (int r = 0; r < s->nranks; r++)
    smpo_queue_free(&s->queue[r]);
  free(s->queue);
  free(s->next_id);
  while (s->flights) {
    struct smpo_flight *f = s->flights;
    s->flights = f->next;
    smpo_wire_msg_free(&f->msg);
    free(f);
  }
  free(s->pattern);
  smpo_routes_free(&s->routes);
}

static int smpo_create(void **state, const struct icsim_params *ps, const struct icsim_platform *pf, char *err,
                       size_t errlen)
{
  struct smpo_state *s = calloc(1, sizeof *s);
  struct smpo_params p;
  icsim_params_fill(ps, smpo_params_table, smpo_params_table_len, &p);
  if (p.hardware_buffer_B <= smpo_header_bytes(&p)) {
    snprintf(err, errlen, "smpo/hardware-buffer (%.0f B) must exceed the %.0f B packet header; raise it",
             p.hardware_buffer_B, smpo_header_bytes(&p));
    free(s);
    return -1;
  }
  smpo_state_init(s, &p, pf->p.clock_Hz);
  smpo_routes_init(&s->routes, pf);
  *state = s;
  return 0;
}

static void smpo_destroy(void *state)
{
  smpo_state_free(state);
  free(state);
}

/* The envelope CM_MP puts in a control message: mode, tag, source, length; padded to its size. */
static uint8_t *control_bytes(const struct smpo_params *p, enum smpo_type type, int tag, int src, size_t bytes,
                              const void *body, size_t body_len)
{
  size_t n = (size_t)p->control_message_B;
  uint8_t *b = calloc(1, n + body_len);
  int32_t env[4] = {(int32_t)type, tag, src, (int32_t)bytes};
  memcpy(b, env, n < sizeof env ? n : sizeof env);
  if (body_len)
    memcpy(b + n, body, body_len);
  return b;
}

/* Counted, and named on the timeline as the paper splits a message's overhead (--trace). */
static void account(struct smpo_state *s, const struct smpo_cpu *c)
{
  s->library_s += c->library_s;
  s->queue_s += c->queue_s;
  s->driver_s += c->driver_s;
  icsim_cpu_part("library", c->library_s);
  icsim_cpu_part("queue system", c->queue_s);
  icsim_cpu_part("driver", c->driver_s);
}

static double smpo_send_cpu(void *state, const struct icsim_msg *m)
{
  struct smpo_state *s = state;
  const struct smpo_params *p = &s->p;
  struct smpo_cpu c;
  smpo_message_cpu(p, s->clock_Hz, (double)m->bytes, 1, &c);
  account(s, &c);
  s->copies_avoided += p->mmap_driver_buffer; /* one copy fewer: built in the mmap-ed buffer */
  /* The body (or the inline control message) as packets over the user's bytes. A get's data is
   * at the target, not in this buffer: its packets carry zeros. */
  ensure_rank(s, m->src_rank > m->dst_rank ? m->src_rank : m->dst_rank);
  struct smpo_plan plan;
  smpo_plan(p, (double)m->bytes, &plan);
  const void *data = m->kind == ICSIM_MSG_GET ? NULL : m->buf;
  struct smpo_flight *f = calloc(1, sizeof *f);
  f->src_rank = m->src_rank;
  f->dst_rank = m->dst_rank;
  f->tag = m->tag;
  f->kind = m->kind;
  f->bytes = m->bytes;
  struct smpo_header h = {0};
  smpo_routing_header(&s->routes, m->src_node, m->dst_node, &h);
  h.sender = (uint32_t)m->src_rank;
  h.receiver = (uint32_t)m->dst_rank;
  h.msg_id = s->next_id[m->src_rank]++;
  int rc;
  if (plan.mode == SMPO_MODE_INLINE) {
    h.type = SMPO_INLINE;
    uint8_t *b = control_bytes(p, SMPO_INLINE, m->tag, m->src_rank, m->bytes, data, data ? m->bytes : 0);
    rc = smpo_packetise(p, h, b, (size_t)p->control_message_B + m->bytes, &f->msg);
    free(b);
  } else {
    h.type = SMPO_DATA;
    rc = smpo_packetise(p, h, data && m->bytes ? data : NULL, m->bytes, &f->msg);
  }
  if (rc) {
    char d[256];
    snprintf(d, sizeof d, "smpo: rank %d: a %zu-byte message is longer than the header's 32-bit length field",
             m->src_rank, m->bytes);
    free(f);
    smpo_abort(d);
    return 0;
  }
  if (s->flights_tail)
    s->flights_tail->next = f;
  else
    s->flights = f;
  s->flights_tail = f;
  return smpo_cpu_total(&c);
}

/* The oldest in-flight message matching the transfer: same ranks, size, kind (and tag when known). */
static struct smpo_flight *find_flight(struct smpo_state *s, uint64_t id, const struct icsim_msg *m, int unbound)
{
  for (struct smpo_flight *f = s->flights; f; f = f->next) {
    if (id && f->id == id)
      return f;
    if (unbound && !f->id && m && f->src_rank == m->src_rank && f->dst_rank == m->dst_rank && f->bytes == m->bytes &&
        f->kind == m->kind && f->tag == m->tag)
      return f;
  }
  return NULL;
}

static void unlink_flight(struct smpo_state *s, struct smpo_flight *f)
{
  struct smpo_flight **l = &s->flights, *prev = NULL;
  while (*l != f) {
    prev = *l;
    l = &(*l)->next;
  }
  *l = f->next;
  if (s->flights_tail == f)
    s->flights_tail = prev;
}

static void smpo_wire(void *state, const struct icsim_wire_query *q, struct icsim_wire_cost *c)
{
  struct smpo_state *s = state;
  const struct smpo_params *p = &s->p;
  int h = smpo_transit_hops(&s->routes, q->src_node, q->dst_node);
  double B = q->route_bandwidth_Bps, L = q->route_latency_s, n = q->bytes;
  struct smpo_plan plan;
  smpo_plan(p, n, &plan);
  double ctl = p->control_message_B, body, t;
  /* the transfer's phases (the rest: the route's latency and the body's packets, its flow) */
  double rts_cts = 0, control = 0, transit;
  int streams = 1;
  if (plan.mode == SMPO_MODE_INLINE) {
    body = ctl + n;
    t = smpo_stream_s(p, &body, 1, h, L, B);
    transit = smpo_transit_s(p, &body, 1, h, B);
    s->inline_msgs++;
  } else if (plan.mode == SMPO_MODE_EAGER) {
    double legs[2] = {ctl, n};
    body = n;
    t = smpo_stream_s(p, legs, 2, h, L, B);
    transit = smpo_transit_s(p, legs, 2, h, B);
    control = smpo_wire_bytes(p, ctl) / B;
    streams = 2;
    s->eager_msgs++;
  } else { /* RTS out, CTS back, then the body */
    body = n;
    rts_cts = 2 * smpo_stream_s(p, &ctl, 1, h, L, B);
    t = rts_cts + smpo_stream_s(p, &body, 1, h, L, B);
    transit = smpo_transit_s(p, &body, 1, h, B);
    s->rendezvous_msgs++;
  }
  icsim_wire_add_phase(c, "RTS-CTS", rts_cts);
  icsim_wire_add_phase(c, "adapter starts", streams * p->adapter_latency_s);
  icsim_wire_add_phase(c, "control message", control);
  icsim_wire_add_phase(c, "transit hops", transit);
  /* packetisation: the body's packet headers take their share of its time on the links (the rest
   * of the body, with the route's latency, is the flow) */
  icsim_wire_add_phase(c, "packet headers", (smpo_wire_bytes(p, body) - body) / B);
  for (int i = 0; i < plan.n; i++) {
    double np = smpo_packets(p, plan.leg[i].bytes);
    s->smpo_messages++;
    s->packets += np;
    s->header_bytes += np * smpo_header_bytes(p);
    s->transit_hops += h;
    s->packet_transit_hops += np * h;
  }
  s->hardware_uncontended_s += t;
  /* SimGrid moves payload + envelope: at the rate that makes it take the body's packets' time;
   * the rest (latency, adapter starts, control messages, store and forward) is latency. */
  double data_s = smpo_wire_bytes(p, body) / B;
  c->bandwidth_Bps = B * (n + q->envelope_bytes) / smpo_wire_bytes(p, body);
  c->latency_s = fmax(t - data_s, 1e-12);
  if (q->id && q->msg) {
    struct smpo_flight *f = find_flight(s, 0, q->msg, 1);
    if (f)
      f->id = q->id;
  }
}

/* Packets of M into RANK's queue system, as the driver hands them over; a packet may be damaged
 * on the way (corruption injection, on a copy). A checksum mismatch aborts the program. */
static void deliver(struct smpo_state *s, const struct smpo_wire_msg *m, int rank, int tag)
{
  const struct smpo_params *p = &s->p;
  ensure_rank(s, rank);
  for (uint32_t k = 0; k < m->h.npackets; k++) {
    size_t len;
    uint8_t *pkt = smpo_packet(m, k, &len), *copy = NULL;
    int damaged = smpo_corrupt_decide(p, m->h.sender, m->h.msg_id, k);
    if (damaged) {
      copy = malloc(len);
      memcpy(copy, pkt, len);
      smpo_corrupt_flip(p, m->h.sender, m->h.msg_id, k, copy, len);
      s->corrupted_packets++;
    }
    uint32_t stored, computed;
    int rc = smpo_queue_add_packet(&s->queue[rank], p, copy ? copy : pkt, len, tag, &stored, &computed);
    free(copy);
    s->packet_checksums++;
    if (rc == SMPO_EPACKET) {
      s->detected_corruptions += damaged;
      char d[512];
      snprintf(d, sizeof d,
               "smpo: rank %d: checksum mismatch in packet %u of %u of message %u from rank %u (packet checksum "
               "0x%08x, recomputed 0x%08x): the packet was damaged in transit; aborting, as the SMPO library does",
               rank, k, m->h.npackets, m->h.msg_id, m->h.sender, stored, computed);
      smpo_abort(d);
      return;
    }
    s->delivered_corrupted += damaged; /* a damaged packet the checksum let through */
  }
}

/* Receive message (SENDER, ID) from RANK's queue system, checking the whole message's checksum. */
static void receive(struct smpo_state *s, int rank, uint32_t sender, uint32_t id)
{
  uint32_t stored, computed;
  int rc = smpo_queue_receive(&s->queue[rank], &s->p, sender, id, NULL, &stored, &computed);
  s->message_checksums++;
  if (rc == SMPO_EMESSAGE) {
    char d[512];
    snprintf(d, sizeof d,
             "smpo: rank %d: message %u from rank %u fails its message checksum (header 0x%08x, recomputed "
             "0x%08x); aborting, as the SMPO library does",
             rank, id, sender, stored, computed);
    smpo_abort(d);
  }
}

/* A control message of the device (CM_MP), consumed by the device as soon as it is in. */
static void control_message(struct smpo_state *s, enum smpo_type type, int from, int to, const struct icsim_msg *mm,
                            int tag, size_t bytes)
{
  const struct smpo_params *p = &s->p;
  ensure_rank(s, from > to ? from : to);
  struct smpo_header h = {0};
  smpo_routing_header(&s->routes, from == mm->src_rank ? mm->src_node : mm->dst_node,
                      to == mm->dst_rank ? mm->dst_node : mm->src_node, &h);
  h.sender = (uint32_t)from;
  h.receiver = (uint32_t)to;
  h.msg_id = s->next_id[from]++;
  h.type = type;
  uint8_t *b = control_bytes(p, type, tag, from, bytes, NULL, 0);
  struct smpo_wire_msg m;
  smpo_packetise(p, h, b, (size_t)p->control_message_B, &m);
  free(b);
  deliver(s, &m, to, tag);
  receive(s, to, h.sender, h.msg_id);
  smpo_wire_msg_free(&m);
}

static void record(struct smpo_state *s, const struct icsim_msg *m)
{
  int n = m->src_rank > m->dst_rank ? m->src_rank + 1 : m->dst_rank + 1;
  if (n > s->pattern_ranks) {
    struct smpo_pair *np = calloc((size_t)n * (size_t)n, sizeof *np);
    for (int a = 0; a < s->pattern_ranks; a++)
      for (int b = 0; b < s->pattern_ranks; b++)
        np[a * n + b] = s->pattern[a * s->pattern_ranks + b];
    free(s->pattern);
    s->pattern = np;
    s->pattern_ranks = n;
  }
  struct smpo_pair *pr = &s->pattern[m->src_rank * s->pattern_ranks + m->dst_rank];
  pr->messages++;
  pr->bytes += (double)m->bytes;
}

/* Everything the transfer carried arrives at the receiving module: control messages first (the
 * device consumes them), then the body's packets wait in the queue until the receive asks. */
static void land(struct smpo_state *s, struct smpo_flight *f, const struct icsim_msg *m)
{
  struct smpo_plan plan;
  smpo_plan(&s->p, (double)f->bytes, &plan);
  for (int i = 0; i < plan.n; i++) {
    enum smpo_type t = plan.leg[i].type;
    if (t == SMPO_CONTROL || t == SMPO_RTS)
      control_message(s, t, f->src_rank, f->dst_rank, m, f->tag, f->bytes);
    else if (t == SMPO_CTS)
      control_message(s, t, f->dst_rank, f->src_rank, m, f->tag, f->bytes);
  }
  deliver(s, &f->msg, f->dst_rank, f->tag);
  if (f->kind != ICSIM_MSG_P2P) /* one-sided: the target's library takes it, no MPI receive will */
    receive(s, f->dst_rank, f->msg.h.sender, f->msg.h.msg_id);
  unlink_flight(s, f);
  smpo_wire_msg_free(&f->msg);
  free(f);
}

static void smpo_transfer_done(void *state, const struct icsim_transfer *t, double now)
{
  struct smpo_state *s = state;
  if (s->p.record_pattern && *s->p.record_pattern)
    record(s, &t->msg);
  if (smpo_same_module(t->msg.src_node, t->msg.dst_node)) {
    s->shm_messages++;
    return;
  }
  /* the hardware's share of the message's cost is what the transfer took on the module network,
   * links shared with other transfers included (SimGrid started it at started_s) */
  s->hardware_s += now - t->started_s;
  struct smpo_flight *f = find_flight(s, t->id, NULL, 0);
  if (f)
    land(s, f, &t->msg);
}

static double smpo_recv_cpu(void *state, const struct icsim_msg *m)
{
  struct smpo_state *s = state;
  const struct smpo_params *p = &s->p;
  struct smpo_cpu c;
  smpo_message_cpu(p, s->clock_Hz, (double)m->bytes, 0, &c);
  account(s, &c);
  ensure_rank(s, m->src_rank > m->dst_rank ? m->src_rank : m->dst_rank);
  struct smpo_plan plan;
  smpo_plan(p, (double)m->bytes, &plan);
  double length = (double)m->bytes + (plan.mode == SMPO_MODE_INLINE ? p->control_message_B : 0);
  struct smpo_queue *q = &s->queue[m->dst_rank];
  const struct smpo_qmsg *qm = smpo_queue_lookup(q, m->src_rank, length, m->tag);
  if (!qm) { /* SimGrid has not reported the transfer yet: its packets are taken now */
    struct smpo_flight *f = find_flight(s, 0, m, 1);
    for (struct smpo_flight *g = s->flights; !f && g; g = g->next)
      if (g->src_rank == m->src_rank && g->dst_rank == m->dst_rank && g->bytes == m->bytes && g->tag == m->tag)
        f = g;
    if (f) {
      s->late_insertions++;
      land(s, f, m);
      qm = smpo_queue_lookup(q, m->src_rank, length, m->tag);
    }
  }
  if (qm)
    receive(s, m->dst_rank, qm->sender, qm->msg_id);
  else
    s->unqueued_receives++;
  return smpo_cpu_total(&c);
}

/* Same module: semaphore-synchronised shared memory, never the adapter. Each side takes the
 * semaphore, copies (the data crosses the module's memory links, the platform's), releases it,
 * and the library analyses the message. */
static void smpo_intra_node_cpu(void *state, const struct icsim_msg *m, double *send_s, double *recv_s)
{
  (void)m;
  struct smpo_state *s = state;
  /* the same on both sides (the mean of the measured send and receive analyses), so that the
   * counter is exact however many sides ask (one-sided messages ask only the origin's) */
  double side = 2 * s->p.semaphore_op_s + s->p.library_shm_message_instructions / s->clock_Hz;
  *send_s = *recv_s = side;
  s->shm_s += side;
}

static double smpo_eager_limit(void *state) { return ((struct smpo_state *)state)->p.eager_threshold_B; }

static double max_ready(const struct smpo_state *s)
{
  int m = 0;
  for (int r = 0; r < s->nranks; r++)
    m = s->queue[r].max_ready > m ? s->queue[r].max_ready : m;
  return m;
}

static double peak_bytes(const struct smpo_state *s)
{
  double m = 0;
  for (int r = 0; r < s->nranks; r++)
    m = fmax(m, s->queue[r].max_bytes);
  return m;
}

static size_t smpo_counters(void *state, struct icsim_counter *out, size_t max)
{
  struct smpo_state *s = state;
  double total = s->library_s + s->queue_s + s->driver_s + s->hardware_s;
  struct icsim_counter c[] = {
      {"smpo_messages", "messages", s->smpo_messages},
      {"packets", "packets", s->packets},
      {"header_bytes", "bytes", s->header_bytes},
      {"packet_checksums", "checks", s->packet_checksums},
      {"message_checksums", "checks", s->message_checksums},
      {"ready_queue_max_depth", "messages", max_ready(s)},
      {"queue_peak_bytes", "bytes", peak_bytes(s)},
      {"shm_messages", "messages", s->shm_messages},
      {"transit_hops", "message hops", s->transit_hops},
      {"packet_transit_hops", "packet hops", s->packet_transit_hops},
      {"inline_messages", "messages", s->inline_msgs},
      {"eager_messages", "messages", s->eager_msgs},
      {"rendezvous_messages", "messages", s->rendezvous_msgs},
      {"mmap_sends", "messages", s->copies_avoided},
      {"corrupted_packets", "packets", s->corrupted_packets},
      {"detected_corruptions", "packets", s->detected_corruptions},
      {"delivered_corrupted", "packets", s->delivered_corrupted},
      {"late_insertions", "messages", s->late_insertions},
      {"unqueued_receives", "messages", s->unqueued_receives},
      {"library_s", "s", s->library_s},
      {"queue_system_s", "s", s->queue_s},
      {"driver_s", "s", s->driver_s},
      {"hardware_s", "s", s->hardware_s},
      {"hardware_uncontended_s", "s", s->hardware_uncontended_s},
      {"shared_memory_s", "s", s->shm_s},
      {"library_share", "fraction", total > 0 ? s->library_s / total : 0},
      /* the same on a log scale, so that "same order of magnitude" is a symmetric tolerance */
      {"library_share_log10", "log10 fraction", total > 0 && s->library_s > 0 ? log10(s->library_s / total) : 0},
  };
  return icsim_counters_out(out, max, c, sizeof c / sizeof c[0]);
}

/* The rank pairs' traffic, for `icsim place --map`: written by outfile.h (atomically, never over an
 * input or anything but a regular file). */
static int write_pattern(const struct smpo_state *s, char *err, size_t errlen)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) {
    snprintf(err, errlen, "smpo/record-pattern: out of memory");
    return -1;
  }
  fprintf(f, "# icsim communication pattern (smpo/record-pattern): ranks %d\n# src dst messages bytes\n",
          s->pattern_ranks);
  for (int a = 0; a < s->pattern_ranks; a++)
    for (int b = 0; b < s->pattern_ranks; b++) {
      const struct smpo_pair *pr = &s->pattern[a * s->pattern_ranks + b];
      if (pr->messages > 0)
        fprintf(f, "%d %d %.0f %.0f\n", a, b, pr->messages, pr->bytes);
    }
  int rc = fclose(f) == 0 && text ? icsim_output_write("smpo/record-pattern", s->p.record_pattern, text, len, err,
                                                        errlen)
                                  : -1;
  if (rc && text == NULL)
    snprintf(err, errlen, "smpo/record-pattern: out of memory");
  free(text);
  return rc;
}

/* Called once at the end of the run: the invariants of the queue system (and the pattern file). */
static int smpo_check(void *state, char *err, size_t errlen)
{
  struct smpo_state *s = state;
  if (s->p.record_pattern && *s->p.record_pattern && write_pattern(s, err, errlen))
    return -1;
  if (s->delivered_corrupted > 0) {
    snprintf(err, errlen, "smpo: %.0f damaged packets passed their checksum", s->delivered_corrupted);
    return -1;
  }
  for (int r = 0; r < s->nranks; r++) {
    int held = smpo_queue_held(&s->queue[r]);
    if (held) {
      snprintf(err, errlen, "smpo: rank %d ends with %d messages in its queue (ready counter %d) never received", r,
               held, s->queue[r].ready_count);
      return -1;
    }
  }
  int left = 0;
  for (struct smpo_flight *f = s->flights; f; f = f->next)
    left++;
  if (left) {
    snprintf(err, errlen, "smpo: %d messages were sent but never reached a queue", left);
    return -1;
  }
  return 0;
}

const struct icsim_stack_ops smpo_stack = {
    .name = "smpo",
    .summary = "SMPO packet queues, checksums, shared memory and routing under MPICH 1.2 (CM_MP device)",
    .params = smpo_params_table,
    .nparams = SMPO_NPARAMS,
    .rules = smpo_params_rules,
    .nrules = sizeof smpo_params_rules / sizeof smpo_params_rules[0],
    .role = ICSIM_ROLE_NETWORK,
    .wire_mode = ICSIM_WIRE_FACTORS,
    .create = smpo_create,
    .destroy = smpo_destroy,
    .send_cpu = smpo_send_cpu,
    .recv_cpu = smpo_recv_cpu,
    .intra_node_cpu = smpo_intra_node_cpu,
    .wire = smpo_wire,
    .transfer_done = smpo_transfer_done,
    .eager_limit_bytes = smpo_eager_limit,
    .counters = smpo_counters,
    .check = smpo_check,
    .place_pattern = smpo_place_pattern,
    .place_pattern_help = smpo_place_pattern_help,
};

ICSIM_REGISTER_STACK(smpo_stack)
