/* The MPI adaptor end to end: binaries built by Debian's MPICH and Open MPI compilers (our own
 * workloads, built into build/workloads/{mpich,openmpi}/ by stacks/abi/sources.cmake) and Debian's
 * own NetPIPE packages run unchanged under `icsim run` on the Sumimoto cluster, and simulate what
 * their icsimcc builds simulate plus the adaptor's cost, worked out by hand from the model. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../tests/shell.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define RUN_OPTS "-p " ICSIM_SRC "/platforms/score-gige-xeon.yaml --host-timing off "
#define RUN "run " RUN_OPTS
#define WL ICSIM_BUILD "/workloads/"

static int have(const char *path) { return access(path, X_OK) == 0; }

static char *icsim(int expect_status, const char *args)
{
  char *cmd, *out;
  if (asprintf(&cmd, ICSIM " %s", args) < 0)
    abort();
  int rc = run(cmd, &out, 1);
  cr_assert_eq(rc, expect_status, "'%s' exited %d, expected %d:\n%s", cmd, rc, expect_status, out);
  free(cmd);
  return out;
}

/* The number after "NAME = " in OUT, or NAN. */
static double field(const char *out, const char *name)
{
  const char *p = strstr(out, name);
  if (!p || !(p = strchr(p, '=')))
    return NAN;
  return atof(p + 1);
}

/* Adaptor cost of one MPI_Send at the Sumimoto cluster's clock (test_abi.c works it out):
 * 4.1 + 3 x (3.1 + 0.27) + 47 x 0.27 ns. A receive's own cost is paid on entering the call, while the
 * rank waits for the message anyway; each one-way trip of a ping-pong therefore grows by one send's. */
#define SEND_COST_US 0.02690

static void latency_through_adaptor(const char *mpi)
{
  char path[512], args[1024];
  snprintf(path, sizeof path, WL "%s/osu_latency", mpi);
  if (!have(path))
    cr_skip_test("%s not built (no mpicc.%s)", path, mpi);
  char *native = icsim(0, RUN "-n 2 --place 2x1 osu_latency -m 0:8 -i 400 -x 20");
  snprintf(args, sizeof args, RUN "-n 2 --place 2x1 %s -m 0:8 -i 400 -x 20", path);
  char *adapted = icsim(0, args);
  for (long size = 0; size <= 8; size = size ? size * 2 : 1) {
    double n = row_value(native, size), a = row_value(adapted, size);
    cr_assert(n > 0 && a > 0, "size %ld missing:\n%s\n%s", size, native, adapted);
    /* both printed to 0.01 us */
    cr_assert_lt(fabs((a - n) - SEND_COST_US), 0.0051, "%s size %ld: %.2f us through the adaptor, %.2f us native, "
                 "expected +%.4f", mpi, size, a, n, SEND_COST_US);
  }
  free(native);
  free(adapted);
}

Test(abi_e2e, mpich_osu_latency_is_native_plus_one_send_per_trip) { latency_through_adaptor("mpich"); }
Test(abi_e2e, openmpi_osu_latency_is_native_plus_one_send_per_trip) { latency_through_adaptor("openmpi"); }

/* A Fortran program built with mpif90.mpich (mpif.h, MPICH's Fortran entry points) runs unchanged
 * and times as its icsimff twin plus one send's conversions per one-way trip. */
Test(abi_e2e, mpich_fortran_osu_latency_runs_unchanged)
{
  if (!have(WL "mpich/osu_latency_f"))
    cr_skip_test("no mpif90.mpich");
  char *native = icsim(0, RUN "-n 2 --place 2x1 " WL "osu_latency_f");
  char *adapted = icsim(0, RUN "-n 2 --place 2x1 " WL "mpich/osu_latency_f");
  double n = row_value(native, 8), a = row_value(adapted, 8);
  cr_assert(n > 0 && a > 0, "%s\n%s", native, adapted);
  cr_assert_lt(fabs((a - n) - SEND_COST_US), 0.0051, "Fortran: %.2f us through the adaptor, %.2f us native", a, n);
  free(native);
  free(adapted);
}

static void npb_through_adaptor(const char *mpi, const char *kernel)
{
  char path[512], args[1024];
  snprintf(path, sizeof path, WL "%s/%s", mpi, kernel);
  if (!have(path))
    cr_skip_test("%s not built (no mpicc.%s)", path, mpi);
  snprintf(args, sizeof args, RUN "-n 4 --place 4x1 " WL "npb/%s S", kernel);
  char *native = icsim(0, args);
  snprintf(args, sizeof args, RUN "-n 4 --place 4x1 %s S", path);
  char *adapted = icsim(0, args);
  cr_assert(strstr(adapted, "Verification    =               SUCCESSFUL"), "%s", adapted);
  /* the compute phases are charged from the model in both builds (icsim_phase.h): the same compute
   * time; the adaptor adds nanoseconds per call to a run of milliseconds */
  cr_assert_float_eq(field(adapted, "Compute time"), field(native, "Compute time"), 1e-9, "%s\n%s", native, adapted);
  double tn = field(native, "Mop/s total"), ta = field(adapted, "Mop/s total");
  cr_assert(ta <= tn && ta > tn * 0.999, "%s %s: %.2f Mop/s through the adaptor, %.2f native", mpi, kernel, ta, tn);
  free(native);
  free(adapted);
}

Test(abi_e2e, mpich_npb_is_and_cg_verify_as_native) {
  npb_through_adaptor("mpich", "is");
  npb_through_adaptor("mpich", "cg");
}
Test(abi_e2e, openmpi_npb_is_verifies_as_native) { npb_through_adaptor("openmpi", "is"); }

/* A program built by the other MPI's compiler (build/workloads/MPI/NAME), run on NP ranks through
 * the adaptor: it checks itself and says PASSED (with no FAIL line) when all is well. */
static void self_checking(const char *mpi, const char *name, int np, const char *passed)
{
  char path[512], args[1024];
  snprintf(path, sizeof path, WL "%s/%s", mpi, name);
  if (!have(path))
    cr_skip_test("%s not built (no mpicc.%s)", path, mpi);
  snprintf(args, sizeof args, RUN "-n %d %s", np, path);
  char *out = icsim(0, args);
  cr_assert(strstr(out, passed) && !strstr(out, "FAIL"), "%s", out);
  free(out);
}

/* What the adaptor translates, checked by the program itself (tests/progs/abi_checks.c): user ops,
 * MPI_IN_PLACE, statuses, MPI_PROC_NULL, MPI_UNDEFINED, null handles after frees, persistent
 * requests, derived datatypes, communicators, groups, topologies, attributes, error classes. */
Test(abi_e2e, mpich_translation_checks) { self_checking("mpich", "abi_checks", 4, "0 checks failed"); }
Test(abi_e2e, openmpi_translation_checks) { self_checking("openmpi", "abi_checks", 4, "0 checks failed"); }

/* Collectives on an intercommunicator (tests/mpi/intercomm_coll.c): the program's MPI_ROOT (-3 in
 * MPICH, -4 in Open MPI) and MPI_PROC_NULL as roots, per-peer arrays as long as the remote group, on
 * uneven groups (2 and 3 ranks). */
Test(abi_e2e, mpich_intercomm_collectives) { self_checking("mpich", "intercomm_coll", 5, "No Errors"); }
Test(abi_e2e, openmpi_intercomm_collectives) { self_checking("openmpi", "intercomm_coll", 5, "No Errors"); }

/* Debian's NetPIPE binaries: unchanged (same checksum), and their small-message latency (half a round
 * trip) agrees with our osu_latency on the same platform. */
static void netpipe(const char *bin, const char *abi_words)
{
  if (!have(bin))
    cr_skip_test("%s not installed (Debian package netpipe-*)", bin);
  char cmd[1024], *before, *after, *out;
  snprintf(cmd, sizeof cmd, "sha256sum %s", bin);
  cr_assert_eq(run(cmd, &before, 0), 0);
  snprintf(cmd, sizeof cmd, "run --dry-run " RUN_OPTS "-n 2 --place 2x1 %s", bin);
  out = icsim(0, cmd);
  cr_assert(strstr(out, abi_words), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, RUN "-n 2 --place 2x1 %s -u 8 -n 20 -p 0", bin);
  out = icsim(0, cmd);
  /* "  5:       8 bytes     20 times -->      2.82 Mbps in      21.67 usec" */
  const char *l = strstr(out, "8 bytes");
  cr_assert(l && strstr(l, " in "), "%s", out);
  double np = atof(strstr(l, " in ") + 4);
  char *osu = icsim(0, RUN "-n 2 --place 2x1 osu_latency -m 8:8 -i 400 -x 20");
  double ours = row_value(osu, 8);
  cr_assert(ours > 0 && fabs(np / ours - 1) < 0.05, "%s: %.2f us, osu_latency %.2f us", bin, np, ours);
  snprintf(cmd, sizeof cmd, "sha256sum %s", bin);
  cr_assert_eq(run(cmd, &after, 0), 0);
  cr_assert_str_eq(before, after, "%s changed", bin);
  free(before);
  free(after);
  free(out);
  free(osu);
}

Test(abi_e2e, npmpich2_runs_unchanged) { netpipe("/usr/bin/NPmpich2", "built against MPICH (it needs libmpich.so.12)"); }
Test(abi_e2e, npopenmpi_runs_unchanged) { netpipe("/usr/bin/NPopenmpi", "built against Open MPI (it needs libmpi.so.40)"); }

/* A call the adaptor does not translate stops the run with its name, never a wrong answer. */
Test(abi_e2e, untranslated_call_fails_loudly)
{
  char *out;
  if (run("command -v mpicc.mpich", &out, 0) != 0)
    cr_skip_test("mpicc.mpich not installed");
  free(out);
  char dir[] = "/tmp/icsim-abi-XXXXXX", cmd[2048];
  cr_assert(mkdtemp(dir));
  snprintf(cmd, sizeof cmd,
           "cd %s && printf '#include <mpi.h>\\n#include <stdio.h>\\nint main(int c, char **v) { int n, a, d, k; "
           "MPI_Init(&c, &v); MPI_Type_get_envelope(MPI_INT, &n, &a, &d, &k); printf(\"after-the-call\\\\n\"); "
           "MPI_Finalize(); return 0; }\\n' > env.c && mpicc.mpich -o env env.c",
           dir);
  cr_assert_eq(run(cmd, &out, 1), 0, "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, RUN "-n 2 %s/env", dir);
  out = icsim(3, cmd);
  cr_assert(strstr(out, "MPI_Type_get_envelope is not translated by the adaptor"), "%s", out);
  cr_assert(!strstr(out, "after-the-call"), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}
