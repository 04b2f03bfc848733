/* One collective, named on the command line, run once on MPI_COMM_WORLD with its result
 * checked, and nothing else that sends a message (the verdict goes through PMPI_Allreduce, not
 * seen by the layer): test_coll compares the run's mpi.messages counter with the number of
 * messages the layer's algorithm sends. Names: the collective in lower case (barrier, bcast,
 * reduce, allreduce, reduce_scatter, reduce_scatter_block, scan, exscan, gather, gatherv,
 * scatter, scatterv, allgather, allgatherv, alltoall, alltoallv, alltoallw), "i" in front for
 * the non-blocking form, "_nc" after reduce/allreduce/scan for a non-commutative op (reduce_nc
 * goes to the last rank), "_inplace" after allreduce/allgather/alltoall/gather/scatter for
 * MPI_IN_PLACE, "_vector" after reduce/allreduce/bcast for a strided derived datatype. */
#include <stdlib.h>
#include <string.h>

#include "coll_check.h"

static int n, r;

/* (a, b) op (c, d) = (a, d): associative, not commutative; a reduction of the pairs (r, r) over
 * ranks 0..k gives (0, k) only when the ranks are combined in order. inout = in op inout. */
static void first_of(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  (void)dt;
  int *x = in, *y = inout;
  for (int i = 0; i < *len; i++)
    y[2 * i] = x[2 * i];
}

static int is(const char *name, const char *want) { return strcmp(name, want) == 0; }

static void run(const char *name, int nb)
{
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Request *req = nb ? &q : NULL;
  int a[64], b[64], cnt[64], dsp[64];
  MPI_Datatype ty[64];
  for (int i = 0; i < 64; i++) {
    a[i] = 100 * r + i;
    b[i] = -1;
    ty[i] = MPI_INT;
  }
#define CALL(blocking, nonblocking) ((void)(nb ? (nonblocking) : (blocking)))
  if (is(name, "barrier")) {
    CALL(MPI_Barrier(MPI_COMM_WORLD), MPI_Ibarrier(MPI_COMM_WORLD, req));
  } else if (is(name, "bcast") || is(name, "bcast_vector")) {
    MPI_Datatype t = MPI_INT;
    int count = 8;
    if (is(name, "bcast_vector")) { /* ints 0, 2, 4, 6 of every 8 */
      MPI_Datatype v;
      MPI_Type_vector(4, 1, 2, MPI_INT, &v);
      MPI_Type_create_resized(v, 0, 8 * sizeof(int), &t);
      MPI_Type_commit(&t);
      MPI_Type_free(&v);
      count = 2;
    }
    if (r != 1)
      memset(a, 0xff, sizeof a);
    CALL(MPI_Bcast(a, count, t, 1, MPI_COMM_WORLD), MPI_Ibcast(a, count, t, 1, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < (t == MPI_INT ? 8 : 16); i++)
      if (t == MPI_INT || i % 2 == 0)
        CHECK(a[i] == 100 + i, "bcast [%d] = %d", i, a[i]);
    if (t != MPI_INT)
      MPI_Type_free(&t);
  } else if (is(name, "reduce") || is(name, "allreduce") || is(name, "reduce_vector") ||
             is(name, "allreduce_vector") || is(name, "allreduce_inplace")) {
    int all = name[0] == 'a', root = n > 2 ? 2 : 0, vec = strstr(name, "vector") != NULL;
    MPI_Datatype t = MPI_INT;
    int count = 6;
    if (vec) { /* ints 0, 2, 4 of every 6 */
      MPI_Datatype v;
      MPI_Type_vector(3, 1, 2, MPI_INT, &v);
      MPI_Type_create_resized(v, 0, 6 * sizeof(int), &t);
      MPI_Type_commit(&t);
      MPI_Type_free(&v);
      count = 2;
    }
    if (is(name, "allreduce_inplace"))
      memcpy(b, a, sizeof a);
    const void *in = is(name, "allreduce_inplace") ? MPI_IN_PLACE : a;
    if (all)
      CALL(MPI_Allreduce(in, b, count, t, MPI_SUM, MPI_COMM_WORLD),
           MPI_Iallreduce(in, b, count, t, MPI_SUM, MPI_COMM_WORLD, req));
    else
      CALL(MPI_Reduce(a, b, count, t, MPI_SUM, root, MPI_COMM_WORLD),
           MPI_Ireduce(a, b, count, t, MPI_SUM, root, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (all || r == root)
      for (int i = 0; i < (vec ? 12 : 6); i++)
        if (!vec || i % 2 == 0)
          CHECK(b[i] == 100 * n * (n - 1) / 2 + n * i, "%s [%d] = %d", name, i, b[i]);
    if (vec)
      MPI_Type_free(&t);
  } else if (is(name, "reduce_nc") || is(name, "allreduce_nc") || is(name, "scan_nc")) {
    MPI_Op op;
    MPI_Op_create(first_of, 0, &op);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int pr[2] = {r, r}, out[2] = {-1, -1};
    if (is(name, "reduce_nc"))
      CALL(MPI_Reduce(pr, out, 1, pair, op, n - 1, MPI_COMM_WORLD),
           MPI_Ireduce(pr, out, 1, pair, op, n - 1, MPI_COMM_WORLD, req));
    else if (is(name, "allreduce_nc"))
      CALL(MPI_Allreduce(pr, out, 1, pair, op, MPI_COMM_WORLD),
           MPI_Iallreduce(pr, out, 1, pair, op, MPI_COMM_WORLD, req));
    else
      CALL(MPI_Scan(pr, out, 1, pair, op, MPI_COMM_WORLD), MPI_Iscan(pr, out, 1, pair, op, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    int last = is(name, "scan_nc") ? r : n - 1;
    if (!is(name, "reduce_nc") || r == n - 1)
      CHECK(out[0] == 0 && out[1] == last, "%s: (%d, %d), expected (0, %d)", name, out[0], out[1], last);
    MPI_Type_free(&pair);
    MPI_Op_free(&op);
  } else if (is(name, "reduce_scatter") || is(name, "reduce_scatter_block")) {
    for (int i = 0; i < n; i++)
      cnt[i] = 2;
    if (is(name, "reduce_scatter"))
      CALL(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
           MPI_Ireduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    else
      CALL(MPI_Reduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
           MPI_Ireduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int k = 0; k < 2; k++)
      CHECK(b[k] == 100 * n * (n - 1) / 2 + n * (2 * r + k), "%s [%d] = %d", name, k, b[k]);
  } else if (is(name, "scan") || is(name, "exscan")) {
    if (is(name, "scan"))
      CALL(MPI_Scan(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_Iscan(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    else
      CALL(MPI_Exscan(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
           MPI_Iexscan(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    int upto = is(name, "scan") ? r : r - 1;
    if (upto >= 0)
      CHECK(b[1] == 100 * upto * (upto + 1) / 2 + (upto + 1), "%s = %d", name, b[1]);
  } else if (is(name, "gather") || is(name, "gatherv") || is(name, "gather_inplace")) {
    int root = n - 2;
    for (int i = 0; i < n; i++) {
      cnt[i] = 2;
      dsp[i] = 2 * (n - 1 - i);
    }
    const void *in = is(name, "gather_inplace") && r == root ? MPI_IN_PLACE : a;
    if (in == MPI_IN_PLACE)
      memcpy(b + 2 * r, a, 2 * sizeof *a);
    if (is(name, "gatherv"))
      CALL(MPI_Gatherv(a, 2, MPI_INT, b, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD),
           MPI_Igatherv(a, 2, MPI_INT, b, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD, req));
    else
      CALL(MPI_Gather(in, 2, MPI_INT, b, 2, MPI_INT, root, MPI_COMM_WORLD),
           MPI_Igather(in, 2, MPI_INT, b, 2, MPI_INT, root, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (r == root)
      for (int i = 0; i < n; i++) {
        int at = is(name, "gatherv") ? dsp[i] : 2 * i;
        CHECK(b[at] == 100 * i && b[at + 1] == 100 * i + 1, "%s from %d", name, i);
      }
  } else if (is(name, "scatter") || is(name, "scatterv") || is(name, "scatter_inplace")) {
    int root = n - 2;
    for (int i = 0; i < n; i++) {
      cnt[i] = 2;
      dsp[i] = 2 * (n - 1 - i);
    }
    void *out = is(name, "scatter_inplace") && r == root ? MPI_IN_PLACE : b;
    if (is(name, "scatterv"))
      CALL(MPI_Scatterv(a, cnt, dsp, MPI_INT, b, 2, MPI_INT, root, MPI_COMM_WORLD),
           MPI_Iscatterv(a, cnt, dsp, MPI_INT, b, 2, MPI_INT, root, MPI_COMM_WORLD, req));
    else
      CALL(MPI_Scatter(a, 2, MPI_INT, out, 2, MPI_INT, root, MPI_COMM_WORLD),
           MPI_Iscatter(a, 2, MPI_INT, out, 2, MPI_INT, root, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    int at = is(name, "scatterv") ? dsp[r] : 2 * r;
    if (out != MPI_IN_PLACE)
      CHECK(b[0] == 100 * root + at && b[1] == 100 * root + at + 1, "%s: %d %d", name, b[0], b[1]);
  } else if (is(name, "allgather") || is(name, "allgatherv") || is(name, "allgather_inplace")) {
    for (int i = 0; i < n; i++) {
      cnt[i] = 2;
      dsp[i] = 2 * i;
    }
    const void *in = a;
    if (is(name, "allgather_inplace")) {
      in = MPI_IN_PLACE;
      memcpy(b + 2 * r, a, 2 * sizeof *a);
    }
    if (is(name, "allgatherv"))
      CALL(MPI_Allgatherv(a, 2, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
           MPI_Iallgatherv(a, 2, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD, req));
    else
      CALL(MPI_Allgather(in, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD),
           MPI_Iallgather(in, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
      CHECK(b[2 * i] == 100 * i && b[2 * i + 1] == 100 * i + 1, "%s from %d", name, i);
  } else if (is(name, "alltoall") || is(name, "alltoallv") || is(name, "alltoallw") ||
             is(name, "alltoall_inplace")) {
    for (int i = 0; i < n; i++) {
      cnt[i] = 1;
      dsp[i] = is(name, "alltoallw") ? i * (int)sizeof(int) : i;
    }
    const void *in = a;
    if (is(name, "alltoall_inplace")) {
      in = MPI_IN_PLACE;
      memcpy(b, a, sizeof a);
    }
    if (is(name, "alltoallv"))
      CALL(MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
           MPI_Ialltoallv(a, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD, req));
    else if (is(name, "alltoallw"))
      CALL(MPI_Alltoallw(a, cnt, dsp, ty, b, cnt, dsp, ty, MPI_COMM_WORLD),
           MPI_Ialltoallw(a, cnt, dsp, ty, b, cnt, dsp, ty, MPI_COMM_WORLD, req));
    else
      CALL(MPI_Alltoall(in, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD),
           MPI_Ialltoall(in, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, req));
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
      CHECK(b[i] == 100 * i + r, "%s from %d: %d", name, i, b[i]);
  } else {
    CHECK(0, "unknown collective '%s'", name);
  }
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  CHECK(q == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
#undef CALL
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const char *name = argc > 1 ? argv[1] : "barrier";
  int nb = name[0] == 'i';
  run(nb ? name + 1 : name, nb);
  return finish();
}
