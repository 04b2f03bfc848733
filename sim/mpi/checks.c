/* The entry bracket's argument checks (checks.h says what and why).
 *
 * The classes are MPICH's for the same mistake (its MPIR_ERRTEST_* macros): a null handle or one
 * of the wrong kind, a negative count, a rank outside the group, a tag outside 0..MPI_TAG_UB, a
 * type not committed, a null buffer that would hold data, a null pointer where MPI writes a
 * handle back (MPI_ERR_ARG). tests/mpi/errors_diff.py compares them call by call with MPICH's. */
#include <stdio.h>
#include <stdlib.h>

#include "checks.h"
#include "comm_record.h"
#include "layer.h"

int icsim_checking(void) { return icsim_runtime_get() != NULL; }

static int failed(struct icsim_check *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static int failed(struct icsim_check *c, int rc, const char *fmt, ...)
{
  c->rc = rc;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->what, sizeof c->what, fmt, ap);
  va_end(ap);
  return rc;
}

void icsim_check_comm(struct icsim_check *c, const char *name, MPI_Comm comm)
{
  if (!c->rc && comm == MPI_COMM_NULL)
    failed(c, MPI_ERR_COMM, "%s is MPI_COMM_NULL", name);
}

void icsim_check_win(struct icsim_check *c, const char *name, MPI_Win win)
{
  if (!c->rc && win == MPI_WIN_NULL)
    failed(c, MPI_ERR_WIN, "%s is MPI_WIN_NULL", name);
}

void icsim_check_ptr(struct icsim_check *c, const char *name, const void *p)
{
  if (!c->rc && p == NULL)
    failed(c, MPI_ERR_ARG, "%s is a null pointer", name);
}

void icsim_check_data(struct icsim_check *c, const char *name, const void *p)
{
  if (!c->rc && (p == NULL || p == MPI_BOTTOM))
    failed(c, MPI_ERR_ARG, "%s is a null pointer", name);
}

void icsim_check_count(struct icsim_check *c, const char *name, long long n)
{
  if (!c->rc && n < 0)
    failed(c, MPI_ERR_COUNT, "%s = %lld is negative", name, n);
}

void icsim_check_counts(struct icsim_check *c, const char *name, const int *v, int n)
{
  if (c->rc || !v)
    return;
  for (int i = 0; i < n; i++)
    if (v[i] < 0) {
      failed(c, MPI_ERR_COUNT, "%s[%d] = %d is negative", name, i, v[i]);
      return;
    }
}

void icsim_check_type(struct icsim_check *c, const char *name, MPI_Datatype type)
{
  if (c->rc)
    return;
  if (type == MPI_DATATYPE_NULL)
    failed(c, MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", name);
  else if (!icsim_type_valid(type))
    failed(c, MPI_ERR_TYPE, "%s has not been committed (MPI_Type_commit)", name);
}

void icsim_check_op(struct icsim_check *c, const char *name, MPI_Op op)
{
  if (!c->rc && op == MPI_OP_NULL)
    failed(c, MPI_ERR_OP, "%s is MPI_OP_NULL", name);
}

/* A null buffer is MPI_BOTTOM (SMPI's own value for it comes from the adaptor, which maps the
 * ABI's MPI_BOTTOM there): data at absolute addresses, which only a derived type can give. */
void icsim_check_buf(struct icsim_check *c, const char *name, const void *buf, int count, MPI_Datatype type)
{
  if (c->rc || (buf != NULL && buf != MPI_BOTTOM) || count <= 0 || type == MPI_DATATYPE_NULL || !icsim_type_valid(type))
    return;
  int ni, na, nd, combiner = MPI_COMBINER_NAMED;
  if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner == MPI_COMBINER_NAMED &&
      icsim_type_bytes(count, type) > 0)
    failed(c, MPI_ERR_BUFFER, "%s is a null pointer with %d elements of a predefined type", name, count);
}

void icsim_check_rank(struct icsim_check *c, const char *name, int rank, MPI_Comm comm, int any)
{
  if (c->rc || rank == MPI_PROC_NULL || (any && rank == MPI_ANY_SOURCE))
    return;
  const struct icsim_inter *in = icsim_inter_of(comm);
  int n = 0;
  if (in)
    n = in->rsize;
  else if (PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
    return; /* not a communicator SMPI knows: its own call says so */
  if (rank < 0 || rank >= n)
    failed(c, MPI_ERR_RANK, "%s = %d is not a rank of the %s (size %d)%s", name, rank,
           in ? "remote group" : "communicator", n, any ? ", MPI_ANY_SOURCE nor MPI_PROC_NULL" : " nor MPI_PROC_NULL");
}

void icsim_check_tag(struct icsim_check *c, const char *name, int tag, int any)
{
  if (c->rc || (any && tag == MPI_ANY_TAG))
    return;
  static int ub;
  if (!ub) {
    int *v = NULL, flag = 0;
    ub = PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS && flag && v ? *v : 32767;
  }
  if (tag < 0 || tag > ub)
    failed(c, MPI_ERR_TAG, "%s = %d is outside 0..MPI_TAG_UB (%d)%s", name, tag, ub, any ? " and not MPI_ANY_TAG" : "");
}

void icsim_check_message(struct icsim_check *c, const char *name, const MPI_Message *msg)
{
  if (c->rc)
    return;
  /* not *msg == MPI_MESSAGE_NULL: SMPI's header makes it MPI_MESSAGE_NO_PROC, a valid message */
  if (msg == NULL)
    failed(c, MPI_ERR_ARG, "%s is a null pointer", name);
}

void icsim_check_win_size(struct icsim_check *c, const char *name, MPI_Aint size)
{
  if (!c->rc && size < 0)
    failed(c, MPI_ERR_SIZE, "%s = %ld is negative", name, (long)size);
}

void icsim_check_disp_unit(struct icsim_check *c, const char *name, int disp)
{
  if (!c->rc && disp <= 0)
    failed(c, MPI_ERR_DISP, "%s = %d is not positive", name, disp);
}

void icsim_check_info(struct icsim_check *c, const char *name, MPI_Info info)
{
  if (!c->rc && info == MPI_INFO_NULL)
    failed(c, MPI_ERR_ARG, "%s is MPI_INFO_NULL", name);
}

/* A handle of another kind given as a group (MPICH's errors/group/gerr passes MPI_COMM_WORLD):
 * SMPI's handles are pointers to C++ objects of classes with virtual functions (simgrid::smpi::F2C
 * and its subclasses), so an object's first word is its class's virtual table; every group's is
 * the table MPI_GROUP_EMPTY's points to, a communicator's or a datatype's another. SMPI itself
 * would read the communicator as a group. */
static int not_a_group(MPI_Group group) { return *(void *const *)group != *(void *const *)MPI_GROUP_EMPTY; }

void icsim_check_group(struct icsim_check *c, const char *name, MPI_Group group)
{
  if (!c->rc && group == MPI_GROUP_NULL)
    failed(c, MPI_ERR_GROUP, "%s is MPI_GROUP_NULL", name);
  else if (!c->rc && not_a_group(group))
    failed(c, MPI_ERR_GROUP, "%s is not a group (a handle of another kind)", name);
}

/* MPICH refuses a group with a process outside the communicator (its ccreate1 test); SMPI would
 * make a communicator of processes that never call. */
void icsim_check_subgroup(struct icsim_check *c, const char *name, MPI_Group group, MPI_Comm comm)
{
  int n = 0, inter = 0;
  if (c->rc || group == MPI_GROUP_NULL || comm == MPI_COMM_NULL || icsim_inter_of(comm) ||
      PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter || PMPI_Group_size(group, &n) != MPI_SUCCESS || n <= 0)
    return;
  MPI_Group mine;
  if (PMPI_Comm_group(comm, &mine) != MPI_SUCCESS)
    return;
  int *r = malloc(2 * (size_t)n * sizeof *r);
  if (r) {
    for (int i = 0; i < n; i++)
      r[i] = i;
    if (PMPI_Group_translate_ranks(group, n, r, mine, r + n) == MPI_SUCCESS)
      for (int i = 0; i < n; i++)
        if (r[n + i] == MPI_UNDEFINED) {
          failed(c, MPI_ERR_GROUP, "%s holds a process (its rank %d) that is not in the communicator", name, i);
          break;
        }
    free(r);
  }
  PMPI_Group_free(&mine);
}

int icsim_check_end(struct icsim_check *c, MPI_Comm comm, MPI_Win win)
{
  icsim_error_detail(c->what);
  int rc = win != MPI_WIN_NULL ? icsim_win_error(win, c->call, c->rc) : icsim_error(comm, c->call, c->rc);
  icsim_error_detail(NULL);
  return rc;
}

void icsim_inherit_errhandler(MPI_Comm parent, MPI_Comm *out)
{
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (!out || *out == MPI_COMM_NULL || parent == MPI_COMM_NULL || PMPI_Comm_get_errhandler(parent, &eh) != MPI_SUCCESS)
    return;
  if (eh != MPI_ERRHANDLER_NULL) {
    PMPI_Comm_set_errhandler(*out, eh);
    PMPI_Errhandler_free(&eh);
  }
}

void icsim_check_win_rank(struct icsim_check *c, const char *name, int rank, MPI_Win win)
{
  MPI_Group g;
  int n = 0;
  if (c->rc || rank == MPI_PROC_NULL || win == MPI_WIN_NULL || PMPI_Win_get_group(win, &g) != MPI_SUCCESS)
    return;
  PMPI_Group_size(g, &n);
  PMPI_Group_free(&g);
  if (rank < 0 || rank >= n)
    failed(c, MPI_ERR_RANK, "%s = %d is not a rank of the window's group (size %d) nor MPI_PROC_NULL", name, rank, n);
}

/* A grid larger than the communicator (MPICH: MPI_ERR_ARG, and no communicator made). */
void icsim_check_cart(struct icsim_check *c, MPI_Comm comm, int ndims, const int *dims, MPI_Comm *out)
{
  int n = 0;
  if (c->rc || ndims <= 0 || !dims || comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &n) != MPI_SUCCESS)
    return;
  long long cells = 1;
  for (int i = 0; i < ndims && cells <= n; i++)
    cells *= dims[i] > 0 ? dims[i] : 1;
  if (cells > n) {
    failed(c, MPI_ERR_ARG, "the grid has more cells than the communicator's %d ranks", n);
    if (out)
      *out = MPI_COMM_NULL;
  }
}

/* MPI_Compare_and_swap's type (MPI 4.0, 12.3.5): an integer, logical, multi-language or byte type;
 * a derived or floating-point one is MPI_ERR_TYPE (SMPI aborted on a derived one). */
void icsim_check_cas_type(struct icsim_check *c, MPI_Datatype t)
{
  int ni, na, nd, combiner = -1;
  if (c->rc || t == MPI_DATATYPE_NULL || !icsim_type_valid(t))
    return;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  if (combiner != MPI_COMBINER_NAMED || t == MPI_FLOAT || t == MPI_DOUBLE || t == MPI_LONG_DOUBLE ||
      t == MPI_C_FLOAT_COMPLEX || t == MPI_C_DOUBLE_COMPLEX || t == MPI_C_LONG_DOUBLE_COMPLEX || t == MPI_2INT ||
      t == MPI_FLOAT_INT || t == MPI_DOUBLE_INT || t == MPI_LONG_INT || t == MPI_SHORT_INT || t == MPI_2FLOAT ||
      t == MPI_2DOUBLE || t == MPI_LONG_DOUBLE_INT || t == MPI_REAL || t == MPI_DOUBLE_PRECISION)
    failed(c, MPI_ERR_TYPE, "datatype is not an integer, logical, multi-language or byte type");
}

/* A key made for another kind of object than the call's (keyvals.c records each key's kind). */
void icsim_check_keyval(struct icsim_check *c, const char *name, int key, int kind)
{
  int was = icsim_keyval_kind(key);
  if (!c->rc && was && was != kind)
    failed(c, MPI_ERR_KEYVAL, "%s = %d was made for a %s, not a %s", name, key, icsim_keyval_kind_name(was),
           icsim_keyval_kind_name(kind));
}

/* A constructor with no context id left (context_ids.c): MPICH's "too many communicators". */
void icsim_check_context_ids(struct icsim_check *c)
{
  if (!c->rc && !icsim_context_ids_left())
    failed(c, MPI_ERR_OTHER, "too many communicators: this rank holds %d, all of mpi/context-ids (free some)",
           icsim_context_ids_in_use());
}
