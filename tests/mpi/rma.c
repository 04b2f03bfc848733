/* One-sided communication with active target (fence) synchronisation: MPI_Win_create over
 * int and byte windows, MPI_Put, MPI_Get and MPI_Accumulate (SUM, MAX, REPLACE) to every
 * rank including oneself, small and large (100000 bytes), contiguous and strided target
 * datatypes, MPI_PROC_NULL targets, several epochs over the same window, MPI_Win_free; the
 * window attributes MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL of created and allocated windows; a
 * post-start-complete epoch whose target ends it by polling MPI_Win_test; request-based operations
 * (Rput, Rget, Raccumulate, Rget_accumulate) give real requests, on MPI_PROC_NULL targets too. */
#include "suite.h"

#define K 8 /* ints per slot */
#define BIGB 100000

static int val(int origin, int target, int i, int epoch) { return origin * 100000 + target * 1000 + i * 3 + epoch; }

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  int me = suite_rank, n = suite_size, right = (me + 1) % n, left = (me + n - 1) % n;
  /* int window: n slots of K ints, then an accumulation area of K ints, then a strided area
   * of 2 K ints */
  int wn = n * K + K + 2 * K;
  int *mem = malloc(sizeof(int) * (size_t)wn);
  for (int i = 0; i < wn; i++)
    mem[i] = -1;
  MPI_Win win;
  suite_step("MPI_Win_create (ints)");
  MPI_OK(MPI_Win_create(mem, (MPI_Aint)sizeof(int) * wn, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));

  /* epoch 1: every rank puts K ints into slot ME of every rank */
  suite_step("Put to every rank");
  int *src = malloc(sizeof(int) * (size_t)(n * K));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  for (int t = 0; t < n; t++) {
    for (int i = 0; i < K; i++)
      src[t * K + i] = val(me, t, i, 1);
    MPI_OK(MPI_Put(src + t * K, K, MPI_INT, t, me * K, K, MPI_INT, win));
  }
  MPI_OK(MPI_Put(src, K, MPI_INT, MPI_PROC_NULL, 0, K, MPI_INT, win)); /* a no-op */
  MPI_OK(MPI_Win_fence(0, win));
  for (int o = 0, bad = 0; o < n && !bad; o++)
    for (int i = 0; i < K && !bad; i++)
      if (mem[o * K + i] != val(o, me, i, 1)) {
        CHECK(0, "slot of %d element %d is %d, expected %d", o, i, mem[o * K + i], val(o, me, i, 1));
        bad = 1;
      }

  /* epoch 2: get the slot my left neighbour filled at my right neighbour */
  suite_step("Get from the right neighbour");
  int got[K];
  for (int i = 0; i < K; i++)
    got[i] = -5;
  MPI_OK(MPI_Get(got, K, MPI_INT, right, left * K, K, MPI_INT, win));
  MPI_OK(MPI_Win_fence(0, win));
  for (int i = 0; i < K; i++)
    if (got[i] != val(left, right, i, 1)) {
      CHECK(0, "element %d is %d, expected %d", i, got[i], val(left, right, i, 1));
      break;
    }

  /* epoch 3: accumulate. Everyone adds into rank 0's area, takes the max into rank n-1's, and
   * REPLACEs (like a put) its own slot at its right neighbour. The area was -1: set it first. */
  suite_step("Accumulate SUM, MAX and REPLACE");
  for (int i = 0; i < K; i++)
    mem[n * K + i] = 0;
  MPI_OK(MPI_Win_fence(0, win)); /* the local store above is ordered before the next epoch */
  int acc[K], mx[K], rep[K];
  for (int i = 0; i < K; i++) {
    acc[i] = val(me, 0, i, 3);
    mx[i] = (me % 2 ? -1 : 1) * val(me, n - 1, i, 3);
    rep[i] = val(me, right, i, 33);
  }
  MPI_OK(MPI_Accumulate(acc, K, MPI_INT, 0, n * K, K, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Accumulate(acc, K, MPI_INT, 0, n * K, K, MPI_INT, MPI_SUM, win)); /* twice */
  MPI_OK(MPI_Accumulate(mx, K, MPI_INT, n - 1, n * K, K, MPI_INT, MPI_MAX, win));
  MPI_OK(MPI_Accumulate(rep, K, MPI_INT, right, me * K, K, MPI_INT, MPI_REPLACE, win));
  MPI_OK(MPI_Accumulate(rep, K, MPI_INT, MPI_PROC_NULL, 0, K, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Win_fence(0, win));
  if (me == 0 || me == n - 1)
    for (int i = 0; i < K; i++) {
      int e;
      if (me == 0 && n > 1) { /* rank 0 (n > 1) got the sums */
        e = 0;
        for (int o = 0; o < n; o++)
          e += 2 * val(o, 0, i, 3);
      } else if (n == 1) { /* the single rank got both: SUM then MAX */
        e = 2 * val(0, 0, i, 3);
        e = val(0, 0, i, 3) > e ? val(0, 0, i, 3) : e;
      } else {
        e = -2147483647;
        for (int o = 0; o < n; o++) {
          int t = (o % 2 ? -1 : 1) * val(o, n - 1, i, 3);
          e = t > e ? t : e;
        }
        e = e > 0 ? e : 0; /* the area started at 0 */
      }
      if (mem[n * K + i] != e) {
        CHECK(0, "accumulation area element %d is %d, expected %d", i, mem[n * K + i], e);
        break;
      }
    }
  for (int i = 0; i < K; i++)
    if (mem[left * K + i] != val(left, me, i, 33)) {
      CHECK(0, "REPLACE: slot of %d element %d is %d, expected %d", left, i, mem[left * K + i], val(left, me, i, 33));
      break;
    }

  /* epoch 4: a strided target type: K ints into every other int of the strided area */
  suite_step("Put contiguous -> strided (vector) target");
  MPI_Datatype strided;
  MPI_Type_vector(K, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  for (int i = 0; i < 2 * K; i++)
    mem[n * K + K + i] = -1;
  MPI_OK(MPI_Win_fence(0, win));
  int s2[K];
  for (int i = 0; i < K; i++)
    s2[i] = val(me, right, i, 4);
  MPI_OK(MPI_Put(s2, K, MPI_INT, right, n * K + K, 1, strided, win));
  MPI_OK(MPI_Win_fence(0, win));
  for (int i = 0; i < 2 * K; i++) {
    int e = i % 2 ? -1 : val(left, me, i / 2, 4);
    if (mem[n * K + K + i] != e) {
      CHECK(0, "strided area element %d is %d, expected %d", i, mem[n * K + K + i], e);
      break;
    }
  }
  /* and back: a strided Get into a contiguous buffer */
  suite_step("Get strided (vector) target -> contiguous");
  int g2[K];
  MPI_OK(MPI_Get(g2, K, MPI_INT, left, n * K + K, 1, strided, win));
  /* a null buffer holding no data (a type of no size) is valid MPI (MPICH's rma/badrma) */
  suite_step("Put and Get of a null buffer of a zero-size type");
  MPI_Datatype none;
  MPI_Type_contiguous(0, MPI_INT, &none);
  MPI_Type_commit(&none);
  MPI_OK(MPI_Put(NULL, 1, none, right, 0, 1, none, win));
  MPI_OK(MPI_Get(NULL, 1, none, right, 0, 1, none, win));
  MPI_Type_free(&none);
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  for (int i = 0; i < K; i++)
    if (g2[i] != val((left + n - 1) % n, left, i, 4)) {
      CHECK(0, "element %d is %d, expected %d", i, g2[i], val((left + n - 1) % n, left, i, 4));
      break;
    }
  MPI_Type_free(&strided);
  /* read-modify-write on the own window, passive target: SMPI makes them a get (a local copy here)
   * and an accumulate (a transfer even here), which the layer must announce as such */
  suite_step("Fetch_and_op and Get_accumulate on the own window (passive target)");
  int one = 1, old = -7, add2[2] = {5, 6}, old2[2] = {-7, -7};
  int before0 = mem[0], before1 = mem[1], before2 = mem[2];
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
  MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT, me, 0, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock(me, win));
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
  MPI_OK(MPI_Get_accumulate(add2, 2, MPI_INT, old2, 2, MPI_INT, me, 1, 2, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock(me, win));
  CHECK(old == before0 && mem[0] == before0 + 1, "Fetch_and_op: old %d (expected %d), now %d (expected %d)", old, before0,
        mem[0], before0 + 1);
  CHECK(old2[0] == before1 && old2[1] == before2 && mem[1] == before1 + 5 && mem[2] == before2 + 6,
        "Get_accumulate: old %d %d (expected %d %d), now %d %d (expected %d %d)", old2[0], old2[1], before1, before2,
        mem[1], mem[2], before1 + 5, before2 + 6);
  MPI_Barrier(MPI_COMM_WORLD);
  /* compare-and-swap on the right neighbour's cell 3 (only this rank touches it): one that swaps
   * (a get and a put) and one that does not (a get only); SMPI decides inside the call, the layer
   * must announce the put exactly when it happens */
  suite_step("Compare_and_swap on the right neighbour: one that swaps, one that does not");
  int v = -7, res = -7, newv, stale;
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  MPI_OK(MPI_Get(&v, 1, MPI_INT, right, 3, 1, MPI_INT, win));
  MPI_OK(MPI_Win_unlock(right, win));
  newv = v + 100;
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  MPI_OK(MPI_Compare_and_swap(&newv, &v, &res, MPI_INT, right, 3, win));
  MPI_OK(MPI_Win_unlock(right, win));
  CHECK(res == v, "swapping Compare_and_swap returned %d, expected %d", res, v);
  stale = v;
  newv = v + 200;
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
  MPI_OK(MPI_Compare_and_swap(&newv, &stale, &res, MPI_INT, right, 3, win));
  MPI_OK(MPI_Win_unlock(right, win));
  CHECK(res == v + 100, "Compare_and_swap with a stale comparand returned %d, expected %d", res, v + 100);
  MPI_Barrier(MPI_COMM_WORLD);
  suite_step("MPI_Win_free (ints)");
  MPI_OK(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set the handle to MPI_WIN_NULL");

  /* a byte window with large transfers: put BIGB bytes at the right neighbour, get them back
   * from the left neighbour's window in the next epoch */
  suite_step("MPI_Win_create (bytes), Put of %d bytes", BIGB);
  unsigned char *bm = malloc(BIGB + 16), *bs = malloc(BIGB), *bg = malloc(BIGB);
  memset(bm, 0xee, BIGB + 16);
  MPI_OK(MPI_Win_create(bm, BIGB + 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  suite_fill(bs, BIGB, me + 500);
  for (int rep2 = 0; rep2 < 3; rep2++) {
    suite_step("byte window round %d: Put %d bytes to the right", rep2, BIGB);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(bs, BIGB, MPI_BYTE, right, 8, BIGB, MPI_BYTE, win));
    MPI_OK(MPI_Win_fence(0, win));
    long bad = suite_verify(bm + 8, BIGB, left + 500);
    CHECK(bad < 0, "byte %ld of the put differs", bad);
    CHECK(bm[7] == 0xee && bm[BIGB + 8] == 0xee, "the put wrote outside its target range");
    suite_step("byte window round %d: Get %d bytes from the left", rep2, BIGB);
    memset(bg, 0, BIGB);
    MPI_OK(MPI_Get(bg, BIGB, MPI_BYTE, left, 8, BIGB, MPI_BYTE, win));
    MPI_OK(MPI_Win_fence(0, win));
    bad = suite_verify(bg, BIGB, (left + n - 1) % n + 500);
    CHECK(bad < 0, "byte %ld of the get differs", bad);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  int *flavor = NULL, *model = NULL, flag = 0;
  suite_step("MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL of a created window");
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && flavor && *flavor == MPI_WIN_FLAVOR_CREATE, "flavor of a created window: flag %d value %d", flag,
        flavor ? *flavor : -1);
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  CHECK(flag && model && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE), "memory model: flag %d value %d",
        flag, model ? *model : -1);
  MPI_OK(MPI_Win_free(&win));

  suite_step("MPI_Win_allocate: its flavor; post-start-complete, the target polling MPI_Win_test");
  int *abase = NULL;
  MPI_OK(MPI_Win_allocate((MPI_Aint)sizeof(int) * K, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &abase, &win));
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
  CHECK(flag && flavor && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "flavor of an allocated window: flag %d value %d", flag,
        flavor ? *flavor : -1);
  for (int i = 0; i < K; i++)
    abase[i] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  /* every rank exposes its window to its left neighbour and puts into its right one */
  MPI_Group world, gl, gr;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &gl);
  MPI_Group_incl(world, 1, &right, &gr);
  MPI_OK(MPI_Win_post(gl, 0, win));
  MPI_OK(MPI_Win_start(gr, 0, win));
  int mine[K];
  for (int i = 0; i < K; i++)
    mine[i] = val(me, right, i, 9);
  MPI_OK(MPI_Put(mine, K, MPI_INT, right, 0, K, MPI_INT, win));
  MPI_OK(MPI_Win_complete(win));
  flag = 0;
  time_t t0 = 0;
  while (!flag) {
    suite_poll(&t0, "MPI_Win_test");
    MPI_OK(MPI_Win_test(win, &flag));
  }
  int ok = 1;
  for (int i = 0; i < K; i++)
    ok &= abase[i] == val(left, me, i, 9);
  CHECK(ok, "after MPI_Win_test: slot 0 holds %d, expected %d", abase[0], val(left, me, 0, 9));

  suite_step("request-based operations: real requests, also on MPI_PROC_NULL and for get-accumulate");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Request rq[5];
  int pv[4] = {1, 2, 3, 4}, pres = -1, fetched = -1;
  MPI_OK(MPI_Win_lock_all(0, win));
  MPI_OK(MPI_Rget_accumulate(&pv[0], 1, MPI_INT, &pres, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, MPI_REPLACE, win,
                             &rq[0]));
  MPI_OK(MPI_Rget(&pv[1], 1, MPI_INT, MPI_PROC_NULL, 1, 1, MPI_INT, win, &rq[1]));
  MPI_OK(MPI_Rput(&pv[2], 1, MPI_INT, MPI_PROC_NULL, 2, 1, MPI_INT, win, &rq[2]));
  MPI_OK(MPI_Raccumulate(&pv[3], 1, MPI_INT, MPI_PROC_NULL, 3, 1, MPI_INT, MPI_SUM, win, &rq[3]));
  MPI_OK(MPI_Rget_accumulate(&me, 1, MPI_INT, &fetched, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_REPLACE, win, &rq[4]));
  for (int i = 0; i < 5; i++)
    CHECK(rq[i] != MPI_REQUEST_NULL, "request %d of the request-based operations is MPI_REQUEST_NULL", i);
  MPI_OK(MPI_Waitall(5, rq, MPI_STATUSES_IGNORE));
  MPI_OK(MPI_Win_unlock_all(win));
  CHECK(fetched == val(me, right, 0, 9), "Rget_accumulate fetched %d, expected %d", fetched, val(me, right, 0, 9));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
  CHECK(abase[0] == left, "after the left neighbour's Rget_accumulate REPLACE: slot 0 holds %d, expected %d", abase[0],
        left);
  MPI_OK(MPI_Win_unlock(me, win));
  MPI_Group_free(&gl);
  MPI_Group_free(&gr);
  MPI_Group_free(&world);
  MPI_OK(MPI_Win_free(&win));
  free(bm);
  free(bs);
  free(bg);
  free(mem);
  free(src);
  return suite_finish();
}
