/* One-sided latency: rank 0 puts (or gets, with -g) SIZE bytes into rank 1's window, -W times
 * per epoch (default 1), and both close the epoch with MPI_Win_fence; latency = time per
 * operation, the fence included (OSU "fence" flavour). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "osu_util.h"

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, status, get = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  /* -g (get instead of put) is ours; the rest are the usual options */
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-g")) {
      get = 1;
      for (int j = i; j + 1 < argc; j++)
        argv[j] = argv[j + 1];
      argc--;
      i--;
    }
  struct osu_opts o = {1, 1 << 20, 1000, 100, 100, 10, 1, 0, 0};
  if (osu_parse(argc, argv, &o, "osu_put_latency", 1, &status)) {
    MPI_Finalize();
    return status;
  }
  if ((status = osu_need_ranks(rank, np, 2, "osu_put_latency"))) {
    MPI_Finalize();
    return status;
  }
  char *win_buf = osu_buffer(o.max_size, 'w'), *buf = osu_buffer(o.max_size, 'a');
  MPI_Win win;
  MPI_Win_create(win_buf, (MPI_Aint)o.max_size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  if (rank == 0)
    printf("# icsim OSU-style MPI_%s latency test (fence)\n# Size          Latency (us)\n", get ? "Get" : "Put");
  for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
    int iters = osu_iters(&o, size), skip = osu_skip(&o, size);
    double start = 0;
    MPI_Win_fence(0, win);
    for (int i = 0; i < iters + skip; i++) {
      if (i == skip)
        start = MPI_Wtime();
      for (int w = 0; rank == 0 && w < o.window; w++) {
        if (get)
          MPI_Get(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
        else
          MPI_Put(buf, (int)size, MPI_CHAR, 1, 0, (int)size, MPI_CHAR, win);
      }
      MPI_Win_fence(0, win);
    }
    if (rank == 0)
      printf("%-10zu%18.2f\n", size, (MPI_Wtime() - start) * 1e6 / ((double)iters * o.window));
    fflush(stdout);
  }
  MPI_Win_free(&win);
  osu_free(win_buf);
  osu_free(buf);
  MPI_Finalize();
  return 0;
}
