/* icsim calibrate end to end (issue 38): outputs made by icsim itself at known values of three
 * parameters are fitted back to them within 1% from starting points at the search bounds, held-out
 * rows are predicted, a second start reuses every run and writes the same platform; bad input
 * (an unreadable line, sizes the workload does not print, a `spec` value, an unknown key) is
 * refused with its file and line; two parameters the points cannot tell apart are named. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform.h"
#include "shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define PLATFORM ICSIM_SRC "/tests/data/pingpong-2node.yaml"
/* The true values the measurements are made with; the platform file has others (2us, 10us, 100MBps). */
#define TRUE_SETS "--set generic/send-overhead=5us --set network/link-latency=7us --set network/link-bandwidth=150MBps"
#define LAT_ARGS "-m 1:1048576 -i 10 -x 2"
#define BW_ARGS "-m 1:1048576 -i 4 -x 1"
#define FREE "--free generic/send-overhead=500ns..50us,network/link-latency=1us..100us,network/link-bandwidth=10MBps..1GBps"

static char *dir;

static void write_file(const char *name, const char *text)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

static char *read_file(const char *name)
{
  char path[512], *out;
  snprintf(path, sizeof path, "cat '%s/%s'", dir, name);
  cr_assert_eq(run(path, &out, 0), 0, "%s missing", name);
  return out;
}

/* The measurements: icsim's own osu_latency and osu_bw at the true values. */
static void measure(void)
{
  char cmd[2048], *out;
  dir = strdup("/tmp/icsim-calibrate-test-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, ICSIM " run -p " PLATFORM " -n 2 --host-timing off " TRUE_SETS " osu_latency " LAT_ARGS
           " > %s/lat.txt && " ICSIM " run -p " PLATFORM " -n 2 --host-timing off " TRUE_SETS " osu_bw " BW_ARGS
           " > %s/bw.txt", dir, dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  write_file("set.yaml", "source: \"icsim itself at known values\"\n"
                         "measurements:\n"
                         "  - file: lat.txt\n    workload: osu_latency\n    args: \"" LAT_ARGS "\"\n    ranks: 2\n"
                         "  - file: bw.txt\n    workload: osu_bw\n    args: \"" BW_ARGS "\"\n    ranks: 2\n");
  write_file("held.yaml", "measurements:\n"
                          "  - file: lat.txt\n    workload: osu_latency\n    args: \"" LAT_ARGS "\"\n    ranks: 2\n"
                          "    sizes: [512KiB, 1MiB]\n");
}

static void cleanup(void)
{
  char cmd[600], *out;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  run(cmd, &out, 1);
  free(out);
  free(dir);
}

/* Run icsim calibrate with ARGS in the test's folder; its status, stderr + stdout in *OUT. */
static int calibrate(const char *args, char **out)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cd '%s' && " ICSIM " calibrate -p " PLATFORM " -j 2 %s", dir, args);
  return run(cmd, out, 1);
}

static void expect_near(const struct icsim_platform *pf, const char *key, double want)
{
  double got = icsim_param_num(&pf->params, key);
  struct icsim_pval *pv = icsim_params_find(&pf->params, key);
  cr_expect(fabs(got / want - 1) < 0.01, "%s: fitted %g, true %g (%.2f%% off)", key, got, want,
            100 * (got / want - 1));
  cr_expect_str_eq(pv->origin, "calibrated", "%s", key);
  cr_expect(pv->has_range && pv->lo <= got && got <= pv->hi, "%s: range [%g, %g] around %g", key, pv->lo, pv->hi, got);
  cr_expect(pv->ref && strstr(pv->ref, "lat.txt") && strstr(pv->ref, "bw.txt"),
            "%s: the ref names the measured files: %s", key, pv->ref ? pv->ref : "(none)");
}

Test(calibrate, three_parameters_fitted_back_from_their_bounds, .init = measure, .fini = cleanup, .timeout = 900)
{
  char *out, args[1024];
  snprintf(args, sizeof args, FREE " --start generic/send-overhead=low --start network/link-latency=high "
           "--start network/link-bandwidth=low --hold-out held.yaml -o fitted.yaml set.yaml");
  int rc = calibrate(args, &out);
  cr_assert_eq(rc, 0, "%s", out);
  cr_expect(strstr(out, "fitted: 40 points"), "the two held-out rows leave the fit: %s", out);
  const char *held = strstr(out, "held out: 2 points predicted, RMS log error ");
  cr_assert(held, "%s", out);
  cr_expect(atof(held + strlen("held out: 2 points predicted, RMS log error ")) < 1.0, "%s", held);
  struct icsim_platform pf;
  char err[2048], path[600];
  snprintf(path, sizeof path, "%s/fitted.yaml", dir);
  cr_assert_eq(icsim_platform_load(&pf, path, NULL, 0, err, sizeof err), 0, "%s", err);
  expect_near(&pf, "generic/send-overhead", 5e-6);
  expect_near(&pf, "network/link-latency", 7e-6);
  expect_near(&pf, "network/link-bandwidth", 150e6);
  cr_expect_eq(icsim_param_num(&pf.params, "generic/recv-overhead"), 3e-6, "a key not fitted keeps its value");
  icsim_platform_free(&pf);
  free(out);
  /* started again: every run is found in the store, and the same platform comes out */
  snprintf(args, sizeof args, FREE " --start generic/send-overhead=low --start network/link-latency=high "
           "--start network/link-bandwidth=low --hold-out held.yaml -o again.yaml set.yaml");
  cr_assert_eq(calibrate(args, &out), 0, "%s", out);
  cr_expect(strstr(out, "(0 simulations run now"), "%s", out);
  char *a = read_file("fitted.yaml"), *b = read_file("again.yaml");
  cr_expect_str_eq(a, b, "deterministic: the same inputs give the same platform");
  free(a);
  free(b);
  free(out);
}

Test(calibrate, unreadable_line_named, .init = measure, .fini = cleanup)
{
  char *lat = read_file("lat.txt"), *out;
  /* a launcher's warning inside the table, on line 5 */
  char *third = strchr(strchr(strchr(strchr(lat, '\n') + 1, '\n') + 1, '\n') + 1, '\n') + 1;
  char *bad;
  cr_assert(asprintf(&bad, "%.*sWarning: Permanently added 'node2' to the list of known hosts.\n%s",
                     (int)(third - lat), lat, third) > 0);
  write_file("lat.txt", bad);
  int rc = calibrate(FREE " set.yaml", &out);
  cr_expect_eq(rc, 2, "%s", out);
  cr_expect(strstr(out, "lat.txt:5: cannot read 'Warning: Permanently"), "%s", out);
  free(bad);
  free(lat);
  free(out);
}

Test(calibrate, sizes_the_workload_does_not_print, .init = measure, .fini = cleanup)
{
  char *out;
  write_file("small.yaml", "measurements:\n"
                           "  - file: lat.txt\n    workload: osu_latency\n    args: \"-m 1:1024 -i 2 -x 1\"\n"
                           "    ranks: 2\n");
  int rc = calibrate(FREE " small.yaml", &out);
  cr_expect_eq(rc, 2, "%s", out);
  /* lat.txt: two header lines, then 1, 2, 4 ... : 2048 B is line 14 */
  cr_expect(strstr(out, "lat.txt:14: size 2048 is not in the output of osu_latency -m 1:1024"), "%s", out);
  free(out);
  write_file("nosuch.yaml", "measurements:\n"
                            "  - file: lat.txt\n    workload: osu_latency\n    ranks: 2\n    sizes: [1, 3000]\n");
  rc = calibrate(FREE " nosuch.yaml", &out);
  cr_expect_eq(rc, 2, "%s", out);
  cr_expect(strstr(out, "nosuch.yaml:5:") && strstr(out, "size 3000 is not a row of"), "%s", out);
  free(out);
}

Test(calibrate, parameters_that_cannot_be_fitted, .init = measure, .fini = cleanup)
{
  char *out;
  /* registration-page is left at its default, a `spec` value (the page size) */
  cr_expect_eq(calibrate("--free generic/registration-page=1KiB..64KiB set.yaml", &out), 2, "%s", out);
  cr_expect(strstr(out, "--free generic/registration-page: its value is `spec`"), "%s", out);
  free(out);
  cr_expect_eq(calibrate("--free generic/send-overhed set.yaml", &out), 2, "%s", out);
  cr_expect(strstr(out, "unknown parameter; did you mean 'generic/send-overhead'?"), "%s", out);
  free(out);
  cr_expect_eq(calibrate("--free generic/store-and-forward set.yaml", &out), 2, "%s", out);
  cr_expect(strstr(out, "not a number"), "%s", out);
  free(out);
  write_file("typo.yaml", "measurements:\n  - file: lat.txt\n    worklaod: osu_latency\n    ranks: 2\n");
  cr_expect_eq(calibrate(FREE " typo.yaml", &out), 2, "%s", out);
  cr_expect(strstr(out, "typo.yaml:3:") && strstr(out, "workload"), "%s", out);
  free(out);
}

/* Ping-pong latency depends on the two overheads through their sum only: a ridge, named. */
Test(calibrate, ridge_named_and_no_platform_written, .init = measure, .fini = cleanup, .timeout = 600)
{
  char *out;
  write_file("latonly.yaml", "measurements:\n"
                             "  - file: lat.txt\n    workload: osu_latency\n    args: \"" LAT_ARGS "\"\n    ranks: 2\n");
  int rc = calibrate("--free generic/send-overhead=1us..20us,generic/recv-overhead=1us..20us --max-evals 40 "
                     "-o ridge.yaml latonly.yaml", &out);
  cr_expect_eq(rc, 1, "%s", out);
  cr_expect(strstr(out, "RIDGE: ") && strstr(out, "generic/send-overhead") && strstr(out, "generic/recv-overhead"),
            "%s", out);
  char path[600];
  snprintf(path, sizeof path, "%s/ridge.yaml", dir);
  cr_expect_neq(access(path, F_OK), 0, "no platform is written on a ridge");
  free(out);
}
