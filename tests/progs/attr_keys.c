/* Attribute keys and their callbacks, as any MPI gives them (issue 39): a communicator's copy and
 * delete functions (the program's own and MPI_COMM_DUP_FN) on MPI_COMM_WORLD, which SMPI shares
 * between ranks, a datatype's delete function, a key of one kind refused on another, a window's
 * predefined attributes (flavor, model, base) and a key of its own. Every rank prints its verdict:
 * tests/mpi/same_as_mpich.py compares the lines with native MPICH's, for the program built by
 * icsimcc and for the native binary through the MPI-Adaptor; the Open MPI build runs through the
 * adaptor and must print the same. */
#include <mpi.h>
#include <stdio.h>
static int copies, deletes;
static int my_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
  copies++;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}
static int my_del(MPI_Comm c, int key, void *val, void *extra) { deletes++; return MPI_SUCCESS; }
static int tdel(MPI_Datatype t, int key, void *val, void *extra) { deletes++; return MPI_SUCCESS; }
int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, key, tkey, wkey, dkey, v = 42, *got, flag, errs = 0, buf[4];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_create_keyval(my_copy, my_del, &key, NULL);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dkey, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, key, &v);
  MPI_Comm_set_attr(MPI_COMM_WORLD, dkey, &v);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_attr(dup, key, &got, &flag);
  if (!flag || *got != 42) errs++, printf("copy callback: flag %d\n", flag);
  MPI_Comm_get_attr(dup, dkey, &got, &flag);
  if (!flag || *got != 42) errs++, printf("dup fn: flag %d\n", flag);
  MPI_Comm_free(&dup);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
  if (copies != 1 || deletes != 2) errs++, printf("copies %d deletes %d\n", copies, deletes);
  MPI_Comm_free_keyval(&key);
  if (key != MPI_KEYVAL_INVALID) errs++, printf("key not invalid after free\n");
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, tdel, &tkey, NULL);
  MPI_Datatype t;
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_set_attr(t, tkey, &v);
  MPI_Type_get_attr(t, tkey, &got, &flag);
  if (!flag || *got != 42) errs++, printf("type attr\n");
  MPI_Type_free(&t);
  if (deletes != 3) errs++, printf("type delete not called (%d)\n", deletes);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (MPI_Comm_set_attr(MPI_COMM_WORLD, tkey, &v) == MPI_SUCCESS) errs++, printf("type key on a comm accepted\n");
  MPI_Win w;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  int *flavor, *model;
  MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  if (!flag || *flavor != MPI_WIN_FLAVOR_CREATE) errs++, printf("flavor %d\n", flag ? *flavor : -1);
  MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag);
  if (!flag || (*model != MPI_WIN_UNIFIED && *model != MPI_WIN_SEPARATE)) errs++, printf("model\n");
  void *base;
  MPI_Win_get_attr(w, MPI_WIN_BASE, &base, &flag);
  if (!flag || base != buf) errs++, printf("win base\n");
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wkey, NULL);
  MPI_Win_set_attr(w, wkey, &v);
  MPI_Win_get_attr(w, wkey, &got, &flag);
  if (!flag || *got != 42) errs++, printf("win attr\n");
  MPI_Win_free(&w);
  MPI_Type_free_keyval(&tkey);
  MPI_Win_free_keyval(&wkey);
  if (errs)
    printf("rank %d: %d errors\n", rank, errs);
  else
    printf("rank %d: No Errors\n", rank);
  MPI_Finalize();
  return 0;
}
