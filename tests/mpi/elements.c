/* Status queries: MPI_Get_elements and MPI_Get_elements_x on whole and partial receives (a basic
 * type, a vector received in part, a contiguous type of vectors), MPI_Get_count's MPI_UNDEFINED
 * for a partial one, MPI_Pcontrol (no profiler: no effect) and MPI_Type_match_size (a type of each
 * class and size, used to move data; an unknown size refused). Only counts are checked after a
 * partial receive. SMPI 3.32's stubs for
 * MPI_Get_elements, MPI_Pcontrol and MPI_Type_match_size abort; the layer answers them (sim/mpi/elements.c,
 * unsupported.c). Correct MPI that prints No Errors on MPICH. */
#include "suite.h"

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(2))
    return suite_finish();
  MPI_OK(MPI_Pcontrol(1));
  int me = suite_rank, peer = me ^ 1;
  if (peer >= suite_size) /* an odd last rank sits out */
    return suite_finish();
  double out[16], in[32];
  for (int i = 0; i < 16; i++)
    out[i] = me * 100 + i;
  MPI_Datatype vec, two;
  MPI_OK(MPI_Type_vector(3, 2, 3, MPI_DOUBLE, &vec)); /* 6 doubles in blocks of 2, stride 3 */
  MPI_OK(MPI_Type_commit(&vec));
  MPI_OK(MPI_Type_contiguous(2, vec, &two)); /* 12 doubles */
  MPI_OK(MPI_Type_commit(&two));
  MPI_Status st;
  int n, count;
  MPI_Count nx;

  suite_step("3 doubles into a buffer of 8");
  MPI_OK(MPI_Sendrecv(out, 3, MPI_DOUBLE, peer, 1, in, 8, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Get_elements(&st, MPI_DOUBLE, &n));
  MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
  CHECK(n == 3 && count == 3, "elements %d, count %d (3, 3)", n, count);

  suite_step("5 doubles received as a vector of 6");
  MPI_OK(MPI_Sendrecv(out, 5, MPI_DOUBLE, peer, 2, in, 1, vec, peer, 2, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Get_elements(&st, vec, &n));
  MPI_OK(MPI_Get_count(&st, vec, &count));
  CHECK(n == 5, "elements %d (5)", n);
  CHECK(count == MPI_UNDEFINED, "count %d of a partial vector (MPI_UNDEFINED)", count);
  /* The data of the partial instance is not checked: SMPI 3.32 writes whole instances only (icsim
   * says so on stderr, once a run; plain SMPI leaves the buffer as it was without a word). */

  suite_step("15 doubles received as two of two vectors");
  MPI_OK(MPI_Sendrecv(out, 15, MPI_DOUBLE, peer, 3, in, 2, two, peer, 3, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Get_elements_x(&st, two, &nx));
  MPI_OK(MPI_Get_count(&st, two, &count));
  CHECK(nx == 15, "elements %lld (15)", (long long)nx);
  CHECK(count == MPI_UNDEFINED, "count %d (MPI_UNDEFINED)", count);

  suite_step("nothing received");
  MPI_OK(MPI_Sendrecv(out, 0, MPI_DOUBLE, peer, 4, in, 1, two, peer, 4, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Get_elements(&st, two, &n));
  CHECK(n == 0, "elements %d (0)", n);

  MPI_Type_free(&two);
  MPI_Type_free(&vec);

  suite_step("MPI_Type_match_size");
  struct {
    int cls, size;
  } want[] = {{MPI_TYPECLASS_REAL, sizeof(float)},   {MPI_TYPECLASS_REAL, sizeof(double)},
              {MPI_TYPECLASS_INTEGER, sizeof(short)}, {MPI_TYPECLASS_INTEGER, sizeof(int)},
              {MPI_TYPECLASS_INTEGER, 8},            {MPI_TYPECLASS_COMPLEX, 2 * sizeof(double)}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int size = -1;
    MPI_OK(MPI_Type_match_size(want[i].cls, want[i].size, &t));
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(size == want[i].size, "match_size(class %d, %d): a type of %d bytes", want[i].cls, want[i].size, size);
    char sbuf[16], rbuf[16];
    for (int b = 0; b < 16; b++)
      sbuf[b] = (char)(me * 16 + b), rbuf[b] = 0;
    MPI_OK(MPI_Sendrecv(sbuf, 1, t, peer, 5, rbuf, 1, t, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int same = 1;
    for (int b = 0; b < want[i].size; b++)
      same &= rbuf[b] == (char)(peer * 16 + b);
    CHECK(same, "match_size(class %d, %d): the type does not carry its bytes", want[i].cls, want[i].size);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype none;
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &none) != MPI_SUCCESS, "match_size of 3-byte integers succeeded");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  suite_step("empty blocks move neither bound (MPI 3.1, 4.1.6)");
  {
    /* blocks of 0, 4 and 0 ints at 1000, 2 and 1000 ints: the map is the 4 ints from int 2 */
    int len[3] = {0, 4, 0}, disp[3] = {1000, 2, 1000};
    MPI_Aint adisp[3] = {4000, 8, 4000}, lb = -1, ext = -1;
    MPI_Datatype ts[3] = {MPI_INT, MPI_INT, MPI_DOUBLE}, t;
    int size = -1;
    MPI_OK(MPI_Type_indexed(3, len, disp, MPI_INT, &t));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(lb == 8 && ext == 16 && size == 16, "indexed {0,4,0}: lb %ld extent %ld size %d, expected 8 16 16", (long)lb,
          (long)ext, size);
    MPI_Type_free(&t);
    MPI_OK(MPI_Type_create_hindexed(3, len, adisp, MPI_INT, &t));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(lb == 8 && ext == 16, "hindexed {0,4,0}: lb %ld extent %ld, expected 8 16", (long)lb, (long)ext);
    MPI_Type_free(&t);
    MPI_OK(MPI_Type_create_struct(3, len, adisp, ts, &t));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(lb == 8 && ext == 16, "struct {0,4,0}: lb %ld extent %ld, expected 8 16", (long)lb, (long)ext);
    MPI_Type_free(&t);
    int none[2] = {0, 0};
    MPI_OK(MPI_Type_indexed(2, none, disp, MPI_INT, &t));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(lb == 0 && ext == 0 && size == 0, "indexed, all blocks empty: lb %ld extent %ld size %d", (long)lb, (long)ext,
          size);
    MPI_Type_free(&t);
  }
  MPI_OK(MPI_Pcontrol(0));
  return suite_finish();
}
