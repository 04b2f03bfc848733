/* Place in the adaptor's order (adaptor.h): beside ops.c and errhandlers.c, above the ABI's file
 * (mpich.c, ompi.c); calls handles.c, values.c, bind.c; only wrappers_ABI.c calls it. */
/* The program's attribute callbacks (MPI_Comm_create_keyval and the datatype, window and MPI-1
 * forms). SMPI calls a copy function with its own handle of the object and its own key; the
 * program's expects its ABI's. Unlike error handlers (errhandlers.c), a callback is called with its
 * key, which names it: SMPI is given one function per kind of object and of callback, which finds
 * the program's function by the key, converts the handle and the key, calls it, and converts the
 * error code it returns. SMPI's keys are distinct across kinds and ranks (the layer's keyvals.c;
 * one counter per kind in one process), so one table by key serves every rank; each key's
 * functions are those of the rank (the program's copy) that made it.
 *
 * The ABI's predefined callbacks go to SMPI's own: the null functions (MPICH: 0; Open MPI: its
 * OMPI_C_MPI_*_NULL_*_FN functions, defined here so that its binaries load) are SMPI's 0, the dup
 * functions (MPICH's MPIR_Dup_fn, Open MPI's OMPI_C_MPI_*_DUP_FN) SMPI's MPI_DUP_FN, (void *)1.
 * Compiled once per ABI (ABI_HEADER). */
#include <stdlib.h>

#include ABI_HEADER

#define SMPI_DUP_FN ((void *)1) /* SimGrid 3.32's smpi.h: MPI_DUP_FN */

typedef int copy_fn(A_handle, int, void *, void *, void *, int *);
typedef int delete_fn(A_handle, int, void *, void *);

struct key {
  copy_fn *copy;
  delete_fn *del;
  const void *caller; /* the program's code: pointer ABIs hand it its own predefined objects */
  int kind;
};
static struct key *keys; /* by SMPI's key */
static int nkeys;

/* ---- the ABI's predefined callbacks ---- */

#ifdef ABI_MAGIC /* Open MPI: pointer handles; its predefined callbacks are functions of libmpi */
#define NULL_COPY(name)                                                                                                \
  int name(void *o, int k, void *e, void *in, void *out, int *flag)                                                   \
  {                                                                                                                    \
    *flag = 0;                                                                                                         \
    return 0;                                                                                                          \
  }
#define DUP(name)                                                                                                      \
  int name(void *o, int k, void *e, void *in, void *out, int *flag)                                                   \
  {                                                                                                                    \
    *(void **)out = in;                                                                                                \
    *flag = 1;                                                                                                         \
    return 0;                                                                                                          \
  }
#define NULL_DELETE(name)                                                                                              \
  int name(void *o, int k, void *v, void *e) { return 0; }
NULL_COPY(OMPI_C_MPI_NULL_COPY_FN) NULL_COPY(OMPI_C_MPI_COMM_NULL_COPY_FN) NULL_COPY(OMPI_C_MPI_TYPE_NULL_COPY_FN)
NULL_COPY(OMPI_C_MPI_WIN_NULL_COPY_FN)
DUP(OMPI_C_MPI_DUP_FN) DUP(OMPI_C_MPI_COMM_DUP_FN) DUP(OMPI_C_MPI_TYPE_DUP_FN) DUP(OMPI_C_MPI_WIN_DUP_FN)
NULL_DELETE(OMPI_C_MPI_NULL_DELETE_FN) NULL_DELETE(OMPI_C_MPI_COMM_NULL_DELETE_FN)
NULL_DELETE(OMPI_C_MPI_TYPE_NULL_DELETE_FN) NULL_DELETE(OMPI_C_MPI_WIN_NULL_DELETE_FN)

static void *predefined(void *fn)
{
  if (fn == (void *)OMPI_C_MPI_NULL_COPY_FN || fn == (void *)OMPI_C_MPI_COMM_NULL_COPY_FN ||
      fn == (void *)OMPI_C_MPI_TYPE_NULL_COPY_FN || fn == (void *)OMPI_C_MPI_WIN_NULL_COPY_FN ||
      fn == (void *)OMPI_C_MPI_NULL_DELETE_FN || fn == (void *)OMPI_C_MPI_COMM_NULL_DELETE_FN ||
      fn == (void *)OMPI_C_MPI_TYPE_NULL_DELETE_FN || fn == (void *)OMPI_C_MPI_WIN_NULL_DELETE_FN)
    return NULL;
  if (fn == (void *)OMPI_C_MPI_DUP_FN || fn == (void *)OMPI_C_MPI_COMM_DUP_FN || fn == (void *)OMPI_C_MPI_TYPE_DUP_FN ||
      fn == (void *)OMPI_C_MPI_WIN_DUP_FN)
    return SMPI_DUP_FN;
  return fn;
}
#else /* MPICH: the null functions are 0, every dup function is MPIR_Dup_fn, exported by libmpich */
int MPIR_Dup_fn(int o, int k, void *e, void *in, void *out, int *flag)
{
  *(void **)out = in;
  *flag = 1;
  return 0;
}

static void *predefined(void *fn) { return fn == (void *)MPIR_Dup_fn ? SMPI_DUP_FN : fn; }
#endif

/* ---- what SMPI calls ---- */

static struct key *key_of(int key)
{
  if (key < 0 || key >= nkeys || !keys[key].caller)
    abi_fail("an attribute callback was called for key %d, which the program did not make through the adaptor", key);
  return &keys[key];
}

static int copy(int kind, void *obj, int key, void *extra, void *in, void *out, int *flag)
{
  struct key *k = key_of(key);
  const void *abi_caller_ = k->caller;
  (void)abi_caller_;
  A_handle h = abi_h_out(kind, obj);
  int rc = k->copy(h, abi_keyval_out(key), extra, in, out, flag);
  if (abi_predef_of_target(kind, obj) < 0)
    abi_h_release(kind, h);
  return abi_err_in(rc);
}

static int del(int kind, void *obj, int key, void *val, void *extra)
{
  struct key *k = key_of(key);
  const void *abi_caller_ = k->caller;
  (void)abi_caller_;
  A_handle h = abi_h_out(kind, obj);
  int rc = k->del(h, abi_keyval_out(key), val, extra);
  if (abi_predef_of_target(kind, obj) < 0)
    abi_h_release(kind, h);
  return abi_err_in(rc);
}

static int comm_copy(void *o, int k, void *e, void *in, void *out, int *f) { return copy(AK_COMM, o, k, e, in, out, f); }
static int type_copy(void *o, int k, void *e, void *in, void *out, int *f) { return copy(AK_DATATYPE, o, k, e, in, out, f); }
static int win_copy(void *o, int k, void *e, void *in, void *out, int *f) { return copy(AK_WIN, o, k, e, in, out, f); }
static int comm_del(void *o, int k, void *v, void *e) { return del(AK_COMM, o, k, v, e); }
static int type_del(void *o, int k, void *v, void *e) { return del(AK_DATATYPE, o, k, v, e); }
static int win_del(void *o, int k, void *v, void *e) { return del(AK_WIN, o, k, v, e); }

void *abi_attr_fn_in(void *fn, int kind, int is_copy)
{
  void *p = predefined(fn);
  if (!p || p == SMPI_DUP_FN)
    return p;
  if (is_copy)
    return kind == AK_DATATYPE ? (void *)type_copy : kind == AK_WIN ? (void *)win_copy : (void *)comm_copy;
  return kind == AK_DATATYPE ? (void *)type_del : kind == AK_WIN ? (void *)win_del : (void *)comm_del;
}

void abi_attr_key_made(int key, void *copy_f, void *delete_f, int kind, const void *caller)
{
  if (key < 0)
    return;
  if (key >= nkeys) {
    int n = key + 64;
    struct key *grown = realloc(keys, sizeof *grown * (size_t)n);
    if (!grown)
      abi_fail("no memory for the table of attribute keys (%d keys)", n);
    for (int i = nkeys; i < n; i++)
      grown[i] = (struct key){NULL, NULL, NULL, 0};
    keys = grown;
    nkeys = n;
  }
  void *c = predefined(copy_f), *d = predefined(delete_f);
  /* caller is never null: it marks the key as made here */
  keys[key] = (struct key){c && c != SMPI_DUP_FN ? (copy_fn *)copy_f : NULL, d ? (delete_fn *)delete_f : NULL,
                           caller ? caller : (const void *)keys, kind};
}
