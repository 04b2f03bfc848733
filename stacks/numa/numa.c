/* numa stack: non-linear sharing of node-internal channels (see numa.h). */
#include "numa.h"

#include <stdint.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cache_lru.h"
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
    {"numa/core-copies", ICSIM_P_BOOL, 0, 0, 0, "false", "assumed",
     "a transfer inside a node is a copy made by one core (the receiver's: CMA process_vm_readv, Open MPI vader "
     "single copy), and a core makes its copies one after another: a memory controller or socket link serves as "
     "many copies at once as there are cores copying, however many transfers are in flight; false = every "
     "transfer in flight is a copy of its own", NULL, F(core_copies)},
    {"numa/cache-recency", ICSIM_P_BOOL, 0, 0, 0, "false", "assumed",
     "a copy's cache share comes from the buffers the node's transfers touched: its source and destination come "
     "back at their stack distance (the distinct bytes the socket's copies swept since they were last copied, "
     "Mattson et al. 1970, kept per socket at buffer granularity), which takes the place of the copies in "
     "flight's working set in the cache share; false = the copies in flight decide (k working sets of 2m)", NULL, F(cache_recency)},
};

/* The copies a core has in flight on the node's channels: per channel (a link, and its direction on
 * a split-duplex one), how many of this core's transfers use it. A route inside a node has at most
 * a memory link, the socket link and another memory link. */
#define NUMA_CORE_CHANNELS 4
struct core_channels {
  int n;
  int key[NUMA_CORE_CHANNELS];
  int count[NUMA_CORE_CHANNELS];
};

struct numa_state {
  struct numa_params p;
  const struct icsim_platform *pf;
  struct core_channels *core; /* per rank (numa/core-copies), grown on demand */
  int ncore;
  int *cores;      /* per channel key: cores with at least one copy on it */
  int *copies;     /* per channel key: transfers counted on it */
  double core_limited_solves; /* solver evaluations in which cores, not transfers, were counted */
  double *msg_B;  /* per link: size of the last copy started on it */
  bool *crossing; /* per memory link: the last copy started on it crossed the sockets */
  bool *adapter;  /* per link: it is a node's whole network adapter */
  struct numa_lru *lru; /* per link: a memory link's socket cache, the ranges touched (numa/cache-recency) */
  double *resident;     /* per memory link: the share of the last copy started on it found in the cache;
                         * negative: its buffers are not known, the copies in flight decide */
};

double numa_memory_capacity(const struct numa_params *p, double B, double n, double m)
{
  return numa_memory_capacity_resident(p, B, n, numa_cache_share(p, 2 * m * (n < 0.5 ? 0.5 : n)));
}

double numa_cache_share(const struct numa_params *p, double ws)
{
  return ws <= p->cache_B ? 1 : pow(p->cache_B / ws, 3);
}

/* numa_lru_share over the numa model's cache */
static double lru_share(const void *ctx, double dist) { return numa_cache_share(ctx, dist); }

double numa_memory_capacity_resident(const struct numa_params *p, double B, double n, double h)
{
  if (n < 0.5)
    n = 0.5;
  double demand = 2 * n * p->stream_bw_Bps;
  /* in units of B, so that large exponents do not underflow */
  double bus = B * pow(pow(demand / B, -p->sharpness) + 1, -1 / p->sharpness);
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

double numa_copies_at_once(int n, int cores, int counted)
{
  int others = n > counted ? n - counted : 0; /* transfers nobody told of: a copy each */
  int k = cores + others;
  if (k > n)
    k = n;
  return k < 1 ? (n < 1 ? n : 1) : k;
}

/* The channel key of hop H: its link, and on a split-duplex link its direction (each direction is
 * a channel of its own in SimGrid's sharing). */
static int channel_key(const struct icsim_platform *pf, const struct icsim_hop *h)
{
  return 2 * h->link + (pf->links[h->link].sharing == ICSIM_SPLITDUPLEX ? h->up : 1);
}

/* Rank RANK's core starts (DELTA 1) or ends (DELTA -1) a copy on the node's channels of the route
 * from host SRC to host DST: what numa_channel_capacity counts as copies at once. */
static void core_copy(struct numa_state *s, int rank, int src, int dst, int delta)
{
  /* the per-rank table grows with the ranks that receive inside a node, the same in every run of the
   * same inputs whatever the output options; the route goes to a static buffer, as in numa_alone_s */
  static struct icsim_hop hops[64];
  if (rank < 0)
    return;
  if (rank >= s->ncore) {
    int n = rank + 1 > 2 * s->ncore ? rank + 1 : 2 * s->ncore;
    struct core_channels *c = realloc(s->core, (size_t)n * sizeof *c);
    if (!c)
      return; /* out of memory: the copy counts as a core of its own (numa_copies_at_once) */
    for (int i = s->ncore; i < n; i++)
      c[i] = (struct core_channels){0};
    s->core = c;
    s->ncore = n;
  }
  struct core_channels *c = &s->core[rank];
  int n = icsim_route(s->pf, src, dst, hops, 64);
  for (int k = 0; k < n; k++) {
    enum icsim_link_kind kind = s->pf->links[hops[k].link].kind;
    if (kind != ICSIM_LINK_MEMORY && kind != ICSIM_LINK_SOCKET)
      continue;
    int key = channel_key(s->pf, &hops[k]), seen = 0;
    for (int j = 0; j < k; j++) /* a channel twice on one route is still one copy on it */
      seen |= channel_key(s->pf, &hops[j]) == key;
    if (seen)
      continue;
    int i = 0;
    while (i < c->n && c->key[i] != key)
      i++;
    if (delta > 0) {
      if (i == c->n) {
        if (c->n == NUMA_CORE_CHANNELS)
          continue; /* not expected inside a node; the copy then counts as a core of its own */
        c->key[c->n] = key;
        c->count[c->n++] = 0;
        s->cores[key]++;
      }
      c->count[i]++;
      s->copies[key]++;
    } else if (i < c->n) {
      s->copies[key]--;
      if (--c->count[i] == 0) {
        s->cores[key]--;
        c->n--;
        c->key[i] = c->key[c->n];
        c->count[i] = c->count[c->n];
      }
    }
  }
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
  s->cores = calloc(2 * (size_t)pf->nlinks, sizeof *s->cores);
  s->copies = calloc(2 * (size_t)pf->nlinks, sizeof *s->copies);
  s->lru = calloc((size_t)pf->nlinks, sizeof *s->lru);
  s->resident = calloc((size_t)pf->nlinks, sizeof *s->resident);
  for (int i = 0; i < pf->nlinks; i++) {
    numa_lru_init(&s->lru[i]);
    s->resident[i] = -1;
  }
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
  free(s->cores);
  free(s->copies);
  free(s->core);
  for (int i = 0; i < s->pf->nlinks; i++)
    numa_lru_free(&s->lru[i]);
  free(s->lru);
  free(s->resident);
  free(s);
}

static double numa_channel_capacity(void *state, const struct icsim_link *link, int up, double nominal, int n)
{
  struct numa_state *s = state;
  if (!link)
    return 0; /* shapes this platform's node channels */
  long i = link - s->pf->links;
  if (s->adapter[i])
    return numa_adapter_capacity(&s->p, nominal, n);
  if (link->kind != ICSIM_LINK_SOCKET && link->kind != ICSIM_LINK_MEMORY)
    return -1;
  /* memory controllers and QPI serve both directions alike; a split-duplex link's directions
   * carry different copies, though (numa/core-copies) */
  double k = n;
  if (s->p.core_copies) {
    int key = 2 * (int)i + (link->sharing == ICSIM_SPLITDUPLEX ? up : 1);
    k = numa_copies_at_once(n, s->cores[key], s->copies[key]);
    if (k < n)
      s->core_limited_solves++;
  }
  if (link->kind == ICSIM_LINK_SOCKET)
    return numa_socket_link_capacity(&s->p, nominal, (int)k);
  if (s->crossing[i]) /* half a copy each, never from the cache: in units of copies */
    return 2 * numa_memory_capacity(&s->p, nominal, k / 2.0, INFINITY);
  if (s->p.cache_recency && s->resident[i] >= 0)
    return numa_memory_capacity_resident(&s->p, nominal, k, s->resident[i]);
  return numa_memory_capacity(&s->p, nominal, k, s->msg_B[i]);
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

/* numa/cache-recency: the copy of Q from memory link A's socket to B's is made by B's core (the
 * receiver's); its source and destination buffers, as far as the socket's cache still holds them,
 * come from the cache. Their resident share is what the memory link's copies get; then both are the
 * cache's most recent ranges. A copy between the sockets gets no cache share (numa_channel_capacity)
 * but still leaves both buffers in the copying core's cache. A transfer whose buffers are not known
 * (SMPI's own, one-sided) leaves the copies in flight to decide. */
static void cache_recency(struct numa_state *s, const struct icsim_wire_query *q, int a, int b)
{
  const struct icsim_msg *m = q->msg;
  if (!m || !m->buf || !m->recv_buf || q->bytes <= 0) {
    s->resident[a] = s->resident[b] = -1;
    return;
  }
  uintptr_t src = (uintptr_t)m->buf, dst = (uintptr_t)m->recv_buf, len = (uintptr_t)q->bytes;
  struct numa_lru *l = &s->lru[b];
  if (a == b) {
    double in_src, in_dst;
    numa_lru_copy_resident(l, m->src_rank, src, src + len, m->dst_rank, dst, dst + len, lru_share, &s->p, &in_src,
                           &in_dst);
    s->resident[b] = (in_src + in_dst) / (2 * q->bytes);
  }
  numa_lru_copy_touch(l, m->src_rank, src, src + len, m->dst_rank, dst, dst + len);
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
    if (s->p.cache_recency)
      cache_recency(s, q, a, b);
    /* the receiver's core makes the copy (transfer_done ends it: ids only, SMPI's own have no end
     * report) */
    if (s->p.core_copies && q->id && q->msg)
      core_copy(s, q->msg->dst_rank, icsim_host_of(s->pf, q->src_node, q->src_socket),
                icsim_host_of(s->pf, q->dst_node, q->dst_socket), 1);
  }
  double alone = q->id ? numa_alone_s(s, q, c) : -1;
  if (alone > 0)
    icsim_wire_set_alone(c, "channel shares", alone);
}

static void numa_transfer_done(void *state, const struct icsim_transfer *t, double now)
{
  (void)now;
  struct numa_state *s = state;
  if (s->p.core_copies && t->msg.src_node == t->msg.dst_node)
    core_copy(s, t->msg.dst_rank, t->src_host, t->dst_host, -1);
}

static size_t numa_counters(void *state, struct icsim_counter *out, size_t max)
{
  struct numa_state *s = state;
  struct icsim_counter c[] = {{"core_limited_solves", "solver evaluations", s->core_limited_solves}};
  return icsim_counters_out(out, max, c, sizeof c / sizeof c[0]);
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
    .transfer_done = numa_transfer_done,
    .counters = numa_counters,
};

ICSIM_REGISTER_STACK(numa_stack)
