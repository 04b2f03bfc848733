/* Collective operations on intercommunicators (MPI 3.1, 5.2.2), and intercommunicators made from
 * one by MPI_Comm_split and MPI_Comm_create (6.4.2). The world is cut into a lower group of
 * n / 2 ranks and an upper group of the rest (uneven for odd n), joined by MPI_Intercomm_create.
 * Every collective is checked against values derived from world ranks: data always crosses to
 * the other group (a rooted operation has MPI_ROOT at the root, MPI_PROC_NULL on the rest of its
 * group, whose buffers must stay untouched), both ways for the all- forms. Each rooted operation
 * runs with each group's rank 0 as root, and in the blocking form also with its last rank. The blocking forms,
 * then the non-blocking ones (MPI_Ibarrier ... MPI_Ialltoallw). MPI_Scan on an
 * intercommunicator is erroneous and must return an error class, not hang. Correct MPI that
 * prints No Errors on MPICH. */
#include "suite.h"

static int me, n, lower, lsize, rsize, lrank;
static int wbase, rbase; /* world ranks of the local and remote group's rank 0 */

/* The value rank R of the remote group contributes at index I. */
static int rv(int r, int i) { return 1000 * (rbase + r) + i; }
static int lv(int r, int i) { return 1000 * (wbase + r) + i; }

/* The blocking form, or the non-blocking one and a wait (RQ in scope). */
#define GO(name, iname, ...)                                                                                       \
  do {                                                                                                     \
    if (nb) {                                                                                              \
      MPI_OK(MPI_##iname(__VA_ARGS__, &rq));                                                               \
      MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));                                                            \
    } else {                                                                                               \
      MPI_OK(MPI_##name(__VA_ARGS__));                                                                     \
    }                                                                                                      \
  } while (0)

static void rooted(MPI_Comm ic, int nb, int root_rank)
{
  /* the lower group's ROOT_RANK is the root; then the upper's */
  for (int side = 0; side < 2; side++) {
    int root_group_is_me = side == 0 ? lower : !lower;
    int rootsize = root_group_is_me ? lsize : rsize;
    int rr = root_rank < rootsize ? root_rank : rootsize - 1;
    int root = root_group_is_me ? (lrank == rr ? MPI_ROOT : MPI_PROC_NULL) : rr;
    int is_root = root == MPI_ROOT, idle = root == MPI_PROC_NULL;
    const int k = 3;
    int buf[3];
    int cnt[64], dsp[64];
    MPI_Request rq = MPI_REQUEST_NULL;
    suite_step("%sbcast, root %d of the %s group", nb ? "I" : "", rr, side ? "upper" : "lower");
    for (int i = 0; i < k; i++)
      buf[i] = is_root ? lv(lrank, i) : -1;
    GO(Bcast, Ibcast, buf, k, MPI_INT, root, ic);
    for (int i = 0; i < k; i++)
      CHECK(buf[i] == (is_root ? lv(lrank, i) : idle ? -1 : rv(rr, i)), "bcast [%d] = %d", i, buf[i]);

    suite_step("%sreduce, root %d of the %s group", nb ? "I" : "", rr, side ? "upper" : "lower");
    int s[3], r[3] = {-1, -1, -1};
    for (int i = 0; i < k; i++)
      s[i] = lv(lrank, i);
    GO(Reduce, Ireduce, s, r, k, MPI_INT, MPI_SUM, root, ic);
    for (int i = 0; i < k; i++) {
      int e = is_root ? 0 : -1;
      for (int q = 0; is_root && q < rsize; q++)
        e += rv(q, i);
      CHECK(r[i] == e, "reduce [%d] = %d, expected %d", i, r[i], e);
    }

    suite_step("%sgather, root %d of the %s group", nb ? "I" : "", rr, side ? "upper" : "lower");
    int *g = malloc(sizeof(int) * (size_t)(k * rsize + 1));
    for (int i = 0; i < k * rsize; i++)
      g[i] = -1;
    GO(Gather, Igather, s, idle ? 0 : k, MPI_INT, g, is_root ? k : 0, MPI_INT, root, ic);
    if (is_root)
      for (int q = 0; q < rsize; q++)
        for (int i = 0; i < k; i++)
          CHECK(g[q * k + i] == rv(q, i), "gather from %d [%d] = %d", q, i, g[q * k + i]);

    suite_step("%sscatter, root %d of the %s group", nb ? "I" : "", rr, side ? "upper" : "lower");
    int *sc = malloc(sizeof(int) * (size_t)(k * rsize + 1));
    for (int q = 0; q < rsize; q++)
      for (int i = 0; i < k; i++)
        sc[q * k + i] = is_root ? 7 * lv(lrank, i) + q : -5;
    for (int i = 0; i < k; i++)
      r[i] = -1;
    GO(Scatter, Iscatter, sc, is_root ? k : 0, MPI_INT, r, root_group_is_me ? 0 : k, MPI_INT, root, ic);
    if (!root_group_is_me)
      for (int i = 0; i < k; i++)
        CHECK(r[i] == 7 * rv(rr, i) + lrank, "scatter [%d] = %d", i, r[i]);

    suite_step("%sgatherv, root %d of the %s group", nb ? "I" : "", rr, side ? "upper" : "lower");
    /* remote rank q sends q + 1 values, placed in reverse order of ranks */
    int tot = 0;
    for (int q = rsize - 1; q >= 0; q--)
      cnt[q] = q + 1, dsp[q] = tot, tot += q + 1;
    int *gv = malloc(sizeof(int) * (size_t)(tot + 1));
    for (int i = 0; i < tot; i++)
      gv[i] = -1;
    int mine[64];
    for (int i = 0; i <= lrank; i++)
      mine[i] = lv(lrank, i);
    GO(Gatherv, Igatherv, mine, root_group_is_me ? 0 : lrank + 1, MPI_INT, gv, cnt, dsp, MPI_INT, root, ic);
    if (is_root)
      for (int q = 0; q < rsize; q++)
        for (int i = 0; i <= q; i++)
          CHECK(gv[dsp[q] + i] == rv(q, i), "gatherv from %d [%d] = %d", q, i, gv[dsp[q] + i]);

    suite_step("%sscatterv, root %d of the %s group", nb ? "I" : "", rr, side ? "upper" : "lower");
    for (int q = 0; q < rsize; q++)
      for (int i = 0; i <= q; i++)
        gv[dsp[q] + i] = is_root ? 100000 * q + lv(lrank, i) : -5;
    for (int i = 0; i < 64; i++)
      mine[i] = -1;
    GO(Scatterv, Iscatterv, gv, cnt, dsp, MPI_INT, mine, root_group_is_me ? 0 : lrank + 1, MPI_INT, root, ic);
    if (!root_group_is_me)
      for (int i = 0; i <= lrank; i++)
        CHECK(mine[i] == 100000 * lrank + rv(rr, i), "scatterv [%d] = %d", i, mine[i]);
    else
      CHECK(mine[0] == -1, "scatterv wrote into a buffer of the root's group");
    free(g);
    free(sc);
    free(gv);
  }
}

static void unrooted(MPI_Comm ic, int nb)
{
  MPI_Request rq = MPI_REQUEST_NULL;
  const int k = 2;
  suite_step("%sbarrier", nb ? "I" : "");
  GO(Barrier, Ibarrier, ic);

  suite_step("%sallreduce", nb ? "I" : "");
  int s[2] = {lv(lrank, 0), lv(lrank, 1)}, r[2] = {-1, -1};
  GO(Allreduce, Iallreduce, s, r, k, MPI_INT, MPI_MAX, ic);
  CHECK(r[0] == rv(rsize - 1, 0) && r[1] == rv(rsize - 1, 1), "allreduce (max) = %d %d", r[0], r[1]);

  suite_step("%sallgather", nb ? "I" : "");
  int *g = malloc(sizeof(int) * (size_t)(k * rsize));
  GO(Allgather, Iallgather, s, k, MPI_INT, g, k, MPI_INT, ic);
  for (int q = 0; q < rsize; q++)
    CHECK(g[k * q] == rv(q, 0) && g[k * q + 1] == rv(q, 1), "allgather from %d = %d %d", q, g[k * q], g[k * q + 1]);

  suite_step("%sallgatherv", nb ? "I" : "");
  int cnt[64], dsp[64], tot = 0, mine[64];
  for (int q = 0; q < rsize; q++)
    cnt[q] = q + 1, dsp[q] = tot, tot += q + 1;
  int *gv = malloc(sizeof(int) * (size_t)tot);
  for (int i = 0; i <= lrank; i++)
    mine[i] = lv(lrank, i);
  GO(Allgatherv, Iallgatherv, mine, lrank + 1, MPI_INT, gv, cnt, dsp, MPI_INT, ic);
  for (int q = 0; q < rsize; q++)
    for (int i = 0; i <= q; i++)
      CHECK(gv[dsp[q] + i] == rv(q, i), "allgatherv from %d [%d] = %d", q, i, gv[dsp[q] + i]);

  suite_step("%salltoall", nb ? "I" : "");
  int *a = malloc(sizeof(int) * (size_t)rsize), *b = malloc(sizeof(int) * (size_t)rsize);
  for (int q = 0; q < rsize; q++)
    a[q] = 100 * (wbase + lrank) + q;
  GO(Alltoall, Ialltoall, a, 1, MPI_INT, b, 1, MPI_INT, ic);
  for (int q = 0; q < rsize; q++)
    CHECK(b[q] == 100 * (rbase + q) + lrank, "alltoall from %d = %d", q, b[q]);

  suite_step("%salltoallv", nb ? "I" : "");
  /* to remote rank q: one value, at index rsize - 1 - q; from q at index q */
  int sd[64], rd[64], one[64];
  for (int q = 0; q < rsize; q++)
    one[q] = 1, sd[q] = rsize - 1 - q, rd[q] = q, a[rsize - 1 - q] = 100 * (wbase + lrank) + q, b[q] = -1;
  GO(Alltoallv, Ialltoallv, a, one, sd, MPI_INT, b, one, rd, MPI_INT, ic);
  for (int q = 0; q < rsize; q++)
    CHECK(b[q] == 100 * (rbase + q) + lrank, "alltoallv from %d = %d", q, b[q]);

  suite_step("%salltoallw", nb ? "I" : "");
  MPI_Datatype ty[64];
  for (int q = 0; q < rsize; q++)
    ty[q] = MPI_INT, sd[q] *= (int)sizeof(int), rd[q] *= (int)sizeof(int), b[q] = -1;
  GO(Alltoallw, Ialltoallw, a, one, sd, ty, b, one, rd, ty, ic);
  for (int q = 0; q < rsize; q++)
    CHECK(b[q] == 100 * (rbase + q) + lrank, "alltoallw from %d = %d", q, b[q]);

  suite_step("%sreduce_scatter", nb ? "I" : "");
  /* both groups' vectors have as many elements: the lower group's counts are 1 but its last
   * rank's takes the rest (the upper group's size), so that the totals agree */
  int total = lsize > rsize ? lsize : rsize, *vec = malloc(sizeof(int) * (size_t)total), rc2[64], out[64];
  for (int i = 0; i < lsize; i++)
    rc2[i] = i == lsize - 1 ? total - (lsize - 1) : 1;
  for (int i = 0; i < total; i++)
    vec[i] = lv(lrank, i);
  GO(Reduce_scatter, Ireduce_scatter, vec, out, rc2, MPI_INT, MPI_SUM, ic);
  int at = 0;
  for (int i = 0; i < lrank; i++)
    at += rc2[i];
  for (int j = 0; j < rc2[lrank]; j++) {
    int e = 0;
    for (int q = 0; q < rsize; q++)
      e += rv(q, at + j);
    CHECK(out[j] == e, "reduce_scatter [%d] = %d, expected %d", j, out[j], e);
  }

  suite_step("%sreduce_scatter_block", nb ? "I" : "");
  /* blocks of rcount = the remote size: the totals lsize x rsize agree */
  int *v2 = malloc(sizeof(int) * (size_t)(lsize * rsize)), *o2 = malloc(sizeof(int) * (size_t)rsize);
  for (int i = 0; i < lsize * rsize; i++)
    v2[i] = lv(lrank, i);
  GO(Reduce_scatter_block, Ireduce_scatter_block, v2, o2, rsize, MPI_INT, MPI_SUM, ic);
  for (int j = 0; j < rsize; j++) {
    int e = 0;
    for (int q = 0; q < rsize; q++)
      e += rv(q, lrank * rsize + j);
    CHECK(o2[j] == e, "reduce_scatter_block [%d] = %d, expected %d", j, o2[j], e);
  }
  free(g);
  free(gv);
  free(a);
  free(b);
  free(vec);
  free(v2);
  free(o2);
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(3))
    return suite_finish();
  me = suite_rank, n = suite_size;
  int a = n / 2;
  lower = me < a;
  MPI_Comm half, ic;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, lower, me, &half));
  MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? a : 0, 31, &ic));
  MPI_Comm_size(ic, &lsize);
  MPI_Comm_remote_size(ic, &rsize);
  MPI_Comm_rank(ic, &lrank);
  wbase = lower ? 0 : a, rbase = lower ? a : 0;

  for (int nb = 0; nb < 2; nb++) {
    unrooted(ic, nb);
    rooted(ic, nb, 0);
    if (!nb) /* MPICH 4.0's own MPI_Ibcast on an intercommunicator fails an assertion for a root other than 0 */
      rooted(ic, nb, 1 << 20); /* the group's last rank */
  }

  suite_step("MPI_Scan on an intercommunicator is erroneous");
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  int x = 1, y = 0;
  CHECK(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic) != MPI_SUCCESS, "MPI_Scan on an intercommunicator succeeded");

  suite_step("MPI_Comm_split of the intercommunicator");
  /* color: local rank parity; key: reversed local rank. Each color's parts of the two groups form
   * an intercommunicator, unless one group has no rank of that color (then MPI_COMM_NULL). */
  int color = lrank % 2, sub_l = (lsize - color + 1) / 2, sub_r = (rsize - color + 1) / 2;
  MPI_Comm sp;
  MPI_OK(MPI_Comm_split(ic, color, -lrank, &sp));
  if (sub_r == 0) {
    CHECK(sp == MPI_COMM_NULL, "split: the other group has no rank of color %d, yet a communicator came back", color);
  } else {
    int f = 0, s1 = -1, s2 = -1, r1 = -1;
    MPI_OK(MPI_Comm_test_inter(sp, &f));
    MPI_Comm_size(sp, &s1);
    MPI_Comm_remote_size(sp, &s2);
    MPI_Comm_rank(sp, &r1);
    CHECK(f && s1 == sub_l && s2 == sub_r, "split: inter %d, sizes %d/%d, expected %d/%d", f, s1, s2, sub_l, sub_r);
    int erank = (lsize - 1 - lrank) / 2; /* keys reversed: the highest local rank of the color first */
    CHECK(r1 == erank, "split: rank %d, expected %d", r1, erank);
    /* each side's new rank 0 broadcasts its world rank to the other side, the lower side first */
    int w = me, got = -1, lead = r1 == 0 ? MPI_ROOT : MPI_PROC_NULL;
    for (int turn = 0; turn < 2; turn++) {
      int sending = turn == 0 ? lower : !lower;
      MPI_OK(MPI_Bcast(sending ? &w : &got, 1, MPI_INT, sending ? lead : 0, sp));
    }
    int hi = rsize - 1; /* the other group's highest local rank of this color leads there */
    while (hi % 2 != color)
      hi--;
    CHECK(got == rbase + hi, "split: the other side's rank 0 is world rank %d, expected %d", got, rbase + hi);
    MPI_Comm_free(&sp);
  }

  suite_step("MPI_Comm_create of the intercommunicator");
  /* each group keeps its ranks but its rank 0 */
  MPI_Group lg, sub;
  MPI_Comm_group(ic, &lg);
  int ex[1] = {0};
  MPI_Group_excl(lg, 1, ex, &sub);
  MPI_Comm cr;
  MPI_OK(MPI_Comm_create(ic, sub, &cr));
  if (lrank == 0 || lsize == 1 || rsize == 1) {
    CHECK(cr == MPI_COMM_NULL, "create: rank 0 (or a group left empty) got a communicator");
  } else {
    int s1 = -1, s2 = -1, r1 = -1, sum = -1;
    MPI_Comm_size(cr, &s1);
    MPI_Comm_remote_size(cr, &s2);
    MPI_Comm_rank(cr, &r1);
    CHECK(s1 == lsize - 1 && s2 == rsize - 1 && r1 == lrank - 1, "create: sizes %d/%d rank %d", s1, s2, r1);
    MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, cr));
    int e = 0;
    for (int q = 1; q < rsize; q++)
      e += rbase + q;
    CHECK(sum == e, "create: allreduce %d, expected %d", sum, e);
    MPI_Comm_free(&cr);
  }
  suite_step("freeing the communicators");
  MPI_Group_free(&sub);
  MPI_Group_free(&lg);
  MPI_Comm_free(&ic);
  MPI_Comm_free(&half);
  return suite_finish();
}
