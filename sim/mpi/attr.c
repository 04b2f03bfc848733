/* Attributes: what the layer answers or orders that SMPI 3.32 does not. MPI_COMM_SELF's at
 * MPI_Finalize, MPI_LASTUSEDCODE, a window's MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL. Calls nothing
 * of the layer above rank.c.
 *
 * MPI_COMM_SELF at MPI_Finalize. MPI 3.1 (8.7.1) makes MPI_Finalize first delete them
 * as if MPI_COMM_SELF were freed, calling their delete functions in the reverse order of their
 * setting, before anything else is finalized: a tool or library hangs its at-exit work there and
 * may still communicate. SMPI 3.32 deletes them in its own order (its attribute map's). So the layer
 * remembers, per rank, the order in which a C program sets MPI_COMM_SELF's attributes and deletes
 * them itself, last set first, at the start of MPI_Finalize; SMPI then finds none left. (A Fortran
 * program's go through SMPI's bindings and keep SMPI's order.) */
#include <stdlib.h>

#include "layer.h"

struct order {
  int *key;
  int n, cap;
};
static struct order *by_rank; /* per world rank */
static int nranks;

static struct order *mine(void)
{
  int me = icsim_my_rank();
  if (me < 0)
    return NULL;
  if (me >= nranks) {
    struct order *grown = realloc(by_rank, sizeof *grown * (size_t)(me + 1));
    if (!grown)
      return NULL;
    for (int i = nranks; i <= me; i++)
      grown[i] = (struct order){NULL, 0, 0};
    by_rank = grown;
    nranks = me + 1;
  }
  return &by_rank[me];
}

static void forget(struct order *o, int key)
{
  for (int i = 0; i < o->n; i++)
    if (o->key[i] == key) {
      for (int j = i + 1; j < o->n; j++)
        o->key[j - 1] = o->key[j];
      o->n--;
      return;
    }
}

static void remember(int key)
{
  struct order *o = mine();
  if (!o)
    return;
  for (int i = 0; i < o->n; i++)
    if (o->key[i] == key)
      return; /* setting it again replaces the value, not its place */
  if (o->n == o->cap) {
    int cap = o->cap ? 2 * o->cap : 16;
    int *grown = realloc(o->key, sizeof *grown * (size_t)cap);
    if (!grown)
      return;
    o->key = grown;
    o->cap = cap;
  }
  o->key[o->n++] = key;
}

int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value)
{
  int rc = PMPI_Comm_set_attr(comm, keyval, value);
  if (rc == MPI_SUCCESS && comm == MPI_COMM_SELF && icsim_runtime_get())
    remember(keyval);
  return rc;
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *value) { return MPI_Comm_set_attr(comm, keyval, value); }

int MPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
  /* an attribute the communicator does not hold: nothing to do, as in MPICH (SMPI: MPI_ERR_ARG) */
  void *v;
  int flag = 1;
  if (PMPI_Comm_get_attr(comm, keyval, &v, &flag) == MPI_SUCCESS && !flag)
    return MPI_SUCCESS;
  int rc = PMPI_Comm_delete_attr(comm, keyval);
  struct order *o;
  if (rc == MPI_SUCCESS && comm == MPI_COMM_SELF && icsim_runtime_get() && (o = mine()))
    forget(o, keyval);
  return rc;
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) { return MPI_Comm_delete_attr(comm, keyval); }

void icsim_self_attrs_release(void)
{
  /* a delete function may communicate, so other ranks run meanwhile and may move BY_RANK: look
   * the rank's list up again after each */
  struct order *o;
  while ((o = mine()) && o->n > 0) {
    int key = o->key[--o->n];
    PMPI_Comm_delete_attr(MPI_COMM_SELF, key);
  }
  if ((o = mine())) {
    free(o->key);
    *o = (struct order){NULL, 0, 0};
  }
}

/* ---- MPI_LASTUSEDCODE ---- */

int icsim_last_used_code = MPI_ERR_LASTCODE; /* errors.c hands out codes up to it */

/* MPI_LASTUSEDCODE: the largest value handed out so far (SMPI's stays MPI_ERR_LASTCODE). */
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
  if (keyval == MPI_LASTUSEDCODE && comm != MPI_COMM_NULL && value && flag) {
    *(int **)value = &icsim_last_used_code;
    *flag = 1;
    return MPI_SUCCESS;
  }
  return PMPI_Comm_get_attr(comm, keyval, value, flag);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag)
{
  return MPI_Comm_get_attr(comm, keyval, value, flag);
}

/* ---- windows ---- */

/* MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL (MPI 3.1, 11.2.6), which SMPI 3.32 does not know (it
 * answers MPI_ERR_ARG): recorded at the window's creation (rma.c). */
struct win_attrs {
  MPI_Win win; /* this rank's handle */
  int flavor, model; /* what MPI_Win_get_attr points to */
  int own_handler;   /* the program set its error handler (errors.c) */
  struct win_attrs *next;
};
static struct win_attrs *wins;

void icsim_win_attrs_set(MPI_Win win, int flavor)
{
  struct win_attrs *w = malloc(sizeof *w);
  if (!w)
    return;
  /* every rank's memory is the one copy SMPI's transfers read and write */
  *w = (struct win_attrs){win, flavor, MPI_WIN_UNIFIED, 0, wins};
  wins = w;
}

void icsim_win_attrs_forget(MPI_Win win)
{
  for (struct win_attrs **pp = &wins; *pp; pp = &(*pp)->next)
    if ((*pp)->win == win) {
      struct win_attrs *w = *pp;
      *pp = w->next;
      free(w);
      return;
    }
}

static struct win_attrs *win_attrs_of(MPI_Win win)
{
  for (struct win_attrs *w = wins; w; w = w->next)
    if (w->win == win)
      return w;
  return NULL;
}

void icsim_win_handler_mark(MPI_Win win)
{
  struct win_attrs *w = win_attrs_of(win);
  if (w)
    w->own_handler = 1;
}

int icsim_win_handler_marked(MPI_Win win)
{
  struct win_attrs *w = win_attrs_of(win);
  return w && w->own_handler;
}

int MPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
  if ((keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL) && value && flag)
    for (struct win_attrs *w = wins; w; w = w->next)
      if (w->win == win) {
        *(int **)value = keyval == MPI_WIN_CREATE_FLAVOR ? &w->flavor : &w->model;
        *flag = 1;
        return MPI_SUCCESS;
      }
  return PMPI_Win_get_attr(win, keyval, value, flag);
}
