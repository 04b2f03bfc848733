/* Generic parametric stack: the reference systems of the papers (Gigabit Ethernet with SCore
 * PMX, InfiniBand QDR with MVAPICH) described by a handful of physical parameters.
 *
 * Model (LogGP-like, with a real protocol switch):
 *   send CPU  = send-overhead (+ payload / eager-copy-bandwidth for eager messages)
 *   recv CPU  = recv-overhead (+ payload / eager-copy-bandwidth for eager messages)
 *   wire      = route latency (+ one frame re-serialized per switch stage when switches store
 *               and forward); payload at link rate x payload/(payload + headers and padding)
 *   rendezvous (payload > eager-threshold): the sender waits for the receiver, and the data
 *               starts only after an RTS/CTS round trip of control frames over the same route,
 *               each paying the control-frame serialization and both sides' overheads.
 * Omitted: NIC queueing, interrupt coalescing, flow control credits, packet loss. */
#ifndef ICSIM_GENERIC_H
#define ICSIM_GENERIC_H

#include <stddef.h>

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
};

struct generic_state {
  struct generic_params p;
  double eager_msgs, rendezvous_msgs, control_msgs, frames, wire_bytes;
};

/* Pure helpers, exported for the unit tests. */
double generic_wire_bytes(const struct generic_params *p, double payload, double *frames);
void generic_wire(struct generic_state *s, const struct icsim_wire_query *q, struct icsim_wire_cost *c);

extern const struct icsim_stack_ops generic_stack;

#endif
