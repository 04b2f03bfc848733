/* Place in the adaptor's order (adaptor.h): above handles.c and values.c; calls them, bind.c and the tables. */
/* MPICH's integer handles. A predefined handle is found in a hash table built once from
 * spec/mpich.abi (a table lookup, not a chain of ifs: the paper measures 17.3 ns for 48 ifs); a
 * handle the adaptor made at run time is 0xB0000000 + its slot in the kind's translation table
 * (handles.c), a range MPICH's own encoding never uses for predefined handles. */
#include <stdlib.h>
#include <string.h>

#include "abi_mpich.h"

#define DYN_TAG 0xB0000000u
#define DYN_MASK 0x0FFFFFFFu

/* value -> index in abi_predefs, open addressing, 0 = empty (stores index + 1) */
#define HBITS 10
static int hash_slot[1 << HBITS];

static unsigned hash(unsigned v) { return (v * 2654435761u) >> (32 - HBITS); }

static void build_hash(void)
{
  for (int i = 0; i < abi_npredefs; i++) {
    unsigned v = (unsigned)abi_predefs[i].value, h = hash(v);
    while (hash_slot[h])
      h = (h + 1) & ((1 << HBITS) - 1);
    hash_slot[h] = i + 1;
  }
}

/* KIND's predefined handle V; else any kind's (-1: none). MPICH gives MPI_MESSAGE_NULL the value
 * of MPI_REQUEST_NULL, so the kind decides between them. */
static int predef_index(unsigned v, int kind)
{
  static int built;
  if (!built) {
    build_hash();
    built = 1;
  }
  int any = -1;
  for (unsigned h = hash(v); hash_slot[h]; h = (h + 1) & ((1 << HBITS) - 1))
    if ((unsigned)abi_predefs[hash_slot[h] - 1].value == v) {
      if (abi_predefs[hash_slot[h] - 1].kind == kind)
        return hash_slot[h] - 1;
      if (any < 0)
        any = hash_slot[h] - 1;
    }
  return any;
}

void *abi_h_in(int kind, A_handle h, int fid)
{
  unsigned u = (unsigned)h;
  if ((u & ~DYN_MASK) == DYN_TAG)
    return abi_dyn_get(kind, (int)(u & DYN_MASK), fid, (intptr_t)u);
  int i = predef_index(u, kind);
  /* a predefined handle of another kind given as a group (MPICH's errors/group/gerr passes
   * MPI_COMM_WORLD): its own object goes on, for the layer's check to answer MPI_ERR_GROUP as MPICH */
  if (i >= 0 && kind == AK_GROUP && abi_predefs[i].kind != kind)
    return abi_predef_target(i, fid);
  if (i < 0 || abi_predefs[i].kind != kind)
    abi_fail("%s: %s handle 0x%08x is not one MPICH predefines nor one the adaptor made (an uninitialised or "
             "freed handle in the program?)", abi_fn_name(fid), abi_kind_name(kind), u);
  return abi_predef_target(i, fid);
}

static A_handle null_of(int kind)
{
  int i = abi_predef_of_target(kind, NULL);
  return i >= 0 ? (A_handle)abi_predefs[i].value : 0;
}

A_handle abi_h_out(int kind, void *t)
{
  int i = abi_predef_of_target(kind, t);
  if (i >= 0)
    return (A_handle)abi_predefs[i].value;
  if (!t)
    return null_of(kind);
  return (A_handle)(DYN_TAG | (unsigned)abi_dyn_new(kind, t));
}

void abi_h_release(int kind, A_handle h)
{
  unsigned u = (unsigned)h;
  if ((u & ~DYN_MASK) == DYN_TAG)
    abi_dyn_free(kind, (int)(u & DYN_MASK));
}

int abi_is_status_ignore(const A_Status *s) { return (intptr_t)s == abi_a_status_ignore; }

void abi_status_out(A_Status *a, const t_status *t)
{
  a->MPI_SOURCE = abi_rank_out(t->MPI_SOURCE);
  a->MPI_TAG = t->MPI_TAG == abi_t_const[C_ANY_TAG] ? abi_a_const[C_ANY_TAG] : t->MPI_TAG;
  a->MPI_ERROR = abi_rc_out(t->MPI_ERROR);
  long long count = t->count;
  a->count_lo = (int)(count & 0xffffffff);
  a->count_hi_and_cancelled = (int)(((count >> 32) << 1) | (t->cancelled ? 1 : 0));
}

void abi_status_in(const A_Status *a, t_status *t)
{
  t->MPI_SOURCE = abi_rank_in(a->MPI_SOURCE);
  t->MPI_TAG = abi_tag_in(a->MPI_TAG);
  t->MPI_ERROR = abi_err_in(a->MPI_ERROR);
  t->count = (int)((unsigned)a->count_lo | ((long long)(a->count_hi_and_cancelled >> 1) << 32));
  t->cancelled = a->count_hi_and_cancelled & 1;
}


/* MPICH exports MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY as constant pointers (mpi.h: extern int *const),
 * whose values a program reads, usually from its own copy (copy relocation): this library defines
 * them, pointing at two markers of its own, and recognises those values. */
static int unweighted_marker, weights_empty_marker;
int *const MPI_UNWEIGHTED = &unweighted_marker;
int *const MPI_WEIGHTS_EMPTY = &weights_empty_marker;

const int *abi_weights_in(const int *w)
{
  return w == MPI_UNWEIGHTED ? abi_t_unweighted : w == MPI_WEIGHTS_EMPTY ? abi_t_weights_empty : w;
}
