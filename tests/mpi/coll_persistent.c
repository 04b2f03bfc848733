/* Persistent collectives (MPI 4.0): MPI_Bcast_init, MPI_Allreduce_init, MPI_Alltoallv_init and
 * MPI_Barrier_init made once and started ten times each, the buffers refilled between starts (a
 * start reads them afresh), completed by MPI_Wait, MPI_Test and MPI_Waitall, two started together
 * by MPI_Startall, then freed. SimGrid 3.32 has none of them, not even in its mpi.h: the layer
 * does (sim/mpi/coll_persistent.c), and the declarations below stand in for MPI 4.0's. */
#include "suite.h"

#if MPI_VERSION < 4
int MPI_Bcast_init(void *, int, MPI_Datatype, int, MPI_Comm, MPI_Info, MPI_Request *);
int MPI_Allreduce_init(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Info, MPI_Request *);
int MPI_Alltoallv_init(const void *, const int *, const int *, MPI_Datatype, void *, const int *, const int *,
                       MPI_Datatype, MPI_Comm, MPI_Info, MPI_Request *);
int MPI_Barrier_init(MPI_Comm, MPI_Info, MPI_Request *);
#endif

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  int me = suite_rank, n = suite_size;
  int b[4], s, r;
  int *sb = malloc(sizeof(int) * (size_t)n * 2), *rb = malloc(sizeof(int) * (size_t)n * 2);
  int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
  MPI_Request bc, ar, av, br;
  suite_step("MPI_*_init");
  MPI_OK(MPI_Bcast_init(b, 4, MPI_INT, n - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bc));
  MPI_OK(MPI_Allreduce_init(&s, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar));
  for (int i = 0; i < n; i++)
    sc[i] = 1 + (i + me) % 2, sd[i] = 2 * i; /* rank i gets 1 or 2 ints from me */
  int *rc = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++)
    rc[i] = 1 + (i + me) % 2, rd[i] = 2 * i; /* what rank i sends me: 1 + (me + i) % 2 */
  MPI_OK(MPI_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &av));
  MPI_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &br));
  for (int it = 0; it < 10; it++) {
    suite_step("start %d: Bcast (Wait)", it);
    for (int k = 0; k < 4; k++)
      b[k] = me == n - 1 ? 1000 * it + k : -1;
    MPI_OK(MPI_Start(&bc));
    MPI_OK(MPI_Wait(&bc, MPI_STATUS_IGNORE));
    CHECK(bc != MPI_REQUEST_NULL, "a persistent request became MPI_REQUEST_NULL");
    for (int k = 0; k < 4; k++)
      CHECK(b[k] == 1000 * it + k, "Bcast start %d: b[%d] = %d", it, k, b[k]);

    suite_step("start %d: Allreduce (Test)", it);
    s = me + it;
    r = -1;
    MPI_OK(MPI_Start(&ar));
    int flag = 0;
    time_t t0 = 0;
    while (!flag) {
      suite_poll(&t0, "MPI_Test of a persistent allreduce");
      MPI_OK(MPI_Test(&ar, &flag, MPI_STATUS_IGNORE));
    }
    CHECK(r == n * (n - 1) / 2 + n * it, "Allreduce start %d: %d", it, r);

    suite_step("start %d: Alltoallv and Barrier together (Startall, Waitall)", it);
    for (int i = 0; i < 2 * n; i++)
      sb[i] = 100000 * it + 100 * me + i, rb[i] = -1;
    MPI_Request two[2] = {av, br};
    MPI_OK(MPI_Startall(2, two));
    MPI_OK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
      for (int k = 0; k < rc[i]; k++)
        CHECK(rb[2 * i + k] == 100000 * it + 100 * i + 2 * me + k, "Alltoallv start %d: from %d item %d = %d", it, i,
              k, rb[2 * i + k]);
  }
  suite_step("MPI_Request_free");
  MPI_OK(MPI_Request_free(&bc));
  MPI_OK(MPI_Request_free(&ar));
  MPI_OK(MPI_Request_free(&av));
  MPI_OK(MPI_Request_free(&br));
  CHECK(bc == MPI_REQUEST_NULL && br == MPI_REQUEST_NULL, "MPI_Request_free did not null the handles");
  free(sb);
  free(rb);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  return suite_finish();
}
