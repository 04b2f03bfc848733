/* Which kind of object each attribute key belongs to, so that a key made for one kind is refused
 * on another with MPI_ERR_KEYVAL, as MPICH does (its errors/attr/keyvalmis).
 *
 * SMPI 3.32 numbers communicator, datatype and window keys from three separate counters, each
 * from 0: the first key of each kind is 0, so a window key given to MPI_Comm_set_attr names some
 * communicator key and SMPI accepts it. The layer keeps the numbers SMPI hands out (a copy or
 * delete callback is given the same number the program holds) but makes them distinct across
 * kinds: a new key whose number another kind already uses is freed and made again, the counters
 * only go up, so a few turns at most. Every key a C program (or a binary through the adaptor)
 * makes is recorded here; a Fortran program's keys are made inside SMPI's bindings, unrecorded,
 * and pass unchecked. Predefined keys (MPI_TAG_UB and the others) are negative and unrecorded.
 * The check itself is the bracket's (checks.c: icsim_check_keyval), before the call acts.
 *
 * Copy callbacks of shared objects. MPI_COMM_WORLD and the predefined datatypes are one SMPI object
 * for all ranks, so one rank's attributes on them are every rank's: a rank duplicating
 * MPI_COMM_WORLD had SMPI call the copy callbacks of every rank's keys (MPI gives each process its
 * own). SMPI is given the layer's copy function instead of the program's: it copies only the
 * attributes of the duplicating rank's own keys (calling the program's function, or doing what
 * MPI_*_DUP_FN does), and leaves the other ranks' behind. */
#include <stdio.h>
#include <stdlib.h>

#include "layer.h"

enum kind { NONE, COMM, TYPE, WIN };
static const char *const kind_name[] = {"", "communicator", "datatype", "window"};
struct key {
  enum kind kind;
  int rank;   /* world rank that made it */
  void *copy; /* the program's copy function (communicator and datatype keys) */
};
static struct key *keys; /* by key number */
static int nkeys;

static enum kind recorded(int key) { return key >= 0 && key < nkeys ? keys[key].kind : NONE; }

static void record(int key, enum kind k, void *copy)
{
  if (key < 0)
    return;
  if (key >= nkeys) {
    int n = key + 64;
    struct key *grown = realloc(keys, sizeof *grown * (size_t)n);
    if (!grown) {
      fprintf(stderr, "icsim: out of memory recording attribute key %d\n", key);
      icsim_stop(1);
    }
    for (int i = nkeys; i < n; i++)
      grown[i] = (struct key){NONE, -1, NULL};
    keys = grown;
    nkeys = n;
  }
  keys[key] = (struct key){k, icsim_my_rank(), copy};
}

/* The layer's copy function (see the top): the program's own keys only. */
static int own_copy(int key, void *in, void *out, int *flag)
{
  const struct key *k = key >= 0 && key < nkeys ? &keys[key] : NULL;
  *flag = 0;
  if (!k || !k->copy || k->rank != icsim_my_rank())
    return 0; /* another rank's attribute on a shared object: not this process's */
  if (k->copy == (void *)MPI_COMM_DUP_FN) { /* SMPI's MPI_*_DUP_FN, one value for every kind */
    *(void **)out = in;
    *flag = 1;
    return 0;
  }
  return 1;
}

static int comm_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
  if (!own_copy(key, in, out, flag))
    return MPI_SUCCESS;
  return ((MPI_Comm_copy_attr_function *)keys[key].copy)(old, key, extra, in, out, flag);
}

static int type_copy(MPI_Datatype old, int key, void *extra, void *in, void *out, int *flag)
{
  if (!own_copy(key, in, out, flag))
    return MPI_SUCCESS;
  return ((MPI_Type_copy_attr_function *)keys[key].copy)(old, key, extra, in, out, flag);
}

/* The kind KEY was made for: 0 when unrecorded, else 1 communicator, 2 datatype, 3 window. */
int icsim_keyval_kind(int key) { return (int)recorded(key); }

const char *icsim_keyval_kind_name(int kind) { return kind > NONE && kind <= WIN ? kind_name[kind] : "object"; }

/* ---- making keys: distinct numbers across kinds ---- */

#define MAKE(KIND, COPY, CREATE, FREE, ...)                                                                            \
  do {                                                                                                                 \
    int rc = CREATE(__VA_ARGS__);                                                                                      \
    for (int turn = 0; rc == MPI_SUCCESS && turn < 64 && recorded(*keyval) != NONE && recorded(*keyval) != KIND;       \
         turn++) {                                                                                                     \
      FREE(keyval);                                                                                                    \
      rc = CREATE(__VA_ARGS__);                                                                                        \
    }                                                                                                                  \
    if (rc == MPI_SUCCESS)                                                                                             \
      record(*keyval, KIND, (void *)(COPY));                                                                           \
    return rc;                                                                                                         \
  } while (0)

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                           void *extra_state)
{
  MAKE(COMM, copy_fn, PMPI_Comm_create_keyval, PMPI_Comm_free_keyval, copy_fn ? comm_copy : NULL, delete_fn, keyval,
       extra_state);
}

int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
  MAKE(COMM, copy_fn, PMPI_Keyval_create, PMPI_Keyval_free, copy_fn ? (MPI_Copy_function *)comm_copy : NULL, delete_fn,
       keyval, extra_state);
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn, MPI_Type_delete_attr_function *delete_fn, int *keyval,
                           void *extra_state)
{
  MAKE(TYPE, copy_fn, PMPI_Type_create_keyval, PMPI_Type_free_keyval, copy_fn ? type_copy : NULL, delete_fn, keyval,
       extra_state);
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn, MPI_Win_delete_attr_function *delete_fn, int *keyval,
                          void *extra_state)
{
  /* a window is one rank's object: SMPI calls the program's copy function as it is */
  MAKE(WIN, NULL, PMPI_Win_create_keyval, PMPI_Win_free_keyval, copy_fn, delete_fn, keyval, extra_state);
}

/* ---- the other calls on keys, here so that the bracket checks their kind (checks.c) ---- */

int MPI_Comm_free_keyval(int *keyval) { return PMPI_Comm_free_keyval(keyval); }
int MPI_Keyval_free(int *keyval) { return PMPI_Keyval_free(keyval); }
int MPI_Type_free_keyval(int *keyval) { return PMPI_Type_free_keyval(keyval); }
int MPI_Win_free_keyval(int *keyval) { return PMPI_Win_free_keyval(keyval); }
int MPI_Type_set_attr(MPI_Datatype type, int keyval, void *value) { return PMPI_Type_set_attr(type, keyval, value); }
int MPI_Type_get_attr(MPI_Datatype type, int keyval, void *value, int *flag)
{
  return PMPI_Type_get_attr(type, keyval, value, flag);
}
/* Deleting an attribute the object does not hold does nothing, as in MPICH (SMPI answers MPI_ERR_ARG). */
int MPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
  void *v;
  int flag = 1;
  if (PMPI_Type_get_attr(type, keyval, &v, &flag) == MPI_SUCCESS && !flag)
    return MPI_SUCCESS;
  return PMPI_Type_delete_attr(type, keyval);
}
int MPI_Win_set_attr(MPI_Win win, int keyval, void *value) { return PMPI_Win_set_attr(win, keyval, value); }
int MPI_Win_delete_attr(MPI_Win win, int keyval)
{
  void *v;
  int flag = 1;
  if (PMPI_Win_get_attr(win, keyval, &v, &flag) == MPI_SUCCESS && !flag)
    return MPI_SUCCESS;
  return PMPI_Win_delete_attr(win, keyval);
}
/* MPI_Win_get_attr and the communicator's attribute calls: attr.c */
