/* The MPI adaptor at the rank counts plain icsim programs run at: binaries built by Debian's MPICH
 * and Open MPI compilers start, communicate and end at 2 to 256 ranks (1024 in bench/abi-scale).
 * Up to 17 ranks was all that worked before: the 18th rank's first call grew a per-rank table
 * that an earlier rank, paused inside its own first call, still held a pointer into. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect_run.h"

#define ICSIM ICSIM_BUILD "/bin/icsim"
#define RUN ICSIM " run -p " ICSIM_SRC "/bench/star-1024.yaml --place cyclic --host-timing off "
#define WL ICSIM_BUILD "/workloads/"

static char *path_of(const char *mpi, const char *name)
{
  char *p;
  if (asprintf(&p, WL "%s/%s", mpi, name) < 0)
    abort();
  if (access(p, X_OK) != 0)
    cr_skip_test("%s not built (no mpicc.%s)", p, mpi);
  return p;
}

static void hello(const char *mpi)
{
  static const int counts[] = {2, 17, 18, 64, 256};
  char *prog = path_of(mpi, "hello_allreduce");
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    char *out = expect_run(0, RUN "-n %d %s", counts[i], prog);
    char expect[128];
    snprintf(expect, sizeof expect, "hello from %d ranks: sum of ranks %ld (ok)", counts[i],
             (long)counts[i] * (counts[i] - 1) / 2);
    cr_assert(strstr(out, expect), "%s at %d ranks:\n%s", mpi, counts[i], out);
    free(out);
  }
  free(prog);
}

Test(abi_scale, mpich_hello_and_allreduce_at_2_to_256_ranks) { hello("mpich"); }
Test(abi_scale, openmpi_hello_and_allreduce_at_2_to_256_ranks) { hello("openmpi"); }

static double field(const char *out, const char *name)
{
  const char *p = strstr(out, name);
  return p && (p = strchr(p, '=')) ? atof(p + 1) : NAN;
}

/* NPB IS class S verifies through the adaptor at 2, 64 and 256 ranks (NPB's kernels take a power of
 * two, so not 17 or 18); at 2 and 64 its Mop/s are the icsimcc build's less the adaptor's
 * nanoseconds per call (within 0.5%: the 64-rank run makes some 20,000 calls per rank). */
static void is_class_s(const char *mpi)
{
  static const int counts[] = {2, 64, 256};
  char *prog = path_of(mpi, "is");
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    char *out = expect_run(0, RUN "-n %d %s S", counts[i], prog);
    cr_assert(strstr(out, "Verification    =               SUCCESSFUL"), "%s IS S at %d ranks:\n%s", mpi, counts[i],
              out);
    if (counts[i] <= 64) {
      char *native = expect_run(0, RUN "-n %d is S", counts[i]);
      double a = field(out, "Mop/s total"), n = field(native, "Mop/s total");
      cr_assert(a <= n && a > 0.995 * n, "%s IS S at %d ranks: %.2f Mop/s through the adaptor, %.2f native", mpi,
                counts[i], a, n);
      free(native);
    }
    free(out);
  }
  free(prog);
}

Test(abi_scale, mpich_is_class_s_at_2_64_256_ranks) { is_class_s("mpich"); }
Test(abi_scale, openmpi_is_class_s_at_2_64_256_ranks) { is_class_s("openmpi"); }

/* The adaptor's own checks (tests/progs/abi_checks.c: twelve user ops alive at once, communicators,
 * topologies, ...) beyond 17 ranks: the user ops' trampolines are per rank (64 slots for the whole
 * process stopped this program at 18 ranks). */
static void translation_checks(const char *mpi)
{
  static const int counts[] = {18, 64};
  char *prog = path_of(mpi, "abi_checks");
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    char *out = expect_run(0, RUN "-n %d %s", counts[i], prog);
    cr_assert(strstr(out, "0 checks failed") && !strstr(out, "FAIL"), "%s at %d ranks:\n%s", mpi, counts[i], out);
    free(out);
  }
  free(prog);
}

Test(abi_scale, mpich_translation_checks_at_18_and_64_ranks) { translation_checks("mpich"); }
Test(abi_scale, openmpi_translation_checks_at_18_and_64_ranks) { translation_checks("openmpi"); }
