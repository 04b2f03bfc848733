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
 * MPI_Comm_split and MPI_Comm_create of an intercommunicator make intercommunicators (split each
 * group by color; keep the given subgroup of each), as new unions of the same block order.
 * Collective operations: coll_inter.c, on the union's shadow and on each group's own
 * intracommunicator (made with the intercommunicator, its members in their order: record()).
 * Still refused with a message: MPI_Comm_split_type and MPI_Comm_create_group (MPI defines them
 * for intracommunicators only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "comm_record.h"
#include "layer.h"

/* The end of an SMPI call that makes a communicator, on every member of union U: SMPI's split lets a
 * rank go once it has its part (one that gets no communicator, at once) while its root still sends
 * the others theirs, and a message the program sends next (announced by the layer) could then be
 * taken for one of SMPI's of the same size between the same hosts, or the other way round. SMPI's
 * barrier, its messages SMPI's too, lets every member out together. */
static void settle(MPI_Comm u) { PMPI_Barrier(u); }

/* Record union communicator U, whose first LN or RN ranks (LOCAL_FIRST says which) are the local
 * group, the rest the remote one, each in its own order. Every member of U calls it: it also makes
 * what the intercommunicator's collectives run on (coll_inter.c), now rather than at the first
 * collective, where only some ranks would be inside SMPI's calls: the local group's own
 * intracommunicator (a split of the union by block) and the shadows of both. Their messages are
 * SMPI's, and one settle ends them all. */
static int record(MPI_Comm u, int ln, int rn, int local_first)
{
  struct icsim_comm *r = icsim_comm_get(u);
  struct icsim_inter *x = r ? calloc(1, sizeof *x) : NULL;
  if (!x)
    return MPI_ERR_NO_MEM;
  int ur = -1;
  PMPI_Comm_rank(u, &ur);
  *x = (struct icsim_inter){.lsize = ln, .rsize = rn, .lbase = local_first ? 0 : rn, .rbase = local_first ? ln : 0,
                            .local_first = local_first, .local = MPI_COMM_NULL};
  x->lrank = ur - x->lbase;
  r->inter = x;
  icsim_ninters++;
  MPI_Comm local = MPI_COMM_NULL;
  icsim_smpi_enter(NULL);
  PMPI_Comm_split(u, x->lbase, x->lrank, &local);
  icsim_coll_prepare(local);
  icsim_coll_prepare(u);
  settle(u);
  icsim_smpi_leave(MPI_SUCCESS);
  x->local = local; /* X is this rank's: only its MPI_Comm_free frees it */
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
  /* as the layer's MPI_Comm_create_group (comm.c): SMPI's messages, bracketed */
  icsim_smpi_enter("MPI_Comm_create_group");
  int rc = icsim_smpi_leave(PMPI_Comm_create_group(MPI_COMM_WORLD, ug, tag, out));
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
  struct icsim_inter *x = icsim_inter_of(inter);
  if (!x)
    return icsim_error(inter, "MPI_Intercomm_merge", MPI_ERR_COMM);
  int n = x->lsize + x->rsize, *highs = malloc(sizeof(int) * (size_t)n), mine = high ? 1 : 0;
  /* SMPI's own allgather and split on the union (the layer's refuse an intercommunicator): their
   * messages are SMPI's, bracketed as such */
  icsim_smpi_enter(NULL);
  int rc = PMPI_Allgather(&mine, 1, MPI_INT, highs, 1, MPI_INT, inter);
  x = icsim_inter_of(inter); /* other ranks ran meanwhile */
  if (rc == MPI_SUCCESS) {
    int remote_high = x->rsize ? highs[x->rbase] : 0;
    /* the group that asked for "high" goes last; when both asked alike, the union's order decides */
    int local_first = mine != remote_high ? !mine : x->local_first;
    rc = PMPI_Comm_split(inter, 0, (local_first ? 0 : n) + x->lrank, out);
  }
  icsim_smpi_leave(MPI_SUCCESS);
  free(highs);
  return icsim_error(inter, "MPI_Intercomm_merge", rc);
}

/* A duplicate of an intercommunicator is one too (called after SMPI duplicated the union). */
void icsim_inter_dup(MPI_Comm from, MPI_Comm to)
{
  struct icsim_inter *x = icsim_inter_of(from);
  if (x && to != MPI_COMM_NULL)
    record(to, x->lsize, x->rsize, x->local_first);
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
  if (icsim_inter_of(comm)) {
    *flag = 1;
    return MPI_SUCCESS;
  }
  return PMPI_Comm_test_inter(comm, flag);
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
  struct icsim_inter *x = icsim_inter_of(comm);
  if (x && size) {
    *size = x->lsize;
    return MPI_SUCCESS;
  }
  return PMPI_Comm_size(comm, size);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
  struct icsim_inter *x = icsim_inter_of(comm);
  if (x && rank) {
    *rank = x->lrank;
    return MPI_SUCCESS;
  }
  return PMPI_Comm_rank(comm, rank);
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
  struct icsim_inter *x = icsim_inter_of(comm);
  if (!x)
    return icsim_runtime_get() ? icsim_error(comm, "MPI_Comm_remote_size", MPI_ERR_COMM)
                               : PMPI_Comm_remote_size(comm, size);
  *size = x->rsize;
  return MPI_SUCCESS;
}

/* The union's group, restricted to the block of K ranks from BASE. */
static int sub_group(MPI_Comm u, int base, int k, MPI_Group *out)
{
  MPI_Group ug;
  PMPI_Comm_group(u, &ug);
  int range[1][3] = {{base, base + k - 1, 1}};
  int rc = PMPI_Group_range_incl(ug, 1, range, out);
  PMPI_Group_free(&ug);
  return rc;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
  struct icsim_inter *x = icsim_inter_of(comm);
  if (!x)
    return icsim_runtime_get() ? icsim_error(comm, "MPI_Comm_remote_group", MPI_ERR_COMM)
                               : PMPI_Comm_remote_group(comm, group);
  return sub_group(comm, x->rbase, x->rsize, group);
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
  struct icsim_inter *x = icsim_inter_of(comm);
  if (!x)
    return PMPI_Comm_group(comm, group);
  return sub_group(comm, x->lbase, x->lsize, group);
}

/* For a collective on COMM (coll_inter.c): 1 and its groups in *OUT if it is one of the layer's
 * intercommunicators, else 0. */
/* A new intercommunicator of the members of X's union that give the same COLOR (>= 0; MPI_UNDEFINED:
 * not a member): the local ones are ranked by POS (their new local ranks), the remote ones likewise;
 * the union keeps X's block order. LN and RN are the new groups' sizes (none: no communicator);
 * every member of the union calls this. */
static int make_sub(MPI_Comm u, const struct icsim_inter *x, int color, int pos, int ln, int rn, MPI_Comm *out)
{
  int n = x->lsize + x->rsize, local_first = x->local_first;
  icsim_smpi_enter(NULL);
  int rc = PMPI_Comm_split(u, ln > 0 && rn > 0 ? color : MPI_UNDEFINED, (local_first ? 0 : n) + pos, out);
  if (rc == MPI_SUCCESS && *out != MPI_COMM_NULL)
    rc = record(*out, ln, rn, local_first);
  settle(u); /* the members of the old union that are not in the new one wait for it too */
  icsim_smpi_leave(MPI_SUCCESS);
  return rc;
}

/* Every member's two integers, in union order (SMPI's allgather: its messages are SMPI's). */
static int *exchange(MPI_Comm u, const struct icsim_inter *x, int a, int b)
{
  int n = x->lsize + x->rsize, mine[2] = {a, b}, *all = malloc(sizeof(int) * 2 * (size_t)n);
  icsim_smpi_enter(NULL);
  PMPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, u);
  icsim_smpi_leave(MPI_SUCCESS);
  return all;
}

/* Of the BASE block's K members, those of color COLOR, and the rank among them (by key, then by
 * old rank) of member WHO (-1: not asked). */
static int count_color(const int *all, int base, int k, int color, int who, int *pos)
{
  int c = 0;
  for (int i = 0; i < k; i++) {
    const int *e = all + 2 * (base + i);
    if (e[0] != color)
      continue;
    c++;
    if (who >= 0 && i != who) {
      const int *w = all + 2 * (base + who);
      if (e[1] < w[1] || (e[1] == w[1] && i < who))
        (*pos)++;
    }
  }
  return c;
}

/* MPI_Comm_split of an intercommunicator (MPI 3.1, 6.4.2): each group is split by color, and the
 * parts of the same color in the two groups form an intercommunicator; a color only one group
 * has gives MPI_COMM_NULL. */
int icsim_inter_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
  icsim_charge_call("MPI_Comm_split");
  struct icsim_inter *x = icsim_inter_of(comm);
  if (!out)
    return icsim_error(comm, "MPI_Comm_split", MPI_ERR_ARG);
  if (color < 0 && color != MPI_UNDEFINED)
    return icsim_error(comm, "MPI_Comm_split", MPI_ERR_ARG);
  int *all = exchange(comm, x, color, key);
  x = icsim_inter_of(comm);
  int pos = 0, ln = 0, rn = 0;
  if (color != MPI_UNDEFINED) {
    ln = count_color(all, x->lbase, x->lsize, color, x->lrank, &pos);
    rn = count_color(all, x->rbase, x->rsize, color, -1, &pos);
  }
  free(all);
  *out = MPI_COMM_NULL;
  return icsim_error(comm, "MPI_Comm_split", make_sub(comm, x, color, pos, ln, rn, out));
}

/* MPI_Comm_create of an intercommunicator (MPI 3.1, 6.4.2): GROUP is a subgroup of the local
 * group (every member of a group gives the same); the result joins it with the subgroup the
 * other group gave, or is MPI_COMM_NULL when either is empty or this rank is in neither. */
int icsim_inter_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
  icsim_charge_call("MPI_Comm_create");
  if (!out || group == MPI_GROUP_NULL)
    return icsim_error(comm, "MPI_Comm_create", !out ? MPI_ERR_ARG : MPI_ERR_GROUP);
  int pos = MPI_UNDEFINED, size = 0;
  PMPI_Group_rank(group, &pos);
  PMPI_Group_size(group, &size);
  struct icsim_inter *x = icsim_inter_of(comm);
  int *all = exchange(comm, x, pos, size);
  x = icsim_inter_of(comm);
  int ln = all[2 * x->lbase + 1], rn = all[2 * x->rbase + 1];
  free(all);
  *out = MPI_COMM_NULL;
  return icsim_error(comm, "MPI_Comm_create", make_sub(comm, x, pos == MPI_UNDEFINED ? MPI_UNDEFINED : 0, pos == MPI_UNDEFINED ? 0 : pos, ln, rn, out));
}
