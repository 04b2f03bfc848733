/* Shared pieces of the NAS Parallel Benchmark kernels (our own implementations of the NPB 3
 * problem definitions): the NPB random number generator, argument parsing, the timed region and
 * the report block. */
#ifndef NPB_H
#define NPB_H

#include <stddef.h>

#include "icsim_phase.h"

/* NPB linear congruential generator x <- a x mod 2^46, returned as x 2^-46. Exact integer
 * arithmetic, so every process computes the same stream bit for bit. */
double randlc(double *x, double a);
void vranlc(int n, double *x, double a, double *y);
/* a^n mod 2^46 (a jump of n steps of the generator: multiply the seed by it). */
double npb_pow46(double a, long long n);

struct npb_run {
  const char *name; /* "IS" */
  char cls;         /* S W A B */
  int skeleton;     /* loops skipped, compute charged from the model (icsim only) */
  int grid[2];      /* FT's --grid NP1xNP2 (NPB's inputft.data processor array), 0 0 = the default */
  int rank, nprocs;
  double t0, compute0; /* timed region start: wall and this rank's declared compute */
  double time_s, compute_s, comm_s;
};

/* Parse "[CLASS] [--skeleton]" (FT also "--grid NP1xNP2"); CLASSES lists the accepted letters. Checks that the process
 * count is a power of two no larger than MAXPROCS for this class (0 = no limit). Returns 0, or
 * an exit status after printing why (rank 0 only). */
int npb_start(struct npb_run *run, const char *name, int argc, char **argv, const char *classes);
int npb_check_procs(struct npb_run *run, int maxprocs, const char *why);

/* Memory for the kernel's big arrays: shared pages in skeleton mode. Exits with a message
 * naming the array when the machine has no room. */
void *npb_alloc(struct npb_run *run, size_t bytes, const char *what);
void npb_free(struct npb_run *run, void *p);

/* Timed region: barrier, then the clock. npb_timer_stop takes the slowest process' time. */
void npb_timer_start(struct npb_run *run);
void npb_timer_stop(struct npb_run *run);

/* verified: 1 SUCCESSFUL, 0 UNSUCCESSFUL, -1 not checked (skeleton). */
void npb_report(const struct npb_run *run, const char *size, int iterations, double mops_total,
                const char *optype, int verified);

#endif
