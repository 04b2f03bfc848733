/* The progress engine: a rank takes its messages whenever it is inside any MPI call, as a real
 * MPI's progress engine does, not when the application happens to wait for them.
 *
 * Every receive is posted to SMPI as an ordinary non-blocking receive that the engine owns, while
 * the application holds a stand-in handle (an SMPI persistent request that is never started), so
 * the engine may complete the receive from any wait or test call without touching the handle the
 * application holds. The engine keeps the status and
 * charges the stack's receive CPU at that moment (the rank is inside MPI, its CPU takes the
 * message); the application's own completion call later returns the kept status and frees the
 * request if the application did not ask for a persistent one. Blocking calls wait on their own
 * requests and on every receive the rank has in flight, so arrivals meanwhile are taken as they
 * land: one MPI_Waitall over sends and receives, or one for the sends and one for the receives,
 * take the same simulated time.
 *
 * Requests the engine does not own (sends, SMPI's own) complete through PMPI as usual. Tests use
 * PMPI_Test* with SMPI's injected test delay switched off (icsim run sets smpi/test:0); a test
 * that finds nothing costs the platform's poll instructions instead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

void icsim_smpi_recv_type(int *count, MPI_Datatype *type); /* smpi_direct.cpp */

enum entry_kind { RECV, PSEND };

struct entry {
  MPI_Request req;
  enum entry_kind kind;
  int owner;           /* world rank */
  int user_persistent; /* the application made it with *_init: it stays after completion */
  int active;          /* started and not yet taken by the engine */
  int done;            /* taken by the engine, status kept for the application */
  int free_on_done;    /* the application freed it while active */
  int null_peer;       /* source or destination MPI_PROC_NULL: completes at once, never reaches SMPI */
  int internal;        /* a receive of the layer's own (MPI_Recv, MPI_Sendrecv, the collectives): its
                        * handle never reaches the application, so it is the entry's address and
                        * no SMPI stand-in is made or freed for it */
  int layer_args;      /* peer, tag and communicator are the layer's choice (its collectives): SMPI's
                        * receive may be posted without the PMPI wrapper (smpi_direct.cpp) */
  int has_group;       /* a receive whose communicator was freed while it was in flight: */
  MPI_Group group;     /* that communicator's group, to name its source when it lands */
  MPI_Request live;    /* the SMPI request in flight: the receive itself, or a persistent send's
                        * current non-blocking send */
  MPI_Status st;
  /* what the stacks need: the receive's buffer and communicator; a persistent send's arguments */
  const void *buf;
  int count, peer, tag;
  MPI_Datatype type;
  int own_type; /* TYPE is the engine's duplicate of a persistent request's derived type */
  MPI_Comm comm;
  char mode; /* persistent send: 's'ynchronous, 'r'eady, 'b'uffered or standard */
  uint64_t announced; /* persistent send: its current start's announcement (for MPI_Cancel) */
  int peer_world;     /* a receive's source as a world rank (MPI_ANY_SOURCE kept), when started */
  int given;          /* a started receive the wire side has given a transfer (posted_recv) */
  struct entry *hnext;         /* hash chain */
  struct entry *anext, *aprev; /* the owner's active receives, in posting order */
};

/* Request kinds other parts of the layer own (persistent collectives, deferred duplications):
 * their hooks, so that the engine's entry points serve them without naming them. */
static const struct icsim_request_kind *kinds[8];
static int nkinds;

void icsim_request_kind_add(const struct icsim_request_kind *k)
{
  if (nkinds == (int)(sizeof kinds / sizeof kinds[0])) {
    fprintf(stderr, "icsim: internal error: more than %d request kinds\n", nkinds);
    abort();
  }
  kinds[nkinds++] = k;
}

static void before_wait(int n, const MPI_Request *reqs)
{
  for (int i = 0; i < nkinds; i++)
    if (kinds[i]->before_wait)
      kinds[i]->before_wait(n, reqs);
}

/* MPI_Start of a request of another kind: 1 and *RC if it was one. */
static int kind_start(MPI_Request *req, int *rc)
{
  for (int i = 0; i < nkinds; i++)
    if (kinds[i]->start && kinds[i]->start(req, rc))
      return 1;
  return 0;
}

static int kind_free(MPI_Request *req)
{
  for (int i = 0; i < nkinds; i++)
    if (kinds[i]->free && kinds[i]->free(req))
      return 1;
  return 0;
}

static MPI_Request *orphans;
static int norphans, orphans_cap;

/* Every request the engine owns, of every rank (all ranks share this process), by handle. The
 * table grows with them: 4096 ranks keep some 130,000 receives in flight through an all-to-all(v),
 * and every request a wait is given is looked up, sends (not ours) included, so a lookup that
 * walks long chains of cold entries costs more than SimGrid's whole completion (it was half the
 * time of IS class C on 4096 ranks with a fixed 8192 buckets). */
static struct entry **table;
static size_t nbuckets, nentries;
static struct entry **active_head, **active_tail; /* per world rank */
static int nranks_alloc;

static size_t hash_of(MPI_Request r, size_t n)
{
  return (size_t)(((uint64_t)(uintptr_t)r * 0x9E3779B97F4A7C15ull) >> 17) & (n - 1); /* n: a power of two */
}
static size_t bucket(MPI_Request r) { return hash_of(r, nbuckets); }

static void grow_table(void)
{
  size_t n = nbuckets ? 2 * nbuckets : 1024;
  struct entry **t = calloc(n, sizeof *t);
  if (!t) {
    if (nbuckets)
      return; /* keep the longer chains */
    abort();
  }
  for (size_t b = 0; b < nbuckets; b++)
    for (struct entry *e = table[b], *next; e; e = next) {
      next = e->hnext;
      size_t h = hash_of(e->req, n);
      e->hnext = t[h];
      t[h] = e;
    }
  free(table);
  table = t;
  nbuckets = n;
}

static struct entry *find(MPI_Request r)
{
  if (r == MPI_REQUEST_NULL || !nbuckets)
    return NULL;
  for (struct entry *e = table[bucket(r)]; e; e = e->hnext)
    if (e->req == r)
      return e;
  return NULL;
}

int icsim_engine_is_ours(MPI_Request req) { return find(req) != NULL; }

static void ensure_ranks(int rank)
{
  if (rank < nranks_alloc)
    return;
  int n = rank + 1 > 64 ? 2 * (rank + 1) : 64;
  active_head = realloc(active_head, (size_t)n * sizeof *active_head);
  active_tail = realloc(active_tail, (size_t)n * sizeof *active_tail);
  for (int i = nranks_alloc; i < n; i++)
    active_head[i] = active_tail[i] = NULL;
  nranks_alloc = n;
}

static struct entry *add_entry(MPI_Request r, enum entry_kind kind, int owner)
{
  struct entry *e = calloc(1, sizeof *e);
  if (r == MPI_REQUEST_NULL) { /* internal: the handle is the entry itself (no live SMPI request has
                                  * that address, and the entry leaves the table before it is freed) */
    r = (MPI_Request)(void *)e;
    e->internal = 1;
  }
  e->req = r;
  e->kind = kind;
  e->owner = owner;
  if (nentries >= nbuckets)
    grow_table();
  nentries++;
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt)
    rt->engine_requests = (double)nentries;
  size_t b = bucket(r);
  e->hnext = table[b];
  table[b] = e;
  return e;
}

/* Stand-ins: persistent requests never started, handed to the application in place of the
 * receives the engine owns. */
int icsim_engine_stand_in(MPI_Request *req) { return PMPI_Send_init(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, req); }

/* Unlink E and free its SMPI request and itself. The bucket comes from the request's handle,
 * so unlink before PMPI_Request_free nulls it. */
static void remove_entry(struct entry *e)
{
  for (struct entry **pp = &table[bucket(e->req)]; *pp; pp = &(*pp)->hnext)
    if (*pp == e) {
      *pp = e->hnext;
      nentries--;
      break;
    }
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt)
    rt->engine_requests = (double)nentries;
  if (e->req != MPI_REQUEST_NULL && !e->internal)
    PMPI_Request_free(&e->req); /* not recycled: a Fortran handle of it would outlive it */
  if (e->has_group)
    PMPI_Group_free(&e->group);
  if (e->own_type)
    PMPI_Type_free(&e->type);
  free(e);
}

/* The runtime's posted_recv: the buffer of DST's oldest started receive, not yet given a
 * transfer, that a message from world rank SRC with TAG matches (SMPI matches in posting order
 * too; the communicator is not compared: a message of another communicator with the same source
 * and tag could take a receive's buffer, and the two then swap buffers). Runs in SimGrid's kernel
 * as a transfer starts: reads the lists, calls no MPI. */
static const void *posted_recv(int dst, int src, int tag)
{
  if (dst < 0 || dst >= nranks_alloc)
    return NULL;
  for (struct entry *e = active_head[dst]; e; e = e->anext)
    if (e->kind == RECV && !e->given && (e->peer_world == MPI_ANY_SOURCE || e->peer_world == src) &&
        (e->tag == MPI_ANY_TAG || e->tag == tag)) {
      e->given = 1;
      return e->buf;
    }
  return NULL;
}

static void activate(struct entry *e)
{
  ensure_ranks(e->owner);
  if (e->kind == RECV) {
    struct icsim_runtime *rt = icsim_runtime_get();
    e->peer_world = icsim_world_rank(e->comm, e->peer);
    e->given = 0;
    if (rt)
      rt->posted_recv = posted_recv;
  }
  e->active = 1;
  e->done = 0;
  e->aprev = active_tail[e->owner];
  e->anext = NULL;
  if (e->aprev)
    e->aprev->anext = e;
  else
    active_head[e->owner] = e;
  active_tail[e->owner] = e;
}

static void deactivate(struct entry *e)
{
  if (e->aprev)
    e->aprev->anext = e->anext;
  else
    active_head[e->owner] = e->anext;
  if (e->anext)
    e->anext->aprev = e->aprev;
  else
    active_tail[e->owner] = e->aprev;
  e->anext = e->aprev = NULL;
  e->active = 0;
}

static void empty_status(MPI_Status *st)
{
  if (st == MPI_STATUS_IGNORE)
    return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = MPI_SUCCESS;
  st->count = 0;
  st->cancelled = 0;
}

/* The receive of E has landed with status ST: the rank's CPU takes it now. */
static void take(struct entry *e, const MPI_Status *st)
{
  deactivate(e);
  e->st = *st;
  e->live = MPI_REQUEST_NULL; /* SMPI freed the completed non-blocking request */
  struct icsim_runtime *rt = icsim_runtime_get();
  if (rt && e->kind == RECV && st->MPI_SOURCE >= 0 && !st->cancelled) {
    struct icsim_msg m;
    int src;
    if (e->has_group) { /* icsim_group_world_rank frees the group */
      src = st->MPI_SOURCE == MPI_ANY_SOURCE ? st->MPI_SOURCE : icsim_group_world_rank(e->group, st->MPI_SOURCE);
      e->has_group = 0;
    } else {
      src = icsim_world_rank(e->comm, st->MPI_SOURCE);
    }
    icsim_fill_msg(rt, &m, src, e->owner, (size_t)(st->count > 0 ? st->count : 0), e->buf, st->MPI_TAG);
    icsim_occupy(icsim_runtime_recv_cpu(rt, &m), ICSIM_CPU_RECV);
  }
  if (e->free_on_done) {
    remove_entry(e);
  } else {
    e->done = 1;
  }
}

static void tend_orphans(void);

void icsim_engine_poll(void)
{
  if (norphans)
    tend_orphans();
  int me = icsim_my_rank();
  ensure_ranks(me);
  for (;;) {
    int n = 0;
    for (struct entry *e = active_head[me]; e; e = e->anext)
      n++;
    if (n == 0)
      return;
    MPI_Request *reqs = malloc((size_t)n * sizeof *reqs);
    struct entry **ents = malloc((size_t)n * sizeof *ents);
    int *idx = malloc((size_t)n * sizeof *idx);
    MPI_Status *sts = malloc((size_t)n * sizeof *sts);
    n = 0;
    for (struct entry *e = active_head[me]; e; e = e->anext) {
      ents[n] = e;
      reqs[n++] = e->live;
    }
    int out = 0;
    if (icsim_direct_ok())
      icsim_smpi_testsome(n, reqs, &out, idx, sts);
    else
      PMPI_Testsome(n, reqs, &out, idx, sts);
    for (int i = 0; out != MPI_UNDEFINED && i < out; i++)
      take(ents[idx[i]], &sts[i]);
    free(reqs);
    free(ents);
    free(idx);
    free(sts);
    if (out == MPI_UNDEFINED || out == 0)
      return; /* taking messages took time: look again for what landed meanwhile */
  }
}

/* A request with MPI_PROC_NULL as its peer completes at once with source MPI_PROC_NULL, tag
 * MPI_ANY_TAG and count 0 (MPI 3.1, 3.11). SMPI 3.32 mishandles persistent ones (a started
 * persistent send to MPI_PROC_NULL aborts, a persistent receive from it never completes), so the
 * engine keeps them itself; the handle the application holds is an SMPI persistent request that
 * is never started. */
static int null_peer_request(MPI_Request *req, enum entry_kind kind, int user_persistent)
{
  int rc = icsim_engine_stand_in(req);
  if (rc != MPI_SUCCESS)
    return rc;
  struct entry *e = add_entry(*req, kind, icsim_my_rank());
  e->user_persistent = user_persistent;
  e->null_peer = 1;
  return MPI_SUCCESS;
}

static void null_peer_done(struct entry *e)
{
  e->done = 1;
  e->st.MPI_SOURCE = MPI_PROC_NULL;
  e->st.MPI_TAG = MPI_ANY_TAG;
  e->st.MPI_ERROR = MPI_SUCCESS;
  e->st.count = 0;
  e->st.cancelled = 0;
}

int icsim_psend_init_null(MPI_Request *req) { return null_peer_request(req, PSEND, 1); }

/* A receive the layer has already completed (MPI_Imrecv): the application's wait or test returns ST. */
int icsim_engine_completed(MPI_Request *req, const MPI_Status *st)
{
  int rc = icsim_engine_stand_in(req);
  if (rc != MPI_SUCCESS)
    return rc;
  struct entry *e = add_entry(*req, RECV, icsim_my_rank());
  e->st = *st;
  e->done = 1;
  return MPI_SUCCESS;
}

/* What a receive (or a persistent send) needs again when it starts or lands. */
static void set_args(struct entry *e, const void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm)
{
  e->buf = buf;
  e->count = count;
  e->type = type;
  /* A persistent request starts a new SMPI request with its type at each MPI_Start, and a program
   * may free a derived type right after *_init (MPI 3.1, 4.1.9: communication using it still
   * completes normally): the engine keeps a duplicate of its own until the request is freed. */
  int ni = 0, na = 0, nd = 0, combiner = MPI_COMBINER_NAMED;
  if ((e->user_persistent || e->kind == PSEND) && !e->own_type && type != MPI_DATATYPE_NULL &&
      PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner != MPI_COMBINER_NAMED &&
      PMPI_Type_dup(type, &e->type) == MPI_SUCCESS)
    e->own_type = 1;
  else
    e->type = type;
  e->peer = peer;
  e->tag = tag;
  e->comm = comm;
}

int icsim_engine_irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm, MPI_Request *req,
                       int user_persistent)
{
  if (src == MPI_PROC_NULL) {
    int rc = null_peer_request(req, RECV, user_persistent);
    if (!user_persistent)
      null_peer_done(find(*req));
    return rc;
  }
  /* The application holds a stand-in (a persistent request never started); the receive itself
   * is an ordinary non-blocking one the engine may complete and free whenever it lands. */
  int rc = icsim_engine_stand_in(req);
  if (rc != MPI_SUCCESS)
    return rc;
  struct entry *e = add_entry(*req, RECV, icsim_my_rank());
  e->user_persistent = user_persistent;
  set_args(e, buf, count, type, src, tag, comm);
  return user_persistent ? MPI_SUCCESS : icsim_engine_start(req);
}

/* A request that is complete and failed: its wait, test or their many-request forms answer ERR
 * in its status, as any failed receive's (an MPI_Comm_idup with no context id left, comm.c). */
int icsim_engine_failed_request(MPI_Request *req, int err)
{
  int rc = null_peer_request(req, RECV, 0);
  if (rc != MPI_SUCCESS)
    return rc;
  struct entry *e = find(*req);
  null_peer_done(e);
  e->st.MPI_SOURCE = MPI_UNDEFINED;
  e->st.MPI_TAG = MPI_UNDEFINED;
  e->st.MPI_ERROR = err;
  return MPI_SUCCESS;
}

/* A receive the layer itself posts and waits for (its handle never reaches the application): the
 * same receive as icsim_engine_irecv's without the SMPI stand-in, which costs SimGrid a request
 * made and freed (and entered in its Fortran handle table) per message. LAYER_ARGS: the peer, tag
 * and communicator are the layer's own choice (a collective's), not the program's. */
int icsim_engine_irecv_internal(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                                MPI_Request *req, int layer_args)
{
  if (src == MPI_PROC_NULL)
    return icsim_engine_irecv(buf, count, type, src, tag, comm, req, 0);
  struct entry *e = add_entry(MPI_REQUEST_NULL, RECV, icsim_my_rank());
  e->layer_args = layer_args;
  set_args(e, buf, count, type, src, tag, comm);
  *req = e->req;
  return icsim_engine_start(req);
}

void icsim_engine_track_psend(MPI_Request req, char mode, const void *buf, int count, MPI_Datatype type, int dest,
                              int tag, MPI_Comm comm)
{
  struct entry *e = add_entry(req, PSEND, icsim_my_rank());
  e->mode = mode;
  e->user_persistent = 1;
  set_args(e, buf, count, type, dest, tag, comm);
}

int icsim_engine_start(MPI_Request *req)
{
  struct entry *e = find(*req);
  if (e && e->null_peer) {
    null_peer_done(e);
    return MPI_SUCCESS;
  }
  if (e && e->kind == PSEND) {
    /* SMPI 3.32 loses a restarted persistent send below its detached threshold when the receive
     * is not posted yet: each start is a fresh non-blocking send of the same kind instead. */
    icsim_charge_send(e->buf, e->count, e->type, e->peer, e->tag, e->comm);
    e->announced = icsim_last_announced();
    int rc;
    switch (e->mode) {
    case 's': rc = PMPI_Issend(e->buf, e->count, e->type, e->peer, e->tag, e->comm, &e->live); break;
    case 'r': rc = PMPI_Irsend(e->buf, e->count, e->type, e->peer, e->tag, e->comm, &e->live); break;
    case 'b': rc = PMPI_Ibsend(e->buf, e->count, e->type, e->peer, e->tag, e->comm, &e->live); break;
    default: rc = PMPI_Isend(e->buf, e->count, e->type, e->peer, e->tag, e->comm, &e->live); break;
    }
    if (rc == MPI_SUCCESS)
      activate(e);
    return rc;
  }
  if (e && e->kind == RECV) {
    int count = e->count; /* a predefined type is posted as its bytes, as MPICH takes them (smpi_direct.cpp) */
    MPI_Datatype type = e->type;
    icsim_smpi_recv_type(&count, &type);
    /* active (posted) before SMPI sees it: a matching send already waiting starts its transfer inside
     * the call, and the wire side then looks for this receive's buffer (posted_recv) */
    activate(e);
    int rc = e->layer_args && icsim_direct_ok() && icsim_direct_args_ok(e->buf, e->count, e->type)
                 ? icsim_smpi_irecv((void *)e->buf, count, type, e->peer, e->tag, e->comm, &e->live)
                 : PMPI_Irecv((void *)e->buf, count, type, e->peer, e->tag, e->comm, &e->live);
    if (rc != MPI_SUCCESS)
      deactivate(e);
    return rc;
  }
  return PMPI_Start(req);
}

/* Where one of the application's requests stands. */
enum standing { GONE, TAKEN, WAITING, PMPI_OWNED };

static enum standing standing_of(MPI_Request r, struct entry **pe)
{
  *pe = NULL;
  if (r == MPI_REQUEST_NULL)
    return GONE;
  struct entry *e = find(r);
  if (!e)
    return PMPI_OWNED;
  *pe = e;
  if (e->done)
    return TAKEN;
  return e->active ? WAITING : GONE; /* an inactive persistent receive counts as null */
}

/* SMPI 3.32 unpacks a message received into a non-contiguous datatype by whole instances of the
 * type: the bytes of a last, partial instance are never written to the buffer (under plain SMPI
 * too). Nothing here can bring them back; say so, once a run, rather than let it pass silently. */
static void warn_partial_instance(const struct entry *e)
{
  static int warned;
  if (warned || e->kind != RECV || e->null_peer || !e->type || e->type == MPI_DATATYPE_NULL ||
      e->st.MPI_ERROR != MPI_SUCCESS)
    return;
  int size = 0, bytes = 0;
  MPI_Aint lb, extent, tlb, textent;
  if (PMPI_Type_size(e->type, &size) != MPI_SUCCESS || size <= 0 ||
      PMPI_Get_count(&e->st, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes <= 0 || bytes % size == 0)
    return;
  PMPI_Type_get_extent(e->type, &lb, &extent);
  PMPI_Type_get_true_extent(e->type, &tlb, &textent);
  if (textent == size && extent == size)
    return; /* contiguous: SMPI copies the bytes as they are */
  warned = 1;
  fprintf(stderr,
          "icsim: warning: rank %d received %d bytes into a non-contiguous datatype of %d bytes per instance: "
          "SimGrid's SMPI 3.32 unpacks whole instances only, so the last %d bytes were not written to the "
          "receive buffer (said once per run)\n",
          e->owner, bytes, size, bytes % size);
}

/* Hand a taken receive back to the application. Returns its error (MPI_ERR_TRUNCATE when the
 * message was longer than the buffer: SMPI puts it in the status it gives the engine). */
static int give_back(MPI_Request *r, struct entry *e, MPI_Status *st)
{
  int bytes = 0;
  if (e->kind == RECV && !e->null_peer && e->type && e->type != MPI_DATATYPE_NULL && e->st.MPI_ERROR == MPI_SUCCESS &&
      PMPI_Get_count(&e->st, MPI_BYTE, &bytes) == MPI_SUCCESS && icsim_type_cuts_element(e->type, bytes))
    e->st.MPI_ERROR = MPI_ERR_TRUNCATE; /* native MPICH 4.0.2's answer to bytes that end inside an element */
  int err = e->st.MPI_ERROR;
  warn_partial_instance(e);
  if (st != MPI_STATUS_IGNORE) {
    *st = e->st;
    if (e->kind == RECV && !e->null_peer && e->comm != MPI_COMM_NULL && !e->has_group)
      st->MPI_SOURCE = icsim_inter_source(e->comm, st->MPI_SOURCE); /* a rank of the remote group */
  }
  e->done = 0;
  if (!e->user_persistent) {
    remove_entry(e);
    *r = MPI_REQUEST_NULL;
  }
  return err;
}

/* What a call completing several requests returns when one of them failed: MPI_ERR_IN_STATUS,
 * each status saying which (MPI 3.1, 3.7.5), or the error itself when the statuses are ignored. */
static int in_status(int first_err, MPI_Status *statuses)
{
  if (first_err == MPI_SUCCESS)
    return MPI_SUCCESS;
  return statuses == MPI_STATUSES_IGNORE ? first_err : MPI_ERR_IN_STATUS;
}
#define NOTE_ERR(var, err)                                                                                  \
  do {                                                                                                     \
    int e_ = (err);                                                                                        \
    if (e_ != MPI_SUCCESS && (var) == MPI_SUCCESS)                                                         \
      (var) = e_;                                                                                          \
  } while (0)

static MPI_Status *status_at(MPI_Status *sts, int i) { return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i]; }

/* The arrays a block hands to PMPI_Waitany: kept per wait call (not per block), grown as needed. */
struct block_scratch {
  MPI_Request *all;
  struct entry **ents;
  int cap;
};

/* Block until something happens to the rank: one of the application's PMPI-owned requests
 * OTHERS[0..n) (slots SLOTS) completes, or one of the rank's receives lands (taken here).
 * SC: arrays to reuse (NULL: made for this block). Returns the slot that completed (its request and status
 * updated in REQS and ST), -1 when a receive was taken, -2 when nothing is active at all. */
static int block_once(MPI_Request *reqs, const int *slots, int n, MPI_Status *st_out, struct block_scratch *sc)
{
  int me = icsim_my_rank();
  ensure_ranks(me);
  int na = 0;
  for (struct entry *e = active_head[me]; e; e = e->anext)
    na++;
  struct block_scratch local = {NULL, NULL, 0};
  if (!sc)
    sc = &local;
  if (n + na + 1 > sc->cap) {
    int cap = n + na + 1 > 2 * sc->cap ? n + na + 1 : 2 * sc->cap;
    sc->all = realloc(sc->all, (size_t)cap * sizeof *sc->all);
    sc->ents = realloc(sc->ents, (size_t)cap * sizeof *sc->ents);
    sc->cap = cap;
  }
  MPI_Request *all = sc->all;
  struct entry **ents = sc->ents;
  for (int i = 0; i < n; i++)
    all[i] = reqs[slots[i]];
  int k = 0;
  for (struct entry *e = active_head[me]; e; e = e->anext) {
    ents[k] = e;
    all[n + k++] = e->live;
  }
  int index;
  MPI_Status st;
  if (icsim_direct_ok())
    icsim_smpi_waitany(n + na, all, &index, &st);
  else
    PMPI_Waitany(n + na, all, &index, &st);
  int result;
  if (index == MPI_UNDEFINED) {
    result = -2;
  } else if (index < n) {
    reqs[slots[index]] = all[index];
    if (st_out)
      *st_out = st;
    result = slots[index];
  } else {
    take(ents[index - n], &st);
    result = -1;
  }
  if (sc == &local) {
    free(local.all);
    free(local.ents);
  }
  return result;
}

/* Where the request of a wait's slot stands, from the entry found for it once (NULL: not the
 * engine's). Entries leave the table only through the wait itself while the rank waits. */
static enum standing standing_cached(MPI_Request r, struct entry *e)
{
  if (r == MPI_REQUEST_NULL)
    return GONE;
  if (!e)
    return PMPI_OWNED;
  if (e->done)
    return TAKEN;
  return e->active ? WAITING : GONE;
}

static int wait_all(int n, MPI_Request reqs[], MPI_Status statuses[]);

/* The layer's own waits on several requests (MPI_Sendrecv, the collectives): the caller hands an
 * error to the communicator it concerns. */
int icsim_engine_waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) { return wait_all(n, reqs, statuses); }

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
  if (!icsim_runtime_get())
    return PMPI_Waitall(n, reqs, statuses);
  before_wait(n, reqs);
  return icsim_error(MPI_COMM_WORLD, "MPI_Waitall", wait_all(n, reqs, statuses));
}

static int wait_all(int n, MPI_Request reqs[], MPI_Status statuses[])
{
  icsim_charge_call("MPI_Waitall");
  int err = MPI_SUCCESS;
  char *finished = calloc((size_t)(n > 0 ? n : 1), 1);
  int *slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *slots);
  /* each request is looked up once: a block changes only the entry it takes (or a PMPI request
   * it completes), so the rescans between blocks read the entries, not the table */
  struct entry **ent = malloc((size_t)(n > 0 ? n : 1) * sizeof *ent);
  for (int i = 0; i < n; i++)
    standing_of(reqs[i], &ent[i]);
  struct block_scratch sc = {NULL, NULL, 0};
  /* No poll here: each block waits on every receive of the rank too, so what has landed is taken
   * by the first blocks. (SimGrid 3.32 keeps a communication completed through a test in its
   * actor's list of activities for good, which makes every later computation slower: waits only.) */
  for (;;) {
    int nothers = 0, waiting = 0;
    for (int i = 0; i < n; i++) {
      if (finished[i])
        continue;
      struct entry *e = ent[i];
      switch (standing_cached(reqs[i], e)) {
      case GONE: empty_status(status_at(statuses, i)); finished[i] = 1; break;
      case TAKEN: NOTE_ERR(err, give_back(&reqs[i], e, status_at(statuses, i))); finished[i] = 1; break;
      case WAITING: waiting++; break;
      case PMPI_OWNED: slots[nothers++] = i; break;
      }
    }
    if (nothers == 0 && waiting == 0)
      break;
    MPI_Status st;
    int g = block_once(reqs, slots, nothers, &st, &sc);
    if (g >= 0) {
      finished[g] = 1;
      NOTE_ERR(err, st.MPI_ERROR);
      if (statuses != MPI_STATUSES_IGNORE)
        statuses[g] = st;
    }
    if (g == -2) { /* only inactive requests left */
      for (int i = 0; i < nothers; i++) {
        empty_status(status_at(statuses, slots[i]));
        finished[slots[i]] = 1;
      }
      if (waiting == 0)
        break;
    }
  }
  free(sc.all);
  free(sc.ents);
  free(ent);
  free(finished);
  free(slots);
  return in_status(err, statuses);
}

static int wait_any(int n, MPI_Request reqs[], int *index, MPI_Status *status);

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
  if (!icsim_runtime_get())
    return PMPI_Waitany(n, reqs, index, status);
  before_wait(n, reqs);
  return icsim_error(MPI_COMM_WORLD, "MPI_Waitany", wait_any(n, reqs, index, status));
}

/* A call that completes one request leaves the status' MPI_ERROR as the program set it, unless it
 * fails (MPI 3.1, 3.2.5: only the calls completing several requests set the field on success). */
static int keep_error_field(MPI_Status *status, int saved, int rc)
{
  if (status != MPI_STATUS_IGNORE && rc == MPI_SUCCESS)
    status->MPI_ERROR = saved;
  return rc;
}
#define ERROR_FIELD(status) ((status) != MPI_STATUS_IGNORE ? (status)->MPI_ERROR : 0)

static int wait_any_status(int n, MPI_Request reqs[], int *index, MPI_Status *status);

static int wait_any(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
  int saved = ERROR_FIELD(status);
  return keep_error_field(status, saved, wait_any_status(n, reqs, index, status));
}

static int wait_any_status(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
  icsim_charge_call("MPI_Waitany");
  int *slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *slots);
  *index = MPI_UNDEFINED;
  /* No poll here: each block waits on every receive of the rank too, so what has landed is taken
   * by the first blocks. (SimGrid 3.32 keeps a communication completed through a test in its
   * actor's list of activities for good, which makes every later computation slower: waits only.) */
  for (;;) {
    int nothers = 0, waiting = 0;
    for (int i = 0; i < n; i++) {
      struct entry *e;
      enum standing s = standing_of(reqs[i], &e);
      if (s == TAKEN) {
        int err = give_back(&reqs[i], e, status);
        *index = i;
        free(slots);
        return err;
      }
      waiting += s == WAITING;
      if (s == PMPI_OWNED)
        slots[nothers++] = i;
    }
    if (nothers == 0 && waiting == 0)
      break;
    MPI_Status st;
    int got = block_once(reqs, slots, nothers, &st, NULL);
    if (got >= 0) {
      if (status != MPI_STATUS_IGNORE)
        *status = st;
      *index = got;
      free(slots);
      return st.MPI_ERROR;
    }
    if (got == -2 && waiting == 0)
      break;
  }
  empty_status(status);
  free(slots);
  return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
  if (!icsim_runtime_get())
    return PMPI_Wait(req, status);
  before_wait(1, req);
  int index;
  return icsim_error(MPI_COMM_WORLD, "MPI_Wait", wait_any(1, req, &index, status));
}

/* The layer's own waits (MPI_Send, MPI_Recv...): their caller hands an error to its communicator. */
int icsim_engine_wait(MPI_Request *req, MPI_Status *status)
{
  int index;
  return wait_any(1, req, &index, status);
}

/* Testsome and Waitsome: the taken receives, then what PMPI reports of the others. Returns the
 * count, or MPI_UNDEFINED when every request is null or inactive. */
static int some(int n, MPI_Request reqs[], int *indices, MPI_Status statuses[], int *nwaiting, int *err)
{
  icsim_engine_poll();
  int out = 0, nothers = 0, live = 0;
  int *slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *slots);
  *nwaiting = 0;
  for (int i = 0; i < n; i++) {
    struct entry *e;
    switch (standing_of(reqs[i], &e)) {
    case GONE: break;
    case TAKEN:
      NOTE_ERR(*err, give_back(&reqs[i], e, status_at(statuses, out)));
      indices[out++] = i;
      live++;
      break;
    case WAITING: (*nwaiting)++; live++; break;
    case PMPI_OWNED: slots[nothers++] = i; break;
    }
  }
  if (nothers > 0) {
    MPI_Request *sub = malloc((size_t)nothers * sizeof *sub);
    int *idx = malloc((size_t)nothers * sizeof *idx);
    MPI_Status *sts = malloc((size_t)nothers * sizeof *sts);
    for (int i = 0; i < nothers; i++)
      sub[i] = reqs[slots[i]];
    int got = 0;
    PMPI_Testsome(nothers, sub, &got, idx, sts);
    if (got != MPI_UNDEFINED) {
      live += nothers;
      for (int i = 0; i < got; i++) {
        indices[out] = slots[idx[i]];
        NOTE_ERR(*err, sts[i].MPI_ERROR);
        if (statuses != MPI_STATUSES_IGNORE)
          statuses[out] = sts[i];
        out++;
      }
    }
    for (int i = 0; i < nothers; i++)
      reqs[slots[i]] = sub[i];
    free(sub);
    free(idx);
    free(sts);
  }
  free(slots);
  return live == 0 ? MPI_UNDEFINED : out;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
  if (!icsim_runtime_get())
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
  before_wait(n, reqs);
  icsim_charge_call("MPI_Testsome");
  int waiting, err = MPI_SUCCESS;
  *outcount = some(n, reqs, indices, statuses, &waiting, &err);
  if (*outcount == 0)
    icsim_charge_poll();
  return icsim_error(MPI_COMM_WORLD, "MPI_Testsome", in_status(err, statuses));
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
  if (!icsim_runtime_get())
    return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
  before_wait(n, reqs);
  icsim_charge_call("MPI_Waitsome");
  int *slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *slots);
  int err = MPI_SUCCESS;
  for (;;) {
    int waiting;
    *outcount = some(n, reqs, indices, statuses, &waiting, &err);
    if (*outcount != 0)
      break;
    /* nothing yet: block on everything, then look again */
    int nothers = 0;
    for (int i = 0; i < n; i++) {
      struct entry *e;
      if (standing_of(reqs[i], &e) == PMPI_OWNED)
        slots[nothers++] = i;
    }
    MPI_Status st;
    int got = block_once(reqs, slots, nothers, &st, NULL);
    if (got >= 0) {
      indices[0] = got;
      NOTE_ERR(err, st.MPI_ERROR);
      if (statuses != MPI_STATUSES_IGNORE)
        statuses[0] = st;
      *outcount = 1;
      break;
    }
    if (got == -2 && waiting == 0) {
      *outcount = MPI_UNDEFINED;
      break;
    }
  }
  free(slots);
  return icsim_error(MPI_COMM_WORLD, "MPI_Waitsome", in_status(err, statuses));
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
  if (!icsim_runtime_get())
    return PMPI_Test(req, flag, status);
  before_wait(1, req);
  icsim_charge_call("MPI_Test");
  icsim_engine_poll();
  struct entry *e;
  int rc = MPI_SUCCESS, saved = ERROR_FIELD(status);
  switch (standing_of(*req, &e)) {
  case GONE: *flag = 1; empty_status(status); break;
  case TAKEN: *flag = 1; rc = give_back(req, e, status); break;
  case WAITING: *flag = 0; break;
  case PMPI_OWNED: rc = PMPI_Test(req, flag, status); break;
  }
  if (!*flag)
    icsim_charge_poll();
  return icsim_error(MPI_COMM_WORLD, "MPI_Test", keep_error_field(status, saved, rc));
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
  if (!icsim_runtime_get())
    return PMPI_Testany(n, reqs, index, flag, status);
  before_wait(n, reqs);
  icsim_charge_call("MPI_Testany");
  icsim_engine_poll();
  int waiting = 0, nothers = 0, rc = MPI_SUCCESS, saved = ERROR_FIELD(status);
  int *slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *slots);
  *flag = 0;
  *index = MPI_UNDEFINED;
  for (int i = 0; i < n && !*flag; i++) {
    struct entry *e;
    switch (standing_of(reqs[i], &e)) {
    case GONE: break;
    case TAKEN: rc = give_back(&reqs[i], e, status); *index = i; *flag = 1; break;
    case WAITING: waiting++; break;
    case PMPI_OWNED: slots[nothers++] = i; break;
    }
  }
  if (!*flag && nothers > 0) {
    MPI_Request *sub = malloc((size_t)nothers * sizeof *sub);
    for (int i = 0; i < nothers; i++)
      sub[i] = reqs[slots[i]];
    int k, f;
    PMPI_Testany(nothers, sub, &k, &f, status);
    if (f && k != MPI_UNDEFINED) {
      reqs[slots[k]] = sub[k];
      *index = slots[k];
      *flag = 1;
    } else if (f && waiting == 0) {
      *flag = 1; /* every request null or inactive */
    }
    free(sub);
  } else if (!*flag && waiting == 0) {
    *flag = 1;
    empty_status(status);
  }
  free(slots);
  if (!*flag)
    icsim_charge_poll();
  return icsim_error(MPI_COMM_WORLD, "MPI_Testany", keep_error_field(status, saved, rc));
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
  if (!icsim_runtime_get())
    return PMPI_Testall(n, reqs, flag, statuses);
  before_wait(n, reqs);
  icsim_charge_call("MPI_Testall");
  icsim_engine_poll();
  int nothers = 0, err = MPI_SUCCESS;
  int *slots = malloc((size_t)(n > 0 ? n : 1) * sizeof *slots);
  *flag = 1;
  for (int i = 0; i < n; i++) {
    struct entry *e;
    enum standing s = standing_of(reqs[i], &e);
    if (s == WAITING)
      *flag = 0;
    if (s == PMPI_OWNED)
      slots[nothers++] = i;
  }
  /* Testall completes all or nothing: the PMPI-owned ones are asked only when every receive is in */
  if (*flag && nothers > 0) {
    MPI_Request *sub = malloc((size_t)nothers * sizeof *sub);
    MPI_Status *sts = malloc((size_t)nothers * sizeof *sts);
    for (int i = 0; i < nothers; i++)
      sub[i] = reqs[slots[i]];
    PMPI_Testall(nothers, sub, flag, sts);
    if (*flag)
      for (int i = 0; i < nothers; i++) {
        reqs[slots[i]] = sub[i];
        NOTE_ERR(err, sts[i].MPI_ERROR);
        if (statuses != MPI_STATUSES_IGNORE)
          statuses[slots[i]] = sts[i];
      }
    free(sub);
    free(sts);
  }
  if (*flag)
    for (int i = 0; i < n; i++) {
      struct entry *e;
      enum standing s = standing_of(reqs[i], &e);
      if (s == TAKEN)
        NOTE_ERR(err, give_back(&reqs[i], e, status_at(statuses, i)));
      else if (s == GONE)
        empty_status(status_at(statuses, i));
    }
  else
    icsim_charge_poll();
  free(slots);
  return icsim_error(MPI_COMM_WORLD, "MPI_Testall", in_status(err, statuses));
}

int MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *status)
{
  if (!icsim_runtime_get())
    return PMPI_Request_get_status(req, flag, status);
  before_wait(1, &req);
  icsim_charge_call("MPI_Request_get_status");
  icsim_engine_poll();
  struct entry *e;
  switch (standing_of(req, &e)) {
  case GONE: *flag = 1; empty_status(status); break;
  case TAKEN:
    *flag = 1;
    if (status != MPI_STATUS_IGNORE)
      *status = e->st;
    break;
  case WAITING: *flag = 0; break;
  case PMPI_OWNED: return PMPI_Request_get_status(req, flag, status);
  }
  if (!*flag)
    icsim_charge_poll();
  return MPI_SUCCESS;
}

/* Sends the application freed while still in flight (orphans, declared above). SMPI 3.32 drops
 * such a send when it is large (the receiver never gets it), so the engine keeps the request and
 * lets it finish, testing it at every poll. */
static void tend_orphans(void)
{
  for (int i = 0; i < norphans;) {
    int flag = 0;
    PMPI_Test(&orphans[i], &flag, MPI_STATUS_IGNORE);
    if (flag)
      orphans[i] = orphans[--norphans];
    else
      i++;
  }
}

int MPI_Request_free(MPI_Request *req)
{
  struct entry *e = find(*req);
  if (!icsim_runtime_get())
    return PMPI_Request_free(req);
  before_wait(1, req);
  if (kind_free(req))
    return MPI_SUCCESS;
  if (!e) {
    int flag = 0;
    if (*req != MPI_REQUEST_NULL)
      PMPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (!flag && *req != MPI_REQUEST_NULL) {
      if (norphans == orphans_cap) {
        orphans_cap = orphans_cap ? 2 * orphans_cap : 16;
        orphans = realloc(orphans, (size_t)orphans_cap * sizeof *orphans);
      }
      orphans[norphans++] = *req;
    }
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  icsim_charge_call("MPI_Request_free");
  if (e->active) { /* the receive still lands and costs its CPU; then the engine frees it */
    e->free_on_done = 1;
  } else {
    remove_entry(e);
  }
  *req = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *req)
{
  if (!icsim_runtime_get())
    return PMPI_Start(req);
  icsim_charge_call("MPI_Start");
  int rc;
  if (req && kind_start(req, &rc)) /* a persistent collective (coll_persistent.c) */
    return rc;
  return icsim_engine_start(req);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
  if (!icsim_runtime_get())
    return PMPI_Startall(n, reqs);
  icsim_charge_call("MPI_Startall");
  for (int i = 0; i < n; i++) {
    int rc;
    if (kind_start(&reqs[i], &rc)) {
      if (rc != MPI_SUCCESS)
        return rc;
      continue;
    }
    rc = icsim_engine_start(&reqs[i]);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

/* A communicator freed while receives of the rank on it are in flight (MPI 3.1, 6.4.3: they
 * complete normally): each keeps the communicator's group, through which its source is named when
 * it lands (the communicator itself is gone by then). comm.c calls it before SMPI frees COMM. */
void icsim_engine_comm_freed(MPI_Comm comm)
{
  int me = icsim_my_rank();
  ensure_ranks(me);
  for (struct entry *e = active_head[me]; e; e = e->anext)
    if (e->kind == RECV && e->comm == comm && !e->has_group && PMPI_Comm_group(comm, &e->group) == MPI_SUCCESS)
      e->has_group = 1;
}

/* Cancelling (smpi_direct.cpp says why each step is needed under SimGrid 3.32).
 *
 * A request is cancelled only while it still waits unmatched in SMPI's mailbox; once the message
 * has matched (in flight, or landed and not yet taken), the cancel fails as MPI allows, and the
 * request completes normally (a receive with its data). SMPI's waitany reports a cancelled
 * communication as nothing completed (it catches the cancellation and returns MPI_UNDEFINED), so a
 * wait of the layer that included one would never end: the layer completes a cancelled request at
 * once with SMPI's own wait, which ends immediately when the cancel took (the status says
 * cancelled) or, for a send whose message had already matched, once it has landed; the
 * application's later wait or test gets the kept status. */
int icsim_smpi_cancel_recv(MPI_Request req);
int icsim_smpi_cancel_send(MPI_Request req);
int icsim_smpi_wait_cancelled(MPI_Request *req, MPI_Status *st);

int MPI_Cancel(MPI_Request *req)
{
  if (!icsim_runtime_get() || req == NULL || *req == MPI_REQUEST_NULL)
    return PMPI_Cancel(req);
  struct entry *e = find(*req);
  MPI_Status st;
  if (!e) {
    /* a request of SMPI's (a send): kept alive by a reference of the layer, so that its handle
     * stays the application's (and unique) until the application completes it */
    if (!icsim_smpi_cancel_send(*req))
      return MPI_SUCCESS; /* matched: it completes as any send does */
    icsim_smpi_ref(*req);
    MPI_Request r = *req;
    int rc = icsim_smpi_wait_cancelled(&r, &st);
    if (st.cancelled)
      icsim_withdraw_send(*req, 0);
    if (r != MPI_REQUEST_NULL) { /* a persistent one: SMPI keeps it, inactive, for the application */
      icsim_smpi_unref(r);
      return rc;
    }
    e = add_entry(*req, PSEND, icsim_my_rank());
    e->done = 1;
    e->st = st;
    return rc;
  }
  if (!e->active || e->live == MPI_REQUEST_NULL)
    return MPI_SUCCESS;
  if (!(e->kind == RECV ? icsim_smpi_cancel_recv(e->live) : icsim_smpi_cancel_send(e->live)))
    return MPI_SUCCESS; /* matched: it completes as any request does */
  int rc = icsim_smpi_wait_cancelled(&e->live, &st);
  if (e->kind == PSEND && st.cancelled)
    icsim_withdraw_send(MPI_REQUEST_NULL, e->announced);
  take(e, &st);
  return rc;
}
