/* MPI_Sendrecv and MPI_Sendrecv_replace: ring shifts by every distance, non-periodic shifts
 * with MPI_PROC_NULL at the ends, exchanges with oneself, and derived datatypes (vector,
 * indexed, struct with a resized extent) on either side, where the send and receive types
 * differ but carry the same type signature. Sizes below and above the eager thresholds. */
#include "suite.h"

static int value(int rank, int i, int salt) { return rank * 1000003 + i * 7 + salt; }

/* Shift by every distance d, contiguous ints, n ints per message. */
static void ring_shifts(int count)
{
  int me = suite_rank, n = suite_size;
  int *s = malloc(sizeof(int) * (size_t)count), *r = malloc(sizeof(int) * (size_t)count + sizeof(int));
  for (int d = 0; d < n; d++) {
    suite_step("Sendrecv ring shift by %d, %d ints", d, count);
    int to = (me + d) % n, from = (me - d + n) % n;
    for (int i = 0; i < count; i++)
      s[i] = value(me, i, d);
    memset(r, 0xee, sizeof(int) * (size_t)count + sizeof(int));
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(s, count, MPI_INT, to, d, r, count + 1, MPI_INT, from, d, MPI_COMM_WORLD, &st));
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == d && got == count, "status %d %d %d, expected %d %d %d",
          st.MPI_SOURCE, st.MPI_TAG, got, from, d, count);
    for (int i = 0; i < count; i++)
      if (r[i] != value(from, i, d)) {
        CHECK(0, "element %d: %d, expected %d", i, r[i], value(from, i, d));
        break;
      }
  }
  for (int d = 1; d < n; d++) {
    suite_step("Sendrecv_replace ring shift by %d, %d ints", d, count);
    int to = (me + d) % n, from = (me - d + n) % n;
    for (int i = 0; i < count; i++)
      s[i] = value(me, i, 50 + d);
    MPI_Status st;
    MPI_OK(MPI_Sendrecv_replace(s, count, MPI_INT, to, 50 + d, from, 50 + d, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 50 + d, "status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    for (int i = 0; i < count; i++)
      if (s[i] != value(from, i, 50 + d)) {
        CHECK(0, "element %d: %d, expected %d", i, s[i], value(from, i, 50 + d));
        break;
      }
  }
  free(s);
  free(r);
}

/* Non-periodic shift: rank 0 receives from MPI_PROC_NULL, the last rank sends to it. */
static void open_chain(void)
{
  int me = suite_rank, n = suite_size;
  int up = me + 1 < n ? me + 1 : MPI_PROC_NULL, down = me > 0 ? me - 1 : MPI_PROC_NULL;
  suite_step("Sendrecv non-periodic shift with MPI_PROC_NULL ends");
  int s[3] = {me, me * 2, me * 3}, r[3] = {-7, -7, -7};
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(s, 3, MPI_INT, up, 9, r, 3, MPI_INT, down, 9, MPI_COMM_WORLD, &st));
  if (down == MPI_PROC_NULL) {
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && got == 0, "from MPI_PROC_NULL: source %d count %d", st.MPI_SOURCE, got);
    CHECK(r[0] == -7 && r[1] == -7 && r[2] == -7, "receive buffer changed by a receive from MPI_PROC_NULL");
  } else {
    CHECK(st.MPI_SOURCE == down && r[0] == down && r[1] == 2 * down && r[2] == 3 * down, "from %d: %d %d %d", down,
          r[0], r[1], r[2]);
  }
  suite_step("Sendrecv_replace non-periodic shift with MPI_PROC_NULL ends");
  int x[2] = {me, -me};
  MPI_OK(MPI_Sendrecv_replace(x, 2, MPI_INT, up, 10, down, 10, MPI_COMM_WORLD, &st));
  if (down == MPI_PROC_NULL)
    CHECK(x[0] == me && x[1] == -me, "buffer changed by a receive from MPI_PROC_NULL: %d %d", x[0], x[1]);
  else
    CHECK(x[0] == down && x[1] == -down, "from %d: %d %d", down, x[0], x[1]);
  suite_step("Sendrecv with oneself");
  int y[2] = {me + 5, me + 6}, z[2] = {0, 0};
  MPI_OK(MPI_Sendrecv(y, 2, MPI_INT, me, 11, z, 2, MPI_INT, me, 11, MPI_COMM_WORLD, &st));
  CHECK(z[0] == me + 5 && z[1] == me + 6 && st.MPI_SOURCE == me, "self exchange: %d %d from %d", z[0], z[1],
        st.MPI_SOURCE);
  MPI_OK(MPI_Sendrecv_replace(y, 2, MPI_INT, me, 12, me, 12, MPI_COMM_WORLD, &st));
  CHECK(y[0] == me + 5 && y[1] == me + 6, "self Sendrecv_replace: %d %d", y[0], y[1]);
}

/* Derived types. A ROWS x COLS matrix of ints; column c is a vector (ROWS blocks of 1,
 * stride COLS); the "staircase" an indexed type (block i of length i+1 at row i); a struct
 * of {int, double, 3 chars} resized to a padded extent. */
#define ROWS 60
#define COLS 40
struct rec {
  int id;
  double w;
  char tag[3];
};

static void fill_matrix(int *m, int rank, int salt)
{
  for (int i = 0; i < ROWS * COLS; i++)
    m[i] = value(rank, i, salt);
}

static void derived(int big)
{
  int me = suite_rank, n = suite_size, right = (me + 1) % n, left = (me + n - 1) % n;
  int reps = big ? 40 : 1; /* big: the types repeated to above every eager threshold */
  MPI_Datatype column, column1, stair0, stair, rec_t, rec_padded;
  MPI_Type_vector(ROWS, 1, COLS, MPI_INT, &column);
  MPI_Type_commit(&column);
  /* one column with its extent shrunk to one int: COUNT of them are consecutive columns */
  MPI_Type_create_resized(column, 0, sizeof(int), &column1);
  MPI_Type_commit(&column1);
  int blens[ROWS], displs[ROWS], nstair = 0;
  for (int i = 0; i < ROWS; i++) {
    blens[i] = i % COLS + 1;
    displs[i] = i * COLS;
    nstair += blens[i];
  }
  MPI_Type_indexed(ROWS, blens, displs, MPI_INT, &stair0);
  MPI_Type_create_resized(stair0, 0, sizeof(int) * ROWS * COLS, &stair); /* copies one matrix apart */
  MPI_Type_commit(&stair);
  int rbl[3] = {1, 1, 3};
  MPI_Aint rdisp[3] = {offsetof(struct rec, id), offsetof(struct rec, w), offsetof(struct rec, tag)};
  MPI_Datatype rtypes[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(3, rbl, rdisp, rtypes, &rec_t);
  MPI_Type_create_resized(rec_t, 0, sizeof(struct rec), &rec_padded);
  MPI_Type_commit(&rec_padded);

  int *mat = malloc(sizeof(int) * ROWS * COLS * (size_t)reps), *out = malloc(sizeof(int) * ROWS * COLS * (size_t)reps);
  int ncols = big ? COLS : 3;

  /* columns out, contiguous in: the receiver gets the columns one after another */
  suite_step("Sendrecv %d columns (vector) -> contiguous ints", ncols);
  fill_matrix(mat, me, 1);
  memset(out, 0xee, sizeof(int) * ROWS * COLS);
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(mat, ncols, column1, right, 20, out, ncols * ROWS, MPI_INT, left, 20, MPI_COMM_WORLD, &st));
  int got = -1;
  MPI_Get_count(&st, MPI_INT, &got);
  CHECK(got == ncols * ROWS, "count %d ints, expected %d", got, ncols * ROWS);
  for (int c = 0, bad = 0; c < ncols && !bad; c++)
    for (int r = 0; r < ROWS && !bad; r++)
      if (out[c * ROWS + r] != value(left, r * COLS + c, 1)) {
        CHECK(0, "column %d row %d: %d, expected %d", c, r, out[c * ROWS + r], value(left, r * COLS + c, 1));
        bad = 1;
      }
  MPI_Get_count(&st, column1, &got);
  CHECK(got == ncols, "count in columns %d, expected %d", got, ncols);

  /* contiguous out, columns in: a transpose */
  suite_step("Sendrecv contiguous ints -> %d columns (vector)", ncols);
  for (int i = 0; i < ROWS * ncols; i++)
    out[i] = value(me, i, 2);
  memset(mat, 0xee, sizeof(int) * ROWS * COLS);
  MPI_OK(MPI_Sendrecv(out, ncols * ROWS, MPI_INT, right, 21, mat, ncols, column1, left, 21, MPI_COMM_WORLD, &st));
  for (int c = 0, bad = 0; c < ncols && !bad; c++)
    for (int r = 0; r < ROWS && !bad; r++)
      if (mat[r * COLS + c] != value(left, c * ROWS + r, 2)) {
        CHECK(0, "column %d row %d: %d, expected %d", c, r, mat[r * COLS + c], value(left, c * ROWS + r, 2));
        bad = 1;
      }
  if (ncols < COLS)
    CHECK(mat[ncols] == (int)0xeeeeeeee, "element outside the received columns overwritten");

  /* indexed both ways, REPS copies (extent of stair covers the whole matrix) */
  suite_step("Sendrecv %d indexed staircases", reps);
  for (int k = 0; k < reps; k++)
    fill_matrix(mat + k * ROWS * COLS, me, 3 + k);
  memset(out, 0xee, sizeof(int) * ROWS * COLS * (size_t)reps);
  MPI_OK(MPI_Sendrecv(mat, reps, stair, right, 22, out, reps, stair, left, 22, MPI_COMM_WORLD, &st));
  for (int k = 0, bad = 0; k < reps && !bad; k++)
    for (int i = 0; i < ROWS && !bad; i++)
      for (int j = 0; j < COLS && !bad; j++) {
        int idx = k * ROWS * COLS + i * COLS + j;
        int expect = j < blens[i] ? value(left, i * COLS + j, 3 + k) : (int)0xeeeeeeee;
        if (out[idx] != expect) {
          CHECK(0, "copy %d row %d col %d: %d, expected %d", k, i, j, out[idx], expect);
          bad = 1;
        }
      }
  MPI_Get_count(&st, MPI_INT, &got);
  CHECK(got == reps * nstair, "count %d ints, expected %d", got, reps * nstair);

  /* Sendrecv_replace on the staircase: the holes stay as they were */
  suite_step("Sendrecv_replace %d indexed staircases", reps);
  for (int k = 0; k < reps; k++)
    fill_matrix(mat + k * ROWS * COLS, me, 40 + k);
  MPI_OK(MPI_Sendrecv_replace(mat, reps, stair, right, 23, left, 23, MPI_COMM_WORLD, &st));
  for (int k = 0, bad = 0; k < reps && !bad; k++)
    for (int i = 0; i < ROWS && !bad; i++)
      for (int j = 0; j < COLS && !bad; j++) {
        int idx = k * ROWS * COLS + i * COLS + j;
        int expect = value(j < blens[i] ? left : me, i * COLS + j, 40 + k);
        if (mat[idx] != expect) {
          CHECK(0, "copy %d row %d col %d: %d, expected %d", k, i, j, mat[idx], expect);
          bad = 1;
        }
      }

  /* Sendrecv_replace on columns: the other columns stay as they were */
  suite_step("Sendrecv_replace %d columns (vector)", ncols);
  fill_matrix(mat, me, 45);
  MPI_OK(MPI_Sendrecv_replace(mat, ncols, column1, right, 26, left, 26, MPI_COMM_WORLD, &st));
  for (int i = 0, bad = 0; i < ROWS * COLS && !bad; i++)
    if (mat[i] != value(i % COLS < ncols ? left : me, i, 45)) {
      CHECK(0, "row %d col %d: %d, expected %d", i / COLS, i % COLS, mat[i], value(i % COLS < ncols ? left : me, i, 45));
      bad = 1;
    }

  /* struct records, padded extent, both directions at once through Sendrecv_replace. Kept
   * at 300 records (4500 bytes of data): MPICH 4.0 (Debian 12) reports "Message truncated"
   * in Sendrecv_replace of this type from about 640 records on. The large struct transfer is
   * the Sendrecv below. */
  int nrec = big ? 300 : 5;
  struct rec *recs = calloc((size_t)(big ? 4000 : 5), sizeof *recs);
  suite_step("Sendrecv_replace %d struct records", nrec);
  for (int i = 0; i < nrec; i++) {
    recs[i].id = value(me, i, 5);
    recs[i].w = me + i / 8.0;
    recs[i].tag[0] = (char)('a' + me);
    recs[i].tag[1] = (char)('0' + i % 10);
    recs[i].tag[2] = 'z';
  }
  MPI_OK(MPI_Sendrecv_replace(recs, nrec, rec_padded, right, 24, left, 24, MPI_COMM_WORLD, &st));
  MPI_Get_count(&st, rec_padded, &got);
  CHECK(got == nrec, "count %d records, expected %d", got, nrec);
  for (int i = 0; i < nrec; i++)
    if (recs[i].id != value(left, i, 5) || recs[i].w != left + i / 8.0 || recs[i].tag[0] != (char)('a' + left) ||
        recs[i].tag[1] != (char)('0' + i % 10) || recs[i].tag[2] != 'z') {
      CHECK(0, "record %d: id %d w %g tag %.3s", i, recs[i].id, recs[i].w, recs[i].tag);
      break;
    }
  /* struct records out, the same signature as separate basic types in (int, double, 3 chars) */
  nrec = big ? 4000 : 5;
  suite_step("Sendrecv %d struct records -> ints, doubles and chars in three arrays", nrec);
  for (int i = 0; i < nrec; i++) {
    recs[i].id = value(me, i, 6);
    recs[i].w = me + i / 8.0;
    recs[i].tag[0] = (char)('a' + me);
    recs[i].tag[1] = (char)('0' + i % 10);
    recs[i].tag[2] = 'z';
  }
  int *ids = malloc(sizeof(int) * (size_t)nrec);
  double *ws = malloc(sizeof(double) * (size_t)nrec);
  char *tags = malloc(3 * (size_t)nrec);
  /* the receive type: for each record, one int from IDS, one double from WS, 3 chars from TAGS,
   * written as an hindexed struct over the three arrays (absolute addresses, MPI_BOTTOM) */
  int *bl = malloc(sizeof(int) * 3 * (size_t)nrec);
  MPI_Aint *dp = malloc(sizeof(MPI_Aint) * 3 * (size_t)nrec);
  MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * 3 * (size_t)nrec), scattered;
  for (int i = 0; i < nrec; i++) {
    MPI_Get_address(&ids[i], &dp[3 * i]);
    MPI_Get_address(&ws[i], &dp[3 * i + 1]);
    MPI_Get_address(&tags[3 * i], &dp[3 * i + 2]);
    bl[3 * i] = 1, bl[3 * i + 1] = 1, bl[3 * i + 2] = 3;
    ty[3 * i] = MPI_INT, ty[3 * i + 1] = MPI_DOUBLE, ty[3 * i + 2] = MPI_CHAR;
  }
  MPI_Type_create_struct(3 * nrec, bl, dp, ty, &scattered);
  MPI_Type_commit(&scattered);
  MPI_OK(MPI_Sendrecv(recs, nrec, rec_padded, right, 25, MPI_BOTTOM, 1, scattered, left, 25, MPI_COMM_WORLD, &st));
  for (int i = 0; i < nrec; i++)
    if (ids[i] != value(left, i, 6) || ws[i] != left + i / 8.0 || tags[3 * i] != (char)('a' + left) ||
        tags[3 * i + 2] != 'z') {
      CHECK(0, "record %d: id %d w %g tag %.3s", i, ids[i], ws[i], tags + 3 * i);
      break;
    }
  MPI_Type_free(&scattered);
  free(bl);
  free(dp);
  free(ty);
  free(ids);
  free(ws);
  free(tags);
  free(recs);
  free(mat);
  free(out);
  MPI_Type_free(&column);
  MPI_Type_free(&column1);
  MPI_Type_free(&stair0);
  MPI_Type_free(&stair);
  MPI_Type_free(&rec_t);
  MPI_Type_free(&rec_padded);
}

/* Null buffers holding no data (a type of no size, a count of 1): valid MPI, as a message of no
 * bytes, by MPI_Sendrecv and by MPI_Isend/MPI_Irecv. */
static void no_data(void)
{
  int me = suite_rank, n = suite_size, right = (me + 1) % n, left = (me + n - 1) % n;
  suite_step("null buffers of a type of no size");
  MPI_Datatype none;
  MPI_Type_contiguous(0, MPI_INT, &none);
  MPI_Type_commit(&none);
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(NULL, 1, none, right, 40, NULL, 1, none, left, 40, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == left, "source %d, expected %d", st.MPI_SOURCE, left);
  MPI_Request r[2];
  MPI_OK(MPI_Irecv(NULL, 1, none, left, 41, MPI_COMM_WORLD, &r[0]));
  MPI_OK(MPI_Isend(NULL, 1, none, right, 41, MPI_COMM_WORLD, &r[1]));
  MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  MPI_Type_free(&none);
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(2))
    return suite_finish();
  ring_shifts(3);
  ring_shifts(30000); /* 120 kB */
  open_chain();
  derived(0);
  derived(1);
  no_data();
  return suite_finish();
}
