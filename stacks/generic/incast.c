/* Output ports that drop what overflows their buffer: which transfers overflow (see incast.h). */
#include "incast.h"

#include <stdlib.h>

int incast_ports_init(struct incast_ports *ip, int nodes)
{
  *ip = (struct incast_ports){.nodes = nodes};
  ip->inflight_B = calloc((size_t)nodes, sizeof *ip->inflight_B);
  ip->feeding = calloc((size_t)nodes, sizeof *ip->feeding);
  return ip->inflight_B && ip->feeding ? 0 : -1;
}

void incast_ports_free(struct incast_ports *ip)
{
  free(ip->inflight_B);
  free(ip->feeding);
  free(ip->flow);
  *ip = (struct incast_ports){0};
}

int incast_transfer_start(struct incast_ports *ip, uint64_t id, int dst, double inflight_B, double capacity_B)
{
  if (!ip->inflight_B || dst < 0 || dst >= ip->nodes)
    return 0;
  if (ip->n == ip->cap) {
    int cap = ip->cap ? 2 * ip->cap : 16;
    struct incast_flow *f = realloc(ip->flow, (size_t)cap * sizeof *f);
    if (!f)
      return 0;
    ip->flow = f;
    ip->cap = cap;
  }
  /* Alone on the port nothing queues; with others, the port holds capacity_B of all windows. */
  int overflow = ip->feeding[dst] > 0 && ip->inflight_B[dst] + inflight_B > capacity_B;
  ip->flow[ip->n++] = (struct incast_flow){id, dst, inflight_B};
  ip->inflight_B[dst] += inflight_B;
  ip->feeding[dst]++;
  return overflow;
}

void incast_transfer_end(struct incast_ports *ip, uint64_t id)
{
  for (int i = 0; i < ip->n; i++)
    if (ip->flow[i].id == id) {
      struct incast_flow *f = &ip->flow[i];
      ip->inflight_B[f->dst] -= f->inflight_B;
      if (--ip->feeding[f->dst] == 0)
        ip->inflight_B[f->dst] = 0; /* no rounding residue on an idle port */
      ip->flow[i] = ip->flow[--ip->n]; /* order does not matter */
      return;
    }
}
