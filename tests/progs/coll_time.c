/* One collective, timed: `coll_time NAME BYTES ITERS` runs MPI_<NAME> ITERS times on BYTES per
 * block (all-to-all, all-gather, gather, scatter: bytes per rank's block; broadcast, reduce,
 * all-reduce: the vector, in ints for the reductions), checks every result and prints
 * "NAME BYTES <slowest rank's simulated seconds>" and "No Errors". Built twice: with icsimcc
 * (the MPI layer's algorithms) and with plain smpicc (SimGrid's own), for test_coll_mpich. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;
#define CHECK(cond, ...)                                                                                               \
  do {                                                                                                                 \
    if (!(cond) && errors++ < 5) {                                                                                     \
      fprintf(stderr, "rank %d: ", me);                                                                                \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
    }                                                                                                                  \
  } while (0)

static unsigned char pat(int from, int to, long k) { return (unsigned char)(from * 7 + to * 13 + k); }

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc != 4) {
    if (me == 0)
      fprintf(stderr, "usage: coll_time NAME BYTES ITERS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *name = argv[1];
  long b = atol(argv[2]);
  int iters = atoi(argv[3]), ints = (int)(b / (long)sizeof(int));
  unsigned char *s = malloc((size_t)b * n + 1), *r = malloc((size_t)b * n + 1);
  int *counts = malloc((size_t)n * 2 * sizeof *counts), *displs = counts + n;
  int *vi = malloc((size_t)ints * sizeof *vi + 1), *vo = malloc((size_t)ints * sizeof *vo + 1);
  for (int i = 0; i < n; i++) {
    counts[i] = (int)b;
    displs[i] = i * (int)b;
  }
  int root = 1 % n;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int it = 0; it < iters; it++) {
    if (!strcmp(name, "alltoall") || !strcmp(name, "alltoallv")) {
      for (int j = 0; j < n; j++)
        for (long k = 0; k < b; k++)
          s[j * b + k] = pat(me, j, k);
      if (name[8] == 'v')
        MPI_Alltoallv(s, counts, displs, MPI_BYTE, r, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
      else
        MPI_Alltoall(s, (int)b, MPI_BYTE, r, (int)b, MPI_BYTE, MPI_COMM_WORLD);
      for (int j = 0; j < n; j++)
        for (long k = 0; k < b; k++)
          CHECK(r[j * b + k] == pat(j, me, k), "%s block from %d byte %ld", name, j, k);
    } else if (!strcmp(name, "allgather") || !strcmp(name, "allgatherv")) {
      for (long k = 0; k < b; k++)
        s[k] = pat(me, 0, k);
      if (name[9] == 'v')
        MPI_Allgatherv(s, (int)b, MPI_BYTE, r, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
      else
        MPI_Allgather(s, (int)b, MPI_BYTE, r, (int)b, MPI_BYTE, MPI_COMM_WORLD);
      for (int j = 0; j < n; j++)
        for (long k = 0; k < b; k++)
          CHECK(r[j * b + k] == pat(j, 0, k), "%s block of %d byte %ld", name, j, k);
    } else if (!strcmp(name, "gather") || !strcmp(name, "scatter")) {
      if (name[0] == 'g') {
        for (long k = 0; k < b; k++)
          s[k] = pat(me, 0, k);
        MPI_Gather(s, (int)b, MPI_BYTE, r, (int)b, MPI_BYTE, root, MPI_COMM_WORLD);
        for (int j = 0; me == root && j < n; j++)
          for (long k = 0; k < b; k++)
            CHECK(r[j * b + k] == pat(j, 0, k), "gather block of %d byte %ld", j, k);
      } else {
        for (int j = 0; me == root && j < n; j++)
          for (long k = 0; k < b; k++)
            s[j * b + k] = pat(0, j, k);
        MPI_Scatter(s, (int)b, MPI_BYTE, r, (int)b, MPI_BYTE, root, MPI_COMM_WORLD);
        for (long k = 0; k < b; k++)
          CHECK(r[k] == pat(0, me, k), "scatter byte %ld", k);
      }
    } else if (!strcmp(name, "bcast")) {
      for (long k = 0; k < b; k++)
        s[k] = me == root ? pat(root, it, k) : 0;
      MPI_Bcast(s, (int)b, MPI_BYTE, root, MPI_COMM_WORLD);
      for (long k = 0; k < b; k++)
        CHECK(s[k] == pat(root, it, k), "bcast byte %ld", k);
    } else if (!strcmp(name, "allreduce") || !strcmp(name, "reduce")) {
      for (int k = 0; k < ints; k++)
        vi[k] = me + k;
      int at = name[0] == 'a' ? -1 : n - 1;
      if (at < 0)
        MPI_Allreduce(vi, vo, ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      else
        MPI_Reduce(vi, vo, ints, MPI_INT, MPI_SUM, at, MPI_COMM_WORLD);
      for (int k = 0; (at < 0 || me == at) && k < ints; k++)
        CHECK(vo[k] == n * (n - 1) / 2 + n * k, "%s element %d: %d", name, k, vo[k]);
    } else if (!strcmp(name, "barrier")) {
      MPI_Barrier(MPI_COMM_WORLD);
    } else {
      if (me == 0)
        fprintf(stderr, "coll_time: unknown collective '%s'\n", name);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  double mine = MPI_Wtime() - t0, slowest;
  int all_errors;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (me == 0) {
    printf("%s %ld %.9f\n", name, b, slowest);
    if (all_errors)
      printf("Found %d errors\n", all_errors);
    else
      printf("No Errors\n");
  }
  free(s);
  free(r);
  free(counts);
  free(vi);
  free(vo);
  MPI_Finalize();
  return 0;
}
