/* Place in the adaptor's order (adaptor.h): above handles.c and values.c; calls them, bind.c and the tables. */
/* Open MPI's pointer handles. Every object a handle points to starts with a struct abi_obj saying
 * what it is: a predefined handle's index in abi_predefs (so the lookup is one read and a table
 * index, whichever copy of the object the program holds), or a run-time handle's slot in its kind's
 * translation table (handles.c). A handle going back to the program is the address the program
 * itself uses for that object: its own copy (copy relocation) when it has one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "abi_ompi.h"

void *abi_h_in(int kind, A_handle h, int fid)
{
  /* a predefined object of another kind given as a group: its own object goes on, for the layer's
   * check to answer MPI_ERR_GROUP as MPICH does (mpich.c) */
  if (h && h->magic == ABI_MAGIC && kind == AK_GROUP && h->kind != kind && h->pre >= 0)
    return abi_predef_target(h->pre, fid);
  if (!h || h->magic != ABI_MAGIC || h->kind != kind)
    abi_fail("%s: %s handle %p is not one of Open MPI's predefined objects nor one the adaptor made (an "
             "uninitialised or freed handle in the program?)",
             abi_fn_name(fid), abi_kind_name(kind), (void *)h);
  if (h->pre >= 0)
    return abi_predef_target(h->pre, fid);
  return abi_dyn_get(kind, h->slot, fid, (intptr_t)h);
}

/* The program copy's own addresses of the predefined objects, one table per copy (one per rank). */
struct copy_objs {
  const void *base;
  void **addr;
};

A_handle abi_predef_for(int i, const void *caller)
{
  static struct copy_objs *copies;
  static size_t n;
  Dl_info di;
  struct copy_objs *c = NULL;
  if (caller && dladdr(caller, &di)) {
    for (size_t k = 0; k < n && !c; k++)
      if (copies[k].base == di.dli_fbase)
        c = &copies[k];
    if (!c) {
      copies = realloc(copies, (n + 1) * sizeof *copies);
      c = &copies[n++];
      c->base = di.dli_fbase;
      c->addr = calloc((size_t)abi_npredefs, sizeof *c->addr);
      void *h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
      for (int k = 0; h && k < abi_npredefs; k++)
        c->addr[k] = dlsym(h, abi_predefs[k].object);
      if (h)
        dlclose(h);
    }
  }
  if (c && c->addr[i])
    return c->addr[i];
  return (A_handle)abi_predefs[i].value;
}

/* Objects for run-time handles, one per slot, kept for reuse with the slot. */
static struct abi_obj **dyn_obj[AK_NKINDS];
static size_t dyn_cap[AK_NKINDS];

A_handle abi_h_out_for(int kind, void *t, const void *caller)
{
  int i = abi_predef_of_target(kind, t);
  if (i >= 0)
    return abi_predef_for(i, caller);
  if (!t) { /* SMPI's NULL of a kind whose null Open MPI predefines with another name */
    for (int k = 0; k < abi_npredefs; k++)
      if (abi_predefs[k].kind == kind && strstr(abi_predefs[k].name, "_NULL"))
        return abi_predef_for(k, caller);
    return NULL;
  }
  int slot = abi_dyn_new(kind, t);
  if ((size_t)slot >= dyn_cap[kind]) {
    size_t cap = (size_t)slot * 2 + 64;
    dyn_obj[kind] = realloc(dyn_obj[kind], cap * sizeof *dyn_obj[kind]);
    memset(dyn_obj[kind] + dyn_cap[kind], 0, (cap - dyn_cap[kind]) * sizeof *dyn_obj[kind]);
    dyn_cap[kind] = cap;
  }
  if (!dyn_obj[kind][slot])
    dyn_obj[kind][slot] = malloc(sizeof(struct abi_obj));
  *dyn_obj[kind][slot] = (struct abi_obj){ABI_MAGIC, (int16_t)kind, -1, slot};
  return dyn_obj[kind][slot];
}

void abi_h_release(int kind, A_handle h)
{
  if (h && h->magic == ABI_MAGIC && h->pre < 0 && h->kind == kind)
    abi_dyn_free(kind, h->slot);
}

int abi_is_status_ignore(const A_Status *s) { return (intptr_t)s == abi_a_status_ignore; }

void abi_status_out(A_Status *a, const t_status *t)
{
  a->MPI_SOURCE = abi_rank_out(t->MPI_SOURCE);
  a->MPI_TAG = t->MPI_TAG == abi_t_const[C_ANY_TAG] ? abi_a_const[C_ANY_TAG] : t->MPI_TAG;
  a->MPI_ERROR = abi_rc_out(t->MPI_ERROR);
  a->_cancelled = t->cancelled;
  a->_ucount = (size_t)t->count;
}

void abi_status_in(const A_Status *a, t_status *t)
{
  t->MPI_SOURCE = abi_rank_in(a->MPI_SOURCE);
  t->MPI_TAG = abi_tag_in(a->MPI_TAG);
  t->MPI_ERROR = abi_err_in(a->MPI_ERROR);
  t->count = (int)a->_ucount;
  t->cancelled = a->_cancelled;
}

/* Open MPI's mpi.h: MPI_UNWEIGHTED is ((int *) 2), MPI_WEIGHTS_EMPTY ((int *) 3). */
const int *abi_weights_in(const int *w)
{
  return w == (const int *)2 ? abi_t_unweighted : w == (const int *)3 ? abi_t_weights_empty : w;
}
