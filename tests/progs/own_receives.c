/* The MPI layer's own receives (MPI_Recv, MPI_Sendrecv, MPI_Sendrecv_replace and every collective
 * built from point-to-point calls) on MPI_COMM_WORLD and on a communicator split and freed: each
 * is checked, and none may be left in the progress engine at the end (--stats
 * mpi/requests_left_open). With the argument "leave-one", rank 0 also posts a receive nobody sends
 * to and never completes it: the count must then show it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, n, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, n - rank, &half);
  MPI_Comm comms[2] = {MPI_COMM_WORLD, half};
  for (int c = 0; c < 2; c++) {
    MPI_Comm comm = comms[c];
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int right = (me + 1) % size, left = (me + size - 1) % size;
    for (int it = 0; it < 50; it++) {
      int out = 100 * me + it, in = -1, io = out;
      MPI_Sendrecv(&out, 1, MPI_INT, right, it, &in, 1, MPI_INT, left, it, comm, MPI_STATUS_IGNORE);
      bad += in != 100 * left + it;
      MPI_Sendrecv_replace(&io, 1, MPI_INT, right, it, left, it, comm, MPI_STATUS_IGNORE);
      bad += io != 100 * left + it;
      if (me == 0) {
        MPI_Send(&out, 1, MPI_INT, right, 7, comm);
        MPI_Recv(&in, 1, MPI_INT, left, 7, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&in, 1, MPI_INT, left, 7, comm, MPI_STATUS_IGNORE);
        MPI_Send(&out, 1, MPI_INT, right, 7, comm);
      }
      bad += in != 100 * left + it;
      int *s = malloc((size_t)size * 64 * sizeof *s), *r = malloc((size_t)size * 64 * sizeof *r);
      int *cnt = malloc((size_t)size * sizeof *cnt), *dsp = malloc((size_t)size * sizeof *dsp);
      int blk = 1 + it % 64; /* short and longer blocks: Bruck, batched and pairwise */
      for (int p = 0; p < size; p++) {
        cnt[p] = blk;
        dsp[p] = p * blk;
        for (int k = 0; k < blk; k++)
          s[p * blk + k] = me * 1000 + p * 10 + k % 10;
      }
      MPI_Alltoall(s, blk, MPI_INT, r, blk, MPI_INT, comm);
      for (int p = 0; p < size; p++)
        bad += r[p * blk] != p * 1000 + me * 10;
      memset(r, 0, (size_t)size * 64 * sizeof *r);
      MPI_Alltoallv(s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, comm);
      for (int p = 0; p < size; p++)
        bad += r[p * blk] != p * 1000 + me * 10;
      MPI_Allgather(&out, 1, MPI_INT, r, 1, MPI_INT, comm);
      for (int p = 0; p < size; p++)
        bad += r[p] != 100 * p + it;
      int sum = 0, want = 0;
      for (int p = 0; p < size; p++)
        want += 100 * p + it;
      MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, comm);
      bad += sum != want;
      int root = it % size, b = me == root ? 4242 + it : -1;
      MPI_Bcast(&b, 1, MPI_INT, root, comm);
      bad += b != 4242 + it;
      MPI_Gather(&out, 1, MPI_INT, r, 1, MPI_INT, root, comm);
      for (int p = 0; me == root && p < size; p++)
        bad += r[p] != 100 * p + it;
      free(s), free(r), free(cnt), free(dsp);
    }
  }
  MPI_Comm_free(&half);
  MPI_Request open;
  int never;
  if (argc > 1 && !strcmp(argv[1], "leave-one") && rank == 0)
    MPI_Irecv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &open);
  int total = 0;
  MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("own_receives: %d wrong\n", total);
  MPI_Finalize();
  return 0;
}
