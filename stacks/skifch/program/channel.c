/* The SkifCh library linked into programs (icsimcc): channels, their receive rings, the senders'
 * credits and adapters, on SimGrid mailboxes so that every message crosses the simulated torus
 * and pays the skifch model (host CPU through the stack's send/recv hooks, the wire through its
 * wire hook, joined to the transfer by the usual announcement).
 *
 * All ranks run in one process (SMPI): the registry of channels is a plain global, and what a
 * sender may know of a receiver goes through the credit account (skifch_credits), which delays
 * freed space by skifch/credit-latency. Each channel's mailbox has the channel's owner as
 * permanent receiver, so a message flows when it is sent (the adapter writes into the ring
 * without the receiver's help) and arrives in the order it was sent: one sender's order holds. */
#include <errno.h>
#include <mpi.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/cond.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>
#include <simgrid/mutex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../sim/mpi/layer.h"
#include "skifch.h"
#include "skifch_model.h"

/* SMPI's envelope, which the wire side takes off every transfer's size (sim/adapter.cpp). */
#define ENVELOPE_B 16

/* The data of a message in flight. SimGrid moves only its size: the data waits in the channel's
 * inbox, in sending order, which is also the order the mailbox delivers in (a permanent
 * receiver's mailbox does not hand data over when the transfer ended before the receive). */
struct packet {
  struct packet *next;
  int src;
  size_t len;
  char data[];
};

struct placed {
  int src;
  size_t len;
  int npieces;
  struct skifch_piece pc[SKIFCH_MAX_PIECES];
};

struct SkifCh {
  netaddr_t addr;
  struct skifch_ring ring;
  char **pages;
  struct skifch_credits credits; /* what the senders' adapters know of this ring */
  char mbname[48];
  sg_mailbox_t mb;
  sg_comm_t get; /* the oldest arrival being taken */
  int get_done;  /* ... and already finished (a spinning receive waited for it) */
  sg_cond_t sent;  /* notified by every send here: a spinning receive with nothing on its way waits on it */
  sg_cond_t freed; /* notified by every RecvComp here, and every message Recv hands out (it may be the one
                    * that leaves the ring held by forgotten completions): refused senders wait on it */
  sg_mutex_t lock;
  void *got;
  struct packet *inbox, **inbox_tail; /* data of the messages sent here and not yet placed */
  struct placed *q; /* messages in the ring, oldest first: [first, returned) handed out */
  size_t first, returned, n, cap;
  size_t held_returned; /* bytes of messages handed out and not completed */
};

/* The sending side of one rank's adapter: messages in flight. */
struct adapter {
  sg_comm_t *slot;
  int n;
  double refused_since; /* start of a run of refusals by rings held by forgotten completions */
  /* the rank's last SkifCh call when it failed, a receive finding SPIN_ON empty or a send to SPIN_ON
   * refused (SPIN_SEND), and when it returned: the same call failing again at that same time (nothing
   * but the failed tries between) is a spinning wait */
  const SkifCh *spin_on;
  int spin_send;
  double spin_at;
};

static SkifCh **channels; /* by address */
static size_t nchannels;
static struct adapter *adapters; /* by rank */
static int nadapters;
static unsigned generation; /* mailbox names never repeat, so a closed channel's traffic stays its own */

static struct skifch_state *model(void)
{
  struct skifch_state *s = skifch_state_of(icsim_runtime_get());
  if (!s) {
    fprintf(stderr, "skifch: SkifCh programs run under `icsim run` on a platform whose network layer is skifch "
                    "(e.g. -p platforms/skif-aurora.yaml); this platform has none\n");
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  return s;
}

static SkifCh *lookup(netaddr_t a) { return a < nchannels ? channels[a] : NULL; }

static struct adapter *adapter_of(int rank, const struct skifch_params *p)
{
  if (rank >= nadapters) {
    int n = rank * 2 + 8;
    adapters = realloc(adapters, n * sizeof *adapters);
    memset(adapters + nadapters, 0, (n - nadapters) * sizeof *adapters);
    nadapters = n;
  }
  struct adapter *a = &adapters[rank];
  if (!a->slot) {
    a->slot = calloc(p->tx_slots, sizeof *a->slot);
    a->refused_since = -1;
  }
  return a;
}

/* Any SkifCh call but the failing one ends the calling rank's spinning on it. */
static void not_spinning(const struct skifch_params *p) { adapter_of(icsim_my_rank(), p)->spin_on = NULL; }

/* Whether this call repeats the rank's last failed one (same call, same channel, same instant). */
static int spinning(const struct adapter *a, const SkifCh *ch, int send)
{
  return a->spin_on == ch && a->spin_send == send && a->spin_at == simgrid_get_clock();
}

static void failed(struct adapter *a, const SkifCh *ch, int send)
{
  a->spin_on = ch;
  a->spin_send = send;
  a->spin_at = simgrid_get_clock();
}

SkifCh *SkifCh_Open(int port)
{
  const struct skifch_params *p = &model()->p;
  not_spinning(p);
  if (port < 0 || port > 255) {
    errno = EINVAL;
    return NULL;
  }
  netaddr_t a = SKIFCH_ADDR(icsim_my_rank(), port);
  if (a >= nchannels) {
    size_t n = a * 2 + 256;
    channels = realloc(channels, n * sizeof *channels);
    memset(channels + nchannels, 0, (n - nchannels) * sizeof *channels);
    nchannels = n;
  }
  if (channels[a]) {
    errno = EADDRINUSE;
    return NULL;
  }
  SkifCh *ch = calloc(1, sizeof *ch);
  ch->addr = a;
  ch->ring = (struct skifch_ring){.size = (size_t)p->recv_buffer_B, .page = (size_t)p->page_B};
  size_t np = ch->ring.size / ch->ring.page;
  ch->pages = calloc(np, sizeof *ch->pages);
  for (size_t i = 0; i < np; i++)
    ch->pages[i] = malloc(ch->ring.page); /* separately mapped: no two pages are known adjacent */
  skifch_credits_init(&ch->credits, ch->ring.size);
  snprintf(ch->mbname, sizeof ch->mbname, "skifch:%u:%u", (unsigned)a, generation++);
  ch->mb = sg_mailbox_by_name(ch->mbname);
  ch->inbox_tail = &ch->inbox;
  ch->sent = sg_cond_init();
  ch->freed = sg_cond_init();
  ch->lock = sg_mutex_init();
  sg_mailbox_set_receiver(ch->mbname);
  channels[a] = ch;
  return ch;
}

netaddr_t SkifCh_Address(const SkifCh *ch) { return ch->addr; }

int SkifCh_Close(SkifCh *ch)
{
  if (!ch || lookup(ch->addr) != ch) {
    errno = EINVAL;
    return -1;
  }
  const struct skifch_params *p = &model()->p;
  not_spinning(p);
  /* The adapter finishes what it has in flight before the program may go: a sender that closes and
   * exits right after a send would otherwise cancel the transfer, which its receiver would then
   * take at once, before the bytes could have crossed the torus. */
  struct adapter *a = adapter_of(icsim_my_rank(), p);
  for (int i = 0; i < a->n; i++)
    sg_comm_wait(a->slot[i]);
  a->n = 0;
  channels[ch->addr] = NULL;
  if (ch->get && !ch->get_done)
    sg_comm_wait(ch->get);
  while (ch->inbox) {
    struct packet *next = ch->inbox->next;
    free(ch->inbox);
    ch->inbox = next;
  }
  for (size_t i = 0; i < ch->ring.size / ch->ring.page; i++)
    free(ch->pages[i]);
  free(ch->pages);
  free(ch->q);
  skifch_credits_free(&ch->credits);
  sg_cond_destroy(ch->sent);
  sg_cond_destroy(ch->freed);
  sg_mutex_destroy(ch->lock);
  free(ch);
  return 0;
}

/* Retire the adapter's messages that have left; returns its free slots. */
static int free_slots(struct adapter *a, const struct skifch_params *p)
{
  int k = 0;
  for (int i = 0; i < a->n; i++)
    if (!sg_comm_test(a->slot[i]))
      a->slot[k++] = a->slot[i];
  a->n = k;
  return p->tx_slots - a->n;
}

/* Whether DST's whole ring is held by messages Recv handed out and RecvComp never released: only
 * the program's forgotten RecvComp can free it. */
static int held_by_forgotten(const SkifCh *dst)
{
  return dst->held_returned >= dst->credits.limit && dst->credits.committed >= dst->credits.limit;
}

/* A refusal by a ring that only SkifCh_RecvComp can free: the program forgot it. Say so and stop
 * once it has lasted skifch/stall-timeout, rather than spin for ever. */
static void check_stall(struct adapter *a, const SkifCh *dst, const struct skifch_params *p, double now)
{
  if (!held_by_forgotten(dst)) {
    a->refused_since = -1;
    return;
  }
  if (a->refused_since < 0)
    a->refused_since = now;
  else if (now - a->refused_since >= p->stall_timeout_s) {
    fprintf(stderr,
            "skifch: rank %d's sends to channel %u (rank %d, port %d) have been refused for %g s: its receive buffer "
            "(%zu B) is held entirely by %zu messages SkifCh_Recv returned and SkifCh_RecvComp never released. "
            "Call SkifCh_RecvComp(ch) after processing each message so its space is reused.\n",
            icsim_my_rank(), (unsigned)dst->addr, SKIFCH_ADDR_RANK(dst->addr), SKIFCH_ADDR_PORT(dst->addr),
            now - a->refused_since, dst->credits.limit, dst->returned - dst->first);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
}

/* What a refused sender waits for: a free adapter slot (a message of its in flight landing), then
 * credit at the destination (a return on its way reaching the sender; with none, the receiver's
 * next RecvComp). Both are needed and only this sender takes its slots, so waiting for one then
 * the other finds the first moment both hold; another sender may take the credit meanwhile, and the
 * next try is then refused again, as it would have been. A ring held by messages the receiver never
 * completes is waited on only until the stall is declared (check_stall). */
struct sendable {
  struct adapter *a;
  SkifCh *d;
  const struct skifch_params *p;
};

static void wait_sendable(void *arg)
{
  struct sendable *w = arg;
  for (;;) {
    double now = simgrid_get_clock();
    if (free_slots(w->a, w->p) == 0) {
      ssize_t i = sg_comm_wait_any(w->a->slot, (size_t)w->a->n); /* releases the one that ended */
      w->a->slot[i] = w->a->slot[--w->a->n];
      continue;
    }
    struct skifch_credits *c = &w->d->credits;
    if (skifch_credits_available(c, now) > 0)
      return;
    if (c->first < c->nret) {
      sg_actor_sleep_until(c->ret[c->first].at);
      continue;
    }
    if (held_by_forgotten(w->d)) {
      if (w->a->refused_since < 0) /* it has just come to that: the next try notes when (check_stall) */
        return;
      double left = w->a->refused_since + w->p->stall_timeout_s - now; /* until the stall is declared */
      if (left <= 0)
        return;
      sg_mutex_lock(w->d->lock);
      sg_cond_wait_for(w->d->freed, w->d->lock, left);
      sg_mutex_unlock(w->d->lock);
      continue;
    }
    sg_mutex_lock(w->d->lock);
    sg_cond_wait(w->d->freed, w->d->lock);
    sg_mutex_unlock(w->d->lock);
  }
}

ssize_t SkifCh_Send(SkifCh *ch, netaddr_t dst, const struct iovec *iov, int iov_count)
{
  struct skifch_state *s = model();
  const struct skifch_params *p = &s->p;
  struct icsim_runtime *rt = icsim_runtime_get();
  (void)ch; /* the adapter sends for every channel of its node; the source channel is not in the message */
  size_t total = 0;
  for (int i = 0; i < iov_count; i++)
    total += iov[i].iov_len;
  if (total == 0)
    return 0;
  int me = icsim_my_rank();
  struct adapter *a = adapter_of(me, p);
  SkifCh *d = lookup(dst);
  int again = spinning(a, d, 1);
  not_spinning(p);
  if (!d) {
    icsim_charge_poll();
    errno = ENXIO;
    return -1;
  }
  double now = simgrid_get_clock();
  size_t n = skifch_send_size(total, (size_t)p->max_message_B, skifch_credits_available(&d->credits, now),
                              free_slots(a, p));
  if (n == 0) {
    s->refusals++;
    check_stall(a, d, p, now);
    /* A program retries a refused send at once: the second refusal in a row skips to the moment
     * the send can go (layer.h), counting the refusals it would have met. */
    if (again && p->refusal_s > 0 && icsim_spin_skip_ok()) {
      struct sendable w = {a, d, p};
      s->refusals += icsim_spin_until(p->refusal_s, 0, wait_sendable, &w) - 1;
    } else
      icsim_occupy_cpu(p->refusal_s);
    failed(a, d, 1);
    errno = EAGAIN;
    return -1;
  }
  a->refused_since = -1;
  if (n < total)
    s->prefixes++;
  skifch_credits_take(&d->credits, n);
  struct packet *pk = malloc(sizeof *pk + n);
  pk->next = NULL;
  pk->src = me;
  pk->len = n;
  for (int i = 0, at = 0; i < iov_count && (size_t)at < n; i++) {
    size_t k = iov[i].iov_len < n - at ? iov[i].iov_len : n - at;
    memcpy(pk->data + at, iov[i].iov_base, k);
    at += (int)k;
  }
  struct icsim_msg m;
  icsim_fill_msg(rt, &m, me, SKIFCH_ADDR_RANK(dst), n, iov[0].iov_base, SKIFCH_WIRE_TAG);
  icsim_occupy(icsim_runtime_send_cpu(rt, &m), ICSIM_CPU_SEND);
  icsim_runtime_announce(rt, &m, simgrid_get_clock());
  *d->inbox_tail = pk;
  d->inbox_tail = &pk->next;
  a->slot[a->n++] = sg_mailbox_put_async(d->mb, pk, (long)(n + ENVELOPE_B));
  sg_cond_notify_all(d->sent);
  return (ssize_t)n;
}

/* The adapter has written arrived messages into the ring: take them in arrival order. */
static void take_arrivals(SkifCh *ch)
{
  for (;;) {
    if (!ch->get) {
      if (!sg_mailbox_listen(ch->mbname))
        return;
      ch->get = sg_mailbox_get_async(ch->mb, &ch->got);
    }
    if (!ch->get_done && !sg_comm_test(ch->get))
      return;
    ch->get = NULL;
    ch->get_done = 0;
    struct packet *pk = ch->inbox;
    ch->inbox = pk->next;
    if (!ch->inbox)
      ch->inbox_tail = &ch->inbox;
    if (ch->n == ch->cap) {
      ch->cap = ch->cap ? 2 * ch->cap : 16;
      ch->q = realloc(ch->q, ch->cap * sizeof *ch->q);
    }
    struct placed *pl = &ch->q[ch->n++];
    pl->src = pk->src;
    pl->len = pk->len;
    if (ch->ring.used + pk->len > ch->ring.size) { /* credits make this impossible */
      fprintf(stderr, "skifch: internal error: channel %u's ring overflows\n", (unsigned)ch->addr);
      abort();
    }
    pl->npieces = skifch_ring_place(&ch->ring, pk->len, pl->pc);
    for (int i = 0, at = 0; i < pl->npieces; i++) {
      memcpy(ch->pages[pl->pc[i].page] + pl->pc[i].offset, pk->data + at, pl->pc[i].len);
      at += (int)pl->pc[i].len;
    }
    free(pk);
  }
}

/* What a spinning receive waits for: the arrival being taken to finish, or, with none on its way,
 * a send to the channel. Nothing else changes what the next poll finds. */
static void wait_arrival(void *arg)
{
  SkifCh *ch = arg;
  if (ch->get) {
    sg_comm_wait(ch->get);
    ch->get_done = 1;
    return;
  }
  sg_mutex_lock(ch->lock);
  while (!sg_mailbox_listen(ch->mbname))
    sg_cond_wait(ch->sent, ch->lock);
  sg_mutex_unlock(ch->lock);
}

ssize_t SkifCh_Recv(SkifCh *ch, struct iovec cont[SKIFCH_CONT_SIZE], int *cont_count)
{
  struct icsim_runtime *rt = icsim_runtime_get();
  const struct skifch_params *p = &model()->p;
  int me = icsim_my_rank();
  struct adapter *a = adapter_of(me, p);
  take_arrivals(ch);
  if (ch->returned == ch->n) {
    /* SkifCh has no blocking receive: programs spin on this call. The second empty look in a row
     * at the same time (nothing but polls in between) skips to the next arrival (layer.h). */
    if (spinning(a, ch, 0) && icsim_poll_skip_ok())
      icsim_poll_until(wait_arrival, ch);
    else
      icsim_charge_poll();
    failed(a, ch, 0);
    *cont_count = 0;
    return 0;
  }
  a->spin_on = NULL;
  struct placed *pl = &ch->q[ch->returned++];
  for (int i = 0; i < pl->npieces; i++)
    cont[i] = (struct iovec){ch->pages[pl->pc[i].page] + pl->pc[i].offset, pl->pc[i].len};
  *cont_count = pl->npieces;
  ch->held_returned += pl->len;
  sg_cond_notify_all(ch->freed);
  struct icsim_msg m;
  icsim_fill_msg(rt, &m, pl->src, me, pl->len, cont[0].iov_base, SKIFCH_WIRE_TAG);
  icsim_occupy(icsim_runtime_recv_cpu(rt, &m), ICSIM_CPU_RECV);
  return (ssize_t)pl->len;
}

int SkifCh_RecvComp(SkifCh *ch)
{
  const struct skifch_params *p = &model()->p;
  not_spinning(p);
  if (ch->first == ch->returned) {
    errno = EINVAL;
    return -1;
  }
  size_t len = ch->q[ch->first++].len;
  skifch_ring_release(&ch->ring, len);
  ch->held_returned -= len;
  skifch_credits_return(&ch->credits, len, simgrid_get_clock(), p->credit_latency_s);
  sg_cond_notify_all(ch->freed);
  if (ch->first == ch->n) /* every message completed: the queue starts over */
    ch->first = ch->returned = ch->n = 0;
  return 0;
}
