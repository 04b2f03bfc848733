/* Place in the adaptor's order (adaptor.h): above bind.c; calls bind.c and the tables. */
/* Translation tables. Predefined handles map to SMPI's by name, once (predef_init); handles
 * created at run time (communicators, groups, datatypes, ops, requests, windows, info,
 * errhandlers) get a slot in their kind's table when SMPI hands out the object, and the slot is
 * reused once the program frees it (Wait completing a request, Type_free, Comm_free, ...).
 * Globals here are shared by all ranks (SMPI runs them in one process, one at a time): a slot
 * number is simply unique across ranks. */
#include <stdlib.h>
#include <string.h>

#include "adaptor.h"

struct slot {
  void *target;
  int next_free; /* -1 while in use */
};

struct table {
  struct slot *s;
  int n, cap, free_head;
};

static struct table tables[AK_NKINDS] = {
    [0 ... AK_NKINDS - 1] = {NULL, 0, 0, -1},
};

static const char *const kind_names[AK_NKINDS] = {"communicator", "datatype", "group",      "op",
                                                   "request",      "errhandler", "info", "window",
                                                   "message"};

const char *abi_kind_name(int kind) { return kind >= 0 && kind < AK_NKINDS ? kind_names[kind] : "?"; }

int abi_dyn_new(int kind, void *target)
{
  struct table *t = &tables[kind];
  int i = t->free_head;
  if (i >= 0) {
    t->free_head = t->s[i].next_free;
  } else {
    if (t->n == t->cap) {
      t->cap = t->cap ? t->cap * 2 : 64;
      t->s = realloc(t->s, (size_t)t->cap * sizeof *t->s);
      if (!t->s)
        abi_fail("out of memory for the %s translation table", kind_names[kind]);
    }
    i = t->n++;
  }
  t->s[i].target = target;
  t->s[i].next_free = -1;
  return i;
}

void *abi_dyn_get(int kind, int slot, int fid, intptr_t shown)
{
  struct table *t = &tables[kind];
  if (slot < 0 || slot >= t->n || t->s[slot].next_free != -1)
    abi_fail("%s: %s handle 0x%lx was never created or is already freed", abi_fn_name(fid), kind_names[kind],
             (unsigned long)shown);
  return t->s[slot].target;
}

void abi_dyn_free(int kind, int slot)
{
  struct table *t = &tables[kind];
  if (slot < 0 || slot >= t->n || t->s[slot].next_free != -1)
    return;
  t->s[slot].target = NULL;
  t->s[slot].next_free = t->free_head;
  t->free_head = slot;
}

/* SMPI's counterpart of each predefined handle; WORLD and SELF are asked for at each use (SMPI
 * makes MPI_COMM_SELF per rank). */
enum { T_FIXED, T_WORLD, T_SELF };
static void **pre_target;
static char *pre_how;

/* Filled at the first lookup; it needs nothing of the layer (SMPI's predefined handles are SimGrid's
 * symbols, bound when this library is loaded), so bind.c, below this file, need not call it. */
static void predef_init(void)
{
  pre_target = calloc((size_t)abi_npredefs, sizeof *pre_target);
  pre_how = calloc((size_t)abi_npredefs, 1);
  for (int i = 0; i < abi_npredefs; i++) {
    const char *n = abi_predefs[i].name;
    if (!strcmp(n, "MPI_COMM_WORLD"))
      pre_how[i] = T_WORLD;
    else if (!strcmp(n, "MPI_COMM_SELF"))
      pre_how[i] = T_SELF;
    else
      pre_target[i] = abi_target_predef(n);
  }
}

void *abi_predef_target(int i, int fid)
{
  if (!pre_how)
    predef_init();
  switch (pre_how[i]) {
  case T_WORLD: return abi_target_world();
  case T_SELF: return abi_target_self();
  default: break;
  }
  if (pre_target[i] == ABI_NO_TARGET)
    abi_fail("%s: %s has no counterpart in SimGrid's MPI (SMPI 3.32), so the adaptor cannot translate it",
             abi_fn_name(fid), abi_predefs[i].name);
  return pre_target[i];
}

int abi_predef_of_target(int kind, void *t)
{
  if (!pre_how)
    predef_init();
  /* a few dozen entries; only reached for handles SMPI returns (new objects, NULLs) */
  for (int i = 0; i < abi_npredefs; i++) {
    if (abi_predefs[i].kind != kind)
      continue;
    void *p = pre_how[i] == T_WORLD ? abi_target_world() : pre_how[i] == T_SELF ? abi_target_self() : pre_target[i];
    if (p == t && p != ABI_NO_TARGET)
      return i;
  }
  return -1;
}
