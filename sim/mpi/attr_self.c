/* Attributes of MPI_COMM_SELF at MPI_Finalize. MPI 3.1 (8.7.1) makes MPI_Finalize first delete them
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
