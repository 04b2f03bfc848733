/* Control level: the driver layer between MX and the controller, as the paper's control-level
 * operations (enum rio_control_op), one handler each, reached through rio_control(). The three
 * paths of enum rio_path are built from them:
 *   RIO_PATH_MX_EAGER   one RIO_SMALL_DATA on the control mailbox (mailbox 0): header + data in
 *                       MX's bounce buffer, the receiver's common queue, reassembly over 4 KiB
 *                       (rio_small_transfer);
 *   RIO_PATH_MX_PULL    MX's RNDV and PULL on mailbox 0, then a pulled RIO_SMALL_DATA: pieces of
 *                       the registered pages copied through bounce buffers by both drivers, one
 *                       pull request and one completion per piece (rio_pull_transfer);
 *   RIO_PATH_DEDICATED  the dedicated-queue handshake: RIO_QUEUE_REQUEST and RIO_QUEUE_REPLY on
 *                       mailbox 0, RIO_SEND_TO_MAILBOX into the dedicated queue, RIO_COMPLETION
 *                       doorbell (rio_dedicated_queue_handshake).
 * The bookkeeping of queues, mailboxes, common-queue buffers, lanes and the drivers' CPU decides
 * deferrals, segment retries and how concurrent transfers share. Times are absolute simulated
 * seconds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rapidio.h"

/* The driver opens each node's common queue (behind mailbox 0) at start-up. */
static void control_mailbox_open(struct rio_control_mailbox *cm, int slots)
{
  cm->slot_free_at = calloc((size_t)slots, sizeof(double));
  cm->slots = slots;
  cm->cpu_free_at = 0;
}

static void control_mailbox_close(struct rio_control_mailbox *cm) { free(cm->slot_free_at); }

int rio_state_init(struct rio_state *s, int nodes, char *err, size_t errlen)
{
  const struct rio_params *p = &s->p;
  if (p->large_threshold_B < 0 || p->mailboxes < RIO_CONTROL_MAILBOX + 2) {
    snprintf(err, errlen, "rapidio: needs at least one data mailbox besides mailbox %d", RIO_CONTROL_MAILBOX);
    return -1;
  }
  s->nodes = nodes;
  s->node = calloc((size_t)nodes, sizeof *s->node);
  for (int n = 0; n < nodes; n++) {
    s->node[n].queue_free_at = calloc((size_t)p->dedicated_queues, sizeof(double));
    control_mailbox_open(&s->node[n].control, p->common_queue_slots);
  }
  size_t nmb = (size_t)nodes * (size_t)nodes * (size_t)(p->mailboxes - 1) * (size_t)p->letters;
  s->mailbox_free_at = calloc(nmb, sizeof(double));
  return 0;
}

void rio_state_free(struct rio_state *s)
{
  for (int n = 0; n < s->nodes; n++) {
    free(s->node[n].queue_free_at);
    control_mailbox_close(&s->node[n].control);
    free(s->node[n].flows);
  }
  free(s->node);
  free(s->mailbox_free_at);
  free(s->holds);
}

bool rio_is_large(const struct rio_params *p, double bytes) { return bytes > p->large_threshold_B; }

enum rio_path rio_path_of(const struct rio_params *p, double bytes)
{
  if (rio_is_large(p, bytes))
    return RIO_PATH_DEDICATED;
  return bytes > p->mx_rndv_threshold_B ? RIO_PATH_MX_PULL : RIO_PATH_MX_EAGER;
}

const char *rio_path_name(enum rio_path path)
{
  switch (path) {
  case RIO_PATH_MX_EAGER: return "mx-eager (mailbox 0)";
  case RIO_PATH_MX_PULL: return "mx-pull (mailbox 0, bounce buffers)";
  case RIO_PATH_DEDICATED: return "dedicated queue (zero-copy)";
  }
  return "?";
}

double rio_small_cpu_s(const struct rio_state *s, double bytes)
{
  const struct rio_params *p = &s->p;
  double r = rio_round(p, bytes + p->small_header_B);
  double msgs = ceil(r / (p->segment_B * p->segments_per_message));
  return (p->mx_instructions + msgs * p->mailbox_message_instructions) / s->clock_Hz + r / p->copy_bw_Bps;
}

double rio_large_send_cpu_s(const struct rio_state *s, double bytes)
{
  const struct rio_params *p = &s->p;
  double nmsg = ceil(rio_round(p, bytes) / (p->segment_B * p->segments_per_message));
  return (p->mx_large_instructions + (p->manual_programming ? nmsg : 1) * p->program_instructions) / s->clock_Hz;
}

/* k-th smallest of V[0..n) (k >= 1), by partial selection on a copy. */
static double kth_smallest(const double *v, int n, int k)
{
  double tmp[1024];
  int m = n < 1024 ? n : 1024;
  memcpy(tmp, v, (size_t)m * sizeof *tmp);
  for (int i = 0; i < k && i < m; i++)
    for (int j = i + 1; j < m; j++)
      if (tmp[j] < tmp[i]) {
        double t = tmp[i];
        tmp[i] = tmp[j];
        tmp[j] = t;
      }
  return tmp[(k <= m ? k : m) - 1];
}

/* Sum of rates of node N's flows overlapping [from, to): of one direction (OUT = 1 outbound,
 * 0 inbound) or both (OUT = -1). Finished flows are dropped. */
static double overlapping_rate(struct rio_node *n, double now, double from, double to, int out)
{
  double sum = 0;
  int k = 0;
  for (int i = 0; i < n->nflows; i++) {
    if (n->flows[i].end_s <= now)
      continue;
    n->flows[k++] = n->flows[i];
    if (n->flows[i].start_s < to && n->flows[i].end_s > from && (out < 0 ? n->flows[i].out <= RIO_FLOW_OUT : n->flows[i].out == out))
      sum += n->flows[i].rate_Bps;
  }
  n->nflows = k;
  return sum;
}

static void add_flow(struct rio_node *n, double start, double end, double rate, int out)
{
  if (n->nflows == n->flows_cap) {
    n->flows_cap = n->flows_cap ? 2 * n->flows_cap : 16;
    n->flows = realloc(n->flows, (size_t)n->flows_cap * sizeof *n->flows);
  }
  n->flows[n->nflows++] = (struct rio_flow){start, end, rate, out};
}

/* The link is full duplex: a transfer shares the source's outbound lane and the destination's
 * inbound lane with the transfers already placed there. Segments of concurrent transfers
 * interleave, so only a combined rate above the lane's capacity stretches this one. Returns
 * the stretched data time. */
static double share_lanes(struct rio_state *s, int src, int dst, double now, double from, double data_s,
                          double wire_B)
{
  double rate = wire_B / data_s;
  double lanes = fmax(overlapping_rate(&s->node[src], now, from, from + data_s, RIO_FLOW_OUT),
                      overlapping_rate(&s->node[dst], now, from, from + data_s, RIO_FLOW_IN));
  if (lanes + rate > s->link_bw_Bps)
    data_s *= (lanes + rate) / s->link_bw_Bps;
  return data_s;
}

/* A transfer that needs WIRE_B bytes of link time from FROM on, on the source's outbound and
 * the destination's inbound lane: each lane is a queue of link time, so transfers whose bursts
 * come with gaps (completion waits) interleave in them, and together never exceed the link.
 * Returns when both lanes have carried it. */
static double lane_queue(struct rio_state *s, int src, int dst, double from, double wire_B)
{
  struct rio_node *tx = &s->node[src], *rx = &s->node[dst];
  double link_s = wire_B / s->link_bw_Bps;
  tx->out_busy_until = fmax(tx->out_busy_until, from) + link_s;
  rx->in_busy_until = fmax(rx->in_busy_until, from) + link_s;
  return fmax(tx->out_busy_until, rx->in_busy_until);
}

static void place_flow(struct rio_state *s, int src, int dst, double from, double to, double wire_B)
{
  add_flow(&s->node[src], from, to, wire_B / (to - from), RIO_FLOW_OUT);
  add_flow(&s->node[dst], from, to, wire_B / (to - from), RIO_FLOW_IN);
}

/* When NEED buffers of the common queue are free: until then the receiver rejects segments. */
static double control_mailbox_free_at(const struct rio_control_mailbox *cm, int need)
{
  return kth_smallest(cm->slot_free_at, cm->slots, need);
}

/* A packet of NEED buffers arrives at ARRIVAL; the CPU takes it once it has drained the packets
 * before it, which costs CPU_S. The buffers stay taken until then, the earliest-free first. */
static void control_mailbox_take(struct rio_control_mailbox *cm, int need, double arrival, double cpu_s)
{
  double start = arrival > cm->cpu_free_at ? arrival : cm->cpu_free_at;
  cm->cpu_free_at = start + cpu_s;
  for (int used = 0; used < need; used++) {
    int best = 0;
    for (int i = 1; i < cm->slots; i++)
      if (cm->slot_free_at[i] < cm->slot_free_at[best])
        best = i;
    cm->slot_free_at[best] = cm->cpu_free_at;
  }
}

/* One control message on mailbox 0 (a queue request or reply): the control level's work at
 * each end and one message of a rounded header's size. It does not queue behind small data in
 * the common queue: the control level handles it as it comes in. */
static double control_message_s(const struct rio_state *s, double route_lat_s)
{
  const struct rio_params *p = &s->p;
  double cpu = 2 * p->control_instructions / s->clock_Hz;
  return cpu + rio_messages_s(p, rio_round(p, p->small_header_B), s->link_bw_Bps, route_lat_s, NULL, NULL);
}

/* The queue of driver work (bounce copies, MX's rendezvous work) that node NODE's core runs for
 * its transfers in direction DIR (RIO_FLOW_OUT: it sends, RIO_FLOW_IN: it receives). The
 * 1890VM6Ya has one CPU core (paper: "CPU core + FP coprocessor + RapidIO controller on one
 * chip"; the platform's one core per node), and the whole driver stack runs on it for both
 * directions: a node that sends and receives at once does both drivers' work one job after
 * another (rapidio/shared-core). Switched off, each direction has its own queue, as if the
 * sending and the receiving driver ran on two cores. */
static double *driver_queue(struct rio_state *s, int node, int dir)
{
  return &s->node[node].driver_busy_until[s->p.shared_core ? 0 : dir];
}

/* Small data to the receiver's common queue on mailbox 0: header + data rounded, cut into 4 KiB
 * RapidIO messages (pieces), one common-queue buffer each, reassembled by the receiver. The
 * sending driver handles one piece at a time: it learns that a piece completed (completion
 * latency) before it programs the next when they come from registered pages (pulled), as for the
 * dedicated queues. While no common-queue buffer
 * is free the receiver rejects the piece's segments and the sender retries them.
 * Eager (MX medium) data is in MX's aligned send buffer already; the receiving CPU drains each
 * piece with its share of the MX receive path (charged to the rank as recv_cpu too), and the data
 * counts as delivered when its last piece has arrived.
 * Pulled data (M->pulled, an MX rendezvous) comes from the user's registered pages: the sending
 * driver copies each piece into a bounce buffer first, the receiving driver copies each out of the
 * common queue into the user's pages, and the data is delivered when the last piece is copied out.
 * Each node's core does that work, and MX's per-message rendezvous work, one job after another:
 * a queue of CPU work that one transfer's completion gaps leave to the others. */
static double small_data(struct rio_state *s, struct rio_control_msg *m, struct rio_timing *t)
{
  const struct rio_params *p = &s->p;
  struct rio_control_mailbox *cm = &s->node[m->dst].control;
  double r = rio_round(p, m->bytes + p->small_header_B); /* bounce buffer: header + data, rounded */
  double msg_B = p->segment_B * p->segments_per_message;
  int pieces = r > msg_B ? (int)ceil(r / msg_B) : 1;
  double drain_per_piece = rio_small_cpu_s(s, m->bytes) / pieces; /* eager: the MX receive path */
  double attempt = rio_segment_s(p, p->segment_B, s->link_bw_Bps, m->route_lat_s) + p->retry_delay_s;
  double at = m->at_s, last_arrival = at, wire_B = 0, moving = 0, copies = 0, copy = 0, first_move = -1;
  for (int i = 0; i < pieces; i++) {
    double piece = i < pieces - 1 ? msg_B : r - (pieces - 1) * msg_B;
    if (m->pulled && i > 0) { /* MX's pull: the receiver asks for each next piece (the PULL of
                               * the rendezvous asked for the first) */
      double pull = control_message_s(s, m->route_lat_s);
      at += pull;
      t->rendezvous_s += pull;
      t->pull_requests += 1;
    }
    copy = m->pulled ? piece / p->bounce_copy_bw_Bps : 0;
    at += copy; /* pulled: the sending driver copies the piece into a bounce buffer */
    copies += copy;
    t->copy_s += copy;
    /* eager pieces wait for a common-queue buffer; pulled pieces are drained at the rate the
     * receiving driver copies them out (its CPU load below), which bounds the buffers they hold */
    double free_at = m->pulled ? at : control_mailbox_free_at(cm, 1);
    double wait = free_at > at ? free_at - at : 0;
    if (wait > 0) { /* rejected attempts occupy the lanes while the receiver has no buffer */
      double retries = ceil(wait / attempt);
      t->retries += retries;
      place_flow(s, m->src, m->dst, at, at + wait, retries * (p->segment_B + p->packet_header_B));
      at += wait;
      t->retry_s += wait;
    }
    double segs;
    double move_s = rio_messages_s(p, piece, s->link_bw_Bps, m->route_lat_s, &segs, NULL);
    if (first_move < 0)
      first_move = at;
    last_arrival = at + move_s;
    moving += move_s;
    if (!m->pulled)
      control_mailbox_take(cm, 1, last_arrival, drain_per_piece);
    wire_B += piece + segs * p->packet_header_B;
    t->segments += segs;
    t->messages += 1;
    /* Pulled pieces come from registered pages: the driver programs each by hand after the
     * previous one's completion. Eager pieces sit in one contiguous bounce buffer (MX's send
     * buffer): the driver queues them on the outbound ring at once, back to back. */
    at = last_arrival + (m->pulled && i < pieces - 1 ? p->completion_latency_s : 0);
  }
  /* pulled: the last piece is delivered once copied out */
  double end = last_arrival + copy;
  if (m->pulled) {
    /* Each driver copies pieces one at a time: its CPU is a queue of copy work shared by every
     * pulled transfer on the node, while the gaps of one transfer's chain (completion latency)
     * leave it free for others' pieces. The transfer cannot end before both drivers have done
     * the work queued before it and its own. */
    /* the node's one core also runs MX's per-message rendezvous work (RNDV, PULL, NOTIFY,
     * registration) in the kernel: queued with the copies, it fills the chain's gaps */
    double work = copies + p->mx_large_instructions / s->clock_Hz;
    double *txq = driver_queue(s, m->src, RIO_FLOW_OUT), *rxq = driver_queue(s, m->dst, RIO_FLOW_IN);
    *txq = fmax(*txq, m->at_s) + work;
    *rxq = fmax(*rxq, m->at_s) + work;
    end = fmax(end, fmax(*txq, *rxq) + copy);
  }
  double span = end - m->at_s;
  if (m->pulled) {
    /* the lanes likewise: a queue of link time, the chain's gaps left to other transfers */
    span = fmax(span, lane_queue(s, m->src, m->dst, m->at_s, wire_B) - m->at_s);
  } else {
    /* the pieces share the source's outbound and the destination's inbound lanes with the
     * transfers placed before them; a combined rate above the link stretches the whole span */
    double moving_span = end - first_move;
    span += share_lanes(s, m->src, m->dst, m->now_s, first_move, moving_span, wire_B) - moving_span;
  }
  place_flow(s, m->src, m->dst, first_move, m->at_s + span, wire_B);
  t->data_s = moving;
  return span;
}

/* The receiver's control level reserves the earliest-free dedicated queue and (mailbox, letter)
 * of this source. The model lets a deferred request wait first, then pays its transit: the
 * queue and mailbox are booked from granted_s. */
static double queue_request(struct rio_state *s, struct rio_control_msg *m, struct rio_timing *t)
{
  const struct rio_params *p = &s->p;
  struct rio_node *rx = &s->node[m->dst];
  int q = 0;
  for (int i = 1; i < p->dedicated_queues; i++)
    if (rx->queue_free_at[i] < rx->queue_free_at[q])
      q = i;
  size_t per_pair = (size_t)(p->mailboxes - 1) * (size_t)p->letters;
  size_t first = ((size_t)m->src * (size_t)s->nodes + (size_t)m->dst) * per_pair;
  const double *mb = s->mailbox_free_at + first;
  size_t k = 0;
  for (size_t i = 1; i < per_pair; i++)
    if (mb[i] < mb[k])
      k = i;
  m->queue = q;
  m->mailbox_index = first + k;
  m->granted_s = fmax(m->at_s, fmax(rx->queue_free_at[q], mb[k]));
  t->deferred = m->granted_s > m->at_s;
  t->control_messages += 1;
  return control_message_s(s, m->route_lat_s);
}

/* The control message that tells the sender which mailbox its dedicated queue was opened on:
 * data mailboxes are numbered after mailbox 0, each with its letters. */
static double queue_reply(struct rio_state *s, struct rio_control_msg *m, struct rio_timing *t)
{
  const struct rio_params *p = &s->p;
  size_t k = m->mailbox_index % ((size_t)(p->mailboxes - 1) * (size_t)p->letters);
  m->mailbox = RIO_CONTROL_MAILBOX + 1 + (int)(k / (size_t)p->letters);
  m->letter = (int)(k % (size_t)p->letters);
  t->control_messages += 1;
  return control_message_s(s, m->route_lat_s);
}

/* The registered buffer as 4 KiB messages into the dedicated queue. By hand, the driver learns
 * that one completed before it starts the next (the programming itself is CPU work, charged to
 * the sending rank). */
static double send_to_mailbox(struct rio_state *s, struct rio_control_msg *m, struct rio_timing *t)
{
  const struct rio_params *p = &s->p;
  if (m->mailbox == RIO_CONTROL_MAILBOX) {
    /* only the reply tells the sender a data mailbox: the handshake's order is broken */
    fprintf(stderr, "icsim: internal error: rapidio: data sent to mailbox %d before the queue reply\n",
            RIO_CONTROL_MAILBOX);
    abort();
  }
  struct rio_node *rx = &s->node[m->dst];
  double bytes = m->bytes;
  double msg_B = p->segment_B * p->segments_per_message;
  double nmsg = bytes > 0 ? ceil(bytes / msg_B) : 1;
  double segs_total = 0, move_s = 0;
  double full_s = rio_messages_s(p, msg_B, s->link_bw_Bps, m->route_lat_s, &segs_total, NULL);
  double last_B = bytes - (nmsg - 1) * msg_B, last_segs;
  double last_s = rio_messages_s(p, last_B, s->link_bw_Bps, m->route_lat_s, &last_segs, NULL);
  move_s = (nmsg - 1) * full_s + last_s;
  double nseg = (nmsg - 1) * segs_total + last_segs;
  double chain = move_s + (p->manual_programming ? nmsg : 1) * p->completion_latency_s;
  if (bytes > p->mx_rndv_threshold_B) { /* an MX large message: the receiver pulls each next piece */
    double pulls = (nmsg - 1) * control_message_s(s, m->route_lat_s);
    chain += pulls;
    t->rendezvous_s += pulls;
    t->pull_requests += nmsg - 1;
  }
  /* Controller DMA shared by all large flows in and out of each end: past its rate the
   * receiver rejects segments and the sender retries them. */
  double rate = bytes / chain;
  double from = m->at_s, to = from + chain;
  double load = fmax(overlapping_rate(rx, m->now_s, from, to, -1),
                     overlapping_rate(&s->node[m->src], m->now_s, from, to, -1)) +
                rate;
  double retries = 0;
  if (load > p->dma_bw_Bps) {
    double f = 1 - p->dma_bw_Bps / load; /* share of segment attempts rejected */
    double per_seg = f / (1 - f);        /* expected retries per delivered segment */
    retries = nseg * per_seg;
    double again = retries * (rio_segment_s(p, p->segment_B, s->link_bw_Bps, m->route_lat_s) + p->retry_delay_s);
    chain += again;
    t->retry_s += again;
  }
  double wire_B = bytes + nseg * p->packet_header_B + retries * (p->segment_B + p->packet_header_B);
  chain = fmax(chain, lane_queue(s, m->src, m->dst, from, wire_B) - from);
  place_flow(s, m->src, m->dst, from, from + chain, wire_B);
  t->segments += nseg;
  t->messages += nmsg;
  t->retries += retries;
  t->data_s = chain;
  return chain;
}

/* The doorbell tells the receiver's control level the transfer is complete: its dedicated queue
 * and (mailbox, letter) are free once it has arrived. */
static double completion(struct rio_state *s, struct rio_control_msg *m, struct rio_timing *t)
{
  double doorbell = rio_doorbell_s(&s->p, s->link_bw_Bps, m->route_lat_s);
  double done = m->at_s + doorbell;
  s->node[m->dst].queue_free_at[m->queue] = done;
  s->mailbox_free_at[m->mailbox_index] = done;
  t->doorbells += 1;
  t->queue = m->queue;
  t->mailbox_index = m->mailbox_index;
  t->done_s = done;
  return doorbell;
}

double rio_control(struct rio_state *s, struct rio_control_msg *m, struct rio_timing *t)
{
  switch (m->op) {
  case RIO_QUEUE_REQUEST: return queue_request(s, m, t);
  case RIO_QUEUE_REPLY: return queue_reply(s, m, t);
  case RIO_SEND_TO_MAILBOX: return send_to_mailbox(s, m, t);
  case RIO_COMPLETION: return completion(s, m, t);
  case RIO_SMALL_DATA: return small_data(s, m, t);
  default:
    fprintf(stderr, "icsim: internal error: rapidio: unknown control-level operation %d\n", (int)m->op);
    abort();
  }
}

void rio_small_transfer(struct rio_state *s, int src, int dst, double now, double bytes, double route_lat_s,
                        struct rio_timing *t)
{
  memset(t, 0, sizeof *t);
  struct rio_control_msg m = {.op = RIO_SMALL_DATA, .src = src, .dst = dst, .now_s = now, .at_s = now,
                                .bytes = bytes, .route_lat_s = route_lat_s};
  t->total_s = rio_control(s, &m, t);
}

void rio_pull_transfer(struct rio_state *s, int src, int dst, double now, double bytes, double route_lat_s,
                       struct rio_timing *t)
{
  memset(t, 0, sizeof *t);
  /* MX's rendezvous: RNDV from the sender, PULL from the receiver, each a control message on
   * mailbox 0; then the registered pages as pulled small data */
  double handshake = 2 * control_message_s(s, route_lat_s);
  t->control_messages += 2;
  t->rendezvous_s += handshake;
  struct rio_control_msg m = {.op = RIO_SMALL_DATA, .src = src, .dst = dst, .now_s = now, .at_s = now + handshake,
                              .bytes = bytes, .route_lat_s = route_lat_s, .pulled = true};
  t->total_s = handshake + rio_control(s, &m, t);
}

void rio_dedicated_queue_handshake(struct rio_state *s, int src, int dst, double now, double bytes,
                                   double route_lat_s, struct rio_timing *t)
{
  memset(t, 0, sizeof *t);
  struct rio_control_msg m = {.op = RIO_QUEUE_REQUEST, .src = src, .dst = dst, .now_s = now, .at_s = now,
                                .bytes = bytes, .route_lat_s = route_lat_s};
  double request = rio_control(s, &m, t);
  m.op = RIO_QUEUE_REPLY;
  double reply = rio_control(s, &m, t);
  t->request_s = request;
  t->queue_wait_s = m.granted_s - now;
  t->reply_s = reply;
  /* the data may flow once the request has been granted and both control messages are through */
  m.op = RIO_SEND_TO_MAILBOX;
  m.at_s = m.granted_s + (request + reply);
  double data = rio_control(s, &m, t);
  m.op = RIO_COMPLETION;
  m.at_s += data;
  t->doorbell_s = rio_control(s, &m, t);
  t->total_s = t->done_s - now;
}
