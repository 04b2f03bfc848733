/* Topology: the platform's SimGrid hosts (one per socket), its links and the routes between hosts.
 * Links are numbered implicitly by group (memory controllers, socket links, network links, switches,
 * fat-tree uplinks); building them and routing over them share that one numbering (layout_of). */
#include "topology.h"

#include <stdio.h>
#include <stdlib.h>

#include "platform.h"

#define BIG 1e18

/* pf->links was allocated for exactly the links layout_of() counts (icsim_topology_link_count()). */
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
long long icsim_topology_link_count(const struct icsim_platform_params *p)
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

int icsim_topology_build(struct icsim_platform *pf)
{
  const struct icsim_platform_params *p = &pf->p;
  char name[40];
  pf->links = malloc((size_t)icsim_topology_link_count(p) * sizeof *pf->links);
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
  return icsim_host_of(pf, n, s);
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
   * Their contention is a node layer's business (it sees node and socket of each end). */
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
