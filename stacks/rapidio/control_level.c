/* Control level: the small-data path through mailbox 0 and the common queue, the large-data
 * path through dedicated queues, and the bookkeeping of queues, mailboxes and common-queue
 * slots that decides deferrals and segment retries. Times are absolute simulated seconds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rapidio.h"

int rio_state_init(struct rio_state *s, int nodes, char *err, size_t errlen)
{
  const struct rio_params *p = &s->p;
  if (p->large_threshold_B < 0 || p->mailboxes < 2) {
    snprintf(err, errlen, "rapidio: needs at least one data mailbox besides mailbox 0");
    return -1;
  }
  s->nodes = nodes;
  s->node = calloc((size_t)nodes, sizeof *s->node);
  for (int n = 0; n < nodes; n++) {
    s->node[n].queue_free_at = calloc((size_t)p->dedicated_queues, sizeof(double));
    s->node[n].slot_free_at = calloc((size_t)p->common_queue_slots, sizeof(double));
  }
  size_t nmb = (size_t)nodes * (size_t)nodes * (size_t)(p->mailboxes - 1) * (size_t)p->letters;
  s->mailbox_free_at = calloc(nmb, sizeof(double));
  return 0;
}

void rio_state_free(struct rio_state *s)
{
  for (int n = 0; n < s->nodes; n++) {
    free(s->node[n].queue_free_at);
    free(s->node[n].slot_free_at);
    free(s->node[n].flows);
  }
  free(s->node);
  free(s->mailbox_free_at);
  free(s->holds);
}

bool rio_is_large(const struct rio_params *p, double bytes) { return bytes > p->large_threshold_B; }

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
    if (n->flows[i].start_s < to && n->flows[i].end_s > from && (out < 0 || n->flows[i].out == out))
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
  double lanes = fmax(overlapping_rate(&s->node[src], now, from, from + data_s, 1),
                      overlapping_rate(&s->node[dst], now, from, from + data_s, 0));
  if (lanes + rate > s->link_bw_Bps)
    data_s *= (lanes + rate) / s->link_bw_Bps;
  return data_s;
}

static void place_flow(struct rio_state *s, int src, int dst, double from, double to, double wire_B)
{
  add_flow(&s->node[src], from, to, wire_B / (to - from), 1);
  add_flow(&s->node[dst], from, to, wire_B / (to - from), 0);
}

void rio_small_transfer(struct rio_state *s, int src, int dst, double now, double bytes, double route_lat_s,
                        struct rio_timing *t)
{
  const struct rio_params *p = &s->p;
  struct rio_node *rx = &s->node[dst];
  memset(t, 0, sizeof *t);
  double r = rio_round(p, bytes + p->small_header_B); /* bounce buffer: header + data, rounded */
  double move_s = rio_messages_s(p, r, s->link_bw_Bps, route_lat_s, &t->segments, &t->messages);
  /* Each 4 KiB piece needs a free common-queue buffer; while none is free the receiver rejects
   * the segment and the sender retries it. */
  int need = (int)fmin(t->messages, p->common_queue_slots);
  double free_at = kth_smallest(rx->slot_free_at, p->common_queue_slots, need);
  double wait = free_at > now ? free_at - now : 0;
  double attempt = rio_segment_s(p, p->segment_B, s->link_bw_Bps, route_lat_s) + p->retry_delay_s;
  t->retries = wait > 0 ? ceil(wait / attempt) : 0;
  double arrival = now + wait + move_s;
  /* the receiver drains the common queue one packet at a time */
  double start = arrival > rx->cpu_free_at ? arrival : rx->cpu_free_at;
  rx->cpu_free_at = start + rio_small_cpu_s(s, bytes);
  for (int used = 0; used < need; used++) { /* the earliest-free slots are taken */
    int best = 0;
    for (int i = 1; i < p->common_queue_slots; i++)
      if (rx->slot_free_at[i] < rx->slot_free_at[best])
        best = i;
    rx->slot_free_at[best] = rx->cpu_free_at;
  }
  /* the rejected attempts occupy the lanes while waiting; the packet itself flows after */
  if (wait > 0)
    place_flow(s, src, dst, now, now + wait, t->retries * (p->segment_B + p->packet_header_B));
  double wire_B = r + t->segments * p->packet_header_B;
  double data = share_lanes(s, src, dst, now, now + wait, move_s, wire_B);
  place_flow(s, src, dst, now + wait, now + wait + data, wire_B);
  t->total_s = wait + data;
  t->data_s = data;
}

void rio_large_transfer(struct rio_state *s, int src, int dst, double now, double bytes, double route_lat_s,
                        struct rio_timing *t)
{
  const struct rio_params *p = &s->p;
  struct rio_node *rx = &s->node[dst];
  memset(t, 0, sizeof *t);
  /* A dedicated queue at the receiver and a (mailbox, letter) of this source: the earliest
   * pair free; if that is later than now, the request is deferred until then. */
  int q = 0;
  for (int i = 1; i < p->dedicated_queues; i++)
    if (rx->queue_free_at[i] < rx->queue_free_at[q])
      q = i;
  size_t per_pair = (size_t)(p->mailboxes - 1) * (size_t)p->letters;
  double *mb = s->mailbox_free_at + ((size_t)src * (size_t)s->nodes + (size_t)dst) * per_pair;
  size_t m = 0;
  for (size_t i = 1; i < per_pair; i++)
    if (mb[i] < mb[m])
      m = i;
  double granted = fmax(now, fmax(rx->queue_free_at[q], mb[m]));
  t->deferred = granted > now;
  /* Handshake on mailbox 0: the request, then the reply carrying the mailbox number; each a
   * one-segment control message handled by the control level at both ends. */
  double ctl_cpu = 2 * p->control_instructions / s->clock_Hz;
  double ctl_msg = rio_messages_s(p, rio_round(p, p->small_header_B), s->link_bw_Bps, route_lat_s, NULL, NULL);
  double handshake = 2 * (ctl_cpu + ctl_msg);
  t->control_messages = 2;
  /* Data: 4 KiB messages; by hand, the driver learns that one completed before it starts the
   * next (the programming itself is CPU work, charged to the sending rank). */
  double msg_B = p->segment_B * p->segments_per_message;
  double nmsg = bytes > 0 ? ceil(bytes / msg_B) : 1;
  double segs_total = 0, move_s = 0;
  double full_s = rio_messages_s(p, msg_B, s->link_bw_Bps, route_lat_s, &segs_total, NULL);
  double last_B = bytes - (nmsg - 1) * msg_B, last_segs;
  double last_s = rio_messages_s(p, last_B, s->link_bw_Bps, route_lat_s, &last_segs, NULL);
  move_s = (nmsg - 1) * full_s + last_s;
  double nseg = (nmsg - 1) * segs_total + last_segs;
  double chain = move_s + (p->manual_programming ? nmsg : 1) * p->completion_latency_s;
  /* Controller DMA shared by all large flows in and out of each end: past its rate the
   * receiver rejects segments and the sender retries them. */
  double rate = bytes / chain;
  double from = granted + handshake, to = from + chain;
  double load = fmax(overlapping_rate(rx, now, from, to, -1), overlapping_rate(&s->node[src], now, from, to, -1)) + rate;
  if (load > p->dma_bw_Bps) {
    double f = 1 - p->dma_bw_Bps / load;  /* share of segment attempts rejected */
    double per_seg = f / (1 - f);         /* expected retries per delivered segment */
    t->retries = nseg * per_seg;
    chain += t->retries * (rio_segment_s(p, p->segment_B, s->link_bw_Bps, route_lat_s) + p->retry_delay_s);
  }
  double wire_B = bytes + nseg * p->packet_header_B + t->retries * (p->segment_B + p->packet_header_B);
  chain = share_lanes(s, src, dst, now, from, chain, wire_B);
  place_flow(s, src, dst, from, from + chain, wire_B);
  t->doorbells = 1; /* tells the receiver's control level the transfer is complete */
  double done = granted + handshake + chain + rio_doorbell_s(p, s->link_bw_Bps, route_lat_s);
  rx->queue_free_at[q] = done;
  mb[m] = done;
  t->queue = q;
  t->mailbox = (size_t)(mb - s->mailbox_free_at) + m;
  t->done_s = done;
  t->total_s = done - now;
  t->segments = nseg;
  t->messages = nmsg;
  t->data_s = chain;
}
