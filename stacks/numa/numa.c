/* numa stack: non-linear sharing of node-internal channels (see numa.h). */
#include "numa.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "platform.h"
#include "topology.h"

#define F(field) offsetof(struct numa_params, field)

static const struct icsim_param_desc numa_params_table[] = {
    {"numa/stream-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 1e6, 1e13, "5GBps", "assumed",
     "one core's copy rate through the memory controller (it moves twice that on the bus)", NULL,
     F(stream_bw_Bps)},
    {"numa/sharpness", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 1, 64, "2", "assumed",
     "how sharply the memory controller saturates (smooth-minimum exponent p)", NULL, F(sharpness)},
    {"numa/cache-bytes", ICSIM_P_QUANTITY, ICSIM_DIM_SIZE, 0, 1e12, "8MiB", "assumed",
     "last-level cache of one socket", NULL, F(cache_B)},
    {"numa/cache-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 1e6, 1e13, "15GBps", "assumed",
     "one core's copy rate when source and destination stay in the cache", NULL, F(cache_bw_Bps)},
    {"numa/qpi-stream-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e13, "0Bps", "assumed",
     "rate of one of several interleaved streams across the socket link (0: plain fair sharing)", NULL,
     F(qpi_stream_Bps)},
    {"numa/qpi-sharpness", ICSIM_P_QUANTITY, ICSIM_DIM_NONE, 1, 64, "4", "assumed",
     "how sharply the socket link saturates once streams interleave (smooth-minimum exponent)", NULL,
     F(qpi_sharpness)},
    {"numa/adapter-stream-bandwidth", ICSIM_P_QUANTITY, ICSIM_DIM_BANDWIDTH, 0, 1e13, "0Bps", "assumed",
     "link rate one connection through the node's network adapter reaches, headers included (0: it fills the link)",
     NULL, F(adapter_stream_Bps)},
};

struct numa_state {
  struct numa_params p;
  const struct icsim_platform *pf;
  double *msg_B;  /* per link: size of the last copy started on it */
  bool *crossing; /* per memory link: the last copy started on it crossed the sockets */
  bool *adapter;  /* per link: it is a node's whole network adapter */
};

double numa_memory_capacity(const struct numa_params *p, double B, double n, double m)
{
  if (n < 0.5)
    n = 0.5;
  double demand = 2 * n * p->stream_bw_Bps;
  /* in units of B, so that large exponents do not underflow */
  double bus = B * pow(pow(demand / B, -p->sharpness) + 1, -1 / p->sharpness);
  double ws = 2 * m * n;
  double h = ws <= p->cache_B ? 1 : pow(p->cache_B / ws, 3);
  double per_copy = 1 / (h / p->cache_bw_Bps + (1 - h) * 2 * n / bus);
  return n * per_copy;
}

double numa_socket_link_capacity(const struct numa_params *p, double C, int n)
{
  if (p->qpi_stream_Bps <= 0)
    return -1;
  if (n <= 1)
    return C;
  double q = p->qpi_sharpness;
  return C * pow(pow(n * p->qpi_stream_Bps / C, -q) + 1, -1 / q);
}

double numa_adapter_capacity(const struct numa_params *p, double C, int n)
{
  if (p->adapter_stream_Bps <= 0)
    return -1;
  double streams = (n < 1 ? 1 : n) * p->adapter_stream_Bps;
  return streams < C ? streams : C;
}

static int numa_create(void **state, const struct icsim_params *ps, const struct icsim_platform *pf, char *err,
                       size_t errlen)
{
  (void)err;
  (void)errlen;
  struct numa_state *s = calloc(1, sizeof *s);
  icsim_params_fill(ps, numa_params_table, sizeof numa_params_table / sizeof numa_params_table[0], &s->p);
  s->pf = pf;
  s->msg_B = calloc((size_t)pf->nlinks, sizeof *s->msg_B);
  s->crossing = calloc((size_t)pf->nlinks, sizeof *s->crossing);
  s->adapter = calloc((size_t)pf->nlinks, sizeof *s->adapter);
  for (int n = 0; n < pf->p.nodes; n++)
    if (icsim_adapter_link(pf, n) >= 0)
      s->adapter[icsim_adapter_link(pf, n)] = true;
  *state = s;
  return 0;
}

static void numa_destroy(void *state)
{
  struct numa_state *s = state;
  free(s->msg_B);
  free(s->crossing);
  free(s->adapter);
  free(s);
}

static double numa_channel_capacity(void *state, const struct icsim_link *link, int up, double nominal, int n)
{
  (void)up; /* memory controllers, QPI and the adapter serve both directions alike */
  struct numa_state *s = state;
  if (!link)
    return 0; /* shapes this platform's node channels */
  if (link->kind == ICSIM_LINK_SOCKET)
    return numa_socket_link_capacity(&s->p, nominal, n);
  long i = link - s->pf->links;
  if (s->adapter[i])
    return numa_adapter_capacity(&s->p, nominal, n);
  if (link->kind != ICSIM_LINK_MEMORY)
    return -1;
  if (s->crossing[i]) /* half a copy each, never from the cache: in units of transfers */
    return 2 * numa_memory_capacity(&s->p, nominal, n / 2.0, INFINITY);
  return numa_memory_capacity(&s->p, nominal, n, s->msg_B[i]);
}

/* How long transfer Q would take if no other transfer shared its route, C being what the layers
 * above made of it: its latency, then its bytes at the rate SimGrid would give it alone. SimGrid
 * (3.32, CM02) applies a transfer's bandwidth factor (the layers' bandwidth over the route's) as
 * the link capacity each byte consumes, so alone it flows at that factor times the lowest capacity
 * its links give one transfer: this layer's channels as they serve one copy or stream, the others
 * their bandwidth as built (a memory controller's is the cache's peak). Switches are no link of
 * SimGrid's routes (sim/adapter.cpp). Another layer's limit on one flow (generic's
 * single-copy-bandwidth, unset on the numa platforms) is not seen here: under it, its slowdown
 * would count as a share. Negative when the route is too long for the buffer. */
static double numa_alone_s(struct numa_state *s, const struct icsim_wire_query *q, const struct icsim_wire_cost *c)
{
  static struct icsim_hop hops[64]; /* not the heap: what the heap holds must not change */
  const struct icsim_platform *pf = s->pf;
  int n = icsim_route(pf, icsim_host_of(pf, q->src_node, q->src_socket), icsim_host_of(pf, q->dst_node, q->dst_socket),
                      hops, 64);
  if (n <= 0)
    return -1;
  double one = INFINITY;
  for (int k = 0; k < n; k++) {
    const struct icsim_link *l = &pf->links[hops[k].link];
    if (l->kind == ICSIM_LINK_SWITCH)
      continue;
    double peak = l->kind == ICSIM_LINK_MEMORY ? fmax(l->bw_Bps, s->p.cache_bw_Bps) : l->bw_Bps;
    double v = l->sharing == ICSIM_FATPIPE ? -1 : numa_channel_capacity(s, l, hops[k].up, l->bw_Bps, 1);
    one = fmin(one, v < 0 ? peak : v);
  }
  double rate = c->bandwidth_Bps / q->route_bandwidth_Bps * one;
  return rate > 0 && isfinite(rate) ? c->latency_s + (q->bytes + q->envelope_bytes) / rate : -1;
}

/* Intra-node copies tell their memory controllers how big the copies are (the cache share
 * depends on it) and whether they cross the sockets; the costs themselves come from the
 * channels' capacity. The controller's sharing assumes the copies on it are alike: exact for
 * the contention benchmark, an approximation for mixed traffic. What a transfer loses to sharing
 * its channels with others (the contention the paper measures) is told at its end: its time
 * beyond its time alone is its phase "channel shares". */
static void numa_wire(void *state, const struct icsim_wire_query *q, struct icsim_wire_cost *c)
{
  struct numa_state *s = state;
  if (q->src_node == q->dst_node) {
    int a = icsim_memory_link(s->pf, icsim_host_of(s->pf, q->src_node, q->src_socket));
    int b = icsim_memory_link(s->pf, icsim_host_of(s->pf, q->dst_node, q->dst_socket));
    s->msg_B[a] = s->msg_B[b] = q->bytes;
    s->crossing[a] = s->crossing[b] = a != b;
  }
  double alone = q->id ? numa_alone_s(s, q, c) : -1;
  if (alone > 0)
    icsim_wire_set_alone(c, "channel shares", alone);
}

/* A copy that stays in the cache runs faster than the controller's nominal bandwidth. */
static double numa_channel_peak(void *state, const struct icsim_link *link)
{
  struct numa_state *s = state;
  return link->kind == ICSIM_LINK_MEMORY ? s->p.cache_bw_Bps : -1;
}

const struct icsim_stack_ops numa_stack = {
    .name = "numa",
    .summary = "node-internal contention: memory controllers with cache effects, QPI stream interleaving, the shared network adapter (composes with a network stack)",
    .params = numa_params_table,
    .nparams = sizeof numa_params_table / sizeof numa_params_table[0],
    .role = ICSIM_ROLE_NODE,
    .wire_mode = ICSIM_WIRE_SHARING,
    .create = numa_create,
    .destroy = numa_destroy,
    .wire = numa_wire,
    .channel_capacity = numa_channel_capacity,
    .channel_peak = numa_channel_peak,
};

ICSIM_REGISTER_STACK(numa_stack)
