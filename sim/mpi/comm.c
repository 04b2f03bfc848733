/* Communicators: their constructors (dup, split, create, the Cartesian ones, MPI_Comm_idup), their
 * release, and the bracket around SMPI's messages inside them (smpi_bracket.c). What the layer
 * keeps per communicator is its record (comm_record.c); intercommunicators are made in
 * intercomm.c, graph topologies in topology.c. */
#include <stdlib.h>

#include "coll.h"
#include "comm_record.h"
#include "layer.h"

/* A duplicate of an intercommunicator is one too (intercomm.c). */
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
  icsim_smpi_enter("MPI_Comm_dup");
  int rc = icsim_smpi_leave(PMPI_Comm_dup(comm, out));
  if (rc == MPI_SUCCESS && out && icsim_runtime_get())
    icsim_inter_dup(comm, *out);
  return rc;
}
/* Communicators made from another. From an intercommunicator: split and create make
 * intercommunicators (intercomm.c); split_type and create_group are refused (intracommunicators
 * only). */
#define COMM_MAKER(NAME, PARAMS, ARGS, INTER)                                                               \
  int MPI_##NAME PARAMS                                                                                    \
  {                                                                                                        \
    if (icsim_inter_of(comm))                                                                              \
      INTER;                                                                                               \
    icsim_smpi_enter("MPI_" #NAME);                                                                         \
    return icsim_smpi_leave(PMPI_##NAME ARGS);                                                               \
  }
COMM_MAKER(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *out), (comm, color, key, out),
           return icsim_inter_split(comm, color, key, out))
COMM_MAKER(Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out),
           (comm, type, key, info, out), icsim_inter_refuse(comm, "MPI_Comm_split_type"))
COMM_MAKER(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *out), (comm, group, out),
           return icsim_inter_create(comm, group, out))
COMM_MAKER(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out), (comm, group, tag, out),
           icsim_inter_refuse(comm, "MPI_Comm_create_group"))
/* Cartesian communicators: SMPI's messages bracketed, and the result marked for MPI_Topo_test
 * (topology.c: SMPI's is a stub). */
int MPI_Cart_create(MPI_Comm comm, int ndims, const int *dims, const int *periods, int reorder, MPI_Comm *out)
{
  icsim_smpi_enter("MPI_Cart_create");
  int rc = icsim_smpi_leave(PMPI_Cart_create(comm, ndims, dims, periods, reorder, out));
  if (rc == MPI_SUCCESS && out && icsim_runtime_get())
    icsim_topo_mark_cart(*out);
  return rc;
}

int MPI_Cart_sub(MPI_Comm comm, const int *remain, MPI_Comm *out)
{
  icsim_smpi_enter("MPI_Cart_sub");
  int rc = icsim_smpi_leave(PMPI_Cart_sub(comm, remain, out));
  if (rc == MPI_SUCCESS && out && icsim_runtime_get())
    icsim_topo_mark_cart(*out);
  return rc;
}
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *out)
{
  icsim_smpi_enter("MPI_Comm_dup_with_info");
  int rc = icsim_smpi_leave(PMPI_Comm_dup_with_info(comm, info, out));
  if (rc == MPI_SUCCESS && out && icsim_runtime_get())
    icsim_inter_dup(comm, *out);
  return rc;
}

/* MPI 4.0's MPI_Intercomm_create_from_groups (SMPI 3.32 has none): the local group becomes a
 * communicator (MPI_Comm_create_group over MPI_COMM_WORLD: only its members take part), whose
 * leader meets the remote leader over MPI_COMM_WORLD, as MPI_Intercomm_create does. The string tag
 * becomes a tag both sides compute alike. */
int MPI_Intercomm_create_from_groups(MPI_Group lg, int local_leader, MPI_Group rg, int remote_leader,
                                     const char *stringtag, MPI_Info info, MPI_Errhandler eh, MPI_Comm *out)
{
  (void)info;
  if (!out || lg == MPI_GROUP_NULL || rg == MPI_GROUP_NULL || !stringtag)
    return icsim_error(MPI_COMM_WORLD, "MPI_Intercomm_create_from_groups", !out || !stringtag ? MPI_ERR_ARG : MPI_ERR_GROUP);
  unsigned h = 5381;
  for (const char *c = stringtag; *c; c++)
    h = h * 33 + (unsigned char)*c;
  int tag = (int)(h % 30000u) + 1;
  MPI_Group wg;
  int wl = MPI_UNDEFINED;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(rg, 1, &remote_leader, wg, &wl);
  PMPI_Group_free(&wg);
  if (wl == MPI_UNDEFINED)
    return icsim_error(MPI_COMM_WORLD, "MPI_Intercomm_create_from_groups", MPI_ERR_RANK);
  MPI_Comm local = MPI_COMM_NULL;
  int rc = MPI_Comm_create_group(MPI_COMM_WORLD, lg, tag, &local);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = MPI_Intercomm_create(local, local_leader, MPI_COMM_WORLD, wl, tag, out);
  MPI_Comm_free(&local);
  if (rc == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL)
    PMPI_Comm_set_errhandler(*out, eh);
  return rc;
}

/* MPI_Comm_free and MPI_Comm_disconnect. Receives of the rank in flight on the communicator keep
 * its group (engine.c); SMPI's freeing may exchange messages of its own (its MPICH-style
 * collectives keep per-node communicators), and destroys the layer's record of it (its shadows,
 * topology and intercommunicator groups: comm_record.c), all inside the bracket. */
static int free_comm(MPI_Comm *comm, int (*pmpi)(MPI_Comm *))
{
  if (!icsim_runtime_get())
    return pmpi(comm);
  MPI_Comm c = comm ? *comm : MPI_COMM_NULL;
  if (c != MPI_COMM_NULL)
    icsim_engine_comm_freed(c);
  icsim_smpi_enter(NULL);
  return icsim_smpi_leave(pmpi(comm));
}

int MPI_Comm_free(MPI_Comm *comm) { return free_comm(comm, PMPI_Comm_free); }
int MPI_Comm_disconnect(MPI_Comm *comm) { return free_comm(comm, PMPI_Comm_disconnect); }

/* MPI_Comm_idup and MPI 4.0's MPI_Comm_idup_with_info (SMPI 3.32 has neither: its MPI_Comm_idup
 * is a stub). Unlike the collectives above, the duplication is deferred: it is made when the
 * program first waits for or tests the request (or frees it), after this rank's idups of the same
 * communicator started before it (MPI's order of collectives), several in the order of their
 * communicators' SMPI identifiers, which every rank shares. A program may
 * go on communicating between the idup and its wait, which a duplication at the call would block:
 * MPICH's comm_idup tests have rank 0 receive from every other rank before it calls MPI_Comm_idup,
 * while the others call it first and then send. The new communicator is written at completion, as
 * MPI allows (it may not be used before). Through a call layer's program-side library that writes a
 * call's output handles when the call returns, the duplication is made at the call. */
int icsim_outputs_at_return; /* set by such a library (stack.h: a call layer) */

struct deferred_dup {
  MPI_Request req; /* the request handed to the program (already complete for SMPI) */
  MPI_Comm comm, *out;
  MPI_Info info;
  int with_info;   /* MPI_Comm_idup_with_info */
  int needed;      /* to be made by the wait under way */
  int rank;        /* world rank that started it */
  struct deferred_dup *next;
};
static struct deferred_dup *deferred; /* every rank's, in the order they were started */
static int ndeferred;

static int idup(const char *call, MPI_Comm comm, int with_info, MPI_Info info, MPI_Comm *newcomm, MPI_Request *req,
                int at_call)
{
  if (req == NULL || newcomm == NULL)
    return icsim_error(comm, call, MPI_ERR_ARG);
  if (icsim_runtime_get() && comm != MPI_COMM_NULL && !icsim_context_ids_left()) {
    /* MPICH's "too many communicators", at the wait */
    *newcomm = MPI_COMM_NULL;
    return icsim_error(comm, call, icsim_engine_failed_request(req, MPI_ERR_OTHER));
  }
  if (at_call || icsim_outputs_at_return || !icsim_runtime_get()) {
    int rc = with_info ? MPI_Comm_dup_with_info(comm, info, newcomm) : MPI_Comm_dup(comm, newcomm);
    if (rc != MPI_SUCCESS)
      return rc; /* MPI_Comm_dup has handed it to the error handler */
    icsim_context_ids_taken(*newcomm); /* the layer's own MPI_Comm_dup is outside the bracket */
    return icsim_error(comm, call, icsim_coll_done_request(req));
  }
  int flag = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &flag) != MPI_SUCCESS)
    return icsim_error(comm, call, MPI_ERR_COMM);
  int rc = icsim_coll_done_request(req);
  if (rc != MPI_SUCCESS)
    return icsim_error(comm, call, rc);
  struct deferred_dup *d = malloc(sizeof *d), **tail = &deferred;
  *d = (struct deferred_dup){*req, comm, newcomm, info, with_info, 0, icsim_my_rank(), NULL};
  while (*tail)
    tail = &(*tail)->next;
  *tail = d;
  ndeferred++;
  *newcomm = MPI_COMM_NULL;
  icsim_context_ids_taken(comm); /* from the call, as MPICH takes the id before the wait */
  return MPI_SUCCESS;
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *req)
{
  return idup("MPI_Comm_idup_with_info", comm, 1, info, newcomm, req, 0);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
  return idup("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, req, 0);
}

/* The Fortran binding's: it converts the new communicator to a Fortran handle when the call
 * returns, so the duplication is made at the call. */
int icsim_comm_idup_at_call(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req)
{
  return idup("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, req, 1);
}

static void deferred_run(int n, const MPI_Request *reqs)
{
  if (!ndeferred || !reqs)
    return;
  int me = icsim_my_rank(), need = 0;
  /* needed: this rank's idups among REQS and, on the same communicator, those started before them */
  for (struct deferred_dup *d = deferred; d; d = d->next) {
    if (d->rank != me)
      continue; /* other ranks' (every rank shares the list; each marks only its own) */
    d->needed = 0;
    for (int i = 0; i < n; i++)
      if (reqs[i] != MPI_REQUEST_NULL && reqs[i] == d->req)
        d->needed = 1;
  }
  for (struct deferred_dup *d = deferred; d; d = d->next)
    if (d->rank == me && d->needed)
      for (struct deferred_dup *e = deferred; e != d; e = e->next)
        if (e->rank == me && e->comm == d->comm)
          e->needed = 1;
  for (struct deferred_dup *d = deferred; d; d = d->next)
    need += d->rank == me && d->needed;
  /* made in the order of their communicators' SMPI identifiers, the same on every rank (two ranks
   * may start idups of two communicators in opposite orders and wait for both), and on one
   * communicator in the order they were started */
  while (need-- > 0) {
    struct deferred_dup **best = NULL;
    for (struct deferred_dup **pp = &deferred; *pp; pp = &(*pp)->next)
      if ((*pp)->rank == me && (*pp)->needed &&
          (!best || icsim_smpi_comm_id((*pp)->comm) < icsim_smpi_comm_id((*best)->comm)))
        best = pp;
    if (!best)
      return;
    struct deferred_dup *d = *best;
    *best = d->next;
    ndeferred--;
    if (d->with_info)
      MPI_Comm_dup_with_info(d->comm, d->info, d->out);
    else
      MPI_Comm_dup(d->comm, d->out);
    free(d);
  }
}

/* The deferred duplications are made before any wait, test or free looks at their requests. */
static const struct icsim_request_kind idup_kind = {.what = "MPI_Comm_idup", .before_wait = deferred_run};

__attribute__((constructor)) static void register_idup(void) { icsim_request_kind_add(&idup_kind); }
