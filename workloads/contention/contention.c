/* The contention benchmark of Peryshkova and Kurnosov (2018): every participating process
 * times Irecv + Isend + Waitall of m bytes with its partner; t(m) = total / (2 x nruns).
 * Which channel the transfers share, and how many of them (cf), is chosen by placement:
 *   -P self   each process sends to itself: a copy through its socket's memory controller
 *   -P half   rank r exchanges with r + p/2: place the halves on two sockets (QPI) or two
 *             nodes (NIC and network); cf = p/2 transfers leave each side
 * For each size it first runs the first process (self) or first pair (half) alone, giving
 * t(m, 1), then all at once, giving t(m, cf); it prints both and the slowdown.
 * Ordinary MPI: builds with mpicc too. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double exchange(char *sbuf, char *rbuf, size_t m, int peer, int nruns, int active)
{
  MPI_Request req[2];
  double t = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (!active)
    return 0;
  MPI_Irecv(rbuf, (int)m, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]); /* warm-up */
  MPI_Isend(sbuf, (int)m, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  for (int i = 0; i < nruns; i++) {
    t -= MPI_Wtime();
    MPI_Irecv(rbuf, (int)m, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, (int)m, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    t += MPI_Wtime();
  }
  return t / (2.0 * nruns);
}

static void usage(const char *me)
{
  printf("usage: %s [-P self|half] [-m MB[,MB...]] [-n NRUNS]\n"
         "  -P  partner: self (memory controller test) or half (rank r <-> r + p/2; default)\n"
         "  -m  message sizes in MB (default 4,8,16,32,64,128)\n"
         "  -n  timed exchanges per size (default 10)\n",
         me);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, half = 1, nruns = 10;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  double sizes[32] = {4, 8, 16, 32, 64, 128};
  int nsizes = 6;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h")) {
      if (rank == 0)
        usage(argv[0]);
      MPI_Finalize();
      return 0;
    } else if (!strcmp(argv[i], "-P") && i + 1 < argc) {
      half = !strcmp(argv[++i], "half");
    } else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
      nruns = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
      nsizes = 0;
      for (char *tok = strtok(argv[++i], ","); tok && nsizes < 32; tok = strtok(NULL, ","))
        sizes[nsizes++] = atof(tok);
    } else {
      if (rank == 0)
        usage(argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  if ((half && np % 2) || nruns < 1 || nsizes == 0) {
    if (rank == 0)
      fprintf(stderr, "contention: -P half needs an even number of ranks, -n at least 1\n");
    MPI_Finalize();
    return 2;
  }
  int peer = half ? (rank + np / 2) % np : rank;
  int cf = half ? np / 2 : np;
  int first = half ? (rank == 0 || rank == np / 2) : rank == 0;
  double maxm = 0;
  for (int s = 0; s < nsizes; s++)
    if (sizes[s] > maxm)
      maxm = sizes[s];
  size_t bytes = (size_t)(maxm * 1048576.0);
  char *sbuf = malloc(bytes ? bytes : 1), *rbuf = malloc(bytes ? bytes : 1);
  memset(sbuf, 1, bytes);
  memset(rbuf, 0, bytes);
  /* The paper runs each measurement with all its cf processes starting alike; here one program
   * measures t(m, 1) and then t(m, cf). The run alone gets buffers of its own, so that in the
   * run together no process finds its buffers already set up for RDMA by an earlier run (an
   * RDMA MPI registers a buffer on first use and caches it): every warm-up does the same work. */
  char *sbuf1 = first ? malloc(bytes ? bytes : 1) : NULL, *rbuf1 = first ? malloc(bytes ? bytes : 1) : NULL;
  if (first) {
    memset(sbuf1, 1, bytes);
    memset(rbuf1, 0, bytes);
  }
  if (rank == 0)
    printf("# contention benchmark: partner %s, cf = %d, %d runs\n# m(MB)  cf   t(m,1) (us)   t(m,cf) (us)   t(m,cf)/t(m,1)\n",
           half ? "r + p/2" : "self", cf, nruns);
  for (int s = 0; s < nsizes; s++) {
    size_t m = (size_t)(sizes[s] * 1048576.0);
    double alone = exchange(sbuf1, rbuf1, m, peer, nruns, first);
    double shared = exchange(sbuf, rbuf, m, peer, nruns, 1), sum;
    MPI_Reduce(&shared, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double mean = sum / np; /* every process runs the loop: the mean of their times */
      printf("%-8g %3d %13.2f %14.2f %16.3f\n", sizes[s], cf, alone * 1e6, mean * 1e6, mean / alone);
      fflush(stdout);
    }
  }
  free(sbuf);
  free(rbuf);
  free(sbuf1);
  free(rbuf1);
  MPI_Finalize();
  return 0;
}
