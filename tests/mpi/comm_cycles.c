/* Communicators made and freed over and over (dup, split, create, create_group, chains of
 * them, with ranks reordered and subsets), every collective run on each and checked against
 * a serial computation. Each rank's data depends on both its rank in the communicator and
 * its world rank, so a collective run on the wrong ranks (for instance on a communicator that
 * was freed and whose handle came back for a new one) gives wrong numbers, not just the same
 * sums. 60 cycles; works for any number of ranks from 2. */
#include "suite.h"

/* The reproduction that opens the test (an Allreduce of 2*size ints, MPI_SUM). */
static void ar(MPI_Comm c)
{
  int size, r, wr;
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &r);
  MPI_Comm_rank(MPI_COMM_WORLD, &wr);
  int *in = malloc(sizeof(int) * 2 * (size_t)size), *out = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < 2 * size; i++)
    in[i] = (r + 1) * (i + 1) + wr;
  MPI_OK(MPI_Allreduce(in, out, 2 * size, MPI_INT, MPI_SUM, c));
  /* ranks are a permutation of the world's: sum of (r + 1) and of wr over all members */
  for (int i = 0; i < 2 * size; i++) {
    int expect = (i + 1) * size * (size + 1) / 2 + size * (size - 1) / 2;
    if (out[i] != expect) {
      CHECK(0, "ar: element %d is %d, expected %d", i, out[i], expect);
      break;
    }
  }
  free(in);
  free(out);
}

/* ---- the collective battery ---- */

struct comm {
  MPI_Comm c;
  int p, me, *w; /* size, my rank, world rank of each rank */
  int salt;
};

static int val(const struct comm *k, int r, int i) { return k->w[r] * 10000 + r * 100 + i + k->salt * 7; }

static void describe(struct comm *k, MPI_Comm c, int salt)
{
  k->c = c;
  k->salt = salt;
  MPI_Comm_size(c, &k->p);
  MPI_Comm_rank(c, &k->me);
  k->w = malloc(sizeof(int) * (size_t)k->p);
  MPI_Group g, wg;
  MPI_Comm_group(c, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  int *r = malloc(sizeof(int) * (size_t)k->p);
  for (int i = 0; i < k->p; i++)
    r[i] = i;
  MPI_Group_translate_ranks(g, k->p, r, wg, k->w);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  free(r);
}

/* Compare N ints of GOT with EXPECT; report the first difference. */
static void same(const char *what, const int *got, const int *expect, int n)
{
  for (int i = 0; i < n; i++)
    if (got[i] != expect[i]) {
      CHECK(0, "%s: element %d is %d, expected %d", what, i, got[i], expect[i]);
      return;
    }
}

#define BIG 6000 /* ints: above every platform's eager threshold */

static void battery(struct comm *k)
{
  int p = k->p, me = k->me, m = p * BIG + 64;
  int *a = malloc(sizeof(int) * (size_t)m), *b = malloc(sizeof(int) * (size_t)m), *e = malloc(sizeof(int) * (size_t)m);
  int *cnt = malloc(sizeof(int) * (size_t)p), *dsp = malloc(sizeof(int) * (size_t)p);
  int *rcnt = malloc(sizeof(int) * (size_t)p), *rdsp = malloc(sizeof(int) * (size_t)p);
  MPI_Comm c = k->c;

  MPI_OK(MPI_Barrier(c));

  /* Bcast: small and (every fourth cycle) large, root moves */
  for (int big = 0; big < 2; big++) {
    if (big && k->salt % 4)
      continue;
    int n = big ? BIG : 5, root = (k->salt + big) % p;
    for (int i = 0; i < n; i++)
      a[i] = me == root ? val(k, root, i) : -1;
    MPI_OK(MPI_Bcast(a, n, MPI_INT, root, c));
    for (int i = 0; i < n; i++)
      e[i] = val(k, root, i);
    same(big ? "Bcast (large)" : "Bcast", a, e, n);
  }

  /* Reduce: SUM and MAX at different roots; MAX also large */
  for (int op = 0; op < 2; op++) {
    int n = op && k->salt % 4 == 0 ? BIG : 3, root = (k->salt + 1 + op) % p;
    for (int i = 0; i < n; i++)
      a[i] = val(k, me, i) * (op ? (me % 2 ? -1 : 1) : 1);
    for (int i = 0; i < n; i++)
      b[i] = -12345;
    MPI_OK(MPI_Reduce(a, b, n, MPI_INT, op ? MPI_MAX : MPI_SUM, root, c));
    if (me == root) {
      for (int i = 0; i < n; i++) {
        e[i] = op ? -2147483647 : 0;
        for (int r = 0; r < p; r++) {
          int v = val(k, r, i) * (op ? (r % 2 ? -1 : 1) : 1);
          e[i] = op ? (v > e[i] ? v : e[i]) : e[i] + v;
        }
      }
      same(op ? "Reduce MAX" : "Reduce SUM", b, e, n);
    }
  }

  /* Allreduce: SUM of 2p ints, MIN of 3, and doubles */
  for (int i = 0; i < 2 * p; i++)
    a[i] = val(k, me, i);
  MPI_OK(MPI_Allreduce(a, b, 2 * p, MPI_INT, MPI_SUM, c));
  for (int i = 0; i < 2 * p; i++) {
    e[i] = 0;
    for (int r = 0; r < p; r++)
      e[i] += val(k, r, i);
  }
  same("Allreduce SUM", b, e, 2 * p);
  for (int i = 0; i < 3; i++)
    a[i] = val(k, me, i) * (me == p / 2 ? -1 : 1);
  MPI_OK(MPI_Allreduce(a, b, 3, MPI_INT, MPI_MIN, c));
  for (int i = 0; i < 3; i++)
    e[i] = -val(k, p / 2, i);
  same("Allreduce MIN", b, e, 3);
  {
    double d[2] = {val(k, me, 0) * 0.5, me}, s[2];
    MPI_OK(MPI_Allreduce(d, s, 2, MPI_DOUBLE, MPI_SUM, c));
    double e0 = 0;
    for (int r = 0; r < p; r++)
      e0 += val(k, r, 0) * 0.5;
    CHECK(s[0] == e0 && s[1] == p * (p - 1) / 2.0, "Allreduce SUM double: %g %g, expected %g %g", s[0], s[1], e0,
          p * (p - 1) / 2.0);
  }

  /* Gather and Gatherv (counts r % 3 + 1, a gap of one int between blocks) */
  int root = (k->salt + 2) % p;
  a[0] = val(k, me, 0), a[1] = val(k, me, 1);
  for (int i = 0; i < 2 * p; i++)
    b[i] = -1;
  MPI_OK(MPI_Gather(a, 2, MPI_INT, b, 2, MPI_INT, root, c));
  if (me == root) {
    for (int r = 0; r < p; r++)
      e[2 * r] = val(k, r, 0), e[2 * r + 1] = val(k, r, 1);
    same("Gather", b, e, 2 * p);
  }
  int tot = 0;
  for (int r = 0; r < p; r++) {
    cnt[r] = r % 3 + 1;
    dsp[r] = tot;
    tot += cnt[r] + 1;
  }
  for (int i = 0; i < cnt[me]; i++)
    a[i] = val(k, me, 20 + i);
  for (int i = 0; i < tot; i++)
    b[i] = -1;
  MPI_OK(MPI_Gatherv(a, cnt[me], MPI_INT, b, cnt, dsp, MPI_INT, root, c));
  if (me == root) {
    for (int i = 0; i < tot; i++)
      e[i] = -1;
    for (int r = 0; r < p; r++)
      for (int i = 0; i < cnt[r]; i++)
        e[dsp[r] + i] = val(k, r, 20 + i);
    same("Gatherv", b, e, tot);
  }

  /* Scatter and Scatterv (blocks laid out in reverse rank order at the root) */
  root = (k->salt + 3) % p;
  if (me == root)
    for (int r = 0; r < p; r++)
      a[2 * r] = val(k, r, 30), a[2 * r + 1] = val(k, r, 31);
  b[0] = b[1] = -1;
  MPI_OK(MPI_Scatter(a, 2, MPI_INT, b, 2, MPI_INT, root, c));
  e[0] = val(k, me, 30), e[1] = val(k, me, 31);
  same("Scatter", b, e, 2);
  tot = 0;
  for (int r = p - 1; r >= 0; r--) {
    cnt[r] = (r + k->salt) % 4 + 1;
    dsp[r] = tot;
    tot += cnt[r];
  }
  if (me == root)
    for (int r = 0; r < p; r++)
      for (int i = 0; i < cnt[r]; i++)
        a[dsp[r] + i] = val(k, r, 40 + i);
  for (int i = 0; i < 5; i++)
    b[i] = -1;
  MPI_OK(MPI_Scatterv(a, cnt, dsp, MPI_INT, b, cnt[me], MPI_INT, root, c));
  for (int i = 0; i < cnt[me]; i++)
    e[i] = val(k, me, 40 + i);
  e[cnt[me]] = -1;
  same("Scatterv", b, e, cnt[me] + 1);

  /* Allgather and Allgatherv (counts (r + salt) % 4 + 1, gaps of two) */
  for (int i = 0; i < 3; i++)
    a[i] = val(k, me, 50 + i);
  MPI_OK(MPI_Allgather(a, 3, MPI_INT, b, 3, MPI_INT, c));
  for (int r = 0; r < p; r++)
    for (int i = 0; i < 3; i++)
      e[3 * r + i] = val(k, r, 50 + i);
  same("Allgather", b, e, 3 * p);
  tot = 0;
  for (int r = 0; r < p; r++) {
    cnt[r] = (r + k->salt) % 4 + 1;
    dsp[r] = tot;
    tot += cnt[r] + 2;
  }
  for (int i = 0; i < cnt[me]; i++)
    a[i] = val(k, me, 60 + i);
  for (int i = 0; i < tot; i++)
    b[i] = e[i] = -1;
  MPI_OK(MPI_Allgatherv(a, cnt[me], MPI_INT, b, cnt, dsp, MPI_INT, c));
  for (int r = 0; r < p; r++)
    for (int i = 0; i < cnt[r]; i++)
      e[dsp[r] + i] = val(k, r, 60 + i);
  same("Allgatherv", b, e, tot);

  /* Alltoall: block j of rank r is val(r, 10 j + i); large every fourth cycle */
  int blk = k->salt % 4 == 1 ? BIG : 2;
  for (int j = 0; j < p; j++)
    for (int i = 0; i < blk; i++)
      a[j * blk + i] = val(k, me, 10 * j + i);
  MPI_OK(MPI_Alltoall(a, blk, MPI_INT, b, blk, MPI_INT, c));
  for (int j = 0; j < p; j++)
    for (int i = 0; i < blk; i++)
      e[j * blk + i] = val(k, j, 10 * me + i);
  same(blk > 2 ? "Alltoall (large)" : "Alltoall", b, e, p * blk);

  /* Alltoallv: (s -> d) carries (s + d) % 3 + 1 ints; receive blocks in reverse order */
  int st = 0, rt = 0;
  for (int j = 0; j < p; j++) {
    cnt[j] = (me + j) % 3 + 1;
    dsp[j] = st;
    st += cnt[j];
  }
  for (int j = p - 1; j >= 0; j--) {
    rcnt[j] = (me + j) % 3 + 1;
    rdsp[j] = rt;
    rt += rcnt[j];
  }
  for (int j = 0; j < p; j++)
    for (int i = 0; i < cnt[j]; i++)
      a[dsp[j] + i] = val(k, me, 10 * j + i);
  MPI_OK(MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, rcnt, rdsp, MPI_INT, c));
  for (int j = 0; j < p; j++)
    for (int i = 0; i < rcnt[j]; i++)
      e[rdsp[j] + i] = val(k, j, 10 * me + i);
  same("Alltoallv", b, e, rt);

  /* Alltoallw: (s -> d) carries 2 ((s + d) % 3 + 1) ints, sent as pairs to odd ranks and as
   * ints to even ones, received as ints; displacements in bytes */
  {
    MPI_Datatype pair, *stypes = malloc(sizeof(MPI_Datatype) * (size_t)p), *rtypes = malloc(sizeof(MPI_Datatype) * (size_t)p);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int *wsc = malloc(sizeof(int) * (size_t)p), *wsd = malloc(sizeof(int) * (size_t)p);
    int *wrc = malloc(sizeof(int) * (size_t)p), *wrd = malloc(sizeof(int) * (size_t)p);
    st = rt = 0;
    for (int j = 0; j < p; j++) {
      int ints = 2 * ((me + j) % 3 + 1);
      stypes[j] = j % 2 ? pair : MPI_INT;
      wsc[j] = j % 2 ? ints / 2 : ints;
      wsd[j] = st * (int)sizeof(int);
      for (int i = 0; i < ints; i++)
        a[st + i] = val(k, me, 10 * j + i);
      st += ints;
    }
    for (int j = p - 1; j >= 0; j--) {
      int ints = 2 * ((me + j) % 3 + 1);
      rtypes[j] = MPI_INT;
      wrc[j] = ints;
      wrd[j] = rt * (int)sizeof(int);
      for (int i = 0; i < ints; i++)
        e[rt + i] = val(k, j, 10 * me + i);
      rt += ints;
    }
    MPI_OK(MPI_Alltoallw(a, wsc, wsd, stypes, b, wrc, wrd, rtypes, c));
    same("Alltoallw", b, e, rt);
    MPI_Type_free(&pair);
    free(stypes);
    free(rtypes);
    free(wsc);
    free(wsd);
    free(wrc);
    free(wrd);
  }

  /* Reduce_scatter (rank r gets r % 2 + 1 ints) and Reduce_scatter_block (2 ints each) */
  tot = 0;
  for (int r = 0; r < p; r++) {
    cnt[r] = r % 2 + 1;
    dsp[r] = tot;
    tot += cnt[r];
  }
  for (int i = 0; i < tot; i++)
    a[i] = val(k, me, 70 + i);
  MPI_OK(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, c));
  for (int i = 0; i < cnt[me]; i++) {
    e[i] = 0;
    for (int r = 0; r < p; r++)
      e[i] += val(k, r, 70 + dsp[me] + i);
  }
  same("Reduce_scatter", b, e, cnt[me]);
  for (int i = 0; i < 2 * p; i++)
    a[i] = val(k, me, 80 + i);
  MPI_OK(MPI_Reduce_scatter_block(a, b, 2, MPI_INT, MPI_SUM, c));
  for (int i = 0; i < 2; i++) {
    e[i] = 0;
    for (int r = 0; r < p; r++)
      e[i] += val(k, r, 80 + 2 * me + i);
  }
  same("Reduce_scatter_block", b, e, 2);

  /* Scan and Exscan (SUM): prefixes in rank order */
  a[0] = val(k, me, 90), a[1] = val(k, me, 91);
  MPI_OK(MPI_Scan(a, b, 2, MPI_INT, MPI_SUM, c));
  e[0] = e[1] = 0;
  for (int r = 0; r <= me; r++)
    e[0] += val(k, r, 90), e[1] += val(k, r, 91);
  same("Scan", b, e, 2);
  b[0] = b[1] = -1;
  MPI_OK(MPI_Exscan(a, b, 2, MPI_INT, MPI_SUM, c));
  if (me > 0) {
    e[0] -= val(k, me, 90), e[1] -= val(k, me, 91);
    same("Exscan", b, e, 2);
  }

  free(a);
  free(b);
  free(e);
  free(cnt);
  free(dsp);
  free(rcnt);
  free(rdsp);
}

/* Run the battery on C (if it is a communicator here) and free it. */
static void run_and_free(MPI_Comm *c, int salt, const char *how)
{
  if (*c == MPI_COMM_NULL)
    return;
  struct comm k;
  describe(&k, *c, salt);
  suite_step("cycle %d: %s (size %d, my rank %d)", salt, how, k.p, k.me);
  battery(&k);
  free(k.w);
  MPI_OK(MPI_Comm_free(c));
  CHECK(*c == MPI_COMM_NULL, "MPI_Comm_free did not set the handle to MPI_COMM_NULL");
}

static void cycle(int k)
{
  int r = suite_rank, n = suite_size;
  MPI_Comm a, b, c;
  switch (k % 6) {
  case 0: /* a dup, every other time a dup with hints, every fourth a non-blocking dup (SMPI sends
           * its own messages for all three) */
    if (k % 24 == 12) {
      MPI_Request req;
      MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &req));
      MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      CHECK(req == MPI_REQUEST_NULL, "MPI_Wait leaves the idup's request set");
      run_and_free(&a, k, "non-blocking dup of WORLD");
    } else if (k % 12 == 6) {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
      MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &a));
      MPI_Info_free(&info);
      run_and_free(&a, k, "dup of WORLD with an info");
    } else {
      MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
      run_and_free(&a, k, "dup of WORLD");
    }
    break;
  case 1: /* all ranks, reversed and rotated */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, (n - r + k) % n, &a));
    run_and_free(&a, k, "split of WORLD, one color, rotated reversed keys");
    break;
  case 2: /* two colors with reversed keys, then halves of them; rank 0 sometimes left out */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, (k % 12 == 8 && r == 0) ? MPI_UNDEFINED : r % 2, n - r, &a));
    if (k % 12 == 8 && r == 0)
      CHECK(a == MPI_COMM_NULL, "split with MPI_UNDEFINED did not give MPI_COMM_NULL");
    if (a != MPI_COMM_NULL) {
      int ar_, as;
      MPI_Comm_rank(a, &ar_);
      MPI_Comm_size(a, &as);
      MPI_OK(MPI_Comm_split(a, ar_ < as / 2, as - ar_, &b));
      run_and_free(&a, k, "split of WORLD by parity, reversed keys"); /* the parent goes first */
      run_and_free(&b, k, "split of that split in halves, reversed keys");
    }
    break;
  case 3: { /* create over a rotated group, missing one rank when there are more than 2 */
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int m = n > 2 ? n - 1 : n, *ranks = malloc(sizeof(int) * (size_t)m);
    for (int i = 0; i < m; i++)
      ranks[i] = (i + k) % n;
    MPI_Group_incl(wg, m, ranks, &g);
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, g, &a));
    int in = 0;
    for (int i = 0; i < m; i++)
      in |= ranks[i] == r;
    CHECK(in == (a != MPI_COMM_NULL), "MPI_Comm_create: member %d, handle %s", in, a == MPI_COMM_NULL ? "null" : "set");
    run_and_free(&a, k, "create over a rotated group");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(ranks);
    break;
  }
  case 4: { /* create_group: evens and odds at the same time, each in reverse order */
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int m = 0, *ranks = malloc(sizeof(int) * (size_t)n);
    for (int i = n - 1; i >= 0; i--)
      if (i % 2 == r % 2)
        ranks[m++] = i;
    MPI_Group_incl(wg, m, ranks, &g);
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 100 + k, &a));
    run_and_free(&a, k, "create_group of my parity, reversed");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(ranks);
    break;
  }
  case 5: /* a chain: dup, split of the dup (parent freed first), dup of the split */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_split(a, 0, (r * 5 + k) % n, &b)); /* equal keys keep the parent's order */
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_dup(b, &c));
    run_and_free(&b, k, "split of a freed dup");
    run_and_free(&c, k, "dup of that split");
    break;
  }
}

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  int n = suite_size, r = suite_rank;

  /* the reproduction, exactly (the argument `no-repro` skips it, to see what else fails
   * when it does not pass) */
  if (!(argc > 1 && strcmp(argv[1], "no-repro") == 0)) {
    suite_step("first step: Allreduce on a dup, then on a reversed split");
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    ar(c);
    MPI_Comm_free(&c);
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - r, &c);
    ar(c);
    MPI_Comm_free(&c);
  }

  /* a long-lived communicator used between the cycles, while handles come and go */
  MPI_Comm keep;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, n - r, &keep));
  for (int k = 0; k < 60; k++) {
    cycle(k);
    if (k % 10 == 9) {
      struct comm kk;
      describe(&kk, keep, 1000 + k);
      suite_step("cycle %d: long-lived reversed split", k);
      battery(&kk);
      free(kk.w);
    }
  }
  MPI_OK(MPI_Comm_free(&keep));

  /* MPI_COMM_WORLD and MPI_COMM_SELF themselves */
  struct comm w;
  describe(&w, MPI_COMM_WORLD, 2000);
  suite_step("MPI_COMM_WORLD");
  battery(&w);
  free(w.w);
  describe(&w, MPI_COMM_SELF, 2001);
  suite_step("MPI_COMM_SELF");
  battery(&w);
  free(w.w);

  /* MPI_Comm_idup does not block: rank 0 receives from every other rank before it calls it, the
   * others call it first and send afterwards (a duplication at the call deadlocks); two idups of
   * two communicators are waited for in the reverse order, one by MPI_Test in a loop */
  suite_step("MPI_Comm_idup overlapping point-to-point");
  MPI_Comm d1, d2;
  MPI_Request q[2];
  int token = r;
  if (r == 0) {
    for (int i = 1; i < n; i++)
      MPI_OK(MPI_Recv(&token, 1, MPI_INT, i, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &q[0]));
    MPI_OK(MPI_Comm_idup(MPI_COMM_SELF, &d2, &q[1]));
  } else {
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &q[0]));
    MPI_OK(MPI_Comm_idup(MPI_COMM_SELF, &d2, &q[1]));
    MPI_OK(MPI_Ssend(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
  }
  int flag = 0;
  time_t t0 = 0;
  while (!flag) {
    suite_poll(&t0, "MPI_Test of an MPI_Comm_idup");
    MPI_OK(MPI_Test(&q[1], &flag, MPI_STATUS_IGNORE));
  }
  MPI_OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
  int sum = -1, one = -1, me1 = -1;
  MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, d1));
  MPI_OK(MPI_Comm_size(d2, &one));
  MPI_OK(MPI_Comm_rank(d1, &me1));
  CHECK(sum == n * (n - 1) / 2 && one == 1 && me1 == r, "idup: sum %d, self size %d, rank %d", sum, one, me1);
  MPI_OK(MPI_Comm_free(&d1));
  MPI_OK(MPI_Comm_free(&d2));

  /* idups of two communicators started in opposite orders by even and odd ranks (MPI orders
   * collectives per communicator only), completed together */
  suite_step("MPI_Comm_idup of two communicators in opposite orders");
  MPI_Comm a, b, da, db;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
  if (r % 2 == 0) {
    MPI_OK(MPI_Comm_idup(a, &da, &q[0]));
    MPI_OK(MPI_Comm_idup(b, &db, &q[1]));
  } else {
    MPI_OK(MPI_Comm_idup(b, &db, &q[1]));
    MPI_OK(MPI_Comm_idup(a, &da, &q[0]));
  }
  MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
  int sa = -1, sb = -1;
  MPI_OK(MPI_Allreduce(&r, &sa, 1, MPI_INT, MPI_SUM, da));
  MPI_OK(MPI_Allreduce(&r, &sb, 1, MPI_INT, MPI_MAX, db));
  CHECK(sa == n * (n - 1) / 2 && sb == n - 1, "idups in opposite orders: sum %d, max %d", sa, sb);
  MPI_OK(MPI_Comm_free(&da));
  MPI_OK(MPI_Comm_free(&db));
  MPI_OK(MPI_Comm_free(&a));
  MPI_OK(MPI_Comm_free(&b));
  return suite_finish();
}
