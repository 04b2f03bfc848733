/* Generic parametric stack (see generic.h for the model). */
#include "generic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "platform.h"
#include "registration.h"

#define F(field) offsetof(struct generic_params, field)

static const struct icsim_param_desc generic_params_table[] = {
    {"generic/send-overhead", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1, "1us", "assumed",
     "CPU time the sender's MPI + driver spend per message", NULL, F(send_overhead_s)},
    {"generic/recv-overhead", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1, "1us", "assumed",
     "CPU time the receiver's MPI + driver spend per message", NULL, F(recv_overhead_s)},
    {"generic/eager-copy-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e13, "0Bps", "assumed",
     "memory copy rate of eager payloads into/out of stack buffers (0 = zero-copy)", NULL, F(eager_copy_bw_Bps)},
    {"generic/eager-threshold", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e12, "64KiB", "assumed",
     "largest message sent eagerly; larger ones use the RTS/CTS rendezvous", NULL, F(eager_threshold_B)},
    {"generic/frame-payload", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 1, 1e9, "1500B", "spec",
     "largest payload per link-level frame (MTU)", NULL, F(frame_payload_B)},
    {"generic/frame-header", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e6, "0B", "assumed",
     "bytes each frame adds on the wire (headers, CRC, preamble, gap)", NULL, F(frame_header_B)},
    {"generic/min-frame", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e6, "0B", "assumed",
     "shortest frame on the wire, headers included (padding up to it)", NULL, F(min_frame_B)},
    {"generic/control-bytes", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e6, "64B", "assumed",
     "payload of one rendezvous control message (RTS or CTS)", NULL, F(control_B)},
    {"generic/store-and-forward", ICSIM_P_BOOL, 0, 0, 0, "true", "assumed",
     "switches receive a whole frame before forwarding it (Ethernet); false = cut-through (InfiniBand)", NULL,
     F(store_and_forward)},
    {"generic/eager-push", ICSIM_P_BOOL, 0, 0, 0, "true", "spec",
     "an eager message leaves when it is sent, into buffers the receiving MPI keeps posted, whether or not the "
     "receive is posted yet (the eager protocol of MPICH's ch3 and MVAPICH2); false = SimGrid's plain behaviour, "
     "the data starts when the receive is posted", NULL, F(eager_push)},
    {"generic/rendezvous-finish", ICSIM_P_BOOL, 0, 0, 0, "false", "assumed",
     "rendezvous data is written by RDMA and a FIN control message follows it; the receive completes when the FIN "
     "lands (MVAPICH2's RPUT)", NULL, F(rendezvous_finish)},
    {"generic/registration-base", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1, "0s", "assumed",
     "registering a buffer with the adapter for RDMA, per registration (system call, adapter translation table "
     "update); 0 = the MPI registers nothing", NULL, F(reg_base_s)},
    {"generic/registration-per-page", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1, "0s", "assumed",
     "registering a buffer, per page pinned and translated", NULL, F(reg_page_s)},
    {"generic/registration-page", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 1, 1e9, "4KiB", "spec",
     "page size registrations are rounded out to (x86-64 base page)", NULL, F(reg_page_B)},
    {"generic/registration-cache-entries", ICSIM_P_INT, 0, 0, 1 << 24, "0", "assumed",
     "registrations each rank keeps for reuse (least recently used evicted); 0 = no cache, every rendezvous "
     "registers", NULL, F(reg_cache_entries)},
    {"generic/single-copy-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e13, "0Bps", "assumed",
     "inside a node, the receiver's one copy of a message above generic/shm-eager-threshold (CMA) is one core's "
     "work: no such transfer flows faster, whatever the memory channels allow; 0 = no bound of its own",
     NULL, F(single_copy_bw_Bps)},
    {"generic/pause-frames", ICSIM_P_BOOL, 0, 0, 0, "false", "assumed",
     "the switch's ports pause their senders (IEEE 802.3x PAUSE) rather than drop frames: nothing is lost, and "
     "an output port fed by k sources that also send elsewhere delivers sat(k) of its link (head-of-line "
     "blocking of FIFO input queues, Karol, Hluchyj and Morgan 1987: 0.75 for 2, 0.6184 for 8); star and fat "
     "tree only; false = an ideal output-queued switch (fair sharing)",
     NULL, F(pause_frames)},
    {"generic/switch-port-buffer", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e12, "0B", "assumed",
     "bytes a switch output port queues for its node before it drops (tail drop, no PAUSE): a transfer that "
     "starts while other transfers feed the port and all their windows exceed this + the route's round trip at "
     "link rate loses its window and waits generic/retransmit-timeout; 0 = the switch never drops",
     NULL, F(port_buffer_B)},
    {"generic/send-window", ICSIM_P_INT, 0, 0, 1 << 24, "0", "assumed",
     "frames a transfer keeps in flight before it waits for an acknowledgement (SCore PM/Ethernet's maxnsend, a "
     "TCP window in segments), what it can lose to a full port; 0 = the whole transfer", NULL, F(send_window)},
    {"generic/retransmit-timeout", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 100, "200ms", "assumed",
     "time after which a sender resends a window it got no acknowledgement for (SCore PM/Ethernet's backoff, "
     "TCP's minimum RTO); used only with generic/switch-port-buffer", NULL, F(retransmit_timeout_s)},
    {"generic/shm-eager-threshold", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e12, "0B", "assumed",
     "inside a node: largest message copied twice through the shared ring; larger ones take an RTS/CTS and one "
     "copy by the receiver", NULL, F(shm_eager_B)},
    {"generic/shm-copy-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e13, "0Bps", "assumed",
     "one core copying a message into or out of the shared ring; 0 = the platform's plain channel "
     "(nodes/shm-instructions per message, no protocol)", NULL, F(shm_copy_bw_Bps)},
};

double generic_wire_bytes(const struct generic_params *p, double payload, double *frames)
{
  double n = payload > 0 ? ceil(payload / p->frame_payload_B) : 1;
  double last = payload - (n - 1) * p->frame_payload_B + p->frame_header_B;
  double bytes = payload + n * p->frame_header_B;
  if (last < p->min_frame_B)
    bytes += p->min_frame_B - last;
  if (frames)
    *frames = n;
  return bytes;
}

/* Time for one frame-sized piece to be re-serialized by a store-and-forward switch. */
static double store_forward_s(const struct generic_params *p, double wire_bytes, double bw)
{
  if (!p->store_and_forward)
    return 0;
  double frame = fmin(wire_bytes, p->frame_payload_B + p->frame_header_B);
  return frame / bw;
}

void generic_wire(struct generic_state *s, const struct icsim_wire_query *q, struct icsim_wire_cost *c)
{
  const struct generic_params *p = &s->p;
  if (q->network_hops > 0) {
    if (p->pause_frames && q->id) /* transfer_done ends it (ids only: SMPI's own have no end report) */
      pause_transfer_start(&s->ports, q->src_node, q->dst_node);
    double frames;
    double moved = q->bytes + q->envelope_bytes;
    double wire = generic_wire_bytes(p, moved, &frames);
    s->frames += frames;
    s->wire_bytes += wire;
    /* Headers and padding take link time in proportion: the transfer's bytes flow at
     * link rate x moved/wire. Each switch stage re-serializes one frame (store and forward). */
    c->bandwidth_Bps *= moved / wire;
    icsim_wire_add_phase(c, "frame headers", (wire - moved) / q->route_bandwidth_Bps);
    double sf = q->switch_stages * store_forward_s(p, wire, q->route_bandwidth_Bps);
    c->latency_s += sf;
    icsim_wire_add_phase(c, "store and forward", sf);
  }
  if (p->port_buffer_B > 0 && q->id && q->network_hops > 0) {
    /* The switch's port for dst_node drops what its buffer cannot hold (incast.h): a round trip's
     * worth of the windows is on the wire, the rest queues. */
    double moved = q->bytes + q->envelope_bytes;
    double wire = generic_wire_bytes(p, moved, NULL);
    double window = p->send_window > 0 ? p->send_window * (p->frame_payload_B + p->frame_header_B) : wire;
    double capacity = p->port_buffer_B + 2 * q->route_latency_s * q->route_bandwidth_Bps;
    if (incast_transfer_start(&s->drops, q->id, q->dst_node, fmin(window, wire), capacity)) {
      c->latency_s += p->retransmit_timeout_s;
      icsim_wire_add_phase(c, "retransmission timeout", p->retransmit_timeout_s);
      s->timeouts++;
    }
  }
  if (q->bytes > p->eager_threshold_B) {
    /* RTS out and CTS back over the same route before the payload may start. */
    double ctl_wire = q->network_hops > 0 ? generic_wire_bytes(p, p->control_B, NULL) : p->control_B;
    double one_way = q->route_latency_s + ctl_wire / q->route_bandwidth_Bps +
                     (q->network_hops > 0 ? q->switch_stages * store_forward_s(p, ctl_wire, q->route_bandwidth_Bps) : 0);
    c->latency_s += 2 * one_way + p->send_overhead_s + p->recv_overhead_s;
    icsim_wire_add_phase(c, "RTS-CTS", 2 * one_way + p->send_overhead_s + p->recv_overhead_s);
    s->rendezvous_msgs++;
    s->control_msgs += 2;
    if (p->rendezvous_finish) { /* the FIN leaves after the data, which the latency stands for too */
      c->latency_s += one_way;
      icsim_wire_add_phase_after(c, "FIN", one_way);
      s->control_msgs++;
    }
    icsim_wire_name_flow(c, p->rendezvous_finish ? "RDMA write" : "rendezvous data");
  } else {
    s->eager_msgs++;
    /* Eager push: the sender's NIC sends an eager message at once into buffers the receiving MPI
     * keeps posted; SimGrid starts the transfer only when the receive is posted, so the part of
     * the flight already behind the message by then is not paid again. */
    if (p->eager_push && icsim_eager_push(q, c))
      s->pushed_msgs++;
    icsim_wire_name_flow(c, "eager");
  }
  /* With PAUSE frames the switch's output ports deliver less than their link once several
   * sources feed them (generic_port_capacity): what a transfer takes beyond its time with the
   * ports to itself (its latency, its bytes at its own rate) is the ports' sharing, PAUSE's
   * head-of-line blocking included. */
  if (p->pause_frames && q->id && q->network_hops > 0 && c->bandwidth_Bps > 0)
    icsim_wire_set_alone(c, "port shares (PAUSE)", c->latency_s + (q->bytes + q->envelope_bytes) / c->bandwidth_Bps);
}

/* Inside a node, a message above the shared-memory eager threshold is copied once by the
 * receiver's core (CMA's process_vm_readv): that transfer flows no faster than one core copies
 * (generic/single-copy-bandwidth),
 * however fast the node's memory channels could go. Memory links carry only transfers inside a
 * node (between nodes the adapter's DMA crosses no modelled memory link). */
double generic_flow_limit(const struct generic_state *s, const struct icsim_link *link)
{
  if (s->p.single_copy_bw_Bps <= 0 || (link && link->kind != ICSIM_LINK_MEMORY))
    return -1;
  return s->p.single_copy_bw_Bps;
}

static double generic_flow_limit_cb(void *state, const struct icsim_link *link) { return generic_flow_limit(state, link); }

static int generic_create(void **state, const struct icsim_params *ps, const struct icsim_platform *pf, char *err,
                          size_t errlen)
{
  struct generic_state *s = calloc(1, sizeof *s);
  icsim_params_fill(ps, generic_params_table, sizeof generic_params_table / sizeof generic_params_table[0], &s->p);
  s->clock_Hz = pf->p.clock_Hz;
  s->shm_instructions = pf->p.shm_instructions;
  s->pf = pf;
  s->sockets = pf->p.sockets;
  s->first_adapter_link = icsim_adapter_link(pf, 0);
  if (s->p.pause_frames && s->p.port_buffer_B > 0) {
    const struct icsim_pval *v = icsim_params_find(ps, "generic/switch-port-buffer");
    snprintf(err, errlen,
             "%s: generic/switch-port-buffer models a switch that drops what its ports cannot hold, "
             "generic/pause-frames one that pauses its senders instead and drops nothing: set one of them "
             "(generic/pause-frames=false or generic/switch-port-buffer=0B)",
             v && v->where ? v->where : pf->path);
    free(s);
    return -1;
  }
  if (s->p.port_buffer_B > 0 && incast_ports_init(&s->drops, pf->p.nodes)) {
    snprintf(err, errlen, "generic/switch-port-buffer: out of memory for %d nodes", pf->p.nodes);
    incast_ports_free(&s->drops);
    free(s);
    return -1;
  }
  if (s->p.pause_frames) {
    if (s->first_adapter_link < 0) {
      const struct icsim_pval *v = icsim_params_find(ps, "generic/pause-frames");
      snprintf(err, errlen,
               "%s: generic/pause-frames models the output ports of a switch: it needs network/topology star or "
               "fat-tree2 (this platform's nodes have several links each); remove it or change the topology",
               v && v->where ? v->where : pf->path);
      free(s);
      return -1;
    }
    if (pause_ports_init(&s->ports, pf->p.nodes)) {
      snprintf(err, errlen, "generic/pause-frames: out of memory for %d nodes", pf->p.nodes);
      pause_ports_free(&s->ports);
      free(s);
      return -1;
    }
  }
  *state = s;
  return 0;
}

double generic_port_capacity(struct generic_state *s, const struct icsim_link *link, int up, double nominal)
{
  if (!s->p.pause_frames)
    return -1;
  if (!link)
    return 0; /* shapes the switch's output ports */
  if (up || link->kind != ICSIM_LINK_NETWORK)
    return -1;
  long node = (link - s->pf->links) - s->first_adapter_link;
  if (node < 0 || node >= s->ports.nodes)
    return -1;
  int k = pause_contending_sources(&s->ports, (int)node);
  if (k < 2)
    return -1;
  s->blocked_solves++;
  return nominal * pause_hol_throughput(k);
}

static double generic_channel_capacity(void *state, const struct icsim_link *link, int up, double nominal, int n)
{
  (void)n; /* what matters is who feeds the port, not how many flows */
  return generic_port_capacity(state, link, up, nominal);
}

static void generic_transfer_done(void *state, const struct icsim_transfer *t, double now)
{
  (void)now;
  struct generic_state *s = state;
  if (s->p.pause_frames)
    pause_transfer_end(&s->ports, t->src_host / s->sockets, t->dst_host / s->sockets);
  if (s->p.port_buffer_B > 0)
    incast_transfer_end(&s->drops, t->id);
}

static void generic_destroy(void *state)
{
  struct generic_state *s = state;
  for (int i = 0; i < s->nreg; i++)
    reg_cache_free(&s->reg[i]);
  free(s->reg);
  pause_ports_free(&s->ports);
  incast_ports_free(&s->drops);
  free(s);
}

double generic_register(struct generic_state *s, int rank, const void *buf, size_t len)
{
  const struct generic_params *p = &s->p;
  if ((p->reg_base_s <= 0 && p->reg_page_s <= 0) || rank < 0)
    return 0;
  if (rank >= s->nreg) {
    int n = rank + 1 > 2 * s->nreg ? rank + 1 : 2 * s->nreg;
    s->reg = realloc(s->reg, (size_t)n * sizeof *s->reg);
    for (int i = s->nreg; i < n; i++)
      s->reg[i] = (struct reg_cache){0};
    s->nreg = n;
  }
  double pages = reg_cache_use(&s->reg[rank], p->reg_cache_entries, buf, len, p->reg_page_B);
  if (pages == 0) {
    s->registration_hits++;
    return 0;
  }
  s->registrations++;
  s->registered_pages += pages;
  return p->reg_base_s + pages * p->reg_page_s;
}

void generic_intra_node(struct generic_state *s, const struct icsim_msg *m, double *send_s, double *recv_s)
{
  const struct generic_params *p = &s->p;
  double cell = s->shm_instructions / s->clock_Hz; /* write or read one cell of the ring */
  if (p->shm_copy_bw_Bps <= 0) { /* the platform's plain channel */
    *send_s = *recv_s = cell;
    return;
  }
  if ((double)m->bytes <= p->shm_eager_B) { /* copied in by the sender, out by the receiver */
    *send_s = *recv_s = cell + (double)m->bytes / p->shm_copy_bw_Bps;
    s->shm_eager_msgs++;
  } else { /* RTS and CTS through the ring; the receiver's one copy is the memory transfer */
    *send_s = *recv_s = 2 * cell;
    s->shm_single_copy_msgs++;
  }
}

static void generic_intra_node_cb(void *state, const struct icsim_msg *m, double *send_s, double *recv_s)
{
  generic_intra_node(state, m, send_s, recv_s);
}

static double eager_copy_s(const struct generic_params *p, const struct icsim_msg *m)
{
  if (p->eager_copy_bw_Bps <= 0 || (double)m->bytes > p->eager_threshold_B)
    return 0;
  return (double)m->bytes / p->eager_copy_bw_Bps;
}

/* A rendezvous buffer is registered on its side before the data moves (the sender's at the RTS,
 * the receiver's before the CTS); charged to each side's CPU. */
static double rendezvous_registration(struct generic_state *s, const struct icsim_msg *m, int rank)
{
  if ((double)m->bytes <= s->p.eager_threshold_B || !m->buf)
    return 0;
  return generic_register(s, rank, m->buf, m->bytes);
}

/* A message's CPU time: the per-message overhead, the eager copy, the rendezvous registration (the
 * last two named on the timeline, --trace). */
static double message_cpu(struct generic_state *s, const struct icsim_msg *m, double overhead, int rank)
{
  double copy = eager_copy_s(&s->p, m), reg = rendezvous_registration(s, m, rank);
  icsim_cpu_part("eager copy", copy);
  icsim_cpu_part("registration", reg);
  return overhead + copy + reg;
}

static double generic_send_cpu(void *state, const struct icsim_msg *m)
{
  struct generic_state *s = state;
  return message_cpu(s, m, s->p.send_overhead_s, m->src_rank);
}

static double generic_recv_cpu(void *state, const struct icsim_msg *m)
{
  struct generic_state *s = state;
  return message_cpu(s, m, s->p.recv_overhead_s, m->dst_rank);
}

static void generic_wire_cb(void *state, const struct icsim_wire_query *q, struct icsim_wire_cost *c)
{
  generic_wire(state, q, c);
}

static double generic_eager_limit(void *state) { return ((struct generic_state *)state)->p.eager_threshold_B; }

static size_t generic_counters(void *state, struct icsim_counter *out, size_t max)
{
  struct generic_state *s = state;
  struct icsim_counter c[] = {{"eager_messages", "transfers", s->eager_msgs},
                              {"rendezvous_messages", "transfers", s->rendezvous_msgs},
                              {"control_messages", "messages", s->control_msgs},
                              {"frames", "frames", s->frames},
                              {"wire_bytes", "bytes", s->wire_bytes},
                              {"pushed_before_receive", "transfers", s->pushed_msgs},
                              {"registrations", "registrations", s->registrations},
                              {"registered_pages", "pages", s->registered_pages},
                              {"registration_cache_hits", "uses", s->registration_hits},
                              {"shm_eager_messages", "messages", s->shm_eager_msgs},
                              {"shm_single_copy_messages", "messages", s->shm_single_copy_msgs},
                              {"hol_blocked_port_solves", "solver evaluations", s->blocked_solves},
                              {"retransmission_timeouts", "transfers", s->timeouts}};
  return icsim_counters_out(out, max, c, sizeof c / sizeof c[0]);
}

/* With generic/switch-port-buffer 0 the switch never drops (incast.c is not consulted), so the
 * window it would lose and the timeout it would wait are unused. */
static const struct icsim_param_rule generic_params_rules[] = {
    {"generic/send-window", 0, "generic/switch-port-buffer=0B"},
    {"generic/retransmit-timeout", 0, "generic/switch-port-buffer=0B"},
};

const struct icsim_stack_ops generic_stack = {
    .name = "generic",
    .summary = "parametric stack: per-message overheads, eager/rendezvous with RTS/CTS, framed links",
    .params = generic_params_table,
    .nparams = sizeof generic_params_table / sizeof generic_params_table[0],
    .rules = generic_params_rules,
    .nrules = sizeof generic_params_rules / sizeof generic_params_rules[0],
    .role = ICSIM_ROLE_NETWORK,
    .wire_mode = ICSIM_WIRE_FACTORS,
    .create = generic_create,
    .destroy = generic_destroy,
    .send_cpu = generic_send_cpu,
    .recv_cpu = generic_recv_cpu,
    .intra_node_cpu = generic_intra_node_cb,
    .channel_capacity = generic_channel_capacity,
    .transfer_done = generic_transfer_done,
    .channel_flow_limit = generic_flow_limit_cb,
    .wire = generic_wire_cb,
    .eager_limit_bytes = generic_eager_limit,
    .counters = generic_counters,
    .check = NULL,
};

ICSIM_REGISTER_STACK(generic_stack)
