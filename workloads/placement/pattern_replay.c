/* Replays a recorded communication pattern (`--set smpo/record-pattern=FILE`: "src dst messages
 * bytes" per rank pair) so that `icsim place --pattern-file` can time one rank -> module mapping.
 * Each pair's messages are sent in rounds: in round k every pair with more than k messages sends
 * one of its mean size (bytes / messages), all rounds' sends and receives posted together and
 * completed before the next round. Only the traffic is replayed, not the program's computation or
 * its ordering: the time compares mappings, it does not predict the program.
 * usage: pattern_replay FILE     prints "# ..." then one line: ranks and the time in seconds */
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pair {
  int src, dst;
  long messages, size;
};

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
  if (!f) {
    if (rank == 0)
      fprintf(stderr, "usage: pattern_replay PATTERN_FILE (from --set smpo/record-pattern=FILE)%s%s\n",
              argc == 2 ? ": cannot read " : "", argc == 2 ? argv[1] : "");
    MPI_Finalize();
    return 2;
  }
  struct pair *pr = NULL;
  int n = 0;
  long rounds = 0, biggest = 1;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    int s, d;
    double m, b;
    if (line[0] == '#' || sscanf(line, "%d %d %lf %lf", &s, &d, &m, &b) != 4)
      continue;
    if (s < 0 || d < 0 || s >= np || d >= np || m < 1) {
      if (rank == 0)
        fprintf(stderr, "pattern_replay: %s: pair %d -> %d does not fit %d ranks\n", argv[1], s, d, np);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    pr = realloc(pr, (size_t)(n + 1) * sizeof *pr);
    double size = fmin(round(b / m), (double)INT_MAX);
    pr[n++] = (struct pair){s, d, (long)m, (long)size};
    rounds = (long)m > rounds ? (long)m : rounds;
    biggest = (long)size > biggest ? (long)size : biggest;
  }
  fclose(f);
  int incoming = 0; /* receive buffers for this rank's incoming pairs only */
  for (int i = 0; i < n; i++)
    incoming += pr[i].dst == rank;
  char *sbuf = calloc((size_t)biggest, 1), *rbuf = malloc((size_t)biggest * (size_t)(incoming ? incoming : 1));
  MPI_Request *rq = malloc((size_t)(2 * n + 1) * sizeof *rq);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long k = 0; k < rounds; k++) {
    int nr = 0, in = 0;
    for (int i = 0; i < n; i++) {
      int mine = pr[i].dst == rank;
      in += mine;
      if (pr[i].messages <= k)
        continue;
      if (mine) /* each pair its own receive buffer and tag: no mismatching */
        MPI_Irecv(rbuf + (size_t)(in - 1) * (size_t)biggest, (int)pr[i].size, MPI_BYTE, pr[i].src, i, MPI_COMM_WORLD, &rq[nr++]);
      if (pr[i].src == rank)
        MPI_Isend(sbuf, (int)pr[i].size, MPI_BYTE, pr[i].dst, i, MPI_COMM_WORLD, &rq[nr++]);
    }
    MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
  }
  double t = MPI_Wtime() - t0, tmax;
  MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("# pattern replay of %s: %d pairs, %ld rounds\n# ranks  time (s)\n%-8d %.9f\n", argv[1], n, rounds, np,
           tmax);
  free(pr);
  free(sbuf);
  free(rbuf);
  free(rq);
  MPI_Finalize();
  return 0;
}
