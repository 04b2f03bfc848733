/* Platform schema, YAML resolution, topology links and routes, placement. */
#include "platform.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement_file.h"
#include "yaml_flat.h"

#define F(field) offsetof(struct icsim_platform_params, field)
#define BIG 1e18

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

/* pf->links was allocated for exactly the links layout_of() counts (link_total()). */
static void add_link(struct icsim_platform *pf, const char *name, enum icsim_link_kind kind,
                     enum icsim_sharing sharing, double bw, double lat)
{
  struct icsim_link *l = &pf->links[pf->nlinks++];
  snprintf(l->name, sizeof l->name, "%s", name);
  l->kind = kind;
  l->sharing = sharing;
  l->bw_Bps = bw;
  l->lat_s = lat;
}

/* Link numbering is implicit and shared with icsim_route(): keep the two in step. */
struct layout {
  int mem0, sock0, net0, sw0, extra0; /* first index of each group */
  int nsw;
};

static struct layout layout_of(const struct icsim_platform *pf)
{
  const struct icsim_platform_params *p = &pf->p;
  struct layout L;
  int hosts = p->nodes * p->sockets;
  L.mem0 = 0;
  L.sock0 = L.mem0 + hosts;
  L.net0 = L.sock0 + (p->sockets > 1 ? p->nodes : 0);
  switch (p->topology) {
  case ICSIM_TOPO_STAR: L.sw0 = L.net0 + p->nodes; L.nsw = 1; break;
  case ICSIM_TOPO_FULL: L.sw0 = L.net0 + p->nodes * (p->nodes - 1) / 2; L.nsw = 0; break;
  case ICSIM_TOPO_RING: L.sw0 = L.net0 + p->nodes; L.nsw = p->nodes; break;
  case ICSIM_TOPO_TORUS3D: L.sw0 = L.net0 + 3 * p->nodes; L.nsw = p->nodes; break;
  default: { /* fat tree: node links, then leaf and spine switches, then uplinks */
    int leaves = (p->nodes + p->leaf_size - 1) / p->leaf_size;
    L.sw0 = L.net0 + p->nodes;
    L.nsw = leaves + p->spines;
  }
  }
  L.extra0 = L.sw0 + L.nsw;
  return L;
}

/* Links of each group, counted without overflow (the size checks run before anything is built). */
static long long link_total(const struct icsim_platform_params *p)
{
  long long n = p->nodes, hosts = n * p->sockets, net, sw, up = 0;
  long long leaves = (n + p->leaf_size - 1) / p->leaf_size;
  switch (p->topology) {
  case ICSIM_TOPO_STAR: net = n, sw = 1; break;
  case ICSIM_TOPO_FULL: net = n * (n - 1) / 2, sw = 0; break;
  case ICSIM_TOPO_RING: net = n, sw = n; break;
  case ICSIM_TOPO_TORUS3D: net = 3 * n, sw = n; break;
  default: net = n, sw = leaves + p->spines, up = leaves * p->spines;
  }
  return hosts + (p->sockets > 1 ? n : 0) + net + sw + up;
}

static int build_links(struct icsim_platform *pf)
{
  const struct icsim_platform_params *p = &pf->p;
  char name[40];
  pf->links = malloc((size_t)link_total(p) * sizeof *pf->links);
  if (!pf->links)
    return -1;
  for (int n = 0; n < p->nodes; n++)
    for (int s = 0; s < p->sockets; s++) {
      snprintf(name, sizeof name, "mem:%d.s%d", n, s);
      add_link(pf, name, ICSIM_LINK_MEMORY, ICSIM_SHARED, p->memory_bw_Bps, p->memory_lat_s);
    }
  if (p->sockets > 1)
    for (int n = 0; n < p->nodes; n++) {
      snprintf(name, sizeof name, "qpi:%d", n);
      add_link(pf, name, ICSIM_LINK_SOCKET, ICSIM_SPLITDUPLEX, p->socket_link_bw_Bps, p->socket_link_lat_s);
    }
  switch (p->topology) {
  case ICSIM_TOPO_STAR:
  case ICSIM_TOPO_RING:
  case ICSIM_TOPO_FATTREE2:
    /* star/fat tree: node <-> switch; ring: node n <-> node n+1 */
    for (int n = 0; n < p->nodes; n++) {
      snprintf(name, sizeof name, "net:%d", n);
      add_link(pf, name, ICSIM_LINK_NETWORK, ICSIM_SPLITDUPLEX, p->link_bw_Bps, p->link_lat_s);
    }
    break;
  case ICSIM_TOPO_FULL:
    for (int a = 0; a < p->nodes; a++)
      for (int b = a + 1; b < p->nodes; b++) {
        snprintf(name, sizeof name, "net:%d-%d", a, b);
        add_link(pf, name, ICSIM_LINK_NETWORK, ICSIM_SPLITDUPLEX, p->link_bw_Bps, p->link_lat_s);
      }
    break;
  case ICSIM_TOPO_TORUS3D:
    for (int n = 0; n < p->nodes; n++)
      for (int d = 0; d < 3; d++) {
        snprintf(name, sizeof name, "net:%d+%c", n, "xyz"[d]);
        add_link(pf, name, ICSIM_LINK_NETWORK, ICSIM_SPLITDUPLEX, p->link_bw_Bps, p->link_lat_s);
      }
    break;
  }
  struct layout L = layout_of(pf);
  /* Switches are crossbars: latency, no bandwidth limit of their own. */
  for (int i = 0; i < L.nsw; i++) {
    snprintf(name, sizeof name, "sw:%d", i);
    add_link(pf, name, ICSIM_LINK_SWITCH, ICSIM_FATPIPE, BIG, p->switch_lat_s);
  }
  if (p->topology == ICSIM_TOPO_FATTREE2) {
    int leaves = (p->nodes + p->leaf_size - 1) / p->leaf_size;
    double bw = p->uplink_bw_Bps > 0 ? p->uplink_bw_Bps : p->link_bw_Bps;
    for (int l = 0; l < leaves; l++)
      for (int s = 0; s < p->spines; s++) {
        snprintf(name, sizeof name, "up:%d-%d", l, s);
        add_link(pf, name, ICSIM_LINK_NETWORK, ICSIM_SPLITDUPLEX, bw, p->link_lat_s);
      }
  }
  return 0;
}

int icsim_memory_link(const struct icsim_platform *pf, int host) { return layout_of(pf).mem0 + host; }

int icsim_adapter_link(const struct icsim_platform *pf, int node)
{
  if (pf->p.topology != ICSIM_TOPO_STAR && pf->p.topology != ICSIM_TOPO_FATTREE2)
    return -1;
  return layout_of(pf).net0 + node;
}

int icsim_platform_hosts(const struct icsim_platform *pf) { return pf->p.nodes * pf->p.sockets; }

void icsim_host_name(const struct icsim_platform *pf, int host, char *buf, size_t len)
{
  snprintf(buf, len, "node%d.s%d", host / pf->p.sockets, host % pf->p.sockets);
}

int icsim_host_index(const struct icsim_platform *pf, const char *name)
{
  int n, s;
  char tail;
  if (sscanf(name, "node%d.s%d%c", &n, &s, &tail) != 2 || n < 0 || n >= pf->p.nodes || s < 0 || s >= pf->p.sockets)
    return -1;
  return n * pf->p.sockets + s;
}

static int full_link_index(int nodes, int a, int b)
{
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  /* pairs (a, b>a) numbered row by row */
  return a * nodes - a * (a + 1) / 2 + (b - a - 1);
}

int icsim_route_max_hops(const struct icsim_platform *pf)
{
  const struct icsim_platform_params *p = &pf->p;
  int between = 1; /* full: one direct link */
  switch (p->topology) {
  case ICSIM_TOPO_STAR: between = 3; break;
  case ICSIM_TOPO_RING: between = 2 * (p->nodes / 2); break; /* half way round: links and routers */
  case ICSIM_TOPO_TORUS3D: between = 2 * (pf->dims[0] / 2 + pf->dims[1] / 2 + pf->dims[2] / 2); break;
  case ICSIM_TOPO_FATTREE2: between = 7; break; /* node link, leaf, uplink, spine, uplink, leaf, node link */
  }
  return between > 3 ? between : 3; /* 3: two memory controllers and the inter-socket link */
}

int icsim_route(const struct icsim_platform *pf, int src_host, int dst_host, struct icsim_hop *hops, int cap)
{
  const struct icsim_platform_params *p = &pf->p;
  struct layout L = layout_of(pf);
  int n = 0;
  int sn = src_host / p->sockets, ss = src_host % p->sockets;
  int dn = dst_host / p->sockets, ds = dst_host % p->sockets;
#define HOP(l, u)                                                                                              \
  do {                                                                                                         \
    if (n == cap)                                                                                              \
      return -1;                                                                                               \
    hops[n].link = (l), hops[n].up = (u), n++;                                                                 \
  } while (0)
  if (sn == dn) {
    HOP(L.mem0 + src_host, 1);
    if (src_host != dst_host) {
      HOP(L.sock0 + sn, ss < ds);
      HOP(L.mem0 + dst_host, 1);
    }
    return n;
  }
  /* Between nodes the NIC's DMA also crosses the memory controllers, but at network rates
   * they are never the bottleneck; leaving them off keeps SimGrid's sharing system small.
   * Their contention is the numa stack's business (it sees node and socket of each end). */
  switch (p->topology) {
  case ICSIM_TOPO_STAR:
    HOP(L.net0 + sn, 1);
    HOP(L.sw0, 1);
    HOP(L.net0 + dn, 0);
    break;
  case ICSIM_TOPO_FULL:
    HOP(L.net0 + full_link_index(p->nodes, sn, dn), sn < dn);
    break;
  case ICSIM_TOPO_RING: {
    /* shortest way round; ties go forward. Link k joins node k and k+1. */
    int fwd = (dn - sn + p->nodes) % p->nodes;
    int step = fwd <= p->nodes - fwd ? 1 : -1;
    for (int at = sn; at != dn;) {
      int next = (at + step + p->nodes) % p->nodes;
      HOP(L.net0 + (step > 0 ? at : next), step > 0);
      if (next != dn)
        HOP(L.sw0 + next, 1);
      at = next;
    }
    break;
  }
  case ICSIM_TOPO_TORUS3D: {
    /* dimension-order routing x, y, z; shortest direction, ties go forward.
     * Link 3*k+d joins node k and its + neighbour in dimension d. */
    int c[3] = {sn % pf->dims[0], (sn / pf->dims[0]) % pf->dims[1], sn / (pf->dims[0] * pf->dims[1])};
    int t[3] = {dn % pf->dims[0], (dn / pf->dims[0]) % pf->dims[1], dn / (pf->dims[0] * pf->dims[1])};
    for (int d = 0; d < 3; d++) {
      int size = pf->dims[d];
      int fwd = (t[d] - c[d] + size) % size;
      int step = fwd <= size - fwd ? 1 : -1;
      while (c[d] != t[d]) {
        int at = c[0] + pf->dims[0] * (c[1] + pf->dims[1] * c[2]);
        c[d] = (c[d] + step + size) % size;
        int next = c[0] + pf->dims[0] * (c[1] + pf->dims[1] * c[2]);
        HOP(L.net0 + 3 * (step > 0 ? at : next) + d, step > 0);
        if (next != dn)
          HOP(L.sw0 + next, 1);
      }
    }
    break;
  }
  case ICSIM_TOPO_FATTREE2: {
    int sl = sn / p->leaf_size, dl = dn / p->leaf_size;
    int leaves = (p->nodes + p->leaf_size - 1) / p->leaf_size;
    HOP(L.net0 + sn, 1);
    HOP(L.sw0 + sl, 1);
    if (sl != dl) {
      int spine = dn % p->spines; /* destination-mod-k: deterministic, spreads destinations */
      HOP(L.extra0 + sl * p->spines + spine, 1);
      HOP(L.sw0 + leaves + spine, 1);
      HOP(L.extra0 + dl * p->spines + spine, 0);
      HOP(L.sw0 + dl, 1);
    }
    HOP(L.net0 + dn, 0);
    break;
  }
  }
#undef HOP
  return n;
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
    located(err, errlen, pf->path, e, msg);
  else
    snprintf(err, errlen, "%s: %s", pf->path, msg);
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
  long long links = link_total(p);
  if (links > ICSIM_MAX_LINKS) {
    struct icsim_platform_params q = *p;
    while (q.nodes > 1 && link_total(&q) > ICSIM_MAX_LINKS)
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
    snprintf(err, errlen, "%s:%d:%d: %s", pf->path, e->line, e->column, msg);
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
  const char *path = pf->path;
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
  if (icsim_yaml_load(path, &y, err, errlen)) {
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
  if (build_links(pf)) {
    snprintf(err, errlen, "%s: out of memory building %lld links", path, link_total(&pf->p));
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

/* A node or socket number: decimal digits only (no sign, no spaces), at most 9 of them.
 * Returns the end of the digits, or NULL. */
static const char *parse_index(const char *s, long *v)
{
  size_t n = strspn(s, "0123456789");
  if (n == 0 || n > 9)
    return NULL;
  *v = strtol(s, NULL, 10);
  return s + n;
}

/* "NxC": two such numbers around an 'x'. */
static int parse_shape(const char *spec, int *N, int *C)
{
  long n, c;
  const char *x = parse_index(spec, &n);
  if (!x || *x != 'x')
    return -1;
  const char *end = parse_index(x + 1, &c);
  if (!end || *end)
    return -1;
  *N = (int)n;
  *C = (int)c;
  return 0;
}

int icsim_place(const struct icsim_platform *pf, int nranks, const char *spec, int *rank_host, char *err,
                size_t errlen)
{
  const struct icsim_platform_params *p = &pf->p;
  int cores = p->sockets * p->cores_per_socket;
  long total = (long)p->nodes * cores;
  if (nranks < 1) {
    snprintf(err, errlen, "-n %d: need at least one rank", nranks);
    return -1;
  }
  int *node_of = malloc((size_t)nranks * sizeof *node_of);
  int *socket_of = malloc((size_t)nranks * sizeof *socket_of);
  for (int r = 0; r < nranks; r++)
    socket_of[r] = -1;
  int rc = -1, N, C;
  if (strcmp(spec, "block") == 0 || strcmp(spec, "cyclic") == 0) {
    if (nranks > total) {
      snprintf(err, errlen, "-n %d: the platform has %d nodes x %d cores = %ld cores; lower -n or use a bigger platform",
               nranks, p->nodes, cores, total);
      goto out;
    }
    for (int r = 0; r < nranks; r++)
      node_of[r] = spec[0] == 'b' ? r / cores : r % p->nodes;
  } else if (parse_shape(spec, &N, &C) == 0) {
    if (N < 1 || C < 1 || N > p->nodes || C > cores) {
      snprintf(err, errlen, "--place %s: the platform has %d nodes of %d cores; pick N <= %d and C <= %d", spec,
               p->nodes, cores, p->nodes, cores);
      goto out;
    }
    if ((long)N * C != nranks) {
      snprintf(err, errlen, "--place %s places %ld ranks but -n is %d; make N x C equal -n", spec, (long)N * C, nranks);
      goto out;
    }
    for (int r = 0; r < nranks; r++)
      node_of[r] = r / C;
  } else if (icsim_placement_is_file(spec)) {
    /* an SMPO-style configuration file (rank, device name, module): read as the list it holds */
    char *list = NULL;
    if (icsim_placement_file_read(spec, pf, nranks, &list, err, errlen) == 0 && !icsim_placement_is_file(list))
      rc = icsim_place(pf, nranks, list, rank_host, err, errlen);
    free(list);
    goto out;
  } else {
    /* explicit list, one entry per rank: a node ("3", cores filled socket by socket) or a
     * node and socket ("3.1", pinned to that socket, like numactl --cpunodebind); numbers are
     * plain decimal digits, entries separated by single commas */
    const char *s = spec;
    int r = 0;
    for (;;) {
      long v, sock = -1;
      const char *end = parse_index(s, &v);
      if (end && *end == '.')
        end = parse_index(end + 1, &sock);
      if (!end || (*end && *end != ',') || (*end == ',' && !end[1])) {
        snprintf(err, errlen,
                 "--place '%s': write block, cyclic, NxC (e.g. 2x4) or one node (or node.socket) per rank, "
                 "separated by commas (e.g. 0,0,1,1 or 0.0,0.1)",
                 spec);
        goto out;
      }
      if (v >= p->nodes) {
        snprintf(err, errlen, "--place: node %ld does not exist (nodes are 0..%d)", v, p->nodes - 1);
        goto out;
      }
      if (sock >= p->sockets) {
        snprintf(err, errlen, "--place: socket %ld does not exist (sockets are 0..%d)", sock, p->sockets - 1);
        goto out;
      }
      if (r < nranks) {
        node_of[r] = (int)v;
        socket_of[r] = (int)sock;
      }
      r++;
      if (!*end)
        break;
      s = end + 1;
    }
    if (r != nranks) {
      snprintf(err, errlen, "--place lists %d ranks but -n is %d; give one node per rank", r, nranks);
      goto out;
    }
  }
  /* Unpinned ranks fill cores socket by socket in rank order (compact binding, like numactl
   * --physcpubind); pinned ones take a core of their socket. */
  int *used = calloc((size_t)p->nodes * (size_t)p->sockets, sizeof *used);
  for (int r = 0; r < nranks; r++) {
    int n = node_of[r], sock = socket_of[r];
    if (sock < 0)
      for (sock = 0; sock < p->sockets - 1 && used[n * p->sockets + sock] >= p->cores_per_socket; sock++)
        ;
    if (used[n * p->sockets + sock] >= p->cores_per_socket) {
      snprintf(err, errlen, "--place %s puts more ranks on node %d%s than it has cores (%d per socket, %d sockets)",
               spec, n, socket_of[r] >= 0 ? " socket" : "", p->cores_per_socket, p->sockets);
      free(used);
      goto out;
    }
    rank_host[r] = n * p->sockets + sock;
    used[n * p->sockets + sock]++;
  }
  free(used);
  rc = 0;
out:
  free(node_of);
  free(socket_of);
  return rc;
}
