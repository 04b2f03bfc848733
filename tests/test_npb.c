/* NPB kernels: they verify natively (Debian's mpicc, 1 and 2 processes, classes S and W) and
 * under icsim; the compute model charges what its closed form says; runs are deterministic;
 * skeleton mode keeps the prediction. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "runtime.h"
#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define NPB ICSIM_BUILD "/workloads/npb/"
#define SCORE ICSIM_SRC "/platforms/score-gige-xeon.yaml"
#define VERIFIED "Verification    =               SUCCESSFUL"

static const char *kernels[] = {"is", "ep", "cg", "mg", "ft"};

static double field(const char *out, const char *name)
{
  const char *p = strstr(out, name);
  if (!p || !(p = strchr(p, '=')))
    return NAN;
  return strtod(p + 1, NULL);
}

Test(npb, native_classes_S_W_verify_on_1_and_2_processes, .timeout = 600)
{
  char *out;
  if (run("command -v mpicc.mpich && command -v mpiexec.mpich", &out, 1) != 0) {
    free(out);
    cr_skip_test("mpicc.mpich/mpiexec.mpich not installed");
  }
  free(out);
  char dir[] = "/tmp/icsim-npb-XXXXXX", cmd[1024];
  cr_assert(mkdtemp(dir));
  for (size_t k = 0; k < 5; k++) {
    snprintf(cmd, sizeof cmd,
             "mpicc.mpich -O2 -I" ICSIM_SRC "/workloads/include -o %s/%s " ICSIM_SRC "/workloads/npb/%s.c " ICSIM_SRC
             "/workloads/npb/npb.c -lm",
             dir, kernels[k], kernels[k]);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", cmd, out);
    free(out);
    for (int np = 1; np <= 2; np++)
      for (const char *c = "SW"; *c; c++) {
        snprintf(cmd, sizeof cmd, "mpiexec.mpich -n %d %s/%s %c", np, dir, kernels[k], *c);
        cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", cmd, out);
        cr_assert(strstr(out, VERIFIED), "%s did not verify:\n%s", cmd, out);
        free(out);
      }
  }
  /* the originals' rules: powers of two; skeleton needs icsim */
  snprintf(cmd, sizeof cmd, "mpiexec.mpich -n 3 %s/cg S", dir);
  cr_assert_neq(run(cmd, &out, 1), 0);
  cr_assert(strstr(out, "power of two"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "mpiexec.mpich -n 1 %s/is S --skeleton", dir);
  cr_assert_neq(run(cmd, &out, 1), 0);
  cr_assert(strstr(out, "icsim run"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "mpiexec.mpich -n 1 %s/is Q", dir);
  cr_assert_neq(run(cmd, &out, 1), 0);
  cr_assert(strstr(out, "neither a class"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  system(cmd);
}

Test(npb, all_kernels_verify_under_icsim_class_S, .timeout = 600)
{
  char *out, cmd[1024];
  for (size_t k = 0; k < 5; k++) {
    snprintf(cmd, sizeof cmd, ICSIM " run -p " SCORE " -n 4 --place 4x1 --host-timing off " NPB "%s S", kernels[k]);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", cmd, out);
    cr_assert(strstr(out, VERIFIED), "%s did not verify:\n%s", cmd, out);
    double t = field(out, "Time in seconds"), c = field(out, "Compute time"), m = field(out, "Comm time");
    cr_assert(t > 0 && c > 0 && m >= 0, "%s: time %g compute %g comm %g", kernels[k], t, c, m);
    free(out);
  }
}

/* Above nz processes FT switches to NPB's 2D layout (pencils on an nz x (np / nz) grid, its
 * transposes within grid columns and rows): S on 128 ranks (64 x 2) and W on 64 (32 x 2) must
 * still reproduce every reference checksum; up to nz processes it keeps the slabs. */
Test(npb, ft_pencils_verify_above_nz_processes, .timeout = 300)
{
  const char *runs[][2] = {{"128", "S"}, {"64", "W"}};
  char *out, cmd[1024];
  for (int i = 0; i < 2; i++) {
    snprintf(cmd, sizeof cmd, ICSIM " run -p " ICSIM_SRC "/bench/star-256.yaml -n %s --host-timing off " NPB "ft %s",
             runs[i][0], runs[i][1]);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", cmd, out);
    cr_assert(strstr(out, "2D layout, pencils"), "%s", out);
    cr_assert(strstr(out, VERIFIED), "%s did not verify:\n%s", cmd, out);
    free(out);
  }
  snprintf(cmd, sizeof cmd, ICSIM " run -p " ICSIM_SRC "/bench/star-256.yaml -n 8 --host-timing off " NPB "ft W");
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  cr_assert(strstr(out, "1D layout, slabs") && strstr(out, VERIFIED), "%s", out);
  free(out);
  /* a grid of one's own, as NPB's inputft.data gives it, and one that does not fit */
  snprintf(cmd, sizeof cmd, ICSIM " run -p " ICSIM_SRC "/bench/star-256.yaml -n 32 --host-timing off " NPB "ft S --grid 4x8");
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  cr_assert(strstr(out, "Processor array:     4 x 8 (2D layout, pencils)") && strstr(out, VERIFIED), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, ICSIM " run -p " ICSIM_SRC "/bench/star-256.yaml -n 32 --host-timing off " NPB "ft S --grid 4x4");
  cr_assert_neq(run(cmd, &out, 1), 0, "%s", out);
  cr_assert(strstr(out, "--grid 4x4 does not fit 32 processes"), "%s", out);
  free(out);
}

/* EP class S on one rank of the NetBurst Xeon: 256 batches of 65536 pairs, two phases each (ep.c).
 * Generator: 18 operations per pair at 1.5 per clock, or its chain of 2 integer multiplies (the
 * platform describes none: the FP multiply's 7 clocks) and 2 ands (a clock each), whichever is longer, against 16 B per pair written to the L2 (the 1 MiB batch fits its 2 MiB) at
 * 30.4 GB/s. Pairs: 15 + 88 pi/4 operations at 1.5 per clock, or the chain of 6.5 pi/4 adds at 5
 * clocks, 7.5 pi/4 multiplies at 7 and 2 pi/4 divisions and roots at 40, shared by the pairs in
 * flight: the one at the head of the 126-entry reorder window and those it holds besides (1 + 126 /
 * (15 + 88 pi/4) = 2.50 pairs), whichever is longer (here the issue: 56.1 clocks against 51.8); plus
 * 1 - pi/4 mispredicts, each the 30-clock refill and its resolution: the L2's 7.4 ns and 5 operations
 * at 5 clocks; against 16 B per pair read from the L2. */
Test(npb, ep_compute_time_matches_the_roofline_closed_form)
{
  char *out;
  int rc = run(ICSIM " run -p " SCORE " -n 1 --host-timing off " NPB "ep S", &out, 1);
  cr_assert_eq(rc, 0, "%s", out);
  double q = M_PI / 4, nk = 65536, clock = 3.8e9, l2_bw = 30.4e9;
  double gen = fmax(fmax(18.0 / 1.5, 2 * 7.0 + 2) / clock, 16.0 / l2_bw) * nk;
  double ops = 15.0 + 88.0 * q, in_flight = 1 + 126.0 / ops;
  double chain = (6.5 * q * 5.0 + 7.5 * q * 7.0 + 2.0 * q * 40.0) / clock / in_flight;
  double core = fmax(ops / (1.5 * clock), chain) + (1 - q) * (30.0 / clock + 7.4e-9 + 5 * 5.0 / clock);
  double pairs = fmax(core, 16.0 / l2_bw) * nk, expect = 256 * (gen + pairs);
  double got = field(out, "Compute time");
  printf("EP S compute: simulated %.4f s, closed form %.4f s\n", got, expect);
  cr_assert(fabs(got - expect) < 1e-4, "%.5f vs %.5f", got, expect);
  free(out);
}

/* The value after " KEY " on the profile line LINE (up to its newline). */
static double line_field(const char *line, const char *key)
{
  const char *end = strchr(line, '\n');
  char k[64];
  snprintf(k, sizeof k, " %s ", key);
  const char *v = strstr(line, k);
  return v && (!end || v < end) ? strtod(v + strlen(k), NULL) : NAN;
}

/* The phase profile under icsim (ICSIM_PHASE_PROFILE) says which term of the model each site's time
 * came from: EP S on the SCore node, whose two phases the closed form above derives by hand. The
 * generator is its chain of 2 integer multiplies (at the FP multiply's 7 clocks: the platform
 * describes no integer one) and 2 ands per pair, over the issue of 18 operations at 1.5 a clock; the
 * pairs their 84.1 operations at 1.5 a clock, longer than the chain of the log and square root
 * shared by the 2.50 pairs in flight, with the mispredicts' stalls added. The sites add up to
 * Compute time. */
Test(npb, phase_profile_names_the_term_each_site_met)
{
  char *out;
  int rc = run("ICSIM_PHASE_PROFILE=1 " ICSIM " run -p " SCORE " -n 1 --host-timing off " NPB "ep S", &out, 1);
  cr_assert_eq(rc, 0, "%s", out);
  double q = M_PI / 4, nk = 65536, clock = 3.8e9, calls = 256;
  double ops = 15.0 + 88.0 * q, in_flight = 1 + 126.0 / ops;
  double gen_chain = (2 * 7.0 + 2) / clock * nk * calls, gen_issue = 18.0 / 1.5 / clock * nk * calls;
  double pair_chain = (6.5 * q * 5.0 + 7.5 * q * 7.0 + 2.0 * q * 40.0) / clock / in_flight * nk * calls;
  double pair_issue = ops / 1.5 / clock * nk * calls;
  double pair_stalls = (1 - q) * (30.0 / clock + 7.4e-9 + 5 * 5.0 / clock) * nk * calls;
  /* the two sites of ep.c: the generator declares no division, the pairs do */
  const char *gen = NULL, *pairs = NULL;
  int sites = 0;
  for (const char *p = strstr(out, "\nphase "); p; p = strstr(p + 1, "\nphase ")) {
    cr_assert(strstr(p, "/ep.c:") && strstr(p, "/ep.c:") < strchr(p + 1, '\n'), "a site outside ep.c: %s", p);
    *(line_field(p + 1, "chain_divide") == 0 ? &gen : &pairs) = p + 1;
    sites++;
  }
  cr_assert(sites == 2 && gen && pairs, "%d sites:\n%s", sites, out);
  cr_assert_eq(line_field(gen, "calls"), calls, "%s", gen);
  cr_assert_eq(line_field(pairs, "calls"), calls, "%s", pairs);
  cr_assert(strstr(gen, " bound chain ") < strchr(gen, '\n') && strstr(gen, " bound chain "), "%s", gen);
  cr_assert(strstr(pairs, " bound issue ") < strchr(pairs, '\n') && strstr(pairs, " bound issue "), "%s", pairs);
  cr_assert(fabs(line_field(gen, "chain_s") - gen_chain) < 1e-6, "%s", gen);
  cr_assert(fabs(line_field(gen, "issue_s") - gen_issue) < 1e-6, "%s", gen);
  /* 16 clocks a pair over its 4 chain elements */
  cr_assert(fabs(line_field(gen, "chain_clocks") - 4) < 1e-9, "clocks per chain element: %s", gen);
  cr_assert(fabs(line_field(gen, "ops_per_clock") - 1.5) < 1e-9, "%s", gen);
  cr_assert(fabs(line_field(pairs, "chain_s") - pair_chain) < 1e-5, "%s", pairs);
  cr_assert(fabs(line_field(pairs, "stalls_s") - pair_stalls) < 1e-5, "%s", pairs);
  cr_assert(fabs(line_field(pairs, "issue_s") - pair_issue) < 1e-5, "%s", pairs);
  cr_assert(fabs(line_field(pairs, "seconds") - (pair_issue + pair_stalls)) < 1e-5, "%s", pairs);
  double sum = line_field(gen, "seconds") + line_field(pairs, "seconds");
  cr_assert(fabs(sum - field(out, "Compute time")) < 1e-4, "sites %g, compute %g", sum, field(out, "Compute time"));
  free(out);
}

/* Same inputs, same outputs, whatever the machine's load: two runs print the same block. */
Test(npb, runs_are_deterministic)
{
  char *a, *b;
  const char *cmd = ICSIM " run -p " SCORE " -n 4 --place 4x1 --host-timing off " NPB "cg S";
  cr_assert_eq(run(cmd, &a, 1), 0, "%s", a);
  cr_assert_eq(run(cmd, &b, 1), 0, "%s", b);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
}

/* Skeleton mode skips the work but charges it: the predicted time stays within a few percent
 * of the full run, and the report says verification was not performed. */
Test(npb, skeleton_keeps_the_prediction, .timeout = 300)
{
  const char *ks[] = {"is", "cg", "ft"};
  for (int i = 0; i < 3; i++) {
    char *full, *skel, cmd[1024];
    snprintf(cmd, sizeof cmd, ICSIM " run -p " SCORE " -n 8 --place 8x1 --host-timing off " NPB "%s W", ks[i]);
    cr_assert_eq(run(cmd, &full, 1), 0, "%s", full);
    strcat(cmd, " --skeleton");
    cr_assert_eq(run(cmd, &skel, 1), 0, "%s", skel);
    cr_assert(strstr(full, VERIFIED), "%s", full);
    cr_assert(strstr(skel, "NOT PERFORMED (skeleton)"), "%s", skel);
    double tf = field(full, "Time in seconds"), ts = field(skel, "Time in seconds");
    double cf = field(full, "Compute time"), cs = field(skel, "Compute time");
    printf("%s W skeleton: time %.4f vs %.4f s, compute %.4f vs %.4f s\n", ks[i], ts, tf, cs, cf);
    cr_assert(fabs(cs - cf) <= 0.05 * cf, "%s compute %.4f vs %.4f", ks[i], cs, cf);
    cr_assert(fabs(ts - tf) <= 0.10 * tf, "%s time %.4f vs %.4f", ks[i], ts, tf);
    free(full);
    free(skel);
  }
}

/* The compute model itself: two ranks on one socket share its memory bandwidth, not its clock
 * (each gets half the socket's, and never more than one core streams alone). */
Test(npb, compute_model_shares_memory_not_clock)
{
  char err[512];
  struct icsim_runtime *rt = icsim_runtime_create(ICSIM_SRC "/platforms/sibsutis-numa-ib.yaml", NULL, err, sizeof err);
  cr_assert(rt, "%s", err);
  int hosts[2] = {0, 0};
  rt->nranks = 2;
  rt->rank_host = hosts;
  double rate = rt->pf.p.clock_Hz * rt->pf.p.ops_per_cycle, bw = rt->pf.p.memory_bw_Bps;
  double core_bw = rt->pf.p.core_memory_bw_Bps;
  cr_assert(core_bw > 0 && core_bw < bw, "the Westmere platform describes one core's limit below the socket's");
  struct icsim_work ops = {.ops = 1e9}, bytes = {.bytes = 1e9}, both = {.ops = 1e9, .bytes = 1e9};
  cr_assert_float_eq(icsim_runtime_compute_time(rt, 0, &ops), 1e9 / rate, 1e-12);
  cr_assert_float_eq(icsim_runtime_compute_time(rt, 0, &bytes), 1e9 / fmin(bw / 2, core_bw), 1e-12);
  hosts[1] = 1; /* the other socket: rank 0 alone, limited by what one core streams */
  cr_assert_float_eq(icsim_runtime_compute_time(rt, 0, &bytes), 1e9 / core_bw, 1e-12);
  /* the slower of the two limits */
  cr_assert_float_eq(icsim_runtime_compute_time(rt, 0, &both), fmax(1e9 / rate, 1e9 / core_bw), 1e-12);
  rt->rank_host = NULL;
  icsim_runtime_destroy(rt);
}

/* The memory hierarchy, the chain and the random accesses, on round numbers
 * (tests/data/compute-hierarchy.yaml: 1 GHz, 2 ops per clock, caches 32 KiB / 1 MiB / 8 MiB). */
Test(npb, compute_model_hierarchy_chain_and_accesses)
{
  char err[512];
  struct icsim_runtime *rt =
      icsim_runtime_create(ICSIM_SRC "/tests/data/compute-hierarchy.yaml", NULL, err, sizeof err);
  cr_assert(rt, "%s", err);
  int hosts[2] = {0, 1};
  rt->nranks = 2;
  rt->rank_host = hosts; /* rank 0 alone on host 0 for now */
#define T(...) icsim_runtime_compute_time(rt, 0, &(struct icsim_work){__VA_ARGS__})
  /* the core: 1e9 ops at 2 per clock; a chain of 1e8 adds at 4 clocks is longer than 1e8 ops */
  cr_assert_float_eq(T(.ops = 1e9), 0.5, 1e-12);
  cr_assert_float_eq(T(.ops = 1e8, .chain = 1e8), 0.4, 1e-12);
  cr_assert_float_eq(T(.ops = 1e8, .chain = 1e7, .chain_divide = 1e7), 0.04 + 0.2, 1e-12); /* longer than 0.05 */
  /* a mispredict: the 10-clock refill and its resolution, the load from the level holding the
   * working set (the L1, 1 ns) and the 2 operations from it to the branch at 4 clocks */
  cr_assert_float_eq(T(.chain = 1e8, .mispredicts = 1e7, .working_set = 16 * 1024, .branch_chain = 2),
                     0.4 + 1e7 * (10 + 1 + 8) * 1e-9, 1e-12);
  /* independent paths overlap as far as the 64-entry window holds them: the path at its head and
   * those it holds besides. 1e6 paths of 10 ops: 1 + 6.4 in flight; of 100 ops: 1 + 0.64 (the next
   * path starts while the window still holds the last 64 ops of the one before); 4 paths of 2 ops:
   * all 4 (1 + window / 2 = 33) */
  cr_assert_float_eq(T(.ops = 1e7, .chain = 1e8, .paths = 1e6), 0.4 / 7.4, 1e-12);
  cr_assert_float_eq(T(.ops = 1e8, .chain = 1e8, .paths = 1e6), 0.4 / 1.64, 1e-12);
  cr_assert_float_eq(T(.ops = 8, .chain = 1e8, .paths = 4), 0.4 / 4, 1e-12);
  /* multiplies on the chain at their own latency (6 clocks), beside the adds (4) */
  cr_assert_float_eq(T(.chain = 1e7, .chain_mul = 1e7), 0.04 + 0.06, 1e-12);
  /* integer operations on the chain: an and a clock, a multiply at the FP multiply's 6 clocks while
   * the platform describes no integer multiply, at its own 3 once it does */
  cr_assert_float_eq(T(.chain_int = 1e7, .chain_int_mul = 1e7), 0.01 + 0.06, 1e-12);
  rt->pf.p.int_mul_latency_cycles = 3;
  cr_assert_float_eq(T(.chain_int = 1e7, .chain_int_mul = 1e7), 0.01 + 0.03, 1e-12);
  cr_assert_float_eq(T(.ops = 1e8, .chain_int = 1e7, .chain_int_mul = 1e7), 0.05, 1e-12); /* the issue, longer */
  rt->pf.p.int_mul_latency_cycles = 0;
  /* register copies among the ops: issued like the rest on a core without move elimination (1e9 ops at
   * 2 a clock), left out where the renamer completes them (6e8 at 2 a clock); never below nothing, and
   * the window still holds them (1e8 ops in 1e6 paths, 40 of them copies: 1 + 64 / 100 in flight) */
  cr_assert_float_eq(T(.ops = 1e9, .moves = 4e8), 0.5, 1e-12);
  rt->pf.p.move_elimination = true;
  cr_assert_float_eq(T(.ops = 1e9, .moves = 4e8), 0.3, 1e-12);
  cr_assert_float_eq(T(.ops = 1e9, .moves = 2e9), 0, 1e-12);
  cr_assert_float_eq(T(.ops = 1e8, .moves = 4e7, .chain = 1e8, .paths = 1e6), 0.4 / 1.64, 1e-12);
  rt->pf.p.move_elimination = false;
  /* streaming from the level that holds the working set */
  cr_assert_float_eq(T(.bytes = 1e9, .working_set = 16 * 1024), 1e9 / 100e9, 1e-12);
  cr_assert_float_eq(T(.bytes = 1e9, .working_set = 512 * 1024), 1e9 / 50e9, 1e-12);
  cr_assert_float_eq(T(.bytes = 1e9, .working_set = 6 * 1048576), 1e9 / 20e9, 1e-12);
  /* memory: one core streams 8 GB/s of the socket's 10; a working set larger than the L3 still finds
   * its share there (8 of 64 MiB at the L3's 20 GB/s); undeclared working set = memory */
  cr_assert_float_eq(T(.bytes = 1e9, .working_set = 64 * 1048576), 1.0 / 8 * 1e9 / 20e9 + 7.0 / 8 * 1e9 / 8e9, 1e-12);
  cr_assert_float_eq(T(.bytes = 1e9), 1e9 / 8e9, 1e-12);
  /* a chain consuming a stream: 1e8 adds at 4 clocks (0.4 s) among 7e8 ops (0.35 s at 2 a clock). The
   * 64-entry window runs 64 / 7e8 of the chain's 0.4 s = 36.6 ns ahead of it: an L3 line (10 ns) is
   * in time, the stream beside the chain; a memory line (100 ns) is late, and 1 - 36.6 / 100 of the
   * stream's time from memory adds to the chain: all 0.125 s of it from memory, 7/8 of it beyond the
   * L3 over 64 MiB */
  double span = 64 / 7e8 * 0.4, late = 1 - span / 100e-9;
  cr_assert_float_eq(T(.ops = 7e8, .chain = 1e8, .bytes = 1e9, .working_set = 6 * 1048576), 0.4, 1e-12);
  cr_assert_float_eq(T(.ops = 7e8, .chain = 1e8, .bytes = 1e9), 0.4 + late * 0.125, 1e-12);
  cr_assert_float_eq(T(.ops = 7e8, .chain = 1e8, .bytes = 1e9, .working_set = 64 * 1048576),
                     0.4 + late * 7.0 / 8 * 0.125, 1e-12);
  /* a chain whose window reaches past the memory's latency (2e8 ops: 128 ns ahead) keeps the stream
   * beside it */
  cr_assert_float_eq(T(.ops = 2e8, .chain = 1e8, .bytes = 1e9), 0.4, 1e-12);
  /* random accesses: latency over memory parallelism, a third limit beside core and stream. Spread
   * over 64 MiB: the L1 holds 1/2048 of them (1 ns), the L2 1/64 (4 ns), the L3 1/8 (10 ns), the
   * rest is in memory (100 ns); over 512 KiB: 1/16 in the L1, the rest in the L2 */
  double lat64 = 1.0 / 2048 * 1 + (1.0 / 64 - 1.0 / 2048) * 4 + (1.0 / 8 - 1.0 / 64) * 10 + 7.0 / 8 * 100;
  cr_assert_float_eq(T(.accesses = 1e7, .working_set = 64 * 1048576), 1e7 * lat64 * 1e-9 / 10, 1e-12);
  cr_assert_float_eq(T(.accesses = 1e7, .working_set = 64 * 1048576, .access_set = 512 * 1024),
                     1e7 * (1.0 / 16 * 1 + 15.0 / 16 * 4) * 1e-9 / 10, 1e-12);
  cr_assert_float_eq(T(.accesses = 1e7, .access_set = 16 * 1024), 1e7 * 1e-9 / 10, 1e-12); /* all in the L1 */
  /* strided accesses (8-way 32 KiB L1: 64 sets, 4 KiB per way; 16-way 1 MiB L2: 1024 sets). Lines
   * 4 KiB apart all fall in one L1 set (8 lines) and in 16 of the L2's (256 lines): 16 lines live
   * in the L2, 256 do not (strictly fewer than the ways hold) and go to the L3 (8 MiB, 16-way:
   * 128 sets at this stride, 2048 lines). Half the accesses are stores: each waits for its line
   * (added to the core), the loads overlap (latency / 10). Lines 4160 B apart (65 lines) visit
   * all 64 L1 sets: 16 of them stay in the L1, where the stores cost nothing extra. */
  cr_assert_float_eq(T(.accesses = 1e7, .access_set = 16 * 4096, .stride = 4096, .stride_stores = 5e6),
                     5e6 * 4e-9, 1e-12);
  cr_assert_float_eq(T(.accesses = 1e7, .access_set = 256 * 4096, .stride = 4096, .stride_stores = 5e6),
                     5e6 * 10e-9, 1e-12);
  cr_assert_float_eq(T(.ops = 1e9, .accesses = 1e7, .access_set = 256 * 4096, .stride = 4096, .stride_stores = 5e6),
                     0.5 + 5e6 * 10e-9, 1e-12);
  cr_assert_float_eq(T(.accesses = 1e7, .access_set = 16 * 4160, .stride = 4160, .stride_stores = 5e6),
                     5e6 * 1e-9 / 10, 1e-12);
  /* an all-integer phase issues at int-ops-per-cycle (5), not ops-per-cycle (2) */
  cr_assert_float_eq(T(.ops = 1e9, .integer = 1), 0.2, 1e-12);
  cr_assert_float_eq(T(.ops = 1e8, .chain = 1e8, .integer = 1), 0.4, 1e-12); /* the chain is still longer */
  /* store fills over 64 MiB (latency lat64, as above) overlap ten at a time but hold the core:
   * added to its 0.2 s, where random loads (accesses) would only be a third limit beside it */
  cr_assert_float_eq(T(.ops = 1e9, .integer = 1, .store_fills = 1e7, .access_set = 64 * 1048576),
                     0.2 + 1e7 * lat64 * 1e-9 / 10, 1e-12);
  cr_assert_float_eq(T(.ops = 1e9, .integer = 1, .accesses = 1e7, .access_set = 64 * 1048576),
                     fmax(0.2, 1e7 * lat64 * 1e-9 / 10), 1e-12);
  cr_assert_float_eq(T(.ops = 2e8, .accesses = 1e7, .working_set = 64 * 1048576), 0.1, 1e-12); /* 0.1 = 0.1 */
  cr_assert_float_eq(T(.ops = 4e8, .accesses = 1e7, .working_set = 64 * 1048576), 0.2, 1e-12);
  /* two ranks on the socket: half its memory bandwidth each (5 < 8), half its L3 each (6 MiB > 4: 4 of
   * the 6 MiB at the L3's rate, 4 of 64 MiB) */
  hosts[1] = 0;
  cr_assert_float_eq(T(.bytes = 1e9, .working_set = 64 * 1048576), 1.0 / 16 * 1e9 / 20e9 + 15.0 / 16 * 1e9 / 5e9, 1e-12);
  cr_assert_float_eq(T(.bytes = 1e9, .working_set = 6 * 1048576), 2.0 / 3 * 1e9 / 20e9 + 1.0 / 3 * 1e9 / 5e9, 1e-12);
  cr_assert_float_eq(T(.bytes = 1e9, .working_set = 4 * 1048576), 1e9 / 20e9, 1e-12);
#undef T
  rt->rank_host = NULL;
  icsim_runtime_destroy(rt);
}

/* The native phase timing of the host check (-DICSIM_PHASE_TIMING): the kernel reports the CPU
 * time of its phases, no more than its timed region, and the per-site profile adds up to it. */
Test(npb, native_phase_timing_adds_up, .timeout = 300)
{
  char *out;
  if (run("command -v mpicc.mpich && command -v mpiexec.mpich", &out, 1) != 0) {
    free(out);
    cr_skip_test("Debian's MPICH (mpicc.mpich) not installed");
  }
  free(out);
  char dir[] = "/tmp/icsim-npb-timing-XXXXXX", cmd[1024];
  cr_assert(mkdtemp(dir));
  snprintf(cmd, sizeof cmd,
           "mpicc.mpich -O2 -DICSIM_PHASE_TIMING -I" ICSIM_SRC "/workloads/include -o %s/mg " ICSIM_SRC
           "/workloads/npb/mg.c " ICSIM_SRC "/workloads/npb/npb.c -lm",
           dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", cmd, out);
  free(out);
  snprintf(cmd, sizeof cmd, "ICSIM_PHASE_PROFILE=1 mpiexec.mpich -n 1 %s/mg W", dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", cmd, out);
  cr_assert(strstr(out, VERIFIED), "%s", out);
  cr_assert(strstr(out, "measured (native)"), "%s", out);
  double t = field(out, "Time in seconds"), c = field(out, "Compute time");
  /* Time in seconds is printed to 0.01 s; CPU time of the phases cannot exceed the wall time */
  cr_assert(c > 0 && c <= t + 0.005, "compute %g, time %g", c, t);
  /* the timed region's phases, site by site (the profile also holds the verification after it) */
  double sum = 0;
  int sites = 0;
  for (const char *p = strstr(out, "\nphase "); p; p = strstr(p + 1, "\nphase ")) {
    const char *sec = strstr(p, " seconds ");
    cr_assert(sec, "%s", p);
    sum += strtod(sec + 9, NULL);
    sites++;
  }
  cr_assert(sites >= 5, "resid, psinv, rprj3, interp, comm3 at least: %d sites\n%s", sites, out);
  cr_assert(sum >= c - 1e-4, "sites %g < compute %g", sum, c);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  system(cmd);
}
