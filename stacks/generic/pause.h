/* A store-and-forward Ethernet switch whose ports pause their senders (IEEE 802.3x PAUSE)
 * instead of dropping frames, and what head-of-line blocking leaves of its output ports.
 *
 * With PAUSE nothing is lost, but a paused adapter stops everything it sends: the frame at the
 * head of its transmit queue waits for its busy output, and the frames behind it, bound for idle
 * outputs, wait with it. The switch then behaves as one with FIFO input queues, whose saturation
 * throughput under uniform traffic Karol, Hluchyj and Morgan derived (IEEE Trans. Commun. 35(12),
 * 1987, Table I): 0.75 of an output for 2 inputs, 0.6184 for 8, 0.5858 for many.
 *
 * Applied per output port (a node's link from its switch): the k sources currently sending to it
 * that also send elsewhere at the same time (a source sending to this output only is never blocked
 * behind another output) bring its capacity down to sat(k) of the link. One source, or sources
 * that each send to one node (a permutation step, a gather), keep the whole link. */
#ifndef ICSIM_GENERIC_PAUSE_H
#define ICSIM_GENERIC_PAUSE_H

/* Active transfers between nodes, by peer: one list per node. */
struct peer_list {
  int n, cap;
  int *peer, *count;
};

struct pause_ports {
  int nodes;
  struct peer_list *out, *in; /* per node: destinations it sends to, sources sending to it */
};

/* Saturation throughput of an N x N switch with FIFO input queues (Karol et al. 1987, Table I
 * for 1 to 8 inputs; beyond 8, 0.5858 + 0.0326 x 8 / K, which meets the table at 8 and its limit
 * 2 - sqrt(2) as K grows). */
double pause_hol_throughput(int k);

int pause_ports_init(struct pause_ports *pp, int nodes);
void pause_ports_free(struct pause_ports *pp);
/* A transfer from node SRC to node DST starts / ends. */
void pause_transfer_start(struct pause_ports *pp, int src, int dst);
void pause_transfer_end(struct pause_ports *pp, int src, int dst);
/* Sources sending to DST now that also send to another node. */
int pause_contending_sources(const struct pause_ports *pp, int dst);

#endif
