/* MPI_Alltoall latency, measured as OSU Micro-Benchmarks 7.2's osu_alltoall measures it
 * (osu_collective.h): SIZE bytes to every rank, MPI_CHAR by default (-T for another type). */
#include <mpi.h>
#include <stdio.h>

#include "osu_collective.h"

struct ctx {
  void *sbuf, *rbuf;
  MPI_Datatype type;
};

static void alltoall(int count, void *p)
{
  struct ctx *c = p;
  MPI_Alltoall(c->sbuf, count, c->type, c->rbuf, count, c->type, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, np, status, type_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  struct osu_opts o = OSU_COLLECTIVE_OPTS;
  struct osu_coll_opts co = {0, NULL};
  struct ctx c;
  const char *type_name;
  if (osu_parse_coll(argc, argv, &o, &co, "osu_alltoall", &status) ||
      (status = osu_collective_type(&co, rank, "osu_alltoall", &c.type, &type_name))) {
    MPI_Finalize();
    return status;
  }
  MPI_Type_size(c.type, &type_size);
  osu_collective_mem_limit(&o, rank, (size_t)np);
  c.sbuf = osu_buffer(o.max_size * (size_t)np, 1);
  c.rbuf = osu_buffer(o.max_size * (size_t)np, 0);
  osu_collective_loop(&o, &co, rank, np, "All-to-All", type_name, type_size, alltoall, &c);
  osu_free(c.sbuf);
  osu_free(c.rbuf);
  MPI_Finalize();
  return 0;
}
