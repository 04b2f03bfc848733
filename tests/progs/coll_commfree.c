/* Communicators created and freed in cycles (dup, reordered split, sub-communicators,
 * MPI_Comm_create on a reversed subgroup) with every collective on each, so that new
 * communicators land on the addresses of freed ones; plus the reported reproducer (an
 * allreduce on a dup, freed, then on a reordered split: it deadlocked on a stale shadow).
 * Also checks that the collectives' internal shadows run no user attribute callback.
 * Prints "No Errors" and exits 0 when every result is right. */
#include <stdlib.h>
#include <string.h>

#include "coll_check.h"

/* The reproducer, as reported. */
static void ar(MPI_Comm c)
{
  int s, a[64], b[64];
  MPI_Comm_size(c, &s);
  for (int i = 0; i < 2 * s; i++)
    a[i] = i;
  MPI_Allreduce(a, b, 2 * s, MPI_INT, MPI_SUM, c);
  for (int i = 0; i < 2 * s; i++)
    CHECK(b[i] == s * i, "repro allreduce b[%d] = %d, expected %d", i, b[i], s * i);
}

/* Value rank SRC sends rank DST in exchange K under SALT. */
static int val(int src, int dst, int k, int salt) { return 1000000 * (salt % 50) + 10000 * src + 100 * dst + k; }

static void check_all(MPI_Comm c, int salt)
{
  int n, r;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  int *a = malloc(64 * sizeof *a * (size_t)n), *b = malloc(64 * sizeof *b * (size_t)n);
  int *cnt = malloc(4 * sizeof *cnt * (size_t)n), *dsp = cnt + n, *cnt2 = cnt + 2 * n, *dsp2 = cnt + 3 * n;

  MPI_Barrier(c);

  for (int root = 0; root < n; root++) {
    int v[3] = {-1, -1, -1};
    if (r == root) {
      v[0] = salt;
      v[1] = root;
      v[2] = 7;
    }
    MPI_Bcast(v, 3, MPI_INT, root, c);
    CHECK(v[0] == salt && v[1] == root && v[2] == 7, "bcast root %d: %d %d %d", root, v[0], v[1], v[2]);

    int in[2] = {r + salt, 1}, out[2] = {-1, -1};
    MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, root, c);
    if (r == root)
      CHECK(out[0] == n * salt + n * (n - 1) / 2 && out[1] == n, "reduce root %d: %d %d", root, out[0], out[1]);
  }

  ar(c);

  /* reduce_scatter: block i has i + 1 ints; element j of the input is r + j */
  int total = 0;
  for (int i = 0; i < n; i++) {
    cnt[i] = i + 1;
    dsp[i] = total;
    total += i + 1;
  }
  for (int j = 0; j < total; j++)
    a[j] = r + j + salt;
  MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, c);
  for (int j = 0; j < cnt[r]; j++)
    CHECK(b[j] == n * (dsp[r] + j + salt) + n * (n - 1) / 2, "reduce_scatter [%d] = %d", j, b[j]);
  for (int j = 0; j < 2 * n; j++)
    a[j] = r * j + salt;
  MPI_Reduce_scatter_block(a, b, 2, MPI_INT, MPI_MAX, c);
  for (int j = 0; j < 2; j++)
    CHECK(b[j] == (n - 1) * (2 * r + j) + salt, "reduce_scatter_block [%d] = %d", j, b[j]);

  int one = r + 1, pre = -1;
  MPI_Scan(&one, &pre, 1, MPI_INT, MPI_SUM, c);
  CHECK(pre == (r + 1) * (r + 2) / 2, "scan %d", pre);
  pre = -1;
  MPI_Exscan(&one, &pre, 1, MPI_INT, MPI_SUM, c);
  if (r > 0)
    CHECK(pre == r * (r + 1) / 2, "exscan %d", pre);

  for (int root = 0; root < n; root += (n > 2 ? n - 1 : 1)) { /* first and last rank */
    int mine[2] = {val(r, root, 0, salt), val(r, root, 1, salt)};
    memset(b, 0xff, 2 * sizeof *b * (size_t)n);
    MPI_Gather(mine, 2, MPI_INT, b, 2, MPI_INT, root, c);
    if (r == root)
      for (int i = 0; i < n; i++)
        CHECK(b[2 * i] == val(i, root, 0, salt) && b[2 * i + 1] == val(i, root, 1, salt), "gather from %d", i);
    /* gatherv: rank i sends i % 3 ints, stored in reverse rank order */
    int off = 0;
    for (int i = n - 1; i >= 0; i--) {
      cnt[i] = i % 3;
      dsp[i] = off;
      off += cnt[i];
    }
    for (int k = 0; k < 3; k++)
      a[k] = val(r, root, k, salt);
    memset(b, 0xff, (size_t)(off + 1) * sizeof *b);
    MPI_Gatherv(a, r % 3, MPI_INT, b, cnt, dsp, MPI_INT, root, c);
    if (r == root)
      for (int i = 0; i < n; i++)
        for (int k = 0; k < cnt[i]; k++)
          CHECK(b[dsp[i] + k] == val(i, root, k, salt), "gatherv from %d [%d]", i, k);
    if (r == root)
      for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++)
          a[2 * i + k] = val(root, i, k, salt);
    int got[2] = {-1, -1};
    MPI_Scatter(a, 2, MPI_INT, got, 2, MPI_INT, root, c);
    CHECK(got[0] == val(root, r, 0, salt) && got[1] == val(root, r, 1, salt), "scatter from %d", root);
    if (r == root)
      for (int i = 0; i < n; i++)
        for (int k = 0; k < cnt[i]; k++)
          a[dsp[i] + k] = val(root, i, k, salt);
    int three[3] = {-1, -1, -1};
    MPI_Scatterv(a, cnt, dsp, MPI_INT, three, r % 3, MPI_INT, root, c);
    for (int k = 0; k < r % 3; k++)
      CHECK(three[k] == val(root, r, k, salt), "scatterv from %d [%d] = %d", root, k, three[k]);
  }

  int mine = val(r, 0, 0, salt);
  MPI_Allgather(&mine, 1, MPI_INT, b, 1, MPI_INT, c);
  for (int i = 0; i < n; i++)
    CHECK(b[i] == val(i, 0, 0, salt), "allgather [%d]", i);
  int off = 0;
  for (int i = 0; i < n; i++) {
    cnt[i] = (i + 1) % 3;
    dsp[i] = off + 1; /* a hole before each block */
    off += cnt[i] + 1;
  }
  for (int k = 0; k < 2; k++)
    a[k] = val(r, 9, k, salt);
  memset(b, 0xff, (size_t)(off + 1) * sizeof *b);
  MPI_Allgatherv(a, (r + 1) % 3, MPI_INT, b, cnt, dsp, MPI_INT, c);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < cnt[i]; k++)
      CHECK(b[dsp[i] + k] == val(i, 9, k, salt), "allgatherv from %d [%d]", i, k);

  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      a[2 * i + k] = val(r, i, k, salt);
  MPI_Alltoall(a, 2, MPI_INT, b, 2, MPI_INT, c);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      CHECK(b[2 * i + k] == val(i, r, k, salt), "alltoall from %d [%d]", i, k);

  /* alltoallv: r sends (r + i) % 3 ints to i; blocks stored in reverse order on both sides */
  int so = 0, ro = 0;
  for (int i = n - 1; i >= 0; i--) {
    cnt[i] = (r + i) % 3;
    dsp[i] = so;
    so += cnt[i];
    cnt2[i] = (i + r) % 3;
    dsp2[i] = ro;
    ro += cnt2[i];
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < cnt[i]; k++)
      a[dsp[i] + k] = val(r, i, k, salt);
  memset(b, 0xff, (size_t)(ro + 1) * sizeof *b);
  MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt2, dsp2, MPI_INT, c);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < cnt2[i]; k++)
      CHECK(b[dsp2[i] + k] == val(i, r, k, salt), "alltoallv from %d [%d]", i, k);

  /* alltoallw: one int to each, byte displacements, reversed on the receive side */
  MPI_Datatype *ty = malloc((size_t)n * sizeof *ty);
  for (int i = 0; i < n; i++) {
    cnt[i] = 1;
    dsp[i] = i * (int)sizeof(int);
    dsp2[i] = (n - 1 - i) * (int)sizeof(int);
    ty[i] = MPI_INT;
    a[i] = val(r, i, 5, salt);
  }
  MPI_Alltoallw(a, cnt, dsp, ty, b, cnt, dsp2, ty, c);
  for (int i = 0; i < n; i++)
    CHECK(b[n - 1 - i] == val(i, r, 5, salt), "alltoallw from %d", i);

  /* non-blocking forms on the same communicator, between blocking ones */
  MPI_Request q[2];
  int s1 = r, s2 = -1, g = r == 0 ? 42 + salt : -1;
  MPI_Iallreduce(&s1, &s2, 1, MPI_INT, MPI_SUM, c, &q[0]);
  MPI_Ibcast(&g, 1, MPI_INT, 0, c, &q[1]);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  CHECK(s2 == n * (n - 1) / 2, "iallreduce %d", s2);
  CHECK(g == 42 + salt, "ibcast %d", g);
  MPI_Barrier(c);

  free(ty);
  free(a);
  free(b);
  free(cnt);
}

static int copies, deletes;

static int count_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
  (void)c;
  (void)k;
  (void)extra;
  copies++;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int k, void *v, void *extra)
{
  (void)c;
  (void)k;
  (void)v;
  (void)extra;
  deletes++;
  return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int n, r;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);

  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  ar(c);
  MPI_Comm_free(&c);
  MPI_Comm_split(MPI_COMM_WORLD, 0, n - r, &c);
  ar(c);
  MPI_Comm_free(&c);

  /* a user attribute with counting callbacks: the shadows must not trigger them */
  int key;
  MPI_Comm_create_keyval(count_copy, count_delete, &key, NULL);
  MPI_Comm keep, keep2;
  MPI_Comm_dup(MPI_COMM_WORLD, &keep);
  MPI_Comm_set_attr(keep, key, &n);

  for (int it = 0; it < 4; it++) {
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    check_all(c, 10 * it + 1);
    MPI_Comm_free(&c);

    MPI_Comm_split(MPI_COMM_WORLD, 0, n - r, &c); /* reversed */
    check_all(c, 10 * it + 2);
    MPI_Comm_free(&c);

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half); /* two sub-communicators */
    check_all(half, 10 * it + 3);

    MPI_Group wg, sub;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *ranks = malloc((size_t)n * sizeof *ranks), m = 0;
    for (int i = n - 1; i >= 0; i--)
      if (i != it % n)
        ranks[m++] = i; /* all but one, reversed */
    MPI_Group_incl(wg, m, ranks, &sub);
    MPI_Comm_create(MPI_COMM_WORLD, sub, &c);
    if (c != MPI_COMM_NULL) {
      check_all(c, 10 * it + 4);
      MPI_Comm_free(&c);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&wg);
    free(ranks);

    check_all(keep, 10 * it + 5);
    check_all(MPI_COMM_WORLD, 10 * it + 6);
    check_all(half, 10 * it + 7);
    MPI_Comm_free(&half);
  }
  /* freed by MPI_Comm_disconnect, then a new communicator (likely at the same address) */
  for (int it = 0; it < 2; it++) {
    MPI_Comm_split(MPI_COMM_WORLD, 0, it ? n - r : r, &c);
    check_all(c, 60 + it);
    MPI_Comm_disconnect(&c);
  }
  /* one-rank communicators: MPI_COMM_SELF and a singleton split (local copies only) */
  check_all(MPI_COMM_SELF, 70);
  MPI_Comm_split(MPI_COMM_WORLD, r, 0, &c);
  check_all(c, 71);
  MPI_Comm_free(&c);
  CHECK(copies == 0 && deletes == 0, "internal shadows ran user attribute callbacks: %d copies, %d deletes", copies,
        deletes);
  MPI_Comm_dup(keep, &keep2); /* copies the user attribute only */
  CHECK(copies == 1, "MPI_Comm_dup ran the copy callback %d times", copies);
  check_all(keep2, 99);
  MPI_Comm_free(&keep2);
  MPI_Comm_free(&keep);
  CHECK(deletes == 2, "freeing two communicators ran the delete callback %d times", deletes);
  MPI_Comm_free_keyval(&key);
  return finish();
}
