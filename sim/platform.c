/* Platform schema and YAML resolution; links and routes are in topology.c, rank placement in
 * placement.c. */
#include "platform.h"
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yaml_flat.h"

#define F(field) offsetof(struct icsim_platform_params, field)

const struct icsim_param_desc icsim_platform_table[] = {
    {"name", ICSIM_P_STRING, 0, 0, 0, NULL, "spec", "short name of the machine", NULL, F(name)},
    {"description", ICSIM_P_STRING, 0, 0, 0, "", "spec", "one line on what the machine is", NULL, F(description)},
    {"source/paper", ICSIM_P_STRING, 0, 0, 0, "", "spec", "publication the machine is taken from", NULL,
     F(source_paper)},
    {"source/testbed", ICSIM_P_STRING, 0, 0, 0, "", "spec", "the real test bed it models", NULL, F(source_testbed)},
    {"nodes/count", ICSIM_P_INT, 0, 1, 65536, NULL, "spec", "number of nodes", NULL, F(nodes)},
    {"nodes/sockets", ICSIM_P_INT, 0, 1, 16, "1", "assumed", "CPU sockets per node", NULL, F(sockets)},
    {"nodes/cores-per-socket", ICSIM_P_INT, 0, 1, 1024, "1", "assumed", "cores per socket", NULL,
     F(cores_per_socket)},
    {"nodes/clock", ICSIM_P_QUANTITY, ICSIM_DIM_FREQUENCY, 1e6, 1e11, NULL, "spec",
     "core clock; turns a stack's instruction counts into time", NULL, F(clock_Hz)},
    {"nodes/shm-instructions", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0, 1e9, "500", "assumed",
     "MPI shared-memory channel between two ranks of one node: instructions per message on each side (enqueue a "
     "cell / dequeue and match it), for network layers that do not describe their own; the data crosses the node's "
     "memory links",
     NULL, F(shm_instructions)},
    {"nodes/poll-instructions", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 1, 1e9, "200", "assumed",
     "instructions of one MPI_Test, Iprobe or progress poll that finds nothing (a busy-wait loop advances "
     "simulated time by this much per turn)",
     NULL, F(poll_instructions)},
    {"nodes/speed", ICSIM_P_QUANTITY, ICSIM_DIM_SPEED, 1e3, 1e15, NULL, "spec",
     "per-core computing speed for work charged in flops", NULL, F(speed_flops)},
    {"nodes/ops-per-cycle", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0.01, 64, "1", "assumed",
     "independent operations a core issues per clock in a declared compute phase (compiled scalar code)", NULL,
     F(ops_per_cycle)},
    {"nodes/int-ops-per-cycle", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0, 64, "0", "assumed",
     "operations a core issues per clock in a declared phase whose operations are all integer (ALU operations, "
     "loads, stores, branches: no floating point); 0 = ops-per-cycle",
     NULL, F(int_ops_per_cycle)},
    {"nodes/memory-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 1e6, 1e13, "10GBps", "assumed",
     "one socket's memory controller bandwidth (intra-node copies cross it)", NULL, F(memory_bw_Bps)},
    {"nodes/memory-latency", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 1e-9, 1e-3, "100ns", "assumed",
     "memory access latency seen by an intra-node copy", NULL, F(memory_lat_s)},
    {"nodes/fp-latency", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 1, 100, "4", "assumed",
     "clocks of one floating-point add or subtract on a dependency chain (a compute phase's declared chain "
     "steps: a running sum, a recurrence)",
     NULL, F(fp_latency_cycles)},
    {"nodes/fp-multiply-latency", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 1, 100, "4", "assumed",
     "clocks of one floating-point multiply on a dependency chain (a recurrence's product, a polynomial's "
     "Horner step)",
     NULL, F(fp_mul_latency_cycles)},
    {"nodes/int-multiply-latency", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0, 100, "0", "assumed",
     "clocks of one 64-bit integer multiply on a dependency chain (a linear congruential generator's step); "
     "0 = fp-multiply-latency. Integer ALU operations on a chain take one clock each",
     NULL, F(int_mul_latency_cycles)},
    {"nodes/fp-divide-latency", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 1, 1000, "20", "assumed",
     "clocks of one floating-point division or square root on a dependency chain", NULL, F(fp_divide_latency_cycles)},
    {"nodes/mispredict-penalty", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0, 1000, "15", "assumed",
     "clocks lost to one mispredicted branch (the pipeline refills from the fetch stage)", NULL,
     F(mispredict_cycles)},
    {"nodes/reorder-window", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0, 4096, "0", "assumed",
     "instructions an out-of-order core keeps in flight (its reorder buffer): iterations whose dependency "
     "paths do not wait for one another overlap, as many as the window holds (window / instructions per "
     "iteration); 0 = not described (or an in-order core): the paths run one after another",
     NULL, F(window_ops)},
    {"nodes/move-elimination", ICSIM_P_BOOL, ICSIM_DIM_NONE, 0, 0, "false", "assumed",
     "the core completes register-to-register copies and zeroing idioms at register renaming, so they take "
     "no issue slot: a declared phase's .moves are then left out of its operations (AMD since Zen, Intel "
     "since Ivy Bridge); false = they issue like any operation (every older core)",
     NULL, F(move_elimination)},
    {"nodes/core-memory-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e13, "0Bps", "assumed",
     "what one core alone can stream from memory (bounded by its outstanding misses); 0 = the socket's whole "
     "bandwidth",
     NULL, F(core_memory_bw_Bps)},
    {"nodes/memory-parallelism", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 1, 256, "1", "assumed",
     "independent cache misses one core overlaps (random accesses of a phase cost latency / this)", NULL,
     F(memory_parallelism)},
    {"nodes/l1-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e12, "0B", "assumed",
     "first-level data cache, per core: a compute phase whose working set fits streams and accesses at this level "
     "(0 = not described)",
     NULL,
     F(cache_size_B[0])},
    {"nodes/l1-latency", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1e-3, "0s", "assumed",
     "load-to-use latency of the L1 (a random access that hits it)", NULL, F(cache_lat_s[0])},
    {"nodes/l1-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e14, "0Bps", "assumed",
     "one core streaming from the L1 (copy rate, bytes read + written)", NULL, F(cache_bw_Bps[0])},
    {"nodes/l1-ways", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0, 1024, "0", "assumed",
     "associativity of the L1: lines whose addresses differ by a multiple of size / ways share one set, so a "
     "strided pattern keeps at most ways lines per set it visits (0 = not described: no set conflicts)",
     NULL, F(cache_ways[0])},
    {"nodes/l2-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e12, "0B", "assumed",
     "second-level cache, per core: a compute phase whose working set fits streams and accesses at this level "
     "(0 = not described)",
     NULL,
     F(cache_size_B[1])},
    {"nodes/l2-latency", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1e-3, "0s", "assumed",
     "load-to-use latency of the L2 (a random access that hits it)", NULL, F(cache_lat_s[1])},
    {"nodes/l2-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e14, "0Bps", "assumed",
     "one core streaming from the L2 (copy rate, bytes read + written)", NULL, F(cache_bw_Bps[1])},
    {"nodes/l2-ways", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0, 1024, "0", "assumed",
     "associativity of the L2: lines whose addresses differ by a multiple of size / ways share one set, so a "
     "strided pattern keeps at most ways lines per set it visits (0 = not described: no set conflicts)",
     NULL, F(cache_ways[1])},
    {"nodes/l3-size", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e12, "0B", "assumed",
     "last-level cache, per socket (shared by the ranks placed on it): a compute phase whose working set fits "
     "streams and accesses at this level (0 = not described)",
     NULL,
     F(cache_size_B[2])},
    {"nodes/l3-latency", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1e-3, "0s", "assumed",
     "load-to-use latency of the L3 (a random access that hits it)", NULL, F(cache_lat_s[2])},
    {"nodes/l3-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e14, "0Bps", "assumed",
     "one core streaming from the L3 (copy rate, bytes read + written)", NULL, F(cache_bw_Bps[2])},
    {"nodes/l3-ways", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 0, 1024, "0", "assumed",
     "associativity of the L3: lines whose addresses differ by a multiple of size / ways share one set, so a "
     "strided pattern keeps at most ways lines per set it visits (0 = not described: no set conflicts)",
     NULL, F(cache_ways[2])},
    {"nodes/cache-line", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 1, 4096, "64B", "assumed",
     "bytes per cache line (the unit a strided pattern's sets are counted in)", NULL, F(cache_line_B)},
    {"nodes/socket-link-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 1e6, 1e13, "10GBps", "assumed",
     "inter-socket link (QPI on NUMA nodes, FSB on SMP nodes), each direction", NULL, F(socket_link_bw_Bps)},
    {"nodes/socket-link-latency", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1e-3, "100ns", "assumed",
     "inter-socket link latency", NULL, F(socket_link_lat_s)},
    {"network/topology", ICSIM_P_ENUM, 0, 0, 0, "star", "spec",
     "star = one switch; full = a link per node pair; ring; torus3d; fat-tree2 = leaves + spines",
     "star|full|ring|torus3d|fat-tree2", F(topology)},
    {"network/link-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 1e3, 1e13, NULL, "spec",
     "node link bandwidth, each direction (links are full duplex)", NULL, F(link_bw_Bps)},
    {"network/link-latency", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 1e-9, 1, "5ns", "assumed",
     "propagation and PHY latency of one link (5 ns = 1 m of cable; never 0: every route needs a latency)",
     NULL, F(link_lat_s)},
    {"network/switch-latency", ICSIM_P_QUANTITY, ICSIM_DIM_TIME, 0, 1, "0s", "assumed",
     "one-way latency of one switch (router) traversal", NULL, F(switch_lat_s)},
    {"network/torus-dims", ICSIM_P_STRING, 0, 0, 0, "", "spec", "torus3d only: XxYxZ, product = nodes/count",
     NULL, F(torus_dims)},
    {"network/leaf-size", ICSIM_P_INT, 0, 1, 65536, "16", "assumed", "fat-tree2 only: nodes per leaf switch",
     NULL, F(leaf_size)},
    {"network/spines", ICSIM_P_INT, 0, 1, 1024, "1", "assumed", "fat-tree2 only: number of spine switches",
     NULL, F(spines)},
    {"network/uplink-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e13, "0Bps", "assumed",
     "fat-tree2 only: leaf-spine link bandwidth (0 = same as link-bandwidth)", NULL, F(uplink_bw_Bps)},
};
const size_t icsim_platform_table_len = sizeof icsim_platform_table / sizeof icsim_platform_table[0];

/* Keys whose mechanism the platform can switch off (params.h): compute.c reads a cache level's
 * latency, bandwidth and ways only when its size is described (not 0), the line size only to
 * count a described level's sets; topology.c builds the inter-socket link only for 2+ sockets. */
const struct icsim_param_rule icsim_platform_rules[] = {
    {"nodes/l1-latency", 0, "nodes/l1-size=0B"},
    {"nodes/l1-bandwidth", 0, "nodes/l1-size=0B"},
    {"nodes/l1-ways", 0, "nodes/l1-size=0B"},
    {"nodes/l2-latency", 0, "nodes/l2-size=0B"},
    {"nodes/l2-bandwidth", 0, "nodes/l2-size=0B"},
    {"nodes/l2-ways", 0, "nodes/l2-size=0B"},
    {"nodes/l3-latency", 0, "nodes/l3-size=0B"},
    {"nodes/l3-bandwidth", 0, "nodes/l3-size=0B"},
    {"nodes/l3-ways", 0, "nodes/l3-size=0B"},
    {"nodes/cache-line", 0, "nodes/l1-size=0B, nodes/l2-size=0B, nodes/l3-size=0B"},
    {"nodes/socket-link-bandwidth", 0, "nodes/sockets=1"},
    {"nodes/socket-link-latency", 0, "nodes/sockets=1"},
};
const size_t icsim_platform_rules_len = sizeof icsim_platform_rules / sizeof icsim_platform_rules[0];

/* Split "key=value"; returns 0 or -1 (no '=', empty key, key longer than KLEN - 1). */
static int split_set(const char *set, char *key, size_t klen, const char **value)
{
  const char *eq = strchr(set, '=');
  if (!eq || eq == set || (size_t)(eq - set) >= klen)
    return -1;
  memcpy(key, set, (size_t)(eq - set));
  key[eq - set] = '\0';
  *value = eq + 1;
  return 0;
}

/* "XxYxZ", each a whole number 1..65536 written in decimal. */
static int parse_dims(const char *text, int dims[3])
{
  const char *s = text;
  for (int d = 0; d < 3; d++) {
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 5 || s[n] != (d < 2 ? 'x' : '\0'))
      return -1;
    dims[d] = atoi(s);
    if (dims[d] < 1 || dims[d] > 65536)
      return -1;
    s += n + (d < 2);
  }
  return 0;
}

static int located(char *err, size_t errlen, const char *path, const struct icsim_yentry *e, const char *msg)
{
  snprintf(err, errlen, "%s:%d:%d: %s", path, e->line, e->column, msg);
  return -1;
}

/* "file:line:col: MSG" at KEY's value when the file gave it, "--set KEY: MSG" when --set did,
 * "file: MSG" for a default. */
static int blame(const struct icsim_platform *pf, const struct icsim_yfile *y, const char *key, const char *msg,
                 char *err, size_t errlen)
{
  const struct icsim_pval *pv = icsim_params_find(&pf->params, key);
  const struct icsim_yentry *e = icsim_yaml_get(y, key);
  if (pv && !strcmp(pv->where, "--set"))
    snprintf(err, errlen, "--set %s: %s", key, msg);
  else if (e)
    located(err, errlen, icsim_path_shown(pf->path), e, msg);
  else
    snprintf(err, errlen, "%s: %s", icsim_path_shown(pf->path), msg);
  return -1;
}

/* Cross-field checks that a single row cannot express, and the size limits: every link is a
 * SimGrid object (a few hundred bytes each), so their count is bounded before any is built. */
static int check_consistency(struct icsim_platform *pf, const struct icsim_yfile *y, char *err, size_t errlen)
{
  const struct icsim_platform_params *p = &pf->p;
  static const char *const topo_names[] = {"star", "full", "ring", "torus3d", "fat-tree2"};
  const char *topo = topo_names[p->topology];
  char msg[512];
  /* a key of another topology would be silently ignored */
  static const struct {
    const char *key;
    int topology;
  } own[] = {{"network/torus-dims", ICSIM_TOPO_TORUS3D},
             {"network/leaf-size", ICSIM_TOPO_FATTREE2},
             {"network/spines", ICSIM_TOPO_FATTREE2},
             {"network/uplink-bandwidth", ICSIM_TOPO_FATTREE2}};
  for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
    if (icsim_params_find(&pf->params, own[i].key)->given && p->topology != own[i].topology) {
      snprintf(msg, sizeof msg, "%s applies to %s only, but network/topology is %s; remove it or change the topology",
               own[i].key, topo_names[own[i].topology], topo);
      return blame(pf, y, own[i].key, msg, err, errlen);
    }
  /* ...and one left at its default there is not used: no range can apply to it */
  for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
    icsim_params_find(&pf->params, own[i].key)->inapplicable = p->topology != own[i].topology;
  if (pf->mpi.alltoall_long_batched_min_ppn > 0 &&
      pf->mpi.alltoall_long_batched_max_ppn < pf->mpi.alltoall_long_batched_min_ppn) {
    snprintf(msg, sizeof msg,
             "mpi/alltoall-long-batched-max-ppn (%d) is below mpi/alltoall-long-batched-min-ppn (%d): the range is "
             "empty; set the max to at least the min",
             pf->mpi.alltoall_long_batched_max_ppn, pf->mpi.alltoall_long_batched_min_ppn);
    return blame(pf, y, "mpi/alltoall-long-batched-max-ppn", msg, err, errlen);
  }
  if (p->topology == ICSIM_TOPO_TORUS3D) {
    if (parse_dims(p->torus_dims, pf->dims))
      return blame(pf, y, "network/torus-dims",
                   "network/torus-dims must be XxYxZ with each size 1 to 65536, e.g. 4x4x2, for a torus3d", err,
                   errlen);
    long long held = (long long)pf->dims[0] * pf->dims[1] * pf->dims[2];
    if (held != p->nodes) {
      snprintf(msg, sizeof msg, "network/torus-dims %s holds %lld nodes but nodes/count is %d; make them agree",
               p->torus_dims, held, p->nodes);
      return blame(pf, y, "network/torus-dims", msg, err, errlen);
    }
  }
  long long hosts = (long long)p->nodes * p->sockets;
  if (hosts > ICSIM_MAX_HOSTS) {
    snprintf(msg, sizeof msg,
             "%d nodes x %d sockets = %lld SimGrid hosts; icsim builds at most %d (README, Limits): lower one of them",
             p->nodes, p->sockets, hosts, ICSIM_MAX_HOSTS);
    return blame(pf, y, "nodes/count", msg, err, errlen);
  }
  long long links = icsim_topology_link_count(p);
  if (links > ICSIM_MAX_LINKS) {
    struct icsim_platform_params q = *p;
    while (q.nodes > 1 && icsim_topology_link_count(&q) > ICSIM_MAX_LINKS)
      q.nodes--;
    snprintf(msg, sizeof msg,
             "a %s of %d nodes needs %lld links%s, more than the %d icsim builds (README, Limits); with these "
             "settings use at most %d nodes%s",
             topo, p->nodes, links, p->topology == ICSIM_TOPO_FULL ? " (one per node pair)" : "", ICSIM_MAX_LINKS,
             q.nodes, p->topology == ICSIM_TOPO_FULL ? ", or a star or fat-tree2" : "");
    return blame(pf, y, "nodes/count", msg, err, errlen);
  }
  return 0;
}

/* Names of the registered stacks of ROLE, for messages. */
static void known_stacks(enum icsim_layer_role role, char *buf, size_t len)
{
  buf[0] = '\0';
  for (size_t i = 0; i < icsim_stack_count(); i++)
    if (icsim_stack_at(i)->role == role)
      snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "", icsim_stack_at(i)->name);
}

/* Add layer NAME (written at E, or in --set when E is NULL). */
static int add_layer(struct icsim_platform *pf, const char *name, size_t namelen, const struct icsim_yentry *e,
                     char *err, size_t errlen)
{
  char nm[64], msg[700];
  snprintf(nm, sizeof nm, "%.*s", (int)(namelen < 63 ? namelen : 63), name);
  const struct icsim_stack_ops *ops = icsim_stack_find(nm);
  if (!ops) {
    char net[256], node[256], calls[256];
    known_stacks(ICSIM_ROLE_NETWORK, net, sizeof net);
    known_stacks(ICSIM_ROLE_NODE, node, sizeof node);
    known_stacks(ICSIM_ROLE_CALLS, calls, sizeof calls);
    snprintf(msg, sizeof msg, "unknown layer '%s'; network stacks: %s; node layers: %s; call layers: %s", nm, net,
             node[0] ? node : "none", calls[0] ? calls : "none");
  } else if (pf->nlayers == ICSIM_MAX_LAYERS) {
    snprintf(msg, sizeof msg, "more than %d layers", ICSIM_MAX_LAYERS);
  } else {
    for (int i = 0; i < pf->nlayers; i++)
      if (pf->layer[i] == ops) {
        snprintf(msg, sizeof msg, "layer '%s' is listed twice; list each layer once", nm);
        goto bad;
      }
    pf->layer[pf->nlayers++] = ops;
    return 0;
  }
bad:
  if (e)
    snprintf(err, errlen, "%s:%d:%d: %s", icsim_path_shown(pf->path), e->line, e->column, msg);
  else
    snprintf(err, errlen, "--set layers: %s", msg);
  return -1;
}

/* The platform's `layers` list (or --set layers=a,b,c), checked to hold together: one network
 * stack, call layers above it, node layers below it, and no layer that reshapes SimGrid's
 * sharing over a network stack whose transfers SimGrid only replays. */
static int resolve_layers(struct icsim_platform *pf, const struct icsim_yfile *y, char *const *sets, int nsets,
                          char *err, size_t errlen)
{
  char shown[ICSIM_PATH_SHOWN + 1]; /* messages name the path shortened, never cut their reason */
  const char *path = icsim_path_short(pf->path, shown, sizeof shown);
  /* the old keys, in whatever shape (stack: generic, stack: {a: 1}), and a `layers` that is
   * not a list of names, are named as such rather than reported as a missing `layers` */
  for (size_t i = 0; i < y->n; i++) {
    const struct icsim_yentry *e = &y->e[i];
    size_t seg = strcspn(e->key, "/");
    if ((seg == 5 && !strncmp(e->key, "stack", 5)) || (seg == 7 && !strncmp(e->key, "compose", 7))) {
      snprintf(err, errlen,
               "%s:%d:%d: '%.*s' is the old form: list the layers from the program down to the hardware instead, "
               "e.g. 'layers: [generic]' or 'layers: [generic, numa]'",
               path, e->key_line, e->key_column, (int)seg, e->key);
      return -1;
    }
    if (seg == 6 && !strncmp(e->key, "layers", 6) && e->key[6] &&
        (strspn(e->key + 7, "0123456789") == 0 || e->key[7 + strspn(e->key + 7, "0123456789")])) {
      snprintf(err, errlen, "%s:%d:%d: 'layers' must be a list of layer names, e.g. 'layers: [generic, numa]'", path,
               e->key_line, e->key_column);
      return -1;
    }
  }
  const char *setv = NULL;
  char key[256];
  const char *value;
  for (int i = 0; i < nsets; i++)
    if (split_set(sets[i], key, sizeof key, &value) == 0 && strcmp(key, "layers") == 0)
      setv = value;
  const struct icsim_yentry *where = icsim_yaml_get(y, "layers/0");
  if (setv) {
    where = NULL;
    for (const char *s = setv; *s;) {
      size_t n = strcspn(s, ",");
      if (n == 0 || add_layer(pf, s, n, NULL, err, errlen)) {
        if (n == 0)
          snprintf(err, errlen, "--set layers=%s: write the layer names separated by commas, e.g. generic,numa", setv);
        return -1;
      }
      s += n + (s[n] == ',');
    }
  } else {
    const struct icsim_yentry *bare = icsim_yaml_get(y, "layers");
    if (bare && !where) {
      snprintf(err, errlen, "%s:%d:%d: 'layers' must be a list, e.g. 'layers: [generic, numa]'", path, bare->line,
               bare->column);
      return -1;
    }
    for (int i = 0;; i++) {
      snprintf(key, sizeof key, "layers/%d", i);
      const struct icsim_yentry *e = icsim_yaml_get(y, key);
      if (!e)
        break;
      if (add_layer(pf, e->value, strlen(e->value), e, err, errlen))
        return -1;
    }
  }
  char prefix[600];
  if (where)
    snprintf(prefix, sizeof prefix, "%s:%d:%d: layers", path, where->line, where->column);
  else if (setv)
    snprintf(prefix, sizeof prefix, "--set layers=%s", setv);
  else
    snprintf(prefix, sizeof prefix, "%s", path);
  if (pf->nlayers == 0) {
    char net[256];
    known_stacks(ICSIM_ROLE_NETWORK, net, sizeof net);
    snprintf(err, errlen, "%s: missing required key 'layers'; add e.g. 'layers: [generic]' (network stacks: %s)",
             prefix, net);
    return -1;
  }
  pf->network = -1;
  for (int i = 0; i < pf->nlayers; i++) {
    const struct icsim_stack_ops *l = pf->layer[i];
    if (l->role == ICSIM_ROLE_NETWORK) {
      if (pf->network >= 0) {
        snprintf(err, errlen, "%s: two network stacks, %s and %s; a machine has one: keep one of them", prefix,
                 pf->layer[pf->network]->name, l->name);
        return -1;
      }
      pf->network = i;
    }
  }
  if (pf->network < 0) {
    char net[256];
    known_stacks(ICSIM_ROLE_NETWORK, net, sizeof net);
    snprintf(err, errlen, "%s: no network stack among the layers; add one of: %s", prefix, net);
    return -1;
  }
  pf->stack = pf->layer[pf->network];
  for (int i = 0; i < pf->nlayers; i++) {
    const struct icsim_stack_ops *l = pf->layer[i];
    if ((l->role == ICSIM_ROLE_CALLS && i > pf->network) || (l->role == ICSIM_ROLE_NODE && i < pf->network)) {
      snprintf(err, errlen,
               "%s: %s is a %s layer and must be listed %s the network stack %s (layers go from the program down "
               "to the hardware, e.g. [abi, generic, numa])",
               prefix, l->name, icsim_role_name(l->role), l->role == ICSIM_ROLE_CALLS ? "before" : "after",
               pf->stack->name);
      return -1;
    }
    if (l->wire_mode == ICSIM_WIRE_SHARING && pf->stack->wire_mode == ICSIM_WIRE_SCHEDULE) {
      snprintf(err, errlen,
               "%s: %s decides how SimGrid shares links among transfers, but %s computes each transfer's timing "
               "itself and SimGrid only replays it: the two cannot hold together. Use %s over a network stack "
               "whose wire mode is '%s' (see `icsim describe`)",
               prefix, l->name, pf->stack->name, l->name, icsim_wire_mode_name(ICSIM_WIRE_FACTORS));
      return -1;
    }
  }
  return 0;
}

/* The parameter that KEY lies under ("nodes/count" for "nodes/count/a"), or NULL: a list or
 * mapping given where one value is expected. */
static const char *single_value_above(const struct icsim_params *ps, const char *key, char *head, size_t len)
{
  snprintf(head, len, "%s", key);
  for (char *slash = strrchr(head, '/'); slash; slash = strrchr(head, '/')) {
    *slash = '\0';
    if (icsim_params_find(ps, head))
      return head;
  }
  return NULL;
}

int icsim_platform_load(struct icsim_platform *pf, const char *path, char *const *sets, int nsets, char *err,
                        size_t errlen)
{
  memset(pf, 0, sizeof *pf);
  pf->path = strdup(path);
  struct icsim_yfile y;
  if (icsim_yaml_load_as("platform", path, &y, err, errlen)) {
    icsim_platform_free(pf);
    return -1;
  }
  char key[256];
  const char *value;
  int rc = -1;

  /* The layers decide which parameter tables exist, so they are resolved first. */
  if (resolve_layers(pf, &y, sets, nsets, err, errlen))
    goto out;
  icsim_params_add_table(&pf->params, icsim_platform_table, icsim_platform_table_len);
  icsim_params_add_table(&pf->params, icsim_mpi_select_table, icsim_mpi_select_table_len);
  for (int i = 0; i < pf->nlayers; i++)
    icsim_params_add_table(&pf->params, pf->layer[i]->params, pf->layer[i]->nparams);
  icsim_params_add_rules(&pf->params, icsim_platform_rules, icsim_platform_rules_len);
  icsim_params_add_rules(&pf->params, icsim_mpi_select_rules, icsim_mpi_select_rules_len);
  for (int i = 0; i < pf->nlayers; i++)
    icsim_params_add_rules(&pf->params, pf->layer[i]->rules, pf->layer[i]->nrules);

  for (size_t i = 0; i < y.n; i++) {
    const struct icsim_yentry *e = &y.e[i];
    char where[512], why[400];
    if (strncmp(e->key, "layers/", 7) == 0)
      continue; /* resolved above */
    snprintf(where, sizeof where, "%s:%d", path, e->line);
    if (icsim_params_set(&pf->params, e->key, e->value, e->origin, where, e->ref, why, sizeof why)) {
      char head[ICSIM_YAML_MAX_KEY + 1];
      const char *scalar = single_value_above(&pf->params, e->key, head, sizeof head);
      if (scalar) {
        snprintf(err, errlen, "%s:%d:%d: '%s' takes a single value, not a list or mapping (%s)", path, e->key_line,
                 e->key_column, scalar, icsim_params_find(&pf->params, scalar)->d->help);
      } else if (!icsim_params_find(&pf->params, e->key)) {
        snprintf(err, errlen, "%s:%d:%d: %s", path, e->key_line, e->key_column, why);
      } else {
        located(err, errlen, path, e, why);
      }
      goto out;
    }
    if (e->range_lo &&
        icsim_params_set_range(&pf->params, e->key, e->range_lo, e->range_hi, e->range_ref, why, sizeof why)) {
      snprintf(err, errlen, "%s:%d:%d: %s", path, e->range_line, e->range_column, why);
      goto out;
    }
  }
  for (int i = 0; i < nsets; i++) {
    char why[400];
    if (split_set(sets[i], key, sizeof key, &value)) {
      if (strchr(sets[i], '=') && strchr(sets[i], '=') - sets[i] >= (long)sizeof key)
        snprintf(err, errlen, "--set '%.40s...': the key is longer than %zu characters; no key is that long", sets[i],
                 sizeof key - 1);
      else
        snprintf(err, errlen, "--set '%s': write key=value, e.g. --set network/link-bandwidth=1Gbps", sets[i]);
      goto out;
    }
    if (strcmp(key, "layers") == 0)
      continue; /* resolved above */
    if (icsim_params_set(&pf->params, key, value, "assumed", "--set", NULL, why, sizeof why)) {
      snprintf(err, errlen, "--set %s: %s", sets[i], why);
      goto out;
    }
  }
  const char *missing = icsim_params_missing(&pf->params);
  if (missing) {
    const struct icsim_pval *pv = icsim_params_find(&pf->params, missing);
    snprintf(err, errlen, "%s: missing required key '%s' (%s); add it to the file", path, missing, pv->d->help);
    goto out;
  }
  icsim_params_fill(&pf->params, icsim_platform_table, icsim_platform_table_len, &pf->p);
  icsim_params_fill(&pf->params, icsim_mpi_select_table, icsim_mpi_select_table_len, &pf->mpi);
  if (check_consistency(pf, &y, err, errlen))
    goto out;
  icsim_params_mark_switched_off(&pf->params);
  if (icsim_topology_build(pf)) {
    snprintf(err, errlen, "%s: out of memory building %lld links", path, icsim_topology_link_count(&pf->p));
    goto out;
  }
  rc = 0;
out:
  icsim_yaml_free(&y);
  if (rc)
    icsim_platform_free(pf);
  return rc;
}

void icsim_platform_free(struct icsim_platform *pf)
{
  icsim_params_free(&pf->params);
  free(pf->links);
  free(pf->path);
  memset(pf, 0, sizeof *pf);
}
