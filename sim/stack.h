/* The stack contract (v2): what every layer of a simulated machine gives icsim.
 *
 * A platform lists its layers in order, from the program down to the hardware (a call layer, the
 * network layer, node layers: see icsim_layer_role). Each layer is pure C behind one struct of
 * function pointers and says what it is (its role) and what it does to transfers (its wire mode).
 * sim/ calls it at these places:
 *   - host side, in the rank's own MPI calls: CPU time per MPI call (call_cpu), per message
 *     sent and received between nodes (send_cpu / recv_cpu), and per message between two ranks
 *     of one node (intra_node_cpu: the MPI's shared-memory channel). Charged as real CPU
 *     occupation of the rank, so a busy CPU delays its next operation;
 *   - wire side, once per transfer start inside SimGrid (wire), and once when SimGrid reports
 *     the transfer complete (transfer_done); the MPI-side message and the wire-side transfer
 *     are joined by one transfer id;
 *   - sharing: how a link serves several flows (channel_capacity, channel_peak);
 *   - bookkeeping: counters for `--stats`, invariants checked at the end;
 *   - outside a run: the launch of a program built for the layer (launch), and `icsim place
 *     --pattern-file`'s candidate mappings of a pattern the layer recorded (place_pattern).
 * A stack registers itself with ICSIM_REGISTER_STACK; sim/ never names a stack. */
#ifndef ICSIM_STACK_H
#define ICSIM_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "params.h"

struct icsim_platform;
struct icsim_link;

/* What a layer is. A platform has exactly one network layer; call layers sit above it (they
 * see every MPI call: an ABI adaptor), node layers below it (they see every transfer and shape
 * the node's channels: memory controllers, socket links, the shared adapter). */
enum icsim_layer_role { ICSIM_ROLE_CALLS, ICSIM_ROLE_NETWORK, ICSIM_ROLE_NODE };

/* What a layer does to a transfer on the wire, so that sim/ can refuse layers that cannot hold
 * together (a layer that reshapes SimGrid's sharing is meaningless over one whose transfers
 * SimGrid only replays). */
enum icsim_wire_mode {
  ICSIM_WIRE_NONE,     /* leaves transfers alone */
  ICSIM_WIRE_FACTORS,  /* rescales each transfer's latency and bandwidth; SimGrid shares links */
  ICSIM_WIRE_SCHEDULE, /* computes each transfer's whole timing itself, contention included;
                        * SimGrid replays it as latency and does not share it again */
  ICSIM_WIRE_SHARING,  /* decides how links serve several flows (non-linear sharing) */
};

/* What an MPI operation is, for stacks that carry them differently (RapidIO moves one-sided
 * operations as NREAD/NWRITE IO transactions, two-sided ones as messages). */
enum icsim_msg_kind { ICSIM_MSG_P2P = 0, ICSIM_MSG_PUT, ICSIM_MSG_GET };

/* One MPI message, as the MPI layer sees it in the calling rank. */
struct icsim_msg {
  enum icsim_msg_kind kind;
  int src_rank, dst_rank;     /* world ranks; for a get, src is the target that holds the data */
  int src_node, dst_node;     /* node index in the platform */
  int src_socket, dst_socket; /* socket within the node */
  size_t bytes;               /* payload */
  const void *buf;            /* the user buffer as passed (alignment decides copy paths) */
  int tag;
  const void *recv_buf;       /* wire side: the buffer of the posted receive the message lands in,
                               * in the receiver's address space (NULL: not known, e.g. one-sided) */
};

/* One transfer, from the MPI layer's announcement to SimGrid's completion: ID joins the two. */
struct icsim_transfer {
  uint64_t id;
  struct icsim_msg msg;
  int src_host, dst_host; /* SimGrid hosts (sockets) the data leaves and reaches */
  double announced_s, started_s;
  double phases_s; /* what the stacks' phases of it add up to (icsim_wire_cost) */
  double alone_s;  /* how long it would take with its route to itself (icsim_wire_set_alone), 0: not told */
};

/* One transfer as SimGrid is about to start it. */
struct icsim_wire_query {
  uint64_t id;           /* the transfer's id; 0 when no MPI message announced it (SMPI's own
                          * synchronisation, counted in --stats) */
  const struct icsim_msg *msg; /* the MPI side of it, NULL when id is 0 */
  double now_s;          /* simulated time at which the transfer starts */
  double announced_s;    /* when the MPI layer handed the message over (now_s when nobody did):
                          * SimGrid starts an eager transfer only once the receive is posted;
                          * a stack whose adapter pushes eager data at once uses the difference */
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
/* A phase of a transfer as a stack prices it, in the paper's names ("RTS-CTS", "control level"):
 * for the timeline (--trace) and the run's breakdown (--breakdown, --stats "wire_phases"). */
#define ICSIM_WIRE_MAX_PHASES 8
struct icsim_wire_phase {
  const char *name; /* a string that lives as long as the run (a literal) */
  double s;
  const char *layer; /* filled by the core: the layer that added it */
  int after;         /* it comes after the bytes have flowed (a FIN) */
};

struct icsim_wire_cost {
  double latency_s;     /* time before the first byte flows (handshakes included) */
  double bandwidth_Bps; /* rate at which payload + envelope flow once started */
  /* Optional: the phases the stack put into this transfer's time, in the order they happen
   * (icsim_wire_add_phase). The rest of the transfer's simulated duration, whatever it is
   * (the route's latency, the bytes flowing at the rate SimGrid shares out), is its "flow". */
  int nphases;
  struct icsim_wire_phase phase[ICSIM_WIRE_MAX_PHASES];
  /* Optional: what the flow is, in the paper's terms ("eager", "ring push"); NULL: "flow". A name
   * only, for the timeline: it prices nothing. */
  const char *flow_name;
  const char *flow_layer; /* filled by the core: the layer that named it */
  /* Optional, for a layer whose mechanism is how a route's links are shared (icsim_wire_set_alone):
   * how long the transfer would take if no other transfer shared its route, and the name of the
   * phase that the rest of it, known only at its end, is made of ("channel shares"). */
  double alone_s;
  const char *alone_name;
  int alone_layer; /* filled by the core: the index of the layer that told it */
};
/* Add phase NAME of S seconds to C (ignored past ICSIM_WIRE_MAX_PHASES or when S <= 0); _after:
 * one that follows the bytes' flow. */
void icsim_wire_add_phase(struct icsim_wire_cost *c, const char *name, double s);
void icsim_wire_add_phase_after(struct icsim_wire_cost *c, const char *name, double s);
/* Name C's flow (see flow_name). */
void icsim_wire_name_flow(struct icsim_wire_cost *c, const char *name);
/* The transfer would take ALONE_S seconds with its route to itself (C's latency and bandwidth as
 * they stand, and the rate the layer's channels give one transfer): whatever its flow takes beyond
 * that is phase NAME, added at its end (--trace, --breakdown). A later layer's word replaces an
 * earlier one's. */
void icsim_wire_set_alone(struct icsim_wire_cost *c, const char *name, double alone_s);

/* Optional, inside a host-side hook (call_cpu, send_cpu, recv_cpu): a part of the CPU time the hook
 * is returning, in the paper's terms ("registration", "queue system", "driver"), drawn on the
 * timeline inside the layer's charge (--trace). It prices nothing: the hook's answer is the cost;
 * parts beyond it are cut to fit, at most ICSIM_CPU_MAX_PARTS per charge. */
#define ICSIM_CPU_MAX_PARTS 8
void icsim_cpu_part(const char *name, double s);

/* Named counters a stack reports; the JSON writer prints them under the stack's name. */
struct icsim_counter {
  const char *name;
  const char *unit; /* "messages", "bytes", "s", ... */
  double value;
};

/* What a layer adds to the launch of a program (`icsim run`), decided before anything runs. */
#define ICSIM_LAUNCH_MAX_ENV 8
struct icsim_launch {
  const char *libdir; /* in: icsim's library folder (build/lib) */
  int nranks;         /* in: -n */
  int add_layer;      /* out: 1 puts this layer on top of the platform's layers (unless they list it) */
  char *env[ICSIM_LAUNCH_MAX_ENV]; /* out: "NAME=VALUE" for smpirun's environment (malloc'ed) */
  char *preload;      /* out: a library smpirun's process preloads (malloc'ed) */
  char *note;         /* out: what `--dry-run` says of it, lines starting "# " (malloc'ed) */
};
/* Add "NAME=VALUE" (printf-style) to L's environment. Returns 0, or -1 when it is full. */
int icsim_launch_env(struct icsim_launch *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Free what the hook put in L. */
void icsim_launch_clear(struct icsim_launch *l);

/* What `icsim place --pattern-file` asks of a layer that places recorded patterns: rank -> node
 * mappings of a communication pattern the layer recorded in a run, proposed and costed by the
 * layer's own model. sim/ then times each by replaying the pattern on the platform (workload
 * pattern_replay, `icsim run --place` with the mapping), prints them ranked by simulated time
 * (ties: the layer's merit, then its order) and may have the layer write the best as a
 * configuration file for `icsim run --place`. */
#define ICSIM_PLACE_MAX_CANDIDATES 8
struct icsim_place_candidate {
  char name[32];    /* label in the ranking ("packed") */
  int *node_of;     /* [nranks]: node of each rank (malloc'ed) */
  int merit;        /* the layer's own order of the candidates, lower first; equal when it cannot tell */
  char costs[128];  /* its cost columns, printed right after the simulated time */
  char summary[64]; /* its cost in a few words, for the written file's comment */
};
struct icsim_place_plan {
  /* in */
  const struct icsim_platform *pf;
  const char *platform;     /* the platform file as given on the command line */
  const char *pattern_file; /* as given on the command line */
  int nranks;               /* -n */
  unsigned seed;            /* --seed: for a layer whose search is randomised */
  /* out */
  char *legend;          /* "# " lines printed above the ranking: what is ranked, what the costs mean (malloc'ed) */
  char *cost_heads;      /* heads of the cost columns, aligned with the candidates' costs (malloc'ed) */
  const char *node_word; /* what the layer calls a node, plural ("modules"), for the node-list column */
  int n;                 /* candidates proposed */
  struct icsim_place_candidate cand[ICSIM_PLACE_MAX_CANDIDATES];
  /* Write candidate BEST as a configuration file at PATH (whole or not at all), COMMENT saying
   * where it comes from. Returns 0, or -1 with ERR. */
  int (*write_best)(const struct icsim_place_plan *pl, int best, const char *path, const char *comment, char *err,
                    size_t errlen);
};
/* Free what the hook put in PL (its inputs stay). */
void icsim_place_plan_clear(struct icsim_place_plan *pl);

struct icsim_stack_ops {
  const char *name;    /* also the YAML section holding its parameters */
  const char *summary; /* one line for `icsim describe` */
  const struct icsim_param_desc *params;
  size_t nparams;
  /* Range rules of its keys (capacity limits, keys unused when a mechanism is off; params.h),
   * may be NULL */
  const struct icsim_param_rule *rules;
  size_t nrules;
  enum icsim_layer_role role;
  enum icsim_wire_mode wire_mode;

  /* Build the model from resolved parameters. Returns 0, or -1 with a message in ERR. */
  int (*create)(void **state, const struct icsim_params *ps, const struct icsim_platform *pf, char *err,
                size_t errlen);
  void (*destroy)(void *state);

  /* CPU seconds the calling rank spends in the layer for one MPI call, whatever it does (the
   * name is the C binding's, e.g. "MPI_Send"). May be NULL. */
  double (*call_cpu)(void *state, const char *mpi_function);
  /* CPU seconds the sending rank spends handing M to the stack (may be 0). For the network
   * layer, only messages between nodes; node and call layers see every message. */
  double (*send_cpu)(void *state, const struct icsim_msg *m);
  /* CPU seconds the receiving rank spends taking M out of the stack, charged when the rank's
   * progress engine takes the message (inside whatever MPI call it is in when it lands). */
  double (*recv_cpu)(void *state, const struct icsim_msg *m);
  /* Network layer: CPU seconds a message between two ranks of one node costs its sender and
   * its receiver (the MPI's shared-memory channel); the data itself crosses the node's memory
   * links. NULL: sim/'s default channel (nodes/shm-instructions at the core clock, each side). */
  void (*intra_node_cpu)(void *state, const struct icsim_msg *m, double *send_s, double *recv_s);

  /* Latency and bandwidth of one transfer; C holds the previous layer's figures on entry.
   * The network layer sees transfers between nodes only; node layers see all. */
  void (*wire)(void *state, const struct icsim_wire_query *q, struct icsim_wire_cost *c);
  /* SimGrid reports transfer T complete at NOW: resources it held are free from now. May be NULL. */
  void (*transfer_done)(void *state, const struct icsim_transfer *t, double now);

  /* Messages up to this many bytes leave without waiting for the receiver (eager); larger
   * ones hold the sender until the receive is matched (rendezvous). NULL: never rendezvous. */
  double (*eager_limit_bytes)(void *state);

  /* Aggregate rate (B/s) that channel LINK delivers in direction UP (1: away from its node, or a
   * shared link; 0: toward its node, e.g. a switch's output port) when N transfers share it;
   * NOMINAL is the link's bandwidth. NULL, or a negative answer: SimGrid's fair sharing of
   * NOMINAL. Called by SimGrid's solver (keep it cheap); lets a stack make sharing non-linear
   * (memory controllers, QPI, a shared NIC, a switch's blocked ports). LINK NULL asks whether the
   * stack shapes any link of this platform (negative: none, so SimGrid keeps plain sharing). */
  double (*channel_capacity)(void *state, const struct icsim_link *link, int up, double nominal, int n);
  /* Fastest rate one transfer can reach on LINK (e.g. a copy that stays in the cache), when it
   * exceeds the link's nominal bandwidth; <= 0 otherwise. SimGrid bounds each transfer by the
   * link bandwidth, so the adapter raises it to this peak; channel_capacity still gets the
   * platform's nominal value. May be NULL. */
  double (*channel_peak)(void *state, const struct icsim_link *link);
  /* Fastest rate one transfer on LINK can flow because of who moves it (e.g. one core doing a
   * copy), whatever the channel could give; <= 0: no such limit. The solver then sees LINK's
   * capacity for n flows capped at n times this. LINK NULL asks whether the stack limits flows
   * on any link of this platform (> 0: yes). Keep it cheap. May be NULL. */
  double (*channel_flow_limit)(void *state, const struct icsim_link *link);

  /* Fill up to MAX counters, return how many. May be NULL. */
  size_t (*counters)(void *state, struct icsim_counter *out, size_t max);
  /* End-of-run invariant check: 0 if fine, else -1 with the broken invariant in ERR. May be NULL. */
  int (*check)(void *state, char *err, size_t errlen);
  /* A program built for this layer rather than with icsimcc (an ABI adaptor's: a binary built
   * against another MPI): asked of every registered layer, whatever the platform lists, before the
   * run. 1: its program, L filled (what the launch needs); 0: not its program; -1: its program,
   * but it cannot run (ERR says why and the fix). A program no layer takes must be an icsimcc
   * build. May be NULL. */
  int (*launch)(const char *program, struct icsim_launch *l, char *err, size_t errlen);
  /* `icsim place --pattern-file`: propose candidate mappings of PL->pattern_file (a pattern this
   * layer records) for PL->nranks ranks on PL->pf, and fill PL's outputs. Asked of the platform's
   * layers, from the program down; the first that has it answers. Returns 0, or -1 with the whole
   * message in ERR (file:line:column for a bad pattern). May be NULL. */
  int (*place_pattern)(struct icsim_place_plan *pl, char *err, size_t errlen);
  /* What `icsim place --help` says of place_pattern: which mappings, how the pattern is recorded
   * (whole lines, each ending in a newline). NULL with place_pattern NULL. */
  const char *place_pattern_help;
};

/* Names for messages and `icsim describe`. */
const char *icsim_role_name(enum icsim_layer_role r);
const char *icsim_wire_mode_name(enum icsim_wire_mode m);

/* Registry, filled by constructors in each stack's object file. */
void icsim_stack_register(const struct icsim_stack_ops *ops);
/* A stack's counters hook: copies its N counters C into OUT, at most MAX; returns how many. */
size_t icsim_counters_out(struct icsim_counter *out, size_t max, const struct icsim_counter *c, size_t n);

/* Eager push, for a stack whose sender's adapter sends an eager message at once (whether or not
 * the receive is posted): SimGrid starts the transfer only when the receive is posted, so the part
 * of the flight already behind it (now - announced) comes off C's latency, down to almost nothing.
 * Returns 1 when the message was sent before its transfer started (a stack counts these). */
int icsim_eager_push(const struct icsim_wire_query *q, struct icsim_wire_cost *c);
const struct icsim_stack_ops *icsim_stack_find(const char *name);
size_t icsim_stack_count(void);
const struct icsim_stack_ops *icsim_stack_at(size_t i);

#define ICSIM_REGISTER_STACK(ops)                                                   \
  __attribute__((constructor)) static void icsim_register_##ops(void) { icsim_stack_register(&(ops)); }

#endif
