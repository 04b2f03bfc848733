/* All-to-all as in Peryshkova and Kurnosov (2018): in blocks of BLOCK partners, post the
 * receives from (rank + i + ii) % p, then the sends to (rank - i - ii + p) % p, and wait for
 * all of them; with --mpi the library's MPI_Alltoall instead. Prints the mean time of one
 * all-to-all of SIZE bytes per pair (the slowest rank's time, averaged over iterations). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void alltoall_block(const char *sbuf, size_t scount, char *rbuf, size_t rcount, int block, MPI_Comm comm)
{
  int p, rank;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &rank);
  MPI_Request *req = malloc(2 * (size_t)block * sizeof *req);
  for (int ii = 0; ii < p; ii += block) {
    int ss = p - ii < block ? p - ii : block;
    for (int i = 0; i < ss; i++) {
      int src = (rank + i + ii) % p;
      MPI_Irecv(rbuf + (size_t)src * rcount, (int)rcount, MPI_BYTE, src, 0, comm, &req[i]);
    }
    for (int i = 0; i < ss; i++) {
      int dst = (rank - i - ii + p) % p;
      MPI_Isend(sbuf + (size_t)dst * scount, (int)scount, MPI_BYTE, dst, 0, comm, &req[ss + i]);
    }
    MPI_Waitall(2 * ss, req, MPI_STATUSES_IGNORE);
  }
  free(req);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, block = 1, iters = 5, use_mpi = 0;
  size_t size = 1 << 20;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-m") && i + 1 < argc)
      size = (size_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "-b") && i + 1 < argc)
      block = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-i") && i + 1 < argc)
      iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--mpi"))
      use_mpi = 1;
    else {
      if (rank == 0)
        printf("usage: %s [-m BYTES per pair (default 1 MiB)] [-b BLOCK (default 1)] [-i ITERS] [--mpi]\n", argv[0]);
      MPI_Finalize();
      return strcmp(argv[i], "-h") ? 2 : 0;
    }
  }
  if (block < 1 || iters < 1) {
    if (rank == 0)
      fprintf(stderr, "alltoall_block: -b and -i must be at least 1\n");
    MPI_Finalize();
    return 2;
  }
  char *sbuf = malloc(size * (size_t)np), *rbuf = malloc(size * (size_t)np);
  memset(sbuf, rank, size * (size_t)np);
  double total = 0;
  for (int it = 0; it <= iters; it++) { /* iteration 0 warms up */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (use_mpi)
      MPI_Alltoall(sbuf, (int)size, MPI_BYTE, rbuf, (int)size, MPI_BYTE, MPI_COMM_WORLD);
    else
      alltoall_block(sbuf, size, rbuf, size, block, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (it > 0)
      total += tmax;
  }
  if (rank == 0)
    printf("# all-to-all (%s), %d ranks, %zu bytes per pair\n# ranks  time (s)\n%-8d %.6f\n",
           use_mpi ? "MPI_Alltoall" : "block algorithm", np, size, np, total / iters);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
