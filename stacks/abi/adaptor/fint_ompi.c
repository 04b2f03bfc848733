/* Place in the adaptor's order (adaptor.h): above ompi.c; calls it and the tables. */
/* MPI_<Kind>_c2f and _f2c in the Open MPI ABI: a pointer handle's Fortran integer and back. Open MPI
 * numbers each kind's objects in a table of its own, the predefined ones first; the adaptor keeps
 * one table per kind, with MPI_COMM_WORLD 0, MPI_COMM_SELF 1 and MPI_COMM_NULL 2 as Open MPI's
 * mpif.h has them, and gives every other handle the next number the first time it is converted.
 * ScaLAPACK's BLACS keeps its communicators as Fortran integers this way. */
#include <stdlib.h>
#include <string.h>

#include "abi_ompi.h"

struct fint_table {
  A_handle *h;
  int n, cap;
};
static struct fint_table tables[AK_NKINDS];

static int predef_index(const char *name)
{
  for (int i = 0; i < abi_npredefs; i++)
    if (!strcmp(abi_predefs[i].name, name))
      return i;
  return -1;
}

/* Two handles of one object: the same run-time slot, or the same predefined index (the program's
 * copy of a predefined object and the adaptor's are both that object). */
static int same(A_handle a, A_handle b)
{
  if (a == b)
    return 1;
  if (!a || !b || a->magic != ABI_MAGIC || b->magic != ABI_MAGIC || a->kind != b->kind || a->pre != b->pre)
    return 0;
  return a->pre >= 0 || a->slot == b->slot;
}

static void append(struct fint_table *t, A_handle h)
{
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 16;
    t->h = realloc(t->h, (size_t)t->cap * sizeof *t->h);
  }
  t->h[t->n++] = h;
}

static struct fint_table *table(int kind, const void *caller)
{
  struct fint_table *t = &tables[kind];
  if (kind == AK_COMM && t->n == 0) {
    static const char *const seed[] = {"MPI_COMM_WORLD", "MPI_COMM_SELF", "MPI_COMM_NULL"};
    for (int i = 0; i < 3; i++) {
      int k = predef_index(seed[i]);
      append(t, k >= 0 ? abi_predef_for(k, caller) : NULL);
    }
  }
  return t;
}

static int c2f(int kind, A_handle h, const void *caller)
{
  struct fint_table *t = table(kind, caller);
  for (int i = 0; i < t->n; i++)
    if (same(t->h[i], h))
      return i;
  append(t, h);
  return t->n - 1;
}

static A_handle f2c(int kind, int f, const void *caller)
{
  struct fint_table *t = table(kind, caller);
  if (f >= 0 && f < t->n) /* a predefined object as this caller's copy */
    return t->h[f] && t->h[f]->pre >= 0 ? abi_predef_for(t->h[f]->pre, caller) : t->h[f];
  for (int k = 0; k < abi_npredefs; k++) /* not a handle's number: the kind's null handle */
    if (abi_predefs[k].kind == kind && strstr(abi_predefs[k].name, "_NULL"))
      return abi_predef_for(k, caller);
  return NULL;
}

#define FINT(Name, KIND)                                                                                           \
  int MPI_##Name##_c2f(A_handle h) { return c2f(KIND, h, __builtin_return_address(0)); }                           \
  A_handle MPI_##Name##_f2c(int f) { return f2c(KIND, f, __builtin_return_address(0)); }                           \
  int PMPI_##Name##_c2f(A_handle h) { return c2f(KIND, h, __builtin_return_address(0)); }                          \
  A_handle PMPI_##Name##_f2c(int f) { return f2c(KIND, f, __builtin_return_address(0)); }
FINT(Comm, AK_COMM)
FINT(Type, AK_DATATYPE)
FINT(Group, AK_GROUP)
FINT(Op, AK_OP)
FINT(Request, AK_REQUEST)
FINT(Errhandler, AK_ERRHANDLER)
FINT(Info, AK_INFO)
FINT(Win, AK_WIN)
