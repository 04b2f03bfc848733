/* Place in the adaptor's order (adaptor.h): above bind.c; calls only the tables. */
/* Values that differ between the program's ABI and SMPI although they are plain ints or pointers:
 * special ranks and tags, MPI_UNDEFINED, attribute keys, window assertions and lock types, the
 * comparison results, error codes (MPICH's MPI_ERR_TRUNCATE is 14, Open MPI's 15, SMPI's 9), and
 * the special buffer addresses MPI_IN_PLACE and MPI_BOTTOM. */
#include <stdlib.h>

#include "adaptor.h"

/* A: the program's value, T: SMPI's. Values not special pass unchanged. */
static int map(int v, const int *from, const int *to, const int *which, int n)
{
  for (int i = 0; i < n; i++)
    if (from[which[i]] == v && to[which[i]] != ABI_NO_CONST)
      return to[which[i]];
  return v;
}

#define MAP_IN(v, ...)                                                                                             \
  do {                                                                                                             \
    static const int w_[] = {__VA_ARGS__};                                                                         \
    return map(v, abi_a_const, abi_t_const, w_, (int)(sizeof w_ / sizeof w_[0]));                                 \
  } while (0)
#define MAP_OUT(v, ...)                                                                                            \
  do {                                                                                                             \
    static const int w_[] = {__VA_ARGS__};                                                                         \
    return map(v, abi_t_const, abi_a_const, w_, (int)(sizeof w_ / sizeof w_[0]));                                 \
  } while (0)

int abi_rank_in(int r) { MAP_IN(r, C_ANY_SOURCE, C_PROC_NULL, C_ROOT); }
/* MPI_ROOT goes to the layer's (sim/mpi/mpi_root.h: SMPI's own is 0). Not back: a rank coming back (a
 * status's source, a neighbour) is never MPI_ROOT. */
int abi_rank_out(int r) { MAP_OUT(r, C_ANY_SOURCE, C_PROC_NULL, C_UNDEFINED); }
int abi_tag_in(int t) { MAP_IN(t, C_ANY_TAG); }
int abi_undef_in(int v) { MAP_IN(v, C_UNDEFINED); }
int abi_undef_out(int v) { MAP_OUT(v, C_UNDEFINED); }
/* Attribute keys. The predefined ones by name; the program's own are SMPI's numbers (0, 1, ...)
 * shifted by KEY_SHIFT, because Open MPI numbers its predefined keys from 0 (MPI_TAG_UB is 0 there):
 * SMPI's key 0 must not read as MPI_TAG_UB coming back. A small number that is neither is no key the
 * program was given: it goes on as one SMPI never made (its call answers the error). */
#define KEY_SHIFT 256
#define NO_KEY 0x7fffffff
static const int predefined_keys[] = {C_TAG_UB, C_HOST, C_IO, C_WTIME_IS_GLOBAL, C_UNIVERSE_SIZE, C_LASTUSEDCODE,
                                      C_APPNUM, C_KEYVAL_INVALID, C_WIN_BASE, C_WIN_SIZE, C_WIN_DISP_UNIT,
                                      C_WIN_CREATE_FLAVOR, C_WIN_MODEL};
#define NPREDEFINED_KEYS ((int)(sizeof predefined_keys / sizeof predefined_keys[0]))

int abi_keyval_in(int k)
{
  for (int i = 0; i < NPREDEFINED_KEYS; i++)
    if (abi_a_const[predefined_keys[i]] == k)
      return abi_t_const[predefined_keys[i]] != ABI_NO_CONST ? abi_t_const[predefined_keys[i]] : NO_KEY;
  return k >= KEY_SHIFT && k != NO_KEY ? k - KEY_SHIFT : NO_KEY;
}

int abi_keyval_out(int k)
{
  for (int i = 0; i < NPREDEFINED_KEYS; i++)
    if (abi_t_const[predefined_keys[i]] == k && abi_t_const[predefined_keys[i]] != ABI_NO_CONST)
      return abi_a_const[predefined_keys[i]];
  return k >= 0 ? k + KEY_SHIFT : k;
}

/* What MPI_Win_get_attr points to for MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL, in the program's
 * numbering (MPICH and Open MPI number the flavors from 1, SMPI from 0; the models differ too). VAL:
 * where the pointer was stored; it is pointed at a constant of the program's. */
void abi_win_attr_out(int key, void *val)
{
  static const int flavors[] = {C_WIN_FLAVOR_CREATE, C_WIN_FLAVOR_ALLOCATE, C_WIN_FLAVOR_DYNAMIC, C_WIN_FLAVOR_SHARED};
  static const int models[] = {C_WIN_SEPARATE, C_WIN_UNIFIED};
  static int shown[6]; /* the program's values, in the order above: the same for every rank */
  const int *which;
  int n, base;
  if (key == abi_a_const[C_WIN_CREATE_FLAVOR])
    which = flavors, n = 4, base = 0;
  else if (key == abi_a_const[C_WIN_MODEL])
    which = models, n = 2, base = 4;
  else
    return;
  int v = **(int **)val;
  for (int i = 0; i < n; i++)
    if (abi_t_const[which[i]] == v) {
      shown[base + i] = abi_a_const[which[i]];
      *(int **)val = &shown[base + i];
      return;
    }
}
int abi_lock_in(int l) { MAP_IN(l, C_LOCK_EXCLUSIVE, C_LOCK_SHARED); }
int abi_order_in(int o) { MAP_IN(o, C_ORDER_C, C_ORDER_FORTRAN); }
/* MPICH numbers them REAL 1, INTEGER 2, COMPLEX 3, Open MPI INTEGER 1, REAL 2, SMPI REAL 0, INTEGER 1 */
int abi_typeclass_in(int c) { MAP_IN(c, C_TYPECLASS_REAL, C_TYPECLASS_INTEGER, C_TYPECLASS_COMPLEX); }
int abi_compare_out(int c) { MAP_OUT(c, C_IDENT, C_CONGRUENT, C_SIMILAR, C_UNEQUAL); }
/* MPI_Topo_test: MPICH and SMPI number the kinds GRAPH 1, CART 2, DIST_GRAPH 3, Open MPI CART 1, GRAPH 2 */
int abi_topo_out(int t) { MAP_OUT(t, C_UNDEFINED, C_GRAPH, C_CART, C_DIST_GRAPH); }

/* Assertions are bit sets: each bit translated on its own. */
int abi_assert_in(int a)
{
  static const int bits[] = {C_MODE_NOCHECK, C_MODE_NOSTORE, C_MODE_NOPUT, C_MODE_NOPRECEDE, C_MODE_NOSUCCEED};
  int out = 0;
  for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
    if ((a & abi_a_const[bits[i]]) && abi_t_const[bits[i]] != ABI_NO_CONST)
      out |= abi_t_const[bits[i]];
  return out;
}

/* SMPI's error codes are its enum's indices (abi_err_names); each ABI's value by name. */
/* The classes and codes a program adds (MPI_Add_error_class ...: sim/mpi/errors.c) lie above
 * SMPI's MPI_ERR_LASTCODE; the program's own must lie above its ABI's: moved by the difference. */
extern const int abi_t_lastcode;

int abi_rc_out(int rc)
{
  if (rc == T_SUCCESS)
    return 0;
  if (rc > 0 && rc < abi_nerr)
    return abi_err_out[rc];
  if (rc > abi_t_lastcode)
    return rc - abi_t_lastcode + abi_a_lastcode;
  return abi_err_out[0] ? abi_err_out[0] : rc;
}

void *abi_lastused_out(void *val)
{
  static int code; /* one value for every rank: the classes and codes added are too */
  int **p = val;
  if (*p) {
    /* no class or code added yet: SMPI's last code is its MPI_ERR_LASTCODE, the program's is its own */
    code = **p <= abi_t_lastcode ? abi_a_lastcode : abi_rc_out(**p);
    *p = &code;
  }
  return val;
}

int abi_err_in(int e)
{
  if (e == 0)
    return T_SUCCESS;
  if (e > abi_a_lastcode)
    return e - abi_a_lastcode + abi_t_lastcode;
  for (int i = 1; i < abi_nerr; i++)
    if (abi_err_out[i] == e)
      return i;
  return e;
}

void *abi_buf_in(const void *buf)
{
  extern void *abi_t_in_place, *abi_t_bottom;
  if ((intptr_t)buf == abi_a_in_place)
    return abi_t_in_place;
  /* The ABI's MPI_BOTTOM (0 for MPICH and Open MPI) becomes SMPI's ((void *)-111): SMPI 3.32's
   * point-to-point calls refuse a null buffer holding data (PMPI_Irecv's input checks), so a
   * receive at absolute addresses (MPICH's pt2pt/bottom) failed. A null buffer of no data is
   * SMPI's MPI_BOTTOM just as well (nothing is read or written), and the layer's collectives read
   * SMPI's MPI_BOTTOM as the null address again. */
  if ((intptr_t)buf == abi_a_bottom)
    return abi_t_bottom;
  return (void *)buf;
}

t_status *abi_t_status_ignore(void) { return NULL; } /* SMPI's MPI_STATUS(ES)_IGNORE */

t_status *abi_scratch_status(int n) { return calloc(n > 0 ? (size_t)n : 1, sizeof(t_status)); }
void **abi_scratch_ptrs(int n) { return calloc(n > 0 ? (size_t)n : 1, sizeof(void *)); }
void abi_scratch_free(void *p) { free(p); }

int *abi_rank_arr_in(const int *r, int n)
{
  int *c = calloc(n > 0 ? (size_t)n : 1, sizeof *c);
  for (int i = 0; c && r && i < n; i++)
    c[i] = abi_rank_in(r[i]);
  return c;
}
