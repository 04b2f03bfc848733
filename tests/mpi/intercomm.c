/* Intercommunicators: the world split into two groups (even and odd world ranks), joined by
 * MPI_Intercomm_create; point-to-point across it (every rank to the same-numbered rank of
 * the other group, where it exists; the leader to every rank of the other group; a receive from
 * MPI_ANY_SOURCE, whose status names a rank of the remote group; a probe), sizes and groups, a
 * duplicate of it used the same way, MPI_Intercomm_merge (one group high, then both alike, as
 * MPICH's test utilities make a world from halves) and collectives on the merged communicators.
 * With the argument `collectives`, also a barrier and an allreduce on the intercommunicator (each
 * group gets the other group's sum). Correct MPI that prints No Errors on MPICH.
 *
 * SimGrid 3.32 implements no intercommunicators; the layer does (sim/mpi/intercomm.c), with their
 * collectives (coll_inter.c; intercomm_coll.c checks every one). */
#include "suite.h"

int main(int argc, char **argv)
{
  suite_init(&argc, &argv);
  if (!suite_need(2))
    return suite_finish();
  int me = suite_rank, n = suite_size, color = me % 2;
  MPI_Comm local, inter, merged;
  suite_step("split into even and odd world ranks");
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
  int lrank, lsize;
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_size(local, &lsize);

  suite_step("MPI_Intercomm_create");
  /* local leader: rank 0 of each group; remote leader in MPI_COMM_WORLD: world rank 1 for the
   * evens, world rank 0 for the odds */
  MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 77, &inter));

  suite_step("intercommunicator queries");
  int flag = 0, rsize = -1, isize = -1, irank = -1;
  MPI_OK(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag, "MPI_Comm_test_inter says it is not an intercommunicator");
  MPI_OK(MPI_Comm_remote_size(inter, &rsize));
  MPI_OK(MPI_Comm_size(inter, &isize));
  MPI_OK(MPI_Comm_rank(inter, &irank));
  int evens = (n + 1) / 2, odds = n / 2;
  CHECK(isize == lsize && irank == lrank, "local size/rank %d/%d, expected %d/%d", isize, irank, lsize, lrank);
  CHECK(rsize == (color ? evens : odds), "remote size %d, expected %d", rsize, color ? evens : odds);
  MPI_Group rg;
  MPI_OK(MPI_Comm_remote_group(inter, &rg));
  int gs = -1;
  MPI_Group_size(rg, &gs);
  CHECK(gs == rsize, "remote group size %d, remote size %d", gs, rsize);
  MPI_Group_free(&rg);

  suite_step("point-to-point across the intercommunicator");
  /* rank i of one group <-> rank i of the other, when both exist */
  if (lrank < rsize) {
    int out[2] = {me, lrank * 10 + color}, in[2] = {-1, -1};
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(out, 2, MPI_INT, lrank, 5, in, 2, MPI_INT, lrank, 5, inter, &st));
    int peer_world = 2 * lrank + (1 - color);
    CHECK(in[0] == peer_world && in[1] == lrank * 10 + (1 - color), "got %d %d from the other group's rank %d", in[0],
          in[1], lrank);
    CHECK(st.MPI_SOURCE == lrank, "MPI_SOURCE %d (a rank in the remote group), expected %d", st.MPI_SOURCE, lrank);
  }
  /* the remote leader sends one message to every rank of the other group */
  if (lrank == 0)
    for (int r = 0; r < rsize; r++)
      MPI_OK(MPI_Send(&me, 1, MPI_INT, r, 6, inter));
  int from_leader = -1;
  MPI_OK(MPI_Recv(&from_leader, 1, MPI_INT, 0, 6, inter, MPI_STATUS_IGNORE));
  CHECK(from_leader == 1 - color, "the other group's leader is world rank %d, expected %d", from_leader, 1 - color);

  suite_step("MPI_ANY_SOURCE and a probe across the intercommunicator");
  /* every rank of the other group sends its world rank to local rank 0 of this one */
  for (int r = 0; r < 1 && lrank < rsize + 1; r++)
    MPI_OK(MPI_Send(&me, 1, MPI_INT, 0, 7, inter));
  if (lrank == 0) {
    int seen = 0;
    for (int k = 0; k < rsize; k++) {
      MPI_Status st;
      int v = -1, flag = 0;
      time_t t0 = 0;
      while (!flag) {
        suite_poll(&t0, "MPI_Iprobe on the intercommunicator");
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 7, inter, &flag, &st));
      }
      CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize, "probe source %d is not a rank of the remote group",
            st.MPI_SOURCE);
      MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, inter, &st));
      CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize && v == 2 * st.MPI_SOURCE + (1 - color),
            "ANY_SOURCE receive: source %d, value %d", st.MPI_SOURCE, v);
      seen |= 1 << (st.MPI_SOURCE & 30);
    }
    (void)seen;
  }

  suite_step("a duplicate of the intercommunicator");
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(inter, &dup));
  flag = 0;
  MPI_OK(MPI_Comm_test_inter(dup, &flag));
  int dsize = -1;
  MPI_OK(MPI_Comm_remote_size(dup, &dsize));
  CHECK(flag && dsize == rsize, "the duplicate: inter %d, remote size %d", flag, dsize);
  if (lrank < rsize) {
    int out = me, in = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, lrank, 8, &in, 1, MPI_INT, lrank, 8, dup, MPI_STATUS_IGNORE));
    CHECK(in == 2 * lrank + (1 - color), "on the duplicate: got %d from the other group's rank %d", in, lrank);
  }
  MPI_Comm_free(&dup);

  if (argc > 1 && strcmp(argv[1], "collectives") == 0) {
    suite_step("Barrier and Allreduce on the intercommunicator");
    MPI_OK(MPI_Barrier(inter));
    int sum = -1;
    MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, inter)); /* the REMOTE group's sum */
    int e = 0;
    for (int r = 1 - color; r < n; r += 2)
      e += r;
    CHECK(sum == e, "intercommunicator Allreduce gave %d, expected the other group's sum %d", sum, e);
  }

  suite_step("MPI_Intercomm_merge, the odd group high");
  MPI_OK(MPI_Intercomm_merge(inter, color, &merged));
  int mrank = -1, msize = -1;
  MPI_Comm_rank(merged, &mrank);
  MPI_Comm_size(merged, &msize);
  CHECK(msize == n, "merged size %d, expected %d", msize, n);
  CHECK(mrank == (color ? evens + lrank : lrank), "merged rank %d, expected %d", mrank, color ? evens + lrank : lrank);
  int all = -1;
  MPI_OK(MPI_Allreduce(&me, &all, 1, MPI_INT, MPI_SUM, merged));
  CHECK(all == n * (n - 1) / 2, "Allreduce on the merged communicator gave %d, expected %d", all, n * (n - 1) / 2);

  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);

  suite_step("halves of the world merged, both low (MPICH's test utilities)");
  MPI_Comm half, ic, world2;
  int lower = me < n / 2;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, lower, me, &half));
  MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? n / 2 : 0, 99, &ic));
  MPI_OK(MPI_Intercomm_merge(ic, !lower, &world2));
  MPI_Comm_free(&ic);
  MPI_Comm_free(&half);
  int w2 = -1, tot = -1;
  MPI_Comm_rank(world2, &w2);
  CHECK(w2 == me, "rank %d in the merged halves, expected %d", w2, me);
  MPI_OK(MPI_Allreduce(&me, &tot, 1, MPI_INT, MPI_SUM, world2));
  CHECK(tot == n * (n - 1) / 2, "Allreduce on the merged halves gave %d", tot);
  MPI_Comm_free(&world2);
  return suite_finish();
}
