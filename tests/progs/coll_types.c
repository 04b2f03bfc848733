/* Collectives with derived datatypes (strided, lower bound != 0 with holes, absolute addresses
 * from MPI_BOTTOM), MPI_IN_PLACE wherever MPI allows it, a predefined op on a derived datatype
 * and a user-defined non-commutative op (2x2 matrix product mod 101), every result checked
 * against a serial computation. Prints "No Errors" and exits 0 when all are right. */
#include <stdlib.h>
#include <string.h>

#include "coll_check.h"

#define P 101 /* matrix entries mod P */
#define K 3   /* matrices per rank in each reduction */

static MPI_Datatype mat;   /* 2x2 matrix, 4 contiguous ints */
static MPI_Datatype smat;  /* 2x2 matrix with a hole after every entry: ints 0, 2, 4, 6 of an 8-int extent */
static MPI_Datatype lbd;   /* 2 ints at byte 8: lower bound 8, extent 8 */
static MPI_Datatype lbgap; /* ints at bytes 8 and 16: lower bound 8, a hole between; used one at a time (below) */

/* Matrix j of rank r: different for every (r, j), so that the order of the product matters. */
static void mat_of(int r, int j, int m[4])
{
  m[0] = (r + j) % 7 + 1;
  m[1] = 1 + r % 2;
  m[2] = 1;
  m[3] = (r * j + 2) % 3;
}

static void mul(const int a[4], const int b[4], int c[4]) /* c = a b */
{
  int t[4] = {(a[0] * b[0] + a[1] * b[2]) % P, (a[0] * b[1] + a[1] * b[3]) % P, (a[2] * b[0] + a[3] * b[2]) % P,
              (a[2] * b[1] + a[3] * b[3]) % P};
  memcpy(c, t, sizeof t);
}

/* The product M(lo, j) M(lo + 1, j) ... M(hi, j). */
static void prod(int lo, int hi, int j, int out[4])
{
  int acc[4] = {1, 0, 0, 1}, m[4];
  for (int r = lo; r <= hi; r++) {
    mat_of(r, j, m);
    mul(acc, m, acc);
  }
  memcpy(out, acc, sizeof acc);
}

/* The user op: inout = in inout, element by element, for mat or smat layouts. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
  int s = *dt == smat ? 2 : 1, ext = *dt == smat ? 8 : 4;
  for (int i = 0; i < *len; i++) {
    int *a = (int *)in + i * ext, *b = (int *)inout + i * ext;
    int x[4] = {a[0], a[s], a[2 * s], a[3 * s]}, y[4] = {b[0], b[s], b[2 * s], b[3 * s]}, z[4];
    mul(x, y, z);
    for (int e = 0; e < 4; e++)
      b[e * s] = z[e];
  }
}

/* Store / load matrix J of an array of TYPE (mat or smat). */
static void put(int *buf, MPI_Datatype type, int j, const int m[4])
{
  int s = type == smat ? 2 : 1, ext = type == smat ? 8 : 4;
  for (int e = 0; e < 4; e++)
    buf[j * ext + e * s] = m[e];
}

static int same(const int *buf, MPI_Datatype type, int j, const int m[4])
{
  int s = type == smat ? 2 : 1, ext = type == smat ? 8 : 4;
  for (int e = 0; e < 4; e++)
    if (buf[j * ext + e * s] != m[e])
      return 0;
  return 1;
}

/* lbd element j of a buffer: ints 2 + 2 j and 3 + 2 j */
static int *lbg(int *buf, int j) { return buf + 2 + 2 * j; }

static void matrix_reductions(MPI_Comm c, MPI_Datatype type, MPI_Op op)
{
  int n, r, want[4];
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  size_t ints = 8 * (size_t)K * (size_t)(n + 1);
  int *in = calloc(ints, sizeof *in), *out = calloc(ints, sizeof *out);
  const char *tn = type == smat ? "smat" : "mat";
  for (int j = 0; j < K; j++) {
    int m[4];
    mat_of(r, j, m);
    put(in, type, j, m);
  }
  for (int root = 0; root < n; root++) {
    memset(out, 0, ints * sizeof *out);
    MPI_Reduce(in, out, K, type, op, root, c);
    if (r == root)
      for (int j = 0; j < K; j++) {
        prod(0, n - 1, j, want);
        CHECK(same(out, type, j, want), "%s reduce to %d, matrix %d", tn, root, j);
      }
    /* in place at the root */
    if (r == root)
      memcpy(out, in, ints * sizeof *out);
    MPI_Reduce(r == root ? MPI_IN_PLACE : in, r == root ? out : NULL, K, type, op, root, c);
    if (r == root)
      for (int j = 0; j < K; j++) {
        prod(0, n - 1, j, want);
        CHECK(same(out, type, j, want), "%s in-place reduce to %d, matrix %d", tn, root, j);
      }
  }
  memset(out, 0, ints * sizeof *out);
  MPI_Allreduce(in, out, K, type, op, c);
  for (int j = 0; j < K; j++) {
    prod(0, n - 1, j, want);
    CHECK(same(out, type, j, want), "%s allreduce, matrix %d", tn, j);
  }
  memcpy(out, in, ints * sizeof *out);
  MPI_Allreduce(MPI_IN_PLACE, out, K, type, op, c);
  for (int j = 0; j < K; j++) {
    prod(0, n - 1, j, want);
    CHECK(same(out, type, j, want), "%s in-place allreduce, matrix %d", tn, j);
  }
  for (int inplace = 0; inplace < 2; inplace++) {
    if (inplace)
      memcpy(out, in, ints * sizeof *out);
    MPI_Scan(inplace ? MPI_IN_PLACE : in, out, K, type, op, c);
    for (int j = 0; j < K; j++) {
      prod(0, r, j, want);
      CHECK(same(out, type, j, want), "%s scan (in place %d), matrix %d", tn, inplace, j);
    }
    memcpy(out, in, ints * sizeof *out);
    MPI_Exscan(inplace ? MPI_IN_PLACE : in, out, K, type, op, c);
    for (int j = 0; r > 0 && j < K; j++) {
      prod(0, r - 1, j, want);
      CHECK(same(out, type, j, want), "%s exscan (in place %d), matrix %d", tn, inplace, j);
    }
  }
  /* reduce_scatter: rank i gets i % 2 + 1 matrices; matrix j of the vector is M(rank, j) */
  int *counts = malloc((size_t)n * sizeof *counts), total = 0;
  for (int i = 0; i < n; i++) {
    counts[i] = i % 2 + 1;
    total += counts[i];
  }
  int *vin = calloc(8 * (size_t)total, sizeof *vin), *vout = calloc(8 * (size_t)total, sizeof *vout);
  for (int j = 0; j < total; j++) {
    int m[4];
    mat_of(r, j, m);
    put(vin, type, j, m);
  }
  int first = 0;
  for (int i = 0; i < r; i++)
    first += counts[i];
  for (int inplace = 0; inplace < 2; inplace++) {
    if (inplace)
      memcpy(vout, vin, 8 * (size_t)total * sizeof *vout);
    MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : vin, vout, counts, type, op, c);
    for (int j = 0; j < counts[r]; j++) {
      prod(0, n - 1, first + j, want);
      CHECK(same(vout, type, j, want), "%s reduce_scatter (in place %d), matrix %d", tn, inplace, j);
    }
    if (inplace)
      memcpy(vout, vin, 8 * (size_t)total * sizeof *vout);
    MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : vin, vout, 1, type, op, c);
    prod(0, n - 1, r, want);
    CHECK(same(vout, type, 0, want), "%s reduce_scatter_block (in place %d)", tn, inplace);
  }
  free(counts);
  free(vin);
  free(vout);
  free(in);
  free(out);
}

/* Predefined ops on derived datatypes with lb != 0: lbd, several elements; lbgap, with a hole,
 * one element (SMPI 3.32 serializes several elements of such a type wrongly, even point to
 * point: the next element starts where the previous one's last block ended). */
static void sum_on_lb(MPI_Comm c)
{
  int n, r;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  int in[3 * K + 4], out[3 * K + 4];
  for (int i = 0; i < 3 * K + 4; i++)
    in[i] = out[i] = -7;
  for (int j = 0; j < K; j++) {
    lbg(in, j)[0] = r + j;
    lbg(in, j)[1] = 10 * r;
  }
  MPI_Allreduce(in, out, K, lbd, MPI_SUM, c);
  for (int j = 0; j < K; j++)
    CHECK(lbg(out, j)[0] == n * (n - 1) / 2 + n * j && lbg(out, j)[1] == 5 * n * (n - 1), "lbd allreduce %d: %d %d", j,
          lbg(out, j)[0], lbg(out, j)[1]);
  CHECK(out[0] == -7 && out[1] == -7 && out[2 + 2 * K] == -7, "lbd allreduce wrote outside its data");
  MPI_Reduce(in, out, K, lbd, MPI_MAX, n - 1, c);
  if (r == n - 1)
    for (int j = 0; j < K; j++)
      CHECK(lbg(out, j)[0] == n - 1 + j && lbg(out, j)[1] == 10 * (n - 1), "lbd reduce max %d", j);
  MPI_Scan(in, out, K, lbd, MPI_SUM, c);
  for (int j = 0; j < K; j++)
    CHECK(lbg(out, j)[0] == r * (r + 1) / 2 + (r + 1) * j, "lbd scan %d: %d", j, lbg(out, j)[0]);
  for (int i = 0; i < 3 * K + 4; i++)
    in[i] = out[i] = -7;
  in[2] = r;
  in[4] = 3 * r;
  for (int inplace = 0; inplace < 2; inplace++) {
    if (inplace)
      memcpy(out, in, sizeof out);
    MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, 1, lbgap, MPI_SUM, c);
    CHECK(out[2] == n * (n - 1) / 2 && out[4] == 3 * n * (n - 1) / 2, "lbgap allreduce (in place %d): %d %d", inplace,
          out[2], out[4]);
    CHECK(out[0] == -7 && out[1] == -7 && out[3] == -7 && out[5] == -7, "lbgap allreduce wrote outside its data");
  }
  MPI_Exscan(in, out, 1, lbgap, MPI_SUM, c);
  if (r > 0)
    CHECK(out[2] == r * (r - 1) / 2 && out[4] == 3 * r * (r - 1) / 2 && out[3] == -7, "lbgap exscan %d %d", out[2],
          out[4]);
}

static void moves(MPI_Comm c)
{
  int n, r;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  size_t big = 64 * (size_t)n + 64;
  int *a = malloc(big * sizeof *a), *b = malloc(big * sizeof *b);
  int *cnt = malloc(4 * (size_t)n * sizeof *cnt), *dsp = cnt + n, *cnt2 = cnt + 2 * n, *dsp2 = cnt + 3 * n;
  MPI_Datatype *st = malloc(2 * (size_t)n * sizeof *st), *rt = st + n;
#define V(src, dst, k) (1000 * (src) + 10 * (dst) + (k))

  /* bcast of 2 strided matrices from each root */
  for (int root = 0; root < n; root++) {
    for (size_t i = 0; i < big; i++)
      a[i] = r == root ? (int)i : -1;
    MPI_Bcast(a, 2, smat, root, c);
    for (int i = 0; i < 16; i++)
      CHECK(a[i] == (i % 2 == 0 ? i : -1) || (r == root && a[i] == i), "bcast smat from %d [%d] = %d", root, i, a[i]);
  }

  for (int root = 0; root < n; root += (n > 2 ? n - 1 : 1)) {
    /* gather: each sends 2 lbd elements (4 ints), the root receives 4 MPI_INT per rank */
    for (int j = 0; j < 2; j++) {
      lbg(a, j)[0] = V(r, root, 2 * j);
      lbg(a, j)[1] = V(r, root, 2 * j + 1);
    }
    memset(b, 0xff, big * sizeof *b);
    if (r == root)
      for (int k = 0; k < 4; k++)
        b[4 * r + k] = V(r, root, k); /* for the in-place round */
    for (int inplace = 0; inplace < 2; inplace++) {
      MPI_Gather(inplace && r == root ? MPI_IN_PLACE : a, 2, lbd, b, 4, MPI_INT, root, c);
      if (r == root)
        for (int i = 0; i < n; i++)
          for (int k = 0; k < 4; k++)
            CHECK(b[4 * i + k] == V(i, root, k), "gather lbd->int (in place %d) from %d [%d]", inplace, i, k);
    }
    /* gatherv into a strided type: rank i sends i % 2 + 1 matrices as plain ints */
    int off = 0;
    for (int i = 0; i < n; i++) {
      cnt[i] = i % 2 + 1;
      dsp[i] = off;
      off += cnt[i] + 1; /* a hole matrix after each block */
    }
    for (int j = 0; j < 8; j++)
      a[j] = V(r, root, j);
    for (int inplace = 0; inplace < 2; inplace++) {
      if (!inplace || r != root)
        memset(b, 0xff, big * sizeof *b);
      else
        for (int j = 0; j < 4 * cnt[r]; j++)
          b[8 * dsp[r] + 2 * j] = V(r, root, j);
      MPI_Gatherv(inplace && r == root ? MPI_IN_PLACE : a, 4 * (r % 2 + 1), MPI_INT, b, cnt, dsp, smat, root, c);
      if (r == root)
        for (int i = 0; i < n; i++)
          for (int j = 0; j < 4 * cnt[i]; j++)
            CHECK(b[8 * dsp[i] + 2 * j] == V(i, root, j), "gatherv int->smat (in place %d) from %d [%d]", inplace, i, j);
    }
    /* scatter: the root sends plain ints, 4 per rank; each receives 2 lbd elements */
    if (r == root)
      for (int i = 0; i < n; i++)
        for (int k = 0; k < 4; k++)
          a[4 * i + k] = V(root, i, k);
    for (int inplace = 0; inplace < 2; inplace++) {
      memset(b, 0xff, big * sizeof *b);
      MPI_Scatter(a, 4, MPI_INT, inplace && r == root ? MPI_IN_PLACE : b, 2, lbd, root, c);
      if (!(inplace && r == root))
        for (int j = 0; j < 2; j++)
          CHECK(lbg(b, j)[0] == V(root, r, 2 * j) && lbg(b, j)[1] == V(root, r, 2 * j + 1) && b[1] == -1 && b[6] == -1,
                "scatter int->lbd (in place %d) from %d", inplace, root);
      if (inplace && r == root)
        CHECK(b[0] == -1 && b[5] == -1, "in-place scatter wrote the root's receive buffer");
    }
    /* scatterv from strided matrices to plain ints */
    if (r == root)
      for (int i = 0; i < n; i++)
        for (int j = 0; j < 4 * cnt[i]; j++)
          a[8 * dsp[i] + 2 * j] = V(root, i, j);
    for (int inplace = 0; inplace < 2; inplace++) {
      memset(b, 0xff, big * sizeof *b);
      MPI_Scatterv(a, cnt, dsp, smat, inplace && r == root ? MPI_IN_PLACE : b, 4 * (r % 2 + 1), MPI_INT, root, c);
      if (!(inplace && r == root))
        for (int j = 0; j < 4 * cnt[r]; j++)
          CHECK(b[j] == V(root, r, j), "scatterv smat->int (in place %d) from %d [%d]", inplace, root, j);
    }
  }

  /* allgather, in place */
  memset(b, 0xff, big * sizeof *b);
  b[2 * r] = V(r, 0, 0);
  b[2 * r + 1] = V(r, 0, 1);
  MPI_Allgather(MPI_IN_PLACE, 2, MPI_INT, b, 2, MPI_INT, c); /* send arguments ignored */
  for (int i = 0; i < n; i++)
    CHECK(b[2 * i] == V(i, 0, 0) && b[2 * i + 1] == V(i, 0, 1), "in-place allgather from %d", i);
  /* allgather from one lbgap into plain ints */
  a[2] = V(r, 1, 0);
  a[4] = V(r, 1, 1);
  MPI_Allgather(a, 1, lbgap, b, 2, MPI_INT, c);
  for (int i = 0; i < n; i++)
    CHECK(b[2 * i] == V(i, 1, 0) && b[2 * i + 1] == V(i, 1, 1), "allgather lbgap->int from %d", i);
  /* allgatherv, in place, blocks of (i % 3) ints with holes */
  int off = 0;
  for (int i = 0; i < n; i++) {
    cnt[i] = i % 3;
    dsp[i] = off;
    off += cnt[i] + 2;
  }
  memset(b, 0xff, big * sizeof *b);
  for (int k = 0; k < cnt[r]; k++)
    b[dsp[r] + k] = V(r, 2, k);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, b, cnt, dsp, MPI_INT, c);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < cnt[i]; k++)
      CHECK(b[dsp[i] + k] == V(i, 2, k), "in-place allgatherv from %d [%d]", i, k);
    CHECK(b[dsp[i] + cnt[i]] == -1, "in-place allgatherv wrote a hole");
  }

  /* alltoall, in place, 3 ints per pair */
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      b[3 * i + k] = V(r, i, k);
  MPI_Alltoall(MPI_IN_PLACE, 3, MPI_INT, b, 3, MPI_INT, c);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      CHECK(b[3 * i + k] == V(i, r, k), "in-place alltoall from %d [%d] = %d", i, k, b[3 * i + k]);
  /* alltoall from strided matrices to plain ints */
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 4; k++)
      a[8 * i + 2 * k] = V(r, i, k);
  MPI_Alltoall(a, 1, smat, b, 4, MPI_INT, c);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 4; k++)
      CHECK(b[4 * i + k] == V(i, r, k), "alltoall smat->int from %d [%d]", i, k);
  /* alltoallv, in place, (r + i) % 3 ints with rank i, blocks in reverse order */
  off = 0;
  for (int i = n - 1; i >= 0; i--) {
    cnt[i] = (r + i) % 3;
    dsp[i] = off;
    off += cnt[i];
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < cnt[i]; k++)
      b[dsp[i] + k] = V(r, i, k);
  MPI_Alltoallv(MPI_IN_PLACE, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, c);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < cnt[i]; k++)
      CHECK(b[dsp[i] + k] == V(i, r, k), "in-place alltoallv from %d [%d]", i, k);
  /* alltoallw: a different datatype per peer on each side (int / lbd / smat), byte displacements */
  for (int i = 0; i < n; i++) {
    /* everything travels as 4 ints: 4 MPI_INT, 2 lbd, or 1 smat */
    int kind_s = (r + i) % 3, kind_r = (i + 2 * r) % 3;
    st[i] = kind_s == 0 ? MPI_INT : kind_s == 1 ? lbd : smat;
    cnt[i] = kind_s == 0 ? 4 : kind_s == 1 ? 2 : 1;
    dsp[i] = 64 * i * (int)sizeof(int);
    rt[i] = kind_r == 0 ? MPI_INT : kind_r == 1 ? lbd : smat;
    cnt2[i] = kind_r == 0 ? 4 : kind_r == 1 ? 2 : 1;
    dsp2[i] = 64 * (n - 1 - i) * (int)sizeof(int);
    int *blk = a + 64 * i;
    for (int k = 0; k < 4; k++) {
      int v = V(r, i, k);
      if (kind_s == 0)
        blk[k] = v;
      else if (kind_s == 1)
        lbg(blk, k / 2)[k % 2] = v;
      else
        blk[2 * k] = v;
    }
  }
  for (int inplace = 0; inplace < 2; inplace++) {
    int *src = a, *dst = b;
    if (inplace) { /* the in-place form sends with the receive side's datatypes: use the same for both */
      for (int i = 0; i < n; i++) {
        int kind = (i + 2 * r) % 3, *blk = b + 64 * (n - 1 - i);
        memset(blk, 0xff, 64 * sizeof *blk);
        for (int k = 0; k < 4; k++) {
          int v = V(r, i, k);
          if (kind == 0)
            blk[k] = v;
          else if (kind == 1)
            lbg(blk, k / 2)[k % 2] = v;
          else
            blk[2 * k] = v;
        }
      }
      MPI_Alltoallw(MPI_IN_PLACE, cnt2, dsp2, rt, dst, cnt2, dsp2, rt, c);
    } else {
      memset(b, 0xff, big * sizeof *b);
      MPI_Alltoallw(src, cnt, dsp, st, dst, cnt2, dsp2, rt, c);
    }
    for (int i = 0; i < n; i++) {
      int kind = (i + 2 * r) % 3, *blk = b + 64 * (n - 1 - i);
      for (int k = 0; k < 4; k++) {
        int got = kind == 0 ? blk[k] : kind == 1 ? lbg(blk, k / 2)[k % 2] : blk[2 * k];
        CHECK(got == V(i, r, k), "alltoallw (in place %d) from %d [%d] = %d", inplace, i, k, got);
      }
    }
  }
  free(st);
  free(cnt);
  free(a);
  free(b);
#undef V
}

/* Absolute addresses: MPI_BOTTOM with a datatype holding the buffers' addresses. */
static void bottom(MPI_Comm c)
{
  int n, r;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &r);
  int x[3] = {-1, -1, -1}, *all = malloc(3 * (size_t)n * sizeof *all);
  MPI_Aint where;
  MPI_Get_address(x, &where);
  int three = 3;
  MPI_Datatype abs_x, abs_all;
  MPI_Type_create_hindexed(1, &three, &where, MPI_INT, &abs_x);
  MPI_Type_commit(&abs_x);
  if (r == 0)
    x[0] = 5, x[1] = 6, x[2] = 7;
  MPI_Bcast(MPI_BOTTOM, 1, abs_x, 0, c);
  CHECK(x[0] == 5 && x[1] == 6 && x[2] == 7, "bcast from MPI_BOTTOM: %d %d %d", x[0], x[1], x[2]);
  x[0] = r;
  MPI_Get_address(all, &where);
  MPI_Type_create_hindexed(1, &three, &where, MPI_INT, &abs_all);
  MPI_Type_commit(&abs_all);
  /* each rank's 3 ints land at MPI_BOTTOM + i * extent(abs_all): displace by the block size */
  MPI_Datatype step;
  MPI_Type_create_resized(abs_all, 0, 3 * sizeof(int), &step);
  MPI_Type_commit(&step);
  memset(all, 0xff, 3 * (size_t)n * sizeof *all);
  MPI_Allgather(MPI_BOTTOM, 1, abs_x, MPI_BOTTOM, 1, step, c);
  for (int i = 0; i < n; i++)
    CHECK(all[3 * i] == i && all[3 * i + 1] == 6, "allgather with MPI_BOTTOM from %d: %d %d", i, all[3 * i],
          all[3 * i + 1]);
  MPI_Type_free(&step);
  MPI_Type_free(&abs_all);
  MPI_Type_free(&abs_x);
  free(all);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int n, r;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);

  MPI_Type_contiguous(4, MPI_INT, &mat);
  MPI_Type_commit(&mat);
  MPI_Datatype v;
  MPI_Type_vector(4, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 8 * sizeof(int), &smat);
  MPI_Type_commit(&smat);
  MPI_Type_free(&v);
  int two = 2, ones[2] = {1, 1};
  MPI_Aint eight = 8, gap[2] = {8, 16};
  MPI_Datatype t2 = MPI_INT;
  MPI_Type_create_struct(1, &two, &eight, &t2, &lbd);
  MPI_Type_commit(&lbd);
  MPI_Type_create_hindexed(2, ones, gap, MPI_INT, &lbgap);
  MPI_Type_commit(&lbgap);
  MPI_Op op;
  MPI_Op_create(matmul, 0, &op);

  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, n - r, &rev);
  MPI_Comm comms[2] = {MPI_COMM_WORLD, rev};
  for (int i = 0; i < 2; i++) {
    matrix_reductions(comms[i], mat, op);
    matrix_reductions(comms[i], smat, op);
    sum_on_lb(comms[i]);
    moves(comms[i]);
    bottom(comms[i]);
  }
  MPI_Comm_free(&rev);
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
  MPI_Type_free(&smat);
  MPI_Type_free(&lbgap);
  MPI_Type_free(&lbd);
  return finish();
}
