/* Non-blocking collectives: every MPI_I* form with its result checked, completed in every way
 * (Wait, Test loop, Waitall mixed with point-to-point requests, Waitany, Waitsome, Testall),
 * several outstanding at once, interleaved with blocking collectives on the same communicator,
 * in place, with a non-commutative op, on reordered and sub-communicators that are then freed.
 * Prints "No Errors" and exits 0 when every result is right. */
#include <stdlib.h>
#include <string.h>

#include "coll_check.h"

#define P 101

/* Affine maps x -> a x + b (mod P) as pairs (a, b); composition is associative, not commutative.
 * The op computes inout = in o inout (apply inout first, then in). */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  (void)dt;
  int *f = in, *g = inout;
  for (int i = 0; i < *len; i++, f += 2, g += 2) {
    int a = f[0] * g[0] % P, b = (f[0] * g[1] + f[1]) % P;
    g[0] = a;
    g[1] = b;
  }
}

static void map_of(int r, int j, int m[2])
{
  m[0] = (r + 2 * j) % 5 + 2;
  m[1] = (3 * r + j) % 7;
}

/* f_lo o f_lo+1 o ... o f_hi, element j */
static void fold(int lo, int hi, int j, int out[2])
{
  int acc[2] = {1, 0}, m[2], len = 1;
  for (int r = hi; r >= lo; r--) { /* acc = f_r o acc */
    map_of(r, j, m);
    compose(m, acc, &len, NULL);
  }
  out[0] = acc[0];
  out[1] = acc[1];
}

static void all_forms(MPI_Comm c, MPI_Op op, MPI_Datatype pair)
{
  int n, r;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  int *a = malloc(64 * (size_t)n * sizeof *a), *b = malloc(64 * (size_t)n * sizeof *b);
  int *cnt = malloc(4 * (size_t)n * sizeof *cnt), *dsp = cnt + n, *cnt2 = cnt + 2 * n, *dsp2 = cnt + 3 * n;
  MPI_Request q[8];
  int want[2];

  MPI_Ibarrier(c, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  CHECK(q[0] == MPI_REQUEST_NULL, "request not freed by MPI_Wait");

  int v = r == n - 1 ? 77 : -1, flag = 0, spins = 0;
  MPI_Ibcast(&v, 1, MPI_INT, n - 1, c, &q[0]);
  while (!flag && spins++ < 1000)
    MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
  CHECK(flag && v == 77 && q[0] == MPI_REQUEST_NULL, "ibcast + test: flag %d value %d", flag, v);

  /* non-commutative reduce to every root, completed by Waitany beside a ring exchange */
  int mine[4], res[4], left = -1, right = (r + 1) % n;
  for (int j = 0; j < 2; j++)
    map_of(r, j, mine + 2 * j);
  for (int root = 0; root < n; root++) {
    memset(res, 0xff, sizeof res);
    MPI_Irecv(&left, 1, MPI_INT, (r - 1 + n) % n, 3, c, &q[0]);
    MPI_Ireduce(mine, res, 2, pair, op, root, c, &q[1]);
    MPI_Isend(&right, 1, MPI_INT, (r + 1) % n, 3, c, &q[2]);
    for (int k = 0; k < 3; k++) {
      int idx;
      MPI_Waitany(3, q, &idx, MPI_STATUS_IGNORE);
      CHECK(idx >= 0 && idx < 3 && q[idx] == MPI_REQUEST_NULL, "waitany index %d", idx);
    }
    CHECK(left == r, "ring exchange beside ireduce: %d", left);
    if (r == root)
      for (int j = 0; j < 2; j++) {
        fold(0, n - 1, j, want);
        CHECK(res[2 * j] == want[0] && res[2 * j + 1] == want[1], "ireduce to %d, element %d", root, j);
      }
  }

  /* several outstanding at once, then one Waitall with point-to-point requests among them */
  int sum = -1, ar[4], sc[4], ex[4], bc = r == 0 ? 5 : -1;
  memcpy(ar, mine, sizeof ar);
  MPI_Iallreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c, &q[0]);
  MPI_Iallreduce(MPI_IN_PLACE, ar, 2, pair, op, c, &q[1]);
  MPI_Irecv(&left, 1, MPI_INT, (r - 1 + n) % n, 4, c, &q[2]);
  MPI_Iscan(mine, sc, 2, pair, op, c, &q[3]);
  MPI_Bcast(&bc, 1, MPI_INT, 0, c); /* a blocking collective while those are pending */
  MPI_Iexscan(mine, ex, 2, pair, op, c, &q[4]);
  MPI_Isend(&right, 1, MPI_INT, (r + 1) % n, 4, c, &q[5]);
  MPI_Waitall(6, q, MPI_STATUSES_IGNORE);
  for (int k = 0; k < 6; k++)
    CHECK(q[k] == MPI_REQUEST_NULL, "request %d not freed by MPI_Waitall", k);
  CHECK(sum == n * (n - 1) / 2 && bc == 5 && left == r, "iallreduce %d, bcast %d, ring %d", sum, bc, left);
  for (int j = 0; j < 2; j++) {
    fold(0, n - 1, j, want);
    CHECK(ar[2 * j] == want[0] && ar[2 * j + 1] == want[1], "in-place iallreduce, element %d", j);
    fold(0, r, j, want);
    CHECK(sc[2 * j] == want[0] && sc[2 * j + 1] == want[1], "iscan, element %d", j);
    if (r > 0) {
      fold(0, r - 1, j, want);
      CHECK(ex[2 * j] == want[0] && ex[2 * j + 1] == want[1], "iexscan, element %d", j);
    }
  }

  /* reduce_scatter(_block) with the non-commutative op, completed by Waitsome */
  int total = 0;
  for (int i = 0; i < n; i++) {
    cnt[i] = i % 2 + 1;
    total += cnt[i];
  }
  for (int j = 0; j < total; j++)
    map_of(r, j, a + 2 * j);
  int first = 0;
  for (int i = 0; i < r; i++)
    first += cnt[i];
  memcpy(b + 32 * n, a, 2 * (size_t)total * sizeof *a);
  MPI_Ireduce_scatter(a, b, cnt, pair, op, c, &q[0]);
  MPI_Ireduce_scatter_block(MPI_IN_PLACE, b + 32 * n, 1, pair, op, c, &q[1]);
  int done = 0, idx[2];
  while (done < 2) {
    int outc;
    MPI_Waitsome(2, q, &outc, idx, MPI_STATUSES_IGNORE);
    CHECK(outc != MPI_UNDEFINED && outc > 0, "waitsome returned %d", outc);
    if (outc == MPI_UNDEFINED || outc <= 0)
      break;
    done += outc;
  }
  for (int j = 0; j < cnt[r]; j++) {
    fold(0, n - 1, first + j, want);
    CHECK(b[2 * j] == want[0] && b[2 * j + 1] == want[1], "ireduce_scatter, element %d", j);
  }
  fold(0, n - 1, r, want);
  CHECK(b[32 * n] == want[0] && b[32 * n + 1] == want[1], "in-place ireduce_scatter_block");

  /* data movement, completed by Testall */
#define V(src, dst, k) (1000 * (src) + 10 * (dst) + (k))
  int root = n / 2, g[2] = {V(r, root, 0), V(r, root, 1)}, s2[2] = {-1, -1}, *gv = b + 16 * n, *all = b + 24 * n;
  for (int i = 0; i < n; i++) {
    a[2 * i] = V(root, i, 0);
    a[2 * i + 1] = V(root, i, 1);
    cnt[i] = i % 2 + 1;
    dsp[i] = 2 * i;
  }
  memset(b, 0xff, 16 * (size_t)n * sizeof *b);
  MPI_Igather(g, 2, MPI_INT, b, 2, MPI_INT, root, c, &q[0]);
  MPI_Iscatter(a, 2, MPI_INT, s2, 2, MPI_INT, root, c, &q[1]);
  MPI_Igatherv(g, r % 2 + 1, MPI_INT, gv, cnt, dsp, MPI_INT, root, c, &q[2]);
  int s3[2] = {-1, -1};
  MPI_Iscatterv(a, cnt, dsp, MPI_INT, s3, r % 2 + 1, MPI_INT, root, c, &q[3]);
  MPI_Iallgather(g, 1, MPI_INT, all, 1, MPI_INT, c, &q[4]);
  flag = 0;
  spins = 0;
  while (!flag && spins++ < 1000)
    MPI_Testall(5, q, &flag, MPI_STATUSES_IGNORE);
  CHECK(flag, "testall never completed");
  if (r == root)
    for (int i = 0; i < n; i++) {
      CHECK(b[2 * i] == V(i, root, 0) && b[2 * i + 1] == V(i, root, 1), "igather from %d", i);
      for (int k = 0; k < cnt[i]; k++)
        CHECK(gv[dsp[i] + k] == V(i, root, k), "igatherv from %d [%d]", i, k);
    }
  CHECK(s2[0] == V(root, r, 0) && s2[1] == V(root, r, 1), "iscatter");
  for (int k = 0; k < r % 2 + 1; k++)
    CHECK(s3[k] == V(root, r, k), "iscatterv [%d]", k);
  for (int i = 0; i < n; i++)
    CHECK(all[i] == V(i, root, 0), "iallgather from %d", i);

  /* all-gather-v and all-to-all(v, w), in place where allowed, one Wait each */
  for (int i = 0; i < n; i++) {
    cnt[i] = 2;
    dsp[i] = 2 * (n - 1 - i);
  }
  b[dsp[r]] = V(r, 7, 0);
  b[dsp[r] + 1] = V(r, 7, 1);
  MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_INT, b, cnt, dsp, MPI_INT, c, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    CHECK(b[dsp[i]] == V(i, 7, 0) && b[dsp[i] + 1] == V(i, 7, 1), "in-place iallgatherv from %d", i);
  for (int i = 0; i < n; i++)
    a[i] = V(r, i, 3);
  MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, c, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    CHECK(b[i] == V(i, r, 3), "ialltoall from %d", i);
  for (int i = 0; i < n; i++) {
    cnt[i] = (r + i) % 2 + 1;
    dsp[i] = 2 * i;
    for (int k = 0; k < 2; k++)
      b[2 * i + k] = V(r, i, k);
  }
  MPI_Ialltoallv(MPI_IN_PLACE, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, c, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < cnt[i]; k++)
      CHECK(b[2 * i + k] == V(i, r, k), "in-place ialltoallv from %d [%d]", i, k);
  MPI_Datatype *ty = malloc((size_t)n * sizeof *ty);
  for (int i = 0; i < n; i++) {
    cnt2[i] = 1;
    dsp2[i] = (int)sizeof(int) * i;
    ty[i] = MPI_INT;
    a[i] = V(r, i, 4);
  }
  MPI_Ialltoallw(a, cnt2, dsp2, ty, b, cnt2, dsp2, ty, c, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    CHECK(b[i] == V(i, r, 4), "ialltoallw from %d", i);
#undef V
  free(ty);
  free(a);
  free(b);
  free(cnt);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int n, r;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Op op;
  MPI_Op_create(compose, 0, &op);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);

  all_forms(MPI_COMM_WORLD, op, pair);
  for (int it = 0; it < 3; it++) {
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - r, &c); /* reversed */
    all_forms(c, op, pair);
    MPI_Comm_free(&c);
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, n - r, &c); /* two reversed halves */
    all_forms(c, op, pair);
    MPI_Comm_free(&c);
  }
  all_forms(MPI_COMM_WORLD, op, pair);
  MPI_Type_free(&pair);
  MPI_Op_free(&op);
  return finish();
}
