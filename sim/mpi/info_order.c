/* The keys of an info object in the order they were set. MPI_Info_get_nthkey numbers the keys 0 to
 * N-1; SMPI 3.32 keeps them in a hash map, so its numbering follows the hash, not the program: a
 * program that sets hints and reads them back by number (MPICH's info tests, tools that print hints
 * in order) sees them shuffled, and not even in the same shuffle from one SimGrid build to the next.
 * MPICH and Open MPI number them in the order they were first set. The layer remembers that order
 * for the info objects the program creates (MPI_Info_create, MPI_Info_dup of one of them) and answers
 * MPI_Info_get_nthkey from it; SMPI still holds the keys and values. An info object SMPI made
 * itself (MPI_Comm_get_info...) keeps SMPI's numbering. */
#include <stdlib.h>
#include <string.h>

#include "layer.h"

struct ordered {
  MPI_Info info;
  char **key;
  int n, cap;
};
static struct ordered *tab;
static int ntab, captab;

static struct ordered *find(MPI_Info info)
{
  for (int i = 0; i < ntab; i++)
    if (tab[i].info == info)
      return &tab[i];
  return NULL;
}

static struct ordered *track(MPI_Info info)
{
  if (ntab == captab) {
    int cap = captab ? 2 * captab : 32;
    struct ordered *grown = realloc(tab, sizeof *grown * (size_t)cap);
    if (!grown)
      return NULL;
    tab = grown;
    captab = cap;
  }
  tab[ntab] = (struct ordered){info, NULL, 0, 0};
  return &tab[ntab++];
}

static void untrack(struct ordered *o)
{
  for (int i = 0; i < o->n; i++)
    free(o->key[i]);
  free(o->key);
  *o = tab[--ntab];
}

static int index_of(const struct ordered *o, const char *key)
{
  for (int i = 0; i < o->n; i++)
    if (strcmp(o->key[i], key) == 0)
      return i;
  return -1;
}

/* Returns 0 when out of memory: the info object is then no longer tracked (SMPI's order). */
static int append(struct ordered *o, const char *key)
{
  if (o->n == o->cap) {
    int cap = o->cap ? 2 * o->cap : 8;
    char **grown = realloc(o->key, sizeof *grown * (size_t)cap);
    if (!grown)
      return 0;
    o->key = grown;
    o->cap = cap;
  }
  if (!(o->key[o->n] = strdup(key)))
    return 0;
  o->n++;
  return 1;
}

int MPI_Info_create(MPI_Info *info)
{
  int rc = PMPI_Info_create(info);
  if (rc == MPI_SUCCESS && icsim_runtime_get()) {
    struct ordered *stale = find(*info); /* a handle SMPI freed itself and made again */
    if (stale)
      untrack(stale);
    track(*info);
  }
  return rc;
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value)
{
  int rc = PMPI_Info_set(info, key, value);
  struct ordered *o;
  if (rc == MPI_SUCCESS && (o = find(info)) && index_of(o, key) < 0 && !append(o, key))
    untrack(o);
  return rc;
}

int MPI_Info_delete(MPI_Info info, const char *key)
{
  int rc = PMPI_Info_delete(info, key);
  struct ordered *o;
  int i;
  if (rc == MPI_SUCCESS && (o = find(info)) && (i = index_of(o, key)) >= 0) {
    free(o->key[i]);
    memmove(&o->key[i], &o->key[i + 1], sizeof *o->key * (size_t)(o->n - i - 1));
    o->n--;
  }
  return rc;
}

int MPI_Info_dup(MPI_Info info, MPI_Info *out)
{
  int rc = PMPI_Info_dup(info, out);
  struct ordered *o = find(info), *c;
  if (rc != MPI_SUCCESS || !o)
    return rc;
  if ((c = find(*out)))
    untrack(c);
  o = find(info); /* untrack may have moved it */
  int n = o->n;
  if (!(c = track(*out)))
    return rc;
  o = find(info); /* track may have moved the table */
  for (int i = 0; i < n; i++)
    if (!append(c, o->key[i])) {
      untrack(c);
      break;
    }
  return rc;
}

int MPI_Info_free(MPI_Info *info)
{
  struct ordered *o = info ? find(*info) : NULL;
  if (o)
    untrack(o);
  return PMPI_Info_free(info);
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
  struct ordered *o = find(info);
  int nkeys = -1;
  if (o && key && n >= 0 && n < o->n && PMPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == o->n) {
    int len = 0, flag = 0;
    PMPI_Info_get_valuelen(info, o->key[n], &len, &flag);
    if (flag) { /* the key SMPI holds: the program's numbering */
      /* the key and its terminator only, as MPICH writes: programs size the buffer by their keys */
      size_t len_key = strlen(o->key[n]);
      if (len_key > MPI_MAX_INFO_KEY)
        len_key = MPI_MAX_INFO_KEY;
      memcpy(key, o->key[n], len_key);
      key[len_key] = '\0';
      return MPI_SUCCESS;
    }
  }
  return PMPI_Info_get_nthkey(info, n, key);
}
