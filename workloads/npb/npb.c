/* NPB common code: generator, arguments, timer, report block. */
#include "npb.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MASK46 ((UINT64_C(1) << 46) - 1)

double randlc(double *x, double a)
{
  unsigned __int128 p = (unsigned __int128)(uint64_t)*x * (uint64_t)a;
  uint64_t r = (uint64_t)p & MASK46;
  *x = (double)r;
  return (double)r * 0x1p-46;
}

void vranlc(int n, double *x, double a, double *y)
{
  uint64_t xi = (uint64_t)*x, ai = (uint64_t)a;
  for (int i = 0; i < n; i++) {
    xi = (uint64_t)((unsigned __int128)xi * ai) & MASK46;
    y[i] = (double)xi * 0x1p-46;
  }
  *x = (double)xi;
}

double npb_pow46(double a, long long n)
{
  uint64_t result = 1, base = (uint64_t)a;
  while (n > 0) {
    if (n & 1)
      result = (uint64_t)((unsigned __int128)result * base) & MASK46;
    base = (uint64_t)((unsigned __int128)base * base) & MASK46;
    n >>= 1;
  }
  return (double)result;
}

static int has_grid(const char *name) { return !strcmp(name, "FT"); }

static void usage(const char *name, const char *classes)
{
  printf("usage: %s [CLASS] [--skeleton]%s\n"
         "  NAS Parallel Benchmarks kernel %s (icsim's implementation of the NPB 3 problem definition).\n"
         "  CLASS        problem class, one of %s (default S)\n"
         "  --skeleton   under `icsim run` only: skip the computation, charge its declared cost from the\n"
         "               platform's compute model and keep big arrays in shared pages (verification skipped)\n",
         name, has_grid(name) ? " [--grid NP1xNP2]" : "", name, classes);
  if (has_grid(name))
    printf("  --grid NP1xNP2  processor array, as NPB's inputft.data sets it: 1xNP = slabs (1D layout),\n"
           "               NP1 > 1 = pencils (2D layout); NP1 x NP2 = the process count, NP1 divides nx and\n"
           "               ny, NP2 divides ny and nz. Default: NPB's, 1xNP up to nz processes, else\n"
           "               nz x (NP / nz)\n");
  printf("  The number of processes must be a power of two.\n");
}

int npb_start(struct npb_run *run, const char *name, int argc, char **argv, const char *classes)
{
  memset(run, 0, sizeof *run);
  run->name = name;
  run->cls = 'S';
  MPI_Comm_rank(MPI_COMM_WORLD, &run->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &run->nprocs);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--skeleton")) {
      run->skeleton = 1;
    } else if (has_grid(name) && (!strcmp(a, "--grid") || !strncmp(a, "--grid=", 7))) {
      const char *g = a[6] == '=' ? a + 7 : i + 1 < argc ? argv[++i] : "";
      char tail;
      if (sscanf(g, "%dx%d%c", &run->grid[0], &run->grid[1], &tail) != 2 || run->grid[0] < 1 || run->grid[1] < 1) {
        if (run->rank == 0)
          fprintf(stderr, "%s: --grid '%s': give the processor array as NP1xNP2, e.g. --grid 64x64\n", name, g);
        return 2;
      }
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      if (run->rank == 0)
        usage(name, classes);
      return 0x100; /* exit 0 */
    } else if (strlen(a) == 1 && strchr(classes, a[0] & ~0x20)) {
      run->cls = (char)(a[0] & ~0x20);
    } else {
      if (run->rank == 0)
        fprintf(stderr, "%s: '%s' is neither a class (%s) nor --skeleton; try --help\n", name, a, classes);
      return 2;
    }
  }
  if (run->skeleton && !icsim_skeleton_ok()) {
    if (run->rank == 0)
      fprintf(stderr,
              "%s: --skeleton needs a compute model to charge the skipped work: build with icsimcc and run "
              "with `icsim run`\n",
              name);
    return 2;
  }
  if (run->nprocs & (run->nprocs - 1)) {
    if (run->rank == 0)
      fprintf(stderr, "%s: %d processes: the NPB kernels run on a power of two (1, 2, 4, 8, ...)\n", name,
              run->nprocs);
    return 2;
  }
  return 0;
}

int npb_check_procs(struct npb_run *run, int maxprocs, const char *why)
{
  if (maxprocs > 0 && run->nprocs > maxprocs) {
    if (run->rank == 0)
      fprintf(stderr, "%s class %c: %d processes is too many; at most %d (%s)\n", run->name, run->cls,
              run->nprocs, maxprocs, why);
    return 2;
  }
  return 0;
}

void *npb_alloc(struct npb_run *run, size_t bytes, const char *what)
{
  void *p = run->skeleton ? icsim_alloc_shared(bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "%s class %c: rank %d cannot allocate %s (%.1f MB); use a smaller class or --skeleton\n",
            run->name, run->cls, run->rank, what, bytes / 1e6);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

void npb_free(struct npb_run *run, void *p)
{
  if (run->skeleton)
    icsim_free_shared(p);
  else
    free(p);
}

void npb_timer_start(struct npb_run *run)
{
  MPI_Barrier(MPI_COMM_WORLD);
  run->t0 = MPI_Wtime();
  run->compute0 = icsim_compute_seconds();
  icsim_phase_profile_reset(); /* the profile covers the timed region, as Compute time does */
}

void npb_timer_stop(struct npb_run *run)
{
  double t = MPI_Wtime() - run->t0, c = icsim_compute_seconds() - run->compute0, in[2] = {t, c}, out[2];
  MPI_Reduce(&in[0], &out[0], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&in[1], &out[1], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  run->time_s = out[0];
  run->compute_s = out[1] / run->nprocs;
  run->comm_s = run->time_s - run->compute_s;
}

void npb_report(const struct npb_run *run, const char *size, int iterations, double mops_total,
                const char *optype, int verified)
{
  if (run->rank != 0)
    return;
  char cls[2] = {run->cls, 0};
  printf("\n %s Benchmark Completed.\n", run->name);
  printf(" %-15s = %24s\n", "Class", cls);
  printf(" %-15s = %24s\n", "Size", size);
  printf(" %-15s = %24d\n", "Iterations", iterations);
  printf(" %-15s = %24.2f\n", "Time in seconds", run->time_s);
  printf(" %-15s = %24d\n", "Total processes", run->nprocs);
  printf(" %-15s = %24.2f\n", "Mop/s total", mops_total);
  printf(" %-15s = %24.2f\n", "Mop/s/process", mops_total / run->nprocs);
  printf(" %-15s = %24s\n", "Operation type", optype);
  printf(" %-15s = %24s\n", "Verification",
         verified > 0 ? "SUCCESSFUL" : verified == 0 ? "UNSUCCESSFUL" : "NOT PERFORMED (skeleton)");
  if (icsim_skeleton_ok()) {
    /* Under icsim: where the timed region went. Compute is the declared phases (mean over
     * processes); the rest is communication and waiting. */
    printf(" %-15s = %24.4f\n", "Compute time", run->compute_s);
    printf(" %-15s = %24.4f\n", "Comm time", run->comm_s);
    printf(" %-15s = %24s\n", "Compute model", run->skeleton ? "icsim (skeleton)" : "icsim");
    if (getenv("ICSIM_PHASE_PROFILE"))
      icsim_phase_profile(stdout); /* rank 0's phases, as the model charged them, and which term bound */
  }
#if defined(ICSIM_PHASE_TIMING) && !defined(SMPI_H)
  /* Native build for the compute-model check: the same phases, timed on this machine. */
  printf(" %-15s = %24.4f\n", "Compute time", run->compute_s);
  printf(" %-15s = %24.4f\n", "Comm time", run->comm_s);
  printf(" %-15s = %24s\n", "Compute model", "measured (native)");
  if (getenv("ICSIM_PHASE_PROFILE"))
    icsim_phase_profile(stdout); /* rank 0's phases in the timed region (and after it: verification) */
#endif
  fflush(stdout);
}
