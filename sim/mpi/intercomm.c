/* Intercommunicators (MPI 3.1, 6.6), which SimGrid's SMPI 3.32 does not implement. An
 * intercommunicator is kept as an ordinary SMPI communicator over the union of its two groups
 * (made with MPI_Comm_create_group: only the two groups take part), plus a record of which union
 * ranks are the local group's and which the remote group's. Point-to-point calls name a rank of the
 * remote group, which the layer turns into its union rank before SMPI sees it, and a received
 * message's source comes back as a rank of the remote group; since only the intercommunicator's
 * messages travel on the union communicator and they always cross between the groups, SMPI's
 * matching (MPI_ANY_SOURCE included) is the intercommunicator's. MPI_Comm_size, _rank and _group
 * answer for the local group, _remote_size and _remote_group for the other; MPI_Intercomm_merge
 * splits the union communicator, the group asking for "high" last; MPI_Comm_dup keeps the record.
 *
 * Not done, and refused with a message: collective operations on an intercommunicator (their
 * rooted forms and the group-to-group semantics: the layer's collectives are built for
 * intracommunicators), and making communicators from one (split, create). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

struct inter {
  MPI_Comm u;          /* this rank's handle of the union communicator */
  int lsize, rsize;    /* the local and the remote group's sizes */
  int lbase, rbase;    /* the union ranks of their first members: each group is a block of the union */
  int lrank;           /* this rank in the local group */
  int local_first;     /* the local group's block comes first (ties in MPI_Intercomm_merge) */
  struct inter *next;
};
static struct inter *inters;
static int ninters; /* 0 in nearly every run: every check below is then one comparison */

static struct inter *find(MPI_Comm comm)
{
  if (!ninters || comm == MPI_COMM_NULL)
    return NULL;
  for (struct inter *x = inters; x; x = x->next)
    if (x->u == comm)
      return x;
  return NULL;
}

int icsim_inter_of(MPI_Comm comm) { return find(comm) != NULL; }

int icsim_inter_peer(MPI_Comm comm, int rank)
{
  struct inter *x = find(comm);
  if (!x || rank < 0) /* MPI_PROC_NULL, MPI_ANY_SOURCE */
    return rank;
  return rank < x->rsize ? x->rbase + rank : -1000000; /* SMPI reports MPI_ERR_RANK */
}

int icsim_inter_source(MPI_Comm comm, int union_rank)
{
  struct inter *x = find(comm);
  if (!x || union_rank < 0)
    return union_rank;
  int r = union_rank - x->rbase;
  return r >= 0 && r < x->rsize ? r : -1;
}

static void forget(MPI_Comm comm)
{
  for (struct inter **p = &inters; *p; p = &(*p)->next)
    if ((*p)->u == comm) {
      struct inter *x = *p;
      *p = x->next;
      free(x);
      ninters--;
      return;
    }
}

/* Record union communicator U, whose first LN or RN ranks (LOCAL_FIRST says which) are the local
 * group, the rest the remote one, each in its own order. */
static int record(MPI_Comm u, int ln, int rn, int local_first)
{
  struct inter *x = calloc(1, sizeof *x);
  if (!x)
    return MPI_ERR_NO_MEM;
  int ur = -1;
  PMPI_Comm_rank(u, &ur);
  *x = (struct inter){.u = u, .lsize = ln, .rsize = rn, .lbase = local_first ? 0 : rn, .rbase = local_first ? ln : 0,
                      .local_first = local_first, .next = inters};
  x->lrank = ur - x->lbase;
  inters = x;
  ninters++;
  return MPI_SUCCESS;
}

static int *world_ranks(MPI_Comm comm, int *n)
{
  MPI_Group g, wg;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_size(g, n);
  int *in = malloc(sizeof(int) * (size_t)*n), *out = malloc(sizeof(int) * (size_t)*n);
  for (int i = 0; i < *n; i++)
    in[i] = i;
  PMPI_Group_translate_ranks(g, *n, in, wg, out);
  PMPI_Group_free(&g);
  PMPI_Group_free(&wg);
  free(in);
  return out;
}

int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader, int tag, MPI_Comm *out)
{
  if (!icsim_runtime_get())
    return PMPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, out);
  icsim_charge_call("MPI_Intercomm_create");
  if (local == MPI_COMM_NULL || !out)
    return icsim_error(local, "MPI_Intercomm_create", local == MPI_COMM_NULL ? MPI_ERR_COMM : MPI_ERR_ARG);
  int lrank = -1, ln = 0, rn = 0;
  PMPI_Comm_rank(local, &lrank);
  int *lw = world_ranks(local, &ln), *rw = NULL;
  /* the leaders swap their groups (world ranks) over the peer communicator;
   * each tells its group */
  if (lrank == local_leader) {
    MPI_Status st;
    int rc = icsim_sendrecv(&ln, 1, MPI_INT, remote_leader, tag, &rn, 1, MPI_INT, remote_leader, tag, peer, &st, 0);
    if (rc == MPI_SUCCESS) {
      rw = malloc(sizeof(int) * (size_t)(rn > 0 ? rn : 1));
      rc = icsim_sendrecv(lw, ln, MPI_INT, remote_leader, tag, rw, rn, MPI_INT, remote_leader, tag, peer, &st, 0);
    }
    if (rc != MPI_SUCCESS) {
      free(lw);
      free(rw);
      return icsim_error(peer, "MPI_Intercomm_create", rc);
    }
  }
  MPI_Bcast(&rn, 1, MPI_INT, local_leader, local);
  if (lrank != local_leader)
    rw = malloc(sizeof(int) * (size_t)(rn > 0 ? rn : 1));
  MPI_Bcast(rw, rn, MPI_INT, local_leader, local);
  /* the union, in an order both groups agree on: first the group holding the
   * smaller world rank */
  int lmin = ln ? lw[0] : 0, rmin = rn ? rw[0] : 0;
  for (int i = 0; i < ln; i++)
    lmin = lw[i] < lmin ? lw[i] : lmin;
  for (int i = 0; i < rn; i++)
    rmin = rw[i] < rmin ? rw[i] : rmin;
  int local_first = lmin < rmin, n = ln + rn;
  int *uw = malloc(sizeof(int) * (size_t)n);
  memcpy(uw + (local_first ? 0 : rn), lw, sizeof(int) * (size_t)ln);
  memcpy(uw + (local_first ? ln : 0), rw, sizeof(int) * (size_t)rn);
  MPI_Group wg, ug;
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_incl(wg, n, uw, &ug);
  int rc = MPI_Comm_create_group(MPI_COMM_WORLD, ug, tag, out);
  PMPI_Group_free(&ug);
  PMPI_Group_free(&wg);
  if (rc == MPI_SUCCESS)
    rc = record(*out, ln, rn, local_first);
  free(uw);
  free(lw);
  free(rw);
  return icsim_error(local, "MPI_Intercomm_create", rc);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *out)
{
  if (!icsim_runtime_get())
    return PMPI_Intercomm_merge(inter, high, out);
  icsim_charge_call("MPI_Intercomm_merge");
  struct inter *x = find(inter);
  if (!x)
    return icsim_error(inter, "MPI_Intercomm_merge", MPI_ERR_COMM);
  int n = x->lsize + x->rsize, *highs = malloc(sizeof(int) * (size_t)n), mine = high ? 1 : 0;
  /* SMPI's own allgather and split on the union (the layer's refuse an intercommunicator): their
   * messages are SMPI's, bracketed as such */
  struct icsim_runtime *rt = icsim_runtime_get();
  int me = icsim_my_rank();
  icsim_runtime_internal_enter(rt, me);
  int rc = PMPI_Allgather(&mine, 1, MPI_INT, highs, 1, MPI_INT, x->u);
  x = find(inter); /* other ranks ran meanwhile */
  if (rc == MPI_SUCCESS) {
    int remote_high = x->rsize ? highs[x->rbase] : 0;
    /* the group that asked for "high" goes last; when both asked alike, the union's order decides */
    int local_first = mine != remote_high ? !mine : x->local_first;
    rc = PMPI_Comm_split(x->u, 0, (local_first ? 0 : n) + x->lrank, out);
  }
  icsim_runtime_internal_leave(rt, me);
  free(highs);
  return icsim_error(inter, "MPI_Intercomm_merge", rc);
}

/* A duplicate of an intercommunicator is one too (called after SMPI duplicated the union). */
void icsim_inter_dup(MPI_Comm from, MPI_Comm to)
{
  struct inter *x = find(from);
  if (x && to != MPI_COMM_NULL)
    record(to, x->lsize, x->rsize, x->local_first);
}

void icsim_inter_freed(MPI_Comm comm)
{
  if (ninters)
    forget(comm);
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
  if (find(comm)) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  return PMPI_Comm_test_inter(comm, flag);
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
  struct inter *x = find(comm);
  if (x && size) {
    *size = x->lsize;
    return MPI_SUCCESS;
  }
  return PMPI_Comm_size(comm, size);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
  struct inter *x = find(comm);
  if (x && rank) {
    *rank = x->lrank;
    return MPI_SUCCESS;
  }
  return PMPI_Comm_rank(comm, rank);
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
  struct inter *x = find(comm);
  if (!x)
    return icsim_runtime_get() ? icsim_error(comm, "MPI_Comm_remote_size", MPI_ERR_COMM)
                               : PMPI_Comm_remote_size(comm, size);
  *size = x->rsize;
  return MPI_SUCCESS;
}

/* The union's group, restricted to the block of K ranks from BASE. */
static int sub_group(const struct inter *x, int base, int k, MPI_Group *out)
{
  MPI_Group ug;
  PMPI_Comm_group(x->u, &ug);
  int range[1][3] = {{base, base + k - 1, 1}};
  int rc = PMPI_Group_range_incl(ug, 1, range, out);
  PMPI_Group_free(&ug);
  return rc;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
  struct inter *x = find(comm);
  if (!x)
    return icsim_runtime_get() ? icsim_error(comm, "MPI_Comm_remote_group", MPI_ERR_COMM)
                               : PMPI_Comm_remote_group(comm, group);
  return sub_group(x, x->rbase, x->rsize, group);
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
  struct inter *x = find(comm);
  if (!x)
    return PMPI_Comm_group(comm, group);
  return sub_group(x, x->lbase, x->lsize, group);
}

/* What the layer does not do with an intercommunicator: say so and stop. */
void icsim_inter_refuse(MPI_Comm comm, const char *call)
{
  if (!find(comm))
    return;
  fprintf(stderr,
          "icsim: %s on an intercommunicator: the MPI layer supports "
          "MPI_Intercomm_create, MPI_Intercomm_merge, "
          "MPI_Comm_dup and point-to-point on intercommunicators, not "
          "collective operations nor new "
          "communicators made from one (SimGrid's SMPI 3.32 has no "
          "intercommunicators at all)\n",
          call);
  icsim_stop(3);
}
