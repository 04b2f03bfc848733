/* The MPI layer's collectives (sim/mpi/coll*.c) end to end: self-checking programs under icsim
 * on 4, 5 and 7 ranks, and the number of messages each collective hands to the stacks (the
 * run's mpi.messages counter) against the number its algorithm sends. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats_json.h"

#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define PROGS ICSIM_BUILD "/tests/progs/"
#define WL ICSIM_BUILD "/workloads/"
#define SCORE ICSIM_SRC "/platforms/score-gige-xeon.yaml"

static const int nranks[] = {4, 5, 7};
#define NSIZES (sizeof nranks / sizeof nranks[0])

/* A value of the --stats JSON: the number after "value": in the object KEY inside SECTION. */
static double stats_value(const char *path, const char *section, const char *key)
{
  char *cmd, *json;
  if (asprintf(&cmd, "cat %s", path) < 0)
    abort();
  run(cmd, &json, 0);
  free(cmd);
  char what[128];
  snprintf(what, sizeof what, "%s/%s", section, key);
  double v = icsim_stats_get(json, what);
  free(json);
  return isnan(v) ? -1 : v;
}

static void self_checking(const char *prog)
{
  for (size_t i = 0; i < NSIZES; i++) {
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, ICSIM " run -p " SCORE " -n %d --host-timing off " PROGS "%s", nranks[i], prog);
    int rc = run(cmd, &out, 1);
    printf("%s on %d ranks: exit %d, %s\n", prog, nranks[i], rc, strstr(out, "No Errors") ? "No Errors" : "errors");
    cr_assert(rc == 0 && strstr(out, "No Errors"), "%s on %d ranks exited %d:\n%s", prog, nranks[i], rc, out);
    free(out);
  }
}

/* Communicators freed and re-created at the same addresses (the stale-shadow deadlock), every
 * collective on dup'ed, reordered, sub- and MPI_Comm_create'd communicators. */
Test(coll, comm_free_cycles) { self_checking("coll_commfree"); }

/* Derived datatypes, MPI_IN_PLACE, a non-commutative user op against a serial computation. */
Test(coll, datatypes_in_place_noncommutative) { self_checking("coll_types"); }

/* Every non-blocking collective, completed by every wait/test call. */
Test(coll, nonblocking) { self_checking("coll_nbc"); }

static int ilog2_ceil(int n)
{
  int k = 0;
  while ((1 << k) < n)
    k++;
  return k;
}

/* Messages of the recursive-doubling scan: one per rank and round whose partner exists. */
static int scan_messages(int n)
{
  int m = 0;
  for (int mask = 1; mask < n; mask <<= 1)
    for (int me = 0; me < n; me++)
      m += (me ^ mask) < n;
  return m;
}

static int starts(const char *name, const char *prefix) { return strncmp(name, prefix, strlen(prefix)) == 0; }

/* Messages of recursive-doubling all-reduce on n ranks (MPICH's, for short vectors): the first
 * 2 rem ranks (rem = n - pof2) fold in pairs, one message to fold and one to hand the result
 * back per pair, and the pof2 others exchange log2 pof2 times. */
static int allreduce_rdb_messages(int n)
{
  int pof2 = 1;
  while (pof2 * 2 <= n)
    pof2 *= 2;
  return 2 * (n - pof2) + pof2 * ilog2_ceil(pof2);
}

/* What the layer's algorithm sends for one call of NAME (coll_count's names) on N ranks; coll_count
 * moves a few ints, so every choice is MPICH's short-message one (sim/mpi/select.c), and N < 8
 * keeps Bruck's all-to-all and the scatter-based broadcast out. */
static int expected_messages(const char *name, int n)
{
  if (name[0] == 'i') /* non-blocking: the blocking algorithm, at the call */
    name++;
  if (starts(name, "barrier"))
    return n * ilog2_ceil(n); /* dissemination: ceil(log2 n) rounds of n */
  if (starts(name, "bcast") || starts(name, "gather") || starts(name, "scatter"))
    return n - 1; /* binomial trees, linear v-variants */
  if (!strcmp(name, "reduce_nc"))
    return n; /* ordered tree to rank 0, then rank 0 -> root */
  if (starts(name, "reduce_scatter"))
    return 2 * (n - 1); /* reduce to 0 + linear scatterv */
  if (starts(name, "reduce"))
    return n - 1;
  if (starts(name, "allreduce"))
    return allreduce_rdb_messages(n);
  if (starts(name, "scan") || starts(name, "exscan"))
    return scan_messages(n);
  if (starts(name, "allgather")) /* recursive doubling, else Bruck: ceil(log2 n) per rank either way */
    return n * ilog2_ceil(n);
  if (starts(name, "alltoall"))
    return n * (n - 1); /* batched Isend/Irecv (n < 8), pairwise for w and in place; no empty block here */
  return -1;
}

/* Each collective run alone: the mpi.messages counter (every message charged by a stack) must be
 * what its algorithm sends. A collective falling back to SMPI's own algorithm would show 0. */
Test(coll, messages_reach_the_stacks)
{
  static const char *names[] = {
      "barrier",   "bcast",          "bcast_vector", "reduce",          "reduce_vector",        "reduce_nc",
      "allreduce", "allreduce_nc",   "allreduce_inplace", "allreduce_vector", "reduce_scatter", "reduce_scatter_block",
      "scan",      "scan_nc",        "exscan",       "gather",          "gatherv",              "gather_inplace",
      "scatter",   "scatterv",       "scatter_inplace", "allgather",    "allgatherv",           "allgather_inplace",
      "alltoall",  "alltoallv",      "alltoallw",    "alltoall_inplace"};
  char stats[] = "/tmp/icsim-coll-XXXXXX";
  int fd = mkstemp(stats);
  cr_assert(fd >= 0);
  close(fd);
  int checked = 0;
  for (size_t s = 0; s < NSIZES; s++) {
    int n = nranks[s];
    printf("%d ranks: collective  simulated-messages  algorithm\n", n);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      for (int nb = 0; nb < 2; nb++) {
        char name[64], cmd[512], *out;
        snprintf(name, sizeof name, "%s%s", nb ? "i" : "", names[i]);
        snprintf(cmd, sizeof cmd, ICSIM " run -p " SCORE " -n %d --host-timing off --stats %s " PROGS "coll_count %s", n,
                 stats, name);
        int rc = run(cmd, &out, 1);
        cr_assert(rc == 0 && strstr(out, "No Errors"), "%s on %d ranks exited %d:\n%s", name, n, rc, out);
        free(out);
        double got = stats_value(stats, "mpi", "messages");
        int want = expected_messages(name, n);
        printf("  %-24s %6.0f %6d\n", name, got, want);
        fflush(stdout);
        cr_assert(want > 0 && got == want, "%s on %d ranks: %.0f messages reached the stacks, the algorithm sends %d",
                  name, n, got, want);
        checked++;
      }
  }
  unlink(stats);
  printf("%d collective runs: message counts as expected\n", checked);
  fflush(stdout);
}

/* Outside icsim (plain smpirun, no icsim platform) every collective is SMPI's own. */
Test(coll, plain_smpirun_passes_through)
{
  char dir[] = "/tmp/icsim-coll-XXXXXX", cmd[1024], *out;
  cr_assert(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, "printf 'node0.s0\\nnode1.s0\\nnode2.s0\\nnode3.s0\\n' > %s/hosts", dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd,
           "smpirun -np 4 -platform " ICSIM_SRC "/bench/niisi-4.xml -hostfile %s/hosts --log=root.thres:critical " PROGS
           "coll_commfree",
           dir);
  int rc = run(cmd, &out, 1);
  printf("coll_commfree under plain smpirun: exit %d\n", rc);
  cr_assert(rc == 0 && strstr(out, "No Errors"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  system(cmd);
}
