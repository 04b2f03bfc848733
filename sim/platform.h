/* Simulated machines: the platform schema and its loading from YAML (platform.c), with the
 * machine's topology (topology.h: hosts, links, routes) and rank placement (placement.h).
 *
 * One SimGrid host per socket ("node3.s1"), with cores-per-socket cores, so that placement
 * decides which node-internal channels a transfer crosses:
 *   same socket      -> that socket's memory controller link
 *   other socket     -> both memory controllers and the inter-socket link (QPI / FSB)
 *   other node       -> memory controllers, the node's network link(s), switches per topology
 * Everything here is plain C and testable without SimGrid; sim/adapter.cpp turns it into
 * SimGrid objects. */
#ifndef ICSIM_PLATFORM_H
#define ICSIM_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include "mpi/select.h"
#include "params.h"
#include "placement.h"
#include "stack.h"
#include "topology.h"

/* Resolved platform values; filled from the descriptor table in platform.c. */
struct icsim_platform_params {
  const char *name;
  const char *description;
  const char *source_paper;
  const char *source_testbed;
  int nodes;
  int sockets;
  int cores_per_socket;
  double clock_Hz;     /* core clock: converts a stack's instruction counts into time */
  double shm_instructions;
  double poll_instructions; /* one MPI_Test/Iprobe that finds nothing */ /* default shared-memory channel: instructions per message, each side */
  double speed_flops;  /* per core, for computation charged in flops */
  double ops_per_cycle; /* declared compute phases: operations retired per clock */
  double int_ops_per_cycle; /* ... in a phase whose operations are all integer (0: ops_per_cycle) */
  double memory_bw_Bps;   /* one socket's memory controller */
  double memory_lat_s;
  /* the compute model's memory hierarchy (sim/runtime.c icsim_runtime_compute_time); a level
   * whose size is 0 is not described and phases skip it */
  double fp_latency_cycles;        /* one dependent floating-point add or subtract */
  double fp_mul_latency_cycles;    /* one dependent floating-point multiply */
  double int_mul_latency_cycles;   /* one dependent integer multiply (0: fp_mul_latency_cycles) */
  double fp_divide_latency_cycles; /* one dependent division or square root */
  double mispredict_cycles;        /* a mispredicted branch: the pipeline refills */
  double window_ops;               /* reorder window: instructions in flight (0: not described) */
  bool move_elimination;           /* register copies and zeroing idioms completed at rename (issue nothing) */
  double core_memory_bw_Bps; /* what one core can stream from memory (its outstanding misses); 0 = no limit */
  double memory_parallelism; /* independent cache misses a core keeps in flight */
  double cache_size_B[3];    /* L1, L2 per core; L3 per socket, shared by its ranks */
  double cache_lat_s[3];     /* load-to-use latency */
  double cache_bw_Bps[3];    /* one core streaming from that level */
  double cache_ways[3];      /* associativity (0 = not described: no set conflicts) */
  double cache_line_B;       /* bytes per cache line */
  double socket_link_bw_Bps; /* QPI or FSB between sockets */
  double socket_link_lat_s;
  int topology;           /* enum icsim_topology */
  double link_bw_Bps;     /* node <-> first switch (or neighbour) link, each direction */
  double link_lat_s;
  double switch_lat_s;    /* one switch (router) traversal */
  const char *torus_dims; /* "4x4x2" */
  int leaf_size;          /* fat tree: nodes per leaf switch */
  int spines;             /* fat tree: spine switches */
  double uplink_bw_Bps;   /* fat tree: leaf <-> spine link */
};

/* Size limits of a machine (README, Limits): links are stored (one per node pair for `full`),
 * routes are computed per transfer, never stored. */
#define ICSIM_MAX_HOSTS 65536    /* nodes x sockets: SimGrid hosts */
#define ICSIM_MAX_LINKS (1 << 20)
#define ICSIM_MAX_LAYERS 8

struct icsim_platform {
  char *path;
  struct icsim_params params;
  struct icsim_platform_params p;
  struct icsim_mpi_select mpi; /* the MPI layer's collective algorithm selection (mpi/select.c) */
  const struct icsim_stack_ops *layer[ICSIM_MAX_LAYERS]; /* from the program down to the hardware */
  int nlayers;
  const struct icsim_stack_ops *stack; /* the network layer (one of layer[]) */
  int network;                         /* its index in layer[] */
  int dims[3];                           /* torus */
  struct icsim_link *links;
  int nlinks;
};

/* The platform's own descriptor table (exported for describe and the README generator). */
extern const struct icsim_param_desc icsim_platform_table[];
extern const size_t icsim_platform_table_len;
extern const struct icsim_param_rule icsim_platform_rules[]; /* range rules of its keys (params.h) */
extern const size_t icsim_platform_rules_len;

/* Load PATH, then apply SETS ("key=value" strings). Returns 0 or -1 with a located message. */
int icsim_platform_load(struct icsim_platform *pf, const char *path, char *const *sets, int nsets, char *err,
                        size_t errlen);
void icsim_platform_free(struct icsim_platform *pf);

/* The SimGrid host of socket SOCKET of NODE: hosts are numbered node by node, then socket by
 * socket within a node ("node3.s1"; topology.h). */
static inline int icsim_host_of(const struct icsim_platform *pf, int node, int socket)
{
  return node * pf->p.sockets + socket;
}

#endif
