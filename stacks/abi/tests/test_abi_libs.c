/* Binaries whose MPI comes through a shared library, as most applications meet it (ScaLAPACK,
 * PETSc, HDF5): icsim run reads the whole dependency tree, binds every library that calls MPI to
 * the adaptor and gives each rank its own copy of it (its globals are the rank's, as in a process
 * of its own); a tree built against two MPIs is refused naming both. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect_run.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define PLATFORM "-p " ICSIM_SRC "/platforms/score-gige-xeon.yaml "
#define WL ICSIM_BUILD "/workloads/"

/* Skip the test when PROG was not built (WHY: the compiler it needs). */
static void need_built(const char *prog, const char *why)
{
  if (access(prog, X_OK) != 0)
    cr_skip_test("%s not built (%s)", prog, why);
}

/* Our own program (tests/progs/libcalls): main names no MPI, libicsimabi_outer.so calls MPI_Init and
 * the collectives and uses libicsimabi_inner.so, which keeps a communicator, its rank and a count of
 * calls in its globals; each rank checks its own after every rank has set theirs. */
static void libcalls(const char *mpi, const char *soname)
{
  char prog[512];
  snprintf(prog, sizeof prog, WL "%s/libcalls/libcalls", mpi);
  need_built(prog, mpi);
  char *dry = expect_run(0, ICSIM " run --dry-run " PLATFORM "-n 4 %s", prog);
  cr_assert(strstr(dry, soname), "%s", dry);
  const char *inner = strstr(dry, "libicsimabi_inner.so"), *outer = strstr(dry, "libicsimabi_outer.so");
  cr_assert(inner && outer && inner < outer, "both libraries, the one needed first:\n%s", dry);
  free(dry);
  static const int counts[] = {2, 18, 64};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    char *out = expect_run(0, ICSIM " run -p " ICSIM_SRC "/bench/star-1024.yaml --place cyclic --host-timing off -n %d %s 5",
                      counts[i], prog);
    char expect[128];
    snprintf(expect, sizeof expect, "library calls on %d ranks, 5 rounds: 0 checks failed", counts[i]);
    cr_assert(strstr(out, expect) && !strstr(out, "FAIL"), "%s", out);
    free(out);
  }
}

Test(abi_libs, mpich_program_calling_mpi_only_through_libraries) { libcalls("mpich", "libmpich.so.12"); }
Test(abi_libs, openmpi_program_calling_mpi_only_through_libraries) { libcalls("openmpi", "libmpi.so.40"); }

Test(abi_libs, two_mpis_in_one_tree_are_refused_naming_both)
{
  const char *prog = WL "mixed/libcalls/libcalls";
  need_built(prog, "needs mpicc.mpich and mpicc.openmpi");
  char *out = expect_run(2, ICSIM " run " PLATFORM "-n 2 %s", prog);
  cr_assert(strstr(out, "mixes two MPIs"), "%s", out);
  cr_assert(strstr(out, "libicsimabi_outer.so needs libmpich.so.12"), "%s", out);
  cr_assert(strstr(out, "libicsimabi_inner.so needs libmpi.so.40"), "%s", out);
  free(out);
}

/* Debian's scalapack-mpi-test (installed by .ci/setup): ScaLAPACK's own testers, Fortran programs
 * whose MPI is libscalapack-MPI.so's, run on the number of processes their CTest file gives and end
 * with ScaLAPACK's own verdict. They read their input (LU.dat, LLT.dat) from the folder they run in. */
static void scalapack(const char *mpi, const char *tester)
{
  char dir[256], ctest[512];
  snprintf(dir, sizeof dir, "/usr/lib/x86_64-linux-gnu/scalapack/%s-tests", mpi);
  snprintf(ctest, sizeof ctest, "%s/CTestTestfile.cmake", dir);
  FILE *f = fopen(ctest, "r");
  if (!f)
    cr_skip_test("%s missing (Debian package scalapack-mpi-test)", ctest);
  char line[1024], key[64];
  int np = 0;
  snprintf(key, sizeof key, "add_test(%s ", tester);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, strlen(key)) && strstr(line, "\"-n\" \""))
      np = atoi(strstr(line, "\"-n\" \"") + 6);
  fclose(f);
  cr_assert_gt(np, 0, "%s: no process count for %s", ctest, tester);
  char *out = expect_run(0, "cd %s && " ICSIM " run " PLATFORM "--host-timing off -n %d ./%s", dir, np, tester);
  cr_assert(strstr(out, " tests completed and passed residual checks."), "%s", out);
  cr_assert(strstr(out, "    0 tests completed and failed residual checks."), "%s", out);
  cr_assert(strstr(out, "END OF TESTS."), "%s", out);
  free(out);
}

Test(abi_libs, scalapack_mpich_xdlu) { scalapack("mpich", "xdlu"); }
Test(abi_libs, scalapack_mpich_xdllt) { scalapack("mpich", "xdllt"); }
Test(abi_libs, scalapack_openmpi_xdlu) { scalapack("openmpi", "xdlu"); }

/* Every rank maps its own copies: past vm.max_map_count SMPI would fail deep inside SimGrid, so the
 * run is refused before it starts, with the sysctl that lifts the limit (4096 ranks of libcalls need
 * about 70,000 mappings; the default limit is 65,530). */
Test(abi_libs, too_many_mappings_are_refused_with_the_limit)
{
  const char *prog = WL "mpich/libcalls/libcalls";
  need_built(prog, "no mpicc.mpich");
  long limit = 0;
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  if (!f || fscanf(f, "%ld", &limit) != 1 || limit > 80000)
    cr_skip_test("vm.max_map_count is %ld here: 4096 ranks fit", limit);
  fclose(f);
  char dir[] = "/tmp/icsim-maps-XXXXXX";
  cr_assert(mkdtemp(dir));
  char *out = expect_run(0, "sed 's/^  count: .*/  count: 4096/' " ICSIM_SRC "/bench/star-256.yaml > %s/star.yaml", dir);
  free(out);
  out = expect_run(2, ICSIM " run -p %s/star.yaml --place cyclic --host-timing off -n 4096 %s", dir, prog);
  cr_assert(strstr(out, "vm.max_map_count") && strstr(out, "sysctl -w vm.max_map_count="), "%s", out);
  free(out);
  out = expect_run(0, "rm -rf %s", dir);
  free(out);
}
