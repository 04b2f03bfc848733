/* The software path above the controller (driver, MX, MPICH) and the stack's entry in the
 * icsim contract. Host-side costs run in the rank (CPU occupied); wire-side costs come from the
 * control level and the controller. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "platform.h"
#include "rapidio.h"

static bool aligned(const struct rio_params *p, const void *buf)
{
  uintptr_t a = (uintptr_t)p->zero_copy_align_B;
  return a > 0 && (uintptr_t)buf % a == 0;
}

static int rio_create(void **state, const struct icsim_params *ps, const struct icsim_platform *pf, char *err,
                      size_t errlen)
{
  struct rio_state *s = calloc(1, sizeof *s);
  icsim_params_fill(ps, rio_params_table, rio_params_table_len, &s->p);
  s->clock_Hz = pf->p.clock_Hz;
  s->link_bw_Bps = pf->p.link_bw_Bps;
  if (rio_state_init(s, pf->p.nodes, err, errlen)) {
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static void rio_destroy(void *state)
{
  rio_state_free(state);
  free(state);
}

static double rio_send_cpu(void *state, const struct icsim_msg *m)
{
  struct rio_state *s = state;
  const struct rio_params *p = &s->p;
  double n = (double)m->bytes;
  if (m->kind != ICSIM_MSG_P2P) /* MPI_Put/MPI_Get: CPU loads and stores through the window */
    return ceil(fmax(n, 1) / p->io_payload_B) * p->io_instructions / s->clock_Hz;
  switch (rio_path_of(p, n)) {
  case RIO_PATH_MX_EAGER:
    /* MX medium: the library copies the data with its type/size header into its aligned send
     * buffer, which the control level sends from on mailbox 0 */
    s->bounce_copies++;
    return rio_small_cpu_s(s, n);
  case RIO_PATH_MX_PULL:
    /* MX large: the request goes to the kernel at once; the rendezvous work and the per-piece
     * copies are the drivers' queued CPU work (control_level.c, small_data) */
    return 0;
  case RIO_PATH_DEDICATED:
    break;
  }
  double t = rio_large_send_cpu_s(s, n);
  if (aligned(p, m->buf)) {
    s->zero_copy++;
  } else { /* the dedicated queue needs a 4 KiB-aligned buffer: copy into one */
    s->bounce_copies++;
    t += rio_round(p, n) / p->bounce_copy_bw_Bps;
  }
  return t;
}

static double rio_recv_cpu(void *state, const struct icsim_msg *m)
{
  struct rio_state *s = state;
  const struct rio_params *p = &s->p;
  double n = (double)m->bytes;
  switch (rio_path_of(p, n)) {
  case RIO_PATH_MX_EAGER: return rio_small_cpu_s(s, n);
  case RIO_PATH_MX_PULL: return 0; /* see rio_send_cpu */
  case RIO_PATH_DEDICATED: break;
  }
  double t = p->mx_large_instructions / s->clock_Hz;
  if (!aligned(p, m->buf)) { /* received into an aligned bounce buffer, copied out */
    s->bounce_copies++;
    t += rio_round(p, n) / p->bounce_copy_bw_Bps;
  }
  return t;
}

static void report_hazard(struct rio_state *s, double bytes)
{
  double over = rio_hazard_overflow(&s->p, bytes, true);
  if (over <= 0)
    return;
  s->hazards++;
  if (!s->hazard_reported++) /* once per run; the counter has the total */
    fprintf(stderr,
            "icsim: rapidio: segment-placement hazard: a %.0f-byte message had segments rejected; its last "
            "segment lands at offset %.0f and writes %.0f bytes past the receive buffer. Keep "
            "rapidio/round-to-segment: true.\n",
            bytes, s->p.segment_B * (ceil(bytes / s->p.segment_B) - 1), over);
}

/* Where transfer T's time goes, as the transfer's phases in the paper's terms; SimGrid's
 * near-instant data phase (FLASH) is the flow. Control level: requests and replies through
 * mailbox 0 (a dedicated queue's, MX's RNDV and PULL); the data: segments with their status round
 * trips, those sent again, bounce copies; then the completion doorbell. What the model adds
 * beyond these (driver and lane queues shared with other transfers, a common-queue slot) is "lanes
 * and driver". */
static void rio_phases(const struct rio_timing *t, double flash, struct icsim_wire_cost *c)
{
  double named = t->request_s + t->queue_wait_s + t->reply_s + t->rendezvous_s + t->copy_s + t->retry_s +
                 t->doorbell_s;
  double segments = t->data_s - t->retry_s - t->rendezvous_s * (t->doorbell_s > 0); /* in the queue's chain */
  if (t->doorbell_s <= 0)
    segments = t->data_s; /* small and pulled data: moving time only */
  segments = fmax(segments, 0);
  icsim_wire_add_phase(c, "mailbox-0 request", t->request_s);
  icsim_wire_add_phase(c, "dedicated-queue wait", t->queue_wait_s);
  icsim_wire_add_phase(c, "mailbox-0 reply", t->reply_s);
  icsim_wire_add_phase(c, "MX rendezvous", t->rendezvous_s);
  icsim_wire_add_phase(c, "bounce copies", t->copy_s);
  icsim_wire_add_phase(c, "segments", fmax(segments - flash, 0));
  icsim_wire_add_phase(c, "segment retries", t->retry_s);
  /* the rest, a difference of sums: below a picosecond it is their rounding, not a wait */
  double rest = t->total_s - named - segments;
  icsim_wire_add_phase(c, "lanes and driver", rest > 1e-12 ? rest : 0);
  icsim_wire_add_phase_after(c, "completion doorbell", t->doorbell_s);
}

static void rio_wire(void *state, const struct icsim_wire_query *q, struct icsim_wire_cost *c)
{
  struct rio_state *s = state;
  const struct rio_params *p = &s->p;
  if (q->src_node == q->dst_node)
    return; /* shared memory inside a node: the platform's memory links */
  /* the route's latency, without the link time SimGrid would add again */
  double lat = q->route_latency_s;
  struct rio_timing t = {0};
  if (q->kind != ICSIM_MSG_P2P) {
    /* the origin's CPU issues the loads (get) or stores (put) itself, one operation after
     * another: a second operation waits for the first */
    struct rio_node *origin = &s->node[q->kind == ICSIM_MSG_GET ? q->dst_node : q->src_node];
    double start = fmax(q->now_s, origin->io_free_at);
    double io = rio_io_s(p, q->bytes, q->kind == ICSIM_MSG_GET, s->link_bw_Bps, lat, &t.io_transactions);
    origin->io_free_at = start + io;
    t.total_s = start - q->now_s + io;
    t.data_s = io;
    s->io_transactions += t.io_transactions;
  } else if (rio_path_of(p, q->bytes) == RIO_PATH_MX_EAGER) {
    rio_small_transfer(s, q->src_node, q->dst_node, q->now_s, q->bytes, lat, &t);
    s->small_msgs++;
    s->bytes_small += q->bytes;
  } else if (rio_path_of(p, q->bytes) == RIO_PATH_MX_PULL) {
    rio_pull_transfer(s, q->src_node, q->dst_node, q->now_s, q->bytes, lat, &t);
    s->pulled_msgs++;
    s->bytes_pulled += q->bytes;
  } else {
    rio_dedicated_queue_handshake(s, q->src_node, q->dst_node, q->now_s, rio_round(p, q->bytes), lat, &t);
    s->large_msgs++;
    s->bytes_large += q->bytes;
    s->queue_requests++;
    s->queue_grants++;
    s->deferrals += t.deferred;
    if (q->id) { /* held until SimGrid reports the transfer complete (rio_transfer_done) */
      if (s->nholds == s->holds_cap) {
        s->holds_cap = s->holds_cap ? 2 * s->holds_cap : 16;
        s->holds = realloc(s->holds, (size_t)s->holds_cap * sizeof *s->holds);
      }
      s->holds[s->nholds++] = (struct rio_hold){q->id, q->dst_node, t.queue, t.mailbox_index, t.done_s};
    } else {
      s->queue_releases++; /* nothing to join it to: released at the predicted time */
    }
  }
  if (t.retries > 0)
    report_hazard(s, q->bytes);
  s->segments += t.segments;
  s->retries += t.retries;
  s->rio_messages += t.messages;
  s->control_messages += t.control_messages;
  s->pull_requests += t.pull_requests;
  s->doorbells += t.doorbells;
  /* The model has already placed the transfer segment by segment on the lanes it shares with
   * the other RapidIO transfers (SimGrid cannot interleave a transfer's 4 KiB bursts with its
   * gaps). SimGrid gets the whole time as latency and a near-instant data phase, so that it
   * does not count the same link time twice. */
  double moved = q->bytes + q->envelope_bytes;
  double flash = moved / (1e3 * c->bandwidth_Bps);
  c->bandwidth_Bps *= 1e3;
  c->latency_s = fmax(t.total_s - flash, 1e-12);
  rio_phases(&t, flash, c);
}

/* The transfer's last byte is in: its dedicated queue and mailbox are free from now. The model
 * booked them until its predicted end; a transfer SimGrid stretched (or finished early) moves
 * the release to the real end, unless a later transfer has booked them meanwhile. */
static void rio_transfer_done(void *state, const struct icsim_transfer *t, double now)
{
  struct rio_state *s = state;
  for (int i = 0; i < s->nholds; i++) {
    struct rio_hold *h = &s->holds[i];
    if (h->id != t->id)
      continue;
    double *queue = &s->node[h->dst].queue_free_at[h->queue], *mb = &s->mailbox_free_at[h->mailbox_index];
    if (*queue == h->until)
      *queue = now;
    if (*mb == h->until)
      *mb = now;
    s->late_releases += now > h->until + 1e-9;
    s->queue_releases++;
    s->holds[i] = s->holds[--s->nholds];
    return;
  }
}

/* Above MX's medium size the sender waits for the receiver (rendezvous); the control level's own
 * boundary is above or below it. */
static double rio_eager_limit(void *state)
{
  const struct rio_params *p = &((struct rio_state *)state)->p;
  return fmin(p->mx_rndv_threshold_B, p->large_threshold_B);
}

static size_t rio_counters(void *state, struct icsim_counter *out, size_t max)
{
  struct rio_state *s = state;
  struct icsim_counter c[] = {
      {"small_messages", "transfers", s->small_msgs},     {"pulled_messages", "transfers", s->pulled_msgs},
      {"large_messages", "transfers", s->large_msgs},
      {"rapidio_messages", "messages", s->rio_messages}, {"segments", "segments", s->segments},
      {"segment_retries", "segments", s->retries},       {"bounce_copies", "copies", s->bounce_copies},
      {"zero_copy_sends", "messages", s->zero_copy},     {"queue_deferrals", "requests", s->deferrals},
      {"control_messages", "messages", s->control_messages}, {"pull_requests", "messages", s->pull_requests},
      {"doorbells", "doorbells", s->doorbells},
      {"io_transactions", "transactions", s->io_transactions}, {"placement_hazards", "messages", s->hazards},
      {"small_bytes", "bytes", s->bytes_small},          {"pulled_bytes", "bytes", s->bytes_pulled},
      {"large_bytes", "bytes", s->bytes_large},
      {"queue_releases", "queues", s->queue_releases},   {"late_queue_releases", "queues", s->late_releases},
  };
  return icsim_counters_out(out, max, c, sizeof c / sizeof c[0]);
}

static int rio_check(void *state, char *err, size_t errlen)
{
  struct rio_state *s = state;
  if (s->queue_grants != s->queue_requests) {
    snprintf(err, errlen, "rapidio: %.0f dedicated-queue requests but %.0f grants", s->queue_requests, s->queue_grants);
    return -1;
  }
  if (s->queue_releases != s->queue_grants) {
    snprintf(err, errlen, "rapidio: %.0f dedicated queues granted but %.0f returned (%d still held)", s->queue_grants,
             s->queue_releases, s->nholds);
    return -1;
  }
  if (s->control_messages != 2 * (s->large_msgs + s->pulled_msgs)) {
    snprintf(err, errlen,
             "rapidio: %.0f control messages for %.0f large and %.0f pulled messages (expected two each: queue "
             "request and reply, or RNDV and PULL)",
             s->control_messages, s->large_msgs, s->pulled_msgs);
    return -1;
  }
  return 0;
}

const struct icsim_stack_ops rapidio_stack = {
    .name = "rapidio",
    .summary = "1890VM6Ya RapidIO controller, control level (mailboxes, queues) and MX/MPICH",
    .params = rio_params_table,
    .nparams = RIO_NPARAMS,
    .role = ICSIM_ROLE_NETWORK,
    .wire_mode = ICSIM_WIRE_SCHEDULE,
    .create = rio_create,
    .destroy = rio_destroy,
    .send_cpu = rio_send_cpu,
    .recv_cpu = rio_recv_cpu,
    .wire = rio_wire,
    .transfer_done = rio_transfer_done,
    .eager_limit_bytes = rio_eager_limit,
    .counters = rio_counters,
    .check = rio_check,
};

ICSIM_REGISTER_STACK(rapidio_stack)
