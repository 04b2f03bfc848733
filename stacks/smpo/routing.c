/* Routing between modules. Each rank's physical module comes from the rank -> physical-module
 * table (the placement: `icsim run --place`, or an SMPO configuration file); two ranks of one
 * module exchange through shared memory, decided by comparing their module numbers; between
 * modules every packet carries a routing header (destination module, transit count) and crosses
 * the module network, whose topology is the platform's. On a direct network (ring, torus, a link
 * per pair) a packet between non-neighbouring modules passes through the adapters of the modules
 * between them: those are the transit hops. Behind a switch (star, fat tree) there are none. */
#include <math.h>
#include <stdlib.h>

#include "platform.h"
#include "smpo.h"

int smpo_routes_init(struct smpo_routes *r, const struct icsim_platform *pf)
{
  int m = pf->p.nodes;
  r->modules = m;
  r->transit = calloc((size_t)m * (size_t)m, sizeof *r->transit);
  int direct = pf->p.topology == ICSIM_TOPO_RING || pf->p.topology == ICSIM_TOPO_TORUS3D ||
               pf->p.topology == ICSIM_TOPO_FULL;
  if (!direct || !pf->links)
    return 0;
  int cap = icsim_route_max_hops(pf);
  struct icsim_hop *hops = calloc((size_t)cap, sizeof *hops);
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      if (a == b)
        continue;
      int n = icsim_route(pf, icsim_host_of(pf, a, 0), icsim_host_of(pf, b, 0), hops, cap), t = 0;
      for (int k = 0; k < n; k++)
        t += pf->links[hops[k].link].kind == ICSIM_LINK_SWITCH; /* the router of a module in between */
      r->transit[a * m + b] = t;
    }
  free(hops);
  return 0;
}

void smpo_routes_free(struct smpo_routes *r)
{
  free(r->transit);
  r->transit = NULL;
}

int smpo_transit_hops(const struct smpo_routes *r, int src_module, int dst_module)
{
  if (src_module < 0 || dst_module < 0 || src_module >= r->modules || dst_module >= r->modules)
    return 0;
  return r->transit[src_module * r->modules + dst_module];
}

void smpo_routing_header(const struct smpo_routes *r, int src_module, int dst_module, struct smpo_header *h)
{
  h->dst_module = (uint32_t)dst_module;
  h->transit = (uint32_t)smpo_transit_hops(r, src_module, dst_module);
}

/* Of smpo_stream_s: the store and forward at the transit modules (the largest packet, once per
 * transit module). */
double smpo_transit_s(const struct smpo_params *p, const double *data_B, int nmsg, int transit, double bw_Bps)
{
  double largest = 0, hdr = smpo_header_bytes(p), d = smpo_packet_data_bytes(p);
  for (int i = 0; i < nmsg; i++)
    largest = fmax(largest, hdr + fmin(d, data_B[i]));
  return transit * largest / bw_Bps;
}

double smpo_stream_s(const struct smpo_params *p, const double *data_B, int nmsg, int transit, double route_lat_s,
                     double bw_Bps)
{
  double bytes = 0, largest = 0, hdr = smpo_header_bytes(p), d = smpo_packet_data_bytes(p);
  for (int i = 0; i < nmsg; i++) {
    bytes += smpo_wire_bytes(p, data_B[i]);
    largest = fmax(largest, hdr + fmin(d, data_B[i]));
  }
  /* Store and forward, packets back to back: the last byte is in after every packet has crossed
   * the first link and the largest one has been stored and forwarded at each transit module
   * (the longest path through the packets x links grid). */
  return route_lat_s + nmsg * p->adapter_latency_s + (bytes + transit * largest) / bw_Bps;
}
