/* Matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv) around a ring, and one from
 * MPI_PROC_NULL: every rank prints its verdict, compared with native MPICH's for the program built
 * by icsimcc and for the MPICH and Open MPI binaries through the MPI-Adaptor (message handles). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size, errs = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  int out[3] = {rank, rank * 2, rank * 3}, in[3] = {-1, -1, -1};
  MPI_Request r;
  MPI_Isend(out, 3, MPI_INT, peer, 7, MPI_COMM_WORLD, &r);
  MPI_Message m;
  MPI_Status st;
  MPI_Mprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &m, &st);
  int n;
  MPI_Get_count(&st, MPI_INT, &n);
  if (st.MPI_SOURCE != from || n != 3) errs++, printf("mprobe status %d %d\n", st.MPI_SOURCE, n);
  MPI_Mrecv(in, 3, MPI_INT, &m, &st);
  if (m != MPI_MESSAGE_NULL || in[0] != from || in[2] != 3 * from) errs++, printf("mrecv\n");
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Isend(out, 3, MPI_INT, peer, 8, MPI_COMM_WORLD, &r);
  int flag = 0;
  while (!flag) MPI_Improbe(from, 8, MPI_COMM_WORLD, &flag, &m, &st);
  MPI_Request r2;
  MPI_Imrecv(in, 3, MPI_INT, &m, &r2);
  MPI_Wait(&r2, &st);
  if (in[1] != 2 * from) errs++, printf("imrecv\n");
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
  if (st.MPI_SOURCE != MPI_PROC_NULL) errs++, printf("proc null source\n");
  MPI_Mrecv(in, 3, MPI_INT, &m, &st);
  printf("rank %d: %s\n", rank, errs ? "errors" : "No Errors");
  MPI_Finalize();
  return 0;
}
