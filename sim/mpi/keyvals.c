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
 * The check itself is the bracket's (checks.c: icsim_check_keyval), before the call acts. */
#include <stdlib.h>

#include "layer.h"

enum kind { NONE, COMM, TYPE, WIN };
static const char *const kind_name[] = {"", "communicator", "datatype", "window"};
static unsigned char *kind_of; /* by key number */
static int nkeys;

static enum kind recorded(int key) { return key >= 0 && key < nkeys ? (enum kind)kind_of[key] : NONE; }

static void record(int key, enum kind k)
{
  if (key < 0)
    return;
  if (key >= nkeys) {
    int n = key + 64;
    unsigned char *grown = realloc(kind_of, (size_t)n);
    if (!grown)
      return; /* unrecorded: the key passes unchecked, as a Fortran one does */
    for (int i = nkeys; i < n; i++)
      grown[i] = NONE;
    kind_of = grown;
    nkeys = n;
  }
  kind_of[key] = (unsigned char)k;
}

/* The kind KEY was made for: 0 when unrecorded, else 1 communicator, 2 datatype, 3 window. */
int icsim_keyval_kind(int key) { return (int)recorded(key); }

const char *icsim_keyval_kind_name(int kind) { return kind > NONE && kind <= WIN ? kind_name[kind] : "object"; }

/* ---- making keys: distinct numbers across kinds ---- */

#define MAKE(KIND, CREATE, FREE, ...)                                                                                  \
  do {                                                                                                                 \
    int rc = CREATE(__VA_ARGS__);                                                                                      \
    for (int turn = 0; rc == MPI_SUCCESS && turn < 64 && recorded(*keyval) != NONE && recorded(*keyval) != KIND;       \
         turn++) {                                                                                                     \
      FREE(keyval);                                                                                                    \
      rc = CREATE(__VA_ARGS__);                                                                                        \
    }                                                                                                                  \
    if (rc == MPI_SUCCESS)                                                                                             \
      record(*keyval, KIND);                                                                                           \
    return rc;                                                                                                         \
  } while (0)

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                           void *extra_state)
{
  MAKE(COMM, PMPI_Comm_create_keyval, PMPI_Comm_free_keyval, copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
  MAKE(COMM, PMPI_Keyval_create, PMPI_Keyval_free, copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn, MPI_Type_delete_attr_function *delete_fn, int *keyval,
                           void *extra_state)
{
  MAKE(TYPE, PMPI_Type_create_keyval, PMPI_Type_free_keyval, copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn, MPI_Win_delete_attr_function *delete_fn, int *keyval,
                          void *extra_state)
{
  MAKE(WIN, PMPI_Win_create_keyval, PMPI_Win_free_keyval, copy_fn, delete_fn, keyval, extra_state);
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
