/* Fortran programs go through the MPI layer like C ones (sim/mpi/fortran.c): C/Fortran twins
 * making the same MPI calls must simulate the same times on every platform, and a self-checking
 * Fortran program exercises the handle, index and status conventions of the Fortran entry points.
 * Before those entry points existed, SMPI's own Fortran bindings bypassed the layer: the Fortran
 * ping-pong showed 2.14 us where its C twin shows 677.17 us on niisi-rapidio-4. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_json.h"

#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define WL ICSIM_BUILD "/workloads/"

/* The number after LABEL in OUT, or -1. */
static double labelled(const char *out, const char *label)
{
  const char *p = strstr(out, label);
  double v;
  return p && sscanf(p + strlen(label), " = %lf", &v) == 1 ? v : -1;
}

static void each_platform(void (*fn)(const char *path, const char *name))
{
  glob_t g;
  cr_assert_eq(glob(ICSIM_SRC "/platforms/*.yaml", 0, NULL, &g), 0, "no platforms");
  for (size_t i = 0; i < g.gl_pathc; i++)
    fn(g.gl_pathv[i], strrchr(g.gl_pathv[i], '/') + 1);
  globfree(&g);
}

static char *icsim_run(const char *platform, const char *args)
{
  char *cmd, *out;
  if (asprintf(&cmd, ICSIM " run -p %s --host-timing off %s", platform, args) < 0)
    abort();
  int rc = run(cmd, &out, 1);
  cr_assert_eq(rc, 0, "%s\n%s", cmd, out);
  free(cmd);
  return out;
}

/* The platform's node count (icsim describe); the test stops if it cannot be read. */
static int nodes_of(const char *path)
{
  char *cmd, *out;
  if (asprintf(&cmd, ICSIM " describe -p %s", path) < 0)
    abort();
  int rc = run(cmd, &out, 1), n = -1;
  cr_assert_eq(rc, 0, "%s\n%s", cmd, out);
  const char *p = strstr(out, "\nnodes/count");
  if (p)
    sscanf(p + strlen("\nnodes/count"), "%d", &n);
  cr_assert_geq(n, 1, "%s: no nodes/count line in\n%s", cmd, out);
  free(cmd);
  free(out);
  return n;
}

static void latency_twins(const char *path, const char *name)
{
  const char *opts = "-m 1:65536 -i 20 -x 2";
  /* one rank on each of two nodes, or both on the one node of a one-node platform (ompi5490-haswell-ep) */
  int two = nodes_of(path) >= 2;
  const char *place = two ? "2x1" : "1x2";
  char args[256];
  snprintf(args, sizeof args, "-n 2 --place %s " WL "osu_latency %s", place, opts);
  char *c = icsim_run(path, args);
  snprintf(args, sizeof args, "-n 2 --place %s " WL "osu_latency_f %s", place, opts);
  char *f = icsim_run(path, args);
  printf("%s: osu_latency %s, 2 ranks on %s\n%10s %14s %14s %9s\n", name, opts, two ? "2 nodes" : "1 node", "size",
         "C us", "Fortran us", "diff");
  int rows = 0;
  for (long size = 1; size <= 65536; size *= 2, rows++) {
    double vc = row_value(c, size), vf = row_value(f, size);
    printf("%10ld %14.2f %14.2f %8.3f%%\n", size, vc, vf, vc > 0 ? 100 * (vf - vc) / vc : NAN);
    cr_expect(vc > 0 && vf > 0 && fabs(vf - vc) <= 0.01 * vc, "%s, %ld B: C %.2f us, Fortran %.2f us", name, size, vc,
              vf);
  }
  cr_assert_eq(rows, 17);
  free(c);
  free(f);
}

Test(fortran, osu_latency_twins_agree_on_every_platform) { each_platform(latency_twins); }

/* Checksum lines " T = n     Checksum = re im": the n-th pair of OUT (C prints e, Fortran E). */
static int checksum(const char *out, int n, double v[2])
{
  const char *p = out;
  for (int i = 0; i < n; i++) {
    if (!(p = strstr(p, "Checksum =")))
      return 0;
    p += strlen("Checksum =");
  }
  return sscanf(p, "%lf %lf", &v[0], &v[1]) == 2;
}

static void ft_twins(const char *path, const char *name)
{
  /* 4 ranks on 4 nodes, or 2 a node where the platform has fewer (the two-node case platforms), or all 4 on
   * the one node of a one-node platform */
  int nodes = nodes_of(path);
  const char *place = nodes >= 4 ? "-n 4 --place 4x1 " : nodes >= 2 ? "-n 4 --place 2x2 " : "-n 4 --place 1x4 ";
  char cargs[256], fargs[256];
  snprintf(cargs, sizeof cargs, "%s" WL "ft_comm S", place);
  snprintf(fargs, sizeof fargs, "%s" WL "ft_comm_f S", place);
  char *c = icsim_run(path, cargs);
  char *f = icsim_run(path, fargs);
  double tc = labelled(c, "Time in seconds"), tf = labelled(f, "Time in seconds");
  printf("%s: ft_comm S, 4 ranks on %s: C %.9f s, Fortran %.9f s (%+.3f%%)\n", name,
         nodes >= 4 ? "4 nodes" : nodes >= 2 ? "2 nodes" : "1 node",
         tc, tf, tc > 0 ? 100 * (tf - tc) / tc : NAN);
  cr_expect(tc > 0 && tf > 0 && fabs(tf - tc) <= 0.01 * tc, "%s: C %.9f s, Fortran %.9f s", name, tc, tf);
  /* the same data moved the same way: identical checksums, iteration by iteration */
  int n = 0;
  double a[2], b[2];
  while (checksum(c, n + 1, a)) {
    cr_expect(checksum(f, n + 1, b) && a[0] == b[0] && a[1] == b[1], "%s: checksum %d differs", name, n + 1);
    n++;
  }
  cr_expect_eq(n, 6, "%s: %d checksums\n%s", name, n, c);
  free(c);
  free(f);
}

Test(fortran, ft_comm_twins_agree_on_every_platform) { each_platform(ft_twins); }

/* Statuses ignored, 1-based waitany/testany/waitsome indices, persistent requests, handles nulled
 * on completion and on free, MPI_IN_PLACE, communicators (tests/progs/fortran_checks.f90). */
Test(fortran, handles_indices_and_statuses)
{
  for (int n = 2; n <= 4; n += 2) {
    char args[256];
    snprintf(args, sizeof args, "-n %d --stats /tmp/icsim-test-fortran-checks.json " ICSIM_BUILD "/tests/progs/fortran_checks", n);
    char *out = icsim_run(ICSIM_SRC "/platforms/score-gige-xeon.yaml", args);
    printf("%s", out);
    cr_expect(strstr(out, "fortran checks passed") != NULL, "%d ranks:\n%s", n, out);
    free(out);
    /* every transfer joined to its message: SMPI's own (windows, locks, communicators) bracketed
     * by the layer's Fortran entries, the program's announced */
    char *js = NULL;
    cr_assert_eq(run("cat /tmp/icsim-test-fortran-checks.json", &js, 0), 0);
    double unmatched = icsim_stats_get(js, "mpi/unmatched_transfers");
    cr_assert(!isnan(unmatched), "no unmatched_transfers counter:\n%s", js);
    cr_assert(unmatched == 0, "%d ranks: %g transfers not joined to their messages", n, unmatched);
    free(js);
  }
}
