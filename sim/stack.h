/* The stack contract: what every interconnect stack model gives icsim.
 *
 * A stack is pure C behind one struct of function pointers. sim/ calls it at three places:
 *   - host side, in the rank's own MPI calls: CPU time the software stack spends per send and
 *     per receive (charged as real CPU occupation, so a busy CPU delays the next operation);
 *   - wire side, once per transfer start inside SimGrid: the latency and bandwidth that the
 *     controller, protocol and handshakes make of the platform's route;
 *   - bookkeeping: counters for `--stats`, checked invariants at the end.
 * A stack registers itself with ICSIM_REGISTER_STACK; sim/ never names a stack. */
#ifndef ICSIM_STACK_H
#define ICSIM_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "params.h"

struct icsim_platform;
struct icsim_link;

/* What an MPI operation is, for stacks that carry them differently (RapidIO moves one-sided
 * operations as NREAD/NWRITE IO transactions, two-sided ones as messages). */
enum icsim_msg_kind { ICSIM_MSG_P2P = 0, ICSIM_MSG_PUT, ICSIM_MSG_GET };

/* One MPI point-to-point message, as the MPI layer sees it in the calling rank. */
struct icsim_msg {
  enum icsim_msg_kind kind;
  int src_rank, dst_rank;
  int src_node, dst_node;     /* node index in the platform */
  int src_socket, dst_socket; /* socket within the node */
  size_t bytes;               /* payload */
  const void *buf;            /* the user buffer as passed (alignment decides copy paths) */
  int tag;
};

/* One transfer as SimGrid is about to start it. */
struct icsim_wire_query {
  double now_s;          /* simulated time at which the transfer starts */
  enum icsim_msg_kind kind;
  double bytes;          /* payload bytes of the MPI message */
  double envelope_bytes; /* MPI envelope SMPI sends with it; moves at bandwidth_Bps too */
  int src_node, dst_node;
  int src_socket, dst_socket;
  double route_latency_s;    /* sum of link latencies on the route (switches included) */
  double route_bandwidth_Bps;/* bottleneck bandwidth of the route */
  int network_hops;          /* network links crossed (0 inside a node) */
  int switch_stages;         /* switches crossed */
};

/* What the stack makes of it. Both start as the route's own figures. */
struct icsim_wire_cost {
  double latency_s;     /* time before the first byte flows (handshakes included) */
  double bandwidth_Bps; /* rate at which payload + envelope flow once started */
};

/* Named counters a stack reports; the JSON writer prints them under the stack's name. */
struct icsim_counter {
  const char *name;
  const char *unit; /* "messages", "bytes", "s", ... */
  double value;
};

struct icsim_stack_ops {
  const char *name;    /* also the YAML section holding its parameters */
  const char *summary; /* one line for `icsim describe` */
  const struct icsim_param_desc *params;
  size_t nparams;
  /* A composing stack (numa) wraps the network stack's costs instead of replacing them. */
  bool composes;

  /* Build the model from resolved parameters. Returns 0, or -1 with a message in ERR. */
  int (*create)(void **state, const struct icsim_params *ps, const struct icsim_platform *pf, char *err,
                size_t errlen);
  void (*destroy)(void *state);

  /* CPU seconds the sending rank spends handing M to the stack (may be 0). */
  double (*send_cpu)(void *state, const struct icsim_msg *m);
  /* CPU seconds the receiving rank spends taking M out of the stack. */
  double (*recv_cpu)(void *state, const struct icsim_msg *m);
  /* Latency and bandwidth of one transfer; C holds the previous layer's figures on entry. */
  void (*wire)(void *state, const struct icsim_wire_query *q, struct icsim_wire_cost *c);

  /* Messages up to this many bytes leave without waiting for the receiver (eager); larger
   * ones hold the sender until the receive is matched (rendezvous). NULL: never rendezvous. */
  double (*eager_limit_bytes)(void *state);

  /* Aggregate rate (B/s) that channel LINK delivers when N transfers share it; NOMINAL is the
   * link's bandwidth. NULL, or a negative answer: SimGrid's fair sharing of NOMINAL. Called by
   * SimGrid's solver (keep it cheap); lets a stack make sharing non-linear (memory controllers,
   * QPI, a shared NIC). */
  double (*channel_capacity)(void *state, const struct icsim_link *link, double nominal, int n);
  /* Fastest rate one transfer can reach on LINK (e.g. a copy that stays in the cache), when it
   * exceeds the link's nominal bandwidth; <= 0 otherwise. SimGrid bounds each transfer by the
   * link bandwidth, so the adapter raises it to this peak; channel_capacity still gets the
   * platform's nominal value. May be NULL. */
  double (*channel_peak)(void *state, const struct icsim_link *link);

  /* Fill up to MAX counters, return how many. May be NULL. */
  size_t (*counters)(void *state, struct icsim_counter *out, size_t max);
  /* End-of-run invariant check: 0 if fine, else -1 with the broken invariant in ERR. May be NULL. */
  int (*check)(void *state, char *err, size_t errlen);
};

/* Registry, filled by constructors in each stack's object file. */
void icsim_stack_register(const struct icsim_stack_ops *ops);
const struct icsim_stack_ops *icsim_stack_find(const char *name);
size_t icsim_stack_count(void);
const struct icsim_stack_ops *icsim_stack_at(size_t i);

#define ICSIM_REGISTER_STACK(ops)                                                   \
  __attribute__((constructor)) static void icsim_register_##ops(void) { icsim_stack_register(&(ops)); }

#endif
