/* MPI_Allreduce latency on floats (sum): sizes in bytes, from 4. */
#include <mpi.h>
#include <stdio.h>

#include "osu_collective.h"

struct ctx {
  float *sbuf, *rbuf;
};

static void allreduce(size_t size, void *p)
{
  struct ctx *c = p;
  MPI_Allreduce(c->sbuf, c->rbuf, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, status;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  struct osu_opts o = {4, 1 << 20, 1000, 100, 200, 10, 0, 0, 0};
  if (osu_parse(argc, argv, &o, "osu_allreduce", 0, &status)) {
    MPI_Finalize();
    return status;
  }
  if (o.min_size < sizeof(float))
    o.min_size = sizeof(float);
  struct ctx c = {osu_buffer(o.max_size, 0), osu_buffer(o.max_size, 0)};
  osu_collective_loop(&o, rank, np, "Allreduce", allreduce, &c);
  osu_free(c.sbuf);
  osu_free(c.rbuf);
  MPI_Finalize();
  return 0;
}
