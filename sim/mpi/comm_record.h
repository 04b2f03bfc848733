/* The one record the MPI layer keeps per communicator (comm_record.c): which world ranks its ranks
 * are, the shadows its collectives run on, its graph topology, its intercommunicator groups. Every
 * part of the layer that keeps something per communicator keeps it here, behind one keyval and one
 * lookup. */
#ifndef ICSIM_MPI_COMM_RECORD_H
#define ICSIM_MPI_COMM_RECORD_H

#include <mpi.h>

/* An intercommunicator (intercomm.c), kept as an SMPI communicator over the union of its two
 * groups: each group is a block of the union's ranks. */
struct icsim_inter {
  int lsize, rsize;  /* the local and the remote group's sizes */
  int lbase, rbase;  /* the union ranks of their first members */
  int lrank;         /* this rank in the local group */
  int local_first;   /* the local group's block comes first (ties in MPI_Intercomm_merge) */
  MPI_Comm local;    /* the local group as an intracommunicator, for collectives */
};

/* A graph or distributed-graph topology (topology.c), or the mark of a Cartesian one (SMPI keeps
 * its dimensions). */
struct icsim_topo {
  int kind;                    /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
  int nnodes, nedges;          /* MPI_GRAPH: MPI's index and edges arrays */
  int *index, *edges;
  int indeg, outdeg, weighted; /* MPI_DIST_GRAPH: sources and destinations, their weights */
  int *in, *inw, *out, *outw;
};

struct icsim_comm {
  MPI_Comm comm;
  int world;              /* its rank r is world rank r: 1, 0, or -1 not yet known */
  MPI_Comm coll, nbc;     /* the blocking and non-blocking collectives' shadows, or MPI_COMM_NULL */
  struct icsim_topo *topo; /* NULL: no topology the layer keeps */
  struct icsim_inter *inter; /* NULL: not one of the layer's intercommunicators */
  unsigned long coll_seq;  /* collectives this rank has started on it (coll_comm.c) */
  struct icsim_comm *next; /* hash chain */
};

/* COMM's record, or NULL if it has none. */
struct icsim_comm *icsim_comm_find(MPI_Comm comm);
/* COMM's record, made if it has none; NULL for MPI_COMM_NULL, MPI_COMM_SELF or a communicator SMPI
 * refuses an attribute on. MPI_COMM_WORLD (one object shared by every rank) has one per rank. */
struct icsim_comm *icsim_comm_get(MPI_Comm comm);

/* COMM's topology, or NULL. */
struct icsim_topo *icsim_topo_of(MPI_Comm comm);
/* A topology's copy (MPI_Comm_dup copies it) and its end. */
struct icsim_topo *icsim_topo_copy(const struct icsim_topo *t);
void icsim_topo_free(struct icsim_topo *t);
/* COMM was made Cartesian (MPI_Topo_test answers MPI_CART, neighbourhood collectives use its
 * neighbours). */
void icsim_topo_mark_cart(MPI_Comm comm);
/* A copy of the N ints at A (zeros when A is NULL; never a NULL result for N = 0). */
int *icsim_ints(const int *a, int n);

/* How many intercommunicators exist (0 in nearly every run: the checks below are then one
 * comparison). */
extern int icsim_ninters;
/* COMM's intercommunicator groups, or NULL. */
static inline struct icsim_inter *icsim_inter_of(MPI_Comm comm)
{
  if (!icsim_ninters)
    return NULL;
  struct icsim_comm *r = icsim_comm_find(comm);
  return r ? r->inter : NULL;
}
/* The union rank of remote rank RANK of COMM (other values and other communicators unchanged). */
int icsim_inter_peer(MPI_Comm comm, int rank);
/* The remote rank of union rank R of COMM. */
int icsim_inter_source(MPI_Comm comm, int union_rank);
/* Stop the run when COMM is an intercommunicator (for calls MPI defines on intracommunicators). */
void icsim_inter_refuse(MPI_Comm comm, const char *call);

/* World rank of rank R of group G (G is freed here). */
int icsim_group_world_rank(MPI_Group g, int r);
/* World rank of rank R of COMM (R < 0 passes through). */
int icsim_world_rank(MPI_Comm comm, int r);

#endif
