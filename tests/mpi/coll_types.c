/* Collectives with derived datatypes, MPI_IN_PLACE wherever the standard allows it, and
 * user-defined operations: a NON-commutative one (the product of 2x2 integer matrices modulo
 * a prime, which must come out in rank order) in Reduce, Allreduce, Scan, Exscan and
 * Reduce_scatter_block, checked against the serial product; a commutative one in Allreduce.
 * Everything runs on MPI_COMM_WORLD and on a split with the ranks reversed, where rank order
 * differs from world order. */
#include "suite.h"

/* ---- 2x2 matrices modulo a prime, as 4 ints (row major) ---- */
#define PRIME 65521
typedef struct {
  int a[4];
} mat;

static mat mul(mat x, mat y) /* x * y */
{
  mat z;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      long long s = 0;
      for (int k = 0; k < 2; k++)
        s += (long long)x.a[2 * i + k] * y.a[2 * k + j];
      z.a[2 * i + j] = (int)(s % PRIME);
    }
  return z;
}

static const mat unit = {{1, 0, 0, 1}};

/* Element J of rank R's operand (in a communicator whose world ranks are W): lower and upper
 * shears and a general matrix, so that no two neighbours commute. */
static mat operand(int w, int r, int j)
{
  int t = (w * 7 + r * 3 + j) % 3, v = (w * 131 + r * 17 + j * 5) % 97 + 1;
  mat m = t == 0 ? (mat){{1, v, 0, 1}} : t == 1 ? (mat){{1, 0, v, 1}} : (mat){{v, 1, v + 1, 2}};
  return m;
}

static int mat_eq(mat x, mat y) { return !memcmp(&x, &y, sizeof x); }

static MPI_Datatype mat_t;

/* inout = in * inout: MPI hands the earlier rank's partial result as IN */
static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  if (*dt != mat_t) {
    printf("matmul_op called with a datatype that is not the matrix type\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  mat *x = in, *y = inout;
  for (int i = 0; i < *len; i++)
    y[i] = mul(x[i], y[i]);
}

/* a commutative user op: elementwise sum modulo the prime, on the same type */
static void matsum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  (void)dt;
  mat *x = in, *y = inout;
  for (int i = 0; i < *len; i++)
    for (int k = 0; k < 4; k++)
      y[i].a[k] = (x[i].a[k] + y[i].a[k]) % PRIME;
}

struct ctx {
  MPI_Comm c;
  const char *name;
  int p, me, *w;
};

/* Product of elements J of ranks FROM..TO-1 in rank order. */
static mat product(const struct ctx *x, int from, int to, int j)
{
  mat m = unit;
  for (int r = from; r < to; r++)
    m = mul(m, operand(x->w[r], r, j));
  return m;
}

static void check_mats(const struct ctx *x, const char *what, const mat *got, int from, int to, int j0, int n)
{
  for (int j = 0; j < n; j++) {
    mat e = product(x, from, to, j0 + j);
    if (!mat_eq(got[j], e)) {
      CHECK(0, "%s on %s: element %d is [%d %d; %d %d], expected [%d %d; %d %d] (product of ranks %d..%d)", what,
            x->name, j, got[j].a[0], got[j].a[1], got[j].a[2], got[j].a[3], e.a[0], e.a[1], e.a[2], e.a[3], from,
            to - 1);
      return;
    }
  }
}

static void noncommutative(const struct ctx *x, MPI_Op op)
{
  int p = x->p, me = x->me;
  for (int big = 0; big < 2; big++) {
    int n = big ? 2000 : 3; /* 2000 matrices: 32 kB, above the eager thresholds */
    mat *in = malloc(sizeof(mat) * (size_t)n * (size_t)p), *out = malloc(sizeof(mat) * (size_t)n * (size_t)p);
    for (int j = 0; j < n * p; j++)
      in[j] = operand(x->w[me], me, j);
    for (int root = 0; root < p; root += (p > 2 ? p / 2 : 1)) {
      suite_step("non-commutative Reduce of %d matrices to root %d on %s", n, root, x->name);
      memset(out, 0, sizeof(mat) * (size_t)n);
      MPI_OK(MPI_Reduce(in, out, n, mat_t, op, root, x->c));
      if (me == root)
        check_mats(x, "Reduce", out, 0, p, 0, n);
      suite_step("non-commutative Reduce, MPI_IN_PLACE at root %d, on %s", root, x->name);
      if (me == root)
        memcpy(out, in, sizeof(mat) * (size_t)n);
      MPI_OK(MPI_Reduce(me == root ? MPI_IN_PLACE : in, me == root ? out : NULL, n, mat_t, op, root, x->c));
      if (me == root)
        check_mats(x, "Reduce (in place)", out, 0, p, 0, n);
    }
    suite_step("non-commutative Allreduce of %d matrices on %s", n, x->name);
    MPI_OK(MPI_Allreduce(in, out, n, mat_t, op, x->c));
    check_mats(x, "Allreduce", out, 0, p, 0, n);
    memcpy(out, in, sizeof(mat) * (size_t)n);
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, out, n, mat_t, op, x->c));
    check_mats(x, "Allreduce (in place)", out, 0, p, 0, n);
    suite_step("non-commutative Scan of %d matrices on %s", n, x->name);
    MPI_OK(MPI_Scan(in, out, n, mat_t, op, x->c));
    check_mats(x, "Scan", out, 0, me + 1, 0, n);
    memcpy(out, in, sizeof(mat) * (size_t)n);
    MPI_OK(MPI_Scan(MPI_IN_PLACE, out, n, mat_t, op, x->c));
    check_mats(x, "Scan (in place)", out, 0, me + 1, 0, n);
    suite_step("non-commutative Exscan of %d matrices on %s", n, x->name);
    MPI_OK(MPI_Exscan(in, out, n, mat_t, op, x->c));
    if (me > 0)
      check_mats(x, "Exscan", out, 0, me, 0, n);
    memcpy(out, in, sizeof(mat) * (size_t)n);
    MPI_OK(MPI_Exscan(MPI_IN_PLACE, out, n, mat_t, op, x->c));
    if (me > 0)
      check_mats(x, "Exscan (in place)", out, 0, me, 0, n);
    suite_step("non-commutative Reduce_scatter_block of %d matrices each on %s", n, x->name);
    MPI_OK(MPI_Reduce_scatter_block(in, out, n, mat_t, op, x->c));
    check_mats(x, "Reduce_scatter_block", out, 0, p, me * n, n);
    memcpy(out, in, sizeof(mat) * (size_t)n * (size_t)p);
    MPI_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, out, n, mat_t, op, x->c));
    check_mats(x, "Reduce_scatter_block (in place)", out, 0, p, me * n, n);
    free(in);
    free(out);
  }
}

static void commutative_user(const struct ctx *x, MPI_Op op)
{
  suite_step("commutative user op Allreduce on %s", x->name);
  mat in[5], out[5];
  for (int j = 0; j < 5; j++)
    in[j] = operand(x->w[x->me], x->me, j);
  MPI_OK(MPI_Allreduce(in, out, 5, mat_t, op, x->c));
  for (int j = 0; j < 5; j++) {
    mat e = {{0, 0, 0, 0}};
    for (int r = 0; r < x->p; r++)
      for (int k = 0; k < 4; k++)
        e.a[k] = (e.a[k] + operand(x->w[r], r, j).a[k]) % PRIME;
    if (!mat_eq(out[j], e)) {
      CHECK(0, "commutative user op: element %d differs", j);
      break;
    }
  }
}

/* ---- derived datatypes ---- */
#define ROWS 50
static MPI_Datatype pair_t, col_t;
static int col_stride;

static void pairsum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  if (*dt != pair_t) {
    printf("pairsum_op called with another datatype\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int i = 0; i < 2 * *len; i++)
    ((int *)inout)[i] += ((int *)in)[i];
}

/* elementwise max over LEN columns of ROWS ints, COL_STRIDE apart (the vector's layout) */
static void colmax_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  if (*dt != col_t || *len != 1) {
    printf("colmax_op called with another datatype or count %d\n", *len);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int *x = in, *y = inout;
  for (int i = 0; i < ROWS; i++)
    if (x[i * col_stride] > y[i * col_stride])
      y[i * col_stride] = x[i * col_stride];
}
static int v(const struct ctx *x, int r, int i) { return x->w[r] * 100000 + r * 1000 + i; }

static void derived(const struct ctx *x)
{
  int p = x->p, me = x->me, cols = p;
  int *m = malloc(sizeof(int) * ROWS * (size_t)cols), *row = malloc(sizeof(int) * ROWS * (size_t)cols);
  MPI_Datatype col, col1, pair;
  MPI_Type_vector(ROWS, 1, cols, MPI_INT, &col); /* a column of a ROWS x p matrix */
  MPI_Type_commit(&col);
  MPI_Type_create_resized(col, 0, sizeof(int), &col1); /* consecutive columns */
  MPI_Type_commit(&col1);
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);

  /* Bcast of one column (vector type); the other columns stay */
  int root = p - 1, c = me % cols;
  suite_step("Bcast of a column (vector type) on %s", x->name);
  for (int i = 0; i < ROWS * cols; i++)
    m[i] = me == root ? v(x, root, i) : -1;
  MPI_OK(MPI_Bcast(m + (p > 1 ? 1 : 0), 1, col, root, x->c));
  for (int i = 0; i < ROWS * cols; i++) {
    int in_col = i % cols == (p > 1 ? 1 : 0);
    int e = me == root || in_col ? v(x, root, i) : -1;
    if (m[i] != e) {
      CHECK(0, "Bcast column: element %d is %d, expected %d", i, m[i], e);
      break;
    }
  }
  (void)c;

  /* Gather rows as columns: a transpose at the root */
  root = 0;
  suite_step("Gather contiguous rows into columns (resized vector) on %s", x->name);
  for (int i = 0; i < ROWS; i++)
    row[i] = v(x, me, i);
  for (int i = 0; i < ROWS * cols; i++)
    m[i] = -1;
  MPI_OK(MPI_Gather(row, ROWS, MPI_INT, m, 1, col1, root, x->c));
  if (me == root)
    for (int i = 0, bad = 0; i < ROWS && !bad; i++)
      for (int r = 0; r < p && !bad; r++)
        if (m[i * cols + r] != v(x, r, i)) {
          CHECK(0, "Gather into columns: row %d col %d is %d, expected %d", i, r, m[i * cols + r], v(x, r, i));
          bad = 1;
        }

  /* Allgather the same way, and with MPI_IN_PLACE (own column already in place) */
  for (int inplace = 0; inplace < 2; inplace++) {
    suite_step("Allgather contiguous -> columns%s on %s", inplace ? " (in place)" : "", x->name);
    for (int i = 0; i < ROWS * cols; i++)
      m[i] = -1;
    if (inplace)
      for (int i = 0; i < ROWS; i++)
        m[i * cols + me] = v(x, me, i);
    if (inplace) /* in place, the send side is the receive type at my position */
      MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m, 1, col1, x->c));
    else
      MPI_OK(MPI_Allgather(row, ROWS, MPI_INT, m, 1, col1, x->c));
    for (int i = 0, bad = 0; i < ROWS && !bad; i++)
      for (int r = 0; r < p && !bad; r++)
        if (m[i * cols + r] != v(x, r, i)) {
          CHECK(0, "Allgather into columns: row %d col %d is %d, expected %d", i, r, m[i * cols + r], v(x, r, i));
          bad = 1;
        }
  }

  /* Alltoall: send column j of my matrix (vector) to rank j, receive contiguous rows */
  suite_step("Alltoall of columns (vector) -> contiguous on %s", x->name);
  for (int i = 0; i < ROWS * cols; i++)
    m[i] = v(x, me, i);
  MPI_OK(MPI_Alltoall(m, 1, col1, row, ROWS, MPI_INT, x->c));
  for (int r = 0, bad = 0; r < p && !bad; r++)
    for (int i = 0; i < ROWS && !bad; i++)
      if (row[r * ROWS + i] != v(x, r, i * cols + me)) {
        CHECK(0, "Alltoall columns: from %d element %d is %d, expected %d", r, i, row[r * ROWS + i],
              v(x, r, i * cols + me));
        bad = 1;
      }

  /* Scatter of pairs received as two ints; Scatterv in place at the root */
  root = p / 2;
  suite_step("Scatter of pairs (contiguous type) on %s", x->name);
  for (int i = 0; i < 2 * p * 3; i++)
    m[i] = v(x, root, i);
  int got[6] = {-1, -1, -1, -1, -1, -1};
  MPI_OK(MPI_Scatter(m, 3, pair, got, 6, MPI_INT, root, x->c));
  for (int i = 0; i < 6; i++)
    if (got[i] != v(x, root, 6 * me + i)) {
      CHECK(0, "Scatter pairs: element %d is %d, expected %d", i, got[i], v(x, root, 6 * me + i));
      break;
    }

  /* User ops on derived types (predefined ops take basic types only): a commutative sum on
   * pairs in Allreduce, a max on a whole non-contiguous column in Reduce */
  suite_step("Allreduce of pairs with a user sum, Reduce of a column with a user max, on %s", x->name);
  MPI_Op pairsum, colmax;
  MPI_Op_create(pairsum_op, 1, &pairsum);
  MPI_Op_create(colmax_op, 1, &colmax);
  pair_t = pair;
  col_t = col;
  col_stride = cols;
  int pin[8], pout[8];
  for (int i = 0; i < 8; i++)
    pin[i] = v(x, me, i) % 1000 + me;
  MPI_OK(MPI_Allreduce(pin, pout, 4, pair, pairsum, x->c));
  for (int i = 0; i < 8; i++) {
    int e = 0;
    for (int r = 0; r < p; r++)
      e += v(x, r, i) % 1000 + r;
    if (pout[i] != e) {
      CHECK(0, "Allreduce SUM pairs: element %d is %d, expected %d", i, pout[i], e);
      break;
    }
  }
  for (int i = 0; i < ROWS * cols; i++)
    m[i] = v(x, me, i) * (me % 2 ? -1 : 1);
  int *res = malloc(sizeof(int) * ROWS * (size_t)cols);
  for (int i = 0; i < ROWS * cols; i++)
    res[i] = -7;
  MPI_OK(MPI_Reduce(m, res, 1, col, colmax, 0, x->c));
  if (me == 0)
    for (int i = 0; i < ROWS * cols; i++) {
      int e = -7;
      if (i % cols == 0) {
        e = v(x, 0, i);
        for (int r = 1; r < p; r++) {
          int t = v(x, r, i) * (r % 2 ? -1 : 1);
          e = t > e ? t : e;
        }
      }
      if (res[i] != e) {
        CHECK(0, "Reduce MAX column: element %d is %d, expected %d", i, res[i], e);
        break;
      }
    }
  MPI_Op_free(&pairsum);
  MPI_Op_free(&colmax);
  free(res);
  free(m);
  free(row);
  MPI_Type_free(&col);
  MPI_Type_free(&col1);
  MPI_Type_free(&pair);
}

/* ---- MPI_IN_PLACE in every collective that allows it, plain ints ---- */
static void in_place(const struct ctx *x)
{
  int p = x->p, me = x->me, n = 4 * p * p + 16;
  int *b = malloc(sizeof(int) * (size_t)n), *cnt = malloc(sizeof(int) * (size_t)p), *dsp = malloc(sizeof(int) * (size_t)p);
  int *bd = malloc(sizeof(int) * (size_t)p);
  MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)p);
  int root = p - 1;

  suite_step("Reduce SUM in place on %s", x->name);
  for (int i = 0; i < 3; i++)
    b[i] = v(x, me, i);
  MPI_OK(MPI_Reduce(me == root ? MPI_IN_PLACE : b, me == root ? b : NULL, 3, MPI_INT, MPI_SUM, root, x->c));
  if (me == root)
    for (int i = 0; i < 3; i++) {
      int e = 0;
      for (int r = 0; r < p; r++)
        e += v(x, r, i);
      CHECK(b[i] == e, "element %d is %d, expected %d", i, b[i], e);
    }

  suite_step("Allreduce MAX in place on %s", x->name);
  for (int i = 0; i < 3; i++)
    b[i] = v(x, me, i);
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, b, 3, MPI_INT, MPI_MAX, x->c));
  for (int i = 0; i < 3; i++) {
    int e = v(x, 0, i);
    for (int r = 1; r < p; r++)
      e = v(x, r, i) > e ? v(x, r, i) : e;
    CHECK(b[i] == e, "element %d is %d, expected %d", i, b[i], e);
  }

  suite_step("Gather in place at the root on %s", x->name);
  for (int i = 0; i < 2 * p; i++)
    b[i] = me == root ? (i / 2 == root ? v(x, root, i % 2) : -1) : -1;
  int mine[2] = {v(x, me, 0), v(x, me, 1)};
  MPI_OK(MPI_Gather(me == root ? MPI_IN_PLACE : mine, 2, MPI_INT, b, 2, MPI_INT, root, x->c));
  if (me == root)
    for (int i = 0; i < 2 * p; i++)
      if (b[i] != v(x, i / 2, i % 2)) {
        CHECK(0, "element %d is %d, expected %d", i, b[i], v(x, i / 2, i % 2));
        break;
      }

  suite_step("Gatherv in place at the root on %s", x->name);
  int tot = 0;
  for (int r = 0; r < p; r++)
    cnt[r] = r % 3 + 1, dsp[r] = tot, tot += cnt[r] + 1;
  for (int i = 0; i < tot; i++)
    b[i] = -1;
  if (me == root)
    for (int i = 0; i < cnt[root]; i++)
      b[dsp[root] + i] = v(x, root, 10 + i);
  int part[3];
  for (int i = 0; i < cnt[me]; i++)
    part[i] = v(x, me, 10 + i);
  MPI_OK(MPI_Gatherv(me == root ? MPI_IN_PLACE : part, cnt[me], MPI_INT, b, cnt, dsp, MPI_INT, root, x->c));
  if (me == root)
    for (int r = 0, bad = 0; r < p && !bad; r++)
      for (int i = 0; i < cnt[r] + 1 && !bad; i++) {
        int e = i < cnt[r] ? v(x, r, 10 + i) : -1;
        if (b[dsp[r] + i] != e) {
          CHECK(0, "block %d element %d is %d, expected %d", r, i, b[dsp[r] + i], e);
          bad = 1;
        }
      }

  suite_step("Scatter in place at the root on %s", x->name);
  for (int i = 0; i < 2 * p; i++)
    b[i] = me == root ? v(x, root, 20 + i) : -1;
  int two[2] = {-1, -1};
  MPI_OK(MPI_Scatter(b, 2, MPI_INT, me == root ? MPI_IN_PLACE : two, 2, MPI_INT, root, x->c));
  if (me == root) {
    for (int i = 0; i < 2 * p; i++)
      CHECK(b[i] == v(x, root, 20 + i), "the root's buffer changed at %d", i);
  } else {
    CHECK(two[0] == v(x, root, 20 + 2 * me) && two[1] == v(x, root, 21 + 2 * me), "got %d %d", two[0], two[1]);
  }

  suite_step("Scatterv in place at the root on %s", x->name);
  tot = 0;
  for (int r = p - 1; r >= 0; r--)
    cnt[r] = r % 3 + 1, dsp[r] = tot, tot += cnt[r];
  for (int i = 0; i < tot; i++)
    b[i] = me == root ? v(x, root, 30 + i) : -1;
  int three[3] = {-1, -1, -1};
  MPI_OK(MPI_Scatterv(b, cnt, dsp, MPI_INT, me == root ? MPI_IN_PLACE : three, cnt[me], MPI_INT, root, x->c));
  if (me != root)
    for (int i = 0; i < cnt[me]; i++)
      CHECK(three[i] == v(x, root, 30 + dsp[me] + i), "element %d is %d, expected %d", i, three[i],
            v(x, root, 30 + dsp[me] + i));

  suite_step("Allgather in place on %s", x->name);
  for (int i = 0; i < 2 * p; i++)
    b[i] = i / 2 == me ? v(x, me, 40 + i % 2) : -1;
  MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, x->c));
  for (int i = 0; i < 2 * p; i++)
    if (b[i] != v(x, i / 2, 40 + i % 2)) {
      CHECK(0, "element %d is %d, expected %d", i, b[i], v(x, i / 2, 40 + i % 2));
      break;
    }

  suite_step("Allgatherv in place on %s", x->name);
  tot = 0;
  for (int r = 0; r < p; r++)
    cnt[r] = (r + 1) % 3 + 1, dsp[r] = tot, tot += cnt[r] + 1;
  for (int i = 0; i < tot; i++)
    b[i] = -1;
  for (int i = 0; i < cnt[me]; i++)
    b[dsp[me] + i] = v(x, me, 50 + i);
  MPI_OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, cnt, dsp, MPI_INT, x->c));
  for (int r = 0, bad = 0; r < p && !bad; r++)
    for (int i = 0; i < cnt[r] + 1 && !bad; i++) {
      int e = i < cnt[r] ? v(x, r, 50 + i) : -1;
      if (b[dsp[r] + i] != e) {
        CHECK(0, "block %d element %d is %d, expected %d", r, i, b[dsp[r] + i], e);
        bad = 1;
      }
    }

  suite_step("Alltoall in place on %s", x->name);
  for (int j = 0; j < p; j++)
    b[2 * j] = v(x, me, 60 + 2 * j), b[2 * j + 1] = v(x, me, 61 + 2 * j);
  MPI_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, x->c));
  for (int j = 0; j < p; j++)
    if (b[2 * j] != v(x, j, 60 + 2 * me) || b[2 * j + 1] != v(x, j, 61 + 2 * me)) {
      CHECK(0, "block from %d is %d %d, expected %d %d", j, b[2 * j], b[2 * j + 1], v(x, j, 60 + 2 * me),
            v(x, j, 61 + 2 * me));
      break;
    }

  /* in place, the exchange between s and d must be symmetric: (s + d) % 3 + 1 ints */
  suite_step("Alltoallv in place on %s", x->name);
  tot = 0;
  for (int j = p - 1; j >= 0; j--)
    cnt[j] = (me + j) % 3 + 1, dsp[j] = tot, tot += cnt[j];
  for (int j = 0; j < p; j++)
    for (int i = 0; i < cnt[j]; i++)
      b[dsp[j] + i] = v(x, me, 70 + 10 * j + i);
  MPI_OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, cnt, dsp, MPI_INT, x->c));
  for (int j = 0, bad = 0; j < p && !bad; j++)
    for (int i = 0; i < cnt[j] && !bad; i++)
      if (b[dsp[j] + i] != v(x, j, 70 + 10 * me + i)) {
        CHECK(0, "block from %d element %d is %d, expected %d", j, i, b[dsp[j] + i], v(x, j, 70 + 10 * me + i));
        bad = 1;
      }

  suite_step("Alltoallw in place on %s", x->name);
  for (int j = 0; j < p; j++) {
    cnt[j] = (me + j) % 2 + 1;
    bd[j] = (int)sizeof(int) * 3 * (p - 1 - j);
    ty[j] = MPI_INT;
    for (int i = 0; i < cnt[j]; i++)
      b[3 * (p - 1 - j) + i] = v(x, me, 200 + 10 * j + i);
  }
  MPI_OK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, b, cnt, bd, ty, x->c));
  for (int j = 0, bad = 0; j < p && !bad; j++)
    for (int i = 0; i < cnt[j] && !bad; i++)
      if (b[3 * (p - 1 - j) + i] != v(x, j, 200 + 10 * me + i)) {
        CHECK(0, "block from %d element %d is %d, expected %d", j, i, b[3 * (p - 1 - j) + i], v(x, j, 200 + 10 * me + i));
        bad = 1;
      }

  suite_step("Reduce_scatter in place on %s", x->name);
  tot = 0;
  for (int r = 0; r < p; r++)
    cnt[r] = r % 2 + 1, dsp[r] = tot, tot += cnt[r];
  for (int i = 0; i < tot; i++)
    b[i] = v(x, me, 300 + i);
  MPI_OK(MPI_Reduce_scatter(MPI_IN_PLACE, b, cnt, MPI_INT, MPI_SUM, x->c));
  for (int i = 0; i < cnt[me]; i++) {
    int e = 0;
    for (int r = 0; r < p; r++)
      e += v(x, r, 300 + dsp[me] + i);
    CHECK(b[i] == e, "element %d is %d, expected %d", i, b[i], e);
  }

  suite_step("Reduce_scatter_block in place on %s", x->name);
  for (int i = 0; i < 2 * p; i++)
    b[i] = v(x, me, 400 + i);
  MPI_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 2, MPI_INT, MPI_SUM, x->c));
  for (int i = 0; i < 2; i++) {
    int e = 0;
    for (int r = 0; r < p; r++)
      e += v(x, r, 400 + 2 * me + i);
    CHECK(b[i] == e, "element %d is %d, expected %d", i, b[i], e);
  }

  suite_step("Scan and Exscan in place on %s", x->name);
  b[0] = v(x, me, 500);
  MPI_OK(MPI_Scan(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, x->c));
  int e = 0;
  for (int r = 0; r <= me; r++)
    e += v(x, r, 500);
  CHECK(b[0] == e, "Scan: %d, expected %d", b[0], e);
  b[0] = v(x, me, 500);
  MPI_OK(MPI_Exscan(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, x->c));
  if (me > 0)
    CHECK(b[0] == e - v(x, me, 500), "Exscan: %d, expected %d", b[0], e - v(x, me, 500));

  free(b);
  free(cnt);
  free(dsp);
  free(bd);
  free(ty);
}

static void run_all(struct ctx *x, MPI_Op nc, MPI_Op cu)
{
  MPI_Comm_size(x->c, &x->p);
  MPI_Comm_rank(x->c, &x->me);
  x->w = malloc(sizeof(int) * (size_t)x->p);
  for (int r = 0; r < x->p; r++)
    x->w[r] = suite_world_rank(x->c, r);
  noncommutative(x, nc);
  commutative_user(x, cu);
  derived(x);
  in_place(x);
  free(x->w);
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  MPI_Type_contiguous(4, MPI_INT, &mat_t);
  MPI_Type_commit(&mat_t);
  MPI_Op nc, cu;
  MPI_Op_create(matmul_op, 0, &nc);
  MPI_Op_create(matsum_op, 1, &cu);
  int commute = -1;
  suite_step("MPI_Op_commutative");
  MPI_OK(MPI_Op_commutative(nc, &commute));
  CHECK(commute == 0, "the matrix product op says commutative %d", commute);
  MPI_OK(MPI_Op_commutative(cu, &commute));
  CHECK(commute == 1, "the matrix sum op says commutative %d", commute);

  struct ctx world = {MPI_COMM_WORLD, "MPI_COMM_WORLD", 0, 0, NULL};
  run_all(&world, nc, cu);
  struct ctx rev = {MPI_COMM_NULL, "a split with reversed ranks", 0, 0, NULL};
  MPI_Comm_split(MPI_COMM_WORLD, 0, suite_size - suite_rank, &rev.c);
  run_all(&rev, nc, cu);
  MPI_Comm_free(&rev.c);

  MPI_Op_free(&nc);
  MPI_Op_free(&cu);
  MPI_Type_free(&mat_t);
  return suite_finish();
}
