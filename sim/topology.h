/* Topology of a simulated machine (topology.c): one SimGrid host per socket ("node3.s1"), the
 * links (memory controllers, the link between sockets, network links and switches per
 * network/topology) and the route between any two hosts, over one implicit link numbering.
 * Included by platform.h, where struct icsim_platform is. */
#ifndef ICSIM_TOPOLOGY_H
#define ICSIM_TOPOLOGY_H

#include <stddef.h>

struct icsim_platform;
struct icsim_platform_params;

enum icsim_topology { ICSIM_TOPO_STAR, ICSIM_TOPO_FULL, ICSIM_TOPO_RING, ICSIM_TOPO_TORUS3D, ICSIM_TOPO_FATTREE2 };

enum icsim_link_kind { ICSIM_LINK_MEMORY, ICSIM_LINK_SOCKET, ICSIM_LINK_NETWORK, ICSIM_LINK_SWITCH };
enum icsim_sharing { ICSIM_SHARED, ICSIM_SPLITDUPLEX, ICSIM_FATPIPE };

struct icsim_link {
  char name[40];
  enum icsim_link_kind kind;
  enum icsim_sharing sharing;
  double bw_Bps, lat_s;
};

struct icsim_hop {
  int link;
  int up; /* direction on a split-duplex link: 1 up, 0 down */
};

int icsim_platform_hosts(const struct icsim_platform *pf);
void icsim_host_name(const struct icsim_platform *pf, int host, char *buf, size_t len);
/* Host index from a host name, -1 if not ours. */
int icsim_host_index(const struct icsim_platform *pf, const char *name);
/* Index in pf->links of HOST's memory-controller link. */
int icsim_memory_link(const struct icsim_platform *pf, int host);
/* Index in pf->links of NODE's network adapter when one link is the whole adapter (star and
 * fat tree: node <-> its switch); -1 where a node has several network links (ring, torus, full). */
int icsim_adapter_link(const struct icsim_platform *pf, int node);
/* Route between two hosts as hops into pf->links: writes at most CAP hops and returns their
 * count, or -1 if the route has more than CAP (icsim_route_max_hops() is always enough). */
int icsim_route(const struct icsim_platform *pf, int src_host, int dst_host, struct icsim_hop *hops, int cap);
/* The longest route of PF, in hops (ring and torus routes grow with the node count). */
int icsim_route_max_hops(const struct icsim_platform *pf);

/* For the loader (platform.c): how many links P's machine has (counted without overflow, so that
 * the size limits are checked before anything is built), and building them into pf->links.
 * icsim_topology_build returns 0, or -1 when out of memory. */
long long icsim_topology_link_count(const struct icsim_platform_params *p);
int icsim_topology_build(struct icsim_platform *pf);

#endif
