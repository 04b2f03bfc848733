/* The one record the MPI layer keeps per communicator (comm_record.h): one keyval, one lookup.
 *
 * Lookup. A chained hash on the communicator's handle, since it is asked for every message
 * (icsim_world_rank: five PMPI calls per message without it) and SMPI's attribute calls cost two
 * clock syscalls each. The record also hangs on the communicator as the value of the layer's one
 * attribute, whose delete callback drops it: SMPI runs the callbacks on every path that destroys a
 * communicator (MPI_Comm_free from C or Fortran, MPI_Comm_disconnect; Comm::destroy ->
 * cleanup_attr in SMPI 3.32), so a new communicator made later at the same address starts
 * without a stale record. Its copy callback gives a duplicate (MPI_Comm_dup) a copy of the
 * topology only: shadows are per communicator, and an intercommunicator's duplicate is recorded
 * by MPI_Comm_dup itself (its local group needs a communicator of its own, made collectively).
 * A copied record does not know its communicator's handle yet (the copy callback is not told
 * it): the first lookup of the new handle finds it through the attribute and adopts it.
 *
 * MPI_COMM_WORLD is one SMPI object shared by all ranks (an attribute on it would be shared too):
 * its records are per world rank, in an array. MPI_COMM_SELF (SMPI makes one per rank and destroys
 * it after MPI_Finalize, whose start deletes its attributes: attr_self.c) has none: one rank needs
 * no shadow and is never an intercommunicator or a topology.
 *
 * Globals: SMPI runs one rank at a time and nothing here yields. Calls nothing of the layer's
 * above rank.c and lifecycle.c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_record.h"
#include "layer.h"

int icsim_ninters;

static int keyval = MPI_KEYVAL_INVALID;
static struct icsim_comm *bucket[1024];
static struct icsim_comm *world; /* by world rank */
static int nworld;
static int npending; /* copied records not yet adopted by their communicator's handle */

static size_t hash(MPI_Comm c) { return ((uintptr_t)c >> 4) % (sizeof bucket / sizeof bucket[0]); }

static void blank(struct icsim_comm *r, MPI_Comm comm)
{
  *r = (struct icsim_comm){.comm = comm, .world = -1, .coll = MPI_COMM_NULL, .nbc = MPI_COMM_NULL};
}

void icsim_topo_free(struct icsim_topo *t)
{
  if (!t)
    return;
  free(t->index);
  free(t->edges);
  free(t->in);
  free(t->inw);
  free(t->out);
  free(t->outw);
  free(t);
}

int *icsim_ints(const int *a, int n)
{
  int *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c);
  if (c && a && n > 0)
    memcpy(c, a, (size_t)n * sizeof *c);
  return c;
}

struct icsim_topo *icsim_topo_copy(const struct icsim_topo *t)
{
  struct icsim_topo *c = malloc(sizeof *c);
  if (!c)
    return NULL;
  *c = *t;
  c->index = icsim_ints(t->index, t->nnodes);
  c->edges = icsim_ints(t->edges, t->nedges);
  c->in = icsim_ints(t->in, t->indeg);
  c->inw = icsim_ints(t->inw, t->indeg);
  c->out = icsim_ints(t->out, t->outdeg);
  c->outw = icsim_ints(t->outw, t->outdeg);
  if (!c->index || !c->edges || !c->in || !c->inw || !c->out || !c->outw) {
    icsim_topo_free(c);
    return NULL;
  }
  return c;
}

struct icsim_topo *icsim_topo_of(MPI_Comm comm)
{
  struct icsim_comm *r = icsim_comm_find(comm);
  return r ? r->topo : NULL;
}

void icsim_topo_mark_cart(MPI_Comm comm)
{
  struct icsim_comm *r = comm == MPI_COMM_NULL ? NULL : icsim_comm_get(comm);
  struct icsim_topo *t = r ? calloc(1, sizeof *t) : NULL;
  if (!t)
    return;
  t->kind = MPI_CART;
  icsim_topo_free(r->topo);
  r->topo = t;
}

static void unhash(struct icsim_comm *r)
{
  if (r->comm == MPI_COMM_NULL) {
    npending--;
    return;
  }
  for (struct icsim_comm **at = &bucket[hash(r->comm)]; *at; at = &(*at)->next)
    if (*at == r) {
      *at = r->next;
      return;
    }
}

/* The communicator is being destroyed: so are its shadows, topology and intercommunicator groups. */
static int drop(MPI_Comm comm, int key, void *value, void *extra)
{
  (void)comm, (void)key, (void)extra;
  struct icsim_comm *r = value;
  unhash(r);
  if (r->coll != MPI_COMM_NULL)
    PMPI_Comm_free(&r->coll);
  if (r->nbc != MPI_COMM_NULL)
    PMPI_Comm_free(&r->nbc);
  icsim_topo_free(r->topo);
  if (r->inter) {
    if (r->inter->local != MPI_COMM_NULL)
      PMPI_Comm_free(&r->inter->local);
    free(r->inter);
    icsim_ninters--;
  }
  free(r);
  return MPI_SUCCESS;
}

static int copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
  (void)old, (void)key, (void)extra;
  const struct icsim_comm *from = in;
  *flag = 0;
  if (!from->topo)
    return MPI_SUCCESS;
  struct icsim_comm *r = malloc(sizeof *r);
  struct icsim_topo *t = icsim_topo_copy(from->topo);
  if (!r || !t) {
    free(r);
    icsim_topo_free(t);
    return MPI_ERR_NO_MEM;
  }
  blank(r, MPI_COMM_NULL);
  r->topo = t;
  npending++;
  *(void **)out = r;
  *flag = 1;
  return MPI_SUCCESS;
}

static struct icsim_comm *world_record(void)
{
  if (!world) {
    PMPI_Comm_size(MPI_COMM_WORLD, &nworld);
    world = malloc((size_t)nworld * sizeof *world);
    for (int i = 0; i < nworld; i++)
      blank(&world[i], MPI_COMM_WORLD);
  }
  int me = icsim_my_rank();
  return me >= 0 && me < nworld ? &world[me] : NULL;
}

static void insert(struct icsim_comm *r)
{
  size_t h = hash(r->comm);
  r->next = bucket[h];
  bucket[h] = r;
}

struct icsim_comm *icsim_comm_find(MPI_Comm comm)
{
  if (comm == MPI_COMM_NULL || comm == MPI_COMM_SELF)
    return NULL;
  if (comm == MPI_COMM_WORLD)
    return world_record();
  for (struct icsim_comm *r = bucket[hash(comm)]; r; r = r->next)
    if (r->comm == comm)
      return r;
  if (!npending || keyval == MPI_KEYVAL_INVALID)
    return NULL;
  struct icsim_comm *r = NULL;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, keyval, &r, &found) != MPI_SUCCESS || !found || !r)
    return NULL;
  if (r->comm == MPI_COMM_NULL) { /* a copy made by MPI_Comm_dup, met for the first time */
    npending--;
    r->comm = comm;
    insert(r);
  }
  return r;
}

struct icsim_comm *icsim_comm_get(MPI_Comm comm)
{
  struct icsim_comm *r = icsim_comm_find(comm);
  if (r || comm == MPI_COMM_NULL || comm == MPI_COMM_SELF)
    return r;
  if (keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(copy, drop, &keyval, NULL);
  r = malloc(sizeof *r);
  if (!r)
    return NULL;
  blank(r, comm);
  if (PMPI_Comm_set_attr(comm, keyval, r) != MPI_SUCCESS) { /* no way to learn of its end */
    free(r);
    return NULL;
  }
  insert(r);
  return r;
}

/* ---- intercommunicators ---- */

int icsim_inter_peer(MPI_Comm comm, int rank)
{
  const struct icsim_inter *x = icsim_inter_of(comm);
  if (!x || rank < 0) /* MPI_PROC_NULL, MPI_ANY_SOURCE */
    return rank;
  return rank < x->rsize ? x->rbase + rank : -1000000; /* SMPI reports MPI_ERR_RANK */
}

int icsim_inter_source(MPI_Comm comm, int union_rank)
{
  const struct icsim_inter *x = icsim_inter_of(comm);
  if (!x || union_rank < 0)
    return union_rank;
  int r = union_rank - x->rbase;
  return r >= 0 && r < x->rsize ? r : -1;
}

void icsim_inter_refuse(MPI_Comm comm, const char *call)
{
  if (!icsim_inter_of(comm))
    return;
  fprintf(stderr,
          "icsim: %s on an intercommunicator: MPI defines it for intracommunicators only (the MPI layer "
          "takes point-to-point, collectives, MPI_Comm_dup, _split, _create and MPI_Intercomm_merge on "
          "intercommunicators; SimGrid's SMPI 3.32 has none of its own)\n",
          call);
  icsim_stop(3);
}

/* ---- world ranks ---- */

int icsim_group_world_rank(MPI_Group g, int r)
{
  MPI_Group wg;
  int out = MPI_UNDEFINED;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, 1, &r, wg, &out);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  return out;
}

/* Communicators whose ranks are the world's (the collectives' shadows of MPI_COMM_WORLD, a dup of
 * it) answer icsim_world_rank from their record instead of five PMPI calls per message. */
static int ranks_are_world(MPI_Comm comm)
{
  struct icsim_comm *r = icsim_comm_find(comm);
  if (r && r->world >= 0)
    return r->world;
  MPI_Group g, wg;
  int cmp = MPI_UNEQUAL;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_compare(g, wg, &cmp);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  if (!r)
    r = icsim_comm_get(comm);
  if (!r)
    return 0; /* no way to learn of its end: not kept */
  r->world = cmp == MPI_IDENT;
  return r->world;
}

int icsim_world_rank(MPI_Comm comm, int r)
{
  if (comm == MPI_COMM_WORLD || r < 0 || r == MPI_ANY_SOURCE)
    return r;
  if (comm != MPI_COMM_SELF && ranks_are_world(comm))
    return r;
  MPI_Group g;
  PMPI_Comm_group(comm, &g);
  return icsim_group_world_rank(g, r);
}

