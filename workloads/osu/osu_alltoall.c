/* MPI_Alltoall latency: SIZE bytes to every rank, averaged over ranks and iterations. */
#include <mpi.h>
#include <stdio.h>

#include "osu_collective.h"

struct ctx {
  char *sbuf, *rbuf;
};

static void alltoall(size_t size, void *p)
{
  struct ctx *c = p;
  MPI_Alltoall(c->sbuf, (int)size, MPI_CHAR, c->rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, status;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  struct osu_opts o = {1, 1 << 20, 1000, 100, 200, 10, 0, 0, 0};
  if (osu_parse(argc, argv, &o, "osu_alltoall", 0, &status)) {
    MPI_Finalize();
    return status;
  }
  if (o.min_size == 0)
    o.min_size = 1;
  struct ctx c = {osu_buffer(o.max_size * (size_t)np, 'a'), osu_buffer(o.max_size * (size_t)np, 'b')};
  osu_collective_loop(&o, rank, np, "All-to-All", alltoall, &c);
  osu_free(c.sbuf);
  osu_free(c.rbuf);
  MPI_Finalize();
  return 0;
}
