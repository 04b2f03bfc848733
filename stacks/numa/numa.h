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
 * With numa/cache-recency the working set n 2m is instead the stack distance at which the copy's
 * buffers come back, from the buffers the node's transfers touched (cache_lru.h): a copy of one
 * buffer again and again stays resident however many copies are in flight; an exchange sweeping
 * more buffers than the cache holds finds little, though its copies in flight would fit.
 * per-copy rate 1 / (h / r_c + (1 - h) 2n / bus(n)),   r_c = copy rate within the cache
 * A copy between the sockets reads on one controller and writes on the other: it counts as
 * half a copy on each, and gets no cache share (the reading core sees the other socket's
 * cache at link latency, no faster than its memory).
 *
 * Inter-socket link (QPI), n streams in one direction. A lone stream runs at the core's own
 * rate: the hardware prefetchers keep enough lines in flight to hide the remote latency.
 * Once streams interleave, the prefetchers lose them and each stream is bound by its own
 * outstanding misses over the loaded remote latency, r_i (numa/qpi-stream-bandwidth); the
 * link's aggregate then grows with the streams until it meets the link bandwidth C:
 *       C(1) = C,   C(n >= 2) = ((n r_i)^-q + C^-q)^(-1/q)      q: numa/qpi-sharpness
 * Network adapter (the node's net:* link), n connections in one direction. One connection does
 * not quite fill the link (a TCP stream's ACK clocking and window, a single queue pair's
 * pipeline); several connections together do:
 *       C(n) = min(n r_a, C)      r_a: numa/adapter-stream-bandwidth, C: the link
 * so cf sharers see a slowdown of cf r_a / C, just under cf.
 *
 * Who copies (numa/core-copies). A message inside a node is moved by a core: MVAPICH2 2.2 and Open
 * MPI's vader read a message above their shared-memory eager limit with one process_vm_readv (CMA)
 * made by the receiver, which is the transfer over the memory links. A core makes its copies one
 * after another, so a channel carrying n transfers whose copies are made by k distinct cores runs k
 * copies at once, not n: the memory controller above and the socket link see k copies (k streams),
 * the cache share counts k working sets, and the n transfers share what the k copies deliver.
 * One receiver with 64 messages in flight (osu_bw's window) gets one core's copy rate, not 64. */
#ifndef ICSIM_NUMA_H
#define ICSIM_NUMA_H

#include "stack.h"

struct numa_params {
  double stream_bw_Bps; /* one core copying through the memory controller (bytes copied/s) */
  double sharpness;     /* p: how sharply the controller saturates */
  double cache_B;       /* last-level cache per socket */
  double cache_bw_Bps;  /* one core copying within the cache */
  double qpi_stream_Bps;/* one of several interleaved streams across the socket link; 0: fair sharing */
  double qpi_sharpness; /* how sharply the socket link saturates (smooth-minimum exponent) */
  double adapter_stream_Bps; /* link rate one connection through the network adapter reaches; 0: the link's */
  bool core_copies;     /* a transfer inside a node is one core's copy; a core copies one at a time */
  bool cache_recency;   /* the buffers the transfers touched decide a copy's cache share (cache_lru.h) */
};

/* How many copies a channel carried by N transfers really runs at once when each core makes its
 * copies one after another (numa/core-copies): CORES distinct cores copy the COUNTED transfers the
 * stack knows of; the rest (transfers it was not told of: SMPI's own) count one copy each.
 * Between 1 and N. */
double numa_copies_at_once(int n, int cores, int counted);

/* Aggregate copy rate of N copies of M bytes each through a controller of bus capacity B.
 * N may be fractional: a copy between sockets is half a copy on each controller. */
double numa_memory_capacity(const struct numa_params *p, double B, double n, double m);

/* Share of a copy's bytes the last-level cache serves when the bytes swept between two uses of them
 * (the working set) are WS: 1 while WS fits the cache C, then (C / WS)^3 (an LRU would keep none of
 * a cyclic sweep beyond C; a real cache, set-associative with pseudo-LRU replacement and physically
 * indexed, thins out gradually: the cube is the assumed shape, as above). */
double numa_cache_share(const struct numa_params *p, double ws);

/* The same with the share H of each copy's bytes served from the cache given (numa/cache-recency:
 * from the buffers the program touched, cache_lru.h): H at the cache rate, 1 - H from memory. */
double numa_memory_capacity_resident(const struct numa_params *p, double B, double n, double h);

/* Aggregate rate of N streams in one direction of a socket link of nominal bandwidth C;
 * negative when the link shares fairly (no interleaving penalty configured). */
double numa_socket_link_capacity(const struct numa_params *p, double C, int n);

/* Aggregate link rate of N connections through a network adapter of link bandwidth C; negative
 * when one connection fills the link (plain fair sharing). */
double numa_adapter_capacity(const struct numa_params *p, double C, int n);

extern const struct icsim_stack_ops numa_stack;

#endif
