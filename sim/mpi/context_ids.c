/* Context ids: how many communicators a process may hold at once (mpi/context-ids, MPICH's 2048).
 * A program that makes communicators in a loop without freeing them gets MPICH's error when they
 * run out (MPI_ERR_OTHER, "too many communicators"; its errors/comm/too_many_icomms2) instead of
 * growing until the machine runs out of memory. Counted per rank: MPI_COMM_WORLD and MPI_COMM_SELF,
 * then every communicator a call of the program makes (the bracket, gen_entries.py, counts what
 * its constructors return and what MPI_Comm_free and MPI_Comm_disconnect release; an
 * MPI_Comm_idup counts from its call, comm.c). */
#include <stdio.h>
#include <stdlib.h>

#include "layer.h"
#include "runtime.h"

static int *held; /* by world rank: communicators the rank holds, beyond WORLD and SELF */
static int nheld;

static int *mine(void)
{
  int me = icsim_my_rank();
  if (me < 0)
    return NULL;
  if (me >= nheld) {
    int n = 2 * (me + 1);
    int *grown = realloc(held, (size_t)n * sizeof *grown);
    if (!grown)
      return NULL;
    for (int i = nheld; i < n; i++)
      grown[i] = 0;
    held = grown;
    nheld = n;
  }
  return &held[me];
}

static int limit(void)
{
  const struct icsim_runtime *rt = icsim_runtime_get();
  return rt ? rt->pf.mpi.context_ids : 0;
}

int icsim_context_ids_left(void)
{
  int *h = mine(), max = limit();
  return !h || max <= 0 || 2 + *h < max;
}

int icsim_context_ids_in_use(void)
{
  int *h = mine();
  return 2 + (h ? *h : 0);
}

void icsim_context_ids_taken(MPI_Comm comm)
{
  int *h = mine();
  if (h && comm != MPI_COMM_NULL)
    ++*h;
}

void icsim_context_ids_given(MPI_Comm comm)
{
  int *h = mine();
  if (h && comm != MPI_COMM_NULL && *h > 0)
    --*h;
}
