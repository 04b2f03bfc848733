/* The live simulation state shared by the SimGrid adapter (kernel side) and the MPI layer
 * (rank side). Both are loaded into the one smpirun process and link this library, so the
 * runtime is one global: the platform, the stack instances and the run's counters. */
#ifndef ICSIM_RUNTIME_H
#define ICSIM_RUNTIME_H

#include <stdio.h>

#include "platform.h"
#include "stack.h"

struct icsim_runtime {
  struct icsim_platform pf;
  void *stack_state;
  void *compose_state;
  int nranks;
  int host_timing; /* SMPI benchmarks user code: stack CPU charges must pause its timer */
  int *rank_host; /* host (socket) of each world rank, from the placement */
  struct icsim_rma_expect {
    enum icsim_msg_kind kind;
    int src_host, dst_host;
    double bytes;
  } rma[64];
  int nrma;
  /* counters kept by sim/ itself, whatever the stack */
  double messages, payload_bytes, send_cpu_s, recv_cpu_s, transfers, intra_node_transfers;
  /* declared compute phases (icsim_phase.h): time charged per rank, phases and their work */
  double *compute_s;
  double phases, phase_ops, phase_bytes;
};

/* Environment variables through which `icsim run` hands the run to smpirun. */
#define ICSIM_ENV_PLATFORM "ICSIM_PLATFORM"
#define ICSIM_ENV_SET "ICSIM_SET" /* key=value;key=value */
#define ICSIM_ENV_STATS "ICSIM_STATS"
#define ICSIM_ENV_NRANKS "ICSIM_NRANKS"
#define ICSIM_ENV_PLACE "ICSIM_PLACE"
#define ICSIM_ENV_HOST_TIMING "ICSIM_HOST_TIMING" /* "on" when SMPI times the program's own code */

/* Load the platform and create its stacks. Returns NULL with ERR filled on failure. */
struct icsim_runtime *icsim_runtime_create(const char *platform, const char *sets, char *err, size_t errlen);
/* Create from the environment and make it the process' runtime. */
int icsim_runtime_init_from_env(char *err, size_t errlen);
/* The process' runtime, NULL when the program runs outside icsim (plain smpirun, native MPI). */
struct icsim_runtime *icsim_runtime_get(void);
void icsim_runtime_destroy(struct icsim_runtime *rt);

/* Host-side and wire-side costs, network stack first, then the composing stack. */
double icsim_runtime_send_cpu(struct icsim_runtime *rt, const struct icsim_msg *m);
double icsim_runtime_recv_cpu(struct icsim_runtime *rt, const struct icsim_msg *m);
void icsim_runtime_wire(struct icsim_runtime *rt, const struct icsim_wire_query *q, struct icsim_wire_cost *c);

/* Channel capacity for N sharers from the composing stack, else the network stack; negative
 * when neither models it. */
double icsim_runtime_channel_capacity(struct icsim_runtime *rt, const struct icsim_link *link, double nominal,
                                      int n);
int icsim_runtime_models_channels(const struct icsim_runtime *rt);
/* Bandwidth SimGrid should give LINK: its nominal one, or a stack's higher peak. */
double icsim_runtime_channel_peak(struct icsim_runtime *rt, const struct icsim_link *link);

/* Time of a declared compute phase of OPS operations moving BYTES to or from memory on the
 * core of world rank RANK: the slower of the core (clock x ops-per-cycle) and its share of the
 * socket's memory bandwidth (split among the ranks placed on that socket), a roofline. */
double icsim_runtime_compute_time(const struct icsim_runtime *rt, int rank, double ops, double bytes);

/* One-sided operations: the MPI layer announces the transfer it is about to cause so that the
 * wire side, which sees only hosts and sizes, can tell it from a message. */
void icsim_runtime_expect_rma(struct icsim_runtime *rt, enum icsim_msg_kind kind, int src_host, int dst_host,
                              double bytes);
enum icsim_msg_kind icsim_runtime_take_kind(struct icsim_runtime *rt, int src_host, int dst_host, double bytes);

/* Write the counters as JSON to PATH atomically (temporary file, then rename). */
int icsim_runtime_write_stats(struct icsim_runtime *rt, const char *path, double simulated_s, char *err,
                              size_t errlen);
/* End-of-run invariants of every stack. */
int icsim_runtime_check(struct icsim_runtime *rt, char *err, size_t errlen);

/* Split a "k=v;k=v" list into a NULL-terminated array (free with free() on [0] and the array). */
char **icsim_split_sets(const char *sets, int *n);

#endif
