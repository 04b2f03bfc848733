/* numa: contention inside a node, composed over any network stack.
 *
 * Follows E.N. Peryshkova, M.G. Kurnosov, "Modeling network contention effects on process
 * allocation in computer systems" (TSU J. Control and Computer Science no. 47). The channels are
 * the platform's links: each socket's memory controller (mem:*), the inter-socket link (qpi:*),
 * the node's network link (net:*). This stack gives them their sharing behaviour through the
 * contract's channel_capacity hook (SimGrid's non-linear sharing):
 *
 * Memory controller, n copies at once, each of m bytes (working set 2m: source and destination).
 * A copy at rate s puts 2s on the memory bus (read + write). The controller's delivered bus rate
 * is a smooth minimum of the demand and its capacity B (nodes/memory-bandwidth):
 *       bus(n) = ((2 n s)^-p + B^-p)^(-1/p)
 * p is how sharply the controller saturates: low for an integrated controller with several
 * channels that degrades gradually (NUMA Xeon), high for a front-side bus (SMP Xeon).
 * Share of a copy served from the last-level cache of C bytes (LRU thrashes quickly once the n
 * working sets no longer fit; the cube is the assumed shape):
 *       h = 1 if n 2m <= C, else (C / (n 2m))^3
 * per-copy rate 1 / (h / r_c + (1 - h) 2n / bus(n)),   r_c = copy rate within the cache
 * Not modelled yet: QPI/FSB and NIC sharing beyond SimGrid's fair sharing. */
#ifndef ICSIM_NUMA_H
#define ICSIM_NUMA_H

#include "stack.h"

struct numa_params {
  double stream_bw_Bps; /* one core copying through the memory controller (bytes copied/s) */
  double sharpness;     /* p: how sharply the controller saturates */
  double cache_B;       /* last-level cache per socket */
  double cache_bw_Bps;  /* one core copying within the cache */
};

/* Aggregate copy rate of N copies of M bytes each through a controller of bus capacity B. */
double numa_memory_capacity(const struct numa_params *p, double B, int n, double m);

extern const struct icsim_stack_ops numa_stack;

#endif
