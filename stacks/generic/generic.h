/* Generic parametric stack: the reference systems of the papers (Gigabit Ethernet with SCore
 * PMX, InfiniBand QDR with MVAPICH) described by a handful of physical parameters.
 *
 * Model (LogGP-like, with a real protocol switch):
 *   send CPU  = send-overhead (+ payload / eager-copy-bandwidth for eager messages)
 *   recv CPU  = recv-overhead (+ payload / eager-copy-bandwidth for eager messages)
 *   wire      = route latency (+ one frame re-serialized per switch stage when switches store
 *               and forward); payload at link rate x payload/(payload + headers and padding)
 *   eager push: an eager message leaves when it is sent, whether or not the receive is posted;
 *               SimGrid starts it only at the receive, so the flight already behind it by then
 *               (now - announced) comes off its latency.
 *   rendezvous (payload > eager-threshold): the sender waits for the receiver, and the data
 *               starts only after an RTS/CTS round trip of control frames over the same route,
 *               each paying the control-frame serialization and both sides' overheads; with
 *               rendezvous-finish (RDMA write rendezvous, MVAPICH2's RPUT) a FIN control message
 *               follows the data and the receive completes when it lands.
 *   registration (RDMA MPIs): a rendezvous buffer is registered with the adapter on first use
 *               on each side (registration-base + pages x registration-per-page), then found in
 *               the rank's registration cache (registration.h) until evicted.
 *   inside a node (the MPI's shared-memory channel): a message up to shm-eager-threshold is
 *               copied twice through a shared ring (sender in, receiver out, at
 *               shm-copy-bandwidth), a larger one pays an RTS/CTS through the ring and is copied
 *               once by the receiver (CMA: that copy is the transfer over the memory links).
 *   pause frames (Ethernet switch with 802.3x flow control, pause.h): nothing is lost, but a paused
 *               adapter stops all it sends, so an output port fed by k sources that each also send
 *               elsewhere delivers Karol et al.'s saturation throughput sat(k) of its link.
 *   drops at a switch port (no PAUSE, incast.h): a transfer that starts while the windows already
 *               feeding its receiver's port fill the port's buffer (+ a round trip's worth on the
 *               wire) loses its window and starts over one retransmission timeout later.
 * Omitted: NIC queueing, interrupt coalescing, flow control credits, losses other than a port's
 * buffer overflowing. */
#ifndef ICSIM_GENERIC_H
#define ICSIM_GENERIC_H

#include <stddef.h>

#include "incast.h"
#include "pause.h"
#include "stack.h"

struct generic_params {
  double send_overhead_s;
  double recv_overhead_s;
  double eager_copy_bw_Bps; /* 0 = no copy */
  double eager_threshold_B;
  double frame_payload_B;
  double frame_header_B;
  double min_frame_B;
  double control_B;
  bool store_and_forward; /* switches receive a whole frame before sending it on */
  bool eager_push;         /* eager data leaves at the send, not at the receive */
  bool rendezvous_finish;  /* a FIN follows the rendezvous data (RDMA write) */
  double reg_base_s, reg_page_s, reg_page_B;
  int reg_cache_entries;   /* 0 = no cache: every rendezvous registers */
  double shm_eager_B, shm_copy_bw_Bps; /* 0 bandwidth = the platform's default channel */
  double single_copy_bw_Bps;           /* one core's copy rate bounding a CMA transfer; 0 = none */
  bool pause_frames;       /* switch ports pause their senders (802.3x): head-of-line blocking */
  double port_buffer_B;    /* a switch output port's buffer; 0 = the switch never drops */
  int send_window;         /* frames a transfer keeps in flight; 0 = all of it */
  double retransmit_timeout_s; /* a dropped window is sent again after this */
};

struct reg_cache;

struct generic_state {
  struct generic_params p;
  double clock_Hz, shm_instructions; /* the nodes', for the shared-memory ring's cells */
  struct reg_cache *reg;             /* one per rank, grown on demand */
  int nreg;
  double eager_msgs, rendezvous_msgs, control_msgs, frames, wire_bytes;
  double pushed_msgs; /* eager transfers whose receive was posted after they were sent */
  double registrations, registered_pages, registration_hits, shm_eager_msgs, shm_single_copy_msgs;
  const struct icsim_platform *pf;
  int sockets, first_adapter_link; /* star / fat tree: links[first + node] joins node to its switch */
  struct pause_ports ports;        /* who sends to whom now (pause-frames only) */
  double blocked_solves;           /* solver evaluations of an output port that HOL blocking slowed */
  struct incast_ports drops;       /* windows feeding each port (port-buffer only) */
  double timeouts;                 /* transfers that overflowed a port and waited a retransmission timeout */
};

/* CPU seconds rank RANK spends registering BUF..BUF+LEN for a rendezvous (0 on a cache hit). */
double generic_register(struct generic_state *s, int rank, const void *buf, size_t len);
/* The shared-memory channel's CPU on each side for a message inside a node. */
void generic_intra_node(struct generic_state *s, const struct icsim_msg *m, double *send_s, double *recv_s);
/* Fastest rate of one transfer on LINK (a memory link: one core's copy), <= 0 none; LINK NULL:
 * whether any link is limited. */
double generic_flow_limit(const struct generic_state *s, const struct icsim_link *link);

/* Capacity of LINK (direction UP) for SimGrid's solver: a switch's output port slowed by
 * head-of-line blocking; negative when plain sharing applies. */
double generic_port_capacity(struct generic_state *s, const struct icsim_link *link, int up, double nominal);

/* Pure helpers, exported for the unit tests. */
double generic_wire_bytes(const struct generic_params *p, double payload, double *frames);
void generic_wire(struct generic_state *s, const struct icsim_wire_query *q, struct icsim_wire_cost *c);

extern const struct icsim_stack_ops generic_stack;

#endif
