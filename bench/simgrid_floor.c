/* simgrid_floor: what SimGrid alone takes to move the messages of a skeleton's all-to-all(v)s, with
 * no MPI above it (neither SMPI's nor icsim's): one actor per host of a platform, ITERATIONS
 * exchanges of BYTES to every other actor in MPICH's batched pattern (bblock = THROTTLE: receives
 * posted from me+i+ii, sends to me-i-ii, then wait for all of the batch), the way icsim's layer and
 * MPICH run the all-to-all(v) of NPB IS. It is the floor under any MPI on SimGrid for that traffic:
 * if it alone takes longer than a target, SimGrid bounds the target (issue 13).
 *
 *   simgrid_floor PLATFORM.xml RANKS ITERATIONS BYTES THROTTLE [--cfg=...]
 *
 * Receives are matched per receiver in arrival order (one mailbox each), not per sender as MPI
 * does: the flows (which host sends how much to which, and how many are in flight) are the same.
 * Prints the messages moved, the simulated time and the wall time (the progress of the run on
 * stderr every 2^20 messages). */
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int ranks, iterations, throttle;
static long bytes;
static long moved;
static sg_mailbox_t *box;
static char payload; /* SimGrid refuses to send nothing: every message carries this address */

static double wall(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double t0;

static void rank_main(int argc, char **argv)
{
  int me = atoi(argv[1]);
  (void)argc;
  int bb = throttle <= 0 || throttle > ranks ? ranks : throttle;
  sg_comm_t *comms = malloc((size_t)2 * bb * sizeof *comms);
  void *got;
  for (int it = 0; it < iterations; it++)
    for (int ii = 0; ii < ranks; ii += bb) {
      int ss = ranks - ii < bb ? ranks - ii : bb, k = 0;
      for (int i = 0; i < ss; i++)
        if ((me + i + ii) % ranks != me)
          comms[k++] = sg_mailbox_get_async(box[me], &got);
      for (int i = 0; i < ss; i++) {
        int dst = (me - i - ii + ranks) % ranks;
        if (dst != me)
          comms[k++] = sg_mailbox_put_async(box[dst], &payload, bytes);
      }
      sg_comm_wait_all(comms, k);
      long before = moved;
      moved += k / 2;
      if (before >> 20 != moved >> 20)
        fprintf(stderr, "simgrid_floor: %ld messages, simulated %g s, %.0f s wall\n", moved, simgrid_get_clock(),
                wall() - t0);
    }
  free(comms);
}

int main(int argc, char **argv)
{
  simgrid_init(&argc, argv);
  if (argc != 6) {
    fprintf(stderr, "usage: %s PLATFORM.xml RANKS ITERATIONS BYTES THROTTLE [--cfg=...]\n", argv[0]);
    return 2;
  }
  ranks = atoi(argv[2]), iterations = atoi(argv[3]), bytes = atol(argv[4]), throttle = atoi(argv[5]);
  simgrid_load_platform(argv[1]);
  size_t nhosts = sg_host_count();
  if (ranks < 2 || (size_t)ranks > nhosts || iterations < 1 || bytes < 0) {
    fprintf(stderr, "simgrid_floor: need 2 <= RANKS <= %zu hosts, ITERATIONS >= 1, BYTES >= 0\n", nhosts);
    return 2;
  }
  sg_host_t *hosts = sg_host_list();
  box = malloc((size_t)ranks * sizeof *box);
  char name[32];
  for (int r = 0; r < ranks; r++) {
    snprintf(name, sizeof name, "r%d", r);
    box[r] = sg_mailbox_by_name(name);
  }
  for (int r = 0; r < ranks; r++) {
    char *args[2] = {name, name};
    snprintf(name, sizeof name, "%d", r);
    sg_actor_create("rank", hosts[r], rank_main, 2, args);
  }
  t0 = wall();
  simgrid_run();
  double w = wall() - t0;
  printf("simgrid_floor: %d ranks, %d x all-to-all of %ld B (throttle %d): %ld messages, simulated %.6f s, "
         "wall %.1f s, %.0f messages per wall second\n",
         ranks, iterations, bytes, throttle, moved, simgrid_get_clock(), w, moved / w);
  free(hosts);
  free(box);
  return 0;
}
