/* Output ports under 802.3x PAUSE: who sends where, and the head-of-line blocking it causes
 * (see pause.h). */
#include "pause.h"

#include <stdlib.h>

double pause_hol_throughput(int k)
{
  /* Karol, Hluchyj, Morgan 1987, Table I: N = 1..8 */
  static const double table[] = {1.0, 1.0, 0.75, 0.6825, 0.6553, 0.6399, 0.6302, 0.6234, 0.6184};
  if (k <= 1)
    return 1.0;
  if (k <= 8)
    return table[k];
  return 0.5858 + (0.6184 - 0.5858) * 8.0 / k;
}

int pause_ports_init(struct pause_ports *pp, int nodes)
{
  pp->nodes = nodes;
  pp->out = calloc((size_t)nodes, sizeof *pp->out);
  pp->in = calloc((size_t)nodes, sizeof *pp->in);
  return pp->out && pp->in ? 0 : -1;
}

static void list_free(struct peer_list *l, int n)
{
  for (int i = 0; l && i < n; i++) {
    free(l[i].peer);
    free(l[i].count);
  }
  free(l);
}

void pause_ports_free(struct pause_ports *pp)
{
  list_free(pp->out, pp->nodes);
  list_free(pp->in, pp->nodes);
  pp->out = pp->in = NULL;
}

static void list_add(struct peer_list *l, int peer)
{
  for (int i = 0; i < l->n; i++)
    if (l->peer[i] == peer) {
      l->count[i]++;
      return;
    }
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4;
    l->peer = realloc(l->peer, (size_t)l->cap * sizeof *l->peer);
    l->count = realloc(l->count, (size_t)l->cap * sizeof *l->count);
  }
  l->peer[l->n] = peer;
  l->count[l->n++] = 1;
}

static void list_del(struct peer_list *l, int peer)
{
  for (int i = 0; i < l->n; i++)
    if (l->peer[i] == peer) {
      if (--l->count[i] == 0) { /* order does not matter: move the last entry here */
        l->n--;
        l->peer[i] = l->peer[l->n];
        l->count[i] = l->count[l->n];
      }
      return;
    }
}

static int valid(const struct pause_ports *pp, int src, int dst)
{
  return src >= 0 && dst >= 0 && src < pp->nodes && dst < pp->nodes && src != dst && pp->out;
}

void pause_transfer_start(struct pause_ports *pp, int src, int dst)
{
  if (!valid(pp, src, dst))
    return;
  list_add(&pp->out[src], dst);
  list_add(&pp->in[dst], src);
}

void pause_transfer_end(struct pause_ports *pp, int src, int dst)
{
  if (!valid(pp, src, dst))
    return;
  list_del(&pp->out[src], dst);
  list_del(&pp->in[dst], src);
}

int pause_contending_sources(const struct pause_ports *pp, int dst)
{
  if (!pp->in || dst < 0 || dst >= pp->nodes)
    return 0;
  int k = 0;
  const struct peer_list *in = &pp->in[dst];
  for (int i = 0; i < in->n; i++)
    k += pp->out[in->peer[i]].n >= 2;
  return k;
}
