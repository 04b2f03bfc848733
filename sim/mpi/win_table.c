/* Where each rank's window memory is, for the one-sided calls whose traffic depends on data.
 *
 * SMPI 3.32 makes MPI_Compare_and_swap a get and then, only when the value fetched equals the
 * comparand, a put, both started inside the call: the layer must announce the put before the call
 * if it is to happen. All ranks live in one address space under SMPI, so the origin can look at
 * the target's cell just before the call (as SMPI's get will, a moment later). Each window records
 * every member's base and displacement unit when it is created (an allgather inside the creating
 * call, whose messages are SMPI's own). Under an exclusive lock the look is exact; where several
 * ranks swap the same cell under a shared lock, another rank's swap may land in between, and one
 * put may then be announced in vain or happen unannounced (counted either way by --stats).
 * The same record answers MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL, which SMPI 3.32 does not. */
#include <stdlib.h>

#include "layer.h"

struct win_entry {
  MPI_Win win; /* this rank's handle */
  int n;
  MPI_Aint *base_unit; /* [n][2]: base address (MPI_BOTTOM for a dynamic window), displacement unit */
  int flavor, model;   /* MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL: what MPI_Win_get_attr points to */
  struct win_entry *next;
};
static struct win_entry *wins;

void icsim_win_remember(MPI_Win win, MPI_Comm comm, const void *base, int disp_unit, int flavor)
{
  int n = 0;
  PMPI_Comm_size(comm, &n);
  struct win_entry *e = calloc(1, sizeof *e);
  e->base_unit = malloc(2 * sizeof *e->base_unit * (size_t)(n > 0 ? n : 1));
  MPI_Aint mine[2] = {(MPI_Aint)(intptr_t)base, disp_unit};
  if (n <= 0 || PMPI_Allgather(mine, 2, MPI_AINT, e->base_unit, 2, MPI_AINT, comm) != MPI_SUCCESS) {
    free(e->base_unit);
    free(e);
    return;
  }
  e->win = win;
  e->n = n;
  e->flavor = flavor;
  e->model = MPI_WIN_UNIFIED; /* every rank's memory is the one copy SMPI's transfers read and write */
  e->next = wins;
  wins = e;
}

void icsim_win_forget(MPI_Win win)
{
  for (struct win_entry **pp = &wins; *pp; pp = &(*pp)->next)
    if ((*pp)->win == win) {
      struct win_entry *e = *pp;
      *pp = e->next;
      free(e->base_unit);
      free(e);
      return;
    }
}

const void *icsim_win_target_addr(MPI_Win win, int target, MPI_Aint disp)
{
  for (const struct win_entry *e = wins; e; e = e->next)
    if (e->win == win) {
      if (target < 0 || target >= e->n)
        return NULL;
      return (const char *)(intptr_t)e->base_unit[2 * target] + disp * e->base_unit[2 * target + 1];
    }
  return NULL;
}

/* MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL (MPI 3.1, 11.2.6), which SMPI 3.32 does not know (it
 * answers MPI_ERR_ARG): from what the layer recorded at the window's creation. */
int MPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
  if ((keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL) && value && flag)
    for (struct win_entry *e = wins; e; e = e->next)
      if (e->win == win) {
        *(int **)value = keyval == MPI_WIN_CREATE_FLAVOR ? &e->flavor : &e->model;
        *flag = 1;
        return MPI_SUCCESS;
      }
  return PMPI_Win_get_attr(win, keyval, value, flag);
}
