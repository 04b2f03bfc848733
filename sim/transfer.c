/* The transfer table (see transfer.h). Two hash tables: announcements waiting for their
 * transfer, keyed by (source host, destination host, payload) with FIFO order inside a key, and
 * transfers in flight keyed by id. */
#include "transfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKETS 4096

struct node {
  struct icsim_transfer t;
  int cancelled; /* a cancelled send SMPI may still deliver: not counted unless a transfer takes it */
  struct node *next;
};

struct icsim_transfer_table {
  struct node *waiting[NBUCKETS]; /* per bucket, oldest first */
  struct node *flying[NBUCKETS];
  struct node *spare;             /* freed nodes, reused: records come and go by the million */
  struct node *last_done;
  uint64_t next_id;
  struct icsim_transfer_counts c;
};

static size_t key_bucket(int src, int dst, double bytes)
{
  uint64_t h = (uint64_t)(unsigned)src * 0x9E3779B97F4A7C15ull ^ (uint64_t)(unsigned)dst * 0xC2B2AE3D27D4EB4Full ^
               (uint64_t)bytes * 0x165667B19E3779F9ull;
  return (size_t)((h ^ (h >> 29)) % NBUCKETS);
}

static size_t id_bucket(uint64_t id) { return (size_t)(id % NBUCKETS); }

struct icsim_transfer_table *icsim_transfers_new(void) { return calloc(1, sizeof(struct icsim_transfer_table)); }

static void free_list(struct node *n)
{
  while (n) {
    struct node *next = n->next;
    free(n);
    n = next;
  }
}

void icsim_transfers_free(struct icsim_transfer_table *t)
{
  if (!t)
    return;

  for (size_t i = 0; i < NBUCKETS; i++) {
    free_list(t->waiting[i]);
    free_list(t->flying[i]);
  }
  free_list(t->spare);
  free(t->last_done);
  free(t);
}

static struct node *new_node(struct icsim_transfer_table *t)
{
  struct node *n = t->spare;
  if (n)
    t->spare = n->next;
  else
    n = malloc(sizeof *n);
  memset(n, 0, sizeof *n);
  return n;
}

uint64_t icsim_transfers_announce(struct icsim_transfer_table *t, const struct icsim_msg *m, int src_host,
                                  int dst_host, double now)
{
  struct node *n = new_node(t);
  n->t.id = ++t->next_id;
  n->t.msg = *m;
  n->t.src_host = src_host;
  n->t.dst_host = dst_host;
  n->t.announced_s = now;
  struct node **pp = &t->waiting[key_bucket(src_host, dst_host, (double)m->bytes)];
  while (*pp)
    pp = &(*pp)->next;
  *pp = n;
  t->c.announced++;
  t->c.pending++;
  return n->t.id;
}

/* Take the oldest announcement of exactly this key, or NULL.
 *
 * SMPI's own messages (those of MPI_Init, MPI_Finalize, communicator creation: RANK_INTERNAL
 * counts, per world rank, the SMPI calls a rank is inside) carry no announcement, and one of the
 * same hosts and size must not take a message's. A transfer starts when the later of its two
 * sides is posted; an internal message's receive is posted inside such a call. So when the oldest
 * candidate's receiver is inside one now and the candidate was announced earlier (its sender is
 * not posting it at this instant), the transfer starting is the receiver's SMPI message. (A
 * message whose receiver posted its receive and then entered such a call starts at its sender's
 * send, at the instant it is announced: it still takes its announcement.) One-sided transfers are
 * left out of the rule: the origin posts both of their sides within its own call, possibly after
 * the announcement (a get-accumulate waits for its get first), whatever the target is doing. */
static struct node *take(struct icsim_transfer_table *t, int src, int dst, double bytes, double now,
                         const int *rank_internal)
{
  if (bytes < 0)
    return NULL;
  for (struct node **pp = &t->waiting[key_bucket(src, dst, bytes)]; *pp; pp = &(*pp)->next) {
    struct node *n = *pp;
    if (n->t.src_host == src && n->t.dst_host == dst && (double)n->t.msg.bytes == bytes) {
      if (rank_internal && n->t.msg.kind == ICSIM_MSG_P2P && n->t.msg.dst_rank >= 0 &&
          rank_internal[n->t.msg.dst_rank] > 0 && n->t.announced_s < now) {
        if (getenv("ICSIM_DEBUG_TRANSFERS"))
          fprintf(stderr, "icsim: transfer %d -> %d, %.0f bytes at %.9f s left to SMPI: rank %d is inside an SMPI call, the "
                  "message announced at %.9f s\n", src, dst, bytes, now, n->t.msg.dst_rank, n->t.announced_s);
        return NULL;
      }
      *pp = n->next;
      return n;
    }
  }
  return NULL;
}

const struct icsim_transfer *icsim_transfers_start(struct icsim_transfer_table *t, int src_host, int dst_host,
                                                   double size, double now, int internal, const int *rank_internal)
{
  const int *ri = internal ? rank_internal : NULL;
  struct node *n = take(t, src_host, dst_host, size - ICSIM_SMPI_ENVELOPE_B, now, ri);
  if (!n)
    n = take(t, src_host, dst_host, size, now, ri);
  if (!n) {
    if (internal)
      t->c.internal++;
    else
      t->c.unannounced++;
    if (getenv("ICSIM_DEBUG_TRANSFERS"))
      fprintf(stderr, "icsim: transfer nobody announced: host %d -> %d, %.0f bytes at %.9f s%s\n", src_host, dst_host,
              size, now, internal ? " (inside an SMPI call)" : "");
    return NULL;
  }
  if (n->cancelled) { /* delivered after all: an announced transfer again */
    n->cancelled = 0;
    t->c.announced++;
    t->c.pending++;
  }
  n->t.started_s = now;
  size_t b = id_bucket(n->t.id);
  n->next = t->flying[b];
  t->flying[b] = n;
  t->c.pending--;
  t->c.started++;
  t->c.open++;
  return &n->t;
}

int icsim_transfers_cancel(struct icsim_transfer_table *t, uint64_t id)
{
  for (size_t b = 0; b < NBUCKETS; b++)
    for (struct node *n = t->waiting[b]; n; n = n->next)
      if (n->t.id == id && !n->cancelled) {
        n->cancelled = 1;
        t->c.announced--;
        t->c.pending--;
        return 1;
      }
  return 0;
}

int icsim_transfers_withdraw(struct icsim_transfer_table *t, uint64_t id)
{
  for (size_t b = 0; b < NBUCKETS; b++) /* a cancel is rare: the whole table may be looked at */
    for (struct node **pp = &t->waiting[b]; *pp; pp = &(*pp)->next)
      if ((*pp)->t.id == id) {
        struct node *n = *pp;
        *pp = n->next;
        n->next = t->spare;
        t->spare = n;
        t->c.announced--;
        t->c.pending--;
        return 1;
      }
  return 0;
}

void icsim_transfers_set_phases(struct icsim_transfer_table *t, uint64_t id, double s, double alone_s)
{
  for (struct node *n = t->flying[id_bucket(id)]; n; n = n->next)
    if (n->t.id == id) {
      n->t.phases_s = s;
      n->t.alone_s = alone_s;
      return;
    }
}

void icsim_transfers_set_recv_buf(struct icsim_transfer_table *t, uint64_t id, const void *buf)
{
  for (struct node *n = t->flying[id_bucket(id)]; n; n = n->next)
    if (n->t.id == id) {
      n->t.msg.recv_buf = buf;
      return;
    }
}

const struct icsim_transfer *icsim_transfers_done(struct icsim_transfer_table *t, uint64_t id)
{
  for (struct node **pp = &t->flying[id_bucket(id)]; *pp; pp = &(*pp)->next) {
    struct node *n = *pp;
    if (n->t.id == id) {
      *pp = n->next;
      /* keep the record alive until the next call, so the caller can hand it to the layers */
      if (t->last_done) {
        t->last_done->next = t->spare;
        t->spare = t->last_done;
      }
      t->last_done = n;
      t->c.open--;
      t->c.done++;
      return &n->t;
    }
  }
  return NULL;
}

void icsim_transfers_counts(const struct icsim_transfer_table *t, struct icsim_transfer_counts *c) { *c = t->c; }

void icsim_transfers_print_waiting(const struct icsim_transfer_table *t, FILE *out)
{
  static const char *kinds[] = {"message", "put", "get"};
  for (size_t i = 0; i < NBUCKETS; i++)
    for (const struct node *n = t->waiting[i]; n; n = n->next)
      fprintf(out, "icsim: announced, never started: %s rank %d -> %d (host %d -> %d), %zu bytes, at %.9f s\n",
              kinds[n->t.msg.kind], n->t.msg.src_rank, n->t.msg.dst_rank, n->t.src_host, n->t.dst_host, n->t.msg.bytes,
              n->t.announced_s);
}
