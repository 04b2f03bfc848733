/* The MPI layer chooses and runs collective algorithms as MPICH 3.x does (sim/mpi/select.c,
 * sim/mpi/coll_*.c). Two checks:
 *  - the decisions at and around each threshold, against MPICH 3.2's rules written out by hand
 *    (MPIR_Alltoall_intra etc.: <= for all-to-all and all-reduce/reduce, < elsewhere);
 *  - simulated times: the same program (tests/progs/coll_time.c) built with icsimcc on a
 *    zero-overhead platform (tests/data/star-16.yaml) and with plain smpicc on the equivalent XML
 *    (tests/data/star-16.xml) under SimGrid's own MPICH selector (`smpi/coll-selector:mpich`) must
 *    report the same time within 1%, for every collective over sizes that reach each algorithm and
 *    5, 13 and 16 ranks.
 * Where SimGrid 3.32's selector departs from MPICH (smpi_mpich_selector.cpp), the reference is
 * SimGrid's implementation of the algorithm MPICH picks, named explicitly:
 *  - broadcast, reduce and all-reduce go through SimGrid's SMP-aware variants even with one rank per
 *    node (MPICH builds no node hierarchy then: MPIR_Comm_commit skips it when every process is
 *    alone on its node);
 *  - all-to-all: SimGrid compares with < 256 where MPICH has <=, and for long blocks calls its
 *    power-of-two-only `pair` for odd n;
 *  - its batched all-to-all(v) posts 4 pairs per batch (MVAPICH2's throttle), MPICH 32: the icsim
 *    side states SimGrid's choice with `--set mpi/alltoall-throttle=4`, as a platform would.
 * Not compared: non-power-of-two reduce above 2 KiB (SimGrid 3.32's scatter_gather aborts with
 * MPI_ERR_TRUNCATE there; coll_time still checks icsim's results), reduce_scatter, scan and the
 * v-variants of gather/scatter (unchanged linear algorithms). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/select.h"
#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define PROGS ICSIM_BUILD "/tests/progs/"

Test(select, mpich_decisions_at_the_thresholds)
{
  struct icsim_mpi_select s;
  icsim_mpi_select_defaults(&s);
  /* all-to-all: block <= 256 B and n >= 8 -> Bruck; <= 32 KiB -> batched; above -> pairwise */
  cr_assert_eq(icsim_select_alltoall(&s, 256, 8), ICSIM_ALLTOALL_BRUCK);
  cr_assert_eq(icsim_select_alltoall(&s, 257, 8), ICSIM_ALLTOALL_ISEND_IRECV);
  cr_assert_eq(icsim_select_alltoall(&s, 1, 7), ICSIM_ALLTOALL_ISEND_IRECV);
  cr_assert_eq(icsim_select_alltoall(&s, 32768, 64), ICSIM_ALLTOALL_ISEND_IRECV);
  cr_assert_eq(icsim_select_alltoall(&s, 32769, 64), ICSIM_ALLTOALL_PAIRWISE);
  /* all-gather on the gathered total: power of two and < 512 KiB -> recursive doubling, else
   * < 80 KiB -> Bruck, else ring */
  cr_assert_eq(icsim_select_allgather(&s, 524287, 16), ICSIM_ALLGATHER_RDB);
  cr_assert_eq(icsim_select_allgather(&s, 524288, 16), ICSIM_ALLGATHER_RING);
  cr_assert_eq(icsim_select_allgather(&s, 81919, 12), ICSIM_ALLGATHER_BRUCK);
  cr_assert_eq(icsim_select_allgather(&s, 81920, 12), ICSIM_ALLGATHER_RING);
  /* broadcast: < 12 KiB or n < 8 -> binomial; < 512 KiB and power of two -> scatter + doubling */
  cr_assert_eq(icsim_select_bcast(&s, 12287, 64), ICSIM_BCAST_BINOMIAL);
  cr_assert_eq(icsim_select_bcast(&s, 1 << 20, 7), ICSIM_BCAST_BINOMIAL);
  cr_assert_eq(icsim_select_bcast(&s, 12288, 64), ICSIM_BCAST_SCATTER_RDB);
  cr_assert_eq(icsim_select_bcast(&s, 12288, 12), ICSIM_BCAST_SCATTER_RING);
  cr_assert_eq(icsim_select_bcast(&s, 524288, 64), ICSIM_BCAST_SCATTER_RING);
  /* all-reduce and reduce: <= 2 KiB, a user op or count < pof2 -> the short algorithm */
  cr_assert_eq(icsim_select_allreduce(&s, 2048, 512, 8, 1), ICSIM_ALLREDUCE_RDB);
  cr_assert_eq(icsim_select_allreduce(&s, 2052, 513, 8, 1), ICSIM_ALLREDUCE_RABENSEIFNER);
  cr_assert_eq(icsim_select_allreduce(&s, 2052, 513, 8, 0), ICSIM_ALLREDUCE_RDB);
  cr_assert_eq(icsim_select_allreduce(&s, 4096, 1, 12, 1), ICSIM_ALLREDUCE_RDB); /* one 4 KiB element < pof2 8 */
  cr_assert_eq(icsim_select_reduce(&s, 2052, 513, 8, 1), ICSIM_REDUCE_RABENSEIFNER);
  cr_assert_eq(icsim_select_reduce(&s, 2048, 512, 8, 1), ICSIM_REDUCE_BINOMIAL);
  /* a platform states its MPI's choices through the table */
  s.alltoall_short_B = 255;
  cr_assert_eq(icsim_select_alltoall(&s, 256, 8), ICSIM_ALLTOALL_ISEND_IRECV);
}

Test(select, mvapich2_long_blocks_by_processes_per_node)
{
  /* the sibsutis-numa-ib settings, from MVAPICH2 2.2's RI tables: 2 to 4 processes per node and
   * at least 4 processes -> Scatter_dest (batched); otherwise pairwise */
  struct icsim_mpi_select s;
  icsim_mpi_select_defaults(&s);
  cr_assert_eq(icsim_select_alltoall_ppn(&s, 1 << 20, 8, 4), ICSIM_ALLTOALL_PAIRWISE); /* MPICH: never */
  s.alltoall_long_batched_min_ppn = 2;
  s.alltoall_long_batched_max_ppn = 4;
  s.alltoall_long_batched_min_procs = 4;
  cr_assert_eq(icsim_select_alltoall_ppn(&s, 1 << 20, 4, 2), ICSIM_ALLTOALL_ISEND_IRECV); /* 2 nodes x 2 */
  cr_assert_eq(icsim_select_alltoall_ppn(&s, 1 << 20, 8, 4), ICSIM_ALLTOALL_ISEND_IRECV); /* 2 nodes x 4 */
  cr_assert_eq(icsim_select_alltoall_ppn(&s, 1 << 20, 2, 2), ICSIM_ALLTOALL_PAIRWISE);    /* 1 node x 2 */
  cr_assert_eq(icsim_select_alltoall_ppn(&s, 1 << 20, 8, 8), ICSIM_ALLTOALL_PAIRWISE);    /* 1 node x 8 */
  cr_assert_eq(icsim_select_alltoall_ppn(&s, 1 << 20, 8, 1), ICSIM_ALLTOALL_PAIRWISE);    /* 8 nodes x 1 */
  cr_assert_eq(icsim_select_alltoall_ppn(&s, 1 << 20, 6, 0), ICSIM_ALLTOALL_PAIRWISE);    /* not uniform */
  /* short and medium blocks keep MPICH's rules */
  cr_assert_eq(icsim_select_alltoall_ppn(&s, 100, 8, 2), ICSIM_ALLTOALL_BRUCK);
}

/* Simulated seconds printed by coll_time, or -1 when it did not report "No Errors". */
static double timed(const char *cmd)
{
  char *out;
  int rc = run(cmd, &out, 1);
  double t = -1;
  char name[32];
  long b;
  if (rc == 0 && strstr(out, "No Errors") && sscanf(out, "%31s %ld %lf", name, &b, &t) != 3)
    t = -1;
  if (t < 0)
    printf("failed (exit %d): %s\n%s\n", rc, cmd, out);
  free(out);
  return t;
}

struct point {
  const char *coll;
  long bytes;
  const char *smpi; /* SimGrid's algorithm for MPICH's choice where its selector departs, else NULL */
};

Test(coll_mpich, same_times_as_simgrid_mpich_selector, .timeout = 600)
{
  static const int ns[] = {5, 13, 16};
  char dir[] = "/tmp/icsim-mpich-XXXXXX";
  cr_assert(mkdtemp(dir));
  int compared = 0, worst_n = 0;
  double worst = 0;
  const char *worst_coll = "";
  for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    int n = ns[k], pof2 = (n & (n - 1)) == 0;
    char hosts[256], cmd[2048];
    snprintf(hosts, sizeof hosts, "%s/hosts%d", dir, n);
    FILE *f = fopen(hosts, "w");
    for (int i = 0; i < n; i++)
      fprintf(f, "node%d.s0\n", i);
    fclose(f);
    /* MPICH's choices on this n, written out from its rules (see the decision test above) */
    const char *a2a_short = n >= 8 ? "bruck" : "mvapich2_scatter_dest";
    const char *a2a_long = pof2 ? "pair" : "ring";
    const char *bc_mid = n < 8 ? "binomial_tree" : pof2 ? "scatter_rdb_allgather" : "scatter_LR_allgather";
    const char *bc_long = n < 8 ? "binomial_tree" : "scatter_LR_allgather";
    struct point pts[] = {
        {"barrier", 0, NULL},
        {"alltoall", 100, a2a_short},          {"alltoall", 4000, "mvapich2_scatter_dest"},
        {"alltoall", 40000, a2a_long},         {"alltoallv", 100, NULL},
        {"alltoallv", 40000, NULL},            {"allgather", 100, NULL},
        {"allgather", 8000, NULL},             {"allgather", 64000, NULL},
        {"allgatherv", 100, NULL},             {"allgatherv", 64000, NULL},
        {"bcast", 1000, "binomial_tree"},      {"bcast", 100000, bc_mid},
        {"bcast", 1000000, bc_long},           {"allreduce", 1000, "rdb"},
        {"allreduce", 100000, "rab_rdb"},      {"reduce", 1000, "binomial"},
        {"reduce", 100000, pof2 ? "scatter_gather" : NULL}, {"gather", 1000, NULL},
        {"gather", 100000, NULL},              {"scatter", 1000, NULL},
        {"scatter", 100000, NULL},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
      const struct point *p = &pts[i];
      if (!strcmp(p->coll, "reduce") && p->bytes > 2048 && !pof2)
        continue; /* no reference: SimGrid's scatter_gather aborts on non-powers of two */
      int throttle = !strncmp(p->coll, "alltoall", 8);
      snprintf(cmd, sizeof cmd,
               ICSIM " run -p " ICSIM_SRC "/tests/data/star-16.yaml -n %d --place cyclic --host-timing off %s " PROGS
                     "coll_time %s %ld 2",
               n, throttle ? "--set mpi/alltoall-throttle=4" : "", p->coll, p->bytes);
      double ti = timed(cmd);
      char algo[128] = "";
      if (p->smpi)
        snprintf(algo, sizeof algo, "--cfg=smpi/%s:%s", !strcmp(p->coll, "alltoallv") ? "alltoallv" : p->coll,
                 p->smpi);
      snprintf(cmd, sizeof cmd,
               "smpirun -platform " ICSIM_SRC "/tests/data/star-16.xml -hostfile %s -np %d --cfg=network/model:CM02 "
               "--cfg=network/crosstraffic:0 --cfg=network/weight-S:0 --cfg=smpi/simulate-computation:no "
               "--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=smpi/send-is-detached-thresh:1000000000 "
               "--log=root.thres:critical --cfg=smpi/coll-selector:mpich %s " PROGS "coll_time_smpi %s %ld 2",
               hosts, n, algo, p->coll, p->bytes);
      double ts = timed(cmd);
      cr_assert(ti > 0 && ts > 0, "%s %ld B on %d ranks did not run cleanly", p->coll, p->bytes, n);
      double rel = fabs(ti - ts) / ts;
      printf("%2d ranks  %-10s %8ld B  icsim %.3f us  SimGrid %.3f us%s%s  (%+.3f%%)\n", n, p->coll, p->bytes, ti * 1e6,
             ts * 1e6, p->smpi ? " " : "", p->smpi ? p->smpi : "", 100 * (ti - ts) / ts);
      fflush(stdout);
      if (rel > worst) {
        worst = rel;
        worst_coll = p->coll;
        worst_n = n;
      }
      cr_expect(rel <= 0.01, "%s %ld B on %d ranks: icsim %.9f s, SimGrid's MPICH selector %.9f s", p->coll, p->bytes,
                n, ti, ts);
      compared++;
    }
  }
  printf("%d points compared, worst %.3f%% (%s on %d ranks)\n", compared, 100 * worst, worst_coll, worst_n);
  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  system(rm);
}

/* The long-block choice runs through the layer: with the batched range covering one process per
 * node, a 40 KB all-to-all on 8 nodes takes SimGrid's mvapich2_scatter_dest (throttle 4) time;
 * with min-procs above 8 it is pairwise again (SimGrid's "pair"). Both hand-picked algorithms,
 * neither printed by icsim. */
Test(coll_mpich, long_blocks_follow_the_processes_per_node_range, .timeout = 120)
{
  char dir[] = "/tmp/icsim-mv2-XXXXXX";
  cr_assert(mkdtemp(dir));
  char hosts[256], cmd[2048];
  snprintf(hosts, sizeof hosts, "%s/hosts", dir);
  FILE *f = fopen(hosts, "w");
  for (int i = 0; i < 8; i++)
    fprintf(f, "node%d.s0\n", i);
  fclose(f);
  static const struct {
    int min_procs;
    const char *smpi;
  } cases[] = {{4, "mvapich2_scatter_dest"}, {9, "pair"}};
  double t[2][2];
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd,
             ICSIM " run -p " ICSIM_SRC "/tests/data/star-16.yaml -n 8 --place cyclic --host-timing off "
                   "--set mpi/alltoall-throttle=4 --set mpi/alltoall-long-batched-min-ppn=1 "
                   "--set mpi/alltoall-long-batched-max-ppn=1 --set mpi/alltoall-long-batched-min-procs=%d " PROGS
                   "coll_time alltoall 40000 2",
             cases[k].min_procs);
    t[k][0] = timed(cmd);
    snprintf(cmd, sizeof cmd,
             "smpirun -platform " ICSIM_SRC "/tests/data/star-16.xml -hostfile %s -np 8 --cfg=network/model:CM02 "
             "--cfg=network/crosstraffic:0 --cfg=network/weight-S:0 --cfg=smpi/simulate-computation:no "
             "--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=smpi/send-is-detached-thresh:1000000000 "
             "--log=root.thres:critical --cfg=smpi/alltoall:%s " PROGS "coll_time_smpi alltoall 40000 2",
             hosts, cases[k].smpi);
    t[k][1] = timed(cmd);
    printf("min-procs %d: icsim %.3f us, SimGrid %s %.3f us\n", cases[k].min_procs, t[k][0] * 1e6, cases[k].smpi,
           t[k][1] * 1e6);
  }
  for (int k = 0; k < 2; k++) {
    double ti = t[k][0], ts = t[k][1];
    cr_assert(ti > 0 && ts > 0);
    cr_expect(fabs(ti - ts) / ts <= 0.01, "min-procs %d: icsim %.9f s against SimGrid's %s %.9f s", cases[k].min_procs,
              ti, cases[k].smpi, ts);
  }
  /* on this zero-overhead star the two algorithms differ by well under 1%: each run must be
   * nearer its own algorithm's reference than the other's */
  for (int k = 0; k < 2; k++) {
    double own = fabs(t[k][0] - t[k][1]), other = fabs(t[k][0] - t[1 - k][1]);
    cr_expect(own < other / 2, "min-procs %d: %.9f s is not nearer SimGrid's %s (%.9f s) than the other (%.9f s)",
              cases[k].min_procs, t[k][0], cases[k].smpi, t[k][1], t[1 - k][1]);
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  system(cmd);
}
