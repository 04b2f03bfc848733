/* A switch output port with a finite buffer that drops what overflows it (no 802.3x PAUSE), and
 * the sender's recovery: the converging senders of an incast.
 *
 * Each transfer through the switch keeps at most one window of frames in flight (SCore
 * PM/Ethernet's maxnsend, a TCP window): min(window, its own bytes). The frames in flight towards
 * one receiver are either on the wire (at most a round trip's worth at the port's rate, the
 * bandwidth-delay product) or queued in the switch's buffer for that receiver's port. When a
 * transfer starts while other transfers already feed the same port and the windows of all of them
 * exceed buffer + bandwidth-delay product, the port's queue overflows and the newcomer's frames are
 * the ones dropped (tail drop: the last to arrive finds the queue full). Its sender hears of the
 * loss only when its retransmission timer fires, so the transfer starts over one retransmission
 * timeout later; the transfers that fitted go on at the port's rate meanwhile. A transfer alone on
 * a port never overflows it: in and out run at the same link rate.
 *
 * Flow level: the data of the dropped window is sent once, after the timeout (go-back-N resends
 * the whole window); repeated losses of the same transfer while others still crowd the port are
 * not counted (one timeout per overflowing transfer). */
#ifndef ICSIM_GENERIC_INCAST_H
#define ICSIM_GENERIC_INCAST_H

#include <stdint.h>

struct incast_flow {
  uint64_t id;
  int dst;
  double inflight_B; /* its window in flight towards dst */
};

struct incast_ports {
  int nodes;
  double *inflight_B; /* per receiving node: the windows of the transfers feeding its port */
  int *feeding;       /* per receiving node: how many transfers feed it */
  struct incast_flow *flow;
  int n, cap;
};

int incast_ports_init(struct incast_ports *ip, int nodes);
void incast_ports_free(struct incast_ports *ip);
/* Transfer ID starts towards node DST with INFLIGHT_B bytes in flight; the port holds CAPACITY_B
 * (buffer + bandwidth-delay product). Returns 1 when it overflows the port (its window is
 * dropped), 0 when it fits or feeds the port alone. It counts as feeding the port either way (its
 * retransmission comes back to the same port). */
int incast_transfer_start(struct incast_ports *ip, uint64_t id, int dst, double inflight_B, double capacity_B);
/* Transfer ID is done (unknown ids are ignored). */
void incast_transfer_end(struct incast_ports *ip, uint64_t id);

#endif
