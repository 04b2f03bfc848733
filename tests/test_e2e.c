/* End-to-end: icsim run/validate on real workloads, against closed forms printed beside. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shell.h"
#include "stats_json.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define WL ICSIM_BUILD "/workloads/"
#define PINGPONG ICSIM_SRC "/tests/data/pingpong-2node.yaml"
#define SCORE ICSIM_SRC "/platforms/score-gige-xeon.yaml"

Test(e2e, pingpong_matches_closed_form)
{
  char *out;
  int rc = run(ICSIM " run -p " PINGPONG " -n 2 --place 2x1 --host-timing off " WL "osu_latency -m 0:2097152 -i 20 -x 2",
               &out, 0);
  cr_assert_eq(rc, 0, "%s", out);
  const double o = 2e-6 + 3e-6, link = 10e-6, bw = 100e6; /* between nodes: the link only */
  long sizes[] = {0, 1, 1024, 65536, 1048576, 2097152};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    long n = sizes[i];
    double expect = o + link + (n + 16) / bw;
    if (n > 1048576) /* rendezvous: RTS and CTS of 64 B over the same route, both overheads */
      expect += 2 * (link + 64 / bw) + o;
    double sim = row_value(out, n) * 1e-6;
    printf("ping-pong %8ld B: simulated %10.2f us, closed form %10.2f us\n", n, sim * 1e6, expect * 1e6);
    /* osu_latency prints two decimals */
    cr_assert(sim > 0 && fabs(sim - expect) <= 0.006e-6 + 1e-9 * expect, "size %ld: %.4f vs %.4f us", n, sim * 1e6,
              expect * 1e6);
  }
  free(out);
}

Test(e2e, same_run_twice_is_byte_identical)
{
  char *a, *b;
  const char *cmd = ICSIM " run -p " SCORE " -n 4 --place 2x2 --host-timing off " WL "osu_mbw_mr -m 1:65536 -i 5 -x 1";
  cr_assert_eq(run(cmd, &a, 0), 0);
  cr_assert_eq(run(cmd, &b, 0), 0);
  cr_assert(strlen(a) > 100, "%s", a);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
}

/* Every workload: header lines start with '#', then rows "size value..." for the sizes asked. */
Test(e2e, workload_outputs_parse)
{
  struct {
    const char *prog;
    int ranks;
    long first, last;
  } w[] = {{"osu_latency", 2, 0, 1024},  {"osu_bw", 2, 1, 1024},        {"osu_bibw", 2, 1, 1024},
           {"osu_mbw_mr", 4, 1, 1024},   {"osu_alltoall", 4, 1, 1024},  {"osu_allreduce", 4, 4, 1024},
           {"osu_msgrate", 2, 1, 1024}};
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, ICSIM " run -p " SCORE " -n %d --place cyclic --host-timing off " WL "%s -m %ld:%ld -i 3 -x 1",
             w[i].ranks, w[i].prog, w[i].first, w[i].last);
    cr_assert_eq(run(cmd, &out, 0), 0, "%s: %s", w[i].prog, out);
    cr_assert(out[0] == '#', "%s output starts with '%c'", w[i].prog, out[0]);
    int rows = 0;
    for (long s = w[i].first; s <= w[i].last; s = s ? 2 * s : 1) {
      double v = row_value(out, s);
      cr_assert(v > 0, "%s: no positive value for size %ld in\n%s", w[i].prog, s, out);
      rows++;
    }
    printf("%s: %d rows parsed\n", w[i].prog, rows);
    free(out);
  }
}

Test(e2e, dry_run_command_works_when_pasted)
{
  char *direct, *cmd, *pasted;
  const char *args = " -p " SCORE " -n 2 --place 2x1 --host-timing off " WL "osu_latency -m 0:64 -i 5 -x 1";
  char buf[1024];
  snprintf(buf, sizeof buf, ICSIM " run%s", args);
  cr_assert_eq(run(buf, &direct, 0), 0);
  snprintf(buf, sizeof buf, ICSIM " run --dry-run%s", args);
  cr_assert_eq(run(buf, &cmd, 0), 0);
  cr_assert(strstr(cmd, "smpirun -platform"), "%s", cmd);
  char *sh;
  if (asprintf(&sh, "sh -c '%s'", cmd) < 0) /* the command holds no single quote */
    abort();
  sh[strlen(sh) - 2] = '\'';
  sh[strlen(sh) - 1] = '\0';
  cr_assert_eq(run(sh, &pasted, 0), 0, "%s", pasted);
  cr_assert_str_eq(direct, pasted);
  free(sh);
  free(direct);
  free(cmd);
  free(pasted);
}

static void expect_failure(const char *cmd, int status, const char *needle)
{
  char *out;
  int rc = run(cmd, &out, 1);
  cr_assert_eq(rc, status, "'%s' exited %d, expected %d:\n%s", cmd, rc, status, out);
  cr_assert(strstr(out, needle), "'%s' said:\n%s\nexpected: %s", cmd, out, needle);
  free(out);
}

Test(e2e, bad_runs_are_explained)
{
  expect_failure(ICSIM " run -p " SCORE " -n 2 --host-timing off " ICSIM_BUILD "/tests/progs/deadlock", 3,
                 "deadlocked");
  expect_failure(ICSIM " run -p " SCORE " -n 2 --host-timing off " ICSIM_BUILD "/tests/progs/deadlock", 3,
                 "rank 1 on node0.s1 waiting for communication");
  expect_failure(ICSIM " run -p " SCORE " -n 2 --host-timing off " ICSIM_BUILD "/tests/progs/crash", 139,
                 "the program crashed (segmentation fault");
  expect_failure(ICSIM " run -p " SCORE " -n 2 --host-timing off " ICSIM_BUILD "/tests/progs/exit7", 7, "");
  expect_failure(ICSIM " run -p " SCORE " -n 17 " WL "osu_latency", 2, "8 nodes x 2 cores = 16 cores");
  expect_failure(ICSIM " run -p " SCORE " -n 4 --place 3x2 " WL "osu_latency", 2, "make N x C equal -n");
  expect_failure(ICSIM " run -p " SCORE " -n 2 /nonexistent/prog", 2, "not found or not executable");
  expect_failure(ICSIM " run -p /nonexistent.yaml -n 2 " WL "osu_latency", 2, "cannot open");
  expect_failure(ICSIM " run -p " SCORE " -n 2 --set network/link-bandwidth=1GB " WL "osu_latency", 2,
                 "is a size, but a bandwidth is expected");
  expect_failure(ICSIM " validate no-such-case", 2, "no case 'no-such-case'");
  expect_failure(ICSIM " run -p " SCORE " -n 2 --set layers=rapidio,numa " WL "osu_latency", 2, "cannot hold together");
  /* a switch that pauses drops nothing: a port buffer beside PAUSE is a contradiction */
  expect_failure(ICSIM " run -p " SCORE " -n 2 --set generic/switch-port-buffer=64KiB " WL "osu_latency", 2,
                 "generic/pause-frames=false or generic/switch-port-buffer=0B");
}

Test(e2e, sumimoto_rtt_validates)
{
  char dir[] = "/tmp/icsim-val-XXXXXX", cmd[512], *out;
  cr_assert(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, ICSIM " validate sumimoto-rtt --out %s/out", dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "cat %s/out/summary.csv", dir);
  run(cmd, &out, 0);
  const char *header = "case,metric,x,published,simulated,rel_error,tolerance,status\n";
  cr_assert(strncmp(out, header, strlen(header)) == 0, "%s", out);
  cr_assert(strstr(out, "sumimoto-rtt,rtt_us,0,43.328,"), "%s", out);
  cr_assert(strstr(out, ",pass\n"), "%s", out);
  free(out);
  /* the report shows where the run's time went, drawn from its --stats breakdown */
  snprintf(cmd, sizeof cmd, "grep -c 'sumimoto-rtt-breakdown.png' %s/out/report.md && test -s %s/out/sumimoto-rtt-breakdown.png",
           dir, dir);
  cr_assert_eq(run(cmd, &out, 0), 0, "no breakdown picture in the report: %s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  system(cmd);
}

/* The workloads are ordinary MPI: they build with Debian's mpicc and run natively. */
Test(e2e, workloads_build_and_run_natively)
{
  char *out;
  if (run("command -v mpicc.mpich && command -v mpiexec.mpich", &out, 0) != 0) {
    free(out);
    cr_skip_test("mpicc.mpich/mpiexec.mpich not installed");
  }
  free(out);
  char dir[] = "/tmp/icsim-native-XXXXXX", cmd[1024];
  cr_assert(mkdtemp(dir));
  const char *progs[] = {"osu_latency", "osu_bw", "osu_bibw", "osu_mbw_mr", "osu_alltoall", "osu_allreduce",
                         "osu_msgrate"};
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
    snprintf(cmd, sizeof cmd, "mpicc.mpich -O2 -o %s/%s " ICSIM_SRC "/workloads/osu/%s.c " ICSIM_SRC "/workloads/osu/osu_util.c",
             dir, progs[i], progs[i]);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", cmd, out);
    free(out);
    snprintf(cmd, sizeof cmd, "mpiexec.mpich -n 2 %s/%s -m 1:64 -i 2 -x 1", dir, progs[i]);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", cmd, out);
    cr_assert(row_value(out, 64) > 0, "%s printed:\n%s", progs[i], out);
    free(out);
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  system(cmd);
}

/* One 64 KiB message between two RapidIO nodes against the model's closed form: sender's MX
 * path and programming of 16 messages, queue handshake on mailbox 0, 16 x (16 segments with
 * their status round trips + completion wait), 15 pull requests, the closing doorbell, receiver's
 * MX path. */
Test(e2e, rapidio_large_message_matches_closed_form)
{
  char *out;
  int rc = run(ICSIM " run -p " ICSIM_SRC "/tests/data/rapidio-2node.yaml -n 2 --place 2x1 --host-timing off " WL
               "osu_latency -m 65536:65536 -i 4 -x 1", &out, 0);
  cr_assert_eq(rc, 0, "%s", out);
  const double bw = 192e6, lat = 2 * 50e-9 + 200e-9, clock = 50e6;
  double seg = (256 + 12) / bw + lat + 100e-9 + 8 / bw + lat; /* segment + delivery status */
  double send = (5000 + 16 * 200) / clock, recv = 5000 / clock;
  double handshake = 2 * (2 * 1000 / clock + seg); /* request + reply, one segment each */
  double chain = 16 * (16 * seg + 100e-6);
  /* an MX large message (above MX's 32 KiB): the receiver pulls each 4 KiB after the first with a
   * control message on mailbox 0 */
  double pulls = 15 * (2 * 1000 / clock + seg);
  double doorbell = (2 + 12) / bw + lat;
  double expect = send + handshake + chain + pulls + doorbell + recv;
  double sim = row_value(out, 65536) * 1e-6;
  printf("rapidio 64 KiB one way: simulated %.2f us, closed form %.2f us\n", sim * 1e6, expect * 1e6);
  cr_assert(fabs(sim - expect) <= 0.006e-6 + 1e-6 * expect, "%.4f vs %.4f us", sim * 1e6, expect * 1e6);
  free(out);
}

/* Two transfers each way across one QPI link against the closed form of the numa model, with
 * the parameters pinned here: a lone cross-socket copy is bound by its memory controllers
 * (two half copies on each = one copy's bus demand), two interleaved streams by the link. */
Test(e2e, qpi_two_streams_closed_form)
{
  char *out;
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           ICSIM " run -p %s -n 4 --place 0.0,0.0,0.1,0.1 --host-timing off --set numa/stream-bandwidth=6GBps"
                 " --set numa/sharpness=2 --set nodes/memory-bandwidth=24GBps --set nodes/socket-link-bandwidth=12GBps"
                 " --set numa/qpi-stream-bandwidth=3GBps --set numa/qpi-sharpness=4 " WL "contention -P half -m 128 -n 2",
           ICSIM_SRC "/platforms/sibsutis-numa-ib.yaml");
  cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
  double m, cf, t1, tcf, ratio;
  const char *row = strstr(out, "\n128 ");
  cr_assert(row && sscanf(row + 1, "%lf %lf %lf %lf %lf", &m, &cf, &t1, &tcf, &ratio) == 5, "%s", out);
  /* alone: bus = 24 ((12/24)^-2 + 1)^-1/2 = 24 / sqrt(5) GB/s, one copy's rate half of it */
  double alone = 24e9 / sqrt(5) / 2;
  /* shared: link (2 x 3 GB/s interleaved against 12 GB/s) = 12 (2^4 + 1)^-1/4 GB/s for two;
   * each controller (four half copies: 24 GB/s demand) would still give each of its four
   * transfers 24 (1 + 1)^-1/2 / 4 GB/s */
  double link = 12e9 * pow(17, -0.25) / 2, mem = 24e9 / sqrt(2) / 4;
  double expect = alone / fmin(link, mem);
  printf("QPI, 2 streams each way, 128 MB: slowdown simulated %.4f, closed form %.4f\n", ratio, expect);
  cr_assert(fabs(ratio - expect) < 0.01 * expect, "%.4f vs %.4f\n%s", ratio, expect, out);
  free(out);
}

/* Three transfers each way through one node's network adapter against the closed form of the
 * numa adapter model: alone a connection reaches r_a; three share min(3 r_a, C), so the
 * slowdown is 3 r_a / C (memory controllers and framing pinned out of the way). */
Test(e2e, adapter_three_connections_closed_form)
{
  char *out;
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           ICSIM " run -p %s -n 6 --place 0,0,0,1,1,1 --host-timing off --set numa/adapter-stream-bandwidth=3GBps"
                 " --set network/link-bandwidth=4GBps --set generic/frame-header=0B --set nodes/memory-bandwidth=1TBps "
           WL "contention -P half -m 128 -n 2",
           ICSIM_SRC "/platforms/sibsutis-numa-ib.yaml");
  cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
  double m, cf, t1, tcf, ratio;
  const char *row = strstr(out, "\n128 ");
  cr_assert(row && sscanf(row + 1, "%lf %lf %lf %lf %lf", &m, &cf, &t1, &tcf, &ratio) == 5, "%s", out);
  double expect = 3 * 3e9 / 4e9;
  printf("adapter, 3 connections each way, 128 MB: slowdown simulated %.4f, closed form %.4f\n", ratio, expect);
  cr_assert(fabs(ratio - expect) < 0.01 * expect, "%.4f vs %.4f\n%s", ratio, expect, out);
  free(out);
}

/* Inside a node a message above the shared-memory eager threshold is the receiver's core copying
 * it (CMA): the transfer flows no faster than generic/single-copy-bandwidth, however fast the memory
 * channels are. Halving that rate from 1 to 0.5 GB/s must lengthen osu_latency's one-way 1 MB time
 * by exactly 1048576 B x (1/0.5 - 1/1) ns/B = 1048.6 us: everything else (handshake through the
 * ring, latency) is the same in both runs. */
Test(e2e, single_copy_inside_a_node_runs_at_one_core)
{
  double t[2];
  const char *rates[2] = {"1GBps", "0.5GBps"};
  for (int k = 0; k < 2; k++) {
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd,
             ICSIM " run -p %s -n 2 --place 1x2 --host-timing off --set generic/single-copy-bandwidth=%s "
                   "%s/osu_latency -m 1048576:1048576",
             ICSIM_SRC "/platforms/sibsutis-numa-ib.yaml", rates[k], ICSIM_BUILD "/workloads");
    cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
    const char *row = strstr(out, "\n1048576 ");
    cr_assert(row && sscanf(row + 1, "%*d %lf", &t[k]) == 1, "%s", out);
    free(out);
  }
  double diff = t[1] - t[0], expect = 1048576 * (1 / 0.5e9 - 1 / 1e9) * 1e6;
  printf("1 MB inside a node: %.2f us at 1 GB/s, %.2f us at 0.5 GB/s; difference %.2f us, closed form %.2f us\n", t[0],
         t[1], diff, expect);
  cr_assert(fabs(diff - expect) < 0.01 * expect, "difference %.2f us, expected %.2f us", diff, expect);
}

/* Run CMD (a numa test's icsim run) and return its printed value at SIZE bytes, or, for SIZE 0,
 * the all-to-all's row of RANKS ranks (the contention program prints one row per rank count). */
static double numa_run_value(const char *cmd, long size, int ranks)
{
  char *out, row[16];
  cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
  double v = -1;
  snprintf(row, sizeof row, "\n%d ", ranks);
  const char *at = size > 0 ? NULL : strstr(out, row);
  if (size > 0)
    v = row_value(out, size);
  else if (at)
    sscanf(at + 1, "%*d %lf", &v);
  cr_assert(v > 0, "%s", out);
  free(out);
  return v;
}

/* numa/core-copies: a message inside a node is one copy made by the receiver's core (CMA), and a
 * core makes its copies one after another. On sibsutis-numa-ib with the memory channels made
 * plain (no cache share: numa/cache-bytes 0; a controller of 1 TB/s that never saturates; sharpness
 * 64, so that bus(k) = min(2 k s, B) = 2 k s), one core copies at s = numa/stream-bandwidth = 2 GB/s
 * (the bus carries its read and its write, 2s), and k cores copying at once deliver k s:
 *  - osu_bw, 1 MiB, one socket: 64 messages in flight, all copied by the one receiving core, so the
 *    window moves at one core's rate: 2000 MB/s (without the mechanism, 64 copies at once: ~64x);
 *  - osu_bw, 1 MiB, across the sockets: a crossing copy is half a copy on each controller
 *    (2 x capacity(k/2) = k s) and, with one core copying, a lone stream on QPI (the link's 11.72
 *    GB/s, not the bound): 2000 MB/s again (without it: 64 interleaved streams fill QPI, ~11.7 GB/s);
 *  - the same across the sockets with interleaved QPI streams made slow (numa/qpi-stream-bandwidth
 *    10 MB/s, so C(n) = ((n r_i)^-4 + C^-4)^-1/4 = n r_i while n r_i << C): one core copying is a lone
 *    stream, which the prefetchers keep at the link's rate, so the memory channels bound it: 2000 MB/s
 *    (without the mechanism the window's 64 copies are 64 interleaved streams: 640 MB/s);
 *  - all-to-all of 1 MiB among 3 ranks of one socket with every partner at once (block 3): each core
 *    receives 3 messages (its own included), 3 cores copy at once, so the 9 transfers share 3 s and
 *    the exchange takes 3 x 1 MiB / 2 GB/s = 1.5729 ms (without it, 9 copies at once: 0.524 ms).
 * The rendezvous handshakes and per-message CPU are microseconds against milliseconds: 2% tolerance. */
static double core_copies_run(const char *core, const char *place, const char *set, const char *prog, long size)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           ICSIM " run -p " ICSIM_SRC "/platforms/sibsutis-numa-ib.yaml -n %d --place %s --host-timing off "
                 "--set numa/core-copies=%s --set numa/cache-bytes=0B --set numa/sharpness=64 "
                 "--set nodes/memory-bandwidth=1TBps --set numa/stream-bandwidth=2GBps %s " WL "%s",
           !strncmp(prog, "alltoall", 8) ? 3 : 2, place, core, set, prog);
  return numa_run_value(cmd, size, 3);
}

Test(e2e, core_copies_one_core_per_receiver)
{
  const double s = 2e9, m = 1048576;
  struct {
    const char *what, *place, *set, *prog;
    long size;
    double expect;
  } c[] = {
      {"osu_bw 1 MiB one socket (MB/s)", "0.0,0.0", "", "osu_bw -m 1048576:1048576", 1048576, s / 1e6},
      {"osu_bw 1 MiB two sockets (MB/s)", "0.0,0.1", "", "osu_bw -m 1048576:1048576", 1048576, s / 1e6},
      {"osu_bw 1 MiB two sockets, slow interleaved QPI streams (MB/s)", "0.0,0.1",
       "--set numa/qpi-stream-bandwidth=10MBps", "osu_bw -m 1048576:1048576", 1048576, s / 1e6},
      {"all-to-all 1 MiB, 3 ranks, block 3 (s)", "0.0,0.0,0.0", "", "alltoall_block -m 1048576 -b 3 -i 2", 0,
       3 * m / s},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    double on = core_copies_run("true", c[i].place, c[i].set, c[i].prog, c[i].size);
    double off = core_copies_run("false", c[i].place, c[i].set, c[i].prog, c[i].size);
    printf("%s: closed form %.6g, simulated %.6g (each transfer a copy of its own: %.6g)\n", c[i].what, c[i].expect,
           on, off);
    cr_assert(fabs(on - c[i].expect) < 0.02 * c[i].expect, "%s: %.6g, expected %.6g", c[i].what, on, c[i].expect);
    /* the test can fail: without the mechanism the figure is off by far more than the tolerance */
    cr_assert(fabs(off - c[i].expect) > 0.5 * c[i].expect, "%s without core-copies: %.6g", c[i].what, off);
  }
}

/* numa/cache-recency: a copy inside a socket finds in the cache what of its two buffers the socket's
 * transfers touched recently enough (an LRU stack of buffers, stacks/numa/cache_lru.h). On
 * sibsutis-numa-ib with numa/core-copies on and a controller that never saturates (as above:
 * sharpness 64, 1 TB/s, so bus(k) = 2 k s), one core copies at s = 2 GB/s from memory and at the
 * platform's r_c = numa/cache-bandwidth = 15.5 GB/s from the cache, its 12 MiB L3 as it is:
 *  - osu_bw, 1 MiB, one socket: every message of every window is copied from one send buffer into one
 *    receive buffer, 2 MiB in all, the cache's two most recent ranges after the warm-up: resident,
 *    one core at r_c: 15500 MB/s. (With core-copies on, one 2 MiB working set counted in flight fits
 *    too: both rules give r_c here; without core-copies, the 64 copies in flight were 128 MiB.)
 *  - the block all-to-all of 1 MiB among 4 ranks of one socket (alltoall_block -b 1, 2 timed
 *    iterations after an untimed warm-up): each rank's send and receive buffers are 4 MiB apiece, and
 *    one all-to-all makes 4 ranks x 4 copies (its own block included: a message to itself is a copy
 *    too) of 2 MiB each, 32 MiB, so a block's copy comes back at stack distance 30 + 2 = 32 MiB:
 *    the cache keeps h = (12 / 32)^3 = 0.0527 of it (numa_cache_share). Each of the 4 steps is 4
 *    copies at once, one per core, each of 1 MiB at 1 / (h / r_c + (1 - h) / s): the all-to-all takes
 *    4 x 1 MiB x (0.0527 / 15.5 GB/s + 0.9473 / 2 GB/s) = 2.0008 ms (an ideal LRU, keeping none of
 *    it: 2.0972 ms). Counting the 4 copies in flight instead (4 x 2 MiB = 8 MiB, fitting 12 MiB) runs
 *    them at r_c: 4 x 1 MiB / 15.5 GB/s = 0.271 ms.
 * Handshakes and per-message CPU are microseconds: 2% tolerance. The all-to-all fails without the
 * mechanism (more than 50% off); the osu_bw row shows the window stays resident with it. */
static double recency_run(const char *on, int n, const char *place, const char *prog, long size)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           ICSIM " run -p " ICSIM_SRC "/platforms/sibsutis-numa-ib.yaml -n %d --place %s --host-timing off "
                 "--set numa/core-copies=true --set numa/cache-recency=%s --set numa/sharpness=64 "
                 "--set nodes/memory-bandwidth=1TBps --set numa/stream-bandwidth=2GBps " WL "%s",
           n, place, on, prog);
  return numa_run_value(cmd, size, n);
}

Test(e2e, cache_recency_buffers_decide_residency)
{
  const double s = 2e9, rc = 15.5e9, m = 1048576;
  double bw = recency_run("true", 2, "0.0,0.0", "osu_bw -m 1048576:1048576", 1048576);
  double bw_off = recency_run("false", 2, "0.0,0.0", "osu_bw -m 1048576:1048576", 1048576);
  printf("osu_bw 1 MiB one socket: closed form %.6g MB/s, simulated %.6g (copies in flight decide: %.6g)\n", rc / 1e6,
         bw, bw_off);
  cr_assert(fabs(bw - rc / 1e6) < 0.02 * rc / 1e6, "osu_bw %.6g MB/s, expected %.6g", bw, rc / 1e6);
  const char *a2a = "alltoall_block -m 1048576 -b 1 -i 2";
  double t = recency_run("true", 4, "0.0,0.0,0.0,0.0", a2a, 0);
  double t_off = recency_run("false", 4, "0.0,0.0,0.0,0.0", a2a, 0);
  const double h = pow(12.0 / 32, 3);
  double expect = 4 * m * (h / rc + (1 - h) / s);
  printf("all-to-all 1 MiB, 4 ranks, one socket: closed form %.6g s, simulated %.6g s (copies in flight decide: %.6g; "
         "in-cache closed form %.6g)\n", expect, t, t_off, 4 * m / rc);
  cr_assert(fabs(t - expect) < 0.02 * expect, "all-to-all %.6g s, expected %.6g", t, expect);
  cr_assert(fabs(t_off - expect) > 0.5 * expect, "all-to-all without cache-recency: %.6g s", t_off);
}

/* An all-to-all(v) posted all at once among 4 nodes through a switch with 802.3x PAUSE: every
 * output port is fed by 3 sources that each send to 3 nodes, so head-of-line blocking leaves it
 * Karol et al.'s sat(3) = 0.6825 of its link. On the zero-overhead star the bandwidth-bound
 * exchange of 1 MB blocks must take 1 / 0.6825 = 1.4652 times as long as without PAUSE. */
Test(e2e, pause_frames_all_to_all_closed_form)
{
  double t[2];
  for (int k = 0; k < 2; k++) {
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd,
             ICSIM " run -p " ICSIM_SRC "/tests/data/star-16.yaml -n 4 --place cyclic --host-timing off "
                   "--set mpi/alltoall-throttle=0 --set generic/pause-frames=%s " ICSIM_BUILD
                   "/tests/progs/coll_time alltoallv 1000000 2",
             k ? "true" : "false");
    cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
    cr_assert(sscanf(out, "%*s %*d %lf", &t[k]) == 1 && strstr(out, "No Errors"), "%s", out);
    free(out);
  }
  double ratio = t[1] / t[0], expect = 1 / 0.6825;
  printf("all-to-all(v) of 1 MB on 4 nodes: %.6f s fair sharing, %.6f s with PAUSE; ratio %.4f, closed form %.4f\n",
         t[0], t[1], ratio, expect);
  cr_assert(fabs(ratio - expect) < 0.01 * expect, "ratio %.4f, expected %.4f", ratio, expect);
}

/* An incast through a switch that drops (generic/switch-port-buffer, no PAUSE): 7 senders on the
 * zero-overhead star (C = 125 MB/s links, 1 us per link and per switch, so a round trip of 6 us
 * and 750 B on the wire) each send S = 250 kB at once to rank 0, with windows of W = 16 frames of
 * 1500 B (24000 B) into a port buffer of B = 48000 B. The port holds B + 750 B = 48750 B of
 * windows: the first transfer feeds it alone, the second brings 48000 B (fits), each of the other 5
 * would bring 72000 B or more, overflows and waits the retransmission timeout RTO = 10 ms.
 * By hand: the 2 that fit share the port and are done at 2 S / C = 4 ms < RTO; the port is idle
 * until RTO, then the 5 share it: last byte at RTO + 5 S / C = 10 + 10 = 20 ms. Without drops
 * all 7 share it from the start: 7 S / C = 14 ms. So the run with drops takes
 * RTO - 2 S / C = 6 ms longer than the one without (both pay the same latencies); asserted
 * within 1% of the 20 ms. A buffer that holds all 7 windows (B = 168000 B) loses nothing. */
Test(e2e, switch_port_buffer_incast_by_hand)
{
  const double S = 250000, C = 125e6, rto = 10e-3, k = 7, m = 2;
  const char *buffers[3] = {"0B", "48000B", "168000B"};
  double t[3];
  for (int i = 0; i < 3; i++) {
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd,
             ICSIM " run -p " ICSIM_SRC "/tests/data/star-16.yaml -n 8 --host-timing off --set generic/frame-payload=1500B "
                   "--set generic/send-window=16 --set generic/retransmit-timeout=10ms --set generic/switch-port-buffer=%s "
                   ICSIM_BUILD "/tests/progs/incast 250000",
             buffers[i]);
    cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
    cr_assert(sscanf(out, "incast %*d %*d %lf", &t[i]) == 1 && strstr(out, "No Errors"), "%s", out);
    free(out);
  }
  double expect = t[0] + rto - m * S / C;
  printf("7-to-1 incast of 250 kB: %.6f s without drops (7 S/C = %.6f), %.6f s with a 48000 B port buffer "
         "(by hand %.6f), %.6f s with 168000 B\n",
         t[0], k * S / C, t[1], expect, t[2]);
  cr_assert(fabs(t[0] - k * S / C) < 0.01 * k * S / C, "no drops: %.6f s, 7 S / C = %.6f s", t[0], k * S / C);
  cr_assert(fabs(t[1] - expect) < 0.01 * expect, "with drops: %.6f s, by hand %.6f s", t[1], expect);
  cr_assert(fabs(t[2] - t[0]) < 1e-3 * t[0], "a buffer holding every window: %.6f s, without drops %.6f s", t[2], t[0]);
}

/* The contention study's tools run and print what they promise. */
Test(e2e, contention_benchmark_and_place)
{
  char *out;
  const char *ib = ICSIM_SRC "/platforms/sibsutis-numa-ib.yaml";
  char cmd[1024];
  snprintf(cmd, sizeof cmd, ICSIM " run -p %s -n 4 --place 0,0,1,1 --host-timing off " WL "contention -P half -m 4,8 -n 2",
           ib);
  cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
  double m, cf, t1, tcf, ratio;
  const char *row = strstr(out, "\n8 ");
  cr_assert(row && sscanf(row + 1, "%lf %lf %lf %lf %lf", &m, &cf, &t1, &tcf, &ratio) == 5, "%s", out);
  cr_assert_float_eq(cf, 2, 0);
  cr_assert(t1 > 0 && tcf >= t1 && fabs(ratio - tcf / t1) < 1e-2, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, ICSIM " place -p %s -n 8 --msg 64KiB", ib);
  cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
  /* 8 cores on 6 nodes of 8 cores: 1x8, 2x4, 4x2 (8x1 does not fit) */
  cr_assert(strstr(out, "1x8") && strstr(out, "2x4") && strstr(out, "4x2") && !strstr(out, "8x1"), "%s", out);
  free(out);
}

/* "NAME = X" printed by tests/progs/compute_loop. */
static double printed(const char *out, const char *name)
{
  const char *p = strstr(out, name);
  return p ? atof(p + strlen(name)) : -1;
}

/* An external program's own computation (host timing on) is charged at the simulated core's
 * clock, not this machine's: measured seconds t become t x H / (clock x ops-per-cycle), H this
 * machine's scalar operations per second. H is fixed here (ICSIM_HOST_OPS) and the program reads
 * its own thread CPU time around the loop, so the check does not depend on this machine's speed
 * or load: simulated = CPU seconds x H / clock, on a 3.8 GHz Xeon and on the 65.44 MHz RapidIO
 * prototype (both ops-per-cycle 1), within 5% (SMPI's timer window is a few calls wider). */
Test(e2e, host_timed_compute_follows_the_simulated_clock)
{
  const double H = 3.0e9, clocks[2] = {3.8e9, 65.44e6}; /* the platforms' nodes/clock */
  const char *plats[2] = {SCORE, ICSIM_SRC "/platforms/niisi-rapidio-4.yaml"};
  for (int k = 0; k < 2; k++) {
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd,
             "ICSIM_HOST_OPS=%g " ICSIM " run -p %s -n 1 --host-timing on " ICSIM_BUILD
             "/tests/progs/compute_loop 100000000",
             H, plats[k]);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
    double sim = printed(out, "Loop seconds = "), cpu = printed(out, "Loop CPU seconds here = ");
    cr_assert(sim > 0 && cpu > 0, "%s", out);
    double expect = cpu * H / clocks[k];
    printf("compute loop at %.4g Hz: %.4f s of CPU here, simulated %.4f s, CPU x H / clock %.4f s\n", clocks[k], cpu,
           sim, expect);
    cr_assert(fabs(sim / expect - 1) < 0.05, "%.4f s vs %.4f s", sim, expect);
    free(out);
  }
}

/* `icsim calibrate-host` measures this machine (a chain of dependent additions, one per clock)
 * and stores the rate where `run --host-timing on` finds it: a number of operations per second
 * that any x86-64 core of the last twenty years falls within (0.5 to 10 GHz equivalent). */
Test(e2e, calibrate_host_stores_this_machines_rate)
{
  char *out;
  cr_assert_eq(run(ICSIM " calibrate-host", &out, 1), 0, "%s", out);
  cr_assert(strstr(out, "scalar operations per second"), "%s", out);
  free(out);
  FILE *f = fopen(ICSIM_BUILD "/host-speed.txt", "r");
  cr_assert(f, "no " ICSIM_BUILD "/host-speed.txt");
  double h = 0;
  cr_assert_eq(fscanf(f, "%lf", &h), 1);
  fclose(f);
  cr_assert(h > 0.5e9 && h < 10e9, "%g operations per second", h);
}

/* `--clock` prints the rate and stores nothing; `--clock-trace` samples until SIGTERM and then
 * prints its mean and sample count (host-npb-compute stops it that way after each native run). */
Test(e2e, calibrate_host_clock_and_trace_print_and_stop_on_signal)
{
  char *out;
  cr_assert_eq(run(ICSIM " calibrate-host --clock", &out, 1), 0, "%s", out);
  double hz = atof(out);
  cr_assert(hz > 0.5e9 && hz < 10e9, "%s", out);
  free(out);
  cr_assert_eq(run("sh -c '" ICSIM " calibrate-host --clock-trace & p=$!; sleep 0.5; kill -TERM $p; wait $p'", &out, 1), 0,
               "%s", out);
  double mean = 0;
  long n = 0;
  int got = sscanf(out, "%lf %ld", &mean, &n);
  cr_assert_eq(got, 2, "%s", out);
  cr_assert(mean > 0.3e9 && mean < 10e9 && n >= 10, "%s", out);
  free(out);
}

/* --stats is JSON written and read by one library (sim/stats_json.h): a --set value holding quotes,
 * backslashes and a newline comes back as given, and the counters beside it still read. */
Test(e2e, stats_keep_any_set_value_and_read_back)
{
  char dir[] = "/tmp/icsim-stats-XXXXXX";
  cr_assert(mkdtemp(dir));
  char value[256], cmd[1024], *out, *text;
  snprintf(value, sizeof value, "%s/q\"uo\\te\nd.pattern", dir);
  /* the value reaches the shell through a file: no quoting of ours stands between it and icsim */
  char vfile[300];
  snprintf(vfile, sizeof vfile, "%s/value", dir);
  FILE *f = fopen(vfile, "w");
  cr_assert(f);
  fputs(value, f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           ICSIM " run -p " ICSIM_SRC "/platforms/vniief-smpo.yaml -n 2 --host-timing off "
                 "--set \"smpo/record-pattern=$(cat %s)\" --stats %s/s.json osu_latency -m 0:1",
           vfile, dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "cat %s/s.json", dir);
  cr_assert_eq(run(cmd, &text, 0), 0);
  char *back = icsim_stats_string(text, "sets/smpo/record-pattern");
  cr_assert(back, "no sets/smpo/record-pattern in:\n%s", text);
  cr_assert_str_eq(back, value);
  cr_assert_gt(icsim_stats_get(text, "mpi/messages"), 0, "%s", text);
  cr_assert_eq(icsim_stats_get(text, "mpi/unmatched_transfers"), 0, "%s", text);
  cr_assert_gt(icsim_stats_get(text, "simulated_time_s"), 0, "%s", text);
  free(back);
  free(text);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}
