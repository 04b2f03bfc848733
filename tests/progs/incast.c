/* An incast: `incast BYTES` has every rank but 0 send BYTES to rank 0 at once (rank 0 posts all its
 * receives first, then a barrier releases the senders together) and prints
 * "incast SENDERS BYTES <rank 0's simulated seconds from the release to the last arrival>" and
 * "No Errors" when every byte arrived as sent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, n, errors = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (argc != 2 || n < 2) {
    if (me == 0)
      fprintf(stderr, "usage: incast BYTES (on 2 or more ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long b = atol(argv[1]);
  unsigned char *buf = malloc((size_t)b * (size_t)n + 1);
  if (me == 0) {
    MPI_Request *rq = malloc((size_t)n * sizeof *rq);
    for (int i = 1; i < n; i++)
      MPI_Irecv(buf + (size_t)i * (size_t)b, (int)b, MPI_BYTE, i, 0, MPI_COMM_WORLD, &rq[i - 1]);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Waitall(n - 1, rq, MPI_STATUSES_IGNORE);
    double t = MPI_Wtime() - t0;
    for (int i = 1; i < n; i++)
      for (long k = 0; k < b; k++)
        errors += buf[(size_t)i * (size_t)b + (size_t)k] != (unsigned char)(i * 31 + k);
    printf("incast %d %ld %.9f\n", n - 1, b, t);
    printf(errors ? "%d Errors\n" : "No Errors\n", errors);
    free(rq);
  } else {
    for (long k = 0; k < b; k++)
      buf[k] = (unsigned char)(me * 31 + k);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(buf, (int)b, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
