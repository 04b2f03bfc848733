/* SMPO end to end: real MPI programs on platforms/vniief-smpo.yaml, against a closed form of the
 * packetised transfer written out here from the platform's values (not from the model's code). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_json.h"

#include "../../../tests/shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define WL ICSIM_BUILD "/workloads/"
#define SMPO ICSIM_SRC "/platforms/vniief-smpo.yaml"

/* The platform's defaults: 2 GHz modules, 100 MB/s links; smpo defaults: 4 KiB packets with 12
 * header fields of 4 B (48 B, 44 of them checksummed with the data; 4048 data bytes), CRC at 6.7
 * clocks/B, copies at 400 MB/s, library instructions 89 + 31 per packet sent and 52 per message received, queue 150 per
 * packet and 200 per message, driver 2 us + 100 instructions per packet, adapter 3 us per SMPO
 * message, 32 B control messages, inline <= 1 KiB, eager <= 128 KiB. */
#define CLK 2e9
#define BW 100e6
static double np(double b) { return b > 0 ? ceil(b / 4048) : 1; }
static double wire(double b) { return b + np(b) * 48; }
static double cks(double b) { return (2 * b + np(b) * 44) * 6.7 / CLK; }
static double snd(double b) { return (89 + 31 * np(b)) / CLK + cks(b) + b / 400e6 + 2e-6 + np(b) * 100 / CLK; }
static double rcv(double b)
{
  return 52 / CLK + np(b) * 150 / CLK + wire(b) / 400e6 + 200 / CLK + b / 400e6 + cks(b) + 2e-6 +
         np(b) * 100 / CLK;
}
/* store and forward over H transit modules: every packet on the first link, the largest again at
 * each transit module, an adapter start per SMPO message */
static double stream(const double *b, int n, int H, double L)
{
  double bytes = 0, big = 0;
  for (int i = 0; i < n; i++) {
    bytes += wire(b[i]);
    big = fmax(big, 48 + fmin(4048, b[i]));
  }
  return L + n * 3e-6 + (bytes + H * big) / BW;
}
static double one_way(double n, int H, double L)
{
  double c = 32;
  if (n <= 1024) {
    double b = c + n;
    return snd(b) + stream(&b, 1, H, L) + rcv(b);
  }
  if (n <= 131072) {
    double legs[2] = {c, n};
    return snd(c) + snd(n) + stream(legs, 2, H, L) + rcv(c) + rcv(n);
  }
  /* rendezvous: RTS out, CTS back, body; each side sends one control message and takes one */
  return snd(c) + rcv(c) + snd(n) + 2 * stream(&c, 1, H, L) + stream(&n, 1, H, L) + rcv(c) + snd(c) + rcv(n);
}

static void check_latency(const char *place, int H, double L, const long *sizes, int nsizes)
{
  char cmd[1024], *out;
  snprintf(cmd, sizeof cmd, ICSIM " run -p " SMPO " -n 2 --place %s --host-timing off " WL "osu_latency -m 0:262144 -i 4 -x 1",
           place);
  cr_assert_eq(run(cmd, &out, 0), 0, "%s", out);
  for (int i = 0; i < nsizes; i++) {
    double sim = row_value(out, sizes[i]) * 1e-6, expect = one_way((double)sizes[i], H, L);
    printf("smpo %-5s %7ld B one way: simulated %10.2f us, closed form %10.2f us\n", place, sizes[i], sim * 1e6,
           expect * 1e6);
    cr_assert(sim > 0 && fabs(sim - expect) <= 0.006e-6 + 1e-6 * expect, "size %ld: %.4f vs %.4f us", sizes[i],
              sim * 1e6, expect * 1e6);
  }
  free(out);
}

/* Neighbouring modules (one 100 ns link): inline, eager, rendezvous. */
Test(smpo_e2e, packetised_transfer_matches_closed_form)
{
  long sizes[] = {0, 1024, 2048, 65536, 131072, 262144}; /* inline, inline, eager x 3, rendezvous */
  check_latency("0,1", 0, 100e-9, sizes, 6);
}

/* Modules 0 and 10 of the 4 x 4 torus: 4 links and 3 transit modules (1 us each). */
Test(smpo_e2e, transit_hops_match_closed_form)
{
  long sizes[] = {0, 65536, 262144};
  check_latency("0,10", 3, 4 * 100e-9 + 3 * 1e-6, sizes, 3);
}

static double stat(const char *json, const char *name)
{
  double v = icsim_stats_get(json, name);
  return isnan(v) ? -1 : v;
}

static char *slurp(const char *path)
{
  char cmd[512], *out;
  snprintf(cmd, sizeof cmd, "cat %s", path);
  run(cmd, &out, 0);
  return out;
}

/* --stats: packets, checksums, ready-queue depth, shared-memory messages, transit hops. Ranks 0, 1
 * share module 0 (shared memory), rank 2 is on module 2 (one transit module away). */
Test(smpo_e2e, stats_count_the_mechanisms)
{
  char *out;
  int rc = run("printf '0 /dev/smpo0 0\\n1 /dev/smpo1 0\\n2 /dev/smpo0 2\\n' > /tmp/icsim-smpo-e2e.conf && " ICSIM
               " run -p " SMPO " -n 3 --place /tmp/icsim-smpo-e2e.conf --host-timing off --stats /tmp/icsim-smpo-e2e.json "
               WL "osu_alltoall -m 8:8 -i 10 -x 0",
               &out, 1);
  cr_assert_eq(rc, 0, "%s", out);
  free(out);
  char *j = slurp("/tmp/icsim-smpo-e2e.json");
  /* every message either stays on module 0 (shared memory) or goes to module 2 as one inline
   * SMPO message of one packet over one transit module (module 1), checked once at insertion and
   * once at receive */
  double msgs = stat(j, "messages"), shm = stat(j, "shm_messages"), net = msgs - shm;
  cr_assert_gt(shm, 0, "%s", j);
  cr_assert_gt(net, 0, "%s", j);
  /* of the 6 pairs of 3 ranks, 2 stay on module 0: one third of the all-to-all's messages */
  cr_assert_geq(shm, msgs / 3 - 1e-9);
  cr_assert_eq(stat(j, "packet_checksums"), net);
  cr_assert_eq(stat(j, "message_checksums"), net);
  cr_assert_eq(shm, stat(j, "intra_node_messages"));
  /* the wire side also sees SMPI's own transfers between the modules (no MPI message joined) */
  double wire = stat(j, "inline_messages"), internal = stat(j, "smpi_internal_transfers");
  cr_assert(wire >= net && wire <= net + internal, "%g inline for %g messages", wire, net);
  cr_assert_eq(stat(j, "packets"), wire);
  cr_assert_eq(stat(j, "transit_hops"), wire);
  cr_assert_geq(stat(j, "ready_queue_max_depth"), 1);
  cr_assert_eq(stat(j, "delivered_corrupted"), 0);
  cr_assert_eq(stat(j, "unqueued_receives"), 0);
  free(j);
}

/* Damaged packets stop the program with the library's diagnostic in every seeded run that damages
 * one; the clean run completes. */
Test(smpo_e2e, corrupted_packets_abort_the_program)
{
  int aborted = 0;
  for (int seed = 1; seed <= 3; seed++) {
    char cmd[1024], *out;
    snprintf(cmd, sizeof cmd,
             ICSIM " run -p " SMPO " -n 2 --place 0,1 --host-timing off --set smpo/corrupt-packet-rate=0.01 --set "
                   "smpo/corrupt-seed=%d " WL "osu_bw -m 65536:65536 -i 4 -x 1",
             seed);
    int rc = run(cmd, &out, 1);
    cr_assert_eq(rc, 1, "seed %d: %s", seed, out);
    cr_assert(strstr(out, "smpo: rank 1: checksum mismatch in packet") && strstr(out, "of message") &&
                  strstr(out, "from rank 0"), "%s", out);
    cr_assert_null(strstr(out, "65536 "), "a result was printed after the damage: %s", out);
    aborted++;
    free(out);
  }
  cr_assert_eq(aborted, 3);
  char *out;
  cr_assert_eq(run(ICSIM " run -p " SMPO " -n 2 --place 0,1 --host-timing off " WL "osu_bw -m 65536:65536 -i 4 -x 1",
                   &out, 1), 0, "%s", out);
  free(out);
}

/* NPB kernels run unchanged and verify; the queue system's invariants hold at the end. */
Test(smpo_e2e, npb_kernels_verify)
{
  const char *k[] = {"is S", "cg S", "mg S"};
  for (int i = 0; i < 3; i++) {
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, ICSIM " run -p " SMPO " -n 4 --place 2x2 --host-timing off %s", k[i]);
    cr_assert_eq(run(cmd, &out, 1), 0, "%s: %s", k[i], out);
    cr_assert(strstr(out, "Verification    =               SUCCESSFUL"), "%s: %s", k[i], out);
    cr_assert_null(strstr(out, "invariant broken"), "%s", out);
    free(out);
  }
}

Test(smpo_e2e, same_run_twice_is_byte_identical)
{
  char *a, *b;
  const char *cmd = ICSIM " run -p " SMPO " -n 4 --place 0,0,5,10 --host-timing off " WL "osu_mbw_mr -m 1:4096 -i 3 -x 1";
  cr_assert_eq(run(cmd, &a, 0), 0);
  cr_assert_eq(run(cmd, &b, 0), 0);
  cr_assert(strlen(a) > 100, "%s", a);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
}

/* icsim place --pattern-file on a ring (ranks in the order 0 3 6 1 4 7 2 5, 10 messages of 10 kB
 * to rank + 3): packed costs 40 transit hops (worked out in test_smpo.c), the ranked first mapping
 * none, and its configuration file runs under icsim run --place to the time place printed. */
Test(smpo_e2e, place_ranks_mappings_of_a_recorded_ring)
{
  FILE *f = fopen("/tmp/icsim-smpo-e2e-ring.pattern", "w");
  for (int r = 0; r < 8; r++)
    fprintf(f, "%d %d 10 100000\n", r, (r + 3) % 8);
  fclose(f);
  char *out;
  int rc = run("rm -f /tmp/icsim-smpo-e2e-best.conf; " ICSIM " place -p " SMPO
               " -n 8 --pattern-file /tmp/icsim-smpo-e2e-ring.pattern --write-best /tmp/icsim-smpo-e2e-best.conf",
               &out, 0);
  cr_assert_eq(rc, 0, "%s", out);
  int rank, hops, net, shm;
  char name[64];
  double t;
  const char *l = strstr(out, "\n1 ");
  cr_assert(l, "%s", out);
  cr_assert_eq(sscanf(l + 1, "%d %63s %lf %d %d %d", &rank, name, &t, &hops, &net, &shm), 6, "%s", out);
  cr_assert_eq(hops, 0, "%s", out);
  cr_assert_eq(net, 40, "%s", out);
  cr_assert_eq(shm, 40, "%s", out);
  const char *p = strstr(out, " packed ");
  cr_assert(p, "%s", out);
  double tp;
  cr_assert_eq(sscanf(p, " packed %lf %d", &tp, &hops), 2);
  cr_assert_eq(hops, 40, "%s", out);
  free(out);
  rc = run(ICSIM " run -p " SMPO " -n 8 --place /tmp/icsim-smpo-e2e-best.conf --host-timing off " WL
           "pattern_replay /tmp/icsim-smpo-e2e-ring.pattern",
           &out, 0);
  cr_assert_eq(rc, 0, "%s", out);
  const char *d = strstr(out, "\n8 ");
  cr_assert(d, "%s", out);
  cr_assert_float_eq(atof(d + 3), t, 1e-9, "%s", out);
  free(out);
  /* a bad line is named with its column */
  rc = run("printf '0 1 10 x\\n' > /tmp/icsim-smpo-e2e-bad.pattern; " ICSIM " place -p " SMPO
           " -n 8 --pattern-file /tmp/icsim-smpo-e2e-bad.pattern", &out, 1);
  cr_assert_eq(rc, 2, "%s", out);
  cr_assert(strstr(out, "icsim-smpo-e2e-bad.pattern:1:8: expected the byte count"), "%s", out);
  free(out);
  /* a platform without smpo among its layers has no layer that places patterns: refused, naming
   * its layers and the stack that does */
  rc = run(ICSIM " place -p " ICSIM_SRC "/platforms/sibsutis-numa-ib.yaml -n 8 --pattern-file "
           "/tmp/icsim-smpo-e2e-ring.pattern", &out, 1);
  cr_assert_eq(rc, 2, "%s", out);
  cr_assert(strstr(out, "(layers: generic, numa) places a recorded pattern; pattern placement is offered by smpo"),
            "%s", out);
  free(out);
}
